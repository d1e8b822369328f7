/* fp12.c: the tower Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1, and Fp12 = Fp6[w]/(w^2 - v) (the BLS12-381 tower of
 * zcash/blst/bellman). M2, S2 = Fp2 multiplication, squaring; M6, S6 = Fp6 ones.
 *
 * Fp6 (a = a0 + a1 v + a2 v^2):
 *   mul (Karatsuba, 6 M2): t_i = a_i b_i;  c0 = t0 + xi((a1+a2)(b1+b2) - t1 - t2);
 *                          c1 = (a0+a1)(b0+b1) - t0 - t1 + xi t2;  c2 = (a0+a2)(b0+b2) - t0 - t2 + t1
 *   sqr (Chung-Hasan SQR2, 2 M2 + 3 S2): s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2;
 *                          c0 = s0 + xi s3,  c1 = s1 + xi s4,  c2 = s1 + s2 + s3 - s0 - s4
 *   inv: A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1, C = a1^2 - a0 a2, F = a0 A + xi(a2 B + a1 C); a^-1 = (A,B,C)/F
 *   Frobenius^k: (conj^k(a0), conj^k(a1) g1[k], conj^k(a2) g2[k]) with g1[k] = xi^((p^k-1)/3), g2[k] = g1[k]^2.
 * Fp12 (a = a0 + a1 w):
 *   mul (Karatsuba, 3 M6): t0 = a0 b0, t1 = a1 b1;  c0 = t0 + v t1;  c1 = (a0+a1)(b0+b1) - t0 - t1
 *   sqr (complex, 2 M6):   m = a0 a1;  c0 = (a0 + a1)(a0 + v a1) - m - v m;  c1 = 2m
 *   inv: (a0 - a1 w) / (a0^2 - v a1^2);   conj: a0 - a1 w (= a^(p^6))
 *   Frobenius^k (k = 0..11, every power exact): (frob6^k(a0), frob6^k(a1) * gw[k]) with gw[k] = xi^((p^k-1)/6).
 *   cyclotomic squaring (Granger-Scott 2010, for a^(p^6+1) = 1): Fp12 seen as Fp4^3 over the pairs
 *   (a0.c0, a1.c1), (a1.c0, a0.c2), (a0.c1, a1.c2); each pair squared in Fp4 = Fp2[s]/(s^2 - xi) with 3 S2,
 *   then z = 3 t -+ 2 z combinations: 9 S2 in all.
 * On the mulx/adx path Fp6 mul keeps its 18 Fp products wide (12 limbs, < p*2^384) through the Karatsuba sums and
 * reduces once per output coefficient (6 reductions, in interleaved pairs), which Fp12 mul/sqr/inv inherit. */
#include <string.h>

#include "czk/field.h"
#include "field/constants.h"
#include "field/field_internal.h"
#include "field/fp2_inline.h"

static const czk_fp2 k_frob6_c1[6] = CZK__FP6_FROB_C1;
static const czk_fp2 k_frob6_c2[6] = CZK__FP6_FROB_C2;
static const czk_fp2 k_frob12_c1[12] = CZK__FP12_FROB_C1;

/* ------------------------------------------------------------------ Fp6 */

void czk_fp6_set_zero(czk_fp6 *r) { memset(r, 0, sizeof *r); }
void czk_fp6_set_one(czk_fp6 *r) {
  memset(r, 0, sizeof *r);
  czk_fp2_set_one(&r->c0);
}
void czk_fp6_add(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b) {
  fp2i_add(&r->c0, &a->c0, &b->c0);
  fp2i_add(&r->c1, &a->c1, &b->c1);
  fp2i_add(&r->c2, &a->c2, &b->c2);
}
void czk_fp6_sub(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b) {
  fp2i_sub(&r->c0, &a->c0, &b->c0);
  fp2i_sub(&r->c1, &a->c1, &b->c1);
  fp2i_sub(&r->c2, &a->c2, &b->c2);
}
void czk_fp6_neg(czk_fp6 *r, const czk_fp6 *a) {
  fp2i_neg(&r->c0, &a->c0);
  fp2i_neg(&r->c1, &a->c1);
  fp2i_neg(&r->c2, &a->c2);
}

