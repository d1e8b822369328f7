/* gadget_num.c: bellpepper AllocatedNum operations, multipack, and the storage-proofs constraint / insertion gadgets.
 *
 * Constraints (bellpepper-core num.rs, bellpepper multipack.rs, storage-proofs-core gadgets):
 *   inputize            x * 1 = a                        add     (a + b) * 1 = s
 *   mul                 a * b = p                        square  a * a = s
 *   assert_nonzero      a * inv = 1                      equal   a * 1 = b
 *   to_bits_le          255 bits + 0 * 0 = sum 2^i b_i - a
 *   to_bits_le_strict   bits of a compared with r - 1 by runs of ones: bits under a one of r - 1 are plain bits,
 *                       each run is AND-ed (k-ary AND chained with the previous run), and each bit under a zero of
 *                       r - 1 is allocated with (1 - run - b) * b = 0; then the same unpacking constraint.
 *   conditionally_reverse  (a - b) * cond = a - c,  (b - a) * cond = b - d
 *   pick                (b - a) * cond = b - c
 *   pack_into_inputs    per 254 bits: (sum 2^i bit_i) * 1 = input
 * insert: sizes 2 (2 picks), 4 (8 picks), 8 (nor + and + 20 picks) hand-optimized as in insertion.rs; otherwise
 * size * (size - 1) picks through select. */
#include "circuits/gadget_internal.h"

czk_status czk_num_alloc(czk_cs *cs, czk_num *out, const czk_fr *value) {
  out->value = *value;
  return czk_cs_alloc(cs, &out->var, value);
}

czk_status czk_num_alloc_input(czk_cs *cs, czk_num *out, const czk_fr *value) {
  out->value = *value;
  return czk_cs_alloc_input(cs, &out->var, value);
}

/* Enforces (a) * (b) = (c) for single-variable combinations given as up to two signed terms each. */
typedef struct {
  czk_var v[2];
  int8_t s[2]; /* +1, -1, 0 = absent */
} small_lc;

static void add_small(czk__gl *g, const small_lc *x) {
  for (int i = 0; i < 2; i++) {
    if (x->s[i] > 0) czk__gl_add_var(g, x->v[i]);
    else if (x->s[i] < 0) czk__gl_sub_var(g, x->v[i]);
  }
}

static czk_status enforce_small(czk_cs *cs, const char *name, small_lc a, small_lc b, small_lc c) {
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  if (czk__want_lc(cs)) {
    add_small(&A, &a);
    add_small(&B, &b);
    add_small(&C, &c);
  }
  return czk__enforce_free(cs, name, &A, &B, &C);
}

#define LC1(x) ((small_lc){{(x), 0}, {1, 0}})
#define LC2(x, y) ((small_lc){{(x), (y)}, {1, 1}})
#define LCD(x, y) ((small_lc){{(x), (y)}, {1, -1}}) /* x - y */

czk_status czk_num_inputize(czk_cs *cs, const czk_num *a) {
  czk_var in;
  CZK_TRY(czk_cs_alloc_input(cs, &in, &a->value));
  return enforce_small(cs, "enforce input is correct", LC1(in), LC1(CZK_VAR_ONE), LC1(a->var));
}

czk_status czk_num_add(czk_cs *cs, czk_num *out, const czk_num *a, const czk_num *b) {
  czk_fr v;
  czk_fr_add(&v, &a->value, &b->value);
  czk_var x = a->var, y = b->var;
  CZK_TRY(czk_num_alloc(cs, out, &v));
  return enforce_small(cs, "addition constraint", LC2(x, y), LC1(CZK_VAR_ONE), LC1(out->var));
}

czk_status czk_num_mul(czk_cs *cs, czk_num *out, const czk_num *a, const czk_num *b) {
  czk_fr v;
  czk_fr_mul(&v, &a->value, &b->value);
  czk_var x = a->var, y = b->var;
  CZK_TRY(czk_num_alloc(cs, out, &v));
  return enforce_small(cs, "multiplication constraint", LC1(x), LC1(y), LC1(out->var));
}

