/* czk/cuda.h: the C API of czk's CUDA kernels: Pippenger MSM over BLS12-381 G1 and G2 with bases resident on the
 * device, and the Fr NTT (forward / inverse / coset) on device data.
 *
 * Data layouts are the CPU library's (include/czk/field.h, curve.h): a czk_fp / czk_fr in Montgomery form is copied
 * to the device byte for byte; bases are czk_g1_affine / czk_g2_affine with infinity as (0, 0); results are Jacobian
 * czk_g1 / czk_g2 (compare with czk_g1_eq, not bytes). MSM scalars are canonical integers (czk_fr_to_raw: 4 x 64-bit
 * little-endian limbs) unless CZK_CUDA_SCALARS_MONT says they are Montgomery czk_fr values (e.g. an NTT output).
 *
 * Streams: every compute call is asynchronous on the caller's stream, passed as an opaque pointer (a cudaStream_t;
 * NULL = the legacy default stream). Results written to host memory are valid after czk_cuda_stream_sync (or an
 * event) on that stream. No call synchronizes the device in the compute path. Host buffers passed to async calls must
 * stay valid until the stream reaches that point; pinned memory (czk_cuda_host_alloc) makes the copies truly async.
 *
 * Errors: every CUDA call is checked; a failure is logged (component "cuda": the call, file:line and CUDA's message)
 * and returned as CZK_ERR_DEVICE (CZK_ERR_NOMEM for allocation failures, CZK_ERR_NO_DEVICE when no GPU is usable).
 * When czk is built without CUDA every function returns CZK_ERR_UNSUPPORTED (czk_cuda_available() is false).
 *
 * Concurrency: a czk_cuda_msm / czk_cuda_ntt handle owns scratch memory; one call at a time per handle (calls on one
 * stream are naturally ordered). Use one handle per concurrent stream. Handles are bound to the device that was
 * current when they were created. */
#ifndef CZK_CUDA_H
#define CZK_CUDA_H

#include "czk/common.h"
#include "czk/curve.h"
#include "czk/field.h"
#include "czk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when this build has the CUDA backend compiled in (it may still find no device). */
CZK_API bool czk_cuda_available(void);
/* Number of usable CUDA devices; CZK_ERR_NO_DEVICE (and *count = 0) when there are none. */
CZK_API czk_status czk_cuda_device_count(int *count);
/* Make `device` current for this host thread. */
CZK_API czk_status czk_cuda_set_device(int device);
/* "NVIDIA H200, sm_90, 132 SMs, 139.8 GiB" into buf. */
CZK_API czk_status czk_cuda_device_describe(int device, char *buf, size_t len);
/* The device memory's peak bandwidth in bytes/s (memory clock x 2 x bus width, from the driver's attributes). */
CZK_API czk_status czk_cuda_mem_bandwidth(int device, uint64_t *bytes_per_s);

/* Streams (opaque cudaStream_t), device and pinned host memory, copies. */
CZK_API czk_status czk_cuda_stream_create(void **stream);
/* A stream of the device's greatest priority: its blocks are scheduled before those of default streams as SMs free up
 * (the prover's small, latency-bound proofs, e.g. WinningPoSt beside a PoRep backlog). */
CZK_API czk_status czk_cuda_stream_create_urgent(void **stream);
/* A stream one priority level above the least where the device has three levels or more (else the least): scheduled
 * before plain streams' work, after urgent streams'. */
CZK_API czk_status czk_cuda_stream_create_raised(void **stream);
CZK_API czk_status czk_cuda_stream_destroy(void *stream);
CZK_API czk_status czk_cuda_stream_sync(void *stream);
CZK_API czk_status czk_cuda_malloc(void **dptr, size_t bytes);
CZK_API czk_status czk_cuda_free(void *dptr);
CZK_API czk_status czk_cuda_host_alloc(void **hptr, size_t bytes); /* pinned */
CZK_API czk_status czk_cuda_host_free(void *hptr);
CZK_API czk_status czk_cuda_memcpy_htod(void *dst, const void *src, size_t bytes, void *stream);
CZK_API czk_status czk_cuda_memcpy_dtoh(void *dst, const void *src, size_t bytes, void *stream);

/* ------------------------------------------------------------------------------------------------ MSM */
typedef struct czk_cuda_msm czk_cuda_msm;

