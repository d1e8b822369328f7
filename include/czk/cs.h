/* czk/cs.h: rank-1 constraint systems: the interface gadgets are written against, and the compiled shape (CSR).
 *
 * One gadget code path, three implementations behind one vtable (czk_cs):
 *   - shape recorder (czk_cs_shape_new): records A, B, C as CSR matrices, input/aux counts and the density bitmaps;
 *     czk_cs_shape_finish() appends the trailing `input_i * 0 = 0` constraints and returns a czk_r1cs;
 *   - witness builder (czk_cs_witness_new): keeps values only; enforce() is a no-op; the witness writer
 *     (czk_cs_witness_continue) is the same mode over the caller's arrays (no a/b/c, nothing allocated per variable);
 *   - checker (czk_cs_checker_new): keeps values, evaluates every constraint and remembers the first failing one by
 *     its namespaced name;
 *   - counter (czk_cs_counter_new): no values, no matrices: counts variables, constraints and the non-zeros of A, B
 *     and C (after merging, as the recorder stores them) and keeps only the three density bitmaps (bits per variable),
 *     so circuits of 10^8 constraints are measured in bounded memory;
 *   - evaluator (czk_cs_evaluator_new): values, and each constraint's <A,w>, <B,w>, <C,w> written at once into the
 *     caller's arrays, so an assignment (witness + a, b, c) is made without the matrices; several evaluators over
 *     disjoint slices of the same arrays synthesize independent parts of a circuit in parallel (as bellperson's
 *     extensible constraint systems do).
 *
 * Semantics (bellperson / bellpepper): input 0 is ONE (allocated by the constructor, value 1); variables are numbered
 * in allocation order separately for inputs and aux; a linear combination merges equal variables (coefficients
 * summed) and drops zero terms; a variable's A-density bit is set when it has a non-zero coefficient in some A row
 * (all inputs count as dense for A, as in bellperson's prover), B-density likewise for inputs and aux; after the
 * circuit, one constraint `input_i * 0 = 0` is appended per public input (i = 0 .. n_inputs-1, ONE included);
 * the evaluation domain is the next power of two >= n_constraints (which includes those input constraints).
 *
 * Witness vector layout (w, length n_inputs + n_aux): w[0..n_inputs) = inputs (w[0] = 1), w[n_inputs + j] = aux j.
 * CSR columns use the same unified index. Field elements are czk_fr (Montgomery form).
 *
 * Errors are sticky: once an operation on a czk_cs fails (out of memory, missing value), every later call returns
 * the same status, so gadget code may check only at the end (czk_cs_status). */
#ifndef CZK_CS_H
#define CZK_CS_H

#include "czk/field.h"
#include "czk/pool.h"

/* A variable: bit 31 set = input, clear = aux; low 31 bits = index in its class. */
typedef uint32_t czk_var;
#define CZK_VAR_INPUT_BIT 0x80000000u
#define CZK_VAR_ONE ((czk_var)CZK_VAR_INPUT_BIT) /* input 0 */
#define CZK_VAR_INDEX_MAX 0x7fffffffu
static inline bool czk_var_is_input(czk_var v) { return (v & CZK_VAR_INPUT_BIT) != 0; }
static inline uint32_t czk_var_index(czk_var v) { return v & ~CZK_VAR_INPUT_BIT; }

/* ------------------------------------------------------------------------------------------------ linear combos */
typedef struct czk_lc_term {
  czk_fr coeff;
  czk_var var;
} czk_lc_term;

/* A growable list of terms. Equal variables are merged and zero terms dropped when the constraint is recorded (by
 * the shape recorder and the checker), so gadgets may add the same variable several times. Sticky error: an
 * allocation failure sets err and later adds are ignored; enforce() then fails with that status. */
typedef struct czk_lc {
  czk_lc_term *t;
  size_t n, cap;
  czk_status err;
} czk_lc;

