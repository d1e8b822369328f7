/* test_groth16.c: setup -> prove -> verify on synthetic circuits 2^4..2^10 (bellperson .params/.vk written and read
 * back), rejection of tampered proofs and public inputs, batch verification, refusal of a non-satisfying witness
 * before any MSM, and clean rejection of key files truncated at every section boundary or with flipped bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuits/synthetic.h"
#include "czk/groth16.h"
#include "czk/pool.h"
#include "czk_test.h"
#include "groth16/groth16_internal.h"

static char g_params[128], g_vk[128], g_tmp[128];

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(*len ? *len : 1);
  if (fread(b, 1, *len, f) != *len) {
    free(b);
    b = NULL;
  }
  fclose(f);
  return b;
}

static void spit(const char *path, const uint8_t *b, size_t len) {
  FILE *f = fopen(path, "wb");
  fwrite(b, 1, len, f);
  fclose(f);
}

static bool vk_eq(const czk_groth16_vk *x, const czk_groth16_vk *y) {
  if (x->n_ic != y->n_ic) return false;
  for (size_t i = 0; i < x->n_ic; i++)
    if (!czk_g1_affine_eq(&x->ic[i], &y->ic[i])) return false;
  return czk_g1_affine_eq(&x->alpha_g1, &y->alpha_g1) && czk_g1_affine_eq(&x->beta_g1, &y->beta_g1) &&
         czk_g2_affine_eq(&x->beta_g2, &y->beta_g2) && czk_g2_affine_eq(&x->gamma_g2, &y->gamma_g2) &&
         czk_g1_affine_eq(&x->delta_g1, &y->delta_g1) && czk_g2_affine_eq(&x->delta_g2, &y->delta_g2);
}

/* Proves seed's witness; copies the public inputs to pub (n = *np). */
static czk_status prove_seed(czk_groth16_proof *p, czk_groth16_pk *pk, const czk_r1cs *sh, unsigned k, uint64_t seed,
                             czk_fr *pub, size_t *np) {
  czk_witness w;
  CZK_TRY(czk_synthetic_witness(&w, k, seed));
  const czk_fr *x = czk_groth16_public_inputs(&w, np);
  memcpy(pub, x, *np * sizeof *pub);
  czk_groth16_key *key = NULL;
  czk_status st = czk_groth16_key_from_pk(&key, pk, sh, NULL);
  if (st != CZK_OK) {
    czk_witness_free(&w);
    return st;
  }
  st = czk_groth16_prove(p, NULL, key, sh, &w, NULL);
  czk_groth16_key_free(key);
  return st;
}

