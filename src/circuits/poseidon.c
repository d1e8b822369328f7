/* poseidon.c: Poseidon over BLS12-381 Fr, bit-compatible with neptune (argumentcomputer/neptune, poseidon.rs).
 *
 * Parameters for arity a (width t = a + 1), S-box x^5:
 *   - round numbers: neptune's port of calc_round_numbers.py (128-bit security, n = 256, with the security margin
 *     R_F += 2, R_P = ceil(1.075 R_P)); R_F = 8 and R_P = 55/56/57/57/59/59/60 for a = 2/4/8/11/16/24/36;
 *     Strengthened: R_P' = ceil(1.25 R_P);
 *   - round constants: (R_F + R_P) t elements from the Grain LFSR (80-bit state initialised with field=1, sbox=1,
 *     field_size=255, t, R_F, R_P and 30 ones; b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i;
 *     160 bits discarded; self-shrinking: of each bit pair (x, y) y is output iff x = 1); each candidate is 255
 *     output bits read as a big-endian integer, rejected when >= r;
 *   - MDS: Cauchy matrix M[i][j] = 1 / (i + (t + j)), i, j < t (symmetric);
 *   - permutation: R_F/2 full rounds, R_P partial rounds (S-box on element 0 only), R_F/2 full rounds; each round:
 *     add round constants, S-boxes, multiply by M.
 * Optimized (neptune OptimizedStatic) schedule used by czk_poseidon_permute: the round constants are pushed back
 * through M^-1 so that each is added right after an S-box (compress_round_constants), and the partial-round matrices
 * are factored M = M' M'' (M'' sparse: dense first row and column, identity elsewhere), giving one dense pre-sparse
 * matrix and R_P sparse ones (factor_to_sparse_matrices). Cost per hash: R_F t + R_P S-boxes (3 mul each),
 * R_F t^2 + R_P (2t - 1) multiplications for the linear layers.
 *
 * Domain tags (neptune HashType): MerkleTree 2^a - 1, ConstantLength(n) n 2^64, Encryption 2^32, Custom(id) id 2^40,
 * Sponge 0. Constants are generated on first use per (arity, strength) and cached for the process lifetime. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/poseidon_impl.h"

/* ------------------------------------------------------------------------------------------------ round numbers */
/* Every f32 operation is stored separately so that the compiler cannot contract them (neptune evaluates in f32). */
static int ceil_to_int(float x) { return (int)ceilf(x); }

static bool rounds_secure(unsigned t, unsigned rf, unsigned rp) {
  const float n = 256.0f, m = 128.0f;
  volatile float tf = (float)t, rpf = (float)rp, x, y;
  x = n - 3.0f;
  y = tf + 1.0f;
  x = x * y;
  float rf_stat = m <= x ? 6.0f : 10.0f;
  x = 0.43f * m;
  y = log2f(tf);
  x = x + y;
  float rf_interp = x - rpf;
  x = 0.21f * n;
  float rf_grob_1 = x - rpf;
  x = 0.14f * n;
  x = x - 1.0f;
  x = x - rpf;
  y = tf - 1.0f;
  float rf_grob_2 = x / y;
  int need = 0, c;
  /* Rust's `as usize` saturates negative values to 0. */
  c = ceil_to_int(rf_stat);
  if (c > need) need = c;
  c = ceil_to_int(rf_interp);
  if (c > need) need = c;
  c = ceil_to_int(rf_grob_1);
  if (c > need) need = c;
  c = ceil_to_int(rf_grob_2);
  if (c > need) need = c;
  return (int)rf >= need;
}

