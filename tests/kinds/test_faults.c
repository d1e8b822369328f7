/* test_faults.c: fault injection (core/fault.h, docs/reliability.md "Faults") through the engine with real proofs:
 * the synthetic 2^6 kind on engines of one or two devices, each device a CPU backend of its own, so that injected
 * device faults go through the backend vtable and a sticky one quarantines that backend exactly as a sticky CUDA error
 * does. For every site x {transient, sticky}: every job gets exactly one outcome (a second await agrees), a proof
 * that is returned verifies against the .vk, a failure says what failed, the budget returns to the resident keys'
 * bytes with every reservation released exactly once, and the engine proves again once the fault is gone.
 * Device sites: a transient fault is retried once on another worker (another device when there is one, the device's
 * other worker when there is one device) and the job succeeds; two in a row fail it; a sticky fault quarantines the
 * device that took it and its work moves to the other device, or, on a one-device engine, the jobs fail with
 * CZK_ERR_NO_DEVICE and later submits are refused. Also: the spec parser, and alloc.big directly. ASan (leaks) and
 * TSan builds run this test too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuits/synthetic.h"
#include "core/fault.h"
#include "czk/backend.h"
#include "czk/groth16.h"
#include "czk/kinds.h"
#include "czk/log.h"
#include "czk_test.h"

#define K 6
#define MAX_JOBS 8
#define MAX_DEV 2

static char g_dir[128];
static czk_groth16_vk g_vk;
static bool g_have_vk; /* the .vk is written by the first key load */

typedef struct run_cfg {
  const char *spec;    /* armed after the kind is registered; disarmed before the idle checks */
  uint32_t ndev;       /* CPU backends, one per device */
  uint32_t workers;    /* per device */
  uint32_t njobs, parts;
} run_cfg;

typedef struct run_out {
  czk_status st[MAX_JOBS];
  char err[MAX_JOBS][512];
  uint32_t ok, failed;
  uint64_t retries, passes, fired;
  uint32_t usable;
  bool quarantined[MAX_DEV], backend_quarantined[MAX_DEV];
  uint64_t errors[MAX_DEV], proofs[MAX_DEV];
  uint64_t worker_items[MAX_DEV * 2];
  czk_status submit_after; /* a job submitted after the fault was disarmed */
} run_out;

static const char *site_of(const char *spec, char *buf, size_t n) {
  size_t l = strcspn(spec, "=");
  snprintf(buf, n, "%.*s", (int)l, spec);
  return buf;
}

/* Verify partition proofs of synthetic job `seed` here, against the .vk and the witness's public inputs. */
static void verify_proofs(const czk_engine_result *r, uint64_t seed, uint32_t parts) {
  if (!g_have_vk) return;
  CHECK(r->proof_len == (size_t)parts * CZK_GROTH16_PROOF_BYTES);
  for (uint32_t p = 0; p < parts && r->proof_len == (size_t)parts * CZK_GROTH16_PROOF_BYTES; p++) {
    czk_witness w;
    CHECK(czk_synthetic_witness(&w, K, seed + p) == CZK_OK);
    size_t np;
    const czk_fr *pub = czk_groth16_public_inputs(&w, &np);
    czk_groth16_proof pr;
    CHECK(czk_groth16_proof_decode(&pr, r->proof + (size_t)p * CZK_GROTH16_PROOF_BYTES) == CZK_OK);
    CHECK_MSG(czk_groth16_verify(&g_vk, &pr, pub, np) == CZK_OK, "seed %llu partition %u", (unsigned long long)seed, p);
    czk_witness_free(&w);
  }
}

static czk_status submit(czk_engine *e, uint64_t seed, uint32_t parts, uint64_t *id) {
  char spec[64];
  size_t n = (size_t)snprintf(spec, sizeof spec, "partitions=%u seed=%llu", parts, (unsigned long long)seed);
  czk_kind_request r = {.proof_kind = CZK_PROOF_KIND_SYNTHETIC, .sector_size = 1ull << K,
                        .vanilla_proof = {(const uint8_t *)spec, n}};
  czk_engine_submit_info info = {0};
  czk_status st = czk_engine_submit(e, "synthetic-k6", CZK_PRIORITY_NORMAL, NULL, (const uint8_t *)&r, sizeof r, &info);
  *id = info.job_id;
  return st;
}

