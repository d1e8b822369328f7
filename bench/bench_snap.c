/* bench_snap.c: `czk bench snap`: one SnapDeals (EmptySectorUpdate) partition stage by stage at any sector size, from
 * a sparse generated update (czk/snap.h generator; the real PartitionProof bytes and sizes):
 *   parse      the bincode bytes of every partition proof of the request (lengths checked first)
 *   check      the native checks of every partition (commitments, every path, challenges, encoding, apex rows)
 *   inputs     the public inputs of every partition recomputed from the request
 *   synthesis  partition K's whole assignment (witness + a, b, c): the common part, then the challenges in parallel
 *              on the pool (czk_snap_evaluate), its public inputs compared with the recomputed ones
 *   prove      (--backend with --params DIR) the one prover with the real key, the proof verified; the key's tier
 *              (resident, partial, streamed) and lane shape are the daemon's plan's choice within --gpu-memory-limit
 *              less --gpu-memory-reserve unless --tier / --lanes say (czk__bench_dev_*); each prove's bytes of bases
 *              uploaded and the device memory peak are printed
 * and the memory of the synthesis: the peak resident memory over it (VmHWM after resetting it through
 * /proc/self/clear_refs, minus the RSS before) against what the daemon's snap kind reserves for a partition's
 * assignment (its shape's abc + witness bytes). Median of --reps after one warm-up; a failing stage stops the run
 * (exit 1); nothing asserts on time or size. */
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
#include "czk/snap.h"

static void usage(FILE *f) {
  fprintf(f, "usage: czk bench snap --sector-size S [--partition K] [--reps R]\n"
             "                      [--backend cpu|cuda|cuda:N (--params DIR | --random-key)]\n"
             "                      [--gpu-memory-limit S] [--gpu-memory-reserve S]\n"
             "                      [--tier auto|resident|partial|streamed] [--lanes auto|full|compact|lean]\n"
             "  One SnapDeals partition stage by stage from a sparse update: parse and native check of every\n"
             "  partition proof, public inputs, synthesis of partition K (default: the last; witness + a/b/c, the\n"
             "  challenges in parallel) with its peak RSS against the snap kind's reservation, and with --backend the\n"
             "  prove against the v28 key in --params DIR (verified), or --random-key: random points of the key's\n"
             "  shape (device work only: the proof is not verified).\n");
  czk__bench_dev_usage(f, false);
}

static double median(double *v, unsigned n) {
  qsort(v, n, sizeof *v, czk__bench_cmp_double);
  return v[n / 2];
}

