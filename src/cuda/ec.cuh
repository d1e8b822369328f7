/* ec.cuh: short-Weierstrass (a = 0) point arithmetic on the GPU in XYZZ coordinates, written once and instantiated
 * for G1 (over Fp) and G2 (over Fp2) by including this file with EC_F (field prefix: fp / fp2) and EC_G (group
 * prefix: g1 / g2) defined. No templates: names are pasted, e.g. g1_madd, g2_xyzz_t.
 *
 * Coordinates (as include/czk/curve.h): affine (x, y) with infinity stored as (0, 0); XYZZ (X, Y, ZZ, ZZZ) with
 * x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, infinity ZZ = 0. Formulas from the Explicit-Formulas Database (Bernstein-Lange),
 * "xyzz" for a = 0; all functions are complete (they handle infinity, P == Q and P == -Q) and vartime (public data).
 *   madd (add-affine, madd-2008-s): 8M + 2S    add (add-2008-s): 12M + 2S    dbl (dbl-2008-s-1): 6M + 3S
 *   mdbl (affine doubling, mdbl-2008-s-1): 4M + 3S.   Output may alias any input. */

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

/* r = 2q for affine q (not infinity). U = 2y, V = U^2, W = UV, S = xV, M = 3x^2, X3 = M^2 - 2S,
 * Y3 = M(S - X3) - W y, ZZ3 = V, ZZZ3 = W. */
CZK_EC_FN void GOP(mdbl)(GOP(xyzz_t) * r, const GOP(aff_t) * q) {
  FE u, v, w, s, m, t;
  FOP(dbl)(&u, &q->y);
  FOP(sqr)(&v, &u);
  FOP(mul)(&w, &u, &v);
  FOP(mul)(&s, &q->x, &v);
  FOP(sqr)(&m, &q->x);
  FOP(dbl)(&t, &m);
  FOP(add)(&m, &m, &t);
  FOP(mul)(&t, &w, &q->y);
  FOP(sqr)(&r->x, &m);
  FOP(sub)(&r->x, &r->x, &s);
  FOP(sub)(&r->x, &r->x, &s);
  FOP(sub)(&s, &s, &r->x);
  FOP(mul)(&r->y, &m, &s);
  FOP(sub)(&r->y, &r->y, &t);
  r->zz = v;
  r->zzz = w;
}

/* r = 2p. U = 2Y, V = U^2, W = UV, S = XV, M = 3X^2, X3 = M^2 - 2S, Y3 = M(S - X3) - WY, ZZ3 = V ZZ, ZZZ3 = W ZZZ.
 * Infinity maps to infinity (ZZ3 = V*0); a point with Y = 0 has no such representative on these curves. */
CZK_EC_FN void GOP(dbl)(GOP(xyzz_t) * r, const GOP(xyzz_t) * p) {
  FE u, v, w, s, m, t;
  FOP(dbl)(&u, &p->y);
  FOP(sqr)(&v, &u);
  FOP(mul)(&w, &u, &v);
  FOP(mul)(&s, &p->x, &v);
  FOP(sqr)(&m, &p->x);
  FOP(dbl)(&t, &m);
  FOP(add)(&m, &m, &t);
  FOP(mul)(&t, &w, &p->y);
  FOP(mul)(&r->zz, &v, &p->zz);
  FOP(mul)(&r->zzz, &w, &p->zzz);
  FOP(sqr)(&r->x, &m);
  FOP(sub)(&r->x, &r->x, &s);
  FOP(sub)(&r->x, &r->x, &s);
  FOP(sub)(&s, &s, &r->x);
  FOP(mul)(&r->y, &m, &s);
  FOP(sub)(&r->y, &r->y, &t);
}

/* madd and add come in two orderings of the same formulas. EC_LOWREG 1 (default; G1): each input coordinate dies at
 * its last use and the P == Q case doubles a value already at hand, which lowers register pressure; on the H200 the
 * G1 MSM 2^26 went 429.8 -> 422.6 ms with it. EC_LOWREG 0 (msm_g2.cu): the original ordering, which is faster for G2
 * (MSM 2^24: 604.7 ms, against 686.6 with the low-register ordering and no base prefetch; the G2 kernels hit the
 * 255-register limit either way and spill, by 1-8 KB of local memory per thread). A Jacobian G2 accumulator (one
 * coordinate fewer) was slower still (1712 ms). */
#ifndef EC_LOWREG
#define EC_LOWREG 1
#endif
#if EC_LOWREG
/* The common end of madd and add below: given a = (A, B, Z, ZZ) (madd: p itself; add: (U1, S1, ZZ1 ZZ2, ZZZ1 ZZZ2)),
 * P and R (P != 0): PP = P^2, PPP = P PP, Q = A PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - B PPP, ZZ3 = Z PP,
 * ZZZ3 = ZZ PPP. Each coordinate of a is overwritten at its last use. */
