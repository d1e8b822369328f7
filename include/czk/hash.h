/* czk/hash.h: Filecoin hashing primitives, natively, bit-compatible with rust-fil-proofs / neptune (what the gadgets
 * of gadgets.h are checked against; fr32 and the trees built from these hashes are in filecoin.h):
 *   - SHA-256, and Filecoin's truncated SHA-256 (the two top bits of digest byte 31 cleared, so that a digest is a
 *     254-bit little-endian field element), and its 2-to-1 node over 32-byte nodes;
 *   - Poseidon over BLS12-381 Fr exactly as neptune (Grain-LFSR round constants, Cauchy MDS, R_F full and R_P partial
 *     rounds, domain tags), Strength::Standard and Strengthened, any arity 1..36 (Filecoin uses 2, 4, 8, 11, 16, 24, 36);
 *   - Merkle node hashes of either (arities 2..16) and inclusion-path checks (the paths of Poseidon and SHA trees).
 *
 * Nodes ("domains") are 32 bytes: a SHA node is the truncated digest; a Poseidon node is the canonical little-endian
 * encoding of an Fr element (PoseidonDomain = Fr::to_repr()). Functions taking Poseidon nodes reject non-canonical
 * encodings (>= r) with CZK_ERR_NOT_CANONICAL where the reference would panic.
 *
 * Threading: everything here is reentrant; Poseidon constants are generated once per (arity, strength) on first use
 * and then shared read-only (czk_poseidon_get is thread-safe). */
#ifndef CZK_HASH_H
#define CZK_HASH_H

#include "czk/field.h"

/* ------------------------------------------------------------------------------------------------ SHA-256 */
typedef struct czk_sha256_ctx {
  uint32_t h[8];
  uint64_t total; /* bytes absorbed */
  uint8_t buf[64];
  size_t buf_len;
} czk_sha256_ctx;

CZK_API void czk_sha256_init(czk_sha256_ctx *c);
CZK_API void czk_sha256_update(czk_sha256_ctx *c, const void *data, size_t len);
CZK_API void czk_sha256_final(czk_sha256_ctx *c, uint8_t out[32]);
CZK_API void czk_sha256(uint8_t out[32], const void *data, size_t len);
/* One compression of a 64-byte block into the state (big-endian words, FIPS 180-4). */
CZK_API void czk_sha256_compress(uint32_t state[8], const uint8_t block[64]);
CZK_API extern const uint32_t czk_sha256_iv[8];
CZK_API extern const uint32_t czk_sha256_k[64];

/* Filecoin's Sha256Function: SHA-256 of data with digest byte 31 &= 0x3f. */
CZK_API void czk_fc_sha256(uint8_t out[32], const void *data, size_t len);
/* hash2 / node: truncated SHA-256 of left || right. */
CZK_API void czk_fc_sha256_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);

/* ------------------------------------------------------------------------------------------------ Poseidon */
typedef enum czk_poseidon_strength {
  CZK_POSEIDON_STANDARD = 0,
  CZK_POSEIDON_STRENGTHENED = 1 /* partial rounds * 1.25, rounded up */
} czk_poseidon_strength;

/* neptune HashType (domain separation: the tag is state element 0). */
typedef enum czk_poseidon_hash_type {
  CZK_POSEIDON_MERKLE_TREE = 0,     /* tag 2^arity - 1; preimage length = arity */
  CZK_POSEIDON_CONSTANT_LENGTH = 1, /* tag n * 2^64 (param = n); any n >= 1, hashed with neptune's simplex sponge */
  CZK_POSEIDON_ENCRYPTION = 2,      /* tag 2^32; preimage length = arity */
  CZK_POSEIDON_CUSTOM = 3,          /* tag id * 2^40 (param = id, 1..256); preimage length = arity */
  CZK_POSEIDON_SPONGE = 4           /* tag 0 (domain tag only; no hash function) */
} czk_poseidon_hash_type;

#define CZK_POSEIDON_MAX_ARITY 36

/* Constants for one (arity, strength): round numbers, round constants, MDS matrices and the pre-processed
 * (compressed constants, sparse matrices) form. Immutable and shared. */
typedef struct czk_poseidon czk_poseidon;

