/* fuzz_porep_c1: the PoRep request's vanilla_proof (czk_porep_c1_read): cuzk's envelope {"SectorNum", "Phase1Out":
 * base64(C1 JSON), "SectorSize"} or a bare C1 output (SealCommitPhase1Output JSON), through the streaming yajl parser,
 * the base64 decoder and the compact tree. Properties: a refusal names its reason (err non-empty); an accepted output
 * has the registered proof's partition and challenge counts and its arrays. */
#include "czk/porep.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  czk_porep_c1 c1;
  memset(&c1, 0, sizeof c1);
  uint64_t sector_num = 1, sector_size = 1;
  char err[512] = "";
  czk_status st = czk_porep_c1_read(&c1, data, size, &sector_num, &sector_size, err, sizeof err);
  if (st != CZK_OK) {
    FUZZ_CHECK(fuzz_has_reason(err));
    return 0;
  }
  FUZZ_CHECK(c1.info != NULL);
  FUZZ_CHECK(c1.partitions == c1.info->partitions && c1.challenges == c1.info->challenges);
  FUZZ_CHECK(c1.ch != NULL && c1.comm_r_last != NULL && c1.comm_c != NULL);
  czk_porep_partition part;
  czk_porep_c1_partition(&c1, c1.partitions - 1, &part);
  FUZZ_CHECK(part.n_challenges == c1.challenges);
  czk_porep_c1_free(&c1);
  return 0;
}
