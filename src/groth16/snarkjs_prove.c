/* snarkjs_prove.c: the snarkjs flavour of the one prover (prover.c): the zkey key adapter, synthesis of a circom
 * witness into an assignment from the zkey's A/B matrices, `czk_snarkjs_prove` (what `snarkjs groth16 prove` computes,
 * docs/snarkjs-formats.md §5) and a timing helper for one circom case.
 *
 * With n = domain size, w = witness (Montgomery), rows from section 4 (A, B; input rows A[nC+s] = w[s] included):
 *   1. a[c] = sum A[c][s] w[s], b[c] = sum B[c][s] w[s], c[c] = a[c] b[c]            (nnz(A)+nnz(B)+n muls)
 *   2. h = czk_ntt_h(SNARKJS): each of a, b, c to the odd coset w_2n * <w_n> (iNTT, scale, NTT), h = a'b' - c'
 *                                                                                   (6 NTTs of size n, ~3n log n muls)
 *   3. A = sum_i w_i A_i, B1 = sum w_i B1_i, B2 = sum w_i B2_i (G2), all i < nVars;
 *      C = sum_{i>nPublic} w_i C_{i-nPublic-1} + sum_j h_j H_j                     (4 G1 MSMs + 1 G2 MSM)
 *   4. r, s random (czk_fr_random), constant-time scalar multiplications:
 *      pi_A = alpha1 + A + r delta1;  pi_B = beta2 + B2 + s delta2;  B1' = beta1 + B1 + s delta1;
 *      pi_C = C + s pi_A + r B1' - r s delta1.
 * Steps 2-4 are the one prover's: H mode CZK_H_SNARKJS, queries h = H (n points), l = C (wires n_public+1..),
 * a = A, b = B1 / B2 over every wire (no index lists). The zkey holds no C matrix, so the prover cannot tell an
 * unsatisfying witness (n_rows = 0): callers check with the .r1cs (czk_circom_check) when they have it. */
#include <stdlib.h>

#include <string.h>

#include "core/clock.h"
#include "groth16/groth16_internal.h"
#include "groth16/zkey_internal.h"

typedef struct eval_ctx {
  const czk_zkey *z;
  const czk_fr *w;
  czk_fr *a, *b, *c;
} eval_ctx;

static void row_dot(czk_fr *out, const czk_csr *m, size_t row, const czk_fr *w) {
  czk_fr acc, t;
  czk_fr_set_zero(&acc);
  for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
    czk_fr_mul(&t, &m->val[k], &w[m->col[k]]);
    czk_fr_add(&acc, &acc, &t);
  }
  *out = acc;
}

static void eval_chunk(void *vctx, size_t begin, size_t end) {
  eval_ctx *x = vctx;
  for (size_t r = begin; r < end; r++) {
    row_dot(&x->a[r], &x->z->a, r, x->w);
    row_dot(&x->b[r], &x->z->b, r, x->w);
    czk_fr_mul(&x->c[r], &x->a[r], &x->b[r]);
  }
}

czk_status czk_groth16_key_from_zkey(czk_groth16_key **out, czk_zkey *z, czk_pool *pool) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (!z) return CZK_ERR_INVALID_ARG;
  CZK_TRY(czk_zkey_prepare(z, pool));
  const czk_zkey_info *in = &z->info;
  const size_t n = in->domain_size, nv = in->n_vars, np1 = (size_t)in->n_public + 1;
  if (np1 > nv || n < 2 || (n & (n - 1))) return CZK_ERR_FORMAT;
  czk_groth16_vk vk;
  CZK_TRY(czk_zkey_vk(z, &vk));
  const void *q[CZK__NQ] = {z->pt_h, z->pt_c, z->pt_a, z->pt_b1, z->pt_b2};
  const size_t nq[CZK__NQ] = {n, nv - np1, nv, nv, nv};
  czk_status st = czk__key_new(out, &vk, CZK_H_SNARKJS, (unsigned)__builtin_ctzll(n), np1, nv - np1, q, nq, NULL, 0,
                               NULL, 0);
  czk_groth16_vk_free(&vk);
  return st;
}

czk_status czk_snarkjs_synthesize(czk_groth16_assignment *out, czk_zkey *z, const czk_circom_wtns *w,
                                  czk_pool *pool) {
  memset(out, 0, sizeof *out);
  if (!z || !w || !w->w) return CZK_ERR_INVALID_ARG;
  CZK_TRY(czk_zkey_prepare(z, pool));
  const czk_zkey_info *in = &z->info;
  if (w->n != in->n_vars) return CZK_ERR_SIZE_MISMATCH;
  const size_t n = in->domain_size, nv = in->n_vars;
  out->n_domain = n;
  out->n_rows = 0; /* c = a b by construction */
  out->w.n_inputs = in->n_public + 1;
  out->w.n_aux = (uint32_t)(nv - out->w.n_inputs);
  out->w.w = malloc(nv * sizeof(czk_fr));
  out->a = calloc(n, sizeof(czk_fr));
  out->b = calloc(n, sizeof(czk_fr));
  out->c = calloc(n, sizeof(czk_fr));
  if (!out->w.w || !out->a || !out->b || !out->c) {
    czk_groth16_assignment_free(out);
    return CZK_ERR_NOMEM;
  }
  memcpy(out->w.w, w->w, nv * sizeof(czk_fr));
  eval_ctx ex = {.z = z, .w = w->w, .a = out->a, .b = out->b, .c = out->c};
  czk_pool_parallel_for(pool, n, 512, eval_chunk, &ex);
  return CZK_OK;
}

