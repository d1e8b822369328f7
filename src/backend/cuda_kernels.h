/* cuda_kernels.h: what the CUDA backend (backend_cuda.c) needs beyond include/czk/cuda.h, implemented in
 * backend_kernels.cu: events, device memory info, stream-ordered allocation, the sticky-error probe, and the kernels
 * of the prover that the kernel layer does not have (H pointwise step, witness gather, CSR mat-vec). Every CUDA call
 * is checked: failures are logged with call and file:line and returned as CZK_ERR_DEVICE (CZK_ERR_NOMEM for
 * allocations). Streams and events are opaque cudaStream_t / cudaEvent_t. Built only with CUDA. */
#ifndef CZK_BACKEND_CUDA_KERNELS_H
#define CZK_BACKEND_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "czk/field.h"
#include "czk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

czk_status czk__bkc_event_new(void **ev, int timing);
void czk__bkc_event_free(void *ev);
czk_status czk__bkc_event_record(void *ev, void *stream);
czk_status czk__bkc_event_sync(void *ev);
czk_status czk__bkc_stream_wait(void *stream, void *ev);
czk_status czk__bkc_event_elapsed(float *ms, void *a, void *b);
czk_status czk__bkc_mem_info(uint64_t *free_b, uint64_t *total_b, unsigned *sms);
czk_status czk__bkc_malloc_async(void **p, size_t bytes, void *stream);
czk_status czk__bkc_free_async(void *p, void *stream);
/* Register host memory as pinned (read-only use); CZK_ERR_UNSUPPORTED when the driver refuses (e.g. some mappings). */
czk_status czk__bkc_host_register(const void *p, size_t bytes);
void czk__bkc_host_unregister(const void *p);
/* True when the current device's context has a sticky error (it clears a pending non-sticky error first). */
int czk__bkc_sticky(void);
/* Test hook: launch a kernel that stores through a bad device address (the context becomes unusable). */
czk_status czk__bkc_inject_fault(void *stream);

/* a[i] = (a[i] b[i] - c[i]) * zinv, i < n (Montgomery). */
czk_status czk__bkc_h_pointwise(czk_fr *a, const czk_fr *b, const czk_fr *c, size_t n, const czk_fr *zinv,
                                void *stream);
/* out[j] = in[idx[j]], j < n. */
czk_status czk__bkc_gather(czk_fr *out, const czk_fr *in, const uint32_t *idx, size_t n, void *stream);
/* out[j] = sum_{k in [row_ptr[j], row_ptr[j+1])} val[k] * w[col[k]], j < rows; one warp per row. */
czk_status czk__bkc_csr_matvec(czk_fr *out, const uint64_t *row_ptr, const uint32_t *col, const czk_fr *val,
                               size_t rows, const czk_fr *w, void *stream);

#ifdef __cplusplus
}
#endif

#endif
