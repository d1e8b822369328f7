/* demo_filecoin.c: the Filecoin jobs of `czk demo` (demo.h): WinningPoSt, one WindowPoSt partition, PoRep C2 (all
 * its partitions) and a SnapDeals update at one sector size.
 *
 * Nothing here is the demo's own version of a Filecoin step: keys are made by the code of `czk setup --kind`
 * (czk__setup_kind_to: a real Groth16 setup from fresh OS randomness, written as <keys>/<v28 stem>.params and .vk),
 * requests are written by the code of `czk gen-vanilla` (czk__gen_vanilla_*_to: a real sector of random data sealed,
 * or updated, and its vanilla proofs: the bytes Curio sends), the SubmitProofRequest is filled from request.json by
 * the code of `czk prove --request` (czk__submit_from_fc_request), and each returned proof is checked by the code of
 * `czk verify --request` (czk__verify_request: native checks of the request, public inputs recomputed, every
 * partition's proof against the .vk).
 * Invariants: a key found under its v28 name (both files) is reused, never made again; priorities are the
 * reference's (WinningPoSt critical, WindowPoSt high, PoRep and SnapDeals normal); a job's row counts only the
 * partitions that verified here, so a proof the daemon returned but that does not verify shows as n-1/n. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/client.h"
#include "cli/cli.h"
#include "cli/demo.h"
#include "core/atomicfile.h"
#include "core/clock.h"
#include "core/fault.h"
#include "czk/kinds.h"
#include "czk/log.h"
#include "czk/porep.h"
#include "czk/post.h"
#include "czk/snap.h"
#include "filecoin/request.h"

const char *const czk__demo_fc_names[CZK__DEMO_FC_KINDS] = {"winning-post", "window-post", "porep", "snap"};
/* the reference's priorities (Curio: WinningPoSt is on the chain's clock, WindowPoSt on the deadline's) */
static const int k_priority[CZK__DEMO_FC_KINDS] = {CUZK__V1__PRIORITY__CRITICAL, CUZK__V1__PRIORITY__HIGH,
                                                   CUZK__V1__PRIORITY__NORMAL, CUZK__V1__PRIORITY__NORMAL};

static bool is_file(const char *path) {
  struct stat s;
  return stat(path, &s) == 0 && S_ISREG(s.st_mode) && s.st_size > 0;
}

int czk__demo_fc_keys(const char *keys, uint64_t sector_size, const bool on[CZK__DEMO_FC_KINDS], double *setup_s) {
  *setup_s = 0;
  for (int f = 0; f < CZK__DEMO_FC_KINDS; f++) {
    if (!on[f]) continue;
    czk_fc_circuit fc;
    if (czk_fc_circuit_find(&fc, czk__demo_fc_names[f], sector_size) != CZK_OK) {
      fprintf(stderr, "czk demo: %s has no registered proof for %llu-byte sectors\n", czk__demo_fc_names[f],
              (unsigned long long)sector_size);
      return 1;
    }
    char params[4400], vk[4400];
    snprintf(params, sizeof params, "%s/%s.params", keys, fc.stem);
    snprintf(vk, sizeof vk, "%s/%s.vk", keys, fc.stem);
    if (is_file(params) && is_file(vk)) continue;
    printf("czk demo: setting up the %s key (a real Groth16 setup, once: %.40s...params) ...", fc.id, fc.stem);
    fflush(stdout);
    double t0 = czk__now_s();
    czk_log_level was = czk_log_get_level(); /* the setup's phase timings stay off the demo's screen */
    if (was < CZK_LOG_WARN) czk_log_set_level(CZK_LOG_WARN);
    int rc = czk__setup_kind_to(&fc, NULL, "cpu", NULL, -1, keys, true);
    czk_log_set_level(was);
    if (rc != 0) {
      printf("\n");
      return 1;
    }
    double t = czk__now_s() - t0;
    *setup_s += t;
    printf(" %.1f s\n", t);
  }
  return 0;
}

