/* ec.cuh: short-Weierstrass (a = 0) point arithmetic on the GPU in XYZZ coordinates, written once and instantiated
 * for G1 (over Fp) and G2 (over Fp2) by including this file with EC_F (field prefix: fp / fp2) and EC_G (group
 * prefix: g1 / g2) defined. No templates: names are pasted, e.g. g1_madd, g2_xyzz_t.
 *
 * Coordinates (as include/czk/curve.h): affine (x, y) with infinity stored as (0, 0); XYZZ (X, Y, ZZ, ZZZ) with
 * x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, infinity ZZ = 0. Formulas from the Explicit-Formulas Database (Bernstein-Lange),
 * "xyzz" for a = 0; all functions are complete (they handle infinity, P == Q and P == -Q) and vartime (public data).
 *   madd (add-affine, madd-2008-s): 8M + 2S    add (add-2008-s): 12M + 2S    dbl (dbl-2008-s-1): 6M + 3S.
 * All three end in one shared routine (add_finish; a doubling is an addition's end with other operands), which keeps
 * the inlined code of a kernel small: the G2 kernels are large enough for instruction-cache misses to matter.
 * Output may alias p (the first input); q (the second) is read from registers or, when qs, from shared memory. */

#ifndef EC_F
#error "define EC_F (fp or fp2) and EC_G (g1 or g2) before including ec.cuh"
#endif

#ifndef CZK_CAT
#define CZK_CAT_(a, b) a##b
#define CZK_CAT(a, b) CZK_CAT_(a, b)
#endif
/* Point operations are inlined into every kernel. An out-of-line (__noinline__) build, which compiles several times
 * faster, faulted on the H200: compute-sanitizer reported an invalid __local__ read inside g1_add called from
 * g1_msm_tree (pointers to the caller's local points); the inlined build keeps the points in registers. */
#ifndef CZK_EC_FN
#define CZK_EC_FN static __device__ __forceinline__
#endif
#define FE CZK_CAT(EC_F, _t)
#define FOP(op) CZK_CAT(CZK_CAT(EC_F, _), op)
#define GOP(op) CZK_CAT(CZK_CAT(EC_G, _), op)
/* A coordinate of the second operand of madd / add: qs (a literal at every call) says q lies in shared memory, where
 * it is read with ff.cuh's volatile loads at each use, so that it never occupies registers between uses (the G2 MSM
 * kernels are at the 255-register limit); otherwise a plain copy, which the compiler folds away. */
#define EC_LD(dst, src, qs)                                                                                           \
  do {                                                                                                                \
    if (qs)                                                                                                           \
      FOP(lds)(dst, src);                                                                                             \
    else                                                                                                              \
      *(dst) = *(src);                                                                                                \
  } while (0)

typedef struct GOP(aff_t) {
  FE x, y;
} GOP(aff_t);
typedef struct GOP(xyzz_t) {
  FE x, y, zz, zzz;
} GOP(xyzz_t);

CZK_D void GOP(set_inf)(GOP(xyzz_t) * r) {
  FOP(set_zero)(&r->x);
  FOP(set_zero)(&r->y);
  FOP(set_zero)(&r->zz);
  FOP(set_zero)(&r->zzz);
}
CZK_D bool GOP(is_inf)(const GOP(xyzz_t) * p) { return FOP(is_zero)(&p->zz); }
CZK_D bool GOP(aff_is_inf)(const GOP(aff_t) * p) { return FOP(is_zero)(&p->x) && FOP(is_zero)(&p->y); }

/* Doubling through add_finish: dbl-2008-s-1 is add_finish with P = 2Y, R = 3X^2 and no PPP term in X3 (then PP = V,
 * PPP = W, Q = S: X3 = M^2 - 2S, Y3 = M(S - X3) - W Y, ZZ3 = V ZZ, ZZZ3 = W ZZZ), so madd and add double a point with
 * the code of their common end instead of a second inlined formula (whose temporaries raised the kernels' register
 * pressure). */
