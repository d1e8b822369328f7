/* engine.c: the proving pipeline: job table, synth queue + dispatcher, synthesis workers, GPU queue + K workers per
 * device, finalizers, cancellation, await, pruning and shutdown (ARCHITECTURE.md §1-§2; API in czk/engine.h).
 *
 * Partition lifecycle: SYNTH_QUEUED (synth heap, no memory) -> DISPATCHED (reservation held, in the channel) -> SYNTH
 * -> GPU_QUEUED (GPU heap) -> PROVING (a/b/c released after prove_start) -> FINALIZE -> ENDED. Every partition reaches
 * part_end() exactly once, which frees its synthesis output, releases whatever the reservation still holds (each
 * category exactly once), drops its key reference and counts it against the job; the last one frees the job's parsed
 * input, then completes the job and wakes every waiter. A stopped job (failed or cancelled) loses its queued partitions
 * at once; running partitions see job->stop at the next stage boundary.
 * Ordering: both heaps order by (priority desc, job seq asc, partition asc); keys are unique because (seq, part) is.
 * Dispatcher: waits (on e->disp_cv, under e->mu) for a free synthesis slot and a non-empty queue, then tries to reserve
 * the head; when it does not fit it evicts unused keys (LRU, other than the head's own) if that makes it fit, else
 * waits; every budget release, queue push, slot return, cancellation and key left unused (keys_idle_gen) signals
 * disp_cv under e->mu, so a wakeup cannot be lost and a new higher-priority head is the one reserved next.
 * Device errors: a prove that fails on a device the kind reports lost (kind->device_lost: a sticky error) quarantines
 * that device (its workers stop; ndev_ok counts the rest) and the partition is requeued; with no usable device left,
 * the GPU queue is failed (CZK_ERR_NO_DEVICE), and so is every later partition and submit. Another CZK_ERR_DEVICE is
 * transient: the partition is requeued once (part_requeue: its synthesis output, reservation and key reference are
 * returned, it re-enters the synth queue under its own key, so that order and budget rules hold unchanged) and its
 * next prove avoids the worker that failed (gpu_pick_locked); a second device error fails the job. A prove that runs
 * out of device memory (CZK_ERR_NOMEM on a device) is requeued once too, marked alone: a worker takes it only when no
 * other prove runs on its device, and the device's other workers take nothing until it ends (the prover has given
 * back its idle buffers); out of memory again, alone, fails the job.
 * Job log: job_complete_locked formats the job's one line (under e->mu, no I/O); part_end and end_list, which every
 * completion path reaches after unlocking, write the pending lines (joblog_flush). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/fault.h"
#include "czk/log.h"
#include "engine/engine_internal.h"

/* ---- ordering heaps ------------------------------------------------------------------------------------------------ */

/* a before b: priority desc, job seq asc, partition asc */
static bool part_before(const epart *a, const epart *b) {
  if (a->job->prio != b->job->prio) return a->job->prio > b->job->prio;
  if (a->job->id != b->job->id) return a->job->id < b->job->id;
  return a->index < b->index;
}

static void heap_swap(epart **h, size_t i, size_t j) {
  epart *t = h[i];
  h[i] = h[j];
  h[j] = t;
  h[i]->heap_idx = (int32_t)i;
  h[j]->heap_idx = (int32_t)j;
}
static void heap_up(epart **h, size_t i) {
  while (i && part_before(h[i], h[(i - 1) / 2])) {
    heap_swap(h, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}
static void heap_down(epart **h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && part_before(h[l], h[m])) m = l;
    if (r < n && part_before(h[r], h[m])) m = r;
    if (m == i) return;
    heap_swap(h, i, m);
    i = m;
  }
}
static bool heap_push(epart ***h, size_t *n, size_t *cap, epart *p) {
  if (*n == *cap) {
    size_t nc = *cap ? 2 * *cap : 64;
    epart **nh = realloc(*h, nc * sizeof *nh);
    if (!nh) return false;
    *h = nh;
    *cap = nc;
  }
  (*h)[*n] = p;
  p->heap_idx = (int32_t)*n;
  heap_up(*h, (*n)++);
  return true;
}
static void heap_remove(epart **h, size_t *n, epart *p) {
  size_t i = (size_t)p->heap_idx;
  p->heap_idx = -1;
  if (i != --*n) {
    h[i] = h[*n];
    h[i]->heap_idx = (int32_t)i;
    heap_down(h, *n, i);
    heap_up(h, i);
  }
}

/* ---- job table ---------------------------------------------------------------------------------------------------- */

static size_t hash_id(uint64_t id) { return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 52) % ENGINE_HASH; }
static size_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return (size_t)(h % ENGINE_HASH);
}

static ejob *find_job(czk_engine *e, uint64_t id) {
  for (ejob *j = e->by_id[hash_id(id)]; j; j = j->next_id)
    if (j->id == id) return j;
  return NULL;
}

ejob *czk__job_find_locked(czk_engine *e, uint64_t id) { return find_job(e, id); }
static ejob *find_rid(czk_engine *e, const char *rid) {
  for (ejob *j = e->by_rid[hash_str(rid)]; j; j = j->next_rid)
    if (strcmp(j->request_id, rid) == 0) return j;
  return NULL;
}
static void unlink_rid(czk_engine *e, ejob *j) {
  if (!j->request_id) return;
  for (ejob **pp = &e->by_rid[hash_str(j->request_id)]; *pp; pp = &(*pp)->next_rid)
    if (*pp == j) {
      *pp = j->next_rid;
      j->next_rid = NULL;
      return;
    }
}

/* Without locks. */
static void job_free(czk_engine *e, ejob *j) {
  if (j->parsed && j->kind && j->kind->k.parsed_free) j->kind->k.parsed_free(j->kind->k.user, j->parsed);
  if (czk_reservation_live(&j->in_res)) czk_budget_release_all(e->budget, &j->in_res);
  pthread_cond_destroy(&j->cv);
  free(j->request_id);
  free(j->parts);
  free(j->proof);
  free(j);
}

/* Under e->mu: unlink jobs finished more than ttl ago with no waiter; returns them as a list for job_free. */
static ejob *prune_locked(czk_engine *e, uint64_t now) {
  ejob *out = NULL;
  uint64_t ttl = e->cfg.result_ttl_ms * CZK_NS_PER_MS;
  ejob **pp = &e->done_head, *prev = NULL;
  while (*pp) {
    ejob *j = *pp;
    if (now - j->t_done < ttl) break; /* completion order: the rest are younger */
    if (j->waiters) {
      prev = j;
      pp = &j->next_done;
      continue;
    }
    *pp = j->next_done;
    if (e->done_tail == j) e->done_tail = prev;
    for (ejob **q = &e->by_id[hash_id(j->id)]; *q; q = &(*q)->next_id)
      if (*q == j) {
        *q = j->next_id;
        break;
      }
    unlink_rid(e, j);
    e->jobs_pruned++;
    j->next_done = out;
    out = j;
  }
  return out;
}
static void free_job_list(czk_engine *e, ejob *l) {
  while (l) {
    ejob *n = l->next_done;
    job_free(e, l);
    l = n;
  }
}

/* ---- partition end, job completion, stopping --------------------------------------------------------------------- */

static void wake_dispatcher(czk_engine *e) {
  pthread_mutex_lock(&e->mu);
  pthread_cond_broadcast(&e->disp_cv);
  pthread_mutex_unlock(&e->mu);
}

static void budget_notify(void *ctx) { wake_dispatcher((czk_engine *)ctx); }

/* The timeline's queue-depth step graphs: a counter sample of a queue's length, taken under the lock that guards that
 * queue, so that the samples of one queue are in the order of its changes (the trace mutex is a leaf lock). */
#define Q_SYNTH "synth queue (partitions)"
#define Q_GPU "gpu queue (partitions)"
#define Q_FIN "finalize queue (partitions)"
static void queue_sample(czk_engine *e, const char *name, size_t depth) {
  czk_trace_counter(e->trace, name, TRACK_PID_ENGINE, czk__clock_now_ns(), (double)depth);
}
static void budget_observe(void *ctx, uint64_t used) {
  czk_engine *e = ctx;
  czk_trace_counter(e->trace, "memory used (bytes)", TRACK_PID_ENGINE, czk__clock_now_ns(), (double)used);
}

/* ---- the per-job log line ------------------------------------------------------------------------------------------ */

typedef struct joblog {
  struct joblog *next;
  czk_log_level level;
  char line[1024];
} joblog;

static const char *prio_name(int p) {
  static const char *const names[CZK_PRIORITY_COUNT] = {"normal", "low", "normal", "high", "critical"};
  return p >= 0 && p < CZK_PRIORITY_COUNT ? names[p] : "?";
}

/* Under e->mu: format j's line (info when it completed, warn when it failed or was cancelled) for czk__joblog_flush;
 * a line that cannot be allocated is dropped. Times are sums over partitions (they overlap in wall time). */
