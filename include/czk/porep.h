/* czk/porep.h: Filecoin PoRep C2 (rust-fil-proofs StackedDRG), bit-compatible with the reference
 * (shared/docs/filecoin-porep.md): the registered seal proofs and their v28 parameter names, and the partition circuit
 * (StackedCircuit::synthesize) constraint for constraint.
 *
 * Also: the C1 reader and cuzk's envelope, the native checks, the public inputs of every mode (interactive, synthetic,
 * non-interactive) and a generator of valid C1 outputs (dense seals up to 8 MiB, sparse at any size). */
#ifndef CZK_POREP_H
#define CZK_POREP_H

#include <stdio.h>

#include "czk/compiled.h"
#include "czk/cs.h"
#include "czk/filecoin.h"
#include "czk/pool.h"

/* One registered seal proof (the Go abi.RegisteredSealProof value = the cuzk request's registered_proof). */
typedef struct czk_porep_info {
  uint64_t wire;          /* 0 .. 19 */
  const char *name;       /* e.g. "StackedDrg32GiBV1_1" */
  uint64_t sector_size;   /* bytes */
  const char *size_name;  /* "2KiB" ... "64GiB" */
  unsigned api_minor;     /* ApiVersion 1.<api_minor>.0 */
  unsigned feature;       /* 0 none, 1 SyntheticPoRep, 2 NonInteractivePoRep */
  unsigned layers;        /* 2 or 11 */
  uint32_t partitions;    /* 1 / 10 (interactive, synthetic); 13 / 126 (non-interactive) */
  uint32_t challenges;    /* per partition: 2 or 18 */
  unsigned base, sub, top; /* TreeC / TreeR_last arities (0 = absent); TreeD is binary SHA-256 */
} czk_porep_info;

#define CZK_POREP_N_PROOFS 20
CZK_API const czk_porep_info *czk_porep_info_by_wire(uint64_t wire);
/* The API 1.1 (V1_1) proof of a size: the circuit and key every variant of that size shares. */
CZK_API const czk_porep_info *czk_porep_info_for_size(uint64_t sector_size);
/* "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-B-S-T-sha256_hasher-<sha256 of the identifier>"
 * (every variant of one size shares it). out_len >= 160. */
CZK_API void czk_porep_param_stem(const czk_porep_info *info, char *out, size_t out_len);
/* "porep-32g", "porep-2k", ... (PreloadSRS ids). */
CZK_API const char *czk_porep_circuit_id(const czk_porep_info *info);

/* ------------------------------------------------------------------------------------------------ public data */
/* porep_id: the registered id as u64 LE, the nonce 0 as u64 LE, 16 zero bytes. */
CZK_API void czk_porep_id(const czk_porep_info *info, uint8_t out[32]);
/* prover_id of an actor id: its unsigned LEB128, zero-filled to 32 bytes (1006 -> ee 07 00 ...). */
CZK_API void czk_porep_prover_id(uint8_t out[32], uint64_t miner_id);
/* SHA-256(prover_id || sector_id u64 BE || ticket || comm_d || porep_id), byte 31 & 0x3f. */
CZK_API void czk_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                                  const uint8_t ticket[32], const uint8_t comm_d[32], const uint8_t porep_id[32]);
/* Interactive challenge j (= C k + i): SHA-256(replica_id || seed || j u32 LE) mod (nodes - 1) + 1. */
CZK_API uint64_t czk_porep_challenge_interactive(const uint8_t replica_id[32], const uint8_t seed[32],
                                                 uint64_t nodes, uint32_t j);
/* The 6 DRG parents (BucketGraph over ChaCha8; API 1.0 puts v - 1 last, 1.1+ first) and the 8 expander parents
 * (Feistel, BLAKE2b-512 rounds; API 1.0 truncates to 32 bits) of node v. */
CZK_API void czk_porep_drg_parents(const czk_porep_info *info, uint64_t v, uint64_t out[6]);
CZK_API void czk_porep_exp_parents(const czk_porep_info *info, uint64_t v, uint64_t out[8]);
/* Non-interactive challenge j: SHA-256("filecoin.io|PoRep|1|NonInteractive|1" || replica_id || comm_r || j u32 LE)
 * mod (nodes - 1) + 1. */
