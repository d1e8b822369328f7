/* bench_porep.c: `czk bench porep`: one PoRep C2 partition's host side, stage by stage, through the daemon's own kind
 * (czk_kind_porep_new), from a C1 output in Curio's envelope: a file (--c1, an envelope or a bare C1 output, e.g. one
 * `czk gen-vanilla porep` wrote) or a sparse one generated at the requested size (the real format and size).
 *   read       the envelope into circuit values (czk_porep_c1_read: base64 decoded piece by piece into the streaming
 *              C1 parser; `czk bench c1` measures this stage alone)
 *   check      every native check (czk_porep_c1_check)
 *   job parse  the kind's whole parse (decode + parse + check + public inputs of every partition), as the daemon does
 *   synthesis  one partition's assignment (witness + a, b, c) by the kind (the first call also counts the circuit once
 *              per process: reported apart)
 *   prove      (--backend) the one prover with the key resident on the device: the real key of --params DIR (each
 *              proof verified against the recomputed inputs) or, with --random-key, random points of the full key's
 *              sizes (device work only); the witness's zero / one / other fractions are printed (the MSMs over it skip
 *              zeros and add the ones' bases without bucket work)
 * Memory: peak RSS of one synthesis over the RSS before it (VmHWM reset through /proc/self/clear_refs), against what
 * the kind reserves for it (shape: abc + witness; scratch is the prover's). Median of --reps after the first. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_util.h"
#include "core/clock.h"
#include "core/units.h"
#include "czk/backend.h"
#include "czk/groth16.h"
#include "czk/kinds.h"
#include "czk/porep.h"
#include "czk/pool.h"

static void usage(FILE *f) {
  fprintf(f, "usage: czk bench porep --sector-size S [--c1 FILE --miner M --sector N] [--partition K] [--reps R]\n"
             "                       [--witness-only]\n"
             "                       [--backend cpu|cuda|cuda:N (--params DIR | --setup | --random-key)]\n"
             "                       [--gpu-memory-limit S] [--gpu-memory-reserve S] [--tier auto|resident|partial|streamed]\n"
             "                       [--lanes auto|full|compact|lean] [--chunk-log N] [--prove-only] [--ab SPEC]\n"
             "  One PoRep C2 partition's host work through the daemon's kind: C1 read (envelope), native\n"
             "  checks, public inputs, synthesis (witness + a/b/c); peak RSS of the synthesis against the kind's\n"
             "  reservation. Without --c1 a sparse C1 output of the size is generated (interactive V1_1).\n"
             "  --witness-only: skip the kind's synthesis and the evaluator (time czk_porep_witness alone, e.g.\n"
             "  under perf).\n"
             "  --setup: a real key of our own made in memory on the backend (GPU fixed-base multiplications;\n"
             "  the circuit walked once), every proof verified; --random-key: random points (device work only).\n");
  czk__bench_dev_usage(f, false);
  fprintf(f,
             "  --prove-only: skip the host stage timings (read, checks, synthesis reps).\n"
             "  --ab SPEC (with --backend): an A/B run in one process, same key and card: R proves as given (A)\n"
             "  and R with SPEC (B), in the order A B B A A B ..., the lanes made again at each switch; SPEC is\n"
             "  chunk-log=N (compact or lean lanes) or NAME=VALUE, an environment variable read where lanes are\n"
             "  made (e.g. CZK_WITNESS_PRIO=0, CZK_STREAM_PACK=1) or by each MSM (CZK_CUDA_MSM_*). Prints the\n"
             "  medians of both and the median of the paired ratios B/A of device time.\n");
}

static double median(double *v, unsigned n) {
  qsort(v, n, sizeof *v, czk__bench_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The witness MSMs of the last prove against the time their non-zero points take to read once from device memory
 * at its peak bandwidth (issue 33's yardstick): each query's points times the witness's non-zero fraction (the whole
 * witness's, as the queries' own are not split out), 96 bytes a G1 point, 192 a G2 one. */
