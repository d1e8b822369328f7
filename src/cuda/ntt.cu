/* ntt.cu: number-theoretic transforms over Fr on the GPU (API in include/czk/cuda.h).
 *
 * Transform: decimation in frequency (Gentleman-Sande), natural order in, bit-reversed order out, then a bit-reversal
 * permutation; the inverse is the same DIF with w^-1. Stage s (0-based, n = 2^L) pairs (i, i + 2^(L-1-s)) with bit
 * L-1-s of i clear:  x_i' = x_i + x_j,  x_j' = (x_i - x_j) * w_n^((i mod 2^(L-1-s)) * 2^s).
 *
 * Passes: the L stages are split into ceil(L/10) passes of k <= 10 stages (a radix-2^k step; how many in which pass:
 * ntt_pass_stages). A block owns a tile of
 * 2^k elements along the pass's index bits times 2^tlog adjacent columns (contiguous in memory) times 2^rlog rows
 * (independent 2^k-point problems, used by the last pass), at most 1024 elements.
 * Groups: inside a pass, each thread holds 8 elements in registers (3 index bits, the "window") and runs 2 or 3 stages
 * on them (a radix-8 step, or two radix-4 steps) before exchanging through shared memory; the k stages are groups of
 * 3,3,..,3 (+2 or +2,2). The first group loads from global memory and the last stores to it, so a pass with k = 9
 * costs 2 shared-memory exchanges and 2 __syncthreads (per exchange one barrier suffices: in a group every thread
 * rewrites exactly the slots it read). Shared memory holds each element as two 16-byte halves in two planes, at a
 * slot XOR-swizzled so that all the group shapes access it without bank conflicts.
 * Twiddles: (full plans; compact ones below) one table w_N^j (j < N/2, N = 2^log_n_max) per direction, read through
 * the read-only cache; a smaller
 * domain reads it with stride N/n. A radix-8 group needs 7 of them per thread (4+2+1, its three stages). Each entry
 * is a Shoup pair (plain w^j, floor(w^j 2^256 / r)), 64 bytes, made on the device from the Montgomery powers
 * (ntt_expand, fr_shoup_pair), and the butterflies multiply by it with fr_mul_shoup (ff.cuh): 79 wide + 21 narrow
 * multiply-adds instead of mont_mul_eo's 128 + 8. On the H200, 2^27 forward 36.1 -> 34.4 ms (passes 11.6 / 11.2 /
 * 10.6 -> 11.0 / 10.5 / 10.35 ms; ncu: the multiplier pipe 86% -> 75% busy, the warps now wait more on loads) with
 * the first form of the product (85 + 22: the low halves of w b and Q r apart, then subtracted), 34.4 -> 33.3 ms
 * with the merged one (passes 10.73 / 10.05 / 9.89).
 * Tried and slower: L2 prefetches of the first group's twiddles (37.0 ms); a per-thread ring of twiddle pairs in
 * shared memory filled by cp.async two ahead of use (50.4 ms:
 * the load stalls went, but instruction fetch and shared-memory stalls came, and the last pass took 20 ms); each
 * butterfly streaming its two elements through their shared-memory slots instead of 8 elements in registers (80-96
 * registers, 4 / 5 / 6 blocks per SM: 35.1 / 34.3 / 36.0 ms, no real gain for more shared-memory traffic); 3 blocks
 * per SM (36.7 ms); 512-element tiles (40.3 ms).
 * Last group of the last pass (the three lowest index bits): its twiddles are the constants w_8^m, w_4 (kernel
 * parameters, Shoup pairs made on the host: host_shoup_pair) and its trivial ones are skipped: 5 products per 8
 * elements instead of 12. The last pass kernels are built for 3 blocks per SM (168 registers; at 4 they spill ~220
 * bytes): pass 9.89 -> 9.61 ms at 2^27 (Montgomery constants at 4 blocks -> Shoup at 3). INVERSE folds n^-1 into the
 * constants of that group's first stage (8 products instead of 3 + 8); COSET_INVERSE multiplies its outputs by
 * n^-1 g^-F (F = natural output index) = c * Q_m, c per thread from the two small g^-i tables, Q_m (m = top 3 bits
 * of F) kernel parameters. COSET_FORWARD likewise multiplies the inputs of the first group of the first pass by
 * g^i = c * G_t (t = top 3 bits of i).
 * Permutation: a single-pass transform (L <= 10: one block) stores straight to the bit-reversed positions. Otherwise
 * ntt_bitrev_words swaps in place, per pair of middle-bit values (B, rev B), the two 16x16 tiles {(A, B, C)} and
 * {(A, rev B, C)} (A: top 4 index bits, C: low 4): reads and writes are runs of 16 elements (512 bytes).
 * Products: the twiddle and last-group products are Shoup products (above); the coset factors use ff.cuh's even/odd
 * split CIOS (~200 instructions). A butterfly is ~245 instructions (SASS of ntt_pass: 2952 for 12 butterflies, 960
 * IMAD.WIDE; 3136 and 1020 with the first Shoup form).
 * Lazy arithmetic: inside a transform values lie in [0, 2r) (2r < 2^256): sums and differences are taken mod 2r and
 * the products skip their final subtraction (fr_mul_lazy: constant < r times a value < 2^256 gives < 2r;
 * fr_mul_shoup: constant < r times a value < 2r gives < 2r);
 * the last pass normalizes to [0, r) as it stores. On the H200, 2^27 forward 37.3 -> 36.0 ms with 4 blocks per SM
 * (38.6 exact). Tried and slower: an Fr-specific reduction that turns the two lowest words' products of m q into
 * additions (q0 = 1, q1 = 2^32 - 1; 41.7 ms), and the bit reversal fused into the last pass through an out-of-place
 * scratch buffer (passes 1.9 ms faster in total, but the 4 GiB stream-ordered allocation per call cost more).
 * Compact plans (czk_cuda_ntt_new_ex, compact = 1): stage s of a 2^L transform reads exponents (in w_N) that are
 * multiples of 2^(s + log_max - L), so every pass but the first of a multi-pass transform is served by a table of
 * the pairs of w^(m 2^c) alone, m < 2^(log_max-1-c), c = tw_c the smallest such granularity over all domains and
 * passes (compact_shift: 2^27: c = 8, from the second pass of 2^27 at stage 8; 2^28: 9): the same kernels read it
 * as the full table of a domain 2^(log_max-c) with tw_shift = log_max - c - L taken mod 2^32 (negative for large L:
 * the shifts it enters stay >= 0). The first pass (k stages, hs = L - k column bits) runs four-step (ntt_pass_four):
 * by the decomposition X[k1 + 2^k k2] = sum_col w_n^(col k1) w_(n/2^k)^(col k2) [sum_a x_(a,col) w_(2^k)^(a k1)],
 * after the first k stages of the DIF position (a, col) holds w_n^(col k1) DFT_(2^k)(x_(.,col))[k1], k1 = bitrev_k(a)
 * (the sub-problems of a DIF are unique), so the pass drops the column from its twiddles (exponents multiples of
 * 2^(hs + log_max - L): in the compact table; its last group's are the constants 1, omega_8^m, omega_4, as in the
 * last pass) and multiplies each output by w_N^e, e = (col k1) << (log_max - L) < N, as two Shoup products by the
 * pairs of w^(e mod 2^b) and w^(e - e mod 2^b) (d_ft: 2^b + 2^(log_max-b) pairs, b = log_max/2). Values mod r are
 * those of the full plan's transform, and the outputs are normalized: bit-identical. Bytes at 2^27: per direction
 * 2^18 pairs (16 MiB) + 2^13 + 2^14 pairs (1.5 MiB), plus the coset tables (1.5 MiB): 36.5 MiB (38,273,024 B)
 * against 8193.5 MiB; 2^28: 38.0 MiB. Products per 8 elements of the first pass: radix-8 / radix-4 groups 12 / 8 as
 * before but the last group 5 (radix 8) or 2 (radix 4) instead of 12 / 8, plus 16 for the element twiddles: at 2^27
 * (8 stages: groups 3,3,2) 32 -> 42, the whole transform 102 -> 112 (+10%); the first pass's twiddle loads move from
 * DRAM (the full table's fine exponents) to two tables that stay in L2 (1.5 MiB) and exponents shared by the
 * block's columns (L1); the later passes read the same values as a full plan from a 16 MiB table. Other passes,
 * ntt_tiny and the one-pass transforms (L <= 10, tw_shift >= c) are unchanged but for the table they read.
 * Work: (n/2) L - ~n products (+3n/8 inverse, +2n coset forward, +17n/8 coset inverse). Memory: ceil(L/10) read-write
 * passes over 32n bytes, plus one for the permutation when L > 10, plus twiddle reads (<= 7 per 8 elements and
 * radix-8 group; only the first pass of a large transform misses the caches: ~0.8 x 32n bytes). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_internal.h"
#include "cuda/ff.cuh"

#ifndef NTT_TILE_LOG
#define NTT_TILE_LOG 10 /* at most 2^10 elements (32 KiB of shared memory, 128 threads) per block */
#endif
#define NTT_PASS_MAX 10 /* at most 10 radix-2 stages per pass */
/* Resident pass blocks per SM the register allocation is sized for: 4 gives 128 registers per thread (the passes but
 * the last spill nothing; the last ones ~30-50 bytes) and was faster than 3 (168 registers): 2^27 36.0 vs 37.3 ms;
 * 5 (96 registers) spills 200-800 bytes. */
