/* post.c: the PoSt registered proofs and parameter names, the bincode FallbackPoStSectorProof (parse / write), leaf
 * challenges, the native vanilla check and the public inputs (filecoin-post.md sections 1-3, 5.3, 6).
 * Invariants: a parse reads counts and checks them against the registered shape before any allocation, and never
 * reads past `len`; every 32-byte domain is checked canonical; no trailing bytes are accepted. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/pool.h"
#include "czk/post.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

/* wire, proofs-api name, Go name, type, size, size name, api minor, shape, challenge_count, sector_count, slots, C */
#define WIN(w, sz, szn, base, sub, top)                                                                               \
  {w, "StackedDrgWinning" szn "V1", "StackedDrgWinning" szn "V1", CZK_POST_WINNING, sz, szn, 0, base, sub, top, 66,   \
   1, 66, 1}
#define WND(w, nm, gonm, sz, szn, api, base, sub, top, n)                                                            \
  {w, "StackedDrgWindow" szn nm, "StackedDrgWindow" szn gonm, CZK_POST_WINDOW, sz, szn, api, base, sub, top, 10, n, n, \
   10}

static const czk_post_info k_proofs[CZK_POST_N_PROOFS] = {
    WIN(0, 2 * KIB, "2KiB", 8, 0, 0),
    WIN(1, 8 * MIB, "8MiB", 8, 0, 0),
    WIN(2, 512 * MIB, "512MiB", 8, 0, 0),
    WIN(3, 32 * GIB, "32GiB", 8, 8, 0),
    WIN(4, 64 * GIB, "64GiB", 8, 8, 2),
    WND(5, "V1", "V1", 2 * KIB, "2KiB", 0, 8, 0, 0, 2),
    WND(6, "V1", "V1", 8 * MIB, "8MiB", 0, 8, 0, 0, 2),
    WND(7, "V1", "V1", 512 * MIB, "512MiB", 0, 8, 0, 0, 2),
    WND(8, "V1", "V1", 32 * GIB, "32GiB", 0, 8, 8, 0, 2349),
    WND(9, "V1", "V1", 64 * GIB, "64GiB", 0, 8, 8, 2, 2300),
    WND(10, "V1_2", "V1_1", 2 * KIB, "2KiB", 2, 8, 0, 0, 2),
    WND(11, "V1_2", "V1_1", 8 * MIB, "8MiB", 2, 8, 0, 0, 2),
    WND(12, "V1_2", "V1_1", 512 * MIB, "512MiB", 2, 8, 0, 0, 2),
    WND(13, "V1_2", "V1_1", 32 * GIB, "32GiB", 2, 8, 8, 0, 2349),
    WND(14, "V1_2", "V1_1", 64 * GIB, "64GiB", 2, 8, 8, 2, 2300),
};

const czk_post_info *czk_post_info_by_wire(uint64_t wire) { return wire < CZK_POST_N_PROOFS ? &k_proofs[wire] : NULL; }

const czk_post_info *czk_post_info_find(czk_post_type type, uint64_t sector_size, unsigned api_minor) {
  for (size_t i = 0; i < CZK_POST_N_PROOFS; i++) {
    const czk_post_info *p = &k_proofs[i];
    if (p->type == type && p->sector_size == sector_size && (type == CZK_POST_WINNING || p->api_minor == api_minor))
      return p;
  }
  return NULL;
}

static unsigned log2u(uint64_t v) {
  unsigned k = 0;
  while ((1ull << k) < v) k++;
  return k;
}

static unsigned base_levels(const czk_post_info *info) {
  uint64_t nodes = info->sector_size / 32;
  uint64_t trees = (uint64_t)(info->sub ? info->sub : 1) * (info->top ? info->top : 1);
  return log2u(nodes / trees) / log2u(info->base);
}

unsigned czk_post_levels(const czk_post_info *info) {
  return base_levels(info) + (info->sub ? 1u : 0u) + (info->top ? 1u : 0u);
}

unsigned czk_post_level_arity(const czk_post_info *info, unsigned l) {
  unsigned nb = base_levels(info);
  if (l < nb) return info->base;
  if (l == nb && info->sub) return info->sub;
  return info->top;
}

