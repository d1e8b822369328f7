/* fixed_base_g1.cu: fixed-base batch multiplication of the G1 generator (fixed_base_impl.cuh) and its C entry. */
#include "cuda/ff.cuh"
#include "cuda/cuda_internal.h"

#define EC_F fp
#define EC_G g1
#include "cuda/ec.cuh"
#include "cuda/fixed_base_impl.cuh"

/* T[j][d] = d 2^(8j) G on the host (8,192 Jacobian additions, one batch normalization). */
extern "C" czk_status czk_cuda_fixed_base_g1(czk_g1_affine *out, const czk_fr *k, size_t n) {
  if (!out || (!k && n)) return CZK_ERR_INVALID_ARG;
  const size_t nt = (size_t)FB_WINDOWS * 256;
  czk_g1 *jt = (czk_g1 *)malloc(nt * sizeof *jt);
  czk_g1_affine *t = (czk_g1_affine *)malloc(nt * sizeof *t);
  czk_status st = jt && t ? CZK_OK : CZK_ERR_NOMEM;
  if (st == CZK_OK) {
    czk_g1 b;
    czk_g1_generator(&b);
    for (size_t j = 0; j < FB_WINDOWS; j++) {
      czk_g1 *row = jt + j * 256;
      czk_g1_set_infinity(&row[0]); /* never read by the kernel */
      row[1] = b;
      for (int d = 2; d < 256; d++) czk_g1_add(&row[d], &row[d - 1], &b);
      for (int s = 0; s < 8; s++) czk_g1_dbl(&b, &b);
    }
    st = czk_g1_batch_to_affine(t, jt, nt);
  }
  if (st == CZK_OK) st = g1_fb_run((g1_aff_t *)out, k, n, (const g1_aff_t *)t);
  free(jt);
  free(t);
  return st;
}
