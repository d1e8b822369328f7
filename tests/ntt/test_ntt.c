/* test_ntt.c: NTT vs a naive O(n^2) DFT (both root conventions, n = 1 .. 64, and sampled outputs at n = 2^12, 2^13,
 * past the cache-block size), inverse(forward(x)) = x, coset transforms vs direct evaluation at g*omega^j and their
 * round trips, explicit-omega domains (primitive-root check), thread counts 1 and 3, and the H computations:
 * bellperson's h satisfies a(X)b(X) - c(X) = h(X)(X^n - 1) at a random point for satisfying inputs (and not for a
 * broken one), snarkjs's h[j] = a(w)b(w) - c(w) at the odd points w = omega_2n^(2j+1). */
#include "czk/ntt.h"
#include "czk_test.h"

static czk_test_rng g_rng;

static void rand_fr(czk_fr *r) {
  uint8_t b[64];
  czk_test_rng_bytes(&g_rng, b, sizeof b);
  czk_fr_from_bytes_wide_le(r, b, sizeof b);
}
static void rand_vec(czk_fr *v, size_t n) {
  for (size_t i = 0; i < n; i++) rand_fr(&v[i]);
}
static void pow_u64(czk_fr *r, const czk_fr *a, uint64_t e) { czk_fr_pow_vartime(r, a, &e, 1); }

/* sum_i coef[i] x^i (Horner) */
static void poly_eval(czk_fr *r, const czk_fr *coef, size_t n, const czk_fr *x) {
  czk_fr acc;
  czk_fr_set_zero(&acc);
  for (size_t i = n; i-- > 0;) {
    czk_fr_mul(&acc, &acc, x);
    czk_fr_add(&acc, &acc, &coef[i]);
  }
  *r = acc;
}

/* out[j] = sum_i a[i] (s w^j)^i for the listed j */
static void naive_eval_at(czk_fr *out, const czk_fr *a, size_t n, const czk_fr *s, const czk_fr *w, size_t j) {
  czk_fr x;
  pow_u64(&x, w, j);
  czk_fr_mul(&x, &x, s);
  poly_eval(out, a, n, &x);
}

/* coefficients from values over <w>: c_i = (1/n) sum_j v_j w^(-ij) */
static void naive_interp(czk_fr *coef, const czk_fr *v, size_t n, const czk_fr *w) {
  czk_fr winv, ninv, nn;
  czk_fr_inv(&winv, w);
  czk_fr_from_u64(&nn, n);
  czk_fr_inv(&ninv, &nn);
  czk_fr one;
  czk_fr_set_one(&one);
  for (size_t i = 0; i < n; i++) {
    naive_eval_at(&coef[i], v, n, &one, &winv, i);
    czk_fr_mul(&coef[i], &coef[i], &ninv);
  }
}

static bool vec_eq(const czk_fr *a, const czk_fr *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!czk_fr_eq(&a[i], &b[i])) return false;
  return true;
}

static void test_transforms(czk_pool *pool, czk_fr_roots roots, unsigned log_n, size_t samples) {
  size_t n = (size_t)1 << log_n;
  czk_ntt_domain *d = NULL;
  CHECK(czk_ntt_domain_new(&d, log_n, roots, pool) == CZK_OK);
  if (!d) return;
  CHECK(czk_ntt_domain_size(d) == n && czk_ntt_domain_log_size(d) == log_n);
  czk_fr w, one, g, *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  czk_ntt_domain_omega(&w, d);
  czk_fr ref;
  CHECK(czk_fr_root_of_unity(&ref, log_n, roots) == CZK_OK && czk_fr_eq(&ref, &w));
  czk_fr_set_one(&one);
  rand_vec(x, n);
  memcpy(y, x, n * sizeof *x);

  /* forward vs naive (all outputs for small n, sampled ones otherwise) */
  CHECK(czk_ntt_forward(d, y, pool) == CZK_OK);
  size_t cnt = samples && samples < n ? samples : n;
  int bad = 0;
  for (size_t s = 0; s < cnt; s++) {
    size_t j = cnt == n ? s : (size_t)(czk_test_rng_next(&g_rng) % n);
    czk_fr e;
    naive_eval_at(&e, x, n, &one, &w, j);
    bad += !czk_fr_eq(&e, &y[j]);
  }
  CHECK_MSG(bad == 0, "forward log_n=%u roots=%d: %d wrong", log_n, (int)roots, bad);
  /* inverse(forward(x)) = x */
  CHECK(czk_ntt_inverse(d, y, pool) == CZK_OK);
  CHECK_MSG(vec_eq(x, y, n), "round trip log_n=%u", log_n);
  /* inverse alone vs naive interpolation (small n) */
  if (n <= 64) {
    czk_fr *z = malloc(n * sizeof *z);
    naive_interp(z, x, n, &w);
    memcpy(y, x, n * sizeof *x);
    czk_ntt_inverse(d, y, pool);
    CHECK_MSG(vec_eq(y, z, n), "inverse vs naive log_n=%u", log_n);
    free(z);
  }
  /* coset forward = values at g w^j; coset inverse undoes it */
  rand_fr(&g);
  memcpy(y, x, n * sizeof *x);
  CHECK(czk_ntt_coset_forward(d, y, &g, pool) == CZK_OK);
  bad = 0;
  for (size_t s = 0; s < cnt; s++) {
    size_t j = cnt == n ? s : (size_t)(czk_test_rng_next(&g_rng) % n);
    czk_fr e;
    naive_eval_at(&e, x, n, &g, &w, j);
    bad += !czk_fr_eq(&e, &y[j]);
  }
  CHECK_MSG(bad == 0, "coset forward log_n=%u: %d wrong", log_n, bad);
  CHECK(czk_ntt_coset_inverse(d, y, &g, pool) == CZK_OK);
  CHECK_MSG(vec_eq(x, y, n), "coset round trip log_n=%u", log_n);
  free(x);
  free(y);
  czk_ntt_domain_free(d);
}

