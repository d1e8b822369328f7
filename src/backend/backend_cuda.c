/* backend_cuda.c: the CUDA backend: one instance per GPU, the vtable of backend_impl.h as plain C glue over the CUDA
 * layer (include/czk/cuda.h: MSM handles, NTT plans, streams, memory, events and the elementwise kernels of poly.cu).
 * Primitives only: no keys, no Groth16, no jobs (the prover over these primitives is src/groth16/prover.c).
 *
 * NTT plans are created once per (roots, log_n) and per log_n for the snarkjs H coset (shift omega_2n), outside the
 * lock (a racing duplicate is freed) and kept until the backend is destroyed; compact ones (czk_cuda_ntt_new_ex) once
 * czk_backend_set_compact_tables is on.
 * Errors: every call's status is checked; a CZK_ERR_DEVICE whose device context turns out unusable (sticky error
 * probe) quarantines the backend. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_impl.h"

#ifndef CZK_HAVE_CUDA
czk_status czk__backend_cuda_new(czk_backend **out, int device) {
  (void)device;
  *out = NULL;
  return CZK_ERR_UNSUPPORTED;
}
czk_status czk__backend_cuda_count(int *count) {
  *count = 0;
  return CZK_OK;
}
#else
#include "czk/cuda.h"
#include "czk/log.h"

typedef struct cu_ctx {
  int dev;
  pthread_mutex_t mu;
  czk_cuda_ntt *plan[3][29]; /* [roots] coset shift 7; [2] snarkjs roots, coset shift omega_2n (the snarkjs H) */
  bool compact;              /* plans made from now on are compact (czk_backend_set_compact_tables); under mu */
  char desc[160];
  uint64_t mem_total;
  unsigned sms;
} cu_ctx;

struct czk_backend_stream {
  void *s;
};
struct czk_backend_event {
  void *e;
};
struct czk_backend_msm {
  czk_backend_group g;
  czk_cuda_msm *m;
};
struct czk_backend_csr {
  uint64_t *d_row_ptr;
  uint32_t *d_col;
  czk_fr *d_val;
  size_t rows;
};

static cu_ctx *CTX(czk_backend *be) { return (cu_ctx *)be->ctx; }
static void *SP(czk_backend_stream *s) { return s ? s->s : NULL; }

/* Quarantine on a sticky error (the probe runs only on the error path). */
static czk_status chk(czk_backend *be, czk_status st) {
  if (st == CZK_ERR_DEVICE && czk_cuda_sticky_error()) czk__backend_quarantine(be, "sticky CUDA error");
  return st;
}
#define RET(be, expr) return chk((be), (expr))
#define TRYD(be, expr)                                                                                                \
  do {                                                                                                                \
    czk_status s__ = chk((be), (expr));                                                                               \
    if (s__ != CZK_OK) return s__;                                                                                    \
  } while (0)

static czk_status setdev(czk_backend *be) { return czk_cuda_set_device(CTX(be)->dev); }

