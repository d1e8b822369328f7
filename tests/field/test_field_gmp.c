/* test_field_gmp.c: Fp and Fr against GMP on seeded random and edge inputs (every operation of the prime fields),
 * plus the Fp-only operations (half, mul_small, lexicographic order) and string-parsing rejections.
 * Usage: test_field_gmp [inputs per field, default 100000] [heavy_every, default 8] [portable inputs, default 1/4]:
 * the exponentiation-based operations (inv, inv_vartime, pow, legendre, sqrt) run on every heavy_every-th input (the
 * `full` label runs them on all 10^5). When the CPU has the mulx/adx path, the run is repeated on the portable C
 * path with the third count of inputs (different seeds), so both multiplication paths are checked against GMP. */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "czk/field.h"
#include "czk_test.h"
#include "field/field_internal.h"

#define T czk_fp
#define N 6
#define F(x) czk_fp_##x
#define G(x) gfp_##x
#define DECSZ 120
#include "gmp_field_impl.h"
#undef T
#undef N
#undef F
#undef G
#undef DECSZ

#define T czk_fr
#define N 4
#define F(x) czk_fr_##x
#define G(x) gfr_##x
#define DECSZ 80
#include "gmp_field_impl.h"
#undef T
#undef N
#undef F
#undef G
#undef DECSZ

static void fp_extras(unsigned long iters, uint64_t seed) {
  czk_test_rng rng;
  czk_test_rng_seed(&rng, seed);
  mpz_t x, z;
  mpz_inits(x, z, NULL);
  for (unsigned long it = 0; it < iters; it++) {
    gfp_gen(x, &rng);
    czk_fp a = gfp_elem(x), r;
    czk_fp_half(&r, &a);
    czk_fp_dbl(&r, &r);
    CHECK(czk_fp_eq(&r, &a));
    czk_fp_half(&r, &a); /* half(x) = x * 2^-1 */
    mpz_set_ui(z, 2);
    mpz_invert(z, z, gfp_m);
    mpz_mul(z, z, x);
    mpz_mod(z, z, gfp_m);
    CHECK(gfp_eq_mpz(&r, z));
    uint64_t k = czk_test_rng_next(&rng) % 1000;
    czk_fp_mul_small(&r, &a, k);
    mpz_mul_ui(z, x, k);
    mpz_mod(z, z, gfp_m);
    CHECK_MSG(gfp_eq_mpz(&r, z), "mul_small k=%lu", (unsigned long)k);
    CHECK(czk_fp_is_lexicographically_largest(&a) == (mpz_cmp(x, gfp_half) > 0));
  }
  mpz_clears(x, z, NULL);
}

static void misc(void) {
  czk_fp a;
  czk_fr b;
  CHECK(czk_fp_from_str(&a, "") == CZK_ERR_FORMAT);
  CHECK(czk_fp_from_str(&a, "0x") == CZK_ERR_FORMAT);
  CHECK(czk_fp_from_str(&a, "12a") == CZK_ERR_FORMAT);
  CHECK(czk_fp_from_str(&a, "-1") == CZK_ERR_FORMAT);
  CHECK(czk_fp_from_str(&a, " 1") == CZK_ERR_FORMAT);
  CHECK(czk_fr_from_str(&b, "0xg") == CZK_ERR_FORMAT);
  CHECK(czk_fr_from_str(&b, "0") == CZK_OK && czk_fr_is_zero(&b));
  CHECK(czk_fr_from_str(&b, "0x01") == CZK_OK && czk_fr_is_one(&b));
  /* r and p themselves, and huge numbers */
  CHECK(czk_fr_from_str(&b, "52435875175126190479447740508185965837690552500527637822603658699938581184513") ==
        CZK_ERR_NOT_CANONICAL);
  CHECK(czk_fr_from_str(&b, "52435875175126190479447740508185965837690552500527637822603658699938581184512") == CZK_OK);
  czk_fr_neg(&b, &b);
  CHECK(czk_fr_is_one(&b));
  CHECK(czk_fp_from_str(&a, "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9fef"
                            "fffffffaaab") == CZK_ERR_NOT_CANONICAL);
  CHECK(czk_fp_from_str(&a, "1000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000000000000000") ==
        CZK_ERR_NOT_CANONICAL);
  uint64_t ones[6];
  memset(ones, 0xff, sizeof ones);
  CHECK(czk_fp_from_raw(&a, ones) == CZK_ERR_NOT_CANONICAL);
  CHECK(czk_fr_from_raw(&b, ones) == CZK_ERR_NOT_CANONICAL);
  CHECK(czk_fp_from_raw(&a, czk_fp_modulus) == CZK_ERR_NOT_CANONICAL);
  CHECK(czk_fr_from_raw(&b, czk_fr_modulus) == CZK_ERR_NOT_CANONICAL);
  CHECK(czk_fp_batch_inv(NULL, NULL, 0, NULL) == CZK_OK);
  /* random elements: distinct, canonical */
  czk_fr r1, r2;
  CHECK(czk_fr_random(&r1) == CZK_OK);
  CHECK(czk_fr_random(&r2) == CZK_OK);
  CHECK(!czk_fr_eq(&r1, &r2));
  uint64_t raw[4];
  czk_fr_to_raw(raw, &r1);
  CHECK(czk_fr_from_raw(&r2, raw) == CZK_OK && czk_fr_eq(&r1, &r2));
}

int main(int argc, char **argv) {
  unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
  unsigned long heavy = argc > 2 ? strtoul(argv[2], NULL, 10) : 8;
  unsigned long portable = argc > 3 ? strtoul(argv[3], NULL, 10) : iters / 4;
  if (heavy == 0) heavy = 1;
  bool asm_on = czk__field_set_adx(true);
  fprintf(stderr, "multiplication path: %s\n", asm_on ? "mulx/adx asm" : "portable C");
  gfp_run("fp", czk_fp_modulus, iters, heavy, 0x5eed0001);
  gfr_run("fr", czk_fr_modulus, iters, heavy, 0x5eed0002);
  fp_extras(iters, 0x5eed0003);
  misc();
  if (asm_on && portable > 0) {
    czk__field_set_adx(false);
    fprintf(stderr, "multiplication path: portable C\n");
    gfp_run("fp", czk_fp_modulus, portable, heavy, 0x5eed0011);
    gfr_run("fr", czk_fr_modulus, portable, heavy, 0x5eed0012);
    fp_extras(portable, 0x5eed0013);
    czk__field_set_adx(true);
  }
  gfp_teardown();
  gfr_teardown();
  return czk_test_done("test_field_gmp");
}
