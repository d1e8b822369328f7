/* poly.cu: the CUDA layer's runtime helpers and elementwise kernels: events, memory
 * info, stream-ordered allocation, host registration, the sticky-error probe, and three kernels:
 *   h_pointwise  a_i = (a_i b_i - c_i) z^-1 with z = g^n - 1 (the vanishing polynomial on the coset g*H):
 *                2 Fr multiplications per element, memory-bound (4 x 32 B moved per element);
 *   gather       out_j = in[idx_j] (witness entries of a density-filtered query);
 *   pack_nonzero a streamed MSM chunk's points with non-zero scalars read from registered host memory in place
 *                (count per block, one-block scan, then each block writes its scalars and copies its points);
 *   csr_matvec   out_j = sum_k val_k w[col_k] over row j: one warp per row, lanes stride the row's entries, then a
 *                shuffle-free shared-memory tree (Fr values are 8 words); nnz Fr multiplications.
 * Field arithmetic from src/cuda/ff.cuh (Montgomery, 8 x 32-bit limbs, byte-identical to czk_fr). */
#include <cuda_runtime.h>

#include "cuda/cuda_internal.h"
#include "cuda/ff.cuh"

extern "C" czk_status czk_cuda_event_new(void **ev, int timing) {
  cudaEvent_t e;
  CZK_CU(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  *ev = e;
  return CZK_OK;
}
extern "C" void czk_cuda_event_free(void *ev) {
  if (ev) cudaEventDestroy((cudaEvent_t)ev);
}
extern "C" czk_status czk_cuda_event_record(void *ev, void *stream) {
  CZK_CU(cudaEventRecord((cudaEvent_t)ev, (cudaStream_t)stream));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_event_sync(void *ev) {
  CZK_CU(cudaEventSynchronize((cudaEvent_t)ev));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_stream_wait(void *stream, void *ev) {
  CZK_CU(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)ev, 0));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_event_elapsed(float *ms, void *a, void *b) {
  CZK_CU(cudaEventElapsedTime(ms, (cudaEvent_t)a, (cudaEvent_t)b));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_mem_info(uint64_t *free_b, uint64_t *total_b, unsigned *sms) {
  size_t f = 0, t = 0;
  CZK_CU(cudaMemGetInfo(&f, &t));
  int dev = 0, n = 0;
  CZK_CU(cudaGetDevice(&dev));
  CZK_CU(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
  *free_b = f, *total_b = t, *sms = (unsigned)n;
  return CZK_OK;
}
extern "C" czk_status czk_cuda_malloc_async(void **p, size_t bytes, void *stream) {
  CZK_CU(cudaMallocAsync(p, bytes, (cudaStream_t)stream));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_free_async(void *p, void *stream) {
  if (p) CZK_CU(cudaFreeAsync(p, (cudaStream_t)stream));
  return CZK_OK;
}
extern "C" czk_status czk_cuda_host_register(const void *p, size_t bytes) {
  /* pinned, mapped and portable (every device's kernels may read it in place: czk_cuda_pack_nonzero); read-only where
   * the platform offers it (cudaDevAttrHostRegisterReadOnlySupported: not every host does), then without the
   * mapping, then plain: a key left pageable streams at a fraction of the link's speed */
  static const unsigned flags[] = {
      cudaHostRegisterReadOnly | cudaHostRegisterMapped | cudaHostRegisterPortable,
      cudaHostRegisterMapped | cudaHostRegisterPortable,
      cudaHostRegisterPortable,
      cudaHostRegisterDefault,
  };
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
    if (cudaHostRegister((void *)p, bytes, flags[i]) == cudaSuccess) return CZK_OK;
    cudaGetLastError(); /* not sticky: clear it */
  }
  return CZK_ERR_UNSUPPORTED;
}
extern "C" void czk_cuda_host_unregister(const void *p) {
  if (p) cudaHostUnregister((void *)p);
}

extern "C" int czk_cuda_sticky_error(void) {
  cudaGetLastError();
  cudaEvent_t e;
  cudaError_t r = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  if (r != cudaSuccess) return 1;
  r = cudaEventRecord(e, 0);
  if (r == cudaSuccess) r = cudaEventSynchronize(e);
  cudaEventDestroy(e);
  return r != cudaSuccess;
}

__global__ void bk_fault_kernel(uint32_t *p) { p[threadIdx.x] = 1; }
extern "C" czk_status czk_cuda_inject_fault(void *stream) {
  bk_fault_kernel<<<1, 32, 0, (cudaStream_t)stream>>>((uint32_t *)(uintptr_t)0x10);
  CZK_CU(cudaGetLastError());
  return CZK_OK;
}


__global__ void bk_h_pointwise(fr_t *a, const fr_t *__restrict__ b, const fr_t *__restrict__ c, size_t n, fr_t zinv) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t x, y, z;
  load_fr(&x, a + i);
  if (b) {
    load_fr(&y, b + i);
    fr_mul(&x, &x, &y);
  }
  if (c) {
    load_fr(&z, c + i);
    fr_sub(&x, &x, &z);
  }
  fr_mul(&x, &x, &zinv);
  store_fr(a + i, &x);
}
extern "C" czk_status czk_cuda_h_pointwise(czk_fr *a, const czk_fr *b, const czk_fr *c, size_t n, const czk_fr *zinv,
                                           void *stream) {
  fr_t z;
  memcpy(&z, zinv, sizeof z);
  bk_h_pointwise<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((fr_t *)a, (const fr_t *)b,
                                                                               (const fr_t *)c, n, z);
  CZK_CU(cudaGetLastError());
  return CZK_OK;
}

__global__ void bk_gather(fr_t *out, const fr_t *__restrict__ in, const uint32_t *__restrict__ idx, size_t n) {
  size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  fr_t x;
  load_fr(&x, in + idx[j]);
  store_fr(out + j, &x);
}
extern "C" czk_status czk_cuda_gather(czk_fr *out, const czk_fr *in, const uint32_t *idx, size_t n, void *stream) {
  if (!n) return CZK_OK;
  bk_gather<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((fr_t *)out, (const fr_t *)in, idx, n);
  CZK_CU(cudaGetLastError());
  return CZK_OK;
}

/* ---- pack_nonzero: blocks of PK_BLOCK scalars (PK_THREADS threads, PK_BLOCK / PK_THREADS rounds) */
#define PK_BLOCK 1024u
#define PK_THREADS 256u
static __device__ __forceinline__ bool pk_nonzero(const uint4 *w, const uint32_t *idx, size_t j) {
  const size_t i = idx ? idx[j] : j;
  const uint4 a = w[2 * i], b = w[2 * i + 1];
  return (a.x | a.y | a.z | a.w | b.x | b.y | b.z | b.w) != 0;
}
__global__ void __launch_bounds__(PK_THREADS) bk_pack_count(uint32_t *cnt, const uint4 *__restrict__ w,
                                                            const uint32_t *__restrict__ idx, size_t n) {
  uint32_t c = 0;
  for (uint32_t r = 0; r < PK_BLOCK / PK_THREADS; r++) {
    const size_t j = (size_t)blockIdx.x * PK_BLOCK + r * PK_THREADS + threadIdx.x;
    c += (uint32_t)__syncthreads_count(j < n && pk_nonzero(w, idx, j));
  }
  if (threadIdx.x == 0) cnt[blockIdx.x] = c;
}
/* One block: cnt[0..nb) becomes its exclusive prefix sums, cnt[nb] the total; *bytes += total * base_size. */
__global__ void __launch_bounds__(1024) bk_pack_scan(uint32_t *cnt, size_t nb, unsigned long long *bytes,
                                                     size_t base_size) {
  __shared__ uint32_t part[1024];
  const size_t per = (nb + 1023) / 1024, lo = threadIdx.x * per, hi = lo + per < nb ? lo + per : nb;
  uint32_t s = 0;
  for (size_t b = lo; b < hi; b++) s += cnt[b];
  part[threadIdx.x] = s;
  __syncthreads();
  for (uint32_t d = 1; d < 1024; d *= 2) { /* inclusive scan of the threads' sums */
    const uint32_t v = threadIdx.x >= d ? part[threadIdx.x - d] : 0;
    __syncthreads();
    part[threadIdx.x] += v;
    __syncthreads();
  }
  uint32_t run = part[threadIdx.x] - s;
  for (size_t b = lo; b < hi; b++) {
    const uint32_t c = cnt[b];
    cnt[b] = run;
    run += c;
  }
  if (threadIdx.x == 1023) {
    cnt[nb] = part[1023];
    atomicAdd(bytes, (unsigned long long)part[1023] * base_size);
  }
}
/* Block b: its non-zero scalars to sc_out from cnt[b] on, their source positions in shared memory, then its points
 * copied word by word (consecutive threads read consecutive words of the host copy); every position from the total
 * on gets a zero scalar. T: the word (uint4 where the bases are 16-byte aligned, else uint32_t). */
template <typename T>
__global__ void __launch_bounds__(PK_THREADS) bk_pack_write(T *__restrict__ bases_out, uint4 *__restrict__ sc_out,
                                                            const T *__restrict__ h_bases, uint32_t words,
                                                            const uint4 *__restrict__ w,
                                                            const uint32_t *__restrict__ idx, size_t n,
                                                            const uint32_t *__restrict__ cnt, size_t nb) {
  __shared__ uint32_t src[PK_BLOCK];
  __shared__ uint32_t warp_n[PK_THREADS / 32];
  const uint32_t lane = threadIdx.x & 31, wi = threadIdx.x >> 5;
  const size_t base = cnt[blockIdx.x], total = cnt[nb];
  uint32_t done = 0; /* this block's non-zero scalars so far */
  for (uint32_t r = 0; r < PK_BLOCK / PK_THREADS; r++) {
    const size_t j = (size_t)blockIdx.x * PK_BLOCK + r * PK_THREADS + threadIdx.x;
    const bool nz = j < n && pk_nonzero(w, idx, j);
    const uint32_t ball = __ballot_sync(0xffffffffu, nz);
    if (lane == 0) warp_n[wi] = (uint32_t)__popc(ball);
    __syncthreads();
    uint32_t before = 0, round = 0;
    for (uint32_t k = 0; k < PK_THREADS / 32; k++) {
      before += k < wi ? warp_n[k] : 0;
      round += warp_n[k];
    }
    if (nz) {
      const uint32_t pos = done + before + (uint32_t)__popc(ball & ((1u << lane) - 1));
      const size_t i = idx ? idx[j] : j;
      sc_out[2 * (base + pos)] = w[2 * i];
      sc_out[2 * (base + pos) + 1] = w[2 * i + 1];
      src[pos] = (uint32_t)(j - (size_t)blockIdx.x * PK_BLOCK);
    }
    if (j < n && j >= total) sc_out[2 * j] = sc_out[2 * j + 1] = make_uint4(0, 0, 0, 0);
    done += round;
    __syncthreads(); /* warp_n is rewritten next round */
  }
  const size_t first = (size_t)blockIdx.x * PK_BLOCK;
  for (size_t k = threadIdx.x; k < (size_t)done * words; k += PK_THREADS) {
    const size_t p = k / words, q = k - p * words;
    bases_out[(base + p) * words + q] = h_bases[(first + src[p]) * words + q];
  }
}
extern "C" size_t czk_cuda_pack_nonzero_tmp(size_t n) { return ((n + PK_BLOCK - 1) / PK_BLOCK + 1) * sizeof(uint32_t); }
extern "C" czk_status czk_cuda_pack_nonzero(void *bases_out, czk_fr *sc_out, const void *h_bases, size_t base_size,
                                           const czk_fr *w, const uint32_t *idx, size_t n, void *tmp,
                                           uint64_t *bytes, void *stream) {
  if (!n) return CZK_OK;
  if (!bases_out || !sc_out || !h_bases || !w || !tmp || !bytes || !base_size || base_size % 4 ||
      n > (size_t)UINT32_MAX || ((uintptr_t)w | (uintptr_t)sc_out) % 16)
    return CZK_ERR_INVALID_ARG;
  /* registered (pinned) host memory with a device address; anything else (pageable, not mapped) is not read */
  cudaPointerAttributes pa;
  if (cudaPointerGetAttributes(&pa, h_bases) != cudaSuccess || pa.type != cudaMemoryTypeHost || !pa.devicePointer) {
    cudaGetLastError(); /* not sticky: clear it */
    return CZK_ERR_UNSUPPORTED;
  }
  const void *dp = pa.devicePointer;
  cudaStream_t st = (cudaStream_t)stream;
  const size_t nb = (n + PK_BLOCK - 1) / PK_BLOCK;
  uint32_t *cnt = (uint32_t *)tmp;
  bk_pack_count<<<(unsigned)nb, PK_THREADS, 0, st>>>(cnt, (const uint4 *)w, idx, n);
  CZK_CU_LAUNCHED(st);
  bk_pack_scan<<<1, 1024, 0, st>>>(cnt, nb, (unsigned long long *)bytes, base_size);
  CZK_CU_LAUNCHED(st);
  if (((uintptr_t)dp | (uintptr_t)bases_out) % 16 == 0 && base_size % 16 == 0)
    bk_pack_write<uint4><<<(unsigned)nb, PK_THREADS, 0, st>>>((uint4 *)bases_out, (uint4 *)sc_out, (const uint4 *)dp,
                                                              (uint32_t)(base_size / 16), (const uint4 *)w, idx, n,
                                                              cnt, nb);
  else
    bk_pack_write<uint32_t><<<(unsigned)nb, PK_THREADS, 0, st>>>((uint32_t *)bases_out, (uint4 *)sc_out,
                                                                 (const uint32_t *)dp, (uint32_t)(base_size / 4),
                                                                 (const uint4 *)w, idx, n, cnt, nb);
  CZK_CU_LAUNCHED(st);
  return CZK_OK;
}

/* One warp per row; 8 rows per 256-thread block; partial sums reduced through shared memory. */
__global__ void __launch_bounds__(256) bk_csr_matvec(fr_t *out, const uint64_t *__restrict__ row_ptr,
                                                     const uint32_t *__restrict__ col, const fr_t *__restrict__ val,
                                                     size_t rows, const fr_t *__restrict__ w) {
  __shared__ fr_t part[256];
  const unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  const size_t row = (size_t)blockIdx.x * 8 + wib;
  fr_t acc;
#pragma unroll
  for (int k = 0; k < 8; k++) acc.v[k] = 0;
  if (row < rows) {
    for (uint64_t k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += 32) {
      fr_t v, x;
      load_fr(&v, val + k);
      load_fr(&x, w + col[k]);
      fr_mul(&v, &v, &x);
      fr_add(&acc, &acc, &v);
    }
  }
  part[threadIdx.x] = acc;
  __syncwarp();
  for (unsigned s = 16; s > 0; s >>= 1) {
    if (lane < s) {
      fr_t o = part[threadIdx.x + s];
      fr_add(&acc, &acc, &o);
      part[threadIdx.x] = acc;
    }
    __syncwarp();
  }
  if (lane == 0 && row < rows) store_fr(out + row, &acc);
}
extern "C" czk_status czk_cuda_csr_matvec(czk_fr *out, const uint64_t *row_ptr, const uint32_t *col,
                                          const czk_fr *val, size_t rows, const czk_fr *w, void *stream) {
  if (!rows) return CZK_OK;
  bk_csr_matvec<<<(unsigned)((rows + 7) / 8), 256, 0, (cudaStream_t)stream>>>(
      (fr_t *)out, row_ptr, col, (const fr_t *)val, rows, (const fr_t *)w);
  CZK_CU(cudaGetLastError());
  return CZK_OK;
}

/* The packed witness (include/czk/backend.h, "packed witness upload"): one warp per chunk of 1024 values. Lane j takes
 * word j's bits and counts its other values; a warp scan gives each word its first index; then, word by word, lane i
 * writes value 32 k + i (32 lanes store 1 KiB contiguously). */
__global__ void __launch_bounds__(256) bk_wunpack(fr_t *w, const uint32_t *__restrict__ src, uint64_t n, uint64_t nc,
                                                  uint64_t n_other, fr_t one) {
  const uint32_t lane = threadIdx.x & 31;
  const uint64_t c = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (c >= nc) return; /* whole warps leave together: nc is per warp */
  const uint32_t *ob = src, *nb = src + 32 * nc, *start = src + 64 * nc;
  const fr_t *vals = (const fr_t *)((const uint8_t *)src + CZK_CUDA_WPACK_VALS(nc));
  const uint32_t myo = __ldg(ob + 32 * c + lane), myn = __ldg(nb + 32 * c + lane);
  const uint32_t cnt = __popc(myo);
  uint32_t incl = cnt;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    uint32_t t = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= (uint32_t)d) incl += t;
  }
  const uint64_t base = (uint64_t)__ldg(start + c) + (incl - cnt);
  for (uint32_t k = 0; k < 32; k++) {
    const uint32_t o = __shfl_sync(0xffffffffu, myo, k), b1 = __shfl_sync(0xffffffffu, myn, k);
    const uint64_t bk = __shfl_sync(0xffffffffu, base, k);
    const uint64_t i = c * CZK_CUDA_WPACK_CHUNK + 32 * k + lane;
    if (i >= n) continue;
    fr_t x;
    if ((o >> lane) & 1) {
      const uint64_t j = bk + __popc(o & ((1u << lane) - 1));
      if (j < n_other) load_fr(&x, vals + j);
      else {
#pragma unroll
        for (int t = 0; t < 8; t++) x.v[t] = 0;
      }
    } else if ((b1 >> lane) & 1) {
      x = one;
    } else {
#pragma unroll
      for (int t = 0; t < 8; t++) x.v[t] = 0;
    }
    store_fr(w + i, &x);
  }
}
extern "C" czk_status czk_cuda_wunpack(czk_fr *w, const void *src, size_t n, size_t n_other, void *stream) {
  if (!n) return CZK_OK;
  const uint64_t nc = (n + CZK_CUDA_WPACK_CHUNK - 1) / CZK_CUDA_WPACK_CHUNK;
  fr_t one;
  memcpy(&one, &czk_fr_one_v, sizeof one);
  const uint64_t blocks = (nc * 32 + 255) / 256;
  bk_wunpack<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>((fr_t *)w, (const uint32_t *)src, n, nc, n_other,
                                                                 one);
  CZK_CU_LAUNCHED((cudaStream_t)stream);
  return CZK_OK;
}
