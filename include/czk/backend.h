/* czk/backend.h: compute backends (ggml style): one backend instance per device (the CPU, each CUDA GPU), one vtable
 * per device kind behind an opaque czk_backend. A backend offers primitives only (memory, copies, streams/events, MSM
 * G1/G2 over device-resident or host bases, NTT/coset, H, CSR mat-vec, gather); it knows nothing of Groth16,
 * circuits, keys or jobs (the prover over these primitives is src/groth16).
 *
 * Devices: czk_backend_enumerate() returns the CPU backend ("cpu") followed by one backend per usable CUDA device
 * ("cuda:0", "cuda:1", ...), minus those named in an exclude list (an exact name, or a kind: "cuda" drops every GPU,
 * "cpu" the CPU). Zero GPUs is a normal state (a CPU-only build, no driver, no device): the list then holds only the
 * CPU, or nothing when the CPU is excluded too.
 *
 * Memory model: "device memory" is what alloc returns (host heap on the CPU backend, cudaMalloc on CUDA); "host
 * memory" for transfers is best allocated with host_alloc (pinned on CUDA: copies are then truly asynchronous).
 * Every operation takes device pointers (d_*) and a stream; it is asynchronous on that stream (the CPU backend runs it
 * synchronously on its pool and its streams/events are trivially complete). Results written to host memory (MSM
 * sums) are valid once the stream is synchronized or an event recorded after the operation has completed.
 * Values: czk_fr in Montgomery form (what the prover holds), affine bases with infinity as (0, 0), results Jacobian.
 *
 * Concurrency: a backend is thread-safe; a stream must be used by one host thread at a time (each GPU worker owns its
 * streams). No operation synchronizes the whole device. Operations on different streams run concurrently.
 *
 * Errors: every device call is checked; a failure is logged (the call, file:line and the driver's message) and
 * returned as a status (CZK_ERR_DEVICE, CZK_ERR_NOMEM for device allocations). When a device reports a sticky error
 * (its context is unusable), its backend is quarantined: every later call returns CZK_ERR_DEVICE at once and
 * czk_backend_quarantined() says so; other backends and the process keep running. */
#ifndef CZK_BACKEND_H
#define CZK_BACKEND_H

#include "czk/common.h"
#include "czk/curve.h"
#include "czk/field.h"
#include "czk/ntt.h"
#include "czk/pool.h"
#include "czk/status.h"

typedef struct czk_backend czk_backend;
typedef struct czk_backend_stream czk_backend_stream;
typedef struct czk_backend_event czk_backend_event;

typedef enum czk_backend_kind { CZK_BACKEND_CPU = 0, CZK_BACKEND_CUDA = 1 } czk_backend_kind;

typedef struct czk_backend_props {
  czk_backend_kind kind;
  int device;           /* ordinal within the kind (0 for the CPU) */
  char name[32];        /* "cpu", "cuda:0" */
  char description[160]; /* "NVIDIA H200, sm_90, 132 SMs, 139.8 GiB", "x86-64, 16 threads" */
  uint64_t mem_total;   /* bytes of device memory (host RAM for the CPU; 0 = unknown) */
  uint64_t mem_free;    /* at the time of the call (0 = unknown) */
  unsigned units;       /* SMs / threads */
  uint64_t mem_bandwidth; /* peak bytes/s of the device's memory (0 = unknown; the CPU backend reports 0) */
  bool host_memory;     /* device pointers are host pointers and every operation completes before it returns (the
                           CPU backend): callers may hand host arrays to operations directly, no staging or copies */
} czk_backend_props;

/* ------------------------------------------------------------------------------------------------ devices */
/* All usable backends minus the excluded ones (exclude: n_exclude names or kinds, may be NULL). *out is a malloc'd
 * array of *n backends (free each with czk_backend_free, then the array with free()). */
CZK_API czk_status czk_backend_enumerate(czk_backend ***out, size_t *n, const char *const *exclude, size_t n_exclude);
/* One backend by name ("cpu", "cuda:N"). CZK_ERR_NO_DEVICE when that device does not exist / is unusable. The CPU
 * backend runs its operations on `pool` (NULL = the default pool). */
CZK_API czk_status czk_backend_open(czk_backend **out, const char *name, czk_pool *pool);
CZK_API void czk_backend_free(czk_backend *be);
CZK_API czk_status czk_backend_get_props(czk_backend *be, czk_backend_props *out);
CZK_API const char *czk_backend_name(const czk_backend *be);
CZK_API czk_backend_kind czk_backend_get_kind(const czk_backend *be);
CZK_API bool czk_backend_quarantined(const czk_backend *be);
/* props.host_memory without a device query (cheap: for per-proof decisions). */
CZK_API bool czk_backend_host_memory(const czk_backend *be);

