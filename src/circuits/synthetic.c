/* synthetic.c: the synthetic circuit family (synthetic.h).
 *
 * Layout for size 2^k (P = czk_synthetic_num_public(k) public inputs, n_inputs = P + 1):
 *   4 free private values x0..x3 (from the seed), then body constraints cycling through 8 kinds:
 *     0-3  z = u * v                                    multiplication
 *     4    b * (1 - b) = 0                              boolean (b = low bit of a previous value)
 *     5    (sum of 16 terms c_i v_i, one repeated variable, one cancelling pair) * 1 = s
 *     6    (u + 3 v + 5) * (t - 1) = z                  affine factors
 *     7    b * (u - v) = c - v                          selection c = b ? u : v (b = last boolean)
 *   then P constraints linking public input p_i: (aux) * 1 = p_i.
 *   body count = 2^k - n_inputs - P, so with the appended input constraints the total is exactly 2^k.
 * Operands u, v, t are drawn by a structure RNG seeded by k only (the shape never depends on the witness seed);
 * values come from a second RNG seeded by (k, seed). Witness mode builds no linear combinations. */
#include <stdlib.h>
#include <string.h>

#include "circuits/synthetic.h"

typedef struct rng {
  uint64_t s;
} rng;
static uint64_t rng_next(rng *r) { /* splitmix64 */
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static size_t rng_below(rng *r, size_t n) { return (size_t)(rng_next(r) % n); }

unsigned czk_synthetic_num_public(unsigned log_size) { return log_size >= 8 ? 8u : 3u; }

typedef struct gen {
  czk_cs *cs;
  bool values, lcs;
  czk_var *vars; /* aux variables usable as operands */
  czk_fr *vals;
  size_t n, cap;
  rng srng, vrng;
  czk_lc a, b, c;
  czk_var last_bool;
  czk_fr last_bool_val;
} gen;

static czk_status push(gen *g, czk_var v, const czk_fr *val) {
  if (g->n == g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 1024;
    czk_var *vv = realloc(g->vars, cap * sizeof *vv);
    if (!vv) return CZK_ERR_NOMEM;
    g->vars = vv;
    czk_fr *fv = realloc(g->vals, cap * sizeof *fv);
    if (!fv) return CZK_ERR_NOMEM;
    g->vals = fv;
    g->cap = cap;
  }
  g->vars[g->n] = v;
  if (val) g->vals[g->n] = *val;
  g->n++;
  return CZK_OK;
}

/* Operand choice: mostly recent variables (locality of real gadgets), sometimes any earlier one. */
static size_t pick(gen *g) {
  if (rng_next(&g->srng) & 3) {
    size_t w = g->n < 64 ? g->n : 64;
    return g->n - 1 - rng_below(&g->srng, w);
  }
  return rng_below(&g->srng, g->n);
}

static czk_status alloc_aux(gen *g, const czk_fr *val, czk_var *out) {
  CZK_TRY(czk_cs_alloc(g->cs, out, g->values ? val : NULL));
  return push(g, *out, val);
}

static czk_status enforce(gen *g, const char *name) {
  if (!g->lcs) return czk_cs_enforce(g->cs, name, &g->a, &g->b, &g->c);
  czk_status st = czk_cs_enforce(g->cs, name, &g->a, &g->b, &g->c);
  czk_lc_clear(&g->a);
  czk_lc_clear(&g->b);
  czk_lc_clear(&g->c);
  return st;
}

static void fr_small(czk_fr *r, uint64_t k) { czk_fr_from_u64(r, k); }

static czk_status body(gen *g, size_t kind) {
  czk_fr z, t, k;
  czk_var vz;
  memset(&z, 0, sizeof z);
  size_t iu = pick(g), iv = pick(g), it = pick(g);
  czk_var u = g->vars[iu], v = g->vars[iv], tv = g->vars[it];
  const czk_fr *xu = &g->vals[iu], *xv = &g->vals[iv], *xt = &g->vals[it];
  switch (kind) {
  case 4: { /* boolean */
    if (g->values) {
      uint64_t raw[4];
      czk_fr_to_raw(raw, xu);
      if (raw[0] & 1) czk_fr_set_one(&z); else czk_fr_set_zero(&z);
    }
    CZK_TRY(alloc_aux(g, &z, &vz));
    g->last_bool = vz;
    g->last_bool_val = z;
    if (g->lcs) {
      czk_lc_add_var(&g->a, vz);
      czk_lc_add_var(&g->b, CZK_VAR_ONE);
      czk_lc_sub_var(&g->b, vz);
    }
    return enforce(g, "boolean");
  }
  case 5: { /* long linear combination */
    czk_fr acc;
    czk_fr_set_zero(&acc);
    size_t idx[16];
    uint64_t co[16];
    for (int i = 0; i < 16; i++) {
      idx[i] = i == 15 ? idx[0] : pick(g); /* the last term repeats the first variable */
      co[i] = 1 + rng_below(&g->srng, 1000);
      if (g->values) {
        fr_small(&k, co[i]);
        czk_fr_mul(&t, &g->vals[idx[i]], &k);
        czk_fr_add(&acc, &acc, &t);
      }
    }
    CZK_TRY(alloc_aux(g, &acc, &vz));
    if (g->lcs) {
      for (int i = 0; i < 16; i++) czk_lc_add_u64(&g->a, g->vars[idx[i]], co[i]);
      czk_lc_add_u64(&g->a, tv, 7); /* a cancelling pair: +7 t - 7 t */
      fr_small(&k, 7);
      czk_fr_neg(&k, &k);
      czk_lc_add(&g->a, tv, &k);
      czk_lc_add_var(&g->b, CZK_VAR_ONE);
      czk_lc_add_var(&g->c, vz);
    }
    return enforce(g, "lincomb");
  }
  case 6: { /* (u + 3v + 5) * (t - 1) = z */
    if (g->values) {
      czk_fr l, r;
      fr_small(&k, 3);
      czk_fr_mul(&l, xv, &k);
      czk_fr_add(&l, &l, xu);
      fr_small(&k, 5);
      czk_fr_add(&l, &l, &k);
      czk_fr_sub(&r, xt, &czk_fr_one_v);
      czk_fr_mul(&z, &l, &r);
    }
    CZK_TRY(alloc_aux(g, &z, &vz));
    if (g->lcs) {
      czk_lc_add_var(&g->a, u);
      czk_lc_add_u64(&g->a, v, 3);
      czk_lc_add_u64(&g->a, CZK_VAR_ONE, 5);
      czk_lc_add_var(&g->b, tv);
      czk_lc_sub_var(&g->b, CZK_VAR_ONE);
      czk_lc_add_var(&g->c, vz);
    }
    return enforce(g, "affine");
  }
  case 7: { /* select: c = b ? u : v, b * (u - v) = c - v */
    if (g->values) z = czk_fr_is_zero(&g->last_bool_val) ? *xv : *xu;
    CZK_TRY(alloc_aux(g, &z, &vz));
    if (g->lcs) {
      czk_lc_add_var(&g->a, g->last_bool);
      czk_lc_add_var(&g->b, u);
      czk_lc_sub_var(&g->b, v);
      czk_lc_add_var(&g->c, vz);
      czk_lc_sub_var(&g->c, v);
    }
    return enforce(g, "select");
  }
  default: /* multiplication */
    if (g->values) czk_fr_mul(&z, xu, xv);
    CZK_TRY(alloc_aux(g, &z, &vz));
    if (g->lcs) {
      czk_lc_add_var(&g->a, u);
      czk_lc_add_var(&g->b, v);
      czk_lc_add_var(&g->c, vz);
    }
    return enforce(g, "mul");
  }
}

czk_status czk_synthetic_synthesize(czk_cs *cs, unsigned log_size, uint64_t seed) {
  if (log_size < CZK_SYNTHETIC_MIN_LOG || log_size > CZK_SYNTHETIC_MAX_LOG) return CZK_ERR_INVALID_ARG;
  if (czk_cs_num_inputs(cs) != 1 || czk_cs_num_aux(cs) != 0) return CZK_ERR_STATE;
  unsigned P = czk_synthetic_num_public(log_size);
  size_t total = (size_t)1 << log_size, n_body = total - (P + 1) - P;
  gen g;
  memset(&g, 0, sizeof g);
  g.cs = cs;
  g.values = czk_cs_has_values(cs);
  g.lcs = czk_cs_get_mode(cs) != CZK_CS_WITNESS;
  g.srng.s = 0x53594e5448455449ULL ^ log_size;
  g.vrng.s = seed * 0x2545f4914f6cdd1dULL + log_size;
  czk_lc_init(&g.a);
  czk_lc_init(&g.b);
  czk_lc_init(&g.c);
  g.last_bool = CZK_VAR_ONE; /* until the first boolean: selects with ONE (value 1) */
  czk_fr_set_one(&g.last_bool_val);
  czk_status st = CZK_OK;
  czk_cs_push_ns(cs, "synthetic");
  for (int i = 0; i < 4 && st == CZK_OK; i++) {
    uint8_t bytes[64];
    for (int j = 0; j < 8; j++) {
      uint64_t x = rng_next(&g.vrng);
      memcpy(bytes + 8 * j, &x, 8);
    }
    czk_fr x;
    czk_fr_from_bytes_wide_le(&x, bytes, sizeof bytes);
    czk_var v;
    st = alloc_aux(&g, &x, &v);
  }
  czk_cs_push_ns(cs, "body");
  for (size_t j = 0; j < n_body && st == CZK_OK; j++) st = body(&g, j & 7);
  czk_cs_pop_ns(cs);
  czk_cs_push_ns(cs, "public");
  for (unsigned i = 0; i < P && st == CZK_OK; i++) {
    size_t ia = g.n - 1 - (size_t)i * (g.n / (P + 1));
    czk_var p;
    st = czk_cs_alloc_input(cs, &p, g.values ? &g.vals[ia] : NULL);
    if (st == CZK_OK && g.lcs) {
      czk_lc_add_var(&g.a, g.vars[ia]);
      czk_lc_add_var(&g.b, CZK_VAR_ONE);
      czk_lc_add_var(&g.c, p);
    }
    if (st == CZK_OK) st = enforce(&g, "link");
  }
  czk_cs_pop_ns(cs);
  czk_cs_pop_ns(cs);
  czk_lc_free(&g.a);
  czk_lc_free(&g.b);
  czk_lc_free(&g.c);
  free(g.vars);
  free(g.vals);
  if (st == CZK_OK) st = czk_cs_status(cs);
  return st;
}

czk_status czk_synthetic_shape(czk_r1cs **out, unsigned log_size) {
  *out = NULL;
  czk_cs *cs;
  CZK_TRY(czk_cs_shape_new(&cs));
  czk_status st = czk_synthetic_synthesize(cs, log_size, 0);
  if (st != CZK_OK) {
    czk_cs_free(cs);
    return st;
  }
  return czk_cs_shape_finish(cs, out);
}

czk_status czk_synthetic_witness(czk_witness *out, unsigned log_size, uint64_t seed) {
  memset(out, 0, sizeof *out);
  czk_cs *cs;
  unsigned P = czk_synthetic_num_public(log_size);
  size_t total = (size_t)1 << (log_size <= CZK_SYNTHETIC_MAX_LOG ? log_size : 0);
  CZK_TRY(czk_cs_witness_new(&cs, P + 1, total));
  czk_status st = czk_synthetic_synthesize(cs, log_size, seed);
  if (st != CZK_OK) {
    czk_cs_free(cs);
    return st;
  }
  return czk_cs_witness_finish(cs, out);
}
