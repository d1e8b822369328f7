/* tree.c: Filecoin Merkle trees over 32-byte nodes (merkletree crate semantics as used by rust-fil-proofs), on the
 * node hashes of hash.h (circuits/merkle_node.c): a streaming builder (O(arity * height) memory, zero tails filled
 * with cached all-zero subtree roots), comm_d, in-memory trees with the sector shapes <base, sub, top> and inclusion
 * proofs.
 *
 * Tree layout: leaves are not hashed (leaf(x) = x). A compound tree with sub (and top) arity is sub*top equal base
 * trees side by side, their roots hashed by sub-arity nodes and those by one top-arity node; so every tree here is a
 * mixed-radix tree with per-level arities [base x k, sub, top], and a leaf index decomposes in that radix (leaf
 * level least significant). Cost: (n - 1) / (arity - 1) node hashes for a uniform tree of n leaves. */
#include <stdlib.h>
#include <string.h>

#include "czk/filecoin.h"

/* ------------------------------------------------------------------------------------------------ zero roots */
void czk_fc_sha256_zero_root(uint8_t out[32], unsigned height) {
  uint8_t cur[32] = {0};
  for (unsigned i = 0; i < height && i < 63; i++) czk_fc_sha256_node(cur, cur, cur);
  memcpy(out, cur, 32);
}

/* ------------------------------------------------------------------------------------------------ streaming */
czk_status czk_fc_stream_init(czk_fc_stream *s, czk_fc_hasher h, unsigned arity) {
  if (!s || arity < 2 || arity > CZK_FC_MAX_ARITY || (h != CZK_FC_SHA256 && h != CZK_FC_POSEIDON))
    return CZK_ERR_INVALID_ARG;
  s->hasher = h;
  s->arity = arity;
  s->height = 0;
  s->leaves = 0;
  memset(s->npending, 0, sizeof s->npending);
  s->err = CZK_OK;
  return CZK_OK;
}

/* Adds a node at `level` (all lower levels must be empty) and carries full groups upwards. */
static czk_status stream_push_at(czk_fc_stream *s, unsigned level, const uint8_t node[32]) {
  uint8_t cur[32];
  memcpy(cur, node, 32);
  for (;;) {
    if (level >= 64) return s->err = CZK_ERR_LIMIT;
    memcpy(s->pending[level][s->npending[level]++], cur, 32);
    if (level + 1 > s->height) s->height = level + 1;
    if (s->npending[level] < s->arity) return CZK_OK;
    czk_status st = czk_fc_node_hash(s->hasher, cur, &s->pending[level][0][0], s->arity);
    if (st != CZK_OK) return s->err = st;
    s->npending[level] = 0;
    level++;
  }
}

czk_status czk_fc_stream_push(czk_fc_stream *s, const uint8_t leaf[32]) {
  if (s->err != CZK_OK) return s->err;
  if (s->hasher == CZK_FC_POSEIDON) { /* reject non-canonical leaves now, not at some later node */
    czk_fr x;
    czk_status st = czk_fr_from_bytes_le(&x, leaf);
    if (st != CZK_OK) return s->err = st;
  }
  CZK_TRY(stream_push_at(s, 0, leaf));
  s->leaves++;
  return CZK_OK;
}

static bool is_power_of(uint64_t n, unsigned a) {
  if (n == 0) return false;
  while (n % a == 0) n /= a;
  return n == 1;
}

czk_status czk_fc_stream_fill_zero(czk_fc_stream *s, uint64_t total) {
  if (s->err != CZK_OK) return s->err;
  if (!is_power_of(total, s->arity) || total < s->leaves) return CZK_ERR_INVALID_ARG;
  uint8_t zero[64][32];
  uint64_t span[64];
  unsigned nz = 1;
  memset(zero[0], 0, 32);
  span[0] = 1;
  while (s->leaves < total) {
    /* The largest all-zero subtree that starts at the current count and fits. */
    unsigned h = 0;
    while (h + 1 < 64 && span[h] <= UINT64_MAX / s->arity) {
      if (h + 1 >= nz) { /* zero root of the next height */
        uint8_t kids[CZK_FC_MAX_ARITY][32];
        for (unsigned i = 0; i < s->arity; i++) memcpy(kids[i], zero[h], 32);
        czk_status st = czk_fc_node_hash(s->hasher, zero[h + 1], &kids[0][0], s->arity);
        if (st != CZK_OK) return s->err = st;
        span[h + 1] = span[h] * s->arity;
        nz = h + 2;
      }
      uint64_t next = span[h + 1];
      if (s->leaves % next != 0 || s->leaves + next > total) break;
      h++;
    }
    CZK_TRY(stream_push_at(s, h, zero[h]));
    s->leaves += span[h];
  }
  return CZK_OK;
}

