/* bench_field.c: `czk bench field`: ns per operation of the field layer (Fp, Fr, Fp2, Fp12), single thread.
 * Each operation runs in a dependent chain (the output feeds the next input) so the latency is measured, timed with
 * clock_gettime over enough iterations to last about --ms milliseconds (default 200) per row: ns/op from the
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID, robust on a shared machine) and from wall time (CLOCK_MONOTONIC).
 * Never asserts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "bench/bench.h"
#include "core/units.h"
#include "czk/field.h"

typedef struct {
  czk_fp a, b;
  czk_fr x, y;
  czk_fp2 a2, b2;
  czk_fp12 f, g;
} bench_state;

typedef void (*bench_fn)(bench_state *s, long n);

static void b_fp_mul(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp_mul(&s->a, &s->a, &s->b);
}
static void b_fp_sqr(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp_sqr(&s->a, &s->a);
}
static void b_fp_add(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp_add(&s->a, &s->a, &s->b);
}
static void b_fr_mul(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fr_mul(&s->x, &s->x, &s->y);
}
static void b_fr_sqr(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fr_sqr(&s->x, &s->x);
}
static void b_fp_inv(bench_state *s, long n) {
  for (long i = 0; i < n; i++) {
    czk_fp_inv(&s->a, &s->a);
    czk_fp_add(&s->a, &s->a, &s->b);
  }
}
static void b_fp_inv_vt(bench_state *s, long n) {
  for (long i = 0; i < n; i++) {
    czk_fp_inv_vartime(&s->a, &s->a);
    czk_fp_add(&s->a, &s->a, &s->b);
  }
}
static void b_fr_inv(bench_state *s, long n) {
  for (long i = 0; i < n; i++) {
    czk_fr_inv(&s->x, &s->x);
    czk_fr_add(&s->x, &s->x, &s->y);
  }
}
static void b_fr_inv_vt(bench_state *s, long n) {
  for (long i = 0; i < n; i++) {
    czk_fr_inv_vartime(&s->x, &s->x);
    czk_fr_add(&s->x, &s->x, &s->y);
  }
}
static void b_fp_sqrt(bench_state *s, long n) {
  for (long i = 0; i < n; i++) {
    czk_fp_sqrt(&s->a, &s->a);
    czk_fp_add(&s->a, &s->a, &s->b);
  }
}
static void b_fp_legendre(bench_state *s, long n) {
  for (long i = 0; i < n; i++) {
    int l = czk_fp_legendre(&s->a);
    s->a.l[0] ^= (uint64_t)(l & 1) << 7;
  }
}
static void b_fr_sqrt(bench_state *s, long n) {
  for (long i = 0; i < n; i++) {
    czk_fr_sqrt(&s->x, &s->x);
    czk_fr_add(&s->x, &s->x, &s->y);
  }
}
static void b_fp2_mul(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp2_mul(&s->a2, &s->a2, &s->b2);
}
static void b_fp2_sqr(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp2_sqr(&s->a2, &s->a2);
}
static void b_fp2_sqrt(bench_state *s, long n) {
  for (long i = 0; i < n; i++) {
    czk_fp2_sqrt(&s->a2, &s->a2);
    czk_fp2_add(&s->a2, &s->a2, &s->b2);
  }
}
static void b_fp12_mul(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp12_mul(&s->f, &s->f, &s->g);
}
static void b_fp12_sqr(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp12_sqr(&s->f, &s->f);
}
static void b_fp12_cyc(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp12_cyclotomic_sqr(&s->f, &s->f);
}
static void b_fp12_inv(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp12_inv(&s->f, &s->f);
}
static void b_fp12_frob(bench_state *s, long n) {
  for (long i = 0; i < n; i++)
    czk_fp12_frobenius(&s->f, &s->f, 1);
}

typedef struct {
  const char *name;
  bench_fn fn;
} bench_row;

static const bench_row k_rows[] = {
    {"fp_mul", b_fp_mul},
    {"fp_sqr", b_fp_sqr},
    {"fp_add", b_fp_add},
    {"fr_mul", b_fr_mul},
    {"fr_sqr", b_fr_sqr},
    {"fp_inv", b_fp_inv},
    {"fp_inv_vartime", b_fp_inv_vt},
    {"fr_inv", b_fr_inv},
    {"fr_inv_vartime", b_fr_inv_vt},
    {"fp_sqrt", b_fp_sqrt},
    {"fp_legendre", b_fp_legendre},
    {"fr_sqrt", b_fr_sqrt},
    {"fp2_mul", b_fp2_mul},
    {"fp2_sqr", b_fp2_sqr},
    {"fp2_sqrt", b_fp2_sqrt},
    {"fp12_mul", b_fp12_mul},
    {"fp12_sqr", b_fp12_sqr},
    {"fp12_cyclotomic_sqr", b_fp12_cyc},
    {"fp12_inv", b_fp12_inv},
    {"fp12_frobenius1", b_fp12_frob},
};

static void init_state(bench_state *s) {
  uint8_t buf[64];
  for (int i = 0; i < 64; i++)
    buf[i] = (uint8_t)(i * 37 + 11);
  czk_fp_from_bytes_wide_le(&s->a, buf, 64);
  buf[0] ^= 1;
  czk_fp_from_bytes_wide_le(&s->b, buf, 64);
  czk_fr_from_bytes_wide_le(&s->x, buf, 64);
  buf[1] ^= 1;
  czk_fr_from_bytes_wide_le(&s->y, buf, 64);
  s->a2.c0 = s->a;
  s->a2.c1 = s->b;
  s->b2.c0 = s->b;
  s->b2.c1 = s->a;
  czk_fp12_set_one(&s->f);
  s->f.c0.c1 = s->a2;
  s->f.c1.c2 = s->b2;
  s->g = s->f;
  s->g.c1.c0 = s->a2;
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

int czk_bench_field(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    printf("usage: czk bench field [--ms N] [--only NAME]\n"
           "  ns per operation of Fp, Fr, Fp2, Fp12 arithmetic (single thread, dependent chains).\n"
           "  --ms N       target milliseconds per row (default 200)\n"
           "  --only NAME  run only the rows whose name contains NAME\n");
    return 0;
  }
  double ms;
  const char *only;
  if (czk__bench_parse_ms_only(argc, argv, "field", &ms, &only) != 0) return 2;
  bench_state s;
  init_state(&s);
  printf("%-22s %12s %12s %12s\n", "op", "ns/op(cpu)", "ns/op(wall)", "iterations");
  for (size_t r = 0; r < sizeof k_rows / sizeof k_rows[0]; r++) {
    if (only && !strstr(k_rows[r].name, only)) continue;
    /* calibrate: double n until one run takes >= 10 ms, then scale to the target */
    row_run run = {k_rows[r].fn, &s};
    long total;
    double t, w;
    czk__bench_calibrated(run_row, &run, ms, &total, &t, &w);
    printf("%-22s %12.1f %12.1f %12ld\n", k_rows[r].name, t / (double)total, w / (double)total, total);
  }
  /* keep the results observable so the chains are not optimized away */
  volatile uint64_t sink = s.a.l[0] ^ s.x.l[0] ^ s.a2.c0.l[0] ^ s.f.c0.c0.c0.l[0];
  (void)sink;
  return 0;
}
