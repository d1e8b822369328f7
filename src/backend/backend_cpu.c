/* backend_cpu.c: the CPU backend: the vtable of backend_impl.h over the CPU kernels (czk_msm_*, czk_ntt_*, a
 * pool-parallel CSR mat-vec). "Device" memory is the host heap (64-byte aligned), copies are memcpy, every operation
 * runs synchronously on the backend's pool when called, so streams and events are always complete (elapsed = 0).
 * NTT domains are created once per (roots, log_n) and kept (a mutex guards creation only; domains are read-only).
 * Groth16: row check, czk_ntt_h (bellperson), the five MSMs with the density-filtered queries; all synchronous, the
 * pending object only carries the result. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend_impl.h"
#include "czk/msm.h"
#include "czk/ntt.h"
#include "groth16/groth16_internal.h"

typedef struct cpu_ctx {
  czk_pool *pool;
  pthread_mutex_t mu;
  czk_ntt_domain *dom[2][29];
} cpu_ctx;

struct czk_backend_csr {
  czk_csr m; /* references the caller's arrays (CPU: no copy) */
  size_t rows;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static cpu_ctx *CTX(czk_backend *be) { return (cpu_ctx *)be->ctx; }

static void cpu_destroy(czk_backend *be) {
  cpu_ctx *c = CTX(be);
  for (int r = 0; r < 2; r++)
    for (int k = 0; k < 29; k++) czk_ntt_domain_free(c->dom[r][k]);
  pthread_mutex_destroy(&c->mu);
  free(c);
  free(be);
}

static czk_status cpu_props(czk_backend *be, czk_backend_props *out) {
  out->kind = CZK_BACKEND_CPU;
  out->device = 0;
  snprintf(out->name, sizeof out->name, "%s", be->name);
  long pages = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES), ps = sysconf(_SC_PAGESIZE);
  out->mem_total = pages > 0 && ps > 0 ? (uint64_t)pages * (uint64_t)ps : 0;
  out->mem_free = avail > 0 && ps > 0 ? (uint64_t)avail * (uint64_t)ps : 0;
  out->units = czk_pool_threads(CTX(be)->pool ? CTX(be)->pool : czk_pool_default());
  snprintf(out->description, sizeof out->description, "host CPU, %u threads", out->units);
  return CZK_OK;
}

static czk_status cpu_alloc(czk_backend *be, void **p, size_t bytes) {
  (void)be;
  size_t b = (bytes + 63) & ~(size_t)63;
  *p = aligned_alloc(64, b);
  return *p ? CZK_OK : CZK_ERR_NOMEM;
}
static void cpu_free(czk_backend *be, void *p) {
  (void)be;
  free(p);
}

/* Streams and events: tokens (work is complete when a call returns). */
struct czk_backend_stream {
  int unused;
};
struct czk_backend_event {
  int unused;
};
static czk_status cpu_stream_new(czk_backend *be, czk_backend_stream **out) {
  (void)be;
  *out = calloc(1, sizeof **out);
  return *out ? CZK_OK : CZK_ERR_NOMEM;
}
static void cpu_stream_free(czk_backend *be, czk_backend_stream *s) {
  (void)be;
  free(s);
}
static czk_status cpu_stream_sync(czk_backend *be, czk_backend_stream *s) {
  (void)be, (void)s;
  return CZK_OK;
}
static czk_status cpu_event_new(czk_backend *be, czk_backend_event **out) {
  (void)be;
  *out = calloc(1, sizeof **out);
  return *out ? CZK_OK : CZK_ERR_NOMEM;
}
static void cpu_event_free(czk_backend *be, czk_backend_event *e) {
  (void)be;
  free(e);
}
static czk_status cpu_event_record(czk_backend *be, czk_backend_event *e, czk_backend_stream *s) {
  (void)be, (void)e, (void)s;
  return CZK_OK;
}
static czk_status cpu_stream_wait(czk_backend *be, czk_backend_stream *s, czk_backend_event *e) {
  (void)be, (void)e, (void)s;
  return CZK_OK;
}
static czk_status cpu_event_sync(czk_backend *be, czk_backend_event *e) {
  (void)be, (void)e;
  return CZK_OK;
}
static czk_status cpu_event_elapsed(czk_backend *be, float *ms, czk_backend_event *a, czk_backend_event *b) {
  (void)be, (void)a, (void)b;
  *ms = 0;
  return CZK_OK;
}
static czk_status cpu_copy(czk_backend *be, void *dst, const void *src, size_t bytes, czk_backend_stream *s) {
  (void)be, (void)s;
  memmove(dst, src, bytes);
  return CZK_OK;
}

static czk_status cpu_msm_g1(czk_backend *be, czk_g1 *out, const czk_g1_affine *b, const czk_fr *k, size_t n,
                             czk_backend_stream *s) {
  (void)s;
  return czk_msm_g1(out, b, k, n, 0, NULL, NULL, CTX(be)->pool);
}
static czk_status cpu_msm_g2(czk_backend *be, czk_g2 *out, const czk_g2_affine *b, const czk_fr *k, size_t n,
                             czk_backend_stream *s) {
  (void)s;
  return czk_msm_g2(out, b, k, n, 0, NULL, NULL, CTX(be)->pool);
}

