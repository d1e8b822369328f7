/* test_cuda.c: GPU kernels against the CPU layers (czk/field.h, czk/curve.h, czk/msm.h, czk/ntt.h) on seeded random
 * inputs:
 * Fp/Fr/Fp2 arithmetic (incl. 0, 1, -1), MSM over G1 and G2 (random points, points at infinity, repeated and opposite
 * points, zero and extreme scalars, one huge bucket, several window sizes and chunk lengths, scalars from host and
 * device, canonical and Montgomery), and the NTT (both root conventions, forward / inverse / coset, sizes 2^0..2^16;
 * compact plans against full ones and the CPU up to 2^24, and the CUDA backend's compact switch); the packing of a
 * streamed chunk's non-zero points from registered host memory (czk_cuda_pack_nonzero).
 * Exits 77 (skipped) when CUDA is not built or no GPU is present. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk_test.h"

#ifndef CZK_HAVE_CUDA
int main(void) {
  fprintf(stderr, "test_cuda: CUDA not built, skipping\n");
  return 77;
}
#else
#include <time.h>

#include "cuda/cuda_internal.h"
#include "czk/backend.h"
#include "czk/compiled.h"
#include "czk/msm.h"
#include "czk/ntt.h"
#include "czk/porep.h"
#include "czk/post.h"
#include "czk/snap.h"

static czk_test_rng rng;

static void rand_fp(czk_fp *r) {
  uint64_t raw[6];
  czk_test_rng_bytes(&rng, raw, sizeof raw);
  raw[5] &= 0x0fffffffffffffffULL; /* < p */
  CHECK(czk_fp_from_raw(r, raw) == CZK_OK);
}
/* A uniform canonical scalar < r (rejection sampling over 255-bit values). */
static void rand_scalar(uint64_t s[4]) {
  czk_fr t;
  do {
    czk_test_rng_bytes(&rng, s, 32);
    s[3] &= 0x7fffffffffffffffULL;
  } while (czk_fr_from_raw(&t, s) != CZK_OK);
}
static void rand_fr(czk_fr *r) {
  uint64_t raw[4];
  rand_scalar(raw);
  CHECK(czk_fr_from_raw(r, raw) == CZK_OK);
}
/* The CPU MSM on canonical scalars (what the device takes without CZK_CUDA_SCALARS_MONT). */
static void ref_msm_g1(czk_g1 *r, const czk_g1_affine *b, const uint64_t *sc, size_t n) {
  czk_fr *k = malloc((n ? n : 1) * sizeof *k);
  for (size_t i = 0; i < n; i++) CHECK(czk_fr_from_raw(&k[i], sc + 4 * i) == CZK_OK);
  CHECK(czk_msm_g1(r, b, k, n, 0, NULL, NULL, NULL) == CZK_OK);
  free(k);
}
static void ref_msm_g2(czk_g2 *r, const czk_g2_affine *b, const uint64_t *sc, size_t n) {
  czk_fr *k = malloc((n ? n : 1) * sizeof *k);
  for (size_t i = 0; i < n; i++) CHECK(czk_fr_from_raw(&k[i], sc + 4 * i) == CZK_OK);
  CHECK(czk_msm_g2(r, b, k, n, 0, NULL, NULL, NULL) == CZK_OK);
  free(k);
}

static void test_field(void) {
  enum { N = 2048 };
  czk_fp *a = calloc(N * 2, sizeof(czk_fp)), *b = calloc(N * 2, sizeof(czk_fp));
  czk_fp *o = calloc(N * 2, sizeof(czk_fp)), *e = calloc(N * 2, sizeof(czk_fp));
  for (int i = 0; i < 2 * N; i++) {
    rand_fp(&a[i]);
    rand_fp(&b[i]);
  }
  /* edge values: 0, 1, -1 */
  czk_fp one, zero, m1;
  memset(&zero, 0, sizeof zero);
  czk_fp_set_one(&one);
  czk_fp_sub(&m1, &zero, &one);
  a[0] = zero, a[1] = one, a[2] = m1, a[3] = m1, b[0] = m1, b[1] = m1, b[2] = m1, b[3] = one, b[4] = zero;
  for (int op = 0; op <= 2; op++) {
    CHECK(czk_cuda_probe_field(op, o, a, b, N) == CZK_OK);
    for (int i = 0; i < N; i++) {
      if (op == 0) czk_fp_mul(&e[i], &a[i], &b[i]);
      if (op == 1) czk_fp_add(&e[i], &a[i], &b[i]);
      if (op == 2) czk_fp_sub(&e[i], &a[i], &b[i]);
    }
    CHECK_MSG(memcmp(o, e, N * sizeof(czk_fp)) == 0, "fp op %d", op);
  }
  CHECK(czk_cuda_probe_field(8, o, a, NULL, 64) == CZK_OK);
  for (int i = 0; i < 64; i++) czk_fp_inv(&e[i], &a[i]);
  CHECK_MSG(memcmp(o, e, 64 * sizeof(czk_fp)) == 0, "fp inv");
  /* Fr: reuse the buffers (32-byte elements) */
  czk_fr *fa = (czk_fr *)a, *fb = (czk_fr *)b, *fo = (czk_fr *)o, *fe = (czk_fr *)e;
  for (int i = 0; i < N; i++) {
    rand_fr(&fa[i]);
    rand_fr(&fb[i]);
  }
  czk_fr frz, fr1, frm1;
  memset(&frz, 0, sizeof frz);
  czk_fr_set_one(&fr1);
  czk_fr_sub(&frm1, &frz, &fr1);
  fa[0] = frz, fa[1] = fr1, fa[2] = frm1, fb[0] = frm1, fb[1] = frm1, fb[2] = frm1, fb[3] = frz;
  for (int op = 3; op <= 5; op++) {
    CHECK(czk_cuda_probe_field(op, fo, fa, fb, N) == CZK_OK);
    for (int i = 0; i < N; i++) {
      if (op == 3) czk_fr_mul(&fe[i], &fa[i], &fb[i]);
      if (op == 4) czk_fr_add(&fe[i], &fa[i], &fb[i]);
      if (op == 5) czk_fr_sub(&fe[i], &fa[i], &fb[i]);
    }
    CHECK_MSG(memcmp(fo, fe, N * sizeof(czk_fr)) == 0, "fr op %d", op);
  }
  /* Shoup product (NTT twiddles): a Montgomery, b any value below 2r (here b or b + r), lazy result in [0, 2r) that
   * is a b R^-1 mod r; edges: a = 0, 1, -1 with b = 0, r, 2r - 1 */
  static const uint64_t FRM[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                  0x73eda753299d7d48ULL};
  for (int i = 0; i < N; i++) {
    rand_fr(&fa[i]);
    rand_fr(&fb[i]);
  }
  fa[0] = frz, fa[1] = fr1, fa[2] = frm1, fa[3] = frm1, fa[4] = frm1, fa[5] = fr1;
  fb[0] = frz, fb[1] = frz, fb[2] = frm1, fb[3] = frz, fb[5] = fr1;
  for (int k = 0; k < 4; k++) fb[4].l[k] = FRM[k] - (k == 0); /* raw r - 1: b = 2r - 1 after the + r below */
  czk_fr *fb2 = (czk_fr *)calloc(N, sizeof(czk_fr));
  for (int i = 0; i < N; i++) {
    fb2[i] = fb[i];
    if (i % 2 == 1 || i == 2 || i == 4) { /* + r: the same residue at or above r */
      unsigned __int128 c = 0;
      for (int k = 0; k < 4; k++) {
        c += (unsigned __int128)fb2[i].l[k] + FRM[k];
        fb2[i].l[k] = (uint64_t)c;
        c >>= 64;
      }
    }
  }
  CHECK(czk_cuda_probe_field(10, fo, fa, fb2, N) == CZK_OK);
  int shoup_bad = 0;
  for (int i = 0; i < N; i++) {
    czk_fr_mul(&fe[i], &fa[i], &fb[i]);
    /* fo < 2r, and fo or fo - r equals the expectation */
    czk_fr t = fo[i];
    uint64_t bw = 0;
    czk_fr d;
    for (int k = 0; k < 4; k++) {
      unsigned __int128 x = (unsigned __int128)t.l[k] - FRM[k] - bw;
      d.l[k] = (uint64_t)x;
      bw = (uint64_t)(x >> 64) & 1;
    }
    if (!bw) { /* fo >= r: fo - r must be < r */
      uint64_t bw2 = 0;
      for (int k = 0; k < 4; k++) {
        unsigned __int128 x = (unsigned __int128)d.l[k] - FRM[k] - bw2;
        bw2 = (uint64_t)(x >> 64) & 1;
      }
      if (!bw2) shoup_bad++;
      t = d;
    }
    if (memcmp(&t, &fe[i], sizeof t) != 0) shoup_bad++;
  }
  CHECK_MSG(shoup_bad == 0, "fr shoup product: %d wrong", shoup_bad);
  free(fb2);
  /* Fp2 */
  czk_fp2 *pa = (czk_fp2 *)a, *pb = (czk_fp2 *)b, *po = (czk_fp2 *)o, *pe = (czk_fp2 *)e;
  for (int i = 0; i < N; i++) {
    rand_fp(&pa[i].c0), rand_fp(&pa[i].c1), rand_fp(&pb[i].c0), rand_fp(&pb[i].c1);
  }
  CHECK(czk_cuda_probe_field(6, po, pa, pb, N) == CZK_OK);
  for (int i = 0; i < N; i++) czk_fp2_mul(&pe[i], &pa[i], &pb[i]);
  CHECK_MSG(memcmp(po, pe, N * sizeof(czk_fp2)) == 0, "fp2 mul");
  CHECK(czk_cuda_probe_field(7, po, pa, NULL, N) == CZK_OK);
  for (int i = 0; i < N; i++) czk_fp2_mul(&pe[i], &pa[i], &pa[i]);
  CHECK_MSG(memcmp(po, pe, N * sizeof(czk_fp2)) == 0, "fp2 sqr");
  CHECK(czk_cuda_probe_field(9, po, pa, NULL, 32) == CZK_OK);
  for (int i = 0; i < 32; i++) czk_fp2_inv(&pe[i], &pa[i]);
  CHECK_MSG(memcmp(po, pe, 32 * sizeof(czk_fp2)) == 0, "fp2 inv");
  free(a), free(b), free(o), free(e);
}

