/* snarkjs_json.c: snarkjs's JSON files: proof.json and public.json (written exactly as snarkjs writes them with
 * JSON.stringify(x, null, 1) semantics: one-space indent, no trailing newline),
 * and readers for proof.json, public.json and verification_key.json (docs/snarkjs-formats.md §6-7).
 *
 * The reader is a small strict JSON parser (RFC 8259 syntax, nesting depth <= 64, input <= 64 MiB) into a node pool;
 * nodes are linked (first child, next sibling) and string/number nodes point into the text. Numbers in snarkjs
 * files are decimal strings; bare JSON integers are accepted too. Field elements must be canonical (< q, < r).
 * Points follow ffjavascript's fromObject: [x, y] or [x, y, z] Jacobian (x/z^2, y/z^3), z = 0 the point at
 * infinity; G2 coordinates are [c0, c1]. Every point is checked on the curve and in the subgroup. A repeated member
 * name in an object (or an escaped one) is refused: snarkjs would read the last, a lookup here the first. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/mapfile.h"
#include "czk/snarkjs.h"

#define JSON_MAX_BYTES (64u << 20)
#define JSON_MAX_DEPTH 64

/* ------------------------------------------------------------------------------------------------ parser */
typedef enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jnode {
  jtype t;
  const char *s; /* J_STR: contents (without quotes, raw escapes); J_NUM: the literal */
  size_t len;
  const char *key; /* member name when the parent is an object */
  size_t key_len;
  int32_t first, next; /* child / sibling indices, -1 = none */
  uint32_t count;      /* children */
} jnode;

typedef struct jdoc {
  jnode *n;
  size_t len, cap;
  const char *p, *end;
} jdoc;

static void jws(jdoc *d) {
  while (d->p < d->end && (*d->p == ' ' || *d->p == '\t' || *d->p == '\n' || *d->p == '\r')) d->p++;
}

static int32_t jnew(jdoc *d, jtype t) {
  if (d->len == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 64;
    jnode *n = realloc(d->n, cap * sizeof *n);
    if (!n) return -1;
    d->n = n;
    d->cap = cap;
  }
  jnode *x = &d->n[d->len];
  memset(x, 0, sizeof *x);
  x->t = t;
  x->first = x->next = -1;
  return (int32_t)d->len++;
}

static czk_status jstring(jdoc *d, const char **s, size_t *len) {
  if (d->p >= d->end || *d->p != '"') return CZK_ERR_FORMAT;
  const char *b = ++d->p;
  while (d->p < d->end && *d->p != '"') {
    if ((unsigned char)*d->p < 0x20) return CZK_ERR_FORMAT;
    if (*d->p == '\\') {
      if (++d->p >= d->end) return CZK_ERR_FORMAT;
      if (!strchr("\"\\/bfnrtu", *d->p)) return CZK_ERR_FORMAT;
    }
    d->p++;
  }
  if (d->p >= d->end) return CZK_ERR_FORMAT;
  *s = b;
  *len = (size_t)(d->p - b);
  d->p++;
  return CZK_OK;
}

typedef struct jkey {
  const char *s;
  size_t len;
} jkey;
static int jkey_cmp(const void *a, const void *b) {
  const jkey *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->s, y->s, n);
  return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* An object's member names must be distinct: JSON.parse (snarkjs) keeps the last of a repeated name, a first-match
 * lookup the first, so a file with both would read as two different proofs. Escaped names are refused too (one could
 * spell an existing name differently); snarkjs writes none. Sorted copy: O(n log n). */
static czk_status jkeys_unique(const jdoc *d, const jnode *obj) {
  if (obj->count < 2) return CZK_OK;
  jkey *k = malloc(obj->count * sizeof *k);
  if (!k) return CZK_ERR_NOMEM;
  size_t n = 0;
  czk_status st = CZK_OK;
  for (int32_t i = obj->first; i >= 0; i = d->n[i].next) {
    if (memchr(d->n[i].key, '\\', d->n[i].key_len)) st = CZK_ERR_FORMAT;
    k[n++] = (jkey){d->n[i].key, d->n[i].key_len};
  }
  if (st == CZK_OK) {
    qsort(k, n, sizeof *k, jkey_cmp);
    for (size_t i = 1; i < n && st == CZK_OK; i++)
      if (jkey_cmp(&k[i - 1], &k[i]) == 0) st = CZK_ERR_FORMAT;
  }
  free(k);
  return st;
}

