/* test_compiled.c: compiled circuits with repeated segments (czk/compiled.h).
 *   - the expanded compiled form equals the whole circuit recorded the ordinary way (czk_cs_shape_new), array for
 *     array: PoRep 2 KiB (quick) and 8 MiB (full), WinningPoSt and WindowPoSt 2 KiB, SnapDeals 2 KiB (TABLE columns);
 *   - the CPU mat-vec equals the evaluators' a, b, c (czk_porep_evaluate, czk_post_evaluate, czk_snap_evaluate);
 *   - the file form round-trips, and truncated, corrupted, foreign and structurally broken files are refused with an
 *     error naming the file;
 *   - recorder misuse is refused.
 * `test_compiled bench` (not a CTest case) prints compile time, template size, file size and mat-vec time per size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cs/cs_internal.h"
#include "czk/backend.h"
#include "czk/compiled.h"
#include "czk/groth16.h"
#include "czk/porep.h"
#include "czk/post.h"
#include "czk/snap.h"
#include "czk_test.h"

static bool g_full;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The expanded compiled form equals the recorded shape, array for array. */
static void same_shape(const czk_compiled *cc, const czk_r1cs *rec, const char *label) {
  char err[256];
  CHECK_MSG(czk_cc_validate(cc, err, sizeof err) == CZK_OK, "%s: %s", label, err);
  czk_r1cs *x = NULL;
  CHECK_MSG(czk_cc_expand(cc, &x) == CZK_OK, "%s", label);
  if (!x) return;
  CHECK_MSG(x->n_inputs == rec->n_inputs && x->n_aux == rec->n_aux && x->n_constraints == rec->n_constraints &&
                x->n_user_constraints == rec->n_user_constraints,
            "%s: counts %u/%u/%u vs %u/%u/%u", label, x->n_inputs, x->n_aux, x->n_constraints, rec->n_inputs,
            rec->n_aux, rec->n_constraints);
  const czk_csr *mx[3] = {&x->a, &x->b, &x->c}, *mr[3] = {&rec->a, &rec->b, &rec->c};
  for (int k = 0; k < 3 && x->n_constraints == rec->n_constraints; k++) {
    CHECK_MSG(mx[k]->nnz == mr[k]->nnz, "%s: matrix %c nnz %llu vs %llu", label, "ABC"[k],
              (unsigned long long)mx[k]->nnz, (unsigned long long)mr[k]->nnz);
    /* the compiled form's expanded count excludes the trailing input rows (A: one each) */
    CHECK_EQ_INT(cc->nnz[k] + (k == 0 ? rec->n_inputs : 0), mr[k]->nnz);
    if (mx[k]->nnz != mr[k]->nnz) continue;
    CHECK_MSG(memcmp(mx[k]->row_ptr, mr[k]->row_ptr, ((size_t)rec->n_constraints + 1) * 8) == 0, "%s %c rows", label,
              "ABC"[k]);
    CHECK_MSG(memcmp(mx[k]->col, mr[k]->col, mr[k]->nnz * 4) == 0, "%s %c columns", label, "ABC"[k]);
    CHECK_MSG(memcmp(mx[k]->val, mr[k]->val, mr[k]->nnz * sizeof(czk_fr)) == 0, "%s %c values", label, "ABC"[k]);
  }
  CHECK(x->a_aux_count == rec->a_aux_count && x->b_aux_count == rec->b_aux_count &&
        x->b_input_count == rec->b_input_count);
  czk_r1cs_free(x);
}

/* The mat-vec over w equals the evaluator's rows [0, n_user). */
static void same_abc(const czk_compiled *cc, const czk_fr *w, const czk_fr *a, const czk_fr *b, const czk_fr *c,
                     const char *label) {
  size_t n = cc->n_user_constraints;
  czk_fr *x = malloc(3 * (n + 1) * sizeof(czk_fr));
  for (size_t i = 0; i < 3 * (n + 1); i++) czk_fr_from_u64(&x[i], 77); /* the entry past n stays untouched */
  CHECK(czk_cc_matvec(cc, w, x, x + n + 1, x + 2 * (n + 1), NULL) == CZK_OK);
  const czk_fr *want[3] = {a, b, c};
  czk_fr s;
  czk_fr_from_u64(&s, 77);
  for (int k = 0; k < 3; k++) {
    CHECK_MSG(memcmp(x + k * (n + 1), want[k], n * sizeof(czk_fr)) == 0, "%s: mat-vec %c differs", label, "ABC"[k]);
    CHECK(czk_fr_eq(&x[k * (n + 1) + n], &s));
  }
  /* and every row holds: a b = c */
  CHECK_MSG(czk_r1cs_first_unsatisfied(x, x + n + 1, x + 2 * (n + 1), n) == SIZE_MAX, "%s: unsatisfied", label);
  free(x);
}