/* Bases P_i = P_{i-1} + Q with random start and step (affine, host), plus infinity / repeated / opposite points. */
#define MAKE_BASES(G, AT, JT)                                                                                         \
  static AT *G##_bases(size_t n) {                                                                                    \
    JT g, p, q, *j = malloc(n * sizeof(JT));                                                                          \
    AT *a = malloc(n * sizeof(AT));                                                                                   \
    uint64_t k[4];                                                                                                    \
    czk_##G##_generator(&g);                                                                                      \
    rand_scalar(k);                                                                                                   \
    czk_##G##_mul_raw_vartime(&p, &g, k, 4);                                                                           \
    rand_scalar(k);                                                                                                   \
    czk_##G##_mul_raw_vartime(&q, &g, k, 4);                                                                           \
    for (size_t i = 0; i < n; i++) {                                                                                  \
      j[i] = p;                                                                                                       \
      czk_##G##_add(&p, &p, &q);                                                                                  \
    }                                                                                                                 \
    CHECK(czk_##G##_batch_to_affine(a, j, n) == CZK_OK);                                                               \
    free(j);                                                                                                          \
    if (n > 20) {                                                                                                     \
      memset(&a[3], 0, sizeof(AT));            /* infinity */                                                         \
      a[10] = a[5], a[11] = a[5], a[12] = a[5]; /* repeated */                                                        \
      a[13] = a[6];                                                                                                   \
      czk_fp_sub((czk_fp *)&a[13].y, &(czk_fp){{0}}, (const czk_fp *)&a[6].y); /* -P (c0 of y for g2: below) */  \
    }                                                                                                                 \
    return a;                                                                                                         \
  }
MAKE_BASES(g1, czk_g1_affine, czk_g1)
MAKE_BASES(g2, czk_g2_affine, czk_g2)

static void fix_g2_neg(czk_g2_affine *a, size_t n) {
  if (n > 20) {
    czk_fp z;
    memset(&z, 0, sizeof z);
    czk_fp_sub(&a[13].y.c0, &z, &a[6].y.c0);
    czk_fp_sub(&a[13].y.c1, &z, &a[6].y.c1);
  }
}

static void make_scalars(uint64_t *s, size_t n, int kind) {
  for (size_t i = 0; i < n; i++) rand_scalar(s + 4 * i);
  if (kind >= 2) { /* witness-like: 2 = 45% zeros, 45% ones, 10% random; 3 = all zero; 4 = all one */
    for (size_t i = 0; i < n; i++) {
      uint64_t r = czk_test_rng_next(&rng) % 100;
      int cls = kind == 3 ? 0 : kind == 4 ? 1 : r < 45 ? 0 : r < 90 ? 1 : 2;
      if (cls < 2) memcpy(s + 4 * i, (const uint64_t[4]){(uint64_t)cls, 0, 0, 0}, 32);
    }
    return;
  }
  if (kind == 1) { /* one huge bucket: all equal */
    for (size_t i = 1; i < n; i++) memcpy(s + 4 * i, s, 32);
    return;
  }
  if (n > 20) {
    memset(s + 4 * 1, 0, 32);                                      /* zero */
    memcpy(s + 4 * 2, (const uint64_t[4]){0xffffffff00000000ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                           0x73eda753299d7d48ULL},
           32);                                                    /* r - 1 */
    memcpy(s + 4 * 4, (const uint64_t[4]){1, 0, 0, 0}, 32);        /* 1 */
    memcpy(s + 4 * 7, (const uint64_t[4]){~0ULL, ~0ULL, ~0ULL, 0x3fffffffffffffffULL}, 32); /* 2^254 - 1 */
    memcpy(s + 4 * 8, (const uint64_t[4]){0x8000800080008000ULL, 0x8000800080008000ULL, 0x8000800080008000ULL,
                                           0x0000800080008000ULL},
           32);                                                    /* digits at the signed edge */
  }
}

static void test_msm_g1(size_t n, int kind, const char *window, unsigned flags) {
  if (window) setenv("CZK_CUDA_MSM_WINDOW", window, 1);
  else unsetenv("CZK_CUDA_MSM_WINDOW");
  czk_g1_affine *bases = g1_bases(n);
  uint64_t *sc = malloc(n * 32);
  make_scalars(sc, n, kind);
  czk_g1 want, got;
  ref_msm_g1(&want, bases, sc, n);
  void *st = NULL;
  CHECK(czk_cuda_stream_create(&st) == CZK_OK);
  czk_cuda_msm *m = NULL;
  CHECK(czk_cuda_msm_g1_new(&m, bases, n, st) == CZK_OK);
  const uint64_t *arg = sc;
  void *d_sc = NULL;
  if (flags & CZK_CUDA_SCALARS_MONT) /* convert to Montgomery on the host first */
    for (size_t i = 0; i < n; i++) {
      czk_fr k;
      CHECK(czk_fr_from_raw(&k, sc + 4 * i) == CZK_OK);
      memcpy(sc + 4 * i, &k, 32);
    }
  if (flags & CZK_CUDA_SCALARS_DEVICE) {
    CHECK(czk_cuda_malloc(&d_sc, n * 32) == CZK_OK);
    CHECK(czk_cuda_memcpy_htod(d_sc, sc, n * 32, st) == CZK_OK);
    arg = d_sc;
  }
  memset(&got, 0x5a, sizeof got);
  CHECK(czk_cuda_msm_g1_run(m, &got, arg, n, flags, st) == CZK_OK);
  CHECK(czk_cuda_stream_sync(st) == CZK_OK);
  CHECK_MSG(czk_g1_eq(&got, &want), "g1 msm n=%zu kind=%d window=%s flags=%u", n, kind, window ? window : "auto",
            flags);
  if (d_sc) czk_cuda_free(d_sc);
  czk_cuda_msm_free(m);
  czk_cuda_stream_destroy(st);
  free(bases), free(sc);
}

/* The MSM scratch plan: a handle reserved for n points holds exactly the planned bytes, and runs of up to n points
 * (0/1-mixed or dense scalars, chunked or not, marked dense or not) grow nothing and give the right sums; two handles
 * (G1 and G2) sharing one scratch hold the plan of both. */
