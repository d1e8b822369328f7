/* ec_impl.h: the one short-Weierstrass (a = 0) point implementation behind G1 (over Fp) and G2 (over Fp2).
 *
 * Included exactly once by g1.c and once by g2.c, after defining:
 *   EC_G     g1 | g2              public name part (czk_<EC_G>_add ...)
 *   EC_F     fp | fp2             field name part (czk_<EC_F>_mul ...)
 *   EC_FE    czk_fp | czk_fp2     field element type
 *   EC_AFF, EC_JAC, EC_XYZZ       point types (czk_g1_affine, czk_g1, czk_g1_xyzz, ...)
 *   EC_B     an expression of type const EC_FE *: the curve constant b (y^2 = x^3 + b)
 * Everything the including file then needs (generator, subgroup check, codec) is written there.
 *
 * Coordinates (curve.h): affine (x, y) with infinity (0, 0) -- (0, 0) is never on the curve since b != 0; Jacobian
 * (X, Y, Z), x = X/Z^2, y = Y/Z^3, infinity Z = 0; XYZZ (X, Y, ZZ, ZZZ), x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, infinity
 * ZZ = ZZZ = 0.
 *
 * Constant time: every function not named *_vartime has no branch or memory index that depends on point or scalar
 * values: special cases (P = Q, P = -Q, infinity) are handled by computing the generic result and selecting with
 * field cmov. The additions are "unified" (the idea of blst's add-or-double): the chord slope R/H of the addition
 * formula is replaced, when H = R = 0 (P = Q), by the tangent slope 3x^2/(2y) written over the same denominators,
 * so one formula serves both cases:
 *
 *   Jacobian, P1 + P2:  U1 = X1 Z2^2, U2 = X2 Z1^2, S1 = Y1 Z2^3, S2 = Y2 Z1^3, zz = Z1 Z2,
 *                       H = U2 - U1, R = S2 - S1;  if H = R = 0: H = 2 S1, R = 3 U1^2
 *                       X3 = R^2 - H^2 (U1 + U2),  Y3 = R (H^2 U1 - X3) - H^3 S1,  Z3 = H zz
 *                       (13M + 4S (+1S for the doubling slope); mixed with Z2 = 1: 7M + 4S (+1S) as in
 *                       madd-2007-bl, Z3 from a squaring; P = -Q gives H = 0, R != 0, so Z3 = 0)
 *   XYZZ, P1 + P2:      U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1;
 *                       if P = R = 0: P = 2 S1, R = 3 U1^2, and the PPP term of X3 is dropped
 *                       PP = P^2, PPP = P PP, Q = U1 PP, X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - S1 PPP,
 *                       ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP   (12M + 3S; mixed with ZZ2 = ZZZ2 = 1: 8M + 3S)
 *   Jacobian doubling:  dbl-2009-l, A = X^2, B = Y^2, C = B^2, D = 2((X+B)^2 - A - C), E = 3A,
 *                       X3 = E^2 - 2D, Y3 = E (D - X3) - 8C, Z3 = 2YZ   (2M + 5S)
 *   XYZZ doubling:      U = 2Y, V = U^2, W = U V, S = X V, M = 3X^2, X3 = M^2 - 2S, Y3 = M (S - X3) - W Y,
 *                       ZZ3 = V ZZ, ZZZ3 = W ZZZ   (6M + 3S)
 *
 * Scalar multiplication: constant-time signed fixed window (w = 5, 52 digits in [-16, 16], 255 doublings + 52
 * additions, table of 16 Jacobian points scanned in full for each lookup); variable-time width-5 wNAF over an affine
 * table of odd multiples; fixed-base: a table of 2^(w-1) affine multiples d 2^(wj) B per window j, so one
 * multiplication is floor(255/w)+1 mixed additions and no doubling, with constant-time (full-scan) lookups;
 * fixed_base_mul_batch_vartime uses the same table for many scalars at once: direct lookups and batched affine
 * additions (one inversion per window pass over a chunk of accumulators, see affine_batch_add_impl).
 * mul_vartime (Fr scalars, subgroup points) is written in g1.c / g2.c on top of multi_mul_wnaf_vartime: the scalar is
 * split in base |x| and the endomorphism (sigma on G1, psi on G2) supplies the other bases (GLV / GLS). */

#define EC_CAT_(a, b, c) a##b##c
#define EC_CAT(a, b, c) EC_CAT_(a, b, c)
#define EC_FN(name) EC_CAT(czk_, EC_G, _##name)
#define FE(op) EC_CAT(czk_, EC_F, _##op)
#define EC_FB EC_CAT(czk_, EC_G, _fixed_base)

/* ------------------------------------------------------------------------------------------------ field helpers */
static inline void fe_mul3(EC_FE *r, const EC_FE *a) {
  EC_FE t;
  FE(dbl)(&t, a);
  FE(add)(r, &t, a);
}
static inline void fe_one(EC_FE *r) { FE(set_one)(r); }
static inline void fe_zero(EC_FE *r) { FE(set_zero)(r); }

static inline void jac_cmov(EC_JAC *r, const EC_JAC *a, const EC_JAC *b, bool c) {
  FE(cmov)(&r->x, &a->x, &b->x, c);
  FE(cmov)(&r->y, &a->y, &b->y, c);
  FE(cmov)(&r->z, &a->z, &b->z, c);
}
static inline void aff_cmov(EC_AFF *r, const EC_AFF *a, const EC_AFF *b, bool c) {
  FE(cmov)(&r->x, &a->x, &b->x, c);
  FE(cmov)(&r->y, &a->y, &b->y, c);
}
static inline void xyzz_cmov(EC_XYZZ *r, const EC_XYZZ *a, const EC_XYZZ *b, bool c) {
  FE(cmov)(&r->x, &a->x, &b->x, c);
  FE(cmov)(&r->y, &a->y, &b->y, c);
  FE(cmov)(&r->zz, &a->zz, &b->zz, c);
  FE(cmov)(&r->zzz, &a->zzz, &b->zzz, c);
}

