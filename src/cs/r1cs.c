/* r1cs.c: the compiled circuit shape (czk_r1cs): finishing a recorder into CSR + densities, the file form
 * (memory-mapped on load, fully validated), the per-proof sparse mat-vec a = A·w, b = B·w, c = C·w and row checks.
 *
 * File layout (host little-endian; every section starts at a multiple of 64 bytes):
 *   header (128 B): "CZKR1CS\0", u32 0x01020304 (byte-order mark), u32 version = 2, u32 n_inputs, n_aux,
 *                   n_constraints, n_user_constraints, u64 nnz_a, nnz_b, nnz_c, u64 file_len, u64 body_hash (of
 *                   everything after the header, see body_hash below), zero padding
 * The file is a cache of a shape czk can always re-record: a file of another version, or one whose body hash does
 * not match, is refused (and the kinds adapter re-records and rewrites it).
 *   for M in A, B, C: u64 row_ptr[n_constraints + 1] | u32 col[nnz_M] | czk_fr val[nnz_M] (Montgomery limbs)
 * Densities are not stored: they are recomputed from the matrices at load (O(nnz), same cost as validating them).
 * Invariants of a shape (checked at load): row_ptr[0] = 0, non-decreasing, row_ptr[n] = nnz; columns < n_inputs +
 * n_aux and strictly increasing per row; values canonical and non-zero; n_constraints = n_user_constraints + n_inputs
 * and the last n_inputs rows are exactly `input_i * 0 = 0`.
 * Mat-vec cost: one Fr multiplication + addition per non-zero (skipped multiplication for coefficient 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/mapfile.h"
#include "cs/cs_internal.h"

#define R1CS_MAGIC "CZKR1CS"
#define R1CS_VERSION 2u /* 2: the header carries body_hash (a cache of version 1 is refused and so re-recorded) */
#define R1CS_HDR 128u
#define ALIGN64(x) (((x) + 63u) & ~(uint64_t)63u)

static uint32_t log2_ceil(uint64_t n) {
  uint32_t k = 0;
  while (((uint64_t)1 << k) < n) k++;
  return k;
}

static czk_status compute_densities(czk_r1cs *r) {
  size_t wa = ((size_t)r->n_aux + 63) / 64, wi = ((size_t)r->n_inputs + 63) / 64;
  uint64_t *bits = calloc(2 * wa + wi + 1, sizeof(uint64_t));
  if (!bits) return CZK_ERR_NOMEM;
  r->a_aux_density = bits;
  r->b_aux_density = bits + wa;
  r->b_input_density = bits + 2 * wa;
  uint32_t ni = r->n_inputs;
  for (uint64_t k = 0; k < r->a.nnz; k++) {
    uint32_t c = r->a.col[k];
    if (c >= ni) r->a_aux_density[(c - ni) >> 6] |= (uint64_t)1 << ((c - ni) & 63);
  }
  for (uint64_t k = 0; k < r->b.nnz; k++) {
    uint32_t c = r->b.col[k];
    if (c >= ni)
      r->b_aux_density[(c - ni) >> 6] |= (uint64_t)1 << ((c - ni) & 63);
    else
      r->b_input_density[c >> 6] |= (uint64_t)1 << (c & 63);
  }
  r->a_aux_count = r->b_aux_count = r->b_input_count = 0;
  for (size_t i = 0; i < wa; i++) {
    r->a_aux_count += (uint32_t)__builtin_popcountll(r->a_aux_density[i]);
    r->b_aux_count += (uint32_t)__builtin_popcountll(r->b_aux_density[i]);
  }
  for (size_t i = 0; i < wi; i++) r->b_input_count += (uint32_t)__builtin_popcountll(r->b_input_density[i]);
  return CZK_OK;
}

