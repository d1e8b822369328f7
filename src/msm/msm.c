/* msm.c: CPU Pippenger MSM for G1 and G2 (czk/msm.h): planning (window size, splits, scratch), scalar preparation,
 * and the two instantiations of msm_tmpl.h.
 *
 * Signed digits without a sequential carry: with H = sum_{j<W} 2^(c-1) 2^(cj), digit j of k is
 * bits(k + H, cj, c) - 2^(c-1) in [-2^(c-1), 2^(c-1)), exact as long as k + H < 2^(cW). For k < r < 0.4532 * 2^256:
 * H < 2^(cW) * 2^(c-1) / (2^c - 1); if cW >= 257 then H < (2/3) 2^(cW) and k < 2^(cW-2), fine; if cW = 256 then
 * c in {2, 4, 8, 16} and 2^256 - H >= (7/15) 2^256 > r for c >= 4, so only c = 2 needs an extra window.
 * Raw scalars >= r are reduced first (at most two subtractions since 2^256 < 3r).
 *
 * Window choice: minimize rounds * ceil(W*S / T) * (a * round_points/S + 0.5 * 2^c) in XYZZ mixed-add equivalents:
 * n/S bucket additions per task at a = 0.6 (batch-affine) or 1 (XYZZ, small tasks), plus the running-sum reduction
 * over 2^(c-1) buckets (coefficient fitted to measurements: G1 2^16 single-thread ran 740-780 ms at c = 12 and
 * 650-660 ms at c = 13, 14 on a 16-core Xeon); over c in [2, 20] and S in {1, 2, 4, .., 64},
 * with rounds of at most 2^22 points (bounds the 40-byte-per-point digit buffer to 160 MiB). */
#include "czk/msm.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define KP_LIMBS 5
#define MSM_ROUND_MAX ((size_t)1 << 22)

/* One pending affine addition of a batch: bucket m += (neg ? -P_i : P_i), or bucket m doubled (dbl). */
typedef struct {
  uint32_t m, i;
  uint8_t neg, dbl;
} msm_op;

typedef struct {
  size_t xyzz, jac, aff;
} msm_sizes;

static msm_sizes sizes_of(czk_msm_group g) {
  msm_sizes z;
  z.xyzz = g == CZK_MSM_G1 ? sizeof(czk_g1_xyzz) : sizeof(czk_g2_xyzz);
  z.jac = g == CZK_MSM_G1 ? sizeof(czk_g1) : sizeof(czk_g2);
  z.aff = g == CZK_MSM_G1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
  return z;
}

/* Scratch: [digits kp: round_points x KP_LIMBS limbs][slots x slot][partials: W*S Jacobian]. A slot holds, for
 * nb = 2^(c-1) buckets: XYZZ overflow buckets, affine buckets, one state byte per bucket (bit 0 occupied, bit 1 busy
 * in the current batch), and a batch of bt pending ops with their denominators and prefix products. */
typedef struct {
  size_t kp_off, slots_off, slot_bytes, partials_off, total;
  size_t ovf_off, aff_off, occ_off, ops_off, den_off, pre_off; /* inside a slot */
  unsigned bt;
} msm_layout;

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

/* batch size of the affine accumulation: ~nb/8 (about 6% of additions hit a busy bucket and go to XYZZ) */
static unsigned batch_for(unsigned c) {
  size_t nb = (size_t)1 << (c - 1), bt = nb / 8;
  return (unsigned)(bt < 32 ? 32 : bt > 512 ? 512 : bt);
}

static void msm_layout_of(msm_layout *L, const czk_msm_plan *p, msm_sizes z) {
  size_t nb = (size_t)1 << (p->window_bits - 1);
  L->bt = batch_for(p->window_bits);
  L->ovf_off = 0;
  L->aff_off = align64(nb * z.xyzz);
  L->occ_off = L->aff_off + align64(nb * z.aff);
  L->ops_off = L->occ_off + align64(nb);
  L->den_off = L->ops_off + align64(L->bt * sizeof(msm_op));
  L->pre_off = L->den_off + align64(L->bt * z.aff / 2);
  L->slot_bytes = L->pre_off + align64(L->bt * z.aff / 2);
  L->kp_off = 0;
  L->slots_off = align64(p->round_points * KP_LIMBS * sizeof(uint64_t));
  L->partials_off = L->slots_off + (size_t)p->slots * L->slot_bytes;
  L->total = align64(L->partials_off + (size_t)p->windows * p->splits * z.jac) + 64;
}

static unsigned windows_for(unsigned c) {
  unsigned w = (256 + c - 1) / c;
  if (c * w == 256 && c < 4) w++;
  return w;
}