int czk_bench_snap(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  const char *size = NULL, *bname = NULL, *params = NULL;
  unsigned reps = 3;
  long part = -1;
  bool random_key = false;
  czk__bench_dev_opts dopt;
  czk__bench_dev_opts_init(&dopt);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    const int d = czk__bench_dev_opt(&dopt, argc, argv, &i, "snap", false); /* limit, reserve, tier, lanes */
    if (d == 2) return 2;
    if (d) continue;
    if (strcmp(a, "--random-key") == 0) {
      random_key = true;
      continue;
    }
    if (!v) return fprintf(stderr, "czk bench snap: %s needs a value\n", a), 2;
    if (strcmp(a, "--sector-size") == 0) size = v;
    else if (strcmp(a, "--reps") == 0) reps = (unsigned)atoi(v);
    else if (strcmp(a, "--partition") == 0) part = atol(v);
    else if (strcmp(a, "--backend") == 0) bname = v;
    else if (strcmp(a, "--params") == 0) params = v;
    else return fprintf(stderr, "czk bench snap: unknown option '%s'\n", a), usage(stderr), 2;
    i++;
  }
  uint64_t bytes;
  if (!size || !czk__parse_size(size, &bytes) || reps < 1 || (bname && !params && !random_key) ||
      (params && random_key))
    return usage(stderr), 2;
  const czk_snap_info *info = czk_snap_info_for_size(bytes);
  if (!info) return fprintf(stderr, "czk bench snap: no update proof of sector size %s\n", size), 2;
  if (part < 0) part = (long)info->partitions - 1;
  if (part >= (long)info->partitions) return fprintf(stderr, "czk bench snap: %s has %u partitions\n", info->name,
                                                     info->partitions), 2;
  uint32_t k = (uint32_t)part, P = info->partitions;
  czk_pool *pool = czk_pool_default();
  printf("bench snap: %s %s, %u partitions of %u challenges, partition %u synthesized, %u pool threads\n", info->name,
         info->size_name, P, info->challenges, k, czk_pool_threads(pool));

  /* the request: a sparse update in Curio's bytes */
  double t = czk__now_s();
  czk_snap_gen_input gin = {.mode = CZK_SNAP_GEN_SPARSE, .seed = 5};
  czk_snap_update u;
  if (czk_snap_generate(info, &gin, &u) != CZK_OK) return fprintf(stderr, "czk bench snap: generator failed\n"), 1;
  size_t vs = czk_snap_partition_size(info);
  uint8_t *bin = malloc((size_t)P * vs);
  czk_snap_partition *parts = calloc(P, sizeof *parts);
  czk_fr(*pub)[CZK_SNAP_PUBLIC_INPUTS] = calloc(P, sizeof *pub);
  if (!bin || !parts || !pub) return fprintf(stderr, "czk bench snap: out of memory\n"), 1;
  for (uint32_t q = 0; q < P; q++)
    if (czk_snap_partition_write(info, &u.parts[q], bin + (size_t)q * vs, vs) != CZK_OK)
      return fprintf(stderr, "czk bench snap: write failed\n"), 1;
  printf("  generated a sparse update: %u partition proofs of %zu bytes in %.2f s\n", P, vs, czk__now_s() - t);

  uint64_t ni, na, rows, dom;
  t = czk__now_s();
  if (czk_snap_assignment_size(info, &ni, &na, &rows, &dom) != CZK_OK) return 1;
  printf("  circuit: %llu constraints + %llu inputs, %llu aux, domain 2^%u (counted in %.2f s); assignment %.2f GiB\n",
         (unsigned long long)(rows - ni), (unsigned long long)ni, (unsigned long long)na, __builtin_ctzll(dom),
         czk__now_s() - t, (double)((ni + na + 3 * dom) * sizeof(czk_fr)) / (1u << 30));
  /* what the daemon's kind reserves for one partition */
  czk_engine_kind kind;
  czk_engine_shape shape;
  memset(&shape, 0, sizeof shape);
  if (czk_kind_snap_new(&kind, info->sector_size, "/nonexistent", pool) == CZK_OK) {
    shape = kind.shape;
    czk_kind_free(&kind);
  }

  /* the key (--backend) */
  czk_backend *be = NULL;
  czk_groth16_key *key = NULL;
  czk_groth16_dkey *dkey = NULL;
  czk_groth16_pk *pk = NULL;
  czk_r1cs *outline = NULL;
  czk_g1_affine *p1 = NULL;
  czk_g2_affine *p2 = NULL;
  czk_groth16_lane_opts lo = {false, 0, false, NULL, NULL};
  unsigned mask = CZK_GROTH16_Q_ALL;
  int rc = 0;
  if (bname) {
    char stem[200], path[4400] = "(random)";
    czk_snap_param_stem(info, stem, sizeof stem);
    if (params) snprintf(path, sizeof path, "%s/%s.params", params, stem);
    t = czk__now_s();
    czk_status st = czk_backend_open(&be, bname, NULL);
    if (st == CZK_OK) st = czk_snap_outline(info, &outline);
    if (st == CZK_OK && params) {
      st = czk_groth16_pk_open(&pk, path);
      if (st == CZK_OK) st = czk_groth16_key_from_pk(&key, pk, outline, pool);
      if (st == CZK_OK) printf("  key %s loaded in %.2f s\n", path, czk__now_s() - t);
    } else if (st == CZK_OK) {
      st = czk__bench_random_key(&key, outline, dom, pool, &p1, &p2);
      if (st == CZK_OK) printf("  random key of the full size in %.2f s\n", czk__now_s() - t);
    }
    /* the tier and lanes the daemon's plan picks (or --tier / --lanes), the copy, the device memory watch */
    if (st == CZK_OK) st = czk__bench_dev_setup(be, key, false, &dopt, &mask, &lo, &dkey);
    if (st != CZK_OK) {
      fprintf(stderr, "czk bench snap: key %s on %s: %s\n", path, bname, czk_status_str(st));
      rc = 1;
    }
  }

  double *tp = calloc(reps + 1, sizeof(double)), *tc = calloc(reps + 1, sizeof(double)),
         *ti = calloc(reps + 1, sizeof(double)), *ts = calloc(reps + 1, sizeof(double)),
         *tv = calloc(reps + 1, sizeof(double)), *pk_rss = calloc(reps + 1, sizeof(double));
  char err[300] = "";
  for (unsigned r = 0; r <= reps && rc == 0; r++) {
    double t0 = czk__now_s();
    czk_status st = CZK_OK;
    for (uint32_t q = 0; q < P && st == CZK_OK; q++)
      st = czk_snap_partition_parse(info, bin + (size_t)q * vs, vs, &parts[q], "partition", err, sizeof err);
    double t1 = czk__now_s();
    for (uint32_t q = 0; q < P && st == CZK_OK; q++)
      st = czk_snap_check(info, &u.comms, &parts[q], q, "partition", err, sizeof err);
    double t2 = czk__now_s();
    for (uint32_t q = 0; q < P && st == CZK_OK; q++) st = czk_snap_public_inputs(info, &u.comms, q, pub[q]);
    double t3 = czk__now_s();
    uint64_t base = czk__bench_proc_bytes("VmRSS");
    czk__bench_reset_peak();
    czk_groth16_assignment as;
    memset(&as, 0, sizeof as);
    if (st == CZK_OK) {
      as.w.n_inputs = (uint32_t)ni, as.w.n_aux = (uint32_t)na;
      as.w.w = czk_alloc_big((ni + na) * sizeof(czk_fr));
      as.a = czk_alloc_big(dom * sizeof(czk_fr)), as.b = czk_alloc_big(dom * sizeof(czk_fr));
      as.c = czk_alloc_big(dom * sizeof(czk_fr));
      as.n_domain = dom, as.n_rows = rows;
      st = as.w.w && as.a && as.b && as.c ? CZK_OK : CZK_ERR_NOMEM;
      czk_snap_instance inst = {.info = info, .k = k, .comms = &u.comms, .part = &parts[k]};
      if (st == CZK_OK) st = czk_snap_evaluate(&inst, pool, as.w.w, as.a, as.b, as.c);
      if (st == CZK_OK && memcmp(as.w.w + 1, pub[k], sizeof pub[k]) != 0) st = CZK_ERR_VERIFY_FAILED;
    }
    double t4 = czk__now_s(), t5 = t4;
    char note[160] = "";
    uint64_t hwm = czk__bench_proc_bytes("VmHWM");
    pk_rss[r] = hwm > base ? (double)(hwm - base) : 0;
    if (st == CZK_OK && be) {
      czk_groth16_job *job;
      czk_groth16_proof proof;
      czk_groth16_timings tim;
      memset(&tim, 0, sizeof tim);
      st = czk_groth16_prove_start_ex(&job, be, key, dkey, &as, pool, &lo); /* consumes the assignment */
      if (st == CZK_OK) st = czk_groth16_prove_finish(job, &proof, &tim);
      t5 = czk__now_s();
      czk__bench_dev_note(note, sizeof note, be, &tim);
      if (st == CZK_OK && params)
        st = czk_groth16_verify(czk_groth16_key_vk(key), &proof, pub[k], CZK_SNAP_PUBLIC_INPUTS);
    } else {
      czk_groth16_assignment_free(&as);
    }
    for (uint32_t q = 0; q < P; q++) czk_snap_partition_free(&parts[q]);
    if (st != CZK_OK) {
      fprintf(stderr, "czk bench snap: rep %u: %s %s\n", r, czk_status_str(st), err);
      rc = 1;
      break;
    }
    tp[r] = t1 - t0, tc[r] = t2 - t1, ti[r] = t3 - t2, ts[r] = t4 - t3, tv[r] = t5 - t4;
    printf("  %s parse %7.2f | check %8.1f | inputs %5.2f | synthesis %9.1f ms, peak RSS +%7.0f MiB%s", r ? "rep    " : "warm-up",
           1e3 * tp[r], 1e3 * tc[r], 1e3 * ti[r], 1e3 * ts[r], pk_rss[r] / (1 << 20), be ? "" : "\n");
    if (be) printf(" | prove %8.1f ms%s (%s)\n", 1e3 * tv[r], params ? ", verified" : "", note);
    fflush(stdout);
  }
  if (rc == 0) {
    double cons = (double)(rows - ni), syn = median(ts + 1, reps), peak = median(pk_rss + 1, reps);
    double declared = (double)(shape.abc_bytes + shape.witness_bytes);
    printf("%s %s: median of %u: parse %.2f ms, check %.1f ms (all %u partitions), inputs %.2f ms, synthesis of one "
           "partition %.1f ms (%.1f M constraints/s on %u threads)\n",
           info->name, info->size_name, reps, 1e3 * median(tp + 1, reps), 1e3 * median(tc + 1, reps), P,
           1e3 * median(ti + 1, reps), 1e3 * syn, cons / syn / 1e6, czk_pool_threads(pool));
    printf("memory: synthesis peak RSS %.0f MiB; the snap-update-%s kind reserves abc %.0f + witness %.0f = %.0f MiB "
           "for it (declared / measured %.2f; + scratch %.0f MiB for the prover)\n",
           peak / (1 << 20), info->size_name, (double)shape.abc_bytes / (1 << 20),
           (double)shape.witness_bytes / (1 << 20), declared / (1 << 20), peak > 0 ? declared / peak : 0,
           (double)shape.scratch_bytes / (1 << 20));
    if (be)
      printf("prove %.1f ms on %s%s\n", 1e3 * median(tv + 1, reps), czk_backend_name(be),
             params ? ", every proof verified" : " (random key: not verified)");
  }
  free(tp), free(tc), free(ti), free(ts), free(tv), free(pk_rss);
  czk_groth16_dkey_free(dkey);
  czk_groth16_key_free(key);
  if (pk) czk_groth16_pk_close(pk);
  czk_r1cs_free(outline);
  free(p1), free(p2);
  czk_backend_free(be);
  czk_snap_update_free(&u);
  free(bin), free(parts), free(pub);
  return rc;
}
