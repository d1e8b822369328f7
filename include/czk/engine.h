/* czk/engine.h: the persistent proving engine: jobs, partitions, one memory budget, a synthesis pool and K proving
 * workers per device, finalizers, a proving-key cache, status snapshots and a trace (ARCHITECTURE.md §1-§2).
 *
 * Flow: submit(kind, priority, request_id, input) parses the input ONCE (kind->parse) into P partitions that enter the
 * synth queue, ordered by (priority desc, job seq asc, partition asc). One dispatcher reserves memory for the queue
 * head (kind shape: a/b/c + witness + scratch, plus the key bytes when the key is not resident) and hands it to one of
 * N synthesis workers (kind->synthesize). Synthesized partitions enter the GPU queue (same order); K workers per device
 * call kind->prove_start (then the a/b/c bytes are released) and kind->prove_finish; a finalizer optionally
 * self-verifies (kind->verify), releases the rest of the reservation, stores the partition proof and, when all
 * partitions are in, completes the job and wakes every waiter.
 *
 * The engine knows nothing of curves or formats: circuit kinds (fakes, synthetic, circom, Filecoin) plug in through
 * czk_engine_kind; a proving device is an opaque backend handle passed to the kind's prove callbacks. With no devices
 * configured the engine proves on one CPU device ("cpu", backend NULL): zero GPUs is normal.
 *
 * Threading: every function below is thread-safe. Kind callbacks run on engine threads with no engine lock held and
 * may call czk_engine_cancel(). Callbacks of one partition never run concurrently with each other.
 * Invariants: every reservation is released exactly once (also on failure and cancellation); at idle the budget's use
 * equals the bytes of resident keys; a job failure fails that job only. */
#ifndef CZK_ENGINE_H
#define CZK_ENGINE_H

#include "czk/budget.h"
#include "czk/common.h"
#include "czk/pool.h"
#include "czk/status.h"

typedef struct czk_engine czk_engine;

/* ---- priorities (values as cuzk.v1.Priority) ---------------------------------------------------------------------- */
typedef enum czk_priority {
  CZK_PRIORITY_UNSPECIFIED = 0, /* treated as NORMAL */
  CZK_PRIORITY_LOW = 1,
  CZK_PRIORITY_NORMAL = 2,
  CZK_PRIORITY_HIGH = 3,
  CZK_PRIORITY_CRITICAL = 4,
} czk_priority;
#define CZK_PRIORITY_COUNT 5

/* ---- memory categories of the budget ------------------------------------------------------------------------------ */
typedef enum czk_mem_cat {
  CZK_MEM_KEY = 0,     /* resident proving keys (SRS) */
  CZK_MEM_ABC = 1,     /* a, b, c evaluations: released after prove_start */
  CZK_MEM_WITNESS = 2, /* witness / assignment vectors */
  CZK_MEM_SCRATCH = 3, /* prover scratch (H, MSM buckets, host staging) */
  CZK_MEM_REQUEST = 4, /* requests being received, decoded and parsed (czk_engine_request_reserve) */
  CZK_MEM_COUNT = 5,
} czk_mem_cat;

/* Reservation sizes of one partition, from the circuit shape. Must match the measured peak memory of one partition
 * between synthesis start and finalization. */
typedef struct czk_engine_shape {
  uint64_t abc_bytes;     /* a, b, c (3 * domain * 32 bytes for BLS12-381 Fr) */
  uint64_t witness_bytes; /* the assignment */
  uint64_t scratch_bytes; /* everything else the prover holds until finalization */
} czk_engine_shape;

/* ---- key cache tiers (best first) --------------------------------------------------------------------------------- */
typedef enum czk_key_tier {
  CZK_KEY_TIER_DEVICE = 0, /* in device memory */
  CZK_KEY_TIER_PINNED = 1, /* in pinned host memory */
  CZK_KEY_TIER_MAPPED = 2, /* memory-mapped file */
  CZK_KEY_TIER_DISK = 3,   /* known, not loaded */
} czk_key_tier;

/* A file behind a proving key (what the kind's loader reads), as the kind reports it (key_files). */
#define CZK_ENGINE_KEY_FILES 2
typedef struct czk_engine_key_file {
  char path[480];
  uint64_t bytes; /* size on disk (0 when missing) */
  bool present;
} czk_engine_key_file;

/* ---- devices ------------------------------------------------------------------------------------------------------ */
#define CZK_ENGINE_KEY_PARTS 8
/* Lane shapes a kind may offer (prove_plan), from the fastest and largest: full; compact (less device memory); lean
 * (the least, slowest). A kind without shapes plans every one the same. */