czk_status czk_msm_plan_init_ex(czk_msm_plan *plan, czk_msm_group group, size_t max_points, unsigned threads,
                                unsigned window_bits, unsigned splits) {
  if (!plan || (group != CZK_MSM_G1 && group != CZK_MSM_G2)) return CZK_ERR_INVALID_ARG;
  if (window_bits && (window_bits < 2 || window_bits > 20)) return CZK_ERR_INVALID_ARG;
  if (splits > 1024) return CZK_ERR_INVALID_ARG;
  memset(plan, 0, sizeof *plan);
  if (threads == 0) threads = czk_pool_threads(NULL);
  size_t n = max_points ? max_points : 1;
  size_t rp = n < MSM_ROUND_MAX ? n : MSM_ROUND_MAX;
  double rounds = (double)((n + rp - 1) / rp);
  double best = 0;
  unsigned bc = 0, bs = 1;
  for (unsigned c = 2; c <= 20; c++) {
    if (window_bits && c != window_bits) continue;
    unsigned W = windows_for(c);
    /* candidate splits: the forced one, or powers of two up to 64 (and at most one point per split) */
    for (unsigned S = splits ? splits : 1; S <= (splits ? splits : 64u); S = splits ? S + 1 : S * 2) {
      if (!splits && S > rp) break;
      double waves = (double)(((size_t)W * S + threads - 1) / threads);
      double per_point = (double)rp / S >= 4.0 * batch_for(c) ? 0.6 : 1.0; /* batch-affine vs XYZZ additions */
      double cost = rounds * waves * (per_point * (double)rp / S + 0.5 * (double)((size_t)1 << c));
      if (bc == 0 || cost < best * 0.999) {
        best = cost;
        bc = c;
        bs = S;
      }
    }
  }
  plan->group = group;
  plan->max_points = max_points;
  plan->threads = threads;
  plan->window_bits = bc;
  plan->windows = windows_for(bc);
  plan->splits = bs;
  unsigned tasks = plan->windows * bs;
  plan->slots = threads < tasks ? threads : tasks;
  plan->round_points = rp;
  msm_layout L;
  msm_layout_of(&L, plan, sizes_of(group));
  plan->scratch_bytes = L.total;
  return CZK_OK;
}

czk_status czk_msm_plan_init(czk_msm_plan *plan, czk_msm_group group, size_t max_points, unsigned threads) {
  return czk_msm_plan_init_ex(plan, group, max_points, threads, 0, 0);
}

/* A plan from the caller is checked before its numbers size any memory access. */
static bool plan_valid(const czk_msm_plan *p) {
  if (p->window_bits < 2 || p->window_bits > 20 || p->windows != windows_for(p->window_bits)) return false;
  if (p->splits < 1 || p->splits > 1024 || p->slots < 1 || p->slots > 4096 || p->round_points < 1) return false;
  if (p->round_points > MSM_ROUND_MAX) return false;
  msm_layout L;
  msm_layout_of(&L, p, sizes_of(p->group));
  return L.total <= p->scratch_bytes;
}

/* H = sum_{j<W} 2^(c-1) 2^(cj) as KP_LIMBS limbs (cW <= 260 < 320). */
static void msm_offset(uint64_t H[KP_LIMBS], unsigned c, unsigned W) {
  memset(H, 0, KP_LIMBS * sizeof(uint64_t));
  for (unsigned j = 0; j < W; j++) {
    unsigned bit = c * j + c - 1;
    H[bit >> 6] |= (uint64_t)1 << (bit & 63);
  }
}

size_t czk_msm_density_count(const uint64_t *density, size_t n) {
  if (!density) return 0;
  size_t cnt = 0, words = n >> 6;
  for (size_t w = 0; w < words; w++) cnt += (size_t)__builtin_popcountll(density[w]);
  if (n & 63) cnt += (size_t)__builtin_popcountll(density[words] & (((uint64_t)1 << (n & 63)) - 1));
  return cnt;
}

/* Index of the set bit of rank `rank` (0-based); the caller guarantees it exists. */
static size_t density_select(const uint64_t *density, size_t rank) {
  size_t w = 0;
  for (;; w++) {
    size_t pc = (size_t)__builtin_popcountll(density[w]);
    if (rank < pc) break;
    rank -= pc;
  }
  uint64_t x = density[w];
  for (size_t k = 0; k < rank; k++) x &= x - 1; /* drop the lowest set bits */
  return (w << 6) + (size_t)__builtin_ctzll(x);
}

static size_t density_next(const uint64_t *density, size_t i) {
  for (i++;; i++) {
    uint64_t x = density[i >> 6] >> (i & 63);
    if (x) return i + (size_t)__builtin_ctzll(x);
    i |= 63;
  }
}

typedef struct {
  const czk_fr *scalars;
  const uint64_t *density;
  unsigned flags;
  const uint64_t *H;
  uint64_t *kp;
  size_t r0;
  const void *bases;
  size_t base_size;
  bool (*is_inf)(const void *);
} msm_prep_ctx;

static bool geq_r(const uint64_t k[4]) {
  for (int i = 3; i >= 0; i--) {
    if (k[i] != czk_fr_modulus[i]) return k[i] > czk_fr_modulus[i];
  }
  return true;
}

static void sub_r(uint64_t k[4]) {
  unsigned __int128 borrow = 0;
  for (int i = 0; i < 4; i++) {
    unsigned __int128 t = (unsigned __int128)k[i] - czk_fr_modulus[i] - (uint64_t)borrow;
    k[i] = (uint64_t)t;
    borrow = (t >> 64) & 1;
  }
}

