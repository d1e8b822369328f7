/* compiled.c: compiled circuits with repeated segments (czk/compiled.h): the compile recorder (a czk_cs), the
 * expansion to a plain shape, the file form and the CPU mat-vec.
 *
 * Recorder: rows as (variable key, tag|coefficient index) pairs, the same merge as the shape recorder
 * (czk__cs_merge_lc: sort by key, sum equal keys, drop zeros); coefficients interned in an open-addressing hash table.
 * Marks split the recording into parts; finish maps every recorded variable to its final column (parts before it
 * grow by their repeats) and tags each entry ABS / IN / AUX / TABLE.
 *
 * File layout (host little-endian, every section 64-byte aligned):
 *   header (192 B): "CZKCOMP\0", u32 0x01020304, u32 version = 1, char id[48], u32 n_inputs, n_aux,
 *                   n_user_constraints, n_segments, n_tmpl_rows, n_coef, u64 tmpl_nnz[3], table_len, file_len,
 *                   body_hash (czk__bhash of bytes [192, file_len)), zero padding
 *   czk_cc_segment seg[n_segments] | czk_fr coef[n_coef] | u32 table[table_len] |
 *   for M in A, B, C: u32 row_ptr[n_tmpl_rows + 1] | u32 col[nnz_M] | u32 ref[nnz_M]
 *
 * Mat-vec: output rows split in chunks across the pool; row k -> (segment, repeat r, template row j) by a scan of
 * the few segments; per entry one column computation (a switch on the tag) and one Fr multiplication + addition
 * (addition / subtraction for coefficient 1 / -1). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/mapfile.h"
#include "cs/cs_internal.h"
#include "czk/compiled.h"

#define CC_MAGIC "CZKCOMP"
#define CC_VERSION 1u
#define CC_HDR 192u
#define ALIGN64(x) (((x) + 63u) & ~(uint64_t)63u)

/* ------------------------------------------------------------------------------------------------ recorder */
typedef struct cc_mat {
  uint32_t *row_ptr; /* rows + 1 */
  size_t rows_cap;
  uint32_t *key, *ref; /* variable key (cs_internal.h), coefficient index */
  size_t nnz, cap;
} cc_mat;

typedef struct cc_mark {
  uint32_t in, aux, rows;
} cc_mark;

typedef struct cc_rec {
  czk_cs cs; /* first: the recorder is a czk_cs */
  cc_mat m[3];
  czk_fr *coef;
  uint32_t n_coef, coef_cap;
  uint32_t *slot; /* hash table: coefficient index + 1, 0 = empty */
  size_t n_slot;  /* power of two */
  cc_mark *mark;
  uint32_t n_mark, mark_cap;
} cc_rec;

static czk_status rec_fail(czk_cs *cs, czk_status st) {
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

static uint64_t fr_hash(const czk_fr *x) {
  uint64_t h = x->l[0] * 0x9e3779b97f4a7c15u;
  for (int i = 1; i < 4; i++) h = (h ^ (h >> 29) ^ x->l[i]) * 0xbf58476d1ce4e5b9u;
  return h ^ (h >> 32);
}

/* The index of x in the coefficient table (added if new). */
static czk_status intern(cc_rec *r, const czk_fr *x, uint32_t *out) {
  if ((size_t)r->n_coef * 2 >= r->n_slot) { /* keep the load under 1/2 */
    size_t n = r->n_slot ? r->n_slot * 2 : 1024;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s) return CZK_ERR_NOMEM;
    for (uint32_t i = 0; i < r->n_coef; i++) {
      size_t h = (size_t)fr_hash(&r->coef[i]) & (n - 1);
      while (s[h]) h = (h + 1) & (n - 1);
      s[h] = i + 1;
    }
    free(r->slot);
    r->slot = s;
    r->n_slot = n;
  }
  size_t h = (size_t)fr_hash(x) & (r->n_slot - 1);
  while (r->slot[h]) {
    uint32_t i = r->slot[h] - 1;
    if (czk_fr_eq(&r->coef[i], x)) {
      *out = i;
      return CZK_OK;
    }
    h = (h + 1) & (r->n_slot - 1);
  }
  if (r->n_coef > CZK_CC_COEF_MASK) return CZK_ERR_LIMIT;
  size_t cap = r->coef_cap;
  CZK_TRY(grow((void **)&r->coef, &cap, (size_t)r->n_coef + 1, sizeof(czk_fr)));
  r->coef_cap = (uint32_t)cap;
  r->coef[r->n_coef] = *x;
  r->slot[h] = r->n_coef + 1;
  *out = r->n_coef++;
  return CZK_OK;
}

