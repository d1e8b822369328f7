/* bench_client.c: `czk bench single|batch|stress`: benchmarks of a running daemon through its gRPC API
 * (cuzk.v1.ProvingEngine), the way a client such as Curio sees it.
 *
 *   single  N sequential Prove calls of one kind/size: latency min/p50/p95/max, proofs/s, mean daemon-side stages.
 *   batch   N SubmitProof calls at once, then AwaitProof on all (a pool of awaiter threads): throughput and latency
 *           percentiles, client side (submit -> result seen) and engine side (the daemon's total_ms).
 *   stress  a mix of kinds/sizes/priorities (--mix "k=14:low:0.5,k=10:critical:2": KIND:PRIORITY:RATE jobs/s) arriving
 *           (Poisson, seeded; or uniform) for a duration, each job one Prove call on its own thread; a \r-updated
 *           progress line; then throughput, latency percentiles per priority, and per device the kernel-busy % and
 *           the idle time by cause, as deltas of the daemon's counters (czk_device_{wall,busy}_seconds_total,
 *           czk_device_idle_seconds_total{cause}) over the run.
 *
 * --spawn starts a private daemon (fork + exec /proc/self/exe daemon on a socket in a fresh temp directory, keys in
 * ~/.cache/czk-demo-keys like `czk demo`), waits for its "ready on" line, and stops it with SIGTERM at the end.
 *
 * Invariants: a job counts as verified only when its status is COMPLETED and it returned parts * 192 proof bytes (the
 * daemon verifies every partition before it returns it, self_verify = true by default); everything else is counted and
 * printed as a failure, and the exit code is 1 when there was any. Keys are preloaded (PreloadSRS) before timing, so a
 * first-use setup is not measured. Percentiles are nearest-rank over the sorted samples. Never asserts on time. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/rpc.h"
#include "circuits/synthetic.h"
#include "api/client.h"
#include "bench/bench.h"
#include "bench/bench_client.h"
#include "core/clock.h"
#include "core/units.h"
#include "core/mapfile.h"
#include "czk/engine.h"
#include "czk/groth16.h"

#define INPUT_LIMIT (256u << 20)
#define MAX_MIX 16
#define MAX_DEVICES 64
#define MAX_AWAITERS 128

static void sleep_s(double s) {
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* What one job asks for. */

typedef struct job_kind {
  int kind;            /* CUZK__V1__PROOF_KIND__CZK_SYNTHETIC or __CZK_CIRCOM */
  unsigned k;          /* synthetic: 2^k constraints */
  unsigned parts;      /* synthetic: partitions per job */
  int prio;            /* 0..4 */
  double rate;         /* stress: arrivals per second */
  char circuit[72];    /* circom: the key name */
  uint8_t *input;      /* circom: the .wtns bytes (owned) */
  size_t input_len;
  char label[96];
} job_kind;

static void kind_label(job_kind *j) {
  if (j->kind == CUZK__V1__PROOF_KIND__CZK_CIRCOM) {
    char name[sizeof j->circuit];
    memcpy(name, j->circuit, sizeof name);
    snprintf(j->label, sizeof j->label, "circom:%s", name);
  } else
    snprintf(j->label, sizeof j->label, "synthetic-k%u x%u", j->k, j->parts);
}

static const char *key_id(const job_kind *j, char *buf, size_t n) {
  if (j->kind == CUZK__V1__PROOF_KIND__CZK_CIRCOM) snprintf(buf, n, "circom:%s", j->circuit);
  else snprintf(buf, n, "synthetic-k%u", j->k);
  return buf;
}

static unsigned kind_parts(const job_kind *j) { return j->kind == CUZK__V1__PROOF_KIND__CZK_CIRCOM ? 1 : j->parts; }

/* Fill r (pointing into spec/circ, which the caller keeps alive). */
static void build_request(const job_kind *j, uint64_t seed, const char *request_id, char *spec, size_t spec_len,
                          ProtobufCBinaryData *circ, Cuzk__V1__SubmitProofRequest *r) {
  cuzk__v1__submit_proof_request__init(r);
  r->proof_kind = (Cuzk__V1__ProofKind)j->kind;
  r->priority = (Cuzk__V1__Priority)j->prio;
  r->request_id = (char *)(request_id ? request_id : "");
  if (j->kind == CUZK__V1__PROOF_KIND__CZK_CIRCOM) {
    circ->data = (uint8_t *)j->circuit;
    circ->len = strlen(j->circuit);
    r->n_vanilla_proofs = 1;
    r->vanilla_proofs = circ;
    r->vanilla_proof.data = j->input;
    r->vanilla_proof.len = j->input_len;
  } else {
    snprintf(spec, spec_len, "partitions=%u seed=%llu", j->parts, (unsigned long long)seed);
    r->sector_size = 1ull << j->k;
    r->vanilla_proof.data = (uint8_t *)spec;
    r->vanilla_proof.len = strlen(spec);
  }
}

/* The outcome of one job. */
typedef struct job_rec {
  const job_kind *jk;
  uint64_t seed;
  double t_submit, t_done;
  int code;   /* gRPC code of the call (0 ok) */
  int status; /* AwaitProofResponse.Status */
  size_t proof_len;
  uint64_t total_ms, queue_ms, synth_ms, gpu_ms;
  char job_id[24];
  char err[200];
  bool verified;
} job_rec;

static void take_result(job_rec *j, const Cuzk__V1__AwaitProofResponse *a) {
  j->status = a->status;
  j->proof_len = a->proof.len;
  j->total_ms = a->total_ms;
  j->queue_ms = a->queue_wait_ms;
  j->synth_ms = a->synthesis_ms;
  j->gpu_ms = a->gpu_compute_ms;
  if (a->job_id) snprintf(j->job_id, sizeof j->job_id, "%s", a->job_id);
  if (a->error_message && *a->error_message) snprintf(j->err, sizeof j->err, "%s", a->error_message);
  j->verified = a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED &&
                a->proof.len == (size_t)kind_parts(j->jk) * CZK_GROTH16_PROOF_BYTES;
  if (a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED && !j->verified)
    snprintf(j->err, sizeof j->err, "COMPLETED with %zu proof bytes, expected %u", a->proof.len,
             kind_parts(j->jk) * CZK_GROTH16_PROOF_BYTES);
}

