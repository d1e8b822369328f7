/* kind_post.c: the descriptors of the PoSt families (czk/kinds.h): "winning-post-<size>" and "window-post-<size>",
 * one kind per sector size (the registered proofs of both API versions share the circuit and the key). A request is
 * what Curio sends (filecoin-post.md 2.1): registered_proof, randomness, vanilla_proofs (one bincode
 * FallbackPoStSectorProof per sector), partition_index (Window). Parse checks everything before anything is queued:
 * the registered proof against the kind, the randomness (32 bytes, a canonical field element), the sector count, every
 * vanilla proof's bytes and its native check (comm_r, roots, paths, and each path's index = the challenge derived from
 * randomness, sector id, partition and API version); it then recomputes the public inputs from the request alone.
 * Synthesis is the FallbackPoSt circuit (src/filecoin/post_circuit.c); the adapter refuses a witness whose inputs
 * differ from the recomputed ones and self-verifies every proof against them. Keys: the v28 parameter files
 * <param_dir>/<stem>.params / .vk (published ones or `czk setup`'s); a missing key is an error, never a silent setup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/post.h"
#include "kinds/kinds_internal.h"

typedef struct post_cfg {
  czk_post_type type;
  uint64_t sector_size;
  const czk_post_info *info; /* the API 1.0 proof of the size (the circuit) */
} post_cfg;

typedef struct post_parsed {
  const czk_post_info *info; /* the request's registered proof */
  czk_post_sector *sectors;
  size_t n;
  czk_fr *pub;
  size_t n_pub;
} post_parsed;

static void post_parsed_free(void *parsed) {
  post_parsed *p = parsed;
  if (!p) return;
  for (size_t i = 0; i < p->n; i++) czk_post_sector_free(&p->sectors[i]);
  free(p->sectors);
  free(p->pub);
  free(p);
}

static czk_status post_parse(void *cfg, const czk_kind_request *r, void **parsed, uint32_t *nparts) {
  post_cfg *c = cfg;
  const czk_post_info *info = czk_post_info_by_wire(r->registered_proof);
  const char *fam = c->type == CZK_POST_WINNING ? "WinningPoSt" : "WindowPoSt";
  if (!info || info->type != c->type || info->sector_size != c->sector_size)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "registered_proof %llu is not a %s %s proof", (unsigned long long)r->registered_proof,
                  c->info->size_name, fam);
  if (r->sector_size && r->sector_size != info->sector_size)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "sector_size %llu disagrees with registered_proof %llu (%s)",
                  (unsigned long long)r->sector_size, (unsigned long long)r->registered_proof, info->name);
  if (r->randomness.len != 32)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "randomness has %zu bytes; it must have 32", r->randomness.len);
  czk_fr f;
  if (czk_fr_from_bytes_le(&f, r->randomness.data) != CZK_OK)
    return czk__kind_reason(r, CZK_ERR_NOT_CANONICAL, "randomness is not a canonical field element (byte 31 must be masked)");
  size_t n = r->n_vanilla_proofs;
  size_t max = c->type == CZK_POST_WINNING ? 1 : info->sector_count;
  if (n < 1 || n > max)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "%zu vanilla proofs; %s takes %s%zu", n, info->name,
                  c->type == CZK_POST_WINNING ? "exactly " : "1 to ", max);
  size_t want = czk_post_vanilla_size(info);
  for (size_t i = 0; i < n; i++)
    if (r->vanilla_proofs[i].len > want + 4096)
      return czk__kind_reason(r, CZK_ERR_LIMIT, "vanilla proof %zu has %zu bytes; a %s vanilla proof has %zu", i,
                    r->vanilla_proofs[i].len, info->name, want);
  post_parsed *p = calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  p->info = info;
  p->sectors = calloc(n, sizeof *p->sectors);
  p->n_pub = czk_post_num_public_inputs(info);
  p->pub = malloc(p->n_pub * sizeof *p->pub);
  czk_status st = p->sectors && p->pub ? CZK_OK : CZK_ERR_NOMEM;
  char which[48];
  for (size_t i = 0; i < n && st == CZK_OK; i++) {
    snprintf(which, sizeof which, "vanilla proof %zu", i);
    st = czk_post_vanilla_parse(info, r->vanilla_proofs[i].data, r->vanilla_proofs[i].len, &p->sectors[i], which,
                                r->error, r->error_len);
    if (st == CZK_OK) p->n++;
  }
  /* every opening of every sector checked in parallel; the error names the first failing one in request order */
  uint64_t tc = czk__clock_now_ns();
  uint64_t *index = st == CZK_OK ? malloc(n * sizeof *index) : NULL;
  char(*names)[40] = st == CZK_OK ? malloc(n * sizeof *names) : NULL;
  const char **np = st == CZK_OK ? malloc(n * sizeof *np) : NULL;
  if (st == CZK_OK && (!index || !names || !np)) st = CZK_ERR_NOMEM;
  for (size_t i = 0; i < n && st == CZK_OK; i++) {
    index[i] = c->type == CZK_POST_WINNING ? 0 : (uint64_t)r->partition_index * info->sector_count + i;
    snprintf(names[i], sizeof names[i], "vanilla proof %zu", i);
    np[i] = names[i];
  }
  if (st == CZK_OK)
    st = czk_post_vanilla_check_all(info, p->sectors, n, r->randomness.data, index, np, r->error, r->error_len);
  free(index);
  free(names);
  free(np);
  if (st == CZK_OK) {
    uint64_t *ids = malloc(n * sizeof *ids);
    uint8_t(*cr)[32] = malloc(n * 32);
    st = ids && cr ? CZK_OK : CZK_ERR_NOMEM;
    for (size_t i = 0; i < n && st == CZK_OK; i++) ids[i] = p->sectors[i].sector_id, memcpy(cr[i], p->sectors[i].comm_r, 32);
    if (st == CZK_OK)
      st = czk_post_public_inputs(info, ids, (const uint8_t(*)[32])cr, n, r->randomness.data, r->partition_index,
                                  p->pub, p->n_pub);
    free(ids);
    free(cr);
  }
  czk__kind_check_time(r, tc);
  if (st != CZK_OK) {
    post_parsed_free(p);
    return st;
  }
  *parsed = p;
  *nparts = 1;
  return CZK_OK;
}

