/* cs.c: linear combinations and the three constraint-system implementations behind czk_cs (cs.h):
 *   shape recorder  -- appends each constraint's merged, zero-free, key-sorted terms to three growing CSR matrices;
 *   witness builder -- stores values only, enforce() does nothing;
 *   checker         -- stores values, evaluates <a,w>*<b,w> - <c,w> per constraint, remembers the first failure.
 *   witness writer  -- (czk_cs_witness_continue) the witness builder's mode over the caller's arrays: values written in
 *                      place within fixed capacities, constraints only counted (bounded by rows_limit); with
 *                      czk_cs_witness_bits, runs of 0/1 values in one call (the witness-mode SHA-256).
 * Invariants: n_inputs >= 1 from construction (ONE = input 0 with value 1); errors are sticky (cs->err); the recorder
 * rows are sorted by czk__cs_var_key so that the unified columns of the finished shape stay increasing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs/cs_internal.h"

/* ------------------------------------------------------------------------------------------------ lc */
void czk_lc_init(czk_lc *lc) { memset(lc, 0, sizeof *lc); }

void czk_lc_free(czk_lc *lc) {
  free(lc->t);
  memset(lc, 0, sizeof *lc);
}

void czk_lc_clear(czk_lc *lc) { lc->n = 0; }

void czk_lc_add(czk_lc *lc, czk_var v, const czk_fr *coeff) {
  if (lc->err != CZK_OK) return;
  if (lc->n == lc->cap) {
    size_t cap = lc->cap ? lc->cap * 2 : 8;
    czk_lc_term *t = realloc(lc->t, cap * sizeof *t);
    if (!t) {
      lc->err = CZK_ERR_NOMEM;
      return;
    }
    lc->t = t;
    lc->cap = cap;
  }
  lc->t[lc->n].coeff = *coeff;
  lc->t[lc->n].var = v;
  lc->n++;
}

void czk_lc_add_var(czk_lc *lc, czk_var v) { czk_lc_add(lc, v, &czk_fr_one_v); }

void czk_lc_sub_var(czk_lc *lc, czk_var v) {
  czk_fr m;
  czk_fr_neg(&m, &czk_fr_one_v);
  czk_lc_add(lc, v, &m);
}

void czk_lc_add_u64(czk_lc *lc, czk_var v, uint64_t k) {
  czk_fr f;
  czk_fr_from_u64(&f, k);
  czk_lc_add(lc, v, &f);
}

void czk_lc_eval(czk_fr *r, const czk_lc *lc, const czk_fr *inputs, const czk_fr *aux) {
  czk_fr acc, t;
  czk_fr_set_zero(&acc);
  for (size_t i = 0; i < lc->n; i++) {
    czk_var v = lc->t[i].var;
    const czk_fr *x = czk_var_is_input(v) ? &inputs[czk_var_index(v)] : &aux[czk_var_index(v)];
    if (czk_fr_eq(&lc->t[i].coeff, &czk_fr_one_v)) { /* most terms of most gadgets */
      czk_fr_add(&acc, &acc, x);
      continue;
    }
    czk_fr_mul(&t, x, &lc->t[i].coeff);
    czk_fr_add(&acc, &acc, &t);
  }
  *r = acc;
}

bool czk__fr_is_canonical(const czk_fr *a) {
  for (int i = 3; i >= 0; i--) {
    if (a->l[i] < czk_fr_modulus[i]) return true;
    if (a->l[i] > czk_fr_modulus[i]) return false;
  }
  return false; /* equal to r */
}

/* ------------------------------------------------------------------------------------------------ common */
static czk_status fail(czk_cs *cs, czk_status st) {
  if (cs->err == CZK_OK) cs->err = st;
  return cs->err;
}

static czk_status grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return CZK_OK;
  size_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q) return CZK_ERR_NOMEM;
  *p = q;
  *cap = c;
  return CZK_OK;
}

/* Store a value for a new variable (witness and checker modes). */
static czk_status store_value(czk_cs *cs, bool input, const czk_fr *value, czk_var *out) {
  if (!value) return fail(cs, CZK_ERR_INVALID_ARG);
  uint32_t idx = input ? cs->n_inputs : cs->n_aux;
  if (idx >= CZK_VAR_INDEX_MAX) return fail(cs, CZK_ERR_LIMIT);
  czk_status st = input ? grow((void **)&cs->in_vals, &cs->in_cap, (size_t)idx + 1, sizeof(czk_fr))
                        : grow((void **)&cs->aux_vals, &cs->aux_cap, (size_t)idx + 1, sizeof(czk_fr));
  if (st != CZK_OK) return fail(cs, st);
  (input ? cs->in_vals : cs->aux_vals)[idx] = *value;
  if (input)
    cs->n_inputs++;
  else
    cs->n_aux++;
  *out = input ? (idx | CZK_VAR_INPUT_BIT) : idx;
  return CZK_OK;
}

