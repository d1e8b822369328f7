/* ff.cuh: BLS12-381 finite-field arithmetic on the GPU: Fp (381-bit, 12x32-bit limbs), Fr (255-bit, 8x32-bit
 * limbs) and Fp2 = Fp[u]/(u^2+1).
 *
 * Representation: Montgomery form, R = 2^384 (Fp) / 2^256 (Fr), little-endian 32-bit limbs. A czk_fp (6x64-bit LE
 * limbs) has exactly the bytes of an fp_t on a little-endian host, so host arrays are copied to the device as-is.
 * Invariant: every value produced here is fully reduced (< modulus), so equality and zero tests are limb tests and
 * results are byte-identical to the CPU library's.
 *
 * Multiplication: CIOS Montgomery (Koc et al.): per outer limb b_i, t += a*b_i, m = t0*n0, t += m*p, a one-limb
 * shift; a final conditional subtraction. The partial products are split into even and odd words (mont_mul_eo) so
 * that ptxas fuses each lo/hi pair into one wide multiply-add: ~200 instructions per Fr product, ~430 per Fp product
 * (the lo-chain/hi-chain form compiled to ~600 per Fr product).
 * Carry-chain asm statements follow each other without intervening C arithmetic (the CC flag lives between them),
 * and every one is `asm volatile`: a plain asm statement whose output is dead (the mad.lo.cc that zeroes t[0] before
 * the shift) is deleted by the compiler together with the carry it produces, and plain asm statements may be
 * reordered, since the compiler does not see the CC flag as a dependency. (That deletion made every Fp/Fr product
 * wrong on the H200; found by test_cuda, fixed here.) */
#ifndef CZK_CUDA_FF_CUH
#define CZK_CUDA_FF_CUH

#include <stdint.h>

#include "cuda/constants.cuh"

#define CZK_D static __device__ __forceinline__
#define CZK_HD static __host__ __device__ __forceinline__

typedef struct fp_t {
  uint32_t v[12];
} fp_t;
typedef struct fr_t {
  uint32_t v[8];
} fr_t;
typedef struct fp2_t {
  fp_t c0, c1;
} fp2_t;

static __constant__ const uint32_t FP_P[12] = CZK__CU_FP_P;
static __constant__ const uint32_t FP_ONE[12] = CZK__CU_FP_ONE;
#define FP_N0 CZK__CU_FP_N0
static __constant__ const uint32_t FR_P[8] = CZK__CU_FR_P;
static __constant__ const uint32_t FR_ONE[8] = CZK__CU_FR_ONE;
#define FR_N0 CZK__CU_FR_N0

/* ---------------------------------------------------------------- generic N-limb helpers (N compile-time) */

/* PTX integer instructions, one each; the .cc forms pass the carry (CC.CF) to the next carry-chain instruction. Every
 * one is asm volatile so that none is dropped or reordered (see above); plain C arithmetic between them is fine (it
 * does not touch CC). */
#define FF_PTX2(name, op)                                                                                             \
  static __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) {                                           \
    uint32_t d;                                                                                                       \
    asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));                                                       \
    return d;                                                                                                         \
  }
#define FF_PTX3(name, op)                                                                                             \
  static __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) {                               \
    uint32_t d;                                                                                                       \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));                                           \
    return d;                                                                                                         \
  }
FF_PTX2(ptx_mul_lo, "mul.lo.u32")
FF_PTX2(ptx_mul_hi, "mul.hi.u32")
FF_PTX2(ptx_add_cc, "add.cc.u32")
FF_PTX2(ptx_addc_cc, "addc.cc.u32")
FF_PTX2(ptx_addc, "addc.u32")
FF_PTX2(ptx_sub_cc, "sub.cc.u32")
FF_PTX2(ptx_subc_cc, "subc.cc.u32")
FF_PTX2(ptx_subc, "subc.u32")
FF_PTX3(ptx_mad_lo_cc, "mad.lo.cc.u32")
FF_PTX3(ptx_madc_lo_cc, "madc.lo.cc.u32")
FF_PTX3(ptx_madc_hi_cc, "madc.hi.cc.u32")
FF_PTX3(ptx_madc_hi, "madc.hi.u32")
FF_PTX3(ptx_mad_lo, "mad.lo.u32")
FF_PTX3(ptx_mad_hi, "mad.hi.u32")
FF_PTX3(ptx_mad_hi_cc, "mad.hi.cc.u32")
FF_PTX3(ptx_madc_lo, "madc.lo.u32")

