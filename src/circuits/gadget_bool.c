/* gadget_bool.c: bellpepper's Boolean / AllocatedBit, UInt32 and MultiEq gadgets, constraint for constraint.
 *
 * AllocatedBit ops (1 aux + 1 constraint each):
 *   alloc            (1 - a) * a = 0            alloc_conditionally (1 - f - a) * a = 0
 *   xor              (a + a) * b = a + b - c    and                 a * b = c
 *   and_not          a * (1 - b) = c            nor                 (1 - a) * (1 - b) = c
 * Boolean ops dispatch on Constant / Is / Not exactly as bellpepper (argument order preserved, since it shapes the
 * linear combinations). ch: a (b - c) = ch - c; maj: bc = b and c, then (2bc - b - c) a = bc - maj.
 * UInt32::addmany of n operands: bitlen(n (2^32 - 1)) result bits; the equality sum(ops) = sum(2^i r_i) is batched
 * by MultiEq into constraints lhs * 1 = rhs, each holding equalities shifted by 2^bits_used while bits_used + the
 * next width < 254. */
#include <pthread.h>

#include "circuits/gadget_internal.h"

/* ------------------------------------------------------------------------------------------------ constants */
static czk_fr g_pow2[256], g_neg_pow2[256], g_neg_one;
static pthread_once_t g_consts_once = PTHREAD_ONCE_INIT;

static void consts_init(void) {
  czk_fr_set_one(&g_pow2[0]);
  for (int k = 1; k < 256; k++) czk_fr_dbl(&g_pow2[k], &g_pow2[k - 1]);
  for (int k = 0; k < 256; k++) czk_fr_neg(&g_neg_pow2[k], &g_pow2[k]);
  g_neg_one = g_neg_pow2[0];
}

const czk_fr *czk__fr_pow2(unsigned k) {
  pthread_once(&g_consts_once, consts_init);
  return &g_pow2[k & 255];
}
const czk_fr *czk__fr_neg_pow2(unsigned k) {
  pthread_once(&g_consts_once, consts_init);
  return &g_neg_pow2[k & 255];
}
const czk_fr *czk__fr_neg_one(void) {
  pthread_once(&g_consts_once, consts_init);
  return &g_neg_one;
}

void czk_lc_add_bool(czk_lc *lc, czk_bool b, const czk_fr *coeff) {
  czk_fr neg;
  switch (b.kind) {
  case CZK_BOOL_CONST:
    if (b.value) czk_lc_add(lc, CZK_VAR_ONE, coeff);
    break;
  case CZK_BOOL_IS: czk_lc_add(lc, b.var, coeff); break;
  default:
    czk_fr_neg(&neg, coeff);
    czk_lc_add(lc, CZK_VAR_ONE, coeff);
    czk_lc_add(lc, b.var, &neg);
    break;
  }
}

/* ------------------------------------------------------------------------------------------------ AllocatedBit */
static czk_status alloc_bit_var(czk_cs *cs, czk_bool *out, bool value) {
  out->kind = CZK_BOOL_IS;
  out->value = (uint8_t)value;
  return czk_cs_alloc(cs, &out->var, value ? &czk_fr_one_v : &czk_fr_zero_v);
}

czk_status czk_bit_alloc(czk_cs *cs, czk_bool *out, bool value) {
  CZK_TRY(alloc_bit_var(cs, out, value));
  czk__gl a, b, c;
  czk__gl_init(&a);
  czk__gl_init(&b);
  czk__gl_init(&c);
  if (czk__want_lc(cs)) {
    czk__gl_add_var(&a, CZK_VAR_ONE);
    czk__gl_sub_var(&a, out->var);
    czk__gl_add_var(&b, out->var);
  }
  return czk__enforce_free(cs, "boolean constraint", &a, &b, &c);
}

czk_status czk_bit_alloc_conditionally(czk_cs *cs, czk_bool *out, bool value, czk_var must_be_false) {
  CZK_TRY(alloc_bit_var(cs, out, value));
  czk__gl a, b, c;
  czk__gl_init(&a);
  czk__gl_init(&b);
  czk__gl_init(&c);
  if (czk__want_lc(cs)) {
    czk__gl_add_var(&a, CZK_VAR_ONE);
    czk__gl_sub_var(&a, must_be_false);
    czk__gl_sub_var(&a, out->var);
    czk__gl_add_var(&b, out->var);
  }
  return czk__enforce_free(cs, "boolean constraint", &a, &b, &c);
}

