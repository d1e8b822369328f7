/* test_backend.c: cross-backend tests. Every operation of every backend under test (argv[1] = "cpu": the CPU backend;
 * "gpu": every CUDA backend, exit 77 when there is none) is run on seeded random inputs and compared with the CPU
 * library called directly (czk_msm_*, czk_ntt_*, a naive mat-vec): MSM G1/G2 (random points, zero scalars, scalar
 * r-1, repeated points, points at infinity, n = 1 .. 2^20 on the GPU), NTT in all four directions and both root
 * conventions (2^0 .. 2^20 on the GPU), the H computation, CSR mat-vec, copies/events; device enumeration with
 * exclude lists; gathers; packing a chunk's non-zero points from registered host memory; the packed witness upload (host packing, its limits and damage refused, unpacking by the
 * backend at sizes off the chunk grid); on the GPU finally a sticky fault: the backend is quarantined (CZK_ERR_DEVICE) and the CPU backend still works. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "czk/backend.h"
#include "czk/msm.h"
#include "czk/ntt.h"
#include "czk_test.h"

#ifdef CZK_HAVE_CUDA
#include "czk/cuda.h"
#endif

static czk_test_rng rng;
static bool gpu_mode;

static void rand_fr(czk_fr *r) {
  uint64_t raw[4];
  czk_test_rng_bytes(&rng, raw, sizeof raw);
  raw[3] &= 0x0fffffffffffffffULL; /* < r */
  CHECK(czk_fr_from_raw(r, raw) == CZK_OK);
}

/* n distinct-ish affine points: P_0 = k G, P_i = P_{i-1} + Q (Jacobian adds, one batch normalization). */
static void rand_g1(czk_g1_affine *out, size_t n) {
  czk_g1 *j = malloc(n * sizeof *j), g, q;
  czk_fr k;
  czk_g1_generator(&g);
  rand_fr(&k);
  czk_g1_mul_vartime(&j[0], &g, &k);
  rand_fr(&k);
  czk_g1_mul_vartime(&q, &g, &k);
  for (size_t i = 1; i < n; i++) czk_g1_add(&j[i], &j[i - 1], &q);
  CHECK(czk_g1_batch_to_affine(out, j, n) == CZK_OK);
  free(j);
}
static void rand_g2(czk_g2_affine *out, size_t n) {
  czk_g2 *j = malloc(n * sizeof *j), g, q;
  czk_fr k;
  czk_g2_generator(&g);
  rand_fr(&k);
  czk_g2_mul_vartime(&j[0], &g, &k);
  rand_fr(&k);
  czk_g2_mul_vartime(&q, &g, &k);
  for (size_t i = 1; i < n; i++) czk_g2_add(&j[i], &j[i - 1], &q);
  CHECK(czk_g2_batch_to_affine(out, j, n) == CZK_OK);
  free(j);
}

/* Scalars with edge cases: zeros, one, r-1; bases with repeats, opposites and infinity. */
static void edge_cases(czk_fr *k, void *bases, size_t esz, size_t n) {
  if (n < 8) return;
  memset(&k[0], 0, sizeof k[0]);
  k[1] = czk_fr_one_v;
  czk_fr_sub(&k[2], &czk_fr_zero_v, &czk_fr_one_v);
  memset(&k[n - 1], 0, sizeof k[0]);
  uint8_t *b = bases;
  memcpy(b + 3 * esz, b + 4 * esz, esz);         /* repeated point */
  memset(b + 5 * esz, 0, esz);                    /* infinity */
  memcpy(b + (n - 2) * esz, b + 6 * esz, esz);    /* repeat far apart */
  k[6] = k[n - 2];                                /* ... with the same scalar */
}

static void test_enumerate(void) {
  czk_backend **list = NULL;
  size_t n = 0;
  CHECK(czk_backend_enumerate(&list, &n, NULL, 0) == CZK_OK);
  CHECK(n >= 1);
  if (n >= 1) CHECK(strcmp(czk_backend_name(list[0]), "cpu") == 0);
  size_t ngpu = n - 1;
  for (size_t i = 0; i < n; i++) czk_backend_free(list[i]);
  free(list);
  const char *ex_cpu[] = {"cpu"};
  CHECK(czk_backend_enumerate(&list, &n, ex_cpu, 1) == CZK_OK);
  CHECK_EQ_INT(n, ngpu);
  for (size_t i = 0; i < n; i++) {
    CHECK(czk_backend_get_kind(list[i]) == CZK_BACKEND_CUDA);
    czk_backend_free(list[i]);
  }
  free(list);
  const char *ex_gpu[] = {"cuda", "nonexistent"};
  CHECK(czk_backend_enumerate(&list, &n, ex_gpu, 2) == CZK_OK);
  CHECK_EQ_INT(n, 1);
  for (size_t i = 0; i < n; i++) czk_backend_free(list[i]);
  free(list);
  if (ngpu) {
    const char *ex0[] = {"cuda:0"};
    CHECK(czk_backend_enumerate(&list, &n, ex0, 1) == CZK_OK);
    CHECK_EQ_INT(n, ngpu);
    for (size_t i = 0; i < n; i++) {
      CHECK(strcmp(czk_backend_name(list[i]), "cuda:0") != 0);
      czk_backend_free(list[i]);
    }
    free(list);
  }
  czk_backend *be = NULL;
  CHECK(czk_backend_open(&be, "cuda:4096", NULL) != CZK_OK);
  CHECK(be == NULL);
  CHECK(czk_backend_open(&be, "tpu", NULL) == CZK_ERR_INVALID_ARG);
}

