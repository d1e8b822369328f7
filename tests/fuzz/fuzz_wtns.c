/* fuzz_wtns: circom .wtns version 2 (czk_circom_wtns_parse). Property: an accepted witness has n >= 1 values, the
 * first of which is ONE (the parser checks it; a reader that forgot would fail here). */
#include "czk/circom.h"
#include "czk/field.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  czk_circom_wtns w;
  memset(&w, 0, sizeof w);
  if (czk_circom_wtns_parse(&w, data, size) != CZK_OK) return 0;
  FUZZ_CHECK(w.n >= 1 && w.w != NULL);
  FUZZ_CHECK(czk_fr_is_one(&w.w[0]));
  czk_circom_wtns_free(&w);
  return 0;
}
