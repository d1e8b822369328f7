/* bench_memory.c: `czk bench memory`: the engine's per-partition memory reservation (kind->shape) and key bytes
 * (kind->key_bytes) against measured resident memory, for the real kinds as the engine runs them on the CPU.
 *
 * Method (Linux): every measurement runs in a forked child, so each starts from a fresh heap (nothing freed by an
 * earlier size is reused) and the parent stays small. In the child, through the kind's own callbacks:
 *   1. the pool is started (its threads spawned) and RSS read (VmRSS in /proc/self/status);
 *   2. kind->key_load: key measured = VmRSS after - VmRSS before (decoded queries + NTT domain; the .params mapping is
 *      released by the prepare);
 *   3. a warm-up partition is synthesized and freed, so the per-kind state that the first partition loads once (the
 *      memory-mapped shape, the pool's per-thread stacks) is resident; malloc_trim(0) then returns the freed pages;
 *   4. base = VmRSS; the peak RSS counter is reset (`5` written to /proc/self/clear_refs, Linux >= 4.0; VmHWM becomes
 *      the current RSS); one partition's lifecycle runs: synthesize, prove_start, prove_finish, verify, synth_free;
 *      peak = VmHWM - base, also read after synthesize (synth peak) and after prove_start.
 * RSS counts pages actually touched (heap and mmap'd chunks), which is what the budget must cover; malloc's rounding
 * and retained free chunks are included, as they are in a daemon. The table compares peak with the reservation
 * total (abc + witness + scratch) and key measured with key declared. Key files (synthetic-k<k>.params/.vk/.r1cs) live
 * in --keys DIR (created by the kind's own setup on first use, in a separate child, and kept for later runs).
 * Never asserts on sizes; exits non-zero only when a step fails. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "circuits/synthetic.h"
#include "bench/bench.h"
#include "bench/bench_util.h"
#include "core/units.h"
#include "czk/groth16.h"
#include "czk/kinds.h"
#include "czk/pool.h"

typedef struct mem_result {
  int ok;
  char err[120];
  uint64_t key_declared, key_reported, key_measured;
  uint64_t base, synth_peak, start_peak, peak, after; /* bytes over base (base itself absolute) */
  czk_engine_shape shape;
  unsigned threads;
} mem_result;

static void touch_fn(void *ctx, size_t b, size_t e) {
  (void)ctx;
  (void)b;
  (void)e;
}

#define FAIL(...)                                          \
  do {                                                     \
    snprintf(r->err, sizeof r->err, __VA_ARGS__);          \
    return;                                                \
  } while (0)

/* One partition's lifecycle of `kind` on job `input`; the measured partition is the last one. */
static void measure_kind(czk_engine_kind *kind, czk_pool *pool, const uint8_t *input, size_t len, mem_result *r) {
  czk_pool_parallel_for(pool, 1024, 1, touch_fn, NULL); /* spawn the workers */
  r->threads = czk_pool_threads(pool);
  r->shape = kind->shape;
  r->key_declared = kind->key_bytes;
  uint64_t rss0 = czk__bench_proc_bytes("VmRSS");
  void *key = NULL;
  czk_key_tier tier;
  czk_status st = kind->key_load(kind->user, kind->key_id, CZK_KEY_TIER_MAPPED, &key, &tier, &r->key_reported);
  if (st != CZK_OK) FAIL("key_load: %s", czk_status_str(st));
  r->key_measured = czk__bench_proc_bytes("VmRSS") - rss0;
  void *parsed = NULL;
  uint32_t nparts = 0;
  st = kind->parse(kind->user, input, len, &parsed, &nparts);
  if (st != CZK_OK) FAIL("parse: %s", czk_status_str(st));
  uint32_t part = nparts - 1;
  void *synth = NULL;
  st = kind->synthesize(kind->user, parsed, 0, pool, &synth); /* warm-up: loads the shape */
  if (st != CZK_OK) FAIL("warm-up synthesize: %s", czk_status_str(st));
  kind->synth_free(kind->user, synth);
  synth = NULL;
  malloc_trim(0);
  r->base = czk__bench_proc_bytes("VmRSS");
  if (r->base == 0 || czk__bench_reset_peak() != 0) FAIL("cannot read /proc/self/status or reset VmHWM (/proc/self/clear_refs)");
  st = kind->synthesize(kind->user, parsed, part, pool, &synth);
  if (st != CZK_OK) FAIL("synthesize: %s", czk_status_str(st));
  r->synth_peak = czk__bench_proc_bytes("VmHWM") - r->base;
  void *pending = NULL;
  czk_engine_prove_report rep;
  memset(&rep, 0, sizeof rep);
  st = kind->prove_start(kind->user, NULL, key, synth, &pending, &rep);
  if (st != CZK_OK) FAIL("prove_start: %s", czk_status_str(st));
  r->start_peak = czk__bench_proc_bytes("VmHWM") - r->base;
  uint8_t proof[CZK_GROTH16_PROOF_BYTES];
  st = kind->prove_finish(kind->user, NULL, pending, proof, &rep);
  if (st != CZK_OK) FAIL("prove_finish: %s", czk_status_str(st));
  if (kind->verify) st = kind->verify(kind->user, key, parsed, part, proof);
  if (st != CZK_OK) FAIL("verify: %s", czk_status_str(st));
  kind->synth_free(kind->user, synth);
  r->peak = czk__bench_proc_bytes("VmHWM") - r->base;
  r->after = czk__bench_proc_bytes("VmRSS");
  r->after = r->after > r->base ? r->after - r->base : 0;
  kind->parsed_free(kind->user, parsed);
  kind->key_free(kind->user, key);
  r->ok = 1;
}