/* Device memory actually used, measured on the device: czk_backend_mem_watch starts a thread that samples the
 * device's memory in use (total - free, as the driver reports it: every process's) every 10 ms until the backend is
 * freed; czk_backend_mem_peak is the highest sample so far (0 before the first), _reset starts over. A host-memory
 * backend has none (CZK_ERR_UNSUPPORTED). */
CZK_API czk_status czk_backend_mem_watch(czk_backend *be);
CZK_API uint64_t czk_backend_mem_peak(czk_backend *be);
CZK_API void czk_backend_mem_peak_reset(czk_backend *be);

/* ------------------------------------------------------------------------------------------------ memory, streams */
CZK_API czk_status czk_backend_alloc(czk_backend *be, void **dptr, size_t bytes);
CZK_API void czk_backend_mem_free(czk_backend *be, void *dptr);
CZK_API czk_status czk_backend_host_alloc(czk_backend *be, void **hptr, size_t bytes); /* pinned on CUDA */
CZK_API void czk_backend_host_free(czk_backend *be, void *hptr);

/* Pin existing host memory for fast asynchronous copies (CUDA: cudaHostRegister, mapped, read-only where the host
 * offers it); a host-memory backend only records the range. Pages already registered are refused on every backend
 * (CZK_ERR_UNSUPPORTED, as is any refusal of the driver). Unregister (the pointer registered) before the memory goes
 * away. */
CZK_API czk_status czk_backend_host_register(czk_backend *be, const void *hptr, size_t bytes);
CZK_API void czk_backend_host_unregister(czk_backend *be, const void *hptr);

CZK_API czk_status czk_backend_stream_new(czk_backend *be, czk_backend_stream **out);
/* A stream whose work the device schedules first (CUDA: the greatest stream priority); else as stream_new. */
CZK_API czk_status czk_backend_stream_new_urgent(czk_backend *be, czk_backend_stream **out);
/* A stream whose work the device schedules before plain streams' and after urgent ones' (CUDA: one priority level
 * above the least, where the device has three levels or more; else the least); else as stream_new. */
CZK_API czk_status czk_backend_stream_new_raised(czk_backend *be, czk_backend_stream **out);
CZK_API void czk_backend_stream_free(czk_backend *be, czk_backend_stream *s);
CZK_API czk_status czk_backend_stream_sync(czk_backend *be, czk_backend_stream *s);
CZK_API czk_status czk_backend_event_new(czk_backend *be, czk_backend_event **out);
CZK_API void czk_backend_event_free(czk_backend *be, czk_backend_event *e);
CZK_API czk_status czk_backend_event_record(czk_backend *be, czk_backend_event *e, czk_backend_stream *s);
/* Later work on s waits for e (no host wait). */
CZK_API czk_status czk_backend_stream_wait(czk_backend *be, czk_backend_stream *s, czk_backend_event *e);
CZK_API czk_status czk_backend_event_sync(czk_backend *be, czk_backend_event *e);
/* Milliseconds between two completed events (0 on the CPU backend). */
CZK_API czk_status czk_backend_event_elapsed(czk_backend *be, float *ms, czk_backend_event *from,
                                             czk_backend_event *to);

CZK_API czk_status czk_backend_copy_htod(czk_backend *be, void *d_dst, const void *src, size_t bytes,
                                         czk_backend_stream *s);
CZK_API czk_status czk_backend_copy_dtoh(czk_backend *be, void *dst, const void *d_src, size_t bytes,
                                         czk_backend_stream *s);

/* ------------------------------------------------------------------------------------------------ operations */
/* out = sum_{i<n} scalars[i] * bases[i]; d_bases / d_scalars in device memory, scalars Montgomery. *out is host
 * memory, valid after a sync. Zero scalars, repeated bases and bases at infinity are handled; n = 0 gives infinity. */
CZK_API czk_status czk_backend_msm_g1(czk_backend *be, czk_g1 *out, const czk_g1_affine *d_bases,
                                     const czk_fr *d_scalars, size_t n, czk_backend_stream *s);
CZK_API czk_status czk_backend_msm_g2(czk_backend *be, czk_g2 *out, const czk_g2_affine *d_bases,
                                     const czk_fr *d_scalars, size_t n, czk_backend_stream *s);