static czk_r1cs *record(czk_status (*walk)(czk_cs *, const void *), const void *ctx) {
  czk_cs *cs;
  czk_r1cs *r = NULL;
  CHECK(czk_cs_shape_new(&cs) == CZK_OK);
  CHECK(walk(cs, ctx) == CZK_OK);
  CHECK(czk_cs_shape_finish(cs, &r) == CZK_OK);
  return r;
}

static czk_status walk_porep(czk_cs *cs, const void *c) { return czk_porep_synthesize(cs, c, NULL); }
static czk_status walk_post(czk_cs *cs, const void *i) { return czk_post_synthesize(cs, i); }
static czk_status walk_snap(czk_cs *cs, const void *i) { return czk_snap_synthesize(cs, i); }

/* ------------------------------------------------------------------------------------------------ PoRep */
static void test_porep(uint64_t sector_size, czk_porep_gen_mode mode) {
  const czk_porep_info *info = czk_porep_info_for_size(sector_size);
  czk_porep_circuit c;
  czk_porep_circuit_of(info, &c);
  czk_compiled *cc = NULL;
  CHECK(czk_porep_compile(&c, czk_porep_circuit_id(info), &cc) == CZK_OK);
  if (!cc) return;
  CHECK(strcmp(cc->id, czk_porep_circuit_id(info)) == 0);
  CHECK(cc->n_segments == 2 && cc->seg[0].reps == 1 && cc->seg[1].reps == c.challenges);
  CHECK(cc->seg[1].in_stride == 18 && cc->table_len == 0);
  czk_r1cs *rec = record(walk_porep, &c);
  if (rec) same_shape(cc, rec, info->name);
  czk_r1cs_free(rec);
  /* a/b/c from a generated partition */
  czk_porep_c1 c1;
  CHECK(czk_porep_generate(info, mode, 11, 1000, 7, &c1) == CZK_OK);
  czk_porep_partition part;
  czk_porep_c1_partition(&c1, 0, &part);
  uint64_t ni = cc->n_inputs, na = cc->n_aux, nr = cc->n_user_constraints;
  czk_fr *w = malloc((ni + na) * sizeof(czk_fr)), *abc = malloc(3 * nr * sizeof(czk_fr));
  czk_porep_eval_out o = {w, ni, na, nr, abc, abc + nr, abc + 2 * nr};
  CHECK(czk_porep_evaluate(&c, &part, NULL, &o) == CZK_OK);
  same_abc(cc, w, abc, abc + nr, abc + 2 * nr, info->name);
  free(w), free(abc);
  czk_porep_c1_free(&c1);
  czk_cc_free(cc);
}

/* The prover's witness-only mode on a host backend (czk_groth16_assignment.cc: a, b, c from w over the compiled
 * circuit): a key set up from the recorded shape, a proof from the witness alone that verifies; one wrong aux value is
 * refused (CZK_ERR_UNSATISFIED) before any MSM. */
