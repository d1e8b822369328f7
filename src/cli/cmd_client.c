/* cmd_client.c: client subcommands speaking gRPC to a running daemon: submit, await, cancel, status, metrics,
 * preload, evict, and the remote form of prove (czk prove --kind ...). await and cancel name a job by its job id or
 * by its request id (sent as "request:RID" in job_id, which the daemon resolves). prove and await wait in AwaitProof
 * slices of one second and print one line on stderr when the daemon loads (or generates) the job's key; status
 * shows key tiers in the engine's words (device, pinned, mapped, disk) and hides idle kinds and absent keys unless
 * --all. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/config.h"
#include "api/rpc.h"
#include "cli/cli.h"
#include "api/client.h"
#include "core/clock.h"
#include "core/mapfile.h"
#include "filecoin/request.h"

/* `czk await` exit codes (its --help lists them; scripts tell a timeout from a failure) */
enum {
  CZK_AWAIT_EXIT_FAILED = 1,
  CZK_AWAIT_EXIT_USAGE = 2,
  CZK_AWAIT_EXIT_CANCELLED = 3,
  CZK_AWAIT_EXIT_TIMEOUT = 4,
  CZK_AWAIT_EXIT_NOT_FOUND = 5,
  CZK_AWAIT_EXIT_RPC = 6,
};

static const char *k_kinds[] = {"porep-c2", "snap-update", "window-post", "winning-post", "synthetic", "circom"};
static const int k_kind_vals[] = {1, 2, 3, 4, 100, 101};

typedef struct submit_opts {
  const char *addr;
  int kind;
  int priority;
  const char *request_id;
  const char *input;
  const char *circuit;
  const char *spec;
  const char *request; /* request.json (Filecoin kinds; gives the kind and every field) */
  uint64_t sector_size;
  uint64_t timeout_ms;
  const char *out;
  bool json;
} submit_opts;

static void submit_usage(FILE *o, const char *cmd) {
  fprintf(o,
          "usage: czk %s --kind KIND [options]\n"
          "  --addr ADDR          daemon address (default: the daemon's default socket; env CZK_ADDR)\n"
          "  --kind KIND          porep-c2, snap-update, window-post, winning-post, synthetic, circom\n"
          "  --priority P         low, normal (default), high, critical\n"
          "  --request-id ID      idempotency key (a retry with the same id attaches to the running job)\n"
          "  --log2 K             synthetic: circuit of 2^K constraints (sets sector_size = 2^K)\n"
          "  --spec TEXT          synthetic: job spec, e.g. \"partitions=2 seed=7\"\n"
          "  --circuit NAME       circom: the circuit (NAME.zkey in the daemon's keys_dir)\n"
          "  --input FILE         the job input (circom: witness.wtns; Filecoin kinds: vanilla proof)\n"
          "  --request FILE       a Filecoin request.json (czk gen-vanilla writes one): kind, registered proof,\n"
          "                       randomness, miner, partition and the vanilla proof files\n"
          "%s",
          cmd,
          strcmp(cmd, "submit") == 0 ? ""
                                     : "  --timeout-ms N       give up waiting after N ms (0 = wait)\n"
                                       "  --out FILE           write the proof bytes here\n");
}

