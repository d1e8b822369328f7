/* bench_pipeline.c: `czk bench pipeline`: a mixed workload through the proving engine: many large jobs (NORMAL, P
 * partitions each, submitted at once) plus small single-partition jobs (HIGH and CRITICAL alternately) arriving at a
 * fixed rate. Prints throughput, latency per priority (p50/p95/max, from the engine's submit->done time), and per
 * device the kernel-busy % with the idle time attributed to its causes. Fake kinds with configurable synthesis/prove
 * times by default; --real proves the synthetic Groth16 circuits (kinds synthetic-k<big> and -k<small>, keys set up
 * on first use in --keys-dir) on the CPU or, with --backend cuda, on every CUDA device. Never asserts on time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "core/units.h"
#include "core/clock.h"
#include "czk/backend.h"
#include "czk/engine.h"
#include "czk/kinds.h"
#include "engine/fake.h"

typedef struct bopts {
  uint32_t large, parts, small, synth_workers, devices, workers;
  uint32_t synth_us, prove_us, small_synth_us, small_prove_us;
  double small_rate;
  uint64_t mem;
  const char *trace;
  bool real;
  uint32_t big_k, small_k;     /* --real: circuit sizes */
  const char *keys_dir;        /* --real: key cache */
  const char *backend;         /* --real: "cpu" or "cuda" */
} bopts;

/* The job input of a kind: a fake job, or a synthetic spec text. */
/* The job input: a czk_kind_request carrying the synthetic spec (--real), or a fake job. */
static const uint8_t *job_input(const bopts *o, bool small, uint32_t i, czk_fake_job *j, char *spec, size_t *len,
                                czk_kind_request *req) {
  if (o->real) {
    size_t n = (size_t)snprintf(spec, 64, "partitions=%u seed=%u", small ? 1u : o->parts, (small ? 100000u : 0u) + i * 64);
    *req = (czk_kind_request){.proof_kind = CZK_PROOF_KIND_SYNTHETIC, .vanilla_proof = {(const uint8_t *)spec, n}};
    *len = sizeof *req;
    return (const uint8_t *)req;
  }
  *j = (czk_fake_job){.magic = CZK_FAKE_MAGIC, .nparts = small ? 1 : o->parts,
                      .synth_us = small ? o->small_synth_us : o->synth_us,
                      .prove_us = small ? o->small_prove_us : o->prove_us, .fail_part = -1, .cancel_part = -1,
                      .tag = (small ? 100000u : 0u) + i};
  *len = sizeof *j;
  return (const uint8_t *)j;
}

static char g_large_kind[32] = "large", g_small_kind[32] = "small";

static void usage(FILE *o) {
  fprintf(o,
          "usage: czk bench pipeline [options]\n"
          "  --large N          large jobs (NORMAL priority), submitted at once (default 40)\n"
          "  --parts P          partitions per large job (default 10)\n"
          "  --small N          small jobs (1 partition, HIGH/CRITICAL alternately) (default 40)\n"
          "  --small-rate R     small-job arrivals per second (default 20)\n"
          "  --synth-us T       synthesis time of a large partition (default 20000)\n"
          "  --prove-us T       prove time of a large partition (default 8000)\n"
          "  --small-synth-us T / --small-prove-us T   small partition times (default 2000 / 1000)\n"
          "  --synth-workers N  synthesis workers (default 4)\n"
          "  --devices N        fake devices (default 1)\n"
          "  --workers K        proving workers per device (default 2)\n"
          "  --mem BYTES        memory budget; a large partition reserves 1 MiB + 512 KiB key (default 64 MiB;\n"
          "                     8 GiB with --real)\n"
          "  --trace FILE       write the Chrome trace JSON\n"
          "  --real             prove real synthetic Groth16 circuits instead of fake kinds:\n"
          "    --big K / --small-k K   circuit sizes 2^K of large / small jobs (default 16 / 12)\n"
          "    --keys-dir DIR          key cache (default /tmp/czk-bench-keys; setup runs on first use)\n"
          "    --backend cpu|cuda      prove on the CPU or on every CUDA device (default cpu)\n");
}