typedef enum czk_engine_lane_shape {
  CZK_LANE_FULL = 0,
  CZK_LANE_COMPACT = 1,
  CZK_LANE_LEAN = 2,
  CZK_LANE_SHAPES = 3
} czk_engine_lane_shape;
CZK_API const char *czk_engine_lane_shape_str(int shape);
/* What a kind's prove callbacks see about the device they run on. */
typedef struct czk_engine_device_ctx {
  uint32_t ordinal; /* index in the engine's device list */
  uint32_t worker;  /* worker index within the device (0..K-1) */
  void *backend;    /* the device's backend handle (NULL for the default CPU device) */
  void *dkey;       /* the key's copy in this device's memory (kind->key_upload's object), or NULL: prove from the
                       host copy (the kind streams it) */
  int shape;        /* the lane shape the device memory plan chose for this prove (czk_engine_lane_shape) */
  /* For a prove that is not urgent (NULL for an urgent one): returns at once unless an urgent prove is running on
   * this device, else when it has ended (2 s at most). A kind whose prove runs in chunks may call it between them
   * (czk_groth16_lane_opts.yield), so that an urgent prove does not share the device with a backlog's kernels. */
  void (*yield)(void *user);
  void *yield_user;
} czk_engine_device_ctx;

typedef struct czk_engine_device_desc {
  const char *name;          /* "cpu", "cuda:0 NVIDIA H200", ... (copied) */
  void *backend;             /* opaque; handed to kind->prove_start/finish */
  uint32_t workers;          /* proving workers on this device; 0 = config.workers_per_device */
  uint64_t mem_total_bytes;  /* for status only (0 = unknown) */
  uint64_t key_mem_bytes;    /* device memory the key cache may fill with device copies of keys (0 = none: keys are
                                proved from their host copy on this device) */
  /* The device memory plan (keys.c): the bytes key copies, the proves' lanes (kind->prove_plan) and the backend's own
   * tables may fill together (0 = no plan: only key copies are counted, against key_mem_bytes). With a plan, a prove
   * starts only when its lane fits beside what is there (idle lanes and unreferenced copies are freed for it first,
   * else it waits for proves in flight to end), so device memory is never found short by a failing allocation. */
  uint64_t plan_bytes;
  uint64_t (*tables_bytes)(void *backend); /* optional: device bytes the backend holds itself (NTT tables) */
  uint64_t (*mem_free)(void *backend);     /* optional, for status: the device's free memory now (0 = unknown) */
  uint64_t mem_limit_bytes;                /* gpu_memory_limit of the device (0 = none), for status */
  uint64_t (*mem_peak)(void *backend);     /* optional, for status: the most device memory seen in use (0 = unknown) */
  /* the operator's tier and lane shape for the keys of kinds that are not urgent (czk_engine_plan_in.tiers /
   * .shapes; 0: the plan chooses); where the choice does not fit, the plan's own is taken and a warning logged */
  uint32_t plan_tiers, plan_shapes;
} czk_engine_device_desc;

/* Timings a kind reports from prove_start/prove_finish (all optional, ns). kernel_ns is the device's kernel-busy time
 * for this partition measured from device events; a CPU or fake backend reports the prove compute time. When a kind
 * leaves kernel_ns 0 the engine uses the wall time of prove_start + prove_finish. upload_ns is the time the device
 * waited for this partition's host->device transfers (czk_groth16_timings.upload_wait), not part of kernel_ns: the
 * device counts it as idle, cause transfer (occupied without kernels), and the trace draws it as a span
 * "idle transfer" on the device's idle lane just before the prove's "kernel busy" span (an "upload" sub-span on the
 * partition's lane). upload_bytes: the bytes those transfers moved (summed per kind, czk_engine_kind_status). */
typedef struct czk_engine_prove_report {
  uint64_t kernel_ns;   /* device kernel-busy time */
  uint64_t upload_ns;   /* the device waited for host->device transfers (not overlapped with kernels) */
  uint64_t ntt_ns;      /* NTT / H computation */
  uint64_t msm_ns;      /* MSMs */
  uint64_t upload_bytes; /* bytes copied host->device for this partition during the prove (streamed key queries) */
} czk_engine_prove_report;

/* ---- circuit kinds ------------------------------------------------------------------------------------------------ */
/* Stages of a proof a kind may time and report (czk_engine_kind.stage_times); the engine sums them per kind
 * (czk_engine_kind_status.stage_ns / stage_count, /metrics czk_stage_seconds). parse and check are per job (the input
 * decoded; the native checks and public inputs recomputed), the rest per partition: witness and a/b/c separately when
 * the kind evaluates a/b/c over recorded matrices, witness_abc when it evaluates the circuit straight into both;
 * prove_check (the prover's size / satisfaction check), h (the NTTs of H), one MSM each, upload_wait (the device
 * waited for streamed key queries' copies, inside the MSM spans; reported by the partitions that waited), finish
 * (waiting for the device, combining with r, s) and verify (the self-verification, timed by the engine). Device
 * stages are spans of device events and overlap (czk_groth16_timings). */