/* ------------------------------------------------------------------------------------------------ basics */
void EC_FN(set_infinity)(EC_JAC *r) {
  fe_one(&r->x);
  fe_one(&r->y);
  fe_zero(&r->z);
}

bool EC_FN(is_infinity)(const EC_JAC *p) { return FE(is_zero)(&p->z); }

/* Bools are combined with & and | as integers throughout: no short circuit (constant time). */
bool EC_FN(affine_is_infinity)(const EC_AFF *p) { return (unsigned)FE(is_zero)(&p->x) & (unsigned)FE(is_zero)(&p->y); }

bool EC_FN(affine_eq)(const EC_AFF *p, const EC_AFF *q) { return (unsigned)FE(eq)(&p->x, &q->x) & (unsigned)FE(eq)(&p->y, &q->y); }

bool EC_FN(eq)(const EC_JAC *p, const EC_JAC *q) {
  bool pi = FE(is_zero)(&p->z), qi = FE(is_zero)(&q->z);
  EC_FE z1z1, z2z2, u1, u2, s1, s2;
  FE(sqr)(&z1z1, &p->z);
  FE(sqr)(&z2z2, &q->z);
  FE(mul)(&u1, &p->x, &z2z2);
  FE(mul)(&u2, &q->x, &z1z1);
  FE(mul)(&s1, &p->y, &q->z);
  FE(mul)(&s1, &s1, &z2z2);
  FE(mul)(&s2, &q->y, &p->z);
  FE(mul)(&s2, &s2, &z1z1);
  bool same = (unsigned)FE(eq)(&u1, &u2) & (unsigned)FE(eq)(&s1, &s2);
  return (pi & qi) | (!pi & !qi & same);
}

void EC_FN(from_affine)(EC_JAC *r, const EC_AFF *p) {
  bool inf = EC_FN(affine_is_infinity)(p);
  EC_FE one, zero;
  fe_one(&one);
  fe_zero(&zero);
  r->x = p->x;
  r->y = p->y;
  FE(cmov)(&r->z, &one, &zero, inf);
}

void EC_FN(to_affine)(EC_AFF *r, const EC_JAC *p) {
  EC_FE zi, zi2;
  FE(inv)(&zi, &p->z); /* 0 -> 0, so infinity maps to (0, 0) */
  FE(sqr)(&zi2, &zi);
  FE(mul)(&r->x, &p->x, &zi2);
  FE(mul)(&zi2, &zi2, &zi);
  FE(mul)(&r->y, &p->y, &zi2);
}

/* Montgomery's trick with the prefix products kept in r[i].x (r and p do not overlap), one inversion (constant-time
 * or vartime). Points at infinity use 1 in the product and come out as (0, 0). Cost 3(n-1)M + 1I for the inverses
 * plus 3M + 1S per point. */
static void batch_to_affine_impl(EC_AFF *r, const EC_JAC *p, size_t n, bool vartime) {
  if (n == 0) return;
  EC_FE acc, one, zi, zi2, z;
  fe_one(&one);
  acc = one;
  for (size_t i = 0; i < n; i++) {
    r[i].x = acc;
    FE(cmov)(&z, &p[i].z, &one, FE(is_zero)(&p[i].z));
    FE(mul)(&acc, &acc, &z);
  }
  if (vartime)
    FE(inv_vartime)(&acc, &acc);
  else
    FE(inv)(&acc, &acc);
  for (size_t i = n; i-- > 0;) {
    bool inf = FE(is_zero)(&p[i].z);
    FE(mul)(&zi, &acc, &r[i].x); /* 1 / z_i */
    FE(cmov)(&z, &p[i].z, &one, inf);
    FE(mul)(&acc, &acc, &z);
    FE(sqr)(&zi2, &zi);
    FE(mul)(&r[i].x, &p[i].x, &zi2);
    FE(mul)(&zi2, &zi2, &zi);
    FE(mul)(&r[i].y, &p[i].y, &zi2);
    EC_FE zero;
    fe_zero(&zero);
    FE(cmov)(&r[i].x, &r[i].x, &zero, inf);
    FE(cmov)(&r[i].y, &r[i].y, &zero, inf);
  }
}

czk_status EC_FN(batch_to_affine)(EC_AFF *r, const EC_JAC *p, size_t n) {
  if (n == 0) return CZK_OK;
  if (!r || !p) return CZK_ERR_INVALID_ARG;
  batch_to_affine_impl(r, p, n, false);
  return CZK_OK;
}

void EC_FN(neg)(EC_JAC *r, const EC_JAC *p) {
  r->x = p->x;
  FE(neg)(&r->y, &p->y);
  r->z = p->z;
}

void EC_FN(affine_neg)(EC_AFF *r, const EC_AFF *p) {
  r->x = p->x;
  FE(neg)(&r->y, &p->y); /* (0, 0) stays (0, 0) */
}

/* ------------------------------------------------------------------------------------------------ Jacobian ops */
void EC_FN(dbl)(EC_JAC *r, const EC_JAC *p) {
  EC_FE a, b, c, d, e, f, t;
  FE(sqr)(&a, &p->x);
  FE(sqr)(&b, &p->y);
  FE(sqr)(&c, &b);
  FE(add)(&d, &p->x, &b);
  FE(sqr)(&d, &d);
  FE(sub)(&d, &d, &a);
  FE(sub)(&d, &d, &c);
  FE(dbl)(&d, &d);
  fe_mul3(&e, &a);
  FE(sqr)(&f, &e);
  FE(mul)(&t, &p->y, &p->z);
  FE(dbl)(&r->z, &t); /* p->y, p->z no longer needed */
  FE(dbl)(&t, &d);
  FE(sub)(&r->x, &f, &t);
  FE(sub)(&t, &d, &r->x);
  FE(mul)(&t, &e, &t);
  FE(dbl)(&c, &c);
  FE(dbl)(&c, &c);
  FE(dbl)(&c, &c);
  FE(sub)(&r->y, &t, &c);
}

