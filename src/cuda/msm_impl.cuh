/* msm_impl.cuh: the per-group Pippenger kernels, instantiated for G1 and G2 by msm.cu (EC_F / EC_G as for ec.cuh,
 * which must have been included for the same group first).
 *
 * Input of the accumulation: N = n*W (key, value) pairs sorted by key, key = window*2^(c-1) + |digit|-1 (or the
 * sentinel for a zero digit, sorted last), value = point index | sign << 31.
 *
 * Accumulation as a segmented sum by key, load-balanced whatever the key distribution:
 *   level 1: thread t sums the affine points of sorted entries [tL, tL+L) (mixed XYZZ additions, 8M+2S each).
 *            A run of one key that lies wholly inside the chunk and does not touch a chunk edge where the same key
 *            continues is complete: it is written to its bucket. The chunk's first and last runs, when they continue
 *            into a neighbour chunk, are written as records (slots 2t, 2t+1); unused slots are dummies (flag bit 31,
 *            key of the neighbouring entry, so records stay sorted) whose point is never read.
 *   level k: the same over the records (XYZZ additions), until one chunk remains (then every run is complete).
 *   Every bucket is written exactly once (empty buckets are zeroed beforehand = infinity).
 * Bucket reduction per window (bucket k holds digit k+1): segments of S buckets; per segment the running sum gives
 * sum_{k in [a,a+S)} (k-a+1) B_k (2 additions per bucket), plus a * (sum B_k) by double-and-add; then a pairwise
 * tree over the segments of each window. The window sums go to the host (window combination: W*c doublings). */

#define FE CZK_CAT(EC_F, _t)
#define FOP(op) CZK_CAT(CZK_CAT(EC_F, _), op)
#define GOP(op) CZK_CAT(CZK_CAT(EC_G, _), op)
#define XYZZ GOP(xyzz_t)
#define AFF GOP(aff_t)

#define MSM_DUMMY 0x80000000u
#define MSM_KEYMASK 0x7fffffffu

/* Level 1. The next entry's base is copied into shared memory with cp.async while the current one is added, and madd
 * reads its coordinates from there at each use, so neither occupies registers (a register prefetch held two points:
 * 96 registers for G2). The key and value are read two entries ahead, so that the copy's address is at hand when it
 * is issued. Shared memory: two slots of AFF_CH 16-byte chunks per thread (an odd count: the 16-byte accesses of 8
 * consecutive threads fall in distinct bank groups). */
#define AFF_CH ((unsigned)(sizeof(AFF) / 16) | 1u)
#define XYZZ_CH ((unsigned)(sizeof(XYZZ) / 16) | 1u)
static __device__ __forceinline__ void GOP(stage_pt)(uint4 *dst, const void *src, const unsigned nch) {
  for (unsigned i = 0; i < nch; i++) cp_async16(dst + i, (const uint4 *)src + i);
}
static __device__ __forceinline__ void GOP(lds_xyzz)(XYZZ *r, const uint4 *p) {
  const XYZZ *q = (const XYZZ *)p;
  FOP(lds)(&r->x, &q->x);
  FOP(lds)(&r->y, &q->y);
  FOP(lds)(&r->zz, &q->zz);
  FOP(lds)(&r->zzz, &q->zzz);
}
static __device__ __forceinline__ void GOP(sts_xyzz)(uint4 *p, const XYZZ *r) {
  XYZZ *q = (XYZZ *)p;
  FOP(sts)(&q->x, &r->x);
  FOP(sts)(&q->y, &r->y);
  FOP(sts)(&q->zz, &r->zz);
  FOP(sts)(&q->zzz, &r->zzz);
}

/* A completed run's sum into its bucket: written, or (addb: a later pass of a series, whose earlier passes left sums in
 * the buckets) added to what is there. Each bucket is written by one thread of a pass. */
static __device__ __forceinline__ void GOP(bucket_put)(XYZZ *buckets, uint32_t k, XYZZ *acc, const int addb) {
  if (addb) {
    XYZZ b = buckets[k];
    GOP(add)(acc, acc, &b, false);
  }
  buckets[k] = *acc;
}

