/* test_porep.c: PoRep C2 (filecoin-porep.md): the registered seal proofs and the v28 parameter names of the spec
 * (1.2, recomputed there from the identifier and found in rust-fil-proofs' parameters.json); the StackedDRG partition
 * circuit's counts by counting synthesis against every count the reference asserts or the spec derives: the four
 * test circuits of rust-fil-proofs' stacked_circuit.rs (1,206,212 / 1,199,620 / 1,296,576 / 1,346,982 constraints,
 * 22 inputs) and 2 KiB (2,687,921 constraints, 40 inputs, 2,685,673 aux) quick; 8 MiB, 512 MiB, 32 GiB (130,278,541,
 * 328 inputs, 130,169,893 aux) and 64 GiB under `full`. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/porep.h"
#include "czk_test.h"

static bool g_full;

static void test_registry(void) {
  static const char *tails[5] = {"8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
                                 "8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
                                 "8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
                                 "8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
                                 "8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"};
  for (uint64_t w = 0; w < CZK_POREP_N_PROOFS; w++) {
    const czk_porep_info *info = czk_porep_info_by_wire(w);
    CHECK(info && info->wire == w);
    char stem[240], want[240];
    czk_porep_param_stem(info, stem, sizeof stem);
    snprintf(want, sizeof want, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-%s", tails[w % 5]);
    CHECK_MSG(strcmp(stem, want) == 0, "wire %llu: %s", (unsigned long long)w, stem);
  }
  CHECK(czk_porep_info_by_wire(20) == NULL);
  const czk_porep_info *p = czk_porep_info_by_wire(8);
  CHECK(strcmp(p->name, "StackedDrg32GiBV1_1") == 0 && p->layers == 11 && p->partitions == 10 && p->challenges == 18);
  p = czk_porep_info_by_wire(18);
  CHECK(strcmp(p->name, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep") == 0 && p->partitions == 126);
  CHECK(strcmp(czk_porep_info_by_wire(10)->name, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep") == 0);
  CHECK(czk_porep_info_for_size(64ull << 30) == czk_porep_info_by_wire(9));
  CHECK(strcmp(czk_porep_circuit_id(czk_porep_info_by_wire(13)), "porep-32g") == 0);
}

static void count(const char *what, const czk_porep_circuit *c, uint64_t constraints, uint64_t inputs, uint64_t aux) {
  czk_cs *cs;
  CHECK(czk_cs_counter_new(&cs) == CZK_OK);
  CHECK(czk_porep_synthesize(cs, c, NULL) == CZK_OK);
  czk_cs_counts n;
  CHECK(czk_cs_counter_result(cs, &n) == CZK_OK);
  CHECK_MSG(n.n_user_constraints == constraints && n.n_inputs == inputs,
            "%s: %llu constraints / %llu inputs, want %llu / %llu", what, (unsigned long long)n.n_user_constraints,
            (unsigned long long)n.n_inputs, (unsigned long long)constraints, (unsigned long long)inputs);
  if (aux) CHECK_MSG(n.n_aux == aux, "%s: %llu aux, want %llu", what, (unsigned long long)n.n_aux, (unsigned long long)aux);
  czk_cs_free(cs);
  /* the scaled counts (one and two challenges) are the whole circuit's, every field */
  czk_cs_counts s;
  memset(&s, 0, sizeof s);
  CHECK(czk_porep_counts(c, &s) == CZK_OK);
  CHECK_MSG(s.n_inputs == n.n_inputs && s.n_aux == n.n_aux && s.n_user_constraints == n.n_user_constraints &&
                s.n_constraints == n.n_constraints && s.log_domain == n.log_domain && s.nnz_a == n.nnz_a &&
                s.nnz_b == n.nnz_b && s.nnz_c == n.nnz_c && s.a_aux_count == n.a_aux_count &&
                s.b_input_count == n.b_input_count && s.b_aux_count == n.b_aux_count,
            "%s: scaled counts differ from the counted ones", what);
}

