/* snap_gen.c: valid SnapDeals updates for tests and benchmarks (filecoin-snap.md section 8), dense or sparse.
 * An update: old replica R_old (any valid one: the circuit never relates it to sealing), new data D, comm_c;
 * TreeR_old over R_old, TreeD over D, phi = G(comm_d_new, comm_r_old), R_new[i] = R_old[i] + D[i] rho(i >> (d - h)),
 * TreeR_new over R_new, and per partition k: the apex leaves (TreeD row d - pbl - abl, nodes k A .. k A + A - 1) and
 * the three openings of each derived challenge.
 * Trees here are "block-uniform": the leaves are constant on aligned blocks of 2^logblock nodes, so a layer whose
 * nodes each cover at most one block holds one value per block, and only the layers above are computed node by node.
 * Dense: logblock = 0 (every leaf its own block: a plain tree; sectors up to 8 MiB). Sparse: logblock = d - h, the
 * blocks rho is constant on, so R_new is block-uniform too and a 32 GiB update costs a few thousand hashes.
 * Seeded values: SHA-256("czk-snap" || u64le(seed) || tag || u64le(i)) with the top two bits cleared (canonical, and
 * a valid fr32 data node). */
#include <stdlib.h>
#include <string.h>

#include "czk/pool.h"
#include "czk/snap.h"

#define DENSE_MAX_NODES (1ull << 18)
#define MAX_LAYERS 40

typedef struct btree {
  czk_fc_hasher h;
  unsigned nlev;
  unsigned arity[MAX_LAYERS];
  uint64_t span[MAX_LAYERS + 1];  /* leaves under one node of layer l */
  uint64_t count[MAX_LAYERS + 1]; /* nodes of layer l */
  bool per_block[MAX_LAYERS + 1];
  unsigned logblock;
  uint8_t *layer[MAX_LAYERS + 1];
} btree;

static void derive(uint8_t out[32], uint64_t seed, const char *tag, uint64_t i) {
  uint8_t msg[64];
  size_t k = 0;
  memcpy(msg, "czk-snap", 8), k = 8;
  for (int b = 0; b < 8; b++) msg[k++] = (uint8_t)(seed >> (8 * b));
  size_t tl = strlen(tag);
  memcpy(msg + k, tag, tl), k += tl;
  for (int b = 0; b < 8; b++) msg[k++] = (uint8_t)(i >> (8 * b));
  czk_sha256(out, msg, k);
  out[31] &= 0x3f;
}

static const uint8_t *bt_node(const btree *t, unsigned l, uint64_t i) {
  return t->per_block[l] ? t->layer[l] + 32 * ((i * t->span[l]) >> t->logblock) : t->layer[l] + 32 * i;
}

static void bt_free(btree *t) {
  for (unsigned l = 0; l <= t->nlev; l++) free(t->layer[l]);
  memset(t, 0, sizeof *t);
}

typedef struct layer_job {
  btree *t;
  unsigned l;
  czk_status *st; /* one per item range: the first failure wins (written by its own range only) */
} layer_job;

static void hash_range(void *arg, size_t begin, size_t end) {
  layer_job *j = arg;
  btree *t = j->t;
  unsigned l = j->l, a = t->arity[l - 1];
  uint8_t group[CZK_FC_MAX_ARITY * 32];
  for (size_t i = begin; i < end; i++) {
    for (unsigned q = 0; q < a; q++)
      memcpy(group + 32 * q, t->per_block[l] ? t->layer[l - 1] + 32 * i : bt_node(t, l - 1, (uint64_t)i * a + q), 32);
    czk_status st = czk_fc_node_hash(t->h, t->layer[l] + 32 * i, group, a);
    if (st != CZK_OK) {
      j->st[begin] = st;
      return;
    }
  }
}

/* Builds the tree over `blocks` (nodes >> logblock values), which it takes over (freed with the tree, or at once
 * on failure). Each layer's nodes are hashed in parallel on the default pool. */
