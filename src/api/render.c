/* render.c: engine status -> JSON, HTML and Prometheus text; API request counters.
 * Invariants: rendering reads only a czk_engine_status snapshot (no engine lock held while formatting) and the
 * read-only daemon info; the API counters are updated and read under m->mu only; histogram buckets are cumulative in
 * the output (le bounds from czk_engine_latency_bounds, then +Inf = _count); label values are escaped (\\, \", \n);
 * HTML text is escaped (&, <, >, "). Key tiers are written in one vocabulary everywhere (czk_key_tier_str: device,
 * pinned, mapped, disk). */
#include "api/render.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *const czk__api_method_names[CZK_API_METHODS] = {
    "SubmitProof", "AwaitProof", "Prove", "CancelProof", "GetStatus", "GetMetrics", "PreloadSRS", "EvictSRS",
    "GetTrace"};
static const char *const k_prio_names[CZK_PRIORITY_COUNT] = {"unspecified", "low", "normal", "high", "critical"};

void czk__api_metrics_init(czk__api_metrics *m) {
  memset(m, 0, sizeof *m);
  pthread_mutex_init(&m->mu, NULL);
}
void czk__api_metrics_destroy(czk__api_metrics *m) { pthread_mutex_destroy(&m->mu); }

void czk__api_metrics_request(czk__api_metrics *m, int method, int code) {
  if (method < 0 || method >= CZK_API_METHODS) return;
  if (code < 0 || code > 16) code = 2;
  pthread_mutex_lock(&m->mu);
  m->requests[method][code]++;
  pthread_mutex_unlock(&m->mu);
}

void czk__process_rss(uint64_t *rss, uint64_t *peak) {
  *rss = *peak = 0;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return;
  char line[256];
  unsigned long long kb;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "VmRSS: %llu kB", &kb) == 1) *rss = (uint64_t)kb << 10;
    else if (sscanf(line, "VmHWM: %llu kB", &kb) == 1) *peak = (uint64_t)kb << 10;
  }
  fclose(f);
}

static _Atomic uint64_t g_trims;
static _Atomic uint64_t g_trim_activity = UINT64_MAX;

bool czk__process_idle_trim(uint64_t activity) {
  if (atomic_load(&g_trim_activity) == activity) return false;
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
  atomic_store(&g_trim_activity, activity);
  atomic_fetch_add(&g_trims, 1);
  return true;
}

void czk__process_mem_read(czk__process_mem *pm) {
  memset(pm, 0, sizeof *pm);
  FILE *f = fopen("/proc/self/status", "r");
  if (f) {
    char line[256];
    unsigned long long kb;
    while (fgets(line, sizeof line, f)) {
      if (sscanf(line, "VmRSS: %llu kB", &kb) == 1) pm->rss = (uint64_t)kb << 10;
      else if (sscanf(line, "VmHWM: %llu kB", &kb) == 1) pm->peak = (uint64_t)kb << 10;
      else if (sscanf(line, "RssAnon: %llu kB", &kb) == 1) pm->anon = (uint64_t)kb << 10;
      else if (sscanf(line, "RssFile: %llu kB", &kb) == 1) pm->file = (uint64_t)kb << 10;
      else if (sscanf(line, "RssShmem: %llu kB", &kb) == 1) pm->shmem = (uint64_t)kb << 10;
    }
    fclose(f);
  }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  struct mallinfo2 mi = mallinfo2();
  pm->heap_known = true;
  pm->heap_in_use = (uint64_t)mi.uordblks;
  pm->heap_free = (uint64_t)mi.fordblks;
  pm->heap_mmapped = (uint64_t)mi.hblkhd;
#endif
}

static double sec(uint64_t ns) { return (double)ns / 1e9; }

static void key_files_json(czk__strbuf *sb, const czk_engine_key_source *src) {
  czk__sb_puts(sb, "[");
  for (uint32_t f = 0; src && f < src->nfiles; f++) {
    czk__sb_puts(sb, f ? ", {\"path\": " : "{\"path\": ");
    czk__sb_json_str(sb, src->files[f].path);
    czk__sb_printf(sb, ", \"bytes\": %llu, \"present\": %s}", (unsigned long long)src->files[f].bytes,
                   src->files[f].present ? "true" : "false");
  }
  czk__sb_puts(sb, "]");
}

static const czk_engine_key_source *source_of(const czk_engine_status *st, const char *key_id) {
  for (uint32_t i = 0; i < st->nsources; i++)
    if (strcmp(st->sources[i].key_id, key_id) == 0) return &st->sources[i];
  return NULL;
}

