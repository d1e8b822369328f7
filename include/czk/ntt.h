/* czk/ntt.h: CPU number-theoretic transforms over Fr and the Groth16 H computation.
 *
 * A domain holds n = 2^log_n, its generator omega (a primitive n-th root of unity, from either root convention of
 * field.h or given explicitly) and precomputed twiddles omega^i, i < n/2 (16n bytes; inverse twiddles are derived by
 * omega^-i = -omega^(n/2-i)). Transforms are in place, natural order in and out:
 *   forward:        A_j = sum_i a_i omega^(ij)
 *   inverse:        a_i = (1/n) sum_j A_j omega^(-ij)
 *   coset forward:  A_j = sum_i a_i g^i omega^(ij)        (values at g*omega^j)
 *   coset inverse:  a_i = g^(-i) (1/n) sum_j A_j omega^(-ij)
 * All run on a czk_pool (NULL = default pool). A domain is read-only after creation and may be shared by threads.
 *
 * H (the quotient for Groth16), in place on a, b, c (each n = domain size values, zero-padded), result in a:
 *   CZK_H_BELLPERSON: a, b, c = evaluations over the domain; each is interpolated and evaluated on the coset g*D
 *     (g = 7, czk_fr_coset_generator); h = (a*b - c) / (g^n - 1) there, then coset-interpolated: a[0..n) = the
 *     coefficients of h(X) = (a(X)b(X) - c(X)) / (X^n - 1); a[n-1] = 0 for a satisfying input, the H query uses
 *     a[0..n-1). The domain's omega must be bellperson's (CZK_ROOTS_BELLMAN) to match Filecoin params.
 *   CZK_H_SNARKJS: each of a, b, c is interpolated and evaluated at the odd points omega_2n^(2j+1) (multiply
 *     coefficient i by omega_2n^i, NTT); a[j] = a'(j)*b'(j) - c'(j) (no division; snarkjs's H section is a Lagrange
 *     basis over those points). Needs a domain made by czk_ntt_domain_new with CZK_ROOTS_SNARKJS and log_n < 32.
 * b and c are clobbered. Values stay in Montgomery form (czk_msm_* takes them as they are). */
#ifndef CZK_NTT_H
#define CZK_NTT_H

#include "czk/field.h"
#include "czk/pool.h"

typedef struct czk_ntt_domain czk_ntt_domain;

/* log_n <= 32 (CZK_ERR_INVALID_ARG otherwise); CZK_ERR_NOMEM. */
CZK_API czk_status czk_ntt_domain_new(czk_ntt_domain **out, unsigned log_n, czk_fr_roots roots, czk_pool *pool);
/* omega must have order exactly 2^log_n (checked: omega^(n/2) = -1 for n >= 2, omega = 1 for n = 1). */
CZK_API czk_status czk_ntt_domain_new_omega(czk_ntt_domain **out, unsigned log_n, const czk_fr *omega,
                                            czk_pool *pool);
CZK_API void czk_ntt_domain_free(czk_ntt_domain *d);
CZK_API size_t czk_ntt_domain_size(const czk_ntt_domain *d);
CZK_API unsigned czk_ntt_domain_log_size(const czk_ntt_domain *d);
CZK_API void czk_ntt_domain_omega(czk_fr *omega, const czk_ntt_domain *d);
/* Bytes a domain of 2^log_n holds (for budgeting). */
CZK_API size_t czk_ntt_domain_bytes(unsigned log_n);

/* In-place transforms of a[0..n). CZK_ERR_INVALID_ARG on NULL arguments. */
CZK_API czk_status czk_ntt_forward(const czk_ntt_domain *d, czk_fr *a, czk_pool *pool);
CZK_API czk_status czk_ntt_inverse(const czk_ntt_domain *d, czk_fr *a, czk_pool *pool);
CZK_API czk_status czk_ntt_coset_forward(const czk_ntt_domain *d, czk_fr *a, const czk_fr *g, czk_pool *pool);
CZK_API czk_status czk_ntt_coset_inverse(const czk_ntt_domain *d, czk_fr *a, const czk_fr *g, czk_pool *pool);

/* ---- H */
typedef enum czk_h_kind { CZK_H_BELLPERSON = 0, CZK_H_SNARKJS = 1 } czk_h_kind;

typedef struct czk_h_plan {
  czk_h_kind kind;
  size_t rows;          /* values given (constraints + inputs) */
  unsigned log_n;       /* domain: n = 2^log_n >= rows (>= 1) */
  size_t n;
  size_t domain_bytes;  /* czk_ntt_domain_bytes(log_n): twiddles, shareable across jobs of the same size */
  size_t io_bytes;      /* a, b, c buffers the caller provides: 3 * n * 32 */
  size_t scratch_bytes; /* extra working memory of czk_ntt_h: 0 (in place) */
} czk_h_plan;

CZK_API czk_status czk_h_plan_init(czk_h_plan *plan, czk_h_kind kind, size_t rows);
/* See above. CZK_ERR_INVALID_ARG on NULL arguments; CZK_ERR_UNSUPPORTED for CZK_H_SNARKJS on a domain without
 * omega_2n (made with czk_ntt_domain_new_omega, or log_n = 32). */
CZK_API czk_status czk_ntt_h(const czk_ntt_domain *d, czk_h_kind kind, czk_fr *a, czk_fr *b, czk_fr *c,
                             czk_pool *pool);
/* H one vector at a time, for provers that hold two of the three vectors (czk_ntt_h = PREP a, b, c; MUL a b; FINISH a
 * c):
 *   CZK_H_STEP_PREP:   x = the evaluations of x's interpolant on H's coset (y unused);
 *   CZK_H_STEP_MUL:    x = x y (pointwise);
 *   CZK_H_STEP_FINISH: x = x - y, then (bellperson) divided by Z on the coset and coset-interpolated: H's coefficients
 *                      (snarkjs: H's values on the odd coset). */
typedef enum czk_h_step { CZK_H_STEP_PREP = 0, CZK_H_STEP_MUL = 1, CZK_H_STEP_FINISH = 2 } czk_h_step;
CZK_API czk_status czk_ntt_h_step(const czk_ntt_domain *d, czk_h_kind kind, czk_h_step step, czk_fr *x,
                                  const czk_fr *y, czk_pool *pool);

#endif