static czk_status jvalue(jdoc *d, int32_t *out, int depth) {
  if (depth > JSON_MAX_DEPTH) return CZK_ERR_LIMIT;
  jws(d);
  if (d->p >= d->end) return CZK_ERR_FORMAT;
  char ch = *d->p;
  int32_t me;
  if (ch == '{' || ch == '[') {
    bool obj = ch == '{';
    if ((me = jnew(d, obj ? J_OBJ : J_ARR)) < 0) return CZK_ERR_NOMEM;
    d->p++;
    jws(d);
    int32_t last = -1;
    if (d->p < d->end && *d->p == (obj ? '}' : ']')) {
      d->p++;
      *out = me;
      return CZK_OK;
    }
    for (;;) {
      const char *key = NULL;
      size_t key_len = 0;
      if (obj) {
        jws(d);
        CZK_TRY(jstring(d, &key, &key_len));
        jws(d);
        if (d->p >= d->end || *d->p != ':') return CZK_ERR_FORMAT;
        d->p++;
      }
      int32_t kid;
      CZK_TRY(jvalue(d, &kid, depth + 1));
      d->n[kid].key = key;
      d->n[kid].key_len = key_len;
      if (last < 0)
        d->n[me].first = kid;
      else
        d->n[last].next = kid;
      last = kid;
      d->n[me].count++;
      jws(d);
      if (d->p >= d->end) return CZK_ERR_FORMAT;
      if (*d->p == ',') {
        d->p++;
        continue;
      }
      if (*d->p != (obj ? '}' : ']')) return CZK_ERR_FORMAT;
      d->p++;
      break;
    }
    if (obj) CZK_TRY(jkeys_unique(d, &d->n[me]));
  } else if (ch == '"') {
    if ((me = jnew(d, J_STR)) < 0) return CZK_ERR_NOMEM;
    const char *s;
    size_t len;
    CZK_TRY(jstring(d, &s, &len));
    d->n[me].s = s;
    d->n[me].len = len;
  } else if (ch == '-' || isdigit((unsigned char)ch)) {
    if ((me = jnew(d, J_NUM)) < 0) return CZK_ERR_NOMEM;
    const char *b = d->p;
    if (*d->p == '-') d->p++;
    if (d->p >= d->end || !isdigit((unsigned char)*d->p)) return CZK_ERR_FORMAT;
    while (d->p < d->end && (isdigit((unsigned char)*d->p) || strchr(".eE+-", *d->p))) d->p++;
    d->n[me].s = b;
    d->n[me].len = (size_t)(d->p - b);
  } else {
    static const char *const lit[3] = {"null", "true", "false"};
    int i = 0;
    for (; i < 3; i++) {
      size_t l = strlen(lit[i]);
      if ((size_t)(d->end - d->p) >= l && memcmp(d->p, lit[i], l) == 0) {
        d->p += l;
        break;
      }
    }
    if (i == 3) return CZK_ERR_FORMAT;
    if ((me = jnew(d, i == 0 ? J_NULL : J_BOOL)) < 0) return CZK_ERR_NOMEM;
  }
  *out = me;
  return CZK_OK;
}

static czk_status jparse(jdoc *d, const char *text, int32_t *root) {
  memset(d, 0, sizeof *d);
  size_t len = strlen(text);
  if (len > JSON_MAX_BYTES) return CZK_ERR_LIMIT;
  d->p = text;
  d->end = text + len;
  CZK_TRY(jvalue(d, root, 0));
  jws(d);
  return d->p == d->end ? CZK_OK : CZK_ERR_FORMAT;
}

static const jnode *jget(const jdoc *d, const jnode *obj, const char *key) {
  if (!obj || obj->t != J_OBJ) return NULL;
  size_t kl = strlen(key);
  for (int32_t i = obj->first; i >= 0; i = d->n[i].next)
    if (d->n[i].key_len == kl && memcmp(d->n[i].key, key, kl) == 0) return &d->n[i];
  return NULL;
}

static const jnode *jat(const jdoc *d, const jnode *arr, uint32_t k) {
  if (!arr || arr->t != J_ARR || k >= arr->count) return NULL;
  int32_t i = arr->first;
  while (k--) i = d->n[i].next;
  return &d->n[i];
}

