/* cuda_internal.h: shared by the .cu files of src/cuda: C headers with C linkage, the CUDA error-check macro, and the
 * internal entry points that tests/cuda uses to check device arithmetic against the host reference. */
#ifndef CZK_CUDA_INTERNAL_H
#define CZK_CUDA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "czk/cuda.h"
#include "czk/log.h"
#include "czk/status.h"
#include "cuda/cuda_ref.h"

/* Device self-test of field arithmetic: out[i] = op(a[i], b[i]) on host arrays of n elements, computed on the GPU.
 * op: 0 fp_mul, 1 fp_add, 2 fp_sub, 3 fr_mul, 4 fr_add, 5 fr_sub, 6 fp2_mul, 7 fp2_sqr, 8 fp_inv, 9 fp2_inv
 * (7-9: b unused), 10 fr_mul_shoup (the NTT twiddle product: a Montgomery, a < r, b any value < 2r; the result a b
 * R^-1 mod r lies in [0, 2r), not reduced).
 * Element size: 48 bytes (fp), 32 (fr, op 10), 96 (fp2). Synchronous (tests only). */
czk_status czk__cuda_test_field(int op, void *out, const void *a, const void *b, size_t n);

/* Bench probe: raw Montgomery multiplication throughput on device 0 (field 0: Fp, 1: Fr), in 10^9 products/s, from
 * 4 independent chains per thread over the whole GPU (best of 3 launches). Values are not checked. */
czk_status czk__cuda_mul_throughput(int field, double *gmul_per_s);

/* Bench helper: d_out[i] = A[i % na] + B[(i / na) % nb] (affine G1 / G2 additions on the device, one Fermat inversion
 * each; all sums must be distinct from infinity and A_j != +-B_k). g: 1 or 2. Asynchronous on stream. */
czk_status czk__cuda_gen_bases(int g, void *d_out, size_t n, const void *h_a, size_t na, const void *h_b, size_t nb,
                               void *stream);
#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#define CZK_CU(call)                                                                                                  \
  do {                                                                                                                \
    cudaError_t czk__e = (call);                                                                                      \
    if (czk__e != cudaSuccess) {                                                                                      \
      czk_log_write(CZK_LOG_ERROR, "cuda", "%s failed at %s:%d: %s (%s)", #call, __FILE__, __LINE__,                  \
                    cudaGetErrorString(czk__e), cudaGetErrorName(czk__e));                                            \
      return czk__e == cudaErrorMemoryAllocation ? CZK_ERR_NOMEM                                                      \
             : (czk__e == cudaErrorNoDevice || czk__e == cudaErrorInsufficientDriver) ? CZK_ERR_NO_DEVICE             \
                                                                                         : CZK_ERR_DEVICE;            \
    }                                                                                                                 \
  } while (0)

/* After a kernel launch: the launch error, and with CZK_CUDA_SYNC_CHECK set in the environment (debugging only) a
 * stream synchronization too, so that a fault is reported at the launch that caused it (file:line in the log). */
#include <stdlib.h>
static inline bool czk__cuda_sync_check(void) {
  static int v = -1;
  if (v < 0) v = getenv("CZK_CUDA_SYNC_CHECK") != NULL;
  return v != 0;
}
#define CZK_CU_LAUNCHED(st)                                                                                           \
  do {                                                                                                                \
    CZK_CU(cudaGetLastError());                                                                                       \
    if (czk__cuda_sync_check()) CZK_CU(cudaStreamSynchronize(st));                                                    \
  } while (0)
#endif

#endif
