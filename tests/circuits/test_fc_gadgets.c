/* test_fc_gadgets.c: Filecoin gadgets on cs.h against the reference constraint counts and the native hashes.
 * Every circuit is synthesized three times (shape recorder, witness builder, checker); the witness must satisfy
 * the recorded shape, and changing any sampled witness value (a bit flipped 0 <-> 1, any other value + 1) must make
 * it unsatisfied. Counts (VECTORS.md, bellpepper / neptune / storage-proofs-core tests): SHA-256 compression 25,840,
 * SHA-256 of 512 bits 44,874, Poseidon 311 / 377 / 505 / 598 / 761 / 1,009 / 1,385 (Standard) and 367 / 433 / 565 /
 * 821 / 1,069 / 1,445 (Strengthened), hash_md over 71 elements 2,770, PoR circuits (1,887 for binary Poseidon with 3
 * inputs, and the other shapes of por_circuit.rs; with the argument `full`, the SHA-256 PoR circuits). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/filecoin.h"
#include "czk/gadgets.h"
#include "czk_test.h"

typedef czk_status (*synth_fn)(czk_cs *cs, void *ctx);

typedef struct {
  size_t constraints, inputs, aux;
} counts;

static czk_test_rng g_rng;

/* Runs `fn` in the three modes; checks satisfaction and `flips` sampled witness changes (0 = every value) among the
 * public inputs after ONE and the aux variables from index `skip` on (the first `skip` aux are the test's free
 * inputs, which another assignment may legitimately take). Returns the counts (from the shape recorder). */
static counts run_circuit_skip(const char *what, synth_fn fn, void *ctx, size_t flips, size_t skip) {
  counts c = {0, 0, 0};
  czk_cs *cs = NULL;
  czk_r1cs *r = NULL;
  czk_witness w = {0, 0, NULL};
  CHECK(czk_cs_shape_new(&cs) == CZK_OK);
  czk_status st = fn(cs, ctx);
  CHECK_MSG(st == CZK_OK, "%s: shape synthesis: %s", what, czk_status_name(st));
  c.constraints = czk_cs_num_constraints(cs);
  c.inputs = czk_cs_num_inputs(cs);
  c.aux = czk_cs_num_aux(cs);
  CHECK(czk_cs_shape_finish(cs, &r) == CZK_OK);

  CHECK(czk_cs_witness_new(&cs, 0, 0) == CZK_OK);
  st = fn(cs, ctx);
  CHECK_MSG(st == CZK_OK, "%s: witness synthesis: %s", what, czk_status_name(st));
  CHECK_EQ_INT(czk_cs_num_constraints(cs), c.constraints);
  CHECK_EQ_INT(czk_cs_num_aux(cs), c.aux);
  CHECK(czk_cs_witness_finish(cs, &w) == CZK_OK);

  CHECK(czk_cs_checker_new(&cs) == CZK_OK);
  st = fn(cs, ctx);
  CHECK_MSG(st == CZK_OK, "%s: checker synthesis: %s", what, czk_status_name(st));
  size_t idx = 0;
  const char *name = NULL;
  st = czk_cs_checker_result(cs, &idx, &name);
  CHECK_MSG(st == CZK_OK, "%s: checker: constraint %zu (%s) fails", what, idx, name ? name : "?");
  czk_cs_free(cs);

  if (r && w.w) {
    size_t row = 0;
    CHECK_MSG(czk_r1cs_check(r, &w, &row, NULL) == CZK_OK, "%s: witness does not satisfy the shape (row %zu)", what,
              row);
    /* candidate positions: inputs 1 .. n_inputs-1, then aux skip .. n_aux-1 */
    size_t ni = w.n_inputs - 1, na = w.n_aux > skip ? w.n_aux - skip : 0, n = ni + na, bad = 0;
    size_t tries = flips && flips < n ? flips : n;
    for (size_t k = 0; k < tries; k++) {
      size_t q = flips && flips < n ? (size_t)(czk_test_rng_next(&g_rng) % n) : k;
      size_t j = q < ni ? 1 + q : w.n_inputs + skip + (q - ni);
      czk_fr old = w.w[j];
      if (czk_fr_is_zero(&old))
        czk_fr_set_one(&w.w[j]);
      else if (czk_fr_is_one(&old))
        czk_fr_set_zero(&w.w[j]);
      else
        czk_fr_add(&w.w[j], &old, &czk_fr_one_v);
      if (czk_r1cs_check(r, &w, &row, NULL) != CZK_ERR_UNSATISFIED) bad++;
      w.w[j] = old;
    }
    CHECK_MSG(bad == 0, "%s: %zu of %zu changed witness values still satisfy the circuit", what, bad, tries);
  }
  czk_r1cs_free(r);
  czk_witness_free(&w);
  return c;
}

