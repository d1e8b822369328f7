/* porep_circuit.c: StackedCircuit::synthesize (rust-fil-proofs storage-proofs-porep stacked/circuit), constraint for
 * constraint (filecoin-porep.md section 3). Top: replica_id (inputized, then to bits in reversed byte numbering),
 * comm_d and comm_r inputized, comm_r_last and comm_c private, comm_r = Poseidon_2(comm_c, comm_r_last). Per
 * challenge: the data leaf and its TreeD path (binary SHA-256 PoR), 6 DRG and 8 expander columns (rows allocated,
 * Poseidon of the column, TreeC PoR), the challenge as a UInt64 packed into an input, one label per layer (SHA-256 of
 * replica id, layer, challenge and 37 parents, every parent row decomposed afresh), the encoding label_L + data, its
 * TreeR_last PoR, and the challenged column's hash with its TreeC PoR. Every PoR here has an existing leaf and root
 * (no allocation for them, root private). Per challenge 18 inputs; per label 522,269 constraints. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "czk/gadgets.h"
#include "czk/pool.h"
#include "czk/porep.h"

#define LABEL_BITS (39 * 256) /* replica id, layer + challenge + padding, 37 parents */

static unsigned log2u(uint64_t v) {
  unsigned k = 0;
  while ((1ull << k) < v) k++;
  return k;
}

/* Arity of every level of TreeC / TreeR (base levels, sub, top); returns the level count (0: bad shape). */
static unsigned tree_levels(const czk_porep_circuit *c, unsigned *ar) {
  uint64_t trees = (uint64_t)(c->sub ? c->sub : 1) * (c->top ? c->top : 1);
  if (!c->base || c->nodes % trees) return 0;
  uint64_t per = c->nodes / trees;
  unsigned lb = log2u(c->base), lp = log2u(per);
  if ((1ull << lb) != c->base || (1ull << lp) != per || lp % lb) return 0;
  unsigned n = 0;
  for (unsigned i = 0; i < lp / lb; i++) ar[n++] = c->base;
  if (c->sub) ar[n++] = c->sub;
  if (c->top) ar[n++] = c->top;
  return n;
}

static czk_status fr_of(czk_fr *out, const uint8_t *b, bool have) {
  if (!have) {
    czk_fr_set_zero(out);
    return CZK_OK;
  }
  return czk_fr_from_bytes_le(out, b);
}

/* reverse_bit_numbering of an AllocatedNum's 255 little-endian bits padded with a constant false to 256: the bits of
 * each byte in reverse order (the byte-wise most-significant-first view of the little-endian encoding). */
static void reverse_numbering(czk_bool out[256], const czk_bool in[255]) {
  czk_bool t[256];
  memcpy(t, in, 255 * sizeof *t);
  t[255] = czk_bool_const(false);
  for (int g = 0; g < 32; g++)
    for (int j = 0; j < 8; j++) out[8 * g + j] = t[8 * g + 7 - j];
}

static czk_status num_bits_reversed(czk_cs *cs, czk_bool out[256], const czk_num *x) {
  czk_bool b[255];
  CZK_TRY(czk_num_to_bits_le(cs, b, x));
  reverse_numbering(out, b);
  return CZK_OK;
}

/* enforce_inclusion: PoR with an existing leaf and root (private), over TreeC/TreeR (Poseidon) or TreeD (SHA-256). */
static czk_status inclusion(czk_cs *cs, const czk_porep_circuit *c, bool tree_d, const czk_porep_path *p,
                            const czk_num *leaf, const czk_num *root, bool values) {
  unsigned ar[CZK_POREP_MAX_LEVELS];
  unsigned n;
  if (tree_d) {
    n = log2u(c->nodes);
    for (unsigned i = 0; i < n; i++) ar[i] = 2;
  } else {
    n = tree_levels(c, ar);
  }
  if (n == 0 || n > CZK_POREP_MAX_LEVELS) return CZK_ERR_INVALID_ARG;
  czk_fc_path_level *path = NULL;
  if (values) {
    path = calloc(n, sizeof *path);
    if (!path) return CZK_ERR_NOMEM;
    unsigned si = 0;
    for (unsigned l = 0; l < n; l++) {
      path[l].arity = ar[l];
      path[l].index = p->index[l];
      if (si + ar[l] - 1 > CZK_POREP_MAX_SIBLINGS) {
        free(path);
        return CZK_ERR_INVALID_ARG;
      }
      memcpy(path[l].siblings, p->sib[si], (size_t)(ar[l] - 1) * 32);
      si += ar[l] - 1;
    }
  }
  czk_fc_por por;
  memset(&por, 0, sizeof por);
  por.base_arity = tree_d ? 2 : c->base;
  por.sub_arity = tree_d ? 0 : c->sub;
  por.top_arity = tree_d ? 0 : c->top;
  por.n_levels = n;
  por.path = path;
  por.private_root = true;
  por.hasher = tree_d ? CZK_FC_SHA256 : CZK_FC_POSEIDON;
  por.root_var = root;
  por.leaf_var = leaf;
  czk_status st = czk_fc_por_circuit(cs, &por);
  free(path);
  return st;
}

