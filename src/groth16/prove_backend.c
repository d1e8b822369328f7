/* prove_backend.c: the two-phase Groth16 prover on a compute backend (czk/backend.h), beside the CPU prover of
 * prove.c and sharing its job object and prove_finish (groth16_internal.h).
 *
 * prove_start_on/_key: (1) the sizes of key, shape and assignment agree (as prove.c); (2) the backend's g16_launch
 * runs the row check a_j b_j = c_j (czk__groth16_check_rows, before any MSM: a non-satisfying witness is refused with
 * CZK_ERR_UNSATISFIED), then H and the five MSMs (on CUDA: launched, in flight on the job's streams when start
 * returns); (3) the job's wait/release hooks are set so that czk_groth16_prove_finish waits on the device, takes the
 * five sums and combines them with r, s exactly as on the CPU, and abort returns the device resources.
 * Also here: the parallel row check and the density index lists used by device backends (gathers of the witness for
 * the a / b_g1 / b_g2 queries). This file calls backends only through their vtable (no link dependency on
 * czk_backend). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_impl.h"
#include "groth16/groth16_internal.h"

/* ---- row check on the pool: first failing row (min over chunks), SIZE_MAX when all hold */
typedef struct chk_ctx {
  const czk_fr *a, *b, *c;
  _Atomic size_t bad;
} chk_ctx;
static void chk_rows(void *vctx, size_t beg, size_t end) {
  chk_ctx *x = vctx;
  for (size_t j = beg; j < end; j++) {
    czk_fr t;
    czk_fr_mul(&t, &x->a[j], &x->b[j]);
    if (!czk_fr_eq(&t, &x->c[j])) {
      size_t cur = atomic_load(&x->bad);
      while (j < cur && !atomic_compare_exchange_weak(&x->bad, &cur, j)) {
      }
      return;
    }
  }
}
czk_status czk__groth16_check_rows(const czk_fr *a, const czk_fr *b, const czk_fr *c, size_t m, czk_pool *pool) {
  chk_ctx x = {a, b, c, SIZE_MAX};
  czk_pool_parallel_for(pool, m, 4096, chk_rows, &x);
  return atomic_load(&x.bad) == SIZE_MAX ? CZK_OK : CZK_ERR_UNSATISFIED;
}

czk_status czk__groth16_density_index(const czk_r1cs *sh, uint32_t **idx_a, size_t *n_a, uint32_t **idx_b,
                                      size_t *n_b) {
  const size_t ni = sh->n_inputs, na = sh->n_aux;
  size_t ca = ni + sh->a_aux_count, cb = (size_t)sh->b_input_count + sh->b_aux_count;
  uint32_t *ia = malloc((ca ? ca : 1) * sizeof *ia), *ib = malloc((cb ? cb : 1) * sizeof *ib);
  if (!ia || !ib) {
    free(ia);
    free(ib);
    return CZK_ERR_NOMEM;
  }
  size_t k = 0;
  for (size_t i = 0; i < ni; i++) ia[k++] = (uint32_t)i;
  for (size_t j = 0; j < na && k < ca; j++)
    if (czk_density_get(sh->a_aux_density, j)) ia[k++] = (uint32_t)(ni + j);
  if (k != ca) {
    free(ia);
    free(ib);
    return CZK_ERR_INTERNAL;
  }
  k = 0;
  for (size_t i = 0; i < ni && k < cb; i++)
    if (czk_density_get(sh->b_input_density, i)) ib[k++] = (uint32_t)i;
  for (size_t j = 0; j < na && k < cb; j++)
    if (czk_density_get(sh->b_aux_density, j)) ib[k++] = (uint32_t)(ni + j);
  if (k != cb) {
    free(ia);
    free(ib);
    return CZK_ERR_INTERNAL;
  }
  *idx_a = ia, *n_a = ca, *idx_b = ib, *n_b = cb;
  return CZK_OK;
}