static counts run_circuit(const char *what, synth_fn fn, void *ctx, size_t flips) {
  return run_circuit_skip(what, fn, ctx, flips, 0);
}

/* ------------------------------------------------------------------------------------------------ SHA-256 */
typedef struct {
  uint8_t block[64];
  bool constant_input;
  bool padded; /* sha256 with padding of the 64 bytes, else one compression with the IV */
  uint8_t out[32];
} sha_ctx;

static czk_status sha_synth(czk_cs *cs, void *p) {
  sha_ctx *x = p;
  czk_bool in[512];
  for (int i = 0; i < 512; i++) {
    bool b = (x->block[i / 8] >> (7 - i % 8)) & 1;
    if (x->constant_input)
      in[i] = czk_bool_const(b);
    else
      CZK_TRY(czk_bit_alloc(cs, &in[i], b));
  }
  czk_bool out[256];
  if (x->padded) {
    CZK_TRY(czk_sha256_gadget(cs, out, in, 512));
  } else {
    czk_u32 st[8];
    for (int i = 0; i < 8; i++) st[i] = czk_u32_const(czk_sha256_iv[i]);
    CZK_TRY(czk_sha256_compress_gadget(cs, st, in, st));
    for (int i = 0; i < 8; i++) czk_u32_to_bits_be(out + 32 * i, &st[i]);
  }
  memset(x->out, 0, 32);
  for (int i = 0; i < 256; i++) x->out[i / 8] |= (uint8_t)(out[i].value << (7 - i % 8));
  return czk_cs_status(cs);
}

static void test_sha256_gadget(void) {
  sha_ctx x;
  /* Blank hash: the padding block of the empty message as constants: no constraints, digest e3b0c442... */
  memset(&x, 0, sizeof x);
  x.block[0] = 0x80;
  x.constant_input = true;
  counts c = run_circuit("sha256 blank", sha_synth, &x, 0);
  CHECK_EQ_INT(c.constraints, 0);
  uint8_t want[32];
  czk_sha256(want, "", 0);
  CHECK(memcmp(x.out, want, 32) == 0);

  /* One full block of allocated bits. */
  memset(&x, 0, sizeof x);
  czk_test_rng_bytes(&g_rng, x.block, 64);
  c = run_circuit("sha256 compression", sha_synth, &x, 24);
  CHECK_MSG(c.constraints - 512 == 25840, "compression: %zu constraints (+512 input bits), want 25,840",
            c.constraints - 512);
  uint32_t h[8];
  memcpy(h, czk_sha256_iv, sizeof h);
  czk_sha256_compress(h, x.block);
  for (int i = 0; i < 8; i++)
    for (int b = 0; b < 4; b++) want[4 * i + b] = (uint8_t)(h[i] >> (24 - 8 * b));
  CHECK(memcmp(x.out, want, 32) == 0);

  /* SHA-256 (with padding) of 512 allocated bits. */
  x.padded = true;
  c = run_circuit("sha256 padded", sha_synth, &x, 24);
  CHECK_MSG(c.constraints - 512 == 44874, "sha256: %zu constraints (+512 input bits), want 44,874",
            c.constraints - 512);
  czk_sha256(want, x.block, 64);
  CHECK(memcmp(x.out, want, 32) == 0);
}

