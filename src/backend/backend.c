/* backend.c: device enumeration (CPU first, then every CUDA device, minus an exclude list), backend lookup by name,
 * and the public wrappers of the vtable (backend_impl.h): argument checks, the quarantine gate (a quarantined
 * backend answers CZK_ERR_DEVICE to every call without touching its device). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend_impl.h"
#include "core/fault.h"
#include "czk/log.h"

#define GATE(be)                                                                                                      \
  do {                                                                                                                \
    if (!(be)) return CZK_ERR_INVALID_ARG;                                                                            \
    if (atomic_load(&(be)->quarantined)) return CZK_ERR_DEVICE;                                                       \
  } while (0)

/* Fault injection (core/fault.h) at the device operations, after the quarantine gate: device.upload (allocations,
 * host->device copies, MSM handles, CSR uploads), device.ntt (NTT, H), device.msm (MSMs, gathers), device.finish
 * (stream / event syncs, device->host copies). A transient fault fails the one call with CZK_ERR_DEVICE; a sticky one
 * quarantines the backend first (as a sticky CUDA error does), so every later call fails too. */
static czk_status device_fault(czk_backend *be, const char *site, czk_fault_kind k) {
  if (k == CZK_FAULT_STICKY) {
    char why[80];
    snprintf(why, sizeof why, "injected sticky fault at %s", site);
    czk__backend_quarantine(be, why);
  }
  return CZK_ERR_DEVICE;
}
#define DEVICE_FAULT(be, site)                                                                                        \
  do {                                                                                                                \
    czk_fault_kind fk_ = czk_fault(site);                                                                             \
    if (fk_ != CZK_FAULT_NONE) return device_fault((be), (site), fk_);                                                \
  } while (0)

void czk__backend_quarantine(czk_backend *be, const char *why) {
  if (!be) return;
  int was = atomic_exchange(&be->quarantined, 1);
  if (!was) CZK_ERROR("backend", "%s: quarantined after a sticky device error (%s); it refuses further work", be->name,
                      why ? why : "?");
}

static bool excluded(const char *name, czk_backend_kind kind, const char *const *ex, size_t nex) {
  for (size_t i = 0; i < nex; i++) {
    if (!ex || !ex[i]) continue;
    if (strcmp(ex[i], name) == 0) return true;
    if (kind == CZK_BACKEND_CPU && strcmp(ex[i], "cpu") == 0) return true;
    if (kind == CZK_BACKEND_CUDA && strcmp(ex[i], "cuda") == 0) return true;
  }
  return false;
}

czk_status czk_backend_enumerate(czk_backend ***out, size_t *n, const char *const *exclude, size_t n_exclude) {
  if (!out || !n) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  *n = 0;
  int ngpu = 0;
  if (czk__backend_cuda_count(&ngpu) != CZK_OK) ngpu = 0;
  czk_backend **list = calloc((size_t)ngpu + 1, sizeof *list);
  if (!list) return CZK_ERR_NOMEM;
  size_t k = 0;
  czk_status st = CZK_OK;
  if (!excluded("cpu", CZK_BACKEND_CPU, exclude, n_exclude)) st = czk__backend_cpu_new(&list[k++], NULL);
  for (int d = 0; d < ngpu && st == CZK_OK; d++) {
    char name[32];
    snprintf(name, sizeof name, "cuda:%d", d);
    if (excluded(name, CZK_BACKEND_CUDA, exclude, n_exclude)) continue;
    czk_status s = czk__backend_cuda_new(&list[k], d);
    if (s == CZK_OK) k++;
    else CZK_WARN("backend", "%s: unusable (%s), skipped", name, czk_status_str(s));
  }
  if (st != CZK_OK) {
    for (size_t i = 0; i < k; i++) czk_backend_free(list[i]);
    free(list);
    return st;
  }
  *out = list;
  *n = k;
  return CZK_OK;
}

czk_status czk_backend_open(czk_backend **out, const char *name, czk_pool *pool) {
  if (!out || !name) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (strcmp(name, "cpu") == 0) return czk__backend_cpu_new(out, pool);
  if (strncmp(name, "cuda:", 5) == 0 && name[5] >= '0' && name[5] <= '9') {
    char *end;
    long d = strtol(name + 5, &end, 10);
    if (*end || d < 0 || d > 1024) return CZK_ERR_INVALID_ARG;
    int count = 0;
    if (czk__backend_cuda_count(&count) != CZK_OK || d >= count) return CZK_ERR_NO_DEVICE;
    return czk__backend_cuda_new(out, (int)d);
  }
  if (strcmp(name, "cuda") == 0) return czk_backend_open(out, "cuda:0", pool);
  return CZK_ERR_INVALID_ARG;
}

