/* post_circuit.c: FallbackPoStCircuit::synthesize (rust-fil-proofs storage-proofs-post fallback/circuit.rs),
 * constraint for constraint (filecoin-post.md section 4). Per slot: comm_r_last, comm_c, comm_r allocated (aux, in that
 * order), comm_r inputized, comm_r = Poseidon_2(comm_c, comm_r_last), then per inclusion proof the PoR gadget with the
 * slot's comm_r_last variable as its (private) root: leaf, per level the index bits then the siblings, insert, the
 * level hash; the path bits packed into one input (the leaf challenge); computed root * ONE = comm_r_last.
 * Slots past the real sectors repeat the last sector (WindowPoSt padding); WinningPoSt unrolls its 66 openings into
 * 66 slots of one opening each. Cost per slot: 313 + C * (530 * base levels + 530 (sub 8) + 314 (top 2) + 2). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "czk/gadgets.h"
#include "czk/post.h"

static czk_status fr_of(czk_fr *out, const uint8_t b[32], bool values) {
  if (!values) {
    czk_fr_set_zero(out);
    return CZK_OK;
  }
  return czk_fr_from_bytes_le(out, b);
}

czk_status czk_post_synthesize(czk_cs *cs, const czk_post_instance *inst) {
  if (!cs || !inst || !inst->info) return CZK_ERR_INVALID_ARG;
  const czk_post_info *info = inst->info;
  bool values = czk_cs_has_values(cs);
  if (values && (!inst->sectors || inst->n_sectors < 1)) return CZK_ERR_INVALID_ARG;
  if (inst->sectors) {
    if (info->type == CZK_POST_WINNING ? inst->n_sectors != 1 : inst->n_sectors > info->sector_count)
      return CZK_ERR_SIZE_MISMATCH;
    for (size_t i = 0; i < inst->n_sectors; i++)
      if (inst->sectors[i].n_openings != info->challenge_count || !inst->sectors[i].openings)
        return CZK_ERR_SIZE_MISMATCH;
  }
  unsigned nlev = czk_post_levels(info);
  czk_fc_path_level path[CZK_POST_MAX_LEVELS];
  memset(path, 0, sizeof path);
  for (unsigned l = 0; l < nlev; l++) path[l].arity = czk_post_level_arity(info, l);
  const czk_poseidon *p2;
  CZK_TRY(czk_poseidon_get(&p2, 2, CZK_POSEIDON_STANDARD));

  uint32_t s0 = inst->slot_begin, s1 = inst->slot_end ? inst->slot_end : info->slots;
  if (s0 > s1 || s1 > info->slots) return CZK_ERR_INVALID_ARG;
  for (uint32_t slot = s0; slot < s1; slot++) {
    /* the sector behind this slot and its first opening */
    const czk_post_sector *s = NULL;
    uint32_t first = 0;
    if (inst->sectors) {
      if (info->type == CZK_POST_WINNING) {
        s = &inst->sectors[0];
        first = slot;
      } else {
        s = &inst->sectors[slot < inst->n_sectors ? slot : inst->n_sectors - 1];
      }
    }
    czk_fr v_crl, v_cc, v_cr;
    CZK_TRY(fr_of(&v_crl, s ? s->comm_r_last : NULL, s && values));
    CZK_TRY(fr_of(&v_cc, s ? s->comm_c : NULL, s && values));
    CZK_TRY(fr_of(&v_cr, s ? s->comm_r : NULL, s && values));
    czk_num crl, cc, cr, h;
    CZK_TRY(czk_num_alloc(cs, &crl, &v_crl));
    CZK_TRY(czk_num_alloc(cs, &cc, &v_cc));
    CZK_TRY(czk_num_alloc(cs, &cr, &v_cr));
    CZK_TRY(czk_num_inputize(cs, &cr));
    czk_num pre[2] = {cc, crl};
    CZK_TRY(czk_poseidon_gadget(cs, &h, p2, CZK_POSEIDON_MERKLE_TREE, 0, pre, 2));
    CZK_TRY(czk_num_enforce_equal(cs, &cr, &h));
    for (uint32_t j = 0; j < info->slot_challenges; j++) {
      czk_fc_por por;
      memset(&por, 0, sizeof por);
      por.base_arity = info->base;
      por.sub_arity = info->sub;
      por.top_arity = info->top;
      por.n_levels = nlev;
      por.hasher = CZK_FC_POSEIDON;
      por.private_root = true;
      por.root_var = &crl;
      if (s && values) {
        const czk_post_opening *o = &s->openings[first + j];
        unsigned si = 0;
        for (unsigned l = 0; l < nlev; l++) {
          path[l].index = o->index[l];
          memcpy(path[l].siblings, o->sib[si], (size_t)(path[l].arity - 1) * 32);
          si += path[l].arity - 1;
        }
        memcpy(por.leaf, o->leaf, 32);
        memcpy(por.root, s->comm_r_last, 32);
        por.path = path;
      }
      CZK_TRY(czk_fc_por_circuit(cs, &por));
    }
  }
  return czk_cs_status(cs);
}

