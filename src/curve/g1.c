/* g1.c: G1 = E(Fp)[r], E: y^2 = x^3 + 4. Instantiates the shared point code (ec_impl.h) over Fp and adds the
 * generator and the endomorphism-based subgroup check.
 *
 * Subgroup check (Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly curves",
 * 2021): with sigma(x, y) = (beta x, y), beta a primitive cube root of unity in Fp, a point P of E(Fp) is in G1
 * iff sigma(P) = -x^2 P (x = -0xd201000000010000). beta is the root for which sigma acts as -x^2 on G1 (checked by
 * gen_constants.py). Cost: two multiplications by |x| (126 doublings + 10 additions) and one comparison. */
#include <stdlib.h>
#include <string.h>

#include "czk/curve.h"
#include "curve/constants.h"

static const czk_fp g1_b = CZK__G1_B;

#define EC_G g1
#define EC_F fp
#define EC_FE czk_fp
#define EC_AFF czk_g1_affine
#define EC_JAC czk_g1
#define EC_XYZZ czk_g1_xyzz
#define EC_B (&g1_b)
#include "curve/ec_impl.h"

void czk_g1_affine_generator(czk_g1_affine *r) {
  static const czk_g1_affine g = {CZK__G1_GEN_X, CZK__G1_GEN_Y};
  *r = g;
}

void czk_g1_generator(czk_g1 *r) {
  czk_g1_affine g;
  czk_g1_affine_generator(&g);
  czk_g1_from_affine(r, &g);
}

bool czk_g1_in_subgroup(const czk_g1 *p) {
  static const czk_fp beta = CZK__G1_BETA;
  czk_g1 s, t;
  s = *p;
  czk_fp_mul(&s.x, &p->x, &beta); /* sigma(P) in Jacobian coordinates: (beta X, Y, Z) */
  mul_by_z(&t, p);
  mul_by_z(&t, &t);
  czk_g1_neg(&t, &t); /* -x^2 P */
  return czk_g1_eq(&s, &t);
}

/* GLV: k = k1 + k2 z^2 with k1 = k mod z^2 < 2^128, k2 = k div z^2 < 2^127 (k written in base z = |x| as
 * d0 + d1 z + d2 z^2 + d3 z^3: k1 = d0 + d1 z, k2 = d2 + d3 z). As z^2 P = x^2 P = -sigma(P) on G1,
 * k P = k1 P + k2 (-sigma(P)); the table of -sigma(P) is (beta x_i, -y_i) from the table of P. Cost ~128 doublings
 * and ~2 x 128/6 mixed additions instead of 255 doublings. Variable time. */
void czk_g1_mul_vartime(czk_g1 *r, const czk_g1 *p, const czk_fr *k) {
  static const czk_fp beta = CZK__G1_BETA;
  if (czk_g1_is_infinity(p)) {
    czk_g1_set_infinity(r);
    return;
  }
  uint64_t kr[4], d[4], ks[2][2];
  czk_fr_to_raw(kr, k);
  split_base_z(d, kr);
  for (int j = 0; j < 2; j++) { /* ks[j] = d[2j] + d[2j+1] z */
    unsigned __int128 t = (unsigned __int128)d[2 * j + 1] * CZK__BLS_Z + d[2 * j];
    ks[j][0] = (uint64_t)t;
    ks[j][1] = (uint64_t)(t >> 64);
  }
  czk_g1_affine tab[2][8];
  odd_multiples_affine_vartime(tab[0], p);
  for (int i = 0; i < 8; i++) {
    czk_fp_mul(&tab[1][i].x, &tab[0][i].x, &beta);
    czk_fp_neg(&tab[1][i].y, &tab[0][i].y);
  }
  multi_mul_wnaf_vartime(r, tab, (const uint64_t(*)[2])ks, 2);
}

bool czk_g1_affine_in_subgroup(const czk_g1_affine *p) {
  czk_g1 j;
  czk_g1_from_affine(&j, p);
  return czk_g1_in_subgroup(&j);
}
