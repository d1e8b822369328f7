/* test_zkey.c: circom/snarkjs readers, the snarkjs-style prover and the snarkjs JSON forms, without node.
 *
 * The test writes its own files: a small circom-style .r1cs (unsorted terms, a repeated wire, a linear row with empty
 * A and B, wire 0 in LCs), a .wtns, and a .zkey built from a known trapdoor (tau, alpha, beta, delta; gamma = 1)
 * exactly as docs/snarkjs-formats.md §4 describes: A/B/C polynomials in the Lagrange basis of the n-domain with
 * snarkjs's roots (omega from 5^t), the n_public + 1 input rows in A, section 9 = L^(2n)_(2j+1)(tau)/delta, section 4
 * values coef*R^2. Then:
 *   - readers accept the files (both section orders snarkjs writes: setup's 1,2,4,3,9,8,5,6,7,10 and 1..10), the
 *     checker accepts the witness and names the first broken row of a bad one;
 *   - czk_snarkjs_prove's proof verifies under the zkey's vk (czk_groth16_verify) and fails for a changed input;
 *   - proof.json / public.json / verification_key.json round-trip, with the JSON rejections (>= r, off curve,
 *     wrong curve, IC count, syntax);
 *   - every truncation of each file, and targeted corruptions (magic, version, duplicate / unknown / custom-gates
 *     sections, sizes, trailing bytes, prime, non-canonical values, bad section-4 entries, off-curve points), give
 *     the expected status and never crash (run under ASan in the sanitizer build). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "czk/snarkjs.h"
#include "czk_test.h"

/* ------------------------------------------------------------------------------------------------ byte buffers */
typedef struct buf {
  uint8_t *p;
  size_t len, cap;
} buf;

