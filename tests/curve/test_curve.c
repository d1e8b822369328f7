/* test_curve.c: G1/G2 group laws, scalar multiplication, subgroup checks, encodings (incl. all proofs of the Filecoin
 * seal regression fixture) and the pairing. Seeded and deterministic; runs in a few seconds (Release). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/curve.h"
#include "curve/curve_internal.h"
#include "czk_test.h"

/* ------------------------------------------------------------------------------------------------ helpers */
static void rand_fr(czk_fr *r, czk_test_rng *g) {
  uint8_t b[64];
  czk_test_rng_bytes(g, b, sizeof b);
  czk_fr_from_bytes_wide_le(r, b, sizeof b);
}
static void rand_fp(czk_fp *r, czk_test_rng *g) {
  uint8_t b[64];
  czk_test_rng_bytes(g, b, sizeof b);
  czk_fp_from_bytes_wide_le(r, b, sizeof b);
}
static void rand_fp2(czk_fp2 *r, czk_test_rng *g) {
  rand_fp(&r->c0, g);
  rand_fp(&r->c1, g);
}
static void rand_fp12(czk_fp12 *r, czk_test_rng *g) {
  czk_fp2 *c[6] = {&r->c0.c0, &r->c0.c1, &r->c0.c2, &r->c1.c0, &r->c1.c1, &r->c1.c2};
  for (int i = 0; i < 6; i++) rand_fp2(c[i], g);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
static void from_hex(uint8_t *out, const char *hex, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1]));
}

/* curve constants for the template */
static czk_fp g1_b_val;
static czk_fp2 g2_b_val;
static void init_consts(void) {
  czk_fp_from_u64(&g1_b_val, 4);
  g2_b_val.c0 = g1_b_val;
  g2_b_val.c1 = g1_b_val;
}
/* cofactors: h1 = (x - 1)^2 / 3, h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9 */
static const uint64_t g1_cof[2] = {0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL};
static const uint64_t g2_cof[8] = {0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL,
                                   0xa628f1cb4d9e82efULL, 0xa68a205b2e5a7ddfULL, 0xcd91de4547085abaULL,
                                   0x091d50792876a202ULL, 0x05d543a95414e7f1ULL};

#define TG g1
#define TF fp
#define T_AFF czk_g1_affine
#define T_JAC czk_g1
#define T_XYZZ czk_g1_xyzz
#define T_FE czk_fp
#define T_RAND_FE rand_fp
#define T_B (&g1_b_val)
#define T_COF g1_cof
#define T_COF_LIMBS 2
#include "group_tests.h"
#undef TG
#undef TF
#undef T_AFF
#undef T_JAC
#undef T_XYZZ
#undef T_FE
#undef T_RAND_FE
#undef T_B
#undef T_COF
#undef T_COF_LIMBS

#define TG g2
#define TF fp2
#define T_AFF czk_g2_affine
#define T_JAC czk_g2
#define T_XYZZ czk_g2_xyzz
#define T_FE czk_fp2
#define T_RAND_FE rand_fp2
#define T_B (&g2_b_val)
#define T_COF g2_cof
#define T_COF_LIMBS 8
#include "group_tests.h"

/* ------------------------------------------------------------------------------------------------ codec */
static const char *k_g1_gen_compressed =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char *k_g2_gen_compressed =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
static const char *k_p_hex =
    "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";

/* big-endian 48-byte compare with p (independent of the field code): true when v >= p */
static bool be_ge_p(const uint8_t v[48]) {
  uint8_t p[48];
  from_hex(p, k_p_hex, 48);
  return memcmp(v, p, 48) >= 0;
}