/* hash_single_column: Poseidon of the L rows with the MerkleTree tag of arity L. */
static czk_status column_hash(czk_cs *cs, czk_num *out, const czk_num *rows, unsigned L) {
  const czk_poseidon *p;
  CZK_TRY(czk_poseidon_get(&p, L, CZK_POSEIDON_STANDARD));
  return czk_poseidon_gadget(cs, out, p, CZK_POSEIDON_MERKLE_TREE, 0, rows, L);
}

/* A column of L rows allocated (aux), hashed and included in TreeC under comm_c; rows kept for the labels. */
static czk_status column(czk_cs *cs, const czk_porep_circuit *c, const czk_porep_column *col, czk_num *rows,
                         const czk_num *comm_c, bool values) {
  for (unsigned l = 0; l < c->layers; l++) {
    czk_fr v;
    CZK_TRY(fr_of(&v, values ? col->rows[l] : NULL, values));
    CZK_TRY(czk_num_alloc(cs, &rows[l], &v));
  }
  czk_num h;
  CZK_TRY(column_hash(cs, &h, rows, c->layers));
  return inclusion(cs, c, false, values ? &col->path : NULL, &h, comm_c, values);
}

/* create_label_circuit: SHA-256 of replica_id_bits | layer (u32 BE, constant) | challenge (u64 BE) | 160 zero bits |
 * 37 parents, the digest in reversed byte numbering, its first 254 bits packed into the label. */
static czk_status create_label(czk_cs *cs, czk_num *label, const czk_bool replica_bits[256], unsigned layer,
                               const czk_bool chal_bits[64], const czk_bool (*parents)[256], czk_bool *msg) {
  memcpy(msg, replica_bits, 256 * sizeof *msg);
  for (int k = 0; k < 32; k++) msg[256 + k] = czk_bool_const((layer >> (31 - k)) & 1);
  for (int k = 0; k < 64; k++) msg[288 + k] = chal_bits[63 - k];
  for (int k = 352; k < 512; k++) msg[k] = czk_bool_const(false);
  for (int m = 0; m < 37; m++) memcpy(msg + 512 + 256 * m, parents[m], 256 * sizeof *msg);
  czk_bool digest[256], le[256];
  CZK_TRY(czk_sha256_gadget(cs, digest, msg, LABEL_BITS));
  for (int g = 0; g < 32; g++)
    for (int j = 0; j < 8; j++) le[8 * g + j] = digest[8 * g + 7 - j];
  return czk_pack_bits(cs, label, le, 254);
}

typedef struct chal_work {
  czk_num drg_rows[6][CZK_POREP_MAX_LAYERS], exp_rows[8][CZK_POREP_MAX_LAYERS], labels[CZK_POREP_MAX_LAYERS];
  czk_bool lists[14][256];
  czk_bool parents[37][256];
  czk_bool msg[LABEL_BITS];
  czk_bool chal_bits[64];
} chal_work;

