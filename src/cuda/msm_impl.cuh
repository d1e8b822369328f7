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

static __device__ __forceinline__ void GOP(load_aff)(AFF *q, const AFF *__restrict__ bases, uint32_t idx) {
  const uint4 *src = (const uint4 *)(bases + idx);
  uint4 *dst = (uint4 *)q;
#pragma unroll
  for (int i = 0; i < (int)(sizeof(AFF) / 16); i++) dst[i] = __ldg(src + i);
}

__global__ void __launch_bounds__(128) GOP(msm_acc_l1)(const uint32_t *__restrict__ keys,
                                                         const uint32_t *__restrict__ vals, size_t N, uint32_t L,
                                                         const AFF *__restrict__ bases, XYZZ *buckets,
                                                         uint32_t *rkeys, XYZZ *rpts, uint32_t sentinel) {
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t nch = (N + L - 1) / L;
  if (t >= nch) return;
  size_t lo = t * L, hi = lo + L < N ? lo + L : N;
  bool prev_cont = lo > 0 && keys[lo - 1] == keys[lo];
  bool next_cont = hi < N && keys[hi] == keys[hi - 1];
  uint32_t slot0 = MSM_DUMMY | keys[lo], slot1 = MSM_DUMMY | keys[hi - 1];
  XYZZ acc;
  GOP(set_inf)(&acc);
  uint32_t cur = keys[lo];
  bool first = true;
  /* software pipelining: the next entry's point is loaded before this entry's addition, so that the random 96/192-byte
   * base load overlaps the arithmetic (occupancy is low: ~160+ registers per thread) */
  uint32_t k_next = keys[lo], v_next = vals[lo];
  AFF q_next;
  if (k_next != sentinel) GOP(load_aff)(&q_next, bases, v_next & MSM_KEYMASK);
  for (size_t i = lo; i < hi; i++) {
    uint32_t k = k_next, v = v_next;
    AFF q = q_next;
    if (i + 1 < hi) {
      k_next = keys[i + 1];
      v_next = vals[i + 1];
      if (k_next != sentinel) GOP(load_aff)(&q_next, bases, v_next & MSM_KEYMASK);
    }
    if (k != cur) {
      if (cur != sentinel) {
        if (first && prev_cont) {
          slot0 = cur;
          rpts[2 * t] = acc;
        } else {
          buckets[cur] = acc;
        }
      }
      first = false;
      cur = k;
      GOP(set_inf)(&acc);
    }
    if (k != sentinel) {
      GOP(aff_cneg)(&q, (v >> 31) != 0);
      GOP(madd)(&acc, &acc, &q);
    }
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
      buckets[cur] = acc;
    }
  }
  rkeys[2 * t] = slot0;
  rkeys[2 * t + 1] = slot1;
}

__global__ void __launch_bounds__(128) GOP(msm_acc_lk)(const uint32_t *__restrict__ ikeys,
                                                         const XYZZ *__restrict__ ipts, size_t N, uint32_t L,
                                                         XYZZ *buckets, uint32_t *rkeys, XYZZ *rpts,
                                                         uint32_t sentinel) {
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
          buckets[cur] = acc;
        }
      }
      first = false;
      real = false;
      cur = k;
      GOP(set_inf)(&acc);
    }
    if (!(kf & MSM_DUMMY) && k != sentinel) {
      XYZZ q = ipts[i];
      GOP(add)(&acc, &acc, &q);
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
      buckets[cur] = acc;
    }
  }
  rkeys[2 * t] = slot0;
  rkeys[2 * t + 1] = slot1;
}

