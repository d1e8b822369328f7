/* test_field.c: the extension tower (Fp2, Fp6, Fp12) by algebraic identities, and the Fr roots of unity.
 *
 * Fp2/Fp6/Fp12 multiplications are compared with schoolbook products written here from the defining relations
 * (u^2 = -1, v^3 = u + 1, w^2 = v), so Karatsuba/complex-squaring shortcuts are checked independently; then
 * commutativity, associativity, distributivity, sqr = mul(a, a), a * a^-1 = 1, Frobenius = exponentiation by p,
 * conj = Frobenius^6, cyclotomic squaring = squaring on f^((p^6-1)(p^2+1)), the compressed (Karabina) cyclotomic
 * exponentiation = plain exponentiation, Fp2 sqrt/legendre, and exact orders
 * of the 2-adic roots of unity (with the published bellman/snarkjs generators). Deterministic (seeded). */
#include <stdlib.h>
#include <string.h>

#include "czk/field.h"
#include "czk_test.h"
#include "field/field_internal.h"

static czk_test_rng g_rng;

static czk_fp rand_fp(void) {
  uint8_t b[64];
  czk_test_rng_bytes(&g_rng, b, sizeof b);
  czk_fp r;
  czk_fp_from_bytes_wide_le(&r, b, sizeof b);
  /* sometimes the Montgomery limbs are p-1 or p-2 (the largest representable values): they stress the carries
   * and bounds of the lazily reduced (wide) tower arithmetic */
  unsigned k = (unsigned)(czk_test_rng_next(&g_rng) % 8);
  if (k < 2) {
    memcpy(r.l, czk_fp_modulus, sizeof r.l);
    r.l[0] -= 1 + k; /* p = ...aaab: no borrow */
  }
  return r;
}
static czk_fp2 rand_fp2(void) {
  czk_fp2 r;
  r.c0 = rand_fp();
  r.c1 = rand_fp();
  /* sometimes a component is 0 or 1 */
  unsigned k = (unsigned)(czk_test_rng_next(&g_rng) % 8);
  if (k == 0) czk_fp_set_zero(&r.c0);
  if (k == 1) czk_fp_set_zero(&r.c1);
  if (k == 2) czk_fp_set_one(&r.c0);
  return r;
}
static czk_fp6 rand_fp6(void) {
  czk_fp6 r;
  r.c0 = rand_fp2();
  r.c1 = rand_fp2();
  r.c2 = rand_fp2();
  return r;
}
static czk_fp12 rand_fp12(void) {
  czk_fp12 r;
  r.c0 = rand_fp6();
  r.c1 = rand_fp6();
  return r;
}

/* ---------------------------------------------------------------- schoolbook references */
static void fp2_mul_ref(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
  czk_fp t0, t1, t2, t3;
  czk_fp_mul(&t0, &a->c0, &b->c0);
  czk_fp_mul(&t1, &a->c1, &b->c1);
  czk_fp_mul(&t2, &a->c0, &b->c1);
  czk_fp_mul(&t3, &a->c1, &b->c0);
  czk_fp_sub(&r->c0, &t0, &t1);
  czk_fp_add(&r->c1, &t2, &t3);
}
static void fp6_mul_ref(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b) {
  const czk_fp2 *x[3] = {&a->c0, &a->c1, &a->c2}, *y[3] = {&b->c0, &b->c1, &b->c2};
  czk_fp2 acc[5], t, xi;
  for (int i = 0; i < 5; i++)
    czk_fp2_set_zero(&acc[i]);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      fp2_mul_ref(&t, x[i], y[j]);
      czk_fp2_add(&acc[i + j], &acc[i + j], &t);
    }
  czk_fp_set_one(&xi.c0);
  czk_fp_set_one(&xi.c1); /* v^3 = xi = 1 + u */
  fp2_mul_ref(&t, &acc[3], &xi);
  czk_fp2_add(&r->c0, &acc[0], &t);
  fp2_mul_ref(&t, &acc[4], &xi);
  czk_fp2_add(&r->c1, &acc[1], &t);
  r->c2 = acc[2];
}
static void fp6_mul_v_ref(czk_fp6 *r, const czk_fp6 *a) {
  czk_fp6 v;
  czk_fp6_set_zero(&v);
  czk_fp_set_one(&v.c1.c0);
  fp6_mul_ref(r, a, &v);
}
static void fp12_mul_ref(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b) {
  czk_fp6 t0, t1, t2, t3;
  fp6_mul_ref(&t0, &a->c0, &b->c0);
  fp6_mul_ref(&t1, &a->c1, &b->c1);
  fp6_mul_ref(&t2, &a->c0, &b->c1);
  fp6_mul_ref(&t3, &a->c1, &b->c0);
  fp6_mul_v_ref(&t1, &t1); /* w^2 = v */
  czk_fp6_add(&r->c0, &t0, &t1);
  czk_fp6_add(&r->c1, &t2, &t3);
}