/* The memory watcher: device memory in use = total - free as the driver reports it (every process's: on a shared
 * device the peak includes the others'), the highest value kept. */
static void *watch_main(void *arg) {
  czk_backend *be = arg;
  const struct timespec tick = {0, 10 * 1000 * 1000};
  while (atomic_load(&be->watching) == 1) {
    czk_backend_props p;
    if (!czk_backend_quarantined(be) && czk_backend_get_props(be, &p) == CZK_OK && p.mem_total >= p.mem_free &&
        p.mem_total) {
      const uint64_t used = p.mem_total - p.mem_free;
      uint64_t old = atomic_load(&be->mem_peak);
      while (used > old && !atomic_compare_exchange_weak(&be->mem_peak, &old, used)) {
      }
    }
    nanosleep(&tick, NULL);
  }
  return NULL;
}
czk_status czk_backend_mem_watch(czk_backend *be) {
  if (!be) return CZK_ERR_INVALID_ARG;
  if (czk_backend_host_memory(be)) return CZK_ERR_UNSUPPORTED;
  int off = 0;
  if (!atomic_compare_exchange_strong(&be->watching, &off, 1)) return CZK_OK; /* already on */
  if (pthread_create(&be->watch_thread, NULL, watch_main, be) != 0) {
    atomic_store(&be->watching, 0);
    return CZK_ERR_NOMEM;
  }
  return CZK_OK;
}
uint64_t czk_backend_mem_peak(czk_backend *be) { return be ? atomic_load(&be->mem_peak) : 0; }
void czk_backend_mem_peak_reset(czk_backend *be) {
  if (be) atomic_store(&be->mem_peak, 0);
}

void czk_backend_free(czk_backend *be) {
  if (!be) return;
  if (atomic_exchange(&be->watching, 2) == 1) pthread_join(be->watch_thread, NULL);
  be->iface->destroy(be);
}
czk_status czk_backend_get_props(czk_backend *be, czk_backend_props *out) {
  if (!be || !out) return CZK_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  GATE(be);
  return be->iface->props(be, out);
}
const char *czk_backend_name(const czk_backend *be) { return be ? be->name : "?"; }
czk_backend_kind czk_backend_get_kind(const czk_backend *be) { return be->iface->kind; }
bool czk_backend_host_memory(const czk_backend *be) { return be && be->iface->kind == CZK_BACKEND_CPU; }
bool czk_backend_quarantined(const czk_backend *be) { return be && atomic_load(&((czk_backend *)be)->quarantined); }

