/* wpack.c: the packed witness format of include/czk/backend.h ("packed witness upload") on the host: packing (two
 * passes over chunks of 1024 values on the pool: bit maps and counts, then, after a prefix sum of the counts, the
 * other values copied to their places) and the reference unpacking, which the CPU backend also uses. */
#include <string.h>

#include "backend/backend_impl.h"

size_t czk_backend_wpack_bytes(size_t n, size_t n_other) {
  size_t nc = (n + CZK_WPACK_CHUNK - 1) / CZK_WPACK_CHUNK;
  return CZK_WPACK_VALS(nc) + n_other * sizeof(czk_fr);
}

typedef struct pack_ctx {
  uint8_t *dst;
  const czk_fr *w;
  size_t n, nc;
} pack_ctx;

/* pass 1: the chunk's bit maps, and its count of other values in its index slot (made a prefix sum afterwards) */
static void pack_bits(void *vctx, size_t c0, size_t c1) {
  pack_ctx *x = vctx;
  uint32_t *ob = (uint32_t *)x->dst, *nb = ob + 32 * x->nc, *start = nb + 32 * x->nc;
  for (size_t c = c0; c < c1; c++) {
    uint32_t cnt = 0;
    for (size_t k = 0; k < 32; k++) {
      uint32_t o = 0, one = 0;
      size_t i0 = c * CZK_WPACK_CHUNK + 32 * k;
      size_t m = i0 >= x->n ? 0 : (x->n - i0 < 32 ? x->n - i0 : 32);
      const uint64_t o0 = czk_fr_one_v.l[0], o1 = czk_fr_one_v.l[1], o2 = czk_fr_one_v.l[2], o3 = czk_fr_one_v.l[3];
      const czk_fr *v = x->w + i0;
      for (size_t i = 0; i < m; i++) { /* branch-free: zero, one or other from two ORs of the limbs */
        const uint64_t z = v[i].l[0] | v[i].l[1] | v[i].l[2] | v[i].l[3];
        const uint64_t d = (v[i].l[0] ^ o0) | (v[i].l[1] ^ o1) | (v[i].l[2] ^ o2) | (v[i].l[3] ^ o3);
        o |= (uint32_t)((z != 0) & (d != 0)) << i;
        one |= (uint32_t)(d == 0) << i;
      }
      ob[32 * c + k] = o;
      nb[32 * c + k] = one;
      cnt += (uint32_t)__builtin_popcount(o);
    }
    start[c] = cnt;
  }
}

/* pass 2: the chunk's other values to their places */
static void pack_vals(void *vctx, size_t c0, size_t c1) {
  pack_ctx *x = vctx;
  const uint32_t *ob = (const uint32_t *)x->dst, *start = ob + 64 * x->nc;
  czk_fr *vals = (czk_fr *)(x->dst + CZK_WPACK_VALS(x->nc));
  for (size_t c = c0; c < c1; c++) {
    size_t j = start[c];
    for (size_t k = 0; k < 32; k++)
      for (uint32_t o = ob[32 * c + k]; o; o &= o - 1)
        vals[j++] = x->w[c * CZK_WPACK_CHUNK + 32 * k + (size_t)__builtin_ctz(o)];
  }
}

czk_status czk_backend_wpack(void *dst, size_t cap, const czk_fr *w, size_t n, size_t max_other, czk_pool *pool,
                             size_t *n_other) {
  if (n_other) *n_other = 0;
  if (!dst || (!w && n) || !n_other || n >= ((size_t)1 << 32)) return CZK_ERR_INVALID_ARG;
  size_t nc = (n + CZK_WPACK_CHUNK - 1) / CZK_WPACK_CHUNK;
  if (cap < CZK_WPACK_VALS(nc)) return CZK_ERR_INVALID_ARG;
  pack_ctx x = {dst, w, n, nc};
  if (pool) czk_pool_parallel_for(pool, nc, 16, pack_bits, &x);
  else pack_bits(&x, 0, nc);
  uint32_t *start = (uint32_t *)dst + 64 * nc;
  size_t total = 0;
  for (size_t c = 0; c < nc; c++) {
    uint32_t cnt = start[c];
    start[c] = (uint32_t)total;
    total += cnt;
  }
  *n_other = total;
  if (total > max_other) return CZK_ERR_LIMIT;
  if (czk_backend_wpack_bytes(n, total) > cap) return CZK_ERR_INVALID_ARG;
  memset((uint8_t *)dst + 260 * nc, 0, CZK_WPACK_VALS(nc) - 260 * nc); /* the padding: no stale bytes travel */
  if (pool) czk_pool_parallel_for(pool, nc, 16, pack_vals, &x);
  else pack_vals(&x, 0, nc);
  return CZK_OK;
}

czk_status czk_backend_wunpack_host(czk_fr *w, const void *src, size_t bytes, size_t n, size_t n_other) {
  if ((!w && n) || !src || n >= ((size_t)1 << 32)) return CZK_ERR_INVALID_ARG;
  size_t nc = (n + CZK_WPACK_CHUNK - 1) / CZK_WPACK_CHUNK;
  if (bytes != czk_backend_wpack_bytes(n, n_other)) return CZK_ERR_FORMAT;
  const uint32_t *ob = src, *nb = ob + 32 * nc, *start = nb + 32 * nc;
  const czk_fr *vals = (const czk_fr *)((const uint8_t *)src + CZK_WPACK_VALS(nc));
  for (size_t c = 0; c < nc; c++) {
    size_t j = start[c];
    if (j > n_other) return CZK_ERR_FORMAT;
    for (size_t k = 0; k < 32; k++) {
      size_t i0 = c * CZK_WPACK_CHUNK + 32 * k;
      uint32_t o = ob[32 * c + k], one = nb[32 * c + k];
      size_t m = i0 >= n ? 0 : (n - i0 < 32 ? n - i0 : 32);
      uint32_t valid = m == 32 ? 0xffffffffu : (uint32_t)((1ull << m) - 1);
      if (((o | one) & ~valid) || (o & one)) return CZK_ERR_FORMAT;
      for (size_t i = 0; i < m; i++) {
        if ((o >> i) & 1) {
          if (j >= n_other) return CZK_ERR_FORMAT;
          w[i0 + i] = vals[j++];
        } else {
          w[i0 + i] = (one >> i) & 1 ? czk_fr_one_v : czk_fr_zero_v;
        }
      }
    }
    if (c + 1 < nc ? j != start[c + 1] : j != n_other) return CZK_ERR_FORMAT;
  }
  return CZK_OK;
}
