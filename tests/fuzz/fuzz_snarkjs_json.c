/* fuzz_snarkjs_json: snarkjs's JSON files through czk's strict JSON reader (snarkjs_json.c): the first input byte
 * picks the reader (mod 3: proof.json, public.json, verification_key.json), the rest is the text. Properties: an
 * accepted proof re-encodes and decodes to itself (czk_groth16_proof_encode / _decode); an accepted public.json has
 * its count of values; an accepted vk has at least one IC point. */
#include "czk/groth16.h"
#include "czk/snarkjs.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  char *text = fuzz_text(data + 1, size - 1);
  switch (data[0] % 3) {
  case 0: {
    czk_groth16_proof p;
    if (czk_snarkjs_proof_parse(&p, text) == CZK_OK) {
      uint8_t enc[CZK_GROTH16_PROOF_BYTES], enc2[CZK_GROTH16_PROOF_BYTES];
      czk_groth16_proof_encode(enc, &p);
      czk_groth16_proof q;
      FUZZ_CHECK(czk_groth16_proof_decode(&q, enc) == CZK_OK);
      czk_groth16_proof_encode(enc2, &q);
      FUZZ_CHECK(memcmp(enc, enc2, sizeof enc) == 0);
    }
    break;
  }
  case 1: {
    czk_fr *pub = NULL;
    size_t n = SIZE_MAX;
    if (czk_snarkjs_public_parse(&pub, &n, text) == CZK_OK) FUZZ_CHECK(n == 0 || pub != NULL);
    free(pub);
    break;
  }
  default: {
    czk_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    if (czk_snarkjs_vk_parse(&vk, text) == CZK_OK) {
      FUZZ_CHECK(vk.n_ic >= 1 && vk.ic != NULL);
      czk_groth16_vk_free(&vk);
    }
    break;
  }
  }
  free(text);
  return 0;
}
