/* pairing.c: the optimal ate pairing on BLS12-381, e(P, Q) = f_{x,Q}(P)^((p^12 - 1)/r), x = -0xd201000000010000.
 *
 * Miller loop. T runs over [|x|]Q on the twist E': y^2 = x^3 + b', b' = 4(u+1), in homogeneous projective
 * coordinates (x = X/Z, y = Y/Z), starting from T = Q and scanning the 63 bits of |x| below the top one. Each step
 * squares f (except the first, when f = 1), doubles T and multiplies in the tangent line, and, where the bit is set,
 * adds Q and multiplies in the chord line. Lines are evaluated at P = (xP, yP) in the M-type shape
 * l = c0 + c1 v + c4 v w (see fp12_sparse.c), scaled by Fp2 factors and w^3 which the final exponentiation kills
 * (Costello, Lange, Naehrig, "Faster pairing computations on curves with high-degree twists", PKC 2010):
 *   doubling:  B = Y^2, C = Z^2, E = 3b'C, F = 3E, H = 2YZ,
 *              X' = XY/2 (B - F),  Y' = ((B + F)/2)^2 - 3E^2,  Z' = B H
 *              l = (E - B) + 3X^2 xP v - H yP v w                                (3M + 6S + 2 Fp2-by-Fp muls)
 *   addition (Q affine):  theta = Y - yQ Z, lambda = X - xQ Z,
 *              E = lambda^3, F = Z theta^2, G = X lambda^2, H = E + F - 2G,
 *              X' = lambda H,  Y' = theta (G - H) - E Y,  Z' = Z E
 *              l = (theta xQ - lambda yQ) - theta xP v + lambda yP v w          (11M + 2S + 2 Fp2-by-Fp muls)
 * Since x < 0 the loop ends with f = conj(f) = f^(p^6), which equals f^(-1) up to a factor killed by the easy part.
 * The multi-Miller loop runs the pairs side by side so that the 63 squarings of f are shared; pairs with a point at
 * infinity contribute 1 and are skipped. Pairs are processed in chunks of CZK__ML_CHUNK (no allocation).
 *
 * Final exponentiation (p^12 - 1)/r = (p^6 - 1)(p^2 + 1) * (p^4 - p^2 + 1)/r.
 *   easy part: m = f^(p^6 - 1) = conj(f) f^(-1), then m = m^(p^2) m (1 inversion, 2 muls, 1 Frobenius); m is now in
 *   the cyclotomic subgroup, so squarings are cyclotomic squarings and inverses are conjugates.
 *   hard part, the x-chain of Hayashida, Hayasaka and Teruya (eprint 2020/875), which raises to 3 (p^4 - p^2 + 1)/r:
 *     3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3
 *                         = (x - 1)^2 [(x^3 - x) + (x^2 - 1) p + x p^2 + p^3] + 3.
 *   With a = m^((x - 1)^2) (two exponentiations by x), b = a^x, c = b^x, d = c^x:
 *     m^(3 hard) = a^(p^3) b^(p^2) (c / a)^p (d / b) m^3.
 *   The result is e(P, Q)^3 for the textbook exponent; since 3 does not divide r this is the same bilinear,
 *   non-degenerate pairing, and it is the value that zkcrypto's bls12_381 (and so the bellperson ecosystem) computes:
 *   the tests compare e(G1, G2) with zkcrypto's published Gt generator. Cost: 5 exponentiations by |x| (each 63
 *   compressed (Karabina) cyclotomic squarings of 6 S2, one batched decompression of 6 values, 5 multiplications)
 *   + 10 Fp12 multiplications, 3 Frobenius maps, 1 Fp12 inversion (easy part). */
#include "czk/curve.h"
#include "curve/constants.h"
#include "curve/curve_internal.h"

#define CZK__ML_CHUNK 16

typedef struct {
  czk_fp2 x, y, z;
} g2_proj;

/* 3b' = 12(u + 1): r = 12 (a0 - a1) + 12 (a0 + a1) u = 12 * a * xi */
static void mul_by_3b(czk_fp2 *r, const czk_fp2 *a) {
  czk_fp2 t;
  czk_fp2_mul_by_nonresidue(&t, a);
  czk_fp2_add(r, &t, &t);
  czk_fp2_add(r, r, &t); /* 3 */
  czk_fp2_dbl(r, r);     /* 6 */
  czk_fp2_dbl(r, r);     /* 12 */
}

static void fp2_half(czk_fp2 *r, const czk_fp2 *a) {
  czk_fp_half(&r->c0, &a->c0);
  czk_fp_half(&r->c1, &a->c1);
}