czk_status czk_backend_alloc(czk_backend *be, void **dptr, size_t bytes) {
  if (!dptr) return CZK_ERR_INVALID_ARG;
  *dptr = NULL;
  GATE(be);
  DEVICE_FAULT(be, "device.upload");
  return be->iface->alloc(be, dptr, bytes ? bytes : 1);
}
void czk_backend_mem_free(czk_backend *be, void *dptr) {
  if (be && dptr) be->iface->mem_free(be, dptr);
}
czk_status czk_backend_host_alloc(czk_backend *be, void **hptr, size_t bytes) {
  if (!hptr) return CZK_ERR_INVALID_ARG;
  *hptr = NULL;
  GATE(be);
  DEVICE_FAULT(be, "device.upload");
  return be->iface->host_alloc(be, hptr, bytes ? bytes : 1);
}
void czk_backend_host_free(czk_backend *be, void *hptr) {
  if (be && hptr) be->iface->host_free(be, hptr);
}
czk_status czk_backend_stream_new(czk_backend *be, czk_backend_stream **out) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  GATE(be);
  return be->iface->stream_new(be, out);
}
czk_status czk_backend_stream_new_urgent(czk_backend *be, czk_backend_stream **out) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  GATE(be);
  return be->iface->stream_new_urgent ? be->iface->stream_new_urgent(be, out) : be->iface->stream_new(be, out);
}
czk_status czk_backend_stream_new_raised(czk_backend *be, czk_backend_stream **out) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  GATE(be);
  return be->iface->stream_new_raised ? be->iface->stream_new_raised(be, out) : be->iface->stream_new(be, out);
}
void czk_backend_stream_free(czk_backend *be, czk_backend_stream *s) {
  if (be && s) be->iface->stream_free(be, s);
}
czk_status czk_backend_stream_sync(czk_backend *be, czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.finish");
  return be->iface->stream_sync(be, s);
}
czk_status czk_backend_event_new(czk_backend *be, czk_backend_event **out) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  GATE(be);
  return be->iface->event_new(be, out);
}
void czk_backend_event_free(czk_backend *be, czk_backend_event *e) {
  if (be && e) be->iface->event_free(be, e);
}
czk_status czk_backend_event_record(czk_backend *be, czk_backend_event *e, czk_backend_stream *s) {
  GATE(be);
  if (!e) return CZK_ERR_INVALID_ARG;
  return be->iface->event_record(be, e, s);
}
czk_status czk_backend_stream_wait(czk_backend *be, czk_backend_stream *s, czk_backend_event *e) {
  GATE(be);
  if (!e) return CZK_ERR_INVALID_ARG;
  return be->iface->stream_wait(be, s, e);
}
czk_status czk_backend_event_sync(czk_backend *be, czk_backend_event *e) {
  GATE(be);
  DEVICE_FAULT(be, "device.finish");
  if (!e) return CZK_ERR_INVALID_ARG;
  return be->iface->event_sync(be, e);
}
czk_status czk_backend_event_elapsed(czk_backend *be, float *ms, czk_backend_event *from, czk_backend_event *to) {
  GATE(be);
  if (!ms || !from || !to) return CZK_ERR_INVALID_ARG;
  return be->iface->event_elapsed(be, ms, from, to);
}
czk_status czk_backend_copy_htod(czk_backend *be, void *d_dst, const void *src, size_t bytes, czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.upload");
  if (!bytes) return CZK_OK;
  if (!d_dst || !src) return CZK_ERR_INVALID_ARG;
  return be->iface->copy_htod(be, d_dst, src, bytes, s);
}
czk_status czk_backend_copy_dtoh(czk_backend *be, void *dst, const void *d_src, size_t bytes, czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.finish");
  if (!bytes) return CZK_OK;
  if (!dst || !d_src) return CZK_ERR_INVALID_ARG;
  return be->iface->copy_dtoh(be, dst, d_src, bytes, s);
}

czk_status czk_backend_host_register(czk_backend *be, const void *hptr, size_t bytes) {
  GATE(be);
  if (!hptr || !bytes) return CZK_ERR_INVALID_ARG;
  return be->iface->host_register(be, hptr, bytes);
}
void czk_backend_host_unregister(czk_backend *be, const void *hptr) {
  if (be && hptr) be->iface->host_unregister(be, hptr);
}

czk_status czk_backend_msm_new(czk_backend *be, czk_backend_msm **out, czk_backend_group g, const void *d_bases,
                               size_t n_max) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  GATE(be);
  DEVICE_FAULT(be, "device.upload");
  if ((g != CZK_BACKEND_G1 && g != CZK_BACKEND_G2) || !n_max || !d_bases) return CZK_ERR_INVALID_ARG;
  return be->iface->msm_new(be, out, g, d_bases, n_max);
}
czk_status czk_backend_msm_run(czk_backend *be, czk_backend_msm *m, void *out, const czk_fr *d_scalars, size_t n,
                               czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.msm");
  if (!m || !out || (n && !d_scalars)) return CZK_ERR_INVALID_ARG;
  return be->iface->msm_run(be, m, out, d_scalars, n, s);
}
czk_status czk_backend_msm_run_at(czk_backend *be, czk_backend_msm *m, void *out, size_t base_off,
                                  const czk_fr *d_scalars, size_t n, czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.msm");
  if (!m || !out || (n && !d_scalars)) return CZK_ERR_INVALID_ARG;
  if (!be->iface->msm_run_series)
    return base_off ? CZK_ERR_UNSUPPORTED : be->iface->msm_run(be, m, out, d_scalars, n, s);
  return be->iface->msm_run_series(be, m, out, base_off, d_scalars, n, CZK_BACKEND_MSM_FIRST | CZK_BACKEND_MSM_LAST, n,
                                   s);
}
czk_status czk_backend_msm_run_series(czk_backend *be, czk_backend_msm *m, void *out, size_t base_off,
                                      const czk_fr *d_scalars, size_t n, unsigned series, size_t n_total,
                                      czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.msm");
  if (!m || !out || (n && !d_scalars) || (series & ~3u)) return CZK_ERR_INVALID_ARG;
  if (!be->iface->msm_run_series) return CZK_ERR_UNSUPPORTED;
  return be->iface->msm_run_series(be, m, out, base_off, d_scalars, n, series, n_total, s);
}
void czk_backend_msm_free(czk_backend *be, czk_backend_msm *m) {
  if (be && m) be->iface->msm_free(be, m);
}
czk_status czk_backend_msm_share(czk_backend *be, czk_backend_msm *m, czk_backend_msm *with) {
  GATE(be);
  if (!m || !with) return CZK_ERR_INVALID_ARG;
  if (m == with || !be->iface->msm_share) return CZK_OK;
  return be->iface->msm_share(be, m, with);
}

