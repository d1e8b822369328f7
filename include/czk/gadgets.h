/* czk/gadgets.h: circuit gadgets on cs.h, constraint-for-constraint with the reference stack (bellpepper gadgets,
 * neptune's Poseidon circuit, rust-fil-proofs storage-proofs-core): the same variables are allocated in the same
 * order and the same constraints (same linear combinations) are enforced in the same order, so a circuit built from
 * these gadgets has exactly the R1CS of its Rust original and proves against the published Filecoin parameters.
 *
 * Values: every gadget computes witness values in every mode (they are ignored by the shape recorder, where inputs
 * may be anything, e.g. zero). In witness mode no linear combination is built (enforce only counts), and SHA-256
 * runs natively on 32-bit words (value + constant / Not bit masks reproduce bellpepper's constant folding), writing the
 * bits it allocates in the gadget's order with czk_cs_witness_bits: same variables, same values, same counts.
 * Errors: the czk_cs error is sticky; each function returns czk_cs_status(cs) (or its own argument error).
 * Booleans and words are small value types (no heap); numbers (czk_num) are a variable plus its value. */
#ifndef CZK_GADGETS_H
#define CZK_GADGETS_H

#include "czk/cs.h"
#include "czk/hash.h"

/* ------------------------------------------------------------------------------------------------ Boolean */
typedef enum czk_bool_kind { CZK_BOOL_CONST = 0, CZK_BOOL_IS = 1, CZK_BOOL_NOT = 2 } czk_bool_kind;

/* bellpepper Boolean: Constant(v), Is(bit) or Not(bit). value = the Boolean's value (negation applied). */
typedef struct czk_bool {
  uint8_t kind;
  uint8_t value;
  czk_var var; /* the allocated bit (IS / NOT) */
} czk_bool;

static inline czk_bool czk_bool_const(bool v) {
  czk_bool b = {CZK_BOOL_CONST, (uint8_t)v, 0};
  return b;
}
static inline czk_bool czk_bool_not(czk_bool b) {
  if (b.kind == CZK_BOOL_IS) b.kind = CZK_BOOL_NOT;
  else if (b.kind == CZK_BOOL_NOT) b.kind = CZK_BOOL_IS;
  b.value ^= 1;
  return b;
}

/* AllocatedBit::alloc: 1 aux, 1 constraint (1 - a) * a = 0. */
CZK_API czk_status czk_bit_alloc(czk_cs *cs, czk_bool *out, bool value);
/* AllocatedBit::alloc_conditionally: (1 - must_be_false - a) * a = 0 (must_be_false: an allocated bit). */
CZK_API czk_status czk_bit_alloc_conditionally(czk_cs *cs, czk_bool *out, bool value, czk_var must_be_false);
/* Boolean::xor / and / or with bellpepper's constant and negation cases (0 or 1 constraint). */
CZK_API czk_status czk_bool_xor(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b);
CZK_API czk_status czk_bool_and(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b);
CZK_API czk_status czk_bool_or(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b);
/* Boolean::sha256_ch (a and b) xor ((not a) and c); sha256_maj (a and b) xor (a and c) xor (b and c). */
CZK_API czk_status czk_bool_sha256_ch(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b, czk_bool c);
CZK_API czk_status czk_bool_sha256_maj(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b, czk_bool c);
/* Boolean::enforce_equal (CZK_ERR_UNSATISFIED for two different constants, as the reference's Unsatisfiable). */
CZK_API czk_status czk_bool_enforce_equal(czk_cs *cs, czk_bool a, czk_bool b);
/* lc += Boolean::lc(ONE, coeff): Const(true) -> coeff*ONE, Is -> coeff*v, Not -> coeff*ONE - coeff*v. */
CZK_API void czk_lc_add_bool(czk_lc *lc, czk_bool b, const czk_fr *coeff);

/* ------------------------------------------------------------------------------------------------ UInt32 */
typedef struct czk_u32 {
  czk_bool bits[32]; /* least significant first */
  uint32_t value;
} czk_u32;