enum {
  CZK_CUDA_SCALARS_DEVICE = 1u << 0, /* scalars point to device memory (else host memory, copied per call) */
  CZK_CUDA_SCALARS_MONT = 1u << 1,   /* scalars are Montgomery czk_fr values (else canonical czk_fr_to_raw) */
  /* A series (czk_cuda_msm_run_series): the runs from one with SERIES_FIRST to one with SERIES_LAST, on one stream
   * through handles sharing one scratch, sum into the last run's *out (earlier runs leave their *out untouched). */
  CZK_CUDA_SERIES_FIRST = 1u << 2,
  CZK_CUDA_SERIES_LAST = 1u << 3,
};

/* Upload n G1 bases (copied on `stream`; `bases` must stay valid until the stream passes the copy) and allocate
 * scratch for MSMs of up to n points. */
CZK_API czk_status czk_cuda_msm_g1_new(czk_cuda_msm **out, const czk_g1_affine *bases, size_t n, void *stream);
CZK_API czk_status czk_cuda_msm_g2_new(czk_cuda_msm **out, const czk_g2_affine *bases, size_t n, void *stream);
/* Same with bases already on the device (d_bases: n czk_g1_affine / czk_g2_affine); the handle does not own them
 * and they must outlive it. */
CZK_API czk_status czk_cuda_msm_g1_new_device(czk_cuda_msm **out, const void *d_bases, size_t n);
CZK_API czk_status czk_cuda_msm_g2_new_device(czk_cuda_msm **out, const void *d_bases, size_t n);
CZK_API void czk_cuda_msm_free(czk_cuda_msm *m);
/* m gives up its own device scratch (sort pairs, buckets, the accumulation levels' records, the 0/1 partition's
 * indices: ~4.6 GB for a G1 run of 2^24 points or more) and uses with's from now on, so that handles whose runs are
 * ordered on one stream hold one scratch, the largest any of them needs, instead of one each. Only for handles of one
 * device that are never run concurrently (one stream); each handle still frees with czk_cuda_msm_free, in any
 * order. */
CZK_API czk_status czk_cuda_msm_share_scratch(czk_cuda_msm *m, czk_cuda_msm *with);
/* The device memory plan of MSM scratch. czk_cuda_msm_plan_bytes: the bytes of one scratch that serves runs of up to
 * ns[i] points in group groups[i] (1 or 2) for every i < k (handles sharing it, or k = 1 for a handle of its own),
 * dense[i] set (or dense NULL: none) for a handle marked dense. No device memory is allocated (the sort and partition
 * sizes are queried). czk_cuda_msm_reserve: grows m's scratch (its own or the shared one) now to what any run of up to
 * n points with device scalars needs, so that such runs allocate nothing (a run grows the scratch itself only beyond
 * what was reserved). czk_cuda_msm_scratch_held: the bytes m's scratch holds now. */
CZK_API czk_status czk_cuda_msm_plan_bytes(const int *groups, const size_t *ns, const int *dense, size_t k,
                                          uint64_t *bytes);
CZK_API czk_status czk_cuda_msm_reserve(czk_cuda_msm *m, size_t n);
CZK_API uint64_t czk_cuda_msm_scratch_held(const czk_cuda_msm *m);
/* A handle marked dense runs without the 0/1 split: for scalars known to be mostly neither 0 nor 1 (H values, a
 * Poseidon-heavy witness), where the split gains nothing and its count read-back (a host synchronization of the
 * stream) holds the caller. Results are the same either way. */
CZK_API void czk_cuda_msm_set_dense(czk_cuda_msm *m, int dense);
/* Device pointer of the resident bases. */
CZK_API const void *czk_cuda_msm_bases(const czk_cuda_msm *m);

/* out = sum_{i<n} scalars[i] * bases[i], n <= the handle's size (the first n bases are used).
 * scalars: n x 4 uint64 limbs (flags say where they live and in which form). Zero scalars, repeated bases and bases
 * at infinity are handled. *out is written by the stream (valid after a sync). Asynchronous. */
/* As the runs below (group 1 or 2), over the handle's bases [base_off, base_off + n). */
CZK_API czk_status czk_cuda_msm_run_at(czk_cuda_msm *m, int group, void *out, size_t base_off,
                                       const uint64_t *scalars, size_t n, unsigned flags, void *stream);
/* One run of a series (flags CZK_CUDA_SERIES_FIRST / _LAST): its points' products are accumulated into the buckets
 * of the series, and the last run writes the sum of them all to *out. n_total: the points of the whole series (at
 * least those of this run), from which its first pass chooses the window width (at most 2 bits wider than one pass of
 * the handle's size would take, so that the plan of czk_cuda_msm_plan_bytes holds); the bucket reduction is done once
 * per series instead of once per run. A run without either flag inside an open series is a middle run. */