static void test_explicit_omega(void) {
  czk_fr w, w2;
  czk_ntt_domain *d = NULL;
  CHECK(czk_fr_root_of_unity(&w, 4, CZK_ROOTS_BELLMAN) == CZK_OK);
  CHECK(czk_ntt_domain_new_omega(&d, 4, &w, NULL) == CZK_OK && d);
  czk_ntt_domain_free(d);
  czk_fr_sqr(&w2, &w); /* order 8, not 16 */
  CHECK(czk_ntt_domain_new_omega(&d, 4, &w2, NULL) == CZK_ERR_INVALID_ARG && !d);
  CHECK(czk_ntt_domain_new_omega(&d, 2, &w, NULL) == CZK_ERR_INVALID_ARG); /* order 16, not 4 */
  czk_fr one;
  czk_fr_set_one(&one);
  CHECK(czk_ntt_domain_new_omega(&d, 0, &one, NULL) == CZK_OK && d);
  /* a custom-omega domain cannot run the snarkjs H (no omega_2n) */
  CHECK(czk_ntt_h(d, CZK_H_SNARKJS, &one, &one, &one, NULL) == CZK_ERR_UNSUPPORTED);
  czk_ntt_domain_free(d);
  CHECK(czk_ntt_domain_new(&d, 33, CZK_ROOTS_BELLMAN, NULL) == CZK_ERR_INVALID_ARG);
  CHECK(czk_ntt_forward(NULL, &one, NULL) == CZK_ERR_INVALID_ARG);
}