CZK_D void GOP(dbl_operands)(FE *pp, FE *rr, const FE *x, const FE *y) {
  FE t;
  FOP(dbl)(pp, y);
  FOP(sqr)(&t, x);
  FOP(dbl)(rr, &t);
  FOP(add)(rr, rr, &t);
}
/* The common end of madd and add below: given a = (A, B, Z, ZZ) (madd: p itself; add: (U1, S1, ZZ1 ZZ2, ZZZ1 ZZZ2)),
 * P and R (P != 0): PP = P^2, PPP = P PP, Q = A PP, X3 = R^2 - PPP - 2Q (dbl: R^2 - 2Q), Y3 = R(Q - X3) - B PPP,
 * ZZ3 = Z PP, ZZZ3 = ZZ PPP. Each coordinate of a is overwritten at its last use. */
CZK_EC_FN void GOP(add_finish)(GOP(xyzz_t) * r, GOP(xyzz_t) * a, FE *pp, FE *rr, const bool dbl) {
  FE t, ppp;
  FOP(sqr)(&t, pp);               /* PP */
  FOP(mul)(&a->zz, &a->zz, &t);   /* ZZ3 */
  FOP(mul)(&ppp, pp, &t);         /* PPP */
  FOP(mul)(&a->x, &a->x, &t);     /* Q */
  FOP(mul)(&a->zzz, &a->zzz, &ppp); /* ZZZ3 */
  FOP(mul)(&a->y, &a->y, &ppp);   /* B PPP */
  FOP(sqr)(&t, rr);
  if (!dbl) FOP(sub)(&t, &t, &ppp);
  FOP(sub)(&t, &t, &a->x);
  FOP(sub)(&t, &t, &a->x);        /* X3 */
  FOP(sub)(&a->x, &a->x, &t);
  FOP(mul)(rr, rr, &a->x);
  FOP(sub)(&r->y, rr, &a->y);
  r->x = t;
  r->zz = a->zz;
  r->zzz = a->zzz;
}

/* r = 2p (dbl-2008-s-1 through add_finish). Infinity maps to infinity (ZZ3 = ZZ V = 0); a point with Y = 0 has no
 * such representative on these curves. */
CZK_EC_FN void GOP(dbl)(GOP(xyzz_t) * r, const GOP(xyzz_t) * p) {
  FE pp, rr;
  GOP(dbl_operands)(&pp, &rr, &p->x, &p->y);
  GOP(xyzz_t) a = *p;
  GOP(add_finish)(r, &a, &pp, &rr, true);
}

/* r = p + (neg ? -q : q), q affine (infinity (0,0) allowed). U2 = x2 ZZ1, S2 = y2 ZZZ1, P = U2 - X1, R = S2 - Y1,
 * PP = P^2, PPP = P PP, Q = X1 PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
 * Register pressure (G2: one Fp2 value is 24 registers): q is dead once P and R are formed (the P == Q case doubles
 * p, not q), and each coordinate of p is overwritten as soon as its last use is done, so at most 7 field values are
 * live at once (p, P, R, PP) besides the product's own temporaries. */
CZK_EC_FN void GOP(madd)(GOP(xyzz_t) * r, const GOP(xyzz_t) * p, const GOP(aff_t) * q, const bool neg,
                         const bool qs) {
  FE pp, rr;
  EC_LD(&pp, &q->x, qs);
  EC_LD(&rr, &q->y, qs);
  if (FOP(is_zero)(&pp) && FOP(is_zero)(&rr)) {
    *r = *p;
    return;
  }
  if (neg) FOP(neg)(&rr, &rr);
  if (GOP(is_inf)(p)) {
    r->x = pp;
    r->y = rr;
    FOP(set_one)(&r->zz);
    FOP(set_one)(&r->zzz);
    return;
  }
  EC_LD(&pp, &q->x, qs);
  FOP(mul)(&pp, &pp, &p->zz);
  FOP(sub)(&pp, &pp, &p->x);
  EC_LD(&rr, &q->y, qs);
  if (neg) FOP(neg)(&rr, &rr);
  FOP(mul)(&rr, &rr, &p->zzz);
  FOP(sub)(&rr, &rr, &p->y);
  const bool dbl = FOP(is_zero)(&pp);
  if (dbl) {
    if (!FOP(is_zero)(&rr)) {
      GOP(set_inf)(r); /* p == -q */
      return;
    }
    GOP(dbl_operands)(&pp, &rr, &p->x, &p->y); /* p == q */
  }
  GOP(xyzz_t) a = *p;
  GOP(add_finish)(r, &a, &pp, &rr, dbl);
}

