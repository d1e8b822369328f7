/* cmd_demo.c: `czk demo`: the main job for a newcomer. Starts `czk daemon` on its embedded default configuration (a
 * private socket and keys directory), submits a demo workload through the gRPC API (synthetic jobs of mixed sizes and
 * priorities, concurrently; plus a circom job when a snarkjs key is available), verifies every returned proof here
 * against the verifying key, prints a table with verification status, the devices' busy % from the daemon's metrics,
 * writes the timeline HTML (czk trace), and stops the daemon with SIGTERM. With --circom ZKEY WTNS (scripts/run.sh
 * passes the oracle's `mix` circuit when Node is present) the key is installed in the keys directory as demo-circom
 * and a circom job proves the witness through the same API (on the GPU when there is one); its proof is verified
 * against the zkey's vk and written as czk-circom-proof.json / czk-circom-public.json (snarkjs form). */
#include <errno.h>
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
#include "api/client.h"
#include "core/clock.h"
#include "core/mapfile.h"
#include "czk/snarkjs.h"
#include "czk/groth16.h"

int czk__trace_write_html(const char *path, const char *json);

typedef struct demo_job {
  unsigned k, parts;
  uint64_t seed;
  int priority;
  /* results */
  int code;
  int status;
  char job_id[24];
  size_t proof_len;
  uint8_t *proof;
  uint64_t total_ms;
  double wall_s;
  int verified; /* partitions that verified here */
  char err[160];
} demo_job;

static const char *g_addr;

static void *run_job(void *arg) {
  demo_job *j = arg;
  char spec[64];
  snprintf(spec, sizeof spec, "partitions=%u seed=%llu", j->parts, (unsigned long long)j->seed);
  Cuzk__V1__SubmitProofRequest r = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  r.proof_kind = CUZK__V1__PROOF_KIND__CZK_SYNTHETIC;
  r.sector_size = 1ull << j->k;
  r.priority = (Cuzk__V1__Priority)j->priority;
  r.vanilla_proof.data = (uint8_t *)spec;
  r.vanilla_proof.len = strlen(spec);
  Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
  pr.submit = &r;
  ProtobufCMessage *out;
  double t0 = czk__now_s();
  j->code = czk__client_call(g_addr, "/cuzk.v1.ProvingEngine/Prove", &pr.base, &cuzk__v1__prove_response__descriptor,
                             &out, 0, true, j->err, sizeof j->err);
  j->wall_s = czk__now_s() - t0;
  if (j->code) return NULL;
  Cuzk__V1__AwaitProofResponse *a = ((Cuzk__V1__ProveResponse *)out)->result;
  if (a) {
    j->status = a->status;
    snprintf(j->job_id, sizeof j->job_id, "%s", a->job_id);
    j->total_ms = a->total_ms;
    if (a->error_message) snprintf(j->err, sizeof j->err, "%s", a->error_message);
    j->proof_len = a->proof.len;
    j->proof = malloc(a->proof.len ? a->proof.len : 1);
    if (j->proof) memcpy(j->proof, a->proof.data, a->proof.len);
  }
  protobuf_c_message_free_unpacked(out, NULL);
  return NULL;
}

/* The circom job: Prove with CZK_CIRCOM, then verify the 192-byte proof against the zkey's vk and the witness's
 * public signals. Returns 0 when it completed and verified. */