/* The budget at idle: exactly the resident keys' bytes; every reservation but the keys' released, none twice. */
static void check_idle(czk_engine *e, const char *what) {
  czk_engine_status *s = NULL;
  CHECK(czk_engine_status_get(e, &s) == CZK_OK);
  if (!s) return;
  uint64_t key_bytes = 0;
  for (uint32_t j = 0; j < s->nkeys; j++) key_bytes += s->keys[j].bytes;
  CHECK_MSG(s->mem_used == key_bytes && s->mem_used_by_cat[CZK_MEM_KEY] == key_bytes, "%s: budget %llu, keys %llu",
            what, (unsigned long long)s->mem_used, (unsigned long long)key_bytes);
  CHECK_MSG(s->reservations_made == s->reservations_released + s->nkeys, "%s: made %llu released %llu keys %u", what,
            (unsigned long long)s->reservations_made, (unsigned long long)s->reservations_released, s->nkeys);
  CHECK_MSG(s->release_errors == 0, "%s", what);
  CHECK_MSG(s->jobs_live == 0 && s->synth_queue == 0 && s->gpu_queue == 0 && s->finalize_queue == 0, "%s", what);
  czk_engine_status_free(s);
}

static void run(const run_cfg *c, run_out *o) {
  memset(o, 0, sizeof *o);
  char err[160], site[64];
  czk_backend *be[MAX_DEV] = {0};
  czk_engine_device_desc dev[MAX_DEV];
  memset(dev, 0, sizeof dev);
  for (uint32_t d = 0; d < c->ndev; d++) {
    CHECK(czk_backend_open(&be[d], "cpu", NULL) == CZK_OK);
    dev[d] = (czk_engine_device_desc){.name = d ? "cpu-b" : "cpu-a", .backend = be[d], .workers = c->workers};
  }
  czk_engine_kind kind;
  CHECK(czk_kind_synthetic_new(&kind, K, g_dir, NULL) == CZK_OK);
  czk_engine_config cfg;
  czk_engine_config_default(&cfg);
  cfg.mem_limit_bytes = 512ull << 20;
  cfg.devices = dev;
  cfg.ndevices = c->ndev;
  cfg.synth_workers = 2;
  czk_engine *e = NULL;
  CHECK(czk_engine_create(&e, &cfg) == CZK_OK);
  CHECK(czk_engine_register_kind(e, &kind) == CZK_OK);
  CHECK_MSG(czk_faults_configure(c->spec, err, sizeof err) == CZK_OK, "%s: %s", c->spec, err);

  uint64_t id[MAX_JOBS];
  for (uint32_t j = 0; j < c->njobs; j++) {
    czk_status st = submit(e, 1000 + 100 * j, c->parts, &id[j]);
    CHECK_MSG(st == CZK_OK, "%s: submit %u: %s", c->spec, j, czk_status_name(st));
  }
  for (uint32_t j = 0; j < c->njobs; j++) {
    czk_engine_result r;
    o->st[j] = czk_engine_await(e, id[j], 120000, &r);
    snprintf(o->err[j], sizeof o->err[j], "%s", r.error);
    CHECK_MSG(o->st[j] != CZK_ERR_TIMEOUT, "%s: job %u did not end", c->spec, j);
    if (o->st[j] == CZK_OK) {
      o->ok++;
      verify_proofs(&r, 1000 + 100 * j, c->parts);
    } else {
      o->failed++;
      CHECK_MSG(r.proof == NULL && r.error[0], "%s: job %u failed without a word", c->spec, j);
    }
    czk_engine_result_free(&r);
    /* one outcome: awaiting again gives the same */
    CHECK(czk_engine_await(e, id[j], 1, &r) == o->st[j]);
    czk_engine_result_free(&r);
  }
  czk_faults_stats(site_of(c->spec ? c->spec : "", site, sizeof site), &o->passes, &o->fired);
  CHECK(czk_faults_configure(NULL, NULL, 0) == CZK_OK);
  check_idle(e, c->spec ? c->spec : "no faults");

  czk_engine_status *s = NULL;
  CHECK(czk_engine_status_get(e, &s) == CZK_OK);
  if (s) {
    o->retries = s->prove_retries;
    o->usable = s->devices_usable;
    for (uint32_t d = 0; d < c->ndev && d < MAX_DEV; d++) {
      o->quarantined[d] = s->devices[d].quarantined;
      o->errors[d] = s->devices[d].prove_errors;
      o->proofs[d] = s->devices[d].proofs;
      o->backend_quarantined[d] = czk_backend_quarantined(be[d]);
    }
    for (uint32_t i = 0, k = 0; i < s->nworkers; i++)
      if (strcmp(s->workers[i].role, "prove") == 0 && k < MAX_DEV * 2) o->worker_items[k++] = s->workers[i].items;
    czk_engine_status_free(s);
  }
  /* the fault is gone: the engine proves again (on what is left), or refuses at once when no device is left */
  uint64_t after;
  o->submit_after = submit(e, 77, 1, &after);
  if (o->submit_after == CZK_OK) {
    czk_engine_result r;
    CHECK_MSG(czk_engine_await(e, after, 120000, &r) == CZK_OK, "%s: after the fault: %s", c->spec, r.error);
    if (r.status == CZK_OK) verify_proofs(&r, 77, 1);
    czk_engine_result_free(&r);
    check_idle(e, "after the fault");
  }
  czk_engine_destroy(e);
  czk_kind_free(&kind);
  for (uint32_t d = 0; d < c->ndev; d++) czk_backend_free(be[d]);
}