static void test_memory(czk_backend *be) {
  czk_backend_props pr;
  CHECK(czk_backend_get_props(be, &pr) == CZK_OK);
  CHECK(strcmp(pr.name, czk_backend_name(be)) == 0);
  fprintf(stderr, "  %s: %s, mem %.1f GiB\n", pr.name, pr.description, (double)pr.mem_total / (1 << 30));
  size_t n = 1 << 16;
  uint8_t *h = NULL, *h2 = NULL;
  void *d = NULL;
  CHECK(czk_backend_host_alloc(be, (void **)&h, n) == CZK_OK);
  CHECK(czk_backend_host_alloc(be, (void **)&h2, n) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d, n) == CZK_OK);
  czk_backend_stream *s = NULL;
  czk_backend_event *e0 = NULL, *e1 = NULL;
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  CHECK(czk_backend_event_new(be, &e0) == CZK_OK);
  CHECK(czk_backend_event_new(be, &e1) == CZK_OK);
  if (h && h2 && d && s && e0 && e1) {
    czk_test_rng_bytes(&rng, h, n);
    memset(h2, 0xA5, n);
    CHECK(czk_backend_event_record(be, e0, s) == CZK_OK);
    CHECK(czk_backend_copy_htod(be, d, h, n, s) == CZK_OK);
    CHECK(czk_backend_copy_dtoh(be, h2, d, n, s) == CZK_OK);
    CHECK(czk_backend_event_record(be, e1, s) == CZK_OK);
    CHECK(czk_backend_event_sync(be, e1) == CZK_OK);
    float ms = -1;
    CHECK(czk_backend_event_elapsed(be, &ms, e0, e1) == CZK_OK);
    CHECK(ms >= 0);
    CHECK(memcmp(h, h2, n) == 0);
  }
  CHECK(czk_backend_copy_htod(be, NULL, h, 1, s) == CZK_ERR_INVALID_ARG);
  czk_backend_event_free(be, e0);
  czk_backend_event_free(be, e1);
  czk_backend_stream_free(be, s);
  czk_backend_mem_free(be, d);
  czk_backend_host_free(be, h);
  czk_backend_host_free(be, h2);
}

/* Streams of the three priorities (plain, raised, urgent) each carry work in order, and events order them. */
static void test_stream_levels(czk_backend *be) {
  czk_status (*const mk[3])(czk_backend *, czk_backend_stream **) = {
      czk_backend_stream_new, czk_backend_stream_new_raised, czk_backend_stream_new_urgent};
  const size_t n = 1 << 14;
  uint8_t *h = NULL, *h2 = NULL;
  void *d = NULL;
  czk_backend_stream *s[3] = {NULL, NULL, NULL};
  czk_backend_event *ev[3] = {NULL, NULL, NULL};
  CHECK(czk_backend_host_alloc(be, (void **)&h, 3 * n) == CZK_OK);
  CHECK(czk_backend_host_alloc(be, (void **)&h2, 3 * n) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d, 3 * n) == CZK_OK);
  CHECK(czk_backend_stream_new_raised(be, NULL) == CZK_ERR_INVALID_ARG);
  for (int k = 0; k < 3; k++) {
    CHECK(mk[k](be, &s[k]) == CZK_OK);
    CHECK(czk_backend_event_new(be, &ev[k]) == CZK_OK);
  }
  if (h && h2 && d && s[0] && s[1] && s[2] && ev[0] && ev[1] && ev[2]) {
    for (size_t i = 0; i < 3 * n; i++) h[i] = (uint8_t)(i * 7 + 1);
    memset(h2, 0, 3 * n);
    /* plain -> raised -> urgent, each waiting for the one before: the device copy of each third passes along */
    for (int k = 0; k < 3; k++) {
      if (k) CHECK(czk_backend_stream_wait(be, s[k], ev[k - 1]) == CZK_OK);
      CHECK(czk_backend_copy_htod(be, (uint8_t *)d + (size_t)k * n, h + (size_t)k * n, n, s[k]) == CZK_OK);
      CHECK(czk_backend_event_record(be, ev[k], s[k]) == CZK_OK);
    }
    CHECK(czk_backend_copy_dtoh(be, h2, d, 3 * n, s[2]) == CZK_OK);
    CHECK(czk_backend_stream_sync(be, s[2]) == CZK_OK);
    CHECK(memcmp(h, h2, 3 * n) == 0);
  }
  for (int k = 0; k < 3; k++) {
    czk_backend_event_free(be, ev[k]);
    czk_backend_stream_free(be, s[k]);
  }
  czk_backend_mem_free(be, d);
  czk_backend_host_free(be, h);
  czk_backend_host_free(be, h2);
}

static void test_msm(czk_backend *be, size_t max_log1, size_t max_log2) {
  czk_backend_stream *s = NULL;
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  for (int g = 1; g <= 2; g++) {
    size_t maxn = (size_t)1 << (g == 1 ? max_log1 : max_log2);
    size_t esz = g == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    void *bases = malloc(maxn * esz);
    czk_fr *k = malloc(maxn * sizeof *k);
    if (g == 1) rand_g1(bases, maxn);
    else rand_g2(bases, maxn);
    void *db = NULL, *dk = NULL;
    CHECK(czk_backend_alloc(be, &db, maxn * esz) == CZK_OK);
    CHECK(czk_backend_alloc(be, &dk, maxn * sizeof(czk_fr)) == CZK_OK);
    const size_t sizes[] = {1, 2, 3, 9, 100, 1000, 1 << 12, 5000, 1 << 16, 1 << 18, 1 << 20};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
      size_t n = sizes[si];
      if (n > maxn) break;
      for (size_t i = 0; i < n; i++) rand_fr(&k[i]);
      edge_cases(k, bases, esz, n);
      if (si == 3) memset(k, 0, n * sizeof *k); /* all zero */
      CHECK(czk_backend_copy_htod(be, db, bases, n * esz, s) == CZK_OK);
      CHECK(czk_backend_copy_htod(be, dk, k, n * sizeof *k, s) == CZK_OK);
      if (g == 1) {
        czk_g1 got, want;
        CHECK(czk_backend_msm_g1(be, &got, db, dk, n, s) == CZK_OK);
        CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
        CHECK(czk_msm_g1(&want, bases, k, n, 0, NULL, NULL, NULL) == CZK_OK);
        CHECK_MSG(czk_g1_eq(&got, &want), "%s msm g1 n=%zu", czk_backend_name(be), n);
      } else {
        czk_g2 got, want;
        CHECK(czk_backend_msm_g2(be, &got, db, dk, n, s) == CZK_OK);
        CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
        CHECK(czk_msm_g2(&want, bases, k, n, 0, NULL, NULL, NULL) == CZK_OK);
        CHECK_MSG(czk_g2_eq(&got, &want), "%s msm g2 n=%zu", czk_backend_name(be), n);
      }
    }
    czk_g1 z;
    CHECK(czk_backend_msm_g1(be, &z, NULL, NULL, 0, s) == CZK_OK);
    CHECK(czk_g1_is_infinity(&z));
    czk_backend_mem_free(be, db);
    czk_backend_mem_free(be, dk);
    free(bases);
    free(k);
  }
  czk_backend_stream_free(be, s);
}

