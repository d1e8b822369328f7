/* circom.c: circom .r1cs and .wtns readers, the binfile container they share with the snarkjs .zkey reader, and the
 * witness checker (spec: docs/snarkjs-formats.md §1-3).
 *
 * .r1cs (version 1): section 1 header { u32 n8 = 32; r; u32 nWires, nPubOut, nPubIn, nPrvIn; u64 nLabels;
 * u32 nConstraints } (exactly 64 bytes), section 2 constraints (nConstraints x three LCs A, B, C; LC = u32 nTerms,
 * nTerms x { u32 wire; u8 coef[32] } standard form < r), section 3 wire->label map (nWires x u64, optional).
 * Sections 4/5 (custom gates, PLONK only) are CZK_ERR_UNSUPPORTED. Terms may be unsorted: each row is sorted by wire,
 * equal wires merged and zero coefficients dropped, giving czk_csr rows (strictly increasing columns, non-zero values).
 * .wtns (version 2): section 1 { u32 n8 = 32; r; u32 nWitness } (exactly 40 bytes), section 2 nWitness x 32 bytes
 * (standard form < r); w[0] must be 1.
 * Reading is two passes over section 2 (count, then fill): O(terms) plus a sort per row. */
#include <pthread.h>
#include <stdlib.h>

#include "cs/binfile.h"

/* ------------------------------------------------------------------------------------------------ binfile */
czk_status czk__binfile_parse(czk__binfile *bf, const uint8_t *buf, size_t len, const char magic[4],
                              uint32_t max_version, uint32_t allowed_ids) {
  memset(bf, 0, sizeof *bf);
  if (len < 12 || !buf) return CZK_ERR_TRUNCATED;
  if (memcmp(buf, magic, 4) != 0) return CZK_ERR_FORMAT;
  czk__cursor c = {buf + 4, len - 4};
  uint32_t n_sections;
  CZK_TRY(czk__cursor_u32(&c, &bf->version));
  CZK_TRY(czk__cursor_u32(&c, &n_sections));
  if (bf->version == 0 || bf->version > max_version) return CZK_ERR_UNSUPPORTED;
  for (uint32_t i = 0; i < n_sections; i++) {
    uint32_t id;
    uint64_t size;
    CZK_TRY(czk__cursor_u32(&c, &id));
    CZK_TRY(czk__cursor_u64(&c, &size));
    if (size > c.left) return CZK_ERR_TRUNCATED;
    if (id > CZK__BINFILE_MAX_ID || !(allowed_ids >> id & 1)) return CZK_ERR_FORMAT;
    if (bf->sec[id].p) return CZK_ERR_FORMAT; /* duplicate */
    bf->sec[id].p = c.p;
    bf->sec[id].size = size;
    c.p += size;
    c.left -= (size_t)size;
  }
  if (c.left != 0) return CZK_ERR_FORMAT; /* bytes after the last section */
  return CZK_OK;
}