int czk__bench_prove_call(const char *addr, Cuzk__V1__SubmitProofRequest *r, double *t_submit, double *t_done,
                          Cuzk__V1__ProveResponse **out, char *err, size_t errlen) {
  Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
  pr.submit = r;
  *t_submit = czk__now_s();
  int code = czk__client_call(addr, "/cuzk.v1.ProvingEngine/Prove", &pr.base, &cuzk__v1__prove_response__descriptor,
                              (ProtobufCMessage **)out, 0, true, err, errlen);
  *t_done = czk__now_s();
  if (code && !err[0]) snprintf(err, errlen, "gRPC code %d", code);
  return code;
}

/* One Prove call (Submit + Await on the daemon). */
static void prove_job(const char *addr, job_rec *j, const char *request_id) {
  char spec[96];
  ProtobufCBinaryData circ;
  Cuzk__V1__SubmitProofRequest r;
  build_request(j->jk, j->seed, request_id, spec, sizeof spec, &circ, &r);
  Cuzk__V1__ProveResponse *p;
  j->code = czk__bench_prove_call(addr, &r, &j->t_submit, &j->t_done, &p, j->err, sizeof j->err);
  if (j->code) return;
  if (p->result) take_result(j, p->result);
  else snprintf(j->err, sizeof j->err, "ProveResponse without a result");
  protobuf_c_message_free_unpacked(&p->base, NULL);
}

