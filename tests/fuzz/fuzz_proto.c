/* fuzz_proto: gRPC request bodies through the api's decoding path (czk__service_handle, service.c), exactly as the
 * transport hands them over: size limit per method, the NUL-in-string scan of the wire format, protobuf-c unpacking
 * on the bounded allocator, the request mapped to a plain czk_kind_request and its kind name (czk_kind_name_for), job
 * id / request id resolution, PreloadSRS / EvictSRS circuit ids. The first input byte picks the method among those
 * that read a body (SubmitProof, AwaitProof, Prove, CancelProof, PreloadSRS, EvictSRS); the rest is the body. The
 * engine has no kinds registered, so a well-formed SubmitProof ends at "not supported" without starting work.
 * Properties: a known gRPC code comes back; an error code comes with a message; OK comes with a response body. */
#include "api/service.h"
#include "czk/engine.h"
#include "fuzz_common.h"

static czk_engine *engine;
static czk__service service;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  czk_engine_config cfg;
  czk_engine_config_default(&cfg);
  cfg.mem_limit_bytes = 1 << 20;
  if (czk_engine_create(&engine, &cfg) != CZK_OK) abort();
  czk__service_init(&service, engine, 10);
  /* small enough that the fuzzer reaches the SubmitProof limit, large enough for real requests */
  service.max_submit_bytes = 1 << 20;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const methods[] = {
      "/cuzk.v1.ProvingEngine/SubmitProof", "/cuzk.v1.ProvingEngine/AwaitProof",
      "/cuzk.v1.ProvingEngine/Prove",       "/cuzk.v1.ProvingEngine/CancelProof",
      "/cuzk.v1.ProvingEngine/PreloadSRS",  "/cuzk.v1.ProvingEngine/EvictSRS"};
  if (size < 1) return 0;
  const char *method = methods[data[0] % (sizeof methods / sizeof methods[0])];
  /* the body in its own allocation: ASan sees a read past its end */
  uint8_t *body = malloc(size - 1 ? size - 1 : 1);
  FUZZ_CHECK(body != NULL);
  memcpy(body, data + 1, size - 1);
  uint8_t *resp = NULL;
  size_t resp_len = 0;
  char *err = NULL;
  int code = czk__service_handle(&service, method, body, size - 1, &resp, &resp_len, &err);
  FUZZ_CHECK(code >= 0 && code <= 16);
  if (code != 0) FUZZ_CHECK(err != NULL && err[0] != 0 && resp == NULL);
  else FUZZ_CHECK(resp != NULL);
  free(resp);
  free(err);
  free(body);
  return 0;
}
