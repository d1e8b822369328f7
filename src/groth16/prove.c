/* prove.c: the two-phase Groth16 prover (bellperson equations, see groth16.h).
 *
 * synthesize: a = A·w, b = B·w, c = C·w over the shape's CSR (czk_r1cs_eval on the pool), zero-padded to n = 2^k.
 * prove_start: (1) sizes of pk, shape and assignment agree; (2) a_j b_j = c_j for every row, else
 *   CZK_ERR_UNSATISFIED before any transform or MSM; (3) H = czk_ntt_h (7 NTTs of size n), b and c freed at once;
 *   (4) MSMs: h (n-1 points), l (n_aux), a (n_inputs dense + aux by A-density), b_g1 and b_g2 (inputs and aux by
 *   B-density); a (the H coefficients) freed after its MSM, w after the last one. On the CPU backend every step runs
 *   synchronously on the pool; the job only keeps the five partial sums.
 * prove_finish: r, s from the OS CSPRNG;
 *   A = alpha + a_acc + r delta;  B = beta_g2 + b2_acc + s delta_g2;  B1 = beta_g1 + b1_acc + s delta_g1;
 *   C = h_acc + l_acc + s A + r B1 - (r s) delta_g1.
 *   Five constant-time scalar multiplications by the secrets; r, s, r s are wiped. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "czk/msm.h"
#include "czk/ntt.h"
#include "groth16/groth16_internal.h"

_Atomic unsigned long czk__groth16_msm_launches;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void czk_groth16_assignment_free(czk_groth16_assignment *as) {
  if (!as) return;
  czk_witness_free(&as->w);
  free(as->a);
  free(as->b);
  free(as->c);
  memset(as, 0, sizeof *as);
}

czk_status czk_groth16_synthesize(czk_groth16_assignment *out, const czk_r1cs *shape, czk_witness *w,
                                  czk_pool *pool) {
  memset(out, 0, sizeof *out);
  out->w = *w;
  memset(w, 0, sizeof *w);
  if (out->w.n_inputs != shape->n_inputs || out->w.n_aux != shape->n_aux) {
    czk_groth16_assignment_free(out);
    return CZK_ERR_SIZE_MISMATCH;
  }
  size_t n = (size_t)1 << shape->log_domain, m = shape->n_constraints;
  out->n_domain = n;
  out->a = malloc(n * sizeof(czk_fr));
  out->b = malloc(n * sizeof(czk_fr));
  out->c = malloc(n * sizeof(czk_fr));
  if (!out->a || !out->b || !out->c) {
    czk_groth16_assignment_free(out);
    return CZK_ERR_NOMEM;
  }
  memset(out->a + m, 0, (n - m) * sizeof(czk_fr));
  memset(out->b + m, 0, (n - m) * sizeof(czk_fr));
  memset(out->c + m, 0, (n - m) * sizeof(czk_fr));
  czk_status st = czk_r1cs_eval(shape, out->w.w, out->a, out->b, out->c, pool);
  if (st != CZK_OK) czk_groth16_assignment_free(out);
  return st;
}

static czk_status check_sizes(const czk_groth16_pk *pk, const czk_r1cs *sh, const czk_groth16_assignment *as) {
  czk_groth16_pk_sizes s;
  czk_groth16_pk_get_sizes(pk, &s);
  size_t n = (size_t)1 << sh->log_domain;
  if (as->n_domain != n || !as->a || !as->b || !as->c || !as->w.w) return CZK_ERR_INVALID_ARG;
  if (as->w.n_inputs != sh->n_inputs || as->w.n_aux != sh->n_aux) return CZK_ERR_SIZE_MISMATCH;
  if (s.n_h != n - 1 || s.n_l != sh->n_aux || s.n_a != (size_t)sh->n_inputs + sh->a_aux_count ||
      s.n_b_g1 != (size_t)sh->b_input_count + sh->b_aux_count || czk_groth16_pk_vk(pk)->n_ic != sh->n_inputs)
    return CZK_ERR_SIZE_MISMATCH;
  return CZK_OK;
}

czk_status czk_groth16_prove_start(czk_groth16_job **out, czk_groth16_pk *pk, const czk_r1cs *sh,
                                   czk_groth16_assignment *as, czk_pool *pool) {
  *out = NULL;
  czk_groth16_job *job = calloc(1, sizeof *job);
  czk_status st = job ? CZK_OK : CZK_ERR_NOMEM;
  if (st == CZK_OK) st = czk_groth16_pk_prepare(pk, pool);
  if (st == CZK_OK) st = check_sizes(pk, sh, as);
  double t0 = now_s();
  /* Refuse a non-satisfying witness before any NTT or MSM. */
  if (st == CZK_OK && czk_r1cs_first_unsatisfied(as->a, as->b, as->c, sh->n_constraints) != SIZE_MAX)
    st = CZK_ERR_UNSATISFIED;
  double t1 = now_s();
  if (st == CZK_OK) st = czk_ntt_h(czk__groth16_pk_domain(pk), CZK_H_BELLPERSON, as->a, as->b, as->c, pool);
  double t2 = now_s();
  free(as->b), free(as->c);
  as->b = as->c = NULL;
  if (st != CZK_OK) {
    czk_groth16_assignment_free(as);
    free(job);
    return st;
  }
  job->pk = pk;
  job->vk = czk_groth16_pk_vk(pk);
  job->t.check = t1 - t0;
  job->t.h = t2 - t1;
  czk_groth16_pk_queries q;
  czk_groth16_pk_get_queries(pk, &q);
  const size_t n = as->n_domain, ni = sh->n_inputs, na = sh->n_aux;
  const czk_fr *win = as->w.w, *waux = as->w.w + ni;
  double t = now_s();
  czk__groth16_msm_launches++;
  st = czk_msm_g1(&job->h_acc, q.h, as->a, n - 1, 0, NULL, NULL, pool);
  free(as->a);
  as->a = NULL;
  job->t.msm_h = now_s() - t, t = now_s();
  if (st == CZK_OK) st = czk_msm_g1(&job->l_acc, q.l, waux, na, 0, NULL, NULL, pool);
  job->t.msm_l = now_s() - t, t = now_s();
  czk_g1 p1;
  czk_g2 p2;
  size_t used = 0;
  if (st == CZK_OK) st = czk_msm_g1(&job->a_acc, q.a, win, ni, 0, NULL, NULL, pool);
  if (st == CZK_OK)
    st = czk_msm_g1_density(&p1, q.a + ni, waux, na, sh->a_aux_density, 0, NULL, NULL, pool, NULL);
  if (st == CZK_OK) czk_g1_add(&job->a_acc, &job->a_acc, &p1);
  job->t.msm_a = now_s() - t, t = now_s();
  if (st == CZK_OK)
    st = czk_msm_g1_density(&job->b1_acc, q.b_g1, win, ni, sh->b_input_density, 0, NULL, NULL, pool, &used);
  if (st == CZK_OK)
    st = czk_msm_g1_density(&p1, q.b_g1 + used, waux, na, sh->b_aux_density, 0, NULL, NULL, pool, NULL);
  if (st == CZK_OK) czk_g1_add(&job->b1_acc, &job->b1_acc, &p1);
  job->t.msm_b_g1 = now_s() - t, t = now_s();
  if (st == CZK_OK)
    st = czk_msm_g2_density(&job->b2_acc, q.b_g2, win, ni, sh->b_input_density, 0, NULL, NULL, pool, &used);
  if (st == CZK_OK)
    st = czk_msm_g2_density(&p2, q.b_g2 + used, waux, na, sh->b_aux_density, 0, NULL, NULL, pool, NULL);
  if (st == CZK_OK) czk_g2_add(&job->b2_acc, &job->b2_acc, &p2);
  job->t.msm_b_g2 = now_s() - t;
  czk_groth16_assignment_free(as);
  if (st != CZK_OK) {
    free(job);
    return st;
  }
  *out = job;
  return CZK_OK;
}

