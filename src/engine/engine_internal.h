/* engine_internal.h: the engine's private structures, shared by engine.c (jobs, queues, workers), keys.c (key cache)
 * and observe.c (status snapshot, trace, device idle attribution).
 *
 * Locks (never held across compute, I/O, waits on devices, verification or frees of large buffers):
 *   e->mu     job table, synth queue, synth channel, dispatcher state, per-kind counters, job state
 *   e->gq_mu  GPU queue (held only for push/pop/remove)
 *   e->fq_mu  finalizer queue
 *   e->kc_mu  key cache entries
 *   dev->mu, worker->mu   per-device / per-worker statistics (leaf locks)
 *   budget and trace have their own internal leaf locks.
 * e->pin_mu guards the idle lanes' pinned reservations; it is taken with no engine lock held, and the budget's notify
 * (e->mu) may run under it: pin_mu -> e->mu.
 * Order: e->mu -> e->gq_mu -> e->kc_mu -> (leaf locks). czk_budget_release is never called with an engine lock held
 * (its notify hook takes e->mu). */
#ifndef CZK_ENGINE_INTERNAL_H
#define CZK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "czk/budget.h"
#include "czk/engine.h"
#include "czk/trace.h"

/* Partition reservation categories (budget category = czk_mem_cat). */

typedef struct ekey ekey;
typedef struct ejob ejob;

typedef enum part_stage {
  PS_SYNTH_QUEUED = 0,
  PS_DISPATCHED,
  PS_SYNTH,
  PS_GPU_QUEUED,
  PS_PROVING,
  PS_FINALIZE,
  PS_ENDED,
} part_stage;

typedef struct epart {
  ejob *job;
  uint32_t index;
  int32_t heap_idx; /* in the synth or GPU heap, else -1 */
  _Atomic(part_stage) stage; /* written under the lock of the queue it enters or leaves; read anywhere */
  czk_engine_shape shape;
  czk_reservation res;
  ekey *key;        /* ref held from dispatch to the end */
  uint32_t retries;     /* proves started again after a transient device error (at most 1) */
  int32_t avoid_worker; /* -1, or the worker (index in e->workers) whose prove failed: the retry goes elsewhere */
  bool alone;           /* retried after the device ran out of memory: proved with no other prove on its device */
  void *synth;
  struct epart *next; /* channel / finalizer list link */
  uint64_t t_enq, t_wait0, t_dispatch, t_gpu_enq, t_fin_enq;
  uint64_t synth_ns, kernel_ns, key_load_ns, verify_ns;
  uint64_t upload_bytes; /* the prove's host->device bytes (its report), summed per kind when it is proved */
  bool urgent_slot; /* dispatched on the urgent lane's synthesis slot */
} epart;

typedef struct ekind {
  czk_engine_kind k; /* name and key_id point into the strings below */
  char name[32];
  char key_id[64];
  bool verify;
  uint32_t idx;
  /* counters (e->mu) */
  uint32_t pending, in_progress;
  uint64_t submitted, attached, completed, failed, cancelled, proved;
  /* latency of completed jobs (e->mu), as czk_engine_kind_status */
  uint64_t lat_bucket[CZK_PRIORITY_COUNT][CZK_LATENCY_BUCKETS + 1];
  double lat_sum[CZK_PRIORITY_COUNT];
  uint64_t lat_count[CZK_PRIORITY_COUNT];
  uint64_t stage_ns[CZK_STAGE_COUNT], stage_count[CZK_STAGE_COUNT]; /* sums of the kind's stage times (e->mu) */
  uint64_t upload_bytes; /* summed prove reports' upload_bytes of the partitions proved (e->mu) */
  /* the key's real host bytes, learned from its last load (kc_mu; 0 = never loaded): later loads reserve this, not
   * the kind's upper bound k.key_bytes */
  uint64_t key_bytes_seen;
} ekind;

