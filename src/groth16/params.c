/* params.c: bellperson .params proving keys: memory-mapped open with full layout validation, lazy decoding of the
 * queries into affine Montgomery arrays (on the pool), and the writer used by our own setup.
 *
 * Layout: vk block (vk.c) | u32 BE n_h | n_h G1 | u32 BE n_l | n_l G1 | u32 BE n_a | n_a G1 | u32 BE n_b1 | n_b1 G1 |
 *         u32 BE n_b2 | n_b2 G2, points uncompressed (G1 96 B, G2 192 B). The file must end exactly there.
 * open: checks every count against the bytes left before reading the section (CZK_ERR_TRUNCATED), trailing bytes
 * (CZK_ERR_FORMAT), and the vk points fully (curve, subgroup). prepare: decodes each query point (flags, canonical,
 * on the curve; the subgroup check is skipped for speed as in bellperson's unchecked mapped reads) and rejects points
 * at infinity (bellperson: PointIsAtInfinity); after a successful prepare the mapping is released.
 * Thread safety: prepare is idempotent; concurrent callers wait on a condition variable while one decodes (no lock
 * held across the decoding). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/ntt.h"
#include "core/atomicfile.h"
#include "groth16/groth16_internal.h"

enum { Q_H, Q_L, Q_A, Q_B1, Q_B2, Q_N };

typedef enum { PREP_NONE, PREP_RUNNING, PREP_DONE } prep_state;

struct czk_groth16_pk {
  czk__file_map map;
  czk_groth16_vk vk;
  size_t n[Q_N];
  size_t off[Q_N]; /* offset of the first point of each query */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  prep_state state;
  czk_status prep_status;
  czk_g1_affine *g1[4]; /* h, l, a, b_g1 */
  czk_g2_affine *b_g2;
  czk_ntt_domain *domain; /* bellman roots, size n_h + 1 */
};

const struct czk_ntt_domain *czk__groth16_pk_domain(const czk_groth16_pk *pk) {
  return pk->state == PREP_DONE && pk->prep_status == CZK_OK ? pk->domain : NULL;
}

czk_status czk_groth16_pk_open(czk_groth16_pk **out, const char *path) {
  *out = NULL;
  czk_groth16_pk *pk = calloc(1, sizeof *pk);
  if (!pk) return CZK_ERR_NOMEM;
  czk_status st = czk__file_map_open(&pk->map, path);
  size_t pos = 0;
  if (st == CZK_OK) st = czk_groth16_vk_parse(&pk->vk, pk->map.data, pk->map.len, &pos);
  for (int q = 0; q < Q_N && st == CZK_OK; q++) {
    size_t psz = q == Q_B2 ? 192 : 96;
    if (pk->map.len - pos < 4) {
      st = CZK_ERR_TRUNCATED;
      break;
    }
    uint32_t n = czk__be32(pk->map.data + pos);
    pos += 4;
    if ((uint64_t)n * psz > pk->map.len - pos) {
      st = CZK_ERR_TRUNCATED;
      break;
    }
    pk->n[q] = n;
    pk->off[q] = pos;
    pos += (size_t)n * psz;
  }
  if (st == CZK_OK && pos != pk->map.len) st = CZK_ERR_FORMAT;
  /* Structural consistency independent of the circuit: every input is in the a query, and B in G1/G2 match. */
  if (st == CZK_OK && (pk->n[Q_A] < pk->vk.n_ic || pk->n[Q_B1] != pk->n[Q_B2])) st = CZK_ERR_SIZE_MISMATCH;
  if (pk->map.data && czk__file_map_check(&pk->map) != CZK_OK) st = CZK_ERR_FILE_CHANGED;
  if (st != CZK_OK) {
    czk_groth16_vk_free(&pk->vk);
    czk__file_map_close(&pk->map);
    free(pk);
    return st;
  }
  pthread_mutex_init(&pk->mu, NULL);
  pthread_cond_init(&pk->cv, NULL);
  *out = pk;
  return CZK_OK;
}

void czk_groth16_pk_close(czk_groth16_pk *pk) {
  if (!pk) return;
  czk_groth16_vk_free(&pk->vk);
  czk__file_map_close(&pk->map);
  for (int q = 0; q < 4; q++) free(pk->g1[q]);
  free(pk->b_g2);
  czk_ntt_domain_free(pk->domain);
  pthread_mutex_destroy(&pk->mu);
  pthread_cond_destroy(&pk->cv);
  free(pk);
}