void czk_groth16_job_abort(czk_groth16_job *job) {
  if (job && job->release) job->release(job);
  free(job);
}

czk_status czk_groth16_prove_finish(czk_groth16_job *job, czk_groth16_proof *proof, czk_groth16_timings *timings) {
  if (!job || !proof) {
    czk_groth16_job_abort(job);
    return CZK_ERR_INVALID_ARG;
  }
  double t0 = now_s();
  const czk_groth16_vk *vk = job->vk;
  czk_fr r, s, rs;
  czk_status st = job->wait ? job->wait(job) : CZK_OK; /* backend jobs: wait on the device, fill the sums */
  if (job->release) job->release(job);
  t0 = now_s();
  if (st == CZK_OK) st = czk_fr_random(&r);
  if (st == CZK_OK) st = czk_fr_random(&s);
  if (st == CZK_OK) {
    czk_g1 d1, A, B1, C, t1;
    czk_g2 d2, B, t2;
    czk_fr_mul(&rs, &r, &s);
    czk_g1_from_affine(&d1, &vk->delta_g1);
    czk_g2_from_affine(&d2, &vk->delta_g2);
    /* A = alpha + a_acc + r delta */
    czk_g1_mul(&t1, &d1, &r);
    czk_g1_add_affine(&A, &job->a_acc, &vk->alpha_g1);
    czk_g1_add(&A, &A, &t1);
    /* B = beta + b2_acc + s delta (G2); B1 likewise in G1 */
    czk_g2_mul(&t2, &d2, &s);
    czk_g2_add_affine(&B, &job->b2_acc, &vk->beta_g2);
    czk_g2_add(&B, &B, &t2);
    czk_g1_mul(&t1, &d1, &s);
    czk_g1_add_affine(&B1, &job->b1_acc, &vk->beta_g1);
    czk_g1_add(&B1, &B1, &t1);
    /* C = h + l + s A + r B1 - r s delta */
    czk_g1_add(&C, &job->h_acc, &job->l_acc);
    czk_g1_mul(&t1, &A, &s);
    czk_g1_add(&C, &C, &t1);
    czk_g1_mul(&t1, &B1, &r);
    czk_g1_add(&C, &C, &t1);
    czk_g1_mul(&t1, &d1, &rs);
    czk_g1_neg(&t1, &t1);
    czk_g1_add(&C, &C, &t1);
    czk_g1_to_affine(&proof->a, &A);
    czk_g2_to_affine(&proof->b, &B);
    czk_g1_to_affine(&proof->c, &C);
    explicit_bzero(&t1, sizeof t1);
    explicit_bzero(&t2, sizeof t2);
  }
  explicit_bzero(&r, sizeof r);
  explicit_bzero(&s, sizeof s);
  explicit_bzero(&rs, sizeof rs);
  job->t.finish = now_s() - t0;
  if (timings) *timings = job->t;
  free(job);
  return st;
}

czk_status czk_groth16_prove(czk_groth16_proof *proof, czk_groth16_pk *pk, const czk_r1cs *shape, czk_witness *w,
                             czk_pool *pool) {
  czk_groth16_assignment as;
  CZK_TRY(czk_groth16_synthesize(&as, shape, w, pool));
  czk_groth16_job *job;
  CZK_TRY(czk_groth16_prove_start(&job, pk, shape, &as, pool));
  return czk_groth16_prove_finish(job, proof, NULL);
}
