/* czk/groth16.h: Groth16 over BLS12-381: proofs, verifying keys, proving keys (bellperson .params/.vk), setup for
 * circuits we own, the one two-phase prover over any compute backend (czk/backend.h) and the verifier.
 *
 * Equations (bellperson conventions; w = witness, inputs w[0..n_in) with w[0] = 1, aux after; r, s random):
 *   A = alpha + sum_i w_i A_i(tau) + r delta                       (G1)
 *   B = beta  + sum_i w_i B_i(tau) + s delta                       (G2, and in G1 for C)
 *   C = sum_aux w_j L_j + sum_i h_i H_i + s A + r B_g1 - r s delta (G1)
 *   verify: e(A, B) = e(alpha, beta) e(IC(x), gamma) e(C, delta), IC(x) = ic[0] + sum_i x_i ic[i+1].
 *
 * bellperson file layout (all points uncompressed zcash encoding, counts u32 big-endian):
 *   vk  = alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 | u32 n_ic | ic[n_ic]           (.vk = this only)
 *   .params = vk | u32 n_h | h (G1) | u32 n_l | l (G1) | u32 n_a | a (G1) | u32 n_b1 | b_g1 (G1) | u32 n_b2 | b_g2 (G2)
 *   h: domain-1 points; l: one per aux; a: every input then aux with A-density; b_g1/b_g2: inputs with B-density then
 *   aux with B-density (query points at infinity are filtered out by bellperson's generator = the density rule).
 *
 * Proof encoding: A (G1, 48 B) | B (G2, 96 B) | C (G1, 48 B), compressed, zcash flag bits: 192 bytes. */
#ifndef CZK_GROTH16_H
#define CZK_GROTH16_H

#include "czk/backend.h"
#include "czk/compiled.h"
#include "czk/cs.h"
#include "czk/curve.h"
#include "czk/pool.h"

#define CZK_GROTH16_PROOF_BYTES 192

typedef struct czk_groth16_proof {
  czk_g1_affine a;
  czk_g2_affine b;
  czk_g1_affine c;
} czk_groth16_proof;

/* Verifying key. ic has n_ic = (public inputs) + 1 points (ic[0] pairs with ONE); heap-owned by the vk. */
typedef struct czk_groth16_vk {
  czk_g1_affine alpha_g1, beta_g1;
  czk_g2_affine beta_g2, gamma_g2;
  czk_g1_affine delta_g1;
  czk_g2_affine delta_g2;
  size_t n_ic;
  czk_g1_affine *ic;
} czk_groth16_vk;

/* ------------------------------------------------------------------------------------------------ proofs */
CZK_API void czk_groth16_proof_encode(uint8_t out[CZK_GROTH16_PROOF_BYTES], const czk_groth16_proof *p);
/* Full checks (flags, canonical, on curve, subgroup); the status names the first failure. */
CZK_API czk_status czk_groth16_proof_decode(czk_groth16_proof *p, const uint8_t in[CZK_GROTH16_PROOF_BYTES]);

/* ------------------------------------------------------------------------------------------------ verifying keys */
/* Parse a bellperson vk block from buf[0..len); *used = bytes consumed (may be NULL). Checks every point (on curve,
 * subgroup, ic points not at infinity) and the count against len; never reads past len. */
CZK_API czk_status czk_groth16_vk_parse(czk_groth16_vk *vk, const uint8_t *buf, size_t len, size_t *used);
/* Read a .vk file (exactly one vk block; trailing bytes are CZK_ERR_FORMAT) or the vk at the start of a .params. */
CZK_API czk_status czk_groth16_vk_read(czk_groth16_vk *vk, const char *path, bool allow_trailing);
CZK_API size_t czk_groth16_vk_size(const czk_groth16_vk *vk); /* bytes of the encoded block */
CZK_API void czk_groth16_vk_encode(uint8_t *out, const czk_groth16_vk *vk);   /* czk_groth16_vk_size bytes */
CZK_API czk_status czk_groth16_vk_write(const czk_groth16_vk *vk, const char *path);
CZK_API czk_status czk_groth16_vk_copy(czk_groth16_vk *dst, const czk_groth16_vk *src);
CZK_API void czk_groth16_vk_free(czk_groth16_vk *vk);

/* ------------------------------------------------------------------------------------------------ verification */
/* inputs: the public inputs without ONE (n_inputs = vk->n_ic - 1, else CZK_ERR_SIZE_MISMATCH).
 * CZK_OK or CZK_ERR_VERIFY_FAILED. Public data: variable time. Cost: one MSM of n_inputs + a 4-pairing product. */