static czk_status one_challenge(czk_cs *cs, const czk_porep_circuit *c, const czk_porep_challenge *v,
                                const czk_bool replica_bits[256], const czk_num *comm_d, const czk_num *comm_r_last,
                                const czk_num *comm_c, chal_work *w) {
  bool values = v != NULL && czk_cs_has_values(cs);
  unsigned L = c->layers;
  /* C1, C2: the data leaf in TreeD */
  czk_fr f;
  czk_num data;
  CZK_TRY(fr_of(&f, values ? v->data_leaf : NULL, values));
  CZK_TRY(czk_num_alloc(cs, &data, &f));
  CZK_TRY(inclusion(cs, c, true, values ? &v->d_path : NULL, &data, comm_d, values));
  /* C3, C4: the 6 DRG and 8 expander parents' columns */
  for (int p = 0; p < 6; p++) CZK_TRY(column(cs, c, values ? &v->drg[p] : NULL, w->drg_rows[p], comm_c, values));
  for (int p = 0; p < 8; p++) CZK_TRY(column(cs, c, values ? &v->exp[p] : NULL, w->exp_rows[p], comm_c, values));
  /* C5: the challenge as a UInt64 (64 bits, least significant first), packed into an input */
  uint64_t ch = values ? v->challenge : 0;
  for (int i = 0; i < 64; i++) CZK_TRY(czk_bit_alloc(cs, &w->chal_bits[i], (ch >> i) & 1));
  CZK_TRY(czk_pack_into_inputs(cs, w->chal_bits, 64));
  /* C6: a label per layer; every parent row decomposed afresh */
  for (unsigned l = 1; l <= L; l++) {
    int nl = 0;
    for (int p = 0; p < 6; p++) CZK_TRY(num_bits_reversed(cs, w->lists[nl++], &w->drg_rows[p][l - 1]));
    if (l > 1)
      for (int p = 0; p < 8; p++) CZK_TRY(num_bits_reversed(cs, w->lists[nl++], &w->exp_rows[p][l - 2]));
    for (int m = 0; m < 37; m++) memcpy(w->parents[m], w->lists[m % nl], sizeof w->parents[m]);
    CZK_TRY(create_label(cs, &w->labels[l - 1], replica_bits, l, w->chal_bits, (const czk_bool(*)[256])w->parents,
                         w->msg));
  }
  /* C7, C8: the encoding (label_L + data) in TreeR_last */
  czk_num enc, h;
  CZK_TRY(czk_num_add(cs, &enc, &w->labels[L - 1], &data));
  CZK_TRY(inclusion(cs, c, false, values ? &v->r_path : NULL, &enc, comm_r_last, values));
  /* C9: the challenged node's column (its labels) in TreeC */
  CZK_TRY(column_hash(cs, &h, w->labels, L));
  return inclusion(cs, c, false, values ? &v->c_path : NULL, &h, comm_c, values);
}

/* The top of the circuit (T1-T8): what every challenge refers to. */
typedef struct top_vars {
  czk_num comm_d, comm_r_last, comm_c;
  czk_bool replica_bits[256];
} top_vars;

static czk_status check_args(czk_cs *cs, const czk_porep_circuit *c, const czk_porep_partition *v) {
  unsigned ar[CZK_POREP_MAX_LEVELS];
  if (!cs || !c || c->layers < 1 || c->layers > CZK_POREP_MAX_LAYERS || c->challenges < 1 || !tree_levels(c, ar) ||
      log2u(c->nodes) > 31)
    return CZK_ERR_INVALID_ARG;
  if (czk_cs_has_values(cs) && (!v || v->n_challenges != c->challenges || !v->ch)) return CZK_ERR_INVALID_ARG;
  return CZK_OK;
}

static czk_status synth_top(czk_cs *cs, const czk_porep_partition *v, bool values, top_vars *t) {
  czk_status st;
  czk_fr f;
  czk_num replica_id, comm_r, h;
  czk_bool rbits[255];
  /* T1-T3 */
  st = fr_of(&f, values ? v->replica_id : NULL, values);
  if (st == CZK_OK) st = czk_num_alloc(cs, &replica_id, &f);
  if (st == CZK_OK) st = czk_num_inputize(cs, &replica_id);
  if (st == CZK_OK) st = czk_num_to_bits_le(cs, rbits, &replica_id);
  if (st == CZK_OK) reverse_numbering(t->replica_bits, rbits);
  /* T4-T6 */
  if (st == CZK_OK) st = fr_of(&f, values ? v->comm_d : NULL, values);
  if (st == CZK_OK) st = czk_num_alloc(cs, &t->comm_d, &f);
  if (st == CZK_OK) st = czk_num_inputize(cs, &t->comm_d);
  if (st == CZK_OK) st = fr_of(&f, values ? v->comm_r : NULL, values);
  if (st == CZK_OK) st = czk_num_alloc(cs, &comm_r, &f);
  if (st == CZK_OK) st = czk_num_inputize(cs, &comm_r);
  if (st == CZK_OK) st = fr_of(&f, values ? v->comm_r_last : NULL, values);
  if (st == CZK_OK) st = czk_num_alloc(cs, &t->comm_r_last, &f);
  if (st == CZK_OK) st = fr_of(&f, values ? v->comm_c : NULL, values);
  if (st == CZK_OK) st = czk_num_alloc(cs, &t->comm_c, &f);
  /* T7, T8: comm_r = H(comm_c, comm_r_last) */
  if (st == CZK_OK) {
    const czk_poseidon *p2;
    czk_num pre[2] = {t->comm_c, t->comm_r_last};
    st = czk_poseidon_get(&p2, 2, CZK_POSEIDON_STANDARD);
    if (st == CZK_OK) st = czk_poseidon_gadget(cs, &h, p2, CZK_POSEIDON_MERKLE_TREE, 0, pre, 2);
    if (st == CZK_OK) st = czk_num_enforce_equal(cs, &comm_r, &h);
  }
  return st;
}

