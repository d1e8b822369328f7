/* group_tests.h: the group-law, scalar-multiplication, batch-affine and subgroup tests, written once and included
 * twice by test_curve.c (G1 over Fp, G2 over Fp2), mirroring src/curve/ec_impl.h. Define before including:
 *   TG g1|g2, TF fp|fp2, T_AFF/T_JAC/T_XYZZ/T_FE types, T_RAND_FE(fe*, rng*) a random field element,
 *   T_B the curve constant b (const T_FE *), T_COF / T_COF_LIMBS the cofactor as little-endian limbs. */

#define T_CAT_(a, b, c) a##b##c
#define T_CAT(a, b, c) T_CAT_(a, b, c)
#define G(name) T_CAT(czk_, TG, _##name)
#define F(op) T_CAT(czk_, TF, _##op)
#define TS(name) T_CAT(TG, _, name) /* static test-local names */

/* k G for a random k */
static void TS(rand_point)(T_JAC *r, czk_test_rng *g) {
  czk_fr k;
  rand_fr(&k, g);
  T_JAC gen;
  G(generator)(&gen);
  G(mul)(r, &gen, &k);
}

/* A point of the full curve E(F), not multiplied by the cofactor: random x until x^3 + b is a square. */
static void TS(rand_curve_point)(T_AFF *r, czk_test_rng *g) {
  for (;;) {
    T_FE x, rhs;
    T_RAND_FE(&x, g);
    F(sqr)(&rhs, &x);
    F(mul)(&rhs, &rhs, &x);
    F(add)(&rhs, &rhs, T_B);
    if (F(sqrt)(&r->y, &rhs)) {
      r->x = x;
      return;
    }
  }
}

/* Same point in another Jacobian representation: (l^2 X, l^3 Y, l Z). */
static void TS(rescale)(T_JAC *r, const T_JAC *p, czk_test_rng *g) {
  T_FE l, l2, l3;
  T_RAND_FE(&l, g);
  F(sqr)(&l2, &l);
  F(mul)(&l3, &l2, &l);
  F(mul)(&r->x, &p->x, &l2);
  F(mul)(&r->y, &p->y, &l3);
  F(mul)(&r->z, &p->z, &l);
}

/* the slow reference subgroup check: r P == O */
static bool TS(slow_in_subgroup)(const T_JAC *p) {
  T_JAC t;
  G(mul_raw_vartime)(&t, p, czk_fr_modulus, 4);
  return G(is_infinity)(&t);
}

static void TS(xyzz_of)(T_XYZZ *r, const T_JAC *p) {
  T_AFF a;
  G(to_affine)(&a, p);
  G(xyzz_set_infinity)(r);
  G(xyzz_add_affine)(r, r, &a);
}

static bool TS(xyzz_eq_jac)(const T_XYZZ *x, const T_JAC *p) {
  T_JAC j;
  G(xyzz_to_jacobian)(&j, x);
  return G(eq)(&j, p) && G(is_on_curve)(&j);
}

