/* bench_filecoin.c: `czk bench filecoin`: real Filecoin proofs through a daemon (cuzk.v1 gRPC), the way Curio sends
 * them, with inputs generated in process and full-size keys.
 *
 *   --kind porep|window-post|winning-post|snap   a backlog of --jobs N jobs of one kind, --inflight C at a time
 *   --mix "porep,window-post:0.2,winning-post:0.05"   a mixed run: entries without a rate are backlogs of --jobs N,
 *        entries KIND:RATE arrive (Poisson, seeded) at RATE jobs/s while a backlog lasts (or for --duration S);
 *        an optional third field sets the priority (defaults: winning-post critical, window-post high, others normal)
 *
 * Inputs: one request per kind, generated before anything is timed and reused by every job of that kind: a sparse
 * committed-capacity sector's C1 output in cuzk's envelope (PoRep, interactive V1_1), sparse FallbackPoSt vanilla
 * proofs (Winning: one sector; Window: partition 0 with --sectors N, default the proof's full partition) and a sparse
 * SnapDeals update's partition proofs: the bytes `czk gen-vanilla --sparse` writes. Keys: --spawn starts a private
 * daemon whose param_dir is an empty temp directory with setup_in_memory = true (each kind sets up a key of its own in
 * memory: full size, never on disk), or --params DIR (the real key files; no in-memory setup). PreloadSRS runs for
 * every kind first; its time is reported, not counted.
 *
 * Checks: a job is good when it returned COMPLETED with parts * 192 proof bytes. With --params every partition proof
 * is also verified here with DIR/<stem>.vk against public inputs recomputed from the generated request. Without it the
 * daemon's self-verification is the check (self_verify = true, the default: each partition verified against the key
 * before it is returned): the daemon's count of verified partitions (czk_stage_seconds_count{stage="verify"}) must
 * equal the partitions proved. Anything else is a failure; the exit code is 1 when there was any.
 *
 * Output: per kind the client latency (min/p50/p95/max/mean) and throughput; the daemon's stage breakdown per kind
 * (deltas of czk_stage_seconds over the run: parse, native checks, witness + a/b/c, prover check, H, each MSM, the
 * device's wait for streamed key queries, finish, verify; the bytes those uploaded per partition; plus the queue/synthesis/prove means of AwaitProof); per device busy % and idle causes; the spawned
 * daemon's peak RSS during the run against the budget's reservations; the keys and their tiers. Never asserts on
 * time. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/client.h"
#include "bench/bench.h"
#include "bench/bench_client.h"
#include "core/clock.h"
#include "core/units.h"
#include "czk/engine.h"
#include "czk/groth16.h"
#include "czk/hash.h"
#include "czk/kinds.h"
#include "czk/porep.h"
#include "czk/post.h"
#include "czk/snap.h"

enum { K_POREP, K_WINDOW, K_WINNING, K_SNAP, K_COUNT };
static const char *const k_names[K_COUNT] = {"porep", "window-post", "winning-post", "snap"};
static const int k_default_prio[K_COUNT] = {2, 3, 4, 2}; /* normal, high, critical, normal */

#define MAX_MIX 8
#define MINER 1000
#define SECTOR 1

/* ------------------------------------------------------------------------------------------------------------------ */
/* One generated request of a kind, shared by its jobs. */

typedef struct fc_input {
  int kind;
  char engine_kind[64]; /* the daemon's kind name (metric labels) */
  char circuit_id[32];  /* PreloadSRS */
  char stem[256];       /* v28 file stem of its key */
  uint32_t parts;
  Cuzk__V1__SubmitProofRequest req; /* points into the fields below */
  uint8_t randomness[32], comm_r_old[32], comm_d_new[32], comm_r_new[32];
  uint8_t *one;
  ProtobufCBinaryData *vps;
  size_t nvps, bytes;
  size_t n_pub;
  czk_fr *pub; /* parts * n_pub: what each partition proof verifies against */
  double gen_s, preload_s;
  bool preload_ok;
} fc_input;

static void input_free(fc_input *in) {
  free(in->one);
  for (size_t i = 0; in->vps && i < in->nvps; i++) free(in->vps[i].data);
  free(in->vps);
  free(in->pub);
  memset(in, 0, sizeof *in);
}

/* "1.23 GiB" / "45.6 MiB" / "789 KiB". */
static void fmt_bytes(char *out, size_t n, uint64_t v) {
  if (v >= (1ull << 30)) snprintf(out, n, "%.2f GiB", (double)v / (double)(1ull << 30));
  else if (v >= (1ull << 20)) snprintf(out, n, "%.1f MiB", (double)v / (double)(1ull << 20));
  else snprintf(out, n, "%.0f KiB", (double)v / 1024.0);
}

static void post_randomness(uint8_t r[32], uint64_t seed) {
  uint8_t msg[24] = "czk-randomness";
  for (int i = 0; i < 8; i++) msg[16 + i] = (uint8_t)(seed >> (8 * i));
  czk_sha256(r, msg, sizeof msg);
  r[31] &= 0x3f; /* a canonical field element */
}

static czk_status gen_porep(fc_input *in, uint64_t size, uint64_t seed) {
  const czk_porep_info *any = czk_porep_info_for_size(size);
  if (!any) return CZK_ERR_INVALID_ARG;
  const czk_porep_info *info = czk_porep_info_by_wire(5 + any->wire % 5); /* interactive V1_1 */
  czk_porep_c1 c1;
  CZK_TRY(czk_porep_generate(info, CZK_POREP_GEN_SPARSE, seed, MINER, SECTOR, &c1));
  char *json = NULL, *env = NULL;
  size_t jlen = 0, elen = 0;
  FILE *f = open_memstream(&json, &jlen);
  czk_status st = f ? czk_porep_c1_write(&c1, f) : CZK_ERR_NOMEM;
  if (f) fclose(f);
  FILE *g = st == CZK_OK ? open_memstream(&env, &elen) : NULL;
  if (st == CZK_OK) st = g ? czk_porep_envelope_write(g, (const uint8_t *)json, jlen, SECTOR, size) : CZK_ERR_NOMEM;
  if (g) fclose(g);
  free(json);
  in->parts = info->partitions;
  in->n_pub = 3 + 18 * (size_t)info->challenges;
  in->pub = st == CZK_OK ? malloc(in->parts * in->n_pub * sizeof *in->pub) : NULL;
  if (st == CZK_OK && !in->pub) st = CZK_ERR_NOMEM;
  for (uint32_t k = 0; k < in->parts && st == CZK_OK; k++)
    st = czk_porep_public_inputs(info, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, k, in->pub + k * in->n_pub,
                                 in->n_pub);
  czk_porep_c1_free(&c1);
  if (st != CZK_OK) {
    free(env);
    return st;
  }
  in->one = (uint8_t *)env;
  in->bytes = elen;
  in->req.proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
  in->req.registered_proof = info->wire;
  in->req.sector_number = SECTOR;
  in->req.vanilla_proof = (ProtobufCBinaryData){elen, in->one};
  snprintf(in->circuit_id, sizeof in->circuit_id, "%s", czk_porep_circuit_id(info));
  czk_porep_param_stem(info, in->stem, sizeof in->stem);
  return CZK_OK;
}

