/* fp2.c: Fp2 = Fp[u]/(u^2 + 1), elements c0 + c1*u.
 *
 * Formulas (M, S = Fp multiplication, squaring; a = a0 + a1 u):
 *   mul (Karatsuba, 3M):  t0 = a0 b0, t1 = a1 b1;  c0 = t0 - t1;  c1 = (a0 + a1)(b0 + b1) - t0 - t1
 *                         (the sums a0 + a1, b0 + b1 stay unreduced, < 2p: Montgomery multiplication accepts them
 *                         because 4p < 2^384; same for a0 + a1 in sqr)
 *   sqr (complex, 2M):    c0 = (a0 + a1)(a0 - a1);  c1 = 2 a0 a1
 *   inv:                  (a0 - a1 u) / (a0^2 + a1^2)          (2S + 2M + one Fp inversion)
 *   mul by (u + 1):       (a0 - a1) + (a0 + a1) u
 *   Frobenius = conjugation (u^p = -u because p = 3 mod 4).
 *   sqrt: Adj & Rodriguez-Henriquez, "Square root computation over even extension fields", Algorithm 9 (q = p = 3
 *   mod 4):  a1 = a^((p-3)/4);  alpha = a1^2 a;  x0 = a1 a;  x = u x0 if alpha = -1, else (1 + alpha)^((p-1)/2) x0.
 *   Both branches are computed and selected with cmov; x^2 == a decides the answer (constant-time).
 *   legendre(a) = legendre_Fp(a0^2 + a1^2) (a is a square in Fp2 iff its norm is a square in Fp).
 * On the mulx/adx path mul and sqr are lazily reduced (fp2_inline.h): mul = 3 wide 6x6 products + 2 reductions
 * (run interleaved), sqr = 2 Montgomery products; the portable path keeps the formulas above with 3 / 2 Fp muls. */
#include <stdlib.h>
#include <string.h>

#include "czk/field.h"
#include "field/constants.h"
#include "field/field_internal.h"
#include "field/fp2_inline.h"

void czk_fp2_set_zero(czk_fp2 *r) {
  czk_fp_set_zero(&r->c0);
  czk_fp_set_zero(&r->c1);
}
void czk_fp2_set_one(czk_fp2 *r) {
  czk_fp_set_one(&r->c0);
  czk_fp_set_zero(&r->c1);
}
void czk_fp2_add(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) { fp2i_add(r, a, b); }
void czk_fp2_sub(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) { fp2i_sub(r, a, b); }
void czk_fp2_neg(czk_fp2 *r, const czk_fp2 *a) { fp2i_neg(r, a); }
void czk_fp2_dbl(czk_fp2 *r, const czk_fp2 *a) { fp2i_dbl(r, a); }

void czk_fp2_mul(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
#if CZK__FIELD_ASM
  if (czk__field_adx) {
    fp2i_mul_adx(r, a, b);
    return;
  }
#endif
  czk_fp t0, t1, s0, s1;
  czk_fp_mul(&t0, &a->c0, &b->c0);
  czk_fp_mul(&t1, &a->c1, &b->c1);
  fpi_add_nr(&s0, &a->c0, &a->c1);
  fpi_add_nr(&s1, &b->c0, &b->c1);
  czk_fp_mul(&s0, &s0, &s1);
  fpi_sub(&r->c0, &t0, &t1);
  fpi_sub(&s0, &s0, &t0);
  fpi_sub(&r->c1, &s0, &t1);
}

void czk_fp2_sqr(czk_fp2 *r, const czk_fp2 *a) {
#if CZK__FIELD_ASM
  if (czk__field_adx) {
    fp2i_sqr_adx(r, a);
    return;
  }
#endif
  czk_fp s, d, m;
  fpi_add_nr(&s, &a->c0, &a->c1);
  fpi_sub(&d, &a->c0, &a->c1);
  czk_fp_mul(&m, &a->c0, &a->c1);
  czk_fp_mul(&r->c0, &s, &d);
  fpi_add(&r->c1, &m, &m);
}

void czk_fp2_mul_fp(czk_fp2 *r, const czk_fp2 *a, const czk_fp *b) {
  czk_fp_mul(&r->c0, &a->c0, b);
  czk_fp_mul(&r->c1, &a->c1, b);
}

void czk_fp2_mul_by_nonresidue(czk_fp2 *r, const czk_fp2 *a) { fp2i_mul_nr(r, a); }

void czk_fp2_conj(czk_fp2 *r, const czk_fp2 *a) {
  r->c0 = a->c0;
  czk_fp_neg(&r->c1, &a->c1);
}

static void fp2_norm(czk_fp *n, const czk_fp2 *a) {
  czk_fp t;
  czk_fp_sqr(n, &a->c0);
  czk_fp_sqr(&t, &a->c1);
  czk_fp_add(n, n, &t);
}

static void fp2_scale_conj(czk_fp2 *r, const czk_fp2 *a, const czk_fp *s) {
  czk_fp_mul(&r->c0, &a->c0, s);
  czk_fp_mul(&r->c1, &a->c1, s);
  czk_fp_neg(&r->c1, &r->c1);
}

void czk_fp2_inv(czk_fp2 *r, const czk_fp2 *a) {
  czk_fp n;
  fp2_norm(&n, a);
  czk_fp_inv(&n, &n);
  fp2_scale_conj(r, a, &n);
}

void czk_fp2_inv_vartime(czk_fp2 *r, const czk_fp2 *a) {
  czk_fp n;
  fp2_norm(&n, a);
  czk_fp_inv_vartime(&n, &n);
  fp2_scale_conj(r, a, &n);
}