static int run_circom(const char *zkey, const char *wtns, char *job_id, size_t idlen, double *wall, char *err,
                      size_t errlen) {
  uint8_t *w = NULL;
  size_t wlen = 0;
  if (czk__read_file(wtns, 256u << 20, &w, &wlen) != CZK_OK) {
    snprintf(err, errlen, "cannot read %s", wtns);
    return 1;
  }
  Cuzk__V1__SubmitProofRequest r = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  ProtobufCBinaryData circ = {strlen("demo-circom"), (uint8_t *)"demo-circom"};
  r.proof_kind = CUZK__V1__PROOF_KIND__CZK_CIRCOM;
  r.priority = CUZK__V1__PRIORITY__HIGH;
  r.vanilla_proof.data = w;
  r.vanilla_proof.len = wlen;
  r.n_vanilla_proofs = 1;
  r.vanilla_proofs = &circ;
  Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
  pr.submit = &r;
  ProtobufCMessage *out;
  double t0 = czk__now_s();
  int code = czk__client_call(g_addr, "/cuzk.v1.ProvingEngine/Prove", &pr.base, &cuzk__v1__prove_response__descriptor,
                              &out, 0, true, err, errlen);
  *wall = czk__now_s() - t0;
  free(w);
  if (code) return 1;
  Cuzk__V1__AwaitProofResponse *a = ((Cuzk__V1__ProveResponse *)out)->result;
  int rc = 1;
  if (a && a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED && a->proof.len == CZK_GROTH16_PROOF_BYTES) {
    snprintf(job_id, idlen, "%s", a->job_id);
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
          rc = 0;
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
  } else if (a) {
    snprintf(job_id, idlen, "%s", a->job_id);
    snprintf(err, errlen, "%s", a->error_message ? a->error_message : "failed");
  }
  protobuf_c_message_free_unpacked(out, NULL);
  return rc;
}

