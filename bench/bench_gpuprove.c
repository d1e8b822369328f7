/* bench_gpuprove.c: `czk bench gpuprove`: a full Groth16 prove (prove_start + prove_finish) on a compute backend
 * (--backend cpu|cuda), stage by stage, for circuits of 2^k constraints.
 *
 * Instance (default): the synthetic family's proportions (czk_synthetic_*: n_aux ~ n, 9 inputs, A-density 93%,
 * B-density 63% of aux, measured at 2^18) with a random witness and random a, b and c = a.b on the domain (a valid
 * assignment: the row check passes), and a random proving key (independent random G1/G2 points; the proof does not
 * verify against anything, so it is not checked). --real uses the synthetic circuit itself (shape + witness + a/b/c
 * mat-vec, timed separately), still with a random key (setup at 2^24 would take far longer than the prove).
 * Reported: host staging + row check and launch (start), device-event spans of H and each MSM (they overlap: H and
 * the witness MSMs run on two streams), finish (wait + combination), total = start + finish wall; median of --reps
 * after one warm-up proof. The key's tier (resident, partial or streamed from pinned host memory) and the lane shape
 * are the daemon's plan's choice within --gpu-memory-limit less --gpu-memory-reserve unless --tier / --lanes (or
 * --streamed) say (czk__bench_dev_*); each prove's bytes of bases uploaded and the device memory peak are printed,
 * and the first prove's device memory against the plan's lane + tables. Never asserts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/synthetic.h"
#include "bench/bench.h"
#include "bench/bench_util.h"
#include "core/clock.h"
#include "core/units.h"
#include "czk/backend.h"
#include "czk/groth16.h"

/* ---- parallel generators (chunked, each chunk seeded by its index) */
typedef struct gen_ctx {
  czk_fr *a, *b, *c, *w;
  czk_g1_affine *p1;
  czk_g2_affine *p2;
  uint64_t seed;
  size_t n;
} gen_ctx;
#define GCH 4096
static void gen_abc(void *v, size_t beg, size_t end) {
  gen_ctx *x = v;
  for (size_t ch = beg; ch < end; ch++) {
    uint64_t s = x->seed ^ (ch * 0x9e3779b97f4a7c15ULL);
    for (size_t i = ch * GCH; i < (ch + 1) * GCH && i < x->n; i++) {
      czk__bench_rand_fr(&x->a[i], 1, &s);
      czk__bench_rand_fr(&x->b[i], 1, &s);
      czk_fr_mul(&x->c[i], &x->a[i], &x->b[i]);
    }
  }
}
static void gen_w(void *v, size_t beg, size_t end) {
  gen_ctx *x = v;
  for (size_t i = beg; i < end; i++) {
    uint64_t s = x->seed ^ (i * 0xbf58476d1ce4e5b9ULL);
    czk__bench_rand_fr(&x->w[i], 1, &s);
  }
}
/* points of a chunk: P = kG, then P += Q (Q = k'G), normalized in one batch */
static void gen_g1(void *v, size_t beg, size_t end) {
  gen_ctx *x = v;
  for (size_t ch = beg; ch < end; ch++) {
    uint64_t s = x->seed ^ (ch * 0x94d049bb133111ebULL);
    czk__bench_points_g1(x->p1 + ch * GCH, GCH, &s);
  }
}
static void gen_g2(void *v, size_t beg, size_t end) {
  gen_ctx *x = v;
  for (size_t ch = beg; ch < end; ch++) {
    uint64_t s = x->seed ^ (ch * 0x94d049bb133111ebULL) ^ 0x5555;
    czk__bench_points_g2(x->p2 + ch * GCH, GCH, &s);
  }
}

static void usage(FILE *f) {
  fprintf(f, "usage: czk bench gpuprove [--backend cpu|cuda|cuda:N] [--logs 20,22,24] [--reps R] [--real]\n"
             "                          [--gpu-memory-limit S] [--gpu-memory-reserve S]\n"
             "                          [--tier auto|resident|partial|streamed] [--lanes auto|full|compact|lean]\n"
             "                          [--streamed]\n"
             "  Groth16 prove of a 2^k-constraint synthetic instance on a backend, stage by stage (see the file\n"
             "  comment: random witness and random key unless --real). --streamed streams the key from host memory.\n");
  czk__bench_dev_usage(f, true);
}