/* A number as text: a string of digits (or 0x-hex), or a bare non-negative JSON integer. */
static czk_status jnum_text(const jnode *x, char *buf, size_t cap) {
  if (!x || (x->t != J_STR && x->t != J_NUM)) return CZK_ERR_FORMAT;
  if (x->len == 0 || x->len >= cap) return CZK_ERR_FORMAT;
  memcpy(buf, x->s, x->len);
  buf[x->len] = 0;
  if (x->t == J_NUM)
    for (size_t i = 0; i < x->len; i++)
      if (!isdigit((unsigned char)buf[i])) return CZK_ERR_FORMAT;
  return CZK_OK;
}

static czk_status jfp(czk_fp *r, const jnode *x) {
  char buf[256];
  CZK_TRY(jnum_text(x, buf, sizeof buf));
  return czk_fp_from_str(r, buf);
}

static czk_status jfr(czk_fr *r, const jnode *x) {
  char buf[256];
  CZK_TRY(jnum_text(x, buf, sizeof buf));
  return czk_fr_from_str(r, buf);
}

static czk_status jfp2(czk_fp2 *r, const jdoc *d, const jnode *x) {
  if (!x || x->t != J_ARR || x->count != 2) return CZK_ERR_FORMAT;
  CZK_TRY(jfp(&r->c0, jat(d, x, 0)));
  return jfp(&r->c1, jat(d, x, 1));
}

static czk_status jg1(czk_g1_affine *p, const jdoc *d, const jnode *x) {
  if (!x || x->t != J_ARR || (x->count != 2 && x->count != 3)) return CZK_ERR_FORMAT;
  czk_g1 j;
  CZK_TRY(jfp(&j.x, jat(d, x, 0)));
  CZK_TRY(jfp(&j.y, jat(d, x, 1)));
  if (x->count == 3)
    CZK_TRY(jfp(&j.z, jat(d, x, 2)));
  else
    czk_fp_set_one(&j.z);
  if (czk_fp_is_zero(&j.z)) {
    memset(p, 0, sizeof *p);
    return CZK_OK;
  }
  if (!czk_g1_is_on_curve(&j)) return CZK_ERR_NOT_ON_CURVE;
  czk_g1_to_affine(p, &j);
  if (!czk_g1_affine_in_subgroup(p)) return CZK_ERR_NOT_IN_SUBGROUP;
  return CZK_OK;
}

static czk_status jg2(czk_g2_affine *p, const jdoc *d, const jnode *x) {
  if (!x || x->t != J_ARR || (x->count != 2 && x->count != 3)) return CZK_ERR_FORMAT;
  czk_g2 j;
  CZK_TRY(jfp2(&j.x, d, jat(d, x, 0)));
  CZK_TRY(jfp2(&j.y, d, jat(d, x, 1)));
  if (x->count == 3)
    CZK_TRY(jfp2(&j.z, d, jat(d, x, 2)));
  else
    czk_fp2_set_one(&j.z);
  if (czk_fp2_is_zero(&j.z)) {
    memset(p, 0, sizeof *p);
    return CZK_OK;
  }
  if (!czk_g2_is_on_curve(&j)) return CZK_ERR_NOT_ON_CURVE;
  czk_g2_to_affine(p, &j);
  if (!czk_g2_affine_in_subgroup(p)) return CZK_ERR_NOT_IN_SUBGROUP;
  return CZK_OK;
}

static bool jstr_eq(const jnode *x, const char *s) {
  return x && x->t == J_STR && x->len == strlen(s) && memcmp(x->s, s, x->len) == 0;
}

/* snarkjs getCurveFromName: case-insensitive, non-alphanumerics ignored ("bls12381", "BLS12-381"). */
static bool curve_is_bls12381(const jnode *x) {
  if (!x || x->t != J_STR) return false;
  char norm[32];
  size_t k = 0;
  for (size_t i = 0; i < x->len; i++) {
    unsigned char ch = (unsigned char)x->s[i];
    if (!isalnum(ch)) continue;
    if (k + 1 >= sizeof norm) return false;
    norm[k++] = (char)tolower(ch);
  }
  norm[k] = 0;
  return strcmp(norm, "bls12381") == 0;
}

