/* msm.cu: Pippenger multi-scalar multiplication over BLS12-381 G1 and G2 on the GPU (API in include/czk/cuda.h).
 *
 * A run is one or more passes (a pass: at most the chunk's points, CZK_CUDA_MSM_MAX_CHUNK) accumulated into one set
 * of buckets, reduced once at the end (steps 4-5). A series (czk_cuda_msm_run_series) extends that over several runs,
 * through handles sharing one scratch: a query run in chunks (a lane's streamed slots, a resident query in pieces)
 * costs what one run over all its points costs, at the window width of all of them (at most 2 bits, G2 1, over one
 * pass's own, so that the scratch plan holds). A 0/1-aware run (a witness: mostly zeros and ones) skips its zeros,
 * puts each one as a single pair in bucket 0 of window 0 (no digit, no sort), and runs only its other values through
 * the digits; all of it in the same buckets.
 *
 * Pipeline per pass (all on the caller's stream):
 *   1. digits: scalar -> W = ceil(256/c) signed c-bit digits d_j in [-2^(c-1), 2^(c-1)] (carry propagated; since
 *      s < 2^255 the top window never overflows); emits (key, value) = (j*2^(c-1) + |d|-1, index | sign<<31), or the
 *      sentinel key for d = 0.                                                                   n*W pairs
 *   2. CUB radix sort of the pairs on ceil(log2(W*2^(c-1)+1)) key bits.
 *   3. segmented bucket accumulation (msm_impl.cuh): ~n*W mixed XYZZ additions (8M + 2S each), load-balanced.
 *   4. bucket reduction: running sums (2 XYZZ additions per bucket) + per-window tree.
 *   5. the W window sums are copied to pinned host memory and combined by a host function enqueued on the stream
 *      (sum_j 2^(cj) S_j: W*c doublings, done on the host because a single GPU thread is latency-bound there).
 * Work: about n*W*10 Fp multiplications (G1) or n*W*30 (G2, Fp2 = 3 Fp mul); c from czk_cuda_msm_window_bits. */
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_internal.h"
#include "cuda/ff.cuh"

#include "cuda/msm_internal.cuh"

/* ------------------------------------------------------------------------------------------------ digits */
/* The W signed digits of scalar s, written as pairs at keys/vals[w * stride + at] with value = point index. */
static __device__ __forceinline__ void msm_emit(fr_t s, uint32_t point, size_t at, size_t stride, uint32_t c,
                                                uint32_t W, uint32_t *keys, uint32_t *vals) {
  const uint32_t half = 1u << (c - 1), mask = (1u << c) - 1, sentinel = (uint32_t)W << (c - 1);
  uint32_t carry = 0;
  for (uint32_t w = 0; w < W; w++) {
    uint32_t bit = w * c, word = bit >> 5, sh = bit & 31;
    uint32_t v = 0;
    if (word < 8) {
      v = s.v[word] >> sh;
      if (sh + c > 32 && word + 1 < 8) v |= s.v[word + 1] << (32 - sh);
    }
    uint32_t d = (v & mask) + carry;
    uint32_t key, val = point;
    if (d > half) {
      d = (1u << c) - d; /* digit -(2^c - d), carry 1 */
      carry = 1;
      val |= 0x80000000u;
    } else {
      carry = 0;
    }
    key = d ? w * half + d - 1 : sentinel;
    keys[(size_t)w * stride + at] = key;
    vals[(size_t)w * stride + at] = val;
  }
}

static __device__ __forceinline__ fr_t msm_load(const uint32_t *__restrict__ scalars, size_t i, int mont) {
  fr_t s;
  const uint4 *src = (const uint4 *)(scalars + 8 * i);
  uint4 lo = src[0], hi = src[1];
  s.v[0] = lo.x, s.v[1] = lo.y, s.v[2] = lo.z, s.v[3] = lo.w;
  s.v[4] = hi.x, s.v[5] = hi.y, s.v[6] = hi.z, s.v[7] = hi.w;
  if (mont) fr_from_mont(&s, &s);
  return s;
}

__global__ void msm_digits(const uint32_t *__restrict__ scalars, size_t n, uint32_t c, uint32_t W, int mont,
                           uint32_t *keys, uint32_t *vals) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  msm_emit(msm_load(scalars, i, mont), (uint32_t)i, i, n, c, W, keys, vals);
}

/* 0/1-aware pairs: the n_o "other" scalars (point indices other[0..n_o)) give W pairs each as above; each of the n_1
 * points whose scalar is one (ones[0..n_1)) gives the single pair (key 0 = window 0, digit 1); zeros give none. The
 * accumulation sums bucket 0 of window 0 over all of them like any bucket. */
__global__ void msm_digits_sparse(const uint32_t *__restrict__ scalars, const uint32_t *__restrict__ other,
                                  size_t n_o, const uint32_t *__restrict__ ones, size_t n_1, uint32_t c, uint32_t W,
                                  int mont, uint32_t *keys, uint32_t *vals) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n_o) {
    uint32_t p = other[i];
    msm_emit(msm_load(scalars, p, mont), p, i, n_o, c, W, keys, vals);
  } else if (i < n_o + n_1) {
    keys[(size_t)W * n_o + (i - n_o)] = 0;
    vals[(size_t)W * n_o + (i - n_o)] = ones[i - n_o];
  }
}

/* Scalar classes for the 0/1-aware partition: 0 zero, 1 one, 2 any other. Read as stored, no conversion: zero is
 * all-zero limbs in both forms, one is R mod r (FR_ONE) in Montgomery form and 1 in canonical form (a value stored
 * unreduced, >= r, is "other": its digits are made from the reduced value, so the sum is the same). */
