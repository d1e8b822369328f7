/* mont.h: the one Montgomery arithmetic implementation shared by Fp (N = 6 limbs) and Fr (N = 4 limbs).
 *
 * Every function takes the limb count N as its last argument and is always inlined; callers pass a compile-time
 * constant, so each field gets its own fully unrolled copy (the loops carry `#pragma GCC unroll`). Limbs are 64-bit,
 * little-endian; products use unsigned __int128. Internal to src/field.
 *
 * Invariants: the modulus m is odd and m < 2^(64N-1) with its top limb < 2^63 - 1 (true for both BLS12-381 fields:
 * p < 2^381, r < 2^255). Inputs to add/sub/mul are fully reduced (< m); outputs are fully reduced. Nothing branches
 * on limb values: carries are propagated arithmetically and the final corrections are masked selections.
 *
 * Montgomery multiplication (CIOS, Koc et al. 1996) with the "no-carry" shortcut (valid because the top limb of m is
 * < 2^63 - 1, so the running sum never needs an (N+1)-th word): for i < N,
 *     t += a * b[i];  q = t[0] * n0 mod 2^64;  t = (t + q*m) / 2^64
 * followed by one conditional subtraction of m. Result: a*b*2^(-64N) mod m.  Cost: 2N^2 + N 64x64->128 multiplies
 * (78 for Fp, 36 for Fr).  Squaring computes the N(N-1)/2 cross products once, doubles them, adds the N squares
 * (N(N+1)/2 multiplies) and then runs N word-by-word Montgomery reduction steps (N^2 + N multiplies). */
#ifndef CZK_FIELD_MONT_H
#define CZK_FIELD_MONT_H

#include <stdint.h>

#define CZK__INLINE static inline __attribute__((always_inline))
#define CZK__MAXN 6

typedef unsigned __int128 czk__u128;

/* Add/subtract with carry. On x86-64 the _addcarry_u64/_subborrow_u64 intrinsics become adc/sbb chains (GCC turns
 * the equivalent __int128 code into several times more instructions); elsewhere the portable __int128 form. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <x86intrin.h>
CZK__INLINE uint64_t czk__adc(uint64_t a, uint64_t b, uint64_t cin, uint64_t *cout) {
  unsigned long long s;
  *cout = _addcarry_u64((unsigned char)cin, a, b, &s);
  return (uint64_t)s;
}
CZK__INLINE uint64_t czk__sbb(uint64_t a, uint64_t b, uint64_t bin, uint64_t *bout) {
  unsigned long long d;
  *bout = _subborrow_u64((unsigned char)bin, a, b, &d);
  return (uint64_t)d;
}
#else
CZK__INLINE uint64_t czk__adc(uint64_t a, uint64_t b, uint64_t cin, uint64_t *cout) {
  czk__u128 s = (czk__u128)a + b + cin;
  *cout = (uint64_t)(s >> 64);
  return (uint64_t)s;
}
CZK__INLINE uint64_t czk__sbb(uint64_t a, uint64_t b, uint64_t bin, uint64_t *bout) {
  czk__u128 d = (czk__u128)a - b - bin;
  *bout = (uint64_t)(d >> 64) & 1;
  return (uint64_t)d;
}
#endif

/* all-ones when x != 0, else 0 */
CZK__INLINE uint64_t czk__mask_nz(uint64_t x) { return (uint64_t)0 - ((x | ((uint64_t)0 - x)) >> 63); }

/* r = t >= m ? t - m : t, where t < 2m and t has N limbs plus an optional carry word hi (0 or 1). */
CZK__INLINE void czk__mont_final_sub(uint64_t *r, const uint64_t *t, uint64_t hi, const uint64_t *m, int N) {
  uint64_t s[CZK__MAXN];
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) s[i] = czk__sbb(t[i], m[i], borrow, &borrow);
  /* t - m is negative exactly when the subtraction borrowed out and there was no carry word. */
  uint64_t keep_t = (uint64_t)0 - (borrow & (hi ^ 1));
#pragma GCC unroll 8
  for (int i = 0; i < N; i++)
    r[i] = (t[i] & keep_t) | (s[i] & ~keep_t);
}

CZK__INLINE void czk__mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int N) {
  uint64_t t[CZK__MAXN];
  uint64_t c = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) t[i] = czk__adc(a[i], b[i], c, &c);
  czk__mont_final_sub(r, t, c, m, N); /* a + b < 2m < 2^(64N): c is always 0, kept for clarity */
}

/* r = a + b without reduction (r < 2m). Only for feeding a multiplication whose modulus has 4m < 2^(64N) (Fp:
 * p < 2^381): then a*b < 4m^2 < m*R, the CIOS rows still fit in N+1 words and the product comes out fully reduced. */
CZK__INLINE void czk__add_nr(uint64_t *r, const uint64_t *a, const uint64_t *b, int N) {
  uint64_t c = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) r[i] = czk__adc(a[i], b[i], c, &c);
}

CZK__INLINE void czk__mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int N) {
  uint64_t t[CZK__MAXN];
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) t[i] = czk__sbb(a[i], b[i], borrow, &borrow);
  uint64_t mask = (uint64_t)0 - borrow; /* add m back when a < b */
  uint64_t c = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) r[i] = czk__adc(t[i], m[i] & mask, c, &c);
}

/* r = -a mod m (0 stays 0). */
CZK__INLINE void czk__mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, int N) {
  uint64_t nz = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++)
    nz |= a[i];
  uint64_t mask = czk__mask_nz(nz);
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) r[i] = czk__sbb(m[i], a[i], borrow, &borrow) & mask;
}