czk_status czk__circom_read_prime_r(czk__cursor *c) {
  uint32_t n8;
  const uint8_t *prime;
  CZK_TRY(czk__cursor_u32(c, &n8));
  if (n8 != 32) return CZK_ERR_UNSUPPORTED;
  CZK_TRY(czk__cursor_take(c, 32, &prime));
  if (!czk__le_bytes_equal_limbs(prime, czk_fr_modulus, 4)) return CZK_ERR_UNSUPPORTED;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ .r1cs */
#define R1CS_TERM_BYTES 36u /* u32 wire + 32-byte coefficient */

static int cmp_term(const void *x, const void *y) {
  const czk_lc_term *a = x, *b = y;
  return (a->var > b->var) - (a->var < b->var);
}

static void csr_free(czk_csr *m) {
  free(m->row_ptr);
  free(m->col);
  free(m->val);
  memset(m, 0, sizeof *m);
}

void czk_circom_r1cs_free(czk_circom_r1cs *r) {
  if (!r) return;
  csr_free(&r->a);
  csr_free(&r->b);
  csr_free(&r->c);
  free(r);
}

/* Pass 1: walks section 2, validating its structure and wire ids, and counts terms per matrix. */
static czk_status r1cs_scan(const czk__binsec *s, const czk_circom_r1cs *r, uint64_t nnz[3], uint32_t *max_terms) {
  czk__cursor c;
  czk__cursor_init(&c, s);
  *max_terms = 0;
  for (uint32_t k = 0; k < r->n_constraints; k++)
    for (int m = 0; m < 3; m++) {
      uint32_t n;
      CZK_TRY(czk__cursor_u32(&c, &n));
      if ((uint64_t)n * R1CS_TERM_BYTES > c.left) return CZK_ERR_TRUNCATED;
      for (uint32_t t = 0; t < n; t++) {
        uint32_t wire;
        CZK_TRY(czk__cursor_u32(&c, &wire));
        if (wire >= r->n_wires) return CZK_ERR_FORMAT;
        c.p += 32;
        c.left -= 32;
      }
      nnz[m] += n;
      if (n > *max_terms) *max_terms = n;
    }
  return c.left == 0 ? CZK_OK : CZK_ERR_SIZE_MISMATCH;
}

/* Pass 2: sorted, merged, zero-free CSR rows with Montgomery values. */
static czk_status r1cs_fill(const czk__binsec *s, czk_circom_r1cs *r, czk_lc_term *tmp) {
  czk__cursor c;
  czk__cursor_init(&c, s);
  czk_csr *mats[3] = {&r->a, &r->b, &r->c};
  for (int m = 0; m < 3; m++) mats[m]->row_ptr[0] = 0;
  for (uint32_t k = 0; k < r->n_constraints; k++)
    for (int m = 0; m < 3; m++) {
      czk_csr *M = mats[m];
      uint32_t n;
      CZK_TRY(czk__cursor_u32(&c, &n));
      for (uint32_t t = 0; t < n; t++) {
        const uint8_t *coef;
        CZK_TRY(czk__cursor_u32(&c, &tmp[t].var));
        CZK_TRY(czk__cursor_take(&c, 32, &coef));
        CZK_TRY(czk_fr_from_bytes_le(&tmp[t].coeff, coef));
      }
      if (n > 1) qsort(tmp, n, sizeof *tmp, cmp_term);
      uint64_t at = M->nnz;
      for (uint32_t t = 0; t < n;) {
        czk_fr sum = tmp[t].coeff;
        uint32_t wire = tmp[t].var, u = t + 1;
        for (; u < n && tmp[u].var == wire; u++) czk_fr_add(&sum, &sum, &tmp[u].coeff);
        if (!czk_fr_is_zero(&sum)) {
          M->col[at] = wire;
          M->val[at] = sum;
          at++;
        }
        t = u;
      }
      M->nnz = at;
      M->row_ptr[k + 1] = at;
    }
  return CZK_OK;
}

czk_status czk_circom_r1cs_parse(czk_circom_r1cs **out, const uint8_t *buf, size_t len) {
  *out = NULL;
  czk__binfile bf;
  /* ids 1-3 known; 4/5 (custom gates) are recognised so that they can be refused as unsupported. */
  CZK_TRY(czk__binfile_parse(&bf, buf, len, "r1cs", 1, 0x3eu));
  if (bf.sec[4].p || bf.sec[5].p) return CZK_ERR_UNSUPPORTED;
  if (!bf.sec[1].p || !bf.sec[2].p) return CZK_ERR_FORMAT;

  czk_circom_r1cs *r = calloc(1, sizeof *r);
  if (!r) return CZK_ERR_NOMEM;
  czk_status st;
  czk__cursor c;
  czk__cursor_init(&c, &bf.sec[1]);
  if ((st = czk__circom_read_prime_r(&c)) != CZK_OK) goto fail;
  if ((st = czk__cursor_u32(&c, &r->n_wires)) != CZK_OK || (st = czk__cursor_u32(&c, &r->n_pub_out)) != CZK_OK ||
      (st = czk__cursor_u32(&c, &r->n_pub_in)) != CZK_OK || (st = czk__cursor_u32(&c, &r->n_prv_in)) != CZK_OK ||
      (st = czk__cursor_u64(&c, &r->n_labels)) != CZK_OK || (st = czk__cursor_u32(&c, &r->n_constraints)) != CZK_OK)
    goto fail;
  st = CZK_ERR_SIZE_MISMATCH;
  if (c.left != 0) goto fail;
  st = CZK_ERR_FORMAT;
  if (r->n_wires == 0 || 1ull + r->n_pub_out + r->n_pub_in + r->n_prv_in > r->n_wires) goto fail;
  if (bf.sec[3].p && bf.sec[3].size != (uint64_t)r->n_wires * 8) {
    st = CZK_ERR_SIZE_MISMATCH;
    goto fail;
  }
  /* Every constraint takes at least 12 bytes (three empty LCs). */
  if ((uint64_t)r->n_constraints * 12 > bf.sec[2].size) {
    st = CZK_ERR_TRUNCATED;
    goto fail;
  }

  uint64_t nnz[3] = {0, 0, 0};
  uint32_t max_terms;
  if ((st = r1cs_scan(&bf.sec[2], r, nnz, &max_terms)) != CZK_OK) goto fail;
  czk_csr *mats[3] = {&r->a, &r->b, &r->c};
  st = CZK_ERR_NOMEM;
  for (int m = 0; m < 3; m++) {
    mats[m]->row_ptr = malloc(((size_t)r->n_constraints + 1) * sizeof(uint64_t));
    mats[m]->col = malloc((nnz[m] ? nnz[m] : 1) * sizeof(uint32_t));
    mats[m]->val = malloc((nnz[m] ? nnz[m] : 1) * sizeof(czk_fr));
    if (!mats[m]->row_ptr || !mats[m]->col || !mats[m]->val) goto fail;
  }
  czk_lc_term *tmp = malloc((max_terms ? max_terms : 1) * sizeof *tmp);
  if (!tmp) goto fail;
  st = r1cs_fill(&bf.sec[2], r, tmp);
  free(tmp);
  if (st != CZK_OK) goto fail;
  *out = r;
  return CZK_OK;
fail:
  czk_circom_r1cs_free(r);
  return st;
}

czk_status czk_circom_r1cs_read(czk_circom_r1cs **out, const char *path) {
  czk__file_map m;
  *out = NULL;
  CZK_TRY(czk__file_map_open(&m, path));
  czk_status st = czk_circom_r1cs_parse(out, m.data, m.len);
  if (czk__file_map_check(&m) != CZK_OK) { /* truncated or rewritten while being read */
    if (st == CZK_OK) czk_circom_r1cs_free(*out);
    *out = NULL;
    st = CZK_ERR_FILE_CHANGED;
  }
  czk__file_map_close(&m);
  return st;
}

/* ------------------------------------------------------------------------------------------------ .wtns */
void czk_circom_wtns_free(czk_circom_wtns *w) {
  if (!w) return;
  free(w->w);
  w->w = NULL;
  w->n = 0;
}

czk_status czk_circom_wtns_parse(czk_circom_wtns *out, const uint8_t *buf, size_t len) {
  out->n = 0;
  out->w = NULL;
  czk__binfile bf;
  CZK_TRY(czk__binfile_parse(&bf, buf, len, "wtns", 2, 0x6u));
  if (bf.version != 2) return CZK_ERR_UNSUPPORTED;
  if (!bf.sec[1].p || !bf.sec[2].p) return CZK_ERR_FORMAT;
  czk__cursor c;
  czk__cursor_init(&c, &bf.sec[1]);
  uint32_t n;
  CZK_TRY(czk__circom_read_prime_r(&c));
  CZK_TRY(czk__cursor_u32(&c, &n));
  if (c.left != 0) return CZK_ERR_SIZE_MISMATCH;
  /* circom_runtime writes the u64 size correctly only below 4 GiB: check it against the count. */
  if (bf.sec[2].size != (uint64_t)n * 32) return CZK_ERR_SIZE_MISMATCH;
  if (n == 0) return CZK_ERR_FORMAT;
  czk_fr *w = malloc((size_t)n * sizeof *w);
  if (!w) return CZK_ERR_NOMEM;
  for (uint32_t i = 0; i < n; i++) {
    czk_status st = czk_fr_from_bytes_le(&w[i], bf.sec[2].p + (size_t)i * 32);
    if (st != CZK_OK) {
      free(w);
      return st;
    }
  }
  if (!czk_fr_is_one(&w[0])) {
    free(w);
    return CZK_ERR_FORMAT;
  }
  out->n = n;
  out->w = w;
  return CZK_OK;
}

czk_status czk_circom_wtns_read(czk_circom_wtns *out, const char *path) {
  czk__file_map m;
  out->n = 0;
  out->w = NULL;
  CZK_TRY(czk__file_map_open(&m, path));
  czk_status st = czk_circom_wtns_parse(out, m.data, m.len);
  if (czk__file_map_check(&m) != CZK_OK) { /* truncated or rewritten while being read */
    if (st == CZK_OK) czk_circom_wtns_free(out);
    st = CZK_ERR_FILE_CHANGED;
  }
  czk__file_map_close(&m);
  return st;
}

/* ------------------------------------------------------------------------------------------------ checker */
typedef struct check_ctx {
  const czk_circom_r1cs *r;
  const czk_fr *w;
  size_t first_bad; /* minimum failing row; updated under the lock */
  pthread_mutex_t lock;
} check_ctx;

static void row_eval(czk_fr *out, const czk_csr *m, size_t row, const czk_fr *w) {
  czk_fr acc, t;
  czk_fr_set_zero(&acc);
  for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
    czk_fr_mul(&t, &m->val[k], &w[m->col[k]]);
    czk_fr_add(&acc, &acc, &t);
  }
  *out = acc;
}

