/* bench_util.c: the shared benchmark helpers (see bench_util.h for the contracts). Random points: two scalar
 * multiplications (vartime), then n - 1 Jacobian additions P[i] = P[i-1] + Q and one batch normalization (one
 * inversion + ~3n multiplications). */
#include "bench/bench_util.h"
#include "czk/backend.h"
#include "czk/engine.h"
#include "czk/groth16.h"
#include "czk/pool.h"
#include "bench/bench.h"
#include "core/clock.h"
#include "core/units.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double czk__bench_now_ns(clockid_t clk) {
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double czk__bench_now_ms(clockid_t clk) {
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

uint64_t czk__bench_splitmix(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void czk__bench_rand_fr(czk_fr *v, size_t n, uint64_t *seed) {
  for (size_t i = 0; i < n; i++) {
    uint64_t w[8];
    for (int j = 0; j < 8; j++) w[j] = czk__bench_splitmix(seed);
    czk_fr_from_bytes_wide_le(&v[i], (const uint8_t *)w, sizeof w);
  }
}

/* Written once for G1 and G2. */
#define BENCH_POINTS(G)                                                                                               \
  czk_status czk__bench_points_##G(czk_##G##_affine *P, size_t n, uint64_t *seed) {                                  \
    czk_##G g, q, acc;                                                                                                \
    czk_fr k;                                                                                                         \
    czk_##G##_generator(&g);                                                                                          \
    czk__bench_rand_fr(&k, 1, seed);                                                                                  \
    czk_##G##_mul_vartime(&acc, &g, &k);                                                                              \
    czk__bench_rand_fr(&k, 1, seed);                                                                                  \
    czk_##G##_mul_vartime(&q, &g, &k);                                                                                \
    czk_##G *J = malloc((n ? n : 1) * sizeof *J);                                                                     \
    if (!J) return CZK_ERR_NOMEM;                                                                                     \
    for (size_t i = 0; i < n; i++) {                                                                                  \
      J[i] = acc;                                                                                                     \
      czk_##G##_add(&acc, &acc, &q);                                                                                  \
    }                                                                                                                 \
    czk_status st = czk_##G##_batch_to_affine(P, J, n);                                                               \
    free(J);                                                                                                          \
    return st;                                                                                                        \
  }
BENCH_POINTS(g1)
BENCH_POINTS(g2)

int czk__bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void czk__bench_calibrated(czk__bench_loop_fn fn, void *ctx, double ms, long *iters, double *cpu_ns, double *wall_ns) {
  long n = 1;
  double t;
  for (;;) { /* calibrate: double n until one run takes >= 10 ms of CPU time */
    double t0 = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID);
    fn(ctx, n);
    t = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    if (t >= 1e7 || n >= (1L << 40)) break;
    n *= 2;
  }
  long total = (long)((double)n * (ms * 1e6) / t);
  if (total < 1) total = 1;
  double w0 = czk__bench_now_ns(CLOCK_MONOTONIC), t0 = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID);
  fn(ctx, total);
  *cpu_ns = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
  *wall_ns = czk__bench_now_ns(CLOCK_MONOTONIC) - w0;
  *iters = total;
}

int czk__bench_parse_ms_only(int argc, char **argv, const char *name, double *ms, const char **only) {
  *ms = 200;
  *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc) {
      *ms = atof(argv[++i]);
      if (*ms <= 0) {
        fprintf(stderr, "czk bench %s: --ms must be positive\n", name);
        return 2;
      }
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      *only = argv[++i];
    } else {
      fprintf(stderr, "czk bench %s: unknown argument '%s' (--help)\n", name, argv[i]);
      return 2;
    }
  }
  return 0;
}

/* Rewrites one option of `czk bench msm|ntt|prove` for the GPU benchmark: returns the GPU option's name, "" to drop
 * the option, or NULL when it has no GPU counterpart. */