static czk_status post_outline(void *cfg, czk_r1cs **out) { return czk_post_outline(((post_cfg *)cfg)->info, out); }
static czk_status post_walk(void *cfg, czk_cs *cs) {
  czk_post_instance inst = {.info = ((post_cfg *)cfg)->info};
  return czk_post_synthesize(cs, &inst);
}

/* Partition 0's assignment (slots in parallel): the whole of it (czk_post_evaluate; a/b/c checked row by row by the
 * prover), or the witness alone (czk_post_witness; the device computes a/b/c from the compiled circuit, which every
 * registered proof of the size shares, as it shares the key; the prover checks the counts). */
static czk_status post_fill(const post_parsed *p, czk_pool *pool, bool witness_only, czk_groth16_assignment *out) {
  memset(out, 0, sizeof *out);
  czk_post_slot_counts sc;
  CZK_TRY(czk_post_slot_counts_get(p->info, &sc));
  uint64_t ni, na, rows, dom;
  czk_post_assignment_size(p->info, &sc, &ni, &na, &rows, &dom);
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
  czk_post_instance inst = {.info = p->info, .sectors = p->sectors, .n_sectors = p->n};
  if (st == CZK_OK)
    st = witness_only ? czk_post_witness(&inst, pool, out->w.w)
                      : czk_post_evaluate(&inst, pool, out->w.w, out->a, out->b, out->c);
  if (st != CZK_OK) czk_groth16_assignment_free(out);
  return st;
}

static czk_status post_assign(void *cfg, const void *parsed, uint32_t part, czk_pool *pool,
                              czk_groth16_assignment *out) {
  (void)cfg, (void)part;
  return post_fill(parsed, pool, false, out);
}

static czk_status post_witness_assign(void *cfg, const void *parsed, uint32_t part, czk_pool *pool,
                                      czk_groth16_assignment *out) {
  (void)cfg, (void)part;
  return post_fill(parsed, pool, true, out);
}

static czk_status post_compile(void *cfgp, czk_compiled **out) {
  return czk_post_compile(((post_cfg *)cfgp)->info, out);
}

