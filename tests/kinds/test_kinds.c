/* test_kinds.c: the kinds through the engine with real proofs. czk_kind_name_for (the one map from proof kinds to
 * engine kind names: every kind, bad sizes and circuit ids). Two synthetic kinds (2^6 and 2^7 keys, real setup in a
 * temporary keys directory) on one device whose key memory holds one key's copy but not both (the device is a CPU
 * backend, so copies are real allocations and proofs from them run the one prover): jobs alternate between the kinds,
 * every partition is self-verified by the finalizer and verified again here against the .vk, the device's key memory
 * stays within its limit, the tiers reported are the truth (the last used key DEVICE on device 0, the other at its
 * host tier), and at idle the budget holds exactly the host keys' bytes. A request that is not a czk_kind_request is
 * refused; then a device with no key memory proves from the host copies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuits/synthetic.h"
#include "czk/backend.h"
#include "czk/groth16.h"
#include "czk/kinds.h"
#include "czk/snap.h"
#include "czk_test.h"

static void test_names(void) {
  char name[96], err[160];
  czk_kind_request r;
  memset(&r, 0, sizeof r);
  const struct {
    uint32_t kind;
    const char *want;
    uint64_t registered, size;
  } fc[] = {{1, "porep-c2-8MiB", 6, 8ull << 20},
            {1, "porep-c2-32GiB", 18, 0},
            {2, "snap-update-2KiB", 0, 0},
            {2, "snap-update-32GiB", 3, 32ull << 30},
            {2, "snap-update-64GiB", 4, 0},
            {3, "window-post-2KiB", 10, 2048},
            {3, "window-post-32GiB", 8, 0},
            {3, "window-post-64GiB", 14, 64ull << 30},
            {4, "winning-post-2KiB", 0, 0},
            {4, "winning-post-32GiB", 3, 32ull << 30}};
  for (size_t i = 0; i < sizeof fc / sizeof fc[0]; i++) {
    r.proof_kind = fc[i].kind;
    r.registered_proof = fc[i].registered;
    r.sector_size = fc[i].size;
    CHECK_MSG(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_OK && strcmp(name, fc[i].want) == 0,
              "%s: %s", fc[i].want, err);
  }
  /* a PoSt request whose registered proof is of the other PoSt type, unknown, or another size */
  const struct {
    uint32_t kind;
    uint64_t registered, size;
    const char *why;
  } badpost[] = {{3, 3, 0, "not a WindowPoSt proof"},
             {4, 5, 0, "not a WinningPoSt proof"},
             {3, 15, 0, "registered_proof 15"},
             {3, 13, 2048, "disagrees with registered_proof 13"},
             {1, 20, 0, "not a seal proof"},
             {1, 6, 2048, "disagrees with registered_proof 6"},
             {2, 5, 0, "not an update proof"},
             {2, 1, 2048, "disagrees with registered_proof 1"}};
  for (size_t i = 0; i < sizeof badpost / sizeof badpost[0]; i++) {
    r.proof_kind = badpost[i].kind;
    r.registered_proof = badpost[i].registered;
    r.sector_size = badpost[i].size;
    CHECK_MSG(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_ERR_INVALID_ARG &&
                  strstr(err, badpost[i].why),
              "%s", err);
  }
  r.registered_proof = 0;
  r.sector_size = 0;
  r.proof_kind = CZK_PROOF_KIND_SYNTHETIC;
  CHECK(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_OK && strcmp(name, "synthetic-k12") == 0);
  r.sector_size = 1u << 16;
  CHECK(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_OK && strcmp(name, "synthetic-k16") == 0);
  r.sector_size = 3000;
  CHECK(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_ERR_INVALID_ARG &&
        strstr(err, "not a power of two"));
  r.sector_size = 0;
  r.proof_kind = CZK_PROOF_KIND_CIRCOM;
  CHECK(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_ERR_INVALID_ARG &&
        strstr(err, "vanilla_proofs[0]"));
  czk_bytes ids[1] = {{(const uint8_t *)"mix.v2", 6}};
  r.vanilla_proofs = ids;
  r.n_vanilla_proofs = 1;
  CHECK(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_OK && strcmp(name, "circom:mix.v2") == 0);
  const char *bad[] = {"", ".hidden", "a/b", "a b"};
  for (int i = 0; i < 4; i++) {
    ids[0] = (czk_bytes){(const uint8_t *)bad[i], strlen(bad[i])};
    CHECK_MSG(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_ERR_INVALID_ARG, "id '%s'", bad[i]);
  }
  r.proof_kind = 77;
  CHECK(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_ERR_INVALID_ARG &&
        strstr(err, "unknown proof_kind 77"));
  r.proof_kind = (uint32_t)-1; /* the wire's int32 -1 */
  CHECK(czk_kind_name_for(&r, 12, name, sizeof name, err, sizeof err) == CZK_ERR_INVALID_ARG &&
        strcmp(err, "unknown proof_kind -1") == 0);
  CHECK(czk_kind_name_for(NULL, 12, name, sizeof name, NULL, 0) == CZK_ERR_INVALID_ARG);
}