/* r = a*b*2^(-32N) mod q, fully reduced (a < q, q < 2^(32N-2), N even); r may alias a or b. q[0..N-1] is the modulus,
 * q[N] = n0 = -q^-1 mod 2^32. Pass the moduli below, which sit in constant memory that is NOT const: with literal
 * values ptxas rewrites products by special words (Fr: q0 = 1, q1 = n0 = 2^32-1) and splits the wide multiply-adds.
 * CIOS (as described above) with the partial products split by parity. A product a_j*b_i spans words (j, j+1); the
 * even-j ones are added into ev (positions 0..N-1), the odd-j ones into od (positions 1..N), so that each carry chain
 * alternates lo(x*y) and hi(x*y) of the same factors, which ptxas fuses into one IMAD.WIDE.U32(.X) with carry in and
 * out: ~200 instructions per Fr product instead of ~600 for the lo-chain/hi-chain form (there every mad.lo/mad.hi
 * becomes an IMAD plus an IADD3).
 * Iteration i: T = ev + eN*2^(32N) + od*2^32 (+ a carry pending at position 1, see below); T += a*b_i; m = ev0*n0;
 * T += m*q (ev0 becomes 0); T >>= 32: the new ev is od (positions 1..N -> 0..N-1) plus the old ev1 at position 0
 * (add.cc, its carry consumed by the first instruction of the next odd chain, which writes position 1), the new od is
 * the old ev2..ev(N-1), eN (positions 2..N -> 1..N-1) and a zero top word; under full unrolling the moves are renames.
 * Bounds: T < 2q before each iteration. od*2^32 < 2^(32N) after the shift, and it gains a_odd*b_i < q 2^32 and
 * m*q_odd < q 2^32, so it stays below 2^(32N) + 2^33 q < 2^(32(N+1)): the odd chains end without carry-out; the even
 * ones carry into eN. The result before the final subtraction is T < 2q. The bounds need only A < q: B may be any
 * N-word value (T < A B / 2^(32N) + q < 2q still); reduce false skips the final subtraction (the NTT's lazy
 * products). */
/* The steps shared by mont_mul_eo, mul_wide_eo and redc_eo (state: ev, od, eN as described above). Each carry chain
 * runs inside one step; the carry left pending by eo_shift is consumed by the first instruction of the next step. */

/* T += A*b_i (first: T = A*b_i, nothing pending). The odd chain first: it takes the pending carry. Returns the even
 * chain's carry-out (position N). */
CZK_D uint32_t eo_mac(uint32_t *ev, uint32_t *od, const uint32_t *A, const uint32_t bi, const int N, const bool first) {
  if (first) {
#pragma unroll
    for (int j = 0; j < N; j += 2) {
      od[j] = ptx_mul_lo(A[j + 1], bi), od[j + 1] = ptx_mul_hi(A[j + 1], bi);
      ev[j] = ptx_mul_lo(A[j], bi), ev[j + 1] = ptx_mul_hi(A[j], bi);
    }
    return 0;
  }
#pragma unroll
  for (int j = 0; j < N - 2; j += 2)
    od[j] = ptx_madc_lo_cc(A[j + 1], bi, od[j]), od[j + 1] = ptx_madc_hi_cc(A[j + 1], bi, od[j + 1]);
  od[N - 2] = ptx_madc_lo_cc(A[N - 1], bi, od[N - 2]), od[N - 1] = ptx_madc_hi(A[N - 1], bi, od[N - 1]);
  ev[0] = ptx_mad_lo_cc(A[0], bi, ev[0]), ev[1] = ptx_madc_hi_cc(A[0], bi, ev[1]);
#pragma unroll
  for (int j = 2; j < N; j += 2)
    ev[j] = ptx_madc_lo_cc(A[j], bi, ev[j]), ev[j + 1] = ptx_madc_hi_cc(A[j], bi, ev[j + 1]);
  return ptx_addc(0, 0);
}

/* T += m*q with m = ev0*n0 (ev0 becomes 0); cin: a carry is pending for the odd chain. Returns c0 plus the even
 * chain's carry-out, c0 added by the chain's last instruction (as a separate C addition it cost the NTT kernels ~300
 * bytes of spills). */
CZK_D uint32_t eo_red(uint32_t *ev, uint32_t *od, const uint32_t *q, const int N, const bool cin, const uint32_t c0) {
  const uint32_t m = ev[0] * q[N];
  od[0] = cin ? ptx_madc_lo_cc(m, q[1], od[0]) : ptx_mad_lo_cc(m, q[1], od[0]);
  od[1] = ptx_madc_hi_cc(m, q[1], od[1]);
#pragma unroll
  for (int j = 2; j < N - 2; j += 2)
    od[j] = ptx_madc_lo_cc(m, q[j + 1], od[j]), od[j + 1] = ptx_madc_hi_cc(m, q[j + 1], od[j + 1]);
  od[N - 2] = ptx_madc_lo_cc(m, q[N - 1], od[N - 2]), od[N - 1] = ptx_madc_hi(m, q[N - 1], od[N - 1]);
  ev[0] = ptx_mad_lo_cc(m, q[0], ev[0]), ev[1] = ptx_madc_hi_cc(m, q[0], ev[1]);
#pragma unroll
  for (int j = 2; j < N; j += 2)
    ev[j] = ptx_madc_lo_cc(m, q[j], ev[j]), ev[j + 1] = ptx_madc_hi_cc(m, q[j], ev[j + 1]);
  return ptx_addc(c0, 0);
}

