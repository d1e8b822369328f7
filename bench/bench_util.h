/* bench_util.h: helpers shared by the `czk bench` benchmarks (bench_msm, bench_ntt, bench_gpuprove, bench_prove,
 * bench_field, bench_curve, bench_porep, bench_post, bench_snap): clocks, a seeded splitmix64 generator, random Fr
 * vectors and random distinct G1/G2 points, a sort comparator for medians, the calibrated timing loop of the
 * per-operation benchmarks, and the device memory options (limit, reserve, tier, lanes) of the proving benchmarks with
 * the key's plan + copy.
 * Invariants: everything is deterministic for a given seed (the same seed gives the same values as the copies these
 * helpers replaced); nothing here asserts on time. Internal to the czk executable. */
#ifndef CZK_CLI_BENCH_UTIL_H
#define CZK_CLI_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "czk/curve.h"
#include "czk/field.h"

/* Time of `clk` (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID) in ns / ms (monotonic seconds:
 * czk__now_s, core/clock.h). */
double czk__bench_now_ns(clockid_t clk);
double czk__bench_now_ms(clockid_t clk);

/* splitmix64: advances *state by the golden-ratio increment and returns the mixed value. */
uint64_t czk__bench_splitmix(uint64_t *state);
/* v[0..n): uniform Fr (Montgomery form), each from 64 random bytes reduced (8 splitmix words). */
void czk__bench_rand_fr(czk_fr *v, size_t n, uint64_t *seed);
/* P[i] = a*G + i*(b*G) for random a, b (two czk__bench_rand_fr draws), batch-normalized: n distinct points unless
 * b*G is of tiny order (it is not: the group has prime order). CZK_ERR_NOMEM or the normalization's status. */
czk_status czk__bench_points_g1(czk_g1_affine *P, size_t n, uint64_t *seed);
czk_status czk__bench_points_g2(czk_g2_affine *P, size_t n, uint64_t *seed);

/* A random Groth16 key of an outline's full size (domain dom): distinct random points for every query (one G1 array
 * shared by h, l, a and b_g1, one G2 array for b_g2; vk from the same points), generated in parallel on the pool. The
 * proofs it makes verify against nothing: it measures the device work of a circuit whose real key is not at hand.
 * *g1 / *g2: the point arrays the key borrows (free them after the key). */
typedef struct czk_groth16_key czk_groth16_key;
typedef struct czk_r1cs czk_r1cs;
typedef struct czk_pool czk_pool;
czk_status czk__bench_random_key(czk_groth16_key **key, const czk_r1cs *outline, uint64_t dom, czk_pool *pool,
                                 czk_g1_affine **g1, czk_g2_affine **g2);

/* The device tier of a bench's prove, as the daemon's memory plan picks it (czk_engine_plan_tier): the device's
 * memory (or limit, when smaller and non-zero) less reserve (UINT64_MAX: the daemon's default), `lanes` lanes wanted at once; force: NULL/"auto", or
 * "resident" / "partial" / "streamed" with lanes "full" / "compact" (lanes_force NULL/"auto": the plan's). Out: the
 * query mask to copy (0: streamed), the lane shape, and one line printed with the choice and its sizes. */
typedef struct czk_backend czk_backend;
typedef struct czk_groth16_lane_opts czk_groth16_lane_opts;
czk_status czk__bench_tier(czk_backend *be, const czk_groth16_key *key, bool witness_only, uint64_t limit,
                           uint64_t reserve, unsigned lanes, const char *force, const char *lanes_force,
                           unsigned *mask, czk_groth16_lane_opts *o);
/* Makes the copy of `mask` for a bench (pinning the host key first when something is streamed); *dkey NULL when
 * mask is 0. */
typedef struct czk_groth16_dkey czk_groth16_dkey;
typedef struct czk_groth16_timings czk_groth16_timings;
czk_status czk__bench_copy(czk_backend *be, czk_groth16_key *key, unsigned mask, czk_groth16_dkey **dkey);