/* Shared tail of the unified additions: given U1, U2, S1, S2 (Jacobian-scaled to a common zz) and zz, writes
 * the sum (or the double when the points coincide) to r:  H = U2 - U1, R = S2 - S1 (doubling: H = 2 S1, R = 3 U1^2),
 *   HH = H^2, HHH = H HH, V = HH U1,  X3 = R^2 - HHH - 2V,  Y3 = R (V - X3) - S1 HHH,  Z3 = H zz
 * (X3 = R^2 - HH (U1 + U2) since H = U2 - U1; in the doubling case the HHH term is dropped: X3 = R^2 - 2 HH U1).
 * With zzsq = zz^2 known (mixed addition: zz = Z1, zzsq = Z1Z1) the multiplication H zz is replaced by a squaring,
 * (zz + H)^2 - zzsq - HH = 2 H zz, and the result is the same point scaled by 2 (madd-2007-bl): HH -> I = 4 HH,
 * HHH -> J = H I, V = U1 I, R -> 2R, Y3 = 2R (V - X3) - 2 S1 J. Cost: 5M + 3S, or 4M + 4S with zzsq (+1S for the
 * doubling slope U1^2). */
static void jac_add_tail(EC_JAC *r, const EC_FE *u1, const EC_FE *u2, const EC_FE *s1, const EC_FE *s2,
                         const EC_FE *zz, const EC_FE *zzsq) {
  EC_FE h, rr, hd, rd, hh, hhh, v, t, zero;
  FE(sub)(&h, u2, u1);
  FE(sub)(&rr, s2, s1);
  bool d = (unsigned)FE(is_zero)(&h) & (unsigned)FE(is_zero)(&rr);
  FE(dbl)(&hd, s1);
  FE(sqr)(&rd, u1);
  fe_mul3(&rd, &rd);
  FE(cmov)(&h, &h, &hd, d);
  FE(cmov)(&rr, &rr, &rd, d);
  FE(sqr)(&hh, &h);
  if (zzsq) {
    FE(add)(&t, zz, &h);
    FE(sqr)(&t, &t);
    FE(sub)(&t, &t, zzsq);
    FE(sub)(&r->z, &t, &hh); /* 2 H zz */
    FE(dbl)(&hh, &hh);
    FE(dbl)(&hh, &hh); /* I = 4 HH */
    FE(dbl)(&rr, &rr);
  } else {
    FE(mul)(&r->z, &h, zz);
  }
  FE(mul)(&hhh, &hh, &h); /* HHH (or J) */
  FE(mul)(&v, &hh, u1);
  fe_zero(&zero);
  FE(cmov)(&t, &hhh, &zero, d);
  FE(sqr)(&r->x, &rr);
  FE(sub)(&r->x, &r->x, &t);
  FE(sub)(&r->x, &r->x, &v);
  FE(sub)(&r->x, &r->x, &v);
  FE(sub)(&t, &v, &r->x);
  FE(mul)(&t, &t, &rr);
  FE(mul)(&hhh, &hhh, s1);
  if (zzsq) FE(dbl)(&hhh, &hhh); /* 2 S1 J */
  FE(sub)(&r->y, &t, &hhh);
}

void EC_FN(add)(EC_JAC *r, const EC_JAC *p, const EC_JAC *q) {
  bool pi = FE(is_zero)(&p->z), qi = FE(is_zero)(&q->z);
  EC_FE z1z1, z2z2, u1, u2, s1, s2, zz;
  FE(sqr)(&z1z1, &p->z);
  FE(sqr)(&z2z2, &q->z);
  FE(mul)(&u1, &p->x, &z2z2);
  FE(mul)(&u2, &q->x, &z1z1);
  FE(mul)(&s1, &p->y, &q->z);
  FE(mul)(&s1, &s1, &z2z2);
  FE(mul)(&s2, &q->y, &p->z);
  FE(mul)(&s2, &s2, &z1z1);
  FE(mul)(&zz, &p->z, &q->z);
  EC_JAC out, pp = *p, qq = *q;
  jac_add_tail(&out, &u1, &u2, &s1, &s2, &zz, NULL);
  jac_cmov(&out, &out, &qq, pi);
  jac_cmov(r, &out, &pp, qi);
}

void EC_FN(add_affine)(EC_JAC *r, const EC_JAC *p, const EC_AFF *q) {
  bool pi = FE(is_zero)(&p->z), qi = EC_FN(affine_is_infinity)(q);
  EC_FE z1z1, u2, s2;
  FE(sqr)(&z1z1, &p->z);
  FE(mul)(&u2, &q->x, &z1z1);
  FE(mul)(&s2, &q->y, &p->z);
  FE(mul)(&s2, &s2, &z1z1);
  EC_JAC out, pp = *p, qj;
  EC_FN(from_affine)(&qj, q);
  jac_add_tail(&out, &pp.x, &u2, &pp.y, &s2, &pp.z, &z1z1);
  jac_cmov(&out, &out, &qj, pi);
  jac_cmov(r, &out, &pp, qi);
}

/* ------------------------------------------------------------------------------------------------ XYZZ ops */
void EC_FN(xyzz_set_infinity)(EC_XYZZ *r) {
  fe_one(&r->x);
  fe_one(&r->y);
  fe_zero(&r->zz);
  fe_zero(&r->zzz);
}

