/* cmd_demo.c: `czk demo`: the main job for a newcomer, a storage provider's first five minutes. Starts `czk daemon` on
 * its embedded default configuration (a private socket; one keys directory that is also its param_dir) and submits,
 * all at once through the gRPC API: the Filecoin kinds at one sector size (demo_filecoin.c: WinningPoSt critical,
 * one WindowPoSt partition high, PoRep C2 and SnapDeals normal; keys set up on the first run under their v28 names,
 * requests as `czk gen-vanilla` writes them), synthetic jobs of mixed sizes and priorities, and a circom job when a
 * snarkjs key is given. Every proof is verified again here (Filecoin: as `czk verify --request` does; synthetic:
 * against the .vk and the seed's witness; circom: against the zkey's vk), then the table is printed (one row per job,
 * columns as wide as their values, one closing line per kind), the devices' busy % from the daemon's metrics, the
 * timeline HTML (czk trace), and the daemon is stopped with SIGTERM. Exit 0 only when every job completed with every
 * partition verified and the daemon exited clean.
 * With --circom ZKEY WTNS (scripts/run.sh passes the oracle's `mix` circuit when Node is present) the key is installed
 * in the keys directory as demo-circom and its proof is also written as czk-circom-proof.json /
 * czk-circom-public.json (snarkjs form). The temporary folder (socket, requests, proofs) is removed at the end. */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "circuits/synthetic.h"
#include "cli/cli.h"
#include "cli/demo.h"
#include "api/client.h"
#include "core/clock.h"
#include "core/mapfile.h"
#include "czk/snarkjs.h"
#include "czk/groth16.h"

int czk__trace_write_html(const char *path, const char *json);

typedef struct demo_job {
  unsigned k, parts;
  uint64_t seed;
  czk__demo_row row;
  size_t proof_len;
  uint8_t *proof;
} demo_job;

static const char *g_addr;

static void *run_job(void *arg) {
  demo_job *j = arg;
  char spec[64];
  snprintf(spec, sizeof spec, "partitions=%u seed=%llu", j->parts, (unsigned long long)j->seed);
  Cuzk__V1__SubmitProofRequest r = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  r.proof_kind = CUZK__V1__PROOF_KIND__CZK_SYNTHETIC;
  r.sector_size = 1ull << j->k;
  r.priority = (Cuzk__V1__Priority)j->row.priority;
  r.vanilla_proof.data = (uint8_t *)spec;
  r.vanilla_proof.len = strlen(spec);
  Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
  pr.submit = &r;
  ProtobufCMessage *out;
  double t0 = czk__now_s();
  j->row.code = czk__client_call(g_addr, "/cuzk.v1.ProvingEngine/Prove", &pr.base,
                                 &cuzk__v1__prove_response__descriptor, &out, 0, true, j->row.err, sizeof j->row.err);
  j->row.wall_s = czk__now_s() - t0;
  if (j->row.code) return NULL;
  Cuzk__V1__AwaitProofResponse *a = ((Cuzk__V1__ProveResponse *)out)->result;
  if (a) {
    j->row.status = a->status;
    snprintf(j->row.job_id, sizeof j->row.job_id, "%s", a->job_id);
    if (a->error_message) snprintf(j->row.err, sizeof j->row.err, "%s", a->error_message);
    j->proof_len = a->proof.len;
    j->proof = malloc(a->proof.len ? a->proof.len : 1);
    if (j->proof) memcpy(j->proof, a->proof.data, a->proof.len);
  }
  protobuf_c_message_free_unpacked(out, NULL);
  return NULL;
}

/* The circom job: Prove with CZK_CIRCOM, then verify the 192-byte proof against the zkey's vk and the witness's
 * public signals; row->verified is 1 when it completed and verified. */
