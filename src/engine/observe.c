/* observe.c: observability of the engine: trace spans, per-worker state and busy time, per-device kernel-busy time
 * and idle attribution, the status snapshot and the Chrome trace export.
 *
 * Device accounting: a device is "occupied" while at least one of its workers is inside prove_start..prove_finish;
 * kernel-busy time is the union over proves of [end - reported, end], where reported is what the kind reports (device
 * events; the prove time for CPU/fake backends) and end is when the prove returned: two workers' proves overlap on
 * one device, so a plain sum would count shared time twice (and exceed the wall time). Each interval in
 * which no worker is inside a prove is an idle interval with a cause sampled from the engine's gauges when it starts,
 * and re-sampled whenever a gauge that drives it changes (czk__devices_recause): GPU queue non-empty -> LOCK (workers
 * are between pop and launch), a key load running -> KEY_LOAD, dispatcher waiting for memory -> BUDGET, synthesis
 * busy or queued -> STARVED, otherwise NO_WORK. Each idle interval of 1 ms or more that ends is also a trace span
 * "idle <cause>" (category "idle") on the device's IDLE_LANE_TID lane. Interval arithmetic reads the clock under the lock that guards the interval's start (d->mu, w->mu): a time
 * taken before the lock may precede a start another thread set meanwhile, and the difference would wrap.
 * Occupied time that is not kernel time is reported as TRANSFER. Sum over causes + occupied = wall time. A prove's
 * own wait for its transfers (czk_engine_prove_report.upload_ns: not in its kernel time, so counted there) is also a
 * trace span "idle transfer" on that lane, drawn just before the prove's "kernel busy" span (engine.c). */
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/clock.h"
#include "engine/engine_internal.h"

void czk__span(czk_engine *e, const char *name, uint32_t pid, uint32_t tid, uint64_t t0, uint64_t t1, uint64_t job,
               int32_t part) {
  if (!czk_trace_enabled(e->trace)) return;
  czk_trace_span s = {.name = name, .cat = "engine", .pid = pid, .tid = tid, .t0_ns = t0, .t1_ns = t1, .job = job,
                      .part = part};
  czk_trace_add(e->trace, &s);
}

void czk__worker_set(eworker *w, czk_worker_state st, uint64_t job, uint32_t part, const char *kind) {
  uint64_t now = czk__clock_now_ns();
  pthread_mutex_lock(&w->mu);
  if (w->state != CZK_WORKER_IDLE) w->busy_ns += now - w->t_state;
  if (st != CZK_WORKER_IDLE && w->state == CZK_WORKER_IDLE) w->items++;
  w->state = st;
  w->job_id = job;
  w->part = part;
  w->kind = kind;
  w->t_state = now;
  pthread_mutex_unlock(&w->mu);
}

czk_idle_cause czk__idle_cause_now(czk_engine *e) {
  if (atomic_load(&e->g_gpu_queue)) return CZK_IDLE_LOCK;
  if (atomic_load(&e->g_key_loads)) return CZK_IDLE_KEY_LOAD;
  if (atomic_load(&e->g_disp_budget_wait)) return CZK_IDLE_BUDGET;
  if (atomic_load(&e->g_synth_busy) || atomic_load(&e->g_synth_queue)) return CZK_IDLE_STARVED;
  return CZK_IDLE_NO_WORK;
}

/* The trace span of an idle interval that ended (emitted after d->mu is released; names are literals). */
void czk__idle_span(czk_engine *e, uint32_t ordinal, czk_idle_cause c, uint64_t t0, uint64_t t1, uint64_t job,
                    int32_t part) {
  static const char *const names[CZK_IDLE_COUNT] = {"idle starved", "idle budget", "idle transfer", "idle lock",
                                                    "idle no_work", "idle key_load"};
  if (t1 - t0 < CZK_NS_PER_MS || (unsigned)c >= CZK_IDLE_COUNT || !czk_trace_enabled(e->trace)) return;
  czk_trace_span s = {.name = names[c], .cat = "idle", .pid = TRACK_PID_DEVICE0 + ordinal, .tid = IDLE_LANE_TID,
                      .t0_ns = t0, .t1_ns = t1, .job = job, .part = part};
  czk_trace_add(e->trace, &s);
}

