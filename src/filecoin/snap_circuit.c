/* snap_circuit.c: EmptySectorUpdateCircuit::synthesize (rust-fil-proofs storage-proofs-update circuit.rs and
 * gadgets.rs), constraint for constraint (filecoin-snap.md section 6).
 * The common part (U1-U11): k_and_h_select inputized and split into pbl partition bits and 6 h_select bits, the
 * packed partition, comm_r_old / comm_d_new / comm_r_new inputized, phi = G(comm_d_new, comm_r_old), comm_c, the two
 * roots, the apex leaves and the partition path allocated, comm_r = H(comm_c, root) twice, the apex tree and the
 * partition path to comm_d_new, then the challenge bits (per digest: index, G(comm_r_new, index), 255 bits).
 * Per challenge (U12): the selected high bits, rho = G(phi, high), the new replica leaf, the TreeR_old and TreeR_new
 * paths (siblings allocated first, then PoR without inputs over the challenge bits), the apex leaf selected by the
 * challenge's bits, and the TreeD path below the apex row. Every challenge has the same structure, so the circuit's
 * counts and densities follow from the common part and one challenge (czk_snap_outline), and the challenges are
 * evaluated in parallel over disjoint slices of one assignment (czk_snap_evaluate).
 * Cost: 947 + pbl + (A-1) S + pbl (S+2) + 1 + 568 dpp + C [13 + 311 + 2 + 2 (sum of insert+hash + 1) + A - 1 +
 * (d - pbl - abl)(S+2) + 1], S = 45,379 the SHA-256 node (32 GiB: 81,049,499). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "czk/gadgets.h"
#include "czk/snap.h"

#define MAX_C 86
#define MAX_RB 32

/* What the challenges use of the common part. */
typedef struct snap_state {
  czk_num phi, root_r_old, root_r_new;
  czk_num apex[128];
  czk_bool partition_bits[8], hsel[6];
  czk_bool chunk[MAX_C][MAX_RB]; /* each challenge's random bits (least significant first) */
} snap_state;

static czk_status fr_of(czk_fr *out, const uint8_t *b, bool have) {
  if (!have) {
    czk_fr_set_zero(out);
    return CZK_OK;
  }
  return czk_fr_from_bytes_le(out, b);
}

static czk_status alloc_bytes(czk_cs *cs, czk_num *out, const uint8_t *b, bool have) {
  czk_fr f;
  CZK_TRY(fr_of(&f, b, have));
  return czk_num_alloc(cs, out, &f);
}

/* (sum_i 2^i bits[i]) * ONE = x (the "binary decomp" of k_and_h_select and of each digest). */
static czk_status decomp(czk_cs *cs, const czk_bool *bits, size_t n, const czk_num *x) {
  czk_lc a, b, c;
  czk_lc_init(&a), czk_lc_init(&b), czk_lc_init(&c);
  czk_fr pow;
  czk_fr_set_one(&pow);
  for (size_t i = 0; i < n; i++) {
    czk_lc_add(&a, bits[i].var, &pow);
    czk_fr_dbl(&pow, &pow);
  }
  czk_lc_add_var(&b, CZK_VAR_ONE);
  czk_lc_add_var(&c, x->var);
  czk_status st = czk_cs_enforce(cs, "binary decomp", &a, &b, &c);
  czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
  return st;
}

/* n AllocatedBits of x's little-endian bits (field_into_allocated_bits_le for n = 255), then their decomposition. */
static czk_status alloc_bits(czk_cs *cs, czk_bool *out, size_t n, const czk_num *x) {
  uint64_t raw[4];
  czk_fr_to_raw(raw, &x->value);
  for (size_t i = 0; i < n; i++) CZK_TRY(czk_bit_alloc(cs, &out[i], (raw[i >> 6] >> (i & 63)) & 1));
  return decomp(cs, out, n, x);
}

