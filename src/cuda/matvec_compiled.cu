/* matvec_compiled.cu: a = A·w, b = B·w, c = C·w over a compiled circuit with repeated segments (czk/compiled.h on the
 * host side; czk_cc_matvec in src/cs/compiled.c is the CPU twin with the same contract).
 *
 * One launch per segment on a 2-D grid: x = template row (256 per block), y = repeat (grid-strided when the repeats
 * exceed gridDim.y). A thread computes one output row of all three matrices: template rows are short (R1CS rows of
 * the Filecoin gadgets have 1-3 terms in most rows, tens in packing rows), so a thread per row keeps the memory
 * accesses of a warp on 32 consecutive template rows, shared by every repeat (they stay in L2), while the witness
 * reads of repeat r hit w at r * stride offsets. Per entry: the column from its tag (ABS col, IN col + r in_stride,
 * AUX col + r aux_stride, TABLE table[off + r width + col]), then one Fr multiplication + addition (an addition /
 * subtraction for coefficient 1 / -1). Cost: expanded nnz multiplications; memory: 8 B per template entry (cached),
 * 32 B per witness read, 96 B written per row.
 * Outputs may be NULL: that matrix is skipped (the low-memory H computes a, b and c one at a time into two buffers).
 * Check mode (flag != NULL): all three products of every row below n_check are computed and a b = c is checked, a
 * failing row sets *flag; the outputs given (may be none) are written for every row as without a check, so that a
 * low-memory H gets a and b from its check's pass (c computed for the check, not stored). */
#include <cuda_runtime.h>

#include "cuda/cuda_internal.h"
#include "cuda/ff.cuh"

struct cc_mats {
  const uint32_t *row_ptr[3], *col[3], *ref[3];
};

__global__ void __launch_bounds__(256) bk_cc_matvec(fr_t *a, fr_t *b, fr_t *c, czk_cuda_tseg g, cc_mats m,
                                                    const fr_t *__restrict__ coef, const uint32_t *__restrict__ table,
                                                    uint32_t one, uint32_t minus_one, const fr_t *__restrict__ w,
                                                    uint64_t n_check, uint32_t *flag) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= g.n_rows) return;
  fr_t *out[3] = {a, b, c};
  for (uint32_t r = blockIdx.y; r < g.reps; r += gridDim.y) {
    const uint64_t din = (uint64_t)r * g.in_stride, daux = (uint64_t)r * g.aux_stride;
    const uint32_t *tab = table + g.table_off + (uint64_t)r * g.table_width;
    const uint64_t row = g.row0 + (uint64_t)r * g.n_rows + j;
    const bool chk = flag && row < n_check;
    if (!chk && !a && !b && !c) continue;
    fr_t prod[2];
#pragma unroll 1
    for (int k = 0; k < 3; k++) {
      if (!chk && !out[k]) continue;
      fr_t acc;
#pragma unroll
      for (int i = 0; i < 8; i++) acc.v[i] = 0;
      const uint32_t e1 = __ldg(m.row_ptr[k] + g.tmpl_row0 + j + 1);
      for (uint32_t e = __ldg(m.row_ptr[k] + g.tmpl_row0 + j); e < e1; e++) {
        const uint32_t ref = __ldg(m.ref[k] + e), ci = ref & CZK_CC_COEF_MASK_D, tag = ref >> 30;
        uint64_t col = __ldg(m.col[k] + e);
        if (tag == 1) col += din;
        else if (tag == 2) col += daux;
        else if (tag == 3) col = __ldg(tab + col);
        fr_t x;
        load_fr(&x, w + col);
        if (ci == one) {
          fr_add(&acc, &acc, &x);
        } else if (ci == minus_one) {
          fr_sub(&acc, &acc, &x);
        } else {
          fr_t v;
          load_fr(&v, coef + ci);
          fr_mul(&v, &v, &x);
          fr_add(&acc, &acc, &v);
        }
      }
      if (out[k]) store_fr(out[k] + row, &acc);
      if (chk) {
        if (k == 0) {
          prod[0] = acc;
        } else if (k == 1) {
          fr_mul(&prod[1], &prod[0], &acc);
        } else {
          bool eq = true;
#pragma unroll
          for (int i = 0; i < 8; i++) eq &= prod[1].v[i] == acc.v[i];
          if (!eq) atomicOr(flag, 1u);
        }
      }
    }
  }
}