static void test_counts(void) {
  /* rust-fil-proofs storage-proofs-porep/tests/stacked_circuit.rs: L = 2, one challenge */
  count("test 2-0-0", &(czk_porep_circuit){8, 2, 1, 2, 0, 0}, 1206212, 22, 0);
  count("test 8-0-0", &(czk_porep_circuit){8, 2, 1, 8, 0, 0}, 1199620, 22, 0);
  count("test 8-4-0", &(czk_porep_circuit){32, 2, 1, 8, 4, 0}, 1296576, 22, 0);
  count("test 8-4-2", &(czk_porep_circuit){64, 2, 1, 8, 4, 2}, 1346982, 22, 0);
  static const struct {
    uint64_t wire, constraints, inputs, aux;
  } sizes[] = {{5, 2687921, 40, 2685673},
               {6, 3844929, 40, 3842449},
               {7, 4423433, 40, 4420837},
               {8, 130278541, 328, 130169893},
               {9, 131185849, 328, 131076643}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    if (i > 0 && !g_full) break;
    czk_porep_circuit c;
    czk_porep_circuit_of(czk_porep_info_by_wire(sizes[i].wire), &c);
    count(czk_porep_info_by_wire(sizes[i].wire)->name, &c, sizes[i].constraints, sizes[i].inputs, sizes[i].aux);
  }
  /* bad parameters */
  czk_cs *cs;
  CHECK(czk_cs_counter_new(&cs) == CZK_OK);
  CHECK(czk_porep_synthesize(cs, &(czk_porep_circuit){100, 2, 1, 8, 0, 0}, NULL) == CZK_ERR_INVALID_ARG);
  CHECK(czk_porep_synthesize(cs, &(czk_porep_circuit){64, 12, 1, 8, 0, 0}, NULL) == CZK_ERR_INVALID_ARG);
  czk_cs_free(cs);
}

/* The real 8 MiB C1 output (fixtures/filecoin/porep-c1-8MiB.json, a sector no one here sealed) satisfies our circuit,
 * and the circuit's public inputs are the 39 the meta file lists (recomputed there from public data by the spec's
 * model: replica id, comm_d, comm_r, then per challenge its TreeD index, 6 DRG and 8 expander parents, and 3 x the
 * challenge). A damaged C1 is refused with the field named. */
