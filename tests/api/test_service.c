/* test_service.c: the gRPC service's request decoding (service.c) without a transport (issue 22 defect 3): a request
 * over its method's size limit is refused unread; decoding is bounded (a SubmitProof made of many tiny unknown fields
 * or repeated entries, ~46x its size once decoded, is refused with RESOURCE_EXHAUSTED instead); a legitimate request
 * with one big bytes field still decodes. The engine has no kinds: a decoded SubmitProof ends at "not supported". */
#include <stdlib.h>
#include <string.h>

#include "api/rpc.h"
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

int main(void) {
  CHECK(protobuf_c_message_descriptor_get_field(&cuzk__v1__submit_proof_request__descriptor, 15) == NULL);
  czk_engine_config cfg;
  czk_engine_config_default(&cfg);
  cfg.mem_limit_bytes = 1 << 20;
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