czk_status czk_poseidon_round_numbers(unsigned arity, czk_poseidon_strength s, unsigned *rf_out, unsigned *rp_out) {
  if (arity < 1 || arity > 64 || (s != CZK_POSEIDON_STANDARD && s != CZK_POSEIDON_STRENGTHENED))
    return CZK_ERR_INVALID_ARG;
  unsigned t = arity + 1, rf = 0, rp = 0;
  size_t best = SIZE_MAX;
  /* As neptune's calc_round_numbers(t, true): note that the margin is added to the *outer* loop variable, which
   * therefore keeps growing for the rest of the inner loop. */
  for (unsigned rf0 = 2; rf0 <= 1000; rf0 += 2) {
    unsigned rf_test = rf0;
    for (unsigned rp0 = 4; rp0 < 200; rp0++) {
      unsigned rp_test = rp0;
      if (!rounds_secure(t, rf_test, rp_test)) continue;
      rf_test += 2;
      volatile float f = 1.075f * (float)rp_test;
      rp_test = (unsigned)ceil_to_int(f);
      size_t cost = (size_t)t * rf_test + rp_test;
      if (cost < best || (cost == best && rf_test < rf)) {
        rf = rf_test;
        rp = rp_test;
        best = cost;
      }
    }
  }
  if (s == CZK_POSEIDON_STRENGTHENED) rp = (unsigned)ceil((double)rp * 1.25);
  *rf_out = rf;
  *rp_out = rp;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ Grain LFSR */
typedef struct {
  unsigned __int128 s; /* bit j = b_{i+j}; bit 0 is the oldest */
} grain;

static unsigned grain_step(grain *g) {
  unsigned __int128 s = g->s;
  unsigned nb = (unsigned)((s >> 62) ^ (s >> 51) ^ (s >> 38) ^ (s >> 23) ^ (s >> 13) ^ s) & 1u;
  g->s = (s >> 1) | ((unsigned __int128)nb << 79);
  return nb;
}

static unsigned grain_next(grain *g) { /* self-shrinking output bit */
  for (;;) {
    unsigned x = grain_step(g), y = grain_step(g);
    if (x) return y;
  }
}

static void grain_init(grain *g, unsigned t, unsigned rf, unsigned rp) {
  /* Bits in order b0..b79 (each field most significant bit first). */
  struct {
    unsigned n;
    uint64_t v;
  } fields[] = {{2, 1}, {4, 1}, {12, 255}, {12, t}, {10, rf}, {10, rp}, {30, 0x3fffffff}};
  unsigned pos = 0;
  g->s = 0;
  for (size_t f = 0; f < CZK_ARRAY_LEN(fields); f++)
    for (unsigned i = fields[f].n; i-- > 0; pos++)
      if ((fields[f].v >> i) & 1) g->s |= (unsigned __int128)1 << pos;
  for (int i = 0; i < 160; i++) grain_step(g);
}

static void grain_constants(czk_fr *out, size_t count, unsigned t, unsigned rf, unsigned rp) {
  grain g;
  grain_init(&g, t, rf, rp);
  for (size_t k = 0; k < count;) {
    uint8_t be[32];
    /* 255 bits, most significant first: 7 in the first byte, then 31 full bytes. */
    for (int i = 0; i < 32; i++) {
      unsigned nbits = i == 0 ? 7 : 8, acc = 0;
      for (unsigned b = 0; b < nbits; b++) acc = (acc << 1) | grain_next(&g);
      be[i] = (uint8_t)acc;
    }
    if (czk_fr_from_bytes_be(&out[k], be) == CZK_OK) k++;
  }
}

/* ------------------------------------------------------------------------------------------------ matrices */
#define M_AT(m, n, i, j) ((m)[(size_t)(i) * (n) + (j)])

static void mat_mul(czk_fr *r, const czk_fr *a, const czk_fr *b, unsigned n) { /* r = a b; r distinct */
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < n; j++) {
      czk_fr acc, t;
      czk_fr_set_zero(&acc);
      for (unsigned k = 0; k < n; k++) {
        czk_fr_mul(&t, &M_AT(a, n, i, k), &M_AT(b, n, k, j));
        czk_fr_add(&acc, &acc, &t);
      }
      M_AT(r, n, i, j) = acc;
    }
}

/* r = m v (left application), r distinct from v. */
static void mat_apply_left(czk_fr *r, const czk_fr *m, const czk_fr *v, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    czk_fr acc, t;
    czk_fr_set_zero(&acc);
    for (unsigned j = 0; j < n; j++) {
      czk_fr_mul(&t, &M_AT(m, n, i, j), &v[j]);
      czk_fr_add(&acc, &acc, &t);
    }
    r[i] = acc;
  }
}