typedef enum czk_stage {
  CZK_STAGE_PARSE = 0,
  CZK_STAGE_CHECK,
  CZK_STAGE_WITNESS,
  CZK_STAGE_ABC,
  CZK_STAGE_WITNESS_ABC,
  CZK_STAGE_PROVE_CHECK,
  CZK_STAGE_H,
  CZK_STAGE_MSM_H,
  CZK_STAGE_MSM_L,
  CZK_STAGE_MSM_A,
  CZK_STAGE_MSM_B_G1,
  CZK_STAGE_MSM_B_G2,
  CZK_STAGE_UPLOAD_WAIT,
  CZK_STAGE_FINISH,
  CZK_STAGE_VERIFY,
  CZK_STAGE_COUNT
} czk_stage;
/* "parse", "check", "witness", "abc", "witness_abc", "prove_check", "h", "msm_h", "msm_l", "msm_a", "msm_b_g1",
 * "msm_b_g2", "upload_wait", "finish", "verify". */
CZK_API const char *czk_stage_str(czk_stage s);

typedef enum czk_verify_mode {
  CZK_VERIFY_AUTO = 0, /* on when a partition's reservation is below config.verify_auto_max_bytes */
  CZK_VERIFY_ON = 1,
  CZK_VERIFY_OFF = 2,
} czk_verify_mode;

/* A circuit kind. All callbacks receive `user`. Objects created by one callback are freed by its pair. */
typedef struct czk_engine_kind {
  const char *name;        /* unique, e.g. "porep-c2", "synthetic" (copied) */
  uint32_t proof_bytes;    /* bytes of one partition proof (192 for a compressed Groth16 proof) */
  uint32_t max_partitions; /* upper bound for parse's *nparts; 0 = 1024 */
  czk_engine_shape shape;  /* reservation of one partition unless `reserve` is set */
  const char *key_id;      /* proving key of this kind; NULL = no key (copied) */
  uint64_t key_bytes;      /* bytes the key occupies once loaded (counted in the budget) */
  czk_verify_mode verify_mode;
  void *user;

  /* Parse the job input once; *nparts in [1, max_partitions]. */
  czk_status (*parse)(void *user, const uint8_t *input, size_t len, void **parsed, uint32_t *nparts);
  void (*parsed_free)(void *user, void *parsed);
  /* Optional: the bytes a parsed input holds until its job ends (counted in the budget when the submitter hands a
   * request reservation over: czk_engine_submit_held). */
  uint64_t (*parsed_bytes)(void *user, const void *parsed);
  /* Optional: the reservation of partition `part` when it depends on the input. */
  czk_status (*reserve)(void *user, const void *parsed, uint32_t part, czk_engine_shape *out);
  /* Synthesize one partition (witness + a/b/c). CPU parallelism must come from `pool`. */
  czk_status (*synthesize)(void *user, const void *parsed, uint32_t part, czk_pool *pool, void **synth);
  void (*synth_free)(void *user, void *synth);
  /* Launch the proof of a synthesized partition on a device; after it returns the a/b/c bytes are released (the
   * kind must have consumed or freed them). *pending is passed to prove_finish, which is always called when
   * prove_start succeeded; prove_finish writes proof_bytes bytes to proof. synth stays owned by the engine. */
  czk_status (*prove_start)(void *user, const czk_engine_device_ctx *dev, void *key, void *synth, void **pending,
                            czk_engine_prove_report *rep);
  czk_status (*prove_finish)(void *user, const czk_engine_device_ctx *dev, void *pending, uint8_t *proof,
                             czk_engine_prove_report *rep);
  /* Optional self-verification of one partition proof (run by a finalizer, outside every lock). */
  czk_status (*verify)(void *user, void *key, const void *parsed, uint32_t part, const uint8_t *proof);
  /* Key loader (required when key_id is set): load key_id, preferably at tier `want`; report the tier reached and
   * the bytes it occupies. Runs outside every lock. */
  czk_status (*key_load)(void *user, const char *key_id, czk_key_tier want, void **key, czk_key_tier *tier,
                         uint64_t *bytes);
  void (*key_free)(void *user, void *key);
  /* Optional: why the last key_load of key_id failed, in words that name the file (goes into the job's error).
   * Runs outside every lock; writes a NUL-terminated text of at most len bytes (empty when it has nothing). */
  void (*key_error)(void *user, const char *key_id, char *buf, size_t len);
  /* Optional device tier. key_device_bytes: device bytes of one device copy of the key (0 = no device tier).
   * key_upload copies a loaded key into `backend`'s memory (runs outside every lock; the engine decides when, under
   * the device's key_mem_bytes); key_unload frees such a copy (never while a prove uses it). */
  uint64_t key_device_bytes;
  /* Optional: the exact device bytes a copy of this loaded key takes (cheap, lock-free: called under the key cache's
   * lock); NULL = key_device_bytes, the bound. */
  uint64_t (*key_device_size)(void *user, void *key);
  /* Optional: a copy may hold only some parts of a key (the others streamed from its host copy): the number of parts
   * (at most CZK_ENGINE_KEY_PARTS) of the loaded key, each one's device bytes, and the bytes every copy holds besides
   * (base); NULL = one part, key_device_size. Cheap and lock-free (called under the key cache's lock). */
  uint32_t (*key_device_parts)(void *user, void *key, uint64_t *base, uint64_t *part_bytes);
  /* parts: the parts to copy (bit i: part i; all of them = (1 << n) - 1, the whole copy) */
  czk_status (*key_upload)(void *user, void *key, void *backend, uint32_t parts, void **dkey);
  void (*key_unload)(void *user, void *backend, void *dkey);
  /* Optional device memory plan (with czk_engine_device_desc.plan_bytes). prove_plan: the device bytes of one lane
   * for proves of the loaded key `key` on `backend` (resident: from its device copy, else streaming the host copy),
   * and the bytes of tables the backend would make for them (kept by the backend; 0 once made). Runs outside every
   * lock. A lane stays cached with the key (its copy when resident) after its prove and is reused by the next prove
   * of that key and device; lanes_trim frees the idle ones of `key` on `backend` (of its copy `dkey` when given,
   * else the streaming ones). Unloading a copy frees its lanes; freeing a key frees its streaming lanes. pinned: the
   * host bytes one lane pins (staging). While a prove holds its lane, the partition's reservation covers that staging
   * (a device prove does not use the host prover's scratch it reserves); an idle cached lane's staging is counted in
   * the budget (category KEY) or, when the budget cannot take it, the lane is freed. */
  /* parts: the parts the copy holds (0: no copy, streaming); shape: czk_engine_lane_shape (proves then see
   * ctx.shape). A partial copy proves in compact or lean lanes only (its full shape fails). */
  czk_status (*prove_plan)(void *user, void *key, void *backend, uint32_t parts, int shape, uint64_t *lane,
                           uint64_t *tables, uint64_t *pinned);
  void (*lanes_trim)(void *user, void *key, void *dkey, void *backend);
  /* Optional: makes one lane of `key` on `backend` now (of its copy `dkey`) and leaves it idle in the kind's cache;
   * the engine calls it when it preloads a key onto a device, for as many lanes as the device has workers and the
   * plan and budget hold, so that the first proves allocate nothing (runs outside every lock). */
  czk_status (*lane_warm)(void *user, void *key, void *dkey, void *backend, int shape);
  /* Optional: after prove_start or prove_finish failed on `dev`, whether that device is lost for good (a sticky error:
   * its backend is quarantined). The engine then quarantines the device (its workers stop taking work) and proves the
   * partition again elsewhere; NULL = devices are never lost. A failure with CZK_ERR_DEVICE on a device that is not
   * lost is transient: the partition is synthesized and proved again once, on another worker (engine.c). */
  bool (*device_lost)(void *user, const czk_engine_device_ctx *dev);
  /* Optional: the files key_id is loaded from (at most max; returns how many), each with its size on disk and whether
   * it exists (stat only; runs outside every lock). For status: which file backs which key, and whether a load
   * generates the key (its files are missing). */
  uint32_t (*key_files)(void *user, const char *key_id, czk_engine_key_file *files, uint32_t max);
  /* Optional: the stage times (ns, 0 = not measured) the kind measured for partition `part` of a parsed job; the
   * per-job stages (parse, check) with partition 0 only. Called by a finalizer once the partition's proof is done
   * (after its self-verification), outside every lock; the engine adds verify itself. */
  void (*stage_times)(void *user, const void *parsed, uint32_t part, uint64_t ns[CZK_STAGE_COUNT]);
  /* Optional: frees `user` (called by the kind's owner, not the engine; see czk_kind_free). */
  void (*destroy)(void *user);
} czk_engine_kind;