/* Shared tail of the unified XYZZ additions (see the file comment); zz12 / zzz12 are ZZ1 ZZ2 and ZZZ1 ZZZ2. */
static void xyzz_add_tail(EC_XYZZ *r, const EC_FE *u1, const EC_FE *u2, const EC_FE *s1, const EC_FE *s2,
                          const EC_FE *zz12, const EC_FE *zzz12) {
  EC_FE p, rr, pd, rd, pp, ppp, q, t, zero;
  FE(sub)(&p, u2, u1);
  FE(sub)(&rr, s2, s1);
  bool d = (unsigned)FE(is_zero)(&p) & (unsigned)FE(is_zero)(&rr);
  FE(dbl)(&pd, s1);
  FE(sqr)(&rd, u1);
  fe_mul3(&rd, &rd);
  FE(cmov)(&p, &p, &pd, d);
  FE(cmov)(&rr, &rr, &rd, d);
  FE(sqr)(&pp, &p);
  FE(mul)(&ppp, &pp, &p);
  FE(mul)(&q, u1, &pp);
  fe_zero(&zero);
  FE(cmov)(&t, &ppp, &zero, d);
  FE(mul)(&r->zz, zz12, &pp);
  FE(mul)(&r->zzz, zzz12, &ppp);
  FE(sqr)(&r->x, &rr);
  FE(sub)(&r->x, &r->x, &t);
  FE(sub)(&r->x, &r->x, &q);
  FE(sub)(&r->x, &r->x, &q);
  FE(sub)(&t, &q, &r->x);
  FE(mul)(&t, &t, &rr);
  FE(mul)(&ppp, &ppp, s1);
  FE(sub)(&r->y, &t, &ppp);
}

static void xyzz_from_affine(EC_XYZZ *r, const EC_AFF *q) {
  bool inf = EC_FN(affine_is_infinity)(q);
  EC_FE one, zero;
  fe_one(&one);
  fe_zero(&zero);
  r->x = q->x;
  r->y = q->y;
  FE(cmov)(&r->zz, &one, &zero, inf);
  r->zzz = r->zz;
}

void EC_FN(xyzz_add_affine)(EC_XYZZ *r, const EC_XYZZ *p, const EC_AFF *q) {
  bool pi = FE(is_zero)(&p->zz), qi = EC_FN(affine_is_infinity)(q);
  EC_FE u2, s2;
  FE(mul)(&u2, &q->x, &p->zz);
  FE(mul)(&s2, &q->y, &p->zzz);
  EC_XYZZ out, pp = *p, qx;
  xyzz_from_affine(&qx, q);
  xyzz_add_tail(&out, &pp.x, &u2, &pp.y, &s2, &pp.zz, &pp.zzz);
  xyzz_cmov(&out, &out, &qx, pi);
  xyzz_cmov(r, &out, &pp, qi);
}

void EC_FN(xyzz_add)(EC_XYZZ *r, const EC_XYZZ *p, const EC_XYZZ *q) {
  bool pi = FE(is_zero)(&p->zz), qi = FE(is_zero)(&q->zz);
  EC_FE u1, u2, s1, s2, zz12, zzz12;
  FE(mul)(&u1, &p->x, &q->zz);
  FE(mul)(&u2, &q->x, &p->zz);
  FE(mul)(&s1, &p->y, &q->zzz);
  FE(mul)(&s2, &q->y, &p->zzz);
  FE(mul)(&zz12, &p->zz, &q->zz);
  FE(mul)(&zzz12, &p->zzz, &q->zzz);
  EC_XYZZ out, pp = *p, qq = *q;
  xyzz_add_tail(&out, &u1, &u2, &s1, &s2, &zz12, &zzz12);
  xyzz_cmov(&out, &out, &qq, pi);
  xyzz_cmov(r, &out, &pp, qi);
}

void EC_FN(xyzz_dbl)(EC_XYZZ *r, const EC_XYZZ *p) {
  EC_FE u, v, w, s, m, t;
  FE(dbl)(&u, &p->y);
  FE(sqr)(&v, &u);
  FE(mul)(&w, &u, &v);
  FE(mul)(&s, &p->x, &v);
  FE(sqr)(&m, &p->x);
  fe_mul3(&m, &m);
  FE(mul)(&t, &w, &p->y); /* W Y, before r->y may overwrite p->y */
  FE(mul)(&r->zz, &v, &p->zz);
  FE(mul)(&r->zzz, &w, &p->zzz);
  FE(sqr)(&r->x, &m);
  FE(sub)(&r->x, &r->x, &s);
  FE(sub)(&r->x, &r->x, &s);
  FE(sub)(&s, &s, &r->x);
  FE(mul)(&s, &s, &m);
  FE(sub)(&r->y, &s, &t);
}

/* (X, Y, ZZ, ZZZ) -> Jacobian (X ZZ^2, Y ZZZ^2, ZZZ): with ZZ = z^2, ZZZ = z^3 this is the Jacobian point with
 * Z = z^3, since X ZZ^2 / ZZZ^2 = X / ZZ and Y ZZZ^2 / ZZZ^3 = Y / ZZZ (uses ZZ^3 = ZZZ^2). 2M + 2S. */
void EC_FN(xyzz_to_jacobian)(EC_JAC *r, const EC_XYZZ *p) {
  bool inf = FE(is_zero)(&p->zz);
  EC_FE t, zero;
  fe_zero(&zero);
  EC_FE zzz = p->zzz;
  FE(sqr)(&t, &p->zz);
  FE(mul)(&r->x, &p->x, &t);
  FE(sqr)(&t, &zzz);
  FE(mul)(&r->y, &p->y, &t);
  FE(cmov)(&r->z, &zzz, &zero, inf);
}

/* ------------------------------------------------------------------------------------------------ scalar mul */
/* w-bit window number i of a little-endian limb array of n limbs (bits past the end read as 0); w <= 32. */
static inline uint64_t scalar_window(const uint64_t *k, size_t n, size_t bit, unsigned w) {
  size_t li = bit / 64, sh = bit % 64;
  uint64_t v = li < n ? k[li] >> sh : 0;
  if (sh + w > 64 && li + 1 < n) v |= k[li + 1] << (64 - sh);
  return v & (((uint64_t)1 << w) - 1);
}

