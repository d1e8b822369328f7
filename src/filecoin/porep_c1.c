/* porep_c1.c: the PoRep C1 output (SealCommitPhase1Output, serde_json layout; filecoin-porep.md section 2) and cuzk's
 * envelope around it, read into the circuit's values (czk_porep_c1) by a streaming parser.
 *
 * Reading: yajl builds a compact tree (json_tree_internal.h: arrays of bytes packed, ~0.5 x the text for a C1), then
 * the tree is walked into czk_porep_c1. In the envelope {"SectorNum": n, "Phase1Out": "<base64>", "SectorSize": s},
 * Phase1Out is decoded 64 KiB of base64 at a time and each decoded piece is fed straight to the C1 parser, so the C1
 * JSON is never held whole. Memory: the caller's input + the tree + the result (~49 KB per challenge); a 32 GiB C1
 * (39 MB of JSON, 52 MB as an envelope) peaks near 0.8 x its JSON (docs/benchmarks.md, `czk bench c1-parse`).
 * Any input is bounded: the tree may not exceed 2 x its text + 1 MiB, nesting 64 levels.
 * Checks: every array length against the registered proof's shape (partitions, challenges, layers, path elements and
 * hashes per element, 6 + 8 parent columns, 37 labeling parents), every index below its arity, every 32-byte domain
 * an array of 32 integers 0..255 and a canonical field element (seed and ticket: 32 bytes, any value), integers
 * unsigned and below 2^64; unknown keys are ignored, any key order is accepted, a duplicated key is refused. Errors
 * name the partition, challenge and field, and for broken JSON the byte offset. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/porep.h"
#include "filecoin/json_tree_internal.h"

typedef struct ctx {
  const czk__jtree *t;
  czk_status st; /* the first error (its message is kept) */
  char *err;
  size_t err_len;
  char where[64];
} ctx;

static czk_status vfail(ctx *x, czk_status st, const char *fmt, va_list ap) {
  if (x->st != CZK_OK) return x->st;
  x->st = st;
  if (x->err && x->err_len) {
    int k = snprintf(x->err, x->err_len, "%s%s", x->where, x->where[0] ? ": " : "");
    if (k < 0) k = 0;
    if ((size_t)k < x->err_len) vsnprintf(x->err + k, x->err_len - (size_t)k, fmt, ap);
  }
  return st;
}