/* One proof with a key and backend at hand (timings: snarkjs stage names). */
static czk_status prove_on(czk_groth16_proof *proof, czk_backend *be, const czk_groth16_key *key, czk_zkey *z,
                           const czk_circom_wtns *w, czk_pool *pool, czk_snarkjs_timings *t) {
  double t0 = czk__now_s();
  czk_groth16_assignment as;
  CZK_TRY(czk_snarkjs_synthesize(&as, z, w, pool));
  t->eval = czk__now_s() - t0;
  czk_groth16_job *job;
  CZK_TRY(czk_groth16_prove_start(&job, be, key, NULL, &as, pool));
  czk_groth16_timings gt;
  CZK_TRY(czk_groth16_prove_finish(job, proof, &gt));
  t->h = gt.h;
  t->msm_a = gt.msm_a, t->msm_b1 = gt.msm_b_g1, t->msm_b2 = gt.msm_b_g2, t->msm_c = gt.msm_l + gt.msm_h;
  t->finish = gt.finish;
  return CZK_OK;
}

czk_status czk_snarkjs_prove(czk_groth16_proof *proof, czk_zkey *z, const czk_circom_wtns *w, czk_pool *pool,
                             czk_snarkjs_timings *timings) {
  czk_snarkjs_timings t = {0};
  double t0 = czk__now_s();
  if (!proof || !z || !w || !w->w) return CZK_ERR_INVALID_ARG;
  if (w->n != z->info.n_vars) return CZK_ERR_SIZE_MISMATCH;
  if (!z->prepared) {
    CZK_TRY(czk_zkey_prepare(z, pool));
    t.prepare = czk__now_s() - t0;
  }
  czk_groth16_key *key = NULL;
  czk_backend *be = NULL;
  czk_status st = czk_groth16_key_from_zkey(&key, z, pool);
  if (st == CZK_OK) st = czk_backend_open(&be, "cpu", pool);
  if (st == CZK_OK) st = prove_on(proof, be, key, z, w, pool, &t);
  czk_groth16_key_free(key);
  czk_backend_free(be);
  t.total = czk__now_s() - t0;
  if (timings) *timings = t;
  return st;
}

czk_status czk_snarkjs_bench_case(const char *zkey_path, const char *wtns_path, unsigned reps, czk_pool *pool,
                                  czk_snarkjs_bench_result *out) {
  memset(out, 0, sizeof *out);
  if (!zkey_path || !wtns_path || reps == 0) return CZK_ERR_INVALID_ARG;
  czk_zkey *z = NULL;
  czk_circom_wtns w = {0};
  czk_groth16_vk vk = {0};
  czk_fr *pub = NULL;
  czk_groth16_key *key = NULL;
  czk_backend *be = NULL;
  double t0 = czk__now_s();
  czk_status st = czk_zkey_open(&z, zkey_path);
  if (st == CZK_OK) st = czk_zkey_prepare(z, pool);
  out->open_s = czk__now_s() - t0;
  if (st == CZK_OK) st = czk_circom_wtns_read(&w, wtns_path);
  if (st == CZK_OK) st = czk_zkey_vk(z, &vk);
  if (st == CZK_OK) st = czk_snarkjs_public_from_wtns(&pub, z->info.n_public, &w);
  if (st != CZK_OK) goto out;
  czk_zkey_get_info(z, &out->info);
  czk_groth16_proof proof;
  if ((st = czk_groth16_key_from_zkey(&key, z, pool)) != CZK_OK || (st = czk_backend_open(&be, "cpu", pool)) != CZK_OK)
    goto out;
  double sum = 0;
  for (unsigned i = 0; i <= reps && st == CZK_OK; i++) {
    czk_snarkjs_timings t = {0};
    double t1 = czk__now_s();
    if ((st = prove_on(&proof, be, key, z, &w, pool, &t)) != CZK_OK) break;
    t.total = czk__now_s() - t1;
    if ((st = czk_groth16_verify(&vk, &proof, pub, z->info.n_public)) != CZK_OK) break;
    if (i == 0) continue; /* warm-up */
    sum += t.total;
    if (i == 1 || t.total < out->best_s) {
      out->best_s = t.total;
      out->best = t;
    }
  }
  out->mean_s = sum / reps;
out:
  czk_groth16_key_free(key);
  czk_backend_free(be);
  free(pub);
  czk_groth16_vk_free(&vk);
  czk_circom_wtns_free(&w);
  czk_zkey_close(z);
  return st;
}