static czk_status cpu_ref_ntt(czk_fr *v, unsigned log_n, czk_fr_roots roots, int dir) {
  czk_ntt_domain *d;
  CZK_TRY(czk_ntt_domain_new(&d, log_n, roots, NULL));
  czk_fr g;
  czk_fr_coset_generator(&g);
  czk_status st = dir == 0 ? czk_ntt_forward(d, v, NULL)
                  : dir == 1 ? czk_ntt_inverse(d, v, NULL)
                  : dir == 2 ? czk_ntt_coset_forward(d, v, &g, NULL)
                             : czk_ntt_coset_inverse(d, v, &g, NULL);
  czk_ntt_domain_free(d);
  return st;
}

static void test_ntt(czk_backend *be, unsigned max_log) {
  czk_backend_stream *s = NULL;
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  size_t maxn = (size_t)1 << max_log;
  czk_fr *x = malloc(maxn * sizeof *x), *want = malloc(maxn * sizeof *x), *got = malloc(maxn * sizeof *x);
  czk_fr *c = malloc(maxn * sizeof *x), *b2 = malloc(maxn * sizeof *x), *c2 = malloc(maxn * sizeof *x);
  void *d = NULL, *d2 = NULL, *d3 = NULL;
  CHECK(czk_backend_alloc(be, &d, maxn * sizeof *x) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d2, maxn * sizeof *x) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d3, maxn * sizeof *x) == CZK_OK);
  for (unsigned lg = 0; lg <= max_log; lg += (lg < 12 ? 1 : 4)) {
    size_t n = (size_t)1 << lg;
    for (int roots = 0; roots < 2; roots++)
      for (int dir = 0; dir < 4; dir++) {
        for (size_t i = 0; i < n; i++) rand_fr(&x[i]);
        memcpy(want, x, n * sizeof *x);
        CHECK(cpu_ref_ntt(want, lg, (czk_fr_roots)roots, dir) == CZK_OK);
        CHECK(czk_backend_copy_htod(be, d, x, n * sizeof *x, s) == CZK_OK);
        CHECK(czk_backend_ntt(be, d, lg, (czk_fr_roots)roots, (czk_backend_ntt_dir)dir, s) == CZK_OK);
        memset(got, 0xA5, n * sizeof *x);
        CHECK(czk_backend_copy_dtoh(be, got, d, n * sizeof *x, s) == CZK_OK);
        CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
        CHECK_MSG(memcmp(got, want, n * sizeof *x) == 0, "%s ntt 2^%u roots %d dir %d", czk_backend_name(be), lg,
                  roots, dir);
      }
    /* H (both modes) vs czk_ntt_h on a satisfied instance (a*b = c on the domain) */
    for (int hk = 0; hk < 2 && lg >= 1; hk++) {
      czk_h_kind kind = hk ? CZK_H_SNARKJS : CZK_H_BELLPERSON;
      for (size_t i = 0; i < n; i++) {
        rand_fr(&x[i]);
        rand_fr(&b2[i]);
        czk_fr_mul(&c[i], &x[i], &b2[i]);
      }
      memcpy(want, x, n * sizeof *x);
      memcpy(c2, c, n * sizeof *x);
      czk_fr *bb = malloc(n * sizeof *x);
      memcpy(bb, b2, n * sizeof *x);
      czk_ntt_domain *dom;
      CHECK(czk_ntt_domain_new(&dom, lg, hk ? CZK_ROOTS_SNARKJS : CZK_ROOTS_BELLMAN, NULL) == CZK_OK);
      CHECK(czk_ntt_h(dom, kind, want, bb, c2, NULL) == CZK_OK);
      czk_ntt_domain_free(dom);
      free(bb);
      CHECK(czk_backend_copy_htod(be, d, x, n * sizeof *x, s) == CZK_OK);
      CHECK(czk_backend_copy_htod(be, d2, b2, n * sizeof *x, s) == CZK_OK);
      CHECK(czk_backend_copy_htod(be, d3, c, n * sizeof *x, s) == CZK_OK);
      CHECK(czk_backend_h(be, d, d2, d3, lg, kind, s) == CZK_OK);
      CHECK(czk_backend_copy_dtoh(be, got, d, n * sizeof *x, s) == CZK_OK);
      CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
      CHECK_MSG(memcmp(got, want, n * sizeof *x) == 0, "%s h mode %d 2^%u", czk_backend_name(be), hk, lg);
      if (!hk) CHECK(czk_fr_is_zero(&got[n - 1])); /* degree < n-1 for a satisfied instance */
    }
  }
  czk_backend_mem_free(be, d);
  czk_backend_mem_free(be, d2);
  czk_backend_mem_free(be, d3);
  free(x), free(want), free(got), free(c), free(b2), free(c2);
  czk_backend_stream_free(be, s);
}

