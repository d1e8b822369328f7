/* test_cs.c: constraint systems: LC merging / zero dropping / densities on a hand circuit, agreement of shape
 * recorder, witness builder and checker on the synthetic family, first-failure reporting, CSR file round trip
 * through mmap and rejection of damaged files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuits/synthetic.h"
#include "czk/cs.h"
#include "czk_test.h"

static czk_fr fr(uint64_t v) {
  czk_fr r;
  czk_fr_from_u64(&r, v);
  return r;
}

/* x*y = z with merged / cancelling terms, one input, a boolean that appears only in C; bad != 0 makes constraint
 * "inner/bad" (index 2) fail. Variables: inputs ONE, p; aux x, y, z, u. */
static czk_status hand(czk_cs *cs, int bad) {
  czk_fr vx = fr(3), vy = fr(5), vz = fr(15), vu = fr(bad ? 7 : 18);
  czk_var x, y, z, u, p;
  czk_lc a, b, c;
  czk_lc_init(&a), czk_lc_init(&b), czk_lc_init(&c);
  czk_cs_alloc(cs, &x, &vx);
  czk_cs_alloc(cs, &y, &vy);
  czk_cs_alloc(cs, &z, &vz);
  czk_cs_alloc_input(cs, &p, &vz);
  czk_cs_push_ns(cs, "outer");
  /* (x + x - x) * (y + 0*z) = z: A merges to {x:1}, B drops z */
  czk_lc_add_var(&a, x), czk_lc_add_var(&a, x), czk_lc_sub_var(&a, x);
  czk_lc_add_var(&b, y), czk_lc_add_u64(&b, z, 0);
  czk_lc_add_var(&c, z);
  czk_cs_enforce(cs, "mul", &a, &b, &c);
  czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
  /* p * 1 = z: input in A (always dense) and ONE in B */
  czk_lc_add_var(&a, p), czk_lc_add_var(&b, CZK_VAR_ONE), czk_lc_add_var(&c, z);
  czk_cs_enforce(cs, "link", &a, &b, &c);
  czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
  czk_cs_alloc(cs, &u, &vu);
  czk_cs_push_ns(cs, "inner");
  /* (z + 3) * 1 = u  (u = 18) */
  czk_lc_add_var(&a, z), czk_lc_add_u64(&a, CZK_VAR_ONE, 3), czk_lc_add_var(&b, CZK_VAR_ONE), czk_lc_add_var(&c, u);
  czk_cs_enforce(cs, "bad", &a, &b, &c);
  czk_cs_pop_ns(cs);
  czk_cs_pop_ns(cs);
  czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
  return czk_cs_status(cs);
}

