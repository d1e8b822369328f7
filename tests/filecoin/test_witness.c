/* test_witness.c: witness-only synthesis (czk_porep_witness, czk_post_witness, czk_snap_witness on witness writers)
 * is exact: its w equals, element for element, the w the evaluator (czk_*_evaluate, witness + a/b/c) writes for the
 * same input, and it satisfies the circuit (the recorded shape's rows hold, or the evaluator's rows hold). Cases:
 * PoRep 2 KiB (generated, dense), WinningPoSt / WindowPoSt 2 KiB (both API versions), SnapDeals 2 KiB; under `full`
 * the real 8 MiB C1 fixture (fixtures/filecoin/porep-c1-8MiB.json through the C1 parser) and a 5-challenge PoRep.
 * The native witness-mode SHA-256 against the gadget on a checker, over inputs mixing constant, allocated and
 * negated bits. Negative controls: one corrupted input value (a data leaf, a path sibling, a leaf of a PoSt opening) gives a
 * different w, which the shape's check or the evaluator's rows reject; sizes that are not the circuit's are refused;
 * a witness writer never writes past its capacities. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/gadgets.h"
#include "czk/porep.h"
#include "czk/post.h"
#include "czk/snap.h"
#include "czk_test.h"

static bool g_full;

/* ------------------------------------------------------------------------------------------------ witness writer */
static void test_writer(void) {
  czk_fr in[3], aux[4];
  in[0] = czk_fr_one_v;
  czk_cs_witness_at at = {in, aux, 1, 0, 0, 1, 4, 3};
  czk_cs *cs;
  CHECK(czk_cs_witness_continue(&cs, &at) == CZK_OK);
  CHECK(czk_cs_get_mode(cs) == CZK_CS_WITNESS && czk_cs_has_values(cs) && !czk_cs_wants_lc(cs));
  czk_var v, x;
  czk_fr seven;
  czk_fr_from_u64(&seven, 7);
  CHECK(czk_cs_alloc_input(cs, &v, &seven) == CZK_OK && czk_fr_eq(&in[1], &seven));
  uint8_t bits[3] = {1, 0, 1};
  CHECK(czk_cs_witness_bits(cs, &x, bits, 3, 2) == CZK_OK && x == 0);
  CHECK(czk_fr_eq(&aux[0], &czk_fr_one_v) && czk_fr_is_zero(&aux[1]) && czk_fr_eq(&aux[2], &czk_fr_one_v));
  CHECK(czk_cs_num_aux(cs) == 3 && czk_cs_num_constraints(cs) == 2);
  czk_lc e;
  czk_lc_init(&e);
  CHECK(czk_cs_enforce(cs, "one more", &e, &e, &e) == CZK_OK);
  CHECK(czk_cs_enforce(cs, "past the rows", &e, &e, &e) == CZK_ERR_LIMIT); /* rows_cap 3 */
  czk_cs_free(cs);
  /* capacities: inputs, aux and bits are bounded, never written past */
  aux[3] = seven;
  at.rows_cap = 100;
  CHECK(czk_cs_witness_continue(&cs, &at) == CZK_OK);
  CHECK(czk_cs_alloc_input(cs, &v, &seven) == CZK_OK);
  CHECK(czk_cs_alloc_input(cs, &v, &seven) == CZK_ERR_LIMIT);
  czk_cs_free(cs);
  CHECK(czk_cs_witness_continue(&cs, &at) == CZK_OK);
  uint8_t many[5] = {1, 1, 1, 1, 1};
  CHECK(czk_cs_witness_bits(cs, &x, many, 5, 5) == CZK_ERR_LIMIT);
  CHECK(czk_fr_eq(&aux[3], &seven));
  czk_cs_free(cs);
  /* the fast path belongs to witness mode */
  CHECK(czk_cs_checker_new(&cs) == CZK_OK);
  CHECK(czk_cs_witness_bits(cs, &x, bits, 1, 1) == CZK_ERR_STATE);
  czk_cs_free(cs);
  /* the growing witness builder takes it too */
  CHECK(czk_cs_witness_new(&cs, 0, 0) == CZK_OK);
  for (int i = 0; i < 100; i++) CHECK(czk_cs_witness_bits(cs, &x, many, 5, 1) == CZK_OK);
  CHECK(czk_cs_num_aux(cs) == 500 && czk_cs_num_constraints(cs) == 100);
  czk_witness w;
  CHECK(czk_cs_witness_finish(cs, &w) == CZK_OK);
  CHECK(w.n_aux == 500 && czk_fr_eq(&w.w[w.n_inputs + 499], &czk_fr_one_v));
  czk_witness_free(&w);
  CHECK(czk_cs_witness_continue(&cs, NULL) == CZK_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------------------------------------------ SHA-256 */
/* A random Boolean: constant false / true, an allocated bit, or the negation of one. */
static czk_bool rand_bool(czk_cs *cs, czk_test_rng *r, unsigned const_pct) {
  uint64_t x = czk_test_rng_next(r);
  bool v = x & 1;
  if ((x >> 8) % 100 < const_pct) return czk_bool_const(v);
  czk_bool b;
  CHECK(czk_bit_alloc(cs, &b, v) == CZK_OK);
  return (x >> 40) & 1 ? czk_bool_not(b) : b;
}

/* The native witness-mode SHA-256 (words with constant / Not masks) against the gadget on a checker (values from the
 * gadget code itself, combinations checked): same w, same constraint count, same output Booleans; messages and
 * states mixing constants, allocated and negated bits in every proportion, so that every constant-folding case of
 * xor / ch / maj / addmany is taken. */
static void sha_case(uint64_t seed, unsigned const_pct, bool compress) {
  czk_cs *cs[2];
  CHECK(czk_cs_checker_new(&cs[0]) == CZK_OK && czk_cs_witness_new(&cs[1], 0, 0) == CZK_OK);
  czk_bool out[2][256];
  size_t nbits = compress ? 512 : 8 * (1 + seed % 100);
  for (int k = 0; k < 2; k++) {
    czk_test_rng r;
    czk_test_rng_seed(&r, seed);
    czk_bool *msg = malloc(nbits * sizeof *msg);
    for (size_t i = 0; i < nbits; i++) msg[i] = rand_bool(cs[k], &r, const_pct);
    if (compress) {
      czk_u32 st[8], o[8];
      for (int w = 0; w < 8; w++) {
        for (int i = 0; i < 32; i++) st[w].bits[i] = rand_bool(cs[k], &r, const_pct);
        st[w].value = 0;
        for (int i = 0; i < 32; i++) st[w].value |= (uint32_t)st[w].bits[i].value << i;
      }
      CHECK(czk_sha256_compress_gadget(cs[k], o, msg, st) == CZK_OK);
      for (int w = 0; w < 8; w++) czk_u32_to_bits_be(out[k] + 32 * w, &o[w]);
    } else {
      CHECK(czk_sha256_gadget(cs[k], out[k], msg, nbits) == CZK_OK);
    }
    free(msg);
  }
  CHECK(czk_cs_checker_result(cs[0], NULL, NULL) == CZK_OK);
  CHECK_MSG(czk_cs_num_constraints(cs[0]) == czk_cs_num_constraints(cs[1]), "seed %llu: %zu != %zu constraints",
            (unsigned long long)seed, czk_cs_num_constraints(cs[0]), czk_cs_num_constraints(cs[1]));
  for (int i = 0; i < 256; i++)
    CHECK_MSG(out[0][i].kind == out[1][i].kind && out[0][i].value == out[1][i].value &&
                  (out[0][i].kind == CZK_BOOL_CONST || out[0][i].var == out[1][i].var),
              "seed %llu: output bit %d differs", (unsigned long long)seed, i);
  czk_witness w[2];
  CHECK(czk_cs_witness_finish(cs[0], &w[0]) == CZK_OK && czk_cs_witness_finish(cs[1], &w[1]) == CZK_OK);
  CHECK_MSG(w[0].n_aux == w[1].n_aux &&
                memcmp(w[0].w, w[1].w, ((size_t)w[0].n_inputs + w[0].n_aux) * sizeof(czk_fr)) == 0,
            "seed %llu (%u%% constant, %s): the native witness differs", (unsigned long long)seed, const_pct,
            compress ? "compression" : "hash");
  czk_witness_free(&w[0]), czk_witness_free(&w[1]);
}

static void test_sha256(void) {
  static const unsigned pct[] = {0, 10, 50, 90, 100};
  for (uint64_t seed = 1; seed <= 10; seed++)
    for (size_t p = 0; p < CZK_ARRAY_LEN(pct); p++) {
      sha_case(seed, pct[p], true);
      sha_case(seed + 100, pct[p], false);
    }
}

/* ------------------------------------------------------------------------------------------------ PoRep */
/* w from czk_porep_witness == w from czk_porep_evaluate (whose rows must hold iff `valid`); returns the witness (the
 * caller frees) or NULL. With a shape (2 KiB), the witness is also checked against the recorded matrices. */
static czk_fr *porep_case(const czk_porep_circuit *c, const czk_porep_partition *part, bool valid, const char *what) {
  czk_cs_counts n;
  CHECK(czk_porep_counts(c, &n) == CZK_OK);
  size_t nw = n.n_inputs + n.n_aux, nr = n.n_user_constraints;
  czk_fr *we = malloc(nw * sizeof(czk_fr)), *ww = malloc(nw * sizeof(czk_fr)), *abc = malloc(3 * nr * sizeof(czk_fr));
  CHECK(we && ww && abc);
  if (!we || !ww || !abc) return free(we), free(ww), free(abc), NULL;
  memset(ww, 0xa5, nw * sizeof(czk_fr)); /* every element must be written */
  czk_porep_eval_out o = {we, n.n_inputs, n.n_aux, nr, abc, abc + nr, abc + 2 * nr};
  CHECK_MSG(czk_porep_evaluate(c, part, NULL, &o) == CZK_OK, "%s: evaluate", what);
  CHECK_MSG(czk_porep_witness(c, part, NULL, ww, n.n_inputs, n.n_aux) == CZK_OK, "%s: witness", what);
  CHECK_MSG(memcmp(we, ww, nw * sizeof(czk_fr)) == 0, "%s: the witness differs from the evaluator's", what);
  size_t bad = czk_r1cs_first_unsatisfied(abc, abc + nr, abc + 2 * nr, nr);
  CHECK_MSG(valid ? bad == SIZE_MAX : bad != SIZE_MAX, "%s: the evaluator's rows %s", what,
            valid ? "fail" : "hold for a corrupted input");
  /* sizes that are not the circuit's are refused */
  CHECK(czk_porep_witness(c, part, NULL, ww, n.n_inputs, n.n_aux - 1) == CZK_ERR_SIZE_MISMATCH);
  CHECK(czk_porep_witness(c, part, NULL, ww, n.n_inputs + 1, n.n_aux) == CZK_ERR_SIZE_MISMATCH);
  CHECK(czk_porep_witness(c, part, NULL, NULL, n.n_inputs, n.n_aux) == CZK_ERR_INVALID_ARG);
  CHECK(czk_porep_witness(c, part, NULL, ww, n.n_inputs, n.n_aux) == CZK_OK); /* and it is reusable */
  free(we), free(abc);
  return ww;
}

/* The recorded shape of a (small) circuit and a witness checked against it. */
static czk_r1cs *g_shape; /* of the one circuit shape_check sees */

static czk_status shape_check(const czk_porep_circuit *c, const czk_fr *w) {
  if (!g_shape) {
    czk_cs *cs;
    CHECK(czk_cs_shape_new(&cs) == CZK_OK);
    CHECK(czk_porep_synthesize(cs, c, NULL) == CZK_OK);
    CHECK(czk_cs_shape_finish(cs, &g_shape) == CZK_OK);
    if (!g_shape) return CZK_ERR_INTERNAL;
  }
  czk_witness wt = {g_shape->n_inputs, g_shape->n_aux, (czk_fr *)w};
  size_t row = 0;
  return czk_r1cs_check(g_shape, &wt, &row, NULL);
}

static void test_porep_2k(void) {
  czk_porep_c1 c1;
  CHECK(czk_porep_generate(czk_porep_info_by_wire(5), CZK_POREP_GEN_DENSE, 11, 1000, 1, &c1) == CZK_OK);
  czk_porep_partition part;
  czk_porep_c1_partition(&c1, 0, &part);
  czk_porep_circuit c;
  czk_porep_circuit_of(c1.info, &c);
  czk_fr *good = porep_case(&c, &part, true, "2KiB");
  CHECK(good && shape_check(&c, good) == CZK_OK);
  /* the sequential witness builder gives the same w */
  czk_cs *cs;
  CHECK(czk_cs_witness_new(&cs, 0, 0) == CZK_OK);
  CHECK(czk_porep_synthesize(cs, &c, &part) == CZK_OK);
  czk_witness wb;
  CHECK(czk_cs_witness_finish(cs, &wb) == CZK_OK);
  CHECK(good && memcmp(wb.w, good, ((size_t)wb.n_inputs + wb.n_aux) * sizeof(czk_fr)) == 0);
  /* negative control: one corrupted data leaf (the TreeD leaf of challenge 1) */
  czk_porep_challenge ch[2] = {c1.ch[0], c1.ch[1]};
  ch[1].data_leaf[3] ^= 0x10;
  part.ch = ch;
  czk_fr *bad = porep_case(&c, &part, false, "2KiB, data leaf corrupted");
  CHECK(good && bad && memcmp(good, bad, ((size_t)wb.n_inputs + wb.n_aux) * sizeof(czk_fr)) != 0);
  CHECK(bad && shape_check(&c, bad) == CZK_ERR_UNSATISFIED);
  free(bad);
  /* and one corrupted TreeC sibling of an expander parent's column */
  ch[1] = c1.ch[1];
  ch[0].exp[3].path.sib[0][5] ^= 1;
  bad = porep_case(&c, &part, false, "2KiB, TreeC sibling corrupted");
  CHECK(bad && shape_check(&c, bad) == CZK_ERR_UNSATISFIED);
  free(bad);
  free(good);
  czk_witness_free(&wb);
  czk_porep_c1_free(&c1);
  czk_r1cs_free(g_shape);
  g_shape = NULL;
}

/* 5 challenges (the generated ones repeated): the challenge slices in parallel on the default pool */
static void test_porep_5(void) {
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
  free(porep_case(&c, &part, true, "2KiB x 5 challenges"));
  czk_porep_c1_free(&c1);
}

/* The real 8 MiB C1 output through the parser. */
static void test_porep_8m(void) {
  size_t len;
  char *json = czk_test_read_file(czk_test_shared_path("fixtures/filecoin/porep-c1-8MiB.json"), &len);
  CHECK(json != NULL);
  if (!json) return;
  czk_porep_c1 c1;
  char err[256];
  CHECK_MSG(czk_porep_c1_parse(&c1, json, len, err, sizeof err) == CZK_OK, "%s", err);
  free(json);
  czk_porep_partition part;
  czk_porep_c1_partition(&c1, 0, &part);
  czk_porep_circuit c;
  czk_porep_circuit_of(c1.info, &c);
  czk_fr *good = porep_case(&c, &part, true, "8MiB fixture");
  /* negative control: one sibling of the TreeR_last path of challenge 0 */
  czk_porep_challenge *ch = malloc(part.n_challenges * sizeof *ch);
  CHECK(ch != NULL);
  if (ch) {
    memcpy(ch, part.ch, part.n_challenges * sizeof *ch);
    ch[0].r_path.sib[2][7] ^= 4;
    part.ch = ch;
    czk_fr *bad = porep_case(&c, &part, false, "8MiB fixture, TreeR sibling corrupted");
    czk_cs_counts n;
    CHECK(czk_porep_counts(&c, &n) == CZK_OK);
    CHECK(good && bad && memcmp(good, bad, (n.n_inputs + n.n_aux) * sizeof(czk_fr)) != 0);
    free(bad);
  }
  free(ch);
  free(good);
  czk_porep_c1_free(&c1);
}

/* ------------------------------------------------------------------------------------------------ PoSt */
/* w from czk_post_witness == w from czk_post_evaluate; rows hold iff valid. Returns the witness. */
static czk_fr *post_case(const czk_post_info *info, const czk_post_sector *s, size_t n, bool valid) {
  czk_post_slot_counts sc;
  CHECK(czk_post_slot_counts_get(info, &sc) == CZK_OK);
  uint64_t ni, na, rows, dom;
  czk_post_assignment_size(info, &sc, &ni, &na, &rows, &dom);
  czk_fr *we = malloc((ni + na) * sizeof(czk_fr)), *ww = malloc((ni + na) * sizeof(czk_fr));
  czk_fr *abc = malloc(3 * dom * sizeof(czk_fr));
  CHECK(we && ww && abc);
  if (!we || !ww || !abc) return free(we), free(ww), free(abc), NULL;
  memset(ww, 0x5a, (ni + na) * sizeof(czk_fr));
  czk_post_instance inst = {.info = info, .sectors = s, .n_sectors = n};
  CHECK(czk_post_evaluate(&inst, NULL, we, abc, abc + dom, abc + 2 * dom) == CZK_OK);
  CHECK(czk_post_witness(&inst, NULL, ww) == CZK_OK);
  CHECK_MSG(memcmp(we, ww, (ni + na) * sizeof(czk_fr)) == 0, "%s (%zu sectors): the witness differs", info->name, n);
  size_t bad = czk_r1cs_first_unsatisfied(abc, abc + dom, abc + 2 * dom, dom);
  CHECK_MSG(valid ? bad == SIZE_MAX : bad != SIZE_MAX, "%s: rows %s", info->name, valid ? "fail" : "hold");
  CHECK(czk_post_witness(NULL, NULL, ww) == CZK_ERR_INVALID_ARG);
  free(we), free(abc);
  return ww;
}

static void test_post(void) {
  uint8_t rnd[32] = {2, 7, 1, 8, 2, 8};
  const uint64_t wires[3] = {0, 5, 10}; /* Winning 2 KiB, Window 2 KiB V1, Window 2 KiB V1_2 */
  for (int k = 0; k < 3; k++) {
    const czk_post_info *info = czk_post_info_by_wire(wires[k]);
    CHECK(info && info->sector_size == 2048);
    if (!info) continue;
    czk_post_sector s[2];
    size_t n = info->type == CZK_POST_WINNING ? 1 : 2;
    for (size_t i = 0; i < n; i++)
      CHECK(czk_post_generate(info, CZK_POST_GEN_DENSE, 5 + k, 20 + i, i, rnd, NULL, NULL, &s[i]) == CZK_OK);
    czk_fr *good = post_case(info, s, n, true);
    if (n == 2) free(post_case(info, s, 1, true)); /* a padded slot */
    /* negative control: one leaf of the first opening of the last sector */
    czk_post_sector *last = &s[n - 1];
    last->openings[0].leaf[1] ^= 0x40;
    czk_fr *bad = post_case(info, s, n, false);
    czk_post_slot_counts sc;
    CHECK(czk_post_slot_counts_get(info, &sc) == CZK_OK);
    uint64_t ni, na, rows, dom;
    czk_post_assignment_size(info, &sc, &ni, &na, &rows, &dom);
    CHECK(good && bad && memcmp(good, bad, (ni + na) * sizeof(czk_fr)) != 0);
    free(good), free(bad);
    for (size_t i = 0; i < n; i++) czk_post_sector_free(&s[i]);
  }
}

/* ------------------------------------------------------------------------------------------------ SnapDeals */
static void snap_case(const czk_snap_info *info, uint64_t seed) {
  czk_snap_gen_input in = {.mode = CZK_SNAP_GEN_DENSE, .seed = seed};
  czk_snap_update u;
  CHECK(czk_snap_generate(info, &in, &u) == CZK_OK);
  uint64_t ni, na, rows, dom;
  CHECK(czk_snap_assignment_size(info, &ni, &na, &rows, &dom) == CZK_OK);
  czk_fr *we = malloc((ni + na) * sizeof(czk_fr)), *ww = malloc((ni + na) * sizeof(czk_fr));
  czk_fr *wb = malloc((ni + na) * sizeof(czk_fr)), *abc = malloc(3 * dom * sizeof(czk_fr));
  CHECK(we && ww && wb && abc);
  for (uint32_t k = 0; k < u.n_parts && we && ww && wb && abc; k++) {
    czk_snap_instance inst = {.info = info, .k = k, .comms = &u.comms, .part = &u.parts[k]};
    memset(ww, 0x33, (ni + na) * sizeof(czk_fr));
    CHECK(czk_snap_evaluate(&inst, NULL, we, abc, abc + dom, abc + 2 * dom) == CZK_OK);
    CHECK(czk_snap_witness(&inst, NULL, ww) == CZK_OK);
    CHECK_MSG(memcmp(we, ww, (ni + na) * sizeof(czk_fr)) == 0, "%s partition %u: the witness differs", info->name, k);
    CHECK(czk_r1cs_first_unsatisfied(abc, abc + dom, abc + 2 * dom, dom) == SIZE_MAX);
    /* negative control: one new-data leaf of the first challenge */
    czk_snap_partition p = u.parts[k];
    size_t bytes = (size_t)p.n_challenges * sizeof *p.ch;
    czk_snap_challenge_proof *ch = malloc(bytes);
    CHECK(ch != NULL);
    if (!ch) break;
    memcpy(ch, p.ch, bytes);
    ch[0].d_new.leaf[2] ^= 8;
    p.ch = ch;
    inst.part = &p;
    CHECK(czk_snap_evaluate(&inst, NULL, we, abc, abc + dom, abc + 2 * dom) == CZK_OK);
    CHECK(czk_snap_witness(&inst, NULL, wb) == CZK_OK);
    CHECK(memcmp(we, wb, (ni + na) * sizeof(czk_fr)) == 0);
    CHECK(memcmp(ww, wb, (ni + na) * sizeof(czk_fr)) != 0);
    CHECK(czk_r1cs_first_unsatisfied(abc, abc + dom, abc + 2 * dom, dom) != SIZE_MAX);
    free(ch);
  }
  CHECK(czk_snap_witness(NULL, NULL, ww) == CZK_ERR_INVALID_ARG);
  free(we), free(ww), free(wb), free(abc);
  czk_snap_update_free(&u);
}

int main(int argc, char **argv) {
  g_full = argc > 1 && strcmp(argv[1], "full") == 0;
  test_writer();
  test_sha256();
  test_porep_2k();
  test_post();
  snap_case(czk_snap_info_by_wire(0), 31);
  if (g_full) {
    test_porep_5();
    test_porep_8m();
  }
  return czk_test_done(g_full ? "test_witness_full" : "test_witness");
}