static czk_status bt_build(btree *t, czk_fc_hasher h, const unsigned *arity, unsigned nlev, uint64_t nodes,
                           unsigned logblock, uint8_t *blocks) {
  memset(t, 0, sizeof *t);
  t->h = h;
  t->nlev = nlev;
  t->logblock = logblock;
  memcpy(t->arity, arity, nlev * sizeof *arity);
  t->span[0] = 1;
  t->count[0] = nodes;
  t->per_block[0] = true;
  t->layer[0] = blocks;
  uint64_t nblocks = nodes >> logblock, block = 1ull << logblock;
  czk_status *st = calloc((size_t)(nblocks > nodes / 2 ? nblocks : nodes / 2) + 1, sizeof *st);
  if (!st) {
    bt_free(t);
    return CZK_ERR_NOMEM;
  }
  for (unsigned l = 1; l <= nlev; l++) {
    unsigned a = arity[l - 1];
    t->span[l] = t->span[l - 1] * a;
    t->count[l] = t->count[l - 1] / a;
    t->per_block[l] = t->span[l] <= block;
    uint64_t n = t->per_block[l] ? nblocks : t->count[l];
    t->layer[l] = malloc((size_t)n * 32);
    if (!t->layer[l]) {
      free(st);
      bt_free(t);
      return CZK_ERR_NOMEM;
    }
    layer_job j = {t, l, st};
    czk_pool_parallel_for(NULL, (size_t)n, 64, hash_range, &j);
    for (uint64_t i = 0; i < n; i++)
      if (st[i] != CZK_OK) {
        czk_status e = st[i];
        free(st);
        bt_free(t);
        return e;
      }
  }
  free(st);
  return CZK_OK;
}

/* Opening of leaf c: per level the position and the arity - 1 siblings in order. */
static void bt_open(const btree *t, uint64_t c, uint8_t *index, uint8_t (*sib)[32], uint8_t root[32],
                    uint8_t leaf[32]) {
  memcpy(leaf, bt_node(t, 0, c), 32);
  memcpy(root, bt_node(t, t->nlev, 0), 32);
  uint64_t idx = c;
  unsigned s = 0;
  for (unsigned l = 0; l < t->nlev; l++) {
    unsigned a = t->arity[l], pos = (unsigned)(idx % a);
    uint64_t first = idx - pos;
    index[l] = (uint8_t)pos;
    for (unsigned i = 0; i < a; i++)
      if (i != pos) memcpy(sib[s++], bt_node(t, l, first + i), 32);
    idx /= a;
  }
}

void czk_snap_update_free(czk_snap_update *u) {
  if (!u) return;
  for (uint32_t k = 0; u->parts && k < u->n_parts; k++) czk_snap_partition_free(&u->parts[k]);
  free(u->parts);
  memset(u, 0, sizeof *u);
}