CZK_API void czk_lc_init(czk_lc *lc);
CZK_API void czk_lc_free(czk_lc *lc);
CZK_API void czk_lc_clear(czk_lc *lc); /* n = 0, keeps the capacity and err */
CZK_API void czk_lc_add(czk_lc *lc, czk_var v, const czk_fr *coeff); /* += coeff * v */
CZK_API void czk_lc_add_var(czk_lc *lc, czk_var v);                  /* += v */
CZK_API void czk_lc_sub_var(czk_lc *lc, czk_var v);                  /* -= v */
CZK_API void czk_lc_add_u64(czk_lc *lc, czk_var v, uint64_t k);      /* += k * v */
/* Value of lc under the witness w (unified layout, n_inputs given to map aux indices); vartime. */
CZK_API void czk_lc_eval(czk_fr *r, const czk_lc *lc, const czk_fr *inputs, const czk_fr *aux);

/* ------------------------------------------------------------------------------------------------ constraint system */
typedef struct czk_cs czk_cs;

typedef enum czk_cs_mode {
  CZK_CS_SHAPE = 0,
  CZK_CS_WITNESS = 1,
  CZK_CS_CHECK = 2,
  CZK_CS_COUNT = 3,
  CZK_CS_EVAL = 4,
  CZK_CS_QAP = 5,
  CZK_CS_COMPILE = 6 /* compile recorder (czk/compiled.h): templates of repeated parts, no values */
} czk_cs_mode;

/* The vtable behind czk_cs (one per implementation). `value` may be NULL only in shape mode. */
typedef struct czk_cs_ops {
  czk_status (*alloc)(czk_cs *cs, bool input, const czk_fr *value, czk_var *out);
  czk_status (*enforce)(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c);
  void (*destroy)(czk_cs *cs);
} czk_cs_ops;

CZK_API czk_status czk_cs_shape_new(czk_cs **out);
/* hint_inputs / hint_aux: expected counts (0 = unknown), to size the value arrays once. */
CZK_API czk_status czk_cs_witness_new(czk_cs **out, size_t hint_inputs, size_t hint_aux);
CZK_API czk_status czk_cs_checker_new(czk_cs **out);
CZK_API czk_status czk_cs_counter_new(czk_cs **out);
/* Where an evaluator writes: input i >= 1 to inputs[i - 1] (its own ONE, input 0, is not written), aux j to aux[j],
 * constraint k's evaluations to a[k], b[k], c[k]. Exceeding a capacity is CZK_ERR_LIMIT (sticky). The arrays stay the
 * caller's. */
typedef struct czk_cs_eval_out {
  czk_fr *inputs;
  size_t inputs_cap;
  czk_fr *aux;
  size_t aux_cap;
  czk_fr *a, *b, *c;
  size_t rows_cap;
} czk_cs_eval_out;
CZK_API czk_status czk_cs_evaluator_new(czk_cs **out, const czk_cs_eval_out *dst);
/* An evaluator that continues a synthesis over whole arrays: the first n_inputs inputs (inputs[0] = ONE), n_aux aux
 * and n_rows constraints exist already (their values are read from the arrays); new inputs go to inputs[n_inputs..],
 * aux to aux[n_aux..], rows to a/b/c[n_rows..], at most the caps (CZK_ERR_LIMIT beyond). The counts it reports include
 * the earlier ones. Continuations over disjoint ranges may run at once: each reads only the earlier values. */
typedef struct czk_cs_eval_at {
  czk_fr *inputs, *aux, *a, *b, *c;
  uint32_t n_inputs, n_aux;
  uint64_t n_rows;
  size_t inputs_cap, aux_cap, rows_cap;
} czk_cs_eval_at;
CZK_API czk_status czk_cs_evaluator_continue(czk_cs **out, const czk_cs_eval_at *at);
/* A witness writer (mode CZK_CS_WITNESS): the values only, written straight into the caller's arrays as a continuing
 * evaluator writes them, with no a/b/c and no per-variable allocation; enforce() only counts (no combination is read,
 * gadgets build none: czk_cs_wants_lc is false). The first n_inputs inputs (inputs[0] = ONE, set by the caller), n_aux
 * aux and n_rows constraints exist already; new inputs go to inputs[n_inputs..], aux to aux[n_aux..], at most the caps,
 * and at most rows_cap more constraints are counted (CZK_ERR_LIMIT beyond, sticky). Writers over disjoint ranges may
 * run at once. The same values as the evaluator's w for the same synthesis (tests/filecoin/test_witness.c). */
