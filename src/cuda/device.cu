/* device.cu: device discovery, streams, memory and copies for the C API (include/czk/cuda.h), and the field
 * self-test kernel used by tests/cuda (czk_cuda_probe_field). Every CUDA call is checked (CZK_CU). */
#include <cuda_runtime.h>
#include <stdio.h>

#include "cuda/cuda_internal.h"
#include "cuda/ff.cuh"

extern "C" bool czk_cuda_available(void) { return true; }

extern "C" czk_status czk_cuda_device_count(int *count) {
  if (!count) return CZK_ERR_INVALID_ARG;
  *count = 0;
  cudaError_t e = cudaGetDeviceCount(count);
  if (e != cudaSuccess || *count == 0) {
    cudaGetLastError(); /* clear the sticky "no device" error */
    *count = 0;
    return CZK_ERR_NO_DEVICE;
  }
  return CZK_OK;
}
extern "C" czk_status czk_cuda_set_device(int device) {
  CZK_CU(cudaSetDevice(device));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_device_describe(int device, char *buf, size_t len) {
  if (!buf || !len) return CZK_ERR_INVALID_ARG;
  cudaDeviceProp pr;
  CZK_CU(cudaGetDeviceProperties(&pr, device));
  snprintf(buf, len, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB", pr.name, pr.major, pr.minor, pr.multiProcessorCount,
           (double)pr.totalGlobalMem / (1024.0 * 1024 * 1024), pr.l2CacheSize >> 20);
  return CZK_OK;
}
extern "C" czk_status czk_cuda_mem_bandwidth(int device, uint64_t *bytes_per_s) {
  if (!bytes_per_s) return CZK_ERR_INVALID_ARG;
  int khz = 0, bits = 0;
  CZK_CU(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
  CZK_CU(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device));
  *bytes_per_s = (uint64_t)khz * 1000u * 2u * (uint64_t)(bits / 8);
  return CZK_OK;
}
extern "C" czk_status czk_cuda_stream_create(void **stream) {
  if (!stream) return CZK_ERR_INVALID_ARG;
  cudaStream_t s;
  CZK_CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  *stream = s;
  return CZK_OK;
}
extern "C" czk_status czk_cuda_stream_create_urgent(void **stream) {
  if (!stream) return CZK_ERR_INVALID_ARG;
  int least = 0, greatest = 0;
  CZK_CU(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t s;
  CZK_CU(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
  *stream = s;
  return CZK_OK;
}
extern "C" czk_status czk_cuda_stream_create_raised(void **stream) {
  if (!stream) return CZK_ERR_INVALID_ARG;
  int least = 0, greatest = 0;
  CZK_CU(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  /* priorities: lower numbers first; greatest <= least */
  const int prio = least - greatest >= 2 ? least - 1 : least;
  cudaStream_t s;
  CZK_CU(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, prio));
  *stream = s;
  return CZK_OK;
}
extern "C" czk_status czk_cuda_stream_destroy(void *stream) {
  CZK_CU(cudaStreamDestroy((cudaStream_t)stream));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_stream_sync(void *stream) {
  CZK_CU(cudaStreamSynchronize((cudaStream_t)stream));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_malloc(void **dptr, size_t bytes) {
  if (!dptr) return CZK_ERR_INVALID_ARG;
  CZK_CU(cudaMalloc(dptr, bytes));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_free(void *dptr) {
  CZK_CU(cudaFree(dptr));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_host_alloc(void **hptr, size_t bytes) {
  if (!hptr) return CZK_ERR_INVALID_ARG;
  CZK_CU(cudaMallocHost(hptr, bytes));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_host_free(void *hptr) {
  CZK_CU(cudaFreeHost(hptr));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_memcpy_htod(void *dst, const void *src, size_t bytes, void *stream) {
  CZK_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)stream));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_memcpy_dtoh(void *dst, const void *src, size_t bytes, void *stream) {
  CZK_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)stream));
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ self-test */
__global__ void test_field_kernel(int op, void *out, const void *a, const void *b, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  switch (op) {
    case 0: fp_mul((fp_t *)out + i, (const fp_t *)a + i, (const fp_t *)b + i); break;
    case 1: fp_add((fp_t *)out + i, (const fp_t *)a + i, (const fp_t *)b + i); break;
    case 2: fp_sub((fp_t *)out + i, (const fp_t *)a + i, (const fp_t *)b + i); break;
    case 3: fr_mul((fr_t *)out + i, (const fr_t *)a + i, (const fr_t *)b + i); break;
    case 4: fr_add((fr_t *)out + i, (const fr_t *)a + i, (const fr_t *)b + i); break;
    case 5: fr_sub((fr_t *)out + i, (const fr_t *)a + i, (const fr_t *)b + i); break;
    case 6: fp2_mul((fp2_t *)out + i, (const fp2_t *)a + i, (const fp2_t *)b + i); break;
    case 7: fp2_sqr((fp2_t *)out + i, (const fp2_t *)a + i); break;
    case 8: fp_inv((fp_t *)out + i, (const fp_t *)a + i); break;
    case 9: fp2_inv((fp2_t *)out + i, (const fp2_t *)a + i); break;
    case 10: { /* the NTT's twiddle product: pair of the Montgomery a, times b < 2r, lazy result */
      fr_t w, ws;
      fr_shoup_pair(&w, &ws, (const fr_t *)a + i);
      fr_mul_shoup((fr_t *)out + i, &w, &ws, (const fr_t *)b + i);
      break;
    }
    default: break;
  }
}

extern "C" czk_status czk_cuda_probe_field(int op, void *out, const void *a, const void *b, size_t n) {
  size_t es = (op <= 2 || op == 8) ? 48 : (op <= 5 || op == 10) ? 32 : 96;
  void *d[3] = {NULL, NULL, NULL};
  czk_status s = CZK_OK;
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < 3 && e == cudaSuccess; i++) e = cudaMalloc(&d[i], n * es);
  if (e == cudaSuccess) e = cudaMemcpy(d[1], a, n * es, cudaMemcpyHostToDevice);
  if (e == cudaSuccess && b) e = cudaMemcpy(d[2], b, n * es, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemset(d[0], 0xA5, n * es); /* poison */
  if (e == cudaSuccess) {
    test_field_kernel<<<(unsigned)((n + 127) / 128), 128>>>(op, d[0], d[1], d[2], n);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(out, d[0], n * es, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    czk_log_write(CZK_LOG_ERROR, "cuda", "test_field: %s", cudaGetErrorString(e));
    s = CZK_ERR_DEVICE;
  }
  for (int i = 0; i < 3; i++) cudaFree(d[i]);
  return s;
}

/* ------------------------------------------------------------------------------------------------ throughput probe */
/* Each thread runs `iters` rounds of 4 independent multiplication chains x_k = x_k * y (so the scheduler has 4-way
 * instruction-level parallelism), and stores the chains' sum so nothing is dead code. */
#define MUL_PROBE(F)                                                                                                   \
  __global__ void mul_probe_##F(F##_t *out, const F##_t *in, int iters) {                                             \
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                                                         \
    F##_t y = in[i & 1023], x0 = in[(i + 1) & 1023], x1 = in[(i + 2) & 1023], x2 = in[(i + 3) & 1023],                \
          x3 = in[(i + 4) & 1023];                                                                                    \
    for (int r = 0; r < iters; r++) {                                                                                 \
      F##_mul(&x0, &x0, &y);                                                                                          \
      F##_mul(&x1, &x1, &y);                                                                                          \
      F##_mul(&x2, &x2, &y);                                                                                          \
      F##_mul(&x3, &x3, &y);                                                                                          \
    }                                                                                                                 \
    F##_add(&x0, &x0, &x1);                                                                                           \
    F##_add(&x2, &x2, &x3);                                                                                           \
    F##_add(&out[i], &x0, &x2);                                                                                       \
  }
MUL_PROBE(fp)
MUL_PROBE(fr)

extern "C" czk_status czk_cuda_probe_mul_throughput(int field, double *gmul_per_s) {
  const int threads = 256, iters = 256;
  int sms = 0;
  CZK_CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t blocks = (size_t)sms * 16, n = blocks * threads, es = field ? 32 : 48;
  void *d_out = NULL, *d_in = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  czk_status st = CZK_OK;
  cudaError_t e = cudaMalloc(&d_out, n * es);
  if (e == cudaSuccess) e = cudaMalloc(&d_in, 1024 * es);
  /* inputs: small integers in Montgomery-agnostic form (any value < p is a field element) */
  if (e == cudaSuccess) e = cudaMemset(d_in, 0x11, 1024 * es);
  if (e == cudaSuccess) e = cudaEventCreate(&e0);
  if (e == cudaSuccess) e = cudaEventCreate(&e1);
  float best = 1e30f;
  for (int rep = 0; rep < 3 && e == cudaSuccess; rep++) {
    cudaEventRecord(e0);
    if (field)
      mul_probe_fr<<<(unsigned)blocks, threads>>>((fr_t *)d_out, (const fr_t *)d_in, iters);
    else
      mul_probe_fp<<<(unsigned)blocks, threads>>>((fp_t *)d_out, (const fp_t *)d_in, iters);
    cudaEventRecord(e1);
    e = cudaEventSynchronize(e1);
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, e0, e1);
    if (ms < best) best = ms;
  }
  if (e != cudaSuccess) {
    czk_log_write(CZK_LOG_ERROR, "cuda", "mul throughput probe: %s", cudaGetErrorString(e));
    st = CZK_ERR_DEVICE;
  } else {
    *gmul_per_s = (double)n * iters * 4 / (best * 1e-3) / 1e9;
  }
  cudaFree(d_out);
  cudaFree(d_in);
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  return st;
}
