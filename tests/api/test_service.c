/* test_service.c: the gRPC service's request decoding (service.c) without a transport (issue 22 defect 3): a request
 * over its method's size limit is refused unread; decoding is bounded (a SubmitProof made of many tiny unknown fields
 * or repeated entries, ~46x its size once decoded, is refused with RESOURCE_EXHAUSTED instead); a legitimate request
 * with one big bytes field still decodes. The engine has no kinds: a decoded SubmitProof ends at "not supported".
 * Request memory in the budget (budget_tests): on an engine with a small kind of its own (named as the synthetic kind
 * the request maps to, with a key), every request's bytes are reserved (category request) and released once its
 * parse is done: after each job the budget holds exactly the key's bytes; a request that fits only without the idle
 * key evicts it; one that can never fit is refused with RESOURCE_EXHAUSTED and the next job proves; one that waits
 * for memory held elsewhere is refused after request_budget_wait_ms, or proceeds when the memory returns in time. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/rpc.h"
#include "core/clock.h"
#include "api/service.h"
#include "cuzk_v1.pb-c.h"
#include "czk_test.h"

static int call(czk__service *s, const char *method, const uint8_t *req, size_t len, char **err) {
  uint8_t *resp = NULL;
  size_t resp_len = 0;
  *err = NULL;
  int code = czk__service_handle(s, method, req, len, &resp, &resp_len, err);
  free(resp);
  return code;
}

/* n bytes of 2-byte unknown fields (field 15, varint 0), after a valid synthetic request's fields */
static uint8_t *unknown_fields(size_t n, size_t *len) {
  uint8_t *b = malloc(n + 8);
  size_t o = 0;
  b[o++] = 0x10, b[o++] = 100; /* proof_kind = CZK_SYNTHETIC */
  while (o + 2 <= n) b[o++] = 15 << 3, b[o++] = 0;
  *len = o;
  return b;
}

/* ---- request memory in the budget ------------------------------------------------------------------------------- */
#define TK_KEY_BYTES (32ull << 20)
#define TK_LIMIT (128ull << 20)
static atomic_int tk_loads, tk_parsed_live;

static czk_status tk_parse(void *u, const uint8_t *in, size_t len, void **parsed, uint32_t *nparts) {
  (void)u, (void)in, (void)len;
  *parsed = malloc(8);
  if (!*parsed) return CZK_ERR_NOMEM;
  tk_parsed_live++;
  *nparts = 1;
  return CZK_OK;
}
static void tk_parsed_free(void *u, void *p) {
  (void)u;
  tk_parsed_live--;
  free(p);
}
#define TK_PARSED_BYTES (3ull << 20)
static atomic_int tk_gate; /* 1: synthesis waits until it is 0 again */
static uint64_t tk_parsed_bytes(void *u, const void *p) {
  (void)u, (void)p;
  return TK_PARSED_BYTES;
}
static czk_status tk_synth(void *u, const void *parsed, uint32_t part, czk_pool *pool, void **synth) {
  (void)u, (void)parsed, (void)part, (void)pool;
  while (atomic_load(&tk_gate)) czk__clock_sleep_ns(1000000);
  *synth = malloc(8);
  return *synth ? CZK_OK : CZK_ERR_NOMEM;
}
static void tk_synth_free(void *u, void *synth) {
  (void)u;
  free(synth);
}
static czk_status tk_start(void *u, const czk_engine_device_ctx *dev, void *key, void *synth, void **pending,
                           czk_engine_prove_report *rep) {
  (void)u, (void)dev, (void)key, (void)synth, (void)rep;
  *pending = NULL;
  return CZK_OK;
}
static czk_status tk_finish(void *u, const czk_engine_device_ctx *dev, void *pending, uint8_t *proof,
                            czk_engine_prove_report *rep) {
  (void)u, (void)dev, (void)pending, (void)rep;
  memset(proof, 0xa5, 192);
  return CZK_OK;
}
static czk_status tk_key_load(void *u, const char *id, czk_key_tier want, void **key, czk_key_tier *tier,
                              uint64_t *bytes) {
  (void)u, (void)id;
  *key = malloc(8);
  if (!*key) return CZK_ERR_NOMEM;
  tk_loads++;
  *tier = want;
  *bytes = TK_KEY_BYTES;
  return CZK_OK;
}
static void tk_key_free(void *u, void *key) {
  (void)u;
  free(key);
}

