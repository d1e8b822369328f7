/* ntt.cu: number-theoretic transforms over Fr on the GPU (API in include/czk/cuda.h).
 *
 * Transform: decimation in frequency (Gentleman-Sande), radix 2, natural order in, bit-reversed order out, followed
 * by an in-place bit-reversal permutation; the inverse is the same DIF with w^-1 and the 1/n scaling fused into the
 * permutation pass. Coset variants fuse x_i *= g^i into the loads of the first pass (forward) and x_i *= n^-1 g^-i
 * into the permutation pass (inverse); g^(+-i) = lo[i mod 2^LO] * hi[i >> LO] from two small tables.
 * Stage s (0-based, n = 2^L): pairs (i, i + 2^(L-1-s)) with bit L-1-s of i clear:
 *     x_i' = x_i + x_j,  x_j' = (x_i - x_j) * w_n^((i mod 2^(L-1-s)) * 2^s).
 * Stages are grouped in passes of k <= 10 (radix 2^k): a block loads a tile of 2^k elements along the pass's index
 * bits (times T adjacent columns, 1024 elements = 32 KiB of shared memory), runs its k stages in shared memory and
 * writes back: ceil(L/10) passes over the data instead of L. Twiddles w_N^j (j < N/2, N = 2^log_n_max) are one
 * precomputed table per direction; a smaller domain reads it with stride N/n.
 * Work: (n/2) L Fr multiplications (+ n per scaled pass); memory: ceil(L/10) + 1 read-write passes of 32 n bytes plus
 * twiddle reads. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_internal.h"
#include "cuda/ff.cuh"

#define NTT_TILE_LOG 10
#define NTT_TILE (1u << NTT_TILE_LOG)

struct czk_cuda_ntt {
  unsigned log_max;
  unsigned lo_bits; /* coset tables: lo has 2^lo_bits entries, hi 2^(log_max - lo_bits) */
  fr_t *d_tw[2];    /* [0] forward w^j, [1] inverse w^-j, j < 2^(log_max-1) */
  fr_t *d_coset[2]; /* [0] g^i tables (lo then hi), [1] g^-i tables */
  czk_fr ninv[29];  /* n^-1 for n = 2^k (Montgomery) */
};

static __device__ __forceinline__ void load_fr(fr_t *r, const fr_t *p) {
  const uint4 *s = (const uint4 *)p;
  uint4 a = s[0], b = s[1];
  r->v[0] = a.x, r->v[1] = a.y, r->v[2] = a.z, r->v[3] = a.w;
  r->v[4] = b.x, r->v[5] = b.y, r->v[6] = b.z, r->v[7] = b.w;
}
static __device__ __forceinline__ void store_fr(fr_t *p, const fr_t *r) {
  uint4 *d = (uint4 *)p;
  d[0] = make_uint4(r->v[0], r->v[1], r->v[2], r->v[3]);
  d[1] = make_uint4(r->v[4], r->v[5], r->v[6], r->v[7]);
}

/* g^i from the split table (lo: 2^lo_bits entries followed by hi). */
static __device__ __forceinline__ void coset_pow(fr_t *r, const fr_t *tab, unsigned lo_bits, size_t i) {
  fr_t a, b;
  load_fr(&a, tab + (i & (((size_t)1 << lo_bits) - 1)));
  load_fr(&b, tab + ((size_t)1 << lo_bits) + (i >> lo_bits));
  fr_mul(r, &a, &b);
}

/* t[i] = lo[i & (2^B - 1)] * hi[i >> B] */
__global__ void ntt_expand(fr_t *t, size_t n, const fr_t *lo, const fr_t *hi, unsigned B) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t a, b;
  load_fr(&a, lo + (i & (((size_t)1 << B) - 1)));
  load_fr(&b, hi + (i >> B));
  fr_mul(&a, &a, &b);
  store_fr(t + i, &a);
}