static czk_status rec_alloc(czk_cs *cs, bool input, const czk_fr *value, czk_var *out) {
  (void)value;
  uint32_t idx = input ? cs->n_inputs : cs->n_aux;
  if (idx >= CZK_VAR_INDEX_MAX) return rec_fail(cs, CZK_ERR_LIMIT);
  if (input)
    cs->n_inputs++;
  else
    cs->n_aux++;
  *out = input ? (idx | CZK_VAR_INPUT_BIT) : idx;
  return CZK_OK;
}

static czk_status rec_row(cc_rec *r, cc_mat *m, const czk_lc *lc) {
  czk_cs *cs = &r->cs;
  size_t rows = (size_t)cs->n_constraints;
  CZK_TRY(grow((void **)&m->row_ptr, &m->rows_cap, rows + 2, sizeof(uint32_t)));
  if (rows == 0) m->row_ptr[0] = 0;
  size_t n;
  CZK_TRY(czk__cs_merge_lc(cs, lc, &n));
  if (m->nnz + n > UINT32_MAX) return CZK_ERR_LIMIT; /* template offsets are u32 */
  if (m->nnz + n > m->cap) {
    size_t cap = m->cap ? m->cap : 1024;
    while (cap < m->nnz + n) cap *= 2;
    uint32_t *k = realloc(m->key, cap * sizeof *k);
    if (!k) return CZK_ERR_NOMEM;
    m->key = k;
    uint32_t *f = realloc(m->ref, cap * sizeof *f);
    if (!f) return CZK_ERR_NOMEM;
    m->ref = f;
    m->cap = cap;
  }
  for (size_t i = 0; i < n; i++) {
    m->key[m->nnz] = czk__cs_var_key(cs->scratch[i].var);
    CZK_TRY(intern(r, &cs->scratch[i].coeff, &m->ref[m->nnz]));
    m->nnz++;
  }
  m->row_ptr[rows + 1] = (uint32_t)m->nnz;
  return CZK_OK;
}

static czk_status rec_enforce(czk_cs *cs, const char *name, const czk_lc *a, const czk_lc *b, const czk_lc *c) {
  (void)name;
  cc_rec *r = (cc_rec *)cs;
  if (cs->n_constraints >= UINT32_MAX - 1) return rec_fail(cs, CZK_ERR_LIMIT);
  if (!czk__cs_lc_known(cs, a) || !czk__cs_lc_known(cs, b) || !czk__cs_lc_known(cs, c))
    return rec_fail(cs, CZK_ERR_INVALID_ARG);
  const czk_lc *lcs[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    czk_status st = rec_row(r, &r->m[k], lcs[k]);
    if (st != CZK_OK) return rec_fail(cs, st);
  }
  cs->n_constraints++;
  return CZK_OK;
}

static void rec_destroy(czk_cs *cs) {
  cc_rec *r = (cc_rec *)cs;
  for (int k = 0; k < 3; k++) {
    free(r->m[k].row_ptr);
    free(r->m[k].key);
    free(r->m[k].ref);
  }
  free(r->coef);
  free(r->slot);
  free(r->mark);
  free(cs->scratch);
  free(r);
}

static const czk_cs_ops k_rec_ops = {rec_alloc, rec_enforce, rec_destroy};

czk_status czk_cc_recorder_new(czk_cs **out) {
  *out = NULL;
  cc_rec *r = calloc(1, sizeof *r);
  if (!r) return CZK_ERR_NOMEM;
  r->cs.mode = CZK_CS_COMPILE;
  r->cs.ops = &k_rec_ops;
  czk_var one;
  rec_alloc(&r->cs, true, NULL, &one); /* ONE = input 0 */
  *out = &r->cs;
  return CZK_OK;
}

czk_status czk_cc_recorder_mark(czk_cs *cs) {
  if (!cs || cs->mode != CZK_CS_COMPILE) return CZK_ERR_INVALID_ARG;
  if (cs->err != CZK_OK) return cs->err;
  cc_rec *r = (cc_rec *)cs;
  size_t cap = r->mark_cap;
  czk_status st = grow((void **)&r->mark, &cap, (size_t)r->n_mark + 1, sizeof(cc_mark));
  if (st != CZK_OK) return rec_fail(cs, st);
  r->mark_cap = (uint32_t)cap;
  r->mark[r->n_mark++] = (cc_mark){cs->n_inputs, cs->n_aux, (uint32_t)cs->n_constraints};
  return CZK_OK;
}

void czk_cc_free(czk_compiled *cc) {
  if (!cc) return;
  if (cc->mapped) {
    czk__file_map_close(cc->file);
    free(cc->file);
  } else {
    free(cc->seg);
    free(cc->coef);
    free(cc->table);
    for (int k = 0; k < 3; k++) {
      free(cc->m[k].row_ptr);
      free(cc->m[k].col);
      free(cc->m[k].ref);
    }
  }
  free(cc);
}