__global__ void __launch_bounds__(128) GOP(msm_acc_l1)(const uint32_t *__restrict__ keys,
                                                          const uint32_t *__restrict__ vals, size_t N, uint32_t L,
                                                          const AFF *__restrict__ bases, XYZZ *buckets,
                                                          uint32_t *rkeys, XYZZ *rpts, uint32_t sentinel,
                                                          const int addb) {
  extern __shared__ uint4 msm_sm[];
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t nch = (N + L - 1) / L;
  if (t >= nch) return;
  uint4 *const slot0p = msm_sm + threadIdx.x * AFF_CH, *const slot1p = slot0p + blockDim.x * AFF_CH;
  size_t lo = t * L, hi = lo + L < N ? lo + L : N;
  bool prev_cont = lo > 0 && keys[lo - 1] == keys[lo];
  bool next_cont = hi < N && keys[hi] == keys[hi - 1];
  uint32_t slot0 = MSM_DUMMY | keys[lo], slot1 = MSM_DUMMY | keys[hi - 1];
  XYZZ acc;
  GOP(set_inf)(&acc);
  uint32_t cur = keys[lo];
  bool first = true;
  uint32_t k1 = keys[lo], v1 = vals[lo], k2 = sentinel, v2 = 0;
  if (k1 != sentinel) GOP(stage_pt)(slot0p, bases + (v1 & MSM_KEYMASK), sizeof(AFF) / 16);
  cp_async_commit();
  if (lo + 1 < hi) k2 = keys[lo + 1], v2 = vals[lo + 1];
  for (size_t i = lo; i < hi; i++) {
    const uint32_t k = k1, v = v1;
    const bool odd = ((i - lo) & 1) != 0;
    k1 = k2, v1 = v2;
    if (i + 1 < hi && k1 != sentinel)
      GOP(stage_pt)(odd ? slot0p : slot1p, bases + (v1 & MSM_KEYMASK), sizeof(AFF) / 16);
    cp_async_commit();
    if (i + 2 < hi) k2 = keys[i + 2], v2 = vals[i + 2];
    cp_async_wait1();
    if (k != cur) {
      if (cur != sentinel) {
        if (first && prev_cont) {
          slot0 = cur;
          rpts[2 * t] = acc;
        } else {
          GOP(bucket_put)(buckets, cur, &acc, addb);
        }
      }
      first = false;
      cur = k;
      GOP(set_inf)(&acc);
    }
    if (k != sentinel) GOP(madd)(&acc, &acc, (const AFF *)(odd ? slot1p : slot0p), (v >> 31) != 0, true);
  }
  if (cur != sentinel) {
    if ((first && prev_cont) || next_cont) {
      if (first) {
        slot0 = cur;
        rpts[2 * t] = acc;
      } else {
        slot1 = cur;
        rpts[2 * t + 1] = acc;
      }
    } else {
      GOP(bucket_put)(buckets, cur, &acc, addb);
    }
  }
  rkeys[2 * t] = slot0;
  rkeys[2 * t + 1] = slot1;
}

__global__ void __launch_bounds__(128) GOP(msm_acc_lk)(const uint32_t *__restrict__ ikeys,
                                                         const XYZZ *__restrict__ ipts, size_t N, uint32_t L,
                                                         XYZZ *buckets, uint32_t *rkeys, XYZZ *rpts,
                                                         uint32_t sentinel, const int addb) {
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t nch = (N + L - 1) / L;
  if (t >= nch) return;
  size_t lo = t * L, hi = lo + L < N ? lo + L : N;
  uint32_t klo = ikeys[lo] & MSM_KEYMASK, khi = ikeys[hi - 1] & MSM_KEYMASK;
  bool prev_cont = lo > 0 && (ikeys[lo - 1] & MSM_KEYMASK) == klo;
  bool next_cont = hi < N && (ikeys[hi] & MSM_KEYMASK) == khi;
  uint32_t slot0 = MSM_DUMMY | klo, slot1 = MSM_DUMMY | khi;
  XYZZ acc;
  GOP(set_inf)(&acc);
  uint32_t cur = klo;
  bool first = true, real = false;
  for (size_t i = lo; i < hi; i++) {
    uint32_t kf = ikeys[i], k = kf & MSM_KEYMASK;
    if (k != cur) {
      if (cur != sentinel && real) {
        if (first && prev_cont) {
          slot0 = cur;
          rpts[2 * t] = acc;
        } else {
          GOP(bucket_put)(buckets, cur, &acc, addb);
        }
      }
      first = false;
      real = false;
      cur = k;
      GOP(set_inf)(&acc);
    }
    if (!(kf & MSM_DUMMY) && k != sentinel) {
      XYZZ q = ipts[i];
      GOP(add)(&acc, &acc, &q, false);
      real = true;
    }
  }
  if (cur != sentinel && real) {
    if ((first && prev_cont) || next_cont) {
      if (first) {
        slot0 = cur;
        rpts[2 * t] = acc;
      } else {
        slot1 = cur;
        rpts[2 * t + 1] = acc;
      }
    } else {
      GOP(bucket_put)(buckets, cur, &acc, addb);
    }
  }
  rkeys[2 * t] = slot0;
  rkeys[2 * t + 1] = slot1;
}

