/* ntt.c: radix-2 iterative NTT over Fr with precomputed twiddles, cosets by pre/post scaling, and the Groth16 H
 * computation (czk/ntt.h).
 *
 * Transform: bit-reversal permutation, then log n Cooley-Tukey (DIT) stages; stage with half-size m does n/2
 * butterflies (u, v) -> (u + w v, u - w v), w = omega^(j n / 2m), j < m. Cost: (n/2) log n multiplications and
 * n log n additions (butterflies with j = 0 skip the multiplication). The first log2(BLK) stages run per block of
 * BLK contiguous values (cache resident, one parallel task per block); the later stages run one parallel pass each.
 * Inverse twiddles come from the same table: omega^-t = -omega^(n/2 - t) for 0 < t < n/2, so the inverse butterfly
 * is (u - x v, u + x v) with x = omega^(n/2 - t).
 * Scaling a_i *= s g^i (1/n, cosets, 1/Z) is one fused pass: each chunk starts at s g^b (one exponentiation) and
 * multiplies by g per element: n multiplications + 1 per element for the running power.
 * H: bellperson = 3 x (iNTT, scale by g^i/n, NTT) + pointwise a*b - c + (iNTT, scale by g^-i/(n (g^n - 1)));
 * snarkjs = 3 x (iNTT, scale by omega_2n^i/n, NTT) + pointwise a*b - c. */
#include "czk/ntt.h"

#include <stdlib.h>
#include <string.h>

#define NTT_BLK_LOG 11 /* 2^11 values * 32 B = 64 KiB per block */

struct czk_ntt_domain {
  unsigned log_n;
  size_t n;
  czk_fr omega, omega_inv, n_inv;
  bool has_omega2n;
  czk_fr omega2n;
  czk_fr *tw; /* omega^i, i < max(n/2, 1) */
};

size_t czk_ntt_domain_bytes(unsigned log_n) {
  size_t half = log_n ? (size_t)1 << (log_n - 1) : 1;
  return sizeof(czk_ntt_domain) + half * sizeof(czk_fr);
}

static void fr_pow_u64(czk_fr *r, const czk_fr *a, uint64_t e) { czk_fr_pow_vartime(r, a, &e, 1); }

/* ---- scaling a_i *= s * g^i */
typedef struct {
  czk_fr *a;
  const czk_fr *s, *g;
} scale_ctx;

static void scale_chunk(void *vctx, size_t b, size_t e) {
  const scale_ctx *sc = vctx;
  czk_fr x;
  fr_pow_u64(&x, sc->g, b);
  czk_fr_mul(&x, &x, sc->s);
  for (size_t i = b; i < e; i++) {
    czk_fr_mul(&sc->a[i], &sc->a[i], &x);
    czk_fr_mul(&x, &x, sc->g);
  }
}

static void scale(czk_fr *a, size_t n, const czk_fr *s, const czk_fr *g, czk_pool *pool) {
  scale_ctx sc = {a, s, g};
  czk_pool_parallel_for(pool, n, 4096, scale_chunk, &sc);
}

/* ---- twiddles */
typedef struct {
  czk_fr *tw;
  const czk_fr *omega;
} tw_ctx;

static void tw_chunk(void *vctx, size_t b, size_t e) {
  const tw_ctx *tc = vctx;
  czk_fr x;
  fr_pow_u64(&x, tc->omega, b);
  for (size_t i = b; i < e; i++) {
    tc->tw[i] = x;
    czk_fr_mul(&x, &x, tc->omega);
  }
}

static czk_status domain_make(czk_ntt_domain **out, unsigned log_n, const czk_fr *omega, czk_pool *pool) {
  size_t n = (size_t)1 << log_n;
  czk_ntt_domain *d = calloc(1, sizeof *d);
  if (!d) return CZK_ERR_NOMEM;
  size_t half = n > 1 ? n / 2 : 1;
  d->tw = malloc(half * sizeof(czk_fr));
  if (!d->tw) {
    free(d);
    return CZK_ERR_NOMEM;
  }
  d->log_n = log_n;
  d->n = n;
  d->omega = *omega;
  czk_fr_inv_vartime(&d->omega_inv, omega);
  czk_fr nn;
  czk_fr_from_u64(&nn, (uint64_t)n);
  czk_fr_inv_vartime(&d->n_inv, &nn);
  tw_ctx tc = {d->tw, omega};
  if (n > 1) czk_pool_parallel_for(pool, half, 4096, tw_chunk, &tc);
  else czk_fr_set_one(&d->tw[0]);
  *out = d;
  return CZK_OK;
}

