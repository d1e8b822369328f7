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
typedef struct czk_api_metrics {
  pthread_mutex_t mu;
  uint64_t requests[CZK_API_METHODS][17]; /* [method][grpc code 0..16] */
  /* latency of AwaitProof/Prove calls that returned a terminal job result, per priority */
  uint64_t hist[CZK_PRIORITY_COUNT][CZK_API_HIST_BUCKETS + 1];
  double hist_sum[CZK_PRIORITY_COUNT];
  uint64_t hist_count[CZK_PRIORITY_COUNT];
} czk_api_metrics;

extern const char *const czk_api_method_names[CZK_API_METHODS];
extern const double czk_api_hist_bounds[CZK_API_HIST_BUCKETS];

void czk_api_metrics_init(czk_api_metrics *m);
void czk_api_metrics_destroy(czk_api_metrics *m);
void czk_api_metrics_request(czk_api_metrics *m, int method, int grpc_code);
void czk_api_metrics_latency(czk_api_metrics *m, czk_priority prio, double seconds);

/* /status JSON: {"uptime_seconds", "queues", "memory", "devices":[...], "workers":[...], "kinds":[...], "keys":[...],
 * "jobs":{...}} — docs/api.md lists the fields. */
void czk_render_status_json(czk_strbuf *sb, const czk_engine_status *st);
/* Prometheus text exposition format 0.0.4. m may be NULL. */
void czk_render_metrics(czk_strbuf *sb, const czk_engine_status *st, czk_api_metrics *m);

#endif
