/* test_msm.c: Pippenger MSM (G1 and G2) against the naive sum of scalar multiplications on seeded random inputs:
 * sizes 0, 1, 2, 3, 17, 100, 1000 (non powers of two), with zero scalars, repeated bases (same and opposite points
 * with equal scalars: bucket doublings and cancellations), infinity bases, extreme scalars (1, r-1, 2^k); Montgomery vs
 * raw scalars (raw values >= r reduce mod r); pools of 1, 2 and 3 threads; forced window sizes 2..16 (2, 4, 8, 16: c divides 256) and point splits;
 * caller-provided scratch; the density-filtered variant; argument and plan validation. */
#include "czk/msm.h"
#include "czk_test.h"

static czk_test_rng g_rng;

static void rand_fr(czk_fr *r) {
  uint8_t b[64];
  czk_test_rng_bytes(&g_rng, b, sizeof b);
  czk_fr_from_bytes_wide_le(r, b, sizeof b);
}

/* scalars with edge cases mixed in: 0, 1, r-1, 2^k, small */
static void rand_scalars(czk_fr *k, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint64_t sel = czk_test_rng_next(&g_rng) % 10;
    if (sel == 0) czk_fr_set_zero(&k[i]);
    else if (sel == 1) czk_fr_set_one(&k[i]);
    else if (sel == 2) {
      czk_fr_set_one(&k[i]);
      czk_fr_neg(&k[i], &k[i]); /* r - 1 */
    } else if (sel == 3) {
      uint64_t raw[4] = {0, 0, 0, 0};
      unsigned bit = (unsigned)(czk_test_rng_next(&g_rng) % 255);
      raw[bit / 64] = (uint64_t)1 << (bit % 64);
      czk_fr_from_raw(&k[i], raw);
    } else if (sel == 4) czk_fr_from_u64(&k[i], czk_test_rng_next(&g_rng) % 1000);
    else rand_fr(&k[i]);
  }
}

/* ---------------------------------------------------------------- G1 */
static void rand_g1_bases(czk_g1_affine *P, size_t n) {
  if (!n) return;
  czk_g1 g, q, acc;
  czk_fr k;
  czk_g1_generator(&g);
  rand_fr(&k);
  czk_g1_mul_vartime(&acc, &g, &k);
  rand_fr(&k);
  czk_g1_mul_vartime(&q, &g, &k);
  czk_g1 *J = malloc(n * sizeof *J);
  for (size_t i = 0; i < n; i++) {
    J[i] = acc;
    czk_g1_add(&acc, &acc, &q);
  }
  czk_g1_batch_to_affine(P, J, n);
  free(J);
  /* repeated and opposite bases, infinity bases */
  for (size_t i = 3; i < n; i += 7) P[i] = P[i - 3];
  for (size_t i = 5; i < n; i += 11) czk_g1_affine_neg(&P[i], &P[i - 5]);
  for (size_t i = 2; i < n; i += 13) memset(&P[i], 0, sizeof P[i]);
}

static void naive_g1(czk_g1 *out, const czk_g1_affine *P, const czk_fr *k, size_t n) {
  czk_g1_set_infinity(out);
  for (size_t i = 0; i < n; i++) {
    czk_g1 t;
    czk_g1_from_affine(&t, &P[i]);
    czk_g1_mul_vartime(&t, &t, &k[i]);
    czk_g1_add(out, out, &t);
  }
}

