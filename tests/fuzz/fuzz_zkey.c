/* fuzz_zkey: snarkjs .zkey (czk_zkey_parse: the binfile sections, header, IC, section-4 coefficients) and, for an
 * accepted key, its verifying key and czk_zkey_prepare (every query point decoded and checked, the NTT domain).
 * Property: a parsed key's info is consistent (n_public + 1 <= n_vars, domain a power of two > n_public). */
#include "czk/pool.h"
#include "czk/snarkjs.h"
#include "fuzz_common.h"

static czk_pool *pool;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  if (czk_pool_new(&pool, 1) != CZK_OK) abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  czk_zkey *z = NULL;
  if (czk_zkey_parse(&z, data, size) != CZK_OK) {
    FUZZ_CHECK(z == NULL);
    return 0;
  }
  czk_zkey_info in;
  czk_zkey_get_info(z, &in);
  FUZZ_CHECK(in.n_vars >= 1 && (uint64_t)in.n_public + 1 <= in.n_vars);
  FUZZ_CHECK(in.domain_size && !(in.domain_size & (in.domain_size - 1)) && in.n_public < in.domain_size);
  FUZZ_CHECK(in.domain_size == 1u << in.log_domain);
  czk_groth16_vk vk;
  if (czk_zkey_vk(z, &vk) == CZK_OK) {
    FUZZ_CHECK(vk.n_ic == (size_t)in.n_public + 1);
    czk_groth16_vk_free(&vk);
  }
  (void)czk_zkey_prepare(z, pool);
  czk_zkey_close(z);
  return 0;
}
