/* kinds_internal.h: helpers shared by the kind implementations. */
#ifndef CZK_KINDS_INTERNAL_H
#define CZK_KINDS_INTERNAL_H

#include "czk/groth16.h"

/* Decode a 192-byte proof and verify it against vk with the given public inputs. */
czk_status czk__kinds_verify_encoded(const czk_groth16_vk *vk, const uint8_t *proof, const czk_fr *pub, size_t n_pub);
void czk__kind_synthetic_free(void *user);
void czk__kind_circom_free(void *user);

#endif
