/* czk/field.h: BLS12-381 fields: Fp (381-bit base field), Fr (255-bit scalar field), and the tower
 * Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3 - (u+1)), Fp12 = Fp6[w]/(w^2 - v).
 *
 * Representation: Montgomery form with 64-bit little-endian limbs (R = 2^384 for Fp, 2^256 for Fr); every value held
 * in a czk_fp / czk_fr is fully reduced (< modulus). The byte layout of czk_fp on a little-endian host equals blst's
 * blst_fp and snarkjs's "LEM" zkey coordinates.
 *
 * Conventions: output first, inputs const; every function allows the output to alias any input unless stated.
 * Functions named *_vartime may branch on their inputs (public data only); everything else is constant-time in
 * the values (branches only on lengths). */
#ifndef CZK_FIELD_H
#define CZK_FIELD_H

#include "czk/common.h"
#include "czk/status.h"

typedef struct czk_fp {
  uint64_t l[6];
} czk_fp;
typedef struct czk_fr {
  uint64_t l[4];
} czk_fr;
typedef struct czk_fp2 {
  czk_fp c0, c1; /* c0 + c1*u */
} czk_fp2;
typedef struct czk_fp6 {
  czk_fp2 c0, c1, c2; /* c0 + c1*v + c2*v^2 */
} czk_fp6;
typedef struct czk_fp12 {
  czk_fp6 c0, c1; /* c0 + c1*w */
} czk_fp12;

/* ---------------------------------------------------------------- Fp */
CZK_API extern const czk_fp czk_fp_zero_v, czk_fp_one_v; /* 0 and 1 (Montgomery form) */
CZK_API void czk_fp_set_zero(czk_fp *r);
CZK_API void czk_fp_set_one(czk_fp *r);
CZK_API void czk_fp_from_u64(czk_fp *r, uint64_t v);
CZK_API void czk_fp_add(czk_fp *r, const czk_fp *a, const czk_fp *b);
CZK_API void czk_fp_sub(czk_fp *r, const czk_fp *a, const czk_fp *b);
CZK_API void czk_fp_neg(czk_fp *r, const czk_fp *a);
CZK_API void czk_fp_dbl(czk_fp *r, const czk_fp *a);
CZK_API void czk_fp_half(czk_fp *r, const czk_fp *a);
CZK_API void czk_fp_mul(czk_fp *r, const czk_fp *a, const czk_fp *b);
CZK_API void czk_fp_sqr(czk_fp *r, const czk_fp *a);
CZK_API void czk_fp_mul_small(czk_fp *r, const czk_fp *a, uint64_t k); /* a*k, k small (e.g. 3, 4, 8) */
/* r = a^(-1); 0 maps to 0. Constant-time (Fermat or a constant-time gcd). */
CZK_API void czk_fp_inv(czk_fp *r, const czk_fp *a);
/* Same result, variable time (binary extended gcd); public data only. */
CZK_API void czk_fp_inv_vartime(czk_fp *r, const czk_fp *a);
/* r[i] = a[i]^(-1) for i < n with one inversion (Montgomery's trick); zeros stay zero. r may equal a.
 * scratch: NULL (allocates) or n elements. Returns CZK_ERR_NOMEM only when scratch is NULL and malloc fails. */
CZK_API czk_status czk_fp_batch_inv(czk_fp *r, const czk_fp *a, size_t n, czk_fp *scratch);
CZK_API void czk_fp_pow_vartime(czk_fp *r, const czk_fp *a, const uint64_t *exp, size_t exp_limbs);
/* Square root: returns true and r = sqrt(a) (either root) when a is a square; false otherwise (r unspecified). */
CZK_API bool czk_fp_sqrt(czk_fp *r, const czk_fp *a);
/* Legendre symbol: 0 for 0, 1 for a non-zero square, -1 otherwise. */
CZK_API int czk_fp_legendre(const czk_fp *a);
CZK_API bool czk_fp_is_zero(const czk_fp *a);
CZK_API bool czk_fp_is_one(const czk_fp *a);
CZK_API bool czk_fp_eq(const czk_fp *a, const czk_fp *b);
/* r = c ? b : a, constant-time. */
CZK_API void czk_fp_cmov(czk_fp *r, const czk_fp *a, const czk_fp *b, bool c);
/* True when the canonical integer of a is > (p-1)/2 ("lexicographically largest", zcash's y flag). */
CZK_API bool czk_fp_is_lexicographically_largest(const czk_fp *a);
/* Canonical integer (not Montgomery) to/from 64-bit limbs. from_raw returns CZK_ERR_NOT_CANONICAL for >= p. */
CZK_API void czk_fp_to_raw(uint64_t out[6], const czk_fp *a);
CZK_API czk_status czk_fp_from_raw(czk_fp *r, const uint64_t in[6]);
/* Canonical 48-byte encodings of the integer value; decoding rejects >= p with CZK_ERR_NOT_CANONICAL. */
CZK_API void czk_fp_to_bytes_be(uint8_t out[48], const czk_fp *a);
CZK_API void czk_fp_to_bytes_le(uint8_t out[48], const czk_fp *a);
CZK_API czk_status czk_fp_from_bytes_be(czk_fp *r, const uint8_t in[48]);
CZK_API czk_status czk_fp_from_bytes_le(czk_fp *r, const uint8_t in[48]);
/* Reduce an arbitrary little-endian byte string (e.g. 64 random bytes) modulo p. */
CZK_API void czk_fp_from_bytes_wide_le(czk_fp *r, const uint8_t *in, size_t len);