static const char *gpu_option(const char *name, const char *opt) {
  static const struct {
    const char *bench, *opt, *gpu;
  } map[] = {
      {"msm", "--lo", "--msm-min"}, {"msm", "--hi", "--msm-max"}, {"msm", "--reps", "--reps"},
      {"ntt", "--lo", "--ntt-min"}, {"ntt", "--hi", "--ntt-max"}, {"ntt", "--reps", "--reps"},
      {"ntt", "--compact", "--ntt-compact"},
      {"prove", "--reps", "--reps"}, {"prove", "--min", ""},     {"prove", "--max", ""},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(map[i].bench, name) == 0 && strcmp(map[i].opt, opt) == 0) return map[i].gpu;
  return NULL;
}

int czk__bench_backend_dispatch(int *argc, char **argv, const char *name) {
  int at = -1;
  for (int i = 1; i < *argc; i++)
    if (strcmp(argv[i], "--backend") == 0) at = i;
  if (at < 0) return -1;
  if (at + 1 >= *argc) {
    fprintf(stderr, "czk bench %s: --backend needs cpu, cuda or cuda:N\n", name);
    return 2;
  }
  const char *b = argv[at + 1];
  if (strcmp(b, "cpu") == 0) { /* drop the pair and let the CPU benchmark run */
    for (int i = at; i + 2 <= *argc; i++) argv[i] = argv[i + 2];
    *argc -= 2;
    return -1;
  }
  unsigned dev = 0;
  if (strncmp(b, "cuda", 4) != 0 || (b[4] && (b[4] != ':' || sscanf(b + 5, "%u", &dev) != 1))) {
    fprintf(stderr, "czk bench %s: --backend must be cpu, cuda or cuda:N (got '%s')\n", name, b);
    return 2;
  }
  /* the GPU benchmark's argv: at most 2 per option + a few fixed ones */
  char **gv = calloc((size_t)*argc + 8, sizeof *gv);
  if (!gv) return 1;
  int gc = 0;
  gv[gc++] = argv[0];
  const char *group = "g1";
  unsigned kmin = 20, kmax = 24;
  bool kset = false;
  char logs[256] = "", devbuf[32];
  for (int i = 1; i < *argc; i += 2) {
    if (i == at) continue;
    const char *o = argv[i], *v = i + 1 < *argc ? argv[i + 1] : NULL;
    if (!v) {
      fprintf(stderr, "czk bench %s: %s needs a value\n", name, o);
      free(gv);
      return 2;
    }
    if (strcmp(name, "msm") == 0 && strcmp(o, "--group") == 0) {
      group = v;
      continue;
    }
    const char *g = gpu_option(name, o);
    if (!g) {
      fprintf(stderr, "czk bench %s: %s has no meaning with --backend %s (see czk bench %s --help)\n", name, o, b,
              strcmp(name, "prove") == 0 ? "gpuprove" : "gpu");
      free(gv);
      return 2;
    }
    if (strcmp(name, "prove") == 0 && (strcmp(o, "--min") == 0 || strcmp(o, "--max") == 0)) {
      *(strcmp(o, "--min") == 0 ? &kmin : &kmax) = (unsigned)strtoul(v, NULL, 10);
      kset = true;
      continue;
    }
    gv[gc++] = (char *)g;
    gv[gc++] = argv[i + 1];
  }
  int rc;
  if (strcmp(name, "prove") == 0) {
    if (kset) {
      if (kmin < 1 || kmin > kmax || kmax > 28) {
        fprintf(stderr, "czk bench prove: need 1 <= min <= max <= 28 with --backend %s\n", b);
        free(gv);
        return 2;
      }
      size_t len = 0;
      for (unsigned k = kmin; k <= kmax; k++)
        len += (size_t)snprintf(logs + len, sizeof logs - len, "%s%u", k > kmin ? "," : "", k);
      gv[gc++] = "--logs";
      gv[gc++] = logs;
    }
    snprintf(devbuf, sizeof devbuf, "cuda:%u", dev);
    gv[gc++] = "--backend";
    gv[gc++] = devbuf;
    rc = czk_bench_gpuprove(gc, gv);
  } else {
    /* czk bench gpu times device 0 of those visible: select device N through CUDA_VISIBLE_DEVICES */
    if (dev != 0) {
      if (getenv("CUDA_VISIBLE_DEVICES")) {
        fprintf(stderr, "czk bench %s: --backend cuda:%u with CUDA_VISIBLE_DEVICES set: select the device there\n",
                name, dev);
        free(gv);
        return 2;
      }
      snprintf(devbuf, sizeof devbuf, "%u", dev);
      setenv("CUDA_VISIBLE_DEVICES", devbuf, 1);
    }
    gv[gc++] = "--only";
    int base = gc;
    if (strcmp(name, "ntt") == 0) {
      gv[gc++] = "ntt";
      rc = czk_bench_gpu(gc, gv);
    } else if (strcmp(group, "g1") == 0 || strcmp(group, "both") == 0 || strcmp(group, "g2") == 0) {
      rc = 0;
      if (strcmp(group, "g2") != 0) {
        gv[base] = "msm";
        rc |= czk_bench_gpu(base + 1, gv);
      }
      if (strcmp(group, "g1") != 0) {
        /* G2 sizes: --hi caps G2 too */
        for (int i = 1; i + 1 < base; i++)
          if (strcmp(gv[i], "--msm-max") == 0) gv[i] = "--g2-max";
        gv[base] = "g2";
        rc |= czk_bench_gpu(base + 1, gv);
      }
    } else {
      fprintf(stderr, "czk bench msm: --group must be g1, g2 or both\n");
      rc = 2;
    }
  }
  free(gv);
  return rc;
}

