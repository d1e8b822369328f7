/* kind_porep.c: the descriptor of the PoRep C2 family "porep-c2-<size>" (czk/kinds.h): one kind per sector size
 * (every registered variant of a size shares the circuit and the key). A request is what Curio sends
 * (filecoin-porep.md 2.1): registered_proof, miner_id, sector_number and vanilla_proof = cuzk's envelope (or a bare C1
 * output). Parse decodes and reads the C1 output, checks that it names the request's registered proof and size, runs
 * every native check (czk_porep_c1_check) and recomputes each partition's public inputs from public data; nothing
 * that fails reaches a synthesis worker. Synthesis evaluates the circuit straight into the assignment (no matrices);
 * the key comes from the circuit's outline. Keys: the v28 files by name in param_dir, never set up here.
 * Synthetic PoRep (ids 10-14) and non-interactive PoRep (ids 15-19) prove with the same circuit and key; their
 * challenges are derived in their own way (czk_porep_challenge_at). A non-interactive job returns its 13 / 126 partition
 * proofs concatenated (seal_commit_phase2_circuit_proofs' form), not a SnarkPack aggregate. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/porep.h"
#include "kinds/kinds_internal.h"

#define MAX_C1_BYTES ((size_t)512 << 20)

typedef struct porep_cfg {
  const czk_porep_info *info; /* the size's V1_1 proof (the circuit) */
  czk_porep_circuit circuit;
  pthread_mutex_t mu;
  bool counted;
  czk_cs_counts counts;
} porep_cfg;

typedef struct porep_parsed {
  czk_porep_c1 c1;
  size_t n_pub;
  czk_fr *pub; /* partitions * n_pub */
} porep_parsed;

static void porep_parsed_free(void *parsed) {
  porep_parsed *p = parsed;
  if (!p) return;
  czk_porep_c1_free(&p->c1);
  free(p->pub);
  free(p);
}

static czk_status porep_parse(void *cfgp, const czk_kind_request *r, void **parsed, uint32_t *nparts) {
  porep_cfg *c = cfgp;
  const czk_porep_info *info = czk_porep_info_by_wire(r->registered_proof);
  if (!info || info->sector_size != c->info->sector_size)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "registered_proof %llu is not a %s seal proof",
                  (unsigned long long)r->registered_proof, c->info->size_name);
  if (r->sector_size && r->sector_size != info->sector_size)
    return czk__kind_reason(r, CZK_ERR_INVALID_ARG, "sector_size %llu disagrees with registered_proof %llu (%s)",
                  (unsigned long long)r->sector_size, (unsigned long long)r->registered_proof, info->name);
  porep_parsed *p = calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  uint64_t env_num = 0, env_size = 0;
  czk_status st = czk_porep_c1_read(&p->c1, r->vanilla_proof.data, r->vanilla_proof.len, &env_num, &env_size,
                                    r->error, r->error_len);
  uint64_t sector = r->sector_number ? r->sector_number : env_num;
  if (st == CZK_OK && env_size && env_size != info->sector_size)
    st = czk__kind_reason(r, CZK_ERR_INVALID_ARG, "the envelope's SectorSize %llu is not %s", (unsigned long long)env_size,
                info->size_name);
  else if (st == CZK_OK && env_num && r->sector_number && env_num != r->sector_number)
    st = czk__kind_reason(r, CZK_ERR_INVALID_ARG, "the envelope's SectorNum %llu disagrees with sector_number %llu",
                (unsigned long long)env_num, (unsigned long long)r->sector_number);
  if (st == CZK_OK && p->c1.info != info)
    st = czk__kind_reason(r, CZK_ERR_INVALID_ARG, "the C1 output is a %s proof, the request says %s", p->c1.info->name,
                info->name);
  uint64_t tc = czk__clock_now_ns();
  if (st == CZK_OK) st = czk_porep_c1_check(&p->c1, r->miner_id, sector, r->error, r->error_len);
  if (st == CZK_OK) {
    p->n_pub = 3 + 18 * (size_t)info->challenges;
    p->pub = malloc(info->partitions * p->n_pub * sizeof *p->pub);
    if (!p->pub) st = CZK_ERR_NOMEM;
    for (uint32_t k = 0; k < info->partitions && st == CZK_OK; k++)
      st = czk_porep_public_inputs(info, p->c1.replica_id, p->c1.comm_d, p->c1.comm_r, p->c1.seed, k,
                                   p->pub + k * p->n_pub, p->n_pub);
  }
  czk__kind_check_time(r, tc);
  if (st != CZK_OK) {
    porep_parsed_free(p);
    return st;
  }
  *parsed = p;
  *nparts = info->partitions;
  return CZK_OK;
}

