/* setup.c: Groth16 keys for circuits we own (bellperson layout), from fresh toxic waste.
 *
 * Domain n = 2^k (shape->log_domain), omega = bellman's primitive n-th root. Lagrange basis at tau:
 *   L_j(tau) = (tau^n - 1) omega^j / (n (tau - omega^j))         (batch inversions; = bellman's iFFT of tau^i)
 * Per variable i: A_i = sum_j A[j][i] L_j, likewise B_i, C_i (one pass over each CSR: nnz mul+add).
 *   vk:  alpha G1, beta G1, beta G2, gamma G2, delta G1, delta G2, ic_i = (beta A_i + alpha B_i + C_i)/gamma G1
 *   h_i = tau^i (tau^n - 1)/delta G1 (i < n-1); l_j = (beta A_j + alpha B_j + C_j)/delta G1 (aux j);
 *   a = A_i G1 (all inputs, aux with A-density); b_g1/b_g2 = B_i G1/G2 (inputs, then aux, with B-density).
 *
 * Point count: N1 = n-1 + n_aux + n_a + n_b G1 and n_b G2 multiples of the generators. All G1 queries share one
 * fixed-base table of the generator (window w chosen for N1, at most 16 bits: 16 windows of 2^15 affine points,
 * 48 MiB; built in variable time, the generator is public), G2 has its own; the multiplications run in pool chunks through czk_g{1,2}_fixed_base_mul_batch_vartime: per point one batched
 * affine addition per window (~6 field multiplications each, one inversion per window and chunk of 1024), no
 * doublings, direct table lookups -- ~16 x 6M per G1 point at w = 16 instead of 22 constant-time additions with a
 * 2048-entry table scan each. That path is variable time in the scalars, which derive from the toxic waste: the
 * waste is generated, used and wiped inside this one call on the local machine, so only a co-resident timing
 * observer during setup could learn from it; bellperson's generate_random_parameters makes the same trade
 * (variable-time wNAF fixed-base exponentiation). The six vk points use the constant-time czk_g{1,2}_mul.
 * Every secret scalar (tau, alpha, beta, gamma, delta, their derived arrays) is wiped before any I/O. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "czk/log.h"
#include "groth16/groth16_internal.h"

#define FB_GRAIN 4096 /* scalars per pool chunk (4 batches of the curve layer's 1024) */

static void wipe(void *p, size_t n) {
  if (p) explicit_bzero(p, n);
}

/* Window for a fixed-base table serving n multiplications: minimizes windows(w) * (n + 2^(w-1)), the batched
 * additions plus the table's (built with the same batched additions), w <= 16. */
static unsigned window_for(size_t n) {
  unsigned best = 1;
  double best_cost = 0;
  for (unsigned w = 1; w <= 16; w++) {
    double cost = (double)(255 / w + 1) * ((double)n + (double)((size_t)1 << (w - 1)));
    if (w == 1 || cost < best_cost) best = w, best_cost = cost;
  }
  return best;
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
  czk_status st = c->t1 ? czk_g1_fixed_base_mul_batch_vartime((czk_g1_affine *)c->out + begin, c->t1, c->k + begin,
                                                               end - begin)
                        : czk_g2_fixed_base_mul_batch_vartime((czk_g2_affine *)c->out + begin, c->t2, c->k + begin,
                                                               end - begin);
  if (st != CZK_OK) atomic_store(&c->status, (int)st);
}

static czk_status fb_g1(czk_g1_affine *out, const czk_g1_fixed_base *t, const czk_fr *k, size_t n, czk_pool *pool) {
  fb_ctx c = {t, NULL, k, out, CZK_OK};
  czk_pool_parallel_for(pool, n, FB_GRAIN, fb_chunk, &c);
  return (czk_status)atomic_load(&c.status);
}

static czk_status fb_g2(czk_g2_affine *out, const czk_g2_fixed_base *t, const czk_fr *k, size_t n, czk_pool *pool) {
  fb_ctx c = {NULL, t, k, out, CZK_OK};
  czk_pool_parallel_for(pool, n, FB_GRAIN, fb_chunk, &c);
  return (czk_status)atomic_load(&c.status);
}