void czk_post_param_stem(const czk_post_info *info, char *out, size_t out_len) {
  char id[160];
  /* FallbackPoSt's circuit identifier: Winning's circuit has 66 slots of 1 challenge (winning_post_setup_params),
   * Window's the config's (10, sector_count) */
  int n = snprintf(id, sizeof id, "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, sector_count: %u}",
                   (unsigned long long)info->sector_size, info->slot_challenges, info->slots);
  uint8_t h[32];
  czk_sha256(h, id, (size_t)n);
  char hex[65];
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", h[i]);
  snprintf(out, out_len, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-%u-%u-%u-%s", info->base,
           info->sub, info->top, hex);
}

const char *czk_post_circuit_id(const czk_post_info *info) {
  static const char *ids[2][5] = {{"winning-2k", "winning-8m", "winning-512m", "winning-32g", "winning-64g"},
                                  {"wpost-2k", "wpost-8m", "wpost-512m", "wpost-32g", "wpost-64g"}};
  unsigned s = info->sector_size == 2 * KIB     ? 0
               : info->sector_size == 8 * MIB   ? 1
               : info->sector_size == 512 * MIB ? 2
               : info->sector_size == 32 * GIB  ? 3
                                                : 4;
  return ids[info->type == CZK_POST_WINDOW][s];
}

/* MerkleProof bytes: u32 tag, then the base path (u64 count + 240 B per arity-8 element), sub / top paths, root,
 * leaf (filecoin-post.md 2.3). */
static size_t opening_size(const czk_post_info *info) {
  size_t n = 4 + 64;
  unsigned nb = base_levels(info);
  n += 8 + (size_t)nb * (8 + (info->base - 1) * 32 + 8);
  if (info->sub) n += 8 + 8 + (info->sub - 1) * 32 + 8;
  if (info->top) n += 8 + 8 + (info->top - 1) * 32 + 8;
  return n;
}

size_t czk_post_vanilla_size(const czk_post_info *info) {
  return 8 + 32 + 8 + 8 + (size_t)info->challenge_count * opening_size(info) + 64;
}

/* ------------------------------------------------------------------------------------------------ parse */
typedef struct rd {
  const uint8_t *p;
  size_t len, off;
  char *err;
  size_t err_len;
  const char *which;
} rd;

static czk_status fail(rd *r, czk_status st, const char *fmt, ...) {
  if (r->err && r->err_len) {
    int k = snprintf(r->err, r->err_len, "%s: ", r->which ? r->which : "vanilla proof");
    if (k < 0) k = 0;
    if ((size_t)k < r->err_len) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(r->err + k, r->err_len - (size_t)k, fmt, ap);
      va_end(ap);
    }
  }
  return st;
}

static bool need(rd *r, size_t n) { return r->len - r->off >= n; }

static czk_status get_u64(rd *r, uint64_t *v, const char *what) {
  if (!need(r, 8))
    return fail(r, CZK_ERR_TRUNCATED, "truncated at byte %zu (reading %s; the proof has %zu bytes)", r->off, what,
                r->len);
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--) x = x << 8 | r->p[r->off + (size_t)i];
  r->off += 8;
  *v = x;
  return CZK_OK;
}

static czk_status get_u32(rd *r, uint32_t *v, const char *what) {
  if (!need(r, 4))
    return fail(r, CZK_ERR_TRUNCATED, "truncated at byte %zu (reading %s; the proof has %zu bytes)", r->off, what,
                r->len);
  *v = (uint32_t)r->p[r->off] | (uint32_t)r->p[r->off + 1] << 8 | (uint32_t)r->p[r->off + 2] << 16 |
       (uint32_t)r->p[r->off + 3] << 24;
  r->off += 4;
  return CZK_OK;
}

static czk_status get_domain(rd *r, uint8_t out[32], const char *what, long ch) {
  if (!need(r, 32))
    return fail(r, CZK_ERR_TRUNCATED, "truncated at byte %zu (reading %s; the proof has %zu bytes)", r->off, what,
                r->len);
  memcpy(out, r->p + r->off, 32);
  czk_fr f;
  if (czk_fr_from_bytes_le(&f, out) != CZK_OK) {
    if (ch >= 0)
      return fail(r, CZK_ERR_NOT_CANONICAL, "challenge %ld: %s at byte %zu is not a canonical field element", ch, what,
                  r->off);
    return fail(r, CZK_ERR_NOT_CANONICAL, "%s at byte %zu is not a canonical field element", what, r->off);
  }
  r->off += 32;
  return CZK_OK;
}