static void test_matvec(czk_backend *be, size_t rows, size_t cols) {
  struct {
    uint64_t *row_ptr;
    uint32_t *col;
    czk_fr *val;
    size_t nnz;
  } m;
  m.row_ptr = malloc((rows + 1) * sizeof *m.row_ptr);
  size_t cap = rows * 8 + 200;
  m.col = malloc(cap * sizeof *m.col);
  m.val = malloc(cap * sizeof *m.val);
  size_t nnz = 0;
  for (size_t j = 0; j < rows; j++) {
    m.row_ptr[j] = nnz;
    size_t len = j == 7 ? 150 : czk_test_rng_next(&rng) % 6; /* empty rows, one long row */
    size_t c = czk_test_rng_next(&rng) % 4;
    for (size_t t = 0; t < len && c < cols && nnz < cap; t++) {
      m.col[nnz] = (uint32_t)c;
      rand_fr(&m.val[nnz++]);
      c += 1 + czk_test_rng_next(&rng) % 3;
    }
  }
  m.row_ptr[rows] = m.nnz = nnz;
  czk_fr *w = malloc(cols * sizeof *w), *want = malloc(rows * sizeof *w), *got = malloc(rows * sizeof *w);
  for (size_t i = 0; i < cols; i++) rand_fr(&w[i]);
  for (size_t j = 0; j < rows; j++) {
    want[j] = czk_fr_zero_v;
    for (uint64_t k = m.row_ptr[j]; k < m.row_ptr[j + 1]; k++) {
      czk_fr t;
      czk_fr_mul(&t, &m.val[k], &w[m.col[k]]);
      czk_fr_add(&want[j], &want[j], &t);
    }
  }
  czk_backend_stream *s = NULL;
  czk_backend_csr *dm = NULL;
  void *dw = NULL, *dout = NULL;
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  CHECK(czk_backend_csr_upload(be, &dm, m.row_ptr, m.col, m.val, rows, s) == CZK_OK);
  CHECK(czk_backend_alloc(be, &dw, cols * sizeof *w) == CZK_OK);
  CHECK(czk_backend_alloc(be, &dout, rows * sizeof *w) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, dw, w, cols * sizeof *w, s) == CZK_OK);
  CHECK(czk_backend_matvec(be, dout, dm, dw, s) == CZK_OK);
  memset(got, 0xA5, rows * sizeof *w);
  CHECK(czk_backend_copy_dtoh(be, got, dout, rows * sizeof *w, s) == CZK_OK);
  CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
  CHECK_MSG(memcmp(got, want, rows * sizeof *w) == 0, "%s matvec rows=%zu", czk_backend_name(be), rows);
  czk_backend_csr_free(be, dm);
  czk_backend_mem_free(be, dw);
  czk_backend_mem_free(be, dout);
  czk_backend_stream_free(be, s);
  free(m.row_ptr), free(m.col), free(m.val), free(w), free(want), free(got);
}

static void test_gather(czk_backend *be, size_t n_in, size_t n) {
  czk_fr *in = malloc(n_in * sizeof *in), *got = malloc(n * sizeof *in);
  uint32_t *idx = malloc(n * sizeof *idx);
  for (size_t i = 0; i < n_in; i++) rand_fr(&in[i]);
  for (size_t j = 0; j < n; j++) idx[j] = (uint32_t)(czk_test_rng_next(&rng) % n_in);
  czk_backend_stream *s = NULL;
  void *d_in = NULL, *d_out = NULL, *d_idx = NULL;
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_in, n_in * sizeof *in) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_out, n * sizeof *in) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_idx, n * sizeof *idx) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, d_in, in, n_in * sizeof *in, s) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, d_idx, idx, n * sizeof *idx, s) == CZK_OK);
  CHECK(czk_backend_gather(be, d_out, d_in, d_idx, n, s) == CZK_OK);
  CHECK(czk_backend_copy_dtoh(be, got, d_out, n * sizeof *in, s) == CZK_OK);
  CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
  bool ok = true;
  for (size_t j = 0; j < n; j++) ok = ok && czk_fr_eq(&got[j], &in[idx[j]]);
  CHECK_MSG(ok, "%s gather n=%zu", czk_backend_name(be), n);
  czk_backend_mem_free(be, d_in);
  czk_backend_mem_free(be, d_out);
  czk_backend_mem_free(be, d_idx);
  czk_backend_stream_free(be, s);
  free(in), free(got), free(idx);
}

static void mixed_witness(czk_fr *w, size_t n, unsigned zero_pct, unsigned one_pct);
/* czk_backend_pack_nonzero: a chunk's non-zero points packed from host memory registered with the backend (the CPU
 * backend: any host memory), direct and through an index list, G1- and G2-sized points; equal to the loop, the tail
 * of the scalars zero, the bytes counted; unregistered memory refused on a GPU (the prover then copies the chunk;
 * test_prover's compact proofs, packed and not, are the same bytes). */
static void test_pack(czk_backend *be, size_t n, size_t bsz, bool with_idx) {
  const size_t nw = with_idx ? n + 17 : n;
  czk_fr *w = malloc(nw * sizeof *w), *so = malloc(n * sizeof *w);
  uint32_t *idx = malloc(n * sizeof *idx);
  uint8_t *hb = malloc(n * bsz), *bo = malloc(n * bsz);
  mixed_witness(w, nw, 51, 47);
  for (size_t j = 0; j < n; j++) idx[j] = (uint32_t)(czk_test_rng_next(&rng) % nw);
  czk_test_rng_bytes(&rng, hb, n * bsz);
  const bool host = czk_backend_host_memory(be);
  if (!host) CHECK(czk_backend_host_register(be, hb, n * bsz) == CZK_OK);
  czk_backend_stream *s = NULL;
  void *d_w = NULL, *d_idx = NULL, *d_bo = NULL, *d_so = NULL, *d_tmp = NULL, *d_cnt = NULL;
  const size_t tmp = czk_backend_pack_nonzero_tmp(be, n);
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_w, nw * sizeof *w) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_idx, n * sizeof *idx) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_bo, n * bsz) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_so, n * sizeof *w) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_tmp, tmp ? tmp : 32) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_cnt, 8) == CZK_OK);
  const uint64_t zero = 0;
  CHECK(czk_backend_copy_htod(be, d_w, w, nw * sizeof *w, s) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, d_idx, idx, n * sizeof *idx, s) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, d_cnt, &zero, 8, s) == CZK_OK);
  CHECK(czk_backend_pack_nonzero(be, d_bo, d_so, hb, bsz, d_w, with_idx ? d_idx : NULL, n, d_tmp, d_cnt, s) ==
        CZK_OK);
  uint64_t cnt = 0;
  CHECK(czk_backend_copy_dtoh(be, bo, d_bo, n * bsz, s) == CZK_OK);
  CHECK(czk_backend_copy_dtoh(be, so, d_so, n * sizeof *w, s) == CZK_OK);
  CHECK(czk_backend_copy_dtoh(be, &cnt, d_cnt, 8, s) == CZK_OK);
  CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
  size_t m = 0, bad = 0;
  for (size_t j = 0; j < n; j++) {
    const czk_fr *v = &w[with_idx ? idx[j] : j];
    if (czk_fr_is_zero(v)) continue;
    if (!czk_fr_eq(&so[m], v) || memcmp(bo + m * bsz, hb + j * bsz, bsz)) bad++;
    m++;
  }
  for (size_t j = m; j < n; j++) bad += !czk_fr_is_zero(&so[j]);
  CHECK_MSG(bad == 0 && cnt == m * bsz, "%s pack n=%zu bsz=%zu idx=%d: %zu wrong, %llu bytes (want %llu)",
            czk_backend_name(be), n, bsz, with_idx, bad, (unsigned long long)cnt, (unsigned long long)(m * bsz));
  /* without a registration (a GPU backend): refused, nothing else harmed */
  if (!host) {
    czk_backend_host_unregister(be, hb);
    CHECK(czk_backend_pack_nonzero(be, d_bo, d_so, hb, bsz, d_w, NULL, n, d_tmp, d_cnt, s) == CZK_ERR_UNSUPPORTED);
    CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
  }
  czk_backend_mem_free(be, d_w), czk_backend_mem_free(be, d_idx), czk_backend_mem_free(be, d_bo);
  czk_backend_mem_free(be, d_so), czk_backend_mem_free(be, d_tmp), czk_backend_mem_free(be, d_cnt);
  czk_backend_stream_free(be, s);
  free(w), free(so), free(idx), free(hb), free(bo);
}

