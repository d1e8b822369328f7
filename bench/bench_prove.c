/* bench_prove.c: `czk bench prove`: per synthetic size 2^k, one setup (not timed in the table) then `reps` proofs,
 * printing the median time of each stage (witness, a/b/c evaluation, H, the five MSMs, finish), the total and the
 * resulting proofs per second; every proof is verified (outside the timing). With --circom ZKEY WTNS it also times
 * that circom case (czk_snarkjs_bench_case: every proof verified) and, with --snarkjs, `snarkjs groth16 prove` on the
 * same files in the same run (node_modules/.bin/snarkjs; its proof is checked by `snarkjs groth16 verify` against
 * the zkey's verification key). Never asserts on time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "circuits/synthetic.h"
#include "bench/bench.h"
#include "bench/bench_util.h"
#include "core/clock.h"
#include "core/units.h"
#include "czk/snarkjs.h"
#include "czk/groth16.h"

#define NCOL 11
static const char *k_cols[NCOL] = {"witness", "eval", "H", "msm_h", "msm_l", "msm_a", "msm_b1", "msm_b2", "finish",
                                   "total", "verify"};

static int bench_size(unsigned k, int reps, const char *dir) {
  char params[512], vkp[512];
  snprintf(params, sizeof params, "%s/czk_bench_%u_%d.params", dir, k, (int)getpid());
  snprintf(vkp, sizeof vkp, "%s/czk_bench_%u_%d.vk", dir, k, (int)getpid());
  czk_r1cs *shape = NULL;
  czk_groth16_pk *pk = NULL;
  czk_status st = czk_synthetic_shape(&shape, k);
  double ts = czk__now_s();
  if (st == CZK_OK) st = czk_groth16_setup(shape, params, vkp, NULL);
  double setup_s = czk__now_s() - ts;
  if (st == CZK_OK) st = czk_groth16_pk_open(&pk, params);
  if (st == CZK_OK) st = czk_groth16_pk_prepare(pk, NULL);
  czk_groth16_key *key = NULL;
  czk_backend *cpu = NULL;
  if (st == CZK_OK) st = czk_groth16_key_from_pk(&key, pk, shape, NULL);
  if (st == CZK_OK) st = czk_backend_open(&cpu, "cpu", NULL);
  double *t = calloc((size_t)reps * NCOL, sizeof *t);
  if (!t && st == CZK_OK) st = CZK_ERR_NOMEM;
  for (int r = 0; r < reps && st == CZK_OK; r++) {
    double *row = t + (size_t)r * NCOL, t0 = czk__now_s();
    czk_witness w;
    st = czk_synthetic_witness(&w, k, 1000 + (uint64_t)r);
    if (st != CZK_OK) break;
    size_t np;
    const czk_fr *xp = czk_groth16_public_inputs(&w, &np);
    czk_fr pub[16];
    memcpy(pub, xp, np * sizeof *pub);
    double t1 = czk__now_s();
    czk_groth16_assignment as;
    st = czk_groth16_synthesize(&as, shape, &w, NULL);
    double t2 = czk__now_s();
    czk_groth16_job *job = NULL;
    if (st == CZK_OK) st = czk_groth16_prove_start(&job, cpu, key, NULL, &as, NULL);
    czk_groth16_proof proof;
    czk_groth16_timings tm;
    if (st == CZK_OK) st = czk_groth16_prove_finish(job, &proof, &tm);
    double t3 = czk__now_s();
    if (st != CZK_OK) break;
    st = czk_groth16_verify(czk_groth16_pk_vk(pk), &proof, pub, np);
    double t4 = czk__now_s();
    double v[NCOL] = {t1 - t0, t2 - t1, tm.h, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b_g1, tm.msm_b_g2, tm.finish,
                      t3 - t0, t4 - t3};
    memcpy(row, v, sizeof v);
  }
  if (st == CZK_OK) {
    printf("%2u %9u %8.2f", k, shape->n_constraints, setup_s);
    double total = 0;
    for (int c = 0; c < NCOL; c++) {
      double col[1024];
      int n = reps < 1024 ? reps : 1024;
      for (int r = 0; r < n; r++) col[r] = t[(size_t)r * NCOL + c];
      qsort(col, (size_t)n, sizeof *col, czk__bench_cmp_double);
      printf(" %9.4f", col[n / 2]);
      if (c == NCOL - 2) total = col[n / 2];
    }
    printf(" %9.2f\n", total > 0 ? 1.0 / total : 0.0);
    fflush(stdout);
  } else {
    fprintf(stderr, "czk bench prove: 2^%u: %s\n", k, czk_status_str(st));
  }
  free(t);
  czk_groth16_key_free(key);
  czk_backend_free(cpu);
  czk_groth16_pk_close(pk);
  czk_r1cs_free(shape);
  remove(params);
  remove(vkp);
  return st == CZK_OK ? 0 : 1;
}

/* Wall seconds of one shell command; -1 when it fails. */
static double time_cmd(const char *cmd) {
  double t0 = czk__now_s();
  int rc = system(cmd);
  double t = czk__now_s() - t0;
  return rc == 0 ? t : -1;
}