/* Constant-time: r = table[|d| - 1] (infinity when d = 0), negated when d < 0. table holds 1P..nP. */
static void jac_lookup_ct(EC_JAC *r, const EC_JAC *table, unsigned n, int64_t d) {
  uint64_t mask = (uint64_t)(d >> 63);
  uint64_t abs = ((uint64_t)d ^ mask) - mask;
  EC_FN(set_infinity)(r);
  for (unsigned j = 0; j < n; j++) {
    bool hit = ((abs ^ (uint64_t)(j + 1)) - 1) >> 63; /* abs == j + 1 */
    jac_cmov(r, r, &table[j], hit);
  }
  EC_FE ny;
  FE(neg)(&ny, &r->y);
  FE(cmov)(&r->y, &r->y, &ny, mask & 1);
}

#define EC_CT_W 5
#define EC_CT_DIGITS 52 /* ceil(256 / 5) + 0: bit 255 of a canonical Fr value is 0, so digit 51 absorbs the carry */

void EC_FN(mul)(EC_JAC *r, const EC_JAC *p, const czk_fr *k) {
  uint64_t kr[4];
  czk_fr_to_raw(kr, k);
  /* signed digits d_i in [-15, 16], sum d_i 2^(5i) = k */
  int64_t dig[EC_CT_DIGITS];
  uint64_t carry = 0;
  for (unsigned i = 0; i < EC_CT_DIGITS; i++) {
    uint64_t v = scalar_window(kr, 4, (size_t)i * EC_CT_W, EC_CT_W) + carry; /* 0..32 */
    carry = (uint64_t)(16 - (int64_t)v) >> 63;                              /* v > 16 */
    dig[i] = (int64_t)v - (int64_t)(carry << EC_CT_W);
  }
  EC_JAC table[16], acc, t;
  table[0] = *p;
  EC_FN(dbl)(&table[1], p);
  for (unsigned j = 2; j < 16; j++) EC_FN(add)(&table[j], &table[j - 1], p);
  jac_lookup_ct(&acc, table, 16, dig[EC_CT_DIGITS - 1]);
  for (unsigned i = EC_CT_DIGITS - 1; i-- > 0;) {
    for (unsigned b = 0; b < EC_CT_W; b++) EC_FN(dbl)(&acc, &acc);
    jac_lookup_ct(&t, table, 16, dig[i]);
    EC_FN(add)(&acc, &acc, &t);
  }
  *r = acc;
  memset(kr, 0, sizeof kr);
  memset(dig, 0, sizeof dig);
}

/* Width-5 NAF of a little-endian limb array (n <= EC_WNAF_MAX_LIMBS): digits odd in [-15, 15] or 0, at most one
 * non-zero digit in any 5 consecutive positions. Returns the number of digits. Variable time. */
#define EC_WNAF_MAX_LIMBS 16
static size_t wnaf5(int8_t *naf, const uint64_t *k, size_t n) {
  uint64_t t[EC_WNAF_MAX_LIMBS + 1];
  memcpy(t, k, n * sizeof *t);
  t[n] = 0;
  size_t len = 0, top = n + 1;
  for (;;) {
    while (top > 0 && t[top - 1] == 0) top--;
    if (top == 0) break;
    int d = 0;
    if (t[0] & 1) {
      d = (int)(t[0] & 31);
      if (d >= 16) d -= 32;
      if (d > 0) { /* t -= d */
        uint64_t b = (uint64_t)d;
        for (size_t i = 0; i < top && b; i++) {
          uint64_t o = t[i];
          t[i] = o - b;
          b = o < b;
        }
      } else { /* t += -d */
        uint64_t c = (uint64_t)(-d);
        for (size_t i = 0; i <= n && c; i++) {
          t[i] += c;
          c = t[i] < c;
        }
        if (top < n + 1 && t[top]) top++;
      }
    }
    naf[len++] = (int8_t)d;
    for (size_t i = 0; i + 1 < top; i++) t[i] = (t[i] >> 1) | (t[i + 1] << 63);
    t[top - 1] >>= 1;
  }
  return len;
}

void EC_FN(mul_raw_vartime)(EC_JAC *r, const EC_JAC *p, const uint64_t *k, size_t limbs) {
  while (limbs > 0 && k[limbs - 1] == 0) limbs--;
  if (limbs == 0 || EC_FN(is_infinity)(p)) {
    EC_FN(set_infinity)(r);
    return;
  }
  EC_JAC acc;
  if (limbs > EC_WNAF_MAX_LIMBS) { /* very long exponents: plain double-and-add */
    EC_JAC base = *p;
    EC_FN(set_infinity)(&acc);
    for (size_t i = limbs * 64; i-- > 0;) {
      EC_FN(dbl)(&acc, &acc);
      if ((k[i / 64] >> (i % 64)) & 1) EC_FN(add)(&acc, &acc, &base);
    }
    *r = acc;
    return;
  }
  int8_t naf[EC_WNAF_MAX_LIMBS * 64 + 2];
  size_t len = wnaf5(naf, k, limbs);
  /* odd multiples P, 3P, ..., 15P, made affine with one (vartime) inversion */
  EC_JAC tj[8], p2;
  EC_AFF ta[8];
  tj[0] = *p;
  EC_FN(dbl)(&p2, p);
  for (unsigned j = 1; j < 8; j++) EC_FN(add)(&tj[j], &tj[j - 1], &p2);
  batch_to_affine_impl(ta, tj, 8, true);
  EC_FN(set_infinity)(&acc);
  bool started = false;
  for (size_t i = len; i-- > 0;) {
    if (started) EC_FN(dbl)(&acc, &acc);
    int d = naf[i];
    if (d > 0) {
      EC_FN(add_affine)(&acc, &acc, &ta[(d - 1) / 2]);
      started = true;
    } else if (d < 0) {
      EC_AFF nq;
      EC_FN(affine_neg)(&nq, &ta[(-d - 1) / 2]);
      EC_FN(add_affine)(&acc, &acc, &nq);
      started = true;
    }
  }
  *r = acc;
}

/* r = sum_j k_j Q_j for m <= 4 short scalars (2 limbs each) with a shared doubling chain (Straus), each Q_j given by
 * its affine table of odd multiples Q_j, 3Q_j, ..., 15Q_j. Variable time. Used by the endomorphism-split
 * multiplications in g1.c (GLV, 2 scalars of 128 bits) and g2.c (GLS, 4 scalars of 64 bits). */