/* ---------------------------------------------------------------- Fr */
CZK_API extern const czk_fr czk_fr_zero_v, czk_fr_one_v;
CZK_API void czk_fr_set_zero(czk_fr *r);
CZK_API void czk_fr_set_one(czk_fr *r);
CZK_API void czk_fr_from_u64(czk_fr *r, uint64_t v);
CZK_API void czk_fr_add(czk_fr *r, const czk_fr *a, const czk_fr *b);
CZK_API void czk_fr_sub(czk_fr *r, const czk_fr *a, const czk_fr *b);
CZK_API void czk_fr_neg(czk_fr *r, const czk_fr *a);
CZK_API void czk_fr_dbl(czk_fr *r, const czk_fr *a);
CZK_API void czk_fr_mul(czk_fr *r, const czk_fr *a, const czk_fr *b);
CZK_API void czk_fr_sqr(czk_fr *r, const czk_fr *a);
CZK_API void czk_fr_inv(czk_fr *r, const czk_fr *a);         /* constant-time; 0 -> 0 */
CZK_API void czk_fr_inv_vartime(czk_fr *r, const czk_fr *a); /* public data only */
CZK_API czk_status czk_fr_batch_inv(czk_fr *r, const czk_fr *a, size_t n, czk_fr *scratch);
CZK_API void czk_fr_pow_vartime(czk_fr *r, const czk_fr *a, const uint64_t *exp, size_t exp_limbs);
CZK_API bool czk_fr_sqrt(czk_fr *r, const czk_fr *a);
CZK_API int czk_fr_legendre(const czk_fr *a);
CZK_API bool czk_fr_is_zero(const czk_fr *a);
CZK_API bool czk_fr_is_one(const czk_fr *a);
CZK_API bool czk_fr_eq(const czk_fr *a, const czk_fr *b);
CZK_API void czk_fr_cmov(czk_fr *r, const czk_fr *a, const czk_fr *b, bool c);
/* Canonical integer (not Montgomery) limbs; scalars for MSM are taken in this form. */
CZK_API void czk_fr_to_raw(uint64_t out[4], const czk_fr *a);
CZK_API czk_status czk_fr_from_raw(czk_fr *r, const uint64_t in[4]);
CZK_API void czk_fr_to_bytes_le(uint8_t out[32], const czk_fr *a);
CZK_API void czk_fr_to_bytes_be(uint8_t out[32], const czk_fr *a);
CZK_API czk_status czk_fr_from_bytes_le(czk_fr *r, const uint8_t in[32]);
CZK_API czk_status czk_fr_from_bytes_be(czk_fr *r, const uint8_t in[32]);
CZK_API void czk_fr_from_bytes_wide_le(czk_fr *r, const uint8_t *in, size_t len);
/* Uniform random element from the OS CSPRNG (getrandom); CZK_ERR_RANDOM if it fails. */
CZK_API czk_status czk_fr_random(czk_fr *r);
/* Decimal string of the canonical integer (at most 78 digits + NUL) and parsing (decimal or 0x-hex);
 * parse rejects >= r (CZK_ERR_NOT_CANONICAL) and non-numbers (CZK_ERR_FORMAT). */
CZK_API void czk_fr_to_dec(char out[80], const czk_fr *a);
CZK_API czk_status czk_fr_from_str(czk_fr *r, const char *s);
CZK_API void czk_fp_to_dec(char out[120], const czk_fp *a);
CZK_API czk_status czk_fp_from_str(czk_fp *r, const char *s);

/* Roots of unity. r - 1 = 2^32 * t, t odd. Two generator conventions produce the same subgroups in different orders:
 *   CZK_ROOTS_BELLMAN: omega_{2^32} = 7^t (bellman/bellperson/blst ROOT_OF_UNITY; Filecoin params);
 *   CZK_ROOTS_SNARKJS: omega_{2^32} = 5^t (ffjavascript; snarkjs zkeys).
 * czk_fr_root_of_unity writes a primitive 2^log_n-th root (log_n <= 32), omega_{2^(k-1)} = omega_{2^k}^2. */
typedef enum czk_fr_roots { CZK_ROOTS_BELLMAN = 0, CZK_ROOTS_SNARKJS = 1 } czk_fr_roots;
CZK_API czk_status czk_fr_root_of_unity(czk_fr *r, unsigned log_n, czk_fr_roots kind);
/* The multiplicative generator used for cosets by bellman/bellperson (7). */
CZK_API void czk_fr_coset_generator(czk_fr *r);

