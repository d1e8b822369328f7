/* test_porep_gen.c: PoRep challenges of every mode and the C1 generator/writer (filecoin-porep.md 4.3, 5):
 *  - the synthetic challenges against rust-fil-proofs' test_synth_challenges_against_hardcoded (2^10 nodes,
 *    replica_id 55, comm_r 101, 21 synthetic challenges, randomness [1; 32]);
 *  - the writer reproduces the real 8 MiB C1 output byte for byte from the values C2 reads;
 *  - dense 2 KiB seals in every mode (V1, V1_1, synthetic, non-interactive) and sparse interactive outputs of every
 *    size up to 512 MiB pass every native check, survive write -> parse unchanged, and their public inputs are the
 *    circuit's; a 2 KiB dense and sparse partition satisfies the circuit; tampered outputs fail with the reason.
 * Under `full`: 8 MiB dense, and a sparse 32 GiB output (about 51 MB) passes the checks and its partition 0 satisfies
 * the circuit (130,278,541 constraints; minutes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/porep.h"
#include "czk_test.h"

static bool g_full;

static void test_synth_vectors(void) {
  uint8_t rid[32] = {55}, comm_r[32] = {101}, rand[32];
  memset(rand, 1, 32);
  static const uint64_t synth[21] = {178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856,
                                     801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
  static const uint64_t porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
  for (uint64_t t = 0; t < 21; t++) CHECK_EQ_INT(czk_porep_synth_challenge(rid, comm_r, 1 << 10, t), synth[t]);
  for (uint64_t j = 0; j < 10; j++) {
    uint64_t t = czk_porep_synth_index(rid, rand, 21, j);
    CHECK_EQ_INT(czk_porep_synth_challenge(rid, comm_r, 1 << 10, t), porep[j]);
  }
  CHECK_EQ_INT(czk_porep_synth_count(64), 64);
  CHECK_EQ_INT(czk_porep_synth_count(1ull << 30), 1ull << 18);
  /* the modes differ: interactive ignores comm_r, synthetic and non-interactive depend on it */
  const czk_porep_info *v11 = czk_porep_info_by_wire(8), *syn = czk_porep_info_by_wire(13), *ni = czk_porep_info_by_wire(18);
  uint8_t comm_r2[32] = {102};
  CHECK(czk_porep_challenge_at(v11, rid, rand, comm_r, 3, 4) == czk_porep_challenge_at(v11, rid, rand, comm_r2, 3, 4));
  CHECK(czk_porep_challenge_at(syn, rid, rand, comm_r, 3, 4) != czk_porep_challenge_at(syn, rid, rand, comm_r2, 3, 4));
  CHECK(czk_porep_challenge_at(ni, rid, rand, comm_r, 3, 4) != czk_porep_challenge_at(ni, rid, rand, comm_r2, 3, 4));
  CHECK(czk_porep_challenge_at(ni, rid, rand, comm_r, 3, 4) == czk_porep_challenge_ni(rid, comm_r, 1ull << 30, 18 * 3 + 4));
  for (uint32_t j = 0; j < 200; j++) {
    uint64_t c = czk_porep_challenge_ni(rid, comm_r, 64, j);
    CHECK(c >= 1 && c < 64);
  }
}

static char *write_c1(const czk_porep_c1 *c1, size_t *len) {
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  CHECK(f != NULL);
  if (!f) return NULL;
  CHECK(czk_porep_c1_write(c1, f) == CZK_OK);
  fclose(f);
  return buf;
}

static void test_roundtrip_real(void) {
  size_t len, wlen;
  char *json = czk_test_read_file(czk_test_shared_path("fixtures/filecoin/porep-c1-8MiB.json"), &len);
  CHECK(json != NULL);
  if (!json) return;
  czk_porep_c1 c1;
  char err[256];
  CHECK_MSG(czk_porep_c1_parse(&c1, json, len, err, sizeof err) == CZK_OK, "%s", err);
  char *w = write_c1(&c1, &wlen);
  while (len && (json[len - 1] == '\n' || json[len - 1] == ' ')) len--;
  CHECK_EQ_INT(wlen, len);
  size_t at = 0;
  while (w && at < len && at < wlen && w[at] == json[at]) at++;
  CHECK_MSG(w && at == len, "the written C1 differs from the real one at byte %zu", at);
  free(w);
  czk_porep_c1_free(&c1);
  free(json);
}