static void prove_witness_only(const czk_compiled *cc, const czk_r1cs *rec, const czk_post_instance *inst,
                               uint64_t d, uint64_t rows) {
  czk_groth16_key_mem km;
  czk_groth16_setup_opts o = {NULL, NULL, NULL, NULL, NULL};
  CHECK(czk_groth16_setup_mem(&km, rec, &o) == CZK_OK);
  czk_groth16_pk_queries q;
  czk_groth16_key_mem_queries(&km, &q);
  /* on the CPU (a, b, c on the host), then on a CUDA device when there is one: a, b, c and the row check on the
   * device, from a resident copy of the compiled circuit and from the prover's own copy */
  for (int dev = 0; dev < 2; dev++) {
    czk_groth16_key *key = NULL;
    CHECK(czk_groth16_key_from_queries(&key, &km.vk, &q, &km.s, rec) == CZK_OK);
    czk_backend *be = NULL;
    czk_status bs = czk_backend_open(&be, dev ? "cuda:0" : "cpu", NULL);
    if (dev && bs != CZK_OK) {
      fprintf(stderr, "test_compiled: no CUDA device (%s): witness-only proving checked on the CPU only\n",
              czk_status_str(bs));
      czk_groth16_key_free(key);
      break;
    }
    CHECK(bs == CZK_OK);
    if (!key || !be) break;
    czk_backend_compiled *dcc = NULL;
    if (dev) CHECK(czk_groth16_compiled_upload(&dcc, be, cc) == CZK_OK);
    /* t: bit 0 a wrong witness; then the circuit's own copy, the resident one (a device), w packed ahead
     * (czk_groth16_assignment_pack, as the synthesis stage does), and on a device compact and lean lanes (the row
     * check's pass storing a and b; the host key streamed in chunks of 2^8 points), their witness chunks copied whole
     * (modes 3, 4) and packed (5, 6: CZK_STREAM_PACK=1 over the pinned key; fewer bytes uploaded) */
    if (dev) CHECK(czk_groth16_key_pin(key, be) == CZK_OK);
    uint64_t whole[2] = {0, 0};
    for (int t = 0; t < 14; t++) {
      const int mode = t >> 1;
      bool bad = t & 1, resident = mode == 1 || mode >= 3, pre = mode == 2;
      if (resident && !dev) continue;
      const bool lean = mode == 4 || mode == 6, packed = mode >= 5;
      const czk_groth16_lane_opts lo = {true, 8, lean, NULL, NULL};
      setenv("CZK_STREAM_PACK", packed ? "1" : "0", 1);
      czk_groth16_assignment as;
      memset(&as, 0, sizeof as);
      as.w.n_inputs = cc->n_inputs, as.w.n_aux = cc->n_aux;
      as.w.w = malloc(((size_t)cc->n_inputs + cc->n_aux) * sizeof(czk_fr));
      CHECK(czk_post_witness(inst, NULL, as.w.w) == CZK_OK);
      czk_fr *pub = malloc(cc->n_inputs * sizeof(czk_fr));
      memcpy(pub, as.w.w + 1, (cc->n_inputs - 1) * sizeof(czk_fr));
      if (bad) czk_fr_add(&as.w.w[cc->n_inputs + cc->n_aux / 2], &as.w.w[cc->n_inputs + cc->n_aux / 2], &as.w.w[0]);
      as.n_domain = d, as.n_rows = rows, as.cc = cc, as.dcc = resident ? dcc : NULL;
      if (pre) {
        /* this witness is mostly Poseidon values (more than 3/4 neither 0 nor 1): the policy leaves it unpacked */
        size_t nw = (size_t)cc->n_inputs + cc->n_aux, others = 0;
        for (size_t i = 0; i < nw; i++)
          others += !czk_fr_is_zero(&as.w.w[i]) && !czk_fr_eq(&as.w.w[i], &czk_fr_one_v);
        CHECK(czk_groth16_assignment_pack(&as, NULL) == CZK_OK);
        CHECK_MSG((as.wpack == NULL) == (others > nw - nw / 4) && as.wpack_dense == (others > nw - nw / 4),
                  "%zu of %zu values other, packed %d, dense %d", others, nw, as.wpack != NULL, as.wpack_dense);
        /* the prover takes any valid packed copy it is given: pack it here whatever its density (it still fits the
         * stage: fewer bytes than w), so that the device's copy-only path runs on this witness; a wrong pair of
         * sizes on the second, wrong-witness, pass must make the prover pack w itself (the wrong value is then
         * caught as before) */
        if (!as.wpack) {
          size_t cap = czk_backend_wpack_bytes(nw, nw);
          as.wpack = malloc(cap);
          CHECK(as.wpack && czk_backend_wpack(as.wpack, cap, as.w.w, nw, nw, NULL, &as.wpack_other) == CZK_OK);
          as.wpack_bytes = czk_backend_wpack_bytes(nw, as.wpack_other);
          CHECK(as.wpack_bytes < nw * sizeof(czk_fr));
        }
        czk_fr *back = malloc(nw * sizeof(czk_fr));
        CHECK(czk_backend_wunpack_host(back, as.wpack, as.wpack_bytes, nw, as.wpack_other) == CZK_OK);
        CHECK(memcmp(back, as.w.w, nw * sizeof(czk_fr)) == 0);
        free(back);
        if (bad) as.wpack_other++;
      }
      unsigned long launches = czk_groth16_msm_launches();
      czk_groth16_job *job = NULL;
      czk_status st = czk_groth16_prove_start_ex(&job, be, key, NULL, &as, NULL, mode >= 3 ? &lo : NULL);
      czk_groth16_proof pr;
      if (bad && !dev) { /* the host checks the rows before any MSM */
        CHECK_MSG(st == CZK_ERR_UNSATISFIED && czk_groth16_msm_launches() == launches, "a wrong witness: %s",
                  czk_status_str(st));
      } else if (bad) { /* the device's check is read at finish: no proof comes out */
        CHECK(st == CZK_OK);
        st = job ? czk_groth16_prove_finish(job, &pr, NULL) : CZK_ERR_STATE;
        CHECK_MSG(st == CZK_ERR_UNSATISFIED, "a wrong witness on the device: %s", czk_status_str(st));
      } else {
        CHECK(st == CZK_OK);
        czk_groth16_timings tm;
        memset(&tm, 0, sizeof tm);
        CHECK(job && czk_groth16_prove_finish(job, &pr, &tm) == CZK_OK);
        if (mode == 3 || mode == 4) whole[lean] = tm.upload_bytes;
        if (packed)
          CHECK_MSG(tm.upload_bytes > 0 && tm.upload_bytes < whole[lean], "%s lane, packed: %llu bytes uploaded, "
                    "%llu copied whole", lean ? "lean" : "compact", (unsigned long long)tm.upload_bytes,
                    (unsigned long long)whole[lean]);
        CHECK_MSG(czk_groth16_verify(&km.vk, &pr, pub, cc->n_inputs - 1) == CZK_OK, "witness-only proof on %s (%s%s)",
                  dev ? "cuda:0" : "cpu", resident ? "resident circuit" : "the proof's own copy",
                  mode == 3 ? ", compact lane" : mode == 4 ? ", lean lane" : mode == 5 ? ", compact lane, packed"
                  : mode == 6 ? ", lean lane, packed" : "");
        pub[0].l[0] ^= 1; /* and not for other inputs */
        CHECK(czk_groth16_verify(&km.vk, &pr, pub, cc->n_inputs - 1) == CZK_ERR_VERIFY_FAILED);
      }
      free(pub);
    }
    unsetenv("CZK_STREAM_PACK");
    czk_backend_compiled_free(be, dcc);
    czk_groth16_key_free(key); /* its lanes use the backend */
    czk_backend_free(be);
  }
  czk_groth16_key_mem_free(&km);
}

