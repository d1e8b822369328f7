/* bench_post.c: `czk bench post`: one WinningPoSt / WindowPoSt partition stage by stage, at any sector size, from
 * sparse vanilla proofs (czk/post.h generator; the real format and size):
 *   parse      the bincode bytes of every sector's vanilla proof -> openings (lengths checked first)
 *   check      the native vanilla check (comm_r, every path hashed to comm_r_last, every index = its challenge)
 *   inputs     the public inputs recomputed from the request
 *   synthesis  the whole assignment (witness + a, b, c), slots in parallel on the pool (czk_post_evaluate)
 *   witness only  czk_post_witness (w alone, no a/b/c), timed apart and compared with the evaluator's w
 *   prove      (--backend) the one prover: the real key of --params DIR (the proof is verified against the
 *              recomputed inputs), a key set up on the backend (--setup, verified) or, with --random-key, random
 *              points of the full key's sizes (the proof verifies against nothing; this measures the device work
 *              only). The key's tier (resident, partial, streamed) and lane shape are the daemon's plan's choice
 *              within --gpu-memory-limit less --gpu-memory-reserve unless --tier / --lanes say (czk__bench_dev_*);
 *              each prove's bytes of bases uploaded and the device memory peak are printed.
 * Median of --reps after one warm-up; every stage's output is checked (a failing stage stops the run, exit 1). */
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
#include "czk/post.h"

static void usage(FILE *f) {
  fprintf(f, "usage: czk bench post --kind winning-post|window-post --sector-size S [--sectors N] [--slots N]\n"
             "                      [--reps R] [--ab SPEC]\n"
             "                      [--backend cpu|cuda|cuda:N (--params DIR | --setup | --random-key)]\n"
             "                      [--gpu-memory-limit S] [--gpu-memory-reserve S]\n"
             "                      [--tier auto|resident|partial|streamed] [--lanes auto|full|compact|lean] [--streamed]\n"
             "  One PoSt partition stage by stage from sparse vanilla proofs: parse, native check, public inputs,\n"
             "  synthesis (witness + a/b/c, parallel), and with --backend the prove.\n"
             "  --sectors: WindowPoSt sectors in the partition (default: all of them, no padding).\n"
             "  --slots N: a WindowPoSt partition of N slots instead of the size's (the same slot circuit; no\n"
             "  --backend: there is no key of that shape), e.g. one 32 GiB slot for profiling synthesis.\n"
             "  --streamed: the key stays in (pinned) host memory and streams through each MSM (no device copy).\n"
             "  --ab SPEC (with --backend): A/B in one process: R proves as given and R with SPEC (chunk-log=N, or\n"
             "  NAME=VALUE of an environment variable), A B B A ...; a table of both (as czk bench porep --ab).\n");
  czk__bench_dev_usage(f, true);
}

static double median(double *v, unsigned n) {
  qsort(v, n, sizeof *v, czk__bench_cmp_double);
  return v[n / 2];
}

