/* keys.c: the proving-key (SRS) cache, the one owner of key memory: keys are loaded once through their kind's loader
 * callback (host copy, at the tier the configuration asks: pinned or mapped), shared by reference count, counted in
 * the budget (category KEY) while resident, and evicted only when unreferenced (LRU under memory pressure, or on
 * request). Device tier: each device has a key memory (czk_engine_device_desc.key_mem_bytes); a prove on device d
 * uses the key's copy there when it has one, makes one when it fits (evicting least recently used unreferenced copies
 * of that device), else proves from the host copy. Copies are made and freed by the kind (key_upload / key_unload)
 * outside every lock; a device's used key memory never exceeds its limit; a host key's copies go before it does.
 * Device memory plan (a device with plan_limit > 0 and a kind with prove_plan): the key cache also owns the proves'
 * lanes. A lane (one prove's device buffers and MSM scratch, allocated in full when made) is cached with its key (the
 * copy, or the host key when streaming) after its prove and reused by the next prove of that key on that device; the
 * cache mirrors the kind's: per key and device, lanes made and lanes in use, and one lane's bytes. Key copies + lanes
 * + the backend's tables (+ tables being made) never exceed plan_limit: a prove needing a new lane frees idle lanes
 * (any key) and then unreferenced copies for it, else waits for proves in flight to end, else (nothing in flight) is
 * refused with CZK_ERR_NOMEM (the engine proves it again alone on its device, engine.c).
 *
 * Entry states: LOADING (bytes reserved, loader not finished) -> RESIDENT, or -> FAILED (unlinked; freed by the last
 * reference holder). An entry's bytes are released exactly once: on eviction, on load failure, or at destroy. Loads,
 * frees and budget releases run without any engine lock; e->kc_mu guards the entry list, states and references. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/fault.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

static ekey *find_key_locked(czk_engine *e, const char *id) {
  for (ekey *k = e->keys; k; k = k->next)
    if (strcmp(k->id, id) == 0) return k;
  return NULL;
}

static void unlink_key_locked(czk_engine *e, ekey *key) {
  for (ekey **pp = &e->keys; *pp; pp = &(*pp)->next)
    if (*pp == key) {
      *pp = key->next;
      key->linked = false;
      return;
    }
}

static void key_struct_free(ekey *key) {
  if (!key) return;
  free(key->dev);
  free(key);
}

/* Under kc_mu: the bytes a load of k's key reserves: what its last load really took, else the kind's bound. */
uint64_t czk__key_budget_bytes(const ekind *k) { return k->key_bytes_seen ? k->key_bytes_seen : k->k.key_bytes; }

/* Under kc_mu: the device bytes a copy of key needs: exact once the host key is loaded (when the kind says), else the
 * kind's bound. */
uint64_t czk__key_device_need(const ekey *key) {
  const ekind *k = key->kind;
  if (key->state == KS_RESIDENT && key->obj && k->k.key_device_size) return k->k.key_device_size(k->k.user, key->obj);
  return k->k.key_device_bytes;
}

static ekey *new_key(czk_engine *e, ekind *k) {
  ekey *key = calloc(1, sizeof *key);
  if (!key) return NULL;
  key->dev = calloc(e->ndevices ? e->ndevices : 1, sizeof *key->dev);
  if (!key->dev) {
    free(key);
    return NULL;
  }
  snprintf(key->id, sizeof key->id, "%s", k->key_id);
  key->kind = k;
  key->state = KS_LOADING;
  key->bytes = czk__key_budget_bytes(k);
  key->tier = CZK_KEY_TIER_DISK;
  return key;
}

czk_status czk__key_dispatch_reserve(czk_engine *e, ekind *k, epart *p, uint64_t keep, uint64_t *need) {
  uint64_t bytes[CZK_MEM_COUNT] = {0};
  bytes[CZK_MEM_ABC] = p->shape.abc_bytes;
  bytes[CZK_MEM_WITNESS] = p->shape.witness_bytes;
  bytes[CZK_MEM_SCRATCH] = p->shape.scratch_bytes;
  *need = p->shape.abc_bytes + p->shape.witness_bytes + p->shape.scratch_bytes + keep;
  if (!k->k.key_id) return czk_budget_try_reserve_keep(e->budget, &p->res, bytes, CZK_MEM_COUNT, keep);
  pthread_mutex_lock(&e->kc_mu);
  ekey *key = find_key_locked(e, k->key_id);
  czk_status st;
  if (key) {
    st = czk_budget_try_reserve_keep(e->budget, &p->res, bytes, CZK_MEM_COUNT, keep);
    if (st == CZK_OK) {
      key->refs++;
      key->last_use_ns = czk__clock_now_ns();
      p->key = key;
    }
  } else {
    key = new_key(e, k);
    if (!key) {
      pthread_mutex_unlock(&e->kc_mu);
      return CZK_ERR_NOMEM;
    }
    bytes[CZK_MEM_KEY] = key->bytes;
    *need += key->bytes;
    st = czk_budget_try_reserve_keep(e->budget, &p->res, bytes, CZK_MEM_COUNT, keep);
    if (st == CZK_OK) {
      (void)czk_budget_split(e->budget, &p->res, CZK_MEM_KEY, &key->res);
      key->refs = 1;
      key->last_use_ns = czk__clock_now_ns();
      key->linked = true;
      key->next = e->keys;
      e->keys = key;
      p->key = key;
    } else {
      key_struct_free(key);
    }
  }
  pthread_mutex_unlock(&e->kc_mu);
  return st;
}

