/* fake.h (internal): a configurable fake circuit kind for engine tests and `czk bench pipeline`.
 *
 * A job's input is a czk_fake_job: partitions, synthesis and prove times, and optional fault injection (fail at one
 * stage of one partition) or self-cancellation (the kind cancels its own job from inside one stage's callback).
 * Proving emulates a device with a timeline per device ordinal: a prove launched at t runs on the device from
 * max(t, device free) for prove_us and prove_finish sleeps until it ends (like waiting on a CUDA event), so two workers
 * of one device overlap host work with device work exactly as real streams would; kernel_ns = prove_us - upload_us
 * (upload_ns = upload_us: the device waited that long for transfers; upload_bytes = 1000 * upload_us). Synthesis
 * takes synth_us of wall time on its thread, compensating the previous sleep's timer overshoot on that thread, so that
 * pipeline tests measure the engine's overhead and not the OS timer's on a loaded machine.
 * The proof of (tag, partition) is a deterministic byte string (czk__fake_expected_proof). Counters track every object
 * alive so tests can prove that nothing leaks and nothing is freed twice. */
#ifndef CZK_ENGINE_FAKE_H
#define CZK_ENGINE_FAKE_H

#include <pthread.h>
#include <stdatomic.h>

#include "czk/engine.h"

#define CZK_FAKE_MAGIC 0x454b4146u /* "FAKE" */
#define CZK_FAKE_PROOF_BYTES 192u
#define CZK_FAKE_MAX_DEVICES 16u
#define CZK_FAKE_KEYDEVS 4u

typedef enum czk_fake_stage {
  CZK_FAKE_NONE = 0,
  CZK_FAKE_PARSE = 1,
  CZK_FAKE_SYNTH = 2,
  CZK_FAKE_PROVE_START = 3,
  CZK_FAKE_PROVE_FINISH = 4,
  CZK_FAKE_VERIFY = 5,
  CZK_FAKE_KEY_FILE = 6, /* prove_finish fails with CZK_ERR_FILE_CHANGED: the key's file changed under it */
  CZK_FAKE_PROVE_OOM = 7, /* prove_start fails with CZK_ERR_NOMEM every time: the device is too small for it */
} czk_fake_stage;

typedef struct czk_fake_job {
  uint32_t magic; /* CZK_FAKE_MAGIC */
  uint32_t nparts;
  uint32_t synth_us, prove_us;
  int32_t fail_stage, fail_part;     /* fault injection (czk_fake_stage) */
  int32_t cancel_stage, cancel_part; /* self-cancel at that stage of that partition */
  uint32_t gate;                     /* 1: synthesis waits until czk__fake_open_gate */
  uint32_t upload_us; /* of prove_us, the device's wait for transfers: upload_ns (upload_us * 1000 bytes), not kernel */
  uint64_t tag; /* < czk_fake.max_tags when self-cancel is used */
} czk_fake_job;

typedef struct czk_fake_log {
  uint64_t tag;
  uint32_t part;
} czk_fake_log;

