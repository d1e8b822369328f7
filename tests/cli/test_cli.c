/* test_cli.c: black-box tests of the `czk` executable (path in argv[1]): exit codes, stdout and stderr.
 *   czk hash comm-d    : comm_d of the all-zero 2 KiB sector (2032 zero bytes unpadded) and 128 B sector (127 bytes)
 *                        equal the values in fixtures/filecoin/VECTORS.md, from a file and from stdin; a short file
 *                        with --sector-size 2KiB gives the 2 KiB zero-sector value (zero fill);
 *   czk hash poseidon  : MerkleTree digests of [0..arity-1] (Standard and Strengthened) and ConstantLength(4) equal
 *                        poseidon-vectors.json (bytes = the 4 little-endian limbs), decimal and 0x-hex inputs agree;
 *   czk hash sha256    : SHA-256("abc") (FIPS 180-2 example) and its Filecoin truncation (top two bits cleared);
 *   bad input          : malformed numbers, non-canonical elements, bad sizes, a missing file, a file too large for
 *                        the sector: non-zero exit, nothing on stdout, an error naming the problem on stderr;
 *   setup/prove/verify : synthetic 2^4 circuit: keys, proof and public inputs written, `czk verify` prints OK; a
 *                        flipped proof byte, a changed public input, another witness's public inputs and a truncated
 *                        proof all exit 1.
 *   bench dev options  : bench post|snap|gpuprove --gpu-memory-limit / --tier / --lanes accepted on the CPU (the
 *                        prove runs), --streamed an alias; bad values exit 2 with a message;
 *   snap               : circuit-info 2 KiB, gen-vanilla snap files and request.json, bad arguments, verify refusals
 *   filecoin           : circuit-info counts (2 KiB Window, 32 GiB Winning), gen-vanilla files and request.json, bad
 *                        arguments, verify --request without a key or with a malformed request.
 *   demo (alone, `test_cli CZK demo`): czk demo with its 2 KiB WindowPoSt job: key set up then reused, the proof
 *                        verified in the table and the timeline; a proof damaged on arrival (fault site demo.proof)
 *                        and a foreign .vk each make the demo fail (0/1 verified, exit 1).
 * Every run also checks that stderr holds no sanitizer report (an ASan/UBSan abort exits non-zero too, which must not
 * pass for an expected rejection). Work files live in a fresh mkdtemp directory that is removed at the end. */
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "czk_test.h"

extern char **environ;

static const char *g_czk;
static char g_dir[64];

typedef struct run_result {
  int rc; /* exit status, or 128 + signal */
  char out[16384];
  char err[16384];
} run_result;

static void path_in(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", g_dir, name); }

static void slurp(const char *path, char *buf, size_t cap) {
  buf[0] = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return;
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
  fclose(f);
}

static bool write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

/* Runs czk with args (NULL-terminated, without argv[0]); stdin from in_path (or /dev/null). */
static void run(run_result *r, const char *in_path, const char *const *args) {
  char outp[128], errp[128];
  path_in(outp, sizeof outp, "stdout.txt");
  path_in(errp, sizeof errp, "stderr.txt");
  const char *argv[32];
  int n = 0;
  argv[n++] = g_czk;
  for (; *args && n < 31; args++) argv[n++] = *args;
  argv[n] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in_path ? in_path : "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid;
  int st = 0;
  r->rc = -1;
  if (posix_spawn(&pid, g_czk, &fa, NULL, (char *const *)argv, environ) == 0 && waitpid(pid, &st, 0) == pid)
    r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  posix_spawn_file_actions_destroy(&fa);
  slurp(outp, r->out, sizeof r->out);
  slurp(errp, r->err, sizeof r->err);
  CHECK_MSG(!strstr(r->err, "Sanitizer") && !strstr(r->err, "runtime error:"), "czk %s: sanitizer report:\n%s",
            args[0] ? args[0] : "", r->err);
}

#define RUN(r, in, ...) run((r), (in), (const char *const[]){__VA_ARGS__, NULL})

/* An expected failure: non-zero exit `rc` (or any non-zero when rc < 0), empty stdout, stderr containing `msg`. */
static void expect_fail(const run_result *r, int rc, const char *msg, const char *what) {
  CHECK_MSG(rc < 0 ? r->rc != 0 : r->rc == rc, "%s: exit %d (want %d)", what, r->rc, rc);
  CHECK_MSG(r->out[0] == 0, "%s: stdout not empty: %s", what, r->out);
  CHECK_MSG(strstr(r->err, msg) != NULL, "%s: stderr lacks '%s': %s", what, msg, r->err);
}

static void hex32(char out[67], const uint8_t b[32]) {
  out[0] = '0';
  out[1] = 'x';
  for (int i = 0; i < 32; i++) snprintf(out + 2 + 2 * i, 3, "%02x", b[i]);
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n)
    b[n] = 0;
  else {
    free(b);
    b = NULL;
  }
  fclose(f);
  return b;
}

/* ------------------------------------------------------------------------------------------------ comm-d */
/* The "- <label>: [..32 decimal bytes..]" or "- <label>: <64 hex> (hex)" line of VECTORS.md, as 0x-hex. */
static bool vectors_comm_d(const char *md, const char *label, char want[67]) {
  char key[32];
  snprintf(key, sizeof key, "- %s: ", label);
  const char *p = strstr(md, key);
  if (!p) return false;
  p += strlen(key);
  uint8_t b[32];
  if (*p == '[') {
    for (int i = 0; i < 32; i++) {
      char *end;
      unsigned long v = strtoul(p + 1, &end, 10);
      if (end == p + 1 || v > 255 || *end != (i == 31 ? ']' : ',')) return false;
      b[i] = (uint8_t)v;
      p = end;
    }
  } else {
    for (int i = 0; i < 32; i++) {
      unsigned v;
      if (sscanf(p + 2 * i, "%2x", &v) != 1) return false;
      b[i] = (uint8_t)v;
    }
  }
  hex32(want, b);
  return true;
}