typedef struct mem_case {
  unsigned k;             /* synthetic size, 0 for circom */
  const char *keys_dir;   /* synthetic */
  const char *zkey, *wtns; /* circom */
  unsigned threads;       /* 0 = default pool */
  bool setup_only;
} mem_case;

static void run_case(const mem_case *c, mem_result *r) {
  memset(r, 0, sizeof *r);
  czk_pool *pool = NULL;
  if (c->threads && czk_pool_new(&pool, c->threads) != CZK_OK) FAIL("cannot start a pool of %u threads", c->threads);
  czk_engine_kind kind;
  czk_status st;
  uint8_t *input = NULL;
  size_t len = 0;
  char spec[64];
  if (c->k) {
    st = czk_kind_synthetic_new(&kind, c->k, c->keys_dir, pool);
    snprintf(spec, sizeof spec, "partitions=2 seed=7");
    input = (uint8_t *)spec;
    len = strlen(spec);
  } else {
    st = czk_kind_circom_new(&kind, "bench", c->zkey, pool);
    FILE *f = st == CZK_OK ? fopen(c->wtns, "rb") : NULL;
    if (st == CZK_OK && !f) st = CZK_ERR_IO;
    if (f) {
      fseek(f, 0, SEEK_END);
      long n = ftell(f);
      fseek(f, 0, SEEK_SET);
      input = n > 0 ? malloc((size_t)n) : NULL;
      if (!input || fread(input, 1, (size_t)n, f) != (size_t)n) st = CZK_ERR_IO;
      len = (size_t)(n > 0 ? n : 0);
      fclose(f);
    }
  }
  if (st != CZK_OK) {
    snprintf(r->err, sizeof r->err, "kind: %s", czk_status_str(st));
  } else if (c->setup_only) {
    void *key = NULL;
    czk_key_tier tier;
    uint64_t bytes;
    st = kind.key_load(kind.user, kind.key_id, CZK_KEY_TIER_MAPPED, &key, &tier, &bytes);
    if (st == CZK_OK) kind.key_free(kind.user, key), r->ok = 1;
    else snprintf(r->err, sizeof r->err, "key setup: %s", czk_status_str(st));
  } else {
    measure_kind(&kind, pool, input, len, r);
  }
  if (!c->k) free(input);
  czk_kind_free(&kind);
  czk_pool_free(pool);
}