int czk__demo_fc_generate(czk__demo_fc *j, int family, uint64_t sector_size, uint64_t seed, const char *dir,
                          const char *addr) {
  memset(j, 0, sizeof *j);
  j->family = family;
  j->addr = addr;
  j->row.priority = k_priority[family];
  snprintf(j->dir, sizeof j->dir, "%s/%s", dir, czk__demo_fc_names[family]);
  czk_fc_circuit fc;
  if (czk_fc_circuit_find(&fc, czk__demo_fc_names[family], sector_size) != CZK_OK) return 1;
  snprintf(j->circuit, sizeof j->circuit, "%s", fc.id);
  const uint64_t miner = 1000, sector = 1 + seed % 1000000;
  int rc = 1;
  switch (family) {
  case CZK__DEMO_WINNING:
  case CZK__DEMO_WINDOW: { /* API 1.2 (gen-vanilla's default): WindowPoSt V1_2 */
    const czk_post_info *info =
        czk_post_info_find(family == CZK__DEMO_WINNING ? CZK_POST_WINNING : CZK_POST_WINDOW, sector_size, 2);
    if (info) j->row.parts = 1;
    if (info) /* a full partition: every sector slot of a WindowPoSt partition holds a sector */
      rc = czk__gen_vanilla_post_to(info, CZK_POST_GEN_DENSE, seed, sector, miner, 0,
                                    family == CZK__DEMO_WINNING ? 1 : info->sector_count, NULL, j->dir, true);
    break;
  }
  case CZK__DEMO_POREP: { /* v1.1 (gen-vanilla's default mode): the registered proof Curio seals with */
    const czk_porep_info *size = czk_porep_info_for_size(sector_size);
    const czk_porep_info *info = size ? czk_porep_info_by_wire(5 + size->wire % 5) : NULL;
    if (info) j->row.parts = info->partitions;
    if (info) rc = czk__gen_vanilla_porep_to(info, CZK_POREP_GEN_DENSE, seed, miner, sector, j->dir, true);
    break;
  }
  case CZK__DEMO_SNAP: {
    const czk_snap_info *info = czk_snap_info_for_size(sector_size);
    if (info) j->row.parts = info->partitions;
    if (info) rc = czk__gen_vanilla_snap_to(info, CZK_SNAP_GEN_DENSE, seed, miner, sector, j->dir, true);
    break;
  }
  default: break;
  }
  if (rc != 0) return 1;
  /* the engine's name for the request's kind, from the same map the daemon uses */
  char path[4300], err[256];
  snprintf(path, sizeof path, "%s/request.json", j->dir);
  czk__fc_request q;
  if (czk__fc_request_load(path, &q, err, sizeof err) != 0) return fprintf(stderr, "czk demo: %s\n", err), 1;
  czk_kind_request kr = {.proof_kind = (uint32_t)q.proof_kind, .sector_size = q.sector_size,
                         .registered_proof = q.registered_proof};
  czk_status st = czk_kind_name_for(&kr, 0, j->row.kind, sizeof j->row.kind, err, sizeof err);
  czk__fc_request_free(&q);
  if (st != CZK_OK) return fprintf(stderr, "czk demo: %s: %s\n", path, err), 1;
  return 0;
}

void *czk__demo_fc_prove(void *arg) {
  czk__demo_fc *j = arg;
  czk__demo_row *row = &j->row;
  char path[4300];
  snprintf(path, sizeof path, "%s/request.json", j->dir);
  czk__fc_request q;
  if (czk__fc_request_load(path, &q, row->err, sizeof row->err) != 0) {
    row->code = -1;
    return NULL;
  }
  Cuzk__V1__SubmitProofRequest r = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  ProtobufCBinaryData *vps = NULL;
  if (czk__submit_from_fc_request(&r, &q, &vps) != 0) {
    czk__fc_request_free(&q);
    snprintf(row->err, sizeof row->err, "out of memory");
    row->code = -1;
    return NULL;
  }
  r.priority = (Cuzk__V1__Priority)row->priority;
  Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
  pr.submit = &r;
  ProtobufCMessage *out;
  double t0 = czk__now_s();
  row->code = czk__client_call(j->addr, "/cuzk.v1.ProvingEngine/Prove", &pr.base,
                               &cuzk__v1__prove_response__descriptor, &out, 0, true, row->err, sizeof row->err);
  row->wall_s = czk__now_s() - t0;
  free(vps);
  czk__fc_request_free(&q);
  if (row->code) return NULL;
  Cuzk__V1__AwaitProofResponse *a = ((Cuzk__V1__ProveResponse *)out)->result;
  if (a) {
    row->status = a->status;
    snprintf(row->job_id, sizeof row->job_id, "%s", a->job_id);
    if (a->error_message && *a->error_message) snprintf(row->err, sizeof row->err, "%s", a->error_message);
    snprintf(path, sizeof path, "%s/proof.bin", j->dir);
    /* fault site demo.proof (tests): a bit of the returned proof flipped before it is checked here, as a proof
     * damaged on its way would be; the check below must then fail the job */
    if (a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED && a->proof.len &&
        czk_fault("demo.proof") != CZK_FAULT_NONE)
      a->proof.data[a->proof.len - 1] ^= 1;
    if (a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED &&
        czk__write_file_atomic(path, a->proof.data, a->proof.len) != CZK_OK)
      snprintf(row->err, sizeof row->err, "cannot write the proof into %.150s", j->dir);
  }
  protobuf_c_message_free_unpacked(out, NULL);
  return NULL;
}

void czk__demo_fc_verify(czk__demo_fc *j, const char *keys) {
  if (j->row.code != 0 || j->row.status != CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) return;
  char req[4300], proof[4300];
  snprintf(req, sizeof req, "%s/request.json", j->dir);
  snprintf(proof, sizeof proof, "%s/proof.bin", j->dir);
  czk__verify_result res;
  int rc = czk__verify_request(req, proof, keys, NULL, &res);
  j->row.verified = res.verified;
  if (rc != 0 && !j->row.err[0])
    snprintf(j->row.err, sizeof j->row.err, "%u of %u partition proofs do not verify (czk verify --request)",
             res.partitions - res.verified, res.partitions);
}