static void joblog_add_locked(czk_engine *e, const ejob *j) {
  joblog *l = malloc(sizeof *l);
  if (!l) return;
  l->next = NULL;
  l->level = j->status == CZK_OK ? CZK_LOG_INFO : CZK_LOG_WARN;
  const char *st = j->status == CZK_OK ? "completed" : j->status == CZK_ERR_CANCELLED ? "cancelled" : "failed";
  int n = snprintf(l->line, sizeof l->line,
                   "job %llu %s: request=%s kind=%s priority=%s partitions=%u queue_ms=%llu key_load_ms=%llu "
                   "synthesis_ms=%llu prove_ms=%llu verify_ms=%llu total_ms=%llu",
                   (unsigned long long)j->id, st, j->request_id ? j->request_id : "-", j->kind->name, prio_name(j->prio),
                   j->nparts, (unsigned long long)(j->queue_wait_ns / CZK_NS_PER_MS),
                   (unsigned long long)(j->srs_load_ns / CZK_NS_PER_MS), (unsigned long long)(j->synth_ns / CZK_NS_PER_MS),
                   (unsigned long long)(j->kernel_ns / CZK_NS_PER_MS), (unsigned long long)(j->verify_ns / CZK_NS_PER_MS),
                   (unsigned long long)((j->t_done - j->t_submit) / CZK_NS_PER_MS));
  if (j->status != CZK_OK && n > 0 && (size_t)n < sizeof l->line)
    snprintf(l->line + n, sizeof l->line - (size_t)n, " error=\"%s\"", j->error[0] ? j->error : czk_status_str(j->status));
  if (e->joblog_tail) e->joblog_tail->next = l;
  else e->joblog_head = l;
  e->joblog_tail = l;
}

/* Without locks: write the pending job lines (in completion order). */
static void joblog_flush(czk_engine *e) {
  pthread_mutex_lock(&e->mu);
  joblog *l = e->joblog_head;
  e->joblog_head = e->joblog_tail = NULL;
  pthread_mutex_unlock(&e->mu);
  while (l) {
    joblog *n = l->next;
    CZK_LOG(l->level, "job", "%s", l->line);
    free(l);
    l = n;
  }
}

/* Under e->mu: the last partition of j ended. */
static void job_complete_locked(czk_engine *e, ejob *j) {
  j->done = true;
  j->t_done = czk__clock_now_ns();
  if (j->status == CZK_OK) {
    j->kind->completed++;
    e->jobs_completed++;
    czk__latency_record_locked(j->kind, j->prio, j->t_done - j->t_submit);
  } else if (j->status == CZK_ERR_CANCELLED) {
    j->kind->cancelled++;
    e->jobs_cancelled++;
  } else {
    j->kind->failed++;
    e->jobs_failed++;
  }
  e->jobs_live--;
  j->next_done = NULL;
  if (e->done_tail) e->done_tail->next_done = j;
  else e->done_head = j;
  e->done_tail = j;
  /* a failed or cancelled job no longer owns its request id: a retry starts a new job */
  if (j->status != CZK_OK) unlink_rid(e, j);
  joblog_add_locked(e, j);
  pthread_cond_broadcast(&j->cv);
  pthread_cond_broadcast(&e->idle_cv);
}

/* Without locks: partition p leaves the pipeline (exactly once). */
static void part_end(czk_engine *e, epart *p) {
  ejob *j = p->job;
  ekind *k = j->kind;
  /* --log-level debug: one line per partition (id, index and count are fixed at submit; p's times are this thread's) */
  CZK_DEBUG("job", "job %llu partition %u/%u %s: key_load_ms=%llu synthesis_ms=%llu prove_ms=%llu verify_ms=%llu",
            (unsigned long long)j->id, p->index + 1, j->nparts, atomic_load(&j->stop) ? "stopped" : "done",
            (unsigned long long)(p->key_load_ns / CZK_NS_PER_MS), (unsigned long long)(p->synth_ns / CZK_NS_PER_MS),
            (unsigned long long)(p->kernel_ns / CZK_NS_PER_MS), (unsigned long long)(p->verify_ns / CZK_NS_PER_MS));
  if (p->synth) {
    k->k.synth_free(k->k.user, p->synth);
    p->synth = NULL;
  }
  if (czk_reservation_live(&p->res)) czk_budget_release_all(e->budget, &p->res);
  if (p->key) {
    czk__key_unref(e, p->key);
    p->key = NULL;
  }
  void *parsed = NULL;
  pthread_mutex_lock(&e->mu);
  p->stage = PS_ENDED;
  k->in_progress--;
  j->synth_ns += p->synth_ns;
  j->kernel_ns += p->kernel_ns;
  j->srs_load_ns += p->key_load_ns;
  j->verify_ns += p->verify_ns;
  bool last = --j->parts_left == 0;
  if (last) {
    parsed = j->parsed;
    j->parsed = NULL;
  }
  pthread_mutex_unlock(&e->mu);
  if (!last) return;
  /* The parsed input is freed (outside the lock) before the job completes, so that a woken waiter sees a job that
   * holds nothing. In between, parts_left == 0 and !done: job_stop_locked and cancel treat the job as finished. */
  if (parsed && k->k.parsed_free) k->k.parsed_free(k->k.user, parsed);
  if (czk_reservation_live(&j->in_res)) czk_budget_release_all(e->budget, &j->in_res); /* with the input it covered */
  /* fault site (tests): a daemon that keeps memory outside its budget for every job, as a leak would; the soak's
   * memory checks must fail on it (docs/reliability.md, "Soak") */
  void *keep = czk_fault("engine.retain_job") ? malloc(CZK__RETAIN_BYTES) : NULL;
  if (keep) memset(keep, 0xa5, CZK__RETAIN_BYTES); /* resident, not just reserved */
  pthread_mutex_lock(&e->mu);
  if (keep) *(void **)keep = e->retained, e->retained = keep;
  job_complete_locked(e, j);
  pthread_mutex_unlock(&e->mu);
  joblog_flush(e);
  czk__devices_recause(e);
}

/* Under e->mu: mark j stopped with `st` (first cause wins); drop its queued partitions (no memory held) and move its
 * GPU-queued partitions to *gpu_drop (the caller ends them after unlocking). */
static void job_stop_locked(czk_engine *e, ejob *j, czk_status st, uint32_t part, const char *why, epart **gpu_drop) {
  if (j->done || j->parts_left == 0 || atomic_load(&j->stop)) return; /* parts_left 0: completing in part_end */
  j->status = st;
  j->failed_part = part;
  snprintf(j->error, sizeof j->error, "%s", why);
  atomic_store(&j->stop, 1);
  for (uint32_t i = 0; i < j->nparts; i++) {
    epart *p = &j->parts[i];
    if (p->stage == PS_SYNTH_QUEUED && p->heap_idx >= 0) {
      heap_remove(e->sheap, &e->sheap_n, p);
      atomic_fetch_sub(&e->g_synth_queue, 1);
      j->kind->pending--;
      p->stage = PS_ENDED; /* never dispatched: holds no memory, no key */
      if (--j->parts_left == 0) { /* its input is freed, then it completes, in end_list (no locks held there) */
        j->stop_next = e->stopped;
        e->stopped = j;
      }
    }
  }
  queue_sample(e, Q_SYNTH, e->sheap_n);
  pthread_mutex_lock(&e->gq_mu);
  for (uint32_t i = 0; i < j->nparts; i++) {
    epart *p = &j->parts[i];
    if (p->stage == PS_GPU_QUEUED && p->heap_idx >= 0) {
      heap_remove(e->gheap, &e->gheap_n, p);
      atomic_fetch_sub(&e->g_gpu_queue, 1);
      p->stage = PS_FINALIZE; /* owned by the canceller now */
      p->next = *gpu_drop;
      *gpu_drop = p;
    }
  }
  queue_sample(e, Q_GPU, e->gheap_n);
  pthread_mutex_unlock(&e->gq_mu);
  pthread_cond_broadcast(&e->disp_cv);
}

/* Without locks: end the dropped partitions, then write the lines of jobs that completed meanwhile (also those whose
 * partitions were all still queued: job_stop_locked leaves them to this function, e->stopped). */
static void end_list(czk_engine *e, epart *l) {
  /* jobs stopped before any partition started: their parsed input and its reservation go, then they complete (as
   * part_end does for a job's last partition), so a cancelled queued job holds nothing once it is CANCELLED */
  pthread_mutex_lock(&e->mu);
  ejob *s = e->stopped;
  e->stopped = NULL;
  pthread_mutex_unlock(&e->mu);
  while (s) {
    ejob *j = s;
    s = j->stop_next;
    j->stop_next = NULL;
    pthread_mutex_lock(&e->mu);
    void *parsed = j->parsed;
    j->parsed = NULL;
    pthread_mutex_unlock(&e->mu);
    if (parsed && j->kind->k.parsed_free) j->kind->k.parsed_free(j->kind->k.user, parsed);
    if (czk_reservation_live(&j->in_res)) czk_budget_release_all(e->budget, &j->in_res);
    pthread_mutex_lock(&e->mu);
    job_complete_locked(e, j);
    pthread_mutex_unlock(&e->mu);
  }
  while (l) {
    epart *n = l->next;
    part_end(e, l);
    l = n;
  }
  joblog_flush(e);
}

/* Without locks: partition p failed with st; fail its job with the text `why` (first failure wins) and end p. */
static void part_fail_why(czk_engine *e, epart *p, czk_status st, const char *why) {
  if (st == CZK_ERR_FILE_CHANGED && p->key) czk__key_mark_stale(e, p->key); /* reload it for the next job */
  epart *drop = NULL;
  pthread_mutex_lock(&e->mu);
  job_stop_locked(e, p->job, st, p->index, why, &drop);
  pthread_mutex_unlock(&e->mu);
  end_list(e, drop);
  part_end(e, p);
}

/* Without locks: as part_fail_why, the text being "<stage> of partition <i> failed: <status text>". */
static void part_fail(czk_engine *e, epart *p, czk_status st, const char *stage) {
  char why[512];
  snprintf(why, sizeof why, "%s of partition %u failed: %s", stage, p->index, czk_status_str(st));
  part_fail_why(e, p, st, why);
}

static const char k_no_device[] = "no usable device (every device was quarantined after a sticky device error)";

/* Without locks: fail p because no device is left. */
static void part_fail_no_device(czk_engine *e, epart *p) {
  char why[512];
  snprintf(why, sizeof why, "prove of partition %u failed: %s", p->index, k_no_device);
  part_fail_why(e, p, CZK_ERR_NO_DEVICE, why);
}

