/* gmp_field_impl.h: one prime field (Fp or Fr) checked against GMP; included twice by test_field_gmp.c with
 * T (element type), N (limbs), F(x) (public name), G(x) (test-local name) and DECSZ defined.
 *
 * For every seeded random input pair (x, y) drawn by G(gen) (uniform, sparse, and edge values: 0, 1, 2, m-1, m-2,
 * (m-1)/2, (m+1)/2, 2^k +- 1 mod m) each operation's canonical result is compared with the GMP result of the same
 * integer operation mod m; the Montgomery representation itself is checked (limbs == x*R mod m). */

static mpz_t G(m), G(R), G(half);
static bool G(ready);

static void G(setup)(const uint64_t *mod) {
  if (G(ready)) return;
  G(ready) = true;
  mpz_init(G(m));
  mpz_import(G(m), N, -1, 8, 0, 0, mod);
  mpz_init_set_ui(G(R), 1);
  mpz_mul_2exp(G(R), G(R), 64 * N);
  mpz_init(G(half));
  mpz_sub_ui(G(half), G(m), 1);
  mpz_fdiv_q_2exp(G(half), G(half), 1);
}

static void G(teardown)(void) {
  if (!G(ready)) return;
  mpz_clears(G(m), G(R), G(half), NULL);
  G(ready) = false;
}

static void G(to_limbs)(uint64_t *out, const mpz_t v) {
  memset(out, 0, 8 * N);
  size_t cnt = 0;
  mpz_export(out, &cnt, -1, 8, 0, 0, v);
}

/* draw x in [0, m) */
static void G(gen)(mpz_t x, czk_test_rng *rng) {
  uint64_t l[N];
  unsigned kind = (unsigned)(czk_test_rng_next(rng) % 16);
  switch (kind) {
  case 0: { /* small constants around 0 and m */
    static const int small[] = {0, 1, 2, 3, -1, -2, -3};
    int s = small[czk_test_rng_next(rng) % 7];
    mpz_set_si(x, s);
    mpz_mod(x, x, G(m));
    return;
  }
  case 1: /* (m-1)/2, (m+1)/2, (m-3)/2 */
    mpz_set(x, G(half));
    mpz_add_ui(x, x, czk_test_rng_next(rng) % 2);
    if (czk_test_rng_next(rng) & 1) mpz_sub_ui(x, x, 1);
    return;
  case 2: { /* 2^k + {-1,0,1} mod m */
    unsigned k = (unsigned)(czk_test_rng_next(rng) % (64 * N));
    mpz_set_ui(x, 1);
    mpz_mul_2exp(x, x, k);
    long d = (long)(czk_test_rng_next(rng) % 3) - 1;
    if (d < 0)
      mpz_sub_ui(x, x, 1);
    else if (d > 0)
      mpz_add_ui(x, x, 1);
    mpz_mod(x, x, G(m));
    return;
  }
  case 3: /* sparse limbs: each limb 0, all-ones or random */
    for (int i = 0; i < N; i++) {
      unsigned c = (unsigned)(czk_test_rng_next(rng) % 3);
      l[i] = c == 0 ? 0 : c == 1 ? ~(uint64_t)0 : czk_test_rng_next(rng);
    }
    break;
  default:
    for (int i = 0; i < N; i++)
      l[i] = czk_test_rng_next(rng);
    break;
  }
  mpz_import(x, N, -1, 8, 0, 0, l);
  mpz_mod(x, x, G(m));
}

/* element from canonical integer, and the check that its limbs are x*R mod m */
static T G(elem)(const mpz_t x) {
  uint64_t raw[N];
  G(to_limbs)(raw, x);
  T a;
  czk_status st = F(from_raw)(&a, raw);
  CHECK(st == CZK_OK);
  return a;
}

static bool G(eq_mpz)(const T *a, const mpz_t want) {
  uint64_t raw[N], w[N];
  F(to_raw)(raw, a);
  G(to_limbs)(w, want);
  return memcmp(raw, w, sizeof raw) == 0;
}

#define GCHECK(a, want, what) CHECK_MSG(G(eq_mpz)(&(a), want), "%s: iteration %lu", what, (unsigned long)it)

/* iters inputs for every operation; the exponentiation-based ones (inv, inv_vartime, pow, legendre, sqrt) on every
 * heavy_every-th input only (1 = all of them). */