static void test_msm_plan(size_t n, int kind, int dense) {
  czk_g1_affine *bases = g1_bases(n);
  uint64_t *sc = malloc(n * 32);
  make_scalars(sc, n, kind);
  czk_g1 want, got;
  ref_msm_g1(&want, bases, sc, n);
  int g = 1;
  uint64_t plan = 0;
  CHECK(czk_cuda_msm_plan_bytes(&g, &n, &dense, 1, &plan) == CZK_OK);
  void *st = NULL;
  CHECK(czk_cuda_stream_create(&st) == CZK_OK);
  czk_cuda_msm *m = NULL;
  CHECK(czk_cuda_msm_g1_new(&m, bases, n, st) == CZK_OK);
  czk_cuda_msm_set_dense(m, dense);
  CHECK(czk_cuda_msm_reserve(m, n) == CZK_OK);
  const uint64_t held = czk_cuda_msm_scratch_held(m);
  CHECK_MSG(held == plan && plan > 0, "plan n=%zu kind=%d dense=%d: planned %llu, reserved %llu", n, kind, dense,
            (unsigned long long)plan, (unsigned long long)held);
  for (size_t len = n; len >= n / 3 && len > 0; len -= n / 3 + 1) { /* full and partial runs */
    if (len != n) ref_msm_g1(&want, bases, sc, len);
    memset(&got, 0x5a, sizeof got);
    CHECK(czk_cuda_msm_g1_run(m, &got, sc, len, 0, st) == CZK_OK);
    CHECK(czk_cuda_stream_sync(st) == CZK_OK);
    CHECK_MSG(czk_g1_eq(&got, &want), "plan run n=%zu of %zu kind=%d dense=%d", len, n, kind, dense);
    CHECK_MSG(czk_cuda_msm_scratch_held(m) == held, "a run of %zu points grew the scratch: %llu -> %llu", len,
              (unsigned long long)held, (unsigned long long)czk_cuda_msm_scratch_held(m));
  }
  /* shared with a G2 handle: one scratch, the plan of both */
  czk_g2_affine *b2 = g2_bases(n / 2 + 1);
  czk_cuda_msm *m2 = NULL;
  CHECK(czk_cuda_msm_g2_new(&m2, b2, n / 2 + 1, st) == CZK_OK);
  CHECK(czk_cuda_msm_share_scratch(m2, m) == CZK_OK);
  CHECK(czk_cuda_msm_reserve(m2, n / 2 + 1) == CZK_OK);
  int gs[2] = {1, 2}, ds[2] = {dense, 0};
  size_t ns[2] = {n, n / 2 + 1};
  CHECK(czk_cuda_msm_plan_bytes(gs, ns, ds, 2, &plan) == CZK_OK);
  CHECK_MSG(czk_cuda_msm_scratch_held(m) == plan && czk_cuda_msm_scratch_held(m2) == plan,
            "shared plan n=%zu: planned %llu, held %llu", n, (unsigned long long)plan,
            (unsigned long long)czk_cuda_msm_scratch_held(m));
  czk_cuda_msm_free(m2);
  czk_cuda_msm_free(m);
  czk_cuda_stream_destroy(st);
  free(bases), free(b2), free(sc);
}

/* A series (czk_cuda_msm_run_series): n points run as chunks of C through two handles sharing one scratch reserved
 * for C (as a lane's slots and resident queries do), alternating, the series' sum in the last run's *out; equal to
 * the host's MSM of all n points, and the scratch never grows past its plan. kind as make_scalars; kind 5: the first
 * chunk all ones and zeros, the rest witness-like (the series' window is chosen from its first run). */
static void test_msm_series(int g, size_t n, size_t C, int kind, int dense) {
  const size_t asz = g == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
  void *bases = g == 1 ? (void *)g1_bases(n) : (void *)g2_bases(n);
  if (g == 2) fix_g2_neg(bases, n);
  uint64_t *sc = malloc(n * 32);
  make_scalars(sc, n, kind >= 5 ? 2 : kind);
  if (kind == 5) /* a first chunk of zeros and ones only */
    for (size_t i = 0; i < C && i < n; i++) memcpy(sc + 4 * i, (const uint64_t[4]){i % 3 == 0, 0, 0, 0}, 32);
  if (kind == 6) memset(sc, 0, (C < n ? C : n) * 32); /* a first chunk of zeros only */
  czk_g1 want1, got1;
  czk_g2 want2, got2;
  if (g == 1) ref_msm_g1(&want1, bases, sc, n);
  else ref_msm_g2(&want2, bases, sc, n);
  void *st = NULL, *d_b = NULL;
  CHECK(czk_cuda_stream_create(&st) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_b, n * asz) == CZK_OK);
  CHECK(czk_cuda_memcpy_htod(d_b, bases, n * asz, st) == CZK_OK);
  CHECK(czk_cuda_stream_sync(st) == CZK_OK);
  czk_cuda_msm *m[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    CHECK((g == 1 ? czk_cuda_msm_g1_new_device(&m[i], d_b, n) : czk_cuda_msm_g2_new_device(&m[i], d_b, n)) == CZK_OK);
    if (i) CHECK(czk_cuda_msm_share_scratch(m[1], m[0]) == CZK_OK);
    czk_cuda_msm_set_dense(m[i], dense);
    CHECK(czk_cuda_msm_reserve(m[i], C) == CZK_OK);
  }
  int gg = g, dd = dense;
  uint64_t plan = 0;
  CHECK(czk_cuda_msm_plan_bytes(&gg, &C, &dd, 1, &plan) == CZK_OK);
  const uint64_t held = czk_cuda_msm_scratch_held(m[0]);
  CHECK_MSG(held == plan, "series g%d C=%zu: planned %llu, held %llu", g, C, (unsigned long long)plan,
            (unsigned long long)held);
  void *out = g == 1 ? (void *)&got1 : (void *)&got2;
  memset(out, 0x5a, g == 1 ? sizeof got1 : sizeof got2);
  int k = 0;
  for (size_t off = 0; off < n; off += C, k++) {
    const size_t len = n - off < C ? n - off : C;
    const unsigned fl = (off == 0 ? CZK_CUDA_SERIES_FIRST : 0u) | (off + len == n ? CZK_CUDA_SERIES_LAST : 0u);
    CHECK(czk_cuda_msm_run_series(m[k & 1], g, out, off, sc + 4 * off, len, fl, n, st) == CZK_OK);
  }
  CHECK(czk_cuda_stream_sync(st) == CZK_OK);
  CHECK_MSG(g == 1 ? czk_g1_eq(&got1, &want1) : czk_g2_eq(&got2, &want2), "series g%d n=%zu C=%zu kind=%d dense=%d", g,
            n, C, kind, dense);
  CHECK_MSG(czk_cuda_msm_scratch_held(m[0]) == held, "series g%d n=%zu C=%zu kind=%d: the scratch grew %llu -> %llu",
            g, n, C, kind, (unsigned long long)held, (unsigned long long)czk_cuda_msm_scratch_held(m[0]));
  czk_cuda_msm_free(m[1]);
  czk_cuda_msm_free(m[0]);
  czk_cuda_free(d_b);
  czk_cuda_stream_destroy(st);
  free(bases), free(sc);
}

/* A G1 handle and a G2 handle on one scratch, reserved for G1 chunks of C points and G2 chunks of C/2 (as a compact
 * lane's pipeline holds l, a, b_g1 and b_g2): a G2 series whose first chunk holds only zeros and ones (so its window
 * is chosen narrow) and whose later chunks are dense keeps within the scratch reserved (its passes split to fit the
 * records, which grow faster per point for G2), equals the host's MSM, and so does a G1 series after it; a series
 * with a chunk of no point in the middle, a series of no point at all, and every chunk a series of its own
 * (CZK_CUDA_MSM_SERIES=0) give the same sums. */