static czk_status domain(czk_backend *be, czk_fr_roots roots, unsigned log_n, const czk_ntt_domain **out) {
  cpu_ctx *c = CTX(be);
  czk_status st = CZK_OK;
  pthread_mutex_lock(&c->mu);
  if (!c->dom[roots][log_n]) st = czk_ntt_domain_new(&c->dom[roots][log_n], log_n, roots, c->pool);
  *out = c->dom[roots][log_n];
  pthread_mutex_unlock(&c->mu);
  return st;
}

static czk_status cpu_ntt(czk_backend *be, czk_fr *d, unsigned log_n, czk_fr_roots roots, czk_backend_ntt_dir dir,
                          czk_backend_stream *s) {
  (void)s;
  const czk_ntt_domain *dom;
  CZK_TRY(domain(be, roots, log_n, &dom));
  czk_fr g;
  czk_fr_coset_generator(&g);
  switch (dir) {
    case CZK_BACKEND_NTT_FORWARD: return czk_ntt_forward(dom, d, CTX(be)->pool);
    case CZK_BACKEND_NTT_INVERSE: return czk_ntt_inverse(dom, d, CTX(be)->pool);
    case CZK_BACKEND_NTT_COSET_FORWARD: return czk_ntt_coset_forward(dom, d, &g, CTX(be)->pool);
    case CZK_BACKEND_NTT_COSET_INVERSE: return czk_ntt_coset_inverse(dom, d, &g, CTX(be)->pool);
  }
  return CZK_ERR_INVALID_ARG;
}

static czk_status cpu_h(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n, czk_backend_stream *s) {
  (void)s;
  const czk_ntt_domain *dom;
  CZK_TRY(domain(be, CZK_ROOTS_BELLMAN, log_n, &dom));
  return czk_ntt_h(dom, CZK_H_BELLPERSON, a, b, c, CTX(be)->pool);
}

static czk_status cpu_csr_upload(czk_backend *be, czk_backend_csr **out, const czk_csr *m, size_t rows,
                                 czk_backend_stream *s) {
  (void)be, (void)s;
  czk_backend_csr *r = calloc(1, sizeof *r);
  if (!r) return CZK_ERR_NOMEM;
  r->m = *m;
  r->rows = rows;
  *out = r;
  return CZK_OK;
}
static void cpu_csr_free(czk_backend *be, czk_backend_csr *m) {
  (void)be;
  free(m);
}

typedef struct mv_ctx {
  const czk_backend_csr *m;
  const czk_fr *w;
  czk_fr *out;
} mv_ctx;
static void mv_rows(void *vctx, size_t b, size_t e) {
  const mv_ctx *x = vctx;
  const czk_csr *m = &x->m->m;
  for (size_t j = b; j < e; j++) {
    czk_fr acc = czk_fr_zero_v, t;
    for (uint64_t k = m->row_ptr[j]; k < m->row_ptr[j + 1]; k++) {
      czk_fr_mul(&t, &m->val[k], &x->w[m->col[k]]);
      czk_fr_add(&acc, &acc, &t);
    }
    x->out[j] = acc;
  }
}
static czk_status cpu_matvec(czk_backend *be, czk_fr *out, const czk_backend_csr *m, const czk_fr *w,
                             czk_backend_stream *s) {
  (void)s;
  mv_ctx x = {m, w, out};
  czk_pool_parallel_for(CTX(be)->pool, m->rows, 1024, mv_rows, &x);
  return CZK_OK;
}

