/* backend_cpu.c: the CPU backend: the vtable of backend_impl.h over the CPU kernels (czk_msm_*, czk_ntt_*, a
 * pool-parallel CSR mat-vec). "Device" memory is the host heap (64-byte aligned), copies are memcpy, every operation
 * runs synchronously on the backend's pool when called, so streams and events are always complete (elapsed = 0).
 * NTT domains are created once per (roots, log_n) and kept (a mutex guards creation only; domains are read-only).
 * props.host_memory is set: callers hand host arrays to every operation directly. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend_impl.h"
#include "czk/msm.h"
#include "czk/ntt.h"

typedef struct cpu_ctx {
  czk_pool *pool;
  pthread_mutex_t mu;
  czk_ntt_domain *dom[2][29];
  /* host registrations, kept as CUDA keeps them (pages registered twice are refused, as cudaHostRegister refuses
   * them), so that the CPU tests see the same contract */
  struct { const char *p; size_t n; } *reg;
  size_t nreg, capreg;
} cpu_ctx;

struct czk_backend_csr {
  uint64_t *row_ptr; /* copies of the caller's arrays (the contract lets the caller free them) */
  uint32_t *col;
  czk_fr *val;
  size_t rows;
};

struct czk_backend_msm {
  czk_backend_group g;
  const void *bases;
  size_t n_max;
};

static cpu_ctx *CTX(czk_backend *be) { return (cpu_ctx *)be->ctx; }