static int run_one(czk_backend *be, unsigned k, unsigned reps, bool real, const czk__bench_dev_opts *dopt) {
  const size_t n = (size_t)1 << k;
  czk_pool *pool = czk_pool_default();
  czk_r1cs fake, *sh = &fake;
  czk_r1cs *real_sh = NULL;
  czk_witness w0;
  czk_fr *a0 = NULL, *b0 = NULL, *c0 = NULL;
  double t_shape = 0, t_wit = 0, t_eval = 0;
  memset(&fake, 0, sizeof fake);
  if (real) {
    double t = czk__now_s();
    if (czk_synthetic_shape(&real_sh, k) != CZK_OK) return 1;
    t_shape = czk__now_s() - t, t = czk__now_s();
    if (czk_synthetic_witness(&w0, k, 1) != CZK_OK) return 1;
    t_wit = czk__now_s() - t, t = czk__now_s();
    czk_witness wc = w0;
    wc.w = malloc(((size_t)w0.n_inputs + w0.n_aux) * sizeof(czk_fr));
    memcpy(wc.w, w0.w, ((size_t)w0.n_inputs + w0.n_aux) * sizeof(czk_fr));
    czk_groth16_assignment as;
    if (czk_groth16_synthesize(&as, real_sh, &wc, pool) != CZK_OK) return 1;
    t_eval = czk__now_s() - t;
    a0 = as.a, b0 = as.b, c0 = as.c;
    czk_witness_free(&as.w);
    sh = real_sh;
  } else {
    /* sizes and densities of the synthetic family (2^18: 9 inputs, aux = n - 13, 92.7% A, 63% B of aux) */
    fake.n_inputs = 9;
    fake.n_aux = (uint32_t)(n - 13);
    fake.n_constraints = (uint32_t)n;
    fake.log_domain = k;
    size_t words = (fake.n_aux + 63) / 64;
    fake.a_aux_density = calloc(words, 8);
    fake.b_aux_density = calloc(words, 8);
    fake.b_input_density = calloc(1, 8);
    uint64_t s = 42;
    for (size_t j = 0; j < fake.n_aux; j++) {
      uint64_t r = czk__bench_splitmix(&s) % 1000;
      if (r < 927) fake.a_aux_density[j >> 6] |= 1ull << (j & 63), fake.a_aux_count++;
      if (r < 630) fake.b_aux_density[j >> 6] |= 1ull << (j & 63), fake.b_aux_count++;
    }
    fake.b_input_density[0] = 1;
    fake.b_input_count = 1;
    double t = czk__now_s();
    a0 = malloc(n * sizeof *a0), b0 = malloc(n * sizeof *b0), c0 = malloc(n * sizeof *c0);
    w0.n_inputs = fake.n_inputs, w0.n_aux = fake.n_aux;
    w0.w = malloc(((size_t)w0.n_inputs + w0.n_aux) * sizeof(czk_fr));
    gen_ctx g = {a0, b0, c0, w0.w, NULL, NULL, 7, n};
    czk_pool_parallel_for(pool, (n + GCH - 1) / GCH, 1, gen_abc, &g);
    czk_pool_parallel_for(pool, (size_t)w0.n_inputs + w0.n_aux, 4096, gen_w, &g);
    w0.w[0] = czk_fr_one_v;
    t_wit = czk__now_s() - t;
  }
  /* random key: one G1 array serves the four G1 queries (each query uploads its own prefix) */
  czk_groth16_pk_sizes ks = {n - 1, sh->n_aux, (size_t)sh->n_inputs + sh->a_aux_count,
                             (size_t)sh->b_input_count + sh->b_aux_count, (size_t)sh->b_input_count + sh->b_aux_count};
  size_t m1 = n;
  if (ks.n_l > m1) m1 = ks.n_l;
  if (ks.n_a > m1) m1 = ks.n_a;
  if (ks.n_b_g1 > m1) m1 = ks.n_b_g1;
  m1 = (m1 + GCH - 1) / GCH * GCH;
  size_t m2 = (ks.n_b_g2 + GCH - 1) / GCH * GCH;
  double t = czk__now_s();
  czk_g1_affine *p1 = malloc(m1 * sizeof *p1);
  czk_g2_affine *p2 = malloc(m2 * sizeof *p2);
  if (!p1 || !p2 || !a0 || !b0 || !c0) {
    fprintf(stderr, "czk bench gpuprove: out of memory at 2^%u\n", k);
    return 1;
  }
  gen_ctx g = {NULL, NULL, NULL, NULL, p1, p2, 99, 0};
  czk_pool_parallel_for(pool, m1 / GCH, 1, gen_g1, &g);
  czk_pool_parallel_for(pool, m2 / GCH, 1, gen_g2, &g);
  double t_key = czk__now_s() - t;
  czk_groth16_vk vk;
  memset(&vk, 0, sizeof vk);
  vk.alpha_g1 = p1[1], vk.beta_g1 = p1[2], vk.delta_g1 = p1[3], vk.beta_g2 = p2[1], vk.gamma_g2 = p2[2];
  vk.delta_g2 = p2[3];
  vk.n_ic = sh->n_inputs;
  vk.ic = p1 + 4; /* copied by the key */
  czk_groth16_pk_queries kq = {p1, p1, p1, p1, p2};
  czk_groth16_key *key = NULL;
  czk_groth16_dkey *dkey = NULL;
  if (czk_groth16_key_from_queries(&key, &vk, &kq, &ks, sh) != CZK_OK) {
    fprintf(stderr, "czk bench gpuprove: key refused at 2^%u\n", k);
    return 1;
  }
  double keygib = (double)((ks.n_h + ks.n_l + ks.n_a + ks.n_b_g1) * sizeof(czk_g1_affine) +
                           ks.n_b_g2 * sizeof(czk_g2_affine)) / (1u << 30);
  printf("2^%u: n_aux %u, queries h %zu l %zu a %zu b %zu (G1+G2), key %.2f GiB; host prep: shape %.2f s, witness "
         "%.2f s, a/b/c eval %.2f s, random key %.2f s\n",
         k, sh->n_aux, ks.n_h, ks.n_l, ks.n_a, ks.n_b_g1, keygib, t_shape, t_wit, t_eval, t_key);
  /* the key's tier and lanes as the daemon's plan picks them (or --tier / --lanes), its copy (as the engine's key
   * cache makes it; none when streamed from the host queries), the device memory watch */
  unsigned mask = CZK_GROTH16_Q_ALL;
  czk_groth16_lane_opts lo = {false, 0, false, NULL, NULL};
  czk_status ust = czk__bench_dev_setup(be, key, false, dopt, &mask, &lo, &dkey);
  if (ust != CZK_OK) {
    fprintf(stderr, "czk bench gpuprove: key on the device at 2^%u: %s\n", k, czk_status_str(ust));
    czk_groth16_key_free(key);
    return 1;
  }
  fflush(stdout);
  /* the device memory plan of this prove, against what its first prove really takes (the lane and H's tables) */
  czk_groth16_prove_plan plan;
  czk_backend_props pr0, pr1;
  const bool planned = czk_groth16_plan_prove_ex(&plan, be, key, mask, false, &lo) == CZK_OK &&
                       czk_backend_get_props(be, &pr0) == CZK_OK && pr0.mem_free && !pr0.host_memory;
  double *tot = calloc(reps + 1, sizeof *tot);
  czk_groth16_timings *tt = calloc(reps + 1, sizeof *tt);
  double *ts = calloc(reps + 1, sizeof *ts), *tf = calloc(reps + 1, sizeof *tf);
  int rc = 0;
  for (unsigned r = 0; r <= reps; r++) {
    czk_groth16_assignment as;
    memset(&as, 0, sizeof as);
    as.n_domain = n;
    as.n_rows = sh->n_constraints;
    as.w.n_inputs = w0.n_inputs, as.w.n_aux = w0.n_aux;
    size_t nw = (size_t)w0.n_inputs + w0.n_aux;
    as.w.w = malloc(nw * sizeof(czk_fr));
    as.a = malloc(n * sizeof(czk_fr)), as.b = malloc(n * sizeof(czk_fr)), as.c = malloc(n * sizeof(czk_fr));
    memcpy(as.w.w, w0.w, nw * sizeof(czk_fr));
    memcpy(as.a, a0, n * sizeof(czk_fr));
    memcpy(as.b, b0, n * sizeof(czk_fr));
    memcpy(as.c, c0, n * sizeof(czk_fr));
    czk_groth16_job *job = NULL;
    czk_groth16_proof proof;
    double t0 = czk__now_s();
    czk_status st = czk_groth16_prove_start_ex(&job, be, key, dkey, &as, pool, &lo);
    double t1 = czk__now_s();
    if (st == CZK_OK) st = czk_groth16_prove_finish(job, &proof, &tt[r]);
    double t2 = czk__now_s();
    if (st != CZK_OK) {
      fprintf(stderr, "czk bench gpuprove: 2^%u: %s\n", k, czk_status_str(st));
      rc = 1;
      break;
    }
    ts[r] = t1 - t0, tf[r] = t2 - t1, tot[r] = t2 - t0;
    char note[160];
    czk__bench_dev_note(note, sizeof note, be, &tt[r]);
    if (r == 0 && planned && czk_backend_get_props(be, &pr1) == CZK_OK) {
      const double gib = (double)(1u << 30), want = (double)(plan.lane + plan.tables) / gib;
      const double took = pr0.mem_free > pr1.mem_free ? (double)(pr0.mem_free - pr1.mem_free) / gib : 0;
      printf("  memory plan 2^%u: lane %.2f GiB + H tables %.2f GiB = %.2f GiB planned; the first prove took %.2f GiB "
             "of device memory (planned / taken %.3f)%s\n",
             k, (double)plan.lane / gib, (double)plan.tables / gib, want, took, took > 0 ? want / took : 0.0,
             took > want ? "  ** MORE THAN PLANNED **" : "");
    }
    printf("  %s 2^%u: total %8.1f ms | start %7.1f (stage+check %6.1f) | H %6.1f | msm h %6.1f l %6.1f a %6.1f "
           "b1 %6.1f b2(G2) %6.1f | finish %6.1f ms | %s\n",
           r == 0 ? "warm-up" : "rep    ", k, 1e3 * tot[r], 1e3 * ts[r], 1e3 * tt[r].check, 1e3 * tt[r].h,
           1e3 * tt[r].msm_h, 1e3 * tt[r].msm_l, 1e3 * tt[r].msm_a, 1e3 * tt[r].msm_b_g1, 1e3 * tt[r].msm_b_g2,
           1e3 * tf[r], note);
    fflush(stdout);
  }
  if (rc == 0 && reps > 0) {
    double *srt = malloc(reps * sizeof *srt);
    memcpy(srt, tot + 1, reps * sizeof *srt);
    qsort(srt, reps, sizeof *srt, czk__bench_cmp_double);
    printf("2^%u on %s: median total %.1f ms over %u reps (min %.1f, max %.1f)\n", k, czk_backend_name(be),
           1e3 * srt[reps / 2], reps, 1e3 * srt[0], 1e3 * srt[reps - 1]);
    free(srt);
  }
  czk_groth16_dkey_free(dkey);
  czk_groth16_key_free(key);
  free(tot), free(tt), free(ts), free(tf);
  free(p1), free(p2), free(a0), free(b0), free(c0);
  czk_witness_free(&w0);
  if (real_sh) czk_r1cs_free(real_sh);
  free(fake.a_aux_density), free(fake.b_aux_density), free(fake.b_input_density);
  return rc;
}