struct msm_class {
  const uint32_t *s;
  int mont;
  __device__ int get(uint32_t i) const {
    const uint4 *src = (const uint4 *)(s + 8 * (size_t)i);
    const uint4 lo = src[0], hi = src[1];
    const uint32_t v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    uint32_t any = 0, diff = 0;
    for (int j = 0; j < 8; j++) {
      any |= v[j];
      diff |= v[j] ^ (mont ? FR_ONE[j] : (j == 0 ? 1u : 0u));
    }
    return !any ? 0 : !diff ? 1 : 2;
  }
};
struct msm_is_one {
  msm_class k;
  __device__ bool operator()(uint32_t i) const { return k.get(i) == 1; }
};
struct msm_is_other {
  msm_class k;
  __device__ bool operator()(uint32_t i) const { return k.get(i) == 2; }
};

/* ------------------------------------------------------------------------------------------------ host glue */
static uint32_t l1_of(int group);
extern "C" unsigned czk_cuda_msm_window_bits(size_t n) {
  const char *env = getenv("CZK_CUDA_MSM_WINDOW");
  if (env && *env) {
    long v = strtol(env, NULL, 10);
    if (v >= 4 && v <= 24) return (unsigned)v; /* at most 64 windows: the window sums' buffers */
  }
  unsigned lg = 0;
  while (lg < 63 && ((size_t)1 << (lg + 1)) <= n) lg++;
  /* c = lg - 4, at most 20: on the H200, G1 2^26 takes 420.1 ms with c = 20, 429.1 with 21, 422.6 with 22 */
  int c = (int)lg - 4;
  if (c < 4) c = 4;
  if (c > 20) c = 20;
  return (unsigned)c;
}

static czk_status grow(void **p, size_t *cap, size_t need) {
  if (*cap >= need) return CZK_OK;
  if (*p) CZK_CU(cudaFree(*p));
  *p = NULL;
  *cap = 0;
  CZK_CU(cudaMalloc(p, need));
  *cap = need;
  return CZK_OK;
}

static czk_status msm_new(czk_cuda_msm **out, int group, const void *bases, size_t n, bool on_device,
                          cudaStream_t st) {
  *out = NULL;
  if (n == 0 || n >= (1ull << 31)) return CZK_ERR_INVALID_ARG;
  czk_cuda_msm *m = (czk_cuda_msm *)calloc(1, sizeof *m);
  if (!m) return CZK_ERR_NOMEM;
  m->s = (msm_scratch *)calloc(1, sizeof *m->s);
  if (!m->s) {
    free(m);
    return CZK_ERR_NOMEM;
  }
  m->s->refs = 1;
  m->group = group;
  m->cap = n;
  m->aff_size = group == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
  m->xyzz_size = group == 1 ? sizeof(czk_g1_xyzz) : sizeof(czk_g2_xyzz);
  /* level-1 chunk: on the H200, G1 2^26 takes 430.5 / 424.2 / 420.8 / 415.4 / 415.2 ms with 32 / 48 / 64 / 96 / 128
   * entries per thread (2^20..2^24 within 4% either way); G2 2^24 (lazy Fp2 product, inlined) 414.6 / 408.5 / 434.3
   * ms with 32 / 64 / 128. */
  m->l1 = l1_of(group);
  m->prof = getenv("CZK_CUDA_MSM_PROFILE") != NULL;
  m->lk = 16;
  czk_status s = CZK_OK;
  cudaError_t e = cudaGetDevice(&m->device);
  if (e == cudaSuccess) e = cudaMallocHost(&m->h_win, 64 * m->xyzz_size);
  if (e == cudaSuccess) e = cudaMalloc(&m->d_win, 64 * m->xyzz_size);
  if (e == cudaSuccess) e = cudaMallocHost((void **)&m->h_cnt, 2 * sizeof(int));
  if (e == cudaSuccess) e = cudaMalloc((void **)&m->d_cnt, 2 * sizeof(int));
  if (e == cudaSuccess && on_device) {
    m->d_bases = (void *)bases;
  } else if (e == cudaSuccess) {
    e = cudaMalloc(&m->d_bases, n * m->aff_size);
    if (e == cudaSuccess) {
      m->own_bases = true;
      e = cudaMemcpyAsync(m->d_bases, bases, n * m->aff_size, cudaMemcpyHostToDevice, st);
    }
  }
  if (e != cudaSuccess) {
    czk_log_write(CZK_LOG_ERROR, "cuda", "msm_new(n=%zu): %s", n, cudaGetErrorString(e));
    s = e == cudaErrorMemoryAllocation ? CZK_ERR_NOMEM : CZK_ERR_DEVICE;
    czk_cuda_msm_free(m);
    return s;
  }
  *out = m;
  return CZK_OK;
}

extern "C" czk_status czk_cuda_msm_g1_new(czk_cuda_msm **out, const czk_g1_affine *bases, size_t n, void *stream) {
  if (!out || !bases) return CZK_ERR_INVALID_ARG;
  return msm_new(out, 1, bases, n, false, (cudaStream_t)stream);
}
extern "C" czk_status czk_cuda_msm_g2_new(czk_cuda_msm **out, const czk_g2_affine *bases, size_t n, void *stream) {
  if (!out || !bases) return CZK_ERR_INVALID_ARG;
  return msm_new(out, 2, bases, n, false, (cudaStream_t)stream);
}
extern "C" czk_status czk_cuda_msm_g1_new_device(czk_cuda_msm **out, const void *d_bases, size_t n) {
  if (!out || !d_bases) return CZK_ERR_INVALID_ARG;
  return msm_new(out, 1, d_bases, n, true, 0);
}
extern "C" czk_status czk_cuda_msm_g2_new_device(czk_cuda_msm **out, const void *d_bases, size_t n) {
  if (!out || !d_bases) return CZK_ERR_INVALID_ARG;
  return msm_new(out, 2, d_bases, n, true, 0);
}
extern "C" const void *czk_cuda_msm_bases(const czk_cuda_msm *m) { return m ? m->d_bases : NULL; }