static void test_roundtrip(unsigned k) {
  czk_r1cs *sh;
  CHECK(czk_synthetic_shape(&sh, k) == CZK_OK);
  CHECK(czk_groth16_setup(sh, g_params, g_vk, NULL) == CZK_OK);
  czk_groth16_pk *pk = NULL;
  CHECK(czk_groth16_pk_open(&pk, g_params) == CZK_OK);
  if (!pk) {
    czk_r1cs_free(sh);
    return;
  }
  czk_groth16_vk vk;
  CHECK(czk_groth16_vk_read(&vk, g_vk, false) == CZK_OK);
  CHECK(vk_eq(&vk, czk_groth16_pk_vk(pk)));
  CHECK_EQ_INT(vk.n_ic, sh->n_inputs);
  czk_groth16_pk_sizes s;
  czk_groth16_pk_get_sizes(pk, &s);
  CHECK_EQ_INT(s.n_h, ((size_t)1 << k) - 1);
  CHECK_EQ_INT(s.n_l, sh->n_aux);
  CHECK_EQ_INT(s.n_a, sh->n_inputs + sh->a_aux_count);
  CHECK_EQ_INT(s.n_b_g2, sh->b_input_count + sh->b_aux_count);

  enum { NP = 3 };
  czk_groth16_proof proofs[NP];
  czk_fr pub[NP][16];
  size_t np = 0;
  for (int i = 0; i < NP; i++) CHECK(prove_seed(&proofs[i], pk, sh, k, 77 + (uint64_t)i, pub[i], &np) == CZK_OK);
  CHECK_EQ_INT(np, czk_synthetic_num_public(k));
  for (int i = 0; i < NP; i++) CHECK_MSG(czk_groth16_verify(&vk, &proofs[i], pub[i], np) == CZK_OK, "k=%u #%d", k, i);
  /* encoding round trip */
  uint8_t enc[CZK_GROTH16_PROOF_BYTES];
  czk_groth16_proof dec;
  czk_groth16_proof_encode(enc, &proofs[0]);
  CHECK(czk_groth16_proof_decode(&dec, enc) == CZK_OK);
  CHECK(czk_g1_affine_eq(&dec.a, &proofs[0].a) && czk_g2_affine_eq(&dec.b, &proofs[0].b) &&
        czk_g1_affine_eq(&dec.c, &proofs[0].c));
  /* two proofs of the same statement differ (fresh r, s) */
  czk_groth16_proof again;
  czk_fr pub2[16];
  CHECK(prove_seed(&again, pk, sh, k, 77, pub2, &np) == CZK_OK);
  CHECK(!czk_g1_affine_eq(&again.a, &proofs[0].a));
  CHECK(czk_groth16_verify(&vk, &again, pub2, np) == CZK_OK);
  /* tampering */
  czk_groth16_proof bad = proofs[0];
  czk_g1 t;
  czk_g1_from_affine(&t, &bad.c);
  czk_g1 g;
  czk_g1_generator(&g);
  czk_g1_add(&t, &t, &g);
  czk_g1_to_affine(&bad.c, &t);
  CHECK(czk_groth16_verify(&vk, &bad, pub[0], np) == CZK_ERR_VERIFY_FAILED);
  bad = proofs[0];
  bad.a = proofs[1].a;
  CHECK(czk_groth16_verify(&vk, &bad, pub[0], np) == CZK_ERR_VERIFY_FAILED);
  czk_fr xp[16];
  memcpy(xp, pub[0], np * sizeof *xp);
  czk_fr_add(&xp[np - 1], &xp[np - 1], &czk_fr_one_v);
  CHECK(czk_groth16_verify(&vk, &proofs[0], xp, np) == CZK_ERR_VERIFY_FAILED);
  CHECK(czk_groth16_verify(&vk, &proofs[0], pub[1], np) == CZK_ERR_VERIFY_FAILED);
  CHECK(czk_groth16_verify(&vk, &proofs[0], pub[0], np - 1) == CZK_ERR_SIZE_MISMATCH);
  enc[100] ^= 0x01; /* inside B's x: off the curve, or decodes to another point that fails */
  czk_status ds = czk_groth16_proof_decode(&dec, enc);
  CHECK(ds != CZK_OK || czk_groth16_verify(&vk, &dec, pub[0], np) == CZK_ERR_VERIFY_FAILED);
  /* batch */
  czk_fr flat[NP * 16];
  for (int i = 0; i < NP; i++) memcpy(flat + i * np, pub[i], np * sizeof(czk_fr));
  CHECK(czk_groth16_verify_batch(&vk, proofs, flat, np, NP) == CZK_OK);
  czk_groth16_proof bproofs[NP];
  memcpy(bproofs, proofs, sizeof bproofs);
  bproofs[2] = bad;
  CHECK(czk_groth16_verify_batch(&vk, bproofs, flat, np, NP) == CZK_ERR_VERIFY_FAILED);
  czk_fr_add(&flat[np], &flat[np], &czk_fr_one_v); /* proof 1's first input */
  CHECK(czk_groth16_verify_batch(&vk, proofs, flat, np, NP) == CZK_ERR_VERIFY_FAILED);

  /* a non-satisfying witness is refused before any MSM; the key and a valid witness still work after */
  czk_witness w;
  CHECK(czk_synthetic_witness(&w, k, 5) == CZK_OK);
  czk_fr_add(&w.w[w.n_inputs + w.n_aux / 2], &w.w[w.n_inputs + w.n_aux / 2], &czk_fr_one_v);
  czk_groth16_assignment as;
  CHECK(czk_groth16_synthesize(&as, sh, &w, NULL) == CZK_OK);
  unsigned long launches = czk_groth16_msm_launches();
  czk_groth16_job *job = (czk_groth16_job *)1;
  czk_groth16_key *key = NULL;
  czk_backend *cpu = NULL;
  CHECK(czk_groth16_key_from_pk(&key, pk, sh, NULL) == CZK_OK);
  CHECK(czk_backend_open(&cpu, "cpu", NULL) == CZK_OK);
  CHECK(czk_groth16_prove_start(&job, cpu, key, NULL, &as, NULL) == CZK_ERR_UNSATISFIED);
  CHECK(job == NULL);
  CHECK_EQ_INT(czk_groth16_msm_launches(), launches);
  CHECK(as.a == NULL && as.w.w == NULL); /* consumed */
  /* two-phase API with timings */
  CHECK(czk_synthetic_witness(&w, k, 6) == CZK_OK);
  memcpy(xp, czk_groth16_public_inputs(&w, &np), np * sizeof *xp);
  CHECK(czk_groth16_synthesize(&as, sh, &w, NULL) == CZK_OK);
  CHECK(czk_groth16_prove_start(&job, cpu, key, NULL, &as, NULL) == CZK_OK);
  CHECK(czk_groth16_msm_launches() > launches);
  czk_groth16_timings tm;
  czk_groth16_proof p2;
  CHECK(czk_groth16_prove_finish(job, &p2, &tm) == CZK_OK);
  CHECK(tm.h >= 0 && tm.msm_h >= 0);
  CHECK(czk_groth16_verify(&vk, &p2, xp, np) == CZK_OK);
  /* a key for a different circuit size is refused */
  if (k > 4) {
    czk_r1cs *other;
    CHECK(czk_synthetic_shape(&other, k - 1) == CZK_OK);
    CHECK(czk_synthetic_witness(&w, k - 1, 1) == CZK_OK);
    czk_groth16_key *k2 = NULL;
    CHECK(czk_groth16_key_from_pk(&k2, pk, other, NULL) == CZK_ERR_SIZE_MISMATCH);
    czk_groth16_proof p3;
    CHECK(czk_groth16_prove(&p3, cpu, key, other, &w, NULL) == CZK_ERR_SIZE_MISMATCH);
    czk_r1cs_free(other);
  }
  czk_groth16_key_free(key);
  czk_backend_free(cpu);
  czk_groth16_vk_free(&vk);
  czk_groth16_pk_close(pk);
  czk_r1cs_free(sh);
}

