/* bench_curve.c: `czk bench curve`: time per operation of the curve layer (G1, G2, subgroup checks, codecs, pairing),
 * single thread. Each row runs its operation in a loop sized to last about --ms milliseconds (default 200), timed with
 * the thread's CPU time (CLOCK_THREAD_CPUTIME_ID, robust on a shared machine) and wall time (CLOCK_MONOTONIC).
 * Additions run as dependent chains (acc = acc + Q) so latency is measured. The "blst" column is the reference
 * measured with blst on the project's machine kind, where one is known. Never asserts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "bench/bench.h"
#include "core/units.h"
#include "czk/curve.h"

typedef struct {
  czk_g1 p1, acc1;
  czk_g2 p2, acc2;
  czk_g1_affine a1;
  czk_g2_affine a2;
  czk_g1_xyzz x1;
  czk_g2_xyzz x2;
  czk_fr k;
  czk_g1_fixed_base *fb1, *fb12; /* constant-time tables, w = 8 and 12 (setup's former window for many points) */
  czk_g1_fixed_base *fb16_1; /* w = 16 variable-time tables (setup's), built only when a batch row runs */
  czk_g2_fixed_base *fb16_2;
  czk_fr *kb;          /* BATCH scalars */
  czk_g1_affine *ob1; /* BATCH outputs */
  czk_g2_affine *ob2;
  uint8_t c1[48], c2[96];
  czk_g1_affine pp[4];
  czk_g2_affine qq[4];
  czk_fp12 f;
  uint64_t sink;
} bench_state;

typedef void (*bench_fn)(bench_state *s, long n);

static void b_g1_add_affine(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g1_add_affine(&s->acc1, &s->acc1, &s->a1);
}
static void b_g2_add_affine(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g2_add_affine(&s->acc2, &s->acc2, &s->a2);
}
static void b_g1_add(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g1_add(&s->acc1, &s->acc1, &s->p1);
}
static void b_g2_add(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g2_add(&s->acc2, &s->acc2, &s->p2);
}
static void b_g1_dbl(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g1_dbl(&s->acc1, &s->acc1);
}
static void b_g2_dbl(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g2_dbl(&s->acc2, &s->acc2);
}
static void b_g1_xyzz_add_affine(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g1_xyzz_add_affine(&s->x1, &s->x1, &s->a1);
}
static void b_g2_xyzz_add_affine(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g2_xyzz_add_affine(&s->x2, &s->x2, &s->a2);
}
static void b_g1_mul(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g1_mul(&s->acc1, &s->acc1, &s->k);
}
static void b_g1_mul_vartime(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g1_mul_vartime(&s->acc1, &s->acc1, &s->k);
}
static void b_g2_mul(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g2_mul(&s->acc2, &s->acc2, &s->k);
}
static void b_g2_mul_vartime(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g2_mul_vartime(&s->acc2, &s->acc2, &s->k);
}
static void b_g1_fixed_base(bench_state *s, long n) {
  for (long i = 0; i < n; i++) {
    czk_g1_fixed_base_mul(&s->acc1, s->fb1, &s->k);
    s->k.l[0] ^= s->acc1.x.l[0] & 0xff; /* vary the scalar (stays < r: only low bits change) */
  }
}
/* setup's path: n points as batches of BATCH scalars through the w = 16 tables (time per point) */
#define BATCH 1024
static void b_g1_fixed_base_batch(bench_state *s, long n) {
  for (long i = 0; i < n; i += BATCH)
    s->sink += czk_g1_fixed_base_mul_batch_vartime(s->ob1, s->fb16_1, s->kb, n - i < BATCH ? (size_t)(n - i) : BATCH);
}
static void b_g2_fixed_base_batch(bench_state *s, long n) {
  for (long i = 0; i < n; i += BATCH)
    s->sink += czk_g2_fixed_base_mul_batch_vartime(s->ob2, s->fb16_2, s->kb, n - i < BATCH ? (size_t)(n - i) : BATCH);
}
static void b_g1_fixed_base12(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_g1_fixed_base_mul(&s->acc1, s->fb12, &s->k);
}
static void b_g1_in_subgroup(bench_state *s, long n) {
  for (long i = 0; i < n; i++) s->sink += czk_g1_in_subgroup(&s->p1);
}
static void b_g2_in_subgroup(bench_state *s, long n) {
  for (long i = 0; i < n; i++) s->sink += czk_g2_in_subgroup(&s->p2);
}
static void b_g1_uncompress(bench_state *s, long n) {
  czk_g1_affine r;
  for (long i = 0; i < n; i++) s->sink += czk_g1_uncompress(&r, s->c1);
}
static void b_g2_uncompress(bench_state *s, long n) {
  czk_g2_affine r;
  for (long i = 0; i < n; i++) s->sink += czk_g2_uncompress(&r, s->c2);
}
static void b_miller_loop(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_miller_loop(&s->f, &s->pp[0], &s->qq[0]);
}
static void b_final_exp(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_final_exponentiation(&s->f, &s->f);
}
static void b_pairing(bench_state *s, long n) {
  for (long i = 0; i < n; i++) czk_pairing(&s->f, &s->pp[0], &s->qq[0]);
}
static void b_pairing4(bench_state *s, long n) {
  for (long i = 0; i < n; i++) s->sink += czk_pairing_product_is_one(s->pp, s->qq, 4);
}