/* The device-memory options of `czk bench porep|post|snap|gpuprove` (same meaning and defaults in each):
 *   --gpu-memory-limit S    use at most S of the device (a smaller card emulated); 0 / absent: the whole device
 *   --gpu-memory-reserve S  left to others, as the daemon's (default: 2GiB, at most 1/16 of the card or limit)
 *   --tier auto|resident|partial|streamed   the key's device copy (auto: the daemon's plan picks)
 *   --lanes auto|full|compact|lean          the lane shape (auto: the plan's)
 *   --streamed              (where `streamed` is true) an alias of --tier streamed
 * On a host-memory backend (the CPU) they are accepted and change nothing, except that a streamed tier proves from
 * the host key in place (no copy). */
typedef struct czk__bench_dev_opts {
  uint64_t limit;    /* 0: the whole device */
  uint64_t reserve;  /* UINT64_MAX: the daemon's default */
  const char *tier;  /* NULL or "auto": the plan's */
  const char *lanes; /* NULL or "auto": the plan's */
  unsigned chunk_log; /* 0: the daemon's chunks for compact / lean lanes */
} czk__bench_dev_opts;
/* {0, UINT64_MAX, NULL, NULL, 0}. */
void czk__bench_dev_opts_init(czk__bench_dev_opts *o);
/* One of the options above at argv[*i], for `czk bench <name>`: 0 when argv[*i] is none of them (nothing consumed);
 * 1 when it was taken (*i advanced past its value); 2 after printing "czk bench <name>: ..." to stderr for a missing
 * or bad value (not a size, an unknown tier or lane shape, a --chunk-log outside 10..28). `streamed`: whether --streamed is one of them. */
int czk__bench_dev_opt(czk__bench_dev_opts *o, int argc, char **argv, int *i, const char *name, bool streamed);
/* The usage lines of these options (for a bench's usage text), each indented by two spaces. */
void czk__bench_dev_usage(FILE *f, bool streamed);

/* A bench's key on its device as the options say: the plan's (or forced) tier and lane shape (czk__bench_tier with
 * the daemon's 2 lanes, its line printed), the device memory watch started (czk_backend_mem_watch; the peak reset),
 * the copy made (czk__bench_copy) and one line printed: tier, GiB copied, seconds, lane shape. Out: the copy
 * (NULL: streamed) and the lane options to prove with (czk_groth16_prove_start_ex). On a failure *dkey is NULL. */
czk_status czk__bench_dev_setup(czk_backend *be, czk_groth16_key *key, bool witness_only,
                                const czk__bench_dev_opts *o, unsigned *mask, czk_groth16_lane_opts *lo,
                                czk_groth16_dkey **dkey);
/* --ab SPEC (czk bench porep|post, with --backend): an A/B run in one process, same key and card. R proves as the
 * options say (A) and R with SPEC (B), in the order A B B A A B B A ... after one warm-up (A), the lanes made again
 * (czk_groth16_lanes_trim) at each switch so that settings read where lanes are made take effect. SPEC: chunk-log=N
 * (compact or lean lanes' MSM chunks, 10..28) or NAME=VALUE, an environment variable (NAME of A-Z, 0-9, _; restored
 * after the run). Per rep r = 0 .. czk__bench_ab_proves(): czk__bench_ab_before, the prove, czk__bench_ab_record. */
typedef struct czk__bench_ab {
  bool on;
  unsigned chunk_log;      /* chunk-log=N, else 0 */
  char name[64], val[192]; /* NAME=VALUE (or "chunk-log", N) */
  char *orig;              /* NAME's value before the run (NULL: unset) */
  unsigned reps, chunk_a, n[2];
  int side; /* the side in effect: 0 A, 1 B */
  czk_groth16_timings *t[2];
  double *wall[2];
} czk__bench_ab;
/* Parses SPEC into *ab (zeroed first): 0, or 2 after printing "czk bench <bench>: --ab ..." to stderr. */
int czk__bench_ab_parse(czk__bench_ab *ab, const char *spec, const char *bench);
/* Before the first prove: the A side's chunks (lo), the per-side tables for `reps` proves each, NAME's value saved.
 * CZK_ERR_INVALID_ARG (printed) for chunk-log=N with full lanes. A run without --ab: nothing (CZK_OK). */