static int bench_circom(const char *zkey, const char *wtns, int reps, bool with_snarkjs, const char *dir) {
  czk_snarkjs_bench_result r;
  czk_status st = czk_snarkjs_bench_case(zkey, wtns, (unsigned)reps, NULL, &r);
  if (st != CZK_OK) {
    fprintf(stderr, "czk bench prove: circom case %s: %s\n", zkey, czk_status_str(st));
    return 1;
  }
  printf("\ncircom case %s: %u wires, %u constraints, %u public, domain 2^%u\n", zkey, r.info.n_vars,
         r.info.n_constraints, r.info.n_public, r.info.log_domain);
  printf("  czk (in process, key open+prepare %.3f s once): best %.3f s, mean %.3f s over %d proofs, all verified\n",
         r.open_s, r.best_s, r.mean_s, reps);
  printf("    stages of the best: eval %.3f  H %.3f  msm_a %.3f  msm_b1 %.3f  msm_b2 %.3f  msm_c+h %.3f  finish %.3f\n",
         r.best.eval, r.best.h, r.best.msm_a, r.best.msm_b1, r.best.msm_b2, r.best.msm_c, r.best.finish);
  if (!with_snarkjs) return 0;
  if (access("node_modules/.bin/snarkjs", X_OK) != 0) {
    fprintf(stderr, "czk bench prove: --snarkjs needs node_modules/.bin/snarkjs in the current directory (npm ci)\n");
    return 1;
  }
  char proof[600], pub[600], vk[600], cmd[4096];
  snprintf(proof, sizeof proof, "%s/czk-bench-snarkjs-%d-proof.json", dir, (int)getpid());
  snprintf(pub, sizeof pub, "%s/czk-bench-snarkjs-%d-public.json", dir, (int)getpid());
  snprintf(vk, sizeof vk, "%s/czk-bench-snarkjs-%d-vk.json", dir, (int)getpid());
  snprintf(cmd, sizeof cmd, "node_modules/.bin/snarkjs zkey export verificationkey '%s' '%s' >/dev/null", zkey, vk);
  if (time_cmd(cmd) < 0) return 1;
  double best = -1;
  for (int i = 0; i < reps; i++) {
    snprintf(cmd, sizeof cmd, "node_modules/.bin/snarkjs groth16 prove '%s' '%s' '%s' '%s'", zkey, wtns, proof, pub);
    double t = time_cmd(cmd);
    if (t < 0) return 1;
    if (best < 0 || t < best) best = t;
  }
  snprintf(cmd, sizeof cmd, "node_modules/.bin/snarkjs groth16 verify '%s' '%s' '%s' >/dev/null", vk, pub, proof);
  bool ok = time_cmd(cmd) >= 0;
  printf("  snarkjs groth16 prove (process incl. key load): best %.3f s over %d runs, proof %s\n", best, reps,
         ok ? "verified by snarkjs" : "NOT VERIFIED");
  printf("  czk speed-up over snarkjs: %.1fx (czk in-process proof vs snarkjs command; czk's one-off key load is "
         "%.3f s)\n", best / r.best_s, r.open_s);
  unlink(proof);
  unlink(pub);
  unlink(vk);
  return ok ? 0 : 1;
}

int czk_bench_prove(int argc, char **argv) {
  const char *circom_zkey = NULL, *circom_wtns = NULL;
  bool with_snarkjs = false;
  unsigned kmin = 12, kmax = 16;
  int reps = 3;
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  if (!czk__wants_help(argc, argv)) {
    int gpu_rc = czk__bench_backend_dispatch(&argc, argv, "prove");
    if (gpu_rc >= 0) return gpu_rc;
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      printf("usage: czk bench prove [--min k] [--max k] [--reps n] [--dir tmpdir] [--circom ZKEY WTNS [--snarkjs]]\n"
             "  synthetic circuits 2^min .. 2^max (default 12..16, at most %u); median seconds per stage over n\n"
             "  proofs (default 3); keys are written to and removed from tmpdir. Threads: $CZK_THREADS.\n"
             "  --circom also times a circom case (snarkjs zkey + witness); --snarkjs times `snarkjs groth16 prove`\n"
             "  on it in the same run (run from the repository root after npm ci). --min 0 skips the synthetic sizes.\n",
             CZK_SYNTHETIC_MAX_LOG);
      printf("usage: czk bench prove --backend cuda[:N] [--min k] [--max k] [--reps n]\n"
             "  the whole prove on a GPU: czk bench gpuprove --logs min..max (default 20,22,24), stage by stage.\n");
      return 0;
    }
    if (strcmp(argv[i], "--snarkjs") == 0) {
      with_snarkjs = true;
      continue;
    }
    if (strcmp(argv[i], "--circom") == 0) {
      if (i + 2 >= argc) {
        fprintf(stderr, "czk bench prove: --circom needs ZKEY and WTNS\n");
        return 2;
      }
      circom_zkey = argv[++i];
      circom_wtns = argv[++i];
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "czk bench prove: %s needs a value\n", argv[i]);
      return 2;
    }
    if (strcmp(argv[i], "--min") == 0) kmin = (unsigned)atoi(argv[++i]);
    else if (strcmp(argv[i], "--max") == 0) kmax = (unsigned)atoi(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--dir") == 0) dir = argv[++i];
    else {
      fprintf(stderr, "czk bench prove: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  bool synthetic = kmin != 0;
  if (synthetic && (kmin < CZK_SYNTHETIC_MIN_LOG || kmax > CZK_SYNTHETIC_MAX_LOG || kmin > kmax || reps < 1 || reps > 1024)) {
    fprintf(stderr, "czk bench prove: need %u <= min <= max <= %u and 1 <= reps <= 1024\n", CZK_SYNTHETIC_MIN_LOG,
            CZK_SYNTHETIC_MAX_LOG);
    return 2;
  }
  int rc = 0;
  if (synthetic) {
    printf(" k constraints  setup_s");
    for (int c = 0; c < NCOL; c++) printf(" %9s", k_cols[c]);
    printf(" %9s\n", "proofs/s");
    for (unsigned k = kmin; k <= kmax; k++) rc |= bench_size(k, reps, dir);
  }
  if (circom_zkey) rc |= bench_circom(circom_zkey, circom_wtns, reps, with_snarkjs, dir);
  return rc;
}