void czk__device_enter(czk_engine *e, edevice *d) {
  uint64_t t0 = 0, t1 = 0;
  czk_idle_cause c = CZK_IDLE_NO_WORK;
  pthread_mutex_lock(&d->mu);
  uint64_t now = czk__clock_now_ns(); /* under d->mu: never before a t_mark another thread set */
  if (d->active++ == 0) {
    d->idle_ns[d->cause] += now - d->t_mark;
    t0 = d->t_mark, t1 = now, c = d->cause;
    d->t_mark = now;
  }
  pthread_mutex_unlock(&d->mu);
  if (t1) czk__idle_span(e, d->ordinal, c, t0, t1, 0, -1);
}

/* Credits [s, t) to d->kernel_ns as far as it is not already covered by the recent intervals, and merges it into them.
 * Intervals end in credit order (each ends "now"), so only recent ones can overlap a new one; when the list is full
 * the oldest is dropped (a new interval overlapping it would then be over-counted by at most that overlap). d->mu held. */
void czk__device_kernel_credit(edevice *d, uint64_t s, uint64_t t) {
  if (t <= s) return;
  uint64_t covered = 0;
  for (uint32_t i = 0; i < d->nkiv; i++) {
    uint64_t a = d->kiv_s[i] > s ? d->kiv_s[i] : s, b = d->kiv_e[i] < t ? d->kiv_e[i] : t;
    if (b > a) covered += b - a;
  }
  d->kernel_ns += (t - s) - covered;
  /* merge: every stored interval that touches [s, t) is absorbed into it */
  uint32_t k = 0;
  for (uint32_t i = 0; i < d->nkiv; i++) {
    if (d->kiv_e[i] >= s && d->kiv_s[i] <= t) {
      if (d->kiv_s[i] < s) s = d->kiv_s[i];
      if (d->kiv_e[i] > t) t = d->kiv_e[i];
    } else {
      d->kiv_s[k] = d->kiv_s[i], d->kiv_e[k] = d->kiv_e[i], k++;
    }
  }
  if (k == DEV_KIV) { /* full: drop the oldest (smallest start; the list is kept sorted) */
    memmove(d->kiv_s, d->kiv_s + 1, (k - 1) * sizeof *d->kiv_s);
    memmove(d->kiv_e, d->kiv_e + 1, (k - 1) * sizeof *d->kiv_e);
    k--;
  }
  uint32_t at = k;
  while (at > 0 && d->kiv_s[at - 1] > s) at--;
  memmove(d->kiv_s + at + 1, d->kiv_s + at, (k - at) * sizeof *d->kiv_s);
  memmove(d->kiv_e + at + 1, d->kiv_e + at, (k - at) * sizeof *d->kiv_e);
  d->kiv_s[at] = s, d->kiv_e[at] = t;
  d->nkiv = k + 1;
}

void czk__device_leave(czk_engine *e, edevice *d, uint64_t t_start, uint64_t kernel_ns) {
  czk_idle_cause c = czk__idle_cause_now(e);
  pthread_mutex_lock(&d->mu);
  uint64_t now = czk__clock_now_ns();
  if (kernel_ns) {
    uint64_t s = now - kernel_ns;
    if (kernel_ns > now || s < t_start) s = t_start; /* device work of this prove began after its start */
    czk__device_kernel_credit(d, s, now);
  }
  if (kernel_ns) d->proofs++;
  if (--d->active == 0) {
    d->occupied_ns += now - d->t_mark;
    d->t_mark = now;
    d->cause = c;
  }
  pthread_mutex_unlock(&d->mu);
}

void czk__devices_recause(czk_engine *e) {
  czk_idle_cause c = czk__idle_cause_now(e);
  for (uint32_t i = 0; i < e->ndevices; i++) {
    edevice *d = &e->devices[i];
    pthread_mutex_lock(&d->mu);
    uint64_t now = czk__clock_now_ns(); /* under d->mu: never before t_mark */
    uint64_t t0 = 0;
    czk_idle_cause old = d->cause;
    if (d->active == 0 && d->cause != c) {
      d->idle_ns[d->cause] += now - d->t_mark;
      t0 = d->t_mark;
      d->t_mark = now;
      d->cause = c;
    }
    pthread_mutex_unlock(&d->mu);
    if (t0) czk__idle_span(e, d->ordinal, old, t0, now, 0, -1);
  }
}

const double *czk_engine_latency_bounds(void) {
  static const double b[CZK_LATENCY_BUCKETS] = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800,
                                                7200};
  return b;
}

