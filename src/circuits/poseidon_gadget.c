/* poseidon_gadget.c: neptune's Poseidon circuit (circuit.rs poseidon_hash, the "Legacy" circuit Filecoin uses),
 * constraint for constraint, and filecoin-hashers hash_md_circuit.
 *
 * State elements are either allocated numbers or linear combinations ("Num": sorted, merged terms + value). Rounds:
 *   first full round: the tag S-box is a constant, (tag + k0)^5 + k1; every other element x (allocated):
 *       s = (x + k0)^2  [(x + k0) * (x + k0) = s],  q = s^2,  y = q (x + k0) + k1  [(x + k0) * q = y - k1]
 *   other full rounds / partial rounds (element 0 only): x = ensure_allocated(e) [e * 1 = x when e is a Num],
 *       s = x^2, q = s^2, y = q x + k  [x * q = y - k] (no k in the terminal round);
 *   linear layers: M (dense), the pre-sparse matrix after the last first-half full round, then the sparse matrices
 *       (result_0 = <w_hat, e>, result_j = e_j + v_j e_0) — all free (linear combinations);
 *   output: ensure_allocated(state[1]).
 * Count: 3 (t R_F + R_P - 1) S-box constraints + (t R_F + R_P - arity) allocations of combinations. */
#include "circuits/gadget_internal.h"
#include "circuits/poseidon_impl.h"

typedef struct {
  bool alloc;
  czk_var var; /* when alloc */
  czk_fr val;
  size_t n; /* Num terms (sorted by var) */
  czk_var *tv;
  czk_fr *tc;
} elt;

typedef struct {
  czk_cs *cs;
  const czk_poseidon *p;
  bool lcs;
  size_t maxt;
  elt a[CZK_POSEIDON_MAX_ARITY + 1], b[CZK_POSEIDON_MAX_ARITY + 1], acc, tmp;
  elt *cur, *nxt;
  void *mem;
  czk_status err; /* term overflow (cannot happen for neptune's schedules) */
} ws;

static czk_status ws_init(ws *w, czk_cs *cs, const czk_poseidon *p) {
  memset(w, 0, sizeof *w);
  w->cs = cs;
  w->p = p;
  w->lcs = czk__want_lc_v(cs);
  w->cur = w->a;
  w->nxt = w->b;
  if (!w->lcs) return CZK_OK;
  w->maxt = p->width + p->rp + 4;
  size_t nelts = 2 * (size_t)p->width + 2;
  w->mem = malloc(nelts * w->maxt * (sizeof(czk_var) + sizeof(czk_fr)));
  if (!w->mem) return CZK_ERR_NOMEM;
  czk_fr *c = (czk_fr *)w->mem;
  czk_var *v = (czk_var *)(c + nelts * w->maxt);
  elt *all[2 * (CZK_POSEIDON_MAX_ARITY + 1) + 2];
  size_t k = 0;
  for (unsigned i = 0; i < p->width; i++) {
    all[k++] = &w->a[i];
    all[k++] = &w->b[i];
  }
  all[k++] = &w->acc;
  all[k++] = &w->tmp;
  for (size_t i = 0; i < k; i++) {
    all[i]->tc = c + i * w->maxt;
    all[i]->tv = v + i * w->maxt;
  }
  return CZK_OK;
}

/* dst = x + s * y as combinations (and values). dst must differ from x and y; x, y may be allocated. */
static void axpy(ws *w, elt *dst, const elt *x, const czk_fr *s, const elt *y) {
  czk_fr t;
  czk_fr_mul(&t, s, &y->val);
  czk_fr_add(&dst->val, &x->val, &t);
  dst->alloc = false;
  dst->n = 0;
  if (!w->lcs) return;
  czk_fr one = czk_fr_one_v;
  const czk_var *xv = x->alloc ? &x->var : x->tv, *yv = y->alloc ? &y->var : y->tv;
  const czk_fr *xc = x->alloc ? &one : x->tc, *yc = y->alloc ? &one : y->tc;
  size_t xn = x->alloc ? 1 : x->n, yn = y->alloc ? 1 : y->n, i = 0, j = 0, n = 0;
  while (i < xn || j < yn) {
    if (n == w->maxt) { /* bounded by width + R_P + 1 for neptune's schedules */
      w->err = CZK_ERR_INTERNAL;
      break;
    }
    if (j >= yn || (i < xn && xv[i] < yv[j])) {
      dst->tv[n] = xv[i];
      dst->tc[n++] = xc[i++];
    } else if (i >= xn || yv[j] < xv[i]) {
      dst->tv[n] = yv[j];
      czk_fr_mul(&dst->tc[n++], s, &yc[j++]);
    } else {
      dst->tv[n] = xv[i];
      czk_fr_mul(&t, s, &yc[j++]);
      czk_fr_add(&dst->tc[n++], &xc[i++], &t);
    }
  }
  dst->n = n;
}