static bool job_stopped(const ejob *j) { return atomic_load(&j->stop) != 0; }

/* ---- dispatcher ---------------------------------------------------------------------------------------------------- */

static uint64_t shape_total(const czk_engine_shape *s);

/* Whether p goes on the urgent lane (czk_engine_config.urgent_max_bytes): a CRITICAL job's small partition. */
static bool part_urgent(const czk_engine *e, const epart *p) {
  return e->cfg.urgent_max_bytes && p->job->prio == CZK_PRIORITY_CRITICAL &&
         shape_total(&p->shape) <= e->cfg.urgent_max_bytes;
}

/* Under e->mu: the budget headroom a non-urgent partition p of kind k leaves free for the urgent lane: the largest
 * urgent shape, unless p and k's key could then never fit (the lane must not starve the kind). */
static uint64_t urgent_headroom(const czk_engine *e, const ekind *k, const epart *p) {
  uint64_t h = e->urgent_reserve, t = shape_total(&p->shape), kb = k->k.key_id ? k->k.key_bytes : 0;
  if (!h || t == UINT64_MAX || kb > UINT64_MAX - t - h) return 0;
  return t + kb + h <= e->cfg.mem_limit_bytes ? h : 0;
}

static void *dispatcher_main(void *arg) {
  czk_engine *e = arg;
  pthread_mutex_lock(&e->mu);
  for (;;) {
    if (e->stop_threads) break;
    epart *p = e->sheap_n ? e->sheap[0] : NULL;
    bool urgent = p && part_urgent(e, p), uslot = urgent && e->urgent_slots > 0;
    if (!p || (!uslot && e->synth_slots == 0)) {
      pthread_cond_wait(&e->disp_cv, &e->mu);
      continue;
    }
    uint64_t now = czk__clock_now_ns();
    uint64_t need = 0, idle_gen = e->keys_idle_gen;
    uint64_t keep = urgent ? 0 : urgent_headroom(e, p->job->kind, p);
    /* fault site (tests): the partition's memory reservation fails as an allocation would */
    czk_status st =
        czk_fault("engine.reserve") ? CZK_ERR_NOMEM : czk__key_dispatch_reserve(e, p->job->kind, p, keep, &need);
    if (st == CZK_OK) {
      heap_remove(e->sheap, &e->sheap_n, p);
      atomic_fetch_sub(&e->g_synth_queue, 1);
      queue_sample(e, Q_SYNTH, e->sheap_n);
      p->job->kind->pending--;
      p->job->kind->in_progress++;
      p->stage = PS_DISPATCHED;
      p->t_dispatch = now;
      p->job->queue_wait_ns += now - p->t_enq;
      if (uslot) e->urgent_slots--;
      else e->synth_slots--;
      p->urgent_slot = uslot;
      atomic_fetch_add(&e->g_synth_busy, 1);
      p->next = NULL;
      if (urgent) { /* any free synthesis worker takes it first; the urgent lane's worker is free for it */
        if (e->uchan_tail) e->uchan_tail->next = p;
        else e->uchan_head = p;
        e->uchan_tail = p;
        pthread_cond_signal(&e->usynth_cv);
      } else {
        if (e->chan_tail) e->chan_tail->next = p;
        else e->chan_head = p;
        e->chan_tail = p;
      }
      pthread_cond_signal(&e->synth_cv);
      uint64_t w0 = p->t_wait0 ? p->t_wait0 : now;
      czk__span(e, "queue wait", TRACK_PID_PARTS, PART_TID(p->job->id, p->index), p->t_enq, w0, p->job->id,
                (int32_t)p->index);
      if (p->t_wait0)
        czk__span(e, "reserve wait", TRACK_PID_PARTS, PART_TID(p->job->id, p->index), p->t_wait0, now, p->job->id,
                  (int32_t)p->index);
      if (atomic_load(&e->g_disp_budget_wait)) {
        atomic_store(&e->g_disp_budget_wait, false);
        pthread_mutex_unlock(&e->mu);
        czk__devices_recause(e);
        pthread_mutex_lock(&e->mu);
      }
      continue;
    }
    if (st != CZK_ERR_TIMEOUT) {
      /* cannot happen for admitted jobs (checked at submit); fail the job rather than spin */
      epart *drop = NULL;
      char why[160];
      snprintf(why, sizeof why, "memory reservation of partition %u failed: %s", p->index, czk_status_str(st));
      job_stop_locked(e, p->job, st, p->index, why, &drop);
      pthread_mutex_unlock(&e->mu);
      end_list(e, drop);
      pthread_mutex_lock(&e->mu);
      continue;
    }
    /* does not fit now: evict unused keys (LRU, never the head's own) when that makes it fit, else wait for a
     * budget release, a key becoming unused (keys_idle_gen: checked after relocking, so a key released while we
     * were unlocked is not missed) or a queue change */
    const char *own = p->job->kind->k.key_id; /* kinds live as long as the engine */
    pthread_mutex_unlock(&e->mu);
    bool evicted = czk__key_evict_lru(e, own, need, urgent ? 0 : e->cfg.urgent_max_bytes);
    pthread_mutex_lock(&e->mu);
    if (evicted || e->keys_idle_gen != idle_gen) continue;
    if (e->sheap_n && e->sheap[0] == p && !p->t_wait0) p->t_wait0 = now;
    if (!atomic_load(&e->g_disp_budget_wait)) {
      atomic_store(&e->g_disp_budget_wait, true);
      pthread_mutex_unlock(&e->mu);
      czk__devices_recause(e);
      pthread_mutex_lock(&e->mu);
      continue; /* re-check: a release may have happened while unlocked */
    }
    pthread_cond_wait(&e->disp_cv, &e->mu);
  }
  pthread_mutex_unlock(&e->mu);
  return NULL;
}

/* ---- synthesis workers --------------------------------------------------------------------------------------------- */

static void gpu_push(czk_engine *e, epart *p) {
  p->t_gpu_enq = czk__clock_now_ns();
  pthread_mutex_lock(&e->gq_mu);
  bool nodev = atomic_load(&e->ndev_ok) == 0; /* read under gq_mu: a last quarantine drains the queue under it */
  bool ok = !nodev && heap_push(&e->gheap, &e->gheap_n, &e->gheap_cap, p);
  if (ok) {
    p->stage = PS_GPU_QUEUED;
    atomic_fetch_add(&e->g_gpu_queue, 1);
    queue_sample(e, Q_GPU, e->gheap_n);
    /* a retried partition may be refused by the worker a signal wakes (gpu_pick_locked): wake them all */
    if (p->avoid_worker >= 0 || e->cfg.urgent_max_bytes) pthread_cond_broadcast(&e->gq_cv);
    else pthread_cond_signal(&e->gq_cv);
  }
  pthread_mutex_unlock(&e->gq_mu);
  if (nodev) part_fail_no_device(e, p);
  else if (!ok) part_fail(e, p, CZK_ERR_NOMEM, "GPU queue push");
}

static void *synth_main(void *arg) {
  eworker *w = arg;
  czk_engine *e = w->e;
  for (;;) {
    pthread_mutex_lock(&e->mu);
    while (!e->uchan_head && (w->urgent || !e->chan_head) && !e->stop_threads)
      pthread_cond_wait(w->urgent ? &e->usynth_cv : &e->synth_cv, &e->mu);
    epart *p;
    if (e->uchan_head) {
      p = e->uchan_head;
      e->uchan_head = p->next;
      if (!e->uchan_head) e->uchan_tail = NULL;
    } else if (!w->urgent && e->chan_head) {
      p = e->chan_head;
      e->chan_head = p->next;
      if (!e->chan_head) e->chan_tail = NULL;
    } else {
      pthread_mutex_unlock(&e->mu);
      break;
    }
    p->next = NULL;
    p->stage = PS_SYNTH;
    const bool uslot = p->urgent_slot; /* p is not ours to read once it is pushed on */
    pthread_mutex_unlock(&e->mu);

    ejob *j = p->job;
    ekind *k = j->kind;
    czk__worker_set(w, CZK_WORKER_SYNTH, j->id, p->index, k->name);
    czk_status st = CZK_OK;
    bool failed = false;
    if (job_stopped(j)) {
      part_end(e, p);
    } else if (atomic_load(&e->ndev_ok) == 0) {
      part_fail_no_device(e, p);
    } else {
      if (p->key) {
        bool wait = !czk__key_ready(e, p->key); /* the worker shows key_load while it loads or waits for a load */
        if (wait) czk__worker_set(w, CZK_WORKER_KEY_LOAD, j->id, p->index, k->name);
        uint64_t t0 = czk__clock_now_ns();
        st = czk__key_ensure(e, p);
        uint64_t t1 = czk__clock_now_ns();
        if (wait) czk__worker_set(w, CZK_WORKER_SYNTH, j->id, p->index, k->name);
        if (t1 - t0 > 50000) czk__span(e, "key wait", TRACK_PID_ENGINE, w->track, t0, t1, j->id, (int32_t)p->index);
        if (st != CZK_OK) {
          char stage[400] = "key load", kw[360] = "";
          ekind *kk = p->key->kind;
          if (kk->k.key_error) kk->k.key_error(kk->k.user, p->key->id, kw, sizeof kw);
          if (kw[0]) snprintf(stage, sizeof stage, "key load (%s)", kw);
          part_fail(e, p, st, stage);
          failed = true;
        }
      }
      if (!failed && job_stopped(j)) {
        part_end(e, p);
        failed = true;
      }
      if (!failed) {
        uint64_t t0 = czk__clock_now_ns();
        void *synth = NULL;
        const bool urgent = part_urgent(e, p); /* its pool chunks go ahead of the backlog's */
        if (urgent) czk_pool_set_urgent(true);
        st = k->k.synthesize(k->k.user, j->parsed, p->index, e->cfg.pool, &synth);
        if (urgent) czk_pool_set_urgent(false);
        uint64_t t1 = czk__clock_now_ns();
        p->synth = synth;
        p->synth_ns = t1 - t0;
        czk__span(e, "synth", TRACK_PID_ENGINE, w->track, t0, t1, j->id, (int32_t)p->index);
        czk__span(e, "synth", TRACK_PID_PARTS, PART_TID(j->id, p->index), t0, t1, j->id, (int32_t)p->index);
        if (st != CZK_OK) part_fail(e, p, st, "synthesis");
        else if (job_stopped(j)) part_end(e, p);
        else gpu_push(e, p);
      }
    }
    czk__worker_set(w, CZK_WORKER_IDLE, 0, 0, NULL);
    pthread_mutex_lock(&e->mu);
    if (uslot) e->urgent_slots++;
    else e->synth_slots++;
    atomic_fetch_sub(&e->g_synth_busy, 1);
    pthread_cond_broadcast(&e->disp_cv);
    pthread_mutex_unlock(&e->mu);
  }
  return NULL;
}

