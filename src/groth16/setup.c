/* setup.c: Groth16 keys for circuits we own (bellperson layout), from fresh toxic waste.
 *
 * Domain n = 2^k (shape->log_domain), omega = bellman's primitive n-th root. Lagrange basis at tau:
 *   L_j(tau) = (tau^n - 1) omega^j / (n (tau - omega^j))         (one batch inversion; = bellman's iFFT of tau^i)
 * Per variable i: A_i = sum_j A[j][i] L_j, likewise B_i, C_i (one pass over each CSR: nnz mul+add).
 *   vk:  alpha G1, beta G1, beta G2, gamma G2, delta G1, delta G2, ic_i = (beta A_i + alpha B_i + C_i)/gamma G1
 *   h_i = tau^i (tau^n - 1)/delta G1 (i < n-1); l_j = (beta A_j + alpha B_j + C_j)/delta G1 (aux j);
 *   a = A_i G1 (all inputs, aux with A-density); b_g1/b_g2 = B_i G1/G2 (inputs, then aux, with B-density).
 * Point count: n-1 + n_aux + n_a + n_b G1 and n_b G2 fixed-base multiplications (windowed tables, constant-time),
 * chunked over the pool, each chunk normalized with one batch inversion.
 * Every secret scalar (tau, alpha, beta, gamma, delta, their derived arrays) is wiped before returning. */
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16_internal.h"

#define CHUNK 512

static void wipe(void *p, size_t n) {
  if (p) explicit_bzero(p, n);
}

typedef struct fb_ctx {
  const czk_g1_fixed_base *t1;
  const czk_g2_fixed_base *t2;
  const czk_fr *k;
  void *out; /* affine */
  _Atomic int status;
} fb_ctx;

static void fb_chunk(void *vctx, size_t begin, size_t end) {
  fb_ctx *c = vctx;
  for (size_t b = begin; b < end; b += CHUNK) {
    size_t e = end - b < CHUNK ? end : b + CHUNK;
    if (c->t1) {
      czk_g1 tmp[CHUNK];
      for (size_t i = b; i < e; i++) czk_g1_fixed_base_mul(&tmp[i - b], c->t1, &c->k[i]);
      if (czk_g1_batch_to_affine((czk_g1_affine *)c->out + b, tmp, e - b) != CZK_OK) c->status = CZK_ERR_NOMEM;
    } else {
      czk_g2 tmp[CHUNK];
      for (size_t i = b; i < e; i++) czk_g2_fixed_base_mul(&tmp[i - b], c->t2, &c->k[i]);
      if (czk_g2_batch_to_affine((czk_g2_affine *)c->out + b, tmp, e - b) != CZK_OK) c->status = CZK_ERR_NOMEM;
    }
  }
}

static unsigned window_for(size_t n) { return n < 64 ? 4 : n < 4096 ? 8 : 12; }

static czk_status fb_g1(czk_g1_affine *out, const czk_fr *k, size_t n, czk_pool *pool) {
  if (n == 0) return CZK_OK;
  czk_g1 g;
  czk_g1_generator(&g);
  czk_g1_fixed_base *t;
  CZK_TRY(czk_g1_fixed_base_new(&t, &g, window_for(n)));
  fb_ctx c = {t, NULL, k, out, 0};
  czk_pool_parallel_for(pool, n, CHUNK, fb_chunk, &c);
  czk_g1_fixed_base_free(t);
  return (czk_status)c.status;
}

static czk_status fb_g2(czk_g2_affine *out, const czk_fr *k, size_t n, czk_pool *pool) {
  if (n == 0) return CZK_OK;
  czk_g2 g;
  czk_g2_generator(&g);
  czk_g2_fixed_base *t;
  CZK_TRY(czk_g2_fixed_base_new(&t, &g, window_for(n)));
  fb_ctx c = {NULL, t, k, out, 0};
  czk_pool_parallel_for(pool, n, CHUNK, fb_chunk, &c);
  czk_g2_fixed_base_free(t);
  return (czk_status)c.status;
}

static czk_status any_infinity_g1(const czk_g1_affine *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (czk_g1_affine_is_infinity(&p[i])) return CZK_ERR_INTERNAL; /* probability ~ n / r */
  return CZK_OK;
}

