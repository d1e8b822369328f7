/* safegcd.h: modular inversion by Bernstein-Yang "divsteps" (safegcd, "Fast constant-time gcd computation and
 * modular inversion", 2019), in batches of 62 steps on 64-bit words. Shared by Fp (L = 7 limbs) and Fr (L = 5);
 * every function takes the limb count L as a compile-time constant and is always inlined. Internal to src/field.
 *
 * Numbers are "signed-62": x = sum x[i] 2^(62 i), limbs 0..L-2 in [0, 2^62), the top limb a signed int64 (so 7
 * limbs hold any |x| < 2^434, 5 limbs any |x| < 2^310).
 *
 * Inverse of g modulo an odd M (0 <= g < M): start f = M, g, d = 0, e = E (here E = R^2 mod M: the output is then
 * g^-1 R^2, which for a Montgomery input g = xR is x^-1 R, the Montgomery form of the inverse). Invariants, for
 * every batch:  f == d g E^-1 * ... more precisely  f * E == d * g  and  g_cur * E == e * g  (mod M),
 * both kept by applying to (d, e) the same 2x2 transition matrix as to (f, g), divided by 2^62 mod M.
 * When g reaches 0, f = +-gcd = +-1 and d = +-g^-1 E. For g = 0 the result is d = 0.
 *
 * One divstep (half-delta variant "hddivsteps", Wuille, github.com/sipa/safegcd-bounds: delta starts at 1/2):
 *     delta > 0 and g odd:  (delta, f, g) <- (1 - delta, g, (g - f)/2)
 *     g odd:                (delta, f, g) <- (1 + delta, f, (g + f)/2)
 *     g even:               (delta, f, g) <- (1 + delta, f, g/2)
 * The first k steps depend only on the low k bits of f and g, so 62 of them run on the low words alone and yield
 * a matrix T = [u v; q r] with 2^62 (f', g') = T (f, g), |u| + |v| <= 2^62, |q| + |r| <= 2^62; T is then applied
 * to the full numbers (update_fg: 2L products each for f and g; update_de: the same plus the multiple of M that
 * makes the sum divisible by 2^62, chosen with M^-1 mod 2^62).
 *
 * Constant time (inv): a fixed number of batches. For 0 <= g <= f <= M the number of hddivsteps needed is at most
 * floor((3787 log2(M) + 2166) / 1644) (sipa/safegcd-bounds, computer-verified for all M <= 2^3805): 878 for p
 * (381 bits) and 588 for r (255 bits), so 15 and 10 batches of 62. Extra steps after g = 0 change nothing (g stays
 * 0, f stays put). The divstep loop is branch-free (masks), the matrix application has no data-dependent control
 * flow, and the final normalisation uses masks.
 *
 * Variable time (inv_vartime): the original divsteps (delta starts at 1), with runs of zero bits of g skipped by
 * count-trailing-zeros and up to 4 (delta <= 0) or 6 (after a swap) odd steps merged into one g += w f with
 * w = -g/f mod 2^k; stops as soon as g = 0.
 *
 * Ranges: d, e stay in (-2M, M) (update_de adds u M for d < 0 and v M for e < 0, then subtracts the multiple
 * k M, 0 <= k < 2^62, that clears the low 62 bits: |u d' + v e'| < 2^62 M for d', e' in (-M, M) gives a result in
 * (-2M, M)); all int128 sums stay below 2^127. Costs per batch: 62 divsteps (~10 simple instructions each, ct) +
 * 4L + 4L + 2 64x64->128 multiplications; Fp inverse ~15 * (62 steps + 58 multiplications). */
#ifndef CZK_FIELD_SAFEGCD_H
#define CZK_FIELD_SAFEGCD_H

#include <stdint.h>

#include "field/mont.h"

#define CZK__SG_MAXL 7
#define CZK__SG_M62 (((uint64_t)1 << 62) - 1)

typedef __int128 czk__i128;

typedef struct {
  int64_t u, v, q, r;
} czk__sg_t;

/* 62 constant-time hddivsteps on the low words f, g. zeta = -(delta + 1/2) (so zeta < 0 iff delta > 0); returns the
 * new zeta and writes the transition matrix. The arithmetic is done on uint64_t (mod 2^64, no signed overflow);
 * the matrix entries fit int64 (|u| + |v| <= 2^62). */