/* MSM handles: scratch allocated once for up to n_max points over bases that stay where they are (device memory,
 * or host memory on a host-memory backend; the handle does not own them). run is asynchronous on the stream: *out
 * (a host czk_g1 / czk_g2) is valid after the stream passes the operation; successive runs of one handle must be on
 * one stream (they share scratch). n <= n_max uses the first n bases. */
typedef struct czk_backend_msm czk_backend_msm;
typedef enum czk_backend_group { CZK_BACKEND_G1 = 1, CZK_BACKEND_G2 = 2 } czk_backend_group;
CZK_API czk_status czk_backend_msm_new(czk_backend *be, czk_backend_msm **out, czk_backend_group g,
                                      const void *d_bases, size_t n_max);
CZK_API czk_status czk_backend_msm_run(czk_backend *be, czk_backend_msm *m, void *out, const czk_fr *d_scalars,
                                      size_t n, czk_backend_stream *s);
/* As czk_backend_msm_run over the handle's bases [base_off, base_off + n) (a resident query run in chunks). */
CZK_API czk_status czk_backend_msm_run_at(czk_backend *be, czk_backend_msm *m, void *out, size_t base_off,
                                         const czk_fr *d_scalars, size_t n, czk_backend_stream *s);
/* A series: the runs from one flagged CZK_BACKEND_MSM_FIRST to one flagged CZK_BACKEND_MSM_LAST (a run may be both),
 * through handles sharing one scratch (czk_backend_msm_share) on one stream, give the sum of their products in the
 * *out of the last run; every run of a series must be given the same out, which is valid after the stream passes the
 * last run (before that it may hold a partial sum or nothing). n_total: the points of the whole series (a hint for
 * its shape). On CUDA a series chooses one window width for all its points and reduces its buckets once (a query run
 * in chunks costs as one run over all of it); on the CPU each run adds its result to *out. */
enum { CZK_BACKEND_MSM_FIRST = 1u, CZK_BACKEND_MSM_LAST = 2u };
CZK_API czk_status czk_backend_msm_run_series(czk_backend *be, czk_backend_msm *m, void *out, size_t base_off,
                                              const czk_fr *d_scalars, size_t n, unsigned series, size_t n_total,
                                              czk_backend_stream *s);
CZK_API void czk_backend_msm_free(czk_backend *be, czk_backend_msm *m);
/* m uses with's scratch from now on (its own is freed): for handles whose runs are all on one stream, so that they
 * hold one scratch (the largest any of them needs) instead of one each; a 32 GiB partition's four witness MSMs hold
 * ~6.5 GB instead of ~20 GB on a device. A backend whose handles keep no scratch between runs (the CPU's) accepts it
 * as it is. Either handle may be freed first. */
CZK_API czk_status czk_backend_msm_share(czk_backend *be, czk_backend_msm *m, czk_backend_msm *with);
/* The device memory plan of MSM scratch (a prove's memory is known and allocated before it runs, never discovered
 * by a failing allocation in the middle of one).
 * czk_backend_msm_plan_bytes: the device bytes of one scratch serving runs of up to needs[i].n points of group
 * needs[i].g for every i < k (handles sharing it through czk_backend_msm_share; k = 1 for a handle of its own),
 * allocating nothing. czk_backend_msm_reserve: grows m's scratch (its own, or the shared one) now to what any run of
 * up to n points needs, so that its runs allocate nothing. czk_backend_msm_set_dense: m's scalars are mostly neither 0
 * nor 1 (H values, a Poseidon-heavy witness): its runs skip the 0/1 split (on CUDA, the split's count read-back is a
 * host synchronization of the stream); results are the same. A backend whose handles keep no scratch (the CPU's)
 * plans 0 bytes and accepts the rest as it is. */
typedef struct czk_backend_msm_need {
  czk_backend_group g;
  size_t n;
  bool dense; /* the handle is marked dense (no 0/1 split) */
} czk_backend_msm_need;
CZK_API czk_status czk_backend_msm_plan_bytes(czk_backend *be, const czk_backend_msm_need *needs, size_t k,
                                              uint64_t *bytes);
CZK_API czk_status czk_backend_msm_reserve(czk_backend *be, czk_backend_msm *m, size_t n);
CZK_API void czk_backend_msm_set_dense(czk_backend *be, czk_backend_msm *m, bool dense);