/* Doubling step; writes the line coefficients (c0, c1 = 3X^2, c4 = -H) before the P-dependent scaling. */
static void dbl_step(g2_proj *t, czk_fp2 *l0, czk_fp2 *l1, czk_fp2 *l4) {
  czk_fp2 a, b, c, e, f, g, h, j;
  czk_fp2_mul(&a, &t->x, &t->y);
  fp2_half(&a, &a);
  czk_fp2_sqr(&b, &t->y);
  czk_fp2_sqr(&c, &t->z);
  mul_by_3b(&e, &c);
  czk_fp2_add(&f, &e, &e);
  czk_fp2_add(&f, &f, &e);
  czk_fp2_add(&g, &b, &f);
  fp2_half(&g, &g);
  czk_fp2_add(&h, &t->y, &t->z);
  czk_fp2_sqr(&h, &h);
  czk_fp2_sub(&h, &h, &b);
  czk_fp2_sub(&h, &h, &c); /* 2YZ */
  czk_fp2_sqr(&j, &t->x);
  /* lines */
  czk_fp2_sub(l0, &e, &b);
  czk_fp2_add(l1, &j, &j);
  czk_fp2_add(l1, l1, &j);
  czk_fp2_neg(l4, &h);
  /* point */
  czk_fp2_sub(&t->x, &b, &f);
  czk_fp2_mul(&t->x, &t->x, &a);
  czk_fp2_sqr(&e, &e); /* E^2 */
  czk_fp2_sqr(&g, &g);
  czk_fp2_sub(&g, &g, &e);
  czk_fp2_sub(&g, &g, &e);
  czk_fp2_sub(&t->y, &g, &e);
  czk_fp2_mul(&t->z, &b, &h);
}

/* Addition step T += Q (Q affine, T != +-Q during the loop since T = [k]Q with 1 < k < r). */
static void add_step(g2_proj *t, const czk_g2_affine *q, czk_fp2 *l0, czk_fp2 *l1, czk_fp2 *l4) {
  czk_fp2 theta, lambda, c, d, e, f, g, h, s;
  czk_fp2_mul(&theta, &q->y, &t->z);
  czk_fp2_sub(&theta, &t->y, &theta);
  czk_fp2_mul(&lambda, &q->x, &t->z);
  czk_fp2_sub(&lambda, &t->x, &lambda);
  czk_fp2_sqr(&c, &theta);
  czk_fp2_sqr(&d, &lambda);
  czk_fp2_mul(&e, &lambda, &d);
  czk_fp2_mul(&f, &t->z, &c);
  czk_fp2_mul(&g, &t->x, &d);
  czk_fp2_add(&h, &e, &f);
  czk_fp2_sub(&h, &h, &g);
  czk_fp2_sub(&h, &h, &g);
  czk_fp2_mul(&t->x, &lambda, &h);
  czk_fp2_sub(&s, &g, &h);
  czk_fp2_mul(&s, &s, &theta);
  czk_fp2_mul(&g, &e, &t->y);
  czk_fp2_sub(&t->y, &s, &g);
  czk_fp2_mul(&t->z, &t->z, &e);
  /* lines */
  czk_fp2_mul(&s, &theta, &q->x);
  czk_fp2_mul(&g, &lambda, &q->y);
  czk_fp2_sub(l0, &s, &g);
  czk_fp2_neg(l1, &theta);
  *l4 = lambda;
}

/* f *= l(P) where l = l0 + l1 xP v + l4 yP v w */
static void ell(czk_fp12 *f, const czk_fp2 *l0, const czk_fp2 *l1, const czk_fp2 *l4, const czk_g1_affine *p) {
  czk_fp2 a, b;
  czk_fp2_mul_fp(&a, l1, &p->x);
  czk_fp2_mul_fp(&b, l4, &p->y);
  czk__fp12_mul_by_014(f, l0, &a, &b);
}

/* f = prod MillerLoop(p[i], q[i]) over n <= CZK__ML_CHUNK pairs, none at infinity; before the final conjugation. */
static void miller_chunk(czk_fp12 *f, const czk_g1_affine *p, const czk_g2_affine *q, size_t n) {
  g2_proj t[CZK__ML_CHUNK];
  czk_fp2 l0, l1, l4;
  for (size_t i = 0; i < n; i++) {
    t[i].x = q[i].x;
    t[i].y = q[i].y;
    czk_fp2_set_one(&t[i].z);
  }
  czk_fp12_set_one(f);
  for (int bit = 62; bit >= 0; bit--) {
    if (bit != 62) czk_fp12_sqr(f, f);
    for (size_t i = 0; i < n; i++) {
      dbl_step(&t[i], &l0, &l1, &l4);
      ell(f, &l0, &l1, &l4, &p[i]);
    }
    if ((CZK__BLS_Z >> bit) & 1) {
      for (size_t i = 0; i < n; i++) {
        add_step(&t[i], &q[i], &l0, &l1, &l4);
        ell(f, &l0, &l1, &l4, &p[i]);
      }
    }
  }
}