/* T >>= 32 (ev0 is 0 or shifted out); leaves the carry of the new ev0 pending (consumed by the next step). */
CZK_D void eo_shift(uint32_t *ev, uint32_t *od, const uint32_t eN, const int N) {
  const uint32_t lo = ptx_add_cc(od[0], ev[1]);
  uint32_t t[10];
#pragma unroll
  for (int k = 0; k < N - 2; k++) t[k] = ev[k + 2];
  ev[0] = lo;
#pragma unroll
  for (int k = 1; k < N; k++) ev[k] = od[k];
#pragma unroll
  for (int k = 0; k < N - 2; k++) od[k] = t[k];
  od[N - 2] = eN, od[N - 1] = 0;
}

/* t = T >> 32 = (ev1..ev(N-1), eN) + od (no carry-out: the bounds above). */
CZK_D void eo_merge(uint32_t *t, const uint32_t *ev, const uint32_t *od, const uint32_t eN, const int N) {
  t[0] = ptx_add_cc(od[0], ev[1]);
#pragma unroll
  for (int k = 1; k < N - 1; k++) t[k] = ptx_addc_cc(od[k], ev[k + 1]);
  t[N - 1] = ptx_addc(od[N - 1], eN);
}

/* r = t < 2q ? t - q when t >= q : t. */
CZK_D void cond_sub_n(uint32_t *r, const uint32_t *t, const uint32_t *q, const int N) {
  uint32_t s[12];
  s[0] = ptx_sub_cc(t[0], q[0]);
#pragma unroll
  for (int k = 1; k < N; k++) s[k] = ptx_subc_cc(t[k], q[k]);
  const uint32_t bw = ptx_subc(0, 0);
#pragma unroll
  for (int k = 0; k < N; k++) r[k] = bw ? t[k] : s[k];
}

CZK_D void mont_mul_eo(uint32_t *r, const uint32_t *A, const uint32_t *B, const uint32_t *q, const int N,
                       const bool reduce) {
  uint32_t ev[12], od[12], eN = 0;
#pragma unroll
  for (int i = 0; i < N; i++) {
    eN = eo_red(ev, od, q, N, false, eo_mac(ev, od, A, B[i], N, i == 0));
    if (i < N - 1) {
      eo_shift(ev, od, eN, N);
    } else {
      uint32_t t[12];
      eo_merge(t, ev, od, eN, N);
      if (reduce) {
        cond_sub_n(r, t, q, N);
      } else { /* lazy: t < 2q */
#pragma unroll
        for (int k = 0; k < N; k++) r[k] = t[k];
      }
    }
  }
}

/* P = A*B as 2N words (P[0..N-1] low, P[N..2N-1] high): mont_mul_eo's schedule without the reduction; iteration i
 * adds A*b_i and shifts the finished lowest word out into P[i]. */
CZK_D void mul_wide_eo(uint32_t *P, const uint32_t *A, const uint32_t *B, const int N) {
  uint32_t ev[12], od[12], eN = 0;
#pragma unroll
  for (int i = 0; i < N; i++) {
    eN = eo_mac(ev, od, A, B[i], N, i == 0);
    P[i] = ev[0];
    if (i < N - 1)
      eo_shift(ev, od, eN, N);
    else
      eo_merge(P + N, ev, od, eN, N);
  }
}

/* r = T 2^(-32N) mod q for a 2N-word T < q 2^(32N) (T[0..N-1] low, T[N..2N-1] high), fully reduced: mont_mul_eo's
 * reduction steps alone over the low half, then the high half added and one conditional subtraction (the sum is
 * < T / 2^(32N) + q < 2q). */
CZK_D void redc_eo(uint32_t *r, const uint32_t *T, const uint32_t *q, const int N) {
  uint32_t ev[12], od[12], eN = 0;
#pragma unroll
  for (int k = 0; k < N; k++) ev[k] = T[k], od[k] = 0;
#pragma unroll
  for (int i = 0; i < N; i++) {
    eN = eo_red(ev, od, q, N, i > 0, 0);
    if (i < N - 1) {
      eo_shift(ev, od, eN, N);
    } else {
      uint32_t t[12];
      eo_merge(t, ev, od, eN, N);
      t[0] = ptx_add_cc(t[0], T[N]);
#pragma unroll
      for (int k = 1; k < N; k++) t[k] = ptx_addc_cc(t[k], T[N + k]);
      (void)ptx_addc(0, 0); /* no carry: t < 2q */
      cond_sub_n(r, t, q, N);
    }
  }
}