static bool parse_u32(const char *s, uint32_t *v) {
  char *end;
  unsigned long x = strtoul(s, &end, 0);
  if (!*s || *end || x > 0xffffffffUL) return false;
  *v = (uint32_t)x;
  return true;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

typedef struct small_arg {
  czk_engine *e;
  const bopts *o;
  uint64_t *ids;
  czk_priority *prio;
  uint32_t submitted;
} small_arg;

static void *small_main(void *a) {
  small_arg *s = a;
  uint64_t t = czk__clock_now_ns(), period = (uint64_t)(1e9 / s->o->small_rate);
  for (uint32_t i = 0; i < s->o->small; i++) {
    czk__clock_sleep_until_ns(t += period);
    czk_fake_job j;
    char spec[64];
    size_t len;
    czk_kind_request req;
    const uint8_t *in = job_input(s->o, true, i, &j, spec, &len, &req);
    czk_engine_submit_info info;
    s->prio[i] = i % 2 ? CZK_PRIORITY_CRITICAL : CZK_PRIORITY_HIGH;
    if (czk_engine_submit(s->e, g_small_kind, s->prio[i], NULL, in, len, &info) == CZK_OK)
      s->ids[i] = info.job_id;
    s->submitted++;
  }
  return NULL;
}

static void print_lat(const char *name, uint64_t *v, size_t n) {
  if (!n) return;
  qsort(v, n, sizeof *v, cmp_u64);
  printf("  %-9s %5zu jobs  p50 %7llu ms  p95 %7llu ms  max %7llu ms\n", name, n, (unsigned long long)v[n / 2],
         (unsigned long long)v[(n * 95) / 100 < n ? (n * 95) / 100 : n - 1], (unsigned long long)v[n - 1]);
}

int czk_bench_pipeline(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  bopts o = {.large = 40, .parts = 10, .small = 40, .synth_workers = 4, .devices = 1, .workers = 2,
             .synth_us = 20000, .prove_us = 8000, .small_synth_us = 2000, .small_prove_us = 1000, .small_rate = 20,
             .mem = 64ULL << 20, .big_k = 16, .small_k = 12, .keys_dir = "/tmp/czk-bench-keys", .backend = "cpu"};
  bool mem_given = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (strcmp(a, "--real") == 0) { o.real = true; continue; }
    if (!v) ok = false;
    else if (strcmp(a, "--large") == 0) ok = parse_u32(v, &o.large);
    else if (strcmp(a, "--parts") == 0) ok = parse_u32(v, &o.parts) && o.parts >= 1 && o.parts <= 64;
    else if (strcmp(a, "--small") == 0) ok = parse_u32(v, &o.small);
    else if (strcmp(a, "--small-rate") == 0) ok = (o.small_rate = strtod(v, NULL)) > 0;
    else if (strcmp(a, "--synth-us") == 0) ok = parse_u32(v, &o.synth_us);
    else if (strcmp(a, "--prove-us") == 0) ok = parse_u32(v, &o.prove_us);
    else if (strcmp(a, "--small-synth-us") == 0) ok = parse_u32(v, &o.small_synth_us);
    else if (strcmp(a, "--small-prove-us") == 0) ok = parse_u32(v, &o.small_prove_us);
    else if (strcmp(a, "--synth-workers") == 0) ok = parse_u32(v, &o.synth_workers) && o.synth_workers;
    else if (strcmp(a, "--devices") == 0) ok = parse_u32(v, &o.devices) && o.devices && o.devices <= 16;
    else if (strcmp(a, "--workers") == 0) ok = parse_u32(v, &o.workers) && o.workers;
    else if (strcmp(a, "--mem") == 0) ok = (mem_given = (o.mem = strtoull(v, NULL, 0)) > 0);
    else if (strcmp(a, "--trace") == 0) o.trace = v;
    else if (strcmp(a, "--big") == 0) ok = parse_u32(v, &o.big_k) && o.big_k >= 4 && o.big_k <= 28;
    else if (strcmp(a, "--small-k") == 0) ok = parse_u32(v, &o.small_k) && o.small_k >= 4 && o.small_k <= 28;
    else if (strcmp(a, "--keys-dir") == 0) o.keys_dir = v;
    else if (strcmp(a, "--backend") == 0) ok = !strcmp((o.backend = v), "cpu") || !strcmp(v, "cuda");
    else ok = false;
    if (!ok) {
      fprintf(stderr, "czk bench pipeline: bad option '%s'%s%s\n", a, v ? " " : "", v ? v : "");
      usage(stderr);
      return 2;
    }
    i++;
  }
  if (o.real && !mem_given) o.mem = 8ULL << 30;
  czk_fake f;
  if (czk__fake_init(&f, 0) != CZK_OK) return 1;
  czk_engine_device_desc devs[16];
  char names[16][200];
  czk_backend **bes = NULL;
  size_t nbes = 0;
  if (o.real && strcmp(o.backend, "cuda") == 0) {
    const char *excl[] = {"cpu"};
    czk_status bst = czk_backend_enumerate(&bes, &nbes, excl, 1);
    if (bst != CZK_OK || nbes == 0) {
      fprintf(stderr, "czk bench pipeline: no CUDA device (%s)\n", czk_status_str(bst));
      free(bes);
      czk__fake_destroy(&f);
      return 1;
    }
    if (nbes > 16) nbes = 16;
    o.devices = (uint32_t)nbes;
  }
  for (uint32_t d = 0; d < o.devices; d++) {
    if (bes) snprintf(names[d], sizeof names[d], "%s", czk_backend_name(bes[d]));
    else snprintf(names[d], sizeof names[d], o.real ? "cpu%u" : "fake%u", d);
    /* device copies of keys: half the device's memory (the rest for the proofs' lanes) */
    czk_backend_props pr = {0};
    if (bes) (void)czk_backend_get_props(bes[d], &pr);
    devs[d] = (czk_engine_device_desc){.name = names[d], .backend = bes ? bes[d] : NULL, .workers = 0,
                                       .mem_total_bytes = pr.mem_total, .key_mem_bytes = pr.mem_total / 2};
  }
  czk_engine_config cfg;
  czk_engine_config_default(&cfg);
  cfg.mem_limit_bytes = o.mem;
  cfg.synth_workers = o.synth_workers;
  cfg.workers_per_device = o.workers;
  cfg.devices = devs;
  cfg.ndevices = o.devices;
  cfg.trace_capacity = o.trace ? 1u << 20 : 0;
  czk_engine *e;
  czk_status st = czk_engine_create(&e, &cfg);
  if (st != CZK_OK) {
    fprintf(stderr, "czk bench pipeline: engine: %s\n", czk_status_str(st));
    czk__fake_destroy(&f);
    return 1;
  }
  czk_engine_kind kl, ks;
  if (o.real) {
    st = czk_kind_synthetic_new(&kl, o.big_k, o.keys_dir, NULL);
    if (st == CZK_OK) st = czk_kind_synthetic_new(&ks, o.small_k, o.keys_dir, NULL);
    snprintf(g_large_kind, sizeof g_large_kind, "synthetic-k%u", o.big_k);
    snprintf(g_small_kind, sizeof g_small_kind, "synthetic-k%u", o.small_k);
    if (st == CZK_OK && o.big_k == o.small_k) st = CZK_ERR_INVALID_ARG;
    if (st == CZK_OK && nbes) { /* host keys pinned through the first GPU */
      czk_kind_set_backend(&kl, bes[0]);
      czk_kind_set_backend(&ks, bes[0]);
    }
  } else {
    czk__fake_kind(&f, &kl, "large", "large-key", 512 << 10,
                   (czk_engine_shape){.abc_bytes = 600 << 10, .witness_bytes = 200 << 10, .scratch_bytes = 224 << 10});
    czk__fake_kind(&f, &ks, "small", "small-key", 64 << 10,
                   (czk_engine_shape){.abc_bytes = 48 << 10, .witness_bytes = 8 << 10, .scratch_bytes = 8 << 10});
  }
  kl.verify_mode = ks.verify_mode = CZK_VERIFY_ON;
  if (st != CZK_OK || (st = czk_engine_register_kind(e, &kl)) != CZK_OK ||
      (st = czk_engine_register_kind(e, &ks)) != CZK_OK) {
    fprintf(stderr, "czk bench pipeline: %s (raise --mem; --big and --small-k must differ)\n", czk_status_str(st));
    czk_engine_destroy(e);
    czk__fake_destroy(&f);
    return 1;
  }
  if (o.real) { /* keys are set up / loaded before the clock starts */
    bool already;
    uint64_t ms;
    printf("preparing keys in %s (a real setup runs on first use) ...\n", o.keys_dir);
    fflush(stdout);
    if ((st = czk_engine_key_preload(e, g_large_kind, &already, &ms)) != CZK_OK ||
        (st = czk_engine_key_preload(e, g_small_kind, &already, &ms)) != CZK_OK) {
      fprintf(stderr, "czk bench pipeline: key: %s\n", czk_status_str(st));
      czk_engine_destroy(e);
      czk__fake_destroy(&f);
      return 1;
    }
  }
  uint64_t *lids = calloc(o.large + 1, sizeof *lids), *sids = calloc(o.small + 1, sizeof *sids);
  czk_priority *sprio = calloc(o.small + 1, sizeof *sprio);
  uint64_t *lat[CZK_PRIORITY_COUNT];
  size_t nlat[CZK_PRIORITY_COUNT] = {0};
  for (int p = 0; p < CZK_PRIORITY_COUNT; p++) lat[p] = calloc(o.large + o.small + 1, sizeof(uint64_t));
  czk_engine_status *s0 = NULL, *s1 = NULL;
  (void)czk_engine_status_get(e, &s0);
  uint64_t t0 = czk__clock_now_ns();
  for (uint32_t i = 0; i < o.large; i++) {
    czk_fake_job j;
    char spec[64];
    size_t len;
    czk_kind_request req;
    const uint8_t *in = job_input(&o, false, i, &j, spec, &len, &req);
    czk_engine_submit_info info;
    if (czk_engine_submit(e, g_large_kind, CZK_PRIORITY_NORMAL, NULL, in, len, &info) == CZK_OK)
      lids[i] = info.job_id;
  }
  small_arg sa = {e, &o, sids, sprio, 0};
  pthread_t th;
  bool have_th = o.small && pthread_create(&th, NULL, small_main, &sa) == 0;
  uint64_t parts_ok = 0, failed = 0;
  for (uint32_t i = 0; i < o.large; i++) {
    czk_engine_result r;
    if (czk_engine_await(e, lids[i], 0, &r) == CZK_OK) {
      parts_ok += r.partitions;
      lat[CZK_PRIORITY_NORMAL][nlat[CZK_PRIORITY_NORMAL]++] = r.total_ms;
    } else {
      failed++;
    }
    czk_engine_result_free(&r);
  }
  if (have_th) pthread_join(th, NULL);
  for (uint32_t i = 0; i < o.small; i++) {
    czk_engine_result r;
    if (czk_engine_await(e, sids[i], 0, &r) == CZK_OK) {
      parts_ok += r.partitions;
      lat[sprio[i]][nlat[sprio[i]]++] = r.total_ms;
    } else {
      failed++;
    }
    czk_engine_result_free(&r);
  }
  uint64_t wall = czk__clock_now_ns() - t0;
  (void)czk_engine_status_get(e, &s1);
  if (o.real)
    printf("czk bench pipeline --real: %u jobs of %s x %u partitions + %u jobs of %s at %.1f/s; %u synthesis workers, "
           "%u %s device(s) x %u workers, budget %llu bytes; every partition proof self-verified\n",
           o.large, g_large_kind, o.parts, o.small, g_small_kind, o.small_rate, o.synth_workers, o.devices, o.backend,
           o.workers, (unsigned long long)o.mem);
  else
    printf("czk bench pipeline: %u large jobs x %u partitions (synth %u us, prove %u us) + %u small jobs at %.1f/s "
           "(synth %u us, prove %u us); %u synthesis workers, %u device(s) x %u workers, budget %llu bytes\n",
           o.large, o.parts, o.synth_us, o.prove_us, o.small, o.small_rate, o.small_synth_us, o.small_prove_us,
           o.synth_workers, o.devices, o.workers, (unsigned long long)o.mem);
  printf("wall %.1f ms, %llu partitions proved, %llu jobs failed, throughput %.1f partitions/s\n", wall / 1e6,
         (unsigned long long)parts_ok, (unsigned long long)failed, parts_ok / (wall / 1e9));
  printf("latency (submit -> done):\n");
  print_lat("NORMAL", lat[CZK_PRIORITY_NORMAL], nlat[CZK_PRIORITY_NORMAL]);
  print_lat("HIGH", lat[CZK_PRIORITY_HIGH], nlat[CZK_PRIORITY_HIGH]);
  print_lat("CRITICAL", lat[CZK_PRIORITY_CRITICAL], nlat[CZK_PRIORITY_CRITICAL]);
  if (s0 && s1) {
    printf("devices (over the run):\n  %-8s %8s %8s %9s %9s %9s %9s %9s %9s\n", "device", "proofs", "busy%", "starved",
           "budget", "transfer", "lock", "no_work", "key_load");
    for (uint32_t d = 0; d < s1->ndevices; d++) {
      const czk_engine_device_status *a = &s0->devices[d], *b = &s1->devices[d];
      printf("  %-8s %8llu %7.1f%%", b->name, (unsigned long long)(b->proofs - a->proofs),
             100.0 * (double)(b->kernel_busy_ns - a->kernel_busy_ns) / (double)wall);
      for (int c = 0; c < CZK_IDLE_COUNT; c++) {
        static const int order[CZK_IDLE_COUNT] = {CZK_IDLE_STARVED, CZK_IDLE_BUDGET, CZK_IDLE_TRANSFER, CZK_IDLE_LOCK,
                                                  CZK_IDLE_NO_WORK, CZK_IDLE_KEY_LOAD};
        printf(" %6.1f ms", (double)(b->idle_ns[order[c]] - a->idle_ns[order[c]]) / 1e6);
      }
      printf("\n");
    }
    printf("memory: peak %llu of %llu bytes; reservations made %llu released %llu (double releases %llu)\n",
           (unsigned long long)s1->mem_peak, (unsigned long long)s1->mem_limit,
           (unsigned long long)s1->reservations_made, (unsigned long long)s1->reservations_released,
           (unsigned long long)s1->release_errors);
  }
  int rc = failed ? 1 : 0;
  if (o.trace) {
    st = czk_engine_trace_write(e, o.trace);
    if (st != CZK_OK) {
      fprintf(stderr, "czk bench pipeline: trace %s: %s\n", o.trace, czk_status_str(st));
      rc = 1;
    } else {
      printf("trace: %s (chrome://tracing or ui.perfetto.dev)\n", o.trace);
    }
  }
  czk_engine_status_free(s0);
  czk_engine_status_free(s1);
  czk_engine_destroy(e);
  if (o.real) {
    czk_kind_free(&kl);
    czk_kind_free(&ks);
  }
  for (size_t d = 0; d < nbes; d++) czk_backend_free(bes[d]);
  free(bes);
  czk__fake_destroy(&f);
  for (int p = 0; p < CZK_PRIORITY_COUNT; p++) free(lat[p]);
  free(lids);
  free(sids);
  free(sprio);
  return rc;
}