/* ------------------------------------------------------------------------------------------------ common part */
static czk_status common_part(czk_cs *cs, const czk_snap_instance *inst, snap_state *s) {
  const czk_snap_info *info = inst->info;
  const czk_snap_partition *p = inst->part;
  bool v = p && inst->comms && czk_cs_has_values(cs);
  const czk_poseidon *p2;
  CZK_TRY(czk_poseidon_get(&p2, 2, CZK_POSEIDON_STANDARD));
  /* U1-U3: k_and_h_select, its pbl + 6 bits */
  czk_fr f;
  czk_num x_kh, partition, x_ro, x_dn, x_rn, h;
  uint64_t kh = (uint64_t)inst->k | (uint64_t)info->h_select << info->pbl;
  czk_fr_from_u64(&f, v ? kh : 0);
  CZK_TRY(czk_num_alloc(cs, &x_kh, &f));
  CZK_TRY(czk_num_inputize(cs, &x_kh));
  czk_bool kb[8 + 6];
  CZK_TRY(alloc_bits(cs, kb, info->pbl + 6, &x_kh));
  memcpy(s->partition_bits, kb, info->pbl * sizeof *kb);
  memcpy(s->hsel, kb + info->pbl, 6 * sizeof *kb);
  /* U4: the partition packed */
  CZK_TRY(czk_pack_bits(cs, &partition, s->partition_bits, info->pbl));
  /* U5: the three commitments, inputized */
  CZK_TRY(alloc_bytes(cs, &x_ro, v ? inst->comms->comm_r_old : NULL, v));
  CZK_TRY(czk_num_inputize(cs, &x_ro));
  CZK_TRY(alloc_bytes(cs, &x_dn, v ? inst->comms->comm_d_new : NULL, v));
  CZK_TRY(czk_num_inputize(cs, &x_dn));
  CZK_TRY(alloc_bytes(cs, &x_rn, v ? inst->comms->comm_r_new : NULL, v));
  CZK_TRY(czk_num_inputize(cs, &x_rn));
  /* U6: phi = G(comm_d_new, comm_r_old) */
  czk_num pre[2] = {x_dn, x_ro};
  CZK_TRY(czk_poseidon_gadget(cs, &s->phi, p2, CZK_POSEIDON_CUSTOM, 1, pre, 2));
  /* U7: comm_c, the roots (challenge 0's), the apex leaves, the partition path (challenge 0's top pbl TreeD rows) */
  czk_num comm_c, pp[8];
  CZK_TRY(alloc_bytes(cs, &comm_c, v ? p->comm_c : NULL, v));
  CZK_TRY(alloc_bytes(cs, &s->root_r_old, v ? p->ch[0].r_old.root : NULL, v));
  CZK_TRY(alloc_bytes(cs, &s->root_r_new, v ? p->ch[0].r_new.root : NULL, v));
  for (uint32_t i = 0; i < info->apex_leaves; i++) CZK_TRY(alloc_bytes(cs, &s->apex[i], v ? p->apex[i] : NULL, v));
  for (unsigned i = 0; i < info->pbl; i++)
    CZK_TRY(alloc_bytes(cs, &pp[i], v ? p->ch[0].d_new.sib[info->d - info->pbl + i] : NULL, v));
  /* U8, U9: comm_r = H(comm_c, root) */
  pre[0] = comm_c, pre[1] = s->root_r_old;
  CZK_TRY(czk_poseidon_gadget(cs, &h, p2, CZK_POSEIDON_MERKLE_TREE, 0, pre, 2));
  CZK_TRY(czk_num_enforce_equal(cs, &h, &x_ro));
  pre[1] = s->root_r_new;
  CZK_TRY(czk_poseidon_gadget(cs, &h, p2, CZK_POSEIDON_MERKLE_TREE, 0, pre, 2));
  CZK_TRY(czk_num_enforce_equal(cs, &h, &x_rn));
  /* U10: the apex tree, row by row, then the partition path to comm_d_new */
  czk_num row[128];
  memcpy(row, s->apex, info->apex_leaves * sizeof *row);
  for (uint32_t n = info->apex_leaves; n > 1; n /= 2)
    for (uint32_t j = 0; j < n / 2; j++) CZK_TRY(czk_fc_sha256_node_gadget(cs, &row[j], &row[2 * j], 2));
  czk_num cur = row[0], kids[2];
  for (unsigned l = 0; l < info->pbl; l++) {
    CZK_TRY(czk_fc_insert(cs, kids, &cur, &s->partition_bits[l], 1, &pp[l]));
    CZK_TRY(czk_fc_sha256_node_gadget(cs, &cur, kids, 2));
  }
  CZK_TRY(czk_num_enforce_equal(cs, &cur, &x_dn));
  /* U11: the challenge bits: per digest j, index k dpp + j = dpp partition + j, G(comm_r_new, index), 255 bits */
  uint32_t taken = 0;
  for (unsigned j = 0; j < info->dpp; j++) {
    czk_num di, dg;
    czk_fr_from_u64(&f, v ? (uint64_t)inst->k * info->dpp + j : 0);
    CZK_TRY(czk_num_alloc(cs, &di, &f));
    czk_lc a, b, c;
    czk_lc_init(&a), czk_lc_init(&b), czk_lc_init(&c);
    czk_lc_add_u64(&a, partition.var, info->dpp);
    czk_lc_add_u64(&a, CZK_VAR_ONE, j);
    czk_lc_add_var(&b, CZK_VAR_ONE);
    czk_lc_add_var(&c, di.var);
    czk_status st = czk_cs_enforce(cs, "digest index", &a, &b, &c);
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
    CZK_TRY(st);
    pre[0] = x_rn, pre[1] = di;
    CZK_TRY(czk_poseidon_gadget(cs, &dg, p2, CZK_POSEIDON_CUSTOM, 1, pre, 2));
    czk_bool bits[255];
    CZK_TRY(alloc_bits(cs, bits, 255, &dg));
    uint32_t take = j + 1 == info->dpp ? info->challenges - taken : info->cpd;
    for (uint32_t i = 0; i < take; i++, taken++) memcpy(s->chunk[taken], bits + i * info->rb, info->rb * sizeof *bits);
  }
  return czk_cs_status(cs);
}