static void test_comm_d(void) {
  char *md = read_text(czk_test_shared_path("fixtures/filecoin/VECTORS.md"));
  CHECK_MSG(md != NULL, "cannot read VECTORS.md");
  if (!md) return;
  char want2k[67], want128[67], got[80];
  CHECK(vectors_comm_d(md, "2 KiB", want2k));
  CHECK(vectors_comm_d(md, "128 B", want128));
  free(md);
  static uint8_t zeros[4096];
  char z2032[128], z127[128], z2033[128];
  path_in(z2032, sizeof z2032, "zero2032.bin");
  path_in(z127, sizeof z127, "zero127.bin");
  path_in(z2033, sizeof z2033, "zero2033.bin");
  CHECK(write_file(z2032, zeros, 2032) && write_file(z127, zeros, 127) && write_file(z2033, zeros, 2033));
  run_result r;
  RUN(&r, NULL, "hash", "comm-d", z2032);
  snprintf(got, sizeof got, "%s\n", want2k);
  CHECK_MSG(r.rc == 0 && strcmp(r.out, got) == 0, "comm-d 2032 zeros: rc %d out %s want %s", r.rc, r.out, want2k);
  RUN(&r, z2032, "hash", "comm-d", "-"); /* stdin */
  CHECK_MSG(r.rc == 0 && strcmp(r.out, got) == 0, "comm-d stdin: rc %d out %s", r.rc, r.out);
  RUN(&r, NULL, "hash", "comm-d", "--sector-size", "2KiB", z127); /* zero fill to the sector */
  CHECK_MSG(r.rc == 0 && strcmp(r.out, got) == 0, "comm-d 127 B in 2KiB: rc %d out %s", r.rc, r.out);
  RUN(&r, NULL, "hash", "comm-d", z127);
  snprintf(got, sizeof got, "%s\n", want128);
  CHECK_MSG(r.rc == 0 && strcmp(r.out, got) == 0, "comm-d 127 zeros: rc %d out %s want %s", r.rc, r.out, want128);
  RUN(&r, NULL, "hash", "comm-d", z2033); /* one byte more: the next sector size, another root */
  CHECK(r.rc == 0 && strncmp(r.out, want2k, 66) != 0 && strlen(r.out) == 67);

  /* bad input */
  RUN(&r, NULL, "hash", "comm-d", "--sector-size", "2KiB", z2033);
  expect_fail(&r, 1, "holds more than the 2048-byte sector", "comm-d too large");
  RUN(&r, NULL, "hash", "comm-d", "--sector-size", "3KiB", z127);
  expect_fail(&r, 2, "bad --sector-size '3KiB'", "comm-d 3KiB");
  RUN(&r, NULL, "hash", "comm-d", "--sector-size", "2KB!", z127);
  expect_fail(&r, 2, "bad --sector-size '2KB!'", "comm-d 2KB!");
  RUN(&r, NULL, "hash", "comm-d", "--sector-size", "-2048", z127);
  expect_fail(&r, 2, "bad --sector-size", "comm-d -2048");
  char missing[128];
  path_in(missing, sizeof missing, "no-such-file.bin");
  RUN(&r, NULL, "hash", "comm-d", missing);
  expect_fail(&r, 1, "cannot open", "comm-d missing file");
  CHECK(strstr(r.err, "no-such-file.bin") != NULL);
  RUN(&r, NULL, "hash", "comm-d");
  expect_fail(&r, 2, "usage: czk hash comm-d", "comm-d no file");
}

/* ------------------------------------------------------------------------------------------------ poseidon */
/* The 4 limbs of `arity` in `section` of poseidon-vectors.json as the 32 little-endian bytes in 0x-hex. */
static bool json_digest_hex(const char *json, const char *section, unsigned arity, char want[67]) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\"", section);
  const char *s = strstr(json, key);
  if (!s) return false;
  const char *end = strchr(s + strlen(key), '}');
  snprintf(key, sizeof key, "\"%u\": [", arity);
  const char *p = strstr(s, key);
  if (!p || (end && p > end)) return false;
  p += strlen(key);
  uint8_t b[32];
  for (int i = 0; i < 4; i++) {
    p = strstr(p, "\"0x");
    if (!p) return false;
    uint64_t limb = strtoull(p + 1, NULL, 16);
    for (int k = 0; k < 8; k++) b[8 * i + k] = (uint8_t)(limb >> (8 * k));
    p += 3;
  }
  hex32(want, b);
  return true;
}

static void test_poseidon(void) {
  char *json = read_text(czk_test_shared_path("fixtures/filecoin/poseidon-vectors.json"));
  CHECK_MSG(json != NULL, "cannot read poseidon-vectors.json");
  if (!json) return;
  static const char *const k_el[8] = {"0", "1", "2", "3", "4", "5", "6", "7"};
  static const unsigned k_ar[] = {2, 4, 8};
  run_result r;
  char want[67];
  for (int strength = 0; strength < 2; strength++)
    for (size_t ai = 0; ai < sizeof k_ar / sizeof k_ar[0]; ai++) {
      unsigned a = k_ar[ai];
      const char *args[16];
      int n = 0;
      args[n++] = "hash";
      args[n++] = "poseidon";
      if (strength) {
        args[n++] = "--strength";
        args[n++] = "strengthened";
      }
      for (unsigned i = 0; i < a; i++) args[n++] = k_el[i];
      args[n] = NULL;
      run(&r, NULL, args);
      const char *sec = strength ? "merkle_tree_strengthened" : "merkle_tree_standard";
      CHECK(json_digest_hex(json, sec, a, want));
      CHECK_MSG(r.rc == 0 && strncmp(r.out, want, 66) == 0 && r.out[66] == '\n', "poseidon %s %u: rc %d out %s want %s",
                sec, a, r.rc, r.out, want);
    }
  /* ConstantLength(4) over [0,1,2,3] with the arity-2 constants (a sponge of two absorptions) */
  CHECK(json_digest_hex(json, "constant_length_4_standard", 2, want));
  RUN(&r, NULL, "hash", "poseidon", "--arity", "2", "--type", "constant-length", "0", "1", "2", "3");
  CHECK_MSG(r.rc == 0 && strncmp(r.out, want, 66) == 0, "poseidon constant-length: rc %d out %s want %s", r.rc, r.out,
            want);
  /* 0x-hex inputs give the same digest and decimal line as decimal ones */
  RUN(&r, NULL, "hash", "poseidon", "0", "1");
  run_result r2;
  RUN(&r2, NULL, "hash", "poseidon", "0x0", "0x01");
  CHECK(r.rc == 0 && r2.rc == 0 && strcmp(r.out, r2.out) == 0);
  const char *nl = strchr(r.out, '\n');
  CHECK(nl && nl[1] >= '1' && nl[1] <= '9'); /* second line: the digest in decimal */
  free(json);

  /* bad input */
  RUN(&r, NULL, "hash", "poseidon", "0", "12x");
  expect_fail(&r, 2, "element '12x'", "poseidon 12x");
  RUN(&r, NULL, "hash", "poseidon", "0", "0xg1");
  expect_fail(&r, 2, "element '0xg1'", "poseidon 0xg1");
  RUN(&r, NULL, "hash", "poseidon", "0", "");
  expect_fail(&r, 2, "element ''", "poseidon empty element");
  /* r itself is not a canonical field element */
  RUN(&r, NULL, "hash", "poseidon", "0",
      "52435875175126190479447740508185965837690552500527637822603658699938581184513");
  expect_fail(&r, 2, "element '5243", "poseidon r");
  RUN(&r, NULL, "hash", "poseidon", "--arity", "3x", "0", "1", "2");
  expect_fail(&r, 2, "bad --arity '3x'", "poseidon arity 3x");
  RUN(&r, NULL, "hash", "poseidon", "--arity", "0", "0");
  expect_fail(&r, 2, "bad --arity '0'", "poseidon arity 0");
  RUN(&r, NULL, "hash", "poseidon", "--arity", "4", "0", "1");
  expect_fail(&r, 1, "takes exactly 4 elements (got 2)", "poseidon arity mismatch");
  RUN(&r, NULL, "hash", "poseidon", "--type", "custom:0", "0", "1");
  expect_fail(&r, 2, "bad custom id", "poseidon custom:0");
  RUN(&r, NULL, "hash", "poseidon");
  expect_fail(&r, 2, "usage: czk hash poseidon", "poseidon no elements");
}

