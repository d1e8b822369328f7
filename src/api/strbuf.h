/* strbuf.h: a growable string buffer for rendering JSON / Prometheus text. On allocation failure the buffer is marked
 * failed and further appends are ignored; callers check sb->failed once at the end. */
#ifndef CZK_API_STRBUF_H
#define CZK_API_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct czk__strbuf {
  char *data;
  size_t len, cap;
  bool failed;
} czk__strbuf;

void czk__sb_init(czk__strbuf *sb);
void czk__sb_free(czk__strbuf *sb);
void czk__sb_append(czk__strbuf *sb, const char *s, size_t n);
void czk__sb_puts(czk__strbuf *sb, const char *s);
void czk__sb_printf(czk__strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s as a JSON string literal (quotes and escapes included). */
void czk__sb_json_str(czk__strbuf *sb, const char *s);
/* Detach the NUL-terminated text (caller frees); NULL when failed. */
char *czk__sb_take(czk__strbuf *sb, size_t *len);

#endif