/* seg[w*nseg + s] = sum_{k in [a, a+S)} (k+1) B_{w,k}, a = s*S. */
__global__ void __launch_bounds__(128) GOP(msm_bucket_seg)(const XYZZ *__restrict__ buckets, uint32_t nb,
                                                             uint32_t W, uint32_t S, XYZZ *seg) {
  uint32_t nseg = nb / S;
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)W * nseg) return;
  uint32_t w = (uint32_t)(t / nseg), s = (uint32_t)(t % nseg), a = s * S;
  const XYZZ *b = buckets + (size_t)w * nb;
  XYZZ run, acc;
  GOP(set_inf)(&run);
  GOP(set_inf)(&acc);
  for (uint32_t k = a + S; k-- > a;) {
    XYZZ q = b[k];
    GOP(add)(&run, &run, &q);
    GOP(add)(&acc, &acc, &run);
  }
  if (a) { /* acc += a * run */
    XYZZ m;
    GOP(set_inf)(&m);
    for (int bit = 31 - __clz(a); bit >= 0; bit--) {
      GOP(dbl)(&m, &m);
      if ((a >> bit) & 1) GOP(add)(&m, &m, &run);
    }
    GOP(add)(&acc, &acc, &m);
  }
  seg[t] = acc;
}

/* seg[w*cnt + i] += seg[w*cnt + i + half] for i < half, every window. */
__global__ void __launch_bounds__(128) GOP(msm_tree)(XYZZ *seg, uint32_t cnt, uint32_t half, uint32_t W) {
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)W * half) return;
  uint32_t w = (uint32_t)(t / half), i = (uint32_t)(t % half);
  XYZZ *p = seg + (size_t)w * cnt;
  XYZZ a = p[i], b = p[i + half];
  GOP(add)(&a, &a, &b);
  p[i] = a;
}

/* out[w] = seg[w*cnt] (compact the window sums for the copy to the host). */
__global__ void GOP(msm_gather)(const XYZZ *seg, uint32_t cnt, uint32_t W, XYZZ *out) {
  uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w < W) out[w] = seg[(size_t)w * cnt];
}

/* Host side: launch the whole pipeline after the (key, value) pairs are sorted. */
czk_status GOP(msm_launch_acc)(czk_cuda_msm *m, size_t N, uint32_t c, uint32_t W, uint32_t sentinel,
                                      cudaStream_t st) {
  const uint32_t nb = 1u << (c - 1);
  const size_t nbuckets = (size_t)W * nb;
  XYZZ *buckets = (XYZZ *)m->d_buckets;
  CZK_CU(cudaMemsetAsync(buckets, 0, nbuckets * sizeof(XYZZ), st));
  msm_mark(m, "memset", st);
  size_t nch = (N + m->l1 - 1) / m->l1;
  GOP(msm_acc_l1)<<<(unsigned)((nch + 127) / 128), 128, 0, st>>>(m->d_keys[1], m->d_vals[1], N, m->l1,
                                                                   (const AFF *)m->d_bases, buckets,
                                                                   m->d_rkeys[0], (XYZZ *)m->d_rpts[0], sentinel);
  CZK_CU_LAUNCHED(st);
  msm_mark(m, "acc-l1", st);
  int cur = 0;
  while (nch > 1) {
    size_t R = 2 * nch;
    nch = (R + m->lk - 1) / m->lk;
    GOP(msm_acc_lk)<<<(unsigned)((nch + 127) / 128), 128, 0, st>>>(
        m->d_rkeys[cur], (const XYZZ *)m->d_rpts[cur], R, m->lk, buckets, m->d_rkeys[cur ^ 1],
        (XYZZ *)m->d_rpts[cur ^ 1], sentinel);
    CZK_CU_LAUNCHED(st);
    cur ^= 1;
  }
  msm_mark(m, "acc-lk", st);
  uint32_t S = msm_seg_size(c, W);
  uint32_t nseg = nb / S;
  size_t nthr = (size_t)W * nseg;
  XYZZ *seg = (XYZZ *)m->d_seg;
  GOP(msm_bucket_seg)<<<(unsigned)((nthr + 127) / 128), 128, 0, st>>>(buckets, nb, W, S, seg);
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
