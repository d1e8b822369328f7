/* fp12_sparse.c: multiplication of an Fp12 element by a sparse line value (the Miller loop's inner step).
 *
 * Tower (field.h): Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1. With the M-type twist a line
 * evaluated at P (after scaling by w^3 and an Fp2 factor, both killed by the final exponentiation) is
 *     l = c0 + c1 v + c4 v w,          i.e. A + B w with A = c0 + c1 v, B = c4 v,
 * so only Fp12 slots 0, 1 and 4 (slot = 3 i + j for coefficient v^j w^i) are non-zero. For f = a + b w:
 *     f l = (a A + (b B) v) + ((a + b)(A + B) - a A - b B) w
 * with sparse Fp6 products
 *     a (c0 + c1 v) = (a0 c0 + xi a2 c1) + (a0 c1 + a1 c0) v + (a1 c1 + a2 c0) v^2     (Karatsuba: 5 Fp2 muls)
 *     a (c1 v)      = xi a2 c1 + a0 c1 v + a1 c1 v^2                                    (3 Fp2 muls)
 * Total 5 + 3 + 5 = 13 Fp2 multiplications (a dense Fp12 multiplication is 18). Aliasing: f is in/out. */
#include "curve/curve_internal.h"

/* r = a (c0 + c1 v) */
static void fp6_mul_by_01(czk_fp6 *r, const czk_fp6 *a, const czk_fp2 *c0, const czk_fp2 *c1) {
  czk_fp2 t0, t1, t2, s, u;
  czk_fp2_mul(&t0, &a->c0, c0);
  czk_fp2_mul(&t1, &a->c1, c1);
  /* r2 = a1 c1 + a2 c0 */
  czk_fp2_mul(&t2, &a->c2, c0);
  czk_fp2_add(&t2, &t2, &t1);
  /* r1 = (a0 + a1)(c0 + c1) - t0 - t1 */
  czk_fp2_add(&s, &a->c0, &a->c1);
  czk_fp2_add(&u, c0, c1);
  czk_fp2_mul(&s, &s, &u);
  czk_fp2_sub(&s, &s, &t0);
  czk_fp2_sub(&s, &s, &t1);
  /* r0 = xi a2 c1 + t0 */
  czk_fp2_mul(&u, &a->c2, c1);
  czk_fp2_mul_by_nonresidue(&u, &u);
  czk_fp2_add(&r->c0, &u, &t0);
  r->c1 = s;
  r->c2 = t2;
}

/* r = a (c1 v) */
static void fp6_mul_by_1(czk_fp6 *r, const czk_fp6 *a, const czk_fp2 *c1) {
  czk_fp2 t0, t1, t2;
  czk_fp2_mul(&t0, &a->c2, c1);
  czk_fp2_mul_by_nonresidue(&t0, &t0);
  czk_fp2_mul(&t1, &a->c0, c1);
  czk_fp2_mul(&t2, &a->c1, c1);
  r->c0 = t0;
  r->c1 = t1;
  r->c2 = t2;
}

void czk__fp12_mul_by_014(czk_fp12 *f, const czk_fp2 *c0, const czk_fp2 *c1, const czk_fp2 *c4) {
  czk_fp6 aa, bb, s;
  czk_fp2 c14;
  fp6_mul_by_01(&aa, &f->c0, c0, c1);
  fp6_mul_by_1(&bb, &f->c1, c4);
  czk_fp2_add(&c14, c1, c4);
  czk_fp6_add(&s, &f->c0, &f->c1);
  fp6_mul_by_01(&s, &s, c0, &c14);
  czk_fp6_sub(&s, &s, &aa);
  czk_fp6_sub(&f->c1, &s, &bb);
  czk_fp6_mul_by_nonresidue(&bb, &bb);
  czk_fp6_add(&f->c0, &aa, &bb);
}