/* "<path>: <message>" (or the message alone) into err. */
static void errf(char *err, size_t len, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void errf(char *err, size_t len, const char *path, const char *fmt, ...) {
  if (!err || !len) return;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(err, len, "%s%s%s", path ? path : "", path ? ": " : "", msg);
}
#define ERRF(...) errf(err, err_len, path, __VA_ARGS__)
#define ULL(x) ((unsigned long long)(x))

/* Expanded nnz, coefficient fast-path indices (from the arrays). */
static void derive(czk_compiled *cc) {
  for (int k = 0; k < 3; k++) {
    uint64_t n = 0;
    for (uint32_t s = 0; s < cc->n_segments; s++) {
      const czk_cc_segment *g = &cc->seg[s];
      n += (uint64_t)g->reps * (cc->m[k].row_ptr[g->tmpl_row0 + g->n_rows] - cc->m[k].row_ptr[g->tmpl_row0]);
    }
    cc->nnz[k] = n;
  }
  czk_fr m1;
  czk_fr_neg(&m1, &czk_fr_one_v);
  cc->one_index = cc->minus_one_index = UINT32_MAX;
  for (uint32_t i = 0; i < cc->n_coef; i++) {
    if (czk_fr_eq(&cc->coef[i], &czk_fr_one_v)) cc->one_index = i;
    if (czk_fr_eq(&cc->coef[i], &m1)) cc->minus_one_index = i;
  }
}

/* Maps a recorded variable key to its final unified column (repeat 0) and the part it was allocated in. */
typedef struct cc_map {
  const cc_mark *mk; /* n marks; part p = (mk[p-1], mk[p]] with mk[-1] = {1, 0, 0} */
  uint32_t n;
  uint64_t *fin_in, *fin_aux; /* final start of part p's inputs / aux */
  uint64_t n_inputs;
} cc_map;

static uint64_t map_key(const cc_map *m, uint32_t key, uint32_t *part) {
  bool input = !(key & CZK_VAR_INPUT_BIT); /* keys: inputs have the bit clear */
  uint32_t idx = key & ~CZK_VAR_INPUT_BIT;
  if (input && idx == 0) {
    *part = UINT32_MAX; /* ONE: before every part */
    return 0;
  }
  uint32_t lo = input ? 1 : 0;
  for (uint32_t p = 0; p < m->n; p++) {
    uint32_t hi = input ? m->mk[p].in : m->mk[p].aux;
    if (idx < hi) {
      *part = p;
      return input ? m->fin_in[p] + (idx - lo) : m->n_inputs + m->fin_aux[p] + (idx - lo);
    }
    lo = hi;
  }
  *part = m->n; /* after the last mark: cannot happen once every part is closed */
  return 0;
}

czk_status czk_cc_recorder_finish(czk_cs *cs, const czk_cc_part *parts, uint32_t n_parts, const char *id,
                                  czk_compiled **out) {
  *out = NULL;
  if (!cs || cs->mode != CZK_CS_COMPILE) return CZK_ERR_INVALID_ARG;
  cc_rec *r = (cc_rec *)cs;
  czk_status st = cs->err;
  if (st == CZK_OK && (!parts || n_parts == 0 || n_parts != r->n_mark || r->mark[r->n_mark - 1].in != cs->n_inputs ||
                       r->mark[r->n_mark - 1].aux != cs->n_aux ||
                       r->mark[r->n_mark - 1].rows != cs->n_constraints))
    st = CZK_ERR_INVALID_ARG; /* every part closed by its mark */
  for (uint32_t p = 0; p < n_parts && st == CZK_OK; p++)
    if (parts[p].reps < 1 || parts[p].table_width > CZK_CC_MAX_TABLE_WIDTH || (parts[p].table_width && !parts[p].table))
      st = CZK_ERR_INVALID_ARG;
  cc_map mp = {r->mark, n_parts, NULL, NULL, 0};
  czk_compiled *cc = NULL;
  if (st == CZK_OK) {
    mp.fin_in = calloc(2 * (size_t)n_parts + 2, sizeof(uint64_t));
    cc = calloc(1, sizeof *cc);
    if (!mp.fin_in || !cc) st = CZK_ERR_NOMEM;
  }
  uint64_t *fin_rows = NULL;
  if (st == CZK_OK) {
    mp.fin_aux = mp.fin_in + n_parts + 1;
    fin_rows = calloc((size_t)n_parts + 1, sizeof *fin_rows);
    if (!fin_rows) st = CZK_ERR_NOMEM;
  }
  uint64_t tot_in = 1, tot_aux = 0, tot_rows = 0, table_len = 0;
  if (st == CZK_OK) {
    cc_mark prev = {1, 0, 0};
    for (uint32_t p = 0; p < n_parts; p++) {
      const cc_mark *m = &r->mark[p];
      mp.fin_in[p] = tot_in, mp.fin_aux[p] = tot_aux, fin_rows[p] = tot_rows;
      tot_in += (uint64_t)parts[p].reps * (m->in - prev.in);
      tot_aux += (uint64_t)parts[p].reps * (m->aux - prev.aux);
      tot_rows += (uint64_t)parts[p].reps * (m->rows - prev.rows);
      table_len += (uint64_t)parts[p].reps * parts[p].table_width;
      prev = *m;
    }
    mp.n_inputs = tot_in;
    if (tot_in + tot_aux > CZK_VAR_INDEX_MAX || tot_rows + tot_in > UINT32_MAX || table_len > UINT32_MAX)
      st = CZK_ERR_LIMIT;
  }
  if (st == CZK_OK) {
    snprintf(cc->id, sizeof cc->id, "%s", id ? id : "");
    cc->n_inputs = (uint32_t)tot_in, cc->n_aux = (uint32_t)tot_aux, cc->n_user_constraints = (uint32_t)tot_rows;
    cc->n_segments = n_parts;
    cc->n_tmpl_rows = (uint32_t)cs->n_constraints;
    cc->seg = calloc(n_parts, sizeof *cc->seg);
    cc->table = malloc((table_len ? table_len : 1) * sizeof(uint32_t));
    if (!cc->seg || !cc->table) st = CZK_ERR_NOMEM;
    cc->table_len = table_len;
  }
  /* segments and tables */
  uint64_t toff = 0;
  for (uint32_t p = 0; p < n_parts && st == CZK_OK; p++) {
    cc_mark prev = p ? r->mark[p - 1] : (cc_mark){1, 0, 0};
    czk_cc_segment *g = &cc->seg[p];
    *g = (czk_cc_segment){fin_rows[p], prev.rows, r->mark[p].rows - prev.rows, parts[p].reps,
                          r->mark[p].in - prev.in, r->mark[p].aux - prev.aux, parts[p].table_width, toff};
    for (uint64_t i = 0; i < (uint64_t)parts[p].reps * parts[p].table_width && st == CZK_OK; i++) {
      czk_var v = parts[p].table[i];
      uint32_t part;
      bool known = czk_var_is_input(v) ? czk_var_index(v) < cs->n_inputs : czk_var_index(v) < cs->n_aux;
      uint64_t col = known ? map_key(&mp, czk__cs_var_key(v), &part) : 0;
      if (!known || (part != UINT32_MAX && part >= p)) st = CZK_ERR_INVALID_ARG; /* recorded before the part */
      cc->table[toff + i] = (uint32_t)col;
    }
    toff += (uint64_t)parts[p].reps * parts[p].table_width;
  }
  /* entries: key -> tagged column */
  for (int k = 0; k < 3 && st == CZK_OK; k++) {
    cc_mat *m = &r->m[k];
    if (cs->n_constraints == 0) { /* no rows recorded: an empty row_ptr of one zero */
      st = grow((void **)&m->row_ptr, &m->rows_cap, 1, sizeof(uint32_t));
      if (st == CZK_OK) m->row_ptr[0] = 0;
    }
    for (uint32_t p = 0; p < n_parts && st == CZK_OK; p++) {
      const czk_cc_segment *g = &cc->seg[p];
      for (uint64_t e = m->row_ptr[g->tmpl_row0]; e < m->row_ptr[g->tmpl_row0 + g->n_rows]; e++) {
        uint32_t part, tag;
        uint64_t col = map_key(&mp, m->key[e], &part);
        if (part == p) {
          tag = (m->key[e] & CZK_VAR_INPUT_BIT) ? CZK_CC_AUX : CZK_CC_IN;
        } else {
          tag = CZK_CC_ABS;
          for (uint32_t s = 0; s < g->table_width; s++)
            if (cc->table[g->table_off + s] == col) {
              tag = CZK_CC_TABLE, col = s;
              break;
            }
        }
        m->key[e] = (uint32_t)col;
        m->ref[e] |= tag << CZK_CC_TAG_SHIFT;
      }
    }
    cc->m[k].row_ptr = m->row_ptr, cc->m[k].col = m->key, cc->m[k].ref = m->ref, cc->m[k].nnz = m->nnz;
    m->row_ptr = m->key = m->ref = NULL;
  }
  if (st == CZK_OK) {
    cc->n_coef = r->n_coef;
    cc->coef = r->coef ? r->coef : malloc(sizeof(czk_fr));
    r->coef = NULL;
    if (!cc->coef) st = CZK_ERR_NOMEM;
  }
  free(mp.fin_in);
  free(fin_rows);
  czk_cs_free(cs);
  if (st == CZK_OK) derive(cc);
  if (st == CZK_OK) st = czk_cc_validate(cc, NULL, 0);
  if (st != CZK_OK) {
    czk_cc_free(cc);
    return st;
  }
  *out = cc;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ validation */
static czk_status validate(const czk_compiled *cc, const char *path, char *err, size_t err_len) {
  uint64_t n_vars = (uint64_t)cc->n_inputs + cc->n_aux, row = 0;
  if (cc->n_inputs < 1 || n_vars > CZK_VAR_INDEX_MAX) {
    ERRF("bad variable counts (%llu inputs, %llu aux)", ULL(cc->n_inputs), ULL(cc->n_aux));
    return CZK_ERR_FORMAT;
  }
  for (uint32_t s = 0; s < cc->n_segments; s++) {
    const czk_cc_segment *g = &cc->seg[s];
    if (g->row0 != row || g->reps < 1 || (uint64_t)g->tmpl_row0 + g->n_rows > cc->n_tmpl_rows ||
        g->table_width > CZK_CC_MAX_TABLE_WIDTH || g->table_off + (uint64_t)g->reps * g->table_width > cc->table_len) {
      ERRF("segment %llu is inconsistent (row0 %llu)", ULL(s), ULL(g->row0));
      return CZK_ERR_FORMAT;
    }
    row += (uint64_t)g->reps * g->n_rows;
    for (uint64_t i = 0; i < (uint64_t)g->reps * g->table_width; i++)
      if (cc->table[g->table_off + i] >= n_vars) {
        ERRF("table entry %llu of segment %llu out of range", ULL(i), ULL(s));
        return CZK_ERR_FORMAT;
      }
    uint64_t last = g->reps - 1;
    for (int k = 0; k < 3; k++) {
      const czk_cc_matrix *m = &cc->m[k];
      for (uint32_t j = g->tmpl_row0; j < g->tmpl_row0 + g->n_rows; j++) {
        if (m->row_ptr[j + 1] < m->row_ptr[j] || m->row_ptr[j + 1] > m->nnz) {
          ERRF("row pointers of matrix %c not monotonic at template row %llu", "ABC"[k], ULL(j));
          return CZK_ERR_FORMAT;
        }
        for (uint64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
          uint32_t tag = m->ref[e] >> CZK_CC_TAG_SHIFT, ci = m->ref[e] & CZK_CC_COEF_MASK;
          uint64_t c = m->col[e];
          bool ok = ci < cc->n_coef;
          if (tag == CZK_CC_ABS) ok = ok && c < n_vars;
          else if (tag == CZK_CC_IN) ok = ok && c + last * g->in_stride < cc->n_inputs;
          else if (tag == CZK_CC_AUX) ok = ok && c >= cc->n_inputs && c + last * g->aux_stride < n_vars;
          else ok = ok && c < g->table_width;
          if (!ok) {
            ERRF("matrix %c entry %llu of template row %llu out of range", "ABC"[k], ULL(e), ULL(j));
            return CZK_ERR_FORMAT;
          }
        }
      }
    }
  }
  if (row != cc->n_user_constraints || (uint64_t)cc->n_user_constraints + cc->n_inputs > UINT32_MAX) {
    ERRF("segments cover %llu rows, the circuit has %llu", ULL(row), ULL(cc->n_user_constraints));
    return CZK_ERR_FORMAT;
  }
  for (int k = 0; k < 3; k++)
    if (cc->m[k].row_ptr[0] != 0 || cc->m[k].row_ptr[cc->n_tmpl_rows] != cc->m[k].nnz) {
      ERRF("row pointers of matrix %c do not span its %llu entries", "ABC"[k], ULL(cc->m[k].nnz));
      return CZK_ERR_FORMAT;
    }
  for (uint32_t i = 0; i < cc->n_coef; i++) {
    if (!czk__fr_is_canonical(&cc->coef[i])) {
      ERRF("coefficient %llu is not canonical", ULL(i));
      return CZK_ERR_NOT_CANONICAL;
    }
    if (czk_fr_is_zero(&cc->coef[i])) {
      ERRF("coefficient %llu is zero", ULL(i));
      return CZK_ERR_FORMAT;
    }
  }
  return CZK_OK;
}

czk_status czk_cc_validate(const czk_compiled *cc, char *err, size_t err_len) {
  if (!cc) return CZK_ERR_INVALID_ARG;
  return validate(cc, NULL, err, err_len);
}

/* ------------------------------------------------------------------------------------------------ expansion */
czk_status czk_cc_expand(const czk_compiled *cc, czk_r1cs **out) {
  *out = NULL;
  czk_cs *cs;
  CZK_TRY(czk_cs_shape_new(&cs));
  czk_var v;
  for (uint32_t i = 1; i < cc->n_inputs; i++) czk_cs_alloc_input(cs, &v, NULL);
  for (uint32_t i = 0; i < cc->n_aux; i++) czk_cs_alloc(cs, &v, NULL);
  czk_lc lc[3];
  for (int k = 0; k < 3; k++) czk_lc_init(&lc[k]);
  for (uint32_t s = 0; s < cc->n_segments && czk_cs_status(cs) == CZK_OK; s++) {
    const czk_cc_segment *g = &cc->seg[s];
    for (uint32_t r = 0; r < g->reps; r++)
      for (uint32_t j = g->tmpl_row0; j < g->tmpl_row0 + g->n_rows; j++) {
        for (int k = 0; k < 3; k++) {
          const czk_cc_matrix *m = &cc->m[k];
          czk_lc_clear(&lc[k]);
          for (uint64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
            uint32_t tag = m->ref[e] >> CZK_CC_TAG_SHIFT;
            uint64_t c = m->col[e];
            if (tag == CZK_CC_IN) c += (uint64_t)r * g->in_stride;
            else if (tag == CZK_CC_AUX) c += (uint64_t)r * g->aux_stride;
            else if (tag == CZK_CC_TABLE) c = cc->table[g->table_off + (uint64_t)r * g->table_width + c];
            czk_var var = c < cc->n_inputs ? (czk_var)(c | CZK_VAR_INPUT_BIT) : (czk_var)(c - cc->n_inputs);
            czk_lc_add(&lc[k], var, &cc->coef[m->ref[e] & CZK_CC_COEF_MASK]);
          }
        }
        czk_cs_enforce(cs, NULL, &lc[0], &lc[1], &lc[2]);
      }
  }
  for (int k = 0; k < 3; k++) czk_lc_free(&lc[k]);
  return czk_cs_shape_finish(cs, out);
}

/* ------------------------------------------------------------------------------------------------ file form */
typedef struct cc_hdr {
  char magic[8];
  uint32_t bom, version;
  char id[48];
  uint32_t n_inputs, n_aux, n_user_constraints, n_segments, n_tmpl_rows, n_coef;
  uint64_t nnz[3];
  uint64_t table_len, file_len, body_hash;
  uint8_t pad[CC_HDR - 8 - 8 - 48 - 24 - 48];
} cc_hdr;
_Static_assert(sizeof(cc_hdr) == CC_HDR, "compiled header size");
_Static_assert(sizeof(czk_cc_segment) == 40, "segment layout");

/* Section offsets: seg, coef, table, then row_ptr/col/ref per matrix. false on overflow. */
static bool layout(const cc_hdr *h, uint64_t off[12], uint64_t *total) {
  if (h->n_segments > (1u << 20) || h->table_len > UINT32_MAX) return false;
  for (int k = 0; k < 3; k++)
    if (h->nnz[k] > UINT32_MAX) return false;
  uint64_t p = CC_HDR;
  off[0] = p, p = ALIGN64(p + (uint64_t)h->n_segments * sizeof(czk_cc_segment));
  off[1] = p, p = ALIGN64(p + (uint64_t)h->n_coef * sizeof(czk_fr));
  off[2] = p, p = ALIGN64(p + h->table_len * 4);
  for (int k = 0; k < 3; k++) {
    off[3 + 3 * k] = p, p = ALIGN64(p + ((uint64_t)h->n_tmpl_rows + 1) * 4);
    off[4 + 3 * k] = p, p = ALIGN64(p + h->nnz[k] * 4);
    off[5 + 3 * k] = p, p = ALIGN64(p + h->nnz[k] * 4);
  }
  *total = p;
  return true;
}

static void fill_hdr(const czk_compiled *cc, cc_hdr *h) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, CC_MAGIC, 8);
  h->bom = 0x01020304u;
  h->version = CC_VERSION;
  memcpy(h->id, cc->id, sizeof h->id);
  h->n_inputs = cc->n_inputs, h->n_aux = cc->n_aux, h->n_user_constraints = cc->n_user_constraints;
  h->n_segments = cc->n_segments, h->n_tmpl_rows = cc->n_tmpl_rows, h->n_coef = cc->n_coef;
  for (int k = 0; k < 3; k++) h->nnz[k] = cc->m[k].nnz;
  h->table_len = cc->table_len;
}