CZK_API czk_status czk_groth16_verify(const czk_groth16_vk *vk, const czk_groth16_proof *proof, const czk_fr *inputs,
                                      size_t n_inputs);
/* Batch: proofs[k] with inputs[k*n_inputs ..]; random linear combination (OS CSPRNG) so one final exponentiation
 * covers all: prod_k e(z_k A_k, B_k) = e(sum z_k alpha, beta) e(sum z_k IC_k, gamma) e(sum z_k C_k, delta).
 * CZK_OK only when every proof is valid (with overwhelming probability). */
CZK_API czk_status czk_groth16_verify_batch(const czk_groth16_vk *vk, const czk_groth16_proof *proofs,
                                            const czk_fr *inputs, size_t n_inputs, size_t n_proofs);

/* ------------------------------------------------------------------------------------------------ proving keys */
typedef struct czk_groth16_pk czk_groth16_pk;

/* Memory-map a bellperson .params file; validates the layout (every count against the file size, nothing past the
 * end; trailing bytes are CZK_ERR_FORMAT) and fully checks the vk points. Query points are decoded (and checked to be
 * on the curve, not at infinity) lazily by czk_groth16_pk_prepare (or the first proof). */
CZK_API czk_status czk_groth16_pk_open(czk_groth16_pk **out, const char *path);
/* Decode the queries into affine Montgomery arrays on the pool (idempotent, thread-safe). */
CZK_API czk_status czk_groth16_pk_prepare(czk_groth16_pk *pk, czk_pool *pool);
CZK_API void czk_groth16_pk_close(czk_groth16_pk *pk);
CZK_API const czk_groth16_vk *czk_groth16_pk_vk(const czk_groth16_pk *pk);

/* Query sizes (points) as stored in the file. */
typedef struct czk_groth16_pk_sizes {
  size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
} czk_groth16_pk_sizes;
CZK_API void czk_groth16_pk_get_sizes(const czk_groth16_pk *pk, czk_groth16_pk_sizes *s);
/* Decoded queries (NULL before prepare). For backends that upload keys. */
typedef struct czk_groth16_pk_queries {
  const czk_g1_affine *h, *l, *a, *b_g1;
  const czk_g2_affine *b_g2;
} czk_groth16_pk_queries;
CZK_API czk_status czk_groth16_pk_get_queries(const czk_groth16_pk *pk, czk_groth16_pk_queries *q);

/* Write a .params file from in-memory parts (points must be affine; no query point may be infinity). */
CZK_API czk_status czk_groth16_params_write(const char *path, const czk_groth16_vk *vk, const czk_groth16_pk_queries *q,
                                            const czk_groth16_pk_sizes *s);

/* ------------------------------------------------------------------------------------------------ setup */
/* Keys for a circuit shape with fresh toxic waste (tau, alpha, beta, gamma, delta from czk_fr_random, wiped after
 * use); writes params_path (.params) and vk_path (.vk, may be NULL). Multi-threaded on the pool (NULL = default).
 * Cost: n_h + n_l + n_a + n_b_g1 fixed-base G1 multiplications, n_b_g2 in G2 (batched, variable time: ~16 affine
 * additions per point; see setup.c for why that is acceptable for the toxic waste), O(nnz) field ops. A 2^22 key
 * (PoRep 2 KiB, ~10.2M G1 + 0.7M G2 points) takes 27-51 s on 2 cores (docs/benchmarks.md). Outlines: CZK_ERR_STATE. */
CZK_API czk_status czk_groth16_setup(const czk_r1cs *shape, const char *params_path, const char *vk_path,
                                     czk_pool *pool);

/* The general form: where the multiplications run, how an outline's circuit is walked, and where the key goes.
 *   be:    a backend with a fixed-base implementation (CUDA) does every query multiplication on its device; NULL or
 *          a backend without one (CPU): the pool, as czk_groth16_setup.
 *   synth: for an outline shape (a circuit too large to record as matrices, e.g. a 32 GiB PoRep partition): walks the
 *          circuit once into the QAP accumulator it is given (czk_cs_qap_new; the synthesis a kind uses for its shape,
 *          without values); its counts must equal the outline's. Ignored for a recorded shape.
 *   toxic: NULL = fresh OS randomness (the only form for real keys); else tau, alpha, beta, gamma, delta given by the
 *          caller (tests: a fixed seed shows two backends' keys identical). */