/* Run a case in a forked child; the result comes back through a pipe. */
static int run_forked(const mem_case *c, mem_result *r) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    close(fd[0]);
    mem_result res;
    run_case(c, &res);
    ssize_t w = write(fd[1], &res, sizeof res);
    _exit(w == (ssize_t)sizeof res ? 0 : 1);
  }
  close(fd[1]);
  memset(r, 0, sizeof *r);
  size_t got = 0;
  while (got < sizeof *r) {
    ssize_t n = read(fd[0], (char *)r + got, sizeof *r - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd[0]);
  int status;
  waitpid(pid, &status, 0);
  if (got != sizeof *r) {
    snprintf(r->err, sizeof r->err, "child died (status %d)", status);
    r->ok = 0;
  }
  return r->ok ? 0 : -1;
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

static void print_header(void) {
  printf("%-10s %3s %9s %9s %9s %9s | %9s %9s %9s %6s | %9s %9s %6s\n", "case", "thr", "abc", "witness", "scratch",
         "total", "synth_pk", "peak", "after", "ratio", "key_decl", "key_meas", "ratio");
}

static void print_row(const char *name, const mem_result *r) {
  const czk_engine_shape *s = &r->shape;
  uint64_t total = s->abc_bytes + s->witness_bytes + s->scratch_bytes;
  printf("%-10s %3u %9.2f %9.2f %9.2f %9.2f | %9.2f %9.2f %9.2f %6.2f | %9.2f %9.2f %6.2f\n", name, r->threads,
         mib(s->abc_bytes), mib(s->witness_bytes), mib(s->scratch_bytes), mib(total), mib(r->synth_peak), mib(r->peak),
         mib(r->after), r->peak ? (double)total / (double)r->peak : 0.0, mib(r->key_declared), mib(r->key_measured),
         r->key_measured ? (double)r->key_declared / (double)r->key_measured : 0.0);
  fflush(stdout);
}

int czk_bench_memory(int argc, char **argv) {
  unsigned kmin = 10, kmax = 16, threads = 0;
  const char *keys = NULL, *zkey = NULL, *wtns = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      printf("usage: czk bench memory [--min k] [--max k] [--threads n] [--keys DIR] [--circom ZKEY WTNS]\n"
             "  per synthetic size 2^min .. 2^max (default 10..16): the engine kind's reservation of one partition\n"
             "  (abc/witness/scratch/total, MiB) against the measured peak RSS over one partition's lifecycle\n"
             "  (synthesize, prove_start, prove_finish, verify; each size in a fresh forked child, peak = VmHWM over\n"
             "  the RSS before synthesis), and the key's declared bytes against its measured RSS. ratio = declared /\n"
             "  measured. --threads: pool size (default: the default pool, $CZK_THREADS). --keys: where the synthetic\n"
             "  keys are kept (default $TMPDIR/czk-bench-memory-keys; generated by a real setup when missing).\n"
             "  --circom also measures the circom kind on a snarkjs zkey and witness (--min 0 skips synthetic).\n"
             "  Linux only (/proc/self/status, /proc/self/clear_refs).\n");
      return 0;
    }
    if (strcmp(argv[i], "--circom") == 0) {
      if (i + 2 >= argc) {
        fprintf(stderr, "czk bench memory: --circom needs ZKEY and WTNS\n");
        return 2;
      }
      zkey = argv[++i];
      wtns = argv[++i];
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "czk bench memory: %s needs a value\n", argv[i]);
      return 2;
    }
    if (strcmp(argv[i], "--min") == 0) kmin = (unsigned)atoi(argv[++i]);
    else if (strcmp(argv[i], "--max") == 0) kmax = (unsigned)atoi(argv[++i]);
    else if (strcmp(argv[i], "--threads") == 0) threads = (unsigned)atoi(argv[++i]);
    else if (strcmp(argv[i], "--keys") == 0) keys = argv[++i];
    else {
      fprintf(stderr, "czk bench memory: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  bool synthetic = kmin != 0;
  if (synthetic && (kmin < CZK_SYNTHETIC_MIN_LOG || kmax > CZK_SYNTHETIC_MAX_LOG || kmin > kmax)) {
    fprintf(stderr, "czk bench memory: need %u <= min <= max <= %u\n", CZK_SYNTHETIC_MIN_LOG, CZK_SYNTHETIC_MAX_LOG);
    return 2;
  }
  if (threads > 1024) {
    fprintf(stderr, "czk bench memory: --threads must be at most 1024\n");
    return 2;
  }
  char keys_buf[1024];
  if (!keys) {
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(keys_buf, sizeof keys_buf, "%s/czk-bench-memory-keys", tmp);
    keys = keys_buf;
  }
  int rc = 0;
  print_header();
  for (unsigned k = kmin; synthetic && k <= kmax; k++) {
    mem_case c = {.k = k, .keys_dir = keys, .threads = threads, .setup_only = true};
    mem_result r;
    if (run_forked(&c, &r) != 0) {
      fprintf(stderr, "czk bench memory: 2^%u: %s\n", k, r.err);
      rc = 1;
      continue;
    }
    c.setup_only = false;
    if (run_forked(&c, &r) != 0) {
      fprintf(stderr, "czk bench memory: 2^%u: %s\n", k, r.err);
      rc = 1;
      continue;
    }
    char name[32];
    snprintf(name, sizeof name, "syn-k%u", k);
    print_row(name, &r);
  }
  if (zkey) {
    mem_case c = {.zkey = zkey, .wtns = wtns, .threads = threads};
    mem_result r;
    if (run_forked(&c, &r) != 0) {
      fprintf(stderr, "czk bench memory: circom %s: %s\n", zkey, r.err);
      rc = 1;
    } else {
      print_row("circom", &r);
    }
  }
  printf("MiB; synth_pk = peak RSS over base after synthesize; peak = over the whole lifecycle; after = RSS left;\n"
         "ratio = reservation total / peak, key_decl / key_meas (>= 1 means the budget covers it)\n");
  return rc;
}
