/* kind_snap.c: the descriptor of the SnapDeals family "snap-update-<size>" (czk/kinds.h): one kind per sector size. A
 * request is what Curio sends (filecoin-snap.md 2.1): registered_proof (an update proof, 0-4), vanilla_proofs (one
 * bincode PartitionProof per partition, in partition order), comm_r_old, comm_d_new, comm_r_new (32 raw bytes each);
 * sector_number and miner_id are informational. Parse checks everything before anything is queued: the registered
 * proof against the kind and sector_size, the three commitments (32 bytes, canonical), the partition count, every
 * partition proof's bytes and its native checks (czk_snap_check: commitments, paths, challenges, encoding, apex
 * rows); then each partition's four public inputs are recomputed from the request alone. Synthesis evaluates the
 * EmptySectorUpdate circuit straight into the assignment (the common part, then the challenges in parallel); the
 * adapter refuses a witness whose inputs differ from the recomputed ones and self-verifies every partition's proof
 * against them. The job's proof is the partitions' 192-byte proofs concatenated in partition order. Keys: the v28
 * files <param_dir>/<stem>.params / .vk (published or `czk setup --kind snap`), never set up here; the key's outline
 * comes from the common part and one challenge (czk_snap_outline), in seconds at every size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/snap.h"
#include "kinds/kinds_internal.h"

typedef struct snap_cfg {
  const czk_snap_info *info;
} snap_cfg;

typedef struct snap_parsed {
  const czk_snap_info *info;
  czk_snap_comms comms;
  uint32_t n;
  czk_snap_partition *parts;
  czk_fr (*pub)[CZK_SNAP_PUBLIC_INPUTS];
} snap_parsed;

static void snap_parsed_free(void *parsed) {
  snap_parsed *p = parsed;
  if (!p) return;
  for (uint32_t k = 0; k < p->n; k++) czk_snap_partition_free(&p->parts[k]);
  free(p->parts);
  free(p->pub);
  free(p);
}

static czk_status comm_field(const czk_kind_request *r, const czk_bytes *b, const char *name, uint8_t out[32]) {
  if (b->len != 32 || !b->data)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "%s has %zu bytes; it must have 32", name, b->len);
  czk_fr f;
  if (czk_fr_from_bytes_le(&f, b->data) != CZK_OK)
    return czk__kind_reason(r, CZK_ERR_NOT_CANONICAL, "%s is not a canonical field element", name);
  memcpy(out, b->data, 32);
  return CZK_OK;
}

static czk_status snap_parse(void *cfgp, const czk_kind_request *r, void **parsed, uint32_t *nparts) {
  snap_cfg *c = cfgp;
  const czk_snap_info *info = czk_snap_info_by_wire(r->registered_proof);
  if (!info || info != c->info)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "registered_proof %llu is not the %s update proof (wire %llu)",
                            (unsigned long long)r->registered_proof, c->info->size_name,
                            (unsigned long long)c->info->wire);
  if (r->sector_size && r->sector_size != info->sector_size)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "sector_size %llu disagrees with registered_proof %llu (%s)",
                            (unsigned long long)r->sector_size, (unsigned long long)r->registered_proof, info->name);
  czk_snap_comms comms;
  CZK_TRY(comm_field(r, &r->comm_r_old, "comm_r_old", comms.comm_r_old));
  CZK_TRY(comm_field(r, &r->comm_d_new, "comm_d_new", comms.comm_d_new));
  CZK_TRY(comm_field(r, &r->comm_r_new, "comm_r_new", comms.comm_r_new));
  if (r->n_vanilla_proofs != info->partitions)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "%zu vanilla proofs; %s takes exactly %u (one per partition)",
                            r->n_vanilla_proofs, info->name, info->partitions);
  size_t want = czk_snap_partition_size(info);
  for (size_t i = 0; i < r->n_vanilla_proofs; i++)
    if (r->vanilla_proofs[i].len > want + 4096)
      return czk__kind_reason(r, CZK_ERR_LIMIT, "vanilla proof %zu has %zu bytes; a %s partition proof has %zu", i,
                              r->vanilla_proofs[i].len, info->name, want);
  snap_parsed *p = calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  p->info = info;
  p->comms = comms;
  p->parts = calloc(info->partitions, sizeof *p->parts);
  p->pub = calloc(info->partitions, sizeof *p->pub);
  czk_status st = p->parts && p->pub ? CZK_OK : CZK_ERR_NOMEM;
  char which[48];
  for (uint32_t k = 0; k < info->partitions && st == CZK_OK; k++) {
    snprintf(which, sizeof which, "vanilla proof %u (partition %u)", k, k);
    st = czk_snap_partition_parse(info, r->vanilla_proofs[k].data, r->vanilla_proofs[k].len, &p->parts[k], which,
                                  r->error, r->error_len);
    if (st == CZK_OK) p->n++;
    uint64_t tc = czk__clock_now_ns();
    if (st == CZK_OK) st = czk_snap_check(info, &p->comms, &p->parts[k], k, which, r->error, r->error_len);
    if (st == CZK_OK) st = czk_snap_public_inputs(info, &p->comms, k, p->pub[k]);
    czk__kind_check_time(r, tc);
  }
  if (st != CZK_OK) {
    snap_parsed_free(p);
    return st;
  }
  *parsed = p;
  *nparts = info->partitions;
  return CZK_OK;
}

static czk_status snap_outline(void *cfgp, czk_r1cs **out) { return czk_snap_outline(((snap_cfg *)cfgp)->info, out); }
static czk_status snap_walk(void *cfgp, czk_cs *cs) {
  czk_snap_instance inst = {.info = ((snap_cfg *)cfgp)->info};
  return czk_snap_synthesize(cs, &inst);
}

/* Partition `part`'s assignment: the whole of it (czk_snap_evaluate; a/b/c checked row by row by the prover), or the
 * witness alone (czk_snap_witness; the device computes a/b/c from the compiled circuit). */
