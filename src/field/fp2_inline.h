/* fp2_inline.h: inlined Fp2 additive operations for fp2.c and fp12.c (the tower code is dominated by additions
 * between multiplications; calling out of line for each one costs as much as the addition itself).
 * Same contracts as the public czk_fp2_add/sub/neg/dbl/mul_by_nonresidue; outputs may alias inputs. */
#ifndef CZK_FIELD_FP2_INLINE_H
#define CZK_FIELD_FP2_INLINE_H

#include "czk/field.h"
#include "field/constants.h"
#include "field/mont.h"

static const uint64_t czk__fp2i_mod[6] = CZK__FP_MOD;

CZK__INLINE void fpi_add(czk_fp *r, const czk_fp *a, const czk_fp *b) {
  czk__mont_add(r->l, a->l, b->l, czk__fp2i_mod, 6);
}
/* a + b < 2p, unreduced: only as an operand of czk_fp_mul (see czk__add_nr) */
CZK__INLINE void fpi_add_nr(czk_fp *r, const czk_fp *a, const czk_fp *b) { czk__add_nr(r->l, a->l, b->l, 6); }
CZK__INLINE void fpi_sub(czk_fp *r, const czk_fp *a, const czk_fp *b) {
  czk__mont_sub(r->l, a->l, b->l, czk__fp2i_mod, 6);
}
CZK__INLINE void fp2i_add(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
  czk__mont_add(r->c0.l, a->c0.l, b->c0.l, czk__fp2i_mod, 6);
  czk__mont_add(r->c1.l, a->c1.l, b->c1.l, czk__fp2i_mod, 6);
}
CZK__INLINE void fp2i_sub(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
  czk__mont_sub(r->c0.l, a->c0.l, b->c0.l, czk__fp2i_mod, 6);
  czk__mont_sub(r->c1.l, a->c1.l, b->c1.l, czk__fp2i_mod, 6);
}
CZK__INLINE void fp2i_dbl(czk_fp2 *r, const czk_fp2 *a) {
  czk__mont_add(r->c0.l, a->c0.l, a->c0.l, czk__fp2i_mod, 6);
  czk__mont_add(r->c1.l, a->c1.l, a->c1.l, czk__fp2i_mod, 6);
}
CZK__INLINE void fp2i_neg(czk_fp2 *r, const czk_fp2 *a) {
  czk__mont_neg(r->c0.l, a->c0.l, czk__fp2i_mod, 6);
  czk__mont_neg(r->c1.l, a->c1.l, czk__fp2i_mod, 6);
}
/* a * (u + 1) = (a0 - a1) + (a0 + a1) u */
CZK__INLINE void fp2i_mul_nr(czk_fp2 *r, const czk_fp2 *a) {
  czk_fp t;
  czk__mont_sub(t.l, a->c0.l, a->c1.l, czk__fp2i_mod, 6);
  czk__mont_add(r->c1.l, a->c0.l, a->c1.l, czk__fp2i_mod, 6);
  r->c0 = t;
}

/* ------------------------------------------------------------------ lazily reduced Fp2 (mulx/adx path)
 * "Wide" values are 12-limb integers w < p*2^384 standing for w * 2^-384 mod p (what czk__fp_redc_adx takes).
 * Wide subtraction adds p*2^384 (p on the high half) on borrow; wide addition subtracts it when the high half
 * reaches p. Both keep the bound, so any chain of them can be reduced once at the end. */
#if CZK__FIELD_ASM
#include "field/field_internal.h"

typedef struct {
  uint64_t l[12];
} czk__fpw;
typedef struct {
  czk__fpw c0, c1;
} czk__fp2w;

/* r = a - b mod p*2^384 */
CZK__INLINE void fpw_sub(czk__fpw *r, const czk__fpw *a, const czk__fpw *b) {
  uint64_t bw = 0, c = 0;
#pragma GCC unroll 12
  for (int i = 0; i < 12; i++) r->l[i] = czk__sbb(a->l[i], b->l[i], bw, &bw);
  uint64_t mask = (uint64_t)0 - bw;
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++) r->l[6 + i] = czk__adc(r->l[6 + i], czk__fp2i_mod[i] & mask, c, &c);
}
/* r = a + b mod p*2^384 */
CZK__INLINE void fpw_add(czk__fpw *r, const czk__fpw *a, const czk__fpw *b) {
  uint64_t c = 0, bw = 0, t[6];
#pragma GCC unroll 12
  for (int i = 0; i < 12; i++) r->l[i] = czk__adc(a->l[i], b->l[i], c, &c);
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++) t[i] = czk__sbb(r->l[6 + i], czk__fp2i_mod[i], bw, &bw);
  uint64_t keep = (uint64_t)0 - (bw & (c ^ 1)); /* high half < p: keep it */
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++) r->l[6 + i] = (r->l[6 + i] & keep) | (t[i] & ~keep);
}
/* r = a - b as integers, for a >= b (no wrap) */
CZK__INLINE void fpw_sub_exact(czk__fpw *r, const czk__fpw *a, const czk__fpw *b) {
  uint64_t bw = 0;
#pragma GCC unroll 12
  for (int i = 0; i < 12; i++) r->l[i] = czk__sbb(a->l[i], b->l[i], bw, &bw);
}

