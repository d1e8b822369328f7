/* sha256_gadget.c: bellpepper's SHA-256 circuit (sha256.rs), constraint for constraint.
 *
 * Message schedule: w[i] = addmany(w[i-16], s0, w[i-7], s1) with s0/s1 from rotations and shifts (xor: 1 constraint
 * per allocated bit pair, 0 with constants). Rounds keep `a` and `e` deferred: their operand lists
 * (temp1 + d, temp1 + temp2) are added only when the value is needed (next round, or the final h0/h4 additions with
 * the previous state), so each round costs two addmany. All additions share one MultiEq, emitted when full and at the
 * end. One compression of a fully allocated block: 25,840 constraints; SHA-256 of 512 allocated bits (two blocks,
 * the second constant): 44,874. */
#include "circuits/gadget_internal.h"

typedef struct {
  bool deferred;
  czk_u32 v;        /* concrete value */
  czk_u32 ops[10];  /* deferred operands */
  size_t n;
} maybe_u32;

static czk_status maybe_compute(czk_multieq *me, czk_u32 *out, maybe_u32 *m, const czk_u32 *extra) {
  if (!m->deferred) {
    *out = m->v;
    return czk_cs_status(me->cs);
  }
  czk_u32 ops[11];
  memcpy(ops, m->ops, m->n * sizeof(czk_u32));
  size_t n = m->n;
  if (extra) ops[n++] = *extra;
  return czk_u32_addmany(me, out, ops, n);
}

/* x.rotr(r1) xor x.rotr(r2) xor (shift ? x.shr(r3) : x.rotr(r3)) */
static czk_status sigma(czk_cs *cs, czk_u32 *out, const czk_u32 *x, unsigned r1, unsigned r2, unsigned r3, bool shift) {
  czk_u32 a = czk_u32_rotr(x, r1), b = czk_u32_rotr(x, r2), c = shift ? czk_u32_shr(x, r3) : czk_u32_rotr(x, r3);
  CZK_TRY(czk_u32_xor(cs, &a, &a, &b));
  return czk_u32_xor(cs, out, &a, &c);
}

static czk_status compress(czk_multieq *me, czk_u32 out[8], const czk_bool in[512], const czk_u32 cur[8]) {
  czk_cs *cs = me->cs;
  czk_u32 *w = malloc(64 * sizeof *w);
  maybe_u32 *a = malloc(sizeof *a), *e = malloc(sizeof *e);
  czk_status st = (w && a && e) ? CZK_OK : CZK_ERR_NOMEM;
  for (int i = 0; i < 16 && st == CZK_OK; i++) w[i] = czk_u32_from_bits_be(in + 32 * i);
  for (int i = 16; i < 64 && st == CZK_OK; i++) {
    czk_u32 ops[4];
    st = sigma(cs, &ops[1], &w[i - 15], 7, 18, 3, true);
    if (st == CZK_OK) st = sigma(cs, &ops[3], &w[i - 2], 17, 19, 10, true);
    ops[0] = w[i - 16];
    ops[2] = w[i - 7];
    if (st == CZK_OK) st = czk_u32_addmany(me, &w[i], ops, 4);
  }
  czk_u32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
  if (st == CZK_OK) {
    a->deferred = false;
    a->v = cur[0];
    e->deferred = false;
    e->v = cur[4];
  }
  for (int i = 0; i < 64 && st == CZK_OK; i++) {
    czk_u32 new_e, new_a, s1, ch, s0, maj;
    st = maybe_compute(me, &new_e, e, NULL);
    if (st == CZK_OK) st = sigma(cs, &s1, &new_e, 6, 11, 25, false);
    if (st == CZK_OK) st = czk_u32_sha256_ch(cs, &ch, &new_e, &f, &g);
    if (st == CZK_OK) st = maybe_compute(me, &new_a, a, NULL);
    if (st == CZK_OK) st = sigma(cs, &s0, &new_a, 2, 13, 22, false);
    if (st == CZK_OK) st = czk_u32_sha256_maj(cs, &maj, &new_a, &b, &c);
    if (st != CZK_OK) break;
    /* temp1 = [h, S1, ch, K[i], w[i]]; e = temp1 + [d]; a = temp1 + [S0, maj] */
    czk_u32 temp1[5] = {h, s1, ch, czk_u32_const(czk_sha256_k[i]), w[i]};
    h = g;
    g = f;
    f = new_e;
    e->deferred = true;
    memcpy(e->ops, temp1, sizeof temp1);
    e->ops[5] = d;
    e->n = 6;
    d = c;
    c = b;
    b = new_a;
    a->deferred = true;
    memcpy(a->ops, temp1, sizeof temp1);
    a->ops[5] = s0;
    a->ops[6] = maj;
    a->n = 7;
  }
  czk_u32 res[8];
  if (st == CZK_OK) st = maybe_compute(me, &res[0], a, &cur[0]);
  czk_u32 pairs[3][2] = {{cur[1], b}, {cur[2], c}, {cur[3], d}};
  for (int k = 0; k < 3 && st == CZK_OK; k++) st = czk_u32_addmany(me, &res[1 + k], pairs[k], 2);
  if (st == CZK_OK) st = maybe_compute(me, &res[4], e, &cur[4]);
  czk_u32 pairs2[3][2] = {{cur[5], f}, {cur[6], g}, {cur[7], h}};
  for (int k = 0; k < 3 && st == CZK_OK; k++) st = czk_u32_addmany(me, &res[5 + k], pairs2[k], 2);
  if (st == CZK_OK) memcpy(out, res, sizeof res);
  free(w);
  free(a);
  free(e);
  return st;
}

czk_status czk_sha256_compress_gadget(czk_cs *cs, czk_u32 out[8], const czk_bool in[512], const czk_u32 state[8]) {
  czk_multieq me;
  czk_multieq_init(&me, cs);
  czk_status st = compress(&me, out, in, state);
  czk_status st2 = czk_multieq_finish(&me); /* the MultiEq is dropped at the end of the compression function */
  return st != CZK_OK ? st : st2;
}

czk_status czk_sha256_gadget(czk_cs *cs, czk_bool out[256], const czk_bool *in, size_t nbits) {
  if (nbits % 8) return CZK_ERR_INVALID_ARG;
  size_t total = nbits + 1;
  while ((total + 64) % 512) total++;
  total += 64;
  czk_bool *padded = malloc(total * sizeof *padded);
  if (!padded) return CZK_ERR_NOMEM;
  memcpy(padded, in, nbits * sizeof *padded);
  padded[nbits] = czk_bool_const(true);
  for (size_t i = nbits + 1; i < total - 64; i++) padded[i] = czk_bool_const(false);
  for (int i = 0; i < 64; i++) padded[total - 64 + (size_t)i] = czk_bool_const(((uint64_t)nbits >> (63 - i)) & 1);
  czk_u32 cur[8];
  for (int i = 0; i < 8; i++) cur[i] = czk_u32_const(czk_sha256_iv[i]);
  czk_status st = CZK_OK;
  for (size_t blk = 0; blk < total / 512 && st == CZK_OK; blk++)
    st = czk_sha256_compress_gadget(cs, cur, padded + 512 * blk, cur);
  free(padded);
  if (st != CZK_OK) return st;
  for (int i = 0; i < 8; i++) czk_u32_to_bits_be(out + 32 * i, &cur[i]);
  return CZK_OK;
}