/* ------------------------------------------------------------------------------------------------ seeded setup */
static bool g1_is_mul(const czk_g1_affine *p, const czk_fr *k) { /* p == k G1, by the constant-time mul */
  czk_g1 g, t;
  czk_g1_affine ta;
  czk_g1_generator(&g);
  czk_g1_mul(&t, &g, k);
  czk_g1_to_affine(&ta, &t);
  return czk_g1_affine_eq(p, &ta);
}
static bool g2_is_mul(const czk_g2_affine *p, const czk_fr *k) {
  czk_g2 g, t;
  czk_g2_affine ta;
  czk_g2_generator(&g);
  czk_g2_mul(&t, &g, k);
  czk_g2_to_affine(&ta, &t);
  return czk_g2_affine_eq(p, &ta);
}

/* The key of czk__groth16_setup_seeded(tw) against an independent recomputation: Lagrange values by the product
 * formula L_j(tau) = prod_{m != j} (tau - w^m) / (w^j - w^m), A_i/B_i/C_i from the CSR, every query point as k G by
 * plain constant-time scalar multiplication. Returns the number of differing points. */
static size_t check_seeded_key(const czk_r1cs *sh, const czk_fr tw[5], const char *params, const char *vkp) {
  const size_t n = (size_t)1 << sh->log_domain, ni = sh->n_inputs, nv = ni + sh->n_aux;
  const czk_fr *tau = &tw[0], *alpha = &tw[1], *beta = &tw[2], *gamma = &tw[3], *delta = &tw[4];
  czk_fr *w = malloc(n * sizeof *w), *L = malloc(n * sizeof *L), *X = calloc(3 * nv, sizeof *X);
  czk_fr omega, num, den, t;
  CHECK(czk_fr_root_of_unity(&omega, sh->log_domain, CZK_ROOTS_BELLMAN) == CZK_OK);
  czk_fr_set_one(&w[0]);
  for (size_t j = 1; j < n; j++) czk_fr_mul(&w[j], &w[j - 1], &omega);
  for (size_t j = 0; j < n; j++) {
    czk_fr_set_one(&num);
    czk_fr_set_one(&den);
    for (size_t m = 0; m < n; m++) {
      if (m == j) continue;
      czk_fr_sub(&t, tau, &w[m]);
      czk_fr_mul(&num, &num, &t);
      czk_fr_sub(&t, &w[j], &w[m]);
      czk_fr_mul(&den, &den, &t);
    }
    czk_fr_inv(&den, &den);
    czk_fr_mul(&L[j], &num, &den);
  }
  const czk_csr *mats[3] = {&sh->a, &sh->b, &sh->c};
  for (int q = 0; q < 3; q++)
    for (uint32_t j = 0; j < sh->n_constraints; j++)
      for (uint64_t e = mats[q]->row_ptr[j]; e < mats[q]->row_ptr[j + 1]; e++) {
        czk_fr_mul(&t, &mats[q]->val[e], &L[j]);
        czk_fr_add(&X[q * nv + mats[q]->col[e]], &X[q * nv + mats[q]->col[e]], &t);
      }
  czk_fr gi, di, zt;
  czk_fr_inv(&gi, gamma);
  czk_fr_inv(&di, delta);
  czk_fr_set_one(&zt);
  for (size_t j = 0; j < n; j++) czk_fr_mul(&zt, &zt, tau);
  czk_fr_sub(&zt, &zt, &czk_fr_one_v); /* tau^n - 1 */
  size_t bad = 0;
  czk_groth16_pk *pk = NULL;
  czk_groth16_vk vk;
  CHECK(czk_groth16_pk_open(&pk, params) == CZK_OK);
  CHECK(czk_groth16_vk_read(&vk, vkp, false) == CZK_OK);
  if (pk) {
    CHECK(vk_eq(&vk, czk_groth16_pk_vk(pk)));
    CHECK(czk_groth16_pk_prepare(pk, NULL) == CZK_OK);
    czk_groth16_pk_queries q;
    czk_groth16_pk_sizes s;
    CHECK(czk_groth16_pk_get_queries(pk, &q) == CZK_OK);
    czk_groth16_pk_get_sizes(pk, &s);
    bad += !g1_is_mul(&vk.alpha_g1, alpha) + !g1_is_mul(&vk.beta_g1, beta) + !g2_is_mul(&vk.beta_g2, beta);
    bad += !g2_is_mul(&vk.gamma_g2, gamma) + !g1_is_mul(&vk.delta_g1, delta) + !g2_is_mul(&vk.delta_g2, delta);
    size_t ia = 0, ib = 0;
    for (size_t i = 0; i < nv; i++) { /* ic / l, a, b_g1, b_g2 */
      czk_fr k, u;
      czk_fr_mul(&k, beta, &X[i]);
      czk_fr_mul(&u, alpha, &X[nv + i]);
      czk_fr_add(&k, &k, &u);
      czk_fr_add(&k, &k, &X[2 * nv + i]);
      czk_fr_mul(&k, &k, i < ni ? &gi : &di);
      bad += !g1_is_mul(i < ni ? &vk.ic[i] : &q.l[i - ni], &k);
      if (i < ni || czk_density_get(sh->a_aux_density, i - ni)) bad += ia < s.n_a ? !g1_is_mul(&q.a[ia++], &X[i]) : 1;
      if (i < ni ? czk_density_get(sh->b_input_density, i) : czk_density_get(sh->b_aux_density, i - ni)) {
        bad += ib < s.n_b_g1 ? !g1_is_mul(&q.b_g1[ib], &X[nv + i]) + !g2_is_mul(&q.b_g2[ib], &X[nv + i]) : 1;
        ib++;
      }
    }
    CHECK_EQ_INT(ia, s.n_a);
    CHECK_EQ_INT(ib, s.n_b_g1);
    CHECK_EQ_INT(s.n_h, n - 1);
    czk_fr_mul(&t, &zt, &di);
    for (size_t i = 0; i + 1 < n; i++) { /* h_i = tau^i (tau^n - 1) / delta */
      bad += !g1_is_mul(&q.h[i], &t);
      czk_fr_mul(&t, &t, tau);
    }
    czk_groth16_pk_close(pk);
    czk_groth16_vk_free(&vk);
  }
  free(w), free(L), free(X);
  return bad;
}