static void test_msm_series_mixed(size_t n2, size_t C) {
  const size_t n1 = 2 * C, C2 = C / 2;
  czk_g1_affine *b1 = g1_bases(n1);
  czk_g2_affine *b2 = g2_bases(n2);
  fix_g2_neg(b2, n2);
  uint64_t *s1 = malloc(n1 * 32), *s2 = malloc(n2 * 32);
  make_scalars(s1, n1, 2);
  make_scalars(s2, n2, 0);
  for (size_t i = 0; i < C2 && i < n2; i++) memcpy(s2 + 4 * i, (const uint64_t[4]){i % 3 == 0, 0, 0, 0}, 32);
  czk_g1 want1, got1;
  czk_g2 want2, got2;
  ref_msm_g1(&want1, b1, s1, n1);
  ref_msm_g2(&want2, b2, s2, n2);
  void *st = NULL, *d1 = NULL, *d2 = NULL;
  CHECK(czk_cuda_stream_create(&st) == CZK_OK);
  CHECK(czk_cuda_malloc(&d1, n1 * sizeof *b1) == CZK_OK);
  CHECK(czk_cuda_malloc(&d2, n2 * sizeof *b2) == CZK_OK);
  CHECK(czk_cuda_memcpy_htod(d1, b1, n1 * sizeof *b1, st) == CZK_OK);
  CHECK(czk_cuda_memcpy_htod(d2, b2, n2 * sizeof *b2, st) == CZK_OK);
  CHECK(czk_cuda_stream_sync(st) == CZK_OK);
  czk_cuda_msm *m1 = NULL, *m2 = NULL;
  CHECK(czk_cuda_msm_g1_new_device(&m1, d1, n1) == CZK_OK);
  CHECK(czk_cuda_msm_g2_new_device(&m2, d2, n2) == CZK_OK);
  if (!m1 || !m2) return;
  CHECK(czk_cuda_msm_share_scratch(m2, m1) == CZK_OK);
  CHECK(czk_cuda_msm_reserve(m1, C) == CZK_OK);
  CHECK(czk_cuda_msm_reserve(m2, C2) == CZK_OK);
  int gg[2] = {1, 2}, dd[2] = {0, 0};
  size_t cc[2] = {C, C2};
  uint64_t plan = 0;
  CHECK(czk_cuda_msm_plan_bytes(gg, cc, dd, 2, &plan) == CZK_OK);
  const uint64_t held = czk_cuda_msm_scratch_held(m1);
  CHECK_MSG(held == plan, "mixed series C=%zu: planned %llu, held %llu", C, (unsigned long long)plan,
            (unsigned long long)held);
  for (int mode = 0; mode < 2; mode++) { /* the series; then every chunk its own series, added */
    setenv("CZK_CUDA_MSM_SERIES", mode ? "0" : "1", 1);
    memset(&got2, 0x5a, sizeof got2);
    for (size_t off = 0; off < n2; off += C2) {
      const size_t len = n2 - off < C2 ? n2 - off : C2;
      const unsigned fl = (off == 0 ? CZK_CUDA_SERIES_FIRST : 0u) | (off + len == n2 ? CZK_CUDA_SERIES_LAST : 0u);
      CHECK(czk_cuda_msm_run_series(m2, 2, &got2, off, s2 + 4 * off, len, fl, n2, st) == CZK_OK);
    }
    memset(&got1, 0x5a, sizeof got1);
    for (size_t off = 0; off < n1; off += C) {
      const unsigned fl = (off == 0 ? CZK_CUDA_SERIES_FIRST : 0u) | (off + C == n1 ? CZK_CUDA_SERIES_LAST : 0u);
      CHECK(czk_cuda_msm_run_series(m1, 1, &got1, off, s1 + 4 * off, C, fl, n1, st) == CZK_OK);
      if (off == 0) /* a run of no point in the middle changes nothing */
        CHECK(czk_cuda_msm_run_series(m1, 1, &got1, C, s1, 0, 0, n1, st) == CZK_OK);
    }
    CHECK(czk_cuda_stream_sync(st) == CZK_OK);
    CHECK_MSG(czk_g2_eq(&got2, &want2) && czk_g1_eq(&got1, &want1), "mixed series C=%zu series=%d: G2 %s, G1 %s", C,
              !mode, czk_g2_eq(&got2, &want2) ? "ok" : "wrong", czk_g1_eq(&got1, &want1) ? "ok" : "wrong");
    CHECK_MSG(czk_cuda_msm_scratch_held(m1) == held, "mixed series C=%zu: the scratch grew %llu -> %llu", C,
              (unsigned long long)held, (unsigned long long)czk_cuda_msm_scratch_held(m1));
  }
  unsetenv("CZK_CUDA_MSM_SERIES");
  /* a series of no point: infinity, written in stream order after the sum before it into the same place */
  CHECK(czk_cuda_msm_run_series(m1, 1, &got1, 0, s1, C, CZK_CUDA_SERIES_FIRST | CZK_CUDA_SERIES_LAST, C, st) ==
        CZK_OK);
  CHECK(czk_cuda_msm_run_series(m1, 1, &got1, 0, s1, 0, CZK_CUDA_SERIES_FIRST | CZK_CUDA_SERIES_LAST, 0, st) ==
        CZK_OK);
  CHECK(czk_cuda_stream_sync(st) == CZK_OK);
  czk_g1 inf;
  memset(&inf, 0, sizeof inf);
  CHECK_MSG(czk_g1_eq(&got1, &inf), "a series of no point is not infinity");
  czk_cuda_msm_free(m2);
  czk_cuda_msm_free(m1);
  czk_cuda_free(d1), czk_cuda_free(d2);
  czk_cuda_stream_destroy(st);
  free(b1), free(b2), free(s1), free(s2);
}

/* czk_cuda_pack_nonzero against the obvious loop: scalars with zeros (a `zeros` fraction per 256), ones and others,
 * read directly or through an index list (a shuffled subset of a larger w), points of `bsz` bytes in registered host
 * memory at offset `skew` (4: not 16-byte aligned, the word-by-word path), n across block boundaries; the tail of
 * the scalars zeroed and the byte counter added to (it starts at 7 * bsz). */
static void test_pack_nonzero(size_t n, size_t bsz, unsigned zeros, bool with_idx, size_t skew) {
  const size_t nw = with_idx ? 2 * n + 5 : n;
  uint64_t *w = calloc(nw ? 4 * nw : 4, 8);
  uint32_t *idx = with_idx ? malloc((n ? n : 1) * 4) : NULL;
  uint8_t *hb_raw = malloc(n * bsz + 64), *hb = hb_raw + skew;
  for (size_t i = 0; i < nw; i++) {
    const unsigned r = (unsigned)(czk_test_rng_next(&rng) & 255);
    if (r < zeros) continue;
    if (r & 1) w[4 * i] = 1;
    else rand_scalar(w + 4 * i);
  }
  for (size_t j = 0; j < n; j++) idx ? (void)(idx[j] = (uint32_t)((j * 7919u + 3) % nw)) : (void)0;
  czk_test_rng_bytes(&rng, hb, n * bsz);
  CHECK(czk_cuda_host_register(hb_raw, n * bsz + 64) == CZK_OK);
  void *st = NULL, *d_w = NULL, *d_idx = NULL, *d_bo = NULL, *d_so = NULL, *d_tmp = NULL, *d_cnt = NULL;
  CHECK(czk_cuda_stream_create(&st) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_w, (nw ? nw : 1) * 32) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_bo, (n ? n : 1) * bsz) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_so, (n ? n : 1) * 32) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_tmp, czk_cuda_pack_nonzero_tmp(n)) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_cnt, 8) == CZK_OK);
  CHECK(czk_cuda_memcpy_htod(d_w, w, nw * 32, st) == CZK_OK);
  if (idx) {
    CHECK(czk_cuda_malloc(&d_idx, n * 4) == CZK_OK);
    CHECK(czk_cuda_memcpy_htod(d_idx, idx, n * 4, st) == CZK_OK);
  }
  const uint64_t start = 7 * bsz;
  CHECK(czk_cuda_memcpy_htod(d_cnt, &start, 8, st) == CZK_OK);
  uint8_t *junk = malloc(n * 32 + 1);
  memset(junk, 0xa5, n * 32 + 1); /* the outputs start as garbage: the tail must be zeroed */
  CHECK(czk_cuda_memcpy_htod(d_so, junk, n * 32, st) == CZK_OK);
  CHECK(czk_cuda_pack_nonzero(d_bo, d_so, hb, bsz, d_w, d_idx, n, d_tmp, d_cnt, st) == CZK_OK);
  uint8_t *bo = malloc(n * bsz + 1);
  uint64_t *so = malloc(n * 32 + 1), cnt = 0;
  CHECK(czk_cuda_memcpy_dtoh(bo, d_bo, n * bsz, st) == CZK_OK);
  CHECK(czk_cuda_memcpy_dtoh(so, d_so, n * 32, st) == CZK_OK);
  CHECK(czk_cuda_memcpy_dtoh(&cnt, d_cnt, 8, st) == CZK_OK);
  CHECK(czk_cuda_stream_sync(st) == CZK_OK);
  size_t m = 0, bad = 0;
  for (size_t j = 0; j < n; j++) {
    const uint64_t *v = w + 4 * (idx ? idx[j] : j);
    if (!(v[0] | v[1] | v[2] | v[3])) continue;
    if (memcmp(so + 4 * m, v, 32) || memcmp(bo + m * bsz, hb + j * bsz, bsz)) bad++;
    m++;
  }
  for (size_t j = m; j < n; j++)
    if (so[4 * j] | so[4 * j + 1] | so[4 * j + 2] | so[4 * j + 3]) bad++;
  CHECK_MSG(bad == 0 && cnt == start + m * bsz, "pack n=%zu bsz=%zu zeros=%u idx=%d skew=%zu: %zu wrong, %llu bytes "
            "counted (want %llu)", n, bsz, zeros, with_idx, skew, bad, (unsigned long long)(cnt - start),
            (unsigned long long)(m * bsz));
  czk_cuda_host_unregister(hb_raw);
  czk_cuda_free(d_w), czk_cuda_free(d_idx), czk_cuda_free(d_bo), czk_cuda_free(d_so), czk_cuda_free(d_tmp);
  czk_cuda_free(d_cnt);
  czk_cuda_stream_destroy(st);
  free(w), free(idx), free(hb_raw), free(junk), free(bo), free(so);
}

