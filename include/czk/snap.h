/* czk/snap.h: Filecoin SnapDeals (rust-fil-proofs EmptySectorUpdate), bit-compatible with the reference
 * (shared/docs/filecoin-snap.md): the registered update proofs and their v28 parameter files, the bincode
 * PartitionProof as Curio sends it (one per partition), challenges, phi / rho and the encoding, native checks, public
 * inputs, the partition circuit (EmptySectorUpdateCircuit::synthesize) constraint for constraint, and a generator of
 * valid partition proofs (dense small sectors, sparse any size).
 *
 * Conventions: 32-byte domains (commitments, tree nodes) are little-endian field elements; every function taking
 * one rejects a value >= r with CZK_ERR_NOT_CANONICAL. Functions that can fail on input write a human reason naming
 * the partition / challenge / proof into err (may be NULL) and return a status.
 * Threading: everything is reentrant; the registry is immutable after its first use (thread-safe init). */
#ifndef CZK_SNAP_H
#define CZK_SNAP_H

#include "czk/compiled.h"
#include "czk/cs.h"
#include "czk/filecoin.h"

#define CZK_SNAP_N_PROOFS 5
#define CZK_SNAP_NO_WIRE UINT64_MAX /* a test-only shape (no registered proof) */

/* One circuit shape: a registered update proof (abi.RegisteredUpdateProof wire value) or a test-only size. Every
 * constant derives from (nodes, TreeR shape) by the rules of filecoin-snap.md section 1 (czk_snap_shape). */
typedef struct czk_snap_info {
  uint64_t wire;          /* 0 .. 4, or CZK_SNAP_NO_WIRE */
  const char *name;       /* "StackedDrg32GiBV1" ("" for a test shape) */
  uint64_t sector_size;   /* bytes = 32 * nodes */
  const char *size_name;  /* "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" ("" for a test shape) */
  uint64_t nodes;         /* sector nodes, a power of two */
  unsigned d;             /* log2(nodes): challenge bits, TreeD height */
  unsigned base, sub, top; /* TreeR shape (0 = absent) */
  uint32_t partitions;    /* P */
  unsigned pbl;           /* log2 P */
  uint32_t challenges;    /* C per partition */
  uint32_t apex_leaves;   /* A per partition */
  unsigned abl;           /* log2 A */
  unsigned hs[6];         /* the h values the circuit can select */
  unsigned h;             /* h_default = hs[3] */
  unsigned h_select;      /* 1 << (first i with hs[i] == h) */
  unsigned rb;            /* random bits per challenge: d - pbl */
  unsigned cpd;           /* challenges per digest: floor(254 / rb) */
  unsigned dpp;           /* digests per partition: ceil(C / cpd) */
} czk_snap_info;

/* NULL for an unknown wire value. */
CZK_API const czk_snap_info *czk_snap_info_by_wire(uint64_t wire);
/* The registered proof of a sector size (bytes); NULL when none. */
CZK_API const czk_snap_info *czk_snap_info_for_size(uint64_t sector_size);
/* Fills *out from the rules for `nodes` sector nodes and TreeR shape base-sub-top (the reference's test sizes 1 KiB ..
 * 16 MiB included); wire = CZK_SNAP_NO_WIRE. CZK_ERR_INVALID_ARG for a shape the rules do not cover (nodes not a power
 * of two in [2^5, 2^31], arities not powers of two, TreeR leaves not a power of the base arity). */
CZK_API czk_status czk_snap_shape(czk_snap_info *out, uint64_t nodes, unsigned base, unsigned sub, unsigned top);
/* TreeR path levels (base levels, then sub, then top) and the arity of level l (leaf level first). */
CZK_API unsigned czk_snap_r_levels(const czk_snap_info *info);
CZK_API unsigned czk_snap_r_level_arity(const czk_snap_info *info, unsigned l);
/* The v28 parameter file stem (no extension), as rust-fil-proofs names it:
 * "v28-empty-sector-update-merkletree-poseidon_hasher-B-S-T-<sha256 hex of the identifier
 *  'empty_sector_update::PublicParams{ sector_nodes: N }'>". out_len >= 140. */