static void test_fp2(int iters) {
  for (int it = 0; it < iters; it++) {
    czk_fp2 a = rand_fp2(), b = rand_fp2(), c = rand_fp2(), r, s, t;
    czk_fp2_mul(&r, &a, &b);
    fp2_mul_ref(&s, &a, &b);
    CHECK(czk_fp2_eq(&r, &s));
    czk_fp2_mul(&t, &b, &a);
    CHECK(czk_fp2_eq(&r, &t));
    czk_fp2_sqr(&r, &a);
    fp2_mul_ref(&s, &a, &a);
    CHECK(czk_fp2_eq(&r, &s));
    /* distributivity */
    czk_fp2_add(&t, &b, &c);
    czk_fp2_mul(&r, &a, &t);
    czk_fp2_mul(&s, &a, &b);
    czk_fp2_mul(&t, &a, &c);
    czk_fp2_add(&s, &s, &t);
    CHECK(czk_fp2_eq(&r, &s));
    /* add/sub/neg/dbl */
    czk_fp2_sub(&r, &a, &b);
    czk_fp2_add(&r, &r, &b);
    CHECK(czk_fp2_eq(&r, &a));
    czk_fp2_neg(&r, &a);
    czk_fp2_add(&r, &r, &a);
    CHECK(czk_fp2_is_zero(&r));
    czk_fp2_dbl(&r, &a);
    czk_fp2_add(&s, &a, &a);
    CHECK(czk_fp2_eq(&r, &s));
    /* mul_fp, mul_by_nonresidue */
    czk_fp2 bf = {b.c0, czk_fp_zero_v};
    czk_fp2_mul_fp(&r, &a, &b.c0);
    czk_fp2_mul(&s, &a, &bf);
    CHECK(czk_fp2_eq(&r, &s));
    czk_fp2 xi = {czk_fp_one_v, czk_fp_one_v};
    czk_fp2_mul_by_nonresidue(&r, &a);
    czk_fp2_mul(&s, &a, &xi);
    CHECK(czk_fp2_eq(&r, &s));
    /* inverses */
    czk_fp2_inv(&r, &a);
    czk_fp2_inv_vartime(&s, &a);
    CHECK(czk_fp2_eq(&r, &s));
    czk_fp2_mul(&t, &r, &a);
    CHECK(czk_fp2_is_zero(&a) ? czk_fp2_is_zero(&r) : czk_fp2_is_one(&t));
    /* Frobenius: conj = a^p */
    if (it < 4) {
      czk_fp2_conj(&r, &a);
      czk_fp2_pow_vartime(&s, &a, czk_fp_modulus, 6);
      CHECK(czk_fp2_eq(&r, &s));
    }
    /* sqrt and legendre */
    int leg = czk_fp2_legendre(&a);
    bool ok = czk_fp2_sqrt(&r, &a);
    CHECK(ok == (leg >= 0));
    CHECK((leg == 0) == czk_fp2_is_zero(&a));
    if (ok) {
      czk_fp2_sqr(&s, &r);
      CHECK(czk_fp2_eq(&s, &a));
    }
    czk_fp2_sqr(&s, &b);
    CHECK(czk_fp2_sqrt(&r, &s));
    czk_fp2_sqr(&t, &r);
    CHECK(czk_fp2_eq(&t, &s));
    CHECK(czk_fp2_legendre(&s) >= 0);
    /* lexicographic: exactly one of a, -a is largest when a != 0 */
    czk_fp2_neg(&r, &a);
    if (!czk_fp2_is_zero(&a))
      CHECK(czk_fp2_is_lexicographically_largest(&a) != czk_fp2_is_lexicographically_largest(&r));
    /* cmov */
    czk_fp2_cmov(&r, &a, &b, true);
    CHECK(czk_fp2_eq(&r, &b));
    czk_fp2_cmov(&r, &a, &b, false);
    CHECK(czk_fp2_eq(&r, &a));
  }
  /* both sqrt branches: alpha = -1 happens for a = u^2-type elements, e.g. a = -1 (sqrt = u) and a in Fp */
  czk_fp2 m1, r, s;
  czk_fp2_set_one(&m1);
  czk_fp2_neg(&m1, &m1);
  CHECK(czk_fp2_sqrt(&r, &m1));
  czk_fp2_sqr(&s, &r);
  CHECK(czk_fp2_eq(&s, &m1));
  for (int k = 2; k < 40; k++) { /* every element of Fp is a square in Fp2 */
    czk_fp2 e = {czk_fp_zero_v, czk_fp_zero_v};
    czk_fp_from_u64(&e.c0, (uint64_t)k);
    if (k & 1) czk_fp_neg(&e.c0, &e.c0);
    CHECK(czk_fp2_sqrt(&r, &e));
    czk_fp2_sqr(&s, &r);
    CHECK(czk_fp2_eq(&s, &e));
  }
  /* non-squares exist and are rejected: u + 2 style scan */
  int nonsq = 0;
  for (int k = 1; k < 20; k++) {
    czk_fp2 e;
    czk_fp_from_u64(&e.c0, (uint64_t)k);
    czk_fp_set_one(&e.c1);
    if (czk_fp2_legendre(&e) < 0) {
      nonsq++;
      CHECK(!czk_fp2_sqrt(&r, &e));
    }
  }
  CHECK(nonsq > 0);
  /* batch inversion with zeros, in place */
  czk_fp2 in[9], out[9];
  for (int i = 0; i < 9; i++)
    in[i] = rand_fp2();
  czk_fp2_set_zero(&in[4]);
  CHECK(czk_fp2_batch_inv(out, in, 9, NULL) == CZK_OK);
  for (int i = 0; i < 9; i++) {
    czk_fp2_inv(&r, &in[i]);
    CHECK(czk_fp2_eq(&r, &out[i]));
  }
  czk_fp2 scratch[9];
  CHECK(czk_fp2_batch_inv(in, in, 9, scratch) == CZK_OK);
  CHECK(memcmp(in, out, sizeof in) == 0);
}