static void test_setup_seeded(void) {
  const unsigned k = 5;
  czk_r1cs *sh;
  CHECK(czk_synthetic_shape(&sh, k) == CZK_OK);
  czk_test_rng rng;
  czk_test_rng_seed(&rng, 0x5e7u);
  czk_fr tw[5];
  for (int i = 0; i < 5; i++) {
    uint8_t b[64];
    czk_test_rng_bytes(&rng, b, sizeof b);
    czk_fr_from_bytes_wide_le(&tw[i], b, sizeof b);
  }
  czk_pool *p1 = NULL, *p3 = NULL;
  CHECK(czk_pool_new(&p1, 1) == CZK_OK && czk_pool_new(&p3, 3) == CZK_OK);
  CHECK(czk__groth16_setup_seeded(sh, g_params, g_vk, p1, tw) == CZK_OK);
  CHECK_EQ_INT(check_seeded_key(sh, tw, g_params, g_vk), 0);
  /* deterministic and independent of the thread count: byte-identical files */
  size_t len1 = 0, len3 = 0, vlen1 = 0, vlen3 = 0;
  uint8_t *f1 = slurp(g_params, &len1), *v1 = slurp(g_vk, &vlen1);
  CHECK(czk__groth16_setup_seeded(sh, g_params, g_vk, p3, tw) == CZK_OK);
  uint8_t *f3 = slurp(g_params, &len3), *v3 = slurp(g_vk, &vlen3);
  CHECK(f1 && f3 && len1 == len3 && memcmp(f1, f3, len1) == 0);
  CHECK(v1 && v3 && vlen1 == vlen3 && memcmp(v1, v3, vlen1) == 0);
  free(f1), free(f3), free(v1), free(v3);
  /* the key proves and verifies */
  czk_groth16_pk *pk = NULL;
  czk_groth16_vk vk;
  CHECK(czk_groth16_pk_open(&pk, g_params) == CZK_OK);
  CHECK(czk_groth16_vk_read(&vk, g_vk, false) == CZK_OK);
  if (pk) {
    czk_groth16_proof pr;
    czk_fr pub[16];
    size_t np = 0;
    CHECK(prove_seed(&pr, pk, sh, k, 3, pub, &np) == CZK_OK);
    CHECK(czk_groth16_verify(&vk, &pr, pub, np) == CZK_OK);
    czk_fr_add(&pub[0], &pub[0], &czk_fr_one_v);
    CHECK(czk_groth16_verify(&vk, &pr, pub, np) == CZK_ERR_VERIFY_FAILED);
    czk_groth16_pk_close(pk);
    czk_groth16_vk_free(&vk);
  }
  /* edge scalars through the batched path: delta = tau^n - 1 makes h_0 = 1 (G1), gamma = -(beta A_0 + alpha B_0 +
   * C_0) makes ic_0 = -1 (r - 1: -G1); alpha = 1, beta = r - 1 */
  czk_fr_set_one(&tw[1]);
  czk_fr_neg(&tw[2], &tw[1]);
  czk_fr zt;
  czk_fr_set_one(&zt);
  for (size_t j = 0; j < ((size_t)1 << k); j++) czk_fr_mul(&zt, &zt, &tw[0]);
  czk_fr_sub(&tw[4], &zt, &czk_fr_one_v);
  {
    /* A_0, B_0, C_0 of ONE: recomputed as in check_seeded_key, for column 0 only */
    const size_t n = (size_t)1 << k;
    czk_fr omega, wj, num, den, t, lj, x[3];
    CHECK(czk_fr_root_of_unity(&omega, k, CZK_ROOTS_BELLMAN) == CZK_OK);
    for (int q = 0; q < 3; q++) czk_fr_set_zero(&x[q]);
    czk_fr_set_one(&wj);
    const czk_csr *mats[3] = {&sh->a, &sh->b, &sh->c};
    for (size_t j = 0; j < n; j++) {
      czk_fr wm;
      czk_fr_set_one(&num);
      czk_fr_set_one(&den);
      czk_fr_set_one(&wm);
      for (size_t m = 0; m < n; m++) {
        if (m != j) {
          czk_fr_sub(&t, &tw[0], &wm);
          czk_fr_mul(&num, &num, &t);
          czk_fr_sub(&t, &wj, &wm);
          czk_fr_mul(&den, &den, &t);
        }
        czk_fr_mul(&wm, &wm, &omega);
      }
      czk_fr_inv(&den, &den);
      czk_fr_mul(&lj, &num, &den);
      for (int q = 0; q < 3; q++)
        if (j < sh->n_constraints)
          for (uint64_t e = mats[q]->row_ptr[j]; e < mats[q]->row_ptr[j + 1]; e++)
            if (mats[q]->col[e] == 0) {
              czk_fr_mul(&t, &mats[q]->val[e], &lj);
              czk_fr_add(&x[q], &x[q], &t);
            }
      czk_fr_mul(&wj, &wj, &omega);
    }
    czk_fr_mul(&t, &tw[2], &x[0]);
    czk_fr_mul(&num, &tw[1], &x[1]);
    czk_fr_add(&t, &t, &num);
    czk_fr_add(&t, &t, &x[2]);
    czk_fr_neg(&tw[3], &t);
    CHECK(!czk_fr_is_zero(&tw[3]));
  }
  CHECK(czk__groth16_setup_seeded(sh, g_params, g_vk, p3, tw) == CZK_OK);
  CHECK_EQ_INT(check_seeded_key(sh, tw, g_params, g_vk), 0);
  CHECK(czk_groth16_pk_open(&pk, g_params) == CZK_OK);
  if (pk) {
    czk_groth16_pk_queries q;
    czk_g1 g;
    czk_g1_affine ga, gn;
    czk_g1_generator(&g);
    czk_g1_to_affine(&ga, &g);
    czk_g1_affine_neg(&gn, &ga);
    CHECK(czk_groth16_pk_prepare(pk, NULL) == CZK_OK && czk_groth16_pk_get_queries(pk, &q) == CZK_OK);
    CHECK(czk_g1_affine_eq(&q.h[0], &ga));
    CHECK(czk_g1_affine_eq(&czk_groth16_pk_vk(pk)->ic[0], &gn));
    CHECK(czk_g1_affine_eq(&czk_groth16_pk_vk(pk)->alpha_g1, &ga));
    czk_groth16_proof pr;
    czk_fr pub[16];
    size_t np = 0;
    CHECK(prove_seed(&pr, pk, sh, k, 4, pub, &np) == CZK_OK);
    CHECK(czk_groth16_verify(czk_groth16_pk_vk(pk), &pr, pub, np) == CZK_OK);
    czk_groth16_pk_close(pk);
  }
  /* a tampered toxic waste gives other points: the check above can fail */
  czk_fr_add(&tw[0], &tw[0], &czk_fr_one_v);
  CHECK(check_seeded_key(sh, tw, g_params, g_vk) > 0);
  /* more points than one pool chunk (4096) and one curve batch (1024): h_i = tau^i (tau^n - 1) / delta sampled around
   * the chunk boundaries of a 2^13 key */
  {
    czk_r1cs *big;
    const unsigned kb = 13;
    CHECK(czk_synthetic_shape(&big, kb) == CZK_OK);
    CHECK(czk__groth16_setup_seeded(big, g_params, g_vk, p3, tw) == CZK_OK);
    CHECK(czk_groth16_pk_open(&pk, g_params) == CZK_OK);
    if (pk) {
      czk_groth16_pk_queries q;
      czk_groth16_pk_sizes s;
      CHECK(czk_groth16_pk_prepare(pk, p3) == CZK_OK && czk_groth16_pk_get_queries(pk, &q) == CZK_OK);
      czk_groth16_pk_get_sizes(pk, &s);
      CHECK_EQ_INT(s.n_h, ((size_t)1 << kb) - 1);
      czk_fr zb, di, c;
      czk_fr_set_one(&zb);
      for (size_t j = 0; j < ((size_t)1 << kb); j++) czk_fr_mul(&zb, &zb, &tw[0]);
      czk_fr_sub(&zb, &zb, &czk_fr_one_v);
      czk_fr_inv(&di, &tw[4]);
      czk_fr_mul(&c, &zb, &di);
      size_t bad = 0, checked = 0;
      for (size_t i = 0; i < s.n_h; i++) {
        bool probe = i % 331 == 0 || (i % 1024 >= 1022 || i % 1024 <= 1) || i + 2 >= s.n_h;
        if (probe) bad += !g1_is_mul(&q.h[i], &c), checked++;
        czk_fr_mul(&c, &c, &tw[0]);
      }
      CHECK_MSG(bad == 0, "%zu of %zu sampled h points differ", bad, checked);
      czk_groth16_pk_close(pk);
    }
    czk_r1cs_free(big);
  }
  /* an outline (no matrices) is refused */
  czk_r1cs *outline = NULL;
  CHECK(czk_r1cs_outline_new(&outline, 2, 3, 4) == CZK_OK);
  CHECK(czk__groth16_setup_seeded(outline, g_params, g_vk, p1, tw) == CZK_ERR_STATE);
  CHECK(czk_groth16_setup(outline, g_params, g_vk, p1) == CZK_ERR_STATE);
  czk_r1cs_free(outline);
  explicit_bzero(tw, sizeof tw);
  czk_pool_free(p1);
  czk_pool_free(p3);
  czk_r1cs_free(sh);
}