typedef struct czk_cs_witness_at {
  czk_fr *inputs, *aux;
  uint32_t n_inputs, n_aux;
  uint64_t n_rows;
  size_t inputs_cap, aux_cap, rows_cap;
} czk_cs_witness_at;
CZK_API czk_status czk_cs_witness_continue(czk_cs **out, const czk_cs_witness_at *at);
/* A QAP accumulator (Groth16 setup of a circuit too large to record): no values, no matrices; each constraint k adds
 * coeff * L[k] to xa/xb/xc[col] for every term of its A/B/C combination (col: input i -> i, aux j -> n_inputs + j),
 * so that after the circuit x_q[col] = sum_k Q[k][col] L[k] (the trailing input constraints are the caller's). The
 * input count must be known beforehand (e.g. from the circuit's outline); more inputs than n_inputs, more than
 * n_vars variables or more than rows_cap constraints are CZK_ERR_LIMIT (sticky). Terms are not merged: a sum is the
 * same either way. The arrays stay the caller's (zeroed by the caller). */
typedef struct czk_cs_qap_out {
  const czk_fr *L;
  size_t rows_cap;
  czk_fr *xa, *xb, *xc;
  uint32_t n_inputs;
  size_t n_vars;
} czk_cs_qap_out;
CZK_API czk_status czk_cs_qap_new(czk_cs **out, const czk_cs_qap_out *dst);
CZK_API void czk_cs_free(czk_cs *cs);

CZK_API czk_cs_mode czk_cs_get_mode(const czk_cs *cs);
/* False in shape and counter modes (true in witness, checker, evaluator): gadgets may skip computing values (and pass NULL to alloc). */
CZK_API bool czk_cs_has_values(const czk_cs *cs);
/* False when enforce() ignores the linear combinations (witness builder and writer): gadgets then build none. */
CZK_API bool czk_cs_wants_lc(const czk_cs *cs);
/* Witness fast path (CZK_CS_WITNESS only, else CZK_ERR_STATE): n new consecutive aux variables with the values
 * bits[i] (0 or 1) and `rows` constraints counted, as n czk_cs_alloc calls and `rows` enforce calls would do in
 * witness mode; *first = the first one's variable (unchanged when n = 0). */
CZK_API czk_status czk_cs_witness_bits(czk_cs *cs, czk_var *first, const uint8_t *bits, size_t n, uint64_t rows);
/* Records the first error; returns it (also returned by every later call). */
CZK_API czk_status czk_cs_status(const czk_cs *cs);

CZK_API czk_status czk_cs_alloc(czk_cs *cs, czk_var *out, const czk_fr *value);
CZK_API czk_status czk_cs_alloc_input(czk_cs *cs, czk_var *out, const czk_fr *value);
/* a * b = c. name: a short label (may be NULL); the checker prefixes it with the namespace path. */
CZK_API czk_status czk_cs_enforce(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c);
/* a * b = c where the gadget also knows the three evaluations (va = <a,w>, ...): the evaluator stores them without
 * evaluating (the combinations may then be left empty, see czk_cs_wants_lc); the checker evaluates the combinations,
 * checks them against va/vb/vc (a mismatch is a failure of this constraint) and checks the constraint; the other
 * modes use the combinations as czk_cs_enforce. */
CZK_API czk_status czk_cs_enforce_v(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c,
                                    const czk_fr *va, const czk_fr *vb, const czk_fr *vc);