/* ------------------------------------------------------------------------------------------------ PoSt */
static void test_post(uint64_t wire) {
  const czk_post_info *info = czk_post_info_by_wire(wire);
  czk_compiled *cc = NULL;
  CHECK(czk_post_compile(info, &cc) == CZK_OK);
  if (!cc) return;
  CHECK(cc->n_segments == 2 && cc->seg[0].n_rows == 0 && cc->seg[1].reps == info->slots);
  czk_post_instance blank = {.info = info};
  czk_r1cs *rec = record(walk_post, &blank);
  if (rec) same_shape(cc, rec, info->name);
  uint8_t rnd[32] = {2, 7, 1, 8, 2, 8};
  czk_post_sector s[2];
  size_t n = info->type == CZK_POST_WINNING ? 1 : 2;
  for (size_t i = 0; i < n; i++)
    CHECK(czk_post_generate(info, CZK_POST_GEN_SPARSE, 5, 20 + i, i, rnd, NULL, NULL, &s[i]) == CZK_OK);
  czk_post_instance inst = {.info = info, .sectors = s, .n_sectors = n};
  czk_post_slot_counts sc;
  CHECK(czk_post_slot_counts_get(info, &sc) == CZK_OK);
  uint64_t ni, na, rows, d;
  czk_post_assignment_size(info, &sc, &ni, &na, &rows, &d);
  CHECK(ni == cc->n_inputs && na == cc->n_aux && rows == (uint64_t)cc->n_user_constraints + ni);
  czk_fr *w = malloc((ni + na) * sizeof(czk_fr)), *abc = malloc(3 * d * sizeof(czk_fr));
  CHECK(czk_post_evaluate(&inst, NULL, w, abc, abc + d, abc + 2 * d) == CZK_OK);
  same_abc(cc, w, abc, abc + d, abc + 2 * d, info->name);
  free(w), free(abc);
  if (rec && info->type == CZK_POST_WINNING) prove_witness_only(cc, rec, &inst, d, rows);
  czk_r1cs_free(rec);
  for (size_t i = 0; i < n; i++) czk_post_sector_free(&s[i]);
  czk_cc_free(cc);
}