static void multi_mul_wnaf_vartime(EC_JAC *r, EC_AFF (*tab)[8], const uint64_t (*k)[2], int m) {
  int8_t naf[4][2 * 64 + 2];
  size_t len[4], maxlen = 0;
  for (int j = 0; j < m; j++) {
    len[j] = wnaf5(naf[j], k[j], 2);
    if (len[j] > maxlen) maxlen = len[j];
  }
  EC_JAC acc;
  EC_FN(set_infinity)(&acc);
  for (size_t i = maxlen; i-- > 0;) {
    EC_FN(dbl)(&acc, &acc);
    for (int j = 0; j < m; j++) {
      if (i >= len[j] || naf[j][i] == 0) continue;
      int d = naf[j][i];
      if (d > 0) {
        EC_FN(add_affine)(&acc, &acc, &tab[j][(d - 1) / 2]);
      } else {
        EC_AFF nq;
        EC_FN(affine_neg)(&nq, &tab[j][(-d - 1) / 2]);
        EC_FN(add_affine)(&acc, &acc, &nq);
      }
    }
  }
  *r = acc;
}

/* The affine odd multiples P, 3P, ..., 15P (one vartime inversion). */
static void odd_multiples_affine_vartime(EC_AFF t[8], const EC_JAC *p) {
  EC_JAC tj[8], p2;
  tj[0] = *p;
  EC_FN(dbl)(&p2, p);
  for (unsigned j = 1; j < 8; j++) EC_FN(add)(&tj[j], &tj[j - 1], &p2);
  batch_to_affine_impl(t, tj, 8, true);
}

/* k = sum_i d_i z^i, z = |x| = 0xd201000000010000, by repeated long division of the 4-limb k (digits < 2^64). */
static void split_base_z(uint64_t d[4], const uint64_t k[4]) {
  uint64_t q[4] = {k[0], k[1], k[2], k[3]};
  for (int i = 0; i < 3; i++) {
    unsigned __int128 rem = 0;
    for (int l = 3; l >= 0; l--) {
      unsigned __int128 cur = (rem << 64) | q[l];
      q[l] = (uint64_t)(cur / CZK__BLS_Z);
      rem = cur % CZK__BLS_Z;
    }
    d[i] = (uint64_t)rem;
  }
  d[3] = q[0]; /* k < r < z^4, so the last quotient is one limb */
}

/* ------------------------------------------------------------------------------------------------ curve checks */
/* y^2 == x^3 + b */
bool EC_FN(affine_is_on_curve)(const EC_AFF *p) {
  EC_FE l, rr;
  FE(sqr)(&l, &p->y);
  FE(sqr)(&rr, &p->x);
  FE(mul)(&rr, &rr, &p->x);
  FE(add)(&rr, &rr, EC_B);
  return (unsigned)EC_FN(affine_is_infinity)(p) | (unsigned)FE(eq)(&l, &rr);
}

/* Y^2 == X^3 + b Z^6 */
bool EC_FN(is_on_curve)(const EC_JAC *p) {
  EC_FE l, rr, z6;
  FE(sqr)(&l, &p->y);
  FE(sqr)(&rr, &p->x);
  FE(mul)(&rr, &rr, &p->x);
  FE(sqr)(&z6, &p->z);
  FE(mul)(&z6, &z6, &p->z);
  FE(sqr)(&z6, &z6);
  FE(mul)(&z6, &z6, EC_B);
  FE(add)(&rr, &rr, &z6);
  return (unsigned)FE(is_zero)(&p->z) | (unsigned)FE(eq)(&l, &rr);
}

/* r = |x| p = 0xd201000000010000 p (63 doublings, 5 additions; the constant is public). */
static void mul_by_z(EC_JAC *r, const EC_JAC *p) {
  EC_JAC acc = *p;
  for (int i = 62; i >= 0; i--) {
    EC_FN(dbl)(&acc, &acc);
    if ((CZK__BLS_Z >> i) & 1) EC_FN(add)(&acc, &acc, p);
  }
  *r = acc;
}

/* ------------------------------------------------------------------------------------------------ fixed base */
struct EC_CAT(czk_, EC_G, _fixed_base) {
  unsigned w;     /* window bits */
  unsigned nw;    /* windows: floor(255 / w) + 1 */
  size_t half;    /* 2^(w-1) entries per window */
  EC_AFF *table;  /* nw * half entries: table[j * half + m - 1] = m 2^(wj) base, m = 1..half */
};

#define EC_FB_DEFAULT_W 8

czk_status EC_FN(fixed_base_new)(EC_FB **out, const EC_JAC *base, unsigned window_bits) {
  if (!out || !base) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (window_bits == 0) window_bits = EC_FB_DEFAULT_W;
  if (window_bits > 16) return CZK_ERR_INVALID_ARG;
  EC_FB *t = calloc(1, sizeof *t);
  if (!t) return CZK_ERR_NOMEM;
  t->w = window_bits;
  t->nw = 255 / window_bits + 1;
  t->half = (size_t)1 << (window_bits - 1);
  size_t total = t->nw * t->half;
  t->table = malloc(total * sizeof *t->table);
  EC_JAC *tmp = malloc(total * sizeof *tmp);
  if (!t->table || !tmp) {
    free(tmp);
    free(t->table);
    free(t);
    return CZK_ERR_NOMEM;
  }
  EC_JAC b = *base;
  for (unsigned j = 0; j < t->nw; j++) {
    EC_JAC *row = tmp + (size_t)j * t->half;
    row[0] = b;
    for (size_t m = 1; m < t->half; m++) EC_FN(add)(&row[m], &row[m - 1], &b);
    EC_FN(dbl)(&b, &row[t->half - 1]); /* 2 * 2^(w-1) 2^(wj) B = 2^(w(j+1)) B */
  }
  batch_to_affine_impl(t->table, tmp, total, false);
  free(tmp);
  *out = t;
  return CZK_OK;
}