CZK__INLINE int64_t czk__sg_divsteps_62(int64_t zeta, uint64_t f, uint64_t g, czk__sg_t *t) {
  uint64_t u = 1, v = 0, q = 0, r = 1;
  uint64_t z = (uint64_t)zeta;
  for (int i = 0; i < 62; i++) {
    uint64_t c1 = (uint64_t)((int64_t)z >> 63); /* all ones when delta > 0 */
    uint64_t c2 = (uint64_t)0 - (g & 1);         /* all ones when g is odd */
    uint64_t x = (f ^ c1) - c1;                  /* delta > 0 ? -f : f */
    uint64_t y = (u ^ c1) - c1;
    uint64_t w = (v ^ c1) - c1;
    g += x & c2; /* g odd: g - f (swap case) or g + f */
    q += y & c2;
    r += w & c2;
    c1 &= c2;            /* swap: delta > 0 and g odd */
    z = (z ^ c1) - 1;    /* swap: zeta = -zeta - 2 (delta = 1 - delta); else zeta - 1 (delta + 1) */
    f += g & c1;         /* swap: f + (g - f) = old g */
    u += q & c1;         /* swap: u + (q - u) = q */
    v += r & c1;
    g >>= 1;
    u <<= 1;
    v <<= 1;
  }
  t->u = (int64_t)u;
  t->v = (int64_t)v;
  t->q = (int64_t)q;
  t->r = (int64_t)r;
  return (int64_t)z;
}

/* Up to 62 original divsteps, variable time (see the file comment); eta = -delta. Returns the new eta. */
CZK__INLINE int64_t czk__sg_divsteps_62_var(int64_t eta, uint64_t f, uint64_t g, czk__sg_t *t) {
  uint64_t u = 1, v = 0, q = 0, r = 1;
  int i = 62;
  for (;;) {
    /* a run of even g: halve g (at most i times), double the f row */
    int zeros = __builtin_ctzll(g | ((uint64_t)-1 << i));
    g >>= zeros;
    u <<= zeros;
    v <<= zeros;
    eta -= zeros;
    i -= zeros;
    if (i == 0) break;
    /* g is odd */
    int limit;
    uint64_t w;
    if (eta < 0) {
      /* delta > 0: swap to (g, -f), after which the step is g += f; delta <- -delta */
      uint64_t tmp;
      eta = -eta;
      tmp = f;
      f = g;
      g = (uint64_t)0 - tmp;
      tmp = u;
      u = q;
      q = (uint64_t)0 - tmp;
      tmp = v;
      v = r;
      r = (uint64_t)0 - tmp;
      limit = ((int)eta + 1) > i ? i : ((int)eta + 1);
      /* f (f^2 - 2) = -f^-1 mod 64 for odd f (f^2 = 1 mod 8) */
      w = (f * g * (f * f - 2)) & ((uint64_t)-1 >> (64 - limit)) & 63;
    } else {
      limit = ((int)eta + 1) > i ? i : ((int)eta + 1);
      /* f + ((f + 1) & 4) * 2 = f^-1 mod 16 for odd f */
      w = f + (((f + 1) & 4) << 1);
      w = ((uint64_t)0 - w * g) & ((uint64_t)-1 >> (64 - limit)) & 15;
    }
    /* w = -g/f mod 2^k (k <= limit): the next k steps are "g odd, delta <= 0: g += f" or "g even" */
    g += f * w;
    q += u * w;
    r += v * w;
  }
  t->u = (int64_t)u;
  t->v = (int64_t)v;
  t->q = (int64_t)q;
  t->r = (int64_t)r;
  return eta;
}

/* (f, g) <- T (f, g) / 2^62 (exact). */
CZK__INLINE void czk__sg_update_fg(int64_t *f, int64_t *g, const czk__sg_t *t, int L) {
  const int64_t u = t->u, v = t->v, q = t->q, r = t->r;
  czk__i128 cf = (czk__i128)u * f[0] + (czk__i128)v * g[0];
  czk__i128 cg = (czk__i128)q * f[0] + (czk__i128)r * g[0];
  cf >>= 62;
  cg >>= 62;
#pragma GCC unroll 8
  for (int i = 1; i < L; i++) {
    cf += (czk__i128)u * f[i] + (czk__i128)v * g[i];
    cg += (czk__i128)q * f[i] + (czk__i128)r * g[i];
    f[i - 1] = (int64_t)((uint64_t)cf & CZK__SG_M62);
    g[i - 1] = (int64_t)((uint64_t)cg & CZK__SG_M62);
    cf >>= 62;
    cg >>= 62;
  }
  f[L - 1] = (int64_t)cf;
  g[L - 1] = (int64_t)cg;
}