typedef enum { OP_XOR, OP_AND, OP_AND_NOT, OP_NOR } bit_op;

/* AllocatedBit::{xor, and, and_not, nor} of the allocated bits a and b (their variables and plain values). */
static czk_status bit_op2(czk_cs *cs, czk_bool *out, bit_op op, czk_var a, bool av, czk_var b, bool bv) {
  bool r = op == OP_XOR ? av != bv : op == OP_AND ? (av && bv) : op == OP_AND_NOT ? (av && !bv) : (!av && !bv);
  CZK_TRY(alloc_bit_var(cs, out, r));
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  const char *name = "xor constraint";
  if (czk__want_lc(cs)) switch (op) {
    case OP_XOR:
      czk__gl_add_var(&A, a);
      czk__gl_add_var(&A, a);
      czk__gl_add_var(&B, b);
      czk__gl_add_var(&C, a);
      czk__gl_add_var(&C, b);
      czk__gl_sub_var(&C, out->var);
      break;
    case OP_AND:
      name = "and constraint";
      czk__gl_add_var(&A, a);
      czk__gl_add_var(&B, b);
      czk__gl_add_var(&C, out->var);
      break;
    case OP_AND_NOT:
      name = "and not constraint";
      czk__gl_add_var(&A, a);
      czk__gl_add_var(&B, CZK_VAR_ONE);
      czk__gl_sub_var(&B, b);
      czk__gl_add_var(&C, out->var);
      break;
    case OP_NOR:
      name = "nor constraint";
      czk__gl_add_var(&A, CZK_VAR_ONE);
      czk__gl_sub_var(&A, a);
      czk__gl_add_var(&B, CZK_VAR_ONE);
      czk__gl_sub_var(&B, b);
      czk__gl_add_var(&C, out->var);
      break;
    }
  return czk__enforce_free(cs, name, &A, &B, &C);
}

/* Plain value of the underlying allocated bit of an Is/Not Boolean. */
static inline bool raw_value(czk_bool b) { return b.kind == CZK_BOOL_NOT ? !b.value : b.value; }

/* ------------------------------------------------------------------------------------------------ Boolean */
czk_status czk_bool_xor(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b) {
  if (a.kind == CZK_BOOL_CONST && !a.value) {
    *out = b;
    return czk_cs_status(cs);
  }
  if (b.kind == CZK_BOOL_CONST && !b.value) {
    *out = a;
    return czk_cs_status(cs);
  }
  if (a.kind == CZK_BOOL_CONST) { /* true */
    *out = czk_bool_not(b);
    return czk_cs_status(cs);
  }
  if (b.kind == CZK_BOOL_CONST) {
    *out = czk_bool_not(a);
    return czk_cs_status(cs);
  }
  if (a.kind != b.kind) { /* Is xor Not = not(Is xor bit(Not)), the Is operand first */
    czk_bool is = a.kind == CZK_BOOL_IS ? a : b, nt = a.kind == CZK_BOOL_IS ? b : a;
    CZK_TRY(bit_op2(cs, out, OP_XOR, is.var, raw_value(is), nt.var, raw_value(nt)));
    *out = czk_bool_not(*out);
    return CZK_OK;
  }
  return bit_op2(cs, out, OP_XOR, a.var, raw_value(a), b.var, raw_value(b));
}

czk_status czk_bool_and(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b) {
  if ((a.kind == CZK_BOOL_CONST && !a.value) || (b.kind == CZK_BOOL_CONST && !b.value)) {
    *out = czk_bool_const(false);
    return czk_cs_status(cs);
  }
  if (a.kind == CZK_BOOL_CONST) {
    *out = b;
    return czk_cs_status(cs);
  }
  if (b.kind == CZK_BOOL_CONST) {
    *out = a;
    return czk_cs_status(cs);
  }
  if (a.kind == CZK_BOOL_IS && b.kind == CZK_BOOL_NOT)
    return bit_op2(cs, out, OP_AND_NOT, a.var, raw_value(a), b.var, raw_value(b));
  if (a.kind == CZK_BOOL_NOT && b.kind == CZK_BOOL_IS)
    return bit_op2(cs, out, OP_AND_NOT, b.var, raw_value(b), a.var, raw_value(a));
  if (a.kind == CZK_BOOL_NOT) return bit_op2(cs, out, OP_NOR, a.var, raw_value(a), b.var, raw_value(b));
  return bit_op2(cs, out, OP_AND, a.var, raw_value(a), b.var, raw_value(b));
}