typedef enum czk_backend_ntt_dir {
  CZK_BACKEND_NTT_FORWARD = 0,       /* A_j = sum_i a_i w^(ij) */
  CZK_BACKEND_NTT_INVERSE = 1,       /* a_i = n^-1 sum_j A_j w^(-ij) */
  CZK_BACKEND_NTT_COSET_FORWARD = 2, /* A_j = sum_i g^i a_i w^(ij), g = czk_fr_coset_generator() = 7 */
  CZK_BACKEND_NTT_COSET_INVERSE = 3, /* a_i = g^-i n^-1 sum_j A_j w^(-ij) */
} czk_backend_ntt_dir;
/* In place on d_data (2^log_n values, natural order in and out), log_n <= 28. */
CZK_API czk_status czk_backend_ntt(czk_backend *be, czk_fr *d_data, unsigned log_n, czk_fr_roots roots,
                                  czk_backend_ntt_dir dir, czk_backend_stream *s);
/* Groth16 H in place over the domain 2^log_n (conventions of czk_ntt_h, ntt.h): d_a, d_b, d_c hold the evaluations;
 * afterwards d_a holds H's values for the MSM with the key's h query; b, c are clobbered.
 *   CZK_H_BELLPERSON (bellman roots): iNTT, coset NTT (g = 7) of each, (a b - c) / (g^n - 1), coset iNTT: the
 *     coefficients of (a b - c) / (X^n - 1); the h query has n - 1 points.
 *   CZK_H_SNARKJS (snarkjs roots): iNTT, then evaluation on the odd coset w_2n <w_n> of each, a b - c there; the
 *     zkey's h query has n points. */
CZK_API czk_status czk_backend_h(czk_backend *be, czk_fr *d_a, czk_fr *d_b, czk_fr *d_c, unsigned log_n,
                                czk_h_kind kind, czk_backend_stream *s);
/* H's tables (the NTT plan of 2^log_n for the key's H mode): czk_backend_h_plan_bytes, the device bytes they would
 * add (0 once they exist); czk_backend_h_prepare makes them now (else the first H does); czk_backend_tables_bytes,
 * the device bytes of every such table the backend holds (they live as long as the backend). */
/* H over two buffers, one step at a time (ntt.h czk_h_step; same conventions and results as czk_backend_h, which is
 * PREP a, b, c; MUL a b; FINISH a c): a prover that cannot hold a, b and c at once computes them one after another. */
CZK_API czk_status czk_backend_h_step(czk_backend *be, czk_h_step step, czk_fr *d_x, const czk_fr *d_y, unsigned log_n,
                                     czk_h_kind kind, czk_backend_stream *s);
CZK_API uint64_t czk_backend_h_plan_bytes(czk_backend *be, unsigned log_n, czk_h_kind kind);
CZK_API czk_status czk_backend_h_prepare(czk_backend *be, unsigned log_n, czk_h_kind kind);
CZK_API uint64_t czk_backend_tables_bytes(czk_backend *be);
/* Compact NTT tables (CUDA: czk_cuda_ntt_new_ex's compact plans, ~36 MiB instead of 8 GiB at 2^27, transforms
 * bit-identical and a little slower): when set, the plans the backend makes from then on are compact and
 * czk_backend_h_plan_bytes counts those; plans already made stay as they are (czk_backend_tables_bytes counts each
 * as it is). Off by default; a no-op on the CPU backend (czk_backend_compact_tables stays false there). */
/* The device memory below which the daemon and the benches keep compact NTT tables (a 2^27 prove then fits 16 GB;
 * the full tables' 8 GiB at 2^27 buy ~1% of NTT time, measured on an H100: every card takes the compact ones). */
#define CZK__COMPACT_TABLES_BELOW (1ull << 50)
CZK_API void czk_backend_set_compact_tables(czk_backend *be, bool compact);
CZK_API bool czk_backend_compact_tables(const czk_backend *be);
/* d_out[j] = d_in[d_idx[j]], j < n (the witness entries of a density-filtered query). */
CZK_API czk_status czk_backend_gather(czk_backend *be, czk_fr *d_out, const czk_fr *d_in, const uint32_t *d_idx,
                                     size_t n, czk_backend_stream *s);