/* Without locks: run the loader for `key` (this caller claimed loader_active). */
static czk_status load_key(czk_engine *e, ekey *key) {
  ekind *k = key->kind;
  void *obj = NULL;
  /* the host copy's tier: pinned when device copies are wanted (fast uploads and streaming), else as configured */
  czk_key_tier want = e->cfg.key_tier == CZK_KEY_TIER_DEVICE ? CZK_KEY_TIER_PINNED : e->cfg.key_tier;
  czk_key_tier tier = want;
  uint64_t actual = 0, t0 = czk__clock_now_ns();
  pthread_mutex_lock(&e->kc_mu);
  key->load_t0 = t0;
  pthread_mutex_unlock(&e->kc_mu);
  atomic_fetch_add(&e->g_key_loads, 1); /* devices idle meanwhile are idle for a key load */
  czk__devices_recause(e);
  CZK_INFO("keys", "%s: loading (%.2f GiB budgeted, %s)", key->id, (double)key->bytes / (1u << 30),
           czk_key_tier_str(want));
  czk_status st = czk_fault("key.load") ? CZK_ERR_IO : k->k.key_load(k->k.user, key->id, want, &obj, &tier, &actual);
  uint64_t t1 = czk__clock_now_ns();
  atomic_fetch_sub(&e->g_key_loads, 1);
  czk__devices_recause(e);
  if (st == CZK_OK)
    CZK_INFO("keys", "%s: loaded in %llu ms: %.2f GiB, %s", key->id, (unsigned long long)((t1 - t0) / CZK_NS_PER_MS),
             (double)(actual ? actual : key->bytes) / (1u << 30), czk_key_tier_str(tier));
  else
    CZK_WARN("keys", "%s: load failed after %llu ms: %s (the jobs that need it fail)", key->id,
             (unsigned long long)((t1 - t0) / CZK_NS_PER_MS), czk_status_str(st));
  czk__span(e, "key load", TRACK_PID_ENGINE, 2000, t0, t1, 0, -1);
  /* the reservation follows the key's real size: a kind's key_bytes is a bound taken before the key exists */
  if (st == CZK_OK && actual && actual != key->bytes) {
    czk_status rs = czk_budget_resize(e->budget, &key->res, CZK_MEM_KEY, actual);
    if (rs == CZK_OK)
      CZK_INFO("keys", "%s: budget corrected from %.2f to %.2f GiB (the key's real size)", key->id,
               (double)key->bytes / (1u << 30), (double)actual / (1u << 30));
    else
      CZK_WARN("keys", "%s: the key takes %.2f GiB but %.2f GiB were budgeted and the budget cannot grow now (%s); "
               "counted at the budgeted size", key->id, (double)actual / (1u << 30), (double)key->bytes / (1u << 30),
               czk_status_str(rs));
  }
  bool release = false;
  pthread_mutex_lock(&e->kc_mu);
  key->loader_active = false;
  key->load_ns = t1 - t0;
  if (st == CZK_OK) {
    key->state = KS_RESIDENT;
    key->obj = obj;
    key->tier = tier;
    key->actual_bytes = actual ? actual : key->bytes;
    key->bytes = key->res.bytes[CZK_MEM_KEY];
    if (actual) k->key_bytes_seen = actual;
  } else {
    key->state = KS_FAILED;
    key->load_status = st;
    if (key->linked) unlink_key_locked(e, key);
    release = true;
  }
  pthread_cond_broadcast(&e->kc_cv);
  pthread_mutex_unlock(&e->kc_mu);
  if (release) czk_budget_release_all(e->budget, &key->res);
  return st;
}

czk_status czk__key_ensure(czk_engine *e, epart *p) {
  ekey *key = p->key;
  pthread_mutex_lock(&e->kc_mu);
  while (key->state == KS_LOADING && key->loader_active) pthread_cond_wait(&e->kc_cv, &e->kc_mu);
  if (key->state == KS_LOADING) {
    key->loader_active = true;
    pthread_mutex_unlock(&e->kc_mu);
    uint64_t t0 = czk__clock_now_ns();
    czk_status st = load_key(e, key);
    p->key_load_ns = czk__clock_now_ns() - t0;
    return st;
  }
  czk_status st = key->state == KS_RESIDENT ? CZK_OK : key->load_status;
  pthread_mutex_unlock(&e->kc_mu);
  return st;
}

bool czk__key_ready(czk_engine *e, ekey *key) {
  pthread_mutex_lock(&e->kc_mu);
  bool ready = key->state == KS_RESIDENT;
  pthread_mutex_unlock(&e->kc_mu);
  return ready;
}

void czk__key_mark_stale(czk_engine *e, ekey *key) {
  pthread_mutex_lock(&e->kc_mu);
  if (key->state == KS_RESIDENT && !key->stale) {
    key->stale = true;
    if (key->linked) unlink_key_locked(e, key);
    CZK_WARN("engine", "key %s: its file changed on disk; it is dropped and loaded again by the next job", key->id);
  }
  pthread_mutex_unlock(&e->kc_mu);
}

static uint64_t drop_key(czk_engine *e, ekey *key);

void czk__key_unref(czk_engine *e, ekey *key) {
  bool free_it = false, idle = false, drop = false;
  pthread_mutex_lock(&e->kc_mu);
  key->last_use_ns = czk__clock_now_ns();
  if (--key->refs == 0 && key->state == KS_RESIDENT && key->stale) drop = true; /* unlinked when marked */
  else if (key->refs == 0 && key->state == KS_RESIDENT) idle = true; /* evictable now */
  else if (key->refs == 0 && key->state == KS_FAILED) free_it = true; /* unlinked at failure, bytes released */
  else if (key->refs == 0 && key->state == KS_LOADING && !key->loader_active) {
    /* nobody loaded it (every user was cancelled before synthesis): forget it and return its bytes */
    unlink_key_locked(e, key);
    free_it = true;
  }
  pthread_mutex_unlock(&e->kc_mu);
  if (drop) (void)drop_key(e, key); /* its budget release wakes the dispatcher */
  if (free_it) {
    if (czk_reservation_live(&key->res)) czk_budget_release_all(e->budget, &key->res);
    key_struct_free(key);
  }
  if (idle) { /* no budget release happened: the dispatcher would not hear of these bytes otherwise */
    pthread_mutex_lock(&e->mu);
    e->keys_idle_gen++;
    pthread_cond_broadcast(&e->disp_cv);
    pthread_mutex_unlock(&e->mu);
  }
}

/* ---- device copies */
typedef struct victim {
  ekey *key;
  void *dkey;
  uint64_t bytes; /* the plan's bytes it frees (copy and lanes; counted in d->freeing until then) */
} victim;

/* ---- the device memory plan */
/* Under kc_mu: the plan's bytes in use on d, and whether `more` fits beside them (always, without a plan). */
static uint64_t plan_used_locked(const edevice *d) {
  uint64_t t = d->tables_bytes ? d->tables_bytes(d->backend) : 0;
  return d->key_mem_used + d->lane_used + d->tables_pending + d->freeing + t;
}
static bool plan_fits_locked(const edevice *d, uint64_t more) {
  return !d->plan_limit || plan_used_locked(d) + more <= d->plan_limit;
}
static bool planned(const edevice *d, const ekey *key) {
  return key && d->plan_limit && d->backend && key->kind->k.prove_plan;
}

/* Whether key's kind proves on the urgent lane (its partitions fit urgent_max_bytes): its device copy and lanes are
 * spared by the room-making of regular proves and preloads, so that a WinningPoSt beside a backlog does not wait for
 * device memory or for its copy to be made again. */
static bool urgent_kind(const czk_engine *e, const ekey *key) {
  const czk_engine_shape *sh = &key->kind->k.shape;
  const uint64_t t = sh->abc_bytes + sh->witness_bytes + sh->scratch_bytes;
  return e->cfg.urgent_max_bytes && t <= e->cfg.urgent_max_bytes;
}

