/* snarkjs_prove.c: a Groth16 prover that reproduces `snarkjs groth16 prove` on a .zkey (docs/snarkjs-formats.md §5),
 * and a timing helper for one circom case.
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
 * The zkey holds no C matrix, so the prover cannot tell an unsatisfying witness: callers check with the .r1cs
 * (czk_circom_check) when they have it. r, s and r*s are wiped before returning. */
#include <stdlib.h>
#include <time.h>

#include "czk/msm.h"
#include "groth16/zkey_internal.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

static void secure_wipe(void *p, size_t n) {
  volatile uint8_t *v = p;
  while (n--) *v++ = 0;
}

czk_status czk_snarkjs_prove(czk_groth16_proof *proof, czk_zkey *z, const czk_circom_wtns *w, czk_pool *pool,
                             czk_snarkjs_timings *timings) {
  czk_snarkjs_timings t = {0};
  double t0 = now_s(), t1;
  if (!proof || !z || !w || !w->w) return CZK_ERR_INVALID_ARG;
  const czk_zkey_info *in = &z->info;
  if (w->n != in->n_vars) return CZK_ERR_SIZE_MISMATCH;
  if (!z->prepared) {
    CZK_TRY(czk_zkey_prepare(z, pool));
    t.prepare = now_s() - t0;
  }
  const size_t n = in->domain_size, nv = in->n_vars, np1 = (size_t)in->n_public + 1;
  czk_status st = CZK_ERR_NOMEM;
  czk_fr *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c);
  if (!a || !b || !c) goto out;

  /* 1. evaluations */
  t1 = now_s();
  eval_ctx ex = {.z = z, .w = w->w, .a = a, .b = b, .c = c};
  czk_pool_parallel_for(pool, n, 512, eval_chunk, &ex);
  t.eval = now_s() - t1;

  /* 2. h on the odd coset (result in a) */
  t1 = now_s();
  if ((st = czk_ntt_h(z->domain, CZK_H_SNARKJS, a, b, c, pool)) != CZK_OK) goto out;
  free(b);
  free(c);
  b = c = NULL;
  t.h = now_s() - t1;

  /* 3. MSMs */
  czk_g1 A, B1, C, Ch;
  czk_g2 B2;
  t1 = now_s();
  if ((st = czk_msm_g1(&A, z->pt_a, w->w, nv, 0, NULL, NULL, pool)) != CZK_OK) goto out;
  t.msm_a = now_s() - t1;
  t1 = now_s();
  if ((st = czk_msm_g1(&B1, z->pt_b1, w->w, nv, 0, NULL, NULL, pool)) != CZK_OK) goto out;
  t.msm_b1 = now_s() - t1;
  t1 = now_s();
  if ((st = czk_msm_g2(&B2, z->pt_b2, w->w, nv, 0, NULL, NULL, pool)) != CZK_OK) goto out;
  t.msm_b2 = now_s() - t1;
  t1 = now_s();
  if ((st = czk_msm_g1(&C, z->pt_c, w->w + np1, nv - np1, 0, NULL, NULL, pool)) != CZK_OK) goto out;
  if ((st = czk_msm_g1(&Ch, z->pt_h, a, n, 0, NULL, NULL, pool)) != CZK_OK) goto out;
  czk_g1_add(&C, &C, &Ch);
  t.msm_c = now_s() - t1;

  /* 4. blinding */
  t1 = now_s();
  czk_fr r, s, rs;
  if ((st = czk_fr_random(&r)) != CZK_OK || (st = czk_fr_random(&s)) != CZK_OK) goto wipe;
  czk_fr_mul(&rs, &r, &s);
  czk_g1 pa, pc, b1, tmp, d1;
  czk_g2 pb, tmp2, d2;
  czk_g1_from_affine(&d1, &z->delta1);
  czk_g2_from_affine(&d2, &z->delta2);
  /* pi_A = alpha1 + A + r delta1 */
  czk_g1_mul(&tmp, &d1, &r);
  czk_g1_add_affine(&pa, &A, &z->alpha1);
  czk_g1_add(&pa, &pa, &tmp);
  /* pi_B = beta2 + B2 + s delta2 */
  czk_g2_mul(&tmp2, &d2, &s);
  czk_g2_add_affine(&pb, &B2, &z->beta2);
  czk_g2_add(&pb, &pb, &tmp2);
  /* B1' = beta1 + B1 + s delta1 */
  czk_g1_mul(&tmp, &d1, &s);
  czk_g1_add_affine(&b1, &B1, &z->beta1);
  czk_g1_add(&b1, &b1, &tmp);
  /* pi_C = C + s pi_A + r B1' - r s delta1 */
  czk_g1_mul(&tmp, &pa, &s);
  czk_g1_add(&pc, &C, &tmp);
  czk_g1_mul(&tmp, &b1, &r);
  czk_g1_add(&pc, &pc, &tmp);
  czk_g1_mul(&tmp, &d1, &rs);
  czk_g1_neg(&tmp, &tmp);
  czk_g1_add(&pc, &pc, &tmp);
  czk_g1_to_affine(&proof->a, &pa);
  czk_g2_to_affine(&proof->b, &pb);
  czk_g1_to_affine(&proof->c, &pc);
  t.finish = now_s() - t1;
  st = CZK_OK;
wipe:
  secure_wipe(&r, sizeof r);
  secure_wipe(&s, sizeof s);
  secure_wipe(&rs, sizeof rs);
out:
  free(a);
  free(b);
  free(c);
  t.total = now_s() - t0;
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
  double t0 = now_s();
  czk_status st = czk_zkey_open(&z, zkey_path);
  if (st == CZK_OK) st = czk_zkey_prepare(z, pool);
  out->open_s = now_s() - t0;
  if (st == CZK_OK) st = czk_circom_wtns_read(&w, wtns_path);
  if (st == CZK_OK) st = czk_zkey_vk(z, &vk);
  if (st == CZK_OK) st = czk_snarkjs_public_from_wtns(&pub, z->info.n_public, &w);
  if (st != CZK_OK) goto out;
  czk_zkey_get_info(z, &out->info);
  czk_groth16_proof proof;
  double sum = 0;
  for (unsigned i = 0; i <= reps && st == CZK_OK; i++) {
    czk_snarkjs_timings t;
    if ((st = czk_snarkjs_prove(&proof, z, &w, pool, &t)) != CZK_OK) break;
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
  free(pub);
  czk_groth16_vk_free(&vk);
  czk_circom_wtns_free(&w);
  czk_zkey_close(z);
  return st;
}