/* Unreduced Fp2 product (Karatsuba, 3 wide products): r = a*b with both parts wide. Inputs fully reduced.
 *   c0 = a0 b0 - a1 b1 (mod p*2^384),  c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 = a0 b1 + a1 b0 < 2p^2. */
CZK__INLINE void fp2w_mul(czk__fp2w *r, const czk_fp2 *a, const czk_fp2 *b) {
  czk__fpw t0, t1;
  czk_fp sa, sb;
  czk__add_nr(sa.l, a->c0.l, a->c1.l, 6); /* < 2p: the product < 4p^2 fits 12 limbs */
  czk__add_nr(sb.l, b->c0.l, b->c1.l, 6);
  czk__fp_mulw_adx(t0.l, a->c0.l, b->c0.l);
  czk__fp_mulw_adx(t1.l, a->c1.l, b->c1.l);
  czk__fp_mulw_adx(r->c1.l, sa.l, sb.l);
  fpw_sub_exact(&r->c1, &r->c1, &t0);
  fpw_sub_exact(&r->c1, &r->c1, &t1);
  fpw_sub(&r->c0, &t0, &t1);
}
/* Unreduced Fp2 square: c0 = (a0 + a1)(a0 - a1) < 2p^2, c1 = 2 a0 a1 < 2p^2 (2 wide products). */
CZK__INLINE void fp2w_sqr(czk__fp2w *r, const czk_fp2 *a) {
  czk_fp s, d, a2;
  czk__add_nr(s.l, a->c0.l, a->c1.l, 6);
  czk__mont_sub(d.l, a->c0.l, a->c1.l, czk__fp2i_mod, 6);
  czk__add_nr(a2.l, a->c0.l, a->c0.l, 6);
  czk__fp_mulw_adx(r->c0.l, s.l, d.l);
  czk__fp_mulw_adx(r->c1.l, a2.l, a->c1.l);
}
CZK__INLINE void fp2w_add(czk__fp2w *r, const czk__fp2w *a, const czk__fp2w *b) {
  fpw_add(&r->c0, &a->c0, &b->c0);
  fpw_add(&r->c1, &a->c1, &b->c1);
}
CZK__INLINE void fp2w_sub(czk__fp2w *r, const czk__fp2w *a, const czk__fp2w *b) {
  fpw_sub(&r->c0, &a->c0, &b->c0);
  fpw_sub(&r->c1, &a->c1, &b->c1);
}
/* a * (u + 1) = (a0 - a1) + (a0 + a1) u */
CZK__INLINE void fp2w_mul_nr(czk__fp2w *r, const czk__fp2w *a) {
  czk__fpw t;
  fpw_sub(&t, &a->c0, &a->c1);
  fpw_add(&r->c1, &a->c0, &a->c1);
  r->c0 = t;
}
CZK__INLINE void fp2w_redc(czk_fp2 *r, const czk__fp2w *a) { czk__fp_redc2_adx(r->c0.l, a->c0.l, r->c1.l, a->c1.l); }
/* Fully reduced Fp2 multiplication and squaring on the mulx path: 3 (2) wide products, 2 reductions. */
CZK__INLINE void fp2i_mul_adx(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
  czk__fp2w w;
  fp2w_mul(&w, a, b);
  fp2w_redc(r, &w);
}
CZK__INLINE void fp2i_sqr_adx(czk_fp2 *r, const czk_fp2 *a) {
  /* c0 = (a0 + a1)(a0 - a1), c1 = (2 a0) a1: two Montgomery products (inputs < 2p) */
  czk_fp s, d, a2;
  czk__add_nr(s.l, a->c0.l, a->c1.l, 6);
  czk__mont_sub(d.l, a->c0.l, a->c1.l, czk__fp2i_mod, 6);
  czk__add_nr(a2.l, a->c0.l, a->c0.l, 6);
  czk__fp_mul_adx(r->c0.l, s.l, d.l);
  czk__fp_mul_adx(r->c1.l, a2.l, a->c1.l);
}
#endif

#endif