/* ------------------------------------------------------------------------------------------------ basics */
static czk_status cu_props(czk_backend *be, czk_backend_props *out) {
  cu_ctx *c = CTX(be);
  TRYD(be, setdev(be));
  out->kind = CZK_BACKEND_CUDA;
  out->device = c->dev;
  snprintf(out->name, sizeof out->name, "%s", be->name);
  snprintf(out->description, sizeof out->description, "%s", c->desc);
  uint64_t f = 0, t = 0;
  unsigned sms = 0;
  TRYD(be, czk_cuda_mem_info(&f, &t, &sms));
  out->mem_total = t, out->mem_free = f, out->units = sms;
  out->host_memory = false;
  if (czk_cuda_mem_bandwidth(c->dev, &out->mem_bandwidth) != CZK_OK) out->mem_bandwidth = 0;
  return CZK_OK;
}
static czk_status cu_alloc(czk_backend *be, void **p, size_t bytes) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_malloc(p, bytes));
}
static void cu_mem_free(czk_backend *be, void *p) {
  if (setdev(be) == CZK_OK) chk(be, czk_cuda_free(p));
}
static czk_status cu_host_alloc(czk_backend *be, void **p, size_t bytes) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_host_alloc(p, bytes));
}
static void cu_host_free(czk_backend *be, void *p) { chk(be, czk_cuda_host_free(p)); }
static czk_status cu_host_register(czk_backend *be, const void *p, size_t bytes) {
  TRYD(be, setdev(be));
  return czk_cuda_host_register(p, bytes); /* a refusal (e.g. some mappings) is not a device fault */
}
static void cu_host_unregister(czk_backend *be, const void *p) {
  (void)be;
  czk_cuda_host_unregister(p);
}
/* level: 0 plain, 1 raised, 2 urgent */
static czk_status cu_stream_new_prio(czk_backend *be, czk_backend_stream **out, int level) {
  TRYD(be, setdev(be));
  czk_backend_stream *s = calloc(1, sizeof *s);
  if (!s) return CZK_ERR_NOMEM;
  czk_status st = chk(be, level == 2   ? czk_cuda_stream_create_urgent(&s->s)
                          : level == 1 ? czk_cuda_stream_create_raised(&s->s)
                                       : czk_cuda_stream_create(&s->s));
  if (st != CZK_OK) {
    free(s);
    return st;
  }
  *out = s;
  return CZK_OK;
}
static czk_status cu_stream_new(czk_backend *be, czk_backend_stream **out) { return cu_stream_new_prio(be, out, 0); }
static czk_status cu_stream_new_raised(czk_backend *be, czk_backend_stream **out) {
  return cu_stream_new_prio(be, out, 1);
}
static czk_status cu_stream_new_urgent(czk_backend *be, czk_backend_stream **out) {
  return cu_stream_new_prio(be, out, 2);
}
static void cu_stream_free(czk_backend *be, czk_backend_stream *s) {
  if (setdev(be) == CZK_OK) chk(be, czk_cuda_stream_destroy(s->s));
  free(s);
}
static czk_status cu_stream_sync(czk_backend *be, czk_backend_stream *s) { RET(be, czk_cuda_stream_sync(SP(s))); }
static czk_status cu_event_new(czk_backend *be, czk_backend_event **out) {
  TRYD(be, setdev(be));
  czk_backend_event *e = calloc(1, sizeof *e);
  if (!e) return CZK_ERR_NOMEM;
  czk_status st = chk(be, czk_cuda_event_new(&e->e, 1));
  if (st != CZK_OK) {
    free(e);
    return st;
  }
  *out = e;
  return CZK_OK;
}
static void cu_event_free(czk_backend *be, czk_backend_event *e) {
  (void)be;
  czk_cuda_event_free(e->e);
  free(e);
}
static czk_status cu_event_record(czk_backend *be, czk_backend_event *e, czk_backend_stream *s) {
  RET(be, czk_cuda_event_record(e->e, SP(s)));
}
static czk_status cu_stream_wait(czk_backend *be, czk_backend_stream *s, czk_backend_event *e) {
  RET(be, czk_cuda_stream_wait(SP(s), e->e));
}
static czk_status cu_event_sync(czk_backend *be, czk_backend_event *e) { RET(be, czk_cuda_event_sync(e->e)); }
static czk_status cu_event_elapsed(czk_backend *be, float *ms, czk_backend_event *a, czk_backend_event *b) {
  RET(be, czk_cuda_event_elapsed(ms, a->e, b->e));
}
static czk_status cu_htod(czk_backend *be, void *d, const void *h, size_t bytes, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_memcpy_htod(d, h, bytes, SP(s)));
}
static czk_status cu_dtoh(czk_backend *be, void *h, const void *d, size_t bytes, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_memcpy_dtoh(h, d, bytes, SP(s)));
}