/* ------------------------------------------------------------------------------------------------ one challenge */
/* PoR without inputs (por_no_challenge_input) over a TreeR path: siblings already allocated, level by level insert
 * and the Poseidon MerkleTree hash, the challenge bits consumed from the least significant; computed root * ONE =
 * root. */
static czk_status por_r(czk_cs *cs, const czk_snap_info *info, const czk_bool *bits, const czk_num *leaf,
                        const czk_num *sibs, const czk_num *root) {
  czk_num cur = *leaf, kids[CZK_FC_MAX_ARITY];
  unsigned n = czk_snap_r_levels(info), bp = 0, si = 0;
  for (unsigned l = 0; l < n; l++) {
    unsigned a = czk_snap_r_level_arity(info, l), kb = (unsigned)__builtin_ctz(a);
    const czk_poseidon *p;
    CZK_TRY(czk_poseidon_get(&p, a, CZK_POSEIDON_STANDARD));
    CZK_TRY(czk_fc_insert(cs, kids, &cur, bits + bp, kb, sibs + si));
    CZK_TRY(czk_poseidon_gadget(cs, &cur, p, CZK_POSEIDON_MERKLE_TREE, 0, kids, a));
    bp += kb, si += a - 1;
  }
  return czk_num_enforce_equal(cs, &cur, root);
}

