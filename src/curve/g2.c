/* g2.c: G2 = E'(Fp2)[r], E': y^2 = x^3 + 4(u+1) (M-type sextic twist). Instantiates the shared point code
 * (ec_impl.h) over Fp2 and adds the generator, the untwist-Frobenius-twist endomorphism psi and the subgroup check.
 *
 * psi(x, y) = (conj(x) cx, conj(y) cy) with cx = (u+1)^(-(p-1)/3), cy = (u+1)^(-(p-1)/2); in Jacobian coordinates
 * psi(X, Y, Z) = (conj(X) cx, conj(Y) cy, conj(Z)) since conjugation is a field automorphism (2M, 3 conj).
 * Subgroup check (Scott 2021): P in E'(Fp2) is in G2 iff psi(P) = x P (x = -0xd201000000010000): one multiplication
 * by |x| (63 doublings + 5 additions), a negation and a comparison. */
#include <stdlib.h>
#include <string.h>

#include "czk/curve.h"
#include "curve/constants.h"
#include "curve/curve_internal.h"

static const czk_fp2 g2_b = CZK__G2_B;

#define EC_G g2
#define EC_F fp2
#define EC_FE czk_fp2
#define EC_AFF czk_g2_affine
#define EC_JAC czk_g2
#define EC_XYZZ czk_g2_xyzz
#define EC_B (&g2_b)
#include "curve/ec_impl.h"

void czk_g2_affine_generator(czk_g2_affine *r) {
  static const czk_g2_affine g = {CZK__G2_GEN_X, CZK__G2_GEN_Y};
  *r = g;
}

void czk_g2_generator(czk_g2 *r) {
  czk_g2_affine g;
  czk_g2_affine_generator(&g);
  czk_g2_from_affine(r, &g);
}

void czk__g2_psi(czk_g2 *r, const czk_g2 *p) {
  static const czk_fp2 cx = CZK__G2_PSI_CX, cy = CZK__G2_PSI_CY;
  czk_fp2_conj(&r->x, &p->x);
  czk_fp2_mul(&r->x, &r->x, &cx);
  czk_fp2_conj(&r->y, &p->y);
  czk_fp2_mul(&r->y, &r->y, &cy);
  czk_fp2_conj(&r->z, &p->z);
}

bool czk_g2_in_subgroup(const czk_g2 *p) {
  czk_g2 s, t;
  czk__g2_psi(&s, p);
  mul_by_z(&t, p);
  czk_g2_neg(&t, &t); /* x P */
  return czk_g2_eq(&s, &t);
}

bool czk_g2_affine_in_subgroup(const czk_g2_affine *p) {
  czk_g2 j;
  czk_g2_from_affine(&j, p);
  return czk_g2_in_subgroup(&j);
}