void czk_miller_loop_n(czk_fp12 *f, const czk_g1_affine *p, const czk_g2_affine *q, size_t n) {
  czk_fp12 acc, part;
  czk_fp12_set_one(&acc);
  czk_g1_affine pc[CZK__ML_CHUNK];
  czk_g2_affine qc[CZK__ML_CHUNK];
  size_t m = 0;
  bool any = false;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && !czk_g1_affine_is_infinity(&p[i]) && !czk_g2_affine_is_infinity(&q[i])) {
      pc[m] = p[i];
      qc[m] = q[i];
      m++;
    }
    if (m == CZK__ML_CHUNK || (i == n && m > 0)) {
      miller_chunk(&part, pc, qc, m);
      if (any)
        czk_fp12_mul(&acc, &acc, &part);
      else
        acc = part;
      any = true;
      m = 0;
    }
  }
  czk_fp12_conj(f, &acc); /* x < 0 */
}

void czk_miller_loop(czk_fp12 *f, const czk_g1_affine *p, const czk_g2_affine *q) { czk_miller_loop_n(f, p, q, 1); }

/* r = a^|x|: 63 compressed cyclotomic squarings, one batched decompression of the 6 powers a^(2^j) at the set
 * bits of |x|, 5 multiplications (czk_fp12_cyclotomic_pow_u64). In the negligible case where a compressed power
 * cannot be decompressed (never for random-looking inputs; see fp12.c) it falls back to square-and-multiply with
 * Granger-Scott squarings (63 squarings, 5 multiplications); both give the same value. */
static void cyc_exp_z(czk_fp12 *r, const czk_fp12 *a) {
  if (czk_fp12_cyclotomic_pow_u64(r, a, CZK__BLS_Z)) return;
  czk_fp12 t = *a;
  for (int bit = 62; bit >= 0; bit--) {
    czk_fp12_cyclotomic_sqr(&t, &t);
    if ((CZK__BLS_Z >> bit) & 1) czk_fp12_mul(&t, &t, a);
  }
  *r = t;
}

/* r = a^x = conj(a^|x|) (a in the cyclotomic subgroup). */
static void cyc_exp_x(czk_fp12 *r, const czk_fp12 *a) {
  cyc_exp_z(r, a);
  czk_fp12_conj(r, r);
}

void czk_final_exponentiation(czk_fp12 *r, const czk_fp12 *f) {
  czk_fp12 m, t, a, b, c, d, y;
  /* easy part */
  czk_fp12_inv(&t, f);
  czk_fp12_conj(&m, f);
  czk_fp12_mul(&m, &m, &t);
  czk_fp12_frobenius(&t, &m, 2);
  czk_fp12_mul(&m, &m, &t);
  /* hard part */
  cyc_exp_x(&t, &m);
  czk_fp12_conj(&y, &m);
  czk_fp12_mul(&t, &t, &y); /* m^(x-1) */
  cyc_exp_x(&a, &t);
  czk_fp12_conj(&t, &t);
  czk_fp12_mul(&a, &a, &t); /* a = m^((x-1)^2) */
  cyc_exp_x(&b, &a);
  cyc_exp_x(&c, &b);
  cyc_exp_x(&d, &c);
  czk_fp12_frobenius(&y, &a, 3); /* a^(p^3) */
  czk_fp12_frobenius(&t, &b, 2);
  czk_fp12_mul(&y, &y, &t); /* * b^(p^2) */
  czk_fp12_conj(&t, &a);
  czk_fp12_mul(&t, &t, &c);
  czk_fp12_frobenius(&t, &t, 1);
  czk_fp12_mul(&y, &y, &t); /* * (c / a)^p */
  czk_fp12_conj(&t, &b);
  czk_fp12_mul(&t, &t, &d);
  czk_fp12_mul(&y, &y, &t); /* * d / b */
  czk_fp12_cyclotomic_sqr(&t, &m);
  czk_fp12_mul(&t, &t, &m);
  czk_fp12_mul(r, &y, &t); /* * m^3 */
}

void czk_pairing(czk_fp12 *r, const czk_g1_affine *p, const czk_g2_affine *q) {
  czk_fp12 f;
  czk_miller_loop(&f, p, q);
  czk_final_exponentiation(r, &f);
}

bool czk_pairing_product_is_one(const czk_g1_affine *p, const czk_g2_affine *q, size_t n) {
  czk_fp12 f, r;
  czk_miller_loop_n(&f, p, q, n);
  czk_final_exponentiation(&r, &f);
  return czk_fp12_is_one(&r);
}