/* ------------------------------------------------------------------------------------------------ booleans */
typedef struct {
  int op; /* 0 xor, 1 and, 2 or, 3 ch, 4 maj */
  int kind[3];
  bool val[3];
  bool out;
  size_t n_constraints;
} bool_ctx;

static czk_status bool_synth(czk_cs *cs, void *p) {
  bool_ctx *x = p;
  czk_bool in[3], r;
  for (int i = 0; i < 3; i++) {
    if (x->kind[i] == 0) {
      in[i] = czk_bool_const(x->val[i]);
    } else {
      bool raw = x->kind[i] == 2 ? !x->val[i] : x->val[i];
      CZK_TRY(czk_bit_alloc(cs, &in[i], raw));
      if (x->kind[i] == 2) in[i] = czk_bool_not(in[i]);
    }
  }
  size_t before = czk_cs_num_constraints(cs);
  switch (x->op) {
  case 0: CZK_TRY(czk_bool_xor(cs, &r, in[0], in[1])); break;
  case 1: CZK_TRY(czk_bool_and(cs, &r, in[0], in[1])); break;
  case 2: CZK_TRY(czk_bool_or(cs, &r, in[0], in[1])); break;
  case 3: CZK_TRY(czk_bool_sha256_ch(cs, &r, in[0], in[1], in[2])); break;
  default: CZK_TRY(czk_bool_sha256_maj(cs, &r, in[0], in[1], in[2])); break;
  }
  x->n_constraints = czk_cs_num_constraints(cs) - before;
  x->out = r.value;
  /* The result's value must be what its variable holds. */
  if (r.kind != CZK_BOOL_CONST && czk_cs_has_values(cs)) {
    czk_fr v;
    CZK_TRY(czk_cs_get_value(cs, r.var, &v));
    bool raw = czk_fr_is_one(&v);
    if ((r.kind == CZK_BOOL_NOT ? !raw : raw) != (bool)r.value) return CZK_ERR_INTERNAL;
  }
  return czk_cs_status(cs);
}

static void test_booleans(void) {
  int fails = 0;
  for (int op = 0; op < 5; op++) {
    int nin = op < 3 ? 2 : 3;
    for (int k = 0; k < (nin == 2 ? 9 * 4 : 27 * 8); k++) {
      bool_ctx x;
      memset(&x, 0, sizeof x);
      x.op = op;
      int kk = k;
      for (int i = 0; i < nin; i++) {
        x.val[i] = kk & 1;
        kk >>= 1;
      }
      for (int i = 0; i < nin; i++) {
        x.kind[i] = kk % 3;
        kk /= 3;
      }
      size_t free_bits = (size_t)((x.kind[0] != 0) + (x.kind[1] != 0) + (x.kind[2] != 0));
      run_circuit_skip("boolean op", bool_synth, &x, 0, free_bits);
      bool a = x.val[0], b = x.val[1], c = x.val[2];
      bool want = op == 0 ? a != b : op == 1 ? (a && b) : op == 2 ? (a || b) : op == 3 ? (a ? b : c) : (a + b + c >= 2);
      if (x.out != want) fails++;
      /* bellpepper: at most one constraint, except maj on three allocated bits (maj + b AND c) */
      bool all_alloc = x.kind[0] && x.kind[1] && (nin == 2 || x.kind[2]);
      size_t max = op == 4 && all_alloc ? 2 : 1;
      if (x.n_constraints > max) fails++;
      if (!all_alloc && op < 3 && (x.kind[0] == 0 || x.kind[1] == 0) && x.n_constraints != 0) fails++;
    }
  }
  CHECK_MSG(fails == 0, "%d boolean gadget results wrong", fails);
}

/* ------------------------------------------------------------------------------------------------ UInt32 */
typedef struct {
  uint32_t v[10];
  int n;
  uint32_t out;
} add_ctx;