#if CZK__FIELD_ASM
/* Lazily reduced Fp6 multiplication (mulx path): the same Karatsuba with every Fp2 product kept wide (fp2w_mul)
 * and the sums formed on wide values; one reduction per output coefficient: 18 wide products + 6 reductions instead
 * of 18 full Fp2 multiplications (54 products + 36 reductions). */
static void fp6_mul_adx(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b) {
  czk__fp2w t0, t1, t2, s, u;
  czk_fp2 x, y, c0, c1;
  fp2w_mul(&t0, &a->c0, &b->c0);
  fp2w_mul(&t1, &a->c1, &b->c1);
  fp2w_mul(&t2, &a->c2, &b->c2);
  /* c0 = t0 + xi((a1+a2)(b1+b2) - t1 - t2) */
  fp2i_add(&x, &a->c1, &a->c2);
  fp2i_add(&y, &b->c1, &b->c2);
  fp2w_mul(&s, &x, &y);
  fp2w_sub(&s, &s, &t1);
  fp2w_sub(&s, &s, &t2);
  fp2w_mul_nr(&s, &s);
  fp2w_add(&s, &s, &t0);
  fp2w_redc(&c0, &s);
  /* c1 = (a0+a1)(b0+b1) - t0 - t1 + xi t2 */
  fp2i_add(&x, &a->c0, &a->c1);
  fp2i_add(&y, &b->c0, &b->c1);
  fp2w_mul(&s, &x, &y);
  fp2w_sub(&s, &s, &t0);
  fp2w_sub(&s, &s, &t1);
  fp2w_mul_nr(&u, &t2);
  fp2w_add(&s, &s, &u);
  fp2w_redc(&c1, &s);
  /* c2 = (a0+a2)(b0+b2) - t0 - t2 + t1 */
  fp2i_add(&x, &a->c0, &a->c2);
  fp2i_add(&y, &b->c0, &b->c2);
  fp2w_mul(&s, &x, &y);
  fp2w_sub(&s, &s, &t0);
  fp2w_sub(&s, &s, &t2);
  fp2w_add(&s, &s, &t1);
  fp2w_redc(&r->c2, &s);
  r->c0 = c0;
  r->c1 = c1;
}
#endif

void czk_fp6_mul(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b) {
#if CZK__FIELD_ASM
  if (czk__field_adx) {
    fp6_mul_adx(r, a, b);
    return;
  }
#endif
  czk_fp2 t0, t1, t2, s, u, c0, c1, c2;
  czk_fp2_mul(&t0, &a->c0, &b->c0);
  czk_fp2_mul(&t1, &a->c1, &b->c1);
  czk_fp2_mul(&t2, &a->c2, &b->c2);
  /* c0 = t0 + xi((a1+a2)(b1+b2) - t1 - t2) */
  fp2i_add(&s, &a->c1, &a->c2);
  fp2i_add(&u, &b->c1, &b->c2);
  czk_fp2_mul(&s, &s, &u);
  fp2i_sub(&s, &s, &t1);
  fp2i_sub(&s, &s, &t2);
  fp2i_mul_nr(&s, &s);
  fp2i_add(&c0, &s, &t0);
  /* c1 = (a0+a1)(b0+b1) - t0 - t1 + xi t2 */
  fp2i_add(&s, &a->c0, &a->c1);
  fp2i_add(&u, &b->c0, &b->c1);
  czk_fp2_mul(&s, &s, &u);
  fp2i_sub(&s, &s, &t0);
  fp2i_sub(&s, &s, &t1);
  fp2i_mul_nr(&u, &t2);
  fp2i_add(&c1, &s, &u);
  /* c2 = (a0+a2)(b0+b2) - t0 - t2 + t1 */
  fp2i_add(&s, &a->c0, &a->c2);
  fp2i_add(&u, &b->c0, &b->c2);
  czk_fp2_mul(&s, &s, &u);
  fp2i_sub(&s, &s, &t0);
  fp2i_sub(&s, &s, &t2);
  fp2i_add(&c2, &s, &t1);
  r->c0 = c0;
  r->c1 = c1;
  r->c2 = c2;
}