/* r = a / 2 mod m: (a + (a odd ? m : 0)) >> 1; a + m < 2^(64N) thanks to the spare top bit. */
CZK__INLINE void czk__mont_half(uint64_t *r, const uint64_t *a, const uint64_t *m, int N) {
  uint64_t mask = (uint64_t)0 - (a[0] & 1);
  uint64_t t[CZK__MAXN];
  uint64_t c = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) {
    czk__u128 s = (czk__u128)a[i] + (m[i] & mask) + c;
    t[i] = (uint64_t)s;
    c = (uint64_t)(s >> 64);
  }
#pragma GCC unroll 8
  for (int i = 0; i < N - 1; i++)
    r[i] = (t[i] >> 1) | (t[i + 1] << 63);
  r[N - 1] = (t[N - 1] >> 1) | (c << 63);
}

/* r = a*b*R^-1 mod m (CIOS, no-carry variant). r may alias a or b. */
CZK__INLINE void czk__mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, uint64_t n0,
                               int N) {
  uint64_t t[CZK__MAXN] = {0};
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) {
    czk__u128 p = (czk__u128)a[0] * b[i] + t[0];
    uint64_t A = (uint64_t)(p >> 64);
    uint64_t lo = (uint64_t)p;
    uint64_t q = lo * n0;
    p = (czk__u128)q * m[0] + lo;
    uint64_t C = (uint64_t)(p >> 64);
#pragma GCC unroll 8
    for (int j = 1; j < N; j++) {
      p = (czk__u128)a[j] * b[i] + t[j] + A;
      A = (uint64_t)(p >> 64);
      p = (czk__u128)q * m[j] + (uint64_t)p + C;
      C = (uint64_t)(p >> 64);
      t[j - 1] = (uint64_t)p;
    }
    t[N - 1] = C + A;
  }
  czk__mont_final_sub(r, t, 0, m, N);
}

/* Montgomery reduction of a 2N-limb value w < m*2^(64N): r = w * R^-1 mod m. w is clobbered. */
CZK__INLINE void czk__mont_redc(uint64_t *r, uint64_t *w, const uint64_t *m, uint64_t n0, int N) {
  uint64_t hi = 0; /* carry out of the top of w accumulated by the reduction steps */
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) {
    uint64_t q = w[i] * n0;
    czk__u128 p = (czk__u128)q * m[0] + w[i];
    uint64_t c = (uint64_t)(p >> 64);
#pragma GCC unroll 8
    for (int j = 1; j < N; j++) {
      p = (czk__u128)q * m[j] + w[i + j] + c;
      w[i + j] = (uint64_t)p;
      c = (uint64_t)(p >> 64);
    }
    /* add c at w[i+N], propagating the carry into the next word of this step only via hi */
    czk__u128 s = (czk__u128)w[i + N] + c + hi;
    w[i + N] = (uint64_t)s;
    hi = (uint64_t)(s >> 64);
  }
  czk__mont_final_sub(r, w + N, hi, m, N);
}

/* r = a^2 * R^-1 mod m. r may alias a. */
CZK__INLINE void czk__mont_sqr(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t n0, int N) {
  uint64_t w[2 * CZK__MAXN];
  /* cross products a[i]*a[j], i < j */
#pragma GCC unroll 12
  for (int i = 0; i < 2 * N; i++)
    w[i] = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N - 1; i++) {
    uint64_t c = 0;
#pragma GCC unroll 8
    for (int j = i + 1; j < N; j++) {
      czk__u128 p = (czk__u128)a[i] * a[j] + w[i + j] + c;
      w[i + j] = (uint64_t)p;
      c = (uint64_t)(p >> 64);
    }
    w[i + N] = c;
  }
  /* double them */
  w[2 * N - 1] = w[2 * N - 2] >> 63;
#pragma GCC unroll 12
  for (int i = 2 * N - 2; i > 1; i--)
    w[i] = (w[i] << 1) | (w[i - 1] >> 63);
  w[1] <<= 1;
  /* add the squares a[i]^2 at position 2i */
  uint64_t c = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) {
    czk__u128 p = (czk__u128)a[i] * a[i];
    czk__u128 s = (czk__u128)w[2 * i] + (uint64_t)p + c;
    w[2 * i] = (uint64_t)s;
    s = (czk__u128)w[2 * i + 1] + (uint64_t)(p >> 64) + (uint64_t)(s >> 64);
    w[2 * i + 1] = (uint64_t)s;
    c = (uint64_t)(s >> 64);
  }
  czk__mont_redc(r, w, m, n0, N);
}

/* r = c ? b : a */
CZK__INLINE void czk__limbs_cmov(uint64_t *r, const uint64_t *a, const uint64_t *b, uint64_t c, int N) {
  uint64_t mask = (uint64_t)0 - (c & 1);
#pragma GCC unroll 8
  for (int i = 0; i < N; i++)
    r[i] = (a[i] & ~mask) | (b[i] & mask);
}

/* 1 when a == b, else 0 (constant-time) */
CZK__INLINE uint64_t czk__limbs_eq(const uint64_t *a, const uint64_t *b, int N) {
  uint64_t d = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++)
    d |= a[i] ^ b[i];
  return 1 ^ (czk__mask_nz(d) & 1);
}

/* 1 when a < b as integers, else 0 (constant-time) */
CZK__INLINE uint64_t czk__limbs_lt(const uint64_t *a, const uint64_t *b, int N) {
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) (void)czk__sbb(a[i], b[i], borrow, &borrow);
  return borrow;
}

#endif
