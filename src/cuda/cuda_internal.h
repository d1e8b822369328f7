/* cuda_internal.h: shared by the .cu files of src/cuda: C headers with C linkage (the CPU field and curve layers serve
 * the host side: twiddle tables, the final combination of MSM window sums), the CUDA error-check macro, and the
 * internal entry points that tests/cuda uses to check device arithmetic against the CPU layers. */
#ifndef CZK_CUDA_INTERNAL_H
#define CZK_CUDA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "czk/cuda.h"
#include "czk/curve.h"
#include "czk/field.h"
#include "czk/log.h"
#include "czk/status.h"

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
