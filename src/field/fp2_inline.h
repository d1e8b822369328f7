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

#endif