/* Pageable (unregistered) host memory is not read in place: refused, and the context stays usable. */
static void test_pack_unregistered(void) {
  const size_t n = 3000;
  uint8_t *hb = calloc(n, 96);
  void *st = NULL, *d_w = NULL, *d_bo = NULL, *d_so = NULL, *d_tmp = NULL, *d_cnt = NULL;
  CHECK(czk_cuda_stream_create(&st) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_w, n * 32) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_bo, n * 96) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_so, n * 32) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_tmp, czk_cuda_pack_nonzero_tmp(n)) == CZK_OK);
  CHECK(czk_cuda_malloc(&d_cnt, 8) == CZK_OK);
  CHECK(czk_cuda_pack_nonzero(d_bo, d_so, hb, 96, d_w, NULL, n, d_tmp, d_cnt, st) == CZK_ERR_UNSUPPORTED);
  CHECK(czk_cuda_stream_sync(st) == CZK_OK);
  CHECK(czk_cuda_sticky_error() == 0);
  czk_cuda_free(d_w), czk_cuda_free(d_bo), czk_cuda_free(d_so), czk_cuda_free(d_tmp), czk_cuda_free(d_cnt);
  czk_cuda_stream_destroy(st);
  free(hb);
}

static void test_msm_g2(size_t n, int kind, const char *window) {
  if (window) setenv("CZK_CUDA_MSM_WINDOW", window, 1);
  else unsetenv("CZK_CUDA_MSM_WINDOW");
  czk_g2_affine *bases = g2_bases(n);
  fix_g2_neg(bases, n);
  uint64_t *sc = malloc(n * 32);
  make_scalars(sc, n, kind);
  czk_g2 want, got;
  ref_msm_g2(&want, bases, sc, n);
  czk_cuda_msm *m = NULL;
  CHECK(czk_cuda_msm_g2_new(&m, bases, n, NULL) == CZK_OK);
  memset(&got, 0x5a, sizeof got);
  CHECK(czk_cuda_msm_g2_run(m, &got, sc, n, 0, NULL) == CZK_OK);
  CHECK(czk_cuda_stream_sync(NULL) == CZK_OK);
  CHECK_MSG(czk_g2_eq(&got, &want), "g2 msm n=%zu kind=%d window=%s", n, kind, window ? window : "auto");
  czk_cuda_msm_free(m);
  free(bases), free(sc);
}