static int parse_submit(int argc, char **argv, submit_opts *o, const char *cmd) {
  memset(o, 0, sizeof *o);
  o->addr = czk__client_default_addr();
  o->kind = -1;
  o->priority = 2;
  static const struct option lo[] = {{"addr", 1, 0, 'a'},   {"kind", 1, 0, 'k'},       {"priority", 1, 0, 'p'},
                                     {"request-id", 1, 0, 'r'}, {"input", 1, 0, 'i'},  {"circuit", 1, 0, 'c'},
                                     {"spec", 1, 0, 's'},   {"log2", 1, 0, 'l'},       {"timeout-ms", 1, 0, 't'},
                                     {"out", 1, 0, 'o'},    {"json", 0, 0, 'j'},       {"help", 0, 0, 'h'},
                                     {"request", 1, 0, 'q'},
                                     {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 'a': o->addr = optarg; break;
    case 'k':
      for (size_t i = 0; i < sizeof k_kinds / sizeof k_kinds[0]; i++)
        if (strcmp(optarg, k_kinds[i]) == 0) o->kind = k_kind_vals[i];
      if (o->kind < 0) {
        fprintf(stderr, "czk %s: unknown kind '%s'\n", cmd, optarg);
        return 2;
      }
      break;
    case 'p':
      o->priority = czk__client_parse_priority(optarg);
      if (o->priority < 0) {
        fprintf(stderr, "czk %s: unknown priority '%s'\n", cmd, optarg);
        return 2;
      }
      break;
    case 'r': o->request_id = optarg; break;
    case 'i': o->input = optarg; break;
    case 'q': o->request = optarg; break;
    case 'c': o->circuit = optarg; break;
    case 's': o->spec = optarg; break;
    case 'l': {
      int k = atoi(optarg);
      if (k < 1 || k > 40) {
        fprintf(stderr, "czk %s: --log2 must be 1..40\n", cmd);
        return 2;
      }
      o->sector_size = 1ull << k;
      break;
    }
    case 't': o->timeout_ms = strtoull(optarg, NULL, 10); break;
    case 'o': o->out = optarg; break;
    case 'j': o->json = true; break;
    case 'h': submit_usage(stdout, cmd); return -1;
    default: submit_usage(stderr, cmd); return 2;
    }
  }
  if (o->kind < 0 && !o->request) {
    fprintf(stderr, "czk %s: --kind (or --request) is required\n", cmd);
    submit_usage(stderr, cmd);
    return 2;
  }
  if (optind < argc) {
    fprintf(stderr, "czk %s: unexpected argument '%s'\n", cmd, argv[optind]);
    return 2;
  }
  return 0;
}

/* What a SubmitProofRequest built by build_submit points into (freed by store_free). */
typedef struct submit_store {
  uint8_t *input;
  ProtobufCBinaryData circ;
  czk__fc_request req;
  ProtobufCBinaryData *vps;
} submit_store;

static void store_free(submit_store *st) {
  free(st->input);
  free(st->vps);
  czk__fc_request_free(&st->req);
  memset(st, 0, sizeof *st);
}

/* A Filecoin request.json -> the fields Curio fills (proof kind, registered proof, sector size, miner, randomness,
 * partition, vanilla_proofs; SnapDeals: comm_r_old, comm_d_new, comm_r_new). */
static int build_from_request(const submit_opts *o, Cuzk__V1__SubmitProofRequest *r, submit_store *st) {
  char err[512];
  if (czk__fc_request_load(o->request, &st->req, err, sizeof err) != 0) {
    fprintf(stderr, "czk: %s\n", err);
    return 1;
  }
  return czk__submit_from_fc_request(r, &st->req, &st->vps);
}

int czk__submit_from_fc_request(Cuzk__V1__SubmitProofRequest *r, czk__fc_request *q, ProtobufCBinaryData **vps) {
  r->proof_kind = (Cuzk__V1__ProofKind)q->proof_kind;
  r->registered_proof = q->registered_proof;
  r->sector_size = q->sector_size;
  r->miner_id = q->miner_id;
  r->partition_index = q->partition_index;
  r->sector_number = q->sector_number;
  if (q->proof_kind == 3 || q->proof_kind == 4) {
    r->randomness.data = q->randomness;
    r->randomness.len = 32;
  }
  if (q->has_comms) { /* SnapDeals */
    r->comm_r_old = (ProtobufCBinaryData){32, q->comm_r_old};
    r->comm_d_new = (ProtobufCBinaryData){32, q->comm_d_new};
    r->comm_r_new = (ProtobufCBinaryData){32, q->comm_r_new};
  }
  if (q->vanilla_one) {
    r->vanilla_proof.data = q->vanilla_one;
    r->vanilla_proof.len = q->vanilla_one_len;
  }
  *vps = calloc(q->n_vanilla + 1, sizeof **vps);
  if (!*vps) return 1;
  for (size_t i = 0; i < q->n_vanilla; i++) (*vps)[i] = (ProtobufCBinaryData){q->vanilla_len[i], q->vanilla[i]};
  r->n_vanilla_proofs = q->n_vanilla;
  r->vanilla_proofs = *vps;
  return 0;
}

