/* kind_synthetic.c: the engine kind "synthetic-k<k>" (see czk/kinds.h).
 *
 * Per partition: witness from (k, seed + part) -> a, b, c over the cached CSR (czk_groth16_synthesize) -> two-phase
 * Groth16 prove on the CPU -> 192-byte compressed proof; the finalizer's verify checks it against the .vk with the
 * partition's public inputs (kept by synthesize in the parsed job, one slot per partition).
 * Invariants: the shape is loaded once (mutex-guarded lazy init; the lock is never held while another lock is taken);
 * a key object owns its pk. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "circuits/synthetic.h"
#include "czk/backend.h"
#include "czk/groth16.h"
#include "czk/kinds.h"
#include "czk/log.h"
#include "czk/msm.h"
#include "kinds/kinds_internal.h"

#define MAX_PARTITIONS 64

typedef struct syn_user {
  unsigned k;
  char keys_dir[1024];
  char name[32];
  czk_pool *pool;
  pthread_mutex_t mu;
  czk_r1cs *shape; /* lazily loaded, then immutable */
  czk_status shape_status;
} syn_user;

typedef struct syn_parsed {
  uint32_t parts;
  uint64_t seed;
  size_t n_pub;
  czk_fr *pub; /* parts * n_pub, filled by synthesize (each partition writes only its own slots) */
} syn_parsed;

typedef struct syn_key {
  czk_groth16_pk *pk;
  czk_groth16_vk vk;
} syn_key;

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