typedef struct inf_ctx {
  const czk_g1_affine *p;
  _Atomic int found;
} inf_ctx;
static void inf_chunk(void *vctx, size_t begin, size_t end) {
  inf_ctx *c = vctx;
  for (size_t i = begin; i < end; i++)
    if (czk_g1_affine_is_infinity(&c->p[i])) atomic_store(&c->found, 1);
}
static czk_status any_infinity_g1(const czk_g1_affine *p, size_t n, czk_pool *pool) {
  inf_ctx c = {p, 0};
  czk_pool_parallel_for(pool, n, 1 << 16, inf_chunk, &c);
  return atomic_load(&c.found) ? CZK_ERR_INTERNAL : CZK_OK; /* probability ~ n / r */
}

/* sc[i] = (beta A_i + alpha B_i + C_i) / (gamma for inputs, delta for aux), over pool chunks */
typedef struct lsc_ctx {
  czk_fr *sc;
  const czk_fr *XA, *XB, *XC, *alpha, *beta, *gi, *di;
  size_t ni;
} lsc_ctx;
static void lsc_chunk(void *vctx, size_t begin, size_t end) {
  lsc_ctx *c = vctx;
  czk_fr u;
  for (size_t i = begin; i < end; i++) {
    czk_fr_mul(&c->sc[i], c->beta, &c->XA[i]);
    czk_fr_mul(&u, c->alpha, &c->XB[i]);
    czk_fr_add(&c->sc[i], &c->sc[i], &u);
    czk_fr_add(&c->sc[i], &c->sc[i], &c->XC[i]);
    czk_fr_mul(&c->sc[i], &c->sc[i], i < c->ni ? c->gi : c->di);
  }
  explicit_bzero(&u, sizeof u);
}

/* L[j] = omega^j (tau^n - 1) / (n (tau - omega^j)) over pool chunks: each chunk starts at omega^begin, inverts its
 * denominators with one batch inversion (scratch: sc, the same range) and scales. */
typedef struct lagrange_ctx {
  czk_fr *L, *sc;
  const czk_fr *tau, *omega, *scale; /* scale = (tau^n - 1) / n */
  _Atomic int status;
} lagrange_ctx;

static void lagrange_chunk(void *vctx, size_t begin, size_t end) {
  lagrange_ctx *c = vctx;
  czk_fr w;
  uint64_t e = begin;
  czk_fr_pow_vartime(&w, c->omega, &e, 1); /* public exponent */
  for (size_t j = begin; j < end; j++) {
    czk_fr_sub(&c->sc[j], c->tau, &w);
    c->L[j] = w;
    czk_fr_mul(&w, &w, c->omega);
  }
  /* tau is random: tau = omega^j has probability n / r; batch_inv maps 0 to 0 and setup then fails the infinity
   * check on a zero query rather than producing a wrong key silently */
  czk_fr *scratch = malloc((end - begin) * sizeof *scratch);
  if (!scratch) {
    atomic_store(&c->status, (int)CZK_ERR_NOMEM);
    return;
  }
  czk_fr_batch_inv(c->sc + begin, c->sc + begin, end - begin, scratch);
  for (size_t j = begin; j < end; j++) {
    czk_fr_mul(&c->L[j], &c->L[j], &c->sc[j]);
    czk_fr_mul(&c->L[j], &c->L[j], c->scale);
  }
  wipe(scratch, (end - begin) * sizeof *scratch);
  free(scratch);
}

/* X_q[col] += val * L[row] over CSR q (A, B, C): one pool item per matrix (their outputs are disjoint). */
typedef struct acc_ctx {
  czk_fr *X; /* 3 nv */
  size_t nv;
  const czk_csr *m[3];
  uint32_t rows;
  const czk_fr *L;
} acc_ctx;

static void accumulate(void *vctx, size_t begin, size_t end) {
  acc_ctx *c = vctx;
  czk_fr t;
  for (size_t q = begin; q < end; q++) {
    czk_fr *X = c->X + q * c->nv;
    const czk_csr *m = c->m[q];
    for (uint32_t j = 0; j < c->rows; j++)
      for (uint64_t k = m->row_ptr[j]; k < m->row_ptr[j + 1]; k++) {
        czk_fr_mul(&t, &m->val[k], &c->L[j]);
        czk_fr_add(&X[m->col[k]], &X[m->col[k]], &t);
      }
  }
  explicit_bzero(&t, sizeof t);
}