static void put(buf *b, const void *src, size_t n) {
  if (b->len + n > b->cap) {
    b->cap = (b->len + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    if (!b->p) abort();
  }
  memcpy(b->p + b->len, src, n);
  b->len += n;
}
static void put_u32(buf *b, uint32_t v) {
  uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  put(b, x, 4);
}
static void put_u64(buf *b, uint64_t v) {
  put_u32(b, (uint32_t)v);
  put_u32(b, (uint32_t)(v >> 32));
}
static void put_limbs(buf *b, const uint64_t *l, size_t n) {
  for (size_t i = 0; i < n; i++) put_u64(b, l[i]);
}
static void put_fr_std(buf *b, const czk_fr *x) {
  uint64_t raw[4];
  czk_fr_to_raw(raw, x);
  put_limbs(b, raw, 4);
}
static void put_g1(buf *b, const czk_g1_affine *p) { /* LEM: Montgomery limbs as they are */
  put_limbs(b, p->x.l, 6);
  put_limbs(b, p->y.l, 6);
}
static void put_g2(buf *b, const czk_g2_affine *p) {
  put_limbs(b, p->x.c0.l, 6);
  put_limbs(b, p->x.c1.l, 6);
  put_limbs(b, p->y.c0.l, 6);
  put_limbs(b, p->y.c1.l, 6);
}

/* A binfile from section bodies given in file order. */
typedef struct section {
  uint32_t id;
  buf body;
} section;

static buf binfile(const char magic[4], uint32_t version, section *secs, size_t n, const int *order) {
  buf out = {0};
  put(&out, magic, 4);
  put_u32(&out, version);
  put_u32(&out, (uint32_t)n);
  for (size_t k = 0; k < n; k++) {
    section *s = &secs[order ? (size_t)order[k] : k];
    put_u32(&out, s->id);
    put_u64(&out, s->body.len);
    put(&out, s->body.p, s->body.len);
  }
  return out;
}

/* ------------------------------------------------------------------------------------------------ the circuit */
/* Wires: 0 ONE, 1 out, 2-3 public inputs, 4-5 private inputs, 6-7 internal; 1 output, 2 public inputs.
 *   c0: w4 * w5 = w6
 *   c1: (w6 + w2 + 2 w2) * (w3 + 1) = w7           (A repeats w2; B uses wire 0)
 *   c2: (w7) * (1) = w1
 *   c3: {} * {} = w7 - w1   (C unsorted: w7 first)  (a linear row: A and B empty)                        */
#define NV 8
#define NPUB 3
#define NCONS 4
typedef struct term {
  uint32_t wire;
  int64_t coef; /* small; negative = r - |coef| */
} term;
typedef struct lc {
  int n;
  term t[4];
} lc;
static const lc k_rows[NCONS][3] = {
    {{1, {{4, 1}}}, {1, {{5, 1}}}, {1, {{6, 1}}}},
    {{3, {{6, 1}, {2, 1}, {2, 2}}}, {2, {{3, 1}, {0, 1}}}, {1, {{7, 1}}}},
    {{1, {{7, 1}}}, {1, {{0, 1}}}, {1, {{1, 1}}}},
    {{0, {{0, 0}}}, {0, {{0, 0}}}, {2, {{7, 1}, {1, -1}}}},
};

static void fr_small(czk_fr *r, int64_t v) {
  czk_fr_from_u64(r, (uint64_t)(v < 0 ? -v : v));
  if (v < 0) czk_fr_neg(r, r);
}

static void rand_fr(czk_fr *r, czk_test_rng *g) {
  uint8_t b[64];
  czk_test_rng_bytes(g, b, sizeof b);
  czk_fr_from_bytes_wide_le(r, b, sizeof b);
}

static buf make_r1cs(void) {
  section s[3] = {{2, {0}}, {1, {0}}, {3, {0}}}; /* circom's order: constraints, header, map */
  for (int c = 0; c < NCONS; c++)
    for (int m = 0; m < 3; m++) {
      const lc *l = &k_rows[c][m];
      put_u32(&s[0].body, (uint32_t)l->n);
      for (int t = 0; t < l->n; t++) {
        czk_fr v;
        fr_small(&v, l->t[t].coef);
        put_u32(&s[0].body, l->t[t].wire);
        put_fr_std(&s[0].body, &v);
      }
    }
  put_u32(&s[1].body, 32);
  put_limbs(&s[1].body, czk_fr_modulus, 4);
  put_u32(&s[1].body, NV);
  put_u32(&s[1].body, 1); /* outputs */
  put_u32(&s[1].body, 2); /* public inputs */
  put_u32(&s[1].body, 2); /* private inputs */
  put_u64(&s[1].body, NV + 2);
  put_u32(&s[1].body, NCONS);
  for (uint64_t i = 0; i < NV; i++) put_u64(&s[2].body, i);
  buf out = binfile("r1cs", 1, s, 3, NULL);
  for (int i = 0; i < 3; i++) free(s[i].body.p);
  return out;
}

static void make_witness(czk_fr w[NV], czk_test_rng *g) {
  czk_fr t, u;
  czk_fr_set_one(&w[0]);
  for (int i = 2; i <= 5; i++) rand_fr(&w[i], g);
  czk_fr_mul(&w[6], &w[4], &w[5]);
  czk_fr_from_u64(&t, 3);
  czk_fr_mul(&t, &t, &w[2]);
  czk_fr_add(&t, &t, &w[6]);
  czk_fr_add(&u, &w[3], &w[0]);
  czk_fr_mul(&w[7], &t, &u);
  w[1] = w[7];
}

static buf make_wtns(const czk_fr *w, uint32_t n) {
  section s[2] = {{1, {0}}, {2, {0}}};
  put_u32(&s[0].body, 32);
  put_limbs(&s[0].body, czk_fr_modulus, 4);
  put_u32(&s[0].body, n);
  for (uint32_t i = 0; i < n; i++) put_fr_std(&s[1].body, &w[i]);
  buf out = binfile("wtns", 2, s, 2, NULL);
  free(s[0].body.p);
  free(s[1].body.p);
  return out;
}

/* L_k(tau) over the 2^logn-domain with snarkjs roots: (tau^n - 1) / n * w^k / (tau - w^k). */
static void lagrange(czk_fr *out, const czk_fr *tau, unsigned logn, size_t k) {
  size_t n = (size_t)1 << logn;
  czk_fr w, wk, num, den, nn;
  czk_fr_root_of_unity(&w, logn, CZK_ROOTS_SNARKJS);
  uint64_t e = k;
  czk_fr_pow_vartime(&wk, &w, &e, 1);
  uint64_t en = n;
  czk_fr_pow_vartime(&num, tau, &en, 1);
  czk_fr one;
  czk_fr_set_one(&one);
  czk_fr_sub(&num, &num, &one);
  czk_fr_from_u64(&nn, n);
  czk_fr_sub(&den, tau, &wk);
  czk_fr_mul(&den, &den, &nn);
  czk_fr_inv(&den, &den);
  czk_fr_mul(out, &num, &wk);
  czk_fr_mul(out, out, &den);
}

static void g1_of(czk_g1_affine *r, const czk_fr *k) {
  czk_g1 g, p;
  czk_g1_generator(&g);
  czk_g1_mul_vartime(&p, &g, k);
  czk_g1_to_affine(r, &p);
}
static void g2_of(czk_g2_affine *r, const czk_fr *k) {
  czk_g2 g, p;
  czk_g2_generator(&g);
  czk_g2_mul_vartime(&p, &g, k);
  czk_g2_to_affine(r, &p);
}

/* zkey sections 1..10 (index id-1), plus the section-4 entry count. */
typedef struct zkey_parts {
  section s[10];
} zkey_parts;

static void make_zkey(zkey_parts *z, czk_test_rng *g) {
  memset(z, 0, sizeof *z);
  for (int i = 0; i < 10; i++) z->s[i].id = (uint32_t)i + 1;
  const unsigned logn = 3; /* NCONS + NPUB = 7 < 8 */
  const size_t n = 8;
  czk_fr tau, alpha, beta, delta, dinv;
  rand_fr(&tau, g);
  rand_fr(&alpha, g);
  rand_fr(&beta, g);
  rand_fr(&delta, g);
  czk_fr_inv(&dinv, &delta);
  czk_fr L[8], Au[NV], Bu[NV], Cu[NV], t;
  for (size_t k = 0; k < n; k++) lagrange(&L[k], &tau, logn, k);
  memset(Au, 0, sizeof Au);
  memset(Bu, 0, sizeof Bu);
  memset(Cu, 0, sizeof Cu);
  czk_fr *polys[3] = {Au, Bu, Cu};
  for (int c = 0; c < NCONS; c++)
    for (int m = 0; m < 3; m++)
      for (int k = 0; k < k_rows[c][m].n; k++) {
        fr_small(&t, k_rows[c][m].t[k].coef);
        czk_fr_mul(&t, &t, &L[c]);
        czk_fr_add(&polys[m][k_rows[c][m].t[k].wire], &polys[m][k_rows[c][m].t[k].wire], &t);
      }
  for (int s = 0; s <= NPUB; s++) czk_fr_add(&Au[s], &Au[s], &L[NCONS + s]); /* input rows */

  /* 1: protocol */
  put_u32(&z->s[0].body, 1);
  /* 2: header */
  buf *h = &z->s[1].body;
  czk_g1_affine p1;
  czk_g2_affine p2;
  czk_fr one;
  czk_fr_set_one(&one);
  put_u32(h, 48);
  put_limbs(h, czk_fp_modulus, 6);
  put_u32(h, 32);
  put_limbs(h, czk_fr_modulus, 4);
  put_u32(h, NV);
  put_u32(h, NPUB);
  put_u32(h, (uint32_t)n);
  g1_of(&p1, &alpha), put_g1(h, &p1);
  g1_of(&p1, &beta), put_g1(h, &p1);
  g2_of(&p2, &beta), put_g2(h, &p2);
  g2_of(&p2, &one), put_g2(h, &p2);
  g1_of(&p1, &delta), put_g1(h, &p1);
  g2_of(&p2, &delta), put_g2(h, &p2);
  /* 3 IC and 8 C: (beta A + alpha B + C) / gamma (= 1) or / delta */
  for (int i = 0; i < NV; i++) {
    czk_fr v, u;
    czk_fr_mul(&v, &beta, &Au[i]);
    czk_fr_mul(&u, &alpha, &Bu[i]);
    czk_fr_add(&v, &v, &u);
    czk_fr_add(&v, &v, &Cu[i]);
    if (i > NPUB) czk_fr_mul(&v, &v, &dinv);
    g1_of(&p1, &v);
    put_g1(i <= NPUB ? &z->s[2].body : &z->s[7].body, &p1);
  }
  /* 4: coefficients: per constraint A then B terms, then the input rows; value coef * R^2 mod r */
  czk_fr rinv_val, r2; /* the limbs {1,0,0,0} read as a Montgomery value are 1/R */
  memset(&rinv_val, 0, sizeof rinv_val);
  rinv_val.l[0] = 1;
  czk_fr_inv(&r2, &rinv_val);
  czk_fr_sqr(&r2, &r2);
  buf *cf = &z->s[3].body;
  uint32_t ncoef = 0;
  buf entries = {0};
  for (int c = 0; c < NCONS; c++)
    for (int m = 0; m < 2; m++)
      for (int k = 0; k < k_rows[c][m].n; k++) {
        fr_small(&t, k_rows[c][m].t[k].coef);
        czk_fr_mul(&t, &t, &r2);
        put_u32(&entries, (uint32_t)m);
        put_u32(&entries, (uint32_t)c);
        put_u32(&entries, k_rows[c][m].t[k].wire);
        put_fr_std(&entries, &t);
        ncoef++;
      }
  for (int s = 0; s <= NPUB; s++) {
    put_u32(&entries, 0);
    put_u32(&entries, (uint32_t)(NCONS + s));
    put_u32(&entries, (uint32_t)s);
    put_fr_std(&entries, &r2);
    ncoef++;
  }
  put_u32(cf, ncoef);
  put(cf, entries.p, entries.len);
  free(entries.p);
  /* 5 A, 6 B1, 7 B2 */
  for (int i = 0; i < NV; i++) {
    g1_of(&p1, &Au[i]), put_g1(&z->s[4].body, &p1);
    g1_of(&p1, &Bu[i]), put_g1(&z->s[5].body, &p1);
    g2_of(&p2, &Bu[i]), put_g2(&z->s[6].body, &p2);
  }
  /* 9 H: L^(2n)_(2j+1)(tau) / delta */
  for (size_t j = 0; j < n; j++) {
    czk_fr v;
    lagrange(&v, &tau, logn + 1, 2 * j + 1);
    czk_fr_mul(&v, &v, &dinv);
    g1_of(&p1, &v);
    put_g1(&z->s[8].body, &p1);
  }
  /* 10: csHash + no contributions */
  uint8_t hash[64] = {0};
  put(&z->s[9].body, hash, sizeof hash);
  put_u32(&z->s[9].body, 0);
}

static const int k_order_setup[10] = {0, 1, 3, 2, 8, 7, 4, 5, 6, 9}; /* 1,2,4,3,9,8,5,6,7,10 */
static const int k_order_plain[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

static buf zkey_bytes(zkey_parts *z, const int *order) { return binfile("zkey", 1, z->s, 10, order); }

/* Offset of section `id`'s body in a binfile (the test's own files: well formed). */
static size_t sec_off(const buf *b, uint32_t id) {
  size_t pos = 12;
  while (pos + 12 <= b->len) {
    uint32_t sid;
    uint64_t size;
    memcpy(&sid, b->p + pos, 4);
    memcpy(&size, b->p + pos + 4, 8);
    if (sid == id) return pos + 12;
    pos += 12 + size;
  }
  abort();
}

/* ------------------------------------------------------------------------------------------------ tests */
static czk_status parse_r1cs(const buf *b) {
  czk_circom_r1cs *r = NULL;
  czk_status st = czk_circom_r1cs_parse(&r, b->p, b->len);
  czk_circom_r1cs_free(r);
  return st;
}
static czk_status parse_wtns(const buf *b) {
  czk_circom_wtns w;
  czk_status st = czk_circom_wtns_parse(&w, b->p, b->len);
  czk_circom_wtns_free(&w);
  return st;
}
static czk_status parse_zkey(const buf *b, bool prepare) {
  czk_zkey *z = NULL;
  czk_status st = czk_zkey_parse(&z, b->p, b->len);
  if (st == CZK_OK && prepare) st = czk_zkey_prepare(z, NULL);
  czk_zkey_close(z);
  return st;
}

/* Every proper prefix is rejected (never CZK_OK), and the status is one of the clean ones. */
static void check_truncations(const buf *b, czk_status (*parse)(const buf *)) {
  int bad = 0;
  for (size_t len = 0; len < b->len; len++) {
    buf t = {b->p, len, len};
    czk_status st = parse(&t);
    if (st != CZK_ERR_TRUNCATED && st != CZK_ERR_FORMAT && st != CZK_ERR_SIZE_MISMATCH) bad++;
  }
  CHECK_MSG(bad == 0, "%d truncations gave an unexpected status", bad);
}
static czk_status parse_zkey_noprep(const buf *b) { return parse_zkey(b, false); }

static buf copy_buf(const buf *b) {
  buf c = {malloc(b->len + 16), b->len, b->len + 16};
  memcpy(c.p, b->p, b->len);
  return c;
}

static void test_r1cs_wtns(czk_test_rng *g) {
  buf r1 = make_r1cs();
  czk_fr w[NV];
  make_witness(w, g);
  buf wt = make_wtns(w, NV);

  czk_circom_r1cs *r = NULL;
  czk_circom_wtns cw;
  CHECK_EQ_INT(czk_circom_r1cs_parse(&r, r1.p, r1.len), CZK_OK);
  CHECK_EQ_INT(czk_circom_wtns_parse(&cw, wt.p, wt.len), CZK_OK);
  if (r) {
    CHECK_EQ_INT(r->n_wires, NV);
    CHECK_EQ_INT(czk_circom_r1cs_n_public(r), NPUB);
    CHECK_EQ_INT(r->n_constraints, NCONS);
    CHECK_EQ_INT(r->a.nnz, 4); /* c1's A merged to {w2: 3, w6: 1} */
    CHECK_EQ_INT(r->a.col[1], 2);
    CHECK_EQ_INT(r->a.col[2], 6);
    czk_fr three;
    czk_fr_from_u64(&three, 3);
    CHECK(czk_fr_eq(&r->a.val[1], &three));
    CHECK_EQ_INT(r->c.row_ptr[4] - r->c.row_ptr[3], 2);
    CHECK_EQ_INT(r->c.col[r->c.row_ptr[3]], 1); /* sorted */
    size_t row = 0;
    CHECK_EQ_INT(czk_circom_check(r, &cw, &row, NULL), CZK_OK);
    CHECK(row == SIZE_MAX);
    czk_fr_add(&cw.w[6], &cw.w[6], &cw.w[0]); /* breaks c0 and c1 */
    CHECK_EQ_INT(czk_circom_check(r, &cw, &row, NULL), CZK_ERR_UNSATISFIED);
    CHECK_EQ_INT(row, 0);
    cw.n--;
    CHECK_EQ_INT(czk_circom_check(r, &cw, &row, NULL), CZK_ERR_SIZE_MISMATCH);
    cw.n++;
  }
  czk_circom_wtns_free(&cw);
  czk_circom_r1cs_free(r);

  /* files on disk: the mapped readers */
  char path[] = "/tmp/czk_test_zkey_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) {
    CHECK(write(fd, r1.p, r1.len) == (ssize_t)r1.len);
    close(fd);
    CHECK_EQ_INT(czk_circom_r1cs_read(&r, path), CZK_OK);
    czk_circom_r1cs_free(r);
    CHECK_EQ_INT(czk_circom_wtns_read(&cw, path), CZK_ERR_FORMAT); /* an r1cs is not a wtns */
    unlink(path);
    CHECK_EQ_INT(czk_circom_r1cs_read(&r, path), CZK_ERR_NOT_FOUND);
  }

  check_truncations(&r1, parse_r1cs);
  check_truncations(&wt, parse_wtns);

  /* r1cs corruptions */
  buf c;
  size_t hdr = sec_off(&r1, 1), cons = sec_off(&r1, 2);
  c = copy_buf(&r1), c.p[0] = 'x';
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&r1), c.p[4] = 2; /* version 2 */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&r1), c.p[c.len++] = 0; /* trailing byte */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&r1), c.p[cons - 12] = 1; /* section 2 relabelled 1: duplicate header id */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&r1), c.p[cons - 12] = 4; /* custom gates section */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&r1), c.p[cons - 12] = 9; /* unknown id */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&r1), c.p[hdr + 4] ^= 1; /* prime */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&r1), c.p[cons + 4] = NV; /* first term's wire = nWires */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&r1), memset(c.p + cons + 8, 0xff, 32); /* first coefficient >= r */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_NOT_CANONICAL);
  free(c.p);
  c = copy_buf(&r1), c.p[hdr + 60] = NCONS + 1; /* nConstraints: the section ends early */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_TRUNCATED);
  free(c.p);
  c = copy_buf(&r1), c.p[hdr + 60] = NCONS - 1; /* bytes left over in section 2 */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_SIZE_MISMATCH);
  free(c.p);
  c = copy_buf(&r1), c.p[hdr + 36] = 2; /* nWires < 1 + public + private */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&r1), c.p[cons] = 0xff, c.p[cons + 1] = 0xff; /* first LC claims 65535 terms */
  CHECK_EQ_INT(parse_r1cs(&c), CZK_ERR_TRUNCATED);
  free(c.p);

  /* wtns corruptions */
  size_t wh = sec_off(&wt, 1), wv = sec_off(&wt, 2);
  c = copy_buf(&wt), c.p[4] = 1; /* version 1 */
  CHECK_EQ_INT(parse_wtns(&c), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&wt), c.p[4] = 3;
  CHECK_EQ_INT(parse_wtns(&c), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&wt), c.p[wh + 36] = NV + 1; /* nWitness disagrees with section 2 */
  CHECK_EQ_INT(parse_wtns(&c), CZK_ERR_SIZE_MISMATCH);
  free(c.p);
  c = copy_buf(&wt), c.p[wh] = 48; /* n8 */
  CHECK_EQ_INT(parse_wtns(&c), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&wt), memcpy(c.p + wv + 32, czk_fr_modulus, 32); /* w[1] = r */
  CHECK_EQ_INT(parse_wtns(&c), CZK_ERR_NOT_CANONICAL);
  free(c.p);
  c = copy_buf(&wt), c.p[wv] = 2; /* w[0] = 2 */
  CHECK_EQ_INT(parse_wtns(&c), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&wt), c.p[8] = 1; /* one section announced, two present: trailing bytes */
  CHECK_EQ_INT(parse_wtns(&c), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&wt), c.p[8] = 3; /* three announced */
  CHECK_EQ_INT(parse_wtns(&c), CZK_ERR_TRUNCATED);
  free(c.p);
  free(r1.p);
  free(wt.p);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *s = calloc(1, 1 << 16);
  size_t n = s ? fread(s, 1, (1 << 16) - 1, f) : 0;
  (void)n;
  fclose(f);
  return s;
}