static void test_ref_sanity(void) {
  czk_g1 g, t;
  czk_g2 h, u;
  czk_g1_affine ga;
  czk_g2_affine ha;
  const uint64_t r[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
  czk_g1_generator(&g);
  czk_g2_generator(&h);
  czk_g1_to_affine(&ga, &g);
  czk_g2_to_affine(&ha, &h);
  CHECK(czk_g1_affine_is_on_curve(&ga));
  CHECK(czk_g2_affine_is_on_curve(&ha));
  czk_g1_mul_raw_vartime(&t, &g, r, 4);
  czk_g2_mul_raw_vartime(&u, &h, r, 4);
  CHECK(czk_g1_is_infinity(&t));
  CHECK(czk_g2_is_infinity(&u));
  /* the reference MSM (canonical scalars) vs a naive sum on a few points */
  czk_g1_affine *b = g1_bases(9);
  uint64_t sc[9 * 4];
  make_scalars(sc, 9, 0);
  czk_g1 acc, p, m;
  memset(&acc, 0, sizeof acc);
  for (int i = 0; i < 9; i++) {
    czk_g1_from_affine(&p, &b[i]);
    czk_g1_mul_raw_vartime(&p, &p, sc + 4 * i, 4);
    czk_g1_add(&acc, &acc, &p);
  }
  ref_msm_g1(&m, b, sc, 9);
  CHECK(czk_g1_eq(&acc, &m));
  free(b);
}

/* The expected transform of x (2^L points) in direction dir (czk_cuda_ntt_dir), coset shift 7, computed on the CPU:
 * the coset scaling and n^-1 by hand around czk_ntt_forward over omega or omega^-1 (pool: NULL = the caller). */
static void ntt_ref(czk_fr *y, const czk_fr *x, unsigned L, int dir, czk_fr_roots roots, czk_pool *pool) {
  size_t n = (size_t)1 << L;
  czk_fr g, gi, w, wi, ninv, nn;
  czk_fr_from_u64(&g, 7);
  czk_fr_inv(&gi, &g);
  CHECK(czk_fr_root_of_unity(&w, L, roots) == CZK_OK);
  czk_fr_inv(&wi, &w);
  czk_fr_from_u64(&nn, n);
  czk_fr_inv(&ninv, &nn);
  memcpy(y, x, n * sizeof(czk_fr));
  if (dir == 2) {
    czk_fr gp;
    czk_fr_set_one(&gp);
    for (size_t i = 0; i < n; i++) czk_fr_mul(&y[i], &y[i], &gp), czk_fr_mul(&gp, &gp, &g);
  }
  if (L > 0) { /* the CPU NTT over omega (or omega^-1): y_j = sum_i y_i omega^(ij); size 1 is the identity */
    czk_ntt_domain *dom = NULL;
    CHECK(czk_ntt_domain_new_omega(&dom, L, (dir & 1) ? &wi : &w, pool) == CZK_OK);
    if (dom) CHECK(czk_ntt_forward(dom, y, pool) == CZK_OK);
    czk_ntt_domain_free(dom);
  }
  if (dir & 1) {
    czk_fr gp;
    czk_fr_set_one(&gp);
    for (size_t i = 0; i < n; i++) {
      czk_fr_mul(&y[i], &y[i], &ninv);
      if (dir == 3) czk_fr_mul(&y[i], &y[i], &gp), czk_fr_mul(&gp, &gp, &gi);
    }
  }
}

static void test_ntt(czk_fr_roots roots) {
  const unsigned maxlog = 16;
  czk_cuda_ntt *p = NULL;
  CHECK(czk_cuda_ntt_new(&p, maxlog, roots, NULL, NULL) == CZK_OK);
  if (!p) return;
  CHECK(!czk_cuda_ntt_is_compact(p));
  CHECK(czk_cuda_ntt_bytes(p) == czk_cuda_ntt_plan_bytes(maxlog));
  size_t nmax = (size_t)1 << maxlog;
  czk_fr *x = malloc(nmax * sizeof(czk_fr)), *y = malloc(nmax * sizeof(czk_fr)), *z = malloc(nmax * sizeof(czk_fr));
  void *d = NULL;
  CHECK(czk_cuda_malloc(&d, nmax * sizeof(czk_fr)) == CZK_OK);
  const unsigned logs[] = {0, 1, 2, 3, 5, 9, 10, 11, 13, 16};
  for (size_t li = 0; li < CZK_ARRAY_LEN(logs); li++) {
    unsigned L = logs[li];
    size_t n = (size_t)1 << L;
    for (int dir = 0; dir < 4; dir++) {
      for (size_t i = 0; i < n; i++) rand_fr(&x[i]);
      ntt_ref(y, x, L, dir, roots, NULL);
      CHECK(czk_cuda_memcpy_htod(d, x, n * sizeof(czk_fr), NULL) == CZK_OK);
      CHECK(czk_cuda_ntt_run(p, (czk_fr *)d, L, (czk_cuda_ntt_dir)dir, NULL) == CZK_OK);
      CHECK(czk_cuda_memcpy_dtoh(z, d, n * sizeof(czk_fr), NULL) == CZK_OK);
      CHECK(czk_cuda_stream_sync(NULL) == CZK_OK);
      CHECK_MSG(memcmp(y, z, n * sizeof(czk_fr)) == 0, "ntt roots=%d log=%u dir=%d", (int)roots, L, dir);
    }
  }
  czk_cuda_free(d);
  czk_cuda_ntt_free(p);
  free(x), free(y), free(z);
}

/* Compact plans (czk_cuda_ntt_new_ex, compact = 1): their sizes (exact, and at most 64 MiB up to 2^28), and every
 * direction bit-identical to the full plan's and to the CPU NTT on random inputs: a 2^24 plan for 2^1..2^12 (small
 * domains read its tables with large strides), 2^20 (two passes of 10: the four-step first pass) and 2^24 (three
 * passes of 8: the later passes read exponents as fine as 2^8, the compact table's step); a 2^12 plan (snarkjs roots)
 * for 2^1..2^12 (2^11 and 2^12: two passes at the plan's own size). Then the CUDA backend's switch
 * (czk_backend_set_compact_tables): plan bytes reported and held, and H in both modes against czk_ntt_h. */
static void test_ntt_compact(void) {
  for (unsigned k = 1; k <= 28; k++) {
    CHECK(czk_cuda_ntt_plan_bytes_ex(k, 0) == czk_cuda_ntt_plan_bytes(k));
    CHECK_MSG(czk_cuda_ntt_plan_bytes_ex(k, 1) <= czk_cuda_ntt_plan_bytes(k), "compact 2^%u", k);
    CHECK_MSG(czk_cuda_ntt_plan_bytes_ex(k, 1) <= ((uint64_t)64 << 20), "compact 2^%u", k);
  }
  /* 2^27: tables of 2^18 pairs (exponents m 2^8) and of 2^13 + 2^14 pairs per direction, coset tables 2^14 + 2^13 */
  CHECK(czk_cuda_ntt_plan_bytes_ex(27, 1) == 2 * ((((uint64_t)1 << 18) + (1u << 13) + (1u << 14)) * 64 +
                                                  ((1u << 14) + (1u << 13)) * 32));
  CHECK(czk_cuda_ntt_plan_bytes_ex(0, 1) == 0 && czk_cuda_ntt_plan_bytes_ex(29, 1) == 0);
  czk_pool *pool = NULL;
  CHECK(czk_pool_new(&pool, 0) == CZK_OK);
  const unsigned big = 24;
  czk_cuda_ntt *pf = NULL, *pc = NULL, *ps = NULL;
  CHECK(czk_cuda_ntt_new_ex(&pf, big, CZK_ROOTS_BELLMAN, NULL, 0, NULL) == CZK_OK);
  CHECK(czk_cuda_ntt_new_ex(&pc, big, CZK_ROOTS_BELLMAN, NULL, 1, NULL) == CZK_OK);
  CHECK(czk_cuda_ntt_new_ex(&ps, 12, CZK_ROOTS_SNARKJS, NULL, 1, NULL) == CZK_OK);
  CHECK(czk_cuda_ntt_new_ex(NULL, 12, CZK_ROOTS_SNARKJS, NULL, 1, NULL) == CZK_ERR_INVALID_ARG);
  if (!pf || !pc || !ps) {
    czk_cuda_ntt_free(pf), czk_cuda_ntt_free(pc), czk_cuda_ntt_free(ps);
    czk_pool_free(pool);
    return;
  }
  CHECK(!czk_cuda_ntt_is_compact(pf) && czk_cuda_ntt_is_compact(pc) && czk_cuda_ntt_is_compact(ps));
  CHECK(czk_cuda_ntt_bytes(pf) == czk_cuda_ntt_plan_bytes(big));
  CHECK(czk_cuda_ntt_bytes(pc) == czk_cuda_ntt_plan_bytes_ex(big, 1));
  CHECK(czk_cuda_ntt_bytes(ps) == czk_cuda_ntt_plan_bytes_ex(12, 1));
  CHECK(czk_cuda_ntt_bytes(NULL) == 0);
  size_t nmax = (size_t)1 << big;
  czk_fr *x = malloc(nmax * sizeof(czk_fr)), *y = malloc(nmax * sizeof(czk_fr)), *z = malloc(nmax * sizeof(czk_fr));
  void *d = NULL;
  CHECK(czk_cuda_malloc(&d, nmax * sizeof(czk_fr)) == CZK_OK);
  CHECK(x && y && z && d);
  const unsigned logs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 24};
  for (int which = 0; which < 2 && x && y && z && d; which++) {
    czk_fr_roots roots = which ? CZK_ROOTS_SNARKJS : CZK_ROOTS_BELLMAN;
    for (size_t li = 0; li < CZK_ARRAY_LEN(logs); li++) {
      const unsigned L = logs[li];
      if (which && L > 12) continue;
      size_t n = (size_t)1 << L;
      for (size_t i = 0; i < n; i++) rand_fr(&x[i]);
      for (int dir = 0; dir < 4; dir++) {
        ntt_ref(y, x, L, dir, roots, pool);
        for (int pl = 0; pl < 2; pl++) { /* the full plan, then the compact one */
          czk_cuda_ntt *p = which ? (pl ? ps : NULL) : (pl ? pc : pf);
          if (!p) continue;
          CHECK(czk_cuda_memcpy_htod(d, x, n * sizeof(czk_fr), NULL) == CZK_OK);
          CHECK(czk_cuda_ntt_run(p, (czk_fr *)d, L, (czk_cuda_ntt_dir)dir, NULL) == CZK_OK);
          memset(z, 0xA5, n * sizeof(czk_fr));
          CHECK(czk_cuda_memcpy_dtoh(z, d, n * sizeof(czk_fr), NULL) == CZK_OK);
          CHECK(czk_cuda_stream_sync(NULL) == CZK_OK);
          CHECK_MSG(memcmp(y, z, n * sizeof(czk_fr)) == 0, "ntt %s plan 2^%u roots=%d log=%u dir=%d",
                    pl ? "compact" : "full", which ? 12u : big, (int)roots, L, dir);
        }
      }
    }
  }
  czk_cuda_free(d);
  czk_cuda_ntt_free(pf), czk_cuda_ntt_free(pc), czk_cuda_ntt_free(ps);

  /* the backend switch: off by default, plan bytes as set, plans made before it stay, H against the CPU */
  czk_backend *be = NULL, *cpu = NULL;
  CHECK(czk_backend_open(&be, "cuda:0", NULL) == CZK_OK);
  CHECK(czk_backend_open(&cpu, "cpu", NULL) == CZK_OK);
  if (cpu) {
    czk_backend_set_compact_tables(cpu, true);
    CHECK(!czk_backend_compact_tables(cpu));
  }
  CHECK(!czk_backend_compact_tables(NULL));
  const unsigned lg = 13;
  const size_t n = (size_t)1 << lg;
  if (be && x && y && z) {
    CHECK(!czk_backend_compact_tables(be));
    CHECK(czk_backend_h_plan_bytes(be, lg, CZK_H_BELLPERSON) == czk_cuda_ntt_plan_bytes(lg));
    CHECK(czk_backend_h_prepare(be, 10, CZK_H_BELLPERSON) == CZK_OK); /* a full plan, made before the switch */
    czk_backend_set_compact_tables(be, true);
    CHECK(czk_backend_compact_tables(be));
    CHECK(czk_backend_h_plan_bytes(be, lg, CZK_H_BELLPERSON) == czk_cuda_ntt_plan_bytes_ex(lg, 1));
    CHECK(czk_backend_h_plan_bytes(be, lg, CZK_H_SNARKJS) == czk_cuda_ntt_plan_bytes_ex(lg, 1));
    CHECK(czk_backend_h_plan_bytes(be, 10, CZK_H_BELLPERSON) == 0);
    CHECK(czk_backend_tables_bytes(be) == czk_cuda_ntt_plan_bytes(10));
    czk_fr *d3 = NULL;
    CHECK(czk_backend_alloc(be, (void **)&d3, 3 * n * sizeof(czk_fr)) == CZK_OK);
    for (int hk = 0; hk < 2 && d3; hk++) {
      czk_h_kind kind = hk ? CZK_H_SNARKJS : CZK_H_BELLPERSON;
      for (size_t i = 0; i < 3 * n; i++) rand_fr(&x[i]);
      memcpy(y, x, 3 * n * sizeof(czk_fr));
      czk_ntt_domain *dom = NULL;
      CHECK(czk_ntt_domain_new(&dom, lg, hk ? CZK_ROOTS_SNARKJS : CZK_ROOTS_BELLMAN, pool) == CZK_OK);
      if (dom) CHECK(czk_ntt_h(dom, kind, y, y + n, y + 2 * n, pool) == CZK_OK);
      czk_ntt_domain_free(dom);
      CHECK(czk_backend_copy_htod(be, d3, x, 3 * n * sizeof(czk_fr), NULL) == CZK_OK);
      CHECK(czk_backend_h(be, d3, d3 + n, d3 + 2 * n, lg, kind, NULL) == CZK_OK);
      CHECK(czk_backend_copy_dtoh(be, z, d3, n * sizeof(czk_fr), NULL) == CZK_OK);
      CHECK(czk_backend_stream_sync(be, NULL) == CZK_OK);
      CHECK_MSG(memcmp(y, z, n * sizeof(czk_fr)) == 0, "compact backend h mode %d 2^%u", hk, lg);
    }
    czk_backend_mem_free(be, d3);
    CHECK(czk_backend_h_plan_bytes(be, lg, CZK_H_BELLPERSON) == 0);
    CHECK(czk_backend_tables_bytes(be) == czk_cuda_ntt_plan_bytes(10) + 2 * czk_cuda_ntt_plan_bytes_ex(lg, 1));
    czk_backend_set_compact_tables(be, false);
    CHECK(!czk_backend_compact_tables(be));
    CHECK(czk_backend_h_plan_bytes(be, 14, CZK_H_BELLPERSON) == czk_cuda_ntt_plan_bytes(14));
  }
  czk_backend_free(be);
  czk_backend_free(cpu);
  czk_pool_free(pool);
  free(x), free(y), free(z);
}

/* Fixed-base batch multiplication of the generators (setup) against the CPU's constant-time multiplication: random
 * scalars, edge scalars (0 -> infinity, 1, 2, r - 1, 2^255-ish top byte patterns), more than one chunk when big. */