uint64_t czk__bench_proc_bytes(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  size_t fl = strlen(field);
  uint64_t v = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
      v = strtoull(line + fl + 1, NULL, 10) * 1024;
      break;
    }
  }
  fclose(f);
  return v;
}

int czk__bench_reset_peak(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f) return -1;
  int rc = fputs("5", f) < 0 ? -1 : 0;
  if (fclose(f) != 0) rc = -1;
  return rc;
}

#define GCH 4096

typedef struct pgen {
  czk_g1_affine *p1;
  czk_g2_affine *p2;
} pgen;

static void gen_g1(void *v, size_t beg, size_t end) {
  pgen *x = v;
  for (size_t ch = beg; ch < end; ch++) {
    uint64_t s = 77 ^ (ch * 0x94d049bb133111ebULL);
    czk__bench_points_g1(x->p1 + ch * GCH, GCH, &s);
  }
}
static void gen_g2(void *v, size_t beg, size_t end) {
  pgen *x = v;
  for (size_t ch = beg; ch < end; ch++) {
    uint64_t s = 78 ^ (ch * 0x94d049bb133111ebULL);
    czk__bench_points_g2(x->p2 + ch * GCH, GCH, &s);
  }
}

#define TILE ((size_t)1 << 22) /* a multiple of GCH */

typedef struct ptile {
  czk_g1_affine *p1;
  czk_g2_affine *p2;
  size_t m1, m2, t1, t2;
} ptile;
/* chunk ch of the points past the tiles: G1 ones first, then G2; each copies its tile's chunk */
static void tile_fill(void *v, size_t beg, size_t end) {
  const ptile *x = v;
  const size_t n1 = x->m1 > x->t1 ? (x->m1 - x->t1) / GCH : 0;
  for (size_t ch = beg; ch < end; ch++) {
    if (ch < n1) {
      const size_t at = x->t1 + ch * GCH;
      memcpy(x->p1 + at, x->p1 + at % x->t1, GCH * sizeof *x->p1);
    } else {
      const size_t at = x->t2 + (ch - n1) * GCH;
      memcpy(x->p2 + at, x->p2 + at % x->t2, GCH * sizeof *x->p2);
    }
  }
}

