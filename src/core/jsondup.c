/* jsondup.c: see jsondup.h. One pass over the text: a string followed (after white space) by ':' is a key; it is
 * unescaped into an arena, and the keys of the innermost open object are a range of an index; at the object's '}'
 * that range is sorted and adjacent equal keys found, then dropped (arena and index shrink back). Cost: O(n log n)
 * in the number of keys, memory the keys of the open objects. The text is trusted to be valid JSON (parsed before),
 * so the scanner never has to diagnose anything else. */
#include "core/jsondup.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct key_ref {
  size_t off, len; /* in the arena */
} key_ref;

typedef struct scan {
  char *arena;
  size_t arena_len, arena_cap;
  key_ref *keys;
  size_t n_keys, keys_cap;
  size_t *frames; /* per open container: index of its first key, or SIZE_MAX for an array */
  size_t n_frames, frames_cap;
  bool oom;
} scan;

static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  void *q = realloc(*p, nc * elem);
  if (!q) return false;
  *p = q;
  *cap = nc;
  return true;
}

static bool put_byte(scan *s, char c) {
  if (!grow((void **)&s->arena, &s->arena_cap, s->arena_len + 1, 1)) return false;
  s->arena[s->arena_len++] = c;
  return true;
}

static bool put_utf8(scan *s, uint32_t cp) {
  char b[4];
  int n;
  if (cp < 0x80) {
    b[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (char)(0xc0 | cp >> 6);
    b[1] = (char)(0x80 | (cp & 0x3f));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = (char)(0xe0 | cp >> 12);
    b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
    b[2] = (char)(0x80 | (cp & 0x3f));
    n = 3;
  } else {
    b[0] = (char)(0xf0 | cp >> 18);
    b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    b[3] = (char)(0x80 | (cp & 0x3f));
    n = 4;
  }
  for (int i = 0; i < n; i++)
    if (!put_byte(s, b[i])) return false;
  return true;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool hex4(const char *t, size_t len, size_t i, uint32_t *v) {
  if (i + 4 > len) return false;
  uint32_t x = 0;
  for (int k = 0; k < 4; k++) {
    int h = hexval(t[i + (size_t)k]);
    if (h < 0) return false;
    x = x << 4 | (uint32_t)h;
  }
  *v = x;
  return true;
}

/* text[i] is the opening quote; returns the index just past the closing quote. Unescapes into the arena when
 * keep. */
static size_t string_end(scan *s, const char *t, size_t len, size_t i, bool keep) {
  i++;
  while (i < len && t[i] != '"') {
    if (t[i] != '\\') {
      if (keep && !put_byte(s, t[i])) s->oom = true;
      i++;
      continue;
    }
    if (i + 1 >= len) return len;
    char e = t[i + 1];
    i += 2;
    if (!keep) {
      if (e == 'u') i += 4;
      continue;
    }
    char c = 0;
    switch (e) {
    case 'b': c = '\b'; break;
    case 'f': c = '\f'; break;
    case 'n': c = '\n'; break;
    case 'r': c = '\r'; break;
    case 't': c = '\t'; break;
    case 'u': {
      uint32_t cp = 0, lo = 0;
      if (!hex4(t, len, i, &cp)) return len;
      i += 4;
      if (cp >= 0xd800 && cp < 0xdc00 && i + 6 <= len && t[i] == '\\' && t[i + 1] == 'u' && hex4(t, len, i + 2, &lo) &&
          lo >= 0xdc00 && lo < 0xe000) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i += 6;
      }
      if (!put_utf8(s, cp)) s->oom = true;
      continue;
    }
    default: c = e; break; /* \" \\ \/ */
    }
    if (!put_byte(s, c)) s->oom = true;
  }
  return i < len ? i + 1 : len;
}

static _Thread_local const char *t_sort_arena; /* qsort has no context argument */

static int cmp_key(const void *a, const void *b) {
  const key_ref *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = n ? memcmp(t_sort_arena + x->off, t_sort_arena + y->off, n) : 0;
  if (c) return c;
  return x->len < y->len ? -1 : x->len > y->len;
}

static void name_key(const scan *s, const key_ref *k, char *key, size_t cap) {
  if (!cap) return;
  size_t n = k->len < cap - 1 ? k->len : cap - 1;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s->arena[k->off + i];
    key[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
  key[n] = 0;
}

bool czk__json_duplicate_key(const char *t, size_t len, char *key, size_t cap) {
  scan s;
  memset(&s, 0, sizeof s);
  bool dup = false;
  if (cap) key[0] = 0;
  for (size_t i = 0; i < len && !dup && !s.oom;) {
    char c = t[i];
    if (c == '{' || c == '[') {
      if (!grow((void **)&s.frames, &s.frames_cap, s.n_frames + 1, sizeof *s.frames)) {
        s.oom = true;
        break;
      }
      s.frames[s.n_frames++] = c == '{' ? s.n_keys : SIZE_MAX;
      i++;
    } else if (c == '}' || c == ']') {
      if (s.n_frames) {
        size_t first = s.frames[--s.n_frames];
        if (first != SIZE_MAX && first < s.n_keys) {
          size_t n = s.n_keys - first;
          t_sort_arena = s.arena;
          qsort(s.keys + first, n, sizeof *s.keys, cmp_key);
          for (size_t k = first + 1; k < s.n_keys && !dup; k++)
            if (cmp_key(&s.keys[k - 1], &s.keys[k]) == 0) {
              dup = true;
              name_key(&s, &s.keys[k], key, cap);
            }
          s.arena_len = s.keys[first].off;
          for (size_t k = first; k < s.n_keys; k++) /* after sorting, the smallest offset is the range's start */
            if (s.keys[k].off < s.arena_len) s.arena_len = s.keys[k].off;
          s.n_keys = first;
        }
      }
      i++;
    } else if (c == '"') {
      bool in_object = s.n_frames && s.frames[s.n_frames - 1] != SIZE_MAX;
      size_t j = string_end(&s, t, len, i, false); /* is it a key? look past it for ':' */
      size_t k = j;
      while (k < len && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\r')) k++;
      if (in_object && k < len && t[k] == ':') {
        size_t off = s.arena_len;
        string_end(&s, t, len, i, true);
        if (!grow((void **)&s.keys, &s.keys_cap, s.n_keys + 1, sizeof *s.keys)) s.oom = true;
        if (!s.oom) s.keys[s.n_keys++] = (key_ref){off, s.arena_len - off};
      }
      i = j;
    } else {
      i++;
    }
  }
  if (s.oom && !dup) {
    dup = true;
    if (cap) snprintf(key, cap, "%s", "(out of memory)");
  }
  free(s.arena);
  free(s.keys);
  free(s.frames);
  return dup;
}