/* ---------------------------------------------------------------- Fp2 */
CZK_API void czk_fp2_set_zero(czk_fp2 *r);
CZK_API void czk_fp2_set_one(czk_fp2 *r);
CZK_API void czk_fp2_add(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b);
CZK_API void czk_fp2_sub(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b);
CZK_API void czk_fp2_neg(czk_fp2 *r, const czk_fp2 *a);
CZK_API void czk_fp2_dbl(czk_fp2 *r, const czk_fp2 *a);
CZK_API void czk_fp2_mul(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b);
CZK_API void czk_fp2_sqr(czk_fp2 *r, const czk_fp2 *a);
CZK_API void czk_fp2_mul_fp(czk_fp2 *r, const czk_fp2 *a, const czk_fp *b);
CZK_API void czk_fp2_mul_by_nonresidue(czk_fp2 *r, const czk_fp2 *a); /* a * (u + 1) */
CZK_API void czk_fp2_conj(czk_fp2 *r, const czk_fp2 *a);              /* c0 - c1*u (= Frobenius) */
CZK_API void czk_fp2_inv(czk_fp2 *r, const czk_fp2 *a);
CZK_API void czk_fp2_inv_vartime(czk_fp2 *r, const czk_fp2 *a);
CZK_API czk_status czk_fp2_batch_inv(czk_fp2 *r, const czk_fp2 *a, size_t n, czk_fp2 *scratch);
CZK_API bool czk_fp2_sqrt(czk_fp2 *r, const czk_fp2 *a);
CZK_API int czk_fp2_legendre(const czk_fp2 *a);
CZK_API bool czk_fp2_is_zero(const czk_fp2 *a);
CZK_API bool czk_fp2_is_one(const czk_fp2 *a);
CZK_API bool czk_fp2_eq(const czk_fp2 *a, const czk_fp2 *b);
CZK_API void czk_fp2_cmov(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b, bool c);
/* zcash rule: compare c1 first; if c1 == 0, compare c0. */
CZK_API bool czk_fp2_is_lexicographically_largest(const czk_fp2 *a);
CZK_API void czk_fp2_pow_vartime(czk_fp2 *r, const czk_fp2 *a, const uint64_t *exp, size_t exp_limbs);

/* ---------------------------------------------------------------- Fp6 */
CZK_API void czk_fp6_set_zero(czk_fp6 *r);
CZK_API void czk_fp6_set_one(czk_fp6 *r);
CZK_API void czk_fp6_add(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b);
CZK_API void czk_fp6_sub(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b);
CZK_API void czk_fp6_neg(czk_fp6 *r, const czk_fp6 *a);
CZK_API void czk_fp6_mul(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b);
CZK_API void czk_fp6_sqr(czk_fp6 *r, const czk_fp6 *a);
CZK_API void czk_fp6_mul_by_nonresidue(czk_fp6 *r, const czk_fp6 *a); /* a * v */
CZK_API void czk_fp6_inv(czk_fp6 *r, const czk_fp6 *a);
CZK_API void czk_fp6_frobenius(czk_fp6 *r, const czk_fp6 *a, unsigned power); /* a^(p^power) */
CZK_API bool czk_fp6_is_zero(const czk_fp6 *a);
CZK_API bool czk_fp6_eq(const czk_fp6 *a, const czk_fp6 *b);

/* ---------------------------------------------------------------- Fp12 */
CZK_API void czk_fp12_set_one(czk_fp12 *r);
CZK_API void czk_fp12_add(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b);
CZK_API void czk_fp12_sub(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b);
CZK_API void czk_fp12_mul(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b);
CZK_API void czk_fp12_sqr(czk_fp12 *r, const czk_fp12 *a);
CZK_API void czk_fp12_cyclotomic_sqr(czk_fp12 *r, const czk_fp12 *a); /* for a in the cyclotomic subgroup */
CZK_API void czk_fp12_inv(czk_fp12 *r, const czk_fp12 *a);
CZK_API void czk_fp12_conj(czk_fp12 *r, const czk_fp12 *a); /* = a^(p^6); the inverse in the cyclotomic subgroup */
/* r = a^e for a in the cyclotomic subgroup of Fp12 and a public 64-bit e (branches on e only), with compressed
 * (Karabina) squarings and one batched decompression: popcount(e) - 1 multiplications. Returns false, leaving r
 * unspecified, in the negligible case (an intermediate a^(2^j) != 1 with z2 = 0) where the compressed form cannot
 * be decompressed; the caller then uses plain cyclotomic squarings. */
CZK_API bool czk_fp12_cyclotomic_pow_u64(czk_fp12 *r, const czk_fp12 *a, uint64_t e);
CZK_API void czk_fp12_frobenius(czk_fp12 *r, const czk_fp12 *a, unsigned power); /* a^(p^power), power 1..11 */
CZK_API void czk_fp12_pow_vartime(czk_fp12 *r, const czk_fp12 *a, const uint64_t *exp, size_t exp_limbs);
CZK_API bool czk_fp12_is_one(const czk_fp12 *a);
CZK_API bool czk_fp12_eq(const czk_fp12 *a, const czk_fp12 *b);

/* Moduli as canonical little-endian limbs. */
CZK_API extern const uint64_t czk_fp_modulus[6];
CZK_API extern const uint64_t czk_fr_modulus[4];

#endif