czk_status czk__bench_random_key(czk_groth16_key **key, const czk_r1cs *outline, uint64_t dom, czk_pool *pool,
                                 czk_g1_affine **g1, czk_g2_affine **g2) {
  czk_groth16_pk_sizes ks = {dom - 1, outline->n_aux, (size_t)outline->n_inputs + outline->a_aux_count,
                             (size_t)outline->b_input_count + outline->b_aux_count,
                             (size_t)outline->b_input_count + outline->b_aux_count};
  size_t m1 = ks.n_h > ks.n_l ? ks.n_h : ks.n_l;
  if (ks.n_a > m1) m1 = ks.n_a;
  m1 = (m1 + 4 + outline->n_inputs + GCH - 1) / GCH * GCH;
  size_t m2 = (ks.n_b_g2 + 4 + GCH - 1) / GCH * GCH;
  czk_g1_affine *p1 = malloc(m1 * sizeof *p1);
  czk_g2_affine *p2 = malloc(m2 * sizeof *p2);
  *g1 = p1, *g2 = p2;
  if (!p1 || !p2) return CZK_ERR_NOMEM;
  pgen g = {p1, p2};
  /* the first TILE points are random, the rest repeat them (a 32 GiB key's 19 GB in a few seconds instead of ~21 s of
   * device-machine time per run; an MSM's work does not depend on its bases being distinct) */
  const size_t t1 = m1 < TILE ? m1 : TILE, t2 = m2 < TILE ? m2 : TILE;
  czk_pool_parallel_for(pool, t1 / GCH, 1, gen_g1, &g);
  czk_pool_parallel_for(pool, t2 / GCH, 1, gen_g2, &g);
  ptile tl = {p1, p2, m1, m2, t1, t2};
  czk_pool_parallel_for(pool, (m1 > t1 ? (m1 - t1) / GCH : 0) + (m2 > t2 ? (m2 - t2) / GCH : 0), 16, tile_fill, &tl);
  czk_groth16_vk vk;
  memset(&vk, 0, sizeof vk);
  vk.alpha_g1 = p1[1], vk.beta_g1 = p1[2], vk.delta_g1 = p1[3], vk.beta_g2 = p2[1], vk.gamma_g2 = p2[2];
  vk.delta_g2 = p2[3];
  vk.n_ic = outline->n_inputs;
  vk.ic = p1 + 4;
  czk_groth16_pk_queries kq = {p1, p1, p1, p1, p2};
  return czk_groth16_key_from_queries(key, &vk, &kq, &ks, outline);
}