void czk__render_status_json(czk__strbuf *sb, const czk_engine_status *st, const czk__daemon_info *info) {
  czk__sb_printf(sb, "{\n \"uptime_seconds\": %.3f,\n", sec(st->uptime_ns));
  uint64_t rss, peak;
  czk__process_rss(&rss, &peak);
  czk__sb_puts(sb, " \"daemon\": {\"version\": ");
  czk__sb_json_str(sb, info && info->version ? info->version : "unknown");
  czk__sb_printf(sb, ", \"cuda_built\": %s, \"cpu_only\": %s, \"cpu_fallback\": %s, \"cpu_fallback_reason\": ",
                 info && info->cuda_built ? "true" : "false", info && info->cpu_only ? "true" : "false",
                 info && info->cpu_fallback ? "true" : "false");
  czk__sb_json_str(sb, info ? info->cpu_fallback_reason : "");
  czk__sb_printf(sb, ", \"resident_bytes\": %llu, \"peak_resident_bytes\": %llu},\n", (unsigned long long)rss,
                 (unsigned long long)peak);
  czk__sb_printf(sb, " \"queues\": {\"synth\": %u, \"gpu\": %u, \"finalize\": %u},\n", st->synth_queue, st->gpu_queue,
                st->finalize_queue);
  czk__sb_printf(sb, " \"synthesis\": {\"active\": %u, \"workers\": %u, \"dispatcher_waiting_budget\": %s},\n",
                st->synth_active, st->synth_workers, st->dispatcher_waiting_budget ? "true" : "false");
  czk__sb_printf(sb, " \"memory\": {\"limit_bytes\": %llu, \"used_bytes\": %llu, \"peak_bytes\": %llu, \"by_category\": {",
                (unsigned long long)st->mem_limit, (unsigned long long)st->mem_used, (unsigned long long)st->mem_peak);
  for (int c = 0; c < CZK_MEM_COUNT; c++)
    czk__sb_printf(sb, "%s\"%s\": %llu", c ? ", " : "", czk_mem_cat_str((czk_mem_cat)c),
                  (unsigned long long)st->mem_used_by_cat[c]);
  czk__sb_printf(sb, "}, \"reservations_made\": %llu, \"reservations_released\": %llu, \"release_errors\": %llu},\n",
                (unsigned long long)st->reservations_made, (unsigned long long)st->reservations_released,
                (unsigned long long)st->release_errors);
  czk__sb_printf(sb,
                " \"jobs\": {\"live\": %llu, \"submitted\": %llu, \"completed\": %llu, \"failed\": %llu, "
                "\"cancelled\": %llu, \"attached\": %llu, \"pruned\": %llu},\n",
                (unsigned long long)st->jobs_live, (unsigned long long)st->jobs_submitted,
                (unsigned long long)st->jobs_completed, (unsigned long long)st->jobs_failed,
                (unsigned long long)st->jobs_cancelled, (unsigned long long)st->jobs_attached,
                (unsigned long long)st->jobs_pruned);
  czk__sb_puts(sb, " \"devices\": [");
  for (uint32_t i = 0; i < st->ndevices; i++) {
    const czk_engine_device_status *d = &st->devices[i];
    double wall = sec(d->wall_ns);
    czk__sb_printf(sb, "%s\n  {\"ordinal\": %u, \"name\": ", i ? "," : "", d->ordinal);
    czk__sb_json_str(sb, d->name);
    czk__sb_printf(sb,
                  ", \"workers\": %u, \"mem_total_bytes\": %llu, \"mem_free_bytes\": %llu, \"proofs\": %llu, "
                  "\"wall_seconds\": %.3f, "
                  "\"kernel_busy_seconds\": %.3f, \"occupied_seconds\": %.3f, \"busy_percent\": %.2f, \"idle_seconds\": {",
                  d->workers, (unsigned long long)d->mem_total_bytes, (unsigned long long)d->mem_free_bytes,
                  (unsigned long long)d->proofs, wall,
                  sec(d->kernel_busy_ns), sec(d->occupied_ns), wall > 0 ? 100.0 * sec(d->kernel_busy_ns) / wall : 0.0);
    for (int c = 0; c < CZK_IDLE_COUNT; c++)
      czk__sb_printf(sb, "%s\"%s\": %.3f", c ? ", " : "", czk_idle_cause_str((czk_idle_cause)c), sec(d->idle_ns[c]));
    czk__sb_printf(sb,
                  "}, \"key_memory_bytes\": {\"limit\": %llu, \"used\": %llu}, \"keys_resident\": %u, "
                  "\"memory_plan\": {\"limit_bytes\": %llu, \"keys_bytes\": %llu, \"lanes_bytes\": %llu, "
                  "\"tables_bytes\": %llu, \"lanes_busy\": %u, \"lanes_idle\": %u, \"waits\": %llu, "
                  "\"lanes_warmed\": %llu}, \"urgent_yields\": %llu, \"urgent_yield_seconds\": %.3f, "
                  "\"mem_limit_bytes\": %llu, \"mem_peak_used_bytes\": %llu, "
                  "\"quarantined\": %s, \"prove_errors\": %llu}",
                  (unsigned long long)d->key_mem_limit, (unsigned long long)d->key_mem_used, d->keys_resident,
                  (unsigned long long)d->plan_limit, (unsigned long long)d->key_mem_used,
                  (unsigned long long)d->plan_lanes_bytes, (unsigned long long)d->plan_tables_bytes, d->lanes_busy,
                  d->lanes_idle, (unsigned long long)d->plan_waits, (unsigned long long)d->lanes_warmed,
                  (unsigned long long)d->urgent_yields, sec(d->urgent_yield_ns),
                  (unsigned long long)d->mem_limit_bytes, (unsigned long long)d->mem_peak_used_bytes,
                  d->quarantined ? "true" : "false",
                  (unsigned long long)d->prove_errors);
  }
  czk__sb_puts(sb, "\n ],\n \"workers\": [");
  for (uint32_t i = 0; i < st->nworkers; i++) {
    const czk_engine_worker_status *w = &st->workers[i];
    czk__sb_printf(sb, "%s\n  {\"role\": ", i ? "," : "");
    czk__sb_json_str(sb, w->role);
    czk__sb_printf(sb, ", \"device\": %u, \"index\": %u, \"state\": \"%s\", \"job_id\": %llu, \"partition\": %u, \"kind\": ",
                  w->device, w->index, czk_worker_state_str(w->state), (unsigned long long)w->job_id, w->partition);
    czk__sb_json_str(sb, w->kind);
    czk__sb_printf(sb, ", \"busy_seconds\": %.3f, \"items\": %llu}", sec(w->busy_ns), (unsigned long long)w->items);
  }
  czk__sb_puts(sb, "\n ],\n \"kinds\": [");
  for (uint32_t i = 0; i < st->nkinds; i++) {
    const czk_engine_kind_status *k = &st->kinds[i];
    czk__sb_printf(sb, "%s\n  {\"name\": ", i ? "," : "");
    czk__sb_json_str(sb, k->name);
    czk__sb_printf(sb,
                  ", \"pending\": %u, \"in_progress\": %u, \"submitted\": %llu, \"attached\": %llu, \"completed\": %llu, "
                  "\"failed\": %llu, \"cancelled\": %llu, \"partitions_proved\": %llu}",
                  k->pending, k->in_progress, (unsigned long long)k->submitted, (unsigned long long)k->attached,
                  (unsigned long long)k->completed, (unsigned long long)k->failed, (unsigned long long)k->cancelled,
                  (unsigned long long)k->partitions_proved);
  }
  czk__sb_puts(sb, "\n ],\n \"keys\": [");
  for (uint32_t i = 0; i < st->nkeys; i++) {
    const czk_engine_key_status *k = &st->keys[i];
    czk__sb_printf(sb, "%s\n  {\"key_id\": ", i ? "," : "");
    czk__sb_json_str(sb, k->key_id);
    czk__sb_printf(sb,
                  ", \"tier\": \"%s\", \"host_tier\": \"%s\", \"loading\": %s, \"bytes\": %llu, \"device_bytes\": %llu, "
                  "\"devices\": [",
                  czk_key_tier_str(k->tier), czk_key_tier_str(k->host_tier), k->loading ? "true" : "false",
                  (unsigned long long)k->bytes, (unsigned long long)k->device_bytes);
    for (uint32_t d = 0, n = 0; d < 32; d++)
      if (k->device_mask & (1u << d)) czk__sb_printf(sb, "%s%u", n++ ? ", " : "", d);
    czk__sb_puts(sb, "], \"device_tiers\": [");
    for (uint32_t d = 0, n = 0; d < st->ndevices && d < CZK_ENGINE_STATUS_DEVICES; d++)
      if (k->dev_tier[d])
        czk__sb_printf(sb, "%s{\"device\": %u, \"tier\": \"%s\", \"lanes\": \"%s\", \"copy_bytes\": %llu}",
                       n++ ? ", " : "", d, czk_engine_dev_tier_str((czk_engine_dev_tier)k->dev_tier[d]),
                       czk_engine_lane_shape_str(k->dev_shape[d]), (unsigned long long)k->dev_copy_bytes[d]);
    czk__sb_printf(sb, "], \"refs\": %u, \"last_use_ms_ago\": %llu, \"files\": ", k->refs,
                   (unsigned long long)k->last_use_ms_ago);
    key_files_json(sb, source_of(st, k->key_id));
    czk__sb_puts(sb, "}");
  }
  czk__sb_puts(sb, "\n ],\n \"key_sources\": [");
  for (uint32_t i = 0; i < st->nsources; i++) {
    const czk_engine_key_source *src = &st->sources[i];
    czk__sb_printf(sb, "%s\n  {\"key_id\": ", i ? "," : "");
    czk__sb_json_str(sb, src->key_id);
    czk__sb_puts(sb, ", \"kind\": ");
    czk__sb_json_str(sb, src->kind);
    czk__sb_printf(sb, ", \"tier\": \"%s\", \"loading\": %s, \"files\": ", czk_key_tier_str(src->tier),
                   src->loading ? "true" : "false");
    key_files_json(sb, src);
    czk__sb_puts(sb, "}");
  }
  czk__sb_puts(sb, "\n ]\n}\n");
}