static void witness_table(czk_backend *be, const czk_groth16_key *key, const double frac[3],
                          const czk_groth16_timings *t) {
  czk_backend_props pr;
  if (czk_backend_get_props(be, &pr) != CZK_OK || !pr.mem_bandwidth) return;
  const double nz = frac[1] + frac[2], bw = (double)pr.mem_bandwidth, idx = (double)czk_groth16_key_copy_bytes(key, 0);
  const char *name[4] = {"l", "a", "b_g1", "b_g2"};
  const double span[4] = {t->msm_l, t->msm_a, t->msm_b_g1, t->msm_b_g2};
  printf("  witness MSMs of the last prove (non-zero %.1f%% of the witness: one %.1f%%, other %.1f%%); read once = the\n"
         "  non-zero points' bytes at the device's peak memory bandwidth (%.2f TB/s)%s\n",
         100 * nz, 100 * frac[1], 100 * frac[2], bw / 1e12,
         t->compact ? "; MSM = the span on its lane's stream (beside H and MSM h unless the lane is lean)" : "");
  printf("    %-5s %12s %12s %8s %11s %10s %7s\n", "MSM", "points", "non-zero", "GB", "read once", "MSM", "x");
  for (int q = 0; q < 4; q++) {
    const double sz = q == 3 ? 192 : 96;
    const double pts = ((double)czk_groth16_key_copy_bytes(key, 1u << (q + 1)) - idx) / sz, gb = pts * nz * sz / 1e9;
    const double once = gb * 1e9 / bw;
    printf("    %-5s %12.0f %12.0f %8.2f %8.2f ms %7.1f ms %7.1f\n", name[q], pts, pts * nz, gb, 1e3 * once,
           1e3 * span[q], once > 0 ? span[q] / once : 0);
  }
}

/* --backend: partition `part` assigned (czk_porep_evaluate, as the kind does) and proven reps + 1 times with the key
 * resident on the device; prove time and device busy time per rep. */