czk_status czk_num_square(czk_cs *cs, czk_num *out, const czk_num *a) {
  czk_fr v;
  czk_fr_sqr(&v, &a->value);
  czk_var x = a->var;
  CZK_TRY(czk_num_alloc(cs, out, &v));
  return enforce_small(cs, "squaring constraint", LC1(x), LC1(x), LC1(out->var));
}

czk_status czk_num_assert_nonzero(czk_cs *cs, const czk_num *a) {
  czk_fr inv;
  if (czk_cs_has_values(cs) && czk_fr_is_zero(&a->value)) return CZK_ERR_UNSATISFIED; /* DivisionByZero */
  czk_fr_inv(&inv, &a->value);
  czk_var v;
  CZK_TRY(czk_cs_alloc(cs, &v, &inv));
  return enforce_small(cs, "nonzero assertion constraint", LC1(a->var), LC1(v), LC1(CZK_VAR_ONE));
}

czk_status czk_num_enforce_equal(czk_cs *cs, const czk_num *a, const czk_num *b) {
  return enforce_small(cs, "equal", LC1(a->var), LC1(CZK_VAR_ONE), LC1(b->var));
}

/* Enforces (x - y) * cond = (x - z). */
static czk_status enforce_select(czk_cs *cs, const char *name, czk_var x, czk_var y, czk_bool cond, czk_var z) {
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  if (czk__want_lc(cs)) {
    czk__gl_add_var(&A, x);
    czk__gl_sub_var(&A, y);
    czk__gl_add_bool(&B, cond, &czk_fr_one_v, czk__fr_neg_one());
    czk__gl_add_var(&C, x);
    czk__gl_sub_var(&C, z);
  }
  return czk__enforce_free(cs, name, &A, &B, &C);
}

czk_status czk_num_conditionally_reverse(czk_cs *cs, czk_num *c, czk_num *d, const czk_num *a, const czk_num *b,
                                         czk_bool cond) {
  czk_num A = *a, B = *b, C, D;
  CZK_TRY(czk_num_alloc(cs, &C, cond.value ? &B.value : &A.value));
  CZK_TRY(enforce_select(cs, "first conditional reversal", A.var, B.var, cond, C.var));
  CZK_TRY(czk_num_alloc(cs, &D, cond.value ? &A.value : &B.value));
  CZK_TRY(enforce_select(cs, "second conditional reversal", B.var, A.var, cond, D.var));
  *c = C;
  *d = D;
  return CZK_OK;
}