/* Cached constants (generated on first use, a few ms for arity 36); arity 1..36. Never freed. */
CZK_API czk_status czk_poseidon_get(const czk_poseidon **out, unsigned arity, czk_poseidon_strength strength);
CZK_API unsigned czk_poseidon_arity(const czk_poseidon *p);
CZK_API void czk_poseidon_rounds(const czk_poseidon *p, unsigned *full_rounds, unsigned *partial_rounds);
/* neptune's round-number rule (calc_round_numbers with the security margin; Strengthened adds 25%). */
CZK_API czk_status czk_poseidon_round_numbers(unsigned arity, czk_poseidon_strength s, unsigned *rf, unsigned *rp);
/* Domain tag of a hash type (param: n for CONSTANT_LENGTH, id for CUSTOM, ignored otherwise). */
CZK_API czk_status czk_poseidon_domain_tag(czk_fr *tag, czk_poseidon_hash_type type, uint64_t param, unsigned arity);

/* The permutation on state[0 .. arity] (width arity+1), in place.
 * permute: neptune's OptimizedStatic schedule (compressed constants, sparse partial-round matrices):
 *   per full round t S-boxes + t^2 mul; per partial round 1 S-box + 2t-1 mul.
 * permute_reference: the textbook schedule (add constants, S-box, dense MDS every round); same result. */
CZK_API void czk_poseidon_permute(const czk_poseidon *p, czk_fr *state);
CZK_API void czk_poseidon_permute_reference(const czk_poseidon *p, czk_fr *state);

/* Hash `n` elements with the given hash type (param as for the domain tag):
 *   MERKLE_TREE, ENCRYPTION, CUSTOM: n must equal the arity; state = [tag, in...]; out = state[1] after one permutation;
 *   CONSTANT_LENGTH: param must equal n (any n >= 1): neptune's simplex sponge (absorb `arity` elements additively
 *     then permute; a final partial block zeroes the rest of the rate first); out = state[1]. For n <= arity this
 *     equals a single permutation of [tag, in..., 0...].
 * CZK_ERR_SIZE_MISMATCH for a wrong n, CZK_ERR_UNSUPPORTED for SPONGE. */
CZK_API czk_status czk_poseidon_hash(czk_fr *out, const czk_poseidon *p, czk_poseidon_hash_type type, uint64_t param,
                                     const czk_fr *in, size_t n);

/* filecoin-hashers PoseidonFunction::hash_md (arity 36, MerkleTree tag, Standard): acc = in[0]; for each chunk of
 * 35 following elements: acc = H(acc, chunk..., zero padding). n >= 2. */
CZK_API czk_status czk_fc_poseidon_hash_md(czk_fr *out, const czk_fr *in, size_t n);

/* ------------------------------------------------------------------------------------------------ Merkle trees */
typedef enum czk_fc_hasher { CZK_FC_SHA256 = 0, CZK_FC_POSEIDON = 1 } czk_fc_hasher;

#define CZK_FC_MAX_ARITY 16
/* Node hash of `arity` children (32-byte nodes). SHA256: truncated SHA-256 of the concatenation (any arity >= 2);
 * POSEIDON: MerkleTree-tagged Poseidon, Standard, of that arity (Filecoin trees use 2, 4, 8 and 16). */
CZK_API czk_status czk_fc_node_hash(czk_fc_hasher h, uint8_t out[32], const uint8_t *children, unsigned arity);

/* One level of an inclusion path: the `arity - 1` siblings in order (the proven node omitted) and its position. */
typedef struct czk_fc_path_level {
  unsigned arity;
  unsigned index;
  uint8_t siblings[CZK_FC_MAX_ARITY - 1][32];
} czk_fc_path_level;

#define CZK_FC_MAX_PATH 64

/* Recomputes the root from the leaf and the path: CZK_OK when it equals root, CZK_ERR_VERIFY_FAILED otherwise
 * (CZK_ERR_INVALID_ARG for a malformed path: index >= arity, unsupported arity). */
CZK_API czk_status czk_fc_merkle_verify(czk_fc_hasher h, const uint8_t root[32], const uint8_t leaf[32],
                                        const czk_fc_path_level *path, size_t n_levels);
/* The leaf index a path proves: sum of index_l * prod_{j<l} arity_j (mixed radix, leaf level least significant). */
CZK_API uint64_t czk_fc_path_leaf_index(const czk_fc_path_level *path, size_t n_levels);

#endif
