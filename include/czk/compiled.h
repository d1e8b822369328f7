/* czk/compiled.h: pre-compiled circuits with repeated segments, their file form and the sparse mat-vec
 * a = A·w, b = B·w, c = C·w that turns a witness into the prover's a/b/c.
 *
 * A Filecoin partition circuit is a top part and K structurally identical repeats (PoRep: 18 challenges; PoSt: slots;
 * SnapDeals: challenges): each repeat allocates the same number of inputs and aux and enforces the same rows, which
 * refer to its own variables, to the top's variables, and (SnapDeals) to a few top variables that differ per repeat.
 * A czk_compiled stores each part once, as template rows, and expands it on the fly:
 *
 *   segment s = {template rows [tmpl_row0, tmpl_row0 + n_rows), reps, row0, in_stride, aux_stride, table}
 *   output row  row0 + r n_rows + j  (r < reps) = template row tmpl_row0 + j with every entry's column
 *     ABS    col                            (ONE and variables of earlier segments, shared by every repeat)
 *     IN     col + r in_stride              (an input of the segment itself; col is repeat 0's column)
 *     AUX    col + r aux_stride             (an aux of the segment itself)
 *     TABLE  table[table_off + r width + col]  (an earlier variable that differs per repeat; col = its slot)
 * and the value coef[ref & CZK_CC_COEF_MASK] (a deduplicated table of Montgomery czk_fr; tag = ref >> 30).
 * Columns are unified witness indices (cs.h layout: inputs then aux). Rows cover [0, n_user_constraints) exactly
 * once, in order; the prover's trailing `input_i * 0 = 0` rows are not part of it (czk_cc_expand adds them).
 *
 * Size: 8 bytes per template non-zero + 4 per template row + 32 per distinct coefficient: a 32 GiB PoRep partition
 * (130 M rows) is its top and ONE challenge (7.2 M rows); a plain CSR would be ~30 GB.
 *
 * Invariants (checked by czk_cc_load and czk_cc_validate): segments in row order and covering every row; template
 * ranges in bounds; every expanded column < n_inputs + n_aux (checked with the last repeat); IN columns are inputs,
 * AUX columns aux; coefficient indices < n_coef; coefficients canonical and non-zero; table entries < n_vars. */
#ifndef CZK_COMPILED_H
#define CZK_COMPILED_H

#include "czk/cs.h"
#include "czk/pool.h"

#define CZK_CC_ABS 0u
#define CZK_CC_IN 1u
#define CZK_CC_AUX 2u
#define CZK_CC_TABLE 3u
#define CZK_CC_TAG_SHIFT 30
#define CZK_CC_COEF_MASK 0x3fffffffu
#define CZK_CC_MAX_TABLE_WIDTH 256u

typedef struct czk_cc_segment {
  uint64_t row0;        /* first output row of repeat 0 */
  uint32_t tmpl_row0;   /* first template row */
  uint32_t n_rows;      /* template rows = output rows per repeat */
  uint32_t reps;        /* >= 1 */
  uint32_t in_stride;   /* inputs one repeat allocates */
  uint32_t aux_stride;  /* aux one repeat allocates */
  uint32_t table_width; /* TABLE slots per repeat (0: none) */
  uint64_t table_off;   /* into czk_compiled.table */
} czk_cc_segment;

typedef struct czk_cc_matrix {
  uint32_t *row_ptr; /* n_tmpl_rows + 1; row j's entries [row_ptr[j], row_ptr[j+1]) */
  uint32_t *col;     /* nnz (meaning by tag, above) */
  uint32_t *ref;     /* nnz: tag << 30 | coefficient index */
  uint64_t nnz;      /* template non-zeros */
} czk_cc_matrix;