CZK_API void czk_snap_param_stem(const czk_snap_info *info, char *out, size_t out_len);
/* The circuit id PreloadSRS takes: "snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g" ("snap-test" for a test
 * shape). */
CZK_API const char *czk_snap_circuit_id(const czk_snap_info *info);
/* Bytes of one bincode PartitionProof of this shape (2 KiB: 15,064; 32 GiB: 561,768). */
CZK_API size_t czk_snap_partition_size(const czk_snap_info *info);

/* ------------------------------------------------------------------------------------------------ partition proofs */
#define CZK_SNAP_MAX_R_LEVELS 12
#define CZK_SNAP_MAX_R_SIBLINGS 80
#define CZK_SNAP_MAX_D_LEVELS 31

/* A TreeR opening (MerkleProof<Poseidon, B, S, T>): siblings level by level, arity - 1 per level, vanilla order. */
typedef struct czk_snap_ropening {
  uint8_t root[32];
  uint8_t leaf[32];
  uint8_t index[CZK_SNAP_MAX_R_LEVELS];
  uint8_t sib[CZK_SNAP_MAX_R_SIBLINGS][32];
} czk_snap_ropening;

/* A TreeD opening (MerkleProof<Sha256, 2>): one sibling per level, d levels. */
typedef struct czk_snap_dopening {
  uint8_t root[32];
  uint8_t leaf[32];
  uint8_t index[CZK_SNAP_MAX_D_LEVELS];
  uint8_t sib[CZK_SNAP_MAX_D_LEVELS][32];
} czk_snap_dopening;

/* One challenge's three openings, all of the same leaf. */
typedef struct czk_snap_challenge_proof {
  czk_snap_ropening r_old; /* TreeR_old: leaf = old replica node, root = comm_r_last of the sector key */
  czk_snap_dopening d_new; /* TreeD_new: leaf = new data node, root = comm_d_new */
  czk_snap_ropening r_new; /* TreeR_new: leaf = new replica node, root = the new comm_r_last */
} czk_snap_challenge_proof;

/* A parsed PartitionProof. */
typedef struct czk_snap_partition {
  uint8_t comm_c[32];
  uint32_t n_apex;
  uint8_t (*apex)[32];          /* heap: this partition's A nodes of the TreeD apex row */
  uint32_t n_challenges;
  czk_snap_challenge_proof *ch; /* heap: C proofs in challenge order */
} czk_snap_partition;

/* Parses the bincode bytes of one PartitionProof for `info`'s shape: every count checked against the shape before
 * anything is allocated (apex leaves, challenge proofs, MerkleProof tags, path lengths, `hashes` lengths), indices
 * below the arity, canonical domains, no trailing bytes. `which` names the partition in errors ("partition 3"). */
CZK_API czk_status czk_snap_partition_parse(const czk_snap_info *info, const uint8_t *buf, size_t len,
                                            czk_snap_partition *out, const char *which, char *err, size_t err_len);
CZK_API void czk_snap_partition_free(czk_snap_partition *p);
/* Serializes byte-exactly as bincode 1.x (out: czk_snap_partition_size bytes). */
CZK_API czk_status czk_snap_partition_write(const czk_snap_info *info, const czk_snap_partition *p, uint8_t *out,
                                            size_t out_len);
/* Leaf index an opening proves (mixed radix of the level positions, leaf level least significant). */
CZK_API uint64_t czk_snap_ropening_index(const czk_snap_info *info, const czk_snap_ropening *o);
CZK_API uint64_t czk_snap_dopening_index(const czk_snap_info *info, const czk_snap_dopening *o);

