/* json_tree_internal.h: a compact JSON tree built by a streaming parser (yajl 2), for large documents of small
 * integers such as the PoRep C1 output (a 32 GiB one is ~39 MB of JSON, ~2/3 of it arrays of 32 bytes).
 *
 * The text is fed in chunks of any size (czk__jtree_feed), so it never has to be held whole. The tree is one array
 * of 20-byte nodes linked by index (first child / next sibling) plus three pools: packed bytes, object keys (interned:
 * each distinct key is stored once) and string values. An array whose elements are all integers 0..255 is one node
 * of type CZK__J_BYTES whose bytes sit in the byte pool (the 32-byte domains cost 32 bytes plus a node, not 32 nodes);
 * an array that turns out to hold anything else is unpacked into ordinary children at that moment.
 * Bounds, each a clear error with the byte offset: nesting deeper than CZK__JTREE_MAX_DEPTH; a tree larger than the
 * budget given at init (nodes x 20 + pool bytes; a caller passes a multiple of the text's length, so no input can make
 * the tree grow faster than its text); invalid JSON (yajl's message, at the byte just after the token where it
 * stopped); a document that ends early (truncated).
 * Numbers: unsigned integers below 2^64 are values; negative, fractional, exponent and larger numbers are kept as
 * CZK__J_NUMBER with the reason (never rounded). Strings are not checked for UTF-8 (nothing here interprets them).
 * Private to src/filecoin (and its tests). Not thread-safe per tree; separate trees are independent. */
#ifndef CZK_FILECOIN_JSON_TREE_INTERNAL_H
#define CZK_FILECOIN_JSON_TREE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "czk/status.h"

#define CZK__JTREE_MAX_DEPTH 64

typedef uint32_t czk__jref; /* a node; 0 = none */

enum {
  CZK__J_NONE = 0,
  CZK__J_NULL,
  CZK__J_BOOL,
  CZK__J_UINT,   /* unsigned integer < 2^64 */
  CZK__J_NUMBER, /* any other number: see czk__jtree_number_kind */
  CZK__J_STRING,
  CZK__J_BYTES,  /* an array of integers 0..255 (possibly empty), packed */
  CZK__J_ARRAY,
  CZK__J_OBJECT,
  CZK__J_TAKEN   /* a string value the hook consumed (not stored) */
};

enum { CZK__J_NEGATIVE = 1, CZK__J_FRACTION = 2, CZK__J_HUGE = 3 }; /* kinds of CZK__J_NUMBER */

typedef struct czk__jnode {
  uint32_t next; /* next sibling */
  uint32_t key;  /* object member: offset of its interned key in the key pool; else 0 */
  uint32_t a, b; /* array/object: first child, count; bytes: pool offset, count; string: pool offset, length;
                  * uint: low, high 32 bits; bool: value; number: kind */
  uint8_t type;
} czk__jnode;

/* A string member of the root object can be handed to a hook instead of being stored (the envelope's 68 MB base64
 * Phase1Out is decoded and parsed as it is read). Returns CZK_OK with *taken = true when it consumed the value; a
 * status other than CZK_OK stops the parse (the hook sets the message with czk__jtree_fail). */
typedef czk_status (*czk__jtree_hook)(void *user, const char *key, size_t key_len, const uint8_t *s, size_t n,
                                      bool *taken);

typedef struct czk__jtree {
  czk__jnode *nodes;
  size_t n_nodes, cap_nodes;
  uint8_t *bytes;
  size_t n_bytes, cap_bytes;
  char *keys; /* u32 length, the key bytes, NUL; offset 0 unused */
  size_t n_keys, cap_keys;
  uint32_t *ktab; /* open-addressing table of key offsets */
  size_t ktab_cap, ktab_used;
  char *text; /* string values, NUL-terminated */
  size_t n_text, cap_text;
  size_t used, budget; /* bytes of tree so far, and the most allowed */
  struct czk__jframe {
    czk__jref node, last;
    uint32_t key; /* the pending member key (objects) */
  } stack[CZK__JTREE_MAX_DEPTH];
  unsigned depth;
  bool in_bytes; /* the innermost open container is a CZK__J_BYTES array */
  czk__jref root;
  size_t offset; /* bytes fed before the current chunk */
  void *yajl;
  czk__jtree_hook hook;
  void *hook_user;
  bool hook_failed; /* the error is the hook's own (no byte offset appended) */
  czk_status st;
  char err[224];
} czk__jtree;

/* budget: the most bytes the tree may use (nodes and pools; at least 64 KiB is allowed). */
czk_status czk__jtree_init(czk__jtree *t, size_t budget);
void czk__jtree_set_hook(czk__jtree *t, czk__jtree_hook hook, void *user);
/* Parse the next chunk. On an error the tree keeps the first error's status and message (t->st, t->err). */
czk_status czk__jtree_feed(czk__jtree *t, const uint8_t *p, size_t n);
/* End of text: CZK_ERR_TRUNCATED when the document is incomplete. */
czk_status czk__jtree_finish(czk__jtree *t);
void czk__jtree_free(czk__jtree *t);
/* Record an error (the first one wins) and return its status; fmt like printf. */
czk_status czk__jtree_fail(czk__jtree *t, czk_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------------ reading (after a successful finish) */
static inline const czk__jnode *czk__jtree_node(const czk__jtree *t, czk__jref r) { return &t->nodes[r]; }
static inline int czk__jtree_type(const czk__jtree *t, czk__jref r) { return r ? t->nodes[r].type : CZK__J_NONE; }
/* An array (packed or not) with its element count; false for anything else. */
static inline bool czk__jtree_is_array(const czk__jtree *t, czk__jref r, uint32_t *count) {
  int ty = czk__jtree_type(t, r);
  if (ty != CZK__J_ARRAY && ty != CZK__J_BYTES) return false;
  *count = t->nodes[r].b;
  return true;
}
static inline czk__jref czk__jtree_first(const czk__jtree *t, czk__jref r) {
  return czk__jtree_type(t, r) == CZK__J_ARRAY || czk__jtree_type(t, r) == CZK__J_OBJECT ? t->nodes[r].a : 0;
}
static inline czk__jref czk__jtree_next(const czk__jtree *t, czk__jref r) { return r ? t->nodes[r].next : 0; }
static inline const uint8_t *czk__jtree_bytes(const czk__jtree *t, czk__jref r) { return t->bytes + t->nodes[r].a; }
static inline uint64_t czk__jtree_uint(const czk__jtree *t, czk__jref r) {
  return (uint64_t)t->nodes[r].a | (uint64_t)t->nodes[r].b << 32;
}
static inline const char *czk__jtree_string(const czk__jtree *t, czk__jref r, size_t *len) {
  if (len) *len = t->nodes[r].b;
  return t->text + t->nodes[r].a;
}
/* The member `key` of object `obj` (0 when obj is not an object or has no such member). *dup = true when the key
 * appears more than once (the first is returned). */
czk__jref czk__jtree_get(const czk__jtree *t, czk__jref obj, const char *key, bool *dup);
/* The i-th element of an ARRAY (0 when out of range or not an array; linear in i). */
czk__jref czk__jtree_at(const czk__jtree *t, czk__jref arr, uint32_t i);

#endif