CZK_API czk_status czk_cuda_msm_run_series(czk_cuda_msm *m, int group, void *out, size_t base_off,
                                           const uint64_t *scalars, size_t n, unsigned flags, size_t n_total,
                                           void *stream);
CZK_API czk_status czk_cuda_msm_g1_run(czk_cuda_msm *m, czk_g1 *out, const uint64_t *scalars, size_t n, unsigned flags,
                                      void *stream);
CZK_API czk_status czk_cuda_msm_g2_run(czk_cuda_msm *m, czk_g2 *out, const uint64_t *scalars, size_t n, unsigned flags,
                                      void *stream);
/* Window size used for n points (the environment variable CZK_CUDA_MSM_WINDOW overrides it, for tuning). */
CZK_API unsigned czk_cuda_msm_window_bits(size_t n);

/* ------------------------------------------------------------------------------------------------ setup */
/* Fixed-base batch multiplication of the group generator (Groth16 setup's query points): out[i] = affine(k[i] G)
 * for i < n; k are Montgomery czk_fr values in host memory, out host memory (infinity (0, 0) for k = 0). Synchronous,
 * on the current device, in chunks of 2^22 points (a few hundred MiB of device memory whatever n). Variable time in
 * the scalars (see src/cuda/fixed_base_impl.cuh); the device copies of the scalars are zeroed before they are freed. */
CZK_API czk_status czk_cuda_fixed_base_g1(czk_g1_affine *out, const czk_fr *k, size_t n);
CZK_API czk_status czk_cuda_fixed_base_g2(czk_g2_affine *out, const czk_fr *k, size_t n);

/* ------------------------------------------------------------------------------------------------ NTT */
typedef struct czk_cuda_ntt czk_cuda_ntt;

/* A plan for domains 2^1 .. 2^log_n_max (log_n_max <= 28): twiddle tables for omega_{2^log_n_max} of the given
 * convention and its inverse, and power tables of the coset shift g (NULL: czk_fr_coset_generator(), i.e. 7),
 * all computed on the device on `stream`. Domain 2^k uses omega_{2^k} = omega_{2^log_n_max}^(2^(log_n_max-k)). */
CZK_API czk_status czk_cuda_ntt_new(czk_cuda_ntt **out, unsigned log_n_max, czk_fr_roots roots,
                                   const czk_fr *coset_shift, void *stream);
/* The same with compact != 0: twiddle tables of at most ~36 MiB whatever log_n_max (2^27: 36.5 MiB against 8 GiB;
 * src/cuda/ntt.cu's header comment has the layout), for transforms bit-identical to a full plan's and a little slower
 * (the first pass of a transform of more than 2^10 points does more products). compact = 0 is czk_cuda_ntt_new. */
CZK_API czk_status czk_cuda_ntt_new_ex(czk_cuda_ntt **out, unsigned log_n_max, czk_fr_roots roots,
                                      const czk_fr *coset_shift, int compact, void *stream);
CZK_API void czk_cuda_ntt_free(czk_cuda_ntt *p);
/* Device bytes of a plan for 2^log_n_max (its twiddle and coset tables), before it is made: full, or compact (_ex with
 * compact != 0); czk_cuda_ntt_bytes, those of a plan made (0 for NULL); czk_cuda_ntt_is_compact, whether it is one. */
CZK_API uint64_t czk_cuda_ntt_plan_bytes(unsigned log_n_max);
CZK_API uint64_t czk_cuda_ntt_plan_bytes_ex(unsigned log_n_max, int compact);
CZK_API uint64_t czk_cuda_ntt_bytes(const czk_cuda_ntt *p);
CZK_API int czk_cuda_ntt_is_compact(const czk_cuda_ntt *p);

typedef enum czk_cuda_ntt_dir {
  CZK_CUDA_NTT_FORWARD = 0,       /* X_k = sum_i x_i w^(ik) */
  CZK_CUDA_NTT_INVERSE = 1,       /* x_i = n^-1 sum_k X_k w^(-ik) */
  CZK_CUDA_NTT_COSET_FORWARD = 2, /* X_k = sum_i (g^i x_i) w^(ik)  (evaluations on the coset g*H) */
  CZK_CUDA_NTT_COSET_INVERSE = 3, /* x_i = g^-i n^-1 sum_k X_k w^(-ik) */
} czk_cuda_ntt_dir;