const czk_groth16_vk *czk_groth16_pk_vk(const czk_groth16_pk *pk) { return &pk->vk; }

void czk_groth16_pk_get_sizes(const czk_groth16_pk *pk, czk_groth16_pk_sizes *s) {
  s->n_h = pk->n[Q_H];
  s->n_l = pk->n[Q_L];
  s->n_a = pk->n[Q_A];
  s->n_b_g1 = pk->n[Q_B1];
  s->n_b_g2 = pk->n[Q_B2];
}

czk_status czk_groth16_pk_get_queries(const czk_groth16_pk *pk, czk_groth16_pk_queries *q) {
  memset(q, 0, sizeof *q);
  if (pk->state != PREP_DONE || pk->prep_status != CZK_OK) return CZK_ERR_STATE;
  q->h = pk->g1[Q_H];
  q->l = pk->g1[Q_L];
  q->a = pk->g1[Q_A];
  q->b_g1 = pk->g1[Q_B1];
  q->b_g2 = pk->b_g2;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ prepare */
typedef struct dec_ctx {
  const uint8_t *src;
  void *dst;
  bool g2;
  _Atomic int status; /* first failure (0 = ok) */
} dec_ctx;

static void dec_chunk(void *vctx, size_t begin, size_t end) {
  dec_ctx *c = vctx;
  for (size_t i = begin; i < end; i++) {
    czk_status st;
    if (c->g2) {
      czk_g2_affine *d = (czk_g2_affine *)c->dst + i;
      st = czk_g2_deserialize_unchecked(d, c->src + i * 192);
      if (st == CZK_OK && czk_g2_affine_is_infinity(d)) st = CZK_ERR_FORMAT;
    } else {
      czk_g1_affine *d = (czk_g1_affine *)c->dst + i;
      st = czk_g1_deserialize_unchecked(d, c->src + i * 96);
      if (st == CZK_OK && czk_g1_affine_is_infinity(d)) st = CZK_ERR_FORMAT;
    }
    if (st != CZK_OK) {
      int expect = 0;
      atomic_compare_exchange_strong(&c->status, &expect, (int)st);
      return;
    }
  }
}

static czk_status decode_all(czk_groth16_pk *pk, czk_pool *pool) {
  size_t n = pk->n[Q_H] + 1;
  unsigned log_n = 0;
  while (((size_t)1 << log_n) < n) log_n++;
  if (((size_t)1 << log_n) != n || log_n > 31) return CZK_ERR_FORMAT; /* h has 2^k - 1 points */
  CZK_TRY(czk_ntt_domain_new(&pk->domain, log_n, CZK_ROOTS_BELLMAN, pool));
  for (int q = 0; q < Q_N; q++) {
    bool g2 = q == Q_B2;
    size_t n = pk->n[q];
    void *dst = malloc((n ? n : 1) * (g2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine)));
    if (!dst) return CZK_ERR_NOMEM;
    if (g2)
      pk->b_g2 = dst;
    else
      pk->g1[q] = dst;
    dec_ctx c = {pk->map.data + pk->off[q], dst, g2, 0};
    czk_pool_parallel_for(pool, n, 256, dec_chunk, &c);
    int st = atomic_load(&c.status);
    if (st != 0) return (czk_status)st;
  }
  return CZK_OK;
}

czk_status czk_groth16_pk_prepare(czk_groth16_pk *pk, czk_pool *pool) {
  pthread_mutex_lock(&pk->mu);
  while (pk->state == PREP_RUNNING) pthread_cond_wait(&pk->cv, &pk->mu);
  if (pk->state == PREP_DONE) {
    czk_status st = pk->prep_status;
    pthread_mutex_unlock(&pk->mu);
    return st;
  }
  pk->state = PREP_RUNNING;
  pthread_mutex_unlock(&pk->mu);

  czk_status st = decode_all(pk, pool);
  /* the points were decoded from the mapping: a file truncated or rewritten meanwhile gave zeros or a mix */
  if (st == CZK_OK && czk__file_map_check(&pk->map) != CZK_OK) st = CZK_ERR_FILE_CHANGED;
  if (st != CZK_OK) {
    for (int q = 0; q < 4; q++) {
      free(pk->g1[q]);
      pk->g1[q] = NULL;
    }
    free(pk->b_g2);
    pk->b_g2 = NULL;
    czk_ntt_domain_free(pk->domain);
    pk->domain = NULL;
  } else {
    czk__file_map_close(&pk->map); /* everything needed now lives in the decoded arrays and the vk */
  }

  pthread_mutex_lock(&pk->mu);
  pk->prep_status = st;
  pk->state = PREP_DONE;
  pthread_cond_broadcast(&pk->cv);
  pthread_mutex_unlock(&pk->mu);
  return st;
}

