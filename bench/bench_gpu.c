/* bench_gpu.c: `czk bench gpu`: builds inputs on the GPU, checks the CUDA MSM (G1, G2) and NTT against the host
 * reference, and prints a timing table (median of --reps runs, data resident on the device).
 *
 * Inputs: bases are base_i = A_{i mod na} + B_{i / na} (affine sums computed on the GPU), with A_j = (a0 + j da) G and
 * B_k = (b0 + k db) G built on the host, so every base is distinct and its discrete log is known. Scalars are uniform
 * random canonical integers (< r). Checks per MSM size:
 *   dlog:   result == (sum_i s_i (alpha_j(i) + beta_k(i))) G   (complete; sums of scalars per table entry on the host)
 *   sparse: 16 random non-zero scalars, the rest zero == sum s_i P_i computed point by point on the host
 *   cpu:    (sizes <= --cpu-max) the host Pippenger on the same bases and scalars
 *   linear: (largest size) MSM(s1) + MSM(s2) == MSM(s1 + s2)
 * NTT: (sizes <= 2^20) equal to the host radix-2 NTT; all sizes: inverse(forward(x)) == x and coset round trip;
 * (sizes <= 2^24) one output X_k checked by Horner evaluation at w^k. --ntt-compact 1: a compact plan
 * (czk_cuda_ntt_new_ex) timed beside the full one, all four directions, its outputs compared with the full plan's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "core/clock.h"
#include "core/units.h"

#ifndef CZK_HAVE_CUDA
int czk_bench_gpu(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    printf("usage: czk bench gpu [options]   (this build has no CUDA backend)\n");
    return 0;
  }
  fprintf(stderr, "czk bench gpu: CUDA not available (czk was built without the CUDA backend)\n");
  return 1;
}
#else
#include "czk/cuda.h"
#include "czk/curve.h"
#include "czk/field.h"
#include "czk/msm.h"
#include "czk/ntt.h"

static uint64_t g_rng = 0x1234567887654321ULL;
static uint64_t rnd(void) {
  uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
/* A uniform canonical scalar < r (rejection sampling over 255-bit values). */
static void rnd_scalar(uint64_t s[4]) {
  czk_fr t;
  do {
    for (int i = 0; i < 4; i++) s[i] = rnd();
    s[3] &= 0x7fffffffffffffffULL;
  } while (czk_fr_from_raw(&t, s) != CZK_OK);
}
/* r = a + b mod r on canonical scalars (the checks' reference arithmetic is the CPU field layer). */
static void raw_add_mod(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
  czk_fr x, y;
  if (czk_fr_from_raw(&x, a) != CZK_OK || czk_fr_from_raw(&y, b) != CZK_OK) abort(); /* inputs are < r */
  czk_fr_add(&x, &x, &y);
  czk_fr_to_raw(r, &x);
}
/* The CPU MSM on canonical scalars. */
static czk_status ref_msm(int g, void *out, const void *bases, const uint64_t *sc, size_t n) {
  czk_fr *k = malloc((n ? n : 1) * sizeof *k);
  if (!k) return CZK_ERR_NOMEM;
  czk_status st = CZK_OK;
  for (size_t i = 0; i < n && st == CZK_OK; i++) st = czk_fr_from_raw(&k[i], sc + 4 * i);
  if (st == CZK_OK)
    st = g == 1 ? czk_msm_g1(out, bases, k, n, 0, NULL, NULL, NULL) : czk_msm_g2(out, bases, k, n, 0, NULL, NULL, NULL);
  free(k);
  return st;
}
static double now_ms(void) { return czk__now_s() * 1e3; }
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
  unsigned msm_min, msm_max, g2_max, ntt_min, ntt_max, cpu_max;
  int reps;
  int ntt_compact; /* also time a compact NTT plan */
} opts;

#define FAIL(...)                                                                                                     \
  do {                                                                                                                \
    fprintf(stderr, "czk bench gpu: " __VA_ARGS__);                                                                   \
    fputc('\n', stderr);                                                                                              \
    return 1;                                                                                                         \
  } while (0)