/* A witness of the given mix: zero_pct % zeros, one_pct % ones, the rest random (Montgomery one = czk_fr_one_v). */
static void mixed_witness(czk_fr *w, size_t n, unsigned zero_pct, unsigned one_pct) {
  for (size_t i = 0; i < n; i++) {
    unsigned r = (unsigned)(czk_test_rng_next(&rng) % 100);
    if (r < zero_pct) w[i] = czk_fr_zero_v;
    else if (r < zero_pct + one_pct) w[i] = czk_fr_one_v;
    else rand_fr(&w[i]);
  }
}

/* MSM handles sharing one scratch (czk_backend_msm_share): two G1 handles over different bases and a G2 handle, all
 * on one stream, run in an order that grows the shared scratch (small, dense, G2, 0/1-mixed, dense again) without a
 * sync between runs, each result equal to the host's; the handles are freed owner first. */
static void test_msm_share(czk_backend *be, unsigned log_n) {
  const size_t n = (size_t)1 << log_n, n2 = n >> 4 ? n >> 4 : 1;
  czk_backend_stream *s = NULL;
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  czk_g1_affine *b1 = malloc(2 * n * sizeof *b1);
  czk_g2_affine *b2 = malloc(n2 * sizeof *b2);
  czk_fr *k = malloc(5 * n * sizeof *k);
  if (!s || !b1 || !b2 || !k) {
    CHECK(!"test_msm_share: out of memory");
    free(b1), free(b2), free(k);
    czk_backend_stream_free(be, s);
    return;
  }
  rand_g1(b1, 2 * n);
  rand_g2(b2, n2);
  for (size_t i = 0; i < 3 * n; i++) rand_fr(&k[i]);
  mixed_witness(k + 3 * n, 2 * n, 45, 50);
  void *db1 = NULL, *db2 = NULL, *dk = NULL;
  CHECK(czk_backend_alloc(be, &db1, 2 * n * sizeof *b1) == CZK_OK);
  CHECK(czk_backend_alloc(be, &db2, n2 * sizeof *b2) == CZK_OK);
  CHECK(czk_backend_alloc(be, &dk, 5 * n * sizeof *k) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, db1, b1, 2 * n * sizeof *b1, s) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, db2, b2, n2 * sizeof *b2, s) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, dk, k, 5 * n * sizeof *k, s) == CZK_OK);
  czk_backend_msm *ma = NULL, *mb = NULL, *mc = NULL;
  const czk_fr *dkf = dk;
  CHECK(czk_backend_msm_new(be, &ma, CZK_BACKEND_G1, db1, n) == CZK_OK);
  CHECK(czk_backend_msm_new(be, &mb, CZK_BACKEND_G1, (const czk_g1_affine *)db1 + n, n) == CZK_OK);
  CHECK(czk_backend_msm_new(be, &mc, CZK_BACKEND_G2, db2, n2) == CZK_OK);
  CHECK(czk_backend_msm_share(be, mb, ma) == CZK_OK);
  CHECK(czk_backend_msm_share(be, mc, ma) == CZK_OK);
  CHECK(czk_backend_msm_share(be, mb, mb) == CZK_OK);
  CHECK(czk_backend_msm_share(be, mb, NULL) == CZK_ERR_INVALID_ARG);
  if (ma && mb && mc) {
    /* runs: mb small, ma dense n, mc G2, mb 0/1-mixed n, ma dense n again (other scalars) */
    czk_g1 got[4], want[4];
    czk_g2 got2, want2;
    CHECK(czk_backend_msm_run(be, mb, &got[0], dkf, 1000 < n ? 1000 : n, s) == CZK_OK);
    CHECK(czk_backend_msm_run(be, ma, &got[1], dkf + n, n, s) == CZK_OK);
    CHECK(czk_backend_msm_run(be, mc, &got2, dkf + 2 * n, n2, s) == CZK_OK);
    CHECK(czk_backend_msm_run(be, mb, &got[2], dkf + 3 * n, n, s) == CZK_OK);
    CHECK(czk_backend_msm_run(be, ma, &got[3], dkf + 4 * n, n, s) == CZK_OK);
    CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
    CHECK(czk_msm_g1(&want[0], b1 + n, k, 1000 < n ? 1000 : n, 0, NULL, NULL, NULL) == CZK_OK);
    CHECK(czk_msm_g1(&want[1], b1, k + n, n, 0, NULL, NULL, NULL) == CZK_OK);
    CHECK(czk_msm_g2(&want2, b2, k + 2 * n, n2, 0, NULL, NULL, NULL) == CZK_OK);
    CHECK(czk_msm_g1(&want[2], b1 + n, k + 3 * n, n, 0, NULL, NULL, NULL) == CZK_OK);
    CHECK(czk_msm_g1(&want[3], b1, k + 4 * n, n, 0, NULL, NULL, NULL) == CZK_OK);
    for (int i = 0; i < 4; i++)
      CHECK_MSG(czk_g1_eq(&got[i], &want[i]), "%s shared-scratch msm run %d (2^%u)", czk_backend_name(be), i, log_n);
    CHECK_MSG(czk_g2_eq(&got2, &want2), "%s shared-scratch g2 msm (2^%u)", czk_backend_name(be), log_n);
  }
  czk_backend_msm_free(be, ma); /* the owner first: the others keep the scratch */
  if (mb) { /* and still run on it */
    czk_g1 again, want;
    CHECK(czk_backend_msm_run(be, mb, &again, dkf + 3 * n, n, s) == CZK_OK);
    CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
    CHECK(czk_msm_g1(&want, b1 + n, k + 3 * n, n, 0, NULL, NULL, NULL) == CZK_OK);
    CHECK_MSG(czk_g1_eq(&again, &want), "%s msm after the scratch's first owner was freed", czk_backend_name(be));
  }
  czk_backend_msm_free(be, mb);
  czk_backend_msm_free(be, mc);
  czk_backend_mem_free(be, db1);
  czk_backend_mem_free(be, db2);
  czk_backend_mem_free(be, dk);
  czk_backend_stream_free(be, s);
  free(b1), free(b2), free(k);
}