/* Fill a SubmitProofRequest pointing into *st (free with store_free). */
static int build_submit(const submit_opts *o, Cuzk__V1__SubmitProofRequest *r, submit_store *st) {
  memset(st, 0, sizeof *st);
  cuzk__v1__submit_proof_request__init(r);
  r->proof_kind = (Cuzk__V1__ProofKind)o->kind;
  r->priority = (Cuzk__V1__Priority)o->priority;
  r->request_id = (char *)(o->request_id ? o->request_id : "");
  r->sector_size = o->sector_size;
  if (o->request) return build_from_request(o, r, st);
  if (o->input) {
    size_t len;
    czk_status s = czk__read_file(o->input, CZK__CLIENT_MAX_MSG, &st->input, &len);
    if (s != CZK_OK) {
      fprintf(stderr, "czk: cannot read %s: %s\n", o->input, czk_status_str(s));
      return 1;
    }
    r->vanilla_proof.data = st->input;
    r->vanilla_proof.len = len;
  } else if (o->spec) {
    r->vanilla_proof.data = (uint8_t *)o->spec;
    r->vanilla_proof.len = strlen(o->spec);
  }
  if (o->kind == 101) {
    if (!o->circuit) {
      fprintf(stderr, "czk: circom jobs need --circuit NAME\n");
      return 2;
    }
    st->circ.data = (uint8_t *)o->circuit;
    st->circ.len = strlen(o->circuit);
    r->n_vanilla_proofs = 1;
    r->vanilla_proofs = &st->circ;
  }
  return 0;
}

int czk_cmd_submit(int argc, char **argv) {
  submit_opts o;
  int rc = parse_submit(argc, argv, &o, "submit");
  if (rc) return rc < 0 ? 0 : rc;
  Cuzk__V1__SubmitProofRequest r;
  submit_store store;
  rc = build_submit(&o, &r, &store);
  if (rc) {
    store_free(&store);
    return rc;
  }
  ProtobufCMessage *out;
  int code = czk__client_call(o.addr, "/cuzk.v1.ProvingEngine/SubmitProof", &r.base,
                              &cuzk__v1__submit_proof_response__descriptor, &out, 60000, false, NULL, 0);
  store_free(&store);
  if (code) return 1;
  Cuzk__V1__SubmitProofResponse *s = (Cuzk__V1__SubmitProofResponse *)out;
  printf("%s\n", s->job_id);
  protobuf_c_message_free_unpacked(out, NULL);
  return 0;
}

static int print_result(const Cuzk__V1__AwaitProofResponse *a, const char *out_path, bool json) {
  if (json) {
    printf("{\"job_id\": \"%s\", \"status\": \"%s\", \"proof_bytes\": %zu, \"error\": \"%s\", \"queue_wait_ms\": %llu, "
           "\"srs_load_ms\": %llu, \"synthesis_ms\": %llu, \"gpu_compute_ms\": %llu, \"total_ms\": %llu}\n",
           a->job_id, czk__client_await_status_name(a->status), a->proof.len, a->error_message ? a->error_message : "",
           (unsigned long long)a->queue_wait_ms, (unsigned long long)a->srs_load_ms, (unsigned long long)a->synthesis_ms,
           (unsigned long long)a->gpu_compute_ms, (unsigned long long)a->total_ms);
  } else {
    printf("job %s: %s", a->job_id, czk__client_await_status_name(a->status));
    if (a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED)
      printf(", %zu proof bytes, total %llu ms (queue %llu, key load %llu, synthesis %llu, prove %llu)", a->proof.len,
             (unsigned long long)a->total_ms, (unsigned long long)a->queue_wait_ms, (unsigned long long)a->srs_load_ms,
             (unsigned long long)a->synthesis_ms, (unsigned long long)a->gpu_compute_ms);
    else if (a->error_message && *a->error_message)
      printf(": %s", a->error_message);
    printf("\n");
  }
  if (out_path && a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
    FILE *f = fopen(out_path, "wb");
    if (!f || fwrite(a->proof.data, 1, a->proof.len, f) != a->proof.len || fclose(f) != 0) {
      fprintf(stderr, "czk: cannot write %s\n", out_path);
      return 1;
    }
  }
  return a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED ? 0 : 1;
}

/* AwaitProof in slices of one second until the job ends or timeout_ms (0 = no limit) passes. While the job waits for
 * its key, one line on stderr per key ("waiting: daemon is loading key X (N MiB)"). Returns the gRPC code; *out: the
 * last response (status TIMEOUT when timeout_ms passed). */