/* ------------------------------------------------------------------------------------------------ SnapDeals */
static void test_snap(uint64_t sector_size) {
  const czk_snap_info *info = czk_snap_info_for_size(sector_size);
  czk_compiled *cc = NULL;
  CHECK(czk_snap_compile(info, &cc) == CZK_OK);
  if (!cc) return;
  CHECK(cc->n_segments == 2 && cc->seg[1].reps == info->challenges && cc->seg[1].table_width == info->rb);
  uint32_t k = info->partitions - 1;
  czk_snap_instance blank = {.info = info, .k = k};
  czk_r1cs *rec = record(walk_snap, &blank);
  if (rec) same_shape(cc, rec, info->size_name);
  /* the comparison sees the TABLE columns: challenges 0 and 1 given each other's bits no longer expand to the shape */
  CHECK(info->challenges >= 2 && cc->table_len == (uint64_t)info->challenges * info->rb);
  if (rec && info->challenges >= 2) {
    for (uint32_t i = 0; i < info->rb; i++) {
      uint32_t t = cc->table[i];
      cc->table[i] = cc->table[info->rb + i], cc->table[info->rb + i] = t;
    }
    czk_r1cs *x = NULL;
    CHECK(czk_cc_expand(cc, &x) == CZK_OK);
    bool differs = false;
    if (x) {
      const czk_csr *mx[3] = {&x->a, &x->b, &x->c}, *mr[3] = {&rec->a, &rec->b, &rec->c};
      for (int k = 0; k < 3; k++)
        differs |= mx[k]->nnz != mr[k]->nnz || memcmp(mx[k]->col, mr[k]->col, mr[k]->nnz * 4) != 0;
    }
    CHECK(differs);
    czk_r1cs_free(x);
    for (uint32_t i = 0; i < info->rb; i++) {
      uint32_t t = cc->table[i];
      cc->table[i] = cc->table[info->rb + i], cc->table[info->rb + i] = t;
    }
  }
  czk_r1cs_free(rec);
  czk_snap_gen_input in = {.mode = CZK_SNAP_GEN_SPARSE, .seed = 9};
  czk_snap_update u;
  CHECK(czk_snap_generate(info, &in, &u) == CZK_OK);
  czk_snap_instance inst = {.info = info, .k = k, .comms = &u.comms, .part = &u.parts[k]};
  uint64_t ni, na, rows, d;
  CHECK(czk_snap_assignment_size(info, &ni, &na, &rows, &d) == CZK_OK);
  CHECK(ni == cc->n_inputs && na == cc->n_aux && rows == (uint64_t)cc->n_user_constraints + ni);
  czk_fr *w = malloc((ni + na) * sizeof(czk_fr)), *abc = malloc(3 * d * sizeof(czk_fr));
  CHECK(czk_snap_evaluate(&inst, NULL, w, abc, abc + d, abc + 2 * d) == CZK_OK);
  same_abc(cc, w, abc, abc + d, abc + 2 * d, "snap");
  free(w), free(abc);
  czk_snap_update_free(&u);
  czk_cc_free(cc);
}

/* ------------------------------------------------------------------------------------------------ file form */
static char g_dir[256];

static void write_bytes(const char *path, const uint8_t *p, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(p, 1, n, f) == n);
  fclose(f);
}

static uint8_t *read_bytes(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)len + 1);
  *n = fread(p, 1, (size_t)len, f);
  fclose(f);
  return p;
}

/* load must fail with `want` and an error naming the file and containing `needle` */
static void refused(const char *path, czk_status want, const char *needle) {
  czk_compiled *cc = (czk_compiled *)1;
  char err[512];
  czk_status st = czk_cc_load(&cc, path, err, sizeof err);
  CHECK_MSG(st == want, "%s: got %s, wanted %s (%s)", needle, czk_status_str(st), czk_status_str(want), err);
  CHECK(cc == NULL);
  CHECK_MSG(strstr(err, path) && strstr(err, needle), "error '%s' should name %s and say '%s'", err, path, needle);
}

/* The body checksum recomputed after an edit (a structurally broken file that passes the checksum). */
static void rehash(uint8_t *p, size_t n) {
  czk__bhash h;
  czk__bhash_init(&h);
  czk__bhash_bytes(&h, p + 192, n - 192);
  uint64_t v = czk__bhash_final(&h);
  memcpy(p + 192 - 8 - (192 - 8 - 8 - 48 - 24 - 48), &v, 8); /* body_hash: the last u64 before the padding */
}