/* ------------------------------------------------------------------------------------------------ sha256, tree */
static void test_sha256_tree(void) {
  char abc[128];
  path_in(abc, sizeof abc, "abc.txt");
  CHECK(write_file(abc, "abc", 3));
  run_result r;
  RUN(&r, NULL, "hash", "sha256", abc);
  /* FIPS 180-2 appendix B.1; Filecoin's Sha256Function clears the two top bits of the last byte (0xad -> 0x2d) */
  CHECK_MSG(r.rc == 0 && strcmp(r.out, "sha256    0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
                                       "fc-sha256 0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f200152d\n") == 0,
            "sha256 abc: rc %d out %s", r.rc, r.out);
  run_result r2;
  RUN(&r2, abc, "hash", "sha256", "-");
  CHECK(r2.rc == 0 && strcmp(r.out, r2.out) == 0);
  char missing[128];
  path_in(missing, sizeof missing, "missing.txt");
  RUN(&r, NULL, "hash", "sha256", missing);
  expect_fail(&r, 1, "cannot open", "sha256 missing file");
  RUN(&r, NULL, "hash", "sha256");
  expect_fail(&r, 2, "usage: czk hash sha256", "sha256 no file");

  /* tree: 8 leaves [0..7] under arity 8 is one Poseidon MerkleTree hash of [0..7] */
  uint8_t leaves[8 * 32] = {0};
  for (int i = 0; i < 8; i++) leaves[32 * i] = (uint8_t)i;
  char lp[128];
  path_in(lp, sizeof lp, "leaves.bin");
  CHECK(write_file(lp, leaves, sizeof leaves));
  RUN(&r, NULL, "hash", "tree", lp);
  RUN(&r2, NULL, "hash", "poseidon", "0", "1", "2", "3", "4", "5", "6", "7");
  CHECK_MSG(r.rc == 0 && r2.rc == 0 && strcmp(r.out, r2.out) == 0, "tree vs poseidon: %s / %s", r.out, r2.out);
  RUN(&r, NULL, "hash", "tree", "--arity", "8x", lp);
  expect_fail(&r, 2, "--arity must be 2, 4, 8 or 16", "tree arity 8x");
  CHECK(write_file(lp, leaves, 33));
  RUN(&r, NULL, "hash", "tree", lp);
  expect_fail(&r, 1, "not a multiple of 32 bytes", "tree 33 bytes");
  RUN(&r, NULL, "hash", "nope");
  expect_fail(&r, 2, "unknown 'nope'", "hash nope");
}