void czk_fp6_sqr(czk_fp6 *r, const czk_fp6 *a) {
  czk_fp2 s0, s1, s2, s3, s4, t;
  czk_fp2_sqr(&s0, &a->c0);
  czk_fp2_mul(&s1, &a->c0, &a->c1);
  fp2i_dbl(&s1, &s1);
  fp2i_sub(&s2, &a->c0, &a->c1);
  fp2i_add(&s2, &s2, &a->c2);
  czk_fp2_sqr(&s2, &s2);
  czk_fp2_mul(&s3, &a->c1, &a->c2);
  fp2i_dbl(&s3, &s3);
  czk_fp2_sqr(&s4, &a->c2);
  /* c2 = s1 + s2 + s3 - s0 - s4 (computed before c0, c1 overwrite anything) */
  fp2i_add(&t, &s1, &s2);
  fp2i_add(&t, &t, &s3);
  fp2i_sub(&t, &t, &s0);
  fp2i_sub(&r->c2, &t, &s4);
  fp2i_mul_nr(&s3, &s3);
  fp2i_add(&r->c0, &s0, &s3);
  fp2i_mul_nr(&s4, &s4);
  fp2i_add(&r->c1, &s1, &s4);
}

void czk_fp6_mul_by_nonresidue(czk_fp6 *r, const czk_fp6 *a) {
  /* (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2 */
  czk_fp2 t;
  fp2i_mul_nr(&t, &a->c2);
  r->c2 = a->c1;
  r->c1 = a->c0;
  r->c0 = t;
}

void czk_fp6_inv(czk_fp6 *r, const czk_fp6 *a) {
  czk_fp2 A, B, C, F, t;
  czk_fp2_sqr(&A, &a->c0);
  czk_fp2_mul(&t, &a->c1, &a->c2);
  fp2i_mul_nr(&t, &t);
  fp2i_sub(&A, &A, &t);
  czk_fp2_sqr(&B, &a->c2);
  fp2i_mul_nr(&B, &B);
  czk_fp2_mul(&t, &a->c0, &a->c1);
  fp2i_sub(&B, &B, &t);
  czk_fp2_sqr(&C, &a->c1);
  czk_fp2_mul(&t, &a->c0, &a->c2);
  fp2i_sub(&C, &C, &t);
  czk_fp2_mul(&F, &a->c2, &B);
  czk_fp2_mul(&t, &a->c1, &C);
  fp2i_add(&F, &F, &t);
  fp2i_mul_nr(&F, &F);
  czk_fp2_mul(&t, &a->c0, &A);
  fp2i_add(&F, &F, &t);
  czk_fp2_inv(&F, &F);
  czk_fp2_mul(&r->c0, &A, &F);
  czk_fp2_mul(&r->c1, &B, &F);
  czk_fp2_mul(&r->c2, &C, &F);
}

void czk_fp6_frobenius(czk_fp6 *r, const czk_fp6 *a, unsigned power) {
  unsigned k = power % 6;
  if (power & 1) {
    czk_fp2_conj(&r->c0, &a->c0);
    czk_fp2_conj(&r->c1, &a->c1);
    czk_fp2_conj(&r->c2, &a->c2);
  } else if (r != a) {
    *r = *a;
  }
  czk_fp2_mul(&r->c1, &r->c1, &k_frob6_c1[k]);
  czk_fp2_mul(&r->c2, &r->c2, &k_frob6_c2[k]);
}

bool czk_fp6_is_zero(const czk_fp6 *a) {
  /* non-short-circuit on purpose (constant time): the bools as integers */
  return (unsigned)czk_fp2_is_zero(&a->c0) & (unsigned)czk_fp2_is_zero(&a->c1) & (unsigned)czk_fp2_is_zero(&a->c2);
}
bool czk_fp6_eq(const czk_fp6 *a, const czk_fp6 *b) {
  return (unsigned)czk_fp2_eq(&a->c0, &b->c0) & (unsigned)czk_fp2_eq(&a->c1, &b->c1) & (unsigned)czk_fp2_eq(&a->c2, &b->c2);
}

/* ------------------------------------------------------------------ Fp12 */