static czk_status snap_fill(const snap_parsed *p, uint32_t part, czk_pool *pool, bool witness_only,
                            czk_groth16_assignment *out) {
  memset(out, 0, sizeof *out);
  uint64_t ni, na, rows, dom;
  CZK_TRY(czk_snap_assignment_size(p->info, &ni, &na, &rows, &dom));
  out->w.n_inputs = (uint32_t)ni;
  out->w.n_aux = (uint32_t)na;
  out->w.w = czk_alloc_big((ni + na) * sizeof(czk_fr));
  if (!witness_only) {
    out->a = czk_alloc_big(dom * sizeof(czk_fr));
    out->b = czk_alloc_big(dom * sizeof(czk_fr));
    out->c = czk_alloc_big(dom * sizeof(czk_fr));
  }
  out->n_domain = dom;
  out->n_rows = rows;
  czk_status st = out->w.w && (witness_only || (out->a && out->b && out->c)) ? CZK_OK : CZK_ERR_NOMEM;
  czk_snap_instance inst = {.info = p->info, .k = part, .comms = &p->comms, .part = &p->parts[part]};
  if (st == CZK_OK)
    st = witness_only ? czk_snap_witness(&inst, pool, out->w.w)
                      : czk_snap_evaluate(&inst, pool, out->w.w, out->a, out->b, out->c);
  if (st != CZK_OK) czk_groth16_assignment_free(out);
  return st;
}

static czk_status snap_assign(void *cfgp, const void *parsed, uint32_t part, czk_pool *pool,
                              czk_groth16_assignment *out) {
  (void)cfgp;
  return snap_fill(parsed, part, pool, false, out);
}

static czk_status snap_witness_assign(void *cfgp, const void *parsed, uint32_t part, czk_pool *pool,
                                      czk_groth16_assignment *out) {
  (void)cfgp;
  return snap_fill(parsed, part, pool, true, out);
}

static czk_status snap_compile(void *cfgp, czk_compiled **out) {
  return czk_snap_compile(((snap_cfg *)cfgp)->info, out);
}

static czk_status snap_public(void *cfgp, const void *parsed, uint32_t part, const czk_fr **pub, size_t *n) {
  (void)cfgp;
  const snap_parsed *p = parsed;
  *pub = p->pub[part];
  *n = CZK_SNAP_PUBLIC_INPUTS;
  return CZK_OK;
}

static const czk__kind_desc snap_desc = {
    .family = "snap",
    .flavour = CZK__KEY_BELLPERSON,
    .max_partitions = 16,
    .max_input = 0,
    .no_setup = true,
    .parse = snap_parse,
    .parsed_free = snap_parsed_free,
    .outline_new = snap_outline,
    .walk = snap_walk,
    .assign = snap_assign,
    .compile = snap_compile,
    .witness_assign = snap_witness_assign,
    .public_inputs = snap_public,
    .destroy = free,
};

unsigned czk_kind_snap_log_domain(uint64_t sector_size) {
  /* filecoin-snap.md section 7: constraints + 5 inputs round up to 2^21 (2 KiB), 2^24 (8 MiB), 2^26 (512 MiB),
   * 2^27 (32 and 64 GiB); czk_snap_counts gives the same (test_kinds) */
  return sector_size <= (2ull << 10) ? 21 : sector_size <= (8ull << 20) ? 24 : sector_size <= (512ull << 20) ? 26 : 27;
}

czk_status czk_kind_snap_new(czk_engine_kind *out, uint64_t sector_size, const char *param_dir, czk_pool *pool) {
  memset(out, 0, sizeof *out);
  const czk_snap_info *info = czk_snap_info_for_size(sector_size);
  if (!info || !param_dir) return CZK_ERR_INVALID_ARG;
  snap_cfg *c = calloc(1, sizeof *c);
  if (!c) return CZK_ERR_NOMEM;
  c->info = info;
  char name[48], stem[200];
  snprintf(name, sizeof name, "snap-update-%s", info->size_name);
  czk_snap_param_stem(info, stem, sizeof stem);
  czk__kind_spec sp = {.desc = &snap_desc, .cfg = c, .name = name, .key_name = stem,
                       .key_id = czk_snap_circuit_id(info), .keys_dir = param_dir, .pool = pool};
  /* reservation: the synthetic family's at the circuit's domain bounds it (a, b, c of the domain; the witness: 5 + aux
   * < domain elements, written in place by the evaluators, no second copy; densities <= 1); counting the circuit here
   * would cost seconds at daemon start. `czk bench snap` compares it with the measured peak. */
  unsigned k = czk_kind_snap_log_domain(sector_size);
  czk_kind_synthetic_shape(k, czk_pool_threads(pool), &sp.shape, &sp.key_bytes);
  uint64_t nn = 1ull << k;
  sp.device_bytes = 4 * nn * sizeof(czk_g1_affine) + nn * sizeof(czk_g2_affine) + 2 * nn * sizeof(uint32_t);
  return czk__kind_make(out, &sp);
}