void czk__latency_record_locked(ekind *k, int prio, uint64_t latency_ns) {
  unsigned p = (unsigned)prio < CZK_PRIORITY_COUNT ? (unsigned)prio : 0;
  double s = (double)latency_ns / 1e9;
  const double *b = czk_engine_latency_bounds();
  unsigned i = 0;
  while (i < CZK_LATENCY_BUCKETS && s > b[i]) i++;
  k->lat_bucket[p][i]++;
  k->lat_sum[p] += s;
  k->lat_count[p]++;
}

const char *czk_idle_cause_str(czk_idle_cause c) {
  static const char *const k[] = {"starved", "budget", "transfer", "lock", "no_work", "key_load"};
  return (unsigned)c < CZK_IDLE_COUNT ? k[c] : "?";
}
const char *czk_mem_cat_str(czk_mem_cat c) {
  static const char *const k[] = {"key", "abc", "witness", "scratch", "request"};
  return (unsigned)c < CZK_MEM_COUNT ? k[c] : "?";
}
const char *czk_key_tier_str(czk_key_tier t) {
  static const char *const k[] = {"device", "pinned", "mapped", "disk"};
  return (unsigned)t <= CZK_KEY_TIER_DISK ? k[t] : "?";
}
const char *czk_stage_str(czk_stage s) {
  static const char *const k[] = {"parse", "check", "witness", "abc", "witness_abc", "prove_check", "h", "msm_h",
                                  "msm_l", "msm_a", "msm_b_g1", "msm_b_g2", "upload_wait", "finish", "verify"};
  _Static_assert(sizeof k / sizeof k[0] == CZK_STAGE_COUNT, "one name per stage");
  return (unsigned)s < CZK_STAGE_COUNT ? k[s] : "?";
}
const char *czk_worker_state_str(czk_worker_state s) {
  static const char *const k[] = {"idle", "synth", "proving", "finalize", "key_load"};
  return (unsigned)s <= CZK_WORKER_KEY_LOAD ? k[s] : "?";
}

static czk_status status_snapshot(czk_engine *e, czk_engine_status **out, bool mark);
czk_status czk_engine_status_get(czk_engine *e, czk_engine_status **out) { return status_snapshot(e, out, true); }
czk_status czk_engine_status_peek(czk_engine *e, czk_engine_status **out) { return status_snapshot(e, out, false); }