static int preload_key(const char *addr, const job_kind *j) {
  char kid[96], err[300] = "";
  double secs;
  if (czk__bench_preload(addr, key_id(j, kid, sizeof kid), &secs, err, sizeof err) == 0) return 0;
  fprintf(stderr, "czk: PreloadSRS %s at %s: %s\n", kid, addr, err);
  return 1;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Statistics. */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array (n > 0): the smallest value with at least p of the samples <= it. */
static double pct(const double *v, size_t n, double p) {
  size_t r = (size_t)ceil(p * (double)n);
  if (r < 1) r = 1;
  if (r > n) r = n;
  return v[r - 1];
}

static void print_lat_header(const char *first) {
  printf("%-22s %6s %9s %9s %9s %9s %9s\n", first, "JOBS", "MIN (s)", "P50 (s)", "P95 (s)", "MAX (s)", "MEAN (s)");
}

/* Sorts v in place. */
static void print_lat_row(const char *label, double *v, size_t n) {
  if (n == 0) {
    printf("%-22s %6u %9s %9s %9s %9s %9s\n", label, 0u, "-", "-", "-", "-", "-");
    return;
  }
  qsort(v, n, sizeof *v, cmp_double);
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += v[i];
  printf("%-22s %6zu %9.3f %9.3f %9.3f %9.3f %9.3f\n", label, n, v[0], pct(v, n, 0.50), pct(v, n, 0.95), v[n - 1],
         sum / (double)n);
}

/* Print each failed job (at most `limit` lines); returns the number of failures. */
static size_t report_failures(job_rec *const *jobs, size_t n, size_t limit) {
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    const job_rec *j = jobs[i];
    if (j->verified) continue;
    if (bad++ < limit)
      fprintf(stderr, "czk bench: job %s (%s, %s): %s%s%s\n", j->job_id[0] ? j->job_id : "-", j->jk->label,
              czk__client_priority_name(j->jk->prio),
              j->code ? "RPC error" : czk__client_await_status_name(j->status), j->err[0] ? ": " : "", j->err);
  }
  if (bad > limit) fprintf(stderr, "czk bench: ... and %zu more failures\n", bad - limit);
  return bad;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* The daemon's device counters, from GetMetrics (Prometheus text). */

typedef struct dev_counters {
  unsigned ordinal;
  double wall, busy, idle[CZK_IDLE_COUNT];
} dev_counters;

typedef struct metrics_snap {
  bool ok;
  unsigned n;
  dev_counters d[MAX_DEVICES];
} metrics_snap;

/* Copy the value of label `key` from a label set `{a="x",b="y"}` (escapes are not needed for our labels). */
static bool label_value(const char *lb, const char *end, const char *key, char *out, size_t n) {
  size_t kl = strlen(key);
  for (const char *p = lb; p && p < end; p++) {
    if ((p == lb || p[-1] == '{' || p[-1] == ',') && strncmp(p, key, kl) == 0 && p[kl] == '=' && p[kl + 1] == '"') {
      const char *v = p + kl + 2, *q = strchr(v, '"');
      if (!q || q > end || (size_t)(q - v) >= n) return false;
      memcpy(out, v, (size_t)(q - v));
      out[q - v] = 0;
      return true;
    }
  }
  return false;
}

static dev_counters *snap_dev(metrics_snap *m, unsigned ordinal) {
  for (unsigned i = 0; i < m->n; i++)
    if (m->d[i].ordinal == ordinal) return &m->d[i];
  if (m->n == MAX_DEVICES) return NULL;
  dev_counters *d = &m->d[m->n++];
  memset(d, 0, sizeof *d);
  d->ordinal = ordinal;
  return d;
}

static void parse_metrics(const char *text, metrics_snap *m) {
  static const char *const names[] = {"czk_device_wall_seconds_total", "czk_device_busy_seconds_total",
                                      "czk_device_idle_seconds_total"};
  memset(m, 0, sizeof *m);
  for (const char *p = text; p && *p;) {
    const char *eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    for (int f = 0; f < 3 && *p != '#'; f++) {
      size_t nl = strlen(names[f]);
      if (strncmp(p, names[f], nl) != 0 || p[nl] != '{') continue;
      const char *close = memchr(p, '}', (size_t)(eol - p));
      char dev[16], cause[32];
      if (!close || !label_value(p + nl + 1, close, "device", dev, sizeof dev)) break;
      dev_counters *d = snap_dev(m, (unsigned)strtoul(dev, NULL, 10));
      if (!d) break;
      double v = strtod(close + 1, NULL);
      if (f == 0) d->wall = v;
      else if (f == 1) d->busy = v;
      else if (label_value(p + nl + 1, close, "cause", cause, sizeof cause))
        for (int c = 0; c < CZK_IDLE_COUNT; c++)
          if (strcmp(cause, czk_idle_cause_str((czk_idle_cause)c)) == 0) d->idle[c] = v;
      break;
    }
    p = *eol ? eol + 1 : NULL;
  }
  m->ok = m->n > 0;
}

static void fetch_metrics(const char *addr, metrics_snap *m) {
  Cuzk__V1__GetMetricsRequest r = CUZK__V1__GET_METRICS_REQUEST__INIT;
  ProtobufCMessage *o;
  memset(m, 0, sizeof *m);
  if (czk__client_call(addr, "/cuzk.v1.ProvingEngine/GetMetrics", &r.base, &cuzk__v1__get_metrics_response__descriptor,
                       &o, 10000, true, NULL, 0))
    return;
  parse_metrics(((const Cuzk__V1__GetMetricsResponse *)o)->prometheus_text, m);
  protobuf_c_message_free_unpacked(o, NULL);
}

/* Busy % of all devices together between two snapshots (-1 when unknown). */
static double busy_between(const metrics_snap *a, const metrics_snap *b) {
  if (!a->ok || !b->ok) return -1;
  double w = 0, busy = 0;
  for (unsigned i = 0; i < b->n; i++)
    for (unsigned k = 0; k < a->n; k++)
      if (a->d[k].ordinal == b->d[i].ordinal) {
        w += b->d[i].wall - a->d[k].wall;
        busy += b->d[i].busy - a->d[k].busy;
      }
  return w > 0 ? 100.0 * busy / w : -1;
}

static void print_devices(const metrics_snap *a, const metrics_snap *b) {
  if (!a->ok || !b->ok) {
    printf("\n(device counters unavailable: GetMetrics failed)\n");
    return;
  }
  printf("\n%-6s %9s %9s %7s  IDLE %% of wall by cause:", "DEVICE", "WALL (s)", "BUSY (s)", "BUSY %");
  for (int c = 0; c < CZK_IDLE_COUNT; c++) printf(" %8s", czk_idle_cause_str((czk_idle_cause)c));
  printf("\n");
  for (unsigned i = 0; i < b->n; i++) {
    const dev_counters *y = &b->d[i], *x = NULL;
    for (unsigned k = 0; k < a->n; k++)
      if (a->d[k].ordinal == y->ordinal) x = &a->d[k];
    if (!x) continue;
    double w = y->wall - x->wall, busy = y->busy - x->busy;
    printf("%-6u %9.3f %9.3f %7.1f  %24s", y->ordinal, w, busy, w > 0 ? 100.0 * busy / w : 0.0, "");
    for (int c = 0; c < CZK_IDLE_COUNT; c++) {
      double v = w > 0 ? 100.0 * (y->idle[c] - x->idle[c]) / w : 0.0;
      printf(" %8.1f", v > 0 ? v : 0.0); /* counters: a delta below 0 is only rounding of the exported seconds */
    }
    printf("\n");
  }
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* A private daemon for --spawn. */

typedef struct spawned {
  pid_t pid;
  FILE *out;
  char dir[64];
  char sock[128];
  char addr[160];
} spawned;

static int spawn_daemon(spawned *s, const char *keys, const char *extra) {
  memset(s, 0, sizeof *s);
  s->pid = -1;
  snprintf(s->dir, sizeof s->dir, "/tmp/czk-bench-XXXXXX");
  if (!mkdtemp(s->dir)) {
    fprintf(stderr, "czk bench: mkdtemp: %s\n", strerror(errno));
    return 1;
  }
  snprintf(s->sock, sizeof s->sock, "%s/czk.sock", s->dir);
  snprintf(s->addr, sizeof s->addr, "unix:%s", s->sock);
  /* argv: czk daemon --listen ADDR --keys-dir KEYS --log-level warn EXTRA... */
  char *copy = strdup(extra ? extra : "");
  char *av[64];
  int ac = 0;
  av[ac++] = "czk";
  av[ac++] = "daemon";
  av[ac++] = "--listen";
  av[ac++] = s->addr;
  av[ac++] = "--keys-dir";
  av[ac++] = (char *)keys;
  av[ac++] = "--log-level";
  av[ac++] = "warn";
  for (char *save = NULL, *t = copy ? strtok_r(copy, " \t", &save) : NULL; t && ac < 63; t = strtok_r(NULL, " \t", &save))
    av[ac++] = t;
  av[ac] = NULL;
  int fds[2];
  if (!copy || pipe(fds) != 0) {
    free(copy);
    rmdir(s->dir);
    return 1;
  }
  fflush(stdout);
  fflush(stderr);
  s->pid = fork();
  if (s->pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execv("/proc/self/exe", av);
    _exit(127);
  }
  close(fds[1]);
  free(copy);
  if (s->pid < 0) {
    close(fds[0]);
    rmdir(s->dir);
    return 1;
  }
  s->out = fdopen(fds[0], "r");
  char line[512];
  while (s->out && fgets(line, sizeof line, s->out))
    if (strstr(line, "ready on")) {
      fprintf(stderr, "czk bench: spawned daemon pid %d, %s", (int)s->pid, line);
      return 0;
    }
  fprintf(stderr, "czk bench: the spawned daemon did not start\n");
  int st;
  kill(s->pid, SIGTERM);
  waitpid(s->pid, &st, 0);
  if (s->out) fclose(s->out);
  rmdir(s->dir);
  return 1;
}

/* SIGTERM, wait; 0 when the daemon exited cleanly. */
static int stop_daemon(spawned *s) {
  int st = 0;
  kill(s->pid, SIGTERM);
  waitpid(s->pid, &st, 0);
  fclose(s->out);
  unlink(s->sock);
  rmdir(s->dir);
  bool clean = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  fprintf(stderr, "czk bench: spawned daemon stopped (%s)\n", clean ? "clean exit" : "ERROR");
  return clean ? 0 : 1;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Options. */

typedef struct bench_opts {
  const char *addr;
  bool spawn;
  char keys[4096];
  const char *daemon_args;
  /* single / batch */
  job_kind one;
  unsigned count;
  uint64_t seed;
  /* stress */
  job_kind mix[MAX_MIX];
  unsigned nmix;
  double duration;
  bool uniform;
  unsigned max_inflight;
} bench_opts;

static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) return false;
  *out = (unsigned)v;
  return true;
}

static bool read_input(job_kind *j, const char *path) {
  free(j->input);
  j->input = NULL;
  czk_status st = czk__read_file(path, INPUT_LIMIT, &j->input, &j->input_len);
  if (st != CZK_OK) {
    fprintf(stderr, "czk bench: cannot read %s: %s\n", path, czk_status_str(st));
    return false;
  }
  return true;
}

static bool set_circuit(job_kind *j, const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n >= sizeof j->circuit) {
    fprintf(stderr, "czk bench: circuit name must be 1..%zu characters\n", sizeof j->circuit - 1);
    return false;
  }
  memcpy(j->circuit, name, n + 1);
  j->kind = CUZK__V1__PROOF_KIND__CZK_CIRCOM;
  return true;
}