czk_status czk_fc_stream_root(const czk_fc_stream *s, uint8_t root[32]) {
  if (s->err != CZK_OK) return s->err;
  if (!is_power_of(s->leaves, s->arity)) return CZK_ERR_STATE;
  for (unsigned l = 0; l < s->height; l++) {
    if (s->npending[l] == 0) continue;
    if (s->npending[l] != 1 || l + 1 != s->height) return CZK_ERR_INTERNAL;
    memcpy(root, s->pending[l][0], 32);
    return CZK_OK;
  }
  return CZK_ERR_INTERNAL;
}

/* ------------------------------------------------------------------------------------------------ comm_d */
czk_status czk_fc_comm_d(uint8_t out[32], const uint8_t *unpadded, size_t len, uint64_t padded_size) {
  if (!out || (len && !unpadded)) return CZK_ERR_INVALID_ARG;
  uint64_t plen = czk_fr32_padded_len(len);
  if (padded_size == 0) {
    padded_size = 128;
    while (padded_size < plen) padded_size <<= 1;
  }
  if (padded_size < 128 || (padded_size & (padded_size - 1)) || padded_size < plen) return CZK_ERR_INVALID_ARG;
  czk_fc_stream *s = malloc(sizeof *s);
  if (!s) return CZK_ERR_NOMEM;
  czk_status st = czk_fc_stream_init(s, CZK_FC_SHA256, 2);
  uint8_t block[128];
  for (size_t off = 0; st == CZK_OK && off < len; off += 127) {
    size_t take = len - off < 127 ? len - off : 127;
    memset(block, 0, sizeof block);
    czk_fr32_pad(block, unpadded + off, take);
    for (int i = 0; i < 4 && st == CZK_OK; i++) st = czk_fc_stream_push(s, block + 32 * i);
  }
  if (st == CZK_OK) st = czk_fc_stream_fill_zero(s, padded_size / 32);
  if (st == CZK_OK) st = czk_fc_stream_root(s, out);
  free(s);
  return st;
}

/* ------------------------------------------------------------------------------------------------ in-memory tree */
struct czk_fc_tree {
  czk_fc_hasher hasher;
  unsigned n_levels;              /* hashing levels; level l has arity[l] and nodes[l] children */
  unsigned arity[CZK_FC_MAX_PATH];
  uint64_t count[CZK_FC_MAX_PATH + 1]; /* nodes per layer; layer 0 = leaves */
  uint8_t *layer[CZK_FC_MAX_PATH + 1];
};

void czk_fc_tree_free(czk_fc_tree *t) {
  if (!t) return;
  for (unsigned l = 0; l <= t->n_levels; l++) free(t->layer[l]);
  free(t);
}

czk_status czk_fc_tree_build(czk_fc_tree **out, czk_fc_hasher h, const uint8_t *leaves, uint64_t n_leaves,
                             unsigned base_arity, unsigned sub_arity, unsigned top_arity) {
  if (!out || !leaves || (h != CZK_FC_SHA256 && h != CZK_FC_POSEIDON)) return CZK_ERR_INVALID_ARG;
  if (base_arity < 2 || base_arity > CZK_FC_MAX_ARITY || sub_arity == 1 || sub_arity > CZK_FC_MAX_ARITY ||
      top_arity == 1 || top_arity > CZK_FC_MAX_ARITY || (top_arity && !sub_arity))
    return CZK_ERR_INVALID_ARG;
  uint64_t groups = (uint64_t)(sub_arity ? sub_arity : 1) * (top_arity ? top_arity : 1);
  if (n_leaves % groups) return CZK_ERR_SIZE_MISMATCH;
  uint64_t per = n_leaves / groups;
  if (per < base_arity || !is_power_of(per, base_arity)) return CZK_ERR_SIZE_MISMATCH;
  czk_fc_tree *t = calloc(1, sizeof *t);
  if (!t) return CZK_ERR_NOMEM;
  t->hasher = h;
  for (uint64_t x = per; x > 1; x /= base_arity) t->arity[t->n_levels++] = base_arity;
  if (sub_arity) t->arity[t->n_levels++] = sub_arity;
  if (top_arity) t->arity[t->n_levels++] = top_arity;
  czk_status st = CZK_OK;
  t->count[0] = n_leaves;
  t->layer[0] = malloc((size_t)n_leaves * 32);
  if (!t->layer[0]) st = CZK_ERR_NOMEM;
  if (st == CZK_OK) memcpy(t->layer[0], leaves, (size_t)n_leaves * 32);
  if (st == CZK_OK && h == CZK_FC_POSEIDON)
    for (uint64_t i = 0; i < n_leaves && st == CZK_OK; i++) {
      czk_fr x;
      st = czk_fr_from_bytes_le(&x, leaves + 32 * i);
    }
  for (unsigned l = 0; l < t->n_levels && st == CZK_OK; l++) {
    uint64_t n = t->count[l] / t->arity[l];
    t->count[l + 1] = n;
    t->layer[l + 1] = malloc((size_t)n * 32);
    if (!t->layer[l + 1]) {
      st = CZK_ERR_NOMEM;
      break;
    }
    for (uint64_t i = 0; i < n && st == CZK_OK; i++)
      st = czk_fc_node_hash(h, t->layer[l + 1] + 32 * i, t->layer[l] + 32 * i * t->arity[l], t->arity[l]);
  }
  if (st != CZK_OK) {
    czk_fc_tree_free(t);
    return st;
  }
  *out = t;
  return CZK_OK;
}

