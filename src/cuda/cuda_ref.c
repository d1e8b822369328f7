/* cuda_ref.c: the host reference arithmetic of cuda_ref.h (see there). Montgomery multiplication is CIOS over 64-bit
 * limbs with unsigned __int128 (N = 6 for Fp, 4 for Fr: N*(2N+1) 64x64 products); addition/subtraction with one
 * conditional correction; inversion by Fermat (a^(m-2)). Fp2 = Fp[u]/(u^2+1): Karatsuba multiplication (3M). */
#include "cuda/cuda_ref.h"

#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

static const uint64_t FP_M[6] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                 0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
static const uint64_t FP_N0 = 0x89f3fffcfffcfffdULL;
static const uint64_t FP_R2[6] = {0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
                                  0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL};
static const uint64_t FR_M[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                 0x73eda753299d7d48ULL};
static const uint64_t FR_N0 = 0xfffffffeffffffffULL;
static const uint64_t FR_R2[4] = {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL,
                                  0x0748d9d99f59ff11ULL};

static void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, uint64_t n0, int N) {
  uint64_t t[8] = {0};
  for (int i = 0; i < N; i++) {
    u128 c = 0;
    for (int j = 0; j < N; j++) {
      c += (u128)a[j] * b[i] + t[j];
      t[j] = (uint64_t)c;
      c >>= 64;
    }
    c += t[N];
    t[N] = (uint64_t)c;
    t[N + 1] = (uint64_t)(c >> 64);
    uint64_t q = t[0] * n0;
    c = ((u128)q * m[0] + t[0]) >> 64;
    for (int j = 1; j < N; j++) {
      c += (u128)q * m[j] + t[j];
      t[j - 1] = (uint64_t)c;
      c >>= 64;
    }
    c += t[N];
    t[N - 1] = (uint64_t)c;
    t[N] = t[N + 1] + (uint64_t)(c >> 64);
  }
  uint64_t s[6], bw = 0;
  for (int j = 0; j < N; j++) {
    u128 d = (u128)t[j] - m[j] - bw;
    s[j] = (uint64_t)d;
    bw = (uint64_t)(d >> 64) & 1;
  }
  bool keep = t[N] == 0 && bw; /* t < m */
  for (int j = 0; j < N; j++) r[j] = keep ? t[j] : s[j];
}
static void mod_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int N) {
  uint64_t t[6], s[6], c = 0, bw = 0;
  for (int j = 0; j < N; j++) {
    u128 d = (u128)a[j] + b[j] + c;
    t[j] = (uint64_t)d;
    c = (uint64_t)(d >> 64);
  }
  for (int j = 0; j < N; j++) {
    u128 d = (u128)t[j] - m[j] - bw;
    s[j] = (uint64_t)d;
    bw = (uint64_t)(d >> 64) & 1;
  }
  bool keep = !c && bw;
  for (int j = 0; j < N; j++) r[j] = keep ? t[j] : s[j];
}
static void mod_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int N) {
  uint64_t t[6], bw = 0, c = 0;
  for (int j = 0; j < N; j++) {
    u128 d = (u128)a[j] - b[j] - bw;
    t[j] = (uint64_t)d;
    bw = (uint64_t)(d >> 64) & 1;
  }
  for (int j = 0; j < N; j++) {
    u128 d = (u128)t[j] + (bw ? m[j] : 0) + c;
    r[j] = (uint64_t)d;
    c = (uint64_t)(d >> 64);
  }
}
static bool is_zero(const uint64_t *a, int N) {
  uint64_t acc = 0;
  for (int j = 0; j < N; j++) acc |= a[j];
  return acc == 0;
}

