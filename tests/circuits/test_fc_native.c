/* test_fc_native.c: Filecoin primitives natively against the published vectors.
 *   - fr32: lengths, round trips, and padding against a bit-by-bit model (bit i of the stream -> bit i + 2*floor(i/254));
 *   - SHA-256: FIPS 180-4 vectors, streaming in random splits, truncated digests;
 *   - comm_d of all-zero 128 B and 2 KiB sectors (VECTORS.md), comm_d of random data vs an explicit tree;
 *   - Poseidon: every digest of poseidon-vectors.json (MerkleTree and ConstantLength(4), Standard and Strengthened,
 *     arities 2..36), neptune's round-number tables, the optimized permutation vs the textbook one, domain tags;
 *   - filecoin-hashers vectors: node(1, 0), the root over [1, 0, 0, 1], hash_md over 71 x ONE;
 *   - Merkle trees (sector shapes), inclusion proofs accepted, and rejected when any byte or the index is changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/filecoin.h"
#include "czk_test.h"

static void fr_from_limbs(czk_fr *r, const uint64_t l[4]) { CHECK(czk_fr_from_raw(r, l) == CZK_OK); }

static void hex_to_bytes(uint8_t *out, const char *hex, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1);
    out[i] = (uint8_t)v;
  }
}

/* ------------------------------------------------------------------------------------------------ fr32 */
static int bit_get(const uint8_t *p, uint64_t i) { return (p[i >> 3] >> (i & 7)) & 1; }

static void test_fr32(void) {
  CHECK_EQ_INT(czk_fr32_padded_len(0), 0);
  CHECK_EQ_INT(czk_fr32_padded_len(1), 1);
  CHECK_EQ_INT(czk_fr32_padded_len(32), 33);
  CHECK_EQ_INT(czk_fr32_padded_len(40), 41);
  CHECK_EQ_INT(czk_fr32_padded_len(127), 128);
  CHECK_EQ_INT(czk_fr32_padded_len(2032), 2048);
  CHECK_EQ_INT(czk_fr32_padded_len(UINT64_C(34091302912)), UINT64_C(34359738368)); /* 32 GiB sector */
  CHECK_EQ_INT(czk_fr32_unpadded_len(128), 127);
  CHECK_EQ_INT(czk_fr32_unpadded_len(2048), 2032);
  CHECK_EQ_INT(czk_fr32_unpadded_len(41), 40);
  for (uint64_t n = 0; n < 2000; n++) CHECK_EQ_INT(czk_fr32_unpadded_len(czk_fr32_padded_len(n)), n);

  /* 127 bytes of 0xff: four elements of 31 x 0xff then 0x3f. */
  uint8_t ones[127], pad[128];
  memset(ones, 0xff, sizeof ones);
  czk_fr32_pad(pad, ones, sizeof ones);
  for (int i = 0; i < 128; i++) CHECK(pad[i] == (i % 32 == 31 ? 0x3f : 0xff));

  czk_test_rng rng;
  czk_test_rng_seed(&rng, 32);
  static uint8_t in[1100], out[1200], back[1100];
  for (int it = 0; it < 300; it++) {
    size_t n = (size_t)(czk_test_rng_next(&rng) % 1100);
    czk_test_rng_bytes(&rng, in, n);
    uint64_t pn = czk_fr32_padded_len(n);
    memset(out, 0xa5, sizeof out);
    czk_fr32_pad(out, in, n);
    CHECK(out[pn] == 0xa5); /* nothing written past the end */
    int bad = 0;
    for (uint64_t i = 0; i < (uint64_t)n * 8; i++)
      if (bit_get(out, i + 2 * (i / 254)) != bit_get(in, i)) bad++;
    for (uint64_t e = 0; e < pn / 32; e++) bad += (out[32 * e + 31] >> 6) != 0;
    CHECK_MSG(bad == 0, "n=%zu: %d bits differ from the model", n, bad);
    memset(back, 0x5a, sizeof back);
    czk_fr32_unpad(back, out, pn);
    CHECK(memcmp(back, in, n) == 0);
    CHECK(back[n] == 0x5a);
  }
}