void czk_fc_tree_root(const czk_fc_tree *t, uint8_t root[32]) { memcpy(root, t->layer[t->n_levels], 32); }

uint64_t czk_fc_tree_leaves(const czk_fc_tree *t) { return t->count[0]; }

czk_status czk_fc_tree_prove(const czk_fc_tree *t, uint64_t index, czk_fc_path_level *path, size_t *n_levels) {
  if (!t || !path || !n_levels || index >= t->count[0]) return CZK_ERR_INVALID_ARG;
  for (unsigned l = 0; l < t->n_levels; l++) {
    unsigned a = t->arity[l], pos = (unsigned)(index % a);
    uint64_t first = index - pos;
    path[l].arity = a;
    path[l].index = pos;
    for (unsigned i = 0, k = 0; i < a; i++)
      if (i != pos) memcpy(path[l].siblings[k++], t->layer[l] + 32 * (first + i), 32);
    index /= a;
  }
  *n_levels = t->n_levels;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ sparse trees */
typedef struct sp_node {
  uint64_t idx;
  uint8_t v[32];
} sp_node;

struct czk_fc_sparse {
  czk_fc_hasher hasher;
  unsigned n_levels;
  unsigned arity[CZK_FC_MAX_PATH];
  uint64_t n_leaves;
  sp_node *lv[CZK_FC_MAX_PATH + 1]; /* listed nodes of each height, sorted by index */
  size_t len[CZK_FC_MAX_PATH + 1];
  uint8_t dflt[CZK_FC_MAX_PATH + 1][32];
};

static int sp_cmp(const void *a, const void *b) {
  const sp_node *x = a, *y = b;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static const uint8_t *sp_find(const czk_fc_sparse *t, unsigned l, uint64_t idx) {
  size_t lo = 0, hi = t->len[l];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->lv[l][mid].idx < idx) lo = mid + 1;
    else hi = mid;
  }
  return lo < t->len[l] && t->lv[l][lo].idx == idx ? t->lv[l][lo].v : t->dflt[l];
}

void czk_fc_sparse_free(czk_fc_sparse *t) {
  if (!t) return;
  for (unsigned l = 0; l <= t->n_levels; l++) free(t->lv[l]);
  free(t);
}

