/* test_json_tree.c: the compact JSON tree over yajl (src/filecoin/json_tree_internal.h), the base of the PoRep C1
 * reader: arrays of bytes packed and unpacked when something else arrives, every number kind, strings with escapes
 * and NULs, interned keys and duplicate detection, the same tree whatever the chunking of the text (split at every
 * byte, and byte by byte), and each bound (depth, size budget, truncation, broken JSON) as its own error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk_test.h"
#include "filecoin/json_tree_internal.h"

static const char k_doc[] =
    "{\"a\":[1,2,3],\"b\":[1,256,7],\"c\":[[0,255],[]],\"d\":\"x\\u0000y\\\"\",\"e\":-5,\"f\":1.5,\"g\":1e3,"
    "\"h\":18446744073709551615,\"i\":18446744073709551616,\"j\":[null,true,false,{\"k\":[]}],\"a\":0}";

/* The tree of k_doc, fed in the given chunk boundaries: every value as expected. */
static void check_doc(const size_t *cuts, size_t ncuts, const char *what) {
  czk__jtree t;
  CHECK(czk__jtree_init(&t, 1 << 20) == CZK_OK);
  size_t len = sizeof k_doc - 1, at = 0;
  for (size_t i = 0; i <= ncuts; i++) {
    size_t end = i < ncuts ? cuts[i] : len;
    CHECK_MSG(czk__jtree_feed(&t, (const uint8_t *)k_doc + at, end - at) == CZK_OK, "%s: %s", what, t.err);
    at = end;
  }
  CHECK_MSG(czk__jtree_finish(&t) == CZK_OK, "%s: %s", what, t.err);
  czk__jref root = t.root, r;
  bool dup = false;
  uint32_t n = 0;
  CHECK(czk__jtree_type(&t, root) == CZK__J_OBJECT && czk__jtree_node(&t, root)->b == 11);
  r = czk__jtree_get(&t, root, "a", &dup);
  CHECK_MSG(dup && czk__jtree_type(&t, r) == CZK__J_BYTES && czk__jtree_is_array(&t, r, &n) && n == 3 &&
                memcmp(czk__jtree_bytes(&t, r), "\1\2\3", 3) == 0,
            "%s: a", what);
  r = czk__jtree_get(&t, root, "b", &dup);
  CHECK_MSG(!dup && czk__jtree_type(&t, r) == CZK__J_ARRAY && czk__jtree_node(&t, r)->b == 3, "%s: b", what);
  static const uint64_t bv[3] = {1, 256, 7};
  for (uint32_t i = 0; i < 3; i++) {
    czk__jref e = czk__jtree_at(&t, r, i);
    CHECK_MSG(czk__jtree_type(&t, e) == CZK__J_UINT && czk__jtree_uint(&t, e) == bv[i], "%s: b[%u]", what, i);
  }
  r = czk__jtree_get(&t, root, "c", NULL);
  czk__jref c0 = czk__jtree_at(&t, r, 0), c1 = czk__jtree_at(&t, r, 1);
  CHECK_MSG(czk__jtree_type(&t, r) == CZK__J_ARRAY && czk__jtree_type(&t, c0) == CZK__J_BYTES &&
                czk__jtree_node(&t, c0)->b == 2 && memcmp(czk__jtree_bytes(&t, c0), "\0\xff", 2) == 0 &&
                czk__jtree_type(&t, c1) == CZK__J_BYTES && czk__jtree_node(&t, c1)->b == 0,
            "%s: c", what);
  size_t sl = 0;
  r = czk__jtree_get(&t, root, "d", NULL);
  CHECK_MSG(czk__jtree_type(&t, r) == CZK__J_STRING && memcmp(czk__jtree_string(&t, r, &sl), "x\0y\"", 4) == 0 && sl == 4,
            "%s: d", what);
  static const struct {
    const char *key;
    uint32_t kind;
  } nums[] = {{"e", CZK__J_NEGATIVE}, {"f", CZK__J_FRACTION}, {"g", CZK__J_FRACTION}, {"i", CZK__J_HUGE}};
  for (size_t i = 0; i < 4; i++) {
    r = czk__jtree_get(&t, root, nums[i].key, NULL);
    CHECK_MSG(czk__jtree_type(&t, r) == CZK__J_NUMBER && czk__jtree_node(&t, r)->a == nums[i].kind, "%s: %s", what,
              nums[i].key);
  }
  r = czk__jtree_get(&t, root, "h", NULL);
  CHECK_MSG(czk__jtree_type(&t, r) == CZK__J_UINT && czk__jtree_uint(&t, r) == UINT64_MAX, "%s: h", what);
  r = czk__jtree_get(&t, root, "j", NULL);
  CHECK_MSG(czk__jtree_type(&t, r) == CZK__J_ARRAY && czk__jtree_type(&t, czk__jtree_at(&t, r, 0)) == CZK__J_NULL &&
                czk__jtree_uint(&t, czk__jtree_at(&t, r, 1)) == 1 && czk__jtree_uint(&t, czk__jtree_at(&t, r, 2)) == 0 &&
                czk__jtree_type(&t, czk__jtree_get(&t, czk__jtree_at(&t, r, 3), "k", NULL)) == CZK__J_BYTES,
            "%s: j", what);
  CHECK(czk__jtree_get(&t, root, "zz", NULL) == 0 && czk__jtree_get(&t, r, "k", NULL) == 0);
  czk__jtree_free(&t);
}

