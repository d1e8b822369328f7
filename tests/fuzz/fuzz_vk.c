/* fuzz_vk: a bellperson verifying-key block (czk_groth16_vk_parse: six points, u32 count, IC points; every point on
 * the curve and in its subgroup, never a read past len). Properties: *used <= size; re-encoding an accepted vk
 * reproduces exactly the bytes it was parsed from (czk_groth16_vk_size == *used, czk_groth16_vk_encode == data). */
#include "czk/groth16.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  czk_groth16_vk vk;
  memset(&vk, 0, sizeof vk);
  size_t used = SIZE_MAX;
  if (czk_groth16_vk_parse(&vk, data, size, &used) != CZK_OK) return 0;
  FUZZ_CHECK(used <= size);
  FUZZ_CHECK(czk_groth16_vk_size(&vk) == used);
  uint8_t *enc = malloc(used ? used : 1);
  FUZZ_CHECK(enc != NULL);
  czk_groth16_vk_encode(enc, &vk);
  FUZZ_CHECK(memcmp(enc, data, used) == 0);
  free(enc);
  czk_groth16_vk_free(&vk);
  return 0;
}