static char g_dir[128];

static uint64_t submit_syn(czk_engine *e, unsigned k, uint64_t seed, uint32_t parts) {
  char spec[64];
  size_t n = (size_t)snprintf(spec, sizeof spec, "partitions=%u seed=%llu", parts, (unsigned long long)seed);
  czk_kind_request r = {.proof_kind = CZK_PROOF_KIND_SYNTHETIC, .sector_size = 1ull << k,
                        .vanilla_proof = {(const uint8_t *)spec, n}};
  char name[96];
  CHECK(czk_kind_name_for(&r, 0, name, sizeof name, NULL, 0) == CZK_OK);
  czk_engine_submit_info info = {0};
  CHECK(czk_engine_submit(e, name, CZK_PRIORITY_NORMAL, NULL, (const uint8_t *)&r, sizeof r, &info) == CZK_OK);
  return info.job_id;
}

/* Await a job and verify each partition proof here against the kind's .vk and the witness's public inputs. */
static void await_verify(czk_engine *e, uint64_t id, unsigned k, uint64_t seed, uint32_t parts) {
  czk_engine_result res;
  CHECK_MSG(czk_engine_await(e, id, 0, &res) == CZK_OK, "job %llu: %s", (unsigned long long)id, res.error);
  if (res.status != CZK_OK) return;
  CHECK(res.proof_len == (size_t)parts * CZK_GROTH16_PROOF_BYTES);
  char vkp[256];
  snprintf(vkp, sizeof vkp, "%s/synthetic-k%u.vk", g_dir, k);
  czk_groth16_vk vk;
  CHECK(czk_groth16_vk_read(&vk, vkp, false) == CZK_OK);
  for (uint32_t p = 0; p < parts; p++) {
    czk_witness w;
    CHECK(czk_synthetic_witness(&w, k, seed + p) == CZK_OK);
    size_t np;
    const czk_fr *pub = czk_groth16_public_inputs(&w, &np);
    czk_groth16_proof pr;
    CHECK(czk_groth16_proof_decode(&pr, res.proof + (size_t)p * CZK_GROTH16_PROOF_BYTES) == CZK_OK);
    CHECK_MSG(czk_groth16_verify(&vk, &pr, pub, np) == CZK_OK, "k=%u partition %u", k, p);
    czk_witness_free(&w);
  }
  czk_groth16_vk_free(&vk);
  czk_engine_result_free(&res);
}

static const czk_engine_key_status *key_of(const czk_engine_status *s, const char *id) {
  for (uint32_t i = 0; i < s->nkeys; i++)
    if (strcmp(s->keys[i].key_id, id) == 0) return &s->keys[i];
  return NULL;
}

/* plan: the device memory plan's limit is set to the copies' limit (a host-memory backend plans no lanes: the same
 * outcome, through the plan's room-making for copies and the real adapter's prove_plan). */
