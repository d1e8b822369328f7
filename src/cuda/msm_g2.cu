/* msm_g2.cu: the G2 instantiation of the Pippenger accumulation kernels (msm_impl.cuh over ec.cuh), in its own
 * translation unit so that the G1 and G2 kernels compile in parallel (each takes minutes in ptxas). */
#include "cuda/ff.cuh"
#include "cuda/msm_internal.cuh"

#define EC_LOWREG 0
#define EC_F fp2
#define EC_G g2
#include "cuda/ec.cuh"
#include "cuda/msm_impl.cuh"