static int prove_reps(const czk_porep_info *info, const czk_porep_c1 *c1, uint32_t part, const char *bname,
                      const char *params, bool setup, unsigned reps, czk_pool *pool, double *tv, double *tg,
                      double frac[3], const czk__bench_dev_opts *dopt, czk__bench_ab *ab) {
  const bool verify = params || setup;
  czk_groth16_key_mem km;
  memset(&km, 0, sizeof km);
  czk_porep_circuit circ;
  czk_porep_circuit_of(info, &circ);
  czk_backend *be = NULL;
  czk_r1cs *outline = NULL;
  czk_groth16_key *key = NULL;
  czk_groth16_dkey *dkey = NULL;
  czk_groth16_pk *pk = NULL;
  czk_g1_affine *p1 = NULL;
  czk_g2_affine *p2 = NULL;
  czk_cs_counts n;
  double t = czk__now_s();
  czk_status st = czk_backend_open(&be, bname, NULL);
  if (st == CZK_OK) st = czk_porep_outline(&circ, &outline);
  if (st == CZK_OK) st = czk_porep_counts(&circ, &n);
  uint64_t dom = 1ull << n.log_domain;
  if (st == CZK_OK && params) {
    char stem[240], path[4400];
    czk_porep_param_stem(info, stem, sizeof stem);
    snprintf(path, sizeof path, "%s/%s.params", params, stem);
    st = czk_groth16_pk_open(&pk, path);
    if (st == CZK_OK) st = czk_groth16_key_from_pk(&key, pk, outline, pool);
  } else if (st == CZK_OK && setup) { /* a real key of our own, made on the backend (GPU fixed-base) */
    czk_fc_circuit fc;
    st = czk_fc_circuit_find(&fc, "porep", info->sector_size);
    if (st == CZK_OK) st = czk_fc_setup_mem(&fc, be, pool, NULL, 1, &km, NULL);
    czk_groth16_pk_queries q;
    czk_groth16_key_mem_queries(&km, &q);
    if (st == CZK_OK) st = czk_groth16_key_from_queries(&key, &km.vk, &q, &km.s, outline);
  } else if (st == CZK_OK) {
    st = czk__bench_random_key(&key, outline, dom, pool, &p1, &p2);
  }
  if (st == CZK_OK)
    printf("  %s key of the full size in %.2f s\n", params ? "the" : setup ? "a setup (on this backend)" : "a random",
           czk__now_s() - t);
  unsigned mask = CZK_GROTH16_Q_ALL;
  czk_groth16_lane_opts lo = {false, 0, false, NULL, NULL};
  if (st == CZK_OK) st = czk__bench_dev_setup(be, key, false, dopt, &mask, &lo, &dkey);
  size_t np = 3 + 18 * (size_t)info->challenges;
  czk_fr *pub = malloc(np * sizeof *pub);
  if (st == CZK_OK && !pub) st = CZK_ERR_NOMEM;
  if (st == CZK_OK)
    st = czk_porep_public_inputs(info, c1->replica_id, c1->comm_d, c1->comm_r, c1->seed, part, pub, np);
  czk_porep_partition vals;
  czk_porep_c1_partition(c1, part, &vals);
  czk_groth16_timings last;
  memset(&last, 0, sizeof last);
  if (st == CZK_OK) st = czk__bench_ab_begin(ab, reps, &lo, "porep");
  const unsigned nprove = czk__bench_ab_proves(ab, reps);
  for (unsigned r = 0; r <= nprove && st == CZK_OK; r++) {
    czk__bench_ab_before(ab, r, key, dkey, be, &lo);
    czk_groth16_assignment as;
    memset(&as, 0, sizeof as);
    as.w.n_inputs = (uint32_t)n.n_inputs, as.w.n_aux = (uint32_t)n.n_aux;
    as.w.w = czk_alloc_big((n.n_inputs + n.n_aux) * sizeof(czk_fr));
    as.a = czk_alloc_big(dom * sizeof(czk_fr)), as.b = czk_alloc_big(dom * sizeof(czk_fr));
    as.c = czk_alloc_big(dom * sizeof(czk_fr));
    as.n_domain = dom, as.n_rows = n.n_constraints;
    st = as.w.w && as.a && as.b && as.c ? CZK_OK : CZK_ERR_NOMEM;
    czk_porep_eval_out o = {as.w.w, n.n_inputs, n.n_aux, n.n_user_constraints, as.a, as.b, as.c};
    if (st == CZK_OK) st = czk_porep_evaluate(&circ, &vals, pool, &o);
    if (st == CZK_OK) { /* the prover's input rows, the domain's zero tail */
      for (uint64_t i = 0; i < n.n_inputs; i++) {
        as.a[n.n_user_constraints + i] = as.w.w[i];
        czk_fr_set_zero(&as.b[n.n_user_constraints + i]);
        czk_fr_set_zero(&as.c[n.n_user_constraints + i]);
      }
      size_t tail = (size_t)(dom - n.n_constraints) * sizeof(czk_fr);
      memset(as.a + n.n_constraints, 0, tail), memset(as.b + n.n_constraints, 0, tail);
      memset(as.c + n.n_constraints, 0, tail);
      if (r == 0) czk_witness_fractions(as.w.w, n.n_inputs + n.n_aux, frac);
    }
    if (st != CZK_OK) {
      czk_groth16_assignment_free(&as);
      break;
    }
    czk_groth16_job *job;
    czk_groth16_proof proof;
    czk_groth16_timings tim;
    t = czk__now_s();
    memset(&tim, 0, sizeof tim);
    st = czk_groth16_prove_start_ex(&job, be, key, dkey, &as, pool, &lo); /* consumes the assignment */
    if (st == CZK_OK) st = czk_groth16_prove_finish(job, &proof, &tim);
    const double wall = czk__now_s() - t;
    const unsigned k = czk__bench_ab_slot(ab, r); /* (A's at 1 .. reps: the run's own medians) */
    tv[k] = wall, tg[k] = tim.device;
    if (st == CZK_OK && k <= reps) last = tim; /* (the witness table: A's last prove) */
    if (st == CZK_OK) czk__bench_ab_record(ab, r, wall, &tim);
    if (st == CZK_OK && verify) st = czk_groth16_verify(czk_groth16_key_vk(key), &proof, pub, np);
    printf("  %s prove %.1f ms (device %.1f ms: check %.1f, H %.1f, msm h %.1f l %.1f a %.1f b1 %.1f b2 %.1f; "
           "uploaded %.2f GiB of bases, device waited %.1f ms for them)%s; device memory in use, peak %.2f GiB\n",
           czk__bench_ab_label(ab, r), 1e3 * wall, 1e3 * tim.device, 1e3 * tim.check, 1e3 * tim.h, 1e3 * tim.msm_h,
           1e3 * tim.msm_l, 1e3 * tim.msm_a, 1e3 * tim.msm_b_g1, 1e3 * tim.msm_b_g2,
           (double)tim.upload_bytes / (1u << 30), 1e3 * tim.upload_wait, verify && st == CZK_OK ? ", verified" : "",
           (double)czk_backend_mem_peak(be) / (1u << 30));
    fflush(stdout);
  }
  if (st != CZK_OK) fprintf(stderr, "czk bench porep: prove: %s\n", czk_status_str(st));
  if (st == CZK_OK && !czk_backend_host_memory(be)) witness_table(be, key, frac, &last);
  if (st == CZK_OK) czk__bench_ab_table(ab);
  czk__bench_ab_end(ab, &lo);
  free(pub);
  czk_groth16_dkey_free(dkey);
  czk_groth16_key_free(key);
  if (pk) czk_groth16_pk_close(pk);
  czk_r1cs_free(outline);
  czk_backend_free(be);
  free(p1), free(p2);
  czk_groth16_key_mem_free(&km);
  return st == CZK_OK ? 0 : 1;
}

