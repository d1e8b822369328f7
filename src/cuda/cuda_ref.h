/* cuda_ref.h: a small, independent host reference of the arithmetic the CUDA kernels implement -- Fp / Fr / Fp2
 * Montgomery arithmetic (64-bit limbs, the czk_fp / czk_fr layout), G1 / G2 Jacobian group law, scalar
 * multiplication, a host Pippenger MSM and a radix-2 NTT -- used by the CUDA layer itself (the final combination of
 * window sums runs on the host in a stream callback), by tests/cuda and by `czk bench gpu` to check device results.
 * It is deliberately simple (readable loops, variable time, public data only); it is not the CPU backend.
 *
 * Values use the czk_fp / czk_fr / czk_g1 / czk_g2 types of include/czk/field.h and curve.h, fully reduced, so they
 * compare byte for byte with the device and with the CPU library. All functions allow output aliasing. */
#ifndef CZK_CUDA_REF_H
#define CZK_CUDA_REF_H

#include "czk/curve.h"
#include "czk/field.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fp */
void czk__cr_fp_mul(czk_fp *r, const czk_fp *a, const czk_fp *b);
void czk__cr_fp_add(czk_fp *r, const czk_fp *a, const czk_fp *b);
void czk__cr_fp_sub(czk_fp *r, const czk_fp *a, const czk_fp *b);
void czk__cr_fp_inv(czk_fp *r, const czk_fp *a); /* 0 -> 0 */
void czk__cr_fp_one(czk_fp *r);
bool czk__cr_fp_is_zero(const czk_fp *a);
/* Montgomery <-> canonical 6x64 limbs (from_raw reduces nothing: input must be < p). */
void czk__cr_fp_from_raw(czk_fp *r, const uint64_t in[6]);
void czk__cr_fp_to_raw(uint64_t out[6], const czk_fp *a);
/* Fr */
void czk__cr_fr_mul(czk_fr *r, const czk_fr *a, const czk_fr *b);
void czk__cr_fr_add(czk_fr *r, const czk_fr *a, const czk_fr *b);
void czk__cr_fr_sub(czk_fr *r, const czk_fr *a, const czk_fr *b);
void czk__cr_fr_one(czk_fr *r);
void czk__cr_fr_from_u64(czk_fr *r, uint64_t v);
void czk__cr_fr_inv(czk_fr *r, const czk_fr *a);
void czk__cr_fr_pow(czk_fr *r, const czk_fr *a, const uint64_t *e, size_t limbs);
void czk__cr_fr_from_raw(czk_fr *r, const uint64_t in[4]); /* input < r */
void czk__cr_fr_to_raw(uint64_t out[4], const czk_fr *a);
/* A canonical integer < r from 4 random words (top bits masked, then reduced by subtraction). */
void czk__cr_fr_raw_reduce(uint64_t s[4]);
/* Raw (canonical) scalar addition mod r. */
void czk__cr_fr_raw_add(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
/* Primitive 2^log_n-th root of unity (log_n <= 32) of the convention (7^t bellman, 5^t snarkjs), Montgomery. */
void czk__cr_fr_root(czk_fr *r, unsigned log_n, czk_fr_roots kind);
/* Fp2 */
void czk__cr_fp2_mul(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b);
void czk__cr_fp2_inv(czk_fp2 *r, const czk_fp2 *a);

/* G1 / G2 (Jacobian; infinity z = 0). */
void czk__cr_g1_generator(czk_g1 *r);
void czk__cr_g1_add(czk_g1 *r, const czk_g1 *p, const czk_g1 *q);
void czk__cr_g1_dbl(czk_g1 *r, const czk_g1 *p);
void czk__cr_g1_from_affine(czk_g1 *r, const czk_g1_affine *a);
void czk__cr_g1_to_affine(czk_g1_affine *r, const czk_g1 *p);
void czk__cr_g1_batch_to_affine(czk_g1_affine *r, const czk_g1 *p, size_t n);
void czk__cr_g1_mul(czk_g1 *r, const czk_g1 *p, const uint64_t *k, size_t limbs); /* canonical limbs */
bool czk__cr_g1_eq(const czk_g1 *p, const czk_g1 *q);
bool czk__cr_g1_affine_on_curve(const czk_g1_affine *a);
void czk__cr_g1_from_xyzz(czk_g1 *r, const czk_g1_xyzz *p);
void czk__cr_g2_generator(czk_g2 *r);
void czk__cr_g2_add(czk_g2 *r, const czk_g2 *p, const czk_g2 *q);
void czk__cr_g2_dbl(czk_g2 *r, const czk_g2 *p);
void czk__cr_g2_from_affine(czk_g2 *r, const czk_g2_affine *a);
void czk__cr_g2_to_affine(czk_g2_affine *r, const czk_g2 *p);
void czk__cr_g2_batch_to_affine(czk_g2_affine *r, const czk_g2 *p, size_t n);
void czk__cr_g2_mul(czk_g2 *r, const czk_g2 *p, const uint64_t *k, size_t limbs);
bool czk__cr_g2_eq(const czk_g2 *p, const czk_g2 *q);
bool czk__cr_g2_affine_on_curve(const czk_g2_affine *a);
void czk__cr_g2_from_xyzz(czk_g2 *r, const czk_g2_xyzz *p);

/* Host Pippenger: r = sum scalars[i] * bases[i] (scalars canonical, 4 limbs each). */
void czk__cr_g1_msm(czk_g1 *r, const czk_g1_affine *bases, const uint64_t *scalars, size_t n);
void czk__cr_g2_msm(czk_g2 *r, const czk_g2_affine *bases, const uint64_t *scalars, size_t n);

/* In-place radix-2 NTT of 2^log_n Montgomery elements with root w (natural order in and out): X_k = sum x_i w^ik. */
void czk__cr_ntt(czk_fr *a, unsigned log_n, const czk_fr *w);

#ifdef __cplusplus
}
#endif

#endif