#ifndef NTT_MIN_BLOCKS
#define NTT_MIN_BLOCKS 4
#endif
#ifndef NTT_LAST_MIN_BLOCKS
#define NTT_LAST_MIN_BLOCKS 3
#endif

struct czk_cuda_ntt {
  unsigned log_max;
  unsigned lo_bits; /* coset tables: lo has 2^lo_bits entries, hi 2^(log_max - lo_bits) */
  int compact;      /* compact tables (see the header comment) */
  unsigned tw_c;    /* d_tw[d][m] is the pair of w^(+-m 2^tw_c), m < 2^(log_max-1-tw_c); 0 in a full plan */
  unsigned ft_bits; /* compact, log_max > NTT_PASS_MAX: d_ft lo has 2^ft_bits pairs, hi 2^(log_max - ft_bits) */
  fr_t *d_tw[2];    /* [0] forward w^j, [1] inverse w^-j, j < 2^(log_max-1) (compact: j = m 2^tw_c): Shoup pairs
                       (plain w^j, ws_j) */
  fr_t *d_ft[2];    /* compact: the first pass's element twiddles: pairs of w^(+-j) (lo, j < 2^ft_bits) followed by
                       those of w^(+-k 2^ft_bits) (hi, k < 2^(log_max - ft_bits)); NULL otherwise */
  fr_t *d_coset[2]; /* [0] g^i tables (lo then hi), [1] g^-i tables */
  czk_fr ninv[29];  /* n^-1 for n = 2^k (Montgomery) */
  czk_fr w8[2][4];  /* [dir] omega_8^m, m < 4 (log_max >= 3) */
  czk_fr cg[29][8]; /* [L] g^(t 2^(L-3)), t < 8 */
  czk_fr cq[29][8]; /* [L] 2^-L g^(-t 2^(L-3)), t < 8 */
};

/* ------------------------------------------------------------------------------------------------ device primitives */
/* read-only table entry (twiddles, coset powers) */
static __device__ __forceinline__ void ldg_fr(fr_t *r, const fr_t *p) {
  uint4 a = __ldg((const uint4 *)p), b = __ldg((const uint4 *)p + 1);
  r->v[0] = a.x, r->v[1] = a.y, r->v[2] = a.z, r->v[3] = a.w;
  r->v[4] = b.x, r->v[5] = b.y, r->v[6] = b.z, r->v[7] = b.w;
}
static __device__ __forceinline__ uint4 *ntt_shared(void) {
  extern __shared__ uint4 ntt_smem_dyn[];
  return ntt_smem_dyn;
}

/* ------------------------------------------------------------------------------------------------ kernels */
/* Flags of the last pass */
#define NTT_F_NINV 1u      /* kc[] carry n^-1; the sums of the last group's first stage are multiplied by kc[0] */
#define NTT_F_COSET_OUT 2u /* multiply the output of natural index F by n^-1 g^-F */
#define NTT_F_BITREV 4u    /* single pass: store to the bit-reversed positions */

typedef struct ntt_pass_args {
  fr_t kc[4], kcs[4]; /* last pass: first-stage multipliers of the last group, omega_8^m (INVERSE: times n^-1), as
                         Shoup pairs (plain, quotient) */
  fr_t w4, w4s;       /* omega_4 (Shoup pair) */
  fr_t gc[8];        /* first pass of COSET_FORWARD: g^(t n/8); COSET_OUT: n^-1 g^(-t n/8) */
  const fr_t *tw;    /* twiddle table of the direction: pairs of w_T^m, m < T/2, T = 2^(L + tw_shift) */
  const fr_t *coset; /* COSET_FORWARD: g^i lo/hi tables; COSET_OUT: g^-i tables */
  const fr_t *ft;    /* four-step first pass (compact plans): the d_ft table of the direction */
  unsigned L, s0, k, tlog, rlog, flags;
  unsigned tw_shift; /* log2(T) - L, taken mod 2^32: a compact plan's table T = 2^(log_max - tw_c) may be smaller than
                        the domain; every shift it enters is >= 0 (czk_cuda_ntt's tw_c is chosen so) */
  unsigned lo_bits;  /* coset tables' split */
  unsigned ft_shift, ft_bits; /* four-step first pass: log_max - L, and d_ft's split */
} ntt_pass_args;

