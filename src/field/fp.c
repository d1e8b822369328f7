/* fp.c: the BLS12-381 base field Fp (p = 0x1a0111ea...aaab, 381 bits, 6 limbs), Montgomery form, R = 2^384.
 *
 * Instantiates field_impl.h (arithmetic, inversion, conversions) with N = 6 and adds the Fp-only operations:
 * half, mul_small, sqrt and the zcash "lexicographically largest" test.
 * sqrt: p = 3 mod 4, so sqrt(a) = a^((p+1)/4) when a is a square (~381 S + ~95 M), verified by one squaring;
 * the whole routine is constant-time. */
#include <stdlib.h>
#include <string.h>

#include "czk/field.h"
#include "field/constants.h"
#include "field/field_internal.h"
#include "field/mont.h"
#include "field/safegcd.h"

static const uint64_t k_mod[6] = CZK__FP_MOD;
static const uint64_t k_n0 = CZK__FP_N0;
static const uint64_t k_r2[6] = CZK__FP_R2;
static const uint64_t k_two64[6] = CZK__FP_TWO64;
static const int64_t k_sg_mod[CZK__FP_SG_LIMBS] = CZK__FP_SG_MOD;
static const int64_t k_sg_r2[CZK__FP_SG_LIMBS] = CZK__FP_SG_R2;
#define k_sg_minv CZK__FP_SG_MINV
#define k_sg_limbs CZK__FP_SG_LIMBS
#define k_sg_batches CZK__FP_SG_BATCHES
#define k_one_init CZK__FP_ONE
#define k_half_m_init CZK__FP_M_MINUS_1_HALF

const uint64_t czk_fp_modulus[6] = CZK__FP_MOD;

#define FT czk_fp
#define FN 6
#define FNAME(x) czk_fp_##x
#define FINT(x) fp_##x
#define FASM_MUL czk__fp_mul_adx
#define FDEC 120
#include "field/field_impl.h"

void czk_fp_half(czk_fp *r, const czk_fp *a) { czk__mont_half(r->l, a->l, k_mod, 6); }

void czk_fp_mul_small(czk_fp *r, const czk_fp *a, uint64_t k) {
  /* double-and-add over the bits of k (k is a public small constant) */
  czk_fp acc = czk_fp_zero_v, base = *a;
  while (k) {
    if (k & 1) czk_fp_add(&acc, &acc, &base);
    k >>= 1;
    if (k) czk_fp_dbl(&base, &base);
  }
  *r = acc;
}

bool czk_fp_sqrt(czk_fp *r, const czk_fp *a) {
  static const uint64_t e[6] = CZK__FP_P_PLUS_1_QUARTER;
  czk_fp s, chk;
  fp_pow(&s, a, e, 6);
  fp_sqr(&chk, &s);
  *r = s;
  return czk_fp_eq(&chk, a);
}

bool czk_fp_is_lexicographically_largest(const czk_fp *a) {
  static const uint64_t half[6] = CZK__FP_M_MINUS_1_HALF;
  uint64_t x[6];
  czk_fp_to_raw(x, a);
  return czk__limbs_lt(half, x, 6) != 0;
}

void czk__fp_pow_public(czk_fp *r, const czk_fp *a, const uint64_t *e, size_t n) { fp_pow(r, a, e, n); }