/* ------------------------------------------------------------------------------------------------ operations */
/* MSM handles over device bases: scratch allocated once (czk_cuda_msm_*_new_device), runs asynchronous. */
static czk_status cu_msm_new(czk_backend *be, czk_backend_msm **out, czk_backend_group g, const void *b, size_t n_max) {
  TRYD(be, setdev(be));
  czk_backend_msm *m = calloc(1, sizeof *m);
  if (!m) return CZK_ERR_NOMEM;
  m->g = g;
  czk_status st = g == CZK_BACKEND_G1 ? czk_cuda_msm_g1_new_device(&m->m, b, n_max)
                                      : czk_cuda_msm_g2_new_device(&m->m, b, n_max);
  if (st != CZK_OK) {
    free(m);
    return chk(be, st);
  }
  *out = m;
  return CZK_OK;
}
static czk_status cu_msm_run(czk_backend *be, czk_backend_msm *m, void *out, const czk_fr *k, size_t n,
                             czk_backend_stream *s) {
  TRYD(be, setdev(be));
  const unsigned fl = CZK_CUDA_SCALARS_DEVICE | CZK_CUDA_SCALARS_MONT;
  if (m->g == CZK_BACKEND_G1) RET(be, czk_cuda_msm_g1_run(m->m, out, (const uint64_t *)k, n, fl, SP(s)));
  RET(be, czk_cuda_msm_g2_run(m->m, out, (const uint64_t *)k, n, fl, SP(s)));
}
static czk_status cu_msm_run_series(czk_backend *be, czk_backend_msm *m, void *out, size_t base_off, const czk_fr *k,
                                    size_t n, unsigned series, size_t n_total, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  const unsigned fl = CZK_CUDA_SCALARS_DEVICE | CZK_CUDA_SCALARS_MONT |
                      (series & CZK_BACKEND_MSM_FIRST ? CZK_CUDA_SERIES_FIRST : 0) |
                      (series & CZK_BACKEND_MSM_LAST ? CZK_CUDA_SERIES_LAST : 0);
  RET(be, czk_cuda_msm_run_series(m->m, m->g == CZK_BACKEND_G1 ? 1 : 2, out, base_off, (const uint64_t *)k, n, fl,
                                  n_total, SP(s)));
}
static czk_status cu_msm_share(czk_backend *be, czk_backend_msm *m, czk_backend_msm *with) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_msm_share_scratch(m->m, with->m));
}
static czk_status cu_msm_plan_bytes(czk_backend *be, const czk_backend_msm_need *needs, size_t k, uint64_t *bytes) {
  TRYD(be, setdev(be));
  int g[8], dn[8];
  size_t n[8];
  if (k > 8) return CZK_ERR_INVALID_ARG;
  for (size_t i = 0; i < k; i++) g[i] = needs[i].g == CZK_BACKEND_G1 ? 1 : 2, n[i] = needs[i].n, dn[i] = needs[i].dense;
  RET(be, czk_cuda_msm_plan_bytes(g, n, dn, k, bytes));
}
static czk_status cu_msm_reserve(czk_backend *be, czk_backend_msm *m, size_t n) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_msm_reserve(m->m, n));
}
static void cu_msm_set_dense(czk_backend *be, czk_backend_msm *m, bool dense) {
  (void)be;
  czk_cuda_msm_set_dense(m->m, dense);
}
static void cu_msm_free(czk_backend *be, czk_backend_msm *m) {
  if (setdev(be) == CZK_OK) czk_cuda_msm_free(m->m);
  free(m);
}

/* NTT plan of exactly 2^log_n (created once, outside the lock; a racing duplicate is freed). slot: a czk_fr_roots
 * (coset shift 7), or PLAN_SNARKJS_H (snarkjs roots, coset shift omega_2n). */