static void test_fp6(int iters) {
  for (int it = 0; it < iters; it++) {
    czk_fp6 a = rand_fp6(), b = rand_fp6(), c = rand_fp6(), r, s, t;
    czk_fp6_mul(&r, &a, &b);
    fp6_mul_ref(&s, &a, &b);
    CHECK(czk_fp6_eq(&r, &s));
    czk_fp6_sqr(&r, &a);
    fp6_mul_ref(&s, &a, &a);
    CHECK(czk_fp6_eq(&r, &s));
    czk_fp6_mul_by_nonresidue(&r, &a);
    fp6_mul_v_ref(&s, &a);
    CHECK(czk_fp6_eq(&r, &s));
    czk_fp6_add(&t, &b, &c);
    czk_fp6_mul(&r, &a, &t);
    czk_fp6_mul(&s, &a, &b);
    czk_fp6_mul(&t, &a, &c);
    czk_fp6_add(&s, &s, &t);
    CHECK(czk_fp6_eq(&r, &s));
    czk_fp6_sub(&r, &a, &b);
    czk_fp6_add(&r, &r, &b);
    CHECK(czk_fp6_eq(&r, &a));
    czk_fp6_neg(&r, &a);
    czk_fp6_add(&r, &r, &a);
    CHECK(czk_fp6_is_zero(&r));
    czk_fp6_inv(&r, &a);
    czk_fp6_mul(&s, &r, &a);
    czk_fp6_set_one(&t);
    CHECK(czk_fp6_eq(&s, &t));
    /* Frobenius: frob(1) is a ring homomorphism fixing Fp, frob(k) = frob(1)^k, frob(6) = id */
    czk_fp6_frobenius(&r, &a, 1);
    czk_fp6_frobenius(&s, &b, 1);
    czk_fp6_mul(&r, &r, &s);
    czk_fp6_mul(&t, &a, &b);
    czk_fp6_frobenius(&t, &t, 1);
    CHECK(czk_fp6_eq(&r, &t));
    s = a;
    for (unsigned k = 1; k <= 6; k++) {
      czk_fp6_frobenius(&s, &s, 1);
      czk_fp6_frobenius(&r, &a, k);
      CHECK_MSG(czk_fp6_eq(&r, &s), "fp6 frobenius %u", k);
    }
    CHECK(czk_fp6_eq(&s, &a));
  }
}