/* Pass geometry (host side; shared with the schedule of czk_cuda_ntt_run): pass pi of a 2^L transform (L >= 3) runs
 * stages s0 .. s0+k-1; a block's tile is 2^(k + tlog + rlog) elements. Tiles of 2^8 .. 2^10 elements keep whole warps
 * busy and, for smaller transforms, enough blocks for the SMs.
 * Stages per pass: as even as possible, in ascending order (the last pass's tile is 2^k contiguous elements, while an
 * earlier pass reads runs of 2^(tile - k) columns: fewer stages there means longer runs, and the first pass, whose
 * twiddles come from DRAM, reads more of each twiddle line). An even split is skewed, one stage moved from the first
 * pass to the last, for two passes and for 9,9,9 (2^27: 8,9,10). H200, forward ms, skewed vs even: 2^12 0.034 / 0.037,
 * 2^14 0.039 / 0.041, 2^16 0.046 / 0.046, 2^18 0.076 / 0.077, 2^24 (7,8,9 vs 8,8,8) 3.70 / 3.62 (hence not there),
 * 2^27 31.71 / 32.58 (passes 9.09 / 10.14 / 10.29 vs 10.75 / 10.05 / 9.61 ms); ascending vs descending at 2^26
 * (8,9,9 vs 9,9,8): 15.57 / 15.73. Other orders at 2^27 (10,9,8, 8,10,9, 9,10,8, 10,8,9, 9,8,10): 33.6-36.2 ms in
 * total (a middle pass of 10 stages reads runs of one element). */
static unsigned ntt_npasses(unsigned L) { return (L + NTT_PASS_MAX - 1) / NTT_PASS_MAX; }
static unsigned ntt_pass_stages(unsigned L, unsigned pi) {
  const unsigned np = ntt_npasses(L), base = L / np, rem = L % np;
  unsigned k = base + (pi >= np - rem ? 1 : 0);
  if (np >= 2 && rem == 0 && base < NTT_PASS_MAX && base > 3 && (np == 2 || base == 9))
    k += pi == 0 ? -1 : pi == np - 1 ? 1 : 0;
  return k;
}
static void ntt_pass_geom(unsigned L, unsigned pi, unsigned *k, unsigned *s0, unsigned *tlog, unsigned *rlog) {
  unsigned s = 0;
  for (unsigned q = 0; q < pi; q++) s += ntt_pass_stages(L, q);
  const unsigned kk = ntt_pass_stages(L, pi), hs = L - s - kk;
  unsigned tl = L > 16 ? L - 8 : 8;
  if (tl > NTT_TILE_LOG) tl = NTT_TILE_LOG;
  const unsigned extra = tl > kk ? tl - kk : 0;
  *k = kk;
  *s0 = s;
  *tlog = extra < hs ? extra : hs;
  *rlog = extra - *tlog < s ? extra - *tlog : s;
}

/* Shared memory: element halves in two planes of uint4 (plane stride = tile), so that a warp moves 16-byte words. */
static __device__ __forceinline__ void sm_put(uint4 *sm, unsigned tile, unsigned slot, const fr_t *x) {
  sm[slot] = make_uint4(x->v[0], x->v[1], x->v[2], x->v[3]);
  sm[tile + slot] = make_uint4(x->v[4], x->v[5], x->v[6], x->v[7]);
}
static __device__ __forceinline__ void sm_get(fr_t *x, const uint4 *sm, unsigned tile, unsigned slot) {
  uint4 a = sm[slot], b = sm[tile + slot];
  x->v[0] = a.x, x->v[1] = a.y, x->v[2] = a.z, x->v[3] = a.w;
  x->v[4] = b.x, x->v[5] = b.y, x->v[6] = b.z, x->v[7] = b.w;
}
/* Slot of tile element e: low 3 bits XOR bits 3..5, so that the 8 threads of a quarter warp (one 128-byte shared
 * memory wavefront of 16-byte accesses) touching elements at stride 1, 2, 4 or 8 hit 8 distinct bank groups. */
static __device__ __forceinline__ unsigned ntt_swz(unsigned e) { return e ^ ((e >> 3) & 7u); }

/* g^i (or g^-i) from the split table: lo (2^lo_bits entries) followed by hi. */
static __device__ __forceinline__ void coset_pow(fr_t *r, const fr_t *tab, unsigned lo_bits, unsigned i) {
  fr_t a, b;
  ldg_fr(&a, tab + (i & ((1u << lo_bits) - 1)));
  ldg_fr(&b, tab + (1u << lo_bits) + (i >> lo_bits));
  fr_mul(r, &a, &b);
}


/* One stage of a group on the thread's 8 elements: pairs (t, t + 2^j), twiddle of pair t: tw[base + (t mod 2^j) <<
 * step_log] (a Shoup pair: fr_mul_shoup). j is a literal after inlining, so x[] stays in registers. */
static __device__ __forceinline__ void ntt_stage(fr_t x[8], const int j, unsigned base, unsigned step_log,
                                                 const fr_t *__restrict__ tw) {
#pragma unroll
  for (int t = 0; t < 8; t++) {
    if (t & (1 << j)) continue;
    const int u = t + (1 << j);
    fr_t w, ws, s, d;
    const fr_t *e = tw + 2 * (size_t)(base + ((unsigned)(t & ((1 << j) - 1)) << step_log));
    fr_add2(&s, &x[t], &x[u]);
    fr_sub2(&d, &x[t], &x[u]);
    x[t] = s;
    ldg_fr(&ws, e + 1);
    ldg_fr(&w, e);
    fr_mul_shoup(&x[u], &w, &ws, &d);
  }
}

/* Butterfly with constant multipliers (Shoup pairs (m, ms) in the kernel parameters; NULL: none):
 * x0, x1 <- (x0 + x1) * s, (x0 - x1) * d. */
static __device__ __forceinline__ void ntt_bfly_c(fr_t *x0, fr_t *x1, const fr_t *s, const fr_t *ss, const fr_t *d,
                                                  const fr_t *ds) {
  fr_t u, v;
  fr_add2(&u, x0, x1);
  fr_sub2(&v, x0, x1);
  if (s)
    fr_mul_shoup(x0, s, ss, &u);
  else
    *x0 = u;
  if (d)
    fr_mul_shoup(x1, d, ds, &v);
  else
    *x1 = v;
}