czk_status czk_backend_msm_plan_bytes(czk_backend *be, const czk_backend_msm_need *needs, size_t k,
                                      uint64_t *bytes) {
  if (!bytes || (k && !needs)) return CZK_ERR_INVALID_ARG;
  *bytes = 0;
  GATE(be);
  for (size_t i = 0; i < k; i++)
    if (needs[i].g != CZK_BACKEND_G1 && needs[i].g != CZK_BACKEND_G2) return CZK_ERR_INVALID_ARG;
  return be->iface->msm_plan_bytes ? be->iface->msm_plan_bytes(be, needs, k, bytes) : CZK_OK;
}
czk_status czk_backend_msm_reserve(czk_backend *be, czk_backend_msm *m, size_t n) {
  GATE(be);
  if (!m) return CZK_ERR_INVALID_ARG;
  return be->iface->msm_reserve ? be->iface->msm_reserve(be, m, n) : CZK_OK;
}
void czk_backend_msm_set_dense(czk_backend *be, czk_backend_msm *m, bool dense) {
  if (be && m && be->iface->msm_set_dense) be->iface->msm_set_dense(be, m, dense);
}
uint64_t czk_backend_h_plan_bytes(czk_backend *be, unsigned log_n, czk_h_kind kind) {
  return be && be->iface->h_plan_bytes ? be->iface->h_plan_bytes(be, log_n, kind) : 0;
}
czk_status czk_backend_h_prepare(czk_backend *be, unsigned log_n, czk_h_kind kind) {
  GATE(be);
  return be->iface->h_prepare ? be->iface->h_prepare(be, log_n, kind) : CZK_OK;
}
uint64_t czk_backend_tables_bytes(czk_backend *be) {
  return be && be->iface->tables_bytes ? be->iface->tables_bytes(be) : 0;
}
void czk_backend_set_compact_tables(czk_backend *be, bool compact) {
  if (be && be->iface->set_compact_tables) be->iface->set_compact_tables(be, compact);
}
bool czk_backend_compact_tables(const czk_backend *be) {
  return be && be->iface->compact_tables ? be->iface->compact_tables(be) : false;
}