static czk_status gen_post(fc_input *in, uint64_t size, uint64_t seed, uint32_t sectors) {
  bool winning = in->kind == K_WINNING;
  const czk_post_info *info = czk_post_info_find(winning ? CZK_POST_WINNING : CZK_POST_WINDOW, size, 2);
  if (!info) return CZK_ERR_INVALID_ARG;
  size_t n = winning ? 1 : sectors ? sectors : info->sector_count;
  if (n > info->sector_count) return CZK_ERR_LIMIT;
  post_randomness(in->randomness, seed);
  size_t vsize = czk_post_vanilla_size(info);
  uint64_t *ids = calloc(n, sizeof *ids);
  uint8_t(*cr)[32] = calloc(n, 32);
  in->vps = calloc(n, sizeof *in->vps);
  in->n_pub = czk_post_num_public_inputs(info);
  in->pub = malloc(in->n_pub * sizeof *in->pub);
  czk_status st = ids && cr && in->vps && in->pub ? CZK_OK : CZK_ERR_NOMEM;
  for (size_t i = 0; i < n && st == CZK_OK; i++) {
    czk_post_sector s;
    st = czk_post_generate(info, CZK_POST_GEN_SPARSE, seed, SECTOR + i, winning ? 0 : i, in->randomness, NULL, NULL,
                           &s);
    if (st != CZK_OK) break;
    uint8_t *buf = malloc(vsize);
    st = buf ? czk_post_vanilla_write(info, &s, buf, vsize) : CZK_ERR_NOMEM;
    ids[i] = s.sector_id;
    memcpy(cr[i], s.comm_r, 32);
    czk_post_sector_free(&s);
    if (st != CZK_OK) {
      free(buf);
      break;
    }
    in->vps[in->nvps++] = (ProtobufCBinaryData){vsize, buf};
    in->bytes += vsize;
  }
  if (st == CZK_OK)
    st = czk_post_public_inputs(info, ids, (const uint8_t(*)[32])cr, n, in->randomness, 0, in->pub, in->n_pub);
  free(ids);
  free(cr);
  CZK_TRY(st);
  in->parts = 1;
  in->req.proof_kind = winning ? CUZK__V1__PROOF_KIND__WINNING_POST : CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION;
  in->req.registered_proof = info->wire;
  in->req.randomness = (ProtobufCBinaryData){32, in->randomness};
  in->req.n_vanilla_proofs = in->nvps;
  in->req.vanilla_proofs = in->vps;
  snprintf(in->circuit_id, sizeof in->circuit_id, "%s", czk_post_circuit_id(info));
  czk_post_param_stem(info, in->stem, sizeof in->stem);
  return CZK_OK;
}

static czk_status gen_snap(fc_input *in, uint64_t size, uint64_t seed) {
  const czk_snap_info *info = czk_snap_info_for_size(size);
  if (!info) return CZK_ERR_INVALID_ARG;
  czk_snap_gen_input gi = {.mode = CZK_SNAP_GEN_SPARSE, .seed = seed};
  czk_snap_update u;
  CZK_TRY(czk_snap_generate(info, &gi, &u));
  size_t vsize = czk_snap_partition_size(info);
  in->parts = u.n_parts;
  in->n_pub = CZK_SNAP_PUBLIC_INPUTS;
  in->vps = calloc(u.n_parts, sizeof *in->vps);
  in->pub = malloc((size_t)u.n_parts * in->n_pub * sizeof *in->pub);
  czk_status st = in->vps && in->pub ? CZK_OK : CZK_ERR_NOMEM;
  for (uint32_t k = 0; k < u.n_parts && st == CZK_OK; k++) {
    uint8_t *buf = malloc(vsize);
    st = buf ? czk_snap_partition_write(info, &u.parts[k], buf, vsize) : CZK_ERR_NOMEM;
    if (st == CZK_OK) st = czk_snap_public_inputs(info, &u.comms, k, in->pub + (size_t)k * in->n_pub);
    if (st != CZK_OK) {
      free(buf);
      break;
    }
    in->vps[in->nvps++] = (ProtobufCBinaryData){vsize, buf};
    in->bytes += vsize;
  }
  memcpy(in->comm_r_old, u.comms.comm_r_old, 32);
  memcpy(in->comm_d_new, u.comms.comm_d_new, 32);
  memcpy(in->comm_r_new, u.comms.comm_r_new, 32);
  czk_snap_update_free(&u);
  CZK_TRY(st);
  in->req.proof_kind = CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE;
  in->req.registered_proof = info->wire;
  in->req.sector_number = SECTOR;
  in->req.comm_r_old = (ProtobufCBinaryData){32, in->comm_r_old};
  in->req.comm_d_new = (ProtobufCBinaryData){32, in->comm_d_new};
  in->req.comm_r_new = (ProtobufCBinaryData){32, in->comm_r_new};
  in->req.n_vanilla_proofs = in->nvps;
  in->req.vanilla_proofs = in->vps;
  snprintf(in->circuit_id, sizeof in->circuit_id, "%s", czk_snap_circuit_id(info));
  czk_snap_param_stem(info, in->stem, sizeof in->stem);
  return CZK_OK;
}

