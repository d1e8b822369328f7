/* key.c: the prover's key adapters and device copies (groth16.h).
 *
 * A czk_groth16_key is the prover's view of a proving key: the five queries (h, l, a, b_g1, b_g2), which witness
 * entries each multiplies, the H mode and the vk. Two adapters make one:
 *   - bellperson (czk_groth16_key_from_pk): queries of a .params file; h = n - 1 points; a = inputs + aux with
 *     A-density, b = inputs with B-density + aux with B-density: their index lists come from the shape's densities,
 *     and every query size is checked against the shape;
 *   - snarkjs (czk_groth16_key_from_zkey, zkey.c): the zkey's sections; h = n points on the odd coset; a, b over every
 *     variable (no index lists).
 * A czk_groth16_dkey is a copy of the queries and index lists in one backend's memory, made and freed by the owner
 * of key memory (the engine's key cache); the prover only reads it. Each keeps the prover lanes bound to its bases
 * and frees them with itself. */
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16_internal.h"

static const size_t QSZ[CZK__NQ] = {sizeof(czk_g1_affine), sizeof(czk_g1_affine), sizeof(czk_g1_affine),
                                    sizeof(czk_g1_affine), sizeof(czk_g2_affine)};

struct czk_groth16_dkey {
  czk_backend *be;
  unsigned mask; /* queries on the device (the others are read from the host key) */
  czk__bases bases;
  void *d_q[CZK__NQ];
  uint32_t *d_idx[2];
  uint64_t bytes;
  czk__lanes lanes;
};

const czk__bases *czk__key_bases(const czk_groth16_key *k) { return &k->host; }
czk__lanes *czk__key_lanes(const czk_groth16_key *k) { return (czk__lanes *)&k->lanes; }
const czk__bases *czk__dkey_bases(const czk_groth16_dkey *dk) { return &dk->bases; }
czk__lanes *czk__dkey_lanes(const czk_groth16_dkey *dk) { return (czk__lanes *)&dk->lanes; }
czk_backend *czk__dkey_backend(const czk_groth16_dkey *dk) { return dk->be; }
const czk_groth16_vk *czk_groth16_key_vk(const czk_groth16_key *k) { return k ? &k->vk : NULL; }

uint64_t czk_groth16_key_bytes(const czk_groth16_key *k) {
  if (!k) return 0;
  uint64_t b = 0;
  for (int i = 0; i < CZK__NQ; i++) b += (uint64_t)k->host.nq[i] * QSZ[i];
  return b + (uint64_t)(k->host.n_idx[0] + k->host.n_idx[1]) * sizeof(uint32_t);
}

czk_status czk__key_new(czk_groth16_key **out, const czk_groth16_vk *vk, czk_h_kind h, unsigned log_n, size_t n_inputs,
                        size_t n_aux, const void *const q[CZK__NQ], const size_t nq[CZK__NQ], uint32_t *idx_a,
                        size_t n_idx_a, uint32_t *idx_b, size_t n_idx_b) {
  *out = NULL;
  czk_groth16_key *k = calloc(1, sizeof *k);
  czk_status st = k ? czk_groth16_vk_copy(&k->vk, vk) : CZK_ERR_NOMEM;
  if (st != CZK_OK) {
    free(k);
    free(idx_a);
    free(idx_b);
    return st;
  }
  k->h_mode = h, k->log_n = log_n, k->n_inputs = n_inputs, k->n_aux = n_aux;
  for (int i = 0; i < CZK__NQ; i++) k->host.q[i] = q[i], k->host.nq[i] = nq[i];
  k->host.idx[0] = k->idx_own[0] = idx_a, k->host.n_idx[0] = n_idx_a;
  k->host.idx[1] = k->idx_own[1] = idx_b, k->host.n_idx[1] = n_idx_b;
  k->host.streamed = true;
  czk__lanes_init(&k->lanes);
  *out = k;
  return CZK_OK;
}

void czk_groth16_key_free(czk_groth16_key *k) {
  if (!k) return;
  czk__lanes_destroy(&k->lanes);
  if (k->pinned_on) {
    for (int i = 0; i < CZK__NQ; i++)
      if (k->q_pinned & (1u << i)) czk_backend_host_unregister(k->pinned_on, k->host.q[i]);
    for (int j = 0; j < 2; j++)
      if (k->idx_pinned & (1u << j)) czk_backend_host_unregister(k->pinned_on, k->host.idx[j]);
  }
  free(k->idx_own[0]);
  free(k->idx_own[1]);
  czk_groth16_vk_free(&k->vk);
  free(k);
}