/* r = p + q (both XYZZ). U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1,
 * PP = P^2, PPP = P PP, Q = U1 PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - S1 PPP, ZZ3 = ZZ1 ZZ2 PP,
 * ZZZ3 = ZZZ1 ZZZ2 PPP. Register pressure: the products are ordered so that each input coordinate dies at its last
 * use (X1, X2, ZZ1 ZZ2, Y1, Y2, ZZZ1 ZZZ2); when P == Q the double is taken of (U1, S1, ZZ1 ZZ2, ZZZ1 ZZZ2), which
 * represents p (x = X1 ZZ2 / ZZ1 ZZ2, y = Y1 ZZZ2 / ZZZ1 ZZZ2, (ZZ1 ZZ2)^3 = (ZZZ1 ZZZ2)^2), so neither input is
 * kept alive for that rare case. */
CZK_EC_FN void GOP(add)(GOP(xyzz_t) * r, const GOP(xyzz_t) * p, const GOP(xyzz_t) * q, const bool qs) {
  FE t, pp, rr;
  EC_LD(&t, &q->zz, qs);
  if (FOP(is_zero)(&t)) {
    *r = *p;
    return;
  }
  if (GOP(is_inf)(p)) {
    EC_LD(&r->x, &q->x, qs);
    EC_LD(&r->y, &q->y, qs);
    EC_LD(&r->zz, &q->zz, qs);
    EC_LD(&r->zzz, &q->zzz, qs);
    return;
  }
  GOP(xyzz_t) u; /* (U1, S1, ZZ1 ZZ2, ZZZ1 ZZZ2) */
  FOP(mul)(&u.x, &p->x, &t);
  EC_LD(&pp, &q->x, qs);
  FOP(mul)(&pp, &pp, &p->zz);
  FOP(sub)(&pp, &pp, &u.x);
  EC_LD(&t, &q->zz, qs);
  FOP(mul)(&u.zz, &p->zz, &t);
  EC_LD(&t, &q->zzz, qs);
  FOP(mul)(&u.y, &p->y, &t);
  EC_LD(&rr, &q->y, qs);
  FOP(mul)(&rr, &rr, &p->zzz);
  FOP(sub)(&rr, &rr, &u.y);
  EC_LD(&t, &q->zzz, qs);
  FOP(mul)(&u.zzz, &p->zzz, &t);
  const bool dbl = FOP(is_zero)(&pp);
  if (dbl) {
    if (!FOP(is_zero)(&rr)) {
      GOP(set_inf)(r); /* p == -q */
      return;
    }
    GOP(dbl_operands)(&pp, &rr, &u.x, &u.y); /* p == q */
  }
  GOP(add_finish)(r, &u, &pp, &rr, dbl);
}


/* Jacobian (X', Y', Z') of an XYZZ point without inversion: Z' = ZZ ZZZ, X' = X ZZ ZZZ^2, Y' = Y ZZZ^4
 * (uses ZZ^3 = ZZZ^2); infinity gives Z' = 0. 6M + 2S. */
CZK_D void GOP(to_jacobian)(FE *jx, FE *jy, FE *jz, const GOP(xyzz_t) * p) {
  FE t, u;
  FOP(sqr)(&t, &p->zzz);          /* ZZZ^2 */
  FOP(mul)(&u, &p->x, &p->zz);
  FOP(mul)(jx, &u, &t);
  FOP(sqr)(&u, &t);               /* ZZZ^4 */
  FOP(mul)(jy, &p->y, &u);
  FOP(mul)(jz, &p->zz, &p->zzz);
}

#undef FE
#undef FOP
#undef GOP
#undef EC_LD