/* Same on the first len limbs only (the rest are sign extension): variable-time callers shrink len as f, g shrink. */
CZK__INLINE void czk__sg_update_fg_len(int64_t *f, int64_t *g, int len, const czk__sg_t *t) {
  const int64_t u = t->u, v = t->v, q = t->q, r = t->r;
  czk__i128 cf = (czk__i128)u * f[0] + (czk__i128)v * g[0];
  czk__i128 cg = (czk__i128)q * f[0] + (czk__i128)r * g[0];
  cf >>= 62;
  cg >>= 62;
  for (int i = 1; i < len; i++) {
    cf += (czk__i128)u * f[i] + (czk__i128)v * g[i];
    cg += (czk__i128)q * f[i] + (czk__i128)r * g[i];
    f[i - 1] = (int64_t)((uint64_t)cf & CZK__SG_M62);
    g[i - 1] = (int64_t)((uint64_t)cg & CZK__SG_M62);
    cf >>= 62;
    cg >>= 62;
  }
  f[len - 1] = (int64_t)cf;
  g[len - 1] = (int64_t)cg;
}

/* (d, e) <- T (d, e) / 2^62 mod M, for d, e in (-2M, M); the results are again in (-2M, M). m: M in signed-62
 * limbs, minv = M^-1 mod 2^62. */
CZK__INLINE void czk__sg_update_de(int64_t *d, int64_t *e, const czk__sg_t *t, const int64_t *m, uint64_t minv,
                                   int L) {
  const int64_t u = t->u, v = t->v, q = t->q, r = t->r;
  const int64_t sd = d[L - 1] >> 63, se = e[L - 1] >> 63; /* all ones when negative */
  /* md, me: multiples of M to add. Start with u [d < 0] + v [e < 0] (moves d, e into (-M, M) in effect) ... */
  int64_t md = (u & sd) + (v & se);
  int64_t me = (q & sd) + (r & se);
  czk__i128 cd = (czk__i128)u * d[0] + (czk__i128)v * e[0];
  czk__i128 ce = (czk__i128)q * d[0] + (czk__i128)r * e[0];
  /* ... then subtract k in [0, 2^62) with (cd + (md - k) M) = 0 mod 2^62, i.e. k = cd M^-1 + md mod 2^62 */
  md -= (int64_t)((minv * (uint64_t)cd + (uint64_t)md) & CZK__SG_M62);
  me -= (int64_t)((minv * (uint64_t)ce + (uint64_t)me) & CZK__SG_M62);
  cd += (czk__i128)m[0] * md;
  ce += (czk__i128)m[0] * me;
  cd >>= 62;
  ce >>= 62;
#pragma GCC unroll 8
  for (int i = 1; i < L; i++) {
    cd += (czk__i128)u * d[i] + (czk__i128)v * e[i] + (czk__i128)m[i] * md;
    ce += (czk__i128)q * d[i] + (czk__i128)r * e[i] + (czk__i128)m[i] * me;
    d[i - 1] = (int64_t)((uint64_t)cd & CZK__SG_M62);
    e[i - 1] = (int64_t)((uint64_t)ce & CZK__SG_M62);
    cd >>= 62;
    ce >>= 62;
  }
  d[L - 1] = (int64_t)cd;
  e[L - 1] = (int64_t)ce;
}

/* Carry-normalise x so that limbs 0..L-2 are in [0, 2^62) (arithmetic shifts carry signed overflow upward). */
CZK__INLINE void czk__sg_carry(int64_t *x, int L) {
#pragma GCC unroll 8
  for (int i = 0; i < L - 1; i++) {
    x[i + 1] += x[i] >> 62;
    x[i] = (int64_t)((uint64_t)x[i] & CZK__SG_M62);
  }
}

/* d in (-2M, M), fneg all ones when f = -1: returns d or -d reduced into [0, M) (constant-time). */
CZK__INLINE void czk__sg_normalize(int64_t *d, int64_t fneg, const int64_t *m, int L) {
  int64_t s = d[L - 1] >> 63; /* d < 0: d += M -> (-M, M) */
#pragma GCC unroll 8
  for (int i = 0; i < L; i++)
    d[i] += m[i] & s;
  czk__sg_carry(d, L);
#pragma GCC unroll 8
  for (int i = 0; i < L; i++) /* f = -1: d = -d, still in (-M, M) */
    d[i] = (d[i] ^ fneg) - fneg;
  czk__sg_carry(d, L);
  s = d[L - 1] >> 63; /* d < 0: d += M -> [0, M) */
#pragma GCC unroll 8
  for (int i = 0; i < L; i++)
    d[i] += m[i] & s;
  czk__sg_carry(d, L);
}