static void test_hand(void) {
  czk_cs *cs;
  CHECK(czk_cs_shape_new(&cs) == CZK_OK);
  CHECK(hand(cs, 0) == CZK_OK);
  CHECK(!czk_cs_has_values(cs));
  czk_fr v;
  CHECK(czk_cs_get_value(cs, CZK_VAR_ONE, &v) == CZK_ERR_STATE);
  czk_r1cs *r;
  CHECK(czk_cs_shape_finish(cs, &r) == CZK_OK);
  CHECK_EQ_INT(r->n_inputs, 2);
  CHECK_EQ_INT(r->n_aux, 4);
  CHECK_EQ_INT(r->n_user_constraints, 3);
  CHECK_EQ_INT(r->n_constraints, 5);
  CHECK_EQ_INT(r->log_domain, 3);
  /* row 0: A = {x}, B = {y}, C = {z}; unified columns: ONE 0, p 1, x 2, y 3, z 4, u 5 */
  CHECK_EQ_INT(r->a.row_ptr[1], 1);
  CHECK_EQ_INT(r->a.col[0], 2);
  CHECK(czk_fr_is_one(&r->a.val[0]));
  CHECK_EQ_INT(r->b.row_ptr[1], 1);
  CHECK_EQ_INT(r->b.col[0], 3);
  /* row 2: A = {ONE: 3, z: 1} sorted by column */
  CHECK_EQ_INT(r->a.row_ptr[3] - r->a.row_ptr[2], 2);
  CHECK_EQ_INT(r->a.col[r->a.row_ptr[2]], 0);
  CHECK_EQ_INT(r->a.col[r->a.row_ptr[2] + 1], 4);
  czk_fr three = fr(3);
  CHECK(czk_fr_eq(&r->a.val[r->a.row_ptr[2]], &three));
  /* trailing input rows: A = {i}, B = C = {} */
  for (uint32_t i = 0; i < 2; i++) {
    uint32_t j = 3 + i;
    CHECK_EQ_INT(r->a.row_ptr[j + 1] - r->a.row_ptr[j], 1);
    CHECK_EQ_INT(r->a.col[r->a.row_ptr[j]], i);
    CHECK_EQ_INT(r->b.row_ptr[j + 1] - r->b.row_ptr[j], 0);
  }
  /* densities: A aux = {x, z}; B inputs = {ONE}; B aux = {y} */
  CHECK(czk_density_get(r->a_aux_density, 0) && !czk_density_get(r->a_aux_density, 1) &&
        czk_density_get(r->a_aux_density, 2) && !czk_density_get(r->a_aux_density, 3));
  CHECK_EQ_INT(r->a_aux_count, 2);
  CHECK(czk_density_get(r->b_input_density, 0) && !czk_density_get(r->b_input_density, 1));
  CHECK_EQ_INT(r->b_input_count, 1);
  CHECK(czk_density_get(r->b_aux_density, 1));
  CHECK_EQ_INT(r->b_aux_count, 1);

  /* witness + checker agree with the shape, for a good and a bad assignment */
  for (int bad = 0; bad < 2; bad++) {
    czk_cs *w;
    CHECK(czk_cs_witness_new(&w, 0, 0) == CZK_OK);
    CHECK(hand(w, bad) == CZK_OK);
    czk_witness wit;
    CHECK(czk_cs_witness_finish(w, &wit) == CZK_OK);
    CHECK_EQ_INT(wit.n_inputs, 2);
    CHECK_EQ_INT(wit.n_aux, 4);
    size_t row = 99;
    CHECK(czk_r1cs_check(r, &wit, &row, NULL) == (bad ? CZK_ERR_UNSATISFIED : CZK_OK));
    if (bad) CHECK_EQ_INT(row, 2);
    czk_witness_free(&wit);

    czk_cs *ck;
    CHECK(czk_cs_checker_new(&ck) == CZK_OK);
    CHECK(hand(ck, bad) == CZK_OK);
    size_t idx = 99;
    const char *name = NULL;
    CHECK(czk_cs_checker_result(ck, &idx, &name) == (bad ? CZK_ERR_UNSATISFIED : CZK_OK));
    if (bad) {
      CHECK_EQ_INT(idx, 2);
      CHECK(name && strcmp(name, "outer/inner/bad") == 0);
    }
    czk_fr got;
    CHECK(czk_cs_get_value(ck, 2, &got) == CZK_OK); /* aux 2 = z = 15 */
    czk_fr fifteen = fr(15);
    CHECK(czk_fr_eq(&got, &fifteen));
    CHECK(czk_cs_get_value(ck, 17, &got) == CZK_ERR_INVALID_ARG);
    czk_cs_free(ck);
  }
  czk_r1cs_free(r);

  /* misuse: unknown variable; witness mode without a value; sticky errors */
  CHECK(czk_cs_shape_new(&cs) == CZK_OK);
  czk_lc a;
  czk_lc_init(&a);
  czk_lc_add_var(&a, 5);
  CHECK(czk_cs_enforce(cs, "x", &a, &a, &a) == CZK_ERR_INVALID_ARG);
  czk_var x;
  CHECK(czk_cs_alloc(cs, &x, NULL) == CZK_ERR_INVALID_ARG); /* sticky */
  czk_lc_free(&a);
  czk_cs_free(cs);
  CHECK(czk_cs_witness_new(&cs, 0, 0) == CZK_OK);
  CHECK(czk_cs_alloc(cs, &x, NULL) == CZK_ERR_INVALID_ARG);
  czk_cs_free(cs);
}