static czk_status add_synth(czk_cs *cs, void *p) {
  add_ctx *x = p;
  czk_u32 ops[10], r;
  for (int i = 0; i < x->n; i++) {
    if (i == 1)
      ops[i] = czk_u32_const(x->v[i]);
    else
      CZK_TRY(czk_u32_alloc(cs, &ops[i], x->v[i]));
  }
  czk_multieq me;
  czk_multieq_init(&me, cs);
  czk_status st = czk_u32_addmany(&me, &r, ops, (size_t)x->n);
  czk_u32 r2;
  if (st == CZK_OK) st = czk_u32_addmany(&me, &r2, ops, 2);
  czk_status st2 = czk_multieq_finish(&me);
  CZK_TRY(st);
  CZK_TRY(st2);
  x->out = r.value;
  uint32_t bits = 0;
  for (int i = 0; i < 32; i++) bits |= (uint32_t)r.bits[i].value << i;
  if (bits != r.value) return CZK_ERR_INTERNAL;
  return czk_cs_status(cs);
}

static void test_uint32(void) {
  for (int n = 2; n <= 10; n++) {
    add_ctx x;
    x.n = n;
    uint32_t sum = 0;
    for (int i = 0; i < n; i++) {
      x.v[i] = (uint32_t)czk_test_rng_next(&g_rng);
      sum += x.v[i];
    }
    counts c = run_circuit_skip("addmany", add_synth, &x, 0, (size_t)(n - 1) * 32);
    CHECK(x.out == sum);
    /* (n-1) * 32 bit allocations, result bits bitlen(n (2^32-1)) and 33, one MultiEq constraint */
    unsigned rb = 0;
    for (uint64_t m = (uint64_t)n * UINT32_MAX; m; m >>= 1) rb++;
    CHECK_EQ_INT(c.constraints, (size_t)(n - 1) * 32 + rb + 33 + 1);
  }
}

/* ------------------------------------------------------------------------------------------------ numbers */
typedef struct {
  czk_fr a, b;
  bool cond;
  int which; /* 0 to_bits_le, 1 to_bits_le_strict, 2 conditionally_reverse, 3 mul/square/add/nonzero/inputize */
  czk_fr out[2];
  size_t n_constraints;
} num_ctx;

static czk_status num_synth(czk_cs *cs, void *p) {
  num_ctx *x = p;
  czk_num a, b, c, d;
  CZK_TRY(czk_num_alloc(cs, &a, &x->a));
  CZK_TRY(czk_num_alloc(cs, &b, &x->b));
  size_t before = czk_cs_num_constraints(cs);
  czk_bool bits[255], cond;
  switch (x->which) {
  case 0:
  case 1: {
    if (x->which == 0)
      CZK_TRY(czk_num_to_bits_le(cs, bits, &a));
    else
      CZK_TRY(czk_num_to_bits_le_strict(cs, bits, &a));
    uint64_t raw[4] = {0, 0, 0, 0};
    for (int i = 0; i < 255; i++) raw[i / 64] |= (uint64_t)bits[i].value << (i % 64);
    CZK_TRY(czk_fr_from_raw(&x->out[0], raw));
    break;
  }
  case 2:
    CZK_TRY(czk_bit_alloc(cs, &cond, x->cond));
    CZK_TRY(czk_num_conditionally_reverse(cs, &c, &d, &a, &b, cond));
    x->out[0] = c.value;
    x->out[1] = d.value;
    break;
  default:
    CZK_TRY(czk_num_mul(cs, &c, &a, &b));
    CZK_TRY(czk_num_square(cs, &d, &c));
    CZK_TRY(czk_num_add(cs, &c, &d, &a));
    CZK_TRY(czk_num_assert_nonzero(cs, &c));
    CZK_TRY(czk_num_inputize(cs, &c));
    x->out[0] = c.value;
    break;
  }
  x->n_constraints = czk_cs_num_constraints(cs) - before;
  return czk_cs_status(cs);
}

