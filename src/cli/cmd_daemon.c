/* cmd_daemon.c: `czk daemon`: the persistent proving daemon. Configuration from one table (api/config.h); serves
 * cuzk.v1.ProvingEngine over gRPC (unix socket by default), HTTP /metrics /status /healthz when configured.
 * Signals: SIGTERM/SIGINT stop intake and drain (drain_grace, then cancel), a second one cancels at once; SIGHUP
 * reopens the log file. All signals are taken synchronously by sigtimedwait in the main thread, which also gives
 * the malloc arenas' free space back once the engine is idle after any activity (render.h, czk__process_idle_trim). */
#include <signal.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config.h"
#include "api/http.h"
#include "api/rpc.h"
#include "api/service.h"
#include "cli/cli.h"
#include "cli/daemon.h"
#include "czk/engine.h"
#include "czk/log.h"
#include "czk/pool.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: czk daemon [--config FILE] [--listen unix:PATH|host:port] [--http host:port] [options]\n"
          "       czk daemon --config cuzk.toml [options]  the reference daemon's TOML file (docs/config.md)\n"
          "       czk daemon --dump-config [options]    print the effective configuration\n"
          "       czk daemon --print-config-docs         print the configuration table as markdown\n\n"
          "Starts the proving daemon on an embedded default when run without options.\n\n");
  czk__config_print_help(out);
}

/* Large buffers (a/b/c, witnesses, scratch: megabytes each, allocated on one worker thread and freed on another) go
 * straight to mmap and back to the kernel when freed. glibc's default raises the mmap threshold after each such free
 * (up to 32 MiB), after which these buffers are carved from per-thread arenas, whose freed space stays resident: the
 * soak (docs/reliability.md, "Soak") saw the daemon's anonymous RSS grow ~5 MiB per 2 KiB WinningPoSt job (4 MiB
 * a/b/c) without bound over the budget (tests/daemon/rss-flat.sh). A fixed threshold turns the adjustment off. */
static void fix_mmap_threshold(void) {
#if defined(__GLIBC__)
  (void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

/* Nothing in flight: no partition queued, synthesized, proved or finalized, no key loading, no memory held for
 * anything but keys (requests being received included). */
static bool daemon_idle(const czk_engine_status *es) {
  if (es->synth_queue || es->gpu_queue || es->finalize_queue || es->synth_active) return false;
  for (int c = 0; c < CZK_MEM_COUNT; c++)
    if (c != CZK_MEM_KEY && es->mem_used_by_cat[c]) return false;
  for (uint32_t k = 0; k < es->nkinds; k++)
    if (es->kinds[k].pending || es->kinds[k].in_progress) return false;
  for (uint32_t k = 0; k < es->nkeys; k++)
    if (es->keys[k].loading) return false;
  return true;
}

int czk_cmd_daemon(int argc, char **argv) {
  fix_mmap_threshold();
  bool dump = false, docs = false;
  /* strip our own flags before the config parser sees the rest */
  char **rest = calloc((size_t)argc + 1, sizeof *rest);
  if (!rest) return 1;
  int nrest = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      free(rest);
      return 0;
    }
    if (strcmp(argv[i], "--dump-config") == 0) dump = true;
    else if (strcmp(argv[i], "--print-config-docs") == 0) docs = true;
    else rest[nrest++] = argv[i];
  }
  if (docs) {
    czk__config_print_markdown(stdout);
    free(rest);
    return 0;
  }
  czk__config cfg;
  char err[1024];
  if (czk__config_init(&cfg) != CZK_OK) {
    free(rest);
    return 1;
  }
  czk_status st = czk__config_parse_args(&cfg, nrest, rest, 0, err, sizeof err);
  free(rest);
  if (st == CZK_OK) st = czk__config_finalize(&cfg, err, sizeof err);
  if (st != CZK_OK) {
    fprintf(stderr, "czk daemon: invalid configuration: %s\n", err);
    czk__config_free(&cfg);
    return 2;
  }
  if (dump) {
    czk__config_dump(&cfg, stdout);
    czk__config_free(&cfg);
    return 0;
  }
  czk_log_level lv;
  czk_log_parse_level(cfg.log_level, &lv);
  czk_log_set_level(lv);
  czk_log_set_json(strcmp(cfg.log_format, "json") == 0);
  if (cfg.log_file && *cfg.log_file && czk_log_set_file(cfg.log_file) != 0) {
    fprintf(stderr, "czk daemon: log_file: cannot open %s\n", cfg.log_file);
    czk__config_free(&cfg);
    return 2;
  }
  for (size_t i = 0; i < cfg.nwarnings; i++) CZK_WARN("config", "%s", cfg.warnings[i]);

  /* every thread created from here on inherits this mask: signals are taken by sigwait below */
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);

  int rc = 1;
  czk_pool *pool = NULL;
  czk_engine *engine = NULL;
  czk_engine_device_desc *devs = NULL;
  uint32_t ndevs = 0;
  czk__rpc_server *rpc = NULL;
  czk__http *http = NULL;
  czk__service svc;
  bool svc_init = false;

  czk__daemon_info dinfo;
  memset(&dinfo, 0, sizeof dinfo);
  dinfo.version = CZK_VERSION;
#ifdef CZK_HAVE_CUDA
  dinfo.cuda_built = true;