CZK_EC_FN void GOP(add_finish)(GOP(xyzz_t) * r, GOP(xyzz_t) * a, FE *pp, FE *rr) {
  FE t, ppp;
  FOP(sqr)(&t, pp);               /* PP */
  FOP(mul)(&a->zz, &a->zz, &t);   /* ZZ3 */
  FOP(mul)(&ppp, pp, &t);         /* PPP */
  FOP(mul)(&a->x, &a->x, &t);     /* Q */
  FOP(mul)(&a->zzz, &a->zzz, &ppp); /* ZZZ3 */
  FOP(mul)(&a->y, &a->y, &ppp);   /* B PPP */
  FOP(sqr)(&t, rr);
  FOP(sub)(&t, &t, &ppp);
  FOP(sub)(&t, &t, &a->x);
  FOP(sub)(&t, &t, &a->x);        /* X3 */
  FOP(sub)(&a->x, &a->x, &t);
  FOP(mul)(rr, rr, &a->x);
  FOP(sub)(&r->y, rr, &a->y);
  r->x = t;
  r->zz = a->zz;
  r->zzz = a->zzz;
}

/* r = p + q, q affine (infinity (0,0) allowed). U2 = x2 ZZ1, S2 = y2 ZZZ1, P = U2 - X1, R = S2 - Y1,
 * PP = P^2, PPP = P PP, Q = X1 PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
 * Register pressure (G2: one Fp2 value is 24 registers): q is dead once P and R are formed (the P == Q case doubles
 * p, not q), and each coordinate of p is overwritten as soon as its last use is done, so at most 7 field values are
 * live at once (p, P, R, PP) besides the product's own temporaries. */
CZK_EC_FN void GOP(madd)(GOP(xyzz_t) * r, const GOP(xyzz_t) * p, const GOP(aff_t) * q) {
  if (GOP(aff_is_inf)(q)) {
    *r = *p;
    return;
  }
  if (GOP(is_inf)(p)) {
    r->x = q->x;
    r->y = q->y;
    FOP(set_one)(&r->zz);
    FOP(set_one)(&r->zzz);
    return;
  }
  FE pp, rr;
  FOP(mul)(&pp, &q->x, &p->zz);
  FOP(sub)(&pp, &pp, &p->x);
  FOP(mul)(&rr, &q->y, &p->zzz);
  FOP(sub)(&rr, &rr, &p->y);
  if (FOP(is_zero)(&pp)) {
    if (FOP(is_zero)(&rr))
      GOP(dbl)(r, p); /* p == q */
    else
      GOP(set_inf)(r);
    return;
  }
  GOP(xyzz_t) a = *p;
  GOP(add_finish)(r, &a, &pp, &rr);
}

/* r = p + q (both XYZZ). U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1,
 * PP = P^2, PPP = P PP, Q = U1 PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - S1 PPP, ZZ3 = ZZ1 ZZ2 PP,
 * ZZZ3 = ZZZ1 ZZZ2 PPP. Register pressure: the products are ordered so that each input coordinate dies at its last
 * use (X1, X2, ZZ1 ZZ2, Y1, Y2, ZZZ1 ZZZ2); when P == Q the double is taken of (U1, S1, ZZ1 ZZ2, ZZZ1 ZZZ2), which
 * represents p (x = X1 ZZ2 / ZZ1 ZZ2, y = Y1 ZZZ2 / ZZZ1 ZZZ2, (ZZ1 ZZ2)^3 = (ZZZ1 ZZZ2)^2), so neither input is
 * kept alive for that rare case. */
CZK_EC_FN void GOP(add)(GOP(xyzz_t) * r, const GOP(xyzz_t) * p, const GOP(xyzz_t) * q) {
  if (GOP(is_inf)(q)) {
    *r = *p;
    return;
  }
  if (GOP(is_inf)(p)) {
    *r = *q;
    return;
  }
  GOP(xyzz_t) u; /* (U1, S1, ZZ1 ZZ2, ZZZ1 ZZZ2) */
  FE pp, rr;
  FOP(mul)(&u.x, &p->x, &q->zz);
  FOP(mul)(&pp, &q->x, &p->zz);
  FOP(sub)(&pp, &pp, &u.x);
  FOP(mul)(&u.zz, &p->zz, &q->zz);
  FOP(mul)(&u.y, &p->y, &q->zzz);
  FOP(mul)(&rr, &q->y, &p->zzz);
  FOP(sub)(&rr, &rr, &u.y);
  FOP(mul)(&u.zzz, &p->zzz, &q->zzz);
  if (FOP(is_zero)(&pp)) {
    if (FOP(is_zero)(&rr))
      GOP(dbl)(r, &u); /* p == q */
    else
      GOP(set_inf)(r);
    return;
  }
  GOP(add_finish)(r, &u, &pp, &rr);
}

