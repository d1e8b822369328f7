/* field_internal.h: cross-file helpers of the field layer (not public API). */
#ifndef CZK_FIELD_INTERNAL_H
#define CZK_FIELD_INTERNAL_H

#include "czk/field.h"

/* r = a^e with a public exponent (branches on e only; constant-time in a). */
void czk__fp_pow_public(czk_fp *r, const czk_fp *a, const uint64_t *e, size_t n);
void czk__fp2_pow_public(czk_fp2 *r, const czk_fp2 *a, const uint64_t *e, size_t n);

#endif