/* Idle lanes marked for freeing (lanes_trim after the lock): the key and copy are referenced until then. */
typedef struct lane_victim {
  ekey *key;
  int tier; /* 0: the copy's lanes, 1: streaming lanes */
  void *dkey;
  uint64_t bytes; /* the lanes' bytes (counted in d->freeing until they are freed) */
} lane_victim;
#define LANE_VICTIMS 32

/* Without engine locks: the budget's reservation of key's idle lanes' pinned staging on d (tier t) is set to what
 * they pin now ((lanes - busy) x one lane's bytes, read under kc_mu inside pin_mu, so concurrent syncs end on the
 * latest count). false: a growth the budget refused (the caller frees those idle lanes and syncs again). */
static bool pin_sync(czk_engine *e, ekey *key, const edevice *d, int t) {
  ekey_dev *s = &key->dev[d->ordinal];
  pthread_mutex_lock(&e->pin_mu);
  pthread_mutex_lock(&e->kc_mu);
  const uint64_t target = (uint64_t)(s->lanes[t] - s->busy[t]) * s->lane_pinned[t];
  pthread_mutex_unlock(&e->kc_mu);
  czk_reservation *r = &s->pin_res[t];
  const bool live = (r->held & (1u << CZK_MEM_KEY)) != 0;
  bool ok = true;
  if (!live && target) {
    const uint64_t b[1] = {target};
    ok = czk_budget_try_reserve(e->budget, r, b, 1) == CZK_OK;
  } else if (live && !target) {
    uint64_t f;
    (void)czk_budget_release(e->budget, r, CZK_MEM_KEY, &f);
  } else if (live) {
    ok = czk_budget_resize(e->budget, r, CZK_MEM_KEY, target) == CZK_OK;
  }
  pthread_mutex_unlock(&e->pin_mu);
  return ok;
}

static void trim_lanes(czk_engine *e, edevice *d, lane_victim *lv, uint32_t n);

/* Without locks: bytes given up on d (d->freeing) are freed now; whoever waits for room looks again. */
static void freed_locked_done(czk_engine *e, edevice *d, uint64_t bytes) {
  if (!bytes) return;
  pthread_mutex_lock(&e->kc_mu);
  d->freeing -= bytes;
  pthread_cond_broadcast(&e->kc_cv);
  pthread_mutex_unlock(&e->kc_mu);
}

/* Under kc_mu: marks key's idle lanes on d (tier t) as freed (for trim_lanes); false when there are none. */
static bool mark_idle_locked(edevice *d, ekey *key, int t, lane_victim *out) {
  ekey_dev *c = &key->dev[d->ordinal];
  if (c->lanes[t] <= c->busy[t] || (t == 0 && c->state != KD_RESIDENT) || !key->obj) return false;
  const uint64_t b = (uint64_t)(c->lanes[t] - c->busy[t]) * c->lane_bytes[t];
  d->lane_used -= b;
  d->freeing += b; /* until the kind has freed them: nobody may count on that memory before */
  c->lanes[t] = c->busy[t];
  key->refs++;
  if (t == 0) c->refs++;
  *out = (lane_victim){key, t, t == 0 ? c->dkey : NULL, b};
  return true;
}

/* Without engine locks: after key's lanes on d changed, their staging's reservation follows; when the budget cannot
 * take the idle ones' staging, they are freed instead. */
static void pin_follow(czk_engine *e, ekey *key, edevice *d, int t) {
  if (pin_sync(e, key, d, t)) return;
  lane_victim lv;
  pthread_mutex_lock(&e->kc_mu);
  bool any = mark_idle_locked(d, key, t, &lv);
  pthread_cond_broadcast(&e->kc_cv);
  pthread_mutex_unlock(&e->kc_mu);
  if (any) trim_lanes(e, d, &lv, 1); /* syncs again (to what the busy ones leave: nothing) */
  else (void)pin_sync(e, key, d, t);
}

/* Under kc_mu: marks idle lanes on d (any key; spare: not of urgent kinds) as freed until `more` fits; returns how
 * many entries were marked. */
static uint32_t idle_lanes_locked(czk_engine *e, edevice *d, uint64_t more, bool spare, lane_victim *lv) {
  uint32_t n = 0;
  for (ekey *o = e->keys; o && n < LANE_VICTIMS && !plan_fits_locked(d, more); o = o->next)
    for (int t = 0; t < 2 && n < LANE_VICTIMS && !(spare && urgent_kind(e, o)); t++)
      n += mark_idle_locked(d, o, t, &lv[n]);
  return n;
}

/* Without locks: frees the marked lanes and drops the references taken for them. */
static void trim_lanes(czk_engine *e, edevice *d, lane_victim *lv, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    ekind *k = lv[i].key->kind;
    if (k->k.lanes_trim) k->k.lanes_trim(k->k.user, lv[i].key->obj, lv[i].dkey, d->backend);
    freed_locked_done(e, d, lv[i].bytes);
    (void)pin_sync(e, lv[i].key, d, lv[i].tier); /* their staging leaves the budget */
    if (lv[i].tier == 0) czk__key_device_release(e, lv[i].key, d);
    czk__key_unref(e, lv[i].key);
  }
}

/* Under kc_mu: a copy c on d is unloaded: its lanes go with it (none in use: the copy is unreferenced). */
static uint64_t copy_lanes_gone_locked(edevice *d, ekey_dev *c) {
  const uint64_t b = (uint64_t)c->lanes[0] * c->lane_bytes[0];
  d->lane_used -= b;
  c->lanes[0] = c->busy[0] = 0;
  return b;
}

/* Under kc_mu: marks the least recently used unreferenced copy on d (not of `keep`; spare: not of urgent kinds) for
 * unloading; false if none. */
static bool lru_copy_locked(czk_engine *e, edevice *d, const ekey *keep, bool spare, victim *out) {
  ekey_dev *best = NULL;
  ekey *bk = NULL;
  for (ekey *o = e->keys; o; o = o->next) {
    ekey_dev *c = &o->dev[d->ordinal];
    if (o != keep && !(spare && urgent_kind(e, o)) && c->state == KD_RESIDENT && c->refs == 0 && (!best || c->last_use_ns < best->last_use_ns))
      best = c, bk = o;
  }
  if (!best) return false;
  d->key_mem_used -= best->bytes;
  const uint64_t b = best->bytes + copy_lanes_gone_locked(d, best);
  d->freeing += b; /* until the kind has unloaded it */
  *out = (victim){bk, best->dkey, b};
  best->state = KD_NONE, best->dkey = NULL, best->bytes = 0;
  return true;
}

static bool uploading_locked(czk_engine *e, const edevice *d) {
  for (ekey *o = e->keys; o; o = o->next)
    if (o->dev[d->ordinal].state == KD_UPLOADING) return true;
  return false;
}