static bool var_known(const czk_cs *cs, czk_var v) {
  return czk_var_is_input(v) ? czk_var_index(v) < cs->n_inputs : czk_var_index(v) < cs->n_aux;
}

static bool lc_vars_known(const czk_cs *cs, const czk_lc *lc) {
  for (size_t i = 0; i < lc->n; i++)
    if (!var_known(cs, lc->t[i].var)) return false;
  return true;
}

/* ------------------------------------------------------------------------------------------------ shape recorder */
static czk_status shape_alloc(czk_cs *cs, bool input, const czk_fr *value, czk_var *out) {
  (void)value;
  uint32_t idx = input ? cs->n_inputs : cs->n_aux;
  if (idx >= CZK_VAR_INDEX_MAX) return fail(cs, CZK_ERR_LIMIT);
  if (input)
    cs->n_inputs++;
  else
    cs->n_aux++;
  *out = input ? (idx | CZK_VAR_INPUT_BIT) : idx;
  return CZK_OK;
}

static int term_cmp(const void *x, const void *y) {
  uint32_t a = czk__cs_var_key(((const czk_lc_term *)x)->var), b = czk__cs_var_key(((const czk_lc_term *)y)->var);
  return a < b ? -1 : a > b;
}

/* Sort lc's terms by key into cs->scratch, merge equal keys and drop zero sums; *n = the merged term count. */
static czk_status merge_terms(czk_cs *cs, const czk_lc *lc, size_t *n) {
  CZK_TRY(grow((void **)&cs->scratch, &cs->scratch_cap, lc->n, sizeof(czk_lc_term)));
  if (lc->n) memcpy(cs->scratch, lc->t, lc->n * sizeof(czk_lc_term));
  /* Insertion sort for the common short case; qsort for long combinations. */
  if (lc->n <= 16) {
    for (size_t i = 1; i < lc->n; i++) {
      czk_lc_term t = cs->scratch[i];
      size_t j = i;
      while (j > 0 && czk__cs_var_key(cs->scratch[j - 1].var) > czk__cs_var_key(t.var)) {
        cs->scratch[j] = cs->scratch[j - 1];
        j--;
      }
      cs->scratch[j] = t;
    }
  } else {
    qsort(cs->scratch, lc->n, sizeof(czk_lc_term), term_cmp);
  }
  size_t i = 0, k = 0;
  while (i < lc->n) {
    czk_lc_term t = cs->scratch[i];
    uint32_t key = czk__cs_var_key(t.var);
    size_t j = i + 1;
    for (; j < lc->n && czk__cs_var_key(cs->scratch[j].var) == key; j++)
      czk_fr_add(&t.coeff, &t.coeff, &cs->scratch[j].coeff);
    if (!czk_fr_is_zero(&t.coeff)) cs->scratch[k++] = t;
    i = j;
  }
  *n = k;
  return CZK_OK;
}

/* Append one row: the merged, zero-free terms in key order. */
static czk_status rec_row(czk_cs *cs, czk__cs_rec *m, const czk_lc *lc) {
  size_t rows = cs->n_constraints; /* this row's index */
  czk_status st = grow((void **)&m->row_ptr, &m->rows_cap, rows + 2, sizeof(uint64_t));
  if (st != CZK_OK) return st;
  if (rows == 0) m->row_ptr[0] = 0;
  size_t n;
  CZK_TRY(merge_terms(cs, lc, &n));
  if (m->nnz + n > m->cap) { /* col and val share one capacity */
    size_t cap = m->cap ? m->cap : 256;
    while (cap < m->nnz + n) cap *= 2;
    uint32_t *col = realloc(m->col, cap * sizeof *col);
    if (!col) return CZK_ERR_NOMEM;
    m->col = col;
    czk_fr *val = realloc(m->val, cap * sizeof *val);
    if (!val) return CZK_ERR_NOMEM;
    m->val = val;
    m->cap = cap;
  }
  for (size_t i = 0; i < n; i++) {
    m->col[m->nnz] = czk__cs_var_key(cs->scratch[i].var);
    m->val[m->nnz] = cs->scratch[i].coeff;
    m->nnz++;
  }
  m->row_ptr[rows + 1] = m->nnz;
  return CZK_OK;
}