static void test_codec_g1(czk_test_rng *g) {
  uint8_t c[48], u[96], want[48];
  czk_g1_affine a, b;
  czk_g1_affine_generator(&a);
  czk_g1_compress(c, &a);
  from_hex(want, k_g1_gen_compressed, 48);
  CHECK(memcmp(c, want, 48) == 0);
  CHECK(czk_g1_uncompress(&b, c) == CZK_OK && czk_g1_affine_eq(&a, &b));
  /* the generator's coordinates, independently of the Montgomery constants */
  uint8_t xb[48];
  czk_fp_to_bytes_be(xb, &a.x);
  want[0] &= 0x1f;
  CHECK(memcmp(xb, want, 48) == 0);
  czk_g2_affine a2, b2;
  uint8_t c2[96], want2[96];
  czk_g2_affine_generator(&a2);
  czk_g2_compress(c2, &a2);
  from_hex(want2, k_g2_gen_compressed, 96);
  CHECK(memcmp(c2, want2, 96) == 0);
  CHECK(czk_g2_uncompress(&b2, c2) == CZK_OK && czk_g2_affine_eq(&a2, &b2));

  for (int it = 0; it < 16; it++) {
    czk_g1 p;
    g1_rand_point(&p, g);
    czk_g1_to_affine(&a, &p);
    czk_g1_compress(c, &a);
    CHECK(c[0] & 0x80);
    CHECK(czk_g1_uncompress(&b, c) == CZK_OK && czk_g1_affine_eq(&a, &b));
    CHECK(czk_g1_uncompress_n(&b, c, 48) == CZK_OK && czk_g1_affine_eq(&a, &b));
    czk_g1_serialize(u, &a);
    CHECK((u[0] & 0xe0) == 0);
    CHECK(czk_g1_deserialize(&b, u) == CZK_OK && czk_g1_affine_eq(&a, &b));
    CHECK(czk_g1_deserialize_n(&b, u, 96) == CZK_OK && czk_g1_affine_eq(&a, &b));
    CHECK(czk_g1_deserialize_unchecked(&b, u) == CZK_OK && czk_g1_affine_eq(&a, &b));
    /* the negation differs only in the sort bit */
    czk_g1_affine na;
    uint8_t cn[48];
    czk_g1_affine_neg(&na, &a);
    czk_g1_compress(cn, &na);
    CHECK(cn[0] == (c[0] ^ 0x20) && memcmp(cn + 1, c + 1, 47) == 0);
    /* length-checked decoders */
    CHECK(czk_g1_uncompress_n(&b, c, 47) == CZK_ERR_TRUNCATED);
    CHECK(czk_g1_uncompress_n(&b, c, 0) == CZK_ERR_TRUNCATED);
    CHECK(czk_g1_uncompress_n(&b, c, 49) == CZK_ERR_SIZE_MISMATCH);
    CHECK(czk_g1_deserialize_n(&b, u, 95) == CZK_ERR_TRUNCATED);
    CHECK(czk_g1_deserialize_n(&b, u, 48) == CZK_ERR_TRUNCATED);
    /* flags */
    uint8_t t[96];
    memcpy(t, c, 48);
    t[0] &= 0x7f; /* compression bit missing in a 48-byte encoding */
    CHECK(czk_g1_uncompress(&b, t) == CZK_ERR_BAD_FLAGS);
    memcpy(t, u, 96);
    t[0] |= 0x80; /* compression bit in a 96-byte encoding */
    CHECK(czk_g1_deserialize(&b, t) == CZK_ERR_BAD_FLAGS);
    memcpy(t, u, 96);
    t[0] |= 0x20; /* sort bit in an uncompressed encoding */
    CHECK(czk_g1_deserialize(&b, t) == CZK_ERR_BAD_FLAGS);
    memcpy(t, c, 48);
    t[0] |= 0x40; /* infinity with x bytes */
    CHECK(czk_g1_uncompress(&b, t) == CZK_ERR_BAD_FLAGS);
    memcpy(t, u, 96);
    t[0] |= 0x40;
    CHECK(czk_g1_deserialize(&b, t) == CZK_ERR_BAD_FLAGS);
    /* off the curve */
    memcpy(t, u, 96);
    t[95] ^= 1;
    CHECK(czk_g1_deserialize(&b, t) == CZK_ERR_NOT_ON_CURVE);
    CHECK(czk_g1_deserialize_unchecked(&b, t) == CZK_ERR_NOT_ON_CURVE);
  }
  /* infinity */
  memset(&a, 0, sizeof a);
  czk_g1_compress(c, &a);
  CHECK(c[0] == 0xc0);
  bool zero = true;
  for (int i = 1; i < 48; i++) zero &= c[i] == 0;
  CHECK(zero);
  CHECK(czk_g1_uncompress(&b, c) == CZK_OK && czk_g1_affine_is_infinity(&b));
  czk_g1_serialize(u, &a);
  CHECK(u[0] == 0x40);
  CHECK(czk_g1_deserialize(&b, u) == CZK_OK && czk_g1_affine_is_infinity(&b));
  c[0] = 0xe0; /* infinity with the sort bit */
  CHECK(czk_g1_uncompress(&b, c) == CZK_ERR_BAD_FLAGS);
  c[0] = 0xc0;
  c[47] = 1; /* infinity with a non-zero byte */
  CHECK(czk_g1_uncompress(&b, c) == CZK_ERR_BAD_FLAGS);
  c[47] = 0;
  c[0] = 0xc1; /* non-zero bit in the flag byte */
  CHECK(czk_g1_uncompress(&b, c) == CZK_ERR_BAD_FLAGS);
  u[0] = 0x40;
  u[60] = 3;
  CHECK(czk_g1_deserialize(&b, u) == CZK_ERR_BAD_FLAGS);
  memset(u, 0, 96); /* (0, 0) without the infinity flag */
  CHECK(czk_g1_deserialize(&b, u) == CZK_ERR_NOT_ON_CURVE);
  /* x = p: not canonical */
  from_hex(c, k_p_hex, 48);
  c[0] |= 0x80;
  CHECK(czk_g1_uncompress(&b, c) == CZK_ERR_NOT_CANONICAL);
  from_hex(u, k_p_hex, 48);
  from_hex(u + 48, k_p_hex, 48);
  u[95] = 0; /* x = p, y < p */
  CHECK(czk_g1_deserialize(&b, u) == CZK_ERR_NOT_CANONICAL);
  czk_g1_affine_generator(&a);
  czk_g1_serialize(u, &a);
  from_hex(u + 48, k_p_hex, 48); /* y = p */
  CHECK(czk_g1_deserialize(&b, u) == CZK_ERR_NOT_CANONICAL);
  /* an x with no curve point */
  for (int found = 0; !found;) {
    czk_fp x, rhs, four;
    rand_fp(&x, g);
    czk_fp_sqr(&rhs, &x);
    czk_fp_mul(&rhs, &rhs, &x);
    czk_fp_from_u64(&four, 4);
    czk_fp_add(&rhs, &rhs, &four);
    if (czk_fp_legendre(&rhs) != -1) continue;
    found = 1;
    czk_fp_to_bytes_be(c, &x);
    c[0] |= 0x80;
    CHECK(czk_g1_uncompress(&b, c) == CZK_ERR_NO_SQRT);
  }
  /* a curve point outside the subgroup */
  g1_rand_curve_point(&a, g);
  czk_g1_compress(c, &a);
  CHECK(czk_g1_uncompress(&b, c) == CZK_ERR_NOT_IN_SUBGROUP);
  czk_g1_serialize(u, &a);
  CHECK(czk_g1_deserialize(&b, u) == CZK_ERR_NOT_IN_SUBGROUP);
  CHECK(czk_g1_deserialize_unchecked(&b, u) == CZK_OK && czk_g1_affine_eq(&a, &b));
}