/* ---- device tiers (the plan's choice for a key on a device) */
/* Candidates from fastest to slowest: the whole copy, then a partial copy (the largest parts first, as many as fit
 * beside the lanes: each resident byte is a byte not copied per prove; compact and lean lanes only), then the host
 * copy streamed; within each, full and compact lanes as many as the device has workers before one, and lean lanes
 * last (as many, then one). Measured on the H100 (32 GiB PoRep, key resident): one compact lane 2.28 s per
 * partition (session 15), two lean lanes 5.4 s each side by side, 2.7 s per partition (session 18): a lean lane
 * runs everything on one stream in 2^21-point chunks, and a second one does not make up for it; one full or compact
 * lane leaves the device idle between its proves (the next prove's uploads and the last MSM's tail), so two of them
 * come first. The first that fits is taken; with no plan, the whole copy and full lanes (as before). */
static const struct {
  int shape;
  bool many; /* as many lanes as the device has workers (else one) */
} k_order[] = {{CZK_LANE_FULL, true},  {CZK_LANE_COMPACT, true}, {CZK_LANE_FULL, false},
               {CZK_LANE_COMPACT, false}, {CZK_LANE_LEAN, true},    {CZK_LANE_LEAN, false}};
#define K_ORDER (sizeof k_order / sizeof k_order[0])
void czk_engine_plan_tier(const czk_engine_plan_in *in, czk_engine_plan_out *o) {
  memset(o, 0, sizeof *o);
  const uint32_t np = in->nparts < 1 ? 1 : in->nparts > CZK_ENGINE_KEY_PARTS ? CZK_ENGINE_KEY_PARTS : in->nparts;
  const uint32_t all = (1u << np) - 1;
  uint64_t copy_all = in->base;
  for (uint32_t i = 0; i < np; i++) copy_all += in->part_bytes[i];
  const uint32_t W = in->lanes ? in->lanes : 1;
  if (!in->limit) {
    *o = (czk_engine_plan_out){all, CZK_LANE_FULL, copy_all, in->lane_res[CZK_LANE_FULL], W};
    return;
  }
  const uint32_t tiers = in->tiers ? in->tiers : 7u, shapes = in->shapes ? in->shapes : 7u;
  /* one candidate: parts (copy bytes), shape, lane bytes, lanes wanted; true when it fits (and is allowed) */
#define TRY(PARTS, COPY, SHAPE, LANE, WANT)                                                                          \
  do {                                                                                                              \
    const uint64_t lane_ = (LANE), copy_ = (COPY);                                                                  \
    const uint32_t tb_ = (PARTS) == all ? CZK_TIER_BIT_RESIDENT : (PARTS) ? CZK_TIER_BIT_PARTIAL                    \
                                                                        : CZK_TIER_BIT_STREAMED;                  \
    if ((tiers & tb_) && (shapes & (1u << (SHAPE))) && lane_ != UINT64_MAX && copy_ + in->tables <= in->limit &&   \
        (!lane_ || (in->limit - copy_ - in->tables) / lane_ >= (WANT))) {                                          \
      const uint64_t fit_ = lane_ ? (in->limit - copy_ - in->tables) / lane_ : W;                                  \
      *o = (czk_engine_plan_out){(PARTS), (SHAPE), copy_, lane_, (uint32_t)(fit_ < W ? fit_ : W)};                 \
      return;                                                                                                       \
    }                                                                                                               \
  } while (0)
  for (size_t i = 0; i < K_ORDER; i++)
    TRY(all, copy_all, k_order[i].shape, in->lane_res[k_order[i].shape], k_order[i].many ? W : 1);
  for (size_t i = 0; i < K_ORDER; i++) {
    const int sh = k_order[i].shape;
    const uint32_t want = k_order[i].many ? W : 1;
    if (sh != CZK_LANE_FULL) {
      const uint64_t lane = in->lane_stream[sh];
      if (lane != UINT64_MAX && lane <= in->limit) {
        const uint64_t fixed = in->tables + (uint64_t)want * lane + in->base;
        if (fixed < in->limit) { /* parts by size, largest first, while they fit */
          uint64_t room = in->limit - fixed, used = 0;
          uint32_t mask = 0;
          for (uint32_t k = 0; k < np; k++) {
            uint32_t best = np;
            for (uint32_t i = 0; i < np; i++)
              if (!(mask & (1u << i)) && in->part_bytes[i] && in->part_bytes[i] <= room - used &&
                  (best == np || in->part_bytes[i] > in->part_bytes[best]))
                best = i;
            if (best == np) break;
            mask |= 1u << best;
            used += in->part_bytes[best];
          }
          if (mask && mask != all) TRY(mask, in->base + used, sh, lane, want);
        }
      }
    }
  }
  for (size_t i = 0; i < K_ORDER; i++)
    TRY(0, 0, k_order[i].shape, in->lane_stream[k_order[i].shape], k_order[i].many ? W : 1);
#undef TRY
  /* nothing fits: streamed lean, no lane (a prove is refused) */
  *o = (czk_engine_plan_out){0, CZK_LANE_LEAN, 0, in->lane_stream[CZK_LANE_LEAN], 0};
}

const char *czk_engine_lane_shape_str(int shape) {
  return shape == CZK_LANE_FULL ? "full" : shape == CZK_LANE_COMPACT ? "compact" : shape == CZK_LANE_LEAN ? "lean" : "-";
}

/* Without engine locks: the tier the plan gives key on d (computed once, kept in key->dev[d]: the copy's parts and
 * both tiers' lane shapes). */