extern "C" czk_status czk_cuda_compiled_matvec(czk_fr *a, czk_fr *b, czk_fr *c, const czk_cuda_tseg *segs,
                                               uint32_t n_segs, const uint32_t *const row_ptr[3],
                                               const uint32_t *const col[3], const uint32_t *const ref[3],
                                               const czk_fr *coef, const uint32_t *table, uint32_t one_index,
                                               uint32_t minus_one_index, const czk_fr *w, void *stream) {
  return czk_cuda_compiled_matvec_ex(a, b, c, segs, n_segs, row_ptr, col, ref, coef, table, one_index, minus_one_index,
                                     w, 0, NULL, stream);
}

extern "C" czk_status czk_cuda_compiled_matvec_ex(czk_fr *a, czk_fr *b, czk_fr *c, const czk_cuda_tseg *segs,
                                                  uint32_t n_segs, const uint32_t *const row_ptr[3],
                                                  const uint32_t *const col[3], const uint32_t *const ref[3],
                                                  const czk_fr *coef, const uint32_t *table, uint32_t one_index,
                                                  uint32_t minus_one_index, const czk_fr *w, uint64_t n_check,
                                                  uint32_t *flag, void *stream) {
  if (flag) CZK_CU(cudaMemsetAsync(flag, 0, sizeof *flag, (cudaStream_t)stream));
  if (!flag && !a && !b && !c) return CZK_OK;
  cc_mats m;
  for (int k = 0; k < 3; k++) m.row_ptr[k] = row_ptr[k], m.col[k] = col[k], m.ref[k] = ref[k];
  for (uint32_t s = 0; s < n_segs; s++) {
    const czk_cuda_tseg g = segs[s];
    if (!g.n_rows || !g.reps) continue;
    dim3 grid((g.n_rows + 255) / 256, g.reps < 65535 ? g.reps : 65535);
    bk_cc_matvec<<<grid, 256, 0, (cudaStream_t)stream>>>((fr_t *)a, (fr_t *)b, (fr_t *)c, g, m, (const fr_t *)coef,
                                                          table, one_index, minus_one_index, (const fr_t *)w,
                                                          n_check, flag);
    CZK_CU_LAUNCHED((cudaStream_t)stream);
  }
  return CZK_OK;
}

/* The prover's rows past the circuit's (one per input: a = the input, b = c = 0; then zeros up to the domain) and the
 * R1CS check of rows < n_check: a thread per row, grid-strided; a failing row sets *flag (reset first when n_check >
 * 0). A NULL vector is skipped (then n_check must be 0). */
__global__ void bk_abc_finish(fr_t *a, fr_t *b, fr_t *c, const fr_t *__restrict__ w, uint64_t n_user,
                              uint64_t n_inputs, uint64_t n_domain, uint64_t n_check, uint32_t *flag) {
  for (uint64_t row = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; row < n_domain;
       row += (uint64_t)gridDim.x * blockDim.x) {
    if (row >= n_user) {
      fr_t z;
#pragma unroll
      for (int i = 0; i < 8; i++) z.v[i] = 0;
      fr_t x = z;
      if (a && row - n_user < n_inputs) load_fr(&x, w + (row - n_user));
      if (a) store_fr(a + row, &x);
      if (b) store_fr(b + row, &z);
      if (c) store_fr(c + row, &z);
    } else if (row < n_check) {
      fr_t x, y, zc;
      load_fr(&x, a + row);
      load_fr(&y, b + row);
      load_fr(&zc, c + row);
      fr_mul(&x, &x, &y);
      bool eq = true;
#pragma unroll
      for (int i = 0; i < 8; i++) eq &= x.v[i] == zc.v[i];
      if (!eq) atomicOr(flag, 1u);
    }
  }
}

extern "C" czk_status czk_cuda_abc_finish(czk_fr *a, czk_fr *b, czk_fr *c, const czk_fr *w, uint64_t n_user,
                                          uint64_t n_inputs, uint64_t n_domain, uint64_t n_check, uint32_t *flag,
                                          void *stream) {
  if (n_user > n_domain || n_inputs > n_domain - n_user) return CZK_ERR_INVALID_ARG;
  if (n_check && (!a || !b || !c || !flag)) return CZK_ERR_INVALID_ARG;
  if (n_check) CZK_CU(cudaMemsetAsync(flag, 0, sizeof *flag, (cudaStream_t)stream));
  uint64_t blocks = (n_domain + 255) / 256;
  if (blocks > 65536) blocks = 65536;
  if (!blocks) return CZK_OK;
  bk_abc_finish<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>((fr_t *)a, (fr_t *)b, (fr_t *)c, (const fr_t *)w,
                                                                     n_user, n_inputs, n_domain, n_check, flag);
  CZK_CU_LAUNCHED((cudaStream_t)stream);
  return CZK_OK;
}
