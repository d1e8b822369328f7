/* fr.c: the BLS12-381 scalar field Fr (r = 0x73eda753...00000001, 255 bits, 4 limbs), Montgomery form, R = 2^256.
 *
 * Instantiates field_impl.h with N = 4 and adds: sqrt (Tonelli-Shanks, 2-adicity S = 32), random elements from
 * getrandom(), and the 2-adic roots of unity of both conventions (bellman 7^t, snarkjs 5^t; r - 1 = 2^32 t).
 *
 * Constant-time Tonelli-Shanks, with z = a primitive 2^32-th root of unity (= g^t for a non-residue g):
 *   w = a^((t-1)/2);  x = a*w = a^((t+1)/2);  b = x*w = a^t;  invariant x^2 = a*b, ord(b) | 2^S.
 *   for v = S-1 .. 1:  c = z^(2^(S-1-v)) (a primitive 2^(v+1)-th root);  e = b^(2^(v-1));
 *                      if e != 1 (then ord(b) = 2^v):  x *= c, b *= c^2   (selected with cmov, always computed)
 *   the loop always runs the same schedule (~S^2/2 S + 3S M); the result is checked with x^2 == a. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "czk/field.h"
#include "field/constants.h"
#include "field/field_internal.h"
#include "field/mont.h"
#include "field/safegcd.h"

static const uint64_t k_mod[4] = CZK__FR_MOD;
static const uint64_t k_n0 = CZK__FR_N0;
static const uint64_t k_r2[4] = CZK__FR_R2;
static const uint64_t k_two64[4] = CZK__FR_TWO64;
static const int64_t k_sg_mod[CZK__FR_SG_LIMBS] = CZK__FR_SG_MOD;
static const int64_t k_sg_r2[CZK__FR_SG_LIMBS] = CZK__FR_SG_R2;
#define k_sg_minv CZK__FR_SG_MINV
#define k_sg_limbs CZK__FR_SG_LIMBS
#define k_sg_batches CZK__FR_SG_BATCHES
#define k_one_init CZK__FR_ONE
#define k_half_m_init CZK__FR_M_MINUS_1_HALF

const uint64_t czk_fr_modulus[4] = CZK__FR_MOD;

#define FT czk_fr
#define FN 4
#define FNAME(x) czk_fr_##x
#define FINT(x) fr_##x
#define FASM_MUL czk__fr_mul_adx
#define FDEC 80
#include "field/field_impl.h"

static const czk_fr k_root_bellman = {CZK__FR_ROOT_BELLMAN};
static const czk_fr k_root_snarkjs = {CZK__FR_ROOT_SNARKJS};

bool czk_fr_sqrt(czk_fr *r, const czk_fr *a) {
  static const uint64_t e[4] = CZK__FR_T_MINUS_1_HALF;
  czk_fr w, x, b, c = k_root_bellman, c2, e2, t;
  fr_pow(&w, a, e, 4);
  fr_mul(&x, a, &w);
  fr_mul(&b, &x, &w);
  for (int v = CZK__FR_TWO_ADICITY - 1; v >= 1; v--) {
    /* here c = z^(2^(S-1-v)) */
    e2 = b;
    for (int j = 0; j < v - 1; j++)
      fr_sqr(&e2, &e2);
    bool fix = !czk_fr_is_one(&e2);
    fr_sqr(&c2, &c);
    fr_mul(&t, &x, &c);
    czk_fr_cmov(&x, &x, &t, fix);
    fr_mul(&t, &b, &c2);
    czk_fr_cmov(&b, &b, &t, fix);
    c = c2;
  }
  fr_sqr(&t, &x);
  *r = x;
  return czk_fr_eq(&t, a);
}

czk_status czk_fr_random(czk_fr *r) {
  uint8_t buf[64];
  size_t got = 0;
  while (got < sizeof buf) {
    ssize_t k = getrandom(buf + got, sizeof buf - got, 0);
    if (k < 0) {
      if (errno == EINTR) continue;
      return CZK_ERR_RANDOM;
    }
    got += (size_t)k;
  }
  czk_fr_from_bytes_wide_le(r, buf, sizeof buf); /* 512 bits mod r: statistical distance < 2^-256 */
  memset(buf, 0, sizeof buf);
  return CZK_OK;
}

czk_status czk_fr_root_of_unity(czk_fr *r, unsigned log_n, czk_fr_roots kind) {
  if (log_n > CZK__FR_TWO_ADICITY) return CZK_ERR_INVALID_ARG;
  czk_fr w;
  if (kind == CZK_ROOTS_BELLMAN)
    w = k_root_bellman;
  else if (kind == CZK_ROOTS_SNARKJS)
    w = k_root_snarkjs;
  else
    return CZK_ERR_INVALID_ARG;
  for (unsigned i = log_n; i < CZK__FR_TWO_ADICITY; i++)
    fr_sqr(&w, &w);
  *r = w;
  return CZK_OK;
}

void czk_fr_coset_generator(czk_fr *r) {
  static const czk_fr g = {CZK__FR_COSET_GEN};
  *r = g;
}