static czk_status expect_count(rd *r, uint64_t want, const char *what, long ch) {
  uint64_t v = 0;
  CZK_TRY(get_u64(r, &v, what));
  if (v != want) {
    if (ch >= 0)
      return fail(r, CZK_ERR_FORMAT, "challenge %ld: %s is %llu, the registered shape needs %llu", ch, what,
                  (unsigned long long)v, (unsigned long long)want);
    return fail(r, CZK_ERR_FORMAT, "%s is %llu, the registered shape needs %llu", what, (unsigned long long)v,
                (unsigned long long)want);
  }
  return CZK_OK;
}

/* One PathElement of arity a: u64 (a-1), the siblings, u64 index (< a). */
static czk_status get_element(rd *r, unsigned a, uint8_t (*sib)[32], uint8_t *index, long ch, const char *path) {
  char what[64];
  snprintf(what, sizeof what, "%s hashes length", path);
  CZK_TRY(expect_count(r, a - 1, what, ch));
  for (unsigned i = 0; i + 1 < a; i++) {
    snprintf(what, sizeof what, "%s sibling %u", path, i);
    CZK_TRY(get_domain(r, sib[i], what, ch));
  }
  uint64_t idx = 0;
  snprintf(what, sizeof what, "%s index", path);
  CZK_TRY(get_u64(r, &idx, what));
  if (idx >= a)
    return fail(r, CZK_ERR_FORMAT, "challenge %ld: %s index %llu is not below the arity %u", ch, path,
                (unsigned long long)idx, a);
  *index = (uint8_t)idx;
  return CZK_OK;
}

static czk_status get_opening(rd *r, const czk_post_info *info, czk_post_opening *o, long ch) {
  uint32_t tag = 0;
  CZK_TRY(get_u32(r, &tag, "MerkleProof tag"));
  uint32_t want = info->top ? 2u : info->sub ? 1u : 0u;
  static const char *names[3] = {"Single", "Sub", "Top"};
  if (tag != want)
    return fail(r, CZK_ERR_FORMAT, "challenge %ld: MerkleProof tag %u (%s), the %s shape %u-%u-%u needs %u (%s)", ch,
                tag, tag < 3 ? names[tag] : "unknown", info->size_name, info->base, info->sub, info->top, want,
                names[want]);
  unsigned nb = base_levels(info), s = 0, l = 0;
  char path[48];
  if (tag == 0) {
    CZK_TRY(get_domain(r, o->root, "root", ch));
    CZK_TRY(get_domain(r, o->leaf, "leaf", ch));
  }
  CZK_TRY(expect_count(r, nb, "base path length", ch));
  for (unsigned i = 0; i < nb; i++, l++) {
    snprintf(path, sizeof path, "base level %u", i);
    CZK_TRY(get_element(r, info->base, &o->sib[s], &o->index[l], ch, path));
    s += info->base - 1;
  }
  if (info->sub) {
    CZK_TRY(expect_count(r, 1, "sub path length", ch));
    CZK_TRY(get_element(r, info->sub, &o->sib[s], &o->index[l], ch, "sub level"));
    s += info->sub - 1, l++;
  }
  if (info->top) {
    CZK_TRY(expect_count(r, 1, "top path length", ch));
    CZK_TRY(get_element(r, info->top, &o->sib[s], &o->index[l], ch, "top level"));
    s += info->top - 1, l++;
  }
  if (tag != 0) {
    CZK_TRY(get_domain(r, o->root, "root", ch));
    CZK_TRY(get_domain(r, o->leaf, "leaf", ch));
  }
  return CZK_OK;
}