czk_status czk_bool_or(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b) {
  CZK_TRY(czk_bool_and(cs, out, czk_bool_not(a), czk_bool_not(b)));
  *out = czk_bool_not(*out);
  return CZK_OK;
}

/* and(x, y) then not. */
static czk_status nand(czk_cs *cs, czk_bool *out, czk_bool x, czk_bool y) {
  CZK_TRY(czk_bool_and(cs, out, x, y));
  *out = czk_bool_not(*out);
  return CZK_OK;
}

#define IS_CONST(x, v) ((x).kind == CZK_BOOL_CONST && (x).value == (v))

czk_status czk_bool_sha256_ch(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b, czk_bool c) {
  bool value = (a.value && b.value) != (!a.value && c.value);
  if (a.kind == CZK_BOOL_CONST && b.kind == CZK_BOOL_CONST && c.kind == CZK_BOOL_CONST) {
    *out = czk_bool_const(value);
    return czk_cs_status(cs);
  }
  if (IS_CONST(a, 0)) {
    *out = c;
    return czk_cs_status(cs);
  }
  if (IS_CONST(b, 0)) return czk_bool_and(cs, out, czk_bool_not(a), c);
  if (IS_CONST(c, 0)) return czk_bool_and(cs, out, a, b);
  if (IS_CONST(c, 1)) return nand(cs, out, a, czk_bool_not(b));
  if (IS_CONST(b, 1)) return nand(cs, out, czk_bool_not(a), czk_bool_not(c));
  /* a constant true, or all allocated: the general case. */
  CZK_TRY(alloc_bit_var(cs, out, value));
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  if (czk__want_lc(cs)) {
    const czk_fr *one = &czk_fr_one_v, *m1 = czk__fr_neg_one();
    czk__gl_add_bool(&A, b, one, m1);
    czk__gl_add_bool(&A, c, m1, one);
    czk__gl_add_bool(&B, a, one, m1);
    czk__gl_add_var(&C, out->var);
    czk__gl_add_bool(&C, c, m1, one);
  }
  return czk__enforce_free(cs, "ch computation", &A, &B, &C);
}

czk_status czk_bool_sha256_maj(czk_cs *cs, czk_bool *out, czk_bool a, czk_bool b, czk_bool c) {
  bool value = (a.value + b.value + c.value) >= 2;
  if (a.kind == CZK_BOOL_CONST && b.kind == CZK_BOOL_CONST && c.kind == CZK_BOOL_CONST) {
    *out = czk_bool_const(value);
    return czk_cs_status(cs);
  }
  if (IS_CONST(a, 0)) return czk_bool_and(cs, out, b, c);
  if (IS_CONST(b, 0)) return czk_bool_and(cs, out, a, c);
  if (IS_CONST(c, 0)) return czk_bool_and(cs, out, a, b);
  if (IS_CONST(c, 1)) return nand(cs, out, czk_bool_not(a), czk_bool_not(b));
  if (IS_CONST(b, 1)) return nand(cs, out, czk_bool_not(a), czk_bool_not(c));
  if (IS_CONST(a, 1)) return nand(cs, out, czk_bool_not(b), czk_bool_not(c));
  CZK_TRY(alloc_bit_var(cs, out, value)); /* maj is allocated before b and c */
  czk_bool bc;
  CZK_TRY(czk_bool_and(cs, &bc, b, c));
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  if (czk__want_lc(cs)) {
    const czk_fr *one = &czk_fr_one_v, *m1 = czk__fr_neg_one();
    czk__gl_add_bool(&A, bc, one, m1);
    czk__gl_add_bool(&A, bc, one, m1);
    czk__gl_add_bool(&A, b, m1, one);
    czk__gl_add_bool(&A, c, m1, one);
    czk__gl_add_bool(&B, a, one, m1);
    czk__gl_add_bool(&C, bc, one, m1);
    czk__gl_sub_var(&C, out->var);
  }
  return czk__enforce_free(cs, "maj computation", &A, &B, &C);
}