#define PLAN_SNARKJS_H 2
static czk_status plan_get(czk_backend *be, int slot, unsigned log_n, czk_cuda_ntt **out) {
  cu_ctx *c = CTX(be);
  pthread_mutex_lock(&c->mu);
  *out = c->plan[slot][log_n];
  const bool compact = c->compact;
  pthread_mutex_unlock(&c->mu);
  if (*out) return CZK_OK;
  czk_cuda_ntt *p = NULL;
  void *st = NULL;
  unsigned lg = log_n ? log_n : 1;
  czk_fr shift;
  czk_status s = CZK_OK;
  if (slot == PLAN_SNARKJS_H) s = czk_fr_root_of_unity(&shift, lg + 1, CZK_ROOTS_SNARKJS);
  if (s == CZK_OK) s = czk_cuda_stream_create(&st);
  if (s == CZK_OK)
    s = czk_cuda_ntt_new_ex(&p, lg, slot == PLAN_SNARKJS_H ? CZK_ROOTS_SNARKJS : (czk_fr_roots)slot,
                            slot == PLAN_SNARKJS_H ? &shift : NULL, compact ? 1 : 0, st);
  if (st) czk_cuda_stream_destroy(st);
  if (s != CZK_OK) return s;
  pthread_mutex_lock(&c->mu);
  if (!c->plan[slot][log_n]) c->plan[slot][log_n] = p, p = NULL;
  *out = c->plan[slot][log_n];
  pthread_mutex_unlock(&c->mu);
  if (p) czk_cuda_ntt_free(p);
  return CZK_OK;
}

static int plan_slot(czk_h_kind kind) { return kind == CZK_H_SNARKJS ? PLAN_SNARKJS_H : (int)CZK_ROOTS_BELLMAN; }
static uint64_t cu_h_plan_bytes(czk_backend *be, unsigned log_n, czk_h_kind kind) {
  if (log_n > 28) return 0;
  cu_ctx *c = CTX(be);
  pthread_mutex_lock(&c->mu);
  bool have = c->plan[plan_slot(kind)][log_n] != NULL, compact = c->compact;
  pthread_mutex_unlock(&c->mu);
  return have ? 0 : czk_cuda_ntt_plan_bytes_ex(log_n ? log_n : 1, compact ? 1 : 0);
}
static czk_status cu_h_prepare(czk_backend *be, unsigned log_n, czk_h_kind kind) {
  if (log_n > 28) return CZK_ERR_INVALID_ARG;
  TRYD(be, setdev(be));
  czk_cuda_ntt *p;
  TRYD(be, plan_get(be, plan_slot(kind), log_n, &p));
  return CZK_OK;
}
static uint64_t cu_tables_bytes(czk_backend *be) {
  cu_ctx *c = CTX(be);
  uint64_t sum = 0;
  pthread_mutex_lock(&c->mu);
  for (int r = 0; r < 3; r++)
    for (unsigned k = 0; k < 29; k++) sum += czk_cuda_ntt_bytes(c->plan[r][k]); /* full or compact, as made */
  pthread_mutex_unlock(&c->mu);
  return sum;
}
static void cu_set_compact_tables(czk_backend *be, bool compact) {
  cu_ctx *c = CTX(be);
  pthread_mutex_lock(&c->mu);
  c->compact = compact;
  pthread_mutex_unlock(&c->mu);
}
static bool cu_compact_tables(const czk_backend *be) {
  cu_ctx *c = (cu_ctx *)be->ctx;
  pthread_mutex_lock(&c->mu);
  bool v = c->compact;
  pthread_mutex_unlock(&c->mu);
  return v;
}

static czk_status cu_ntt(czk_backend *be, czk_fr *d, unsigned log_n, czk_fr_roots roots, czk_backend_ntt_dir dir,
                         czk_backend_stream *s) {
  TRYD(be, setdev(be));
  czk_cuda_ntt *p;
  TRYD(be, plan_get(be, (int)roots, log_n, &p));
  RET(be, czk_cuda_ntt_run(p, d, log_n, (czk_cuda_ntt_dir)dir, SP(s)));
}

