/* test_post.c: WinningPoSt / WindowPoSt (filecoin-post.md): the registry and the v28 parameter names of the spec
 * (5.3); the real 32 GiB WindowPoSt vanilla proof from Curio (tests/shared/fixtures/filecoin, 2.5) parsed and
 * re-serialized byte for byte, its paths and comm_r checked natively, its ten derived challenges; the spec's 2 KiB
 * worked example (2.4) rebuilt by the generator; every rejection of a damaged proof; the asserted constraint and input
 * counts by counting synthesis (small sizes and Winning 32 GiB quick; Window 32/64 GiB under `full`); generated
 * dense and sparse proofs satisfy the circuit, whose public inputs equal the independently recomputed ones; a
 * partition built from the real sample (one sector padded to 2,349 slots) satisfies the checker (`full`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/post.h"
#include "czk_test.h"

static bool g_full;

static void unhex(uint8_t *out, const char *hex) {
  for (size_t i = 0; hex[2 * i]; i++) {
    unsigned v;
    sscanf(hex + 2 * i, "%2x", &v);
    out[i] = (uint8_t)v;
  }
}

/* ------------------------------------------------------------------------------------------------ registry */
static void test_registry(void) {
  static const struct {
    uint64_t wire;
    const char *stem_tail;
  } names[] = {
      {0, "8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e"},
      {1, "8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331"},
      {2, "8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781"},
      {3, "8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e"},
      {4, "8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c"},
      {5, "8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0"},
      {6, "8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9"},
      {7, "8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9"},
      {8, "8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc"},
      {9, "8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def"},
      {13, "8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char stem[200], want[200];
    czk_post_param_stem(czk_post_info_by_wire(names[i].wire), stem, sizeof stem);
    snprintf(want, sizeof want, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-%s", names[i].stem_tail);
    CHECK_MSG(strcmp(stem, want) == 0, "wire %llu: %s", (unsigned long long)names[i].wire, stem);
  }
  CHECK(czk_post_info_by_wire(15) == NULL);
  const czk_post_info *w13 = czk_post_info_by_wire(13);
  CHECK(strcmp(w13->name, "StackedDrgWindow32GiBV1_2") == 0 && strcmp(w13->go_name, "StackedDrgWindow32GiBV1_1") == 0);
  CHECK(w13->api_minor == 2 && w13->sector_count == 2349 && w13->sub == 8 && w13->top == 0);
  CHECK(czk_post_info_find(CZK_POST_WINDOW, 64ull << 30, 0) == czk_post_info_by_wire(9));
  CHECK(czk_post_info_find(CZK_POST_WINNING, 2048, 0) == czk_post_info_by_wire(0));
  CHECK(czk_post_info_find(CZK_POST_WINDOW, 4096, 2) == NULL);
  CHECK(strcmp(czk_post_circuit_id(czk_post_info_by_wire(3)), "winning-32g") == 0);
  CHECK(strcmp(czk_post_circuit_id(czk_post_info_by_wire(14)), "wpost-64g") == 0);
  /* vanilla sizes of 2.3 */
  CHECK_EQ_INT(czk_post_vanilla_size(czk_post_info_by_wire(5)), 5680);
  CHECK_EQ_INT(czk_post_vanilla_size(czk_post_info_by_wire(0)), 36816);
  CHECK_EQ_INT(czk_post_vanilla_size(czk_post_info_by_wire(6)), 15280);
  CHECK_EQ_INT(czk_post_vanilla_size(czk_post_info_by_wire(7)), 20080);
  CHECK_EQ_INT(czk_post_vanilla_size(czk_post_info_by_wire(8)), 24960);
  CHECK_EQ_INT(czk_post_vanilla_size(czk_post_info_by_wire(3)), 164064);
  CHECK_EQ_INT(czk_post_vanilla_size(czk_post_info_by_wire(9)), 25520);
  CHECK_EQ_INT(czk_post_vanilla_size(czk_post_info_by_wire(4)), 167760);
  CHECK_EQ_INT(czk_post_levels(czk_post_info_by_wire(9)), 11);
  CHECK_EQ_INT(czk_post_level_arity(czk_post_info_by_wire(9), 10), 2);
}

/* ------------------------------------------------------------------------------------------------ real sample */
static const uint64_t k_real_challenges[10] = {707914199, 439148358, 967788220, 548708700, 1061661429,
                                               6202012,   1055504637, 389535735, 1000069704, 600088878};

static uint8_t *g_real;
static size_t g_real_len;

static void test_real_sample(void) {
  g_real = (uint8_t *)czk_test_read_file(czk_test_shared_path("fixtures/filecoin/window-post-32GiB.vproof"), &g_real_len);
  CHECK(g_real != NULL);
  if (!g_real) return;
  CHECK_EQ_INT(g_real_len, 24960);
  const czk_post_info *info = czk_post_info_by_wire(8);
  czk_post_sector s;
  char err[256];
  CHECK_MSG(czk_post_vanilla_parse(info, g_real, g_real_len, &s, "sector 0", err, sizeof err) == CZK_OK, "%s", err);
  CHECK_EQ_INT(s.sector_id, 1);
  uint8_t want[32];
  unhex(want, "df691086e3c673c95a45908713d4c5938e5ced43f21b888bd9bc6e181c9f326b");
  CHECK(memcmp(s.comm_r, want, 32) == 0);
  unhex(want, "f56b7f7f318d88ac4d72e5d94efd7de7f1df501b98b01a8564fa4cb4983b9e4b");
  CHECK(memcmp(s.comm_r_last, want, 32) == 0);
  unhex(want, "9941e59d24a2a05877558ac5fa1aab256bd12a3e88ef51ee79f58b8d80adb94e");
  CHECK(memcmp(s.comm_c, want, 32) == 0);
  CHECK_EQ_INT(s.openings[0].index[0], 7);
  CHECK_EQ_INT(s.openings[0].index[8], 2);
  CHECK_EQ_INT(s.openings[0].index[9], 5);
  /* byte-exact round trip */
  uint8_t *again = malloc(g_real_len);
  CHECK(czk_post_vanilla_write(info, &s, again, g_real_len) == CZK_OK);
  CHECK(memcmp(again, g_real, g_real_len) == 0);
  free(again);
  /* Curio's TestPoseidonHashMulti: level 0 of opening 0 with the leaf at its index 7 */
  uint8_t group[256], h[32];
  memcpy(group, s.openings[0].sib[0], 7 * 32);
  memcpy(group + 7 * 32, s.openings[0].leaf, 32);
  CHECK(czk_fc_node_hash(CZK_FC_POSEIDON, h, group, 8) == CZK_OK);
  unhex(want, "0737ca506df7d4544f8512df35aaa07ed8a40691e96ae868c23320220fec6866");
  CHECK(memcmp(h, want, 32) == 0);
  /* the ten derived challenges (randomness 0, sector 1, API 1.0, partition 0 slot 0) are the paths' indices */
  uint8_t rnd[32] = {0};
  for (uint32_t n = 0; n < 10; n++) {
    CHECK_EQ_INT(czk_post_challenge(info, rnd, 1, 0, n), k_real_challenges[n]);
    CHECK_EQ_INT(czk_post_opening_index(info, &s.openings[n]), k_real_challenges[n]);
  }
  CHECK_MSG(czk_post_vanilla_check(info, &s, rnd, 0, "sector 0", err, sizeof err) == CZK_OK, "%s", err);
  /* at another position (slot 1 or partition 1) the API 1.0 challenges differ: a clear error naming the challenge;
   * under API 1.2 (wire 13) challenges depend only on n, so the same proof holds at any position */
  CHECK(czk_post_vanilla_check(info, &s, rnd, 1, "sector 0", err, sizeof err) == CZK_ERR_VERIFY_FAILED);
  CHECK_MSG(strstr(err, "challenge 0") && strstr(err, "opens leaf 707914199"), "%s", err);
  CHECK(czk_post_vanilla_check(info, &s, rnd, 2349, "sector 0", err, sizeof err) == CZK_ERR_VERIFY_FAILED);
  CHECK(czk_post_vanilla_check(czk_post_info_by_wire(13), &s, rnd, 2349 + 1, "sector 0", err, sizeof err) == CZK_OK);
  rnd[0] = 1;
  CHECK(czk_post_vanilla_check(info, &s, rnd, 0, "sector 0", err, sizeof err) == CZK_ERR_VERIFY_FAILED);
  czk_post_sector_free(&s);
}

/* Damaged copies of the real sample: each a clear error naming what is wrong. */
static void test_rejects(void) {
  if (!g_real) return;
  const czk_post_info *info = czk_post_info_by_wire(8);
  uint8_t *b = malloc(g_real_len + 8);
  czk_post_sector s;
  char err[256];
  uint8_t rnd[32] = {0};
  /* truncation, anywhere */
  for (size_t cut = 0; cut < g_real_len; cut += 997) {
    CHECK(czk_post_vanilla_parse(info, g_real, cut, &s, "sector 3", err, sizeof err) == CZK_ERR_TRUNCATED);
    CHECK(s.openings == NULL);
  }
  CHECK_MSG(strstr(err, "sector 3") && strstr(err, "truncated"), "%s", err);
  /* trailing bytes */
  memcpy(b, g_real, g_real_len);
  memset(b + g_real_len, 0, 8);
  CHECK(czk_post_vanilla_parse(info, b, g_real_len + 1, &s, "sector 0", err, sizeof err) == CZK_ERR_FORMAT);
  CHECK_MSG(strstr(err, "1 trailing byte"), "%s", err);
  /* wrong shape: the 32 GiB proof read as 2 KiB, 64 GiB or Winning */
  CHECK(czk_post_vanilla_parse(czk_post_info_by_wire(5), g_real, g_real_len, &s, "s", err, sizeof err) == CZK_ERR_FORMAT);
  CHECK_MSG(strstr(err, "tag 1 (Sub)") && strstr(err, "challenge 0"), "%s", err);
  CHECK(czk_post_vanilla_parse(czk_post_info_by_wire(9), g_real, g_real_len, &s, "s", err, sizeof err) ==
        CZK_ERR_TRUNCATED);
  CHECK_MSG(strstr(err, "24960 bytes") && strstr(err, "64GiB") && strstr(err, "25520"), "%s", err);
  CHECK(czk_post_vanilla_parse(czk_post_info_by_wire(3), g_real, g_real_len, &s, "s", err, sizeof err) == CZK_ERR_FORMAT);
  CHECK_MSG(strstr(err, "10 inclusion proofs") && strstr(err, "66"), "%s", err);
  /* sector count, a hashes length, an index >= arity, a wrong tag */
  memcpy(b, g_real, g_real_len);
  b[0x28] = 2;
  CHECK(czk_post_vanilla_parse(info, b, g_real_len, &s, "s", err, sizeof err) == CZK_ERR_FORMAT);
  memcpy(b, g_real, g_real_len);
  b[0x44] = 6;
  CHECK(czk_post_vanilla_parse(info, b, g_real_len, &s, "s", err, sizeof err) == CZK_ERR_FORMAT);
  CHECK_MSG(strstr(err, "challenge 0") && strstr(err, "base level 0 hashes length"), "%s", err);
  memcpy(b, g_real, g_real_len);
  b[0x12c] = 8;
  CHECK(czk_post_vanilla_parse(info, b, g_real_len, &s, "s", err, sizeof err) == CZK_ERR_FORMAT);
  CHECK_MSG(strstr(err, "index 8 is not below the arity 8"), "%s", err);
  memcpy(b, g_real, g_real_len);
  b[0x38] = 2;
  CHECK(czk_post_vanilla_parse(info, b, g_real_len, &s, "s", err, sizeof err) == CZK_ERR_FORMAT);
  /* a non-canonical sibling (all ones) */
  memcpy(b, g_real, g_real_len);
  memset(b + 0x4c, 0xff, 32);
  CHECK(czk_post_vanilla_parse(info, b, g_real_len, &s, "s", err, sizeof err) == CZK_ERR_NOT_CANONICAL);
  CHECK_MSG(strstr(err, "challenge 0") && strstr(err, "sibling 0"), "%s", err);
  /* parses, but fails the native check: a flipped sibling bit, a changed index, comm_c, a root */
  static const struct {
    size_t off;
    const char *needle;
  } bad[] = {{0x4c, "challenge 0: the Merkle path"},
             {0x12c, "challenge 0: the path opens leaf"},
             {0x9ec + 0x4c, "challenge 1: the Merkle path"},
             {0x6140, "H(comm_c, comm_r_last)"},
             {0x9ac, "challenge 0: the opening's root"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memcpy(b, g_real, g_real_len);
    b[bad[i].off] ^= 1;
    CHECK(czk_post_vanilla_parse(info, b, g_real_len, &s, "sector 0", err, sizeof err) == CZK_OK);
    CHECK(czk_post_vanilla_check(info, &s, rnd, 0, "sector 0", err, sizeof err) == CZK_ERR_VERIFY_FAILED);
    CHECK_MSG(strstr(err, bad[i].needle) != NULL, "%s (wanted %s)", err, bad[i].needle);
    czk_post_sector_free(&s);
  }
  free(b);
}

/* ------------------------------------------------------------------------------------------------ spec example */
static void test_spec_example(void) {
  const czk_post_info *info = czk_post_info_by_wire(10); /* 2 KiB Window, API 1.2 */
  uint8_t *leaves = malloc(64 * 32), comm_c[32], rnd[32], msg[15];
  for (uint64_t i = 0; i < 64; i++) {
    memcpy(msg, "replica", 7);
    for (int b = 0; b < 8; b++) msg[7 + b] = (uint8_t)(i >> (8 * b));
    czk_sha256(leaves + 32 * i, msg, 15);
    leaves[32 * i + 31] &= 0x3f;
  }
  czk_sha256(comm_c, "comm_c", 6);
  comm_c[31] &= 0x3f;
  for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)i;
  czk_post_sector s;
  CHECK(czk_post_generate(info, CZK_POST_GEN_DENSE, 0, 1, 0, rnd, leaves, comm_c, &s) == CZK_OK);
  uint8_t want[32];
  unhex(want, "dfa0216d9404fc6e30d7ed1f71b840f822500b34a54aea90930c7fb55fa6ec31");
  CHECK(memcmp(s.comm_r_last, want, 32) == 0);
  unhex(want, "2190e0270b318e487cd5977afee8189ae0b029f713033c15481d274c8a7e3f30");
  CHECK(memcmp(s.comm_r, want, 32) == 0);
  static const uint64_t ch[10] = {46, 10, 14, 42, 22, 8, 31, 41, 43, 30};
  for (int n = 0; n < 10; n++) CHECK_EQ_INT(czk_post_opening_index(info, &s.openings[n]), ch[n]);
  uint8_t buf[5680];
  CHECK(czk_post_vanilla_write(info, &s, buf, sizeof buf) == CZK_OK);
  unhex(want, "00bb44d3ef2d5826291bb6c7966c76a398b8693f64291c46300fc7b96194f107");
  CHECK(memcmp(buf + 0x5c, want, 32) == 0);
  CHECK(buf[0x8c] == 0x0b && buf[0x8d] == 0x92 && buf[0x8e] == 0xce && buf[0x8f] == 0xcf);
  CHECK(buf[0x17c] == 0x00 && buf[0x17d] == 0x55 && buf[0x17e] == 0x83 && buf[0x17f] == 0x31);
  CHECK(buf[0x16c] == 6 && buf[0x25c] == 5);
  /* the Winning challenges of the same randomness start alike */
  const czk_post_info *win = czk_post_info_by_wire(0);
  for (int n = 0; n < 8; n++) CHECK_EQ_INT(czk_post_challenge(win, rnd, 1, 0, (uint32_t)n), ch[n]);
  char err[256];
  czk_post_sector p;
  CHECK_MSG(czk_post_vanilla_parse(info, buf, sizeof buf, &p, "s", err, sizeof err) == CZK_OK, "%s", err);
  CHECK(czk_post_vanilla_check(info, &p, rnd, 0, "s", err, sizeof err) == CZK_OK);
  czk_post_sector_free(&p);
  czk_post_sector_free(&s);
  free(leaves);
}

/* ------------------------------------------------------------------------------------------------ counts */
static void count(const czk_post_info *info, uint64_t constraints, uint64_t inputs, uint32_t log_domain) {
  czk_cs *cs;
  CHECK(czk_cs_counter_new(&cs) == CZK_OK);
  czk_post_instance inst = {.info = info, .sectors = NULL, .n_sectors = 0};
  CHECK(czk_post_synthesize(cs, &inst) == CZK_OK);
  czk_cs_counts c;
  CHECK(czk_cs_counter_result(cs, &c) == CZK_OK);
  CHECK_MSG(c.n_user_constraints == constraints, "%s: %llu constraints, want %llu", info->name,
            (unsigned long long)c.n_user_constraints, (unsigned long long)constraints);
  CHECK_MSG(c.n_inputs == inputs, "%s: %llu inputs, want %llu", info->name, (unsigned long long)c.n_inputs,
            (unsigned long long)inputs);
  CHECK_EQ_INT(c.log_domain, log_domain);
  CHECK_EQ_INT(c.n_inputs - 1, czk_post_num_public_inputs(info));
  czk_cs_free(cs);
}

static void test_counts(void) {
  count(czk_post_info_by_wire(0), 90750, 133, 17);
  count(czk_post_info_by_wire(1), 230670, 133, 18);
  count(czk_post_info_by_wire(5), 21866, 23, 15);
  count(czk_post_info_by_wire(11), 64266, 23, 16);
  count(czk_post_info_by_wire(7), 85466, 23, 17);
  count(czk_post_info_by_wire(3), 370590, 133, 19);
  if (g_full) {
    count(czk_post_info_by_wire(2), 300630, 133, 19);
    count(czk_post_info_by_wire(4), 391314, 133, 19);
    count(czk_post_info_by_wire(13), 125279217, 25840, 27);
    count(czk_post_info_by_wire(9), 129887900, 25301, 27);
  }
}

/* ------------------------------------------------------------------------------------------------ satisfaction */
/* Synthesizes `sectors` with a checker: whether every constraint holds (sat) and whether the witness's public
 * inputs equal the ones recomputed for (rnd, partition) (same). */
static void satisfy2(const czk_post_info *info, const czk_post_sector *sectors, size_t n, const uint8_t rnd[32],
                     uint32_t partition, bool ok, bool same_want) {
  czk_cs *cs;
  CHECK(czk_cs_checker_new(&cs) == CZK_OK);
  czk_post_instance inst = {.info = info, .sectors = sectors, .n_sectors = n};
  CHECK(czk_post_synthesize(cs, &inst) == CZK_OK);
  size_t idx = 0;
  const char *name = NULL;
  czk_status st = czk_cs_checker_result(cs, &idx, &name);
  CHECK_MSG(st == (ok ? CZK_OK : CZK_ERR_UNSATISFIED), "%s: %s at %zu (%s)", info->name, czk_status_str(st), idx,
            name ? name : "");
  size_t np = czk_post_num_public_inputs(info);
  CHECK_EQ_INT(czk_cs_num_inputs(cs), np + 1);
  czk_fr *pub = malloc(np * sizeof *pub);
  uint64_t *ids = malloc(n * sizeof *ids);
  uint8_t(*cr)[32] = malloc(n * 32);
  for (size_t i = 0; i < n; i++) ids[i] = sectors[i].sector_id, memcpy(cr[i], sectors[i].comm_r, 32);
  CHECK(czk_post_public_inputs(info, ids, (const uint8_t(*)[32])cr, n, rnd, partition, pub, np) == CZK_OK);
  bool same = true;
  for (size_t i = 0; i < np; i++) {
    czk_fr v;
    czk_cs_get_value(cs, (czk_var)(CZK_VAR_INPUT_BIT | (i + 1)), &v);
    if (!czk_fr_eq(&v, &pub[i])) same = false;
  }
  CHECK_MSG(same == same_want, "%s: public inputs %s the recomputed ones", info->name, same ? "equal" : "differ from");
  free(pub);
  free(ids);
  free(cr);
  czk_cs_free(cs);
}

static void satisfy(const czk_post_info *info, const czk_post_sector *sectors, size_t n, const uint8_t rnd[32],
                    uint32_t partition, bool ok) {
  satisfy2(info, sectors, n, rnd, partition, ok, true);
}

static void test_satisfy(void) {
  uint8_t rnd[32];
  for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)(7 * i + 1);
  rnd[31] &= 0x3f;
  char err[256];
  /* Window 2 KiB, API 1.0 and 1.2, partition 1, two sectors and one (padded), dense and sparse */
  for (uint64_t wire = 5; wire <= 10; wire += 5) {
    const czk_post_info *info = czk_post_info_by_wire(wire);
    for (int mode = 0; mode < 2; mode++) {
      czk_post_sector s[2];
      for (uint32_t i = 0; i < 2; i++) {
        CHECK(czk_post_generate(info, (czk_post_gen_mode)mode, 9, 100 + i, 1 * info->sector_count + i, rnd, NULL,
                                NULL, &s[i]) == CZK_OK);
        CHECK_MSG(czk_post_vanilla_check(info, &s[i], rnd, info->sector_count + i, "s", err, sizeof err) == CZK_OK,
                  "%s", err);
      }
      satisfy(info, s, 2, rnd, 1, true);
      satisfy(info, s, 1, rnd, 1, true);
      /* recomputed inputs for another partition (API 1.0: other challenges) or randomness */
      if (info->api_minor == 0) satisfy2(info, s, 2, rnd, 0, true, false);
      uint8_t other[32];
      memcpy(other, rnd, 32);
      other[0] ^= 1;
      satisfy2(info, s, 2, other, 1, true, false);
      /* a tampered sibling: the circuit is not satisfied */
      s[1].openings[3].sib[2][0] ^= 1;
      satisfy(info, s, 2, rnd, 1, false);
      czk_post_sector_free(&s[0]);
      czk_post_sector_free(&s[1]);
    }
  }
  /* Winning 2 KiB dense, 32 GiB and 64 GiB Window sparse (one sector) */
  czk_post_sector s;
  const czk_post_info *win = czk_post_info_by_wire(0);
  CHECK(czk_post_generate(win, CZK_POST_GEN_DENSE, 3, 5, 0, rnd, NULL, NULL, &s) == CZK_OK);
  CHECK(czk_post_vanilla_check(win, &s, rnd, 0, "s", err, sizeof err) == CZK_OK);
  satisfy(win, &s, 1, rnd, 0, true);
  czk_post_sector_free(&s);
  CHECK(czk_post_generate(czk_post_info_by_wire(3), CZK_POST_GEN_DENSE, 3, 5, 0, rnd, NULL, NULL, &s) == CZK_ERR_LIMIT);
  for (uint64_t wire = 3; wire <= 4; wire++) {
    const czk_post_info *info = czk_post_info_by_wire(wire);
    CHECK(czk_post_generate(info, CZK_POST_GEN_SPARSE, 3, 5, 0, rnd, NULL, NULL, &s) == CZK_OK);
    CHECK_MSG(czk_post_vanilla_check(info, &s, rnd, 0, "s", err, sizeof err) == CZK_OK, "%s", err);
    uint8_t *buf = malloc(czk_post_vanilla_size(info));
    czk_post_sector p;
    CHECK(czk_post_vanilla_write(info, &s, buf, czk_post_vanilla_size(info)) == CZK_OK);
    CHECK(czk_post_vanilla_parse(info, buf, czk_post_vanilla_size(info), &p, "s", err, sizeof err) == CZK_OK);
    czk_post_sector_free(&p);
    free(buf);
    if (wire == 3 || g_full) satisfy(info, &s, 1, rnd, 0, true);
    czk_post_sector_free(&s);
  }
  /* the real 32 GiB sample as a whole WindowPoSt partition: one sector padded to 2,349 slots */
  if (g_full && g_real) {
    czk_post_sector r;
    CHECK(czk_post_vanilla_parse(czk_post_info_by_wire(8), g_real, g_real_len, &r, "s", err, sizeof err) == CZK_OK);
    uint8_t zero[32] = {0};
    satisfy(czk_post_info_by_wire(8), &r, 1, zero, 0, true);
    czk_post_sector_free(&r);
  }
}

/* The parallel assignment (czk_post_evaluate) equals witness + CSR evaluation of the recorded shape, and the outline
 * equals the shape's counts and densities. */
static void evaluate_matches(const czk_post_info *info, const czk_post_sector *s, size_t n) {
  czk_cs *cs;
  czk_r1cs *shape;
  czk_post_instance blank = {.info = info};
  CHECK(czk_cs_shape_new(&cs) == CZK_OK);
  CHECK(czk_post_synthesize(cs, &blank) == CZK_OK);
  CHECK(czk_cs_shape_finish(cs, &shape) == CZK_OK);
  czk_r1cs *ol;
  CHECK(czk_post_outline(info, &ol) == CZK_OK);
  CHECK(ol->n_inputs == shape->n_inputs && ol->n_aux == shape->n_aux && ol->n_constraints == shape->n_constraints);
  CHECK(ol->a.nnz == shape->a.nnz && ol->b.nnz == shape->b.nnz && ol->c.nnz == shape->c.nnz);
  CHECK(memcmp(ol->a_aux_density, shape->a_aux_density, (shape->n_aux + 63) / 64 * 8) == 0);
  CHECK(memcmp(ol->b_aux_density, shape->b_aux_density, (shape->n_aux + 63) / 64 * 8) == 0);
  CHECK(memcmp(ol->b_input_density, shape->b_input_density, (shape->n_inputs + 63) / 64 * 8) == 0);
  CHECK(ol->a_aux_count == shape->a_aux_count && ol->b_input_count == shape->b_input_count);
  czk_r1cs_free(ol);
  { /* the QAP accumulator (setup of outlines) gives A^T L, B^T L, C^T L as the recorded matrices do */
    const size_t rows = shape->n_constraints, nv = (size_t)shape->n_inputs + shape->n_aux;
    czk_fr *L = malloc(rows * sizeof(czk_fr)), *xr = calloc(3 * nv, sizeof(czk_fr)), *xq = calloc(3 * nv, sizeof(czk_fr));
    for (size_t j = 0; j < rows; j++) czk_fr_from_u64(&L[j], 0x9e3779b97f4a7c15ull * (j + 1));
    const czk_csr *m[3] = {&shape->a, &shape->b, &shape->c};
    for (int q = 0; q < 3; q++)
      for (size_t j = 0; j < rows; j++)
        for (uint64_t e = m[q]->row_ptr[j]; e < m[q]->row_ptr[j + 1]; e++) {
          czk_fr t;
          czk_fr_mul(&t, &m[q]->val[e], &L[j]);
          czk_fr_add(&xr[q * nv + m[q]->col[e]], &xr[q * nv + m[q]->col[e]], &t);
        }
    czk_cs *qc;
    czk_cs_qap_out qo = {L, shape->n_user_constraints, xq, xq + nv, xq + 2 * nv, shape->n_inputs, nv};
    CHECK(czk_cs_qap_new(&qc, &qo) == CZK_OK);
    CHECK(czk_post_synthesize(qc, &blank) == CZK_OK);
    CHECK(czk_cs_status(qc) == CZK_OK && czk_cs_num_constraints(qc) == shape->n_user_constraints);
    czk_cs_free(qc);
    for (uint32_t i = 0; i < shape->n_inputs; i++) czk_fr_add(&xq[i], &xq[i], &L[shape->n_user_constraints + i]);
    CHECK(memcmp(xr, xq, 3 * nv * sizeof(czk_fr)) == 0);
    /* a walk past its capacity is refused, not written out of bounds */
    qo.rows_cap = shape->n_user_constraints - 1;
    CHECK(czk_cs_qap_new(&qc, &qo) == CZK_OK);
    CHECK(czk_post_synthesize(qc, &blank) == CZK_ERR_LIMIT || czk_cs_status(qc) == CZK_ERR_LIMIT);
    czk_cs_free(qc);
    free(L), free(xr), free(xq);
  }
  czk_cs *wc;
  CHECK(czk_cs_witness_new(&wc, 0, 0) == CZK_OK);
  czk_post_instance inst = {.info = info, .sectors = s, .n_sectors = n};
  CHECK(czk_post_synthesize(wc, &inst) == CZK_OK);
  czk_witness w;
  CHECK(czk_cs_witness_finish(wc, &w) == CZK_OK);
  size_t dom = (size_t)1 << shape->log_domain;
  czk_fr *ref = calloc(3 * dom, sizeof(czk_fr));
  CHECK(czk_r1cs_eval(shape, w.w, ref, ref + dom, ref + 2 * dom, NULL) == CZK_OK);
  czk_post_slot_counts sc;
  CHECK(czk_post_slot_counts_get(info, &sc) == CZK_OK);
  uint64_t ni, na, rows, d;
  czk_post_assignment_size(info, &sc, &ni, &na, &rows, &d);
  CHECK(ni == shape->n_inputs && na == shape->n_aux && rows == shape->n_constraints && d == dom);
  czk_fr *ww = malloc((ni + na) * sizeof(czk_fr)), *abc = malloc(3 * dom * sizeof(czk_fr));
  CHECK(czk_post_evaluate(&inst, NULL, ww, abc, abc + dom, abc + 2 * dom) == CZK_OK);
  CHECK(memcmp(ww, w.w, (ni + na) * sizeof(czk_fr)) == 0);
  CHECK(memcmp(abc, ref, 3 * dom * sizeof(czk_fr)) == 0);
  free(ww), free(abc), free(ref);
  czk_witness_free(&w);
  czk_r1cs_free(shape);
}

static void test_evaluate(void) {
  uint8_t rnd[32] = {3, 1, 4, 1, 5};
  for (uint64_t wire = 0; wire <= 10; wire += 5) {
    const czk_post_info *info = czk_post_info_by_wire(wire);
    czk_post_sector s[2];
    size_t n = info->type == CZK_POST_WINNING ? 1 : 2;
    for (size_t i = 0; i < n; i++)
      CHECK(czk_post_generate(info, CZK_POST_GEN_SPARSE, 4, 10 + i, i, rnd, NULL, NULL, &s[i]) == CZK_OK);
    evaluate_matches(info, s, n);
    if (n == 2) evaluate_matches(info, s, 1); /* padded */
    for (size_t i = 0; i < n; i++) czk_post_sector_free(&s[i]);
  }
}

int main(int argc, char **argv) {
  g_full = argc > 1 && strcmp(argv[1], "full") == 0;
  test_registry();
  test_real_sample();
  test_rejects();
  test_spec_example();
  test_counts();
  test_satisfy();
  test_evaluate();
  free(g_real);
  return czk_test_done(g_full ? "test_post_full" : "test_post");
}
