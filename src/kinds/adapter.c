/* adapter.c: the one Groth16 kind adapter: an engine kind (czk_engine_kind) over a family descriptor
 * (kinds_internal.h). Per partition: synthesis into a czk_groth16_assignment (bellperson flavour: the family's witness
 * over the cached shape; snarkjs flavour: the request's witness over the zkey's matrices), its public inputs kept for
 * the self-check, then the one prover (czk_groth16_prove_start/finish) on the backend of the engine's device (a CPU
 * backend of the kind's own when the device has none) with the key copy the engine gives for that device.
 *
 * Keys: key_load opens the key files (bellperson: .params + .vk, set up by a real Groth16 setup on first use, written
 * under temporary names and renamed, so a crash never leaves half a key; snarkjs: the .zkey), decodes the queries and
 * makes the prover's key; it pins the host queries when asked for the PINNED tier and a device backend to pin with
 * is known (czk_kind_set_backend), and reports the tier it reached. key_upload / key_unload make and free device
 * copies for the engine's key cache, the only owner of key memory.
 *
 * Invariants: the shape is loaded once (mutex-guarded lazy init, never held while another lock is taken); the engine
 * ensures a kind's key before synthesis and holds a reference until the partition ends, so the snarkjs synthesis may
 * use the zkey of the live key (u->live, guarded by u->mu); every partition writes only its own public-input slot. */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "czk/log.h"
#include "core/clock.h"
#include "kinds/kinds_internal.h"

typedef struct kuser {
  const czk__kind_desc *desc;
  void *cfg;
  char name[96], key_name[200], key_id[96], keys_dir[1024], key_path[1024];
  czk_pool *pool;
  pthread_mutex_t mu;
  czk_r1cs *shape; /* bellperson: lazily loaded, then immutable */
  czk_status shape_status;
  czk_backend *cpu;    /* lazily opened: proofs on a device without a backend */
  czk_backend *pin_be; /* device backend to pin host keys with (may be NULL) */
  struct akey *live;   /* the loaded key (at most one at a time) */
  czk_r1cs *stale[8];  /* shapes whose file changed under them: jobs may still read them; freed at destroy */
  char key_err[360];   /* why the last key load failed, naming the file (guarded by mu) */
  unsigned n_stale;
  /* witness-only proving (desc->compile / witness_assign, on a device backend): the compiled circuit, loaded from
   * <keys_dir>/<key_name>.czkc or compiled by the first key load, then immutable until destroy */
  bool device_mode;
  czk_compiled *cc;
  /* witness-only packing: consecutive partitions whose witness came out dense (more than 3/4 values neither 0 nor 1:
   * Poseidon-heavy PoSt), and partitions since the last probe once the kind is known to be dense (both under mu) */
  unsigned dense_run, dense_skips;
} kuser;

/* A device copy of a key: the prover's queries and, in witness-only mode, the compiled circuit. */
typedef struct adkey {
  czk_groth16_dkey *dk;
  czk_backend_compiled *dcc;
} adkey;

typedef struct akey {
  czk_groth16_key *gk;
  czk_groth16_pk *pk;
  czk_zkey *z;
  czk_groth16_key_mem km; /* a key set up in memory (setup_in_memory), else empty */
} akey;

/* Missing Filecoin keys set up in memory (benchmarks on machines whose disk cannot hold the keys): set once by the
 * daemon before any kind loads a key. */
static bool g_setup_mem;
static czk_backend *g_setup_be;
void czk_kinds_set_setup_in_memory(bool on, czk_backend *be) {
  g_setup_mem = on;
  g_setup_be = be;
}

typedef struct kjob {
  void *parsed;
  uint32_t nparts;
  size_t *n_pub;
  czk_fr **pub; /* per partition, written by its synthesis */
  uint64_t parse_ns, check_ns;        /* the parse: decoding and native checks */
  uint64_t held_bytes;                /* what the parsed input holds until the job ends (k_parsed_bytes) */
  uint64_t (*stage)[CZK_STAGE_COUNT]; /* per partition, written by its synthesis and prove (read by k_stage_times) */
} kjob;

typedef struct ksynth { /* a synthesized partition: the assignment and whose it is */
  czk_groth16_assignment as;
  kjob *j;
  uint32_t part;
} ksynth;

typedef struct kpend { /* a prove in flight, the key it reads and where its stage times go */
  czk_groth16_job *job;
  akey *k;
  uint64_t *stage;
} kpend;

static uint64_t secs_ns(double s) { return s > 0 ? (uint64_t)(s * 1e9) + 1 : 0; } /* measured: never 0 */

/* ------------------------------------------------------------------------------------------------ files */
static int mkdir_p(const char *dir) {
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++) {
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  }
  return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

