/* codec.c: zcash / bellperson point encodings of G1 and G2.
 *
 * Layout: big-endian coordinates; G2 coordinates are written c1 then c0. Sizes: G1 48 B compressed / 96 B
 * uncompressed, G2 96 B / 192 B. The top three bits of the first byte are flags (p < 2^381 leaves them free):
 *   0x80  compressed encoding (must be set in compressed, clear in uncompressed encodings)
 *   0x40  point at infinity (all other bits and bytes zero)
 *   0x20  compressed only: y is the lexicographically largest of {y, -y} (Fp: y > (p-1)/2; Fp2: by c1, then c0)
 *
 * Decoding checks, in this order, each with its own status: flags (CZK_ERR_BAD_FLAGS: compression bit wrong for
 * the length, sort bit in an uncompressed encoding or on infinity, infinity with any other bit set), coordinate
 * ranges (CZK_ERR_NOT_CANONICAL), a square root for x (CZK_ERR_NO_SQRT, compressed) or the curve equation
 * (CZK_ERR_NOT_ON_CURVE, uncompressed), and subgroup membership (CZK_ERR_NOT_IN_SUBGROUP; skipped by
 * *_unchecked). Encoding never fails; an affine (0, 0) encodes as infinity. */
#include <string.h>

#include "czk/curve.h"

#define FLAG_C 0x80
#define FLAG_I 0x40
#define FLAG_S 0x20

/* true when every byte of in[0..n) is zero, ignoring the flag bits of in[0] */
static bool rest_is_zero(const uint8_t *in, size_t n) {
  uint8_t acc = in[0] & 0x1f;
  for (size_t i = 1; i < n; i++) acc |= in[i];
  return acc == 0;
}

/* Reads a big-endian Fp element whose first byte may carry flags (cleared here). */
static czk_status fp_read(czk_fp *r, const uint8_t *in, bool first) {
  uint8_t b[48];
  memcpy(b, in, 48);
  if (first) b[0] &= 0x1f;
  return czk_fp_from_bytes_be(r, b);
}

static czk_status fp2_read(czk_fp2 *r, const uint8_t *in, bool first) {
  CZK_TRY(fp_read(&r->c1, in, first));
  return fp_read(&r->c0, in + 48, false);
}

static void fp2_write(uint8_t *out, const czk_fp2 *a) {
  czk_fp_to_bytes_be(out, &a->c1);
  czk_fp_to_bytes_be(out + 48, &a->c0);
}

