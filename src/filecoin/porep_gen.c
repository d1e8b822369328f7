/* porep_gen.c: valid PoRep C1 outputs for tests and benchmarks (filecoin-porep.md section 5), and their serde_json
 * bytes and cuzk envelope.
 *
 * A sector is modelled by its "known" nodes: each has its labels of every layer, its column (leaf of TreeC) and, where
 * challenged, its replica (leaf of TreeR); every tree is a czk_fc_sparse tree whose unlisted nodes are the default of
 * their height (leaf: zero in tree D, one fixed random value in trees C and R_last).
 *   Dense (sectors up to 8 MiB, every mode): every node is known; the data is random, every label is computed from
 *   its parents in order (SDR), so this is a real seal of random data: tree D, labels, tree C, encoding, tree R_last.
 *   Sparse (any size, interactive proofs): the data is zero (a committed-capacity sector: comm_d is the zero tree's
 *   root), the known nodes are the challenged nodes and their 14 parents; the parents' labels are random and the
 *   challenged nodes' labels are computed from them layer by layer (a challenged node that is another's parent uses
 *   its computed labels). Every opening is a valid opening of the (sparse) trees at the real size, so the C1 output
 *   passes every native check and satisfies the circuit. Synthetic and non-interactive challenges depend on comm_r,
 *   which depends on the opened nodes, so those modes need a dense sector.
 * Randomness derives from the seed (SHA-256 / ChaCha20 of "czk-porep" || seed || tag): the output is reproducible. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/porep.h"

#define DENSE_MAX_SIZE (8ull << 20)

static void derive(uint8_t out[32], uint64_t seed, const char *tag, uint64_t i) {
  uint8_t msg[96];
  size_t k = 9, tl = strlen(tag);
  memcpy(msg, "czk-porep", 9);
  for (int b = 0; b < 8; b++) msg[k++] = (uint8_t)(seed >> (8 * b));
  memcpy(msg + k, tag, tl), k += tl;
  for (int b = 0; b < 8; b++) msg[k++] = (uint8_t)(i >> (8 * b));
  czk_sha256(out, msg, k);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* sorts and removes repeats; returns the new length */
static size_t sort_unique(uint64_t *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_u64);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!k || v[k - 1] != v[i]) v[k++] = v[i];
  return k;
}