/* ------------------------------------------------------------------------------------------------ setup/prove/verify */
static void test_prove_verify(void) {
  char params[128], vk[128], shape[128], proof[128], pub[128], proof2[128], pub2[128], bad[128];
  path_in(params, sizeof params, "k4.params");
  path_in(vk, sizeof vk, "k4.vk");
  path_in(shape, sizeof shape, "k4.r1cs");
  path_in(proof, sizeof proof, "proof.bin");
  path_in(pub, sizeof pub, "public.json");
  path_in(proof2, sizeof proof2, "proof2.bin");
  path_in(pub2, sizeof pub2, "public2.json");
  path_in(bad, sizeof bad, "bad.bin");
  run_result r;
  RUN(&r, NULL, "setup", "4", params, vk, "--shape", shape);
  CHECK_MSG(r.rc == 0 && strstr(r.out, "synthetic 2^4"), "setup: rc %d out %s err %s", r.rc, r.out, r.err);
  RUN(&r, NULL, "prove", params, "4", "7", proof, pub);
  CHECK_MSG(r.rc == 0, "prove: rc %d err %s", r.rc, r.err);
  RUN(&r, NULL, "prove", params, "4", "8", proof2, pub2, "--shape", shape);
  CHECK_MSG(r.rc == 0, "prove --shape: rc %d err %s", r.rc, r.err);
  RUN(&r, NULL, "verify", vk, pub, proof);
  CHECK_MSG(r.rc == 0 && strcmp(r.out, "OK\n") == 0, "verify: rc %d out %s err %s", r.rc, r.out, r.err);
  RUN(&r, NULL, "verify", vk, pub2, proof2);
  CHECK_MSG(r.rc == 0 && strcmp(r.out, "OK\n") == 0, "verify 2: rc %d out %s err %s", r.rc, r.out, r.err);

  /* tampered proofs: every byte position class (A, B, C) flipped in its low bit */
  uint8_t p[192];
  FILE *f = fopen(proof, "rb");
  CHECK(f && fread(p, 1, sizeof p, f) == sizeof p);
  if (f) fclose(f);
  static const size_t k_pos[] = {47, 100, 191};
  for (size_t i = 0; i < sizeof k_pos / sizeof k_pos[0]; i++) {
    p[k_pos[i]] ^= 1;
    CHECK(write_file(bad, p, sizeof p));
    p[k_pos[i]] ^= 1;
    RUN(&r, NULL, "verify", vk, pub, bad);
    CHECK_MSG(r.rc == 1 && r.out[0] == 0 && r.err[0] != 0, "tampered byte %zu: rc %d out %s", k_pos[i], r.rc, r.out);
  }
  /* a proof that does not match the public inputs */
  RUN(&r, NULL, "verify", vk, pub2, proof);
  CHECK_MSG(r.rc == 1 && r.out[0] == 0, "mismatched public inputs: rc %d", r.rc);
  /* a changed public input: the first digit run of public.json + 1 in its last digit */
  char *text = read_text(pub);
  CHECK(text != NULL);
  if (text) {
    char *q = strchr(text, '"');
    char *e = q ? strchr(q + 1, '"') : NULL;
    CHECK(e != NULL && e > q + 1);
    if (e && e > q + 1) {
      e[-1] = e[-1] == '9' ? '8' : (char)(e[-1] + 1);
      CHECK(write_file(bad, text, strlen(text)));
      RUN(&r, NULL, "verify", vk, bad, proof);
      CHECK_MSG(r.rc == 1 && r.out[0] == 0, "changed public input: rc %d", r.rc);
    }
    free(text);
  }
  /* truncated proof, malformed public inputs, missing key */
  CHECK(write_file(bad, p, 191));
  RUN(&r, NULL, "verify", vk, pub, bad);
  expect_fail(&r, 1, "expected a 192-byte proof", "truncated proof");
  CHECK(write_file(bad, "[\"12a\"]", 7));
  RUN(&r, NULL, "verify", vk, bad, proof);
  expect_fail(&r, 1, "bad.bin", "malformed public inputs");
  char missing[128];
  path_in(missing, sizeof missing, "missing.vk");
  RUN(&r, NULL, "verify", missing, pub, proof);
  expect_fail(&r, 1, "missing.vk", "missing vk");
  RUN(&r, NULL, "prove", params, "5", "7", proof2, pub2); /* key for 2^4, circuit 2^5 */
  CHECK_MSG(r.rc != 0 && r.err[0] != 0, "prove with the wrong k: rc %d", r.rc);
  RUN(&r, NULL, "prove", params, "4", "7x", proof2, pub2);
  expect_fail(&r, 2, "bad <k> or <seed>", "prove seed 7x");
  RUN(&r, NULL, "setup", "99", params, vk);
  expect_fail(&r, 2, "k must be an integer", "setup k 99");

  /* issue 22 #11: a corrupted key that still loads (two valid H points swapped) gave an invalid proof without a word;
   * now prove verifies by default and writes nothing, and --no-verify is the way to skip that */
  struct stat ks;
  size_t klen = stat(params, &ks) == 0 ? (size_t)ks.st_size : 0;
  uint8_t *key = (uint8_t *)read_text(params);
  CHECK(key && klen > 1000);
  if (key && klen > 1000) {
    size_t at = 864; /* alpha1 beta1 beta2 gamma2 delta1 delta2, then the IC count (big-endian) */
    uint32_t n_ic = (uint32_t)key[at] << 24 | (uint32_t)key[at + 1] << 16 | (uint32_t)key[at + 2] << 8 | key[at + 3];
    at += 4 + (size_t)n_ic * 96 + 4; /* the first H point */
    CHECK(at + 192 <= klen);
    if (at + 192 <= klen) {
      uint8_t tmp[96];
      memcpy(tmp, key + at, 96);
      memcpy(key + at, key + at + 96, 96);
      memcpy(key + at + 96, tmp, 96);
    }
    char corrupt[128], cproof[128], cpub[128];
    path_in(corrupt, sizeof corrupt, "corrupt.params");
    path_in(cproof, sizeof cproof, "cproof.bin");
    path_in(cpub, sizeof cpub, "cpublic.json");
    CHECK(write_file(corrupt, key, klen));
    RUN(&r, NULL, "prove", corrupt, "4", "7", cproof, cpub);
    CHECK_MSG(r.rc == 1 && strstr(r.err, "does not verify against") && strstr(r.err, "corrupt.params"),
              "prove with a corrupted key: rc %d err %s", r.rc, r.err);
    CHECK(access(cproof, F_OK) != 0 && access(cpub, F_OK) != 0); /* nothing written */
    RUN(&r, NULL, "prove", corrupt, "4", "7", cproof, cpub, "--no-verify");
    CHECK_MSG(r.rc == 0, "prove --no-verify: rc %d err %s", r.rc, r.err);
    RUN(&r, NULL, "verify", vk, cpub, cproof);
    CHECK_MSG(r.rc == 1, "the unverified proof of a corrupted key is invalid: rc %d", r.rc);
  }
  free(key);
}

/* czk bench msm|ntt|prove --backend: cpu runs the CPU table; cuda rewrites the options for the GPU benchmark (which,
 * without a GPU or a CUDA build, fails cleanly); bad values and options without a GPU counterpart are refused. */
static void test_bench_backend(void) {
  run_result r;
  RUN(&r, NULL, "bench", "ntt", "--backend", "cpu", "--lo", "4", "--hi", "4", "--threads", "1");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "coset_ntt") != NULL, "bench ntt --backend cpu: exit %d: %s%s", r.rc, r.out,
            r.err);
  RUN(&r, NULL, "bench", "msm", "--backend", "tpu");
  expect_fail(&r, 2, "--backend must be cpu, cuda or cuda:N (got 'tpu')", "bench msm --backend tpu");
  RUN(&r, NULL, "bench", "msm", "--backend", "cuda:x");
  expect_fail(&r, 2, "--backend must be cpu, cuda or cuda:N", "bench msm --backend cuda:x");
  RUN(&r, NULL, "bench", "msm", "--backend", "cuda", "--threads", "4");
  expect_fail(&r, 2, "--threads has no meaning with --backend cuda", "bench msm --backend cuda --threads");
  RUN(&r, NULL, "bench", "prove", "--backend", "cuda", "--circom", "a", "b");
  expect_fail(&r, 2, "--circom has no meaning with --backend cuda", "bench prove --backend cuda --circom");
  RUN(&r, NULL, "bench", "prove", "--backend", "cuda", "--min", "9", "--max", "8");
  expect_fail(&r, 2, "need 1 <= min <= max <= 28", "bench prove --backend cuda min > max");
  RUN(&r, NULL, "bench", "msm", "--backend");
  expect_fail(&r, 2, "--backend needs cpu, cuda or cuda:N", "bench msm --backend (no value)");
  if (access("/dev/nvidiactl", F_OK) != 0) { /* no GPU here: the GPU benchmark must fail cleanly (a CUDA build or not) */
    RUN(&r, NULL, "bench", "ntt", "--backend", "cuda", "--lo", "10", "--hi", "10");
    expect_fail(&r, 1, "CUDA not available", "bench ntt --backend cuda without CUDA");
  }
}

