/* fake.c: the fake circuit kind (see fake.h). Thread-safe: f->mu guards the gate, device timelines, the tag map and
 * the log; counters are atomics. No callback holds f->mu while sleeping except the gate wait (a condition wait). */
#include "engine/fake.h"

#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

typedef struct fake_parsed {
  czk_fake_job j;
} fake_parsed;

/* A synthesized partition carries its job's plan (the prove callbacks see only the synthesis output). */
typedef struct fake_synth {
  uint64_t tag;
  uint32_t part;
  czk_fake_job j;
} fake_synth;

typedef struct fake_pending {
  uint64_t end_ns, tag;
  uint32_t part, dev;
  czk_fake_job j;
  const void *lane_owner, *lane_be; /* the emulated lane it holds (czk__fake_kind_plan) */
  int lane_shape;
} fake_pending;

czk_status czk__fake_init(czk_fake *f, size_t max_tags) {
  memset(f, 0, sizeof *f);
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  f->max_tags = max_tags;
  if (max_tags && !(f->tag_job = calloc(max_tags, sizeof *f->tag_job))) return CZK_ERR_NOMEM;
  return CZK_OK;
}

void czk__fake_destroy(czk_fake *f) {
  pthread_cond_destroy(&f->cv);
  pthread_mutex_destroy(&f->mu);
  free(f->tag_job);
  free(f->log);
  free(f->lanes);
}

czk_status czk__fake_stage_status(czk_fake_stage stage) {
  switch (stage) {
  case CZK_FAKE_PARSE: return CZK_ERR_FORMAT;
  case CZK_FAKE_SYNTH: return CZK_ERR_UNSATISFIED;
  case CZK_FAKE_PROVE_START: return CZK_ERR_DEVICE;
  case CZK_FAKE_PROVE_FINISH: return CZK_ERR_INTERNAL;
  case CZK_FAKE_VERIFY: return CZK_ERR_VERIFY_FAILED;
  case CZK_FAKE_KEY_FILE: return CZK_ERR_FILE_CHANGED;
  default: return CZK_OK;
  }
}

void czk__fake_set_job(czk_fake *f, uint64_t tag, uint64_t job_id) {
  pthread_mutex_lock(&f->mu);
  if (tag < f->max_tags) f->tag_job[tag] = job_id;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
}

void czk__fake_open_gate(czk_fake *f) {
  pthread_mutex_lock(&f->mu);
  f->gate_open = true;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
}

void czk__fake_key_gate(czk_fake *f, bool closed) {
  pthread_mutex_lock(&f->mu);
  f->key_gate_closed = closed;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
}

size_t czk__fake_log_copy(czk_fake *f, czk_fake_log **out) {
  pthread_mutex_lock(&f->mu);
  size_t n = f->nlog;
  *out = malloc((n ? n : 1) * sizeof **out);
  if (*out) memcpy(*out, f->log, n * sizeof **out);
  else n = 0;
  pthread_mutex_unlock(&f->mu);
  return n;
}

void czk__fake_expected_proof(uint64_t tag, uint32_t part, uint8_t out[CZK_FAKE_PROOF_BYTES]) {
  uint64_t x = tag * 0x100000001b3ULL + part + 1;
  for (unsigned i = 0; i < CZK_FAKE_PROOF_BYTES; i += 8) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    memcpy(out + i, &z, 8);
  }
}

/* Self-cancel: the job id is known once submit returned; wait for it (bounded). */
static void self_cancel(czk_fake *f, uint64_t tag) {
  uint64_t id = 0, deadline = czk__clock_now_ns() + 5 * CZK_NS_PER_S;
  pthread_mutex_lock(&f->mu);
  while (tag < f->max_tags && !(id = f->tag_job[tag]) && czk__clock_now_ns() < deadline) {
    pthread_mutex_unlock(&f->mu);
    czk__clock_sleep_ns(50000);
    pthread_mutex_lock(&f->mu);
  }
  pthread_mutex_unlock(&f->mu);
  if (id && f->engine && czk_engine_cancel(f->engine, id, NULL) == CZK_OK) atomic_fetch_add(&f->self_cancels, 1);
}

