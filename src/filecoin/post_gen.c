/* post_gen.c: valid PoSt vanilla proofs for tests and benchmarks (filecoin-post.md section 7), dense or sparse.
 * The tree R_last is a mixed-arity tree (base levels, then sub, then top: the leaf index in mixed radix, as the
 * reference splits a sector into base trees). A level is kept as the sorted list of its known nodes; a node that is
 * not listed is the default node of its height (leaf: zero; above: the hash of `arity` defaults). Dense: every leaf
 * is listed (sectors up to 8 MiB). Sparse: only the challenged leaves, so a proof at 32 GiB or 64 GiB costs a few
 * hundred hashes and each opening is a valid opening of the (sparse) tree's root at the real size.
 * Leaves and comm_c derive from the seed: SHA-256("czk-post" || u64le(seed) || tag || u64le(sector) || u64le(i)) with
 * the top two bits cleared (a canonical field element). */
#include <stdlib.h>
#include <string.h>

#include "czk/post.h"

#define DENSE_MAX_SIZE (8ull << 20)

typedef struct node {
  uint64_t idx;
  uint8_t v[32];
} node;

typedef struct level {
  node *n;
  size_t len;
} level;

static void derive(uint8_t out[32], uint64_t seed, const char *tag, uint64_t sector, uint64_t i) {
  uint8_t msg[64];
  size_t k = 0;
  memcpy(msg, "czk-post", 8), k = 8;
  for (int b = 0; b < 8; b++) msg[k++] = (uint8_t)(seed >> (8 * b));
  size_t tl = strlen(tag);
  memcpy(msg + k, tag, tl), k += tl;
  for (int b = 0; b < 8; b++) msg[k++] = (uint8_t)(sector >> (8 * b));
  for (int b = 0; b < 8; b++) msg[k++] = (uint8_t)(i >> (8 * b));
  czk_sha256(out, msg, k);
  out[31] &= 0x3f;
}

static const uint8_t *find(const level *lv, uint64_t idx, const uint8_t *dflt) {
  size_t lo = 0, hi = lv->len;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (lv->n[mid].idx < idx) lo = mid + 1;
    else hi = mid;
  }
  return lo < lv->len && lv->n[lo].idx == idx ? lv->n[lo].v : dflt;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