CZK_API czk_u32 czk_u32_const(uint32_t v);
CZK_API czk_status czk_u32_alloc(czk_cs *cs, czk_u32 *out, uint32_t value); /* 32 allocated bits */
CZK_API czk_u32 czk_u32_from_bits_be(const czk_bool bits[32]);
CZK_API void czk_u32_to_bits_be(czk_bool out[32], const czk_u32 *a);
CZK_API czk_u32 czk_u32_rotr(const czk_u32 *a, unsigned by);
CZK_API czk_u32 czk_u32_shr(const czk_u32 *a, unsigned by);
CZK_API czk_status czk_u32_xor(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b);
CZK_API czk_status czk_u32_sha256_ch(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b, const czk_u32 *c);
CZK_API czk_status czk_u32_sha256_maj(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b, const czk_u32 *c);

/* MultiEq: batches the equalities of several additions into one constraint `lhs * ONE = rhs` while the packed bit
 * count stays below Fr's capacity (254 bits). finish() emits the pending batch and frees the combinations. */
typedef struct czk_multieq {
  czk_cs *cs;
  unsigned bits_used;
  size_t ops;
  czk_lc lhs, rhs;
} czk_multieq;

CZK_API void czk_multieq_init(czk_multieq *me, czk_cs *cs);
CZK_API czk_status czk_multieq_enforce_equal(czk_multieq *me, unsigned num_bits, const czk_lc *lhs, const czk_lc *rhs);
CZK_API czk_status czk_multieq_finish(czk_multieq *me);
/* UInt32::addmany of 2..10 operands (mod 2^32): allocates bitlen(n * (2^32 - 1)) result bits and batches the
 * equality through `me`; all-constant operands give a constant. */
CZK_API czk_status czk_u32_addmany(czk_multieq *me, czk_u32 *out, const czk_u32 *ops, size_t n);

/* ------------------------------------------------------------------------------------------------ SHA-256 */
/* One compression: input 512 Booleans (big-endian words), state 8 words; out may alias state. */
CZK_API czk_status czk_sha256_compress_gadget(czk_cs *cs, czk_u32 out[8], const czk_bool in[512], const czk_u32 state[8]);
/* SHA-256 with padding of nbits (a multiple of 8) Booleans; out: 256 Booleans (big-endian bit order). */
CZK_API czk_status czk_sha256_gadget(czk_cs *cs, czk_bool out[256], const czk_bool *in, size_t nbits);

/* ------------------------------------------------------------------------------------------------ numbers */
typedef struct czk_num {
  czk_var var;
  czk_fr value;
} czk_num;

CZK_API czk_status czk_num_alloc(czk_cs *cs, czk_num *out, const czk_fr *value);
CZK_API czk_status czk_num_alloc_input(czk_cs *cs, czk_num *out, const czk_fr *value);
/* inputize: a new input x with x * ONE = a. */
CZK_API czk_status czk_num_inputize(czk_cs *cs, const czk_num *a);
/* to_bits_le: 255 allocated bits (little-endian) + 1 unpacking constraint (not range-checked against r). */
CZK_API czk_status czk_num_to_bits_le(czk_cs *cs, czk_bool out[255], const czk_num *a);
/* to_bits_le_strict: 255 bits constrained to encode a value < r (runs-of-ones comparison with r - 1). */
CZK_API czk_status czk_num_to_bits_le_strict(czk_cs *cs, czk_bool out[255], const czk_num *a);
CZK_API czk_status czk_num_add(czk_cs *cs, czk_num *out, const czk_num *a, const czk_num *b);
CZK_API czk_status czk_num_mul(czk_cs *cs, czk_num *out, const czk_num *a, const czk_num *b);
CZK_API czk_status czk_num_square(czk_cs *cs, czk_num *out, const czk_num *a);
CZK_API czk_status czk_num_assert_nonzero(czk_cs *cs, const czk_num *a);
/* conditionally_reverse: (c, d) = cond ? (b, a) : (a, b); 2 aux, 2 constraints. */
CZK_API czk_status czk_num_conditionally_reverse(czk_cs *cs, czk_num *c, czk_num *d, const czk_num *a,
                                                 const czk_num *b, czk_bool cond);