czk_status czk_fc_sparse_build(czk_fc_sparse **out, czk_fc_hasher h, uint64_t n_leaves, unsigned base_arity,
                               unsigned sub_arity, unsigned top_arity, const uint64_t *index, const uint8_t *leaves,
                               size_t n, const uint8_t default_leaf[32]) {
  if (!out || (n && (!index || !leaves)) || (h != CZK_FC_SHA256 && h != CZK_FC_POSEIDON)) return CZK_ERR_INVALID_ARG;
  if (base_arity < 2 || base_arity > CZK_FC_MAX_ARITY || sub_arity == 1 || sub_arity > CZK_FC_MAX_ARITY ||
      top_arity == 1 || top_arity > CZK_FC_MAX_ARITY || (top_arity && !sub_arity) || n_leaves > (1ull << 62))
    return CZK_ERR_INVALID_ARG;
  uint64_t groups = (uint64_t)(sub_arity ? sub_arity : 1) * (top_arity ? top_arity : 1);
  if (n_leaves % groups) return CZK_ERR_SIZE_MISMATCH;
  uint64_t per = n_leaves / groups;
  if (per < base_arity || !is_power_of(per, base_arity)) return CZK_ERR_SIZE_MISMATCH;
  czk_fc_sparse *t = calloc(1, sizeof *t);
  if (!t) return CZK_ERR_NOMEM;
  t->hasher = h;
  t->n_leaves = n_leaves;
  for (uint64_t x = per; x > 1; x /= base_arity) t->arity[t->n_levels++] = base_arity;
  if (sub_arity) t->arity[t->n_levels++] = sub_arity;
  if (top_arity) t->arity[t->n_levels++] = top_arity;
  czk_status st = CZK_OK;
  if (default_leaf) memcpy(t->dflt[0], default_leaf, 32);
  t->lv[0] = malloc((n ? n : 1) * sizeof(sp_node));
  if (!t->lv[0]) st = CZK_ERR_NOMEM;
  for (size_t i = 0; i < n && st == CZK_OK; i++) {
    if (index[i] >= n_leaves) st = CZK_ERR_INVALID_ARG;
    t->lv[0][i].idx = index[i];
    memcpy(t->lv[0][i].v, leaves + 32 * i, 32);
    czk_fr x;
    if (st == CZK_OK && h == CZK_FC_POSEIDON) st = czk_fr_from_bytes_le(&x, leaves + 32 * i);
  }
  if (st == CZK_OK && default_leaf && h == CZK_FC_POSEIDON) {
    czk_fr x;
    st = czk_fr_from_bytes_le(&x, default_leaf);
  }
  if (st == CZK_OK) { /* sort, merge duplicates (which must agree) */
    qsort(t->lv[0], n, sizeof(sp_node), sp_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n && st == CZK_OK; i++) {
      if (k && t->lv[0][k - 1].idx == t->lv[0][i].idx) {
        if (memcmp(t->lv[0][k - 1].v, t->lv[0][i].v, 32) != 0) st = CZK_ERR_INVALID_ARG;
        continue;
      }
      t->lv[0][k++] = t->lv[0][i];
    }
    t->len[0] = k;
  }
  uint8_t group[CZK_FC_MAX_ARITY * 32];
  for (unsigned l = 0; l < t->n_levels && st == CZK_OK; l++) {
    unsigned a = t->arity[l];
    for (unsigned i = 0; i < a; i++) memcpy(group + 32 * i, t->dflt[l], 32);
    st = czk_fc_node_hash(h, t->dflt[l + 1], group, a);
    t->lv[l + 1] = malloc((t->len[l] ? t->len[l] : 1) * sizeof(sp_node));
    if (st == CZK_OK && !t->lv[l + 1]) st = CZK_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < t->len[l] && st == CZK_OK; i++) {
      uint64_t parent = t->lv[l][i].idx / a;
      if (k && t->lv[l + 1][k - 1].idx == parent) continue;
      for (unsigned c = 0; c < a; c++) memcpy(group + 32 * c, sp_find(t, l, parent * a + c), 32);
      t->lv[l + 1][k].idx = parent;
      st = czk_fc_node_hash(h, t->lv[l + 1][k].v, group, a);
      k++;
    }
    t->len[l + 1] = k;
  }
  if (st != CZK_OK) {
    czk_fc_sparse_free(t);
    return st;
  }
  *out = t;
  return CZK_OK;
}

void czk_fc_sparse_root(const czk_fc_sparse *t, uint8_t root[32]) { memcpy(root, sp_find(t, t->n_levels, 0), 32); }

void czk_fc_sparse_leaf(const czk_fc_sparse *t, uint64_t index, uint8_t leaf[32]) {
  memcpy(leaf, sp_find(t, 0, index), 32);
}

czk_status czk_fc_sparse_prove(const czk_fc_sparse *t, uint64_t index, czk_fc_path_level *path, size_t *n_levels) {
  if (!t || !path || !n_levels || index >= t->n_leaves) return CZK_ERR_INVALID_ARG;
  for (unsigned l = 0; l < t->n_levels; l++) {
    unsigned a = t->arity[l], pos = (unsigned)(index % a);
    uint64_t first = index - pos;
    path[l].arity = a;
    path[l].index = pos;
    for (unsigned i = 0, k = 0; i < a; i++)
      if (i != pos) memcpy(path[l].siblings[k++], sp_find(t, l, first + i), 32);
    index /= a;
  }
  *n_levels = t->n_levels;
  return CZK_OK;
}
