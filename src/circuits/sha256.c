/* sha256.c: SHA-256 (FIPS 180-4) and Filecoin's truncated SHA-256 (filecoin-hashers Sha256Function).
 *
 * Compression: 64 rounds; per round 2 Sigma functions, Ch, Maj and 7 additions mod 2^32, message schedule
 * W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] for t >= 16. Padding: 0x80, zeros, 64-bit big-endian bit length.
 * Truncation: digest[31] &= 0x3f (the digest, read as a little-endian integer, is then < 2^254 < r). */
#include <string.h>

#include "czk/hash.h"

const uint32_t czk_sha256_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

const uint32_t czk_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static inline uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }
static inline uint32_t load_be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline void store_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

void czk_sha256_compress(uint32_t state[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++) w[t] = load_be32(block + 4 * t);
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; t++) {
    uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = h + S1 + ch + czk_sha256_k[t] + w[t];
    uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = S0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void czk_sha256_init(czk_sha256_ctx *c) {
  memcpy(c->h, czk_sha256_iv, sizeof c->h);
  c->total = 0;
  c->buf_len = 0;
}

void czk_sha256_update(czk_sha256_ctx *c, const void *data, size_t len) {
  const uint8_t *p = (const uint8_t *)data;
  c->total += len;
  if (c->buf_len) {
    size_t take = 64 - c->buf_len < len ? 64 - c->buf_len : len;
    memcpy(c->buf + c->buf_len, p, take);
    c->buf_len += take;
    p += take;
    len -= take;
    if (c->buf_len < 64) return;
    czk_sha256_compress(c->h, c->buf);
    c->buf_len = 0;
  }
  while (len >= 64) {
    czk_sha256_compress(c->h, p);
    p += 64;
    len -= 64;
  }
  if (len) {
    memcpy(c->buf, p, len);
    c->buf_len = len;
  }
}

void czk_sha256_final(czk_sha256_ctx *c, uint8_t out[32]) {
  uint64_t bits = c->total * 8;
  uint8_t pad[72];
  size_t padlen = (c->buf_len < 56 ? 56 : 120) - c->buf_len;
  memset(pad, 0, sizeof pad);
  pad[0] = 0x80;
  for (int i = 0; i < 8; i++) pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
  czk_sha256_update(c, pad, padlen + 8);
  for (int i = 0; i < 8; i++) store_be32(out + 4 * i, c->h[i]);
}

void czk_sha256(uint8_t out[32], const void *data, size_t len) {
  czk_sha256_ctx c;
  czk_sha256_init(&c);
  czk_sha256_update(&c, data, len);
  czk_sha256_final(&c, out);
}

void czk_fc_sha256(uint8_t out[32], const void *data, size_t len) {
  czk_sha256(out, data, len);
  out[31] &= 0x3f;
}

void czk_fc_sha256_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]) {
  /* 64 bytes of data = one block + one padding block; the padding block is the same for every node. */
  static const uint8_t pad_block[64] = {0x80, [62] = 0x02, [63] = 0x00}; /* length 512 bits = 0x200 */
  uint32_t h[8];
  uint8_t block[64];
  memcpy(h, czk_sha256_iv, sizeof h);
  memcpy(block, left, 32);
  memcpy(block + 32, right, 32);
  czk_sha256_compress(h, block);
  czk_sha256_compress(h, pad_block);
  for (int i = 0; i < 8; i++) store_be32(out + 4 * i, h[i]);
  out[31] &= 0x3f;
}