void czk_fp12_set_one(czk_fp12 *r) {
  czk_fp6_set_one(&r->c0);
  czk_fp6_set_zero(&r->c1);
}
void czk_fp12_add(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b) {
  czk_fp6_add(&r->c0, &a->c0, &b->c0);
  czk_fp6_add(&r->c1, &a->c1, &b->c1);
}
void czk_fp12_sub(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b) {
  czk_fp6_sub(&r->c0, &a->c0, &b->c0);
  czk_fp6_sub(&r->c1, &a->c1, &b->c1);
}

void czk_fp12_mul(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b) {
  czk_fp6 t0, t1, s, u;
  czk_fp6_mul(&t0, &a->c0, &b->c0);
  czk_fp6_mul(&t1, &a->c1, &b->c1);
  czk_fp6_add(&s, &a->c0, &a->c1);
  czk_fp6_add(&u, &b->c0, &b->c1);
  czk_fp6_mul(&s, &s, &u);
  czk_fp6_sub(&s, &s, &t0);
  czk_fp6_sub(&r->c1, &s, &t1);
  czk_fp6_mul_by_nonresidue(&t1, &t1);
  czk_fp6_add(&r->c0, &t0, &t1);
}

void czk_fp12_sqr(czk_fp12 *r, const czk_fp12 *a) {
  czk_fp6 m, s, t;
  czk_fp6_mul(&m, &a->c0, &a->c1);
  czk_fp6_add(&s, &a->c0, &a->c1);
  czk_fp6_mul_by_nonresidue(&t, &a->c1);
  czk_fp6_add(&t, &t, &a->c0);
  czk_fp6_mul(&s, &s, &t);
  czk_fp6_sub(&s, &s, &m);
  czk_fp6_mul_by_nonresidue(&t, &m);
  czk_fp6_sub(&r->c0, &s, &t);
  czk_fp6_add(&r->c1, &m, &m);
}

/* (a + b s)^2 in Fp4 = Fp2[s]/(s^2 - xi): returns c0 = a^2 + xi b^2, c1 = 2ab = (a+b)^2 - a^2 - b^2 */
static void fp4_sqr(czk_fp2 *c0, czk_fp2 *c1, const czk_fp2 *a, const czk_fp2 *b) {
  czk_fp2 t0, t1, t2;
  czk_fp2_sqr(&t0, a);
  czk_fp2_sqr(&t1, b);
  fp2i_mul_nr(&t2, &t1);
  fp2i_add(c0, &t2, &t0);
  fp2i_add(&t2, a, b);
  czk_fp2_sqr(&t2, &t2);
  fp2i_sub(&t2, &t2, &t0);
  fp2i_sub(c1, &t2, &t1);
}

/* z' = 3t - 2z */
static void cyc_minus(czk_fp2 *z, const czk_fp2 *t) {
  czk_fp2 d;
  fp2i_sub(&d, t, z);
  fp2i_dbl(&d, &d);
  fp2i_add(z, &d, t);
}
/* z' = 3t + 2z */
static void cyc_plus(czk_fp2 *z, const czk_fp2 *t) {
  czk_fp2 d;
  fp2i_add(&d, t, z);
  fp2i_dbl(&d, &d);
  fp2i_add(z, &d, t);
}

void czk_fp12_cyclotomic_sqr(czk_fp12 *r, const czk_fp12 *a) {
  czk_fp2 z0 = a->c0.c0, z4 = a->c0.c1, z3 = a->c0.c2;
  czk_fp2 z2 = a->c1.c0, z1 = a->c1.c1, z5 = a->c1.c2;
  czk_fp2 t0, t1, t2, t3;
  fp4_sqr(&t0, &t1, &z0, &z1);
  cyc_minus(&z0, &t0);
  cyc_plus(&z1, &t1);
  fp4_sqr(&t0, &t1, &z2, &z3);
  fp4_sqr(&t2, &t3, &z4, &z5);
  cyc_minus(&z4, &t0);
  cyc_plus(&z5, &t1);
  fp2i_mul_nr(&t0, &t3);
  cyc_plus(&z2, &t0);
  cyc_minus(&z3, &t2);
  r->c0.c0 = z0;
  r->c0.c1 = z4;
  r->c0.c2 = z3;
  r->c1.c0 = z2;
  r->c1.c1 = z1;
  r->c1.c2 = z5;
}