static void dec_fp(char *out, const czk_fp *x) { czk_fp_to_dec(out, x); }

/* verification_key.json text for a vk (what `snarkjs zkey export verificationkey` writes, minus alphabeta). */
static char *vk_json(const czk_groth16_vk *vk, const char *curve, long npub_override) {
  size_t cap = 1 << 16, len = 0;
  char *s = malloc(cap), a[120], b[120], c[120], d[120];
  len += (size_t)snprintf(s + len, cap - len, "{\"protocol\": \"groth16\", \"curve\": \"%s\", \"nPublic\": %ld,", curve,
                          npub_override >= 0 ? npub_override : (long)vk->n_ic - 1);
  dec_fp(a, &vk->alpha_g1.x), dec_fp(b, &vk->alpha_g1.y);
  len += (size_t)snprintf(s + len, cap - len, "\"vk_alpha_1\": [\"%s\", \"%s\", \"1\"],", a, b);
  const czk_g2_affine *g2[3] = {&vk->beta_g2, &vk->gamma_g2, &vk->delta_g2};
  const char *names[3] = {"vk_beta_2", "vk_gamma_2", "vk_delta_2"};
  for (int i = 0; i < 3; i++) {
    dec_fp(a, &g2[i]->x.c0), dec_fp(b, &g2[i]->x.c1), dec_fp(c, &g2[i]->y.c0), dec_fp(d, &g2[i]->y.c1);
    len += (size_t)snprintf(s + len, cap - len, "\"%s\": [[\"%s\", \"%s\"], [\"%s\", \"%s\"], [\"1\", \"0\"]],",
                            names[i], a, b, c, d);
  }
  len += (size_t)snprintf(s + len, cap - len, "\"IC\": [");
  for (size_t i = 0; i < vk->n_ic; i++) {
    dec_fp(a, &vk->ic[i].x), dec_fp(b, &vk->ic[i].y);
    len += (size_t)snprintf(s + len, cap - len, "%s[\"%s\", \"%s\", \"1\"]", i ? ", " : "", a, b);
  }
  snprintf(s + len, cap - len, "]}");
  return s;
}