static void elt_const(elt *e, const czk_fr *v) { /* Num: v * ONE */
  e->alloc = false;
  e->val = *v;
  e->n = 0;
  if (e->tv) {
    e->tv[0] = CZK_VAR_ONE;
    e->tc[0] = *v;
    e->n = 1;
  }
}

static void elt_copy(ws *w, elt *dst, const elt *src) {
  dst->alloc = src->alloc;
  dst->var = src->var;
  dst->val = src->val;
  dst->n = src->n;
  if (w->lcs && !src->alloc && src->n) {
    memcpy(dst->tv, src->tv, src->n * sizeof(czk_var));
    memcpy(dst->tc, src->tc, src->n * sizeof(czk_fr));
  }
}

/* dst = sum_i s[i * stride] * cur[i]. */
static void scalar_product(ws *w, elt *dst, const czk_fr *s, size_t stride) {
  unsigned t = w->p->width;
  w->acc.alloc = false;
  w->acc.n = 0;
  czk_fr_set_zero(&w->acc.val);
  for (unsigned i = 0; i < t; i++) {
    axpy(w, &w->tmp, &w->acc, &s[i * stride], &w->cur[i]);
    elt swap = w->acc;
    w->acc = w->tmp;
    w->tmp = swap;
  }
  elt_copy(w, dst, &w->acc);
}

/* Allocate a Num (e * 1 = x); allocated elements are returned unchanged. */
static czk_status ensure_allocated(ws *w, elt *e) {
  if (e->alloc) return czk_cs_status(w->cs);
  czk_var x;
  CZK_TRY(czk_cs_alloc(w->cs, &x, &e->val));
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  if (w->lcs) {
    for (size_t i = 0; i < e->n; i++) czk__gl_add(&A, e->tv[i], &e->tc[i]);
    czk__gl_add_var(&B, CZK_VAR_ONE);
    czk__gl_add_var(&C, x);
  }
  e->alloc = true;
  e->var = x;
  return czk__enforce_free_v(w->cs, "enforce num allocation preserves lc", &A, &B, &C, &e->val, &czk_fr_one_v,
                             &e->val);
}

/* Allocates y = value and enforces (u + pre) * v = y - post (pre/post NULL when absent); av, bv: the values of
 * (u + pre) and of v (or v + pre for the square of a sum). */
static czk_status alloc_mul(ws *w, czk_var *y, const czk_fr *value, czk_var u, const czk_fr *pre, czk_var v,
                            const czk_fr *post, const char *name, const czk_fr *av, const czk_fr *bv) {
  CZK_TRY(czk_cs_alloc(w->cs, y, value));
  czk__gl A, B, C;
  czk__gl_init(&A);
  czk__gl_init(&B);
  czk__gl_init(&C);
  if (w->lcs) {
    czk__gl_add_var(&A, u);
    if (pre) czk__gl_add(&A, CZK_VAR_ONE, pre);
    if (u == v && pre) { /* square_sum: B = A */
      czk__gl_add_var(&B, v);
      czk__gl_add(&B, CZK_VAR_ONE, pre);
    } else {
      czk__gl_add_var(&B, v);
    }
    czk__gl_add_var(&C, *y);
    if (post) {
      czk_fr neg;
      czk_fr_neg(&neg, post);
      czk__gl_add(&C, CZK_VAR_ONE, &neg);
    }
  }
  czk_fr cv = *value;
  if (post) czk_fr_sub(&cv, &cv, post);
  return czk__enforce_free_v(w->cs, name, &A, &B, &C, av, bv, &cv);
}

/* Quintic S-box on an allocated element: (x + pre)^5 + post, 3 constraints. pre only in the first round. */
static czk_status sbox(ws *w, elt *e, const czk_fr *pre, const czk_fr *post) {
  CZK_TRY(ensure_allocated(w, e));
  czk_var x = e->var, s, q, y;
  czk_fr xv = e->val, sv, qv, yv;
  if (pre) czk_fr_add(&xv, &xv, pre);
  czk_fr_sqr(&sv, &xv);
  czk_fr_sqr(&qv, &sv);
  czk_fr_mul(&yv, &qv, &xv);
  if (post) czk_fr_add(&yv, &yv, post);
  if (pre)
    CZK_TRY(alloc_mul(w, &s, &sv, x, pre, x, NULL, "squared sum constraint", &xv, &xv));
  else
    CZK_TRY(alloc_mul(w, &s, &sv, x, NULL, x, NULL, "squaring constraint", &xv, &xv));
  CZK_TRY(alloc_mul(w, &q, &qv, s, NULL, s, NULL, "squaring constraint", &sv, &sv));
  /* mul_sum(a = q, b = x, pre, post): (x + pre) * q = y - post */
  CZK_TRY(alloc_mul(w, &y, &yv, x, pre, q, post, "mul sum constraint", &xv, &qv));
  e->alloc = true;
  e->var = y;
  e->val = yv;
  e->n = 0;
  return CZK_OK;
}

