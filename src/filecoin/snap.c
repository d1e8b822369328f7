/* snap.c: SnapDeals (EmptySectorUpdate) registered proofs, shapes and parameter names, the bincode PartitionProof
 * (parse / write), challenges, phi / rho / encoding, the native checks and the public inputs (filecoin-snap.md
 * sections 1-5).
 * Invariants: a parse reads each count and checks it against the shape before any allocation, and never reads past
 * `len`; every 32-byte domain is checked canonical; no trailing bytes are accepted. The registry is built once from
 * the same rules (czk_snap_shape) that test-only shapes use. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/pool.h"
#include "czk/snap.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

/* ------------------------------------------------------------------------------------------------ shapes */
static unsigned log2u(uint64_t v) {
  unsigned k = 0;
  while ((1ull << k) < v) k++;
  return k;
}

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

czk_status czk_snap_shape(czk_snap_info *out, uint64_t nodes, unsigned base, unsigned sub, unsigned top) {
  memset(out, 0, sizeof *out);
  if (!pow2(nodes) || nodes < (1u << 5) || nodes > (1ull << 31) || !pow2(base) || base < 2 || base > 16 ||
      (sub && (!pow2(sub) || sub > 16)) || (top && (!pow2(top) || top > 16 || !sub)))
    return CZK_ERR_INVALID_ARG;
  uint64_t trees = (uint64_t)(sub ? sub : 1) * (top ? top : 1);
  if (nodes % trees) return CZK_ERR_INVALID_ARG;
  uint64_t per = nodes / trees;
  if (per < base || log2u(per) % log2u(base)) return CZK_ERR_INVALID_ARG;
  out->wire = CZK_SNAP_NO_WIRE;
  out->name = "";
  out->size_name = "";
  out->nodes = nodes;
  out->sector_size = nodes * 32;
  out->d = log2u(nodes);
  out->base = base, out->sub = sub, out->top = top;
  out->partitions = nodes <= (1u << 8) ? 1 : nodes <= (1u << 10) ? 2 : nodes <= (1u << 19) ? 4 : 16;
  out->pbl = log2u(out->partitions);
  out->challenges = nodes <= (1u << 19) ? 10 : 86;
  out->apex_leaves = nodes <= (1u << 8) ? 8 : 128;
  out->abl = log2u(out->apex_leaves);
  static const unsigned small[6] = {1, 1, 1, 1, 1, 1}, large[6] = {7, 8, 9, 10, 11, 12};
  memcpy(out->hs, nodes <= (1u << 10) ? small : large, sizeof out->hs);
  out->h = out->hs[3];
  unsigned i = 0;
  while (out->hs[i] != out->h) i++;
  out->h_select = 1u << i;
  out->rb = out->d - out->pbl;
  out->cpd = 254 / out->rb;
  out->dpp = (out->challenges + out->cpd - 1) / out->cpd;
  /* the apex tree and the partition tree fit below the root */
  if (out->pbl + out->abl > out->d) return CZK_ERR_INVALID_ARG;
  return CZK_OK;
}

static czk_snap_info g_proofs[CZK_SNAP_N_PROOFS];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void init_registry(void) {
  static const struct {
    const char *name, *size_name;
    uint64_t size;
    unsigned base, sub, top;
  } t[CZK_SNAP_N_PROOFS] = {{"StackedDrg2KiBV1", "2KiB", 2 * KIB, 8, 0, 0},
                            {"StackedDrg8MiBV1", "8MiB", 8 * MIB, 8, 0, 0},
                            {"StackedDrg512MiBV1", "512MiB", 512 * MIB, 8, 0, 0},
                            {"StackedDrg32GiBV1", "32GiB", 32 * GIB, 8, 8, 0},
                            {"StackedDrg64GiBV1", "64GiB", 64 * GIB, 8, 8, 2}};
  for (unsigned i = 0; i < CZK_SNAP_N_PROOFS; i++) {
    czk_snap_shape(&g_proofs[i], t[i].size / 32, t[i].base, t[i].sub, t[i].top);
    g_proofs[i].wire = i;
    g_proofs[i].name = t[i].name;
    g_proofs[i].size_name = t[i].size_name;
  }
}

const czk_snap_info *czk_snap_info_by_wire(uint64_t wire) {
  pthread_once(&g_once, init_registry);
  return wire < CZK_SNAP_N_PROOFS ? &g_proofs[wire] : NULL;
}

const czk_snap_info *czk_snap_info_for_size(uint64_t sector_size) {
  pthread_once(&g_once, init_registry);
  for (unsigned i = 0; i < CZK_SNAP_N_PROOFS; i++)
    if (g_proofs[i].sector_size == sector_size) return &g_proofs[i];
  return NULL;
}

static unsigned base_levels(const czk_snap_info *info) {
  uint64_t trees = (uint64_t)(info->sub ? info->sub : 1) * (info->top ? info->top : 1);
  return log2u(info->nodes / trees) / log2u(info->base);
}

