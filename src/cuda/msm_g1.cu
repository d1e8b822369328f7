/* msm_g1.cu: the G1 instantiation of the Pippenger accumulation kernels (msm_impl.cuh over ec.cuh), in its own
 * translation unit so that the G1 and G2 kernels compile in parallel (each takes minutes in ptxas). */
#include "cuda/ff.cuh"
#include "cuda/msm_internal.cuh"

#define EC_F fp
#define EC_G g1
#include "cuda/ec.cuh"
#include "cuda/msm_impl.cuh"