int czk_bench_porep(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  const char *size = NULL, *file = NULL, *bname = NULL, *params = NULL;
  bool random_key = false, setup = false, witness_only = false, prove_only = false;
  czk__bench_dev_opts dopt;
  czk__bench_dev_opts_init(&dopt); /* reserve: the daemon's default unless given */
  unsigned reps = 3;
  uint64_t miner = 1000, sector = 1, part = 0;
  czk__bench_ab ab;
  memset(&ab, 0, sizeof ab);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--witness-only") == 0 || strcmp(a, "--prove-only") == 0) {
      *(a[2] == 'w' ? &witness_only : &prove_only) = true;
      continue;
    }
    if (strcmp(a, "--random-key") == 0 || strcmp(a, "--setup") == 0) {
      *(a[2] == 'r' ? &random_key : &setup) = true;
      continue;
    }
    const int d = czk__bench_dev_opt(&dopt, argc, argv, &i, "porep", false);
    if (d == 2) return 2;
    if (d == 1) continue;
    if (!v) return fprintf(stderr, "czk bench porep: %s needs a value\n", a), 2;
    if (strcmp(a, "--sector-size") == 0) size = v;
    else if (strcmp(a, "--c1") == 0) file = v;
    else if (strcmp(a, "--miner") == 0) miner = strtoull(v, NULL, 10);
    else if (strcmp(a, "--sector") == 0) sector = strtoull(v, NULL, 10);
    else if (strcmp(a, "--partition") == 0) part = strtoull(v, NULL, 10);
    else if (strcmp(a, "--reps") == 0) reps = (unsigned)atoi(v);
    else if (strcmp(a, "--backend") == 0) bname = v;
    else if (strcmp(a, "--params") == 0) params = v;
    else if (strcmp(a, "--ab") == 0) {
      if (czk__bench_ab_parse(&ab, v, "porep")) return 2;
    } else return fprintf(stderr, "czk bench porep: unknown option '%s'\n", a), usage(stderr), 2;
    i++;
  }
  uint64_t bytes;
  if (!size || !czk__parse_size(size, &bytes) || !czk_porep_info_for_size(bytes) || reps < 1 || reps > 100 ||
      (bname && !params && !random_key && !setup) || ((params != NULL) + random_key + setup > 1))
    return usage(stderr), 2;
  if (ab.on && !bname) return fprintf(stderr, "czk bench porep: --ab needs --backend\n"), 2;
  const czk_porep_info *info = czk_porep_info_for_size(bytes);
  if (part >= info->partitions) return fprintf(stderr, "czk bench porep: --partition must be < %u\n", info->partitions), 2;
  czk_pool *pool = czk_pool_default();

  /* the request bytes: Curio's envelope */
  char *env = NULL;
  size_t env_len = 0;
  double t = czk__now_s();
  if (file) {
    FILE *f = fopen(file, "rb");
    if (!f) return fprintf(stderr, "czk bench porep: cannot open %s\n", file), 1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    env = n > 0 ? malloc((size_t)n) : NULL;
    if (!env || fread(env, 1, (size_t)n, f) != (size_t)n) return fclose(f), fprintf(stderr, "czk bench porep: cannot read %s\n", file), 1;
    fclose(f);
    env_len = (size_t)n;
  } else {
    czk_porep_c1 c1;
    czk_status st = czk_porep_generate(info, CZK_POREP_GEN_SPARSE, 1, miner, sector, &c1);
    char *json = NULL;
    size_t len = 0;
    FILE *m = st == CZK_OK ? open_memstream(&json, &len) : NULL;
    if (m) st = czk_porep_c1_write(&c1, m), fclose(m);
    czk_porep_c1_free(&c1);
    FILE *e = st == CZK_OK && json ? open_memstream(&env, &env_len) : NULL;
    if (e) st = czk_porep_envelope_write(e, (const uint8_t *)json, len, sector, bytes), fclose(e);
    free(json);
    if (st != CZK_OK || !env) return fprintf(stderr, "czk bench porep: generator: %s\n", czk_status_str(st)), 1;
    printf("  generated a sparse %s C1 output (%zu bytes of JSON in the envelope) in %.2f s\n", info->name, len,
           czk__now_s() - t);
  }
  printf("bench porep: %s, envelope %.1f MB, partition %llu, %u pool threads, %u reps\n", info->size_name,
         env_len / 1e6, (unsigned long long)part, czk_pool_threads(pool), reps);

  /* stages one by one */
  double *tp = calloc(reps + 1, sizeof(double));
  double *tc = calloc(reps + 1, sizeof(double)), *tj = calloc(reps + 1, sizeof(double));
  double *ts = calloc(reps + 1, sizeof(double));
  char err[512] = "";
  uint64_t parse_peak = 0;
  const unsigned hreps = prove_only ? 0 : reps; /* --prove-only: each host stage once (untimed) */
  for (unsigned r = 0; r <= hreps; r++) {
    uint64_t num = 0, ssz = 0, base = czk__bench_proc_bytes("VmRSS");
    czk__bench_reset_peak();
    czk_porep_c1 c1;
    t = czk__now_s();
    czk_status st = czk_porep_c1_read(&c1, (const uint8_t *)env, env_len, &num, &ssz, err, sizeof err);
    tp[r] = czk__now_s() - t;
    uint64_t peak = czk__bench_proc_bytes("VmHWM");
    if (r && peak > base && peak - base > parse_peak) parse_peak = peak - base;
    t = czk__now_s();
    if (st == CZK_OK) st = czk_porep_c1_check(&c1, miner, num ? num : sector, err, sizeof err);
    tc[r] = czk__now_s() - t;
    if (st == CZK_OK) czk_porep_c1_free(&c1);
    if (st != CZK_OK) return fprintf(stderr, "czk bench porep: %s: %s\n", czk_status_str(st), err), 1;
  }

  /* the kind, as the daemon runs it */
  czk_engine_kind kind;
  if (czk_kind_porep_new(&kind, bytes, "/nonexistent", pool) != CZK_OK) return 1;
  czk_kind_request req;
  memset(&req, 0, sizeof req);
  req.proof_kind = CZK_PROOF_KIND_POREP_SEAL_COMMIT;
  req.registered_proof = info->wire;
  req.vanilla_proof = (czk_bytes){(const uint8_t *)env, env_len};
  req.sector_number = file ? 0 : sector;
  req.miner_id = miner;
  req.error = err;
  req.error_len = sizeof err;
  void *parsed = NULL;
  uint32_t nparts = 0;
  for (unsigned r = 0; r <= hreps; r++) {
    if (parsed) kind.parsed_free(kind.user, parsed);
    parsed = NULL;
    t = czk__now_s();
    czk_status st = kind.parse(kind.user, (const uint8_t *)&req, sizeof req, &parsed, &nparts);
    tj[r] = czk__now_s() - t;
    if (st != CZK_OK) return fprintf(stderr, "czk bench porep: job parse: %s: %s\n", czk_status_str(st), err), 1;
  }
  uint64_t synth_peak = 0;
  double first = 0;
  for (unsigned r = 0; r <= reps && !witness_only && !prove_only; r++) {
    void *synth = NULL;
    malloc_trim(0);
    uint64_t base = czk__bench_proc_bytes("VmRSS");
    if (r) czk__bench_reset_peak();
    t = czk__now_s();
    czk_status st = kind.synthesize(kind.user, parsed, (uint32_t)part, pool, &synth);
    ts[r] = czk__now_s() - t;
    uint64_t peak = czk__bench_proc_bytes("VmHWM");
    if (r && peak > base && peak - base > synth_peak) synth_peak = peak - base;
    if (!r) first = ts[r];
    if (st != CZK_OK) return fprintf(stderr, "czk bench porep: synthesis: %s\n", czk_status_str(st)), 1;
    kind.synth_free(kind.user, synth);
  }
  /* the evaluator alone (witness + a/b/c) against witness-only synthesis, same partition, same run */
  double *tev = calloc(reps + 1, sizeof(double)), *twi = calloc(reps + 1, sizeof(double));
  int same = -1;
  {
    czk_porep_c1 c1;
    czk_porep_circuit circ;
    czk_porep_circuit_of(info, &circ);
    czk_cs_counts n;
    czk_status st = prove_only ? CZK_ERR_UNSUPPORTED
                               : czk_porep_c1_read(&c1, (const uint8_t *)env, env_len, NULL, NULL, err, sizeof err);
    if (prove_only) st = CZK_OK;
    else if (st == CZK_OK) {
      st = czk_porep_counts(&circ, &n);
      czk_porep_partition vals;
      czk_porep_c1_partition(&c1, (uint32_t)part, &vals);
      size_t nw = (size_t)(n.n_inputs + n.n_aux), nr = (size_t)n.n_user_constraints;
      czk_fr *we = czk_alloc_big(nw * sizeof(czk_fr)), *ww = czk_alloc_big(nw * sizeof(czk_fr));
      czk_fr *abc = czk_alloc_big(3 * nr * sizeof(czk_fr));
      if (st == CZK_OK && (!we || !ww || !abc)) st = CZK_ERR_NOMEM;
      czk_porep_eval_out o = {we, n.n_inputs, n.n_aux, nr, abc, abc + nr, abc + 2 * nr};
      for (unsigned r = 0; r <= reps && st == CZK_OK; r++) {
        t = czk__now_s();
        if (!witness_only) st = czk_porep_evaluate(&circ, &vals, pool, &o);
        tev[r] = czk__now_s() - t;
        if (st != CZK_OK) break;
        t = czk__now_s();
        st = czk_porep_witness(&circ, &vals, pool, ww, n.n_inputs, n.n_aux);
        twi[r] = czk__now_s() - t;
      }
      if (st == CZK_OK && !witness_only) same = memcmp(we, ww, nw * sizeof(czk_fr)) == 0;
      free(we), free(ww), free(abc);
      czk_porep_c1_free(&c1);
    }
    if (st != CZK_OK) return fprintf(stderr, "czk bench porep: witness-only: %s\n", czk_status_str(st)), 1;
  }
  double *tv = calloc(2 * reps + 1, sizeof(double)), *tg = calloc(2 * reps + 1, sizeof(double)); /* (--ab: B's too) */
  double frac[3] = {0, 0, 0};
  kind.parsed_free(kind.user, parsed);
  int rc = 0;
  if (bname) { /* the prove reads the C1 output itself (the kind's parsed job is opaque) */
    czk_porep_c1 c1;
    rc = czk_porep_c1_read(&c1, (const uint8_t *)env, env_len, NULL, NULL, err, sizeof err) == CZK_OK ? 0 : 1;
    if (rc == 0) rc = prove_reps(info, &c1, (uint32_t)part, bname, params, setup, reps, pool, tv, tg, frac, &dopt, &ab);
    czk_porep_c1_free(&c1);
  }
  uint64_t reserved = kind.shape.abc_bytes + kind.shape.witness_bytes;
  if (prove_only) {
    if (bname && rc == 0)
      printf("\n| prove on %s (witness %.1f%% zero, %.1f%% one, %.1f%% other) | median %.1f ms, device %.1f ms |\n",
             bname, 100 * frac[0], 100 * frac[1], 100 * frac[2], 1e3 * median(tv + 1, reps),
             1e3 * median(tg + 1, reps));
    czk_kind_free(&kind);
    free(tv), free(tg), free(env), free(tp), free(tc), free(tj), free(ts), free(tev), free(twi);
    return rc;
  }
  printf("\n| stage | median ms (of %u) |\n|---|---:|\n", reps);
  printf("| C1 read (envelope decode + streaming parse) | %.1f |\n", 1e3 * median(tp + 1, reps));
  printf("| native checks | %.1f |\n", 1e3 * median(tc + 1, reps));
  printf("| job parse (decode + parse + checks + inputs of %u partitions) | %.1f |\n", nparts, 1e3 * median(tj + 1, reps));
  if (!witness_only) {
    printf("| synthesis of partition %llu (witness + a/b/c) | %.1f |\n", (unsigned long long)part,
           1e3 * median(ts + 1, reps));
    printf("| first synthesis (includes counting the circuit once) | %.1f |\n", 1e3 * first);
    printf("| evaluator alone (czk_porep_evaluate: witness + a/b/c) | %.1f |\n", 1e3 * median(tev + 1, reps));
  }
  printf("| witness only (czk_porep_witness; w %s the evaluator's) | %.1f |\n",
         same == 1 ? "equals" : same == 0 ? "DIFFERS from" : "not compared with",
         1e3 * median(twi + 1, reps));
  if (bname && rc == 0) {
    printf("| prove on %s (%s key resident; witness %.1f%% zero, %.1f%% one, %.1f%% other) | %.1f |\n", bname,
           params ? "the real" : setup ? "a set-up" : "a random", 100 * frac[0], 100 * frac[1], 100 * frac[2], 1e3 * median(tv + 1, reps));
    printf("| of which device busy | %.1f |\n", 1e3 * median(tg + 1, reps));
  }
  printf("\n| memory | MiB |\n|---|---:|\n");
  printf("| envelope | %.1f |\n", env_len / 1048576.0);
  printf("| C1 read peak RSS over base | %.1f |\n", parse_peak / 1048576.0);
  printf("| synthesis peak RSS over base | %.1f |\n", synth_peak / 1048576.0);
  printf("| reserved for synthesis (abc %.1f + witness %.1f) | %.1f |\n", kind.shape.abc_bytes / 1048576.0,
         kind.shape.witness_bytes / 1048576.0, reserved / 1048576.0);
  printf("| reservation / peak | %.2f |\n", synth_peak ? (double)reserved / (double)synth_peak : 0.0);
  czk_kind_free(&kind);
  free(tv), free(tg);
  if (rc) return rc;
  free(env), free(tp), free(tc), free(tj), free(ts), free(tev), free(twi);
  return 0;
}