unsigned czk_snap_r_levels(const czk_snap_info *info) {
  return base_levels(info) + (info->sub ? 1u : 0u) + (info->top ? 1u : 0u);
}

unsigned czk_snap_r_level_arity(const czk_snap_info *info, unsigned l) {
  unsigned nb = base_levels(info);
  if (l < nb) return info->base;
  if (l == nb && info->sub) return info->sub;
  return info->top;
}

void czk_snap_param_stem(const czk_snap_info *info, char *out, size_t out_len) {
  char id[96];
  int n = snprintf(id, sizeof id, "empty_sector_update::PublicParams{ sector_nodes: %llu }",
                   (unsigned long long)info->nodes);
  uint8_t h[32];
  czk_sha256(h, id, (size_t)n);
  char hex[65];
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", h[i]);
  snprintf(out, out_len, "v28-empty-sector-update-merkletree-poseidon_hasher-%u-%u-%u-%s", info->base, info->sub,
           info->top, hex);
}

const char *czk_snap_circuit_id(const czk_snap_info *info) {
  static const char *ids[CZK_SNAP_N_PROOFS] = {"snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g"};
  return info->wire < CZK_SNAP_N_PROOFS ? ids[info->wire] : "snap-test";
}

/* MerkleProof bytes (filecoin-post.md 2.3): u32 tag, root, leaf, the base path (u64 count + elements), one-element
 * sub / top paths. */
static size_t ropening_size(const czk_snap_info *info) {
  size_t n = 4 + 64 + 8 + (size_t)base_levels(info) * (8 + (info->base - 1) * 32 + 8);
  if (info->sub) n += 8 + 8 + (info->sub - 1) * 32 + 8;
  if (info->top) n += 8 + 8 + (info->top - 1) * 32 + 8;
  return n;
}

static size_t dopening_size(const czk_snap_info *info) { return 4 + 64 + 8 + (size_t)info->d * 48; }

size_t czk_snap_partition_size(const czk_snap_info *info) {
  return 32 + 8 + (size_t)info->apex_leaves * 32 + 8 +
         (size_t)info->challenges * (2 * ropening_size(info) + dopening_size(info));
}

/* ------------------------------------------------------------------------------------------------ parse */
typedef struct rd {
  const uint8_t *p;
  size_t len, off;
  char *err;
  size_t err_len;
  const char *which;
} rd;

static czk_status failv(char *err, size_t err_len, const char *which, czk_status st, const char *fmt, va_list ap) {
  if (err && err_len) {
    int k = snprintf(err, err_len, "%s: ", which ? which : "partition proof");
    if (k < 0) k = 0;
    if ((size_t)k < err_len) vsnprintf(err + k, err_len - (size_t)k, fmt, ap);
  }
  return st;
}

static czk_status fail(rd *r, czk_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static czk_status fail(rd *r, czk_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  failv(r->err, r->err_len, r->which, st, fmt, ap);
  va_end(ap);
  return st;
}

/* where: "" or "challenge 3 proof_r_old " (prefix of the field name in messages) */
static czk_status get_u64(rd *r, uint64_t *v, const char *where, const char *what) {
  if (r->len - r->off < 8)
    return fail(r, CZK_ERR_TRUNCATED, "truncated at byte %zu (reading %s%s; the proof has %zu bytes)", r->off, where,
                what, r->len);
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--) x = x << 8 | r->p[r->off + (size_t)i];
  r->off += 8;
  *v = x;
  return CZK_OK;
}

static czk_status get_u32(rd *r, uint32_t *v, const char *where, const char *what) {
  if (r->len - r->off < 4)
    return fail(r, CZK_ERR_TRUNCATED, "truncated at byte %zu (reading %s%s; the proof has %zu bytes)", r->off, where,
                what, r->len);
  const uint8_t *b = r->p + r->off;
  *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  r->off += 4;
  return CZK_OK;
}

static czk_status get_domain(rd *r, uint8_t out[32], const char *where, const char *what) {
  if (r->len - r->off < 32)
    return fail(r, CZK_ERR_TRUNCATED, "truncated at byte %zu (reading %s%s; the proof has %zu bytes)", r->off, where,
                what, r->len);
  memcpy(out, r->p + r->off, 32);
  czk_fr f;
  if (czk_fr_from_bytes_le(&f, out) != CZK_OK)
    return fail(r, CZK_ERR_NOT_CANONICAL, "%s%s at byte %zu is not a canonical field element", where, what, r->off);
  r->off += 32;
  return CZK_OK;
}

static czk_status expect_count(rd *r, uint64_t want, const char *where, const char *what) {
  uint64_t v = 0;
  CZK_TRY(get_u64(r, &v, where, what));
  if (v != want)
    return fail(r, CZK_ERR_FORMAT, "%s%s is %llu, the registered shape needs %llu", where, what, (unsigned long long)v,
                (unsigned long long)want);
  return CZK_OK;
}