/* ------------------------------------------------------------------------------------------------ assignment */
static pthread_mutex_t g_counts_mu = PTHREAD_MUTEX_INITIALIZER;
static czk_post_slot_counts g_counts[CZK_POST_N_PROOFS];
static bool g_counted[CZK_POST_N_PROOFS];

czk_status czk_post_slot_counts_get(const czk_post_info *info, czk_post_slot_counts *out) {
  if (!info || info->wire >= CZK_POST_N_PROOFS) return CZK_ERR_INVALID_ARG;
  pthread_mutex_lock(&g_counts_mu);
  bool have = g_counted[info->wire];
  if (have) *out = g_counts[info->wire];
  pthread_mutex_unlock(&g_counts_mu);
  if (have) return CZK_OK;
  czk_cs *cs;
  CZK_TRY(czk_cs_counter_new(&cs));
  czk_post_instance one = {info, NULL, 0, 0, 1};
  czk_status st = czk_post_synthesize(cs, &one);
  if (st == CZK_OK) {
    out->aux = czk_cs_num_aux(cs);
    out->inputs = czk_cs_num_inputs(cs) - 1;
    out->constraints = czk_cs_num_constraints(cs);
  }
  czk_cs_free(cs);
  CZK_TRY(st);
  pthread_mutex_lock(&g_counts_mu);
  g_counts[info->wire] = *out;
  g_counted[info->wire] = true;
  pthread_mutex_unlock(&g_counts_mu);
  return CZK_OK;
}

void czk_post_assignment_size(const czk_post_info *info, const czk_post_slot_counts *sc, uint64_t *n_inputs,
                              uint64_t *n_aux, uint64_t *n_rows, uint64_t *n_domain) {
  *n_inputs = 1 + (uint64_t)info->slots * sc->inputs;
  *n_aux = (uint64_t)info->slots * sc->aux;
  *n_rows = (uint64_t)info->slots * sc->constraints + *n_inputs;
  uint64_t d = 1;
  while (d < *n_rows) d <<= 1;
  *n_domain = d;
}

typedef struct eval_ctx {
  const czk_post_instance *inst;
  czk_post_slot_counts sc;
  uint64_t n_inputs;
  czk_fr *w, *a, *b, *c; /* a, b, c NULL: witness only */
  pthread_mutex_t mu;
  czk_status st;
} eval_ctx;