czk_status czk_groth16_key_pin(czk_groth16_key *k, czk_backend *be) {
  if (!k || !be) return CZK_ERR_INVALID_ARG;
  if (k->pinned_on) return CZK_OK;
  if (czk_backend_host_memory(be)) return CZK_ERR_UNSUPPORTED;
  /* queries that share a host buffer (a key built over one array of points, as the benches' random keys are) are
   * registered once, over the longest of them: a second registration of the same pages is refused */
  unsigned own = 0;
  czk_status st = CZK_OK;
  for (int i = 0; i < CZK__NQ && st == CZK_OK; i++) {
    if (!k->host.nq[i]) continue;
    size_t bytes = k->host.nq[i] * QSZ[i];
    bool first = true;
    for (int j = 0; j < CZK__NQ; j++) {
      if (j == i || !k->host.nq[j] || (const void *)k->host.q[j] != (const void *)k->host.q[i]) continue;
      if (j < i) first = false;
      if (k->host.nq[j] * QSZ[j] > bytes) bytes = k->host.nq[j] * QSZ[j];
    }
    if (!first) continue;
    st = czk_backend_host_register(be, k->host.q[i], bytes);
    if (st == CZK_OK) own |= 1u << i;
  }
  if (st != CZK_OK) {
    for (int j = 0; j < CZK__NQ; j++)
      if (own & (1u << j)) czk_backend_host_unregister(be, k->host.q[j]);
    return st;
  }
  k->q_pinned = own;
  /* the index lists too (compact lanes copy them per prove); best effort: a refusal leaves them pageable */
  for (int j = 0; j < 2; j++)
    if (k->host.n_idx[j] &&
        czk_backend_host_register(be, k->host.idx[j], k->host.n_idx[j] * sizeof(uint32_t)) == CZK_OK)
      k->idx_pinned |= 1u << j;
  k->pinned_on = be;
  return CZK_OK;
}
bool czk_groth16_key_pinned(const czk_groth16_key *k) { return k && k->pinned_on; }

/* ---- bellperson adapter */
static czk_status density_index(const czk_r1cs *sh, uint32_t **idx_a, size_t *n_a, uint32_t **idx_b, size_t *n_b) {
  const size_t ni = sh->n_inputs, na = sh->n_aux;
  size_t ca = ni + sh->a_aux_count, cb = (size_t)sh->b_input_count + sh->b_aux_count;
  uint32_t *ia = malloc((ca ? ca : 1) * sizeof *ia), *ib = malloc((cb ? cb : 1) * sizeof *ib);
  if (!ia || !ib) {
    free(ia);
    free(ib);
    return CZK_ERR_NOMEM;
  }
  size_t k = 0;
  for (size_t i = 0; i < ni; i++) ia[k++] = (uint32_t)i;
  for (size_t j = 0; j < na && k < ca; j++)
    if (czk_density_get(sh->a_aux_density, j)) ia[k++] = (uint32_t)(ni + j);
  bool ok = k == ca;
  k = 0;
  for (size_t i = 0; i < ni && k < cb; i++)
    if (czk_density_get(sh->b_input_density, i)) ib[k++] = (uint32_t)i;
  for (size_t j = 0; j < na && k < cb; j++)
    if (czk_density_get(sh->b_aux_density, j)) ib[k++] = (uint32_t)(ni + j);
  if (!ok || k != cb) {
    free(ia);
    free(ib);
    return CZK_ERR_INTERNAL;
  }
  *idx_a = ia, *n_a = ca, *idx_b = ib, *n_b = cb;
  return CZK_OK;
}

czk_status czk_groth16_key_from_queries(czk_groth16_key **out, const czk_groth16_vk *vk,
                                        const czk_groth16_pk_queries *qp, const czk_groth16_pk_sizes *sp,
                                        const czk_r1cs *sh) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (!vk || !qp || !sp || !sh) return CZK_ERR_INVALID_ARG;
  const czk_groth16_pk_queries q = *qp;
  const czk_groth16_pk_sizes s = *sp;
  if ((s.n_h && !q.h) || (s.n_l && !q.l) || (s.n_a && !q.a) || (s.n_b_g1 && !q.b_g1) || (s.n_b_g2 && !q.b_g2))
    return CZK_ERR_INVALID_ARG;
  size_t n = (size_t)1 << sh->log_domain;
  if (s.n_h != n - 1 || s.n_l != sh->n_aux || s.n_a != (size_t)sh->n_inputs + sh->a_aux_count ||
      s.n_b_g1 != (size_t)sh->b_input_count + sh->b_aux_count || s.n_b_g2 != s.n_b_g1 || vk->n_ic != sh->n_inputs)
    return CZK_ERR_SIZE_MISMATCH;
  uint32_t *ia, *ib;
  size_t na, nb;
  CZK_TRY(density_index(sh, &ia, &na, &ib, &nb));
  const void *qq[CZK__NQ] = {q.h, q.l, q.a, q.b_g1, q.b_g2};
  const size_t nq[CZK__NQ] = {s.n_h, s.n_l, s.n_a, s.n_b_g1, s.n_b_g2};
  return czk__key_new(out, vk, CZK_H_BELLPERSON, sh->log_domain, sh->n_inputs, sh->n_aux, qq, nq, ia, na, ib, nb);
}

