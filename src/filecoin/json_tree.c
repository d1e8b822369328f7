/* json_tree.c: the compact JSON tree of json_tree_internal.h, built from yajl 2's callbacks.
 *
 * Invariants: node 0 is never used (0 = none); while an array is open with type CZK__J_BYTES its bytes are the tail
 * of the byte pool (it can only hold bytes, so nothing is stored after them until it closes or is unpacked); a
 * member key is interned once (FNV-1a, open addressing at load <= 1/2) and a node holds its offset, so a lookup
 * compares 32-bit offsets; t->used grows by every node (sizeof(czk__jnode)), byte, key and string byte stored and
 * never exceeds t->budget. Cost: one pass over the text (yajl's lexer), O(1) work per value, O(members) per lookup. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "filecoin/json_tree_internal.h"

typedef struct czk__jframe jframe;

czk_status czk__jtree_fail(czk__jtree *t, czk_status st, const char *fmt, ...) {
  if (t->st != CZK_OK) return t->st;
  t->st = st;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->err, sizeof t->err, fmt, ap);
  va_end(ap);
  return st;
}

/* Make room for `more` elements of `size` bytes in a pool (geometric growth). */
static bool grow(czk__jtree *t, void **p, size_t *cap, size_t n, size_t more, size_t size, size_t first) {
  if (n + more <= *cap) return true;
  size_t c = *cap ? *cap : first;
  while (c < n + more) c += c / 2 + 1;
  void *q = realloc(*p, c * size);
  if (!q) {
    czk__jtree_fail(t, CZK_ERR_NOMEM, "out of memory for the JSON tree (%zu bytes)", t->used);
    return false;
  }
  *p = q;
  *cap = c;
  return true;
}

static inline bool charge(czk__jtree *t, size_t bytes) {
  t->used += bytes;
  if (t->used <= t->budget) return true;
  czk__jtree_fail(t, CZK_ERR_LIMIT, "the JSON holds more values than its size allows (tree over %zu bytes)",
                  t->budget);
  return false;
}