static void G(run)(const char *name, const uint64_t *mod, unsigned long iters, unsigned long heavy_every,
                   uint64_t seed) {
  G(setup)(mod);
  czk_test_rng rng;
  czk_test_rng_seed(&rng, seed);
  mpz_t x, y, z, t;
  mpz_inits(x, y, z, t, NULL);
  int fails0 = czk_test_failures;
  T batch_in[8], batch_out[8];
  mpz_t batch_x[8];
  for (int i = 0; i < 8; i++)
    mpz_init(batch_x[i]);
  for (unsigned long it = 0; it < iters; it++) {
    G(gen)(x, &rng);
    G(gen)(y, &rng);
    T a = G(elem)(x), b = G(elem)(y), r, s;
    /* Montgomery representation */
    mpz_mul(z, x, G(R));
    mpz_mod(z, z, G(m));
    uint64_t zl[N];
    G(to_limbs)(zl, z);
    CHECK_MSG(memcmp(zl, a.l, sizeof zl) == 0, "montgomery form, iteration %lu", it);

    F(add)(&r, &a, &b);
    mpz_add(z, x, y);
    mpz_mod(z, z, G(m));
    GCHECK(r, z, "add");
    F(sub)(&r, &a, &b);
    mpz_sub(z, x, y);
    mpz_mod(z, z, G(m));
    GCHECK(r, z, "sub");
    F(neg)(&r, &a);
    mpz_neg(z, x);
    mpz_mod(z, z, G(m));
    GCHECK(r, z, "neg");
    F(dbl)(&r, &a);
    mpz_mul_2exp(z, x, 1);
    mpz_mod(z, z, G(m));
    GCHECK(r, z, "dbl");
    F(mul)(&r, &a, &b);
    mpz_mul(z, x, y);
    mpz_mod(z, z, G(m));
    GCHECK(r, z, "mul");
    r = a;
    F(mul)(&r, &r, &r); /* aliasing */
    mpz_mul(z, x, x);
    mpz_mod(z, z, G(m));
    GCHECK(r, z, "mul aliased");
    F(sqr)(&r, &a);
    GCHECK(r, z, "sqr");
    CHECK(F(is_zero)(&a) == (mpz_sgn(x) == 0));
    CHECK(F(is_one)(&a) == (mpz_cmp_ui(x, 1) == 0));
    CHECK(F(eq)(&a, &b) == (mpz_cmp(x, y) == 0));
    F(cmov)(&r, &a, &b, false);
    CHECK(F(eq)(&r, &a));
    F(cmov)(&r, &a, &b, true);
    CHECK(F(eq)(&r, &b));
    uint64_t k = czk_test_rng_next(&rng);
    F(from_u64)(&r, k);
    mpz_set_ui(z, 0);
    mpz_import(z, 1, -1, 8, 0, 0, &k);
    mpz_mod(z, z, G(m));
    GCHECK(r, z, "from_u64");

    bool heavy = it % heavy_every == 0 || mpz_cmp_ui(x, 3) < 0;
    /* inverses */
    if (heavy) {
      F(inv)(&r, &a);
      F(inv_vartime)(&s, &a);
      if (mpz_sgn(x) == 0)
        mpz_set_ui(z, 0);
      else
        mpz_invert(z, x, G(m));
      GCHECK(r, z, "inv");
      GCHECK(s, z, "inv_vartime");

      /* pow with a random exponent of 1..N+1 limbs (some short) */
      uint64_t e[N + 1];
      size_t el = 1 + czk_test_rng_next(&rng) % (N + 1);
      for (size_t i = 0; i < el; i++)
        e[i] = czk_test_rng_next(&rng);
      if (czk_test_rng_next(&rng) & 1) e[el - 1] &= 0xffff;
      F(pow_vartime)(&r, &a, e, el);
      mpz_import(t, el, -1, 8, 0, 0, e);
      mpz_powm(z, x, t, G(m));
      GCHECK(r, z, "pow_vartime");

      /* legendre and sqrt */
      int leg = F(legendre)(&a);
      int want = mpz_sgn(x) == 0 ? 0 : mpz_legendre(x, G(m));
      CHECK_MSG(leg == want, "legendre: iteration %lu: %d vs %d", it, leg, want);
      bool ok = F(sqrt)(&r, &a);
      CHECK_MSG(ok == (want >= 0), "sqrt existence: iteration %lu", it);
      if (ok) {
        F(sqr)(&s, &r);
        CHECK(F(eq)(&s, &a));
      }
      /* sqrt of a square always succeeds */
      F(sqr)(&s, &b);
      CHECK(F(sqrt)(&r, &s));
      F(sqr)(&r, &r);
      CHECK(F(eq)(&r, &s));
    }

    /* encodings */
    uint8_t le[8 * N], be[8 * N], wle[8 * N];
    F(to_bytes_le)(le, &a);
    F(to_bytes_be)(be, &a);
    memset(wle, 0, sizeof wle);
    mpz_export(wle, NULL, -1, 1, 0, 0, x);
    CHECK(memcmp(le, wle, sizeof le) == 0);
    for (int i = 0; i < 8 * N; i++)
      CHECK(be[i] == le[8 * N - 1 - i]);
    CHECK(F(from_bytes_le)(&r, le) == CZK_OK && F(eq)(&r, &a));
    CHECK(F(from_bytes_be)(&r, be) == CZK_OK && F(eq)(&r, &a));
    /* x + m (when it fits in 8N bytes) and random big values must be rejected */
    mpz_add(z, x, G(m));
    if (mpz_sizeinbase(z, 2) <= (size_t)(64 * N)) {
      memset(wle, 0, sizeof wle);
      mpz_export(wle, NULL, -1, 1, 0, 0, z);
      CHECK(F(from_bytes_le)(&r, wle) == CZK_ERR_NOT_CANONICAL);
      for (int i = 0; i < 8 * N; i++)
        be[i] = wle[8 * N - 1 - i];
      CHECK(F(from_bytes_be)(&r, be) == CZK_ERR_NOT_CANONICAL);
      uint64_t zl2[N];
      G(to_limbs)(zl2, z);
      CHECK(F(from_raw)(&r, zl2) == CZK_ERR_NOT_CANONICAL);
    }
    /* wide reduction of 0..(16N) random bytes */
    {
      uint8_t wide[16 * N];
      size_t len = (size_t)(czk_test_rng_next(&rng) % (16 * N + 1));
      czk_test_rng_bytes(&rng, wide, len);
      F(from_bytes_wide_le)(&r, wide, len);
      mpz_set_ui(z, 0);
      if (len) mpz_import(z, len, -1, 1, 0, 0, wide);
      mpz_mod(z, z, G(m));
      GCHECK(r, z, "from_bytes_wide_le");
    }
    /* strings (every 8th iteration: GMP string conversion is comparatively slow) */
    if (it % 8 == 0) {
      char dec[DECSZ], want_s[DECSZ + 8];
      F(to_dec)(dec, &a);
      mpz_get_str(want_s, 10, x);
      CHECK_MSG(strcmp(dec, want_s) == 0, "to_dec %s vs %s", dec, want_s);
      CHECK(F(from_str)(&r, dec) == CZK_OK && F(eq)(&r, &a));
      want_s[0] = '0';
      want_s[1] = (it & 16) ? 'X' : 'x';
      mpz_get_str(want_s + 2, (it & 32) ? -16 : 16, x);
      CHECK(F(from_str)(&r, want_s) == CZK_OK && F(eq)(&r, &a));
      mpz_add(z, x, G(m));
      mpz_get_str(want_s, 10, z);
      CHECK(F(from_str)(&r, want_s) == CZK_ERR_NOT_CANONICAL);
    }
    /* batch inversion over a window of 8 recent values (some zero) */
    mpz_set(batch_x[it % 8], x);
    batch_in[it % 8] = a;
    if (it % 8 == 7) {
      CHECK(F(batch_inv)(batch_out, batch_in, 8, NULL) == CZK_OK);
      T scratch[8], inplace[8];
      memcpy(inplace, batch_in, sizeof inplace);
      CHECK(F(batch_inv)(inplace, inplace, 8, scratch) == CZK_OK);
      for (int i = 0; i < 8; i++) {
        if (mpz_sgn(batch_x[i]) == 0)
          mpz_set_ui(z, 0);
        else
          mpz_invert(z, batch_x[i], G(m));
        CHECK_MSG(G(eq_mpz)(&batch_out[i], z), "batch_inv %d at %lu", i, it);
        CHECK(F(eq)(&inplace[i], &batch_out[i]));
      }
    }
    if (czk_test_failures - fails0 > 20) break;
  }
  for (int i = 0; i < 8; i++)
    mpz_clear(batch_x[i]);
  mpz_clears(x, y, z, t, NULL);
  fprintf(stderr, "%s: %lu inputs (%lu for exponentiation-based operations)\n", name, iters,
          (iters + heavy_every - 1) / heavy_every);
}