static void test_numbers(void) {
  for (int it = 0; it < 4; it++) {
    num_ctx x;
    memset(&x, 0, sizeof x);
    uint8_t rb[64];
    czk_test_rng_bytes(&g_rng, rb, 64);
    czk_fr_from_bytes_wide_le(&x.a, rb, 64);
    czk_test_rng_bytes(&g_rng, rb, 64);
    czk_fr_from_bytes_wide_le(&x.b, rb, 64);
    if (it == 3) czk_fr_neg(&x.a, &czk_fr_one_v); /* r - 1: the largest value the strict check admits */
    x.cond = it & 1;
    for (int which = 0; which < 4; which++) {
      x.which = which;
      run_circuit_skip("num", num_synth, &x, 0, which == 2 ? 3 : 2);
      if (which < 2) {
        CHECK(czk_fr_eq(&x.out[0], &x.a));
        if (which == 0) CHECK_EQ_INT(x.n_constraints, 256);
      } else if (which == 2) {
        CHECK(czk_fr_eq(&x.out[0], x.cond ? &x.b : &x.a) && czk_fr_eq(&x.out[1], x.cond ? &x.a : &x.b));
        CHECK_EQ_INT(x.n_constraints, 3);
      } else {
        czk_fr e;
        czk_fr_mul(&e, &x.a, &x.b);
        czk_fr_sqr(&e, &e);
        czk_fr_add(&e, &e, &x.a);
        CHECK(czk_fr_eq(&x.out[0], &e));
        CHECK_EQ_INT(x.n_constraints, 5);
      }
    }
  }
}

/* ------------------------------------------------------------------------------------------------ insertion */
typedef struct {
  unsigned nbits, index;
  czk_fr el[64];
  czk_fr out[64];
  size_t n_constraints;
} ins_ctx;

static czk_status ins_synth(czk_cs *cs, void *p) {
  ins_ctx *x = p;
  size_t size = (size_t)1 << x->nbits;
  czk_num e, els[63], out[64];
  CZK_TRY(czk_num_alloc(cs, &e, &x->el[size - 1]));
  for (size_t i = 0; i + 1 < size; i++) CZK_TRY(czk_num_alloc(cs, &els[i], &x->el[i]));
  czk_bool bits[6];
  for (unsigned i = 0; i < x->nbits; i++) CZK_TRY(czk_bit_alloc(cs, &bits[i], (x->index >> i) & 1));
  size_t before = czk_cs_num_constraints(cs);
  CZK_TRY(czk_fc_insert(cs, out, &e, bits, x->nbits, els));
  x->n_constraints = czk_cs_num_constraints(cs) - before;
  for (size_t i = 0; i < size; i++) x->out[i] = out[i].value;
  return czk_cs_status(cs);
}

static void test_insert(void) {
  static const size_t want[5] = {0, 2, 8, 22, 240}; /* insertion.rs: 2, 4, 8 hand-optimized; 16 general */
  for (unsigned nbits = 1; nbits <= 4; nbits++) {
    size_t size = (size_t)1 << nbits;
    for (unsigned index = 0; index < size; index++) {
      ins_ctx x;
      x.nbits = nbits;
      x.index = index;
      for (size_t i = 0; i < size; i++) czk_fr_from_u64(&x.el[i], 100 + i);
      run_circuit_skip("insert", ins_synth, &x, nbits == 4 ? 40 : 0, size + nbits);
      bool ok = true;
      for (size_t pos = 0; pos < size; pos++) {
        const czk_fr *w = pos < index ? &x.el[pos] : pos == index ? &x.el[size - 1] : &x.el[pos - 1];
        ok = ok && czk_fr_eq(&x.out[pos], w);
      }
      CHECK_MSG(ok, "insert size %zu at %u: wrong order", size, index);
      CHECK_EQ_INT(x.n_constraints, want[nbits]);
    }
  }
}

/* ------------------------------------------------------------------------------------------------ Poseidon */
typedef struct {
  const czk_poseidon *p;
  czk_fr in[36];
  czk_fr out;
  bool md;
  size_t n;
} pos_ctx;

static czk_status pos_synth(czk_cs *cs, void *p) {
  pos_ctx *x = p;
  czk_num in[71], out;
  for (size_t i = 0; i < x->n; i++) CZK_TRY(czk_num_alloc(cs, &in[i], &x->in[x->md ? 0 : i]));
  if (x->md)
    CZK_TRY(czk_fc_poseidon_hash_md_gadget(cs, &out, in, x->n));
  else
    CZK_TRY(czk_poseidon_gadget(cs, &out, x->p, CZK_POSEIDON_MERKLE_TREE, 0, in, x->n));
  x->out = out.value;
  return czk_cs_status(cs);
}