static czk_status one_challenge(czk_cs *cs, const czk_snap_instance *inst, const snap_state *s, uint32_t t) {
  const czk_snap_info *info = inst->info;
  const czk_snap_challenge_proof *cp = inst->part ? &inst->part->ch[t] : NULL;
  bool v = cp && inst->comms && czk_cs_has_values(cs);
  const czk_poseidon *p2;
  CZK_TRY(czk_poseidon_get(&p2, 2, CZK_POSEIDON_STANDARD));
  unsigned d = info->d;
  czk_bool c_bits[64];
  memcpy(c_bits, s->chunk[t], info->rb * sizeof *c_bits);
  memcpy(c_bits + info->rb, s->partition_bits, info->pbl * sizeof *c_bits);
  /* a) the h high bits selected by h_select */
  czk_num z[6], c_high;
  czk_fr sum;
  czk_fr_set_zero(&sum);
  for (int q = 0; q < 6; q++) {
    czk_num chq;
    unsigned hq = info->hs[q];
    CZK_TRY(czk_pack_bits(cs, &chq, c_bits + d - hq, hq));
    CZK_TRY(czk_num_alloc(cs, &z[q], s->hsel[q].value ? &chq.value : &czk_fr_zero_v));
    czk_lc a, b, c;
    czk_lc_init(&a), czk_lc_init(&b), czk_lc_init(&c);
    czk_lc_add_var(&a, chq.var);
    czk_lc_add_var(&b, s->hsel[q].var);
    czk_lc_add_var(&c, z[q].var);
    czk_status st = czk_cs_enforce(cs, "c_high_or_zero", &a, &b, &c);
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
    CZK_TRY(st);
    czk_fr_add(&sum, &sum, &z[q].value);
  }
  CZK_TRY(czk_num_alloc(cs, &c_high, &sum));
  {
    czk_lc a, b, c;
    czk_lc_init(&a), czk_lc_init(&b), czk_lc_init(&c);
    for (int q = 0; q < 6; q++) czk_lc_add_var(&a, z[q].var);
    czk_lc_add_var(&b, CZK_VAR_ONE);
    czk_lc_add_var(&c, c_high.var);
    czk_status st = czk_cs_enforce(cs, "c_high_selected", &a, &b, &c);
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
    CZK_TRY(st);
  }
  /* b) rho = G(phi, c_high) */
  czk_num rho, pre[2] = {s->phi, c_high};
  CZK_TRY(czk_poseidon_gadget(cs, &rho, p2, CZK_POSEIDON_CUSTOM, 1, pre, 2));
  /* c), d) the leaves and label_r_new = label_r_old + label_d_new * rho */
  czk_num lro, ldn, prod, lrn;
  CZK_TRY(alloc_bytes(cs, &lro, v ? cp->r_old.leaf : NULL, v));
  CZK_TRY(alloc_bytes(cs, &ldn, v ? cp->d_new.leaf : NULL, v));
  CZK_TRY(czk_num_mul(cs, &prod, &ldn, &rho));
  CZK_TRY(czk_num_add(cs, &lrn, &lro, &prod));
  /* e), f) TreeR_old; g) TreeR_new: siblings allocated row by row, then the PoR */
  unsigned nsib = 0, rl = czk_snap_r_levels(info);
  for (unsigned l = 0; l < rl; l++) nsib += czk_snap_r_level_arity(info, l) - 1;
  czk_num sibs[CZK_SNAP_MAX_R_SIBLINGS];
  for (unsigned i = 0; i < nsib; i++) CZK_TRY(alloc_bytes(cs, &sibs[i], v ? cp->r_old.sib[i] : NULL, v));
  CZK_TRY(por_r(cs, info, c_bits, &lro, sibs, &s->root_r_old));
  for (unsigned i = 0; i < nsib; i++) CZK_TRY(alloc_bytes(cs, &sibs[i], v ? cp->r_new.sib[i] : NULL, v));
  CZK_TRY(por_r(cs, info, c_bits, &lrn, sibs, &s->root_r_new));
  /* h) the apex leaf of the challenge */
  unsigned below = d - info->pbl - info->abl;
  czk_num apex_leaf;
  CZK_TRY(czk_fc_select(cs, &apex_leaf, s->apex, c_bits + below, info->abl));
  /* i), j) the TreeD path below the apex row */
  czk_num dsib[CZK_SNAP_MAX_D_LEVELS], cur = ldn, kids[2];
  for (unsigned l = 0; l < below; l++) CZK_TRY(alloc_bytes(cs, &dsib[l], v ? cp->d_new.sib[l] : NULL, v));
  for (unsigned l = 0; l < below; l++) {
    CZK_TRY(czk_fc_insert(cs, kids, &cur, &c_bits[l], 1, &dsib[l]));
    CZK_TRY(czk_fc_sha256_node_gadget(cs, &cur, kids, 2));
  }
  return czk_num_enforce_equal(cs, &cur, &apex_leaf);
}