/* In place on d_data (2^log_n Montgomery czk_fr on the device), natural order in and out. Asynchronous. */
CZK_API czk_status czk_cuda_ntt_run(czk_cuda_ntt *p, czk_fr *d_data, unsigned log_n, czk_cuda_ntt_dir dir,
                                   void *stream);

/* ---------------------------------------------------------------------- events, memory, poly kernels (poly.cu) */
/* Events (opaque cudaEvent_t; timing = 0 makes a sync-only event), memory info, stream-ordered allocation, host
 * registration, the sticky-error probe, and the prover's elementwise kernels. */
CZK_API czk_status czk_cuda_event_new(void **ev, int timing);
CZK_API void czk_cuda_event_free(void *ev);
CZK_API czk_status czk_cuda_event_record(void *ev, void *stream);
CZK_API czk_status czk_cuda_event_sync(void *ev);
CZK_API czk_status czk_cuda_stream_wait(void *stream, void *ev);
CZK_API czk_status czk_cuda_event_elapsed(float *ms, void *a, void *b);
CZK_API czk_status czk_cuda_mem_info(uint64_t *free_b, uint64_t *total_b, unsigned *sms);
CZK_API czk_status czk_cuda_malloc_async(void **p, size_t bytes, void *stream);
CZK_API czk_status czk_cuda_free_async(void *p, void *stream);
/* Register host memory as pinned (read-only use); CZK_ERR_UNSUPPORTED when the driver refuses (e.g. some mappings). */
CZK_API czk_status czk_cuda_host_register(const void *p, size_t bytes);
CZK_API void czk_cuda_host_unregister(const void *p);
/* True when the current device's context has a sticky error (it clears a pending non-sticky error first). */
CZK_API int czk_cuda_sticky_error(void);
/* Test hook: launch a kernel that stores through a bad device address (the context becomes unusable). */
CZK_API czk_status czk_cuda_inject_fault(void *stream);

/* a[i] = (a[i] b[i] - c[i]) * zinv, i < n (Montgomery); b NULL: a[i] = (a[i] - c[i]) zinv; c NULL: a[i] b[i] zinv. */
CZK_API czk_status czk_cuda_h_pointwise(czk_fr *a, const czk_fr *b, const czk_fr *c, size_t n, const czk_fr *zinv,
                                void *stream);
/* The points of a streamed MSM chunk whose scalars are not zero, packed (zeros cost an MSM nothing, so their bases
 * need not cross the bus): with s_j = w[idx[j]] (idx NULL: w[j]), j < n, the m non-zero s_j in order go to
 * sc_out[0..m) and their points h_bases[j] (base_size bytes each, a multiple of 4) to bases_out[0..m); sc_out[m..n)
 * become zero, and m * base_size is added to *bytes (device memory). h_bases is host memory registered with
 * czk_cuda_host_register, read by the kernels in place (only the chosen points cross the bus); tmp holds
 * czk_cuda_pack_nonzero_tmp(n) bytes of device memory. Stream-ordered: three kernels, no host wait.
 * CZK_ERR_UNSUPPORTED when the host memory has no device mapping. */
/* w and sc_out are 16-byte aligned (CZK_ERR_INVALID_ARG otherwise); n < 2^32. */
CZK_API czk_status czk_cuda_pack_nonzero(void *bases_out, czk_fr *sc_out, const void *h_bases, size_t base_size,
                                         const czk_fr *w, const uint32_t *idx, size_t n, void *tmp, uint64_t *bytes,
                                         void *stream);
CZK_API size_t czk_cuda_pack_nonzero_tmp(size_t n);
/* out[j] = in[idx[j]], j < n. */
CZK_API czk_status czk_cuda_gather(czk_fr *out, const czk_fr *in, const uint32_t *idx, size_t n, void *stream);
/* out[j] = sum_{k in [row_ptr[j], row_ptr[j+1])} val[k] * w[col[k]], j < rows; one warp per row. */
CZK_API czk_status czk_cuda_csr_matvec(czk_fr *out, const uint64_t *row_ptr, const uint32_t *col, const czk_fr *val,
                               size_t rows, const czk_fr *w, void *stream);

/* A repeated-template segment (czk/compiled.h's czk_cc_segment, field for field). */
typedef struct czk_cuda_tseg {
  uint64_t row0;
  uint32_t tmpl_row0, n_rows, reps, in_stride, aux_stride, table_width;
  uint64_t table_off;
} czk_cuda_tseg;
#define CZK_CC_COEF_MASK_D 0x3fffffffu
/* a/b/c[row] = <A/B/C row, w> for every output row of the segments (host array segs; every other pointer on the
 * device): template entries col/ref (ref = tag << 30 | coefficient index; tags ABS 0, IN 1, AUX 2, TABLE 3) expanded
 * per repeat as czk_cc_matvec does. One launch per segment, 2-D grid (template row, repeat). Asynchronous. */