static int await_progress(const char *addr, const char *job, uint64_t timeout_ms, ProtobufCMessage **out) {
  uint64_t t0 = czk__clock_now_ns() / CZK_NS_PER_MS;
  char said[128] = "";
  for (;;) {
    uint64_t slice = 1000, waited = czk__clock_now_ns() / CZK_NS_PER_MS - t0;
    if (timeout_ms) slice = timeout_ms > waited ? (timeout_ms - waited < 1000 ? timeout_ms - waited : 1000) : 1;
    Cuzk__V1__AwaitProofRequest r = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    r.job_id = (char *)job;
    r.timeout_ms = slice;
    int code = czk__client_call(addr, "/cuzk.v1.ProvingEngine/AwaitProof", &r.base,
                                &cuzk__v1__await_proof_response__descriptor, out, slice + 60000, false, NULL, 0);
    if (code) return code;
    Cuzk__V1__AwaitProofResponse *a = (Cuzk__V1__AwaitProofResponse *)*out;
    waited = czk__clock_now_ns() / CZK_NS_PER_MS - t0;
    if (a->status != CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT || (timeout_ms && waited >= timeout_ms))
      return 0;
    if (a->czk_key_id && *a->czk_key_id && strcmp(said, a->czk_key_id) != 0) {
      fprintf(stderr, "czk: job %s waiting: daemon is %s key %s (%.1f MiB)\n", a->job_id,
              a->czk_key_generating ? "generating" : "loading", a->czk_key_id,
              (double)a->czk_key_bytes / (1 << 20));
      snprintf(said, sizeof said, "%s", a->czk_key_id);
    }
    protobuf_c_message_free_unpacked(*out, NULL);
    *out = NULL;
  }
}

int czk__cmd_prove_remote(int argc, char **argv) {
  submit_opts o;
  int rc = parse_submit(argc, argv, &o, "prove");
  if (rc) return rc < 0 ? 0 : rc;
  Cuzk__V1__SubmitProofRequest r;
  submit_store store;
  rc = build_submit(&o, &r, &store);
  if (rc) {
    store_free(&store);
    return rc;
  }
  /* SubmitProof, then AwaitProof in slices (what Prove does in one call), to say when the job waits for its key */
  ProtobufCMessage *out;
  int code = czk__client_call(o.addr, "/cuzk.v1.ProvingEngine/SubmitProof", &r.base,
                              &cuzk__v1__submit_proof_response__descriptor, &out, 60000, false, NULL, 0);
  store_free(&store);
  if (code) return 1;
  char job[32];
  snprintf(job, sizeof job, "%s", ((Cuzk__V1__SubmitProofResponse *)out)->job_id);
  protobuf_c_message_free_unpacked(out, NULL);
  if (await_progress(o.addr, job, o.timeout_ms, &out)) return 1;
  rc = print_result((Cuzk__V1__AwaitProofResponse *)out, o.out, o.json);
  protobuf_c_message_free_unpacked(out, NULL);
  return rc;
}

/* Shared parsing for commands taking --addr and one positional argument. */
static int one_arg(int argc, char **argv, const char *usage, const char **addr, const char **arg, uint64_t *timeout,
                   const char **out, bool *json) {
  *addr = czk__client_default_addr();
  *arg = NULL;
  static const struct option lo[] = {{"addr", 1, 0, 'a'}, {"timeout-ms", 1, 0, 't'}, {"out", 1, 0, 'o'},
                                     {"json", 0, 0, 'j'}, {"help", 0, 0, 'h'},       {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 'a': *addr = optarg; break;
    case 't':
      if (!timeout) goto bad;
      *timeout = strtoull(optarg, NULL, 10);
      break;
    case 'o':
      if (!out) goto bad;
      *out = optarg;
      break;
    case 'j':
      if (!json) goto bad;
      *json = true;
      break;
    case 'h': printf("%s", usage); return -1;
    default: goto bad;
    }
  }
  if (strstr(usage, " JOB") || strstr(usage, " KEY")) {
    if (optind != argc - 1) goto bad;
    *arg = argv[optind];
  } else if (optind != argc) {
    goto bad;
  }
  return 0;
bad:
  fprintf(stderr, "%s", usage);
  return 2;
}