/* ------------------------------------------------------------------------------------------------ readers */
czk_status czk_snarkjs_proof_parse(czk_groth16_proof *p, const char *text) {
  jdoc d;
  int32_t root;
  czk_status st = jparse(&d, text, &root);
  if (st == CZK_OK) {
    const jnode *r = &d.n[root];
    if (r->t != J_OBJ) st = CZK_ERR_FORMAT;
    if (st == CZK_OK) st = jg1(&p->a, &d, jget(&d, r, "pi_a"));
    if (st == CZK_OK) st = jg2(&p->b, &d, jget(&d, r, "pi_b"));
    if (st == CZK_OK) st = jg1(&p->c, &d, jget(&d, r, "pi_c"));
  }
  free(d.n);
  return st;
}

czk_status czk_snarkjs_public_parse(czk_fr **pub, size_t *n, const char *text) {
  *pub = NULL;
  *n = 0;
  jdoc d;
  int32_t root;
  czk_status st = jparse(&d, text, &root);
  czk_fr *v = NULL;
  if (st == CZK_OK && d.n[root].t != J_ARR) st = CZK_ERR_FORMAT;
  if (st == CZK_OK) {
    const jnode *r = &d.n[root];
    v = malloc((r->count ? r->count : 1) * sizeof *v);
    if (!v) st = CZK_ERR_NOMEM;
    uint32_t k = 0;
    for (int32_t i = r->first; st == CZK_OK && i >= 0; i = d.n[i].next) st = jfr(&v[k++], &d.n[i]);
    if (st == CZK_OK) {
      *pub = v;
      *n = r->count;
      v = NULL;
    }
  }
  free(v);
  free(d.n);
  return st;
}

czk_status czk_snarkjs_vk_parse(czk_groth16_vk *vk, const char *text) {
  memset(vk, 0, sizeof *vk);
  jdoc d;
  int32_t root;
  czk_status st = jparse(&d, text, &root);
  if (st != CZK_OK) goto out;
  const jnode *r = &d.n[root];
  st = CZK_ERR_FORMAT;
  if (r->t != J_OBJ) goto out;
  st = CZK_ERR_UNSUPPORTED;
  if (!jstr_eq(jget(&d, r, "protocol"), "groth16") || !curve_is_bls12381(jget(&d, r, "curve"))) goto out;
  st = CZK_ERR_FORMAT;
  const jnode *np = jget(&d, r, "nPublic"), *ic = jget(&d, r, "IC");
  if (!np || !ic || ic->t != J_ARR) goto out;
  czk_fr npf;
  uint64_t np_raw[4];
  if ((st = jfr(&npf, np)) != CZK_OK) goto out;
  czk_fr_to_raw(np_raw, &npf);
  st = CZK_ERR_SIZE_MISMATCH;
  if (np_raw[1] || np_raw[2] || np_raw[3] || np_raw[0] + 1 != ic->count) goto out;
  if ((st = jg1(&vk->alpha_g1, &d, jget(&d, r, "vk_alpha_1"))) != CZK_OK) goto out;
  if ((st = jg2(&vk->beta_g2, &d, jget(&d, r, "vk_beta_2"))) != CZK_OK) goto out;
  if ((st = jg2(&vk->gamma_g2, &d, jget(&d, r, "vk_gamma_2"))) != CZK_OK) goto out;
  if ((st = jg2(&vk->delta_g2, &d, jget(&d, r, "vk_delta_2"))) != CZK_OK) goto out;
  st = CZK_ERR_NOMEM;
  vk->ic = malloc(ic->count * sizeof *vk->ic);
  if (!vk->ic) goto out;
  vk->n_ic = ic->count;
  st = CZK_OK;
  uint32_t k = 0;
  for (int32_t i = ic->first; st == CZK_OK && i >= 0; i = d.n[i].next) st = jg1(&vk->ic[k++], &d, &d.n[i]);
  /* beta_g1 and delta_g1 are not part of verification_key.json: infinity (unused by the verifier). */
out:
  if (st != CZK_OK) czk_groth16_vk_free(vk);
  free(d.n);
  return st;
}

/* A whole JSON file as a C string; a NUL byte inside is CZK_ERR_FORMAT. */
static czk_status read_text(const char *path, char **out) {
  uint8_t *buf;
  size_t len;
  *out = NULL;
  CZK_TRY(czk__read_file(path, JSON_MAX_BYTES, &buf, &len));
  if (memchr(buf, 0, len)) {
    free(buf);
    return CZK_ERR_FORMAT;
  }
  *out = (char *)buf;
  return CZK_OK;
}

czk_status czk_snarkjs_vk_read(czk_groth16_vk *vk, const char *path) {
  char *t;
  memset(vk, 0, sizeof *vk);
  CZK_TRY(read_text(path, &t));
  czk_status st = czk_snarkjs_vk_parse(vk, t);
  free(t);
  return st;
}