#endif
  if (czk_pool_new(&pool, (unsigned)cfg.threads) != CZK_OK) goto out;
  st = czk__daemon_devices(&cfg, &devs, &ndevs, &dinfo, err, sizeof err);
  if (st == CZK_ERR_NO_DEVICE && err[0]) {
    fprintf(stderr,
            "czk daemon: refusing to start: no usable GPU: %s. Proving on the CPU instead would take hours per "
            "Filecoin proof. Fix the GPU setup, set gpus = none to prove on the CPU on purpose, or set "
            "allow_cpu_fallback = true (--allow-cpu-fallback) to start on the CPU anyway.\n",
            err);
    CZK_ERROR("daemon", "refusing to start: no usable GPU: %s", err);
    rc = 3;
    goto out;
  }
  if (st != CZK_OK) {
    CZK_ERROR("daemon", "devices: %s", czk_status_str(st));
    goto out;
  }
  czk_engine_config ec;
  czk_engine_config_default(&ec);
  ec.mem_limit_bytes = cfg.memory_budget;
  ec.synth_workers = (uint32_t)cfg.synthesis_workers;
  ec.workers_per_device = (uint32_t)cfg.gpu_workers_per_device;
  ec.urgent_max_bytes = cfg.urgent_lane;
  ec.devices = devs;
  ec.ndevices = ndevs;
  ec.result_ttl_ms = cfg.result_ttl;
  ec.trace_capacity = 1u << 16;
  /* self_verify: every partition proof of an AUTO kind (all adapter kinds) verified before it is returned, or none */
  ec.verify_auto_max_bytes = cfg.self_verify ? UINT64_MAX : 0;
  ec.pool = pool;
  st = czk_engine_create(&engine, &ec);
  if (st != CZK_OK) {
    CZK_ERROR("daemon", "engine: %s", czk_status_str(st));
    goto out;
  }
  st = czk__daemon_register_kinds(engine, &cfg);
  if (st != CZK_OK) {
    CZK_ERROR("daemon", "circuit kinds: %s", czk_status_str(st));
    goto out;
  }
  czk__service_init(&svc, engine, 10);
  svc.max_submit_bytes = (size_t)cfg.max_message_size;
  svc.kind_over_budget = czk__daemon_kind_over_budget;
  svc.info = dinfo;
  svc.allow_cpu_large_sectors = cfg.allow_cpu_large_sectors;
  svc_init = true;
  czk__rpc_socket_opts sock;
  if (czk__config_socket_perms(&cfg, &sock.mode, &sock.gid, err, sizeof err) != CZK_OK) { /* checked by finalize */
    fprintf(stderr, "czk daemon: %s\n", err);
    goto out;
  }
  st = czk__rpc_server_start_ex(&rpc, cfg.listen, &sock, cfg.max_message_size, (unsigned)cfg.max_calls,
                                czk__service_handle, &svc);
  if (st != CZK_OK) {
    fprintf(stderr, "czk daemon: cannot listen on %s\n", cfg.listen);
    goto out;
  }
  if (cfg.http && *cfg.http) {
    st = czk__http_start(&http, cfg.http, &svc);
    if (st != CZK_OK) {
      fprintf(stderr, "czk daemon: cannot serve HTTP on %s\n", cfg.http);
      goto out;
    }
    CZK_INFO("daemon", "HTTP on port %u (/metrics, /status, /healthz)", czk__http_port(http));
  }
  CZK_INFO("daemon", "serving cuzk.v1.ProvingEngine on %s; budget %.1f GiB; %u device(s): %s%s", cfg.listen,
           (double)cfg.memory_budget / (1 << 30), ndevs, devs[0].name, ndevs > 1 ? ", ..." : "");
  /* a line other programs can wait for */
  if (http) printf("czk daemon: ready on %s (http port %u)\n", cfg.listen, czk__http_port(http));
  else printf("czk daemon: ready on %s\n", cfg.listen);
  fflush(stdout);

  /* every half second without a signal: the idle trim (render.h), once the engine is idle after any activity */
  for (;;) {
    const struct timespec tick = {0, 500 * 1000 * 1000};
    const int sig = sigtimedwait(&sigs, NULL, &tick);
    if (sig < 0) {
      czk_engine_status *es = NULL;
      if (czk_engine_status_peek(engine, &es) == CZK_OK) {
        if (daemon_idle(es) && czk__process_idle_trim(es->reservations_made))
          CZK_DEBUG("daemon", "idle: malloc arenas trimmed");
        czk_engine_status_free(es);
      }
      continue;
    }
    if (sig == SIGHUP) {
      if (cfg.log_file && *cfg.log_file) czk_log_set_file(cfg.log_file);
      CZK_INFO("daemon", "SIGHUP: log reopened");
      continue;
    }
    CZK_INFO("daemon", "%s: stopping intake, draining for up to %llu ms", sig == SIGTERM ? "SIGTERM" : "SIGINT",
             (unsigned long long)cfg.drain_grace);
    break;
  }
  czk__http_set_draining(http);
  st = czk_engine_shutdown(engine, true, cfg.drain_grace);
  if (st == CZK_ERR_TIMEOUT) CZK_WARN("daemon", "drain grace over: remaining jobs cancelled");
  if (cfg.trace_file && *cfg.trace_file) {
    if (czk_engine_trace_write(engine, cfg.trace_file) == CZK_OK)
      CZK_INFO("daemon", "trace written to %s", cfg.trace_file);
  }
  rc = 0;
out:
  if (rpc) czk__rpc_server_stop(rpc);
  if (http) czk__http_stop(http);
  if (engine) czk_engine_destroy(engine);
  if (svc_init) czk__service_destroy(&svc);
  czk__daemon_kinds_free();
  czk__daemon_devices_free(devs, ndevs);
  if (pool) czk_pool_free(pool);
  CZK_INFO("daemon", "stopped");
  czk_log_set_file(NULL);
  czk__config_free(&cfg);
  return rc;
}