CZK_API uint64_t czk_porep_challenge_ni(const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t nodes,
                                        uint32_t j);
/* Synthetic PoRep: the number of synthetic challenges (min(nodes, 2^18)); synthetic challenge t (the 32 bytes at
 * 32 t of the ChaCha20 keystream, nonce "synth-porep\0", keyed by BLAKE2b-256 keyed "...|Synthetic|1|Generation" of
 * replica_id || comm_r, mod (nodes - 1) + 1); and the synthetic index selected for porep challenge j (the u32 LE at
 * 4 j of the keystream keyed by "...|Synthetic|1|Selection" of replica_id || seed, mod n_synth). */
CZK_API uint64_t czk_porep_synth_count(uint64_t nodes);
CZK_API uint64_t czk_porep_synth_challenge(const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t nodes,
                                           uint64_t t);
CZK_API uint64_t czk_porep_synth_index(const uint8_t replica_id[32], const uint8_t seed[32], uint64_t n_synth,
                                       uint64_t j);
/* Challenge i of partition k in the proof's mode: interactive (replica_id, seed), synthetic (replica_id, seed,
 * comm_r) or non-interactive (replica_id, comm_r); j = C k + i. */
CZK_API uint64_t czk_porep_challenge_at(const czk_porep_info *info, const uint8_t replica_id[32], const uint8_t seed[32],
                                     const uint8_t comm_r[32], uint32_t k, uint32_t i);
/* Partition k's public inputs without ONE (3 + 18 C), every mode: replica id, comm_d, comm_r, then per challenge c:
 * c, its 6 DRG and 8 expander parents, c, c, c. */
CZK_API czk_status czk_porep_public_inputs(const czk_porep_info *info, const uint8_t replica_id[32],
                                           const uint8_t comm_d[32], const uint8_t comm_r[32], const uint8_t seed[32],
                                           uint32_t k, czk_fr *out, size_t out_len);
/* The SDR label of node v in layer (1-based): SHA-256(replica_id || layer u32 BE || v u64 BE || 20 zero bytes ||
 * the 37 parent labels (v > 0 only)) with byte 31 & 0x3f. parents: layer 1: the 6 DRG parents' labels repeated
 * (6 x 6 + the first); later layers: the 6 DRG parents' labels of this layer then the 8 expander parents' of the
 * previous one, q || q || q[0..9]. */
CZK_API void czk_porep_label(uint8_t out[32], const uint8_t replica_id[32], unsigned layer, uint64_t v,
                             const uint8_t *const parents[37]);
/* A node's column hash (its TreeC leaf): Poseidon of arity `layers` (tag MerkleTree) over its labels of layers 1..L
 * (rows: L x 32 bytes, contiguous). */
CZK_API czk_status czk_porep_column_hash(uint8_t out[32], const uint8_t *rows, unsigned layers);

/* ------------------------------------------------------------------------------------------------ circuit */
/* The circuit's parameters: nodes (a power of two; TreeD depth log2(nodes)), layers, challenges in the partition,
 * TreeC / TreeR shape. The registered proofs use czk_porep_circuit_of; the reference's test circuits (8 nodes 2-0-0,
 * 32 nodes 8-4-0, ...) are other points of the same family. */
typedef struct czk_porep_circuit {
  uint64_t nodes;
  unsigned layers;
  unsigned challenges;
  unsigned base, sub, top;
} czk_porep_circuit;

CZK_API void czk_porep_circuit_of(const czk_porep_info *info, czk_porep_circuit *out);

#define CZK_POREP_MAX_LAYERS 11
#define CZK_POREP_MAX_LEVELS 40 /* TreeD levels <= 31; TreeC/R levels <= 11 */
#define CZK_POREP_MAX_SIBLINGS 80

/* One Merkle path: position and siblings per level (leaf level first; arity - 1 siblings each, in order). */
typedef struct czk_porep_path {
  uint8_t index[CZK_POREP_MAX_LEVELS];
  uint8_t sib[CZK_POREP_MAX_SIBLINGS][32];
} czk_porep_path;

/* A column of TreeC: the node's label in every layer (rows[l - 1] = layer l) and its TreeC path. */
typedef struct czk_porep_column {
  uint8_t rows[CZK_POREP_MAX_LAYERS][32];
  czk_porep_path path;
} czk_porep_column;