static void test_fixed_base(size_t n) {
  czk_fr *k = malloc(n * sizeof *k);
  czk_g1_affine *o1 = malloc(n * sizeof *o1);
  czk_g2_affine *o2 = malloc(n * sizeof *o2);
  for (size_t i = 0; i < n; i++) rand_fr(&k[i]);
  czk_fr_set_zero(&k[0]);
  if (n > 3) czk_fr_set_one(&k[1]), czk_fr_from_u64(&k[2], 2), czk_fr_neg(&k[3], &k[1]);
  if (n > 4) { /* every byte 0xff below the top: many table entries at 255 */
    uint64_t raw[4] = {~0ull, ~0ull, ~0ull, 0x0fffffffffffffffull};
    CHECK(czk_fr_from_raw(&k[4], raw) == CZK_OK);
  }
  CHECK(czk_cuda_fixed_base_g1(o1, k, n) == CZK_OK);
  CHECK(czk_cuda_fixed_base_g2(o2, k, n) == CZK_OK);
  czk_g1 g1, r1;
  czk_g2 g2, r2;
  czk_g1_generator(&g1);
  czk_g2_generator(&g2);
  size_t bad1 = 0, bad2 = 0, step = n > 5000 ? n / 2000 : 1;
  for (size_t i = 0; i < n; i += (i < 8 ? 1 : step)) {
    czk_g1_affine a1;
    czk_g2_affine a2;
    czk_g1_mul(&r1, &g1, &k[i]), czk_g1_to_affine(&a1, &r1);
    czk_g2_mul(&r2, &g2, &k[i]), czk_g2_to_affine(&a2, &r2);
    bad1 += !czk_g1_affine_eq(&a1, &o1[i]);
    bad2 += !czk_g2_affine_eq(&a2, &o2[i]);
  }
  CHECK(czk_g1_affine_is_infinity(&o1[0]));
  if (n > 1) CHECK(czk_g1_affine_is_infinity(&o1[n - 1]) == czk_fr_is_zero(&k[n - 1]));
  if (bad1 || bad2) fprintf(stderr, "fixed_base n=%zu: %zu G1, %zu G2 mismatches\n", n, bad1, bad2);
  CHECK(bad1 == 0 && bad2 == 0);
  free(k), free(o1), free(o2);
}

/* Compiled-circuit mat-vec (matvec_compiled.cu through the backend vtable) against its CPU twin czk_cc_matvec on a
 * random witness: every output row of A, B and C byte-identical. */
static void test_compiled_matvec(const char *label, czk_compiled *cc) {
  CHECK(cc != NULL);
  if (!cc) return;
  czk_backend *be = NULL;
  CHECK(czk_backend_open(&be, "cuda:0", NULL) == CZK_OK);
  if (!be) return;
  czk_backend_tseg *seg = calloc(cc->n_segments, sizeof *seg);
  for (uint32_t i = 0; i < cc->n_segments; i++) {
    const czk_cc_segment *g = &cc->seg[i];
    seg[i] = (czk_backend_tseg){g->row0, g->tmpl_row0, g->n_rows, g->reps, g->in_stride, g->aux_stride,
                                g->table_width, g->table_off};
  }
  czk_backend_compiled_desc d = {cc->n_segments, seg, cc->n_tmpl_rows, {NULL}, {NULL}, {NULL}, {0}, cc->n_coef,
                                 cc->coef, cc->one_index, cc->minus_one_index, cc->table_len, cc->table,
                                 cc->n_user_constraints};
  for (int k = 0; k < 3; k++)
    d.row_ptr[k] = cc->m[k].row_ptr, d.col[k] = cc->m[k].col, d.ref[k] = cc->m[k].ref, d.nnz[k] = cc->m[k].nnz;
  size_t nv = (size_t)cc->n_inputs + cc->n_aux, nr = cc->n_user_constraints;
  czk_fr *w = malloc(nv * sizeof(czk_fr)), *ref = malloc(3 * nr * sizeof(czk_fr)), *got = malloc(3 * nr * sizeof(czk_fr));
  for (size_t i = 0; i < nv; i++) rand_fr(&w[i]);
  CHECK(czk_cc_matvec(cc, w, ref, ref + nr, ref + 2 * nr, NULL) == CZK_OK);
  czk_backend_compiled *m = NULL;
  czk_fr *dw = NULL, *dabc = NULL;
  CHECK(czk_backend_compiled_upload(be, &m, &d, NULL) == CZK_OK);
  CHECK(czk_backend_alloc(be, (void **)&dw, nv * sizeof(czk_fr)) == CZK_OK);
  CHECK(czk_backend_alloc(be, (void **)&dabc, 3 * nr * sizeof(czk_fr)) == CZK_OK);
  if (m && dw && dabc) {
    CHECK(czk_backend_copy_htod(be, dw, w, nv * sizeof(czk_fr), NULL) == CZK_OK);
    CHECK(czk_backend_stream_sync(be, NULL) == CZK_OK);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(czk_backend_compiled_matvec(be, dabc, dabc + nr, dabc + 2 * nr, m, dw, NULL) == CZK_OK);
    CHECK(czk_backend_stream_sync(be, NULL) == CZK_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(czk_backend_copy_dtoh(be, got, dabc, 3 * nr * sizeof(czk_fr), NULL) == CZK_OK);
    CHECK(czk_backend_stream_sync(be, NULL) == CZK_OK);
    size_t bad = 0;
    for (size_t i = 0; i < 3 * nr; i++) bad += !czk_fr_eq(&got[i], &ref[i]);
    CHECK_MSG(bad == 0, "%s: %zu of %zu GPU mat-vec outputs differ", label, bad, 3 * nr);
    fprintf(stderr, "compiled matvec %s: %zu rows, %.3f ms on the GPU\n", label, nr,
            1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec));
    /* the check storing a and b in its pass (c computed, not stored): the same a and b, c untouched, and the random
     * witness fails the check; the check alone stores nothing */
    uint32_t *dflag = NULL, flag = 0;
    CHECK(czk_backend_alloc(be, (void **)&dflag, 256) == CZK_OK);
    memset(got, 0x5a, 3 * nr * sizeof(czk_fr));
    CHECK(czk_backend_copy_htod(be, dabc, got, 3 * nr * sizeof(czk_fr), NULL) == CZK_OK);
    CHECK(czk_backend_compiled_check_store(be, m, dw, nr, dflag, dabc, dabc + nr, NULL, NULL) == CZK_OK);
    CHECK(czk_backend_copy_dtoh(be, got, dabc, 3 * nr * sizeof(czk_fr), NULL) == CZK_OK);
    CHECK(czk_backend_copy_dtoh(be, &flag, dflag, sizeof flag, NULL) == CZK_OK);
    CHECK(czk_backend_stream_sync(be, NULL) == CZK_OK);
    size_t bad2 = 0, touched = 0;
    for (size_t i = 0; i < 2 * nr; i++) bad2 += !czk_fr_eq(&got[i], &ref[i]);
    for (size_t i = 2 * nr * sizeof(czk_fr); i < 3 * nr * sizeof(czk_fr); i++) touched += ((uint8_t *)got)[i] != 0x5a;
    CHECK_MSG(bad2 == 0 && touched == 0 && flag == 1, "%s: check+store: %zu of %zu a/b outputs differ, %zu c bytes "
              "written, flag %u (want 0, 0, 1)", label, bad2, 2 * nr, touched, flag);
    /* rows past n_check are stored all the same (half checked; none checked: no failure to report) */
    const uint64_t nchk[2] = {nr / 2, 0};
    for (int ci = 0; ci < 2; ci++) {
      memset(got, 0x5a, 3 * nr * sizeof(czk_fr));
      CHECK(czk_backend_copy_htod(be, dabc, got, 3 * nr * sizeof(czk_fr), NULL) == CZK_OK);
      CHECK(czk_backend_compiled_check_store(be, m, dw, nchk[ci], dflag, NULL, dabc + nr, dabc + 2 * nr, NULL) ==
            CZK_OK);
      CHECK(czk_backend_copy_dtoh(be, got, dabc, 3 * nr * sizeof(czk_fr), NULL) == CZK_OK);
      CHECK(czk_backend_copy_dtoh(be, &flag, dflag, sizeof flag, NULL) == CZK_OK);
      CHECK(czk_backend_stream_sync(be, NULL) == CZK_OK);
      bad2 = 0, touched = 0;
      for (size_t i = nr; i < 3 * nr; i++) bad2 += !czk_fr_eq(&got[i], &ref[i]);
      for (size_t i = 0; i < nr * sizeof(czk_fr); i++) touched += ((uint8_t *)got)[i] != 0x5a;
      CHECK_MSG(bad2 == 0 && touched == 0 && flag == (nchk[ci] > 0 ? 1u : 0u),
                "%s: check+store of b, c with n_check %llu: %zu outputs differ, %zu a bytes written, flag %u", label,
                (unsigned long long)nchk[ci], bad2, touched, flag);
    }
    memset(got, 0x5a, 3 * nr * sizeof(czk_fr));
    CHECK(czk_backend_copy_htod(be, dabc, got, 3 * nr * sizeof(czk_fr), NULL) == CZK_OK);
    CHECK(czk_backend_compiled_check(be, m, dw, nr, dflag, NULL) == CZK_OK);
    CHECK(czk_backend_copy_dtoh(be, got, dabc, 3 * nr * sizeof(czk_fr), NULL) == CZK_OK);
    CHECK(czk_backend_copy_dtoh(be, &flag, dflag, sizeof flag, NULL) == CZK_OK);
    CHECK(czk_backend_stream_sync(be, NULL) == CZK_OK);
    touched = 0;
    for (size_t i = 0; i < 3 * nr * sizeof(czk_fr); i++) touched += ((uint8_t *)got)[i] != 0x5a;
    CHECK_MSG(touched == 0 && flag == 1, "%s: check alone: %zu bytes written, flag %u", label, touched, flag);
    czk_backend_mem_free(be, dflag);
  }
  czk_backend_mem_free(be, dw);
  czk_backend_mem_free(be, dabc);
  czk_backend_compiled_free(be, m);
  czk_backend_free(be);
  free(w), free(ref), free(got), free(seg);
  czk_cc_free(cc);
}