/* ------------------------------------------------------------------------------------------------ derived values */
/* G(a, b): Poseidon arity 2, Standard, domain tag 1 * 2^40 (HashType::Custom(Arbitrary(1))). */
CZK_API czk_status czk_snap_gen_randomness(czk_fr *out, const czk_fr *a, const czk_fr *b);
/* phi = G(comm_d_new, comm_r_old). */
CZK_API czk_status czk_snap_phi(uint8_t out[32], const uint8_t comm_d_new[32], const uint8_t comm_r_old[32]);
/* rho(high) = G(phi, high); high(i) = i >> (d - h) (czk_snap_high). */
CZK_API czk_status czk_snap_rho(uint8_t out[32], const uint8_t phi[32], uint64_t high);
CZK_API uint64_t czk_snap_high(const czk_snap_info *info, uint64_t node);
/* The new replica node R_new = R_old + D_new * rho (mod r). */
CZK_API czk_status czk_snap_encode(uint8_t out[32], const uint8_t r_old[32], const uint8_t d_new[32],
                                   const uint8_t rho[32]);
/* comm_r = H_2(comm_c, root) (Poseidon arity 2, MerkleTree tag). */
CZK_API czk_status czk_snap_comm_r(uint8_t out[32], const uint8_t comm_c[32], const uint8_t root[32]);
/* Partition k's C challenges (section 5.3): digest j = G(comm_r_new, k * dpp + j); challenge t = bits
 * [i rb, (i+1) rb) of digest t / cpd (i = t mod cpd), plus k * 2^rb. out: info->challenges values. */
CZK_API czk_status czk_snap_challenges(const czk_snap_info *info, const uint8_t comm_r_new[32], uint32_t k,
                                       uint64_t *out);

/* The three public commitments of a request (raw 32-byte fields comm_r_old, comm_d_new, comm_r_new). */
typedef struct czk_snap_comms {
  uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32];
} czk_snap_comms;

/* Native checks of partition k before synthesis (filecoin-snap.md 2.4), everything the circuit will enforce evaluated
 * natively, stricter than the reference (which only asserts while proving): comm_r_old = H(comm_c, root of every
 * proof_r_old), comm_r_new = H(comm_c, root of every proof_r_new), every proof_d_new root = comm_d_new; for each
 * challenge: the three path indices equal the derived challenge, each path hashes to its root, the new replica
 * node is the encoding of the old one with the new data and rho(high(c)); the partition's apex leaves hash with the top
 * pbl rows of challenge 0's TreeD path to comm_d_new; every challenge's TreeD path reaches the selected apex leaf and
 * shares challenge 0's top rows. CZK_ERR_VERIFY_FAILED with the partition, challenge and what differs. */
CZK_API czk_status czk_snap_check(const czk_snap_info *info, const czk_snap_comms *comms, const czk_snap_partition *p,
                                  uint32_t k, const char *which, char *err, size_t err_len);

/* Public inputs of partition k without ONE (what Groth16 verification takes): k | h_select << pbl, comm_r_old,
 * comm_d_new, comm_r_new. */
#define CZK_SNAP_PUBLIC_INPUTS 4
CZK_API czk_status czk_snap_public_inputs(const czk_snap_info *info, const czk_snap_comms *comms, uint32_t k,
                                          czk_fr out[CZK_SNAP_PUBLIC_INPUTS]);

/* ------------------------------------------------------------------------------------------------ circuit */
/* One partition's circuit instance. comms / part NULL: a blank instance (shape / counting modes only). */
typedef struct czk_snap_instance {
  const czk_snap_info *info;
  uint32_t k;
  const czk_snap_comms *comms;
  const czk_snap_partition *part;
} czk_snap_instance;

/* EmptySectorUpdateCircuit::synthesize (filecoin-snap.md section 6), constraint for constraint. The caller's cs has
 * ONE; the trailing `input * 0 = 0` rows are the shape's. */
CZK_API czk_status czk_snap_synthesize(czk_cs *cs, const czk_snap_instance *inst);

/* The circuit's counts as counting synthesis of the whole circuit gives them (czk_cs_counts), computed from the
 * common part and one challenge (every challenge has the same structure): milliseconds at every size. */