/* the circuit over partition k is satisfied and its inputs are the recomputed public inputs */
static void satisfies(const czk_porep_c1 *c1, uint32_t k) {
  czk_porep_partition part;
  czk_porep_c1_partition(c1, k, &part);
  czk_porep_circuit c;
  czk_porep_circuit_of(c1->info, &c);
  czk_cs *cs;
  CHECK(czk_cs_checker_new(&cs) == CZK_OK);
  CHECK(czk_porep_synthesize(cs, &c, &part) == CZK_OK);
  size_t idx = 0;
  const char *name = NULL;
  CHECK_MSG(czk_cs_checker_result(cs, &idx, &name) == CZK_OK, "%s partition %u: constraint %zu (%s)", c1->info->name,
            k, idx, name ? name : "");
  size_t n = 3 + 18 * (size_t)c1->info->challenges;
  czk_fr *pub = malloc(n * sizeof *pub);
  CHECK(czk_porep_public_inputs(c1->info, c1->replica_id, c1->comm_d, c1->comm_r, c1->seed, k, pub, n) == CZK_OK);
  CHECK_EQ_INT(czk_cs_num_inputs(cs), n + 1);
  for (size_t i = 0; i < n; i++) {
    czk_fr got;
    CHECK(czk_cs_get_value(cs, (czk_var)(CZK_VAR_INPUT_BIT | (i + 1)), &got) == CZK_OK);
    CHECK_MSG(czk_fr_eq(&got, &pub[i]), "%s: public input %zu", c1->info->name, i + 1);
  }
  free(pub);
  czk_cs_free(cs);
}

/* generate, check, write, parse back (identical values), check again */
static void one(uint64_t wire, czk_porep_gen_mode mode, bool circuit) {
  const czk_porep_info *info = czk_porep_info_by_wire(wire);
  czk_porep_c1 c1, back;
  char err[256];
  size_t len;
  czk_status st = czk_porep_generate(info, mode, 7 + wire, 1000 + wire, 42, &c1);
  CHECK_MSG(st == CZK_OK, "%s %s: %s", info->name, mode ? "sparse" : "dense", czk_status_str(st));
  if (st != CZK_OK) return;
  CHECK_MSG(czk_porep_c1_check(&c1, 1000 + wire, 42, err, sizeof err) == CZK_OK, "%s: %s", info->name, err);
  CHECK(czk_porep_c1_check(&c1, 1000 + wire, 43, err, sizeof err) == CZK_ERR_VERIFY_FAILED);
  if (mode == CZK_POREP_GEN_SPARSE) {
    uint8_t zero_root[32];
    unsigned h = 0;
    while ((1ull << h) < info->sector_size / 32) h++;
    czk_fc_sha256_zero_root(zero_root, h);
    CHECK(memcmp(c1.comm_d, zero_root, 32) == 0);
  }
  char *json = write_c1(&c1, &len);
  CHECK_MSG(json && czk_porep_c1_parse(&back, json, len, err, sizeof err) == CZK_OK, "%s: %s", info->name, err);
  if (json) {
    CHECK(back.info == info && back.partitions == c1.partitions && back.challenges == c1.challenges);
    CHECK(memcmp(back.comm_r, c1.comm_r, 32) == 0 && memcmp(back.seed, c1.seed, 32) == 0 &&
          memcmp(back.ticket, c1.ticket, 32) == 0);
    size_t n = (size_t)c1.partitions * c1.challenges;
    bool same = true;
    for (size_t j = 0; j < n; j++) {
      const czk_porep_challenge *a = &c1.ch[j], *b = &back.ch[j];
      same = same && a->challenge == b->challenge && memcmp(a->data_leaf, b->data_leaf, 32) == 0 &&
             memcmp(&a->d_path, &b->d_path, sizeof a->d_path) == 0 &&
             memcmp(&a->r_path, &b->r_path, sizeof a->r_path) == 0 &&
             memcmp(&a->c_path, &b->c_path, sizeof a->c_path) == 0 && memcmp(a->drg, b->drg, sizeof a->drg) == 0 &&
             memcmp(a->exp, b->exp, sizeof a->exp) == 0;
    }
    CHECK_MSG(same, "%s: parsing the written C1 gives other values", info->name);
    CHECK(czk_porep_c1_check(&back, 1000 + wire, 42, err, sizeof err) == CZK_OK);
    czk_porep_c1_free(&back);
    /* the envelope reads to the same values */
    char *env = NULL;
    size_t elen;
    uint64_t num = 0, size = 0;
    FILE *f = open_memstream(&env, &elen);
    CHECK(f && czk_porep_envelope_write(f, (const uint8_t *)json, len, 42, info->sector_size) == CZK_OK);
    if (f) fclose(f);
    CHECK(czk_porep_c1_read(&back, (const uint8_t *)env, elen, &num, &size, err, sizeof err) == CZK_OK);
    CHECK(num == 42 && size == info->sector_size && back.info == info && memcmp(back.comm_r, c1.comm_r, 32) == 0 &&
          memcmp(back.ch, c1.ch, (size_t)c1.partitions * c1.challenges * sizeof *c1.ch) == 0);
    czk_porep_c1_free(&back);
    free(env);
  }
  free(json);
  if (circuit) satisfies(&c1, c1.partitions - 1);
  /* tampering: comm_r, a label of a parent, a TreeC sibling of the challenged column */
  uint32_t last = c1.partitions * c1.challenges - 1;
  c1.comm_r[0] ^= 1;
  CHECK(czk_porep_c1_check(&c1, 1000 + wire, 42, err, sizeof err) == CZK_ERR_VERIFY_FAILED);
  CHECK_MSG(strstr(err, "comm_r is not H(comm_c, comm_r_last)"), "%s: %s", info->name, err);
  c1.comm_r[0] ^= 1;
  c1.ch[last].drg[2].rows[info->layers - 1][4] ^= 1;
  CHECK(czk_porep_c1_check(&c1, 1000 + wire, 42, err, sizeof err) == CZK_ERR_VERIFY_FAILED && strstr(err, "DRG parent 2"));
  c1.ch[last].drg[2].rows[info->layers - 1][4] ^= 1;
  c1.ch[last].c_path.sib[0][2] ^= 1;
  CHECK(czk_porep_c1_check(&c1, 1000 + wire, 42, err, sizeof err) == CZK_ERR_VERIFY_FAILED &&
        strstr(err, "the column of the recomputed labels"));
  c1.ch[last].c_path.sib[0][2] ^= 1;
  CHECK(czk_porep_c1_check(&c1, 1000 + wire, 42, err, sizeof err) == CZK_OK);
  czk_porep_c1_free(&c1);
}

