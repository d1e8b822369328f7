/* binfile.h: the cs layer's reader of the iden3 binary container (.r1cs, .wtns, .zkey: magic, version, sections), a
 * bounds-checked little-endian cursor and the prime-field header check; used by src/cs/circom.c and by the zkey reader
 * of the groth16 layer (which sits above cs). File mapping: core/mapfile.h.
 *
 * Container: magic[4] | u32 version | u32 nSections | nSections x { u32 id | u64 size | body[size] } (little-endian).
 * czk__binfile_parse accepts a buffer only when the table lies inside it, the sections tile it exactly (no trailing
 * bytes), every id is allowed by the caller's mask and no id repeats. The cursor never reads past its end. */
#ifndef CZK_CS_BINFILE_H
#define CZK_CS_BINFILE_H

#include <string.h>

#include "core/mapfile.h"
#include "czk/circom.h"

#define CZK__BINFILE_MAX_ID 15

typedef struct czk__binsec {
  const uint8_t *p; /* NULL when absent */
  uint64_t size;
} czk__binsec;

typedef struct czk__binfile {
  uint32_t version;
  czk__binsec sec[CZK__BINFILE_MAX_ID + 1]; /* by id */
} czk__binfile;

/* allowed_ids: bit i set = section id i may appear (ids above CZK__BINFILE_MAX_ID never may).
 * Statuses: CZK_ERR_TRUNCATED (buffer ends inside the preamble, the table or a section), CZK_ERR_FORMAT (magic,
 * duplicate or unknown id, trailing bytes), CZK_ERR_UNSUPPORTED (version 0 or > max_version). */
czk_status czk__binfile_parse(czk__binfile *bf, const uint8_t *buf, size_t len, const char magic[4],
                              uint32_t max_version, uint32_t allowed_ids);

typedef struct czk__cursor {
  const uint8_t *p;
  size_t left;
} czk__cursor;

static inline void czk__cursor_init(czk__cursor *c, const czk__binsec *s) {
  c->p = s->p;
  c->left = (size_t)s->size;
}
static inline czk_status czk__cursor_u32(czk__cursor *c, uint32_t *v) {
  if (c->left < 4) return CZK_ERR_TRUNCATED;
  *v = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 | (uint32_t)c->p[3] << 24;
  c->p += 4;
  c->left -= 4;
  return CZK_OK;
}
static inline czk_status czk__cursor_u64(czk__cursor *c, uint64_t *v) {
  uint32_t lo, hi;
  CZK_TRY(czk__cursor_u32(c, &lo));
  CZK_TRY(czk__cursor_u32(c, &hi));
  *v = (uint64_t)hi << 32 | lo;
  return CZK_OK;
}
/* Points *out at the next n bytes (no copy). */
static inline czk_status czk__cursor_take(czk__cursor *c, size_t n, const uint8_t **out) {
  if (c->left < n) return CZK_ERR_TRUNCATED;
  *out = c->p;
  c->p += n;
  c->left -= n;
  return CZK_OK;
}

/* True when the n*8 little-endian bytes b equal the integer of the n limbs (e.g. czk_fr_modulus, czk_fp_modulus). */
static inline bool czk__le_bytes_equal_limbs(const uint8_t *b, const uint64_t *limbs, size_t n) {
  for (size_t i = 0; i < n * 8; i++)
    if (b[i] != (uint8_t)(limbs[i / 8] >> (8 * (i % 8)))) return false;
  return true;
}

/* Header field check shared by r1cs, wtns and zkey: u32 n8 followed by the prime; CZK_ERR_UNSUPPORTED unless
 * n8 = 32 and prime = r (BLS12-381 scalar field). */
czk_status czk__circom_read_prime_r(czk__cursor *c);

#endif