czk_status czk_porep_synthesize(czk_cs *cs, const czk_porep_circuit *c, const czk_porep_partition *v) {
  CZK_TRY(check_args(cs, c, v));
  bool values = v != NULL && czk_cs_has_values(cs);
  chal_work *w = calloc(1, sizeof *w);
  top_vars *t = calloc(1, sizeof *t);
  czk_status st = w && t ? CZK_OK : CZK_ERR_NOMEM;
  if (st == CZK_OK) st = synth_top(cs, v, values, t);
  for (unsigned i = 0; i < c->challenges && st == CZK_OK; i++)
    st = one_challenge(cs, c, values ? &v->ch[i] : NULL, t->replica_bits, &t->comm_d, &t->comm_r_last, &t->comm_c, w);
  free(w);
  free(t);
  return st == CZK_OK ? czk_cs_status(cs) : st;
}

/* ------------------------------------------------------------------------------------------------ parallel evaluation */
typedef struct peval {
  const czk_porep_circuit *c;
  const czk_porep_partition *v;
  const top_vars *t;
  czk_cs_eval_at base;   /* the arrays; where challenge 1 starts (a, b, c NULL in witness mode) */
  uint64_t di, da, dr;   /* what one challenge adds */
  bool witness_only;     /* czk_porep_witness: values only (czk_cs_witness_continue) */
  pthread_mutex_t mu;
  czk_status st;
} peval;

/* A continuing evaluator over `at`, or in witness mode a witness writer over the same w ranges. */
static czk_status open_at(czk_cs **cs, const czk_cs_eval_at *at, bool witness_only) {
  if (!witness_only) return czk_cs_evaluator_continue(cs, at);
  czk_cs_witness_at wa = {at->inputs, at->aux, at->n_inputs, at->n_aux, at->n_rows, at->inputs_cap, at->aux_cap,
                          at->rows_cap};
  return czk_cs_witness_continue(cs, &wa);
}

static void eval_challenges(void *arg, size_t begin, size_t end) {
  peval *x = arg;
  chal_work *w = calloc(1, sizeof *w);
  czk_status st = w ? CZK_OK : CZK_ERR_NOMEM;
  for (size_t i = begin; i < end && st == CZK_OK; i++) { /* challenge i + 1 */
    czk_cs_eval_at at = x->base;
    at.n_inputs += (uint32_t)(i * x->di);
    at.n_aux += (uint32_t)(i * x->da);
    at.n_rows += i * x->dr;
    at.inputs_cap = x->di, at.aux_cap = x->da, at.rows_cap = x->dr;
    czk_cs *cs;
    st = open_at(&cs, &at, x->witness_only);
    if (st != CZK_OK) break;
    st = one_challenge(cs, x->c, &x->v->ch[i + 1], x->t->replica_bits, &x->t->comm_d, &x->t->comm_r_last,
                       &x->t->comm_c, w);
    if (st == CZK_OK) st = czk_cs_status(cs);
    /* each challenge fills exactly its slice */
    if (st == CZK_OK && (czk_cs_num_inputs(cs) != at.n_inputs + x->di || czk_cs_num_aux(cs) != at.n_aux + x->da ||
                         czk_cs_num_constraints(cs) != at.n_rows + x->dr))
      st = CZK_ERR_INTERNAL;
    czk_cs_free(cs);
  }
  free(w);
  if (st != CZK_OK) {
    pthread_mutex_lock(&x->mu);
    if (x->st == CZK_OK) x->st = st;
    pthread_mutex_unlock(&x->mu);
  }
}

