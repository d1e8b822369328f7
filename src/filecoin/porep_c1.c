/* porep_c1.c: the C1 output (SealCommitPhase1Output, serde_json layout; filecoin-porep.md section 2) read with
 * json-c into the circuit's values (czk_porep_c1). Every array length is checked against the registered proof's shape
 * (partitions, challenges, layers, path levels and hashes per level, 37 parents), every index against its arity, every
 * 32-byte domain is an array of 32 integers 0..255 and a canonical field element; unknown keys are ignored, any key
 * order is accepted. Errors name the partition, challenge and field.
 * Memory: json-c builds the whole document (several times the text); a 32 GiB C1 (~51 MB) needs a streaming reader
 * to meet issue 18's 3x bound -- not done yet. */
#include <json-c/json.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/porep.h"

typedef struct ctx {
  char *err;
  size_t err_len;
  char where[160];
} ctx;

static czk_status fail(ctx *x, czk_status st, const char *fmt, ...) {
  if (x->err && x->err_len) {
    int k = snprintf(x->err, x->err_len, "%s%s", x->where, x->where[0] ? ": " : "");
    if (k < 0) k = 0;
    if ((size_t)k < x->err_len) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(x->err + k, x->err_len - (size_t)k, fmt, ap);
      va_end(ap);
    }
  }
  return st;
}

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static czk_status bytes32(ctx *x, json_object *a, uint8_t out[32], const char *what, bool canonical) {
  if (!a || !json_object_is_type(a, json_type_array) || json_object_array_length(a) != 32)
    return fail(x, CZK_ERR_FORMAT, "%s is not an array of 32 bytes", what);
  for (size_t i = 0; i < 32; i++) {
    json_object *e = json_object_array_get_idx(a, i);
    int64_t v = json_object_is_type(e, json_type_int) ? json_object_get_int64(e) : -1;
    if (v < 0 || v > 255) return fail(x, CZK_ERR_FORMAT, "%s[%zu] is not a byte", what, i);
    out[i] = (uint8_t)v;
  }
  czk_fr f;
  if (canonical && czk_fr_from_bytes_le(&f, out) != CZK_OK)
    return fail(x, CZK_ERR_NOT_CANONICAL, "%s is not a canonical field element", what);
  return CZK_OK;
}

/* a 32-byte domain that must be a canonical field element */
static czk_status domain(ctx *x, json_object *a, uint8_t out[32], const char *what) {
  return bytes32(x, a, out, what, true);
}

static czk_status u64_of(ctx *x, json_object *o, uint64_t *v, const char *what) {
  if (!o || !json_object_is_type(o, json_type_int) || json_object_get_int64(o) < 0)
    return fail(x, CZK_ERR_FORMAT, "%s is not an unsigned integer", what);
  *v = json_object_get_uint64(o);
  return CZK_OK;
}

/* path elements of one InclusionPath into p at level *lv / sibling *si; each element has arity - 1 hashes */
static czk_status elements(ctx *x, json_object *ip, unsigned n, unsigned arity, czk_porep_path *p, unsigned *lv,
                           unsigned *si, const char *what) {
  json_object *arr = get(ip, "path");
  if (!arr || !json_object_is_type(arr, json_type_array) || json_object_array_length(arr) != n)
    return fail(x, CZK_ERR_FORMAT, "%s: the path must have %u elements", what, n);
  for (unsigned e = 0; e < n; e++) {
    json_object *el = json_object_array_get_idx(arr, e), *h = get(el, "hashes");
    char w[96];
    if (!h || !json_object_is_type(h, json_type_array) || json_object_array_length(h) != arity - 1)
      return fail(x, CZK_ERR_FORMAT, "%s element %u: needs %u hashes", what, e, arity - 1);
    if (*lv >= CZK_POREP_MAX_LEVELS || *si + arity - 1 > CZK_POREP_MAX_SIBLINGS) return CZK_ERR_LIMIT;
    for (unsigned k = 0; k + 1 < arity; k++) {
      snprintf(w, sizeof w, "%s element %u hash %u", what, e, k);
      CZK_TRY(domain(x, json_object_array_get_idx(h, k), p->sib[(*si)++], w));
    }
    uint64_t idx = 0;
    snprintf(w, sizeof w, "%s element %u index", what, e);
    CZK_TRY(u64_of(x, get(el, "index"), &idx, w));
    if (idx >= arity) return fail(x, CZK_ERR_FORMAT, "%s is %llu, not below the arity %u", w, (unsigned long long)idx, arity);
    p->index[(*lv)++] = (uint8_t)idx;
  }
  return CZK_OK;
}