int czk_bench_post(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  const char *kind = NULL, *size = NULL, *bname = NULL, *params = NULL;
  unsigned reps = 3;
  uint64_t sectors = 0, slots = 0;
  bool random_key = false, setup = false;
  czk__bench_dev_opts dopt;
  czk__bench_dev_opts_init(&dopt);
  czk__bench_ab ab;
  memset(&ab, 0, sizeof ab);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    const int d = czk__bench_dev_opt(&dopt, argc, argv, &i, "post", true); /* limit, reserve, tier, lanes, streamed */
    if (d == 2) return 2;
    if (d) continue;
    if (strcmp(a, "--random-key") == 0 || strcmp(a, "--setup") == 0) {
      *(a[2] == 'r' ? &random_key : &setup) = true;
      continue;
    }
    if (!v) return fprintf(stderr, "czk bench post: %s needs a value\n", a), 2;
    if (strcmp(a, "--kind") == 0) kind = v;
    else if (strcmp(a, "--sector-size") == 0) size = v;
    else if (strcmp(a, "--sectors") == 0) sectors = strtoull(v, NULL, 10);
    else if (strcmp(a, "--slots") == 0) slots = strtoull(v, NULL, 10);
    else if (strcmp(a, "--reps") == 0) reps = (unsigned)atoi(v);
    else if (strcmp(a, "--backend") == 0) bname = v;
    else if (strcmp(a, "--params") == 0) params = v;
    else if (strcmp(a, "--ab") == 0) {
      if (czk__bench_ab_parse(&ab, v, "post")) return 2;
    } else return fprintf(stderr, "czk bench post: unknown option '%s'\n", a), usage(stderr), 2;
    i++;
  }
  uint64_t bytes;
  czk_post_type type = kind && strcmp(kind, "winning-post") == 0 ? CZK_POST_WINNING : CZK_POST_WINDOW;
  if (!kind || (strcmp(kind, "winning-post") != 0 && strcmp(kind, "window-post") != 0) || !size ||
      !czk__parse_size(size, &bytes) || reps < 1 || (bname && !params && !random_key && !setup) ||
      (params != NULL) + random_key + setup > 1)
    return usage(stderr), 2;
  if (ab.on && !bname) return fprintf(stderr, "czk bench post: --ab needs --backend\n"), 2;
  const czk_post_info *info = czk_post_info_find(type, bytes, 2);
  if (!info) return fprintf(stderr, "czk bench post: no %s proof of sector size %s\n", kind, size), 2;
  static czk_post_info custom; /* --slots: a WindowPoSt partition of that many slots (same slot circuit) */
  if (slots) {
    if (type != CZK_POST_WINDOW || bname || slots > info->sector_count)
      return fprintf(stderr, "czk bench post: --slots takes window-post, at most %u, without --backend\n",
                     info->sector_count), 2;
    custom = *info;
    custom.slots = custom.sector_count = (uint32_t)slots;
    info = &custom;
  }
  if (type == CZK_POST_WINNING || sectors == 0 || sectors > info->sector_count)
    sectors = type == CZK_POST_WINNING ? 1 : info->sector_count;
  czk_pool *pool = czk_pool_default();
  printf("bench post: %s %s, %llu sector(s) in %u slots, %u pool threads\n", info->name, info->size_name,
         (unsigned long long)sectors, info->slots, czk_pool_threads(pool));

  /* the request: sparse vanilla proofs in Curio's bytes */
  uint8_t rnd[32];
  for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)(i * 29 + 3);
  rnd[31] &= 0x3f;
  size_t vs = czk_post_vanilla_size(info);
  uint8_t *bin = malloc(sectors * vs);
  czk_post_sector *sec = calloc(sectors, sizeof *sec);
  uint64_t *ids = malloc(sectors * sizeof *ids);
  uint8_t(*cr)[32] = malloc(sectors * 32);
  if (!bin || !sec || !ids || !cr) return fprintf(stderr, "czk bench post: out of memory\n"), 1;
  double t = czk__now_s();
  for (uint64_t i = 0; i < sectors; i++) {
    czk_post_sector s;
    if (czk_post_generate(info, CZK_POST_GEN_SPARSE, 5, 1000 + i, i, rnd, NULL, NULL, &s) != CZK_OK ||
        czk_post_vanilla_write(info, &s, bin + i * vs, vs) != CZK_OK)
      return fprintf(stderr, "czk bench post: generator failed\n"), 1;
    ids[i] = s.sector_id;
    memcpy(cr[i], s.comm_r, 32);
    czk_post_sector_free(&s);
  }
  printf("  generated %llu sparse vanilla proofs of %zu bytes in %.2f s\n", (unsigned long long)sectors, vs,
         czk__now_s() - t);

  czk_post_slot_counts sc;
  uint64_t ni, na, rows, dom;
  if (czk_post_slot_counts_get(info, &sc) != CZK_OK) return 1;
  czk_post_assignment_size(info, &sc, &ni, &na, &rows, &dom);
  printf("  circuit: %llu constraints + %llu inputs, %llu aux, domain 2^%u; assignment %.2f GiB\n",
         (unsigned long long)(rows - ni), (unsigned long long)ni, (unsigned long long)na, __builtin_ctzll(dom),
         (double)((ni + na + 3 * dom) * sizeof(czk_fr)) / (1u << 30));
  size_t np = czk_post_num_public_inputs(info);
  czk_fr *pub = malloc(np * sizeof *pub);
  uint64_t *pos = malloc(sectors * sizeof *pos); /* sector positions (partition 0) */
  for (uint64_t i = 0; pos && i < sectors; i++) pos[i] = type == CZK_POST_WINNING ? 0 : i;

  /* the key (--backend) */
  czk_backend *be = NULL;
  czk_groth16_key *key = NULL;
  czk_groth16_dkey *dkey = NULL;
  czk_groth16_pk *pk = NULL;
  czk_r1cs *outline = NULL;
  czk_g1_affine *p1 = NULL;
  czk_g2_affine *p2 = NULL;
  czk_groth16_key_mem km;
  memset(&km, 0, sizeof km);
  czk_groth16_lane_opts lo = {false, 0, false, NULL, NULL};
  unsigned mask = CZK_GROTH16_Q_ALL;
  int rc = 0;
  if (bname) {
    czk_status st = czk_backend_open(&be, bname, NULL);
    if (st == CZK_OK) st = czk_post_outline(info, &outline);
    if (st == CZK_OK && params) {
      char stem[200], path[4400];
      czk_post_param_stem(info, stem, sizeof stem);
      snprintf(path, sizeof path, "%s/%s.params", params, stem);
      t = czk__now_s();
      st = czk_groth16_pk_open(&pk, path);
      if (st == CZK_OK) st = czk_groth16_key_from_pk(&key, pk, outline, pool);
      if (st != CZK_OK) fprintf(stderr, "czk bench post: %s: %s\n", path, czk_status_str(st));
      else printf("  key %s loaded in %.2f s\n", path, czk__now_s() - t);
    } else if (st == CZK_OK && setup) { /* a real key of our own, made on the backend (GPU fixed-base) */
      czk_fc_circuit fc;
      t = czk__now_s();
      st = czk_fc_circuit_find(&fc, kind, bytes);
      if (st == CZK_OK) st = czk_fc_setup_mem(&fc, be, pool, NULL, 1, &km, NULL);
      czk_groth16_pk_queries q;
      czk_groth16_key_mem_queries(&km, &q);
      if (st == CZK_OK) st = czk_groth16_key_from_queries(&key, &km.vk, &q, &km.s, outline);
      if (st == CZK_OK) printf("  key set up on %s in %.2f s\n", czk_backend_name(be), czk__now_s() - t);
      else fprintf(stderr, "czk bench post: setup: %s\n", czk_status_str(st));
    } else if (st == CZK_OK) {
      t = czk__now_s();
      st = czk__bench_random_key(&key, outline, dom, pool, &p1, &p2);
      if (st == CZK_OK) printf("  random key of the full size in %.2f s\n", czk__now_s() - t);
    }
    /* the tier and lanes the daemon's plan picks (or --tier / --lanes), the copy, the device memory watch */
    if (st == CZK_OK) st = czk__bench_dev_setup(be, key, false, &dopt, &mask, &lo, &dkey);
    if (st == CZK_OK) st = czk__bench_ab_begin(&ab, reps, &lo, "post");
    if (st != CZK_OK) {
      fprintf(stderr, "czk bench post: key / backend: %s\n", czk_status_str(st));
      rc = 1;
    }
  }

  const size_t na_ = 2 * (size_t)reps + 1; /* (--ab: B's reps too, after A's) */
  double *tp = calloc(na_, sizeof(double)), *tc = calloc(na_, sizeof(double)), *ti = calloc(na_, sizeof(double)),
         *ts = calloc(na_, sizeof(double)), *tv = calloc(na_, sizeof(double)), *tg = calloc(na_, sizeof(double)),
         *tt = calloc(na_, sizeof(double)), *tw = calloc(na_, sizeof(double));
  czk_fr *wo = czk_alloc_big((ni + na) * sizeof(czk_fr)); /* witness-only synthesis, compared with the evaluator's w */
  if (!wo) rc = 1;
  char err[300];
  const unsigned nprove = czk__bench_ab_proves(&ab, reps);
  for (unsigned r = 0; r <= nprove && rc == 0; r++) {
    const unsigned k = czk__bench_ab_slot(&ab, r); /* where rep r's figures go (--ab: A's at 1 .. reps) */
    if (be) czk__bench_ab_before(&ab, r, key, dkey, be, &lo); /* (untimed) */
    double t0 = czk__now_s();
    czk_status st = CZK_OK;
    for (uint64_t i = 0; i < sectors && st == CZK_OK; i++)
      st = czk_post_vanilla_parse(info, bin + i * vs, vs, &sec[i], "sector", err, sizeof err);
    double t1 = czk__now_s();
    if (st == CZK_OK) st = czk_post_vanilla_check_all(info, sec, sectors, rnd, pos, NULL, err, sizeof err);
    double t2 = czk__now_s();
    if (st == CZK_OK) st = czk_post_public_inputs(info, ids, (const uint8_t(*)[32])cr, sectors, rnd, 0, pub, np);
    double t3 = czk__now_s();
    czk_groth16_assignment as;
    memset(&as, 0, sizeof as);
    if (st == CZK_OK) {
      as.w.n_inputs = (uint32_t)ni, as.w.n_aux = (uint32_t)na;
      as.w.w = czk_alloc_big((ni + na) * sizeof(czk_fr));
      as.a = czk_alloc_big(dom * sizeof(czk_fr)), as.b = czk_alloc_big(dom * sizeof(czk_fr));
      as.c = czk_alloc_big(dom * sizeof(czk_fr));
      as.n_domain = dom, as.n_rows = rows;
      st = as.w.w && as.a && as.b && as.c ? CZK_OK : CZK_ERR_NOMEM;
      czk_post_instance inst = {.info = info, .sectors = sec, .n_sectors = sectors};
      double tw0 = czk__now_s();
      if (st == CZK_OK) st = czk_post_witness(&inst, pool, wo);
      tw[k] = czk__now_s() - tw0; /* not part of the synthesis stage */
      if (st == CZK_OK) st = czk_post_evaluate(&inst, pool, as.w.w, as.a, as.b, as.c);
      if (st == CZK_OK && memcmp(wo, as.w.w, (ni + na) * sizeof(czk_fr)) != 0) st = CZK_ERR_INTERNAL;
      if (st == CZK_OK && memcmp(as.w.w + 1, pub, np * sizeof(czk_fr)) != 0) st = CZK_ERR_VERIFY_FAILED;
      if (st == CZK_OK && r == 0) {
        double f[3];
        czk_witness_fractions(as.w.w, ni + na, f);
        printf("  witness: %.1f%% zero, %.1f%% one, %.1f%% other\n", 100 * f[0], 100 * f[1], 100 * f[2]);
      }
    }
    double t4 = czk__now_s(), t5 = t4, t6 = t4;
    char note[160] = "";
    if (st == CZK_OK && be) {
      czk_groth16_job *job;
      czk_groth16_proof proof;
      czk_groth16_timings tim;
      memset(&tim, 0, sizeof tim);
      st = czk_groth16_prove_start_ex(&job, be, key, dkey, &as, pool, &lo); /* consumes the assignment */
      if (st == CZK_OK) st = czk_groth16_prove_finish(job, &proof, &tim);
      t5 = czk__now_s();
      czk__bench_dev_note(note, sizeof note, be, &tim);
      tg[k] = tim.device;
      if (st == CZK_OK) czk__bench_ab_record(&ab, r, t5 - t4, &tim);
      if (st == CZK_OK && (params || setup)) st = czk_groth16_verify(czk_groth16_key_vk(key), &proof, pub, np);
      t6 = czk__now_s();
    } else {
      czk_groth16_assignment_free(&as);
    }
    for (uint64_t i = 0; i < sectors; i++) czk_post_sector_free(&sec[i]);
    if (st != CZK_OK) {
      fprintf(stderr, "czk bench post: rep %u: %s %s\n", r, czk_status_str(st), err);
      rc = 1;
      break;
    }
    tp[k] = t1 - t0, tc[k] = t2 - t1, ti[k] = t3 - t2, ts[k] = t4 - t3 - tw[k], tv[k] = t5 - t4, tt[k] = t5 - t0 - tw[k];
    printf("  %s parse %7.2f | check %8.2f | inputs %6.2f | synthesis %9.1f | prove %8.1f (device %7.1f) | "
           "verify %6.1f | total %9.1f ms\n",
           czk__bench_ab_label(&ab, r), 1e3 * tp[k], 1e3 * tc[k], 1e3 * ti[k], 1e3 * ts[k], 1e3 * tv[k], 1e3 * tg[k],
           1e3 * (t6 - t5), 1e3 * tt[k]);
    printf("          witness only %9.1f ms (czk_post_witness; w equals the evaluator's)\n", 1e3 * tw[k]);
    if (be) printf("          prove: %s\n", note);
    fflush(stdout);
  }
  if (rc == 0) {
    double cons = (double)(rows - ni);
    double syn = median(ts + 1, reps);
    printf("%s %s on %s: median of %u: parse %.2f ms, check %.2f ms, inputs %.2f ms, synthesis %.1f ms (%.1f M "
           "constraints/s)%s",
           info->name, info->size_name, be ? czk_backend_name(be) : "(no prove)", reps, 1e3 * median(tp + 1, reps),
           1e3 * median(tc + 1, reps), 1e3 * median(ti + 1, reps), 1e3 * syn, cons / syn / 1e6, be ? ", " : "\n");
    printf("witness only (czk_post_witness, w equal to the evaluator's): %.1f ms (%.1f M constraints/s)\n",
           1e3 * median(tw + 1, reps), cons / median(tw + 1, reps) / 1e6);
    if (be)
      printf("prove %.1f ms (device busy %.1f ms), parse..prove %.1f ms%s\n", 1e3 * median(tv + 1, reps),
             1e3 * median(tg + 1, reps), 1e3 * median(tt + 1, reps), params || setup ? ", every proof verified" : "");
  }
  if (rc == 0) czk__bench_ab_table(&ab);
  czk__bench_ab_end(&ab, &lo);
  free(tp), free(tc), free(ti), free(ts), free(tv), free(tg), free(tt), free(tw), free(wo);
  czk_groth16_dkey_free(dkey);
  czk_groth16_key_free(key);
  czk_groth16_key_mem_free(&km);
  if (pk) czk_groth16_pk_close(pk);
  czk_r1cs_free(outline);
  czk_backend_free(be);
  free(p1), free(p2), free(pub), free(pos), free(bin), free(sec), free(ids), free(cr);
  return rc;
}
