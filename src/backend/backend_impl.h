/* backend_impl.h: the vtable behind czk_backend (one per device kind: backend_cpu.c, backend_cuda.c) and the
 * interface between the Groth16 prover (src/groth16/prove_backend.c) and a backend's prover pipeline.
 * Invariant: the public wrappers (backend.c) check arguments and quarantine; vtable entries may assume valid ones. */
#ifndef CZK_BACKEND_IMPL_H
#define CZK_BACKEND_IMPL_H

#include <stdatomic.h>

#include "czk/backend.h"

/* One proof handed to a backend: inputs (the assignment is consumed by launch: freed there or by release) and the
 * five partial sums (valid after wait). */
typedef struct czk_backend_g16 {
  const czk_backend_pk *key;
  const czk_r1cs *shape;
  czk_groth16_assignment *as;
  czk_pool *pool;
  czk_g1 h, l, a, b1;
  czk_g2 b2;
  czk_groth16_timings t;
} czk_backend_g16;

typedef struct czk_backend_iface {
  czk_backend_kind kind;
  void (*destroy)(czk_backend *be);
  czk_status (*props)(czk_backend *be, czk_backend_props *out);
  czk_status (*alloc)(czk_backend *be, void **dptr, size_t bytes);
  void (*mem_free)(czk_backend *be, void *dptr);
  czk_status (*host_alloc)(czk_backend *be, void **hptr, size_t bytes);
  void (*host_free)(czk_backend *be, void *hptr);
  czk_status (*stream_new)(czk_backend *be, czk_backend_stream **out);
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
  czk_status (*msm_g1)(czk_backend *be, czk_g1 *out, const czk_g1_affine *b, const czk_fr *k, size_t n,
                       czk_backend_stream *s);
  czk_status (*msm_g2)(czk_backend *be, czk_g2 *out, const czk_g2_affine *b, const czk_fr *k, size_t n,
                       czk_backend_stream *s);
  czk_status (*ntt)(czk_backend *be, czk_fr *d, unsigned log_n, czk_fr_roots roots, czk_backend_ntt_dir dir,
                    czk_backend_stream *s);
  czk_status (*h)(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n, czk_backend_stream *s);
  czk_status (*csr_upload)(czk_backend *be, czk_backend_csr **out, const czk_csr *m, size_t rows,
                           czk_backend_stream *s);
  void (*csr_free)(czk_backend *be, czk_backend_csr *m);
  czk_status (*matvec)(czk_backend *be, czk_fr *out, const czk_backend_csr *m, const czk_fr *w,
                       czk_backend_stream *s);
  /* Groth16: launch (after the caller checked sizes; the backend runs czk__groth16_check_rows before any MSM),
   * wait (fills the sums and timings), release (always called once after a successful launch). */
  czk_status (*g16_launch)(czk_backend *be, czk_backend_g16 *job, void **pending);
  czk_status (*g16_wait)(czk_backend *be, czk_backend_g16 *job, void *pending);
  void (*g16_release)(czk_backend *be, void *pending);
  czk_status (*key_capacity)(czk_backend *be, uint64_t bytes);
  czk_status (*key_evict)(czk_backend *be, const void *id);
  czk_status (*cache_stats)(czk_backend *be, czk_backend_cache_stats *out);
} czk_backend_iface;

struct czk_backend {
  const czk_backend_iface *iface;
  void *ctx;
  char name[32];
  int device;
  _Atomic int quarantined;
};

/* Backend constructors (backend_cpu.c, backend_cuda.c). cuda: CZK_ERR_UNSUPPORTED without CUDA. */
czk_status czk__backend_cpu_new(czk_backend **out, czk_pool *pool);
czk_status czk__backend_cuda_new(czk_backend **out, int device);
czk_status czk__backend_cuda_count(int *count); /* 0 without CUDA or devices */

/* Quarantine: a backend entry calls this when the device reported a sticky error. */
void czk__backend_quarantine(czk_backend *be, const char *why);

/* Row check of a Groth16 assignment on the pool (prove_backend.c): CZK_ERR_UNSATISFIED when some a_j b_j != c_j,
 * j < m. Cost: m Fr multiplications, split across the pool. */
czk_status czk__groth16_check_rows(const czk_fr *a, const czk_fr *b, const czk_fr *c, size_t m, czk_pool *pool);

/* Index lists of the density-filtered queries (host, malloc'd): idx_a = inputs then aux with A-density (n_a
 * entries), idx_b = inputs with B-density then aux with B-density (n_b entries); unified witness indices. */
czk_status czk__groth16_density_index(const czk_r1cs *shape, uint32_t **idx_a, size_t *n_a, uint32_t **idx_b,
                                      size_t *n_b);

#endif
