/* czk/trace.h: a bounded, thread-safe buffer of timed spans, exportable as Chrome trace JSON.
 *
 * A span is (name, track = (pid, tid), [t0, t1] monotonic ns, job, partition); a counter sample (counter = true) is
 * (name, pid, t0, value), exported as a Chrome "C" event (a value over time: memory use). Names and categories must be string
 * literals (stored as pointers). The buffer is a ring: when full, the oldest spans are overwritten and counted in
 * `dropped`. Track names (per pid/tid) label rows in chrome://tracing / Perfetto. capacity 0 = disabled (add is a
 * no-op). Adding a span takes one short mutex hold: O(1), no allocation. */
#ifndef CZK_TRACE_H
#define CZK_TRACE_H

#include <stdio.h>

#include "czk/common.h"
#include "czk/status.h"

typedef struct czk_trace czk_trace;

typedef struct czk_trace_span {
  const char *name; /* literal */
  const char *cat;  /* literal */
  uint32_t pid, tid;
  uint64_t t0_ns, t1_ns;
  uint64_t job;
  int32_t part; /* -1 = none */
  bool counter;  /* a counter sample: name, pid, t0_ns and value only */
  double value;
} czk_trace_span;

CZK_API czk_status czk_trace_new(czk_trace **out, size_t capacity);
CZK_API void czk_trace_free(czk_trace *t);
CZK_API bool czk_trace_enabled(const czk_trace *t);
CZK_API void czk_trace_add(czk_trace *t, const czk_trace_span *s);
/* Add a counter sample (name: a literal) at t_ns on process row pid. */
CZK_API void czk_trace_counter(czk_trace *t, const char *name, uint32_t pid, uint64_t t_ns, double value);
/* Name a track (copied, up to 63 bytes). pid rows are named with tid = UINT32_MAX. */
CZK_API void czk_trace_name_track(czk_trace *t, uint32_t pid, uint32_t tid, const char *name);
/* Copy out the spans in insertion order (malloc'ed; free()). */
CZK_API czk_status czk_trace_snapshot(czk_trace *t, czk_trace_span **spans, size_t *n, uint64_t *dropped);
/* Chrome trace JSON ("traceEvents", complete "X" events in microseconds relative to origin_ns). */
CZK_API czk_status czk_trace_write_json(czk_trace *t, FILE *out, uint64_t origin_ns);

#endif