/* One --mix entry: KIND:PRIORITY:RATE[:parts=P][:input=FILE], KIND = k=K | circom=NAME. */
static bool parse_mix_entry(char *e, job_kind *j) {
  memset(j, 0, sizeof *j);
  j->kind = CUZK__V1__PROOF_KIND__CZK_SYNTHETIC;
  j->parts = 1;
  char *save = NULL;
  int field = 0;
  for (char *t = strtok_r(e, ":", &save); t; t = strtok_r(NULL, ":", &save), field++) {
    if (field == 0) {
      if (strncmp(t, "k=", 2) == 0) {
        if (!parse_uint(t + 2, CZK_SYNTHETIC_MIN_LOG, 40, &j->k)) return false;
      } else if (strncmp(t, "circom=", 7) == 0) {
        if (!set_circuit(j, t + 7)) return false;
      } else {
        return false;
      }
    } else if (field == 1) {
      if ((j->prio = czk__client_parse_priority(t)) < 0) return false;
    } else if (field == 2) {
      char *end;
      j->rate = strtod(t, &end);
      if (*end || !(j->rate > 0) || j->rate > 10000) return false;
    } else if (strncmp(t, "parts=", 6) == 0) {
      if (!parse_uint(t + 6, 1, 64, &j->parts)) return false;
    } else if (strncmp(t, "input=", 6) == 0) {
      if (!read_input(j, t + 6)) return false;
    } else {
      return false;
    }
  }
  if (field < 3) return false;
  if (j->kind == CUZK__V1__PROOF_KIND__CZK_CIRCOM && !j->input) {
    fprintf(stderr, "czk bench: circom mix entries need input=FILE.wtns\n");
    return false;
  }
  kind_label(j);
  return true;
}

static bool parse_mix(const char *spec, bench_opts *o) {
  char *copy = strdup(spec), *save = NULL;
  bool ok = copy != NULL;
  o->nmix = 0;
  for (char *e = ok ? strtok_r(copy, ",", &save) : NULL; ok && e; e = strtok_r(NULL, ",", &save)) {
    if (o->nmix == MAX_MIX) {
      fprintf(stderr, "czk bench: at most %d mix entries\n", MAX_MIX);
      ok = false;
      break;
    }
    char entry[512];
    snprintf(entry, sizeof entry, "%s", e);
    if (!parse_mix_entry(entry, &o->mix[o->nmix])) {
      fprintf(stderr, "czk bench: bad mix entry '%s' (KIND:PRIORITY:RATE[:parts=P][:input=FILE], KIND k=K or "
                      "circom=NAME, e.g. k=14:low:0.5,k=10:critical:2)\n", e);
      ok = false;
      break;
    }
    o->nmix++;
  }
  free(copy);
  return ok && o->nmix > 0;
}

static void free_opts(bench_opts *o) {
  free(o->one.input);
  for (unsigned i = 0; i < o->nmix; i++) free(o->mix[i].input);
}

static void usage(FILE *f, const char *which) {
  bool stress = strcmp(which, "stress") == 0;
  fprintf(f, "usage: czk bench %s [options]\n", which);
  if (strcmp(which, "single") == 0)
    fprintf(f, "N sequential Prove calls of one kind and size to a running daemon: latency min/p50/p95/max, proofs/s.\n");
  else if (strcmp(which, "batch") == 0)
    fprintf(f, "Submits N jobs at once (SubmitProof), then AwaitProof on all: throughput and latency percentiles.\n");
  else
    fprintf(f, "A mix of kinds, sizes and priorities arriving at given rates for a duration (one Prove call per job):\n"
               "progress line, throughput, latency per priority, and per device busy %% with idle time by cause.\n");
  fprintf(f,
          "\n  --addr ADDR          daemon address (default: the daemon's default socket; env CZK_ADDR)\n"
          "  --spawn              start a private daemon for the run and stop it (SIGTERM) at the end\n"
          "  --keys-dir DIR       with --spawn: the daemon's keys (default ~/.cache/czk-demo-keys, shared with czk demo)\n"
          "  --daemon-args \"...\"  with --spawn: more daemon flags, e.g. \"--synthesis-workers 1 --memory-budget 4GiB\"\n"
          "  --seed S             first synthetic witness seed (default 1)\n");
  if (!stress)
    fprintf(f,
            "  -n, --count N        jobs (default: single 20, batch 16)\n"
            "  --log2 K             synthetic circuit of 2^K constraints (default 10)\n"
            "  --parts P            partitions per synthetic job (default 1)\n"
            "  --priority P         low, normal (default), high, critical\n"
            "  --circuit NAME --input FILE   a circom job instead (NAME.zkey in the daemon's keys_dir, FILE .wtns)\n");
  else
    fprintf(f,
            "  --mix SPEC           comma list of KIND:PRIORITY:RATE[:parts=P][:input=FILE]; KIND is k=K (synthetic\n"
            "                       2^K) or circom=NAME (needs input=FILE.wtns); RATE in jobs/s\n"
            "                       (default \"k=14:low:0.25,k=10:critical:2\")\n"
            "  --duration S         seconds of arrivals (default 30); then in-flight jobs are awaited\n"
            "  --uniform            evenly spaced arrivals (default: Poisson, seeded)\n"
            "  --max-inflight N     arrivals beyond N jobs in flight are skipped and counted (default 200; keep it\n"
            "                       below the daemon's max_calls)\n");
  fprintf(f, "\nA job counts as verified only when the daemon returned COMPLETED with every partition's 192-byte proof\n"
             "(the daemon verifies each partition before returning it). Exit code 1 when any job failed.\n");
}