/* One-shot MSM: a handle for this call; waits for the stream before the handle's scratch is freed. */
static czk_status msm_once(czk_backend *be, czk_backend_group g, void *out, const void *d_bases, const czk_fr *d_k,
                           size_t n, czk_backend_stream *s) {
  czk_backend_msm *m = NULL;
  czk_status st = be->iface->msm_new(be, &m, g, d_bases, n);
  if (st == CZK_OK) st = be->iface->msm_run(be, m, out, d_k, n, s);
  if (st == CZK_OK) st = be->iface->stream_sync(be, s);
  if (m) be->iface->msm_free(be, m);
  return st;
}
czk_status czk_backend_msm_g1(czk_backend *be, czk_g1 *out, const czk_g1_affine *d_bases, const czk_fr *d_scalars,
                              size_t n, czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.msm");
  if (!out || (n && (!d_bases || !d_scalars))) return CZK_ERR_INVALID_ARG;
  if (n == 0) {
    czk_g1_set_infinity(out);
    return CZK_OK;
  }
  return msm_once(be, CZK_BACKEND_G1, out, d_bases, d_scalars, n, s);
}
czk_status czk_backend_msm_g2(czk_backend *be, czk_g2 *out, const czk_g2_affine *d_bases, const czk_fr *d_scalars,
                              size_t n, czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.msm");
  if (!out || (n && (!d_bases || !d_scalars))) return CZK_ERR_INVALID_ARG;
  if (n == 0) {
    czk_g2_set_infinity(out);
    return CZK_OK;
  }
  return msm_once(be, CZK_BACKEND_G2, out, d_bases, d_scalars, n, s);
}
czk_status czk_backend_ntt(czk_backend *be, czk_fr *d_data, unsigned log_n, czk_fr_roots roots,
                           czk_backend_ntt_dir dir, czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.ntt");
  if (!d_data || log_n > 28 || (unsigned)dir > 3 || (roots != CZK_ROOTS_BELLMAN && roots != CZK_ROOTS_SNARKJS))
    return CZK_ERR_INVALID_ARG;
  return be->iface->ntt(be, d_data, log_n, roots, dir, s);
}
czk_status czk_backend_h(czk_backend *be, czk_fr *d_a, czk_fr *d_b, czk_fr *d_c, unsigned log_n, czk_h_kind kind,
                         czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.ntt");
  if (!d_a || !d_b || !d_c || log_n > 28 || (kind != CZK_H_BELLPERSON && kind != CZK_H_SNARKJS))
    return CZK_ERR_INVALID_ARG;
  return be->iface->h(be, d_a, d_b, d_c, log_n, kind, s);
}
czk_status czk_backend_h_step(czk_backend *be, czk_h_step step, czk_fr *d_x, const czk_fr *d_y, unsigned log_n,
                              czk_h_kind kind, czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.ntt");
  if (!d_x || (step != CZK_H_STEP_PREP && !d_y) || log_n > 28 || (kind != CZK_H_BELLPERSON && kind != CZK_H_SNARKJS) ||
      (step != CZK_H_STEP_PREP && step != CZK_H_STEP_MUL && step != CZK_H_STEP_FINISH))
    return CZK_ERR_INVALID_ARG;
  if (!be->iface->h_step) return CZK_ERR_UNSUPPORTED;
  return be->iface->h_step(be, step, d_x, d_y, log_n, kind, s);
}
czk_status czk_backend_gather(czk_backend *be, czk_fr *d_out, const czk_fr *d_in, const uint32_t *d_idx, size_t n,
                              czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.msm");
  if (!n) return CZK_OK;
  if (!d_out || !d_in || !d_idx) return CZK_ERR_INVALID_ARG;
  return be->iface->gather(be, d_out, d_in, d_idx, n, s);
}
czk_status czk_backend_pack_nonzero(czk_backend *be, void *d_bases_out, czk_fr *d_sc_out, const void *h_bases,
                                    size_t base_size, const czk_fr *d_w, const uint32_t *d_idx, size_t n, void *d_tmp,
                                    uint64_t *d_bytes, czk_backend_stream *s) {
  GATE(be);
  DEVICE_FAULT(be, "device.msm");
  if (!n) return CZK_OK;
  if (!d_bases_out || !d_sc_out || !h_bases || !d_w || !d_bytes || !base_size || base_size % 4) return CZK_ERR_INVALID_ARG;
  if (!be->iface->pack_nonzero) return CZK_ERR_UNSUPPORTED;
  return be->iface->pack_nonzero(be, d_bases_out, d_sc_out, h_bases, base_size, d_w, d_idx, n, d_tmp, d_bytes, s);
}
size_t czk_backend_pack_nonzero_tmp(czk_backend *be, size_t n) {
  return be && be->iface->pack_nonzero_tmp ? be->iface->pack_nonzero_tmp(n) : 0;
}
czk_status czk_backend_csr_upload(czk_backend *be, czk_backend_csr **out, const uint64_t *row_ptr, const uint32_t *col,
                                  const czk_fr *val, size_t rows, czk_backend_stream *s) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  GATE(be);
  DEVICE_FAULT(be, "device.upload");
  if (!row_ptr || rows > UINT32_MAX || (row_ptr[rows] && (!col || !val))) return CZK_ERR_INVALID_ARG;
  return be->iface->csr_upload(be, out, row_ptr, col, val, rows, s);
}
void czk_backend_csr_free(czk_backend *be, czk_backend_csr *m) {
  if (be && m) be->iface->csr_free(be, m);
}
czk_status czk_backend_matvec(czk_backend *be, czk_fr *d_out, const czk_backend_csr *m, const czk_fr *d_w,
                              czk_backend_stream *s) {
  GATE(be);
  if (!d_out || !m || !d_w) return CZK_ERR_INVALID_ARG;
  return be->iface->matvec(be, d_out, m, d_w, s);
}
czk_status czk_backend_fixed_base(czk_backend *be, czk_backend_group g, void *out, const czk_fr *k, size_t n) {
  GATE(be);
  if (!out || (n && !k) || (g != CZK_BACKEND_G1 && g != CZK_BACKEND_G2)) return CZK_ERR_INVALID_ARG;
  if (!be->iface->fixed_base) return CZK_ERR_UNSUPPORTED;
  return be->iface->fixed_base(be, g, out, k, n);
}