static void key_tier(czk_engine *e, ekey *key, edevice *d) {
  ekey_dev *s = &key->dev[d->ordinal];
  pthread_mutex_lock(&e->kc_mu);
  const bool known = s->shape[0] != 0;
  pthread_mutex_unlock(&e->kc_mu);
  if (known) return;
  ekind *k = key->kind;
  czk_engine_plan_in in;
  memset(&in, 0, sizeof in);
  in.limit = planned(d, key) ? d->plan_limit : 0;
  in.lanes = d->nworkers ? d->nworkers : 1;
  if (k->k.key_device_parts && key->obj) in.nparts = k->k.key_device_parts(k->k.user, key->obj, &in.base, in.part_bytes);
  if (!in.nparts || in.nparts > CZK_ENGINE_KEY_PARTS) {
    pthread_mutex_lock(&e->kc_mu);
    in.nparts = 1, in.base = 0, in.part_bytes[0] = czk__key_device_need(key);
    pthread_mutex_unlock(&e->kc_mu);
  }
  const uint32_t all = (1u << in.nparts) - 1;
  for (int sh = 0; sh < CZK_LANE_SHAPES; sh++) in.lane_res[sh] = in.lane_stream[sh] = UINT64_MAX;
  if (in.limit) {
    void *u = k->k.user, *o = key->obj;
    for (int sh = 0; sh < CZK_LANE_SHAPES; sh++) {
      uint64_t pinned = 0, t = 0, lane = 0;
      if (k->k.prove_plan(u, o, d->backend, all, sh, &lane, &t, &pinned) == CZK_OK) in.lane_res[sh] = lane;
      if (t > in.tables) in.tables = t;
      if (k->k.prove_plan(u, o, d->backend, 0, sh, &lane, &t, &pinned) == CZK_OK) in.lane_stream[sh] = lane;
      if (t > in.tables) in.tables = t;
    }
    if (d->tables_bytes) in.tables += d->tables_bytes(d->backend); /* made already: they stay */
  }
  czk_engine_plan_out out;
  const bool chosen = in.limit && (d->plan_tiers || d->plan_shapes) && !urgent_kind(e, key);
  if (chosen) in.tiers = d->plan_tiers, in.shapes = d->plan_shapes;
  czk_engine_plan_tier(&in, &out);
  if (chosen && !out.lanes) { /* the operator's choice does not fit this key on this device: the plan's own */
    CZK_WARN("keys", "%s on %s: gpu_key_tier / gpu_lane_shape: no lane of that choice fits (plan %.2f GiB); the "
             "plan chooses", key->id, d->name, (double)in.limit / (1u << 30));
    in.tiers = in.shapes = 0;
    czk_engine_plan_tier(&in, &out);
  }
  /* the streaming proves (when the copy is not there): the fastest shape whose lane fits beside the tables */
  int stream_shape = CZK_LANE_LEAN;
  for (int sh = CZK_LANE_SHAPES - 1; sh >= 0; sh--)
    if ((!in.shapes || (in.shapes & (1u << sh))) && /* the operator's shape, where it was taken */
        (!in.limit || (in.lane_stream[sh] != UINT64_MAX && in.tables + in.lane_stream[sh] <= in.limit)))
      stream_shape = sh;
  if (out.parts == 0) stream_shape = out.shape;
  pthread_mutex_lock(&e->kc_mu);
  if (!s->shape[0]) {
    s->parts = out.parts;
    s->shape[0] = (uint8_t)(out.shape + 1);
    s->shape[1] = (uint8_t)(stream_shape + 1);
    s->tier = !in.limit ? CZK_DEV_TIER_NONE
              : out.parts == all ? CZK_DEV_TIER_RESIDENT
              : out.parts        ? CZK_DEV_TIER_PARTIAL
                                 : CZK_DEV_TIER_STREAMED;
    s->tier_copy = out.copy;
    if (in.limit)
      CZK_INFO("keys", "%s on %s: %s (%.2f GiB of %u parts), %s lanes of %.2f GiB (%u at once), tables %.2f GiB, "
               "plan %.2f GiB", key->id, d->name,
               out.parts == all ? "resident" : out.parts ? "partial" : "streamed", (double)out.copy / (1u << 30),
               in.nparts, czk_engine_lane_shape_str(out.shape), (double)out.lane / (1u << 30), out.lanes,
               (double)in.tables / (1u << 30), (double)in.limit / (1u << 30));
  }
  pthread_mutex_unlock(&e->kc_mu);
}

/* Under kc_mu: a copy's bytes for its parts. */
static uint64_t copy_bytes_locked(const ekey *key, uint32_t parts) {
  const ekind *k = key->kind;
  uint64_t base = 0, pb[CZK_ENGINE_KEY_PARTS];
  uint32_t n = k->k.key_device_parts && key->obj ? k->k.key_device_parts(k->k.user, key->obj, &base, pb) : 0;
  if (!n || n > CZK_ENGINE_KEY_PARTS) return czk__key_device_need(key);
  uint64_t b = base;
  for (uint32_t i = 0; i < n; i++)
    if (parts & (1u << i)) b += pb[i];
  return b;
}

czk_status czk__lane_acquire(czk_engine *e, ekey *key, edevice *d, bool resident, bool spare, uint64_t *pending,
                             bool *held, int *shape) {
  *pending = 0;
  *held = false;
  *shape = CZK_LANE_FULL;
  ekey_dev *s = key ? &key->dev[d->ordinal] : NULL;
  if (key && resident) { /* a partial copy proves in compact or lean lanes, with or without a plan */
    pthread_mutex_lock(&e->kc_mu);
    if (s->shape[0]) *shape = s->shape[0] - 1;
    pthread_mutex_unlock(&e->kc_mu);
  }
  if (!planned(d, key)) return CZK_OK;
  ekind *k = key->kind;
  const int t = resident ? 0 : 1;
  key_tier(e, key, d);
  pthread_mutex_lock(&e->kc_mu);
  *shape = s->shape[t] ? s->shape[t] - 1 : CZK_LANE_FULL;
  const uint32_t parts = t == 0 ? s->parts : 0;
  pthread_mutex_unlock(&e->kc_mu);
  pthread_mutex_lock(&e->kc_mu);
  bool reuse = s->lanes[t] > s->busy[t];
  if (reuse) s->busy[t]++, d->lanes_busy++;
  pthread_mutex_unlock(&e->kc_mu);
  if (reuse) { /* its staging is covered by the partition's reservation now */
    *held = true;
    (void)pin_sync(e, key, d, t);
    return CZK_OK;
  }
  uint64_t lane = 0, tables = 0, pinned = 0;
  czk_status st = k->k.prove_plan(k->k.user, key->obj, d->backend, parts, *shape, &lane, &tables, &pinned);
  if (st != CZK_OK) return st;
  if (!lane && !tables) return CZK_OK; /* nothing on the device (a host-memory backend keeps no lanes) */
  *held = true;
  bool waited = false;
  pthread_mutex_lock(&e->kc_mu);
  for (;;) {
    if (s->lanes[t] > s->busy[t]) { /* one came back meanwhile */
      s->busy[t]++, d->lanes_busy++;
      reuse = true;
      break;
    }
    const uint64_t more = lane + tables;
    if (plan_fits_locked(d, more)) {
      s->lanes[t]++, s->busy[t]++, d->lanes_busy++;
      s->lane_bytes[t] = lane;
      s->lane_pinned[t] = pinned;
      d->lane_used += lane;
      d->tables_pending += tables;
      *pending = tables;
      break;
    }
    lane_victim lv[LANE_VICTIMS];
    victim cv[16];
    uint32_t nl = idle_lanes_locked(e, d, more, spare, lv), nc = 0;
    while (nc < 16 && !plan_fits_locked(d, more) && lru_copy_locked(e, d, key, spare, &cv[nc])) nc++;
    if (nl || nc) {
      pthread_mutex_unlock(&e->kc_mu);
      trim_lanes(e, d, lv, nl);
      for (uint32_t i = 0; i < nc; i++) {
        cv[i].key->kind->k.key_unload(cv[i].key->kind->k.user, d->backend, cv[i].dkey);
        freed_locked_done(e, d, cv[i].bytes);
        (void)pin_sync(e, cv[i].key, d, 0); /* its lanes went with it */
      }
      pthread_mutex_lock(&e->kc_mu);
      continue;
    }
    if (d->lanes_busy > 0 || d->freeing > 0 || uploading_locked(e, d)) { /* memory comes back when they end */
      if (!waited) d->plan_waits++;
      waited = true;
      pthread_cond_wait(&e->kc_cv, &e->kc_mu);
      continue;
    }
    const uint64_t used = plan_used_locked(d);
    pthread_mutex_unlock(&e->kc_mu);
    *held = false; /* nothing counted: nothing to release */
    CZK_WARN("engine", "%s: a prove on %s needs a %s lane of %.2f GiB%s (+%.2f GiB of tables); the device's memory "
             "plan is %.2f GiB with %.2f GiB in use (key copies in use, lanes, tables) and nothing to free or wait for",
             key->id, d->name, czk_engine_lane_shape_str(*shape), (double)lane / (1u << 30),
             resident ? " beside the key's copy" : " (streaming)",
             (double)tables / (1u << 30), (double)d->plan_limit / (1u << 30), (double)used / (1u << 30));
    return CZK_ERR_NOMEM;
  }
  pthread_mutex_unlock(&e->kc_mu);
  if (reuse) (void)pin_sync(e, key, d, t);
  return CZK_OK;
}