/* One DIF pass: stages s0 .. s0+k-1 of a 2^L transform. blockDim = tile/2. */
__global__ void __launch_bounds__(512) ntt_dif_pass(fr_t *data, unsigned L, unsigned s0, unsigned k, unsigned tlog,
                                                    const fr_t *__restrict__ tw, unsigned tw_shift,
                                                    const fr_t *__restrict__ coset, unsigned lo_bits) {
  __shared__ uint32_t sm[8 * NTT_TILE];
  const unsigned hs = L - s0 - k;
  const unsigned tile_log = k + tlog, tile = 1u << tile_log;
  const size_t ngroups = (size_t)1 << (hs - tlog);
  const size_t b = blockIdx.x;
  const size_t lg = b & (ngroups - 1), hf = b >> (hs - tlog);
  const size_t base_hi = hf << (hs + k), col0 = lg << tlog;
  const unsigned T = 1u << tlog;

  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    unsigned c = e & (T - 1), a = e >> tlog;
    size_t i = base_hi | ((size_t)a << hs) | (col0 + c);
    fr_t x;
    load_fr(&x, data + i);
    if (coset) {
      fr_t g;
      coset_pow(&g, coset, lo_bits, i);
      fr_mul(&x, &x, &g);
    }
#pragma unroll
    for (int w = 0; w < 8; w++) sm[w * NTT_TILE + e] = x.v[w];
  }
  __syncthreads();
  for (unsigned q = 0; q < k; q++) {
    const unsigned hl_log = k - 1 - q, hl = 1u << hl_log;
    const unsigned s = s0 + q;
    for (unsigned u = threadIdx.x; u < tile / 2; u += blockDim.x) {
      unsigned c = u & (T - 1), v = u >> tlog;
      unsigned a0 = ((v >> hl_log) << (hl_log + 1)) | (v & (hl - 1));
      unsigned e0 = (a0 << tlog) | c, e1 = e0 + (hl << tlog);
      size_t j = ((size_t)(a0 & (hl - 1)) << hs) | (col0 + c);
      fr_t x0, x1, t, wv;
#pragma unroll
      for (int w = 0; w < 8; w++) {
        x0.v[w] = sm[w * NTT_TILE + e0];
        x1.v[w] = sm[w * NTT_TILE + e1];
      }
      fr_add(&t, &x0, &x1);
      fr_sub(&x1, &x0, &x1);
      load_fr(&wv, tw + ((j << s) << tw_shift));
      fr_mul(&x1, &x1, &wv);
#pragma unroll
      for (int w = 0; w < 8; w++) {
        sm[w * NTT_TILE + e0] = t.v[w];
        sm[w * NTT_TILE + e1] = x1.v[w];
      }
    }
    __syncthreads();
  }
  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    unsigned c = e & (T - 1), a = e >> tlog;
    size_t i = base_hi | ((size_t)a << hs) | (col0 + c);
    fr_t x;
#pragma unroll
    for (int w = 0; w < 8; w++) x.v[w] = sm[w * NTT_TILE + e];
    store_fr(data + i, &x);
  }
}

/* In-place bit reversal; mode 0: none, 1: * ninv, 2: * ninv * g^-i (natural index i after the permutation). */
__global__ void ntt_bitrev(fr_t *data, unsigned L, int mode, fr_t ninv, const fr_t *coset, unsigned lo_bits) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >> L) return;
  size_t r = L ? (size_t)(__brevll((unsigned long long)i) >> (64 - L)) : 0;
  if (i > r) return;
  fr_t a, b;
  load_fr(&a, data + i);
  load_fr(&b, data + r);
  if (mode) {
    fr_mul(&a, &a, &ninv);
    fr_mul(&b, &b, &ninv);
    if (mode == 2) {
      fr_t g;
      coset_pow(&g, coset, lo_bits, r);
      fr_mul(&a, &a, &g); /* a moves to index r */
      coset_pow(&g, coset, lo_bits, i);
      fr_mul(&b, &b, &g);
    }
  }
  store_fr(data + i, &b);
  if (i != r) store_fr(data + r, &a);
}

