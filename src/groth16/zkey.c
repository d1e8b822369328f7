/* zkey.c: the snarkjs Groth16 proving key (.zkey), memory-mapped and validated (docs/snarkjs-formats.md §4).
 *
 * Layout (binfile "zkey", version 1; sections located by id, any order):
 *   1 header      u32 protocol (1 = Groth16)
 *   2 groth16     u32 n8q=48; q; u32 n8r=32; r; u32 nVars, nPublic, domainSize; alpha1 beta1 (G1) beta2 gamma2 (G2)
 *                 delta1 (G1) delta2 (G2)                                                       = 964 bytes
 *   3 IC          (nPublic+1) G1          4 coefs   u32 nCoefs; nCoefs x {u32 m, u32 c, u32 s, u8 v[32]}
 *   5 A, 6 B1     nVars G1                7 B2      nVars G2
 *   8 C           (nVars-nPublic-1) G1    9 H       domainSize G1        10 MPC params (not read)
 * Points are affine with each coordinate in Montgomery form, 48-byte little-endian ("LEM") -- the byte layout of
 * czk_fp on a little-endian host, so point sections are used in place when 8-byte aligned in the mapping (else copied
 * once into aligned memory); (0,0) is the point at infinity, as in curve.h. Section-4 values are coef*R^2 mod r: the
 * Montgomery representation of coef*R, so one Montgomery multiply by the integer 1 gives Montgomery(coef).
 *
 * Invariants after open: every section size matches the header counts; the header points and IC are canonical, on
 * the curve and in the subgroup; every section-4 entry has m in {0,1}, c < domainSize, s < nVars, v < r.
 * After prepare: every point of sections 5-9 is canonical and on the curve (or infinity), A and B are compiled into
 * row-major CSR over the domain (rows = constraints, columns = signals, Montgomery values), and the NTT domain with
 * snarkjs's roots exists. Cost of prepare: one on-curve check per point (5 + 2 Fp muls per G1, ~3x per G2) and
 * one Fr multiply per section-4 entry. */
#include <pthread.h>
#include <stdlib.h>

#include "cs/binfile.h"
#include "czk/ntt.h"
#include "groth16/zkey_internal.h"

#define G1_BYTES 96u
#define G2_BYTES 192u
#define COEF_BYTES 44u

/* ------------------------------------------------------------------------------------------------ point decoding */
static bool fp_limbs_canonical(const uint64_t l[6]) {
  for (int i = 5; i >= 0; i--) {
    if (l[i] < czk_fp_modulus[i]) return true;
    if (l[i] > czk_fp_modulus[i]) return false;
  }
  return false; /* equal to q */
}

static void load_fp(czk_fp *r, const uint8_t *b) {
  for (int i = 0; i < 6; i++) {
    uint64_t v = 0;
    for (int j = 7; j >= 0; j--) v = v << 8 | b[8 * i + j];
    r->l[i] = v;
  }
}

static czk_status g1_check(const czk_g1_affine *p, bool subgroup) {
  if (!fp_limbs_canonical(p->x.l) || !fp_limbs_canonical(p->y.l)) return CZK_ERR_NOT_CANONICAL;
  if (!czk_g1_affine_is_on_curve(p)) return CZK_ERR_NOT_ON_CURVE;
  if (subgroup && !czk_g1_affine_in_subgroup(p)) return CZK_ERR_NOT_IN_SUBGROUP;
  return CZK_OK;
}

static czk_status g2_check(const czk_g2_affine *p, bool subgroup) {
  if (!fp_limbs_canonical(p->x.c0.l) || !fp_limbs_canonical(p->x.c1.l) || !fp_limbs_canonical(p->y.c0.l) ||
      !fp_limbs_canonical(p->y.c1.l))
    return CZK_ERR_NOT_CANONICAL;
  if (!czk_g2_affine_is_on_curve(p)) return CZK_ERR_NOT_ON_CURVE;
  if (subgroup && !czk_g2_affine_in_subgroup(p)) return CZK_ERR_NOT_IN_SUBGROUP;
  return CZK_OK;
}