static void TS(test_group_laws)(czk_test_rng *g, int iters) {
  T_JAC inf;
  G(set_infinity)(&inf);
  CHECK(G(is_infinity)(&inf));
  CHECK(G(is_on_curve)(&inf));
  T_JAC gen;
  G(generator)(&gen);
  CHECK(G(is_on_curve)(&gen));
  CHECK(!G(is_infinity)(&gen));
  T_AFF ga, ginf;
  G(affine_generator)(&ga);
  CHECK(G(affine_is_on_curve)(&ga));
  memset(&ginf, 0, sizeof ginf);
  CHECK(G(affine_is_infinity)(&ginf));
  CHECK(G(affine_is_on_curve)(&ginf));

  for (int it = 0; it < iters; it++) {
    T_JAC p, q, s, t, u, v;
    TS(rand_point)(&p, g);
    TS(rand_point)(&q, g);
    TS(rand_point)(&s, g);
    CHECK(G(is_on_curve)(&p));
    CHECK(!G(is_infinity)(&p));
    /* associativity and commutativity */
    G(add)(&t, &p, &q);
    G(add)(&t, &t, &s);
    G(add)(&u, &q, &s);
    G(add)(&u, &p, &u);
    CHECK(G(eq)(&t, &u));
    CHECK(G(is_on_curve)(&t));
    G(add)(&t, &p, &q);
    G(add)(&u, &q, &p);
    CHECK(G(eq)(&t, &u));
    CHECK(!G(eq)(&t, &p));
    /* inverse, identity */
    G(neg)(&t, &p);
    G(add)(&u, &p, &t);
    CHECK(G(is_infinity)(&u));
    G(add)(&u, &p, &inf);
    CHECK(G(eq)(&u, &p));
    G(add)(&u, &inf, &p);
    CHECK(G(eq)(&u, &p));
    G(add)(&u, &inf, &inf);
    CHECK(G(is_infinity)(&u));
    G(dbl)(&u, &inf);
    CHECK(G(is_infinity)(&u));
    CHECK(!G(eq)(&p, &inf) && !G(eq)(&inf, &p) && G(eq)(&inf, &inf));
    /* doubling = adding to itself, also across representations */
    G(dbl)(&t, &p);
    G(add)(&u, &p, &p);
    CHECK(G(eq)(&t, &u));
    TS(rescale)(&v, &p, g);
    CHECK(G(eq)(&v, &p));
    G(add)(&u, &p, &v);
    CHECK(G(eq)(&t, &u));
    CHECK(G(is_on_curve)(&v));
    /* aliasing r = p */
    u = p;
    G(dbl)(&u, &u);
    CHECK(G(eq)(&t, &u));
    /* mixed additions */
    T_AFF qa, pa, na;
    G(to_affine)(&qa, &q);
    G(to_affine)(&pa, &p);
    CHECK(G(affine_is_on_curve)(&qa));
    G(from_affine)(&u, &qa);
    CHECK(G(eq)(&u, &q));
    G(add)(&t, &p, &q);
    G(add_affine)(&u, &p, &qa);
    CHECK(G(eq)(&t, &u));
    G(add_affine)(&u, &v, &pa); /* P + P via a rescaled P */
    G(dbl)(&t, &p);
    CHECK(G(eq)(&t, &u));
    G(affine_neg)(&na, &pa);
    G(add_affine)(&u, &v, &na);
    CHECK(G(is_infinity)(&u));
    G(add_affine)(&u, &p, &ginf);
    CHECK(G(eq)(&u, &p));
    G(add_affine)(&u, &inf, &qa);
    CHECK(G(eq)(&u, &q));
    G(add_affine)(&u, &inf, &ginf);
    CHECK(G(is_infinity)(&u));
    /* affine round trip and equality */
    T_AFF a2;
    G(to_affine)(&a2, &v);
    CHECK(G(affine_eq)(&a2, &pa));
    CHECK(!G(affine_eq)(&a2, &qa));
    G(to_affine)(&a2, &inf);
    CHECK(G(affine_is_infinity)(&a2));
    /* off-curve detection */
    T_AFF bad = pa;
    T_FE one;
    F(set_one)(&one);
    F(add)(&bad.y, &bad.y, &one);
    CHECK(!G(affine_is_on_curve)(&bad));
    G(from_affine)(&u, &bad);
    CHECK(!G(is_on_curve)(&u));

    /* XYZZ against Jacobian */
    T_XYZZ xp, xq, xr, xinf;
    G(xyzz_set_infinity)(&xinf);
    TS(xyzz_of)(&xp, &p);
    TS(xyzz_of)(&xq, &q);
    CHECK(TS(xyzz_eq_jac)(&xp, &p));
    G(add)(&t, &p, &q);
    G(xyzz_add_affine)(&xr, &xp, &qa);
    CHECK(TS(xyzz_eq_jac)(&xr, &t));
    G(xyzz_add)(&xr, &xp, &xq);
    CHECK(TS(xyzz_eq_jac)(&xr, &t));
    G(xyzz_dbl)(&xr, &xp);
    G(dbl)(&t, &p);
    CHECK(TS(xyzz_eq_jac)(&xr, &t));
    G(xyzz_dbl)(&xr, &xr); /* a non-normalized input */
    G(dbl)(&t, &t);
    CHECK(TS(xyzz_eq_jac)(&xr, &t));
    G(xyzz_add_affine)(&xr, &xp, &qa); /* P + Q, ZZ != 1 */
    G(xyzz_add_affine)(&xr, &xr, &pa); /* + P */
    G(add)(&t, &p, &q);
    G(add)(&t, &t, &p);
    CHECK(TS(xyzz_eq_jac)(&xr, &t));
    G(xyzz_dbl)(&xr, &xp);            /* 2P with ZZ != 1 */
    G(xyzz_add_affine)(&xq, &xinf, &pa);
    G(xyzz_add_affine)(&xq, &xq, &qa);
    G(xyzz_add_affine)(&xq, &xq, &pa);
    G(xyzz_add_affine)(&xq, &xq, &na);
    G(xyzz_add_affine)(&xq, &xq, &na);
    G(xyzz_add_affine)(&xq, &xq, &na);
    G(to_affine)(&na, &q);
    G(affine_neg)(&na, &na);
    G(xyzz_add_affine)(&xq, &xq, &na); /* P + Q + P - P - P - P - Q = -P */
    G(neg)(&t, &p);
    CHECK(TS(xyzz_eq_jac)(&xq, &t));
    G(xyzz_add)(&xr, &xq, &xq); /* doubling through xyzz_add */
    G(dbl)(&t, &t);
    CHECK(TS(xyzz_eq_jac)(&xr, &t));
    G(xyzz_add_affine)(&xr, &xq, &pa); /* -P + P */
    CHECK(TS(xyzz_eq_jac)(&xr, &inf));
    G(xyzz_dbl)(&xr, &xp);
    G(xyzz_add_affine)(&xr, &xr, &pa); /* 2P (ZZ != 1) + P */
    G(dbl)(&t, &p);
    G(add)(&t, &t, &p);
    CHECK(TS(xyzz_eq_jac)(&xr, &t));
    G(xyzz_add)(&xr, &xp, &xinf);
    CHECK(TS(xyzz_eq_jac)(&xr, &p));
    G(xyzz_add)(&xr, &xinf, &xp);
    CHECK(TS(xyzz_eq_jac)(&xr, &p));
    G(xyzz_add_affine)(&xr, &xp, &ginf);
    CHECK(TS(xyzz_eq_jac)(&xr, &p));
    G(xyzz_dbl)(&xr, &xinf);
    CHECK(TS(xyzz_eq_jac)(&xr, &inf));
    T_XYZZ xn;
    G(neg)(&t, &p);
    TS(xyzz_of)(&xn, &t);
    G(xyzz_dbl)(&xn, &xn);
    G(xyzz_dbl)(&xr, &xp);
    G(xyzz_add)(&xr, &xr, &xn); /* 2P + (-2P), both with ZZ != 1 */
    CHECK(TS(xyzz_eq_jac)(&xr, &inf));
  }
}