static czk_status shape_enforce(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c) {
  (void)name;
  if (cs->n_constraints >= UINT32_MAX - (uint64_t)cs->n_inputs - 1) return fail(cs, CZK_ERR_LIMIT);
  if (!lc_vars_known(cs, a) || !lc_vars_known(cs, b) || !lc_vars_known(cs, c)) return fail(cs, CZK_ERR_INVALID_ARG);
  const czk_lc *lcs[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    czk_status st = rec_row(cs, &cs->m[k], lcs[k]);
    if (st != CZK_OK) return fail(cs, st);
  }
  cs->n_constraints++;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ witness builder */
static czk_status witness_alloc(czk_cs *cs, bool input, const czk_fr *value, czk_var *out) {
  return store_value(cs, input, value, out);
}

static czk_status witness_enforce(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c) {
  (void)name, (void)a, (void)b, (void)c;
  if (cs->n_constraints >= cs->rows_limit) return fail(cs, CZK_ERR_LIMIT);
  cs->n_constraints++;
  return CZK_OK;
}

/* The witness writer: values into the caller's arrays, bounded by their capacities (no growth). */
static czk_status witness_at_alloc(czk_cs *cs, bool input, const czk_fr *value, czk_var *out) {
  if (!value) return fail(cs, CZK_ERR_INVALID_ARG);
  if (input) {
    uint32_t idx = cs->n_inputs;
    if (idx >= cs->in_cap) return fail(cs, CZK_ERR_LIMIT);
    cs->in_vals[idx] = *value;
    cs->n_inputs++;
    *out = idx | CZK_VAR_INPUT_BIT;
    return CZK_OK;
  }
  uint32_t idx = cs->n_aux;
  if (idx >= cs->aux_cap) return fail(cs, CZK_ERR_LIMIT);
  cs->aux_vals[idx] = *value;
  cs->n_aux++;
  *out = idx;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ checker */
static czk_status set_fail_name(czk_cs *cs, const char *name) {
  size_t nl = name ? strlen(name) : 0;
  char *s = malloc(cs->ns_len + 1 + nl + 1 + 24);
  if (!s) return CZK_ERR_NOMEM;
  size_t k = 0;
  if (cs->ns_len) {
    memcpy(s, cs->ns, cs->ns_len);
    k = cs->ns_len;
    s[k++] = '/';
  }
  if (nl) {
    memcpy(s + k, name, nl);
    k += nl;
  } else {
    k += (size_t)sprintf(s + k, "#%llu", (unsigned long long)cs->n_constraints);
  }
  s[k] = 0;
  cs->fail_name = s;
  return CZK_OK;
}

static czk_status check_enforce(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c) {
  if (!lc_vars_known(cs, a) || !lc_vars_known(cs, b) || !lc_vars_known(cs, c)) return fail(cs, CZK_ERR_INVALID_ARG);
  if (!cs->failed) {
    czk_fr va, vb, vc;
    czk_lc_eval(&va, a, cs->in_vals, cs->aux_vals);
    czk_lc_eval(&vb, b, cs->in_vals, cs->aux_vals);
    czk_lc_eval(&vc, c, cs->in_vals, cs->aux_vals);
    czk_fr_mul(&va, &va, &vb);
    if (!czk_fr_eq(&va, &vc)) {
      cs->failed = true;
      cs->fail_index = cs->n_constraints;
      czk_status st = set_fail_name(cs, name);
      if (st != CZK_OK) return fail(cs, st);
    }
  }
  cs->n_constraints++;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ evaluator */
static czk_status eval_alloc(czk_cs *cs, bool input, const czk_fr *value, czk_var *out) {
  if (!value) return fail(cs, CZK_ERR_INVALID_ARG);
  if (input) {
    uint32_t idx = cs->n_inputs;
    if (idx >= 1 && (size_t)idx - 1 >= cs->eval.inputs_cap) return fail(cs, CZK_ERR_LIMIT);
    CZK_TRY(store_value(cs, true, value, out));
    if (idx >= 1) cs->eval.inputs[idx - 1] = *value;
    return CZK_OK;
  }
  uint32_t idx = cs->n_aux;
  if (idx >= cs->eval.aux_cap || idx >= CZK_VAR_INDEX_MAX) return fail(cs, CZK_ERR_LIMIT);
  cs->aux_vals[idx] = *value;
  cs->n_aux++;
  *out = idx;
  return CZK_OK;
}

static czk_status eval_enforce(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c) {
  (void)name;
  if (cs->n_constraints >= cs->eval.rows_cap) return fail(cs, CZK_ERR_LIMIT);
  if (!lc_vars_known(cs, a) || !lc_vars_known(cs, b) || !lc_vars_known(cs, c)) return fail(cs, CZK_ERR_INVALID_ARG);
  size_t k = (size_t)cs->n_constraints;
  czk_lc_eval(&cs->eval.a[k], a, cs->in_vals, cs->aux_vals);
  czk_lc_eval(&cs->eval.b[k], b, cs->in_vals, cs->aux_vals);
  czk_lc_eval(&cs->eval.c[k], c, cs->in_vals, cs->aux_vals);
  cs->n_constraints++;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ QAP accumulator */
static czk_status qap_alloc(czk_cs *cs, bool input, const czk_fr *value, czk_var *out) {
  (void)value;
  if (input ? cs->n_inputs >= cs->qap.n_inputs : (size_t)cs->qap.n_inputs + cs->n_aux >= cs->qap.n_vars)
    return fail(cs, CZK_ERR_LIMIT);
  return shape_alloc(cs, input, NULL, out);
}

static czk_status qap_enforce(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c) {
  (void)name;
  if (cs->n_constraints >= cs->qap.rows_cap) return fail(cs, CZK_ERR_LIMIT);
  if (!lc_vars_known(cs, a) || !lc_vars_known(cs, b) || !lc_vars_known(cs, c)) return fail(cs, CZK_ERR_INVALID_ARG);
  const czk_fr *l = &cs->qap.L[cs->n_constraints];
  czk_fr neg_l, t;
  czk_fr_neg(&neg_l, l);
  const czk_lc *lcs[3] = {a, b, c};
  czk_fr *xs[3] = {cs->qap.xa, cs->qap.xb, cs->qap.xc};
  for (int k = 0; k < 3; k++) {
    const czk_lc *lc = lcs[k];
    for (size_t i = 0; i < lc->n; i++) {
      const czk_lc_term *tm = &lc->t[i];
      const uint32_t idx = czk_var_index(tm->var);
      czk_fr *x = &xs[k][czk_var_is_input(tm->var) ? idx : cs->qap.n_inputs + (size_t)idx];
      if (czk_fr_eq(&tm->coeff, &czk_fr_one_v)) { /* most terms: +-1 */
        czk_fr_add(x, x, l);
      } else if (czk_fr_eq(&tm->coeff, &cs->qap_minus_one)) {
        czk_fr_add(x, x, &neg_l);
      } else {
        czk_fr_mul(&t, &tm->coeff, l);
        czk_fr_add(x, x, &t);
      }
    }
  }
  explicit_bzero(&t, sizeof t); /* L derives from the toxic waste */
  explicit_bzero(&neg_l, sizeof neg_l);
  cs->n_constraints++;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ counter */
static czk_status set_bit(uint64_t **bits, size_t *cap_words, uint32_t i) {
  size_t old = *cap_words;
  CZK_TRY(grow((void **)bits, cap_words, (size_t)(i >> 6) + 1, sizeof(uint64_t)));
  if (*cap_words > old) memset(*bits + old, 0, (*cap_words - old) * sizeof(uint64_t));
  (*bits)[i >> 6] |= (uint64_t)1 << (i & 63);
  return CZK_OK;
}

static czk_status count_alloc(czk_cs *cs, bool input, const czk_fr *value, czk_var *out) {
  (void)value;
  return shape_alloc(cs, input, NULL, out);
}

/* Counts a row's merged terms and sets the density bits (A: aux; B: inputs and aux), as the shape recorder and
 * czk_r1cs would. */
static czk_status count_enforce(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c) {
  (void)name;
  if (!lc_vars_known(cs, a) || !lc_vars_known(cs, b) || !lc_vars_known(cs, c)) return fail(cs, CZK_ERR_INVALID_ARG);
  const czk_lc *lcs[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    size_t n;
    czk_status st = merge_terms(cs, lcs[k], &n);
    for (size_t i = 0; i < n && st == CZK_OK; i++) {
      czk_var v = cs->scratch[i].var;
      if (k == 0 && !czk_var_is_input(v)) st = set_bit(&cs->dens[0], &cs->dens_cap[0], czk_var_index(v));
      if (k == 1) st = set_bit(&cs->dens[czk_var_is_input(v) ? 2 : 1], &cs->dens_cap[czk_var_is_input(v) ? 2 : 1],
                               czk_var_index(v));
    }
    if (st != CZK_OK) return fail(cs, st);
    cs->nnz[k] += n;
  }
  cs->n_constraints++;
  return CZK_OK;
}

static uint64_t popcount_words(const uint64_t *w, size_t n) {
  uint64_t c = 0;
  for (size_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcountll(w[i]);
  return c;
}

czk_status czk_cs_counter_result(const czk_cs *cs, czk_cs_counts *out) {
  memset(out, 0, sizeof *out);
  if (!cs || cs->mode != CZK_CS_COUNT) return CZK_ERR_INVALID_ARG;
  if (cs->err != CZK_OK) return cs->err;
  out->n_inputs = cs->n_inputs;
  out->n_aux = cs->n_aux;
  out->n_user_constraints = cs->n_constraints;
  out->n_constraints = cs->n_constraints + cs->n_inputs; /* + one `input_i * 0 = 0` per input */
  out->log_domain = 0;
  while ((1ull << out->log_domain) < out->n_constraints) out->log_domain++;
  out->nnz_a = cs->nnz[0] + cs->n_inputs; /* the input constraints' A terms */
  out->nnz_b = cs->nnz[1];
  out->nnz_c = cs->nnz[2];
  out->a_aux_count = popcount_words(cs->dens[0], cs->dens_cap[0]);
  out->b_aux_count = popcount_words(cs->dens[1], cs->dens_cap[1]);
  out->b_input_count = popcount_words(cs->dens[2], cs->dens_cap[2]);
  return CZK_OK;
}

czk_status czk_cs_counter_finish(czk_cs *cs, czk_r1cs **out) {
  *out = NULL;
  czk_cs_counts c;
  czk_status st = czk_cs_counter_result(cs, &c);
  if (st == CZK_OK && (c.n_inputs > UINT32_MAX || c.n_aux > UINT32_MAX || c.n_constraints > UINT32_MAX))
    st = CZK_ERR_LIMIT;
  if (st == CZK_OK) st = czk_r1cs_outline_new(out, (uint32_t)c.n_inputs, (uint32_t)c.n_aux,
                                              (uint32_t)c.n_user_constraints);
  if (st == CZK_OK) {
    czk_r1cs *r = *out;
    uint64_t *dst[3] = {r->a_aux_density, r->b_aux_density, r->b_input_density};
    size_t words[3] = {((size_t)r->n_aux + 63) / 64, ((size_t)r->n_aux + 63) / 64, ((size_t)r->n_inputs + 63) / 64};
    for (int k = 0; k < 3; k++) {
      size_t n = cs->dens_cap[k] < words[k] ? cs->dens_cap[k] : words[k];
      if (n) memcpy(dst[k], cs->dens[k], n * sizeof(uint64_t));
    }
    r->a.nnz = c.nnz_a;
    r->b.nnz = c.nnz_b;
    r->c.nnz = c.nnz_c;
    czk_r1cs_recount(r);
  }
  czk_cs_free(cs);
  return st;
}

/* ------------------------------------------------------------------------------------------------ lifecycle */
static void destroy(czk_cs *cs) {
  for (int k = 0; k < 3; k++) {
    free(cs->m[k].row_ptr);
    free(cs->m[k].col);
    free(cs->m[k].val);
  }
  if (!cs->in_borrowed) free(cs->in_vals);
  if (cs->mode != CZK_CS_EVAL && !cs->aux_borrowed) free(cs->aux_vals);
  free(cs->scratch);
  free(cs->ns);
  free(cs->ns_marks);
  free(cs->fail_name);
  for (int k = 0; k < 3; k++) free(cs->dens[k]);
  free(cs);
}

static const czk_cs_ops k_shape_ops = {shape_alloc, shape_enforce, destroy};
static const czk_cs_ops k_witness_ops = {witness_alloc, witness_enforce, destroy};
static const czk_cs_ops k_check_ops = {witness_alloc, check_enforce, destroy};
static const czk_cs_ops k_count_ops = {count_alloc, count_enforce, destroy};
static const czk_cs_ops k_eval_ops = {eval_alloc, eval_enforce, destroy};
static const czk_cs_ops k_qap_ops = {qap_alloc, qap_enforce, destroy};
static const czk_cs_ops k_witness_at_ops = {witness_at_alloc, witness_enforce, destroy};

static czk_status cs_new(czk_cs **out, czk_cs_mode mode, size_t hint_inputs, size_t hint_aux) {
  *out = NULL;
  czk_cs *cs = calloc(1, sizeof *cs);
  if (!cs) return CZK_ERR_NOMEM;
  cs->mode = mode;
  cs->rows_limit = UINT64_MAX;
  cs->ops = mode == CZK_CS_SHAPE   ? &k_shape_ops
            : mode == CZK_CS_WITNESS ? &k_witness_ops
            : mode == CZK_CS_COUNT   ? &k_count_ops
            : mode == CZK_CS_EVAL    ? &k_eval_ops
            : mode == CZK_CS_QAP     ? &k_qap_ops
                                     : &k_check_ops;
  czk_var one;
  if (mode == CZK_CS_WITNESS || mode == CZK_CS_CHECK || mode == CZK_CS_EVAL) {
    if (grow((void **)&cs->in_vals, &cs->in_cap, hint_inputs ? hint_inputs : 1, sizeof(czk_fr)) != CZK_OK ||
        (hint_aux && grow((void **)&cs->aux_vals, &cs->aux_cap, hint_aux, sizeof(czk_fr)) != CZK_OK)) {
      destroy(cs);
      return CZK_ERR_NOMEM;
    }
  }
  czk_status st = cs->ops->alloc(cs, true, &czk_fr_one_v, &one);
  if (st != CZK_OK) {
    destroy(cs);
    return st;
  }
  *out = cs;
  return CZK_OK;
}

czk_status czk_cs_shape_new(czk_cs **out) { return cs_new(out, CZK_CS_SHAPE, 0, 0); }
czk_status czk_cs_witness_new(czk_cs **out, size_t hi, size_t ha) { return cs_new(out, CZK_CS_WITNESS, hi, ha); }
czk_status czk_cs_checker_new(czk_cs **out) { return cs_new(out, CZK_CS_CHECK, 0, 0); }
czk_status czk_cs_counter_new(czk_cs **out) { return cs_new(out, CZK_CS_COUNT, 0, 0); }

czk_status czk_cs_evaluator_new(czk_cs **out, const czk_cs_eval_out *dst) {
  *out = NULL;
  if (!dst || (dst->inputs_cap && !dst->inputs) || (dst->aux_cap && !dst->aux) ||
      (dst->rows_cap && (!dst->a || !dst->b || !dst->c)))
    return CZK_ERR_INVALID_ARG;
  CZK_TRY(cs_new(out, CZK_CS_EVAL, 1 + dst->inputs_cap, 0));
  (*out)->eval = *dst;
  (*out)->aux_vals = dst->aux;
  (*out)->aux_cap = dst->aux_cap;
  return CZK_OK;
}

czk_status czk_cs_evaluator_continue(czk_cs **out, const czk_cs_eval_at *at) {
  *out = NULL;
  if (!at || !at->inputs || !at->aux || !at->a || !at->b || !at->c || at->n_inputs < 1 ||
      (uint64_t)at->n_inputs + at->inputs_cap > CZK_VAR_INDEX_MAX || (uint64_t)at->n_aux + at->aux_cap > CZK_VAR_INDEX_MAX)
    return CZK_ERR_INVALID_ARG;
  czk_cs_eval_out o = {at->inputs + 1, (size_t)at->n_inputs - 1 + at->inputs_cap, at->aux, (size_t)at->n_aux + at->aux_cap,
                       at->a, at->b, at->c, (size_t)at->n_rows + at->rows_cap};
  CZK_TRY(czk_cs_evaluator_new(out, &o));
  czk_cs *cs = *out;
  free(cs->in_vals); /* the earlier inputs' values are the caller's (ONE at [0]); new ones are written there */
  cs->in_vals = at->inputs;
  cs->in_cap = (size_t)at->n_inputs + at->inputs_cap;
  cs->in_borrowed = true;
  cs->n_inputs = at->n_inputs;
  cs->n_aux = at->n_aux;
  cs->n_constraints = at->n_rows;
  return CZK_OK;
}

czk_status czk_cs_witness_continue(czk_cs **out, const czk_cs_witness_at *at) {
  *out = NULL;
  if (!at || !at->inputs || !at->aux || at->n_inputs < 1 ||
      (uint64_t)at->n_inputs + at->inputs_cap > CZK_VAR_INDEX_MAX || (uint64_t)at->n_aux + at->aux_cap > CZK_VAR_INDEX_MAX)
    return CZK_ERR_INVALID_ARG;
  czk_cs *cs = calloc(1, sizeof *cs);
  if (!cs) return CZK_ERR_NOMEM;
  cs->mode = CZK_CS_WITNESS;
  cs->ops = &k_witness_at_ops;
  cs->in_vals = at->inputs; /* the earlier values are the caller's (ONE at [0]) */
  cs->in_cap = (size_t)at->n_inputs + at->inputs_cap;
  cs->in_borrowed = true;
  cs->aux_vals = at->aux;
  cs->aux_cap = (size_t)at->n_aux + at->aux_cap;
  cs->aux_borrowed = true;
  cs->n_inputs = at->n_inputs;
  cs->n_aux = at->n_aux;
  cs->n_constraints = at->n_rows;
  cs->rows_limit = at->rows_cap > UINT64_MAX - at->n_rows ? UINT64_MAX : at->n_rows + at->rows_cap;
  *out = cs;
  return CZK_OK;
}

czk_status czk_cs_qap_new(czk_cs **out, const czk_cs_qap_out *dst) {
  *out = NULL;
  if (!dst || !dst->L || !dst->xa || !dst->xb || !dst->xc || dst->n_inputs < 1 || dst->n_vars < dst->n_inputs)
    return CZK_ERR_INVALID_ARG;
  czk_cs *cs = calloc(1, sizeof *cs);
  if (!cs) return CZK_ERR_NOMEM;
  cs->mode = CZK_CS_QAP;
  cs->ops = &k_qap_ops;
  cs->qap = *dst;
  czk_fr_neg(&cs->qap_minus_one, &czk_fr_one_v);
  czk_var one;
  czk_status st = cs->ops->alloc(cs, true, NULL, &one);
  if (st != CZK_OK) {
    destroy(cs);
    return st;
  }
  *out = cs;
  return CZK_OK;
}

void czk_cs_free(czk_cs *cs) {
  if (cs) cs->ops->destroy(cs);
}

czk_cs_mode czk_cs_get_mode(const czk_cs *cs) { return cs->mode; }
bool czk_cs_has_values(const czk_cs *cs) {
  return cs->mode == CZK_CS_WITNESS || cs->mode == CZK_CS_CHECK || cs->mode == CZK_CS_EVAL;
}
czk_status czk_cs_status(const czk_cs *cs) { return cs->err; }
bool czk_cs_wants_lc(const czk_cs *cs) { return cs->mode != CZK_CS_WITNESS; }

czk_status czk_cs_witness_bits(czk_cs *cs, czk_var *first, const uint8_t *bits, size_t n, uint64_t rows) {
  if (cs->err != CZK_OK) return cs->err;
  if (cs->mode != CZK_CS_WITNESS) return fail(cs, CZK_ERR_STATE);
  size_t idx = cs->n_aux;
  if (n > CZK_VAR_INDEX_MAX - idx) return fail(cs, CZK_ERR_LIMIT);
  if (cs->aux_borrowed) {
    if (idx + n > cs->aux_cap) return fail(cs, CZK_ERR_LIMIT);
  } else {
    czk_status st = grow((void **)&cs->aux_vals, &cs->aux_cap, idx + n, sizeof(czk_fr));
    if (st != CZK_OK) return fail(cs, st);
  }
  if (rows > cs->rows_limit - cs->n_constraints) return fail(cs, CZK_ERR_LIMIT);
  czk_fr *dst = cs->aux_vals + idx;
  for (size_t i = 0; i < n; i++) dst[i] = bits[i] ? czk_fr_one_v : czk_fr_zero_v;
  cs->n_aux += (uint32_t)n;
  cs->n_constraints += rows;
  if (n) *first = (czk_var)idx;
  return CZK_OK;
}
size_t czk_cs_num_inputs(const czk_cs *cs) { return cs->n_inputs; }
size_t czk_cs_num_aux(const czk_cs *cs) { return cs->n_aux; }
size_t czk_cs_num_constraints(const czk_cs *cs) { return (size_t)cs->n_constraints; }

czk_status czk_cs_alloc(czk_cs *cs, czk_var *out, const czk_fr *value) {
  if (cs->err != CZK_OK) return cs->err;
  return cs->ops->alloc(cs, false, value, out);
}

czk_status czk_cs_alloc_input(czk_cs *cs, czk_var *out, const czk_fr *value) {
  if (cs->err != CZK_OK) return cs->err;
  return cs->ops->alloc(cs, true, value, out);
}

czk_status czk_cs_enforce(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c) {
  if (cs->err != CZK_OK) return cs->err;
  if (a->err != CZK_OK) return fail(cs, a->err);
  if (b->err != CZK_OK) return fail(cs, b->err);
  if (c->err != CZK_OK) return fail(cs, c->err);
  return cs->ops->enforce(cs, name, a, b, c);
}

czk_status czk_cs_enforce_v(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c,
                            const czk_fr *va, const czk_fr *vb, const czk_fr *vc) {
  if (cs->err != CZK_OK) return cs->err;
  if (cs->mode == CZK_CS_EVAL) {
    if (a->err != CZK_OK || b->err != CZK_OK || c->err != CZK_OK)
      return fail(cs, a->err != CZK_OK ? a->err : b->err != CZK_OK ? b->err : c->err);
    if (cs->n_constraints >= cs->eval.rows_cap) return fail(cs, CZK_ERR_LIMIT);
    size_t k = (size_t)cs->n_constraints;
    cs->eval.a[k] = *va;
    cs->eval.b[k] = *vb;
    cs->eval.c[k] = *vc;
    cs->n_constraints++;
    return CZK_OK;
  }
  if (cs->mode == CZK_CS_CHECK && !cs->failed && lc_vars_known(cs, a) && lc_vars_known(cs, b) &&
      lc_vars_known(cs, c)) {
    /* the gadget's values must be its combinations' values (what the evaluator trusts) */
    czk_fr x[3];
    czk_lc_eval(&x[0], a, cs->in_vals, cs->aux_vals);
    czk_lc_eval(&x[1], b, cs->in_vals, cs->aux_vals);
    czk_lc_eval(&x[2], c, cs->in_vals, cs->aux_vals);
    if (!czk_fr_eq(&x[0], va) || !czk_fr_eq(&x[1], vb) || !czk_fr_eq(&x[2], vc)) {
      cs->failed = true;
      cs->fail_index = cs->n_constraints;
      czk_status st = set_fail_name(cs, name ? name : "gadget value differs from its combination");
      if (st != CZK_OK) return fail(cs, st);
    }
  }
  return czk_cs_enforce(cs, name, a, b, c);
}

void czk_cs_push_ns(czk_cs *cs, const char *name) {
  if (cs->mode != CZK_CS_CHECK || cs->err != CZK_OK) return;
  size_t nl = name ? strlen(name) : 0;
  if (grow((void **)&cs->ns_marks, &cs->ns_marks_cap, cs->ns_depth + 1, sizeof(size_t)) != CZK_OK ||
      grow((void **)&cs->ns, &cs->ns_cap, cs->ns_len + nl + 2, 1) != CZK_OK) {
    fail(cs, CZK_ERR_NOMEM);
    return;
  }
  cs->ns_marks[cs->ns_depth++] = cs->ns_len;
  if (cs->ns_len) cs->ns[cs->ns_len++] = '/';
  if (nl) memcpy(cs->ns + cs->ns_len, name, nl);
  cs->ns_len += nl;
  cs->ns[cs->ns_len] = 0;
}

void czk_cs_pop_ns(czk_cs *cs) {
  if (cs->mode != CZK_CS_CHECK || cs->err != CZK_OK || cs->ns_depth == 0) return;
  cs->ns_len = cs->ns_marks[--cs->ns_depth];
  cs->ns[cs->ns_len] = 0;
}

czk_status czk_cs_get_value(const czk_cs *cs, czk_var v, czk_fr *out) {
  if (!czk_cs_has_values(cs)) return CZK_ERR_STATE;
  if (!var_known(cs, v)) return CZK_ERR_INVALID_ARG;
  *out = czk_var_is_input(v) ? cs->in_vals[czk_var_index(v)] : cs->aux_vals[czk_var_index(v)];
  return CZK_OK;
}

czk_status czk_cs_checker_result(const czk_cs *cs, size_t *index, const char **name) {
  if (cs->mode != CZK_CS_CHECK) return CZK_ERR_STATE;
  if (cs->err != CZK_OK) return cs->err;
  if (!cs->failed) return CZK_OK;
  if (index) *index = cs->fail_index;
  if (name) *name = cs->fail_name;
  return CZK_ERR_UNSATISFIED;
}

czk_status czk_cs_witness_finish(czk_cs *cs, czk_witness *out) {
  memset(out, 0, sizeof *out);
  czk_status st = cs->err;
  if (st == CZK_OK && !czk_cs_has_values(cs)) st = CZK_ERR_STATE;
  if (st == CZK_OK) {
    size_t n = (size_t)cs->n_inputs + cs->n_aux;
    czk_fr *w = malloc(n * sizeof *w);
    if (!w) {
      st = CZK_ERR_NOMEM;
    } else {
      memcpy(w, cs->in_vals, cs->n_inputs * sizeof *w);
      if (cs->n_aux) memcpy(w + cs->n_inputs, cs->aux_vals, cs->n_aux * sizeof *w);
      out->n_inputs = cs->n_inputs;
      out->n_aux = cs->n_aux;
      out->w = w;
    }
  }
  czk_cs_free(cs);
  return st;
}

void czk_witness_fractions(const czk_fr *w, size_t n, double out[3]) {
  size_t z = 0, o = 0;
  for (size_t i = 0; i < n; i++) {
    if (czk_fr_is_zero(&w[i])) z++;
    else if (czk_fr_eq(&w[i], &czk_fr_one_v)) o++;
  }
  out[0] = n ? (double)z / (double)n : 0, out[1] = n ? (double)o / (double)n : 0;
  out[2] = n ? (double)(n - z - o) / (double)n : 0;
}

void czk_witness_free(czk_witness *w) {
  if (!w) return;
  free(w->w);
  memset(w, 0, sizeof *w);
}

/* ------------------------------------------------------------------------------------------------ internal, shared */
czk_status czk__cs_merge_lc(czk_cs *cs, const czk_lc *lc, size_t *n) { return merge_terms(cs, lc, n); }
bool czk__cs_lc_known(const czk_cs *cs, const czk_lc *lc) { return lc_vars_known(cs, lc); }
