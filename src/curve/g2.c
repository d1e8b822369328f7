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

static void psi_affine(czk_g2_affine *r, const czk_g2_affine *p) {
  static const czk_fp2 cx = CZK__G2_PSI_CX, cy = CZK__G2_PSI_CY;
  czk_fp2_conj(&r->x, &p->x);
  czk_fp2_mul(&r->x, &r->x, &cx);
  czk_fp2_conj(&r->y, &p->y);
  czk_fp2_mul(&r->y, &r->y, &cy);
}

/* GLS: k = d0 + d1 z + d2 z^2 + d3 z^3 in base z = |x| (digits < 2^64). On G2 psi = [x] = [-z], so
 * k P = d0 P + d1 (-psi(P)) + d2 psi^2(P) + d3 (-psi^3(P)); the tables of the psi images come from the table of P by
 * applying psi to affine points (psi(0, 0) = (0, 0) keeps infinity). ~64 doublings + ~4 x 64/6 mixed additions.
 * Variable time. */
void czk_g2_mul_vartime(czk_g2 *r, const czk_g2 *p, const czk_fr *k) {
  if (czk_g2_is_infinity(p)) {
    czk_g2_set_infinity(r);
    return;
  }
  uint64_t kr[4], d[4], ks[4][2];
  czk_fr_to_raw(kr, k);
  split_base_z(d, kr);
  for (int j = 0; j < 4; j++) {
    ks[j][0] = d[j];
    ks[j][1] = 0;
  }
  czk_g2_affine tab[4][8];
  odd_multiples_affine_vartime(tab[0], p);
  for (int j = 1; j < 4; j++)
    for (int i = 0; i < 8; i++) psi_affine(&tab[j][i], &tab[j - 1][i]);
  for (int i = 0; i < 8; i++) { /* signs: (-psi), (+psi^2), (-psi^3) */
    czk_fp2_neg(&tab[1][i].y, &tab[1][i].y);
    czk_fp2_neg(&tab[3][i].y, &tab[3][i].y);
  }
  multi_mul_wnaf_vartime(r, tab, (const uint64_t(*)[2])ks, 4);
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