czk_status czk_snarkjs_proof_read(czk_groth16_proof *p, const char *path) {
  char *t;
  CZK_TRY(read_text(path, &t));
  czk_status st = czk_snarkjs_proof_parse(p, t);
  free(t);
  return st;
}

czk_status czk_snarkjs_public_read(czk_fr **pub, size_t *n, const char *path) {
  char *t;
  *pub = NULL;
  *n = 0;
  CZK_TRY(read_text(path, &t));
  czk_status st = czk_snarkjs_public_parse(pub, n, t);
  free(t);
  return st;
}

/* ------------------------------------------------------------------------------------------------ writers */
czk_status czk_snarkjs_public_from_wtns(czk_fr **pub, size_t n_public, const czk_circom_wtns *w) {
  *pub = NULL;
  if (!w || !w->w || (uint64_t)n_public + 1 > w->n) return CZK_ERR_SIZE_MISMATCH;
  czk_fr *v = malloc((n_public ? n_public : 1) * sizeof *v);
  if (!v) return CZK_ERR_NOMEM;
  if (n_public) memcpy(v, w->w + 1, n_public * sizeof *v);
  *pub = v;
  return CZK_OK;
}

/* temp + fsync + rename (core/atomicfile.h): a reader of the old file never sees a half-written one */
static czk_status finish_file(czk__afile *af) {
  if (ferror(af->f)) {
    czk__afile_abort(af);
    return CZK_ERR_IO;
  }
  return czk__afile_commit(af);
}

static void put_fp(FILE *f, const char *indent, const czk_fp *x, bool comma) {
  char dec[120];
  czk_fp_to_dec(dec, x);
  fprintf(f, "%s\"%s\"%s\n", indent, dec, comma ? "," : "");
}

czk_status czk_snarkjs_proof_write(const char *path, const czk_groth16_proof *p) {
  czk__afile af;
  if (czk__afile_open(&af, path, "wb") != CZK_OK) return CZK_ERR_IO;
  FILE *f = af.f;
  const czk_g1_affine *g1[2] = {&p->a, &p->c};
  const char *name[2] = {"pi_a", "pi_c"};
  for (int k = 0; k < 2; k++) {
    /* infinity: snarkjs's toObject writes ["0", "1", "0"] */
    bool inf = czk_g1_affine_is_infinity(g1[k]);
    fprintf(f, "%s \"%s\": [\n", k == 0 ? "{\n" : "", name[k]);
    if (inf) {
      fprintf(f, "  \"0\",\n  \"1\",\n  \"0\"\n");
    } else {
      put_fp(f, "  ", &g1[k]->x, true);
      put_fp(f, "  ", &g1[k]->y, true);
      fprintf(f, "  \"1\"\n");
    }
    fprintf(f, " ],\n");
    if (k == 0) {
      fprintf(f, " \"pi_b\": [\n");
      if (czk_g2_affine_is_infinity(&p->b)) {
        fprintf(f, "  [\n   \"0\",\n   \"0\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ],\n  [\n   \"0\",\n   \"0\"\n  ]\n");
      } else {
        fprintf(f, "  [\n");
        put_fp(f, "   ", &p->b.x.c0, true);
        put_fp(f, "   ", &p->b.x.c1, false);
        fprintf(f, "  ],\n  [\n");
        put_fp(f, "   ", &p->b.y.c0, true);
        put_fp(f, "   ", &p->b.y.c1, false);
        fprintf(f, "  ],\n  [\n   \"1\",\n   \"0\"\n  ]\n");
      }
      fprintf(f, " ],\n");
    }
  }
  fprintf(f, " \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}");
  return finish_file(&af);
}

czk_status czk_snarkjs_public_write(const char *path, const czk_fr *pub, size_t n) {
  czk__afile af;
  if (czk__afile_open(&af, path, "wb") != CZK_OK) return CZK_ERR_IO;
  FILE *f = af.f;
  if (n == 0) {
    fputs("[]", f);
  } else {
    fputs("[\n", f);
    for (size_t i = 0; i < n; i++) {
      char dec[80];
      czk_fr_to_dec(dec, &pub[i]);
      fprintf(f, " \"%s\"%s\n", dec, i + 1 < n ? "," : "");
    }
    fputs("]", f);
  }
  return finish_file(&af);
}