/* A counter's figures equal the recorded shape's (with the input constraints the recorder appends). */
static void check_counts(const czk_cs_counts *c, const czk_r1cs *r) {
  CHECK_EQ_INT(c->n_inputs, r->n_inputs);
  CHECK_EQ_INT(c->n_aux, r->n_aux);
  CHECK_EQ_INT(c->n_user_constraints, r->n_user_constraints);
  CHECK_EQ_INT(c->n_constraints, r->n_constraints);
  CHECK_EQ_INT(c->log_domain, r->log_domain);
  CHECK_EQ_INT(c->nnz_a, r->a.nnz);
  CHECK_EQ_INT(c->nnz_b, r->b.nnz);
  CHECK_EQ_INT(c->nnz_c, r->c.nnz);
  CHECK_EQ_INT(c->a_aux_count, r->a_aux_count);
  CHECK_EQ_INT(c->b_input_count, r->b_input_count);
  CHECK_EQ_INT(c->b_aux_count, r->b_aux_count);
}

static void test_counter(void) {
  czk_cs *cs;
  czk_r1cs *r;
  czk_cs_counts c;
  CHECK(czk_cs_shape_new(&cs) == CZK_OK);
  CHECK(hand(cs, 0) == CZK_OK);
  CHECK(czk_cs_shape_finish(cs, &r) == CZK_OK);
  CHECK(czk_cs_counter_new(&cs) == CZK_OK);
  CHECK(!czk_cs_has_values(cs));
  CHECK(hand(cs, 0) == CZK_OK);
  CHECK(czk_cs_counter_result(cs, &c) == CZK_OK);
  check_counts(&c, r);
  CHECK_EQ_INT(c.nnz_b, 3); /* y; ONE; ONE -- the dropped 0*z is not counted */
  czk_cs_free(cs);
  czk_r1cs_free(r);
  for (unsigned k = 4; k <= 10; k += 3) {
    CHECK(czk_synthetic_shape(&r, k) == CZK_OK);
    CHECK(czk_cs_counter_new(&cs) == CZK_OK);
    CHECK(czk_synthetic_synthesize(cs, k, 1) == CZK_OK);
    CHECK(czk_cs_counter_result(cs, &c) == CZK_OK);
    check_counts(&c, r);
    czk_cs_free(cs);
    czk_r1cs_free(r);
  }
  CHECK(czk_cs_witness_new(&cs, 0, 0) == CZK_OK);
  CHECK(czk_cs_counter_result(cs, &c) == CZK_ERR_INVALID_ARG);
  czk_cs_free(cs);
}

/* An evaluator writes the same witness and a/b/c as witness + CSR evaluation; it stops at its capacities; a
 * counter's outline has the shape's counts and densities. */
static void test_evaluator(void) {
  for (unsigned k = 5; k <= 9; k += 2) {
    czk_r1cs *r;
    CHECK(czk_synthetic_shape(&r, k) == CZK_OK);
    czk_witness w;
    CHECK(czk_synthetic_witness(&w, k, 77) == CZK_OK);
    size_t m = r->n_user_constraints, ni = r->n_inputs, na = r->n_aux;
    czk_fr *ref = malloc(3 * r->n_constraints * sizeof(czk_fr));
    CHECK(czk_r1cs_eval(r, w.w, ref, ref + r->n_constraints, ref + 2 * r->n_constraints, NULL) == CZK_OK);
    czk_fr *in = malloc(ni * sizeof(czk_fr)), *aux = malloc(na * sizeof(czk_fr)), *abc = malloc(3 * m * sizeof(czk_fr));
    czk_cs_eval_out o = {in, ni - 1, aux, na, abc, abc + m, abc + 2 * m, m};
    czk_cs *cs;
    CHECK(czk_cs_evaluator_new(&cs, &o) == CZK_OK);
    CHECK(czk_cs_has_values(cs));
    CHECK(czk_synthetic_synthesize(cs, k, 77) == CZK_OK);
    CHECK_EQ_INT(czk_cs_num_constraints(cs), m);
    czk_cs_free(cs);
    CHECK(memcmp(in, w.w + 1, (ni - 1) * sizeof(czk_fr)) == 0);
    CHECK(memcmp(aux, w.w + ni, na * sizeof(czk_fr)) == 0);
    bool same = true;
    for (int j = 0; j < 3; j++)
      if (memcmp(abc + j * m, ref + (size_t)j * r->n_constraints, m * sizeof(czk_fr)) != 0) same = false;
    CHECK(same);
    /* one row short: CZK_ERR_LIMIT, sticky */
    o.rows_cap = m - 1;
    CHECK(czk_cs_evaluator_new(&cs, &o) == CZK_OK);
    CHECK(czk_synthetic_synthesize(cs, k, 77) == CZK_ERR_LIMIT);
    czk_cs_free(cs);
    /* the outline */
    czk_r1cs *ol;
    CHECK(czk_cs_counter_new(&cs) == CZK_OK);
    CHECK(czk_synthetic_synthesize(cs, k, 1) == CZK_OK);
    CHECK(czk_cs_counter_finish(cs, &ol) == CZK_OK);
    CHECK(ol->outline && !ol->a.col && ol->a.nnz == r->a.nnz && ol->n_constraints == r->n_constraints);
    CHECK(ol->log_domain == r->log_domain && ol->a_aux_count == r->a_aux_count && ol->b_aux_count == r->b_aux_count);
    CHECK(memcmp(ol->a_aux_density, r->a_aux_density, (na + 63) / 64 * 8) == 0);
    CHECK(memcmp(ol->b_aux_density, r->b_aux_density, (na + 63) / 64 * 8) == 0);
    CHECK(memcmp(ol->b_input_density, r->b_input_density, (ni + 63) / 64 * 8) == 0);
    CHECK(czk_r1cs_eval(ol, w.w, ref, ref, ref, NULL) == CZK_ERR_STATE);
    CHECK(czk_r1cs_save(ol, "/tmp/czk-never-written") == CZK_ERR_STATE);
    czk_r1cs_free(ol);
    free(in), free(aux), free(abc), free(ref);
    czk_witness_free(&w);
    czk_r1cs_free(r);
  }
}