/* open + prepare of a damaged .params: never crashes; returns the first failure. */
static czk_status open_prepare(const uint8_t *b, size_t len) {
  spit(g_tmp, b, len);
  czk_groth16_pk *pk = NULL;
  czk_status st = czk_groth16_pk_open(&pk, g_tmp);
  CHECK((st == CZK_OK) == (pk != NULL));
  if (st == CZK_OK) st = czk_groth16_pk_prepare(pk, NULL);
  czk_groth16_pk_close(pk);
  return st;
}

/* An outline walked into the QAP accumulator gives the same key as the recorded shape (same toxic waste), and the
 * in-memory key proves and verifies; a walk whose counts differ from the outline is refused. */
static czk_status synth_k(void *ctx, czk_cs *cs) { return czk_synthetic_synthesize(cs, *(const unsigned *)ctx, 0); }

static bool keys_equal(const czk_groth16_key_mem *x, const czk_groth16_key_mem *y) {
  if (memcmp(&x->s, &y->s, sizeof x->s) != 0 || x->vk.n_ic != y->vk.n_ic) return false;
  size_t vl = czk_groth16_vk_size(&x->vk);
  uint8_t *vx = malloc(vl), *vy = malloc(vl);
  bool eq = vx && vy && vl == czk_groth16_vk_size(&y->vk);
  if (eq) {
    czk_groth16_vk_encode(vx, &x->vk), czk_groth16_vk_encode(vy, &y->vk);
    eq = memcmp(vx, vy, vl) == 0;
  }
  free(vx), free(vy);
  eq = eq && memcmp(x->h, y->h, x->s.n_h * sizeof *x->h) == 0 && memcmp(x->l, y->l, x->s.n_l * sizeof *x->l) == 0 &&
       memcmp(x->a, y->a, x->s.n_a * sizeof *x->a) == 0 &&
       memcmp(x->b_g1, y->b_g1, x->s.n_b_g1 * sizeof *x->b_g1) == 0 &&
       memcmp(x->b_g2, y->b_g2, x->s.n_b_g2 * sizeof *x->b_g2) == 0;
  return eq;
}

