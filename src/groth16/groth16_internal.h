/* groth16_internal.h: helpers shared by the files of src/groth16 (not public). */
#ifndef CZK_GROTH16_INTERNAL_H
#define CZK_GROTH16_INTERNAL_H

#include "core/mapfile.h"
#include "czk/groth16.h"

#define CZK__VK_FIXED 864u /* 3 G1 + 3 G2 uncompressed points before the ic count */

uint32_t czk__be32(const uint8_t *p);
void czk__put_be32(uint8_t *p, uint32_t v);

/* The NTT domain of the pk (size n_h + 1), created by czk_groth16_pk_prepare; NULL before. */
struct czk_ntt_domain;
const struct czk_ntt_domain *czk__groth16_pk_domain(const czk_groth16_pk *pk);

/* A proof between prove_start and prove_finish. CPU path (prove.c): the five sums are final after start. Backend
 * path (prove_backend.c): `wait` blocks until the device work is done and fills the sums (finish calls it), `release`
 * returns the device resources (finish and abort call it, exactly once; it clears itself). */
struct czk_groth16_job {
  czk_groth16_pk *pk;
  const czk_groth16_vk *vk;
  czk_status status;
  czk_g1 h_acc, l_acc, a_acc, b1_acc;
  czk_g2 b2_acc;
  czk_groth16_timings t;
  czk_status (*wait)(czk_groth16_job *job);
  void (*release)(czk_groth16_job *job);
  void *pending;
};

/* Number of MSMs the prover has launched in this process (tests check that a refused witness launches none). */
extern _Atomic unsigned long czk__groth16_msm_launches;

#endif