static void test_fp12(int iters) {
  czk_fp12 one;
  czk_fp12_set_one(&one);
  for (int it = 0; it < iters; it++) {
    czk_fp12 a = rand_fp12(), b = rand_fp12(), c = rand_fp12(), r, s, t;
    czk_fp12_mul(&r, &a, &b);
    fp12_mul_ref(&s, &a, &b);
    CHECK(czk_fp12_eq(&r, &s));
    czk_fp12_mul(&t, &b, &a);
    CHECK(czk_fp12_eq(&r, &t));
    czk_fp12_mul(&r, &r, &c); /* associativity */
    czk_fp12_mul(&s, &b, &c);
    czk_fp12_mul(&s, &a, &s);
    CHECK(czk_fp12_eq(&r, &s));
    czk_fp12_add(&t, &b, &c); /* distributivity */
    czk_fp12_mul(&r, &a, &t);
    czk_fp12_mul(&s, &a, &b);
    czk_fp12_mul(&t, &a, &c);
    czk_fp12_add(&s, &s, &t);
    CHECK(czk_fp12_eq(&r, &s));
    czk_fp12_sub(&r, &s, &t);
    czk_fp12_mul(&t, &a, &b);
    CHECK(czk_fp12_eq(&r, &t));
    czk_fp12_sqr(&r, &a);
    fp12_mul_ref(&s, &a, &a);
    CHECK(czk_fp12_eq(&r, &s));
    r = a;
    czk_fp12_sqr(&r, &r); /* aliasing */
    CHECK(czk_fp12_eq(&r, &s));
    czk_fp12_inv(&r, &a);
    czk_fp12_mul(&s, &r, &a);
    CHECK(czk_fp12_is_one(&s));
    /* Frobenius powers: frob(1) = a^p (on a few elements: the pow is slow), frob(k) = frob(1)^k, frob(6) = conj */
    if (it < 2) {
      czk_fp12_frobenius(&r, &a, 1);
      czk_fp12_pow_vartime(&s, &a, czk_fp_modulus, 6);
      CHECK(czk_fp12_eq(&r, &s));
    }
    s = a;
    for (unsigned k = 1; k <= 11; k++) {
      czk_fp12_frobenius(&s, &s, 1);
      czk_fp12_frobenius(&r, &a, k);
      CHECK_MSG(czk_fp12_eq(&r, &s), "fp12 frobenius %u", k);
    }
    czk_fp12_frobenius(&s, &s, 1);
    CHECK(czk_fp12_eq(&s, &a)); /* p^12 */
    czk_fp12_frobenius(&r, &a, 6);
    czk_fp12_conj(&s, &a);
    CHECK(czk_fp12_eq(&r, &s));
    /* cyclotomic subgroup element f = a^((p^6-1)(p^2+1)) */
    czk_fp12 f;
    czk_fp12_inv(&t, &a);
    czk_fp12_conj(&f, &a);
    czk_fp12_mul(&f, &f, &t);
    czk_fp12_frobenius(&t, &f, 2);
    czk_fp12_mul(&f, &t, &f);
    czk_fp12_conj(&t, &f); /* conj = inverse in the cyclotomic subgroup */
    czk_fp12_mul(&t, &t, &f);
    CHECK(czk_fp12_is_one(&t));
    for (int k = 0; k < 3; k++) {
      czk_fp12_cyclotomic_sqr(&r, &f);
      czk_fp12_sqr(&s, &f);
      CHECK(czk_fp12_eq(&r, &s));
      f = r;
    }
    /* compressed (Karabina) cyclotomic exponentiation = plain exponentiation, for |x| of BLS12-381, random 64-bit
     * exponents (odd and even), 1, 0 and 2^64 - 1; and on the identity (compressed form all zero) */
    {
      uint64_t es[6] = {0xd201000000010000ULL, czk_test_rng_next(&g_rng), czk_test_rng_next(&g_rng) | 1, 1, 0,
                        ~(uint64_t)0 /* 64 powers: several decompression batches */};
      for (int k = 0; k < 6; k++) {
        CHECK(czk_fp12_cyclotomic_pow_u64(&r, &f, es[k]));
        czk_fp12_pow_vartime(&s, &f, &es[k], 1);
        CHECK_MSG(czk_fp12_eq(&r, &s), "cyclotomic_pow_u64 e=%016llx", (unsigned long long)es[k]);
      }
      czk_fp12 one12;
      czk_fp12_set_one(&one12);
      CHECK(czk_fp12_cyclotomic_pow_u64(&r, &one12, es[1]));
      CHECK(czk_fp12_is_one(&r));
      /* z2 = 0 with z3 != 0 cannot be decompressed: reported, not silently wrong */
      czk_fp12 bad = f;
      czk_fp2_set_zero(&bad.c1.c0);
      uint64_t odd = 3;
      CHECK(!czk_fp12_cyclotomic_pow_u64(&r, &bad, odd));
    }
    /* pow_vartime: a^(e1 + e2) = a^e1 a^e2 and a^0 = 1 */
    uint64_t e1 = czk_test_rng_next(&g_rng) >> 40, e2 = czk_test_rng_next(&g_rng) >> 40, e12 = e1 + e2;
    czk_fp12_pow_vartime(&r, &a, &e1, 1);
    czk_fp12_pow_vartime(&s, &a, &e2, 1);
    czk_fp12_mul(&r, &r, &s);
    czk_fp12_pow_vartime(&s, &a, &e12, 1);
    CHECK(czk_fp12_eq(&r, &s));
    uint64_t zero = 0;
    czk_fp12_pow_vartime(&r, &a, &zero, 1);
    CHECK(czk_fp12_is_one(&r));
  }
  CHECK(czk_fp12_is_one(&one));
  czk_fp12 t = one;
  czk_fp_set_zero(&t.c0.c0.c0);
  CHECK(!czk_fp12_is_one(&t));
}