/* kp[i] = canonical(k) + H for the round's points [r0 + b, r0 + e). */
static void msm_prep(void *vctx, size_t b, size_t e) {
  const msm_prep_ctx *pc = vctx;
  size_t si = pc->density ? density_select(pc->density, pc->r0 + b) : pc->r0 + b;
  for (size_t i = b; i < e; i++) {
    uint64_t k[4];
    const void *base = (const uint8_t *)pc->bases + (pc->r0 + i) * pc->base_size;
    if (pc->is_inf(base)) {
      memset(k, 0, sizeof k);
    } else if (pc->flags & CZK_MSM_SCALARS_RAW) {
      memcpy(k, pc->scalars[si].l, sizeof k);
      while (geq_r(k)) sub_r(k);
    } else {
      czk_fr_to_raw(k, &pc->scalars[si]);
    }
    uint64_t *o = pc->kp + i * KP_LIMBS;
    unsigned __int128 carry = 0;
    for (int l = 0; l < KP_LIMBS; l++) {
      unsigned __int128 t = (unsigned __int128)(l < 4 ? k[l] : 0) + pc->H[l] + (uint64_t)carry;
      o[l] = (uint64_t)t;
      carry = t >> 64;
    }
    if (i + 1 < e) si = pc->density ? density_next(pc->density, si) : si + 1;
  }
}

static bool g1_aff_is_inf(const void *p) { return czk_g1_affine_is_infinity((const czk_g1_affine *)p); }
static bool g2_aff_is_inf(const void *p) { return czk_g2_affine_is_infinity((const czk_g2_affine *)p); }

/* ---- G1 */
#define MSM_SFX g1
#define MSM_GROUP CZK_MSM_G1
#define AFF czk_g1_affine
#define JAC czk_g1
#define XYZZ czk_g1_xyzz
#define F_IS_ZERO czk_fp_is_zero
#define FE_T czk_fp
#define FE(op) czk_fp_##op
#define MSM_AFF_IS_INF g1_aff_is_inf
#include "msm/msm_tmpl.h"
#undef MSM_SFX
#undef MSM_GROUP
#undef AFF
#undef JAC
#undef XYZZ
#undef F_IS_ZERO
#undef FE_T
#undef FE
#undef MSM_AFF_IS_INF

/* ---- G2 */
#define MSM_SFX g2
#define MSM_GROUP CZK_MSM_G2
#define AFF czk_g2_affine
#define JAC czk_g2
#define XYZZ czk_g2_xyzz
#define F_IS_ZERO czk_fp2_is_zero
#define FE_T czk_fp2
#define FE(op) czk_fp2_##op
#define MSM_AFF_IS_INF g2_aff_is_inf
#include "msm/msm_tmpl.h"
#undef MSM_SFX
#undef MSM_GROUP
#undef AFF
#undef JAC
#undef XYZZ
#undef F_IS_ZERO
#undef FE_T
#undef FE
#undef MSM_AFF_IS_INF

czk_status czk_msm_g1(czk_g1 *out, const czk_g1_affine *bases, const czk_fr *scalars, size_t n, unsigned flags,
                      const czk_msm_plan *plan, void *scratch, czk_pool *pool) {
  if (!out || (n && (!bases || !scalars))) return CZK_ERR_INVALID_ARG;
  return msm_any_g1(out, bases, scalars, n, NULL, flags, plan, scratch, pool);
}

czk_status czk_msm_g2(czk_g2 *out, const czk_g2_affine *bases, const czk_fr *scalars, size_t n, unsigned flags,
                      const czk_msm_plan *plan, void *scratch, czk_pool *pool) {
  if (!out || (n && (!bases || !scalars))) return CZK_ERR_INVALID_ARG;
  return msm_any_g2(out, bases, scalars, n, NULL, flags, plan, scratch, pool);
}

czk_status czk_msm_g1_density(czk_g1 *out, const czk_g1_affine *bases, const czk_fr *scalars, size_t n_scalars,
                              const uint64_t *density, unsigned flags, const czk_msm_plan *plan, void *scratch,
                              czk_pool *pool, size_t *bases_used) {
  if (!out || (n_scalars && (!scalars || !density))) return CZK_ERR_INVALID_ARG;
  size_t m = czk_msm_density_count(density, n_scalars);
  if (bases_used) *bases_used = m;
  if (m && !bases) return CZK_ERR_INVALID_ARG;
  return msm_any_g1(out, bases, scalars, m, density, flags, plan, scratch, pool);
}

czk_status czk_msm_g2_density(czk_g2 *out, const czk_g2_affine *bases, const czk_fr *scalars, size_t n_scalars,
                              const uint64_t *density, unsigned flags, const czk_msm_plan *plan, void *scratch,
                              czk_pool *pool, size_t *bases_used) {
  if (!out || (n_scalars && (!scalars || !density))) return CZK_ERR_INVALID_ARG;
  size_t m = czk_msm_density_count(density, n_scalars);
  if (bases_used) *bases_used = m;
  if (m && !bases) return CZK_ERR_INVALID_ARG;
  return msm_any_g2(out, bases, scalars, m, density, flags, plan, scratch, pool);
}