/* z^-1 for z = g^n - 1 (the vanishing polynomial X^n - 1 at any point of the coset g*H). */
static void zinv_of(czk_fr *zinv, unsigned log_n) {
  czk_fr g, z;
  czk_fr_coset_generator(&g);
  z = g;
  for (unsigned i = 0; i < log_n; i++) czk_fr_mul(&z, &z, &z);
  czk_fr_sub(&z, &z, &czk_fr_one_v);
  czk_fr_inv(zinv, &z);
}

/* One step of H over two buffers (ntt.h czk_h_step): PREP iNTT + coset NTT; MUL x y; FINISH (x - y) / (g^n - 1) and
 * the coset iNTT (snarkjs: x - y). */
static czk_status cu_h_step(czk_backend *be, czk_h_step step, czk_fr *x, const czk_fr *y, unsigned log_n,
                            czk_h_kind kind, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  czk_cuda_ntt *p;
  const bool snark = kind == CZK_H_SNARKJS;
  TRYD(be, plan_get(be, snark ? PLAN_SNARKJS_H : (int)CZK_ROOTS_BELLMAN, log_n, &p));
  const size_t n = (size_t)1 << log_n;
  czk_fr zinv = czk_fr_one_v;
  switch (step) {
    case CZK_H_STEP_PREP:
      TRYD(be, czk_cuda_ntt_run(p, x, log_n, CZK_CUDA_NTT_INVERSE, SP(s)));
      RET(be, czk_cuda_ntt_run(p, x, log_n, CZK_CUDA_NTT_COSET_FORWARD, SP(s)));
    case CZK_H_STEP_MUL: RET(be, czk_cuda_h_pointwise(x, y, NULL, n, &zinv, SP(s)));
    case CZK_H_STEP_FINISH:
      if (!snark) zinv_of(&zinv, log_n);
      TRYD(be, czk_cuda_h_pointwise(x, NULL, y, n, &zinv, SP(s)));
      if (snark) return CZK_OK;
      RET(be, czk_cuda_ntt_run(p, x, log_n, CZK_CUDA_NTT_COSET_INVERSE, SP(s)));
  }
  return CZK_ERR_INVALID_ARG;
}

/* H on the stream: bellperson: iNTT, coset NTT (g = 7), (a b - c) / (g^n - 1), coset iNTT; snarkjs: iNTT, coset NTT
 * with shift omega_2n (the odd coset), a b - c (the pointwise kernel with z^-1 = 1). */
static czk_status h_chain(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n, czk_h_kind kind, void *s) {
  czk_cuda_ntt *p;
  bool snark = kind == CZK_H_SNARKJS;
  CZK_TRY(plan_get(be, snark ? PLAN_SNARKJS_H : (int)CZK_ROOTS_BELLMAN, log_n, &p));
  czk_fr *v[3] = {a, b, c};
  for (int i = 0; i < 3; i++) CZK_TRY(czk_cuda_ntt_run(p, v[i], log_n, CZK_CUDA_NTT_INVERSE, s));
  for (int i = 0; i < 3; i++) CZK_TRY(czk_cuda_ntt_run(p, v[i], log_n, CZK_CUDA_NTT_COSET_FORWARD, s));
  czk_fr zinv = czk_fr_one_v;
  if (!snark) zinv_of(&zinv, log_n);
  CZK_TRY(czk_cuda_h_pointwise(a, b, c, (size_t)1 << log_n, &zinv, s));
  return snark ? CZK_OK : czk_cuda_ntt_run(p, a, log_n, CZK_CUDA_NTT_COSET_INVERSE, s);
}
static czk_status cu_h(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n, czk_h_kind kind,
                       czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, h_chain(be, a, b, c, log_n, kind, SP(s)));
}
static czk_status cu_gather(czk_backend *be, czk_fr *out, const czk_fr *in, const uint32_t *idx, size_t n,
                            czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_gather(out, in, idx, n, SP(s)));
}