czk_status czk_post_vanilla_parse(const czk_post_info *info, const uint8_t *buf, size_t len, czk_post_sector *out,
                                  const char *which, char *err, size_t err_len) {
  memset(out, 0, sizeof *out);
  if (err && err_len) err[0] = 0;
  rd r = {buf, buf ? len : 0, 0, err, err_len, which};
  if (!info) return fail(&r, CZK_ERR_INVALID_ARG, "no registered proof");
  size_t want = czk_post_vanilla_size(info);
  uint64_t v = 0;
  CZK_TRY(get_u64(&r, &out->sector_id, "sector_id"));
  CZK_TRY(get_domain(&r, out->comm_r, "comm_r", -1));
  CZK_TRY(get_u64(&r, &v, "sector proof count"));
  if (v != 1) return fail(&r, CZK_ERR_FORMAT, "holds %llu sector proofs; a single-sector vanilla proof holds 1",
                          (unsigned long long)v);
  CZK_TRY(get_u64(&r, &v, "inclusion proof count"));
  if (v != info->challenge_count)
    return fail(&r, CZK_ERR_FORMAT, "holds %llu inclusion proofs; %s needs %u", (unsigned long long)v, info->name,
                info->challenge_count);
  /* the counts agree with the shape; the size of the rest is now known exactly */
  if (len < want)
    return fail(&r, CZK_ERR_TRUNCATED, "%zu bytes; a %s vanilla proof has %zu (truncated)", len, info->name, want);
  out->openings = calloc(info->challenge_count, sizeof *out->openings);
  if (!out->openings) return CZK_ERR_NOMEM;
  out->n_openings = info->challenge_count;
  czk_status st = CZK_OK;
  for (uint32_t c = 0; c < info->challenge_count && st == CZK_OK; c++)
    st = get_opening(&r, info, &out->openings[c], (long)c);
  if (st == CZK_OK) st = get_domain(&r, out->comm_c, "comm_c", -1);
  if (st == CZK_OK) st = get_domain(&r, out->comm_r_last, "comm_r_last", -1);
  if (st == CZK_OK && r.off != len)
    st = fail(&r, CZK_ERR_FORMAT, "%zu trailing byte%s after the %zu-byte vanilla proof", len - r.off,
              len - r.off == 1 ? "" : "s", r.off);
  if (st != CZK_OK) czk_post_sector_free(out);
  return st;
}

void czk_post_sector_free(czk_post_sector *s) {
  if (!s) return;
  free(s->openings);
  memset(s, 0, sizeof *s);
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

czk_status czk_post_vanilla_write(const czk_post_info *info, const czk_post_sector *s, uint8_t *out, size_t out_len) {
  if (!info || !s || !out || out_len < czk_post_vanilla_size(info) || s->n_openings != info->challenge_count ||
      !s->openings)
    return CZK_ERR_INVALID_ARG;
  wr w = {out, 0};
  put_u64(&w, s->sector_id);
  put_bytes(&w, s->comm_r, 32);
  put_u64(&w, 1);
  put_u64(&w, info->challenge_count);
  unsigned nb = base_levels(info);
  uint32_t tag = info->top ? 2u : info->sub ? 1u : 0u;
  for (uint32_t c = 0; c < s->n_openings; c++) {
    const czk_post_opening *o = &s->openings[c];
    put_u32(&w, tag);
    if (tag == 0) put_bytes(&w, o->root, 32), put_bytes(&w, o->leaf, 32);
    put_u64(&w, nb);
    unsigned si = 0, l = 0;
    for (unsigned i = 0; i < nb; i++, l++, si += info->base - 1) put_element(&w, info->base, &o->sib[si], o->index[l]);
    if (info->sub) put_u64(&w, 1), put_element(&w, info->sub, &o->sib[si], o->index[l]), si += info->sub - 1, l++;
    if (info->top) put_u64(&w, 1), put_element(&w, info->top, &o->sib[si], o->index[l]);
    if (tag != 0) put_bytes(&w, o->root, 32), put_bytes(&w, o->leaf, 32);
  }
  put_bytes(&w, s->comm_c, 32);
  put_bytes(&w, s->comm_r_last, 32);
  return w.off == czk_post_vanilla_size(info) ? CZK_OK : CZK_ERR_INTERNAL;
}

uint64_t czk_post_opening_index(const czk_post_info *info, const czk_post_opening *o) {
  uint64_t idx = 0, mul = 1;
  unsigned n = czk_post_levels(info);
  for (unsigned l = 0; l < n; l++) {
    unsigned a = czk_post_level_arity(info, l);
    idx += (uint64_t)o->index[l] * mul;
    mul *= a;
  }
  return idx;
}

/* ------------------------------------------------------------------------------------------------ challenges */
uint64_t czk_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id, uint64_t challenge_index,
                                 uint64_t sector_size) {
  uint8_t msg[48], h[32];
  memcpy(msg, randomness, 32);
  for (int i = 0; i < 8; i++) msg[32 + i] = (uint8_t)(sector_id >> (8 * i));
  for (int i = 0; i < 8; i++) msg[40 + i] = (uint8_t)(challenge_index >> (8 * i));
  czk_sha256(h, msg, sizeof msg);
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | h[i];
  return v % (sector_size / 32);
}