static void scratch_release(msm_scratch *s) {
  if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
  for (int i = 0; i < 2; i++) {
    cudaFree(s->d_keys[i]);
    cudaFree(s->d_vals[i]);
    cudaFree(s->d_rkeys[i]);
    cudaFree(s->d_rpts[i]);
  }
  cudaFree(s->d_sort_tmp);
  cudaFree(s->d_buckets);
  cudaFree(s->d_seg);
  cudaFree(s->d_idx);
  cudaFree(s->d_part_tmp);
  free(s);
}

extern "C" czk_status czk_cuda_msm_share_scratch(czk_cuda_msm *m, czk_cuda_msm *with) {
  if (!m || !with || !m->s || !with->s) return CZK_ERR_INVALID_ARG;
  if (m->device != with->device) return CZK_ERR_INVALID_ARG;
  if (m->s == with->s) return CZK_OK;
  __atomic_add_fetch(&with->s->refs, 1, __ATOMIC_ACQ_REL);
  scratch_release(m->s); /* cudaFree waits for any run of m still in flight */
  m->s = with->s;
  return CZK_OK;
}

extern "C" void czk_cuda_msm_free(czk_cuda_msm *m) {
  if (!m) return;
  /* frees are best effort; cudaFree synchronizes, so nothing in flight is cut short */
  if (m->own_bases) cudaFree(m->d_bases);
  cudaFree(m->d_scalars);
  scratch_release(m->s);
  cudaFree(m->d_win);
  cudaFreeHost(m->h_win);
  cudaFree(m->d_cnt);
  cudaFreeHost(m->h_cnt);
  for (int i = 0; i < 12; i++)
    if (m->ev[i]) cudaEventDestroy(m->ev[i]);
  free(m);
}

/* One run's finishing step: its own copy of the output pointer and window shape, so that a handle may be run again
 * on its stream before this run's host function has executed (stream order keeps h_win intact until it has). */
typedef struct msm_cb {
  const czk_cuda_msm *m;
  void *out;
  uint32_t W, c;
  int add; /* a later chunk of a chunked run: add to *out (earlier chunks' callbacks ran before, in stream order) */
} msm_cb;

/* Host function on the stream: combine the window sums (in m->h_win) into *out; frees its context. */
static void CUDART_CB msm_finish_g1(void *arg) {
  msm_cb *cb = (msm_cb *)arg;
  const czk_g1_xyzz *win = (const czk_g1_xyzz *)cb->m->h_win;
  czk_g1 acc, t;
  memset(&acc, 0, sizeof acc);
  for (uint32_t w = cb->W; w-- > 0;) {
    for (uint32_t i = 0; i < cb->c; i++) czk_g1_dbl(&acc, &acc);
    czk_g1_xyzz_to_jacobian(&t, &win[w]);
    czk_g1_add(&acc, &acc, &t);
  }
  if (cb->add) czk_g1_add((czk_g1 *)cb->out, (czk_g1 *)cb->out, &acc);
  else *(czk_g1 *)cb->out = acc;
  free(cb);
}
static void CUDART_CB msm_finish_g2(void *arg) {
  msm_cb *cb = (msm_cb *)arg;
  const czk_g2_xyzz *win = (const czk_g2_xyzz *)cb->m->h_win;
  czk_g2 acc, t;
  memset(&acc, 0, sizeof acc);
  for (uint32_t w = cb->W; w-- > 0;) {
    for (uint32_t i = 0; i < cb->c; i++) czk_g2_dbl(&acc, &acc);
    czk_g2_xyzz_to_jacobian(&t, &win[w]);
    czk_g2_add(&acc, &acc, &t);
  }
  if (cb->add) czk_g2_add((czk_g2 *)cb->out, (czk_g2 *)cb->out, &acc);
  else *(czk_g2 *)cb->out = acc;
  free(cb);
}

/* The largest run done in one pass (CZK_CUDA_MSM_MAX_CHUNK overrides, a power of two >= 2^16): a larger run goes in
 * chunks of this many points, each on the same scratch, the chunks' results added in stream order. The window stops
 * growing at 20 bits from 2^24 points on, so a 2^24 chunk does the bucket work of the whole run's pass and bounds the
 * scratch: per G1 handle about 4.6 GB at 2^24 (sort pairs 3.5 GB, buckets 1.3 GB, the levels' records) instead of
 * 30 GB at 2^27 (the 2^26 and 2^27 proves failed in cudaMalloc before). */
static size_t msm_max_chunk(void) {
  const char *env = getenv("CZK_CUDA_MSM_MAX_CHUNK");
  if (env && *env) {
    unsigned long long v = strtoull(env, NULL, 10);
    if (v >= (1ull << 16) && (v & (v - 1)) == 0) return (size_t)v;
  }
  return (size_t)1 << 24;
}

/* ------------------------------------------------------------------------------------------------ scratch plan */
/* What one pass needs of the scratch (bytes per buffer), so that a handle's scratch can be sized before any run
 * (czk_cuda_msm_reserve) and its bytes known before any allocation (czk_cuda_msm_plan_bytes): the device memory plan
 * of a prove, never discovered by a failing cudaMalloc. msm_pass sizes its scratch with the same function. */
typedef struct scratch_need {
  size_t pairs; /* bytes of each of the four pair arrays (keys / values, in and out) */
  size_t sort_tmp, buckets, rkey[2], rec[2], seg, idx, part_tmp;
} scratch_need;