void czk__lane_tables_made(czk_engine *e, edevice *d, uint64_t pending) {
  if (!pending) return;
  pthread_mutex_lock(&e->kc_mu);
  d->tables_pending -= pending;
  pthread_cond_broadcast(&e->kc_cv);
  pthread_mutex_unlock(&e->kc_mu);
}

void czk__lane_release(czk_engine *e, ekey *key, edevice *d, bool resident, bool ok) {
  if (!planned(d, key)) return;
  const int t = resident ? 0 : 1;
  ekey_dev *s = &key->dev[d->ordinal];
  lane_victim lv[1];
  uint32_t nl = 0;
  pthread_mutex_lock(&e->kc_mu);
  if (s->busy[t]) s->busy[t]--, d->lanes_busy--;
  /* after a failure the kind may have freed the lane (or others of the key): free the key's idle ones here, so that
   * the count is exact again */
  if (!ok) nl = mark_idle_locked(d, key, t, &lv[0]);
  pthread_cond_broadcast(&e->kc_cv);
  pthread_mutex_unlock(&e->kc_mu);
  if (nl) trim_lanes(e, d, lv, nl);
  else pin_follow(e, key, d, t); /* the idle lane's staging into the budget, or the lane goes */
}

void *czk__key_device_acquire(czk_engine *e, ekey *key, edevice *d, uint32_t track, bool spare) {
  ekind *k = key->kind;
  if (!k->k.key_upload || !k->k.key_unload || !k->k.key_device_bytes || !d->backend ||
      e->cfg.key_tier != CZK_KEY_TIER_DEVICE)
    return NULL;
  ekey_dev *s = &key->dev[d->ordinal];
  victim vs[16];
  uint32_t nv = 0;
  bool claim = false;
  void *dk = NULL;
  if (key->state == KS_RESIDENT) key_tier(e, key, d); /* the copy's parts (none: streamed) */
  uint32_t parts = 0;
  /* Room made by unloading copies counts as "freeing" until they are unloaded (after the lock): a claim that did not
   * fit for that reason alone is tried again once they are gone (at most twice). */
  for (int round = 0;; round++) {
    nv = 0;
    pthread_mutex_lock(&e->kc_mu);
    parts = s->shape[0] ? s->parts : 0;
    const uint64_t need = parts ? copy_bytes_locked(key, parts) : 0;
    if (key->state != KS_RESIDENT || !parts || need > d->key_mem_limit) {
      pthread_mutex_unlock(&e->kc_mu);
      return NULL;
    }
    while (s->state == KD_UPLOADING) pthread_cond_wait(&e->kc_cv, &e->kc_mu);
    if (s->state == KD_RESIDENT) {
      s->refs++;
      s->last_use_ns = czk__clock_now_ns();
      dk = s->dkey;
      pthread_mutex_unlock(&e->kc_mu);
      return dk;
    }
    /* make room: idle lanes (the plan) and least recently used unreferenced copies on this device */
    lane_victim lv[LANE_VICTIMS];
    uint32_t nl = 0;
    for (;;) {
      const bool mem_ok = d->key_mem_used + need <= d->key_mem_limit;
      if (mem_ok && plan_fits_locked(d, need)) break;
      if (mem_ok && nl == 0) {
        nl = idle_lanes_locked(e, d, need, spare, lv);
        if (plan_fits_locked(d, need)) break;
      }
      if (nv >= 16 || !lru_copy_locked(e, d, key, spare, &vs[nv])) break;
      nv++;
    }
    if (d->key_mem_used + need <= d->key_mem_limit && plan_fits_locked(d, need)) {
      s->state = KD_UPLOADING;
      s->bytes = need;
      d->key_mem_used += need;
      claim = true;
    }
    pthread_mutex_unlock(&e->kc_mu);
    trim_lanes(e, d, lv, nl);
    for (uint32_t i = 0; i < nv; i++) {
      vs[i].key->kind->k.key_unload(vs[i].key->kind->k.user, d->backend, vs[i].dkey);
      freed_locked_done(e, d, vs[i].bytes);
      (void)pin_sync(e, vs[i].key, d, 0);
    }
    if (claim || round >= 2 || (nv == 0 && nl == 0)) break;
  }
  if (!claim) return NULL;
  uint64_t t0 = czk__clock_now_ns();
  czk_status st = k->k.key_upload(k->k.user, key->obj, d->backend, parts, &dk);
  uint64_t t1 = czk__clock_now_ns();
  czk__span(e, "key upload", TRACK_PID_DEVICE0 + d->ordinal, track, t0, t1, 0, -1);
  pthread_mutex_lock(&e->kc_mu);
  if (st == CZK_OK) {
    s->state = KD_RESIDENT;
    s->dkey = dk;
    s->refs = 1;
    s->last_use_ns = t1;
  } else {
    s->state = KD_NONE;
    d->key_mem_used -= s->bytes;
    s->bytes = 0;
    dk = NULL;
  }
  pthread_cond_broadcast(&e->kc_cv);
  pthread_mutex_unlock(&e->kc_mu);
  if (st != CZK_OK)
    CZK_WARN("engine", "%s: copy to %s failed (%s); proving from the host copy", key->id, d->name, czk_status_str(st));
  return dk;
}

void czk__key_device_release(czk_engine *e, ekey *key, edevice *d) {
  pthread_mutex_lock(&e->kc_mu);
  ekey_dev *s = &key->dev[d->ordinal];
  if (s->refs) s->refs--;
  s->last_use_ns = czk__clock_now_ns();
  pthread_mutex_unlock(&e->kc_mu);
}