static void test_setup_outline(void) {
  unsigned k = 7;
  czk_r1cs *sh = NULL, *ol = NULL;
  CHECK(czk_synthetic_shape(&sh, k) == CZK_OK);
  czk_cs *cs;
  CHECK(czk_cs_counter_new(&cs) == CZK_OK);
  CHECK(czk_synthetic_synthesize(cs, k, 0) == CZK_OK);
  CHECK(czk_cs_counter_finish(cs, &ol) == CZK_OK);
  if (!sh || !ol) return;
  czk_fr tw[5];
  for (int i = 0; i < 5; i++) czk_fr_from_u64(&tw[i], 1000003u * (uint64_t)(i + 7) + 11);
  czk_groth16_setup_opts o = {NULL, NULL, synth_k, &k, tw};
  czk_groth16_key_mem k1, k2;
  CHECK(czk_groth16_setup_mem(&k1, sh, &o) == CZK_OK);
  CHECK(czk_groth16_setup_mem(&k2, ol, &o) == CZK_OK);
  CHECK(keys_equal(&k1, &k2));
  /* the in-memory key proves and verifies */
  czk_groth16_pk_queries q;
  czk_groth16_key_mem_queries(&k2, &q);
  czk_groth16_key *key = NULL;
  CHECK(czk_groth16_key_from_queries(&key, &k2.vk, &q, &k2.s, sh) == CZK_OK);
  czk_witness w;
  CHECK(czk_synthetic_witness(&w, k, 5) == CZK_OK);
  czk_fr pub[16];
  size_t np = w.n_inputs - 1;
  memcpy(pub, w.w + 1, np * sizeof *pub);
  czk_groth16_proof pr;
  CHECK(czk_groth16_prove(&pr, NULL, key, sh, &w, NULL) == CZK_OK);
  CHECK(czk_groth16_verify(&k2.vk, &pr, pub, np) == CZK_OK);
  czk_groth16_key_free(key);
  czk_groth16_key_mem_free(&k1);
  czk_groth16_key_mem_free(&k2);
  /* the walk must match the outline: another size is refused */
  unsigned k6 = 6;
  o.synth_ctx = &k6;
  CHECK(czk_groth16_setup_mem(&k1, ol, &o) != CZK_OK);
  o.synth = NULL; /* an outline needs its walk */
  CHECK(czk_groth16_setup_mem(&k1, ol, &o) == CZK_ERR_STATE);
  czk_r1cs_free(sh);
  czk_r1cs_free(ol);
}