/* One DIF pass: stages s0 .. s0+k-1 of a 2^L transform, in place. blockDim = tile/8, dynamic shared memory 32*tile.
 * Tile element e = (r, a, c): r row (rlog bits), a index bits of the pass (k bits), c column (tlog bits); its global
 * index is (hf << (hs+k)) | (a << hs) | col with hs = L - s0 - k, hf = hf0 | r, col = col0 | c.
 * Group with window w (its 8 elements differ in a-bits w..w+2): thread tau holds e = e0 + (t << (tlog+w)), t < 8,
 * e0 = tau with a zero 3-bit field inserted at bit tlog+w. The stage on a-bit w+j (global stage s = S_w - j,
 * S_w = s0+k-1-w) gives pair t the twiddle exponent ((a mod 2^(w+j)) << hs | col) << s
 *     = (X << (S_w - j)) + ((t mod 2^j) << (L-1-j)),   X = ((a mod 2^w) << hs) | col,
 * and the global index of element t is i0 + (t << (w + hs)).
 * four_step (the first pass of a multi-pass transform with a compact plan): the twiddles drop the column part,
 * X = (a mod 2^w) << hs, which makes the pass 2^(L-hs)-point DIFs over the a-bits, one per column (their last group's
 * twiddles are the constants of the last pass: 1, omega_8^m, omega_4); then each output is multiplied by its
 * element twiddle w_n^(col bitrev_k(a)) (see the header comment). */
static __device__ __forceinline__ void ntt_pass_impl(fr_t *__restrict__ data, const ntt_pass_args &p,
                                                     const bool coset_in, const bool last_pass,
                                                     const bool four_step) {
  /* Everything but g and x[] is recomputed per group from the parameters (constant bank) and the thread and block
   * indices, which keeps registers free for the products. */
  fr_t x[8];
  /* groups, top index bits first: sizes 3,..,3 then (k mod 3 = 2) 2, or (k mod 3 = 1) 2,2. Shape 0: radix 8 (stages
   * j = 2,1,0), 1: stages 2,1 (extra bit below), 2: stages 1,0 (extra bit above, window at bit 0). */
  const unsigned ng = p.k / 3 + (p.k % 3 ? 1 : 0);
#pragma unroll 1
  for (unsigned g = 0; g < ng; g++) {
    uint4 *sm = ntt_shared();
    const unsigned L = p.L, k = p.k, tlog = p.tlog, rlog = p.rlog, flags = p.flags;
    const unsigned hs = L - p.s0 - k, tile = 1u << (rlog + k + tlog), gbits = hs - tlog;
    const unsigned col0 = (blockIdx.x & ((1u << gbits) - 1)) << tlog, hf0 = (blockIdx.x >> gbits) << rlog;
    const unsigned tau = threadIdx.x, log_max = L + p.tw_shift, r3 = k % 3;
    const bool last = g + 1 == ng;
    const unsigned size = (r3 == 0 || g + (r3 == 2 ? 1u : 2u) < ng) ? 3u : 2u;
    const unsigned lo = size == 3 ? k - 3 * (g + 1) : last ? 0u : 2u; /* lowest index bit of the group */
    const unsigned shape = size == 3 ? 0u : lo ? 1u : 2u;
    const unsigned w = shape == 0 ? lo : shape == 1 ? lo - 1 : 0u;
    const unsigned sh = tlog + w;
    const unsigned e0 = ((tau >> sh) << (sh + 3)) | (tau & ((1u << sh) - 1));
    const unsigned a0 = (e0 >> tlog) & ((1u << k) - 1), c = e0 & ((1u << tlog) - 1), r = e0 >> (k + tlog);
    const unsigned i0 = ((hf0 | r) << (hs + k)) | (a0 << hs) | col0 | c, istep = w + hs;

    if (g == 0) {
#pragma unroll
      for (int t = 0; t < 8; t++) load_fr(&x[t], data + (i0 + ((unsigned)t << istep)));
      if (coset_in) { /* first pass, window = top 3 bits of i: g^i = g^i0 * G_t */
        fr_t cg;
        coset_pow(&cg, p.coset, p.lo_bits, i0);
#pragma unroll
        for (int t = 1; t < 8; t++) fr_mul_lazy(&x[t], &p.gc[t], &x[t]);
#pragma unroll
        for (int t = 0; t < 8; t++) fr_mul_lazy(&x[t], &cg, &x[t]);
      }
    } else {
#pragma unroll
      for (int t = 0; t < 8; t++) sm_get(&x[t], sm, tile, ntt_swz(e0 + ((unsigned)t << sh)));
    }

    if ((last_pass || four_step) && last) {
      /* window = index bits 2..0 of the last pass (or of a four-step pass): X = 0, twiddles omega_8^m, omega_4, 1 */
      if (!four_step && (flags & NTT_F_NINV)) { /* n^-1 on the sums, n^-1 omega^m on the differences of stage 1 */
        if (shape == 0) {
#pragma unroll
          for (int t = 0; t < 4; t++) ntt_bfly_c(&x[t], &x[t + 4], &p.kc[0], &p.kcs[0], &p.kc[t], &p.kcs[t]);
        } else {
#pragma unroll
          for (int t = 0; t < 8; t += 4) {
            ntt_bfly_c(&x[t], &x[t + 2], &p.kc[0], &p.kcs[0], &p.kc[0], &p.kcs[0]);
            ntt_bfly_c(&x[t + 1], &x[t + 3], &p.kc[0], &p.kcs[0], &p.kc[2], &p.kcs[2]);
          }
        }
      } else {
        if (shape == 0) {
          ntt_bfly_c(&x[0], &x[4], NULL, NULL, NULL, NULL);
#pragma unroll
          for (int t = 1; t < 4; t++) ntt_bfly_c(&x[t], &x[t + 4], NULL, NULL, &p.kc[t], &p.kcs[t]);
        } else {
#pragma unroll
          for (int t = 0; t < 8; t += 4) {
            ntt_bfly_c(&x[t], &x[t + 2], NULL, NULL, NULL, NULL);
            ntt_bfly_c(&x[t + 1], &x[t + 3], NULL, NULL, &p.kc[2], &p.kcs[2]);
          }
        }
      }
      if (shape == 0) { /* second stage (bit 1): omega_4 on odd t */
#pragma unroll
        for (int t = 0; t < 8; t += 4) {
          ntt_bfly_c(&x[t], &x[t + 2], NULL, NULL, NULL, NULL);
          ntt_bfly_c(&x[t + 1], &x[t + 3], NULL, NULL, &p.w4, &p.w4s);
        }
      }
#pragma unroll
      for (int t = 0; t < 8; t += 2) ntt_bfly_c(&x[t], &x[t + 1], NULL, NULL, NULL, NULL);
    } else {
      /* table index of the stage on a-bit w+j: X << (Sw - j) in w_n, << tw_shift in w_T (four_step: X without its
       * factor 2^hs, which goes into the shift, so that no shift count is negative) */
      const unsigned X = four_step ? (a0 & ((1u << w) - 1)) : ((a0 & ((1u << w) - 1)) << hs) | col0 | c;
      const unsigned Sw = p.s0 + k - 1 - w + p.tw_shift + (four_step ? hs : 0u);
      if (shape != 2) ntt_stage(x, 2, X << (Sw - 2), log_max - 3, p.tw);
      ntt_stage(x, 1, X << (Sw - 1), log_max - 2, p.tw);
      if (shape != 1) ntt_stage(x, 0, X << Sw, log_max - 1, p.tw);
    }
    if (four_step && last) {
      /* element t (a = a0 + t: the window is at bit 0) holds the DIF output k1 = bitrev_k(a) of column col: times
       * w_n^(col k1) = w_N^e, e = (col k1) << ft_shift < N, as two Shoup products by the pairs of w^(e mod 2^ft_bits)
       * and w^(e - e mod 2^ft_bits) */
      const unsigned col = col0 | c, lmask = (1u << p.ft_bits) - 1;
#pragma unroll
      for (int t = 0; t < 8; t++) {
        const unsigned e = (col * (__brev(a0 + (unsigned)t) >> (32 - k))) << p.ft_shift;
        const fr_t *plo = p.ft + 2 * (size_t)(e & lmask), *phi = p.ft + 2 * ((size_t)lmask + 1 + (e >> p.ft_bits));
        fr_t f, fs, y;
        ldg_fr(&f, phi);
        ldg_fr(&fs, phi + 1);
        fr_mul_shoup(&y, &f, &fs, &x[t]);
        ldg_fr(&f, plo);
        ldg_fr(&fs, plo + 1);
        fr_mul_shoup(&x[t], &f, &fs, &y);
      }
    }

    if (last) {
      /* last group: window at bit 0 when this is the last pass (istep = 0, i0 mod 8 = 0) */
      if (last_pass && (flags & NTT_F_COSET_OUT)) {
        /* F = bitrev_L(i0 + t) = bitrev3(t) << (L-3) | bitrev_(L-3)(i0 >> 3): factor gc[bitrev3(t)] * g^-(low part) */
        fr_t cg;
        coset_pow(&cg, p.coset, p.lo_bits, L > 3 ? __brev(i0 >> 3) >> (35 - L) : 0u);
#pragma unroll
        for (int t = 0; t < 8; t++) {
          fr_mul_lazy(&x[t], &p.gc[((t & 1) << 2) | (t & 2) | (t >> 2)], &x[t]);
          fr_mul_lazy(&x[t], &cg, &x[t]);
        }
      }
      if (last_pass) {
#pragma unroll
        for (int t = 0; t < 8; t++) fr_norm(&x[t]);
      }
      if (last_pass && (flags & NTT_F_BITREV)) {
#pragma unroll
        for (int t = 0; t < 8; t++) store_fr(data + (__brev(i0 + (unsigned)t) >> (32 - L)), &x[t]);
      } else {
#pragma unroll
        for (int t = 0; t < 8; t++) store_fr(data + (i0 + ((unsigned)t << istep)), &x[t]);
      }
    } else {
#pragma unroll
      for (int t = 0; t < 8; t++) sm_put(sm, tile, ntt_swz(e0 + ((unsigned)t << sh)), &x[t]);
      __syncthreads();
    }
  }
}