void czk_r1cs_free(czk_r1cs *r) {
  if (!r) return;
  if (r->mapped) {
    czk__file_map_close(r->file);
    free(r->file);
  } else {
    czk_csr *m[3] = {&r->a, &r->b, &r->c};
    for (int k = 0; k < 3; k++) {
      free(m[k]->row_ptr);
      free(m[k]->col);
      free(m[k]->val);
    }
  }
  free(r->a_aux_density); /* one block holding the three bitmaps */
  free(r);
}

czk_status czk_r1cs_outline_new(czk_r1cs **out, uint32_t n_inputs, uint32_t n_aux, uint32_t n_user_constraints) {
  *out = NULL;
  if (n_inputs < 1 || (uint64_t)n_user_constraints + n_inputs > UINT32_MAX) return CZK_ERR_LIMIT;
  czk_r1cs *r = calloc(1, sizeof *r);
  if (!r) return CZK_ERR_NOMEM;
  r->outline = true;
  r->n_inputs = n_inputs;
  r->n_aux = n_aux;
  r->n_user_constraints = n_user_constraints;
  r->n_constraints = n_user_constraints + n_inputs;
  r->log_domain = log2_ceil(r->n_constraints);
  size_t wa = ((size_t)n_aux + 63) / 64, wi = ((size_t)n_inputs + 63) / 64;
  uint64_t *bits = calloc(2 * wa + wi + 1, sizeof(uint64_t));
  if (!bits) {
    free(r);
    return CZK_ERR_NOMEM;
  }
  r->a_aux_density = bits;
  r->b_aux_density = bits + wa;
  r->b_input_density = bits + 2 * wa;
  *out = r;
  return CZK_OK;
}

void czk_r1cs_recount(czk_r1cs *r) {
  size_t wa = ((size_t)r->n_aux + 63) / 64, wi = ((size_t)r->n_inputs + 63) / 64;
  r->a_aux_count = r->b_aux_count = r->b_input_count = 0;
  for (size_t i = 0; i < wa; i++) {
    r->a_aux_count += (uint32_t)__builtin_popcountll(r->a_aux_density[i]);
    r->b_aux_count += (uint32_t)__builtin_popcountll(r->b_aux_density[i]);
  }
  for (size_t i = 0; i < wi; i++) r->b_input_count += (uint32_t)__builtin_popcountll(r->b_input_density[i]);
}

