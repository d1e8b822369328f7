/* bench_soak.c: `czk bench soak --duration D`: a long mixed workload against a private `czk daemon` that checks the
 * daemon keeps its promises under abuse (issue 22, soak).
 *
 * Setup (cached in --keys DIR, reused across runs): 2 KiB Filecoin keys made with `czk setup --kind ...` (WinningPoSt,
 * WindowPoSt, PoRep, SnapDeals) and vanilla proofs with `czk gen-vanilla ...`, run as child processes of this command;
 * synthetic keys (made by the daemon on first use in DIR/keys); a circom key when --circom ZKEY WTNS is given (linked
 * into DIR/keys as soak-circom.zkey). Then a private daemon (own temp dir, unix socket, log file) is started, every
 * key is preloaded, and N client threads run a seeded random mix of actions for the duration:
 *   prove        one Prove call (submit + await in one RPC)
 *   submit       SubmitProof, then AwaitProof without a timeout
 *   timeout      SubmitProof, then AwaitProof with 1..300 ms timeouts (TIMEOUT answers) until the job ends
 *   cancel       SubmitProof, a random pause, CancelProof, AwaitProof (CANCELLED, or COMPLETED if it finished first)
 *   duplicate    two SubmitProof calls with one request_id (the second attaches: same job id), both awaited
 *   malformed    a refused request: unknown kind, truncated or garbage vanilla proof, oversize message, wrong
 *                registered proof, bad synthetic spec, unknown circom circuit, undecodable protobuf bytes
 *   disconnect   SubmitProof, then an AwaitProof whose client goes away: a client deadline of 10..500 ms, or a
 *                `czk await` child process killed with SIGKILL (its socket closed); then AwaitProof again
 *   query        GetStatus, GetMetrics, PreloadSRS, AwaitProof/CancelProof of an unknown job id
 * The run has two halves of load around an idle checkpoint: after the warm-up (--warmup, default 25% of the
 * duration, at least 10 s) the clients pause, the daemon drains, and its idle memory (RssAnon, RssFile, malloc heap,
 * resident keys; its smaps copied next to its log) and open fds are recorded; the rest of the duration runs, then the
 * daemon drains again and is recorded again; then SIGTERM.
 *
 * Checks (the final table; exit 1 when any fails):
 *   one outcome    every job id a submit returned reaches a terminal state (COMPLETED/FAILED/CANCELLED) seen by
 *                  AwaitProof, every observation of one job agrees (status and proof bytes), and a final AwaitProof
 *                  of each job after the run answers the same; valid jobs that were not cancelled COMPLETED
 *   proofs verify  every returned proof (each partition) verifies here, in-process, with the keys' vk and public
 *                  inputs recomputed from the request (synthetic: the witness of the seed; circom: the witness)
 *   malformed      every malformed request was refused (a gRPC error or a FAILED result), and the daemon lived
 *   accounting     the daemon's czk_jobs_total: submitted = completed + failed + cancelled after the drain
 *   budget         after the drain, czk_memory_used_bytes is all category "key" and equals the bytes of the resident
 *                  keys (sum of czk_keys_resident_bytes{device="host"}); abc, witness and scratch are 0
 *   idle memory    like with like at the two idle points: each idle point first loads again (PreloadSRS) any key
 *                  evicted under load, so both hold every key; then the daemon's anonymous memory that is not a
 *                  resident key's, RssAnon - sum of czk_keys_resident_bytes{device="host"} (both from one GetMetrics
 *                  answer; a key's host copy is heap memory, anonymous: a preload of the 2 KiB SnapDeals key raised
 *                  RssAnon by its 633.6 MiB plus its compiled circuit, its eviction returned both), must not grow by
 *                  more than 16 MiB from the checkpoint to the end (gRPC's buffers and call threads, what the
 *                  malloc arenas keep). Each idle point is measured once the daemon reports its idle trim after all
 *                  the activity (czk_process_heap_trimmed 1: the arenas' free space given back; before the trim,
 *                  a CI run saw 17.1 MiB of growth that was all free arena space, the heap in use flat at 4 MiB).
 *                  Key files are not mapped on the CPU path (RssFile is the executable's ~16 MiB), so VmRSS is not
 *                  compared at idle.
 *   memory under   (a) the anonymous memory outside the budget, RssAnon - czk_memory_used_bytes (all categories, one
 *   load           GetMetrics answer, sampled every --sample): its largest value over the last half of the run <= its
 *                  largest over the warm-up + 32 MiB. What a job holds is budgeted (keys, a/b/c, witness, scratch,
 *                  requests), so this does not depend on which jobs happened to overlap, as VmRSS does (a PoRep and a
 *                  SnapDeals proof side by side add ~1 GiB); growth of memory the budget does not see (a leak, a
 *                  cache) shows here. (b) the largest VmRSS of the last half <= the budget limit + what the daemon
 *                  held outside the budget at the checkpoint (VmRSS - keys) + 64 MiB: the budget the daemon promises.
 *   fds flat       the largest fd count of the last half <= the largest of the warm-up + 8, and the idle count at
 *                  the end within 2 of the count at the checkpoint
 *   sigterm        the daemon exits 0 on SIGTERM within the drain grace
 * Never asserts on time (latencies are printed only). */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/client.h"
#include "api/rpc.h"
#include "bench/bench.h"
#include "bench/bench_util.h"
#include "circuits/synthetic.h"
#include "core/clock.h"
#include "core/mapfile.h"
#include "core/units.h"
#include "czk/circom.h"
#include "czk/engine.h"
#include "czk/groth16.h"
#include "czk/porep.h"
#include "czk/post.h"
#include "czk/snap.h"
#include "czk/snarkjs.h"
#include "filecoin/request.h"

extern char **environ;

#define SYN_K 10u
#define SYN_MAX_PARTS 3u
#define MAX_TMPL 16
#define MAX_CLIENTS 64
#define MAX_SAMPLES 100000
#define MSG_LIMIT_TEXT "16MiB"
#define MSG_LIMIT (16u << 20)
/* slack of the memory checks: the idle one (malloc arenas' free space: 1-5 MiB measured at idle; gRPC's buffers and
 * the stacks of the few call threads alive), and the one under load (the same, and the memory a partition uses
 * outside its reservation while it runs) */
#define IDLE_SLACK_MIB 16ull
#define LOAD_SLACK_MIB 32ull
#define AWAIT_LIMIT_MS (15u * 60u * 1000u) /* a job not ended after this is reported as lost */

static void sleep_ms(double ms) {
  if (ms <= 0) return;
  struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000.0 * (double)(time_t)(ms / 1000)) * 1e6)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static unsigned rng_below(uint64_t *s, unsigned n) { return n ? (unsigned)(rng_next(s) % n) : 0; }

