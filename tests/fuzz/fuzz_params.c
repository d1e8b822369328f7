/* fuzz_params: a bellperson .params file (czk_groth16_pk_open maps it and validates the layout: every length prefix
 * against the file size, the vk points; then czk_groth16_pk_prepare decodes and checks every query point). The input
 * is written to a private file in /dev/shm (the parser takes a path and maps it). Property: the sizes of an opened
 * key account for the file: vk block + 5 length prefixes + points = file size. */
#include "czk/groth16.h"
#include "czk/pool.h"
#include "fuzz_common.h"

static czk_pool *pool;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  if (czk_pool_new(&pool, 1) != CZK_OK) abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file("input", data, size);
  czk_groth16_pk *pk = NULL;
  if (czk_groth16_pk_open(&pk, path) != CZK_OK) return 0;
  czk_groth16_pk_sizes s;
  czk_groth16_pk_get_sizes(pk, &s);
  size_t vk_bytes = czk_groth16_vk_size(czk_groth16_pk_vk(pk));
  FUZZ_CHECK(vk_bytes + 5 * 4 + 96 * (s.n_h + s.n_l + s.n_a + s.n_b_g1) + 192 * s.n_b_g2 == size);
  if (czk_groth16_pk_prepare(pk, pool) == CZK_OK) {
    czk_groth16_pk_queries q;
    FUZZ_CHECK(czk_groth16_pk_get_queries(pk, &q) == CZK_OK);
  }
  czk_groth16_pk_close(pk);
  return 0;
}