/* Parse the options of `which` into o; returns -1 after --help, 0 ok, 2 usage error. */
static int parse_opts(int argc, char **argv, const char *which, bench_opts *o) {
  bool stress = strcmp(which, "stress") == 0;
  memset(o, 0, sizeof *o);
  o->addr = czk__client_default_addr();
  o->one.kind = CUZK__V1__PROOF_KIND__CZK_SYNTHETIC;
  o->one.k = 10;
  o->one.parts = 1;
  o->one.prio = 2;
  o->count = strcmp(which, "single") == 0 ? 20 : 16;
  o->seed = 1;
  o->duration = 30;
  o->max_inflight = 200;
  const char *mix = "k=14:low:0.25,k=10:critical:2";
  const char *input = NULL;
  enum { O_ADDR = 256, O_SPAWN, O_KEYS, O_DARGS, O_SEED, O_LOG2, O_PARTS, O_PRIO, O_CIRC, O_INPUT, O_MIX, O_DUR,
         O_UNIFORM, O_MAXIN };
  static const struct option lo[] = {
      {"addr", 1, 0, O_ADDR},       {"spawn", 0, 0, O_SPAWN},     {"keys-dir", 1, 0, O_KEYS},
      {"daemon-args", 1, 0, O_DARGS}, {"seed", 1, 0, O_SEED},     {"count", 1, 0, 'n'},
      {"log2", 1, 0, O_LOG2},       {"parts", 1, 0, O_PARTS},     {"priority", 1, 0, O_PRIO},
      {"circuit", 1, 0, O_CIRC},    {"input", 1, 0, O_INPUT},     {"mix", 1, 0, O_MIX},
      {"duration", 1, 0, O_DUR},    {"uniform", 0, 0, O_UNIFORM}, {"max-inflight", 1, 0, O_MAXIN},
      {"help", 0, 0, 'h'},          {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "hn:", lo, NULL)) != -1) {
    bool only_stress = c == O_MIX || c == O_DUR || c == O_UNIFORM || c == O_MAXIN;
    bool not_stress = c == 'n' || c == O_LOG2 || c == O_PARTS || c == O_PRIO || c == O_CIRC || c == O_INPUT;
    if ((only_stress && !stress) || (not_stress && stress)) {
      fprintf(stderr, "czk bench %s: option --%s does not apply here\n", which, argv[optind - 1] + 2);
      return 2;
    }
    char *end;
    switch (c) {
    case O_ADDR: o->addr = optarg; break;
    case O_SPAWN: o->spawn = true; break;
    case O_KEYS: snprintf(o->keys, sizeof o->keys, "%s", optarg); break;
    case O_DARGS: o->daemon_args = optarg; break;
    case O_SEED:
      o->seed = strtoull(optarg, &end, 10);
      if (!*optarg || *end) goto bad;
      break;
    case 'n':
      if (!parse_uint(optarg, 1, 100000, &o->count)) goto bad;
      break;
    case O_LOG2:
      if (!parse_uint(optarg, CZK_SYNTHETIC_MIN_LOG, 40, &o->one.k)) goto bad;
      break;
    case O_PARTS:
      if (!parse_uint(optarg, 1, 64, &o->one.parts)) goto bad;
      break;
    case O_PRIO:
      if ((o->one.prio = czk__client_parse_priority(optarg)) < 0) goto bad;
      break;
    case O_CIRC:
      if (!set_circuit(&o->one, optarg)) return 2;
      break;
    case O_INPUT: input = optarg; break;
    case O_MIX: mix = optarg; break;
    case O_DUR:
      o->duration = strtod(optarg, &end);
      if (*end || !(o->duration > 0) || o->duration > 86400) goto bad;
      break;
    case O_UNIFORM: o->uniform = true; break;
    case O_MAXIN:
      if (!parse_uint(optarg, 1, 100000, &o->max_inflight)) goto bad;
      break;
    case 'h': usage(stdout, which); return -1;
    default: usage(stderr, which); return 2;
    }
    continue;
  bad:
    fprintf(stderr, "czk bench %s: bad value '%s' for %s\n", which, optarg, argv[optind - 1]);
    return 2;
  }
  if (optind < argc) {
    fprintf(stderr, "czk bench %s: unexpected argument '%s'\n", which, argv[optind]);
    return 2;
  }
  if (stress) {
    if (!parse_mix(mix, o)) return 2;
  } else {
    if ((o->one.kind == CUZK__V1__PROOF_KIND__CZK_CIRCOM) != (input != NULL)) {
      fprintf(stderr, "czk bench %s: --circuit and --input go together\n", which);
      return 2;
    }
    if (input && !read_input(&o->one, input)) return 2;
    kind_label(&o->one);
  }
  if (!o->keys[0]) {
    const char *home = getenv("HOME");
    snprintf(o->keys, sizeof o->keys, "%s/.cache/czk-demo-keys", home && *home ? home : "/tmp");
  }
  if (!o->spawn && (o->daemon_args)) {
    fprintf(stderr, "czk bench %s: --daemon-args needs --spawn\n", which);
    return 2;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* single */

static void print_stages(job_rec *const *jobs, size_t n) {
  double q = 0, s = 0, g = 0, t = 0;
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (jobs[i]->verified) {
      q += (double)jobs[i]->queue_ms;
      s += (double)jobs[i]->synth_ms;
      g += (double)jobs[i]->gpu_ms;
      t += (double)jobs[i]->total_ms;
      m++;
    }
  if (m)
    printf("daemon-side means (ms): queue %.1f, synthesis %.1f, prove %.1f, total %.1f\n", q / (double)m,
           s / (double)m, g / (double)m, t / (double)m);
}

static int run_single(const bench_opts *o, const char *addr) {
  job_rec *recs = calloc(o->count, sizeof *recs);
  job_rec **ptrs = calloc(o->count, sizeof *ptrs);
  double *lat = calloc(o->count, sizeof *lat);
  if (!recs || !ptrs || !lat) {
    free(recs);
    free(ptrs);
    free(lat);
    return 1;
  }
  printf("czk bench single: %u sequential Prove calls of %s, priority %s, on %s\n", o->count, o->one.label,
         czk__client_priority_name(o->one.prio), addr);
  double t0 = czk__now_s();
  size_t nl = 0;
  unsigned ran = 0;
  for (unsigned i = 0; i < o->count; i++) {
    job_rec *j = &recs[i];
    ptrs[ran++] = j;
    j->jk = &o->one;
    j->seed = o->seed + (uint64_t)i * 64;
    prove_job(addr, j, NULL);
    if (j->verified) lat[nl++] = j->t_done - j->t_submit;
    if (j->code == CZK_GRPC_UNAVAILABLE) break; /* going on would only repeat the error */
  }
  double wall = czk__now_s() - t0;
  size_t bad = report_failures(ptrs, ran, 10) + (o->count - ran);
  if (ran < o->count) fprintf(stderr, "czk bench: stopped after %u of %u jobs: daemon unreachable\n", ran, o->count);
  printf("\n");
  print_lat_header("LATENCY (client)");
  print_lat_row(o->one.label, lat, nl);
  printf("\n%zu/%u jobs verified (COMPLETED, self-verified by the daemon), %zu failed\n", nl, o->count, bad);
  printf("%zu proofs in %.3f s: %.3f jobs/s, %.3f partition proofs/s\n", nl * kind_parts(&o->one), wall,
         (double)nl / wall, (double)(nl * kind_parts(&o->one)) / wall);
  print_stages(ptrs, ran);
  free(recs);
  free(ptrs);
  free(lat);
  return bad ? 1 : 0;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* batch */

typedef struct awaiter {
  const char *addr;
  job_rec *recs;
  unsigned n, first, stride;
} awaiter;

static void *await_worker(void *arg) {
  awaiter *a = arg;
  for (unsigned i = a->first; i < a->n; i += a->stride) {
    job_rec *j = &a->recs[i];
    if (j->code || !j->job_id[0]) continue; /* the submit failed */
    Cuzk__V1__AwaitProofRequest r = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    r.job_id = j->job_id;
    ProtobufCMessage *out;
    j->code = czk__client_call(a->addr, "/cuzk.v1.ProvingEngine/AwaitProof", &r.base,
                               &cuzk__v1__await_proof_response__descriptor, &out, 0, true, j->err, sizeof j->err);
    j->t_done = czk__now_s();
    if (j->code) continue;
    take_result(j, (const Cuzk__V1__AwaitProofResponse *)out);
    protobuf_c_message_free_unpacked(out, NULL);
  }
  return NULL;
}

static int run_batch(const bench_opts *o, const char *addr) {
  unsigned n = o->count;
  job_rec *recs = calloc(n, sizeof *recs);
  job_rec **ptrs = calloc(n, sizeof *ptrs);
  double *lat = calloc(n, sizeof *lat), *eng = calloc(n, sizeof *eng);
  unsigned nt = n < MAX_AWAITERS ? n : MAX_AWAITERS;
  awaiter *aw = calloc(nt, sizeof *aw);
  pthread_t *th = calloc(nt, sizeof *th);
  int rc = 1;
  if (!recs || !ptrs || !lat || !eng || !aw || !th) goto out;
  printf("czk bench batch: %u jobs of %s, priority %s, submitted at once to %s\n", n, o->one.label,
         czk__client_priority_name(o->one.prio), addr);
  double t0 = czk__now_s();
  for (unsigned i = 0; i < n; i++) {
    job_rec *j = &recs[i];
    ptrs[i] = j;
    j->jk = &o->one;
    j->seed = o->seed + (uint64_t)i * 64;
    char spec[96];
    ProtobufCBinaryData circ;
    Cuzk__V1__SubmitProofRequest r;
    build_request(j->jk, j->seed, NULL, spec, sizeof spec, &circ, &r);
    ProtobufCMessage *out;
    j->t_submit = czk__now_s();
    j->code = czk__client_call(addr, "/cuzk.v1.ProvingEngine/SubmitProof", &r.base,
                               &cuzk__v1__submit_proof_response__descriptor, &out, 60000, true, j->err, sizeof j->err);
    if (j->code) continue;
    snprintf(j->job_id, sizeof j->job_id, "%s", ((const Cuzk__V1__SubmitProofResponse *)out)->job_id);
    protobuf_c_message_free_unpacked(out, NULL);
  }
  double t_submitted = czk__now_s();
  unsigned started = 0;
  for (unsigned t = 0; t < nt; t++) {
    aw[t] = (awaiter){addr, recs, n, t, nt};
    if (pthread_create(&th[t], NULL, await_worker, &aw[t]) != 0) break;
    started++;
  }
  if (started < nt) { /* await the rest here */
    for (unsigned t = started; t < nt; t++) await_worker(&aw[t]);
  }
  for (unsigned t = 0; t < started; t++) pthread_join(th[t], NULL);
  double t_last = t0;
  size_t nl = 0;
  for (unsigned i = 0; i < n; i++)
    if (recs[i].verified) {
      lat[nl] = recs[i].t_done - recs[i].t_submit;
      eng[nl++] = (double)recs[i].total_ms / 1e3;
      if (recs[i].t_done > t_last) t_last = recs[i].t_done;
    }
  size_t bad = report_failures(ptrs, n, 10);
  double wall = t_last - t0;
  printf("submit of %u jobs took %.3f s\n\n", n, t_submitted - t0);
  print_lat_header("LATENCY");
  print_lat_row("client (submit->await)", lat, nl);
  print_lat_row("engine (total_ms)", eng, nl);
  printf("\n%zu/%u jobs verified (COMPLETED, self-verified by the daemon), %zu failed\n", nl, n, bad);
  if (nl && wall > 0)
    printf("%zu partition proofs in %.3f s (first submit to last result): %.3f jobs/s, %.3f partition proofs/s\n",
           nl * kind_parts(&o->one), wall, (double)nl / wall, (double)(nl * kind_parts(&o->one)) / wall);
  print_stages(ptrs, n);
  rc = bad ? 1 : 0;
out:
  free(recs);
  free(ptrs);
  free(lat);
  free(eng);
  free(aw);
  free(th);
  return rc;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* stress */

typedef struct stress_state {
  const char *addr;
  atomic_uint submitted, done, failed, inflight;
} stress_state;

typedef struct stress_job {
  job_rec rec;
  stress_state *st;
  pthread_t th;
  char request_id[64];
} stress_job;

static void *stress_worker(void *arg) {
  stress_job *s = arg;
  prove_job(s->st->addr, &s->rec, s->request_id);
  if (s->rec.verified) atomic_fetch_add(&s->st->done, 1);
  else atomic_fetch_add(&s->st->failed, 1);
  atomic_fetch_sub(&s->st->inflight, 1);
  return NULL;
}

/* xorshift64* for seeded arrivals */
static double rnd_unit(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

static double next_gap(const bench_opts *o, const job_kind *j, uint64_t *rng) {
  if (o->uniform) return 1.0 / j->rate;
  double u = rnd_unit(rng);
  return -log(1.0 - u) / j->rate; /* exponential inter-arrival times: a Poisson process of rate j->rate */
}

static void progress(bool tty, double elapsed, const stress_state *st, double busy, bool final) {
  char b[32];
  if (busy >= 0) snprintf(b, sizeof b, "%5.1f%%", busy);
  else snprintf(b, sizeof b, "    -");
  fprintf(stderr, "%s[%6.1f s] submitted %u  done %u  failed %u  in flight %u  device busy %s%s", tty ? "\r" : "",
          elapsed, atomic_load(&st->submitted), atomic_load(&st->done), atomic_load(&st->failed),
          atomic_load(&st->inflight), b, tty && !final ? "   " : "\n");
  fflush(stderr);
}

static int run_stress(const bench_opts *o, const char *addr) {
  stress_state st = {.addr = addr};
  size_t cap = 1024, n = 0, skipped = 0;
  stress_job **jobs = malloc(cap * sizeof *jobs);
  if (!jobs) return 1;
  int rc = 1;
  bool tty = isatty(2);
  printf("czk bench stress: %.1f s of %s arrivals (seed %llu) on %s; mix:\n", o->duration,
         o->uniform ? "uniform" : "Poisson", (unsigned long long)o->seed, addr);
  for (unsigned i = 0; i < o->nmix; i++)
    printf("  %-24s %-9s %7.3f jobs/s\n", o->mix[i].label, czk__client_priority_name(o->mix[i].prio), o->mix[i].rate);
  fflush(stdout);
  /* The progress line's busy % is over the last ~5 s (a ring of per-tick snapshots). The daemon credits a partition's
   * busy time when its prove ends, so a short window can read over 100%; it is clamped there. The final numbers are
   * over the whole run. */
  enum { RING = 8 };
  metrics_snap ring[RING];
  double ring_t[RING];
  unsigned ring_n = 0;
  metrics_snap m0, mnow;
  fetch_metrics(addr, &m0);
  ring[0] = m0;
  ring_t[0] = 0;
  ring_n = 1;
  uint64_t rng = o->seed * 0x9E3779B97F4A7C15ULL + 1;
  double next[MAX_MIX];
  double t0 = czk__now_s();
  for (unsigned i = 0; i < o->nmix; i++) next[i] = next_gap(o, &o->mix[i], &rng);
  double next_tick = 1.0, busy = -1;
  uint64_t seq = 0;
  for (;;) {
    double el = czk__now_s() - t0;
    bool arrivals = el < o->duration;
    if (!arrivals && atomic_load(&st.inflight) == 0) break;
    /* the earliest pending arrival, or the next progress tick */
    unsigned who = 0;
    for (unsigned i = 1; i < o->nmix; i++)
      if (next[i] < next[who]) who = i;
    double wake = next_tick;
    if (arrivals && next[who] < wake) wake = next[who];
    if (arrivals && o->duration < wake) wake = o->duration;
    if (!arrivals && el + 0.02 < wake) wake = el + 0.02; /* poll for the last results */
    if (wake > el) sleep_s(wake - el);
    el = czk__now_s() - t0;
    if (el >= next_tick) {
      fetch_metrics(addr, &mnow);
      if (mnow.ok) {
        /* the oldest snapshot at most 5 s old (else the newest before now) */
        unsigned oldest = ring_n <= RING ? 0 : ring_n % RING, pick = (ring_n - 1) % RING;
        for (unsigned i = 0; i < (ring_n < RING ? ring_n : RING); i++) {
          unsigned k = (oldest + i) % RING;
          if (el - ring_t[k] <= 5.0 + 1e-9) {
            pick = k;
            break;
          }
        }
        double b = busy_between(&ring[pick], &mnow);
        busy = b > 100.0 ? 100.0 : b;
        ring[ring_n % RING] = mnow;
        ring_t[ring_n % RING] = el;
        ring_n++;
      }
      progress(tty, el, &st, busy, false);
      while (next_tick <= el) next_tick += tty ? 1.0 : 5.0;
    }
    while (arrivals && next[who] <= el && next[who] < o->duration) {
      const job_kind *jk = &o->mix[who];
      next[who] += next_gap(o, jk, &rng);
      if (atomic_load(&st.inflight) >= o->max_inflight) {
        skipped++;
      } else {
        if (n == cap) {
          stress_job **nj = realloc(jobs, 2 * cap * sizeof *jobs);
          if (!nj) break;
          jobs = nj;
          cap *= 2;
        }
        stress_job *s = calloc(1, sizeof *s);
        if (!s) break;
        s->rec.jk = jk;
        s->rec.seed = o->seed + seq * 64;
        s->st = &st;
        snprintf(s->request_id, sizeof s->request_id, "bench-%d-%llu", (int)getpid(), (unsigned long long)seq);
        seq++;
        atomic_fetch_add(&st.inflight, 1);
        atomic_fetch_add(&st.submitted, 1);
        if (pthread_create(&s->th, NULL, stress_worker, s) != 0) {
          atomic_fetch_sub(&st.inflight, 1);
          atomic_fetch_sub(&st.submitted, 1);
          free(s);
          skipped++;
        } else {
          jobs[n++] = s;
        }
      }
      who = 0;
      for (unsigned i = 1; i < o->nmix; i++)
        if (next[i] < next[who]) who = i;
    }
  }
  for (size_t i = 0; i < n; i++) pthread_join(jobs[i]->th, NULL);
  fetch_metrics(addr, &mnow);
  progress(tty, czk__now_s() - t0, &st, busy_between(&m0, &mnow), true);

  /* results */
  job_rec **recs = malloc((n ? n : 1) * sizeof *recs);
  double *lat = malloc((n ? n : 1) * sizeof *lat);
  if (!recs || !lat) {
    free(recs);
    free(lat);
    goto out;
  }
  double t_first = 0, t_last = 0;
  size_t parts = 0, ok = 0;
  for (size_t i = 0; i < n; i++) {
    recs[i] = &jobs[i]->rec;
    if (i == 0 || recs[i]->t_submit < t_first) t_first = recs[i]->t_submit;
    if (recs[i]->verified) {
      ok++;
      parts += kind_parts(recs[i]->jk);
      if (recs[i]->t_done > t_last) t_last = recs[i]->t_done;
    }
  }
  size_t bad = report_failures(recs, n, 10);
  printf("\n%-24s %-9s %6s %6s %6s %9s %9s %9s\n", "MIX", "PRIORITY", "JOBS", "OK", "FAILED", "P50 (s)", "P95 (s)",
         "MAX (s)");
  for (unsigned m = 0; m < o->nmix; m++) {
    size_t nl = 0, tot = 0;
    for (size_t i = 0; i < n; i++)
      if (recs[i]->jk == &o->mix[m]) {
        tot++;
        if (recs[i]->verified) lat[nl++] = recs[i]->t_done - recs[i]->t_submit;
      }
    qsort(lat, nl, sizeof *lat, cmp_double);
    if (nl)
      printf("%-24s %-9s %6zu %6zu %6zu %9.3f %9.3f %9.3f\n", o->mix[m].label,
             czk__client_priority_name(o->mix[m].prio), tot, nl, tot - nl, pct(lat, nl, 0.5), pct(lat, nl, 0.95),
             lat[nl - 1]);
    else
      printf("%-24s %-9s %6zu %6zu %6zu %9s %9s %9s\n", o->mix[m].label, czk__client_priority_name(o->mix[m].prio),
             tot, nl, tot - nl, "-", "-", "-");
  }
  printf("\n");
  print_lat_header("LATENCY BY PRIORITY");
  for (int p = 4; p >= 0; p--) {
    size_t nl = 0;
    bool present = false;
    for (unsigned m = 0; m < o->nmix; m++) present |= o->mix[m].prio == p;
    if (!present) continue;
    for (size_t i = 0; i < n; i++)
      if (recs[i]->jk->prio == p && recs[i]->verified) lat[nl++] = recs[i]->t_done - recs[i]->t_submit;
    print_lat_row(czk__client_priority_name(p), lat, nl);
  }
  double span = t_last - t_first;
  printf("\n%zu/%zu jobs verified (COMPLETED, self-verified by the daemon), %zu failed, %zu arrivals skipped "
         "(over --max-inflight %u)\n",
         ok, n, bad, skipped, o->max_inflight);
  if (ok && span > 0)
    printf("throughput: %.3f jobs/s, %.3f partition proofs/s (%zu partitions in %.2f s, first submit to last result)\n",
           (double)ok / span, (double)parts / span, parts, span);
  print_devices(&m0, &mnow);
  rc = bad || skipped ? 1 : 0;
  free(recs);
  free(lat);
out:
  for (size_t i = 0; i < n; i++) free(jobs[i]);
  free(jobs);
  return rc;
}

/* ------------------------------------------------------------------------------------------------------------------ */

static int bench_main(int argc, char **argv, const char *which) {
  bench_opts o;
  int rc = parse_opts(argc, argv, which, &o);
  if (rc) {
    free_opts(&o);
    return rc < 0 ? 0 : rc;
  }
  spawned sp;
  const char *addr = o.addr;
  if (o.spawn) {
    if (spawn_daemon(&sp, o.keys, o.daemon_args) != 0) {
      free_opts(&o);
      return 1;
    }
    addr = sp.addr;
  }
  /* keys first: a first-use setup is not part of the measurement */
  rc = 0;
  if (strcmp(which, "stress") == 0) {
    for (unsigned i = 0; i < o.nmix && rc == 0; i++) rc = preload_key(addr, &o.mix[i]);
  } else {
    rc = preload_key(addr, &o.one);
  }
  if (rc == 0) {
    if (strcmp(which, "single") == 0) rc = run_single(&o, addr);
    else if (strcmp(which, "batch") == 0) rc = run_batch(&o, addr);
    else rc = run_stress(&o, addr);
  }
  fflush(stdout);
  if (o.spawn && stop_daemon(&sp) != 0) rc = 1;
  free_opts(&o);
  return rc;
}

int czk_bench_single(int argc, char **argv) { return bench_main(argc, argv, "single"); }
int czk_bench_batch(int argc, char **argv) { return bench_main(argc, argv, "batch"); }
int czk_bench_stress(int argc, char **argv) { return bench_main(argc, argv, "stress"); }

/* ------------------------------------------------------------------------------------------------------------------ */
/* The helpers other daemon benchmarks share (bench_client.h): thin wrappers over the code above. */

struct czk__bench_daemon {
  spawned s;
};

czk__bench_daemon *czk__bench_daemon_start(const char *keys_dir, const char *extra_args) {
  czk__bench_daemon *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  if (spawn_daemon(&d->s, keys_dir, extra_args) != 0) {
    free(d);
    return NULL;
  }
  return d;
}

const char *czk__bench_daemon_addr(const czk__bench_daemon *d) { return d->s.addr; }
pid_t czk__bench_daemon_pid(const czk__bench_daemon *d) { return d->s.pid; }

int czk__bench_daemon_stop(czk__bench_daemon *d) {
  if (!d) return 0;
  int rc = stop_daemon(&d->s);
  free(d);
  return rc;
}

int czk__bench_preload(const char *addr, const char *circuit_id, double *seconds, char *err, size_t errlen) {
  Cuzk__V1__PreloadSrsRequest r = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
  r.circuit_id = (char *)circuit_id;
  ProtobufCMessage *o;
  double t0 = czk__now_s();
  int code = czk__client_call(addr, "/cuzk.v1.ProvingEngine/PreloadSRS", &r.base,
                              &cuzk__v1__preload_srs_response__descriptor, &o, 0, true, err, errlen);
  *seconds = czk__now_s() - t0;
  if (code) return 1;
  const Cuzk__V1__PreloadSrsResponse *p = (const Cuzk__V1__PreloadSrsResponse *)o;
  fprintf(stderr, "czk bench: key %s %s (%.2f s)\n", circuit_id, p->already_loaded ? "already loaded" : "loaded",
          *seconds);
  protobuf_c_message_free_unpacked(o, NULL);
  return 0;
}

struct czk__bench_devsnap {
  metrics_snap m;
};

czk__bench_devsnap *czk__bench_devsnap_take(const char *addr) {
  czk__bench_devsnap *s = malloc(sizeof *s);
  if (!s) return NULL;
  fetch_metrics(addr, &s->m);
  if (!s->m.ok) {
    free(s);
    return NULL;
  }
  return s;
}

double czk__bench_devsnap_busy(const czk__bench_devsnap *a, const czk__bench_devsnap *b) {
  return a && b ? busy_between(&a->m, &b->m) : -1;
}

void czk__bench_devsnap_print(const czk__bench_devsnap *a, const czk__bench_devsnap *b) {
  metrics_snap none = {0};
  print_devices(a ? &a->m : &none, b ? &b->m : &none);
}

void czk__bench_lat_header(const char *first) { print_lat_header(first); }
void czk__bench_lat_row(const char *label, double *v, size_t n) { print_lat_row(label, v, n); }
double czk__bench_pct(const double *v, size_t n, double p) { return pct(v, n, p); }
bool czk__bench_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out) { return parse_uint(s, lo, hi, out); }