/* The pass kernels: the coset input scaling and the constant last group compiled only where used (registers, code
 * size). ntt_pass: every pass but the last; ntt_pass_last: the last pass (flags NINV, COSET_OUT, BITREV);
 * ntt_pass_four: the first pass of a multi-pass transform with a compact plan (four-step; 4 blocks per SM: 32-48
 * bytes of spills, like ntt_pass's 16-24). */
#define NTT_PASS_KERNEL(name, coset_in, last_pass, four_step, min_blocks)                                             \
  __global__ void __launch_bounds__(128, min_blocks)                                                                  \
      name(fr_t *__restrict__ data, const __grid_constant__ ntt_pass_args p) {                                        \
    ntt_pass_impl(data, p, coset_in, last_pass, four_step);                                                           \
  }
NTT_PASS_KERNEL(ntt_pass, false, false, false, NTT_MIN_BLOCKS)
NTT_PASS_KERNEL(ntt_pass_coset, true, false, false, NTT_MIN_BLOCKS)
NTT_PASS_KERNEL(ntt_pass_last, false, true, false, NTT_LAST_MIN_BLOCKS)
NTT_PASS_KERNEL(ntt_pass_last_coset, true, true, false, NTT_LAST_MIN_BLOCKS)
NTT_PASS_KERNEL(ntt_pass_four, false, false, true, NTT_MIN_BLOCKS)
NTT_PASS_KERNEL(ntt_pass_four_coset, true, false, true, NTT_MIN_BLOCKS)

/* In-place bit reversal of a 2^L array, L >= 11. Index i = (A, B, C): A the top 4 bits, C the low 4, B the middle
 * mb = L - 8 bits; bitrev(i) = (rev C, rev B, rev A). Block B (B <= rev B) swaps the tiles {(A, B, C)} and
 * {(A, rev B, C)} (one tile, transposed in place, when B = rev B): 16 runs of 16 consecutive elements (512 bytes)
 * each. Each thread moves 16-byte halves of elements, word w = (e, h) of a tile, so that one warp instruction covers a
 * whole run (the element-per-thread form, two 16-byte accesses per element and half a run per instruction: 2.50 ms
 * at 2^27 on the H200, this one 2.17 ms; a cudaMemcpy of the same 4 GiB: 2.01 ms). Shared memory slot of (e, h):
 * plane h, e ^ ((e >> 6) & 3) ^ (h << 2): the stores' quarter warps (4 consecutive e, h = 0, 1) and the transposed
 * reads (e bits 6, 7 varying, h = 0, 1) fall on 8 distinct 16-byte bank groups. Tried and slower: 32x32 tiles (2.57
 * ms), a grid-stride loop (2.73 ms with one block per tile pair, 3.4-3.5 with 4 or 8 resident blocks per SM). */