/* One PathElement of arity a: u64 (a - 1), the siblings, u64 index (< a). */
static czk_status get_element(rd *r, unsigned a, uint8_t (*sib)[32], uint8_t *index, const char *where,
                              const char *level) {
  char what[64];
  snprintf(what, sizeof what, "%s hashes length", level);
  CZK_TRY(expect_count(r, a - 1, where, what));
  for (unsigned i = 0; i + 1 < a; i++) {
    snprintf(what, sizeof what, "%s sibling %u", level, i);
    CZK_TRY(get_domain(r, sib[i], where, what));
  }
  uint64_t idx = 0;
  snprintf(what, sizeof what, "%s index", level);
  CZK_TRY(get_u64(r, &idx, where, what));
  if (idx >= a)
    return fail(r, CZK_ERR_FORMAT, "%s%s index %llu is not below the arity %u", where, level,
                (unsigned long long)idx, a);
  *index = (uint8_t)idx;
  return CZK_OK;
}

static const char *k_tags[3] = {"Single", "Sub", "Top"};

static czk_status get_tag(rd *r, uint32_t want, const char *where, const char *shape) {
  uint32_t tag = 0;
  CZK_TRY(get_u32(r, &tag, where, "MerkleProof tag"));
  if (tag != want)
    return fail(r, CZK_ERR_FORMAT, "%sMerkleProof tag %u (%s), the %s shape needs %u (%s)", where, tag,
                tag < 3 ? k_tags[tag] : "unknown", shape, want, k_tags[want]);
  return CZK_OK;
}

static czk_status get_ropening(rd *r, const czk_snap_info *info, czk_snap_ropening *o, const char *where) {
  char shape[32], level[32];
  snprintf(shape, sizeof shape, "TreeR %u-%u-%u", info->base, info->sub, info->top);
  uint32_t tag = info->top ? 2u : info->sub ? 1u : 0u;
  CZK_TRY(get_tag(r, tag, where, shape));
  if (tag == 0) {
    CZK_TRY(get_domain(r, o->root, where, "root"));
    CZK_TRY(get_domain(r, o->leaf, where, "leaf"));
  }
  unsigned nb = base_levels(info), s = 0, l = 0;
  CZK_TRY(expect_count(r, nb, where, "base path length"));
  for (unsigned i = 0; i < nb; i++, l++, s += info->base - 1) {
    snprintf(level, sizeof level, "base level %u", i);
    CZK_TRY(get_element(r, info->base, &o->sib[s], &o->index[l], where, level));
  }
  if (info->sub) {
    CZK_TRY(expect_count(r, 1, where, "sub path length"));
    CZK_TRY(get_element(r, info->sub, &o->sib[s], &o->index[l], where, "sub level"));
    s += info->sub - 1, l++;
  }
  if (info->top) {
    CZK_TRY(expect_count(r, 1, where, "top path length"));
    CZK_TRY(get_element(r, info->top, &o->sib[s], &o->index[l], where, "top level"));
  }
  if (tag != 0) {
    CZK_TRY(get_domain(r, o->root, where, "root"));
    CZK_TRY(get_domain(r, o->leaf, where, "leaf"));
  }
  return CZK_OK;
}

static czk_status get_dopening(rd *r, const czk_snap_info *info, czk_snap_dopening *o, const char *where) {
  CZK_TRY(get_tag(r, 0, where, "TreeD (binary)"));
  CZK_TRY(get_domain(r, o->root, where, "root"));
  CZK_TRY(get_domain(r, o->leaf, where, "leaf"));
  CZK_TRY(expect_count(r, info->d, where, "path length"));
  char level[32];
  for (unsigned l = 0; l < info->d; l++) {
    snprintf(level, sizeof level, "level %u", l);
    CZK_TRY(get_element(r, 2, &o->sib[l], &o->index[l], where, level));
  }
  return CZK_OK;
}