static czk_status fail(ctx *x, czk_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static czk_status fail(ctx *x, czk_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(x, st, fmt, ap);
  va_end(ap);
  return x->st;
}

/* What a value is, for messages: "missing", "a string", "an array of 31", ... */
static const char *describe(const czk__jtree *t, czk__jref r, char *buf, size_t n) {
  switch (czk__jtree_type(t, r)) {
  case CZK__J_NONE: return "missing";
  case CZK__J_NULL: return "null";
  case CZK__J_BOOL: return "a boolean";
  case CZK__J_UINT: snprintf(buf, n, "the number %llu", (unsigned long long)czk__jtree_uint(t, r)); return buf;
  case CZK__J_NUMBER:
    return czk__jtree_node(t, r)->a == CZK__J_NEGATIVE ? "a negative number"
           : czk__jtree_node(t, r)->a == CZK__J_HUGE   ? "a number above 2^64 - 1"
                                                        : "a number with a fraction or exponent";
  case CZK__J_STRING:
  case CZK__J_TAKEN: return "a string";
  case CZK__J_BYTES:
  case CZK__J_ARRAY: snprintf(buf, n, "an array of %u", czk__jtree_node(t, r)->b); return buf;
  default: return "an object";
  }
}

static czk__jref get(ctx *x, czk__jref obj, const char *key) {
  bool dup = false;
  czk__jref r = czk__jtree_get(x->t, obj, key, &dup);
  if (dup) fail(x, CZK_ERR_FORMAT, "the key \"%s\" appears twice in one object", key);
  return r;
}

/* an array of exactly n elements that are not all bytes (JSON objects or arrays here) */
static bool is_array(ctx *x, czk__jref a, uint32_t n) {
  return czk__jtree_type(x->t, a) == CZK__J_ARRAY && czk__jtree_node(x->t, a)->b == n;
}

/* a 32-byte little-endian integer below the scalar field's modulus */
static bool canonical32(const uint8_t b[32]) {
  for (int i = 3; i >= 0; i--) {
    uint64_t w = 0;
    for (int j = 7; j >= 0; j--) w = w << 8 | b[8 * i + j];
    if (w != czk_fr_modulus[i]) return w < czk_fr_modulus[i];
  }
  return false; /* equal */
}

/* 32 bytes; canonical: also a canonical field element (little-endian). The name is printed only on failure. */
static czk_status bytes32(ctx *x, czk__jref a, uint8_t out[32], bool canonical, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static czk_status bytes32(ctx *x, czk__jref a, uint8_t out[32], bool canonical, const char *fmt, ...) {
  const czk__jtree *t = x->t;
  int ty = czk__jtree_type(t, a);
  if (ty == CZK__J_BYTES && czk__jtree_node(t, a)->b == 32) {
    memcpy(out, czk__jtree_bytes(t, a), 32);
    if (!canonical || canonical32(out)) return CZK_OK;
  }
  char what[128], d[48];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (ty == CZK__J_BYTES && czk__jtree_node(t, a)->b == 32)
    return fail(x, CZK_ERR_NOT_CANONICAL, "%s is not a canonical field element", what);
  if (ty == CZK__J_ARRAY && czk__jtree_node(t, a)->b == 32) { /* unpacked: some element is not a byte */
    uint32_t i = 0;
    for (czk__jref e = czk__jtree_first(t, a); e; e = czk__jtree_next(t, e), i++)
      if (czk__jtree_type(t, e) != CZK__J_UINT || czk__jtree_uint(t, e) > 255)
        return fail(x, CZK_ERR_FORMAT, "%s[%u] is not a byte (%s)", what, i, describe(t, e, d, sizeof d));
  }
  return fail(x, CZK_ERR_FORMAT, "%s is not an array of 32 bytes (%s)", what, describe(t, a, d, sizeof d));
}

static czk_status u64_of(ctx *x, czk__jref o, uint64_t *v, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static czk_status u64_of(ctx *x, czk__jref o, uint64_t *v, const char *fmt, ...) {
  if (czk__jtree_type(x->t, o) == CZK__J_UINT) {
    *v = czk__jtree_uint(x->t, o);
    return CZK_OK;
  }
  char what[128], d[48];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return fail(x, CZK_ERR_FORMAT, "%s is not an unsigned integer (%s)", what, describe(x->t, o, d, sizeof d));
}

/* path elements of one InclusionPath into p at level *lv / sibling *si; each element has arity - 1 hashes */
static czk_status elements(ctx *x, czk__jref ip, unsigned n, unsigned arity, czk_porep_path *p, unsigned *lv,
                           unsigned *si, const char *what) {
  const czk__jtree *t = x->t;
  czk__jref arr = get(x, ip, "path");
  char d[48];
  if (!is_array(x, arr, n))
    return fail(x, CZK_ERR_FORMAT, "%s: the path must have %u elements (%s)", what, n, describe(t, arr, d, sizeof d));
  if (*lv + n > CZK_POREP_MAX_LEVELS || *si + n * (arity - 1) > CZK_POREP_MAX_SIBLINGS)
    return fail(x, CZK_ERR_LIMIT, "%s: more levels than a path can hold", what);
  unsigned e = 0;
  for (czk__jref el = czk__jtree_first(t, arr); el; el = czk__jtree_next(t, el), e++) {
    czk__jref h = get(x, el, "hashes");
    if (!is_array(x, h, arity - 1))
      return fail(x, CZK_ERR_FORMAT, "%s element %u: needs %u hashes (%s)", what, e, arity - 1,
                  describe(t, h, d, sizeof d));
    unsigned k = 0;
    for (czk__jref hk = czk__jtree_first(t, h); hk; hk = czk__jtree_next(t, hk), k++)
      CZK_TRY(bytes32(x, hk, p->sib[(*si)++], true, "%s element %u hash %u", what, e, k));
    uint64_t idx = 0;
    CZK_TRY(u64_of(x, get(x, el, "index"), &idx, "%s element %u index", what, e));
    if (idx >= arity)
      return fail(x, CZK_ERR_FORMAT, "%s element %u index is %llu, not below the arity %u", what, e,
                  (unsigned long long)idx, arity);
    p->index[(*lv)++] = (uint8_t)idx;
  }
  return x->st;
}

/* A MerkleProof {"data": {"Single"|"Sub"|"Top": ...}} of a tree of the given shape; root/leaf optional outputs. */
static czk_status merkle(ctx *x, czk__jref mp, unsigned base_levels, unsigned base, unsigned sub, unsigned top,
                         czk_porep_path *p, uint8_t *root, uint8_t *leaf, const char *what) {
  const char *tag = top ? "Top" : sub ? "Sub" : "Single";
  czk__jref d = get(x, get(x, mp, "data"), tag);
  if (!d) return fail(x, CZK_ERR_FORMAT, "%s: not a MerkleProof of variant %s", what, tag);
  unsigned lv = 0, si = 0;
  char w[96];
  if (!sub) {
    CZK_TRY(elements(x, get(x, d, "path"), base_levels, base, p, &lv, &si, what));
  } else {
    snprintf(w, sizeof w, "%s base_proof", what);
    CZK_TRY(elements(x, get(x, d, "base_proof"), base_levels, base, p, &lv, &si, w));
    snprintf(w, sizeof w, "%s sub_proof", what);
    CZK_TRY(elements(x, get(x, d, "sub_proof"), 1, sub, p, &lv, &si, w));
    if (top) {
      snprintf(w, sizeof w, "%s top_proof", what);
      CZK_TRY(elements(x, get(x, d, "top_proof"), 1, top, p, &lv, &si, w));
    }
  }
  uint8_t tmp[32];
  CZK_TRY(bytes32(x, get(x, d, "root"), root ? root : tmp, true, "%s root", what));
  return bytes32(x, get(x, d, "leaf"), leaf ? leaf : tmp, true, "%s leaf", what);
}

static unsigned log2u(uint64_t v) {
  unsigned k = 0;
  while ((1ull << k) < v) k++;
  return k;
}

static czk_status column(ctx *x, czk__jref cp, const czk_porep_info *info, unsigned base_levels,
                         czk_porep_column *col, uint8_t *root, const char *what) {
  const czk__jtree *t = x->t;
  czk__jref rows = get(x, get(x, cp, "column"), "rows");
  char d[48], w[96];
  if (!is_array(x, rows, info->layers))
    return fail(x, CZK_ERR_FORMAT, "%s: column rows must be %u (%s)", what, info->layers, describe(t, rows, d, sizeof d));
  unsigned l = 0;
  for (czk__jref r = czk__jtree_first(t, rows); r; r = czk__jtree_next(t, r), l++)
    CZK_TRY(bytes32(x, r, col->rows[l], true, "%s row %u", what, l));
  snprintf(w, sizeof w, "%s inclusion_proof", what);
  return merkle(x, get(x, cp, "inclusion_proof"), base_levels, info->base, info->sub, info->top, &col->path, root, NULL, w);
}

/* A LabelingProof / EncodingProof {"parents": [D x 37], "layer_index": u32, "node": u64} (not used by the circuit,
 * checked for shape) */
static czk_status labeling(ctx *x, czk__jref lp, uint64_t *node, const char *what) {
  const czk__jtree *t = x->t;
  czk__jref ps = get(x, lp, "parents");
  char d[48];
  if (!is_array(x, ps, 37))
    return fail(x, CZK_ERR_FORMAT, "%s: parents must hold 37 labels (%s)", what, describe(t, ps, d, sizeof d));
  unsigned i = 0;
  uint8_t tmp[32];
  for (czk__jref p = czk__jtree_first(t, ps); p; p = czk__jtree_next(t, p), i++)
    CZK_TRY(bytes32(x, p, tmp, true, "%s parent %u", what, i));
  uint64_t layer;
  CZK_TRY(u64_of(x, get(x, lp, "layer_index"), &layer, "%s.layer_index", what));
  return u64_of(x, get(x, lp, "node"), node, "%s.node", what);
}

static czk_status challenge(ctx *x, czk__jref pr, const czk_porep_info *info, czk_porep_challenge *ch,
                            uint8_t comm_r_last[32], uint8_t comm_c[32]) {
  const czk__jtree *t = x->t;
  unsigned d = log2u(info->sector_size / 32);
  uint64_t trees = (uint64_t)(info->sub ? info->sub : 1) * (info->top ? info->top : 1);
  unsigned base_levels = log2u(info->sector_size / 32 / trees) / 3; /* base arity 8 */
  char desc[48], w[48];
  if (czk__jtree_type(t, pr) != CZK__J_OBJECT)
    return fail(x, CZK_ERR_FORMAT, "not a challenge proof object (%s)", describe(t, pr, desc, sizeof desc));
  CZK_TRY(merkle(x, get(x, pr, "comm_d_proofs"), d, 2, 0, 0, &ch->d_path, NULL, ch->data_leaf, "comm_d_proofs"));
  CZK_TRY(merkle(x, get(x, pr, "comm_r_last_proof"), base_levels, info->base, info->sub, info->top, &ch->r_path,
                 comm_r_last, NULL, "comm_r_last_proof"));
  czk__jref rcp = get(x, pr, "replica_column_proofs"), drg = get(x, rcp, "drg_parents"),
            exp = get(x, rcp, "exp_parents");
  czk_porep_column cx;
  memset(&cx, 0, sizeof cx); /* its unused levels are copied into c_path: keep the result deterministic */
  CZK_TRY(column(x, get(x, rcp, "c_x"), info, base_levels, &cx, comm_c, "c_x"));
  ch->c_path = cx.path;
  if (!is_array(x, drg, 6))
    return fail(x, CZK_ERR_FORMAT, "drg_parents must hold 6 column proofs (%s)", describe(t, drg, desc, sizeof desc));
  if (!is_array(x, exp, 8))
    return fail(x, CZK_ERR_FORMAT, "exp_parents must hold 8 column proofs (%s)", describe(t, exp, desc, sizeof desc));
  int p = 0;
  for (czk__jref c = czk__jtree_first(t, drg); c; c = czk__jtree_next(t, c), p++) {
    snprintf(w, sizeof w, "drg_parents[%d]", p);
    CZK_TRY(column(x, c, info, base_levels, &ch->drg[p], NULL, w));
  }
  p = 0;
  for (czk__jref c = czk__jtree_first(t, exp); c; c = czk__jtree_next(t, c), p++) {
    snprintf(w, sizeof w, "exp_parents[%d]", p);
    CZK_TRY(column(x, c, info, base_levels, &ch->exp[p], NULL, w));
  }
  czk__jref lp = get(x, pr, "labeling_proofs");
  if (!is_array(x, lp, info->layers))
    return fail(x, CZK_ERR_FORMAT, "labeling_proofs must hold %u proofs (%s)", info->layers,
                describe(t, lp, desc, sizeof desc));
  unsigned l = 0;
  for (czk__jref c = czk__jtree_first(t, lp); c; c = czk__jtree_next(t, c), l++) {
    uint64_t node;
    snprintf(w, sizeof w, "labeling_proofs[%u]", l);
    CZK_TRY(labeling(x, c, &node, w));
    if (l == 0) ch->challenge = node;
  }
  uint64_t node;
  return labeling(x, get(x, pr, "encoding_proof"), &node, "encoding_proof");
}

/* The C1 document `root` of tree t into out (zeroed first; freed on failure). */
static czk_status walk(czk_porep_c1 *out, const czk__jtree *t, czk__jref root, char *err, size_t err_len) {
  ctx x = {t, CZK_OK, err, err_len, ""};
  char desc[48];
  if (czk__jtree_type(t, root) != CZK__J_OBJECT)
    return fail(&x, CZK_ERR_FORMAT, "the C1 output is not a JSON object (%s)", describe(t, root, desc, sizeof desc));
  czk__jref rp = get(&x, root, "registered_proof");
  size_t nlen = 0;
  const char *name = czk__jtree_type(t, rp) == CZK__J_STRING ? czk__jtree_string(t, rp, &nlen) : NULL;
  for (uint64_t w = 0; name && w < CZK_POREP_N_PROOFS; w++) {
    const char *wn = czk_porep_info_by_wire(w)->name;
    if (strlen(wn) == nlen && memcmp(wn, name, nlen) == 0) out->info = czk_porep_info_by_wire(w);
  }
  if (!out->info)
    return fail(&x, CZK_ERR_FORMAT, "registered_proof %.*s is not a known seal proof", name ? (int)(nlen > 64 ? 64 : nlen) : 9,
                name ? name : "(missing)");
  CZK_TRY(bytes32(&x, get(&x, root, "comm_r"), out->comm_r, true, "comm_r"));
  CZK_TRY(bytes32(&x, get(&x, root, "comm_d"), out->comm_d, true, "comm_d"));
  CZK_TRY(bytes32(&x, get(&x, root, "replica_id"), out->replica_id, true, "replica_id"));
  /* seed and ticket are 32 raw bytes (randomness), not field elements */
  CZK_TRY(bytes32(&x, get(&x, root, "seed"), out->seed, false, "seed"));
  CZK_TRY(bytes32(&x, get(&x, root, "ticket"), out->ticket, false, "ticket"));
  /* {"StackedDrg<size>V1": [[Proof x C] x P]}: the variant name is the size's V1 for every API version */
  char vname[48];
  snprintf(vname, sizeof vname, "StackedDrg%sV1", out->info->size_name);
  czk__jref parts = get(&x, get(&x, root, "vanilla_proofs"), vname);
  if (!is_array(&x, parts, out->info->partitions))
    return fail(&x, CZK_ERR_FORMAT, "vanilla_proofs.%s must hold %u partitions (%s)", vname, out->info->partitions,
                describe(t, parts, desc, sizeof desc));
  out->partitions = out->info->partitions;
  out->challenges = out->info->challenges;
  out->ch = calloc((size_t)out->partitions * out->challenges, sizeof *out->ch);
  out->comm_r_last = calloc(out->partitions, 32);
  out->comm_c = calloc(out->partitions, 32);
  if (!out->ch || !out->comm_r_last || !out->comm_c)
    return fail(&x, CZK_ERR_NOMEM, "out of memory for %u x %u challenges", out->partitions, out->challenges);
  uint32_t k = 0;
  for (czk__jref pk = czk__jtree_first(t, parts); pk; pk = czk__jtree_next(t, pk), k++) {
    snprintf(x.where, sizeof x.where, "partition %u", k);
    if (!is_array(&x, pk, out->challenges))
      return fail(&x, CZK_ERR_FORMAT, "must hold %u challenge proofs (%s)", out->challenges,
                  describe(t, pk, desc, sizeof desc));
    uint32_t i = 0;
    for (czk__jref pr = czk__jtree_first(t, pk); pr; pr = czk__jtree_next(t, pr), i++) {
      snprintf(x.where, sizeof x.where, "partition %u challenge %u", k, i);
      uint8_t crl[32], cc[32];
      CZK_TRY(challenge(&x, pr, out->info, &out->ch[(size_t)k * out->challenges + i], crl, cc));
      if (i == 0) {
        memcpy(out->comm_r_last[k], crl, 32);
        memcpy(out->comm_c[k], cc, 32);
      } else if (memcmp(crl, out->comm_r_last[k], 32) != 0 || memcmp(cc, out->comm_c[k], 32) != 0) {
        return fail(&x, CZK_ERR_FORMAT, "comm_r_last / comm_c differ from the partition's first challenge");
      }
    }
  }
  return x.st; /* a duplicate key noticed on the way */
}

/* ------------------------------------------------------------------------------------------------ reading */
/* standard base64 (RFC 4648 section 4): value of a character, 254 for '=', 255 for anything else */
static const uint8_t k_b64[256] = {
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,  62, 255, 255, 255,  63,
     52,  53,  54,  55,  56,  57,  58,  59,  60,  61, 255, 255, 255, 254, 255, 255,
    255,   0,   1,   2,   3,   4,   5,   6,   7,   8,   9,  10,  11,  12,  13,  14,
     15,  16,  17,  18,  19,  20,  21,  22,  23,  24,  25, 255, 255, 255, 255, 255,
    255,  26,  27,  28,  29,  30,  31,  32,  33,  34,  35,  36,  37,  38,  39,  40,
     41,  42,  43,  44,  45,  46,  47,  48,  49,  50,  51, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
};

#define B64_CHUNK 65536 /* characters of base64 decoded and parsed at a time (a multiple of 4) */

typedef struct reader {
  czk__jtree outer; /* the document as sent: the envelope, or the bare C1 */
  czk__jtree inner; /* the C1 decoded from Phase1Out */
  bool have_inner;
  uint8_t *buf; /* B64_CHUNK / 4 * 3 decoded bytes */
} reader;

/* Decode s[0..n) (n a multiple of 4; `last`: the string's final piece, where padding may end it) into out. `at` is
 * the offset of s in the whole string, for messages. */
static czk_status b64_piece(czk__jtree *t, const uint8_t *s, size_t n, bool last, size_t at, uint8_t *out,
                            size_t *out_len) {
  size_t o = 0;
  for (size_t i = 0; i < n; i += 4) {
    uint32_t a = k_b64[s[i]], b = k_b64[s[i + 1]], c = k_b64[s[i + 2]], d = k_b64[s[i + 3]];
    if ((a | b | c | d) < 64) {
      uint32_t v = a << 18 | b << 12 | c << 6 | d;
      out[o] = (uint8_t)(v >> 16);
      out[o + 1] = (uint8_t)(v >> 8);
      out[o + 2] = (uint8_t)v;
      o += 3;
      continue;
    }
    /* the final quantum "xx==" or "xxx=", with the unused bits zero */
    bool end = last && i + 4 == n;
    if (end && a < 64 && b < 64 && c == 254 && d == 254 && (b & 15) == 0) {
      out[o++] = (uint8_t)(a << 2 | b >> 4);
      continue;
    }
    if (end && a < 64 && b < 64 && c < 64 && d == 254 && (c & 3) == 0) {
      out[o++] = (uint8_t)(a << 2 | b >> 4);
      out[o++] = (uint8_t)(b << 4 | c >> 2);
      continue;
    }
    size_t j = i;
    while (j < i + 4 && k_b64[s[j]] < 64) j++;
    if (j < i + 4 && k_b64[s[j]] == 255) {
      if (s[j] >= 0x20 && s[j] < 0x7f)
        return czk__jtree_fail(t, CZK_ERR_FORMAT, "envelope Phase1Out is not standard base64: character %zu is '%c'",
                               at + j, s[j]);
      return czk__jtree_fail(t, CZK_ERR_FORMAT, "envelope Phase1Out is not standard base64: character %zu is byte 0x%02x",
                             at + j, s[j]);
    }
    return czk__jtree_fail(t, CZK_ERR_FORMAT, "envelope Phase1Out is not standard base64: bad padding at character %zu",
                           at + i);
  }
  *out_len = o;
  return CZK_OK;
}

/* The outer document's hook: the root object's "Phase1Out" string, decoded piece by piece into the inner tree. */
static czk_status phase1_hook(void *user, const char *key, size_t key_len, const uint8_t *s, size_t n, bool *taken) {
  reader *rd = user;
  if (key_len != 9 || memcmp(key, "Phase1Out", 9) != 0) return CZK_OK;
  if (rd->have_inner) return czk__jtree_fail(&rd->outer, CZK_ERR_FORMAT, "envelope: the key \"Phase1Out\" appears twice");
  *taken = true;
  if (n % 4)
    return czk__jtree_fail(&rd->outer, CZK_ERR_FORMAT,
                           "envelope Phase1Out is not standard base64: its length %zu is not a multiple of 4", n);
  size_t json_len = n / 4 * 3;
  if (czk__jtree_init(&rd->inner, 2 * json_len + ((size_t)1 << 20)) != CZK_OK)
    return czk__jtree_fail(&rd->outer, CZK_ERR_NOMEM, "out of memory for Phase1Out");
  rd->have_inner = true;
  rd->buf = malloc(B64_CHUNK / 4 * 3);
  if (!rd->buf) return czk__jtree_fail(&rd->outer, CZK_ERR_NOMEM, "out of memory for Phase1Out");
  for (size_t i = 0; i < n; i += B64_CHUNK) {
    size_t m = n - i < B64_CHUNK ? n - i : B64_CHUNK, got = 0;
    CZK_TRY(b64_piece(&rd->outer, s + i, m, i + m == n, i, rd->buf, &got));
    if (czk__jtree_feed(&rd->inner, rd->buf, got) != CZK_OK) break;
  }
  if (czk__jtree_finish(&rd->inner) != CZK_OK)
    return czk__jtree_fail(&rd->outer, rd->inner.st, "Phase1Out: %s", rd->inner.err);
  return CZK_OK;
}

static void reader_free(reader *rd) {
  czk__jtree_free(&rd->outer);
  if (rd->have_inner) czk__jtree_free(&rd->inner);
  free(rd->buf);
}

static czk_status copy_err(czk_status st, const char *msg, char *err, size_t err_len) {
  if (err && err_len) snprintf(err, err_len, "%s", msg);
  return st;
}

/* envelope: accept an envelope (Phase1Out decoded and parsed); else only a bare C1 */
static czk_status read_any(czk_porep_c1 *out, const uint8_t *in, size_t len, bool envelope, uint64_t *sector_num,
                           uint64_t *sector_size, char *err, size_t err_len) {
  memset(out, 0, sizeof *out);
  if (err && err_len) err[0] = 0;
  if (sector_num) *sector_num = 0;
  if (sector_size) *sector_size = 0;
  if (!in && len) return copy_err(CZK_ERR_INVALID_ARG, "no input", err, err_len);
  reader rd;
  memset(&rd, 0, sizeof rd);
  czk_status st = czk__jtree_init(&rd.outer, 2 * len + ((size_t)1 << 20));
  if (st != CZK_OK) return st;
  if (envelope) czk__jtree_set_hook(&rd.outer, phase1_hook, &rd);
  if (czk__jtree_feed(&rd.outer, in, len) != CZK_OK || czk__jtree_finish(&rd.outer) != CZK_OK) {
    st = copy_err(rd.outer.st, rd.outer.err, err, err_len);
    reader_free(&rd);
    return st;
  }
  const czk__jtree *t = &rd.outer;
  czk__jref root = t->root;
  if (envelope) {
    ctx x = {t, CZK_OK, err, err_len, ""};
    char desc[48];
    if (czk__jtree_type(t, root) != CZK__J_OBJECT) {
      fail(&x, CZK_ERR_FORMAT, "neither a C1 output nor a cuzk envelope {SectorNum, Phase1Out, SectorSize}: the JSON is %s",
           describe(t, root, desc, sizeof desc));
    } else if (rd.have_inner) {
      uint64_t num = 0, size = 0;
      if (u64_of(&x, get(&x, root, "SectorNum"), &num, "envelope SectorNum") == CZK_OK &&
          u64_of(&x, get(&x, root, "SectorSize"), &size, "envelope SectorSize") == CZK_OK && x.st == CZK_OK) {
        if (sector_num) *sector_num = num;
        if (sector_size) *sector_size = size;
        t = &rd.inner;
        root = t->root;
      }
    } else {
      czk__jref p1 = get(&x, root, "Phase1Out");
      if (p1 || get(&x, root, "SectorNum") || get(&x, root, "SectorSize"))
        fail(&x, CZK_ERR_FORMAT, "envelope without a Phase1Out base64 string (Phase1Out is %s)",
             describe(t, p1, desc, sizeof desc));
    }
    if (x.st != CZK_OK) {
      reader_free(&rd);
      return x.st;
    }
  }
  st = walk(out, t, root, err, err_len);
  reader_free(&rd);
  if (st != CZK_OK) czk_porep_c1_free(out);
  return st;
}

czk_status czk_porep_c1_read(czk_porep_c1 *out, const uint8_t *in, size_t len, uint64_t *sector_num,
                             uint64_t *sector_size, char *err, size_t err_len) {
  return read_any(out, in, len, true, sector_num, sector_size, err, err_len);
}

czk_status czk_porep_c1_parse(czk_porep_c1 *out, const char *json, size_t len, char *err, size_t err_len) {
  return read_any(out, (const uint8_t *)json, len, false, NULL, NULL, err, err_len);
}

void czk_porep_c1_free(czk_porep_c1 *c1) {
  if (!c1) return;
  free(c1->ch);
  free(c1->comm_r_last);
  free(c1->comm_c);
  memset(c1, 0, sizeof *c1);
}

void czk_porep_c1_partition(const czk_porep_c1 *c1, uint32_t k, czk_porep_partition *out) {
  memcpy(out->replica_id, c1->replica_id, 32);
  memcpy(out->comm_d, c1->comm_d, 32);
  memcpy(out->comm_r, c1->comm_r, 32);
  memcpy(out->comm_r_last, c1->comm_r_last[k], 32);
  memcpy(out->comm_c, c1->comm_c[k], 32);
  out->n_challenges = c1->challenges;
  out->ch = &c1->ch[(size_t)k * c1->challenges];
}
