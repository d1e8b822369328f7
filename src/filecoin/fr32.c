/* fr32.c: Filecoin fr32 padding and unpadding (rust-fil-proofs fr32::padding, FR32_PADDING_MAP).
 *
 * The unpadded stream is read as bits, least-significant bit of each byte first. Every full unit of 254 data bits
 * becomes one 32-byte element: bits 0..253 = the data, bits 254 and 255 = 0. A trailing incomplete unit of d < 254
 * bits is written as ceil(d/8) bytes, unused high bits zero. So 127 bytes (4 * 254 bits) <-> 128 bytes exactly, and
 * padded_len(n) = 32*floor(8n/254) + ceil((8n mod 254)/8), unpadded_len(p) = floor((254*floor(p/32) + 8*(p mod 32))/8).
 *
 * The bit copier moves up to 56 bits per step (a 32-byte element = 5 steps). */
#include <string.h>

#include "czk/filecoin.h"

uint64_t czk_fr32_padded_len(uint64_t unpadded) {
  uint64_t full = unpadded / 127, rem = unpadded % 127; /* 127 bytes -> 128, exactly */
  uint64_t bits = rem * 8;
  return full * 128 + (bits / 254) * 32 + ((bits % 254) + 7) / 8;
}

uint64_t czk_fr32_unpadded_len(uint64_t padded) {
  uint64_t full = padded / 128, rem = padded % 128;
  uint64_t bits = (rem / 32) * 254 + (rem % 32) * 8;
  return full * 127 + bits / 8;
}

/* Reads `n` (<= 56) bits of `src` starting at bit offset `bit`; bytes at or past src_len read as zero. */
static uint64_t get_bits(const uint8_t *src, size_t src_len, uint64_t bit, unsigned n) {
  uint64_t byte = bit >> 3;
  unsigned sh = (unsigned)(bit & 7);
  unsigned need = (n + sh + 7) / 8; /* <= 8 bytes */
  uint64_t v = 0;
  for (unsigned i = 0; i < need && byte + i < src_len; i++) v |= (uint64_t)src[byte + i] << (8 * i);
  return (v >> sh) & ((UINT64_C(1) << n) - 1);
}

/* ORs the low `n` (<= 64) bits of v into dst at bit offset `bit` (dst pre-zeroed). */
static void put_bits(uint8_t *dst, uint64_t bit, uint64_t v, unsigned n) {
  while (n) {
    uint64_t byte = bit >> 3;
    unsigned sh = (unsigned)(bit & 7);
    unsigned take = 8 - sh < n ? 8 - sh : n;
    dst[byte] |= (uint8_t)((v & ((1u << take) - 1)) << sh);
    v >>= take;
    n -= take;
    bit += take;
  }
}

/* Copies `nbits` bits from src (bit offset sbit) to dst (bit offset dbit); dst must be zero there. */
static void copy_bits(uint8_t *dst, uint64_t dbit, const uint8_t *src, size_t src_len, uint64_t sbit, uint64_t nbits) {
  while (nbits) {
    unsigned n = nbits < 56 ? (unsigned)nbits : 56;
    put_bits(dst, dbit, get_bits(src, src_len, sbit, n), n);
    dbit += n;
    sbit += n;
    nbits -= n;
  }
}

void czk_fr32_pad(uint8_t *out, const uint8_t *in, size_t in_len) {
  uint64_t out_len = czk_fr32_padded_len(in_len);
  memset(out, 0, (size_t)out_len);
  uint64_t total_bits = (uint64_t)in_len * 8;
  uint64_t sbit = 0, dbit = 0;
  while (sbit < total_bits) {
    uint64_t n = total_bits - sbit < 254 ? total_bits - sbit : 254;
    copy_bits(out, dbit, in, in_len, sbit, n);
    sbit += n;
    dbit += 256;
  }
}

void czk_fr32_unpad(uint8_t *out, const uint8_t *in, size_t padded_len) {
  uint64_t out_len = czk_fr32_unpadded_len(padded_len);
  memset(out, 0, (size_t)out_len);
  uint64_t total_bits = out_len * 8;
  uint64_t sbit = 0, dbit = 0;
  while (dbit < total_bits) {
    uint64_t n = total_bits - dbit < 254 ? total_bits - dbit : 254;
    copy_bits(out, dbit, in, padded_len, sbit, n);
    dbit += n;
    sbit += 256;
  }
}
