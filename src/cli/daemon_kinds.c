/* daemon_kinds.c: which circuit kinds and devices the daemon serves (see daemon.h).
 * Invariants: at most MAX_KINDS kinds; a kind whose one partition can never fit the budget is not registered but
 * remembered (czk__daemon_kind_over_budget), so a request for it is answered RESOURCE_EXHAUSTED rather than "unknown";
 * a kind that failed to register is freed at once, the registered ones by czk__daemon_kinds_free after the engine is
 * destroyed; a .zkey that does not load is skipped with a warning (the daemon still starts). */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/synthetic.h"
#include "czk/backend.h"
#include "cli/daemon.h"
#include "core/units.h"
#include "czk/kinds.h"
#include "czk/log.h"

#define MAX_KINDS 256
static czk_engine_kind g_kinds[MAX_KINDS];
static unsigned g_nkinds;

/* Largest synthetic size registered: the setup of a 2^k key takes time on first use, but nothing happens until a job
 * asks for it; sizes whose one partition cannot fit the budget are skipped. */
#define SYNTHETIC_MAX_K CZK_SYNTHETIC_MAX_LOG

static char g_over_budget[MAX_KINDS][96];
static unsigned g_nover;

bool czk__daemon_kind_over_budget(const char *kind) {
  for (unsigned i = 0; i < g_nover; i++)
    if (strcmp(g_over_budget[i], kind) == 0) return true;
  return false;
}

/* The backend objects behind the engine devices (freed with the device list). */
static czk_backend **g_backends;
static size_t g_nbackends;

static czk_status add_kind(czk_engine *e, czk_engine_kind *k) {
  if (g_nbackends) czk_kind_set_backend(k, g_backends[0]); /* host keys pinned through the first GPU */
  czk_status st = czk_engine_register_kind(e, k);
  if (st == CZK_ERR_BUDGET) {
    CZK_DEBUG("daemon", "kind %s does not fit the memory budget: not served", k->name);
    if (g_nover < MAX_KINDS) snprintf(g_over_budget[g_nover++], sizeof g_over_budget[0], "%s", k->name);
    czk_kind_free(k);
    return CZK_OK;
  }
  if (st != CZK_OK) {
    czk_kind_free(k);
    return st;
  }
  g_nkinds++;
  return CZK_OK;
}

czk_status czk__daemon_register_kinds(czk_engine *e, const czk__config *cfg) {
  if (cfg->setup_in_memory) {
    CZK_WARN("daemon", "setup_in_memory: Filecoin keys missing from %s are set up in memory with our own toxic waste "
             "(benchmarks only; such proofs verify against this daemon's keys, not the published ones)",
             cfg->param_dir);
    czk_kinds_set_setup_in_memory(true, g_nbackends ? g_backends[0] : NULL);
  }
  for (unsigned k = CZK_SYNTHETIC_MIN_LOG; k <= SYNTHETIC_MAX_K && g_nkinds < MAX_KINDS; k++) {
    CZK_TRY(czk_kind_synthetic_new(&g_kinds[g_nkinds], k, cfg->keys_dir, NULL));
    CZK_TRY(add_kind(e, &g_kinds[g_nkinds]));
  }
  /* Filecoin PoSt: one kind per type and sector size, keys by their v28 names in param_dir (never set up here) */
  static const uint64_t sizes[] = {2ull << 10, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
  for (int t = 0; t < 2; t++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && g_nkinds < MAX_KINDS; i++) {
      CZK_TRY(czk_kind_post_new(&g_kinds[g_nkinds], t ? CZK_POST_WINDOW : CZK_POST_WINNING, sizes[i], cfg->param_dir,
                                NULL));
      CZK_TRY(add_kind(e, &g_kinds[g_nkinds]));
    }
  /* Filecoin PoRep C2: one kind per sector size, keys by their v28 names in param_dir */
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && g_nkinds < MAX_KINDS; i++) {
    CZK_TRY(czk_kind_porep_new(&g_kinds[g_nkinds], sizes[i], cfg->param_dir, NULL));
    CZK_TRY(add_kind(e, &g_kinds[g_nkinds]));
  }
  /* Filecoin SnapDeals: one kind per sector size, keys by their v28 names in param_dir */
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && g_nkinds < MAX_KINDS; i++) {
    CZK_TRY(czk_kind_snap_new(&g_kinds[g_nkinds], sizes[i], cfg->param_dir, NULL));
    CZK_TRY(add_kind(e, &g_kinds[g_nkinds]));
  }
  DIR *d = opendir(cfg->keys_dir);
  if (!d) return CZK_OK; /* no keys directory yet: synthetic keys create it on first use */
  struct dirent *de;
  while ((de = readdir(d)) && g_nkinds < MAX_KINDS) {
    size_t n = strlen(de->d_name);
    if (n <= 5 || strcmp(de->d_name + n - 5, ".zkey") != 0 || n - 5 > 64) continue;
    char name[80], path[4200];
    snprintf(name, sizeof name, "%.*s", (int)(n - 5), de->d_name);
    snprintf(path, sizeof path, "%s/%s", cfg->keys_dir, de->d_name);
    czk_status st = czk_kind_circom_new(&g_kinds[g_nkinds], name, path, NULL);
    if (st != CZK_OK) {
      CZK_WARN("daemon", "%s: not a usable snarkjs Groth16 key (%s): skipped", path, czk_status_str(st));
      continue;
    }
    st = add_kind(e, &g_kinds[g_nkinds]);
    if (st != CZK_OK) {
      closedir(d);
      return st;
    }
    CZK_INFO("daemon", "serving circom:%s", name);
  }
  closedir(d);
  return CZK_OK;
}

