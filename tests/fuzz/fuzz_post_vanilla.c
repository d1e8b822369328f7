/* fuzz_post_vanilla: one sector's PoSt vanilla proof (FallbackPoStSectorProof, bincode 1.x) for a registered PoSt
 * proof (czk_post_vanilla_parse): the first input byte picks the registered proof (wire value mod 15, so every
 * Winning/Window shape of every size is reached), the rest is the bincode. Properties: a refusal names its reason; an
 * accepted proof has the shape's opening count and re-serializes byte for byte (czk_post_vanilla_write). */
#include "czk/post.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const czk_post_info *info = czk_post_info_by_wire(data[0] % CZK_POST_N_PROOFS);
  FUZZ_CHECK(info != NULL);
  const uint8_t *buf = data + 1;
  size_t len = size - 1;
  czk_post_sector s;
  memset(&s, 0, sizeof s);
  char err[512] = "";
  czk_status st = czk_post_vanilla_parse(info, buf, len, &s, "sector 0", err, sizeof err);
  if (st != CZK_OK) {
    FUZZ_CHECK(fuzz_has_reason(err));
    return 0;
  }
  FUZZ_CHECK(s.n_openings == info->challenge_count);
  FUZZ_CHECK(len == czk_post_vanilla_size(info));
  uint8_t *out = malloc(len ? len : 1);
  FUZZ_CHECK(out != NULL);
  FUZZ_CHECK(czk_post_vanilla_write(info, &s, out, len) == CZK_OK);
  FUZZ_CHECK(memcmp(out, buf, len) == 0);
  free(out);
  czk_post_sector_free(&s);
  return 0;
}