czk_status czk__bench_tier(czk_backend *be, const czk_groth16_key *key, bool witness_only, uint64_t limit,
                           uint64_t reserve, unsigned lanes, const char *force, const char *lanes_force,
                           unsigned *mask, czk_groth16_lane_opts *o) {
  *mask = CZK_GROTH16_Q_ALL;
  memset(o, 0, sizeof *o);
  if (czk_backend_host_memory(be)) return CZK_OK;
  czk_backend_props pr;
  CZK_TRY(czk_backend_get_props(be, &pr));
  uint64_t total = pr.mem_total;
  if (limit && limit < total) total = limit;
  czk_engine_plan_in in;
  memset(&in, 0, sizeof in);
  if (reserve == UINT64_MAX) reserve = (2ull << 30) < total / 16 ? (2ull << 30) : total / 16; /* the daemon's default */
  in.limit = total > reserve ? total - reserve : 1;
  if (in.limit < CZK__COMPACT_TABLES_BELOW) czk_backend_set_compact_tables(be, true); /* as the daemon does */
  in.lanes = lanes ? lanes : 1;
  in.nparts = 5;
  in.base = czk_groth16_key_copy_bytes(key, 0);
  for (int q = 0; q < 5; q++) in.part_bytes[q] = czk_groth16_key_copy_bytes(key, 1u << q) - in.base;
  for (int sh = 0; sh < CZK_LANE_SHAPES; sh++) {
    const czk_groth16_lane_opts lo = czk_groth16_lane_opts_of(sh != CZK_LANE_FULL, sh == CZK_LANE_LEAN);
    czk_groth16_prove_plan pl;
    in.lane_res[sh] = in.lane_stream[sh] = UINT64_MAX;
    if (czk_groth16_plan_prove_ex(&pl, be, key, CZK_GROTH16_Q_ALL, witness_only, &lo) == CZK_OK) {
      in.lane_res[sh] = pl.lane;
      if (pl.tables > in.tables) in.tables = pl.tables;
    }
    if (czk_groth16_plan_prove_ex(&pl, be, key, 0, witness_only, &lo) == CZK_OK) in.lane_stream[sh] = pl.lane;
  }
  in.tables += czk_backend_tables_bytes(be);
  czk_engine_plan_out out;
  czk_engine_plan_tier(&in, &out);
  *mask = out.parts;
  int shape = out.shape;
  if (force && strcmp(force, "auto") != 0) {
    if (!strcmp(force, "resident")) *mask = CZK_GROTH16_Q_ALL;
    else if (!strcmp(force, "streamed")) *mask = 0;
    else if (!strcmp(force, "partial")) *mask = out.parts && out.parts != CZK_GROTH16_Q_ALL ? out.parts : 0x1; /* h */
    else return CZK_ERR_INVALID_ARG;
  }
  if (lanes_force && strcmp(lanes_force, "auto") != 0) {
    if (!strcmp(lanes_force, "full")) shape = CZK_LANE_FULL;
    else if (!strcmp(lanes_force, "compact")) shape = CZK_LANE_COMPACT;
    else if (!strcmp(lanes_force, "lean")) shape = CZK_LANE_LEAN;
    else return CZK_ERR_INVALID_ARG;
  }
  if (*mask && *mask != CZK_GROTH16_Q_ALL && shape == CZK_LANE_FULL) shape = CZK_LANE_COMPACT;
  *o = czk_groth16_lane_opts_of(shape != CZK_LANE_FULL, shape == CZK_LANE_LEAN);
  const double G = 1024.0 * 1024 * 1024;
  printf("  plan: %.2f GiB for czk (%s%.2f GiB less %.2f GiB reserve): %s copy %.2f GiB (queries 0x%x), %s lanes; "
         "lanes full / compact / lean: %.2f / %.2f / %.2f GiB resident, %.2f / %.2f / %.2f GiB streaming; tables "
         "%.2f GiB; the plan's own choice: %s, %s, %u lane(s)\n",
         (double)in.limit / G, limit && limit < pr.mem_total ? "gpu_memory_limit " : "", (double)total / G,
         (double)reserve / G, *mask == CZK_GROTH16_Q_ALL ? "resident" : *mask ? "partial" : "streamed",
         (double)czk_groth16_key_copy_bytes(key, *mask) / G * (*mask != 0), *mask, czk_engine_lane_shape_str(shape),
         (double)in.lane_res[0] / G, (double)in.lane_res[1] / G, (double)in.lane_res[2] / G,
         (double)in.lane_stream[0] / G, (double)in.lane_stream[1] / G, (double)in.lane_stream[2] / G,
         (double)in.tables / G, out.parts == CZK_GROTH16_Q_ALL ? "resident" : out.parts ? "partial" : "streamed",
         czk_engine_lane_shape_str(out.shape), out.lanes);
  return CZK_OK;
}

czk_status czk__bench_copy(czk_backend *be, czk_groth16_key *key, unsigned mask, czk_groth16_dkey **dkey) {
  *dkey = NULL;
  if (mask != CZK_GROTH16_Q_ALL && !czk_backend_host_memory(be)) {
    czk_status st = czk_groth16_key_pin(key, be);
    if (st != CZK_OK) printf("  (the host key could not be pinned: %s; streaming from pageable memory)\n",
                             czk_status_str(st));
  }
  if (!mask) return CZK_OK;
  return czk_groth16_key_upload_partial(dkey, key, be, mask);
}

void czk__bench_dev_opts_init(czk__bench_dev_opts *o) {
  o->limit = 0, o->reserve = UINT64_MAX, o->tier = NULL, o->lanes = NULL, o->chunk_log = 0;
}

static bool one_of(const char *v, const char *const *names) {
  for (; *names; names++)
    if (strcmp(v, *names) == 0) return true;
  return false;
}

