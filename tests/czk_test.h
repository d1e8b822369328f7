/* czk_test.h: a tiny test harness shared by every CTest binary: CHECK macros that count failures, a seeded
 * deterministic RNG (splitmix64 / xoshiro256**), and helpers to find the shared fixtures. */
#ifndef CZK_TEST_H
#define CZK_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Atomic: tests CHECK from several threads (client threads, waiters); a plain int raced (TSan, test_rpc). */
static _Atomic int czk_test_failures;
static _Atomic int czk_test_checks;

#define CHECK(cond)                                                                                                   \
  do {                                                                                                                \
    czk_test_checks++;                                                                                                \
    if (!(cond)) {                                                                                                    \
      if (++czk_test_failures <= 50) fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
    }                                                                                                                 \
  } while (0)

#define CHECK_MSG(cond, ...)                                                                                          \
  do {                                                                                                                \
    czk_test_checks++;                                                                                                \
    if (!(cond)) {                                                                                                    \
      if (++czk_test_failures <= 50) {                                                                                \
        fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                                      \
        fprintf(stderr, __VA_ARGS__);                                                                                 \
        fputc('\n', stderr);                                                                                          \
      }                                                                                                               \
    }                                                                                                                 \
  } while (0)

#define CHECK_EQ_INT(a, b) CHECK_MSG((long long)(a) == (long long)(b), "%lld != %lld", (long long)(a), (long long)(b))

/* Exit code: 0 when every check passed. */
static inline int czk_test_done(const char *name) {
  fprintf(stderr, "%s: %d checks, %d failures\n", name, (int)czk_test_checks, (int)czk_test_failures);
  return czk_test_failures ? 1 : 0;
}

/* Deterministic RNG: xoshiro256** seeded with splitmix64. */
typedef struct {
  uint64_t s[4];
} czk_test_rng;

static inline uint64_t czk__splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static inline void czk_test_rng_seed(czk_test_rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = czk__splitmix64(&seed);
}
static inline uint64_t czk_test_rng_next(czk_test_rng *r) {
  uint64_t *s = r->s;
  uint64_t x = s[1] * 5;
  uint64_t res = ((x << 7) | (x >> 57)) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return res;
}
static inline void czk_test_rng_bytes(czk_test_rng *r, void *out, size_t n) {
  uint8_t *p = (uint8_t *)out;
  while (n) {
    uint64_t v = czk_test_rng_next(r);
    size_t k = n < 8 ? n : 8;
    memcpy(p, &v, k);
    p += k;
    n -= k;
  }
}

/* Path of a file under the shared fixtures directory (CZK_SHARED_DIR env, set by CTest). Returns a static buffer. */
/* The whole file, NUL-terminated (heap; NULL when unreadable); *len = its size. */
static inline char *czk_test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n + 1))) {
    *len = fread(b, 1, (size_t)n, f);
    b[*len] = 0;
  }
  fclose(f);
  return b;
}

/* Standard base64 (RFC 4648, '=' padded) of in[0..n), NUL-terminated (heap; NULL when out of memory). */
static inline char *czk_test_base64(const void *in, size_t n) {
  static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const uint8_t *b = (const uint8_t *)in;
  char *o = (char *)malloc(4 * (n / 3 + 1) + 1), *q = o;
  if (!o) return NULL;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
    *q++ = t[v >> 18], *q++ = t[(v >> 12) & 63];
    *q++ = i + 1 < n ? t[(v >> 6) & 63] : '=';
    *q++ = i + 2 < n ? t[v & 63] : '=';
  }
  *q = 0;
  return o;
}

static inline const char *czk_test_shared_path(const char *rel) {
  static char buf[4096];
  const char *d = getenv("CZK_SHARED_DIR");
  snprintf(buf, sizeof buf, "%s/%s", d ? d : "../shared", rel);
  return buf;
}

#endif
