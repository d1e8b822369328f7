/* czk/snarkjs.h: snarkjs interoperability at the Groth16 layer: the snarkjs Groth16 `.zkey` proving key
 * (memory-mapped), the snarkjs flavour of the one prover (what `snarkjs groth16 prove` computes), and the JSON forms
 * snarkjs uses (proof.json, public.json, verification_key.json). Spec: docs/snarkjs-formats.md (shared); readers of
 * the iden3 container and of .r1cs / .wtns: czk/circom.h. */
#ifndef CZK_SNARKJS_H
#define CZK_SNARKJS_H

#include "czk/circom.h"
#include "czk/groth16.h"

/* ------------------------------------------------------------------------------------------------ .zkey */
/* A snarkjs Groth16 proving key, memory-mapped. Opening validates the container, the header (protocol 1, q and r of
 * BLS12-381, domain a power of two > n_constraints + n_public), the sizes of sections 3-9 against the header, every
 * section-4 entry (matrix 0/1, constraint < domain, signal < n_vars, value < r), the canonical encoding and curve
 * membership of the header points and IC. czk_zkey_prepare additionally checks every point of sections 5-9
 * (canonical coordinates, on the curve or (0,0) = infinity) and compiles section 4 into row-major matrices; it is
 * idempotent and thread-safe, and the prover calls it when needed. */
typedef struct czk_zkey czk_zkey;

typedef struct czk_zkey_info {
  uint32_t n_vars;      /* witness length, ONE included */
  uint32_t n_public;    /* public signals (outputs + public inputs) */
  uint32_t domain_size; /* n = 2^log_domain */
  uint32_t log_domain;
  uint32_t n_coefs;       /* section-4 entries (A and B terms plus the n_public + 1 input rows) */
  uint32_t n_constraints; /* circuit constraints, recovered from section 4 (its input rows start there) */
} czk_zkey_info;

CZK_API czk_status czk_zkey_open(czk_zkey **out, const char *path);
/* Parse from memory (the bytes are copied; for tests and keys that did not come from a file). */
CZK_API czk_status czk_zkey_parse(czk_zkey **out, const uint8_t *buf, size_t len);
CZK_API czk_status czk_zkey_prepare(czk_zkey *z, czk_pool *pool);
/* CZK_ERR_FILE_CHANGED once the key's file was truncated or rewritten in place since czk_zkey_open (its sections
 * are used in place: reads of a vanished part give zeros instead of killing the process, and whatever was computed
 * from the key since must be discarded); CZK_OK otherwise, and for a key from czk_zkey_parse. */
CZK_API czk_status czk_zkey_check_file(const czk_zkey *z);
CZK_API void czk_zkey_close(czk_zkey *z);
CZK_API void czk_zkey_get_info(const czk_zkey *z, czk_zkey_info *info);
/* The verifying key of the zkey (alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, IC); free with
 * czk_groth16_vk_free. The snarkjs verification equation is the same as czk_groth16_verify's. */
CZK_API czk_status czk_zkey_vk(const czk_zkey *z, czk_groth16_vk *vk);

/* ------------------------------------------------------------------------------------------------ snarkjs prover */
typedef struct czk_snarkjs_timings {
  double prepare; /* czk_zkey_prepare when it ran inside this call (0 when the key was already prepared) */
  double eval;    /* A, B evaluations from section 4, C = A·B */
  double h;       /* 3 x (iNTT, coset scale, NTT) and the pointwise h = a·b - c */
  double msm_a, msm_b1, msm_b2, msm_c; /* msm_c includes the H MSM */
  double finish;                       /* blinding with r, s */
  double total;
} czk_snarkjs_timings;

/* Proves `snarkjs groth16 prove` style (docs/snarkjs-formats.md §5): evaluations from section 4, C = A·B row-wise,
 * H on the odd coset of the 2n-domain (snarkjs roots, nqr = 5) without division, five MSMs (A, B1, B2 over all
 * wires; C over wires n_public+1.. plus H), blinding with fresh r, s from czk_fr_random.
 * Checks: w->n = n_vars (CZK_ERR_SIZE_MISMATCH). It cannot check satisfaction (the zkey holds no C matrix): call
 * czk_circom_check with the .r1cs first when it is available. timings may be NULL. */