static void test_two_keys_one_device(uint64_t key_mem, bool plan) {
  czk_backend *cpu = NULL;
  CHECK(czk_backend_open(&cpu, "cpu", NULL) == CZK_OK);
  czk_engine_kind k6, k7;
  CHECK(czk_kind_synthetic_new(&k6, 6, g_dir, NULL) == CZK_OK);
  CHECK(czk_kind_synthetic_new(&k7, 7, g_dir, NULL) == CZK_OK);
  /* a device copy takes exactly the loaded host key's bytes (key_device_size); key_device_bytes is only a bound */
  uint64_t d6 = 0, d7 = 0;
  for (int i = 0; i < 2; i++) {
    czk_engine_kind *k = i ? &k7 : &k6;
    void *obj = NULL;
    czk_key_tier tier;
    uint64_t bytes = 0;
    CHECK(k->key_load(k->user, k->key_id, CZK_KEY_TIER_MAPPED, &obj, &tier, &bytes) == CZK_OK);
    if (!obj) continue;
    CHECK(bytes > 0 && bytes <= k->key_bytes && k->key_device_size(k->user, obj) == bytes &&
          bytes <= k->key_device_bytes);
    *(i ? &d7 : &d6) = bytes;
    k->key_free(k->user, obj);
  }
  CHECK(d6 > 0 && d7 > d6);
  if (key_mem == 1) key_mem = d7 + d6 / 2; /* either copy fits, both do not */
  czk_engine_device_desc dev = {.name = "cpu-dev", .backend = cpu, .workers = 2, .key_mem_bytes = key_mem,
                                .plan_bytes = plan ? key_mem : 0};
  czk_engine_config cfg;
  czk_engine_config_default(&cfg);
  cfg.mem_limit_bytes = 512ull << 20;
  cfg.devices = &dev;
  cfg.ndevices = 1;
  cfg.synth_workers = 2;
  czk_engine *e = NULL;
  CHECK(czk_engine_create(&e, &cfg) == CZK_OK);
  CHECK(czk_engine_register_kind(e, &k6) == CZK_OK && czk_engine_register_kind(e, &k7) == CZK_OK);
  /* not a request */
  czk_engine_submit_info info;
  CHECK(czk_engine_submit(e, "synthetic-k6", CZK_PRIORITY_NORMAL, NULL, (const uint8_t *)"partitions=1", 12, &info) ==
        CZK_ERR_INVALID_ARG);
  const unsigned seq[5] = {6, 7, 6, 7, 7};
  for (int i = 0; i < 5; i++) {
    uint64_t seed = 100 + 10 * (uint64_t)i;
    uint64_t id = submit_syn(e, seq[i], seed, 2);
    await_verify(e, id, seq[i], seed, 2);
    czk_engine_status *s = NULL;
    CHECK(czk_engine_status_get(e, &s) == CZK_OK);
    if (!s) continue;
    const czk_engine_key_status *now = key_of(s, seq[i] == 6 ? "synthetic-k6" : "synthetic-k7");
    const czk_engine_key_status *other = key_of(s, seq[i] == 6 ? "synthetic-k7" : "synthetic-k6");
    CHECK(s->devices[0].key_mem_used <= s->devices[0].key_mem_limit);
    CHECK(s->devices[0].plan_limit == (plan ? key_mem : 0) && s->devices[0].plan_lanes_bytes == 0 &&
          s->devices[0].lanes_idle == 0 && s->devices[0].lanes_busy == 0);
    if (key_mem) {
      CHECK_MSG(now && now->tier == CZK_KEY_TIER_DEVICE && now->device_mask == 1u, "step %d: tier of the last key", i);
      CHECK_MSG(!other || (other->device_mask == 0 && other->tier == other->host_tier), "step %d: the other key", i);
      CHECK(s->devices[0].key_mem_used == (seq[i] == 6 ? d6 : d7) && s->devices[0].keys_resident == 1);
    } else {
      CHECK(now && now->tier == CZK_KEY_TIER_MAPPED && now->device_mask == 0 && s->devices[0].key_mem_used == 0);
    }
    /* at idle: the budget holds exactly the host keys */
    uint64_t key_bytes = 0;
    for (uint32_t j = 0; j < s->nkeys; j++) key_bytes += s->keys[j].bytes;
    CHECK_MSG(s->mem_used == key_bytes && s->mem_used_by_cat[CZK_MEM_KEY] == key_bytes, "step %d: budget %llu keys %llu",
              i, (unsigned long long)s->mem_used, (unsigned long long)key_bytes);
    CHECK(s->release_errors == 0);
    czk_engine_status_free(s);
  }
  czk_engine_destroy(e);
  czk_kind_free(&k6);
  czk_kind_free(&k7);
  czk_backend_free(cpu);
}