/* Issue 22 #1: a .zkey truncated (or rewritten in place) under a loaded key. Its sections are read in place from the
 * mapping, so the next prove died of SIGBUS; now reads of the vanished pages give zeros, and czk_zkey_check_file
 * reports the change (the daemon fails that job and reloads the key). */
static void test_zkey_file_changed(czk_test_rng *g) {
  zkey_parts zp;
  make_zkey(&zp, g);
  czk_fr w[NV];
  make_witness(w, g);
  buf wt = make_wtns(w, NV);
  czk_circom_wtns cw;
  CHECK_EQ_INT(czk_circom_wtns_parse(&cw, wt.p, wt.len), CZK_OK);
  buf zb = zkey_bytes(&zp, k_order_setup);
  char path[] = "/tmp/czk_test_zkey_file_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, zb.p, zb.len) == (ssize_t)zb.len);
  if (fd >= 0) close(fd);
  for (int round = 0; round < 2; round++) {
    czk_zkey *z = NULL;
    CHECK_EQ_INT(czk_zkey_open(&z, path), CZK_OK);
    if (!z) break;
    czk_groth16_proof proof;
    CHECK_EQ_INT(czk_snarkjs_prove(&proof, z, &cw, NULL, NULL), CZK_OK);
    CHECK_EQ_INT(czk_zkey_check_file(z), CZK_OK);
    if (round == 0) {
      CHECK(truncate(path, 0) == 0);
    } else { /* rewritten in place with the same bytes: no fault, the identity (mtime) shows it */
      struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
      fd = open(path, O_WRONLY);
      CHECK(fd >= 0 && futimens(fd, ts) == 0);
      if (fd >= 0) close(fd);
    }
    (void)czk_snarkjs_prove(&proof, z, &cw, NULL, NULL); /* SIGBUS here before (round 0) */
    CHECK_EQ_INT(czk_zkey_check_file(z), CZK_ERR_FILE_CHANGED);
    czk_zkey_close(z);
    if (round == 0) { /* back to the good key for the next round */
      fd = open(path, O_WRONLY);
      CHECK(fd >= 0 && write(fd, zb.p, zb.len) == (ssize_t)zb.len);
      if (fd >= 0) close(fd);
    }
  }
  czk_zkey *z = NULL;
  CHECK(truncate(path, 10) == 0);
  CHECK(czk_zkey_open(&z, path) != CZK_OK && z == NULL);
  unlink(path);
  free(zb.p);
  free(wt.p);
  for (int i = 0; i < 10; i++) free(zp.s[i].body.p);
  czk_circom_wtns_free(&cw);
}