/* ---------------------------------------------------------------- Fp */
void czk__cr_fp_mul(czk_fp *r, const czk_fp *a, const czk_fp *b) { mont_mul(r->l, a->l, b->l, FP_M, FP_N0, 6); }
void czk__cr_fp_add(czk_fp *r, const czk_fp *a, const czk_fp *b) { mod_add(r->l, a->l, b->l, FP_M, 6); }
void czk__cr_fp_sub(czk_fp *r, const czk_fp *a, const czk_fp *b) { mod_sub(r->l, a->l, b->l, FP_M, 6); }
bool czk__cr_fp_is_zero(const czk_fp *a) { return is_zero(a->l, 6); }
void czk__cr_fp_from_raw(czk_fp *r, const uint64_t in[6]) {
  uint64_t t[6];
  memcpy(t, in, sizeof t);
  mont_mul(r->l, t, FP_R2, FP_M, FP_N0, 6);
}
void czk__cr_fp_to_raw(uint64_t out[6], const czk_fp *a) {
  const uint64_t one[6] = {1, 0, 0, 0, 0, 0};
  mont_mul(out, a->l, one, FP_M, FP_N0, 6);
}
void czk__cr_fp_one(czk_fp *r) {
  const uint64_t one[6] = {1, 0, 0, 0, 0, 0};
  czk__cr_fp_from_raw(r, one);
}
void czk__cr_fp_inv(czk_fp *r, const czk_fp *a) {
  uint64_t e[6];
  memcpy(e, FP_M, sizeof e);
  e[0] -= 2;
  czk_fp acc, base = *a;
  czk__cr_fp_one(&acc);
  for (int i = 383; i >= 0; i--) {
    czk__cr_fp_mul(&acc, &acc, &acc);
    if ((e[i / 64] >> (i % 64)) & 1) czk__cr_fp_mul(&acc, &acc, &base);
  }
  *r = acc;
}

/* ---------------------------------------------------------------- Fr */
void czk__cr_fr_mul(czk_fr *r, const czk_fr *a, const czk_fr *b) { mont_mul(r->l, a->l, b->l, FR_M, FR_N0, 4); }
void czk__cr_fr_add(czk_fr *r, const czk_fr *a, const czk_fr *b) { mod_add(r->l, a->l, b->l, FR_M, 4); }
void czk__cr_fr_sub(czk_fr *r, const czk_fr *a, const czk_fr *b) { mod_sub(r->l, a->l, b->l, FR_M, 4); }
void czk__cr_fr_from_raw(czk_fr *r, const uint64_t in[4]) {
  uint64_t t[4];
  memcpy(t, in, sizeof t);
  mont_mul(r->l, t, FR_R2, FR_M, FR_N0, 4);
}
void czk__cr_fr_to_raw(uint64_t out[4], const czk_fr *a) {
  const uint64_t one[4] = {1, 0, 0, 0};
  mont_mul(out, a->l, one, FR_M, FR_N0, 4);
}
void czk__cr_fr_from_u64(czk_fr *r, uint64_t v) {
  const uint64_t t[4] = {v, 0, 0, 0};
  czk__cr_fr_from_raw(r, t);
}
void czk__cr_fr_one(czk_fr *r) { czk__cr_fr_from_u64(r, 1); }
void czk__cr_fr_pow(czk_fr *r, const czk_fr *a, const uint64_t *e, size_t limbs) {
  czk_fr acc, base = *a;
  czk__cr_fr_one(&acc);
  for (size_t i = limbs * 64; i-- > 0;) {
    czk__cr_fr_mul(&acc, &acc, &acc);
    if ((e[i / 64] >> (i % 64)) & 1) czk__cr_fr_mul(&acc, &acc, &base);
  }
  *r = acc;
}
void czk__cr_fr_inv(czk_fr *r, const czk_fr *a) {
  uint64_t e[4];
  memcpy(e, FR_M, sizeof e);
  e[0] -= 2;
  czk__cr_fr_pow(r, a, e, 4);
}
static bool raw_ge_r(const uint64_t s[4]) {
  for (int j = 3; j >= 0; j--) {
    if (s[j] != FR_M[j]) return s[j] > FR_M[j];
  }
  return true;
}
static void raw_sub_r(uint64_t s[4]) {
  uint64_t bw = 0;
  for (int j = 0; j < 4; j++) {
    u128 d = (u128)s[j] - FR_M[j] - bw;
    s[j] = (uint64_t)d;
    bw = (uint64_t)(d >> 64) & 1;
  }
}
void czk__cr_fr_raw_reduce(uint64_t s[4]) {
  s[3] &= 0x7fffffffffffffffULL; /* < 2^255 < 2r: one subtraction suffices */
  if (raw_ge_r(s)) raw_sub_r(s);
}
void czk__cr_fr_raw_add(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
  uint64_t c = 0;
  for (int j = 0; j < 4; j++) {
    u128 d = (u128)a[j] + b[j] + c;
    r[j] = (uint64_t)d;
    c = (uint64_t)(d >> 64);
  }
  if (raw_ge_r(r)) raw_sub_r(r); /* a + b < 2r < 2^256: no carry out */
}
void czk__cr_fr_root(czk_fr *r, unsigned log_n, czk_fr_roots kind) {
  /* t = (r - 1) / 2^32 */
  const uint64_t t[4] = {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL, 0x299d7d483339d808ULL,
                         0x0000000073eda753ULL};
  czk_fr g, w;
  czk__cr_fr_from_u64(&g, kind == CZK_ROOTS_SNARKJS ? 5 : 7);
  czk__cr_fr_pow(&w, &g, t, 4);
  for (unsigned i = log_n; i < 32; i++) czk__cr_fr_mul(&w, &w, &w);
  *r = w;
}