/* Gauss-Jordan inverse (public data, vartime). Returns false when singular. a is destroyed. */
static bool mat_inv(czk_fr *r, czk_fr *a, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < n; j++) {
      if (i == j)
        czk_fr_set_one(&M_AT(r, n, i, j));
      else
        czk_fr_set_zero(&M_AT(r, n, i, j));
    }
  for (unsigned col = 0; col < n; col++) {
    unsigned piv = col;
    while (piv < n && czk_fr_is_zero(&M_AT(a, n, piv, col))) piv++;
    if (piv == n) return false;
    if (piv != col)
      for (unsigned j = 0; j < n; j++) {
        czk_fr t = M_AT(a, n, col, j);
        M_AT(a, n, col, j) = M_AT(a, n, piv, j);
        M_AT(a, n, piv, j) = t;
        t = M_AT(r, n, col, j);
        M_AT(r, n, col, j) = M_AT(r, n, piv, j);
        M_AT(r, n, piv, j) = t;
      }
    czk_fr inv;
    czk_fr_inv_vartime(&inv, &M_AT(a, n, col, col));
    for (unsigned j = 0; j < n; j++) {
      czk_fr_mul(&M_AT(a, n, col, j), &M_AT(a, n, col, j), &inv);
      czk_fr_mul(&M_AT(r, n, col, j), &M_AT(r, n, col, j), &inv);
    }
    for (unsigned i = 0; i < n; i++) {
      if (i == col || czk_fr_is_zero(&M_AT(a, n, i, col))) continue;
      czk_fr f = M_AT(a, n, i, col), t;
      for (unsigned j = 0; j < n; j++) {
        czk_fr_mul(&t, &f, &M_AT(a, n, col, j));
        czk_fr_sub(&M_AT(a, n, i, j), &M_AT(a, n, i, j), &t);
        czk_fr_mul(&t, &f, &M_AT(r, n, col, j));
        czk_fr_sub(&M_AT(r, n, i, j), &M_AT(r, n, i, j), &t);
      }
    }
  }
  return true;
}

/* Solves a x = b by Gaussian elimination (public data, vartime); a and b are destroyed. False when singular.
 * Cost ~ n^3/3 multiplications and n inversions. */
static bool mat_solve(czk_fr *x, czk_fr *a, czk_fr *b, unsigned n) {
  czk_fr pinv[CZK_POSEIDON_MAX_ARITY + 1]; /* inverses of the pivots, reused by the back substitution */
  for (unsigned col = 0; col < n; col++) {
    unsigned piv = col;
    while (piv < n && czk_fr_is_zero(&M_AT(a, n, piv, col))) piv++;
    if (piv == n) return false;
    if (piv != col) {
      for (unsigned j = col; j < n; j++) {
        czk_fr t = M_AT(a, n, col, j);
        M_AT(a, n, col, j) = M_AT(a, n, piv, j);
        M_AT(a, n, piv, j) = t;
      }
      czk_fr t = b[col];
      b[col] = b[piv];
      b[piv] = t;
    }
    czk_fr f, t;
    czk_fr_inv_vartime(&pinv[col], &M_AT(a, n, col, col));
    for (unsigned i = col + 1; i < n; i++) {
      if (czk_fr_is_zero(&M_AT(a, n, i, col))) continue;
      czk_fr_mul(&f, &M_AT(a, n, i, col), &pinv[col]);
      for (unsigned j = col + 1; j < n; j++) {
        czk_fr_mul(&t, &f, &M_AT(a, n, col, j));
        czk_fr_sub(&M_AT(a, n, i, j), &M_AT(a, n, i, j), &t);
      }
      czk_fr_mul(&t, &f, &b[col]);
      czk_fr_sub(&b[i], &b[i], &t);
    }
  }
  for (unsigned i = n; i-- > 0;) {
    czk_fr acc = b[i], t;
    for (unsigned j = i + 1; j < n; j++) {
      czk_fr_mul(&t, &M_AT(a, n, i, j), &x[j]);
      czk_fr_sub(&acc, &acc, &t);
    }
    czk_fr_mul(&x[i], &acc, &pinv[i]);
  }
  return true;
}

