/* fuzz_request: request.json, the file form of a Filecoin proof request (czk__fc_request_load, json-c plus the
 * duplicate-key scan), as `czk prove --request` / `czk verify --request` read it. The input is written as
 * request.json into a private folder that also holds vanilla-0.bin and c1.json, so that names relative to it resolve.
 * Properties: a refusal names its reason; an accepted request's arrays match their counts. */
#include "filecoin/request.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  static const uint8_t vanilla[64] = {1, 2, 3};
  fuzz_file("vanilla-0.bin", vanilla, sizeof vanilla);
  static const char c1[] = "{\"registered_proof\":\"StackedDrg2KiBV1_1\"}";
  fuzz_file("c1.json", (const uint8_t *)c1, sizeof c1 - 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file("request.json", data, size);
  czk__fc_request r;
  char err[512] = "";
  if (czk__fc_request_load(path, &r, err, sizeof err) != 0) {
    czk_status st = CZK_ERR_FORMAT; /* the loader returns -1 */
    FUZZ_CHECK(fuzz_has_reason(err));
    czk__fc_request_free(&r);
    return 0;
  }
  FUZZ_CHECK(r.n_sectors == 0 || (r.sector_ids != NULL && r.comm_r != NULL));
  for (size_t i = 0; i < r.n_vanilla; i++) FUZZ_CHECK(r.vanilla[i] != NULL);
  FUZZ_CHECK(r.vanilla_one != NULL || r.vanilla_one_len == 0);
  czk__fc_request_free(&r);
  return 0;
}