static void test_g1(size_t n, czk_pool *pool, bool wide) {
  czk_g1_affine *P = calloc(n + 1, sizeof *P);
  czk_fr *k = calloc(n + 1, sizeof *k), *raw = calloc(n + 1, sizeof *raw);
  rand_g1_bases(P, n);
  rand_scalars(k, n);
  /* equal scalars on the repeated / opposite bases */
  for (size_t i = 3; i < n; i += 7) k[i] = k[i - 3];
  for (size_t i = 5; i < n; i += 11) k[i] = k[i - 5];
  czk_g1 ref, got;
  naive_g1(&ref, P, k, n);

  CHECK(czk_msm_g1(&got, P, k, n, 0, NULL, NULL, pool) == CZK_OK);
  CHECK_MSG(czk_g1_eq(&got, &ref), "G1 n=%zu threads=%u", n, czk_pool_threads(pool));

  /* raw scalars; every third one shifted by +r (still < 2^256), same result */
  for (size_t i = 0; i < n; i++) {
    czk_fr_to_raw(raw[i].l, &k[i]);
    if (i % 3 == 0) {
      unsigned __int128 c = 0;
      uint64_t t[4];
      for (int l = 0; l < 4; l++) {
        c += (unsigned __int128)raw[i].l[l] + czk_fr_modulus[l];
        t[l] = (uint64_t)c;
        c >>= 64;
      }
      if (!c) memcpy(raw[i].l, t, sizeof t);
    }
  }
  CHECK(czk_msm_g1(&got, P, raw, n, CZK_MSM_SCALARS_RAW, NULL, NULL, pool) == CZK_OK);
  CHECK_MSG(czk_g1_eq(&got, &ref), "G1 raw n=%zu", n);

  /* forced window sizes and splits with caller scratch */
  static const unsigned windows[] = {2, 3, 4, 5, 8, 11, 16};
  for (size_t wi = 0; wi < CZK_ARRAY_LEN(windows); wi++) {
    unsigned c = windows[wi];
    if ((c == 16 && !wide) || (n > 100 && (c == 3 || c == 5))) continue;
    czk_msm_plan plan;
    CHECK(czk_msm_plan_init_ex(&plan, CZK_MSM_G1, n, 3, c, 1 + c % 3) == CZK_OK);
    CHECK(plan.window_bits == c && plan.splits == 1 + c % 3);
    void *scratch = malloc(plan.scratch_bytes);
    CHECK(czk_msm_g1(&got, P, k, n, 0, &plan, scratch, pool) == CZK_OK);
    CHECK_MSG(czk_g1_eq(&got, &ref), "G1 n=%zu c=%u", n, c);
    free(scratch);
  }
  free(P);
  free(k);
  free(raw);
}

static void test_g1_density(size_t n_scalars, czk_pool *pool) {
  size_t words = (n_scalars + 63) / 64 + 1;
  uint64_t *dens = calloc(words, sizeof *dens);
  for (size_t w = 0; w < words; w++) dens[w] = czk_test_rng_next(&g_rng) & czk_test_rng_next(&g_rng);
  dens[0] |= 1; /* at least one, and bits past n_scalars are set garbage that must be ignored */
  size_t m = czk_msm_density_count(dens, n_scalars);
  czk_fr *k = malloc(n_scalars * sizeof *k), *ksel = malloc((m + 1) * sizeof *ksel);
  czk_g1_affine *P = malloc((m + 1) * sizeof *P);
  rand_scalars(k, n_scalars);
  rand_g1_bases(P, m);
  size_t j = 0;
  for (size_t i = 0; i < n_scalars; i++)
    if (dens[i >> 6] >> (i & 63) & 1) ksel[j++] = k[i];
  CHECK_EQ_INT(j, m);
  czk_g1 ref, got;
  naive_g1(&ref, P, ksel, m);
  size_t used = 0;
  CHECK(czk_msm_g1_density(&got, P, k, n_scalars, dens, 0, NULL, NULL, pool, &used) == CZK_OK);
  CHECK_EQ_INT(used, m);
  CHECK_MSG(czk_g1_eq(&got, &ref), "G1 density n=%zu m=%zu", n_scalars, m);
  free(dens);
  free(k);
  free(ksel);
  free(P);
}

/* ---------------------------------------------------------------- G2 */
static void rand_g2_bases(czk_g2_affine *P, size_t n) {
  if (!n) return;
  czk_g2 g, q, acc;
  czk_fr k;
  czk_g2_generator(&g);
  rand_fr(&k);
  czk_g2_mul_vartime(&acc, &g, &k);
  rand_fr(&k);
  czk_g2_mul_vartime(&q, &g, &k);
  czk_g2 *J = malloc(n * sizeof *J);
  for (size_t i = 0; i < n; i++) {
    J[i] = acc;
    czk_g2_add(&acc, &acc, &q);
  }
  czk_g2_batch_to_affine(P, J, n);
  free(J);
  for (size_t i = 3; i < n; i += 7) P[i] = P[i - 3];
  for (size_t i = 5; i < n; i += 11) czk_g2_affine_neg(&P[i], &P[i - 5]);
  for (size_t i = 2; i < n; i += 13) memset(&P[i], 0, sizeof P[i]);
}

static void naive_g2(czk_g2 *out, const czk_g2_affine *P, const czk_fr *k, size_t n) {
  czk_g2_set_infinity(out);
  for (size_t i = 0; i < n; i++) {
    czk_g2 t;
    czk_g2_from_affine(&t, &P[i]);
    czk_g2_mul_vartime(&t, &t, &k[i]);
    czk_g2_add(out, out, &t);
  }
}