/* ---------------------------------------------------------------- Fp2 */
void czk__cr_fp2_mul(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
  czk_fp t0, t1, s0, s1;
  czk__cr_fp_mul(&t0, &a->c0, &b->c0);
  czk__cr_fp_mul(&t1, &a->c1, &b->c1);
  czk__cr_fp_add(&s0, &a->c0, &a->c1);
  czk__cr_fp_add(&s1, &b->c0, &b->c1);
  czk__cr_fp_mul(&s0, &s0, &s1);
  czk__cr_fp_sub(&r->c0, &t0, &t1);
  czk__cr_fp_sub(&s0, &s0, &t0);
  czk__cr_fp_sub(&r->c1, &s0, &t1);
}
void czk__cr_fp2_inv(czk_fp2 *r, const czk_fp2 *a) {
  czk_fp t0, t1, z;
  czk__cr_fp_mul(&t0, &a->c0, &a->c0);
  czk__cr_fp_mul(&t1, &a->c1, &a->c1);
  czk__cr_fp_add(&t0, &t0, &t1);
  czk__cr_fp_inv(&t0, &t0);
  memset(&z, 0, sizeof z);
  czk__cr_fp_mul(&r->c0, &a->c0, &t0);
  czk__cr_fp_mul(&t1, &a->c1, &t0);
  czk__cr_fp_sub(&r->c1, &z, &t1);
}

/* Field shims with uniform names for cuda_ref_ec.inc. */
static void cr_fp_mul(czk_fp *r, const czk_fp *a, const czk_fp *b) { czk__cr_fp_mul(r, a, b); }
static void cr_fp_sqr(czk_fp *r, const czk_fp *a) { czk__cr_fp_mul(r, a, a); }
static void cr_fp_add(czk_fp *r, const czk_fp *a, const czk_fp *b) { czk__cr_fp_add(r, a, b); }
static void cr_fp_sub(czk_fp *r, const czk_fp *a, const czk_fp *b) { czk__cr_fp_sub(r, a, b); }
static void cr_fp_inv(czk_fp *r, const czk_fp *a) { czk__cr_fp_inv(r, a); }
static void cr_fp_one(czk_fp *r) { czk__cr_fp_one(r); }
static bool cr_fp_is_zero(const czk_fp *a) { return is_zero(a->l, 6); }
static bool cr_fp_eq(const czk_fp *a, const czk_fp *b) { return memcmp(a, b, sizeof *a) == 0; }
static void cr_fp_b(czk_fp *r) { czk_fp one; cr_fp_one(&one); cr_fp_add(r, &one, &one); cr_fp_add(r, r, r); }