/* A series (czk_backend_msm_run_series): n points of one query run in chunks of C through two handles sharing one
 * scratch, alternating (as a lane's slots do), and through one handle at offsets (a resident query in pieces): the
 * sum in the one out given to every run, equal to the host's MSM; 0/1-mixed (G1) and dense (G2) scalars; a series of
 * one run; bad flags refused. */
static void test_msm_series(czk_backend *be, size_t n, size_t C) {
  czk_backend_stream *s = NULL;
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  czk_g1_affine *b1 = malloc(n * sizeof *b1);
  czk_g2_affine *b2 = malloc(n * sizeof *b2);
  czk_fr *k = malloc(2 * n * sizeof *k);
  void *db1 = NULL, *db2 = NULL, *dk = NULL;
  if (!s || !b1 || !b2 || !k) {
    CHECK(!"test_msm_series: out of memory");
    goto out;
  }
  rand_g1(b1, n);
  rand_g2(b2, n);
  mixed_witness(k, n, 50, 47);
  for (size_t i = n; i < 2 * n; i++) rand_fr(&k[i]);
  CHECK(czk_backend_alloc(be, &db1, n * sizeof *b1) == CZK_OK);
  CHECK(czk_backend_alloc(be, &db2, n * sizeof *b2) == CZK_OK);
  CHECK(czk_backend_alloc(be, &dk, 2 * n * sizeof *k) == CZK_OK);
  if (!db1 || !db2 || !dk) goto out;
  CHECK(czk_backend_copy_htod(be, db1, b1, n * sizeof *b1, s) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, db2, b2, n * sizeof *b2, s) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, dk, k, 2 * n * sizeof *k, s) == CZK_OK);
  const czk_fr *dkf = dk;
  czk_g1 want1, got1, one1;
  czk_g2 want2, got2;
  CHECK(czk_msm_g1(&want1, b1, k, n, 0, NULL, NULL, NULL) == CZK_OK);
  CHECK(czk_msm_g2(&want2, b2, k + n, n, 0, NULL, NULL, NULL) == CZK_OK);
  for (int g = 1; g <= 2; g++) {
    czk_backend_msm *m[2] = {NULL, NULL};
    const void *db = g == 1 ? db1 : db2;
    const czk_backend_group grp = g == 1 ? CZK_BACKEND_G1 : CZK_BACKEND_G2;
    for (int i = 0; i < 2; i++) {
      CHECK(czk_backend_msm_new(be, &m[i], grp, db, n) == CZK_OK);
      if (i && m[1]) CHECK(czk_backend_msm_share(be, m[1], m[0]) == CZK_OK);
      if (m[i]) CHECK(czk_backend_msm_reserve(be, m[i], C) == CZK_OK);
    }
    if (!m[0] || !m[1]) {
      czk_backend_msm_free(be, m[0]), czk_backend_msm_free(be, m[1]);
      continue;
    }
    for (int alt = 0; alt < 2; alt++) { /* alternating handles, then one handle */
      void *o = g == 1 ? (void *)&got1 : (void *)&got2;
      memset(o, 0x5a, g == 1 ? sizeof got1 : sizeof got2);
      size_t j = 0;
      for (size_t off = 0; off < n; off += C, j++) {
        const size_t len = n - off < C ? n - off : C;
        const unsigned ser = (off == 0 ? CZK_BACKEND_MSM_FIRST : 0u) | (off + len == n ? CZK_BACKEND_MSM_LAST : 0u);
        CHECK(czk_backend_msm_run_series(be, m[alt ? 0 : (j & 1)], o, off, dkf + (g == 1 ? 0 : n) + off, len, ser, n,
                                         s) == CZK_OK);
      }
      CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
      if (g == 1)
        CHECK_MSG(czk_g1_eq(&got1, &want1), "%s g1 series n=%zu C=%zu alt=%d", czk_backend_name(be), n, C, alt);
      else
        CHECK_MSG(czk_g2_eq(&got2, &want2), "%s g2 series n=%zu C=%zu alt=%d", czk_backend_name(be), n, C, alt);
    }
    if (g == 1) { /* a series of one run: the host's MSM of those points, and as czk_backend_msm_run_at */
      czk_g1 host1;
      CHECK(czk_msm_g1(&host1, b1, k, C, 0, NULL, NULL, NULL) == CZK_OK);
      CHECK(czk_backend_msm_run_series(be, m[0], &one1, 0, dkf, C, CZK_BACKEND_MSM_FIRST | CZK_BACKEND_MSM_LAST, C,
                                       s) == CZK_OK);
      CHECK(czk_backend_msm_run_at(be, m[1], &got1, 0, dkf, C, s) == CZK_OK);
      CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
      CHECK_MSG(czk_g1_eq(&one1, &host1) && czk_g1_eq(&got1, &host1), "%s series of one run", czk_backend_name(be));
      CHECK(czk_backend_msm_run_series(be, m[0], &one1, 0, dkf, C, 4u, C, s) == CZK_ERR_INVALID_ARG);
    }
    czk_backend_msm_free(be, m[1]);
    czk_backend_msm_free(be, m[0]);
  }