struct ejob {
  uint64_t id; /* = sequence number */
  ekind *kind;
  int prio;
  char *request_id; /* NULL or owned */
  void *parsed;
  czk_reservation in_res; /* the parsed input's bytes (czk_engine_submit_held), released with it */
  ejob *stop_next;        /* e->stopped: stopped before any partition started; finished by end_list */
  uint32_t nparts, parts_left, parts_left_queue;
  epart *parts;
  uint8_t *proof;
  bool done;
  czk_status status;
  uint32_t failed_part;
  char error[512];
  atomic_int stop; /* set when the job failed or was cancelled: running partitions stop at the next boundary */
  pthread_cond_t cv;
  uint32_t waiters;
  uint64_t t_submit, t_done;
  uint64_t queue_wait_ns, srs_load_ns, synth_ns, kernel_ns, verify_ns;
  ejob *next_id, *next_rid; /* hash chains */
  ejob *next_done;          /* prune list (in completion order) */
};

typedef enum key_state { KS_LOADING = 0, KS_RESIDENT = 1, KS_FAILED = 2 } key_state;

/* A key's copy on one device (kc_mu): NONE -> UPLOADING (bytes counted in the device's key memory) -> RESIDENT, back
 * to NONE on eviction (LRU among unreferenced copies of that device), failed upload, or when the host key goes. A
 * copy's refs never outlive its host key's refs (a prove holds both). */
typedef enum kdev_state { KD_NONE = 0, KD_UPLOADING, KD_RESIDENT } kdev_state;
typedef struct ekey_dev {
  kdev_state state;
  void *dkey; /* kind->key_upload's object */
  uint32_t refs;
  uint64_t bytes, last_use_ns;
  /* the device memory plan (keys.c): the lanes of the key's proves on this device, [0] with the copy, [1] streaming
   * the host copy: how many exist (idle ones are cached by the kind), how many a prove holds, and one lane's bytes */
  uint32_t lanes[2], busy[2];
  uint64_t lane_bytes[2];
  /* the idle lanes' pinned host staging in the budget (category KEY; e->pin_mu): one lane's bytes, and the
   * reservation of (lanes - busy) of them */
  uint64_t lane_pinned[2];
  czk_reservation pin_res[2];
  uint64_t gone1; /* a key being dropped: its streaming lanes' bytes, freed with the host key (drop_key) */
  uint32_t parts; /* the copy's parts (kind->key_device_parts; all of them: the whole copy) */
  uint8_t shape[2]; /* lane shape of [0] the copy's, [1] the streaming proves: 0 not decided, else 1 + the
                       czk_engine_lane_shape */
  uint8_t tier;     /* czk_engine_dev_tier the plan chose (status) */
  uint64_t tier_copy; /* the chosen copy's bytes (status) */
} ekey_dev;

struct ekey {
  char id[64];
  ekey_dev *dev; /* one per engine device */
  ekind *kind; /* loader */
  key_state state;
  bool loader_active, linked;
  bool stale; /* its file changed under it (CZK_ERR_FILE_CHANGED): unlinked, dropped by the last reference */
  czk_status load_status;
  uint32_t refs;
  void *obj;
  czk_key_tier tier;
  uint64_t bytes, actual_bytes, last_use_ns, load_ns;
  uint64_t load_t0; /* when the running load began (kc_mu) */
  czk_reservation res; /* CZK_MEM_KEY */
  ekey *next;
};

typedef struct eworker {
  pthread_mutex_t mu;
  pthread_t th;
  bool started;
  char role[12];
  uint32_t device, index, track;
  czk_worker_state state;
  uint64_t job_id;
  uint32_t part;
  const char *kind; /* name of the current job's kind (kinds live as long as the engine) */
  uint64_t busy_ns, items, t_state;
  bool urgent; /* the urgent lane's worker: takes only urgent partitions */
  struct czk_engine *e;
} eworker;