typedef struct czk_groth16_setup_opts {
  czk_pool *pool;
  czk_backend *be;
  czk_status (*synth)(void *ctx, czk_cs *cs);
  void *synth_ctx;
  const czk_fr *toxic;
} czk_groth16_setup_opts;

/* A key made in memory (heap arrays owned by it; sizes as in a .params file). */
typedef struct czk_groth16_key_mem {
  czk_groth16_vk vk;
  czk_g1_affine *h, *l, *a, *b_g1;
  czk_g2_affine *b_g2;
  czk_groth16_pk_sizes s;
} czk_groth16_key_mem;
CZK_API czk_status czk_groth16_setup_mem(czk_groth16_key_mem *out, const czk_r1cs *shape,
                                         const czk_groth16_setup_opts *o);
CZK_API void czk_groth16_key_mem_queries(const czk_groth16_key_mem *k, czk_groth16_pk_queries *q);
CZK_API void czk_groth16_key_mem_free(czk_groth16_key_mem *k);
/* setup_mem, then params_path (.params) and vk_path (.vk, may be NULL) written (atomically) and the memory freed. */
CZK_API czk_status czk_groth16_setup_ex(const czk_r1cs *shape, const char *params_path, const char *vk_path,
                                        const czk_groth16_setup_opts *o);

/* ------------------------------------------------------------------------------------------------ proving */
/* One proof's synthesized assignment: the witness and the evaluations a = A·w, b = B·w, c = C·w, each of length
 * n_domain (zero past the constraint count); rows < n_rows are checked (a_j b_j = c_j) before any MSM (0: none, e.g.
 * the snarkjs flavour where c = a b by construction). Ownership passes to prove_start, which frees a, b, c as soon as
 * they are on the device (or H is computed) and w when the MSMs are done. */
typedef struct czk_groth16_assignment {
  czk_witness w;
  czk_fr *a, *b, *c;
  size_t n_domain;
  size_t n_rows;
  /* Witness-only mode (a, b, c NULL): the prover computes a, b, c from w over the compiled circuit cc (borrowed; its
   * counts must be the key's): on a device with its copy dcc there (borrowed, of the same backend; when NULL a copy is
   * made for this proof), on a host-memory backend with czk_cc_matvec; plus the input rows and the zero tail. Rows <
   * n_rows (at most the circuit's) are checked; on a device the check runs there and a failing row is reported by
   * prove_finish (CZK_ERR_UNSATISFIED) rather than prove_start. */
  const czk_compiled *cc;
  const czk_backend_compiled *dcc;
  /* Witness-only mode, optional: w packed ahead of the prove by czk_groth16_assignment_pack (the czk_backend_wpack
   * format, wpack_other values neither 0 nor 1, wpack_bytes in all; owned, freed with the assignment). A device prove
   * then sends this copy instead of packing w on its own thread; w stays (a host backend or a dense fallback reads
   * it). */
  void *wpack;
  size_t wpack_bytes, wpack_other;
  /* w is known to be dense (more than 3/4 values neither 0 nor 1; set by czk_groth16_assignment_pack, or by a caller
   * that knows its circuit): a device prove copies it as it is, without a packing pass on its own thread */
  bool wpack_dense;
} czk_groth16_assignment;

/* w (consumed: moved into *out) -> a, b, c over the shape's CSR (sparse mat-vec on the pool). On failure w is freed. */
CZK_API czk_status czk_groth16_synthesize(czk_groth16_assignment *out, const czk_r1cs *shape, czk_witness *w,
                                          czk_pool *pool);
CZK_API void czk_groth16_assignment_free(czk_groth16_assignment *as);
/* Witness-only mode (a, b, c NULL): pack w now (on the pool) into as->wpack, so that the device prove that follows
 * only copies it; the synthesis stage calls this, off the device worker's critical path. Leaves wpack NULL (and
 * returns CZK_OK) when packing would not pay: a witness with more than 3/4 values neither 0 nor 1 (then wpack_dense
 * is set: the prove sends it as it is), or CZK_NO_WITNESS_PACK=1. The copy takes at most ~0.78 of w's bytes (~2.5 % for
 * a 32 GiB PoRep partition). CZK_ERR_INVALID_ARG when as is not witness-only; CZK_ERR_NOMEM. */
