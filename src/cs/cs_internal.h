/* cs_internal.h: the state behind czk_cs, shared by the three implementations (cs.c) and the shape builder
 * (r1cs.c). Not a public header. */
#ifndef CZK_CS_INTERNAL_H
#define CZK_CS_INTERNAL_H

#include "czk/cs.h"

/* One matrix being recorded: rows appended in order; columns are czk_var keys (see czk__cs_var_key) sorted and
 * merged per row, values non-zero. */
typedef struct czk__cs_rec {
  uint64_t *row_ptr; /* rows + 1 */
  size_t rows_cap;
  uint32_t *col;
  czk_fr *val;
  size_t nnz, cap;
} czk__cs_rec;

struct czk_cs {
  const czk_cs_ops *ops;
  czk_cs_mode mode;
  czk_status err;
  uint32_t n_inputs, n_aux;
  uint64_t n_constraints;
  /* values (witness and checker modes) */
  czk_fr *in_vals, *aux_vals;
  size_t in_cap, aux_cap;
  /* shape mode */
  czk__cs_rec m[3];
  czk_lc_term *scratch;
  size_t scratch_cap;
  /* counter mode: non-zeros of A, B, C; density bitmaps A aux, B aux, B input (grown on demand) */
  uint64_t nnz[3];
  uint64_t *dens[3];
  size_t dens_cap[3];
  /* evaluator mode: values and a/b/c rows written into the caller's arrays (aux_vals borrowed from eval.aux; in_vals
   * too for a continuation, in_borrowed) */
  czk_cs_eval_out eval;
  bool in_borrowed;
  /* witness writer (czk_cs_witness_continue): values written into the caller's arrays (aux_vals borrowed, capacity
   * aux_cap); rows_limit bounds n_constraints in witness mode (UINT64_MAX for the builder) */
  bool aux_borrowed;
  uint64_t rows_limit;
  /* QAP accumulator mode */
  czk_cs_qap_out qap;
  czk_fr qap_minus_one;
  /* checker mode */
  char *ns;          /* "outer/inner" */
  size_t ns_len, ns_cap;
  size_t *ns_marks;  /* ns_len before each push */
  size_t ns_depth, ns_marks_cap;
  bool failed;
  size_t fail_index;
  char *fail_name;
};

/* Sort key of a variable: inputs before aux, each by index (= order of the unified witness index). */
static inline uint32_t czk__cs_var_key(czk_var v) { return v ^ CZK_VAR_INPUT_BIT; }
/* Unified witness column of a key once the input count is known. */
static inline uint32_t czk__cs_key_col(uint32_t key, uint32_t n_inputs) {
  return (key & CZK_VAR_INPUT_BIT) ? n_inputs + (key & ~CZK_VAR_INPUT_BIT) : key;
}

/* Sort lc's terms by key into cs->scratch, merge equal keys and drop zero sums (the shape recorder's merge); *n = the
 * merged term count. For the compile recorder (compiled.c), which must merge exactly as the shape recorder does. */
czk_status czk__cs_merge_lc(czk_cs *cs, const czk_lc *lc, size_t *n);
/* Whether every variable of lc was allocated in cs. */
bool czk__cs_lc_known(const czk_cs *cs, const czk_lc *lc);

/* The body checksum of the shape file (r1cs.c), shared by the compiled-circuit file (compiled.c): 8-byte words into
 * four lanes; bytes are taken as words with zero padding to a multiple of 8. */
typedef struct czk__bhash {
  uint64_t l[4];
  uint64_t n;
} czk__bhash;
void czk__bhash_init(czk__bhash *h);
void czk__bhash_bytes(czk__bhash *h, const void *p, size_t n);
uint64_t czk__bhash_final(const czk__bhash *h);

/* Canonical (< r) Montgomery representation. */
bool czk__fr_is_canonical(const czk_fr *a);

#endif