uint64_t czk_cc_file_size(const czk_compiled *cc) {
  cc_hdr h;
  fill_hdr(cc, &h);
  uint64_t off[12], total = 0;
  return layout(&h, off, &total) ? total : 0;
}

czk_status czk_cc_save(const czk_compiled *cc, const char *path) {
  if (!cc || !path) return CZK_ERR_INVALID_ARG;
  cc_hdr h;
  fill_hdr(cc, &h);
  uint64_t off[12];
  if (!layout(&h, off, &h.file_len)) return CZK_ERR_LIMIT;
  const void *src[12] = {cc->seg, cc->coef, cc->table};
  uint64_t len[12] = {(uint64_t)cc->n_segments * sizeof(czk_cc_segment), (uint64_t)cc->n_coef * sizeof(czk_fr),
                      cc->table_len * 4};
  for (int k = 0; k < 3; k++) {
    src[3 + 3 * k] = cc->m[k].row_ptr, len[3 + 3 * k] = ((uint64_t)cc->n_tmpl_rows + 1) * 4;
    src[4 + 3 * k] = cc->m[k].col, len[4 + 3 * k] = cc->m[k].nnz * 4;
    src[5 + 3 * k] = cc->m[k].ref, len[5 + 3 * k] = cc->m[k].nnz * 4;
  }
  czk__afile af;
  CZK_TRY(czk__afile_open(&af, path, "wb"));
  static const uint8_t zeros[64];
  czk__bhash bh;
  czk__bhash_init(&bh);
  czk_status st = fwrite(&h, 1, sizeof h, af.f) == sizeof h ? CZK_OK : CZK_ERR_IO;
  for (int i = 0; i < 12 && st == CZK_OK; i++) {
    uint64_t pad = ALIGN64(off[i] + len[i]) - (off[i] + len[i]);
    if (len[i] && fwrite(src[i], 1, len[i], af.f) != len[i]) st = CZK_ERR_IO;
    if (pad && fwrite(zeros, 1, pad, af.f) != pad) st = CZK_ERR_IO;
    czk__bhash_bytes(&bh, src[i], len[i]); /* sections are 64-aligned, lengths multiples of 4: words + padding */
    for (uint64_t z = (len[i] + 7) / 8; z < (len[i] + pad) / 8; z++) czk__bhash_bytes(&bh, zeros, 8);
  }
  h.body_hash = czk__bhash_final(&bh);
  if (st == CZK_OK && fseek(af.f, 0, SEEK_SET) != 0) st = CZK_ERR_IO;
  if (st == CZK_OK && fwrite(&h, 1, sizeof h, af.f) != sizeof h) st = CZK_ERR_IO;
  if (st == CZK_OK) return czk__afile_commit(&af);
  czk__afile_abort(&af);
  return st;
}