/* czk_porep_evaluate (challenges in parallel, each into its own slice) writes exactly what one sequential evaluator
 * writes: a 2 KiB circuit with 5 challenges (the generated ones repeated) */
static void test_parallel_eval(void) {
  czk_porep_c1 c1;
  CHECK(czk_porep_generate(czk_porep_info_by_wire(5), CZK_POREP_GEN_DENSE, 3, 1000, 1, &c1) == CZK_OK);
  czk_porep_challenge ch[5];
  for (int i = 0; i < 5; i++) ch[i] = c1.ch[i % 2];
  czk_porep_partition part;
  czk_porep_c1_partition(&c1, 0, &part);
  part.ch = ch;
  part.n_challenges = 5;
  czk_porep_circuit c;
  czk_porep_circuit_of(c1.info, &c);
  c.challenges = 5;
  czk_cs *cs;
  czk_cs_counts n;
  CHECK(czk_cs_counter_new(&cs) == CZK_OK);
  CHECK(czk_porep_synthesize(cs, &c, NULL) == CZK_OK);
  CHECK(czk_cs_counter_result(cs, &n) == CZK_OK);
  czk_cs_free(cs);
  czk_cs_counts sc; /* one and two challenges counted, scaled to 5: the same counts */
  CHECK(czk_porep_counts(&c, &sc) == CZK_OK);
  CHECK(sc.n_inputs == n.n_inputs && sc.n_aux == n.n_aux && sc.n_user_constraints == n.n_user_constraints &&
        sc.nnz_a == n.nnz_a && sc.nnz_b == n.nnz_b && sc.nnz_c == n.nnz_c && sc.b_aux_count == n.b_aux_count &&
        sc.a_aux_count == n.a_aux_count && sc.b_input_count == n.b_input_count && sc.log_domain == n.log_domain);
  /* the outline from one challenge repeated is the whole circuit's (counts, every density bit) */
  czk_r1cs *full = NULL, *rep = NULL;
  CHECK(czk_cs_counter_new(&cs) == CZK_OK);
  CHECK(czk_porep_synthesize(cs, &c, NULL) == CZK_OK);
  CHECK(czk_cs_counter_finish(cs, &full) == CZK_OK);
  CHECK(czk_porep_outline(&c, &rep) == CZK_OK);
  if (full && rep) {
    CHECK(full->n_inputs == rep->n_inputs && full->n_aux == rep->n_aux && full->n_constraints == rep->n_constraints &&
          full->log_domain == rep->log_domain && full->a.nnz == rep->a.nnz && full->b.nnz == rep->b.nnz &&
          full->c.nnz == rep->c.nnz && full->a_aux_count == rep->a_aux_count &&
          full->b_aux_count == rep->b_aux_count && full->b_input_count == rep->b_input_count);
    size_t wa = (full->n_aux + 63) / 64, wi = (full->n_inputs + 63) / 64;
    CHECK(memcmp(full->a_aux_density, rep->a_aux_density, wa * 8) == 0);
    CHECK(memcmp(full->b_aux_density, rep->b_aux_density, wa * 8) == 0);
    CHECK(memcmp(full->b_input_density, rep->b_input_density, wi * 8) == 0);
  }
  czk_r1cs_free(full);
  czk_r1cs_free(rep);
  size_t nw = n.n_inputs + n.n_aux, nr = n.n_user_constraints;
  czk_fr *w1 = calloc(nw, sizeof(czk_fr)), *w2 = calloc(nw, sizeof(czk_fr));
  czk_fr *r1 = calloc(3 * nr, sizeof(czk_fr)), *r2 = calloc(3 * nr, sizeof(czk_fr));
  CHECK(w1 && w2 && r1 && r2);
  if (!w1 || !w2 || !r1 || !r2) return;
  czk_cs_eval_out o = {w1 + 1, n.n_inputs - 1, w1 + n.n_inputs, n.n_aux, r1, r1 + nr, r1 + 2 * nr, nr};
  w1[0] = czk_fr_one_v;
  CHECK(czk_cs_evaluator_new(&cs, &o) == CZK_OK);
  CHECK(czk_porep_synthesize(cs, &c, &part) == CZK_OK);
  czk_cs_free(cs);
  czk_porep_eval_out po = {w2, n.n_inputs, n.n_aux, nr, r2, r2 + nr, r2 + 2 * nr};
  CHECK(czk_porep_evaluate(&c, &part, NULL, &po) == CZK_OK);
  CHECK(memcmp(w1, w2, nw * sizeof(czk_fr)) == 0);
  CHECK(memcmp(r1, r2, 3 * nr * sizeof(czk_fr)) == 0);
  /* sizes that are not the circuit's are refused */
  po.n_aux--;
  CHECK(czk_porep_evaluate(&c, &part, NULL, &po) == CZK_ERR_SIZE_MISMATCH);
  free(w1), free(w2), free(r1), free(r2);
  czk_porep_c1_free(&c1);
}