/* Requests whose bytes fields are absent ({NULL, 0}, as protobuf-c decodes a missing field): a synthetic request
 * without vanilla_proof is one partition of seed 1 (issue 22 defect 9: memcpy from NULL, an abort under UBSan); a
 * circom request with an empty circuit id is refused. */
static void test_absent_bytes(void) {
  czk_engine_kind k6;
  CHECK(czk_kind_synthetic_new(&k6, 6, g_dir, NULL) == CZK_OK);
  czk_engine_config cfg;
  czk_engine_config_default(&cfg);
  cfg.mem_limit_bytes = 512ull << 20;
  czk_engine *e = NULL;
  CHECK(czk_engine_create(&e, &cfg) == CZK_OK);
  CHECK(czk_engine_register_kind(e, &k6) == CZK_OK);
  czk_kind_request r = {.proof_kind = CZK_PROOF_KIND_SYNTHETIC, .sector_size = 1u << 6};
  char name[96], err[200];
  CHECK(czk_kind_name_for(&r, 0, name, sizeof name, err, sizeof err) == CZK_OK && strcmp(name, "synthetic-k6") == 0);
  czk_engine_submit_info info = {0};
  CHECK(czk_engine_submit(e, name, CZK_PRIORITY_NORMAL, NULL, (const uint8_t *)&r, sizeof r, &info) == CZK_OK);
  CHECK(info.partitions == 1);
  await_verify(e, info.job_id, 6, 1, 1);
  /* a NUL byte in the job spec is refused, not read as the end of the spec (issue 22 defect 11) */
  static const char nul_spec[] = "partitions=1\0partitions=9";
  r.vanilla_proof = (czk_bytes){(const uint8_t *)nul_spec, sizeof nul_spec - 1};
  CHECK(czk_engine_submit(e, name, CZK_PRIORITY_NORMAL, NULL, (const uint8_t *)&r, sizeof r, &info) == CZK_ERR_FORMAT);
  czk_engine_destroy(e);
  czk_kind_free(&k6);
  czk_bytes none = {NULL, 0};
  czk_kind_request c = {.proof_kind = CZK_PROOF_KIND_CIRCOM, .vanilla_proofs = &none, .n_vanilla_proofs = 1};
  CHECK(czk_kind_name_for(&c, 0, name, sizeof name, err, sizeof err) == CZK_ERR_INVALID_ARG &&
        strstr(err, "must name the circuit"));
}

/* The PoSt kinds' counts (one slot scaled, used for reservations) equal a counting synthesis of the whole circuit and
 * the outline the key is made from. */
static void test_post_counts(void) {
  const uint64_t sizes[3] = {2048, 8ull << 20, 512ull << 20};
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < 3; i++) {
      czk_post_type type = t ? CZK_POST_WINDOW : CZK_POST_WINNING;
      czk_cs_counts k, full;
      CHECK(czk_kind_post_counts(type, sizes[i], &k) == CZK_OK);
      czk_cs *cs;
      CHECK(czk_cs_counter_new(&cs) == CZK_OK);
      czk_post_instance inst = {.info = czk_post_info_find(type, sizes[i], 0)};
      CHECK(czk_post_synthesize(cs, &inst) == CZK_OK);
      CHECK(czk_cs_counter_result(cs, &full) == CZK_OK);
      czk_cs_free(cs);
      CHECK_MSG(memcmp(&k, &full, sizeof k) == 0, "type %d size %llu: scaled counts differ", t,
                (unsigned long long)sizes[i]);
      czk_r1cs *ol;
      CHECK(czk_post_outline(inst.info, &ol) == CZK_OK);
      CHECK(ol->n_aux == k.n_aux && ol->a_aux_count == k.a_aux_count && ol->b_aux_count == k.b_aux_count &&
            ol->b_input_count == k.b_input_count && ol->a.nnz == k.nnz_a);
      czk_r1cs_free(ol);
    }
  czk_cs_counts k;
  CHECK(czk_kind_post_counts(CZK_POST_WINDOW, 32ull << 30, &k) == CZK_OK);
  CHECK(k.n_user_constraints == 125279217 && k.n_inputs == 25840 && k.n_aux == 126902376 && k.log_domain == 27);
  CHECK(czk_kind_post_counts(CZK_POST_WINDOW, 4096, &k) == CZK_ERR_INVALID_ARG);
}