static __device__ __forceinline__ unsigned brw_slot(unsigned e, unsigned h) {
  return (h << 8) | (e ^ ((e >> 6) & 3u) ^ (h << 2));
}
__global__ void __launch_bounds__(256) ntt_bitrev_words(fr_t *__restrict__ data, unsigned L) {
  __shared__ uint4 sm[2][512];
  const unsigned mb = L - 8, B = blockIdx.x;
  const unsigned Br = __brev(B) >> (32 - mb);
  if (B > Br) return;
  const unsigned hsh = L - 4;
  uint4 *d = (uint4 *)data;
  uint4 v[2][2];
#pragma unroll
  for (unsigned u = 0; u < 2; u++) {
    const unsigned w = threadIdx.x + 256u * u, e = w >> 1, h = w & 1u, A = e >> 4, C = e & 15u;
    v[0][u] = d[2 * (size_t)((A << hsh) | (B << 4) | C) + h];
    if (Br != B) v[1][u] = d[2 * (size_t)((A << hsh) | (Br << 4) | C) + h];
  }
#pragma unroll
  for (unsigned u = 0; u < 2; u++) {
    const unsigned w = threadIdx.x + 256u * u, e = w >> 1, h = w & 1u;
    sm[0][brw_slot(e, h)] = v[0][u];
    if (Br != B) sm[1][brw_slot(e, h)] = v[1][u];
  }
  __syncthreads();
#pragma unroll
  for (unsigned u = 0; u < 2; u++) {
    const unsigned w = threadIdx.x + 256u * u, e = w >> 1, h = w & 1u, A = e >> 4, C = e & 15u;
    const unsigned slot = brw_slot(((__brev(C) >> 28) << 4) | (__brev(A) >> 28), h);
    d[2 * (size_t)((A << hsh) | (Br << 4) | C) + h] = sm[0][slot];
    if (Br != B) d[2 * (size_t)((A << hsh) | (B << 4) | C) + h] = sm[1][slot];
  }
}

/* Transforms of 2 and 4 points (one thread; launch-bound anyway). mode: the czk_cuda_ntt_dir. */
__global__ void ntt_tiny(fr_t *data, unsigned L, int mode, const fr_t *tw, unsigned tw_shift, const fr_t *coset,
                         unsigned lo_bits, fr_t ninv) {
  const unsigned n = 1u << L;
  fr_t x[4], y[4];
  for (unsigned i = 0; i < n; i++) {
    load_fr(&x[i], data + i);
    if (mode == 2) {
      fr_t g;
      coset_pow(&g, coset, lo_bits, i);
      fr_mul(&x[i], &x[i], &g);
    }
  }
  for (unsigned s = 0; s < L; s++) {
    const unsigned half = n >> (s + 1);
    for (unsigned i = 0; i < n; i++) {
      if (i & half) continue;
      fr_t a, d, w, ws;
      fr_add(&a, &x[i], &x[i + half]);
      fr_sub(&d, &x[i], &x[i + half]);
      const fr_t *e = tw + 2 * (size_t)(((i & (half - 1)) << s) << tw_shift);
      load_fr(&w, e);
      load_fr(&ws, e + 1);
      x[i] = a;
      fr_mul_shoup(&x[i + half], &w, &ws, &d);
      fr_norm(&x[i + half]);
    }
  }
  for (unsigned i = 0; i < n; i++) y[L == 1 ? i : ((i & 1) << 1) | (i >> 1)] = x[i];
  for (unsigned i = 0; i < n; i++) {
    if (mode & 1) fr_mul(&y[i], &y[i], &ninv);
    if (mode == 3) {
      fr_t g;
      coset_pow(&g, coset, lo_bits, i);
      fr_mul(&y[i], &y[i], &g);
    }
    store_fr(data + i, &y[i]);
  }
}

/* t[i] = lo[i & (2^B - 1)] * hi[i >> B] as a Shoup pair (t[2i], t[2i+1]) */
__global__ void ntt_expand(fr_t *t, size_t n, const fr_t *lo, const fr_t *hi, unsigned B) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t a, b;
  load_fr(&a, lo + (i & (((size_t)1 << B) - 1)));
  load_fr(&b, hi + (i >> B));
  fr_mul(&a, &a, &b);
  fr_t w, ws;
  fr_shoup_pair(&w, &ws, &a);
  store_fr(t + 2 * i, &w);
  store_fr(t + 2 * i + 1, &ws);
}

/* ------------------------------------------------------------------------------------------------ host glue */
static czk_status upload_expand(fr_t *d_out, size_t n, const czk_fr *step, unsigned B, cudaStream_t st) {
  /* d_out[2i], d_out[2i+1] = the Shoup pair of step^i for i < n: lo[j] = step^j (j < 2^B), hi[k] = step^(k 2^B) */
  size_t nlo = (size_t)1 << B, nhi = (n + nlo - 1) / nlo;
  czk_fr *h = (czk_fr *)malloc((nlo + nhi) * sizeof(czk_fr));
  if (!h) return CZK_ERR_NOMEM;
  czk_fr_set_one(&h[0]);
  for (size_t j = 1; j < nlo; j++) czk_fr_mul(&h[j], &h[j - 1], step);
  czk_fr big;
  czk_fr_mul(&big, &h[nlo - 1], step);
  czk_fr_set_one(&h[nlo]);
  for (size_t k = 1; k < nhi; k++) czk_fr_mul(&h[nlo + k], &h[nlo + k - 1], &big);
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
    cudaFree(p->d_ft[i]);
    cudaFree(p->d_coset[i]);
  }
  free(p);
}

/* r = a^(2^e) */
static void fr_sqr_n(czk_fr *r, const czk_fr *a, unsigned e) {
  *r = *a;
  for (unsigned i = 0; i < e; i++) czk_fr_mul(r, r, r);
}

/* Compact plans: tw_c = the smallest log2 granularity of the twiddle exponents (in w_N, N = 2^log_max) that a
 * pass reading d_tw meets, over every domain 2^L <= N: a stage s reads exponents that are multiples of
 * 2^(s + log_max - L); a one-pass transform (and ntt_tiny) starts at s = 0, a multi-pass one reads d_tw from its
 * second pass on (s >= s0 of pass 1; the four-step first pass reads multiples of 2^(hs + log_max - L), hs = L - k0,
 * counted too). 2^27: 8 (from 2^27 itself, passes 8, 9, 10), 2^28: 9. */
static unsigned compact_shift(unsigned log_max) {
  unsigned c = log_max - 1;
  for (unsigned L = 1; L <= log_max; L++) {
    const unsigned tws = log_max - L, np = L >= 3 ? ntt_npasses(L) : 1;
    unsigned g = tws;
    if (np > 1) {
      unsigned k, s0, tl, rl;
      ntt_pass_geom(L, 0, &k, &s0, &tl, &rl);
      g = L - k + tws;
      for (unsigned pi = 1; pi < np; pi++) {
        ntt_pass_geom(L, pi, &k, &s0, &tl, &rl);
        if (s0 + tws < g) g = s0 + tws;
      }
    }
    if (g < c) c = g;
  }
  return c;
}

/* The tables of a plan for 2^log_n_max: pairs per direction in d_tw (tw_n) and d_ft (ft_n), and the bytes of one
 * direction's d_tw, d_ft, d_coset. Full: tw_n = 2^(log_max-1), no d_ft. Compact: tw_n = 2^(log_max-1-tw_c), and
 * when a transform may take several passes (log_max > NTT_PASS_MAX) ft_n = 2^ft_bits + 2^(log_max-ft_bits). */