/* ---- configuration ------------------------------------------------------------------------------------------------ */
typedef struct czk_engine_config {
  uint64_t mem_limit_bytes;       /* the one memory budget (keys + partitions in flight); required */
  uint32_t synth_workers;         /* synthesis workers N (default 2) */
  uint32_t workers_per_device;    /* proving workers K per device (default 2) */
  uint32_t finalizers;            /* finalizer threads (default 1) */
  const czk_engine_device_desc *devices; /* NULL/0 = one CPU device */
  uint32_t ndevices;
  uint64_t result_ttl_ms;         /* keep finished results this long (default 600000) */
  uint32_t trace_capacity;        /* spans kept (ring buffer); 0 = tracing off */
  uint64_t verify_auto_max_bytes; /* CZK_VERIFY_AUTO threshold (default 256 MiB) */
  czk_key_tier key_tier;          /* best tier the key cache aims for (default DEVICE: device copies where a device's
                                     key_mem_bytes allows, host copies pinned); PINNED / MAPPED: no device copies, host
                                     copy pinned or not. kind->key_load is asked for the host tier (PINNED or MAPPED) */
  czk_pool *pool;                 /* pool for CPU parallelism in synthesis; NULL = czk_pool_default() */
  /* The urgent lane (0 = none, the default): a CRITICAL job's partitions whose shape (a/b/c + witness + scratch) is at
   * most urgent_max_bytes never wait behind other work for a place: one synthesis worker and one proving worker per
   * device take only them, and other partitions leave the largest such shape free in the budget (when they can: a
   * kind whose partition and key would not fit beside that headroom ignores it). E.g. a WinningPoSt partition
   * arriving while PoRep partitions fill every worker. */
  uint64_t urgent_max_bytes;
} czk_engine_config;