/* ------------------------------------------------------------------ compressed cyclotomic squaring (Karabina)
 * In the Granger-Scott squaring above the new (z2, z3, z4, z5) depend only on the old (z2, z3, z4, z5), so a run of
 * squarings can carry those four (6 S2 per squaring instead of 9). For g in the cyclotomic subgroup the other two
 * are recovered (Karabina, "Squaring in cyclotomic subgroups", 2013; checked here on random subgroup elements):
 *     z1 = (xi z5^2 + 3 z4^2 - 2 z3) / (4 z2),   z0 = xi (2 z1^2 + z2 z5 - 3 z3 z4) + 1     (z2 != 0).
 * When z2 = z3 = z4 = z5 = 0 the element is 1 (the subgroup meets Fp4 = Fp2[w^3] only in 1, since
 * gcd(p^4 - 1, p^4 - p^2 + 1) = 1), which the formulas also give with 0^-1 taken as 0. The remaining case (z2 = 0,
 * some other z != 0; probability about p^-2 for a random element) is reported to the caller. */
typedef struct {
  czk_fp2 z2, z3, z4, z5;
} fp12_cmp;

static void cyc_sqr_compressed(fp12_cmp *c) {
  czk_fp2 t0, t1, t2, t3;
  fp4_sqr(&t0, &t1, &c->z2, &c->z3);
  fp4_sqr(&t2, &t3, &c->z4, &c->z5);
  cyc_minus(&c->z4, &t0);
  cyc_plus(&c->z5, &t1);
  fp2i_mul_nr(&t0, &t3);
  cyc_plus(&c->z2, &t0);
  cyc_minus(&c->z3, &t2);
}

#define CYC_BATCH 8

/* r[i] = decompress(c[i]) for i < n (n <= CYC_BATCH), one batched inversion. Returns false when some c[i] has z2 = 0 but
 * is not all zero (r is then unspecified). Constant-time in the values (the flag is accumulated, not branched on). */
static bool cyc_decompress_n(czk_fp12 *r, const fp12_cmp *c, size_t n) {
  czk_fp2 num[CYC_BATCH], den[CYC_BATCH], scratch[CYC_BATCH], t, u;
  bool bad = false;
  for (size_t i = 0; i < n; i++) {
    czk_fp2_sqr(&t, &c[i].z5);
    fp2i_mul_nr(&t, &t);
    czk_fp2_sqr(&u, &c[i].z4);
    fp2i_add(&num[i], &u, &u);
    fp2i_add(&u, &num[i], &u); /* 3 z4^2 */
    fp2i_add(&t, &t, &u);
    fp2i_dbl(&u, &c[i].z3);
    fp2i_sub(&num[i], &t, &u);
    fp2i_dbl(&den[i], &c[i].z2);
    fp2i_dbl(&den[i], &den[i]);
    bool z2zero = czk_fp2_is_zero(&c[i].z2);
    bool rest = (unsigned)czk_fp2_is_zero(&c[i].z3) & (unsigned)czk_fp2_is_zero(&c[i].z4) & (unsigned)czk_fp2_is_zero(&c[i].z5);
    bad |= z2zero & !rest;
  }
  czk_fp2_batch_inv(den, den, n, scratch); /* zeros stay zero; scratch given: cannot fail */
  for (size_t i = 0; i < n; i++) {
    czk_fp2 z1, z0;
    czk_fp2_mul(&z1, &num[i], &den[i]);
    czk_fp2_sqr(&t, &z1);
    fp2i_dbl(&z0, &t);
    czk_fp2_mul(&t, &c[i].z2, &c[i].z5);
    fp2i_add(&z0, &z0, &t);
    czk_fp2_mul(&t, &c[i].z3, &c[i].z4);
    fp2i_add(&u, &t, &t);
    fp2i_add(&u, &u, &t);
    fp2i_sub(&z0, &z0, &u);
    fp2i_mul_nr(&z0, &z0);
    fpi_add(&z0.c0, &z0.c0, &czk_fp_one_v);
    r[i].c0.c0 = z0;
    r[i].c1.c1 = z1;
    r[i].c1.c0 = c[i].z2;
    r[i].c0.c2 = c[i].z3;
    r[i].c0.c1 = c[i].z4;
    r[i].c1.c2 = c[i].z5;
  }
  return !bad;
}