/* czk bench post|snap|gpuprove --gpu-memory-limit / --gpu-memory-reserve / --tier / --lanes (issue 32 item 3; the
 * same options as bench porep, bench/bench_util.c czk__bench_dev_*): on the CPU they are accepted and change nothing
 * (the prove still runs and prints the key's line and the prove's upload bytes and device memory peak); --streamed
 * stays an alias of --tier streamed; a bad size, tier or lane shape exits 2 with a message naming it. */
static void test_bench_dev_opts(void) {
  run_result r;
  RUN(&r, NULL, "bench", "gpuprove", "--backend", "cpu", "--logs", "8", "--reps", "1", "--gpu-memory-limit", "1GiB",
      "--tier", "auto", "--gpu-memory-reserve", "64MiB", "--lanes", "auto");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "key on cpu: resident, ") && strstr(r.out, "uploaded 0.00 GiB of bases") &&
                strstr(r.out, "device memory in use, peak") && strstr(r.out, "2^8 on cpu: median total"),
            "bench gpuprove --gpu-memory-limit 1GiB --tier auto: exit %d: %s%s", r.rc, r.out, r.err);
  RUN(&r, NULL, "bench", "gpuprove", "--backend", "cpu", "--logs", "8", "--reps", "1", "--streamed");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "key on cpu: streamed, 0.00 GiB copied"),
            "bench gpuprove --streamed: exit %d: %s%s", r.rc, r.out, r.err);
  RUN(&r, NULL, "bench", "post", "--kind", "window-post", "--sector-size", "2KiB", "--reps", "1", "--backend", "cpu",
      "--random-key", "--gpu-memory-limit", "1GiB", "--tier", "auto");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "key on cpu: resident, ") &&
                strstr(r.out, "prove: uploaded 0.00 GiB of bases; device memory in use, peak"),
            "bench post --gpu-memory-limit 1GiB --tier auto: exit %d: %s%s", r.rc, r.out, r.err);
  RUN(&r, NULL, "bench", "snap", "--sector-size", "2KiB", "--reps", "1", "--gpu-memory-limit", "1GiB", "--tier",
      "auto");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "synthesis of one partition"),
            "bench snap --gpu-memory-limit 1GiB: exit %d: %s%s", r.rc, r.out, r.err);
  RUN(&r, NULL, "bench", "post", "--kind", "window-post", "--sector-size", "2KiB", "--gpu-memory-limit", "abc");
  expect_fail(&r, 2, "czk bench post: --gpu-memory-limit: 'abc' is not a size", "bench post --gpu-memory-limit abc");
  RUN(&r, NULL, "bench", "snap", "--sector-size", "2KiB", "--tier", "bogus");
  expect_fail(&r, 2, "czk bench snap: --tier must be auto, resident, partial or streamed (got 'bogus')",
              "bench snap --tier bogus");
  RUN(&r, NULL, "bench", "gpuprove", "--backend", "cpu", "--logs", "8", "--lanes", "wide");
  expect_fail(&r, 2, "czk bench gpuprove: --lanes must be auto, full, compact or lean (got 'wide')",
              "bench gpuprove --lanes wide");
  RUN(&r, NULL, "bench", "gpuprove", "--backend", "cpu", "--logs", "8", "--gpu-memory-reserve", "-1");
  expect_fail(&r, 2, "--gpu-memory-reserve: '-1' is not a size", "bench gpuprove --gpu-memory-reserve -1");
  RUN(&r, NULL, "bench", "post", "--kind", "window-post", "--sector-size", "2KiB", "--tier");
  expect_fail(&r, 2, "czk bench post: --tier needs a value", "bench post --tier (no value)");
  RUN(&r, NULL, "bench", "gpuprove", "--help");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "--gpu-memory-limit S") && strstr(r.out, "--streamed is --tier streamed") &&
                strstr(r.out, "--chunk-log N"),
            "bench gpuprove --help: exit %d: %s", r.rc, r.out);
  RUN(&r, NULL, "bench", "gpuprove", "--backend", "cpu", "--logs", "8", "--reps", "1", "--lanes", "compact",
      "--chunk-log", "20");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "2^8 on cpu: median total"), "bench gpuprove --chunk-log 20: exit %d: %s%s",
            r.rc, r.out, r.err);
  RUN(&r, NULL, "bench", "porep", "--sector-size", "2KiB", "--chunk-log", "9");
  expect_fail(&r, 2, "czk bench porep: --chunk-log must be a number from 10 to 28 (got '9')", "bench porep --chunk-log 9");
  RUN(&r, NULL, "bench", "porep", "--sector-size", "2KiB", "--gpu-memory-limit", "16Gb");
  expect_fail(&r, 2, "czk bench porep: --gpu-memory-limit: '16Gb' is not a size", "bench porep --gpu-memory-limit 16Gb");
  RUN(&r, NULL, "bench", "porep", "--help");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "--gpu-memory-limit S") && strstr(r.out, "--chunk-log N") &&
                strstr(r.out, "--prove-only") && strstr(r.out, "--ab SPEC"),
            "bench porep --help: exit %d: %s", r.rc, r.out);
  /* --ab: one process, A B B A; each side's proves labelled, the table of both and the paired ratio (on the CPU of
   * wall time: it has no device time); bad specs and a missing backend refused */
  RUN(&r, NULL, "bench", "post", "--kind", "window-post", "--sector-size", "2KiB", "--reps", "1", "--backend", "cpu",
      "--random-key", "--ab", "CZK_TEST_AB_SIDE=b");
  {
    const char *a = strstr(r.out, "rep  A "), *b = strstr(r.out, "rep  B ");
    CHECK_MSG(r.rc == 0 && a && b && a < b && strstr(b + 1, "rep  B ") == NULL &&
                  strstr(r.out, "| A/B (one process, same key and card; 1 proves each, A B B A ...) | A: as given | "
                                "B: CZK_TEST_AB_SIDE=b | B/A |") &&
                  strstr(r.out, "| MSM b_g2, median ms | ") &&
                  strstr(r.out, "| paired ratio B/A of wall time: median of 1 (min "),
              "bench post --ab: exit %d: %s%s", r.rc, r.out, r.err);
  }
  RUN(&r, NULL, "bench", "post", "--kind", "window-post", "--sector-size", "2KiB", "--reps", "1", "--backend", "cpu",
      "--random-key", "--ab", "chunk-log=12");
  CHECK_MSG(r.rc == 1 && strstr(r.err, "czk bench post: --ab chunk-log=N needs compact or lean lanes") &&
                !strstr(r.out, "warm-up"),
            "bench post --ab chunk-log=12 (full lanes): exit %d: %s%s", r.rc, r.out, r.err);
  RUN(&r, NULL, "bench", "porep", "--sector-size", "2KiB", "--ab", "lower=1");
  expect_fail(&r, 2, "czk bench porep: --ab takes chunk-log=N (10..28) or NAME=VALUE (NAME of A-Z, 0-9, _), got "
                     "'lower=1'", "bench porep --ab lower=1");
  RUN(&r, NULL, "bench", "porep", "--sector-size", "2KiB", "--ab", "chunk-log=9");
  expect_fail(&r, 2, "got 'chunk-log=9'", "bench porep --ab chunk-log=9");
  RUN(&r, NULL, "bench", "snap", "--sector-size", "2KiB", "--backend", "cpu", "--random-key", "--params", "/tmp");
  expect_fail(&r, 2, "usage: czk bench snap", "bench snap --random-key --params");
  RUN(&r, NULL, "bench", "snap", "--help");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "(--params DIR | --random-key)"), "bench snap --help: exit %d: %s", r.rc, r.out);
  RUN(&r, NULL, "bench", "post", "--kind", "window-post", "--sector-size", "2KiB", "--ab", "X=1");
  expect_fail(&r, 2, "czk bench post: --ab needs --backend", "bench post --ab without --backend");
}