/* storage-proofs pick: c = cond ? a : b, (b - a) * cond = b - c. */
CZK_API czk_status czk_num_pick(czk_cs *cs, czk_num *out, czk_bool cond, const czk_num *a, const czk_num *b);
/* constraint::equal: a * ONE = b. */
CZK_API czk_status czk_num_enforce_equal(czk_cs *cs, const czk_num *a, const czk_num *b);
/* multipack::pack_into_inputs: chunks of 254 bits, each packed into one new input (1 constraint each). */
CZK_API czk_status czk_pack_into_inputs(czk_cs *cs, const czk_bool *bits, size_t n);
/* multipack::pack_bits: the first min(n, 254) bits packed into one new aux number (1 constraint). */
CZK_API czk_status czk_pack_bits(czk_cs *cs, czk_num *out, const czk_bool *bits, size_t n);

/* ------------------------------------------------------------------------------------------------ Poseidon */
/* neptune circuit::poseidon_hash (the "Legacy" circuit used by Filecoin) over n = arity allocated inputs with the
 * domain tag of `type` (MERKLE_TREE, CUSTOM, ENCRYPTION, or CONSTANT_LENGTH with param = n = arity). Optimized
 * form: compressed round constants, the tag's first S-box folded into a constant, sparse partial-round matrices.
 * Constraints: 3 (t R_F + R_P - 1) + t R_F + R_P - arity (arity 2: 311, 8: 505, 11: 598, 36: 1385). */
CZK_API czk_status czk_poseidon_gadget(czk_cs *cs, czk_num *out, const czk_poseidon *p, czk_poseidon_hash_type type,
                                       uint64_t param, const czk_num *in, size_t n);
/* filecoin-hashers hash_md_circuit (arity 36; zero padding elements are allocated). n >= 2. */
CZK_API czk_status czk_fc_poseidon_hash_md_gadget(czk_cs *cs, czk_num *out, const czk_num *in, size_t n);

/* ------------------------------------------------------------------------------------------------ Merkle */
/* storage-proofs insertion::insert: out (nbits^2 elements) = elements with `element` inserted at the position given
 * by the little-endian bits; hand-optimized for 2, 4 and 8, the general select otherwise. */
CZK_API czk_status czk_fc_insert(czk_cs *cs, czk_num *out, const czk_num *element, const czk_bool *bits, size_t nbits,
                                 const czk_num *elements);
/* insertion::select: from[index(bits)], 2^nbits - 1 picks (nbits 1 .. 7). */
CZK_API czk_status czk_fc_select(czk_cs *cs, czk_num *out, const czk_num *from, const czk_bool *bits, size_t nbits);

/* filecoin-hashers Sha256Function::hash_multi_leaf_circuit: each child to_bits_le (255 bits + a constant zero),
 * bytes in order with bits most significant first, SHA-256 with padding, the digest's first 254 bits (little-endian
 * within bytes) packed into one number (= the truncated digest as a field element). */
CZK_API czk_status czk_fc_sha256_node_gadget(czk_cs *cs, czk_num *out, const czk_num *children, size_t n);

/* A PoR circuit instance (storage-proofs-core PoRCircuit): leaf, path, root, with the Poseidon or SHA-256 hasher.
 * Arities are powers of two; sub/top 0 when absent. path: levels leaf-first (base levels, then sub, then top), each
 * with arity - 1 siblings (canonical field elements, 32-byte little-endian) and the index. */
typedef struct czk_fc_por {
  unsigned base_arity, sub_arity, top_arity;
  size_t n_levels;
  const czk_fc_path_level *path; /* NULL for a blank (shape-only) circuit: n_levels must still be set */
  uint8_t leaf[32];
  uint8_t root[32];
  bool private_root;    /* false: the root is a public input */
  czk_fc_hasher hasher; /* CZK_FC_POSEIDON or CZK_FC_SHA256 */
  const czk_num *root_var; /* set: the root is this existing variable (Root::Var): nothing allocated or inputized,
                              the computed root is enforced equal to it (root and private_root are then unused) */
  const czk_num *leaf_var; /* set: the leaf is this existing variable (nothing allocated; leaf unused) */
} czk_fc_por;

/* Synthesizes the PoR circuit: inputs ONE, the packed path bits, and the root unless private (binary Poseidon,
 * 64 leaves: 1,887 constraints, 3 inputs; binary SHA-256: 272,295). CZK_ERR_NOT_CANONICAL for a non-canonical
 * value. */
CZK_API czk_status czk_fc_por_circuit(czk_cs *cs, const czk_fc_por *por);

#endif