static void TS(test_scalar_mul)(czk_test_rng *g, int iters) {
  T_JAC gen, inf;
  G(generator)(&gen);
  G(set_infinity)(&inf);
  T_JAC base;
  TS(rand_point)(&base, g);
  T_CAT(czk_, TG, _fixed_base) * fb8, *fb5, *fb1;
  CHECK(G(fixed_base_new)(&fb8, &base, 0) == CZK_OK);
  CHECK(G(fixed_base_new)(&fb5, &base, 5) == CZK_OK);
  CHECK(G(fixed_base_new)(&fb1, &base, 1) == CZK_OK);
  T_CAT(czk_, TG, _fixed_base) *bad = NULL;
  CHECK(G(fixed_base_new)(&bad, &base, 17) == CZK_ERR_INVALID_ARG && bad == NULL);
  for (int it = 0; it < iters; it++) {
    czk_fr a, b, c;
    rand_fr(&a, g);
    rand_fr(&b, g);
    T_JAC p, ap, bp, cp, t, u;
    TS(rand_point)(&p, g);
    /* (a + b) P = a P + b P */
    czk_fr_add(&c, &a, &b);
    G(mul)(&ap, &p, &a);
    G(mul)(&bp, &p, &b);
    G(mul)(&cp, &p, &c);
    G(add)(&t, &ap, &bp);
    CHECK(G(eq)(&t, &cp));
    /* a (b P) = (ab) P */
    czk_fr_mul(&c, &a, &b);
    G(mul)(&t, &bp, &a);
    G(mul_vartime)(&u, &p, &c);
    CHECK(G(eq)(&t, &u));
    /* ct = vartime = raw vartime = fixed base */
    G(mul_vartime)(&t, &p, &a);
    CHECK(G(eq)(&t, &ap));
    uint64_t raw[4];
    czk_fr_to_raw(raw, &a);
    G(mul_raw_vartime)(&t, &p, raw, 4);
    CHECK(G(eq)(&t, &ap));
    G(mul)(&t, &base, &a);
    G(fixed_base_mul)(&u, fb8, &a);
    CHECK(G(eq)(&t, &u));
    G(fixed_base_mul)(&u, fb5, &a);
    CHECK(G(eq)(&t, &u));
    G(fixed_base_mul)(&u, fb1, &a);
    CHECK(G(eq)(&t, &u));
    /* aliasing */
    t = p;
    G(mul)(&t, &t, &a);
    CHECK(G(eq)(&t, &ap));
  }
  /* special scalars */
  czk_fr k;
  T_JAC p, t, u;
  TS(rand_point)(&p, g);
  czk_fr_set_zero(&k);
  G(mul)(&t, &p, &k);
  CHECK(G(is_infinity)(&t));
  G(mul_vartime)(&t, &p, &k);
  CHECK(G(is_infinity)(&t));
  G(fixed_base_mul)(&t, fb8, &k);
  CHECK(G(is_infinity)(&t));
  czk_fr_set_one(&k);
  G(mul)(&t, &p, &k);
  CHECK(G(eq)(&t, &p));
  G(fixed_base_mul)(&t, fb5, &k);
  CHECK(G(eq)(&t, &base));
  czk_fr_neg(&k, &k); /* r - 1 */
  G(neg)(&u, &p);
  G(mul)(&t, &p, &k);
  CHECK(G(eq)(&t, &u));
  G(mul_vartime)(&t, &p, &k);
  CHECK(G(eq)(&t, &u));
  G(neg)(&u, &base);
  G(fixed_base_mul)(&t, fb8, &k);
  CHECK(G(eq)(&t, &u));
  G(fixed_base_mul)(&t, fb1, &k);
  CHECK(G(eq)(&t, &u));
  G(mul)(&t, &inf, &k);
  CHECK(G(is_infinity)(&t));
  G(mul_vartime)(&t, &inf, &k);
  CHECK(G(is_infinity)(&t));
  /* every small scalar against repeated addition, including digit boundaries (15, 16, 17, 31, 32, 33) */
  u = inf;
  for (uint64_t n = 0; n <= 40; n++) {
    czk_fr_from_u64(&k, n);
    G(mul)(&t, &p, &k);
    CHECK_MSG(G(eq)(&t, &u), "ct mul by %llu", (unsigned long long)n);
    G(mul_vartime)(&t, &p, &k);
    CHECK_MSG(G(eq)(&t, &u), "vartime mul by %llu", (unsigned long long)n);
    G(mul_raw_vartime)(&t, &p, &n, 1);
    CHECK(G(eq)(&t, &u));
    G(add)(&u, &u, &p);
  }
  /* scalars with long runs of ones and zeros (carry chains of the recodings) */
  uint64_t pat[4] = {~(uint64_t)0, ~(uint64_t)0, 0, 0x0fffffffffffffffULL};
  czk_fr_from_raw(&k, pat);
  G(mul)(&t, &p, &k);
  G(mul_raw_vartime)(&u, &p, pat, 4);
  CHECK(G(eq)(&t, &u));
  G(fixed_base_mul)(&t, fb8, &k);
  G(mul_raw_vartime)(&u, &base, pat, 4);
  CHECK(G(eq)(&t, &u));
  /* a long raw scalar: r * 2^64 + 5 times P = 5 P, through the 5-limb path */
  uint64_t big[5] = {5, 0, 0, 0, 0};
  for (int i = 0; i < 4; i++) big[i + 1] = czk_fr_modulus[i];
  G(mul_raw_vartime)(&t, &p, big, 5);
  czk_fr_from_u64(&k, 5);
  G(mul)(&u, &p, &k);
  CHECK(G(eq)(&t, &u));
  G(fixed_base_free)(fb8);
  G(fixed_base_free)(fb5);
  G(fixed_base_free)(fb1);
  G(fixed_base_free)(NULL);
}