static void test_codec_g2(czk_test_rng *g) {
  uint8_t c[96], u[192], t[192];
  czk_g2_affine a, b;
  for (int it = 0; it < 8; it++) {
    czk_g2 p;
    g2_rand_point(&p, g);
    czk_g2_to_affine(&a, &p);
    czk_g2_compress(c, &a);
    CHECK(c[0] & 0x80);
    CHECK(czk_g2_uncompress(&b, c) == CZK_OK && czk_g2_affine_eq(&a, &b));
    CHECK(czk_g2_uncompress_n(&b, c, 96) == CZK_OK && czk_g2_affine_eq(&a, &b));
    czk_g2_serialize(u, &a);
    CHECK((u[0] & 0xe0) == 0);
    CHECK(czk_g2_deserialize(&b, u) == CZK_OK && czk_g2_affine_eq(&a, &b));
    CHECK(czk_g2_deserialize_n(&b, u, 192) == CZK_OK && czk_g2_affine_eq(&a, &b));
    CHECK(czk_g2_deserialize_unchecked(&b, u) == CZK_OK && czk_g2_affine_eq(&a, &b));
    /* layout: x.c1 then x.c0 */
    uint8_t xb[48];
    czk_fp_to_bytes_be(xb, &a.x.c0);
    CHECK(memcmp(xb, c + 48, 48) == 0);
    czk_fp_to_bytes_be(xb, &a.y.c0);
    CHECK(memcmp(xb, u + 144, 48) == 0);
    czk_g2_affine na;
    uint8_t cn[96];
    czk_g2_affine_neg(&na, &a);
    czk_g2_compress(cn, &na);
    CHECK(cn[0] == (c[0] ^ 0x20) && memcmp(cn + 1, c + 1, 95) == 0);
    CHECK(czk_g2_uncompress_n(&b, c, 95) == CZK_ERR_TRUNCATED);
    CHECK(czk_g2_uncompress_n(&b, c, 97) == CZK_ERR_SIZE_MISMATCH);
    CHECK(czk_g2_deserialize_n(&b, u, 191) == CZK_ERR_TRUNCATED);
    CHECK(czk_g2_deserialize_n(&b, u, 96) == CZK_ERR_TRUNCATED);
    memcpy(t, c, 96);
    t[0] &= 0x7f;
    CHECK(czk_g2_uncompress(&b, t) == CZK_ERR_BAD_FLAGS);
    memcpy(t, u, 192);
    t[0] |= 0x80;
    CHECK(czk_g2_deserialize(&b, t) == CZK_ERR_BAD_FLAGS);
    memcpy(t, u, 192);
    t[0] |= 0x20;
    CHECK(czk_g2_deserialize(&b, t) == CZK_ERR_BAD_FLAGS);
    memcpy(t, c, 96);
    t[0] |= 0x40;
    CHECK(czk_g2_uncompress(&b, t) == CZK_ERR_BAD_FLAGS);
    memcpy(t, u, 192);
    t[191] ^= 1;
    CHECK(czk_g2_deserialize(&b, t) == CZK_ERR_NOT_ON_CURVE);
  }
  memset(&a, 0, sizeof a);
  czk_g2_compress(c, &a);
  CHECK(c[0] == 0xc0 && c[95] == 0);
  CHECK(czk_g2_uncompress(&b, c) == CZK_OK && czk_g2_affine_is_infinity(&b));
  czk_g2_serialize(u, &a);
  CHECK(u[0] == 0x40 && u[191] == 0);
  CHECK(czk_g2_deserialize(&b, u) == CZK_OK && czk_g2_affine_is_infinity(&b));
  c[0] = 0xe0;
  CHECK(czk_g2_uncompress(&b, c) == CZK_ERR_BAD_FLAGS);
  c[0] = 0xc0;
  c[50] = 1; /* in x.c0 */
  CHECK(czk_g2_uncompress(&b, c) == CZK_ERR_BAD_FLAGS);
  u[150] = 1;
  CHECK(czk_g2_deserialize(&b, u) == CZK_ERR_BAD_FLAGS);
  /* c1 = p or c0 = p */
  czk_g2_affine_generator(&a);
  czk_g2_compress(c, &a);
  uint8_t save[48];
  memcpy(save, c, 48);
  from_hex(c, k_p_hex, 48);
  c[0] |= 0x80 | (save[0] & 0x20);
  CHECK(czk_g2_uncompress(&b, c) == CZK_ERR_NOT_CANONICAL);
  memcpy(c, save, 48);
  from_hex(c + 48, k_p_hex, 48);
  CHECK(czk_g2_uncompress(&b, c) == CZK_ERR_NOT_CANONICAL);
  czk_g2_serialize(u, &a);
  from_hex(u + 144, k_p_hex, 48); /* y.c0 = p */
  CHECK(czk_g2_deserialize(&b, u) == CZK_ERR_NOT_CANONICAL);
  for (int found = 0; !found;) {
    czk_fp2 x, rhs;
    rand_fp2(&x, g);
    czk_fp2_sqr(&rhs, &x);
    czk_fp2_mul(&rhs, &rhs, &x);
    czk_fp2_add(&rhs, &rhs, &g2_b_val);
    if (czk_fp2_legendre(&rhs) != -1) continue;
    found = 1;
    a.x = x;
    czk_g2_compress(c, &a);
    c[0] &= 0xdf;
    CHECK(czk_g2_uncompress(&b, c) == CZK_ERR_NO_SQRT);
  }
  g2_rand_curve_point(&a, g);
  czk_g2_compress(c, &a);
  CHECK(czk_g2_uncompress(&b, c) == CZK_ERR_NOT_IN_SUBGROUP);
  czk_g2_serialize(u, &a);
  CHECK(czk_g2_deserialize(&b, u) == CZK_ERR_NOT_IN_SUBGROUP);
  CHECK(czk_g2_deserialize_unchecked(&b, u) == CZK_OK && czk_g2_affine_eq(&a, &b));
}