czk_status czk_snap_partition_parse(const czk_snap_info *info, const uint8_t *buf, size_t len,
                                    czk_snap_partition *out, const char *which, char *err, size_t err_len) {
  memset(out, 0, sizeof *out);
  if (err && err_len) err[0] = 0;
  rd r = {buf, buf ? len : 0, 0, err, err_len, which};
  if (!info) return fail(&r, CZK_ERR_INVALID_ARG, "no registered proof");
  uint64_t v = 0;
  CZK_TRY(get_domain(&r, out->comm_c, "", "comm_c"));
  CZK_TRY(get_u64(&r, &v, "", "apex_leafs length"));
  if (v != info->apex_leaves)
    return fail(&r, CZK_ERR_FORMAT, "holds %llu apex leaves; %s needs %u", (unsigned long long)v,
                *info->name ? info->name : "the shape", info->apex_leaves);
  /* the count agrees with the shape: nothing is allocated for more than the bytes can hold */
  if (len - r.off < (size_t)info->apex_leaves * 32 + 8)
    return fail(&r, CZK_ERR_TRUNCATED, "%zu bytes; a %s partition proof has %zu (truncated)", len,
                *info->name ? info->name : "test-shape", czk_snap_partition_size(info));
  out->apex = malloc((size_t)info->apex_leaves * 32);
  if (!out->apex) return CZK_ERR_NOMEM;
  out->n_apex = info->apex_leaves;
  czk_status st = CZK_OK;
  char what[32];
  for (uint32_t i = 0; i < info->apex_leaves && st == CZK_OK; i++) {
    snprintf(what, sizeof what, "apex leaf %u", i);
    st = get_domain(&r, out->apex[i], "", what);
  }
  if (st == CZK_OK) st = get_u64(&r, &v, "", "challenge_proofs length");
  if (st == CZK_OK && v != info->challenges)
    st = fail(&r, CZK_ERR_FORMAT, "holds %llu challenge proofs; %s needs %u", (unsigned long long)v,
              *info->name ? info->name : "the shape", info->challenges);
  if (st == CZK_OK && len < czk_snap_partition_size(info))
    st = fail(&r, CZK_ERR_TRUNCATED, "%zu bytes; a %s partition proof has %zu (truncated)", len,
              *info->name ? info->name : "test-shape", czk_snap_partition_size(info));
  if (st == CZK_OK) {
    out->ch = calloc(info->challenges, sizeof *out->ch);
    if (!out->ch) st = CZK_ERR_NOMEM;
    else out->n_challenges = info->challenges;
  }
  char where[48];
  for (uint32_t c = 0; c < info->challenges && st == CZK_OK; c++) {
    snprintf(where, sizeof where, "challenge %u proof_r_old ", c);
    st = get_ropening(&r, info, &out->ch[c].r_old, where);
    if (st != CZK_OK) break;
    snprintf(where, sizeof where, "challenge %u proof_d_new ", c);
    st = get_dopening(&r, info, &out->ch[c].d_new, where);
    if (st != CZK_OK) break;
    snprintf(where, sizeof where, "challenge %u proof_r_new ", c);
    st = get_ropening(&r, info, &out->ch[c].r_new, where);
  }
  if (st == CZK_OK && r.off != len)
    st = fail(&r, CZK_ERR_FORMAT, "%zu trailing byte%s after the %zu-byte partition proof", len - r.off,
              len - r.off == 1 ? "" : "s", r.off);
  if (st != CZK_OK) czk_snap_partition_free(out);
  return st;
}