static void test_damaged_files(void) {
  czk_r1cs *sh;
  CHECK(czk_synthetic_shape(&sh, 5) == CZK_OK);
  CHECK(czk_groth16_setup(sh, g_params, g_vk, NULL) == CZK_OK);
  size_t len = 0, vlen = 0;
  uint8_t *b = slurp(g_params, &len), *v = slurp(g_vk, &vlen);
  CHECK(b && v);
  if (!b || !v) return;
  CHECK(open_prepare(b, len) == CZK_OK);
  /* section boundaries: vk points, ic count, ic, then each query's count and points */
  size_t bounds[32], nb = 0;
  size_t off[] = {0, 96, 192, 384, 576, 672, 864};
  for (size_t i = 0; i < CZK_ARRAY_LEN(off); i++) bounds[nb++] = off[i];
  size_t pos = 864;
  size_t n_ic = czk__be32(b + pos);
  pos += 4;
  bounds[nb++] = pos;
  pos += n_ic * 96;
  for (int q = 0; q < 5; q++) {
    bounds[nb++] = pos;
    size_t n = czk__be32(b + pos);
    pos += 4;
    bounds[nb++] = pos;
    pos += n * (q == 4 ? 192 : 96);
  }
  CHECK_EQ_INT(pos, len);
  for (size_t i = 0; i < nb; i++) {
    size_t cuts[3] = {bounds[i], bounds[i] + 1, bounds[i] ? bounds[i] - 1 : 0};
    for (int c = 0; c < 3; c++) {
      if (cuts[c] >= len) continue;
      czk_status st = open_prepare(b, cuts[c]);
      CHECK_MSG(st == CZK_ERR_TRUNCATED, "cut at %zu: %s", cuts[c], czk_status_name(st));
    }
  }
  /* trailing bytes */
  uint8_t *big = calloc(len + 7, 1);
  memcpy(big, b, len);
  CHECK(open_prepare(big, len + 7) == CZK_ERR_FORMAT);
  free(big);
  /* flipped bytes: any single flip anywhere is rejected (points off the curve, bad flags, bad counts) */
  uint8_t *cp = malloc(len);
  czk_test_rng rng;
  czk_test_rng_seed(&rng, 9);
  for (int i = 0; i < 300; i++) {
    memcpy(cp, b, len);
    size_t at = i < (int)nb ? bounds[i] + 5 : czk_test_rng_next(&rng) % len;
    if (at >= len) at = len - 1;
    cp[at] ^= (uint8_t)(1u << (czk_test_rng_next(&rng) % 8));
    czk_status st = open_prepare(cp, len);
    CHECK_MSG(st != CZK_OK, "flip at %zu accepted", at);
  }
  /* specific statuses: a vk point off the curve, an inflated count */
  memcpy(cp, b, len);
  cp[95] ^= 1; /* alpha_g1 y */
  CHECK(open_prepare(cp, len) == CZK_ERR_NOT_ON_CURVE);
  memcpy(cp, b, len);
  cp[864] ^= 0x10; /* ic count high byte */
  CHECK(open_prepare(cp, len) == CZK_ERR_TRUNCATED);
  free(cp);
  /* .vk: exact, truncated, trailing */
  czk_groth16_vk vk;
  CHECK(czk_groth16_vk_read(&vk, g_vk, false) == CZK_OK);
  czk_groth16_vk_free(&vk);
  for (size_t cut = 0; cut < vlen; cut += 97) {
    spit(g_tmp, v, cut);
    CHECK(czk_groth16_vk_read(&vk, g_tmp, false) == CZK_ERR_TRUNCATED);
  }
  CHECK(czk_groth16_vk_read(&vk, g_params, false) == CZK_ERR_FORMAT);
  CHECK(czk_groth16_vk_read(&vk, g_params, true) == CZK_OK);
  czk_groth16_vk_free(&vk);
  CHECK(czk_groth16_vk_read(&vk, "/nonexistent.vk", false) == CZK_ERR_NOT_FOUND);
  free(b);
  free(v);
  czk_r1cs_free(sh);
}

int main(void) {
  int pid = (int)getpid();
  snprintf(g_params, sizeof g_params, "/tmp/czk_t16_%d.params", pid);
  snprintf(g_vk, sizeof g_vk, "/tmp/czk_t16_%d.vk", pid);
  snprintf(g_tmp, sizeof g_tmp, "/tmp/czk_t16_%d.tmp", pid);
  for (unsigned k = 4; k <= 10; k += 3) test_roundtrip(k);
  test_setup_seeded();
  test_setup_outline();
  test_damaged_files();
  remove(g_params);
  remove(g_vk);
  remove(g_tmp);
  return czk_test_done("test_groth16");
}