typedef struct edevice {
  pthread_mutex_t mu;
  char name[64];
  uint32_t ordinal, nworkers;
  void *backend;
  uint64_t mem_total;
  /* accounting */
  uint32_t active;            /* workers inside prove */
  uint64_t t_mark;            /* start of the current occupied / idle interval */
  czk_idle_cause cause;       /* cause of the current idle interval */
  uint64_t occupied_ns, kernel_ns, proofs;
  /* kernel_ns is the union of the proves' kernel intervals (two workers' proves overlap on one device): the recent
   * credited intervals, disjoint and sorted by start (observe.c: czk__device_kernel_credit) */
#define DEV_KIV 32
  uint64_t kiv_s[DEV_KIV], kiv_e[DEV_KIV];
  uint32_t nkiv;
  uint64_t transfer_hw_ns; /* exported TRANSFER idle time never decreases (observe.c) */
  uint64_t key_mem_limit, key_mem_used; /* device copies of keys (e->kc_mu): used <= limit always */
  /* the device memory plan (e->kc_mu; keys.c): limit (0 = none); lanes' bytes (in use and idle); tables being made
   * by proves that started (counted until their prove_start returns, then in tables_bytes) */
  uint64_t plan_limit, lane_used, tables_pending;
  uint32_t plan_tiers, plan_shapes; /* the operator's tier and shape for keys of kinds not urgent (0: any) */
  _Atomic uint32_t urgent_proving;  /* urgent proves between their prove_start and prove_finish (yield) */
  _Atomic uint64_t yields_held, yield_held_ns; /* proves held by the yield, and for how long */
  uint64_t freeing; /* bytes of copies and lanes given up but not yet freed by the kind: counted until they are */
  uint32_t lanes_busy;
  uint64_t plan_waits, lanes_warmed;
  uint64_t (*tables_bytes)(void *backend);
  uint64_t (*mem_free)(void *backend);
  uint64_t (*mem_peak)(void *backend);
  uint64_t mem_limit;
  uint64_t idle_ns[CZK_IDLE_COUNT];
  atomic_bool quarantined; /* lost (kind->device_lost after a failed prove); set once, under e->gq_mu */
  uint32_t gq_proving;     /* partitions its workers took and are proving (e->gq_mu) */
  bool gq_alone;           /* one of them is an alone partition: its other workers take nothing (e->gq_mu) */
  uint64_t prove_errors;   /* d->mu */
} edevice;

#define ENGINE_HASH 4096
/* Partitions the dispatcher may hand to the synthesis channel beyond one per worker: a finishing worker finds its
 * next item (already reserved) without a dispatcher round trip. */
#define ENGINE_SYNTH_LOOKAHEAD 1
#define ENGINE_MAX_KINDS 64
#define CZK__RETAIN_BYTES ((size_t)4 << 20) /* fault site engine.retain_job: bytes kept per job */

struct czk_engine {
  czk_engine_config cfg;
  czk_budget *budget;
  czk_trace *trace;
  uint64_t t_start;
  /* fault site engine.retain_job (tests of the soak's memory checks): blocks of CZK__RETAIN_BYTES kept per job that
   * ends while it is armed, chained through their first word, freed at destroy (e->mu) */
  void *retained;

  pthread_mutex_t mu;
  pthread_cond_t disp_cv, synth_cv, idle_cv;
  ekind *kinds[ENGINE_MAX_KINDS];
  uint32_t nkinds;
  ejob *by_id[ENGINE_HASH], *by_rid[ENGINE_HASH];
  ejob *stopped; /* jobs whose partitions were all still queued when stopped: input freed and completed by end_list */
  ejob *done_head, *done_tail;
  /* one log line per finished job, formatted under mu when the job completes and written (outside every lock) by
   * czk__joblog_flush */
  struct joblog *joblog_head, *joblog_tail;
  uint64_t next_seq;
  uint64_t keys_idle_gen; /* bumped (under mu, with disp_cv broadcast) whenever a resident key loses its last user */
  /* synth queue: binary heap of partitions */
  epart **sheap;
  size_t sheap_n, sheap_cap;
  /* dispatcher -> synthesis channel */
  epart *chan_head, *chan_tail;
  epart *uchan_head, *uchan_tail; /* urgent partitions dispatched (any synthesis worker, the urgent one first) */
  uint32_t urgent_slots;          /* free urgent synthesis slots (1 with the urgent lane, else 0) */
  uint64_t urgent_reserve;        /* budget headroom other partitions leave (e->mu): the largest urgent shape */
  pthread_cond_t usynth_cv;       /* the urgent synthesis worker waits here */
  uint32_t synth_slots; /* free places in synthesis (workers + lookahead) */
  bool intake_closed, stop_threads;
  /* counters */
  uint64_t jobs_live, jobs_submitted, jobs_completed, jobs_failed, jobs_cancelled, jobs_attached, jobs_pruned;