/* N 64-bit limbs (value < 2^(62 L - 1)) -> L signed-62 limbs, and back (x non-negative, < 2^(64 N)). */
CZK__INLINE void czk__sg_from_u64(int64_t *x, const uint64_t *a, int N, int L) {
#pragma GCC unroll 8
  for (int i = 0; i < L; i++) {
    int bit = 62 * i, w = bit / 64, s = bit % 64;
    uint64_t lo = w < N ? a[w] >> s : 0;
    uint64_t hi = (s > 2 && w + 1 < N) ? a[w + 1] << (64 - s) : 0;
    x[i] = (int64_t)((lo | hi) & CZK__SG_M62);
  }
}
CZK__INLINE void czk__sg_to_u64(uint64_t *a, const int64_t *x, int N, int L) {
#pragma GCC unroll 8
  for (int j = 0; j < N; j++) {
    int bit = 64 * j, i = bit / 62, s = bit % 62;
    uint64_t lo = (uint64_t)x[i] >> s;
    uint64_t hi = i + 1 < L ? (uint64_t)x[i + 1] << (62 - s) : 0; /* s <= 60: two limbs cover 64 bits */
    a[j] = lo | hi;
  }
}

/* Constant-time inverse: out = a^-1 E mod M (0 -> 0), a < M given as N 64-bit limbs, E in signed-62 limbs. */
CZK__INLINE void czk__sg_inv(uint64_t *out, const uint64_t *a, const int64_t *m, uint64_t minv, const int64_t *E,
                             int batches, int N, int L) {
  int64_t f[CZK__SG_MAXL], g[CZK__SG_MAXL], d[CZK__SG_MAXL] = {0}, e[CZK__SG_MAXL];
  for (int i = 0; i < L; i++) {
    f[i] = m[i];
    e[i] = E[i];
  }
  czk__sg_from_u64(g, a, N, L);
  int64_t zeta = -1; /* delta = 1/2 */
  czk__sg_t t;
  for (int b = 0; b < batches; b++) {
    zeta = czk__sg_divsteps_62(zeta, (uint64_t)f[0], (uint64_t)g[0], &t);
    czk__sg_update_de(d, e, &t, m, minv, L);
    czk__sg_update_fg(f, g, &t, L);
  }
  /* g = 0 and f = +-1 (or f = M, d = 0 for a = 0) */
  czk__sg_normalize(d, f[L - 1] >> 63, m, L);
  czk__sg_to_u64(out, d, N, L);
}

/* Variable-time inverse, same contract (a public). */
CZK__INLINE void czk__sg_inv_var(uint64_t *out, const uint64_t *a, const int64_t *m, uint64_t minv, const int64_t *E,
                                 int N, int L) {
  int64_t f[CZK__SG_MAXL], g[CZK__SG_MAXL], d[CZK__SG_MAXL] = {0}, e[CZK__SG_MAXL];
  for (int i = 0; i < L; i++) {
    f[i] = m[i];
    e[i] = E[i];
  }
  czk__sg_from_u64(g, a, N, L);
  int64_t eta = -1; /* delta = 1 */
  int len = L;
  czk__sg_t t;
  for (;;) {
    uint64_t nz = 0;
    for (int i = 0; i < len; i++)
      nz |= (uint64_t)g[i];
    if (nz == 0) break;
    eta = czk__sg_divsteps_62_var(eta, (uint64_t)f[0], (uint64_t)g[0], &t);
    czk__sg_update_de(d, e, &t, m, minv, L);
    czk__sg_update_fg_len(f, g, len, &t);
    /* When the top limbs of f and g are both 0 or -1 (pure sign), fold them into the limb below, which becomes the
     * signed top limb (value in [-2^62, 2^62)); max(|f|, |g|) never grows, so later top limbs stay in range. */
    if (len > 1) {
      int64_t fn = f[len - 1], gn = g[len - 1];
      if ((fn == 0 || fn == -1) && (gn == 0 || gn == -1)) {
        f[len - 2] = (int64_t)((uint64_t)f[len - 2] | ((uint64_t)fn << 62));
        g[len - 2] = (int64_t)((uint64_t)g[len - 2] | ((uint64_t)gn << 62));
        len--;
      }
    }
  }
  /* f = +-1 sits in limb 0 now or in the sign of its top limb */
  czk__sg_normalize(d, f[len - 1] >> 63, m, L);
  czk__sg_to_u64(out, d, N, L);
}

#endif