/* ---- device workers ------------------------------------------------------------------------------------------------ */

static void fin_push(czk_engine *e, epart *p) {
  p->t_fin_enq = czk__clock_now_ns();
  pthread_mutex_lock(&e->fq_mu);
  p->stage = PS_FINALIZE;
  p->next = NULL;
  if (e->fq_tail) e->fq_tail->next = p;
  else e->fq_head = p;
  e->fq_tail = p;
  queue_sample(e, Q_FIN, atomic_fetch_add(&e->g_fin_queue, 1) + 1);
  pthread_cond_signal(&e->fq_cv);
  pthread_mutex_unlock(&e->fq_mu);
}

/* Under gq_mu: whether worker w may prove p. A partition retried after a transient device error (avoid_worker set)
 * goes to another worker: while another usable device exists, to one of its workers; on the one usable device, to
 * the other worker there; a device with one worker retries on that worker. */
static bool may_take(czk_engine *e, const eworker *w, const epart *p) {
  if (e->devices[w->device].gq_alone) return false; /* an alone partition has the device */
  if (p->avoid_worker < 0) return true;
  const eworker *f = &e->workers[p->avoid_worker];
  if (f->device != w->device) return true;
  if (atomic_load(&e->ndev_ok) > 1) return false; /* f's device is usable here (w is on it), and another one is */
  return w != f || e->devices[w->device].nworkers == 1;
}

/* Under gq_mu: an alone partition w may take but must wait for (other proves on its device). */
static bool alone_waits(czk_engine *e, const eworker *w, const epart *p) {
  return p->alone && e->devices[w->device].gq_proving > 0;
}

/* Under gq_mu: the first partition in queue order that w may take, or NULL. Only a retried head costs a scan. An
 * alone partition that w could take once its device is free bars w from every partition after it, so that the device
 * drains for it instead of starving it. */
static epart *gpu_pick_locked(czk_engine *e, const eworker *w) {
  epart *best = NULL, *bar = NULL;
  if (!w->urgent && e->gheap_n && may_take(e, w, e->gheap[0]))
    return alone_waits(e, w, e->gheap[0]) ? NULL : e->gheap[0];
  for (size_t i = 0; i < e->gheap_n; i++) {
    epart *q = e->gheap[i];
    if ((w->urgent && !part_urgent(e, q)) || !may_take(e, w, q)) continue; /* the urgent lane: urgent ones only */
    epart **slot = alone_waits(e, w, q) ? &bar : &best;
    if (!*slot || part_before(q, *slot)) *slot = q;
  }
  return bar && best && part_before(bar, best) ? NULL : best;
}

/* Without locks: p (PS_PROVING, owned by the caller) goes back to the synth queue to be synthesized and proved again:
 * its synthesis output (consumed by the failed prove), reservation and key reference are returned first, so it holds
 * nothing while queued, exactly like a partition never dispatched. A stopped job ends it instead. */
static void part_requeue(czk_engine *e, epart *p, int32_t avoid_worker) {
  ejob *j = p->job;
  ekind *k = j->kind;
  if (p->synth) {
    k->k.synth_free(k->k.user, p->synth);
    p->synth = NULL;
  }
  if (czk_reservation_live(&p->res)) czk_budget_release_all(e->budget, &p->res);
  if (p->key) {
    czk__key_unref(e, p->key);
    p->key = NULL;
  }
  p->avoid_worker = avoid_worker;
  pthread_mutex_lock(&e->mu);
  bool queued = !job_stopped(j) && heap_push(&e->sheap, &e->sheap_n, &e->sheap_cap, p);
  if (queued) {
    p->stage = PS_SYNTH_QUEUED;
    p->t_enq = czk__clock_now_ns();
    p->t_wait0 = 0;
    k->in_progress--;
    k->pending++;
    atomic_fetch_add(&e->g_synth_queue, 1);
    pthread_cond_broadcast(&e->disp_cv);
  }
  bool stopped = job_stopped(j);
  pthread_mutex_unlock(&e->mu);
  if (queued) czk__devices_recause(e);
  else if (stopped) part_end(e, p);
  else part_fail(e, p, CZK_ERR_NOMEM, "requeue after a device error");
}

/* Without locks: quarantine device d (once). Returns the usable devices left; with none left, every GPU-queued
 * partition fails (no worker would take it). */
static uint32_t device_quarantine(czk_engine *e, edevice *d, const epart *p, czk_status st) {
  epart *drop = NULL;
  pthread_mutex_lock(&e->gq_mu);
  bool first = !atomic_load(&d->quarantined);
  if (first) {
    atomic_store(&d->quarantined, true);
    atomic_fetch_sub(&e->ndev_ok, 1);
  }
  uint32_t left = atomic_load(&e->ndev_ok);
  if (left == 0)
    while (e->gheap_n) {
      epart *q = e->gheap[0];
      heap_remove(e->gheap, &e->gheap_n, q);
      atomic_fetch_sub(&e->g_gpu_queue, 1);
      q->stage = PS_FINALIZE; /* owned by this caller now */
      q->next = drop;
      drop = q;
    }
  pthread_cond_broadcast(&e->gq_cv); /* its workers leave; the others re-check what they may take */
  pthread_mutex_unlock(&e->gq_mu);
  if (first)
    CZK_ERROR("engine", "device %u (%s) quarantined: a prove (job %llu partition %u) failed with a sticky error (%s); "
              "%u usable device(s) left", d->ordinal, d->name, (unsigned long long)p->job->id, p->index,
              czk_status_str(st), left);
  while (drop) {
    epart *n = drop->next;
    part_fail_no_device(e, drop);
    drop = n;
  }
  return left;
}

/* Without locks: the prove of p on worker w (device d) failed with st. */
static void prove_failed(czk_engine *e, eworker *w, edevice *d, const czk_engine_device_ctx *ctx, epart *p,
                         czk_status st) {
  ejob *j = p->job;
  ekind *k = j->kind;
  pthread_mutex_lock(&d->mu);
  d->prove_errors++;
  pthread_mutex_unlock(&d->mu);
  if (job_stopped(j)) {
    part_fail(e, p, st, "prove"); /* the job already has its outcome: this only ends p */
    return;
  }
  if (k->k.device_lost && k->k.device_lost(k->k.user, ctx)) {
    if (device_quarantine(e, d, p, st) > 0) {
      part_requeue(e, p, -1);
      return;
    }
    char why[512];
    snprintf(why, sizeof why, "prove of partition %u failed: %s on device %u (%s); %s", p->index, czk_status_str(st),
             d->ordinal, d->name, k_no_device);
    part_fail_why(e, p, CZK_ERR_NO_DEVICE, why);
    return;
  }
  if (st == CZK_ERR_NOMEM && ctx->backend && p->retries == 0) {
    p->retries++;
    CZK_WARN("engine", "job %llu partition %u: device %u (%s) ran out of memory with other proves on it; proving it "
             "again once, alone on a device", (unsigned long long)j->id, p->index, d->ordinal, d->name);
    pthread_mutex_lock(&e->mu);
    e->prove_retries++;
    pthread_mutex_unlock(&e->mu);
    p->alone = true;
    part_requeue(e, p, -1);
    return;
  }
  if (st == CZK_ERR_NOMEM && ctx->backend && p->alone) {
    char why[512];
    snprintf(why, sizeof why, "prove of partition %u failed: %s on device %u (%s), even alone on the device "
             "(its key, lanes and scratch need more device memory than it has)", p->index, czk_status_str(st),
             d->ordinal, d->name);
    part_fail_why(e, p, st, why);
    return;
  }
  if (st == CZK_ERR_DEVICE && p->retries == 0) {
    p->retries++;
    CZK_WARN("engine", "job %llu partition %u: prove failed on device %u (%s) worker %u: %s; proving it again once, "
             "on another worker", (unsigned long long)j->id, p->index, d->ordinal, d->name, w->index,
             czk_status_str(st));
    pthread_mutex_lock(&e->mu);
    e->prove_retries++;
    pthread_mutex_unlock(&e->mu);
    part_requeue(e, p, (int32_t)(w - e->workers));
    return;
  }
  if (st == CZK_ERR_DEVICE) {
    char why[512];
    snprintf(why, sizeof why, "prove of partition %u failed: %s on device %u (%s), again after one retry", p->index,
             czk_status_str(st), d->ordinal, d->name);
    part_fail_why(e, p, st, why);
    return;
  }
  part_fail(e, p, st, "prove");
}

/* A worker of d is done with the partition it took: the device's count, and its alone mark, go back; workers waiting
 * for the device (an alone partition, or barred behind one) look again. */