typedef struct ntt_layout {
  unsigned tw_c, ft_bits;
  size_t tw_n, ft_n, tb, fb, cb;
} ntt_layout;
static size_t plan_layout(unsigned log_n_max, int compact, ntt_layout *y) {
  memset(y, 0, sizeof *y);
  y->tw_c = compact ? compact_shift(log_n_max) : 0u;
  y->tw_n = (size_t)1 << (log_n_max - 1 - y->tw_c);
  if (compact && log_n_max > NTT_PASS_MAX) {
    y->ft_bits = log_n_max / 2;
    y->ft_n = ((size_t)1 << y->ft_bits) + ((size_t)1 << (log_n_max - y->ft_bits));
  }
  const unsigned lo = (log_n_max + 1) / 2;
  y->tb = y->tw_n * 2 * sizeof(fr_t);
  y->fb = y->ft_n * 2 * sizeof(fr_t);
  y->cb = (((size_t)1 << lo) + ((size_t)1 << (log_n_max - lo))) * sizeof(fr_t);
  return 2 * (y->tb + y->fb + y->cb);
}
/* Device bytes of a plan for 2^log_n_max (czk_cuda_ntt_new's tables): the memory plan counts them before it exists. */
extern "C" uint64_t czk_cuda_ntt_plan_bytes_ex(unsigned log_n_max, int compact) {
  ntt_layout y;
  return log_n_max < 1 || log_n_max > 28 ? 0 : plan_layout(log_n_max, compact, &y);
}
extern "C" uint64_t czk_cuda_ntt_plan_bytes(unsigned log_n_max) { return czk_cuda_ntt_plan_bytes_ex(log_n_max, 0); }
extern "C" uint64_t czk_cuda_ntt_bytes(const czk_cuda_ntt *p) {
  return p ? czk_cuda_ntt_plan_bytes_ex(p->log_max, p->compact) : 0;
}
extern "C" int czk_cuda_ntt_is_compact(const czk_cuda_ntt *p) { return p && p->compact; }

extern "C" czk_status czk_cuda_ntt_new(czk_cuda_ntt **out, unsigned log_n_max, czk_fr_roots roots,
                                       const czk_fr *coset_shift, void *stream) {
  return czk_cuda_ntt_new_ex(out, log_n_max, roots, coset_shift, 0, stream);
}