czk_status czk_ntt_domain_new_omega(czk_ntt_domain **out, unsigned log_n, const czk_fr *omega, czk_pool *pool) {
  if (!out || !omega) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (log_n > 32 || (sizeof(size_t) < 8 && log_n > 26)) return CZK_ERR_INVALID_ARG;
  if (log_n == 0) {
    if (!czk_fr_is_one(omega)) return CZK_ERR_INVALID_ARG;
  } else {
    czk_fr t, m1;
    fr_pow_u64(&t, omega, (uint64_t)1 << (log_n - 1));
    czk_fr_set_one(&m1);
    czk_fr_neg(&m1, &m1);
    if (!czk_fr_eq(&t, &m1)) return CZK_ERR_INVALID_ARG;
  }
  return domain_make(out, log_n, omega, pool);
}

czk_status czk_ntt_domain_new(czk_ntt_domain **out, unsigned log_n, czk_fr_roots roots, czk_pool *pool) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (log_n > 32 || (roots != CZK_ROOTS_BELLMAN && roots != CZK_ROOTS_SNARKJS)) return CZK_ERR_INVALID_ARG;
  czk_fr omega;
  CZK_TRY(czk_fr_root_of_unity(&omega, log_n, roots));
  CZK_TRY(czk_ntt_domain_new_omega(out, log_n, &omega, pool));
  if (log_n < 32) {
    czk_fr w2, sq;
    if (czk_fr_root_of_unity(&w2, log_n + 1, roots) == CZK_OK) {
      czk_fr_sqr(&sq, &w2);
      if (czk_fr_eq(&sq, &omega)) {
        (*out)->omega2n = w2;
        (*out)->has_omega2n = true;
      }
    }
  }
  return CZK_OK;
}

void czk_ntt_domain_free(czk_ntt_domain *d) {
  if (!d) return;
  free(d->tw);
  free(d);
}

size_t czk_ntt_domain_size(const czk_ntt_domain *d) { return d ? d->n : 0; }
unsigned czk_ntt_domain_log_size(const czk_ntt_domain *d) { return d ? d->log_n : 0; }
void czk_ntt_domain_omega(czk_fr *omega, const czk_ntt_domain *d) { *omega = d->omega; }

/* ---- the transform */
static size_t bitrev(size_t i, unsigned bits) {
  uint64_t x = (uint64_t)i;
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
  x = __builtin_bswap64(x);
  return bits ? (size_t)(x >> (64 - bits)) : 0;
}

typedef struct {
  const czk_ntt_domain *d;
  czk_fr *a;
  bool inverse;
  size_t m; /* half-size of the stage (global passes) */
  unsigned blk_log;
} xf_ctx;

static inline void butterfly(czk_fr *lo, czk_fr *hi, const czk_ntt_domain *d, size_t t, bool inverse) {
  czk_fr u = *lo, v;
  if (t == 0) {
    v = *hi;
    czk_fr_add(lo, &u, &v);
    czk_fr_sub(hi, &u, &v);
  } else if (!inverse) {
    czk_fr_mul(&v, hi, &d->tw[t]);
    czk_fr_add(lo, &u, &v);
    czk_fr_sub(hi, &u, &v);
  } else {
    czk_fr_mul(&v, hi, &d->tw[(d->n >> 1) - t]); /* = -omega^-t * hi */
    czk_fr_sub(lo, &u, &v);
    czk_fr_add(hi, &u, &v);
  }
}