CZK_API czk_status czk_groth16_assignment_pack(czk_groth16_assignment *as, czk_pool *pool);
/* A compiled circuit's copy on a device backend, for witness-only proofs (czk_groth16_assignment.dcc); free with
 * czk_backend_compiled_free. CZK_ERR_UNSUPPORTED on a backend without the device mat-vec. */
CZK_API czk_status czk_groth16_compiled_upload(czk_backend_compiled **out, czk_backend *be, const czk_compiled *cc);

/* A proving key as the prover sees it (the key adapter's output): the five queries (h, l, a, b_g1 in G1, b_g2 in G2),
 * which witness entries each query multiplies (density index lists, or all of them), the H mode and the vk.
 *   bellperson flavour (czk_groth16_key_from_pk): h has n - 1 points, H = coefficients of (ab - c)/(X^n - 1);
 *     a = inputs + aux by A-density; b = inputs and aux by B-density (index lists from the shape's densities).
 *   snarkjs flavour (czk_groth16_key_from_zkey, circom.h): h has n points (H on the odd coset), a/b over every
 *     variable. Only these two adapters and the H mode differ; the prover is one. */
typedef struct czk_groth16_key czk_groth16_key;
/* Borrows pk (prepared here) and shape: both must outlive the key. Checks every query size against the shape. */
CZK_API czk_status czk_groth16_key_from_pk(czk_groth16_key **out, czk_groth16_pk *pk, const czk_r1cs *shape,
                                           czk_pool *pool);
/* The same over query arrays at hand (bellperson layout, sizes as in a .params file; borrowed, must outlive the key);
 * vk is copied. For benchmarks and tests that build keys in memory. */
CZK_API czk_status czk_groth16_key_from_queries(czk_groth16_key **out, const czk_groth16_vk *vk,
                                                const czk_groth16_pk_queries *q, const czk_groth16_pk_sizes *s,
                                                const czk_r1cs *shape);
/* Frees the key (and the per-device resources the prover cached for it). No proof may be in flight with it. */
CZK_API void czk_groth16_key_free(czk_groth16_key *k);
CZK_API const czk_groth16_vk *czk_groth16_key_vk(const czk_groth16_key *k);
/* Bytes of the five queries (what a device copy holds, plus its index lists). */
CZK_API uint64_t czk_groth16_key_bytes(const czk_groth16_key *k);
/* Pin the host queries for fast copies to devices of backend `be` (CUDA: host registration; a host-memory backend:
 * nothing to do, CZK_ERR_UNSUPPORTED). Idempotent; undone by czk_groth16_key_free. */
CZK_API czk_status czk_groth16_key_pin(czk_groth16_key *k, czk_backend *be);
CZK_API bool czk_groth16_key_pinned(const czk_groth16_key *k);

/* A copy of a key in a backend's memory (queries and index lists). Made by the caller that owns key memory (the
 * engine's key cache); the prover only reads it. Free after every proof using it has finished. */
typedef struct czk_groth16_dkey czk_groth16_dkey;
CZK_API czk_status czk_groth16_key_upload(czk_groth16_dkey **out, const czk_groth16_key *k, czk_backend *be);
/* A partial copy: only the queries whose bit (1 << q, q = 0 h, 1 l, 2 a, 3 b_g1, 4 b_g2) is set in `mask`, and the
 * index lists; the others are streamed from the host key (pin it first) by compact lanes. mask 0x1f = the whole copy.
 * czk_groth16_key_copy_bytes: the device bytes of such a copy. */
#define CZK_GROTH16_Q_ALL 0x1fu
CZK_API czk_status czk_groth16_key_upload_partial(czk_groth16_dkey **out, const czk_groth16_key *k, czk_backend *be,
                                                  unsigned mask);
CZK_API uint64_t czk_groth16_key_copy_bytes(const czk_groth16_key *k, unsigned mask);
CZK_API unsigned czk_groth16_dkey_mask(const czk_groth16_dkey *dk);
CZK_API void czk_groth16_dkey_free(czk_groth16_dkey *dk);
CZK_API uint64_t czk_groth16_dkey_bytes(const czk_groth16_dkey *dk);

typedef struct czk_groth16_job czk_groth16_job;

