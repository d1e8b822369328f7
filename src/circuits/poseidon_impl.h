/* poseidon_impl.h: the layout of czk_poseidon (constants of one arity/strength), shared by the native hash
 * (poseidon.c) and the in-circuit gadget. Matrices are row-major width x width arrays of Fr (Montgomery form).
 *
 * Invariants (neptune PoseidonConstants): width = arity + 1; rf even, half = rf / 2; rc holds (rf + rp) * width
 * Grain constants; crc holds rf * width + rp compressed constants in the order the optimized schedule consumes them;
 * the partial rounds use pre_sparse once (after the last first-half full round) and then sparse matrix k
 * (w_hat = its first column, v_rest = its first row without [0][0]; identity elsewhere) for partial round k. */
#ifndef CZK_CIRCUITS_POSEIDON_IMPL_H
#define CZK_CIRCUITS_POSEIDON_IMPL_H

#include "czk/hash.h"

struct czk_poseidon {
  unsigned arity, width, rf, rp, half;
  czk_poseidon_strength strength;
  czk_fr *rc;         /* (rf + rp) * width */
  czk_fr *crc;        /* rf * width + rp */
  czk_fr *m;          /* MDS, width^2, symmetric */
  czk_fr *m_inv;      /* width^2 */
  czk_fr *pre_sparse; /* width^2 */
  czk_fr *w_hat;      /* rp * width */
  czk_fr *v_rest;     /* rp * (width - 1) */
};

/* y = x^5 + (post ? *post : 0), in place. */
static inline void czk__poseidon_sbox(czk_fr *x, const czk_fr *post) {
  czk_fr t;
  czk_fr_sqr(&t, x);
  czk_fr_sqr(&t, &t);
  czk_fr_mul(x, x, &t);
  if (post) czk_fr_add(x, x, post);
}

#endif