static void test_spec_parser(void) {
  char err[160];
  CHECK(czk_faults_available());
  const char *good[] = {"device.msm=1", "device.msm=2:3/sticky", "key.load=1:*", "rpc.write=0.5,seed=7",
                        "device.*=1/transient; alloc.big=3", " engine.reserve=1 ", ""};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    CHECK_MSG(czk_faults_configure(good[i], err, sizeof err) == CZK_OK, "'%s': %s", good[i], err);
  const char *bad[] = {"device.msm", "=1", "device.msm=0", "device.msm=1/forever", "device.msm=1:0", "x=1.5",
                       "x=abc", "X=1", "seed=x", "x=1:", "a*b=1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    err[0] = 0;
    CHECK_MSG(czk_faults_configure(bad[i], err, sizeof err) == CZK_ERR_CONFIG && err[0], "'%s' accepted", bad[i]);
    /* a refused spec arms nothing */
    CHECK(czk_fault("device.msm") == CZK_FAULT_NONE && czk_fault("x") == CZK_FAULT_NONE);
  }
  /* counting: passes 2 and 3 fail; a prefix entry counts every site under it */
  CHECK(czk_faults_configure("a.b=2:2,c.*=1/sticky", err, sizeof err) == CZK_OK);
  czk_fault_kind got[5];
  for (int i = 0; i < 5; i++) got[i] = czk_fault("a.b");
  CHECK(got[0] == CZK_FAULT_NONE && got[1] == CZK_FAULT_TRANSIENT && got[2] == CZK_FAULT_TRANSIENT &&
        got[3] == CZK_FAULT_NONE && got[4] == CZK_FAULT_NONE);
  CHECK(czk_fault("c.x") == CZK_FAULT_STICKY && czk_fault("c.y") == CZK_FAULT_NONE && czk_fault("a.c") == 0);
  uint64_t p, f;
  czk_faults_stats("a.b", &p, &f);
  CHECK(p == 5 && f == 2);
  czk_faults_stats("c.*", &p, &f);
  CHECK(p == 2 && f == 1);
  /* probability: seeded, so two runs agree; about half fire */
  int fired[2] = {0, 0};
  for (int r = 0; r < 2; r++) {
    CHECK(czk_faults_configure("p.q=0.5,seed=42", err, sizeof err) == CZK_OK);
    for (int i = 0; i < 1000; i++) fired[r] += czk_fault("p.q") != CZK_FAULT_NONE;
  }
  CHECK_MSG(fired[0] == fired[1] && fired[0] > 400 && fired[0] < 600, "%d %d", fired[0], fired[1]);
  /* alloc.big fails as malloc does */
  CHECK(czk_faults_configure("alloc.big=1", err, sizeof err) == CZK_OK);
  void *a = czk_alloc_big(100), *b = czk_alloc_big(100);
  CHECK(a == NULL && b != NULL);
  free(b);
  CHECK(czk_faults_configure(NULL, NULL, 0) == CZK_OK);
}

static void test_no_faults(void) {
  run_out o;
  run(&(run_cfg){NULL, 2, 1, 3, 2}, &o);
  CHECK(o.ok == 3 && o.retries == 0 && o.usable == 2 && o.submit_after == CZK_OK);
}

static const char *const k_dev_sites[] = {"device.upload", "device.ntt", "device.msm", "device.finish"};