static void test_file(void) {
  const czk_post_info *info = czk_post_info_by_wire(5);
  czk_compiled *cc = NULL;
  CHECK(czk_post_compile(info, &cc) == CZK_OK);
  if (!cc) return;
  char path[300], bad[300];
  snprintf(path, sizeof path, "%s/post.czkc", g_dir);
  snprintf(bad, sizeof bad, "%s/bad.czkc", g_dir);
  CHECK(czk_cc_save(cc, path) == CZK_OK);
  size_t n = 0;
  uint8_t *img = read_bytes(path, &n);
  CHECK(img && n == czk_cc_file_size(cc) && n % 64 == 0);
  czk_compiled *ld = NULL;
  char err[512];
  CHECK_MSG(czk_cc_load(&ld, path, err, sizeof err) == CZK_OK, "%s", err);
  if (ld && img) {
    CHECK(ld->mapped && strcmp(ld->id, cc->id) == 0 && ld->n_inputs == cc->n_inputs && ld->n_aux == cc->n_aux);
    CHECK(ld->n_user_constraints == cc->n_user_constraints && ld->n_coef == cc->n_coef);
    CHECK(ld->one_index == cc->one_index && ld->minus_one_index == cc->minus_one_index);
    CHECK(memcmp(ld->seg, cc->seg, cc->n_segments * sizeof *cc->seg) == 0);
    CHECK(memcmp(ld->coef, cc->coef, cc->n_coef * sizeof(czk_fr)) == 0);
    for (int k = 0; k < 3; k++) {
      CHECK(ld->nnz[k] == cc->nnz[k] && ld->m[k].nnz == cc->m[k].nnz);
      CHECK(memcmp(ld->m[k].row_ptr, cc->m[k].row_ptr, ((size_t)cc->n_tmpl_rows + 1) * 4) == 0);
      CHECK(memcmp(ld->m[k].col, cc->m[k].col, cc->m[k].nnz * 4) == 0);
      CHECK(memcmp(ld->m[k].ref, cc->m[k].ref, cc->m[k].nnz * 4) == 0);
    }
    /* the mapped form computes the same rows */
    size_t nv = (size_t)cc->n_inputs + cc->n_aux, nr = cc->n_user_constraints;
    czk_fr *w = malloc(nv * sizeof(czk_fr)), *x = malloc(6 * nr * sizeof(czk_fr));
    czk_test_rng rng;
    czk_test_rng_seed(&rng, 5);
    for (size_t i = 0; i < nv; i++) czk_fr_from_u64(&w[i], czk_test_rng_next(&rng));
    CHECK(czk_cc_matvec(cc, w, x, x + nr, x + 2 * nr, NULL) == CZK_OK);
    CHECK(czk_cc_matvec(ld, w, x + 3 * nr, x + 4 * nr, x + 5 * nr, NULL) == CZK_OK);
    CHECK(memcmp(x, x + 3 * nr, 3 * nr * sizeof(czk_fr)) == 0);
    free(w), free(x);
    czk_cc_free(ld);

    /* truncated: empty, inside the header, inside the body */
    write_bytes(bad, img, 0);
    refused(bad, CZK_ERR_TRUNCATED, "truncated");
    write_bytes(bad, img, 100);
    refused(bad, CZK_ERR_TRUNCATED, "truncated");
    write_bytes(bad, img, n - 64);
    refused(bad, CZK_ERR_TRUNCATED, "truncated");
    /* trailing garbage */
    uint8_t *big = calloc(n + 64, 1);
    memcpy(big, img, n);
    write_bytes(bad, big, n + 64);
    refused(bad, CZK_ERR_FORMAT, "size mismatch");
    free(big);
    /* not ours, another version */
    uint8_t *t = malloc(n);
    memcpy(t, img, n);
    t[0] = 'X';
    write_bytes(bad, t, n);
    refused(bad, CZK_ERR_FORMAT, "not a compiled circuit");
    memcpy(t, img, n);
    t[12] = 9;
    write_bytes(bad, t, n);
    refused(bad, CZK_ERR_UNSUPPORTED, "version 9");
    /* a flipped bit anywhere in the body: the checksum */
    czk_test_rng rng2;
    czk_test_rng_seed(&rng2, 17);
    for (int i = 0; i < 8; i++) {
      memcpy(t, img, n);
      size_t at = 192 + (size_t)(czk_test_rng_next(&rng2) % (n - 192));
      t[at] ^= (uint8_t)(1u << (i & 7));
      write_bytes(bad, t, n);
      refused(bad, CZK_ERR_FORMAT, "checksum");
    }
    /* an absurd count in the header */
    memcpy(t, img, n);
    uint32_t huge = 0xffffffffu;
    memcpy(t + 8 + 8 + 48 + 12, &huge, 4); /* n_segments */
    write_bytes(bad, t, n);
    refused(bad, CZK_ERR_FORMAT, "header counts");
    /* structurally broken files with a valid checksum: an out-of-range column, a non-canonical coefficient */
    uint64_t off_col = 0;
    { /* the A col section: after seg, coef, table, A row_ptr (64-aligned each) */
      uint64_t p = 192;
      p = (p + cc->n_segments * sizeof(czk_cc_segment) + 63) & ~63ull;
      uint64_t coef_off = p;
      p = (p + cc->n_coef * sizeof(czk_fr) + 63) & ~63ull;
      p = (p + cc->table_len * 4 + 63) & ~63ull;
      p = (p + ((uint64_t)cc->n_tmpl_rows + 1) * 4 + 63) & ~63ull;
      off_col = p;
      memcpy(t, img, n);
      uint32_t c = 0x7ffffff0u;
      memcpy(t + off_col, &c, 4);
      rehash(t, n);
      write_bytes(bad, t, n);
      refused(bad, CZK_ERR_FORMAT, "out of range");
      memcpy(t, img, n);
      memset(t + coef_off, 0xff, 32);
      rehash(t, n);
      write_bytes(bad, t, n);
      refused(bad, CZK_ERR_NOT_CANONICAL, "not canonical");
    }
    free(t);
  }
  /* a missing file */
  char missing[300];
  snprintf(missing, sizeof missing, "%s/none.czkc", g_dir);
  refused(missing, CZK_ERR_NOT_FOUND, "cannot open");
  free(img);
  unlink(path);
  unlink(bad);
  czk_cc_free(cc);
}