static uint32_t fnv1a(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

static bool key_eq(const czk__jtree *t, uint32_t off, const char *s, size_t n) {
  uint32_t len;
  memcpy(&len, t->keys + off, 4);
  return len == n && memcmp(t->keys + off + 4, s, n) == 0;
}

/* The slot of key s in the table: its offset there, or an empty slot. */
static size_t key_slot(const czk__jtree *t, const char *s, size_t n) {
  size_t mask = t->ktab_cap - 1, i = fnv1a(s, n) & mask;
  while (t->ktab[i] && !key_eq(t, t->ktab[i], s, n)) i = (i + 1) & mask;
  return i;
}

static uint32_t key_intern(czk__jtree *t, const char *s, size_t n) {
  if (n > UINT32_MAX - 8 || t->n_keys + n + 5 > UINT32_MAX) {
    czk__jtree_fail(t, CZK_ERR_LIMIT, "object keys too long");
    return 0;
  }
  if ((t->ktab_used + 1) * 2 > t->ktab_cap) { /* rehash into twice the slots */
    size_t cap = t->ktab_cap ? t->ktab_cap * 2 : 64;
    uint32_t *nt = calloc(cap, sizeof *nt), *old = t->ktab;
    if (!nt) return czk__jtree_fail(t, CZK_ERR_NOMEM, "out of memory for the JSON tree"), 0;
    size_t oldcap = t->ktab_cap;
    t->ktab = nt;
    t->ktab_cap = cap;
    for (size_t i = 0; i < oldcap; i++) {
      if (!old[i]) continue;
      uint32_t len;
      memcpy(&len, t->keys + old[i], 4);
      t->ktab[key_slot(t, t->keys + old[i] + 4, len)] = old[i];
    }
    free(old);
  }
  size_t slot = key_slot(t, s, n);
  if (t->ktab[slot]) return t->ktab[slot];
  if (!charge(t, n + 5 + 2 * sizeof(uint32_t)) || !grow(t, (void **)&t->keys, &t->cap_keys, t->n_keys, n + 5, 1, 4096))
    return 0;
  uint32_t off = (uint32_t)t->n_keys, len = (uint32_t)n;
  memcpy(t->keys + off, &len, 4);
  memcpy(t->keys + off + 4, s, n);
  t->keys[off + 4 + n] = 0;
  t->n_keys += n + 5;
  t->ktab[slot] = off;
  t->ktab_used++;
  return off;
}

static czk__jref add(czk__jtree *t, uint8_t type);

/* The open array `f` turned out to hold something other than bytes: its bytes become ordinary children. */
static bool unpack(czk__jtree *t, jframe *f) {
  czk__jnode *arr = &t->nodes[f->node];
  size_t off = arr->a, n = arr->b;
  arr->type = CZK__J_ARRAY;
  arr->a = arr->b = 0;
  f->last = 0;
  t->in_bytes = false;
  for (size_t i = 0; i < n; i++) {
    czk__jref r = add(t, CZK__J_UINT);
    if (!r) return false;
    t->nodes[r].a = t->bytes[off + i];
  }
  t->n_bytes = off; /* this array's bytes were the pool's tail */
  return true;
}

/* A new node of `type` as the next child of the open container (or as the root). 0 on error. */
static czk__jref add(czk__jtree *t, uint8_t type) {
  jframe *f = t->depth ? &t->stack[t->depth - 1] : NULL;
  if (t->in_bytes && !unpack(t, f)) return 0;
  if (t->n_nodes >= UINT32_MAX - 1) return czk__jtree_fail(t, CZK_ERR_LIMIT, "too many JSON values"), 0;
  if (!charge(t, sizeof(czk__jnode)) ||
      !grow(t, (void **)&t->nodes, &t->cap_nodes, t->n_nodes, 1, sizeof(czk__jnode), 4096))
    return 0;
  czk__jref r = (czk__jref)t->n_nodes++;
  czk__jnode *nd = &t->nodes[r];
  memset(nd, 0, sizeof *nd);
  nd->type = type;
  if (!f) {
    t->root = r;
    return r;
  }
  czk__jnode *parent = &t->nodes[f->node];
  if (parent->type == CZK__J_OBJECT) {
    nd->key = f->key;
    f->key = 0;
  }
  if (f->last) t->nodes[f->last].next = r;
  else parent->a = r;
  parent->b++;
  f->last = r;
  return r;
}

static int push(czk__jtree *t, uint8_t type) {
  if (t->depth == CZK__JTREE_MAX_DEPTH) {
    czk__jtree_fail(t, CZK_ERR_LIMIT, "nested deeper than %d levels", CZK__JTREE_MAX_DEPTH);
    return 0;
  }
  czk__jref r = add(t, type);
  if (!r) return 0;
  if (type == CZK__J_BYTES) t->nodes[r].a = (uint32_t)t->n_bytes;
  t->stack[t->depth++] = (jframe){r, 0, 0};
  t->in_bytes = type == CZK__J_BYTES;
  return 1;
}

static int on_null(void *ctx) { return add(ctx, CZK__J_NULL) != 0; }

static int on_bool(void *ctx, int v) {
  czk__jtree *t = ctx;
  czk__jref r = add(t, CZK__J_BOOL);
  if (r) t->nodes[r].a = v != 0;
  return r != 0;
}

static int on_number(void *ctx, const char *s, size_t n) {
  czk__jtree *t = ctx;
  if (t->in_bytes && n <= 3) { /* the hot path: one more byte of a packed array */
    unsigned v = 0;
    bool digits = true;
    for (size_t i = 0; i < n; i++) {
      unsigned d = (unsigned)(s[i] - '0');
      digits &= d <= 9;
      v = v * 10 + d;
    }
    if (digits && v < 256) {
      if ((t->n_bytes == t->cap_bytes && !grow(t, (void **)&t->bytes, &t->cap_bytes, t->n_bytes, 1, 1, 65536)) ||
          !charge(t, 1))
        return 0;
      t->bytes[t->n_bytes++] = (uint8_t)v;
      t->nodes[t->stack[t->depth - 1].node].b++;
      return 1;
    }
  }
  uint64_t v = 0;
  uint32_t kind = 0;
  if (n && s[0] == '-') kind = CZK__J_NEGATIVE;
  for (size_t i = 0; i < n && !kind; i++) {
    unsigned d = (unsigned)(s[i] - '0');
    if (d > 9) kind = CZK__J_FRACTION; /* '.', 'e', 'E' */
    else if (v > (UINT64_MAX - d) / 10) kind = CZK__J_HUGE;
    else v = v * 10 + d;
  }
  czk__jref r = add(t, kind ? CZK__J_NUMBER : CZK__J_UINT);
  if (!r) return 0;
  if (kind) {
    t->nodes[r].a = kind;
  } else {
    t->nodes[r].a = (uint32_t)v;
    t->nodes[r].b = (uint32_t)(v >> 32);
  }
  return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t n) {
  czk__jtree *t = ctx;
  if (t->hook && t->depth == 1 && t->nodes[t->stack[0].node].type == CZK__J_OBJECT) {
    uint32_t k = t->stack[0].key, klen = 0;
    if (k) memcpy(&klen, t->keys + k, 4);
    bool taken = false;
    czk_status st = t->hook(t->hook_user, k ? t->keys + k + 4 : "", klen, s, n, &taken);
    if (st != CZK_OK) {
      czk__jtree_fail(t, st, "the value of \"%.*s\" was refused", (int)klen, k ? t->keys + k + 4 : "");
      t->hook_failed = true;
      return 0;
    }
    if (taken) return add(t, CZK__J_TAKEN) != 0;
  }
  if (n >= UINT32_MAX || t->n_text + n + 1 > UINT32_MAX) return czk__jtree_fail(t, CZK_ERR_LIMIT, "strings too long"), 0;
  czk__jref r = add(t, CZK__J_STRING);
  if (!r || !charge(t, n + 1) || !grow(t, (void **)&t->text, &t->cap_text, t->n_text, n + 1, 1, 1024)) return 0;
  t->nodes[r].a = (uint32_t)t->n_text;
  t->nodes[r].b = (uint32_t)n;
  memcpy(t->text + t->n_text, s, n);
  t->text[t->n_text + n] = 0;
  t->n_text += n + 1;
  return 1;
}

static int on_start_map(void *ctx) { return push(ctx, CZK__J_OBJECT); }
static int on_start_array(void *ctx) { return push(ctx, CZK__J_BYTES); }

static int on_key(void *ctx, const unsigned char *s, size_t n) {
  czk__jtree *t = ctx;
  uint32_t k = key_intern(t, (const char *)s, n);
  t->stack[t->depth - 1].key = k;
  return k != 0;
}

static int on_end(void *ctx) {
  czk__jtree *t = ctx;
  t->depth--;
  t->in_bytes = false; /* a container holding a container is never packed */
  return 1;
}

static const yajl_callbacks k_callbacks = {on_null,      on_bool, NULL,   NULL,        on_number,      on_string,
                                           on_start_map, on_key,  on_end, on_start_array, on_end};

czk_status czk__jtree_init(czk__jtree *t, size_t budget) {
  memset(t, 0, sizeof *t);
  t->budget = budget < 65536 ? 65536 : budget > UINT32_MAX - 65536 ? UINT32_MAX - 65536 : budget; /* 32-bit offsets */
  t->n_nodes = 1; /* node 0 = none */
  t->n_keys = 4;  /* key offset 0 = none */
  if (!grow(t, (void **)&t->nodes, &t->cap_nodes, 0, 1, sizeof(czk__jnode), 4096) ||
      !grow(t, (void **)&t->keys, &t->cap_keys, 0, 4, 1, 4096))
    goto nomem;
  memset(t->nodes, 0, sizeof(czk__jnode));
  memset(t->keys, 0, 4);
  t->yajl = yajl_alloc(&k_callbacks, NULL, t);
  if (!t->yajl) goto nomem;
  yajl_config(t->yajl, yajl_dont_validate_strings, 1);
  return CZK_OK;
nomem:
  czk__jtree_free(t);
  return CZK_ERR_NOMEM;
}

void czk__jtree_set_hook(czk__jtree *t, czk__jtree_hook hook, void *user) {
  t->hook = hook;
  t->hook_user = user;
}

/* yajl's message for the parse error, one line */
static void yajl_message(czk__jtree *t, const char *what, size_t at) {
  unsigned char *m = yajl_get_error(t->yajl, 0, NULL, 0);
  size_t n = m ? strlen((char *)m) : 0;
  while (n && (m[n - 1] == '\n' || m[n - 1] == ' ')) n--;
  czk__jtree_fail(t, CZK_ERR_FORMAT, "%s at byte %zu: %.*s", what, at, (int)n, m ? (const char *)m : "?");
  if (m) yajl_free_error(t->yajl, m);
}

czk_status czk__jtree_feed(czk__jtree *t, const uint8_t *p, size_t n) {
  if (t->st != CZK_OK) return t->st;
  if (!n) return CZK_OK;
  yajl_status ys = yajl_parse(t->yajl, p, n);
  size_t at = t->offset + yajl_get_bytes_consumed(t->yajl);
  t->offset += n;
  if (ys == yajl_status_ok) return CZK_OK;
  if (ys == yajl_status_client_canceled && t->st != CZK_OK) {
    if (!t->hook_failed) { /* a bound of ours: say where */
      size_t k = strlen(t->err);
      snprintf(t->err + k, sizeof t->err - k, " (at byte %zu)", at);
    }
    return t->st;
  }
  yajl_message(t, "not JSON", at);
  return t->st;
}

czk_status czk__jtree_finish(czk__jtree *t) {
  if (t->st != CZK_OK) return t->st;
  yajl_status ys = yajl_complete_parse(t->yajl);
  if (ys == yajl_status_ok && t->root && !t->depth) {
    yajl_free(t->yajl);
    t->yajl = NULL;
    return CZK_OK;
  }
  bool eof = ys == yajl_status_ok || t->depth;
  if (!eof) {
    unsigned char *m = yajl_get_error(t->yajl, 0, NULL, 0);
    eof = m && strstr((char *)m, "premature EOF");
    if (m) yajl_free_error(t->yajl, m);
  }
  if (!eof) {
    yajl_message(t, "not JSON", t->offset);
    return t->st;
  }
  if (!t->root) return czk__jtree_fail(t, CZK_ERR_TRUNCATED, "no JSON value in %zu bytes", t->offset);
  return czk__jtree_fail(t, CZK_ERR_TRUNCATED, "truncated: the JSON ends inside a value after %zu bytes", t->offset);
}

void czk__jtree_free(czk__jtree *t) {
  if (t->yajl) yajl_free(t->yajl);
  free(t->nodes);
  free(t->bytes);
  free(t->keys);
  free(t->ktab);
  free(t->text);
  memset(t, 0, sizeof *t);
}

czk__jref czk__jtree_get(const czk__jtree *t, czk__jref obj, const char *key, bool *dup) {
  if (dup) *dup = false;
  if (czk__jtree_type(t, obj) != CZK__J_OBJECT || !t->ktab_cap) return 0;
  size_t n = strlen(key);
  uint32_t k = t->ktab[key_slot(t, key, n)];
  if (!k) return 0;
  czk__jref found = 0;
  for (czk__jref c = t->nodes[obj].a; c; c = t->nodes[c].next) {
    if (t->nodes[c].key != k) continue;
    if (found) {
      if (dup) *dup = true;
      break;
    }
    found = c;
  }
  return found;
}

czk__jref czk__jtree_at(const czk__jtree *t, czk__jref arr, uint32_t i) {
  if (czk__jtree_type(t, arr) != CZK__J_ARRAY || i >= t->nodes[arr].b) return 0;
  czk__jref c = t->nodes[arr].a;
  while (i-- && c) c = t->nodes[c].next;
  return c;
}