/* The moduli and n0 for mont_mul_eo (see there why they are not const). */
static __device__ __constant__ uint32_t FF_QP[13] = CZK__CU_FF_QP;
static __device__ __constant__ uint32_t FF_QR[9] = CZK__CU_FF_QR;

/* r = a + b mod p (a, b < p; 2p < 2^(32N)). */
CZK_D void mod_add_n(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *p, const int N) {
  uint32_t t[12], s[12], bw;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
  for (int j = 1; j < N; j++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[j]) : "r"(a[j]), "r"(b[j]));
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(p[0]));
#pragma unroll
  for (int j = 1; j < N; j++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[j]) : "r"(t[j]), "r"(p[j]));
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(bw));
#pragma unroll
  for (int j = 0; j < N; j++) r[j] = bw ? t[j] : s[j];
}

/* r = a + b mod p (a, b < p) where 2p may exceed 2^(32N): the sum's carry-out takes part in the comparison. */
CZK_D void mod_add_c_n(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *p, const int N) {
  uint32_t t[12], s[12], c, bw;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
  for (int j = 1; j < N; j++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[j]) : "r"(a[j]), "r"(b[j]));
  asm volatile("addc.u32 %0, 0, 0;" : "=r"(c));
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(p[0]));
#pragma unroll
  for (int j = 1; j < N; j++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[j]) : "r"(t[j]), "r"(p[j]));
  asm volatile("subc.u32 %0, %1, 0;" : "=r"(bw) : "r"(c)); /* all ones iff no carry and a - p borrowed: keep t */
#pragma unroll
  for (int j = 0; j < N; j++) r[j] = bw == 0xffffffffu ? t[j] : s[j];
}

/* r = a - b mod p. */
CZK_D void mod_sub_n(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *p, const int N) {
  uint32_t t[12], bw;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
  for (int j = 1; j < N; j++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(t[j]) : "r"(a[j]), "r"(b[j]));
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(bw));
  uint32_t q[12];
#pragma unroll
  for (int j = 0; j < N; j++) q[j] = p[j] & bw;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(t[0]), "r"(q[0]));
#pragma unroll
  for (int j = 1; j < N; j++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r[j]) : "r"(t[j]), "r"(q[j]));
  asm volatile("addc.u32 %0, 0, 0;" : "=r"(bw)); /* drop the final carry (consumes CC) */
}

CZK_D bool is_zero_n(const uint32_t *a, const int N) {
  uint32_t acc = 0;
#pragma unroll
  for (int j = 0; j < N; j++) acc |= a[j];
  return acc == 0;
}
CZK_D bool eq_n(const uint32_t *a, const uint32_t *b, const int N) {
  uint32_t acc = 0;
#pragma unroll
  for (int j = 0; j < N; j++) acc |= a[j] ^ b[j];
  return acc == 0;
}

/* Shared-memory loads and stores of N words at a 16-byte aligned shared address, in 16-byte accesses. asm volatile:
 * each load is issued where it is written and never merged with another load of the same words, so a value read from
 * shared memory occupies registers only while it is used (the MSM kernels keep point operands there to stay under
 * the register limit; see msm_impl.cuh). */
CZK_D void lds_n(uint32_t *r, const void *p, const int N) {
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
#pragma unroll
  for (int j = 0; j < N; j += 4)
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[j]), "=r"(r[j + 1]), "=r"(r[j + 2]), "=r"(r[j + 3])
                 : "r"(a + 4 * j));
}
CZK_D void sts_n(void *p, const uint32_t *r, const int N) {
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
#pragma unroll
  for (int j = 0; j < N; j += 4)
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a + 4 * j), "r"(r[j]), "r"(r[j + 1]),
                 "r"(r[j + 2]), "r"(r[j + 3])
                 : "memory");
}

/* ---------------------------------------------------------------- truncated products (Shoup multiplication) */
/* One term of a carry chain: c + lo(a b) or c + hi(a b); carry in unless first, carry out unless last. */
CZK_D uint32_t cc_term(const bool hi, const bool first, const bool last, uint32_t a, uint32_t b, uint32_t c) {
  if (hi) {
    if (first) return last ? ptx_mad_hi(a, b, c) : ptx_mad_hi_cc(a, b, c);
    return last ? ptx_madc_hi(a, b, c) : ptx_madc_hi_cc(a, b, c);
  }
  if (first) return last ? ptx_mad_lo(a, b, c) : ptx_mad_lo_cc(a, b, c);
  return last ? ptx_madc_lo(a, b, c) : ptx_madc_lo_cc(a, b, c);
}
/* The truncated products keep absolute word positions in two accumulators by the parity of a term pair's start: a
 * product x*y adds lo(x y) at position p and hi(x y) at p+1; pairs with p even go to c0 (index p), pairs with p odd
 * to c1 (index p-1), so that in both each pair is an aligned register pair, which ptxas needs to fuse lo and hi into
 * one wide multiply-add (IMAD.WIDE.U32(.X)). Row i of A*B (b = B[i]) has one chain per parity of j (pairs start at
 * i+j), one chain per accumulator.
 * pp_row: acc += the terms A[j] b, j = par, par+2, .. < N, restricted to positions pmin..pmax (consecutive
 * positions: one carry chain). cap: the carry-out goes to position pmax+1, which holds at most a previous carry
 * (0 or 1); otherwise it is dropped. All indices are compile-time after unrolling. */