CZK_API czk_status czk_cuda_compiled_matvec(czk_fr *a, czk_fr *b, czk_fr *c, const czk_cuda_tseg *segs,
                                            uint32_t n_segs, const uint32_t *const row_ptr[3],
                                            const uint32_t *const col[3], const uint32_t *const ref[3],
                                            const czk_fr *coef, const uint32_t *table, uint32_t one_index,
                                            uint32_t minus_one_index, const czk_fr *w, void *stream);

/* As czk_cuda_compiled_matvec, with NULL outputs skipped; with flag, check mode instead: every row < n_check is
 * computed in full and checked (a b = c), a failing row sets *flag (reset first), nothing is written. */
CZK_API czk_status czk_cuda_compiled_matvec_ex(czk_fr *a, czk_fr *b, czk_fr *c, const czk_cuda_tseg *segs,
                                               uint32_t n_segs, const uint32_t *const row_ptr[3],
                                               const uint32_t *const col[3], const uint32_t *const ref[3],
                                               const czk_fr *coef, const uint32_t *table, uint32_t one_index,
                                               uint32_t minus_one_index, const czk_fr *w, uint64_t n_check,
                                               uint32_t *flag, void *stream);
/* After a compiled mat-vec: rows [n_user, n_user + n_inputs) get a = w[row - n_user], b = c = 0, rows up to n_domain
 * zeros; every row < n_check (<= n_user: a mat-vec row) is checked a b = c, *flag (device u32, reset here) set when
 * one fails. A NULL vector is skipped (n_check must then be 0; the flag is reset only when n_check > 0).
 * Asynchronous on stream. */
CZK_API czk_status czk_cuda_abc_finish(czk_fr *a, czk_fr *b, czk_fr *c, const czk_fr *w, uint64_t n_user,
                                       uint64_t n_inputs, uint64_t n_domain, uint64_t n_check, uint32_t *flag,
                                       void *stream);

/* The packed witness of include/czk/backend.h ("packed witness upload"; the backend asserts the two layouts agree):
 * w[0..n) from src on the device, asynchronous. A chunk index past n_other reads as 0. */
#define CZK_CUDA_WPACK_CHUNK 1024u
#define CZK_CUDA_WPACK_VALS(nc) ((((size_t)(nc) * 260u) + 31u) & ~(size_t)31u)
CZK_API czk_status czk_cuda_wunpack(czk_fr *w, const void *src, size_t n, size_t n_other, void *stream);

/* ---------------------------------------------------------------------------------- probes (tests, benchmarks) */
/* Device self-test of field arithmetic: out[i] = op(a[i], b[i]) on host arrays of n elements, computed on the GPU.
 * op: 0 fp_mul, 1 fp_add, 2 fp_sub, 3 fr_mul, 4 fr_add, 5 fr_sub, 6 fp2_mul, 7 fp2_sqr, 8 fp_inv, 9 fp2_inv
 * (7-9: b unused), 10 fr_mul_shoup (the NTT twiddle product: a Montgomery, a < r, b any value < 2r; the result a b
 * R^-1 mod r lies in [0, 2r), not reduced).
 * Element size: 48 bytes (fp), 32 (fr, op 10), 96 (fp2). Synchronous (tests only). */
CZK_API czk_status czk_cuda_probe_field(int op, void *out, const void *a, const void *b, size_t n);

/* Bench probe: raw Montgomery multiplication throughput on device 0 (field 0: Fp, 1: Fr), in 10^9 products/s, from
 * 4 independent chains per thread over the whole GPU (best of 3 launches). Values are not checked. */
CZK_API czk_status czk_cuda_probe_mul_throughput(int field, double *gmul_per_s);

/* Bench helper: d_out[i] = A[i % na] + B[(i / na) % nb] (affine G1 / G2 additions on the device, one Fermat inversion
 * each; all sums must be distinct from infinity and A_j != +-B_k). g: 1 or 2. Asynchronous on stream. */
CZK_API czk_status czk_cuda_gen_bases(int g, void *d_out, size_t n, const void *h_a, size_t na, const void *h_b,
                                      size_t nb, void *stream);
#ifdef __cplusplus
}
#endif

#endif
