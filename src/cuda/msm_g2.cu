/* msm_g2.cu: the G2 instantiation of the Pippenger accumulation kernels (msm_impl.cuh over ec.cuh), in its own
 * translation unit so that the G1 and G2 kernels compile in parallel, and so that the Fp2 product can be out of line
 * here (FP2_NOINLINE, see ff.cuh) while everything else keeps it inlined. */
#define FP2_NOINLINE 1
#include "cuda/ff.cuh"
#include "cuda/msm_internal.cuh"

#define EC_F fp2
#define EC_G g2
#include "cuda/ec.cuh"
#include "cuda/msm_impl.cuh"