typedef struct {
  const char *name;
  bench_fn fn;
  double blst_us; /* reference, 0 when unknown */
} bench_row;

static const bench_row k_rows[] = {
    {"g1_add_affine (mixed)", b_g1_add_affine, 0.45},
    {"g2_add_affine (mixed)", b_g2_add_affine, 1.16},
    {"g1_add", b_g1_add, 0},
    {"g2_add", b_g2_add, 0},
    {"g1_dbl", b_g1_dbl, 0},
    {"g2_dbl", b_g2_dbl, 0},
    {"g1_xyzz_add_affine", b_g1_xyzz_add_affine, 0},
    {"g2_xyzz_add_affine", b_g2_xyzz_add_affine, 0},
    {"g1_mul (ct)", b_g1_mul, 0},
    {"g1_mul_vartime", b_g1_mul_vartime, 0},
    {"g2_mul (ct)", b_g2_mul, 0},
    {"g2_mul_vartime", b_g2_mul_vartime, 0},
    {"g1_fixed_base_mul (w=8)", b_g1_fixed_base, 0},
    {"g1_fixed_base_mul (w=12)", b_g1_fixed_base12, 0},
    {"g1_fixed_base_batch (w=16)", b_g1_fixed_base_batch, 0},
    {"g2_fixed_base_batch (w=16)", b_g2_fixed_base_batch, 0},
    {"g1_in_subgroup", b_g1_in_subgroup, 0},
    {"g2_in_subgroup", b_g2_in_subgroup, 0},
    {"g1_uncompress", b_g1_uncompress, 0},
    {"g2_uncompress", b_g2_uncompress, 0},
    {"miller_loop", b_miller_loop, 0},
    {"final_exponentiation", b_final_exp, 0},
    {"pairing", b_pairing, 474},
    {"pairing_product (4 pairs)", b_pairing4, 0},
};

static int init_state(bench_state *s) {
  memset(s, 0, sizeof *s);
  uint8_t buf[64];
  for (int i = 0; i < 64; i++) buf[i] = (uint8_t)(i * 37 + 11);
  czk_fr_from_bytes_wide_le(&s->k, buf, 64);
  czk_g1 g1;
  czk_g2 g2;
  czk_g1_generator(&g1);
  czk_g2_generator(&g2);
  czk_g1_mul(&s->p1, &g1, &s->k);
  czk_g2_mul(&s->p2, &g2, &s->k);
  s->acc1 = s->p1;
  s->acc2 = s->p2;
  czk_g1_dbl(&s->p1, &s->p1); /* p1 != acc1 */
  czk_g2_dbl(&s->p2, &s->p2);
  czk_g1_to_affine(&s->a1, &s->p1);
  czk_g2_to_affine(&s->a2, &s->p2);
  czk_g1_xyzz_set_infinity(&s->x1);
  czk_g1_xyzz_add_affine(&s->x1, &s->x1, &s->a1);
  czk_g1_xyzz_add_affine(&s->x1, &s->x1, &s->a1);
  czk_g2_xyzz_set_infinity(&s->x2);
  czk_g2_xyzz_add_affine(&s->x2, &s->x2, &s->a2);
  czk_g2_xyzz_add_affine(&s->x2, &s->x2, &s->a2);
  czk_g1_compress(s->c1, &s->a1);
  czk_g2_compress(s->c2, &s->a2);
  for (int i = 0; i < 4; i++) {
    czk_g1 a;
    czk_g2 b;
    czk_g1_mul(&a, &s->p1, &s->k);
    czk_g2_mul(&b, &s->p2, &s->k);
    s->k.l[0] ^= (uint64_t)(i + 1);
    czk_g1_to_affine(&s->pp[i], &a);
    czk_g2_to_affine(&s->qq[i], &b);
  }
  czk_fp12_set_one(&s->f);
  if (czk_g1_fixed_base_new(&s->fb1, &g1, 8) != CZK_OK || czk_g1_fixed_base_new(&s->fb12, &g1, 12) != CZK_OK)
    return -1;
  return 0;
}