/* Flag validation shared by all decoders. Sets *inf when the encoding is a valid infinity. */
static czk_status check_flags(const uint8_t *in, size_t n, bool compressed, bool *inf) {
  uint8_t f = in[0];
  *inf = false;
  if (!!(f & FLAG_C) != compressed) return CZK_ERR_BAD_FLAGS;
  if (!compressed && (f & FLAG_S)) return CZK_ERR_BAD_FLAGS;
  if (f & FLAG_I) {
    if ((f & FLAG_S) || !rest_is_zero(in, n)) return CZK_ERR_BAD_FLAGS;
    *inf = true;
  }
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ G1 */
void czk_g1_compress(uint8_t out[48], const czk_g1_affine *p) {
  if (czk_g1_affine_is_infinity(p)) {
    memset(out, 0, 48);
    out[0] = FLAG_C | FLAG_I;
    return;
  }
  czk_fp_to_bytes_be(out, &p->x);
  out[0] |= FLAG_C;
  if (czk_fp_is_lexicographically_largest(&p->y)) out[0] |= FLAG_S;
}

void czk_g1_serialize(uint8_t out[96], const czk_g1_affine *p) {
  if (czk_g1_affine_is_infinity(p)) {
    memset(out, 0, 96);
    out[0] = FLAG_I;
    return;
  }
  czk_fp_to_bytes_be(out, &p->x);
  czk_fp_to_bytes_be(out + 48, &p->y);
}

czk_status czk_g1_uncompress(czk_g1_affine *r, const uint8_t in[48]) {
  bool inf;
  CZK_TRY(check_flags(in, 48, true, &inf));
  if (inf) {
    memset(r, 0, sizeof *r);
    return CZK_OK;
  }
  czk_g1_affine p;
  CZK_TRY(fp_read(&p.x, in, true));
  czk_fp rhs, four;
  czk_fp_sqr(&rhs, &p.x);
  czk_fp_mul(&rhs, &rhs, &p.x);
  czk_fp_from_u64(&four, 4);
  czk_fp_add(&rhs, &rhs, &four);
  if (!czk_fp_sqrt(&p.y, &rhs)) return CZK_ERR_NO_SQRT;
  if (czk_fp_is_lexicographically_largest(&p.y) != !!(in[0] & FLAG_S)) czk_fp_neg(&p.y, &p.y);
  if (!czk_g1_affine_in_subgroup(&p)) return CZK_ERR_NOT_IN_SUBGROUP;
  *r = p;
  return CZK_OK;
}

static czk_status g1_deserialize(czk_g1_affine *r, const uint8_t in[96], bool check_subgroup) {
  bool inf;
  CZK_TRY(check_flags(in, 96, false, &inf));
  if (inf) {
    memset(r, 0, sizeof *r);
    return CZK_OK;
  }
  czk_g1_affine p;
  CZK_TRY(fp_read(&p.x, in, true));
  CZK_TRY(fp_read(&p.y, in + 48, false));
  /* (0, 0) is not on the curve, so a missing infinity flag is caught here */
  if (czk_g1_affine_is_infinity(&p) || !czk_g1_affine_is_on_curve(&p)) return CZK_ERR_NOT_ON_CURVE;
  if (check_subgroup && !czk_g1_affine_in_subgroup(&p)) return CZK_ERR_NOT_IN_SUBGROUP;
  *r = p;
  return CZK_OK;
}

czk_status czk_g1_deserialize(czk_g1_affine *r, const uint8_t in[96]) { return g1_deserialize(r, in, true); }
czk_status czk_g1_deserialize_unchecked(czk_g1_affine *r, const uint8_t in[96]) {
  return g1_deserialize(r, in, false);
}

/* ------------------------------------------------------------------------------------------------ G2 */
void czk_g2_compress(uint8_t out[96], const czk_g2_affine *p) {
  if (czk_g2_affine_is_infinity(p)) {
    memset(out, 0, 96);
    out[0] = FLAG_C | FLAG_I;
    return;
  }
  fp2_write(out, &p->x);
  out[0] |= FLAG_C;
  if (czk_fp2_is_lexicographically_largest(&p->y)) out[0] |= FLAG_S;
}

void czk_g2_serialize(uint8_t out[192], const czk_g2_affine *p) {
  if (czk_g2_affine_is_infinity(p)) {
    memset(out, 0, 192);
    out[0] = FLAG_I;
    return;
  }
  fp2_write(out, &p->x);
  fp2_write(out + 96, &p->y);
}

czk_status czk_g2_uncompress(czk_g2_affine *r, const uint8_t in[96]) {
  bool inf;
  CZK_TRY(check_flags(in, 96, true, &inf));
  if (inf) {
    memset(r, 0, sizeof *r);
    return CZK_OK;
  }
  czk_g2_affine p;
  CZK_TRY(fp2_read(&p.x, in, true));
  czk_fp2 rhs, b;
  czk_fp2_sqr(&rhs, &p.x);
  czk_fp2_mul(&rhs, &rhs, &p.x);
  czk_fp_from_u64(&b.c0, 4);
  b.c1 = b.c0; /* 4(u + 1) */
  czk_fp2_add(&rhs, &rhs, &b);
  if (!czk_fp2_sqrt(&p.y, &rhs)) return CZK_ERR_NO_SQRT;
  if (czk_fp2_is_lexicographically_largest(&p.y) != !!(in[0] & FLAG_S)) czk_fp2_neg(&p.y, &p.y);
  if (!czk_g2_affine_in_subgroup(&p)) return CZK_ERR_NOT_IN_SUBGROUP;
  *r = p;
  return CZK_OK;
}

static czk_status g2_deserialize(czk_g2_affine *r, const uint8_t in[192], bool check_subgroup) {
  bool inf;
  CZK_TRY(check_flags(in, 192, false, &inf));
  if (inf) {
    memset(r, 0, sizeof *r);
    return CZK_OK;
  }
  czk_g2_affine p;
  CZK_TRY(fp2_read(&p.x, in, true));
  CZK_TRY(fp2_read(&p.y, in + 96, false));
  if (czk_g2_affine_is_infinity(&p) || !czk_g2_affine_is_on_curve(&p)) return CZK_ERR_NOT_ON_CURVE;
  if (check_subgroup && !czk_g2_affine_in_subgroup(&p)) return CZK_ERR_NOT_IN_SUBGROUP;
  *r = p;
  return CZK_OK;
}

czk_status czk_g2_deserialize(czk_g2_affine *r, const uint8_t in[192]) { return g2_deserialize(r, in, true); }
czk_status czk_g2_deserialize_unchecked(czk_g2_affine *r, const uint8_t in[192]) {
  return g2_deserialize(r, in, false);
}

/* ------------------------------------------------------------------------------------------------ length-checked */
static czk_status check_len(size_t len, size_t want) {
  if (len < want) return CZK_ERR_TRUNCATED;
  if (len > want) return CZK_ERR_SIZE_MISMATCH;
  return CZK_OK;
}

czk_status czk_g1_uncompress_n(czk_g1_affine *r, const uint8_t *in, size_t len) {
  if (!in && len) return CZK_ERR_INVALID_ARG;
  CZK_TRY(check_len(len, 48));
  return czk_g1_uncompress(r, in);
}
czk_status czk_g1_deserialize_n(czk_g1_affine *r, const uint8_t *in, size_t len) {
  if (!in && len) return CZK_ERR_INVALID_ARG;
  CZK_TRY(check_len(len, 96));
  return czk_g1_deserialize(r, in);
}
czk_status czk_g2_uncompress_n(czk_g2_affine *r, const uint8_t *in, size_t len) {
  if (!in && len) return CZK_ERR_INVALID_ARG;
  CZK_TRY(check_len(len, 96));
  return czk_g2_uncompress(r, in);
}
czk_status czk_g2_deserialize_n(czk_g2_affine *r, const uint8_t *in, size_t len) {
  if (!in && len) return CZK_ERR_INVALID_ARG;
  CZK_TRY(check_len(len, 192));
  return czk_g2_deserialize(r, in);
}
