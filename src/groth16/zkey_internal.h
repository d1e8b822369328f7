/* zkey_internal.h: the czk_zkey struct, shared by zkey.c (reader) and snarkjs_prove.c (prover). */
#ifndef CZK_GROTH16_ZKEY_INTERNAL_H
#define CZK_GROTH16_ZKEY_INTERNAL_H

#include <pthread.h>

#include "cs/binfile.h"
#include "czk/snarkjs.h"
#include "czk/ntt.h"

#define CZK_ZKEY_MAX_LOG_DOMAIN 28 /* snarkjs's own limit for BLS12-381 ptau files */

struct czk_zkey {
  czk__file_map map; /* the file (or a heap copy when heap_copy) */
  bool heap_copy;
  czk_zkey_info info;
  czk_g1_affine alpha1, beta1, delta1;
  czk_g2_affine beta2, gamma2, delta2;
  czk_g1_affine *ic;     /* n_public + 1, heap */
  const uint8_t *coefs;  /* section 4 entries (after the count), in the mapping */
  const uint8_t *sec[5]; /* raw sections 5..9 in the mapping */

  /* filled by czk_zkey_prepare under lock */
  pthread_mutex_t lock;
  bool prepared;
  czk_status prepare_status;
  void *owned[5]; /* aligned copies of sections 5..9 when the mapping is misaligned */
  const czk_g1_affine *pt_a, *pt_b1, *pt_c, *pt_h;
  const czk_g2_affine *pt_b2;
  czk_csr a, b; /* rows 0..domain_size-1 */
  czk_ntt_domain *domain;
};

#endif