static void test_poseidon_gadget(void) {
  static const unsigned ar[7] = {2, 4, 8, 11, 16, 24, 36};
  static const size_t want[2][7] = {{311, 377, 505, 598, 761, 1009, 1385}, {367, 433, 565, 0, 821, 1069, 1445}};
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < 7; i++) {
      pos_ctx x;
      memset(&x, 0, sizeof x);
      CHECK(czk_poseidon_get(&x.p, ar[i], (czk_poseidon_strength)s) == CZK_OK);
      x.n = ar[i];
      for (unsigned k = 0; k < ar[i]; k++) {
        uint8_t b[64];
        czk_test_rng_bytes(&g_rng, b, 64);
        czk_fr_from_bytes_wide_le(&x.in[k], b, 64);
      }
      counts c = run_circuit("poseidon", pos_synth, &x, ar[i] == 2 ? 0 : 60);
      unsigned rf, rp, t = ar[i] + 1;
      czk_poseidon_rounds(x.p, &rf, &rp);
      size_t formula = 3 * ((size_t)t * rf + rp - 1) + (size_t)t * rf + rp - ar[i];
      CHECK_MSG(c.constraints == formula, "arity %u: %zu constraints, formula %zu", ar[i], c.constraints, formula);
      if (want[s][i]) CHECK_MSG(c.constraints == want[s][i], "arity %u: %zu != %zu", ar[i], c.constraints, want[s][i]);
      CHECK_EQ_INT(c.inputs, 1);
      CHECK_EQ_INT(c.aux, ar[i] + c.constraints); /* inputs + one aux per constraint */
      czk_fr native;
      CHECK(czk_poseidon_hash(&native, x.p, CZK_POSEIDON_MERKLE_TREE, 0, x.in, ar[i]) == CZK_OK);
      CHECK_MSG(czk_fr_eq(&native, &x.out), "arity %u: gadget != native", ar[i]);
    }
  /* hash_md over 71 x ONE: 2,770 constraints and the filecoin-hashers digest. */
  pos_ctx x;
  memset(&x, 0, sizeof x);
  x.md = true;
  x.n = 71;
  czk_fr_set_one(&x.in[0]);
  counts c = run_circuit("hash_md", pos_synth, &x, 60);
  CHECK_EQ_INT(c.constraints, 2770);
  static const uint64_t mdl[4] = {0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7};
  czk_fr md;
  CHECK(czk_fr_from_raw(&md, mdl) == CZK_OK);
  CHECK(czk_fr_eq(&md, &x.out));
}

/* ------------------------------------------------------------------------------------------------ PoR */
typedef struct {
  czk_fc_por por;
  czk_fc_path_level path[CZK_FC_MAX_PATH];
} por_ctx;

static czk_status por_synth(czk_cs *cs, void *p) { return czk_fc_por_circuit(cs, &((por_ctx *)p)->por); }