static czk_status cu_pack_nonzero(czk_backend *be, void *bases_out, czk_fr *sc_out, const void *h_bases,
                                  size_t base_size, const czk_fr *w, const uint32_t *idx, size_t n, void *tmp,
                                  uint64_t *bytes, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_pack_nonzero(bases_out, sc_out, h_bases, base_size, w, idx, n, tmp, bytes, SP(s)));
}

static void cu_csr_free(czk_backend *be, czk_backend_csr *m) {
  if (setdev(be) == CZK_OK) {
    czk_cuda_free(m->d_row_ptr);
    czk_cuda_free(m->d_col);
    czk_cuda_free(m->d_val);
  }
  free(m);
}
static czk_status cu_csr_upload(czk_backend *be, czk_backend_csr **out, const uint64_t *row_ptr, const uint32_t *col,
                                const czk_fr *val, size_t rows, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  czk_backend_csr *r = calloc(1, sizeof *r);
  if (!r) return CZK_ERR_NOMEM;
  r->rows = rows;
  const size_t m_nnz = row_ptr[rows], nnz = m_nnz ? m_nnz : 1;
  czk_status st = czk_cuda_malloc((void **)&r->d_row_ptr, (rows + 1) * 8);
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&r->d_col, nnz * 4);
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&r->d_val, nnz * sizeof(czk_fr));
  if (st == CZK_OK) st = czk_cuda_memcpy_htod(r->d_row_ptr, row_ptr, (rows + 1) * 8, SP(s));
  if (st == CZK_OK && m_nnz) st = czk_cuda_memcpy_htod(r->d_col, col, m_nnz * 4, SP(s));
  if (st == CZK_OK && m_nnz) st = czk_cuda_memcpy_htod(r->d_val, val, m_nnz * sizeof(czk_fr), SP(s));
  if (st == CZK_OK) st = czk_cuda_stream_sync(SP(s)); /* the host arrays may go away after we return */
  if (st != CZK_OK) {
    cu_csr_free(be, r);
    return chk(be, st);
  }
  *out = r;
  return CZK_OK;
}
static czk_status cu_matvec(czk_backend *be, czk_fr *out, const czk_backend_csr *m, const czk_fr *w,
                            czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_csr_matvec(out, m->d_row_ptr, m->d_col, m->d_val, m->rows, w, SP(s)));
}