/* The memory plan of one prove of `key` on backend `be` (from its device copy when `resident`, else streaming the
 * host queries), before it runs: lane, the device bytes of one lane (a/b/c, w, the gathered scalars, MSM scratch
 * sized for every run the prove makes, streaming slots; a lane is allocated in full when it is made and its runs
 * allocate nothing more); tables, the bytes H's tables for the key's domain would add on `be` (0 once they exist; they
 * stay as long as the backend); pinned, the lane's pinned host staging. witness_only: proves from a witness alone
 * (a/b/c from the compiled circuit on the device; the circuit's own device copy is not counted here). A host-memory
 * backend (the CPU) plans 0 device bytes. */
typedef struct czk_groth16_prove_plan {
  uint64_t lane, tables, pinned;
} czk_groth16_prove_plan;
CZK_API czk_status czk_groth16_plan_prove(czk_groth16_prove_plan *out, czk_backend *be, const czk_groth16_key *key,
                                          bool resident, bool witness_only);
/* Lane shapes. A full lane (the default) holds a, b, c, w and the gathered scalars at once, and runs H beside the
 * witness MSMs on two streams: fastest, ~39 GiB at 2^27. A compact lane holds w and two domain vectors (x, y: ~12 GiB
 * at 2^27): on s_h the row check (witness-only: storing a and b as it goes), then H over x and y one vector at a
 * time (a, b, c computed or copied one after another), then the h MSM; the witness MSMs (l, a, b_g1, b_g2) on s_w beside H (a lean lane: after h, on s_h too).
 * MSMs run over chunks of 2^chunk_log points (G2: half as many), each chunk's a / b scalars gathered into a chunk
 * buffer; bases of a resident query are read in place, those of a streamed one are copied chunk by chunk from the
 * pinned host copy into two slots per group on a copy stream, one chunk ahead of the MSMs. Proofs are the same. A partial device copy (czk_groth16_key_upload_partial) always proves in compact
 * lanes. chunk_log 0: CZK_GROTH16_COMPACT_CHUNK_LOG. */
#define CZK_GROTH16_COMPACT_CHUNK_LOG 22u /* compact lanes' chunks (with one bucket set per query across its chunks,
                                            smaller chunks cost little, and a 2^27 lane's MSM scratch is ~5 GiB
                                            instead of ~15 GiB at 2^24: two such lanes fit where one did) */
#define CZK_GROTH16_LEAN_CHUNK_LOG 21u    /* lean lanes' chunks: a 2^27 lean lane fits a 16 GB card's plan */
typedef struct czk_groth16_lane_opts {
  bool compact;
  unsigned chunk_log;
  bool lean; /* compact only: everything on one stream (less memory: no second MSM scratch, no buffer of its own
                for the witness MSMs); else the witness MSMs run on a second stream beside H, as in a full lane */
  /* Optional, lean lanes only (their one stream holds every MSM chunk in order): called before each MSM chunk from
   * the third on, once the chunk two before it has finished on the device, so that at most one chunk of this prove
   * is queued while the call lasts; the caller may hold the prove there while more urgent work uses the device (the
   * engine does while an urgent prove runs on it). Not part of the lane's shape. */
  void (*yield)(void *user);
  void *yield_user;
} czk_groth16_lane_opts;
/* The options of a lane shape at its default chunks: full (compact false), compact, or lean (compact and lean). */
static inline czk_groth16_lane_opts czk_groth16_lane_opts_of(bool compact, bool lean) {
  const czk_groth16_lane_opts o = {compact, lean ? CZK_GROTH16_LEAN_CHUNK_LOG : CZK_GROTH16_COMPACT_CHUNK_LOG,
                                   compact && lean, NULL, NULL};
  return o;
}
/* As czk_groth16_plan_prove for lanes of shape o (NULL: full) beside a copy holding the queries of dev_mask
 * (CZK_GROTH16_Q_ALL: resident, 0: streamed, else partial: compact lanes only). */
CZK_API czk_status czk_groth16_plan_prove_ex(czk_groth16_prove_plan *out, czk_backend *be, const czk_groth16_key *key,
                                             unsigned dev_mask, bool witness_only, const czk_groth16_lane_opts *o);
/* Frees the idle lanes (those no prove holds) of `key`'s streamed proves on `be`, or of the device copy `dkey` when
 * given; returns how many. The engine's key cache calls it when it needs their device memory. */
CZK_API size_t czk_groth16_lanes_trim(const czk_groth16_key *key, const czk_groth16_dkey *dkey, czk_backend *be);
/* Makes one lane for proves of `key` on `be` now (from the device copy `dkey` when given, else streaming), with H's
 * tables, and leaves it idle in the cache, so that a later prove allocates nothing: the engine warms a key's lanes when
 * it preloads the key onto a device. witness_only as in czk_groth16_plan_prove. A host-memory backend caches no lanes
 * (CZK_ERR_UNSUPPORTED). */
