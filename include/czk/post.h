/* czk/post.h: Filecoin WinningPoSt and WindowPoSt (rust-fil-proofs FallbackPoSt), bit-compatible with the reference
 * (shared/docs/filecoin-post.md): the registered proofs and their v28 parameter files, the bincode vanilla proof
 * (FallbackPoStSectorProof) as Curio sends it, leaf challenges, native checks, public inputs, the circuit, and a
 * generator of valid vanilla proofs (dense small sectors, sparse any size).
 *
 * Conventions: 32-byte domains (comm_r, comm_c, comm_r_last, tree nodes) are canonical little-endian Fr encodings;
 * every function taking one rejects a value >= r with CZK_ERR_NOT_CANONICAL. Functions that can fail on input write a
 * human reason naming the sector / challenge / field into err (may be NULL) and return a status.
 * Threading: everything is reentrant; the registry is immutable. czk_post_vanilla_check and czk_post_evaluate run
 * their independent parts (openings, slots) on a pool (the default pool / the one given). */
#ifndef CZK_POST_H
#define CZK_POST_H

#include "czk/compiled.h"
#include "czk/cs.h"
#include "czk/filecoin.h"

typedef enum czk_post_type { CZK_POST_WINNING = 0, CZK_POST_WINDOW = 1 } czk_post_type;

/* One registered PoSt proof (the Go abi.RegisteredPoStProof wire value). */
typedef struct czk_post_info {
  uint64_t wire;            /* 0 .. 14 */
  const char *name;         /* proofs-api name, e.g. "StackedDrgWindow32GiBV1_2" */
  const char *go_name;      /* Go / FFI name, e.g. "StackedDrgWindow32GiBV1_1" */
  czk_post_type type;
  uint64_t sector_size;     /* bytes */
  const char *size_name;    /* "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" */
  unsigned api_minor;       /* ApiVersion 1.<api_minor>.0: 0 or 2 */
  unsigned base, sub, top;  /* TreeR_last arities (0 = absent) */
  uint32_t challenge_count; /* config: 66 Winning, 10 Window */
  uint32_t sector_count;    /* config: 1 Winning; 2 / 2349 / 2300 Window */
  uint32_t slots;           /* circuit slots N: 66 Winning, sector_count Window */
  uint32_t slot_challenges; /* inclusion proofs per slot C: 1 Winning, 10 Window */
} czk_post_info;

#define CZK_POST_N_PROOFS 15
/* NULL for an unknown wire value. */
CZK_API const czk_post_info *czk_post_info_by_wire(uint64_t wire);
/* The registered proof of (type, sector size, API minor 0 or 2); NULL when none. */
CZK_API const czk_post_info *czk_post_info_find(czk_post_type type, uint64_t sector_size, unsigned api_minor);
/* Path levels of one opening: base levels, then the sub and top levels when present. */
CZK_API unsigned czk_post_levels(const czk_post_info *info);
/* Arity of path level l (0-based, leaf level first). */
CZK_API unsigned czk_post_level_arity(const czk_post_info *info, unsigned l);
/* The v28 parameter file stem (no extension), as rust-fil-proofs names it:
 * "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-B-S-T-<sha256 hex of the circuit identifier>".
 * Winning and Window keys differ; the API version does not change the circuit. out_len >= 140. */
CZK_API void czk_post_param_stem(const czk_post_info *info, char *out, size_t out_len);
/* The circuit id PreloadSRS takes: "winning-32g", "wpost-32g", ... ("winning-2k", "wpost-8m", "wpost-512m"). */
CZK_API const char *czk_post_circuit_id(const czk_post_info *info);
/* Bytes of one FallbackPoStSectorProof of this registered proof. */
CZK_API size_t czk_post_vanilla_size(const czk_post_info *info);

/* ------------------------------------------------------------------------------------------------ vanilla proofs */
#define CZK_POST_MAX_LEVELS 12
#define CZK_POST_MAX_SIBLINGS 80

/* One Merkle opening of TreeR_last (a MerkleProof: Single / Sub / Top by shape). Siblings are stored level by level,
 * arity - 1 per level, in the vanilla `hashes` order. */