void czk__daemon_kinds_free(void) {
  for (unsigned i = 0; i < g_nkinds; i++) czk_kind_free(&g_kinds[i]);
  g_nkinds = 0;
  g_nover = 0;
}


static uint64_t backend_tables_bytes(void *backend) { return czk_backend_tables_bytes((czk_backend *)backend); }
static uint64_t backend_mem_peak(void *backend) { return czk_backend_mem_peak((czk_backend *)backend); }
static uint64_t backend_mem_free(void *backend) {
  czk_backend_props p;
  return czk_backend_get_props((czk_backend *)backend, &p) == CZK_OK ? p.mem_free : 0;
}

static bool listed(const char *list, int ordinal) {
  for (const char *p = list; p && *p;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end != p && v == ordinal) return true;
    p = *end ? end + 1 : end;
  }
  return false;
}

/* An NVIDIA driver on this machine: its /proc entry or a /dev/nvidia<N> node (what names it goes to `what`). */
static bool nvidia_present(char *what, size_t len) {
  struct stat sb;
  if (stat("/proc/driver/nvidia/version", &sb) == 0) {
    snprintf(what, len, "/proc/driver/nvidia/version");
    return true;
  }
  DIR *d = opendir("/dev");
  if (!d) return false;
  bool found = false;
  struct dirent *de;
  while (!found && (de = readdir(d)))
    if (strncmp(de->d_name, "nvidia", 6) == 0 && de->d_name[6] >= '0' && de->d_name[6] <= '9') {
      snprintf(what, len, "/dev/%.200s", de->d_name);
      found = true;
    }
  closedir(d);
  return found;
}