czk_status czk_groth16_key_from_pk(czk_groth16_key **out, czk_groth16_pk *pk, const czk_r1cs *sh, czk_pool *pool) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (!pk || !sh) return CZK_ERR_INVALID_ARG;
  CZK_TRY(czk_groth16_pk_prepare(pk, pool));
  czk_groth16_pk_queries q;
  czk_groth16_pk_sizes s;
  CZK_TRY(czk_groth16_pk_get_queries(pk, &q));
  czk_groth16_pk_get_sizes(pk, &s);
  return czk_groth16_key_from_queries(out, czk_groth16_pk_vk(pk), &q, &s, sh);
}

/* ---- device copies */
void czk_groth16_dkey_free(czk_groth16_dkey *dk) {
  if (!dk) return;
  czk__lanes_destroy(&dk->lanes);
  for (int i = 0; i < CZK__NQ; i++) czk_backend_mem_free(dk->be, dk->d_q[i]);
  for (int i = 0; i < 2; i++) czk_backend_mem_free(dk->be, dk->d_idx[i]);
  free(dk);
}

uint64_t czk_groth16_dkey_bytes(const czk_groth16_dkey *dk) { return dk ? dk->bytes : 0; }

uint64_t czk_groth16_key_copy_bytes(const czk_groth16_key *k, unsigned mask) {
  if (!k) return 0;
  uint64_t b = (uint64_t)(k->host.n_idx[0] + k->host.n_idx[1]) * sizeof(uint32_t);
  for (int i = 0; i < CZK__NQ; i++)
    if (mask & (1u << i)) b += (uint64_t)k->host.nq[i] * QSZ[i];
  return b;
}
unsigned czk_groth16_dkey_mask(const czk_groth16_dkey *dk) { return dk ? dk->mask : 0; }
czk_status czk_groth16_key_upload(czk_groth16_dkey **out, const czk_groth16_key *k, czk_backend *be) {
  return czk_groth16_key_upload_partial(out, k, be, CZK_GROTH16_Q_ALL);
}
czk_status czk_groth16_key_upload_partial(czk_groth16_dkey **out, const czk_groth16_key *k, czk_backend *be,
                                          unsigned mask) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (!k || !be || (mask & ~CZK_GROTH16_Q_ALL)) return CZK_ERR_INVALID_ARG;
  czk_groth16_dkey *dk = calloc(1, sizeof *dk);
  if (!dk) return CZK_ERR_NOMEM;
  dk->be = be;
  dk->mask = mask;
  czk__lanes_init(&dk->lanes);
  czk_backend_stream *s = NULL;
  czk_status st = czk_backend_stream_new(be, &s);
  for (int i = 0; i < CZK__NQ && st == CZK_OK; i++) {
    dk->bases.nq[i] = k->host.nq[i];
    if (!k->host.nq[i]) continue;
    if (!(mask & (1u << i))) { /* left in host memory: streamed by compact lanes */
      dk->bases.q[i] = k->host.q[i];
      dk->bases.host_q[i] = true;
      continue;
    }
    size_t bytes = k->host.nq[i] * QSZ[i];
    st = czk_backend_alloc(be, &dk->d_q[i], bytes);
    if (st == CZK_OK) st = czk_backend_copy_htod(be, dk->d_q[i], k->host.q[i], bytes, s);
    dk->bases.q[i] = dk->d_q[i];
    dk->bytes += bytes;
  }
  for (int i = 0; i < 2 && st == CZK_OK; i++) {
    dk->bases.n_idx[i] = k->host.n_idx[i];
    if (!k->host.n_idx[i]) continue;
    size_t bytes = k->host.n_idx[i] * sizeof(uint32_t);
    st = czk_backend_alloc(be, (void **)&dk->d_idx[i], bytes);
    if (st == CZK_OK) st = czk_backend_copy_htod(be, dk->d_idx[i], k->host.idx[i], bytes, s);
    dk->bases.idx[i] = dk->d_idx[i];
    dk->bytes += bytes;
  }
  if (s) {
    czk_status s2 = czk_backend_stream_sync(be, s); /* the copies read the host arrays until they complete */
    if (st == CZK_OK) st = s2;
    czk_backend_stream_free(be, s);
  }
  if (st != CZK_OK) {
    czk_groth16_dkey_free(dk);
    return st;
  }
  *out = dk;
  return CZK_OK;
}