bool czk_fp12_cyclotomic_pow_u64(czk_fp12 *r, const czk_fp12 *a, uint64_t e) {
  if (e == 0) {
    czk_fp12_set_one(r);
    return true;
  }
  /* saved powers are decompressed CYC_BATCH at a time (|x| of BLS12-381 has 6 bits set: one batch) */
  fp12_cmp c = {a->c1.c0, a->c0.c2, a->c0.c1, a->c1.c2}, saved[CYC_BATCH];
  czk_fp12 g[CYC_BATCH], acc;
  bool have = false, ok = true;
  size_t n = 0;
  int top = 63 - __builtin_clzll(e);
  for (int j = 0; j <= top; j++) { /* c = a^(2^j) */
    if (j > 0) cyc_sqr_compressed(&c);
    if ((e >> j) & 1) saved[n++] = c;
    if (n == CYC_BATCH || (j == top && n > 0)) {
      ok &= cyc_decompress_n(g, saved, n);
      size_t i = 0;
      if (!have) {
        acc = (e & 1) ? *a : g[0]; /* first batch: g[0] is a^(2^0) = a when bit 0 is set */
        i = 1;
        have = true;
      }
      for (; i < n; i++)
        czk_fp12_mul(&acc, &acc, &g[i]);
      n = 0;
    }
  }
  *r = acc;
  return ok;
}

void czk_fp12_inv(czk_fp12 *r, const czk_fp12 *a) {
  czk_fp6 t0, t1;
  czk_fp6_sqr(&t0, &a->c0);
  czk_fp6_sqr(&t1, &a->c1);
  czk_fp6_mul_by_nonresidue(&t1, &t1);
  czk_fp6_sub(&t0, &t0, &t1);
  czk_fp6_inv(&t0, &t0);
  czk_fp6_mul(&r->c0, &a->c0, &t0);
  czk_fp6_mul(&r->c1, &a->c1, &t0);
  czk_fp6_neg(&r->c1, &r->c1);
}

void czk_fp12_conj(czk_fp12 *r, const czk_fp12 *a) {
  if (r != a) r->c0 = a->c0;
  czk_fp6_neg(&r->c1, &a->c1);
}

void czk_fp12_frobenius(czk_fp12 *r, const czk_fp12 *a, unsigned power) {
  unsigned k = power % 12;
  czk_fp6_frobenius(&r->c0, &a->c0, k);
  czk_fp6_frobenius(&r->c1, &a->c1, k);
  czk_fp2_mul(&r->c1.c0, &r->c1.c0, &k_frob12_c1[k]);
  czk_fp2_mul(&r->c1.c1, &r->c1.c1, &k_frob12_c1[k]);
  czk_fp2_mul(&r->c1.c2, &r->c1.c2, &k_frob12_c1[k]);
}

void czk_fp12_pow_vartime(czk_fp12 *r, const czk_fp12 *a, const uint64_t *exp, size_t exp_limbs) {
  while (exp_limbs > 0 && exp[exp_limbs - 1] == 0)
    exp_limbs--;
  czk_fp12 acc, base = *a;
  czk_fp12_set_one(&acc);
  if (exp_limbs == 0) {
    *r = acc;
    return;
  }
  size_t bits = 64 * (exp_limbs - 1) + (64 - (size_t)__builtin_clzll(exp[exp_limbs - 1]));
  acc = base;
  for (size_t i = bits - 1; i-- > 0;) {
    czk_fp12_sqr(&acc, &acc);
    if ((exp[i / 64] >> (i % 64)) & 1) czk_fp12_mul(&acc, &acc, &base);
  }
  *r = acc;
}

bool czk_fp12_is_one(const czk_fp12 *a) {
  czk_fp12 one;
  czk_fp12_set_one(&one);
  return czk_fp12_eq(a, &one);
}
bool czk_fp12_eq(const czk_fp12 *a, const czk_fp12 *b) {
  return (unsigned)czk_fp6_eq(&a->c0, &b->c0) & (unsigned)czk_fp6_eq(&a->c1, &b->c1);
}