void czk_snap_partition_free(czk_snap_partition *p) {
  if (!p) return;
  free(p->apex);
  free(p->ch);
  memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------------------------------------------ write */
typedef struct wr {
  uint8_t *p;
  size_t off;
} wr;

static void put_u64(wr *w, uint64_t v) {
  for (int i = 0; i < 8; i++) w->p[w->off++] = (uint8_t)(v >> (8 * i));
}
static void put_u32(wr *w, uint32_t v) {
  for (int i = 0; i < 4; i++) w->p[w->off++] = (uint8_t)(v >> (8 * i));
}
static void put_bytes(wr *w, const uint8_t *b, size_t n) {
  memcpy(w->p + w->off, b, n);
  w->off += n;
}
static void put_element(wr *w, unsigned a, const uint8_t (*sib)[32], uint8_t index) {
  put_u64(w, a - 1);
  put_bytes(w, sib[0], (size_t)(a - 1) * 32);
  put_u64(w, index);
}

static void put_ropening(wr *w, const czk_snap_info *info, const czk_snap_ropening *o) {
  uint32_t tag = info->top ? 2u : info->sub ? 1u : 0u;
  unsigned nb = base_levels(info), s = 0, l = 0;
  put_u32(w, tag);
  if (tag == 0) put_bytes(w, o->root, 32), put_bytes(w, o->leaf, 32);
  put_u64(w, nb);
  for (unsigned i = 0; i < nb; i++, l++, s += info->base - 1) put_element(w, info->base, &o->sib[s], o->index[l]);
  if (info->sub) put_u64(w, 1), put_element(w, info->sub, &o->sib[s], o->index[l]), s += info->sub - 1, l++;
  if (info->top) put_u64(w, 1), put_element(w, info->top, &o->sib[s], o->index[l]);
  if (tag != 0) put_bytes(w, o->root, 32), put_bytes(w, o->leaf, 32);
}

czk_status czk_snap_partition_write(const czk_snap_info *info, const czk_snap_partition *p, uint8_t *out,
                                    size_t out_len) {
  if (!info || !p || !out || out_len < czk_snap_partition_size(info) || p->n_apex != info->apex_leaves ||
      p->n_challenges != info->challenges || !p->apex || !p->ch)
    return CZK_ERR_INVALID_ARG;
  wr w = {out, 0};
  put_bytes(&w, p->comm_c, 32);
  put_u64(&w, p->n_apex);
  put_bytes(&w, p->apex[0], (size_t)p->n_apex * 32);
  put_u64(&w, p->n_challenges);
  for (uint32_t c = 0; c < p->n_challenges; c++) {
    const czk_snap_challenge_proof *cp = &p->ch[c];
    put_ropening(&w, info, &cp->r_old);
    put_u32(&w, 0);
    put_bytes(&w, cp->d_new.root, 32), put_bytes(&w, cp->d_new.leaf, 32);
    put_u64(&w, info->d);
    for (unsigned l = 0; l < info->d; l++) put_element(&w, 2, &cp->d_new.sib[l], cp->d_new.index[l]);
    put_ropening(&w, info, &cp->r_new);
  }
  return w.off == czk_snap_partition_size(info) ? CZK_OK : CZK_ERR_INTERNAL;
}

uint64_t czk_snap_ropening_index(const czk_snap_info *info, const czk_snap_ropening *o) {
  uint64_t idx = 0, mul = 1;
  unsigned n = czk_snap_r_levels(info);
  for (unsigned l = 0; l < n; l++) {
    idx += (uint64_t)o->index[l] * mul;
    mul *= czk_snap_r_level_arity(info, l);
  }
  return idx;
}

uint64_t czk_snap_dopening_index(const czk_snap_info *info, const czk_snap_dopening *o) {
  uint64_t idx = 0;
  unsigned n = info->d < CZK_SNAP_MAX_D_LEVELS ? info->d : CZK_SNAP_MAX_D_LEVELS; /* d <= 31 for every shape */
  for (unsigned l = 0; l < n; l++) idx |= (uint64_t)o->index[l] << l;
  return idx;
}

/* ------------------------------------------------------------------------------------------------ derived values */
czk_status czk_snap_gen_randomness(czk_fr *out, const czk_fr *a, const czk_fr *b) {
  const czk_poseidon *p;
  CZK_TRY(czk_poseidon_get(&p, 2, CZK_POSEIDON_STANDARD));
  czk_fr in[2] = {*a, *b};
  return czk_poseidon_hash(out, p, CZK_POSEIDON_CUSTOM, 1, in, 2);
}

czk_status czk_snap_phi(uint8_t out[32], const uint8_t comm_d_new[32], const uint8_t comm_r_old[32]) {
  czk_fr a, b, h;
  CZK_TRY(czk_fr_from_bytes_le(&a, comm_d_new));
  CZK_TRY(czk_fr_from_bytes_le(&b, comm_r_old));
  CZK_TRY(czk_snap_gen_randomness(&h, &a, &b));
  czk_fr_to_bytes_le(out, &h);
  return CZK_OK;
}

czk_status czk_snap_rho(uint8_t out[32], const uint8_t phi[32], uint64_t high) {
  czk_fr a, b, h;
  CZK_TRY(czk_fr_from_bytes_le(&a, phi));
  czk_fr_from_u64(&b, high);
  CZK_TRY(czk_snap_gen_randomness(&h, &a, &b));
  czk_fr_to_bytes_le(out, &h);
  return CZK_OK;
}

uint64_t czk_snap_high(const czk_snap_info *info, uint64_t node) { return node >> (info->d - info->h); }

czk_status czk_snap_encode(uint8_t out[32], const uint8_t r_old[32], const uint8_t d_new[32], const uint8_t rho[32]) {
  czk_fr r, d, p;
  CZK_TRY(czk_fr_from_bytes_le(&r, r_old));
  CZK_TRY(czk_fr_from_bytes_le(&d, d_new));
  CZK_TRY(czk_fr_from_bytes_le(&p, rho));
  czk_fr_mul(&d, &d, &p);
  czk_fr_add(&r, &r, &d);
  czk_fr_to_bytes_le(out, &r);
  return CZK_OK;
}

czk_status czk_snap_comm_r(uint8_t out[32], const uint8_t comm_c[32], const uint8_t root[32]) {
  uint8_t kids[64];
  memcpy(kids, comm_c, 32);
  memcpy(kids + 32, root, 32);
  return czk_fc_node_hash(CZK_FC_POSEIDON, out, kids, 2);
}

czk_status czk_snap_challenges(const czk_snap_info *info, const uint8_t comm_r_new[32], uint32_t k, uint64_t *out) {
  if (!info || !comm_r_new || !out || k >= info->partitions) return CZK_ERR_INVALID_ARG;
  czk_fr cr, idx, dg;
  CZK_TRY(czk_fr_from_bytes_le(&cr, comm_r_new));
  uint64_t raw[4] = {0};
  for (uint32_t t = 0; t < info->challenges; t++) {
    uint32_t j = t / info->cpd, i = t % info->cpd;
    if (i == 0) {
      czk_fr_from_u64(&idx, (uint64_t)k * info->dpp + j);
      CZK_TRY(czk_snap_gen_randomness(&dg, &cr, &idx));
      czk_fr_to_raw(raw, &dg);
    }
    uint64_t c = 0;
    for (unsigned b = 0; b < info->rb; b++) {
      unsigned bit = i * info->rb + b;
      c |= ((raw[bit >> 6] >> (bit & 63)) & 1) << b;
    }
    out[t] = c | (uint64_t)k << info->rb;
  }
  return CZK_OK;
}

czk_status czk_snap_public_inputs(const czk_snap_info *info, const czk_snap_comms *comms, uint32_t k,
                                  czk_fr out[CZK_SNAP_PUBLIC_INPUTS]) {
  if (!info || !comms || !out || k >= info->partitions) return CZK_ERR_INVALID_ARG;
  czk_fr_from_u64(&out[0], (uint64_t)k | (uint64_t)info->h_select << info->pbl);
  CZK_TRY(czk_fr_from_bytes_le(&out[1], comms->comm_r_old));
  CZK_TRY(czk_fr_from_bytes_le(&out[2], comms->comm_d_new));
  return czk_fr_from_bytes_le(&out[3], comms->comm_r_new);
}

/* ------------------------------------------------------------------------------------------------ native check */
static void hex8(char *out, const uint8_t *b) {
  for (int i = 0; i < 4; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* A TreeR path up to its root: CZK_OK (root matches), CZK_ERR_VERIFY_FAILED (differs), other on a bad value. */
static czk_status rpath_root(const czk_snap_info *info, const czk_snap_ropening *o, const uint8_t leaf[32],
                             uint8_t out[32]) {
  uint8_t cur[32], group[CZK_FC_MAX_ARITY * 32];
  memcpy(cur, leaf, 32);
  unsigned n = czk_snap_r_levels(info), si = 0;
  for (unsigned l = 0; l < n; l++) {
    unsigned a = czk_snap_r_level_arity(info, l);
    for (unsigned i = 0, q = 0; i < a; i++) memcpy(group + 32 * i, i == o->index[l] ? cur : o->sib[si + q++], 32);
    si += a - 1;
    CZK_TRY(czk_fc_node_hash(CZK_FC_POSEIDON, cur, group, a));
  }
  memcpy(out, cur, 32);
  return CZK_OK;
}

/* The TreeD node at height `to` above the leaf along path o (levels [0, to)). */
static void dpath_up(const czk_snap_dopening *o, const uint8_t leaf[32], unsigned from, unsigned to,
                     uint8_t out[32]) {
  uint8_t cur[32];
  memcpy(cur, leaf, 32);
  for (unsigned l = from; l < to; l++) {
    if (o->index[l]) czk_fc_sha256_node(cur, o->sib[l], cur);
    else czk_fc_sha256_node(cur, cur, o->sib[l]);
  }
  memcpy(out, cur, 32);
}

/* Results per challenge (0 ok), checked in parallel. */
enum {
  R_OK = 0,
  R_INDEX_OLD, R_INDEX_D, R_INDEX_NEW,
  R_ROOT_OLD, R_ROOT_D, R_ROOT_NEW, /* the opening's root differs from the partition's (challenge 0's) or comm_d_new */
  R_PATH_OLD, R_PATH_D, R_PATH_NEW, /* the path does not hash to its root */
  R_ENCODING,
  R_APEX_LEAF, R_APEX_ROW, R_PARTITION_PATH,
  R_INTERNAL
};

typedef struct chk_ctx {
  const czk_snap_info *info;
  const czk_snap_comms *comms;
  const czk_snap_partition *p;
  const uint64_t *want;
  const uint8_t *phi;
  const uint8_t (*apex_rows)[32]; /* the apex tree: rows 0 .. abl, row r at offset A (2 - 2^(1-r)) */
  uint8_t *res;
  uint64_t *got;
} chk_ctx;

static size_t apex_row_off(uint32_t A, unsigned r) {
  return r == 0 ? 0 : (size_t)2 * A - (size_t)(A >> (r - 1)); /* rows 0 .. r-1 hold A + A/2 + ... + A/2^(r-1) */
}

static void check_challenges(void *arg, size_t begin, size_t end) {
  chk_ctx *x = arg;
  const czk_snap_info *info = x->info;
  const czk_snap_partition *p = x->p;
  for (size_t t = begin; t < end; t++) {
    const czk_snap_challenge_proof *cp = &p->ch[t];
    uint8_t *res = &x->res[t];
    uint64_t c = x->want[t];
    *res = R_OK;
    uint64_t io = czk_snap_ropening_index(info, &cp->r_old), id = czk_snap_dopening_index(info, &cp->d_new),
             in = czk_snap_ropening_index(info, &cp->r_new);
    if (io != c) { *res = R_INDEX_OLD, x->got[t] = io; continue; }
    if (id != c) { *res = R_INDEX_D, x->got[t] = id; continue; }
    if (in != c) { *res = R_INDEX_NEW, x->got[t] = in; continue; }
    if (memcmp(cp->r_old.root, p->ch[0].r_old.root, 32)) { *res = R_ROOT_OLD; continue; }
    if (memcmp(cp->d_new.root, x->comms->comm_d_new, 32)) { *res = R_ROOT_D; continue; }
    if (memcmp(cp->r_new.root, p->ch[0].r_new.root, 32)) { *res = R_ROOT_NEW; continue; }
    /* the encoding of the challenged node (before the paths: a forged new node fails here, by name) */
    uint8_t rho[32], enc[32];
    if (czk_snap_rho(rho, x->phi, czk_snap_high(info, c)) != CZK_OK ||
        czk_snap_encode(enc, cp->r_old.leaf, cp->d_new.leaf, rho) != CZK_OK) {
      *res = R_INTERNAL;
      continue;
    }
    if (memcmp(enc, cp->r_new.leaf, 32)) { *res = R_ENCODING; continue; }
    uint8_t h[32];
    if (rpath_root(info, &cp->r_old, cp->r_old.leaf, h) != CZK_OK) { *res = R_INTERNAL; continue; }
    if (memcmp(h, cp->r_old.root, 32)) { *res = R_PATH_OLD; continue; }
    if (rpath_root(info, &cp->r_new, cp->r_new.leaf, h) != CZK_OK) { *res = R_INTERNAL; continue; }
    if (memcmp(h, cp->r_new.root, 32)) { *res = R_PATH_NEW; continue; }
    dpath_up(&cp->d_new, cp->d_new.leaf, 0, info->d, h);
    if (memcmp(h, cp->d_new.root, 32)) { *res = R_PATH_D; continue; }
    /* TreeD: the node at the apex row is this partition's apex leaf; the rows inside the apex tree are its nodes;
     * the top pbl rows are challenge 0's (the partition path) */
    unsigned below = info->d - info->pbl - info->abl;
    dpath_up(&cp->d_new, cp->d_new.leaf, 0, below, h);
    uint64_t sel = (c >> below) & (info->apex_leaves - 1);
    if (memcmp(h, p->apex[sel], 32)) { *res = R_APEX_LEAF; continue; }
    for (unsigned r = 0; r < info->abl && *res == R_OK; r++) {
      uint64_t pos = sel >> r;
      if (memcmp(cp->d_new.sib[below + r], x->apex_rows[apex_row_off(info->apex_leaves, r) + (pos ^ 1)], 32))
        *res = R_APEX_ROW;
    }
    for (unsigned l = info->d - info->pbl; l < info->d && *res == R_OK; l++)
      if (memcmp(cp->d_new.sib[l], p->ch[0].d_new.sib[l], 32)) *res = R_PARTITION_PATH;
  }
}

czk_status czk_snap_check(const czk_snap_info *info, const czk_snap_comms *comms, const czk_snap_partition *p,
                          uint32_t k, const char *which, char *err, size_t err_len) {
  rd r = {NULL, 0, 0, err, err_len, which};
  if (err && err_len) err[0] = 0;
  if (!info || !comms || !p) return fail(&r, CZK_ERR_INVALID_ARG, "nothing to check");
  if (k >= info->partitions)
    return fail(&r, CZK_ERR_INVALID_ARG, "partition %u does not exist (%s has %u)", k,
                *info->name ? info->name : "the shape", info->partitions);
  if (p->n_apex != info->apex_leaves || p->n_challenges != info->challenges || !p->apex || !p->ch)
    return fail(&r, CZK_ERR_INVALID_ARG, "not a partition proof of this shape");
  czk_fr f;
  if (czk_fr_from_bytes_le(&f, comms->comm_r_old) != CZK_OK || czk_fr_from_bytes_le(&f, comms->comm_d_new) != CZK_OK ||
      czk_fr_from_bytes_le(&f, comms->comm_r_new) != CZK_OK)
    return fail(&r, CZK_ERR_NOT_CANONICAL, "a commitment is not a canonical field element");
  /* comm_r_old / comm_r_new from comm_c and challenge 0's roots (every other root must equal those) */
  uint8_t h[32];
  char a[9], b[9];
  CZK_TRY(czk_snap_comm_r(h, p->comm_c, p->ch[0].r_old.root));
  if (memcmp(h, comms->comm_r_old, 32)) {
    hex8(a, h), hex8(b, comms->comm_r_old);
    return fail(&r, CZK_ERR_VERIFY_FAILED, "H(comm_c, root of proof_r_old) = %s... differs from comm_r_old %s...", a,
                b);
  }
  CZK_TRY(czk_snap_comm_r(h, p->comm_c, p->ch[0].r_new.root));
  if (memcmp(h, comms->comm_r_new, 32)) {
    hex8(a, h), hex8(b, comms->comm_r_new);
    return fail(&r, CZK_ERR_VERIFY_FAILED, "H(comm_c, root of proof_r_new) = %s... differs from comm_r_new %s...", a,
                b);
  }
  /* the apex tree and the partition path to comm_d_new */
  uint32_t A = info->apex_leaves;
  uint8_t(*rows)[32] = malloc((size_t)2 * A * 32);
  uint64_t *want = malloc(info->challenges * sizeof *want), *got = calloc(info->challenges, sizeof *got);
  uint8_t *res = malloc(info->challenges);
  uint8_t phi[32];
  czk_status st = rows && want && got && res ? CZK_OK : CZK_ERR_NOMEM;
  if (st == CZK_OK) {
    memcpy(rows, p->apex, (size_t)A * 32);
    for (unsigned rr = 0; rr < info->abl; rr++) {
      size_t o = apex_row_off(A, rr), n = A >> rr, q = apex_row_off(A, rr + 1);
      for (size_t j = 0; j < n / 2; j++) czk_fc_sha256_node(rows[q + j], rows[o + 2 * j], rows[o + 2 * j + 1]);
    }
    uint8_t cur[32];
    memcpy(cur, rows[apex_row_off(A, info->abl)], 32);
    const czk_snap_dopening *d0 = &p->ch[0].d_new;
    for (unsigned l = 0; l < info->pbl; l++) {
      const uint8_t *s = d0->sib[info->d - info->pbl + l];
      if ((k >> l) & 1) czk_fc_sha256_node(cur, s, cur);
      else czk_fc_sha256_node(cur, cur, s);
    }
    if (memcmp(cur, comms->comm_d_new, 32)) {
      hex8(a, cur), hex8(b, comms->comm_d_new);
      st = fail(&r, CZK_ERR_VERIFY_FAILED,
                "the apex leaves and the partition path (challenge 0's top %u TreeD rows) hash to %s..., not to "
                "comm_d_new %s...",
                info->pbl, a, b);
    }
  }
  if (st == CZK_OK) st = czk_snap_challenges(info, comms->comm_r_new, k, want);
  if (st == CZK_OK) st = czk_snap_phi(phi, comms->comm_d_new, comms->comm_r_old);
  if (st == CZK_OK) {
    chk_ctx x = {info, comms, p, want, phi, (const uint8_t(*)[32])rows, res, got};
    czk_pool_parallel_for(NULL, info->challenges, 2, check_challenges, &x);
  }
  for (uint32_t t = 0; t < info->challenges && st == CZK_OK; t++) {
    unsigned long long c = (unsigned long long)want[t], g = (unsigned long long)got[t];
    switch (res[t]) {
    case R_OK: break;
    case R_INDEX_OLD:
    case R_INDEX_D:
    case R_INDEX_NEW: {
      const char *pr = res[t] == R_INDEX_OLD ? "proof_r_old" : res[t] == R_INDEX_D ? "proof_d_new" : "proof_r_new";
      st = fail(&r, CZK_ERR_VERIFY_FAILED,
                "challenge %u: %s opens node %llu, the challenge derived from comm_r_new is node %llu", t, pr, g, c);
      break;
    }
    case R_ROOT_OLD:
      st = fail(&r, CZK_ERR_VERIFY_FAILED, "challenge %u (node %llu): proof_r_old's root differs from challenge 0's", t,
                c);
      break;
    case R_ROOT_D:
      st = fail(&r, CZK_ERR_VERIFY_FAILED, "challenge %u (node %llu): proof_d_new's root is not comm_d_new", t, c);
      break;
    case R_ROOT_NEW:
      st = fail(&r, CZK_ERR_VERIFY_FAILED, "challenge %u (node %llu): proof_r_new's root differs from challenge 0's", t,
                c);
      break;
    case R_PATH_OLD:
    case R_PATH_D:
    case R_PATH_NEW: {
      const char *pr = res[t] == R_PATH_OLD ? "proof_r_old" : res[t] == R_PATH_D ? "proof_d_new" : "proof_r_new";
      st = fail(&r, CZK_ERR_VERIFY_FAILED, "challenge %u (node %llu): the %s path does not hash to its root", t, c, pr);
      break;
    }
    case R_ENCODING:
      st = fail(&r, CZK_ERR_VERIFY_FAILED,
                "challenge %u (node %llu): the new replica node is not the encoding old + data * rho(%llu)", t, c,
                (unsigned long long)czk_snap_high(info, want[t]));
      break;
    case R_APEX_LEAF:
      st = fail(&r, CZK_ERR_VERIFY_FAILED,
                "challenge %u (node %llu): the TreeD path does not reach apex leaf %llu of the partition", t, c,
                (unsigned long long)((want[t] >> (info->d - info->pbl - info->abl)) & (info->apex_leaves - 1)));
      break;
    case R_APEX_ROW:
      st = fail(&r, CZK_ERR_VERIFY_FAILED,
                "challenge %u (node %llu): a TreeD sibling inside the apex tree is not the apex tree's node", t, c);
      break;
    case R_PARTITION_PATH:
      st = fail(&r, CZK_ERR_VERIFY_FAILED,
                "challenge %u (node %llu): the top %u TreeD rows differ from challenge 0's (the partition path)", t, c,
                info->pbl);
      break;
    default: st = CZK_ERR_INTERNAL; break;
    }
  }
  free(rows), free(want), free(got), free(res);
  return st;
}
