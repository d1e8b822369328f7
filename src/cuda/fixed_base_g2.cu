/* fixed_base_g2.cu: fixed-base batch multiplication of the G2 generator (fixed_base_impl.cuh) and its C entry. */
#define FP2_NOINLINE 1
#include "cuda/ff.cuh"
#include "cuda/cuda_internal.h"

#define EC_F fp2
#define EC_G g2
#include "cuda/ec.cuh"
#include "cuda/fixed_base_impl.cuh"

/* T[j][d] = d 2^(8j) G on the host (8,192 Jacobian additions, one batch normalization). */
extern "C" czk_status czk_cuda_fixed_base_g2(czk_g2_affine *out, const czk_fr *k, size_t n) {
  if (!out || (!k && n)) return CZK_ERR_INVALID_ARG;
  const size_t nt = (size_t)FB_WINDOWS * 256;
  czk_g2 *jt = (czk_g2 *)malloc(nt * sizeof *jt);
  czk_g2_affine *t = (czk_g2_affine *)malloc(nt * sizeof *t);
  czk_status st = jt && t ? CZK_OK : CZK_ERR_NOMEM;
  if (st == CZK_OK) {
    czk_g2 b;
    czk_g2_generator(&b);
    for (size_t j = 0; j < FB_WINDOWS; j++) {
      czk_g2 *row = jt + j * 256;
      czk_g2_set_infinity(&row[0]); /* never read by the kernel */
      row[1] = b;
      for (int d = 2; d < 256; d++) czk_g2_add(&row[d], &row[d - 1], &b);
      for (int s = 0; s < 8; s++) czk_g2_dbl(&b, &b);
    }
    st = czk_g2_batch_to_affine(t, jt, nt);
  }
  if (st == CZK_OK) st = g2_fb_run((g2_aff_t *)out, k, n, (const g2_aff_t *)t);
  free(jt);
  free(t);
  return st;
}