/* ------------------------------------------------------------------------------------------------ Filecoin */
/* Expected status of a compressed encoding with one flipped bit, from first principles: flag rules, then the range
 * of each coordinate (byte compare with p), then whether x^3 + b is a square (Legendre symbol), else the subgroup
 * (checked the slow way, r P == O). A flip of the sort bit alone is handled by the caller (it gives the negation). */
static czk_status expect_g1(const uint8_t *e) {
  uint8_t f = e[0];
  if (!(f & 0x80) || (f & 0x40)) return CZK_ERR_BAD_FLAGS;
  uint8_t x[48];
  memcpy(x, e, 48);
  x[0] &= 0x1f;
  if (be_ge_p(x)) return CZK_ERR_NOT_CANONICAL;
  czk_fp xf, rhs;
  czk_fp_from_bytes_be(&xf, x);
  czk_fp_sqr(&rhs, &xf);
  czk_fp_mul(&rhs, &rhs, &xf);
  czk_fp_add(&rhs, &rhs, &g1_b_val);
  if (czk_fp_legendre(&rhs) == -1) return CZK_ERR_NO_SQRT;
  czk_g1_affine a;
  a.x = xf;
  czk_fp_sqrt(&a.y, &rhs);
  czk_g1 j;
  czk_g1_from_affine(&j, &a);
  return g1_slow_in_subgroup(&j) ? CZK_OK : CZK_ERR_NOT_IN_SUBGROUP;
}

