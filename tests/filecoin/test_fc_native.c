/* test_fc_native.c: Filecoin natives (czk/filecoin.h) against the published vectors.
 *   - fr32: lengths, round trips, and padding against a bit-by-bit model (bit i of the stream -> bit i + 2*floor(i/254));
 *   - comm_d of all-zero 128 B and 2 KiB sectors (VECTORS.md), comm_d of random data vs an explicit tree;
 *   - filecoin-hashers vectors: node(1, 0), the root over [1, 0, 0, 1], hash_md over 71 x ONE;
 *   - Merkle trees (sector shapes), inclusion proofs accepted, and rejected when any byte or the index is changed.
 * SHA-256 and Poseidon themselves are tested in tests/circuits/test_fc_hash.c. */
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
  test_comm_d();
  test_filecoin_hashers();
  test_trees();
  return czk_test_done("test_fc_native");
}