int czk__bench_dev_opt(czk__bench_dev_opts *o, int argc, char **argv, int *i, const char *name, bool streamed) {
  static const char *const tiers[] = {"auto", "resident", "partial", "streamed", NULL};
  static const char *const shapes[] = {"auto", "full", "compact", "lean", NULL};
  const char *a = argv[*i];
  if (streamed && strcmp(a, "--streamed") == 0) {
    o->tier = "streamed";
    return 1;
  }
  const bool lim = strcmp(a, "--gpu-memory-limit") == 0, res = strcmp(a, "--gpu-memory-reserve") == 0;
  const bool tier = strcmp(a, "--tier") == 0, lanes = strcmp(a, "--lanes") == 0, ch = strcmp(a, "--chunk-log") == 0;
  if (!lim && !res && !tier && !lanes && !ch) return 0;
  if (*i + 1 >= argc) return fprintf(stderr, "czk bench %s: %s needs a value\n", name, a), 2;
  const char *v = argv[++*i];
  if ((lim || res) && !czk__parse_size(v, lim ? &o->limit : &o->reserve))
    return fprintf(stderr, "czk bench %s: %s: '%s' is not a size (e.g. 16GiB)\n", name, a, v), 2;
  if (tier && !one_of(v, tiers))
    return fprintf(stderr, "czk bench %s: --tier must be auto, resident, partial or streamed (got '%s')\n", name, v), 2;
  if (lanes && !one_of(v, shapes))
    return fprintf(stderr, "czk bench %s: --lanes must be auto, full, compact or lean (got '%s')\n", name, v), 2;
  if (ch) {
    char *end = NULL;
    const unsigned long c = strtoul(v, &end, 10);
    if (!*v || *end || c < 10 || c > 28)
      return fprintf(stderr, "czk bench %s: --chunk-log must be a number from 10 to 28 (got '%s')\n", name, v), 2;
    o->chunk_log = (unsigned)c;
  }
  if (tier) o->tier = v;
  if (lanes) o->lanes = v;
  return 1;
}

void czk__bench_dev_usage(FILE *f, bool streamed) {
  fprintf(f, "  --gpu-memory-limit S: use at most this much of the device (a smaller card emulated, e.g. 16GiB), less\n"
             "  --gpu-memory-reserve S (default as the daemon's: 2GiB, at most 1/16 of the card or limit).\n"
             "  --tier auto|resident|partial|streamed, --lanes auto|full|compact|lean: the key's device copy and the\n"
             "  lane shape (auto, the default: the daemon's plan's choice within that memory); --chunk-log N:\n"
             "  compact and lean lanes' MSM chunks of 2^N points (default: the daemon's). The plan's\n"
             "  choice, each prove's bases uploaded and device memory peak (measured on the device) are printed;\n"
             "  on the CPU these options change nothing.\n");
  if (streamed) fprintf(f, "  --streamed is --tier streamed.\n");
}

czk_status czk__bench_dev_setup(czk_backend *be, czk_groth16_key *key, bool witness_only,
                                const czk__bench_dev_opts *o, unsigned *mask, czk_groth16_lane_opts *lo,
                                czk_groth16_dkey **dkey) {
  *dkey = NULL;
  double t = czk__now_s();
  CZK_TRY(czk__bench_tier(be, key, witness_only, o->limit, o->reserve, 2, o->tier, o->lanes, mask, lo));
  const bool host = czk_backend_host_memory(be);
  if (host && o->tier && strcmp(o->tier, "streamed") == 0) *mask = 0; /* the host key in place, nothing copied */
  if (o->chunk_log && lo->compact) lo->chunk_log = o->chunk_log;
  if (!host) {
    (void)czk_backend_mem_watch(be);
    czk_backend_mem_peak_reset(be);
  }
  CZK_TRY(czk__bench_copy(be, key, *mask, dkey));
  char chunks[48] = "";
  if (lo->compact) snprintf(chunks, sizeof chunks, " (MSM chunks of 2^%u points)", lo->chunk_log);
  printf("  key on %s: %s, %.2f GiB copied (%.2f s), %s lanes%s\n", czk_backend_name(be),
         *mask == CZK_GROTH16_Q_ALL ? "resident" : *mask ? "partial" : "streamed",
         (double)czk_groth16_dkey_bytes(*dkey) / (1u << 30), czk__now_s() - t,
         lo->lean ? "lean" : lo->compact ? "compact" : "full", chunks);
  return CZK_OK;
}

const char *czk__bench_dev_note(char *buf, size_t n, czk_backend *be, const czk_groth16_timings *t) {
  snprintf(buf, n, "uploaded %.2f GiB of bases; device memory in use, peak %.2f GiB",
           (double)t->upload_bytes / (1u << 30), (double)czk_backend_mem_peak(be) / (1u << 30));
  return buf;
}