/* neptune derive_mds_matrices, the parts used by the sparse factorization: for M with v = M[0][1..],
 * w = M[1..][0] and M^ = minor(M, 0, 0):
 *   M'  = [[1, 0], [0, M^]]                 (mprime)
 *   M'' = [[M[0][0], v], [M^^-1 w, I]]      (mdp)
 * so that M = M' M''. M^^-1 w is unique, so solving M^ x = w equals neptune's inverse-then-apply.
 * scratch: n^2 + 2n. Returns false when M^ is singular. */
static bool derive_sparse(czk_fr *mprime, czk_fr *mdp, const czk_fr *m, unsigned n, czk_fr *scratch) {
  unsigned k = n - 1;
  czk_fr *hat = scratch, *w = scratch + (size_t)k * k, *x = w + k;
  for (unsigned i = 0; i < k; i++) {
    for (unsigned j = 0; j < k; j++) M_AT(hat, k, i, j) = M_AT(m, n, i + 1, j + 1);
    w[i] = M_AT(m, n, i + 1, 0);
  }
  if (!mat_solve(x, hat, w, k)) return false;
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < n; j++) {
      czk_fr_set_zero(&M_AT(mprime, n, i, j));
      czk_fr_set_zero(&M_AT(mdp, n, i, j));
    }
  czk_fr_set_one(&M_AT(mprime, n, 0, 0));
  for (unsigned i = 1; i < n; i++)
    for (unsigned j = 1; j < n; j++) M_AT(mprime, n, i, j) = M_AT(m, n, i, j);
  for (unsigned j = 0; j < n; j++) M_AT(mdp, n, 0, j) = M_AT(m, n, 0, j);
  for (unsigned i = 1; i < n; i++) {
    M_AT(mdp, n, i, 0) = x[i - 1];
    czk_fr_set_one(&M_AT(mdp, n, i, i));
  }
  return true;
}

/* ------------------------------------------------------------------------------------------------ constants */
static void poseidon_free(czk_poseidon *p) {
  if (!p) return;
  free(p->rc);
  free(p->crc);
  free(p->m);
  free(p->m_inv);
  free(p->pre_sparse);
  free(p->w_hat);
  free(p->v_rest);
  free(p);
}

/* neptune compress_round_constants with partial_preprocessed = R_P. */
static void compress_constants(czk_poseidon *p, czk_fr *tmp /* 2 t */) {
  unsigned t = p->width, half = p->half, rp = p->rp;
  const czk_fr *rc = p->rc;
  czk_fr *out = p->crc;
  size_t o = 0;
#define RK(r) (rc + (size_t)(r) * t)
  for (unsigned i = 0; i < t; i++) out[o++] = RK(0)[i];
  for (unsigned i = 0; i + 1 < half; i++) { /* rounds 1 .. half-1, inverted through M */
    mat_apply_left(out + o, p->m_inv, RK(i + 1), t);
    o += t;
  }
  /* Partial rounds, from the last backwards: acc starts at the first second-half full round's keys. */
  czk_fr *acc = tmp, *inv = tmp + t;
  unsigned final_round = half + rp;
  for (unsigned i = 0; i < t; i++) acc[i] = RK(final_round)[i];
  czk_fr *partial = out + o + t; /* partial keys are emitted after M^-1 acc, in forward order */
  for (unsigned i = 0; i < rp; i++) {
    mat_apply_left(inv, p->m_inv, acc, t);
    partial[rp - 1 - i] = inv[0];
    czk_fr_set_zero(&inv[0]);
    for (unsigned j = 0; j < t; j++) czk_fr_add(&acc[j], &RK(final_round - i - 1)[j], &inv[j]);
  }
  mat_apply_left(out + o, p->m_inv, acc, t);
  o += t + rp;
  for (unsigned i = 1; i < half; i++) {
    mat_apply_left(out + o, p->m_inv, RK(i + final_round), t);
    o += t;
  }
#undef RK
}