czk_status czk__bench_ab_begin(czk__bench_ab *ab, unsigned reps, const czk_groth16_lane_opts *lo, const char *bench);
/* The proves after the warm-up: 2 * reps with --ab, else reps. */
unsigned czk__bench_ab_proves(const czk__bench_ab *ab, unsigned reps);
/* Before prove r (0: the warm-up), outside its timing: switches to r's side when it is not in effect (lanes trimmed,
 * env or lo set, the new side's lane made ahead). */
void czk__bench_ab_before(czk__bench_ab *ab, unsigned r, const czk_groth16_key *key, const czk_groth16_dkey *dkey,
                          czk_backend *be, czk_groth16_lane_opts *lo);
/* Where prove r's per-rep figures go in a bench's arrays of 2 * reps + 1: r itself without --ab; else 0 for the
 * warm-up, A's at 1 .. reps (so that the bench's own medians over 1 .. reps are A's), B's at reps + 1 .. 2 * reps. */
unsigned czk__bench_ab_slot(const czk__bench_ab *ab, unsigned r);
/* The rep's label: "warm-up", "rep    ", "rep  A ", "rep  B ". */
const char *czk__bench_ab_label(const czk__bench_ab *ab, unsigned r);
/* After prove r succeeded: its wall seconds and timings into its side's table (nothing for the warm-up). */
void czk__bench_ab_record(czk__bench_ab *ab, unsigned r, double wall, const czk_groth16_timings *t);
/* The A/B table (both sides' medians of wall, device and stage times, their ratio; the median, min and max of the
 * paired ratios B/A of device time, or of wall time on a host-memory backend); nothing without --ab. */
void czk__bench_ab_table(const czk__bench_ab *ab);
/* Restores NAME and lo's chunks, frees the tables. */
void czk__bench_ab_end(czk__bench_ab *ab, czk_groth16_lane_opts *lo);

/* "uploaded X GiB of bases; device memory in use, peak Y GiB": a prove's upload bytes (t->upload_bytes) and the
 * device's memory peak so far (czk_backend_mem_peak; 0 on a host-memory backend), into buf. Returns buf. */
const char *czk__bench_dev_note(char *buf, size_t n, czk_backend *be, const czk_groth16_timings *t);

/* The fractions of zeros, ones and other values in w[0..n) (out[0..3)): what the 0/1-aware MSMs skip, sum, bucket. */

/* A field of /proc/self/status in bytes ("VmRSS", "VmHWM"; 0 when unreadable), and a reset of the peak (VmHWM
 * becomes the current RSS: `5` written to /proc/self/clear_refs, Linux >= 4.0; 0 on success). */
uint64_t czk__bench_proc_bytes(const char *field);
int czk__bench_reset_peak(void);

/* qsort comparator for doubles (ascending). */
int czk__bench_cmp_double(const void *a, const void *b);

/* Per-operation timing: fn(ctx, n) runs an operation n times. Doubles n until one run takes >= 10 ms of thread CPU
 * time (or n reaches 2^40), scales to about `ms` milliseconds, runs that many and reports the count with its thread
 * CPU and wall (CLOCK_MONOTONIC) nanoseconds. */
typedef void (*czk__bench_loop_fn)(void *ctx, long n);
void czk__bench_calibrated(czk__bench_loop_fn fn, void *ctx, double ms, long *iters, double *cpu_ns, double *wall_ns);

/* The options of the per-operation benchmarks: --ms N (target ms per row, default 200) and --only NAME. Returns 0, or
 * 2 after printing "czk bench <name>: ..." for a bad argument. */
int czk__bench_parse_ms_only(int argc, char **argv, const char *name, double *ms, const char **only);

/* `czk bench msm|ntt|prove --backend B`: B = cpu runs the CPU benchmark (the option is removed from argv, *argc
 * shrinks, and -1 is returned so the caller goes on); B = cuda or cuda:N rewrites the benchmark's own options into
 * those of the GPU benchmarks (msm, ntt -> `czk bench gpu --only msm|g2|ntt`; prove -> `czk bench gpuprove`) and
 * returns that run's exit code. No --backend: -1, argv untouched. A bad value or an option the GPU benchmark has no
 * counterpart for: a message and 2. `name` is "msm", "ntt" or "prove". */
int czk__bench_backend_dispatch(int *argc, char **argv, const char *name);

#endif