static void test_chunking(void) {
  size_t len = sizeof k_doc - 1;
  check_doc(NULL, 0, "whole");
  for (size_t cut = 1; cut < len; cut++) {
    char what[32];
    snprintf(what, sizeof what, "split at %zu", cut);
    check_doc(&cut, 1, what);
  }
  size_t *cuts = malloc(len * sizeof *cuts);
  for (size_t i = 0; i < len - 1; i++) cuts[i] = i + 1;
  check_doc(cuts, len - 1, "byte by byte");
  free(cuts);
}

/* text -> status and a message containing needle */
static void expect(const char *text, size_t budget, czk_status st, const char *needle) {
  czk__jtree t;
  CHECK(czk__jtree_init(&t, budget) == CZK_OK);
  czk_status got = czk__jtree_feed(&t, (const uint8_t *)text, strlen(text));
  if (got == CZK_OK) got = czk__jtree_finish(&t);
  CHECK_MSG(got == st && strstr(t.err, needle), "%.40s: %s \"%s\", wanted %s \"%s\"", text, czk_status_name(got),
            t.err, czk_status_name(st), needle);
  czk__jtree_free(&t);
}

static char *repeat(const char *s, size_t n) {
  size_t k = strlen(s);
  char *o = malloc(k * n + 1);
  for (size_t i = 0; i < n; i++) memcpy(o + k * i, s, k);
  o[k * n] = 0;
  return o;
}

static void test_bounds(void) {
  char *deep = repeat("[", 64), *deeper = repeat("[", 65), *closed = repeat("]", 64), *doc = malloc(200);
  snprintf(doc, 200, "%s%s", deep, closed);
  expect(doc, 0, CZK_OK, "");
  expect(deeper, 0, CZK_ERR_LIMIT, "nested deeper than 64 levels (at byte 65)");
  expect(deep, 0, CZK_ERR_TRUNCATED, "truncated: the JSON ends inside a value after 64 bytes");
  free(deep);
  free(deeper);
  free(closed);
  free(doc);
  /* 64 KiB is the smallest budget: 4000 empty arrays fit (80 KB of nodes do not) */
  char *many = repeat("[],", 2000), *text = malloc(strlen(many) + 8);
  sprintf(text, "[%s[]]", many);
  expect(text, 0, CZK_OK, "");
  free(many);
  free(text);
  many = repeat("[],", 4000);
  text = malloc(strlen(many) + 8);
  sprintf(text, "[%s[]]", many);
  expect(text, 0, CZK_ERR_LIMIT, "the JSON holds more values than its size allows (tree over 65536 bytes)");
  free(many);
  free(text);
  expect("", 0, CZK_ERR_TRUNCATED, "no JSON value in 0 bytes");
  expect("  \n", 0, CZK_ERR_TRUNCATED, "no JSON value in 3 bytes");
  expect("{\"a\":\"abc", 0, CZK_ERR_TRUNCATED, "truncated");
  expect("\"abc", 0, CZK_ERR_TRUNCATED, "no JSON value");
  expect("[1,2]x", 0, CZK_ERR_FORMAT, "not JSON at byte");
  expect("[1,,2]", 0, CZK_ERR_FORMAT, "not JSON at byte 4: parse error"); /* yajl stops after the token */
  expect("[01]", 0, CZK_ERR_FORMAT, "not JSON at byte");
  expect("{\"a\" 1}", 0, CZK_ERR_FORMAT, "not JSON at byte");
  expect("[1] [2]", 0, CZK_ERR_FORMAT, "not JSON at byte");
}

int main(void) {
  test_chunking();
  test_bounds();
  return czk_test_done("test_json_tree");
}