/* one row's operation through czk__bench_calibrated */
typedef struct {
  bench_fn fn;
  bench_state *s;
} row_run;
static void run_row(void *ctx, long n) {
  row_run *r = ctx;
  r->fn(r->s, n);
}

int czk_bench_curve(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    printf("usage: czk bench curve [--ms N] [--only NAME]\n"
           "  microseconds per operation of G1/G2 arithmetic, scalar multiplication, subgroup checks, point\n"
           "  decoding and the pairing (single thread); blst = reference on the project's machine kind.\n"
           "  --ms N       target milliseconds per row (default 200)\n"
           "  --only NAME  run only the rows whose name contains NAME\n");
    return 0;
  }
  double ms;
  const char *only;
  if (czk__bench_parse_ms_only(argc, argv, "curve", &ms, &only) != 0) return 2;
  bench_state s;
  if (init_state(&s) != 0) {
    fprintf(stderr, "czk bench curve: out of memory\n");
    return 1;
  }
  bool batch_rows = false;
  for (size_t r = 0; r < sizeof k_rows / sizeof k_rows[0]; r++)
    if (strstr(k_rows[r].name, "batch") && (!only || strstr(k_rows[r].name, only))) batch_rows = true;
  if (batch_rows) { /* setup's w = 16 tables (~0.7 s) */
    czk_g1 g1;
    czk_g2 g2;
    czk_g1_generator(&g1);
    czk_g2_generator(&g2);
    s.kb = malloc(BATCH * sizeof *s.kb);
    s.ob1 = malloc(BATCH * sizeof *s.ob1);
    s.ob2 = malloc(BATCH * sizeof *s.ob2);
    if (!s.kb || !s.ob1 || !s.ob2 || czk_g1_fixed_base_new_vartime(&s.fb16_1, &g1, 16) != CZK_OK ||
        czk_g2_fixed_base_new_vartime(&s.fb16_2, &g2, 16) != CZK_OK) {
      fprintf(stderr, "czk bench curve: out of memory\n");
      return 1;
    }
    for (int i = 0; i < BATCH; i++) { /* pseudo-random full-size scalars */
      uint8_t b[64];
      for (int j = 0; j < 64; j++) b[j] = (uint8_t)((i + 1) * 131 + j * 29 + (i * j >> 3));
      czk_fr_from_bytes_wide_le(&s.kb[i], b, 64);
    }
  }
  printf("%-26s %12s %12s %10s %10s\n", "op", "us/op(cpu)", "us/op(wall)", "iters", "blst(us)");
  for (size_t r = 0; r < sizeof k_rows / sizeof k_rows[0]; r++) {
    if (only && !strstr(k_rows[r].name, only)) continue;
    if (strstr(k_rows[r].name, "batch") && !s.fb16_1) continue;
    row_run run = {k_rows[r].fn, &s};
    long total;
    double t, w;
    czk__bench_calibrated(run_row, &run, ms, &total, &t, &w);
    char ref[16] = "-";
    if (k_rows[r].blst_us > 0) snprintf(ref, sizeof ref, "%.2f", k_rows[r].blst_us);
    printf("%-26s %12.3f %12.3f %10ld %10s\n", k_rows[r].name, t / (double)total / 1e3, w / (double)total / 1e3,
           total, ref);
    fflush(stdout);
  }
  czk_g1_fixed_base_free(s.fb1);
  czk_g1_fixed_base_free(s.fb12);
  czk_g1_fixed_base_free(s.fb16_1);
  czk_g2_fixed_base_free(s.fb16_2);
  free(s.kb), free(s.ob1), free(s.ob2);
  volatile uint64_t sink = s.sink ^ s.acc1.x.l[0] ^ s.acc2.x.c0.l[0] ^ s.x1.x.l[0] ^ s.x2.x.c0.l[0] ^ s.f.c0.c0.c0.l[0];
  (void)sink;
  return 0;
}