/* Optional namespaces (only the checker keeps them; names are copied). */
CZK_API void czk_cs_push_ns(czk_cs *cs, const char *name);
CZK_API void czk_cs_pop_ns(czk_cs *cs);
/* Value of a variable (witness and checker modes; CZK_ERR_STATE in shape mode, CZK_ERR_INVALID_ARG if unknown). */
CZK_API czk_status czk_cs_get_value(const czk_cs *cs, czk_var v, czk_fr *out);
CZK_API size_t czk_cs_num_inputs(const czk_cs *cs);
CZK_API size_t czk_cs_num_aux(const czk_cs *cs);
CZK_API size_t czk_cs_num_constraints(const czk_cs *cs); /* recorded so far (no trailing input constraints) */

/* ------------------------------------------------------------------------------------------------ shape (CSR) */
/* Compressed sparse rows: row j has entries [row_ptr[j], row_ptr[j+1]); columns are unified witness indices,
 * strictly increasing within a row; values are non-zero. */
typedef struct czk_csr {
  uint64_t *row_ptr; /* n_rows + 1 */
  uint32_t *col;     /* nnz */
  czk_fr *val;       /* nnz */
  uint64_t nnz;
} czk_csr;

/* A compiled circuit shape. Arrays point either into heap blocks or into a read-only file mapping (czk_r1cs_load);
 * treat every array as read-only. Density bitmaps: bit i of word i/64. */
typedef struct czk_r1cs {
  uint32_t n_inputs;           /* including ONE */
  uint32_t n_aux;
  uint32_t n_constraints;      /* rows, including the n_inputs trailing input constraints */
  uint32_t n_user_constraints; /* rows enforced by the circuit itself */
  uint32_t log_domain;         /* domain = 2^log_domain >= n_constraints */
  czk_csr a, b, c;
  uint64_t *a_aux_density;   /* n_aux bits */
  uint64_t *b_input_density; /* n_inputs bits */
  uint64_t *b_aux_density;   /* n_aux bits */
  uint32_t a_aux_count, b_input_count, b_aux_count; /* popcounts of the bitmaps */
  bool outline; /* counts and densities only: the CSR arrays are NULL (their nnz are set) */
  /* storage (private) */
  void *mem;
  size_t mem_len;
  bool mapped;
  void *file; /* a loaded shape's file mapping (SIGBUS-guarded, see czk_r1cs_check_file) */
} czk_r1cs;

/* Turns a shape recorder into a shape (appends the input constraints, computes densities); frees the recorder in
 * every case (cs becomes invalid). */
CZK_API czk_status czk_cs_shape_finish(czk_cs *cs, czk_r1cs **out);
CZK_API void czk_r1cs_free(czk_r1cs *r);
/* A shape outline: counts and zeroed density bitmaps (to be filled by the caller), no matrices. Enough for a key's
 * index lists and sizes (czk_groth16_key_from_pk); czk_r1cs_eval, czk_r1cs_check, czk_r1cs_save and setup refuse it
 * (CZK_ERR_STATE). n_constraints = n_user_constraints + n_inputs. */
CZK_API czk_status czk_r1cs_outline_new(czk_r1cs **out, uint32_t n_inputs, uint32_t n_aux,
                                        uint32_t n_user_constraints);
/* Recounts a_aux_count, b_input_count, b_aux_count from the bitmaps (after filling an outline's). */
CZK_API void czk_r1cs_recount(czk_r1cs *r);
static inline bool czk_density_get(const uint64_t *bits, size_t i) { return (bits[i >> 6] >> (i & 63)) & 1; }

/* File form (little-endian host layout, 64-byte aligned sections): written once per shape, memory-mapped on load.
 * load validates the header, every size against the file length, row pointers (monotonic, ending at nnz), column
 * bounds and ordering, canonical non-zero values and the density bitmaps (recomputed and compared); a damaged file
 * gives CZK_ERR_FORMAT / CZK_ERR_TRUNCATED / CZK_ERR_NOT_CANONICAL, never a crash. */
