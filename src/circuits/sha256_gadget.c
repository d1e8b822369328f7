/* sha256_gadget.c: bellpepper's SHA-256 circuit (sha256.rs), constraint for constraint.
 *
 * Message schedule: w[i] = addmany(w[i-16], s0, w[i-7], s1) with s0/s1 from rotations and shifts (xor: 1 constraint
 * per allocated bit pair, 0 with constants). Rounds keep `a` and `e` deferred: their operand lists
 * (temp1 + d, temp1 + temp2) are added only when the value is needed (next round, or the final h0/h4 additions with
 * the previous state), so each round costs two addmany. All additions share one MultiEq, emitted when full and at the
 * end. One compression of a fully allocated block: 25,840 constraints; SHA-256 of 512 allocated bits (two blocks,
 * the second constant): 44,874.
 * Witness mode (no combinations wanted): the same schedule natively on words (see "witness mode" below): per allocated
 * bit a byte appended to a buffer and, per 4096, one czk_cs_witness_bits call; no Boolean structs, no cs calls per
 * bit. */
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

/* ------------------------------------------------------------------------------------------------ witness mode */
/* In witness mode (no combinations wanted) the same synthesis runs natively on 32-bit words: each word is its value v,
 * a mask c of its constant bits and a mask n of its Not bits (bits that are the negation of an allocated bit), which
 * is all that decides bellpepper's constant folding; every bit the gadget would allocate is appended, in the gadget's
 * order, to a buffer of 0/1 values and written by czk_cs_witness_bits with the constraints counted. The values are
 * SHA-256's intermediate bits. Word results of additions are fresh consecutive variables (var0 .. var0 + 31), which
 * is how the output Booleans get their variables. Exactness: tests/filecoin/test_witness.c (w == the evaluator's). */
#define WV_NONE UINT32_MAX

typedef struct {
  uint32_t v, c, n; /* value, constant bits, Not bits (n & c == 0) */
  uint32_t var0;    /* fresh consecutive variables of an addition's result, else WV_NONE */
} wword;

typedef struct {
  czk_cs *cs;
  uint32_t next;      /* the variable of the next allocation */
  uint64_t rows;      /* constraints not yet counted */
  unsigned bits_used; /* the compression's MultiEq */
  size_t nb;
  uint8_t buf[4096];
} wsink;

static void ws_flush(wsink *s) {
  if (s->nb || s->rows) {
    czk_var first;
    (void)czk_cs_witness_bits(s->cs, &first, s->buf, s->nb, s->rows); /* sticky in cs */
  }
  s->nb = 0;
  s->rows = 0;
}

/* One allocated bit with its boolean constraint (or the constraint of the op that allocates it). */
static inline void ws_bit(wsink *s, uint32_t bit) {
  s->buf[s->nb++] = (uint8_t)bit;
  s->next++;
  s->rows++;
  if (s->nb == sizeof s->buf) ws_flush(s);
}

static inline wword ww_const(uint32_t v) { return (wword){v, UINT32_MAX, 0, WV_NONE}; }

static inline uint32_t rotr32(uint32_t x, unsigned r) { return r ? (x >> r) | (x << (32 - r)) : x; }

static inline wword ww_rotr(wword a, unsigned r) {
  return (wword){rotr32(a.v, r), rotr32(a.c, r), rotr32(a.n, r), WV_NONE};
}

static inline wword ww_shr(wword a, unsigned r) { /* 0 < r < 32: constant false bits shifted in */
  return (wword){a.v >> r, (a.c >> r) | (UINT32_MAX << (32 - r)), a.n >> r, WV_NONE};
}

/* Boolean::xor bit by bit: a constant operand folds (false: the other; true: its negation), else a new bit (Not
 * when exactly one operand is Not) with the xor of the underlying bits. */
static wword ww_xor(wsink *s, wword a, wword b) {
  wword r;
  r.v = a.v ^ b.v;
  r.c = a.c & b.c;
  r.n = (a.n ^ b.n ^ (a.c & a.v) ^ (b.c & b.v)) & ~r.c;
  r.var0 = WV_NONE;
  uint32_t raw = a.v ^ a.n ^ b.v ^ b.n;
  for (uint32_t m = ~a.c & ~b.c; m; m &= m - 1) ws_bit(s, (raw >> __builtin_ctz(m)) & 1);
  return r;
}