static czk_status expect_g2(const uint8_t *e) {
  uint8_t f = e[0];
  if (!(f & 0x80) || (f & 0x40)) return CZK_ERR_BAD_FLAGS;
  uint8_t x1[48];
  memcpy(x1, e, 48);
  x1[0] &= 0x1f;
  if (be_ge_p(x1) || be_ge_p(e + 48)) return CZK_ERR_NOT_CANONICAL;
  czk_g2_affine a;
  czk_fp_from_bytes_be(&a.x.c1, x1);
  czk_fp_from_bytes_be(&a.x.c0, e + 48);
  czk_fp2 rhs;
  czk_fp2_sqr(&rhs, &a.x);
  czk_fp2_mul(&rhs, &rhs, &a.x);
  czk_fp2_add(&rhs, &rhs, &g2_b_val);
  if (czk_fp2_legendre(&rhs) == -1) return CZK_ERR_NO_SQRT;
  czk_fp2_sqrt(&a.y, &rhs);
  czk_g2 j;
  czk_g2_from_affine(&j, &a);
  return g2_slow_in_subgroup(&j) ? CZK_OK : CZK_ERR_NOT_IN_SUBGROUP;
}

/* Decodes a concatenation of (A, B, C) compressed proofs the way a reader of a stream would, point by point with the
 * bytes that are left; returns the first failure. */
static czk_status decode_proof_stream(const uint8_t *in, size_t len, size_t *points) {
  size_t off = 0;
  *points = 0;
  static const size_t sizes[3] = {48, 96, 48};
  for (size_t i = 0; off < len; i++) {
    size_t want = sizes[i % 3], have = len - off < want ? len - off : want;
    czk_status st;
    if (want == 48) {
      czk_g1_affine a;
      st = czk_g1_uncompress_n(&a, in + off, have);
    } else {
      czk_g2_affine b;
      st = czk_g2_uncompress_n(&b, in + off, have);
    }
    if (st != CZK_OK) return st;
    off += want;
    (*points)++;
  }
  return *points % 3 ? CZK_ERR_TRUNCATED : CZK_OK; /* a partition cut at a point boundary */
}