static czk_status read_g1(czk__cursor *c, czk_g1_affine *p) {
  const uint8_t *b;
  CZK_TRY(czk__cursor_take(c, G1_BYTES, &b));
  load_fp(&p->x, b);
  load_fp(&p->y, b + 48);
  return g1_check(p, true);
}

static czk_status read_g2(czk__cursor *c, czk_g2_affine *p) {
  const uint8_t *b;
  CZK_TRY(czk__cursor_take(c, G2_BYTES, &b));
  load_fp(&p->x.c0, b);
  load_fp(&p->x.c1, b + 48);
  load_fp(&p->y.c0, b + 96);
  load_fp(&p->y.c1, b + 144);
  return g2_check(p, true);
}

/* ------------------------------------------------------------------------------------------------ open */
void czk_zkey_close(czk_zkey *z) {
  if (!z) return;
  for (int i = 0; i < 5; i++) free(z->owned[i]);
  free(z->a.row_ptr);
  free(z->a.col);
  free(z->a.val);
  free(z->b.row_ptr);
  free(z->b.col);
  free(z->b.val);
  czk_ntt_domain_free(z->domain);
  free(z->ic);
  if (z->heap_copy)
    free((void *)z->map.data);
  else
    czk__file_map_close(&z->map);
  pthread_mutex_destroy(&z->lock);
  free(z);
}