CZK_D void pp_row(uint32_t *acc, const int off, const uint32_t *A, const uint32_t b, const int i, const int par,
                  const int N, const int pmin, const int pmax, const bool cap) {
  const int jtop = par + 2 * ((N - 1 - par) / 2), ptop = i + jtop + 1 < pmax ? i + jtop + 1 : pmax;
  bool first = true;
#pragma unroll
  for (int j = par; j < N; j += 2) {
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int p = i + j + h;
      if (p < pmin || p > pmax) continue;
      acc[p - off] = cc_term(h == 1, first, p == ptop && !cap, A[j], b, acc[p - off]);
      first = false;
    }
  }
  if (cap && !first) acc[pmax + 1 - off] = ptx_addc(acc[pmax + 1 - off], 0);
}
CZK_D void pp_rows(uint32_t *c0, uint32_t *c1, const uint32_t *A, const uint32_t b, const int i, const int N,
                   const int pmin, const int pmax0, const int pmax1, const bool cap0, const bool cap1) {
  if (i & 1) {
    pp_row(c1, 1, A, b, i, 0, N, pmin, pmax0, cap0);
    pp_row(c0, 0, A, b, i, 1, N, pmin, pmax1, cap1);
  } else {
    pp_row(c0, 0, A, b, i, 0, N, pmin, pmax0, cap0);
    pp_row(c1, 1, A, b, i, 1, N, pmin, pmax1, cap1);
  }
}
/* P = A B mod 2^(32N). */
CZK_D void mul_lo_eo(uint32_t *P, const uint32_t *A, const uint32_t *B, const int N) {
  uint32_t c0[12], c1[12];
#pragma unroll
  for (int k = 0; k < N; k++) c0[k] = 0, c1[k] = 0;
#pragma unroll
  for (int i = 0; i < N; i++) pp_rows(c0, c1, A, B[i], i, N, 0, N - 1, N - 1, false, false);
  P[0] = c0[0];
  P[1] = ptx_add_cc(c0[1], c1[0]);
#pragma unroll
  for (int k = 2; k < N - 1; k++) P[k] = ptx_addc_cc(c0[k], c1[k - 1]);
  P[N - 1] = ptx_addc(c0[N - 1], c1[N - 2]);
}
/* Q = floor(T / 2^(32N)) for T = A B minus the terms below position N-1 and the low words at position N-2: the
 * dropped part is below 2N 2^(32(N-1)), so Q is floor(A B / 2^(32N)) or one less, and the exact quotient's loss is
 * below 2^-27 (what fr_mul_shoup's bound needs). Positions N-1 .. 2N-1; the chains of row i end at i+N-1 (even j)
 * and i+N (odd j), their carries go one position up (in each accumulator the chains' ends do not decrease, so that
 * position holds at most an earlier carry); the last odd chain has none (A B < 2^(64N)). */
CZK_D void mul_hi_trunc_eo(uint32_t *Q, const uint32_t *A, const uint32_t *B, const int N) {
  uint32_t c0[25], c1[25];
#pragma unroll
  for (int k = 0; k <= 2 * N; k++) c0[k] = 0, c1[k] = 0;
#pragma unroll
  for (int i = 0; i < N; i++) pp_rows(c0, c1, A, B[i], i, N, N - 1, i + N - 1, i + N, true, i < N - 1);
  (void)ptx_add_cc(c0[N - 1], c1[N - 2]);
#pragma unroll
  for (int k = 0; k < N - 1; k++) Q[k] = ptx_addc_cc(c0[N + k], c1[N + k - 1]);
  Q[N - 1] = ptx_addc(c0[2 * N - 1], c1[2 * N - 2]);
}