/* A packed SubmitProofRequest for synthetic-k10 with a vanilla_proof of vlen bytes (Prove: wrapped in field 1). */
static uint8_t *tk_request(size_t vlen, bool prove, size_t *len) {
  Cuzk__V1__SubmitProofRequest r = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  r.proof_kind = CUZK__V1__PROOF_KIND__CZK_SYNTHETIC;
  r.vanilla_proof.len = vlen;
  r.vanilla_proof.data = calloc(1, vlen ? vlen : 1);
  Cuzk__V1__ProveRequest p = CUZK__V1__PROVE_REQUEST__INIT;
  p.submit = &r;
  const ProtobufCMessage *m = prove ? &p.base : &r.base;
  *len = protobuf_c_message_get_packed_size(m);
  uint8_t *b = malloc(*len);
  protobuf_c_message_pack(m, b);
  free(r.vanilla_proof.data);
  return b;
}

/* A Prove of vlen bytes; returns the gRPC code (the proof is checked when it is OK). */
static int tk_prove(czk__service *s, size_t vlen, char **err) {
  size_t len;
  uint8_t *b = tk_request(vlen, true, &len);
  uint8_t *resp = NULL;
  size_t resp_len = 0;
  *err = NULL;
  int code = czk__service_handle(s, "/cuzk.v1.ProvingEngine/Prove", b, len, &resp, &resp_len, err);
  free(b);
  if (code == CZK_GRPC_OK) {
    Cuzk__V1__ProveResponse *r = cuzk__v1__prove_response__unpack(NULL, resp_len, resp);
    CHECK(r && r->result && r->result->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED &&
          r->result->proof.len == 192 && r->result->proof.data[0] == 0xa5);
    if (r) cuzk__v1__prove_response__free_unpacked(r, NULL);
  }
  free(resp);
  return code;
}

/* The budget holds the resident keys' bytes and nothing else (no request, no partition); returns keys resident. */
static uint32_t tk_idle(czk_engine *e, const char *where) {
  czk_engine_status *st = NULL;
  CHECK(czk_engine_status_get(e, &st) == CZK_OK);
  if (!st) return 0;
  uint64_t keys = 0;
  for (uint32_t i = 0; i < st->nkeys; i++) keys += st->keys[i].bytes;
  CHECK_MSG(st->mem_used == keys && st->mem_used_by_cat[CZK_MEM_KEY] == keys && st->mem_used_by_cat[CZK_MEM_REQUEST] == 0,
            "%s: budget %llu (request %llu), keys %llu", where, (unsigned long long)st->mem_used,
            (unsigned long long)st->mem_used_by_cat[CZK_MEM_REQUEST], (unsigned long long)keys);
  CHECK_MSG(st->reservations_made == st->reservations_released + st->nkeys && st->release_errors == 0,
            "%s: made %llu released %llu keys %u errors %llu", where, (unsigned long long)st->reservations_made,
            (unsigned long long)st->reservations_released, st->nkeys, (unsigned long long)st->release_errors);
  CHECK_MSG(st->mem_peak <= st->mem_limit, "%s: peak %llu over the limit", where, (unsigned long long)st->mem_peak);
  uint32_t n = st->nkeys;
  czk_engine_status_free(st);
  return n;
}