/* Random satisfying (c = a*b over the domain) or broken input; checks the H identities. */
static void test_h(czk_pool *pool, czk_h_kind kind, unsigned log_n, bool satisfying) {
  size_t n = (size_t)1 << log_n;
  czk_fr_roots roots = kind == CZK_H_BELLPERSON ? CZK_ROOTS_BELLMAN : CZK_ROOTS_SNARKJS;
  czk_ntt_domain *d = NULL;
  CHECK(czk_ntt_domain_new(&d, log_n, roots, pool) == CZK_OK);
  czk_h_plan plan;
  CHECK(czk_h_plan_init(&plan, kind, n / 2 + 1) == CZK_OK && plan.n == n && plan.log_n == log_n);
  CHECK(plan.scratch_bytes == 0 && plan.domain_bytes == czk_ntt_domain_bytes(log_n));
  czk_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  czk_fr *ac = malloc(n * sizeof *a), *bc = malloc(n * sizeof *a), *cc = malloc(n * sizeof *a);
  rand_vec(a, n);
  rand_vec(b, n);
  for (size_t i = 0; i < n; i++) czk_fr_mul(&c[i], &a[i], &b[i]);
  if (!satisfying) {
    czk_fr one;
    czk_fr_set_one(&one);
    czk_fr_add(&c[n / 2], &c[n / 2], &one);
  }
  czk_fr w;
  czk_ntt_domain_omega(&w, d);
  naive_interp(ac, a, n, &w);
  naive_interp(bc, b, n, &w);
  naive_interp(cc, c, n, &w);
  CHECK(czk_ntt_h(d, kind, a, b, c, pool) == CZK_OK);
  if (kind == CZK_H_BELLPERSON) {
    /* a(x)b(x) - c(x) == h(x)(x^n - 1) at random x; h has degree <= n-2 */
    czk_fr x, va, vb, vc, vh, z, lhs, rhs, one;
    rand_fr(&x);
    poly_eval(&va, ac, n, &x);
    poly_eval(&vb, bc, n, &x);
    poly_eval(&vc, cc, n, &x);
    poly_eval(&vh, a, n, &x);
    czk_fr_mul(&lhs, &va, &vb);
    czk_fr_sub(&lhs, &lhs, &vc);
    pow_u64(&z, &x, n);
    czk_fr_set_one(&one);
    czk_fr_sub(&z, &z, &one);
    czk_fr_mul(&rhs, &vh, &z);
    if (satisfying) {
      CHECK_MSG(czk_fr_eq(&lhs, &rhs), "bellperson H identity log_n=%u", log_n);
      CHECK_MSG(czk_fr_is_zero(&a[n - 1]), "h[n-1] != 0 log_n=%u", log_n);
    } else {
      CHECK_MSG(!czk_fr_eq(&lhs, &rhs), "broken input passed the H identity log_n=%u", log_n);
    }
  } else {
    czk_fr w2;
    CHECK(czk_fr_root_of_unity(&w2, log_n + 1, CZK_ROOTS_SNARKJS) == CZK_OK);
    int bad = 0;
    for (size_t j = 0; j < n; j++) {
      czk_fr x, va, vb, vc, e;
      pow_u64(&x, &w2, 2 * j + 1);
      poly_eval(&va, ac, n, &x);
      poly_eval(&vb, bc, n, &x);
      poly_eval(&vc, cc, n, &x);
      czk_fr_mul(&e, &va, &vb);
      czk_fr_sub(&e, &e, &vc);
      bad += !czk_fr_eq(&e, &a[j]);
    }
    CHECK_MSG(bad == 0, "snarkjs H log_n=%u: %d wrong", log_n, bad);
    /* satisfying: sum_j h_j L_{2j+1}(X) interpolates a b - c over the 2n-domain; a b - c vanishes on the even points,
     * so the 2n-point interpolation through (even: 0, odd: h) must equal a(x)b(x) - c(x) at a random x. */
    if (satisfying && n <= 32) {
      size_t N2 = 2 * n;
      czk_fr *v2 = calloc(N2, sizeof *v2), *co2 = malloc(N2 * sizeof *co2);
      for (size_t j = 0; j < n; j++) v2[2 * j + 1] = a[j];
      naive_interp(co2, v2, N2, &w2);
      czk_fr x, va, vb, vc, lhs, rhs;
      rand_fr(&x);
      poly_eval(&va, ac, n, &x);
      poly_eval(&vb, bc, n, &x);
      poly_eval(&vc, cc, n, &x);
      czk_fr_mul(&lhs, &va, &vb);
      czk_fr_sub(&lhs, &lhs, &vc);
      poly_eval(&rhs, co2, N2, &x);
      CHECK_MSG(czk_fr_eq(&lhs, &rhs), "snarkjs Lagrange identity log_n=%u", log_n);
      free(v2);
      free(co2);
    }
  }
  free(a);
  free(b);
  free(c);
  free(ac);
  free(bc);
  free(cc);
  czk_ntt_domain_free(d);
}

int main(void) {
  czk_test_rng_seed(&g_rng, 0x4e5454);
  czk_pool *p1 = NULL, *p3 = NULL;
  CHECK(czk_pool_new(&p1, 1) == CZK_OK);
  CHECK(czk_pool_new(&p3, 3) == CZK_OK);
  czk_pool *pools[2] = {p1, p3};
  for (int pi = 0; pi < 2; pi++) {
    for (int r = 0; r < 2; r++) {
      for (unsigned lg = 0; lg <= 6; lg++) test_transforms(pools[pi], (czk_fr_roots)r, lg, 0);
      test_transforms(pools[pi], (czk_fr_roots)r, 12, 24);
    }
    test_transforms(pools[pi], CZK_ROOTS_BELLMAN, 13, 24);
  }
  test_explicit_omega();
  for (int pi = 0; pi < 2; pi++) {
    for (unsigned lg = 1; lg <= 6; lg++) {
      test_h(pools[pi], CZK_H_BELLPERSON, lg, true);
      test_h(pools[pi], CZK_H_SNARKJS, lg, true);
    }
    test_h(pools[pi], CZK_H_BELLPERSON, 4, false);
    test_h(pools[pi], CZK_H_BELLPERSON, 8, true);
    test_h(pools[pi], CZK_H_SNARKJS, 8, true);
  }
  czk_h_plan hp;
  CHECK(czk_h_plan_init(&hp, CZK_H_BELLPERSON, 1000) == CZK_OK && hp.n == 1024 && hp.log_n == 10);
  CHECK(czk_h_plan_init(&hp, CZK_H_SNARKJS, 0) == CZK_OK && hp.n == 1);
  CHECK(czk_h_plan_init(NULL, CZK_H_SNARKJS, 4) == CZK_ERR_INVALID_ARG);
  czk_pool_free(p1);
  czk_pool_free(p3);
  return czk_test_done("test_ntt");
}