static void gq_done(czk_engine *e, edevice *d, bool alone) {
  pthread_mutex_lock(&e->gq_mu);
  d->gq_proving--;
  if (alone) d->gq_alone = false;
  if (alone || d->gq_proving == 0) pthread_cond_broadcast(&e->gq_cv);
  pthread_mutex_unlock(&e->gq_mu);
}

/* czk_engine_device_ctx.yield: holds a prove that is not urgent while an urgent one runs on the device (polled every
 * 200 us: an urgent prove lasts tens of milliseconds; 2 s at most, so that a stuck one cannot stall the backlog). */
static void device_yield(void *user) {
  edevice *d = user;
  if (!atomic_load(&d->urgent_proving)) return;
  const uint64_t t0 = czk__clock_now_ns();
  uint64_t t = t0;
  while (atomic_load(&d->urgent_proving) && t - t0 < 2000000000ull) {
    czk__clock_sleep_ns(200000);
    t = czk__clock_now_ns();
  }
  atomic_fetch_add(&d->yields_held, 1);
  atomic_fetch_add(&d->yield_held_ns, t - t0);
}

static void *prove_main(void *arg) {
  eworker *w = arg;
  czk_engine *e = w->e;
  edevice *d = &e->devices[w->device];
  czk_engine_device_ctx ctx = {.ordinal = d->ordinal, .worker = w->index, .backend = d->backend};
  for (;;) {
    pthread_mutex_lock(&e->gq_mu);
    epart *p;
    for (;;) { /* a quarantined device's workers leave */
      bool lost = atomic_load(&d->quarantined);
      p = lost ? NULL : gpu_pick_locked(e, w);
      if (p || lost || e->gq_stop) break;
      pthread_cond_wait(&e->gq_cv, &e->gq_mu);
    }
    if (!p) {
      pthread_mutex_unlock(&e->gq_mu);
      break;
    }
    heap_remove(e->gheap, &e->gheap_n, p);
    atomic_fetch_sub(&e->g_gpu_queue, 1);
    queue_sample(e, Q_GPU, e->gheap_n);
    p->stage = PS_PROVING;
    const bool alone = p->alone;
    d->gq_proving++;
    if (alone) d->gq_alone = true;
    pthread_mutex_unlock(&e->gq_mu);

    ejob *j = p->job;
    ekind *k = j->kind;
    uint64_t t0 = czk__clock_now_ns();
    czk__span(e, "gpu queue", TRACK_PID_PARTS, PART_TID(j->id, p->index), p->t_gpu_enq, t0, j->id,
              (int32_t)p->index);
    if (job_stopped(j)) {
      gq_done(e, d, alone);
      part_end(e, p);
      continue;
    }
    czk__worker_set(w, CZK_WORKER_PROVING, j->id, p->index, k->name);
    czk__device_enter(e, d);
    czk_engine_prove_report r1 = {0}, r2 = {0};
    void *pending = NULL;
    uint8_t *proof = j->proof + (size_t)p->index * k->k.proof_bytes;
    /* the key's copy on this device (uploaded now when it fits), else the host copy */
    const bool urgent = part_urgent(e, p); /* its host staging's pool chunks go ahead of the backlog's */
    const bool spare = !urgent && !p->alone; /* a regular prove leaves urgent kinds' device memory alone */
    ctx.dkey = p->key ? czk__key_device_acquire(e, p->key, d, w->index, spare) : NULL;
    const bool resident = ctx.dkey != NULL;
    /* its lane in the device's memory plan (may wait for proves in flight to give memory back) */
    uint64_t tables = 0, tl0 = czk__clock_now_ns();
    bool laned = false;
    int shape = CZK_LANE_FULL;
    czk_status st = czk__lane_acquire(e, p->key, d, resident, spare, &tables, &laned, &shape);
    ctx.shape = shape;
    uint64_t tl = czk__clock_now_ns();
    if (tl - tl0 > 1000000) /* it waited for device memory */
      czk__span(e, "device memory", TRACK_PID_DEVICE0 + d->ordinal, w->index, tl0, tl, j->id, (int32_t)p->index);
    const bool gated = !urgent && e->cfg.urgent_max_bytes; /* (no urgent lane: no prove to yield to) */
    ctx.yield = gated ? device_yield : NULL, ctx.yield_user = gated ? d : NULL;
    if (urgent) atomic_fetch_add(&d->urgent_proving, 1); /* until its finish: other proves yield (device_yield) */
    if (urgent) czk_pool_set_urgent(true);
    if (st == CZK_OK) st = k->k.prove_start(k->k.user, &ctx, p->key ? p->key->obj : NULL, p->synth, &pending, &r1);
    if (urgent) czk_pool_set_urgent(false);
    czk__lane_tables_made(e, d, tables);
    uint64_t t1 = czk__clock_now_ns();
    uint32_t ptid = PART_TID(j->id, p->index);
    czk__span(e, "prove_start", TRACK_PID_DEVICE0 + d->ordinal, w->index, t0, t1, j->id, (int32_t)p->index);
    if (st == CZK_OK) {
      uint64_t freed;
      (void)czk_budget_release(e->budget, &p->res, CZK_MEM_ABC, &freed);
      st = k->k.prove_finish(k->k.user, &ctx, pending, proof, &r2);
    }
    uint64_t t2 = czk__clock_now_ns();
    if (urgent) atomic_fetch_sub(&d->urgent_proving, 1);
    if (laned) czk__lane_release(e, p->key, d, resident, st == CZK_OK);
    if (ctx.dkey) czk__key_device_release(e, p->key, d);
    ctx.dkey = NULL;
    uint64_t kernel = r1.kernel_ns + r2.kernel_ns;
    if (!kernel) kernel = t2 - t0;
    p->kernel_ns = kernel;
    p->upload_bytes = r1.upload_bytes + r2.upload_bytes;
    czk__device_leave(e, d, t0, st == CZK_OK ? kernel : 0);
    czk__span(e, "prove_finish", TRACK_PID_DEVICE0 + d->ordinal, w->index, t1, t2, j->id, (int32_t)p->index);
    uint64_t up = r1.upload_ns + r2.upload_ns, ntt = r1.ntt_ns + r2.ntt_ns, msm = r1.msm_ns + r2.msm_ns, c = t0;
    /* the device's kernel-busy lane: the reported kernel time (device events), ending when the proof was collected */
    if (st == CZK_OK) {
      const uint64_t kb = t2 - (kernel < t2 - t0 ? kernel : t2 - t0);
      czk__span(e, "kernel busy", TRACK_PID_DEVICE0 + d->ordinal, KERNEL_LANE_TID, kb, t2, j->id, (int32_t)p->index);
      /* the device's wait for this prove's transfers (not in its kernel time: the status counts it as idle, cause
       * transfer), drawn just before its kernel-busy span */
      if (up) czk__idle_span(e, d->ordinal, CZK_IDLE_TRANSFER, kb - (up < kb - t0 ? up : kb - t0), kb, j->id,
                             (int32_t)p->index);
    }
    /* sub-spans reported by the kind, laid out in order from the prove start */
    if (up) czk__span(e, "upload", TRACK_PID_PARTS, ptid, c, c + up, j->id, (int32_t)p->index), c += up;
    if (ntt) czk__span(e, "NTT/H", TRACK_PID_PARTS, ptid, c, c + ntt, j->id, (int32_t)p->index), c += ntt;
    if (msm) czk__span(e, "MSMs", TRACK_PID_PARTS, ptid, c, c + msm, j->id, (int32_t)p->index), c += msm;
    czk__span(e, "prove", TRACK_PID_PARTS, ptid, t0, t2, j->id, (int32_t)p->index);
    czk__worker_set(w, CZK_WORKER_IDLE, 0, 0, NULL);
    gq_done(e, d, alone); /* before a requeue: an alone retry may then find the device free */
    if (st != CZK_OK) prove_failed(e, w, d, &ctx, p, st);
    else if (job_stopped(j)) part_end(e, p);
    else fin_push(e, p);
  }
  return NULL;
}

/* ---- finalizers ---------------------------------------------------------------------------------------------------- */

static void *fin_main(void *arg) {
  eworker *w = arg;
  czk_engine *e = w->e;
  for (;;) {
    pthread_mutex_lock(&e->fq_mu);
    while (!e->fq_head && !e->fq_stop) pthread_cond_wait(&e->fq_cv, &e->fq_mu);
    epart *p = e->fq_head;
    if (!p) {
      pthread_mutex_unlock(&e->fq_mu);
      break;
    }
    e->fq_head = p->next;
    if (!e->fq_head) e->fq_tail = NULL;
    p->next = NULL;
    queue_sample(e, Q_FIN, atomic_fetch_sub(&e->g_fin_queue, 1) - 1);
    pthread_mutex_unlock(&e->fq_mu);

    ejob *j = p->job;
    ekind *k = j->kind;
    uint64_t t0 = czk__clock_now_ns();
    czk__worker_set(w, CZK_WORKER_FINALIZE, j->id, p->index, k->name);
    czk_status st = CZK_OK;
    uint64_t stage[CZK_STAGE_COUNT] = {0};
    if (!job_stopped(j) && k->verify && k->k.verify) {
      st = czk_fault("engine.verify") ? CZK_ERR_VERIFY_FAILED /* fault site (tests) */
                                      : k->k.verify(k->k.user, p->key ? p->key->obj : NULL, j->parsed, p->index,
                                                    j->proof + (size_t)p->index * k->k.proof_bytes);
      stage[CZK_STAGE_VERIFY] = czk__clock_now_ns() - t0;
    }
    if (st == CZK_OK && !job_stopped(j) && k->k.stage_times) k->k.stage_times(k->k.user, j->parsed, p->index, stage);
    if (p->synth) { /* large buffers are freed here, outside every lock */
      k->k.synth_free(k->k.user, p->synth);
      p->synth = NULL;
    }
    uint64_t t1 = czk__clock_now_ns();
    p->verify_ns = t1 - t0;
    czk__span(e, "finalize", TRACK_PID_ENGINE, w->track, t0, t1, j->id, (int32_t)p->index);
    czk__span(e, "finalize", TRACK_PID_PARTS, PART_TID(j->id, p->index), t0, t1, j->id, (int32_t)p->index);
    czk__worker_set(w, CZK_WORKER_IDLE, 0, 0, NULL);
    if (st != CZK_OK) {
      part_fail(e, p, st, "self-verification");
    } else {
      if (!job_stopped(j)) {
        pthread_mutex_lock(&e->mu);
        k->proved++;
        for (int sx = 0; sx < CZK_STAGE_COUNT; sx++)
          if (stage[sx]) k->stage_ns[sx] += stage[sx], k->stage_count[sx]++;
        k->upload_bytes += p->upload_bytes;
        pthread_mutex_unlock(&e->mu);
      }
      part_end(e, p);
    }
    pthread_mutex_lock(&e->mu);
    ejob *pr = prune_locked(e, czk__clock_now_ns());
    pthread_mutex_unlock(&e->mu);
    free_job_list(e, pr);
  }
  return NULL;
}