static void test_por(void) {
  static const struct {
    unsigned base, sub, top;
    size_t constraints;
  } k_shapes[] = {{2, 0, 0, 1887}, {4, 0, 0, 1164}, {8, 0, 0, 1063}, {8, 2, 0, 1377},
                  {8, 4, 2, 1764}, {8, 8, 0, 1593}, {8, 8, 2, 1907}, {8, 2, 4, 1764}};
  for (size_t s = 0; s < CZK_ARRAY_LEN(k_shapes); s++) {
    unsigned sub = k_shapes[s].sub, top = k_shapes[s].top;
    uint64_t n = 64 * (sub ? sub : 1) * (top ? top : 1); /* por_circuit.rs: 64 * base tree count */
    uint8_t *leaves = malloc((size_t)n * 32);
    for (uint64_t i = 0; i < n; i++) {
      uint8_t b[64];
      czk_fr f;
      czk_test_rng_bytes(&g_rng, b, 64);
      czk_fr_from_bytes_wide_le(&f, b, 64);
      czk_fr_to_bytes_le(leaves + 32 * i, &f);
    }
    czk_fc_tree *t = NULL;
    CHECK(czk_fc_tree_build(&t, CZK_FC_POSEIDON, leaves, n, k_shapes[s].base, sub, top) == CZK_OK);
    if (!t) {
      free(leaves);
      continue;
    }
    for (int k = 0; k < 2; k++) {
      por_ctx x;
      memset(&x, 0, sizeof x);
      uint64_t idx = k == 0 ? n - 1 : czk_test_rng_next(&g_rng) % n;
      size_t nl = 0;
      CHECK(czk_fc_tree_prove(t, idx, x.path, &nl) == CZK_OK);
      x.por = (czk_fc_por){k_shapes[s].base, sub, top, nl, x.path, {0}, {0}, false, CZK_FC_POSEIDON, NULL, NULL};
      memcpy(x.por.leaf, leaves + 32 * idx, 32);
      czk_fc_tree_root(t, x.por.root);
      counts c = run_circuit("por", por_synth, &x, k == 0 ? 40 : 8);
      CHECK_MSG(c.constraints == k_shapes[s].constraints, "PoR <%u,%u,%u>: %zu constraints, want %zu",
                k_shapes[s].base, sub, top, c.constraints, k_shapes[s].constraints);
      CHECK_EQ_INT(c.inputs, 3);

      /* The public inputs: ONE, the challenge (packed path bits = the leaf index), the root. */
      czk_cs *cs;
      czk_witness w;
      CHECK(czk_cs_witness_new(&cs, 0, 0) == CZK_OK);
      CHECK(czk_fc_por_circuit(cs, &x.por) == CZK_OK);
      CHECK(czk_cs_witness_finish(cs, &w) == CZK_OK);
      czk_fr ch, rt;
      czk_fr_from_u64(&ch, idx);
      CHECK(czk_fr_from_bytes_le(&rt, x.por.root) == CZK_OK);
      CHECK(w.n_inputs == 3 && czk_fr_eq(&w.w[1], &ch) && czk_fr_eq(&w.w[2], &rt));
      czk_witness_free(&w);

      /* A wrong leaf does not satisfy the circuit. */
      x.por.leaf[3] ^= 1;
      CHECK(czk_cs_checker_new(&cs) == CZK_OK);
      CHECK(czk_fc_por_circuit(cs, &x.por) == CZK_OK);
      CHECK(czk_cs_checker_result(cs, &(size_t){0}, &(const char *){NULL}) == CZK_ERR_UNSATISFIED);
      czk_cs_free(cs);
    }
    /* Blank circuit (no values): the same shape. */
    czk_cs *cs;
    por_ctx x;
    memset(&x, 0, sizeof x);
    size_t nl = 0;
    CHECK(czk_fc_tree_prove(t, 0, x.path, &nl) == CZK_OK);
    x.por = (czk_fc_por){k_shapes[s].base, sub, top, nl, NULL, {0}, {0}, true, CZK_FC_POSEIDON, NULL, NULL};
    CHECK(czk_cs_shape_new(&cs) == CZK_OK);
    CHECK(czk_fc_por_circuit(cs, &x.por) == CZK_OK);
    CHECK_EQ_INT(czk_cs_num_constraints(cs), k_shapes[s].constraints - 1); /* private root: no inputize */
    CHECK_EQ_INT(czk_cs_num_inputs(cs), 2);
    czk_cs_free(cs);
    czk_fc_tree_free(t);
    free(leaves);
  }
}

/* PoR with the SHA-256 hasher (por_circuit.rs: base 2: 272,295; base 8: 250,987; 64 leaves, 3 inputs). The leaves
 * are canonical field elements; nodes are truncated SHA-256 digests (< 2^254). */