static void cr_fp2_mul(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) { czk__cr_fp2_mul(r, a, b); }
static void cr_fp2_sqr(czk_fp2 *r, const czk_fp2 *a) { czk__cr_fp2_mul(r, a, a); }
static void cr_fp2_add(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
  cr_fp_add(&r->c0, &a->c0, &b->c0);
  cr_fp_add(&r->c1, &a->c1, &b->c1);
}
static void cr_fp2_sub(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
  cr_fp_sub(&r->c0, &a->c0, &b->c0);
  cr_fp_sub(&r->c1, &a->c1, &b->c1);
}
static void cr_fp2_inv(czk_fp2 *r, const czk_fp2 *a) { czk__cr_fp2_inv(r, a); }
static void cr_fp2_one(czk_fp2 *r) { cr_fp_one(&r->c0); memset(&r->c1, 0, sizeof r->c1); }
static bool cr_fp2_is_zero(const czk_fp2 *a) { return cr_fp_is_zero(&a->c0) && cr_fp_is_zero(&a->c1); }
static bool cr_fp2_eq(const czk_fp2 *a, const czk_fp2 *b) { return memcmp(a, b, sizeof *a) == 0; }
static void cr_fp2_b(czk_fp2 *r) { cr_fp_b(&r->c0); r->c1 = r->c0; } /* 4(u+1) */

#define G g1
#define F fp
#define GT czk_g1
#define FT czk_fp
#define AT czk_g1_affine
#define XT czk_g1_xyzz
#define B cr_fp_b
#include "cuda/cuda_ref_ec.inc"
#undef G
#undef F
#undef GT
#undef FT
#undef AT
#undef XT
#undef B
#define G g2
#define F fp2
#define GT czk_g2
#define FT czk_fp2
#define AT czk_g2_affine
#define XT czk_g2_xyzz
#define B cr_fp2_b
#include "cuda/cuda_ref_ec.inc"
#undef G
#undef F
#undef GT
#undef FT
#undef AT
#undef XT
#undef B

static void fp_hex(czk_fp *r, const char *hex) {
  uint64_t raw[6] = {0};
  size_t len = strlen(hex);
  for (size_t i = 0; i < len; i++) {
    char ch = hex[len - 1 - i];
    uint64_t v = (ch >= '0' && ch <= '9') ? (uint64_t)(ch - '0') : (uint64_t)((ch | 32) - 'a' + 10);
    raw[i / 16] |= v << (4 * (i % 16));
  }
  czk__cr_fp_from_raw(r, raw);
}

void czk__cr_g1_generator(czk_g1 *r) {
  fp_hex(&r->x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
  fp_hex(&r->y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
  czk__cr_fp_one(&r->z);
}
void czk__cr_g2_generator(czk_g2 *r) {
  fp_hex(&r->x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
  fp_hex(&r->x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
  fp_hex(&r->y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
  fp_hex(&r->y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
  cr_fp2_one(&r->z);
}

static unsigned bitrev(unsigned x, unsigned bits) {
  unsigned r = 0;
  for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1u) << (bits - 1 - i);
  return r;
}
void czk__cr_ntt(czk_fr *a, unsigned log_n, const czk_fr *w) {
  size_t n = (size_t)1 << log_n;
  for (size_t i = 0; i < n; i++) {
    size_t j = bitrev((unsigned)i, log_n);
    if (i < j) {
      czk_fr t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (unsigned s = 1; s <= log_n; s++) {
    size_t len = (size_t)1 << s, half = len / 2;
    czk_fr wl = *w; /* w^(n/len) */
    for (unsigned k = s; k < log_n; k++) czk__cr_fr_mul(&wl, &wl, &wl);
    for (size_t b = 0; b < n; b += len) {
      czk_fr tw;
      czk__cr_fr_one(&tw);
      for (size_t j = 0; j < half; j++) {
        czk_fr u = a[b + j], v;
        czk__cr_fr_mul(&v, &a[b + j + half], &tw);
        czk__cr_fr_add(&a[b + j], &u, &v);
        czk__cr_fr_sub(&a[b + j + half], &u, &v);
        czk__cr_fr_mul(&tw, &tw, &wl);
      }
    }
  }
}