/* X[col] += val * L[row] over one CSR. */
static void accumulate(czk_fr *X, const czk_csr *m, uint32_t rows, const czk_fr *L) {
  czk_fr t;
  for (uint32_t j = 0; j < rows; j++)
    for (uint64_t k = m->row_ptr[j]; k < m->row_ptr[j + 1]; k++) {
      czk_fr_mul(&t, &m->val[k], &L[j]);
      czk_fr_add(&X[m->col[k]], &X[m->col[k]], &t);
    }
  explicit_bzero(&t, sizeof t);
}

czk_status czk_groth16_setup(const czk_r1cs *sh, const char *params_path, const char *vk_path, czk_pool *pool) {
  if (!sh || !params_path || sh->log_domain > 28) return CZK_ERR_INVALID_ARG;
  const size_t n = (size_t)1 << sh->log_domain, ni = sh->n_inputs, na = sh->n_aux, nv = ni + na;
  const size_t n_a = ni + sh->a_aux_count, n_b = (size_t)sh->b_input_count + sh->b_aux_count;
  czk_status st = CZK_OK;
  /* toxic waste and derived secrets */
  czk_fr tw[5]; /* tau, alpha, beta, gamma, delta */
  czk_fr zt, t, gi, di;
  czk_fr *L = calloc(n, sizeof *L), *X = calloc(3 * nv, sizeof *X);
  czk_fr *sc = malloc((n > nv ? n : nv) * sizeof *sc);
  czk_groth16_vk vk;
  memset(&vk, 0, sizeof vk);
  czk_g1_affine *h = malloc(n * sizeof *h), *l = malloc((na ? na : 1) * sizeof *l);
  czk_g1_affine *a = malloc(n_a * sizeof *a), *b1 = malloc((n_b ? n_b : 1) * sizeof *b1);
  czk_g2_affine *b2 = malloc((n_b ? n_b : 1) * sizeof *b2);
  vk.ic = malloc(ni * sizeof *vk.ic);
  vk.n_ic = ni;
  if (!L || !X || !sc || !h || !l || !a || !b1 || !b2 || !vk.ic) st = CZK_ERR_NOMEM;
  for (int i = 0; i < 5 && st == CZK_OK; i++) st = czk_fr_random(&tw[i]);
  const czk_fr *tau = &tw[0], *alpha = &tw[1], *beta = &tw[2], *gamma = &tw[3], *delta = &tw[4];
  if (st == CZK_OK) {
    /* zt = tau^n - 1 (square k times) */
    zt = *tau;
    for (unsigned i = 0; i < sh->log_domain; i++) czk_fr_sqr(&zt, &zt);
    czk_fr_sub(&zt, &zt, &czk_fr_one_v);
    czk_fr omega, w;
    st = czk_fr_root_of_unity(&omega, sh->log_domain, CZK_ROOTS_BELLMAN);
    czk_fr_set_one(&w);
    for (size_t j = 0; j < n && st == CZK_OK; j++) { /* sc[j] = tau - omega^j, L[j] = omega^j */
      czk_fr_sub(&sc[j], tau, &w);
      L[j] = w;
      czk_fr_mul(&w, &w, &omega);
    }
    if (st == CZK_OK) st = czk_fr_batch_inv(sc, sc, n, NULL);
    if (st == CZK_OK) {
      czk_fr ninv;
      czk_fr_from_u64(&ninv, n);
      czk_fr_inv(&ninv, &ninv);
      czk_fr_mul(&t, &zt, &ninv); /* (tau^n - 1) / n */
      for (size_t j = 0; j < n; j++) {
        czk_fr_mul(&L[j], &L[j], &sc[j]);
        czk_fr_mul(&L[j], &L[j], &t);
      }
    }
  }
  czk_fr *XA = X, *XB = X + nv, *XC = X + 2 * nv;
  if (st == CZK_OK) {
    accumulate(XA, &sh->a, sh->n_constraints, L);
    accumulate(XB, &sh->b, sh->n_constraints, L);
    accumulate(XC, &sh->c, sh->n_constraints, L);
    czk_fr_inv(&gi, gamma);
    czk_fr_inv(&di, delta);
    /* ic (inputs, / gamma) and l (aux, / delta): beta A + alpha B + C */
    for (size_t i = 0; i < nv; i++) {
      czk_fr u;
      czk_fr_mul(&sc[i], beta, &XA[i]);
      czk_fr_mul(&u, alpha, &XB[i]);
      czk_fr_add(&sc[i], &sc[i], &u);
      czk_fr_add(&sc[i], &sc[i], &XC[i]);
      czk_fr_mul(&sc[i], &sc[i], i < ni ? &gi : &di);
      explicit_bzero(&u, sizeof u);
    }
    st = fb_g1(vk.ic, sc, ni, pool);
    if (st == CZK_OK) st = fb_g1(l, sc + ni, na, pool);
  }
  if (st == CZK_OK) { /* a: inputs, then aux with A-density */
    size_t m = 0;
    for (size_t i = 0; i < nv; i++)
      if (i < ni || czk_density_get(sh->a_aux_density, i - ni)) sc[m++] = XA[i];
    st = fb_g1(a, sc, m, pool);
  }
  if (st == CZK_OK) { /* b: inputs with B-density, then aux with B-density */
    size_t m = 0;
    for (size_t i = 0; i < nv; i++)
      if (i < ni ? czk_density_get(sh->b_input_density, i) : czk_density_get(sh->b_aux_density, i - ni))
        sc[m++] = XB[i];
    st = fb_g1(b1, sc, m, pool);
    if (st == CZK_OK) st = fb_g2(b2, sc, m, pool);
  }
  if (st == CZK_OK) { /* h_i = tau^i (tau^n - 1) / delta */
    czk_fr_mul(&t, &zt, &di);
    for (size_t i = 0; i + 1 < n; i++) {
      sc[i] = t;
      czk_fr_mul(&t, &t, tau);
    }
    st = fb_g1(h, sc, n - 1, pool);
  }
  if (st == CZK_OK) { /* the vk */
    czk_g1 g1, p1;
    czk_g2 g2, p2;
    czk_g1_generator(&g1);
    czk_g2_generator(&g2);
    czk_g1_mul(&p1, &g1, alpha), czk_g1_to_affine(&vk.alpha_g1, &p1);
    czk_g1_mul(&p1, &g1, beta), czk_g1_to_affine(&vk.beta_g1, &p1);
    czk_g2_mul(&p2, &g2, beta), czk_g2_to_affine(&vk.beta_g2, &p2);
    czk_g2_mul(&p2, &g2, gamma), czk_g2_to_affine(&vk.gamma_g2, &p2);
    czk_g1_mul(&p1, &g1, delta), czk_g1_to_affine(&vk.delta_g1, &p1);
    czk_g2_mul(&p2, &g2, delta), czk_g2_to_affine(&vk.delta_g2, &p2);
  }
  /* wipe every secret before any I/O */
  wipe(tw, sizeof tw);
  wipe(&zt, sizeof zt), wipe(&t, sizeof t), wipe(&gi, sizeof gi), wipe(&di, sizeof di);
  wipe(L, L ? n * sizeof *L : 0);
  wipe(X, X ? 3 * nv * sizeof *X : 0);
  wipe(sc, sc ? (n > nv ? n : nv) * sizeof *sc : 0);
  free(L), free(X), free(sc);
  /* A query point at infinity (a zero polynomial evaluation) would be filtered by bellperson; negligible here. */
  if (st == CZK_OK) st = any_infinity_g1(h, n - 1);
  if (st == CZK_OK) st = any_infinity_g1(a, n_a);
  if (st == CZK_OK) st = any_infinity_g1(b1, n_b);
  if (st == CZK_OK) st = any_infinity_g1(l, na);
  if (st == CZK_OK) {
    czk_groth16_pk_queries q = {h, l, a, b1, b2};
    czk_groth16_pk_sizes s = {n - 1, na, n_a, n_b, n_b};
    st = czk_groth16_params_write(params_path, &vk, &q, &s);
  }
  if (st == CZK_OK && vk_path) st = czk_groth16_vk_write(&vk, vk_path);
  free(h), free(l), free(a), free(b1), free(b2);
  czk_groth16_vk_free(&vk);
  return st;
}