/* AwaitProof / CancelProof take a job id or a request id in job_id: "request:RID" names a request id explicitly */
static int job_arg(int argc, char **argv, const char *usage, const char **addr, char **job, uint64_t *timeout,
                   const char **out, bool *json) {
  *addr = czk__client_default_addr();
  *job = NULL;
  const char *rid = NULL;
  static const struct option lo[] = {{"addr", 1, 0, 'a'},       {"timeout-ms", 1, 0, 't'}, {"out", 1, 0, 'o'},
                                     {"json", 0, 0, 'j'},       {"request-id", 1, 0, 'r'}, {"help", 0, 0, 'h'},
                                     {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 'a': *addr = optarg; break;
    case 'r': rid = optarg; break;
    case 't': {
      char *end;
      if (!timeout || !isdigit((unsigned char)*optarg)) goto bad;
      *timeout = strtoull(optarg, &end, 10);
      if (*end) goto bad;
      break;
    }
    case 'o':
      if (!out) goto bad;
      *out = optarg;
      break;
    case 'j':
      if (!json) goto bad;
      *json = true;
      break;
    case 'h': printf("%s", usage); return -1;
    default: goto bad;
    }
  }
  if (rid ? optind != argc || !*rid : optind != argc - 1) goto bad;
  if (rid) {
    size_t n = strlen(rid) + 9;
    *job = malloc(n);
    if (!*job) return 1;
    snprintf(*job, n, "request:%s", rid);
  } else {
    *job = strdup(argv[optind]);
    if (!*job) return 1;
  }
  return 0;
bad:
  fprintf(stderr, "%s", usage);
  return CZK_AWAIT_EXIT_USAGE;
}

int czk_cmd_await(int argc, char **argv) {
  const char *addr, *out = NULL;
  char *job;
  uint64_t timeout = 0;
  bool json = false;
  int rc = job_arg(argc, argv,
                   "usage: czk await [--addr ADDR] [--timeout-ms N] [--out FILE] [--json] JOB\n"
                   "       czk await [options] --request-id RID\n"
                   "Waits for a job, named by its job id or by the request id it was submitted with (a request id\n"
                   "finds a job in flight or completed; JOB that is not all digits is taken as a request id too).\n"
                   "Exit status: 0 completed (proof written to --out), 1 failed, 2 usage, 3 cancelled,\n"
                   "             4 timeout (--timeout-ms passed; the job goes on), 5 no such job,\n"
                   "             6 daemon unreachable or other RPC error.\n",
                   &addr, &job, &timeout, &out, &json);
  if (rc) return rc < 0 ? 0 : rc;
  ProtobufCMessage *o = NULL;
  int code = await_progress(addr, job, timeout, &o);
  free(job);
  if (code) return code == CZK_GRPC_NOT_FOUND ? CZK_AWAIT_EXIT_NOT_FOUND : CZK_AWAIT_EXIT_RPC;
  Cuzk__V1__AwaitProofResponse *a = (Cuzk__V1__AwaitProofResponse *)o;
  rc = print_result(a, out, json);
  if (rc == 0 || a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
    /* rc != 0 here: the proof could not be written */
  } else if (a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT) {
    rc = CZK_AWAIT_EXIT_TIMEOUT;
  } else if (a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED) {
    rc = CZK_AWAIT_EXIT_CANCELLED;
  } else {
    rc = CZK_AWAIT_EXIT_FAILED;
  }
  protobuf_c_message_free_unpacked(o, NULL);
  return rc;
}

int czk_cmd_cancel(int argc, char **argv) {
  const char *addr;
  char *job;
  int rc = job_arg(argc, argv,
                   "usage: czk cancel [--addr ADDR] JOB\n"
                   "       czk cancel [--addr ADDR] --request-id RID\n"
                   "Cancels a job named by its job id or by its request id (JOB that is not all digits is taken as a\n"
                   "request id too).\n",
                   &addr, &job, NULL, NULL, NULL);
  if (rc) return rc < 0 ? 0 : rc;
  Cuzk__V1__CancelProofRequest r = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
  r.job_id = job;
  ProtobufCMessage *o;
  if (czk__client_call(addr, "/cuzk.v1.ProvingEngine/CancelProof", &r.base,
                       &cuzk__v1__cancel_proof_response__descriptor, &o, 60000, false, NULL, 0)) {
    free(job);
    return 1;
  }
  printf("%s %s cancelled%s\n", strncmp(job, "request:", 8) == 0 ? "request" : "job",
         strncmp(job, "request:", 8) == 0 ? job + 8 : job,
         ((Cuzk__V1__CancelProofResponse *)o)->was_running ? " (was running)" : "");
  free(job);
  protobuf_c_message_free_unpacked(o, NULL);
  return 0;
}