  /* gauges read without e->mu by the idle attribution */
  atomic_uint g_synth_queue, g_synth_busy, g_gpu_queue, g_fin_queue;
  atomic_bool g_disp_budget_wait;
  atomic_uint ndev_ok;    /* devices not quarantined (changes under gq_mu) */
  uint64_t prove_retries; /* e->mu */
  atomic_uint g_key_loads; /* key loads running now (idle cause KEY_LOAD) */

  pthread_mutex_t gq_mu;
  pthread_cond_t gq_cv;
  epart **gheap;
  size_t gheap_n, gheap_cap;
  bool gq_stop;

  pthread_mutex_t fq_mu;
  pthread_cond_t fq_cv;
  epart *fq_head, *fq_tail;
  bool fq_stop;

  pthread_mutex_t kc_mu;
  pthread_mutex_t pin_mu; /* the idle lanes' pinned reservations (keys.c): taken without engine locks (the budget's
                             notify, which takes e->mu, may run under it) */
  pthread_cond_t kc_cv;
  ekey *keys;

  pthread_t disp_th;
  bool disp_started;
  eworker *workers; /* synth workers, then device workers, then finalizers */
  uint32_t nworkers, nsynth, nprove, nfin;
  edevice *devices;
  uint32_t ndevices;

  pthread_mutex_t sd_mu; /* serializes shutdown */
  bool shut_done;
};

/* keys.c */
/* Under e->mu (dispatcher): take a reference on kind's key for partition p. When the key is not resident, reserve
 * the partition AND the key bytes together; else only the partition. Returns CZK_OK (p->res and p->key set),
 * CZK_ERR_TIMEOUT (does not fit now; *need = the bytes it asked for) or another error. */
/* keep: budget headroom to leave free (the urgent lane's), 0 for none; *need = what must be free to fit, keep
 * included */
czk_status czk__key_dispatch_reserve(czk_engine *e, ekind *k, epart *p, uint64_t keep, uint64_t *need);
/* Without locks: make sure p->key is loaded (loads it when this caller is first). */
czk_status czk__key_ensure(czk_engine *e, epart *p);
/* Without locks: drop a reference. A resident key left unreferenced wakes the dispatcher (keys_idle_gen): its bytes
 * may be what the head of the queue waits for. */
void czk__key_unref(czk_engine *e, ekey *key);
/* A part using key failed with CZK_ERR_FILE_CHANGED: the loaded key no longer matches its file. Unlink it (the next
 * part of that key id loads it afresh from disk) and drop it with its last reference. */
void czk__key_mark_stale(czk_engine *e, ekey *key);
/* The key's copy on device d for one prove (keys.c): resident -> referenced; absent -> uploaded when the device's key
 * memory allows (evicting least recently used unreferenced copies there), else NULL: prove from the host copy.
 * Every non-NULL result is released once with czk__key_device_release after prove_finish. */
void *czk__key_device_acquire(czk_engine *e, ekey *key, edevice *d, uint32_t track, bool spare);

void czk__key_device_release(czk_engine *e, ekey *key, edevice *d);
/* The device memory plan (keys.c): a lane for a prove of key on d (resident: with its copy), reused or made room for
 * (idle lanes and unreferenced copies freed, or waiting for proves in flight); CZK_ERR_NOMEM when it cannot fit and
 * nothing is in flight; spare: the copies and idle lanes of urgent kinds are not freed for it (a regular prove).
 * *held: a lane was counted for it, released once after prove_finish (ok false: the prove failed, the key's idle
 * lanes there are freed); *pending: table bytes counted until czk__lane_tables_made (after prove_start). No-ops
 * without a plan. */