/* The evaluator (a, b, c set) or, witness_only, the witness writer (a, b, c NULL; n_rows not checked). */
static czk_status assign(const czk_porep_circuit *c, const czk_porep_partition *v, czk_pool *pool,
                         const czk_porep_eval_out *o, bool witness_only) {
  if (!c || !v || !o || !o->w || (!witness_only && (!o->a || !o->b || !o->c)) || o->n_inputs < 1 || !v->ch ||
      v->n_challenges != c->challenges || o->n_inputs > UINT32_MAX || o->n_aux > UINT32_MAX)
    return CZK_ERR_INVALID_ARG;
  czk_cs_eval_at at = {o->w, o->w + o->n_inputs, o->a, o->b, o->c, 1, 0, 0, o->n_inputs - 1, o->n_aux,
                       witness_only ? SIZE_MAX : o->n_rows};
  o->w[0] = czk_fr_one_v;
  czk_cs *cs;
  CZK_TRY(open_at(&cs, &at, witness_only));
  czk_status st = check_args(cs, c, v);
  chal_work *w = calloc(1, sizeof *w);
  top_vars *t = calloc(1, sizeof *t);
  if (st == CZK_OK && (!w || !t)) st = CZK_ERR_NOMEM;
  /* the top and challenge 0 in order: challenge 0 measures what one challenge adds */
  if (st == CZK_OK) st = synth_top(cs, v, true, t);
  uint64_t ti = czk_cs_num_inputs(cs), ta = czk_cs_num_aux(cs), tr = czk_cs_num_constraints(cs);
  if (st == CZK_OK) st = one_challenge(cs, c, &v->ch[0], t->replica_bits, &t->comm_d, &t->comm_r_last, &t->comm_c, w);
  if (st == CZK_OK) st = czk_cs_status(cs);
  peval x = {.c = c, .v = v, .t = t, .base = at, .witness_only = witness_only};
  if (st == CZK_OK) {
    x.di = czk_cs_num_inputs(cs) - ti, x.da = czk_cs_num_aux(cs) - ta, x.dr = czk_cs_num_constraints(cs) - tr;
    x.base.n_inputs = (uint32_t)(ti + x.di), x.base.n_aux = (uint32_t)(ta + x.da), x.base.n_rows = tr + x.dr;
    /* the sizes the caller gave are the circuit's */
    if (ti + c->challenges * x.di != o->n_inputs || ta + c->challenges * x.da != o->n_aux ||
        (!witness_only && tr + c->challenges * x.dr != o->n_rows))
      st = CZK_ERR_SIZE_MISMATCH;
  }
  czk_cs_free(cs);
  free(w);
  if (st == CZK_OK && c->challenges > 1) {
    pthread_mutex_init(&x.mu, NULL);
    czk_pool_parallel_for(pool, c->challenges - 1, 1, eval_challenges, &x);
    pthread_mutex_destroy(&x.mu);
    st = x.st;
  }
  free(t);
  return st;
}

/* ------------------------------------------------------------------------------------------------ compile */
czk_status czk_porep_compile(const czk_porep_circuit *c, const char *id, czk_compiled **out) {
  *out = NULL;
  czk_cs *cs;
  CZK_TRY(czk_cc_recorder_new(&cs));
  czk_status st = check_args(cs, c, NULL);
  chal_work *w = calloc(1, sizeof *w);
  top_vars *t = calloc(1, sizeof *t);
  if (st == CZK_OK && (!w || !t)) st = CZK_ERR_NOMEM;
  if (st == CZK_OK) st = synth_top(cs, NULL, false, t);
  if (st == CZK_OK) st = czk_cc_recorder_mark(cs);
  if (st == CZK_OK) st = one_challenge(cs, c, NULL, t->replica_bits, &t->comm_d, &t->comm_r_last, &t->comm_c, w);
  if (st == CZK_OK) st = czk_cc_recorder_mark(cs);
  free(w);
  free(t);
  if (st != CZK_OK) {
    czk_cs_free(cs);
    return st;
  }
  czk_cc_part parts[2] = {{1, 0, NULL}, {c->challenges, 0, NULL}};
  return czk_cc_recorder_finish(cs, parts, 2, id, out);
}

czk_status czk_porep_evaluate(const czk_porep_circuit *c, const czk_porep_partition *v, czk_pool *pool,
                              const czk_porep_eval_out *o) {
  return assign(c, v, pool, o, false);
}

czk_status czk_porep_witness(const czk_porep_circuit *c, const czk_porep_partition *v, czk_pool *pool, czk_fr *w,
                             uint64_t n_inputs, uint64_t n_aux) {
  czk_porep_eval_out o = {w, n_inputs, n_aux, 0, NULL, NULL, NULL};
  return assign(c, v, pool, &o, true);
}