uint64_t czk_post_challenge(const czk_post_info *info, const uint8_t randomness[32], uint64_t sector_id,
                            uint64_t sector_index, uint32_t n) {
  uint64_t ci = info->api_minor >= 2 ? n : sector_index * info->challenge_count + n;
  return czk_post_leaf_challenge(randomness, sector_id, ci, info->sector_size);
}

/* ------------------------------------------------------------------------------------------------ native check */
static void hex8(char *out, const uint8_t *b) {
  for (int i = 0; i < 4; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* The openings of many sectors, checked in parallel as one list of (sector, challenge) items. res per item: 0 ok,
 * 1 root is not comm_r_last, 2 index is not the challenge, 3 path does not hash to the root, 4 internal error. */
typedef struct chk_ctx {
  const czk_post_info *info;
  const czk_post_sector *s;
  uint32_t m; /* openings per sector */
  const uint8_t *randomness;
  const uint64_t *sector_index;
  uint8_t *res;
  uint64_t *got, *want;
} chk_ctx;

static void check_openings(void *arg, size_t begin, size_t end) {
  chk_ctx *x = arg;
  const czk_post_info *info = x->info;
  unsigned n = czk_post_levels(info);
  for (size_t it = begin; it < end; it++) {
    const czk_post_sector *s = &x->s[it / x->m];
    uint32_t c = (uint32_t)(it % x->m);
    const czk_post_opening *o = &s->openings[c];
    x->want[it] = czk_post_challenge(info, x->randomness, s->sector_id, x->sector_index[it / x->m], c);
    x->got[it] = czk_post_opening_index(info, o);
    if (memcmp(o->root, s->comm_r_last, 32) != 0) {
      x->res[it] = 1;
      continue;
    }
    if (x->got[it] != x->want[it]) {
      x->res[it] = 2;
      continue;
    }
    uint8_t cur[32], group[CZK_FC_MAX_ARITY * 32];
    memcpy(cur, o->leaf, 32);
    unsigned si = 0;
    x->res[it] = 0;
    for (unsigned l = 0; l < n; l++) {
      unsigned a = czk_post_level_arity(info, l);
      for (unsigned i = 0, k = 0; i < a; i++) memcpy(group + 32 * i, i == o->index[l] ? cur : o->sib[si + k++], 32);
      si += a - 1;
      if (czk_fc_node_hash(CZK_FC_POSEIDON, cur, group, a) != CZK_OK) {
        x->res[it] = 4;
        break;
      }
    }
    if (x->res[it] == 0 && memcmp(cur, o->root, 32) != 0) x->res[it] = 3;
  }
}

czk_status czk_post_vanilla_check_all(const czk_post_info *info, const czk_post_sector *sectors, size_t n,
                                      const uint8_t randomness[32], const uint64_t *sector_index,
                                      const char *const *which, char *err, size_t err_len) {
  rd r = {NULL, 0, 0, err, err_len, NULL};
  if (err && err_len) err[0] = 0;
  if (!info || !sectors || !sector_index || n == 0) return fail(&r, CZK_ERR_INVALID_ARG, "no sectors");
  for (size_t i = 0; i < n; i++) {
    const czk_post_sector *s = &sectors[i];
    r.which = which ? which[i] : NULL;
    if (s->n_openings != info->challenge_count || !s->openings) return fail(&r, CZK_ERR_INVALID_ARG, "wrong shape");
    uint8_t kids[64], h[32];
    memcpy(kids, s->comm_c, 32);
    memcpy(kids + 32, s->comm_r_last, 32);
    CZK_TRY(czk_fc_node_hash(CZK_FC_POSEIDON, h, kids, 2));
    if (memcmp(h, s->comm_r, 32) != 0) {
      char a[9], b[9];
      hex8(a, h), hex8(b, s->comm_r);
      return fail(&r, CZK_ERR_VERIFY_FAILED, "sector %llu: H(comm_c, comm_r_last) = %s... differs from comm_r %s...",
                  (unsigned long long)s->sector_id, a, b);
    }
  }
  uint32_t m = info->challenge_count;
  size_t items = n * m;
  uint8_t *res = malloc(items);
  uint64_t *got = malloc(items * sizeof *got), *want = malloc(items * sizeof *want);
  czk_status st = res && got && want ? CZK_OK : CZK_ERR_NOMEM;
  if (st == CZK_OK) {
    chk_ctx x = {info, sectors, m, randomness, sector_index, res, got, want};
    czk_pool_parallel_for(NULL, items, 4, check_openings, &x);
  }
  for (size_t it = 0; it < items && st == CZK_OK; it++) {
    if (res[it] == 0) continue;
    unsigned long long id = (unsigned long long)sectors[it / m].sector_id;
    uint32_t c = (uint32_t)(it % m);
    r.which = which ? which[it / m] : NULL;
    switch (res[it]) {
    case 1: st = fail(&r, CZK_ERR_VERIFY_FAILED, "sector %llu challenge %u: the opening's root is not comm_r_last", id, c); break;
    case 2:
      st = fail(&r, CZK_ERR_VERIFY_FAILED,
                "sector %llu challenge %u: the path opens leaf %llu, the challenge derived from the randomness is "
                "leaf %llu",
                id, c, (unsigned long long)got[it], (unsigned long long)want[it]);
      break;
    case 3:
      st = fail(&r, CZK_ERR_VERIFY_FAILED,
                "sector %llu challenge %u: the Merkle path of leaf %llu does not hash to comm_r_last", id, c,
                (unsigned long long)got[it]);
      break;
    default: st = CZK_ERR_INTERNAL; break;
    }
  }
  free(res), free(got), free(want);
  return st;
}

czk_status czk_post_vanilla_check(const czk_post_info *info, const czk_post_sector *s, const uint8_t randomness[32],
                                  uint64_t sector_index, const char *which, char *err, size_t err_len) {
  return czk_post_vanilla_check_all(info, s, 1, randomness, &sector_index, which ? &which : NULL, err, err_len);
}

/* ------------------------------------------------------------------------------------------------ public inputs */
size_t czk_post_num_public_inputs(const czk_post_info *info) {
  return (size_t)info->slots * (1 + info->slot_challenges);
}

czk_status czk_post_public_inputs(const czk_post_info *info, const uint64_t *ids, const uint8_t (*comm_r)[32],
                                  size_t n_sectors, const uint8_t randomness[32], uint32_t partition, czk_fr *out,
                                  size_t out_len) {
  if (!info || !ids || !comm_r || !out || n_sectors < 1 || out_len < czk_post_num_public_inputs(info))
    return CZK_ERR_INVALID_ARG;
  if (info->type == CZK_POST_WINNING ? n_sectors != 1 : n_sectors > info->sector_count) return CZK_ERR_SIZE_MISMATCH;
  size_t k = 0;
  if (info->type == CZK_POST_WINNING) {
    czk_fr cr;
    CZK_TRY(czk_fr_from_bytes_le(&cr, comm_r[0]));
    for (uint32_t n = 0; n < info->challenge_count; n++) {
      out[k++] = cr;
      czk_fr_from_u64(&out[k++], czk_post_challenge(info, randomness, ids[0], 0, n));
    }
    return CZK_OK;
  }
  size_t tuple = 1 + info->slot_challenges;
  for (size_t i = 0; i < n_sectors; i++) {
    CZK_TRY(czk_fr_from_bytes_le(&out[k++], comm_r[i]));
    uint64_t sector_index = (uint64_t)partition * info->sector_count + i;
    for (uint32_t n = 0; n < info->slot_challenges; n++)
      czk_fr_from_u64(&out[k++], czk_post_challenge(info, randomness, ids[i], sector_index, n));
  }
  for (size_t i = n_sectors; i < info->slots; i++, k += tuple) memcpy(&out[k], &out[k - tuple], tuple * sizeof *out);
  return CZK_OK;
}
