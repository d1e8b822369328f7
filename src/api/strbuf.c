/* strbuf.c: growable string buffer (strbuf.h). */
#include "api/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void czk__sb_init(czk__strbuf *sb) { memset(sb, 0, sizeof *sb); }
void czk__sb_free(czk__strbuf *sb) {
  free(sb->data);
  memset(sb, 0, sizeof *sb);
}

static bool reserve(czk__strbuf *sb, size_t extra) {
  if (sb->failed) return false;
  if (sb->len + extra + 1 <= sb->cap) return true;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *p = realloc(sb->data, cap);
  if (!p) {
    sb->failed = true;
    return false;
  }
  sb->data = p;
  sb->cap = cap;
  return true;
}

void czk__sb_append(czk__strbuf *sb, const char *s, size_t n) {
  if (!reserve(sb, n)) return;
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = 0;
}

void czk__sb_puts(czk__strbuf *sb, const char *s) { czk__sb_append(sb, s, strlen(s)); }

void czk__sb_printf(czk__strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n >= 0 && reserve(sb, (size_t)n)) {
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    sb->len += (size_t)n;
  }
  va_end(ap2);
}

void czk__sb_json_str(czk__strbuf *sb, const char *s) {
  czk__sb_append(sb, "\"", 1);
  for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
    switch (*p) {
    case '"': czk__sb_append(sb, "\\\"", 2); break;
    case '\\': czk__sb_append(sb, "\\\\", 2); break;
    case '\n': czk__sb_append(sb, "\\n", 2); break;
    case '\r': czk__sb_append(sb, "\\r", 2); break;
    case '\t': czk__sb_append(sb, "\\t", 2); break;
    default:
      if (*p < 0x20) czk__sb_printf(sb, "\\u%04x", *p);
      else czk__sb_append(sb, (const char *)p, 1);
    }
  }
  czk__sb_append(sb, "\"", 1);
}

char *czk__sb_take(czk__strbuf *sb, size_t *len) {
  if (sb->failed) {
    czk__sb_free(sb);
    return NULL;
  }
  if (!sb->data && !reserve(sb, 0)) return NULL;
  char *d = sb->data;
  if (len) *len = sb->len;
  memset(sb, 0, sizeof *sb);
  return d;
}