CZK_API void czk_engine_config_default(czk_engine_config *cfg);

/* Create an engine and start its threads. cfg is copied. */
CZK_API czk_status czk_engine_create(czk_engine **out, const czk_engine_config *cfg);
/* Register a circuit kind (copied; `user` is borrowed and must outlive the engine). CZK_ERR_EXISTS on a duplicate
 * name; CZK_ERR_BUDGET when one partition plus its key can never fit the budget. */
CZK_API czk_status czk_engine_register_kind(czk_engine *e, const czk_engine_kind *kind);

/* ---- jobs --------------------------------------------------------------------------------------------------------- */
typedef struct czk_engine_submit_info {
  uint64_t job_id;         /* never 0; unique across restarts (starts at the wall clock in microseconds at engine
                              creation, then consecutive), below 2^53 */
  bool attached;           /* request_id was in flight (or completed successfully): joined that job */
  uint32_t partitions;
  uint32_t queue_position; /* partitions queued ahead of this job's first partition at submit time */
} czk_engine_submit_info;

/* Submit a job. request_id (may be NULL/"") deduplicates: while a job with the same id is in flight, or completed
 * successfully and not yet pruned, the caller attaches to it. Errors: CZK_ERR_NOT_FOUND (unknown kind), the parser's
 * status, CZK_ERR_BUDGET (a partition can never fit), CZK_ERR_SHUTDOWN, CZK_ERR_NO_DEVICE (every device is
 * quarantined). */
CZK_API czk_status czk_engine_submit(czk_engine *e, const char *kind, czk_priority priority, const char *request_id,
                                     const uint8_t *input, size_t len, czk_engine_submit_info *info);
/* As czk_engine_submit, for a submitter holding a request reservation (czk_engine_request_reserve) that covered the
 * decode and the parse: a new job takes its CZK_MEM_REQUEST part over, resized to the kind's parsed_bytes (grown only
 * when the budget allows), and releases it when its parsed input is freed (its last partition ended). hold is left
 * empty when taken, else untouched (the caller releases what is left in every case). */
CZK_API czk_status czk_engine_submit_held(czk_engine *e, const char *kind, czk_priority priority,
                                          const char *request_id, const uint8_t *input, size_t len,
                                          czk_reservation *hold, czk_engine_submit_info *info);

typedef struct czk_engine_result {
  uint64_t job_id;
  czk_status status;     /* CZK_OK, the failing partition's status, CZK_ERR_CANCELLED, CZK_ERR_TIMEOUT (await
                            timed out: the job goes on), CZK_ERR_NOT_FOUND (unknown or pruned job id) */
  uint8_t *proof;        /* CZK_OK: partition proofs concatenated in partition order (free with result_free) */
  size_t proof_len;
  uint32_t partitions;
  uint32_t failed_partition; /* the partition that failed (valid when status is a partition failure) */
  char error[512];       /* human text */
  /* timings (ms), sums over partitions where meaningful */
  uint64_t queue_wait_ms;
  uint64_t srs_load_ms;
  uint64_t synthesis_ms;
  uint64_t gpu_compute_ms;
  uint64_t total_ms;
} czk_engine_result;

/* Wait until the job ends or timeout_ms passes (0 = no limit). Returns res->status. Never fails to fill *res. */
CZK_API czk_status czk_engine_await(czk_engine *e, uint64_t job_id, uint64_t timeout_ms, czk_engine_result *res);
CZK_API void czk_engine_result_free(czk_engine_result *res);
/* Cancel a job in any state: queued partitions are dropped, running ones stop at their next stage boundary, all its
 * memory returns; waiters get CZK_ERR_CANCELLED. *was_running: some partition had left the synth queue.
 * CZK_ERR_NOT_FOUND for an unknown job, CZK_ERR_STATE when it already ended. */
CZK_API czk_status czk_engine_cancel(czk_engine *e, uint64_t job_id, bool *was_running);
/* The job a request id names: one in flight, or completed successfully and not yet pruned (a failed or cancelled
 * job releases its request id at once, so that the request can be retried). CZK_ERR_NOT_FOUND otherwise. */
CZK_API czk_status czk_engine_job_by_request(czk_engine *e, const char *request_id, uint64_t *job_id);

/* ---- keys --------------------------------------------------------------------------------------------------------- */
/* Load a key now (kind->key_load of a kind using key_id). *already: it was resident. */
CZK_API czk_status czk_engine_key_preload(czk_engine *e, const char *key_id, bool *already, uint64_t *load_ms);
/* Drop a resident key that no partition uses. CZK_ERR_STATE when in use; *freed = 0 when not loaded. */
CZK_API czk_status czk_engine_key_evict(czk_engine *e, const char *key_id, bool *was_loaded, uint64_t *freed);