out:
  czk_backend_mem_free(be, db1);
  czk_backend_mem_free(be, db2);
  czk_backend_mem_free(be, dk);
  czk_backend_stream_free(be, s);
  free(b1), free(b2), free(k);
}

/* The packed witness: packed on the host (with and without a pool), unpacked by the backend into device memory,
 * equal to the original; sizes not a multiple of a word or a chunk, runs of one class. */
static void test_wpack(czk_backend *be, czk_pool *pool, size_t n, unsigned zero_pct, unsigned one_pct) {
  czk_fr *w = malloc((n ? n : 1) * sizeof *w), *got = malloc((n ? n : 1) * sizeof *w);
  mixed_witness(w, n, zero_pct, one_pct);
  size_t cap = czk_backend_wpack_bytes(n, n);
  uint8_t *packed = malloc(cap), *packed2 = malloc(cap);
  size_t n_other = 0, n_other2 = 0;
  CHECK(czk_backend_wpack(packed, cap, w, n, n, pool, &n_other) == CZK_OK);
  CHECK(czk_backend_wpack(packed2, cap, w, n, n, NULL, &n_other2) == CZK_OK);
  size_t bytes = czk_backend_wpack_bytes(n, n_other);
  CHECK_MSG(n_other == n_other2 && memcmp(packed, packed2, bytes) == 0, "pool and serial packing differ (n=%zu)", n);
  size_t expect_other = 0;
  for (size_t i = 0; i < n; i++)
    expect_other += !czk_fr_is_zero(&w[i]) && !czk_fr_eq(&w[i], &czk_fr_one_v);
  CHECK_EQ_INT(n_other, expect_other);
  czk_backend_stream *s = NULL;
  void *d_src = NULL, *d_w = NULL;
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_src, bytes) == CZK_OK);
  CHECK(czk_backend_alloc(be, &d_w, (n ? n : 1) * sizeof *w) == CZK_OK);
  CHECK(czk_backend_copy_htod(be, d_src, packed, bytes, s) == CZK_OK);
  CHECK(czk_backend_wunpack(be, d_w, d_src, n, n_other, s) == CZK_OK);
  if (n) CHECK(czk_backend_copy_dtoh(be, got, d_w, n * sizeof *w, s) == CZK_OK);
  CHECK(czk_backend_stream_sync(be, s) == CZK_OK);
  bool ok = true;
  for (size_t i = 0; i < n; i++) ok = ok && czk_fr_eq(&got[i], &w[i]);
  CHECK_MSG(ok, "%s wunpack n=%zu (%u%% zeros, %u%% ones): %zu other values, %zu bytes", czk_backend_name(be), n,
            zero_pct, one_pct, n_other, bytes);
  czk_backend_mem_free(be, d_src);
  czk_backend_mem_free(be, d_w);
  czk_backend_stream_free(be, s);
  free(w), free(got), free(packed), free(packed2);
}

/* Host-side contract of the packed format: sizes, limits, and a damaged buffer refused by the host's unpacking. */
static void test_wpack_host(czk_pool *pool) {
  const size_t n = 5000; /* 5 chunks, the last partial */
  czk_fr *w = malloc(n * sizeof *w), *got = malloc(n * sizeof *w);
  mixed_witness(w, n, 51, 47);
  rand_fr(&w[101]); /* word 3 of chunk 0 holds an other value (damaged below) */
  size_t cap = czk_backend_wpack_bytes(n, n), n_other = 0;
  uint8_t *p = malloc(cap);
  CHECK(czk_backend_wpack(p, cap, w, n, n, pool, &n_other) == CZK_OK);
  size_t bytes = czk_backend_wpack_bytes(n, n_other);
  CHECK_MSG(bytes * 10 < n * sizeof(czk_fr), "a 98%% 0/1 witness packs to %zu bytes of %zu", bytes, n * sizeof *w);
  CHECK(czk_backend_wunpack_host(got, p, bytes, n, n_other) == CZK_OK && memcmp(got, w, n * sizeof *w) == 0);
  /* limits: too many other values, a buffer too small, n too large */
  size_t k = 0;
  CHECK(czk_backend_wpack(p, cap, w, n, n_other - 1, pool, &k) == CZK_ERR_LIMIT && k == n_other);
  CHECK(czk_backend_wpack(p, bytes - 1, w, n, n, pool, &k) == CZK_ERR_INVALID_ARG);
  CHECK(czk_backend_wpack(p, 100, w, n, n, pool, &k) == CZK_ERR_INVALID_ARG);
  CHECK(czk_backend_wpack(p, cap, w, (size_t)1 << 32, n, pool, &k) == CZK_ERR_INVALID_ARG);
  CHECK(czk_backend_wpack(p, cap, w, n, n, pool, &k) == CZK_OK && k == n_other);
  /* damage: a wrong size, a bit beyond n, a value both one and other, a chunk index off by one */
  CHECK(czk_backend_wunpack_host(got, p, bytes + 32, n, n_other) == CZK_ERR_FORMAT);
  CHECK(czk_backend_wunpack_host(got, p, bytes, n, n_other + 1) == CZK_ERR_FORMAT);
  const size_t nc = 5;
  uint32_t *ob = (uint32_t *)p, *nb = ob + 32 * nc, *start = nb + 32 * nc;
  uint32_t save = ob[32 * 4 + 31];
  ob[32 * 4 + 31] |= 1u << 31; /* value 5119 >= n */
  CHECK(czk_backend_wunpack_host(got, p, bytes, n, n_other) == CZK_ERR_FORMAT);
  ob[32 * 4 + 31] = save;
  save = nb[3];
  nb[3] |= ob[3] & (0u - ob[3]); /* the lowest other value of word 3 also marked one */
  CHECK(ob[3] != 0 && czk_backend_wunpack_host(got, p, bytes, n, n_other) == CZK_ERR_FORMAT);
  nb[3] = save;
  start[2] += 1;
  CHECK(czk_backend_wunpack_host(got, p, bytes, n, n_other) == CZK_ERR_FORMAT);
  start[2] -= 1;
  CHECK(czk_backend_wunpack_host(got, p, bytes, n, n_other) == CZK_OK && memcmp(got, w, n * sizeof *w) == 0);
  /* all zeros, all ones, nothing */
  for (size_t i = 0; i < n; i++) w[i] = czk_fr_zero_v;
  CHECK(czk_backend_wpack(p, cap, w, n, 0, pool, &k) == CZK_OK && k == 0);
  CHECK(czk_backend_wunpack_host(got, p, czk_backend_wpack_bytes(n, 0), n, 0) == CZK_OK &&
        memcmp(got, w, n * sizeof *w) == 0);
  for (size_t i = 0; i < n; i++) w[i] = czk_fr_one_v;
  CHECK(czk_backend_wpack(p, cap, w, n, 0, pool, &k) == CZK_OK && k == 0);
  CHECK(czk_backend_wunpack_host(got, p, czk_backend_wpack_bytes(n, 0), n, 0) == CZK_OK &&
        memcmp(got, w, n * sizeof *w) == 0);
  CHECK(czk_backend_wpack(p, cap, w, 0, 0, pool, &k) == CZK_OK && k == 0 && czk_backend_wpack_bytes(0, 0) == 0);
  free(w), free(got), free(p);
}