static void test_real_c1(void) {
  size_t len, mlen;
  char *json = czk_test_read_file(czk_test_shared_path("fixtures/filecoin/porep-c1-8MiB.json"), &len);
  char *meta = czk_test_read_file(czk_test_shared_path("fixtures/filecoin/porep-c1-8MiB.meta.json"), &mlen);
  CHECK(json && meta);
  if (!json || !meta) return;
  czk_porep_c1 c1;
  char err[256];
  CHECK_MSG(czk_porep_c1_parse(&c1, json, len, err, sizeof err) == CZK_OK, "%s", err);
  CHECK(c1.info == czk_porep_info_by_wire(6) && c1.partitions == 1 && c1.challenges == 2);
  CHECK(c1.ch[0].challenge == 151786 && c1.ch[1].challenge == 237493);
  czk_porep_partition part;
  czk_porep_c1_partition(&c1, 0, &part);
  czk_porep_circuit c;
  czk_porep_circuit_of(c1.info, &c);
  czk_cs *cs;
  CHECK(czk_cs_checker_new(&cs) == CZK_OK);
  CHECK(czk_porep_synthesize(cs, &c, &part) == CZK_OK);
  size_t idx = 0;
  const char *name = NULL;
  czk_status st = czk_cs_checker_result(cs, &idx, &name);
  CHECK_MSG(st == CZK_OK, "the real 8 MiB C1 does not satisfy the circuit: constraint %zu (%s)", idx, name ? name : "");
  CHECK_EQ_INT(czk_cs_num_constraints(cs), 3844929);
  CHECK_EQ_INT(czk_cs_num_inputs(cs), 40);
  /* the 39 public inputs */
  const char *p = strstr(meta, "\"public_inputs_partition0_decimal\"");
  p = p ? strchr(p, '[') : NULL;
  CHECK(p != NULL);
  for (uint32_t i = 1; p && i < 40; i++) {
    const char *q = strchr(p, '"');
    if (!q) break;
    size_t n = strcspn(q + 1, "\"");
    char dec[100];
    snprintf(dec, sizeof dec, "%.*s", (int)n, q + 1);
    czk_fr want, got;
    CHECK(czk_fr_from_str(&want, dec) == CZK_OK);
    CHECK(czk_cs_get_value(cs, (czk_var)(CZK_VAR_INPUT_BIT | i), &got) == CZK_OK);
    CHECK_MSG(czk_fr_eq(&want, &got), "public input %u differs from the meta file's %s", i, dec);
    p = q + 2 + n;
  }
  /* the same 39 inputs recomputed from public data alone: prover id (miner 1006), sector 1498, ticket, comm_d and
   * porep_id give the replica id; it and the seed give the challenges; the graph gives the parents */
  uint8_t prover[32], pid[32], rid[32];
  czk_porep_prover_id(prover, 1006);
  CHECK(prover[0] == 0xee && prover[1] == 0x07 && prover[2] == 0);
  czk_porep_id(c1.info, pid);
  czk_porep_replica_id(rid, prover, 1498, c1.ticket, c1.comm_d, pid);
  CHECK(memcmp(rid, c1.replica_id, 32) == 0);
  czk_fr pub[39];
  CHECK(czk_porep_public_inputs(c1.info, rid, c1.comm_d, c1.comm_r, c1.seed, 0, pub, 39) == CZK_OK);
  bool same = true;
  for (uint32_t i = 0; i < 39; i++) {
    czk_fr got;
    czk_cs_get_value(cs, (czk_var)(CZK_VAR_INPUT_BIT | (i + 1)), &got);
    if (!czk_fr_eq(&got, &pub[i])) same = false;
  }
  CHECK_MSG(same, "recomputed public inputs differ from the circuit's");
  CHECK(czk_porep_challenge_interactive(rid, c1.seed, 1ull << 18, 0) == 151786);
  CHECK(czk_porep_challenge_interactive(rid, c1.seed, 1ull << 18, 1) == 237493);
  /* the synthetic variant of the size (id 11) selects other challenges from the same data */
  czk_fr syn[39];
  CHECK(czk_porep_public_inputs(czk_porep_info_by_wire(11), rid, c1.comm_d, c1.comm_r, c1.seed, 0, syn, 39) == CZK_OK);
  CHECK(czk_fr_eq(&syn[0], &pub[0]) && !czk_fr_eq(&syn[3], &pub[3]));
  /* every native check passes; a wrong miner or sector (replica id), and tampered values fail, naming what differs */
  CHECK_MSG(czk_porep_c1_check(&c1, 1006, 1498, err, sizeof err) == CZK_OK, "%s", err);
  CHECK(czk_porep_c1_check(&c1, 1007, 1498, err, sizeof err) == CZK_ERR_VERIFY_FAILED && strstr(err, "replica_id"));
  CHECK(czk_porep_c1_check(&c1, 1006, 1499, err, sizeof err) == CZK_ERR_VERIFY_FAILED && strstr(err, "sector 1499"));
  static const struct {
    size_t off;
    const char *needle;
  } tamper[] = {{offsetof(czk_porep_challenge, data_leaf) + 3, "challenge 0 (node 151786): the TreeD path"},
             {offsetof(czk_porep_challenge, drg) + offsetof(czk_porep_column, rows) + 40, "DRG parent 0 column"},
             {offsetof(czk_porep_challenge, exp) + 5 * sizeof(czk_porep_column) + offsetof(czk_porep_column, path) +
                  offsetof(czk_porep_path, sib) + 7,
              "expander parent 5 column"},
             {offsetof(czk_porep_challenge, r_path) + offsetof(czk_porep_path, sib) + 1, "is not in TreeR_last"},
             {offsetof(czk_porep_challenge, c_path) + offsetof(czk_porep_path, index), "labels path opens another"}};
  for (size_t i = 0; i < sizeof tamper / sizeof tamper[0]; i++) {
    uint8_t *byte = (uint8_t *)&c1.ch[0] + tamper[i].off;
    *byte ^= 1;
    CHECK(czk_porep_c1_check(&c1, 1006, 1498, err, sizeof err) == CZK_ERR_VERIFY_FAILED);
    CHECK_MSG(strstr(err, tamper[i].needle) != NULL, "%s (wanted %s)", err, tamper[i].needle);
    *byte ^= 1;
  }
  c1.ch[1].challenge++;
  CHECK(czk_porep_c1_check(&c1, 1006, 1498, err, sizeof err) == CZK_ERR_VERIFY_FAILED &&
        strstr(err, "challenge 1: node 237494, the interactive challenge derived"));
  c1.ch[1].challenge--;
  CHECK(czk_porep_c1_check(&c1, 1006, 1498, err, sizeof err) == CZK_OK);
  czk_cs_free(cs);
  /* a flipped row byte (the circuit is then unsatisfied), and damaged documents */
  c1.ch[1].exp[3].rows[1][5] ^= 1;
  czk_porep_c1_partition(&c1, 0, &part);
  CHECK(czk_cs_checker_new(&cs) == CZK_OK);
  CHECK(czk_porep_synthesize(cs, &c, &part) == CZK_OK);
  CHECK(czk_cs_checker_result(cs, NULL, NULL) == CZK_ERR_UNSATISFIED);
  czk_cs_free(cs);
  czk_porep_c1_free(&c1);
  CHECK(czk_porep_c1_parse(&c1, json, len / 2, err, sizeof err) == CZK_ERR_TRUNCATED);
  char *bad = strdup(json), *at = strstr(bad, "\"drg_parents\":[");
  if (at) memcpy(at, "\"drg_parentz\"", 13);
  CHECK(czk_porep_c1_parse(&c1, bad, len, err, sizeof err) == CZK_ERR_FORMAT);
  CHECK_MSG(strstr(err, "partition 0 challenge 0") && strstr(err, "drg_parents"), "%s", err);
  free(bad);
  bad = strdup(json);
  at = strstr(bad, "\"StackedDrg8MiBV1_1\"");
  if (at) memcpy(at, "\"StackedDrg8MiBV9_1\"", 20);
  CHECK(czk_porep_c1_parse(&c1, bad, len, err, sizeof err) == CZK_ERR_FORMAT && strstr(err, "StackedDrg8MiBV9_1"));
  free(bad);
  free(json);
  free(meta);
}