static czk_status check_instance(czk_cs *cs, const czk_snap_instance *inst) {
  if (!cs || !inst || !inst->info) return CZK_ERR_INVALID_ARG;
  const czk_snap_info *info = inst->info;
  if (info->challenges > MAX_C || info->rb > MAX_RB || info->pbl > 8 || info->apex_leaves > 128 ||
      inst->k >= info->partitions)
    return CZK_ERR_INVALID_ARG;
  if (czk_cs_has_values(cs) && (!inst->part || !inst->comms)) return CZK_ERR_INVALID_ARG;
  if (inst->part && (inst->part->n_challenges != info->challenges || inst->part->n_apex != info->apex_leaves ||
                     !inst->part->ch || !inst->part->apex))
    return CZK_ERR_SIZE_MISMATCH;
  return CZK_OK;
}

czk_status czk_snap_synthesize(czk_cs *cs, const czk_snap_instance *inst) {
  CZK_TRY(check_instance(cs, inst));
  snap_state *s = calloc(1, sizeof *s);
  if (!s) return CZK_ERR_NOMEM;
  czk_status st = common_part(cs, inst, s);
  for (uint32_t t = 0; t < inst->info->challenges && st == CZK_OK; t++) st = one_challenge(cs, inst, s, t);
  free(s);
  return st == CZK_OK ? czk_cs_status(cs) : st;
}

/* ------------------------------------------------------------------------------------------------ outline, counts */
static void bit_set(uint64_t *bits, uint64_t i) { bits[i >> 6] |= (uint64_t)1 << (i & 63); }

/* Where the parts of the assignment lie: the common part's aux and rows first, then challenge t's block at
 * aux0 + t blk_aux and rows0 + t blk_rows. */
typedef struct snap_layout {
  uint64_t aux0, rows0, blk_aux, blk_rows;
} snap_layout;

/* The common part and challenge 0 counted; the other challenges are challenge 0's block at their offsets (the
 * common part's variables a challenge touches get their density bits from challenge 0 already: every challenge uses
 * the same ones, and the challenge bits are allocated bits, dense in A and B by their booleanity). */