static int key_cmd(int argc, char **argv, bool preload) {
  const char *addr, *key;
  int rc = one_arg(argc, argv, preload ? "usage: czk preload [--addr ADDR] KEY\n" : "usage: czk evict [--addr ADDR] KEY\n",
                   &addr, &key, NULL, NULL, NULL);
  if (rc) return rc < 0 ? 0 : rc;
  Cuzk__V1__PreloadSrsRequest r = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
  r.circuit_id = (char *)key;
  ProtobufCMessage *o;
  if (preload) {
    if (czk__client_call(addr, "/cuzk.v1.ProvingEngine/PreloadSRS", &r.base, &cuzk__v1__preload_srs_response__descriptor,
                         &o, 0, false, NULL, 0))
      return 1;
    Cuzk__V1__PreloadSrsResponse *p = (Cuzk__V1__PreloadSrsResponse *)o;
    printf("%s: %s (%llu ms)\n", key, p->already_loaded ? "already loaded" : "loaded", (unsigned long long)p->load_time_ms);
  } else {
    if (czk__client_call(addr, "/cuzk.v1.ProvingEngine/EvictSRS", &r.base, &cuzk__v1__evict_srs_response__descriptor, &o,
                         60000, false, NULL, 0))
      return 1;
    Cuzk__V1__EvictSrsResponse *p = (Cuzk__V1__EvictSrsResponse *)o;
    printf("%s: %s, %llu bytes freed\n", key, p->was_loaded ? "evicted" : "was not loaded",
           (unsigned long long)p->freed_bytes);
  }
  protobuf_c_message_free_unpacked(o, NULL);
  return 0;
}
int czk_cmd_preload(int argc, char **argv) { return key_cmd(argc, argv, true); }
int czk_cmd_evict(int argc, char **argv) { return key_cmd(argc, argv, false); }

int czk_cmd_metrics(int argc, char **argv) {
  const char *addr, *unused;
  int rc = one_arg(argc, argv, "usage: czk metrics [--addr ADDR]\nPrints the daemon's Prometheus metrics.\n", &addr,
                   &unused, NULL, NULL, NULL);
  if (rc) return rc < 0 ? 0 : rc;
  Cuzk__V1__GetMetricsRequest r = CUZK__V1__GET_METRICS_REQUEST__INIT;
  ProtobufCMessage *o;
  if (czk__client_call(addr, "/cuzk.v1.ProvingEngine/GetMetrics", &r.base, &cuzk__v1__get_metrics_response__descriptor,
                       &o, 60000, false, NULL, 0))
    return 1;
  fputs(((Cuzk__V1__GetMetricsResponse *)o)->prometheus_text, stdout);
  protobuf_c_message_free_unpacked(o, NULL);
  return 0;
}

/* A key's tier in the engine's words: czk_tier (czk's extension), else the reference enum in the same words (a HOT
 * key is ready to prove: pinned; WARM: mapped; COLD: disk) for a daemon that does not send it. */
static const char *tier_of(const Cuzk__V1__SRSStatus *k) {
  if (k->czk_tier && *k->czk_tier) return k->czk_tier;
  return k->tier == 0 ? "pinned" : k->tier == 1 ? "mapped" : "disk";
}

static void json_str(const char *s) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') printf("\\%c", *p);
    else if (*p < 0x20) printf("\\u%04x", *p);
    else putchar(*p);
  }
  putchar('"');
}

static void json_key(const Cuzk__V1__SRSStatus *k) {
  printf("{\"circuit_id\": ");
  json_str(k->circuit_id);
  printf(", \"tier\": \"%s\", \"size_bytes\": %llu, \"ref_count\": %u, \"files\": [", tier_of(k),
         (unsigned long long)k->size_bytes, k->ref_count);
  for (size_t f = 0; f < k->n_czk_files; f++) {
    printf("%s{\"path\": ", f ? ", " : "");
    json_str(k->czk_files[f]->path);
    printf(", \"size_bytes\": %llu, \"present\": %s}", (unsigned long long)k->czk_files[f]->size_bytes,
           k->czk_files[f]->present ? "true" : "false");
  }
  printf("]}");
}