/* A MerkleProof {"data": {"Single"|"Sub"|"Top": ...}} of a tree of the given shape; root/leaf optional outputs. */
static czk_status merkle(ctx *x, json_object *mp, unsigned base_levels, unsigned base, unsigned sub, unsigned top,
                         czk_porep_path *p, uint8_t *root, uint8_t *leaf, const char *what) {
  const char *tag = top ? "Top" : sub ? "Sub" : "Single";
  json_object *d = get(get(mp, "data"), tag);
  if (!d) return fail(x, CZK_ERR_FORMAT, "%s: not a MerkleProof of variant %s", what, tag);
  unsigned lv = 0, si = 0;
  char w[96];
  if (!sub) {
    CZK_TRY(elements(x, get(d, "path"), base_levels, base, p, &lv, &si, what));
  } else {
    snprintf(w, sizeof w, "%s base_proof", what);
    CZK_TRY(elements(x, get(d, "base_proof"), base_levels, base, p, &lv, &si, w));
    snprintf(w, sizeof w, "%s sub_proof", what);
    CZK_TRY(elements(x, get(d, "sub_proof"), 1, sub, p, &lv, &si, w));
    if (top) {
      snprintf(w, sizeof w, "%s top_proof", what);
      CZK_TRY(elements(x, get(d, "top_proof"), 1, top, p, &lv, &si, w));
    }
  }
  uint8_t tmp[32];
  snprintf(w, sizeof w, "%s root", what);
  CZK_TRY(domain(x, get(d, "root"), root ? root : tmp, w));
  snprintf(w, sizeof w, "%s leaf", what);
  return domain(x, get(d, "leaf"), leaf ? leaf : tmp, w);
}

static unsigned log2u(uint64_t v) {
  unsigned k = 0;
  while ((1ull << k) < v) k++;
  return k;
}

static czk_status column(ctx *x, json_object *cp, const czk_porep_info *info, unsigned base_levels,
                         czk_porep_column *col, uint8_t *root, const char *what) {
  json_object *rows = get(get(cp, "column"), "rows");
  char w[96];
  if (!rows || !json_object_is_type(rows, json_type_array) || json_object_array_length(rows) != info->layers)
    return fail(x, CZK_ERR_FORMAT, "%s: column rows must be %u", what, info->layers);
  for (unsigned l = 0; l < info->layers; l++) {
    snprintf(w, sizeof w, "%s row %u", what, l);
    CZK_TRY(domain(x, json_object_array_get_idx(rows, l), col->rows[l], w));
  }
  snprintf(w, sizeof w, "%s inclusion_proof", what);
  return merkle(x, get(cp, "inclusion_proof"), base_levels, info->base, info->sub, info->top, &col->path, root, NULL, w);
}

static czk_status challenge(ctx *x, json_object *pr, const czk_porep_info *info, czk_porep_challenge *ch,
                            uint8_t comm_r_last[32], uint8_t comm_c[32]) {
  unsigned d = log2u(info->sector_size / 32);
  uint64_t trees = (uint64_t)(info->sub ? info->sub : 1) * (info->top ? info->top : 1);
  unsigned base_levels = log2u(info->sector_size / 32 / trees) / 3; /* base arity 8 */
  CZK_TRY(merkle(x, get(pr, "comm_d_proofs"), d, 2, 0, 0, &ch->d_path, NULL, ch->data_leaf, "comm_d_proofs"));
  CZK_TRY(merkle(x, get(pr, "comm_r_last_proof"), base_levels, info->base, info->sub, info->top, &ch->r_path,
                 comm_r_last, NULL, "comm_r_last_proof"));
  json_object *rcp = get(pr, "replica_column_proofs"), *drg = get(rcp, "drg_parents"), *exp = get(rcp, "exp_parents");
  czk_porep_column cx;
  memset(&cx, 0, sizeof cx);
  CZK_TRY(column(x, get(rcp, "c_x"), info, base_levels, &cx, comm_c, "c_x"));
  ch->c_path = cx.path;
  if (!drg || !json_object_is_type(drg, json_type_array) || json_object_array_length(drg) != 6)
    return fail(x, CZK_ERR_FORMAT, "drg_parents must hold 6 column proofs");
  if (!exp || !json_object_is_type(exp, json_type_array) || json_object_array_length(exp) != 8)
    return fail(x, CZK_ERR_FORMAT, "exp_parents must hold 8 column proofs");
  char w[48];
  for (int p = 0; p < 6; p++) {
    snprintf(w, sizeof w, "drg_parents[%d]", p);
    CZK_TRY(column(x, json_object_array_get_idx(drg, (size_t)p), info, base_levels, &ch->drg[p], NULL, w));
  }
  for (int p = 0; p < 8; p++) {
    snprintf(w, sizeof w, "exp_parents[%d]", p);
    CZK_TRY(column(x, json_object_array_get_idx(exp, (size_t)p), info, base_levels, &ch->exp[p], NULL, w));
  }
  json_object *lp = get(pr, "labeling_proofs");
  if (!lp || !json_object_is_type(lp, json_type_array) || json_object_array_length(lp) != info->layers)
    return fail(x, CZK_ERR_FORMAT, "labeling_proofs must hold %u proofs", info->layers);
  return u64_of(x, get(json_object_array_get_idx(lp, 0), "node"), &ch->challenge, "labeling_proofs[0].node");
}