czk_status czk__daemon_devices(const czk__config *cfg, czk_engine_device_desc **devs, uint32_t *n,
                               czk__daemon_info *info, char *why, size_t whylen) {
  *devs = NULL;
  *n = 0;
  if (why && whylen) why[0] = 0;
  size_t ncuda = 0; /* CUDA devices the driver gave us, before gpus / exclude_gpus */
  const char *excl_cpu[] = {"cpu"};
  czk_backend **all = NULL;
  size_t nall = 0;
  if (strcmp(cfg->gpus, "none") != 0) {
    czk_status st = czk_backend_enumerate(&all, &nall, excl_cpu, 1);
    if (st != CZK_OK && st != CZK_ERR_NO_DEVICE) return st;
  }
  /* gpu_key_tier / gpu_lane_shape, the same for every device (finalize refused any other word already) */
  uint32_t plan_tiers = 0, plan_shapes = 0;
  char cerr[160];
  if (czk__config_plan_choice(cfg->gpu_key_tier, cfg->gpu_lane_shape, &plan_tiers, &plan_shapes, cerr, sizeof cerr) !=
      CZK_OK)
    plan_tiers = plan_shapes = 0;
  g_backends = calloc(nall + 1, sizeof *g_backends);
  *devs = calloc(nall + 1, sizeof **devs);
  if (!g_backends || !*devs) {
    for (size_t i = 0; i < nall; i++) czk_backend_free(all[i]);
    free(all);
    return CZK_ERR_NOMEM;
  }
  for (size_t i = 0; i < nall; i++) {
    czk_backend_props pr;
    bool keep = czk_backend_get_props(all[i], &pr) == CZK_OK && pr.kind == CZK_BACKEND_CUDA;
    ncuda += keep;
    if (keep && strcmp(cfg->gpus, "all") != 0 && !listed(cfg->gpus, pr.device)) keep = false;
    if (keep && listed(cfg->exclude_gpus, pr.device)) keep = false;
    if (!keep) {
      czk_backend_free(all[i]);
      continue;
    }
    char *name = malloc(200);
    if (!name) {
      czk_backend_free(all[i]);
      continue;
    }
    snprintf(name, 200, "%s %s", pr.name, pr.description);
    (*devs)[*n].name = name;
    (*devs)[*n].backend = all[i];
    (*devs)[*n].workers = (uint32_t)cfg->gpu_workers_per_device;
    (*devs)[*n].mem_total_bytes = pr.mem_total;
    /* the device memory plan (the engine's key cache): key copies, the proves' lanes and the backend's NTT tables
     * share the device's memory less gpu_memory_reserve; copies are further bounded by gpu_key_memory (auto: the
     * plan alone bounds them). Without a plan (reserve 0), copies get the memory less 24 GiB for the lanes. */
    uint64_t rsv = cfg->gpu_memory_reserve;
    /* gpu_memory_limit: czk uses at most that much of the device (a smaller card emulated on a larger one) */
    uint64_t lim = 0, total = pr.mem_total;
    char lerr[160];
    if (czk__config_gpu_limit(cfg->gpu_memory_limit, pr.device, &lim, lerr, sizeof lerr) == CZK_OK && lim &&
        lim < total) {
      total = lim;
      CZK_INFO("daemon", "%s: gpu_memory_limit %.2f GiB of %.2f GiB", pr.name, (double)lim / (1u << 30),
               (double)pr.mem_total / (1u << 30));
    }
    /* the default reserve (2 GiB) is at most 1/16 of a small card or limit: 1 GiB at 16 GiB (the CUDA context took
     * ~0.5 GiB in the 16 GiB run on the H100: peak 15.05 GiB with a 15 GiB plan) */
    const long ri = czk__config_key_index("gpu_memory_reserve");
    if (rsv && ri >= 0 && !cfg->set_by_user[ri] && rsv > total / 16) rsv = total / 16;
    const uint64_t plan = rsv && total > rsv ? total - rsv : 0;
    /* compact NTT tables (~37 MiB instead of 8 GiB at 2^27; measured on an H100: a 2^27 transform 1.2% slower):
     * the 8 GiB go to key copies and lanes, and a 2^27 prove fits a 16 GB card */
    if (plan && plan < CZK__COMPACT_TABLES_BELOW) czk_backend_set_compact_tables(all[i], true);
    uint64_t km = plan ? plan : total > (24ull << 30) ? total - (24ull << 30) : total / 2;
    if (strcmp(cfg->gpu_key_memory, "auto") != 0 && !czk__parse_size(cfg->gpu_key_memory, &km)) km = 0;
    (*devs)[*n].key_mem_bytes = km;
    (*devs)[*n].plan_bytes = plan;
    (*devs)[*n].tables_bytes = backend_tables_bytes;
    (*devs)[*n].mem_free = backend_mem_free;
    (*devs)[*n].mem_peak = backend_mem_peak;
    (*devs)[*n].mem_limit_bytes = lim < pr.mem_total ? lim : 0;
    (*devs)[*n].plan_tiers = plan_tiers, (*devs)[*n].plan_shapes = plan_shapes;
    (void)czk_backend_mem_watch(all[i]); /* the peak czk used, from the device (status, metrics) */
    g_backends[g_nbackends++] = all[i];
    (*n)++;
  }
  free(all);
  bool none = strcmp(cfg->gpus, "none") == 0, named = !none && strcmp(cfg->gpus, "all") != 0;
  /* a GPU the configuration names but that is not in use is worth a warning even when others are */
  for (const char *p = named ? cfg->gpus : ""; *p;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p) break;
    bool used = false;
    for (uint32_t i = 0; i < *n; i++) {
      const char *c = strstr((*devs)[i].name, "cuda:");
      used |= c && strtol(c + 5, NULL, 10) == v;
    }
    if (!used && *n > 0) CZK_WARN("daemon", "gpus lists %ld, but there is no usable CUDA device %ld", v, v);
    p = *end ? end + 1 : end;
  }
  if (*n == 0) {
    char drv[256] = "";
    bool present = !none && !named && nvidia_present(drv, sizeof drv);
    if (named || present) {
      /* GPUs are configured or present, and none can be used: no silent CPU proving */
      char what[320], cause[200];
      if (named) snprintf(what, sizeof what, "gpus = \"%s\" names CUDA devices", cfg->gpus);
      else snprintf(what, sizeof what, "an NVIDIA driver is present (%s)", drv);
#ifndef CZK_HAVE_CUDA
      snprintf(cause, sizeof cause, "this czk was built without CUDA (-DCZK_CUDA=OFF or no nvcc at build time)");
#else
      if (ncuda == 0) snprintf(cause, sizeof cause, "the CUDA driver reports no usable device");
      else snprintf(cause, sizeof cause, "none of the %zu CUDA device(s) is selected (gpus / exclude_gpus)", ncuda);
#endif
      char full[560];
      snprintf(full, sizeof full, "%s, but %s", what, cause);
      if (why && whylen) {
        size_t m = strlen(full) < whylen ? strlen(full) : whylen - 1;
        memcpy(why, full, m);
        why[m] = 0;
      }
      if (!cfg->allow_cpu_fallback) return CZK_ERR_NO_DEVICE;
      if (info) {
        size_t m = strlen(full) < sizeof info->cpu_fallback_reason ? strlen(full) : sizeof info->cpu_fallback_reason - 1;
        info->cpu_fallback = true;
        memcpy(info->cpu_fallback_reason, full, m);
        info->cpu_fallback_reason[m] = 0;
      }
      CZK_WARN("daemon", "*** CPU FALLBACK: %s, but %s. allow_cpu_fallback = true: proving on the CPU, hours per "
               "Filecoin proof; /status and the metric czk_daemon_cpu_fallback say so ***", what, cause);
    } else {
      CZK_INFO("daemon", "%s: proving on the CPU", none ? "gpus = none" : "no GPU on this machine");
    }
    if (info) info->cpu_only = true;
    (*devs)[0].name = strdup("cpu");
    (*devs)[0].backend = NULL; /* the kinds' CPU prover on the shared pool */
    (*devs)[0].workers = (uint32_t)(cfg->cpu_workers ? cfg->cpu_workers : 1);
    *n = 1;
  }
  return CZK_OK;
}

void czk__daemon_devices_free(czk_engine_device_desc *devs, uint32_t n) {
  for (uint32_t i = 0; devs && i < n; i++) free((char *)devs[i].name);
  free(devs);
  for (size_t i = 0; i < g_nbackends; i++) czk_backend_free(g_backends[i]);
  free(g_backends);
  g_backends = NULL;
  g_nbackends = 0;
}