static void bitrev_chunk(void *vctx, size_t b, size_t e) {
  const xf_ctx *x = vctx;
  for (size_t i = b; i < e; i++) {
    size_t j = bitrev(i, x->d->log_n);
    if (i < j) {
      czk_fr t = x->a[i];
      x->a[i] = x->a[j];
      x->a[j] = t;
    }
  }
}

/* stages m = 1 .. 2^(blk_log-1) inside blocks of 2^blk_log values */
static void block_chunk(void *vctx, size_t b, size_t e) {
  const xf_ctx *x = vctx;
  const czk_ntt_domain *d = x->d;
  const size_t blk = (size_t)1 << x->blk_log;
  for (size_t k = b; k < e; k++) {
    czk_fr *a = x->a + k * blk;
    for (size_t m = 1; m < blk; m <<= 1) {
      size_t stride = d->n / (2 * m);
      for (size_t s = 0; s < blk; s += 2 * m)
        for (size_t j = 0; j < m; j++) butterfly(&a[s + j], &a[s + j + m], d, j * stride, x->inverse);
    }
  }
}

/* one global stage: butterflies k in [b, e), k = group * m + j */
static void stage_chunk(void *vctx, size_t b, size_t e) {
  const xf_ctx *x = vctx;
  const czk_ntt_domain *d = x->d;
  const size_t m = x->m, stride = d->n / (2 * m);
  for (size_t k = b; k < e; k++) {
    size_t grp = k / m, j = k & (m - 1);
    size_t lo = grp * 2 * m + j;
    butterfly(&x->a[lo], &x->a[lo + m], d, j * stride, x->inverse);
  }
}

static void transform(const czk_ntt_domain *d, czk_fr *a, bool inverse, czk_pool *pool) {
  if (d->n < 2) return;
  xf_ctx x = {d, a, inverse, 0, d->log_n < NTT_BLK_LOG ? d->log_n : NTT_BLK_LOG};
  czk_pool_parallel_for(pool, d->n, 8192, bitrev_chunk, &x);
  czk_pool_parallel_for(pool, d->n >> x.blk_log, 1, block_chunk, &x);
  for (size_t m = (size_t)1 << x.blk_log; m < d->n; m <<= 1) {
    x.m = m;
    czk_pool_parallel_for(pool, d->n / 2, 4096, stage_chunk, &x);
  }
}

czk_status czk_ntt_forward(const czk_ntt_domain *d, czk_fr *a, czk_pool *pool) {
  if (!d || !a) return CZK_ERR_INVALID_ARG;
  transform(d, a, false, pool);
  return CZK_OK;
}

czk_status czk_ntt_inverse(const czk_ntt_domain *d, czk_fr *a, czk_pool *pool) {
  if (!d || !a) return CZK_ERR_INVALID_ARG;
  transform(d, a, true, pool);
  czk_fr one;
  czk_fr_set_one(&one);
  scale(a, d->n, &d->n_inv, &one, pool);
  return CZK_OK;
}

czk_status czk_ntt_coset_forward(const czk_ntt_domain *d, czk_fr *a, const czk_fr *g, czk_pool *pool) {
  if (!d || !a || !g) return CZK_ERR_INVALID_ARG;
  czk_fr one;
  czk_fr_set_one(&one);
  scale(a, d->n, &one, g, pool);
  transform(d, a, false, pool);
  return CZK_OK;
}

czk_status czk_ntt_coset_inverse(const czk_ntt_domain *d, czk_fr *a, const czk_fr *g, czk_pool *pool) {
  if (!d || !a || !g) return CZK_ERR_INVALID_ARG;
  transform(d, a, true, pool);
  czk_fr ginv;
  czk_fr_inv_vartime(&ginv, g);
  scale(a, d->n, &d->n_inv, &ginv, pool);
  return CZK_OK;
}