/* ---------------------------------------------------------------- Fp */
CZK_D void fp_mul(fp_t *r, const fp_t *a, const fp_t *b) { mont_mul_eo(r->v, a->v, b->v, FF_QP, 12, true); }
CZK_D void fp_sqr(fp_t *r, const fp_t *a) { mont_mul_eo(r->v, a->v, a->v, FF_QP, 12, true); }
CZK_D void fp_add(fp_t *r, const fp_t *a, const fp_t *b) { mod_add_n(r->v, a->v, b->v, FP_P, 12); }
CZK_D void fp_sub(fp_t *r, const fp_t *a, const fp_t *b) { mod_sub_n(r->v, a->v, b->v, FP_P, 12); }
CZK_D void fp_dbl(fp_t *r, const fp_t *a) { mod_add_n(r->v, a->v, a->v, FP_P, 12); }
CZK_D bool fp_is_zero(const fp_t *a) { return is_zero_n(a->v, 12); }
CZK_D bool fp_eq(const fp_t *a, const fp_t *b) { return eq_n(a->v, b->v, 12); }
CZK_D void fp_lds(fp_t *r, const fp_t *p) { lds_n(r->v, p, 12); }
CZK_D void fp_sts(fp_t *p, const fp_t *r) { sts_n(p, r->v, 12); }
CZK_D void fp_set_zero(fp_t *r) {
#pragma unroll
  for (int j = 0; j < 12; j++) r->v[j] = 0;
}
CZK_D void fp_set_one(fp_t *r) {
#pragma unroll
  for (int j = 0; j < 12; j++) r->v[j] = FP_ONE[j];
}
CZK_D void fp_neg(fp_t *r, const fp_t *a) {
  fp_t z;
  fp_set_zero(&z);
  fp_sub(r, &z, a);
}
/* a^(p-2) (Fermat inversion; 0 -> 0). ~380 squarings + ~190 multiplications; public data only (not a hot path). */
CZK_D void fp_inv(fp_t *r, const fp_t *a) {
  const uint32_t e[12] = CZK__CU_FP_P_MINUS_2;
  fp_t acc;
  fp_set_one(&acc);
  for (int i = 380; i >= 0; i--) {
    fp_sqr(&acc, &acc);
    if ((e[i >> 5] >> (i & 31)) & 1) fp_mul(&acc, &acc, a);
  }
  *r = acc;
}

/* ---------------------------------------------------------------- Fr */
CZK_D void fr_mul(fr_t *r, const fr_t *a, const fr_t *b) { mont_mul_eo(r->v, a->v, b->v, FF_QR, 8, true); }
CZK_D void fr_add(fr_t *r, const fr_t *a, const fr_t *b) { mod_add_n(r->v, a->v, b->v, FR_P, 8); }
CZK_D void fr_sub(fr_t *r, const fr_t *a, const fr_t *b) { mod_sub_n(r->v, a->v, b->v, FR_P, 8); }
/* The NTT's lazy arithmetic: values in [0, 2r) instead of [0, r) (2r < 2^256). fr_mul_lazy(a < r, b < 2^256) < 2r
 * without the final subtraction; fr_add2 / fr_sub2 are sum and difference mod 2r; fr_norm takes [0, 2r) to [0, r). */
static __constant__ const uint32_t FR_2P[8] = CZK__CU_FR_2P;
CZK_D void fr_mul_lazy(fr_t *r, const fr_t *a, const fr_t *b) { mont_mul_eo(r->v, a->v, b->v, FF_QR, 8, false); }
CZK_D void fr_add2(fr_t *r, const fr_t *a, const fr_t *b) { mod_add_c_n(r->v, a->v, b->v, FR_2P, 8); }
CZK_D void fr_sub2(fr_t *r, const fr_t *a, const fr_t *b) { mod_sub_n(r->v, a->v, b->v, FR_2P, 8); }
CZK_D void fr_norm(fr_t *r) {
  uint32_t s[8], bw;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(r->v[0]), "r"(FR_P[0]));
#pragma unroll
  for (int j = 1; j < 8; j++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[j]) : "r"(r->v[j]), "r"(FR_P[j]));
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(bw));
#pragma unroll
  for (int j = 0; j < 8; j++) r->v[j] = bw ? r->v[j] : s[j];
}
/* Shoup multiplication by a precomputed constant (the NTT's twiddles): for w < r given as the pair (w, ws) with
 * ws = floor(w 2^256 / r), and any b < 2r, fr_mul_shoup gives w b mod r lazily in [0, 2r): with Q the quotient
 * estimate floor(ws b / 2^256) (truncated: mul_hi_trunc_eo), w b / r - Q < b/2^256 + 2^-27 + 1 < 2, so w b - Q r lies
 * in [0, 2r) and is computed mod 2^256 from the low halves of w b and Q r. Its Montgomery meaning: for b = B R,
 * w b = (w B) R, so a plain w times a Montgomery b is the Montgomery product. Cost: the high half of ws b, the low
 * halves of w b and Q r, taken together as w b + Q (2^256 - r) (below): 79 wide + 21 narrow multiply-adds against
 * 128 + 8 for mont_mul_eo.
 * fr_shoup_pair makes (w, ws) from the Montgomery form m = w R mod r: w = m R^-1 mod r, and since
 * m = w 2^256 - r ws, ws = -m r^-1 mod 2^256 = low half of m (-r^-1 mod 2^256). */
