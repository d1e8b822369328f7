/* czk/circom.h: circom interoperability at the constraint-system layer: readers for circom's `.r1cs` and `.wtns` and
 * the witness check. The snarkjs side (.zkey, the snarkjs flavour of the prover, JSON forms) is czk/snarkjs.h.
 *
 * Spec: docs/snarkjs-formats.md (shared). Only BLS12-381 (snarkjs curve "bls12381") is supported: a file whose prime
 * is another field gives CZK_ERR_UNSUPPORTED.
 *
 * All three binary formats share the iden3 "binfile" container: magic[4], u32 version, u32 nSections, then
 * nSections x {u32 id, u64 size, body}. The readers locate sections through the table (file order is not id order),
 * require the sections to tile the file exactly (no trailing bytes, nothing past the end), reject duplicate ids and
 * check every section size against the counts in the headers. Damaged input gives a status (CZK_ERR_TRUNCATED,
 * CZK_ERR_FORMAT, CZK_ERR_NOT_CANONICAL, CZK_ERR_SIZE_MISMATCH, CZK_ERR_UNSUPPORTED, CZK_ERR_NOT_ON_CURVE), never a
 * crash or a read past the end.
 *
 * Wire numbering (circom): 0 = ONE, then public outputs, public inputs, private inputs, internal wires;
 * n_public = n_pub_out + n_pub_in and the public signals are wires 1..n_public. */
#ifndef CZK_CIRCOM_H
#define CZK_CIRCOM_H

#include "czk/cs.h"

/* ------------------------------------------------------------------------------------------------ .r1cs */
/* A circom constraint system. Rows are constraints A·B = C; the CSR columns are wire ids (strictly increasing within a
 * row: circom's unsorted terms are sorted, duplicate wires merged, zero coefficients dropped), values are czk_fr in
 * Montgomery form. Heap-owned; free with czk_circom_r1cs_free. */
typedef struct czk_circom_r1cs {
  uint32_t n_wires; /* including ONE */
  uint32_t n_pub_out, n_pub_in, n_prv_in;
  uint64_t n_labels;
  uint32_t n_constraints;
  czk_csr a, b, c; /* n_constraints rows each */
} czk_circom_r1cs;

CZK_API czk_status czk_circom_r1cs_parse(czk_circom_r1cs **out, const uint8_t *buf, size_t len);
CZK_API czk_status czk_circom_r1cs_read(czk_circom_r1cs **out, const char *path);
CZK_API void czk_circom_r1cs_free(czk_circom_r1cs *r);
static inline uint32_t czk_circom_r1cs_n_public(const czk_circom_r1cs *r) { return r->n_pub_out + r->n_pub_in; }

/* ------------------------------------------------------------------------------------------------ .wtns */
/* A circom witness (version 2): w[0..n) in Montgomery form; w[0] = 1 (checked). Heap-owned. */
typedef struct czk_circom_wtns {
  uint32_t n;
  czk_fr *w;
} czk_circom_wtns;

CZK_API czk_status czk_circom_wtns_parse(czk_circom_wtns *out, const uint8_t *buf, size_t len);
CZK_API czk_status czk_circom_wtns_read(czk_circom_wtns *out, const char *path);
CZK_API void czk_circom_wtns_free(czk_circom_wtns *w);

/* Checks a witness against a constraint system: n = n_wires (else CZK_ERR_SIZE_MISMATCH), then every row
 * (A·w)(B·w) = C·w; CZK_ERR_UNSATISFIED with *row (may be NULL) = the first failing constraint.
 * Cost: nnz(A)+nnz(B)+nnz(C)+n_constraints multiplications, rows split across the pool (NULL = default). */
CZK_API czk_status czk_circom_check(const czk_circom_r1cs *r, const czk_circom_wtns *w, size_t *row, czk_pool *pool);

#endif