/* ---- observability ------------------------------------------------------------------------------------------------ */
typedef enum czk_worker_state {
  CZK_WORKER_IDLE = 0,
  CZK_WORKER_SYNTH = 1,     /* synthesis worker: synthesizing */
  CZK_WORKER_PROVING = 2,   /* device worker: in prove_start/prove_finish */
  CZK_WORKER_FINALIZE = 3,  /* finalizer: verifying/assembling */
  CZK_WORKER_KEY_LOAD = 4,  /* loading a proving key */
} czk_worker_state;

/* Why a device had no kernel work. */
typedef enum czk_idle_cause {
  CZK_IDLE_STARVED = 0,  /* GPU queue empty while synthesis had work (synthesis-starved) */
  CZK_IDLE_BUDGET = 1,   /* GPU queue empty while the dispatcher waited for memory */
  CZK_IDLE_TRANSFER = 2, /* a worker was in prove but no kernel ran (uploads, host work, launch latency) */
  CZK_IDLE_LOCK = 3,     /* workers waited on the GPU queue lock */
  CZK_IDLE_NO_WORK = 4,  /* nothing submitted */
  CZK_IDLE_KEY_LOAD = 5, /* a proving key was being loaded (or generated) for queued work and nothing else ran */
  CZK_IDLE_COUNT = 6,
} czk_idle_cause;

typedef struct czk_engine_worker_status {
  char role[12];        /* "synth", "prove", "finalize"; the urgent lane's "synth-urg", "prove-urg" */
  uint32_t device;      /* prove workers: device ordinal */
  uint32_t index;
  czk_worker_state state;
  uint64_t job_id;      /* current job (0 = none) */
  uint32_t partition;
  char kind[32];
  uint64_t busy_ns;     /* total time not idle */
  uint64_t items;       /* partitions handled */
} czk_engine_worker_status;

typedef struct czk_engine_device_status {
  char name[64];
  uint32_t ordinal;
  uint32_t workers;
  uint64_t mem_total_bytes;
  uint64_t mem_free_bytes;    /* free device memory when the status was taken (0 = unknown) */
  uint64_t proofs;            /* partitions proved */
  uint64_t wall_ns;           /* since engine start */
  uint64_t kernel_busy_ns;    /* sum of reported kernel time */
  uint64_t occupied_ns;       /* time with at least one worker in prove */
  uint64_t idle_ns[CZK_IDLE_COUNT];
  uint64_t key_mem_limit;     /* key_mem_bytes of the device */
  uint64_t key_mem_used;      /* bytes of the key copies resident on it (never above the limit) */
  uint32_t keys_resident;
  /* the device memory plan (0 limit: none): its limit, the proves' lanes (in use / idle, cached with their keys), and
   * the backend's tables; key copies + lanes + tables never exceed the limit */
  uint64_t plan_limit, plan_lanes_bytes, plan_tables_bytes;
  uint32_t lanes_busy, lanes_idle;
  uint64_t plan_waits;  /* proves that waited for device memory (lanes of proves in flight) */
  uint64_t lanes_warmed; /* lanes made ahead of their proves when keys were preloaded */
  uint64_t urgent_yields, urgent_yield_ns; /* times proves were held for an urgent one (czk_engine_device_ctx.yield),
                                              and for how long in all */
  uint64_t mem_limit_bytes;   /* gpu_memory_limit (0 = none) */
  uint64_t mem_peak_used_bytes; /* the most device memory seen in use, measured on the device (0 = unknown) */
  bool quarantined;           /* lost after a sticky error (kind->device_lost): takes no more work */
  uint64_t prove_errors;      /* proves that failed on this device */
} czk_engine_device_status;

/* Submit-to-result latency of completed jobs, per kind and priority (however the job was awaited, or if it was not):
 * bucket b counts jobs with latency <= czk_engine_latency_bounds()[b] and above the previous bound (not cumulative);
 * bucket CZK_LATENCY_BUCKETS counts the rest. */
#define CZK_LATENCY_BUCKETS 15
CZK_API const double *czk_engine_latency_bounds(void);

typedef struct czk_engine_kind_status {
  char name[32];
  uint32_t pending;     /* partitions in the synth queue */
  uint32_t in_progress; /* partitions past dispatch, not yet finalized */
  uint64_t submitted, attached, completed, failed, cancelled; /* jobs */
  uint64_t partitions_proved;
  uint64_t lat_bucket[CZK_PRIORITY_COUNT][CZK_LATENCY_BUCKETS + 1];
  double lat_sum[CZK_PRIORITY_COUNT]; /* seconds */
  uint64_t lat_count[CZK_PRIORITY_COUNT];
  /* per stage (czk_stage): the summed time and the number of times it was measured (partitions proved, or jobs for
   * the per-job stages) */
  uint64_t stage_ns[CZK_STAGE_COUNT], stage_count[CZK_STAGE_COUNT];
  uint64_t upload_bytes; /* bytes copied host->device during the proves of the partitions proved (prove reports) */
} czk_engine_kind_status;