/* A streamed MSM chunk's points with non-zero scalars, packed (zeros cost an MSM nothing, so their bases need not be
 * copied): with s_j = d_w[d_idx[j]] (d_idx NULL: d_w[j]), j < n, the m non-zero s_j in order go to d_sc_out[0..m),
 * their points h_bases[j] (base_size bytes each, a multiple of 4) to d_bases_out[0..m), d_sc_out[m..n) become zero
 * and m * base_size is added to *d_bytes (a device u64). An MSM over (d_bases_out, d_sc_out, n) then equals the
 * chunk's. h_bases is host memory registered with the backend (czk_backend_host_register), read by the device in
 * place; d_tmp holds czk_backend_pack_nonzero_tmp(be, n) bytes of device memory; d_w and d_sc_out are 16-byte
 * aligned (as allocations and Fr offsets of them are), n < 2^32. CZK_ERR_UNSUPPORTED where the backend cannot read
 * that memory in place (the caller copies the chunk instead). */
CZK_API czk_status czk_backend_pack_nonzero(czk_backend *be, void *d_bases_out, czk_fr *d_sc_out, const void *h_bases,
                                           size_t base_size, const czk_fr *d_w, const uint32_t *d_idx, size_t n,
                                           void *d_tmp, uint64_t *d_bytes, czk_backend_stream *s);
CZK_API size_t czk_backend_pack_nonzero_tmp(czk_backend *be, size_t n);

/* A CSR matrix resident on a backend (rows x cols, cols indexing the witness), copied from host arrays: row_ptr has
 * rows + 1 entries (row_ptr[rows] = nnz), col and val nnz entries. The host arrays may go once the call returns. */
typedef struct czk_backend_csr czk_backend_csr;
CZK_API czk_status czk_backend_csr_upload(czk_backend *be, czk_backend_csr **out, const uint64_t *row_ptr,
                                         const uint32_t *col, const czk_fr *val, size_t rows, czk_backend_stream *s);
CZK_API void czk_backend_csr_free(czk_backend *be, czk_backend_csr *m);
/* d_out[j] = sum_k val[k] * d_w[col[k]] over row j's entries, j < rows. */
CZK_API czk_status czk_backend_matvec(czk_backend *be, czk_fr *d_out, const czk_backend_csr *m, const czk_fr *d_w,
                                     czk_backend_stream *s);

/* A compiled circuit's matrices resident on a backend (czk/compiled.h: template rows repeated per segment; the host
 * arrays below are czk_compiled's, described here in plain terms so the backend stays circuit-agnostic). Optional:
 * backends without it return CZK_ERR_UNSUPPORTED (the caller then runs czk_cc_matvec, its CPU twin, on the host). */
typedef struct czk_backend_tseg {
  uint64_t row0;
  uint32_t tmpl_row0, n_rows, reps, in_stride, aux_stride, table_width;
  uint64_t table_off;
} czk_backend_tseg;
typedef struct czk_backend_compiled_desc {
  uint32_t n_segments;
  const czk_backend_tseg *seg;
  uint32_t n_tmpl_rows;
  const uint32_t *row_ptr[3], *col[3], *ref[3]; /* A, B, C: n_tmpl_rows + 1, nnz[k], nnz[k] */
  uint64_t nnz[3];
  uint32_t n_coef;
  const czk_fr *coef;
  uint32_t one_index, minus_one_index;
  uint64_t table_len;
  const uint32_t *table;
  uint64_t n_rows; /* output rows (the segments' total) */
} czk_backend_compiled_desc;
typedef struct czk_backend_compiled czk_backend_compiled;
/* Copies the arrays to the backend (synchronous on s: the host arrays may go once the call returns). */
CZK_API czk_status czk_backend_compiled_upload(czk_backend *be, czk_backend_compiled **out,
                                              const czk_backend_compiled_desc *d, czk_backend_stream *s);
CZK_API void czk_backend_compiled_free(czk_backend *be, czk_backend_compiled *m);
/* d_a/d_b/d_c[row] = <A/B/C row, d_w> for every row < n_rows (device arrays; asynchronous on s); a NULL output is
 * skipped (not all three). */
CZK_API czk_status czk_backend_compiled_matvec(czk_backend *be, czk_fr *d_a, czk_fr *d_b, czk_fr *d_c,
                                              const czk_backend_compiled *m, const czk_fr *d_w,
                                              czk_backend_stream *s);
/* The R1CS check of rows < n_check (<A row, w> <B row, w> = <C row, w>) without storing a, b, c: a failing row sets
 * the device u32 *d_flag (reset by this call). CZK_ERR_UNSUPPORTED without a device implementation. */
CZK_API czk_status czk_backend_compiled_check(czk_backend *be, const czk_backend_compiled *m, const czk_fr *d_w,
                                             uint64_t n_check, uint32_t *d_flag, czk_backend_stream *s);