static void run_circom(const char *zkey, const char *wtns, czk__demo_row *row) {
  uint8_t *w = NULL;
  size_t wlen = 0;
  const size_t errlen = sizeof row->err;
  char *err = row->err;
  snprintf(row->kind, sizeof row->kind, "circom:demo-circom");
  row->priority = CUZK__V1__PRIORITY__HIGH;
  row->parts = 1;
  if (czk__read_file(wtns, 256u << 20, &w, &wlen) != CZK_OK) {
    snprintf(err, errlen, "cannot read %s", wtns);
    row->code = -1;
    return;
  }
  Cuzk__V1__SubmitProofRequest r = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  ProtobufCBinaryData circ = {strlen("demo-circom"), (uint8_t *)"demo-circom"};
  r.proof_kind = CUZK__V1__PROOF_KIND__CZK_CIRCOM;
  r.priority = (Cuzk__V1__Priority)row->priority;
  r.vanilla_proof.data = w;
  r.vanilla_proof.len = wlen;
  r.n_vanilla_proofs = 1;
  r.vanilla_proofs = &circ;
  Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
  pr.submit = &r;
  ProtobufCMessage *out;
  double t0 = czk__now_s();
  row->code = czk__client_call(g_addr, "/cuzk.v1.ProvingEngine/Prove", &pr.base, &cuzk__v1__prove_response__descriptor,
                               &out, 0, true, err, errlen);
  row->wall_s = czk__now_s() - t0;
  free(w);
  if (row->code) return;
  Cuzk__V1__AwaitProofResponse *a = ((Cuzk__V1__ProveResponse *)out)->result;
  if (a) {
    row->status = a->status;
    snprintf(row->job_id, sizeof row->job_id, "%s", a->job_id);
    if (a->status != CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED)
      snprintf(err, errlen, "%s", a->error_message ? a->error_message : "failed");
  }
  if (a && a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED && a->proof.len == CZK_GROTH16_PROOF_BYTES) {
    czk_zkey *z = NULL;
    czk_groth16_vk vk;
    czk_circom_wtns wt;
    czk_groth16_proof pf;
    czk_zkey_info info;
    if (czk_zkey_open(&z, zkey) == CZK_OK && czk_zkey_vk(z, &vk) == CZK_OK) {
      czk_zkey_get_info(z, &info);
      if (czk_circom_wtns_read(&wt, wtns) == CZK_OK) {
        if (czk_groth16_proof_decode(&pf, a->proof.data) == CZK_OK &&
            czk_groth16_verify(&vk, &pf, wt.w + 1, info.n_public) == CZK_OK) {
          row->verified = 1;
          /* in snarkjs form too, for `snarkjs groth16 verify` (scripts/run.sh runs it when Node is present) */
          if (czk_snarkjs_proof_write("czk-circom-proof.json", &pf) != CZK_OK ||
              czk_snarkjs_public_write("czk-circom-public.json", wt.w + 1, info.n_public) != CZK_OK)
            fprintf(stderr, "czk demo: could not write czk-circom-proof.json / czk-circom-public.json\n");
        } else {
          snprintf(err, errlen, "proof does not verify");
        }
        czk_circom_wtns_free(&wt);
      }
      czk_groth16_vk_free(&vk);
    }
    if (z) czk_zkey_close(z);
  }
  protobuf_c_message_free_unpacked(out, NULL);
}

/* Verify every partition proof of a synthetic job here, independently of the daemon's self-check. */
static void verify_job(demo_job *j, const char *keys_dir) {
  if (j->row.code != 0 || j->row.status != CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) return;
  char vkp[4200];
  snprintf(vkp, sizeof vkp, "%s/synthetic-k%u.vk", keys_dir, j->k);
  czk_groth16_vk vk;
  if (czk_groth16_vk_read(&vk, vkp, false) != CZK_OK) return;
  for (unsigned p = 0; p < j->parts && (p + 1) * CZK_GROTH16_PROOF_BYTES <= j->proof_len; p++) {
    czk_witness w;
    if (czk_synthetic_witness(&w, j->k, j->seed + p) != CZK_OK) continue;
    size_t n_pub;
    const czk_fr *pub = czk_groth16_public_inputs(&w, &n_pub);
    czk_groth16_proof pf;
    if (czk_groth16_proof_decode(&pf, j->proof + p * CZK_GROTH16_PROOF_BYTES) == CZK_OK &&
        czk_groth16_verify(&vk, &pf, pub, n_pub) == CZK_OK)
      j->row.verified++;
    czk_witness_free(&w);
  }
  czk_groth16_vk_free(&vk);
}