static czk_status outline_layout(const czk_snap_info *info, czk_r1cs **out, snap_layout *lay) {
  *out = NULL;
  if (!info) return CZK_ERR_INVALID_ARG;
  czk_cs *cs;
  CZK_TRY(czk_cs_counter_new(&cs));
  czk_snap_instance inst = {.info = info};
  czk_status st = check_instance(cs, &inst);
  snap_state *s = st == CZK_OK ? calloc(1, sizeof *s) : NULL;
  if (st == CZK_OK && !s) st = CZK_ERR_NOMEM;
  czk_cs_counts c0;
  if (st == CZK_OK) st = common_part(cs, &inst, s);
  if (st == CZK_OK) st = czk_cs_counter_result(cs, &c0);
  if (st == CZK_OK) st = one_challenge(cs, &inst, s, 0);
  free(s);
  czk_r1cs *s1 = NULL;
  if (st != CZK_OK) czk_cs_free(cs);
  else st = czk_cs_counter_finish(cs, &s1);
  CZK_TRY(st);
  uint64_t C = info->challenges, blk_aux = s1->n_aux - c0.n_aux, blk_cons = s1->n_user_constraints - c0.n_user_constraints;
  uint64_t n_aux = c0.n_aux + C * blk_aux, cons = c0.n_user_constraints + C * blk_cons;
  *lay = (snap_layout){c0.n_aux, c0.n_user_constraints, blk_aux, blk_cons};
  if (n_aux > UINT32_MAX || cons + s1->n_inputs > UINT32_MAX) {
    czk_r1cs_free(s1);
    return CZK_ERR_LIMIT;
  }
  czk_r1cs *r;
  st = czk_r1cs_outline_new(&r, s1->n_inputs, (uint32_t)n_aux, (uint32_t)cons);
  if (st != CZK_OK) {
    czk_r1cs_free(s1);
    return st;
  }
  for (uint64_t j = 0; j < s1->n_aux; j++) {
    bool da = czk_density_get(s1->a_aux_density, j), db = czk_density_get(s1->b_aux_density, j);
    uint64_t reps = j < c0.n_aux ? 1 : C;
    for (uint64_t t = 0; t < reps && (da || db); t++) {
      if (da) bit_set(r->a_aux_density, j + t * blk_aux);
      if (db) bit_set(r->b_aux_density, j + t * blk_aux);
    }
  }
  for (uint64_t i = 0; i < s1->n_inputs; i++)
    if (czk_density_get(s1->b_input_density, i)) bit_set(r->b_input_density, i);
  r->a.nnz = c0.nnz_a + C * (s1->a.nnz - c0.nnz_a);
  r->b.nnz = c0.nnz_b + C * (s1->b.nnz - c0.nnz_b);
  r->c.nnz = c0.nnz_c + C * (s1->c.nnz - c0.nnz_c);
  czk_r1cs_recount(r);
  czk_r1cs_free(s1);
  *out = r;
  return CZK_OK;
}

czk_status czk_snap_outline(const czk_snap_info *info, czk_r1cs **out) {
  snap_layout lay;
  return outline_layout(info, out, &lay);
}

static pthread_mutex_t g_counts_mu = PTHREAD_MUTEX_INITIALIZER;
static czk_cs_counts g_counts[CZK_SNAP_N_PROOFS];
static snap_layout g_layout[CZK_SNAP_N_PROOFS];
static bool g_counted[CZK_SNAP_N_PROOFS];

static czk_status counts_layout(const czk_snap_info *info, czk_cs_counts *out, snap_layout *lay) {
  memset(out, 0, sizeof *out);
  if (!info) return CZK_ERR_INVALID_ARG;
  bool reg = info->wire < CZK_SNAP_N_PROOFS;
  if (reg) {
    pthread_mutex_lock(&g_counts_mu);
    bool have = g_counted[info->wire];
    if (have) *out = g_counts[info->wire], *lay = g_layout[info->wire];
    pthread_mutex_unlock(&g_counts_mu);
    if (have) return CZK_OK;
  }
  czk_r1cs *r;
  CZK_TRY(outline_layout(info, &r, lay));
  out->n_inputs = r->n_inputs;
  out->n_aux = r->n_aux;
  out->n_user_constraints = r->n_user_constraints;
  out->n_constraints = r->n_constraints;
  out->log_domain = r->log_domain;
  out->nnz_a = r->a.nnz, out->nnz_b = r->b.nnz, out->nnz_c = r->c.nnz;
  out->a_aux_count = r->a_aux_count, out->b_input_count = r->b_input_count, out->b_aux_count = r->b_aux_count;
  czk_r1cs_free(r);
  if (reg) {
    pthread_mutex_lock(&g_counts_mu);
    g_counts[info->wire] = *out;
    g_layout[info->wire] = *lay;
    g_counted[info->wire] = true;
    pthread_mutex_unlock(&g_counts_mu);
  }
  return CZK_OK;
}

czk_status czk_snap_counts(const czk_snap_info *info, czk_cs_counts *out) {
  snap_layout lay;
  return counts_layout(info, out, &lay);
}