static void html_text(czk__strbuf *sb, const char *s) {
  for (const char *p = s; *p; p++) {
    switch (*p) {
    case '&': czk__sb_puts(sb, "&amp;"); break;
    case '<': czk__sb_puts(sb, "&lt;"); break;
    case '>': czk__sb_puts(sb, "&gt;"); break;
    case '"': czk__sb_puts(sb, "&quot;"); break;
    default: czk__sb_append(sb, p, 1);
    }
  }
}

static void html_bytes(czk__strbuf *sb, uint64_t b) {
  if (b >= (1ull << 30)) czk__sb_printf(sb, "%.2f GiB", (double)b / (1ull << 30));
  else if (b >= (1ull << 20)) czk__sb_printf(sb, "%.1f MiB", (double)b / (1ull << 20));
  else czk__sb_printf(sb, "%llu B", (unsigned long long)b);
}

void czk__render_status_html(czk__strbuf *sb, const czk_engine_status *st, const czk__daemon_info *info) {
  czk__sb_puts(sb, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>czk status</title><style>"
                   "body{font:14px sans-serif;margin:1.5em}table{border-collapse:collapse;margin:.5em 0 1.5em}"
                   "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#eee}"
                   ".warn{background:#fdd;border:2px solid #c00;padding:.5em;font-weight:bold}</style></head><body>\n");
  czk__sb_puts(sb, "<h1>czk ");
  html_text(sb, info && info->version ? info->version : "");
  czk__sb_printf(sb, "</h1>\n<p>up %.0f s; jobs: %llu live, %llu completed, %llu failed, %llu cancelled; memory ",
                 sec(st->uptime_ns), (unsigned long long)st->jobs_live, (unsigned long long)st->jobs_completed,
                 (unsigned long long)st->jobs_failed, (unsigned long long)st->jobs_cancelled);
  html_bytes(sb, st->mem_used);
  czk__sb_puts(sb, " of ");
  html_bytes(sb, st->mem_limit);
  czk__sb_printf(sb, "; queues: synth %u, gpu %u, finalize %u. JSON: <a href=\"/status\">/status</a>, "
                     "<a href=\"/metrics\">/metrics</a>.</p>\n", st->synth_queue, st->gpu_queue, st->finalize_queue);
  if (info && info->cpu_fallback) {
    czk__sb_puts(sb, "<p class=\"warn\">CPU fallback: proving on the CPU although ");
    html_text(sb, info->cpu_fallback_reason);
    czk__sb_puts(sb, "</p>\n");
  }
  czk__sb_puts(sb, "<h2>Devices</h2>\n<table><tr><th>#</th><th>name</th><th>proofs</th><th>busy %</th>"
                   "<th>memory free / total</th><th>plan: key copies + lanes + tables / limit</th>");
  for (int c = 0; c < CZK_IDLE_COUNT; c++) czk__sb_printf(sb, "<th>idle %s s</th>", czk_idle_cause_str((czk_idle_cause)c));
  czk__sb_puts(sb, "</tr>\n");
  for (uint32_t i = 0; i < st->ndevices; i++) {
    const czk_engine_device_status *d = &st->devices[i];
    double wall = sec(d->wall_ns);
    czk__sb_printf(sb, "<tr><td>%u</td><td>", d->ordinal);
    html_text(sb, d->name);
    czk__sb_printf(sb, "</td><td>%llu</td><td>%.1f</td>", (unsigned long long)d->proofs,
                   wall > 0 ? 100.0 * sec(d->kernel_busy_ns) / wall : 0.0);
    czk__sb_puts(sb, "<td>");
    if (d->mem_free_bytes) html_bytes(sb, d->mem_free_bytes), czk__sb_puts(sb, " / ");
    html_bytes(sb, d->mem_total_bytes);
    czk__sb_puts(sb, "</td><td>");
    if (d->plan_limit) {
      html_bytes(sb, d->key_mem_used);
      czk__sb_puts(sb, " + ");
      html_bytes(sb, d->plan_lanes_bytes);
      czk__sb_printf(sb, " (%u busy, %u idle) + ", d->lanes_busy, d->lanes_idle);
      html_bytes(sb, d->plan_tables_bytes);
      czk__sb_puts(sb, " / ");
      html_bytes(sb, d->plan_limit);
    } else {
      czk__sb_puts(sb, "none");
    }
    czk__sb_puts(sb, "</td>");
    for (int c = 0; c < CZK_IDLE_COUNT; c++) czk__sb_printf(sb, "<td>%.1f</td>", sec(d->idle_ns[c]));
    czk__sb_puts(sb, "</tr>\n");
  }
  czk__sb_puts(sb, "</table>\n<h2>Kinds with work</h2>\n<table><tr><th>kind</th><th>pending</th><th>in progress</th>"
                   "<th>completed</th><th>failed</th></tr>\n");
  for (uint32_t i = 0; i < st->nkinds; i++) {
    const czk_engine_kind_status *k = &st->kinds[i];
    if (!k->pending && !k->in_progress && !k->submitted) continue; /* idle kinds: in /status */
    czk__sb_puts(sb, "<tr><td>");
    html_text(sb, k->name);
    czk__sb_printf(sb, "</td><td>%u</td><td>%u</td><td>%llu</td><td>%llu</td></tr>\n", k->pending, k->in_progress,
                   (unsigned long long)k->completed, (unsigned long long)k->failed);
  }
  czk__sb_puts(sb, "</table>\n<h2>Keys</h2>\n<table><tr><th>key</th><th>tier</th><th>file</th><th>size</th></tr>\n");
  for (uint32_t i = 0; i < st->nsources; i++) {
    const czk_engine_key_source *src = &st->sources[i];
    bool any = src->tier != CZK_KEY_TIER_DISK || src->loading;
    for (uint32_t f = 0; f < src->nfiles; f++) any |= src->files[f].present;
    if (!any) continue; /* neither loaded nor on disk: in /status */
    for (uint32_t f = 0; f < (src->nfiles ? src->nfiles : 1); f++) {
      czk__sb_puts(sb, "<tr><td>");
      if (f == 0) html_text(sb, src->key_id);
      czk__sb_puts(sb, "</td><td>");
      if (f == 0) czk__sb_printf(sb, "%s%s", czk_key_tier_str(src->tier), src->loading ? " (loading)" : "");
      czk__sb_puts(sb, "</td><td>");
      if (src->nfiles) html_text(sb, src->files[f].path);
      czk__sb_puts(sb, "</td><td>");
      if (src->nfiles && src->files[f].present) html_bytes(sb, src->files[f].bytes);
      else if (src->nfiles) czk__sb_puts(sb, "missing");
      czk__sb_puts(sb, "</td></tr>\n");
    }
  }
  czk__sb_puts(sb, "</table>\n</body></html>\n");
}