static czk_status counts_of(porep_cfg *c, czk_cs_counts *out) {
  pthread_mutex_lock(&c->mu);
  czk_status st = CZK_OK;
  if (!c->counted) {
    st = czk_porep_counts(&c->circuit, &c->counts);
    c->counted = st == CZK_OK;
  }
  *out = c->counts;
  pthread_mutex_unlock(&c->mu);
  return st;
}

static czk_status porep_outline(void *cfgp, czk_r1cs **out) {
  porep_cfg *c = cfgp;
  return czk_porep_outline(&c->circuit, out);
}
static czk_status porep_walk(void *cfgp, czk_cs *cs) { return czk_porep_synthesize(cs, &((porep_cfg *)cfgp)->circuit, NULL); }

/* Partition `part`'s assignment: the circuit evaluated into w and a/b/c (its challenges in parallel on the pool), then
 * the input rows. */
static czk_status porep_assign(void *cfgp, const void *parsed, uint32_t part, czk_pool *pool,
                               czk_groth16_assignment *out) {
  porep_cfg *c = cfgp;
  const porep_parsed *p = parsed;
  memset(out, 0, sizeof *out);
  czk_cs_counts n;
  CZK_TRY(counts_of(c, &n));
  uint64_t dom = 1ull << n.log_domain;
  out->w.n_inputs = (uint32_t)n.n_inputs;
  out->w.n_aux = (uint32_t)n.n_aux;
  out->w.w = czk_alloc_big((n.n_inputs + n.n_aux) * sizeof(czk_fr));
  out->a = czk_alloc_big(dom * sizeof(czk_fr));
  out->b = czk_alloc_big(dom * sizeof(czk_fr));
  out->c = czk_alloc_big(dom * sizeof(czk_fr));
  out->n_domain = dom;
  out->n_rows = n.n_constraints;
  czk_status st = out->w.w && out->a && out->b && out->c ? CZK_OK : CZK_ERR_NOMEM;
  if (st == CZK_OK) {
    czk_porep_partition vals;
    czk_porep_c1_partition(&p->c1, part, &vals);
    czk_porep_eval_out o = {out->w.w, n.n_inputs, n.n_aux, n.n_user_constraints, out->a, out->b, out->c};
    st = czk_porep_evaluate(&c->circuit, &vals, pool, &o);
  }
  if (st == CZK_OK) {
    uint64_t m = n.n_user_constraints;
    for (uint64_t i = 0; i < n.n_inputs; i++) {
      out->a[m + i] = out->w.w[i];
      czk_fr_set_zero(&out->b[m + i]);
      czk_fr_set_zero(&out->c[m + i]);
    }
    size_t tail = (size_t)(dom - n.n_constraints) * sizeof(czk_fr);
    memset(out->a + n.n_constraints, 0, tail);
    memset(out->b + n.n_constraints, 0, tail);
    memset(out->c + n.n_constraints, 0, tail);
  }
  if (st != CZK_OK) czk_groth16_assignment_free(out);
  return st;
}

static czk_status porep_compile(void *cfgp, czk_compiled **out) {
  porep_cfg *c = cfgp;
  return czk_porep_compile(&c->circuit, czk_porep_circuit_id(c->info), out);
}