static czk_status zkey_parse_mapped(czk_zkey *z) {
  czk__binfile bf;
  CZK_TRY(czk__binfile_parse(&bf, z->map.data, z->map.len, "zkey", 1, 0x7feu)); /* ids 1..10 */
  for (int id = 1; id <= 9; id++)
    if (!bf.sec[id].p) return CZK_ERR_FORMAT;

  czk__cursor c;
  uint32_t protocol;
  czk__cursor_init(&c, &bf.sec[1]);
  CZK_TRY(czk__cursor_u32(&c, &protocol));
  if (c.left != 0) return CZK_ERR_SIZE_MISMATCH;
  if (protocol != 1) return CZK_ERR_UNSUPPORTED; /* 2 = PLONK, 10 = FFLONK */

  /* section 2 */
  czk__cursor_init(&c, &bf.sec[2]);
  uint32_t n8q;
  const uint8_t *q;
  CZK_TRY(czk__cursor_u32(&c, &n8q));
  if (n8q != 48) return CZK_ERR_UNSUPPORTED;
  CZK_TRY(czk__cursor_take(&c, 48, &q));
  if (!czk__le_bytes_equal_limbs(q, czk_fp_modulus, 6)) return CZK_ERR_UNSUPPORTED;
  CZK_TRY(czk__circom_read_prime_r(&c));
  CZK_TRY(czk__cursor_u32(&c, &z->info.n_vars));
  CZK_TRY(czk__cursor_u32(&c, &z->info.n_public));
  CZK_TRY(czk__cursor_u32(&c, &z->info.domain_size));
  CZK_TRY(read_g1(&c, &z->alpha1));
  CZK_TRY(read_g1(&c, &z->beta1));
  CZK_TRY(read_g2(&c, &z->beta2));
  CZK_TRY(read_g2(&c, &z->gamma2));
  CZK_TRY(read_g1(&c, &z->delta1));
  CZK_TRY(read_g2(&c, &z->delta2));
  if (c.left != 0) return CZK_ERR_SIZE_MISMATCH;

  czk_zkey_info *in = &z->info;
  uint32_t n = in->domain_size;
  if (n == 0 || (n & (n - 1)) != 0 || n > (1u << CZK_ZKEY_MAX_LOG_DOMAIN)) return CZK_ERR_FORMAT;
  in->log_domain = (uint32_t)__builtin_ctz(n);
  if (in->n_vars == 0 || (uint64_t)in->n_public + 1 > in->n_vars) return CZK_ERR_FORMAT;
  if ((uint64_t)in->n_public + 1 > n) return CZK_ERR_FORMAT;

  /* sizes of the point sections */
  const uint64_t nv = in->n_vars, np1 = (uint64_t)in->n_public + 1;
  if (bf.sec[3].size != np1 * G1_BYTES || bf.sec[5].size != nv * G1_BYTES || bf.sec[6].size != nv * G1_BYTES ||
      bf.sec[7].size != nv * G2_BYTES || bf.sec[8].size != (nv - np1) * G1_BYTES ||
      bf.sec[9].size != (uint64_t)n * G1_BYTES)
    return CZK_ERR_SIZE_MISMATCH;

  /* IC: few points, fully checked now */
  z->ic = malloc((size_t)np1 * sizeof *z->ic);
  if (!z->ic) return CZK_ERR_NOMEM;
  czk__cursor_init(&c, &bf.sec[3]);
  for (uint64_t i = 0; i < np1; i++) CZK_TRY(read_g1(&c, &z->ic[i]));

  /* section 4: validate every entry; the constraint count is where the input rows begin */
  czk__cursor_init(&c, &bf.sec[4]);
  CZK_TRY(czk__cursor_u32(&c, &in->n_coefs));
  if (c.left != (uint64_t)in->n_coefs * COEF_BYTES) return CZK_ERR_SIZE_MISMATCH;
  z->coefs = c.p;
  uint32_t max_row = 0;
  for (uint32_t k = 0; k < in->n_coefs; k++) {
    const uint8_t *e = z->coefs + (size_t)k * COEF_BYTES;
    czk__cursor ec = {e, COEF_BYTES};
    uint32_t m, row, sig;
    czk__cursor_u32(&ec, &m);
    czk__cursor_u32(&ec, &row);
    czk__cursor_u32(&ec, &sig);
    if (m > 1 || row >= n || sig >= in->n_vars) return CZK_ERR_FORMAT;
    czk_fr v;
    CZK_TRY(czk_fr_from_bytes_le(&v, e + 12)); /* only the range check (< r) matters here */
    if (row > max_row) max_row = row;
  }
  in->n_constraints = in->n_coefs && max_row + 1 >= np1 ? max_row + 1 - (uint32_t)np1 : 0;

  z->sec[0] = bf.sec[5].p;
  z->sec[1] = bf.sec[6].p;
  z->sec[2] = bf.sec[7].p;
  z->sec[3] = bf.sec[8].p;
  z->sec[4] = bf.sec[9].p;
  return CZK_OK;
}

static czk_status zkey_new(czk_zkey **out) {
  czk_zkey *z = calloc(1, sizeof *z);
  if (!z) return CZK_ERR_NOMEM;
  pthread_mutex_init(&z->lock, NULL);
  *out = z;
  return CZK_OK;
}

czk_status czk_zkey_open(czk_zkey **out, const char *path) {
  *out = NULL;
  if (!path) return CZK_ERR_INVALID_ARG;
  czk_zkey *z;
  CZK_TRY(zkey_new(&z));
  czk_status st = czk__file_map_open(&z->map, path);
  if (st == CZK_OK) st = zkey_parse_mapped(z);
  if (st == CZK_OK || z->map.data) { /* a file changed during parsing is reported as such, not as malformed */
    czk_status cs = czk__file_map_check(&z->map);
    if (cs != CZK_OK) st = cs;
  }
  if (st != CZK_OK) {
    czk_zkey_close(z);
    return st;
  }
  *out = z;
  return CZK_OK;
}

czk_status czk_zkey_parse(czk_zkey **out, const uint8_t *buf, size_t len) {
  *out = NULL;
  if (!buf && len) return CZK_ERR_INVALID_ARG;
  czk_zkey *z;
  CZK_TRY(zkey_new(&z));
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) {
    czk_zkey_close(z);
    return CZK_ERR_NOMEM;
  }
  if (len) memcpy(copy, buf, len);
  z->map.data = copy;
  z->map.len = len;
  z->heap_copy = true;
  czk_status st = zkey_parse_mapped(z);
  if (st != CZK_OK) {
    czk_zkey_close(z);
    return st;
  }
  *out = z;
  return CZK_OK;
}