struct czk_backend_compiled {
  uint32_t n_segments;
  czk_cuda_tseg *seg; /* host */
  uint32_t *d_row_ptr[3], *d_col[3], *d_ref[3], *d_table;
  czk_fr *d_coef;
  uint32_t one_index, minus_one_index;
};
static void cu_compiled_free(czk_backend *be, czk_backend_compiled *m) {
  if (setdev(be) == CZK_OK) {
    for (int k = 0; k < 3; k++) {
      czk_cuda_free(m->d_row_ptr[k]);
      czk_cuda_free(m->d_col[k]);
      czk_cuda_free(m->d_ref[k]);
    }
    czk_cuda_free(m->d_table);
    czk_cuda_free(m->d_coef);
  }
  free(m->seg);
  free(m);
}
/* One device copy of a host array (at least 1 element allocated, so empty arrays are valid pointers). */
static czk_status cu_put(void **d, const void *h, size_t bytes, czk_backend_stream *s) {
  czk_status st = czk_cuda_malloc(d, bytes ? bytes : 4);
  if (st == CZK_OK && bytes) st = czk_cuda_memcpy_htod(*d, h, bytes, SP(s));
  return st;
}
static czk_status cu_compiled_upload(czk_backend *be, czk_backend_compiled **out, const czk_backend_compiled_desc *d,
                                     czk_backend_stream *s) {
  TRYD(be, setdev(be));
  czk_backend_compiled *r = calloc(1, sizeof *r);
  if (!r) return CZK_ERR_NOMEM;
  r->seg = malloc((d->n_segments ? d->n_segments : 1) * sizeof *r->seg);
  czk_status st = r->seg ? CZK_OK : CZK_ERR_NOMEM;
  r->n_segments = d->n_segments;
  for (uint32_t i = 0; i < d->n_segments && st == CZK_OK; i++) {
    const czk_backend_tseg *g = &d->seg[i];
    r->seg[i] = (czk_cuda_tseg){g->row0, g->tmpl_row0, g->n_rows, g->reps, g->in_stride, g->aux_stride,
                                g->table_width, g->table_off};
  }
  r->one_index = d->one_index, r->minus_one_index = d->minus_one_index;
  for (int k = 0; k < 3 && st == CZK_OK; k++) {
    st = cu_put((void **)&r->d_row_ptr[k], d->row_ptr[k], ((size_t)d->n_tmpl_rows + 1) * 4, s);
    if (st == CZK_OK) st = cu_put((void **)&r->d_col[k], d->col[k], (size_t)d->nnz[k] * 4, s);
    if (st == CZK_OK) st = cu_put((void **)&r->d_ref[k], d->ref[k], (size_t)d->nnz[k] * 4, s);
  }
  if (st == CZK_OK) st = cu_put((void **)&r->d_table, d->table, (size_t)d->table_len * 4, s);
  if (st == CZK_OK) st = cu_put((void **)&r->d_coef, d->coef, (size_t)d->n_coef * sizeof(czk_fr), s);
  if (st == CZK_OK) st = czk_cuda_stream_sync(SP(s)); /* the host arrays may go away after we return */
  if (st != CZK_OK) {
    cu_compiled_free(be, r);
    return chk(be, st);
  }
  *out = r;
  return CZK_OK;
}
static czk_status cc_matvec(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, const czk_backend_compiled *m,
                            const czk_fr *w, uint64_t n_check, uint32_t *flag, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  const uint32_t *rp[3] = {m->d_row_ptr[0], m->d_row_ptr[1], m->d_row_ptr[2]};
  const uint32_t *cl[3] = {m->d_col[0], m->d_col[1], m->d_col[2]};
  const uint32_t *rf[3] = {m->d_ref[0], m->d_ref[1], m->d_ref[2]};
  RET(be, czk_cuda_compiled_matvec_ex(a, b, c, m->seg, m->n_segments, rp, cl, rf, m->d_coef, m->d_table,
                                      m->one_index, m->minus_one_index, w, n_check, flag, SP(s)));
}
static czk_status cu_compiled_matvec(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, const czk_backend_compiled *m,
                                     const czk_fr *w, czk_backend_stream *s) {
  return cc_matvec(be, a, b, c, m, w, 0, NULL, s);
}
static czk_status cu_compiled_check(czk_backend *be, const czk_backend_compiled *m, const czk_fr *w, uint64_t n_check,
                                    uint32_t *flag, czk_fr *a, czk_fr *b, czk_fr *c, czk_backend_stream *s) {
  return cc_matvec(be, a, b, c, m, w, n_check, flag, s);
}

static czk_status cu_abc_finish(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, const czk_fr *w, uint64_t n_user,
                                uint64_t n_inputs, uint64_t n_domain, uint64_t n_check, uint32_t *flag,
                                czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_abc_finish(a, b, c, w, n_user, n_inputs, n_domain, n_check, flag, SP(s)));
}

_Static_assert(CZK_CUDA_WPACK_CHUNK == CZK_WPACK_CHUNK && CZK_CUDA_WPACK_VALS(3) == CZK_WPACK_VALS(3) &&
                   CZK_CUDA_WPACK_VALS(1000) == CZK_WPACK_VALS(1000),
               "the packed witness layouts of cuda.h and backend.h differ");
static czk_status cu_wunpack(czk_backend *be, czk_fr *w, const void *src, size_t n, size_t n_other,
                             czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_wunpack(w, src, n, n_other, SP(s)));
}

static czk_status cu_fixed_base(czk_backend *be, czk_backend_group g, void *out, const czk_fr *k, size_t n) {
  TRYD(be, setdev(be));
  if (g == CZK_BACKEND_G1) RET(be, czk_cuda_fixed_base_g1(out, k, n));
  RET(be, czk_cuda_fixed_base_g2(out, k, n));
}