static uint64_t fnv64(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Kinds and request templates. */

typedef enum { K_SYN, K_CIRCOM, K_WINNING, K_WINDOW, K_POREP, K_SNAP, K_COUNT } kind_id;
static const char *const kind_names[K_COUNT] = {"synthetic", "circom", "winning-post", "window-post", "porep", "snap"};
/* relative frequency of each kind among valid jobs: the 2 KiB PoRep and SnapDeals circuits are large, so rarer */
static const unsigned kind_weight[K_COUNT] = {30, 15, 15, 15, 3, 3};

typedef struct tmpl {
  kind_id kind;
  char label[48];
  char key_id[64];
  uint32_t parts;      /* partitions of a job (synthetic: chosen per job) */
  czk__fc_request fc;  /* Filecoin: the request.json it was made from (owns the vanilla bytes) */
  ProtobufCBinaryData *vps; /* vanilla_proofs views */
  size_t nvps;
  uint8_t *wtns;       /* circom: the witness file */
  size_t wtns_len;
  char circuit[64];    /* circom: the circuit name */
  czk_groth16_vk vk;
  bool have_vk;
  czk_fr *pub;         /* parts x npub public inputs (not synthetic) */
  size_t npub;
} tmpl;

typedef struct soak_opts {
  double duration_s, warmup_s, sample_s;
  uint64_t seed;
  unsigned clients;
  char keys[2048];
  const char *circom_zkey, *circom_wtns;
  const char *daemon_args;
  const char *daemon_bin; /* NULL: this executable */
  const char *budget;
  bool kind_on[K_COUNT];
} soak_opts;

/* ------------------------------------------------------------------------------------------------------------------ */
/* Child processes (setup, gen-vanilla, the daemon, `czk await`). */

static pid_t spawn_exe(const char *exe, char *const argv[], const char *out_path, bool append) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  int flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null", flags, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

static pid_t spawn_cmd(char *const argv[], const char *out_path, bool append) {
  return spawn_exe("/proc/self/exe", argv, out_path, append);
}

static int run_cmd(char *const argv[], const char *log) {
  pid_t pid = spawn_cmd(argv, log, true);
  if (pid < 0) return -1;
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static bool file_exists(const char *p) {
  struct stat s;
  return stat(p, &s) == 0;
}

static int mkdir_p(const char *dir) {
  char tmp[2300];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Templates: keys (made once) and requests. */

static tmpl g_t[MAX_TMPL];
static unsigned g_nt;
static int g_first_of_kind[K_COUNT]; /* template index, -1 when the kind is off */
static unsigned g_count_of_kind[K_COUNT];
static char g_keys_dir[2300], g_params[2300];

static int setup_key(const soak_opts *o, const char *kind, const char *stem) {
  char p[2600], v[2600], log[2400];
  snprintf(p, sizeof p, "%s/%s.params", g_params, stem);
  snprintf(v, sizeof v, "%s/%s.vk", g_params, stem);
  if (file_exists(p) && file_exists(v)) return 0;
  snprintf(log, sizeof log, "%s/setup.log", o->keys);
  fprintf(stderr, "czk bench soak: czk setup --kind %s --sector-size 2KiB (once; cached in %s)\n", kind, g_params);
  char *av[] = {"czk", "setup", "--kind", (char *)kind, "--sector-size", "2KiB", "--out", g_params, NULL};
  double t0 = czk__now_s();
  int rc = run_cmd(av, log);
  if (rc != 0) fprintf(stderr, "czk bench soak: czk setup --kind %s failed (exit %d; see %s)\n", kind, rc, log);
  else fprintf(stderr, "czk bench soak:   %.1f s\n", czk__now_s() - t0);
  return rc;
}

/* gen-vanilla into KEYS/req/<name> when its request.json is absent; loads it into t->fc. */
static int gen_request(const soak_opts *o, tmpl *t, const char *name, char *const extra[]) {
  char dir[2600], req[2700], log[2400], err[512];
  snprintf(dir, sizeof dir, "%s/req/%s", o->keys, name);
  snprintf(req, sizeof req, "%s/request.json", dir);
  snprintf(log, sizeof log, "%s/setup.log", o->keys);
  if (!file_exists(req)) {
    char *av[32];
    int ac = 0;
    av[ac++] = "czk";
    av[ac++] = "gen-vanilla";
    for (int i = 0; extra[i] && ac < 26; i++) av[ac++] = extra[i];
    av[ac++] = "--sector-size";
    av[ac++] = "2KiB";
    av[ac++] = "--out";
    av[ac++] = dir;
    av[ac] = NULL;
    int rc = run_cmd(av, log);
    if (rc != 0) {
      fprintf(stderr, "czk bench soak: czk gen-vanilla %s failed (exit %d; see %s)\n", extra[0], rc, log);
      return 1;
    }
  }
  if (czk__fc_request_load(req, &t->fc, err, sizeof err) != 0) {
    fprintf(stderr, "czk bench soak: %s\n", err);
    return 1;
  }
  return 0;
}

static int read_vk(tmpl *t, const char *path) {
  czk_status st = czk_groth16_vk_read(&t->vk, path, false);
  if (st != CZK_OK) {
    fprintf(stderr, "czk bench soak: %s: %s\n", path, czk_status_str(st));
    return 1;
  }
  t->have_vk = true;
  return 0;
}

static tmpl *new_tmpl(kind_id k, const char *label) {
  if (g_nt == MAX_TMPL) return NULL;
  tmpl *t = &g_t[g_nt];
  memset(t, 0, sizeof *t);
  t->kind = k;
  snprintf(t->label, sizeof t->label, "%s", label);
  if (g_first_of_kind[k] < 0) g_first_of_kind[k] = (int)g_nt;
  g_count_of_kind[k]++;
  g_nt++;
  return t;
}

static void fc_views(tmpl *t) {
  t->nvps = t->fc.n_vanilla;
  t->vps = calloc(t->nvps ? t->nvps : 1, sizeof *t->vps);
  for (size_t i = 0; t->vps && i < t->nvps; i++) {
    t->vps[i].data = t->fc.vanilla[i];
    t->vps[i].len = t->fc.vanilla_len[i];
  }
}

static int make_post(const soak_opts *o, czk_post_type type, const char *name, char *const extra[]) {
  const czk_post_info *info = czk_post_info_find(type, 2048, 2);
  tmpl *t = new_tmpl(type == CZK_POST_WINNING ? K_WINNING : K_WINDOW, name);
  if (!info || !t) return 1;
  char stem[240], path[2600];
  czk_post_param_stem(info, stem, sizeof stem);
  if (setup_key(o, type == CZK_POST_WINNING ? "winning-post" : "window-post", stem) != 0) return 1;
  if (gen_request(o, t, name, extra) != 0) return 1;
  snprintf(t->key_id, sizeof t->key_id, "%s", czk_post_circuit_id(info));
  snprintf(path, sizeof path, "%s/%s.vk", g_params, stem);
  if (read_vk(t, path) != 0) return 1;
  t->parts = 1;
  t->npub = czk_post_num_public_inputs(info);
  t->pub = malloc(t->npub * sizeof *t->pub);
  if (!t->pub || czk_post_public_inputs(info, t->fc.sector_ids, (const uint8_t(*)[32])t->fc.comm_r, t->fc.n_sectors,
                                        t->fc.randomness, t->fc.partition_index, t->pub, t->npub) != CZK_OK)
    return 1;
  fc_views(t);
  return 0;
}

static int make_porep(const soak_opts *o) {
  const czk_porep_info *info = czk_porep_info_for_size(2048);
  tmpl *t = new_tmpl(K_POREP, "porep-2k");
  if (!info || !t) return 1;
  char stem[240], path[2600], err[512];
  czk_porep_param_stem(info, stem, sizeof stem);
  if (setup_key(o, "porep", stem) != 0) return 1;
  char *extra[] = {"porep", "--seed", "1", NULL};
  if (gen_request(o, t, "porep-2k", extra) != 0) return 1;
  snprintf(t->key_id, sizeof t->key_id, "%s", czk_porep_circuit_id(info));
  snprintf(path, sizeof path, "%s/%s.vk", g_params, stem);
  if (read_vk(t, path) != 0) return 1;
  czk_porep_c1 c1;
  uint64_t num = 0, ssz = 0;
  if (czk_porep_c1_read(&c1, t->fc.vanilla_one, t->fc.vanilla_one_len, &num, &ssz, err, sizeof err) != CZK_OK) {
    fprintf(stderr, "czk bench soak: porep C1: %s\n", err);
    return 1;
  }
  t->parts = info->partitions;
  t->npub = 3 + 18 * (size_t)info->challenges;
  t->pub = malloc(t->parts * t->npub * sizeof *t->pub);
  czk_status st = t->pub ? CZK_OK : CZK_ERR_NOMEM;
  for (uint32_t k = 0; st == CZK_OK && k < t->parts; k++)
    st = czk_porep_public_inputs(info, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, k, t->pub + k * t->npub,
                                 t->npub);
  czk_porep_c1_free(&c1);
  return st == CZK_OK ? 0 : 1;
}

static int make_snap(const soak_opts *o) {
  const czk_snap_info *info = czk_snap_info_for_size(2048);
  tmpl *t = new_tmpl(K_SNAP, "snap-2k");
  if (!info || !t) return 1;
  char stem[240], path[2600];
  czk_snap_param_stem(info, stem, sizeof stem);
  if (setup_key(o, "snap", stem) != 0) return 1;
  char *extra[] = {"snap", "--seed", "1", NULL};
  if (gen_request(o, t, "snap-2k", extra) != 0) return 1;
  snprintf(t->key_id, sizeof t->key_id, "%s", czk_snap_circuit_id(info));
  snprintf(path, sizeof path, "%s/%s.vk", g_params, stem);
  if (read_vk(t, path) != 0) return 1;
  t->parts = info->partitions;
  t->npub = CZK_SNAP_PUBLIC_INPUTS;
  t->pub = malloc(t->parts * t->npub * sizeof *t->pub);
  czk_snap_comms comms;
  memcpy(comms.comm_r_old, t->fc.comm_r_old, 32);
  memcpy(comms.comm_d_new, t->fc.comm_d_new, 32);
  memcpy(comms.comm_r_new, t->fc.comm_r_new, 32);
  czk_status st = t->pub ? CZK_OK : CZK_ERR_NOMEM;
  for (uint32_t k = 0; st == CZK_OK && k < t->parts; k++)
    st = czk_snap_public_inputs(info, &comms, k, t->pub + k * t->npub);
  fc_views(t);
  return st == CZK_OK ? 0 : 1;
}

static int make_circom(const soak_opts *o) {
  tmpl *t = new_tmpl(K_CIRCOM, "circom:soak-circom");
  if (!t) return 1;
  char link[2600], abs[PATH_MAX];
  snprintf(t->circuit, sizeof t->circuit, "soak-circom");
  snprintf(t->key_id, sizeof t->key_id, "circom:soak-circom");
  snprintf(link, sizeof link, "%s/soak-circom.zkey", g_keys_dir);
  if (!realpath(o->circom_zkey, abs)) {
    fprintf(stderr, "czk bench soak: %s: %s\n", o->circom_zkey, strerror(errno));
    return 1;
  }
  unlink(link);
  if (symlink(abs, link) != 0) {
    fprintf(stderr, "czk bench soak: symlink %s: %s\n", link, strerror(errno));
    return 1;
  }
  if (czk__read_file(o->circom_wtns, MSG_LIMIT / 2, &t->wtns, &t->wtns_len) != CZK_OK) {
    fprintf(stderr, "czk bench soak: cannot read %s\n", o->circom_wtns);
    return 1;
  }
  czk_zkey *z = NULL;
  czk_zkey_info info;
  czk_circom_wtns w;
  if (czk_zkey_open(&z, abs) != CZK_OK || czk_zkey_vk(z, &t->vk) != CZK_OK) {
    if (z) czk_zkey_close(z);
    fprintf(stderr, "czk bench soak: %s: not a usable snarkjs Groth16 key\n", abs);
    return 1;
  }
  t->have_vk = true;
  czk_zkey_get_info(z, &info);
  czk_zkey_close(z);
  if (czk_circom_wtns_parse(&w, t->wtns, t->wtns_len) != CZK_OK || w.n < info.n_public + 1) {
    fprintf(stderr, "czk bench soak: %s: not a witness of this circuit\n", o->circom_wtns);
    return 1;
  }
  t->parts = 1;
  t->npub = info.n_public;
  t->pub = malloc((t->npub ? t->npub : 1) * sizeof *t->pub);
  if (t->pub) memcpy(t->pub, w.w + 1, t->npub * sizeof *t->pub);
  czk_circom_wtns_free(&w);
  return t->pub ? 0 : 1;
}

static int make_templates(const soak_opts *o) {
  for (int k = 0; k < K_COUNT; k++) g_first_of_kind[k] = -1;
  snprintf(g_keys_dir, sizeof g_keys_dir, "%s/keys", o->keys);
  snprintf(g_params, sizeof g_params, "%s/params", o->keys);
  if (mkdir_p(g_keys_dir) != 0 || mkdir_p(g_params) != 0) {
    fprintf(stderr, "czk bench soak: cannot create %s\n", o->keys);
    return 1;
  }
  if (o->kind_on[K_SYN]) {
    tmpl *t = new_tmpl(K_SYN, "synthetic-k10");
    snprintf(t->key_id, sizeof t->key_id, "synthetic-k%u", SYN_K);
  }
  if (o->kind_on[K_CIRCOM] && make_circom(o) != 0) return 1;
  if (o->kind_on[K_WINNING]) {
    char *a[] = {"winning-post", "--seed", "1", NULL}, *b[] = {"winning-post", "--sparse", "--seed", "2", NULL};
    if (make_post(o, CZK_POST_WINNING, "winning-2k-a", a) || make_post(o, CZK_POST_WINNING, "winning-2k-b", b))
      return 1;
  }
  if (o->kind_on[K_WINDOW]) {
    char *a[] = {"window-post", "--sectors", "2", "--seed", "3", NULL};
    char *b[] = {"window-post", "--sectors", "1", "--sparse", "--seed", "4", NULL};
    if (make_post(o, CZK_POST_WINDOW, "wpost-2k-a", a) || make_post(o, CZK_POST_WINDOW, "wpost-2k-b", b)) return 1;
  }
  if (o->kind_on[K_POREP] && make_porep(o) != 0) return 1;
  if (o->kind_on[K_SNAP] && make_snap(o) != 0) return 1;
  return 0;
}

static void free_templates(void) {
  for (unsigned i = 0; i < g_nt; i++) {
    tmpl *t = &g_t[i];
    if (t->kind != K_SYN && t->kind != K_CIRCOM) czk__fc_request_free(&t->fc);
    free(t->vps);
    free(t->wtns);
    free(t->pub);
    if (t->have_vk) czk_groth16_vk_free(&t->vk);
  }
  g_nt = 0;
}

/* The request of template t (synthetic: spec from parts/seed into spec). Pointers into t and the caller's buffers. */
static void build_req(const tmpl *t, uint32_t parts, uint64_t seed, int prio, const char *rid, char *spec,
                      size_t spec_len, ProtobufCBinaryData *circ, Cuzk__V1__SubmitProofRequest *r) {
  cuzk__v1__submit_proof_request__init(r);
  r->priority = (Cuzk__V1__Priority)prio;
  r->request_id = (char *)(rid ? rid : "");
  const czk__fc_request *f = &t->fc;
  switch (t->kind) {
  case K_SYN:
    r->proof_kind = CUZK__V1__PROOF_KIND__CZK_SYNTHETIC;
    r->sector_size = 1ull << SYN_K;
    snprintf(spec, spec_len, "partitions=%u seed=%llu", parts, (unsigned long long)seed);
    r->vanilla_proof.data = (uint8_t *)spec;
    r->vanilla_proof.len = strlen(spec);
    break;
  case K_CIRCOM:
    r->proof_kind = CUZK__V1__PROOF_KIND__CZK_CIRCOM;
    circ->data = (uint8_t *)t->circuit;
    circ->len = strlen(t->circuit);
    r->n_vanilla_proofs = 1;
    r->vanilla_proofs = circ;
    r->vanilla_proof.data = t->wtns;
    r->vanilla_proof.len = t->wtns_len;
    break;
  case K_WINNING:
  case K_WINDOW:
    r->proof_kind = t->kind == K_WINNING ? CUZK__V1__PROOF_KIND__WINNING_POST : CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION;
    r->sector_size = f->sector_size;
    r->registered_proof = f->registered_proof;
    r->n_vanilla_proofs = t->nvps;
    r->vanilla_proofs = t->vps;
    r->miner_id = f->miner_id;
    r->randomness.data = (uint8_t *)f->randomness;
    r->randomness.len = 32;
    r->partition_index = f->partition_index;
    break;
  case K_POREP:
    r->proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
    r->sector_size = f->sector_size;
    r->registered_proof = f->registered_proof;
    r->vanilla_proof.data = f->vanilla_one;
    r->vanilla_proof.len = f->vanilla_one_len;
    r->sector_number = f->sector_number;
    r->miner_id = f->miner_id;
    break;
  case K_SNAP:
    r->proof_kind = CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE;
    r->sector_size = f->sector_size;
    r->registered_proof = f->registered_proof;
    r->n_vanilla_proofs = t->nvps;
    r->vanilla_proofs = t->vps;
    r->sector_number = 7;
    r->miner_id = f->miner_id;
    r->comm_r_old.data = (uint8_t *)f->comm_r_old;
    r->comm_r_old.len = 32;
    r->comm_d_new.data = (uint8_t *)f->comm_d_new;
    r->comm_d_new.len = 32;
    r->comm_r_new.data = (uint8_t *)f->comm_r_new;
    r->comm_r_new.len = 32;
    break;
  default: break;
  }
}

/* Verify a proof of template t in-process. NULL when valid, else why (static text). */
static const char *verify_proof(const tmpl *t, uint32_t parts, uint64_t seed, const uint8_t *proof, size_t len) {
  if (len != (size_t)parts * CZK_GROTH16_PROOF_BYTES) return "wrong proof length";
  if (!t->have_vk) return "no vk";
  for (uint32_t p = 0; p < parts; p++) {
    czk_groth16_proof pf;
    if (czk_groth16_proof_decode(&pf, proof + (size_t)p * CZK_GROTH16_PROOF_BYTES) != CZK_OK)
      return "proof does not decode";
    czk_status st;
    if (t->kind == K_SYN) {
      czk_witness w;
      st = czk_synthetic_witness(&w, SYN_K, seed + p);
      if (st != CZK_OK) return "synthetic witness failed";
      st = czk_groth16_verify(&t->vk, &pf, w.w + 1, w.n_inputs - 1);
      czk_witness_free(&w);
    } else {
      st = czk_groth16_verify(&t->vk, &pf, t->pub + (size_t)p * t->npub, t->npub);
    }
    if (st != CZK_OK) return "proof does not verify";
  }
  return NULL;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* The job registry: one record per job id a submit returned. */

enum { ACT_PROVE, ACT_SUBMIT, ACT_TIMEOUT, ACT_CANCEL, ACT_DUP, ACT_MALFORMED, ACT_DISCONNECT, ACT_QUERY, ACT_COUNT };
static const char *const act_names[ACT_COUNT] = {"prove",     "submit",     "timeout",    "cancel",
                                                 "duplicate", "malformed", "disconnect", "query"};
static const unsigned act_weight[ACT_COUNT] = {14, 22, 12, 12, 10, 12, 10, 8};

typedef struct jrec {
  struct jrec *next;
  char id[40];
  unsigned t;       /* template */
  uint32_t parts;
  uint64_t seed;
  int action;
  bool cancel_sent;
  int outcome;      /* 0 none yet; else AwaitProofResponse.Status 1..3 */
  uint64_t proof_hash;
  unsigned observations, conflicts;
  bool verified;
  char err[200];
  double t_submit, t_end;
} jrec;

#define JHASH 4096
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static jrec *g_jobs[JHASH];
static size_t g_njobs;

static size_t id_hash(const char *s) { return (size_t)(fnv64((const uint8_t *)s, strlen(s)) % JHASH); }

static jrec *job_find_locked(const char *id) {
  for (jrec *j = g_jobs[id_hash(id)]; j; j = j->next)
    if (strcmp(j->id, id) == 0) return j;
  return NULL;
}

/* The record of a job id (made when new, with the template and seed of the submit that returned it). */
static jrec *job_get(const char *id, unsigned t, uint32_t parts, uint64_t seed, int action, bool *attached) {
  pthread_mutex_lock(&g_mu);
  jrec *j = job_find_locked(id);
  if (attached) *attached = j != NULL;
  if (!j && (j = calloc(1, sizeof *j))) {
    snprintf(j->id, sizeof j->id, "%s", id);
    j->t = t;
    j->parts = parts;
    j->seed = seed;
    j->action = action;
    j->t_submit = czk__now_s();
    size_t h = id_hash(id);
    j->next = g_jobs[h];
    g_jobs[h] = j;
    g_njobs++;
  }
  pthread_mutex_unlock(&g_mu);
  return j;
}

static atomic_ulong g_partitions_verified, g_proofs_verified;

/* One AwaitProof answer for job j: true when it is terminal. Verifies a COMPLETED proof (outside the lock). */
static bool observe(jrec *j, const Cuzk__V1__AwaitProofResponse *a) {
  int s = a->status;
  if (s < 1 || s > 3) return false;
  const char *bad = NULL;
  uint64_t h = fnv64(a->proof.data, a->proof.len);
  pthread_mutex_lock(&g_mu);
  bool first = j->outcome == 0, need_verify = s == 1 && !j->verified && !j->err[0];
  pthread_mutex_unlock(&g_mu);
  if (need_verify) bad = verify_proof(&g_t[j->t], j->parts, j->seed, a->proof.data, a->proof.len);
  pthread_mutex_lock(&g_mu);
  j->observations++;
  if (first && j->outcome == 0) {
    j->outcome = s;
    j->proof_hash = h;
    j->t_end = czk__now_s();
    if (s != 1 && a->error_message && *a->error_message && !j->err[0])
      snprintf(j->err, sizeof j->err, "%s", a->error_message);
  } else if (j->outcome != s || j->proof_hash != h) {
    j->conflicts++;
  }
  if (need_verify) {
    if (bad) snprintf(j->err, sizeof j->err, "%s", bad);
    else if (!j->verified) {
      j->verified = true;
      atomic_fetch_add(&g_proofs_verified, 1);
      atomic_fetch_add(&g_partitions_verified, j->parts);
    }
  }
  pthread_mutex_unlock(&g_mu);
  return true;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* The run. */

typedef struct run_state {
  const soak_opts *o;
  char addr[300];
  pid_t daemon;
  atomic_int phase; /* 0 run, 1 pause, 2 stop */
  atomic_uint parked;
  pthread_mutex_t pmu;
  pthread_cond_t pcv;
  atomic_bool daemon_dead;
  /* counters */
  atomic_ulong act_count[ACT_COUNT];
  atomic_ulong malformed_refused, malformed_accepted, rpc_unavailable, attached_same, dup_new, timeouts_seen,
      cancels_sent, disconnects_deadline, disconnects_kill, queries_ok, queries_bad, await_unexpected;
  atomic_ulong kind_jobs[K_COUNT];
  char last_problem[300];
} run_state;

static void problem(run_state *rs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(run_state *rs, const char *fmt, ...) {
  char b[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&g_mu);
  snprintf(rs->last_problem, sizeof rs->last_problem, "%s", b);
  pthread_mutex_unlock(&g_mu);
  fprintf(stderr, "czk bench soak: %s\n", b);
}

static int call(run_state *rs, const char *m, const ProtobufCMessage *req, const ProtobufCMessageDescriptor *d,
                ProtobufCMessage **out, uint64_t timeout_ms, char *err, size_t errlen) {
  char path[96];
  snprintf(path, sizeof path, "/cuzk.v1.ProvingEngine/%s", m);
  int code = czk__client_call(rs->addr, path, req, d, out, timeout_ms, true, err, errlen);
  if (code == CZK_GRPC_UNAVAILABLE) atomic_fetch_add(&rs->rpc_unavailable, 1);
  return code;
}

/* Pick a template: first any enabled kind no job has used yet (so each kind runs early), else by weight. */
static unsigned pick_tmpl(run_state *rs, uint64_t *rng) {
  for (int k = 0; k < K_COUNT; k++)
    if (g_first_of_kind[k] >= 0 && atomic_load(&rs->kind_jobs[k]) == 0) {
      atomic_fetch_add(&rs->kind_jobs[k], 1);
      return (unsigned)g_first_of_kind[k];
    }
  unsigned total = 0;
  for (int k = 0; k < K_COUNT; k++)
    if (g_first_of_kind[k] >= 0) total += kind_weight[k];
  unsigned x = rng_below(rng, total);
  int k = 0;
  for (; k < K_COUNT; k++) {
    if (g_first_of_kind[k] < 0) continue;
    if (x < kind_weight[k]) break;
    x -= kind_weight[k];
  }
  if (k == K_COUNT) k = K_SYN;
  atomic_fetch_add(&rs->kind_jobs[k], 1);
  return (unsigned)g_first_of_kind[k] + rng_below(rng, g_count_of_kind[k]);
}

typedef struct jobspec {
  unsigned t;
  uint32_t parts;
  uint64_t seed;
  int prio;
} jobspec;

static void pick_job(run_state *rs, uint64_t *rng, jobspec *js) {
  js->t = pick_tmpl(rs, rng);
  js->parts = g_t[js->t].kind == K_SYN ? 1 + rng_below(rng, SYN_MAX_PARTS) : g_t[js->t].parts;
  js->seed = 1 + rng_below(rng, 1000000);
  js->prio = 1 + (int)rng_below(rng, 4);
}

/* SubmitProof of js; the record of the returned job id, or NULL (the error counted). */
static jrec *submit(run_state *rs, const jobspec *js, const char *rid, int action, bool *attached) {
  char spec[96], err[256];
  ProtobufCBinaryData circ;
  Cuzk__V1__SubmitProofRequest r;
  build_req(&g_t[js->t], js->parts, js->seed, js->prio, rid, spec, sizeof spec, &circ, &r);
  ProtobufCMessage *out;
  int code = call(rs, "SubmitProof", &r.base, &cuzk__v1__submit_proof_response__descriptor, &out, 120000, err,
                  sizeof err);
  if (code) {
    problem(rs, "SubmitProof of a valid %s request refused: %s (gRPC code %d)", g_t[js->t].label, err, code);
    return NULL;
  }
  const char *id = ((Cuzk__V1__SubmitProofResponse *)out)->job_id;
  jrec *j = id && *id ? job_get(id, js->t, js->parts, js->seed, action, attached) : NULL;
  if (!j) problem(rs, "SubmitProof answered without a job id");
  protobuf_c_message_free_unpacked(out, NULL);
  return j;
}

/* AwaitProof until the job ends (timeout_ms per call: 0 none); true when a terminal answer was observed. */
static bool await_job(run_state *rs, jrec *j, uint64_t per_call_ms) {
  double t0 = czk__now_s();
  while ((czk__now_s() - t0) * 1000.0 < AWAIT_LIMIT_MS) {
    Cuzk__V1__AwaitProofRequest r = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    r.job_id = j->id;
    r.timeout_ms = per_call_ms;
    ProtobufCMessage *out;
    char err[256];
    int code = call(rs, "AwaitProof", &r.base, &cuzk__v1__await_proof_response__descriptor, &out,
                    per_call_ms ? per_call_ms + 60000 : AWAIT_LIMIT_MS, err, sizeof err);
    if (code) {
      problem(rs, "AwaitProof %s: %s (gRPC code %d)", j->id, err, code);
      if (code == CZK_GRPC_UNAVAILABLE || atomic_load(&rs->daemon_dead)) return false;
      sleep_ms(200);
      continue;
    }
    const Cuzk__V1__AwaitProofResponse *a = (const Cuzk__V1__AwaitProofResponse *)out;
    if (a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT) atomic_fetch_add(&rs->timeouts_seen, 1);
    else if (a->status < 1 || a->status > 3) atomic_fetch_add(&rs->await_unexpected, 1);
    bool done = observe(j, a);
    protobuf_c_message_free_unpacked(out, NULL);
    if (done) return true;
  }
  return false;
}

static void act_prove(run_state *rs, uint64_t *rng) {
  jobspec js;
  pick_job(rs, rng, &js);
  char spec[96], err[256];
  ProtobufCBinaryData circ;
  Cuzk__V1__SubmitProofRequest r;
  build_req(&g_t[js.t], js.parts, js.seed, js.prio, NULL, spec, sizeof spec, &circ, &r);
  Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
  pr.submit = &r;
  ProtobufCMessage *out;
  double t_call = czk__now_s();
  int code = call(rs, "Prove", &pr.base, &cuzk__v1__prove_response__descriptor, &out, AWAIT_LIMIT_MS, err, sizeof err);
  if (code) {
    problem(rs, "Prove of a valid %s request: %s (gRPC code %d)", g_t[js.t].label, err, code);
    return;
  }
  const Cuzk__V1__AwaitProofResponse *a = ((Cuzk__V1__ProveResponse *)out)->result;
  if (!a || !a->job_id || !*a->job_id) {
    problem(rs, "Prove answered without a result or job id");
  } else {
    bool att = false;
    jrec *j = job_get(a->job_id, js.t, js.parts, js.seed, ACT_PROVE, &att);
    if (j && !att) {
      pthread_mutex_lock(&g_mu);
      j->t_submit = t_call;
      pthread_mutex_unlock(&g_mu);
    }
    if (j && !observe(j, a)) problem(rs, "Prove %s answered a non-terminal status %d", a->job_id, a->status);
  }
  protobuf_c_message_free_unpacked(out, NULL);
}

static void act_submit(run_state *rs, uint64_t *rng, bool short_timeouts) {
  jobspec js;
  pick_job(rs, rng, &js);
  jrec *j = submit(rs, &js, NULL, short_timeouts ? ACT_TIMEOUT : ACT_SUBMIT, NULL);
  if (!j) return;
  if (!short_timeouts) {
    await_job(rs, j, 0);
    return;
  }
  /* short timeouts until it ends; each a fresh random 1..300 ms */
  double t0 = czk__now_s();
  while ((czk__now_s() - t0) * 1000.0 < AWAIT_LIMIT_MS && !atomic_load(&rs->daemon_dead)) {
    Cuzk__V1__AwaitProofRequest r = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    r.job_id = j->id;
    r.timeout_ms = 1 + rng_below(rng, 300);
    ProtobufCMessage *out;
    char err[256];
    int code = call(rs, "AwaitProof", &r.base, &cuzk__v1__await_proof_response__descriptor, &out, 60000, err,
                    sizeof err);
    if (code) {
      problem(rs, "AwaitProof %s (timeout %llu ms): %s (gRPC code %d)", j->id, (unsigned long long)r.timeout_ms, err,
              code);
      if (code == CZK_GRPC_UNAVAILABLE) return;
      continue;
    }
    const Cuzk__V1__AwaitProofResponse *a = (const Cuzk__V1__AwaitProofResponse *)out;
    if (a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT) atomic_fetch_add(&rs->timeouts_seen, 1);
    else if (a->status < 1 || a->status > 3) atomic_fetch_add(&rs->await_unexpected, 1);
    bool done = observe(j, a);
    protobuf_c_message_free_unpacked(out, NULL);
    if (done) return;
  }
}

static void act_cancel(run_state *rs, uint64_t *rng) {
  jobspec js;
  pick_job(rs, rng, &js);
  jrec *j = submit(rs, &js, NULL, ACT_CANCEL, NULL);
  if (!j) return;
  /* a random moment: at once, while queued, or while proving (synthetic k10 proves in ~10-100 ms here) */
  unsigned r = rng_below(rng, 4);
  sleep_ms(r == 0 ? 0 : r == 1 ? rng_below(rng, 20) : r == 2 ? rng_below(rng, 300) : rng_below(rng, 3000));
  Cuzk__V1__CancelProofRequest c = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
  c.job_id = j->id;
  ProtobufCMessage *out;
  char err[256];
  pthread_mutex_lock(&g_mu);
  j->cancel_sent = true;
  pthread_mutex_unlock(&g_mu);
  atomic_fetch_add(&rs->cancels_sent, 1);
  int code = call(rs, "CancelProof", &c.base, &cuzk__v1__cancel_proof_response__descriptor, &out, 60000, err,
                  sizeof err);
  if (code == 0) protobuf_c_message_free_unpacked(out, NULL);
  else if (code == CZK_GRPC_UNAVAILABLE || code == CZK_GRPC_INTERNAL || code == CZK_GRPC_UNKNOWN)
    problem(rs, "CancelProof %s: %s (gRPC code %d)", j->id, err, code);
  await_job(rs, j, 0);
}

static void act_duplicate(run_state *rs, uint64_t *rng, unsigned client, uint64_t n) {
  jobspec js, js2;
  pick_job(rs, rng, &js);
  char rid[96];
  snprintf(rid, sizeof rid, "soak-%llu-%u-%llu", (unsigned long long)rs->o->seed, client, (unsigned long long)n);
  bool att = false;
  jrec *a = submit(rs, &js, rid, ACT_DUP, &att);
  if (!a) return;
  /* the same request id again: the same request, or (one time in four) another one, which must attach all the same */
  js2 = js;
  if (rng_below(rng, 4) == 0) pick_job(rs, rng, &js2);
  if (rng_below(rng, 2)) sleep_ms(rng_below(rng, 200));
  jrec *b = submit(rs, &js2, rid, ACT_DUP, &att);
  if (b == a) atomic_fetch_add(&rs->attached_same, 1);
  else if (b) atomic_fetch_add(&rs->dup_new, 1); /* allowed only when a ended without success before (checked later) */
  await_job(rs, a, 0);
  if (b && b != a) await_job(rs, b, 0);
  if (b && b != a) {
    pthread_mutex_lock(&g_mu);
    bool ok = a->outcome == 2 || a->outcome == 3; /* a failed or cancelled job does not take new attachments */
    pthread_mutex_unlock(&g_mu);
    if (!ok) problem(rs, "request id %s: a second job %s while job %s was in flight or succeeded", rid, b->id, a->id);
  }
}

/* Malformed requests: each must be refused (a gRPC error, or a result that is not COMPLETED). */
enum { MAL_KIND, MAL_TRUNC, MAL_OVERSIZE, MAL_REGPROOF, MAL_GARBAGE, MAL_SPEC, MAL_CIRCUIT, MAL_BYTES, MAL_COUNT };
static const char *const mal_names[MAL_COUNT] = {"unknown kind",   "truncated vanilla", "oversize",
                                                 "wrong registered proof", "garbage vanilla", "bad synthetic spec",
                                                 "unknown circom circuit", "undecodable protobuf"};
static atomic_ulong g_mal_count[MAL_COUNT], g_mal_accepted[MAL_COUNT];

static void act_malformed(run_state *rs, uint64_t *rng) {
  unsigned m = rng_below(rng, MAL_COUNT);
  atomic_fetch_add(&g_mal_count[m], 1);
  jobspec js;
  pick_job(rs, rng, &js);
  /* a template with vanilla_proofs for the truncation / registered-proof cases */
  int fc = g_first_of_kind[K_WINDOW] >= 0 ? g_first_of_kind[K_WINDOW]
           : g_first_of_kind[K_WINNING] >= 0 ? g_first_of_kind[K_WINNING]
           : g_first_of_kind[K_SNAP];
  if ((m == MAL_TRUNC || m == MAL_REGPROOF) && fc < 0) m = MAL_KIND;
  if (m == MAL_TRUNC || m == MAL_REGPROOF) js.t = (unsigned)fc, js.parts = g_t[fc].parts;
  char spec[96], err[256];
  ProtobufCBinaryData circ, vps[8];
  uint8_t *junk = NULL;
  Cuzk__V1__SubmitProofRequest r;
  build_req(&g_t[js.t], js.parts, js.seed, js.prio, NULL, spec, sizeof spec, &circ, &r);
  int code;
  ProtobufCMessage *out = NULL;
  if (m == MAL_BYTES) {
    size_t n = 1 + rng_below(rng, 4096);
    junk = malloc(n);
    for (size_t i = 0; junk && i < n; i++) junk[i] = (uint8_t)rng_next(rng);
    int gc = 0;
    uint8_t *resp = NULL;
    size_t rl = 0;
    char *e = NULL;
    czk_status st = czk__rpc_call(rs->addr, "/cuzk.v1.ProvingEngine/Prove", junk, junk ? n : 0, 60000, MSG_LIMIT * 2,
                                  &gc, &resp, &rl, &e);
    code = st != CZK_OK ? CZK_GRPC_UNAVAILABLE : gc;
    /* a random byte string may happen to decode as an (empty or odd) ProveRequest; it must still not prove */
    if (code == 0) {
      out = protobuf_c_message_unpack(&cuzk__v1__prove_response__descriptor, NULL, rl, resp);
      if (!out) code = CZK_GRPC_INTERNAL;
    }
    free(resp);
    free(e);
  } else {
    switch (m) {
    case MAL_KIND: r.proof_kind = (Cuzk__V1__ProofKind)(5 + rng_below(rng, 90)); break;
    case MAL_TRUNC: {
      size_t nv = r.n_vanilla_proofs < 8 ? r.n_vanilla_proofs : 8;
      memcpy(vps, r.vanilla_proofs, nv * sizeof *vps);
      unsigned k = rng_below(rng, (unsigned)nv);
      vps[k].len = rng_below(rng, (unsigned)vps[k].len);
      r.vanilla_proofs = vps;
      r.n_vanilla_proofs = nv;
      break;
    }
    case MAL_OVERSIZE: {
      size_t n = MSG_LIMIT + 1 + rng_below(rng, 1 << 20);
      junk = calloc(1, n);
      r.vanilla_proof.data = junk;
      r.vanilla_proof.len = junk ? n : 0;
      break;
    }
    case MAL_REGPROOF: {
      /* a PoRep, SnapDeals or other-PoSt wire number, or one that exists nowhere */
      static const uint64_t wires[] = {0, 5, 8, 1, 3, 99, 1000000};
      uint64_t w = wires[rng_below(rng, sizeof wires / sizeof wires[0])];
      if (w == r.registered_proof) w = 99;
      r.registered_proof = w;
      break;
    }
    case MAL_GARBAGE: {
      size_t n = 1 + rng_below(rng, 8192);
      junk = malloc(n);
      for (size_t i = 0; junk && i < n; i++) junk[i] = (uint8_t)rng_next(rng);
      if (r.n_vanilla_proofs && r.proof_kind != CUZK__V1__PROOF_KIND__CZK_CIRCOM) {
        vps[0].data = junk;
        vps[0].len = junk ? n : 0;
        r.vanilla_proofs = vps;
        r.n_vanilla_proofs = 1;
      } else if (r.proof_kind == CUZK__V1__PROOF_KIND__CZK_SYNTHETIC) {
        snprintf(spec, sizeof spec, "partitions=%u", 65 + rng_below(rng, 1000)); /* garbage: over the limit */
        r.vanilla_proof.data = (uint8_t *)spec;
        r.vanilla_proof.len = strlen(spec);
      } else {
        r.vanilla_proof.data = junk;
        r.vanilla_proof.len = junk ? n : 0;
      }
      break;
    }
    case MAL_SPEC: {
      static const char *const bad[] = {"partitions=abc", "partitions=0", "seed=-1", "bogus=1", "partitions=65",
                                        "partitions"};
      cuzk__v1__submit_proof_request__init(&r);
      r.proof_kind = CUZK__V1__PROOF_KIND__CZK_SYNTHETIC;
      r.sector_size = 1ull << SYN_K;
      snprintf(spec, sizeof spec, "%s", bad[rng_below(rng, sizeof bad / sizeof bad[0])]);
      r.vanilla_proof.data = (uint8_t *)spec;
      r.vanilla_proof.len = strlen(spec);
      break;
    }
    case MAL_CIRCUIT: {
      cuzk__v1__submit_proof_request__init(&r);
      r.proof_kind = CUZK__V1__PROOF_KIND__CZK_CIRCOM;
      circ.data = (uint8_t *)"no-such-circuit";
      circ.len = strlen("no-such-circuit");
      r.n_vanilla_proofs = 1;
      r.vanilla_proofs = &circ;
      r.vanilla_proof.data = (uint8_t *)"wtns";
      r.vanilla_proof.len = 4;
      break;
    }
    default: break;
    }
    Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
    pr.submit = &r;
    code = call(rs, "Prove", &pr.base, &cuzk__v1__prove_response__descriptor, &out, AWAIT_LIMIT_MS, err, sizeof err);
  }
  bool accepted = false;
  if (code == 0 && out) {
    const Cuzk__V1__AwaitProofResponse *a = ((Cuzk__V1__ProveResponse *)out)->result;
    accepted = a && a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    /* a random byte string decoding to an empty ProveRequest is an empty request, refused in the result or as an
     * error; never a proof */
  }
  if (out) protobuf_c_message_free_unpacked(out, NULL);
  free(junk);
  if (code == CZK_GRPC_UNAVAILABLE) {
    problem(rs, "malformed request (%s): daemon unavailable", mal_names[m]);
    atomic_fetch_add(&g_mal_accepted[m], 1);
    atomic_fetch_add(&rs->malformed_accepted, 1);
  } else if (accepted) {
    problem(rs, "malformed request (%s) was proven", mal_names[m]);
    atomic_fetch_add(&g_mal_accepted[m], 1);
    atomic_fetch_add(&rs->malformed_accepted, 1);
  } else {
    atomic_fetch_add(&rs->malformed_refused, 1);
  }
}

static void act_disconnect(run_state *rs, uint64_t *rng) {
  jobspec js;
  pick_job(rs, rng, &js);
  jrec *j = submit(rs, &js, NULL, ACT_DISCONNECT, NULL);
  if (!j) return;
  if (rng_below(rng, 2) == 0) {
    /* the client's deadline passes mid-await: gRPC cancels the call (the server sees the client go) */
    Cuzk__V1__AwaitProofRequest r = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    r.job_id = j->id;
    ProtobufCMessage *out;
    char err[256];
    int code = call(rs, "AwaitProof", &r.base, &cuzk__v1__await_proof_response__descriptor, &out,
                    10 + rng_below(rng, 490), err, sizeof err);
    if (code == 0) {
      observe(j, (const Cuzk__V1__AwaitProofResponse *)out);
      protobuf_c_message_free_unpacked(out, NULL);
    }
    atomic_fetch_add(&rs->disconnects_deadline, 1);
  } else {
    /* a `czk await` child killed mid-await: its connection closes without a word */
    char *av[] = {"czk", "await", "--addr", rs->addr, j->id, NULL};
    pid_t pid = spawn_cmd(av, NULL, false);
    if (pid > 0) {
      sleep_ms(20 + rng_below(rng, 800));
      kill(pid, SIGKILL);
      int st;
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
      atomic_fetch_add(&rs->disconnects_kill, 1);
    }
  }
  await_job(rs, j, 0);
}

static void act_query(run_state *rs, uint64_t *rng) {
  unsigned q = rng_below(rng, 5);
  ProtobufCMessage *out = NULL;
  char err[256];
  int code, want = 0;
  if (q == 0) {
    Cuzk__V1__GetStatusRequest r = CUZK__V1__GET_STATUS_REQUEST__INIT;
    code = call(rs, "GetStatus", &r.base, &cuzk__v1__get_status_response__descriptor, &out, 60000, err, sizeof err);
  } else if (q == 1) {
    Cuzk__V1__GetMetricsRequest r = CUZK__V1__GET_METRICS_REQUEST__INIT;
    code = call(rs, "GetMetrics", &r.base, &cuzk__v1__get_metrics_response__descriptor, &out, 60000, err, sizeof err);
  } else if (q == 2) {
    Cuzk__V1__PreloadSrsRequest r = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    r.circuit_id = g_t[rng_below(rng, g_nt)].key_id;
    code = call(rs, "PreloadSRS", &r.base, &cuzk__v1__preload_srs_response__descriptor, &out, 600000, err,
                sizeof err);
  } else if (q == 3) {
    Cuzk__V1__AwaitProofRequest r = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    r.job_id = "no-such-job-1234";
    r.timeout_ms = 10;
    want = CZK_GRPC_NOT_FOUND;
    code = call(rs, "AwaitProof", &r.base, &cuzk__v1__await_proof_response__descriptor, &out, 60000, err, sizeof err);
  } else {
    Cuzk__V1__CancelProofRequest r = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
    r.job_id = "999999999999";
    want = CZK_GRPC_NOT_FOUND;
    code = call(rs, "CancelProof", &r.base, &cuzk__v1__cancel_proof_response__descriptor, &out, 60000, err,
                sizeof err);
  }
  if (out) protobuf_c_message_free_unpacked(out, NULL);
  /* an unknown job id must be refused (any error code but the transport's), known queries must answer */
  bool ok = want ? code != 0 && code != CZK_GRPC_UNAVAILABLE : code == 0;
  if (ok) atomic_fetch_add(&rs->queries_ok, 1);
  else {
    atomic_fetch_add(&rs->queries_bad, 1);
    problem(rs, "query %u: gRPC code %d (%s)", q, code, err);
  }
}

typedef struct client_arg {
  run_state *rs;
  unsigned index;
} client_arg;

static void *client_main(void *arg) {
  client_arg *ca = arg;
  run_state *rs = ca->rs;
  uint64_t rng = rs->o->seed * 1000003ULL + ca->index * 7919ULL + 17;
  unsigned total = 0;
  for (int a = 0; a < ACT_COUNT; a++) total += act_weight[a];
  for (uint64_t n = 0;; n++) {
    int ph = atomic_load(&rs->phase);
    if (ph == 2 || atomic_load(&rs->daemon_dead)) break;
    if (ph == 1) { /* park until resumed */
      pthread_mutex_lock(&rs->pmu);
      atomic_fetch_add(&rs->parked, 1);
      pthread_cond_broadcast(&rs->pcv);
      while (atomic_load(&rs->phase) == 1) pthread_cond_wait(&rs->pcv, &rs->pmu);
      atomic_fetch_sub(&rs->parked, 1);
      pthread_mutex_unlock(&rs->pmu);
      continue;
    }
    unsigned x = rng_below(&rng, total);
    int a = 0;
    while (x >= act_weight[a]) x -= act_weight[a++];
    atomic_fetch_add(&rs->act_count[a], 1);
    switch (a) {
    case ACT_PROVE: act_prove(rs, &rng); break;
    case ACT_SUBMIT: act_submit(rs, &rng, false); break;
    case ACT_TIMEOUT: act_submit(rs, &rng, true); break;
    case ACT_CANCEL: act_cancel(rs, &rng); break;
    case ACT_DUP: act_duplicate(rs, &rng, ca->index, n); break;
    case ACT_MALFORMED: act_malformed(rs, &rng); break;
    case ACT_DISCONNECT: act_disconnect(rs, &rng); break;
    default: act_query(rs, &rng); break;
    }
  }
  return NULL;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Samples of the daemon process: RSS and open fds. */

typedef struct sample {
  double t;
  int phase; /* 0 warm-up, 1 rest, 2 draining, 3 idle */
  uint64_t rss;  /* VmRSS */
  uint64_t anon; /* RssAnon: the heap and other private memory, without the mapped key files */
  unsigned fds;
  /* from one GetMetrics answer (one instant in the daemon): its RssAnon less all of its budget in use (keys, a/b/c,
   * witness, scratch, requests): the anonymous memory the budget does not account for; valid when has_outside */
  bool has_outside;
  double outside;
} sample;

static sample *g_samples;
static size_t g_nsamples;
static atomic_int g_sample_phase;

static uint64_t proc_status(pid_t pid, const char *field) {
  char path[64], line[256];
  size_t fl = strlen(field);
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  uint64_t v = 0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, field, fl) == 0 && line[fl] == ':') v = strtoull(line + fl + 1, NULL, 10) * 1024;
  if (f) fclose(f);
  return v;
}

static unsigned proc_fds(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
  DIR *d = opendir(path);
  unsigned n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.') n++;
  if (d) closedir(d);
  return n;
}

static char *get_metrics(run_state *rs);
static double metric_sum(const char *text, const char *name, const char *f1, const char *f2);

/* The memory outside the budget at one instant, from one metrics text; false when the daemon does not export it. */
static bool outside_budget(const char *m, double *out) {
  if (!m || !strstr(m, "\nczk_process_resident_anon_bytes ")) return false;
  *out = metric_sum(m, "czk_process_resident_anon_bytes", NULL, NULL) - metric_sum(m, "czk_memory_used_bytes", NULL, NULL);
  return true;
}

static void take_sample(run_state *rs, double t0, int phase) {
  if (atomic_load(&rs->daemon_dead)) return;
  sample s = {czk__now_s() - t0, phase, proc_status(rs->daemon, "VmRSS"), proc_status(rs->daemon, "RssAnon"),
              proc_fds(rs->daemon), false, 0};
  char *m = get_metrics(rs);
  s.has_outside = outside_budget(m, &s.outside);
  free(m);
  pthread_mutex_lock(&g_mu);
  if (g_nsamples < MAX_SAMPLES) g_samples[g_nsamples++] = s;
  pthread_mutex_unlock(&g_mu);
}

typedef struct sampler_arg {
  run_state *rs;
  double t0;
  atomic_bool stop;
} sampler_arg;

static void *sampler_main(void *arg) {
  sampler_arg *sa = arg;
  run_state *rs = sa->rs;
  double next = 0;
  while (!atomic_load(&sa->stop)) {
    int st;
    if (waitpid(rs->daemon, &st, WNOHANG) == rs->daemon) {
      atomic_store(&rs->daemon_dead, true);
      problem(rs, "the daemon died (%s %d)", WIFSIGNALED(st) ? "signal" : "exit",
              WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
      break; /* reaped: rs->daemon is not signalled again (stop_daemon checks daemon_dead) */
    }
    double el = czk__now_s() - sa->t0;
    if (el >= next) {
      take_sample(rs, sa->t0, atomic_load(&g_sample_phase));
      next = el + rs->o->sample_s;
    }
    sleep_ms(50);
  }
  return NULL;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Metrics (GetMetrics, Prometheus text). */

/* Sum of the series of `name` whose label set contains every comma-free filter (NULL: all). */
static double metric_sum(const char *text, const char *name, const char *f1, const char *f2) {
  double s = 0;
  size_t nl = strlen(name);
  for (const char *p = text; p && *p;) {
    const char *eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    if (*p != '#' && strncmp(p, name, nl) == 0 && (p[nl] == '{' || p[nl] == ' ')) {
      const char *sp = p[nl] == '{' ? memchr(p, '}', (size_t)(eol - p)) : p + nl;
      char lab[512];
      size_t ll = sp ? (size_t)(sp - p) : 0;
      if (ll >= sizeof lab) ll = sizeof lab - 1;
      memcpy(lab, p, ll);
      lab[ll] = 0;
      if (sp && (!f1 || strstr(lab, f1)) && (!f2 || strstr(lab, f2))) s += strtod(sp + 1, NULL);
    }
    p = *eol ? eol + 1 : NULL;
  }
  return s;
}

static char *get_metrics(run_state *rs) {
  Cuzk__V1__GetMetricsRequest r = CUZK__V1__GET_METRICS_REQUEST__INIT;
  ProtobufCMessage *o;
  char err[256];
  if (call(rs, "GetMetrics", &r.base, &cuzk__v1__get_metrics_response__descriptor, &o, 30000, err, sizeof err))
    return NULL;
  char *t = strdup(((Cuzk__V1__GetMetricsResponse *)o)->prometheus_text);
  protobuf_c_message_free_unpacked(o, NULL);
  return t;
}

/* What the daemon holds at an idle point (checkpoint and after the run): its /proc status and, from GetMetrics, its
 * malloc heap and resident keys. */
#define MAX_IDLE_KEYS 16
typedef struct idle_point {
  sample s;
  bool idle;                     /* the engine drained */
  uint64_t file, heap_in_use, heap_free, heap_mmapped;
  uint64_t anon_m;               /* RssAnon in the same metrics answer as the keys (the daemon's own reading) */
  bool keys_back;                /* every key was resident again (PreloadSRS) before the reading */
  bool heap_known;
  uint64_t keys;                 /* sum of czk_keys_resident_bytes{device="host"} */
  unsigned nkeys;
  char key_id[MAX_IDLE_KEYS][64];
  char key_tier[MAX_IDLE_KEYS][16];
  uint64_t key_bytes[MAX_IDLE_KEYS];
} idle_point;

/* The label value of `name` in a label set text ({a="x",b="y"}), unescaped only trivially (key ids have no quotes). */
static void label_of(const char *lab, const char *name, char *out, size_t n) {
  char pat[40];
  snprintf(pat, sizeof pat, "%s=\"", name);
  const char *p = strstr(lab, pat);
  out[0] = 0;
  if (!p) return;
  p += strlen(pat);
  size_t i = 0;
  while (p[i] && p[i] != '"' && i + 1 < n) out[i] = p[i], i++;
  out[i] = 0;
}

/* The host copies of resident keys, one per series of czk_keys_resident_bytes{device="host"}. */
static void idle_keys(const char *text, idle_point *ip) {
  static const char name[] = "czk_keys_resident_bytes{";
  ip->nkeys = 0;
  ip->keys = 0;
  for (const char *p = text; p && *p;) {
    const char *eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    if (strncmp(p, name, sizeof name - 1) == 0) {
      const char *end = memchr(p, '}', (size_t)(eol - p));
      char lab[512];
      size_t ll = end ? (size_t)(end - p) : 0;
      if (ll >= sizeof lab) ll = sizeof lab - 1;
      memcpy(lab, p, ll);
      lab[ll] = 0;
      if (end && strstr(lab, "device=\"host\"")) {
        uint64_t b = strtoull(end + 1, NULL, 10);
        ip->keys += b;
        if (ip->nkeys < MAX_IDLE_KEYS) {
          label_of(lab, "key", ip->key_id[ip->nkeys], sizeof ip->key_id[0]);
          label_of(lab, "tier", ip->key_tier[ip->nkeys], sizeof ip->key_tier[0]);
          ip->key_bytes[ip->nkeys++] = b;
        }
      }
    }
    p = *eol ? eol + 1 : NULL;
  }
}

/* Wait until the engine is idle: no partition pending or in progress, no budget but keys'. */
static bool wait_idle(run_state *rs, double limit_s) {
  double t0 = czk__now_s();
  while (czk__now_s() - t0 < limit_s && !atomic_load(&rs->daemon_dead)) {
    char *m = get_metrics(rs);
    if (m) {
      double busy = metric_sum(m, "czk_kind_partitions", NULL, NULL) +
                    metric_sum(m, "czk_queue_depth_partitions", NULL, NULL) +
                    metric_sum(m, "czk_synthesis_active_workers", NULL, NULL) +
                    metric_sum(m, "czk_memory_used_bytes", "\"abc\"", NULL) +
                    metric_sum(m, "czk_memory_used_bytes", "\"witness\"", NULL) +
                    metric_sum(m, "czk_memory_used_bytes", "\"scratch\"", NULL);
      free(m);
      if (busy == 0) return true;
    }
    sleep_ms(250);
  }
  return false;
}

/* Wait (at most limit_s) until the daemon says its idle trim came after all the activity its metrics show
 * (czk_process_heap_trimmed 1): its malloc arenas' free space given back, so that idle memory is what it holds. A
 * daemon without the gauge is taken as it is. */
static bool wait_trimmed(run_state *rs, double limit_s) {
  double t0 = czk__now_s();
  while (czk__now_s() - t0 < limit_s && !atomic_load(&rs->daemon_dead)) {
    char *m = get_metrics(rs);
    const bool got = m != NULL, known = got && strstr(m, "\nczk_process_heap_trimmed ") != NULL;
    const bool done = known && metric_sum(m, "czk_process_heap_trimmed", NULL, NULL) == 1;
    free(m);
    if (done || (got && !known)) return done;
    sleep_ms(100);
  }
  return false;
}

/* Park the clients (each finishes its action, which ends with its jobs ended), then wait for the daemon to idle. */
static void pause_clients(run_state *rs, unsigned n) {
  atomic_store(&rs->phase, 1);
  pthread_mutex_lock(&rs->pmu);
  while (atomic_load(&rs->parked) < n && !atomic_load(&rs->daemon_dead)) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    pthread_cond_timedwait(&rs->pcv, &rs->pmu, &ts);
  }
  pthread_mutex_unlock(&rs->pmu);
}

static void stop_clients(run_state *rs) {
  pthread_mutex_lock(&rs->pmu);
  atomic_store(&rs->phase, 2);
  pthread_cond_broadcast(&rs->pcv);
  pthread_mutex_unlock(&rs->pmu);
}

static void resume_clients(run_state *rs) {
  pthread_mutex_lock(&rs->pmu);
  atomic_store(&rs->phase, 0);
  pthread_cond_broadcast(&rs->pcv);
  pthread_mutex_unlock(&rs->pmu);
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* The daemon. */

static char g_tmpdir[64];

static int start_daemon(run_state *rs) {
  const soak_opts *o = rs->o;
  snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/czk-soak-XXXXXX");
  if (!mkdtemp(g_tmpdir)) {
    fprintf(stderr, "czk bench soak: mkdtemp: %s\n", strerror(errno));
    return 1;
  }
  snprintf(rs->addr, sizeof rs->addr, "unix:%s/czk.sock", g_tmpdir);
  char log[128];
  snprintf(log, sizeof log, "%s/daemon.log", g_tmpdir);
  char *copy = strdup(o->daemon_args ? o->daemon_args : "");
  char *av[80];
  int ac = 0;
  av[ac++] = "czk";
  av[ac++] = "daemon";
  av[ac++] = "--listen";
  av[ac++] = rs->addr;
  av[ac++] = "--keys-dir";
  av[ac++] = g_keys_dir;
  av[ac++] = "--param-dir";
  av[ac++] = g_params;
  av[ac++] = "--memory-budget";
  av[ac++] = (char *)o->budget;
  av[ac++] = "--max-message-size";
  av[ac++] = MSG_LIMIT_TEXT;
  av[ac++] = "--result-ttl";
  av[ac++] = "24h";
  av[ac++] = "--drain-grace";
  av[ac++] = "120s";
  av[ac++] = "--log-level";
  av[ac++] = "warn";
  for (char *save = NULL, *t = copy ? strtok_r(copy, " \t", &save) : NULL; t && ac < 78; t = strtok_r(NULL, " \t", &save))
    av[ac++] = t;
  av[ac] = NULL;
  fprintf(stderr, "czk bench soak: daemon:");
  for (int i = 1; i < ac; i++) fprintf(stderr, " %s", av[i]);
  fprintf(stderr, "\n");
  rs->daemon = spawn_exe(o->daemon_bin ? o->daemon_bin : "/proc/self/exe", av, log, false);
  free(copy);
  if (rs->daemon < 0) return 1;
  double t0 = czk__now_s();
  while (czk__now_s() - t0 < 300) {
    uint8_t *text = NULL;
    size_t len = 0;
    if (czk__read_file(log, 1 << 20, &text, &len) == CZK_OK && text) {
      bool ready = strstr((char *)text, "ready on") != NULL;
      free(text);
      if (ready) {
        fprintf(stderr, "czk bench soak: daemon pid %d ready (log %s)\n", (int)rs->daemon, log);
        return 0;
      }
    }
    int st;
    if (waitpid(rs->daemon, &st, WNOHANG) == rs->daemon) {
      fprintf(stderr, "czk bench soak: the daemon did not start (see %s)\n", log);
      rs->daemon = -1;
      return 1;
    }
    sleep_ms(100);
  }
  fprintf(stderr, "czk bench soak: the daemon did not become ready in 300 s (see %s)\n", log);
  return 1;
}

/* SIGTERM; the exit status (-1: did not exit within limit_s, then SIGKILL). */
static int stop_daemon(run_state *rs, double limit_s, double *took) {
  *took = 0;
  if (rs->daemon <= 0 || atomic_load(&rs->daemon_dead)) return -2;
  double t0 = czk__now_s();
  kill(rs->daemon, SIGTERM);
  int st = 0, rc = -1;
  while (czk__now_s() - t0 < limit_s) {
    pid_t w = waitpid(rs->daemon, &st, WNOHANG);
    if (w == rs->daemon) {
      rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    sleep_ms(20);
  }
  *took = czk__now_s() - t0;
  if (rc == -1) {
    kill(rs->daemon, SIGKILL);
    waitpid(rs->daemon, &st, 0);
  }
  rs->daemon = -1;
  return rc;
}

/* PreloadSRS of every key (a resident key answers at once). first: the start of the run (prints load times, reads
 * the synthetic vk); else an idle point, which brings back the keys evicted during the load so that both idle points
 * hold the same keys. */
static int preload_all(run_state *rs, bool first) {
  for (unsigned i = 0; i < g_nt; i++) {
    bool seen = false;
    for (unsigned k = 0; k < i; k++) seen |= strcmp(g_t[k].key_id, g_t[i].key_id) == 0;
    if (seen) continue;
    Cuzk__V1__PreloadSrsRequest r = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    r.circuit_id = g_t[i].key_id;
    ProtobufCMessage *o;
    char err[256];
    double t0 = czk__now_s();
    int code = call(rs, "PreloadSRS", &r.base, &cuzk__v1__preload_srs_response__descriptor, &o, 900000, err,
                    sizeof err);
    if (code) {
      fprintf(stderr, "czk bench soak: PreloadSRS %s: %s (gRPC code %d)\n", g_t[i].key_id, err, code);
      return 1;
    }
    protobuf_c_message_free_unpacked(o, NULL);
    if (first) fprintf(stderr, "czk bench soak: key %s loaded (%.2f s)\n", g_t[i].key_id, czk__now_s() - t0);
  }
  if (first && g_first_of_kind[K_SYN] >= 0) { /* the daemon set the synthetic key up in the keys dir: its vk for checking */
    char path[2600];
    snprintf(path, sizeof path, "%s/synthetic-k%u.vk", g_keys_dir, SYN_K);
    if (read_vk(&g_t[g_first_of_kind[K_SYN]], path) != 0) return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Options. */

static void usage(FILE *f) {
  fprintf(f,
          "usage: czk bench soak --duration D [options]\n"
          "A private daemon under a seeded random mix of every proof kind with cancels, short await timeouts,\n"
          "duplicate request ids, malformed requests and clients that disconnect; then checks that every job had\n"
          "exactly one outcome, every proof verifies, the budget returns to the key bytes, and RSS and open fds stay\n"
          "flat after the warm-up (the table lists each check). Exit 1 when a check fails.\n\n"
          "  --duration D         load time, e.g. 60s, 10m, 1h (default 60s)\n"
          "  --warmup D           warm-up before the idle checkpoint (default 25%% of the duration, at least 10 s)\n"
          "  --seed S             seed of the mix (default 1)\n"
          "  --clients N          client threads (default 4)\n"
          "  --keys DIR           cache of keys and vanilla proofs, made on first use (default ~/.cache/czk-soak)\n"
          "  --kinds LIST         comma list of synthetic, circom, winning-post, window-post, porep, snap\n"
          "                       (default: all; circom only with --circom)\n"
          "  --circom ZKEY WTNS   a snarkjs key and a witness of its circuit for the circom kind\n"
          "  --budget SIZE        the daemon's memory budget (default 8GiB)\n"
          "  --sample D           RSS / fd sampling interval (default 2s)\n"
          "  --daemon-args \"...\"  more daemon flags (after the soak's own, so they override them)\n"
          "  --daemon-bin PATH    the czk executable that runs the daemon (default: this one), e.g. an ASan build\n");
}

static bool dur_s(const char *s, double *out) {
  uint64_t ms;
  if (!czk__parse_duration_ms(s, &ms) || ms == 0) return false;
  *out = (double)ms / 1000.0;
  return true;
}

static int parse_opts(int argc, char **argv, soak_opts *o) {
  memset(o, 0, sizeof *o);
  o->duration_s = 60;
  o->warmup_s = -1;
  o->sample_s = 2;
  o->seed = 1;
  o->clients = 4;
  o->budget = "8GiB";
  const char *home = getenv("HOME");
  snprintf(o->keys, sizeof o->keys, "%s/.cache/czk-soak", home && *home ? home : "/tmp");
  for (int k = 0; k < K_COUNT; k++) o->kind_on[k] = true;
  const char *kinds = NULL;
  enum { O_DUR = 256, O_WARM, O_SEED, O_CLIENTS, O_KEYS, O_KINDS, O_CIRCOM, O_BUDGET, O_SAMPLE, O_DARGS, O_DBIN };
  static const struct option lo[] = {
      {"duration", 1, 0, O_DUR}, {"warmup", 1, 0, O_WARM},   {"seed", 1, 0, O_SEED},     {"clients", 1, 0, O_CLIENTS},
      {"keys", 1, 0, O_KEYS},    {"kinds", 1, 0, O_KINDS},   {"circom", 1, 0, O_CIRCOM}, {"budget", 1, 0, O_BUDGET},
      {"sample", 1, 0, O_SAMPLE}, {"daemon-args", 1, 0, O_DARGS}, {"daemon-bin", 1, 0, O_DBIN}, {"help", 0, 0, 'h'},    {0, 0, 0, 0}};
  optind = 1;
  int c;
  char *end;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case O_DUR:
      if (!dur_s(optarg, &o->duration_s)) return fprintf(stderr, "czk bench soak: bad --duration '%s'\n", optarg), 2;
      break;
    case O_WARM:
      if (!dur_s(optarg, &o->warmup_s)) return fprintf(stderr, "czk bench soak: bad --warmup '%s'\n", optarg), 2;
      break;
    case O_SAMPLE:
      if (!dur_s(optarg, &o->sample_s)) return fprintf(stderr, "czk bench soak: bad --sample '%s'\n", optarg), 2;
      break;
    case O_SEED:
      errno = 0;
      o->seed = strtoull(optarg, &end, 10);
      if (errno || *end || !*optarg) return fprintf(stderr, "czk bench soak: bad --seed '%s'\n", optarg), 2;
      break;
    case O_CLIENTS: {
      errno = 0;
      unsigned long v = strtoul(optarg, &end, 10);
      if (errno || *end || v < 1 || v > MAX_CLIENTS)
        return fprintf(stderr, "czk bench soak: --clients takes 1..%d\n", MAX_CLIENTS), 2;
      o->clients = (unsigned)v;
      break;
    }
    case O_KEYS:
      if (strlen(optarg) >= 1800) return fprintf(stderr, "czk bench soak: --keys path too long\n"), 2;
      snprintf(o->keys, sizeof o->keys, "%s", optarg);
      break;
    case O_KINDS: kinds = optarg; break;
    case O_CIRCOM:
      if (optind >= argc) return fprintf(stderr, "czk bench soak: --circom takes ZKEY WTNS\n"), 2;
      o->circom_zkey = optarg;
      o->circom_wtns = argv[optind++];
      break;
    case O_BUDGET: {
      uint64_t b;
      if (!czk__parse_size(optarg, &b)) return fprintf(stderr, "czk bench soak: bad --budget '%s'\n", optarg), 2;
      o->budget = optarg;
      break;
    }
    case O_DARGS: o->daemon_args = optarg; break;
    case O_DBIN:
      if (access(optarg, X_OK) != 0) return fprintf(stderr, "czk bench soak: --daemon-bin %s: not executable\n", optarg), 2;
      o->daemon_bin = optarg;
      break;
    case 'h': usage(stdout); return -1;
    default: usage(stderr); return 2;
    }
  }
  if (optind != argc) return usage(stderr), 2;
  if (kinds) {
    for (int k = 0; k < K_COUNT; k++) o->kind_on[k] = false;
    char *copy = strdup(kinds), *save = NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
      int k = 0;
      while (k < K_COUNT && strcmp(t, kind_names[k]) != 0) k++;
      if (k == K_COUNT) {
        fprintf(stderr, "czk bench soak: unknown kind '%s' in --kinds\n", t);
        free(copy);
        return 2;
      }
      o->kind_on[k] = true;
    }
    free(copy);
    if (o->kind_on[K_CIRCOM] && !o->circom_zkey)
      return fprintf(stderr, "czk bench soak: the circom kind needs --circom ZKEY WTNS\n"), 2;
  }
  if (!o->circom_zkey) o->kind_on[K_CIRCOM] = false;
  bool any = false;
  for (int k = 0; k < K_COUNT; k++) any |= o->kind_on[k];
  if (!any) return fprintf(stderr, "czk bench soak: no kind to run\n"), 2;
  if (o->warmup_s < 0) o->warmup_s = o->duration_s * 0.25 > 10 ? o->duration_s * 0.25 : 10;
  if (o->warmup_s >= o->duration_s)
    return fprintf(stderr, "czk bench soak: --warmup must be shorter than --duration\n"), 2;
  return 0;
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Checks and the report. */

typedef struct check {
  const char *name;
  bool pass;
  char detail[400];
} check;

static void add_check(check *c, unsigned *n, const char *name, bool pass, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void add_check(check *c, unsigned *n, const char *name, bool pass, const char *fmt, ...) {
  check *x = &c[(*n)++];
  x->name = name;
  x->pass = pass;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(x->detail, sizeof x->detail, fmt, ap);
  va_end(ap);
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

typedef struct term_arg {
  run_state *rs;
  jrec *j;
} term_arg;

static void *term_waiter(void *arg) {
  term_arg *t = arg;
  await_job(t->rs, t->j, 0);
  return NULL;
}

/* A final AwaitProof of every job: it must answer what was seen before. */
static void final_awaits(run_state *rs, size_t *lost, size_t *mismatch) {
  *lost = *mismatch = 0;
  for (size_t h = 0; h < JHASH; h++)
    for (jrec *j = g_jobs[h]; j; j = j->next) {
      pthread_mutex_lock(&g_mu);
      int before = j->outcome;
      uint64_t hash = j->proof_hash;
      pthread_mutex_unlock(&g_mu);
      Cuzk__V1__AwaitProofRequest r = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
      r.job_id = j->id;
      r.timeout_ms = before ? 1000 : 60000;
      ProtobufCMessage *out;
      char err[256];
      int code = call(rs, "AwaitProof", &r.base, &cuzk__v1__await_proof_response__descriptor, &out, 120000, err,
                      sizeof err);
      if (code) {
        problem(rs, "final AwaitProof %s: %s (gRPC code %d)", j->id, err, code);
        if (!before) (*lost)++;
        else (*mismatch)++;
        continue;
      }
      const Cuzk__V1__AwaitProofResponse *a = (const Cuzk__V1__AwaitProofResponse *)out;
      if (!before) {
        if (!observe(j, a)) {
          (*lost)++;
          problem(rs, "job %s (%s) never ended: status %d", j->id, g_t[j->t].label, a->status);
        }
      } else if ((int)a->status != before || fnv64(a->proof.data, a->proof.len) != hash) {
        (*mismatch)++;
        problem(rs, "job %s: the final AwaitProof answered status %d, earlier %d", j->id, a->status, before);
      }
      protobuf_c_message_free_unpacked(out, NULL);
    }
}

int czk_bench_soak(int argc, char **argv) {
  soak_opts o;
  int rc = parse_opts(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  signal(SIGPIPE, SIG_IGN);
  static run_state rs_static;
  run_state *rs = &rs_static;
  memset(rs, 0, sizeof *rs);
  rs->o = &o;
  rs->daemon = -1;
  pthread_mutex_init(&rs->pmu, NULL);
  pthread_cond_init(&rs->pcv, NULL);
  g_samples = calloc(MAX_SAMPLES, sizeof *g_samples);
  if (!g_samples) return 1;
  double ts = czk__now_s();
  if (make_templates(&o) != 0) {
    free_templates();
    free(g_samples);
    return 1;
  }
  double t_setup = czk__now_s() - ts;
  if (start_daemon(rs) != 0) {
    free_templates();
    free(g_samples);
    return 1;
  }
  rc = 1;
  pthread_t th[MAX_CLIENTS], sth;
  client_arg ca[MAX_CLIENTS];
  unsigned started = 0;
  sampler_arg sa = {.rs = rs};
  bool sampler = false;
  if (preload_all(rs, true) != 0) goto stop;

  printf("czk bench soak: %.0f s of load (warm-up %.0f s), %u clients, seed %llu, keys in %s\n", o.duration_s,
         o.warmup_s, o.clients, (unsigned long long)o.seed, o.keys);
  printf("kinds:");
  for (unsigned i = 0; i < g_nt; i++) printf(" %s", g_t[i].label);
  printf("\n");
  fflush(stdout);
  double t0 = czk__now_s();
  sa.t0 = t0;
  atomic_store(&g_sample_phase, 0);
  sampler = pthread_create(&sth, NULL, sampler_main, &sa) == 0;
  for (; started < o.clients; started++) {
    ca[started] = (client_arg){rs, started};
    if (pthread_create(&th[started], NULL, client_main, &ca[started]) != 0) break;
  }
  /* warm-up, idle checkpoint, the rest, drain */
  idle_point idle_w, idle_e;
  memset(&idle_w, 0, sizeof idle_w);
  memset(&idle_e, 0, sizeof idle_e);
  double next_report = 10, resumed = o.warmup_s, t_pause = 0;
  for (int stage = 0; stage < 2 && !atomic_load(&rs->daemon_dead); stage++) {
    /* the load time is the duration, whatever the checkpoint's drain takes */
    double until = stage == 0 ? o.warmup_s : resumed + (o.duration_s - o.warmup_s);
    for (;;) {
      double el = czk__now_s() - t0;
      if (el >= until || atomic_load(&rs->daemon_dead)) break;
      if (el >= next_report) {
        pthread_mutex_lock(&g_mu);
        size_t nj = g_njobs;
        pthread_mutex_unlock(&g_mu);
        fprintf(stderr, "czk bench soak: [%6.0f s] %zu jobs, %lu proofs verified, %lu malformed refused\n", el, nj,
                atomic_load(&g_proofs_verified), atomic_load(&rs->malformed_refused));
        next_report = el + (o.duration_s >= 600 ? 60 : 10);
      }
      sleep_ms(100);
    }
    atomic_store(&g_sample_phase, 2);
    if (stage == 0) pause_clients(rs, started);
    else {
      stop_clients(rs);
      for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
      started = 0;
    }
    bool idle = wait_idle(rs, 600);
    /* like with like: the keys evicted under load (budget pressure) are loaded again, so both idle points hold every
     * key (they fit: the run started with all of them resident) */
    bool keys_back = idle && preload_all(rs, false) == 0;
    sleep_ms(500);
    if (idle && !wait_trimmed(rs, 10))
      fprintf(stderr, "czk bench soak: the daemon did not report its idle trim within 10 s; measuring as it is\n");
    if (!atomic_load(&rs->daemon_dead)) {
      idle_point *ip = stage == 0 ? &idle_w : &idle_e;
      char *im = get_metrics(rs);
      sample s = {czk__now_s() - t0, 3, proc_status(rs->daemon, "VmRSS"), proc_status(rs->daemon, "RssAnon"),
                  proc_fds(rs->daemon), false, 0};
      s.has_outside = outside_budget(im, &s.outside);
      ip->s = s;
      ip->idle = idle && im;
      ip->keys_back = keys_back;
      ip->anon_m = im ? (uint64_t)metric_sum(im, "czk_process_resident_anon_bytes", NULL, NULL) : 0;
      ip->file = proc_status(rs->daemon, "RssFile");
      { /* the daemon's memory map at this point, kept next to its log: which mappings grew between idle points */
        char from[64], to[128];
        snprintf(from, sizeof from, "/proc/%d/smaps", (int)rs->daemon);
        snprintf(to, sizeof to, "%s/idle-%d.smaps", g_tmpdir, stage);
        uint8_t *text = NULL;
        size_t len = 0;
        if (czk__read_file(from, 64u << 20, &text, &len) == CZK_OK && text) {
          FILE *f = fopen(to, "w");
          if (f) {
            fwrite(text, 1, len, f);
            fclose(f);
          }
          free(text);
        }
      }
      if (im) {
        ip->heap_known = strstr(im, "czk_process_heap_bytes{") != NULL;
        ip->heap_in_use = (uint64_t)metric_sum(im, "czk_process_heap_bytes", "\"in_use\"", NULL);
        ip->heap_free = (uint64_t)metric_sum(im, "czk_process_heap_bytes", "\"free\"", NULL);
        ip->heap_mmapped = (uint64_t)metric_sum(im, "czk_process_heap_bytes", "\"mmapped\"", NULL);
        idle_keys(im, ip);
        free(im);
      }
      pthread_mutex_lock(&g_mu);
      if (g_nsamples < MAX_SAMPLES) g_samples[g_nsamples++] = s;
      pthread_mutex_unlock(&g_mu);
      fprintf(stderr,
              "czk bench soak: [%6.0f s] idle %s: RSS %.1f MiB (anonymous %.1f, file %.1f), heap in use %.1f, free "
              "%.1f, mmapped %.1f, keys %.1f MiB, %u fds%s\n",
              s.t, stage == 0 ? "checkpoint" : "after the run", mib(s.rss), mib(s.anon), mib(ip->file),
              mib(ip->heap_in_use), mib(ip->heap_free), mib(ip->heap_mmapped), mib(ip->keys), s.fds,
              idle ? "" : " (NOT idle)");
    }
    if (stage == 0) {
      atomic_store(&g_sample_phase, 1);
      resumed = czk__now_s() - t0;
      t_pause = resumed - o.warmup_s;
      resume_clients(rs);
    }
  }
  double t_load = czk__now_s() - t0;

  /* after the run: final awaits, the daemon's counters, then SIGTERM */
  size_t lost = 0, mismatch = 0;
  char *m = NULL;
  if (!atomic_load(&rs->daemon_dead)) {
    final_awaits(rs, &lost, &mismatch);
    m = get_metrics(rs);
  }
  atomic_store(&sa.stop, true);
  if (sampler) pthread_join(sth, NULL);
  sampler = false;
  /* SIGTERM with work in flight: a few synthetic jobs, each with a waiter; the daemon drains them before it exits */
  double took = 0;
  unsigned nterm = 0, term_ended = 0;
  term_arg ta[MAX_CLIENTS];
  pthread_t tth[MAX_CLIENTS];
  uint64_t trng = o.seed ^ 0x5EEDULL;
  for (unsigned i = 0; i < o.clients && !atomic_load(&rs->daemon_dead) && g_first_of_kind[K_SYN] >= 0; i++) {
    jobspec js = {(unsigned)g_first_of_kind[K_SYN], 1 + rng_below(&trng, SYN_MAX_PARTS),
                  1 + rng_below(&trng, 1000000), 2};
    jrec *j = submit(rs, &js, NULL, ACT_SUBMIT, NULL);
    if (!j) continue;
    ta[nterm] = (term_arg){rs, j};
    if (pthread_create(&tth[nterm], NULL, term_waiter, &ta[nterm]) == 0) nterm++;
  }
  sleep_ms(50);
  int exit_code = atomic_load(&rs->daemon_dead) ? -2 : stop_daemon(rs, 180, &took);
  for (unsigned i = 0; i < nterm; i++) {
    pthread_join(tth[i], NULL);
    term_ended += ta[i].j->outcome != 0;
  }

  /* ---- the tables ---- */
  size_t n = 0, by_out[4] = {0}, unexpected = 0, conflicts = 0, completed = 0, verified = 0, bad_proof = 0;
  size_t per_kind[K_COUNT][4] = {{0}};
  for (size_t h = 0; h < JHASH; h++)
    for (jrec *j = g_jobs[h]; j; j = j->next) {
      n++;
      int oc = j->outcome >= 0 && j->outcome <= 3 ? j->outcome : 0;
      by_out[oc]++;
      per_kind[g_t[j->t].kind][oc]++;
      conflicts += j->conflicts;
      if (oc == 1) {
        completed++;
        if (j->verified) verified++;
        else bad_proof++;
      }
      /* a valid job may end FAILED never; CANCELLED only when we cancelled it (or a duplicate attached to it) */
      bool ok = oc == 1 || (oc == 3 && j->cancel_sent);
      if (oc != 0 && !ok) {
        unexpected++;
        if (unexpected <= 10)
          fprintf(stderr, "czk bench soak: job %s (%s, %s): %s%s%s\n", j->id, g_t[j->t].label, act_names[j->action],
                  czk__client_await_status_name(oc), j->err[0] ? ": " : "", j->err);
      }
      if (oc == 1 && !j->verified && bad_proof <= 10)
        fprintf(stderr, "czk bench soak: job %s (%s): %s\n", j->id, g_t[j->t].label, j->err);
    }
  lost += by_out[0] > lost ? by_out[0] - lost : 0;
  printf("\n%-26s %8s\n", "ACTION", "COUNT");
  for (int a = 0; a < ACT_COUNT; a++) printf("%-26s %8lu\n", act_names[a], atomic_load(&rs->act_count[a]));
  printf("\n%-26s %8s %8s %8s %8s %8s %9s %9s\n", "KIND", "JOBS", "PROVED", "FAILED", "CANCEL", "NO END", "P50 (s)",
         "MAX (s)");
  double *lat = malloc((n ? n : 1) * sizeof *lat);
  for (int k = 0; k < K_COUNT && lat; k++) {
    if (g_first_of_kind[k] < 0) continue;
    size_t tot = per_kind[k][0] + per_kind[k][1] + per_kind[k][2] + per_kind[k][3], nl = 0;
    for (size_t h = 0; h < JHASH; h++)
      for (jrec *j = g_jobs[h]; j; j = j->next)
        if (g_t[j->t].kind == (kind_id)k && j->outcome == 1) lat[nl++] = j->t_end - j->t_submit;
    qsort(lat, nl, sizeof *lat, czk__bench_cmp_double);
    printf("%-26s %8zu %8zu %8zu %8zu %8zu", kind_names[k], tot, per_kind[k][1], per_kind[k][2], per_kind[k][3],
           per_kind[k][0]);
    if (nl) printf(" %9.2f %9.2f\n", lat[(nl - 1) / 2], lat[nl - 1]);
    else printf(" %9s %9s\n", "-", "-");
  }
  free(lat);
  printf("\n%-26s %8s %8s\n", "MALFORMED REQUEST", "SENT", "ACCEPTED");
  for (int i = 0; i < MAL_COUNT; i++)
    printf("%-26s %8lu %8lu\n", mal_names[i], atomic_load(&g_mal_count[i]), atomic_load(&g_mal_accepted[i]));

  printf("\nRSS / fds of the daemon (%zu samples every %.0f s):\n", g_nsamples, o.sample_s);
  uint64_t warm_rss = 0, late_rss = 0, warm_anon = 0, late_anon = 0;
  unsigned warm_fd = 0, late_fd = 0;
  size_t nwarm = 0, nlate = 0, nwarm_out = 0, nlate_out = 0;
  double warm_out = -1e300, late_out = -1e300;
  /* the last half of the run: of the load after the checkpoint, the part after the run's midpoint */
  double half = resumed + (o.duration_s / 2 - o.warmup_s > 0 ? o.duration_s / 2 - o.warmup_s : 0);
  for (size_t i = 0; i < g_nsamples; i++) {
    const sample *s = &g_samples[i];
    if (s->phase == 0) {
      nwarm++;
      if (s->rss > warm_rss) warm_rss = s->rss;
      if (s->anon > warm_anon) warm_anon = s->anon;
      if (s->fds > warm_fd) warm_fd = s->fds;
      if (s->has_outside && s->outside > warm_out) warm_out = s->outside;
      nwarm_out += s->has_outside;
    } else if (s->phase == 1 && s->t >= half) {
      nlate++;
      if (s->rss > late_rss) late_rss = s->rss;
      if (s->anon > late_anon) late_anon = s->anon;
      if (s->fds > late_fd) late_fd = s->fds;
      if (s->has_outside && s->outside > late_out) late_out = s->outside;
      nlate_out += s->has_outside;
    }
  }
  /* a compact series: up to 12 points */
  size_t step = g_nsamples > 12 ? g_nsamples / 12 : 1;
  printf("%10s %12s %12s %14s %6s  %s\n", "T (s)", "RSS (MiB)", "ANON (MiB)", "OUTSIDE (MiB)", "FDS", "PHASE");
  static const char *const ph[] = {"warm-up", "load", "drain", "idle"};
  for (size_t i = 0; i < g_nsamples; i++)
    if (i % step == 0 || g_samples[i].phase == 3 || i + 1 == g_nsamples)
      printf("%10.1f %12.1f %12.1f %14.1f %6u  %s\n", g_samples[i].t, mib(g_samples[i].rss), mib(g_samples[i].anon),
             g_samples[i].has_outside ? g_samples[i].outside / 1048576.0 : 0.0, g_samples[i].fds,
             ph[g_samples[i].phase & 3]);

  /* the idle points: what the daemon held with no job in flight */
  printf("\n%-14s %10s %10s %10s %10s %10s %10s %10s\n", "IDLE (MiB)", "RSS", "ANON", "FILE", "HEAP USED", "HEAP FREE",
         "HEAP MMAP", "KEYS");
  for (int i = 0; i < 2; i++) {
    const idle_point *ip = i == 0 ? &idle_w : &idle_e;
    printf("%-14s %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f%s\n", i == 0 ? "checkpoint" : "after the run",
           mib(ip->s.rss), mib(ip->s.anon), mib(ip->file), mib(ip->heap_in_use), mib(ip->heap_free),
           mib(ip->heap_mmapped), mib(ip->keys), ip->idle ? "" : "  (not idle)");
  }
  for (int i = 0; i < 2; i++) {
    const idle_point *ip = i == 0 ? &idle_w : &idle_e;
    printf("keys resident %s:", i == 0 ? "at the checkpoint" : "after the run");
    for (unsigned k = 0; k < ip->nkeys; k++)
      printf(" %s (%s) %.1f MiB%s", ip->key_id[k], ip->key_tier[k], mib(ip->key_bytes[k]), k + 1 < ip->nkeys ? "," : "");
    printf("%s\n", ip->nkeys ? "" : " none");
  }

  /* budget after the drain */
  double key = 0, abcw = 0, used = 0, resident = 0, submitted = 0, ended = 0;
  if (m) {
    key = metric_sum(m, "czk_memory_used_bytes", "\"key\"", NULL);
    abcw = metric_sum(m, "czk_memory_used_bytes", "\"abc\"", NULL) +
           metric_sum(m, "czk_memory_used_bytes", "\"witness\"", NULL) +
           metric_sum(m, "czk_memory_used_bytes", "\"scratch\"", NULL);
    used = metric_sum(m, "czk_memory_used_bytes", NULL, NULL);
    resident = metric_sum(m, "czk_keys_resident_bytes", "device=\"host\"", NULL);
    submitted = metric_sum(m, "czk_jobs_total", "event=\"submitted\"", NULL);
    ended = metric_sum(m, "czk_jobs_total", "event=\"completed\"", NULL) +
            metric_sum(m, "czk_jobs_total", "event=\"failed\"", NULL) +
            metric_sum(m, "czk_jobs_total", "event=\"cancelled\"", NULL);
  }
  check c[16];
  unsigned nc = 0;
  bool alive = !atomic_load(&rs->daemon_dead);
  add_check(c, &nc, "daemon alive", alive, "%s", alive ? "it served the whole run" : rs->last_problem);
  add_check(c, &nc, "one outcome per job", lost == 0 && conflicts == 0 && mismatch == 0 && unexpected == 0 && n > 0,
            "%zu jobs: %zu proved, %zu failed, %zu cancelled; %zu without an end, %zu disagreeing answers, %zu "
            "unexpected outcomes; %lu duplicate ids attached",
            n, by_out[1], by_out[2], by_out[3], lost, conflicts + mismatch, unexpected,
            atomic_load(&rs->attached_same));
  add_check(c, &nc, "proofs verify", bad_proof == 0 && verified == completed && completed > 0,
            "%zu of %zu proofs (%lu partitions) verified here with the keys' vk", verified, completed,
            atomic_load(&g_partitions_verified));
  add_check(c, &nc, "malformed refused", atomic_load(&rs->malformed_accepted) == 0 && alive,
            "%lu refused, %lu accepted or unanswered", atomic_load(&rs->malformed_refused),
            atomic_load(&rs->malformed_accepted));
  size_t probs = (size_t)atomic_load(&rs->queries_bad) + atomic_load(&rs->rpc_unavailable);
  add_check(c, &nc, "RPCs answered", probs == 0 && alive,
            "%lu UNAVAILABLE, %lu bad query answers; %lu await timeouts seen, %lu cancels, %lu deadline and %lu "
            "killed-client disconnects",
            atomic_load(&rs->rpc_unavailable), atomic_load(&rs->queries_bad), atomic_load(&rs->timeouts_seen),
            atomic_load(&rs->cancels_sent), atomic_load(&rs->disconnects_deadline),
            atomic_load(&rs->disconnects_kill));
  add_check(c, &nc, "daemon accounting", m && submitted == ended && submitted > 0,
            "czk_jobs_total: %.0f submitted, %.0f completed + failed + cancelled", submitted, ended);
  add_check(c, &nc, "budget back to key bytes", m && idle_e.idle && abcw == 0 && used == key && key == resident,
            "after the drain: %.1f MiB in use, keys %.1f MiB, abc+witness+scratch %.0f B, resident keys %.1f MiB",
            mib((uint64_t)used), mib((uint64_t)key), abcw, mib((uint64_t)resident));
  /* Memory checks, like with like (the header comment says why):
   *  idle: the anonymous memory that is not a resident key's, at the two idle points (both holding every key);
   *  load: the anonymous memory outside the budget (RssAnon less all budget in use, one metrics answer), its largest
   *        value over the last half against its largest over the warm-up; and the whole RSS under the budget the
   *        daemon enforces plus what it held outside it at the checkpoint. */
  double nk_w = (double)idle_w.anon_m - (double)idle_w.keys, nk_e = (double)idle_e.anon_m - (double)idle_e.keys;
  double nk_lim = nk_w + (double)(IDLE_SLACK_MIB << 20);
  bool idle_ok = idle_w.idle && idle_e.idle && idle_w.anon_m > 0 && idle_e.anon_m > 0 && nk_e <= nk_lim;
  add_check(c, &nc, "idle memory flat", idle_ok,
            "anonymous memory less resident keys at idle %.1f -> %.1f MiB <= %.1f (+%u); RssAnon %.1f -> %.1f, keys "
            "%.1f -> %.1f MiB%s",
            nk_w / 1048576.0, nk_e / 1048576.0, nk_lim / 1048576.0, (unsigned)IDLE_SLACK_MIB, mib(idle_w.anon_m),
            mib(idle_e.anon_m), mib(idle_w.keys), mib(idle_e.keys),
            idle_w.keys_back && idle_e.keys_back ? "" : " (not every key could be loaded again)");
  double out_lim = warm_out + (double)(LOAD_SLACK_MIB << 20);
  double limit = m ? metric_sum(m, "czk_memory_limit_bytes", NULL, NULL) : 0;
  double rss_lim = limit + ((double)idle_w.s.rss - (double)idle_w.keys) + (double)(LOAD_SLACK_MIB << 20) * 2;
  add_check(c, &nc, "memory under load",
            nwarm_out > 0 && nlate_out > 0 && late_out <= out_lim && (double)late_rss <= rss_lim,
            "outside the budget: last-half max %.1f MiB <= %.1f (warm-up max %.1f + %u); RSS last-half max %.1f MiB "
            "<= %.1f (budget %.1f + %.1f held outside it at the checkpoint + %u)",
            late_out / 1048576.0, out_lim / 1048576.0, warm_out / 1048576.0, (unsigned)LOAD_SLACK_MIB, mib(late_rss),
            rss_lim / 1048576.0, limit / 1048576.0, ((double)idle_w.s.rss - (double)idle_w.keys) / 1048576.0,
            (unsigned)LOAD_SLACK_MIB * 2);
  add_check(c, &nc, "fds flat",
            nwarm > 0 && nlate > 0 && late_fd <= warm_fd + 8 && idle_e.s.fds <= idle_w.s.fds + 2 &&
                idle_e.s.fds + 2 >= idle_w.s.fds,
            "last-half max %u <= %u (warm-up max + 8); idle %u -> %u (within 2)", late_fd, warm_fd + 8, idle_w.s.fds,
            idle_e.s.fds);
  add_check(c, &nc, "SIGTERM exit 0", exit_code == 0 && term_ended == nterm,
            "exit %d in %.2f s; %u of %u jobs in flight at SIGTERM ended (drained)", exit_code, took, term_ended,
            nterm);
  printf("\n%-26s %-6s %s\n", "CHECK", "RESULT", "DETAIL");
  bool all = true;
  for (unsigned i = 0; i < nc; i++) {
    printf("%-26s %-6s %s\n", c[i].name, c[i].pass ? "PASS" : "FAIL", c[i].detail);
    all &= c[i].pass;
  }
  printf("\nsetup %.1f s, load + drains %.1f s (the checkpoint's drain %.1f s); %s\n", t_setup, t_load, t_pause, all ? "all checks passed" : "CHECKS FAILED");
  if (!all) printf("daemon log: %s/daemon.log (kept)\n", g_tmpdir);
  free(m);
  rc = all ? 0 : 1;
  if (all) {
    char p[128];
    snprintf(p, sizeof p, "%s/daemon.log", g_tmpdir);
    unlink(p);
    rmdir(g_tmpdir);
  }
stop:
  stop_clients(rs);
  for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
  atomic_store(&sa.stop, true);
  if (sampler) pthread_join(sth, NULL);
  if (rs->daemon > 0) {
    double took2;
    stop_daemon(rs, 180, &took2);
  }
  for (size_t h = 0; h < JHASH; h++)
    while (g_jobs[h]) {
      jrec *j = g_jobs[h];
      g_jobs[h] = j->next;
      free(j);
    }
  free_templates();
  free(g_samples);
  fflush(stdout);
  return rc;
}