static void cpu_destroy(czk_backend *be) {
  cpu_ctx *c = CTX(be);
  for (int r = 0; r < 2; r++)
    for (int k = 0; k < 29; k++) czk_ntt_domain_free(c->dom[r][k]);
  pthread_mutex_destroy(&c->mu);
  free(c->reg);
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
  out->host_memory = true;
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

static czk_status cpu_host_register(czk_backend *be, const void *p, size_t bytes) {
  if (!p || !bytes) return CZK_ERR_INVALID_ARG;
  cpu_ctx *c = CTX(be);
  const char *b = p;
  czk_status st = CZK_OK;
  pthread_mutex_lock(&c->mu);
  for (size_t i = 0; i < c->nreg && st == CZK_OK; i++)
    if (b < c->reg[i].p + c->reg[i].n && c->reg[i].p < b + bytes) st = CZK_ERR_UNSUPPORTED; /* already registered */
  if (st == CZK_OK && c->nreg == c->capreg) {
    size_t cap = c->capreg ? 2 * c->capreg : 8;
    void *r = realloc(c->reg, cap * sizeof *c->reg);
    if (r) c->reg = r, c->capreg = cap;
    else st = CZK_ERR_NOMEM;
  }
  if (st == CZK_OK) c->reg[c->nreg].p = b, c->reg[c->nreg].n = bytes, c->nreg++;
  pthread_mutex_unlock(&c->mu);
  return st;
}
static void cpu_host_unregister(czk_backend *be, const void *p) {
  cpu_ctx *c = CTX(be);
  pthread_mutex_lock(&c->mu);
  for (size_t i = 0; i < c->nreg; i++)
    if (c->reg[i].p == (const char *)p) {
      c->reg[i] = c->reg[--c->nreg];
      break;
    }
  pthread_mutex_unlock(&c->mu);
}

static czk_status cpu_msm_new(czk_backend *be, czk_backend_msm **out, czk_backend_group g, const void *b,
                              size_t n_max) {
  (void)be;
  czk_backend_msm *m = calloc(1, sizeof *m);
  if (!m) return CZK_ERR_NOMEM;
  m->g = g, m->bases = b, m->n_max = n_max;
  *out = m;
  return CZK_OK;
}
static czk_status cpu_msm_run(czk_backend *be, czk_backend_msm *m, void *out, const czk_fr *k, size_t n,
                              czk_backend_stream *s) {
  (void)s;
  if (n > m->n_max) return CZK_ERR_INVALID_ARG;
  if (m->g == CZK_BACKEND_G1) return czk_msm_g1(out, m->bases, k, n, 0, NULL, NULL, CTX(be)->pool);
  return czk_msm_g2(out, m->bases, k, n, 0, NULL, NULL, CTX(be)->pool);
}
/* A series on the CPU: each run is done at once; the first writes *out, the later ones add to it. */
static czk_status cpu_msm_run_series(czk_backend *be, czk_backend_msm *m, void *out, size_t base_off, const czk_fr *k,
                                     size_t n, unsigned series, size_t n_total, czk_backend_stream *s) {
  (void)s, (void)n_total;
  if (base_off > m->n_max || n > m->n_max - base_off) return CZK_ERR_INVALID_ARG;
  const size_t sz = m->g == CZK_BACKEND_G1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
  const void *b = (const uint8_t *)m->bases + base_off * sz;
  const bool first = (series & CZK_BACKEND_MSM_FIRST) != 0;
  czk_status st;
  if (m->g == CZK_BACKEND_G1) {
    czk_g1 r;
    st = czk_msm_g1(first ? out : &r, b, k, n, 0, NULL, NULL, CTX(be)->pool);
    if (st == CZK_OK && !first) czk_g1_add(out, out, &r);
  } else {
    czk_g2 r;
    st = czk_msm_g2(first ? out : &r, b, k, n, 0, NULL, NULL, CTX(be)->pool);
    if (st == CZK_OK && !first) czk_g2_add(out, out, &r);
  }
  return st;
}
static void cpu_msm_free(czk_backend *be, czk_backend_msm *m) {
  (void)be;
  free(m);
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

static czk_status cpu_h(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n, czk_h_kind kind,
                        czk_backend_stream *s) {
  (void)s;
  const czk_ntt_domain *dom;
  CZK_TRY(domain(be, kind == CZK_H_SNARKJS ? CZK_ROOTS_SNARKJS : CZK_ROOTS_BELLMAN, log_n, &dom));
  return czk_ntt_h(dom, kind, a, b, c, CTX(be)->pool);
}

static czk_status cpu_h_step(czk_backend *be, czk_h_step step, czk_fr *x, const czk_fr *y, unsigned log_n,
                             czk_h_kind kind, czk_backend_stream *s) {
  (void)s;
  const czk_ntt_domain *dom;
  CZK_TRY(domain(be, kind == CZK_H_SNARKJS ? CZK_ROOTS_SNARKJS : CZK_ROOTS_BELLMAN, log_n, &dom));
  return czk_ntt_h_step(dom, kind, step, x, y, CTX(be)->pool);
}

typedef struct gather_ctx {
  czk_fr *out;
  const czk_fr *in;
  const uint32_t *idx;
} gather_ctx;
static void gather_rows(void *vctx, size_t b, size_t e) {
  const gather_ctx *x = vctx;
  for (size_t j = b; j < e; j++) x->out[j] = x->in[x->idx[j]];
}
static czk_status cpu_gather(czk_backend *be, czk_fr *out, const czk_fr *in, const uint32_t *idx, size_t n,
                             czk_backend_stream *s) {
  (void)s;
  gather_ctx x = {out, in, idx};
  czk_pool_parallel_for(CTX(be)->pool, n, 16384, gather_rows, &x);
  return CZK_OK;
}

/* The non-zero points of a chunk in order (host memory both sides; one pass, as the device's three kernels) */
static czk_status cpu_pack_nonzero(czk_backend *be, void *bases_out, czk_fr *sc_out, const void *h_bases,
                                   size_t base_size, const czk_fr *w, const uint32_t *idx, size_t n, void *tmp,
                                   uint64_t *bytes, czk_backend_stream *s) {
  (void)be, (void)tmp, (void)s;
  size_t m = 0;
  for (size_t j = 0; j < n; j++) {
    const czk_fr *v = &w[idx ? idx[j] : j];
    if (!(v->l[0] | v->l[1] | v->l[2] | v->l[3])) continue;
    sc_out[m] = *v;
    memmove((uint8_t *)bases_out + m * base_size, (const uint8_t *)h_bases + j * base_size, base_size);
    m++;
  }
  memset(sc_out + m, 0, (n - m) * sizeof *sc_out);
  *bytes += m * base_size;
  return CZK_OK;
}

static void cpu_csr_free(czk_backend *be, czk_backend_csr *m) {
  (void)be;
  free(m->row_ptr);
  free(m->col);
  free(m->val);
  free(m);
}
static czk_status cpu_csr_upload(czk_backend *be, czk_backend_csr **out, const uint64_t *row_ptr, const uint32_t *col,
                                 const czk_fr *val, size_t rows, czk_backend_stream *s) {
  (void)s;
  czk_backend_csr *r = calloc(1, sizeof *r);
  if (!r) return CZK_ERR_NOMEM;
  size_t nnz = row_ptr[rows];
  r->rows = rows;
  r->row_ptr = malloc((rows + 1) * sizeof *r->row_ptr);
  r->col = malloc((nnz ? nnz : 1) * sizeof *r->col);
  r->val = malloc((nnz ? nnz : 1) * sizeof *r->val);
  if (!r->row_ptr || !r->col || !r->val) {
    cpu_csr_free(be, r);
    return CZK_ERR_NOMEM;
  }
  memcpy(r->row_ptr, row_ptr, (rows + 1) * sizeof *r->row_ptr);
  if (nnz) memcpy(r->col, col, nnz * sizeof *r->col);
  if (nnz) memcpy(r->val, val, nnz * sizeof *r->val);
  *out = r;
  return CZK_OK;
}

typedef struct mv_ctx {
  const czk_backend_csr *m;
  const czk_fr *w;
  czk_fr *out;
} mv_ctx;
static void mv_rows(void *vctx, size_t b, size_t e) {
  const mv_ctx *x = vctx;
  const czk_backend_csr *m = x->m;
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

static czk_status cpu_wunpack(czk_backend *be, czk_fr *w, const void *src, size_t n, size_t n_other,
                              czk_backend_stream *s) {
  (void)be;
  (void)s;
  return czk_backend_wunpack_host(w, src, czk_backend_wpack_bytes(n, n_other), n, n_other);
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
    .host_register = cpu_host_register,
    .host_unregister = cpu_host_unregister,
    .msm_new = cpu_msm_new,
    .msm_run = cpu_msm_run,
    .msm_run_series = cpu_msm_run_series,
    .msm_free = cpu_msm_free,
    .ntt = cpu_ntt,
    .h = cpu_h,
    .h_step = cpu_h_step,
    .gather = cpu_gather,
    .pack_nonzero = cpu_pack_nonzero,
    .csr_upload = cpu_csr_upload,
    .csr_free = cpu_csr_free,
    .matvec = cpu_matvec,
    .wunpack = cpu_wunpack,
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
