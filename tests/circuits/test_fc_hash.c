/* test_fc_hash.c: Filecoin hashing primitives (czk/hash.h) natively against the published vectors.
 *   - SHA-256: FIPS 180-4 vectors, streaming in random splits, truncated digests;
 *   - Poseidon: every digest of poseidon-vectors.json (MerkleTree and ConstantLength(4), Standard and Strengthened,
 *     arities 2..36), neptune's round-number tables, the optimized permutation vs the textbook one, domain tags.
 * fr32, comm_d and the trees built on these hashes are tested in tests/filecoin/test_fc_native.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/hash.h"
#include "czk_test.h"

static void fr_from_limbs(czk_fr *r, const uint64_t l[4]) { CHECK(czk_fr_from_raw(r, l) == CZK_OK); }

static void hex_to_bytes(uint8_t *out, const char *hex, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1);
    out[i] = (uint8_t)v;
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

int main(void) {
  test_sha256();
  test_poseidon_params();
  test_poseidon_vectors();
  return czk_test_done("test_fc_hash");
}