extern "C" czk_status czk_cuda_ntt_new_ex(czk_cuda_ntt **out, unsigned log_n_max, czk_fr_roots roots,
                                          const czk_fr *coset_shift, int compact, void *stream) {
  if (!out || log_n_max < 1 || log_n_max > 28) return CZK_ERR_INVALID_ARG;
  if (roots != CZK_ROOTS_BELLMAN && roots != CZK_ROOTS_SNARKJS) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  cudaStream_t st = (cudaStream_t)stream;
  czk_cuda_ntt *p = (czk_cuda_ntt *)calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  ntt_layout y;
  (void)plan_layout(log_n_max, compact, &y);
  p->log_max = log_n_max;
  p->lo_bits = (log_n_max + 1) / 2;
  p->compact = compact ? 1 : 0;
  p->tw_c = y.tw_c;
  p->ft_bits = y.ft_bits;
  czk_fr w, wi, g, gi;
  (void)czk_fr_root_of_unity(&w, log_n_max, roots); /* log_n_max <= 28 < 32 */
  czk_fr_inv(&wi, &w);
  if (coset_shift)
    g = *coset_shift;
  else
    czk_fr_from_u64(&g, 7);
  czk_fr_inv(&gi, &g);
  for (unsigned k = 0; k <= 28; k++) {
    czk_fr nn;
    czk_fr_from_u64(&nn, (uint64_t)1 << k);
    czk_fr_inv(&p->ninv[k], &nn);
  }
  /* constants of the last radix group and of the coset scalings (sizes 2^3 .. 2^log_max) */
  if (log_n_max >= 3) {
    for (int d = 0; d < 2; d++) {
      czk_fr w8;
      fr_sqr_n(&w8, d ? &wi : &w, log_n_max - 3);
      czk_fr_set_one(&p->w8[d][0]);
      for (int m = 1; m < 4; m++) czk_fr_mul(&p->w8[d][m], &p->w8[d][m - 1], &w8);
    }
    for (unsigned L = 3; L <= log_n_max; L++) {
      czk_fr s, si;
      fr_sqr_n(&s, &g, L - 3);
      fr_sqr_n(&si, &gi, L - 3);
      czk_fr_set_one(&p->cg[L][0]);
      p->cq[L][0] = p->ninv[L];
      for (int t = 1; t < 8; t++) {
        czk_fr_mul(&p->cg[L][t], &p->cg[L][t - 1], &s);
        czk_fr_mul(&p->cq[L][t], &p->cq[L][t - 1], &si);
      }
    }
  }
  czk_status s = CZK_OK;
  cudaError_t e = cudaSuccess;
  for (int d = 0; d < 2 && e == cudaSuccess; d++) {
    e = cudaMalloc((void **)&p->d_tw[d], y.tb);
    if (e == cudaSuccess && y.fb) e = cudaMalloc((void **)&p->d_ft[d], y.fb);
    if (e == cudaSuccess) e = cudaMalloc((void **)&p->d_coset[d], y.cb);
  }
  if (e != cudaSuccess) {
    czk_log_write(CZK_LOG_ERROR, "cuda", "ntt_new(2^%u%s): %s", log_n_max, compact ? ", compact" : "",
                  cudaGetErrorString(e));
    czk_cuda_ntt_free(p);
    return e == cudaErrorMemoryAllocation ? CZK_ERR_NOMEM : CZK_ERR_DEVICE;
  }
  /* d_tw: the pairs of v^m, v = w^(2^tw_c) (w itself in a full plan), m < tw_n = 2^tlog; d_ft: those of w^j,
   * j < 2^ft_bits, then of (w^(2^ft_bits))^k, k < 2^(log_max - ft_bits) */
  const unsigned tlog = log_n_max - 1 - y.tw_c;
  for (int d = 0; d < 2 && s == CZK_OK; d++) {
    const czk_fr *wd = d ? &wi : &w;
    czk_fr v;
    fr_sqr_n(&v, wd, y.tw_c);
    s = upload_expand(p->d_tw[d], y.tw_n, &v, (tlog + 1) / 2, st);
    if (s == CZK_OK && y.ft_n) {
      const size_t nlo = (size_t)1 << y.ft_bits;
      const unsigned hlog = log_n_max - y.ft_bits;
      s = upload_expand(p->d_ft[d], nlo, wd, (y.ft_bits + 1) / 2, st);
      fr_sqr_n(&v, wd, y.ft_bits);
      if (s == CZK_OK) s = upload_expand(p->d_ft[d] + 2 * nlo, y.ft_n - nlo, &v, (hlog + 1) / 2, st);
    }
  }
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
      czk_fr_set_one(&h[0]);
      for (size_t j = 1; j < nlo; j++) czk_fr_mul(&h[j], &h[j - 1], step);
      czk_fr big;
      czk_fr_mul(&big, &h[nlo - 1], step);
      czk_fr_set_one(&h[nlo]);
      for (size_t k = 1; k < nhi; k++) czk_fr_mul(&h[nlo + k], &h[nlo + k - 1], &big);
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

/* The Shoup pair (w, floor(w 2^256 / r)) of a constant given in Montgomery form m = w 2^256 mod r (see
 * fr_shoup_pair): w from the host reference, the quotient = m (-r^-1 mod 2^256) mod 2^256. */
static void host_shoup_pair(fr_t *w, fr_t *ws, const czk_fr *m) {
  static const uint64_t ninv[4] = CZK__CU_FR_NINV256_64;
  uint64_t raw[4], q[4] = {0, 0, 0, 0};
  czk_fr_to_raw(raw, m);
  for (int i = 0; i < 4; i++) {
    unsigned __int128 c = 0;
    for (int j = 0; i + j < 4; j++) {
      c += (unsigned __int128)m->l[i] * ninv[j] + q[i + j];
      q[i + j] = (uint64_t)c;
      c >>= 64;
    }
  }
  memcpy(w, raw, sizeof *w);
  memcpy(ws, q, sizeof *ws);
}

extern "C" czk_status czk_cuda_ntt_run(czk_cuda_ntt *p, czk_fr *d_data, unsigned log_n, czk_cuda_ntt_dir dir,
                                       void *stream) {
  if (!p || !d_data || log_n > p->log_max) return CZK_ERR_INVALID_ARG;
  if ((unsigned)dir > 3) return CZK_ERR_INVALID_ARG;
  if (log_n == 0) return CZK_OK; /* one point: every direction is the identity */
  cudaStream_t st = (cudaStream_t)stream;
  fr_t *data = (fr_t *)d_data;
  const int inv = dir == CZK_CUDA_NTT_INVERSE || dir == CZK_CUDA_NTT_COSET_INVERSE;
  const unsigned L = log_n;
  if (L <= 2) {
    fr_t ninv;
    memcpy(&ninv, &p->ninv[L], sizeof ninv);
    /* compact: log_max - tw_c - L >= 0 for L <= 2 (compact_shift) */
    ntt_tiny<<<1, 1, 0, st>>>(data, L, (int)dir, p->d_tw[inv], p->log_max - p->tw_c - L, p->d_coset[inv], p->lo_bits,
                              ninv);
    CZK_CU_LAUNCHED(st);
    return CZK_OK;
  }
  const unsigned np = ntt_npasses(L);
  const bool prof = getenv("CZK_CUDA_NTT_PROFILE") != NULL;
  cudaEvent_t pev[8]; /* CZK_CUDA_NTT_PROFILE: time of each pass, logged (debugging aid: synchronous) */
  if (prof) {
    for (unsigned i = 0; i <= np + 1; i++) cudaEventCreate(&pev[i]);
    cudaEventRecord(pev[0], st);
  }
  for (unsigned pi = 0; pi < np; pi++) {
    ntt_pass_args a;
    memset(&a, 0, sizeof a);
    ntt_pass_geom(L, pi, &a.k, &a.s0, &a.tlog, &a.rlog);
    a.L = L;
    a.tw = p->d_tw[inv];
    a.tw_shift = p->log_max - p->tw_c - L; /* mod 2^32 (ntt_pass_args) */
    a.lo_bits = p->lo_bits;
    const bool coset_in = pi == 0 && dir == CZK_CUDA_NTT_COSET_FORWARD, last = pi + 1 == np;
    const bool four = p->compact && pi == 0 && np > 1; /* d_tw lacks the first pass's fine exponents */
    if (coset_in) {
      a.coset = p->d_coset[0];
      memcpy(a.gc, p->cg[L], sizeof a.gc);
    }
    if (four) { /* the constants of its last group (no n^-1: not the last pass) and the element twiddles */
      for (int m = 0; m < 4; m++) host_shoup_pair(&a.kc[m], &a.kcs[m], &p->w8[inv][m]);
      host_shoup_pair(&a.w4, &a.w4s, &p->w8[inv][2]);
      a.ft = p->d_ft[inv];
      a.ft_shift = p->log_max - L;
      a.ft_bits = p->ft_bits;
    }
    if (last) {
      a.flags |= np == 1 ? NTT_F_BITREV : 0u;
      for (int m = 0; m < 4; m++) host_shoup_pair(&a.kc[m], &a.kcs[m], &p->w8[inv][m]);
      host_shoup_pair(&a.w4, &a.w4s, &p->w8[inv][2]);
      if (dir == CZK_CUDA_NTT_INVERSE) {
        a.flags |= NTT_F_NINV;
        for (int m = 0; m < 4; m++) {
          czk_fr km;
          czk_fr_mul(&km, &p->w8[inv][m], &p->ninv[L]);
          host_shoup_pair(&a.kc[m], &a.kcs[m], &km);
        }
      } else if (dir == CZK_CUDA_NTT_COSET_INVERSE) {
        a.flags |= NTT_F_COSET_OUT;
        a.coset = p->d_coset[1];
        memcpy(a.gc, p->cq[L], sizeof a.gc);
      }
    }
    const unsigned tile_log = a.k + a.tlog + a.rlog;
    void (*kern)(fr_t *, ntt_pass_args) = last   ? (coset_in ? ntt_pass_last_coset : ntt_pass_last)
                                          : four ? (coset_in ? ntt_pass_four_coset : ntt_pass_four)
                                                 : (coset_in ? ntt_pass_coset : ntt_pass);
    kern<<<1u << (L - tile_log), 1u << (tile_log - 3), (size_t)32 << tile_log, st>>>(data, a);
    CZK_CU_LAUNCHED(st);
    if (prof) cudaEventRecord(pev[pi + 1], st);
  }
  if (np > 1) {
    ntt_bitrev_words<<<1u << (L - 8), 256, 0, st>>>(data, L);
    CZK_CU_LAUNCHED(st);
  }
  if (prof) {
    cudaEventRecord(pev[np + 1], st);
    cudaEventSynchronize(pev[np + 1]);
    char line[256];
    int len = snprintf(line, sizeof line, "ntt 2^%u dir %d:", L, (int)dir);
    for (unsigned i = 1; i <= np + 1 && len < (int)sizeof line; i++) {
      float ms = 0;
      cudaEventElapsedTime(&ms, pev[i - 1], pev[i]);
      len += snprintf(line + len, sizeof line - len, " %s %.3f", i <= np ? "pass" : "bitrev", ms);
    }
    for (unsigned i = 0; i <= np + 1; i++) cudaEventDestroy(pev[i]);
    czk_log_write(CZK_LOG_INFO, "cuda", "%s ms", line);
  }
  return CZK_OK;
}
