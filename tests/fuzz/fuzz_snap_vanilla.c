/* fuzz_snap_vanilla: one SnapDeals PartitionProof (bincode 1.x) for a registered update proof
 * (czk_snap_partition_parse): the first input byte picks the registered proof (wire value mod 5: 2 KiB .. 64 GiB), the
 * rest is the bincode. Properties: a refusal names its reason; an accepted partition has the shape's apex and
 * challenge counts and re-serializes byte for byte (czk_snap_partition_write). */
#include "czk/snap.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const czk_snap_info *info = czk_snap_info_by_wire(data[0] % CZK_SNAP_N_PROOFS);
  FUZZ_CHECK(info != NULL);
  const uint8_t *buf = data + 1;
  size_t len = size - 1;
  czk_snap_partition p;
  memset(&p, 0, sizeof p);
  char err[512] = "";
  czk_status st = czk_snap_partition_parse(info, buf, len, &p, "partition 0", err, sizeof err);
  if (st != CZK_OK) {
    FUZZ_CHECK(fuzz_has_reason(err));
    return 0;
  }
  FUZZ_CHECK(p.n_apex == info->apex_leaves && p.n_challenges == info->challenges);
  FUZZ_CHECK(len == czk_snap_partition_size(info));
  uint8_t *out = malloc(len ? len : 1);
  FUZZ_CHECK(out != NULL);
  FUZZ_CHECK(czk_snap_partition_write(info, &p, out, len) == CZK_OK);
  FUZZ_CHECK(memcmp(out, buf, len) == 0);
  czk_snap_partition_free(&p);
  free(out);
  return 0;
}