czk_status czk_snap_generate(const czk_snap_info *info, const czk_snap_gen_input *in, czk_snap_update *out) {
  memset(out, 0, sizeof *out);
  if (!info || !in || (in->mode != CZK_SNAP_GEN_DENSE && in->mode != CZK_SNAP_GEN_SPARSE) ||
      (in->mode == CZK_SNAP_GEN_SPARSE && (in->old_replica || in->new_data)))
    return CZK_ERR_INVALID_ARG;
  bool dense = in->mode == CZK_SNAP_GEN_DENSE;
  if (dense && info->nodes > DENSE_MAX_NODES) return CZK_ERR_LIMIT;
  unsigned logblock = dense ? 0 : info->d - info->h;
  uint64_t nblocks = info->nodes >> logblock;
  unsigned r_ar[CZK_SNAP_MAX_R_LEVELS], d_ar[CZK_SNAP_MAX_D_LEVELS];
  unsigned rl = czk_snap_r_levels(info);
  for (unsigned l = 0; l < rl; l++) r_ar[l] = czk_snap_r_level_arity(info, l);
  for (unsigned l = 0; l < info->d; l++) d_ar[l] = 2;
  btree r_old, d_new, r_new;
  memset(&r_old, 0, sizeof r_old), memset(&d_new, 0, sizeof d_new), memset(&r_new, 0, sizeof r_new);
  uint8_t *vo = malloc((size_t)nblocks * 32), *vd = malloc((size_t)nblocks * 32), *vn = malloc((size_t)nblocks * 32);
  uint8_t(*rhos)[32] = malloc(((size_t)1 << info->h) * 32);
  uint64_t *chal = malloc(info->challenges * sizeof *chal);
  czk_status st = vo && vd && vn && rhos && chal ? CZK_OK : CZK_ERR_NOMEM;
  /* the old replica and the new data, block by block */
  for (uint64_t b = 0; b < nblocks && st == CZK_OK; b++) {
    czk_fr f;
    if (in->old_replica) memcpy(vo + 32 * b, in->old_replica + 32 * b, 32);
    else derive(vo + 32 * b, in->seed, "sector-key", b);
    if (in->new_data) memcpy(vd + 32 * b, in->new_data + 32 * b, 32);
    else derive(vd + 32 * b, in->seed, "data", b);
    if (czk_fr_from_bytes_le(&f, vo + 32 * b) != CZK_OK || (vd[32 * b + 31] & 0xc0)) st = CZK_ERR_NOT_CANONICAL;
  }
  if (st == CZK_OK) {
    if (in->comm_c) memcpy(out->comm_c, in->comm_c, 32);
    else derive(out->comm_c, in->seed, "comm_c", 0);
    czk_fr f;
    st = czk_fr_from_bytes_le(&f, out->comm_c);
  }
  /* TreeR_old, TreeD: comm_r_old, comm_d_new, phi */
  if (st == CZK_OK) st = bt_build(&r_old, CZK_FC_POSEIDON, r_ar, rl, info->nodes, logblock, vo), vo = NULL; /* taken over */
  if (st == CZK_OK) st = bt_build(&d_new, CZK_FC_SHA256, d_ar, info->d, info->nodes, logblock, vd), vd = NULL; /* taken over */
  if (st == CZK_OK) {
    memcpy(out->root_r_old, bt_node(&r_old, rl, 0), 32);
    memcpy(out->comms.comm_d_new, bt_node(&d_new, info->d, 0), 32);
    st = czk_snap_comm_r(out->comms.comm_r_old, out->comm_c, out->root_r_old);
  }
  if (st == CZK_OK) st = czk_snap_phi(out->phi, out->comms.comm_d_new, out->comms.comm_r_old);
  /* the encoding, then TreeR_new and comm_r_new */
  for (uint64_t hi = 0; hi < (1ull << info->h) && st == CZK_OK; hi++) st = czk_snap_rho(rhos[hi], out->phi, hi);
  for (uint64_t b = 0; b < nblocks && st == CZK_OK; b++)
    st = czk_snap_encode(vn + 32 * b, bt_node(&r_old, 0, b << logblock), bt_node(&d_new, 0, b << logblock),
                         rhos[czk_snap_high(info, b << logblock)]);
  if (st == CZK_OK) st = bt_build(&r_new, CZK_FC_POSEIDON, r_ar, rl, info->nodes, logblock, vn), vn = NULL; /* taken over */
  if (st == CZK_OK) {
    memcpy(out->root_r_new, bt_node(&r_new, rl, 0), 32);
    st = czk_snap_comm_r(out->comms.comm_r_new, out->comm_c, out->root_r_new);
  }
  /* the partition proofs */
  if (st == CZK_OK) {
    out->parts = calloc(info->partitions, sizeof *out->parts);
    if (!out->parts) st = CZK_ERR_NOMEM;
    else out->n_parts = info->partitions;
  }
  unsigned apex_layer = info->d - info->pbl - info->abl;
  for (uint32_t k = 0; k < out->n_parts && st == CZK_OK; k++) {
    czk_snap_partition *p = &out->parts[k];
    memcpy(p->comm_c, out->comm_c, 32);
    p->apex = malloc((size_t)info->apex_leaves * 32);
    p->ch = calloc(info->challenges, sizeof *p->ch);
    if (!p->apex || !p->ch) {
      st = CZK_ERR_NOMEM;
      break;
    }
    p->n_apex = info->apex_leaves;
    p->n_challenges = info->challenges;
    for (uint32_t j = 0; j < info->apex_leaves; j++)
      memcpy(p->apex[j], bt_node(&d_new, apex_layer, (uint64_t)k * info->apex_leaves + j), 32);
    st = czk_snap_challenges(info, out->comms.comm_r_new, k, chal);
    for (uint32_t t = 0; t < info->challenges && st == CZK_OK; t++) {
      czk_snap_challenge_proof *cp = &p->ch[t];
      bt_open(&r_old, chal[t], cp->r_old.index, cp->r_old.sib, cp->r_old.root, cp->r_old.leaf);
      bt_open(&d_new, chal[t], cp->d_new.index, cp->d_new.sib, cp->d_new.root, cp->d_new.leaf);
      bt_open(&r_new, chal[t], cp->r_new.index, cp->r_new.sib, cp->r_new.root, cp->r_new.leaf);
    }
  }
  bt_free(&r_old), bt_free(&d_new), bt_free(&r_new);
  free(vo), free(vd), free(vn), free(rhos), free(chal);
  if (st != CZK_OK) czk_snap_update_free(out);
  return st;
}