static czk_status get_shape(syn_user *u, const czk_r1cs **out) {
  pthread_mutex_lock(&u->mu);
  if (!u->shape && u->shape_status == CZK_OK) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.r1cs", u->keys_dir, u->name);
    czk_status st = CZK_ERR_NOT_FOUND;
    if (file_exists(path)) {
      st = czk_r1cs_load(&u->shape, path);
      if (st != CZK_OK) CZK_WARN("kinds", "%s: cached shape unusable (%s); re-recording", path, czk_status_str(st));
    }
    if (st != CZK_OK) {
      st = czk_synthetic_shape(&u->shape, u->k);
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

static czk_status syn_parse(void *user, const uint8_t *input, size_t len, void **parsed, uint32_t *nparts) {
  syn_user *u = user;
  if (len > 4096) return CZK_ERR_LIMIT;
  char spec[4097];
  memcpy(spec, input, len);
  spec[len] = 0;
  uint64_t parts = 1, seed = 1;
  char *save = NULL;
  for (char *tok = strtok_r(spec, " \t\n,", &save); tok; tok = strtok_r(NULL, " \t\n,", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) return CZK_ERR_FORMAT;
    *eq = 0;
    char *end;
    errno = 0;
    if (eq[1] < '0' || eq[1] > '9') return CZK_ERR_FORMAT;
    unsigned long long v = strtoull(eq + 1, &end, 10);
    if (errno || *end) return CZK_ERR_FORMAT;
    if (strcmp(tok, "partitions") == 0) parts = v;
    else if (strcmp(tok, "seed") == 0) seed = v;
    else return CZK_ERR_FORMAT;
  }
  if (parts < 1 || parts > MAX_PARTITIONS) return CZK_ERR_LIMIT;
  syn_parsed *p = calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  p->parts = (uint32_t)parts;
  p->seed = seed;
  p->n_pub = czk_synthetic_num_public(u->k);
  p->pub = calloc(p->parts * p->n_pub + 1, sizeof *p->pub);
  if (!p->pub) {
    free(p);
    return CZK_ERR_NOMEM;
  }
  *parsed = p;
  *nparts = p->parts;
  return CZK_OK;
}

static void syn_parsed_free(void *user, void *parsed) {
  (void)user;
  syn_parsed *p = parsed;
  if (!p) return;
  free(p->pub);
  free(p);
}

static czk_status syn_synthesize(void *user, const void *parsed, uint32_t part, czk_pool *pool, void **synth) {
  syn_user *u = user;
  syn_parsed *p = (syn_parsed *)parsed; /* each partition writes only its own public-input slots */
  const czk_r1cs *shape;
  CZK_TRY(get_shape(u, &shape));
  czk_witness w;
  CZK_TRY(czk_synthetic_witness(&w, u->k, p->seed + part));
  size_t n_pub;
  const czk_fr *pub = czk_groth16_public_inputs(&w, &n_pub);
  if (n_pub != p->n_pub) {
    czk_witness_free(&w);
    return CZK_ERR_INTERNAL;
  }
  memcpy(p->pub + (size_t)part * p->n_pub, pub, n_pub * sizeof *pub);
  czk_groth16_assignment *as = calloc(1, sizeof *as);
  if (!as) {
    czk_witness_free(&w);
    return CZK_ERR_NOMEM;
  }
  czk_status st = czk_groth16_synthesize(as, shape, &w, pool);
  if (st != CZK_OK) {
    free(as);
    return st;
  }
  *synth = as;
  return CZK_OK;
}

static void syn_synth_free(void *user, void *synth) {
  (void)user;
  czk_groth16_assignment *as = synth;
  if (!as) return;
  czk_groth16_assignment_free(as);
  free(as);
}

static czk_status syn_prove_start(void *user, const czk_engine_device_ctx *dev, void *key, void *synth, void **pending,
                                  czk_engine_prove_report *rep) {
  (void)dev;
  (void)rep;
  syn_user *u = user;
  syn_key *sk = key;
  const czk_r1cs *shape;
  CZK_TRY(get_shape(u, &shape));
  czk_groth16_job *job;
  /* prove_start consumes the assignment's arrays; the engine still owns (and will free) the struct itself */
  /* a device backend (czk/backend.h) when the engine gives one, else the CPU prover */
  czk_status st = dev && dev->backend
                      ? czk_groth16_prove_start_on(&job, (czk_backend *)dev->backend, sk->pk, shape,
                                                   (czk_groth16_assignment *)synth, u->pool)
                      : czk_groth16_prove_start(&job, sk->pk, shape, (czk_groth16_assignment *)synth, u->pool);
  if (st != CZK_OK) return st;
  *pending = job;
  return CZK_OK;
}

static czk_status syn_prove_finish(void *user, const czk_engine_device_ctx *dev, void *pending, uint8_t *proof,
                                   czk_engine_prove_report *rep) {
  (void)user;
  czk_groth16_proof pr;
  czk_groth16_timings t;
  memset(&t, 0, sizeof t);
  czk_status st = czk_groth16_prove_finish((czk_groth16_job *)pending, &pr, &t);
  if (st != CZK_OK) return st;
  czk_groth16_proof_encode(proof, &pr);
  rep->ntt_ns = (uint64_t)(t.h * 1e9);
  rep->msm_ns = (uint64_t)((t.msm_h + t.msm_l + t.msm_a + t.msm_b_g1 + t.msm_b_g2) * 1e9);
  if (dev && dev->backend) {
    /* On a device the stage times are device-event spans on two streams (H then the H MSM; the witness MSMs): the
     * kernel-busy time of this proof is at least the longer stream. (The CPU prover leaves kernel_ns 0 and the engine
     * counts the prove's wall time.) */
    double s1 = t.h + t.msm_h, s2 = t.msm_l + t.msm_a + t.msm_b_g1 + t.msm_b_g2;
    rep->kernel_ns = (uint64_t)((s1 > s2 ? s1 : s2) * 1e9);
  }
  return CZK_OK;
}

static czk_status syn_verify(void *user, void *key, const void *parsed, uint32_t part, const uint8_t *proof) {
  (void)user;
  const syn_parsed *p = parsed;
  syn_key *sk = key;
  return czk__kinds_verify_encoded(&sk->vk, proof, p->pub + (size_t)part * p->n_pub, p->n_pub);
}

static czk_status syn_key_load(void *user, const char *key_id, czk_key_tier want, void **key, czk_key_tier *tier,
                               uint64_t *bytes) {
  (void)want;
  syn_user *u = user;
  if (strcmp(key_id, u->name) != 0) return CZK_ERR_NOT_FOUND;
  char params[1200], vk[1200];
  snprintf(params, sizeof params, "%s/%s.params", u->keys_dir, u->name);
  snprintf(vk, sizeof vk, "%s/%s.vk", u->keys_dir, u->name);
  if (!file_exists(params) || !file_exists(vk)) {
    const czk_r1cs *shape;
    CZK_TRY(get_shape(u, &shape));
    if (mkdir_p(u->keys_dir) != 0) return CZK_ERR_IO;
    /* write under temporary names, then rename: a crash never leaves a half-written key behind */
    char tp[1300], tv[1300];
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
  syn_key *sk = calloc(1, sizeof *sk);
  if (!sk) return CZK_ERR_NOMEM;
  czk_status st = czk_groth16_pk_open(&sk->pk, params);
  if (st == CZK_OK) st = czk_groth16_pk_prepare(sk->pk, u->pool);
  if (st == CZK_OK) st = czk_groth16_vk_read(&sk->vk, vk, false);
  if (st != CZK_OK) {
    if (sk->pk) czk_groth16_pk_close(sk->pk);
    free(sk);
    return st;
  }
  czk_groth16_pk_sizes s;
  czk_groth16_pk_get_sizes(sk->pk, &s);
  /* decoded queries + the NTT domain's twiddles (half the domain n = n_h + 1) */
  *bytes = (uint64_t)(s.n_h + s.n_l + s.n_a + s.n_b_g1) * sizeof(czk_g1_affine) +
           (uint64_t)s.n_b_g2 * sizeof(czk_g2_affine) + (uint64_t)(s.n_h + 1) / 2 * sizeof(czk_fr);
  *tier = CZK_KEY_TIER_MAPPED;
  *key = sk;
  return CZK_OK;
}

static void syn_key_free(void *user, void *key) {
  (void)user;
  syn_key *sk = key;
  if (!sk) return;
  czk_groth16_pk_close(sk->pk);
  czk_groth16_vk_free(&sk->vk);
  free(sk);
}

/* Largest scratch any MSM of a proof asks for (the five run one after another, each mallocs and frees its own plan's
 * scratch). Their point counts are n - 1 (h), n_aux (l), n_inputs and the A/B densities, all <= n; a plan's scratch is
 * not monotone in the point count (the window size changes), so the maximum is taken over n, 3n/4, n/2 and n/4. */
static uint64_t msm_scratch_bound(uint64_t n, unsigned threads) {
  uint64_t best = 0;
  const uint64_t m[4] = {n, n * 3 / 4, n / 2, n / 4};
  for (int g = 0; g < 2; g++) {
    for (int i = 0; i < 4; i++) {
      czk_msm_plan p;
      if (czk_msm_plan_init(&p, g ? CZK_MSM_G2 : CZK_MSM_G1, m[i] ? m[i] : 1, threads) == CZK_OK &&
          p.scratch_bytes > best)
        best = p.scratch_bytes;
    }
  }
  return best;
}

/* Reservation of one partition, measured with `czk bench memory` (docs/benchmarks.md, "Reservations vs measured peak
 * memory"): the peak RSS of synthesize + prove_start + prove_finish is abc + witness (synthesis) and then, during the
 * MSMs, one MSM scratch on top (the heap keeps a, b, c's freed pages, so the peak is not lower than abc + witness +
 * the largest scratch in practice). With n = 2^k (= the domain; constraints and variables are <= n):
 *   abc     = 3 n 32 B (a, b, c; released after prove_start)
 *   witness = n 32 B (n_inputs + n_aux <= n)
 *   scratch = max MSM plan scratch for the pool's thread count T (msm_scratch_bound) + 256 KiB (malloc headers, page
 *             rounding, the witness builder's and the prover's small buffers) + T * 256 KiB (the stack pages and
 *             malloc arena each pool thread touches in the MSM tasks: 2^14 on 8 threads peaked 1.4 MiB above
 *             abc + witness + plan scratch; paid by a process's first proof, reserved for every partition)
 * Key (resident after czk_groth16_pk_prepare; the .params mapping is released): the h, l, a, b_g1 queries (at most
 * n - 1, n, n, n G1 affine points) + b_g2 (at most n G2 affine) + the NTT domain's n/2 twiddles + 128 KiB (vk,
 * structs, page rounding; the 2^10 key measured 0.08 MiB over its arrays). The synthetic circuit's densities
 * (a 0.93, b 0.63) make this about 1.1-1.25x the measured bytes: an upper bound, never short. */
void czk_kind_synthetic_shape(unsigned k, unsigned threads, czk_engine_shape *out, uint64_t *key_bytes) {
  uint64_t n = 1ull << k;
  out->abc_bytes = 3 * n * sizeof(czk_fr);
  out->witness_bytes = n * sizeof(czk_fr);
  if (threads == 0) threads = czk_pool_threads(NULL);
  out->scratch_bytes = msm_scratch_bound(n, threads) + (256u << 10) + (uint64_t)threads * (256u << 10);
  *key_bytes = 4 * n * sizeof(czk_g1_affine) + n * sizeof(czk_g2_affine) + (n / 2) * sizeof(czk_fr) + (128u << 10);
}

czk_status czk_kind_synthetic_new(czk_engine_kind *out, unsigned k, const char *keys_dir, czk_pool *pool) {
  memset(out, 0, sizeof *out);
  if (k < CZK_SYNTHETIC_MIN_LOG || k > CZK_SYNTHETIC_MAX_LOG || !keys_dir) return CZK_ERR_INVALID_ARG;
  syn_user *u = calloc(1, sizeof *u);
  if (!u) return CZK_ERR_NOMEM;
  u->k = k;
  u->pool = pool;
  snprintf(u->keys_dir, sizeof u->keys_dir, "%s", keys_dir);
  snprintf(u->name, sizeof u->name, "synthetic-k%u", k);
  pthread_mutex_init(&u->mu, NULL);
  out->name = u->name;
  out->key_id = u->name;
  out->proof_bytes = CZK_GROTH16_PROOF_BYTES;
  out->max_partitions = MAX_PARTITIONS;
  czk_kind_synthetic_shape(k, czk_pool_threads(pool), &out->shape, &out->key_bytes);
  out->verify_mode = CZK_VERIFY_AUTO;
  out->user = u;
  out->parse = syn_parse;
  out->parsed_free = syn_parsed_free;
  out->synthesize = syn_synthesize;
  out->synth_free = syn_synth_free;
  out->prove_start = syn_prove_start;
  out->prove_finish = syn_prove_finish;
  out->verify = syn_verify;
  out->key_load = syn_key_load;
  out->key_free = syn_key_free;
  return CZK_OK;
}

void czk__kind_synthetic_free(void *user) {
  syn_user *u = user;
  if (u->shape) czk_r1cs_free(u->shape);
  pthread_mutex_destroy(&u->mu);
  free(u);
}