static size_t find(const uint64_t *v, size_t n, uint64_t x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static czk_status to_path(const czk_fc_sparse *t, uint64_t idx, czk_porep_path *p) {
  czk_fc_path_level pl[CZK_FC_MAX_PATH];
  size_t n;
  CZK_TRY(czk_fc_sparse_prove(t, idx, pl, &n));
  if (n > CZK_POREP_MAX_LEVELS) return CZK_ERR_LIMIT;
  unsigned si = 0;
  for (size_t l = 0; l < n; l++) {
    if (si + pl[l].arity - 1 > CZK_POREP_MAX_SIBLINGS) return CZK_ERR_LIMIT;
    p->index[l] = (uint8_t)pl[l].index;
    for (unsigned s = 0; s + 1 < pl[l].arity; s++) memcpy(p->sib[si++], pl[l].siblings[s], 32);
  }
  return CZK_OK;
}

typedef struct gen {
  const czk_porep_info *info;
  uint64_t nodes;
  unsigned L;
  size_t nk;          /* known nodes */
  uint64_t *known;    /* sorted */
  uint8_t *labels;    /* nk * L * 32: labels[(i * L + l - 1) * 32] */
  uint8_t *data;      /* nk * 32 (dense) or NULL (zero data) */
  uint32_t *par;      /* nk * 14 positions in known (computed nodes only) */
  uint8_t *computed;  /* nk flags */
} gen;

static uint8_t *lab(const gen *g, size_t i, unsigned l) { return g->labels + ((i * g->L) + l - 1) * 32; }

/* parents of every computed node as positions in known (all parents are known by construction) */
static czk_status map_parents(gen *g) {
  for (size_t i = 0; i < g->nk; i++) {
    if (!g->computed[i]) continue;
    uint64_t p[14];
    czk_porep_drg_parents(g->info, g->known[i], p);
    czk_porep_exp_parents(g->info, g->known[i], p + 6);
    for (int t = 0; t < 14; t++) {
      size_t pos = find(g->known, g->nk, p[t]);
      if (pos >= g->nk || g->known[pos] != p[t]) return CZK_ERR_INTERNAL;
      g->par[i * 14 + (size_t)t] = (uint32_t)pos;
    }
  }
  return CZK_OK;
}

/* layer by layer, nodes in increasing order: DRG parents (all < v) of this layer are final when read */
static void label_all(gen *g, const uint8_t replica_id[32]) {
  for (unsigned l = 1; l <= g->L; l++)
    for (size_t i = 0; i < g->nk; i++) {
      if (!g->computed[i]) continue;
      const uint8_t *parents[37];
      unsigned nl = l == 1 ? 6 : 14;
      for (unsigned m = 0; m < 37; m++) {
        unsigned q = m % nl;
        parents[m] = lab(g, g->par[i * 14 + q], q < 6 ? l : l - 1);
      }
      czk_porep_label(lab(g, i, l), replica_id, l, g->known[i], parents);
    }
}

czk_status czk_porep_generate(const czk_porep_info *info, czk_porep_gen_mode mode, uint64_t seed, uint64_t miner_id,
                              uint64_t sector_id, czk_porep_c1 *out) {
  if (!info || !out || (mode != CZK_POREP_GEN_DENSE && mode != CZK_POREP_GEN_SPARSE)) return CZK_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  if (mode == CZK_POREP_GEN_DENSE && info->sector_size > DENSE_MAX_SIZE) return CZK_ERR_LIMIT;
  if (mode == CZK_POREP_GEN_SPARSE && info->feature != 0) return CZK_ERR_UNSUPPORTED;
  if (sodium_init() < 0) return CZK_ERR_INTERNAL;
  gen g = {.info = info, .nodes = info->sector_size / 32, .L = info->layers};
  const uint32_t P = info->partitions, C = info->challenges;
  const size_t nch = (size_t)P * C;
  uint64_t *ch = malloc(nch * sizeof *ch);
  czk_fc_sparse *td = NULL, *tc = NULL, *tr = NULL;
  uint64_t *cidx = NULL;
  uint8_t *leaves = NULL;
  uint8_t prover[32], pid[32], rid[32], comm_d[32], comm_c[32], comm_r_last[32], comm_r[32], ticket[32], rseed[32];
  czk_status st = ch ? CZK_OK : CZK_ERR_NOMEM;
  czk_porep_prover_id(prover, miner_id);
  czk_porep_id(info, pid);
  derive(ticket, seed, "ticket", 0);
  derive(rseed, seed, "seed", 0);

  /* tree D and the replica id */
  if (st == CZK_OK && mode == CZK_POREP_GEN_DENSE) {
    g.nk = (size_t)g.nodes;
    g.known = malloc(g.nk * sizeof *g.known);
    g.data = malloc(g.nk * 32);
    if (!g.known || !g.data) st = CZK_ERR_NOMEM;
    if (st == CZK_OK) {
      uint8_t key[32];
      static const uint8_t nonce[12] = "czk-porep-d";
      derive(key, seed, "data", 0);
      memset(g.data, 0, g.nk * 32);
      crypto_stream_chacha20_ietf_xor(g.data, g.data, g.nk * 32, nonce, key);
      for (size_t i = 0; i < g.nk; i++) {
        g.known[i] = i;
        g.data[32 * i + 31] &= 0x3f; /* canonical */
      }
      st = czk_fc_sparse_build(&td, CZK_FC_SHA256, g.nodes, 2, 0, 0, g.known, g.data, g.nk, NULL);
    }
  } else if (st == CZK_OK) {
    st = czk_fc_sparse_build(&td, CZK_FC_SHA256, g.nodes, 2, 0, 0, NULL, NULL, 0, NULL);
  }
  if (st == CZK_OK) {
    czk_fc_sparse_root(td, comm_d);
    czk_porep_replica_id(rid, prover, sector_id, ticket, comm_d, pid);
  }

  /* the known nodes and their labels */
  if (st == CZK_OK && mode == CZK_POREP_GEN_SPARSE) {
    for (size_t j = 0; j < nch; j++) ch[j] = czk_porep_challenge_at(info, rid, rseed, NULL, (uint32_t)(j / C), (uint32_t)(j % C));
    g.known = malloc(nch * 15 * sizeof *g.known);
    if (!g.known) st = CZK_ERR_NOMEM;
    for (size_t j = 0; j < nch && st == CZK_OK; j++) {
      g.known[15 * j] = ch[j];
      czk_porep_drg_parents(info, ch[j], g.known + 15 * j + 1);
      czk_porep_exp_parents(info, ch[j], g.known + 15 * j + 7);
    }
    if (st == CZK_OK) g.nk = sort_unique(g.known, nch * 15);
  }
  if (st == CZK_OK) {
    g.labels = malloc(g.nk * g.L * 32);
    g.par = malloc(g.nk * 14 * sizeof *g.par);
    g.computed = calloc(g.nk, 1);
    if (!g.labels || !g.par || !g.computed) st = CZK_ERR_NOMEM;
  }
  if (st == CZK_OK) {
    if (mode == CZK_POREP_GEN_DENSE) {
      memset(g.computed, 1, g.nk);
    } else {
      for (size_t i = 0; i < g.nk; i++)
        for (unsigned l = 1; l <= g.L; l++) {
          derive(lab(&g, i, l), seed, "label", g.known[i] * 16 + l);
          lab(&g, i, l)[31] &= 0x3f;
        }
      for (size_t j = 0; j < nch; j++) g.computed[find(g.known, g.nk, ch[j])] = 1;
    }
    st = map_parents(&g);
  }
  if (st == CZK_OK) label_all(&g, rid);

  /* tree C over the known columns, tree R_last over the encodings of the computed nodes */
  if (st == CZK_OK) {
    leaves = malloc(g.nk * 32);
    cidx = malloc(g.nk * sizeof *cidx);
    if (!leaves || !cidx) st = CZK_ERR_NOMEM;
  }
  /* the unopened leaves of trees C and R_last: one fixed random value (so that the default nodes look like hashes) */
  uint8_t dleaf[32];
  derive(dleaf, seed, "default-leaf", 0);
  dleaf[31] &= 0x3f;
  for (size_t i = 0; i < g.nk && st == CZK_OK; i++) st = czk_porep_column_hash(leaves + 32 * i, lab(&g, i, 1), g.L);
  if (st == CZK_OK)
    st = czk_fc_sparse_build(&tc, CZK_FC_POSEIDON, g.nodes, info->base, info->sub, info->top, g.known, leaves, g.nk,
                             dleaf);
  size_t nr = 0;
  for (size_t i = 0; i < g.nk && st == CZK_OK; i++) {
    if (!g.computed[i]) continue;
    czk_fr lf, df;
    st = czk_fr_from_bytes_le(&lf, lab(&g, i, g.L));
    if (st == CZK_OK && g.data) st = czk_fr_from_bytes_le(&df, g.data + 32 * i), czk_fr_add(&lf, &lf, &df);
    czk_fr_to_bytes_le(leaves + 32 * nr, &lf);
    cidx[nr++] = g.known[i];
  }
  if (st == CZK_OK)
    st = czk_fc_sparse_build(&tr, CZK_FC_POSEIDON, g.nodes, info->base, info->sub, info->top, cidx, leaves, nr, dleaf);
  if (st == CZK_OK) {
    uint8_t kids[64];
    czk_fc_sparse_root(tc, comm_c);
    czk_fc_sparse_root(tr, comm_r_last);
    memcpy(kids, comm_c, 32);
    memcpy(kids + 32, comm_r_last, 32);
    st = czk_fc_node_hash(CZK_FC_POSEIDON, comm_r, kids, 2);
  }
  /* dense: the challenges now (synthetic and non-interactive ones depend on comm_r) */
  if (st == CZK_OK && mode == CZK_POREP_GEN_DENSE)
    for (size_t j = 0; j < nch; j++) ch[j] = czk_porep_challenge_at(info, rid, rseed, comm_r, (uint32_t)(j / C), (uint32_t)(j % C));

  /* the C1 output */
  if (st == CZK_OK) {
    out->info = info;
    memcpy(out->comm_r, comm_r, 32);
    memcpy(out->comm_d, comm_d, 32);
    memcpy(out->replica_id, rid, 32);
    memcpy(out->seed, rseed, 32);
    memcpy(out->ticket, ticket, 32);
    out->partitions = P;
    out->challenges = C;
    out->ch = calloc(nch, sizeof *out->ch);
    out->comm_r_last = calloc(P, 32);
    out->comm_c = calloc(P, 32);
    if (!out->ch || !out->comm_r_last || !out->comm_c) st = CZK_ERR_NOMEM;
  }
  for (uint32_t k = 0; k < P && st == CZK_OK; k++) {
    memcpy(out->comm_r_last[k], comm_r_last, 32);
    memcpy(out->comm_c[k], comm_c, 32);
  }
  for (size_t j = 0; j < nch && st == CZK_OK; j++) {
    czk_porep_challenge *o = &out->ch[j];
    uint64_t c = ch[j], p[14];
    o->challenge = c;
    czk_fc_sparse_leaf(td, c, o->data_leaf);
    st = to_path(td, c, &o->d_path);
    if (st == CZK_OK) st = to_path(tr, c, &o->r_path);
    if (st == CZK_OK) st = to_path(tc, c, &o->c_path);
    czk_porep_drg_parents(info, c, p);
    czk_porep_exp_parents(info, c, p + 6);
    for (int t = 0; t < 14 && st == CZK_OK; t++) {
      czk_porep_column *col = t < 6 ? &o->drg[t] : &o->exp[t - 6];
      size_t pos = find(g.known, g.nk, p[t]);
      for (unsigned l = 1; l <= g.L; l++) memcpy(col->rows[l - 1], lab(&g, pos, l), 32);
      st = to_path(tc, p[t], &col->path);
    }
  }
  czk_fc_sparse_free(td);
  czk_fc_sparse_free(tc);
  czk_fc_sparse_free(tr);
  free(ch), free(cidx), free(leaves);
  free(g.known), free(g.labels), free(g.data), free(g.par), free(g.computed);
  if (st != CZK_OK) czk_porep_c1_free(out);
  return st;
}

/* ------------------------------------------------------------------------------------------------ serde_json */
static void w_d(FILE *f, const uint8_t d[32]) {
  fputc('[', f);
  for (int i = 0; i < 32; i++) fprintf(f, i ? ",%u" : "%u", d[i]);
  fputc(']', f);
}

/* InclusionPath of levels [from, to) of p (siblings from *si) */
static void w_ipath(FILE *f, const czk_porep_path *p, const unsigned *ar, unsigned from, unsigned to, unsigned *si) {
  fputs("{\"path\":[", f);
  for (unsigned l = from; l < to; l++) {
    fputs(l > from ? ",{\"hashes\":[" : "{\"hashes\":[", f);
    for (unsigned s = 0; s + 1 < ar[l]; s++) {
      if (s) fputc(',', f);
      w_d(f, p->sib[(*si)++]);
    }
    fprintf(f, "],\"index\":%u}", p->index[l]);
  }
  fputs("]}", f);
}

/* MerkleProof: Single / Sub / Top by the tree's shape */
static void w_merkle(FILE *f, const czk_porep_path *p, const unsigned *ar, unsigned n, unsigned sub, unsigned top,
                     const uint8_t root[32], const uint8_t leaf[32]) {
  unsigned si = 0, base = n - (sub ? 1 : 0) - (top ? 1 : 0);
  if (!sub) {
    fputs("{\"data\":{\"Single\":{\"root\":", f);
    w_d(f, root);
    fputs(",\"leaf\":", f);
    w_d(f, leaf);
    fputs(",\"path\":", f);
    w_ipath(f, p, ar, 0, n, &si);
    fputs("}}}", f);
    return;
  }
  fputs(top ? "{\"data\":{\"Top\":{\"base_proof\":" : "{\"data\":{\"Sub\":{\"base_proof\":", f);
  w_ipath(f, p, ar, 0, base, &si);
  fputs(",\"sub_proof\":", f);
  w_ipath(f, p, ar, base, base + 1, &si);
  if (top) {
    fputs(",\"top_proof\":", f);
    w_ipath(f, p, ar, base + 1, base + 2, &si);
  }
  fputs(",\"root\":", f);
  w_d(f, root);
  fputs(",\"leaf\":", f);
  w_d(f, leaf);
  fputs("}}}", f);
}

static czk_status w_column(FILE *f, uint64_t node, const uint8_t (*rows)[32], unsigned L, const czk_porep_path *p,
                           const unsigned *ar, unsigned n, const czk_porep_info *info, const uint8_t comm_c[32]) {
  uint8_t leaf[32];
  CZK_TRY(czk_porep_column_hash(leaf, rows[0], L));
  fprintf(f, "{\"column\":{\"index\":%llu,\"rows\":[", (unsigned long long)node);
  for (unsigned l = 0; l < L; l++) {
    if (l) fputc(',', f);
    w_d(f, rows[l]);
  }
  fputs("],\"_h\":null},\"inclusion_proof\":", f);
  w_merkle(f, p, ar, n, info->sub, info->top, comm_c, leaf);
  fputc('}', f);
  return CZK_OK;
}

static void w_parents(FILE *f, const czk_porep_challenge *ch, unsigned l, unsigned layer_index) {
  unsigned nl = l == 1 ? 6 : 14;
  fputs("{\"parents\":[", f);
  for (unsigned m = 0; m < 37; m++) {
    unsigned q = m % nl;
    if (m) fputc(',', f);
    w_d(f, q < 6 ? ch->drg[q].rows[l - 1] : ch->exp[q - 6].rows[l - 2]);
  }
  fprintf(f, "],\"layer_index\":%u,\"node\":%llu}", layer_index, (unsigned long long)ch->challenge);
}

czk_status czk_porep_c1_write(const czk_porep_c1 *c1, FILE *f) {
  if (!c1 || !c1->info || !f) return CZK_ERR_INVALID_ARG;
  const czk_porep_info *info = c1->info;
  const unsigned L = info->layers;
  unsigned ard[64], arr[64], nd = 0, nr = 0;
  uint64_t nodes = info->sector_size / 32;
  while ((1ull << nd) < nodes) ard[nd++] = 2;
  uint64_t trees = (uint64_t)(info->sub ? info->sub : 1) * (info->top ? info->top : 1);
  for (uint64_t m = 1; m < nodes / trees; m *= info->base) arr[nr++] = info->base;
  if (info->sub) arr[nr++] = info->sub;
  if (info->top) arr[nr++] = info->top;
  fprintf(f, "{\"registered_proof\":\"%s\",\"vanilla_proofs\":{\"StackedDrg%sV1\":[", info->name, info->size_name);
  for (uint32_t k = 0; k < c1->partitions; k++) {
    fputs(k ? ",[" : "[", f);
    for (uint32_t i = 0; i < c1->challenges; i++) {
      const czk_porep_challenge *ch = &c1->ch[(size_t)k * c1->challenges + i];
      /* the challenged node's labels (its column) and its encoding, recomputed from the parents' rows */
      uint8_t labels[CZK_POREP_MAX_LAYERS][32], enc[32];
      for (unsigned l = 1; l <= L; l++) {
        const uint8_t *par[37];
        unsigned nl = l == 1 ? 6 : 14;
        for (unsigned m = 0; m < 37; m++) {
          unsigned q = m % nl;
          par[m] = q < 6 ? ch->drg[q].rows[l - 1] : ch->exp[q - 6].rows[l - 2];
        }
        czk_porep_label(labels[l - 1], c1->replica_id, l, ch->challenge, par);
      }
      czk_fr lf, df;
      CZK_TRY(czk_fr_from_bytes_le(&lf, labels[L - 1]));
      CZK_TRY(czk_fr_from_bytes_le(&df, ch->data_leaf));
      czk_fr_add(&lf, &lf, &df);
      czk_fr_to_bytes_le(enc, &lf);
      uint64_t par[14];
      czk_porep_drg_parents(info, ch->challenge, par);
      czk_porep_exp_parents(info, ch->challenge, par + 6);
      fputs(i ? ",{\"comm_d_proofs\":" : "{\"comm_d_proofs\":", f);
      w_merkle(f, &ch->d_path, ard, nd, 0, 0, c1->comm_d, ch->data_leaf);
      fputs(",\"comm_r_last_proof\":", f);
      w_merkle(f, &ch->r_path, arr, nr, info->sub, info->top, c1->comm_r_last[k], enc);
      fputs(",\"replica_column_proofs\":{\"c_x\":", f);
      CZK_TRY(w_column(f, ch->challenge, (const uint8_t(*)[32])labels, L, &ch->c_path, arr, nr, info, c1->comm_c[k]));
      fputs(",\"drg_parents\":[", f);
      for (int p = 0; p < 6; p++) {
        if (p) fputc(',', f);
        CZK_TRY(w_column(f, par[p], (const uint8_t(*)[32])ch->drg[p].rows, L, &ch->drg[p].path, arr, nr, info,
                         c1->comm_c[k]));
      }
      fputs("],\"exp_parents\":[", f);
      for (int p = 0; p < 8; p++) {
        if (p) fputc(',', f);
        CZK_TRY(w_column(f, par[6 + p], (const uint8_t(*)[32])ch->exp[p].rows, L, &ch->exp[p].path, arr, nr, info,
                         c1->comm_c[k]));
      }
      fputs("]},\"labeling_proofs\":[", f);
      for (unsigned l = 1; l <= L; l++) {
        if (l > 1) fputc(',', f);
        w_parents(f, ch, l, l);
      }
      fputs("],\"encoding_proof\":", f);
      w_parents(f, ch, L, L);
      fputc('}', f);
    }
    fputc(']', f);
  }
  fputs("]},\"comm_r\":", f);
  w_d(f, c1->comm_r);
  fputs(",\"comm_d\":", f);
  w_d(f, c1->comm_d);
  fputs(",\"replica_id\":", f);
  w_d(f, c1->replica_id);
  fputs(",\"seed\":", f);
  w_d(f, c1->seed);
  fputs(",\"ticket\":", f);
  w_d(f, c1->ticket);
  fputc('}', f);
  return ferror(f) ? CZK_ERR_IO : CZK_OK;
}

czk_status czk_porep_envelope_write(FILE *f, const uint8_t *c1_json, size_t len, uint64_t sector_num,
                                    uint64_t sector_size) {
  if (!f || (!c1_json && len)) return CZK_ERR_INVALID_ARG;
  size_t b64 = sodium_base64_encoded_len(len, sodium_base64_VARIANT_ORIGINAL);
  char *s = malloc(b64);
  if (!s) return CZK_ERR_NOMEM;
  sodium_bin2base64(s, b64, c1_json, len, sodium_base64_VARIANT_ORIGINAL);
  fprintf(f, "{\"SectorNum\":%llu,\"Phase1Out\":\"%s\",\"SectorSize\":%llu}", (unsigned long long)sector_num, s,
          (unsigned long long)sector_size);
  free(s);
  return ferror(f) ? CZK_ERR_IO : CZK_OK;
}