/* sc[i] = c tau^i, i < n (pool chunks start at c tau^begin; the exponent is public) */
typedef struct pow_ctx {
  czk_fr *sc;
  const czk_fr *c, *tau;
} pow_ctx;

static void powers_chunk(void *vctx, size_t begin, size_t end) {
  pow_ctx *p = vctx;
  czk_fr t;
  uint64_t e = begin;
  czk_fr_pow_vartime(&t, p->tau, &e, 1);
  czk_fr_mul(&t, &t, p->c);
  for (size_t i = begin; i < end; i++) {
    p->sc[i] = t;
    czk_fr_mul(&t, &t, p->tau);
  }
  explicit_bzero(&t, sizeof t);
}

/* Fixed-base multiplications of the generators: on the backend's device when it has them, else on the pool with
 * tables built on first use (one per group, shared by every query). */
typedef struct fb_state {
  czk_backend *be;
  bool cpu;
  czk_pool *pool;
  size_t n1, n2; /* points per group (table windows) */
  czk_g1_fixed_base *t1;
  czk_g2_fixed_base *t2;
  double t_tables;
} fb_state;

static czk_status fb_mul(fb_state *f, czk_backend_group g, void *out, const czk_fr *k, size_t n) {
  if (n == 0) return CZK_OK;
  if (f->be && !f->cpu) {
    czk_status st = czk_backend_fixed_base(f->be, g, out, k, n);
    if (st != CZK_ERR_UNSUPPORTED) return st;
    f->cpu = true;
  }
  double t0 = czk__now_s();
  if (g == CZK_BACKEND_G1 && !f->t1) {
    czk_g1 g1;
    czk_g1_generator(&g1);
    CZK_TRY(czk_g1_fixed_base_new_vartime(&f->t1, &g1, window_for(f->n1)));
  }
  if (g == CZK_BACKEND_G2 && !f->t2) {
    czk_g2 g2;
    czk_g2_generator(&g2);
    CZK_TRY(czk_g2_fixed_base_new_vartime(&f->t2, &g2, window_for(f->n2)));
  }
  f->t_tables += czk__now_s() - t0;
  return g == CZK_BACKEND_G1 ? fb_g1(out, f->t1, k, n, f->pool) : fb_g2(out, f->t2, k, n, f->pool);
}

/* x_q[col] for an outline: the circuit walked once into the QAP accumulator, then the trailing input constraints
 * (A = input i, B = C = 0 at rows n_user + i). */
static czk_status qap_outline(const czk_r1cs *sh, const czk_groth16_setup_opts *o, const czk_fr *L, czk_fr *X,
                              size_t nv) {
  if (!o || !o->synth) return CZK_ERR_STATE;
  czk_cs *cs;
  czk_cs_qap_out q = {L, sh->n_user_constraints, X, X + nv, X + 2 * nv, sh->n_inputs, nv};
  CZK_TRY(czk_cs_qap_new(&cs, &q));
  czk_status st = o->synth(o->synth_ctx, cs);
  if (st == CZK_OK) st = czk_cs_status(cs);
  if (st == CZK_OK && (czk_cs_num_inputs(cs) != sh->n_inputs || czk_cs_num_aux(cs) != sh->n_aux ||
                       czk_cs_num_constraints(cs) != sh->n_user_constraints)) {
    CZK_LOG(CZK_LOG_ERROR, "groth16",
            "setup: the circuit walked for the QAP has %zu inputs, %zu aux, %zu constraints; its outline %u, %u, %u",
            czk_cs_num_inputs(cs), czk_cs_num_aux(cs), czk_cs_num_constraints(cs), sh->n_inputs, sh->n_aux,
            sh->n_user_constraints);
    st = CZK_ERR_SIZE_MISMATCH;
  }
  czk_cs_free(cs);
  for (uint32_t i = 0; i < sh->n_inputs && st == CZK_OK; i++)
    czk_fr_add(&X[i], &X[i], &L[(size_t)sh->n_user_constraints + i]);
  return st;
}