czk_status czk_post_generate(const czk_post_info *info, czk_post_gen_mode mode, uint64_t seed, uint64_t sector_id,
                             uint64_t sector_index, const uint8_t randomness[32], const uint8_t *leaves,
                             const uint8_t comm_c[32], czk_post_sector *out) {
  memset(out, 0, sizeof *out);
  if (!info || !randomness || (mode != CZK_POST_GEN_DENSE && mode != CZK_POST_GEN_SPARSE) ||
      (leaves && mode != CZK_POST_GEN_DENSE))
    return CZK_ERR_INVALID_ARG;
  if (mode == CZK_POST_GEN_DENSE && info->sector_size > DENSE_MAX_SIZE) return CZK_ERR_LIMIT;
  uint64_t nleaves = info->sector_size / 32;
  unsigned nlev = czk_post_levels(info);
  uint32_t nch = info->challenge_count;
  uint64_t *ch = malloc(nch * sizeof *ch);
  level lv[CZK_POST_MAX_LEVELS + 1];
  memset(lv, 0, sizeof lv);
  uint8_t dflt[CZK_POST_MAX_LEVELS + 1][32];
  czk_status st = ch ? CZK_OK : CZK_ERR_NOMEM;
  for (uint32_t n = 0; n < nch && st == CZK_OK; n++) ch[n] = czk_post_challenge(info, randomness, sector_id, sector_index, n);

  /* level 0: the listed leaves */
  if (st == CZK_OK) {
    size_t cnt = mode == CZK_POST_GEN_DENSE ? (size_t)nleaves : nch;
    lv[0].n = malloc(cnt * sizeof(node));
    if (!lv[0].n) st = CZK_ERR_NOMEM;
    if (st == CZK_OK && mode == CZK_POST_GEN_DENSE) {
      for (uint64_t i = 0; i < nleaves && st == CZK_OK; i++) {
        lv[0].n[i].idx = i;
        if (leaves) {
          czk_fr f;
          memcpy(lv[0].n[i].v, leaves + 32 * i, 32);
          st = czk_fr_from_bytes_le(&f, lv[0].n[i].v);
        } else {
          derive(lv[0].n[i].v, seed, "leaf", sector_id, i);
        }
      }
      lv[0].len = (size_t)nleaves;
    } else if (st == CZK_OK) {
      uint64_t *sorted = malloc(nch * sizeof *sorted);
      if (!sorted) st = CZK_ERR_NOMEM;
      if (st == CZK_OK) {
        memcpy(sorted, ch, nch * sizeof *sorted);
        qsort(sorted, nch, sizeof *sorted, cmp_u64);
        size_t k = 0;
        for (uint32_t n = 0; n < nch; n++) {
          if (k && lv[0].n[k - 1].idx == sorted[n]) continue;
          lv[0].n[k].idx = sorted[n];
          derive(lv[0].n[k].v, seed, "leaf", sector_id, sorted[n]);
          k++;
        }
        lv[0].len = k;
      }
      free(sorted);
    }
  }
  memset(dflt[0], 0, 32);
  /* levels 1 .. nlev: parents of the listed nodes */
  for (unsigned l = 0; l < nlev && st == CZK_OK; l++) {
    unsigned a = czk_post_level_arity(info, l);
    uint8_t group[CZK_FC_MAX_ARITY * 32];
    for (unsigned i = 0; i < a; i++) memcpy(group + 32 * i, dflt[l], 32);
    st = czk_fc_node_hash(CZK_FC_POSEIDON, dflt[l + 1], group, a);
    if (st != CZK_OK) break;
    lv[l + 1].n = malloc((lv[l].len ? lv[l].len : 1) * sizeof(node));
    if (!lv[l + 1].n) {
      st = CZK_ERR_NOMEM;
      break;
    }
    size_t k = 0;
    for (size_t i = 0; i < lv[l].len && st == CZK_OK; i++) {
      uint64_t parent = lv[l].n[i].idx / a;
      if (k && lv[l + 1].n[k - 1].idx == parent) continue;
      for (unsigned c = 0; c < a; c++) memcpy(group + 32 * c, find(&lv[l], parent * a + c, dflt[l]), 32);
      lv[l + 1].n[k].idx = parent;
      st = czk_fc_node_hash(CZK_FC_POSEIDON, lv[l + 1].n[k].v, group, a);
      k++;
    }
    lv[l + 1].len = k;
  }
  if (st == CZK_OK && (lv[nlev].len != 1 || lv[nlev].n[0].idx != 0)) st = CZK_ERR_INTERNAL;

  if (st == CZK_OK) {
    out->sector_id = sector_id;
    memcpy(out->comm_r_last, lv[nlev].n[0].v, 32);
    if (comm_c) {
      czk_fr f;
      memcpy(out->comm_c, comm_c, 32);
      st = czk_fr_from_bytes_le(&f, comm_c);
    } else {
      derive(out->comm_c, seed, "comm_c", sector_id, 0);
    }
  }
  if (st == CZK_OK) {
    uint8_t kids[64];
    memcpy(kids, out->comm_c, 32);
    memcpy(kids + 32, out->comm_r_last, 32);
    st = czk_fc_node_hash(CZK_FC_POSEIDON, out->comm_r, kids, 2);
  }
  if (st == CZK_OK) {
    out->openings = calloc(nch, sizeof *out->openings);
    if (!out->openings) st = CZK_ERR_NOMEM;
    else out->n_openings = nch;
  }
  for (uint32_t n = 0; n < nch && st == CZK_OK; n++) {
    czk_post_opening *o = &out->openings[n];
    memcpy(o->root, out->comm_r_last, 32);
    memcpy(o->leaf, find(&lv[0], ch[n], dflt[0]), 32);
    uint64_t idx = ch[n];
    unsigned si = 0;
    for (unsigned l = 0; l < nlev; l++) {
      unsigned a = czk_post_level_arity(info, l);
      unsigned pos = (unsigned)(idx % a);
      uint64_t base = idx - pos;
      o->index[l] = (uint8_t)pos;
      for (unsigned c = 0; c < a; c++)
        if (c != pos) memcpy(o->sib[si++], find(&lv[l], base + c, dflt[l]), 32);
      idx /= a;
    }
  }
  for (unsigned l = 0; l <= nlev; l++) free(lv[l].n);
  free(ch);
  if (st != CZK_OK) czk_post_sector_free(out);
  return st;
}