/* The same check in the same pass as czk_backend_compiled_matvec of the outputs given (any of d_a, d_b, d_c; every
 * row stored): a low-memory H takes a and b from its check's pass instead of three passes. */
CZK_API czk_status czk_backend_compiled_check_store(czk_backend *be, const czk_backend_compiled *m, const czk_fr *d_w,
                                                   uint64_t n_check, uint32_t *d_flag, czk_fr *d_a, czk_fr *d_b,
                                                   czk_fr *d_c, czk_backend_stream *s);

/* After czk_backend_compiled_matvec (device arrays, asynchronous on s): the prover's input rows (n_inputs rows from
 * n_user on: a = the input w[i], b = c = 0), zeros up to n_domain, and the check a b = c of every row < n_check; a
 * failing row sets the device u32 *d_flag (reset by this call when n_check > 0; read it back after s). A NULL vector
 * is skipped (then n_check must be 0). CZK_ERR_UNSUPPORTED without a device implementation. */
CZK_API czk_status czk_backend_abc_finish(czk_backend *be, czk_fr *d_a, czk_fr *d_b, czk_fr *d_c, const czk_fr *d_w,
                                         uint64_t n_user, uint64_t n_inputs, uint64_t n_domain, uint64_t n_check,
                                         uint32_t *d_flag, czk_backend_stream *s);

/* ---- packed witness upload. A Filecoin witness is mostly 0 and 1 (SHA-256 bits, index bits: a 32 GiB PoRep
 * partition's is 51 % zeros, 47 % ones), so it travels packed: 2 bits per value plus the other values. Layout for n
 * values (n < 2^32), nc = ceil(n / 1024) chunks of 1024 values and n_other values that are neither 0 nor 1, byte
 * offsets from the start of the buffer (u32 little endian; bits at and beyond n are 0):
 *   [0, 128 nc)                    "other" bits: bit i of word 32 c + k is set when value 1024 c + 32 k + i is other
 *   [128 nc, 256 nc)               "one" bits: set when the value is 1 (Montgomery one)
 *   [256 nc, 260 nc)               per chunk, the index of its first value in the list of other values
 *   [CZK_WPACK_VALS(nc), + 32 n_other)   the other values (czk_fr), in order
 * The buffer holds czk_backend_wpack_bytes(n, n_other) bytes. */
#define CZK_WPACK_CHUNK 1024u
#define CZK_WPACK_VALS(nc) ((((size_t)(nc) * 260u) + 31u) & ~(size_t)31u)
CZK_API size_t czk_backend_wpack_bytes(size_t n, size_t n_other);
/* Pack w[0..n) into dst (cap bytes) on the host, on the pool's threads (pool may be NULL). *n_other gets the count of
 * other values. CZK_ERR_LIMIT (dst untouched past the bit maps) when more than max_other values are other: the caller
 * then sends w as it is; CZK_ERR_INVALID_ARG when n >= 2^32 or cap is smaller than the packed size. */
CZK_API czk_status czk_backend_wpack(void *dst, size_t cap, const czk_fr *w, size_t n, size_t max_other,
                                    czk_pool *pool, size_t *n_other);
/* The host's unpacking (the reference for the device's, and the CPU backend's): w[0..n) from a packed buffer of
 * bytes bytes. CZK_ERR_FORMAT when the buffer is inconsistent (sizes, chunk indices, bits beyond n). */
CZK_API czk_status czk_backend_wunpack_host(czk_fr *w, const void *src, size_t bytes, size_t n, size_t n_other);
/* d_w[0..n) from the packed buffer d_src on the backend (asynchronous on s; the CPU backend unpacks at once). The
 * device trusts the buffer's chunk indices only within n_other (a value past it reads as 0, which the row check then
 * refuses). */
CZK_API czk_status czk_backend_wunpack(czk_backend *be, czk_fr *d_w, const void *d_src, size_t n, size_t n_other,
                                      czk_backend_stream *s);

/* Setup's fixed-base batch multiplication: out[i] = affine(k[i] G) for the generator G of group g, i < n; host arrays
 * (k Montgomery), synchronous. Variable time in the scalars (see czk_g1_fixed_base_mul_batch_vartime). Backends
 * without a device implementation return CZK_ERR_UNSUPPORTED (the caller then uses the CPU's). */
CZK_API czk_status czk_backend_fixed_base(czk_backend *be, czk_backend_group g, void *out, const czk_fr *k, size_t n);

#endif
