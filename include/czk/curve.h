/* czk/curve.h: the BLS12-381 groups G1 (over Fp, y^2 = x^3 + 4) and G2 (over Fp2, y^2 = x^3 + 4(u+1), M-type twist),
 * their encodings (zcash/bellperson), subgroup checks and the optimal ate pairing.
 *
 * Coordinates: affine (x, y) with the point at infinity stored as (0, 0) -- the same convention as snarkjs zkeys and
 * blst, so key sections can be used in place; Jacobian (X, Y, Z), x = X/Z^2, y = Y/Z^3, infinity Z = 0; XYZZ
 * (X, Y, ZZ, ZZZ), x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, infinity ZZ = 0 (cheapest mixed additions, used by MSM buckets).
 * Conventions as in field.h: output first, aliasing allowed unless stated, *_vartime only on public data. */
#ifndef CZK_CURVE_H
#define CZK_CURVE_H

#include "czk/field.h"

typedef struct czk_g1_affine {
  czk_fp x, y;
} czk_g1_affine;
typedef struct czk_g1 {
  czk_fp x, y, z;
} czk_g1;
typedef struct czk_g1_xyzz {
  czk_fp x, y, zz, zzz;
} czk_g1_xyzz;

typedef struct czk_g2_affine {
  czk_fp2 x, y;
} czk_g2_affine;
typedef struct czk_g2 {
  czk_fp2 x, y, z;
} czk_g2;
typedef struct czk_g2_xyzz {
  czk_fp2 x, y, zz, zzz;
} czk_g2_xyzz;

/* ------------------------------------------------ G1 (the G2 API below is the same with g2 / fp2) */
CZK_API void czk_g1_generator(czk_g1 *r);
CZK_API void czk_g1_affine_generator(czk_g1_affine *r);
CZK_API void czk_g1_set_infinity(czk_g1 *r);
CZK_API bool czk_g1_is_infinity(const czk_g1 *p);
CZK_API bool czk_g1_affine_is_infinity(const czk_g1_affine *p);
CZK_API bool czk_g1_eq(const czk_g1 *p, const czk_g1 *q); /* projective equality */
CZK_API bool czk_g1_affine_eq(const czk_g1_affine *p, const czk_g1_affine *q);
CZK_API void czk_g1_from_affine(czk_g1 *r, const czk_g1_affine *p);
CZK_API void czk_g1_to_affine(czk_g1_affine *r, const czk_g1 *p);
/* r[i] = affine(p[i]) with one inversion; r and p must not overlap. */
CZK_API czk_status czk_g1_batch_to_affine(czk_g1_affine *r, const czk_g1 *p, size_t n);
CZK_API void czk_g1_neg(czk_g1 *r, const czk_g1 *p);
CZK_API void czk_g1_affine_neg(czk_g1_affine *r, const czk_g1_affine *p);
CZK_API void czk_g1_dbl(czk_g1 *r, const czk_g1 *p);
CZK_API void czk_g1_add(czk_g1 *r, const czk_g1 *p, const czk_g1 *q);               /* complete: any inputs */
CZK_API void czk_g1_add_affine(czk_g1 *r, const czk_g1 *p, const czk_g1_affine *q); /* mixed; complete */
/* XYZZ */
CZK_API void czk_g1_xyzz_set_infinity(czk_g1_xyzz *r);
CZK_API void czk_g1_xyzz_add_affine(czk_g1_xyzz *r, const czk_g1_xyzz *p, const czk_g1_affine *q); /* complete */
CZK_API void czk_g1_xyzz_add(czk_g1_xyzz *r, const czk_g1_xyzz *p, const czk_g1_xyzz *q);          /* complete */
CZK_API void czk_g1_xyzz_dbl(czk_g1_xyzz *r, const czk_g1_xyzz *p);
CZK_API void czk_g1_xyzz_to_jacobian(czk_g1 *r, const czk_g1_xyzz *p);
/* Scalar multiplication by k (a czk_fr in Montgomery form). _vartime: wNAF, public scalars; the plain one is
 * constant-time (fixed window, constant-time table lookups) for secret scalars. mul_vartime splits k with the
 * endomorphism (G1: GLV with sigma, G2: GLS with psi), so it requires p in the subgroup (any point that passed a
 * subgroup check); mul and mul_raw_vartime work for every point of the curve. */
CZK_API void czk_g1_mul(czk_g1 *r, const czk_g1 *p, const czk_fr *k);
CZK_API void czk_g1_mul_vartime(czk_g1 *r, const czk_g1 *p, const czk_fr *k);
/* k given as canonical little-endian limbs of any length (e.g. cofactors, the group order). */
CZK_API void czk_g1_mul_raw_vartime(czk_g1 *r, const czk_g1 *p, const uint64_t *k, size_t limbs);
CZK_API bool czk_g1_affine_is_on_curve(const czk_g1_affine *p); /* infinity counts as on the curve */
CZK_API bool czk_g1_is_on_curve(const czk_g1 *p);
CZK_API bool czk_g1_affine_in_subgroup(const czk_g1_affine *p); /* assumes on curve */
CZK_API bool czk_g1_in_subgroup(const czk_g1 *p);