static void check_chunk(void *vctx, size_t begin, size_t end) {
  check_ctx *x = vctx;
  for (size_t k = begin; k < end; k++) {
    czk_fr a, b, c;
    row_eval(&a, &x->r->a, k, x->w);
    row_eval(&b, &x->r->b, k, x->w);
    row_eval(&c, &x->r->c, k, x->w);
    czk_fr_mul(&a, &a, &b);
    if (!czk_fr_eq(&a, &c)) {
      pthread_mutex_lock(&x->lock);
      if (k < x->first_bad) x->first_bad = k;
      pthread_mutex_unlock(&x->lock);
      return;
    }
  }
}

czk_status czk_circom_check(const czk_circom_r1cs *r, const czk_circom_wtns *w, size_t *row, czk_pool *pool) {
  if (row) *row = SIZE_MAX;
  if (w->n != r->n_wires) return CZK_ERR_SIZE_MISMATCH;
  check_ctx x = {.r = r, .w = w->w, .first_bad = SIZE_MAX};
  pthread_mutex_init(&x.lock, NULL);
  czk_pool_parallel_for(pool, r->n_constraints, 256, check_chunk, &x);
  pthread_mutex_destroy(&x.lock);
  if (row) *row = x.first_bad;
  return x.first_bad == SIZE_MAX ? CZK_OK : CZK_ERR_UNSATISFIED;
}