/* ------------------------------------------------------------------------------------------------ finish */
czk_status czk_cs_shape_finish(czk_cs *cs, czk_r1cs **out) {
  *out = NULL;
  czk_status st = cs->err;
  if (st == CZK_OK && cs->mode != CZK_CS_SHAPE) st = CZK_ERR_STATE;
  if (st != CZK_OK) {
    czk_cs_free(cs);
    return st;
  }
  /* The trailing input constraints: A = input_i, B = C = empty. */
  czk_lc lc;
  czk_lc_init(&lc);
  czk_lc empty;
  czk_lc_init(&empty);
  uint32_t n_user = (uint32_t)cs->n_constraints;
  for (uint32_t i = 0; i < cs->n_inputs && st == CZK_OK; i++) {
    czk_lc_clear(&lc);
    czk_lc_add_var(&lc, i | CZK_VAR_INPUT_BIT);
    st = czk_cs_enforce(cs, NULL, &lc, &empty, &empty);
  }
  czk_lc_free(&lc);
  czk_r1cs *r = NULL;
  if (st == CZK_OK) {
    r = calloc(1, sizeof *r);
    if (!r) st = CZK_ERR_NOMEM;
  }
  if (st != CZK_OK) {
    czk_cs_free(cs);
    return st;
  }
  r->n_inputs = cs->n_inputs;
  r->n_aux = cs->n_aux;
  r->n_constraints = (uint32_t)cs->n_constraints;
  r->n_user_constraints = n_user;
  r->log_domain = log2_ceil(r->n_constraints);
  czk_csr *m[3] = {&r->a, &r->b, &r->c};
  for (int k = 0; k < 3; k++) {
    czk__cs_rec *rec = &cs->m[k];
    for (size_t j = 0; j < rec->nnz; j++) rec->col[j] = czk__cs_key_col(rec->col[j], r->n_inputs);
    m[k]->row_ptr = rec->row_ptr;
    m[k]->nnz = rec->nnz;
    /* Shrink to fit; an empty matrix still gets valid (non-NULL) arrays. */
    m[k]->col = realloc(rec->col, (rec->nnz ? rec->nnz : 1) * sizeof(uint32_t));
    m[k]->val = realloc(rec->val, (rec->nnz ? rec->nnz : 1) * sizeof(czk_fr));
    if (!m[k]->col) m[k]->col = rec->col;
    if (!m[k]->val) m[k]->val = rec->val;
    rec->row_ptr = NULL;
    rec->col = NULL;
    rec->val = NULL;
    if (!m[k]->col || !m[k]->val) st = CZK_ERR_NOMEM;
  }
  czk_cs_free(cs);
  if (st == CZK_OK) st = compute_densities(r);
  if (st != CZK_OK) {
    czk_r1cs_free(r);
    return st;
  }
  *out = r;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ file form */
typedef struct r1cs_hdr {
  char magic[8];
  uint32_t bom, version;
  uint32_t n_inputs, n_aux, n_constraints, n_user_constraints;
  uint64_t nnz[3];
  uint64_t file_len;
  uint64_t body_hash; /* body_hash() of bytes [R1CS_HDR, file_len): a corrupted cache is refused, not used */
  uint8_t pad[R1CS_HDR - 8 - 4 * 6 - 8 * 5];
} r1cs_hdr;

/* The body hash: 8-byte little-endian words, word i into lane i mod 4 by x = rotl(x ^ w, 31) * K. Each step is a
 * bijection of the lane for a fixed word, so a change of any one word always changes the result (a random change of
 * several words collides with probability about 2^-64); four lanes keep the multiplies independent (several GB/s).
 * Not a defence against someone forging a file: the cache is ours, in the keys directory. */
typedef struct body_hash {
  uint64_t l[4];
  uint64_t n; /* words so far */
} body_hash;

static void bh_init(body_hash *h) {
  h->l[0] = 0x243f6a8885a308d3u, h->l[1] = 0x13198a2e03707344u, h->l[2] = 0xa4093822299f31d0u;
  h->l[3] = 0x082efa98ec4e6c89u, h->n = 0;
}

static inline void bh_word(body_hash *h, uint64_t w) {
  uint64_t *x = &h->l[h->n++ & 3];
  uint64_t v = *x ^ w;
  *x = (v << 31 | v >> 33) * 0x9e3779b97f4a7c15u;
}

/* n bytes at p, then zero bytes up to the next multiple of 8 (the file's padding continues with zeros). */
static void bh_bytes(body_hash *h, const void *p, size_t n) {
  const uint8_t *b = p;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    bh_word(h, w);
  }
  if (i < n) {
    uint64_t w = 0;
    memcpy(&w, b + i, n - i);
    bh_word(h, w);
  }
}

static uint64_t bh_final(const body_hash *h) {
  uint64_t r = h->n * 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 4; i++) {
    r ^= h->l[i];
    r = (r << 27 | r >> 37) * 0xbf58476d1ce4e5b9u;
  }
  return r ^ (r >> 31);
}
_Static_assert(sizeof(r1cs_hdr) == R1CS_HDR, "r1cs header size");

/* Section offsets from the counts; false on overflow. off[k][0..2] = row_ptr, col, val of matrix k. */
static bool layout(const r1cs_hdr *h, uint64_t off[3][3], uint64_t *total) {
  uint64_t p = R1CS_HDR, rows = (uint64_t)h->n_constraints + 1;
  for (int k = 0; k < 3; k++) {
    if (h->nnz[k] > ((uint64_t)1 << 40)) return false;
    off[k][0] = p;
    p = ALIGN64(p + rows * 8);
    off[k][1] = p;
    p = ALIGN64(p + h->nnz[k] * 4);
    off[k][2] = p;
    p = ALIGN64(p + h->nnz[k] * sizeof(czk_fr));
  }
  *total = p;
  return true;
}