/* Run the stage hooks of partition `part`: optional status probe, self-cancel. Returns the injected fault. */
static czk_status stage_hooks(czk_fake *f, const czk_fake_job *j, uint32_t part, czk_fake_stage stage) {
  if (f->status_in_callbacks && f->engine) {
    czk_engine_status *s;
    if (czk_engine_status_get(f->engine, &s) == CZK_OK) czk_engine_status_free(s);
  }
  if (j->cancel_stage == (int32_t)stage && j->cancel_part == (int32_t)part) self_cancel(f, j->tag);
  if (j->fail_stage == (int32_t)stage && j->fail_part == (int32_t)part) return czk__fake_stage_status(stage);
  return CZK_OK;
}

static czk_status fake_parse(void *user, const uint8_t *in, size_t len, void **parsed, uint32_t *nparts) {
  czk_fake *f = user;
  czk_fake_job j;
  if (len != sizeof j) return CZK_ERR_FORMAT;
  memcpy(&j, in, sizeof j);
  if (j.magic != CZK_FAKE_MAGIC || j.nparts == 0) return CZK_ERR_FORMAT;
  if (j.fail_stage == CZK_FAKE_PARSE) return czk__fake_stage_status(CZK_FAKE_PARSE);
  fake_parsed *p = malloc(sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  p->j = j;
  atomic_fetch_add(&f->live_parsed, 1);
  *parsed = p;
  *nparts = j.nparts;
  return CZK_OK;
}

static void fake_parsed_free(void *user, void *parsed) {
  czk_fake *f = user;
  atomic_fetch_sub(&f->live_parsed, 1);
  free(parsed);
}

static czk_status fake_synthesize(void *user, const void *parsed, uint32_t part, czk_pool *pool, void **out) {
  (void)pool;
  czk_fake *f = user;
  const czk_fake_job *j = &((const fake_parsed *)parsed)->j;
  uint64_t t0 = czk__clock_now_ns();
  atomic_fetch_add(&f->synth_calls, 1);
  pthread_mutex_lock(&f->mu);
  if (f->nlog == f->log_cap) {
    size_t nc = f->log_cap ? 2 * f->log_cap : 256;
    czk_fake_log *nl = realloc(f->log, nc * sizeof *nl);
    if (nl) f->log = nl, f->log_cap = nc;
  }
  if (f->nlog < f->log_cap) f->log[f->nlog++] = (czk_fake_log){j->tag, part};
  while (j->gate && !f->gate_open) pthread_cond_wait(&f->cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
  czk_status st = stage_hooks(f, j, part, CZK_FAKE_SYNTH);
  if (j->synth_us) {
    /* Emulated work of exactly synth_us: the start is moved back by this thread's previous timer overshoot, so a
     * loaded machine's late wakeups do not accumulate (the engine's own hand-off delays still count in full). */
    static _Thread_local uint64_t tl_overshoot;
    uint64_t end = t0 - (tl_overshoot < t0 ? tl_overshoot : 0) + (uint64_t)j->synth_us * 1000;
    czk__clock_sleep_until_ns(end);
    uint64_t woke = czk__clock_now_ns();
    tl_overshoot = woke > end ? woke - end : 0;
    if (tl_overshoot > (uint64_t)j->synth_us * 1000) tl_overshoot = (uint64_t)j->synth_us * 1000;
  }
  if (st != CZK_OK) return st;
  fake_synth *s = malloc(sizeof *s);
  if (!s) return CZK_ERR_NOMEM;
  s->tag = j->tag;
  s->part = part;
  s->j = *j;
  atomic_fetch_add(&f->live_synth, 1);
  *out = s;
  return CZK_OK;
}

static void fake_synth_free(void *user, void *synth) {
  czk_fake *f = user;
  atomic_fetch_sub(&f->live_synth, 1);
  free(synth);
}

typedef struct fake_dkey {
  uint32_t magic;
  uint32_t parts;  /* the parts it holds (bit i: part i) */
  bool partial;    /* some parts only: proved in compact or lean lanes */
  uint64_t bytes;  /* its emulated device bytes (freed by key_unload) */
  const void *key, *backend;
} fake_dkey;

/* ---- the device model of a key: its keydev entry, else f's fields (read without mu: set before the engine runs) */
typedef struct fake_model {
  uint64_t copy, lane[CZK_LANE_SHAPES];
  uint32_t nparts; /* 1: one part */
} fake_model;

static fake_model model_of(const czk_fake *f, const void *key) {
  uint64_t copy = f->copy_bytes, lane = f->lane_bytes;
  uint32_t np = f->copy_parts;
  const uint64_t *sl = f->shape_lane;
  for (unsigned i = 0; key && i < CZK_FAKE_KEYDEVS; i++) {
    const struct czk_fake_keydev *o = &f->keydev[i];
    if (o->key_id && strcmp(o->key_id, (const char *)key) == 0) {
      copy = o->copy_bytes, lane = o->lane_bytes, np = o->copy_parts, sl = o->shape_lane;
      break;
    }
  }
  fake_model m;
  m.copy = copy;
  m.nparts = np < 1 ? 1 : np > CZK_ENGINE_KEY_PARTS ? CZK_ENGINE_KEY_PARTS : np;
  for (int sh = 0; sh < CZK_LANE_SHAPES; sh++) m.lane[sh] = sl[sh] ? sl[sh] : lane;
  return m;
}
static uint64_t model_lane(const fake_model *m, int shape) {
  return shape >= 0 && shape < CZK_LANE_SHAPES ? m->lane[shape] : m->lane[CZK_LANE_FULL];
}
static uint32_t model_all(const fake_model *m) { return (1u << m->nparts) - 1; }
/* A copy of `parts` holds some of the parts only (a one-part model's copies are whole). */
static bool model_partial(const fake_model *m, uint32_t parts) {
  return m->nparts > 1 && parts && (parts & model_all(m)) != model_all(m);
}
/* The bytes of a copy of `parts`: the base and each part's copy / n (a one-part model: copy). */
static uint64_t model_copy(const fake_model *m, uint32_t parts) {
  if (m->nparts <= 1) return m->copy;
  const uint64_t part = m->copy / m->nparts;
  uint64_t b = m->copy - part * m->nparts;
  for (uint32_t i = 0; i < m->nparts; i++)
    if (parts & (1u << i)) b += part;
  return b;
}

/* ---- emulated device memory (czk__fake_kind_plan): under f->mu */
typedef struct czk_fake_lanes {
  const void *owner, *backend;
  int shape;
  uint32_t idle;
  uint64_t bytes; /* one of its lanes' bytes */
} czk_fake_lanes;

static int dev_index_locked(czk_fake *f, const void *be) {
  for (unsigned i = 0; i < CZK_FAKE_MAX_DEVICES; i++) {
    if (f->dev_be[i] == be) return (int)i;
    if (!f->dev_be[i]) {
      f->dev_be[i] = be;
      return (int)i;
    }
  }
  return 0;
}
static bool dev_alloc_locked(czk_fake *f, const void *be, uint64_t bytes) {
  int d = dev_index_locked(f, be);
  if (f->dev_capacity && f->dev_used[d] + bytes > f->dev_capacity) return false;
  f->dev_used[d] += bytes;
  if (f->dev_used[d] > f->dev_peak[d]) f->dev_peak[d] = f->dev_used[d];
  return true;
}
/* The cache entry of owner's lanes of `shape` on be (made empty when new). */
static czk_fake_lanes *lanes_of_locked(czk_fake *f, const void *owner, const void *be, int shape) {
  for (size_t i = 0; i < f->nlanes; i++)
    if (f->lanes[i].owner == owner && f->lanes[i].backend == be && f->lanes[i].shape == shape) return &f->lanes[i];
  if (f->nlanes == f->lanes_cap) {
    size_t nc = f->lanes_cap ? 2 * f->lanes_cap : 16;
    czk_fake_lanes *n = realloc(f->lanes, nc * sizeof *n);
    if (!n) return NULL;
    f->lanes = n, f->lanes_cap = nc;
  }
  f->lanes[f->nlanes] = (czk_fake_lanes){owner, be, shape, 0, 0};
  return &f->lanes[f->nlanes++];
}
/* Frees owner's idle lanes (on be, or on every device when be is NULL). */
static void lanes_free_locked(czk_fake *f, const void *owner, const void *be) {
  for (size_t i = 0; i < f->nlanes; i++) {
    czk_fake_lanes *l = &f->lanes[i];
    if (l->owner != owner || (be && l->backend != be)) continue;
    f->dev_used[dev_index_locked(f, l->backend)] -= (uint64_t)l->idle * l->bytes;
    l->idle = 0;
  }
}

static czk_status fake_key_upload(void *user, void *key, void *backend, uint32_t parts, void **dkey) {
  czk_fake *f = user;
  long n = atomic_fetch_add(&f->uploads, 1) + 1;
  if (f->upload_fail_every && n % f->upload_fail_every == 0) return CZK_ERR_DEVICE;
  const fake_model m = model_of(f, key);
  const uint64_t bytes = model_copy(&m, parts); /* only the parts asked for */
  fake_dkey *d = malloc(sizeof *d);
  if (!d) return CZK_ERR_NOMEM;
  if (f->dev_capacity) {
    pthread_mutex_lock(&f->mu);
    bool ok = dev_alloc_locked(f, backend, bytes);
    pthread_mutex_unlock(&f->mu);
    if (!ok) {
      free(d);
      atomic_fetch_add(&f->nomem, 1);
      return CZK_ERR_NOMEM;
    }
  }
  *d = (fake_dkey){CZK_FAKE_MAGIC, parts, model_partial(&m, parts), bytes, key, backend};
  atomic_fetch_add(&f->live_dkeys, 1);
  *dkey = d;
  return CZK_OK;
}

static void fake_key_unload(void *user, void *backend, void *dkey) {
  czk_fake *f = user;
  fake_dkey *d = dkey;
  if (!d || d->magic != CZK_FAKE_MAGIC || d->backend != backend) atomic_fetch_add(&f->bad_dkey, 1);
  if (d) d->magic = 0;
  if (f->dev_capacity && d) { /* the copy and its lanes */
    pthread_mutex_lock(&f->mu);
    lanes_free_locked(f, d, backend);
    f->dev_used[dev_index_locked(f, backend)] -= d->bytes;
    pthread_mutex_unlock(&f->mu);
  }
  atomic_fetch_add(&f->unloads, 1);
  atomic_fetch_sub(&f->live_dkeys, 1);
  free(d);
}

/* The parts of key's copy: none (one part) unless its model has copy_parts > 1. Lock-free (called under the key cache's
 * lock). */
static uint32_t fake_key_device_parts(void *user, void *key, uint64_t *base, uint64_t *part_bytes) {
  const fake_model m = model_of(user, key);
  if (m.nparts <= 1) return 0;
  const uint64_t part = m.copy / m.nparts;
  *base = m.copy - part * m.nparts;
  for (uint32_t i = 0; i < m.nparts; i++) part_bytes[i] = part;
  return m.nparts;
}

void czk__fake_kind_device(czk_engine_kind *k, uint64_t device_bytes) {
  k->key_device_bytes = device_bytes;
  k->key_device_parts = fake_key_device_parts;
  k->key_upload = fake_key_upload;
  k->key_unload = fake_key_unload;
}

static czk_status fake_prove_plan(void *user, void *key, void *backend, uint32_t parts, int shape, uint64_t *lane,
                                  uint64_t *tables, uint64_t *pinned) {
  (void)backend;
  czk_fake *f = user;
  const fake_model m = model_of(f, key);
  if (shape == CZK_LANE_FULL && model_partial(&m, parts)) return CZK_ERR_UNSUPPORTED; /* as the real kind */
  *lane = model_lane(&m, shape);
  *tables = 0;
  *pinned = f->lane_pinned;
  return CZK_OK;
}
static void fake_lanes_trim(void *user, void *key, void *dkey, void *backend) {
  czk_fake *f = user;
  pthread_mutex_lock(&f->mu);
  lanes_free_locked(f, dkey ? dkey : key, backend);
  pthread_mutex_unlock(&f->mu);
}
static czk_status fake_lane_warm(void *user, void *key, void *dkey, void *backend, int shape) {
  czk_fake *f = user;
  const fake_model m = model_of(f, key);
  const uint64_t bytes = model_lane(&m, shape);
  pthread_mutex_lock(&f->mu);
  czk_fake_lanes *l = lanes_of_locked(f, dkey ? dkey : key, backend, shape);
  /* the entry's lanes are of one size: an idle one of another size would make frees inexact */
  bool ok = l && (l->idle == 0 || l->bytes == bytes) && dev_alloc_locked(f, backend, bytes);
  if (ok) l->idle++, l->bytes = bytes, f->lane_allocs++;
  pthread_mutex_unlock(&f->mu);
  return ok ? CZK_OK : CZK_ERR_NOMEM;
}
void czk__fake_kind_plan(czk_engine_kind *k) {
  k->prove_plan = fake_prove_plan;
  k->lanes_trim = fake_lanes_trim;
  k->lane_warm = fake_lane_warm;
}

static czk_status fake_prove_start(void *user, const czk_engine_device_ctx *dev, void *key, void *synth,
                                   void **pending, czk_engine_prove_report *rep) {
  czk_fake *f = user;
  const fake_synth *s = synth;
  atomic_fetch_add(&f->prove_calls, 1);
  if (dev->yield) { /* as a chunked prove does before its chunks (prover.c run_pipe) */
    const uint64_t t = czk__clock_now_ns();
    dev->yield(dev->yield_user);
    const uint64_t w = czk__clock_now_ns() - t;
    uint64_t m = atomic_load(&f->yield_wait_max_ns);
    while (w > m && !atomic_compare_exchange_weak(&f->yield_wait_max_ns, &m, w)) {
    }
    atomic_fetch_add(&f->yield_calls, 1);
  } else {
    atomic_fetch_add(&f->no_yield, 1);
  }
  if (dev->dkey) {
    const fake_dkey *d = dev->dkey;
    if (d->magic != CZK_FAKE_MAGIC || d->key != key || d->backend != dev->backend) {
      atomic_fetch_add(&f->bad_dkey, 1);
      return CZK_ERR_INTERNAL;
    }
    if (d->partial && dev->shape == CZK_LANE_FULL) { /* a partial copy has no full lane */
      atomic_fetch_add(&f->bad_dkey, 1);
      return CZK_ERR_INTERNAL;
    }
    atomic_fetch_add(&f->proves_dkey, 1);
  } else {
    atomic_fetch_add(&f->proves_host, 1);
  }
  czk_status st = stage_hooks(f, &s->j, s->part, CZK_FAKE_PROVE_START);
  if (st != CZK_OK) return st;
  if (s->j.fail_stage == CZK_FAKE_PROVE_OOM && s->j.fail_part == (int32_t)s->part) {
    atomic_fetch_add(&f->nomem, 1);
    return CZK_ERR_NOMEM;
  }
  fake_pending *p = malloc(sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  uint64_t now = czk__clock_now_ns(), dur = (uint64_t)s->j.prove_us * 1000;
  unsigned d = dev->ordinal % CZK_FAKE_MAX_DEVICES;
  pthread_mutex_lock(&f->mu);
  if (f->dev_slots && f->inflight[d] >= f->dev_slots) {
    pthread_mutex_unlock(&f->mu);
    free(p);
    atomic_fetch_add(&f->nomem, 1);
    return CZK_ERR_NOMEM;
  }
  p->lane_owner = NULL;
  if (f->dev_capacity && dev->backend) { /* a lane: an idle one of this owner, else a new one */
    const void *owner = dev->dkey ? dev->dkey : key;
    const fake_model m = model_of(f, key);
    const uint64_t bytes = model_lane(&m, dev->shape);
    czk_fake_lanes *l = lanes_of_locked(f, owner, dev->backend, dev->shape);
    bool fresh = l && l->idle == 0;
    bool ok = l && (!fresh || dev_alloc_locked(f, dev->backend, bytes));
    if (ok && fresh) f->lane_allocs++, l->bytes = bytes;
    if (!ok) {
      pthread_mutex_unlock(&f->mu);
      free(p);
      atomic_fetch_add(&f->nomem, 1);
      return CZK_ERR_NOMEM;
    }
    if (l->idle) l->idle--;
    p->lane_owner = owner, p->lane_be = dev->backend, p->lane_shape = dev->shape;
  }

  f->inflight[d]++;
  p->dev = d;
  uint64_t start = f->dev_free_at[d] > now ? f->dev_free_at[d] : now;
  f->dev_free_at[d] = start + dur;
  pthread_mutex_unlock(&f->mu);
  p->end_ns = start + dur;
  p->tag = s->tag;
  p->part = s->part;
  p->j = s->j;
  const uint64_t up = s->j.upload_us < s->j.prove_us ? (uint64_t)s->j.upload_us * 1000 : dur;
  rep->kernel_ns = dur - up;
  rep->upload_ns = up;
  rep->upload_bytes = up;
  rep->msm_ns = dur - up;
  atomic_fetch_add(&f->live_pending, 1);
  *pending = p;
  return CZK_OK;
}

static czk_status fake_prove_finish(void *user, const czk_engine_device_ctx *dev, void *pending, uint8_t *proof,
                                    czk_engine_prove_report *rep) {
  (void)dev;
  (void)rep;
  czk_fake *f = user;
  fake_pending *p = pending;
  czk__clock_sleep_until_ns(p->end_ns); /* "wait on the device event" */
  czk_status st = stage_hooks(f, &p->j, p->part, CZK_FAKE_PROVE_FINISH);
  if (st == CZK_OK) st = stage_hooks(f, &p->j, p->part, CZK_FAKE_KEY_FILE);
  czk__fake_expected_proof(p->tag, p->part, proof);
  pthread_mutex_lock(&f->mu);
  f->inflight[p->dev]--;
  if (p->lane_owner) { /* the lane stays cached with its owner */
    czk_fake_lanes *l = lanes_of_locked(f, p->lane_owner, p->lane_be, p->lane_shape);
    if (l) l->idle++;
  }
  pthread_mutex_unlock(&f->mu);
  free(p);
  atomic_fetch_sub(&f->live_pending, 1);
  return st;
}

static czk_status fake_verify(void *user, void *key, const void *parsed, uint32_t part, const uint8_t *proof) {
  (void)key;
  czk_fake *f = user;
  const czk_fake_job *j = &((const fake_parsed *)parsed)->j;
  atomic_fetch_add(&f->verify_calls, 1);
  czk_status st = stage_hooks(f, j, part, CZK_FAKE_VERIFY);
  if (st != CZK_OK) return st;
  uint8_t want[CZK_FAKE_PROOF_BYTES];
  czk__fake_expected_proof(j->tag, part, want);
  return memcmp(want, proof, sizeof want) == 0 ? CZK_OK : CZK_ERR_VERIFY_FAILED;
}

static czk_status fake_key_load(void *user, const char *key_id, czk_key_tier want, void **key, czk_key_tier *tier,
                                uint64_t *bytes) {
  czk_fake *f = user;
  pthread_mutex_lock(&f->mu);
  while (f->key_gate_closed) pthread_cond_wait(&f->cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
  long n = atomic_fetch_add(&f->key_loads, 1) + 1;
  if (f->key_fail_every && n % f->key_fail_every == 0) return CZK_ERR_IO;
  char *k = strdup(key_id);
  if (!k) return CZK_ERR_NOMEM;
  atomic_fetch_add(&f->live_keys, 1);
  *key = k;
  *tier = want;
  *bytes = f->key_actual_bytes; /* 0: the declared key_bytes */
  return CZK_OK;
}

static void fake_key_free(void *user, void *key) {
  czk_fake *f = user;
  if (f->dev_capacity) { /* its streaming lanes */
    pthread_mutex_lock(&f->mu);
    lanes_free_locked(f, key, NULL);
    pthread_mutex_unlock(&f->mu);
  }
  atomic_fetch_sub(&f->live_keys, 1);
  free(key);
}

void czk__fake_kind(czk_fake *f, czk_engine_kind *k, const char *name, const char *key_id, uint64_t key_bytes,
                    czk_engine_shape shape) {
  memset(k, 0, sizeof *k);
  k->name = name;
  k->proof_bytes = CZK_FAKE_PROOF_BYTES;
  k->max_partitions = 64;
  k->shape = shape;
  k->key_id = key_id;
  k->key_bytes = key_id ? key_bytes : 0;
  k->verify_mode = CZK_VERIFY_ON;
  k->user = f;
  k->parse = fake_parse;
  k->parsed_free = fake_parsed_free;
  k->synthesize = fake_synthesize;
  k->synth_free = fake_synth_free;
  k->prove_start = fake_prove_start;
  k->prove_finish = fake_prove_finish;
  k->verify = fake_verify;
  k->key_load = fake_key_load;
  k->key_free = fake_key_free;
}