static void test_por_sha256(void) {
  static const struct {
    unsigned base;
    size_t constraints;
  } k_shapes[] = {{2, 272295}, {8, 250987}};
  for (size_t s = 0; s < CZK_ARRAY_LEN(k_shapes); s++) {
    uint8_t leaves[64 * 32];
    for (int i = 0; i < 64; i++) {
      czk_test_rng_bytes(&g_rng, leaves + 32 * i, 32);
      leaves[32 * i + 31] &= 0x3f;
    }
    czk_fc_tree *t = NULL;
    CHECK(czk_fc_tree_build(&t, CZK_FC_SHA256, leaves, 64, k_shapes[s].base, 0, 0) == CZK_OK);
    if (!t) continue;
    por_ctx x;
    memset(&x, 0, sizeof x);
    uint64_t idx = czk_test_rng_next(&g_rng) % 64;
    size_t nl = 0;
    CHECK(czk_fc_tree_prove(t, idx, x.path, &nl) == CZK_OK);
    x.por = (czk_fc_por){k_shapes[s].base, 0, 0, nl, x.path, {0}, {0}, false, CZK_FC_SHA256, NULL, NULL};
    memcpy(x.por.leaf, leaves + 32 * idx, 32);
    czk_fc_tree_root(t, x.por.root);
    counts c = run_circuit("por sha256", por_synth, &x, 6);
    CHECK_MSG(c.constraints == k_shapes[s].constraints, "SHA-256 PoR base %u: %zu constraints, want %zu",
              k_shapes[s].base, c.constraints, k_shapes[s].constraints);
    CHECK_EQ_INT(c.inputs, 3);
    czk_fc_tree_free(t);
  }
}

/* ------------------------------------------------------------------------------------------------ multipack */
typedef struct {
  bool bits[600];
  size_t n;
} pack_ctx;

static czk_status pack_synth(czk_cs *cs, void *p) {
  pack_ctx *x = p;
  czk_bool b[600];
  for (size_t i = 0; i < x->n; i++) {
    if (i % 7 == 3)
      b[i] = czk_bool_const(x->bits[i]);
    else if (i % 7 == 5) {
      CZK_TRY(czk_bit_alloc(cs, &b[i], !x->bits[i]));
      b[i] = czk_bool_not(b[i]);
    } else
      CZK_TRY(czk_bit_alloc(cs, &b[i], x->bits[i]));
  }
  return czk_pack_into_inputs(cs, b, x->n);
}

static void test_multipack(void) {
  pack_ctx x;
  x.n = 600;
  for (size_t i = 0; i < x.n; i++) x.bits[i] = czk_test_rng_next(&g_rng) & 1;
  counts c = run_circuit_skip("pack_into_inputs", pack_synth, &x, 0, x.n - x.n / 7 - (x.n % 7 > 3));
  CHECK_EQ_INT(c.inputs, 1 + 3); /* ceil(600 / 254) */
  czk_cs *cs;
  czk_witness w;
  CHECK(czk_cs_witness_new(&cs, 0, 0) == CZK_OK);
  CHECK(pack_synth(cs, &x) == CZK_OK);
  CHECK(czk_cs_witness_finish(cs, &w) == CZK_OK);
  for (size_t k = 0; k < 3; k++) {
    czk_fr v, p2;
    czk_fr_set_zero(&v);
    czk_fr_set_one(&p2);
    for (size_t i = 254 * k; i < x.n && i < 254 * (k + 1); i++) {
      if (x.bits[i]) czk_fr_add(&v, &v, &p2);
      czk_fr_dbl(&p2, &p2);
    }
    CHECK(czk_fr_eq(&w.w[1 + k], &v));
  }
  czk_witness_free(&w);
}

/* `test_fc_gadgets` runs the quick set; `test_fc_gadgets full` the SHA-256 PoR circuits (272k constraints each). */
int main(int argc, char **argv) {
  czk_test_rng_seed(&g_rng, 0xf11ec011);
  if (argc > 1 && strcmp(argv[1], "full") == 0) {
    test_por_sha256();
    return czk_test_done("test_fc_gadgets full");
  }
  test_booleans();
  test_uint32();
  test_numbers();
  test_insert();
  test_multipack();
  test_sha256_gadget();
  test_poseidon_gadget();
  test_por();
  return czk_test_done("test_fc_gadgets");
}