/* ------------------------------------------------------------------------------------------------ host glue */
static czk_status upload_expand(fr_t *d_out, size_t n, const czk_fr *step, unsigned B, cudaStream_t st) {
  /* d_out[i] = step^i for i < n: lo[j] = step^j (j < 2^B), hi[k] = step^(k 2^B) */
  size_t nlo = (size_t)1 << B, nhi = (n + nlo - 1) / nlo;
  czk_fr *h = (czk_fr *)malloc((nlo + nhi) * sizeof(czk_fr));
  if (!h) return CZK_ERR_NOMEM;
  czk__cr_fr_one(&h[0]);
  for (size_t j = 1; j < nlo; j++) czk__cr_fr_mul(&h[j], &h[j - 1], step);
  czk_fr big;
  czk__cr_fr_mul(&big, &h[nlo - 1], step);
  czk__cr_fr_one(&h[nlo]);
  for (size_t k = 1; k < nhi; k++) czk__cr_fr_mul(&h[nlo + k], &h[nlo + k - 1], &big);
  fr_t *d_tmp = NULL;
  czk_status s = CZK_OK;
  cudaError_t e = cudaMallocAsync((void **)&d_tmp, (nlo + nhi) * sizeof(fr_t), st);
  if (e == cudaSuccess) e = cudaMemcpyAsync(d_tmp, h, (nlo + nhi) * sizeof(fr_t), cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess) {
    ntt_expand<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(d_out, n, d_tmp, d_tmp + nlo, B);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(st); /* plan creation only: h must outlive the copy */
  if (d_tmp) cudaFreeAsync(d_tmp, st);
  if (e != cudaSuccess) {
    czk_log_write(CZK_LOG_ERROR, "cuda", "ntt plan tables: %s", cudaGetErrorString(e));
    s = e == cudaErrorMemoryAllocation ? CZK_ERR_NOMEM : CZK_ERR_DEVICE;
  }
  free(h);
  return s;
}

extern "C" void czk_cuda_ntt_free(czk_cuda_ntt *p) {
  if (!p) return;
  for (int i = 0; i < 2; i++) {
    cudaFree(p->d_tw[i]);
    cudaFree(p->d_coset[i]);
  }
  free(p);
}

extern "C" czk_status czk_cuda_ntt_new(czk_cuda_ntt **out, unsigned log_n_max, czk_fr_roots roots,
                                       const czk_fr *coset_shift, void *stream) {
  if (!out || log_n_max < 1 || log_n_max > 28) return CZK_ERR_INVALID_ARG;
  if (roots != CZK_ROOTS_BELLMAN && roots != CZK_ROOTS_SNARKJS) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  cudaStream_t st = (cudaStream_t)stream;
  czk_cuda_ntt *p = (czk_cuda_ntt *)calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  p->log_max = log_n_max;
  p->lo_bits = (log_n_max + 1) / 2;
  size_t N = (size_t)1 << log_n_max, half = N / 2;
  czk_fr w, wi, g, gi;
  czk__cr_fr_root(&w, log_n_max, roots);
  czk__cr_fr_inv(&wi, &w);
  if (coset_shift)
    g = *coset_shift;
  else
    czk__cr_fr_from_u64(&g, 7);
  czk__cr_fr_inv(&gi, &g);
  for (unsigned k = 0; k <= 28; k++) {
    czk_fr nn;
    czk__cr_fr_from_u64(&nn, (uint64_t)1 << k);
    czk__cr_fr_inv(&p->ninv[k], &nn);
  }
  czk_status s = CZK_OK;
  size_t tb = (half ? half : 1) * sizeof(fr_t);
  size_t cb = (((size_t)1 << p->lo_bits) + ((size_t)1 << (log_n_max - p->lo_bits))) * sizeof(fr_t);
  cudaError_t e = cudaMalloc((void **)&p->d_tw[0], tb);
  if (e == cudaSuccess) e = cudaMalloc((void **)&p->d_tw[1], tb);
  if (e == cudaSuccess) e = cudaMalloc((void **)&p->d_coset[0], cb);
  if (e == cudaSuccess) e = cudaMalloc((void **)&p->d_coset[1], cb);
  if (e != cudaSuccess) {
    czk_log_write(CZK_LOG_ERROR, "cuda", "ntt_new(2^%u): %s", log_n_max, cudaGetErrorString(e));
    czk_cuda_ntt_free(p);
    return e == cudaErrorMemoryAllocation ? CZK_ERR_NOMEM : CZK_ERR_DEVICE;
  }
  unsigned tbits = log_n_max > 1 ? (log_n_max - 1 + 1) / 2 : 0;
  s = upload_expand(p->d_tw[0], half ? half : 1, &w, tbits, st);
  if (s == CZK_OK) s = upload_expand(p->d_tw[1], half ? half : 1, &wi, tbits, st);
  /* coset tables: lo = g^j (j < 2^lo_bits) then hi = g^(k 2^lo_bits): exactly the layout upload_expand builds on
   * the host before expanding, so expand into a 2-level table by calling it twice on the two halves */
  if (s == CZK_OK) {
    for (int d = 0; d < 2 && s == CZK_OK; d++) {
      const czk_fr *step = d ? &gi : &g;
      size_t nlo = (size_t)1 << p->lo_bits, nhi = (size_t)1 << (log_n_max - p->lo_bits);
      czk_fr *h = (czk_fr *)malloc((nlo + nhi) * sizeof(czk_fr));
      if (!h) {
        s = CZK_ERR_NOMEM;
        break;
      }
      czk__cr_fr_one(&h[0]);
      for (size_t j = 1; j < nlo; j++) czk__cr_fr_mul(&h[j], &h[j - 1], step);
      czk_fr big;
      czk__cr_fr_mul(&big, &h[nlo - 1], step);
      czk__cr_fr_one(&h[nlo]);
      for (size_t k = 1; k < nhi; k++) czk__cr_fr_mul(&h[nlo + k], &h[nlo + k - 1], &big);
      e = cudaMemcpy(p->d_coset[d], h, (nlo + nhi) * sizeof(fr_t), cudaMemcpyHostToDevice);
      free(h);
      if (e != cudaSuccess) {
        czk_log_write(CZK_LOG_ERROR, "cuda", "ntt coset table: %s", cudaGetErrorString(e));
        s = CZK_ERR_DEVICE;
      }
    }
  }
  if (s != CZK_OK) {
    czk_cuda_ntt_free(p);
    return s;
  }
  *out = p;
  return CZK_OK;
}

extern "C" czk_status czk_cuda_ntt_run(czk_cuda_ntt *p, czk_fr *d_data, unsigned log_n, czk_cuda_ntt_dir dir,
                                       void *stream) {
  if (!p || !d_data || log_n > p->log_max) return CZK_ERR_INVALID_ARG;
  if ((unsigned)dir > 3) return CZK_ERR_INVALID_ARG;
  cudaStream_t st = (cudaStream_t)stream;
  fr_t *data = (fr_t *)d_data;
  const bool inv = dir == CZK_CUDA_NTT_INVERSE || dir == CZK_CUDA_NTT_COSET_INVERSE;
  const size_t n = (size_t)1 << log_n;
  if (log_n > 0) {
    const unsigned L = log_n;
    const unsigned np = (L + NTT_TILE_LOG - 1) / NTT_TILE_LOG;
    unsigned s0 = 0;
    for (unsigned pi = 0; pi < np; pi++) {
      unsigned k = L / np + (pi < L % np ? 1 : 0);
      unsigned hs = L - s0 - k;
      unsigned tlog = NTT_TILE_LOG - k < hs ? NTT_TILE_LOG - k : hs;
      unsigned tile = 1u << (k + tlog);
      size_t blocks = n / tile;
      const fr_t *coset = (dir == CZK_CUDA_NTT_COSET_FORWARD && pi == 0) ? p->d_coset[0] : NULL;
      ntt_dif_pass<<<(unsigned)blocks, tile / 2 < 512 ? tile / 2 : 512, 0, st>>>(
          data, L, s0, k, tlog, p->d_tw[inv ? 1 : 0], p->log_max - L, coset, p->lo_bits);
      CZK_CU_LAUNCHED(st);
      s0 += k;
    }
  }
  int mode = dir == CZK_CUDA_NTT_INVERSE ? 1 : dir == CZK_CUDA_NTT_COSET_INVERSE ? 2 : 0;
  fr_t ninv;
  memcpy(&ninv, &p->ninv[log_n], sizeof ninv);
  ntt_bitrev<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(data, log_n, mode, ninv, p->d_coset[1], p->lo_bits);
  CZK_CU_LAUNCHED(st);
  return CZK_OK;
}