#ifdef CZK_HAVE_CUDA
static void test_quarantine(czk_backend *be) {
  czk_backend_stream *s = NULL;
  CHECK(czk_backend_stream_new(be, &s) == CZK_OK);
  CHECK(!czk_backend_quarantined(be));
  CHECK(czk_cuda_inject_fault(s ? *(void **)s : NULL) == CZK_OK);
  CHECK(czk_backend_stream_sync(be, s) == CZK_ERR_DEVICE);
  CHECK(czk_backend_quarantined(be));
  void *d = NULL;
  CHECK(czk_backend_alloc(be, &d, 64) == CZK_ERR_DEVICE);
  czk_backend_props pr;
  CHECK(czk_backend_get_props(be, &pr) == CZK_ERR_DEVICE);
  /* the process and the CPU backend live on */
  czk_backend *cpu = NULL;
  CHECK(czk_backend_open(&cpu, "cpu", NULL) == CZK_OK);
  if (cpu) test_matvec(cpu, 100, 50);
  czk_backend_free(cpu);
}
#endif

int main(int argc, char **argv) {
  gpu_mode = argc > 1 && strcmp(argv[1], "gpu") == 0;
  czk_test_rng_seed(&rng, gpu_mode ? 0x6770 : 0xc0ffee);
  if (!gpu_mode) {
    test_enumerate();
    czk_backend *be = NULL;
    CHECK(czk_backend_open(&be, "cpu", NULL) == CZK_OK);
    if (be) {
      test_memory(be);
      test_stream_levels(be);
      test_msm(be, 10, 8);
      test_msm_share(be, 10);
      test_msm_series(be, 1000, 300);
      test_ntt(be, 10);
      test_matvec(be, 1000, 700);
      test_gather(be, 1000, 777);
      test_pack(be, 1000, 96, false);
      test_pack(be, 777, 192, true);
      czk_pool *pool = NULL;
      CHECK(czk_pool_new(&pool, 3) == CZK_OK);
      test_wpack_host(pool);
      const size_t sizes[] = {0, 1, 31, 33, 1024, 1025, 5000, 70001};
      for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        test_wpack(be, pool, sizes[i], 51, 47);
        test_wpack(be, pool, sizes[i], 0, 0);
      }
      czk_pool_free(pool);
      czk_backend_free(be);
    }
    return czk_test_done("test_backend cpu");
  }
  czk_backend **list = NULL;
  size_t n = 0;
  const char *ex[] = {"cpu"};
  CHECK(czk_backend_enumerate(&list, &n, ex, 1) == CZK_OK);
  if (n == 0) {
    fprintf(stderr, "test_backend gpu: no GPU backend (CUDA not built or no device), skipping\n");
    free(list);
    return 77;
  }
  test_enumerate();
  for (size_t i = 0; i < n; i++) {
    czk_backend *be = list[i];
    test_memory(be);
    test_stream_levels(be);
    test_ntt(be, 20);
    test_matvec(be, 1000, 700);
    test_matvec(be, 1 << 18, 1 << 17);
    test_msm(be, 20, 16);
    test_msm_share(be, 18);
    test_msm_series(be, 300000, 1 << 16);
    test_msm_series(be, 70000, 20000);
    test_gather(be, 1 << 18, 1 << 17);
    test_pack(be, 3000, 96, false);
    test_pack(be, (1 << 20) + 5, 96, true);
    test_pack(be, 70001, 192, false);
    const size_t sizes[] = {1, 31, 1024, 1025, 70001, ((size_t)1 << 22) + 12345};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
      test_wpack(be, NULL, sizes[k], 51, 47);
      test_wpack(be, NULL, sizes[k], 5, 5);
      test_wpack(be, NULL, sizes[k], 100, 0);
    }
  }
#ifdef CZK_HAVE_CUDA
  test_quarantine(list[n - 1]); /* last: the device's context is unusable afterwards */
#endif
  for (size_t i = 0; i < n; i++) czk_backend_free(list[i]);
  free(list);
  return czk_test_done("test_backend gpu");
}