/* ------------------------------------------------------------------------------------------------ compiled circuits */
czk_status czk_backend_compiled_upload(czk_backend *be, czk_backend_compiled **out, const czk_backend_compiled_desc *d,
                                       czk_backend_stream *s) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  GATE(be);
  if (!be->iface->compiled_upload) return CZK_ERR_UNSUPPORTED;
  DEVICE_FAULT(be, "device.upload");
  if (!d || !d->seg || !d->coef || (d->table_len && !d->table)) return CZK_ERR_INVALID_ARG;
  for (int k = 0; k < 3; k++)
    if (!d->row_ptr[k] || (d->nnz[k] && (!d->col[k] || !d->ref[k]))) return CZK_ERR_INVALID_ARG;
  return be->iface->compiled_upload(be, out, d, s);
}
void czk_backend_compiled_free(czk_backend *be, czk_backend_compiled *m) {
  if (be && m && be->iface->compiled_free) be->iface->compiled_free(be, m);
}
czk_status czk_backend_compiled_matvec(czk_backend *be, czk_fr *d_a, czk_fr *d_b, czk_fr *d_c,
                                       const czk_backend_compiled *m, const czk_fr *d_w, czk_backend_stream *s) {
  GATE(be);
  if (!be->iface->compiled_matvec) return CZK_ERR_UNSUPPORTED;
  if ((!d_a && !d_b && !d_c) || !m || !d_w) return CZK_ERR_INVALID_ARG;
  return be->iface->compiled_matvec(be, d_a, d_b, d_c, m, d_w, s);
}
czk_status czk_backend_compiled_check(czk_backend *be, const czk_backend_compiled *m, const czk_fr *d_w,
                                      uint64_t n_check, uint32_t *d_flag, czk_backend_stream *s) {
  GATE(be);
  if (!be->iface->compiled_check) return CZK_ERR_UNSUPPORTED;
  if (!m || !d_w || !d_flag) return CZK_ERR_INVALID_ARG;
  return be->iface->compiled_check(be, m, d_w, n_check, d_flag, NULL, NULL, NULL, s);
}
czk_status czk_backend_compiled_check_store(czk_backend *be, const czk_backend_compiled *m, const czk_fr *d_w,
                                            uint64_t n_check, uint32_t *d_flag, czk_fr *d_a, czk_fr *d_b, czk_fr *d_c,
                                            czk_backend_stream *s) {
  GATE(be);
  if (!be->iface->compiled_check) return CZK_ERR_UNSUPPORTED;
  if (!m || !d_w || !d_flag) return CZK_ERR_INVALID_ARG;
  return be->iface->compiled_check(be, m, d_w, n_check, d_flag, d_a, d_b, d_c, s);
}
czk_status czk_backend_abc_finish(czk_backend *be, czk_fr *d_a, czk_fr *d_b, czk_fr *d_c, const czk_fr *d_w,
                                  uint64_t n_user, uint64_t n_inputs, uint64_t n_domain, uint64_t n_check,
                                  uint32_t *d_flag, czk_backend_stream *s) {
  GATE(be);
  if (!be->iface->abc_finish) return CZK_ERR_UNSUPPORTED;
  if ((!d_a && !d_b && !d_c) || (n_check && (!d_a || !d_b || !d_c || !d_flag)) || (d_a && !d_w) ||
      n_check > n_user || n_user > n_domain || n_inputs > n_domain - n_user)
    return CZK_ERR_INVALID_ARG;
  return be->iface->abc_finish(be, d_a, d_b, d_c, d_w, n_user, n_inputs, n_domain, n_check, d_flag, s);
}
czk_status czk_backend_wunpack(czk_backend *be, czk_fr *d_w, const void *d_src, size_t n, size_t n_other,
                               czk_backend_stream *s) {
  GATE(be);
  if (!be->iface->wunpack) return CZK_ERR_UNSUPPORTED;
  if ((!d_w && n) || !d_src || n >= ((size_t)1 << 32)) return CZK_ERR_INVALID_ARG;
  return be->iface->wunpack(be, d_w, d_src, n, n_other, s);
}