typedef struct czk_compiled {
  char id[48];                 /* circuit id, e.g. "porep-32g" ("" if none) */
  uint32_t n_inputs, n_aux;    /* of the whole circuit (inputs include ONE) */
  uint32_t n_user_constraints; /* rows the mat-vec writes */
  uint32_t n_segments;
  czk_cc_segment *seg;
  uint32_t n_tmpl_rows;
  czk_cc_matrix m[3];          /* A, B, C */
  uint32_t n_coef;
  czk_fr *coef;
  uint32_t one_index, minus_one_index; /* coef indices of 1 and -1 (UINT32_MAX: absent), for the fast paths */
  uint64_t table_len;
  uint32_t *table;
  uint64_t nnz[3];             /* expanded non-zeros of A, B, C over the user rows */
  /* storage (private) */
  void *mem;
  bool mapped;
  void *file;
} czk_compiled;

CZK_API void czk_cc_free(czk_compiled *cc);
/* Structural validation (O(template nnz + table)); CZK_ERR_FORMAT / CZK_ERR_NOT_CANONICAL, with a reason in err. */
CZK_API czk_status czk_cc_validate(const czk_compiled *cc, char *err, size_t err_len);

/* ------------------------------------------------------------------------------------------------ recording */
/* A compile recorder is a czk_cs (mode CZK_CS_COMPILE, no values) that records rows with merged, zero-free terms
 * (exactly as the shape recorder merges them), coefficients deduplicated, 8 bytes a term. The circuit code runs the top
 * and ONE repeat of each repeated part and calls czk_cc_recorder_mark after each part: part k is everything between
 * mark k-1 and mark k (the first part starts after ONE; an empty part is allowed). finish turns part k into segment k
 * repeated parts[k].reps times: a variable the part allocated becomes IN/AUX relative, an earlier one ABS, or TABLE
 * when it is parts[k].table[s] (repeat 0's slot s); table holds reps * width variables, repeat-major. Every part must
 * be closed by a mark. finish frees cs in every case. */
typedef struct czk_cc_part {
  uint32_t reps;
  uint32_t table_width;
  const czk_var *table; /* reps * table_width variables (recorded before the part), or NULL */
} czk_cc_part;

CZK_API czk_status czk_cc_recorder_new(czk_cs **out);
CZK_API czk_status czk_cc_recorder_mark(czk_cs *cs);
CZK_API czk_status czk_cc_recorder_finish(czk_cs *cs, const czk_cc_part *parts, uint32_t n_parts, const char *id,
                                          czk_compiled **out);

/* ------------------------------------------------------------------------------------------------ expansion */
/* The full shape (czk_r1cs: every row expanded, rows sorted by column, the trailing input rows appended, densities)
 * that recording the whole circuit with czk_cs_shape_new gives: for tests and small circuits only. */
CZK_API czk_status czk_cc_expand(const czk_compiled *cc, czk_r1cs **out);

/* ------------------------------------------------------------------------------------------------ file form */
/* Written atomically (temp + fsync + rename); load maps the file read-only and validates header, sizes, every
 * section and the body checksum. Errors name the file and what is wrong (err may be NULL): CZK_ERR_TRUNCATED,
 * CZK_ERR_FORMAT, CZK_ERR_NOT_CANONICAL, CZK_ERR_UNSUPPORTED (another version), CZK_ERR_IO / CZK_ERR_NOT_FOUND. */
CZK_API czk_status czk_cc_save(const czk_compiled *cc, const char *path);
CZK_API czk_status czk_cc_load(czk_compiled **out, const char *path, char *err, size_t err_len);
/* Bytes of the file form (what czk_cc_save writes). */
CZK_API uint64_t czk_cc_file_size(const czk_compiled *cc);

/* ------------------------------------------------------------------------------------------------ mat-vec */
/* a[k] = <A_k, w>, b[k] = <B_k, w>, c[k] = <C_k, w> for k < n_user_constraints (entries past it untouched); w has
 * n_inputs + n_aux elements. Rows split across the pool (NULL = default). Cost: one Fr multiplication and addition
 * per expanded non-zero (an addition / subtraction for coefficients 1 / -1). */
CZK_API czk_status czk_cc_matvec(const czk_compiled *cc, const czk_fr *w, czk_fr *a, czk_fr *b, czk_fr *c,
                                 czk_pool *pool);

#endif