/* The request of `kind` at `size` (its public inputs kept for --params verification). */
static int gen_input(fc_input *in, int kind, uint64_t size, uint64_t seed, uint32_t sectors) {
  memset(in, 0, sizeof *in);
  in->kind = kind;
  cuzk__v1__submit_proof_request__init(&in->req);
  in->req.sector_size = size;
  in->req.miner_id = MINER;
  double t0 = czk__now_s();
  czk_status st = kind == K_POREP  ? gen_porep(in, size, seed)
                  : kind == K_SNAP ? gen_snap(in, size, seed)
                                   : gen_post(in, size, seed, sectors);
  in->gen_s = czk__now_s() - t0;
  if (st != CZK_OK) {
    fprintf(stderr, "czk bench filecoin: generating the %s input: %s\n", k_names[kind], czk_status_str(st));
    return 1;
  }
  /* the daemon's kind name, exactly as it maps the request (its metric label) */
  const czk_bytes *vb = NULL;
  czk_bytes *vv = in->nvps ? calloc(in->nvps, sizeof *vv) : NULL;
  for (size_t i = 0; vv && i < in->nvps; i++) vv[i] = (czk_bytes){in->vps[i].data, in->vps[i].len};
  vb = vv;
  czk_kind_request kr = {.proof_kind = (uint32_t)in->req.proof_kind, .sector_size = size,
                         .registered_proof = in->req.registered_proof, .vanilla_proofs = vb, .n_vanilla_proofs = in->nvps};
  char err[256];
  st = czk_kind_name_for(&kr, 10, in->engine_kind, sizeof in->engine_kind, err, sizeof err);
  free(vv);
  if (st != CZK_OK) {
    fprintf(stderr, "czk bench filecoin: %s: %s\n", k_names[kind], err);
    return 1;
  }
  char b[32];
  fmt_bytes(b, sizeof b, in->bytes);
  fprintf(stderr, "czk bench: %s input: %u partition(s), %s of vanilla proofs, generated in %.2f s\n", in->engine_kind,
          in->parts, b, in->gen_s);
  return 0;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Jobs. */

typedef struct fc_mix {
  fc_input *in;
  int prio;
  double rate; /* 0: a backlog of --jobs N */
  char label[48];
} fc_mix;

typedef struct fc_job {
  const fc_mix *m;
  double t_submit, t_done;
  int code, status;
  uint8_t *proof;
  size_t proof_len;
  uint64_t queue_ms, synth_ms, gpu_ms, total_ms;
  char job_id[24];
  char err[300];
  bool ok;     /* COMPLETED with parts * 192 bytes */
  int vk_bad;  /* --params: partitions that did not verify with the .vk (-1: not checked) */
  atomic_int done; /* its result is in (set last) */
} fc_job;

static void prove_job_once(const char *addr, fc_job *j) {
  Cuzk__V1__SubmitProofRequest r = j->m->in->req; /* a shallow copy: the input's bytes are shared */
  r.priority = (Cuzk__V1__Priority)j->m->prio;
  Cuzk__V1__ProveResponse *out;
  j->vk_bad = -1;
  j->code = czk__bench_prove_call(addr, &r, &j->t_submit, &j->t_done, &out, j->err, sizeof j->err);
  if (j->code) return;
  const Cuzk__V1__AwaitProofResponse *a = out->result;
  if (!a) {
    snprintf(j->err, sizeof j->err, "ProveResponse without a result");
  } else {
    j->status = a->status;
    j->queue_ms = a->queue_wait_ms;
    j->synth_ms = a->synthesis_ms;
    j->gpu_ms = a->gpu_compute_ms;
    j->total_ms = a->total_ms;
    if (a->job_id) snprintf(j->job_id, sizeof j->job_id, "%s", a->job_id);
    if (a->error_message && *a->error_message) snprintf(j->err, sizeof j->err, "%s", a->error_message);
    size_t want = (size_t)j->m->in->parts * CZK_GROTH16_PROOF_BYTES;
    bool done = a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    if (done && a->proof.len == want && (j->proof = malloc(want)) != NULL) {
      memcpy(j->proof, a->proof.data, want);
      j->proof_len = want;
      j->ok = true;
    } else if (done) {
      snprintf(j->err, sizeof j->err, "COMPLETED with %zu proof bytes, expected %zu", a->proof.len, want);
    }
  }
  protobuf_c_message_free_unpacked(&out->base, NULL);
}
static void prove_job(const char *addr, fc_job *j) {
  prove_job_once(addr, j);
  atomic_store(&j->done, 1);
}

typedef struct run_state {
  const char *addr;
  fc_job *jobs;            /* backlog jobs first, then arrivals */
  size_t nbacklog, cap;
  atomic_size_t next;      /* the next backlog job to take */
  atomic_size_t backlog_done, inflight;
  atomic_bool stop; /* --max-wall reached: no backlog job is taken any more */
} run_state;

static void *backlog_worker(void *arg) {
  run_state *rs = arg;
  for (;;) {
    if (atomic_load(&rs->stop)) break;
    size_t i = atomic_fetch_add(&rs->next, 1);
    if (i >= rs->nbacklog) break;
    prove_job(rs->addr, &rs->jobs[i]);
    atomic_fetch_add(&rs->backlog_done, 1);
  }
  return NULL;
}

typedef struct arrival {
  run_state *rs;
  fc_job *j;
} arrival;

static void *arrival_worker(void *arg) {
  arrival *a = arg;
  prove_job(a->rs->addr, a->j);
  atomic_fetch_sub(&a->rs->inflight, 1);
  free(a);
  return NULL;
}

static void sleep_s(double s) {
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* xorshift64*: seeded exponential inter-arrival gaps (a Poisson process of the entry's rate) */
static double next_gap(uint64_t *s, double rate) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  double u = (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
  return -log(1.0 - u) / rate;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Reading the daemon's /metrics text (GetMetrics). */

static char *metrics_text(const char *addr) {
  Cuzk__V1__GetMetricsRequest r = CUZK__V1__GET_METRICS_REQUEST__INIT;
  ProtobufCMessage *o;
  if (czk__client_call(addr, "/cuzk.v1.ProvingEngine/GetMetrics", &r.base, &cuzk__v1__get_metrics_response__descriptor,
                       &o, 10000, true, NULL, 0))
    return NULL;
  const char *t = ((const Cuzk__V1__GetMetricsResponse *)o)->prometheus_text;
  char *copy = strdup(t ? t : "");
  protobuf_c_message_free_unpacked(o, NULL);
  return copy;
}

/* The value of the sample `name{...}` whose labels include every `key="value"` of want (NULL-terminated pairs); 0
 * when absent. */
static double metric(const char *text, const char *name, const char *const *want) {
  size_t nl = strlen(name);
  for (const char *p = text; p && *p;) {
    const char *eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    if (strncmp(p, name, nl) == 0 && (p[nl] == '{' || p[nl] == ' ')) {
      const char *close = p[nl] == '{' ? memchr(p, '}', (size_t)(eol - p)) : p + nl;
      bool match = close != NULL;
      for (size_t i = 0; match && want && want[i]; i += 2) {
        char needle[160];
        snprintf(needle, sizeof needle, "%s=\"%s\"", want[i], want[i + 1]);
        const char *f = strstr(p + nl, needle);
        match = f && f < close && (f[-1] == '{' || f[-1] == ',');
      }
      if (match) return strtod(close + 1, NULL);
    }
    p = *eol ? eol + 1 : NULL;
  }
  return 0;
}

static double stage_delta(const char *a, const char *b, const char *kind, const char *stage, bool count) {
  const char *want[] = {"kind", kind, "stage", stage, NULL};
  const char *name = count ? "czk_stage_seconds_count" : "czk_stage_seconds_sum";
  return metric(b, name, want) - metric(a, name, want);
}

/* VmHWM / VmRSS of a process in bytes (0 when unreadable). */
static uint64_t pid_bytes(pid_t pid, const char *field) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t fl = strlen(field);
  uint64_t v = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
      v = strtoull(line + fl + 1, NULL, 10) * 1024;
      break;
    }
  fclose(f);
  return v;
}

/* VmHWM becomes the current RSS (Linux >= 4.0; our own child). */
static bool pid_reset_peak(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/clear_refs", (int)pid);
  FILE *f = fopen(path, "w");
  if (!f) return false;
  bool ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Report. */

static void print_stages(const fc_input *in, const char *ma, const char *mb, const fc_job *jobs, size_t n) {
  static const char *const label[CZK_STAGE_COUNT] = {
      "parse (decode)",       "native checks + inputs", "witness",   "a/b/c",
      "witness + a/b/c",      "prover check",           "H (NTTs)",  "MSM h",
      "MSM l",                "MSM a",                  "MSM b_g1",  "MSM b_g2",
      "upload wait (streamed)", "finish",               "verify"};
  printf("\n%-30s %8s %12s %11s   %s\n", "STAGES (daemon)", "COUNT", "MEAN (ms)", "TOTAL (s)", in->engine_kind);
  unsigned rows = 0;
  for (int s = 0; s < CZK_STAGE_COUNT; s++) {
    double c = stage_delta(ma, mb, in->engine_kind, czk_stage_str((czk_stage)s), true);
    double t = stage_delta(ma, mb, in->engine_kind, czk_stage_str((czk_stage)s), false);
    if (c < 0.5) continue;
    printf("%-30s %8.0f %12.2f %11.3f\n", label[s], c, 1e3 * t / c, t);
    rows++;
  }
  /* the streamed key queries' bytes uploaded by the proves (their wait is the stage "upload wait" above) */
  const char *kw[] = {"kind", in->engine_kind, NULL};
  const double parts = metric(mb, "czk_partitions_proved_total", kw) - metric(ma, "czk_partitions_proved_total", kw);
  const double up = metric(mb, "czk_prove_upload_bytes_total", kw) - metric(ma, "czk_prove_upload_bytes_total", kw);
  if (parts >= 0.5 && up > 0)
    printf("%-30s %8.0f   %.1f MiB per partition, %.2f GiB in all\n", "upload bytes (streamed)", parts,
           up / parts / 1048576.0, up / 1073741824.0);
  if (!rows) printf("(no proof of this kind was produced in the run)\n");
  double q = 0, sy = 0, g = 0, tot = 0;
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (jobs[i].ok && jobs[i].m->in == in) {
      q += (double)jobs[i].queue_ms, sy += (double)jobs[i].synth_ms, g += (double)jobs[i].gpu_ms;
      tot += (double)jobs[i].total_ms, m++;
    }
  if (m)
    printf("%-30s %8zu %12.2f\n%-30s %8zu %12.2f\n%-30s %8zu %12.2f\n%-30s %8zu %12.2f\n", "job: queue wait", m,
           q / (double)m, "job: synthesis (sum of parts)", m, sy / (double)m, "job: prove (sum of parts)", m,
           g / (double)m, "job: total (engine)", m, tot / (double)m);
}

static void print_keys(const char *text) {
  printf("\n%-16s %-8s %-8s %12s\n", "KEY", "TIER", "WHERE", "BYTES");
  size_t nl = strlen("czk_keys_resident_bytes{");
  unsigned rows = 0;
  for (const char *p = text; p && *p;) {
    const char *eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    if (strncmp(p, "czk_keys_resident_bytes{", nl) == 0) {
      char key[64] = "", tier[16] = "", dev[16] = "";
      const char *k = strstr(p, "key=\""), *t = strstr(p, "tier=\""), *d = strstr(p, "device=\"");
      if (k && t && d && k < eol && t < eol && d < eol && sscanf(k, "key=\"%63[^\"]", key) == 1 &&
          sscanf(t, "tier=\"%15[^\"]", tier) == 1 && sscanf(d, "device=\"%15[^\"]", dev) == 1) {
        const char *close = memchr(p, '}', (size_t)(eol - p));
        char b[32];
        fmt_bytes(b, sizeof b, close ? (uint64_t)strtod(close + 1, NULL) : 0);
        printf("%-16s %-8s %-8s %12s\n", key, tier, strcmp(dev, "host") == 0 ? "host" : dev, b);
        rows++;
      }
    }
    p = *eol ? eol + 1 : NULL;
  }
  if (!rows) printf("(no keys reported)\n");
  /* the device memory plan (czk_device_memory_plan_bytes): limit, key copies, lanes, tables */
  const char *parts[4] = {"limit", "keys", "lanes", "tables"};
  bool any = false;
  for (int d = 0; d < 8; d++) {
    char dv[8], out[4][32];
    snprintf(dv, sizeof dv, "%d", d);
    bool have = false;
    for (int i = 0; i < 4; i++) {
      const char *kw[] = {"device", dv, "part", parts[i], NULL};
      double v = metric(text, "czk_device_memory_plan_bytes", kw);
      have |= v > 0;
      fmt_bytes(out[i], sizeof out[i], (uint64_t)v);
    }
    if (!have) continue;
    const char *kd[] = {"device", dv, NULL};
    char lim[32] = "-", pk[32] = "-";
    const double lv = metric(text, "czk_device_memory_limit_bytes", kd), pv = metric(text, "czk_device_memory_peak_bytes", kd);
    if (lv > 0) fmt_bytes(lim, sizeof lim, (uint64_t)lv);
    if (pv > 0) fmt_bytes(pk, sizeof pk, (uint64_t)pv);
    if (!any)
      printf("\n%-8s %12s %12s %12s %12s %12s %14s\n", "DEVICE", "LIMIT", "PLAN", "KEY COPIES", "LANES", "TABLES",
             "PEAK USED");
    any = true;
    printf("%-8d %12s %12s %12s %12s %12s %14s\n", d, lim, out[0], out[1], out[2], out[3], pk);
  }
  /* each key's tier per device (czk_key_device_tier) */
  bool hdr = false;
  for (const char *q = strstr(text, "\nczk_key_device_tier{"); q; q = strstr(q + 1, "\nczk_key_device_tier{")) {
    char key[64] = "", dv[8] = "", tier[16] = "", lanes[16] = "";
    double v = 0;
    const char *k = strstr(q, "key=\""), *d = strstr(q, "device=\""), *t = strstr(q, "tier=\""),
               *l = strstr(q, "lanes=\""), *c = strchr(q + 1, '}');
    if (!k || !d || !t || !l || !c || sscanf(k, "key=\"%63[^\"]", key) != 1 || sscanf(d, "device=\"%7[^\"]", dv) != 1 ||
        sscanf(t, "tier=\"%15[^\"]", tier) != 1 || sscanf(l, "lanes=\"%15[^\"]", lanes) != 1 ||
        sscanf(c + 1, "%lf", &v) != 1)
      continue;
    if (!hdr) printf("\n%-16s %-8s %-10s %-8s %12s\n", "KEY", "DEVICE", "TIER", "LANES", "COPY");
    hdr = true;
    char b[32];
    fmt_bytes(b, sizeof b, (uint64_t)v);
    printf("%-16s %-8s %-10s %-8s %12s\n", key, dv, tier, lanes, b);
  }
}

static void print_memory(const char *text, pid_t pid, uint64_t preload_peak) {
  char lim[32], peak[32], key[32], rss[32], pre[32];
  fmt_bytes(lim, sizeof lim, (uint64_t)metric(text, "czk_memory_limit_bytes", NULL));
  fmt_bytes(peak, sizeof peak, (uint64_t)metric(text, "czk_memory_peak_bytes", NULL));
  const char *kw[] = {"category", "key", NULL};
  fmt_bytes(key, sizeof key, (uint64_t)metric(text, "czk_memory_used_bytes", kw));
  printf("\nMEMORY (host)\n");
  printf("  budget %s; reservations: peak %s since start (keys %s now)\n", lim, peak, key);
  if (pid > 0) {
    fmt_bytes(rss, sizeof rss, pid_bytes(pid, "VmHWM"));
    fmt_bytes(pre, sizeof pre, preload_peak);
    printf("  daemon peak RSS during the run %s (VmHWM, reset after the preload); during key setup/preload %s\n", rss,
           pre);
  } else {
    printf("  daemon peak RSS: not known (the daemon was not spawned by this run)\n");
  }
}

/* --params: verify each partition proof of the good jobs with DIR/<stem>.vk. Returns the partitions that failed. */
static size_t verify_with_vk(const char *dir, fc_input *ins, int nin, fc_job *jobs, size_t n, size_t *checked) {
  size_t bad = 0;
  *checked = 0;
  for (int i = 0; i < nin; i++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s.vk", dir, ins[i].stem);
    czk_groth16_vk vk;
    czk_status st = czk_groth16_vk_read(&vk, path, false);
    for (size_t j = 0; j < n; j++) {
      fc_job *jb = &jobs[j];
      if (!jb->ok || jb->m->in != &ins[i]) continue;
      jb->vk_bad = 0;
      for (uint32_t k = 0; k < ins[i].parts; k++) {
        czk_groth16_proof p;
        czk_status vs = st;
        if (vs == CZK_OK) vs = czk_groth16_proof_decode(&p, jb->proof + (size_t)k * CZK_GROTH16_PROOF_BYTES);
        if (vs == CZK_OK) vs = czk_groth16_verify(&vk, &p, ins[i].pub + k * ins[i].n_pub, ins[i].n_pub);
        (*checked)++;
        if (vs != CZK_OK) {
          jb->vk_bad++;
          bad++;
          if (jb->vk_bad == 1)
            snprintf(jb->err, sizeof jb->err, "partition %u does not verify with %.200s: %s", k, path,
                     czk_status_str(vs));
        }
      }
    }
    if (st == CZK_OK) czk_groth16_vk_free(&vk);
  }
  return bad;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Options. */

typedef struct fc_opts {
  const char *addr, *params, *keys, *daemon_args, *mix_spec, *gpu_limit;
  bool spawn;
  int kind;
  uint64_t size;
  unsigned jobs, inflight, sectors;
  uint64_t seed;
  double duration, max_wall;
} fc_opts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: czk bench filecoin (--kind KIND | --mix SPEC) --sector-size S [--jobs N] (--spawn | --addr ADDR)\n"
          "Real Filecoin proofs through a daemon: inputs generated in process (sparse, any size), full-size keys, every\n"
          "proof checked; client latency, the daemon's stage breakdown, device busy %%, peak RSS and key tiers.\n"
          "\n"
          "  --kind KIND          porep, window-post, winning-post or snap: a backlog of --jobs N jobs\n"
          "  --mix SPEC           comma list of KIND[:RATE[:PRIORITY]]: KIND alone is a backlog of --jobs N; KIND:RATE\n"
          "                       arrives at RATE jobs/s (Poisson, --seed) while a backlog lasts (or --duration S);\n"
          "                       e.g. \"porep,window-post:0.2,winning-post:0.05\"\n"
          "  --sector-size S      2KiB, 8MiB, 512MiB, 32GiB, 64GiB (default 32GiB)\n"
          "  -n, --jobs N         jobs of each backlog (default 4)\n"
          "  --inflight C         backlog jobs in flight at once (default: all of them; 1 = one after another)\n"
          "  --duration S         seconds of arrivals (required when the mix has no backlog)\n"
          "  --max-wall S         with --spawn: after S seconds of the run, the results so far (tables of the jobs done;\n"
          "                       the rest are cancelled by stopping the daemon; exit code 1)\n"
          "  --sectors N          window-post: sectors in the partition (default: the proof's full partition)\n"
          "  --seed S             input seed (default 1)\n"
          "  --spawn              start a private daemon (param_dir: an empty temp directory, setup_in_memory = true:\n"
          "                       each key set up in memory, full size) and stop it at the end\n"
          "  --params DIR         the key files (v28 names) in DIR: with --spawn the daemon's param_dir (no in-memory\n"
          "                       setup); every partition proof is also verified here with DIR/<stem>.vk\n"
          "  --addr ADDR          a running daemon instead of --spawn (default: the daemon's default socket)\n"
          "  --keys-dir DIR       with --spawn: the daemon's keys_dir (default: a temp directory)\n"
          "  --daemon-args \"...\"  with --spawn: more daemon flags, e.g. \"--gpus none --synthesis-workers 1\"\n"
          "  --gpu-memory-limit S  with --spawn: the daemon uses at most S of each GPU (a smaller card emulated)\n"
          "\n"
          "A job is good when it returned COMPLETED with parts x 192 proof bytes, and its partitions verified: with\n"
          "--params here against the .vk, else by the daemon's self-verification (self_verify = true), whose count must\n"
          "equal the partitions proved. Exit code 1 when anything failed.\n");
}

static bool kind_by_name(const char *s, int *out) {
  for (int k = 0; k < K_COUNT; k++)
    if (strcmp(s, k_names[k]) == 0) return *out = k, true;
  return false;
}

/* --mix: fills mix[] (its `in` is an index into the inputs, as a pointer set later); returns the count, 0 on error. */
static int parse_mix(const char *spec, fc_mix *mix, int *kinds) {
  char *copy = strdup(spec), *save = NULL;
  int n = 0;
  bool ok = copy != NULL;
  for (char *e = ok ? strtok_r(copy, ",", &save) : NULL; ok && e; e = strtok_r(NULL, ",", &save)) {
    if (n == MAX_MIX) {
      ok = false;
      break;
    }
    fc_mix *m = &mix[n];
    memset(m, 0, sizeof *m);
    char *s2 = NULL, *name = strtok_r(e, ":", &s2), *rate = strtok_r(NULL, ":", &s2), *prio = strtok_r(NULL, ":", &s2);
    ok = name && kind_by_name(name, &kinds[n]) && !strtok_r(NULL, ":", &s2);
    m->prio = ok ? k_default_prio[kinds[n]] : 0;
    if (ok && rate) {
      char *end;
      m->rate = strtod(rate, &end);
      ok = !*end && m->rate > 0 && m->rate <= 1000;
    }
    if (ok && prio) ok = (m->prio = czk__client_parse_priority(prio)) >= 0;
    if (!ok) fprintf(stderr, "czk bench filecoin: bad mix entry '%s' (KIND[:RATE[:PRIORITY]])\n", e);
    n++;
  }
  free(copy);
  return ok ? n : 0;
}

static int parse_opts(int argc, char **argv, fc_opts *o) {
  memset(o, 0, sizeof *o);
  o->addr = czk__client_default_addr();
  o->kind = -1;
  o->size = 32ull << 30;
  o->jobs = 4;
  o->seed = 1;
  enum { O_KIND = 256, O_MIX, O_SIZE, O_INFL, O_DUR, O_SECT, O_SEED, O_SPAWN, O_PARAMS, O_ADDR, O_KEYS, O_DARGS, O_GLIM,
         O_MAXW };
  static const struct option lo[] = {
      {"kind", 1, 0, O_KIND},     {"mix", 1, 0, O_MIX},         {"sector-size", 1, 0, O_SIZE},
      {"jobs", 1, 0, 'n'},        {"inflight", 1, 0, O_INFL},   {"duration", 1, 0, O_DUR},      {"max-wall", 1, 0, O_MAXW},
      {"sectors", 1, 0, O_SECT},  {"seed", 1, 0, O_SEED},       {"spawn", 0, 0, O_SPAWN},
      {"params", 1, 0, O_PARAMS}, {"addr", 1, 0, O_ADDR},       {"keys-dir", 1, 0, O_KEYS},
      {"daemon-args", 1, 0, O_DARGS}, {"gpu-memory-limit", 1, 0, O_GLIM}, {"help", 0, 0, 'h'},
      {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "hn:", lo, NULL)) != -1) {
    char *end;
    switch (c) {
    case O_KIND:
      if (!kind_by_name(optarg, &o->kind)) goto bad;
      break;
    case O_MIX: o->mix_spec = optarg; break;
    case O_SIZE:
      if (!czk__parse_size(optarg, &o->size)) goto bad;
      break;
    case 'n':
      if (!czk__bench_parse_uint(optarg, 1, 100000, &o->jobs)) goto bad;
      break;
    case O_INFL:
      if (!czk__bench_parse_uint(optarg, 1, 100000, &o->inflight)) goto bad;
      break;
    case O_DUR:
      o->duration = strtod(optarg, &end);
      if (*end || !(o->duration > 0) || o->duration > 86400) goto bad;
      break;
    case O_MAXW:
      o->max_wall = strtod(optarg, &end);
      if (*end || !(o->max_wall > 0) || o->max_wall > 864000) goto bad;
      break;
    case O_SECT:
      if (!czk__bench_parse_uint(optarg, 1, 1u << 20, &o->sectors)) goto bad;
      break;
    case O_SEED:
      o->seed = strtoull(optarg, &end, 10);
      if (!*optarg || *end) goto bad;
      break;
    case O_SPAWN: o->spawn = true; break;
    case O_PARAMS: o->params = optarg; break;
    case O_ADDR: o->addr = optarg; break;
    case O_KEYS: o->keys = optarg; break;
    case O_DARGS: o->daemon_args = optarg; break;
    case O_GLIM: {
      uint64_t v;
      if (!czk__parse_size(optarg, &v)) goto bad;
      o->gpu_limit = optarg;
      break;
    }
    case 'h': usage(stdout); return -1;
    default: usage(stderr); return 2;
    }
    continue;
  bad:
    fprintf(stderr, "czk bench filecoin: bad value '%s' for %s\n", optarg, argv[optind - 1]);
    return 2;
  }
  if (optind < argc) return fprintf(stderr, "czk bench filecoin: unexpected argument '%s'\n", argv[optind]), 2;
  if ((o->kind >= 0) == (o->mix_spec != NULL))
    return fprintf(stderr, "czk bench filecoin: give one of --kind and --mix (--help)\n"), 2;
  if (!o->spawn && (o->daemon_args || o->keys || o->gpu_limit || o->max_wall > 0))
    return fprintf(stderr, "czk bench filecoin: --daemon-args, --gpu-memory-limit, --keys-dir and --max-wall need "
                           "--spawn\n"),
           2;
  struct stat sb;
  if (o->params && (stat(o->params, &sb) != 0 || !S_ISDIR(sb.st_mode)))
    return fprintf(stderr, "czk bench filecoin: --params %s is not a directory\n", o->params), 2;
  return 0;
}

/* ------------------------------------------------------------------------------------------------------------------ */

static int run(const fc_opts *o, fc_input *ins, int nin, fc_mix *mix, int nmix, const char *addr, pid_t pid) {
  int rc = 0;
  /* keys first: their setup or load is reported, not timed with the jobs */
  for (int i = 0; i < nin; i++) {
    char err[400] = "";
    ins[i].preload_ok = czk__bench_preload(addr, ins[i].circuit_id, &ins[i].preload_s, err, sizeof err) == 0;
    if (!ins[i].preload_ok) {
      fprintf(stderr, "czk bench filecoin: PreloadSRS %s failed after %.2f s: %s (its jobs will fail)\n",
              ins[i].circuit_id, ins[i].preload_s, err);
      rc = 1;
    }
  }
  uint64_t preload_peak = pid > 0 ? pid_bytes(pid, "VmHWM") : 0;
  if (pid > 0 && !pid_reset_peak(pid)) fprintf(stderr, "czk bench: cannot reset the daemon's peak RSS\n");

  size_t nbacklog = 0;
  bool arrivals = false;
  for (int m = 0; m < nmix; m++) {
    if (mix[m].rate > 0) arrivals = true;
    else nbacklog += o->jobs;
  }
  run_state rs = {.addr = addr, .nbacklog = nbacklog, .cap = nbacklog + 64};
  rs.jobs = calloc(rs.cap, sizeof *rs.jobs);
  unsigned nthreads = o->inflight && o->inflight < nbacklog ? o->inflight : (unsigned)nbacklog;
  pthread_t *bth = calloc(nthreads ? nthreads : 1, sizeof *bth);
  size_t ath_cap = 64, nath = 0;
  pthread_t *ath = malloc(ath_cap * sizeof *ath);
  if (!rs.jobs || !bth || !ath) {
    free(rs.jobs), free(bth), free(ath);
    return 1;
  }
  /* backlog jobs interleaved by kind, in submission order */
  size_t at = 0;
  for (unsigned i = 0; i < o->jobs; i++)
    for (int m = 0; m < nmix; m++)
      if (mix[m].rate == 0) rs.jobs[at++].m = &mix[m];

  char ss[32];
  fmt_bytes(ss, sizeof ss, o->size);
  printf("czk bench filecoin: %s sectors, daemon %s%s, keys %s\n", ss, addr, o->spawn ? " (spawned)" : "",
         o->params ? "from --params" : o->spawn ? "set up in memory by the daemon" : "the daemon's");
  printf("%-26s %-9s %-28s %6s %10s %12s\n", "MIX", "PRIORITY", "ARRIVALS", "PARTS", "INPUT (s)", "PRELOAD (s)");
  for (int m = 0; m < nmix; m++) {
    char arr[40];
    if (mix[m].rate > 0) snprintf(arr, sizeof arr, "%.4g jobs/s (Poisson)", mix[m].rate);
    else snprintf(arr, sizeof arr, "backlog of %u", o->jobs);
    printf("%-26s %-9s %-28s %6u %10.2f %12.2f\n", mix[m].in->engine_kind, czk__client_priority_name(mix[m].prio),
           arr, mix[m].in->parts, mix[m].in->gen_s, mix[m].in->preload_s);
  }
  fflush(stdout);

  czk__bench_devsnap *d0 = czk__bench_devsnap_take(addr);
  char *m0 = metrics_text(addr);
  double t0 = czk__now_s();
  unsigned started = 0;
  for (unsigned t = 0; t < nthreads; t++)
    if (pthread_create(&bth[t], NULL, backlog_worker, &rs) == 0) started++;
  if (nthreads && !started) backlog_worker(&rs);
  size_t narr = 0, skipped = 0;
  if (arrivals) {
    uint64_t rng = o->seed * 0x9E3779B97F4A7C15ULL + 7;
    double next[MAX_MIX];
    for (int m = 0; m < nmix; m++) next[m] = mix[m].rate > 0 ? next_gap(&rng, mix[m].rate) : INFINITY;
    for (;;) {
      double el = czk__now_s() - t0;
      bool more = nbacklog ? atomic_load(&rs.backlog_done) < nbacklog : el < o->duration;
      if (more && o->duration > 0 && el >= o->duration) more = false;
      if (more && o->max_wall > 0 && el >= o->max_wall) more = false;
      if (!more) break;
      int who = 0;
      for (int m = 1; m < nmix; m++)
        if (next[m] < next[who]) who = m;
      if (next[who] > el) {
        sleep_s(fmin(next[who] - el, 0.05));
        continue;
      }
      next[who] += next_gap(&rng, mix[who].rate);
      if (nbacklog + narr == rs.cap || nath == ath_cap) {
        skipped++;
        continue;
      }
      fc_job *j = &rs.jobs[nbacklog + narr];
      j->m = &mix[who];
      arrival *a = malloc(sizeof *a);
      if (a) *a = (arrival){&rs, j};
      atomic_fetch_add(&rs.inflight, 1);
      if (!a || pthread_create(&ath[nath], NULL, arrival_worker, a) != 0) {
        atomic_fetch_sub(&rs.inflight, 1);
        free(a);
        skipped++;
        continue;
      }
      narr++;
      nath++;
      if (nath == ath_cap) {
        pthread_t *g = realloc(ath, 2 * ath_cap * sizeof *ath);
        if (g) ath = g, ath_cap *= 2;
      }
    }
  }
  /* --max-wall: past it, the results so far: the daemon's figures now, then it is stopped (a second SIGTERM cancels
   * at once) so that the jobs still waiting return, and only the jobs done before are counted */
  const size_t n_all = nbacklog + narr;
  bool cut = false;
  unsigned char *was_done = NULL;
  czk__bench_devsnap *d1 = NULL;
  char *m1 = NULL;
  double wall = 0;
  while (o->max_wall > 0 && !cut) {
    size_t nd = 0;
    for (size_t i = 0; i < n_all; i++) nd += atomic_load(&rs.jobs[i].done) != 0;
    if (nd == n_all) break;
    if (czk__now_s() - t0 >= o->max_wall && pid > 0 && (was_done = calloc(n_all ? n_all : 1, 1)) != NULL) {
      cut = true;
      atomic_store(&rs.stop, true);
      wall = czk__now_s() - t0;
      for (size_t i = 0; i < n_all; i++) was_done[i] = atomic_load(&rs.jobs[i].done) != 0;
      d1 = czk__bench_devsnap_take(addr);
      m1 = metrics_text(addr);
      kill(pid, SIGTERM);
      sleep_s(0.2);
      kill(pid, SIGTERM);
    } else {
      sleep_s(0.05);
    }
  }
  for (unsigned t = 0; t < started; t++) pthread_join(bth[t], NULL);
  for (size_t t = 0; t < nath; t++) pthread_join(ath[t], NULL);
  if (!cut) {
    wall = czk__now_s() - t0;
    d1 = czk__bench_devsnap_take(addr);
    m1 = metrics_text(addr);
  }
  fc_job *jobs = rs.jobs;
  size_t n = n_all;
  if (cut) { /* the jobs done before the cut, in order (copies: their proofs stay owned by rs.jobs) */
    fc_job *fin = malloc((n_all ? n_all : 1) * sizeof *fin);
    size_t nf = 0;
    for (size_t i = 0; fin && i < n_all; i++)
      if (was_done[i]) memcpy(&fin[nf++], &rs.jobs[i], sizeof *fin);
    if (fin) jobs = fin, n = nf;
    printf("czk bench filecoin: --max-wall %.0f s reached: %zu of %zu jobs done; the rest were cancelled with the "
           "daemon (the tables count the jobs done)\n",
           o->max_wall, nf, n_all);
  }

  /* checks: --params: the .vk here; else the daemon's self-verification count */
  size_t vk_checked = 0, vk_bad = 0;
  if (o->params) vk_bad = verify_with_vk(o->params, ins, nin, jobs, n, &vk_checked);
  size_t failed = 0;
  for (size_t i = 0; i < n; i++) {
    fc_job *j = &jobs[i];
    if (j->ok && j->vk_bad <= 0) continue;
    if (failed++ < 10)
      fprintf(stderr, "czk bench filecoin: job %s (%s): %s%s%s\n", j->job_id[0] ? j->job_id : "-", j->m->in->engine_kind,
              j->code ? "RPC error" : j->ok ? "WRONG PROOF" : czk__client_await_status_name(j->status),
              j->err[0] ? ": " : "", j->err);
  }
  if (failed > 10) fprintf(stderr, "czk bench filecoin: ... and %zu more failures\n", failed - 10);

  /* latency and throughput per kind */
  double *lat = malloc((n ? n : 1) * sizeof *lat);
  printf("\n");
  czk__bench_lat_header("LATENCY (client, s)");
  for (int m = 0; lat && m < nmix; m++) {
    size_t nl = 0;
    for (size_t i = 0; i < n; i++)
      if (jobs[i].m == &mix[m] && jobs[i].ok && jobs[i].vk_bad <= 0) lat[nl++] = jobs[i].t_done - jobs[i].t_submit;
    czk__bench_lat_row(mix[m].in->engine_kind, lat, nl);
  }
  free(lat);
  /* STEADY: seconds per job between the kind's first and last good completion (the pipeline's fill before the first
   * one left out): the "s per proof in steady state" of a backlog; "-" with fewer than two good jobs */
  printf("\n%-26s %6s %6s %6s %10s %14s %12s\n", "THROUGHPUT", "JOBS", "GOOD", "FAILED", "JOBS/S", "PARTITIONS/S",
         "STEADY S/JOB");
  size_t good_all = 0;
  for (int m = 0; m < nmix; m++) {
    size_t tot = 0, good = 0;
    double first = 0, last = 0;
    for (size_t i = 0; i < n; i++)
      if (jobs[i].m == &mix[m]) {
        tot++;
        if (jobs[i].ok && jobs[i].vk_bad <= 0) {
          if (!good || jobs[i].t_done < first) first = jobs[i].t_done;
          if (!good || jobs[i].t_done > last) last = jobs[i].t_done;
          good++;
        }
      }
    good_all += good;
    char steady[32] = "-";
    if (good >= 2) snprintf(steady, sizeof steady, "%.3f", (last - first) / (double)(good - 1));
    printf("%-26s %6zu %6zu %6zu %10.4f %14.4f %12s\n", mix[m].in->engine_kind, tot, good, tot - good,
           wall > 0 ? (double)good / wall : 0.0, wall > 0 ? (double)(good * mix[m].in->parts) / wall : 0.0, steady);
  }
  printf("%zu/%zu jobs good in %.3f s (first submit to last result)%s\n", good_all, n, wall,
         skipped ? "; some arrivals were skipped" : "");

  /* verification */
  bool self_ok = true;
  if (o->params) {
    printf("verification: %zu partition proofs verified here with the .vk files of %s, %zu failed\n", vk_checked,
           o->params, vk_bad);
  } else if (m0 && m1) {
    for (int i = 0; i < nin; i++) {
      const char *kw[] = {"kind", ins[i].engine_kind, NULL};
      double proved = metric(m1, "czk_partitions_proved_total", kw) - metric(m0, "czk_partitions_proved_total", kw);
      double verified = stage_delta(m0, m1, ins[i].engine_kind, "verify", true);
      printf("verification: %s: %.0f of %.0f partition proofs self-verified by the daemon (self_verify) against the "
             "key it %s\n", ins[i].engine_kind, verified, proved, o->spawn ? "set up in memory" : "holds");
      if (verified + 0.5 < proved) self_ok = false;
    }
  } else {
    self_ok = false;
    printf("verification: unknown (GetMetrics failed)\n");
  }
  if (!self_ok) fprintf(stderr, "czk bench filecoin: not every partition proof was verified (is self_verify off?)\n");

  /* daemon-side */
  if (m0 && m1) {
    for (int i = 0; i < nin; i++) print_stages(&ins[i], m0, m1, jobs, n);
    printf("(device stages H and MSMs are spans of device events: they overlap; on the CPU they are wall times)\n");
  }
  czk__bench_devsnap_print(d0, d1);
  if (m1) {
    print_memory(m1, pid, preload_peak);
    print_keys(m1);
  }
  for (size_t i = 0; i < n_all; i++) free(rs.jobs[i].proof);
  if (jobs != rs.jobs) free(jobs);
  free(was_done);
  free(rs.jobs);
  free(bth);
  free(ath);
  free(d0);
  free(d1);
  free(m0);
  free(m1);
  return rc || failed || skipped || !self_ok || cut ? 1 : 0;
}

int czk_bench_filecoin(int argc, char **argv) {
  fc_opts o;
  int rc = parse_opts(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  fc_mix mix[MAX_MIX];
  int kinds[MAX_MIX], nmix;
  if (o.mix_spec) {
    if (!(nmix = parse_mix(o.mix_spec, mix, kinds))) return 2;
  } else {
    nmix = 1;
    kinds[0] = o.kind;
    memset(&mix[0], 0, sizeof mix[0]);
    mix[0].prio = k_default_prio[o.kind];
  }
  bool backlog = false;
  for (int m = 0; m < nmix; m++) backlog |= mix[m].rate == 0;
  if (!backlog && o.duration <= 0)
    return fprintf(stderr, "czk bench filecoin: a mix of arrivals only needs --duration S\n"), 2;
  /* one input per kind */
  fc_input ins[K_COUNT];
  int nin = 0, of_kind[K_COUNT];
  for (int k = 0; k < K_COUNT; k++) of_kind[k] = -1;
  rc = 0;
  for (int m = 0; m < nmix && rc == 0; m++) {
    if (of_kind[kinds[m]] < 0) {
      rc = gen_input(&ins[nin], kinds[m], o.size, o.seed, o.sectors);
      of_kind[kinds[m]] = nin++;
    }
    mix[m].in = &ins[of_kind[kinds[m]]];
  }
  char tmp[64] = "", keys[64] = "", dargs[6000];
  czk__bench_daemon *d = NULL;
  const char *addr = o.addr;
  if (rc == 0 && o.spawn) {
    snprintf(tmp, sizeof tmp, "/tmp/czk-bench-params-XXXXXX");
    if (!o.params && !mkdtemp(tmp)) {
      fprintf(stderr, "czk bench filecoin: mkdtemp: %s\n", strerror(errno));
      rc = 1;
    }
    snprintf(keys, sizeof keys, "/tmp/czk-bench-keys-XXXXXX");
    if (rc == 0 && !o.keys && !mkdtemp(keys)) {
      fprintf(stderr, "czk bench filecoin: mkdtemp: %s\n", strerror(errno));
      rc = 1;
    }
    snprintf(dargs, sizeof dargs, "--param-dir %s --setup-in-memory %s%s%s %s", o.params ? o.params : tmp,
             o.params ? "false" : "true", o.gpu_limit ? " --gpu-memory-limit " : "", o.gpu_limit ? o.gpu_limit : "",
             o.daemon_args ? o.daemon_args : "");
    if (rc == 0 && !(d = czk__bench_daemon_start(o.keys ? o.keys : keys, dargs))) rc = 1;
    if (d) addr = czk__bench_daemon_addr(d);
  }
  if (rc == 0)
    rc = run(&o, ins, nin, mix, nmix, addr, d ? czk__bench_daemon_pid(d) : -1);
  fflush(stdout);
  if (d && czk__bench_daemon_stop(d) != 0) rc = 1;
  if (tmp[0] && !o.params) rmdir(tmp); /* in-memory keys leave nothing there */
  if (keys[0] && !o.keys && rmdir(keys) != 0 && errno != ENOENT) /* Filecoin kinds cache nothing in keys_dir */
    fprintf(stderr, "czk bench filecoin: left %s behind (not empty)\n", keys);
  for (int i = 0; i < nin; i++) input_free(&ins[i]);
  return rc;
}