/* czk circuit-info / gen-vanilla / verify --request (Filecoin PoSt): the asserted counts, in text and JSON (the 32 GiB
 * Winning circuit included: counting synthesis, seconds); gen-vanilla writes Curio-sized vanilla proofs and a
 * request.json; the bad arguments and a missing key are refused with a reason. The daemon path is test_post_daemon. */
static void test_filecoin(void) {
  run_result r;
  RUN(&r, NULL, "circuit-info", "window-post", "--sector-size", "2KiB");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "21,866 (with the 23 input constraints: 21,889)") &&
                strstr(r.out, "public inputs        23") && strstr(r.out, "FFT domain           2^15") &&
                strstr(r.out, "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params"),
            "circuit-info window-post 2KiB: %d %s %s", r.rc, r.out, r.err);
  RUN(&r, NULL, "circuit-info", "winning-post", "--sector-size", "32GiB", "--json");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "\"constraints\":370590,") && strstr(r.out, "\"public_inputs\":133,") &&
                strstr(r.out, "\"log_domain\":19") && strstr(r.out, "\"circuit_id\":\"winning-32g\""),
            "circuit-info winning-post 32GiB --json: %d %s %s", r.rc, r.out, r.err);
  /* --witness: one partition's witness from a generated input, its fractions (issue 21 item 2): PoSt's witness is
   * mostly Poseidon values, PoRep's and SnapDeals' mostly bits; the three add up to 1 */
  {
    double z = -1, o = -1, x = -1;
    RUN(&r, NULL, "circuit-info", "window-post", "--sector-size", "2KiB", "--witness", "--json");
    const char *p = r.rc == 0 ? strstr(r.out, "\"witness_zero\":") : NULL;
    CHECK_MSG(p && sscanf(p, "\"witness_zero\":%lf,\"witness_one\":%lf,\"witness_other\":%lf", &z, &o, &x) == 3 &&
                  x > 0.9 && fabs(z + o + x - 1) < 1e-5 && strstr(r.out, "\"constraints\":21866,"),
              "circuit-info window-post --witness --json: %d %s %s", r.rc, r.out, r.err);
    const char *kinds[2] = {"porep", "snap"};
    for (int i = 0; i < 2; i++) {
      RUN(&r, NULL, "circuit-info", kinds[i], "--sector-size", "2KiB", "--witness");
      p = r.rc == 0 ? strstr(r.out, "witness (generated)") : NULL;
      z = o = x = -1;
      CHECK_MSG(p && sscanf(p, "witness (generated) %lf%% zero, %lf%% one, %lf%% other", &z, &o, &x) == 3 &&
                    z + o > 90 && fabs(z + o + x - 100) < 0.2,
                "circuit-info %s --witness: %d %s %s", kinds[i], r.rc, r.out, r.err);
    }
  }
  RUN(&r, NULL, "circuit-info", "porep-c3", "--sector-size", "2KiB");
  expect_fail(&r, 2, "unknown kind 'porep-c3'", "circuit-info unknown kind");
  RUN(&r, NULL, "circuit-info", "window-post", "--sector-size", "4KiB");
  expect_fail(&r, 2, "no registered proof for sector size 4KiB", "circuit-info 4KiB");
  char dir[128], req[160], v0[160], vk[128];
  path_in(dir, sizeof dir, "wpost");
  RUN(&r, NULL, "gen-vanilla", "window-post", "--sector-size", "2KiB", "--sectors", "2", "--api", "1.0",
      "--partition", "1", "--out", dir);
  CHECK_MSG(r.rc == 0 && strstr(r.out, "2 StackedDrgWindow2KiBV1 vanilla proof(s) of 5680 bytes (dense"),
            "gen-vanilla: %d %s %s", r.rc, r.out, r.err);
  snprintf(req, sizeof req, "%s/request.json", dir);
  snprintf(v0, sizeof v0, "%s/vanilla-1.bin", dir);
  struct stat sb;
  CHECK(stat(v0, &sb) == 0 && sb.st_size == 5680);
  char *j = read_text(req);
  CHECK_MSG(j && strstr(j, "\"registered_proof\": 5,") && strstr(j, "\"partition_index\": 1,") &&
                strstr(j, "\"prover_id\": \"e807000000") && strstr(j, "\"vanilla_proofs\": [\"vanilla-0.bin\", \"vanilla-1.bin\"]"),
            "request.json: %s", j ? j : "(missing)");
  free(j);
  char dir2[128];
  path_in(dir2, sizeof dir2, "winning");
  RUN(&r, NULL, "gen-vanilla", "winning-post", "--sector-size", "64GiB", "--out", dir2);
  CHECK_MSG(r.rc == 0 && strstr(r.out, "167760 bytes (sparse, 64GiB)"), "gen-vanilla winning 64GiB: %d %s %s", r.rc,
            r.out, r.err);
  RUN(&r, NULL, "gen-vanilla", "window-post", "--sector-size", "2KiB", "--sectors", "3", "--out", dir);
  expect_fail(&r, 2, "--sectors must be 1..2", "gen-vanilla 3 sectors");
  RUN(&r, NULL, "gen-vanilla", "window-post", "--sector-size", "2KiB", "--api", "1.1", "--out", dir);
  expect_fail(&r, 2, "--api takes 1.0 or 1.2", "gen-vanilla api 1.1");
  RUN(&r, NULL, "gen-vanilla", "window-post", "--sector-size", "2KiB", "--randomness", "ff", "--out", dir);
  expect_fail(&r, 2, "--randomness must be 64 hex digits", "gen-vanilla randomness");
  /* verify --request without the key, and with a malformed request */
  path_in(vk, sizeof vk, "no-params");
  RUN(&r, NULL, "verify", "--request", req, "--proof", v0, "--params", vk);
  CHECK_MSG(r.rc == 1 && strstr(r.err, ".vk") && strstr(r.err, "0170db1f"), "verify without a key: %d %s", r.rc, r.err);
  const char *bad = "{\"proof_kind\": 3}";
  write_file(req, bad, strlen(bad));
  RUN(&r, NULL, "verify", "--request", req, "--proof", v0, "--params", vk);
  CHECK_MSG(r.rc == 1 && strstr(r.err, "registered_proof"), "verify bad request: %d %s", r.rc, r.err);
}

