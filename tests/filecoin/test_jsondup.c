/* test_jsondup.c: duplicate object keys found in JSON texts (core/jsondup.h), and refused by every json-c reader:
 * request.json (czk__fc_request_load). Issue 22, defect 10: before, json-c kept the last of two "miner_id" (or "pi_a")
 * while other readers keep the first, so one file meant two requests. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/jsondup.h"
#include "filecoin/request.h"
#include "czk_test.h"

static bool dup_of(const char *t, const char *want) {
  char k[64] = "junk";
  bool d = czk__json_duplicate_key(t, strlen(t), k, sizeof k);
  if (!want) return !d;
  if (!d || strcmp(k, want) != 0) fprintf(stderr, "text %s: got %d \"%s\", want \"%s\"\n", t, d, k, want);
  return d && strcmp(k, want) == 0;
}

static void test_scanner(void) {
  CHECK(dup_of("{}", NULL));
  CHECK(dup_of("[]", NULL));
  CHECK(dup_of("{\"a\":1,\"b\":2}", NULL));
  CHECK(dup_of("{\"a\":1,\"a\":2}", "a"));
  CHECK(dup_of("{ \"pi_a\" : [1], \"pi_b\": 2 ,\n \"pi_a\"\t: [3] }", "pi_a"));
  CHECK(dup_of("{\"a\":\"a\",\"b\":\"a\"}", NULL));           /* equal values are fine */
  CHECK(dup_of("{\"a\":{\"a\":1},\"b\":{\"a\":2}}", NULL));   /* same key in different objects */
  CHECK(dup_of("[{\"x\":1},{\"x\":2}]", NULL));               /* objects of an array */
  CHECK(dup_of("{\"o\":{\"x\":1,\"y\":[{\"x\":1,\"x\":2}]}}", "x")); /* nested */
  CHECK(dup_of("{\"a\":1,\"\\u0061\":2}", "a"));              /* equal after unescaping */
  CHECK(dup_of("{\"a\\\"b\":1,\"a\\u0022b\":2}", "a\"b"));
  CHECK(dup_of("{\"s\":\"{\\\"k\\\":1,\\\"k\\\":2}\"}", NULL)); /* JSON inside a string is a string */
  CHECK(dup_of("{\"\\ud83d\\ude00\":1,\"\xf0\x9f\x98\x80\":2}", "\xf0\x9f\x98\x80")); /* surrogate pair = UTF-8 */
  CHECK(dup_of("{\"\":1,\"\":2}", ""));
  CHECK(dup_of("{\"a\":[\"a\",\"a\"],\"c\":1}", NULL));       /* strings in arrays are not keys */
  /* many keys, one repeated far apart */
  size_t cap = 200000;
  char *big = malloc(cap);
  size_t n = (size_t)snprintf(big, cap, "{");
  for (int i = 0; i < 5000; i++) n += (size_t)snprintf(big + n, cap - n, "\"k%d\":%d,", i, i);
  snprintf(big + n, cap - n, "\"k17\":0}");
  CHECK(dup_of(big, "k17"));
  free(big);
  char k[4];
  CHECK(czk__json_duplicate_key("{\"long-key\":1,\"long-key\":2}", 27, k, sizeof k) && strcmp(k, "lon") == 0);
}

#define Z64 "0000000000000000000000000000000000000000000000000000000000000000"

/* Two requests that load (with the duplicate removed) and are refused with it, naming the key and the file. */
static void test_request(void) {
  char dir[] = "/tmp/czk-test-jsondup-XXXXXX";
  if (!mkdtemp(dir)) return;
  char path[256], err[512];
  snprintf(path, sizeof path, "%s/v.bin", dir);
  FILE *v = fopen(path, "wb");
  fputs("vanilla", v);
  fclose(v);
  snprintf(path, sizeof path, "%s/request.json", dir);
  const char *texts[2] = {
      "{\"kind\":\"winning-post\",\"proof_kind\":0,\"registered_proof\":1,\"miner_id\":1000,\"miner_id\":2000,"
      "\"randomness\":\"" Z64 "\",\"sectors\":[{\"sector_id\":1,\"comm_r\":\"" Z64 "\"}],"
      "\"vanilla_proofs\":[\"v.bin\"]}",
      "{\"kind\":\"winning-post\",\"proof_kind\":0,\"registered_proof\":1,\"randomness\":\"" Z64 "\","
      "\"sectors\":[{\"sector_id\":1,\"sector_id\":2,\"comm_r\":\"" Z64 "\"}],\"vanilla_proofs\":[\"v.bin\"]}",
  };
  const char *want[2] = {"\"miner_id\"", "\"sector_id\""};
  for (int i = 0; i < 2; i++) {
    FILE *f = fopen(path, "w");
    fputs(texts[i], f);
    fclose(f);
    czk__fc_request r;
    err[0] = 0;
    CHECK(czk__fc_request_load(path, &r, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "duplicate key") && strstr(err, want[i]) && strstr(err, path), "%s", err);
  }
  unlink(path);
  snprintf(path, sizeof path, "%s/v.bin", dir);
  unlink(path);
  rmdir(dir);
}

int main(void) {
  test_scanner();
  test_request();
  return czk_test_done("test_jsondup");
}