/* ------------------------------------------------------------------------------------------------ the C1 reader */
/* s with the first occurrence of `needle` replaced by `repl` (heap; NULL when absent) */
static char *subst(const char *s, const char *needle, const char *repl) {
  const char *at = strstr(s, needle);
  if (!at) return NULL;
  size_t a = (size_t)(at - s), n = strlen(needle), r = strlen(repl), len = strlen(s);
  char *o = malloc(len - n + r + 1);
  memcpy(o, s, a);
  memcpy(o + a, repl, r);
  memcpy(o + a + r, at + n, len - a - n + 1);
  return o;
}

/* A bare C1 (envelope = false: czk_porep_c1_parse) or a request body (czk_porep_c1_read) gets status `st` and a
 * message containing `needle`; on success its values equal `want` (when given). Takes ownership of doc. */
static void expect(char *doc, bool envelope, czk_status st, const char *needle, const czk_porep_c1 *want,
                   const char *what) {
  CHECK_MSG(doc != NULL, "%s: the fixture lacks the text to change", what);
  if (!doc) return;
  czk_porep_c1 c1;
  char err[320] = "(not set)";
  uint64_t num = 0, size = 0;
  czk_status got = envelope ? czk_porep_c1_read(&c1, (const uint8_t *)doc, strlen(doc), &num, &size, err, sizeof err)
                            : czk_porep_c1_parse(&c1, doc, strlen(doc), err, sizeof err);
  CHECK_MSG(got == st && strstr(err, needle), "%s: %s \"%s\", wanted %s \"%s\"", what, czk_status_name(got), err,
            czk_status_name(st), needle);
  if (got == CZK_OK && want) {
    CHECK_MSG(c1.info == want->info && c1.partitions == want->partitions && c1.challenges == want->challenges &&
                  memcmp(c1.comm_r, want->comm_r, 32) == 0 && memcmp(c1.seed, want->seed, 32) == 0 &&
                  memcmp(c1.ch, want->ch, (size_t)c1.partitions * c1.challenges * sizeof *c1.ch) == 0 &&
                  memcmp(c1.comm_c, want->comm_c, 32) == 0 && memcmp(c1.comm_r_last, want->comm_r_last, 32) == 0,
              "%s: values differ from the bare C1's", what);
  }
  if (got == CZK_OK) czk_porep_c1_free(&c1);
  free(doc);
}