/* The device tier a plan gives a key (a pure function; the key cache's choice, also used by the benchmarks): the parts of its copy (0: none,
 * streamed; all: resident; else partial) and the lane shape of its proves, from the plan's bytes, the key's parts and
 * the kind's lane sizes. */
typedef struct czk_engine_plan_in {
  uint64_t limit;                                  /* the device's plan (0: no plan) */
  uint32_t nparts;                                 /* >= 1 */
  uint64_t base, part_bytes[CZK_ENGINE_KEY_PARTS]; /* a copy's bytes: base + its parts' */
  uint64_t tables;                                 /* tables its proves need (0 when there) */
  /* one lane of each shape (UINT64_MAX: the kind cannot make it): beside the whole copy, and beside a partial copy
   * or streaming (the latter at least the former) */
  uint64_t lane_res[CZK_LANE_SHAPES], lane_stream[CZK_LANE_SHAPES];
  uint32_t lanes;                                  /* lanes wanted at once (the device's workers; >= 1) */
  /* the operator's choice (gpu_key_tier, gpu_lane_shape): only these tiers (CZK_TIER_BIT_*) and shapes
   * (1 << czk_engine_lane_shape) are candidates; 0: all. Where none of them fits, nothing is planned (lanes 0). */
  uint32_t tiers, shapes;
} czk_engine_plan_in;
#define CZK_TIER_BIT_RESIDENT 1u
#define CZK_TIER_BIT_PARTIAL 2u
#define CZK_TIER_BIT_STREAMED 4u
typedef struct czk_engine_plan_out {
  uint32_t parts;   /* the copy's parts */
  int shape;        /* the lane shape (czk_engine_lane_shape) */
  uint64_t copy, lane; /* their bytes */
  uint32_t lanes;   /* lanes that fit beside the copy and tables (>= 1 unless nothing fits) */
} czk_engine_plan_out;
CZK_API void czk_engine_plan_tier(const czk_engine_plan_in *in, czk_engine_plan_out *out);

/* The tier a device memory plan gave a key on a device. */
typedef enum czk_engine_dev_tier {
  CZK_DEV_TIER_NONE = 0,     /* not decided yet (no prove of it there), or no device plan */
  CZK_DEV_TIER_RESIDENT = 1, /* a whole copy on the device */
  CZK_DEV_TIER_PARTIAL = 2,  /* some parts on the device, the rest streamed from the pinned host copy */
  CZK_DEV_TIER_STREAMED = 3, /* nothing on the device: every prove streams the host copy */
} czk_engine_dev_tier;
#define CZK_ENGINE_STATUS_DEVICES 8
CZK_API const char *czk_engine_dev_tier_str(czk_engine_dev_tier t);
typedef struct czk_engine_key_status {
  char key_id[64];
  czk_key_tier tier;      /* best tier: DEVICE when a device holds a copy, else host_tier */
  czk_key_tier host_tier; /* PINNED / MAPPED as the loader reported it; DISK while not loaded */
  bool loading;
  uint64_t bytes;         /* host bytes (counted in the budget) */
  uint64_t device_bytes;  /* bytes of one device copy */
  uint32_t device_mask;   /* bit d set: a copy is resident on device ordinal d (d < 32) */
  /* per device (d < CZK_ENGINE_STATUS_DEVICES): the tier the plan gave the key there (czk_engine_dev_tier) and whether
   * the lane shape of its proves; the copy's bytes there (a partial copy holds some parts) */
  uint8_t dev_tier[8];
  uint8_t dev_shape[8]; /* czk_engine_lane_shape */
  uint64_t dev_copy_bytes[8];
  uint32_t refs;
  uint64_t last_use_ms_ago;
} czk_engine_key_status;

/* Every key id a registered kind uses (first registered kind's name), with the files behind it (kind->key_files) and
 * where the key cache holds it now: DISK when it is not loaded. */
typedef struct czk_engine_key_source {
  char key_id[64];
  char kind[32];
  czk_key_tier tier;
  bool loading;
  uint32_t nfiles;
  czk_engine_key_file files[CZK_ENGINE_KEY_FILES];
} czk_engine_key_source;