/* ---- create / register --------------------------------------------------------------------------------------------- */

void czk_engine_config_default(czk_engine_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->mem_limit_bytes = 8ULL << 30;
  cfg->synth_workers = 2;
  cfg->workers_per_device = 2;
  cfg->finalizers = 1;
  cfg->result_ttl_ms = 600000;
  cfg->trace_capacity = 0;
  cfg->verify_auto_max_bytes = 256ULL << 20;
  cfg->key_tier = CZK_KEY_TIER_DEVICE;
}

static void stop_and_join(czk_engine *e) {
  pthread_mutex_lock(&e->mu);
  e->stop_threads = true;
  pthread_cond_broadcast(&e->disp_cv);
  pthread_cond_broadcast(&e->synth_cv);
  pthread_cond_broadcast(&e->usynth_cv);
  pthread_mutex_unlock(&e->mu);
  if (e->disp_started) pthread_join(e->disp_th, NULL);
  e->disp_started = false;
  for (uint32_t i = 0; i < e->nsynth; i++)
    if (e->workers[i].started) pthread_join(e->workers[i].th, NULL), e->workers[i].started = false;
  pthread_mutex_lock(&e->gq_mu);
  e->gq_stop = true;
  pthread_cond_broadcast(&e->gq_cv);
  pthread_mutex_unlock(&e->gq_mu);
  for (uint32_t i = e->nsynth; i < e->nsynth + e->nprove; i++)
    if (e->workers[i].started) pthread_join(e->workers[i].th, NULL), e->workers[i].started = false;
  pthread_mutex_lock(&e->fq_mu);
  e->fq_stop = true;
  pthread_cond_broadcast(&e->fq_cv);
  pthread_mutex_unlock(&e->fq_mu);
  for (uint32_t i = e->nsynth + e->nprove; i < e->nworkers; i++)
    if (e->workers[i].started) pthread_join(e->workers[i].th, NULL), e->workers[i].started = false;
}

static void engine_free(czk_engine *e) {
  while (e->retained) {
    void *next = *(void **)e->retained;
    free(e->retained);
    e->retained = next;
  }
  for (size_t b = 0; b < ENGINE_HASH; b++) {
    ejob *j = e->by_id[b];
    while (j) {
      ejob *n = j->next_id;
      job_free(e, j);
      j = n;
    }
  }
  czk__keys_free_all(e);
  for (uint32_t i = 0; i < e->nkinds; i++) free(e->kinds[i]);
  for (uint32_t i = 0; i < e->nworkers; i++) pthread_mutex_destroy(&e->workers[i].mu);
  for (uint32_t i = 0; i < e->ndevices; i++) pthread_mutex_destroy(&e->devices[i].mu);
  free(e->workers);
  free(e->devices);
  free(e->sheap);
  free(e->gheap);
  pthread_cond_destroy(&e->disp_cv);
  pthread_cond_destroy(&e->synth_cv);
  pthread_cond_destroy(&e->usynth_cv);
  pthread_cond_destroy(&e->idle_cv);
  pthread_cond_destroy(&e->gq_cv);
  pthread_cond_destroy(&e->fq_cv);
  pthread_cond_destroy(&e->kc_cv);
  pthread_mutex_destroy(&e->mu);
  pthread_mutex_destroy(&e->gq_mu);
  pthread_mutex_destroy(&e->fq_mu);
  pthread_mutex_destroy(&e->kc_mu);
  pthread_mutex_destroy(&e->pin_mu);
  pthread_mutex_destroy(&e->sd_mu);
  czk_trace_free(e->trace);
  czk_budget_free(e->budget);
  free(e);
}

/* Job ids never repeat across restarts of a daemon (an AwaitProof of a pre-restart id must be NOT_FOUND, never another
 * job's proof): the first id is the wall clock in microseconds at creation, then ids are consecutive (they are also
 * the dispatch sequence). A later run starts above every id an earlier one issued unless that run issued more than
 * one job per microsecond of its life or the wall clock stepped back across the restart. Below 2^53 (until the year
 * 2255), so /status JSON numbers hold them exactly. */
static uint64_t first_job_id(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 1;
  uint64_t us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
  return us ? us : 1;
}

czk_status czk_engine_create(czk_engine **out, const czk_engine_config *cfg_in) {
  if (!out || !cfg_in) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  czk_engine_config cfg = *cfg_in;
  if (!cfg.mem_limit_bytes || (cfg.ndevices && !cfg.devices) || cfg.ndevices > 64 || cfg.synth_workers > 256 ||
      cfg.workers_per_device > 64 || cfg.finalizers > 64 || cfg.key_tier > CZK_KEY_TIER_DISK)
    return CZK_ERR_CONFIG;
  if (!cfg.synth_workers) cfg.synth_workers = 2;
  if (!cfg.workers_per_device) cfg.workers_per_device = 2;
  if (!cfg.finalizers) cfg.finalizers = 1;
  if (!cfg.pool) cfg.pool = czk_pool_default();
  czk_engine *e = calloc(1, sizeof *e);
  if (!e) return CZK_ERR_NOMEM;
  e->cfg = cfg;
  e->cfg.devices = NULL;
  e->t_start = czk__clock_now_ns();
  e->next_seq = first_job_id();
  pthread_mutex_init(&e->mu, NULL);
  pthread_mutex_init(&e->gq_mu, NULL);
  pthread_mutex_init(&e->fq_mu, NULL);
  pthread_mutex_init(&e->kc_mu, NULL);
  pthread_mutex_init(&e->pin_mu, NULL);
  pthread_mutex_init(&e->sd_mu, NULL);
  czk__cond_init_mono(&e->disp_cv);
  czk__cond_init_mono(&e->synth_cv);
  czk__cond_init_mono(&e->usynth_cv);
  czk__cond_init_mono(&e->idle_cv);
  czk__cond_init_mono(&e->gq_cv);
  czk__cond_init_mono(&e->fq_cv);
  czk__cond_init_mono(&e->kc_cv);
  czk_status st = czk_budget_new(&e->budget, cfg.mem_limit_bytes);
  if (st == CZK_OK) st = czk_trace_new(&e->trace, cfg.trace_capacity);
  if (st != CZK_OK) {
    engine_free(e);
    return st;
  }
  czk_budget_set_notify(e->budget, budget_notify, e);
  czk_budget_set_observer(e->budget, budget_observe, e);

  /* devices: none configured = one CPU device */
  czk_engine_device_desc cpu = {.name = "cpu", .backend = NULL, .workers = 0, .mem_total_bytes = 0};
  const czk_engine_device_desc *devs = cfg.ndevices ? cfg_in->devices : &cpu;
  e->ndevices = cfg.ndevices ? cfg.ndevices : 1;
  e->devices = calloc(e->ndevices, sizeof *e->devices);
  const uint32_t lane = cfg.urgent_max_bytes ? 1 : 0; /* the urgent lane: one more synthesis worker, one per device */
  e->nsynth = cfg.synth_workers + lane;
  e->nfin = cfg.finalizers;
  e->nprove = 0;
  for (uint32_t d = 0; d < e->ndevices; d++)
    e->nprove += (devs[d].workers ? devs[d].workers : cfg.workers_per_device) + lane;
  e->nworkers = e->nsynth + e->nprove + e->nfin;
  e->workers = calloc(e->nworkers, sizeof *e->workers);
  if (!e->devices || !e->workers) {
    engine_free(e);
    return CZK_ERR_NOMEM;
  }
  uint64_t now = e->t_start;
  for (uint32_t d = 0; d < e->ndevices; d++) {
    edevice *dv = &e->devices[d];
    pthread_mutex_init(&dv->mu, NULL);
    snprintf(dv->name, sizeof dv->name, "%s", devs[d].name ? devs[d].name : "device");
    dv->ordinal = d;
    dv->nworkers = devs[d].workers ? devs[d].workers : cfg.workers_per_device;
    dv->backend = devs[d].backend;
    dv->mem_total = devs[d].mem_total_bytes;
    dv->key_mem_limit = devs[d].backend ? devs[d].key_mem_bytes : 0;
    dv->plan_limit = devs[d].backend ? devs[d].plan_bytes : 0;
    dv->plan_tiers = devs[d].plan_tiers & 7u, dv->plan_shapes = devs[d].plan_shapes & 7u;
    dv->tables_bytes = devs[d].tables_bytes;
    dv->mem_free = devs[d].mem_free;
    dv->mem_peak = devs[d].mem_peak;
    dv->mem_limit = devs[d].mem_limit_bytes;
    dv->t_mark = now;
    dv->cause = CZK_IDLE_NO_WORK;
    char tn[96];
    snprintf(tn, sizeof tn, "device %u (%s)", d, dv->name);
    czk_trace_name_track(e->trace, TRACK_PID_DEVICE0 + d, UINT32_MAX, tn);
  }
  czk_trace_name_track(e->trace, TRACK_PID_PARTS, UINT32_MAX, "partitions (job*256+part)");
  czk_trace_name_track(e->trace, TRACK_PID_ENGINE, UINT32_MAX, "synthesis + finalizers");
  czk_trace_name_track(e->trace, TRACK_PID_ENGINE, 2000, "key loads"); /* keys.c: "key load" spans */
  uint32_t wi = 0;
  for (uint32_t i = 0; i < e->nsynth; i++, wi++) {
    eworker *w = &e->workers[wi];
    w->urgent = lane && i == e->nsynth - 1;
    snprintf(w->role, sizeof w->role, "%s", w->urgent ? "synth-urg" : "synth");
    w->index = i;
    w->track = i;
    char tn[32];
    snprintf(tn, sizeof tn, w->urgent ? "synth %u (urgent lane)" : "synth %u", i);
    czk_trace_name_track(e->trace, TRACK_PID_ENGINE, w->track, tn);
  }
  for (uint32_t d = 0; d < e->ndevices; d++)
    czk_trace_name_track(e->trace, TRACK_PID_DEVICE0 + d, KERNEL_LANE_TID, "kernel busy (device events)");
  for (uint32_t d = 0; d < e->ndevices; d++)
    for (uint32_t i = 0; i < e->devices[d].nworkers + lane; i++, wi++) {
      eworker *w = &e->workers[wi];
      w->urgent = i == e->devices[d].nworkers; /* after the device's own workers (which nworkers counts) */
      snprintf(w->role, sizeof w->role, "%s", w->urgent ? "prove-urg" : "prove");
      w->device = d;
      w->index = i;
      w->track = i;
      char tn[40];
      snprintf(tn, sizeof tn, w->urgent ? "prove worker %u (urgent lane)" : "prove worker %u", i);
      czk_trace_name_track(e->trace, TRACK_PID_DEVICE0 + d, i, tn);
    }
  for (uint32_t i = 0; i < e->nfin; i++, wi++) {
    eworker *w = &e->workers[wi];
    snprintf(w->role, sizeof w->role, "finalize");
    w->index = i;
    w->track = 1000 + i;
    char tn[32];
    snprintf(tn, sizeof tn, "finalizer %u", i);
    czk_trace_name_track(e->trace, TRACK_PID_ENGINE, w->track, tn);
  }
  for (uint32_t i = 0; i < e->nworkers; i++) {
    pthread_mutex_init(&e->workers[i].mu, NULL);
    e->workers[i].e = e;
    e->workers[i].t_state = now;
  }
  e->synth_slots = cfg.synth_workers + ENGINE_SYNTH_LOOKAHEAD;
  e->urgent_slots = lane;
  atomic_store(&e->ndev_ok, e->ndevices);

  /* threads */
  bool ok = pthread_create(&e->disp_th, NULL, dispatcher_main, e) == 0;
  e->disp_started = ok;
  for (uint32_t i = 0; ok && i < e->nworkers; i++) {
    void *(*fn)(void *) = i < e->nsynth ? synth_main : i < e->nsynth + e->nprove ? prove_main : fin_main;
    ok = pthread_create(&e->workers[i].th, NULL, fn, &e->workers[i]) == 0;
    e->workers[i].started = ok;
  }
  if (!ok) {
    stop_and_join(e);
    engine_free(e);
    return CZK_ERR_INTERNAL;
  }
  *out = e;
  return CZK_OK;
}