typedef struct {
  czk_engine *e;
  czk_reservation *r;
} tk_releaser;
static void *tk_release_later(void *arg) {
  tk_releaser *t = arg;
  struct timespec ts = {0, 300 * 1000 * 1000};
  nanosleep(&ts, NULL);
  czk_engine_request_release(t->e, t->r);
  return NULL;
}

static void budget_tests(void) {
  czk_engine_config cfg;
  czk_engine_config_default(&cfg);
  cfg.mem_limit_bytes = TK_LIMIT;
  cfg.synth_workers = 1;
  cfg.workers_per_device = 1;
  czk_engine *e = NULL;
  CHECK(czk_engine_create(&e, &cfg) == CZK_OK);
  if (!e) return;
  czk_engine_kind k;
  memset(&k, 0, sizeof k);
  k.name = "synthetic-k10";
  k.proof_bytes = 192;
  k.shape.abc_bytes = 1u << 20;
  k.key_id = "tk-key";
  k.key_bytes = TK_KEY_BYTES;
  k.verify_mode = CZK_VERIFY_OFF;
  k.parse = tk_parse;
  k.parsed_free = tk_parsed_free;
  k.parsed_bytes = tk_parsed_bytes;
  k.synthesize = tk_synth;
  k.synth_free = tk_synth_free;
  k.prove_start = tk_start;
  k.prove_finish = tk_finish;
  k.key_load = tk_key_load;
  k.key_free = tk_key_free;
  CHECK(czk_engine_register_kind(e, &k) == CZK_OK);
  czk__service s;
  czk__service_init(&s, e, 10);
  char *err;

  /* request bytes: 4 x the message + 64 KiB */
  CHECK(czk__service_request_bytes(1000) == 4000 + (64u << 10));
  CHECK(czk__service_request_bytes(SIZE_MAX) == UINT64_MAX);

  /* a small job proves; the budget holds the key and nothing else */
  CHECK_MSG(tk_prove(&s, 100, &err) == CZK_GRPC_OK, "small: %s", err ? err : "");
  free(err);
  CHECK(tk_idle(e, "small job") == 1);
  CHECK_EQ_INT(tk_loads, 1);

  /* 16 MiB (64 MiB charged) fits beside the resident key: no eviction */
  CHECK_MSG(tk_prove(&s, 16u << 20, &err) == CZK_GRPC_OK, "16 MiB: %s", err ? err : "");
  free(err);
  CHECK(tk_idle(e, "16 MiB job") == 1);
  CHECK_EQ_INT(tk_loads, 1);

  /* 24 MiB (96 MiB charged) fits only without the idle key: it is evicted, the job loads it again and proves */
  CHECK_MSG(tk_prove(&s, 24u << 20, &err) == CZK_GRPC_OK, "24 MiB: %s", err ? err : "");
  free(err);
  CHECK(tk_idle(e, "24 MiB job") == 1);
  CHECK_EQ_INT(tk_loads, 2);

  /* 40 MiB (160 MiB charged) can never fit the 128 MiB budget: refused at once, clearly; SubmitProof the same */
  CHECK_MSG(tk_prove(&s, 40u << 20, &err) == CZK_GRPC_RESOURCE_EXHAUSTED && err && strstr(err, "memory budget") &&
                strstr(err, "ProveRequest"), "40 MiB: %s", err ? err : "");
  free(err);
  size_t len;
  uint8_t *b = tk_request(40u << 20, false, &len);
  CHECK_MSG(call(&s, "/cuzk.v1.ProvingEngine/SubmitProof", b, len, &err) == CZK_GRPC_RESOURCE_EXHAUSTED && err &&
                strstr(err, "SubmitProofRequest") && strstr(err, "memory budget"), "submit 40 MiB: %s", err ? err : "");
  free(err);
  free(b);
  CHECK(tk_idle(e, "after the refusals") == 1);
  /* ... and the next job proves */
  CHECK_MSG(tk_prove(&s, 100, &err) == CZK_GRPC_OK, "after refusal: %s", err ? err : "");
  free(err);
  CHECK(tk_idle(e, "job after the refusals") == 1);

  /* memory held elsewhere (as by partitions in flight): with no key left to evict, a request waits, then is refused */
  bool was_loaded = false;
  uint64_t freed = 0;
  CHECK(czk_engine_key_evict(e, "tk-key", &was_loaded, &freed) == CZK_OK && was_loaded && freed == TK_KEY_BYTES);
  czk_reservation busy;
  char why[320];
  CHECK(czk_engine_request_reserve(e, 100ull << 20, 0, &busy, why, sizeof why) == CZK_OK);
  s.request_budget_wait_ms = 300;
  CHECK_MSG(tk_prove(&s, 8u << 20, &err) == CZK_GRPC_RESOURCE_EXHAUSTED && err && strstr(err, "try again later"),
            "busy: %s", err ? err : "");
  free(err);
  /* the engine call itself: no wait when the deadline has passed; over the limit: CZK_ERR_BUDGET */
  czk_reservation r2;
  CHECK(czk_engine_request_reserve(e, 64ull << 20, 0, &r2, why, sizeof why) == CZK_ERR_TIMEOUT && why[0]);
  CHECK(czk_engine_request_reserve(e, TK_LIMIT + 1, UINT64_MAX, &r2, why, sizeof why) == CZK_ERR_BUDGET &&
        strstr(why, "memory budget"));
  CHECK(czk_engine_request_reserve(e, 0, 0, &r2, why, sizeof why) == CZK_OK && !czk_reservation_live(&r2));
  /* ... or proceeds when the memory returns within the wait */
  s.request_budget_wait_ms = 20000;
  tk_releaser rel = {e, &busy};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, tk_release_later, &rel) == 0);
  CHECK_MSG(tk_prove(&s, 8u << 20, &err) == CZK_GRPC_OK, "waited: %s", err ? err : "");
  free(err);
  pthread_join(th, NULL);
  czk_engine_request_release(e, &busy); /* released already: changes nothing, counts no error */
  CHECK(tk_idle(e, "after the wait") == 1);
  CHECK_EQ_INT(tk_parsed_live, 0);

  /* a job's parsed input stays in the budget while the job is in flight: the request's reservation is handed over,
   * shrunk to the kind's parsed_bytes, and released with the input when the job ends */
  atomic_store(&tk_gate, 1);
  b = tk_request(1u << 20, false, &len);
  uint8_t *resp = NULL;
  size_t resp_len = 0;
  err = NULL;
  CHECK(czk__service_handle(&s, "/cuzk.v1.ProvingEngine/SubmitProof", b, len, &resp, &resp_len, &err) ==
        CZK_GRPC_OK);
  free(b);
  free(err);
  Cuzk__V1__SubmitProofResponse *sr = cuzk__v1__submit_proof_response__unpack(NULL, resp_len, resp);
  free(resp);
  CHECK(sr && sr->job_id);
  uint64_t jid = sr && sr->job_id ? strtoull(sr->job_id, NULL, 10) : 0;
  if (sr) cuzk__v1__submit_proof_response__free_unpacked(sr, NULL);
  czk_engine_status *st = NULL;
  CHECK(czk_engine_status_get(e, &st) == CZK_OK);
  CHECK_MSG(st && st->mem_used_by_cat[CZK_MEM_REQUEST] == TK_PARSED_BYTES, "a job in flight holds %llu request bytes",
            st ? (unsigned long long)st->mem_used_by_cat[CZK_MEM_REQUEST] : 0ull);
  czk_engine_status_free(st);
  atomic_store(&tk_gate, 0);
  czk_engine_result res;
  CHECK(jid && czk_engine_await(e, jid, 0, &res) == CZK_OK);
  czk_engine_result_free(&res);
  CHECK(tk_idle(e, "after a job that held its input") == 1);
  CHECK_EQ_INT(tk_parsed_live, 0);

  czk__service_destroy(&s);
  czk_engine_destroy(e);
}

