/* render.h: the engine's status snapshot as JSON (/status, `czk status --json`) and as Prometheus text (/metrics,
 * GetMetrics), plus the API layer's own request counters and latency histograms.
 *
 * Metric names follow czk_<subsystem>_<what>_<unit>; counters end in _total. */
#ifndef CZK_API_RENDER_H
#define CZK_API_RENDER_H

#include <pthread.h>
#include <stdint.h>

#include "api/strbuf.h"
#include "czk/engine.h"

#define CZK_API_METHODS 9
#define CZK_API_HIST_BUCKETS 14

/* Counters kept by the service (thread-safe under mu). */
typedef struct czk__api_metrics {
  pthread_mutex_t mu;
  uint64_t requests[CZK_API_METHODS][17]; /* [method][grpc code 0..16] */
  /* latency of AwaitProof/Prove calls that returned a terminal job result, per priority */
  uint64_t hist[CZK_PRIORITY_COUNT][CZK_API_HIST_BUCKETS + 1];
  double hist_sum[CZK_PRIORITY_COUNT];
  uint64_t hist_count[CZK_PRIORITY_COUNT];
} czk__api_metrics;

extern const char *const czk__api_method_names[CZK_API_METHODS];
extern const double czk__api_hist_bounds[CZK_API_HIST_BUCKETS];

void czk__api_metrics_init(czk__api_metrics *m);
void czk__api_metrics_destroy(czk__api_metrics *m);
void czk__api_metrics_request(czk__api_metrics *m, int method, int grpc_code);
void czk__api_metrics_latency(czk__api_metrics *m, czk_priority prio, double seconds);

/* /status JSON: {"uptime_seconds", "queues", "memory", "devices":[...], "workers":[...], "kinds":[...], "keys":[...],
 * "jobs":{...}} — docs/api.md lists the fields. */
void czk__render_status_json(czk__strbuf *sb, const czk_engine_status *st);
/* Prometheus text exposition format 0.0.4. m may be NULL. */
void czk__render_metrics(czk__strbuf *sb, const czk_engine_status *st, czk__api_metrics *m);

#endif