/* A transient device fault: the partition is proved again once, on the other device, and its job succeeds. */
static void test_device_transient(void) {
  for (size_t i = 0; i < 4; i++) {
    char spec[64];
    snprintf(spec, sizeof spec, "%s=1", k_dev_sites[i]);
    run_out o;
    run(&(run_cfg){spec, 2, 1, 1, 1}, &o);
    CHECK_MSG(o.ok == 1 && o.fired == 1 && o.retries == 1, "%s: ok %u fired %llu retries %llu (%s)", spec, o.ok,
              (unsigned long long)o.fired, (unsigned long long)o.retries, o.err[0]);
    /* the failed prove on one device, the proof from the other */
    bool a_failed = o.errors[0] == 1 && o.proofs[0] == 0 && o.errors[1] == 0 && o.proofs[1] == 1;
    bool b_failed = o.errors[1] == 1 && o.proofs[1] == 0 && o.errors[0] == 0 && o.proofs[0] == 1;
    CHECK_MSG(a_failed || b_failed, "%s: errors %llu/%llu proofs %llu/%llu", spec, (unsigned long long)o.errors[0],
              (unsigned long long)o.errors[1], (unsigned long long)o.proofs[0], (unsigned long long)o.proofs[1]);
    CHECK(!o.quarantined[0] && !o.quarantined[1] && !o.backend_quarantined[0] && !o.backend_quarantined[1]);
    CHECK(o.usable == 2 && o.submit_after == CZK_OK);
  }
  /* one device with two workers: the retry runs on the other worker */
  run_out o;
  run(&(run_cfg){"device.msm=1", 1, 2, 1, 1}, &o);
  CHECK_MSG(o.ok == 1 && o.retries == 1 && o.errors[0] == 1 && o.proofs[0] == 1, "%s", o.err[0]);
  CHECK_MSG(o.worker_items[0] == 1 && o.worker_items[1] == 1, "worker items %llu %llu",
            (unsigned long long)o.worker_items[0], (unsigned long long)o.worker_items[1]);
  /* one device with one worker: the retry runs on that worker */
  run(&(run_cfg){"device.ntt=1", 1, 1, 1, 1}, &o);
  CHECK_MSG(o.ok == 1 && o.retries == 1 && o.errors[0] == 1 && o.worker_items[0] == 2, "%s", o.err[0]);
  /* two faults in a row: the retry fails too, and so does the job (once, with a clear error) */
  run(&(run_cfg){"device.msm=1:2", 2, 1, 1, 1}, &o);
  CHECK_MSG(o.failed == 1 && o.st[0] == CZK_ERR_DEVICE && strstr(o.err[0], "again after one retry") &&
                o.retries == 1 && o.errors[0] + o.errors[1] == 2,
            "%s: %s", czk_status_name(o.st[0]), o.err[0]);
  CHECK(o.submit_after == CZK_OK && o.usable == 2);
  /* several jobs and partitions with a fault now and then: every partition that fails once is proved */
  run(&(run_cfg){"device.*=0.02,seed=3", 2, 2, 4, 2}, &o);
  CHECK_MSG(o.ok + o.failed == 4, "%u + %u", o.ok, o.failed);
  for (uint32_t j = 0; j < 4; j++)
    CHECK_MSG(o.st[j] == CZK_OK || (o.st[j] == CZK_ERR_DEVICE && strstr(o.err[j], "again after one retry")),
              "job %u: %s", j, o.err[j]);
  CHECK(o.usable == 2 && o.submit_after == CZK_OK);
}

/* A sticky device fault: the device is quarantined and the work goes to the other one; with none left, jobs fail
 * with CZK_ERR_NO_DEVICE and submits are refused. */