static void TS(test_batch_affine)(czk_test_rng *g) {
  enum { N = 13 };
  T_JAC p[N];
  T_AFF a[N], b;
  for (int i = 0; i < N; i++) {
    TS(rand_point)(&p[i], g);
    TS(rescale)(&p[i], &p[i], g);
  }
  G(set_infinity)(&p[0]);
  G(set_infinity)(&p[7]);
  G(set_infinity)(&p[N - 1]);
  CHECK(G(batch_to_affine)(a, p, N) == CZK_OK);
  for (int i = 0; i < N; i++) {
    G(to_affine)(&b, &p[i]);
    CHECK_MSG(G(affine_eq)(&a[i], &b), "batch_to_affine entry %d", i);
  }
  CHECK(G(affine_is_infinity)(&a[7]));
  CHECK(G(batch_to_affine)(a, p, 0) == CZK_OK);
  CHECK(G(batch_to_affine)(NULL, p, 3) == CZK_ERR_INVALID_ARG);
  CHECK(G(batch_to_affine)(a, p + 1, 1) == CZK_OK);
  G(to_affine)(&b, &p[1]);
  CHECK(G(affine_eq)(&a[0], &b));
}

/* Batched affine additions against the complete Jacobian addition, every special case in one batch. */
static void TS(test_affine_batch_add)(czk_test_rng *g) {
  enum { N = 24 };
  T_AFF acc[N], q[N], want[N];
  T_JAC pj, qj, sj;
  for (int i = 0; i < N; i++) {
    TS(rand_point)(&pj, g);
    TS(rand_point)(&qj, g);
    G(to_affine)(&acc[i], &pj);
    G(to_affine)(&q[i], &qj);
  }
  memset(&acc[1], 0, sizeof acc[1]);           /* O + q */
  memset(&q[2], 0, sizeof q[2]);               /* acc + O */
  memset(&acc[3], 0, sizeof acc[3]);           /* O + O */
  memset(&q[3], 0, sizeof q[3]);
  q[4] = acc[4];                               /* tangent */
  G(affine_neg)(&q[5], &acc[5]);               /* acc + (-acc) = O */
  q[9] = acc[9];                               /* a second tangent between chords */
  G(affine_neg)(&q[N - 1], &acc[N - 1]);       /* cases at both ends of the batch */
  memset(&acc[0], 0, sizeof acc[0]);
  for (int i = 0; i < N; i++) {
    G(from_affine)(&pj, &acc[i]);
    G(from_affine)(&qj, &q[i]);
    G(add)(&sj, &pj, &qj);
    G(to_affine)(&want[i], &sj);
  }
  T_AFF got[N];
  memcpy(got, acc, sizeof got);
  CHECK(G(affine_batch_add_vartime)(got, q, N, NULL) == CZK_OK);
  for (int i = 0; i < N; i++) CHECK_MSG(G(affine_eq)(&got[i], &want[i]), "batch add entry %d", i);
  CHECK(G(affine_is_infinity)(&got[5]) && G(affine_is_infinity)(&got[3]) && G(affine_is_infinity)(&got[N - 1]));
  T_FE scratch[N];
  memcpy(got, acc, sizeof got);
  CHECK(G(affine_batch_add_vartime)(got, q, N, scratch) == CZK_OK);
  for (int i = 0; i < N; i++) CHECK(G(affine_eq)(&got[i], &want[i]));
  /* a batch with nothing to invert (only copies and infinities), n = 0, bad arguments */
  memcpy(got, acc, 6 * sizeof got[0]);
  CHECK(G(affine_batch_add_vartime)(got + 1, q + 1, 2, NULL) == CZK_OK);
  CHECK(G(affine_eq)(&got[1], &want[1]) && G(affine_eq)(&got[2], &want[2]));
  CHECK(G(affine_batch_add_vartime)(got, q, 0, NULL) == CZK_OK);
  CHECK(G(affine_batch_add_vartime)(NULL, q, 1, NULL) == CZK_ERR_INVALID_ARG);
}

