/* bench_ntt.c: `czk bench ntt`: milliseconds per CPU NTT (forward, inverse, coset forward) and per H computation
 * (bellperson and snarkjs variants: 7 and 6 transforms of size n) over Fr for n = 2^lo .. 2^hi, with 1 thread and with
 * all threads of the pool. Inputs are random; wall ms (CLOCK_MONOTONIC) and process CPU ms
 * (CLOCK_PROCESS_CPUTIME_ID). Never asserts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "bench/bench.h"
#include "core/units.h"
#include "czk/ntt.h"

static void usage(FILE *f) {
  fprintf(f, "usage: czk bench ntt [--lo LOG] [--hi LOG] [--threads N] [--reps R] [--backend cpu|cuda[:N]]\n"
             "                     [--compact 0|1]\n"
             "  ms per NTT / inverse / coset NTT / H (bellperson, snarkjs) over Fr of size 2^LOG, LOG = lo..hi\n"
             "  (default 10..18), with 1 thread and N threads (default: the default pool).\n"
             "  --backend cuda[:N]: the GPU NTT instead (czk bench gpu --only ntt: --lo/--hi/--reps carry over;\n"
             "  results checked against the host; default sizes 2^16..2^27). --compact 1 (cuda only): also a\n"
             "  compact plan (czk_cuda_ntt_new_ex), all four directions timed beside the full plan's.\n");
}

int czk_bench_ntt(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  int gpu_rc = czk__bench_backend_dispatch(&argc, argv, "ntt");
  if (gpu_rc >= 0) return gpu_rc;
  unsigned lo = 10, hi = 18, threads = 0, reps = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      fprintf(stderr, "czk bench ntt: %s needs a value\n", a);
      return 2;
    }
    if (strcmp(a, "--lo") == 0) lo = (unsigned)atoi(v);
    else if (strcmp(a, "--hi") == 0) hi = (unsigned)atoi(v);
    else if (strcmp(a, "--threads") == 0) threads = (unsigned)atoi(v);
    else if (strcmp(a, "--reps") == 0) reps = (unsigned)atoi(v);
    else {
      fprintf(stderr, "czk bench ntt: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
    i++;
  }
  if (lo > hi || hi > 28 || reps == 0 || reps > 100) {
    fprintf(stderr, "czk bench ntt: need lo <= hi <= 28 and 1 <= reps <= 100\n");
    return 2;
  }
  czk_pool *p1 = NULL, *pn = NULL;
  if (czk_pool_new(&p1, 1) != CZK_OK || czk_pool_new(&pn, threads) != CZK_OK) {
    fprintf(stderr, "czk bench ntt: cannot create thread pools\n");
    czk_pool_free(p1);
    return 1;
  }
  size_t nmax = (size_t)1 << hi;
  uint64_t seed = 0x6e7474;
  czk_fr *a = malloc(nmax * sizeof *a), *b = malloc(nmax * sizeof *b), *c = malloc(nmax * sizeof *c);
  int rc = 0;
  if (!a || !b || !c) {
    fprintf(stderr, "czk bench ntt: out of memory for 2^%u\n", hi);
    rc = 1;
    goto done;
  }
  printf("%-6s %9s %7s %-14s %12s %12s\n", "log_n", "n", "threads", "op", "wall_ms", "cpu_ms");
  static const char *const ops[] = {"ntt", "intt", "coset_ntt", "h_bellperson", "h_snarkjs"};
  for (unsigned lg = lo; lg <= hi; lg++) {
    size_t n = (size_t)1 << lg;
    czk_ntt_domain *db = NULL, *ds = NULL;
    if (czk_ntt_domain_new(&db, lg, CZK_ROOTS_BELLMAN, pn) != CZK_OK ||
        czk_ntt_domain_new(&ds, lg, CZK_ROOTS_SNARKJS, pn) != CZK_OK) {
      fprintf(stderr, "czk bench ntt: cannot create the 2^%u domain\n", lg);
      czk_ntt_domain_free(db);
      rc = 1;
      goto done;
    }
    czk_fr g;
    czk_fr_coset_generator(&g);
    czk_pool *pools[2] = {p1, pn};
    for (int pi = 0; pi < 2; pi++) {
      unsigned t = czk_pool_threads(pools[pi]);
      if (pi == 1 && t == 1) continue;
      for (size_t op = 0; op < CZK_ARRAY_LEN(ops); op++) {
        double wsum = 0, csum = 0;
        for (unsigned r = 0; r < reps; r++) {
          czk__bench_rand_fr(a, n, &seed);
          if (op >= 3) {
            czk__bench_rand_fr(b, n, &seed);
            czk__bench_rand_fr(c, n, &seed);
          }
          double w0 = czk__bench_now_ms(CLOCK_MONOTONIC), c0 = czk__bench_now_ms(CLOCK_PROCESS_CPUTIME_ID);
          czk_status st = CZK_OK;
          switch (op) {
          case 0: st = czk_ntt_forward(db, a, pools[pi]); break;
          case 1: st = czk_ntt_inverse(db, a, pools[pi]); break;
          case 2: st = czk_ntt_coset_forward(db, a, &g, pools[pi]); break;
          case 3: st = czk_ntt_h(db, CZK_H_BELLPERSON, a, b, c, pools[pi]); break;
          default: st = czk_ntt_h(ds, CZK_H_SNARKJS, a, b, c, pools[pi]); break;
          }
          wsum += czk__bench_now_ms(CLOCK_MONOTONIC) - w0;
          csum += czk__bench_now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
          if (st != CZK_OK) {
            fprintf(stderr, "czk bench ntt: %s failed: %s\n", ops[op], czk_status_str(st));
            rc = 1;
          }
        }
        printf("%-6u %9zu %7u %-14s %12.2f %12.2f\n", lg, n, t, ops[op], wsum / reps, csum / reps);
        fflush(stdout);
      }
    }
    czk_ntt_domain_free(db);
    czk_ntt_domain_free(ds);
  }
done:
  free(a);
  free(b);
  free(c);
  czk_pool_free(p1);
  czk_pool_free(pn);
  return rc;
}