/* A continuing evaluator reads the variables an earlier evaluator wrote below aux_base, allocates from aux_base on,
 * writes its own rows; references past what exists and a base past the capacity are refused. */
static void test_evaluator_continue(void) {
  czk_fr aux[8], abc[3][4], three, five, v;
  czk_fr_from_u64(&three, 3);
  czk_fr_from_u64(&five, 5);
  czk_cs_eval_out o = {.aux = aux, .aux_cap = 3, .a = abc[0], .b = abc[1], .c = abc[2], .rows_cap = 1};
  czk_cs *cs;
  czk_var x, y, z, u;
  CHECK(czk_cs_evaluator_new(&cs, &o) == CZK_OK);
  CHECK(czk_cs_alloc(cs, &x, &three) == CZK_OK && czk_cs_alloc(cs, &y, &five) == CZK_OK);
  czk_fr_mul(&v, &three, &five);
  CHECK(czk_cs_alloc(cs, &z, &v) == CZK_OK);
  czk_lc a, b, c;
  czk_lc_init(&a), czk_lc_init(&b), czk_lc_init(&c);
  czk_lc_add_var(&a, x), czk_lc_add_var(&b, y), czk_lc_add_var(&c, z);
  CHECK(czk_cs_enforce(cs, "xy", &a, &b, &c) == CZK_OK);
  czk_cs_free(cs);
  /* the continuation: u = x + y at aux 3, row 1: (x + y) * ONE = u, reading the earlier aux and ONE */
  czk_fr in[1] = {czk_fr_one_v};
  czk_cs_eval_at at = {in, aux, abc[0], abc[1], abc[2], 1, 3, 1, 0, 1, 2};
  CHECK(czk_cs_evaluator_continue(&cs, &at) == CZK_OK);
  czk_fr_add(&v, &three, &five);
  CHECK(czk_cs_alloc(cs, &u, &v) == CZK_OK && u == 3 && czk_cs_num_aux(cs) == 4);
  czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
  czk_lc_add_var(&a, x), czk_lc_add_var(&a, y), czk_lc_add_var(&b, CZK_VAR_ONE), czk_lc_add_var(&c, u);
  CHECK(czk_cs_enforce(cs, "sum", &a, &b, &c) == CZK_OK);
  CHECK(czk_fr_eq(&aux[3], &v) && czk_fr_eq(&abc[0][1], &v) && czk_fr_is_one(&abc[1][1]) && czk_fr_eq(&abc[2][1], &v));
  CHECK_EQ_INT(czk_cs_num_constraints(cs), 2);
  /* aux 4 does not exist yet; the aux cap is reached after one */
  czk_lc_clear(&a);
  czk_lc_add_var(&a, 4);
  CHECK(czk_cs_enforce(cs, "unknown", &a, &b, &c) == CZK_ERR_INVALID_ARG);
  czk_cs_free(cs);
  CHECK(czk_cs_evaluator_continue(&cs, &at) == CZK_OK);
  CHECK(czk_cs_alloc(cs, &u, &v) == CZK_OK && czk_cs_alloc(cs, &u, &v) == CZK_ERR_LIMIT);
  czk_cs_free(cs);
  at.inputs = NULL;
  CHECK(czk_cs_evaluator_continue(&cs, &at) == CZK_ERR_INVALID_ARG && cs == NULL);
  czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
}