int czk_bench_gpuprove(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  const char *bname = NULL, *logs = "20,22,24";
  unsigned reps = 3;
  bool real = false;
  czk__bench_dev_opts dopt;
  czk__bench_dev_opts_init(&dopt);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    const int d = czk__bench_dev_opt(&dopt, argc, argv, &i, "gpuprove", true); /* limit, reserve, tier, lanes */
    if (d == 2) return 2;
    if (d) continue;
    if (strcmp(a, "--real") == 0) {
      real = true;
      continue;
    }
    if (!v) {
      fprintf(stderr, "czk bench gpuprove: %s needs a value\n", a);
      return 2;
    }
    if (strcmp(a, "--backend") == 0) bname = v;
    else if (strcmp(a, "--logs") == 0) logs = v;
    else if (strcmp(a, "--reps") == 0) reps = (unsigned)atoi(v);
    else {
      fprintf(stderr, "czk bench gpuprove: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
    i++;
  }
  czk_backend *be = NULL;
  czk_status st;
  if (bname) {
    st = czk_backend_open(&be, bname, NULL);
  } else {
    st = czk_backend_open(&be, "cuda:0", NULL);
    if (st != CZK_OK) st = czk_backend_open(&be, "cpu", NULL);
  }
  if (st != CZK_OK) {
    fprintf(stderr, "czk bench gpuprove: backend %s: %s\n", bname ? bname : "(auto)", czk_status_str(st));
    return 1;
  }
  czk_backend_props pr;
  if (czk_backend_get_props(be, &pr) == CZK_OK)
    printf("gpuprove on %s: %s, %.1f GiB, %u units\n", pr.name, pr.description, (double)pr.mem_total / (1u << 30),
           pr.units);
  int rc = 0;
  for (const char *p = logs; *p && rc == 0;) {
    unsigned k = (unsigned)strtoul(p, (char **)&p, 10);
    if (k < CZK_SYNTHETIC_MIN_LOG || k > 28) {
      fprintf(stderr, "czk bench gpuprove: bad log %u\n", k);
      rc = 2;
      break;
    }
    rc = run_one(be, k, reps, real, &dopt);
    while (*p == ',') p++;
  }
  czk_backend_free(be);
  return rc;
}