CZK_API czk_status czk_groth16_lane_warm(const czk_groth16_key *key, const czk_groth16_dkey *dkey, czk_backend *be,
                                         bool witness_only);
CZK_API czk_status czk_groth16_lane_warm_ex(const czk_groth16_key *key, const czk_groth16_dkey *dkey, czk_backend *be,
                                            bool witness_only, const czk_groth16_lane_opts *o);

/* Per-stage times of one proof (seconds), filled by finish: device-event spans on a device (they overlap: H and the
 * h MSM run on one stream, the witness MSMs on another; a streamed key reports all its MSMs in msm_h), wall times on
 * a host-memory backend. device: the proof's device-busy time, the union of its two streams' intervals (key
 * resident; a streamed key reports the longer stream), less upload_wait, 0 on a host-memory backend.
 * upload_wait: the time the device waited for the streamed bases' copies (queries not resident on the device, copied
 * chunk by chunk from pinned host memory): per chunk, from the moment its compute stream was ready for the chunk's
 * MSM to the end of the chunk's copy (device events), counted where no stream of the proof was busy meanwhile (a
 * compact lane's witness MSMs waiting beside H do not count); it lies inside the MSM spans (which include it) and not
 * in device. 0 for a resident key and on a host-memory backend. */
typedef struct czk_groth16_timings {
  double check, h, msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2, finish;
  double device;
  double abc; /* witness-only mode on a device: unpacking w and the a/b/c mat-vec (device events), else 0 */
  uint64_t upload_bytes; /* streamed bases (and a compact lane's index lists) copied from host memory for this proof
                            (a host-memory backend's compact lane counts its copies the same way) */
  bool compact;          /* proved in a compact lane (its MSM times are the one stream's spans, copies waited for) */
  double upload_wait;    /* seconds the device waited for upload_bytes' copies (above) */
} czk_groth16_timings;

/* Phase 1 on backend `be` with key `key`, from its device copy `dkey` when given (must belong to `be`), else from the
 * host queries (streamed to the device in chunks; used in place on a host-memory backend). Checks sizes, refuses a
 * non-satisfying witness (rows < n_rows) with CZK_ERR_UNSATISFIED before any MSM, then launches H and the five MSMs on
 * streams owned by this job (a device returns with the work in flight; the CPU backend has finished it). Consumes *as
 * in every case (freed on failure). key (and dkey) must outlive the job. */
CZK_API czk_status czk_groth16_prove_start(czk_groth16_job **out, czk_backend *be, const czk_groth16_key *key,
                                           const czk_groth16_dkey *dkey, czk_groth16_assignment *as, czk_pool *pool);
/* As czk_groth16_prove_start in a lane of shape o (NULL: full; a partial dkey: compact). */
CZK_API czk_status czk_groth16_prove_start_ex(czk_groth16_job **out, czk_backend *be, const czk_groth16_key *key,
                                              const czk_groth16_dkey *dkey, czk_groth16_assignment *as,
                                              czk_pool *pool, const czk_groth16_lane_opts *o);
/* Phase 2: waits for phase 1, draws r, s (OS CSPRNG, wiped after), combines, frees the job (in every case). */
CZK_API czk_status czk_groth16_prove_finish(czk_groth16_job *job, czk_groth16_proof *proof,
                                            czk_groth16_timings *timings);
CZK_API void czk_groth16_job_abort(czk_groth16_job *job);

/* One-shot on a backend (NULL: a CPU backend over `pool`): synthesize + start + finish from the host key. */
CZK_API czk_status czk_groth16_prove(czk_groth16_proof *proof, czk_backend *be, const czk_groth16_key *key,
                                     const czk_r1cs *shape, czk_witness *w, czk_pool *pool);

/* Number of proofs whose MSMs the prover has launched in this process (tests check that a refused witness launches
 * none). */
CZK_API unsigned long czk_groth16_msm_launches(void);

/* Public inputs (without ONE) of a witness: w->w[1 .. n_inputs). */
static inline const czk_fr *czk_groth16_public_inputs(const czk_witness *w, size_t *n) {
  *n = w->n_inputs ? w->n_inputs - 1 : 0;
  return w->w + 1;
}

#endif