#else /* EC_LOWREG 0 */

/* r = p + q, q affine (infinity (0,0) allowed). U2 = x2 ZZ1, S2 = y2 ZZZ1, P = U2 - X1, R = S2 - Y1,
 * PP = P^2, PPP = P PP, Q = X1 PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP. */
CZK_EC_FN void GOP(madd)(GOP(xyzz_t) * r, const GOP(xyzz_t) * p, const GOP(aff_t) * q) {
  if (GOP(aff_is_inf)(q)) {
    *r = *p;
    return;
  }
  if (GOP(is_inf)(p)) {
    r->x = q->x;
    r->y = q->y;
    FOP(set_one)(&r->zz);
    FOP(set_one)(&r->zzz);
    return;
  }
  FE pp, rr, ppp, qq, t;
  FOP(mul)(&pp, &q->x, &p->zz);
  FOP(sub)(&pp, &pp, &p->x);
  FOP(mul)(&rr, &q->y, &p->zzz);
  FOP(sub)(&rr, &rr, &p->y);
  if (FOP(is_zero)(&pp)) {
    if (FOP(is_zero)(&rr))
      GOP(mdbl)(r, q);
    else
      GOP(set_inf)(r);
    return;
  }
  FOP(sqr)(&t, &pp);           /* PP */
  FOP(mul)(&ppp, &pp, &t);     /* PPP */
  FOP(mul)(&qq, &p->x, &t);    /* Q */
  FOP(mul)(&r->zz, &p->zz, &t);
  FOP(mul)(&r->zzz, &p->zzz, &ppp);
  FOP(mul)(&t, &p->y, &ppp);   /* Y1 PPP */
  FOP(sqr)(&r->x, &rr);
  FOP(sub)(&r->x, &r->x, &ppp);
  FOP(sub)(&r->x, &r->x, &qq);
  FOP(sub)(&r->x, &r->x, &qq);
  FOP(sub)(&qq, &qq, &r->x);
  FOP(mul)(&r->y, &rr, &qq);
  FOP(sub)(&r->y, &r->y, &t);
}

/* r = p + q (both XYZZ). U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1,
 * PP = P^2, PPP = P PP, Q = U1 PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - S1 PPP, ZZ3 = ZZ1 ZZ2 PP,
 * ZZZ3 = ZZZ1 ZZZ2 PPP. */
CZK_EC_FN void GOP(add)(GOP(xyzz_t) * r, const GOP(xyzz_t) * p, const GOP(xyzz_t) * q) {
  if (GOP(is_inf)(q)) {
    *r = *p;
    return;
  }
  if (GOP(is_inf)(p)) {
    *r = *q;
    return;
  }
  FE u1, s1, pp, rr, ppp, t, zz, zzz;
  FOP(mul)(&u1, &p->x, &q->zz);
  FOP(mul)(&pp, &q->x, &p->zz);
  FOP(sub)(&pp, &pp, &u1);
  FOP(mul)(&s1, &p->y, &q->zzz);
  FOP(mul)(&rr, &q->y, &p->zzz);
  FOP(sub)(&rr, &rr, &s1);
  if (FOP(is_zero)(&pp)) {
    if (FOP(is_zero)(&rr))
      GOP(dbl)(r, p);
    else
      GOP(set_inf)(r);
    return;
  }
  FOP(sqr)(&t, &pp);           /* PP */
  FOP(mul)(&ppp, &pp, &t);     /* PPP */
  FOP(mul)(&zz, &p->zz, &q->zz);
  FOP(mul)(&r->zz, &zz, &t);
  FOP(mul)(&zzz, &p->zzz, &q->zzz);
  FOP(mul)(&r->zzz, &zzz, &ppp);
  FOP(mul)(&u1, &u1, &t);      /* Q */
  FOP(mul)(&s1, &s1, &ppp);    /* S1 PPP */
  FOP(sqr)(&r->x, &rr);
  FOP(sub)(&r->x, &r->x, &ppp);
  FOP(sub)(&r->x, &r->x, &u1);
  FOP(sub)(&r->x, &r->x, &u1);
  FOP(sub)(&u1, &u1, &r->x);
  FOP(mul)(&r->y, &rr, &u1);
  FOP(sub)(&r->y, &r->y, &s1);
}
#endif /* EC_LOWREG */

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

/* Negate an affine point in place when neg (infinity stays (0,0): -0 = 0). */
CZK_D void GOP(aff_cneg)(GOP(aff_t) * q, bool neg) {
  if (neg) FOP(neg)(&q->y, &q->y);
}

#undef FE
#undef FOP
#undef GOP
#undef EC_LOWREG
