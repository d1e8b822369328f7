/* curve_internal.h: names shared between the files of src/curve (not part of the public API). */
#ifndef CZK_CURVE_INTERNAL_H
#define CZK_CURVE_INTERNAL_H

#include "czk/curve.h"

/* psi(x, y) = (conj(x) cx, conj(y) cy), the untwist-Frobenius-twist endomorphism of E'(Fp2); acts as x on G2. */
void czk__g2_psi(czk_g2 *r, const czk_g2 *p);

/* f *= c0 + c1 v + c4 v w (a line value with the M-type twist's sparsity: Fp12 slots 0, 1 and 4). 13 Fp2 muls. */
void czk__fp12_mul_by_014(czk_fp12 *f, const czk_fp2 *c0, const czk_fp2 *c1, const czk_fp2 *c4);

#endif