/* mark: the snapshot is exported (the transfer counter's high-water mark moves with it) */
static czk_status status_snapshot(czk_engine *e, czk_engine_status **out, bool mark) {
  if (!e || !out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  /* sizes first (kinds only grow; keys may change: take the key list under kc_mu into a bounded array) */
  pthread_mutex_lock(&e->kc_mu);
  uint32_t nkeys = 0;
  for (ekey *k = e->keys; k; k = k->next) nkeys++;
  pthread_mutex_unlock(&e->kc_mu);
  uint32_t nkinds_cap = ENGINE_MAX_KINDS, nkeys_cap = nkeys + 16;
  size_t sz = sizeof(czk_engine_status) + e->ndevices * sizeof(czk_engine_device_status) +
              e->nworkers * sizeof(czk_engine_worker_status) + nkinds_cap * sizeof(czk_engine_kind_status) +
              nkeys_cap * sizeof(czk_engine_key_status) + nkinds_cap * sizeof(czk_engine_key_source);
  czk_engine_status *s = calloc(1, sz);
  if (!s) return CZK_ERR_NOMEM;
  s->devices = (czk_engine_device_status *)(s + 1);
  s->workers = (czk_engine_worker_status *)(s->devices + e->ndevices);
  s->kinds = (czk_engine_kind_status *)(s->workers + e->nworkers);
  s->keys = (czk_engine_key_status *)(s->kinds + nkinds_cap);
  s->sources = (czk_engine_key_source *)(s->keys + nkeys_cap);
  /* the key sources' loaders, copied under e->mu and called after every lock is released */
  struct {
    uint32_t (*fn)(void *, const char *, czk_engine_key_file *, uint32_t);
    void *user;
  } src_fn[ENGINE_MAX_KINDS];
  uint64_t now = czk__clock_now_ns();
  s->uptime_ns = now - e->t_start;

  pthread_mutex_lock(&e->mu);
  s->synth_queue = (uint32_t)e->sheap_n;
  s->synth_workers = e->nsynth;
  s->dispatcher_waiting_budget = atomic_load(&e->g_disp_budget_wait);
  s->jobs_live = e->jobs_live;
  s->jobs_submitted = e->jobs_submitted;
  s->jobs_completed = e->jobs_completed;
  s->jobs_failed = e->jobs_failed;
  s->jobs_cancelled = e->jobs_cancelled;
  s->jobs_attached = e->jobs_attached;
  s->jobs_pruned = e->jobs_pruned;
  s->prove_retries = e->prove_retries;
  s->devices_usable = atomic_load(&e->ndev_ok);
  s->nkinds = e->nkinds;
  for (uint32_t i = 0; i < e->nkinds; i++) {
    const ekind *k = e->kinds[i];
    czk_engine_kind_status *ks = &s->kinds[i];
    snprintf(ks->name, sizeof ks->name, "%s", k->name);
    ks->pending = k->pending;
    ks->in_progress = k->in_progress;
    ks->submitted = k->submitted;
    ks->attached = k->attached;
    ks->completed = k->completed;
    ks->failed = k->failed;
    ks->cancelled = k->cancelled;
    ks->partitions_proved = k->proved;
    memcpy(ks->stage_ns, k->stage_ns, sizeof ks->stage_ns);
    memcpy(ks->stage_count, k->stage_count, sizeof ks->stage_count);
    ks->upload_bytes = k->upload_bytes;
    memcpy(ks->lat_bucket, k->lat_bucket, sizeof ks->lat_bucket);
    memcpy(ks->lat_sum, k->lat_sum, sizeof ks->lat_sum);
    memcpy(ks->lat_count, k->lat_count, sizeof ks->lat_count);
    if (!k->k.key_id) continue;
    bool seen = false;
    for (uint32_t j = 0; j < s->nsources && !seen; j++) seen = strcmp(s->sources[j].key_id, k->key_id) == 0;
    if (seen) continue;
    czk_engine_key_source *src = &s->sources[s->nsources];
    snprintf(src->key_id, sizeof src->key_id, "%s", k->key_id);
    snprintf(src->kind, sizeof src->kind, "%s", k->name);
    src->tier = CZK_KEY_TIER_DISK;
    src_fn[s->nsources].fn = k->k.key_files;
    src_fn[s->nsources].user = k->k.user;
    s->nsources++;
  }
  pthread_mutex_unlock(&e->mu);
  s->gpu_queue = atomic_load(&e->g_gpu_queue);
  s->finalize_queue = atomic_load(&e->g_fin_queue);

  czk_budget_stats bs;
  czk_budget_stats_get(e->budget, &bs);
  s->mem_limit = bs.limit;
  s->mem_used = bs.used;
  s->mem_peak = bs.peak;
  for (unsigned c = 0; c < CZK_MEM_COUNT; c++) s->mem_used_by_cat[c] = bs.used_by_cat[c];
  s->reservations_made = bs.made;
  s->reservations_released = bs.released;
  s->release_errors = bs.release_errors;

  pthread_mutex_lock(&e->kc_mu);
  for (ekey *k = e->keys; k && s->nkeys < nkeys_cap; k = k->next) {
    czk_engine_key_status *ks = &s->keys[s->nkeys++];
    snprintf(ks->key_id, sizeof ks->key_id, "%s", k->id);
    ks->host_tier = k->state == KS_RESIDENT ? k->tier : CZK_KEY_TIER_DISK;
    ks->device_bytes = czk__key_device_need(k);
    for (uint32_t d = 0; d < e->ndevices && d < 32; d++)
      if (k->dev[d].state == KD_RESIDENT) ks->device_mask |= 1u << d;
    ks->tier = ks->device_mask ? CZK_KEY_TIER_DEVICE : ks->host_tier;
    for (uint32_t d = 0; d < e->ndevices && d < CZK_ENGINE_STATUS_DEVICES; d++) {
      ks->dev_tier[d] = k->dev[d].tier;
      const uint8_t sh = k->dev[d].shape[k->dev[d].tier == CZK_DEV_TIER_STREAMED ? 1 : 0];
      ks->dev_shape[d] = sh ? (uint8_t)(sh - 1) : CZK_LANE_FULL;
      ks->dev_copy_bytes[d] = k->dev[d].tier_copy;
    }
    ks->loading = k->state == KS_LOADING;
    ks->bytes = k->state == KS_RESIDENT ? k->actual_bytes : k->bytes;
    ks->refs = k->refs;
    ks->last_use_ms_ago = (now > k->last_use_ns ? now - k->last_use_ns : 0) / CZK_NS_PER_MS;
  }
  for (uint32_t d = 0; d < e->ndevices; d++) {
    s->devices[d].key_mem_limit = e->devices[d].key_mem_limit;
    s->devices[d].key_mem_used = e->devices[d].key_mem_used;
    const edevice *dv = &e->devices[d];
    s->devices[d].plan_limit = dv->plan_limit;
    s->devices[d].mem_limit_bytes = dv->mem_limit;
    s->devices[d].plan_lanes_bytes = dv->lane_used;
    s->devices[d].plan_tables_bytes = dv->tables_bytes ? dv->tables_bytes(dv->backend) : 0;
    s->devices[d].lanes_busy = dv->lanes_busy;
    s->devices[d].plan_waits = dv->plan_waits;
    s->devices[d].lanes_warmed = dv->lanes_warmed;
    s->devices[d].urgent_yields = atomic_load(&dv->yields_held);
    s->devices[d].urgent_yield_ns = atomic_load(&dv->yield_held_ns);
    for (ekey *k = e->keys; k; k = k->next) {
      s->devices[d].keys_resident += k->dev[d].state == KD_RESIDENT;
      for (int t = 0; t < 2; t++) s->devices[d].lanes_idle += k->dev[d].lanes[t] - k->dev[d].busy[t];
    }
  }
  pthread_mutex_unlock(&e->kc_mu);

  s->nworkers = e->nworkers;
  for (uint32_t i = 0; i < e->nworkers; i++) {
    eworker *w = &e->workers[i];
    czk_engine_worker_status *ws = &s->workers[i];
    pthread_mutex_lock(&w->mu);
    snprintf(ws->role, sizeof ws->role, "%s", w->role);
    ws->device = w->device;
    ws->index = w->index;
    ws->state = w->state;
    ws->job_id = w->job_id;
    ws->partition = w->part;
    uint64_t wnow = czk__clock_now_ns(); /* under w->mu: never before t_state */
    ws->busy_ns = w->busy_ns + (w->state != CZK_WORKER_IDLE ? wnow - w->t_state : 0);
    ws->items = w->items;
    if (w->kind) snprintf(ws->kind, sizeof ws->kind, "%s", w->kind);
    if (i < e->nsynth && w->state != CZK_WORKER_IDLE) s->synth_active++;
    pthread_mutex_unlock(&w->mu);
  }
  s->ndevices = e->ndevices;
  for (uint32_t i = 0; i < e->ndevices; i++) {
    edevice *d = &e->devices[i];
    czk_engine_device_status *ds = &s->devices[i];
    pthread_mutex_lock(&d->mu);
    snprintf(ds->name, sizeof ds->name, "%s", d->name);
    ds->ordinal = d->ordinal;
    ds->workers = d->nworkers;
    ds->mem_total_bytes = d->mem_total;
    ds->proofs = d->proofs;
    ds->quarantined = atomic_load(&d->quarantined);
    ds->prove_errors = d->prove_errors;
    uint64_t dnow = czk__clock_now_ns(); /* under d->mu: never before t_mark */
    ds->wall_ns = dnow - e->t_start;
    ds->kernel_busy_ns = d->kernel_ns;
    ds->occupied_ns = d->occupied_ns + (d->active ? dnow - d->t_mark : 0);
    memcpy(ds->idle_ns, d->idle_ns, sizeof ds->idle_ns);
    if (!d->active) ds->idle_ns[d->cause] += dnow - d->t_mark;
    /* Occupied-but-not-kernel time. Kernel time is credited when a prove ends, so the raw difference can shrink
     * between snapshots; the exported value is a counter, so it never goes back (high-water mark under d->mu). */
    uint64_t tr = ds->occupied_ns > ds->kernel_busy_ns ? ds->occupied_ns - ds->kernel_busy_ns : 0;
    if (tr < d->transfer_hw_ns) tr = d->transfer_hw_ns;
    if (mark) d->transfer_hw_ns = tr;
    ds->idle_ns[CZK_IDLE_TRANSFER] += tr;
    pthread_mutex_unlock(&d->mu);
    /* free device memory (the backend asks the driver; no lock held), not from a lost device */
    if (d->mem_free && d->backend && !ds->quarantined) ds->mem_free_bytes = d->mem_free(d->backend);
    if (d->mem_peak && d->backend) ds->mem_peak_used_bytes = d->mem_peak(d->backend);
  }
  /* which file backs which key (stat calls: no lock held), and where the cache holds it */
  for (uint32_t i = 0; i < s->nsources; i++) {
    czk_engine_key_source *src = &s->sources[i];
    if (src_fn[i].fn) {
      src->nfiles = src_fn[i].fn(src_fn[i].user, src->key_id, src->files, CZK_ENGINE_KEY_FILES);
      if (src->nfiles > CZK_ENGINE_KEY_FILES) src->nfiles = CZK_ENGINE_KEY_FILES;
    }
    for (uint32_t k = 0; k < s->nkeys; k++)
      if (strcmp(s->keys[k].key_id, src->key_id) == 0) {
        src->tier = s->keys[k].tier;
        src->loading = s->keys[k].loading;
      }
  }
  *out = s;
  return CZK_OK;
}

czk_status czk_engine_job_info_get(czk_engine *e, uint64_t job_id, czk_engine_job_info *out) {
  if (!e || !out) return CZK_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  out->job_id = job_id;
  uint32_t (*files_fn)(void *, const char *, czk_engine_key_file *, uint32_t) = NULL;
  void *files_user = NULL;
  pthread_mutex_lock(&e->mu);
  ejob *j = czk__job_find_locked(e, job_id);
  if (!j) {
    pthread_mutex_unlock(&e->mu);
    return CZK_ERR_NOT_FOUND;
  }
  snprintf(out->kind, sizeof out->kind, "%s", j->kind->name);
  out->done = j->done;
  out->partitions = j->nparts;
  uint64_t now = czk__clock_now_ns();
  bool dispatched = false; /* a partition past dispatch, before the GPU queue: it holds (or waits for) the key */
  for (uint32_t i = 0; i < j->nparts; i++) {
    switch (atomic_load(&j->parts[i].stage)) {
    case PS_SYNTH_QUEUED: out->queued++; break;
    case PS_DISPATCHED:
    case PS_SYNTH:
      out->synthesizing++;
      dispatched = true;
      break;
    case PS_GPU_QUEUED:
    case PS_PROVING: out->proving++; break;
    case PS_FINALIZE: out->finalizing++; break;
    default: out->ended++; break;
    }
  }
  /* the key by the kind's key id in the cache's list (a partition's own key pointer is not stable to read here: its
   * holder drops it without e->mu); an entry linked in the list stays valid while kc_mu is held */
  const char *kid = j->kind->k.key_id;
  pthread_mutex_lock(&e->kc_mu); /* order: e->mu -> kc_mu */
  for (ekey *k = e->keys; dispatched && kid && k; k = k->next) {
    if (strcmp(k->id, kid) != 0 || k->state != KS_LOADING) continue;
    out->key_loading = true;
    snprintf(out->key_id, sizeof out->key_id, "%s", k->id);
    out->key_bytes = k->bytes;
    out->key_load_ms = k->loader_active && now > k->load_t0 ? (now - k->load_t0) / CZK_NS_PER_MS : 0;
    files_fn = k->kind->k.key_files;
    files_user = k->kind->k.user;
    break;
  }
  pthread_mutex_unlock(&e->kc_mu);
  pthread_mutex_unlock(&e->mu);
  if (out->key_loading && files_fn) {
    czk_engine_key_file f[CZK_ENGINE_KEY_FILES];
    memset(f, 0, sizeof f);
    uint32_t n = files_fn(files_user, out->key_id, f, CZK_ENGINE_KEY_FILES);
    for (uint32_t i = 0; i < n && i < CZK_ENGINE_KEY_FILES; i++) out->key_generating |= !f[i].present;
  }
  return CZK_OK;
}

const char *czk_engine_job_stage(const czk_engine_job_info *ji) {
  if (ji->done) return "done";
  if (ji->key_loading) return "key_load";
  if (ji->queued) return "queued";
  if (ji->synthesizing) return "synthesis";
  if (ji->proving) return "proving";
  if (ji->finalizing) return "finalize";
  return "done";
}

void czk_engine_status_free(czk_engine_status *s) { free(s); }

czk_status czk_engine_trace_write(czk_engine *e, const char *path) {
  if (!e || !path) return CZK_ERR_INVALID_ARG;
  if (!czk_trace_enabled(e->trace)) return CZK_ERR_STATE;
  czk__afile af; /* temp + fsync + rename */
  CZK_TRY(czk__afile_open(&af, path, "w"));
  czk_status st = czk_trace_write_json(e->trace, af.f, e->t_start);
  if (st == CZK_OK) return czk__afile_commit(&af);
  czk__afile_abort(&af);
  return st;
}

const char *czk_engine_dev_tier_str(czk_engine_dev_tier t) {
  switch (t) {
    case CZK_DEV_TIER_RESIDENT: return "resident";
    case CZK_DEV_TIER_PARTIAL: return "partial";
    case CZK_DEV_TIER_STREAMED: return "streamed";
    default: return "-";
  }
}