static void need_max(scratch_need *a, const scratch_need *b) {
  size_t *x = (size_t *)a;
  const size_t *y = (const size_t *)b;
  for (size_t i = 0; i < sizeof *a / sizeof(size_t); i++) x[i] = x[i] > y[i] ? x[i] : y[i];
}
static uint64_t need_bytes(const scratch_need *a) {
  return 4ull * a->pairs + a->sort_tmp + a->buckets + a->rkey[0] + a->rkey[1] + a->rec[0] + a->rec[1] + a->seg +
         a->idx + a->part_tmp;
}

/* The shape of one pass: n points with full digits and n_1 ones (msm_pass), window width c (0: the one for n). */
typedef struct pass_shape {
  uint32_t c, W, nb, sentinel;
  int bits;
  size_t N;
} pass_shape;
static pass_shape pass_shape_of(size_t n, size_t n_1, uint32_t c) {
  pass_shape p;
  p.c = c ? c : n ? czk_cuda_msm_window_bits(n) : 4;
  p.W = (256 + p.c - 1) / p.c;
  p.nb = 1u << (p.c - 1);
  p.sentinel = p.W * p.nb;
  p.bits = 1;
  while (p.bits < 32 && (1ull << p.bits) <= p.sentinel) p.bits++;
  p.N = n * (size_t)p.W + n_1;
  return p;
}

/* The widest window a series may take whose passes have at most `top` points: 2 bits over one pass's own, at most
 * the width of a whole run of any size (the series' total points decide below that). */
static uint32_t series_c_max(size_t top, size_t xyzz) {
  /* G2's buckets are twice G1's: one bit over */
  uint32_t c = czk_cuda_msm_window_bits(top) + (xyzz > sizeof(czk_g1_xyzz) ? 1 : 2),
           cap = czk_cuda_msm_window_bits((size_t)1 << 40);
  return c < cap ? c : cap;
}

static czk_status pass_need(uint32_t l1, uint32_t lk, size_t xyzz, size_t n, size_t n_1, uint32_t c,
                            scratch_need *o) {
  memset(o, 0, sizeof *o);
  const pass_shape p = pass_shape_of(n, n_1, c);
  o->pairs = p.N * 4;
  size_t tmp = 0;
  if (n)
    CZK_CU(cub::DeviceRadixSort::SortPairs(NULL, tmp, (uint32_t *)NULL, (uint32_t *)NULL, (uint32_t *)NULL,
                                           (uint32_t *)NULL, (int64_t)p.N, 0, p.bits, (cudaStream_t)0));
  o->sort_tmp = tmp;
  o->buckets = (size_t)p.W * p.nb * xyzz;
  size_t r1 = 2 * ((p.N + l1 - 1) / l1);
  size_t r2 = 2 * ((r1 + lk - 1) / lk);
  o->rkey[0] = r1 * 4, o->rec[0] = r1 * xyzz;
  o->rkey[1] = r2 * 4, o->rec[1] = r2 * xyzz;
  o->seg = (size_t)p.W * (p.nb / msm_seg_size(p.c, p.W)) * xyzz;
  return CZK_OK;
}

static bool sparse_for(size_t n) {
  const char *sp = getenv("CZK_CUDA_MSM_SPARSE");
  return n >= (sp && *sp == '1' ? 1u : 1u << 16) && !(sp && *sp == '0');
}

/* The partition's temporary storage for n scalars (msm_run's 0/1 split). */
static czk_status part_tmp_need(size_t n, size_t *tmp) {
  msm_is_one one = {{NULL, false}};
  msm_is_other oth = {{NULL, false}};
  thrust::counting_iterator<uint32_t> in(0);
  thrust::reverse_iterator<uint32_t *> back(NULL);
  thrust::discard_iterator<> none;
  *tmp = 0;
  CZK_CU(cub::DevicePartition::If(NULL, *tmp, in, (uint32_t *)NULL, back, none, (int *)NULL, (int64_t)n, one, oth,
                                  (cudaStream_t)0));
  return CZK_OK;
}

/* Everything any run of up to n points (scalars on the device) may need: every pass size up to the chunk at every
 * window width a series of such passes may take (a pass's pairs grow with its points within one width, so the
 * largest size of each width is taken; a wider window has fewer pairs and more buckets), and, where the 0/1 split
 * applies, its indices and its temporary storage (a pass of ones, one pair each and no sort, never holds more pairs
 * than a full-digit pass of the chunk). */
static czk_status run_need(uint32_t l1, uint32_t lk, size_t xyzz, size_t n, bool dense_only, scratch_need *o) {
  memset(o, 0, sizeof *o);
  if (n == 0) return CZK_OK;
  const size_t chunk = msm_max_chunk(), top = n < chunk ? n : chunk;
  const uint32_t cmax = series_c_max(top, xyzz);
  scratch_need t;
  for (size_t lo = 1; lo <= top; lo *= 2) {
    size_t hi = 2 * lo - 1 < top ? 2 * lo - 1 : top;
    for (uint32_t c = czk_cuda_msm_window_bits(hi); c <= cmax; c++) {
      CZK_TRY(pass_need(l1, lk, xyzz, hi, 0, c, &t));
      need_max(o, &t);
    }
    if (lo > top / 2) break;
  }
  if (!dense_only && sparse_for(n)) {
    o->idx = n * 4;
    CZK_TRY(part_tmp_need(n, &o->part_tmp));
  }
  return CZK_OK;
}

static uint32_t l1_of(int group) {
  const char *env = getenv("CZK_CUDA_MSM_CHUNK");
  if (env && atoi(env) >= 4 && atoi(env) <= 4096) return (uint32_t)atoi(env);
  return group == 1 ? 128 : 64;
}