czk_status czk_cc_load(czk_compiled **out, const char *path, char *err, size_t err_len) {
  *out = NULL;
  if (err && err_len) err[0] = 0;
  if (!path) return CZK_ERR_INVALID_ARG;
  czk__file_map fm;
  czk_status st = czk__file_map_open(&fm, path);
  if (st != CZK_OK) {
    ERRF("cannot open: %s", czk_status_str(st));
    return st;
  }
  cc_hdr h;
  uint64_t off[12], total = 0;
  if (fm.len < CC_HDR) {
    ERRF("truncated: %llu bytes, shorter than the %u-byte header", ULL(fm.len), CC_HDR);
    st = CZK_ERR_TRUNCATED;
  } else {
    memcpy(&h, fm.data, sizeof h);
    if (memcmp(h.magic, CC_MAGIC, 8) != 0 || h.bom != 0x01020304u) {
      ERRF("not a compiled circuit (bad magic or byte order)");
      st = CZK_ERR_FORMAT;
    } else if (h.version != CC_VERSION) {
      ERRF("compiled-circuit version %u, this build reads %u", h.version, CC_VERSION);
      st = CZK_ERR_UNSUPPORTED;
    } else if (!layout(&h, off, &total) || h.id[sizeof h.id - 1] != 0) {
      ERRF("header counts out of range");
      st = CZK_ERR_FORMAT;
    } else if (fm.len < total || h.file_len < total) {
      ERRF("truncated: %llu bytes, the header needs %llu", ULL(fm.len), ULL(total));
      st = CZK_ERR_TRUNCATED;
    } else if (fm.len != total || h.file_len != total) {
      ERRF("size mismatch: %llu bytes, the header says %llu", ULL(fm.len), ULL(total));
      st = CZK_ERR_FORMAT;
    } else {
      czk__bhash bh;
      czk__bhash_init(&bh);
      czk__bhash_bytes(&bh, fm.data + CC_HDR, (size_t)(total - CC_HDR));
      if (czk__bhash_final(&bh) != h.body_hash) {
        ERRF("checksum mismatch: the file is corrupted");
        st = CZK_ERR_FORMAT;
      }
    }
  }
  czk_compiled *cc = NULL;
  if (st == CZK_OK) {
    cc = calloc(1, sizeof *cc);
    void *f = malloc(sizeof fm);
    if (!cc || !f) {
      free(cc), free(f);
      cc = NULL;
      st = CZK_ERR_NOMEM;
    } else {
      memcpy(f, &fm, sizeof fm);
      cc->file = f;
      cc->mapped = true;
    }
  }
  if (st != CZK_OK) {
    czk__file_map_close(&fm);
    return st;
  }
  uint8_t *base = (uint8_t *)fm.data;
  cc->mem = base;
  memcpy(cc->id, h.id, sizeof cc->id);
  cc->n_inputs = h.n_inputs, cc->n_aux = h.n_aux, cc->n_user_constraints = h.n_user_constraints;
  cc->n_segments = h.n_segments, cc->n_tmpl_rows = h.n_tmpl_rows, cc->n_coef = h.n_coef;
  cc->seg = (czk_cc_segment *)(base + off[0]);
  cc->coef = (czk_fr *)(base + off[1]);
  cc->table = (uint32_t *)(base + off[2]);
  cc->table_len = h.table_len;
  for (int k = 0; k < 3; k++) {
    cc->m[k].row_ptr = (uint32_t *)(base + off[3 + 3 * k]);
    cc->m[k].col = (uint32_t *)(base + off[4 + 3 * k]);
    cc->m[k].ref = (uint32_t *)(base + off[5 + 3 * k]);
    cc->m[k].nnz = h.nnz[k];
  }
  st = validate(cc, path, err, err_len);
  if (st == CZK_OK) derive(cc);
  if (czk__file_map_check(cc->file) != CZK_OK) {
    ERRF("changed on disk while being read");
    st = CZK_ERR_FILE_CHANGED;
  }
  if (st != CZK_OK) {
    czk_cc_free(cc);
    return st;
  }
  *out = cc;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ mat-vec */
typedef struct mv_ctx {
  const czk_compiled *cc;
  const czk_fr *w;
  czk_fr *out[3];
} mv_ctx;

static void mv_chunk(void *vctx, size_t begin, size_t end) {
  const mv_ctx *x = vctx;
  const czk_compiled *cc = x->cc;
  uint32_t s = 0;
  for (size_t row = begin; row < end; row++) {
    while (row >= cc->seg[s].row0 + (uint64_t)cc->seg[s].reps * cc->seg[s].n_rows) s++;
    const czk_cc_segment *g = &cc->seg[s];
    uint64_t q = row - g->row0, r = q / g->n_rows, j = g->tmpl_row0 + q % g->n_rows;
    uint64_t din = r * g->in_stride, daux = r * g->aux_stride;
    const uint32_t *tab = cc->table + g->table_off + r * g->table_width;
    for (int k = 0; k < 3; k++) {
      const czk_cc_matrix *m = &cc->m[k];
      czk_fr acc, t;
      czk_fr_set_zero(&acc);
      for (uint64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
        uint32_t ref = m->ref[e], ci = ref & CZK_CC_COEF_MASK;
        uint64_t c = m->col[e];
        switch (ref >> CZK_CC_TAG_SHIFT) {
        case CZK_CC_IN: c += din; break;
        case CZK_CC_AUX: c += daux; break;
        case CZK_CC_TABLE: c = tab[c]; break;
        default: break;
        }
        const czk_fr *v = &x->w[c];
        if (ci == cc->one_index) {
          czk_fr_add(&acc, &acc, v);
        } else if (ci == cc->minus_one_index) {
          czk_fr_sub(&acc, &acc, v);
        } else {
          czk_fr_mul(&t, v, &cc->coef[ci]);
          czk_fr_add(&acc, &acc, &t);
        }
      }
      x->out[k][row] = acc;
    }
  }
}

czk_status czk_cc_matvec(const czk_compiled *cc, const czk_fr *w, czk_fr *a, czk_fr *b, czk_fr *c, czk_pool *pool) {
  if (!cc || !w || !a || !b || !c) return CZK_ERR_INVALID_ARG;
  mv_ctx x = {cc, w, {a, b, c}};
  czk_pool_parallel_for(pool, cc->n_user_constraints, 4096, mv_chunk, &x);
  if (cc->mapped && czk__file_map_check(cc->file) != CZK_OK) return CZK_ERR_FILE_CHANGED;
  return CZK_OK;
}