static void eval_slots(void *arg, size_t begin, size_t end) {
  eval_ctx *x = arg;
  czk_cs_eval_out o = {
      .inputs = x->w + 1 + begin * x->sc.inputs,
      .inputs_cap = (end - begin) * x->sc.inputs,
      .aux = x->w + x->n_inputs + begin * x->sc.aux,
      .aux_cap = (end - begin) * x->sc.aux,
      .a = x->a ? x->a + begin * x->sc.constraints : NULL,
      .b = x->b ? x->b + begin * x->sc.constraints : NULL,
      .c = x->c ? x->c + begin * x->sc.constraints : NULL,
      .rows_cap = (end - begin) * x->sc.constraints,
  };
  czk_cs *cs;
  czk_status st;
  czk_fr *in_local = NULL; /* witness only: ONE then the slots' inputs, copied to w at the end */
  if (x->a) {
    st = czk_cs_evaluator_new(&cs, &o);
  } else {
    in_local = malloc((1 + o.inputs_cap) * sizeof *in_local);
    st = in_local ? CZK_OK : CZK_ERR_NOMEM;
    if (st == CZK_OK) {
      in_local[0] = czk_fr_one_v;
      czk_cs_witness_at wa = {in_local, o.aux, 1, 0, 0, o.inputs_cap, o.aux_cap, o.rows_cap};
      st = czk_cs_witness_continue(&cs, &wa);
    }
  }
  if (st == CZK_OK) {
    czk_post_instance part = *x->inst;
    part.slot_begin = (uint32_t)begin;
    part.slot_end = (uint32_t)end;
    st = czk_post_synthesize(cs, &part);
    /* every slot fills exactly its slice */
    if (st == CZK_OK && (czk_cs_num_aux(cs) != o.aux_cap || czk_cs_num_inputs(cs) != o.inputs_cap + 1 ||
                         czk_cs_num_constraints(cs) != o.rows_cap))
      st = CZK_ERR_INTERNAL;
    czk_cs_free(cs);
    if (st == CZK_OK && in_local) memcpy(o.inputs, in_local + 1, o.inputs_cap * sizeof *in_local);
  }
  free(in_local);
  if (st != CZK_OK) {
    pthread_mutex_lock(&x->mu);
    if (x->st == CZK_OK) x->st = st;
    pthread_mutex_unlock(&x->mu);
  }
}

/* The assignment (a, b, c set) or the witness alone (a, b, c NULL). */
static czk_status assign(const czk_post_instance *inst, czk_pool *pool, czk_fr *w, czk_fr *a, czk_fr *b, czk_fr *c) {
  if (!inst || !inst->info || !inst->sectors || !w || inst->slot_begin || inst->slot_end) return CZK_ERR_INVALID_ARG;
  const czk_post_info *info = inst->info;
  eval_ctx x;
  memset(&x, 0, sizeof x);
  x.inst = inst;
  CZK_TRY(czk_post_slot_counts_get(info, &x.sc));
  uint64_t n_aux, n_rows, n_domain;
  czk_post_assignment_size(info, &x.sc, &x.n_inputs, &n_aux, &n_rows, &n_domain);
  x.w = w, x.a = a, x.b = b, x.c = c;
  pthread_mutex_init(&x.mu, NULL);
  w[0] = czk_fr_one_v;
  czk_pool_parallel_for(pool, info->slots, 1, eval_slots, &x);
  pthread_mutex_destroy(&x.mu);
  CZK_TRY(x.st);
  if (!a) return CZK_OK; /* witness only */
  /* the prover's rows `input_i * 0 = 0`, then the domain's zero tail */
  uint64_t m = (uint64_t)info->slots * x.sc.constraints;
  for (uint64_t i = 0; i < x.n_inputs; i++) {
    a[m + i] = w[i];
    czk_fr_set_zero(&b[m + i]);
    czk_fr_set_zero(&c[m + i]);
  }
  memset(a + n_rows, 0, (n_domain - n_rows) * sizeof(czk_fr));
  memset(b + n_rows, 0, (n_domain - n_rows) * sizeof(czk_fr));
  memset(c + n_rows, 0, (n_domain - n_rows) * sizeof(czk_fr));
  return CZK_OK;
}