/* seg[w*nseg + s] = sum_{k in [a, a+S)} (k+1) B_{w,k}, a = s*S (64 threads per block). The next bucket is copied into
 * shared memory while the current one is added, and the running sum and the accumulator take turns in registers
 * (each lives in its shared-memory slot while the other is the first operand), so one point is in registers at a
 * time instead of three. Four slots of XYZZ_CH chunks per thread: two bucket buffers, run, acc. */
__global__ void __launch_bounds__(64) GOP(msm_bucket_seg)(const XYZZ *__restrict__ buckets, uint32_t nb,
                                                              uint32_t W, uint32_t S, XYZZ *seg) {
  extern __shared__ uint4 msm_sm[];
  uint32_t nseg = nb / S;
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)W * nseg) return;
  uint32_t w = (uint32_t)(t / nseg), s = (uint32_t)(t % nseg), a = s * S;
  const XYZZ *b = buckets + (size_t)w * nb;
  const unsigned stride = blockDim.x * XYZZ_CH;
  uint4 *const buf0 = msm_sm + threadIdx.x * XYZZ_CH, *const buf1 = buf0 + stride, *const runs = buf0 + 2 * stride,
               *const accs = buf0 + 3 * stride;
  XYZZ p;
  GOP(set_inf)(&p);
  GOP(sts_xyzz)(runs, &p);
  GOP(sts_xyzz)(accs, &p);
  GOP(stage_pt)(buf0, b + (a + S - 1), sizeof(XYZZ) / 16);
  cp_async_commit();
  for (uint32_t j = 0; j < S; j++) {
    const uint32_t k = a + S - 1 - j;
    const bool odd = (j & 1) != 0;
    if (j + 1 < S) GOP(stage_pt)(odd ? buf0 : buf1, b + (k - 1), sizeof(XYZZ) / 16);
    cp_async_commit();
    cp_async_wait1();
    GOP(lds_xyzz)(&p, runs);
    GOP(add)(&p, &p, (const XYZZ *)(odd ? buf1 : buf0), true);
    GOP(sts_xyzz)(runs, &p);
    GOP(lds_xyzz)(&p, accs);
    GOP(add)(&p, &p, (const XYZZ *)runs, true);
    GOP(sts_xyzz)(accs, &p);
  }
  if (a) { /* acc += a * run, the multiple built in registers, then added from buf0 */
    GOP(set_inf)(&p);
    for (int bit = 31 - __clz(a); bit >= 0; bit--) {
      GOP(dbl)(&p, &p);
      if ((a >> bit) & 1) GOP(add)(&p, &p, (const XYZZ *)runs, true);
    }
    GOP(sts_xyzz)(buf0, &p);
    GOP(lds_xyzz)(&p, accs);
    GOP(add)(&p, &p, (const XYZZ *)buf0, true);
  } else {
    GOP(lds_xyzz)(&p, accs);
  }
  seg[t] = p;
}

/* seg[w*cnt + i] += seg[w*cnt + i + half] for i < half, every window. */
__global__ void __launch_bounds__(128) GOP(msm_tree)(XYZZ *seg, uint32_t cnt, uint32_t half, uint32_t W) {
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)W * half) return;
  uint32_t w = (uint32_t)(t / half), i = (uint32_t)(t % half);
  XYZZ *p = seg + (size_t)w * cnt;
  XYZZ a = p[i], b = p[i + half];
  GOP(add)(&a, &a, &b, false);
  p[i] = a;
}

/* out[w] = seg[w*cnt] (compact the window sums for the copy to the host). */
__global__ void GOP(msm_gather)(const XYZZ *seg, uint32_t cnt, uint32_t W, XYZZ *out) {
  uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w < W) out[w] = seg[(size_t)w * cnt];
}

/* Host side, after the (key, value) pairs of a pass are sorted (keys / vals: N pairs): the accumulation into the
 * buckets (fresh: the series' first pass zeroes them first; else its sums are added to the earlier passes'). */