static czk_status poseidon_new(czk_poseidon **out, unsigned arity, czk_poseidon_strength strength) {
  unsigned rf, rp;
  CZK_TRY(czk_poseidon_round_numbers(arity, strength, &rf, &rp));
  czk_poseidon *p = calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  unsigned t = arity + 1;
  size_t t2 = (size_t)t * t;
  p->arity = arity;
  p->width = t;
  p->rf = rf;
  p->rp = rp;
  p->half = rf / 2;
  p->strength = strength;
  p->rc = malloc(sizeof(czk_fr) * (size_t)(rf + rp) * t);
  p->crc = malloc(sizeof(czk_fr) * ((size_t)rf * t + rp));
  p->m = malloc(sizeof(czk_fr) * t2);
  p->m_inv = malloc(sizeof(czk_fr) * t2);
  p->pre_sparse = malloc(sizeof(czk_fr) * t2);
  p->w_hat = malloc(sizeof(czk_fr) * (size_t)rp * t);
  p->v_rest = malloc(sizeof(czk_fr) * (size_t)rp * (t - 1));
  czk_fr *scratch = malloc(sizeof(czk_fr) * (5 * t2 + 2 * t));
  if (!p->rc || !p->crc || !p->m || !p->m_inv || !p->pre_sparse || !p->w_hat || !p->v_rest || !scratch) {
    free(scratch);
    poseidon_free(p);
    return CZK_ERR_NOMEM;
  }
  grain_constants(p->rc, (size_t)(rf + rp) * t, t, rf, rp);

  /* Cauchy MDS. */
  for (unsigned i = 0; i < t; i++)
    for (unsigned j = 0; j < t; j++) {
      czk_fr d;
      czk_fr_from_u64(&d, (uint64_t)i + t + j);
      czk_fr_inv_vartime(&M_AT(p->m, t, i, j), &d);
    }
  czk_fr *a = scratch, *b = scratch + t2, *c = scratch + 2 * t2, *s2 = scratch + 3 * t2; /* s2: 2 t^2 */
  memcpy(a, p->m, sizeof(czk_fr) * t2);
  czk_status st = mat_inv(p->m_inv, a, t) ? CZK_OK : CZK_ERR_INTERNAL;

  /* Sparse factorization of the (transposed = same, M is symmetric) MDS over R_P partial rounds:
   * cur = M; repeat R_P times: cur = M' M''; record M''; cur = M M'. pre_sparse = final cur; sparse in reverse. */
  if (st == CZK_OK) {
    memcpy(a, p->m, sizeof(czk_fr) * t2); /* cur */
    for (unsigned k = 0; k < rp && st == CZK_OK; k++) {
      if (!derive_sparse(b, c, a, t, s2)) {
        st = CZK_ERR_INTERNAL;
        break;
      }
      unsigned idx = rp - 1 - k; /* reversed */
      for (unsigned i = 0; i < t; i++) p->w_hat[(size_t)idx * t + i] = M_AT(c, t, i, 0);
      for (unsigned j = 1; j < t; j++) p->v_rest[(size_t)idx * (t - 1) + j - 1] = M_AT(c, t, 0, j);
      mat_mul(a, p->m, b, t);
    }
    memcpy(p->pre_sparse, a, sizeof(czk_fr) * t2);
  }
  if (st == CZK_OK) compress_constants(p, scratch + 5 * t2);
  free(scratch);
  if (st != CZK_OK) {
    poseidon_free(p);
    return st;
  }
  *out = p;
  return CZK_OK;
}

static czk_poseidon *g_cache[CZK_POSEIDON_MAX_ARITY + 1][2];
static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;

czk_status czk_poseidon_get(const czk_poseidon **out, unsigned arity, czk_poseidon_strength strength) {
  if (!out || arity < 1 || arity > CZK_POSEIDON_MAX_ARITY ||
      (strength != CZK_POSEIDON_STANDARD && strength != CZK_POSEIDON_STRENGTHENED))
    return CZK_ERR_INVALID_ARG;
  czk_poseidon *p = __atomic_load_n(&g_cache[arity][strength], __ATOMIC_ACQUIRE);
  if (p) {
    *out = p;
    return CZK_OK;
  }
  /* Generate outside the lock; the first finished generator wins, later ones free theirs. */
  czk_poseidon *fresh = NULL;
  CZK_TRY(poseidon_new(&fresh, arity, strength));
  pthread_mutex_lock(&g_cache_lock);
  p = g_cache[arity][strength];
  if (!p) {
    __atomic_store_n(&g_cache[arity][strength], fresh, __ATOMIC_RELEASE);
    p = fresh;
    fresh = NULL;
  }
  pthread_mutex_unlock(&g_cache_lock);
  poseidon_free(fresh);
  *out = p;
  return CZK_OK;
}