/* czk circuit-info / gen-vanilla / verify --request (Filecoin SnapDeals): the spec's 2 KiB counts in text and JSON;
 * gen-vanilla writes one PartitionProof per partition (2 KiB dense, 8 MiB sparse: 4 of 43,864 bytes) and a
 * request.json with the three commitments; bad arguments and a missing key are refused with a reason. The daemon
 * path is test_snap_daemon. */
static void test_snap(void) {
  run_result r;
  RUN(&r, NULL, "circuit-info", "snap", "--sector-size", "2KiB");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "1,705,039 (with the 5 input constraints: 1,705,044)") &&
                strstr(r.out, "aux variables        1,703,569") && strstr(r.out, "FFT domain           2^21") &&
                strstr(r.out, "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params"),
            "circuit-info snap 2KiB: %d %s %s", r.rc, r.out, r.err);
  RUN(&r, NULL, "circuit-info", "snap", "--sector-size", "2KiB", "--json");
  CHECK_MSG(r.rc == 0 && strstr(r.out, "\"constraints\":1705039,") && strstr(r.out, "\"public_inputs\":5,") &&
                strstr(r.out, "\"circuit_id\":\"snap-2k\""),
            "circuit-info snap --json: %d %s %s", r.rc, r.out, r.err);
  RUN(&r, NULL, "circuit-info", "snap", "--sector-size", "4KiB");
  expect_fail(&r, 2, "no registered update proof for sector size 4KiB", "circuit-info snap 4KiB");
  char dir[128], req[160], p0[160], vk[128];
  path_in(dir, sizeof dir, "snap2k");
  RUN(&r, NULL, "gen-vanilla", "snap", "--sector-size", "2KiB", "--seed", "3", "--out", dir);
  CHECK_MSG(r.rc == 0 && strstr(r.out, "1 StackedDrg2KiBV1 partition proof(s) of 15064 bytes (dense, 2KiB)"),
            "gen-vanilla snap: %d %s %s", r.rc, r.out, r.err);
  snprintf(req, sizeof req, "%s/request.json", dir);
  snprintf(p0, sizeof p0, "%s/partition-0.bin", dir);
  struct stat sb;
  CHECK(stat(p0, &sb) == 0 && sb.st_size == 15064);
  char *j = read_text(req);
  CHECK_MSG(j && strstr(j, "\"proof_kind\": 2,") && strstr(j, "\"registered_proof\": 0,") &&
                strstr(j, "\"comm_r_old\": \"") && strstr(j, "\"comm_d_new\": \"") && strstr(j, "\"comm_r_new\": \"") &&
                strstr(j, "\"vanilla_proofs\": [\"partition-0.bin\"]"),
            "snap request.json: %s", j ? j : "(missing)");
  free(j);
  char dir2[128];
  path_in(dir2, sizeof dir2, "snap8m");
  RUN(&r, NULL, "gen-vanilla", "--sparse", "snap", "--sector-size", "8MiB", "--out", dir2);
  CHECK_MSG(r.rc == 0 && strstr(r.out, "4 StackedDrg8MiBV1 partition proof(s) of 43864 bytes (sparse, 8MiB)"),
            "gen-vanilla snap 8MiB: %d %s %s", r.rc, r.out, r.err);
  RUN(&r, NULL, "gen-vanilla", "snap", "--sector-size", "512MiB", "--dense", "--out", dir2);
  expect_fail(&r, 2, "--dense builds sectors up to 8MiB", "gen-vanilla snap dense 512MiB");
  RUN(&r, NULL, "gen-vanilla", "snap", "--sector-size", "3KiB", "--out", dir2);
  expect_fail(&r, 2, "no registered update proof", "gen-vanilla snap 3KiB");
  RUN(&r, NULL, "gen-vanilla", "snap", "--sector-size", "2KiB", "--seed", "x1", "--out", dir2);
  expect_fail(&r, 2, "bad number", "gen-vanilla snap seed");
  /* verify --request: no key; a damaged partition proof; a request without the commitments */
  path_in(vk, sizeof vk, "no-params");
  RUN(&r, NULL, "verify", "--request", req, "--proof", p0, "--params", vk);
  CHECK_MSG(r.rc == 1 && strstr(r.err, ".vk") && strstr(r.err, "fb9e095b"), "verify snap without a key: %d %s", r.rc,
            r.err);
  char *pb = read_text(p0);
  if (pb) {
    pb[0x184] ^= 1; /* challenge 0, proof_r_old, level 0, sibling 0 */
    write_file(p0, pb, 15064);
    RUN(&r, NULL, "verify", "--request", req, "--proof", p0, "--params", vk);
    CHECK_MSG(r.rc == 1 && strstr(r.err, "partition 0: challenge 0") && strstr(r.err, "proof_r_old path"),
              "verify snap damaged: %d %s", r.rc, r.err);
    free(pb);
  }
  const char *bad = "{\"proof_kind\": 2, \"registered_proof\": 0, \"vanilla_proofs\": []}";
  write_file(req, bad, strlen(bad));
  RUN(&r, NULL, "verify", "--request", req, "--proof", p0, "--params", vk);
  CHECK_MSG(r.rc == 1 && strstr(r.err, "\"comm_r_old\" missing"), "verify snap no comms: %d %s", r.rc, r.err);
}