/* ------------------------------------------------------------------------------------------------ writer */
static czk_status put(FILE *f, const void *p, size_t n) { return fwrite(p, 1, n, f) == n ? CZK_OK : CZK_ERR_IO; }

/* Points are encoded on the pool in blocks of WRITE_BLOCK (6 MiB of G1, 12 MiB of G2 encodings), each block written
 * after it is complete, so the file is the same for any thread count. */
#define WRITE_BLOCK ((size_t)1 << 16)

typedef struct enc_ctx {
  const void *pts; /* czk_g1_affine or czk_g2_affine */
  bool g2;
  uint8_t *out;
  _Atomic int infinity; /* a point at infinity has no place in a query */
} enc_ctx;

static void enc_chunk(void *vctx, size_t begin, size_t end) {
  enc_ctx *c = vctx;
  for (size_t i = begin; i < end; i++) {
    if (c->g2) {
      const czk_g2_affine *p = (const czk_g2_affine *)c->pts + i;
      if (czk_g2_affine_is_infinity(p)) atomic_store(&c->infinity, 1);
      czk_g2_serialize(c->out + i * 192, p);
    } else {
      const czk_g1_affine *p = (const czk_g1_affine *)c->pts + i;
      if (czk_g1_affine_is_infinity(p)) atomic_store(&c->infinity, 1);
      czk_g1_serialize(c->out + i * 96, p);
    }
  }
}

czk_status czk__groth16_params_write(const char *path, const czk_groth16_vk *vk, const czk_groth16_pk_queries *q,
                                     const czk_groth16_pk_sizes *s, czk_pool *pool) {
  const czk_g1_affine *g1q[4] = {q->h, q->l, q->a, q->b_g1};
  size_t n[Q_N] = {s->n_h, s->n_l, s->n_a, s->n_b_g1, s->n_b_g2};
  size_t most = 0;
  for (int k = 0; k < Q_N; k++) {
    if (n[k] > UINT32_MAX || (n[k] && !(k == Q_B2 ? (const void *)q->b_g2 : (const void *)g1q[k])))
      return CZK_ERR_INVALID_ARG;
    if (n[k] > most) most = n[k];
  }
  size_t vsz = czk_groth16_vk_size(vk);
  size_t bsz = (most < WRITE_BLOCK ? most : WRITE_BLOCK) * 192;
  if (bsz < vsz) bsz = vsz;
  uint8_t *buf = malloc(bsz);
  if (!buf) return CZK_ERR_NOMEM;
  czk__afile af; /* temp + fsync + rename: never rewrite a key another process may have mapped */
  if (czk__afile_open(&af, path, "wb") != CZK_OK) {
    free(buf);
    return CZK_ERR_IO;
  }
  FILE *f = af.f;
  czk_groth16_vk_encode(buf, vk);
  czk_status st = put(f, buf, vsz);
  for (int k = 0; k < Q_N && st == CZK_OK; k++) {
    uint8_t cnt[4];
    czk__put_be32(cnt, (uint32_t)n[k]);
    st = put(f, cnt, 4);
    const size_t sz = k == Q_B2 ? 192 : 96;
    for (size_t at = 0; at < n[k] && st == CZK_OK; at += WRITE_BLOCK) {
      size_t m = n[k] - at < WRITE_BLOCK ? n[k] - at : WRITE_BLOCK;
      enc_ctx c = {k == Q_B2 ? (const void *)(q->b_g2 + at) : (const void *)(g1q[k] + at), k == Q_B2, buf, 0};
      czk_pool_parallel_for(pool, m, 4096, enc_chunk, &c);
      st = atomic_load(&c.infinity) ? CZK_ERR_INVALID_ARG : put(f, buf, m * sz);
    }
  }
  if (st == CZK_OK) st = czk__afile_commit(&af);
  else czk__afile_abort(&af);
  free(buf);
  return st;
}

czk_status czk_groth16_params_write(const char *path, const czk_groth16_vk *vk, const czk_groth16_pk_queries *q,
                                    const czk_groth16_pk_sizes *s) {
  return czk__groth16_params_write(path, vk, q, s, NULL);
}