static __device__ __constant__ uint32_t FR_NINV256[8] = CZK__CU_FR_NINV256;
/* 2^256 - r: its words 0 and 1 are 2^32 - 1 and 0. */
static __device__ __constant__ uint32_t FR_NEGR[8] = CZK__CU_FR_NEGR;
CZK_D void fr_mul_shoup(fr_t *r, const fr_t *w, const fr_t *ws, const fr_t *b) {
  /* w b - q r = w b + q (2^256 - r) mod 2^256 = w b + q 2^32 - q + (rows 2..7 of q (2^256 - r)), in one pair of
   * accumulators: c1 (c1[k] is position k+1) starts at q 2^32, both take the rows of w b and of q (2^256 - r), and q
   * is subtracted from c0 at the end. Against the low halves of w b and q r computed apart and subtracted (q r: rows
   * 1..7), this saves row 1's 13 half-products, one merge of the accumulators and the subtraction. */
  uint32_t q[8], c0[8], c1[8];
  mul_hi_trunc_eo(q, ws->v, b->v, 8);
#pragma unroll
  for (int k = 0; k < 7; k++) c0[k] = 0, c1[k] = q[k];
  c0[7] = 0, c1[7] = 0;
#pragma unroll
  for (int i = 0; i < 8; i++) pp_rows(c0, c1, w->v, b->v[i], i, 8, 0, 7, 7, false, false);
#pragma unroll
  for (int i = 2; i < 8; i++) pp_rows(c0, c1, q, FR_NEGR[i], i, 8, 0, 7, 7, false, false);
  c0[0] = ptx_sub_cc(c0[0], q[0]);
#pragma unroll
  for (int k = 1; k < 7; k++) c0[k] = ptx_subc_cc(c0[k], q[k]);
  c0[7] = ptx_subc(c0[7], q[7]);
  r->v[0] = c0[0];
  r->v[1] = ptx_add_cc(c0[1], c1[0]);
#pragma unroll
  for (int k = 2; k < 7; k++) r->v[k] = ptx_addc_cc(c0[k], c1[k - 1]);
  r->v[7] = ptx_addc(c0[7], c1[6]);
}
/* Montgomery -> canonical integer: a * 1 * R^-1. */
CZK_D void fr_from_mont(fr_t *r, const fr_t *a) {
  const uint32_t one[8] = {1, 0, 0, 0, 0, 0, 0, 0};
  mont_mul_eo(r->v, a->v, one, FF_QR, 8, true);
}
CZK_D void fr_shoup_pair(fr_t *w, fr_t *ws, const fr_t *m) {
  fr_from_mont(w, m);
  mul_lo_eo(ws->v, m->v, FR_NINV256, 8);
}

/* ---------------------------------------------------------------- Fp2 = Fp[u]/(u^2+1) */
/* Karatsuba with lazy reduction: three 768-bit products and two Montgomery reductions (3*144 + 2*156 wide
 * multiply-adds instead of 3*300). P0 = a0 b0, P1 = a1 b1, P2 = (a0 + a1)(b0 + b1) (the sums unreduced: < 2p < 2^382);
 * c1 = P2 - P0 - P1 = a0 b1 + a1 b0 in [0, 2p^2); c0 = P0 - P1, plus p 2^384 when negative, in [0, p 2^384); both
 * below p 2^384, so each reduction ends below 2p and one subtraction finishes it. r may alias a or b. */