static bool key_on_disk(const Cuzk__V1__SRSStatus *k) {
  for (size_t f = 0; f < k->n_czk_files; f++)
    if (k->czk_files[f]->present) return true;
  return false;
}

static bool kind_idle(const Cuzk__V1__QueueStatus *q) { return !q->pending && !q->in_progress && !q->czk_submitted; }

int czk_cmd_status(int argc, char **argv) {
  const char *addr = czk__client_default_addr();
  bool json = false, all = false;
  static const char usage[] =
      "usage: czk status [--addr ADDR] [--all] [--json]\n"
      "Shows the daemon's devices, keys (tier: device, pinned, mapped or disk; the files each key is loaded from) and\n"
      "the kinds with work. --all also lists idle kinds (no job since start) and keys that are neither loaded nor on\n"
      "disk; --json prints everything as one JSON object.\n";
  static const struct option lo[] = {
      {"addr", 1, 0, 'a'}, {"json", 0, 0, 'j'}, {"all", 0, 0, 'A'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 'a': addr = optarg; break;
    case 'j': json = true; break;
    case 'A': all = true; break;
    case 'h': printf("%s", usage); return 0;
    default: fprintf(stderr, "%s", usage); return 2;
    }
  }
  if (optind != argc) {
    fprintf(stderr, "%s", usage);
    return 2;
  }
  Cuzk__V1__GetStatusRequest r = CUZK__V1__GET_STATUS_REQUEST__INIT;
  ProtobufCMessage *o;
  if (czk__client_call(addr, "/cuzk.v1.ProvingEngine/GetStatus", &r.base, &cuzk__v1__get_status_response__descriptor,
                       &o, 60000, false, NULL, 0))
    return 1;
  Cuzk__V1__GetStatusResponse *s = (Cuzk__V1__GetStatusResponse *)o;
  /* every key with its files (czk), else the loaded ones (a daemon without the extension) */
  Cuzk__V1__SRSStatus **keys = s->n_czk_keys ? s->czk_keys : s->loaded_srs;
  size_t nkeys = s->n_czk_keys ? s->n_czk_keys : s->n_loaded_srs;
  if (json) {
    printf("{\"version\": ");
    json_str(s->czk_version);
    printf(", \"uptime_seconds\": %llu, \"total_proofs_completed\": %llu, \"total_proofs_failed\": %llu, "
           "\"memory_bytes\": %llu, \"memory_limit_bytes\": %llu, \"cpu_fallback\": %s, \"cpu_fallback_reason\": ",
           (unsigned long long)s->uptime_seconds, (unsigned long long)s->total_proofs_completed,
           (unsigned long long)s->total_proofs_failed, (unsigned long long)s->pinned_memory_bytes,
           (unsigned long long)s->pinned_memory_limit_bytes, s->czk_cpu_fallback ? "true" : "false");
    json_str(s->czk_cpu_fallback_reason);
    printf(", \"gpus\": [");
    for (size_t i = 0; i < s->n_gpus; i++) {
      printf("%s{\"ordinal\": %u, \"name\": ", i ? ", " : "", s->gpus[i]->ordinal);
      json_str(s->gpus[i]->name);
      printf(", \"vram_total_bytes\": %llu, \"vram_free_bytes\": %llu, \"current_job_id\": ",
             (unsigned long long)s->gpus[i]->vram_total_bytes, (unsigned long long)s->gpus[i]->vram_free_bytes);
      json_str(s->gpus[i]->current_job_id);
      printf(", \"current_proof_kind\": ");
      json_str(s->gpus[i]->current_proof_kind);
      printf("}");
    }
    printf("], \"loaded_srs\": [");
    for (size_t i = 0; i < s->n_loaded_srs; i++) {
      printf("%s", i ? ", " : "");
      json_key(s->loaded_srs[i]);
    }
    printf("], \"keys\": [");
    for (size_t i = 0; i < nkeys; i++) {
      printf("%s", i ? ", " : "");
      json_key(keys[i]);
    }
    printf("], \"queues\": [");
    for (size_t i = 0; i < s->n_queues; i++) {
      printf("%s{\"proof_kind\": ", i ? ", " : "");
      json_str(s->queues[i]->proof_kind);
      printf(", \"pending\": %u, \"in_progress\": %u, \"submitted\": %llu, \"completed\": %llu, \"failed\": %llu}",
             s->queues[i]->pending, s->queues[i]->in_progress, (unsigned long long)s->queues[i]->czk_submitted,
             (unsigned long long)s->queues[i]->czk_completed, (unsigned long long)s->queues[i]->czk_failed);
    }
    printf("]}\n");
  } else {
    printf("%s%s%suptime %llus, proofs completed %llu, failed %llu, memory %.2f / %.2f GiB\n",
           s->czk_version && *s->czk_version ? "czk " : "", s->czk_version && *s->czk_version ? s->czk_version : "",
           s->czk_version && *s->czk_version ? ", " : "",
           (unsigned long long)s->uptime_seconds, (unsigned long long)s->total_proofs_completed,
           (unsigned long long)s->total_proofs_failed, (double)s->pinned_memory_bytes / (1 << 30),
           (double)s->pinned_memory_limit_bytes / (1 << 30));
    if (s->czk_cpu_fallback)
      printf("*** CPU FALLBACK: proving on the CPU although %s ***\n", s->czk_cpu_fallback_reason);
    printf("\n%-4s %-28s %-18s %-18s %s\n", "DEV", "NAME", "FREE / TOTAL GiB", "JOB", "KIND");
    for (size_t i = 0; i < s->n_gpus; i++) {
      char mem[32];
      if (s->gpus[i]->vram_free_bytes)
        snprintf(mem, sizeof mem, "%.1f / %.1f", (double)s->gpus[i]->vram_free_bytes / (1 << 30),
                 (double)s->gpus[i]->vram_total_bytes / (1 << 30));
      else
        snprintf(mem, sizeof mem, "- / %.1f", (double)s->gpus[i]->vram_total_bytes / (1 << 30));
      printf("%-4u %-28s %-18s %-18s %s\n", s->gpus[i]->ordinal, s->gpus[i]->name, mem,
             *s->gpus[i]->current_job_id ? s->gpus[i]->current_job_id : "-",
             *s->gpus[i]->current_proof_kind ? s->gpus[i]->current_proof_kind : "-");
    }
    printf("\n%-20s %-7s %-14s %-5s %-22s %s\n", "KEY", "TIER", "BYTES", "REFS", "ON DEVICES", "FILES");
    size_t hidden = 0;
    for (size_t i = 0; i < nkeys; i++) {
      const Cuzk__V1__SRSStatus *k = keys[i];
      bool loaded = strcmp(tier_of(k), "disk") != 0 || k->size_bytes;
      if (!all && !loaded && !key_on_disk(k)) {
        hidden++;
        continue;
      }
      printf("%-20s %-7s %-14llu %-5u %-22s", k->circuit_id, tier_of(k), (unsigned long long)k->size_bytes, k->ref_count,
             k->czk_device_tiers && *k->czk_device_tiers ? k->czk_device_tiers : "-");
      for (size_t f = 0; f < k->n_czk_files; f++) {
        const Cuzk__V1__KeyFile *kf = k->czk_files[f];
        if (kf->present) printf("%s%s (%.1f MiB)", f ? ", " : " ", kf->path, (double)kf->size_bytes / (1 << 20));
        else printf("%s%s (missing)", f ? ", " : " ", kf->path);
      }
      printf("\n");
    }
    if (hidden) printf("(%zu keys neither loaded nor on disk not shown; --all lists them)\n", hidden);
    printf("\n%-28s %-8s %-12s %-10s %s\n", "KIND", "PENDING", "IN PROGRESS", "COMPLETED", "FAILED");
    hidden = 0;
    for (size_t i = 0; i < s->n_queues; i++) {
      const Cuzk__V1__QueueStatus *q = s->queues[i];
      if (!all && kind_idle(q)) {
        hidden++;
        continue;
      }
      printf("%-28s %-8u %-12u %-10llu %llu\n", q->proof_kind, q->pending, q->in_progress,
             (unsigned long long)q->czk_completed, (unsigned long long)q->czk_failed);
    }
    if (hidden) printf("(%zu idle kinds not shown; --all lists them)\n", hidden);
  }
  protobuf_c_message_free_unpacked(o, NULL);
  return 0;
}