static void swap_state(ws *w) {
  elt *t = w->cur;
  w->cur = w->nxt;
  w->nxt = t;
}

/* product_mds for round `round` (neptune circuit.rs product_mds). */
static void linear_layer(ws *w, unsigned round) {
  const czk_poseidon *p = w->p;
  unsigned t = p->width;
  if (round + 1 == p->half || round < p->half || round >= p->half + p->rp) {
    const czk_fr *m = round + 1 == p->half ? p->pre_sparse : p->m;
    for (unsigned j = 0; j < t; j++) scalar_product(w, &w->nxt[j], m + j, t); /* column j */
  } else {
    unsigned k = round - p->half;
    const czk_fr *wh = p->w_hat + (size_t)k * t, *v = p->v_rest + (size_t)k * (t - 1);
    scalar_product(w, &w->nxt[0], wh, 1);
    for (unsigned j = 1; j < t; j++) axpy(w, &w->nxt[j], &w->cur[j], &v[j - 1], &w->cur[0]);
  }
  swap_state(w);
}

czk_status czk_poseidon_gadget(czk_cs *cs, czk_num *out, const czk_poseidon *p, czk_poseidon_hash_type type,
                               uint64_t param, const czk_num *in, size_t n) {
  if (!cs || !out || !p || !in) return CZK_ERR_INVALID_ARG;
  if (n != p->arity || type == CZK_POSEIDON_SPONGE || (type == CZK_POSEIDON_CONSTANT_LENGTH && param != n))
    return CZK_ERR_SIZE_MISMATCH;
  czk_fr tag;
  CZK_TRY(czk_poseidon_domain_tag(&tag, type, param, p->arity));
  ws *w = malloc(sizeof *w);
  if (!w) return CZK_ERR_NOMEM;
  czk_status st = ws_init(w, cs, p);
  unsigned t = p->width, round = 0;
  const czk_fr *k = p->crc;
  if (st == CZK_OK) {
    /* First full round: constant S-box for the tag; pre- and post-keys. */
    czk_fr tv = tag;
    czk_fr_add(&tv, &tv, &k[0]);
    czk__poseidon_sbox(&tv, &k[t]);
    elt_const(&w->cur[0], &tv);
    for (unsigned i = 1; i < t; i++) {
      w->cur[i].alloc = true;
      w->cur[i].var = in[i - 1].var;
      w->cur[i].val = in[i - 1].value;
      w->cur[i].n = 0;
    }
    for (unsigned i = 1; i < t && st == CZK_OK; i++) st = sbox(w, &w->cur[i], &k[i], &k[t + i]);
    k += 2 * (size_t)t;
    if (st == CZK_OK) linear_layer(w, round++);
  }
  for (unsigned r = 1; r < p->half && st == CZK_OK; r++, k += t) {
    for (unsigned i = 0; i < t && st == CZK_OK; i++) st = sbox(w, &w->cur[i], NULL, &k[i]);
    if (st == CZK_OK) linear_layer(w, round++);
  }
  for (unsigned r = 0; r < p->rp && st == CZK_OK; r++, k++) {
    st = sbox(w, &w->cur[0], NULL, k);
    if (st == CZK_OK) linear_layer(w, round++);
  }
  for (unsigned r = 0; r < p->half && st == CZK_OK; r++) {
    bool last = r + 1 == p->half;
    for (unsigned i = 0; i < t && st == CZK_OK; i++) st = sbox(w, &w->cur[i], NULL, last ? NULL : &k[i]);
    if (!last) k += t;
    if (st == CZK_OK) linear_layer(w, round++);
  }
  if (st == CZK_OK) st = w->err;
  if (st == CZK_OK) st = ensure_allocated(w, &w->cur[1]);
  if (st == CZK_OK) {
    out->var = w->cur[1].var;
    out->value = w->cur[1].val;
  }
  free(w->mem);
  free(w);
  return st;
}

czk_status czk_fc_poseidon_hash_md_gadget(czk_cs *cs, czk_num *out, const czk_num *in, size_t n) {
  if (!cs || !out || !in || n < 2) return CZK_ERR_INVALID_ARG;
  const czk_poseidon *p;
  CZK_TRY(czk_poseidon_get(&p, 36, CZK_POSEIDON_STANDARD));
  czk_num pre[36], hash = in[0];
  for (size_t i = 1; i < n; i += 35) {
    size_t take = n - i < 35 ? n - i : 35;
    pre[0] = hash;
    for (size_t j = 0; j < take; j++) pre[j + 1] = in[i + j];
    for (size_t j = take + 1; j < 36; j++) CZK_TRY(czk_num_alloc(cs, &pre[j], &czk_fr_zero_v)); /* padding */
    CZK_TRY(czk_poseidon_gadget(cs, &hash, p, CZK_POSEIDON_MERKLE_TREE, 0, pre, 36));
  }
  *out = hash;
  return CZK_OK;
}