void czk_groth16_key_mem_free(czk_groth16_key_mem *k) {
  if (!k) return;
  free(k->h), free(k->l), free(k->a), free(k->b_g1), free(k->b_g2);
  czk_groth16_vk_free(&k->vk);
  memset(k, 0, sizeof *k);
}

void czk_groth16_key_mem_queries(const czk_groth16_key_mem *k, czk_groth16_pk_queries *q) {
  q->h = k->h, q->l = k->l, q->a = k->a, q->b_g1 = k->b_g1, q->b_g2 = k->b_g2;
}

static czk_status setup_core(czk_groth16_key_mem *out, const czk_r1cs *sh, const czk_groth16_setup_opts *o,
                             const czk_fr tw[5]) {
  memset(out, 0, sizeof *out);
  if (!sh || !tw || sh->log_domain > 28) return CZK_ERR_INVALID_ARG;
  czk_pool *pool = o ? o->pool : NULL;
  const size_t n = (size_t)1 << sh->log_domain, ni = sh->n_inputs, na = sh->n_aux, nv = ni + na;
  const size_t n_a = ni + sh->a_aux_count, n_b = (size_t)sh->b_input_count + sh->b_aux_count;
  const size_t nsc = n > nv ? n : nv;
  double ts[8] = {0};
  ts[0] = czk__now_s();
  czk_status st = CZK_OK;
  czk_fr zt, t, gi, di; /* secrets derived from the toxic waste */
  const czk_fr *tau = &tw[0], *alpha = &tw[1], *beta = &tw[2], *gamma = &tw[3], *delta = &tw[4];
  /* large arrays on transparent huge pages where the kernel offers them (fewer page faults and TLB misses) */
  czk_fr *L = czk_alloc_big(n * sizeof *L), *X = czk_alloc_big(3 * nv * sizeof *X);
  czk_fr *sc = czk_alloc_big(nsc * sizeof *sc);
  if (X) memset(X, 0, 3 * nv * sizeof *X);
  czk_groth16_vk *vk = &out->vk;
  czk_g1_affine *h = czk_alloc_big(n * sizeof *h), *l = czk_alloc_big((na ? na : 1) * sizeof *l);
  czk_g1_affine *a = czk_alloc_big(n_a * sizeof *a), *b1 = czk_alloc_big((n_b ? n_b : 1) * sizeof *b1);
  czk_g2_affine *b2 = czk_alloc_big((n_b ? n_b : 1) * sizeof *b2);
  vk->ic = malloc(ni * sizeof *vk->ic);
  vk->n_ic = ni;
  fb_state fb = {o ? o->be : NULL, false, pool, n - 1 + na + n_a + n_b, n_b, NULL, NULL, 0};
  if (!L || !X || !sc || !h || !l || !a || !b1 || !b2 || !vk->ic) st = CZK_ERR_NOMEM;
  if (st == CZK_OK) {
    /* zt = tau^n - 1 (square k times) */
    zt = *tau;
    for (unsigned i = 0; i < sh->log_domain; i++) czk_fr_sqr(&zt, &zt);
    czk_fr_sub(&zt, &zt, &czk_fr_one_v);
    czk_fr omega, ninv;
    st = czk_fr_root_of_unity(&omega, sh->log_domain, CZK_ROOTS_BELLMAN);
    czk_fr_from_u64(&ninv, n);
    czk_fr_inv(&ninv, &ninv);
    czk_fr_mul(&t, &zt, &ninv); /* (tau^n - 1) / n */
    lagrange_ctx lc = {L, sc, tau, &omega, &t, CZK_OK};
    if (st == CZK_OK) czk_pool_parallel_for(pool, n, 1 << 14, lagrange_chunk, &lc);
    if (st == CZK_OK) st = (czk_status)atomic_load(&lc.status);
  }
  ts[1] = czk__now_s();
  czk_fr *XA = X, *XB = X + nv, *XC = X + 2 * nv;
  if (st == CZK_OK) {
    if (sh->outline) {
      st = qap_outline(sh, o, L, X, nv);
    } else {
      acc_ctx ac = {X, nv, {&sh->a, &sh->b, &sh->c}, sh->n_constraints, L};
      czk_pool_parallel_for(pool, 3, 1, accumulate, &ac);
    }
    czk_fr_inv(&gi, gamma);
    czk_fr_inv(&di, delta);
  }
  ts[2] = czk__now_s();
  ts[3] = ts[2];
  if (st == CZK_OK) {
    /* ic (inputs, / gamma) and l (aux, / delta): beta A + alpha B + C */
    lsc_ctx lc = {sc, XA, XB, XC, alpha, beta, &gi, &di, ni};
    czk_pool_parallel_for(pool, nv, 1 << 14, lsc_chunk, &lc);
    st = fb_mul(&fb, CZK_BACKEND_G1, vk->ic, sc, ni);
    if (st == CZK_OK) st = fb_mul(&fb, CZK_BACKEND_G1, l, sc + ni, na);
  }
  if (st == CZK_OK) { /* a: inputs, then aux with A-density */
    size_t m = 0;
    for (size_t i = 0; i < nv; i++)
      if (i < ni || czk_density_get(sh->a_aux_density, i - ni)) sc[m++] = XA[i];
    st = m == n_a ? fb_mul(&fb, CZK_BACKEND_G1, a, sc, m) : CZK_ERR_INTERNAL;
  }
  if (st == CZK_OK) { /* b: inputs with B-density, then aux with B-density */
    size_t m = 0;
    for (size_t i = 0; i < nv; i++)
      if (i < ni ? czk_density_get(sh->b_input_density, i) : czk_density_get(sh->b_aux_density, i - ni))
        sc[m++] = XB[i];
    st = m == n_b ? fb_mul(&fb, CZK_BACKEND_G1, b1, sc, m) : CZK_ERR_INTERNAL;
    ts[4] = czk__now_s();
    if (st == CZK_OK) st = fb_mul(&fb, CZK_BACKEND_G2, b2, sc, m);
    ts[5] = czk__now_s();
  }
  if (st == CZK_OK) { /* h_i = tau^i (tau^n - 1) / delta */
    czk_fr_mul(&t, &zt, &di);
    pow_ctx pc = {sc, &t, tau};
    czk_pool_parallel_for(pool, n - 1, 1 << 16, powers_chunk, &pc);
    st = fb_mul(&fb, CZK_BACKEND_G1, h, sc, n - 1);
  }
  ts[6] = czk__now_s();
  if (st == CZK_OK) { /* the vk (constant-time multiplications) */
    czk_g1 g1, p1;
    czk_g2 g2, p2;
    czk_g1_generator(&g1);
    czk_g2_generator(&g2);
    czk_g1_mul(&p1, &g1, alpha), czk_g1_to_affine(&vk->alpha_g1, &p1);
    czk_g1_mul(&p1, &g1, beta), czk_g1_to_affine(&vk->beta_g1, &p1);
    czk_g2_mul(&p2, &g2, beta), czk_g2_to_affine(&vk->beta_g2, &p2);
    czk_g2_mul(&p2, &g2, gamma), czk_g2_to_affine(&vk->gamma_g2, &p2);
    czk_g1_mul(&p1, &g1, delta), czk_g1_to_affine(&vk->delta_g1, &p1);
    czk_g2_mul(&p2, &g2, delta), czk_g2_to_affine(&vk->delta_g2, &p2);
  }
  /* wipe every secret before any I/O */
  wipe(&zt, sizeof zt), wipe(&t, sizeof t), wipe(&gi, sizeof gi), wipe(&di, sizeof di);
  wipe(L, L ? n * sizeof *L : 0);
  wipe(X, X ? 3 * nv * sizeof *X : 0);
  wipe(sc, sc ? nsc * sizeof *sc : 0);
  free(L), free(X), free(sc);
  czk_g1_fixed_base_free(fb.t1);
  czk_g2_fixed_base_free(fb.t2);
  /* A query point at infinity (a zero polynomial evaluation) would be filtered by bellperson; negligible here. */
  if (st == CZK_OK) st = any_infinity_g1(h, n - 1, pool);
  if (st == CZK_OK) st = any_infinity_g1(a, n_a, pool);
  if (st == CZK_OK) st = any_infinity_g1(b1, n_b, pool);
  if (st == CZK_OK) st = any_infinity_g1(l, na, pool);
  out->h = h, out->l = l, out->a = a, out->b_g1 = b1, out->b_g2 = b2;
  out->s = (czk_groth16_pk_sizes){n - 1, na, n_a, n_b, n_b};
  if (st != CZK_OK) {
    czk_groth16_key_mem_free(out);
    return st;
  }
  ts[7] = czk__now_s();
  /* stage times: at info level for keys worth waiting for */
  CZK_LOG(sh->log_domain >= 16 ? CZK_LOG_INFO : CZK_LOG_DEBUG, "groth16",
          "setup 2^%u (%zu G1 + %zu G2 points, %s%s): lagrange %.2f s, %s %.2f s, ic/l/a/b_g1 %.2f s, "
          "b_g2 %.2f s, h %.2f s (of which generator tables %.2f s), vk + checks %.2f s",
          sh->log_domain, n - 1 + na + n_a + n_b, n_b, fb.cpu || !fb.be ? "cpu" : "device ",
          fb.cpu || !fb.be ? "" : czk_backend_name(fb.be), ts[1] - ts[0],
          sh->outline ? "circuit walk (QAP)" : "accumulate", ts[2] - ts[1], ts[4] - ts[3], ts[5] - ts[4],
          ts[6] - ts[5], fb.t_tables, ts[7] - ts[6]);
  return CZK_OK;
}