czk_status czk_num_pick(czk_cs *cs, czk_num *out, czk_bool cond, const czk_num *a, const czk_num *b) {
  czk_num A = *a, B = *b, C;
  CZK_TRY(czk_num_alloc(cs, &C, cond.value ? &A.value : &B.value));
  CZK_TRY(enforce_select(cs, "pick", B.var, A.var, cond, C.var));
  *out = C;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ bits */
static bool fr_bit(const uint64_t raw[4], unsigned i) { return (raw[i >> 6] >> (i & 63)) & 1; }

/* 0 * 0 = sum_i 2^i bits[i] - a */
static czk_status unpacking_constraint(czk_cs *cs, const czk_bool *bits, size_t n, czk_var a) {
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  if (czk__want_lc(cs)) {
    for (size_t i = 0; i < n; i++) czk__gl_add(&C, bits[i].var, czk__fr_pow2((unsigned)i));
    czk__gl_sub_var(&C, a);
  }
  return czk__enforce_free(cs, "unpacking constraint", &A, &B, &C);
}

czk_status czk_num_to_bits_le(czk_cs *cs, czk_bool out[255], const czk_num *a) {
  uint64_t raw[4];
  czk_fr_to_raw(raw, &a->value);
  czk_var av = a->var;
  for (unsigned i = 0; i < 255; i++) CZK_TRY(czk_bit_alloc(cs, &out[i], fr_bit(raw, i)));
  return unpacking_constraint(cs, out, 255, av);
}

czk_status czk_num_to_bits_le_strict(czk_cs *cs, czk_bool out[255], const czk_num *a) {
  uint64_t raw[4], rm1[4];
  czk_fr_to_raw(raw, &a->value);
  memcpy(rm1, czk_fr_modulus, sizeof rm1);
  rm1[0] -= 1; /* r is odd */
  czk_var av = a->var;
  czk_bool run[255], last_run;
  size_t nrun = 0;
  bool have_last = false;
  /* Bits from the most significant one of r - 1 (bit 254) down to bit 0; result[k] is bit 254 - k. */
  for (int bit = 254; bit >= 0; bit--) {
    bool a_bit = fr_bit(raw, (unsigned)bit);
    czk_bool *dst = &out[bit];
    if (fr_bit(rm1, (unsigned)bit)) {
      CZK_TRY(czk_bit_alloc(cs, dst, a_bit));
      run[nrun++] = *dst;
    } else {
      if (nrun) {
        if (have_last) run[nrun++] = last_run;
        /* k-ary AND: cur = run[0]; cur = and(cur, run[i]) for i >= 1 */
        czk_bool cur = run[0];
        for (size_t i = 1; i < nrun; i++) {
          czk_bool next;
          CZK_TRY(czk_bool_and(cs, &next, cur, run[i])); /* both Is: AllocatedBit::and */
          cur = next;
        }
        last_run = cur;
        have_last = true;
        nrun = 0;
      }
      CZK_TRY(czk_bit_alloc_conditionally(cs, dst, a_bit, last_run.var));
    }
  }
  return unpacking_constraint(cs, out, 255, av);
}

/* ------------------------------------------------------------------------------------------------ multipack */
static void num_from_bits(czk_fr *value, czk__gl *g, const czk_bool *bits, size_t n, bool lcs) {
  czk_fr_set_zero(value);
  for (size_t i = 0; i < n; i++) {
    if (bits[i].value) czk_fr_add(value, value, czk__fr_pow2((unsigned)i));
    if (lcs) czk__gl_add_bool(g, bits[i], czk__fr_pow2((unsigned)i), czk__fr_neg_pow2((unsigned)i));
  }
}

static czk_status pack_one(czk_cs *cs, czk_var *out, czk_fr *value, const czk_bool *bits, size_t n, bool input) {
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  bool lcs = czk__want_lc(cs);
  num_from_bits(value, &A, bits, n, lcs);
  czk_status st = input ? czk_cs_alloc_input(cs, out, value) : czk_cs_alloc(cs, out, value);
  if (st != CZK_OK) {
    czk__gl_free(&A);
    return st;
  }
  if (lcs) {
    czk__gl_add_var(&B, CZK_VAR_ONE);
    czk__gl_add_var(&C, *out);
  }
  return czk__enforce_free(cs, "packing constraint", &A, &B, &C);
}

czk_status czk_pack_into_inputs(czk_cs *cs, const czk_bool *bits, size_t n) {
  for (size_t off = 0; off < n; off += 254) {
    czk_var v;
    czk_fr value;
    CZK_TRY(pack_one(cs, &v, &value, bits + off, n - off < 254 ? n - off : 254, true));
  }
  return czk_cs_status(cs);
}

czk_status czk_pack_bits(czk_cs *cs, czk_num *out, const czk_bool *bits, size_t n) {
  return pack_one(cs, &out->var, &out->value, bits, n < 254 ? n : 254, false);
}

/* ------------------------------------------------------------------------------------------------ insertion */
czk_status czk_fc_select(czk_cs *cs, czk_num *out, const czk_num *from, const czk_bool *bits, size_t nbits) {
  if (nbits == 0 || nbits > 7) return CZK_ERR_INVALID_ARG; /* up to 128 elements (SnapDeals' apex leaves) */
  czk_num state[128];
  size_t half = (size_t)1 << (nbits - 1);
  memcpy(state, from, sizeof(czk_num) * 2 * half);
  for (size_t i = 0; i < nbits; i++) { /* most significant bit first */
    czk_bool bit = bits[nbits - 1 - i];
    for (size_t j = 0; j < half; j++) CZK_TRY(czk_num_pick(cs, &state[j], bit, &state[half + j], &state[j]));
    half /= 2;
  }
  *out = state[0];
  return CZK_OK;
}

/* A pick step of a hand-optimized insertion: out = pick(cond, x, y). Sources: 0 = the inserted element,
 * 1..7 = elements[0..6], 10+k = the k-th intermediate result. Conditions: 0..2 = b0..b2, 3 = b0 nor b1,
 * 4 = b0 and b1. */
typedef struct {
  uint8_t cond, x, y;
} pick_step;

static const pick_step k_insert4[8] = {{0, 1, 0},  {1, 1, 10}, {0, 0, 1},  {1, 2, 12},
                                       {0, 3, 0},  {1, 14, 2}, {0, 0, 3},  {1, 16, 3}};
static const uint8_t k_insert4_out[4] = {11, 13, 15, 17};

static const pick_step k_insert8[20] = {
    {3, 0, 1},  {2, 1, 10},  /* p0_xx0, p0 */
    {0, 0, 1},  {1, 2, 12},  {2, 2, 13},  /* p1_x00, p1_xx0, p1 */
    {0, 3, 0},  {1, 15, 2},  {2, 3, 16},  /* p2_x10, p2_xx0, p2 */
    {4, 0, 3},  {2, 4, 18},  /* p3_xx0, p3 */
    {3, 0, 5},  {2, 20, 4},  /* p4_xx1, p4 */
    {0, 0, 5},  {1, 6, 22},  {2, 23, 5},  /* p5_x01, p5_xx1, p5 */
    {0, 7, 0},  {1, 25, 6},  {2, 26, 6},  /* p6_x11, p6_xx1, p6 */
    {4, 0, 7},  {2, 28, 7}}; /* p7_xx1, p7 */
static const uint8_t k_insert8_out[8] = {11, 14, 17, 19, 21, 24, 27, 29};

static czk_status insert_table(czk_cs *cs, czk_num *out, const czk_num *element, const czk_bool *conds,
                               const czk_num *elements, const pick_step *steps, size_t nsteps, const uint8_t *outs,
                               size_t nout) {
  czk_num tmp[20];
  for (size_t s = 0; s < nsteps; s++) {
    const czk_num *x = steps[s].x == 0 ? element : steps[s].x < 10 ? &elements[steps[s].x - 1] : &tmp[steps[s].x - 10];
    const czk_num *y = steps[s].y == 0 ? element : steps[s].y < 10 ? &elements[steps[s].y - 1] : &tmp[steps[s].y - 10];
    CZK_TRY(czk_num_pick(cs, &tmp[s], conds[steps[s].cond], x, y));
  }
  for (size_t i = 0; i < nout; i++) out[i] = tmp[outs[i] - 10];
  return CZK_OK;
}

czk_status czk_fc_insert(czk_cs *cs, czk_num *out, const czk_num *element, const czk_bool *bits, size_t nbits,
                         const czk_num *elements) {
  if (nbits == 0 || nbits > 6) return CZK_ERR_INVALID_ARG;
  size_t size = (size_t)1 << nbits;
  if (size == 2) {
    czk_num e = *element, o0;
    CZK_TRY(czk_num_pick(cs, &o0, bits[0], &elements[0], &e));
    CZK_TRY(czk_num_pick(cs, &out[1], bits[0], &e, &elements[0]));
    out[0] = o0;
    return CZK_OK;
  }
  if (size == 4) return insert_table(cs, out, element, bits, elements, k_insert4, 8, k_insert4_out, 4);
  if (size == 8) {
    if (bits[0].kind != CZK_BOOL_IS || bits[1].kind != CZK_BOOL_IS) return CZK_ERR_INVALID_ARG; /* as the reference */
    czk_bool conds[5] = {bits[0], bits[1], bits[2]};
    CZK_TRY(czk_bool_and(cs, &conds[3], czk_bool_not(bits[0]), czk_bool_not(bits[1]))); /* nor(b0, b1) */
    CZK_TRY(czk_bool_and(cs, &conds[4], bits[0], bits[1]));
    return insert_table(cs, out, element, conds, elements, k_insert8, 20, k_insert8_out, 8);
  }
  /* General: position pos selects from column pos of the table of all insertion results. */
  czk_num res[64], choices[64];
  for (size_t pos = 0; pos < size; pos++) {
    for (size_t index = 0; index < size; index++)
      choices[index] = pos < index ? elements[pos] : pos == index ? *element : elements[pos - 1];
    CZK_TRY(czk_fc_select(cs, &res[pos], choices, bits, nbits));
  }
  memcpy(out, res, sizeof(czk_num) * size);
  return CZK_OK;
}