void EC_FN(fixed_base_mul)(EC_JAC *r, const EC_FB *t, const czk_fr *k) {
  uint64_t kr[4];
  czk_fr_to_raw(kr, k);
  const unsigned w = t->w;
  const uint64_t half = t->half;
  EC_JAC acc;
  EC_FN(set_infinity)(&acc);
  uint64_t carry = 0;
  for (unsigned j = 0; j < t->nw; j++) {
    uint64_t v = scalar_window(kr, 4, (size_t)j * w, w) + carry; /* 0 .. 2^w */
    carry = (half - v) >> 63;                                     /* v > 2^(w-1) */
    int64_t d = (int64_t)v - (int64_t)(carry << w);               /* -(2^(w-1)-1) .. 2^(w-1) */
    uint64_t mask = (uint64_t)(d >> 63);
    uint64_t abs = ((uint64_t)d ^ mask) - mask;
    /* constant-time scan of the window's row: masked OR of the entry with index abs - 1 (none when abs = 0) */
    EC_AFF sel;
    memset(&sel, 0, sizeof sel);
    const EC_AFF *row = t->table + (size_t)j * half;
    uint64_t *sl = (uint64_t *)&sel;
    for (uint64_t m = 0; m < half; m++) {
      uint64_t hit = (uint64_t)0 - ((((abs ^ (m + 1)) - 1) >> 63) & 1);
      const uint64_t *el = (const uint64_t *)&row[m];
      for (size_t l = 0; l < sizeof(EC_AFF) / 8; l++) sl[l] |= el[l] & hit;
    }
    EC_FE ny;
    FE(neg)(&ny, &sel.y);
    FE(cmov)(&sel.y, &sel.y, &ny, mask & 1);
    EC_FN(add_affine)(&acc, &acc, &sel);
  }
  *r = acc;
  memset(kr, 0, sizeof kr);
}

void EC_FN(fixed_base_free)(EC_FB *t) {
  if (!t) return;
  free(t->table);
  free(t);
}

/* ------------------------------------------------------------------------------------------------ batched affine */
/* What acc += q needs: nothing (q = O), a copy (acc = O), infinity (acc = -q), a chord (x differ) or a tangent
 * (acc = q). Computed twice per entry by the batch addition (forward, then backward before acc changes). */
enum { EC_BA_SKIP, EC_BA_COPY, EC_BA_ZERO, EC_BA_ADD, EC_BA_DBL };
static inline int ba_op(const EC_AFF *a, const EC_AFF *q) {
  if (EC_FN(affine_is_infinity)(q)) return EC_BA_SKIP;
  if (EC_FN(affine_is_infinity)(a)) return EC_BA_COPY;
  if (!FE(eq)(&a->x, &q->x)) return EC_BA_ADD;
  if (FE(eq)(&a->y, &q->y) && !FE(is_zero)(&a->y)) return EC_BA_DBL;
  return EC_BA_ZERO; /* a = -q (or a point of order 2, which neither group has) */
}

/* acc[i] += q[i qs] with one inversion (Montgomery's trick; pre[i] holds the product of the earlier denominators;
 * qs = 1: a point per entry, qs = 0: one point added to every entry).
 *   chord:   lambda = (yq - ya) / (xq - xa);  tangent: lambda = 3 xa^2 / (2 ya)
 *   x3 = lambda^2 - xa - xq,  y3 = lambda (xa - x3) - ya
 * Cost per chord 5M + 1S (1M forward, 2M backward for the inverse, 1M lambda, 1S x3, 1M y3), +1S per tangent. */
static void affine_batch_add_impl(EC_AFF *acc, const EC_AFF *q, size_t qs, size_t n, EC_FE *pre) {
  EC_FE prod, den, num, inv, lam, t;
  fe_one(&prod);
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    int op = ba_op(&acc[i], &q[i * qs]);
    if (op == EC_BA_ADD) {
      FE(sub)(&den, &q[i * qs].x, &acc[i].x);
    } else if (op == EC_BA_DBL) {
      FE(dbl)(&den, &acc[i].y);
    } else {
      continue;
    }
    pre[i] = prod;
    FE(mul)(&prod, &prod, &den);
    any = true;
  }
  if (any) FE(inv_vartime)(&prod, &prod); /* 1 / (product of every denominator) */
  for (size_t i = n; i-- > 0;) {
    EC_AFF *a = &acc[i];
    const EC_AFF *b = &q[i * qs];
    switch (ba_op(a, b)) {
    case EC_BA_SKIP:
      continue;
    case EC_BA_COPY:
      *a = *b;
      continue;
    case EC_BA_ZERO:
      memset(a, 0, sizeof *a);
      continue;
    case EC_BA_ADD:
      FE(sub)(&den, &b->x, &a->x);
      FE(sub)(&num, &b->y, &a->y);
      break;
    default: /* EC_BA_DBL */
      FE(dbl)(&den, &a->y);
      FE(sqr)(&num, &a->x);
      fe_mul3(&num, &num);
      break;
    }
    FE(mul)(&inv, &prod, &pre[i]); /* 1 / den_i */
    FE(mul)(&prod, &prod, &den);   /* 1 / (product of the denominators before i) */
    FE(mul)(&lam, &num, &inv);
    FE(sqr)(&t, &lam);
    FE(sub)(&t, &t, &a->x);
    FE(sub)(&t, &t, &b->x); /* x3 */
    FE(sub)(&num, &a->x, &t);
    FE(mul)(&num, &num, &lam);
    FE(sub)(&a->y, &num, &a->y);
    a->x = t;
  }
}

