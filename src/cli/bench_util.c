/* bench_util.c: the shared benchmark helpers (see bench_util.h for the contracts). Random points: two scalar
 * multiplications (vartime), then n - 1 Jacobian additions P[i] = P[i-1] + Q and one batch normalization (one
 * inversion + ~3n multiplications). */
#include "cli/bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double czk__bench_now_ns(clockid_t clk) {
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double czk__bench_now_ms(clockid_t clk) {
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double czk__bench_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t czk__bench_splitmix(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void czk__bench_rand_fr(czk_fr *v, size_t n, uint64_t *seed) {
  for (size_t i = 0; i < n; i++) {
    uint64_t w[8];
    for (int j = 0; j < 8; j++) w[j] = czk__bench_splitmix(seed);
    czk_fr_from_bytes_wide_le(&v[i], (const uint8_t *)w, sizeof w);
  }
}

/* Written once for G1 and G2. */
#define BENCH_POINTS(G)                                                                                               \
  czk_status czk__bench_points_##G(czk_##G##_affine *P, size_t n, uint64_t *seed) {                                  \
    czk_##G g, q, acc;                                                                                                \
    czk_fr k;                                                                                                         \
    czk_##G##_generator(&g);                                                                                          \
    czk__bench_rand_fr(&k, 1, seed);                                                                                  \
    czk_##G##_mul_vartime(&acc, &g, &k);                                                                              \
    czk__bench_rand_fr(&k, 1, seed);                                                                                  \
    czk_##G##_mul_vartime(&q, &g, &k);                                                                                \
    czk_##G *J = malloc((n ? n : 1) * sizeof *J);                                                                     \
    if (!J) return CZK_ERR_NOMEM;                                                                                     \
    for (size_t i = 0; i < n; i++) {                                                                                  \
      J[i] = acc;                                                                                                     \
      czk_##G##_add(&acc, &acc, &q);                                                                                  \
    }                                                                                                                 \
    czk_status st = czk_##G##_batch_to_affine(P, J, n);                                                               \
    free(J);                                                                                                          \
    return st;                                                                                                        \
  }
BENCH_POINTS(g1)
BENCH_POINTS(g2)

int czk__bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void czk__bench_calibrated(czk__bench_loop_fn fn, void *ctx, double ms, long *iters, double *cpu_ns, double *wall_ns) {
  long n = 1;
  double t;
  for (;;) { /* calibrate: double n until one run takes >= 10 ms of CPU time */
    double t0 = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID);
    fn(ctx, n);
    t = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    if (t >= 1e7 || n >= (1L << 40)) break;
    n *= 2;
  }
  long total = (long)((double)n * (ms * 1e6) / t);
  if (total < 1) total = 1;
  double w0 = czk__bench_now_ns(CLOCK_MONOTONIC), t0 = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID);
  fn(ctx, total);
  *cpu_ns = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
  *wall_ns = czk__bench_now_ns(CLOCK_MONOTONIC) - w0;
  *iters = total;
}

int czk__bench_parse_ms_only(int argc, char **argv, const char *name, double *ms, const char **only) {
  *ms = 200;
  *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc) {
      *ms = atof(argv[++i]);
      if (*ms <= 0) {
        fprintf(stderr, "czk bench %s: --ms must be positive\n", name);
        return 2;
      }
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      *only = argv[++i];
    } else {
      fprintf(stderr, "czk bench %s: unknown argument '%s' (--help)\n", name, argv[i]);
      return 2;
    }
  }
  return 0;
}