/* ------------------------------------------------------------------------------------------------ misuse */
static void test_misuse(void) {
  czk_cs *cs;
  czk_compiled *cc = (czk_compiled *)1;
  czk_cc_part part = {3, 0, NULL};
  /* rows after the last mark: the part is not closed */
  CHECK(czk_cc_recorder_new(&cs) == CZK_OK);
  CHECK(czk_cs_get_mode(cs) == CZK_CS_COMPILE && !czk_cs_has_values(cs));
  czk_var x;
  CHECK(czk_cs_alloc(cs, &x, NULL) == CZK_OK);
  czk_lc l;
  czk_lc_init(&l);
  czk_lc_add_var(&l, x);
  CHECK(czk_cs_enforce(cs, NULL, &l, &l, &l) == CZK_OK);
  CHECK(czk_cc_recorder_finish(cs, &part, 1, NULL, &cc) == CZK_ERR_INVALID_ARG && cc == NULL);
  /* a table variable of the part itself */
  CHECK(czk_cc_recorder_new(&cs) == CZK_OK);
  CHECK(czk_cc_recorder_mark(cs) == CZK_OK);
  CHECK(czk_cs_alloc(cs, &x, NULL) == CZK_OK);
  CHECK(czk_cs_enforce(cs, NULL, &l, &l, &l) == CZK_OK);
  CHECK(czk_cc_recorder_mark(cs) == CZK_OK);
  czk_var tab[3] = {x, x, x};
  czk_cc_part two[2] = {{1, 0, NULL}, {3, 1, tab}};
  CHECK(czk_cc_recorder_finish(cs, two, 2, NULL, &cc) == CZK_ERR_INVALID_ARG && cc == NULL);
  /* an unknown variable in a row is the recorder's sticky error */
  CHECK(czk_cc_recorder_new(&cs) == CZK_OK);
  CHECK(czk_cs_enforce(cs, NULL, &l, &l, &l) == CZK_ERR_INVALID_ARG);
  CHECK(czk_cc_recorder_mark(cs) == CZK_ERR_INVALID_ARG);
  czk_cs_free(cs);
  /* a small hand-made circuit: top {t}, 3 repeats of {y = t * x_r} with input x_r; expanded and evaluated */
  CHECK(czk_cc_recorder_new(&cs) == CZK_OK);
  czk_var t, xi, y;
  CHECK(czk_cs_alloc(cs, &t, NULL) == CZK_OK);
  CHECK(czk_cc_recorder_mark(cs) == CZK_OK);
  CHECK(czk_cs_alloc_input(cs, &xi, NULL) == CZK_OK);
  CHECK(czk_cs_alloc(cs, &y, NULL) == CZK_OK);
  czk_lc a, b, c;
  czk_lc_init(&a), czk_lc_init(&b), czk_lc_init(&c);
  czk_lc_add_u64(&a, t, 5), czk_lc_add_u64(&a, t, 2); /* merged: 7 t */
  czk_lc_add_var(&b, xi), czk_lc_sub_var(&b, CZK_VAR_ONE);
  czk_lc_add_var(&c, y), czk_lc_add_var(&c, xi), czk_lc_sub_var(&c, xi); /* merged away: y */
  CHECK(czk_cs_enforce(cs, NULL, &a, &b, &c) == CZK_OK);
  CHECK(czk_cc_recorder_mark(cs) == CZK_OK);
  czk_cc_part p2[2] = {{1, 0, NULL}, {3, 0, NULL}};
  cc = NULL;
  CHECK(czk_cc_recorder_finish(cs, p2, 2, "toy", &cc) == CZK_OK);
  if (cc) {
    CHECK(cc->n_inputs == 4 && cc->n_aux == 4 && cc->n_user_constraints == 3 && cc->n_coef == 3);
    CHECK(cc->m[0].nnz == 1 && cc->m[1].nnz == 2 && cc->m[2].nnz == 1 && cc->nnz[1] == 6);
    /* w = [1, x0, x1, x2, t, y0, y1, y2] */
    czk_fr w[8], out[9], want;
    uint64_t v[8] = {1, 10, 20, 30, 3, 0, 0, 0};
    for (int i = 0; i < 8; i++) czk_fr_from_u64(&w[i], v[i]);
    for (int r = 0; r < 3; r++) czk_fr_from_u64(&w[5 + r], 21 * (v[1 + r] - 1)); /* y_r = 7 t (x_r - 1) */
    CHECK(czk_cc_matvec(cc, w, out, out + 3, out + 6, NULL) == CZK_OK);
    for (int r = 0; r < 3; r++) {
      czk_fr_from_u64(&want, 21);
      CHECK(czk_fr_eq(&out[r], &want));
      czk_fr_from_u64(&want, v[1 + r] - 1);
      CHECK(czk_fr_eq(&out[3 + r], &want));
      CHECK(czk_fr_eq(&out[6 + r], &w[5 + r]));
    }
    czk_cc_free(cc);
  }
  czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c), czk_lc_free(&l);
}