czk_status czk_zkey_check_file(const czk_zkey *z) { return z ? czk__file_map_check(&z->map) : CZK_OK; }

void czk_zkey_get_info(const czk_zkey *z, czk_zkey_info *info) { *info = z->info; }

czk_status czk_zkey_vk(const czk_zkey *z, czk_groth16_vk *vk) {
  memset(vk, 0, sizeof *vk);
  size_t n_ic = (size_t)z->info.n_public + 1;
  vk->ic = malloc(n_ic * sizeof *vk->ic);
  if (!vk->ic) return CZK_ERR_NOMEM;
  memcpy(vk->ic, z->ic, n_ic * sizeof *vk->ic);
  vk->n_ic = n_ic;
  vk->alpha_g1 = z->alpha1;
  vk->beta_g1 = z->beta1;
  vk->beta_g2 = z->beta2;
  vk->gamma_g2 = z->gamma2;
  vk->delta_g1 = z->delta1;
  vk->delta_g2 = z->delta2;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ prepare */
typedef struct check_ctx {
  const void *pts;
  bool g2;
  czk_status st; /* first failure (any); written under lock */
  pthread_mutex_t lock;
} check_ctx;

static void check_chunk(void *vctx, size_t begin, size_t end) {
  check_ctx *x = vctx;
  czk_status st = CZK_OK;
  for (size_t i = begin; i < end && st == CZK_OK; i++)
    st = x->g2 ? g2_check((const czk_g2_affine *)x->pts + i, false) : g1_check((const czk_g1_affine *)x->pts + i, false);
  if (st != CZK_OK) {
    pthread_mutex_lock(&x->lock);
    if (x->st == CZK_OK) x->st = st;
    pthread_mutex_unlock(&x->lock);
  }
}

/* Point section i (0..4 = sections 5..9) as an aligned array: in place when aligned, else an owned copy. */
static czk_status section_points(czk_zkey *z, int i, size_t count, bool g2, czk_pool *pool, const void **out) {
  size_t bytes = count * (g2 ? G2_BYTES : G1_BYTES);
  const uint8_t *p = z->sec[i];
  if (count && ((uintptr_t)p % _Alignof(czk_fp)) != 0) {
    uint8_t *copy = malloc(bytes);
    if (!copy) return CZK_ERR_NOMEM;
    memcpy(copy, p, bytes);
    z->owned[i] = copy;
    p = copy;
  }
  check_ctx x = {.pts = p, .g2 = g2, .st = CZK_OK};
  pthread_mutex_init(&x.lock, NULL);
  czk_pool_parallel_for(pool, count, 1024, check_chunk, &x);
  pthread_mutex_destroy(&x.lock);
  if (x.st != CZK_OK) return x.st;
  *out = p;
  return CZK_OK;
}

static uint32_t rd32(const uint8_t *e) {
  return e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
}

/* Section 4 -> CSR for A (m = 0) and B (m = 1), rows = domain, counting sort by row (stable: r1cs term order). */
static czk_status compile_coefs(czk_zkey *z) {
  const uint32_t n = z->info.domain_size, nc = z->info.n_coefs;
  czk_csr *mats[2] = {&z->a, &z->b};
  static const uint64_t one_raw[4] = {1, 0, 0, 0};
  czk_fr one_std;
  memcpy(one_std.l, one_raw, sizeof one_raw); /* the integer 1 read as a Montgomery value: 1/R */
  for (int m = 0; m < 2; m++) {
    mats[m]->row_ptr = calloc((size_t)n + 1, sizeof(uint64_t));
    if (!mats[m]->row_ptr) return CZK_ERR_NOMEM;
  }
  for (uint32_t k = 0; k < nc; k++) {
    const uint8_t *e = z->coefs + (size_t)k * COEF_BYTES;
    uint32_t m = rd32(e), row = rd32(e + 4);
    if (m > 1 || row >= n) return CZK_ERR_FORMAT; /* validated at open: the file changed under the mapping */
    mats[m]->row_ptr[row + 1]++;
  }
  for (int m = 0; m < 2; m++) {
    czk_csr *M = mats[m];
    for (uint32_t r = 0; r < n; r++) M->row_ptr[r + 1] += M->row_ptr[r];
    M->nnz = M->row_ptr[n];
    M->col = malloc((M->nnz ? M->nnz : 1) * sizeof *M->col);
    M->val = malloc((M->nnz ? M->nnz : 1) * sizeof *M->val);
    if (!M->col || !M->val) return CZK_ERR_NOMEM;
  }
  uint64_t *fill[2];
  for (int m = 0; m < 2; m++) {
    fill[m] = malloc((size_t)n * sizeof(uint64_t));
    if (!fill[m]) {
      if (m) free(fill[0]);
      return CZK_ERR_NOMEM;
    }
    memcpy(fill[m], mats[m]->row_ptr, (size_t)n * sizeof(uint64_t));
  }
  for (uint32_t k = 0; k < nc; k++) {
    const uint8_t *e = z->coefs + (size_t)k * COEF_BYTES;
    uint32_t m = rd32(e), row = rd32(e + 4), sig = rd32(e + 8);
    if (m > 1 || row >= n || sig >= z->info.n_vars || fill[m][row] >= mats[m]->row_ptr[row + 1]) {
      free(fill[0]); /* the file changed under the mapping since open */
      free(fill[1]);
      return CZK_ERR_FORMAT;
    }
    czk_fr v;
    for (int i = 0; i < 4; i++) {
      uint64_t w = 0;
      for (int j = 7; j >= 0; j--) w = w << 8 | e[12 + 8 * i + j];
      v.l[i] = w; /* coef*R^2 as limbs = Montgomery form of coef*R (validated < r at open) */
    }
    uint64_t at = fill[m][row]++;
    mats[m]->col[at] = sig;
    czk_fr_mul(&mats[m]->val[at], &v, &one_std); /* (coef R^2)(1)/R = coef R = Montgomery(coef) */
  }
  free(fill[0]);
  free(fill[1]);
  return CZK_OK;
}

czk_status czk_zkey_prepare(czk_zkey *z, czk_pool *pool) {
  pthread_mutex_lock(&z->lock);
  czk_status st = z->prepare_status;
  if (z->prepared || st != CZK_OK) goto out;
  const czk_zkey_info *in = &z->info;
  size_t nv = in->n_vars, nl = nv - in->n_public - 1, n = in->domain_size;
  const void *p;
  if ((st = section_points(z, 0, nv, false, pool, &p)) != CZK_OK) goto fail;
  z->pt_a = p;
  if ((st = section_points(z, 1, nv, false, pool, &p)) != CZK_OK) goto fail;
  z->pt_b1 = p;
  if ((st = section_points(z, 2, nv, true, pool, &p)) != CZK_OK) goto fail;
  z->pt_b2 = p;
  if ((st = section_points(z, 3, nl, false, pool, &p)) != CZK_OK) goto fail;
  z->pt_c = p;
  if ((st = section_points(z, 4, n, false, pool, &p)) != CZK_OK) goto fail;
  z->pt_h = p;
  if ((st = compile_coefs(z)) != CZK_OK) goto fail;
  if ((st = czk_ntt_domain_new(&z->domain, in->log_domain, CZK_ROOTS_SNARKJS, pool)) != CZK_OK) goto fail;
  if ((st = czk__file_map_check(&z->map)) != CZK_OK) goto fail; /* checked above was the file as it is now */
  z->prepared = true;
  goto out;
fail:
  z->prepare_status = st; /* sticky: a damaged key stays damaged */
out:
  pthread_mutex_unlock(&z->lock);
  return st;
}