/* The values of one challenge (what C2 reads from the C1 output for it). */
typedef struct czk_porep_challenge {
  uint64_t challenge;     /* the node */
  uint8_t data_leaf[32];  /* TreeD leaf (unsealed data) */
  czk_porep_path d_path;  /* TreeD (binary SHA-256): siblings one per level */
  czk_porep_column drg[6], exp[8];
  czk_porep_path r_path;  /* TreeR_last path of the challenged node (its leaf is the encoding, computed) */
  czk_porep_path c_path;  /* TreeC path of the challenged node's column (its leaf is computed from the labels) */
} czk_porep_challenge;

/* One partition's values. */
typedef struct czk_porep_partition {
  uint8_t replica_id[32], comm_d[32], comm_r[32], comm_r_last[32], comm_c[32];
  size_t n_challenges;
  const czk_porep_challenge *ch;
} czk_porep_partition;

/* ------------------------------------------------------------------------------------------------ C1 output */
/* A C1 output (SealCommitPhase1Output, the serde_json bytes filecoin-ffi produces) read into circuit values: lengths
 * checked against the registered proof named in it, domains canonical, comm_r_last / comm_c equal across a
 * partition. Read by a streaming parser into a compact tree (about half the text's size), never a full DOM. */
typedef struct czk_porep_c1 {
  const czk_porep_info *info;
  uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
  uint32_t partitions, challenges;
  czk_porep_challenge *ch;  /* partitions * challenges, partition-major */
  uint8_t (*comm_r_last)[32]; /* per partition */
  uint8_t (*comm_c)[32];
} czk_porep_c1;

/* The request's vanilla_proof in one call: cuzk's envelope {"SectorNum": n, "Phase1Out": base64(C1 JSON),
 * "SectorSize": s} (Go json.Marshal of C1OutputWrapper; Phase1Out is decoded and parsed piece by piece, the decoded
 * JSON is never held whole) or a bare C1 output (*sector_num = *sector_size = 0). Either pointer may be NULL.
 * CZK_ERR_FORMAT / _TRUNCATED / _NOT_CANONICAL / _LIMIT with a message naming the field (and the partition and
 * challenge, or the byte offset of broken JSON or base64). */
CZK_API czk_status czk_porep_c1_read(czk_porep_c1 *out, const uint8_t *in, size_t len, uint64_t *sector_num,
                                     uint64_t *sector_size, char *err, size_t err_len);
/* A bare C1 output JSON only (no envelope). */
CZK_API czk_status czk_porep_c1_parse(czk_porep_c1 *out, const char *json, size_t len, char *err, size_t err_len);
CZK_API void czk_porep_c1_free(czk_porep_c1 *c1);
/* Partition k's values (borrowing c1). */
CZK_API void czk_porep_c1_partition(const czk_porep_c1 *c1, uint32_t k, czk_porep_partition *out);

/* Native checks of a C1 output before synthesis, everything the circuit will enforce evaluated natively: the replica
 * id from (miner, sector, ticket, comm_d, porep_id); comm_d, comm_r, seed non-zero; comm_r = H(comm_c, comm_r_last)
 * per partition; per challenge: the node is the derived challenge (interactive proofs), the TreeD path of the data
 * leaf reaches comm_d at that node, every parent column (6 DRG, 8 expander) hashes into TreeC at the graph's parent,
 * the labels of every layer recomputed from those columns, the encoding (last label + data) in TreeR_last and the
 * labels' column in TreeC, both at the node. CZK_ERR_VERIFY_FAILED with the partition, challenge and what differs. */
CZK_API czk_status czk_porep_c1_check(const czk_porep_c1 *c1, uint64_t miner_id, uint64_t sector_id, char *err,
                                      size_t err_len);

/* ------------------------------------------------------------------------------------------------ generator */
/* A valid C1 output (porep_gen.c): DENSE seals random data (sectors up to 8 MiB, CZK_ERR_LIMIT above; every mode);
 * SPARSE builds a committed-capacity sector's openings at any size from the challenged nodes and their parents only
 * (interactive proofs: CZK_ERR_UNSUPPORTED for synthetic and non-interactive ones, whose challenges depend on comm_r).
 * Reproducible from seed; the prover id is miner_id's. Free with czk_porep_c1_free. */
