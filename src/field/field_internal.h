/* field_internal.h: cross-file helpers of the field layer (not public API). */
#ifndef CZK_FIELD_INTERNAL_H
#define CZK_FIELD_INTERNAL_H

#include "czk/field.h"

/* x86-64 mulx/adcx/adox Montgomery multiplication (mont_x86_64.c), chosen at run time when the CPU has BMI2 and
 * ADX; -DCZK_NO_ASM or CZK_FIELD_PORTABLE=1 in the environment keeps the portable C path. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(CZK_NO_ASM)
#define CZK__FIELD_ASM 1
extern int czk__field_adx;
void czk__fp_mul_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void czk__fr_mul_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
/* r = a*b as 12 limbs, no reduction (r must not alias a or b); a*b < p*2^384 is what redc accepts. */
void czk__fp_mulw_adx(uint64_t r[12], const uint64_t a[6], const uint64_t b[6]);
/* r = w * 2^-384 mod p, fully reduced, for w < p*2^384 (r may alias w). */
void czk__fp_redc_adx(uint64_t r[6], const uint64_t w[12]);
/* r0 = redc(w0), r1 = redc(w1), interleaved (about the latency of one); r_k may alias w_k. */
void czk__fp_redc2_adx(uint64_t r0[6], const uint64_t w0[12], uint64_t r1[6], const uint64_t w1[12]);
#else
#define CZK__FIELD_ASM 0
#endif
/* Select the asm path (when available) or the portable one; returns whether the asm path is now in use. For tests
 * and benchmarks; not thread-safe with concurrent field arithmetic. */
bool czk__field_set_adx(bool on);


/* r = a^e with a public exponent (branches on e only; constant-time in a). */
void czk__fp_pow_public(czk_fp *r, const czk_fp *a, const uint64_t *e, size_t n);
void czk__fp2_pow_public(czk_fp2 *r, const czk_fp2 *a, const uint64_t *e, size_t n);

#endif