unsigned czk_poseidon_arity(const czk_poseidon *p) { return p->arity; }

void czk_poseidon_rounds(const czk_poseidon *p, unsigned *full_rounds, unsigned *partial_rounds) {
  if (full_rounds) *full_rounds = p->rf;
  if (partial_rounds) *partial_rounds = p->rp;
}

czk_status czk_poseidon_domain_tag(czk_fr *tag, czk_poseidon_hash_type type, uint64_t param, unsigned arity) {
  uint64_t raw[4] = {0, 0, 0, 0};
  switch (type) {
  case CZK_POSEIDON_MERKLE_TREE:
    if (arity < 1 || arity > CZK_POSEIDON_MAX_ARITY) return CZK_ERR_INVALID_ARG;
    raw[0] = (UINT64_C(1) << arity) - 1;
    break;
  case CZK_POSEIDON_CONSTANT_LENGTH: raw[1] = param; break; /* n * 2^64 */
  case CZK_POSEIDON_ENCRYPTION: raw[0] = UINT64_C(1) << 32; break;
  case CZK_POSEIDON_CUSTOM:
    if (param < 1 || param > 256) return CZK_ERR_INVALID_ARG;
    raw[0] = param << 40;
    break;
  case CZK_POSEIDON_SPONGE: break;
  default: return CZK_ERR_INVALID_ARG;
  }
  return czk_fr_from_raw(tag, raw);
}

/* ------------------------------------------------------------------------------------------------ permutation */
static void mds_left(const czk_poseidon *p, czk_fr *state) { /* state = M state */
  czk_fr tmp[CZK_POSEIDON_MAX_ARITY + 1];
  mat_apply_left(tmp, p->m, state, p->width);
  memcpy(state, tmp, sizeof(czk_fr) * p->width);
}

void czk_poseidon_permute_reference(const czk_poseidon *p, czk_fr *state) {
  unsigned t = p->width;
  const czk_fr *rc = p->rc;
  for (unsigned r = 0; r < p->half; r++, rc += t) {
    for (unsigned i = 0; i < t; i++) {
      czk_fr_add(&state[i], &state[i], &rc[i]);
      czk__poseidon_sbox(&state[i], NULL);
    }
    mds_left(p, state);
  }
  for (unsigned r = 0; r < p->rp; r++, rc += t) {
    for (unsigned i = 0; i < t; i++) czk_fr_add(&state[i], &state[i], &rc[i]);
    czk__poseidon_sbox(&state[0], NULL);
    mds_left(p, state);
  }
  for (unsigned r = 0; r < p->half; r++, rc += t) {
    for (unsigned i = 0; i < t; i++) {
      czk_fr_add(&state[i], &state[i], &rc[i]);
      czk__poseidon_sbox(&state[i], NULL);
    }
    mds_left(p, state);
  }
}