CZK_API czk_status czk_snap_counts(const czk_snap_info *info, czk_cs_counts *out);
/* The outline (counts and densities, no matrices; czk_r1cs_outline_new) the key needs, from the same two counts:
 * the first challenge's densities repeated at each challenge's offsets. */
CZK_API czk_status czk_snap_outline(const czk_snap_info *info, czk_r1cs **out);
/* Sizes of partition k's assignment (layout of cs.h): n_inputs = 5, n_aux, n_rows = constraints + inputs, n_domain. */
CZK_API czk_status czk_snap_assignment_size(const czk_snap_info *info, uint64_t *n_inputs, uint64_t *n_aux,
                                            uint64_t *n_rows, uint64_t *n_domain);
/* The whole assignment of an instance (comms and part required) without matrices: w (n_inputs + n_aux), a, b, c
 * (n_domain each: the circuit's rows, one row per input (a = input, b = c = 0), zeros). The common part first, then
 * the challenges in parallel on the pool (NULL = default), each an evaluator over its own slice. */
/* The compiled circuit (czk/compiled.h): the common part (segment 0) and challenge 0 recorded once (segment 1,
 * repeated for every challenge); challenge t's random bits (chunk t of the common part's digests) are the segment's
 * TABLE columns. Its mat-vec gives czk_snap_evaluate's circuit rows. id: czk_snap_circuit_id(info). */
CZK_API czk_status czk_snap_compile(const czk_snap_info *info, czk_compiled **out);
CZK_API czk_status czk_snap_evaluate(const czk_snap_instance *inst, czk_pool *pool, czk_fr *w, czk_fr *a, czk_fr *b,
                                     czk_fr *c);
/* The witness alone: w as czk_snap_evaluate writes it (n_inputs + n_aux of czk_snap_assignment_size, same values), no
 * a/b/c; the common part, then the challenges in parallel exactly as the evaluator, on witness writers
 * (czk_cs_witness_continue): no linear combination is built or evaluated. */
CZK_API czk_status czk_snap_witness(const czk_snap_instance *inst, czk_pool *pool, czk_fr *w);

/* ------------------------------------------------------------------------------------------------ generator */
typedef enum czk_snap_gen_mode { CZK_SNAP_GEN_DENSE = 0, CZK_SNAP_GEN_SPARSE = 1 } czk_snap_gen_mode;

/* What an update is made from (czk_snap_generate). Dense: the whole old replica and new data (nodes each, 32 bytes a
 * node: replica nodes canonical, data nodes with the two top bits clear); NULL = derived from the seed. Sparse: the
 * replica and data are uniform inside each block of 2^(d - h) nodes (the blocks rho is constant on), one value per
 * block derived from the seed; only the opened paths and the apex rows are computed, so any size costs seconds. */
typedef struct czk_snap_gen_input {
  czk_snap_gen_mode mode;
  uint64_t seed;
  const uint8_t *old_replica; /* dense only: nodes * 32 bytes, or NULL */
  const uint8_t *new_data;    /* dense only: nodes * 32 bytes, or NULL */
  const uint8_t *comm_c;      /* 32 bytes, or NULL (derived from the seed) */
} czk_snap_gen_input;

/* A generated update: the commitments and the P partition proofs (free with czk_snap_update_free). */
typedef struct czk_snap_update {
  czk_snap_comms comms;
  uint8_t comm_c[32], root_r_old[32], root_r_new[32], phi[32];
  uint32_t n_parts;
  czk_snap_partition *parts;
} czk_snap_update;

/* Encodes the new data into the old replica (R_new = R_old + D rho(high(i))), builds TreeR_old, TreeD_new, TreeR_new
 * (the size's shapes), the commitments, and every partition's proof (apex leaves, the derived challenges' openings),
 * as rust-fil-proofs' encode_into + generate_partition_proofs would. Dense: sectors up to 8 MiB (CZK_ERR_LIMIT
 * above). */
CZK_API czk_status czk_snap_generate(const czk_snap_info *info, const czk_snap_gen_input *in, czk_snap_update *out);
CZK_API void czk_snap_update_free(czk_snap_update *u);

#endif