static void test_roots(void) {
  static const char *const want[2] = {"0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b",
                                      "0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"};
  czk_fr m1;
  czk_fr_set_one(&m1);
  czk_fr_neg(&m1, &m1);
  for (int kind = 0; kind < 2; kind++) {
    czk_fr w, x, prev;
    CHECK(czk_fr_root_of_unity(&w, 32, (czk_fr_roots)kind) == CZK_OK);
    czk_fr ref;
    CHECK(czk_fr_from_str(&ref, want[kind]) == CZK_OK);
    CHECK(czk_fr_eq(&w, &ref));
    for (unsigned k = 0; k <= 32; k++) {
      CHECK(czk_fr_root_of_unity(&w, k, (czk_fr_roots)kind) == CZK_OK);
      x = w;
      for (unsigned j = 0; j + 1 < k; j++)
        czk_fr_sqr(&x, &x);
      /* x = w^(2^(k-1)) must be -1 (exact order 2^k); for k = 0 w = 1 */
      if (k == 0)
        CHECK(czk_fr_is_one(&w));
      else
        CHECK_MSG(czk_fr_eq(&x, &m1), "root of unity 2^%u kind %d", k, kind);
      if (k > 0) {
        czk_fr_sqr(&x, &w);
        CHECK(czk_fr_eq(&x, &prev)); /* omega_{2^(k-1)} = omega_{2^k}^2 */
      }
      prev = w;
    }
    CHECK(czk_fr_root_of_unity(&w, 33, (czk_fr_roots)kind) == CZK_ERR_INVALID_ARG);
  }
  czk_fr w;
  CHECK(czk_fr_root_of_unity(&w, 4, (czk_fr_roots)7) == CZK_ERR_INVALID_ARG);
  /* the two conventions give the same subgroup: the bellman 2^32-th root is an odd power of the snarkjs one,
   * checked for the 2^8 subgroup exhaustively */
  czk_fr wb, ws, acc;
  czk_fr_root_of_unity(&wb, 8, CZK_ROOTS_BELLMAN);
  czk_fr_root_of_unity(&ws, 8, CZK_ROOTS_SNARKJS);
  czk_fr_set_one(&acc);
  int found = 0;
  for (int i = 0; i < 256; i++) {
    if (czk_fr_eq(&acc, &wb)) found++;
    czk_fr_mul(&acc, &acc, &ws);
  }
  CHECK(found == 1);
  /* coset generator 7: a non-residue */
  czk_fr g, seven;
  czk_fr_coset_generator(&g);
  czk_fr_from_u64(&seven, 7);
  CHECK(czk_fr_eq(&g, &seven));
  CHECK(czk_fr_legendre(&g) == -1);
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 200;
  czk_test_rng_seed(&g_rng, 0xf1e1d);
  test_fp2(iters);
  test_fp6(iters);
  test_fp12(iters / 4 + 1);
  test_roots();
  return czk_test_done("test_field");
}
