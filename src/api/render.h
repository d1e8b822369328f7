/* render.h: the engine's status snapshot as JSON (/status, `czk status --json`) and as Prometheus text (/metrics,
 * GetMetrics), plus the API layer's own request counters and latency histograms.
 *
 * Metric names follow czk_<subsystem>_<what>_<unit>; counters end in _total. */
#ifndef CZK_API_RENDER_H
#define CZK_API_RENDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/strbuf.h"
#include "czk/engine.h"

#define CZK_API_METHODS 9

/* Counters kept by the service (thread-safe under mu). Job latency is the engine's (per kind, every completed job). */
typedef struct czk__api_metrics {
  pthread_mutex_t mu;
  uint64_t requests[CZK_API_METHODS][17]; /* [method][grpc code 0..16] */
} czk__api_metrics;

/* What the daemon knows beyond the engine, set once at start (read-only afterwards): for /status, /metrics and
 * GetStatus. */
typedef struct czk__daemon_info {
  const char *version;      /* NULL = "unknown" */
  bool cuda_built;          /* this binary has the CUDA backend */
  bool cpu_only;            /* no GPU in use: the engine proves on its CPU device */
  bool cpu_fallback;        /* cpu_only although GPUs are configured or present (allowed by allow_cpu_fallback) */
  char cpu_fallback_reason[320];
} czk__daemon_info;

extern const char *const czk__api_method_names[CZK_API_METHODS];

void czk__api_metrics_init(czk__api_metrics *m);
void czk__api_metrics_destroy(czk__api_metrics *m);
void czk__api_metrics_request(czk__api_metrics *m, int method, int grpc_code);

/* The process's resident set and its peak, in bytes (/proc/self; 0 when unknown). */
void czk__process_rss(uint64_t *rss, uint64_t *peak);

/* The process's memory in more detail (all in bytes, 0 when unknown): from /proc/self/status the resident set split
 * into anonymous (RssAnon: heap, stacks, private mappings), file-backed (RssFile: mapped files such as key files) and
 * shared memory (RssShmem); from glibc's mallinfo2() the malloc heap over all arenas: bytes in use by live blocks
 * (uordblks), free bytes kept inside the arenas (fordblks: fragmentation or not yet trimmed; some of it may be
 * unbacked after a trim) and bytes of blocks served by mmap (hblkhd). heap_known is false without glibc. */
typedef struct czk__process_mem {
  uint64_t rss, peak, anon, file, shmem;
  bool heap_known;
  uint64_t heap_in_use, heap_free, heap_mmapped;
} czk__process_mem;
void czk__process_mem_read(czk__process_mem *pm);

/* The daemon's idle trim: once the engine is idle after any activity (activity = czk_engine_status.reservations_made,
 * which every partition and key load moves), the malloc arenas' free space is given back to the system (glibc
 * malloc_trim; a no-op elsewhere), so that an idle daemon's resident set is what it holds. czk__process_idle_trim
 * trims when `activity` differs from the last trim's and returns whether it did; czk_process_heap_trims_total counts
 * the trims and czk_process_heap_trimmed (1 / 0) says whether the last one saw the activity the metrics' snapshot
 * shows (a client can wait for it before measuring idle memory). */
bool czk__process_idle_trim(uint64_t activity);

/* /status JSON: {"uptime_seconds", "daemon", "queues", "memory", "devices":[...], "workers":[...], "kinds":[...],
 * "keys":[...], "key_sources":[...], "jobs":{...}} — docs/api.md lists the fields. info may be NULL. */
void czk__render_status_json(czk__strbuf *sb, const czk_engine_status *st, const czk__daemon_info *info);
/* The same snapshot as a plain HTML page (no scripts): devices, kinds with work, keys and their files. */
void czk__render_status_html(czk__strbuf *sb, const czk_engine_status *st, const czk__daemon_info *info);
/* Prometheus text exposition format 0.0.4. m and info may be NULL. */
void czk__render_metrics(czk__strbuf *sb, const czk_engine_status *st, czk__api_metrics *m,
                         const czk__daemon_info *info);

#endif