static czk_status write_key(const czk_groth16_key_mem *k, const char *params_path, const char *vk_path,
                            czk_pool *pool) {
  czk_groth16_pk_queries q;
  czk_groth16_key_mem_queries(k, &q);
  czk_status st = czk__groth16_params_write(params_path, &k->vk, &q, &k->s, pool);
  if (st == CZK_OK && vk_path) st = czk_groth16_vk_write(&k->vk, vk_path);
  return st;
}

czk_status czk__groth16_setup_seeded(const czk_r1cs *sh, const char *params_path, const char *vk_path, czk_pool *pool,
                                     const czk_fr tw[5]) {
  if (!sh || !params_path || !tw) return CZK_ERR_INVALID_ARG;
  if (sh->outline) return CZK_ERR_STATE;
  czk_groth16_setup_opts o = {pool, NULL, NULL, NULL, tw};
  czk_groth16_key_mem k;
  CZK_TRY(setup_core(&k, sh, &o, tw));
  czk_status st = write_key(&k, params_path, vk_path, pool);
  czk_groth16_key_mem_free(&k);
  return st;
}

czk_status czk_groth16_setup_mem(czk_groth16_key_mem *out, const czk_r1cs *sh, const czk_groth16_setup_opts *o) {
  if (!out) return CZK_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  if (!sh) return CZK_ERR_INVALID_ARG;
  if (sh->outline && (!o || !o->synth)) return CZK_ERR_STATE;
  if (o && o->toxic) return setup_core(out, sh, o, o->toxic);
  czk_fr tw[5]; /* toxic waste: tau, alpha, beta, gamma, delta */
  czk_status st = CZK_OK;
  for (int i = 0; i < 5 && st == CZK_OK; i++) st = czk_fr_random(&tw[i]);
  if (st == CZK_OK) st = setup_core(out, sh, o, tw);
  wipe(tw, sizeof tw);
  return st;
}

czk_status czk_groth16_setup_ex(const czk_r1cs *sh, const char *params_path, const char *vk_path,
                                const czk_groth16_setup_opts *o) {
  if (!params_path) return CZK_ERR_INVALID_ARG;
  czk_groth16_key_mem k;
  CZK_TRY(czk_groth16_setup_mem(&k, sh, o));
  czk_status st = write_key(&k, params_path, vk_path, o ? o->pool : NULL);
  czk_groth16_key_mem_free(&k);
  return st;
}

czk_status czk_groth16_setup(const czk_r1cs *sh, const char *params_path, const char *vk_path, czk_pool *pool) {
  if (!sh || !params_path) return CZK_ERR_INVALID_ARG;
  if (sh->outline) return CZK_ERR_STATE;
  czk_groth16_setup_opts o = {pool, NULL, NULL, NULL, NULL};
  return czk_groth16_setup_ex(sh, params_path, vk_path, &o);
}
