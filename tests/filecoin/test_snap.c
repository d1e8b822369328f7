/* test_snap.c: SnapDeals / EmptySectorUpdate (filecoin-snap.md): the registry and the v28 parameter names of the
 * spec (1); PartitionProof sizes (2.2); the reference's hard-coded challenge vectors (5.3); the spec's 2 KiB worked
 * example (2.3, 8) rebuilt by the generator from its synthetic sector: commitments, phi, both rhos, challenges and the
 * PartitionProof bytes at the listed offsets; parse / write byte for byte; every rejection of a damaged proof, by the
 * parser and by the native checks; dense and sparse updates of every registered size that pass the native checks
 * (quick: the first and last partition of 16; `full`: all, and a dense 8 MiB update); the circuit: the counts of
 * section 7 (quick: up to 8 KiB, the whole circuit counted equal to the outline derived from one challenge up to
 * 2 KiB; `full`: every size, each counted whole), the 2 KiB example and generated updates (dense, sparse, sub/top shapes, other
 * partitions) satisfy the checker with the recomputed public inputs and damaged ones do not, a sparse 8 MiB and
 * 32 GiB partition satisfies it (`full`), the outline equals the recorded shape bit for bit and the parallel
 * evaluation equals the witness builder and A w, B w, C w. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/snap.h"
#include "czk_test.h"

static bool g_full;

static void unhex(uint8_t *out, const char *hex) {
  for (size_t i = 0; hex[2 * i]; i++) {
    unsigned v;
    sscanf(hex + 2 * i, "%2x", &v);
    out[i] = (uint8_t)v;
  }
}

static bool eq_hex(const uint8_t *b, const char *hex) {
  uint8_t want[32];
  size_t n = strlen(hex) / 2;
  unhex(want, hex);
  return memcmp(b, want, n) == 0;
}

/* ------------------------------------------------------------------------------------------------ registry */
static void test_registry(void) {
  static const struct {
    uint64_t wire, size, nodes;
    const char *tail;
    uint32_t P, C, A;
    unsigned h, h_select, k_h;
    size_t bytes;
  } t[] = {
      {0, 2048, 64, "8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194", 1, 10, 8, 1, 1, 1, 15064},
      {1, 8ull << 20, 1u << 18, "8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63", 4, 10, 128, 10,
       8, 32, 43864},
      {2, 512ull << 20, 1u << 24, "8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c", 16, 86,
       128, 10, 8, 128, 453064},
      {3, 32ull << 30, 1u << 30, "8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18", 16, 86, 128,
       10, 8, 128, 561768},
      {4, 64ull << 30, 1ull << 31, "8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7", 16, 86,
       128, 10, 8, 128, 575528},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    const czk_snap_info *info = czk_snap_info_by_wire(t[i].wire);
    CHECK(info && info->sector_size == t[i].size && info->nodes == t[i].nodes);
    if (!info) continue;
    CHECK(czk_snap_info_for_size(t[i].size) == info);
    char stem[200], want[200];
    czk_snap_param_stem(info, stem, sizeof stem);
    snprintf(want, sizeof want, "v28-empty-sector-update-merkletree-poseidon_hasher-%s", t[i].tail);
    CHECK_MSG(strcmp(stem, want) == 0, "wire %llu: %s", (unsigned long long)t[i].wire, stem);
    CHECK_MSG(info->partitions == t[i].P && info->challenges == t[i].C && info->apex_leaves == t[i].A &&
                  info->h == t[i].h && info->h_select == t[i].h_select,
              "wire %llu constants", (unsigned long long)t[i].wire);
    /* k_and_h_select of partition 0 = h_select << pbl */
    czk_fr pub[4], want_kh;
    czk_snap_comms zero;
    memset(&zero, 0, sizeof zero);
    CHECK(czk_snap_public_inputs(info, &zero, 0, pub) == CZK_OK);
    czk_fr_from_u64(&want_kh, t[i].k_h);
    CHECK(czk_fr_eq(&pub[0], &want_kh));
    CHECK_EQ_INT(czk_snap_partition_size(info), t[i].bytes);
  }
  CHECK(czk_snap_info_by_wire(5) == NULL && czk_snap_info_for_size(4096) == NULL);
  const czk_snap_info *i32 = czk_snap_info_by_wire(3);
  CHECK(strcmp(i32->name, "StackedDrg32GiBV1") == 0 && strcmp(czk_snap_circuit_id(i32), "snap-32g") == 0);
  CHECK(strcmp(czk_snap_circuit_id(czk_snap_info_by_wire(0)), "snap-2k") == 0);
  /* section 3: rb, challenges per digest, digests per partition, TreeD rows below the apex row */
  static const unsigned tab[5][4] = {{6, 42, 1, 3}, {16, 15, 1, 9}, {20, 12, 8, 13}, {26, 9, 10, 19}, {27, 9, 10, 20}};
  for (unsigned w = 0; w < 5; w++) {
    const czk_snap_info *info = czk_snap_info_by_wire(w);
    CHECK_MSG(info->rb == tab[w][0] && info->cpd == tab[w][1] && info->dpp == tab[w][2] &&
                  info->d - info->pbl - info->abl == tab[w][3],
              "wire %u: rb %u cpd %u dpp %u", w, info->rb, info->cpd, info->dpp);
  }
  CHECK_EQ_INT(czk_snap_r_levels(czk_snap_info_by_wire(4)), 11);
  CHECK_EQ_INT(czk_snap_r_level_arity(czk_snap_info_by_wire(4), 10), 2);
  /* test-only shapes (section 1) and shapes the rules refuse */
  czk_snap_info s;
  CHECK(czk_snap_shape(&s, 1u << 9, 8, 8, 0) == CZK_OK && s.partitions == 2 && s.apex_leaves == 128 && s.h == 1);
  CHECK(czk_snap_shape(&s, 1u << 19, 8, 2, 0) == CZK_OK && s.partitions == 4 && s.challenges == 10 && s.h == 10);
  CHECK(czk_snap_shape(&s, 1u << 5, 8, 4, 0) == CZK_OK && czk_snap_r_levels(&s) == 2);
  CHECK(czk_snap_shape(&s, 1u << 6, 8, 4, 0) == CZK_ERR_INVALID_ARG); /* 16 leaves per base tree */
  CHECK(czk_snap_shape(&s, 96, 8, 0, 0) == CZK_ERR_INVALID_ARG);
  CHECK(czk_snap_shape(&s, 1u << 6, 8, 0, 2) == CZK_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------------------------------------------ challenges */
static void test_challenge_vectors(void) {
  /* storage-proofs-update challenges.rs test_challenges_against_hardcoded: comm_r_new = Fr::random(TEST_SEED) */
  uint8_t cr[32];
  unhex(cr, "101cbe4b9c42604f04c703c396f788c6cb2d6d7d58f45430b12eb2edd640076c");
  static const struct {
    unsigned log_nodes, base, sub, top;
    uint32_t k;
    uint64_t first[5];
  } v[] = {{6, 8, 0, 0, 0, {53, 51, 56, 3, 0}},
           {8, 8, 4, 0, 0, {245, 140, 15, 128, 28}},
           {18, 8, 0, 0, 1, {78878, 130797, 112892, 93994, 78379}},
           {24, 8, 0, 0, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
           {30, 8, 8, 0, 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
           {30, 8, 8, 0, 15, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
           {31, 8, 8, 2, 14, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}}};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    czk_snap_info s;
    uint64_t got[86];
    CHECK(czk_snap_shape(&s, 1ull << v[i].log_nodes, v[i].base, v[i].sub, v[i].top) == CZK_OK);
    CHECK(czk_snap_challenges(&s, cr, v[i].k, got) == CZK_OK);
    bool ok = true;
    for (int j = 0; j < 5; j++) ok = ok && got[j] == v[i].first[j];
    CHECK_MSG(ok, "2^%u k=%u: %llu %llu %llu %llu %llu", v[i].log_nodes, v[i].k, (unsigned long long)got[0],
              (unsigned long long)got[1], (unsigned long long)got[2], (unsigned long long)got[3],
              (unsigned long long)got[4]);
    /* every challenge of partition k lies in [k 2^rb, (k+1) 2^rb) */
    for (uint32_t t = 0; t < s.challenges; t++) CHECK((got[t] >> s.rb) == v[i].k);
  }
  czk_snap_info s;
  uint64_t got[10];
  czk_snap_shape(&s, 64, 8, 0, 0);
  CHECK(czk_snap_challenges(&s, cr, 1, got) == CZK_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------------------------------------------ worked example */
/* The synthetic 2 KiB sector of section 8: R_old[i] = trimmed SHA-256("sector-key" || u64le(i)), D[i] = trimmed
 * SHA-256("data" || u64le(i)), comm_c = trimmed SHA-256("comm_c"). */
static void spec_sector(uint8_t *r_old, uint8_t *data, uint8_t comm_c[32]) {
  for (uint64_t i = 0; i < 64; i++) {
    uint8_t msg[18];
    memcpy(msg, "sector-key", 10);
    for (int b = 0; b < 8; b++) msg[10 + b] = (uint8_t)(i >> (8 * b));
    czk_fc_sha256(r_old + 32 * i, msg, 18);
    memcpy(msg, "data", 4);
    for (int b = 0; b < 8; b++) msg[4 + b] = (uint8_t)(i >> (8 * b));
    czk_fc_sha256(data + 32 * i, msg, 12);
  }
  czk_fc_sha256(comm_c, "comm_c", 6);
}

static uint8_t *g_example; /* the worked example's PartitionProof bytes */
static czk_snap_comms g_example_comms;

static void test_spec_example(void) {
  const czk_snap_info *info = czk_snap_info_by_wire(0);
  uint8_t r_old[64 * 32], data[64 * 32], comm_c[32];
  spec_sector(r_old, data, comm_c);
  czk_snap_gen_input in = {.mode = CZK_SNAP_GEN_DENSE, .old_replica = r_old, .new_data = data, .comm_c = comm_c};
  czk_snap_update u;
  CHECK(czk_snap_generate(info, &in, &u) == CZK_OK);
  if (u.n_parts != 1) return;
  CHECK(eq_hex(u.comms.comm_r_old, "fee6630cf5d01a0dc81b42524b0e9fe085e2002fa4c9f293777e553add976c11"));
  CHECK(eq_hex(u.comms.comm_d_new, "e6953b29756cee249c4d2aa5377b630a3bfda1af3e04a8d20cff60814d3e8e32"));
  CHECK(eq_hex(u.comms.comm_r_new, "062567aefc4bda907402d8004c0e4e3676d2a83e1307e436b0b03b1de72dec62"));
  CHECK(eq_hex(u.phi, "5844710b4531e34d2a0f34fe5de475a8bcc2533d4bc94ce2b7b8791468860859"));
  uint8_t rho[32], phi[32];
  CHECK(czk_snap_phi(phi, u.comms.comm_d_new, u.comms.comm_r_old) == CZK_OK && memcmp(phi, u.phi, 32) == 0);
  CHECK(czk_snap_rho(rho, phi, 0) == CZK_OK &&
        eq_hex(rho, "055293963551e6ab4e9119a314e35d0d306c18b53cde2b47f8fc23186d14fc66"));
  CHECK(czk_snap_rho(rho, phi, 1) == CZK_OK &&
        eq_hex(rho, "6426b4c8b7693a6376cb16d4ed8b7bc19fc001c055d9c13fbd05760b95d1df21"));
  uint64_t ch[10];
  static const uint64_t want_ch[10] = {20, 49, 18, 34, 6, 23, 56, 15, 62, 22};
  CHECK(czk_snap_challenges(info, u.comms.comm_r_new, 0, ch) == CZK_OK && memcmp(ch, want_ch, sizeof ch) == 0);
  /* the PartitionProof bytes of section 2.3 */
  size_t n = czk_snap_partition_size(info);
  uint8_t *b = malloc(n);
  CHECK(czk_snap_partition_write(info, &u.parts[0], b, n) == CZK_OK);
  CHECK(eq_hex(b + 0x000, "67a9728ffe2ae267447ae24ef86cf0124fd06ceadf15f9d02d50a3e23920ec09"));
  CHECK(eq_hex(b + 0x020, "0800000000000000"));
  CHECK(eq_hex(b + 0x028, "7edd83a2b0d8453e660ef5a9e8bc6a3af7fc3b3bcfc17f39144301a1ba07cc36"));
  CHECK(eq_hex(b + 0x108, "5a32b31bef7b174d0d627547d9f57660526f5f91444ba60068f5e6a75f6f242c"));
  CHECK(eq_hex(b + 0x128, "0a00000000000000"));
  CHECK(eq_hex(b + 0x130, "00000000"));
  CHECK(eq_hex(b + 0x134, "a6a63cb1dee2bdccf31c55c8f27e4fbd66223ac0befdea30a5554faef2092507"));
  CHECK(eq_hex(b + 0x154, "300be848557cc820bb6ce3afce6c19353124a853447389353bbf0e0a8704d80d"));
  CHECK(eq_hex(b + 0x174, "0200000000000000") && eq_hex(b + 0x17c, "0700000000000000"));
  CHECK(eq_hex(b + 0x264, "0400000000000000") && eq_hex(b + 0x354, "0200000000000000"));
  CHECK(eq_hex(b + 0x35c, "00000000"));
  CHECK(eq_hex(b + 0x360, "e6953b29756cee249c4d2aa5377b630a3bfda1af3e04a8d20cff60814d3e8e32"));
  CHECK(eq_hex(b + 0x380, "7664ec6e5642346c080959a09ba1542244edece3f3e6dbdc6fec51d864367815"));
  CHECK(eq_hex(b + 0x3a0, "0600000000000000"));
  /* TreeD path of node 20 = 0b010100: siblings a49e9910, 74a86835, 97d74ec9, a5585caa (= apex leaf 3), cc679315,
   * 9c06d43e; indices 0, 0, 1, 0, 1, 0 */
  static const char *sib[6] = {"a49e9910", "74a86835", "97d74ec9", "a5585caa", "cc679315", "9c06d43e"};
  for (int l = 0; l < 6; l++) {
    const uint8_t *e = b + 0x3a8 + 48 * l;
    CHECK_MSG(eq_hex(e, "0100000000000000") && eq_hex(e + 8, sib[l]) && e[40] == ((20 >> l) & 1), "TreeD level %d", l);
  }
  CHECK(memcmp(b + 0x3a8 + 48 * 3 + 8, b + 0x028 + 3 * 32, 32) == 0);
  CHECK(eq_hex(b + 0x4c8, "00000000"));
  CHECK(eq_hex(b + 0x4cc, "bb87c5c50138f0ace2a600e830956a72af6f73d674e6bca9ab45bb29f2b74b3b"));
  CHECK(eq_hex(b + 0x4ec, "22b0646b6bc88157b4e2217b361e03ff59ddc2a2837ffc9e26c4c6740f215540"));
  /* parsed back: the same values, written again byte for byte; the native checks pass */
  czk_snap_partition p;
  char err[256];
  CHECK_MSG(czk_snap_partition_parse(info, b, n, &p, "partition 0", err, sizeof err) == CZK_OK, "%s", err);
  uint8_t *b2 = malloc(n);
  CHECK(czk_snap_partition_write(info, &p, b2, n) == CZK_OK && memcmp(b, b2, n) == 0);
  CHECK(p.n_challenges == 10 && czk_snap_ropening_index(info, &p.ch[0].r_old) == 20 &&
        czk_snap_dopening_index(info, &p.ch[0].d_new) == 20 && czk_snap_ropening_index(info, &p.ch[9].r_new) == 22);
  CHECK_MSG(czk_snap_check(info, &u.comms, &p, 0, "partition 0", err, sizeof err) == CZK_OK, "%s", err);
  czk_fr pub[4], one;
  CHECK(czk_snap_public_inputs(info, &u.comms, 0, pub) == CZK_OK);
  czk_fr_from_u64(&one, 1);
  uint8_t x[32];
  CHECK(czk_fr_eq(&pub[0], &one));
  czk_fr_to_bytes_le(x, &pub[1]);
  CHECK(memcmp(x, u.comms.comm_r_old, 32) == 0);
  czk_fr_to_bytes_le(x, &pub[2]);
  CHECK(memcmp(x, u.comms.comm_d_new, 32) == 0);
  czk_fr_to_bytes_le(x, &pub[3]);
  CHECK(memcmp(x, u.comms.comm_r_new, 32) == 0);
  czk_snap_partition_free(&p);
  g_example = b;
  g_example_comms = u.comms;
  free(b2);
  czk_snap_update_free(&u);
}

/* ------------------------------------------------------------------------------------------------ rejections */
/* Parses a copy of the example damaged by `edit`; expects status `st` and `why` in the reason. */
static void parse_fails(const char *label, size_t len_delta, void (*edit)(uint8_t *), czk_status want,
                        const char *why) {
  const czk_snap_info *info = czk_snap_info_by_wire(0);
  size_t n = czk_snap_partition_size(info), len = n + len_delta;
  uint8_t *b = calloc(1, n + 16);
  memcpy(b, g_example, n);
  if (edit) edit(b);
  czk_snap_partition p;
  char err[256] = "";
  czk_status st = czk_snap_partition_parse(info, b, len, &p, "partition 0", err, sizeof err);
  CHECK_MSG(st == want && strstr(err, why) && strstr(err, "partition 0"), "%s: %s (%s)", label, czk_status_str(st),
            err);
  CHECK(p.apex == NULL && p.ch == NULL);
  free(b);
}

static void e_apex(uint8_t *b) { b[0x20] = 9; }
static void e_apex_huge(uint8_t *b) { memset(b + 0x20, 0xff, 8); }
static void e_count(uint8_t *b) { b[0x128] = 11; }
static void e_tag(uint8_t *b) { b[0x130] = 1; }
static void e_noncanon(uint8_t *b) { memset(b + 0x154, 0xff, 32); }
static void e_index(uint8_t *b) { b[0x264] = 8; }
static void e_hashes(uint8_t *b) { b[0x17c] = 6; }
static void e_dlen(uint8_t *b) { b[0x3a0] = 5; }
static void e_dtag(uint8_t *b) { b[0x35c] = 2; }

static void test_parse_rejects(void) {
  if (!g_example) return;
  parse_fails("truncated", (size_t)-1, NULL, CZK_ERR_TRUNCATED, "truncated");
  parse_fails("empty", (size_t)-15064, NULL, CZK_ERR_TRUNCATED, "comm_c");
  parse_fails("trailing", 1, NULL, CZK_ERR_FORMAT, "1 trailing byte");
  parse_fails("apex count", 0, e_apex, CZK_ERR_FORMAT, "9 apex leaves");
  parse_fails("apex count huge", 0, e_apex_huge, CZK_ERR_FORMAT, "apex leaves");
  parse_fails("challenge count", 0, e_count, CZK_ERR_FORMAT, "11 challenge proofs");
  parse_fails("tag", 0, e_tag, CZK_ERR_FORMAT, "challenge 0 proof_r_old MerkleProof tag 1 (Sub)");
  parse_fails("non-canonical", 0, e_noncanon, CZK_ERR_NOT_CANONICAL, "challenge 0 proof_r_old leaf");
  parse_fails("index", 0, e_index, CZK_ERR_FORMAT, "challenge 0 proof_r_old base level 0 index 8");
  parse_fails("hashes", 0, e_hashes, CZK_ERR_FORMAT, "base level 0 hashes length is 6");
  parse_fails("TreeD levels", 0, e_dlen, CZK_ERR_FORMAT, "challenge 0 proof_d_new path length is 5");
  parse_fails("TreeD tag", 0, e_dtag, CZK_ERR_FORMAT, "proof_d_new MerkleProof tag 2");
}

/* Native checks of the example with one value changed (after parsing). */
static void check_fails(const char *label, void (*edit)(czk_snap_partition *, czk_snap_comms *), uint32_t k,
                        const char *why) {
  const czk_snap_info *info = czk_snap_info_by_wire(0);
  czk_snap_partition p;
  czk_snap_comms c = g_example_comms;
  char err[256] = "";
  CHECK(czk_snap_partition_parse(info, g_example, czk_snap_partition_size(info), &p, "partition 0", err, sizeof err) ==
        CZK_OK);
  if (edit) edit(&p, &c);
  czk_status st = czk_snap_check(info, &c, &p, k, "partition 0", err, sizeof err);
  CHECK_MSG(st != CZK_OK && strstr(err, why) && strstr(err, "partition 0"), "%s: %s (%s)", label, czk_status_str(st),
            err);
  czk_snap_partition_free(&p);
}

static void x_comm_r_old(czk_snap_partition *p, czk_snap_comms *c) { (void)p, c->comm_r_old[0] ^= 1; }
static void x_comm_r_new(czk_snap_partition *p, czk_snap_comms *c) { (void)p, c->comm_r_new[0] ^= 1; }
static void x_comm_d_new(czk_snap_partition *p, czk_snap_comms *c) { (void)p, c->comm_d_new[0] ^= 1; }
static void x_comm_c(czk_snap_partition *p, czk_snap_comms *c) { (void)c, p->comm_c[0] ^= 1; }
static void x_sib_old(czk_snap_partition *p, czk_snap_comms *c) { (void)c, p->ch[3].r_old.sib[2][0] ^= 1; }
static void x_sib_new(czk_snap_partition *p, czk_snap_comms *c) { (void)c, p->ch[4].r_new.sib[9][5] ^= 1; }
static void x_sib_d(czk_snap_partition *p, czk_snap_comms *c) { (void)c, p->ch[5].d_new.sib[1][0] ^= 1; }
static void x_root_old(czk_snap_partition *p, czk_snap_comms *c) { (void)c, p->ch[2].r_old.root[0] ^= 1; }
static void x_index(czk_snap_partition *p, czk_snap_comms *c) { (void)c, p->ch[1].r_new.index[0] ^= 1; }
static void x_dindex(czk_snap_partition *p, czk_snap_comms *c) { (void)c, p->ch[7].d_new.index[2] ^= 1; }
static void x_apex(czk_snap_partition *p, czk_snap_comms *c) { (void)c, p->apex[5][0] ^= 1; }
/* a new replica node that is not the encoding, with its TreeR_new path left valid for the old value: the encoding
 * check fails before the path check would */
static void x_encoding(czk_snap_partition *p, czk_snap_comms *c) {
  (void)c;
  memcpy(p->ch[6].r_new.leaf, p->ch[6].r_old.leaf, 32);
}

static void test_check_rejects(void) {
  if (!g_example) return;
  check_fails("comm_r_old", x_comm_r_old, 0, "differs from comm_r_old");
  check_fails("comm_r_new", x_comm_r_new, 0, "differs from comm_r_new");
  check_fails("comm_d_new", x_comm_d_new, 0, "comm_d_new");
  check_fails("comm_c", x_comm_c, 0, "H(comm_c, root of proof_r_old)");
  check_fails("TreeR_old sibling", x_sib_old, 0, "challenge 3 (node 34): the proof_r_old path does not hash");
  check_fails("TreeR_new sibling", x_sib_new, 0, "challenge 4 (node 6): the proof_r_new path does not hash");
  check_fails("TreeD sibling", x_sib_d, 0, "challenge 5 (node 23): the proof_d_new path does not hash");
  check_fails("root", x_root_old, 0, "challenge 2 (node 18): proof_r_old's root differs");
  check_fails("index", x_index, 0, "challenge 1: proof_r_new opens node 48, the challenge derived from comm_r_new is "
              "node 49");
  check_fails("TreeD index", x_dindex, 0, "challenge 7: proof_d_new opens node 11");
  check_fails("apex leaf", x_apex, 0, "apex leaves and the partition path");
  check_fails("encoding", x_encoding, 0, "challenge 6 (node 56): the new replica node is not the encoding");
  check_fails("partition", NULL, 1, "partition 1 does not exist");
}

/* ------------------------------------------------------------------------------------------------ generated */
static void gen_checks(const czk_snap_info *info, czk_snap_gen_mode mode, uint64_t seed) {
  czk_snap_gen_input in = {.mode = mode, .seed = seed};
  czk_snap_update u;
  czk_status st = czk_snap_generate(info, &in, &u);
  CHECK_MSG(st == CZK_OK, "%s %s: %s", info->size_name, mode ? "sparse" : "dense", czk_status_str(st));
  if (st != CZK_OK) return;
  size_t n = czk_snap_partition_size(info);
  uint8_t *b = malloc(n);
  for (uint32_t k = 0; k < u.n_parts; k++) {
    if (!g_full && u.n_parts > 4 && k != 0 && k + 1 != u.n_parts) continue; /* quick: the first and the last */
    char err[256] = "", which[32];
    snprintf(which, sizeof which, "partition %u", k);
    czk_snap_partition p;
    CHECK(czk_snap_partition_write(info, &u.parts[k], b, n) == CZK_OK);
    CHECK_MSG(czk_snap_partition_parse(info, b, n, &p, which, err, sizeof err) == CZK_OK, "%s", err);
    CHECK_MSG(czk_snap_check(info, &u.comms, &p, k, which, err, sizeof err) == CZK_OK, "%s %s: %s", info->size_name,
              mode ? "sparse" : "dense", err);
    /* the partition proof of k is not one of another partition */
    if (u.n_parts > 1)
      CHECK(czk_snap_check(info, &u.comms, &p, (k + 1) % u.n_parts, which, err, sizeof err) == CZK_ERR_VERIFY_FAILED);
    czk_snap_partition_free(&p);
  }
  free(b);
  czk_snap_update_free(&u);
}

static void test_generated(void) {
  gen_checks(czk_snap_info_by_wire(0), CZK_SNAP_GEN_DENSE, 7);
  gen_checks(czk_snap_info_by_wire(0), CZK_SNAP_GEN_SPARSE, 7);
  gen_checks(czk_snap_info_by_wire(1), CZK_SNAP_GEN_SPARSE, 3);
  gen_checks(czk_snap_info_by_wire(3), CZK_SNAP_GEN_SPARSE, 3);
  if (g_full) {
    gen_checks(czk_snap_info_by_wire(2), CZK_SNAP_GEN_SPARSE, 3);
    gen_checks(czk_snap_info_by_wire(4), CZK_SNAP_GEN_SPARSE, 3);
    gen_checks(czk_snap_info_by_wire(1), CZK_SNAP_GEN_DENSE, 5);
  }
  czk_snap_gen_input in = {.mode = CZK_SNAP_GEN_DENSE, .seed = 1};
  czk_snap_update u;
  CHECK(czk_snap_generate(czk_snap_info_by_wire(2), &in, &u) == CZK_ERR_LIMIT);
}

/* ------------------------------------------------------------------------------------------------ circuit */
static void count(const czk_snap_info *info, uint64_t constraints, unsigned log_domain, bool whole) {
  czk_cs_counts n, m;
  CHECK(czk_snap_counts(info, &n) == CZK_OK);
  CHECK_MSG(n.n_user_constraints == constraints && n.n_inputs == 5 && n.log_domain == log_domain,
            "%llu nodes: %llu constraints, %llu inputs, 2^%u", (unsigned long long)info->nodes,
            (unsigned long long)n.n_user_constraints, (unsigned long long)n.n_inputs, n.log_domain);
  if (!whole) return;
  /* counting synthesis of the whole circuit gives every count the outline derives from one challenge */
  czk_cs *cs;
  czk_snap_instance inst = {.info = info};
  CHECK(czk_cs_counter_new(&cs) == CZK_OK);
  CHECK(czk_snap_synthesize(cs, &inst) == CZK_OK);
  CHECK(czk_cs_counter_result(cs, &m) == CZK_OK);
  czk_cs_free(cs);
  CHECK_MSG(memcmp(&n, &m, sizeof n) == 0,
            "%llu nodes: whole count %llu constraints %llu aux nnz %llu/%llu/%llu density %llu/%llu/%llu",
            (unsigned long long)info->nodes, (unsigned long long)m.n_user_constraints, (unsigned long long)m.n_aux,
            (unsigned long long)m.nnz_a, (unsigned long long)m.nnz_b, (unsigned long long)m.nnz_c,
            (unsigned long long)m.a_aux_count, (unsigned long long)m.b_input_count, (unsigned long long)m.b_aux_count);
}

static void test_counts(void) {
  /* filecoin-snap.md section 7: the seven asserted totals and the derived ones */
  static const struct {
    unsigned log_nodes, base, sub, top;
    uint64_t constraints;
    unsigned log_domain;
    int level; /* 0 quick, 1 quick (scaled) + full (whole), 2 full */
  } t[] = {{5, 8, 4, 0, 1248389, 21, 0},   {6, 8, 0, 0, 1705039, 21, 0},   {7, 8, 2, 0, 2165109, 22, 1},
           {8, 8, 4, 0, 2620359, 22, 1},   {9, 8, 8, 0, 6300021, 23, 2},   {10, 8, 8, 2, 6760091, 23, 2},
           {18, 8, 0, 0, 10007503, 24, 2}, {19, 8, 2, 0, 10467573, 24, 2}, {24, 8, 0, 0, 57450479, 26, 2},
           {30, 8, 8, 0, 81049499, 27, 2}, {31, 8, 8, 2, 85006101, 27, 2}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    if (t[i].level == 2 && !g_full) continue;
    czk_snap_info s;
    CHECK(czk_snap_shape(&s, 1ull << t[i].log_nodes, t[i].base, t[i].sub, t[i].top) == CZK_OK);
    count(&s, t[i].constraints, t[i].log_domain, t[i].level == 0 || g_full);
  }
  /* the registered proofs' counts are the same shapes' */
  czk_cs_counts n;
  CHECK(czk_snap_counts(czk_snap_info_by_wire(0), &n) == CZK_OK && n.n_user_constraints == 1705039 &&
        n.n_aux == 1703569);
}

/* The checker over partition k of an update: satisfied or not, and its public inputs against the recomputed ones. */
static void satisfy(const czk_snap_info *info, const czk_snap_comms *comms, const czk_snap_partition *p, uint32_t k,
                    bool ok, const char *label) {
  czk_cs *cs;
  CHECK(czk_cs_checker_new(&cs) == CZK_OK);
  czk_snap_instance inst = {.info = info, .k = k, .comms = comms, .part = p};
  CHECK(czk_snap_synthesize(cs, &inst) == CZK_OK);
  size_t idx = 0;
  const char *name = NULL;
  czk_status st = czk_cs_checker_result(cs, &idx, &name);
  CHECK_MSG(st == (ok ? CZK_OK : CZK_ERR_UNSATISFIED), "%s: %s at %zu (%s)", label, czk_status_str(st), idx,
            name ? name : "");
  czk_fr pub[4];
  CHECK(czk_snap_public_inputs(info, comms, k, pub) == CZK_OK);
  CHECK_EQ_INT(czk_cs_num_inputs(cs), 5);
  for (int i = 0; i < 4; i++) {
    czk_fr v;
    CHECK(czk_cs_get_value(cs, (czk_var)(CZK_VAR_INPUT_BIT | (i + 1)), &v) == CZK_OK && czk_fr_eq(&v, &pub[i]));
  }
  czk_cs_free(cs);
}

static void test_satisfy(void) {
  const czk_snap_info *info = czk_snap_info_by_wire(0);
  if (!g_example) return;
  czk_snap_partition p;
  char err[256];
  CHECK(czk_snap_partition_parse(info, g_example, czk_snap_partition_size(info), &p, "partition 0", err, sizeof err) ==
        CZK_OK);
  satisfy(info, &g_example_comms, &p, 0, true, "2 KiB example");
  /* one changed value of the vanilla proof or the request: the circuit no longer holds */
  p.ch[3].r_old.sib[4][0] ^= 1;
  satisfy(info, &g_example_comms, &p, 0, false, "TreeR_old sibling");
  p.ch[3].r_old.sib[4][0] ^= 1;
  p.ch[8].d_new.sib[1][0] ^= 1;
  satisfy(info, &g_example_comms, &p, 0, false, "TreeD sibling");
  p.ch[8].d_new.sib[1][0] ^= 1;
  if (g_full) {
    p.apex[2][1] ^= 1;
    satisfy(info, &g_example_comms, &p, 0, false, "apex leaf");
    p.apex[2][1] ^= 1;
    czk_snap_comms c = g_example_comms;
    c.comm_r_new[3] ^= 1;
    satisfy(info, &c, &p, 0, false, "comm_r_new");
  }
  memcpy(p.ch[5].r_new.leaf, p.ch[5].r_old.leaf, 32); /* leaf_r_new is computed in the circuit: not read */
  satisfy(info, &g_example_comms, &p, 0, true, "leaf_r_new ignored");
  czk_snap_partition_free(&p);
  /* generated updates: dense and sparse 2 KiB, a two-partition test shape (partition 1), a 1 KiB sub-tree shape */
  struct {
    czk_snap_gen_mode mode;
    unsigned log_nodes, base, sub, top;
  } g[] = {{CZK_SNAP_GEN_DENSE, 6, 8, 0, 0}, {CZK_SNAP_GEN_SPARSE, 6, 8, 0, 0}, {CZK_SNAP_GEN_SPARSE, 5, 8, 4, 0},
           {CZK_SNAP_GEN_SPARSE, 10, 8, 8, 2}};
  for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
    if ((g[i].log_nodes == 10 || g[i].mode == CZK_SNAP_GEN_DENSE) && !g_full) continue; /* quick: the example is dense */
    czk_snap_info s;
    czk_snap_shape(&s, 1ull << g[i].log_nodes, g[i].base, g[i].sub, g[i].top);
    czk_snap_gen_input in = {.mode = g[i].mode, .seed = 11 + i};
    czk_snap_update u;
    CHECK(czk_snap_generate(&s, &in, &u) == CZK_OK);
    for (uint32_t k = 0; k < u.n_parts; k++) {
      CHECK(czk_snap_check(&s, &u.comms, &u.parts[k], k, "generated", err, sizeof err) == CZK_OK);
      satisfy(&s, &u.comms, &u.parts[k], k, true, "generated");
    }
    if (u.n_parts > 1) satisfy(&s, &u.comms, &u.parts[0], 1, false, "partition 0's proof as partition 1");
    czk_snap_update_free(&u);
  }
  if (!g_full) return;
  /* a sparse partition of the largest sizes satisfies the checker (81,049,499 constraints at 32 GiB) */
  for (uint64_t wire = 1; wire <= 3; wire += 2) {
    const czk_snap_info *big = czk_snap_info_by_wire(wire);
    czk_snap_gen_input in = {.mode = CZK_SNAP_GEN_SPARSE, .seed = 5};
    czk_snap_update u;
    CHECK(czk_snap_generate(big, &in, &u) == CZK_OK);
    uint32_t k = big->partitions - 1;
    CHECK(czk_snap_check(big, &u.comms, &u.parts[k], k, "sparse", err, sizeof err) == CZK_OK);
    satisfy(big, &u.comms, &u.parts[k], k, true, big->size_name);
    czk_snap_update_free(&u);
  }
}

/* The outline equals the recorded shape (counts and every density bit); the evaluated assignment equals the
 * witness builder's witness and the shape's A w, B w, C w. */
static void evaluate_matches(const czk_snap_info *info, uint64_t seed) {
  czk_snap_gen_input in = {.mode = CZK_SNAP_GEN_SPARSE, .seed = seed};
  czk_snap_update u;
  CHECK(czk_snap_generate(info, &in, &u) == CZK_OK);
  uint32_t k = info->partitions - 1;
  czk_cs *cs;
  czk_r1cs *shape, *ol;
  czk_snap_instance blank = {.info = info, .k = k};
  CHECK(czk_cs_shape_new(&cs) == CZK_OK);
  CHECK(czk_snap_synthesize(cs, &blank) == CZK_OK);
  CHECK(czk_cs_shape_finish(cs, &shape) == CZK_OK);
  CHECK(czk_snap_outline(info, &ol) == CZK_OK);
  CHECK(ol->n_inputs == shape->n_inputs && ol->n_aux == shape->n_aux && ol->n_constraints == shape->n_constraints);
  CHECK(ol->a.nnz == shape->a.nnz && ol->b.nnz == shape->b.nnz && ol->c.nnz == shape->c.nnz);
  CHECK(memcmp(ol->a_aux_density, shape->a_aux_density, (shape->n_aux + 63) / 64 * 8) == 0);
  CHECK(memcmp(ol->b_aux_density, shape->b_aux_density, (shape->n_aux + 63) / 64 * 8) == 0);
  CHECK(memcmp(ol->b_input_density, shape->b_input_density, (shape->n_inputs + 63) / 64 * 8) == 0);
  CHECK(ol->a_aux_count == shape->a_aux_count && ol->b_input_count == shape->b_input_count &&
        ol->b_aux_count == shape->b_aux_count);
  czk_r1cs_free(ol);
  czk_cs *wc;
  CHECK(czk_cs_witness_new(&wc, 0, 0) == CZK_OK);
  czk_snap_instance inst = {.info = info, .k = k, .comms = &u.comms, .part = &u.parts[k]};
  CHECK(czk_snap_synthesize(wc, &inst) == CZK_OK);
  czk_witness w;
  CHECK(czk_cs_witness_finish(wc, &w) == CZK_OK);
  size_t dom = (size_t)1 << shape->log_domain;
  czk_fr *ref = calloc(3 * dom, sizeof(czk_fr));
  CHECK(czk_r1cs_eval(shape, w.w, ref, ref + dom, ref + 2 * dom, NULL) == CZK_OK);
  uint64_t ni, na, rows, d;
  CHECK(czk_snap_assignment_size(info, &ni, &na, &rows, &d) == CZK_OK);
  CHECK(ni == shape->n_inputs && na == shape->n_aux && rows == shape->n_constraints && d == dom);
  czk_fr *ww = malloc((ni + na) * sizeof(czk_fr)), *abc = malloc(3 * dom * sizeof(czk_fr));
  CHECK(czk_snap_evaluate(&inst, NULL, ww, abc, abc + dom, abc + 2 * dom) == CZK_OK);
  CHECK(memcmp(ww, w.w, (ni + na) * sizeof(czk_fr)) == 0);
  CHECK(memcmp(abc, ref, 3 * dom * sizeof(czk_fr)) == 0);
  CHECK(czk_r1cs_first_unsatisfied(abc, abc + dom, abc + 2 * dom, dom) == SIZE_MAX);
  free(ww), free(abc), free(ref);
  czk_witness_free(&w);
  czk_r1cs_free(shape);
  czk_snap_update_free(&u);
}

static void test_evaluate(void) {
  evaluate_matches(czk_snap_info_by_wire(0), 21);
  if (g_full) {
    czk_snap_info s;
    czk_snap_shape(&s, 1u << 10, 8, 8, 2); /* two partitions, sub and top trees */
    evaluate_matches(&s, 22);
  }
}

int main(int argc, char **argv) {
  g_full = argc > 1 && strcmp(argv[1], "full") == 0;
  test_registry();
  test_challenge_vectors();
  test_spec_example();
  test_parse_rejects();
  test_check_rejects();
  test_generated();
  test_counts();
  test_satisfy();
  test_evaluate();
  free(g_example);
  return czk_test_done(g_full ? "test_snap_full" : "test_snap");
}