/* Without locks, holding a reference to key's copy on d: lanes made ahead of their proves, one per worker of d, as far
 * as they fit the plan beside what is there (nothing is evicted for them) and the budget takes their pinned staging.
 * A lane being made counts as in use, so that no prove counts on it before it exists. */
static void lanes_warm(czk_engine *e, ekey *key, edevice *d) {
  ekind *k = key->kind;
  if (!planned(d, key) || !k->k.lane_warm) return;
  ekey_dev *s = &key->dev[d->ordinal];
  for (uint32_t i = 0; i < d->nworkers; i++) {
    uint64_t lane = 0, tables = 0, pinned = 0;
    pthread_mutex_lock(&e->kc_mu);
    const uint32_t parts = s->parts;
    const int shape = s->shape[0] ? s->shape[0] - 1 : CZK_LANE_FULL;
    pthread_mutex_unlock(&e->kc_mu);
    if (k->k.prove_plan(k->k.user, key->obj, d->backend, parts, shape, &lane, &tables, &pinned) != CZK_OK || !lane)
      return;
    /* an urgent kind's lanes are spared from the backlog's room-making: past the first, they are warmed only while
     * they hold at most 1/20 of the plan (on a 16 GB card, the H100 run of session 15: WinningPoSt's two spared
     * lanes, 1.56 GiB, left no room for PoRep's 13.56 GiB lean lane, whose partitions were then proved alone) */
    if (i >= 1 && urgent_kind(e, key) && (uint64_t)(i + 1) * lane > d->plan_limit / 20) return;
    pthread_mutex_lock(&e->kc_mu);
    const bool go = s->state == KD_RESIDENT && s->lanes[0] <= i && plan_fits_locked(d, lane + tables);
    void *dk = s->dkey;
    if (go) {
      s->lanes[0]++, s->busy[0]++, d->lanes_busy++;
      s->lane_bytes[0] = lane, s->lane_pinned[0] = pinned;
      d->lane_used += lane, d->tables_pending += tables;
    }
    pthread_mutex_unlock(&e->kc_mu);
    if (!go) return;
    czk_status st = k->k.lane_warm(k->k.user, key->obj, dk, d->backend, shape);
    pthread_mutex_lock(&e->kc_mu);
    s->busy[0]--, d->lanes_busy--;
    d->tables_pending -= tables;
    if (st != CZK_OK) s->lanes[0]--, d->lane_used -= lane;
    else d->lanes_warmed++;
    pthread_cond_broadcast(&e->kc_cv);
    pthread_mutex_unlock(&e->kc_mu);
    if (st != CZK_OK) {
      CZK_WARN("engine", "%s: warming a lane on %s failed (%s); proves make their own", key->id, d->name,
               czk_status_str(st));
      return;
    }
    pin_follow(e, key, d, 0); /* its staging into the budget, or it goes */
    pthread_mutex_lock(&e->kc_mu);
    const bool kept = s->lanes[0] > i;
    pthread_mutex_unlock(&e->kc_mu);
    if (!kept) return;
  }
}

/* Preload: a copy on every device where it fits, and its lanes (the caller holds a key reference). */
static void preload_devices(czk_engine *e, ekey *key) {
  for (uint32_t d = 0; d < e->ndevices; d++)
    if (czk__key_device_acquire(e, key, &e->devices[d], 0, true)) {
      lanes_warm(e, key, &e->devices[d]);
      czk__key_device_release(e, key, &e->devices[d]);
    }
}

/* Without locks: free every device copy of an unreferenced key (its copies are unreferenced too). */
static void unload_all(czk_engine *e, ekey *key) {
  ekind *k = key->kind;
  for (uint32_t d = 0; d < e->ndevices; d++) {
    pthread_mutex_lock(&e->kc_mu);
    ekey_dev *s = &key->dev[d];
    void *dk = s->state == KD_RESIDENT ? s->dkey : NULL;
    uint64_t copy = 0;
    if (s->state == KD_RESIDENT) {
      e->devices[d].key_mem_used -= s->bytes;
      copy = s->bytes + copy_lanes_gone_locked(&e->devices[d], s);
      s->state = KD_NONE, s->dkey = NULL, s->bytes = 0;
    }
    /* the host key goes next (drop_key): its streaming lanes with it */
    s->gone1 = (uint64_t)s->lanes[1] * s->lane_bytes[1];
    e->devices[d].lane_used -= s->gone1;
    s->lanes[1] = s->busy[1] = 0;
    e->devices[d].freeing += copy + s->gone1; /* until they are freed */
    pthread_mutex_unlock(&e->kc_mu);
    if (dk) k->k.key_unload(k->k.user, e->devices[d].backend, dk);
    freed_locked_done(e, &e->devices[d], copy);
    for (int t = 0; t < 2; t++) (void)pin_sync(e, key, &e->devices[d], t); /* nothing pinned is left */
  }
}

/* Without locks: free a resident, unlinked key. */
static uint64_t drop_key(czk_engine *e, ekey *key) {
  unload_all(e, key);
  key->kind->k.key_free(key->kind->k.user, key->obj);
  for (uint32_t d = 0; d < e->ndevices; d++) freed_locked_done(e, &e->devices[d], key->dev[d].gone1);
  uint64_t freed = 0, f;
  for (unsigned c = 0; c < CZK_MEM_COUNT; c++)
    if (key->res.held & (1u << c)) {
      (void)czk_budget_release(e->budget, &key->res, c, &f);
      freed += f;
    }
  key_struct_free(key);
  return freed;
}

/* Without locks: frees every idle lane whose pinned staging the budget counts (the budget needs room and no key can
 * go); true if there was one. */
static bool trim_pinned_idle(czk_engine *e, bool spare) {
  bool any = false;
  for (uint32_t di = 0; di < e->ndevices; di++) {
    edevice *d = &e->devices[di];
    lane_victim lv[LANE_VICTIMS];
    uint32_t n = 0;
    pthread_mutex_lock(&e->kc_mu);
    for (ekey *o = e->keys; o && n < LANE_VICTIMS; o = o->next)
      for (int t = 0; t < 2 && n < LANE_VICTIMS; t++)
        if (o->dev[di].lane_pinned[t] && !(spare && urgent_kind(e, o))) n += mark_idle_locked(d, o, t, &lv[n]);
    pthread_mutex_unlock(&e->kc_mu);
    trim_lanes(e, d, lv, n);
    any |= n > 0;
  }
  return any;
}