/* Sum a metric family's samples matching a device label from Prometheus text. */
static double metric(const char *text, const char *name, const char *dev) {
  double sum = 0;
  size_t nl = strlen(name);
  for (const char *p = text; p && *p;) {
    const char *eol = strchr(p, '\n');
    if (strncmp(p, name, nl) == 0 && p[nl] == '{') {
      char want[64];
      snprintf(want, sizeof want, "device=\"%s\"", dev);
      const char *close = strchr(p, '}');
      if (close && (!eol || close < eol) && strstr(p, want) && strstr(p, want) < close) sum += strtod(close + 1, NULL);
    }
    p = eol ? eol + 1 : NULL;
  }
  return sum;
}

static pid_t start_daemon(const char *sock, const char *keys, FILE **out) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    char listen[4300];
    snprintf(listen, sizeof listen, "unix:%s", sock);
    /* one keys directory for everything: the synthetic keys the daemon makes on first use, the circom key and the
     * Filecoin keys under their v28 names (param_dir) */
    execl("/proc/self/exe", "czk", "daemon", "--listen", listen, "--keys-dir", keys, "--param-dir", keys,
          "--log-level", "warn", (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  *out = fdopen(fds[0], "r");
  return pid;
}

/* PreloadSRS of one key, in a thread of its own (the key loads overlap). */
typedef struct preload {
  char id[48];
  int code;
  char err[160];
} preload;

static void *run_preload(void *arg) {
  preload *p = arg;
  Cuzk__V1__PreloadSrsRequest r = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
  r.circuit_id = p->id;
  ProtobufCMessage *o;
  p->code = czk__client_call(g_addr, "/cuzk.v1.ProvingEngine/PreloadSRS", &r.base,
                             &cuzk__v1__preload_srs_response__descriptor, &o, 0, true, p->err, sizeof p->err);
  if (p->code == 0) protobuf_c_message_free_unpacked(o, NULL);
  return NULL;
}

static bool row_ok(const czk__demo_row *r) {
  return r->code == 0 && r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED && r->parts > 0 &&
         r->verified == r->parts;
}

/* The results table: one line per job (columns as wide as their widest value: job ids of any length stay aligned),
 * then one closing line per kind (jobs, partitions, verified partitions, latency). Returns the jobs that did not
 * complete with every partition verified. */
static int print_table(czk__demo_row *const *rows, size_t n) {
  int wid = 3, wkind = 4;
  for (size_t i = 0; i < n; i++) {
    int a = (int)strlen(rows[i]->job_id[0] ? rows[i]->job_id : "-"), b = (int)strlen(rows[i]->kind);
    wid = a > wid ? a : wid;
    wkind = b > wkind ? b : wkind;
  }
  int bad = 0;
  printf("\n%-*s  %-*s  %-8s  %5s  %-10s  %9s  %-8s  %s\n", wid, "JOB", wkind, "KIND", "PRIORITY", "PARTS", "STATUS",
         "LATENCY", "VERIFIED", "NOTE");
  for (size_t i = 0; i < n; i++) {
    const czk__demo_row *r = rows[i];
    char ver[24];
    snprintf(ver, sizeof ver, "%u/%u", r->verified, r->parts);
    bool ok = row_ok(r);
    bad += !ok;
    printf("%-*s  %-*s  %-8s  %5u  %-10s  %7.2f s  %-8s  %s\n", wid, r->job_id[0] ? r->job_id : "-", wkind, r->kind,
           czk__client_priority_name(r->priority), r->parts,
           r->code ? "RPC-ERROR" : czk__client_await_status_name(r->status), r->wall_s, ver,
           ok ? "" : r->err[0] ? r->err : "not every partition verified");
  }
  printf("\n");
  for (size_t i = 0; i < n; i++) { /* one line per kind, in order of first appearance */
    bool seen = false;
    for (size_t k = 0; k < i && !seen; k++) seen = strcmp(rows[k]->kind, rows[i]->kind) == 0;
    if (seen) continue;
    unsigned jobs = 0, parts = 0, ver = 0, good = 0;
    double lo = 1e30, hi = 0;
    for (size_t k = i; k < n; k++) {
      const czk__demo_row *r = rows[k];
      if (strcmp(r->kind, rows[i]->kind) != 0) continue;
      jobs++, parts += r->parts, ver += r->verified, good += row_ok(r);
      lo = r->wall_s < lo ? r->wall_s : lo;
      hi = r->wall_s > hi ? r->wall_s : hi;
    }
    char lat[48];
    if (jobs > 1) snprintf(lat, sizeof lat, "%.2f-%.2f s", lo, hi);
    else snprintf(lat, sizeof lat, "%.2f s", lo);
    printf("%-*s  %u job%s, %u partition%s, %u/%u verified, latency %s: %s\n", wkind, rows[i]->kind, jobs,
           jobs == 1 ? "" : "s", parts, parts == 1 ? "" : "s", ver, parts, lat,
           good == jobs ? "OK" : "FAILED");
  }
  return bad;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

int czk_cmd_demo(int argc, char **argv) {
  unsigned small_k = 10, big_k = 14;
  const char *html = "czk-timeline.html", *circom_zkey = NULL, *circom_wtns = NULL, *fc_size = "2KiB";
  char keys[4096] = "";
  bool fc_on[CZK__DEMO_FC_KINDS] = {true, true, true, true};
  static const struct option lo[] = {
      {"small", 1, 0, 's'},      {"big", 1, 0, 'b'},         {"keys-dir", 1, 0, 'k'}, {"html", 1, 0, 'o'},
      {"circom", 1, 0, 'c'},     {"no-filecoin", 0, 0, 'N'}, {"filecoin", 1, 0, 'F'}, {"sector-size", 1, 0, 'S'},
      {"help", 0, 0, 'h'},       {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 's': small_k = (unsigned)atoi(optarg); break;
    case 'b': big_k = (unsigned)atoi(optarg); break;
    case 'k': snprintf(keys, sizeof keys, "%s", optarg); break;
    case 'o': html = optarg; break;
    case 'c':
      circom_zkey = optarg;
      if (optind >= argc) {
        fprintf(stderr, "czk demo: --circom needs ZKEY and WTNS\n");
        return 2;
      }
      circom_wtns = argv[optind++];
      break;
    case 'N':
      for (int f = 0; f < CZK__DEMO_FC_KINDS; f++) fc_on[f] = false;
      break;
    case 'F': {
      for (int f = 0; f < CZK__DEMO_FC_KINDS; f++) fc_on[f] = false;
      char list[256];
      snprintf(list, sizeof list, "%s", optarg);
      char *save = NULL;
      for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int f = 0;
        while (f < CZK__DEMO_FC_KINDS && strcmp(t, czk__demo_fc_names[f]) != 0) f++;
        if (f == CZK__DEMO_FC_KINDS) {
          fprintf(stderr, "czk demo: --filecoin takes winning-post, window-post, porep, snap (comma list)\n");
          return 2;
        }
        fc_on[f] = true;
      }
      break;
    }
    case 'S': fc_size = optarg; break;
    case 'h':
      printf("usage: czk demo [--small K] [--big K] [--keys-dir DIR] [--html FILE] [--circom ZKEY WTNS]\n"
             "                [--sector-size 2KiB|8MiB] [--filecoin LIST] [--no-filecoin]\n"
             "Starts a daemon and proves a mixed workload through its gRPC API, all jobs at once: the Filecoin kinds\n"
             "(one WinningPoSt, critical; one WindowPoSt partition, high; one PoRep C2 with all its partitions and one\n"
             "SnapDeals update, normal: requests as `czk gen-vanilla` writes them, the bytes Curio sends), synthetic\n"
             "circuits of 2^small and 2^big constraints at mixed priorities, and a circom job with --circom. Every\n"
             "proof is verified again here (Filecoin: as `czk verify --request` does); prints the results table, the\n"
             "devices' busy %% and writes the timeline.\n"
             "  --keys-dir DIR      keys (default ~/.cache/czk-demo-keys): the Filecoin keys are set up there on the\n"
             "                      first run under their v28 names, and reused\n"
             "  --sector-size S     the Filecoin sector size: 2KiB (default) or 8MiB (dense sectors)\n"
             "  --filecoin LIST     some of winning-post,window-post,porep,snap (default: all four)\n"
             "  --no-filecoin       no Filecoin jobs\n");
      return 0;
    default: return 2;
    }
  }
  if (small_k < CZK_SYNTHETIC_MIN_LOG || big_k > 24 || small_k > big_k) {
    fprintf(stderr, "czk demo: sizes must satisfy %u <= small <= big <= 24\n", CZK_SYNTHETIC_MIN_LOG);
    return 2;
  }
  uint64_t sector_size = 0;
  if (!czk__parse_size(fc_size, &sector_size) || (sector_size != 2048 && sector_size != (8ull << 20))) {
    fprintf(stderr, "czk demo: --sector-size takes 2KiB or 8MiB (the sizes whose sectors are built densely here)\n");
    return 2;
  }
  size_t nfc = 0;
  for (int f = 0; f < CZK__DEMO_FC_KINDS; f++) nfc += fc_on[f];
  double t_start = czk__now_s();
  char dir[] = "/tmp/czk-demo-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("czk demo: mkdtemp");
    return 1;
  }
  if (!keys[0]) {
    const char *home = getenv("HOME");
    snprintf(keys, sizeof keys, "%s/.cache/czk-demo-keys", home && *home ? home : dir);
  }
  char sock[4200], addr[4300];
  snprintf(sock, sizeof sock, "%s/czk.sock", dir);
  snprintf(addr, sizeof addr, "unix:%s", sock);
  g_addr = addr;
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", keys);
  if (system(cmd) != 0) {
    fprintf(stderr, "czk demo: cannot create %s\n", keys);
    return 1;
  }
  if (circom_zkey) { /* the daemon serves every <name>.zkey of its keys directory */
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/demo-circom.zkey'", circom_zkey, keys);
    if (system(cmd) != 0) {
      fprintf(stderr, "czk demo: cannot install %s into %s\n", circom_zkey, keys);
      return 1;
    }
  }
  int rc = 1;
  pid_t pid = -1;
  FILE *dout = NULL;
  czk__demo_fc fc[CZK__DEMO_FC_KINDS];
  size_t nf = 0;
  double setup_s = 0;
  if (nfc) {
    /* Filecoin keys: a real setup the first time, under their v28 names, reused after that */
    if (czk__demo_fc_keys(keys, sector_size, fc_on, &setup_s) != 0) goto done;
    if (setup_s > 0) printf("czk demo: the Filecoin key setups took %.1f s (kept in %s for the next runs)\n", setup_s, keys);
    else printf("czk demo: Filecoin keys (%s) found in %s: reused\n", fc_size, keys);
    uint64_t seed = (uint64_t)time(NULL);
    for (int f = 0; f < CZK__DEMO_FC_KINDS; f++) {
      if (!fc_on[f]) continue;
      if (czk__demo_fc_generate(&fc[nf], f, sector_size, seed, dir, addr) != 0) {
        fprintf(stderr, "czk demo: cannot generate the %s request\n", czk__demo_fc_names[f]);
        goto done;
      }
      nf++;
    }
    printf("czk demo: %zu Filecoin requests written as `czk gen-vanilla --sector-size %s --seed %llu` writes them "
           "(sealed / updated sectors of random data)\n", nf, fc_size, (unsigned long long)seed);
  }
  printf("czk demo: starting the daemon (keys in %s) ...\n", keys);
  fflush(stdout);
  pid = start_daemon(sock, keys, &dout);
  if (pid < 0 || !dout) {
    fprintf(stderr, "czk demo: cannot start the daemon\n");
    goto done;
  }
  char line[4400];
  bool ready = false;
  while (fgets(line, sizeof line, dout))
    if (strstr(line, "ready on")) {
      ready = true;
      break;
    }
  if (!ready) {
    fprintf(stderr, "czk demo: the daemon did not start\n");
    goto done;
  }
  printf("czk demo: %s", line);

  /* the synthetic workload: big low/normal jobs and small high/critical ones */
  demo_job jobs[] = {
      {.k = big_k, .parts = 2, .seed = 100, .row.priority = 1},   {.k = big_k, .parts = 2, .seed = 200, .row.priority = 2},
      {.k = small_k, .parts = 1, .seed = 300, .row.priority = 4}, {.k = small_k, .parts = 3, .seed = 400, .row.priority = 3},
      {.k = big_k, .parts = 1, .seed = 500, .row.priority = 2},   {.k = small_k, .parts = 2, .seed = 600, .row.priority = 4},
  };
  const size_t nj = sizeof jobs / sizeof jobs[0];
  for (size_t i = 0; i < nj; i++) {
    snprintf(jobs[i].row.kind, sizeof jobs[i].row.kind, "synthetic-k%u", jobs[i].k);
    jobs[i].row.parts = jobs[i].parts;
  }
  /* every key loaded before the jobs go in, so that the latencies measure proving (synthetic keys are set up by the
   * daemon on first use); the loads run at once */
  preload pl[2 + CZK__DEMO_FC_KINDS];
  size_t np = 0;
  snprintf(pl[np++].id, sizeof pl[0].id, "synthetic-k%u", small_k);
  if (big_k != small_k) snprintf(pl[np++].id, sizeof pl[0].id, "synthetic-k%u", big_k);
  for (size_t i = 0; i < nf; i++) snprintf(pl[np++].id, sizeof pl[0].id, "%s", fc[i].circuit);
  printf("czk demo: loading %zu keys (", np);
  for (size_t i = 0; i < np; i++) printf("%s%s", i ? ", " : "", pl[i].id);
  printf(") ...");
  fflush(stdout);
  double tl = czk__now_s();
  pthread_t pth[2 + CZK__DEMO_FC_KINDS];
  for (size_t i = 0; i < np; i++) pthread_create(&pth[i], NULL, run_preload, &pl[i]);
  for (size_t i = 0; i < np; i++) pthread_join(pth[i], NULL);
  printf(" %.1f s\n", czk__now_s() - tl);
  for (size_t i = 0; i < np; i++)
    if (pl[i].code) fprintf(stderr, "czk demo: PreloadSRS %s: %s\n", pl[i].id, pl[i].err);

  printf("czk demo: submitting %zu jobs at once through cuzk.v1.ProvingEngine/Prove ...\n",
         nj + nf + (circom_zkey ? 1 : 0));
  fflush(stdout);
  double t0 = czk__now_s();
  pthread_t th[sizeof jobs / sizeof jobs[0]], fth[CZK__DEMO_FC_KINDS];
  for (size_t i = 0; i < nf; i++) pthread_create(&fth[i], NULL, czk__demo_fc_prove, &fc[i]);
  for (size_t i = 0; i < nj; i++) pthread_create(&th[i], NULL, run_job, &jobs[i]);
  czk__demo_row crow;
  memset(&crow, 0, sizeof crow);
  if (circom_zkey) run_circom(circom_zkey, circom_wtns, &crow);
  for (size_t i = 0; i < nf; i++) pthread_join(fth[i], NULL);
  for (size_t i = 0; i < nj; i++) pthread_join(th[i], NULL);
  double wall = czk__now_s() - t0;

  /* every proof checked again here, independently of the daemon's self-check */
  czk__demo_row *rows[sizeof jobs / sizeof jobs[0] + CZK__DEMO_FC_KINDS + 1];
  size_t nr = 0;
  unsigned total_parts = 0;
  for (size_t i = 0; i < nf; i++) {
    czk__demo_fc_verify(&fc[i], keys);
    rows[nr++] = &fc[i].row;
  }
  for (size_t i = 0; i < nj; i++) {
    verify_job(&jobs[i], keys);
    free(jobs[i].proof);
    rows[nr++] = &jobs[i].row;
  }
  if (circom_zkey) rows[nr++] = &crow;
  for (size_t i = 0; i < nr; i++) total_parts += rows[i]->parts;
  int bad = print_table(rows, nr);
  printf("\n%u partition proofs in %.2f s (%.2f proofs/s), every one verified again here%s\n", total_parts, wall,
         total_parts / wall, nf ? " (Filecoin: as `czk verify --request` does, public inputs from the request)" : "");

  Cuzk__V1__GetMetricsRequest mr = CUZK__V1__GET_METRICS_REQUEST__INIT;
  ProtobufCMessage *mo;
  if (czk__client_call(addr, "/cuzk.v1.ProvingEngine/GetMetrics", &mr.base, &cuzk__v1__get_metrics_response__descriptor,
                       &mo, 60000, false, NULL, 0) == 0) {
    const char *text = ((Cuzk__V1__GetMetricsResponse *)mo)->prometheus_text;
    printf("\n%-6s %-12s %-12s %-8s\n", "DEVICE", "WALL (s)", "BUSY (s)", "BUSY %");
    for (int d = 0; d < 64; d++) {
      char dev[8];
      snprintf(dev, sizeof dev, "%d", d);
      double w = metric(text, "czk_device_wall_seconds_total", dev);
      if (w <= 0) break;
      double b = metric(text, "czk_device_busy_seconds_total", dev);
      printf("%-6d %-12.3f %-12.3f %-8.1f\n", d, w, b, 100.0 * b / w);
    }
    protobuf_c_message_free_unpacked(mo, NULL);
  }
  Cuzk__V1__GetTraceRequest tr = CUZK__V1__GET_TRACE_REQUEST__INIT;
  ProtobufCMessage *to;
  if (czk__client_call(addr, "/cuzk.v1.Admin/GetTrace", &tr.base, &cuzk__v1__get_trace_response__descriptor, &to, 60000,
                       false, NULL, 0) == 0) {
    if (czk__trace_write_html(html, ((Cuzk__V1__GetTraceResponse *)to)->chrome_trace_json) == 0)
      printf("\ntimeline written to %s\n", html);
    protobuf_c_message_free_unpacked(to, NULL);
  }
  rc = bad ? 1 : 0;
  if (bad) printf("%d job(s) did not complete with verifying proofs\n", bad);
done:
  if (pid > 0) {
    kill(pid, SIGTERM);
    int wst = 0;
    waitpid(pid, &wst, 0);
    bool clean = WIFEXITED(wst) && WEXITSTATUS(wst) == 0;
    printf("daemon stopped (%s)\n", clean ? "clean exit" : "ERROR");
    if (!clean) rc = 1;
  }
  if (dout) fclose(dout);
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); /* the socket, the requests and their proofs */
  printf("czk demo: %s in %.1f s%s\n", rc ? "FAILED" : "done", czk__now_s() - t_start,
         setup_s > 0 ? " (key setups included)" : "");
  return rc;
}