static char *envelope_of(const char *json, size_t len, const char *fmt) {
  char *b64 = czk_test_base64(json, len);
  size_t n = strlen(b64) + strlen(fmt) + 64;
  char *env = malloc(n);
  snprintf(env, n, fmt, b64);
  free(b64);
  return env;
}

static char *cat3(const char *a, const char *b, const char *c) {
  size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
  char *o = malloc(n);
  snprintf(o, n, "%s%s%s", a, b, c);
  return o;
}

static char *repeat(const char *s, int n) {
  size_t k = strlen(s);
  char *o = malloc(k * (size_t)n + 1);
  for (int i = 0; i < n; i++) memcpy(o + k * (size_t)i, s, k);
  o[k * (size_t)n] = 0;
  return o;
}

/* The streaming reader on the real 8 MiB C1: the envelope (any key order, whitespace, JSON escapes in the base64)
 * gives exactly the bare values and the meta file's comm_c / comm_r_last; unknown keys and values are ignored in any
 * key order; truncation anywhere, wrong lengths, bytes out of range, non-canonical domains, bad integers, duplicate
 * keys, deep nesting, a tree larger than its text allows, broken JSON and broken base64 each get their error. */
static void test_c1_reader(void) {
  size_t len, mlen;
  char *json = czk_test_read_file(czk_test_shared_path("fixtures/filecoin/porep-c1-8MiB.json"), &len);
  char *meta = czk_test_read_file(czk_test_shared_path("fixtures/filecoin/porep-c1-8MiB.meta.json"), &mlen);
  CHECK(json && meta);
  if (!json || !meta) return;
  czk_porep_c1 base;
  char err[320];
  CHECK_MSG(czk_porep_c1_parse(&base, json, len, err, sizeof err) == CZK_OK, "%s", err);
  static const char *hexes[2] = {"\"comm_c_hex\"", "\"comm_r_last_hex\""};
  const uint8_t *got[2] = {base.comm_c[0], base.comm_r_last[0]};
  for (size_t i = 0; i < 2; i++) {
    const char *h = strstr(meta, hexes[i]);
    h = h ? strchr(h + strlen(hexes[i]), '"') : NULL;
    uint8_t want[32] = {0};
    for (int b = 0; h && b < 32; b++) {
      unsigned v = 0;
      if (sscanf(h + 1 + 2 * b, "%2x", &v) != 1) h = NULL;
      want[b] = (uint8_t)v;
    }
    CHECK_MSG(h && memcmp(want, got[i], 32) == 0, "%s differs from the meta file", hexes[i]);
  }

  /* envelopes and bare documents that read to the same values */
  expect(envelope_of(json, len, "{\"SectorNum\":1498,\"Phase1Out\":\"%s\",\"SectorSize\":8388608}"), true, CZK_OK, "",
         &base, "envelope");
  expect(envelope_of(json, len, " {\n \"SectorSize\" : 8388608 ,\"Other\":[1,{\"Phase1Out\":2}], \"Phase1Out\" : \"%s\","
                                "\"SectorNum\":1498 }\n"),
         true, CZK_OK, "", &base, "envelope, keys reordered");
  {
    char *b64 = czk_test_base64(json, len), *esc = malloc(2 * strlen(b64) + 64), *q = esc;
    q += sprintf(q, "{\"SectorNum\":1,\"Phase1Out\":\"");
    for (const char *c = b64; *c; c++) {
      if (*c == '/') *q++ = '\\';
      *q++ = *c;
    }
    sprintf(q, "\",\"SectorSize\":8388608}");
    free(b64);
    expect(esc, true, CZK_OK, "", &base, "envelope, '/' escaped as '\\/'");
  }
  expect(strdup(json), true, CZK_OK, "", &base, "bare C1 through czk_porep_c1_read");
  {
    static const char first[] = "{\"registered_proof\":\"StackedDrg8MiBV1_1\",";
    CHECK(strncmp(json, first, sizeof first - 1) == 0);
    char *rest = strndup(json + sizeof first - 1, len - (sizeof first - 1) - 1);
    char *moved = cat3("{\"zz\":{\"a\":[1,2,300,-1,1.5,1e400,99999999999999999999999],\"b\":null,\"c\":true,\"d\":\"x\"},",
                       rest, ",\"registered_proof\":\"StackedDrg8MiBV1_1\",\"_h\":[]}");
    expect(moved, false, CZK_OK, "", &base, "registered_proof last, unknown keys");
    free(rest);
  }

  /* truncated anywhere */
  for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
    char *doc = strndup(json, cut), what[64];
    snprintf(what, sizeof what, "cut at %zu", cut);
    expect(doc, false, CZK_ERR_TRUNCATED, cut ? "truncated: the JSON ends inside a value" : "no JSON value", NULL, what);
  }
  {
    char *half = envelope_of(json, len / 2, "{\"SectorNum\":1,\"Phase1Out\":\"%s\",\"SectorSize\":8388608}");
    expect(half, true, CZK_ERR_TRUNCATED, "Phase1Out: truncated", NULL, "envelope of half a C1");
    char *env = envelope_of(json, len, "{\"SectorNum\":1,\"Phase1Out\":\"%s\",\"SectorSize\":8388608}");
    env[strlen(env) / 2] = 0;
    expect(env, true, CZK_ERR_TRUNCATED, "truncated", NULL, "envelope cut in the middle");
  }

  /* wrong lengths, indexes and bytes */
  static const char zeros[] = "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]";
  char buf[512];
  expect(subst(json, "\"comm_r\":[124,", "\"comm_r\":["), false, CZK_ERR_FORMAT,
         "comm_r is not an array of 32 bytes (an array of 31)", NULL, "31-byte comm_r");
  expect(subst(json, "\"comm_r\":[124,", "\"comm_r\":[300,"), false, CZK_ERR_FORMAT,
         "comm_r[0] is not a byte (the number 300)", NULL, "comm_r byte 300");
  expect(subst(json, "\"comm_r\":[124,", "\"comm_r\":[\"124\","), false, CZK_ERR_FORMAT,
         "comm_r[0] is not a byte (a string)", NULL, "comm_r byte as a string");
  snprintf(buf, sizeof buf, "{\"hashes\":[%s],\"index\":0},", zeros);
  expect(subst(json, buf, ""), false, CZK_ERR_FORMAT,
         "partition 0 challenge 0: comm_d_proofs: the path must have 18 elements (an array of 17)", NULL,
         "TreeD path of 17");
  snprintf(buf, sizeof buf, "\"hashes\":[%s,%s]", zeros, zeros);
  char needle[128];
  snprintf(needle, sizeof needle, "\"hashes\":[%s]", zeros);
  expect(subst(json, needle, buf), false, CZK_ERR_FORMAT,
         "partition 0 challenge 0: comm_d_proofs element 0: needs 1 hashes (an array of 2)", NULL, "2 TreeD siblings");
  snprintf(buf, sizeof buf, "\"rows\":[%s,", zeros);
  expect(subst(json, "\"rows\":[", buf), false, CZK_ERR_FORMAT,
         "partition 0 challenge 0: c_x: column rows must be 2 (an array of 3)", NULL, "3 rows");
  snprintf(buf, sizeof buf, "\"parents\":[%s,", zeros);
  expect(subst(json, "\"parents\":[", buf), false, CZK_ERR_FORMAT,
         "partition 0 challenge 0: labeling_proofs[0]: parents must hold 37 labels (an array of 38)", NULL,
         "38 labeling parents");
  expect(subst(json, "\"StackedDrg8MiBV1\":[[", "\"StackedDrg8MiBV1\":[[],["), false, CZK_ERR_FORMAT,
         "vanilla_proofs.StackedDrg8MiBV1 must hold 1 partitions (an array of 2)", NULL, "2 partitions");
  expect(subst(json, "\"StackedDrg8MiBV1\":[[", "\"StackedDrg8MiBV1\":[[{},"), false, CZK_ERR_FORMAT,
         "partition 0: must hold 2 challenge proofs (an array of 3)", NULL, "3 challenges");
  expect(subst(json, "\"drg_parents\":[", "\"drg_parents\":[1,2,3,4,5,6],\"x\":["), false, CZK_ERR_FORMAT,
         "partition 0 challenge 0: drg_parents must hold 6 column proofs (an array of 6)", NULL, "drg_parents of bytes");
  snprintf(buf, sizeof buf, "%s],\"index\":2}", zeros);
  snprintf(needle, sizeof needle, "%s],\"index\":0}", zeros);
  expect(subst(json, needle, buf), false, CZK_ERR_FORMAT,
         "partition 0 challenge 0: comm_d_proofs element 0 index is 2, not below the arity 2", NULL, "index 2 in TreeD");

  /* integers */
  snprintf(buf, sizeof buf, "%s],\"index\":18446744073709551616}", zeros);
  expect(subst(json, needle, buf), false, CZK_ERR_FORMAT,
         "comm_d_proofs element 0 index is not an unsigned integer (a number above 2^64 - 1)", NULL, "index 2^64");
  snprintf(buf, sizeof buf, "%s],\"index\":-1}", zeros);
  expect(subst(json, needle, buf), false, CZK_ERR_FORMAT,
         "comm_d_proofs element 0 index is not an unsigned integer (a negative number)", NULL, "index -1");
  snprintf(buf, sizeof buf, "%s],\"index\":0.0}", zeros);
  expect(subst(json, needle, buf), false, CZK_ERR_FORMAT,
         "comm_d_proofs element 0 index is not an unsigned integer (a number with a fraction or exponent)", NULL,
         "index 0.0");
  expect(subst(json, "\"node\":151786}", "\"node\":151786000000000000000000000000}"), false, CZK_ERR_FORMAT,
         "partition 0 challenge 0: labeling_proofs[0].node is not an unsigned integer (a number above 2^64 - 1)",
         NULL, "huge node");
  {
    char *digits = repeat("9", 100000), *big = cat3("{\"zz\":", digits, ",");
    char *doc = subst(json, "{", big);
    expect(doc, false, CZK_OK, "", &base, "a 100000-digit number in an unknown key");
    free(digits);
    free(big);
  }

  /* canonical domains (seed and ticket are raw bytes) */
  static const char ones[] = "[255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,"
                             "255,255,255,255,255,255,255,255,255,255]";
  const char *cr = strstr(json, "\"comm_r\":[");
  snprintf(needle, sizeof needle, "%.*s", (int)(strchr(cr, ']') - cr + 1), cr);
  snprintf(buf, sizeof buf, "\"comm_r\":%s", ones);
  expect(subst(json, needle, buf), false, CZK_ERR_NOT_CANONICAL, "comm_r is not a canonical field element", NULL,
         "comm_r all 0xff");
  /* r itself (little-endian) is not canonical, r - 1 is */
  snprintf(buf, sizeof buf, "\"comm_r\":[1,0,0,0,255,255,255,255,254,91,254,255,2,164,189,83,5,216,161,9,8,216,57,51,72,"
                            "125,157,41,83,167,237,115]");
  expect(subst(json, needle, buf), false, CZK_ERR_NOT_CANONICAL, "comm_r is not a canonical field element", NULL,
         "comm_r = r");
  buf[10] = '0';
  expect(subst(json, needle, buf), false, CZK_OK, "", NULL, "comm_r = r - 1");
  snprintf(needle, sizeof needle, "\"hashes\":[%s]", zeros);
  snprintf(buf, sizeof buf, "\"hashes\":[%s]", ones);
  expect(subst(json, needle, buf), false, CZK_ERR_NOT_CANONICAL,
         "partition 0 challenge 0: comm_d_proofs element 0 hash 0 is not a canonical field element", NULL,
         "TreeD sibling all 0xff");
  const char *sd = strstr(json, "\"seed\":[");
  snprintf(needle, sizeof needle, "%.*s", (int)(strchr(sd, ']') - sd + 1), sd);
  snprintf(buf, sizeof buf, "\"seed\":%s", ones);
  expect(subst(json, needle, buf), false, CZK_OK, "", NULL, "seed all 0xff (raw bytes)");

  /* duplicate keys, nesting, size bound, broken JSON */
  {
    char *dup = cat3("{\"seed\":", zeros, ",");
    expect(subst(json, "{", dup), false, CZK_ERR_FORMAT, "the key \"seed\" appears twice in one object", NULL,
           "duplicate seed");
    free(dup);
  }
  char *open = repeat("[", 100), *close = repeat("]", 100), *deep = cat3(open, "", close);
  expect(strdup(deep), false, CZK_ERR_LIMIT, "nested deeper than 64 levels (at byte 65)", NULL, "100 nested arrays");
  {
    char *key = cat3("{\"zz\":", deep, ",");
    expect(subst(json, "{", key), false, CZK_ERR_LIMIT, "nested deeper than 64 levels", NULL, "deep unknown key");
    char *c1 = subst(json, "{", key);
    char *env = envelope_of(c1, strlen(c1), "{\"SectorNum\":1,\"Phase1Out\":\"%s\",\"SectorSize\":2}");
    expect(env, true, CZK_ERR_LIMIT, "Phase1Out: nested deeper than 64 levels", NULL, "deep unknown key, envelope");
    free(c1);
    free(key);
  }
  free(open);
  free(close);
  free(deep);
  {
    char *many = repeat("[],", 200000), *doc = cat3("[", many, "[]]");
    expect(doc, false, CZK_ERR_LIMIT, "the JSON holds more values than its size allows", NULL, "200000 empty arrays");
    free(many);
  }
  expect(cat3(json, " x", ""), false, CZK_ERR_FORMAT, "not JSON at byte", NULL, "trailing garbage");
  expect(subst(json, "\"comm_r\":", "\"comm_r\";"), false, CZK_ERR_FORMAT, "not JSON at byte", NULL, "';' for ':'");
  expect(strdup("[1,2,3]"), false, CZK_ERR_FORMAT, "the C1 output is not a JSON object (an array of 3)", NULL, "array");

  /* envelopes that are not */
  static const struct {
    const char *body, *why;
    czk_status st;
  } bad[] = {
      {"{\"SectorNum\":1,\"Phase1Out\":\"e30*\",\"SectorSize\":2048}", "not standard base64: character 3 is '*'", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"e3=0\",\"SectorSize\":2048}", "not standard base64: bad padding at character 0", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"e31=\",\"SectorSize\":2048}", "not standard base64: bad padding", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"e30\",\"SectorSize\":2048}", "its length 3 is not a multiple of 4", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"e30=e30=\",\"SectorSize\":2048}", "bad padding at character 0", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"\\u00ff30\",\"SectorSize\":2048}", "character 0 is byte 0xc3", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":null,\"SectorSize\":2048}", "envelope without a Phase1Out base64 string (Phase1Out is null)", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"SectorSize\":2048}", "envelope without a Phase1Out base64 string (Phase1Out is missing)", CZK_ERR_FORMAT},
      {"{\"SectorNum\":-1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}", "envelope SectorNum is not an unsigned integer (a negative number)", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"e30=\"}", "envelope SectorSize is not an unsigned integer (missing)", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"Phase1Out\":\"e30=\",\"SectorSize\":2048}", "\"Phase1Out\" appears twice", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}", "registered_proof (missing) is not a known seal proof", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"aGVsbG8=\",\"SectorSize\":2048}", "Phase1Out: not JSON at byte 1: lexical error", CZK_ERR_FORMAT},
      {"{\"SectorNum\":1,\"Phase1Out\":\"\",\"SectorSize\":2048}", "Phase1Out: no JSON value in 0 bytes", CZK_ERR_TRUNCATED},
      {"[1,2,3]", "neither a C1 output nor a cuzk envelope {SectorNum, Phase1Out, SectorSize}: the JSON is an array of 3", CZK_ERR_FORMAT},
      {"", "no JSON value in 0 bytes", CZK_ERR_TRUNCATED}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char what[32];
    snprintf(what, sizeof what, "bad envelope %zu", i);
    expect(strdup(bad[i].body), true, bad[i].st, bad[i].why, NULL, what);
  }
  {
    char *env = envelope_of(json, len, "{\"SectorNum\":1,\"Phase1Out\":\"%s\",\"SectorSize\":8388608}");
    char *b = strstr(env, "Phase1Out\":\"") + 12;
    b[200001] = '!';
    expect(env, true, CZK_ERR_FORMAT, "not standard base64: character 200001 is '!'", NULL, "'!' in the 4th piece");
  }
  czk_porep_c1_free(&base);
  free(json);
  free(meta);
}

int main(int argc, char **argv) {
  g_full = argc > 1 && strcmp(argv[1], "full") == 0;
  test_registry();
  test_counts();
  test_real_c1();
  test_c1_reader();
  return czk_test_done(g_full ? "test_porep_full" : "test_porep");
}