czk_status czk_snap_assignment_size(const czk_snap_info *info, uint64_t *n_inputs, uint64_t *n_aux, uint64_t *n_rows,
                                    uint64_t *n_domain) {
  czk_cs_counts n;
  CZK_TRY(czk_snap_counts(info, &n));
  *n_inputs = n.n_inputs;
  *n_aux = n.n_aux;
  *n_rows = n.n_constraints;
  *n_domain = 1ull << n.log_domain;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ assignment */
typedef struct eval_ctx {
  const czk_snap_instance *inst;
  const snap_state *s;
  snap_layout lay;
  czk_fr *w, *aux, *a, *b, *c; /* a, b, c NULL: witness only */
  uint64_t n_inputs;
  pthread_mutex_t mu;
  czk_status st;
} eval_ctx;

/* Challenges [begin, end), each in a continuing evaluator over its own aux range and rows. */
static void eval_challenges(void *arg, size_t begin, size_t end) {
  eval_ctx *x = arg;
  czk_status st = CZK_OK;
  for (size_t t = begin; t < end && st == CZK_OK; t++) {
    uint64_t base = x->lay.aux0 + t * x->lay.blk_aux, r0 = x->lay.rows0 + t * x->lay.blk_rows;
    czk_cs_eval_at at = {x->w, x->aux, x->a, x->b, x->c, (uint32_t)x->n_inputs, (uint32_t)base, r0,
                         0, x->lay.blk_aux, x->lay.blk_rows};
    czk_cs_witness_at wa = {x->w, x->aux, (uint32_t)x->n_inputs, (uint32_t)base, r0, 0, x->lay.blk_aux, x->lay.blk_rows};
    czk_cs *cs;
    st = x->a ? czk_cs_evaluator_continue(&cs, &at) : czk_cs_witness_continue(&cs, &wa);
    if (st != CZK_OK) break;
    st = one_challenge(cs, x->inst, x->s, (uint32_t)t);
    /* every challenge fills exactly its slice */
    if (st == CZK_OK && (czk_cs_num_aux(cs) != base + x->lay.blk_aux ||
                         czk_cs_num_constraints(cs) != r0 + x->lay.blk_rows))
      st = CZK_ERR_INTERNAL;
    czk_cs_free(cs);
  }
  if (st != CZK_OK) {
    pthread_mutex_lock(&x->mu);
    if (x->st == CZK_OK) x->st = st;
    pthread_mutex_unlock(&x->mu);
  }
}

/* The assignment (a, b, c set) or the witness alone (a, b, c NULL). */
static czk_status assign(const czk_snap_instance *inst, czk_pool *pool, czk_fr *w, czk_fr *a, czk_fr *b, czk_fr *c) {
  if (!inst || !inst->info || !inst->part || !inst->comms || !w) return CZK_ERR_INVALID_ARG;
  czk_cs_counts n;
  eval_ctx x;
  memset(&x, 0, sizeof x);
  CZK_TRY(counts_layout(inst->info, &n, &x.lay));
  uint64_t dom = 1ull << n.log_domain;
  czk_fr *aux = w + n.n_inputs;
  /* the common part: the inputs, aux [0, aux0), rows [0, rows0) */
  czk_cs_eval_out o = {.inputs = w + 1, .inputs_cap = n.n_inputs - 1, .aux = aux, .aux_cap = x.lay.aux0,
                       .a = a, .b = b, .c = c, .rows_cap = x.lay.rows0};
  czk_cs_witness_at wa = {w, aux, 1, 0, 0, n.n_inputs - 1, x.lay.aux0, x.lay.rows0};
  w[0] = czk_fr_one_v;
  czk_cs *cs;
  CZK_TRY(a ? czk_cs_evaluator_new(&cs, &o) : czk_cs_witness_continue(&cs, &wa));
  snap_state *s = calloc(1, sizeof *s);
  czk_status st = s ? check_instance(cs, inst) : CZK_ERR_NOMEM;
  if (st == CZK_OK) st = common_part(cs, inst, s);
  if (st == CZK_OK && (czk_cs_num_constraints(cs) != x.lay.rows0 || czk_cs_num_aux(cs) != x.lay.aux0 ||
                       czk_cs_num_inputs(cs) != n.n_inputs))
    st = CZK_ERR_INTERNAL;
  czk_cs_free(cs);
  /* the challenges in parallel */
  if (st == CZK_OK) {
    x.inst = inst, x.s = s, x.w = w, x.n_inputs = n.n_inputs, x.aux = aux, x.a = a, x.b = b, x.c = c;
    pthread_mutex_init(&x.mu, NULL);
    czk_pool_parallel_for(pool, inst->info->challenges, 1, eval_challenges, &x);
    pthread_mutex_destroy(&x.mu);
    st = x.st;
  }
  free(s);
  CZK_TRY(st);
  if (!a) return CZK_OK; /* witness only */
  /* the prover's rows `input_i * 0 = 0`, then the domain's zero tail */
  uint64_t m = n.n_user_constraints;
  for (uint64_t i = 0; i < n.n_inputs; i++) {
    a[m + i] = w[i];
    czk_fr_set_zero(&b[m + i]);
    czk_fr_set_zero(&c[m + i]);
  }
  size_t tail = (size_t)(dom - n.n_constraints) * sizeof(czk_fr);
  memset(a + n.n_constraints, 0, tail);
  memset(b + n.n_constraints, 0, tail);
  memset(c + n.n_constraints, 0, tail);
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ compile */
czk_status czk_snap_compile(const czk_snap_info *info, czk_compiled **out) {
  *out = NULL;
  if (!info) return CZK_ERR_INVALID_ARG;
  czk_cs *cs;
  CZK_TRY(czk_cc_recorder_new(&cs));
  czk_snap_instance inst = {.info = info};
  czk_status st = check_instance(cs, &inst);
  snap_state *s = st == CZK_OK ? calloc(1, sizeof *s) : NULL;
  czk_var *table = st == CZK_OK ? calloc((size_t)info->challenges * info->rb + 1, sizeof *table) : NULL;
  if (st == CZK_OK && (!s || !table)) st = CZK_ERR_NOMEM;
  if (st == CZK_OK) st = common_part(cs, &inst, s);
  if (st == CZK_OK) st = czk_cc_recorder_mark(cs);
  if (st == CZK_OK) st = one_challenge(cs, &inst, s, 0);
  if (st == CZK_OK) st = czk_cc_recorder_mark(cs);
  /* challenge t's random bits: allocated bits of the common part (a constant or negated bit would not be a column) */
  for (uint32_t t = 0; t < info->challenges && st == CZK_OK; t++)
    for (unsigned i = 0; i < info->rb && st == CZK_OK; i++) {
      if (s->chunk[t][i].kind != CZK_BOOL_IS) st = CZK_ERR_UNSUPPORTED;
      table[(size_t)t * info->rb + i] = s->chunk[t][i].var;
    }
  free(s);
  if (st != CZK_OK) {
    free(table);
    czk_cs_free(cs);
    return st;
  }
  czk_cc_part parts[2] = {{1, 0, NULL}, {info->challenges, info->rb, table}};
  st = czk_cc_recorder_finish(cs, parts, 2, czk_snap_circuit_id(info), out);
  free(table);
  return st;
}

czk_status czk_snap_evaluate(const czk_snap_instance *inst, czk_pool *pool, czk_fr *w, czk_fr *a, czk_fr *b,
                             czk_fr *c) {
  if (!a || !b || !c) return CZK_ERR_INVALID_ARG;
  return assign(inst, pool, w, a, b, c);
}

czk_status czk_snap_witness(const czk_snap_instance *inst, czk_pool *pool, czk_fr *w) {
  return assign(inst, pool, w, NULL, NULL, NULL);
}
