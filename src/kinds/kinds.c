/* kinds.c: shared helpers of the circuit kinds and the common destructor. */
#include <string.h>

#include "czk/kinds.h"
#include "kinds/kinds_internal.h"

czk_status czk__kinds_verify_encoded(const czk_groth16_vk *vk, const uint8_t *proof, const czk_fr *pub, size_t n_pub) {
  czk_groth16_proof p;
  czk_status st = czk_groth16_proof_decode(&p, proof);
  if (st != CZK_OK) return st;
  return czk_groth16_verify(vk, &p, pub, n_pub);
}

void czk_kind_free(czk_engine_kind *kind) {
  if (!kind || !kind->user) return;
  if (kind->parse && strncmp(kind->name, "synthetic-", 10) == 0) czk__kind_synthetic_free(kind->user);
  else if (kind->parse && strncmp(kind->name, "circom:", 7) == 0) czk__kind_circom_free(kind->user);
  memset(kind, 0, sizeof *kind);
}