bool czk__key_evict_lru(czk_engine *e, const char *keep_id, uint64_t need, uint64_t spare_max) {
  pthread_mutex_lock(&e->kc_mu);
  czk_budget_stats bs;
  czk_budget_stats_get(e->budget, &bs); /* lock order: kc_mu, then the budget's */
  /* small keys are spared while partitions hold memory that will come back (spare_max: see engine_internal.h) */
  const bool inflight = bs.used_by_cat[CZK_MEM_ABC] + bs.used_by_cat[CZK_MEM_WITNESS] +
                            bs.used_by_cat[CZK_MEM_SCRATCH] > 0;
  const bool spare = spare_max && inflight;
  ekey *victim = NULL;
  uint64_t idle = 0;
  for (ekey *k = e->keys; k; k = k->next) {
    if (k->refs || k->state != KS_RESIDENT || (keep_id && strcmp(k->id, keep_id) == 0)) continue;
    uint64_t kb = 0;
    for (unsigned c = 0; c < CZK_MEM_COUNT; c++) kb += k->res.bytes[c];
    if (spare && kb <= spare_max) continue;
    idle += kb;
    if (!victim || k->last_use_ns < victim->last_use_ns) victim = k;
  }
  if (victim && need && bs.used - idle + need > bs.limit) victim = NULL; /* would not fit even without them */
  if (victim) unlink_key_locked(e, victim);
  pthread_mutex_unlock(&e->kc_mu);
  /* else the idle lanes' counted pinned staging, but only when no partition in flight will give memory back: a lane
   * freed between two proves of a backlog would be made again at once */
  if (!victim) return !inflight && trim_pinned_idle(e, spare_max != 0);
  char id[sizeof victim->id];
  snprintf(id, sizeof id, "%s", victim->id);
  uint64_t freed = drop_key(e, victim);
  CZK_INFO("keys", "%s: evicted (least recently used, unused) to make room: %.2f GiB freed", id,
           (double)freed / (1u << 30));
  return true;
}

void czk__keys_free_all(czk_engine *e) {
  while (e->keys) {
    ekey *k = e->keys;
    e->keys = k->next;
    if (k->state == KS_RESIDENT) (void)drop_key(e, k);
    else {
      if (czk_reservation_live(&k->res)) czk_budget_release_all(e->budget, &k->res);
      key_struct_free(k);
    }
  }
}

static ekind *kind_for_key(czk_engine *e, const char *key_id) {
  ekind *found = NULL;
  pthread_mutex_lock(&e->mu);
  for (uint32_t i = 0; i < e->nkinds && !found; i++)
    if (e->kinds[i]->k.key_id && strcmp(e->kinds[i]->key_id, key_id) == 0) found = e->kinds[i];
  pthread_mutex_unlock(&e->mu);
  return found; /* kinds are never removed */
}

czk_status czk_engine_key_preload(czk_engine *e, const char *key_id, bool *already, uint64_t *load_ms) {
  if (already) *already = false;
  if (load_ms) *load_ms = 0;
  if (!e || !key_id) return CZK_ERR_INVALID_ARG;
  ekind *k = kind_for_key(e, key_id);
  if (!k) return CZK_ERR_NOT_FOUND;
  uint64_t t0 = czk__clock_now_ns();
  for (;;) {
    pthread_mutex_lock(&e->kc_mu);
    ekey *key = find_key_locked(e, key_id);
    if (key) {
      key->refs++;
      bool was = key->state == KS_RESIDENT;
      while (key->state == KS_LOADING && key->loader_active) pthread_cond_wait(&e->kc_cv, &e->kc_mu);
      bool claim = key->state == KS_LOADING;
      if (claim) key->loader_active = true;
      czk_status st = key->state == KS_FAILED ? key->load_status : CZK_OK;
      pthread_mutex_unlock(&e->kc_mu);
      if (claim) st = load_key(e, key);
      if (st == CZK_OK) preload_devices(e, key);
      czk__key_unref(e, key);
      if (already) *already = was;
      if (load_ms) *load_ms = (czk__clock_now_ns() - t0) / CZK_NS_PER_MS;
      return st;
    }
    pthread_mutex_unlock(&e->kc_mu);
    /* reserve the key bytes (FIFO with other waiters), evicting unused keys while that helps */
    uint64_t bytes[CZK_MEM_COUNT] = {0};
    pthread_mutex_lock(&e->kc_mu);
    bytes[CZK_MEM_KEY] = czk__key_budget_bytes(k);
    pthread_mutex_unlock(&e->kc_mu);
    czk_reservation res;
    czk_status st;
    while ((st = czk_budget_try_reserve(e->budget, &res, bytes, CZK_MEM_COUNT)) == CZK_ERR_TIMEOUT &&
           czk__key_evict_lru(e, NULL, 0, 0)) {
    }
    if (st == CZK_ERR_TIMEOUT)
      st = czk_budget_reserve(e->budget, &res, bytes, CZK_MEM_COUNT, czk__clock_now_ns() + 60 * CZK_NS_PER_S);
    if (st != CZK_OK) return st;
    pthread_mutex_lock(&e->kc_mu);
    if (find_key_locked(e, key_id)) { /* someone else started it meanwhile: use theirs */
      pthread_mutex_unlock(&e->kc_mu);
      czk_budget_release_all(e->budget, &res);
      continue;
    }
    key = new_key(e, k);
    if (!key) {
      pthread_mutex_unlock(&e->kc_mu);
      czk_budget_release_all(e->budget, &res);
      return CZK_ERR_NOMEM;
    }
    (void)czk_budget_split(e->budget, &res, CZK_MEM_KEY, &key->res);
    key->refs = 1;
    key->loader_active = true;
    key->linked = true;
    key->next = e->keys;
    e->keys = key;
    pthread_mutex_unlock(&e->kc_mu);
    czk_budget_release_all(e->budget, &res); /* the now-empty remainder (0 bytes in the other categories) */
    st = load_key(e, key);
    if (st == CZK_OK) preload_devices(e, key);
    czk__key_unref(e, key);
    if (load_ms) *load_ms = (czk__clock_now_ns() - t0) / CZK_NS_PER_MS;
    return st;
  }
}

czk_status czk_engine_key_evict(czk_engine *e, const char *key_id, bool *was_loaded, uint64_t *freed) {
  if (was_loaded) *was_loaded = false;
  if (freed) *freed = 0;
  if (!e || !key_id) return CZK_ERR_INVALID_ARG;
  pthread_mutex_lock(&e->kc_mu);
  ekey *key = find_key_locked(e, key_id);
  czk_status st = CZK_OK;
  if (key && (key->refs || key->state != KS_RESIDENT)) st = CZK_ERR_STATE;
  else if (key) unlink_key_locked(e, key);
  pthread_mutex_unlock(&e->kc_mu);
  if (st != CZK_OK || !key) return st;
  if (was_loaded) *was_loaded = true;
  uint64_t f = drop_key(e, key);
  if (freed) *freed = f;
  return CZK_OK;
}
