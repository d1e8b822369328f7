/* trace.c: ring buffer of spans + Chrome trace JSON export (see czk/trace.h). Invariants: count <= capacity;
 * spans[(start + i) % capacity] for i < count are in insertion order; names are literals, track names copied. */
#include "czk/trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct track_name {
  uint32_t pid, tid;
  char name[64];
} track_name;

struct czk_trace {
  pthread_mutex_t mu;
  czk_trace_span *spans;
  size_t cap, start, count;
  uint64_t dropped;
  track_name *names;
  size_t nnames, names_cap;
};

czk_status czk_trace_new(czk_trace **out, size_t capacity) {
  if (!out) return CZK_ERR_INVALID_ARG;
  czk_trace *t = calloc(1, sizeof *t);
  if (!t) return CZK_ERR_NOMEM;
  if (capacity) {
    t->spans = calloc(capacity, sizeof *t->spans);
    if (!t->spans) {
      free(t);
      return CZK_ERR_NOMEM;
    }
  }
  t->cap = capacity;
  pthread_mutex_init(&t->mu, NULL);
  *out = t;
  return CZK_OK;
}

void czk_trace_free(czk_trace *t) {
  if (!t) return;
  pthread_mutex_destroy(&t->mu);
  free(t->spans);
  free(t->names);
  free(t);
}

bool czk_trace_enabled(const czk_trace *t) { return t && t->cap; }

void czk_trace_add(czk_trace *t, const czk_trace_span *s) {
  if (!t || !t->cap) return;
  pthread_mutex_lock(&t->mu);
  if (t->count < t->cap) {
    t->spans[(t->start + t->count++) % t->cap] = *s;
  } else {
    t->spans[t->start] = *s;
    t->start = (t->start + 1) % t->cap;
    t->dropped++;
  }
  pthread_mutex_unlock(&t->mu);
}

void czk_trace_counter(czk_trace *t, const char *name, uint32_t pid, uint64_t t_ns, double value) {
  if (!czk_trace_enabled(t)) return;
  czk_trace_span s = {.name = name, .cat = "counter", .pid = pid, .t0_ns = t_ns, .t1_ns = t_ns, .part = -1,
                      .counter = true, .value = value};
  czk_trace_add(t, &s);
}

void czk_trace_name_track(czk_trace *t, uint32_t pid, uint32_t tid, const char *name) {
  if (!t || !t->cap || !name) return;
  pthread_mutex_lock(&t->mu);
  track_name *slot = NULL;
  for (size_t i = 0; i < t->nnames; i++)
    if (t->names[i].pid == pid && t->names[i].tid == tid) slot = &t->names[i];
  if (!slot) {
    if (t->nnames == t->names_cap) {
      size_t nc = t->names_cap ? 2 * t->names_cap : 16;
      track_name *nn = realloc(t->names, nc * sizeof *nn);
      if (!nn) {
        pthread_mutex_unlock(&t->mu);
        return;
      }
      t->names = nn;
      t->names_cap = nc;
    }
    slot = &t->names[t->nnames++];
    slot->pid = pid;
    slot->tid = tid;
  }
  snprintf(slot->name, sizeof slot->name, "%s", name);
  pthread_mutex_unlock(&t->mu);
}

czk_status czk_trace_snapshot(czk_trace *t, czk_trace_span **spans, size_t *n, uint64_t *dropped) {
  if (!t || !spans || !n) return CZK_ERR_INVALID_ARG;
  *spans = NULL;
  *n = 0;
  pthread_mutex_lock(&t->mu);
  size_t cnt = t->count;
  czk_trace_span *out = cnt ? malloc(cnt * sizeof *out) : NULL;
  if (cnt && !out) {
    pthread_mutex_unlock(&t->mu);
    return CZK_ERR_NOMEM;
  }
  for (size_t i = 0; i < cnt; i++) out[i] = t->spans[(t->start + i) % t->cap];
  if (dropped) *dropped = t->dropped;
  pthread_mutex_unlock(&t->mu);
  *spans = out;
  *n = cnt;
  return CZK_OK;
}

/* JSON string body with escapes for quotes, backslashes and control characters. */
static void put_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

czk_status czk_trace_write_json(czk_trace *t, FILE *out, uint64_t origin_ns) {
  if (!t || !out) return CZK_ERR_INVALID_ARG;
  czk_trace_span *spans;
  size_t n;
  CZK_TRY(czk_trace_snapshot(t, &spans, &n, NULL));
  fprintf(out, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  bool first = true;
  pthread_mutex_lock(&t->mu);
  for (size_t i = 0; i < t->nnames; i++) {
    const track_name *tn = &t->names[i];
    fprintf(out, "%s{\"ph\":\"M\",\"pid\":%u,", first ? "" : ",\n", tn->pid);
    if (tn->tid == UINT32_MAX) fprintf(out, "\"name\":\"process_name\",\"args\":{\"name\":");
    else fprintf(out, "\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":", tn->tid);
    put_json_str(out, tn->name);
    fprintf(out, "}}");
    first = false;
  }
  pthread_mutex_unlock(&t->mu);
  for (size_t i = 0; i < n; i++) {
    const czk_trace_span *s = &spans[i];
    uint64_t t0 = s->t0_ns > origin_ns ? s->t0_ns - origin_ns : 0;
    uint64_t d = s->t1_ns > s->t0_ns ? s->t1_ns - s->t0_ns : 0;
    if (s->counter) {
      fprintf(out, "%s{\"ph\":\"C\",\"name\":", first ? "" : ",\n");
      put_json_str(out, s->name ? s->name : "?");
      fprintf(out, ",\"pid\":%u,\"ts\":%.3f,\"args\":{\"value\":%.17g}}", s->pid, t0 / 1e3, s->value);
      first = false;
      continue;
    }
    fprintf(out, "%s{\"ph\":\"X\",\"name\":", first ? "" : ",\n");
    put_json_str(out, s->name ? s->name : "?");
    fprintf(out, ",\"cat\":");
    put_json_str(out, s->cat ? s->cat : "czk");
    fprintf(out, ",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"job\":%llu", s->pid, s->tid, t0 / 1e3,
            d / 1e3, (unsigned long long)s->job);
    if (s->part >= 0) fprintf(out, ",\"part\":%d", (int)s->part);
    fprintf(out, "}}");
    first = false;
  }
  fprintf(out, "\n]}\n");
  free(spans);
  return ferror(out) ? CZK_ERR_IO : CZK_OK;
}