static uint64_t shape_total(const czk_engine_shape *s) {
  uint64_t t = s->abc_bytes;
  if (s->witness_bytes > UINT64_MAX - t) return UINT64_MAX;
  t += s->witness_bytes;
  if (s->scratch_bytes > UINT64_MAX - t) return UINT64_MAX;
  return t + s->scratch_bytes;
}

/* One partition (+ its key) can never fit. */
static bool never_fits(czk_engine *e, const ekind *k, const czk_engine_shape *s) {
  uint64_t t = shape_total(s), kb = k->k.key_id ? k->k.key_bytes : 0;
  return t == UINT64_MAX || kb > UINT64_MAX - t || t + kb > e->cfg.mem_limit_bytes;
}

czk_status czk_engine_register_kind(czk_engine *e, const czk_engine_kind *kind) {
  if (!e || !kind || !kind->name || !kind->name[0] || strlen(kind->name) >= 32 || !kind->parse || !kind->synthesize ||
      !kind->synth_free || !kind->prove_start || !kind->prove_finish || !kind->proof_bytes ||
      (kind->key_id && (!kind->key_load || !kind->key_free || strlen(kind->key_id) >= 64 || !kind->key_id[0])))
    return CZK_ERR_INVALID_ARG;
  ekind *k = calloc(1, sizeof *k);
  if (!k) return CZK_ERR_NOMEM;
  k->k = *kind;
  snprintf(k->name, sizeof k->name, "%s", kind->name);
  k->k.name = k->name;
  if (kind->key_id) {
    snprintf(k->key_id, sizeof k->key_id, "%s", kind->key_id);
    k->k.key_id = k->key_id;
  }
  if (!k->k.max_partitions) k->k.max_partitions = 1024;
  if (k->k.max_partitions > 256) k->k.max_partitions = k->k.max_partitions > 65535 ? 65535 : k->k.max_partitions;
  uint64_t total = shape_total(&kind->shape);
  if (e->cfg.urgent_max_bytes && total <= e->cfg.urgent_max_bytes) {
    pthread_mutex_lock(&e->mu);
    if (total > e->urgent_reserve) e->urgent_reserve = total;
    pthread_mutex_unlock(&e->mu);
  }
  k->verify = kind->verify_mode == CZK_VERIFY_ON ||
              (kind->verify_mode == CZK_VERIFY_AUTO && total <= e->cfg.verify_auto_max_bytes);
  if (!kind->reserve && never_fits(e, k, &kind->shape)) {
    free(k);
    return CZK_ERR_BUDGET;
  }
  pthread_mutex_lock(&e->mu);
  czk_status st = CZK_OK;
  for (uint32_t i = 0; i < e->nkinds; i++)
    if (strcmp(e->kinds[i]->name, k->name) == 0) st = CZK_ERR_EXISTS;
  if (st == CZK_OK && e->nkinds == ENGINE_MAX_KINDS) st = CZK_ERR_LIMIT;
  if (st == CZK_OK) {
    k->idx = e->nkinds;
    e->kinds[e->nkinds++] = k;
  }
  pthread_mutex_unlock(&e->mu);
  if (st != CZK_OK) free(k);
  return st;
}

/* ---- submit / await / cancel --------------------------------------------------------------------------------------- */

static ekind *find_kind_locked(czk_engine *e, const char *name) {
  for (uint32_t i = 0; i < e->nkinds; i++)
    if (strcmp(e->kinds[i]->name, name) == 0) return e->kinds[i];
  return NULL;
}

/* Under e->mu: attach to an in-flight (or successfully completed) job with this request id. */
static bool try_attach_locked(czk_engine *e, const char *rid, czk_engine_submit_info *info) {
  if (!rid) return false;
  ejob *j = find_rid(e, rid);
  if (!j || (j->done && j->status != CZK_OK)) return false;
  j->kind->attached++;
  e->jobs_attached++;
  if (info) {
    info->job_id = j->id;
    info->attached = true;
    info->partitions = j->nparts;
    info->queue_position = 0;
  }
  return true;
}

czk_status czk_engine_submit(czk_engine *e, const char *kind, czk_priority priority, const char *request_id,
                             const uint8_t *input, size_t len, czk_engine_submit_info *info) {
  return czk_engine_submit_held(e, kind, priority, request_id, input, len, NULL, info);
}