czk_status GOP(msm_launch_pairs)(czk_cuda_msm *m, const uint32_t *keys, const uint32_t *vals, size_t N, uint32_t c,
                                 uint32_t W, uint32_t sentinel, int fresh, cudaStream_t st) {
  const uint32_t nb = 1u << (c - 1);
  const size_t nbuckets = (size_t)W * nb;
  XYZZ *buckets = (XYZZ *)m->s->d_buckets;
  if (fresh) CZK_CU(cudaMemsetAsync(buckets, 0, nbuckets * sizeof(XYZZ), st));
  msm_mark(m, "memset", st);
  size_t nch = (N + m->l1 - 1) / m->l1;
  const size_t smem1 = 2 * 128 * AFF_CH * 16;
  const int addb = !fresh;
  CZK_CU(cudaFuncSetAttribute(GOP(msm_acc_l1), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem1));
  GOP(msm_acc_l1)<<<(unsigned)((nch + 127) / 128), 128, smem1, st>>>(keys, vals, N, m->l1, (const AFF *)m->d_bases,
                                                                       buckets, m->s->d_rkeys[0],
                                                                       (XYZZ *)m->s->d_rpts[0], sentinel, addb);
  CZK_CU_LAUNCHED(st);
  msm_mark(m, "acc-l1", st);
  int cur = 0;
  while (nch > 1) {
    size_t R = 2 * nch;
    nch = (R + m->lk - 1) / m->lk;
    GOP(msm_acc_lk)<<<(unsigned)((nch + 127) / 128), 128, 0, st>>>(
        m->s->d_rkeys[cur], (const XYZZ *)m->s->d_rpts[cur], R, m->lk, buckets, m->s->d_rkeys[cur ^ 1],
        (XYZZ *)m->s->d_rpts[cur ^ 1], sentinel, addb);
    CZK_CU_LAUNCHED(st);
    cur ^= 1;
  }
  msm_mark(m, "acc-lk", st);
  return CZK_OK;
}

/* The end of a series: bucket reduction, the per-window trees, and the W window sums copied to m->h_win. */
czk_status GOP(msm_launch_reduce)(czk_cuda_msm *m, uint32_t c, uint32_t W, cudaStream_t st) {
  const uint32_t nb = 1u << (c - 1);
  XYZZ *buckets = (XYZZ *)m->s->d_buckets;
  uint32_t S = msm_seg_size(c, W);
  uint32_t nseg = nb / S;
  size_t nthr = (size_t)W * nseg;
  XYZZ *seg = (XYZZ *)m->s->d_seg;
  const size_t smem2 = 4 * 64 * XYZZ_CH * 16;
  CZK_CU(cudaFuncSetAttribute(GOP(msm_bucket_seg), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem2));
  GOP(msm_bucket_seg)<<<(unsigned)((nthr + 63) / 64), 64, smem2, st>>>(buckets, nb, W, S, seg);
  CZK_CU_LAUNCHED(st);
  msm_mark(m, "bucket-seg", st);
  for (uint32_t half = nseg / 2; half >= 1; half /= 2) {
    size_t nt = (size_t)W * half;
    GOP(msm_tree)<<<(unsigned)((nt + 127) / 128), 128, 0, st>>>(seg, nseg, half, W);
    CZK_CU_LAUNCHED(st);
  }
  GOP(msm_gather)<<<1, 64, 0, st>>>(seg, nseg, W, (XYZZ *)m->d_win);
  CZK_CU_LAUNCHED(st);
  msm_mark(m, "tree", st);
  CZK_CU(cudaMemcpyAsync(m->h_win, m->d_win, W * sizeof(XYZZ), cudaMemcpyDeviceToHost, st));
  return CZK_OK;
}

/* Bench helper: out[i] = A[i % na] + B[(i / na) % nb] for affine points with A_j != +-B_k: lambda = (y2-y1)/(x2-x1). */
__global__ void GOP(gen_bases)(AFF *out, size_t n, const AFF *A, size_t na, const AFF *B, size_t nb) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  AFF a = A[i % na], b = B[(i / na) % nb], r;
  FE dx, dy, l, t;
  FOP(sub)(&dx, &b.x, &a.x);
  FOP(sub)(&dy, &b.y, &a.y);
  FOP(inv)(&dx, &dx);
  FOP(mul)(&l, &dy, &dx);
  FOP(sqr)(&t, &l);
  FOP(sub)(&t, &t, &a.x);
  FOP(sub)(&r.x, &t, &b.x);
  FOP(sub)(&t, &a.x, &r.x);
  FOP(mul)(&t, &l, &t);
  FOP(sub)(&r.y, &t, &a.y);
  out[i] = r;
}
void GOP(gen_bases_launch)(void *d_out, size_t n, const void *dA, size_t na, const void *dB, size_t nb,
                           cudaStream_t st) {
  GOP(gen_bases)<<<(unsigned)((n + 127) / 128), 128, 0, st>>>((AFF *)d_out, n, (const AFF *)dA, na, (const AFF *)dB,
                                                              nb);
}

#undef FE
#undef FOP
#undef GOP
#undef XYZZ
#undef AFF
#undef AFF_CH
#undef XYZZ_CH
