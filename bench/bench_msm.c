/* bench_msm.c: `czk bench msm`: milliseconds per CPU Pippenger MSM (G1 and/or G2) for n = 2^lo .. 2^hi, with 1 thread
 * and with all threads of the pool. Bases are distinct random points (P0 + i*Q, batch-normalized), scalars uniform
 * random in Montgomery form. Each row reports wall ms (CLOCK_MONOTONIC) and process CPU ms (CLOCK_PROCESS_CPUTIME_ID:
 * on a shared machine the 1-thread CPU time is the robust number), the chosen window and splits. Never asserts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "bench/bench.h"
#include "core/units.h"
#include "czk/msm.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: czk bench msm [--lo LOG] [--hi LOG] [--group g1|g2|both] [--threads N] [--reps R] [--window C]\n"
          "                     [--backend cpu|cuda[:N]]\n"
          "  ms per CPU Pippenger MSM of 2^LOG points, LOG = lo..hi (default 10..16), with 1 thread and with N\n"
          "  threads (default: the default pool, $CZK_THREADS or all CPUs). --window forces the window size.\n"
          "  --backend cuda[:N]: the GPU MSM instead (czk bench gpu --only msm|g2: --lo/--hi/--reps/--group carry\n"
          "  over; results checked against the host; default sizes 2^16..2^26).\n");
}

int czk_bench_msm(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  int gpu_rc = czk__bench_backend_dispatch(&argc, argv, "msm");
  if (gpu_rc >= 0) return gpu_rc;
  unsigned lo = 10, hi = 16, threads = 0, reps = 1, window = 0;
  bool g1 = true, g2 = true;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      fprintf(stderr, "czk bench msm: %s needs a value\n", a);
      return 2;
    }
    if (strcmp(a, "--lo") == 0) lo = (unsigned)atoi(v);
    else if (strcmp(a, "--hi") == 0) hi = (unsigned)atoi(v);
    else if (strcmp(a, "--threads") == 0) threads = (unsigned)atoi(v);
    else if (strcmp(a, "--reps") == 0) reps = (unsigned)atoi(v);
    else if (strcmp(a, "--window") == 0) window = (unsigned)atoi(v);
    else if (strcmp(a, "--group") == 0) {
      g1 = strcmp(v, "g1") == 0 || strcmp(v, "both") == 0;
      g2 = strcmp(v, "g2") == 0 || strcmp(v, "both") == 0;
      if (!g1 && !g2) {
        fprintf(stderr, "czk bench msm: --group must be g1, g2 or both\n");
        return 2;
      }
    } else {
      fprintf(stderr, "czk bench msm: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
    i++;
  }
  if (lo > hi || hi > 26 || reps == 0 || reps > 100 || (window && (window < 2 || window > 20))) {
    fprintf(stderr, "czk bench msm: need lo <= hi <= 26, 1 <= reps <= 100, window 2..20\n");
    return 2;
  }
  czk_pool *p1 = NULL, *pn = NULL;
  if (czk_pool_new(&p1, 1) != CZK_OK || czk_pool_new(&pn, threads) != CZK_OK) {
    fprintf(stderr, "czk bench msm: cannot create thread pools\n");
    czk_pool_free(p1);
    return 1;
  }
  size_t nmax = (size_t)1 << hi;
  uint64_t seed = 0x6d736d;
  czk_fr *k = malloc(nmax * sizeof *k);
  czk_g1_affine *P1 = g1 ? malloc(nmax * sizeof *P1) : NULL;
  czk_g2_affine *P2 = g2 ? malloc(nmax * sizeof *P2) : NULL;
  int rc = 0;
  if (!k || (g1 && !P1) || (g2 && !P2)) {
    fprintf(stderr, "czk bench msm: out of memory for 2^%u points\n", hi);
    rc = 1;
    goto done;
  }
  czk__bench_rand_fr(k, nmax, &seed);
  if ((g1 && czk__bench_points_g1(P1, nmax, &seed) != CZK_OK) || (g2 && czk__bench_points_g2(P2, nmax, &seed) != CZK_OK)) {
    fprintf(stderr, "czk bench msm: cannot generate bases\n");
    rc = 1;
    goto done;
  }
  printf("%-5s %-6s %9s %7s %6s %6s %12s %12s\n", "group", "log_n", "n", "threads", "window", "splits", "wall_ms",
         "cpu_ms");
  for (int grp = 1; grp <= 2; grp++) {
    if ((grp == 1 && !g1) || (grp == 2 && !g2)) continue;
    for (unsigned lg = lo; lg <= hi; lg++) {
      size_t n = (size_t)1 << lg;
      czk_pool *pools[2] = {p1, pn};
      for (int pi = 0; pi < 2; pi++) {
        unsigned t = czk_pool_threads(pools[pi]);
        if (pi == 1 && t == 1) continue;
        czk_msm_plan plan;
        czk_msm_group group = grp == 1 ? CZK_MSM_G1 : CZK_MSM_G2;
        czk_status st = czk_msm_plan_init_ex(&plan, group, n, t, window, 0);
        void *scratch = st == CZK_OK ? malloc(plan.scratch_bytes) : NULL;
        if (!scratch) {
          fprintf(stderr, "czk bench msm: cannot plan/allocate scratch for 2^%u\n", lg);
          rc = 1;
          goto done;
        }
        double w0 = czk__bench_now_ms(CLOCK_MONOTONIC), c0 = czk__bench_now_ms(CLOCK_PROCESS_CPUTIME_ID);
        for (unsigned r = 0; r < reps && st == CZK_OK; r++) {
          if (grp == 1) {
            czk_g1 out;
            st = czk_msm_g1(&out, P1, k, n, 0, &plan, scratch, pools[pi]);
          } else {
            czk_g2 out;
            st = czk_msm_g2(&out, P2, k, n, 0, &plan, scratch, pools[pi]);
          }
        }
        double w1 = czk__bench_now_ms(CLOCK_MONOTONIC), c1 = czk__bench_now_ms(CLOCK_PROCESS_CPUTIME_ID);
        free(scratch);
        if (st != CZK_OK) {
          fprintf(stderr, "czk bench msm: msm failed: %s\n", czk_status_str(st));
          rc = 1;
          goto done;
        }
        printf("%-5s %-6u %9zu %7u %6u %6u %12.2f %12.2f\n", grp == 1 ? "G1" : "G2", lg, n, t, plan.window_bits,
               plan.splits, (w1 - w0) / reps, (c1 - c0) / reps);
        fflush(stdout);
      }
    }
  }
done:
  free(k);
  free(P1);
  free(P2);
  czk_pool_free(p1);
  czk_pool_free(pn);
  return rc;
}