static bool file_exists(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The family's shape, cached on disk as <keys_dir>/<key_name>.r1cs (re-recorded when the cache is unusable). */
static czk_status get_shape(kuser *u, const czk_r1cs **out) {
  pthread_mutex_lock(&u->mu);
  if (!u->shape && u->shape_status == CZK_OK && u->desc->outline_new) {
    czk_status st = u->desc->outline_new(u->cfg, &u->shape);
    if (st != CZK_OK) u->shape_status = st;
  } else if (!u->shape && u->shape_status == CZK_OK) {
    char path[1300];
    snprintf(path, sizeof path, "%s/%s.r1cs", u->keys_dir, u->key_name);
    czk_status st = CZK_ERR_NOT_FOUND;
    if (file_exists(path)) {
      st = czk_r1cs_load(&u->shape, path);
      if (st != CZK_OK) CZK_WARN("kinds", "%s: cached shape unusable (%s); re-recording", path, czk_status_str(st));
    }
    if (st != CZK_OK) {
      st = u->desc->shape_new(u->cfg, &u->shape);
      if (st == CZK_OK && mkdir_p(u->keys_dir) == 0 && czk_r1cs_save(u->shape, path) != CZK_OK)
        CZK_WARN("kinds", "cannot cache the shape at %s", path);
    }
    if (st != CZK_OK) u->shape_status = st;
  }
  czk_status st = u->shape ? CZK_OK : u->shape_status;
  *out = u->shape;
  pthread_mutex_unlock(&u->mu);
  return st;
}

/* A loaded shape's file truncated or rewritten in place (by someone else: czk writes by rename) makes whatever was
 * computed from it meaningless: fail the job naming the file and forget the shape, so that the next job reloads the
 * cache, or re-records and rewrites it when it no longer loads. */
static czk_status shape_file_check(kuser *u, const czk_r1cs *shape) {
  if (czk_r1cs_check_file(shape) == CZK_OK) return CZK_OK;
  pthread_mutex_lock(&u->mu);
  if (u->shape == shape && u->n_stale < sizeof u->stale / sizeof u->stale[0]) {
    CZK_ERROR("kinds", "%s: the cached shape %s/%s.r1cs changed on disk while in use (truncated or rewritten in "
              "place); the job fails and the next one reloads it", u->name, u->keys_dir, u->key_name);
    u->stale[u->n_stale++] = u->shape;
    u->shape = NULL;
  }
  pthread_mutex_unlock(&u->mu);
  return CZK_ERR_FILE_CHANGED;
}

/* The key's own file (a mapped .zkey) truncated or rewritten in place since it was loaded. */
static czk_status key_file_check(kuser *u, const struct akey *k);

/* Log a key-loading failure naming the file and keep it for the job's error (k_key_error). */
static void key_fail(kuser *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void key_fail(kuser *u, const char *fmt, ...) {
  char msg[360];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  CZK_ERROR("kinds", "%s: %s", u->name, msg);
  pthread_mutex_lock(&u->mu);
  snprintf(u->key_err, sizeof u->key_err, "%s", msg);
  pthread_mutex_unlock(&u->mu);
}

static czk_backend *cpu_backend(kuser *u, czk_status *st) {
  pthread_mutex_lock(&u->mu);
  *st = u->cpu ? CZK_OK : czk_backend_open(&u->cpu, "cpu", u->pool);
  czk_backend *be = u->cpu;
  pthread_mutex_unlock(&u->mu);
  return be;
}

/* ------------------------------------------------------------------------------------------------ jobs */
static czk_status k_parse(void *user, const uint8_t *input, size_t len, void **parsed, uint32_t *nparts) {
  kuser *u = user;
  if (!input || len != sizeof(czk_kind_request)) return CZK_ERR_INVALID_ARG;
  const czk_kind_request *r = (const czk_kind_request *)input;
  if (r->vanilla_proof.len > u->desc->max_input)
    return czk__kind_reason(r, CZK_ERR_LIMIT, "vanilla_proof has %zu bytes; %s takes at most %zu there",
                            r->vanilla_proof.len, u->name, u->desc->max_input);
  kjob *j = calloc(1, sizeof *j);
  if (!j) return CZK_ERR_NOMEM;
  czk_kind_request rc = *r; /* the same request, with the parser's check time going to j */
  rc.check_ns = &j->check_ns;
  uint64_t t0 = czk__clock_now_ns();
  czk_status st = u->desc->parse(u->cfg, &rc, &j->parsed, &j->nparts);
  uint64_t dt = czk__clock_now_ns() - t0;
  j->parse_ns = dt > j->check_ns ? dt - j->check_ns : 1;
  if (st == CZK_OK && (j->nparts < 1 || j->nparts > u->desc->max_partitions)) st = CZK_ERR_LIMIT;
  if (st == CZK_OK) {
    j->pub = calloc(j->nparts, sizeof *j->pub);
    j->n_pub = calloc(j->nparts, sizeof *j->n_pub);
    j->stage = calloc(j->nparts, sizeof *j->stage);
    if (!j->pub || !j->n_pub || !j->stage) st = CZK_ERR_NOMEM;
    /* the decoded input the job keeps until it ends, estimated by the request's bytes (the families' parsed forms
     * hold the same data decoded: PoRep's C1 JSON shrinks, bincode proofs stay about their size), plus the per
     * partition tables */
    uint64_t in = r->vanilla_proof.len + r->randomness.len;
    for (size_t i = 0; i < r->n_vanilla_proofs; i++) in += r->vanilla_proofs[i].len;
    j->held_bytes = in + sizeof *j + (uint64_t)j->nparts * (sizeof *j->pub + sizeof *j->n_pub + sizeof *j->stage);
  }
  if (st != CZK_OK) {
    if (j->parsed) u->desc->parsed_free(j->parsed);
    free(j->pub);
    free(j->n_pub);
    free(j->stage);
    free(j);
    return st;
  }
  *parsed = j;
  *nparts = j->nparts;
  return CZK_OK;
}

static uint64_t k_parsed_bytes(void *user, const void *parsed) {
  (void)user;
  return ((const kjob *)parsed)->held_bytes;
}

static void k_parsed_free(void *user, void *parsed) {
  kuser *u = user;
  kjob *j = parsed;
  if (!j) return;
  for (uint32_t i = 0; i < j->nparts; i++) free(j->pub[i]);
  free(j->pub);
  free(j->n_pub);
  free(j->stage);
  u->desc->parsed_free(j->parsed);
  free(j);
}

static void k_stage_times(void *user, const void *parsed, uint32_t part, uint64_t ns[CZK_STAGE_COUNT]) {
  (void)user;
  const kjob *j = parsed;
  if (part >= j->nparts) return;
  for (int s = 0; s < CZK_STAGE_COUNT; s++)
    if (j->stage[part][s]) ns[s] = j->stage[part][s];
  if (part == 0) {
    ns[CZK_STAGE_PARSE] = j->parse_ns;
    if (j->check_ns) ns[CZK_STAGE_CHECK] = j->check_ns;
  }
}

/* Packs a witness-only w (czk_groth16_assignment_pack). A kind whose witnesses came out dense three times running
 * skips the packing pass (a full read of w: 4 GB for a 32 GiB WindowPoSt partition) and marks w dense,
 * so the device copies it as it is; one partition in 64 still probes, in case its witnesses change. */
static czk_status pack_witness(kuser *u, czk_groth16_assignment *as, czk_pool *pool) {
  pthread_mutex_lock(&u->mu);
  bool skip = u->dense_run >= 3 && ++u->dense_skips % 64 != 0;
  pthread_mutex_unlock(&u->mu);
  if (skip) {
    as->wpack_dense = true;
    return CZK_OK;
  }
  CZK_TRY(czk_groth16_assignment_pack(as, pool));
  pthread_mutex_lock(&u->mu);
  u->dense_run = as->wpack_dense ? u->dense_run + 1 : 0;
  pthread_mutex_unlock(&u->mu);
  return CZK_OK;
}

static czk_status k_synthesize(void *user, const void *parsed, uint32_t part, czk_pool *pool, void **synth) {
  kuser *u = user;
  kjob *j = (kjob *)parsed; /* each partition writes only its own public-input and stage slots */
  ksynth *ks = calloc(1, sizeof *ks);
  if (!ks) return CZK_ERR_NOMEM;
  ks->j = j;
  ks->part = part;
  czk_groth16_assignment *as = &ks->as;
  uint64_t *stage = j->stage[part];
  czk_status st;
  uint64_t t0 = czk__clock_now_ns();
  if (u->device_mode) {
    /* the key (loaded before synthesis) brought the compiled circuit: the device computes a, b, c */
    pthread_mutex_lock(&u->mu);
    const czk_compiled *cc = u->cc;
    pthread_mutex_unlock(&u->mu);
    st = cc ? u->desc->witness_assign(u->cfg, j->parsed, part, pool, as) : CZK_ERR_STATE;
    as->cc = cc;
    /* w packed here, off the device worker's critical path (the device prove then only copies it); its bytes (at
     * most ~0.78 of w's) fit in the scratch reserved for the host prover's gathered scalars (2 x domain x 32 B),
     * which a device prove does not use. The stage time includes it. */
    if (st == CZK_OK) st = pack_witness(u, as, pool);
    stage[CZK_STAGE_WITNESS] = czk__clock_now_ns() - t0;
  } else if (u->desc->assign) {
    st = u->desc->assign(u->cfg, j->parsed, part, pool, as);
    stage[CZK_STAGE_WITNESS_ABC] = czk__clock_now_ns() - t0;
  } else if (u->desc->flavour == CZK__KEY_BELLPERSON) {
    const czk_r1cs *shape;
    czk_witness w;
    st = get_shape(u, &shape);
    t0 = czk__clock_now_ns();
    if (st == CZK_OK) st = u->desc->witness(u->cfg, j->parsed, part, &w);
    uint64_t t1 = czk__clock_now_ns();
    if (st == CZK_OK) st = czk_groth16_synthesize(as, shape, &w, pool);
    stage[CZK_STAGE_WITNESS] = t1 - t0;
    stage[CZK_STAGE_ABC] = czk__clock_now_ns() - t1;
    if (st == CZK_OK) st = shape_file_check(u, shape);
  } else {
    pthread_mutex_lock(&u->mu);
    struct akey *live = u->live;
    czk_zkey *z = live ? live->z : NULL;
    pthread_mutex_unlock(&u->mu);
    st = z ? czk_snarkjs_synthesize(as, z, u->desc->wtns(j->parsed), pool) : CZK_ERR_STATE;
    stage[CZK_STAGE_ABC] = czk__clock_now_ns() - t0; /* the witness came with the request */
    if (st == CZK_OK) st = key_file_check(u, live);
  }
  size_t n_pub = st == CZK_OK && as->w.n_inputs ? as->w.n_inputs - 1 : 0;
  /* a family that recomputes its public inputs from the request proves only a witness that agrees with them */
  const czk_fr *want = NULL;
  size_t n_want = 0;
  if (st == CZK_OK && u->desc->public_inputs) {
    st = u->desc->public_inputs(u->cfg, j->parsed, part, &want, &n_want);
    if (st == CZK_OK && (n_want != n_pub || memcmp(want, as->w.w + 1, n_pub * sizeof(czk_fr)) != 0)) {
      CZK_ERROR("kinds", "%s: partition %u: the witness's public inputs differ from the ones recomputed from the "
                "request", u->name, part);
      st = CZK_ERR_VERIFY_FAILED;
    }
  }
  if (st == CZK_OK) {
    /* a partition synthesized again (the engine's retry after a device error) replaces its earlier inputs */
    free(j->pub[part]);
    j->pub[part] = malloc((n_pub ? n_pub : 1) * sizeof(czk_fr));
    if (!j->pub[part]) st = CZK_ERR_NOMEM;
  }
  if (st != CZK_OK) {
    czk_groth16_assignment_free(as);
    free(ks);
    return st;
  }
  memcpy(j->pub[part], want ? want : as->w.w + 1, n_pub * sizeof(czk_fr));
  j->n_pub[part] = n_pub;
  *synth = ks;
  return CZK_OK;
}

static void k_synth_free(void *user, void *synth) {
  (void)user;
  ksynth *ks = synth;
  if (!ks) return;
  czk_groth16_assignment_free(&ks->as);
  free(ks);
}

/* The kind's lane shapes: czk_groth16_lane_opts (full; compact: two streams, MSM chunks of
 * 2^CZK_GROTH16_COMPACT_CHUNK_LOG points; lean: one stream, chunks of 2^CZK_GROTH16_LEAN_CHUNK_LOG, the least memory:
 * a 2^27 lean lane fits the 14 GiB a 16 GB card's plan holds). */
static czk_groth16_lane_opts lane_opts(int shape) {
  return czk_groth16_lane_opts_of(shape != CZK_LANE_FULL, shape == CZK_LANE_LEAN);
}

static czk_status k_prove_start(void *user, const czk_engine_device_ctx *dev, void *key, void *synth, void **pending,
                                czk_engine_prove_report *rep) {
  (void)rep;
  kuser *u = user;
  akey *k = key;
  czk_status st = CZK_OK;
  czk_backend *be = dev && dev->backend ? (czk_backend *)dev->backend : cpu_backend(u, &st);
  if (st != CZK_OK) return st;
  CZK_TRY(key_file_check(u, k)); /* refuse a key whose file changed before spending a prove on it */
  kpend *pd = calloc(1, sizeof *pd);
  if (!pd) return CZK_ERR_NOMEM;
  pd->k = k;
  ksynth *ks = synth;
  pd->stage = ks->j->stage[ks->part];
  /* prove_start consumes the assignment's arrays; the engine still owns (and will free) the struct itself */
  const adkey *ad = dev ? (const adkey *)dev->dkey : NULL;
  if (ad) ks->as.dcc = ad->dcc;
  czk_groth16_lane_opts o = lane_opts(dev ? dev->shape : CZK_LANE_FULL);
  if (dev) o.yield = dev->yield, o.yield_user = dev->yield_user; /* (lean lanes: an urgent prove goes first) */
  st = czk_groth16_prove_start_ex(&pd->job, be, k->gk, ad ? ad->dk : NULL, &ks->as, u->pool, &o);
  if (st != CZK_OK) {
    free(pd);
    return st;
  }
  *pending = pd;
  return CZK_OK;
}

static czk_status k_prove_finish(void *user, const czk_engine_device_ctx *dev, void *pending, uint8_t *proof,
                                 czk_engine_prove_report *rep) {
  kuser *u = user;
  kpend *pd = pending;
  akey *k = pd->k;
  czk_groth16_proof pr;
  czk_groth16_timings t;
  memset(&t, 0, sizeof t);
  czk_status st = czk_groth16_prove_finish(pd->job, &pr, &t);
  uint64_t *stage = pd->stage;
  free(pd);
  CZK_TRY(st);
  stage[CZK_STAGE_PROVE_CHECK] = secs_ns(t.check);
  if (t.abc > 0) stage[CZK_STAGE_ABC] = secs_ns(t.abc); /* witness-only: unpack + mat-vec on the device */
  stage[CZK_STAGE_H] = secs_ns(t.h);
  stage[CZK_STAGE_MSM_H] = secs_ns(t.msm_h);
  stage[CZK_STAGE_MSM_L] = secs_ns(t.msm_l);
  stage[CZK_STAGE_MSM_A] = secs_ns(t.msm_a);
  stage[CZK_STAGE_MSM_B_G1] = secs_ns(t.msm_b_g1);
  stage[CZK_STAGE_MSM_B_G2] = secs_ns(t.msm_b_g2);
  stage[CZK_STAGE_UPLOAD_WAIT] = secs_ns(t.upload_wait); /* 0 (not counted) unless streamed queries were waited for */
  stage[CZK_STAGE_FINISH] = secs_ns(t.finish);
  CZK_TRY(key_file_check(u, k)); /* the key read in place changed during the prove: the proof is garbage */
  czk_groth16_proof_encode(proof, &pr);
  rep->ntt_ns = (uint64_t)(t.h * 1e9);
  const double msm = t.msm_h + t.msm_l + t.msm_a + t.msm_b_g1 + t.msm_b_g2; /* its spans include the upload wait */
  rep->msm_ns = (uint64_t)((msm > t.upload_wait ? msm - t.upload_wait : 0) * 1e9);
  /* on a device: the proof's device-busy time from events (the union of its two streams, less the wait for streamed
   * bases, reported apart as upload_ns: the engine counts it as idle, cause transfer); on the CPU kernel_ns stays 0
   * and the engine counts the prove's wall time */
  if (dev && dev->backend && !czk_backend_host_memory((const czk_backend *)dev->backend)) {
    rep->kernel_ns = (uint64_t)(t.device * 1e9);
    rep->upload_ns = secs_ns(t.upload_wait);
    rep->upload_bytes = t.upload_bytes;
  }
  return CZK_OK;
}

/* The device is lost when the backend the prove ran on (the device's, or the kind's own CPU one) is quarantined. */
static bool k_device_lost(void *user, const czk_engine_device_ctx *dev) {
  kuser *u = user;
  if (dev && dev->backend) return czk_backend_quarantined((const czk_backend *)dev->backend);
  pthread_mutex_lock(&u->mu);
  bool lost = u->cpu && czk_backend_quarantined(u->cpu);
  pthread_mutex_unlock(&u->mu);
  return lost;
}

static czk_status k_verify(void *user, void *key, const void *parsed, uint32_t part, const uint8_t *proof) {
  (void)user;
  const kjob *j = parsed;
  akey *k = key;
  if (!j->pub[part]) return CZK_ERR_STATE;
  czk_groth16_proof p;
  CZK_TRY(czk_groth16_proof_decode(&p, proof));
  return czk_groth16_verify(czk_groth16_key_vk(k->gk), &p, j->pub[part], j->n_pub[part]);
}

/* ------------------------------------------------------------------------------------------------ keys */
static czk_status key_file_check(kuser *u, const akey *k) {
  if (!k || !k->z || czk_zkey_check_file(k->z) == CZK_OK) return CZK_OK;
  CZK_ERROR("kinds", "%s: the key file %s changed on disk while loaded (truncated or rewritten in place); this job "
            "fails and the key is loaded again by the next one", u->name, u->key_path);
  return CZK_ERR_FILE_CHANGED;
}

static void akey_free(akey *k) {
  if (!k) return;
  czk_groth16_key_free(k->gk);
  czk_groth16_key_mem_free(&k->km);
  if (k->pk) czk_groth16_pk_close(k->pk);
  if (k->z) czk_zkey_close(k->z);
  free(k);
}

/* bellperson flavour: the .params / .vk pair, set up when absent. */
static czk_status open_params(kuser *u, akey *k) {
  char params[1300], vk[1300];
  snprintf(params, sizeof params, "%s/%s.params", u->keys_dir, u->key_name);
  snprintf(vk, sizeof vk, "%s/%s.vk", u->keys_dir, u->key_name);
  const czk_r1cs *shape;
  CZK_TRY(get_shape(u, &shape));
  if ((!file_exists(params) || !file_exists(vk)) && g_setup_mem && u->desc->walk && shape->outline) {
    CZK_WARN("kinds", "%s: no key files %s/%s.params / .vk: setting up a key of our own in memory (setup_in_memory: "
             "for benchmarks; its proofs verify only against this process's key)", u->name, u->keys_dir, u->key_name);
    double t0 = czk__now_s();
    czk_groth16_setup_opts o = {u->pool, g_setup_be, u->desc->walk, u->cfg, NULL};
    czk_status st = czk_groth16_setup_mem(&k->km, shape, &o);
    czk_groth16_pk_queries q;
    czk_groth16_key_mem_queries(&k->km, &q);
    if (st == CZK_OK) st = czk_groth16_key_from_queries(&k->gk, &k->km.vk, &q, &k->km.s, shape);
    if (st != CZK_OK) key_fail(u, "setting up %s in memory failed: %s", u->key_name, czk_status_str(st));
    else CZK_INFO("kinds", "%s: key set up in memory in %.1f s (%s)", u->name, czk__now_s() - t0,
                  g_setup_be ? czk_backend_name(g_setup_be) : "cpu");
    return st;
  }
  if (!file_exists(params) || !file_exists(vk)) {
    if (u->desc->no_setup) {
      CZK_ERROR("kinds", "%s: no key %s: %s/%s.params / .vk not found (install the published parameters there, or "
                "make a key of our own with `czk setup`)", u->name, u->key_id, u->keys_dir, u->key_name);
      return CZK_ERR_NOT_FOUND;
    }
    if (mkdir_p(u->keys_dir) != 0) return CZK_ERR_IO;
    char tp[1400], tv[1400];
    snprintf(tp, sizeof tp, "%s.tmp", params);
    snprintf(tv, sizeof tv, "%s.tmp", vk);
    CZK_INFO("kinds", "%s: generating proving key (setup) in %s", u->name, u->keys_dir);
    czk_status st = czk_groth16_setup(shape, tp, tv, u->pool);
    if (st == CZK_OK && (rename(tp, params) != 0 || rename(tv, vk) != 0)) st = CZK_ERR_IO;
    if (st != CZK_OK) {
      remove(tp);
      remove(tv);
      return st;
    }
  }
  czk_groth16_vk v;
  czk_status ost = czk_groth16_pk_open(&k->pk, params);
  if (ost != CZK_OK) {
    key_fail(u, "the key file %s is unusable: %s (replace it, or delete it and its .vk to set up a new key)", params,
             czk_status_str(ost));
    return ost;
  }
  ost = czk_groth16_vk_read(&v, vk, false);
  if (ost != CZK_OK) {
    key_fail(u, "the key file %s is unusable: %s", vk, czk_status_str(ost));
    return ost;
  }
  /* the .vk file must be the .params file's vk (a mismatched pair would make every self-check fail) */
  const czk_groth16_vk *pv = czk_groth16_pk_vk(k->pk);
  size_t n = czk_groth16_vk_size(&v);
  czk_status st = n == czk_groth16_vk_size(pv) ? CZK_OK : CZK_ERR_FORMAT;
  if (st == CZK_OK) {
    uint8_t *a = malloc(n), *b = malloc(n);
    st = a && b ? CZK_OK : CZK_ERR_NOMEM;
    if (st == CZK_OK) {
      czk_groth16_vk_encode(a, &v);
      czk_groth16_vk_encode(b, pv);
      if (memcmp(a, b, n) != 0) st = CZK_ERR_FORMAT;
    }
    free(a);
    free(b);
  }
  czk_groth16_vk_free(&v);
  if (st != CZK_OK) {
    CZK_ERROR("kinds", "%s: %s does not belong to %s", u->name, vk, params);
    return st;
  }
  st = czk_groth16_key_from_pk(&k->gk, k->pk, shape, u->pool);
  if (st != CZK_OK)
    key_fail(u, "the key file %s does not load against the circuit's shape: %s", params, czk_status_str(st));
  return st;
}

/* Witness-only mode: the compiled circuit from <keys_dir>/<key_name>.czkc, else compiled now and saved there (a
 * directory we cannot write only costs the next start the compile). Once per kind; failures name the file. */
static czk_status ensure_compiled(kuser *u) {
  pthread_mutex_lock(&u->mu);
  bool have = u->cc != NULL;
  pthread_mutex_unlock(&u->mu);
  if (have || !u->device_mode) return CZK_OK;
  char path[1300], err[512] = "";
  snprintf(path, sizeof path, "%s/%s.czkc", u->keys_dir, u->key_name);
  czk_compiled *cc = NULL;
  double t0 = czk__now_s();
  czk_status st = czk_cc_load(&cc, path, err, sizeof err);
  if (st == CZK_OK) {
    CZK_INFO("kinds", "%s: compiled circuit %s loaded in %.2f s", u->name, path, czk__now_s() - t0);
  } else {
    if (st != CZK_ERR_NOT_FOUND)
      CZK_WARN("kinds", "%s: compiled circuit unusable (%s); compiling it again", u->name, err[0] ? err : path);
    st = u->desc->compile(u->cfg, &cc);
    if (st != CZK_OK) {
      key_fail(u, "%s: compiling the circuit failed: %s", u->name, czk_status_str(st));
      return st;
    }
    CZK_INFO("kinds", "%s: circuit compiled in %.2f s (%.1f MiB)", u->name, czk__now_s() - t0,
             (double)czk_cc_file_size(cc) / (1 << 20));
    czk_status ss = czk_cc_save(cc, path);
    if (ss != CZK_OK)
      CZK_WARN("kinds", "%s: could not save the compiled circuit to %s (%s); the next start compiles it again", u->name,
               path, czk_status_str(ss));
  }
  pthread_mutex_lock(&u->mu);
  if (!u->cc) u->cc = cc, cc = NULL;
  pthread_mutex_unlock(&u->mu);
  czk_cc_free(cc);
  return CZK_OK;
}

static czk_status k_key_load(void *user, const char *key_id, czk_key_tier want, void **key, czk_key_tier *tier,
                             uint64_t *bytes) {
  kuser *u = user;
  if (strcmp(key_id, u->key_id) != 0) return CZK_ERR_NOT_FOUND;
  pthread_mutex_lock(&u->mu);
  u->key_err[0] = 0;
  pthread_mutex_unlock(&u->mu);
  akey *k = calloc(1, sizeof *k);
  if (!k) return CZK_ERR_NOMEM;
  czk_status st;
  if (u->desc->flavour == CZK__KEY_BELLPERSON) {
    st = open_params(u, k);
  } else {
    st = czk_zkey_open(&k->z, u->key_path);
    if (st == CZK_OK) st = czk_groth16_key_from_zkey(&k->gk, k->z, u->pool);
    if (st != CZK_OK) key_fail(u, "the key file %s is unusable: %s", u->key_path, czk_status_str(st));
  }
  if (st == CZK_OK) st = ensure_compiled(u);
  if (st != CZK_OK) {
    akey_free(k);
    return st;
  }
  *tier = CZK_KEY_TIER_MAPPED;
  if (want <= CZK_KEY_TIER_PINNED && u->pin_be) {
    czk_status ps = czk_groth16_key_pin(k->gk, u->pin_be);
    if (ps == CZK_OK) *tier = CZK_KEY_TIER_PINNED;
    else if (ps != CZK_ERR_UNSUPPORTED) CZK_WARN("kinds", "%s: pinning the key failed (%s)", u->name, czk_status_str(ps));
  }
  /* the key's real size (points, indices; a key set up in memory or read from the files alike): the engine corrects
   * the budget from the kind's bound to it */
  *bytes = czk_groth16_key_bytes(k->gk);
  pthread_mutex_lock(&u->mu);
  u->live = k;
  pthread_mutex_unlock(&u->mu);
  *key = k;
  return CZK_OK;
}

static void k_key_error(void *user, const char *key_id, char *buf, size_t len) {
  kuser *u = user;
  if (!len) return;
  pthread_mutex_lock(&u->mu);
  snprintf(buf, len, "%s", strcmp(key_id, u->key_id) == 0 ? u->key_err : "");
  pthread_mutex_unlock(&u->mu);
}

/* The files key_load reads: bellperson .params + .vk, snarkjs .zkey (stat only; no lock needed: paths are fixed). */
static void key_file(czk_engine_key_file *f, const char *path) {
  struct stat sb;
  size_t n = strlen(path); /* a longer path is shown cut (status only) */
  if (n >= sizeof f->path) n = sizeof f->path - 1;
  memcpy(f->path, path, n);
  f->path[n] = 0;
  f->present = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
  f->bytes = f->present ? (uint64_t)sb.st_size : 0;
}

static uint32_t k_key_files(void *user, const char *key_id, czk_engine_key_file *files, uint32_t max) {
  kuser *u = user;
  if (strcmp(key_id, u->key_id) != 0 || max == 0) return 0;
  char path[1300];
  if (u->desc->flavour == CZK__KEY_SNARKJS) {
    key_file(&files[0], u->key_path);
    return 1;
  }
  snprintf(path, sizeof path, "%s/%s.params", u->keys_dir, u->key_name);
  key_file(&files[0], path);
  if (max < 2) return 1;
  snprintf(path, sizeof path, "%s/%s.vk", u->keys_dir, u->key_name);
  key_file(&files[1], path);
  return 2;
}

static void k_key_free(void *user, void *key) {
  kuser *u = user;
  pthread_mutex_lock(&u->mu);
  if (u->live == key) u->live = NULL;
  pthread_mutex_unlock(&u->mu);
  akey_free(key);
}

/* Parts of a device copy: the five queries (h, l, a, b_g1, b_g2); base: the index lists and the compiled circuit. A
 * partial copy streams the other queries from the pinned host key (compact lanes). */
static uint32_t k_key_device_parts(void *user, void *key, uint64_t *base, uint64_t *bytes) {
  kuser *u = user;
  const czk_groth16_key *gk = ((akey *)key)->gk;
  *base = czk_groth16_key_copy_bytes(gk, 0) + (u->cc ? czk_cc_file_size(u->cc) : 0);
  for (int q = 0; q < 5; q++) bytes[q] = czk_groth16_key_copy_bytes(gk, 1u << q) - czk_groth16_key_copy_bytes(gk, 0);
  return 5;
}

static czk_status k_key_upload(void *user, void *key, void *backend, uint32_t parts, void **dkey) {
  kuser *u = user;
  akey *k = key;
  *dkey = NULL;
  if (!backend || !parts || (parts & ~CZK_GROTH16_Q_ALL)) return CZK_ERR_INVALID_ARG;
  adkey *ad = calloc(1, sizeof *ad);
  if (!ad) return CZK_ERR_NOMEM;
  /* a partial copy reads the other queries from the host key: pinned, so that their copies run at full speed */
  if (parts != CZK_GROTH16_Q_ALL) (void)czk_groth16_key_pin(k->gk, (czk_backend *)backend);
  czk_status st = czk_groth16_key_upload_partial(&ad->dk, k->gk, (czk_backend *)backend, parts);
  /* the compiled circuit goes with the copy (its bytes are counted in the copy's, k_key_device_size): a copy without
   * it fails, and the key is proved from the host copy (each witness-only proof then copies the circuit itself) */
  if (st == CZK_OK && u->device_mode && u->cc) st = czk_groth16_compiled_upload(&ad->dcc, (czk_backend *)backend, u->cc);
  if (st != CZK_OK) {
    czk_backend_compiled_free((czk_backend *)backend, ad->dcc);
    czk_groth16_dkey_free(ad->dk);
    free(ad);
    return st;
  }
  *dkey = ad;
  return CZK_OK;
}

static uint64_t k_key_device_size(void *user, void *key) {
  kuser *u = user;
  /* a device copy holds the host key's queries and indices (and the compiled circuit's arrays, at most its file) */
  return czk_groth16_key_bytes(((akey *)key)->gk) + (u->cc ? czk_cc_file_size(u->cc) : 0);
}

/* The device memory plan: one prove's lane (czk_groth16_plan_prove), plus, streaming in witness-only mode, the
 * compiled circuit's per-proof copy. */
static czk_status k_prove_plan(void *user, void *key, void *backend, uint32_t parts, int shape, uint64_t *lane,
                               uint64_t *tables, uint64_t *pinned) {
  kuser *u = user;
  akey *k = key;
  czk_groth16_prove_plan pl;
  const bool resident = parts != 0;
  if (shape == CZK_LANE_FULL && parts && parts != CZK_GROTH16_Q_ALL) return CZK_ERR_UNSUPPORTED;
  const czk_groth16_lane_opts o = lane_opts(shape);
  CZK_TRY(czk_groth16_plan_prove_ex(&pl, (czk_backend *)backend, k->gk, parts, u->device_mode, &o));
  *lane = pl.lane + (!resident && u->device_mode && u->cc ? czk_cc_file_size(u->cc) : 0);
  *tables = pl.tables;
  *pinned = pl.pinned;
  return CZK_OK;
}

static void k_lanes_trim(void *user, void *key, void *dkey, void *backend) {
  (void)user;
  const adkey *ad = dkey;
  (void)czk_groth16_lanes_trim(((akey *)key)->gk, ad ? ad->dk : NULL, (czk_backend *)backend);
}

static czk_status k_lane_warm(void *user, void *key, void *dkey, void *backend, int shape) {
  kuser *u = user;
  const adkey *ad = dkey;
  const czk_groth16_lane_opts o = lane_opts(shape);
  return czk_groth16_lane_warm_ex(((akey *)key)->gk, ad ? ad->dk : NULL, (czk_backend *)backend, u->device_mode, &o);
}

static void k_key_unload(void *user, void *backend, void *dkey) {
  (void)user;
  adkey *ad = dkey;
  if (!ad) return;
  czk_backend_compiled_free((czk_backend *)backend, ad->dcc);
  czk_groth16_dkey_free(ad->dk);
  free(ad);
}

static void k_destroy(void *user) {
  kuser *u = user;
  if (!u) return;
  if (u->shape) czk_r1cs_free(u->shape);
  czk_cc_free(u->cc);
  for (unsigned i = 0; i < u->n_stale; i++) czk_r1cs_free(u->stale[i]);
  czk_backend_free(u->cpu);
  if (u->desc->destroy) u->desc->destroy(u->cfg);
  pthread_mutex_destroy(&u->mu);
  free(u);
}

czk_status czk__kind_reason(const czk_kind_request *r, czk_status st, const char *fmt, ...) {
  if (r->error && r->error_len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, r->error_len, fmt, ap);
    va_end(ap);
  }
  return st;
}

czk_status czk__kind_make(czk_engine_kind *out, const czk__kind_spec *sp) {
  memset(out, 0, sizeof *out);
  kuser *u = calloc(1, sizeof *u);
  if (!u) {
    if (sp->desc->destroy) sp->desc->destroy(sp->cfg);
    return CZK_ERR_NOMEM;
  }
  u->desc = sp->desc;
  u->cfg = sp->cfg;
  u->pool = sp->pool;
  snprintf(u->name, sizeof u->name, "%s", sp->name);
  snprintf(u->key_name, sizeof u->key_name, "%s", sp->key_name ? sp->key_name : sp->name);
  snprintf(u->key_id, sizeof u->key_id, "%s", sp->key_id ? sp->key_id : sp->name);
  snprintf(u->keys_dir, sizeof u->keys_dir, "%s", sp->keys_dir ? sp->keys_dir : ".");
  snprintf(u->key_path, sizeof u->key_path, "%s", sp->key_path ? sp->key_path : "");
  pthread_mutex_init(&u->mu, NULL);
  out->name = u->name;
  out->key_id = u->key_id;
  out->proof_bytes = CZK_GROTH16_PROOF_BYTES;
  out->max_partitions = sp->desc->max_partitions;
  out->shape = sp->shape;
  out->key_bytes = sp->key_bytes;
  out->key_device_bytes = sp->device_bytes;
  out->verify_mode = CZK_VERIFY_AUTO;
  out->user = u;
  out->parse = k_parse;
  out->parsed_free = k_parsed_free;
  out->parsed_bytes = k_parsed_bytes;
  out->synthesize = k_synthesize;
  out->synth_free = k_synth_free;
  out->prove_start = k_prove_start;
  out->prove_finish = k_prove_finish;
  out->verify = k_verify;
  out->device_lost = k_device_lost;
  out->stage_times = k_stage_times;
  out->key_load = k_key_load;
  out->key_free = k_key_free;
  out->key_error = k_key_error;
  out->key_files = k_key_files;
  out->key_upload = k_key_upload;
  out->key_device_size = k_key_device_size;
  out->key_device_parts = k_key_device_parts;
  out->key_unload = k_key_unload;
  out->prove_plan = k_prove_plan;
  out->lanes_trim = k_lanes_trim;
  out->lane_warm = k_lane_warm;
  out->destroy = k_destroy;
  return CZK_OK;
}

void czk_kind_set_backend(czk_engine_kind *kind, czk_backend *pin) {
  if (!kind || kind->destroy != k_destroy || !kind->user) return;
  kuser *u = kind->user;
  u->pin_be = pin;
  /* proofs on a device whose backend has the compiled mat-vec: the host computes the witness alone, so a partition
   * reserves no a/b/c (they live in the device's lane buffers) */
  u->device_mode = pin && !czk_backend_host_memory(pin) && u->desc->compile && u->desc->witness_assign &&
                   getenv("CZK_NO_WITNESS_ONLY") == NULL;
  if (u->device_mode) kind->shape.abc_bytes = 0;
}

void czk_kind_free(czk_engine_kind *kind) {
  if (!kind) return;
  if (kind->destroy && kind->user) kind->destroy(kind->user);
  memset(kind, 0, sizeof *kind);
}