CZK_API czk_status czk_r1cs_save(const czk_r1cs *r, const char *path);
CZK_API czk_status czk_r1cs_load(czk_r1cs **out, const char *path);
/* For a shape from czk_r1cs_load: CZK_ERR_FILE_CHANGED once its file was truncated or rewritten in place after the
 * load (reads of the vanished part gave zeros instead of killing the process; whatever was computed from the shape
 * since must be discarded), else CZK_OK (also for a shape not loaded from a file). */
CZK_API czk_status czk_r1cs_check_file(const czk_r1cs *r);

/* ------------------------------------------------------------------------------------------------ witness */
typedef struct czk_witness {
  uint32_t n_inputs, n_aux;
  czk_fr *w; /* n_inputs + n_aux, unified layout; heap, owned */
} czk_witness;
/* Turns a witness builder (or checker) into its assignment; frees cs in every case. */
CZK_API czk_status czk_cs_witness_finish(czk_cs *cs, czk_witness *out);
CZK_API void czk_witness_free(czk_witness *w);
/* The fractions of w[0 .. n) that are zero, one and anything else (out[0], out[1], out[2]; all 0 when n = 0): what a
 * witness-aware MSM skips, adds without bucket work, and runs Pippenger on. */
CZK_API void czk_witness_fractions(const czk_fr *w, size_t n, double out[3]);

/* ------------------------------------------------------------------------------------------------ counting */
/* What a counter saw, with the trailing input constraints included as czk_cs_shape_finish would append them:
 * n_constraints = n_user_constraints + n_inputs, nnz_a includes their n_inputs A terms; densities as czk_r1cs. */
typedef struct czk_cs_counts {
  uint64_t n_inputs, n_aux;
  uint64_t n_user_constraints, n_constraints;
  uint32_t log_domain;
  uint64_t nnz_a, nnz_b, nnz_c;
  uint64_t a_aux_count, b_input_count, b_aux_count;
} czk_cs_counts;
/* CZK_ERR_INVALID_ARG unless cs is a counter; its sticky error otherwise. */
CZK_API czk_status czk_cs_counter_result(const czk_cs *cs, czk_cs_counts *out);
/* A counter's outline (counts with the input constraints, densities); frees cs in every case. */
CZK_API czk_status czk_cs_counter_finish(czk_cs *cs, czk_r1cs **out);

/* ------------------------------------------------------------------------------------------------ checking */
/* Checker result: CZK_OK when every constraint held, CZK_ERR_UNSATISFIED otherwise with *index = the first failing
 * constraint and *name = its namespaced name (owned by cs, valid until czk_cs_free). */
CZK_API czk_status czk_cs_checker_result(const czk_cs *cs, size_t *index, const char **name);

/* ------------------------------------------------------------------------------------------------ evaluation */
/* a = A·w, b = B·w, c = C·w for rows [0, n_constraints); the caller's arrays hold at least n_constraints elements
 * (entries past n_constraints are left untouched). Rows are split across the pool (NULL = default pool).
 * Cost: nnz(A)+nnz(B)+nnz(C) multiplications and additions. */
CZK_API czk_status czk_r1cs_eval(const czk_r1cs *r, const czk_fr *w, czk_fr *a, czk_fr *b, czk_fr *c, czk_pool *pool);
/* First row j where a[j]*b[j] != c[j], or SIZE_MAX when all hold. */
CZK_API size_t czk_r1cs_first_unsatisfied(const czk_fr *a, const czk_fr *b, const czk_fr *c, size_t n);
/* Full check of a witness against a shape (evaluation + row check). CZK_ERR_UNSATISFIED with *row set on failure. */
CZK_API czk_status czk_r1cs_check(const czk_r1cs *r, const czk_witness *w, size_t *row, czk_pool *pool);

#endif