czk_status czk__lane_acquire(czk_engine *e, ekey *key, edevice *d, bool resident, bool spare, uint64_t *pending,
                             bool *held, int *shape);
void czk__lane_tables_made(czk_engine *e, edevice *d, uint64_t pending);
void czk__lane_release(czk_engine *e, ekey *key, edevice *d, bool resident, bool ok);
/* Without locks: evict the least recently used unreferenced resident key other than keep_id (NULL: any); false when
 * none. need > 0: only when a reservation of `need` bytes would fit once every such key were evicted (else evicting
 * would cost keys without letting it run: the caller waits for a release instead); need = 0: unconditionally. */
/* spare_max > 0 (a regular partition's reservation with the urgent lane on: czk_engine_config.urgent_max_bytes):
 * keys of at most spare_max bytes are not evicted while partitions hold memory (a/b/c, witness, scratch), which
 * will come back: the backlog waits for its own memory rather than evicting a small key that a CRITICAL job
 * (WinningPoSt beside a PoRep backlog) would have to load again. With no partition memory in flight they go as any
 * other (a waiting head that fits once idle keys are evicted still gets them evicted). */
bool czk__key_evict_lru(czk_engine *e, const char *keep_id, uint64_t need, uint64_t spare_max);
uint64_t czk__key_budget_bytes(const ekind *k);
uint64_t czk__key_device_need(const ekey *key);
/* Free every key (destroy; no references left). */
void czk__keys_free_all(czk_engine *e);

/* observe.c */
void czk__span(czk_engine *e, const char *name, uint32_t pid, uint32_t tid, uint64_t t0, uint64_t t1, uint64_t job,
               int32_t part);
void czk__worker_set(eworker *w, czk_worker_state st, uint64_t job, uint32_t part, const char *kind);
void czk__device_enter(czk_engine *e, edevice *d);
/* The trace span "idle <cause>" (category idle) of [t0, t1) on the device's idle lane, when it lasts 1 ms or more
 * (job 0, part -1: no partition's). */
void czk__idle_span(czk_engine *e, uint32_t ordinal, czk_idle_cause c, uint64_t t0, uint64_t t1, uint64_t job,
                    int32_t part);
/* Adds the part of [s, t) not yet covered by d's recent kernel intervals to d->kernel_ns (d->mu held; tests call it on
 * a bare edevice). */
void czk__device_kernel_credit(edevice *d, uint64_t s, uint64_t t);
/* A worker leaves a prove that began at t_start; kernel_ns: its device-busy time (0 on failure), taken to end now. */
void czk__device_leave(czk_engine *e, edevice *d, uint64_t t_start, uint64_t kernel_ns);
/* Re-evaluate the idle cause of every idle device (call after a gauge that drives it changed). */
void czk__devices_recause(czk_engine *e);
czk_idle_cause czk__idle_cause_now(czk_engine *e);
/* Under e->mu: the job with this id, or NULL (engine.c). */
ejob *czk__job_find_locked(czk_engine *e, uint64_t id);
/* Under e->mu: a job of kind k completed after latency_ns at priority prio (the per-kind latency histogram). */
void czk__latency_record_locked(ekind *k, int prio, uint64_t latency_ns);
/* True when key is resident (no load or wait ahead for its user). */
bool czk__key_ready(czk_engine *e, ekey *key);

/* trace tracks */
#define TRACK_PID_PARTS 1u
#define TRACK_PID_ENGINE 2u
#define TRACK_PID_DEVICE0 10u
#define KERNEL_LANE_TID 100000u /* per device: the kernel-busy lane (worker lanes are 0..K-1) */
#define IDLE_LANE_TID 100001u   /* per device: idle intervals, named "idle <cause>" (category "idle") */
#define PART_TID(job, part) ((uint32_t)((job) * 256u + (part)))

#endif