/* ------------------------------------------------------------------------------------------------ lifecycle */
static void cu_destroy(czk_backend *be) {
  cu_ctx *c = CTX(be);
  setdev(be);
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 29; k++) czk_cuda_ntt_free(c->plan[r][k]);
  pthread_mutex_destroy(&c->mu);
  free(c);
  free(be);
}

static const czk_backend_iface cu_iface = {
    .kind = CZK_BACKEND_CUDA,
    .destroy = cu_destroy,
    .props = cu_props,
    .alloc = cu_alloc,
    .mem_free = cu_mem_free,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .stream_new = cu_stream_new,
    .stream_new_urgent = cu_stream_new_urgent,
    .stream_new_raised = cu_stream_new_raised,
    .stream_free = cu_stream_free,
    .stream_sync = cu_stream_sync,
    .event_new = cu_event_new,
    .event_free = cu_event_free,
    .event_record = cu_event_record,
    .stream_wait = cu_stream_wait,
    .event_sync = cu_event_sync,
    .event_elapsed = cu_event_elapsed,
    .copy_htod = cu_htod,
    .copy_dtoh = cu_dtoh,
    .host_register = cu_host_register,
    .host_unregister = cu_host_unregister,
    .msm_new = cu_msm_new,
    .msm_run = cu_msm_run,
    .msm_run_series = cu_msm_run_series,
    .msm_free = cu_msm_free,
    .msm_share = cu_msm_share,
    .msm_plan_bytes = cu_msm_plan_bytes,
    .msm_reserve = cu_msm_reserve,
    .msm_set_dense = cu_msm_set_dense,
    .h_plan_bytes = cu_h_plan_bytes,
    .h_prepare = cu_h_prepare,
    .tables_bytes = cu_tables_bytes,
    .set_compact_tables = cu_set_compact_tables,
    .compact_tables = cu_compact_tables,
    .ntt = cu_ntt,
    .h = cu_h,
    .h_step = cu_h_step,
    .gather = cu_gather,
    .pack_nonzero = cu_pack_nonzero,
    .pack_nonzero_tmp = czk_cuda_pack_nonzero_tmp,
    .csr_upload = cu_csr_upload,
    .csr_free = cu_csr_free,
    .matvec = cu_matvec,
    .compiled_upload = cu_compiled_upload,
    .compiled_free = cu_compiled_free,
    .compiled_matvec = cu_compiled_matvec,
    .compiled_check = cu_compiled_check,
    .abc_finish = cu_abc_finish,
    .wunpack = cu_wunpack,
    .fixed_base = cu_fixed_base,
};

czk_status czk__backend_cuda_count(int *count) {
  *count = 0;
  if (!czk_cuda_available()) return CZK_OK;
  if (czk_cuda_device_count(count) != CZK_OK) *count = 0;
  return CZK_OK;
}

czk_status czk__backend_cuda_new(czk_backend **out, int device) {
  *out = NULL;
  CZK_TRY(czk_cuda_set_device(device));
  czk_backend *be = calloc(1, sizeof *be);
  cu_ctx *c = calloc(1, sizeof *c);
  if (!be || !c) {
    free(be);
    free(c);
    return CZK_ERR_NOMEM;
  }
  c->dev = device;
  czk_status st = czk_cuda_device_describe(device, c->desc, sizeof c->desc);
  uint64_t f = 0;
  if (st == CZK_OK) st = czk_cuda_mem_info(&f, &c->mem_total, &c->sms);
  if (st != CZK_OK) {
    free(be);
    free(c);
    return st;
  }
  pthread_mutex_init(&c->mu, NULL);
  be->iface = &cu_iface;
  be->ctx = c;
  be->device = device;
  snprintf(be->name, sizeof be->name, "cuda:%d", device);
  *out = be;
  return CZK_OK;
}
#endif