typedef struct czk_fake {
  czk_engine *engine; /* set before submitting self-cancelling jobs */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool gate_open;
  uint64_t dev_free_at[CZK_FAKE_MAX_DEVICES];
  uint64_t *tag_job; /* tag -> job id (0 = unknown yet) */
  size_t max_tags;
  czk_fake_log *log; /* synthesis start order */
  size_t nlog, log_cap;
  bool status_in_callbacks; /* call czk_engine_status_get from callbacks (proves no engine lock is held) */
  uint32_t key_fail_every;  /* fail every n-th key load (0 = never) */
  bool key_gate_closed;     /* key loads wait until czk__fake_key_gate(f, false) (guarded by mu) */
  uint64_t key_actual_bytes; /* the bytes a key load reports (0: none, the kind's key_bytes stands) */
  atomic_long live_synth, live_parsed, live_keys, live_pending;
  atomic_long synth_calls, prove_calls, verify_calls, key_loads, self_cancels;
  atomic_long yield_calls, no_yield;   /* proves given a yield (ctx->yield), which they called; those without */
  _Atomic uint64_t yield_wait_max_ns; /* the longest a yield held a prove */
  /* device tier (czk__fake_kind_device): copies made / freed / alive, proves that got one / the host copy */
  uint32_t upload_fail_every; /* fail every n-th upload (0 = never) */
  /* device memory: with dev_slots > 0, a prove_start finding dev_slots proves in flight on its device (started, not
   * finished) fails with CZK_ERR_NOMEM, like a device out of memory (counted in nomem); inflight under mu */
  uint32_t dev_slots;
  uint32_t inflight[CZK_FAKE_MAX_DEVICES];
  atomic_long nomem;
  atomic_long uploads, unloads, live_dkeys, proves_dkey, proves_host, bad_dkey;
  /* device memory (czk__fake_kind_plan; under mu): with dev_capacity > 0 each device (backend) holds that many bytes;
   * a copy takes copy_bytes (its kind's key_device_bytes), a prove a lane of lane_bytes (or of its shape's bytes), cached after the prove with
   * its owner (the copy, else the host key) and reused like the prover's; an allocation past the capacity fails with
   * CZK_ERR_NOMEM (counted in nomem). dev_peak: the most a device held. */
  uint64_t dev_capacity, lane_bytes, copy_bytes;
  /* lane shapes (czk_engine_lane_shape): shape_lane[s] is the device bytes of one lane of shape s (0: lane_bytes);
   * prove_plan reports it, a prove's lane (ctx.shape) and lane_warm (its shape) allocate it. A partial copy proves in
   * compact or lean lanes only: prove_plan refuses (CZK_ERR_UNSUPPORTED) and prove_start fails (counted in bad_dkey)
   * a full lane beside one. */
  uint64_t shape_lane[CZK_LANE_SHAPES];
  /* copy parts: 0 or 1, one part (a copy takes copy_bytes, as the kind's key_device_bytes); n > 1 (at most
   * CZK_ENGINE_KEY_PARTS): a copy is n equal parts of copy_bytes / n (the remainder is the base every copy holds),
   * reported by the kind's key_device_parts (czk__fake_kind_device), and key_upload allocates only the parts asked
   * for (a partial copy). A copy remembers its bytes and an idle lane's cache entry its lanes', so frees are exact. */
  uint32_t copy_parts;
  /* per key (key_id, NULL: unused): the same model for that key's copies and lanes in place of the fields above, so
   * that kinds of different sizes share one emulated device (set before the engine starts; read without mu) */
  struct czk_fake_keydev {
    const char *key_id;
    uint64_t copy_bytes, lane_bytes;
    uint32_t copy_parts;
    uint64_t shape_lane[CZK_LANE_SHAPES];
  } keydev[CZK_FAKE_KEYDEVS];
  uint64_t lane_pinned; /* host bytes a lane pins (prove_plan's pinned) */
  uint64_t lane_allocs; /* lanes made (by proves and by lane_warm) */
  const void *dev_be[CZK_FAKE_MAX_DEVICES];
  uint64_t dev_used[CZK_FAKE_MAX_DEVICES], dev_peak[CZK_FAKE_MAX_DEVICES];
  struct czk_fake_lanes *lanes;
  size_t nlanes, lanes_cap;
} czk_fake;

czk_status czk__fake_init(czk_fake *f, size_t max_tags);
void czk__fake_destroy(czk_fake *f);
/* Fill a kind descriptor using f (name/key_id are copied by register_kind). */
void czk__fake_kind(czk_fake *f, czk_engine_kind *k, const char *name, const char *key_id, uint64_t key_bytes,
                    czk_engine_shape shape);
/* Give the kind a device tier: device copies of device_bytes, checked at every prove (a copy must belong to the key
 * and to the device's backend, else the prove fails and bad_dkey counts it), and key_device_parts (f's copy_parts, or
 * its key's keydev entry: a one-part model reports none, as a kind without the callback). */
void czk__fake_kind_device(czk_engine_kind *k, uint64_t device_bytes);
/* Emulate device memory for the kind (after czk__fake_kind_device): f's capacity model above, and the kind's prove_plan
 * (lanes of the shape's bytes: shape_lane, else lane_bytes; no tables), lanes_trim and lane_warm, so that the engine's
 * device memory plan (tiers, partial copies, lane shapes) can be tested. */
void czk__fake_kind_plan(czk_engine_kind *k);
void czk__fake_set_job(czk_fake *f, uint64_t tag, uint64_t job_id);
void czk__fake_open_gate(czk_fake *f);
/* Close (key loads wait) or open the key-load gate. */
void czk__fake_key_gate(czk_fake *f, bool closed);
/* Snapshot of the synthesis log (copy; free()). */
size_t czk__fake_log_copy(czk_fake *f, czk_fake_log **out);
void czk__fake_expected_proof(uint64_t tag, uint32_t part, uint8_t out[CZK_FAKE_PROOF_BYTES]);
/* The status a fault at `stage` produces. */
czk_status czk__fake_stage_status(czk_fake_stage stage);

#endif