static void help_type(czk__strbuf *sb, const char *name, const char *type, const char *help) {
  czk__sb_printf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One series per device from the uint64_t field at `off` of czk_engine_device_status: as a count (%llu), or, when
 * `ns`, nanoseconds as seconds; devices whose value is 0 left out when `skip_zero`. */
enum { DEV_COUNT = 0, DEV_NS = 1, DEV_SKIP_ZERO = 2 };
static void per_device(czk__strbuf *sb, const czk_engine_status *st, const char *name, const char *type,
                       const char *help, size_t off, unsigned how) {
  help_type(sb, name, type, help);
  for (uint32_t i = 0; i < st->ndevices; i++) {
    const uint64_t v = *(const uint64_t *)((const char *)&st->devices[i] + off);
    if ((how & DEV_SKIP_ZERO) && !v) continue;
    if (how & DEV_NS) czk__sb_printf(sb, "%s{device=\"%u\"} %.6f\n", name, st->devices[i].ordinal, sec(v));
    else czk__sb_printf(sb, "%s{device=\"%u\"} %llu\n", name, st->devices[i].ordinal, (unsigned long long)v);
  }
}
#define DEV_OFF(f) offsetof(czk_engine_device_status, f)

/* label values: escape backslash, quote and newline */
static void label_val(czk__strbuf *sb, const char *v) {
  for (const char *p = v; *p; p++) {
    if (*p == '\\' || *p == '"') czk__sb_append(sb, "\\", 1);
    if (*p == '\n') {
      czk__sb_append(sb, "\\n", 2);
      continue;
    }
    czk__sb_append(sb, p, 1);
  }
}

void czk__render_metrics(czk__strbuf *sb, const czk_engine_status *st, czk__api_metrics *m,
                         const czk__daemon_info *info) {
  help_type(sb, "czk_build_info", "gauge", "Always 1; the labels say which czk this is.");
  czk__sb_puts(sb, "czk_build_info{version=\"");
  label_val(sb, info && info->version ? info->version : "unknown");
  czk__sb_printf(sb, "\",cuda=\"%s\"} 1\n", info && info->cuda_built ? "true" : "false");
  czk__process_mem pm;
  czk__process_mem_read(&pm);
  help_type(sb, "czk_process_resident_memory_bytes", "gauge", "Resident set size of the daemon process.");
  czk__sb_printf(sb, "czk_process_resident_memory_bytes %llu\n", (unsigned long long)pm.rss);
  help_type(sb, "czk_process_peak_resident_memory_bytes", "gauge", "Highest resident set size of the daemon process.");
  czk__sb_printf(sb, "czk_process_peak_resident_memory_bytes %llu\n", (unsigned long long)pm.peak);
  help_type(sb, "czk_process_resident_anon_bytes", "gauge",
            "Anonymous part of the resident set (RssAnon: heap, stacks, private mappings).");
  czk__sb_printf(sb, "czk_process_resident_anon_bytes %llu\n", (unsigned long long)pm.anon);
  help_type(sb, "czk_process_resident_file_bytes", "gauge",
            "File-backed part of the resident set (RssFile: mapped files such as key files; the kernel may drop it).");
  czk__sb_printf(sb, "czk_process_resident_file_bytes %llu\n", (unsigned long long)pm.file);
  if (pm.heap_known) {
    help_type(sb, "czk_process_heap_bytes", "gauge",
              "The malloc heap over all arenas (glibc mallinfo2): in_use by live blocks in the arenas, free inside the "
              "arenas (fragmentation, not yet trimmed), mmapped blocks.");
    czk__sb_printf(sb, "czk_process_heap_bytes{state=\"in_use\"} %llu\n", (unsigned long long)pm.heap_in_use);
    czk__sb_printf(sb, "czk_process_heap_bytes{state=\"free\"} %llu\n", (unsigned long long)pm.heap_free);
    czk__sb_printf(sb, "czk_process_heap_bytes{state=\"mmapped\"} %llu\n", (unsigned long long)pm.heap_mmapped);
  }
  help_type(sb, "czk_process_heap_trims_total", "counter",
            "Times the idle daemon gave the malloc arenas' free space back to the system (after activity, once idle).");
  czk__sb_printf(sb, "czk_process_heap_trims_total %llu\n", (unsigned long long)atomic_load(&g_trims));
  if (st) {
    help_type(sb, "czk_process_heap_trimmed", "gauge",
              "1 when the last idle trim came after all the activity this snapshot shows (reservations made), else 0.");
    czk__sb_printf(sb, "czk_process_heap_trimmed %d\n", atomic_load(&g_trim_activity) == st->reservations_made);
  }
  help_type(sb, "czk_daemon_cpu_fallback", "gauge",
            "1 when the daemon proves on the CPU although GPUs are configured or present (allow_cpu_fallback).");
  czk__sb_printf(sb, "czk_daemon_cpu_fallback %d\n", info && info->cpu_fallback ? 1 : 0);
  help_type(sb, "czk_engine_uptime_seconds", "gauge", "Seconds since the engine started.");
  czk__sb_printf(sb, "czk_engine_uptime_seconds %.3f\n", sec(st->uptime_ns));

  help_type(sb, "czk_queue_depth_partitions", "gauge", "Partitions waiting in each queue.");
  czk__sb_printf(sb, "czk_queue_depth_partitions{queue=\"synth\"} %u\n", st->synth_queue);
  czk__sb_printf(sb, "czk_queue_depth_partitions{queue=\"gpu\"} %u\n", st->gpu_queue);
  czk__sb_printf(sb, "czk_queue_depth_partitions{queue=\"finalize\"} %u\n", st->finalize_queue);
  help_type(sb, "czk_synthesis_active_workers", "gauge", "Synthesis workers currently synthesizing.");
  czk__sb_printf(sb, "czk_synthesis_active_workers %u\n", st->synth_active);

  help_type(sb, "czk_memory_limit_bytes", "gauge", "The engine's memory budget.");
  czk__sb_printf(sb, "czk_memory_limit_bytes %llu\n", (unsigned long long)st->mem_limit);
  help_type(sb, "czk_memory_used_bytes", "gauge", "Budget in use, by category.");
  for (int c = 0; c < CZK_MEM_COUNT; c++)
    czk__sb_printf(sb, "czk_memory_used_bytes{category=\"%s\"} %llu\n", czk_mem_cat_str((czk_mem_cat)c),
                  (unsigned long long)st->mem_used_by_cat[c]);
  help_type(sb, "czk_memory_peak_bytes", "gauge", "Highest budget use seen.");
  czk__sb_printf(sb, "czk_memory_peak_bytes %llu\n", (unsigned long long)st->mem_peak);
  help_type(sb, "czk_memory_reservations_total", "counter", "Partition reservations made and released.");
  czk__sb_printf(sb, "czk_memory_reservations_total{event=\"made\"} %llu\n", (unsigned long long)st->reservations_made);
  czk__sb_printf(sb, "czk_memory_reservations_total{event=\"released\"} %llu\n",
                (unsigned long long)st->reservations_released);

  help_type(sb, "czk_jobs_total", "counter", "Jobs by kind and outcome.");
  for (uint32_t i = 0; i < st->nkinds; i++) {
    const czk_engine_kind_status *k = &st->kinds[i];
    const struct {
      const char *ev;
      uint64_t v;
    } evs[] = {{"submitted", k->submitted}, {"attached", k->attached}, {"completed", k->completed},
               {"failed", k->failed},       {"cancelled", k->cancelled}};
    for (size_t j = 0; j < sizeof evs / sizeof evs[0]; j++) {
      czk__sb_puts(sb, "czk_jobs_total{kind=\"");
      label_val(sb, k->name);
      czk__sb_printf(sb, "\",event=\"%s\"} %llu\n", evs[j].ev, (unsigned long long)evs[j].v);
    }
  }
  help_type(sb, "czk_partitions_proved_total", "counter", "Partition proofs produced, by kind.");
  for (uint32_t i = 0; i < st->nkinds; i++) {
    czk__sb_puts(sb, "czk_partitions_proved_total{kind=\"");
    label_val(sb, st->kinds[i].name);
    czk__sb_printf(sb, "\"} %llu\n", (unsigned long long)st->kinds[i].partitions_proved);
  }
  help_type(sb, "czk_prove_upload_bytes_total", "counter",
            "Bytes copied host to device during the proves of the partitions proved (streamed key queries), by kind.");
  for (uint32_t i = 0; i < st->nkinds; i++) {
    czk__sb_puts(sb, "czk_prove_upload_bytes_total{kind=\"");
    label_val(sb, st->kinds[i].name);
    czk__sb_printf(sb, "\"} %llu\n", (unsigned long long)st->kinds[i].upload_bytes);
  }
  help_type(sb, "czk_stage_seconds", "summary",
            "Time of each stage of a proof, by kind (parse and check per job, the rest per partition proved).");
  for (uint32_t i = 0; i < st->nkinds; i++)
    for (int s = 0; s < CZK_STAGE_COUNT; s++) {
      if (!st->kinds[i].stage_count[s]) continue;
      for (int f = 0; f < 2; f++) {
        czk__sb_puts(sb, f ? "czk_stage_seconds_count{kind=\"" : "czk_stage_seconds_sum{kind=\"");
        label_val(sb, st->kinds[i].name);
        if (f)
          czk__sb_printf(sb, "\",stage=\"%s\"} %llu\n", czk_stage_str((czk_stage)s),
                         (unsigned long long)st->kinds[i].stage_count[s]);
        else
          czk__sb_printf(sb, "\",stage=\"%s\"} %.9f\n", czk_stage_str((czk_stage)s), sec(st->kinds[i].stage_ns[s]));
      }
    }
  help_type(sb, "czk_kind_partitions", "gauge", "Partitions of each kind pending (synth queue) and in progress.");
  for (uint32_t i = 0; i < st->nkinds; i++) {
    czk__sb_puts(sb, "czk_kind_partitions{kind=\"");
    label_val(sb, st->kinds[i].name);
    czk__sb_printf(sb, "\",state=\"pending\"} %u\n", st->kinds[i].pending);
    czk__sb_puts(sb, "czk_kind_partitions{kind=\"");
    label_val(sb, st->kinds[i].name);
    czk__sb_printf(sb, "\",state=\"in_progress\"} %u\n", st->kinds[i].in_progress);
  }

  per_device(sb, st, "czk_device_wall_seconds_total", "counter", "Wall time each device has been part of the engine.",
             DEV_OFF(wall_ns), DEV_NS);
  per_device(sb, st, "czk_device_busy_seconds_total", "counter",
             "Kernel-busy time of each device (from device events).", DEV_OFF(kernel_busy_ns), DEV_NS);
  help_type(sb, "czk_device_idle_seconds_total", "counter", "Idle time of each device, by cause.");
  for (uint32_t i = 0; i < st->ndevices; i++)
    for (int c = 0; c < CZK_IDLE_COUNT; c++)
      czk__sb_printf(sb, "czk_device_idle_seconds_total{device=\"%u\",cause=\"%s\"} %.6f\n", st->devices[i].ordinal,
                    czk_idle_cause_str((czk_idle_cause)c), sec(st->devices[i].idle_ns[c]));
  per_device(sb, st, "czk_device_proofs_total", "counter", "Partitions proved on each device.", DEV_OFF(proofs),
             DEV_COUNT);

  help_type(sb, "czk_device_quarantined", "gauge",
            "1 when the device was lost to a sticky error and takes no more work (its partitions go to other devices).");
  for (uint32_t i = 0; i < st->ndevices; i++)
    czk__sb_printf(sb, "czk_device_quarantined{device=\"%u\"} %d\n", st->devices[i].ordinal,
                  st->devices[i].quarantined ? 1 : 0);
  per_device(sb, st, "czk_device_prove_errors_total", "counter", "Proves that failed on each device (device errors).",
             DEV_OFF(prove_errors), DEV_COUNT);
  help_type(sb, "czk_prove_retries_total", "counter",
            "Partitions synthesized and proved again after a transient device error.");
  czk__sb_printf(sb, "czk_prove_retries_total %llu\n", (unsigned long long)st->prove_retries);

  help_type(sb, "czk_worker_busy_seconds_total", "counter", "Busy time of each engine worker.");
  for (uint32_t i = 0; i < st->nworkers; i++) {
    const czk_engine_worker_status *w = &st->workers[i];
    czk__sb_printf(sb, "czk_worker_busy_seconds_total{role=\"%s\",device=\"%u\",index=\"%u\"} %.6f\n", w->role,
                  w->device, w->index, sec(w->busy_ns));
  }
  help_type(sb, "czk_keys_resident_bytes", "gauge",
            "Bytes of each proving key: its host copy (tier pinned / mapped / disk) and its copies in device memory "
            "(tier device, one series per device).");
  for (uint32_t i = 0; i < st->nkeys; i++) {
    const czk_engine_key_status *k = &st->keys[i];
    czk__sb_puts(sb, "czk_keys_resident_bytes{key=\"");
    label_val(sb, k->key_id);
    czk__sb_printf(sb, "\",tier=\"%s\",device=\"host\"} %llu\n", czk_key_tier_str(k->host_tier),
                  (unsigned long long)k->bytes);
    for (uint32_t d = 0; d < 32; d++) {
      if (!(k->device_mask & (1u << d))) continue;
      czk__sb_puts(sb, "czk_keys_resident_bytes{key=\"");
      label_val(sb, k->key_id);
      czk__sb_printf(sb, "\",tier=\"device\",device=\"%u\"} %llu\n", d, (unsigned long long)k->device_bytes);
    }
  }
  help_type(sb, "czk_device_key_memory_bytes", "gauge",
            "Device memory for copies of proving keys: the limit and what resident copies use.");
  for (uint32_t i = 0; i < st->ndevices; i++) {
    czk__sb_printf(sb, "czk_device_key_memory_bytes{device=\"%u\",state=\"limit\"} %llu\n", st->devices[i].ordinal,
                  (unsigned long long)st->devices[i].key_mem_limit);
    czk__sb_printf(sb, "czk_device_key_memory_bytes{device=\"%u\",state=\"used\"} %llu\n", st->devices[i].ordinal,
                  (unsigned long long)st->devices[i].key_mem_used);
  }

  help_type(sb, "czk_device_memory_plan_bytes", "gauge",
            "The device memory plan: its limit, and what key copies, the proves' lanes and the backend's tables hold "
            "(absent without a plan).");
  for (uint32_t i = 0; i < st->ndevices; i++) {
    const czk_engine_device_status *d = &st->devices[i];
    if (!d->plan_limit) continue;
    const char *names[4] = {"limit", "keys", "lanes", "tables"};
    const uint64_t vals[4] = {d->plan_limit, d->key_mem_used, d->plan_lanes_bytes, d->plan_tables_bytes};
    for (int k = 0; k < 4; k++)
      czk__sb_printf(sb, "czk_device_memory_plan_bytes{device=\"%u\",part=\"%s\"} %llu\n", d->ordinal, names[k],
                    (unsigned long long)vals[k]);
  }

  per_device(sb, st, "czk_device_memory_limit_bytes", "gauge",
             "gpu_memory_limit: the most of the device czk may use (absent when the whole device is czk's).",
             DEV_OFF(mem_limit_bytes), DEV_COUNT | DEV_SKIP_ZERO);
  per_device(sb, st, "czk_device_memory_peak_bytes", "gauge",
             "The most device memory seen in use since the daemon started, measured on the device every 10 ms (total "
             "less free, as the driver reports it).",
             DEV_OFF(mem_peak_used_bytes), DEV_COUNT | DEV_SKIP_ZERO);
  per_device(sb, st, "czk_device_urgent_yields_total", "counter",
             "Times a prove that is not urgent was held between its MSM chunks while an urgent prove ran on the device.",
             DEV_OFF(urgent_yields), DEV_COUNT);
  per_device(sb, st, "czk_device_urgent_yield_seconds_total", "counter",
             "The time proves that are not urgent were held for urgent ones on the device.", DEV_OFF(urgent_yield_ns),
             DEV_NS);
  help_type(sb, "czk_key_device_tier", "gauge",
            "The tier the device memory plan gave each key on each device (resident, partial, streamed) and its lane "
            "shape (full, compact, lean); the value is the bytes of its copy there.");
  for (uint32_t i = 0; i < st->nkeys; i++) {
    const czk_engine_key_status *k = &st->keys[i];
    for (uint32_t d = 0; d < st->ndevices && d < CZK_ENGINE_STATUS_DEVICES; d++) {
      if (!k->dev_tier[d]) continue;
      czk__sb_puts(sb, "czk_key_device_tier{key=\"");
      label_val(sb, k->key_id);
      czk__sb_printf(sb, "\",device=\"%u\",tier=\"%s\",lanes=\"%s\"} %llu\n", d,
                    czk_engine_dev_tier_str((czk_engine_dev_tier)k->dev_tier[d]),
                    czk_engine_lane_shape_str(k->dev_shape[d]), (unsigned long long)k->dev_copy_bytes[d]);
    }
  }

  help_type(sb, "czk_job_latency_seconds", "histogram",
            "Submit-to-result latency of completed jobs by kind and priority, however they were awaited.");
  const double *bounds = czk_engine_latency_bounds();
  for (uint32_t i = 0; i < st->nkinds; i++) {
    const czk_engine_kind_status *k = &st->kinds[i];
    for (int p = 0; p < CZK_PRIORITY_COUNT; p++) {
      if (!k->lat_count[p]) continue; /* series appear with a kind's first completed job at that priority */
      uint64_t cum = 0;
      for (int b = 0; b <= CZK_LATENCY_BUCKETS; b++) {
        cum += k->lat_bucket[p][b];
        czk__sb_puts(sb, "czk_job_latency_seconds_bucket{kind=\"");
        label_val(sb, k->name);
        if (b < CZK_LATENCY_BUCKETS)
          czk__sb_printf(sb, "\",priority=\"%s\",le=\"%g\"} %llu\n", k_prio_names[p], bounds[b], (unsigned long long)cum);
        else
          czk__sb_printf(sb, "\",priority=\"%s\",le=\"+Inf\"} %llu\n", k_prio_names[p], (unsigned long long)cum);
      }
      czk__sb_puts(sb, "czk_job_latency_seconds_sum{kind=\"");
      label_val(sb, k->name);
      czk__sb_printf(sb, "\",priority=\"%s\"} %.6f\n", k_prio_names[p], k->lat_sum[p]);
      czk__sb_puts(sb, "czk_job_latency_seconds_count{kind=\"");
      label_val(sb, k->name);
      czk__sb_printf(sb, "\",priority=\"%s\"} %llu\n", k_prio_names[p], (unsigned long long)k->lat_count[p]);
    }
  }

  if (!m) return;
  pthread_mutex_lock(&m->mu);
  help_type(sb, "czk_api_requests_total", "counter", "gRPC requests by method and status code.");
  for (int i = 0; i < CZK_API_METHODS; i++)
    for (int c = 0; c <= 16; c++)
      if (m->requests[i][c])
        czk__sb_printf(sb, "czk_api_requests_total{method=\"%s\",code=\"%d\"} %llu\n", czk__api_method_names[i], c,
                      (unsigned long long)m->requests[i][c]);
  pthread_mutex_unlock(&m->mu);
}