/* ------------------------------------------------------------------------------------------------ counts */
static czk_status count_with(const czk_porep_circuit *c, unsigned challenges, czk_cs_counts *out) {
  czk_porep_circuit one = *c;
  one.challenges = challenges;
  czk_cs *cs;
  CZK_TRY(czk_cs_counter_new(&cs));
  czk_status st = czk_porep_synthesize(cs, &one, NULL);
  if (st == CZK_OK) st = czk_cs_counter_result(cs, out);
  czk_cs_free(cs);
  return st;
}

czk_status czk_porep_counts(const czk_porep_circuit *c, czk_cs_counts *out) {
  if (!c || !out || c->challenges < 1) return CZK_ERR_INVALID_ARG;
  if (c->challenges <= 2) return count_with(c, c->challenges, out);
  czk_cs_counts x1, x2;
  CZK_TRY(count_with(c, 1, &x1));
  CZK_TRY(count_with(c, 2, &x2));
  uint64_t k = c->challenges - 1;
#define SCALE(f) out->f = x1.f + k * (x2.f - x1.f)
  SCALE(n_inputs), SCALE(n_aux), SCALE(n_user_constraints), SCALE(nnz_a), SCALE(nnz_b), SCALE(nnz_c);
  SCALE(a_aux_count), SCALE(b_input_count), SCALE(b_aux_count);
#undef SCALE
  out->n_constraints = out->n_user_constraints + out->n_inputs;
  out->log_domain = 0;
  while ((1ull << out->log_domain) < out->n_constraints) out->log_domain++;
  return CZK_OK;
}

static void bit_set(uint64_t *bits, uint64_t i) { bits[i >> 6] |= (uint64_t)1 << (i & 63); }

czk_status czk_porep_outline(const czk_porep_circuit *c, czk_r1cs **out) {
  *out = NULL;
  if (!c || c->challenges < 1) return CZK_ERR_INVALID_ARG;
  /* the top and challenge 0 counted with their densities; what challenge 0 adds from the counts of two */
  czk_porep_circuit one = *c;
  one.challenges = 1;
  czk_cs *cs;
  CZK_TRY(czk_cs_counter_new(&cs));
  czk_status st = czk_porep_synthesize(cs, &one, NULL);
  czk_r1cs *s1 = NULL;
  if (st != CZK_OK) czk_cs_free(cs);
  else st = czk_cs_counter_finish(cs, &s1);
  CZK_TRY(st);
  czk_cs_counts n;
  st = czk_porep_counts(c, &n);
  czk_cs_counts x2;
  if (st == CZK_OK) st = c->challenges == 1 ? CZK_OK : count_with(c, 2, &x2);
  if (st != CZK_OK || n.n_inputs > UINT32_MAX || n.n_aux > UINT32_MAX || n.n_constraints > UINT32_MAX) {
    czk_r1cs_free(s1);
    return st != CZK_OK ? st : CZK_ERR_LIMIT;
  }
  uint64_t di = c->challenges == 1 ? 0 : x2.n_inputs - s1->n_inputs, da = c->challenges == 1 ? 0 : x2.n_aux - s1->n_aux;
  uint64_t ti = s1->n_inputs - di, ta = s1->n_aux - da;
  czk_r1cs *r;
  st = czk_r1cs_outline_new(&r, (uint32_t)n.n_inputs, (uint32_t)n.n_aux, (uint32_t)n.n_user_constraints);
  if (st != CZK_OK) {
    czk_r1cs_free(s1);
    return st;
  }
  /* the top's bits as counted, then challenge 0's bits repeated for every challenge */
  for (uint64_t j = 0; j < s1->n_aux; j++) {
    bool da_ = czk_density_get(s1->a_aux_density, j), db_ = czk_density_get(s1->b_aux_density, j);
    uint64_t reps = j < ta ? 1 : c->challenges;
    for (uint64_t k = 0; k < reps; k++) {
      if (da_) bit_set(r->a_aux_density, j + k * da);
      if (db_) bit_set(r->b_aux_density, j + k * da);
    }
  }
  for (uint64_t i = 0; i < s1->n_inputs; i++) {
    if (!czk_density_get(s1->b_input_density, i)) continue;
    uint64_t reps = i < ti ? 1 : c->challenges;
    for (uint64_t k = 0; k < reps; k++) bit_set(r->b_input_density, i + k * di);
  }
  r->a.nnz = n.nnz_a;
  r->b.nnz = n.nnz_b;
  r->c.nnz = n.nnz_c;
  czk_r1cs_recount(r);
  czk_r1cs_free(s1);
  *out = r;
  return CZK_OK;
}