static void test_synthetic(void) {
  for (unsigned k = 4; k <= 10; k++) {
    czk_r1cs *r;
    CHECK(czk_synthetic_shape(&r, k) == CZK_OK);
    if (!r) continue;
    CHECK_EQ_INT(r->n_constraints, 1u << k);
    CHECK_EQ_INT(r->log_domain, k);
    CHECK_EQ_INT(r->n_inputs, czk_synthetic_num_public(k) + 1);
    czk_witness w;
    CHECK(czk_synthetic_witness(&w, k, 1000 + k) == CZK_OK);
    CHECK_EQ_INT(w.n_inputs, r->n_inputs);
    CHECK_EQ_INT(w.n_aux, r->n_aux);
    size_t row = 0;
    CHECK_MSG(czk_r1cs_check(r, &w, &row, NULL) == CZK_OK, "k=%u row %zu", k, row);
    czk_cs *ck;
    CHECK(czk_cs_checker_new(&ck) == CZK_OK);
    CHECK(czk_synthetic_synthesize(ck, k, 1000 + k) == CZK_OK);
    CHECK(czk_cs_checker_result(ck, NULL, NULL) == CZK_OK);
    CHECK_EQ_INT(czk_cs_num_constraints(ck), r->n_user_constraints);
    czk_cs_free(ck);
    /* different seeds: different witnesses, same shape */
    czk_witness w2;
    CHECK(czk_synthetic_witness(&w2, k, 7) == CZK_OK);
    CHECK(memcmp(w.w, w2.w, (w.n_inputs + w.n_aux) * sizeof(czk_fr)) != 0);
    CHECK(czk_r1cs_check(r, &w2, &row, NULL) == CZK_OK);
    /* a wrong public input breaks exactly its link constraint (the last user rows) */
    czk_fr_add(&w2.w[1], &w2.w[1], &czk_fr_one_v);
    CHECK(czk_r1cs_check(r, &w2, &row, NULL) == CZK_ERR_UNSATISFIED);
    CHECK_EQ_INT(row, r->n_user_constraints - czk_synthetic_num_public(k));
    czk_witness_free(&w2);
    czk_witness_free(&w);
    czk_r1cs_free(r);
  }
  czk_r1cs *r = NULL;
  CHECK(czk_synthetic_shape(&r, 3) == CZK_ERR_INVALID_ARG);
}

static bool csr_eq(const czk_csr *x, const czk_csr *y, uint32_t rows) {
  return x->nnz == y->nnz && memcmp(x->row_ptr, y->row_ptr, (rows + 1) * 8) == 0 &&
         memcmp(x->col, y->col, x->nnz * 4) == 0 && memcmp(x->val, y->val, x->nnz * sizeof(czk_fr)) == 0;
}

static czk_status load_bytes(const char *path, const uint8_t *buf, size_t len) {
  FILE *f = fopen(path, "wb");
  fwrite(buf, 1, len, f);
  fclose(f);
  czk_r1cs *r = NULL;
  czk_status st = czk_r1cs_load(&r, path);
  CHECK((st == CZK_OK) == (r != NULL));
  czk_r1cs_free(r);
  return st;
}