static void test_zkey_prove(czk_test_rng *g) {
  zkey_parts zp;
  make_zkey(&zp, g);
  czk_fr w[NV];
  make_witness(w, g);
  buf wt = make_wtns(w, NV);
  czk_circom_wtns cw;
  CHECK_EQ_INT(czk_circom_wtns_parse(&cw, wt.p, wt.len), CZK_OK);

  for (int ord = 0; ord < 2; ord++) {
    buf zb = zkey_bytes(&zp, ord ? k_order_plain : k_order_setup);
    czk_zkey *z = NULL;
    CHECK_EQ_INT(czk_zkey_parse(&z, zb.p, zb.len), CZK_OK);
    if (!z) {
      free(zb.p);
      continue;
    }
    czk_zkey_info info;
    czk_zkey_get_info(z, &info);
    CHECK_EQ_INT(info.n_vars, NV);
    CHECK_EQ_INT(info.n_public, NPUB);
    CHECK_EQ_INT(info.domain_size, 8);
    CHECK_EQ_INT(info.log_domain, 3);
    CHECK_EQ_INT(info.n_constraints, NCONS);
    CHECK_EQ_INT(info.n_coefs, 5 + 4 + NPUB + 1); /* A terms (w2 twice), B terms, input rows */
    czk_groth16_vk vk;
    CHECK_EQ_INT(czk_zkey_vk(z, &vk), CZK_OK);
    czk_groth16_proof proof, proof2;
    czk_snarkjs_timings t;
    CHECK_EQ_INT(czk_snarkjs_prove(&proof, z, &cw, NULL, &t), CZK_OK);
    CHECK(t.total > 0);
    czk_fr *pub = NULL;
    CHECK_EQ_INT(czk_snarkjs_public_from_wtns(&pub, NPUB, &cw), CZK_OK);
    CHECK_EQ_INT(czk_groth16_verify(&vk, &proof, pub, NPUB), CZK_OK);
    CHECK_EQ_INT(czk_snarkjs_prove(&proof2, z, &cw, NULL, NULL), CZK_OK);
    CHECK(!czk_g1_affine_eq(&proof.a, &proof2.a)); /* fresh r, s */
    CHECK_EQ_INT(czk_groth16_verify(&vk, &proof2, pub, NPUB), CZK_OK);
    czk_fr_add(&pub[1], &pub[1], &cw.w[0]);
    CHECK_EQ_INT(czk_groth16_verify(&vk, &proof, pub, NPUB), CZK_ERR_VERIFY_FAILED);
    czk_fr_sub(&pub[1], &pub[1], &cw.w[0]);
    /* a witness of the wrong length */
    cw.n--;
    CHECK_EQ_INT(czk_snarkjs_prove(&proof2, z, &cw, NULL, NULL), CZK_ERR_SIZE_MISMATCH);
    cw.n++;
    /* an unsatisfying witness gives a proof that does not verify */
    czk_fr keep = cw.w[6];
    czk_fr_add(&cw.w[6], &cw.w[6], &cw.w[0]);
    CHECK_EQ_INT(czk_snarkjs_prove(&proof2, z, &cw, NULL, NULL), CZK_OK);
    CHECK_EQ_INT(czk_groth16_verify(&vk, &proof2, pub, NPUB), CZK_ERR_VERIFY_FAILED);
    cw.w[6] = keep;

    if (ord == 0) {
      /* JSON round trip through files, then verification from the parsed forms */
      char dir[] = "/tmp/czk_test_zkey_json_XXXXXX";
      CHECK(mkdtemp(dir) != NULL);
      char pp[128], pubp[128];
      snprintf(pp, sizeof pp, "%s/proof.json", dir);
      snprintf(pubp, sizeof pubp, "%s/public.json", dir);
      CHECK_EQ_INT(czk_snarkjs_proof_write(pp, &proof), CZK_OK);
      CHECK_EQ_INT(czk_snarkjs_public_write(pubp, pub, NPUB), CZK_OK);
      czk_groth16_proof rp;
      czk_fr *rpub = NULL;
      size_t rn = 0;
      CHECK_EQ_INT(czk_snarkjs_proof_read(&rp, pp), CZK_OK);
      CHECK_EQ_INT(czk_snarkjs_public_read(&rpub, &rn, pubp), CZK_OK);
      CHECK(czk_g1_affine_eq(&rp.a, &proof.a) && czk_g2_affine_eq(&rp.b, &proof.b) &&
            czk_g1_affine_eq(&rp.c, &proof.c));
      CHECK_EQ_INT(rn, NPUB);
      for (size_t i = 0; i < rn && rpub; i++) CHECK(czk_fr_eq(&rpub[i], &pub[i]));
      char *pt = slurp(pubp), *prt = slurp(pp);
      char d1[80];
      czk_fr_to_dec(d1, &pub[0]);
      char expect[200];
      snprintf(expect, sizeof expect, "[\n \"%s\",\n", d1);
      CHECK(pt && strncmp(pt, expect, strlen(expect)) == 0);
      CHECK(pt && pt[strlen(pt) - 1] == ']');
      CHECK(prt && strncmp(prt, "{\n \"pi_a\": [\n  \"", 16) == 0);
      CHECK(prt && strstr(prt, "  [\n   \"1\",\n   \"0\"\n  ]\n ],\n \"pi_c\"") != NULL);
      CHECK(prt && strstr(prt, "\"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}") != NULL);
      free(pt);
      free(prt);
      unlink(pp);
      unlink(pubp);
      rmdir(dir);

      char *vj = vk_json(&vk, "bls12381", -1);
      czk_groth16_vk pvk;
      CHECK_EQ_INT(czk_snarkjs_vk_parse(&pvk, vj), CZK_OK);
      CHECK_EQ_INT(czk_groth16_verify(&pvk, &rp, rpub, rn), CZK_OK);
      czk_groth16_vk_free(&pvk);
      free(vj);
      vj = vk_json(&vk, "BLS12-381", -1);
      CHECK_EQ_INT(czk_snarkjs_vk_parse(&pvk, vj), CZK_OK);
      czk_groth16_vk_free(&pvk);
      free(vj);
      vj = vk_json(&vk, "bn128", -1);
      CHECK_EQ_INT(czk_snarkjs_vk_parse(&pvk, vj), CZK_ERR_UNSUPPORTED);
      free(vj);
      vj = vk_json(&vk, "bls12381", NPUB + 1);
      CHECK_EQ_INT(czk_snarkjs_vk_parse(&pvk, vj), CZK_ERR_SIZE_MISMATCH);
      free(vj);
      /* a repeated member name is refused (issue 22 defect 10): snarkjs reads the last "curve", czk read the first */
      vj = vk_json(&vk, "bls12381", -1);
      {
        size_t vl = strlen(vj);
        char *dup = malloc(vl + 64);
        snprintf(dup, vl + 64, "{\"curve\": \"bn128\", %s", vj + 1);
        CHECK_EQ_INT(czk_snarkjs_vk_parse(&pvk, dup), CZK_ERR_FORMAT);
        snprintf(dup, vl + 64, "{\"curve\": \"bls12381\", %s", vj + 1); /* even with the same value */
        CHECK_EQ_INT(czk_snarkjs_vk_parse(&pvk, dup), CZK_ERR_FORMAT);
        snprintf(dup, vl + 64, "{\"curv\\u0065\": \"bn128\", %s", vj + 1); /* "curve" spelled with an escape */
        CHECK_EQ_INT(czk_snarkjs_vk_parse(&pvk, dup), CZK_ERR_FORMAT);
        free(dup);
      }
      free(vj);
      {
        /* proof.json with a second "pi_a" (the proof's pi_c): refused, where czk and snarkjs disagreed */
        char dp[128];
        snprintf(dp, sizeof dp, "/tmp/czk_test_dup_%d.json", (int)getpid());
        czk_groth16_proof other = proof;
        other.a = proof.c;
        CHECK_EQ_INT(czk_snarkjs_proof_write(dp, &other), CZK_OK);
        char *t = slurp(dp);
        const char *pc = t ? strstr(t, "\"pi_c\"") : NULL;
        CHECK(pc != NULL);
        if (t && pc) {
          FILE *f = fopen(dp, "w");
          /* {"pi_a": <a>, ... "pi_c": <c>, "pi_a": <c> ...} */
          const char *end = strchr(pc, ']');
          fprintf(f, "%.*s\"pi_a\"%.*s, %s", (int)(pc - t), t, (int)(end + 1 - (pc + 6)), pc + 6, pc);
          fclose(f);
          CHECK_EQ_INT(czk_snarkjs_proof_read(&rp, dp), CZK_ERR_FORMAT);
        }
        free(t);
        unlink(dp);
      }
      vj = vk_json(&vk, "bls12381", -1);
      vj[strlen(vj) - 1] = 0; /* drop the closing brace */
      CHECK_EQ_INT(czk_snarkjs_vk_parse(&pvk, vj), CZK_ERR_FORMAT);
      free(vj);
      free(rpub);

      /* proof / public rejections */
      czk_fr *v = NULL;
      size_t vn;
      char r_dec[100], big[200];
      czk_fr zero;
      czk_fr_set_zero(&zero);
      czk_fr_sub(&zero, &zero, &cw.w[0]); /* r - 1 */
      czk_fr_to_dec(r_dec, &zero);
      snprintf(big, sizeof big, "[\"%s\"]", r_dec);
      CHECK_EQ_INT(czk_snarkjs_public_parse(&v, &vn, big), CZK_OK);
      free(v);
      r_dec[strlen(r_dec) - 1]++; /* r - 1 ends in ...512: +1 in the last digit = r */
      snprintf(big, sizeof big, "[\"%s\"]", r_dec);
      CHECK_EQ_INT(czk_snarkjs_public_parse(&v, &vn, big), CZK_ERR_NOT_CANONICAL);
      CHECK_EQ_INT(czk_snarkjs_public_parse(&v, &vn, "[\"12\", 7, \"0x10\"]"), CZK_OK);
      CHECK_EQ_INT(vn, 3);
      free(v);
      CHECK_EQ_INT(czk_snarkjs_public_parse(&v, &vn, "[\"-1\"]"), CZK_ERR_FORMAT);
      CHECK_EQ_INT(czk_snarkjs_public_parse(&v, &vn, "[\"1\",]"), CZK_ERR_FORMAT);
      CHECK_EQ_INT(czk_snarkjs_public_parse(&v, &vn, "[]"), CZK_OK);
      CHECK_EQ_INT(vn, 0);
      free(v);
      char a[120], b[120], pj[2048];
      dec_fp(a, &proof.a.x);
      czk_fp y1;
      czk_fp_add(&y1, &proof.a.y, &czk_fp_one_v);
      dec_fp(b, &y1);
      char b0[120], b1[120], b2[120], b3[120];
      dec_fp(b0, &proof.b.x.c0), dec_fp(b1, &proof.b.x.c1), dec_fp(b2, &proof.b.y.c0), dec_fp(b3, &proof.b.y.c1);
      snprintf(pj, sizeof pj, "{\"pi_a\": [\"%s\", \"%s\", \"1\"], \"pi_b\": [[\"%s\", \"%s\"], [\"%s\", \"%s\"], "
               "[\"1\", \"0\"]], \"pi_c\": [\"%s\", \"%s\", \"1\"]}", a, b, b0, b1, b2, b3, a, b);
      CHECK_EQ_INT(czk_snarkjs_proof_parse(&rp, pj), CZK_ERR_NOT_ON_CURVE);
      /* Jacobian input (x z^2, y z^3, z) with z = 2 parses to the same point; z = 0 is infinity */
      czk_fp two, z2, z3, xj, yj;
      czk_fp_from_u64(&two, 2);
      czk_fp_sqr(&z2, &two);
      czk_fp_mul(&z3, &z2, &two);
      czk_fp_mul(&xj, &proof.a.x, &z2);
      czk_fp_mul(&yj, &proof.a.y, &z3);
      dec_fp(a, &xj), dec_fp(b, &yj);
      snprintf(pj, sizeof pj, "{\"pi_a\": [\"%s\", \"%s\", \"2\"], \"pi_b\": [[\"%s\", \"%s\"], [\"%s\", \"%s\"], "
               "[\"1\", \"0\"]], \"pi_c\": [\"0\", \"1\", \"0\"]}", a, b, b0, b1, b2, b3);
      CHECK_EQ_INT(czk_snarkjs_proof_parse(&rp, pj), CZK_OK);
      CHECK(czk_g1_affine_eq(&rp.a, &proof.a));
      CHECK(czk_g1_affine_is_infinity(&rp.c));
    }
    czk_groth16_vk_free(&vk);
    free(pub);
    czk_zkey_close(z);
    free(zb.p);
  }

  /* damaged keys */
  buf zb = zkey_bytes(&zp, k_order_setup);
  check_truncations(&zb, parse_zkey_noprep);
  buf c;
  size_t s2 = sec_off(&zb, 2), s4 = sec_off(&zb, 4), s5 = sec_off(&zb, 5), s9 = sec_off(&zb, 9);
  c = copy_buf(&zb), c.p[4] = 3;
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&zb), c.p[sec_off(&zb, 1)] = 2; /* PLONK */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&zb), c.p[s2 + 4] ^= 1; /* q */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&zb), c.p[s2 + 52 + 4] ^= 1; /* r */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_UNSUPPORTED);
  free(c.p);
  c = copy_buf(&zb), c.p[s2 + 88 + 8] = 6; /* domainSize 6 */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&zb), c.p[s2 + 88] = NV + 1; /* nVars: section sizes disagree */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_SIZE_MISMATCH);
  free(c.p);
  c = copy_buf(&zb), c.p[s2 + 100 + 96 + 10] ^= 0x40; /* beta1.x changed: off the curve */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_NOT_ON_CURVE);
  free(c.p);
  c = copy_buf(&zb), memset(c.p + s2 + 100 + 40, 0xff, 8); /* alpha1.x >= q */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_NOT_CANONICAL);
  free(c.p);
  c = copy_buf(&zb), c.p[s4 + 4] = 2; /* first entry: matrix 2 */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&zb), c.p[s4 + 8] = 8; /* constraint = domain */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&zb), c.p[s4 + 12] = NV; /* signal = nVars */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&zb), memset(c.p + s4 + 16, 0xff, 32); /* value >= r */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_NOT_CANONICAL);
  free(c.p);
  c = copy_buf(&zb), c.p[s4] += 1; /* nCoefs */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_SIZE_MISMATCH);
  free(c.p);
  c = copy_buf(&zb), c.p[s5 + 96 + 3] ^= 1; /* A[1] off the curve: found by prepare */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_OK);
  CHECK_EQ_INT(parse_zkey(&c, true), CZK_ERR_NOT_ON_CURVE);
  free(c.p);
  c = copy_buf(&zb), memset(c.p + s9 + 96 * 7 + 88, 0xff, 8); /* H[7].y >= q */
  CHECK_EQ_INT(parse_zkey(&c, true), CZK_ERR_NOT_CANONICAL);
  free(c.p);
  c = copy_buf(&zb), c.p[s5 - 12] = 6; /* section 5 relabelled 6: duplicate */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&zb), c.p[s5 - 12] = 11; /* unknown id (and 5 missing) */
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_FORMAT);
  free(c.p);
  c = copy_buf(&zb), c.p[c.len++] = 0;
  CHECK_EQ_INT(parse_zkey(&c, false), CZK_ERR_FORMAT);
  free(c.p);
  /* a key whose witness length differs: refused by the prover */
  {
    czk_zkey *z = NULL;
    CHECK_EQ_INT(czk_zkey_parse(&z, zb.p, zb.len), CZK_OK);
    czk_circom_wtns shortw = {NV - 1, cw.w};
    czk_groth16_proof pr;
    if (z) CHECK_EQ_INT(czk_snarkjs_prove(&pr, z, &shortw, NULL, NULL), CZK_ERR_SIZE_MISMATCH);
    czk_zkey_close(z);
  }
  /* the mapped reader on a real file */
  {
    char path[] = "/tmp/czk_test_zkey_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
      CHECK(write(fd, zb.p, zb.len) == (ssize_t)zb.len);
      close(fd);
      czk_zkey *z = NULL;
      CHECK_EQ_INT(czk_zkey_open(&z, path), CZK_OK);
      czk_groth16_proof pr;
      czk_groth16_vk vk;
      if (z) {
        CHECK_EQ_INT(czk_snarkjs_prove(&pr, z, &cw, NULL, NULL), CZK_OK);
        CHECK_EQ_INT(czk_zkey_vk(z, &vk), CZK_OK);
        CHECK_EQ_INT(czk_groth16_verify(&vk, &pr, cw.w + 1, NPUB), CZK_OK);
        czk_groth16_vk_free(&vk);
      }
      czk_zkey_close(z);
      czk_snarkjs_bench_result br;
      char wpath[] = "/tmp/czk_test_wtns_XXXXXX";
      int wfd = mkstemp(wpath);
      CHECK(wfd >= 0 && write(wfd, wt.p, wt.len) == (ssize_t)wt.len);
      if (wfd >= 0) close(wfd);
      CHECK_EQ_INT(czk_snarkjs_bench_case(path, wpath, 2, NULL, &br), CZK_OK);
      CHECK(br.best_s > 0 && br.mean_s >= br.best_s && br.info.n_vars == NV);
      unlink(wpath);
      unlink(path);
    }
  }
  free(zb.p);
  for (int i = 0; i < 10; i++) free(zp.s[i].body.p);
  czk_circom_wtns_free(&cw);
  free(wt.p);
}

int main(void) {
  czk_test_rng g;
  czk_test_rng_seed(&g, 0x2b7e151628aed2a6ull);
  test_r1cs_wtns(&g);
  test_zkey_prove(&g);
  test_zkey_file_changed(&g);
  return czk_test_done("test_zkey");
}