/* Partition `part`'s witness alone (czk_porep_witness): the device computes a/b/c from the compiled circuit. */
static czk_status porep_witness_assign(void *cfgp, const void *parsed, uint32_t part, czk_pool *pool,
                                       czk_groth16_assignment *out) {
  porep_cfg *c = cfgp;
  const porep_parsed *p = parsed;
  memset(out, 0, sizeof *out);
  czk_cs_counts n;
  CZK_TRY(counts_of(c, &n));
  out->w.n_inputs = (uint32_t)n.n_inputs;
  out->w.n_aux = (uint32_t)n.n_aux;
  out->w.w = czk_alloc_big((n.n_inputs + n.n_aux) * sizeof(czk_fr));
  out->n_domain = 1ull << n.log_domain;
  out->n_rows = n.n_constraints;
  czk_status st = out->w.w ? CZK_OK : CZK_ERR_NOMEM;
  if (st == CZK_OK) {
    czk_porep_partition vals;
    czk_porep_c1_partition(&p->c1, part, &vals);
    st = czk_porep_witness(&c->circuit, &vals, pool, out->w.w, n.n_inputs, n.n_aux);
  }
  if (st != CZK_OK) czk_groth16_assignment_free(out);
  return st;
}

static czk_status porep_public(void *cfgp, const void *parsed, uint32_t part, const czk_fr **pub, size_t *n) {
  (void)cfgp;
  const porep_parsed *p = parsed;
  *pub = p->pub + part * p->n_pub;
  *n = p->n_pub;
  return CZK_OK;
}

static void porep_destroy(void *cfgp) {
  porep_cfg *c = cfgp;
  if (!c) return;
  pthread_mutex_destroy(&c->mu);
  free(c);
}

static const czk__kind_desc porep_desc = {
    .family = "porep",
    .flavour = CZK__KEY_BELLPERSON,
    .max_partitions = 126,
    .max_input = MAX_C1_BYTES,
    .no_setup = true,
    .parse = porep_parse,
    .parsed_free = porep_parsed_free,
    .outline_new = porep_outline,
    .walk = porep_walk,
    .assign = porep_assign,
    .compile = porep_compile,
    .witness_assign = porep_witness_assign,
    .public_inputs = porep_public,
    .destroy = porep_destroy,
};

czk_status czk_kind_porep_new(czk_engine_kind *out, uint64_t sector_size, const char *param_dir, czk_pool *pool) {
  memset(out, 0, sizeof *out);
  const czk_porep_info *info = czk_porep_info_for_size(sector_size);
  if (!info || !param_dir) return CZK_ERR_INVALID_ARG;
  porep_cfg *c = calloc(1, sizeof *c);
  if (!c) return CZK_ERR_NOMEM;
  c->info = info;
  czk_porep_circuit_of(info, &c->circuit);
  pthread_mutex_init(&c->mu, NULL);
  char name[48], stem[240];
  snprintf(name, sizeof name, "porep-c2-%s", info->size_name);
  czk_porep_param_stem(info, stem, sizeof stem);
  czk__kind_spec sp = {.desc = &porep_desc, .cfg = c, .name = name, .key_name = stem,
                       .key_id = czk_porep_circuit_id(info), .keys_dir = param_dir, .pool = pool};
  /* reservation: the domain of filecoin-porep.md 3.8 (2^22 / 2^22 / 2^23 / 2^27 / 2^27), as the synthetic family's at
   * that size bounds it: a, b, c are 3 x domain elements; the witness (inputs + aux, fewer than the domain at every
   * size) is written in place by the evaluator, no copy; counting the circuit here would take minutes at 32 GiB */
  unsigned k = sector_size <= (8ull << 20) ? 22 : sector_size <= (512ull << 20) ? 23 : 27;
  czk_kind_synthetic_shape(k, czk_pool_threads(pool), &sp.shape, &sp.key_bytes);
  uint64_t nn = 1ull << k;
  sp.device_bytes = 4 * nn * sizeof(czk_g1_affine) + nn * sizeof(czk_g2_affine) + 2 * nn * sizeof(uint32_t);
  return czk__kind_make(out, &sp);
}