typedef struct czk_engine_status {
  uint64_t uptime_ns;
  uint32_t synth_queue, gpu_queue, finalize_queue; /* queue depths (partitions) */
  uint32_t synth_active, synth_workers;
  bool dispatcher_waiting_budget;
  uint64_t mem_limit, mem_used, mem_used_by_cat[CZK_MEM_COUNT], mem_peak;
  uint64_t reservations_made, reservations_released; /* budget reservations (partitions and keys); at idle made == released + nkeys */
  uint64_t release_errors;                           /* double releases detected (must stay 0) */
  uint64_t prove_retries;                            /* partitions proved again after a transient device error */
  uint32_t devices_usable;                           /* devices not quarantined */
  uint64_t jobs_live, jobs_submitted, jobs_completed, jobs_failed, jobs_cancelled, jobs_attached, jobs_pruned;
  uint32_t ndevices, nworkers, nkinds, nkeys;
  czk_engine_device_status *devices;
  czk_engine_worker_status *workers;
  czk_engine_kind_status *kinds;
  czk_engine_key_status *keys;          /* the key cache's entries (loading or resident) */
  uint32_t nsources;
  czk_engine_key_source *sources;       /* every key of a registered kind, loaded or not */
} czk_engine_status;

/* One job as it stands (for a client waiting on it): which stage its partitions are in and whether it waits on its key
 * being loaded. */
typedef struct czk_engine_job_info {
  uint64_t job_id;
  char kind[32];
  bool done;
  uint32_t partitions, queued, synthesizing, proving, finalizing, ended;
  bool key_loading;       /* a dispatched partition waits for key_id to load */
  bool key_generating;    /* key_loading and the key's files are missing: the loader makes the key (setup) */
  char key_id[64];
  uint64_t key_bytes;     /* the key's budgeted bytes */
  uint64_t key_load_ms;   /* how long the load has been running */
} czk_engine_job_info;
/* CZK_ERR_NOT_FOUND for an unknown or pruned job. Calls kind->key_files outside every lock when a key is loading. */
CZK_API czk_status czk_engine_job_info_get(czk_engine *e, uint64_t job_id, czk_engine_job_info *out);
/* "queued", "key_load", "synthesis", "proving", "finalize" or "done": the furthest-behind stage that still has work */
CZK_API const char *czk_engine_job_stage(const czk_engine_job_info *ji);

/* Snapshot everything (one allocation; free with czk_engine_status_free). */
CZK_API czk_status czk_engine_status_get(czk_engine *e, czk_engine_status **out);
/* As czk_engine_status_get for the daemon's own housekeeping (its idle check every 0.5 s): the exported counters'
 * high-water marks stay where the last exported snapshot left them (the transfer counter's mark, taken during a prove
 * before its kernel time is credited, would otherwise hold that prove's occupied time as transfer). */
CZK_API czk_status czk_engine_status_peek(czk_engine *e, czk_engine_status **out);
CZK_API void czk_engine_status_free(czk_engine_status *s);
CZK_API const char *czk_idle_cause_str(czk_idle_cause c);
CZK_API const char *czk_mem_cat_str(czk_mem_cat c);
CZK_API const char *czk_key_tier_str(czk_key_tier t);
CZK_API const char *czk_worker_state_str(czk_worker_state s);

/* Write the trace (spans per partition and per worker) as Chrome trace JSON ("traceEvents"). */
CZK_API czk_status czk_engine_trace_write(czk_engine *e, const char *path);

/* ---- shutdown ----------------------------------------------------------------------------------------------------- */
/* Stop intake (submit -> CZK_ERR_SHUTDOWN). drain = true: wait until every job ended (at most timeout_ms, 0 = no
 * limit; CZK_ERR_TIMEOUT and then cancel the rest); drain = false: cancel every job. Then stop and join every thread.
 * Idempotent. Awaiting callers are woken with their job's outcome. */
CZK_API czk_status czk_engine_shutdown(czk_engine *e, bool drain, uint64_t timeout_ms);
/* Shutdown (cancel) if not done, free everything. NULL is a no-op. */
CZK_API void czk_engine_destroy(czk_engine *e);

/* ---- request memory (src/engine/transient.c) ---------------------------------------------------------------------- */
/* Count `bytes` that a request holds outside the engine (its received copy, its decoded form, what its kind's parse
 * makes of it) against the budget, category CZK_MEM_REQUEST, until czk_engine_request_release. The caller releases
 * it once the request's parse is done (czk_engine_submit returned), so a job never holds it (nor holds it twice).
 * When it does not fit, unused resident keys are evicted (least recently used first, only while that helps); when it
 * still does not fit it waits (FIFO with every other reserver, so partitions queued after it wait too) until the
 * monotonic deadline_ns (UINT64_MAX = none). Never waits with an engine lock held. bytes == 0 reserves nothing.
 * Errors, with the reason in why: CZK_ERR_BUDGET when it can never be covered (more than the budget less the bytes
 * of keys that jobs are using now), CZK_ERR_TIMEOUT when the deadline passed (memory in use by jobs in flight). */
CZK_API czk_status czk_engine_request_reserve(czk_engine *e, uint64_t bytes, uint64_t deadline_ns, czk_reservation *r,
                                              char *why, size_t whylen);
/* Release what czk_engine_request_reserve reserved in r (exactly once; a second call changes nothing). */
CZK_API void czk_engine_request_release(czk_engine *e, czk_reservation *r);

#endif