czk_status czk_porep_c1_parse(czk_porep_c1 *out, const char *json, size_t len, char *err, size_t err_len) {
  memset(out, 0, sizeof *out);
  ctx x = {err, err_len, ""};
  if (err && err_len) err[0] = 0;
  if (!json || len > (size_t)INT32_MAX) return fail(&x, CZK_ERR_INVALID_ARG, "no input");
  json_tokener *tok = json_tokener_new();
  if (!tok) return CZK_ERR_NOMEM;
  json_object *root = json_tokener_parse_ex(tok, json, (int)len);
  enum json_tokener_error je = json_tokener_get_error(tok);
  json_tokener_free(tok);
  if (!root || je != json_tokener_success) {
    json_object_put(root);
    return fail(&x, CZK_ERR_FORMAT, "not JSON (%s)", json_tokener_error_desc(je));
  }
  czk_status st = CZK_OK;
  json_object *rp = get(root, "registered_proof");
  const char *name = rp && json_object_is_type(rp, json_type_string) ? json_object_get_string(rp) : NULL;
  for (uint64_t w = 0; name && w < CZK_POREP_N_PROOFS; w++)
    if (strcmp(czk_porep_info_by_wire(w)->name, name) == 0) out->info = czk_porep_info_by_wire(w);
  if (!out->info) st = fail(&x, CZK_ERR_FORMAT, "registered_proof %s is not a known seal proof", name ? name : "(missing)");
  if (st == CZK_OK) st = domain(&x, get(root, "comm_r"), out->comm_r, "comm_r");
  if (st == CZK_OK) st = domain(&x, get(root, "comm_d"), out->comm_d, "comm_d");
  if (st == CZK_OK) st = domain(&x, get(root, "replica_id"), out->replica_id, "replica_id");
  /* seed and ticket are 32 raw bytes (randomness), not field elements */
  if (st == CZK_OK) st = bytes32(&x, get(root, "seed"), out->seed, "seed", false);
  if (st == CZK_OK) st = bytes32(&x, get(root, "ticket"), out->ticket, "ticket", false);
  json_object *parts = NULL;
  if (st == CZK_OK) {
    /* {"StackedDrg<size>V1": [[Proof x C] x P]}: the variant name is the size's V1 for every API version */
    char vname[48];
    snprintf(vname, sizeof vname, "StackedDrg%sV1", out->info->size_name);
    parts = get(get(root, "vanilla_proofs"), vname);
    if (!parts || !json_object_is_type(parts, json_type_array) ||
        json_object_array_length(parts) != out->info->partitions)
      st = fail(&x, CZK_ERR_FORMAT, "vanilla_proofs.%s must hold %u partitions", vname, out->info->partitions);
  }
  if (st == CZK_OK) {
    out->partitions = out->info->partitions;
    out->challenges = out->info->challenges;
    out->ch = calloc((size_t)out->partitions * out->challenges, sizeof *out->ch);
    out->comm_r_last = calloc(out->partitions, 32);
    out->comm_c = calloc(out->partitions, 32);
    if (!out->ch || !out->comm_r_last || !out->comm_c) st = CZK_ERR_NOMEM;
  }
  for (uint32_t k = 0; k < out->partitions && st == CZK_OK; k++) {
    json_object *pk = json_object_array_get_idx(parts, k);
    snprintf(x.where, sizeof x.where, "partition %u", k);
    if (!pk || !json_object_is_type(pk, json_type_array) || json_object_array_length(pk) != out->challenges) {
      st = fail(&x, CZK_ERR_FORMAT, "must hold %u challenge proofs", out->challenges);
      break;
    }
    for (uint32_t i = 0; i < out->challenges && st == CZK_OK; i++) {
      snprintf(x.where, sizeof x.where, "partition %u challenge %u", k, i);
      uint8_t crl[32], cc[32];
      st = challenge(&x, json_object_array_get_idx(pk, i), out->info, &out->ch[(size_t)k * out->challenges + i], crl, cc);
      if (st != CZK_OK) break;
      if (i == 0) {
        memcpy(out->comm_r_last[k], crl, 32);
        memcpy(out->comm_c[k], cc, 32);
      } else if (memcmp(crl, out->comm_r_last[k], 32) != 0 || memcmp(cc, out->comm_c[k], 32) != 0) {
        st = fail(&x, CZK_ERR_FORMAT, "comm_r_last / comm_c differ from the partition's first challenge");
      }
    }
  }
  json_object_put(root);
  if (st != CZK_OK) czk_porep_c1_free(out);
  return st;
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

/* ------------------------------------------------------------------------------------------------ envelope */
czk_status czk_porep_envelope_decode(const uint8_t *in, size_t len, char **json, size_t *json_len,
                                     uint64_t *sector_num, uint64_t *sector_size, char *err, size_t err_len) {
  ctx x = {err, err_len, ""};
  if (err && err_len) err[0] = 0;
  *json = NULL;
  *json_len = 0;
  *sector_num = *sector_size = 0;
  if (!in || len > (size_t)INT32_MAX) return fail(&x, CZK_ERR_INVALID_ARG, "no input");
  size_t i = 0;
  while (i < len && (in[i] == ' ' || in[i] == '\n' || in[i] == '\r' || in[i] == '\t')) i++;
  static const char raw[] = "{\"registered_proof\"";
  if (len - i >= sizeof raw - 1 && memcmp(in + i, raw, sizeof raw - 1) == 0) { /* a bare C1 output */
    *json = malloc(len + 1);
    if (!*json) return CZK_ERR_NOMEM;
    memcpy(*json, in, len);
    (*json)[len] = 0;
    *json_len = len;
    return CZK_OK;
  }
  json_tokener *tok = json_tokener_new();
  if (!tok) return CZK_ERR_NOMEM;
  json_object *root = json_tokener_parse_ex(tok, (const char *)in, (int)len);
  enum json_tokener_error je = json_tokener_get_error(tok);
  json_tokener_free(tok);
  czk_status st = CZK_OK;
  json_object *b64 = get(root, "Phase1Out");
  if (!root || je != json_tokener_success)
    st = fail(&x, CZK_ERR_FORMAT, "neither a C1 output nor a cuzk envelope (not JSON: %s)", json_tokener_error_desc(je));
  else if (!b64 || !json_object_is_type(b64, json_type_string))
    st = fail(&x, CZK_ERR_FORMAT, "envelope without a Phase1Out string");
  if (st == CZK_OK) st = u64_of(&x, get(root, "SectorNum"), sector_num, "envelope SectorNum");
  if (st == CZK_OK) st = u64_of(&x, get(root, "SectorSize"), sector_size, "envelope SectorSize");
  if (st == CZK_OK) {
    const char *s = json_object_get_string(b64);
    size_t n = (size_t)json_object_get_string_len(b64), cap = n / 4 * 3 + 3;
    *json = malloc(cap + 1);
    if (!*json) st = CZK_ERR_NOMEM;
    else if (sodium_init() < 0 ||
             sodium_base642bin((unsigned char *)*json, cap, s, n, NULL, json_len, NULL,
                               sodium_base64_VARIANT_ORIGINAL) != 0)
      st = fail(&x, CZK_ERR_FORMAT, "envelope Phase1Out is not standard base64");
    else (*json)[*json_len] = 0;
  }
  json_object_put(root);
  if (st != CZK_OK) {
    free(*json);
    *json = NULL;
    *json_len = 0;
  }
  return st;
}