/* The batched variable-time fixed-base multiplication equals the plain constant-time multiplication: edge scalars
 * (0, 1, 2, r-1, r-2, (r-1)/2, digit boundaries 2^(w-1), 2^(w-1)+1, 2^w-1, 2^w, 2^(wj), long carry runs) and random
 * ones for each window size in ws, and a run k0, k0+1, ... of n_run scalars (more than one chunk of the batch, across
 * r-1 -> 0 -> 1) checked by repeated addition of the base. */
static void TS(test_fixed_base_batch)(czk_test_rng *g, const unsigned *ws, int nws, size_t n_run) {
  enum { NS = 64 };
  T_JAC base, t;
  for (int wi = 0; wi < nws; wi++) {
    const unsigned w = ws[wi];
    if (wi % 2) G(generator)(&base);
    else TS(rand_point)(&base, g);
    T_CAT(czk_, TG, _fixed_base) *fb = NULL, *fbc = NULL; /* the variable-time table, the constant-time one */
    CHECK(G(fixed_base_new_vartime)(&fb, &base, w) == CZK_OK);
    if (!fb) return;
    if (w <= 13) CHECK(G(fixed_base_new)(&fbc, &base, w) == CZK_OK);
    czk_fr k[NS];
    int n = 0;
    uint64_t raw[4];
    czk_fr_set_zero(&k[n++]);
    czk_fr_set_one(&k[n++]);
    czk_fr_from_u64(&k[n++], 2);
    czk_fr_neg(&k[n], &k[1]), n++;    /* r - 1 */
    czk_fr_neg(&k[n], &k[2]), n++;    /* r - 2 */
    raw[0] = czk_fr_modulus[0] >> 1 | czk_fr_modulus[1] << 63; /* (r - 1) / 2 */
    raw[1] = czk_fr_modulus[1] >> 1 | czk_fr_modulus[2] << 63;
    raw[2] = czk_fr_modulus[2] >> 1 | czk_fr_modulus[3] << 63;
    raw[3] = czk_fr_modulus[3] >> 1;
    CHECK(czk_fr_from_raw(&k[n++], raw) == CZK_OK);
    const uint64_t hw = (uint64_t)1 << (w - 1);
    const uint64_t small[] = {hw - 1, hw, hw + 1, 2 * hw - 1, 2 * hw, 2 * hw + 1, 3 * hw, 3 * hw + 1};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) czk_fr_from_u64(&k[n++], small[i]);
    /* 2^(wj) and 2^(wj) - 1 (a carry through every window), for windows j spread over the scalar */
    const unsigned step = 3 * w < 23 ? (23 + w - 1) / w * w : 3 * w;
    for (unsigned bit = w; bit < 255 && n + 2 <= NS - 8; bit += step) {
      memset(raw, 0, sizeof raw);
      raw[bit / 64] = (uint64_t)1 << (bit % 64);
      CHECK(czk_fr_from_raw(&k[n++], raw) == CZK_OK);
      czk_fr_sub(&k[n], &k[n - 1], &k[1]), n++;
    }
    const uint64_t pat[4] = {~(uint64_t)0, ~(uint64_t)0, 0, 0x0fffffffffffffffULL};
    CHECK(czk_fr_from_raw(&k[n++], pat) == CZK_OK);
    memset(raw, 0, sizeof raw);
    raw[3] = (uint64_t)1 << 62; /* 2^254, the top bit of a canonical scalar */
    CHECK(czk_fr_from_raw(&k[n++], raw) == CZK_OK);
    CHECK(n <= NS - 4);
    while (n < NS) rand_fr(&k[n++], g);
    T_AFF out[NS], want;
    CHECK(G(fixed_base_mul_batch_vartime)(out, fb, k, NS) == CZK_OK);
    for (int i = 0; i < NS; i++) {
      G(mul)(&t, &base, &k[i]);
      G(to_affine)(&want, &t);
      CHECK_MSG(G(affine_eq)(&out[i], &want), "w %u scalar %d", w, i);
    }
    CHECK(G(affine_is_infinity)(&out[0]));
    if (fbc) { /* both tables hold the same points */
      T_AFF outc[NS];
      CHECK(G(fixed_base_mul_batch_vartime)(outc, fbc, k, NS) == CZK_OK);
      CHECK(memcmp(outc, out, sizeof out) == 0);
    }
    for (int i = 0; i < NS; i += 7) { /* the constant-time path over the variable-time table */
      G(fixed_base_mul)(&t, fb, &k[i]);
      G(to_affine)(&want, &t);
      CHECK(G(affine_eq)(&out[i], &want));
    }
    /* the same scalars one at a time (chunks of one) */
    for (int i = 0; i < 8; i++) {
      T_AFF one;
      CHECK(G(fixed_base_mul_batch_vartime)(&one, fb, &k[i], 1) == CZK_OK);
      CHECK(G(affine_eq)(&one, &out[i]));
    }
    if (n_run && wi == 0) {
      T_AFF *run = malloc(n_run * sizeof *run);
      czk_fr *kr = malloc(n_run * sizeof *kr);
      CHECK(run && kr);
      if (run && kr) {
        czk_fr_from_u64(&kr[0], 500); /* k0 = r - 500 */
        czk_fr_neg(&kr[0], &kr[0]);
        for (size_t i = 1; i < n_run; i++) czk_fr_add(&kr[i], &kr[i - 1], &k[1]);
        CHECK(G(fixed_base_mul_batch_vartime)(run, fb, kr, n_run) == CZK_OK);
        G(mul)(&t, &base, &kr[0]);
        size_t bad = 0;
        for (size_t i = 0; i < n_run; i++) {
          G(to_affine)(&want, &t);
          if (!G(affine_eq)(&run[i], &want)) bad++;
          G(add)(&t, &t, &base);
        }
        CHECK_MSG(bad == 0, "w %u: %zu of %zu run points differ", w, bad, n_run);
        CHECK(G(affine_is_infinity)(&run[500]));
      }
      free(run);
      free(kr);
    }
    CHECK(G(fixed_base_mul_batch_vartime)(out, fb, k, 0) == CZK_OK);
    CHECK(G(fixed_base_mul_batch_vartime)(NULL, fb, k, 1) == CZK_ERR_INVALID_ARG);
    G(fixed_base_free)(fb);
    G(fixed_base_free)(fbc);
  }
  /* a table of the point at infinity: every multiple is infinity */
  T_CAT(czk_, TG, _fixed_base) *fi = NULL;
  T_JAC inf;
  G(set_infinity)(&inf);
  CHECK(G(fixed_base_new_vartime)(&fi, &inf, 17) == CZK_ERR_INVALID_ARG && fi == NULL);
  CHECK(G(fixed_base_new_vartime)(&fi, &inf, 4) == CZK_OK);
  if (fi) {
    czk_fr k[3];
    T_AFF o[3];
    rand_fr(&k[0], g);
    czk_fr_set_one(&k[1]);
    czk_fr_neg(&k[2], &k[1]);
    CHECK(G(fixed_base_mul_batch_vartime)(o, fi, k, 3) == CZK_OK);
    CHECK(G(affine_is_infinity)(&o[0]) && G(affine_is_infinity)(&o[1]) && G(affine_is_infinity)(&o[2]));
  }
  G(fixed_base_free)(fi);
}