/* Fixed-base windowed multiplication (setup computes millions of k*G for one G). window_bits 1..16, 0 = default (8):
 * the table holds 2^(w-1) affine points per w-bit window (G1, w = 8: 32 x 128 points, 384 KiB) and one mul is
 * floor(255/w)+1 mixed additions with constant-time table scans, no doublings. */
typedef struct czk_g1_fixed_base czk_g1_fixed_base;
CZK_API czk_status czk_g1_fixed_base_new(czk_g1_fixed_base **out, const czk_g1 *base, unsigned window_bits);
CZK_API void czk_g1_fixed_base_mul(czk_g1 *r, const czk_g1_fixed_base *t, const czk_fr *k); /* constant-time */
CZK_API void czk_g1_fixed_base_free(czk_g1_fixed_base *t);
/* The same table built in variable time (public bases only, e.g. the generator): batched affine additions, about
 * 6M per entry (w = 16: 16 x 2^15 entries, ~0.1 s for G1). */
CZK_API czk_status czk_g1_fixed_base_new_vartime(czk_g1_fixed_base **out, const czk_g1 *base, unsigned window_bits);
/* out[i] = affine(k[i] B) for i < n, variable time: the same signed digits, but chunks of scalars advance window by
 * window with batched affine additions (one inversion per window and chunk, ~6M per addition) and direct table
 * indexing instead of scans. For many scalars (setup: millions of query points) this is ~10x cheaper per point than
 * fixed_base_mul. The scalars' digits steer branches and memory accesses: use it on public scalars, or on secrets
 * only where a timing observer is not part of the threat model (setup's local, wiped toxic waste; bellperson's
 * generator uses variable-time wNAF there too). Digits are wiped before returning. CZK_ERR_NOMEM on allocation
 * failure. */
CZK_API czk_status czk_g1_fixed_base_mul_batch_vartime(czk_g1_affine *out, const czk_g1_fixed_base *t,
                                                        const czk_fr *k, size_t n);
/* acc[i] += q[i] for i < n in affine coordinates with one inversion for the batch (Montgomery's trick): 5M + 1S per
 * addition plus 1I / n. Complete: q[i] or acc[i] at infinity, acc[i] = q[i] (tangent), acc[i] = -q[i] (infinity).
 * Variable time. scratch: NULL (allocates) or n field elements; acc and q must not overlap. */
CZK_API czk_status czk_g1_affine_batch_add_vartime(czk_g1_affine *acc, const czk_g1_affine *q, size_t n,
                                                    czk_fp *scratch);

/* zcash/bellperson encodings: big-endian x (then y), top bits of the first byte: 0x80 compressed, 0x40 infinity,
 * 0x20 y is lexicographically largest (compressed only). Decoding rejects, with distinct statuses: bad flag
 * combinations or non-zero infinity bytes (CZK_ERR_BAD_FLAGS), coordinates >= p (CZK_ERR_NOT_CANONICAL), x without a
 * curve point (CZK_ERR_NO_SQRT) or (x, y) off the curve (CZK_ERR_NOT_ON_CURVE), points outside the subgroup
 * (CZK_ERR_NOT_IN_SUBGROUP). *_unchecked skips only the subgroup check (for trusted, already checked data). */
CZK_API void czk_g1_compress(uint8_t out[48], const czk_g1_affine *p);
CZK_API void czk_g1_serialize(uint8_t out[96], const czk_g1_affine *p);
CZK_API czk_status czk_g1_uncompress(czk_g1_affine *r, const uint8_t in[48]);
CZK_API czk_status czk_g1_deserialize(czk_g1_affine *r, const uint8_t in[96]);
CZK_API czk_status czk_g1_deserialize_unchecked(czk_g1_affine *r, const uint8_t in[96]);
/* The same decoders on a buffer of len bytes (e.g. the rest of a proof or key stream): CZK_ERR_TRUNCATED when len is
 * shorter than the encoding, CZK_ERR_SIZE_MISMATCH when longer; otherwise as czk_g1_uncompress / _deserialize. */
CZK_API czk_status czk_g1_uncompress_n(czk_g1_affine *r, const uint8_t *in, size_t len);
CZK_API czk_status czk_g1_deserialize_n(czk_g1_affine *r, const uint8_t *in, size_t len);