static czk_status write_all(FILE *f, const void *p, size_t n) {
  return fwrite(p, 1, n, f) == n ? CZK_OK : CZK_ERR_IO;
}

static czk_status write_pad(FILE *f, uint64_t pos) {
  static const uint8_t zeros[64];
  size_t n = (size_t)(ALIGN64(pos) - pos);
  return n ? write_all(f, zeros, n) : CZK_OK;
}

czk_status czk_r1cs_save(const czk_r1cs *r, const char *path) {
  if (r->outline) return CZK_ERR_STATE;
  r1cs_hdr h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, R1CS_MAGIC, 8);
  h.bom = 0x01020304u;
  h.version = R1CS_VERSION;
  h.n_inputs = r->n_inputs;
  h.n_aux = r->n_aux;
  h.n_constraints = r->n_constraints;
  h.n_user_constraints = r->n_user_constraints;
  const czk_csr *m[3] = {&r->a, &r->b, &r->c};
  for (int k = 0; k < 3; k++) h.nnz[k] = m[k]->nnz;
  uint64_t off[3][3];
  if (!layout(&h, off, &h.file_len)) return CZK_ERR_LIMIT;
  czk__afile af; /* temp + fsync + rename: a reader that maps the old file keeps it whole */
  CZK_TRY(czk__afile_open(&af, path, "wb"));
  FILE *f = af.f;
  czk_status st = write_all(f, &h, sizeof h); /* body_hash filled in below */
  uint64_t pos = R1CS_HDR;
  body_hash bh;
  bh_init(&bh);
  for (int k = 0; k < 3 && st == CZK_OK; k++) {
    size_t sz[3] = {((size_t)r->n_constraints + 1) * 8, (size_t)m[k]->nnz * 4, (size_t)m[k]->nnz * sizeof(czk_fr)};
    const void *src[3] = {m[k]->row_ptr, m[k]->col, m[k]->val};
    for (int s = 0; s < 3 && st == CZK_OK; s++) {
      st = write_all(f, src[s], sz[s]);
      bh_bytes(&bh, src[s], sz[s]); /* every section starts 64-aligned; its zero padding follows */
      for (uint64_t z = (pos + sz[s] + 7) & ~(uint64_t)7; z < ALIGN64(pos + sz[s]); z += 8) bh_word(&bh, 0);
      pos += sz[s];
      if (st == CZK_OK) st = write_pad(f, pos);
      pos = ALIGN64(pos);
    }
  }
  h.body_hash = bh_final(&bh);
  if (st == CZK_OK && fseek(f, 0, SEEK_SET) != 0) st = CZK_ERR_IO;
  if (st == CZK_OK) st = write_all(f, &h, sizeof h);
  if (st == CZK_OK) return czk__afile_commit(&af);
  czk__afile_abort(&af);
  return st;
}

czk_status czk_r1cs_check_file(const czk_r1cs *r) {
  return r && r->mapped && r->file ? czk__file_map_check(r->file) : CZK_OK;
}

static czk_status validate_csr(const czk_csr *m, uint32_t rows, uint32_t n_vars) {
  if (m->row_ptr[0] != 0 || m->row_ptr[rows] != m->nnz) return CZK_ERR_FORMAT;
  for (uint32_t j = 0; j < rows; j++) {
    uint64_t b = m->row_ptr[j], e = m->row_ptr[j + 1];
    if (e < b || e > m->nnz) return CZK_ERR_FORMAT;
    for (uint64_t k = b; k < e; k++) {
      if (m->col[k] >= n_vars || (k > b && m->col[k] <= m->col[k - 1])) return CZK_ERR_FORMAT;
      if (!czk__fr_is_canonical(&m->val[k])) return CZK_ERR_NOT_CANONICAL;
      if (czk_fr_is_zero(&m->val[k])) return CZK_ERR_FORMAT;
    }
  }
  return CZK_OK;
}