static void TS(test_subgroup)(czk_test_rng *g, int iters) {
  T_JAC inf;
  G(set_infinity)(&inf);
  CHECK(G(in_subgroup)(&inf));
  T_AFF ainf;
  memset(&ainf, 0, sizeof ainf);
  CHECK(G(affine_in_subgroup)(&ainf));
  int outside = 0;
  for (int it = 0; it < iters; it++) {
    T_JAC p;
    TS(rand_point)(&p, g);
    TS(rescale)(&p, &p, g);
    CHECK(G(in_subgroup)(&p));
    CHECK(TS(slow_in_subgroup)(&p));
    T_AFF pa;
    G(to_affine)(&pa, &p);
    CHECK(G(affine_in_subgroup)(&pa));
    /* full-curve points without cofactor clearing */
    T_AFF e;
    TS(rand_curve_point)(&e, g);
    CHECK(G(affine_is_on_curve)(&e));
    T_JAC ej;
    G(from_affine)(&ej, &e);
    bool fast = G(affine_in_subgroup)(&e), slow = TS(slow_in_subgroup)(&ej);
    CHECK_MSG(fast == slow, "fast subgroup check %d != slow %d", fast, slow);
    CHECK(G(in_subgroup)(&ej) == fast);
    outside += !slow;
    /* clearing the cofactor lands in the subgroup */
    T_JAC c;
    G(mul_raw_vartime)(&c, &ej, T_COF, T_COF_LIMBS);
    CHECK(!G(is_infinity)(&c));
    CHECK(G(in_subgroup)(&c));
    CHECK(TS(slow_in_subgroup)(&c));
    /* a subgroup point plus a non-subgroup point is outside */
    G(add)(&c, &c, &ej);
    CHECK(G(in_subgroup)(&c) == TS(slow_in_subgroup)(&c));
    CHECK(!G(in_subgroup)(&c));
  }
  CHECK_EQ_INT(outside, iters);
}

#undef T_CAT_
#undef T_CAT
#undef G
#undef F
#undef TS