static void test_compiled(void) {
  czk_compiled *cc;
  const czk_porep_info *pi[2] = {czk_porep_info_for_size(2048), czk_porep_info_for_size(8u << 20)};
  for (int i = 0; i < 2; i++) {
    czk_porep_circuit c;
    czk_porep_circuit_of(pi[i], &c);
    cc = NULL;
    CHECK(czk_porep_compile(&c, czk_porep_circuit_id(pi[i]), &cc) == CZK_OK);
    test_compiled_matvec(pi[i]->name, cc);
  }
  cc = NULL;
  CHECK(czk_post_compile(czk_post_info_by_wire(5), &cc) == CZK_OK); /* WindowPoSt 2 KiB: an empty top segment */
  test_compiled_matvec("window-post 2KiB", cc);
  cc = NULL;
  CHECK(czk_snap_compile(czk_snap_info_for_size(2048), &cc) == CZK_OK); /* TABLE columns */
  test_compiled_matvec("snap 2KiB", cc);
}

int main(void) {
  int ndev = 0;
  if (czk_cuda_device_count(&ndev) != CZK_OK || ndev == 0) {
    fprintf(stderr, "test_cuda: no CUDA device, skipping\n");
    return 77;
  }
  char desc[200];
  if (czk_cuda_device_describe(0, desc, sizeof desc) == CZK_OK) fprintf(stderr, "test_cuda: %s\n", desc);
  czk_test_rng_seed(&rng, 20240611);
  test_ref_sanity();
  test_field();
  test_msm_g1(1, 0, NULL, 0);
  test_msm_g1(7, 0, NULL, 0);
  test_msm_g1(3000, 0, NULL, 0);
  test_msm_g1(3000, 0, "5", CZK_CUDA_SCALARS_DEVICE);
  test_msm_g1(3000, 0, "13", CZK_CUDA_SCALARS_MONT);
  test_msm_g1(3000, 0, "16", CZK_CUDA_SCALARS_MONT | CZK_CUDA_SCALARS_DEVICE);
  test_msm_g1(3000, 1, NULL, 0); /* every digit in one bucket per window */
  setenv("CZK_CUDA_MSM_CHUNK", "4", 1); /* many accumulation levels */
  test_msm_g1(4096, 0, "6", 0);
  test_msm_g1(2000, 1, NULL, 0);
  unsetenv("CZK_CUDA_MSM_CHUNK");
  /* runs larger than the largest pass go in chunks whose results are added: 200,000 points in 2^16 chunks (the last
   * one 3,392 points, its own window), scalars on the host, on the device, in Montgomery form */
  setenv("CZK_CUDA_MSM_MAX_CHUNK", "65536", 1);
  test_msm_g1(200000, 0, NULL, 0);
  test_msm_g1(200000, 0, NULL, CZK_CUDA_SCALARS_MONT | CZK_CUDA_SCALARS_DEVICE);
  test_msm_g1(131072, 1, NULL, 0);
  test_msm_g2(70000, 0, NULL);
  unsetenv("CZK_CUDA_MSM_MAX_CHUNK");
  /* 0/1-aware runs (witness vectors): zeros skipped, ones one pair each, others digits; forced at small sizes, natural
   * from 2^16 on; chunked; Montgomery and device scalars; all-zero and all-one vectors */
  setenv("CZK_CUDA_MSM_SPARSE", "1", 1);
  test_msm_g1(3000, 2, NULL, 0);
  test_msm_g1(3000, 2, "7", CZK_CUDA_SCALARS_MONT | CZK_CUDA_SCALARS_DEVICE);
  test_msm_g1(500, 3, NULL, 0);
  test_msm_g1(500, 4, NULL, CZK_CUDA_SCALARS_MONT);
  test_msm_g2(400, 2, NULL);
  unsetenv("CZK_CUDA_MSM_SPARSE");
  test_msm_g1(150000, 2, NULL, 0);
  /* the scratch plan: sparse and dense handles, natural size and chunked (2^16 chunks: several dense passes, the ones'
   * passes of up to 2^19) */
  test_msm_plan(150000, 2, 0);
  test_msm_plan(150000, 0, 1);
  setenv("CZK_CUDA_MSM_MAX_CHUNK", "65536", 1);
  test_msm_plan(300000, 2, 0);
  test_msm_plan(300000, 0, 1);
  test_msm_plan(300000, 0, 0);
  test_msm_g1(300000, 2, NULL, CZK_CUDA_SCALARS_MONT);
  test_msm_g1(600000, 4, NULL, 0); /* ones in 8-chunk passes */
  test_msm_g2(100000, 2, NULL);
  unsetenv("CZK_CUDA_MSM_MAX_CHUNK");
  test_msm_g2(300, 0, NULL);
  test_msm_g2(300, 1, "7");
  unsetenv("CZK_CUDA_MSM_WINDOW");
  /* series: a query run in chunks through two handles, one window and one bucket reduction for all of it; dense and
   * 0/1-aware (natural from 2^16 points a run, forced below), G1 and G2, a last chunk shorter than the others, the
   * scratch reserved for one chunk and never grown; passes of 2^14 inside chunks of 50,000 */
  test_msm_series(1, 300000, 65536, 0, 1);
  test_msm_series(1, 300000, 65536, 2, 0);
  test_msm_series(1, 300000, 65536, 5, 0);
  test_msm_series(1, 200000, 65536, 3, 0);
  test_msm_series(1, 200000, 65536, 4, 0);
  test_msm_series(2, 140000, 65536, 2, 0);
  test_msm_series(2, 140000, 65536, 0, 1);
  setenv("CZK_CUDA_MSM_SPARSE", "1", 1);
  test_msm_series(1, 20000, 3000, 2, 0);
  test_msm_series(1, 20000, 3000, 5, 0);
  test_msm_series(1, 20000, 3000, 6, 0); /* the first chunk all zero: the width chosen by the second */
  test_msm_series(1, 20000, 3000, 3, 0); /* all zero: infinity without a pass */
  test_msm_series(2, 5000, 1200, 2, 0);
  test_msm_series_mixed(9000, 3000);
  unsetenv("CZK_CUDA_MSM_SPARSE");
  test_msm_series_mixed(140000, 1 << 17); /* natural sizes: 0/1-aware from 2^16 points a run (G2 chunks of 2^16) */
  setenv("CZK_CUDA_MSM_MAX_CHUNK", "16384", 1);
  test_msm_series(1, 150000, 50000, 0, 1);
  test_msm_series(1, 150000, 50000, 2, 0);
  test_msm_series(2, 60000, 50000, 2, 0);
  unsetenv("CZK_CUDA_MSM_MAX_CHUNK");
  /* packed streaming: sizes around the 1024-scalar blocks, G1 and G2 points, aligned and not, direct and indexed,
   * no zeros, half zeros, all zeros */
  test_pack_nonzero(1, 96, 128, false, 0);
  test_pack_nonzero(1023, 96, 128, false, 0);
  test_pack_nonzero(1025, 192, 128, true, 0);
  test_pack_nonzero(5000, 96, 0, false, 4);
  test_pack_nonzero(5000, 192, 200, true, 4);
  test_pack_nonzero(70001, 96, 256, false, 0);
  test_pack_nonzero((1u << 20) + 3, 96, 128, true, 0);
  test_pack_nonzero((1u << 21) + 1000, 192, 60, false, 0); /* several blocks per scan thread */
  test_pack_unregistered();
  test_ntt(CZK_ROOTS_BELLMAN);
  test_ntt(CZK_ROOTS_SNARKJS);
  test_ntt_compact();
  test_fixed_base(1);
  test_fixed_base(1000);
  test_fixed_base((1u << 22) + 12345); /* two chunks, the second short and not a multiple of the batch of 8 */
  test_compiled();
  return czk_test_done("test_cuda");
}
#endif