czk_status czk_bool_enforce_equal(czk_cs *cs, czk_bool a, czk_bool b) {
  if (a.kind == CZK_BOOL_CONST && b.kind == CZK_BOOL_CONST) return a.value == b.value ? czk_cs_status(cs) : CZK_ERR_UNSATISFIED;
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  const char *name = "enforce equal";
  bool lcs = czk__want_lc(cs);
  const czk_fr *one = &czk_fr_one_v, *m1 = czk__fr_neg_one();
  if (IS_CONST(a, 1) || IS_CONST(b, 1)) {
    czk_bool x = IS_CONST(a, 1) ? b : a;
    name = "enforce equal to one";
    if (lcs) {
      czk__gl_add_var(&C, CZK_VAR_ONE);
      czk__gl_add_bool(&C, x, m1, one);
    }
  } else if (a.kind == CZK_BOOL_CONST || b.kind == CZK_BOOL_CONST) {
    czk_bool x = a.kind == CZK_BOOL_CONST ? b : a;
    name = "enforce equal to zero";
    if (lcs) czk__gl_add_bool(&C, x, one, m1);
  } else if (lcs) {
    czk__gl_add_bool(&C, a, one, m1);
    czk__gl_add_bool(&C, b, m1, one);
  }
  return czk__enforce_free(cs, name, &A, &B, &C);
}

/* ------------------------------------------------------------------------------------------------ UInt32 */
czk_u32 czk_u32_const(uint32_t v) {
  czk_u32 r;
  for (int i = 0; i < 32; i++) r.bits[i] = czk_bool_const((v >> i) & 1);
  r.value = v;
  return r;
}

czk_status czk_u32_alloc(czk_cs *cs, czk_u32 *out, uint32_t value) {
  for (int i = 0; i < 32; i++) CZK_TRY(czk_bit_alloc(cs, &out->bits[i], (value >> i) & 1));
  out->value = value;
  return CZK_OK;
}

static uint32_t bits_value(const czk_bool bits[32]) {
  uint32_t v = 0;
  for (int i = 0; i < 32; i++) v |= (uint32_t)(bits[i].value & 1) << i;
  return v;
}

czk_u32 czk_u32_from_bits_be(const czk_bool bits[32]) {
  czk_u32 r;
  for (int i = 0; i < 32; i++) r.bits[i] = bits[31 - i];
  r.value = bits_value(r.bits);
  return r;
}

void czk_u32_to_bits_be(czk_bool out[32], const czk_u32 *a) {
  for (int i = 0; i < 32; i++) out[i] = a->bits[31 - i];
}

czk_u32 czk_u32_rotr(const czk_u32 *a, unsigned by) {
  czk_u32 r;
  by %= 32;
  for (unsigned i = 0; i < 32; i++) r.bits[i] = a->bits[(i + by) % 32];
  r.value = by ? (a->value >> by) | (a->value << (32 - by)) : a->value;
  return r;
}

czk_u32 czk_u32_shr(const czk_u32 *a, unsigned by) {
  czk_u32 r;
  by %= 32;
  for (unsigned i = 0; i < 32; i++) r.bits[i] = i + by < 32 ? a->bits[i + by] : czk_bool_const(false);
  r.value = a->value >> by;
  return r;
}

czk_status czk_u32_xor(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b) {
  czk_u32 r;
  for (int i = 0; i < 32; i++) CZK_TRY(czk_bool_xor(cs, &r.bits[i], a->bits[i], b->bits[i]));
  r.value = a->value ^ b->value;
  *out = r;
  return CZK_OK;
}

czk_status czk_u32_sha256_ch(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b, const czk_u32 *c) {
  czk_u32 r;
  for (int i = 0; i < 32; i++) CZK_TRY(czk_bool_sha256_ch(cs, &r.bits[i], a->bits[i], b->bits[i], c->bits[i]));
  r.value = (a->value & b->value) ^ (~a->value & c->value);
  *out = r;
  return CZK_OK;
}