czk_status czk_post_evaluate(const czk_post_instance *inst, czk_pool *pool, czk_fr *w, czk_fr *a, czk_fr *b,
                             czk_fr *c) {
  if (!a || !b || !c) return CZK_ERR_INVALID_ARG;
  return assign(inst, pool, w, a, b, c);
}

czk_status czk_post_witness(const czk_post_instance *inst, czk_pool *pool, czk_fr *w) {
  return assign(inst, pool, w, NULL, NULL, NULL);
}

static void bit_set(uint64_t *bits, uint64_t i) { bits[i >> 6] |= (uint64_t)1 << (i & 63); }

czk_status czk_post_outline(const czk_post_info *info, czk_r1cs **out) {
  *out = NULL;
  if (!info) return CZK_ERR_INVALID_ARG;
  /* one slot counted (its densities), then repeated: every slot has the same structure at its own offsets */
  czk_cs *cs;
  CZK_TRY(czk_cs_counter_new(&cs));
  czk_post_instance one = {info, NULL, 0, 0, 1};
  czk_status st = czk_post_synthesize(cs, &one);
  czk_r1cs *s1 = NULL;
  if (st != CZK_OK) czk_cs_free(cs);
  else st = czk_cs_counter_finish(cs, &s1);
  CZK_TRY(st);
  uint64_t n = info->slots, ips = s1->n_inputs - 1, aux = s1->n_aux;
  uint64_t n_inputs = 1 + n * ips, n_aux = n * aux, cons = n * s1->n_user_constraints;
  if (n_inputs > UINT32_MAX || n_aux > UINT32_MAX || cons + n_inputs > UINT32_MAX) {
    czk_r1cs_free(s1);
    return CZK_ERR_LIMIT;
  }
  czk_r1cs *r;
  st = czk_r1cs_outline_new(&r, (uint32_t)n_inputs, (uint32_t)n_aux, (uint32_t)cons);
  if (st != CZK_OK) {
    czk_r1cs_free(s1);
    return st;
  }
  for (uint64_t j = 0; j < aux; j++) {
    bool da = czk_density_get(s1->a_aux_density, j), db = czk_density_get(s1->b_aux_density, j);
    for (uint64_t k = 0; k < n && (da || db); k++) {
      if (da) bit_set(r->a_aux_density, k * aux + j);
      if (db) bit_set(r->b_aux_density, k * aux + j);
    }
  }
  if (czk_density_get(s1->b_input_density, 0)) bit_set(r->b_input_density, 0);
  for (uint64_t i = 1; i <= ips; i++)
    for (uint64_t k = 0; k < n && czk_density_get(s1->b_input_density, i); k++)
      bit_set(r->b_input_density, 1 + k * ips + (i - 1));
  r->a.nnz = n * (s1->a.nnz - s1->n_inputs) + n_inputs;
  r->b.nnz = n * s1->b.nnz;
  r->c.nnz = n * s1->c.nnz;
  czk_r1cs_recount(r);
  czk_r1cs_free(s1);
  *out = r;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ compile */
czk_status czk_post_compile(const czk_post_info *info, czk_compiled **out) {
  *out = NULL;
  if (!info) return CZK_ERR_INVALID_ARG;
  czk_cs *cs;
  CZK_TRY(czk_cc_recorder_new(&cs));
  czk_post_instance one = {info, NULL, 0, 0, 1};
  czk_status st = czk_cc_recorder_mark(cs); /* no top: every slot refers to ONE and its own variables only */
  if (st == CZK_OK) st = czk_post_synthesize(cs, &one);
  if (st == CZK_OK) st = czk_cc_recorder_mark(cs);
  if (st != CZK_OK) {
    czk_cs_free(cs);
    return st;
  }
  czk_cc_part parts[2] = {{1, 0, NULL}, {info->slots, 0, NULL}};
  return czk_cc_recorder_finish(cs, parts, 2, czk_post_circuit_id(info), out);
}