CZK_D void add_raw_n(uint32_t *r, const uint32_t *a, const uint32_t *b, const int N) {
  r[0] = ptx_add_cc(a[0], b[0]);
#pragma unroll
  for (int k = 1; k < N - 1; k++) r[k] = ptx_addc_cc(a[k], b[k]);
  r[N - 1] = ptx_addc(a[N - 1], b[N - 1]);
}
CZK_D void fp2_mul_lz(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  uint32_t sa[12], sb[12], P[24], S[24], D[24];
  add_raw_n(sa, a->c0.v, a->c1.v, 12);
  add_raw_n(sb, b->c0.v, b->c1.v, 12);
  mul_wide_eo(S, a->c0.v, b->c0.v, 12); /* P0 */
  mul_wide_eo(P, a->c1.v, b->c1.v, 12); /* P1 */
  D[0] = ptx_sub_cc(S[0], P[0]);
#pragma unroll
  for (int k = 1; k < 24; k++) D[k] = ptx_subc_cc(S[k], P[k]);
  const uint32_t neg = ptx_subc(0, 0);
  S[0] = ptx_add_cc(S[0], P[0]); /* S = P0 + P1 < 2^766 */
#pragma unroll
  for (int k = 1; k < 23; k++) S[k] = ptx_addc_cc(S[k], P[k]);
  S[23] = ptx_addc(S[23], P[23]);
  D[12] = ptx_add_cc(D[12], FF_QP[0] & neg);
#pragma unroll
  for (int k = 1; k < 11; k++) D[12 + k] = ptx_addc_cc(D[12 + k], FF_QP[k] & neg);
  D[23] = ptx_addc(D[23], FF_QP[11] & neg);
  redc_eo(r->c0.v, D, FF_QP, 12);
  mul_wide_eo(P, sa, sb, 12); /* P2 */
  P[0] = ptx_sub_cc(P[0], S[0]);
#pragma unroll
  for (int k = 1; k < 23; k++) P[k] = ptx_subc_cc(P[k], S[k]);
  P[23] = ptx_subc(P[23], S[23]);
  redc_eo(r->c1.v, P, FF_QP, 12);
}
#ifndef FP2_NOINLINE
#define FP2_NOINLINE 0
#endif
#if FP2_NOINLINE
/* FP2_NOINLINE (msm_g2.cu): the product out of line, operands and result by value (passed in registers: no stack
 * frame). The G2 MSM kernels make ~10 products per point addition; inlined, a kernel was 31-54 K instructions
 * (~0.5-0.9 MB of code) and missed the instruction cache: out of line, G2 MSM 2^24 went 408 -> 324 ms on the H200. */
static __device__ __noinline__ fp2_t fp2_mul_nv(const fp2_t a, const fp2_t b) {
  fp2_t r;
  fp2_mul_lz(&r, &a, &b);
  return r;
}
CZK_D void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b) { *r = fp2_mul_nv(*a, *b); }
#else
CZK_D void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b) { fp2_mul_lz(r, a, b); }
#endif
/* (a0+a1)(a0-a1) + 2 a0 a1 u: 2 Fp mul. */
CZK_D void fp2_sqr(fp2_t *r, const fp2_t *a) {
  fp_t s, d, m;
  fp_add(&s, &a->c0, &a->c1);
  fp_sub(&d, &a->c0, &a->c1);
  fp_mul(&m, &a->c0, &a->c1);
  fp_mul(&r->c0, &s, &d);
  fp_dbl(&r->c1, &m);
}
CZK_D void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  fp_add(&r->c0, &a->c0, &b->c0);
  fp_add(&r->c1, &a->c1, &b->c1);
}
CZK_D void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  fp_sub(&r->c0, &a->c0, &b->c0);
  fp_sub(&r->c1, &a->c1, &b->c1);
}
CZK_D void fp2_dbl(fp2_t *r, const fp2_t *a) {
  fp_dbl(&r->c0, &a->c0);
  fp_dbl(&r->c1, &a->c1);
}
CZK_D void fp2_neg(fp2_t *r, const fp2_t *a) {
  fp_neg(&r->c0, &a->c0);
  fp_neg(&r->c1, &a->c1);
}
CZK_D bool fp2_is_zero(const fp2_t *a) { return fp_is_zero(&a->c0) && fp_is_zero(&a->c1); }
CZK_D bool fp2_eq(const fp2_t *a, const fp2_t *b) { return fp_eq(&a->c0, &b->c0) && fp_eq(&a->c1, &b->c1); }
CZK_D void fp2_lds(fp2_t *r, const fp2_t *p) {
  fp_lds(&r->c0, &p->c0);
  fp_lds(&r->c1, &p->c1);
}
CZK_D void fp2_sts(fp2_t *p, const fp2_t *r) {
  fp_sts(&p->c0, &r->c0);
  fp_sts(&p->c1, &r->c1);
}
CZK_D void fp2_set_zero(fp2_t *r) {
  fp_set_zero(&r->c0);
  fp_set_zero(&r->c1);
}
CZK_D void fp2_set_one(fp2_t *r) {
  fp_set_one(&r->c0);
  fp_set_zero(&r->c1);
}
/* (a0 - a1 u) / (a0^2 + a1^2); 0 -> 0. Public data only (Fermat inversion). */
CZK_D void fp2_inv(fp2_t *r, const fp2_t *a) {
  fp_t t0, t1;
  fp_sqr(&t0, &a->c0);
  fp_sqr(&t1, &a->c1);
  fp_add(&t0, &t0, &t1);
  fp_inv(&t0, &t0);
  fp_mul(&r->c0, &a->c0, &t0);
  fp_mul(&t1, &a->c1, &t0);
  fp_neg(&r->c1, &t1);
}

/* 16-byte vector load / store of one Fr element (32-byte aligned arrays). */
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

#endif
