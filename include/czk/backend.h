/* czk/backend.h: compute backends (ggml style): one backend instance per device (the CPU, each CUDA GPU), one vtable
 * per device kind behind an opaque czk_backend, and the Groth16 prover on a backend.
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
#include "czk/cs.h"
#include "czk/curve.h"
#include "czk/field.h"
#include "czk/groth16.h"
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

/* ------------------------------------------------------------------------------------------------ memory, streams */
CZK_API czk_status czk_backend_alloc(czk_backend *be, void **dptr, size_t bytes);
CZK_API void czk_backend_mem_free(czk_backend *be, void *dptr);
CZK_API czk_status czk_backend_host_alloc(czk_backend *be, void **hptr, size_t bytes); /* pinned on CUDA */
CZK_API void czk_backend_host_free(czk_backend *be, void *hptr);

CZK_API czk_status czk_backend_stream_new(czk_backend *be, czk_backend_stream **out);
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

typedef enum czk_backend_ntt_dir {
  CZK_BACKEND_NTT_FORWARD = 0,       /* A_j = sum_i a_i w^(ij) */
  CZK_BACKEND_NTT_INVERSE = 1,       /* a_i = n^-1 sum_j A_j w^(-ij) */
  CZK_BACKEND_NTT_COSET_FORWARD = 2, /* A_j = sum_i g^i a_i w^(ij), g = czk_fr_coset_generator() = 7 */
  CZK_BACKEND_NTT_COSET_INVERSE = 3, /* a_i = g^-i n^-1 sum_j A_j w^(-ij) */
} czk_backend_ntt_dir;
/* In place on d_data (2^log_n values, natural order in and out), log_n <= 28. */
CZK_API czk_status czk_backend_ntt(czk_backend *be, czk_fr *d_data, unsigned log_n, czk_fr_roots roots,
                                  czk_backend_ntt_dir dir, czk_backend_stream *s);
/* Groth16 H (bellperson convention, CZK_H_BELLPERSON of ntt.h) in place: d_a, d_b, d_c hold the evaluations over the
 * domain 2^log_n (bellman roots); afterwards d_a holds the coefficients of (a b - c) / (X^n - 1); b, c clobbered.
 * On CUDA: iNTT, coset NTT of each, pointwise (a b - c) / (g^n - 1), coset iNTT, chained on the stream. */
CZK_API czk_status czk_backend_h(czk_backend *be, czk_fr *d_a, czk_fr *d_b, czk_fr *d_c, unsigned log_n,
                                czk_backend_stream *s);

/* A CSR matrix resident on a backend (rows x cols, cols indexing the witness). Made from a host czk_csr. */
typedef struct czk_backend_csr czk_backend_csr;
CZK_API czk_status czk_backend_csr_upload(czk_backend *be, czk_backend_csr **out, const czk_csr *m, size_t rows,
                                         czk_backend_stream *s);
CZK_API void czk_backend_csr_free(czk_backend *be, czk_backend_csr *m);
/* d_out[j] = sum_k val[k] * d_w[col[k]] over row j's entries, j < rows. */
CZK_API czk_status czk_backend_matvec(czk_backend *be, czk_fr *d_out, const czk_backend_csr *m, const czk_fr *d_w,
                                     czk_backend_stream *s);

/* ------------------------------------------------------------------------------------------------ Groth16 */
/* A proving key as the backend sees it: decoded host queries (czk_groth16_pk_get_queries), their sizes, the vk, and
 * an identity for the device key cache (e.g. the czk_groth16_pk pointer; it must stay unique while the key lives:
 * call czk_backend_key_evict before reusing the memory of a freed key). */
typedef struct czk_backend_pk {
  const void *id;
  const czk_groth16_vk *vk;
  czk_groth16_pk_queries q;
  czk_groth16_pk_sizes s;
} czk_backend_pk;
CZK_API czk_status czk_backend_pk_from(czk_backend_pk *out, czk_groth16_pk *pk, czk_pool *pool);

/* Device key cache (CUDA): keys stay resident in device memory while they fit in the cache capacity (default: device
 * memory minus 16 GiB, env CZK_BACKEND_KEY_CACHE overrides, in bytes; 0 = never resident), least recently used
 * unreferenced keys are evicted first; a key in use by a proof is never evicted. A key that does not fit is streamed:
 * its bases go through device buffers in chunks from host memory (pinned when the key is), copies overlapped with the
 * MSMs. */
CZK_API czk_status czk_backend_key_set_capacity(czk_backend *be, uint64_t bytes);
CZK_API czk_status czk_backend_key_evict(czk_backend *be, const void *id); /* CZK_ERR_STATE while in use */
typedef struct czk_backend_cache_stats {
  uint64_t capacity, used; /* bytes */
  uint32_t keys, in_use;
  uint64_t hits, misses, evictions, streamed;
} czk_backend_cache_stats;
CZK_API czk_status czk_backend_cache_stats_get(czk_backend *be, czk_backend_cache_stats *out);

/* The two-phase prover on a backend (prove_finish is czk_groth16_prove_finish; czk_groth16_job_abort releases).
 * Same contract as czk_groth16_prove_start: consumes *as, checks sizes, refuses a non-satisfying witness
 * (CZK_ERR_UNSATISFIED) before any MSM. On CUDA it returns with the work in flight: a, b, c and w uploaded, H
 * (iNTT, coset NTT, pointwise, coset iNTT) and the five MSMs (G2 included) launched on streams owned by this job;
 * prove_finish waits on its events. Timings are device-event spans (they overlap: H and the witness MSMs run on two
 * streams). The key and shape must outlive the job. */
CZK_API czk_status czk_groth16_prove_start_on(czk_groth16_job **out, czk_backend *be, czk_groth16_pk *pk,
                                              const czk_r1cs *shape, czk_groth16_assignment *as, czk_pool *pool);
CZK_API czk_status czk_groth16_prove_start_key(czk_groth16_job **out, czk_backend *be, const czk_backend_pk *key,
                                               const czk_r1cs *shape, czk_groth16_assignment *as, czk_pool *pool);

#endif