int main(void) {
  budget_tests();
  CHECK(protobuf_c_message_descriptor_get_field(&cuzk__v1__submit_proof_request__descriptor, 15) == NULL);
  czk_engine_config cfg;
  czk_engine_config_default(&cfg);
  cfg.mem_limit_bytes = 128ull << 20; /* a 16 MiB request is charged 64 MiB while it is decoded */
  czk_engine *e = NULL;
  CHECK(czk_engine_create(&e, &cfg) == CZK_OK);
  if (!e) return czk_test_done("test_service");
  czk__service s;
  czk__service_init(&s, e, 10);
  CHECK(s.max_submit_bytes == 128u << 20);
  char *err;
  const char *submit = "/cuzk.v1.ProvingEngine/SubmitProof", *prove = "/cuzk.v1.ProvingEngine/Prove";

  /* 4 MiB of tiny unknown fields: refused while decoding (protobuf-c took ~190 MiB for it) */
  size_t len;
  uint8_t *b = unknown_fields(4u << 20, &len);
  CHECK_MSG(call(&s, submit, b, len, &err) == CZK_GRPC_RESOURCE_EXHAUSTED && err && strstr(err, "too many fields"),
            "unknown fields: %s", err ? err : "");
  free(err);
  /* the same inside Prove's nested SubmitProofRequest (field 1) */
  uint8_t *p = malloc(len + 8);
  size_t o = 0;
  p[o++] = 0x0a;
  for (size_t v = len; ; v >>= 7) {
    p[o++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    if (v < 0x80) break;
  }
  memcpy(p + o, b, len);
  CHECK_MSG(call(&s, prove, p, o + len, &err) == CZK_GRPC_RESOURCE_EXHAUSTED && err && strstr(err, "too many fields"),
            "prove: %s", err ? err : "");
  free(err);
  free(p);
  free(b);

  /* many empty vanilla_proofs entries (16 bytes each decoded, 2 on the wire) */
  Cuzk__V1__SubmitProofRequest r = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  r.proof_kind = CUZK__V1__PROOF_KIND__CZK_SYNTHETIC;
  r.n_vanilla_proofs = 1u << 20;
  r.vanilla_proofs = calloc(r.n_vanilla_proofs, sizeof *r.vanilla_proofs);
  len = protobuf_c_message_get_packed_size(&r.base);
  b = malloc(len);
  protobuf_c_message_pack(&r.base, b);
  CHECK_MSG(call(&s, submit, b, len, &err) == CZK_GRPC_RESOURCE_EXHAUSTED && err && strstr(err, "too many fields"),
            "repeated: %s", err ? err : "");
  free(err);
  free(b);
  free(r.vanilla_proofs);
  r.n_vanilla_proofs = 0;
  r.vanilla_proofs = NULL;

  /* one big bytes field (16 MiB) decodes: the request reaches the engine (no kinds here) */
  r.vanilla_proof.len = 16u << 20;
  r.vanilla_proof.data = calloc(1, r.vanilla_proof.len);
  len = protobuf_c_message_get_packed_size(&r.base);
  b = malloc(len);
  protobuf_c_message_pack(&r.base, b);
  CHECK_MSG(call(&s, submit, b, len, &err) == CZK_GRPC_INVALID_ARGUMENT && err && strstr(err, "not supported"),
            "big field: %s", err ? err : "");
  free(err);
  /* over the SubmitProof limit: refused unread */
  s.max_submit_bytes = 8u << 20;
  CHECK_MSG(call(&s, submit, b, len, &err) == CZK_GRPC_RESOURCE_EXHAUSTED && err && strstr(err, "limit"), "limit: %s",
            err ? err : "");
  free(err);
  free(b);
  free(r.vanilla_proof.data);

  /* the other requests are small: a 100 KiB job id is refused before decoding, as is a 100 KiB GetStatus body */
  Cuzk__V1__AwaitProofRequest a = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
  char *id = malloc(100u << 10);
  memset(id, '7', (100u << 10) - 1);
  id[(100u << 10) - 1] = 0;
  a.job_id = id;
  len = protobuf_c_message_get_packed_size(&a.base);
  b = malloc(len);
  protobuf_c_message_pack(&a.base, b);
  CHECK_MSG(call(&s, "/cuzk.v1.ProvingEngine/AwaitProof", b, len, &err) == CZK_GRPC_RESOURCE_EXHAUSTED && err &&
                strstr(err, "limit"), "await: %s", err ? err : "");
  free(err);
  CHECK(call(&s, "/cuzk.v1.ProvingEngine/CancelProof", b, len, &err) == CZK_GRPC_RESOURCE_EXHAUSTED);
  free(err);
  CHECK(call(&s, "/cuzk.v1.ProvingEngine/GetStatus", b, len, &err) == CZK_GRPC_RESOURCE_EXHAUSTED);
  free(err);
  free(b);
  /* a small unknown job id is still NOT_FOUND */
  id[20] = 0;
  len = protobuf_c_message_get_packed_size(&a.base);
  b = malloc(len);
  protobuf_c_message_pack(&a.base, b);
  CHECK(call(&s, "/cuzk.v1.ProvingEngine/AwaitProof", b, len, &err) == CZK_GRPC_NOT_FOUND);
  free(err);
  free(b);
  free(id);

  /* a NUL byte in a string (issue 22 defect 11): refused, never cut short ("a\0b" and "a\0c" were one request id) */
  static const uint8_t nul_rid[] = {0x0a, 3, 'a', 0, 'b', 0x10, 100};
  CHECK_MSG(call(&s, submit, nul_rid, sizeof nul_rid, &err) == CZK_GRPC_INVALID_ARGUMENT && err &&
                strstr(err, "request_id contains a NUL byte"), "rid: %s", err ? err : "");
  free(err);
  static const uint8_t nul_prove[] = {0x0a, 7, 0x0a, 3, 'a', 0, 'b', 0x10, 100};
  CHECK_MSG(call(&s, prove, nul_prove, sizeof nul_prove, &err) == CZK_GRPC_INVALID_ARGUMENT && err &&
                strstr(err, "request_id contains a NUL byte"), "prove rid: %s", err ? err : "");
  free(err);
  static const uint8_t nul_job[] = {0x0a, 2, '1', 0};
  CHECK(call(&s, "/cuzk.v1.ProvingEngine/AwaitProof", nul_job, sizeof nul_job, &err) == CZK_GRPC_INVALID_ARGUMENT &&
        err && strstr(err, "job_id contains a NUL byte"));
  free(err);
  CHECK(call(&s, "/cuzk.v1.ProvingEngine/CancelProof", nul_job, sizeof nul_job, &err) == CZK_GRPC_INVALID_ARGUMENT);
  free(err);
  static const uint8_t nul_circuit[] = {0x0a, 4, 'k', 'e', 0, 'y'};
  CHECK(call(&s, "/cuzk.v1.ProvingEngine/PreloadSRS", nul_circuit, sizeof nul_circuit, &err) ==
            CZK_GRPC_INVALID_ARGUMENT && err && strstr(err, "circuit_id contains a NUL byte"));
  free(err);
  /* bytes fields may hold NULs: a synthetic spec with one is the kind's to judge (here: no kinds) */
  static const uint8_t nul_bytes[] = {0x10, 100, 0x52, 2, 'x', 0};
  CHECK(call(&s, submit, nul_bytes, sizeof nul_bytes, &err) == CZK_GRPC_INVALID_ARGUMENT && err &&
        strstr(err, "not supported"));
  free(err);

  czk__service_destroy(&s);
  czk_engine_destroy(e);
  return czk_test_done("test_service");
}