#define TRY(x)                                                                                                        \
  do {                                                                                                                \
    czk_status s__ = (x);                                                                                             \
    if (s__ != CZK_OK) FAIL("%s: %s", #x, czk_status_str(s__));                                                       \
  } while (0)

/* ------------------------------------------------------------------------------------------------ MSM (both groups) */
/* Written once for G1 and G2 with a macro: G = g1/g2, AT/JT/XT types. */
#define BENCH_MSM(G, AT, JT, GNUM)                                                                                    \
  static int bench_msm_##G(const opts *o, unsigned maxlog, void *st) {                                               \
    size_t nmax = (size_t)1 << maxlog, na = 4096 < nmax ? 4096 : nmax, nb = (nmax + na - 1) / na;                     \
    /* host tables with known discrete logs */                                                                        \
    JT g, pa, pb, da, db;                                                                                             \
    uint64_t a0[4], b0[4], sa[4], sb[4];                                                                              \
    rnd_scalar(a0), rnd_scalar(b0), rnd_scalar(sa), rnd_scalar(sb);                                                   \
    czk_##G##_generator(&g);                                                                                      \
    czk_##G##_mul_raw_vartime(&pa, &g, a0, 4);                                                                         \
    czk_##G##_mul_raw_vartime(&pb, &g, b0, 4);                                                                         \
    czk_##G##_mul_raw_vartime(&da, &g, sa, 4);                                                                         \
    czk_##G##_mul_raw_vartime(&db, &g, sb, 4);                                                                         \
    JT *ja = malloc(na * sizeof(JT)), *jb = malloc(nb * sizeof(JT));                                                  \
    AT *ta = malloc(na * sizeof(AT)), *tb = malloc(nb * sizeof(AT));                                                  \
    czk_fr *la = malloc(na * sizeof(czk_fr)), *lb = malloc(nb * sizeof(czk_fr));                                      \
    if (!ja || !jb || !ta || !tb || !la || !lb) FAIL("out of host memory");                                           \
    czk_fr fa0, fb0, fda, fdb;                                                                                        \
    TRY(czk_fr_from_raw(&fa0, a0));                                                                                   \
    TRY(czk_fr_from_raw(&fb0, b0));                                                                                   \
    TRY(czk_fr_from_raw(&fda, sa));                                                                                   \
    TRY(czk_fr_from_raw(&fdb, sb));                                                                                   \
    for (size_t j = 0; j < na; j++) {                                                                                 \
      ja[j] = pa, la[j] = fa0;                                                                                        \
      czk_##G##_add(&pa, &pa, &da), czk_fr_add(&fa0, &fa0, &fda);                                             \
    }                                                                                                                 \
    for (size_t k = 0; k < nb; k++) {                                                                                 \
      jb[k] = pb, lb[k] = fb0;                                                                                        \
      czk_##G##_add(&pb, &pb, &db), czk_fr_add(&fb0, &fb0, &fdb);                                             \
    }                                                                                                                 \
    TRY(czk_##G##_batch_to_affine(ta, ja, na));                                                                        \
    TRY(czk_##G##_batch_to_affine(tb, jb, nb));                                                                        \
    void *d_bases = NULL, *d_sc = NULL, *d_sc2 = NULL;                                                                \
    TRY(czk_cuda_malloc(&d_bases, nmax * sizeof(AT)));                                                                \
    double t0 = now_ms();                                                                                             \
    TRY(czk_cuda_gen_bases(GNUM, d_bases, nmax, ta, na, tb, nb, st));                                                \
    TRY(czk_cuda_stream_sync(st));                                                                                    \
    printf("# %s: %zu bases generated on the GPU in %.0f ms\n", #G, nmax, now_ms() - t0);                             \
    /* scalars */                                                                                                     \
    uint64_t *sc = NULL, *sc2 = NULL;                                                                                 \
    TRY(czk_cuda_host_alloc((void **)&sc, nmax * 32));                                                                \
    TRY(czk_cuda_host_alloc((void **)&sc2, nmax * 32));                                                               \
    for (size_t i = 0; i < nmax; i++) rnd_scalar(sc + 4 * i);                                                         \
    TRY(czk_cuda_malloc(&d_sc, nmax * 32));                                                                           \
    TRY(czk_cuda_malloc(&d_sc2, nmax * 32));                                                                          \
    TRY(czk_cuda_memcpy_htod(d_sc, sc, nmax * 32, st));                                                               \
    TRY(czk_cuda_stream_sync(st));                                                                                    \
    int bad = 0;                                                                                                      \
    for (unsigned lg = o->msm_min; lg <= maxlog; lg += 2) {                                                           \
      size_t n = (size_t)1 << lg;                                                                                     \
      czk_cuda_msm *m = NULL;                                                                                         \
      TRY(czk_cuda_msm_##G##_new_device(&m, d_bases, n));                                                             \
      JT got, want, t;                                                                                                \
      TRY(czk_cuda_msm_##G##_run(m, &got, d_sc, n, CZK_CUDA_SCALARS_DEVICE, st)); /* warm-up, scratch */              \
      TRY(czk_cuda_stream_sync(st));                                                                                  \
      double tm[64];                                                                                                  \
      int reps = o->reps < 64 ? o->reps : 64;                                                                         \
      for (int r = 0; r < reps; r++) {                                                                                \
        double s0 = now_ms();                                                                                         \
        TRY(czk_cuda_msm_##G##_run(m, &got, d_sc, n, CZK_CUDA_SCALARS_DEVICE, st));                                   \
        TRY(czk_cuda_stream_sync(st));                                                                                \
        tm[r] = now_ms() - s0;                                                                                        \
      }                                                                                                               \
      double s0 = now_ms();                                                                                           \
      JT got_h;                                                                                                       \
      TRY(czk_cuda_msm_##G##_run(m, &got_h, sc, n, 0, st)); /* scalars from pinned host memory */                     \
      TRY(czk_cuda_stream_sync(st));                                                                                  \
      double t_host = now_ms() - s0;                                                                                  \
      /* dlog check */                                                                                                \
      double c0 = now_ms();                                                                                           \
      uint64_t(*ssa)[4] = calloc(na, 32), (*ssb)[4] = calloc(nb, 32);                                                 \
      if (!ssa || !ssb) FAIL("out of host memory");                                                                   \
      for (size_t i = 0; i < n; i++) {                                                                                \
        raw_add_mod(ssa[i % na], ssa[i % na], sc + 4 * i);                                                     \
        raw_add_mod(ssb[i / na], ssb[i / na], sc + 4 * i);                                                     \
      }                                                                                                               \
      czk_fr e, x, y;                                                                                                 \
      memset(&e, 0, sizeof e);                                                                                        \
      for (size_t j = 0; j < na && j < n; j++) {                                                                      \
        TRY(czk_fr_from_raw(&x, ssa[j]));                                                                             \
        czk_fr_mul(&y, &x, &la[j]);                                                                               \
        czk_fr_add(&e, &e, &y);                                                                                   \
      }                                                                                                               \
      for (size_t k = 0; k < nb; k++) {                                                                               \
        TRY(czk_fr_from_raw(&x, ssb[k]));                                                                             \
        czk_fr_mul(&y, &x, &lb[k]);                                                                               \
        czk_fr_add(&e, &e, &y);                                                                                   \
      }                                                                                                               \
      free(ssa), free(ssb);                                                                                           \
      uint64_t er[4];                                                                                                 \
      czk_fr_to_raw(er, &e);                                                                                      \
      czk_##G##_mul_raw_vartime(&want, &g, er, 4);                                                                     \
      bool ok_dlog = czk_##G##_eq(&got, &want) && czk_##G##_eq(&got_h, &want);                                \
      /* sparse check */                                                                                              \
      memset(sc2, 0, n * 32);                                                                                         \
      JT sp;                                                                                                          \
      memset(&sp, 0, sizeof sp);                                                                                      \
      for (int q = 0; q < 16; q++) {                                                                                  \
        size_t i = rnd() % n;                                                                                         \
        if (sc2[4 * i] | sc2[4 * i + 1] | sc2[4 * i + 2] | sc2[4 * i + 3]) continue;                                  \
        rnd_scalar(sc2 + 4 * i);                                                                                      \
        AT b;                                                                                                         \
        TRY(czk_cuda_memcpy_dtoh(&b, (const AT *)d_bases + i, sizeof b, st));                                         \
        TRY(czk_cuda_stream_sync(st));                                                                                \
        czk_##G##_from_affine(&t, &b);                                                                            \
        czk_##G##_mul_raw_vartime(&t, &t, sc2 + 4 * i, 4);                                                             \
        czk_##G##_add(&sp, &sp, &t);                                                                              \
      }                                                                                                               \
      JT got_sp;                                                                                                      \
      TRY(czk_cuda_msm_##G##_run(m, &got_sp, sc2, n, 0, st));                                                         \
      TRY(czk_cuda_stream_sync(st));                                                                                  \
      bool ok_sparse = czk_##G##_eq(&got_sp, &sp);                                                                \
      const char *cpu = "-", *lin = "-";                                                                              \
      if (lg <= o->cpu_max) {                                                                                         \
        AT *hb = malloc(n * sizeof(AT));                                                                              \
        if (!hb) FAIL("out of host memory");                                                                          \
        TRY(czk_cuda_memcpy_dtoh(hb, d_bases, n * sizeof(AT), st));                                                   \
        TRY(czk_cuda_stream_sync(st));                                                                                \
        TRY(ref_msm(GNUM, &want, hb, sc, n));                                                                          \
        cpu = czk_##G##_eq(&got, &want) ? "yes" : "NO";                                                           \
        free(hb);                                                                                                     \
      }                                                                                                               \
      if (lg + 2 > maxlog) { /* linearity at the largest size */                                                      \
        for (size_t i = 0; i < n; i++) rnd_scalar(sc2 + 4 * i);                                                       \
        JT r1, r2;                                                                                                    \
        TRY(czk_cuda_msm_##G##_run(m, &r1, sc2, n, 0, st));                                                           \
        TRY(czk_cuda_stream_sync(st));                                                                                \
        for (size_t i = 0; i < n; i++) raw_add_mod(sc2 + 4 * i, sc2 + 4 * i, sc + 4 * i);                      \
        TRY(czk_cuda_msm_##G##_run(m, &r2, sc2, n, 0, st));                                                           \
        TRY(czk_cuda_stream_sync(st));                                                                                \
        czk_##G##_add(&r1, &r1, &got);                                                                            \
        lin = czk_##G##_eq(&r1, &r2) ? "yes" : "NO";                                                              \
      }                                                                                                               \
      bool ok = ok_dlog && ok_sparse && cpu[0] != 'N' && lin[0] != 'N';                                               \
      bad |= !ok;                                                                                                     \
      double med = median(tm, reps);                                                                                  \
      printf("msm %s  2^%-2u  c=%-2u  median %9.2f ms  min %9.2f ms  (host scalars %9.2f ms)  correct=%s "            \
             "[dlog=%s sparse=%s cpu=%s linear=%s]  check %.1f s\n",                                                  \
             #G, lg, czk_cuda_msm_window_bits(n), med, tm[0], t_host, ok ? "yes" : "NO", ok_dlog ? "yes" : "NO",       \
             ok_sparse ? "yes" : "NO", cpu, lin, (now_ms() - c0) / 1e3);                                              \
      fflush(stdout);                                                                                                 \
      czk_cuda_msm_free(m);                                                                                           \
    }                                                                                                                 \
    czk_cuda_free(d_bases), czk_cuda_free(d_sc), czk_cuda_free(d_sc2);                                                \
    czk_cuda_host_free(sc), czk_cuda_host_free(sc2);                                                                  \
    free(ja), free(jb), free(ta), free(tb), free(la), free(lb);                                                       \
    return bad;                                                                                                       \
  }
BENCH_MSM(g1, czk_g1_affine, czk_g1, 1)
BENCH_MSM(g2, czk_g2_affine, czk_g2, 2)

/* ------------------------------------------------------------------------------------------------ NTT */
/* Median ms of each direction (forward, inverse, coset forward, coset inverse) over reps runs of all four in turn
 * (the data returns to x after each round). */
static int ntt_times(czk_cuda_ntt *p, void *d, unsigned lg, int reps, void *st, double med[4]) {
  double t[4][32];
  for (int r = 0; r < reps; r++)
    for (int dir = 0; dir < 4; dir++) {
      double s0 = now_ms();
      TRY(czk_cuda_ntt_run(p, (czk_fr *)d, lg, (czk_cuda_ntt_dir)dir, st));
      TRY(czk_cuda_stream_sync(st));
      t[dir][r] = now_ms() - s0;
    }
  for (int dir = 0; dir < 4; dir++) med[dir] = median(t[dir], reps);
  return 0;
}

static int bench_ntt(const opts *o, void *st) {
  unsigned maxlog = o->ntt_max;
  size_t nmax = (size_t)1 << maxlog;
  czk_cuda_ntt *p = NULL, *pc = NULL;
  double t0 = now_ms();
  TRY(czk_cuda_ntt_new(&p, maxlog, CZK_ROOTS_BELLMAN, NULL, st));
  printf("# ntt plan 2^%u built in %.0f ms (%.1f MiB of tables)\n", maxlog, now_ms() - t0,
         czk_cuda_ntt_bytes(p) / 1048576.0);
  if (o->ntt_compact) {
    t0 = now_ms();
    TRY(czk_cuda_ntt_new_ex(&pc, maxlog, CZK_ROOTS_BELLMAN, NULL, 1, st));
    printf("# compact ntt plan 2^%u built in %.0f ms (%.1f MiB of tables)\n", maxlog, now_ms() - t0,
           czk_cuda_ntt_bytes(pc) / 1048576.0);
  }
  czk_fr *h = NULL, *h2 = NULL, *h3 = NULL;
  TRY(czk_cuda_host_alloc((void **)&h, nmax * sizeof(czk_fr)));
  TRY(czk_cuda_host_alloc((void **)&h2, nmax * sizeof(czk_fr)));
  if (pc) TRY(czk_cuda_host_alloc((void **)&h3, nmax * sizeof(czk_fr)));
  void *d = NULL;
  TRY(czk_cuda_malloc(&d, nmax * sizeof(czk_fr)));
  int bad = 0;
  for (unsigned lg = o->ntt_min; lg <= maxlog; lg++) {
    size_t n = (size_t)1 << lg;
    if (lg != maxlog && lg % 2) continue;
    /* any value < r is a valid Montgomery representative: uniform random elements without conversions */
    for (size_t i = 0; i < n; i++) rnd_scalar(h[i].l);
    TRY(czk_cuda_memcpy_htod(d, h, n * sizeof(czk_fr), st));
    TRY(czk_cuda_ntt_run(p, (czk_fr *)d, lg, CZK_CUDA_NTT_FORWARD, st)); /* warm-up */
    TRY(czk_cuda_ntt_run(p, (czk_fr *)d, lg, CZK_CUDA_NTT_INVERSE, st));
    TRY(czk_cuda_stream_sync(st));
    int reps = o->reps < 32 ? o->reps : 32;
    double mt[4], mc[4] = {0, 0, 0, 0};
    if (ntt_times(p, d, lg, reps, st, mt)) return 1;
    double c0 = now_ms();
    /* round trips: data must be x again */
    TRY(czk_cuda_memcpy_dtoh(h2, d, n * sizeof(czk_fr), st));
    TRY(czk_cuda_stream_sync(st));
    bool ok_rt = memcmp(h, h2, n * sizeof(czk_fr)) == 0;
    /* forward result */
    TRY(czk_cuda_ntt_run(p, (czk_fr *)d, lg, CZK_CUDA_NTT_FORWARD, st));
    TRY(czk_cuda_memcpy_dtoh(h2, d, n * sizeof(czk_fr), st));
    TRY(czk_cuda_stream_sync(st));
    czk_fr w;
    TRY(czk_fr_root_of_unity(&w, lg, CZK_ROOTS_BELLMAN));
    const char *full = "-", *spot = "-";
    if (lg <= 20) {
      czk_fr *ref = malloc(n * sizeof(czk_fr));
      if (!ref) FAIL("out of host memory");
      memcpy(ref, h, n * sizeof(czk_fr));
      czk_ntt_domain *dom = NULL;
      TRY(czk_ntt_domain_new_omega(&dom, lg, &w, NULL));
      czk_status nst = czk_ntt_forward(dom, ref, NULL);
      czk_ntt_domain_free(dom);
      TRY(nst);
      full = memcmp(ref, h2, n * sizeof(czk_fr)) == 0 ? "yes" : "NO";
      free(ref);
    } else if (lg <= 24) {
      size_t k = rnd() % n;
      uint64_t kk[4] = {k, 0, 0, 0};
      czk_fr wk, acc;
      czk_fr_pow_vartime(&wk, &w, kk, 1);
      memset(&acc, 0, sizeof acc);
      for (size_t i = n; i-- > 0;) { /* Horner: sum x_i wk^i */
        czk_fr_mul(&acc, &acc, &wk);
        czk_fr_add(&acc, &acc, &h[i]);
      }
      spot = memcmp(&acc, &h2[k], sizeof acc) == 0 ? "yes" : "NO";
    }
    bool ok = ok_rt && full[0] != 'N' && spot[0] != 'N';
    /* compact plan: the same data, timed the same way; its round trip and each direction's output against the full
     * plan's (bit-identical) */
    bool ok_c = true;
    if (pc) {
      TRY(czk_cuda_memcpy_htod(d, h, n * sizeof(czk_fr), st));
      TRY(czk_cuda_ntt_run(pc, (czk_fr *)d, lg, CZK_CUDA_NTT_FORWARD, st)); /* warm-up */
      TRY(czk_cuda_ntt_run(pc, (czk_fr *)d, lg, CZK_CUDA_NTT_INVERSE, st));
      TRY(czk_cuda_stream_sync(st));
      if (ntt_times(pc, d, lg, reps, st, mc)) return 1;
      TRY(czk_cuda_memcpy_dtoh(h3, d, n * sizeof(czk_fr), st));
      TRY(czk_cuda_stream_sync(st));
      ok_c = memcmp(h, h3, n * sizeof(czk_fr)) == 0;
      for (int dir = 0; dir < 4 && ok_c; dir++)
        for (int pl = 0; pl < 2; pl++) {
          TRY(czk_cuda_memcpy_htod(d, h, n * sizeof(czk_fr), st));
          TRY(czk_cuda_ntt_run(pl ? pc : p, (czk_fr *)d, lg, (czk_cuda_ntt_dir)dir, st));
          TRY(czk_cuda_memcpy_dtoh(pl ? h3 : h2, d, n * sizeof(czk_fr), st));
          TRY(czk_cuda_stream_sync(st));
          if (pl) ok_c = ok_c && memcmp(h2, h3, n * sizeof(czk_fr)) == 0;
        }
    }
    bad |= !ok || !ok_c;
    printf("ntt fr  2^%-2u  forward median %8.3f ms  inverse %8.3f ms  coset-fwd %8.3f ms  correct=%s "
           "[roundtrip=%s cpu=%s spot=%s]  check %.1f s\n",
           lg, mt[0], mt[1], mt[2], ok ? "yes" : "NO", ok_rt ? "yes" : "NO", full, spot, (now_ms() - c0) / 1e3);
    if (pc)
      printf("ntt fr  2^%-2u  full    fwd %8.3f  inv %8.3f  coset-fwd %8.3f  coset-inv %8.3f ms\n"
             "ntt fr  2^%-2u  compact fwd %8.3f  inv %8.3f  coset-fwd %8.3f  coset-inv %8.3f ms  "
             "(x%.3f %.3f %.3f %.3f)  identical=%s\n",
             lg, mt[0], mt[1], mt[2], mt[3], lg, mc[0], mc[1], mc[2], mc[3], mc[0] / mt[0], mc[1] / mt[1],
             mc[2] / mt[2], mc[3] / mt[3], ok_c ? "yes" : "NO");
    fflush(stdout);
  }
  czk_cuda_free(d);
  czk_cuda_host_free(h), czk_cuda_host_free(h2);
  if (h3) czk_cuda_host_free(h3);
  czk_cuda_ntt_free(p);
  czk_cuda_ntt_free(pc);
  return bad;
}

static unsigned arg_u(const char *s) { return (unsigned)strtoul(s, NULL, 10); }

int czk_bench_gpu(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    printf("usage: czk bench gpu [--msm-min L] [--msm-max L] [--g2-max L] [--ntt-min L] [--ntt-max L] [--cpu-max L]\n"
           "                     [--reps N] [--only mul|msm|g2|ntt] [--ntt-compact 0|1]\n"
           "  Times the CUDA MSM (G1, G2; sizes 2^msm-min .. 2^max step 4x) and Fr NTT (forward/inverse/coset) with\n"
           "  data resident on GPU 0 and checks every result against the host reference (see the file header).\n"
           "  --ntt-compact 1: also a compact NTT plan (tables of ~36 MiB), timed beside the full one.\n"
           "  Defaults: --msm-min 16 --msm-max 26 --g2-max 24 --ntt-min 16 --ntt-max 27 --cpu-max 16 --reps 5.\n"
           "  Environment: CZK_CUDA_MSM_WINDOW (window bits), CZK_CUDA_MSM_CHUNK (accumulation chunk).\n");
    return 0;
  }
  opts o = {16, 26, 24, 16, 27, 16, 5, 0};
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (i + 1 >= argc) {
      fprintf(stderr, "czk bench gpu: missing value after %s (see --help)\n", a);
      return 2;
    }
    const char *v = argv[++i];
    if (!strcmp(a, "--msm-min")) o.msm_min = arg_u(v);
    else if (!strcmp(a, "--msm-max")) o.msm_max = arg_u(v);
    else if (!strcmp(a, "--g2-max")) o.g2_max = arg_u(v);
    else if (!strcmp(a, "--ntt-min")) o.ntt_min = arg_u(v);
    else if (!strcmp(a, "--ntt-max")) o.ntt_max = arg_u(v);
    else if (!strcmp(a, "--cpu-max")) o.cpu_max = arg_u(v);
    else if (!strcmp(a, "--reps")) o.reps = (int)arg_u(v);
    else if (!strcmp(a, "--only")) only = v;
    else if (!strcmp(a, "--ntt-compact")) o.ntt_compact = arg_u(v) != 0;
    else {
      fprintf(stderr, "czk bench gpu: unknown option %s (see --help)\n", a);
      return 2;
    }
  }
  if (o.msm_max > 28 || o.g2_max > 28 || o.ntt_max > 28 || o.reps < 1 || o.msm_min < 1 || o.ntt_min < 1) {
    fprintf(stderr, "czk bench gpu: sizes must be 1..28 and --reps >= 1\n");
    return 2;
  }
  int ndev = 0;
  if (czk_cuda_device_count(&ndev) != CZK_OK || ndev == 0) {
    fprintf(stderr, "czk bench gpu: CUDA not available (no usable GPU)\n");
    return 1;
  }
  char desc[256];
  TRY(czk_cuda_device_describe(0, desc, sizeof desc));
  printf("# device 0: %s\n", desc);
  void *st = NULL;
  TRY(czk_cuda_stream_create(&st));
  int bad = 0;
  if (!only || !strcmp(only, "mul")) {
    double fp = 0, fr = 0;
    if (czk_cuda_probe_mul_throughput(0, &fp) == CZK_OK && czk_cuda_probe_mul_throughput(1, &fr) == CZK_OK)
      printf("mul     raw Montgomery products (4 independent chains per thread): Fp %.1f G/s, Fr %.1f G/s\n", fp, fr);
    else
      bad = 1;
  }
  if (!only || !strcmp(only, "ntt")) bad |= bench_ntt(&o, st);
  if (!only || !strcmp(only, "msm")) bad |= bench_msm_g1(&o, o.msm_max, st);
  if (!only || !strcmp(only, "g2")) {
    opts o2 = o;
    if (o2.msm_min > o2.g2_max) o2.msm_min = o2.g2_max;
    o2.cpu_max = o.cpu_max > 14 ? 14 : o.cpu_max;
    bad |= bench_msm_g2(&o2, o.g2_max, st);
  }
  czk_cuda_stream_destroy(st);
  printf("# overall correct=%s\n", bad ? "NO" : "yes");
  return bad ? 1 : 0;
}
#endif