/* Verify every partition proof of a synthetic job here, independently of the daemon's self-check. */
static void verify_job(demo_job *j, const char *keys_dir) {
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
      j->verified++;
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
    execl("/proc/self/exe", "czk", "daemon", "--listen", listen, "--keys-dir", keys, "--log-level", "warn",
          (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  *out = fdopen(fds[0], "r");
  return pid;
}

int czk_cmd_demo(int argc, char **argv) {
  unsigned small_k = 10, big_k = 14;
  const char *html = "czk-timeline.html", *circom_zkey = NULL, *circom_wtns = NULL;
  char keys[4096] = "";
  static const struct option lo[] = {{"small", 1, 0, 's'}, {"big", 1, 0, 'b'},   {"keys-dir", 1, 0, 'k'},
                                     {"html", 1, 0, 'o'},  {"circom", 1, 0, 'c'}, {"help", 0, 0, 'h'},
                                     {0, 0, 0, 0}};
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
    case 'h':
      printf("usage: czk demo [--small K] [--big K] [--keys-dir DIR] [--html FILE] [--circom ZKEY WTNS]\n"
             "Starts a daemon, proves a mixed workload through its gRPC API (synthetic circuits of 2^small and 2^big\n"
             "constraints, mixed priorities), verifies every proof, prints device busy %% and writes the timeline.\n");
      return 0;
    default: return 2;
    }
  }
  if (small_k < CZK_SYNTHETIC_MIN_LOG || big_k > 24 || small_k > big_k) {
    fprintf(stderr, "czk demo: sizes must satisfy %u <= small <= big <= 24\n", CZK_SYNTHETIC_MIN_LOG);
    return 2;
  }
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
  if (circom_zkey) { /* the daemon serves every <name>.zkey of its keys directory */
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s/demo-circom.zkey'", keys, circom_zkey, keys);
    if (system(cmd) != 0) {
      fprintf(stderr, "czk demo: cannot install %s into %s\n", circom_zkey, keys);
      return 1;
    }
  }
  FILE *dout = NULL;
  printf("czk demo: starting the daemon (keys in %s) ...\n", keys);
  fflush(stdout);
  pid_t pid = start_daemon(sock, keys, &dout);
  if (pid < 0 || !dout) {
    fprintf(stderr, "czk demo: cannot start the daemon\n");
    return 1;
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
    waitpid(pid, NULL, 0);
    return 1;
  }
  printf("czk demo: %s", line);

  /* the workload: big low/normal jobs and small high/critical ones, all at once */
  demo_job jobs[] = {
      {big_k, 2, 100, 1, 0, 0, "", 0, NULL, 0, 0, 0, ""},   {big_k, 2, 200, 2, 0, 0, "", 0, NULL, 0, 0, 0, ""},
      {small_k, 1, 300, 4, 0, 0, "", 0, NULL, 0, 0, 0, ""}, {small_k, 3, 400, 3, 0, 0, "", 0, NULL, 0, 0, 0, ""},
      {big_k, 1, 500, 2, 0, 0, "", 0, NULL, 0, 0, 0, ""},   {small_k, 2, 600, 4, 0, 0, "", 0, NULL, 0, 0, 0, ""},
  };
  const size_t nj = sizeof jobs / sizeof jobs[0];
  /* keys are generated by a real setup on first use; preload them so the table measures proving */
  for (unsigned k = small_k; k <= big_k; k += big_k - small_k ? big_k - small_k : 1) {
    char kid[32];
    snprintf(kid, sizeof kid, "synthetic-k%u", k);
    Cuzk__V1__PreloadSrsRequest r = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    r.circuit_id = kid;
    ProtobufCMessage *o;
    printf("czk demo: preloading %s (a real setup runs the first time) ...\n", kid);
    fflush(stdout);
    if (czk__client_call(addr, "/cuzk.v1.ProvingEngine/PreloadSRS", &r.base, &cuzk__v1__preload_srs_response__descriptor,
                         &o, 0, false, NULL, 0) == 0)
      protobuf_c_message_free_unpacked(o, NULL);
    if (big_k == small_k) break;
  }
  printf("czk demo: submitting %zu jobs through cuzk.v1.ProvingEngine/Prove ...\n", nj);
  fflush(stdout);
  double t0 = czk__now_s();
  pthread_t th[sizeof jobs / sizeof jobs[0]];
  for (size_t i = 0; i < nj; i++) pthread_create(&th[i], NULL, run_job, &jobs[i]);
  char cjob[24] = "-", cerr[200] = "";
  double cwall = 0;
  int crc = circom_zkey ? run_circom(circom_zkey, circom_wtns, cjob, sizeof cjob, &cwall, cerr, sizeof cerr) : 0;
  for (size_t i = 0; i < nj; i++) pthread_join(th[i], NULL);
  double wall = czk__now_s() - t0;

  int bad = 0;
  unsigned total_parts = 0;
  printf("\n%-6s %-14s %-9s %-6s %-10s %-10s %-9s %s\n", "JOB", "CIRCUIT", "PRIORITY", "PARTS", "STATUS", "LATENCY", "VERIFIED",
         "NOTE");
  for (size_t i = 0; i < nj; i++) {
    demo_job *j = &jobs[i];
    if (j->code == 0 && j->status == 1) verify_job(j, keys);
    char circ[32];
    snprintf(circ, sizeof circ, "synthetic-k%u", j->k);
    bool ok = j->code == 0 && j->status == 1 && (unsigned)j->verified == j->parts;
    if (!ok) bad++;
    total_parts += j->parts;
    printf("%-6s %-14s %-9s %-6u %-10s %-10.3f %u/%-7u %s\n", j->job_id[0] ? j->job_id : "-", circ,
           czk__client_priority_name(j->priority), j->parts,
           j->code ? "RPC-ERROR" : czk__client_await_status_name(j->status), j->wall_s, j->verified, j->parts,
           j->err);
    free(j->proof);
  }
  if (circom_zkey) {
    printf("%-6s %-14s %-9s %-6u %-10s %-10.3f %u/%-7u %s\n", cjob, "circom (mix)", "high", 1u,
           crc ? "FAILED" : "COMPLETED", cwall, crc ? 0u : 1u, 1u, cerr);
    if (crc) bad++;
    total_parts++;
  }
  printf("\n%u partition proofs in %.2f s (%.2f proofs/s)\n", total_parts, wall, total_parts / wall);

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
  kill(pid, SIGTERM);
  int wst = 0;
  waitpid(pid, &wst, 0);
  fclose(dout);
  unlink(sock);
  rmdir(dir);
  printf("daemon stopped (%s)\n", WIFEXITED(wst) && WEXITSTATUS(wst) == 0 ? "clean exit" : "ERROR");
  if (bad) printf("%d job(s) did not complete with verifying proofs\n", bad);
  return bad || !(WIFEXITED(wst) && WEXITSTATUS(wst) == 0) ? 1 : 0;
}