/* One Boolean: constant, value, Not. */
typedef struct {
  uint8_t c, v, n;
} wbit;

static inline wbit wb_get(wword w, unsigned i) {
  return (wbit){(uint8_t)((w.c >> i) & 1), (uint8_t)((w.v >> i) & 1), (uint8_t)((w.n >> i) & 1)};
}
static inline void wb_put(wword *w, unsigned i, wbit b) {
  w->v |= (uint32_t)b.v << i, w->c |= (uint32_t)b.c << i, w->n |= (uint32_t)b.n << i;
}
static inline wbit wb_not(wbit b) {
  b.v ^= 1;
  if (!b.c) b.n ^= 1;
  return b;
}
static inline wbit wb_alloc(wsink *s, uint8_t v) {
  ws_bit(s, v);
  return (wbit){0, v, 0};
}
/* Boolean::and: a constant false gives false, a constant true the other; two allocated bits a new bit (and, and_not
 * or nor by their kinds: one allocation, one constraint, value = the conjunction). */
static inline wbit wb_and(wsink *s, wbit x, wbit y) {
  if ((x.c && !x.v) || (y.c && !y.v)) return (wbit){1, 0, 0};
  if (x.c) return y;
  if (y.c) return x;
  return wb_alloc(s, x.v & y.v);
}
static inline wbit wb_nand(wsink *s, wbit x, wbit y) { return wb_not(wb_and(s, x, y)); }

/* Boolean::sha256_ch with bellpepper's constant cases (czk_bool_sha256_ch). */
static wbit wb_ch(wsink *s, wbit a, wbit b, wbit c) {
  uint8_t v = (uint8_t)((a.v & b.v) ^ ((a.v ^ 1) & c.v));
  if (a.c && b.c && c.c) return (wbit){1, v, 0};
  if (a.c && !a.v) return c;
  if (b.c && !b.v) return wb_and(s, wb_not(a), c);
  if (c.c && !c.v) return wb_and(s, a, b);
  if (c.c && c.v) return wb_nand(s, a, wb_not(b));
  if (b.c && b.v) return wb_nand(s, wb_not(a), wb_not(c));
  return wb_alloc(s, v);
}

/* Boolean::sha256_maj (czk_bool_sha256_maj): the general case allocates maj, then b and c (two constraints). */
static wbit wb_maj(wsink *s, wbit a, wbit b, wbit c) {
  uint8_t v = (uint8_t)(a.v + b.v + c.v >= 2);
  if (a.c && b.c && c.c) return (wbit){1, v, 0};
  if (a.c && !a.v) return wb_and(s, b, c);
  if (b.c && !b.v) return wb_and(s, a, c);
  if (c.c && !c.v) return wb_and(s, a, b);
  if (c.c && c.v) return wb_nand(s, wb_not(a), wb_not(b));
  if (b.c && b.v) return wb_nand(s, wb_not(a), wb_not(c));
  if (a.c && a.v) return wb_nand(s, wb_not(b), wb_not(c));
  wbit r = wb_alloc(s, v);
  (void)wb_and(s, b, c);
  return r;
}

static wword ww_ch(wsink *s, wword a, wword b, wword c) {
  uint32_t v = (a.v & b.v) ^ (~a.v & c.v);
  if (!(a.c | b.c | c.c)) { /* all allocated: a new bit each */
    for (unsigned i = 0; i < 32; i++) ws_bit(s, (v >> i) & 1);
    return (wword){v, 0, 0, WV_NONE};
  }
  wword r = {0, 0, 0, WV_NONE};
  for (unsigned i = 0; i < 32; i++) wb_put(&r, i, wb_ch(s, wb_get(a, i), wb_get(b, i), wb_get(c, i)));
  return r;
}