czk_status czk_engine_submit_held(czk_engine *e, const char *kind, czk_priority priority, const char *request_id,
                                  const uint8_t *input, size_t len, czk_reservation *hold,
                                  czk_engine_submit_info *info) {
  if (info) memset(info, 0, sizeof *info);
  if (!e || !kind || (!input && len) || (int)priority < 0 || priority > CZK_PRIORITY_CRITICAL)
    return CZK_ERR_INVALID_ARG;
  if (request_id && !request_id[0]) request_id = NULL;
  if (priority == CZK_PRIORITY_UNSPECIFIED) priority = CZK_PRIORITY_NORMAL;
  pthread_mutex_lock(&e->mu);
  ejob *pruned = prune_locked(e, czk__clock_now_ns());
  ekind *k = find_kind_locked(e, kind);
  czk_status st = e->intake_closed ? CZK_ERR_SHUTDOWN : !k ? CZK_ERR_NOT_FOUND
                 : atomic_load(&e->ndev_ok) == 0 ? CZK_ERR_NO_DEVICE : CZK_OK;
  bool attached = st == CZK_OK && try_attach_locked(e, request_id, info);
  pthread_mutex_unlock(&e->mu);
  free_job_list(e, pruned);
  if (st != CZK_OK || attached) return st;

  /* parse once, outside the lock */
  void *parsed = NULL;
  uint32_t nparts = 0;
  st = k->k.parse(k->k.user, input, len, &parsed, &nparts);
  if (st == CZK_OK && (nparts == 0 || nparts > k->k.max_partitions)) st = CZK_ERR_LIMIT;
  ejob *j = NULL;
  if (st == CZK_OK) {
    j = calloc(1, sizeof *j);
    if (j) {
      j->parts = calloc(nparts, sizeof *j->parts);
      j->proof = calloc(nparts, k->k.proof_bytes);
      j->request_id = request_id ? strdup(request_id) : NULL;
    }
    if (!j || !j->parts || !j->proof || (request_id && !j->request_id)) st = CZK_ERR_NOMEM;
  }
  for (uint32_t i = 0; st == CZK_OK && i < nparts; i++) {
    epart *p = &j->parts[i];
    p->job = j;
    p->index = i;
    p->heap_idx = -1;
    p->avoid_worker = -1;
    p->shape = k->k.shape;
    if (k->k.reserve) st = k->k.reserve(k->k.user, parsed, i, &p->shape);
    if (st == CZK_OK && never_fits(e, k, &p->shape)) st = CZK_ERR_BUDGET;
  }
  if (st != CZK_OK) {
    if (parsed && k->k.parsed_free) k->k.parsed_free(k->k.user, parsed);
    if (j) {
      free(j->parts);
      free(j->proof);
      free(j->request_id);
      free(j);
    }
    return st;
  }
  j->kind = k;
  j->prio = (int)priority;
  j->parsed = parsed;
  j->nparts = j->parts_left = nparts;
  /* the submitter's request reservation becomes the parsed input's, at its size */
  if (hold && (hold->held & (1u << CZK_MEM_REQUEST)) && k->k.parsed_bytes) {
    uint64_t pb = k->k.parsed_bytes(k->k.user, parsed);
    if (pb) {
      (void)czk_budget_resize(e->budget, hold, CZK_MEM_REQUEST, pb); /* a growth refused keeps the request's size */
      (void)czk_budget_split(e->budget, hold, CZK_MEM_REQUEST, &j->in_res);
    }
  }
  czk__cond_init_mono(&j->cv);

  pthread_mutex_lock(&e->mu);
  if (e->intake_closed) st = CZK_ERR_SHUTDOWN;
  else if (try_attach_locked(e, request_id, info)) st = CZK_ERR_EXISTS; /* lost the race: attach, drop ours */
  if (st == CZK_OK) {
    /* make room in the synth heap first so that insertion cannot fail halfway */
    size_t need = e->sheap_n + nparts;
    if (need > e->sheap_cap) {
      size_t nc = e->sheap_cap ? e->sheap_cap : 64;
      while (nc < need) nc *= 2;
      epart **nh = realloc(e->sheap, nc * sizeof *nh);
      if (!nh) st = CZK_ERR_NOMEM;
      else e->sheap = nh, e->sheap_cap = nc;
    }
  }
  if (st == CZK_OK) {
    j->id = e->next_seq++;
    j->t_submit = czk__clock_now_ns();
    size_t hb = hash_id(j->id);
    j->next_id = e->by_id[hb];
    e->by_id[hb] = j;
    if (j->request_id) {
      size_t hr = hash_str(j->request_id);
      j->next_rid = e->by_rid[hr];
      e->by_rid[hr] = j;
    }
    uint32_t ahead = 0;
    for (size_t i = 0; i < e->sheap_n; i++) ahead += part_before(e->sheap[i], &j->parts[0]);
    for (uint32_t i = 0; i < nparts; i++) {
      j->parts[i].t_enq = j->t_submit;
      (void)heap_push(&e->sheap, &e->sheap_n, &e->sheap_cap, &j->parts[i]);
    }
    atomic_fetch_add(&e->g_synth_queue, nparts);
    queue_sample(e, Q_SYNTH, e->sheap_n);
    k->pending += nparts;
    k->submitted++;
    e->jobs_submitted++;
    e->jobs_live++;
    if (info) {
      info->job_id = j->id;
      info->partitions = nparts;
      info->queue_position = ahead;
    }
    pthread_cond_broadcast(&e->disp_cv);
  }
  pthread_mutex_unlock(&e->mu);
  if (st != CZK_OK) {
    job_free(e, j); /* frees parsed */
    return st == CZK_ERR_EXISTS ? CZK_OK : st;
  }
  czk__devices_recause(e);
  return CZK_OK;
}

czk_status czk_engine_await(czk_engine *e, uint64_t job_id, uint64_t timeout_ms, czk_engine_result *res) {
  if (!res) return CZK_ERR_INVALID_ARG;
  memset(res, 0, sizeof *res);
  res->job_id = job_id;
  if (!e) return res->status = CZK_ERR_INVALID_ARG;
  uint64_t deadline = czk__deadline_after_ms(timeout_ms);
  pthread_mutex_lock(&e->mu);
  ejob *j = find_job(e, job_id);
  if (!j) {
    pthread_mutex_unlock(&e->mu);
    snprintf(res->error, sizeof res->error, "unknown or pruned job %llu", (unsigned long long)job_id);
    return res->status = CZK_ERR_NOT_FOUND;
  }
  j->waiters++;
  while (!j->done)
    if (czk__cond_wait_until(&j->cv, &e->mu, deadline) == ETIMEDOUT && !j->done) break;
  res->partitions = j->nparts;
  if (!j->done) {
    res->status = CZK_ERR_TIMEOUT;
    snprintf(res->error, sizeof res->error, "job %llu still running", (unsigned long long)job_id);
  } else {
    res->status = j->status;
    res->failed_partition = j->failed_part;
    snprintf(res->error, sizeof res->error, "%s", j->error);
    res->queue_wait_ms = j->queue_wait_ns / CZK_NS_PER_MS;
    res->srs_load_ms = j->srs_load_ns / CZK_NS_PER_MS;
    res->synthesis_ms = j->synth_ns / CZK_NS_PER_MS;
    res->gpu_compute_ms = j->kernel_ns / CZK_NS_PER_MS;
    res->total_ms = (j->t_done - j->t_submit) / CZK_NS_PER_MS;
    if (j->status == CZK_OK) {
      size_t n = (size_t)j->nparts * j->kind->k.proof_bytes;
      res->proof = malloc(n);
      if (res->proof) {
        memcpy(res->proof, j->proof, n);
        res->proof_len = n;
      } else {
        res->status = CZK_ERR_NOMEM;
      }
    }
  }
  j->waiters--;
  pthread_mutex_unlock(&e->mu);
  return res->status;
}

void czk_engine_result_free(czk_engine_result *res) {
  if (!res) return;
  free(res->proof);
  res->proof = NULL;
  res->proof_len = 0;
}

czk_status czk_engine_job_by_request(czk_engine *e, const char *request_id, uint64_t *job_id) {
  if (!e || !request_id || !*request_id || !job_id) return CZK_ERR_INVALID_ARG;
  pthread_mutex_lock(&e->mu);
  ejob *j = find_rid(e, request_id);
  if (j) *job_id = j->id;
  pthread_mutex_unlock(&e->mu);
  return j ? CZK_OK : CZK_ERR_NOT_FOUND;
}

czk_status czk_engine_cancel(czk_engine *e, uint64_t job_id, bool *was_running) {
  if (was_running) *was_running = false;
  if (!e) return CZK_ERR_INVALID_ARG;
  epart *drop = NULL;
  pthread_mutex_lock(&e->mu);
  ejob *j = find_job(e, job_id);
  czk_status st = !j                                                       ? CZK_ERR_NOT_FOUND
                   : (j->done || j->parts_left == 0 || atomic_load(&j->stop)) ? CZK_ERR_STATE
                                                                               : CZK_OK;
  if (st == CZK_OK) {
    bool running = false;
    for (uint32_t i = 0; i < j->nparts; i++) running |= j->parts[i].stage != PS_SYNTH_QUEUED;
    if (was_running) *was_running = running;
    job_stop_locked(e, j, CZK_ERR_CANCELLED, 0, "cancelled", &drop);
  }
  pthread_mutex_unlock(&e->mu);
  end_list(e, drop);
  if (st == CZK_OK) czk__devices_recause(e);
  return st;
}

/* ---- shutdown ------------------------------------------------------------------------------------------------------ */

static void cancel_all(czk_engine *e) {
  epart *drop = NULL;
  pthread_mutex_lock(&e->mu);
  for (size_t b = 0; b < ENGINE_HASH; b++)
    for (ejob *j = e->by_id[b]; j; j = j->next_id)
      if (!j->done) job_stop_locked(e, j, CZK_ERR_CANCELLED, 0, "cancelled by shutdown", &drop);
  pthread_mutex_unlock(&e->mu);
  end_list(e, drop);
}

czk_status czk_engine_shutdown(czk_engine *e, bool drain, uint64_t timeout_ms) {
  if (!e) return CZK_ERR_INVALID_ARG;
  pthread_mutex_lock(&e->sd_mu);
  if (e->shut_done) {
    pthread_mutex_unlock(&e->sd_mu);
    return CZK_OK;
  }
  czk_status st = CZK_OK;
  pthread_mutex_lock(&e->mu);
  e->intake_closed = true;
  if (drain) {
    uint64_t deadline = czk__deadline_after_ms(timeout_ms);
    while (e->jobs_live)
      if (czk__cond_wait_until(&e->idle_cv, &e->mu, deadline) == ETIMEDOUT && e->jobs_live) {
        st = CZK_ERR_TIMEOUT;
        break;
      }
  }
  pthread_mutex_unlock(&e->mu);
  cancel_all(e);
  /* running partitions end at their next stage boundary */
  pthread_mutex_lock(&e->mu);
  while (e->jobs_live) pthread_cond_wait(&e->idle_cv, &e->mu);
  pthread_mutex_unlock(&e->mu);
  stop_and_join(e);
  e->shut_done = true;
  pthread_mutex_unlock(&e->sd_mu);
  return st;
}

void czk_engine_destroy(czk_engine *e) {
  if (!e) return;
  (void)czk_engine_shutdown(e, false, 0);
  joblog_flush(e); /* normally empty: every completion path flushes */
  engine_free(e);
}