czk_status czk_r1cs_load(czk_r1cs **out, const char *path) {
  *out = NULL;
  czk__file_map fm;
  CZK_TRY(czk__file_map_open(&fm, path));
  uint64_t len = fm.len;
  if (len < R1CS_HDR) {
    czk__file_map_close(&fm);
    return CZK_ERR_TRUNCATED;
  }
  czk_status st = CZK_OK;
  r1cs_hdr h;
  memcpy(&h, fm.data, sizeof h);
  uint64_t off[3][3], total = 0;
  if (memcmp(h.magic, R1CS_MAGIC, 8) != 0 || h.bom != 0x01020304u)
    st = CZK_ERR_FORMAT;
  else if (h.version != R1CS_VERSION)
    st = CZK_ERR_UNSUPPORTED;
  else if (h.n_inputs == 0 || (uint64_t)h.n_inputs + h.n_aux > CZK_VAR_INDEX_MAX ||
           (uint64_t)h.n_user_constraints + h.n_inputs != h.n_constraints || !layout(&h, off, &total))
    st = CZK_ERR_FORMAT;
  else if (len < total || h.file_len < total)
    st = CZK_ERR_TRUNCATED;
  else if (len != total || h.file_len != total)
    st = CZK_ERR_FORMAT;
  czk_r1cs *r = NULL;
  if (st == CZK_OK) {
    r = calloc(1, sizeof *r);
    if (!r) st = CZK_ERR_NOMEM;
  }
  if (st == CZK_OK) {
    r->file = malloc(sizeof fm);
    if (!r->file) {
      free(r);
      st = CZK_ERR_NOMEM;
    }
  }
  if (st != CZK_OK) {
    czk__file_map_close(&fm);
    return st;
  }
  *(czk__file_map *)r->file = fm;
  r->mem = (void *)fm.data; /* read-only mapping; r1cs_free unmaps it */
  r->mem_len = fm.len;
  r->mapped = true;
  r->n_inputs = h.n_inputs;
  r->n_aux = h.n_aux;
  r->n_constraints = h.n_constraints;
  r->n_user_constraints = h.n_user_constraints;
  r->log_domain = log2_ceil(h.n_constraints);
  czk_csr *m[3] = {&r->a, &r->b, &r->c};
  uint8_t *base = r->mem;
  for (int k = 0; k < 3 && st == CZK_OK; k++) {
    m[k]->row_ptr = (uint64_t *)(base + off[k][0]);
    m[k]->col = (uint32_t *)(base + off[k][1]);
    m[k]->val = (czk_fr *)(base + off[k][2]);
    m[k]->nnz = h.nnz[k];
    st = validate_csr(m[k], r->n_constraints, r->n_inputs + r->n_aux);
  }
  /* Trailing input constraints: A row = {i: 1}, B and C rows empty. */
  for (uint32_t i = 0; i < r->n_inputs && st == CZK_OK; i++) {
    uint32_t j = r->n_user_constraints + i;
    uint64_t b = r->a.row_ptr[j];
    if (r->a.row_ptr[j + 1] != b + 1 || r->a.col[b] != i || !czk_fr_is_one(&r->a.val[b]) ||
        r->b.row_ptr[j + 1] != r->b.row_ptr[j] || r->c.row_ptr[j + 1] != r->c.row_ptr[j])
      st = CZK_ERR_FORMAT;
  }
  if (st == CZK_OK) st = compute_densities(r);
  if (st == CZK_OK) { /* a corrupted cache that still validates (a changed coefficient) is refused here */
    body_hash bh;
    bh_init(&bh);
    bh_bytes(&bh, (const uint8_t *)r->mem + R1CS_HDR, (size_t)(total - R1CS_HDR)); /* a multiple of 64 bytes */
    if (bh_final(&bh) != h.body_hash) st = CZK_ERR_FORMAT;
  }
  if (czk__file_map_check(r->file) != CZK_OK) st = CZK_ERR_FILE_CHANGED; /* changed while being validated */
  if (st != CZK_OK) {
    czk_r1cs_free(r);
    return st;
  }
  *out = r;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ evaluation */
typedef struct eval_ctx {
  const czk_r1cs *r;
  const czk_fr *w;
  czk_fr *out[3];
} eval_ctx;

static void row_dot(czk_fr *res, const czk_csr *m, size_t j, const czk_fr *w) {
  czk_fr acc, t;
  czk_fr_set_zero(&acc);
  for (uint64_t k = m->row_ptr[j]; k < m->row_ptr[j + 1]; k++) {
    const czk_fr *x = &w[m->col[k]];
    if (czk_fr_is_one(&m->val[k])) {
      czk_fr_add(&acc, &acc, x);
    } else {
      czk_fr_mul(&t, x, &m->val[k]);
      czk_fr_add(&acc, &acc, &t);
    }
  }
  *res = acc;
}

static void eval_chunk(void *vctx, size_t begin, size_t end) {
  eval_ctx *ctx = vctx;
  const czk_csr *m[3] = {&ctx->r->a, &ctx->r->b, &ctx->r->c};
  for (size_t j = begin; j < end; j++)
    for (int k = 0; k < 3; k++) row_dot(&ctx->out[k][j], m[k], j, ctx->w);
}

czk_status czk_r1cs_eval(const czk_r1cs *r, const czk_fr *w, czk_fr *a, czk_fr *b, czk_fr *c, czk_pool *pool) {
  if (!r || !w || !a || !b || !c) return CZK_ERR_INVALID_ARG;
  if (r->outline) return CZK_ERR_STATE;
  eval_ctx ctx = {r, w, {a, b, c}};
  czk_pool_parallel_for(pool, r->n_constraints, 1024, eval_chunk, &ctx);
  return CZK_OK;
}

size_t czk_r1cs_first_unsatisfied(const czk_fr *a, const czk_fr *b, const czk_fr *c, size_t n) {
  czk_fr t;
  for (size_t j = 0; j < n; j++) {
    czk_fr_mul(&t, &a[j], &b[j]);
    if (!czk_fr_eq(&t, &c[j])) return j;
  }
  return SIZE_MAX;
}

czk_status czk_r1cs_check(const czk_r1cs *r, const czk_witness *w, size_t *row, czk_pool *pool) {
  if (r->outline) return CZK_ERR_STATE;
  if (w->n_inputs != r->n_inputs || w->n_aux != r->n_aux) return CZK_ERR_SIZE_MISMATCH;
  size_t n = r->n_constraints ? r->n_constraints : 1;
  czk_fr *buf = malloc(3 * n * sizeof *buf);
  if (!buf) return CZK_ERR_NOMEM;
  czk_status st = czk_r1cs_eval(r, w->w, buf, buf + n, buf + 2 * n, pool);
  if (st == CZK_OK) {
    size_t j = czk_r1cs_first_unsatisfied(buf, buf + n, buf + 2 * n, r->n_constraints);
    if (j != SIZE_MAX) {
      if (row) *row = j;
      st = CZK_ERR_UNSATISFIED;
    }
  }
  free(buf);
  return st;
}

/* ------------------------------------------------------------------------------------------------ shared checksum */
void czk__bhash_init(czk__bhash *h) {
  body_hash b;
  bh_init(&b);
  memcpy(h->l, b.l, sizeof h->l);
  h->n = b.n;
}
void czk__bhash_bytes(czk__bhash *h, const void *p, size_t n) {
  body_hash b;
  memcpy(b.l, h->l, sizeof b.l);
  b.n = h->n;
  bh_bytes(&b, p, n);
  memcpy(h->l, b.l, sizeof h->l);
  h->n = b.n;
}
uint64_t czk__bhash_final(const czk__bhash *h) {
  body_hash b;
  memcpy(b.l, h->l, sizeof b.l);
  b.n = h->n;
  return bh_final(&b);
}