static wword ww_maj(wsink *s, wword a, wword b, wword c) {
  uint32_t v = (a.v & b.v) ^ (a.v & c.v) ^ (b.v & c.v);
  if (!(a.c | b.c | c.c)) { /* all allocated: maj, then b and c, per bit */
    uint32_t bc = b.v & c.v;
    for (unsigned i = 0; i < 32; i++) {
      ws_bit(s, (v >> i) & 1);
      ws_bit(s, (bc >> i) & 1);
    }
    return (wword){v, 0, 0, WV_NONE};
  }
  wword r = {0, 0, 0, WV_NONE};
  for (unsigned i = 0; i < 32; i++) wb_put(&r, i, wb_maj(s, wb_get(a, i), wb_get(b, i), wb_get(c, i)));
  return r;
}

/* UInt32::addmany (czk_u32_addmany) through the compression's MultiEq. */
static wword ww_addmany(wsink *s, const wword *ops, size_t n) {
  uint64_t sum = 0;
  bool all_const = true;
  for (size_t k = 0; k < n; k++) {
    sum += ops[k].v;
    all_const = all_const && ops[k].c == UINT32_MAX;
  }
  if (all_const) return ww_const((uint32_t)sum);
  unsigned nbits = 0;
  for (uint64_t m = (uint64_t)n * UINT32_MAX; m; m >>= 1) nbits++;
  wword r = {(uint32_t)sum, 0, 0, s->next};
  for (unsigned i = 0; i < nbits; i++) ws_bit(s, (unsigned)(sum >> i) & 1);
  if (254 <= s->bits_used + nbits) { /* MultiEq: the pending batch becomes one constraint */
    s->rows++;
    s->bits_used = 0;
  }
  s->bits_used += nbits;
  return r;
}

static wword ww_sigma(wsink *s, wword x, unsigned r1, unsigned r2, unsigned r3, bool shift) {
  wword a = ww_rotr(x, r1), b = ww_rotr(x, r2), c = shift ? ww_shr(x, r3) : ww_rotr(x, r3);
  return ww_xor(s, ww_xor(s, a, b), c);
}

typedef struct {
  bool deferred;
  wword v;
  wword ops[11];
  size_t n;
} wmaybe;

static wword ww_maybe(wsink *s, const wmaybe *m, const wword *extra) {
  if (!m->deferred) return m->v;
  wword ops[11];
  memcpy(ops, m->ops, m->n * sizeof *ops);
  size_t n = m->n;
  if (extra) ops[n++] = *extra;
  return ww_addmany(s, ops, n);
}

/* compress() on words: in 16 words (from the 512 Booleans), cur/out 8 words; out may alias cur. */
static void ww_compress(wsink *s, wword out[8], const wword in[16], const wword cur[8]) {
  wword w[64];
  memcpy(w, in, 16 * sizeof *w);
  s->bits_used = 0;
  for (int i = 16; i < 64; i++) {
    wword ops[4];
    ops[1] = ww_sigma(s, w[i - 15], 7, 18, 3, true);
    ops[3] = ww_sigma(s, w[i - 2], 17, 19, 10, true);
    ops[0] = w[i - 16];
    ops[2] = w[i - 7];
    w[i] = ww_addmany(s, ops, 4);
  }
  wword b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
  wmaybe a = {false, cur[0], {{0}}, 0}, e = {false, cur[4], {{0}}, 0};
  for (int i = 0; i < 64; i++) {
    wword new_e = ww_maybe(s, &e, NULL);
    wword s1 = ww_sigma(s, new_e, 6, 11, 25, false);
    wword ch = ww_ch(s, new_e, f, g);
    wword new_a = ww_maybe(s, &a, NULL);
    wword s0 = ww_sigma(s, new_a, 2, 13, 22, false);
    wword maj = ww_maj(s, new_a, b, c);
    wword temp1[5] = {h, s1, ch, ww_const(czk_sha256_k[i]), w[i]};
    h = g;
    g = f;
    f = new_e;
    e.deferred = true;
    memcpy(e.ops, temp1, sizeof temp1);
    e.ops[5] = d;
    e.n = 6;
    d = c;
    c = b;
    b = new_a;
    a.deferred = true;
    memcpy(a.ops, temp1, sizeof temp1);
    a.ops[5] = s0;
    a.ops[6] = maj;
    a.n = 7;
  }
  wword res[8], pair[2];
  res[0] = ww_maybe(s, &a, &cur[0]);
  const wword *late[3] = {&b, &c, &d}, *late2[3] = {&f, &g, &h};
  for (int k = 0; k < 3; k++) pair[0] = cur[1 + k], pair[1] = *late[k], res[1 + k] = ww_addmany(s, pair, 2);
  res[4] = ww_maybe(s, &e, &cur[4]);
  for (int k = 0; k < 3; k++) pair[0] = cur[5 + k], pair[1] = *late2[k], res[5 + k] = ww_addmany(s, pair, 2);
  if (s->bits_used > 0) s->rows++; /* MultiEq finish */
  memcpy(out, res, sizeof res);
}