czk_status EC_FN(affine_batch_add_vartime)(EC_AFF *acc, const EC_AFF *q, size_t n, EC_FE *scratch) {
  if (n == 0) return CZK_OK;
  if (!acc || !q) return CZK_ERR_INVALID_ARG;
  EC_FE *pre = scratch ? scratch : malloc(n * sizeof *pre);
  if (!pre) return CZK_ERR_NOMEM;
  affine_batch_add_impl(acc, q, 1, n, pre);
  if (!scratch) free(pre);
  return CZK_OK;
}

/* Batched fixed-base multiplication (variable time). Scalars are recoded into the same signed digits as
 * fixed_base_mul (d_j in [-(2^(w-1)-1), 2^(w-1)], sum d_j 2^(wj) = k), then a chunk of EC_FB_CHUNK accumulators
 * advances window by window: acc_i += sign(d_ij) table[j][|d_ij| - 1], all additions of one window sharing one
 * inversion. Per point: nw batched affine additions (~6M each) and no doublings; the table row of one window
 * (2^(w-1) points) is the working set of a window pass. The partial sums of different windows never coincide for a
 * canonical scalar (|sum_{i<j} d_i 2^(wi)| < 2^(wj) <= |d_j| 2^(wj) < r), but the addition handles them anyway. */
#define EC_FB_CHUNK 1024

czk_status EC_FN(fixed_base_mul_batch_vartime)(EC_AFF *out, const EC_FB *t, const czk_fr *k, size_t n) {
  if (n == 0) return CZK_OK;
  if (!out || !t || !k) return CZK_ERR_INVALID_ARG;
  const size_t ch = n < EC_FB_CHUNK ? n : EC_FB_CHUNK;
  const unsigned w = t->w, nw = t->nw;
  const uint64_t half = t->half;
  int32_t *dig = malloc(ch * nw * sizeof *dig); /* dig[j * ch + i]: digit j of scalar i of the chunk */
  EC_AFF *q = malloc(ch * sizeof *q);
  EC_FE *pre = malloc(ch * sizeof *pre);
  if (!dig || !q || !pre) {
    free(dig), free(q), free(pre);
    return CZK_ERR_NOMEM;
  }
  uint64_t kr[4];
  for (size_t b = 0; b < n; b += ch) {
    const size_t m = n - b < ch ? n - b : ch;
    EC_AFF *acc = out + b;
    for (size_t i = 0; i < m; i++) {
      czk_fr_to_raw(kr, &k[b + i]);
      uint64_t carry = 0;
      for (unsigned j = 0; j < nw; j++) {
        uint64_t v = scalar_window(kr, 4, (size_t)j * w, w) + carry;
        carry = v > half;
        dig[(size_t)j * ch + i] = (int32_t)((int64_t)v - (int64_t)(carry << w));
      }
      memset(&acc[i], 0, sizeof acc[i]);
    }
    for (unsigned j = 0; j < nw; j++) {
      const EC_AFF *row = t->table + (size_t)j * half;
      const int32_t *dj = dig + (size_t)j * ch;
      for (size_t i = 0; i < m; i++) {
        int32_t d = dj[i];
        if (d > 0) {
          q[i] = row[d - 1];
        } else if (d < 0) {
          q[i].x = row[-d - 1].x;
          FE(neg)(&q[i].y, &row[-d - 1].y);
        } else {
          memset(&q[i], 0, sizeof q[i]);
        }
      }
      affine_batch_add_impl(acc, q, 1, m, pre);
    }
  }
  /* the digits are the scalars (secret in setup); q holds the last window's +-table entries (its digits) and pre
   * products of differences with partial sums */
  explicit_bzero(kr, sizeof kr);
  explicit_bzero(dig, ch * nw * sizeof *dig);
  explicit_bzero(q, ch * sizeof *q);
  explicit_bzero(pre, ch * sizeof *pre);
  free(dig), free(q), free(pre);
  return CZK_OK;
}

/* The same table as fixed_base_new, built in variable time for a public base: the window bases 2^(wj) B by doublings
 * (one inversion for all), then each row by doubling its length: entries [len, 2 len) = entries [0, len) + len B_j,
 * one batched affine addition per level and row (~6M per entry instead of a complete Jacobian addition and a
 * constant-time normalization). */
czk_status EC_FN(fixed_base_new_vartime)(EC_FB **out, const EC_JAC *base, unsigned window_bits) {
  if (!out || !base) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (window_bits == 0) window_bits = EC_FB_DEFAULT_W;
  if (window_bits > 16) return CZK_ERR_INVALID_ARG;
  EC_FB *t = calloc(1, sizeof *t);
  if (!t) return CZK_ERR_NOMEM;
  t->w = window_bits;
  t->nw = 255 / window_bits + 1;
  t->half = (size_t)1 << (window_bits - 1);
  t->table = czk_alloc_big(t->nw * t->half * sizeof *t->table); /* w = 16: 48 MiB (G1), 96 MiB (G2) */
  EC_JAC *bj = malloc(t->nw * sizeof *bj);
  EC_AFF *ba = malloc(t->nw * sizeof *ba);
  EC_FE *pre = malloc((t->half > 1 ? t->half / 2 : 1) * sizeof *pre);
  if (!t->table || !bj || !ba || !pre) {
    free(bj), free(ba), free(pre);
    EC_FN(fixed_base_free)(t);
    return CZK_ERR_NOMEM;
  }
  bj[0] = *base;
  for (unsigned j = 1; j < t->nw; j++) {
    bj[j] = bj[j - 1];
    for (unsigned b = 0; b < window_bits; b++) EC_FN(dbl)(&bj[j], &bj[j]);
  }
  batch_to_affine_impl(ba, bj, t->nw, true);
  for (unsigned j = 0; j < t->nw; j++) {
    EC_AFF *row = t->table + (size_t)j * t->half; /* row[m - 1] = m B_j */
    row[0] = ba[j];
    for (size_t len = 1; len < t->half; len *= 2) {
      memcpy(row + len, row, len * sizeof *row);
      affine_batch_add_impl(row + len, &row[len - 1], 0, len, pre);
    }
  }
  free(bj), free(ba), free(pre);
  *out = t;
  return CZK_OK;
}
