/* msm_internal.cuh: what the MSM translation units share (msm.cu: host glue, digits, sort; msm_g1.cu / msm_g2.cu:
 * the per-group accumulation kernels, compiled separately so that the two large instantiations build in parallel).
 * Point operations are inlined into every kernel (ec.cuh): the out-of-line version faulted on the H200 (an invalid
 * __local__ read inside g1_add called from g1_msm_tree, found by compute-sanitizer). */
#ifndef CZK_CUDA_MSM_INTERNAL_CUH
#define CZK_CUDA_MSM_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/cuda_internal.h"

/* An MSM handle's device scratch, grown on demand. Handles whose runs are ordered on one stream may share one
 * (czk_cuda_msm_share_scratch): a run's kernels use it only until the next run on that stream starts, and growing it
 * frees the old buffers with cudaFree, which waits for the device. */
typedef struct msm_scratch {
  int refs;
  uint32_t *d_keys[2], *d_vals[2];
  size_t pairs_cap;
  void *d_sort_tmp;
  size_t sort_tmp_cap;
  void *d_buckets;
  size_t buckets_cap;
  uint32_t *d_rkeys[2];
  void *d_rpts[2];
  size_t rec_cap[2], rkey_cap[2];
  void *d_seg;
  size_t seg_cap;
  /* 0/1-aware runs: the ones' and the others' point indices (ones from the front, others from the back) and the
   * partition's temporary storage */
  uint32_t *d_idx;
  size_t idx_cap;
  void *d_part_tmp;
  size_t part_tmp_cap;
  /* The open series (runs summed into one result, their passes accumulating into these buckets): its window width
   * (0: chosen by its first pass) and whether its buckets still await their first pass (zeroed by it). */
  uint32_t ser_c;
  bool ser_fresh;
  /* the largest pass (points, at most the chunk) reserved for, per group (czk_cuda_msm_reserve; 0: none, the
   * scratch grows as runs need) */
  size_t res_top[2];
} msm_scratch;

struct czk_cuda_msm {
  int group; /* 1 or 2 */
  int device;
  size_t cap; /* number of bases */
  size_t aff_size, xyzz_size;
  void *d_bases;
  bool own_bases;
  uint32_t l1, lk; /* chunk lengths of the accumulation levels */
  /* scratch, grown on demand */
  uint32_t *d_scalars;
  size_t scalars_cap;
  bool dense;     /* czk_cuda_msm_set_dense: no 0/1 split (its count read-back is the run's one host sync) */
  msm_scratch *s; /* the handle's own, or shared with handles run on the same stream (czk_cuda_msm_share_scratch) */
  int *d_cnt, *h_cnt;
  void *d_win;
  void *h_win; /* pinned, 64 window sums (read by each run's host function, in stream order) */
  /* CZK_CUDA_MSM_PROFILE set: events between the phases of each run (msm_mark), printed after it completes */
  int prof;
  cudaEvent_t ev[12];
  const char *ev_name[12];
  int nev;
};

static inline uint32_t msm_seg_size(uint32_t c, uint32_t W) {
  uint64_t total = (uint64_t)W << (c - 1);
  uint32_t S = 1;
  while (total / S > (1u << 17) && S < (1u << (c - 1))) S *= 2;
  return S;
}

/* Profiling mark (no-op unless m->prof): records an event named `name` on st. */
static inline void msm_mark(czk_cuda_msm *m, const char *name, cudaStream_t st) {
  if (!m->prof || m->nev >= 12) return;
  if (!m->ev[m->nev]) cudaEventCreate(&m->ev[m->nev]);
  m->ev_name[m->nev] = name;
  cudaEventRecord(m->ev[m->nev++], st);
}

/* Asynchronous 16-byte copy global -> shared (cp.async, sm_80+), its group commit, and the wait for all groups but
 * the newest one. A thread reads only what it copied itself, so no barrier is needed. */
static __device__ __forceinline__ void cp_async16(void *sdst, const void *gsrc) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((uint32_t)__cvta_generic_to_shared(sdst)),
               "l"(gsrc)
               : "memory");
}
static __device__ __forceinline__ void cp_async_commit(void) { asm volatile("cp.async.commit_group;" ::: "memory"); }
static __device__ __forceinline__ void cp_async_wait1(void) { asm volatile("cp.async.wait_group 1;" ::: "memory"); }

/* Launch one pass's accumulation into the buckets after its pairs are sorted (fresh: the buckets are zeroed first),
 * and a series' end: bucket reduction and the window sums' copy to m->h_win (msm_impl.cuh). */
czk_status g1_msm_launch_pairs(czk_cuda_msm *m, const uint32_t *keys, const uint32_t *vals, size_t N, uint32_t c,
                               uint32_t W, uint32_t sentinel, int fresh, cudaStream_t st);
czk_status g2_msm_launch_pairs(czk_cuda_msm *m, const uint32_t *keys, const uint32_t *vals, size_t N, uint32_t c,
                               uint32_t W, uint32_t sentinel, int fresh, cudaStream_t st);
czk_status g1_msm_launch_reduce(czk_cuda_msm *m, uint32_t c, uint32_t W, cudaStream_t st);
czk_status g2_msm_launch_reduce(czk_cuda_msm *m, uint32_t c, uint32_t W, cudaStream_t st);
/* Bench helper kernels' launchers (msm_g1.cu / msm_g2.cu): d_out[i] = A[i % na] + B[(i / na) % nb], affine. */
void g1_gen_bases_launch(void *d_out, size_t n, const void *dA, size_t na, const void *dB, size_t nb, cudaStream_t st);
void g2_gen_bases_launch(void *d_out, size_t n, const void *dA, size_t na, const void *dB, size_t nb, cudaStream_t st);

#endif