void czk_poseidon_permute(const czk_poseidon *p, czk_fr *state) {
  unsigned t = p->width;
  const czk_fr *k = p->crc;
  czk_fr tmp[CZK_POSEIDON_MAX_ARITY + 1];
  for (unsigned i = 0; i < t; i++) czk_fr_add(&state[i], &state[i], &k[i]);
  k += t;
  /* First half: S-boxes with post-keys; M for all but the last, then the pre-sparse matrix (state = state · P). */
  for (unsigned r = 0; r < p->half; r++, k += t) {
    for (unsigned i = 0; i < t; i++) czk__poseidon_sbox(&state[i], &k[i]);
    if (r + 1 < p->half) {
      mds_left(p, state);
    } else {
      for (unsigned j = 0; j < t; j++) {
        czk_fr acc, x;
        czk_fr_set_zero(&acc);
        for (unsigned i = 0; i < t; i++) {
          czk_fr_mul(&x, &M_AT(p->pre_sparse, t, i, j), &state[i]);
          czk_fr_add(&acc, &acc, &x);
        }
        tmp[j] = acc;
      }
      memcpy(state, tmp, sizeof(czk_fr) * t);
    }
  }
  /* Partial rounds: S-box on element 0 plus its key, then the sparse matrix (state · S). */
  for (unsigned r = 0; r < p->rp; r++, k++) {
    czk__poseidon_sbox(&state[0], k);
    const czk_fr *w = p->w_hat + (size_t)r * t, *v = p->v_rest + (size_t)r * (t - 1);
    czk_fr acc, x, s0 = state[0];
    czk_fr_set_zero(&acc);
    for (unsigned i = 0; i < t; i++) {
      czk_fr_mul(&x, &w[i], &state[i]);
      czk_fr_add(&acc, &acc, &x);
    }
    for (unsigned j = 1; j < t; j++) {
      czk_fr_mul(&x, &v[j - 1], &s0);
      czk_fr_add(&state[j], &state[j], &x);
    }
    state[0] = acc;
  }
  /* Second half: keys after the S-boxes except in the last round. */
  for (unsigned r = 0; r < p->half; r++) {
    bool last = r + 1 == p->half;
    for (unsigned i = 0; i < t; i++) czk__poseidon_sbox(&state[i], last ? NULL : &k[i]);
    if (!last) k += t;
    mds_left(p, state);
  }
}

/* ------------------------------------------------------------------------------------------------ hashing */
czk_status czk_poseidon_hash(czk_fr *out, const czk_poseidon *p, czk_poseidon_hash_type type, uint64_t param,
                             const czk_fr *in, size_t n) {
  if (!out || !p || (n && !in)) return CZK_ERR_INVALID_ARG;
  czk_fr state[CZK_POSEIDON_MAX_ARITY + 1];
  unsigned a = p->arity;
  if (type == CZK_POSEIDON_SPONGE) return CZK_ERR_UNSUPPORTED;
  CZK_TRY(czk_poseidon_domain_tag(&state[0], type, param, a));
  for (unsigned i = 1; i <= a; i++) czk_fr_set_zero(&state[i]);
  if (type != CZK_POSEIDON_CONSTANT_LENGTH) {
    if (n != a) return CZK_ERR_SIZE_MISMATCH;
    memcpy(state + 1, in, sizeof(czk_fr) * a);
    czk_poseidon_permute(p, state);
    *out = state[1];
    return CZK_OK;
  }
  if (param != n || n == 0) return CZK_ERR_SIZE_MISMATCH;
  /* neptune simplex sponge (Sponge::new_with_constants(ConstantLength(n)), absorb each, squeeze once). */
  size_t pos = 0; /* absorbed into the current block */
  for (size_t i = 0; i < n; i++) {
    czk_fr_add(&state[1 + pos], &state[1 + pos], &in[i]);
    if (++pos == a) {
      czk_poseidon_permute(p, state);
      pos = 0;
    }
  }
  if (pos) { /* final partial block: apply_padding zeroes the rest of the rate, then the last permutation */
    for (unsigned i = (unsigned)pos + 1; i <= a; i++) czk_fr_set_zero(&state[i]);
    czk_poseidon_permute(p, state);
  }
  *out = state[1];
  return CZK_OK;
}

czk_status czk_fc_poseidon_hash_md(czk_fr *out, const czk_fr *in, size_t n) {
  if (!out || !in || n < 2) return CZK_ERR_INVALID_ARG;
  const czk_poseidon *p;
  CZK_TRY(czk_poseidon_get(&p, 36, CZK_POSEIDON_STANDARD));
  czk_fr acc = in[0], pre[36];
  for (size_t i = 1; i < n; i += 35) {
    size_t take = n - i < 35 ? n - i : 35;
    pre[0] = acc;
    for (size_t j = 0; j < 35; j++) {
      if (j < take)
        pre[j + 1] = in[i + j];
      else
        czk_fr_set_zero(&pre[j + 1]);
    }
    CZK_TRY(czk_poseidon_hash(&acc, p, CZK_POSEIDON_MERKLE_TREE, 0, pre, 36));
  }
  *out = acc;
  return CZK_OK;
}