static czk_status check_sizes(const czk_backend_pk *k, const czk_r1cs *sh, const czk_groth16_assignment *as) {
  size_t n = (size_t)1 << sh->log_domain;
  if (as->n_domain != n || !as->a || !as->b || !as->c || !as->w.w) return CZK_ERR_INVALID_ARG;
  if (as->w.n_inputs != sh->n_inputs || as->w.n_aux != sh->n_aux) return CZK_ERR_SIZE_MISMATCH;
  if (k->s.n_h != n - 1 || k->s.n_l != sh->n_aux || k->s.n_a != (size_t)sh->n_inputs + sh->a_aux_count ||
      k->s.n_b_g1 != (size_t)sh->b_input_count + sh->b_aux_count || k->s.n_b_g2 != k->s.n_b_g1 ||
      k->vk->n_ic != sh->n_inputs)
    return CZK_ERR_SIZE_MISMATCH;
  if (!k->q.h || !k->q.l || !k->q.a || !k->q.b_g1 || !k->q.b_g2) return CZK_ERR_INVALID_ARG;
  return CZK_OK;
}

/* The job's backend part: the backend, its pending token and the g16 record (sums, timings). */
typedef struct bk_pending {
  czk_backend *be;
  void *token;
  czk_backend_pk key; /* a copy: the caller's view may be a temporary (the queries it points to must outlive the job) */
  czk_backend_g16 g;
} bk_pending;

static czk_status bk_wait(czk_groth16_job *job) {
  bk_pending *p = job->pending;
  czk_status st = atomic_load(&p->be->quarantined) ? CZK_ERR_DEVICE : p->be->iface->g16_wait(p->be, &p->g, p->token);
  if (st == CZK_OK) {
    job->h_acc = p->g.h, job->l_acc = p->g.l, job->a_acc = p->g.a, job->b1_acc = p->g.b1, job->b2_acc = p->g.b2;
    job->t = p->g.t;
  }
  return st;
}
static void bk_release(czk_groth16_job *job) {
  bk_pending *p = job->pending;
  job->release = NULL;
  job->wait = NULL;
  job->pending = NULL;
  if (!p) return;
  p->be->iface->g16_release(p->be, p->token);
  free(p);
}

czk_status czk_groth16_prove_start_key(czk_groth16_job **out, czk_backend *be, const czk_backend_pk *key,
                                       const czk_r1cs *shape, czk_groth16_assignment *as, czk_pool *pool) {
  if (out) *out = NULL;
  czk_status st = (!out || !be || !key || !key->vk || !shape || !as) ? CZK_ERR_INVALID_ARG : CZK_OK;
  if (st == CZK_OK && atomic_load(&be->quarantined)) st = CZK_ERR_DEVICE;
  if (st == CZK_OK) st = check_sizes(key, shape, as);
  czk_groth16_job *job = NULL;
  bk_pending *p = NULL;
  if (st == CZK_OK) {
    job = calloc(1, sizeof *job);
    p = calloc(1, sizeof *p);
    if (!job || !p) st = CZK_ERR_NOMEM;
  }
  if (st != CZK_OK) {
    if (as) czk_groth16_assignment_free(as);
    free(job);
    free(p);
    return st;
  }
  p->be = be;
  p->key = *key;
  p->g.key = &p->key;
  p->g.shape = shape;
  p->g.as = as;
  p->g.pool = pool;
  st = be->iface->g16_launch(be, &p->g, &p->token); /* consumes *as in every case */
  if (st != CZK_OK) {
    free(job);
    free(p);
    return st;
  }
  job->vk = key->vk;
  job->pending = p;
  job->wait = bk_wait;
  job->release = bk_release;
  *out = job;
  return CZK_OK;
}

czk_status czk_groth16_prove_start_on(czk_groth16_job **out, czk_backend *be, czk_groth16_pk *pk,
                                      const czk_r1cs *shape, czk_groth16_assignment *as, czk_pool *pool) {
  if (out) *out = NULL;
  czk_backend_pk key;
  memset(&key, 0, sizeof key);
  czk_status st = pk ? czk_groth16_pk_prepare(pk, pool) : CZK_ERR_INVALID_ARG;
  if (st == CZK_OK) st = czk_groth16_pk_get_queries(pk, &key.q);
  if (st != CZK_OK) {
    if (as) czk_groth16_assignment_free(as);
    return st;
  }
  czk_groth16_pk_get_sizes(pk, &key.s);
  key.vk = czk_groth16_pk_vk(pk);
  key.id = pk;
  return czk_groth16_prove_start_key(out, be, &key, shape, as, pool);
}