static void test_g2(size_t n, czk_pool *pool, bool density) {
  czk_g2_affine *P = calloc(n + 1, sizeof *P);
  czk_fr *k = calloc(n + 1, sizeof *k);
  rand_g2_bases(P, n);
  rand_scalars(k, n);
  for (size_t i = 3; i < n; i += 7) k[i] = k[i - 3];
  for (size_t i = 5; i < n; i += 11) k[i] = k[i - 5];
  czk_g2 ref, got;
  naive_g2(&ref, P, k, n);
  CHECK(czk_msm_g2(&got, P, k, n, 0, NULL, NULL, pool) == CZK_OK);
  CHECK_MSG(czk_g2_eq(&got, &ref), "G2 n=%zu threads=%u", n, czk_pool_threads(pool));
  czk_msm_plan plan;
  CHECK(czk_msm_plan_init_ex(&plan, CZK_MSM_G2, n, 2, 4, 2) == CZK_OK);
  CHECK(czk_msm_g2(&got, P, k, n, 0, &plan, NULL, pool) == CZK_OK);
  CHECK_MSG(czk_g2_eq(&got, &ref), "G2 n=%zu c=4", n);
  if (density && n) {
    /* every scalar index i selected when i % 3 != 1; bases are the selected ones */
    size_t ns = n + n / 2 + 2, m = 0;
    uint64_t *dens = calloc((ns + 63) / 64, sizeof *dens);
    czk_fr *kf = calloc(ns, sizeof *kf);
    for (size_t i = 0; i < ns && m < n; i++) {
      if (i % 3 == 1) rand_fr(&kf[i]);
      else {
        dens[i >> 6] |= (uint64_t)1 << (i & 63);
        kf[i] = k[m++];
      }
    }
    size_t used = 0;
    CHECK(czk_msm_g2_density(&got, P, kf, ns, dens, 0, NULL, NULL, pool, &used) == CZK_OK);
    CHECK_EQ_INT(used, m);
    czk_g2 ref2;
    naive_g2(&ref2, P, k, m);
    CHECK_MSG(czk_g2_eq(&got, &ref2), "G2 density n=%zu", n);
    free(dens);
    free(kf);
  }
  free(P);
  free(k);
}

static void test_api(void) {
  czk_msm_plan plan;
  czk_g1 out;
  czk_g1_affine P[4];
  czk_fr k[4];
  rand_g1_bases(P, 4);
  rand_scalars(k, 4);
  CHECK(czk_msm_plan_init(NULL, CZK_MSM_G1, 4, 1) == CZK_ERR_INVALID_ARG);
  CHECK(czk_msm_plan_init(&plan, (czk_msm_group)7, 4, 1) == CZK_ERR_INVALID_ARG);
  CHECK(czk_msm_plan_init_ex(&plan, CZK_MSM_G1, 4, 1, 1, 0) == CZK_ERR_INVALID_ARG);
  CHECK(czk_msm_plan_init_ex(&plan, CZK_MSM_G1, 4, 1, 21, 0) == CZK_ERR_INVALID_ARG);
  CHECK(czk_msm_plan_init(&plan, CZK_MSM_G1, 3, 1) == CZK_OK && plan.scratch_bytes > 0);
  CHECK(czk_msm_g1(&out, P, k, 4, 0, &plan, NULL, NULL) == CZK_ERR_SIZE_MISMATCH);
  CHECK(czk_msm_g2(NULL, NULL, NULL, 0, 0, NULL, NULL, NULL) == CZK_ERR_INVALID_ARG);
  czk_g2 out2;
  CHECK(czk_msm_g2(&out2, (const czk_g2_affine *)P, k, 3, 0, &plan, NULL, NULL) == CZK_ERR_SIZE_MISMATCH);
  CHECK(czk_msm_g1(&out, NULL, k, 4, 0, NULL, NULL, NULL) == CZK_ERR_INVALID_ARG);
  /* a tampered plan (scratch too small for its window) is rejected, not trusted */
  CHECK(czk_msm_plan_init(&plan, CZK_MSM_G1, 4, 1) == CZK_OK);
  plan.window_bits = 16;
  CHECK(czk_msm_g1(&out, P, k, 4, 0, &plan, NULL, NULL) == CZK_ERR_INVALID_ARG);
  /* n = 0 gives infinity */
  CHECK(czk_msm_g1(&out, NULL, NULL, 0, 0, NULL, NULL, NULL) == CZK_OK && czk_g1_is_infinity(&out));
  uint64_t d0 = 0;
  CHECK(czk_msm_g1_density(&out, NULL, k, 4, &d0, 0, NULL, NULL, NULL, NULL) == CZK_OK && czk_g1_is_infinity(&out));
  CHECK_EQ_INT(czk_msm_density_count(&d0, 4), 0);
  /* a large plan sizes scratch and picks a wide window */
  CHECK(czk_msm_plan_init(&plan, CZK_MSM_G1, (size_t)1 << 20, 16) == CZK_OK);
  CHECK(plan.window_bits >= 12 && plan.windows * plan.window_bits >= 256);
  CHECK(plan.scratch_bytes >= ((size_t)1 << 20) * 40);
}