static void test_device_sticky(void) {
  for (size_t i = 0; i < 4; i++) {
    char spec[64];
    snprintf(spec, sizeof spec, "%s=1/sticky", k_dev_sites[i]);
    run_out o;
    run(&(run_cfg){spec, 2, 1, 2, 2}, &o);
    CHECK_MSG(o.ok == 2 && o.fired == 1, "%s: ok %u fired %llu (%s / %s)", spec, o.ok, (unsigned long long)o.fired,
              o.err[0], o.err[1]);
    CHECK_MSG(o.quarantined[0] != o.quarantined[1] && o.usable == 1, "%s: quarantined %d %d", spec, o.quarantined[0],
              o.quarantined[1]);
    for (int d = 0; d < 2; d++) {
      CHECK(o.backend_quarantined[d] == o.quarantined[d]);
      if (o.quarantined[d]) CHECK(o.errors[d] >= 1);
    }
    CHECK_MSG(o.proofs[0] + o.proofs[1] == 4 && o.retries == 0, "%s: proofs %llu + %llu", spec,
              (unsigned long long)o.proofs[0], (unsigned long long)o.proofs[1]);
    CHECK(o.submit_after == CZK_OK);
    /* on a one-device engine: nothing is left to prove on */
    run(&(run_cfg){spec, 1, 2, 2, 2}, &o);
    CHECK(o.quarantined[0] && o.backend_quarantined[0] && o.usable == 0 && o.failed >= 1);
    for (uint32_t j = 0; j < 2; j++)
      CHECK_MSG(o.st[j] == CZK_OK || (o.st[j] == CZK_ERR_NO_DEVICE && strstr(o.err[j], "no usable device")),
                "%s job %u: %s: %s", spec, j, czk_status_name(o.st[j]), o.err[j]);
    CHECK_EQ_INT(o.submit_after, CZK_ERR_NO_DEVICE);
  }
}

/* Sites outside the devices: the job (or jobs) that took the fault fail with the site's error, the rest prove; in
 * the persistent form (1:*) every job fails; the engine proves again once the fault is gone. */
static void test_other_sites(void) {
  const struct {
    const char *site;
    czk_status st;
    const char *text;
    unsigned nth; /* the pass that fails */
  } s[] = {{"engine.reserve", CZK_ERR_NOMEM, "memory reservation of partition", 1},
           {"key.load", CZK_ERR_IO, "key load", 1},
           {"file.map", CZK_ERR_IO, "key load", 2}, /* the first map is the cached shape's: below */
           {"alloc.synth", CZK_ERR_NOMEM, "synthesis of partition", 1},
           {"engine.verify", CZK_ERR_VERIFY_FAILED, "self-verification of partition", 1}};
  for (size_t i = 0; i < sizeof s / sizeof *s; i++)
    for (int sticky = 0; sticky < 2; sticky++) {
      char spec[64];
      snprintf(spec, sizeof spec, "%s=%u%s", s[i].site, sticky ? 1 : s[i].nth, sticky ? ":*" : "");
      run_out o;
      run(&(run_cfg){spec, 2, 1, 3, 2}, &o);
      CHECK_MSG(o.fired >= 1 && o.failed >= 1 && (!sticky || o.failed == 3), "%s: fired %llu, %u failed", spec,
                (unsigned long long)o.fired, o.failed);
      for (uint32_t j = 0; j < 3; j++)
        CHECK_MSG(o.st[j] == CZK_OK || (o.st[j] == s[i].st && strstr(o.err[j], s[i].text)), "%s job %u: %s: %s", spec,
                  j, czk_status_name(o.st[j]), o.err[j]);
      CHECK(o.retries == 0 && o.usable == 2 && o.submit_after == CZK_OK);
    }
  /* a derived file that cannot be read is made again: the key load re-records the cached shape and every job proves */
  run_out o;
  run(&(run_cfg){"file.map=1", 2, 1, 3, 2}, &o);
  CHECK_MSG(o.fired == 1 && o.ok == 3, "file.map=1: fired %llu, %u ok (%s)", (unsigned long long)o.fired, o.ok,
            o.err[0]);
}

int main(void) {
  czk_log_set_level(CZK_LOG_WARN); /* the fault, retry and quarantine lines */
  test_spec_parser();
  snprintf(g_dir, sizeof g_dir, "/tmp/czk_tfaults_%d", (int)getpid());
  /* make the key (setup) once, outside any fault */
  run_out o;
  run(&(run_cfg){NULL, 1, 1, 1, 1}, &o);
  CHECK(o.ok == 1);
  char vkp[256];
  snprintf(vkp, sizeof vkp, "%s/synthetic-k%u.vk", g_dir, K);
  g_have_vk = czk_groth16_vk_read(&g_vk, vkp, false) == CZK_OK;
  CHECK(g_have_vk);
  test_no_faults();
  test_device_transient();
  test_device_sticky();
  test_other_sites();
  if (g_have_vk) czk_groth16_vk_free(&g_vk);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "test_faults: could not remove %s\n", g_dir);
  return czk_test_done("test_faults");
}
