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
  CHECK(czk_porep_c1_parse(&c1, json, len / 2, err, sizeof err) == CZK_ERR_FORMAT);
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

int main(int argc, char **argv) {
  g_full = argc > 1 && strcmp(argv[1], "full") == 0;
  test_registry();
  test_counts();
  test_real_c1();
  return czk_test_done(g_full ? "test_porep_full" : "test_porep");
}