static wword ww_of_u32(const czk_u32 *x) {
  wword r = {x->value, 0, 0, WV_NONE};
  for (unsigned i = 0; i < 32; i++) {
    if (x->bits[i].kind == CZK_BOOL_CONST) r.c |= 1u << i;
    else if (x->bits[i].kind == CZK_BOOL_NOT) r.n |= 1u << i;
  }
  return r;
}

static wword ww_of_bits_be(const czk_bool *bits) { /* word bit i = bits[31 - i] */
  czk_u32 u = czk_u32_from_bits_be(bits);
  return ww_of_u32(&u);
}

/* An output word: constant bits, or an addition's fresh variables. */
static czk_status ww_to_u32(czk_u32 *out, wword w) {
  out->value = w.v;
  for (unsigned i = 0; i < 32; i++) {
    bool bit = (w.v >> i) & 1;
    if ((w.c >> i) & 1) {
      out->bits[i] = czk_bool_const(bit);
    } else {
      if (w.var0 == WV_NONE || ((w.n >> i) & 1)) return CZK_ERR_INTERNAL;
      out->bits[i] = (czk_bool){CZK_BOOL_IS, (uint8_t)bit, w.var0 + i};
    }
  }
  return CZK_OK;
}

static void ws_init(wsink *s, czk_cs *cs) {
  s->cs = cs;
  s->next = (uint32_t)czk_cs_num_aux(cs);
  s->rows = 0;
  s->bits_used = 0;
  s->nb = 0;
}

/* Witness mode: the compressions of nblocks padded blocks from state cur (czk_u32), out = the final state. */
static czk_status native_sha256(czk_cs *cs, czk_u32 out[8], const czk_bool *padded, size_t nblocks,
                                const czk_u32 state[8]) {
  wsink *s = malloc(sizeof *s);
  if (!s) return CZK_ERR_NOMEM;
  ws_init(s, cs);
  wword cur[8], in[16];
  for (int i = 0; i < 8; i++) cur[i] = ww_of_u32(&state[i]);
  for (size_t blk = 0; blk < nblocks; blk++) {
    for (int i = 0; i < 16; i++) in[i] = ww_of_bits_be(padded + 512 * blk + 32 * i);
    ww_compress(s, cur, in, cur);
  }
  ws_flush(s);
  free(s);
  CZK_TRY(czk_cs_status(cs));
  for (int i = 0; i < 8; i++) CZK_TRY(ww_to_u32(&out[i], cur[i]));
  return CZK_OK;
}

czk_status czk_sha256_compress_gadget(czk_cs *cs, czk_u32 out[8], const czk_bool in[512], const czk_u32 state[8]) {
  if (!czk_cs_wants_lc(cs)) {
    CZK_TRY(czk_cs_status(cs));
    czk_u32 st[8];
    memcpy(st, state, sizeof st);
    return native_sha256(cs, out, in, 1, st);
  }
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
  czk_status st = czk_cs_status(cs);
  if (st == CZK_OK && !czk_cs_wants_lc(cs)) { /* witness mode: natively, on words */
    st = native_sha256(cs, cur, padded, total / 512, cur);
    free(padded);
    if (st != CZK_OK) return st;
    for (int i = 0; i < 8; i++) czk_u32_to_bits_be(out + 32 * i, &cur[i]);
    return CZK_OK;
  }
  for (size_t blk = 0; blk < total / 512 && st == CZK_OK; blk++)
    st = czk_sha256_compress_gadget(cs, cur, padded + 512 * blk, cur);
  free(padded);
  if (st != CZK_OK) return st;
  for (int i = 0; i < 8; i++) czk_u32_to_bits_be(out + 32 * i, &cur[i]);
  return CZK_OK;
}