/* ------------------------------------------------------------------------------------------------ SHA-256 */
static void test_sha256(void) {
  uint8_t d[32], e[32];
  czk_sha256(d, "", 0);
  hex_to_bytes(e, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", 32);
  CHECK(memcmp(d, e, 32) == 0);
  czk_sha256(d, "abc", 3);
  hex_to_bytes(e, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 32);
  CHECK(memcmp(d, e, 32) == 0);
  const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  czk_sha256(d, m448, strlen(m448));
  hex_to_bytes(e, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", 32);
  CHECK(memcmp(d, e, 32) == 0);
  const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrst"
                     "nopqrstu";
  czk_sha256(d, m896, strlen(m896));
  hex_to_bytes(e, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1", 32);
  CHECK(memcmp(d, e, 32) == 0);
  static uint8_t mil[1000000];
  memset(mil, 'a', sizeof mil);
  czk_sha256(d, mil, sizeof mil);
  hex_to_bytes(e, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", 32);
  CHECK(memcmp(d, e, 32) == 0);

  /* Streaming with random splits. */
  czk_test_rng rng;
  czk_test_rng_seed(&rng, 256);
  static uint8_t buf[3000];
  for (int it = 0; it < 100; it++) {
    size_t n = (size_t)(czk_test_rng_next(&rng) % sizeof buf);
    czk_test_rng_bytes(&rng, buf, n);
    czk_sha256(d, buf, n);
    czk_sha256_ctx c;
    czk_sha256_init(&c);
    for (size_t off = 0; off < n;) {
      size_t k = (size_t)(czk_test_rng_next(&rng) % 130);
      if (k > n - off) k = n - off;
      czk_sha256_update(&c, buf + off, k);
      off += k;
    }
    czk_sha256_final(&c, e);
    CHECK(memcmp(d, e, 32) == 0);
    /* Truncated variant and the 2-to-1 node. */
    uint8_t t[32];
    czk_fc_sha256(t, buf, n);
    CHECK(memcmp(t, d, 31) == 0 && t[31] == (d[31] & 0x3f));
    if (n >= 64) {
      czk_fc_sha256_node(t, buf, buf + 32);
      czk_fc_sha256(e, buf, 64);
      CHECK(memcmp(t, e, 32) == 0);
    }
  }
}

/* ------------------------------------------------------------------------------------------------ comm_d */
static void test_comm_d(void) {
  uint8_t d[32], e[32];
  static const uint8_t zero2k[32] = {252, 126, 146, 130, 150, 229, 22,  250, 173, 233, 134, 178, 143, 146, 212, 74,
                                     79,  36,  185, 53,  72,  82,  35,  55,  106, 121, 144, 39,  188, 24,  248, 51};
  hex_to_bytes(e, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333", 32);
  CHECK(czk_fc_comm_d(d, NULL, 0, 128) == CZK_OK);
  CHECK(memcmp(d, e, 32) == 0);
  czk_fc_sha256_zero_root(d, 2);
  CHECK(memcmp(d, e, 32) == 0);
  CHECK(czk_fc_comm_d(d, NULL, 0, 2048) == CZK_OK);
  CHECK(memcmp(d, zero2k, 32) == 0);
  static uint8_t zeros[2032];
  CHECK(czk_fc_comm_d(d, zeros, sizeof zeros, 0) == CZK_OK); /* 2032 unpadded bytes make a 2 KiB sector */
  CHECK(memcmp(d, zero2k, 32) == 0);
  czk_fc_sha256_zero_root(d, 6);
  CHECK(memcmp(d, zero2k, 32) == 0);
  CHECK(czk_fc_comm_d(d, zeros, sizeof zeros, 1024) == CZK_ERR_INVALID_ARG); /* does not fit */
  CHECK(czk_fc_comm_d(d, zeros, 10, 1000) == CZK_ERR_INVALID_ARG);          /* not a power of two */
  CHECK(czk_fc_comm_d(d, zeros, 10, 64) == CZK_ERR_INVALID_ARG);            /* below the minimum piece */

  /* Random data, zero-filled: equals an explicit binary SHA tree over the padded, zero-extended bytes. */
  czk_test_rng rng;
  czk_test_rng_seed(&rng, 4);
  static uint8_t data[3000], padded[8192];
  for (int it = 0; it < 6; it++) {
    size_t n = (size_t)(czk_test_rng_next(&rng) % sizeof data) + 1;
    czk_test_rng_bytes(&rng, data, n);
    uint64_t size = it < 3 ? 0 : 8192;
    CHECK(czk_fc_comm_d(d, data, n, size) == CZK_OK);
    uint64_t pn = czk_fr32_padded_len(n), total = 128;
    while (total < pn) total <<= 1;
    if (size) total = size;
    memset(padded, 0, sizeof padded);
    czk_fr32_pad(padded, data, n);
    czk_fc_tree *t = NULL;
    CHECK(czk_fc_tree_build(&t, CZK_FC_SHA256, padded, total / 32, 2, 0, 0) == CZK_OK);
    if (t) {
      czk_fc_tree_root(t, e);
      CHECK(memcmp(d, e, 32) == 0);
      czk_fc_tree_free(t);
    }
  }
}

/* ------------------------------------------------------------------------------------------------ Poseidon */
/* Reads the 4 limbs of `arity` in `section` of poseidon-vectors.json; false when absent. */
static bool json_digest(const char *json, const char *section, unsigned arity, uint64_t limbs[4]) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\"", section);
  const char *s = strstr(json, key);
  if (!s) return false;
  const char *end = strchr(s + strlen(key), '}'); /* the digests object closes first */
  snprintf(key, sizeof key, "\"%u\": [", arity);
  const char *p = strstr(s, key);
  if (!p || (end && p > end)) return false;
  p += strlen(key);
  for (int i = 0; i < 4; i++) {
    p = strstr(p, "\"0x");
    if (!p) return false;
    limbs[i] = strtoull(p + 1, NULL, 16);
    p += 3;
  }
  return true;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  if (b) b[n] = 0;
  fclose(f);
  return b;
}

static const unsigned k_arities[] = {2, 4, 8, 11, 16, 24, 36};

static void test_poseidon_vectors(void) {
  char *json = read_file(czk_test_shared_path("fixtures/filecoin/poseidon-vectors.json"));
  CHECK_MSG(json != NULL, "cannot read poseidon-vectors.json");
  if (!json) return;
  int checked = 0;
  for (int strength = 0; strength < 2; strength++)
    for (size_t ai = 0; ai < CZK_ARRAY_LEN(k_arities); ai++) {
      unsigned a = k_arities[ai];
      const czk_poseidon *p;
      CHECK(czk_poseidon_get(&p, a, (czk_poseidon_strength)strength) == CZK_OK);
      czk_fr in[36], out, want;
      for (unsigned i = 0; i < 36; i++) czk_fr_from_u64(&in[i], i);
      uint64_t limbs[4];
      const char *merkle = strength ? "merkle_tree_strengthened" : "merkle_tree_standard";
      CHECK_MSG(json_digest(json, merkle, a, limbs), "%s %u missing", merkle, a);
      fr_from_limbs(&want, limbs);
      CHECK(czk_poseidon_hash(&out, p, CZK_POSEIDON_MERKLE_TREE, 0, in, a) == CZK_OK);
      CHECK_MSG(czk_fr_eq(&out, &want), "MerkleTree arity %u strength %d", a, strength);
      checked++;
      const char *cl = strength ? "constant_length_4_strengthened" : "constant_length_4_standard";
      if (json_digest(json, cl, a, limbs)) {
        fr_from_limbs(&want, limbs);
        CHECK(czk_poseidon_hash(&out, p, CZK_POSEIDON_CONSTANT_LENGTH, 4, in, 4) == CZK_OK);
        CHECK_MSG(czk_fr_eq(&out, &want), "ConstantLength(4) arity %u strength %d", a, strength);
        checked++;
      } else {
        CHECK_MSG(strength == 1 && a > 8, "%s %u missing", cl, a);
      }
    }
  CHECK_EQ_INT(checked, 7 + 7 + 7 + 3); /* every digest in the file */
  free(json);
}

static void test_poseidon_params(void) {
  /* neptune round_numbers.rs: (t, R_P) with the margin, R_F = 8; lib.rs: Strengthened (arity, R_P). */
  static const unsigned std_cases[][2] = {{2, 55},  {3, 55},  {4, 56},  {5, 56},  {6, 56},  {7, 56},  {8, 57},
                                          {9, 57},  {10, 57}, {11, 57}, {12, 57}, {13, 57}, {14, 57}, {15, 57},
                                          {16, 59}, {17, 59}, {25, 59}, {37, 60}, {65, 61}};
  for (size_t i = 0; i < CZK_ARRAY_LEN(std_cases); i++) {
    unsigned rf = 0, rp = 0;
    CHECK(czk_poseidon_round_numbers(std_cases[i][0] - 1, CZK_POSEIDON_STANDARD, &rf, &rp) == CZK_OK);
    CHECK_EQ_INT(rf, 8);
    CHECK_MSG(rp == std_cases[i][1], "t=%u: R_P %u != %u", std_cases[i][0], rp, std_cases[i][1]);
  }
  static const unsigned str_cases[][2] = {{1, 69},  {2, 69},  {3, 70},  {4, 70},  {5, 70},
                                          {6, 70},  {7, 72},  {8, 72},  {9, 72},  {10, 72},
                                          {11, 72}, {16, 74}, {24, 74}, {36, 75}, {64, 77}};
  for (size_t i = 0; i < CZK_ARRAY_LEN(str_cases); i++) {
    unsigned rf = 0, rp = 0;
    CHECK(czk_poseidon_round_numbers(str_cases[i][0], CZK_POSEIDON_STRENGTHENED, &rf, &rp) == CZK_OK);
    CHECK_EQ_INT(rf, 8);
    CHECK_MSG(rp == str_cases[i][1], "arity %u strengthened: R_P %u != %u", str_cases[i][0], rp, str_cases[i][1]);
  }

  /* Domain tags (neptune hash_type.rs tests). */
  czk_fr tag, want;
  uint64_t l[4] = {0xff, 0, 0, 0};
  CHECK(czk_poseidon_domain_tag(&tag, CZK_POSEIDON_MERKLE_TREE, 0, 8) == CZK_OK);
  fr_from_limbs(&want, l);
  CHECK(czk_fr_eq(&tag, &want));
  for (uint64_t n = 1; n < 15; n++) {
    uint64_t c[4] = {0, n, 0, 0};
    CHECK(czk_poseidon_domain_tag(&tag, CZK_POSEIDON_CONSTANT_LENGTH, n, 15) == CZK_OK);
    fr_from_limbs(&want, c);
    CHECK(czk_fr_eq(&tag, &want));
  }
  uint64_t enc[4] = {UINT64_C(1) << 32, 0, 0, 0};
  CHECK(czk_poseidon_domain_tag(&tag, CZK_POSEIDON_ENCRYPTION, 0, 8) == CZK_OK);
  fr_from_limbs(&want, enc);
  CHECK(czk_fr_eq(&tag, &want));
  for (uint64_t id = 1; id <= 256; id++) {
    uint64_t c[4] = {UINT64_C(0x10000000000) * id, 0, 0, 0};
    CHECK(czk_poseidon_domain_tag(&tag, CZK_POSEIDON_CUSTOM, id, 8) == CZK_OK);
    fr_from_limbs(&want, c);
    CHECK(czk_fr_eq(&tag, &want));
  }
  CHECK(czk_poseidon_domain_tag(&tag, CZK_POSEIDON_CUSTOM, 0, 8) == CZK_ERR_INVALID_ARG);
  CHECK(czk_poseidon_domain_tag(&tag, CZK_POSEIDON_CUSTOM, 257, 8) == CZK_ERR_INVALID_ARG);
  CHECK(czk_poseidon_domain_tag(&tag, CZK_POSEIDON_SPONGE, 0, 8) == CZK_OK && czk_fr_is_zero(&tag));

  /* Optimized schedule == textbook schedule on random states, both strengths, Filecoin's arities and a few more. */
  static const unsigned perm_arities[] = {1, 2, 3, 4, 5, 7, 8, 11, 16, 24, 36};
  czk_test_rng rng;
  czk_test_rng_seed(&rng, 5);
  for (size_t ai = 0; ai < CZK_ARRAY_LEN(perm_arities); ai++)
    for (int s = 0; s < 2; s++) {
      unsigned a = perm_arities[ai];
      const czk_poseidon *p;
      CHECK(czk_poseidon_get(&p, a, (czk_poseidon_strength)s) == CZK_OK);
      CHECK_EQ_INT(czk_poseidon_arity(p), a);
      czk_fr x[37], y[37];
      for (unsigned i = 0; i <= a; i++) {
        uint8_t b[64];
        czk_test_rng_bytes(&rng, b, sizeof b);
        czk_fr_from_bytes_wide_le(&x[i], b, sizeof b);
        y[i] = x[i];
      }
      czk_poseidon_permute(p, x);
      czk_poseidon_permute_reference(p, y);
      bool same = true;
      for (unsigned i = 0; i <= a; i++) same = same && czk_fr_eq(&x[i], &y[i]);
      CHECK_MSG(same, "arity %u strength %d: optimized != reference", a, s);
    }

  /* Sponge: ConstantLength(n) for n <= arity equals one permutation of [tag, in, 0...]; wrong sizes rejected. */
  const czk_poseidon *p8;
  CHECK(czk_poseidon_get(&p8, 8, CZK_POSEIDON_STANDARD) == CZK_OK);
  czk_fr in[20], out, st[9];
  for (int i = 0; i < 20; i++) czk_fr_from_u64(&in[i], (uint64_t)(1000 + 7 * i));
  for (unsigned n = 1; n <= 8; n++) {
    CHECK(czk_poseidon_hash(&out, p8, CZK_POSEIDON_CONSTANT_LENGTH, n, in, n) == CZK_OK);
    CHECK(czk_poseidon_domain_tag(&st[0], CZK_POSEIDON_CONSTANT_LENGTH, n, 8) == CZK_OK);
    for (unsigned i = 1; i <= 8; i++) {
      if (i <= n)
        st[i] = in[i - 1];
      else
        czk_fr_set_zero(&st[i]);
    }
    czk_poseidon_permute_reference(p8, st);
    CHECK(czk_fr_eq(&out, &st[1]));
  }
  /* n = 20 > arity: three permutations (8 + 8 + 4, the last block zero-padded). */
  CHECK(czk_poseidon_hash(&out, p8, CZK_POSEIDON_CONSTANT_LENGTH, 20, in, 20) == CZK_OK);
  CHECK(czk_poseidon_domain_tag(&st[0], CZK_POSEIDON_CONSTANT_LENGTH, 20, 8) == CZK_OK);
  for (unsigned i = 1; i <= 8; i++) czk_fr_set_zero(&st[i]);
  for (unsigned blk = 0; blk < 3; blk++) {
    for (unsigned i = 0; i < 8; i++) {
      unsigned k = blk * 8 + i;
      if (k < 20)
        czk_fr_add(&st[1 + i], &st[1 + i], &in[k]);
      else
        czk_fr_set_zero(&st[1 + i]);
    }
    czk_poseidon_permute_reference(p8, st);
  }
  CHECK(czk_fr_eq(&out, &st[1]));
  CHECK(czk_poseidon_hash(&out, p8, CZK_POSEIDON_CONSTANT_LENGTH, 5, in, 4) == CZK_ERR_SIZE_MISMATCH);
  CHECK(czk_poseidon_hash(&out, p8, CZK_POSEIDON_MERKLE_TREE, 0, in, 7) == CZK_ERR_SIZE_MISMATCH);
  CHECK(czk_poseidon_hash(&out, p8, CZK_POSEIDON_SPONGE, 0, in, 8) == CZK_ERR_UNSUPPORTED);
  const czk_poseidon *bad;
  CHECK(czk_poseidon_get(&bad, 0, CZK_POSEIDON_STANDARD) == CZK_ERR_INVALID_ARG);
  CHECK(czk_poseidon_get(&bad, 37, CZK_POSEIDON_STANDARD) == CZK_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------------------------------------------ filecoin-hashers */
static void fr_bytes(uint8_t out[32], uint64_t v) {
  czk_fr x;
  czk_fr_from_u64(&x, v);
  czk_fr_to_bytes_le(out, &x);
}

static void limbs_bytes(uint8_t out[32], const uint64_t l[4]) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(l[i] >> (8 * j));
}

static void test_filecoin_hashers(void) {
  uint8_t leaves[4][32], node[32], want[32];
  fr_bytes(leaves[0], 1);
  fr_bytes(leaves[1], 0);
  fr_bytes(leaves[2], 0);
  fr_bytes(leaves[3], 1);
  static const uint64_t n10[4] = {0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3};
  static const uint64_t rt[4] = {0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb};
  CHECK(czk_fc_node_hash(CZK_FC_POSEIDON, node, &leaves[0][0], 2) == CZK_OK);
  limbs_bytes(want, n10);
  CHECK(memcmp(node, want, 32) == 0);
  czk_fc_tree *t = NULL;
  CHECK(czk_fc_tree_build(&t, CZK_FC_POSEIDON, &leaves[0][0], 4, 2, 0, 0) == CZK_OK);
  limbs_bytes(want, rt);
  if (t) {
    czk_fc_tree_root(t, node);
    CHECK(memcmp(node, want, 32) == 0);
    czk_fc_tree_free(t);
  }
  czk_fc_stream *s = malloc(sizeof *s);
  CHECK(czk_fc_stream_init(s, CZK_FC_POSEIDON, 2) == CZK_OK);
  for (int i = 0; i < 4; i++) CHECK(czk_fc_stream_push(s, leaves[i]) == CZK_OK);
  CHECK(czk_fc_stream_root(s, node) == CZK_OK);
  CHECK(memcmp(node, want, 32) == 0);
  free(s);

  czk_fr ones[71], md, mdw;
  for (int i = 0; i < 71; i++) czk_fr_set_one(&ones[i]);
  static const uint64_t mdl[4] = {0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7};
  CHECK(czk_fc_poseidon_hash_md(&md, ones, 71) == CZK_OK);
  fr_from_limbs(&mdw, mdl);
  CHECK(czk_fr_eq(&md, &mdw));
  CHECK(czk_fc_poseidon_hash_md(&md, ones, 1) == CZK_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------------------------------------------ trees + proofs */
static void random_leaves(czk_test_rng *rng, uint8_t *out, uint64_t n, czk_fc_hasher h) {
  for (uint64_t i = 0; i < n; i++) {
    uint8_t b[64];
    czk_test_rng_bytes(rng, b, sizeof b);
    if (h == CZK_FC_POSEIDON) {
      czk_fr x;
      czk_fr_from_bytes_wide_le(&x, b, sizeof b);
      czk_fr_to_bytes_le(out + 32 * i, &x);
    } else {
      memcpy(out + 32 * i, b, 32);
    }
  }
}

static void check_tree(czk_test_rng *rng, czk_fc_hasher h, unsigned base, unsigned sub, unsigned top, uint64_t n) {
  uint8_t *leaves = malloc((size_t)n * 32);
  random_leaves(rng, leaves, n, h);
  czk_fc_tree *t = NULL;
  CHECK(czk_fc_tree_build(&t, h, leaves, n, base, sub, top) == CZK_OK);
  if (!t) {
    free(leaves);
    return;
  }
  uint8_t root[32];
  czk_fc_tree_root(t, root);
  CHECK_EQ_INT(czk_fc_tree_leaves(t), n);

  /* Independent root: base roots by streaming, then the sub and top nodes by hand. */
  unsigned groups = (sub ? sub : 1) * (top ? top : 1);
  uint64_t per = n / groups;
  uint8_t roots[64][32];
  czk_fc_stream *s = malloc(sizeof *s);
  for (unsigned g = 0; g < groups; g++) {
    CHECK(czk_fc_stream_init(s, h, base) == CZK_OK);
    for (uint64_t i = 0; i < per; i++) CHECK(czk_fc_stream_push(s, leaves + 32 * (g * per + i)) == CZK_OK);
    CHECK(czk_fc_stream_root(s, roots[g]) == CZK_OK);
  }
  free(s);
  unsigned m = groups;
  if (sub) {
    for (unsigned g = 0; g < m / sub; g++) CHECK(czk_fc_node_hash(h, roots[g], &roots[g * sub][0], sub) == CZK_OK);
    m /= sub;
  }
  if (top) CHECK(czk_fc_node_hash(h, roots[0], &roots[0][0], top) == CZK_OK);
  CHECK_MSG(memcmp(roots[0], root, 32) == 0, "tree <%u,%u,%u> root differs", base, sub, top);

  czk_fc_path_level path[CZK_FC_MAX_PATH];
  for (int k = 0; k < 12; k++) {
    uint64_t idx = k == 0 ? 0 : k == 1 ? n - 1 : czk_test_rng_next(rng) % n;
    size_t nl = 0;
    CHECK(czk_fc_tree_prove(t, idx, path, &nl) == CZK_OK);
    CHECK_EQ_INT(czk_fc_path_leaf_index(path, nl), idx);
    CHECK(czk_fc_merkle_verify(h, root, leaves + 32 * idx, path, nl) == CZK_OK);
    /* Flip one bit of a sibling (keeping Poseidon nodes canonical: a low bit), of the leaf, or move the index. */
    size_t l = (size_t)(czk_test_rng_next(rng) % nl);
    unsigned sib = (unsigned)(czk_test_rng_next(rng) % (path[l].arity - 1));
    path[l].siblings[sib][0] ^= 1;
    CHECK(czk_fc_merkle_verify(h, root, leaves + 32 * idx, path, nl) == CZK_ERR_VERIFY_FAILED);
    path[l].siblings[sib][0] ^= 1;
    uint8_t leaf[32];
    memcpy(leaf, leaves + 32 * idx, 32);
    leaf[5] ^= 0x10;
    CHECK(czk_fc_merkle_verify(h, root, leaf, path, nl) == CZK_ERR_VERIFY_FAILED);
    path[l].index = (path[l].index + 1) % path[l].arity;
    CHECK(czk_fc_merkle_verify(h, root, leaves + 32 * idx, path, nl) == CZK_ERR_VERIFY_FAILED);
    path[l].index = path[l].arity;
    CHECK(czk_fc_merkle_verify(h, root, leaves + 32 * idx, path, nl) == CZK_ERR_INVALID_ARG);
  }
  CHECK(czk_fc_tree_prove(t, n, path, &(size_t){0}) == CZK_ERR_INVALID_ARG);
  czk_fc_tree_free(t);
  free(leaves);
}

static void test_trees(void) {
  czk_test_rng rng;
  czk_test_rng_seed(&rng, 8);
  check_tree(&rng, CZK_FC_POSEIDON, 8, 0, 0, 64);   /* 2 KiB sector shape: <8, 0, 0> */
  check_tree(&rng, CZK_FC_POSEIDON, 8, 2, 0, 128);  /* <8, 2, 0> */
  check_tree(&rng, CZK_FC_POSEIDON, 8, 8, 0, 512);  /* 32 GiB shape <8, 8, 0> */
  check_tree(&rng, CZK_FC_POSEIDON, 8, 8, 2, 1024); /* 64 GiB shape <8, 8, 2> */
  check_tree(&rng, CZK_FC_POSEIDON, 2, 0, 0, 32);
  check_tree(&rng, CZK_FC_POSEIDON, 4, 0, 0, 64);
  check_tree(&rng, CZK_FC_SHA256, 2, 0, 0, 256);
  check_tree(&rng, CZK_FC_SHA256, 8, 0, 0, 64);

  /* Shape errors. */
  uint8_t leaves[64 * 32] = {0};
  czk_fc_tree *t = NULL;
  CHECK(czk_fc_tree_build(&t, CZK_FC_POSEIDON, leaves, 48, 8, 0, 0) == CZK_ERR_SIZE_MISMATCH);
  CHECK(czk_fc_tree_build(&t, CZK_FC_POSEIDON, leaves, 64, 8, 0, 2) == CZK_ERR_INVALID_ARG);
  CHECK(czk_fc_tree_build(&t, CZK_FC_POSEIDON, leaves, 8, 8, 2, 0) == CZK_ERR_SIZE_MISMATCH);
  /* A non-canonical Poseidon leaf is rejected (the reference panics). */
  memset(leaves + 32 * 3, 0xff, 32);
  CHECK(czk_fc_tree_build(&t, CZK_FC_POSEIDON, leaves, 64, 8, 0, 0) == CZK_ERR_NOT_CANONICAL);
  CHECK(t == NULL);

  /* Streaming with a zero tail == explicit zero leaves (Poseidon octree and SHA binary). */
  for (int h = 0; h < 2; h++) {
    czk_fc_hasher hh = h ? CZK_FC_SHA256 : CZK_FC_POSEIDON;
    unsigned a = h ? 2 : 8;
    uint64_t total = h ? 512 : 512;
    czk_fc_stream *s1 = malloc(sizeof *s1), *s2 = malloc(sizeof *s2);
    CHECK(czk_fc_stream_init(s1, hh, a) == CZK_OK);
    CHECK(czk_fc_stream_init(s2, hh, a) == CZK_OK);
    uint8_t leaf[32], zero[32] = {0}, r1[32], r2[32];
    for (int i = 0; i < 77; i++) {
      random_leaves(&rng, leaf, 1, hh);
      CHECK(czk_fc_stream_push(s1, leaf) == CZK_OK);
      CHECK(czk_fc_stream_push(s2, leaf) == CZK_OK);
    }
    CHECK(czk_fc_stream_root(s1, r1) == CZK_ERR_STATE);
    CHECK(czk_fc_stream_fill_zero(s1, 500) == CZK_ERR_INVALID_ARG);
    CHECK(czk_fc_stream_fill_zero(s1, total) == CZK_OK);
    for (uint64_t i = 77; i < total; i++) CHECK(czk_fc_stream_push(s2, zero) == CZK_OK);
    CHECK(czk_fc_stream_root(s1, r1) == CZK_OK);
    CHECK(czk_fc_stream_root(s2, r2) == CZK_OK);
    CHECK(memcmp(r1, r2, 32) == 0);
    free(s1);
    free(s2);
  }
}

int main(void) {
  test_fr32();
  test_sha256();
  test_comm_d();
  test_poseidon_params();
  test_poseidon_vectors();
  test_filecoin_hashers();
  test_trees();
  return czk_test_done("test_fc_native");
}