/* ------------------------------------------------------------------------------------------------ bench */
static void bench_one(const char *label, czk_compiled *cc, double t_compile, bool run_matvec) {
  uint64_t tmpl = 0, expd = 0;
  for (int k = 0; k < 3; k++) tmpl += cc->m[k].nnz, expd += cc->nnz[k];
  char path[300];
  snprintf(path, sizeof path, "%s/bench.czkc", g_dir);
  double t0 = now_s();
  czk_status st = czk_cc_save(cc, path);
  double t_save = now_s() - t0;
  czk_compiled *ld = NULL;
  char err[256];
  t0 = now_s();
  if (st == CZK_OK) st = czk_cc_load(&ld, path, err, sizeof err);
  double t_load = now_s() - t0;
  printf("%-22s rows %11u  tmpl rows %9u  tmpl nnz %10llu  expanded nnz %11llu  coefs %6u  file %8.1f MiB  "
         "compile %6.2f s  save %5.2f s  load+validate %5.2f s",
         label, cc->n_user_constraints, cc->n_tmpl_rows, (unsigned long long)tmpl, (unsigned long long)expd,
         cc->n_coef, (double)czk_cc_file_size(cc) / 1048576.0, t_compile, t_save, t_load);
  if (run_matvec && ld) {
    size_t nv = (size_t)cc->n_inputs + cc->n_aux, nr = cc->n_user_constraints;
    czk_fr *w = malloc(nv * sizeof(czk_fr)), *x = malloc(3 * nr * sizeof(czk_fr));
    if (w && x) {
      czk_test_rng rng;
      czk_test_rng_seed(&rng, 1);
      for (size_t i = 0; i < nv; i++) czk_fr_from_u64(&w[i], czk_test_rng_next(&rng));
      t0 = now_s();
      czk_cc_matvec(ld, w, x, x + nr, x + 2 * nr, NULL);
      printf("  matvec %6.2f s (%u threads)", now_s() - t0, czk_pool_threads(czk_pool_default()));
    }
    free(w), free(x);
  }
  printf("\n");
  fflush(stdout);
  czk_cc_free(ld);
  unlink(path);
}

static void bench(uint64_t max_matvec) {
  static const uint64_t porep[] = {2048, 8ull << 20, 512ull << 20, 32ull << 30};
  for (size_t i = 0; i < 4; i++) {
    const czk_porep_info *info = czk_porep_info_for_size(porep[i]);
    czk_porep_circuit c;
    czk_porep_circuit_of(info, &c);
    czk_compiled *cc = NULL;
    double t0 = now_s();
    czk_status st = czk_porep_compile(&c, czk_porep_circuit_id(info), &cc);
    if (st != CZK_OK) {
      printf("porep %s: %s\n", info->size_name, czk_status_str(st));
      continue;
    }
    char l[64];
    snprintf(l, sizeof l, "porep %s", info->size_name);
    bench_one(l, cc, now_s() - t0, cc->n_user_constraints <= max_matvec);
    czk_cc_free(cc);
  }
  const czk_post_info *pi[2] = {czk_post_info_find(CZK_POST_WINDOW, 32ull << 30, 0),
                                czk_post_info_find(CZK_POST_WINNING, 32ull << 30, 0)};
  for (int i = 0; i < 2; i++) {
    czk_compiled *cc = NULL;
    double t0 = now_s();
    if (!pi[i] || czk_post_compile(pi[i], &cc) != CZK_OK) continue;
    char l[64];
    snprintf(l, sizeof l, "%s 32GiB", i ? "winning-post" : "window-post");
    bench_one(l, cc, now_s() - t0, cc->n_user_constraints <= max_matvec);
    czk_cc_free(cc);
  }
  const czk_snap_info *si = czk_snap_info_for_size(32ull << 30);
  czk_compiled *cc = NULL;
  double t0 = now_s();
  if (si && czk_snap_compile(si, &cc) == CZK_OK) {
    bench_one("snap 32GiB", cc, now_s() - t0, cc->n_user_constraints <= max_matvec);
    czk_cc_free(cc);
  }
}

int main(int argc, char **argv) {
  g_full = argc > 1 && strcmp(argv[1], "full") == 0;
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/czk-compiled-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) {
    perror("mkdtemp");
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "bench") == 0) {
    bench(argc > 2 ? strtoull(argv[2], NULL, 10) : 40000000ull);
    rmdir(g_dir);
    return 0;
  }
  test_misuse();
  test_file();
  test_porep(2048, CZK_POREP_GEN_DENSE);
  test_post(0);  /* WinningPoSt 2 KiB */
  test_post(5);  /* WindowPoSt 2 KiB, API 1.0 */
  test_post(10); /* WindowPoSt 2 KiB, API 1.2 */
  test_snap(2048);
  if (g_full) test_porep(8ull << 20, CZK_POREP_GEN_SPARSE);
  rmdir(g_dir);
  return czk_test_done("test_compiled");
}
