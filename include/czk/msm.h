/* czk/msm.h: CPU multi-scalar multiplication (Pippenger) over BLS12-381 G1 and G2.
 *
 *   out = sum_{i<n} k_i * P_i
 *
 * Bases are affine points with infinity stored as (0, 0) (curve.h); scalars are czk_fr values, either in Montgomery
 * form (what provers hold; the default) or, with CZK_MSM_SCALARS_RAW, canonical little-endian 64-bit limbs stored in
 * the czk_fr's l[] (what snarkjs .wtns files and some bellperson paths hold; any 256-bit value is accepted and reduced
 * mod r). Zero scalars, repeated bases, infinity bases and any n (0, 1, non powers of two) are handled; n = 0 gives
 * infinity. Results are exact group elements (public data: the computation is variable-time in the scalars).
 *
 * Plans and scratch: the window size, the number of windows and point splits, and the scratch size depend only on
 * (group, max_points, threads). czk_msm_plan_init fills a plan once; an engine budgets plan.scratch_bytes and passes a
 * buffer of that many bytes (any alignment; 64 is best) to every call, or passes NULL to let the call allocate it.
 * A plan made for max_points serves any n <= max_points. The plan is read-only during calls, so one plan may be shared
 * by concurrent calls; each concurrent call needs its own scratch.
 *
 * Threads: the work is split into tasks (window x point range) that run on a czk_pool (NULL = the default pool); the
 * plan's `threads` only sizes the split and the scratch (one bucket array per concurrently running task). */
#ifndef CZK_MSM_H
#define CZK_MSM_H

#include "czk/curve.h"
#include "czk/pool.h"

typedef enum czk_msm_group { CZK_MSM_G1 = 1, CZK_MSM_G2 = 2 } czk_msm_group;

/* flags */
#define CZK_MSM_SCALARS_RAW 1u /* scalars hold canonical limbs, not Montgomery form */

typedef struct czk_msm_plan {
  czk_msm_group group;
  size_t max_points;     /* largest n this plan serves */
  unsigned threads;      /* parallelism the split was chosen for (>= 1) */
  unsigned window_bits;  /* c: signed digits in [-2^(c-1), 2^(c-1)), 2^(c-1) buckets per window */
  unsigned windows;      /* ceil(256 / c) (one more when c < 4 and c divides 256) */
  unsigned splits;       /* point ranges per window and round (tasks per round = windows * splits) */
  unsigned slots;        /* bucket arrays in scratch (= concurrently running tasks) */
  size_t round_points;   /* points whose digits are prepared at once (bounds the digit buffer) */
  size_t scratch_bytes;  /* bytes of scratch a call needs */
} czk_msm_plan;

/* threads = 0: the default pool's thread count. CZK_ERR_INVALID_ARG for a bad group or a NULL plan. */
CZK_API czk_status czk_msm_plan_init(czk_msm_plan *plan, czk_msm_group group, size_t max_points, unsigned threads);
/* The same with a forced window size (2..20) and/or number of point splits (1..1024); 0 = choose. For tuning and
 * tests. A call validates any plan it is given (CZK_ERR_INVALID_ARG for inconsistent fields). */
CZK_API czk_status czk_msm_plan_init_ex(czk_msm_plan *plan, czk_msm_group group, size_t max_points, unsigned threads,
                                        unsigned window_bits, unsigned splits);

/* out = sum k_i * bases[i], i < n. plan: NULL = plan for (n, pool threads); scratch: NULL = malloc (CZK_ERR_NOMEM
 * on failure). CZK_ERR_SIZE_MISMATCH when plan->max_points < n or the plan is for the other group;
 * CZK_ERR_INVALID_ARG for NULL out, or NULL bases/scalars with n > 0. */
CZK_API czk_status czk_msm_g1(czk_g1 *out, const czk_g1_affine *bases, const czk_fr *scalars, size_t n, unsigned flags,
                              const czk_msm_plan *plan, void *scratch, czk_pool *pool);
CZK_API czk_status czk_msm_g2(czk_g2 *out, const czk_g2_affine *bases, const czk_fr *scalars, size_t n, unsigned flags,
                              const czk_msm_plan *plan, void *scratch, czk_pool *pool);

/* Density-filtered MSM (bellperson queries): scalars[0..n_scalars) is the full vector, density a bitmap over it (bit i
 * = density[i >> 6] >> (i & 63) & 1), and bases holds one point per set bit, in order:
 *   out = sum_{i : bit i set} scalars[i] * bases[rank(i)],   rank(i) = number of set bits below i.
 * The plan must serve popcount(density) points. *bases_used (optional) receives that count. */
CZK_API czk_status czk_msm_g1_density(czk_g1 *out, const czk_g1_affine *bases, const czk_fr *scalars,
                                      size_t n_scalars, const uint64_t *density, unsigned flags,
                                      const czk_msm_plan *plan, void *scratch, czk_pool *pool, size_t *bases_used);
CZK_API czk_status czk_msm_g2_density(czk_g2 *out, const czk_g2_affine *bases, const czk_fr *scalars,
                                      size_t n_scalars, const uint64_t *density, unsigned flags,
                                      const czk_msm_plan *plan, void *scratch, czk_pool *pool, size_t *bases_used);

/* Number of set bits among the first n bits of a density bitmap. */
CZK_API size_t czk_msm_density_count(const uint64_t *density, size_t n);

#endif