/* ------------------------------------------------------------------------------------------------ demo */
/* `czk demo` with one Filecoin kind (2 KiB WindowPoSt) and small synthetic jobs (test_cli CZK demo; CTest
 * test_demo_filecoin): the first run sets the key up under its v28 name in the keys directory, proves the request
 * through the daemon and verifies it (table row, per-kind line, timeline with the job); the second run reuses the key;
 * a run whose proof is damaged on arrival (CZK_FAULTS=demo.proof=1) fails the demo's own check, and one whose .vk is
 * another setup's fails at the daemon: both exit 1 with 0/1. */
static void test_demo(void) {
  char keys[128], html[128], other[128], cmd[512];
  path_in(keys, sizeof keys, "demo-keys");
  path_in(html, sizeof html, "timeline.html");
  path_in(other, sizeof other, "other-key");
  run_result *r = calloc(1, sizeof *r);
  if (!r) return;
  RUN(r, NULL, "demo", "--filecoin", "window-post", "--small", "10", "--big", "10", "--keys-dir", keys, "--html", html);
  CHECK_MSG(r->rc == 0, "demo: exit %d\n%s\n%s", r->rc, r->out, r->err);
  CHECK_MSG(strstr(r->out, "the Filecoin key setups took"), "demo: no key setup time:\n%s", r->out);
  /* the table's row: job id, kind, priority high, 1 partition, COMPLETED, verified 1/1 */
  const char *row = strstr(r->out, "  window-post-2KiB  ");
  char job[32] = "";
  CHECK_MSG(row != NULL, "demo: no window-post row:\n%s", r->out);
  if (row) {
    const char *bol = row;
    while (bol > r->out && bol[-1] != '\n') bol--;
    CHECK_MSG(sscanf(bol, "%31s", job) == 1 && strlen(job) >= 10 && strspn(job, "0123456789") == strlen(job),
              "demo: the row does not start with a job id: %.200s", bol);
    char rest[256];
    snprintf(rest, sizeof rest, "%.*s", (int)strcspn(row, "\n"), row);
    CHECK_MSG(strstr(rest, "high") && strstr(rest, "COMPLETED") && strstr(rest, "1/1"), "demo: row %s", rest);
  }
  CHECK_MSG(strstr(r->out, "window-post-2KiB  1 job, 1 partition, 1/1 verified"), "demo: no per-kind line:\n%s", r->out);
  CHECK_MSG(strstr(r->out, "synthetic-k10") && strstr(r->out, "daemon stopped (clean exit)"), "demo:\n%s", r->out);
  char vk[512];
  snprintf(vk, sizeof vk, "%s/v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee"
           "359194b13199d259380541dc529fb0099096b0.vk", keys);
  CHECK_MSG(access(vk, R_OK) == 0, "demo: no key under its v28 name: %s", vk);
  char *tl = read_text(html);
  CHECK_MSG(tl && job[0] && strstr(tl, job), "demo: the timeline lacks job %s", job);
  free(tl);
  /* a second run reuses the key */
  RUN(r, NULL, "demo", "--filecoin", "window-post", "--small", "10", "--big", "10", "--keys-dir", keys, "--html", html);
  CHECK_MSG(r->rc == 0 && strstr(r->out, "reused") && !strstr(r->out, "key setups took"), "demo again: exit %d\n%s",
            r->rc, r->out);
  /* a proof damaged on its way (fault site demo.proof flips a bit of it): the demo's own check fails the job */
  if (getenv("CZK_TEST_FAULTS")) { /* CMake sets it when the fault sites are compiled in (CZK_FAULTS=ON) */
    setenv("CZK_FAULTS", "demo.proof=1", 1);
    RUN(r, NULL, "demo", "--filecoin", "window-post", "--small", "10", "--big", "10", "--keys-dir", keys, "--html", html);
    unsetenv("CZK_FAULTS");
    CHECK_MSG(r->rc == 1 && strstr(r->out, "window-post-2KiB  1 job, 1 partition, 0/1 verified") &&
                  strstr(r->out, "do not verify") && strstr(r->out, "FAILED"),
              "demo with a damaged proof: exit %d\n%s", r->rc, r->out);
  }
  /* another setup's .vk in place of the demo's: the daemon refuses the key, the job fails, so does the demo */
  RUN(r, NULL, "setup", "--kind", "window-post", "--sector-size", "2KiB", "--out", other);
  CHECK_MSG(r->rc == 0, "setup: %s", r->err);
  snprintf(cmd, sizeof cmd, "cp %s/*.vk %s/", other, keys);
  CHECK(system(cmd) == 0);
  RUN(r, NULL, "demo", "--filecoin", "window-post", "--small", "10", "--big", "10", "--keys-dir", keys, "--html", html);
  CHECK_MSG(r->rc == 1 && strstr(r->out, "window-post-2KiB  1 job, 1 partition, 0/1 verified") &&
                strstr(r->out, "FAILED"),
            "demo with a foreign vk: exit %d\n%s", r->rc, r->out);
  free(r);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_cli <path of the czk executable>\n");
    return 2;
  }
  g_czk = argv[1];
  snprintf(g_dir, sizeof g_dir, "/tmp/czk-test-cli-XXXXXX");
  if (!mkdtemp(g_dir)) {
    perror("mkdtemp");
    return 1;
  }
  if (argc > 2 && strcmp(argv[2], "demo") == 0) { /* test_demo_filecoin: the demo's Filecoin path alone */
    test_demo();
  } else {
    test_comm_d();
    test_poseidon();
    test_sha256_tree();
    test_prove_verify();
    test_bench_backend();
    test_bench_dev_opts();
    test_filecoin();
    test_snap();
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "test_cli: could not remove %s\n", g_dir);
  return czk_test_done("test_cli");
}
