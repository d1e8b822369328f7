/* backend_impl.h: the vtable behind czk_backend (one per device kind: backend_cpu.c, backend_cuda.c).
 * Invariant: the public wrappers (backend.c) check arguments and quarantine; vtable entries may assume valid ones. */
#ifndef CZK_BACKEND_IMPL_H
#define CZK_BACKEND_IMPL_H

#include <stdatomic.h>

#include <pthread.h>

#include "czk/backend.h"

typedef struct czk_backend_iface {
  czk_backend_kind kind;
  void (*destroy)(czk_backend *be);
  czk_status (*props)(czk_backend *be, czk_backend_props *out);
  czk_status (*alloc)(czk_backend *be, void **dptr, size_t bytes);
  void (*mem_free)(czk_backend *be, void *dptr);
  czk_status (*host_alloc)(czk_backend *be, void **hptr, size_t bytes);
  void (*host_free)(czk_backend *be, void *hptr);
  czk_status (*host_register)(czk_backend *be, const void *hptr, size_t bytes);
  void (*host_unregister)(czk_backend *be, const void *hptr);
  czk_status (*stream_new)(czk_backend *be, czk_backend_stream **out);
  czk_status (*stream_new_urgent)(czk_backend *be, czk_backend_stream **out); /* optional: else stream_new */
  czk_status (*stream_new_raised)(czk_backend *be, czk_backend_stream **out); /* optional: else stream_new */
  void (*stream_free)(czk_backend *be, czk_backend_stream *s);
  czk_status (*stream_sync)(czk_backend *be, czk_backend_stream *s);
  czk_status (*event_new)(czk_backend *be, czk_backend_event **out);
  void (*event_free)(czk_backend *be, czk_backend_event *e);
  czk_status (*event_record)(czk_backend *be, czk_backend_event *e, czk_backend_stream *s);
  czk_status (*stream_wait)(czk_backend *be, czk_backend_stream *s, czk_backend_event *e);
  czk_status (*event_sync)(czk_backend *be, czk_backend_event *e);
  czk_status (*event_elapsed)(czk_backend *be, float *ms, czk_backend_event *a, czk_backend_event *b);
  czk_status (*copy_htod)(czk_backend *be, void *d, const void *h, size_t bytes, czk_backend_stream *s);
  czk_status (*copy_dtoh)(czk_backend *be, void *h, const void *d, size_t bytes, czk_backend_stream *s);
  czk_status (*msm_new)(czk_backend *be, czk_backend_msm **out, czk_backend_group g, const void *b, size_t n_max);
  czk_status (*msm_run)(czk_backend *be, czk_backend_msm *m, void *out, const czk_fr *k, size_t n,
                        czk_backend_stream *s);
  void (*msm_free)(czk_backend *be, czk_backend_msm *m);
  czk_status (*ntt)(czk_backend *be, czk_fr *d, unsigned log_n, czk_fr_roots roots, czk_backend_ntt_dir dir,
                    czk_backend_stream *s);
  czk_status (*h)(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n, czk_h_kind kind,
                  czk_backend_stream *s);
  czk_status (*gather)(czk_backend *be, czk_fr *out, const czk_fr *in, const uint32_t *idx, size_t n,
                       czk_backend_stream *s);
  czk_status (*pack_nonzero)(czk_backend *be, void *bases_out, czk_fr *sc_out, const void *h_bases, size_t base_size,
                             const czk_fr *w, const uint32_t *idx, size_t n, void *tmp, uint64_t *bytes,
                             czk_backend_stream *s);
  size_t (*pack_nonzero_tmp)(size_t n);
  czk_status (*csr_upload)(czk_backend *be, czk_backend_csr **out, const uint64_t *row_ptr, const uint32_t *col,
                           const czk_fr *val, size_t rows, czk_backend_stream *s);
  void (*csr_free)(czk_backend *be, czk_backend_csr *m);
  czk_status (*matvec)(czk_backend *be, czk_fr *out, const czk_backend_csr *m, const czk_fr *w,
                       czk_backend_stream *s);
  /* optional (NULL: CZK_ERR_UNSUPPORTED) */
  czk_status (*fixed_base)(czk_backend *be, czk_backend_group g, void *out, const czk_fr *k, size_t n);
  czk_status (*compiled_upload)(czk_backend *be, czk_backend_compiled **out, const czk_backend_compiled_desc *d,
                                czk_backend_stream *s);
  void (*compiled_free)(czk_backend *be, czk_backend_compiled *m);
  czk_status (*compiled_matvec)(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, const czk_backend_compiled *m,
                                const czk_fr *w, czk_backend_stream *s);
  czk_status (*abc_finish)(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, const czk_fr *w, uint64_t n_user,
                           uint64_t n_inputs, uint64_t n_domain, uint64_t n_check, uint32_t *flag,
                           czk_backend_stream *s);
  /* optional (NULL: nothing to share): m takes with's MSM scratch */
  czk_status (*msm_share)(czk_backend *be, czk_backend_msm *m, czk_backend_msm *with);
  /* optional (NULL: a backend whose handles keep no scratch between runs: 0 bytes, nothing to reserve): the device
   * memory plan of MSM scratch (backend.h czk_backend_msm_plan_bytes / _reserve / _set_dense) */
  czk_status (*msm_plan_bytes)(czk_backend *be, const czk_backend_msm_need *needs, size_t k, uint64_t *bytes);
  czk_status (*msm_reserve)(czk_backend *be, czk_backend_msm *m, size_t n);
  void (*msm_set_dense)(czk_backend *be, czk_backend_msm *m, bool dense);
  /* optional (NULL: H needs no tables kept by the backend): the bytes H's tables for 2^log_n would add (0 once they
   * exist), making them now, and the bytes of the tables the backend holds */
  uint64_t (*h_plan_bytes)(czk_backend *be, unsigned log_n, czk_h_kind kind);
  czk_status (*h_prepare)(czk_backend *be, unsigned log_n, czk_h_kind kind);
  uint64_t (*tables_bytes)(czk_backend *be);
  /* optional (NULL: CZK_ERR_UNSUPPORTED): backend.h czk_backend_compiled_check */
  czk_status (*compiled_check)(czk_backend *be, const czk_backend_compiled *m, const czk_fr *w, uint64_t n_check,
                               uint32_t *flag, czk_fr *a, czk_fr *b, czk_fr *c, czk_backend_stream *s);
  /* H one step at a time (backend.h czk_backend_h_step) */
  czk_status (*h_step)(czk_backend *be, czk_h_step step, czk_fr *x, const czk_fr *y, unsigned log_n, czk_h_kind kind,
                       czk_backend_stream *s);
  /* a run over bases [base_off, base_off + n) of the handle's, one of a series (backend.h czk_backend_msm_run_series;
   * series CZK_BACKEND_MSM_FIRST | CZK_BACKEND_MSM_LAST for a run alone) */
  czk_status (*msm_run_series)(czk_backend *be, czk_backend_msm *m, void *out, size_t base_off, const czk_fr *k,
                               size_t n, unsigned series, size_t n_total, czk_backend_stream *s);
  /* optional (NULL: the backend has one kind of tables): make compact NTT tables from now on (backend.h
   * czk_backend_set_compact_tables), and whether it does */
  void (*set_compact_tables)(czk_backend *be, bool compact);
  bool (*compact_tables)(const czk_backend *be);
  /* optional: a packed witness (backend.h) unpacked into w */
  czk_status (*wunpack)(czk_backend *be, czk_fr *w, const void *src, size_t n, size_t n_other, czk_backend_stream *s);
} czk_backend_iface;

struct czk_backend {
  const czk_backend_iface *iface;
  void *ctx;
  char name[32];
  int device;
  _Atomic int quarantined;
  /* czk_backend_mem_watch: a thread sampling the device's memory in use (total - free) every 10 ms */
  pthread_mutex_t watch_mu;
  pthread_t watch_thread;
  _Atomic int watching; /* 0 off, 1 running, 2 stop asked */
  _Atomic uint64_t mem_peak;
};

/* Backend constructors (backend_cpu.c, backend_cuda.c). cuda: CZK_ERR_UNSUPPORTED without CUDA. */
czk_status czk__backend_cpu_new(czk_backend **out, czk_pool *pool);
czk_status czk__backend_cuda_new(czk_backend **out, int device);
czk_status czk__backend_cuda_count(int *count); /* 0 without CUDA or devices */

/* Quarantine: a backend entry calls this when the device reported a sticky error. */
void czk__backend_quarantine(czk_backend *be, const char *why);

#endif