typedef enum czk_porep_gen_mode { CZK_POREP_GEN_DENSE = 0, CZK_POREP_GEN_SPARSE = 1 } czk_porep_gen_mode;
CZK_API czk_status czk_porep_generate(const czk_porep_info *info, czk_porep_gen_mode mode, uint64_t seed,
                                      uint64_t miner_id, uint64_t sector_id, czk_porep_c1 *out);
/* The C1 output as filecoin-ffi's serde_json writes it (compact, declaration order): the values C2 does not read
 * (the challenged column, labeling and encoding proofs, leaves, column indices) recomputed from those it does. */
CZK_API czk_status czk_porep_c1_write(const czk_porep_c1 *c1, FILE *f);
/* cuzk's envelope: {"SectorNum":n,"Phase1Out":"<standard base64>","SectorSize":s}. */
CZK_API czk_status czk_porep_envelope_write(FILE *f, const uint8_t *c1_json, size_t len, uint64_t sector_num,
                                            uint64_t sector_size);

/* StackedCircuit::synthesize (filecoin-porep.md section 3), constraint for constraint. values = NULL: a blank circuit
 * (shape / counting modes only). */
CZK_API czk_status czk_porep_synthesize(czk_cs *cs, const czk_porep_circuit *c, const czk_porep_partition *values);

/* The circuit's counts (as a counting synthesis of the whole circuit gives them) from one and two challenges counted
 * and scaled (every challenge adds the same): seconds instead of minutes at 32 GiB. */
CZK_API czk_status czk_porep_counts(const czk_porep_circuit *c, czk_cs_counts *out);
/* The circuit's outline (counts and densities, no matrices; what a key is made from), the same way: the top and one
 * challenge counted, that challenge's densities repeated at every challenge's offset. */
CZK_API czk_status czk_porep_outline(const czk_porep_circuit *c, czk_r1cs **out);

/* The assignment of one partition without matrices, its challenges evaluated in parallel on pool (NULL: the default
 * pool): the top and challenge 0 in order, then challenges 1 .. C-1 each into its own slice (every challenge adds the
 * same inputs, aux and constraints). w: n_inputs inputs (w[0] = ONE, set here) then n_aux aux; a, b, c: the n_rows
 * synthesized constraints' evaluations (the prover's input rows and the domain's tail are the caller's).
 * CZK_ERR_SIZE_MISMATCH when the sizes are not the circuit's. Same values as czk_porep_synthesize on an evaluator. */
typedef struct czk_porep_eval_out {
  czk_fr *w;
  uint64_t n_inputs, n_aux, n_rows;
  czk_fr *a, *b, *c;
} czk_porep_eval_out;
CZK_API czk_status czk_porep_evaluate(const czk_porep_circuit *c, const czk_porep_partition *v, czk_pool *pool,
                                      const czk_porep_eval_out *o);
/* The witness alone (w, the same layout and values as czk_porep_evaluate's w), no a/b/c: the same synthesis on witness
 * writers (czk_cs_witness_continue), challenges in parallel on pool exactly as the evaluator; no linear combination is
 * built or evaluated. w: n_inputs + n_aux elements (w[0] = ONE, set here). CZK_ERR_SIZE_MISMATCH when the sizes are
 * not the circuit's (czk_porep_counts). For a/b/c computed elsewhere (a pre-compiled CSR, e.g. on the GPU). */
CZK_API czk_status czk_porep_witness(const czk_porep_circuit *c, const czk_porep_partition *v, czk_pool *pool,
                                     czk_fr *w, uint64_t n_inputs, uint64_t n_aux);

/* The compiled circuit (czk/compiled.h): the top (segment 0) and challenge 0 recorded once (segment 1, repeated for
 * every challenge), so a 32 GiB partition is compiled in the time and memory of one challenge. Its mat-vec gives
 * czk_porep_evaluate's a, b, c. id: stored in the compiled form (e.g. czk_porep_circuit_id), may be NULL. */
CZK_API czk_status czk_porep_compile(const czk_porep_circuit *c, const char *id, czk_compiled **out);

#endif