int main(int argc, char **argv) {
  g_full = argc > 1 && strcmp(argv[1], "full") == 0;
  test_synth_vectors();
  test_roundtrip_real();
  test_parallel_eval();
  one(0, CZK_POREP_GEN_DENSE, false);  /* V1 (API 1.0 graph) */
  one(5, CZK_POREP_GEN_DENSE, true);   /* V1_1 */
  one(10, CZK_POREP_GEN_DENSE, false); /* synthetic */
  one(15, CZK_POREP_GEN_DENSE, false); /* non-interactive: 13 partitions */
  one(5, CZK_POREP_GEN_SPARSE, true);
  one(6, CZK_POREP_GEN_SPARSE, false);
  one(7, CZK_POREP_GEN_SPARSE, false);
  one(2, CZK_POREP_GEN_SPARSE, false);
  czk_porep_c1 c1;
  CHECK(czk_porep_generate(czk_porep_info_by_wire(13), CZK_POREP_GEN_SPARSE, 1, 1, 1, &c1) == CZK_ERR_UNSUPPORTED);
  CHECK(czk_porep_generate(czk_porep_info_by_wire(7), CZK_POREP_GEN_DENSE, 1, 1, 1, &c1) == CZK_ERR_LIMIT);
  if (g_full) {
    one(6, CZK_POREP_GEN_DENSE, true);
    one(8, CZK_POREP_GEN_SPARSE, true); /* 32 GiB: ~51 MB of JSON, 130M constraints in the checker */
    one(9, CZK_POREP_GEN_SPARSE, false);
  }
  return czk_test_done(g_full ? "test_porep_gen_full" : "test_porep_gen");
}