/* ------------------------------------------------------------------------------------------------ --ab */
int czk__bench_ab_parse(czk__bench_ab *ab, const char *v, const char *bench) {
  memset(ab, 0, sizeof *ab);
  const char *eq = strchr(v, '=');
  const size_t nl = eq ? (size_t)(eq - v) : 0;
  if (!eq || nl == 0 || nl >= sizeof ab->name || strlen(eq + 1) >= sizeof ab->val) goto bad;
  memcpy(ab->name, v, nl);
  ab->name[nl] = 0;
  strcpy(ab->val, eq + 1);
  if (strcmp(ab->name, "chunk-log") == 0) {
    char *end = NULL;
    const unsigned long c = strtoul(ab->val, &end, 10);
    if (!ab->val[0] || *end || c < 10 || c > 28) goto bad;
    ab->chunk_log = (unsigned)c;
  } else {
    for (size_t i = 0; i < nl; i++)
      if (!((v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '_')) goto bad;
  }
  ab->on = true;
  return 0;
bad:
  memset(ab, 0, sizeof *ab);
  fprintf(stderr, "czk bench %s: --ab takes chunk-log=N (10..28) or NAME=VALUE (NAME of A-Z, 0-9, _), got '%s'\n",
          bench, v);
  return 2;
}

czk_status czk__bench_ab_begin(czk__bench_ab *ab, unsigned reps, const czk_groth16_lane_opts *lo, const char *bench) {
  if (!ab->on) return CZK_OK;
  if (ab->chunk_log && !lo->compact) {
    fprintf(stderr, "czk bench %s: --ab chunk-log=N needs compact or lean lanes (--lanes compact|lean, or a tier that "
                    "proves in them)\n", bench);
    return CZK_ERR_INVALID_ARG;
  }
  ab->reps = reps, ab->chunk_a = lo->chunk_log, ab->side = 0;
  const char *cur = ab->chunk_log ? NULL : getenv(ab->name);
  if (cur && !(ab->orig = strdup(cur))) return CZK_ERR_NOMEM;
  for (int b = 0; b < 2; b++) {
    ab->t[b] = calloc(reps ? reps : 1, sizeof *ab->t[b]);
    ab->wall[b] = calloc(reps ? reps : 1, sizeof *ab->wall[b]);
    if (!ab->t[b] || !ab->wall[b]) return CZK_ERR_NOMEM;
  }
  return CZK_OK;
}

unsigned czk__bench_ab_proves(const czk__bench_ab *ab, unsigned reps) { return ab->on ? 2 * reps : reps; }

/* A B B A A B B A ...: rep r (1-based) is on side (r / 2) & 1; each side's first prove after a switch makes lanes */
static int ab_side_of(const czk__bench_ab *ab, unsigned r) { return ab->on && r ? (int)((r / 2) & 1) : 0; }

static void ab_apply(czk__bench_ab *ab, int b, czk_groth16_lane_opts *lo) {
  if (ab->chunk_log) lo->chunk_log = b ? ab->chunk_log : ab->chunk_a;
  else if (b) setenv(ab->name, ab->val, 1);
  else if (ab->orig) setenv(ab->name, ab->orig, 1);
  else unsetenv(ab->name);
  ab->side = b;
}

void czk__bench_ab_before(czk__bench_ab *ab, unsigned r, const czk_groth16_key *key, const czk_groth16_dkey *dkey,
                          czk_backend *be, czk_groth16_lane_opts *lo) {
  const int want = ab_side_of(ab, r);
  if (!ab->on || want == ab->side) return;
  czk_groth16_lanes_trim(key, dkey, be); /* lanes made again under the other side's settings, */
  ab_apply(ab, want, lo);
  (void)czk_groth16_lane_warm_ex(key, dkey, be, false, lo); /* here, outside the timed prove (else: by the prove) */
}

unsigned czk__bench_ab_slot(const czk__bench_ab *ab, unsigned r) {
  if (!ab->on || r == 0) return r;
  const int b = ab_side_of(ab, r);
  return 1 + (b ? ab->reps : 0) + ab->n[b];
}

const char *czk__bench_ab_label(const czk__bench_ab *ab, unsigned r) {
  if (r == 0) return "warm-up";
  if (!ab->on) return "rep    ";
  return ab_side_of(ab, r) ? "rep  B " : "rep  A ";
}

void czk__bench_ab_record(czk__bench_ab *ab, unsigned r, double wall, const czk_groth16_timings *t) {
  if (!ab->on || r == 0) return;
  const int b = ab_side_of(ab, r);
  if (ab->n[b] >= ab->reps) return;
  ab->t[b][ab->n[b]] = *t, ab->wall[b][ab->n[b]] = wall;
  ab->n[b]++;
}

static double ab_median(double *v, unsigned n) {
  if (!n) return 0;
  qsort(v, n, sizeof *v, czk__bench_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void czk__bench_ab_table(const czk__bench_ab *ab) {
  if (!ab->on) return;
  const unsigned n = ab->n[0] < ab->n[1] ? ab->n[0] : ab->n[1];
  double *v = calloc(n ? n : 1, sizeof *v);
  if (!v) return;
  printf("\n| A/B (one process, same key and card; %u proves each, A B B A ...) | A: as given | B: %s=%s | B/A |\n"
         "|---|---:|---:|---:|\n", n, ab->name, ab->val);
  static const struct {
    const char *name;
    size_t off; /* SIZE_MAX: wall */
  } rows[] = {{"prove (wall)", SIZE_MAX},
              {"device busy", offsetof(czk_groth16_timings, device)},
              {"H", offsetof(czk_groth16_timings, h)},
              {"MSM h", offsetof(czk_groth16_timings, msm_h)},
              {"MSM l", offsetof(czk_groth16_timings, msm_l)},
              {"MSM a", offsetof(czk_groth16_timings, msm_a)},
              {"MSM b_g1", offsetof(czk_groth16_timings, msm_b_g1)},
              {"MSM b_g2", offsetof(czk_groth16_timings, msm_b_g2)},
              {"upload wait", offsetof(czk_groth16_timings, upload_wait)}};
  for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
    double m[2];
    for (int b = 0; b < 2; b++) {
      for (unsigned i = 0; i < n; i++)
        v[i] = rows[k].off == SIZE_MAX ? ab->wall[b][i] : *(const double *)((const char *)&ab->t[b][i] + rows[k].off);
      m[b] = ab_median(v, n);
    }
    printf("| %s, median ms | %.1f | %.1f | %.3f |\n", rows[k].name, 1e3 * m[0], 1e3 * m[1], m[0] > 0 ? m[1] / m[0] : 0);
  }
  /* paired: the i-th B prove against the i-th A prove (neighbours in the A B B A order); device time where the
   * backend has one, else wall time */
  bool dev = true;
  for (unsigned i = 0; i < n; i++) dev = dev && ab->t[0][i].device > 0 && ab->t[1][i].device > 0;
  for (unsigned i = 0; i < n; i++) {
    const double a = dev ? ab->t[0][i].device : ab->wall[0][i], b = dev ? ab->t[1][i].device : ab->wall[1][i];
    v[i] = a > 0 ? b / a : 0;
  }
  const double med = ab_median(v, n);
  printf("| paired ratio B/A of %s time: median of %u (min %.3f, max %.3f) | | | %.3f |\n", dev ? "device" : "wall", n,
         n ? v[0] : 0, n ? v[n - 1] : 0, med);
  free(v);
}

void czk__bench_ab_end(czk__bench_ab *ab, czk_groth16_lane_opts *lo) {
  if (!ab->on) return;
  if (ab->side) ab_apply(ab, 0, lo);
  else if (!ab->chunk_log && ab->orig) setenv(ab->name, ab->orig, 1);
  free(ab->orig);
  for (int b = 0; b < 2; b++) free(ab->t[b]), free(ab->wall[b]);
  ab->orig = NULL, ab->t[0] = ab->t[1] = NULL, ab->wall[0] = ab->wall[1] = NULL;
}