static void test_filecoin_proofs(czk_test_rng *g) {
  const char *path = czk_test_shared_path("fixtures/filecoin/seal_regression_records-v16.jsonl");
  FILE *fp = fopen(path, "rb");
  CHECK_MSG(fp != NULL, "cannot open %s", path);
  if (!fp) return;
  size_t cap = 1 << 16, records = 0, partitions = 0, flips = 0, negs = 0, slow_checked = 0;
  size_t status_count[32] = {0};
  char *line = malloc(cap);
  uint8_t *proof = malloc(8192);
  size_t llen = 0;
  int ch;
  for (;;) {
    ch = fgetc(fp);
    if (ch != EOF && ch != '\n') {
      if (llen + 1 >= cap) line = realloc(line, cap *= 2);
      line[llen++] = (char)ch;
      continue;
    }
    line[llen] = 0;
    if (llen > 0) {
      /* minimal parse: the "proof":[n, n, ...] list */
      const char *s = strstr(line, "\"proof\":[");
      CHECK(s != NULL);
      size_t n = 0;
      if (s) {
        s += 9;
        while (*s && *s != ']') {
          char *end;
          long v = strtol(s, &end, 10);
          if (end == s || v < 0 || v > 255 || n >= 8192) break;
          proof[n++] = (uint8_t)v;
          s = end;
          while (*s == ',' || *s == ' ') s++;
        }
        CHECK(*s == ']');
      }
      records++;
      CHECK_MSG(n > 0 && n % 192 == 0, "record %zu: proof of %zu bytes", records, n);
      for (size_t off = 0; off + 192 <= n; off += 192) {
        const uint8_t *pr = proof + off;
        czk_g1_affine a, c;
        czk_g2_affine b;
        uint8_t re[96];
        partitions++;
        CHECK(czk_g1_uncompress(&a, pr) == CZK_OK);
        CHECK(czk_g2_uncompress(&b, pr + 48) == CZK_OK);
        CHECK(czk_g1_uncompress(&c, pr + 144) == CZK_OK);
        CHECK(czk_g1_affine_is_on_curve(&a) && czk_g2_affine_is_on_curve(&b) && czk_g1_affine_is_on_curve(&c));
        CHECK(czk_g1_affine_in_subgroup(&a) && czk_g2_affine_in_subgroup(&b) && czk_g1_affine_in_subgroup(&c));
        czk_g1_compress(re, &a);
        CHECK(memcmp(re, pr, 48) == 0);
        czk_g2_compress(re, &b);
        CHECK(memcmp(re, pr + 48, 96) == 0);
        czk_g1_compress(re, &c);
        CHECK(memcmp(re, pr + 144, 48) == 0);
        if (partitions % 25 == 1) { /* the slow reference check on a sample */
          czk_g1 ja;
          czk_g2 jb;
          czk_g1_from_affine(&ja, &a);
          czk_g2_from_affine(&jb, &b);
          CHECK(g1_slow_in_subgroup(&ja) && g2_slow_in_subgroup(&jb));
          slow_checked++;
        }
        /* one flipped bit per point, with the expected status worked out independently */
        for (int pt = 0; pt < 3; pt++) {
          size_t po = pt == 0 ? 0 : pt == 1 ? 48 : 144, sz = pt == 1 ? 96 : 48;
          uint8_t e[96];
          memcpy(e, pr + po, sz);
          size_t bit = (size_t)(czk_test_rng_next(g) % (sz * 8));
          e[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
          czk_status st, want;
          if (bit == 2) { /* the sort bit: the negated point, which is valid */
            if (sz == 48) {
              czk_g1_affine d, orig = pt == 0 ? a : c;
              st = czk_g1_uncompress(&d, e);
              czk_g1_affine_neg(&orig, &orig);
              CHECK(st == CZK_OK && czk_g1_affine_eq(&d, &orig));
            } else {
              czk_g2_affine d, orig = b;
              st = czk_g2_uncompress(&d, e);
              czk_g2_affine_neg(&orig, &orig);
              CHECK(st == CZK_OK && czk_g2_affine_eq(&d, &orig));
            }
            negs++;
            continue;
          }
          if (sz == 48) {
            czk_g1_affine d;
            st = czk_g1_uncompress(&d, e);
            want = expect_g1(e);
          } else {
            czk_g2_affine d;
            st = czk_g2_uncompress(&d, e);
            want = expect_g2(e);
          }
          CHECK_MSG(st == want && st != CZK_OK, "partition %zu point %d bit %zu: %s, expected %s", partitions, pt,
                    bit, czk_status_name(st), czk_status_name(want));
          if ((unsigned)st < 32) status_count[st]++;
          flips++;
        }
      }
      /* the whole stream decodes; any truncation is reported as such */
      size_t pts;
      CHECK(decode_proof_stream(proof, n, &pts) == CZK_OK && pts == n / 192 * 3);
      size_t cut = 1 + (size_t)(czk_test_rng_next(g) % 191);
      CHECK(decode_proof_stream(proof, n - cut, &pts) == CZK_ERR_TRUNCATED);
      CHECK(decode_proof_stream(proof, n - 192 + 1, &pts) == CZK_ERR_TRUNCATED);
    }
    llen = 0;
    if (ch == EOF) break;
  }
  fclose(fp);
  free(line);
  free(proof);
  CHECK_EQ_INT(records, 448);
  CHECK_EQ_INT(partitions, 124 + 88 + 230 + 4 * 10 + 2 * 10);
  /* the flips exercised every rejection path */
  CHECK(status_count[CZK_ERR_BAD_FLAGS] > 0 && status_count[CZK_ERR_NO_SQRT] > 0 &&
        status_count[CZK_ERR_NOT_IN_SUBGROUP] > 0 && status_count[CZK_ERR_NOT_CANONICAL] > 0);
  fprintf(stderr,
          "filecoin: %zu records, %zu partitions, %zu flips (bad flags %zu, not canonical %zu, no sqrt %zu, not in "
          "subgroup %zu), %zu sort-bit flips, %zu slow subgroup checks\n",
          records, partitions, flips, status_count[CZK_ERR_BAD_FLAGS], status_count[CZK_ERR_NOT_CANONICAL],
          status_count[CZK_ERR_NO_SQRT], status_count[CZK_ERR_NOT_IN_SUBGROUP], negs, slow_checked);
}

/* ------------------------------------------------------------------------------------------------ pairing */
/* e(G1, G2) as published with zkcrypto's bls12_381 (Gt::generator), canonical big-endian hex, Fp12 coefficients in
 * the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1. */
static const char *k_gt_gen[12] = {
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631"};

static void fp12_from_hex(czk_fp12 *r, const char *const hex[12]) {
  czk_fp *c[12] = {&r->c0.c0.c0, &r->c0.c0.c1, &r->c0.c1.c0, &r->c0.c1.c1, &r->c0.c2.c0, &r->c0.c2.c1,
                   &r->c1.c0.c0, &r->c1.c0.c1, &r->c1.c1.c0, &r->c1.c1.c1, &r->c1.c2.c0, &r->c1.c2.c1};
  for (int i = 0; i < 12; i++) {
    uint8_t b[48];
    from_hex(b, hex[i], 48);
    CHECK(czk_fp_from_bytes_be(c[i], b) == CZK_OK);
  }
}

static void test_sparse_mul(czk_test_rng *g) {
  for (int it = 0; it < 8; it++) {
    czk_fp12 f, l, want, got;
    czk_fp2 c0, c1, c4;
    rand_fp12(&f, g);
    rand_fp2(&c0, g);
    rand_fp2(&c1, g);
    rand_fp2(&c4, g);
    memset(&l, 0, sizeof l);
    l.c0.c0 = c0;
    l.c0.c1 = c1;
    l.c1.c1 = c4;
    czk_fp12_mul(&want, &f, &l);
    got = f;
    czk__fp12_mul_by_014(&got, &c0, &c1, &c4);
    CHECK(czk_fp12_eq(&got, &want));
  }
}

static void test_pairing(czk_test_rng *g) {
  czk_g1_affine g1, p1, ninf1;
  czk_g2_affine g2, q2, ninf2;
  czk_fp12 e, e2, e3, t, one;
  czk_fp12_set_one(&one);
  czk_g1_affine_generator(&g1);
  czk_g2_affine_generator(&g2);
  memset(&ninf1, 0, sizeof ninf1);
  memset(&ninf2, 0, sizeof ninf2);

  /* known value and non-degeneracy */
  czk_pairing(&e, &g1, &g2);
  CHECK(!czk_fp12_is_one(&e));
  fp12_from_hex(&t, k_gt_gen);
  CHECK_MSG(czk_fp12_eq(&e, &t), "e(G1, G2) differs from the published value");
  /* order r */
  czk_fp12_pow_vartime(&t, &e, czk_fr_modulus, 4);
  CHECK(czk_fp12_is_one(&t));

  /* bilinearity on random points and scalars: e(aP, bQ) = e(P, Q)^(ab) */
  for (int it = 0; it < 2; it++) {
    czk_g1 pj, apj;
    czk_g2 qj, bqj;
    g1_rand_point(&pj, g);
    g2_rand_point(&qj, g);
    czk_g1_to_affine(&p1, &pj);
    czk_g2_to_affine(&q2, &qj);
    czk_fr a, b, ab;
    rand_fr(&a, g);
    rand_fr(&b, g);
    czk_fr_mul(&ab, &a, &b);
    czk_g1_mul(&apj, &pj, &a);
    czk_g2_mul(&bqj, &qj, &b);
    czk_g1_affine ap;
    czk_g2_affine bq;
    czk_g1_to_affine(&ap, &apj);
    czk_g2_to_affine(&bq, &bqj);
    czk_pairing(&e, &p1, &q2);
    czk_pairing(&e2, &ap, &bq);
    uint64_t abr[4];
    czk_fr_to_raw(abr, &ab);
    czk_fp12_pow_vartime(&e3, &e, abr, 4);
    CHECK(czk_fp12_eq(&e2, &e3));
    CHECK(!czk_fp12_eq(&e2, &e));
    czk_fp12_pow_vartime(&t, &e, czk_fr_modulus, 4);
    CHECK(czk_fp12_is_one(&t));
    /* e(aP, Q) e(-P, aQ) = 1 and the product check sees it; with b instead of a it does not hold */
    czk_g2 aqj;
    czk_g2_mul(&aqj, &qj, &a);
    czk_g1_affine pp[3], np;
    czk_g2_affine qq[3];
    czk_g1_affine_neg(&np, &p1);
    pp[0] = ap;
    qq[0] = q2;
    pp[1] = np;
    czk_g2_to_affine(&qq[1], &aqj);
    CHECK(czk_pairing_product_is_one(pp, qq, 2));
    pp[2] = g1; /* a pair with infinity contributes 1 */
    qq[2] = ninf2;
    CHECK(czk_pairing_product_is_one(pp, qq, 3));
    qq[1] = bq;
    CHECK(!czk_pairing_product_is_one(pp, qq, 2));
    /* multi-pairing = product of single pairings */
    czk_fp12 f, m;
    czk_miller_loop_n(&f, pp, qq, 3);
    czk_final_exponentiation(&m, &f);
    czk_pairing(&e, &pp[0], &qq[0]);
    czk_pairing(&e2, &pp[1], &qq[1]);
    czk_fp12_mul(&e, &e, &e2);
    CHECK(czk_fp12_eq(&m, &e));
  }
  /* infinity in either argument gives 1 */
  czk_pairing(&e, &ninf1, &g2);
  CHECK(czk_fp12_is_one(&e));
  czk_pairing(&e, &g1, &ninf2);
  CHECK(czk_fp12_is_one(&e));
  czk_miller_loop_n(&e, NULL, NULL, 0);
  CHECK(czk_fp12_is_one(&e));
  /* more pairs than one Miller-loop chunk (16): sum_i a_i b_i = 0 with pairs (a_i G1, b_i G2) */
  enum { NP = 18 };
  czk_g1_affine pp[NP];
  czk_g2_affine qq[NP];
  czk_fr acc;
  czk_fr_set_zero(&acc);
  czk_g1 g1j;
  czk_g2 g2j;
  czk_g1_generator(&g1j);
  czk_g2_generator(&g2j);
  for (int i = 0; i < NP; i++) {
    czk_fr a, b, ab;
    rand_fr(&a, g);
    if (i < NP - 1) {
      rand_fr(&b, g);
      czk_fr_mul(&ab, &a, &b);
      czk_fr_add(&acc, &acc, &ab);
    } else { /* a b = -acc */
      czk_fr ai;
      czk_fr_inv(&ai, &a);
      czk_fr_neg(&b, &acc);
      czk_fr_mul(&b, &b, &ai);
    }
    czk_g1 pj;
    czk_g2 qj;
    czk_g1_mul(&pj, &g1j, &a);
    czk_g2_mul(&qj, &g2j, &b);
    czk_g1_to_affine(&pp[i], &pj);
    czk_g2_to_affine(&qq[i], &qj);
  }
  CHECK(czk_pairing_product_is_one(pp, qq, NP));
  czk_g1_affine_neg(&pp[3], &pp[3]);
  CHECK(!czk_pairing_product_is_one(pp, qq, NP));
}

int main(void) {
  czk_test_rng rng;
  czk_test_rng_seed(&rng, 0x637572766531ULL);
  init_consts();
  g1_test_group_laws(&rng, 6);
  g2_test_group_laws(&rng, 4);
  g1_test_scalar_mul(&rng, 6);
  g2_test_scalar_mul(&rng, 3);
  g1_test_batch_affine(&rng);
  g2_test_batch_affine(&rng);
  g1_test_affine_batch_add(&rng);
  g2_test_affine_batch_add(&rng);
  {
    static const unsigned w1[] = {16, 1, 2, 5, 8, 12, 13};
    static const unsigned w2[] = {7, 1, 4, 9, 16};
    g1_test_fixed_base_batch(&rng, w1, 7, 2600);
    g2_test_fixed_base_batch(&rng, w2, 5, 1100);
  }
  g1_test_subgroup(&rng, 8);
  g2_test_subgroup(&rng, 4);
  test_codec_g1(&rng);
  test_codec_g2(&rng);
  test_sparse_mul(&rng);
  test_pairing(&rng);
  test_filecoin_proofs(&rng);
  return czk_test_done("test_curve");
}