CZK_API czk_status czk_snarkjs_prove(czk_groth16_proof *proof, czk_zkey *z, const czk_circom_wtns *w, czk_pool *pool,
                                     czk_snarkjs_timings *timings);

/* The snarkjs flavour of the one prover (groth16.h): the key adapter over a zkey (prepared here; z must outlive the
 * key) and the synthesis of a witness into an assignment (a = A w, b = B w from section 4, c = a b; n_rows = 0). */
CZK_API czk_status czk_groth16_key_from_zkey(czk_groth16_key **out, czk_zkey *z, czk_pool *pool);
CZK_API czk_status czk_snarkjs_synthesize(czk_groth16_assignment *out, czk_zkey *z, const czk_circom_wtns *w,
                                          czk_pool *pool);

/* Times `reps` proofs of one circom case (zkey + wtns files), after one untimed warm-up proof that also prepares the
 * key; every proof is verified against the zkey's vk (CZK_ERR_VERIFY_FAILED if one fails). best/mean: seconds per
 * proof; open_s: open + prepare. For `czk bench prove` and bench/snarkjs-compare.sh. */
typedef struct czk_snarkjs_bench_result {
  czk_zkey_info info;
  double open_s;
  double best_s, mean_s;
  czk_snarkjs_timings best; /* stage times of the fastest proof */
} czk_snarkjs_bench_result;
CZK_API czk_status czk_snarkjs_bench_case(const char *zkey_path, const char *wtns_path, unsigned reps, czk_pool *pool,
                                          czk_snarkjs_bench_result *out);

/* ------------------------------------------------------------------------------------------------ snarkjs JSON */
/* proof.json and public.json exactly as snarkjs writes them (one-space indent; decimal strings of standard-form
 * affine coordinates, z = "1" / ["1","0"]; curve "bls12381"; no trailing newline). */
CZK_API czk_status czk_snarkjs_proof_write(const char *path, const czk_groth16_proof *p);
CZK_API czk_status czk_snarkjs_public_write(const char *path, const czk_fr *pub, size_t n);
/* The public signals of a witness: w[1..n_public]. */
CZK_API czk_status czk_snarkjs_public_from_wtns(czk_fr **pub, size_t n_public, const czk_circom_wtns *w);

/* Readers (snarkjs fromObject semantics: affine or Jacobian coordinates, z = 0 is infinity). Every coordinate must be
 * a decimal (or 0x-hex) integer < q, points on the curve and in the prime-order subgroup (CZK_ERR_NOT_ON_CURVE /
 * CZK_ERR_NOT_IN_SUBGROUP), public values < r (CZK_ERR_NOT_CANONICAL). The vk must say protocol "groth16" and curve
 * "bls12381" (CZK_ERR_UNSUPPORTED otherwise) and hold nPublic + 1 IC points. In the vk, beta_g1 and delta_g1 (not in
 * verification_key.json) are set to infinity. Inputs larger than 64 MiB are CZK_ERR_LIMIT. */
CZK_API czk_status czk_snarkjs_vk_read(czk_groth16_vk *vk, const char *path);
CZK_API czk_status czk_snarkjs_proof_read(czk_groth16_proof *p, const char *path);
CZK_API czk_status czk_snarkjs_public_read(czk_fr **pub, size_t *n, const char *path); /* *pub: free() */
/* The same from memory (NUL-terminated text). */
CZK_API czk_status czk_snarkjs_vk_parse(czk_groth16_vk *vk, const char *text);
CZK_API czk_status czk_snarkjs_proof_parse(czk_groth16_proof *p, const char *text);
CZK_API czk_status czk_snarkjs_public_parse(czk_fr **pub, size_t *n, const char *text);

#endif