/* ---- Groth16: everything runs in launch (like prove.c), wait only reports */
static czk_status cpu_g16_launch(czk_backend *be, czk_backend_g16 *j, void **pending) {
  czk_pool *pool = j->pool ? j->pool : CTX(be)->pool;
  czk_groth16_assignment *as = j->as;
  const czk_r1cs *sh = j->shape;
  const czk_groth16_pk_queries *q = &j->key->q;
  double t0 = now_s();
  czk_status st = czk__groth16_check_rows(as->a, as->b, as->c, sh->n_constraints, pool);
  double t1 = now_s();
  const czk_ntt_domain *dom = NULL;
  if (st == CZK_OK) st = domain(be, CZK_ROOTS_BELLMAN, sh->log_domain, &dom);
  if (st == CZK_OK) st = czk_ntt_h(dom, CZK_H_BELLPERSON, as->a, as->b, as->c, pool);
  double t2 = now_s();
  free(as->b), free(as->c);
  as->b = as->c = NULL;
  j->t.check = t1 - t0;
  j->t.h = t2 - t1;
  if (st != CZK_OK) {
    czk_groth16_assignment_free(as);
    return st;
  }
  const size_t n = as->n_domain, ni = sh->n_inputs, na = sh->n_aux;
  const czk_fr *win = as->w.w, *waux = as->w.w + ni;
  czk__groth16_msm_launches++;
  double t = now_s();
  st = czk_msm_g1(&j->h, q->h, as->a, n - 1, 0, NULL, NULL, pool);
  j->t.msm_h = now_s() - t, t = now_s();
  if (st == CZK_OK) st = czk_msm_g1(&j->l, q->l, waux, na, 0, NULL, NULL, pool);
  j->t.msm_l = now_s() - t, t = now_s();
  czk_g1 p1;
  czk_g2 p2;
  size_t used = 0;
  if (st == CZK_OK) st = czk_msm_g1(&j->a, q->a, win, ni, 0, NULL, NULL, pool);
  if (st == CZK_OK) st = czk_msm_g1_density(&p1, q->a + ni, waux, na, sh->a_aux_density, 0, NULL, NULL, pool, NULL);
  if (st == CZK_OK) czk_g1_add(&j->a, &j->a, &p1);
  j->t.msm_a = now_s() - t, t = now_s();
  if (st == CZK_OK)
    st = czk_msm_g1_density(&j->b1, q->b_g1, win, ni, sh->b_input_density, 0, NULL, NULL, pool, &used);
  if (st == CZK_OK)
    st = czk_msm_g1_density(&p1, q->b_g1 + used, waux, na, sh->b_aux_density, 0, NULL, NULL, pool, NULL);
  if (st == CZK_OK) czk_g1_add(&j->b1, &j->b1, &p1);
  j->t.msm_b_g1 = now_s() - t, t = now_s();
  if (st == CZK_OK)
    st = czk_msm_g2_density(&j->b2, q->b_g2, win, ni, sh->b_input_density, 0, NULL, NULL, pool, &used);
  if (st == CZK_OK)
    st = czk_msm_g2_density(&p2, q->b_g2 + used, waux, na, sh->b_aux_density, 0, NULL, NULL, pool, NULL);
  if (st == CZK_OK) czk_g2_add(&j->b2, &j->b2, &p2);
  j->t.msm_b_g2 = now_s() - t;
  czk_groth16_assignment_free(as);
  if (st == CZK_OK) *pending = j; /* non-NULL token */
  return st;
}
static czk_status cpu_g16_wait(czk_backend *be, czk_backend_g16 *j, void *pending) {
  (void)be, (void)j, (void)pending;
  return CZK_OK;
}
static void cpu_g16_release(czk_backend *be, void *pending) { (void)be, (void)pending; }

static czk_status cpu_key_capacity(czk_backend *be, uint64_t bytes) {
  (void)be, (void)bytes;
  return CZK_OK; /* keys stay in host memory */
}
static czk_status cpu_key_evict(czk_backend *be, const void *id) {
  (void)be, (void)id;
  return CZK_OK;
}
static czk_status cpu_cache_stats(czk_backend *be, czk_backend_cache_stats *out) {
  (void)be, (void)out;
  return CZK_OK;
}

static const czk_backend_iface cpu_iface = {
    .kind = CZK_BACKEND_CPU,
    .destroy = cpu_destroy,
    .props = cpu_props,
    .alloc = cpu_alloc,
    .mem_free = cpu_free,
    .host_alloc = cpu_alloc,
    .host_free = cpu_free,
    .stream_new = cpu_stream_new,
    .stream_free = cpu_stream_free,
    .stream_sync = cpu_stream_sync,
    .event_new = cpu_event_new,
    .event_free = cpu_event_free,
    .event_record = cpu_event_record,
    .stream_wait = cpu_stream_wait,
    .event_sync = cpu_event_sync,
    .event_elapsed = cpu_event_elapsed,
    .copy_htod = cpu_copy,
    .copy_dtoh = cpu_copy,
    .msm_g1 = cpu_msm_g1,
    .msm_g2 = cpu_msm_g2,
    .ntt = cpu_ntt,
    .h = cpu_h,
    .csr_upload = cpu_csr_upload,
    .csr_free = cpu_csr_free,
    .matvec = cpu_matvec,
    .g16_launch = cpu_g16_launch,
    .g16_wait = cpu_g16_wait,
    .g16_release = cpu_g16_release,
    .key_capacity = cpu_key_capacity,
    .key_evict = cpu_key_evict,
    .cache_stats = cpu_cache_stats,
};

czk_status czk__backend_cpu_new(czk_backend **out, czk_pool *pool) {
  *out = NULL;
  czk_backend *be = calloc(1, sizeof *be);
  cpu_ctx *c = calloc(1, sizeof *c);
  if (!be || !c) {
    free(be);
    free(c);
    return CZK_ERR_NOMEM;
  }
  c->pool = pool;
  pthread_mutex_init(&c->mu, NULL);
  be->iface = &cpu_iface;
  be->ctx = c;
  be->device = 0;
  snprintf(be->name, sizeof be->name, "cpu");
  *out = be;
  return CZK_OK;
}