static void test_file(void) {
  char path[64], path2[64];
  snprintf(path, sizeof path, "/tmp/czk_test_cs_%d.r1cs", (int)getpid());
  snprintf(path2, sizeof path2, "/tmp/czk_test_cs_%d_b.r1cs", (int)getpid());
  czk_r1cs *r, *l;
  CHECK(czk_synthetic_shape(&r, 8) == CZK_OK);
  CHECK(czk_r1cs_save(r, path) == CZK_OK);
  CHECK(czk_r1cs_load(&l, path) == CZK_OK);
  CHECK(l->mapped);
  CHECK_EQ_INT(l->n_inputs, r->n_inputs);
  CHECK_EQ_INT(l->n_aux, r->n_aux);
  CHECK_EQ_INT(l->n_constraints, r->n_constraints);
  CHECK_EQ_INT(l->n_user_constraints, r->n_user_constraints);
  CHECK(csr_eq(&l->a, &r->a, r->n_constraints) && csr_eq(&l->b, &r->b, r->n_constraints) &&
        csr_eq(&l->c, &r->c, r->n_constraints));
  CHECK_EQ_INT(l->a_aux_count, r->a_aux_count);
  CHECK_EQ_INT(l->b_aux_count, r->b_aux_count);
  CHECK_EQ_INT(l->b_input_count, r->b_input_count);
  CHECK(memcmp(l->a_aux_density, r->a_aux_density, (r->n_aux + 63) / 64 * 8) == 0);
  czk_witness w;
  CHECK(czk_synthetic_witness(&w, 8, 3) == CZK_OK);
  CHECK(czk_r1cs_check(l, &w, NULL, NULL) == CZK_OK);
  czk_witness_free(&w);
  czk_r1cs_free(l);

  /* damaged copies */
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  size_t len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(len), *cp = malloc(len);
  CHECK(fread(buf, 1, len, f) == len);
  fclose(f);
  CHECK(load_bytes(path2, buf, len) == CZK_OK);
  size_t cuts[] = {0, 10, 127, 128, 1000, len / 2, len - 1};
  for (size_t i = 0; i < CZK_ARRAY_LEN(cuts); i++) {
    czk_status st = load_bytes(path2, buf, cuts[i]);
    CHECK_MSG(st == CZK_ERR_TRUNCATED, "cut %zu: %s", cuts[i], czk_status_name(st));
  }
  uint8_t *big = calloc(len + 64, 1);
  memcpy(big, buf, len);
  CHECK(load_bytes(path2, big, len + 64) == CZK_ERR_FORMAT);
  free(big);
  memcpy(cp, buf, len);
  cp[0] ^= 1; /* magic */
  CHECK(load_bytes(path2, cp, len) == CZK_ERR_FORMAT);
  memcpy(cp, buf, len);
  cp[12] ^= 0x10; /* n_inputs */
  CHECK(load_bytes(path2, cp, len) != CZK_OK);
  /* a column index out of range (first col entry of A), a value >= r (first value of A) */
  size_t rows = r->n_constraints + 1, off_col = (128 + rows * 8 + 63) / 64 * 64;
  size_t off_val = (off_col + r->a.nnz * 4 + 63) / 64 * 64;
  memcpy(cp, buf, len);
  memset(cp + off_col, 0xff, 4);
  CHECK(load_bytes(path2, cp, len) == CZK_ERR_FORMAT);
  memcpy(cp, buf, len);
  memset(cp + off_val, 0xff, 32);
  CHECK(load_bytes(path2, cp, len) == CZK_ERR_NOT_CANONICAL);
  memcpy(cp, buf, len);
  cp[128 + (rows - 1) * 8] ^= 1; /* row_ptr[n] != nnz */
  CHECK(load_bytes(path2, cp, len) == CZK_ERR_FORMAT);
  /* issue 22 #11: a coefficient changed to another valid one (its lowest bit: still canonical, non-zero) passed every
   * structural check and gave a different circuit (keys that never verify); the body hash refuses it */
  memcpy(cp, buf, len);
  cp[off_val] ^= 1;
  CHECK_EQ_INT(load_bytes(path2, cp, len), CZK_ERR_FORMAT);
  memcpy(cp, buf, len);
  cp[len - 1] ^= 0x80; /* the last byte (a value or padding) */
  CHECK(load_bytes(path2, cp, len) != CZK_OK);
  /* random single-byte flips never crash */
  czk_test_rng rng;
  czk_test_rng_seed(&rng, 42);
  for (int i = 0; i < 200; i++) {
    memcpy(cp, buf, len);
    cp[czk_test_rng_next(&rng) % len] ^= (uint8_t)(1u << (czk_test_rng_next(&rng) % 8));
    (void)load_bytes(path2, cp, len);
  }
  CHECK(czk_r1cs_load(&l, "/nonexistent/x.r1cs") == CZK_ERR_NOT_FOUND);
  free(buf);
  free(cp);
  remove(path);
  remove(path2);
  czk_r1cs_free(r);
}

int main(void) {
  test_hand();
  test_counter();
  test_evaluator();
  test_evaluator_continue();
  test_synthetic();
  test_file();
  return czk_test_done("test_cs");
}