static czk_status scratch_grow(msm_scratch *s, const scratch_need *nd) {
  if (s->pairs_cap < nd->pairs) {
    for (int i = 0; i < 2; i++) {
      CZK_CU(cudaFree(s->d_keys[i]));
      CZK_CU(cudaFree(s->d_vals[i]));
      s->d_keys[i] = s->d_vals[i] = NULL;
    }
    s->pairs_cap = 0;
    for (int i = 0; i < 2; i++) {
      CZK_CU(cudaMalloc((void **)&s->d_keys[i], nd->pairs));
      CZK_CU(cudaMalloc((void **)&s->d_vals[i], nd->pairs));
    }
    s->pairs_cap = nd->pairs;
  }
  CZK_TRY(grow(&s->d_sort_tmp, &s->sort_tmp_cap, nd->sort_tmp));
  CZK_TRY(grow(&s->d_buckets, &s->buckets_cap, nd->buckets));
  for (int i = 0; i < 2; i++) {
    CZK_TRY(grow((void **)&s->d_rkeys[i], &s->rkey_cap[i], nd->rkey[i]));
    CZK_TRY(grow(&s->d_rpts[i], &s->rec_cap[i], nd->rec[i]));
  }
  CZK_TRY(grow(&s->d_seg, &s->seg_cap, nd->seg));
  CZK_TRY(grow((void **)&s->d_idx, &s->idx_cap, nd->idx));
  CZK_TRY(grow(&s->d_part_tmp, &s->part_tmp_cap, nd->part_tmp));
  return CZK_OK;
}

extern "C" czk_status czk_cuda_msm_plan_bytes(const int *groups, const size_t *ns, const int *dense, size_t k,
                                              uint64_t *bytes) {
  if (!bytes || (k && (!groups || !ns))) return CZK_ERR_INVALID_ARG;
  scratch_need all, t;
  memset(&all, 0, sizeof all);
  for (size_t i = 0; i < k; i++) {
    if (groups[i] != 1 && groups[i] != 2) return CZK_ERR_INVALID_ARG;
    size_t xyzz = groups[i] == 1 ? sizeof(czk_g1_xyzz) : sizeof(czk_g2_xyzz);
    CZK_TRY(run_need(l1_of(groups[i]), 16, xyzz, ns[i], dense && dense[i], &t));
    need_max(&all, &t);
  }
  *bytes = need_bytes(&all);
  return CZK_OK;
}

extern "C" czk_status czk_cuda_msm_reserve(czk_cuda_msm *m, size_t n) {
  if (!m || !m->s) return CZK_ERR_INVALID_ARG;
  if (n > m->cap) n = m->cap;
  scratch_need nd;
  CZK_TRY(run_need(m->l1, m->lk, m->xyzz_size, n, m->dense, &nd));
  CZK_TRY(scratch_grow(m->s, &nd));
  const size_t chunk = msm_max_chunk(), top = n < chunk ? n : chunk;
  if (m->s->res_top[m->group - 1] < top) m->s->res_top[m->group - 1] = top;
  return CZK_OK;
}

extern "C" uint64_t czk_cuda_msm_scratch_held(const czk_cuda_msm *m) {
  if (!m || !m->s) return 0;
  const msm_scratch *s = m->s;
  return 4ull * s->pairs_cap + s->sort_tmp_cap + s->buckets_cap + s->rkey_cap[0] + s->rkey_cap[1] + s->rec_cap[0] +
         s->rec_cap[1] + s->seg_cap + s->idx_cap + s->part_tmp_cap;
}

extern "C" void czk_cuda_msm_set_dense(czk_cuda_msm *m, int dense) {
  if (m) m->dense = dense != 0;
}

/* One pass of a series: dense (other = NULL, ones = NULL) over points [base_off, base_off + n) with their scalars at
 * d_sc, or over the n points other[] (full digits), or over the n_1 points ones[] (one pair each, all in bucket 0 of
 * window 0: no digits and no sort); accumulated into the series' buckets at its width. */
static czk_status msm_pass(czk_cuda_msm *m, int group, const uint32_t *d_sc, size_t n, size_t base_off,
                           const uint32_t *other, const uint32_t *ones, size_t n_1, unsigned flags, cudaStream_t st);
/* The end of a series: reduction, window sums, and the host function that writes the sum to *out. */
static czk_status msm_series_end(czk_cuda_msm *m, int group, void *out, int add, cudaStream_t st);

/* The width of a series of `total` points (an estimate) in passes of about `per` points: the one of least cost in
 * additions, up to the widest the plan allows (2 bits, G2 1, over the width of the largest pass the scratch was
 * reserved for; unreserved: the chunk's). Cost per window, in mixed additions (about 10 multiplications each):
 * one per point, a full addition (~14) per bucket a pass leaves for a later pass to add to (at most one per point of
 * the pass), and two per bucket to reduce them once at the end. A single pass of n points keeps the width tuned on the
 * device for a run of n points (czk_cuda_msm_window_bits); chunks get a narrower one when their buckets would be
 * revisited too often. */