/* Witness-like vectors (from 4096 points on, the 0/1-aware front end): zeros skipped, ones summed without buckets,
 * the rest through Pippenger; and a mostly-random vector (the plain MSM after the count). G1 dense and density, G2. */
static void witness_scalars(czk_fr *k, size_t n, unsigned other_pct) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = czk_test_rng_next(&g_rng) % 100;
    if (r < other_pct) rand_fr(&k[i]);
    else if (r % 2) czk_fr_set_one(&k[i]);
    else czk_fr_set_zero(&k[i]);
  }
}

static void rand_g2_bases(czk_g2_affine *P, size_t n);
static void naive_g2(czk_g2 *out, const czk_g2_affine *P, const czk_fr *k, size_t n);
static void test_witness(czk_pool *pool) {
  const size_t n = 6000, ns = 9000;
  czk_g1_affine *P = calloc(ns, sizeof *P);
  czk_fr *k = calloc(ns, sizeof *k), *ksel = calloc(ns, sizeof *ksel);
  rand_g1_bases(P, ns);
  czk_g1 ref, got;
  static const unsigned pct[] = {10, 0, 100, 60};
  for (size_t t = 0; t < CZK_ARRAY_LEN(pct); t++) {
    witness_scalars(k, n, pct[t]);
    naive_g1(&ref, P, k, n);
    CHECK(czk_msm_g1(&got, P, k, n, 0, NULL, NULL, pool) == CZK_OK);
    CHECK_MSG(czk_g1_eq(&got, &ref), "G1 witness-like n=%zu other %u%%", n, pct[t]);
  }
  /* density: every other scalar selected */
  uint64_t dens[(9000 + 63) / 64];
  for (size_t w = 0; w < CZK_ARRAY_LEN(dens); w++) dens[w] = 0x5555555555555555ULL ^ (czk_test_rng_next(&g_rng) & 0x0101);
  witness_scalars(k, ns, 10);
  size_t m = czk_msm_density_count(dens, ns), j = 0, used = 0;
  for (size_t i = 0; i < ns; i++)
    if (dens[i >> 6] >> (i & 63) & 1) ksel[j++] = k[i];
  naive_g1(&ref, P, ksel, m);
  CHECK(czk_msm_g1_density(&got, P, k, ns, dens, 0, NULL, NULL, pool, &used) == CZK_OK && used == m);
  CHECK_MSG(czk_g1_eq(&got, &ref), "G1 witness-like density m=%zu", m);
  free(P);
  czk_g2_affine *Q = calloc(5000, sizeof *Q);
  rand_g2_bases(Q, 5000);
  witness_scalars(k, 5000, 10);
  czk_g2 r2, g2;
  naive_g2(&r2, Q, k, 5000);
  CHECK(czk_msm_g2(&g2, Q, k, 5000, 0, NULL, NULL, pool) == CZK_OK);
  CHECK_MSG(czk_g2_eq(&g2, &r2), "G2 witness-like");
  free(Q), free(k), free(ksel);
}

int main(void) {
  czk_test_rng_seed(&g_rng, 0x4d534d);
  czk_pool *pools[3] = {NULL, NULL, NULL};
  for (unsigned t = 0; t < 3; t++) CHECK(czk_pool_new(&pools[t], t + 1) == CZK_OK);
  const size_t sizes[] = {0, 1, 2, 3, 17, 100, 1000};
  for (size_t i = 0; i < CZK_ARRAY_LEN(sizes); i++)
    for (unsigned t = 0; t < 3; t++)
      if (sizes[i] < 1000 || t != 1) test_g1(sizes[i], pools[t], sizes[i] == 17 && t == 2);
  test_g1_density(1, pools[0]);
  test_g1_density(200, pools[2]);
  test_g1_density(777, pools[1]);
  const size_t sizes2[] = {0, 1, 2, 3, 17, 150};
  for (size_t i = 0; i < CZK_ARRAY_LEN(sizes2); i++) test_g2(sizes2[i], pools[i % 3], i >= 3);
  test_api();
  test_witness(pools[2]);
  test_witness(pools[0]);
  for (unsigned t = 0; t < 3; t++) czk_pool_free(pools[t]);
  return czk_test_done("test_msm");
}