czk_status czk_u32_sha256_maj(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b, const czk_u32 *c) {
  czk_u32 r;
  for (int i = 0; i < 32; i++) CZK_TRY(czk_bool_sha256_maj(cs, &r.bits[i], a->bits[i], b->bits[i], c->bits[i]));
  r.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
  *out = r;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ MultiEq */
#define FR_CAPACITY 254

void czk_multieq_init(czk_multieq *me, czk_cs *cs) {
  me->cs = cs;
  me->bits_used = 0;
  me->ops = 0;
  czk_lc_init(&me->lhs);
  czk_lc_init(&me->rhs);
}

static czk_status multieq_accumulate(czk_multieq *me) {
  czk__gl one;
  czk__gl_init(&one);
  if (czk__want_lc(me->cs)) czk__gl_add_var(&one, CZK_VAR_ONE);
  czk_status st = czk_cs_enforce(me->cs, "multieq", &me->lhs, &one.lc, &me->rhs);
  czk__gl_free(&one);
  czk_lc_clear(&me->lhs);
  czk_lc_clear(&me->rhs);
  me->bits_used = 0;
  me->ops++;
  return st;
}

czk_status czk_multieq_enforce_equal(czk_multieq *me, unsigned num_bits, const czk_lc *lhs, const czk_lc *rhs) {
  if (FR_CAPACITY <= me->bits_used + num_bits) CZK_TRY(multieq_accumulate(me));
  if (FR_CAPACITY <= me->bits_used + num_bits) return CZK_ERR_INVALID_ARG; /* one equality wider than Fr */
  if (czk__want_lc(me->cs)) {
    const czk_fr *k = czk__fr_pow2(me->bits_used);
    czk_fr t;
    for (size_t i = 0; i < lhs->n; i++) {
      czk_fr_mul(&t, &lhs->t[i].coeff, k);
      czk_lc_add(&me->lhs, lhs->t[i].var, &t);
    }
    for (size_t i = 0; i < rhs->n; i++) {
      czk_fr_mul(&t, &rhs->t[i].coeff, k);
      czk_lc_add(&me->rhs, rhs->t[i].var, &t);
    }
  }
  me->bits_used += num_bits;
  return czk_cs_status(me->cs);
}

czk_status czk_multieq_finish(czk_multieq *me) {
  czk_status st = czk_cs_status(me->cs);
  if (me->bits_used > 0) st = multieq_accumulate(me);
  czk_lc_free(&me->lhs);
  czk_lc_free(&me->rhs);
  return st;
}

czk_status czk_u32_addmany(czk_multieq *me, czk_u32 *out, const czk_u32 *ops, size_t n) {
  czk_cs *cs = me->cs;
  if (n < 2 || n > 10) return CZK_ERR_INVALID_ARG;
  bool lcs = czk__want_lc(cs), all_const = true;
  uint64_t sum = 0, max_value = (uint64_t)n * UINT32_MAX;
  czk_lc lc, res;
  czk_lc_init(&lc);
  czk_lc_init(&res);
  for (size_t k = 0; k < n; k++) {
    sum += ops[k].value;
    for (unsigned i = 0; i < 32; i++) {
      czk_bool b = ops[k].bits[i];
      all_const = all_const && b.kind == CZK_BOOL_CONST;
      if (lcs) {
        switch (b.kind) {
        case CZK_BOOL_CONST:
          if (b.value) czk_lc_add(&lc, CZK_VAR_ONE, czk__fr_pow2(i));
          break;
        case CZK_BOOL_IS: czk_lc_add(&lc, b.var, czk__fr_pow2(i)); break;
        default:
          czk_lc_add(&lc, CZK_VAR_ONE, czk__fr_pow2(i));
          czk_lc_add(&lc, b.var, czk__fr_neg_pow2(i));
          break;
        }
      }
    }
  }
  if (all_const) {
    czk_lc_free(&lc);
    *out = czk_u32_const((uint32_t)sum);
    return czk_cs_status(cs);
  }
  czk_u32 r;
  unsigned nbits = 0;
  czk_status st = CZK_OK;
  for (; max_value != 0 && st == CZK_OK; max_value >>= 1, nbits++) {
    czk_bool b;
    st = czk_bit_alloc(cs, &b, (sum >> nbits) & 1);
    if (st != CZK_OK) break;
    if (lcs) czk_lc_add(&res, b.var, czk__fr_pow2(nbits));
    if (nbits < 32) r.bits[nbits] = b;
  }
  if (st == CZK_OK) st = czk_multieq_enforce_equal(me, nbits, &lc, &res);
  czk_lc_free(&lc);
  czk_lc_free(&res);
  if (st != CZK_OK) return st;
  r.value = (uint32_t)sum;
  *out = r;
  return CZK_OK;
}
