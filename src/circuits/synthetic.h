/* synthetic.h: synthetic benchmark/test circuits (synthetic.c): a family of R1CS instances with exactly 2^k
 * constraints (trailing input constraints included, so the domain is exactly 2^k), a realistic mix of
 * multiplications, long linear combinations (with repeated and cancelling terms), boolean constraints, selections
 * and a few public inputs. The shape depends only on k; the witness is deterministic from (k, seed). */
#ifndef CZK_CIRCUITS_SYNTHETIC_H
#define CZK_CIRCUITS_SYNTHETIC_H

#include "czk/cs.h"

#define CZK_SYNTHETIC_MIN_LOG 4u
#define CZK_SYNTHETIC_MAX_LOG 28u

/* Number of public inputs (without ONE) of the size-2^k circuit. */
CZK_API unsigned czk_synthetic_num_public(unsigned log_size);
/* Run the circuit against any constraint system (shape recorder, witness builder, checker). */
CZK_API czk_status czk_synthetic_synthesize(czk_cs *cs, unsigned log_size, uint64_t seed);
/* Convenience: the compiled shape, and a witness. */
CZK_API czk_status czk_synthetic_shape(czk_r1cs **out, unsigned log_size);
CZK_API czk_status czk_synthetic_witness(czk_witness *out, unsigned log_size, uint64_t seed);

#endif