/* ---- H */
czk_status czk_h_plan_init(czk_h_plan *plan, czk_h_kind kind, size_t rows) {
  if (!plan || (kind != CZK_H_BELLPERSON && kind != CZK_H_SNARKJS)) return CZK_ERR_INVALID_ARG;
  unsigned log_n = 0;
  while (((size_t)1 << log_n) < rows) {
    if (++log_n > (kind == CZK_H_SNARKJS ? 31u : 32u)) return CZK_ERR_LIMIT;
  }
  memset(plan, 0, sizeof *plan);
  plan->kind = kind;
  plan->rows = rows;
  plan->log_n = log_n;
  plan->n = (size_t)1 << log_n;
  plan->domain_bytes = czk_ntt_domain_bytes(log_n);
  plan->io_bytes = 3 * plan->n * sizeof(czk_fr);
  plan->scratch_bytes = 0;
  return CZK_OK;
}

typedef struct {
  czk_fr *a;
  const czk_fr *b, *c; /* either may be NULL: a = a b, a = a - c */
} abc_ctx;

static void abc_chunk(void *vctx, size_t b, size_t e) {
  const abc_ctx *x = vctx;
  for (size_t i = b; i < e; i++) {
    if (x->b) czk_fr_mul(&x->a[i], &x->a[i], &x->b[i]);
    if (x->c) czk_fr_sub(&x->a[i], &x->a[i], &x->c[i]);
  }
}

/* The coset H moves to: g = 7 (bellperson) or omega_2n (snarkjs). */
static czk_status h_coset(const czk_ntt_domain *d, czk_h_kind kind, czk_fr *g) {
  if (kind == CZK_H_BELLPERSON) czk_fr_coset_generator(g);
  else if (kind == CZK_H_SNARKJS) {
    if (!d->has_omega2n) return CZK_ERR_UNSUPPORTED;
    *g = d->omega2n;
  } else return CZK_ERR_INVALID_ARG;
  return CZK_OK;
}

czk_status czk_ntt_h_step(const czk_ntt_domain *d, czk_h_kind kind, czk_h_step step, czk_fr *x, const czk_fr *y,
                          czk_pool *pool) {
  if (!d || !x || (step != CZK_H_STEP_PREP && !y)) return CZK_ERR_INVALID_ARG;
  czk_fr g;
  CZK_TRY(h_coset(d, kind, &g));
  if (step == CZK_H_STEP_PREP) { /* interpolate, move to the coset g*D */
    transform(d, x, true, pool);
    scale(x, d->n, &d->n_inv, &g, pool);
    transform(d, x, false, pool);
    return CZK_OK;
  }
  abc_ctx c = {x, step == CZK_H_STEP_MUL ? y : NULL, step == CZK_H_STEP_FINISH ? y : NULL};
  if (step != CZK_H_STEP_MUL && step != CZK_H_STEP_FINISH) return CZK_ERR_INVALID_ARG;
  czk_pool_parallel_for(pool, d->n, 4096, abc_chunk, &c);
  if (step == CZK_H_STEP_MUL || kind == CZK_H_SNARKJS) return CZK_OK;
  /* divide by Z(g omega^j) = g^n - 1 (constant on the coset) and coset-interpolate */
  czk_fr zinv, one, s, ginv;
  fr_pow_u64(&zinv, &g, (uint64_t)d->n);
  czk_fr_set_one(&one);
  czk_fr_sub(&zinv, &zinv, &one);
  czk_fr_inv_vartime(&zinv, &zinv);
  czk_fr_mul(&s, &zinv, &d->n_inv);
  czk_fr_inv_vartime(&ginv, &g);
  transform(d, x, true, pool);
  scale(x, d->n, &s, &ginv, pool);
  return CZK_OK;
}

czk_status czk_ntt_h(const czk_ntt_domain *d, czk_h_kind kind, czk_fr *a, czk_fr *b, czk_fr *c, czk_pool *pool) {
  if (!d || !a || !b || !c) return CZK_ERR_INVALID_ARG;
  czk_fr *v[3] = {a, b, c};
  for (int k = 0; k < 3; k++) CZK_TRY(czk_ntt_h_step(d, kind, CZK_H_STEP_PREP, v[k], NULL, pool));
  CZK_TRY(czk_ntt_h_step(d, kind, CZK_H_STEP_MUL, a, b, pool));
  return czk_ntt_h_step(d, kind, CZK_H_STEP_FINISH, a, c, pool);
}