/* ------------------------------------------------ G2 */
CZK_API void czk_g2_generator(czk_g2 *r);
CZK_API void czk_g2_affine_generator(czk_g2_affine *r);
CZK_API void czk_g2_set_infinity(czk_g2 *r);
CZK_API bool czk_g2_is_infinity(const czk_g2 *p);
CZK_API bool czk_g2_affine_is_infinity(const czk_g2_affine *p);
CZK_API bool czk_g2_eq(const czk_g2 *p, const czk_g2 *q);
CZK_API bool czk_g2_affine_eq(const czk_g2_affine *p, const czk_g2_affine *q);
CZK_API void czk_g2_from_affine(czk_g2 *r, const czk_g2_affine *p);
CZK_API void czk_g2_to_affine(czk_g2_affine *r, const czk_g2 *p);
CZK_API czk_status czk_g2_batch_to_affine(czk_g2_affine *r, const czk_g2 *p, size_t n);
CZK_API void czk_g2_neg(czk_g2 *r, const czk_g2 *p);
CZK_API void czk_g2_affine_neg(czk_g2_affine *r, const czk_g2_affine *p);
CZK_API void czk_g2_dbl(czk_g2 *r, const czk_g2 *p);
CZK_API void czk_g2_add(czk_g2 *r, const czk_g2 *p, const czk_g2 *q);
CZK_API void czk_g2_add_affine(czk_g2 *r, const czk_g2 *p, const czk_g2_affine *q);
CZK_API void czk_g2_xyzz_set_infinity(czk_g2_xyzz *r);
CZK_API void czk_g2_xyzz_add_affine(czk_g2_xyzz *r, const czk_g2_xyzz *p, const czk_g2_affine *q);
CZK_API void czk_g2_xyzz_add(czk_g2_xyzz *r, const czk_g2_xyzz *p, const czk_g2_xyzz *q);
CZK_API void czk_g2_xyzz_dbl(czk_g2_xyzz *r, const czk_g2_xyzz *p);
CZK_API void czk_g2_xyzz_to_jacobian(czk_g2 *r, const czk_g2_xyzz *p);
CZK_API void czk_g2_mul(czk_g2 *r, const czk_g2 *p, const czk_fr *k);
CZK_API void czk_g2_mul_vartime(czk_g2 *r, const czk_g2 *p, const czk_fr *k);
CZK_API void czk_g2_mul_raw_vartime(czk_g2 *r, const czk_g2 *p, const uint64_t *k, size_t limbs);
CZK_API bool czk_g2_affine_is_on_curve(const czk_g2_affine *p);
CZK_API bool czk_g2_is_on_curve(const czk_g2 *p);
CZK_API bool czk_g2_affine_in_subgroup(const czk_g2_affine *p);
CZK_API bool czk_g2_in_subgroup(const czk_g2 *p);
typedef struct czk_g2_fixed_base czk_g2_fixed_base;
CZK_API czk_status czk_g2_fixed_base_new(czk_g2_fixed_base **out, const czk_g2 *base, unsigned window_bits);
CZK_API void czk_g2_fixed_base_mul(czk_g2 *r, const czk_g2_fixed_base *t, const czk_fr *k);
CZK_API void czk_g2_fixed_base_free(czk_g2_fixed_base *t);
CZK_API czk_status czk_g2_fixed_base_new_vartime(czk_g2_fixed_base **out, const czk_g2 *base, unsigned window_bits);
CZK_API czk_status czk_g2_fixed_base_mul_batch_vartime(czk_g2_affine *out, const czk_g2_fixed_base *t,
                                                        const czk_fr *k, size_t n);
CZK_API czk_status czk_g2_affine_batch_add_vartime(czk_g2_affine *acc, const czk_g2_affine *q, size_t n,
                                                    czk_fp2 *scratch);
CZK_API void czk_g2_compress(uint8_t out[96], const czk_g2_affine *p);
CZK_API void czk_g2_serialize(uint8_t out[192], const czk_g2_affine *p);
CZK_API czk_status czk_g2_uncompress(czk_g2_affine *r, const uint8_t in[96]);
CZK_API czk_status czk_g2_deserialize(czk_g2_affine *r, const uint8_t in[192]);
CZK_API czk_status czk_g2_deserialize_unchecked(czk_g2_affine *r, const uint8_t in[192]);
CZK_API czk_status czk_g2_uncompress_n(czk_g2_affine *r, const uint8_t *in, size_t len);
CZK_API czk_status czk_g2_deserialize_n(czk_g2_affine *r, const uint8_t *in, size_t len);

/* ------------------------------------------------ pairing (optimal ate, x = -0xd201000000010000) */
/* f = Miller loop of (p, q); infinity in either gives 1. */
CZK_API void czk_miller_loop(czk_fp12 *f, const czk_g1_affine *p, const czk_g2_affine *q);
/* f = prod_i MillerLoop(p[i], q[i]) sharing the squarings. */
CZK_API void czk_miller_loop_n(czk_fp12 *f, const czk_g1_affine *p, const czk_g2_affine *q, size_t n);
CZK_API void czk_final_exponentiation(czk_fp12 *r, const czk_fp12 *f);
/* r = e(p, q) */
CZK_API void czk_pairing(czk_fp12 *r, const czk_g1_affine *p, const czk_g2_affine *q);
/* true when prod_i e(p[i], q[i]) == 1 (one final exponentiation). */
CZK_API bool czk_pairing_product_is_one(const czk_g1_affine *p, const czk_g2_affine *q, size_t n);

#endif