static czk_status post_public(void *cfg, const void *parsed, uint32_t part, const czk_fr **pub, size_t *n) {
  (void)cfg, (void)part;
  const post_parsed *p = parsed;
  *pub = p->pub;
  *n = p->n_pub;
  return CZK_OK;
}

static const czk__kind_desc post_desc = {
    .family = "post",
    .flavour = CZK__KEY_BELLPERSON,
    .max_partitions = 1,
    .max_input = 0,
    .no_setup = true,
    .parse = post_parse,
    .parsed_free = post_parsed_free,
    .outline_new = post_outline,
    .walk = post_walk,
    .assign = post_assign,
    .compile = post_compile,
    .witness_assign = post_witness_assign,
    .public_inputs = post_public,
    .destroy = free,
};

czk_status czk_kind_post_counts(czk_post_type type, uint64_t sector_size, czk_cs_counts *out) {
  memset(out, 0, sizeof *out);
  const czk_post_info *info = czk_post_info_find(type, sector_size, 0);
  if (!info) return CZK_ERR_INVALID_ARG;
  /* one slot counted, scaled: the slots are identical (czk_post_outline repeats the same slot's densities) */
  czk_post_info one = *info;
  one.slots = 1;
  czk_cs *cs;
  CZK_TRY(czk_cs_counter_new(&cs));
  czk_post_instance inst = {.info = &one};
  czk_cs_counts c;
  czk_status st = czk_post_synthesize(cs, &inst);
  if (st == CZK_OK) st = czk_cs_counter_result(cs, &c);
  czk_cs_free(cs);
  CZK_TRY(st);
  uint64_t n = info->slots;
  out->n_inputs = 1 + n * (c.n_inputs - 1);
  out->n_aux = n * c.n_aux;
  out->n_user_constraints = n * c.n_user_constraints;
  out->n_constraints = out->n_user_constraints + out->n_inputs;
  while ((1ull << out->log_domain) < out->n_constraints) out->log_domain++;
  out->nnz_a = n * (c.nnz_a - c.n_inputs) + out->n_inputs;
  out->nnz_b = n * c.nnz_b;
  out->nnz_c = n * c.nnz_c;
  out->a_aux_count = n * c.a_aux_count;
  out->b_aux_count = n * c.b_aux_count;
  out->b_input_count = c.b_input_count; /* ONE only: no slot input appears in B */
  return CZK_OK;
}

czk_status czk_kind_post_new(czk_engine_kind *out, czk_post_type type, uint64_t sector_size, const char *param_dir,
                             czk_pool *pool) {
  memset(out, 0, sizeof *out);
  const czk_post_info *info = czk_post_info_find(type, sector_size, 0);
  if (!info || !param_dir) return CZK_ERR_INVALID_ARG;
  czk_cs_counts cnt;
  CZK_TRY(czk_kind_post_counts(type, sector_size, &cnt));
  post_cfg *c = calloc(1, sizeof *c);
  if (!c) return CZK_ERR_NOMEM;
  c->type = type;
  c->sector_size = sector_size;
  c->info = info;
  char name[48], stem[200];
  snprintf(name, sizeof name, "%s-%s", type == CZK_POST_WINNING ? "winning-post" : "window-post", info->size_name);
  czk_post_param_stem(info, stem, sizeof stem);
  czk__kind_spec sp = {.desc = &post_desc, .cfg = c, .name = name, .key_name = stem, .key_id = czk_post_circuit_id(info),
                       .keys_dir = param_dir, .pool = pool};
  /* the synthetic family's reservation at the same domain bounds this circuit's (variables <= domain; densities <= 1) */
  unsigned k = cnt.log_domain;
  while ((1ull << k) < cnt.n_inputs + cnt.n_aux) k++;
  czk_kind_synthetic_shape(k, czk_pool_threads(pool), &sp.shape, &sp.key_bytes);
  sp.shape.witness_bytes += (cnt.n_inputs + cnt.n_aux) * sizeof(czk_fr); /* the witness builder's copy */
  uint64_t nn = 1ull << k;
  sp.device_bytes = 4 * nn * sizeof(czk_g1_affine) + nn * sizeof(czk_g2_affine) + 2 * nn * sizeof(uint32_t);
  return czk__kind_make(out, &sp);
}