typedef struct czk_post_opening {
  uint8_t root[32];
  uint8_t leaf[32];
  uint8_t index[CZK_POST_MAX_LEVELS]; /* position at each level, < arity */
  uint8_t sib[CZK_POST_MAX_SIBLINGS][32];
} czk_post_opening;

/* A parsed FallbackPoStSectorProof (one sector, `n_openings` = challenge_count openings). */
typedef struct czk_post_sector {
  uint64_t sector_id;
  uint8_t comm_r[32];
  uint8_t comm_c[32];
  uint8_t comm_r_last[32];
  uint32_t n_openings;
  czk_post_opening *openings; /* heap */
} czk_post_sector;

/* Parses the bincode bytes of one sector's vanilla proof for `info`'s shape: every count checked against the shape
 * before anything is allocated, tags, level counts, `hashes` lengths, indices < arity, canonical domains, no trailing
 * bytes. `which` names the sector in errors (e.g. its position in the request). */
CZK_API czk_status czk_post_vanilla_parse(const czk_post_info *info, const uint8_t *buf, size_t len,
                                          czk_post_sector *out, const char *which, char *err, size_t err_len);
CZK_API void czk_post_sector_free(czk_post_sector *s);
/* Serializes byte-exactly as bincode 1.x (out: czk_post_vanilla_size bytes). */
CZK_API czk_status czk_post_vanilla_write(const czk_post_info *info, const czk_post_sector *s, uint8_t *out,
                                          size_t out_len);
/* Leaf index of opening o (mixed radix over the level positions, leaf level least significant). */
CZK_API uint64_t czk_post_opening_index(const czk_post_info *info, const czk_post_opening *o);

/* ------------------------------------------------------------------------------------------------ challenges */
/* LE_u64(SHA256(randomness || u64le(sector_id) || u64le(challenge_index))[0..8]) mod (sector_size / 32). */
CZK_API uint64_t czk_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id, uint64_t challenge_index,
                                         uint64_t sector_size);
/* The leaf challenge of challenge n of the sector at position `sector_index` (= partition * sector_count + slot for
 * WindowPoSt, 0 for WinningPoSt), by the API version's rule (1.2: n; 1.0: sector_index * challenge_count + n). */
CZK_API uint64_t czk_post_challenge(const czk_post_info *info, const uint8_t randomness[32], uint64_t sector_id,
                                    uint64_t sector_index, uint32_t n);

/* Native check of one sector, as Rust's FallbackPoSt::verify before proving (and stricter: every opening of a
 * Winning proof is checked, not only the first): comm_r = H_2(comm_c, comm_r_last), every opening's root =
 * comm_r_last, every path hashes to it, and every path's index equals the derived challenge. CZK_ERR_VERIFY_FAILED
 * with a reason naming the sector and challenge. */
CZK_API czk_status czk_post_vanilla_check(const czk_post_info *info, const czk_post_sector *s,
                                          const uint8_t randomness[32], uint64_t sector_index, const char *which,
                                          char *err, size_t err_len);

/* The same for n sectors at positions sector_index[i] (names which[i], may be NULL), every opening of every sector
 * checked in parallel on the default pool; the error names the first failing sector and challenge in request order. */
CZK_API czk_status czk_post_vanilla_check_all(const czk_post_info *info, const czk_post_sector *sectors, size_t n,
                                              const uint8_t randomness[32], const uint64_t *sector_index,
                                              const char *const *which, char *err, size_t err_len);

/* ------------------------------------------------------------------------------------------------ circuit */
/* A circuit instance: one partition. WindowPoSt: n_sectors real sectors (1 .. sector_count), slots beyond them
 * repeat the last sector (as the reference pads). WinningPoSt: n_sectors = 1, its 66 openings unrolled into 66
 * slots. sectors = NULL: a blank instance (shape / counting only). */
typedef struct czk_post_instance {
  const czk_post_info *info;
  const czk_post_sector *sectors;
  size_t n_sectors;
  uint32_t slot_begin, slot_end; /* synthesize slots [slot_begin, slot_end) only; 0, 0 = every slot */
} czk_post_instance;

/* FallbackPoStCircuit::synthesize, constraint for constraint (filecoin-post.md section 4). The caller's cs has ONE;
 * the trailing `input * 0 = 0` rows are the shape's. */
CZK_API czk_status czk_post_synthesize(czk_cs *cs, const czk_post_instance *inst);