/* '&' on the bools as integers: no short circuit (constant time) */
bool czk_fp2_is_zero(const czk_fp2 *a) { return (unsigned)czk_fp_is_zero(&a->c0) & (unsigned)czk_fp_is_zero(&a->c1); }
bool czk_fp2_is_one(const czk_fp2 *a) { return (unsigned)czk_fp_is_one(&a->c0) & (unsigned)czk_fp_is_zero(&a->c1); }
bool czk_fp2_eq(const czk_fp2 *a, const czk_fp2 *b) {
  return (unsigned)czk_fp_eq(&a->c0, &b->c0) & (unsigned)czk_fp_eq(&a->c1, &b->c1);
}
void czk_fp2_cmov(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b, bool c) {
  czk_fp_cmov(&r->c0, &a->c0, &b->c0, c);
  czk_fp_cmov(&r->c1, &a->c1, &b->c1, c);
}

czk_status czk_fp2_batch_inv(czk_fp2 *r, const czk_fp2 *a, size_t n, czk_fp2 *scratch) {
  if (n == 0) return CZK_OK;
  czk_fp2 *pre = scratch;
  if (!pre) {
    pre = (czk_fp2 *)malloc(n * sizeof(czk_fp2));
    if (!pre) return CZK_ERR_NOMEM;
  }
  czk_fp2 one, zero, acc, t;
  czk_fp2_set_one(&one);
  czk_fp2_set_zero(&zero);
  acc = one;
  for (size_t i = 0; i < n; i++) {
    pre[i] = acc;
    czk_fp2_cmov(&t, &a[i], &one, czk_fp2_is_zero(&a[i]));
    czk_fp2_mul(&acc, &acc, &t);
  }
  czk_fp2_inv(&acc, &acc);
  for (size_t i = n; i-- > 0;) {
    bool z = czk_fp2_is_zero(&a[i]);
    czk_fp2_cmov(&t, &a[i], &one, z);
    czk_fp2 ri;
    czk_fp2_mul(&ri, &acc, &pre[i]);
    czk_fp2_mul(&acc, &acc, &t);
    czk_fp2_cmov(&r[i], &ri, &zero, z);
  }
  if (!scratch) free(pre);
  return CZK_OK;
}

/* 4-bit fixed-window exponentiation; branches on e only. */
void czk__fp2_pow_public(czk_fp2 *r, const czk_fp2 *a, const uint64_t *e, size_t n) {
  while (n > 0 && e[n - 1] == 0)
    n--;
  czk_fp2 acc;
  czk_fp2_set_one(&acc);
  if (n == 0) {
    *r = acc;
    return;
  }
  czk_fp2 tab[16];
  tab[0] = acc;
  tab[1] = *a;
  for (int i = 2; i < 16; i++)
    czk_fp2_mul(&tab[i], &tab[i - 1], &tab[1]);
  size_t bits = 64 * (n - 1) + (64 - (size_t)__builtin_clzll(e[n - 1]));
  size_t nwin = (bits + 3) / 4;
  for (size_t w = nwin; w-- > 0;) {
    size_t bit = 4 * w;
    unsigned d = (unsigned)((e[bit / 64] >> (bit % 64)) & 15);
    if (w + 1 < nwin) {
      for (int k = 0; k < 4; k++)
        czk_fp2_sqr(&acc, &acc);
      if (d) czk_fp2_mul(&acc, &acc, &tab[d]);
    } else {
      acc = tab[d];
    }
  }
  *r = acc;
}

void czk_fp2_pow_vartime(czk_fp2 *r, const czk_fp2 *a, const uint64_t *exp, size_t exp_limbs) {
  czk__fp2_pow_public(r, a, exp, exp_limbs);
}

bool czk_fp2_sqrt(czk_fp2 *r, const czk_fp2 *a) {
  static const uint64_t e1[6] = CZK__FP_P_MINUS_3_QUARTER;
  static const uint64_t e2[6] = CZK__FP_M_MINUS_1_HALF;
  static const czk_fp minus_one = {CZK__FP_MINUS_ONE};
  czk_fp2 a1, alpha, x0, xa, xb, b, chk;
  czk__fp2_pow_public(&a1, a, e1, 6);
  czk_fp2_sqr(&alpha, &a1);
  czk_fp2_mul(&alpha, &alpha, a);
  czk_fp2_mul(&x0, &a1, a);
  /* branch alpha == -1: x = u * x0 = -x0.c1 + x0.c0 u */
  czk_fp_neg(&xa.c0, &x0.c1);
  xa.c1 = x0.c0;
  /* other branch: x = (1 + alpha)^((p-1)/2) * x0 */
  b = alpha;
  czk_fp_add(&b.c0, &b.c0, &czk_fp_one_v);
  czk__fp2_pow_public(&b, &b, e2, 6);
  czk_fp2_mul(&xb, &b, &x0);
  bool is_m1 = (unsigned)czk_fp_eq(&alpha.c0, &minus_one) & (unsigned)czk_fp_is_zero(&alpha.c1);
  czk_fp2_cmov(r, &xb, &xa, is_m1);
  czk_fp2_sqr(&chk, r);
  return czk_fp2_eq(&chk, a);
}

int czk_fp2_legendre(const czk_fp2 *a) {
  czk_fp n;
  fp2_norm(&n, a);
  return czk_fp_legendre(&n);
}

bool czk_fp2_is_lexicographically_largest(const czk_fp2 *a) {
  bool c1_large = czk_fp_is_lexicographically_largest(&a->c1);
  bool c1_zero = czk_fp_is_zero(&a->c1);
  bool c0_large = czk_fp_is_lexicographically_largest(&a->c0);
  return c1_large | (c1_zero & c0_large);
}