static uint32_t series_c(const czk_cuda_msm *m, size_t total, size_t per) {
  const char *env = getenv("CZK_CUDA_MSM_WINDOW");
  if (env && *env) return czk_cuda_msm_window_bits(total);
  const size_t chunk = msm_max_chunk(), rt = m->s->res_top[m->group - 1];
  const size_t top = rt ? rt : total < chunk ? total : chunk;
  if (!total) total = 1;
  if (!per || per > total) per = total;
  uint32_t best = czk_cuda_msm_window_bits(total), cm = series_c_max(top ? top : 1, m->xyzz_size);
  if (best > cm) best = cm;
  const double k = (double)((total + per - 1) / per);
  if (k <= 1) return best; /* one pass: the width tuned on the device for a run of that size */
  double best_cost = 0;
  for (uint32_t c = 4; c <= cm; c++) {
    const double W = (double)((256 + c - 1) / c), nb = (double)(1u << (c - 1));
    const double touched = nb < (double)per ? nb : (double)per;
    const double cost = W * ((double)total + 1.4 * touched * (k - 1) + 2.8 * nb);
    if (c == 4 || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

/* The points of one full-digit pass at width c: at most the chunk, and, in a reserved scratch, what its pairs hold (a
 * reserved scratch is never grown by a run: a pass at a window as wide as the plan's has fewer pairs per point, a
 * narrower one gets fewer points). */
/* Whether a pass of n points with full digits and n_1 ones at width c fits the scratch as it is, every buffer (a
 * scratch shared by G1 and G2 handles holds the larger of each: a G2 pass's records, twice a G1 one's per point and
 * half the level width, may need more than the G1 pass that sized the pairs). */
static bool pass_fits(const czk_cuda_msm *m, size_t n, size_t n_1, uint32_t c) {
  scratch_need nd;
  if (pass_need(m->l1, m->lk, m->xyzz_size, n, n_1, c, &nd) != CZK_OK) return false;
  const msm_scratch *S = m->s;
  return nd.pairs <= S->pairs_cap && nd.sort_tmp <= S->sort_tmp_cap && nd.rkey[0] <= S->rkey_cap[0] &&
         nd.rkey[1] <= S->rkey_cap[1] && nd.rec[0] <= S->rec_cap[0] && nd.rec[1] <= S->rec_cap[1];
}
/* The largest pass (points, or ones when `ones`) from `fit` down that fits the reserved scratch (1 at least: a pass
 * that cannot fit grows it, as an unreserved scratch does). */
static size_t fit_pass(const czk_cuda_msm *m, size_t fit, uint32_t c, bool ones) {
  while (fit > 1 && !pass_fits(m, ones ? 0 : fit, ones ? fit : 0, c)) fit -= fit / 8 + 1;
  return fit ? fit : 1;
}
static size_t pass_points(const czk_cuda_msm *m, uint32_t c) {
  const size_t chunk = msm_max_chunk();
  if (!m->s->res_top[0] && !m->s->res_top[1]) return chunk;
  const size_t fit = m->s->pairs_cap / 4 / pass_shape_of(1, 0, c).W;
  return fit_pass(m, fit >= chunk ? chunk : fit ? fit : 1, c, false);
}

/* add: the run's sum is added to *out (a series split into runs of their own, CZK_CUDA_MSM_SERIES=0) */
static czk_status msm_run(czk_cuda_msm *m, int group, void *out, const uint64_t *scalars, size_t n, unsigned flags,
                          size_t n_total, int add, cudaStream_t st) {
  if (!m || !out || (!scalars && n) || m->group != group) return CZK_ERR_INVALID_ARG;
  if (n > m->cap) return CZK_ERR_SIZE_MISMATCH;
  msm_scratch *const S = m->s;
  const bool first = (flags & CZK_CUDA_SERIES_FIRST) != 0, last = (flags & CZK_CUDA_SERIES_LAST) != 0;
  if (first) S->ser_c = 0, S->ser_fresh = true;
  if (n_total < n) n_total = n;
  if (n == 0) /* (a series of no point at all: its end writes infinity in stream order) */
    return last ? msm_series_end(m, group, out, add, st) : CZK_OK;
  const uint32_t *d_sc = (const uint32_t *)scalars;
  if (!(flags & CZK_CUDA_SCALARS_DEVICE)) {
    CZK_TRY(grow((void **)&m->d_scalars, &m->scalars_cap, n * 32));
    CZK_CU(cudaMemcpyAsync(m->d_scalars, scalars, n * 32, cudaMemcpyHostToDevice, st));
    d_sc = m->d_scalars;
  }
  const size_t chunk = msm_max_chunk();
  bool done = false;
  /* 0/1-aware: witness vectors are mostly 0 and 1 (bits); partition the points by scalar class on the device and read
   * the two counts back (the run's one synchronization): zeros are skipped, ones cost one pair each and no digit or
   * sort, and only the others go through the digits */
  if (!m->dense && sparse_for(n)) {
    CZK_TRY(grow((void **)&S->d_idx, &S->idx_cap, n * 4));
    msm_is_one one = {{d_sc, (flags & CZK_CUDA_SCALARS_MONT) != 0}};
    msm_is_other oth = {{d_sc, (flags & CZK_CUDA_SCALARS_MONT) != 0}};
    thrust::counting_iterator<uint32_t> in(0);
    thrust::reverse_iterator<uint32_t *> back(S->d_idx + n);
    thrust::discard_iterator<> none;
    size_t tmp = 0;
    CZK_CU(cub::DevicePartition::If(NULL, tmp, in, S->d_idx, back, none, m->d_cnt, (int64_t)n, one, oth, st));
    CZK_TRY(grow(&S->d_part_tmp, &S->part_tmp_cap, tmp));
    CZK_CU(cub::DevicePartition::If(S->d_part_tmp, tmp, in, S->d_idx, back, none, m->d_cnt, (int64_t)n, one, oth, st));
    CZK_CU(cudaMemcpyAsync(m->h_cnt, m->d_cnt, 2 * sizeof(int), cudaMemcpyDeviceToHost, st));
    CZK_CU(cudaStreamSynchronize(st));
    const size_t n_1 = (size_t)m->h_cnt[0], n_o = (size_t)m->h_cnt[1];
    if (n_1 + n_o <= n && (n - n_o) * 16 >= n) { /* at least 1/16 zeros or ones */
      const uint32_t *ones = S->d_idx, *other = S->d_idx + (n - n_o);
      /* the width from the others this run has, in the proportion of the series' points */
      /* (chosen by the first run that has a pass: a run of zeros alone says nothing of the rest) */
      if (!S->ser_c && n_1 + n_o > 0) { /* (at least 1/128 of the series: few others in a first run say little) */
        if (first && last) { /* a run alone: the width of its others, as tuned */
          S->ser_c = series_c(m, n_o ? n_o : 1, n_o ? n_o : 1);
        } else {
          const size_t est = (size_t)((double)n_o * ((double)n_total / (double)n)) + 1;
          S->ser_c = series_c(m, est > n_total / 128 ? est : n_total / 128, n_o > n / 128 ? n_o : n / 128);
        }
      }
      const size_t po = n_o ? pass_points(m, S->ser_c) : 1;
      for (size_t off = 0; off < n_o; off += po)
        CZK_TRY(msm_pass(m, group, d_sc, n_o - off < po ? n_o - off : po, 0, other + off, NULL, 0, flags, st));
      /* ones: one pair each, in passes of at most the pairs a full-digit pass of the chunk holds (and that the
       * reserved records hold) */
      const bool res = S->res_top[0] || S->res_top[1];
      const size_t p1 = !n_1 ? 1 : res && S->pairs_cap ? fit_pass(m, S->pairs_cap / 4, S->ser_c, true) : 8 * chunk;
      for (size_t off = 0; off < n_1; off += p1)
        CZK_TRY(msm_pass(m, group, d_sc, 0, 0, NULL, ones + off, n_1 - off < p1 ? n_1 - off : p1, flags, st));
      done = true;
    }
  }
  if (!done) {
    if (!S->ser_c) S->ser_c = series_c(m, n_total, n < chunk ? n : chunk);
    const size_t pp = pass_points(m, S->ser_c);
    for (size_t off = 0; off < n; off += pp)
      CZK_TRY(msm_pass(m, group, d_sc + 8 * off, n - off < pp ? n - off : pp, off, NULL, NULL, 0, flags, st));
  }
  if (!last) return CZK_OK;
  if (first && S->ser_fresh) { /* every scalar zero: nothing in flight on the stream writes *out */
    if (!add) memset(out, 0, group == 1 ? sizeof(czk_g1) : sizeof(czk_g2));
    return CZK_OK;
  }
  return msm_series_end(m, group, out, add, st);
}

static czk_status msm_pass(czk_cuda_msm *m, int group, const uint32_t *d_sc, size_t n, size_t base_off,
                           const uint32_t *other, const uint32_t *ones, size_t n_1, unsigned flags, cudaStream_t st) {
  msm_scratch *const S = m->s;
  const pass_shape ps = pass_shape_of(n, n_1, S->ser_c);
  const uint32_t c = ps.c, W = ps.W, sentinel = ps.sentinel;
  const size_t N = ps.N;
  /* scratch (grown only when no reserve covered this pass) */
  scratch_need nd;
  CZK_TRY(pass_need(m->l1, m->lk, m->xyzz_size, n, n_1, c, &nd));
  CZK_TRY(scratch_grow(S, &nd));
  size_t tmp = nd.sort_tmp;

  m->nev = 0;
  msm_mark(m, "start", st);
  const uint32_t *keys = S->d_keys[1], *vals = S->d_vals[1];
  if (ones) { /* all in one bucket: the pairs are sorted as they are */
    CZK_CU(cudaMemsetAsync(S->d_keys[1], 0, n_1 * 4, st));
    vals = ones;
  } else {
    if (other)
      msm_digits_sparse<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(d_sc, other, n, NULL, 0, c, W,
                                                                       (flags & CZK_CUDA_SCALARS_MONT) != 0,
                                                                       S->d_keys[0], S->d_vals[0]);
    else
      msm_digits<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(d_sc, n, c, W, (flags & CZK_CUDA_SCALARS_MONT) != 0,
                                                               S->d_keys[0], S->d_vals[0]);
    CZK_CU_LAUNCHED(st);
    CZK_CU(cub::DeviceRadixSort::SortPairs(S->d_sort_tmp, tmp, S->d_keys[0], S->d_keys[1], S->d_vals[0],
                                           S->d_vals[1], (int64_t)N, 0, ps.bits, st));
    CZK_CU_LAUNCHED(st);
  }
  msm_mark(m, "digits+sort", st);
  /* the kernels take the bases of this pass; the handle's pointer is restored once they are launched */
  void *bases = m->d_bases;
  m->d_bases = (char *)bases + base_off * m->aff_size;
  const int fresh = S->ser_fresh;
  czk_status ls = group == 1 ? g1_msm_launch_pairs(m, keys, vals, N, c, W, sentinel, fresh, st)
                             : g2_msm_launch_pairs(m, keys, vals, N, c, W, sentinel, fresh, st);
  m->d_bases = bases;
  CZK_TRY(ls);
  S->ser_fresh = false;
  if (m->prof) { /* debugging aid: synchronous */
    CZK_CU(cudaStreamSynchronize(st));
    char line[512];
    int len = snprintf(line, sizeof line, "msm g%d pass n=%zu ones=%zu c=%u W=%u:", group, n, n_1, c, W);
    for (int i = 1; i < m->nev && len < (int)sizeof line; i++) {
      float ms = 0;
      cudaEventElapsedTime(&ms, m->ev[i - 1], m->ev[i]);
      len += snprintf(line + len, sizeof line - len, " %s %.2f", m->ev_name[i], ms);
    }
    czk_log_write(CZK_LOG_INFO, "cuda", "%s ms", line);
  }
  return CZK_OK;
}

static czk_status msm_series_end(czk_cuda_msm *m, int group, void *out, int add, cudaStream_t st) {
  msm_scratch *const S = m->s;
  if (S->ser_fresh) { /* no pass ran (every scalar of the series zero, or no point): infinity, in stream order */
    msm_cb *cb = (msm_cb *)malloc(sizeof *cb);
    if (!cb) return CZK_ERR_NOMEM;
    *cb = (msm_cb){m, out, 0, 0, add}; /* no window: the callback writes (or adds) infinity */
    cudaError_t le = cudaLaunchHostFunc(st, group == 1 ? msm_finish_g1 : msm_finish_g2, cb);
    if (le != cudaSuccess) free(cb);
    CZK_CU(le);
    return CZK_OK;
  }
  const pass_shape ps = pass_shape_of(1, 0, S->ser_c);
  m->nev = 0;
  msm_mark(m, "start", st);
  CZK_TRY(group == 1 ? g1_msm_launch_reduce(m, ps.c, ps.W, st) : g2_msm_launch_reduce(m, ps.c, ps.W, st));
  msm_cb *cb = (msm_cb *)malloc(sizeof *cb);
  if (!cb) return CZK_ERR_NOMEM;
  *cb = (msm_cb){m, out, ps.W, ps.c, add};
  cudaError_t le = cudaLaunchHostFunc(st, group == 1 ? msm_finish_g1 : msm_finish_g2, cb);
  if (le != cudaSuccess) free(cb);
  CZK_CU(le);
  msm_mark(m, "window sums", st);
  if (m->prof) {
    CZK_CU(cudaStreamSynchronize(st));
    float ms = 0;
    if (m->nev >= 2) cudaEventElapsedTime(&ms, m->ev[0], m->ev[m->nev - 1]);
    czk_log_write(CZK_LOG_INFO, "cuda", "msm g%d series end c=%u W=%u: reduce %.2f ms", group, ps.c, ps.W, ms);
  }
  return CZK_OK;
}

/* A run over the bases [base_off, base_off + n): the handle's bases and capacity are shifted for the call (a handle
 * is used by one host thread at a time, and its kernels take the bases pointer at launch). */
extern "C" czk_status czk_cuda_msm_run_series(czk_cuda_msm *m, int group, void *out, size_t base_off,
                                              const uint64_t *scalars, size_t n, unsigned flags, size_t n_total,
                                              void *stream) {
  if (!m || base_off > m->cap || n > m->cap - base_off) return CZK_ERR_INVALID_ARG;
  void *bases = m->d_bases;
  const size_t cap = m->cap;
  m->d_bases = (char *)bases + base_off * m->aff_size;
  m->cap = cap - base_off;
  /* CZK_CUDA_MSM_SERIES=0: every run a series of its own, added to *out (for comparisons) */
  const char *env = getenv("CZK_CUDA_MSM_SERIES");
  int add = 0;
  if (env && *env == '0') {
    add = !(flags & CZK_CUDA_SERIES_FIRST);
    flags |= CZK_CUDA_SERIES_FIRST | CZK_CUDA_SERIES_LAST;
    n_total = n;
  }
  czk_status st = msm_run(m, group, out, scalars, n, flags, n_total, add, (cudaStream_t)stream);
  m->d_bases = bases;
  m->cap = cap;
  return st;
}

extern "C" czk_status czk_cuda_msm_run_at(czk_cuda_msm *m, int group, void *out, size_t base_off,
                                          const uint64_t *scalars, size_t n, unsigned flags, void *stream) {
  return czk_cuda_msm_run_series(m, group, out, base_off, scalars, n,
                                 flags | CZK_CUDA_SERIES_FIRST | CZK_CUDA_SERIES_LAST, n, stream);
}

extern "C" czk_status czk_cuda_msm_g1_run(czk_cuda_msm *m, czk_g1 *out, const uint64_t *scalars, size_t n,
                                          unsigned flags, void *stream) {
  return msm_run(m, 1, out, scalars, n, flags | CZK_CUDA_SERIES_FIRST | CZK_CUDA_SERIES_LAST, n, 0,
                 (cudaStream_t)stream);
}
extern "C" czk_status czk_cuda_msm_g2_run(czk_cuda_msm *m, czk_g2 *out, const uint64_t *scalars, size_t n,
                                          unsigned flags, void *stream) {
  return msm_run(m, 2, out, scalars, n, flags | CZK_CUDA_SERIES_FIRST | CZK_CUDA_SERIES_LAST, n, 0,
                 (cudaStream_t)stream);
}

/* ------------------------------------------------------------------------------------------------ bench helper */
extern "C" czk_status czk_cuda_gen_bases(int g, void *d_out, size_t n, const void *h_a, size_t na, const void *h_b,
                                          size_t nb, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  size_t as = g == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
  void *dA = NULL, *dB = NULL;
  CZK_CU(cudaMallocAsync(&dA, na * as, st));
  CZK_CU(cudaMallocAsync(&dB, nb * as, st));
  CZK_CU(cudaMemcpyAsync(dA, h_a, na * as, cudaMemcpyHostToDevice, st));
  CZK_CU(cudaMemcpyAsync(dB, h_b, nb * as, cudaMemcpyHostToDevice, st));
  if (g == 1)
    g1_gen_bases_launch(d_out, n, dA, na, dB, nb, st);
  else
    g2_gen_bases_launch(d_out, n, dA, na, dB, nb, st);
  CZK_CU_LAUNCHED(st);
  CZK_CU(cudaFreeAsync(dA, st));
  CZK_CU(cudaFreeAsync(dB, st));
  return CZK_OK;
}