/* What one slot adds (every slot is the same): aux variables, public inputs (1 + C), constraints. */
typedef struct czk_post_slot_counts {
  uint64_t aux, inputs, constraints;
} czk_post_slot_counts;
CZK_API czk_status czk_post_slot_counts_get(const czk_post_info *info, czk_post_slot_counts *out);

/* The whole assignment of an instance (sectors required) without the matrices, slots synthesized in parallel on the
 * pool by evaluating constraint systems (czk_cs_evaluator_new) over disjoint slices, in the layout of cs.h:
 *   w: 1 + slots * (1 + C) inputs (w[0] = 1) then slots * aux_per_slot aux;
 *   a, b, c: the circuit's rows, then one row per input (a = the input, b = c = 0), then zeros up to n_domain.
 * The caller allocates w (n_inputs + n_aux) and a, b, c (n_domain each; see czk_post_assignment_size). */
CZK_API void czk_post_assignment_size(const czk_post_info *info, const czk_post_slot_counts *sc, uint64_t *n_inputs,
                                      uint64_t *n_aux, uint64_t *n_rows, uint64_t *n_domain);
CZK_API czk_status czk_post_evaluate(const czk_post_instance *inst, czk_pool *pool, czk_fr *w, czk_fr *a, czk_fr *b,
                                     czk_fr *c);
/* The witness alone: w as czk_post_evaluate writes it (n_inputs + n_aux of czk_post_assignment_size, same values), no
 * a/b/c; slots in parallel on the pool exactly as the evaluator, each on a witness writer (czk_cs_witness_continue):
 * no linear combination is built or evaluated. */
CZK_API czk_status czk_post_witness(const czk_post_instance *inst, czk_pool *pool, czk_fr *w);

/* The circuit's outline (counts, densities; no matrices: czk_r1cs_outline_new), from one slot repeated. What a key
 * needs (czk_groth16_key_from_pk); memory ~ (aux / 4) bytes, in milliseconds at every size. */
CZK_API czk_status czk_post_outline(const czk_post_info *info, czk_r1cs **out);

/* The compiled circuit (czk/compiled.h): slot 0 recorded once, repeated for every slot (segment 0 is the empty top,
 * segment 1 the slot). Its mat-vec gives czk_post_evaluate's circuit rows. id: czk_post_circuit_id(info). */
CZK_API czk_status czk_post_compile(const czk_post_info *info, czk_compiled **out);

/* Public inputs without ONE (what Groth16 verification takes), recomputed from the request alone: per slot comm_r
 * then its C leaf challenges, padded by repeating the last real sector's tuple. ids / comm_r: n_sectors entries;
 * out: slots * (1 + C) elements. */
CZK_API czk_status czk_post_public_inputs(const czk_post_info *info, const uint64_t *sector_ids,
                                          const uint8_t (*comm_r)[32], size_t n_sectors,
                                          const uint8_t randomness[32], uint32_t partition, czk_fr *out,
                                          size_t out_len);
CZK_API size_t czk_post_num_public_inputs(const czk_post_info *info); /* slots * (1 + C), without ONE */

/* ------------------------------------------------------------------------------------------------ generator */
/* Replica leaves of a generated sector: dense (every leaf random from the seed; sector sizes up to 8 MiB) or sparse
 * (only the challenged leaves random; every untouched subtree of height h is the fixed default node of that height:
 * leaf 0, then the hash of `arity` copies of the level below), so an opening is valid for its root at any size. */
typedef enum czk_post_gen_mode { CZK_POST_GEN_DENSE = 0, CZK_POST_GEN_SPARSE = 1 } czk_post_gen_mode;

/* Makes a valid vanilla proof for sector `sector_id` at position `sector_index` (see czk_post_challenge): leaves and
 * comm_c from `seed` (SHA-256 derived, top two bits cleared), tree R_last, comm_r, and the openings of the derived
 * challenges. leaves: optional (dense only): the caller's replica leaves (sector_size / 32 nodes of 32 bytes). */
CZK_API czk_status czk_post_generate(const czk_post_info *info, czk_post_gen_mode mode, uint64_t seed,
                                     uint64_t sector_id, uint64_t sector_index, const uint8_t randomness[32],
                                     const uint8_t *leaves, const uint8_t comm_c[32], czk_post_sector *out);

#endif