/* The porep-c2-8MiB kind on the real 8 MiB C1 output in cuzk's envelope, as Curio sends it: parse (every native check,
 * the public inputs), then the adapter's synthesis (the circuit evaluated into the assignment; its rows hold and its
 * inputs are the recomputed ones). Wrong miner, sector, registered proof, size, or a damaged envelope: refused with a
 * reason. (No key here: proving needs a .params of the 2^22 circuit.) */
static void test_porep_kind(void) {
  size_t len;
  char *c1 = czk_test_read_file(czk_test_shared_path("fixtures/filecoin/porep-c1-8MiB.json"), &len);
  CHECK(c1 != NULL);
  if (!c1) return;
  char *b64 = czk_test_base64(c1, len);
  size_t envlen = strlen(b64) + 100;
  char *env = malloc(envlen), *env2k = malloc(envlen);
  snprintf(env, envlen, "{\"SectorNum\":1498,\"Phase1Out\":\"%s\",\"SectorSize\":8388608}", b64);
  snprintf(env2k, envlen, "{\"SectorNum\":1498,\"Phase1Out\":\"%s\",\"SectorSize\":2048}", b64);
  czk_engine_kind k;
  CHECK(czk_kind_porep_new(&k, 8ull << 20, g_dir, NULL) == CZK_OK);
  CHECK(strcmp(k.name, "porep-c2-8MiB") == 0 && strcmp(k.key_id, "porep-8m") == 0);
  char why[320];
  czk_kind_request r;
  memset(&r, 0, sizeof r);
  r.proof_kind = CZK_PROOF_KIND_POREP_SEAL_COMMIT;
  r.registered_proof = 6;
  r.sector_size = 8ull << 20;
  r.miner_id = 1006;
  r.vanilla_proof = (czk_bytes){(const uint8_t *)env, strlen(env)};
  r.error = why;
  r.error_len = sizeof why;
  void *parsed = NULL;
  uint32_t nparts = 0;
  CHECK_MSG(k.parse(k.user, (const uint8_t *)&r, sizeof r, &parsed, &nparts) == CZK_OK, "%s", why);
  CHECK(nparts == 1);
  void *synth = NULL;
  if (parsed) {
    CHECK(k.synthesize(k.user, parsed, 0, NULL, &synth) == CZK_OK);
    czk_groth16_assignment *as = synth;
    if (as) {
      CHECK(as->n_rows == 3844929 + 40 && as->n_domain == (1u << 22) && as->w.n_inputs == 40);
      CHECK(czk_r1cs_first_unsatisfied(as->a, as->b, as->c, as->n_rows) == SIZE_MAX);
      k.synth_free(k.user, synth);
    }
    k.parsed_free(k.user, parsed);
  }
  /* the same C1 bare (no envelope) with sector_number from the request */
  r.sector_number = 1498;
  r.vanilla_proof = (czk_bytes){(const uint8_t *)c1, len};
  CHECK_MSG(k.parse(k.user, (const uint8_t *)&r, sizeof r, &parsed, &nparts) == CZK_OK, "%s", why);
  k.parsed_free(k.user, parsed);
  const struct {
    uint64_t miner, sector, wire;
    const char *body, *why;
  } bad[] = {{1007, 0, 6, env, "replica_id"},
             {1006, 1499, 6, env, "disagrees with sector_number 1499"},
             {1006, 0, 1, env, "the C1 output is a StackedDrg8MiBV1_1 proof, the request says StackedDrg8MiBV1"},
             {1006, 0, 11, env, "the request says StackedDrg8MiBV1_1_Feat_SyntheticPoRep"},
             {1006, 0, 5, env, "not a 8MiB seal proof"},
             {1006, 0, 6, "{\"SectorNum\":1498,\"Phase1Out\":\"!!\",\"SectorSize\":8388608}", "base64"},
             {1006, 0, 6, env2k, "SectorSize 2048"},
             {1006, 0, 6, "{\"SectorNum\":1498,\"Phase1Out\":\"e30=\",\"SectorSize\":8388608}", "registered_proof (missing)"},
             {1006, 0, 6, "[1,2,3]", "Phase1Out"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    r.miner_id = bad[i].miner;
    r.sector_number = bad[i].sector;
    r.registered_proof = bad[i].wire;
    r.sector_size = 0;
    r.vanilla_proof = (czk_bytes){(const uint8_t *)bad[i].body, strlen(bad[i].body)};
    why[0] = 0;
    parsed = NULL;
    CHECK(k.parse(k.user, (const uint8_t *)&r, sizeof r, &parsed, &nparts) != CZK_OK && parsed == NULL);
    CHECK_MSG(strstr(why, bad[i].why) != NULL, "case %zu: %s (wanted %s)", i, why, bad[i].why);
  }
  czk_kind_free(&k);
  free(env);
  free(env2k);
  free(b64);
  free(c1);
}

/* The snap-update kinds: the reservation's domain is the circuit's at every size; the 2 KiB and 8 MiB kinds on
 * generated updates as Curio sends them (one PartitionProof per partition and the three raw commitments): parse
 * (every native check, the public inputs), the adapter's synthesis of a partition (its rows hold; its inputs are the
 * recomputed ones, else it is refused); bad requests refused with a reason naming the field, partition or challenge. */
static void test_snap_kind(void) {
  for (uint64_t wire = 0; wire < CZK_SNAP_N_PROOFS; wire++) {
    const czk_snap_info *info = czk_snap_info_by_wire(wire);
    czk_cs_counts n;
    if (wire == 2 || wire == 4) continue; /* same rule as 8 MiB / 32 GiB; counted under test_snap_full */
    CHECK(czk_snap_counts(info, &n) == CZK_OK && n.log_domain == czk_kind_snap_log_domain(info->sector_size));
  }
  for (uint64_t wire = 0; wire <= 1; wire++) {
    const czk_snap_info *info = czk_snap_info_by_wire(wire);
    czk_snap_gen_input in = {.mode = CZK_SNAP_GEN_SPARSE, .seed = 9};
    czk_snap_update u;
    CHECK(czk_snap_generate(info, &in, &u) == CZK_OK);
    size_t vs = czk_snap_partition_size(info);
    uint8_t *bytes = malloc(vs * u.n_parts);
    czk_bytes vp[16];
    for (uint32_t k = 0; k < u.n_parts; k++) {
      CHECK(czk_snap_partition_write(info, &u.parts[k], bytes + k * vs, vs) == CZK_OK);
      vp[k] = (czk_bytes){bytes + k * vs, vs};
    }
    czk_engine_kind kd;
    CHECK(czk_kind_snap_new(&kd, info->sector_size, g_dir, NULL) == CZK_OK);
    CHECK(strcmp(kd.name, wire ? "snap-update-8MiB" : "snap-update-2KiB") == 0 &&
          strcmp(kd.key_id, wire ? "snap-8m" : "snap-2k") == 0 && kd.max_partitions == 16);
    char why[320];
    czk_kind_request r;
    memset(&r, 0, sizeof r);
    r.proof_kind = CZK_PROOF_KIND_SNAP_DEALS_UPDATE;
    r.registered_proof = wire;
    r.sector_size = info->sector_size;
    r.vanilla_proofs = vp;
    r.n_vanilla_proofs = u.n_parts;
    r.comm_r_old = (czk_bytes){u.comms.comm_r_old, 32};
    r.comm_d_new = (czk_bytes){u.comms.comm_d_new, 32};
    r.comm_r_new = (czk_bytes){u.comms.comm_r_new, 32};
    r.error = why;
    r.error_len = sizeof why;
    void *parsed = NULL, *synth = NULL;
    uint32_t nparts = 0;
    CHECK_MSG(kd.parse(kd.user, (const uint8_t *)&r, sizeof r, &parsed, &nparts) == CZK_OK, "%s", why);
    CHECK(nparts == info->partitions);
    if (parsed && wire == 0) { /* 8 MiB: 10,007,503 rows are synthesized by the daemon test's sizes only */
      uint32_t part = nparts - 1;
      CHECK(kd.synthesize(kd.user, parsed, part, NULL, &synth) == CZK_OK);
      czk_groth16_assignment *as = synth;
      if (as) {
        CHECK(as->n_rows == 1705039 + 5 && as->n_domain == (1u << 21) && as->w.n_inputs == 5);
        CHECK(czk_r1cs_first_unsatisfied(as->a, as->b, as->c, as->n_rows) == SIZE_MAX);
        kd.synth_free(kd.user, synth);
      }
    }
    if (parsed) kd.parsed_free(kd.user, parsed);
    /* refusals */
    uint8_t bad_comm[32], flipped[32];
    memset(bad_comm, 0xff, 32);
    memcpy(flipped, u.comms.comm_r_new, 32);
    flipped[0] ^= 1;
    struct {
      uint64_t wire, size;
      size_t n;
      czk_bytes old, dnew, rnew;
      size_t trunc; /* bytes cut from the last partition proof */
      const char *why;
    } bad[] = {
        {wire + 1, 0, u.n_parts, r.comm_r_old, r.comm_d_new, r.comm_r_new, 0, "is not the"},
        {wire, 4096, u.n_parts, r.comm_r_old, r.comm_d_new, r.comm_r_new, 0, "disagrees with registered_proof"},
        {wire, 0, u.n_parts, (czk_bytes){u.comms.comm_r_old, 31}, r.comm_d_new, r.comm_r_new, 0,
         "comm_r_old has 31 bytes"},
        {wire, 0, u.n_parts, r.comm_r_old, (czk_bytes){bad_comm, 32}, r.comm_r_new, 0, "comm_d_new is not a canonical"},
        {wire, 0, u.n_parts, r.comm_r_old, r.comm_d_new, (czk_bytes){flipped, 32}, 0, "differs from comm_r_new"},
        {wire, 0, u.n_parts + 1, r.comm_r_old, r.comm_d_new, r.comm_r_new, 0, "one per partition"},
        {wire, 0, u.n_parts, r.comm_r_old, r.comm_d_new, r.comm_r_new, 100, "truncated"},
    };
    czk_bytes vp2[17];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      memcpy(vp2, vp, sizeof vp);
      vp2[16] = vp[0];
      if (bad[i].n > u.n_parts) vp2[u.n_parts] = vp[0];
      vp2[u.n_parts - 1].len -= bad[i].trunc;
      r.registered_proof = bad[i].wire;
      r.sector_size = bad[i].size;
      r.vanilla_proofs = vp2;
      r.n_vanilla_proofs = bad[i].n;
      r.comm_r_old = bad[i].old, r.comm_d_new = bad[i].dnew, r.comm_r_new = bad[i].rnew;
      why[0] = 0;
      parsed = NULL;
      CHECK(kd.parse(kd.user, (const uint8_t *)&r, sizeof r, &parsed, &nparts) != CZK_OK && parsed == NULL);
      CHECK_MSG(strstr(why, bad[i].why) != NULL, "case %zu: %s (wanted %s)", i, why, bad[i].why);
      if (bad[i].trunc)
        CHECK_MSG(strstr(why, "partition") != NULL, "%s", why);
    }
    czk_kind_free(&kd);
    free(bytes);
    czk_snap_update_free(&u);
  }
}

int main(void) {
  test_names();
  test_porep_kind();
  test_snap_kind();
  test_post_counts();
  snprintf(g_dir, sizeof g_dir, "/tmp/czk_tkinds_%d", (int)getpid());
  test_two_keys_one_device(1, false);
  test_two_keys_one_device(1, true);
  test_two_keys_one_device(0, false);
  test_absent_bytes();
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "test_kinds: could not remove %s\n", g_dir);
  return czk_test_done("test_kinds");
}
