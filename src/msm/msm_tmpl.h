/* msm_tmpl.h: the Pippenger MSM body, written once and instantiated for G1 and G2 by msm.c, which defines before
 * including: MSM_SFX (g1|g2), MSM_GROUP, the point types AFF/JAC/XYZZ, the field type FE_T with FE(op) naming its
 * functions, F_IS_ZERO and MSM_AFF_IS_INF.
 *
 * Algorithm (c = window bits, W windows, S point splits, nb = 2^(c-1) buckets):
 *   1. per round of up to round_points points: k'_i = k_i + H, H = sum_{j<W} 2^(c-1) 2^(cj) (msm.c: the signed
 *      digit of window j is d_ij = bits(k'_i, cj, c) - 2^(c-1), and sum_j d_ij 2^(cj) = k_i); infinity bases get k = 0.
 *   2. task (j, s): bucket[|d|-1] += sign(d) P_i over the points of split s, then the running-sum reduction
 *      sum_m (m+1) bucket[m] is added to partial (j, s).
 *      Accumulation, batch-affine (tasks of >= 4*bt points): buckets are affine; an addition to an occupied bucket is
 *      queued (denominator x_P - x_B, or 2 y_B for P = B; P = -B empties the bucket at once) and every bt queued
 *      additions share one inversion (Montgomery's trick, 3M each), then lambda = num/den, x3 = lambda^2 - x_B - x_P,
 *      y3 = lambda (x_B - x3) - y_B: 5M + 1S per addition plus 1/bt inversion. A point whose bucket already has a
 *      queued addition in the batch goes to that bucket's XYZZ overflow (mixed add, 8M + 3S) instead of waiting.
 *      Small tasks use XYZZ buckets only. Reduction per bucket: run += affine bucket (mixed), run += overflow (if
 *      any), acc += run (XYZZ add, 12M + 3S).
 *   3. out = sum_j 2^(cj) sum_s partial(j, s) by Horner: W*c doublings and W*S additions.
 * Tasks of one round run on the pool: `slots` workers each own a slot (buckets + batch arrays) and claim (j, s)
 * tasks with an atomic counter, so scratch is bounded by slots, not by tasks. */

#define MSM_CAT2(a, b) a##b
#define MSM_CAT(a, b) MSM_CAT2(a, b)
#define MSM_FN(name) MSM_CAT(name##_, MSM_SFX)
#define GF(name) MSM_CAT(MSM_CAT(czk_, MSM_SFX), MSM_CAT(_, name))

typedef struct {
  const czk_msm_plan *plan;
  const msm_layout *L;
  const AFF *bases;   /* bases of the whole call */
  const uint64_t *kp; /* [round_len][KP_LIMBS] */
  size_t r0, rlen;    /* this round: bases [r0, r0 + rlen) */
  uint8_t *slots;     /* [slots][L->slot_bytes] */
  JAC *partials;      /* [windows * splits] */
  atomic_uint next_task;
  unsigned ntasks;
} MSM_FN(round_ctx);

typedef struct {
  XYZZ *ovf;
  AFF *aff;
  uint8_t *occ;
  msm_op *ops;
  FE_T *den, *pre;
  const AFF *P;
  unsigned bt;
} MSM_FN(slot);

/* Finish the k queued additions: one inversion of the product of denominators, then walk back. */
static void MSM_FN(flush)(MSM_FN(slot) * sl, size_t k) {
  FE_T inv, dinv, lam, t, xq, yq;
  FE(inv_vartime)(&inv, &sl->pre[k - 1]);
  for (size_t q = k; q-- > 0;) {
    if (q) {
      FE(mul)(&dinv, &inv, &sl->pre[q - 1]);
      FE(mul)(&inv, &inv, &sl->den[q]);
    } else {
      dinv = inv;
    }
    const msm_op *op = &sl->ops[q];
    AFF *B = &sl->aff[op->m];
    if (op->dbl) { /* lambda = 3 x^2 / (2 y) */
      FE(sqr)(&t, &B->x);
      FE(add)(&lam, &t, &t);
      FE(add)(&t, &lam, &t);
      xq = B->x;
    } else { /* lambda = (y_P - y_B) / (x_P - x_B) */
      xq = sl->P[op->i].x;
      yq = sl->P[op->i].y;
      if (op->neg) FE(neg)(&yq, &yq);
      FE(sub)(&t, &yq, &B->y);
    }
    FE(mul)(&lam, &t, &dinv);
    FE(sqr)(&t, &lam);
    FE(sub)(&t, &t, &B->x);
    FE(sub)(&t, &t, &xq); /* x3 */
    FE(sub)(&xq, &B->x, &t);
    FE(mul)(&xq, &xq, &lam);
    FE(sub)(&B->y, &xq, &B->y);
    B->x = t;
    sl->occ[op->m] = 1;
  }
}

static void MSM_FN(add_overflow)(MSM_FN(slot) * sl, size_t m, const AFF *p, bool neg) {
  if (neg) {
    AFF q;
    GF(affine_neg)(&q, p);
    GF(xyzz_add_affine)(&sl->ovf[m], &sl->ovf[m], &q);
  } else {
    GF(xyzz_add_affine)(&sl->ovf[m], &sl->ovf[m], p);
  }
}

static void MSM_FN(run_task)(MSM_FN(round_ctx) * rc, uint8_t *slot_mem, unsigned task) {
  const czk_msm_plan *pl = rc->plan;
  const msm_layout *L = rc->L;
  const unsigned c = pl->window_bits, S = pl->splits;
  const unsigned j = task / S, s = task % S;
  const size_t nb = (size_t)1 << (c - 1);
  const size_t b = rc->rlen * s / S, e = rc->rlen * (s + 1) / S;
  if (b >= e) return;
  MSM_FN(slot) sl;
  sl.ovf = (XYZZ *)(slot_mem + L->ovf_off);
  sl.aff = (AFF *)(slot_mem + L->aff_off);
  sl.occ = slot_mem + L->occ_off;
  sl.ops = (msm_op *)(slot_mem + L->ops_off);
  sl.den = (FE_T *)(slot_mem + L->den_off);
  sl.pre = (FE_T *)(slot_mem + L->pre_off);
  sl.P = rc->bases + rc->r0;
  sl.bt = L->bt;
  for (size_t m = 0; m < nb; m++) GF(xyzz_set_infinity)(&sl.ovf[m]);
  memset(sl.occ, 0, nb);

  const unsigned pos = c * j, limb = pos >> 6, sh = pos & 63;
  const uint64_t mask = ((uint64_t)1 << c) - 1;
  const int64_t half = (int64_t)1 << (c - 1);
  const bool spans = sh + c > 64 && limb + 1 < KP_LIMBS;
  const uint64_t *kp = rc->kp;
  const AFF *P = sl.P;
#define MSM_DIGIT(i)                                                                                                  \
  ((int64_t)(((kp[(i) * KP_LIMBS + limb] >> sh) | (spans ? kp[(i) * KP_LIMBS + limb + 1] << (64 - sh) : 0)) & mask) - \
   half)
  const bool batch = e - b >= 4 * (size_t)sl.bt;
  size_t k = 0; /* queued additions */
  int64_t d_next = MSM_DIGIT(b);
  for (size_t i = b; i < e; i++) {
    int64_t d = d_next;
    if (i + 1 < e) {
      d_next = MSM_DIGIT(i + 1);
      if (d_next != 0) {
        size_t mn = (size_t)(d_next > 0 ? d_next : -d_next) - 1;
        if (batch) __builtin_prefetch(&sl.aff[mn], 1);
        else __builtin_prefetch(&sl.ovf[mn], 1);
        __builtin_prefetch(&P[i + 1]);
      }
    }
    if (d == 0) continue;
    const bool neg = d < 0;
    const size_t m = (size_t)(neg ? -d : d) - 1;
    if (!batch) {
      MSM_FN(add_overflow)(&sl, m, &P[i], neg);
      continue;
    }
    uint8_t st = sl.occ[m];
    if (st == 0) { /* empty bucket: store the point */
      sl.aff[m] = P[i];
      if (neg) FE(neg)(&sl.aff[m].y, &sl.aff[m].y);
      sl.occ[m] = 1;
      continue;
    }
    if (st & 2) { /* an addition to this bucket is already queued in this batch */
      MSM_FN(add_overflow)(&sl, m, &P[i], neg);
      continue;
    }
    AFF *B = &sl.aff[m];
    bool dbl = false;
    if (FE(eq)(&B->x, &P[i].x)) {
      FE_T yq = P[i].y;
      if (neg) FE(neg)(&yq, &yq);
      if (!FE(eq)(&B->y, &yq) || F_IS_ZERO(&yq)) { /* B + (-B), or doubling a 2-torsion point: infinity */
        sl.occ[m] = 0;
        continue;
      }
      FE(add)(&sl.den[k], &B->y, &B->y);
      dbl = true;
    } else {
      FE(sub)(&sl.den[k], &P[i].x, &B->x);
    }
    sl.ops[k].m = (uint32_t)m;
    sl.ops[k].i = (uint32_t)i;
    sl.ops[k].neg = neg;
    sl.ops[k].dbl = dbl;
    if (k) FE(mul)(&sl.pre[k], &sl.pre[k - 1], &sl.den[k]);
    else sl.pre[0] = sl.den[0];
    sl.occ[m] = 3;
    if (++k == sl.bt) {
      MSM_FN(flush)(&sl, k);
      k = 0;
    }
  }
  if (k) MSM_FN(flush)(&sl, k);
#undef MSM_DIGIT

  /* sum_m (m+1) * bucket[m] by running sums, top down; bucket[m] = affine part + overflow part */
  XYZZ run, acc;
  GF(xyzz_set_infinity)(&run);
  GF(xyzz_set_infinity)(&acc);
  bool run_inf = true, acc_inf = true;
  for (size_t m = nb; m-- > 0;) {
    if (sl.occ[m]) {
      if (run_inf) {
        run.x = sl.aff[m].x;
        run.y = sl.aff[m].y;
        FE(set_one)(&run.zz);
        FE(set_one)(&run.zzz);
      } else {
        GF(xyzz_add_affine)(&run, &run, &sl.aff[m]);
      }
      run_inf = F_IS_ZERO(&run.zz);
    }
    if (!F_IS_ZERO(&sl.ovf[m].zz)) {
      if (run_inf) run = sl.ovf[m];
      else GF(xyzz_add)(&run, &run, &sl.ovf[m]);
      run_inf = F_IS_ZERO(&run.zz);
    }
    if (!run_inf) {
      if (acc_inf) acc = run;
      else GF(xyzz_add)(&acc, &acc, &run);
      acc_inf = F_IS_ZERO(&acc.zz);
    }
  }
  if (acc_inf) return;
  JAC t;
  GF(xyzz_to_jacobian)(&t, &acc);
  /* each task (j, s) owns partials[j*S + s]; rounds run one after another, so no two threads share a slot */
  GF(add)(&rc->partials[(size_t)j * S + s], &rc->partials[(size_t)j * S + s], &t);
}

static void MSM_FN(slot_worker)(void *vctx, size_t sb, size_t se) {
  MSM_FN(round_ctx) *rc = vctx;
  for (size_t slot = sb; slot < se; slot++) {
    uint8_t *mem = rc->slots + slot * rc->L->slot_bytes;
    for (;;) {
      unsigned t = atomic_fetch_add_explicit(&rc->next_task, 1, memory_order_relaxed);
      if (t >= rc->ntasks) break;
      MSM_FN(run_task)(rc, mem, t);
    }
  }
}

/* The whole MSM: dense (density == NULL) or filtered. n = number of bases. */
static czk_status MSM_FN(msm)(JAC *out, const AFF *bases, const czk_fr *scalars, size_t n, const uint64_t *density,
                              unsigned flags, const czk_msm_plan *plan, void *scratch, czk_pool *pool) {
  GF(set_infinity)(out);
  if (n == 0) return CZK_OK;
  czk_msm_plan local;
  if (!plan) {
    CZK_TRY(czk_msm_plan_init(&local, MSM_GROUP, n, czk_pool_threads(pool)));
    plan = &local;
  }
  if (plan->group != MSM_GROUP || plan->max_points < n) return CZK_ERR_SIZE_MISMATCH;
  if (!plan_valid(plan)) return CZK_ERR_INVALID_ARG;
  void *owned = NULL;
  if (!scratch) {
    owned = scratch = malloc(plan->scratch_bytes);
    if (!owned) return CZK_ERR_NOMEM;
  }
  msm_layout L;
  msm_layout_of(&L, plan, sizes_of(MSM_GROUP));
  uint8_t *base = (uint8_t *)scratch;
  uint64_t *kp = (uint64_t *)(base + L.kp_off);
  JAC *partials = (JAC *)(base + L.partials_off);
  const unsigned W = plan->windows, S = plan->splits, c = plan->window_bits;
  for (size_t i = 0; i < (size_t)W * S; i++) GF(set_infinity)(&partials[i]);

  uint64_t H[KP_LIMBS];
  msm_offset(H, c, W);
  for (size_t r0 = 0; r0 < n; r0 += plan->round_points) {
    size_t rlen = n - r0 < plan->round_points ? n - r0 : plan->round_points;
    msm_prep_ctx pc = {scalars, density, flags, H, kp, r0, (const void *)bases, sizeof(AFF), MSM_AFF_IS_INF};
    czk_pool_parallel_for(pool, rlen, 4096, msm_prep, &pc);
    MSM_FN(round_ctx) rc;
    rc.plan = plan;
    rc.L = &L;
    rc.bases = bases;
    rc.kp = kp;
    rc.r0 = r0;
    rc.rlen = rlen;
    rc.slots = base + L.slots_off;
    rc.partials = partials;
    rc.ntasks = W * S;
    atomic_init(&rc.next_task, 0);
    unsigned slots = plan->slots < rc.ntasks ? plan->slots : rc.ntasks;
    czk_pool_parallel_for(pool, slots, 1, MSM_FN(slot_worker), &rc);
  }

  /* out = sum_j 2^(cj) sum_s partials[j][s] (Horner from the top window) */
  JAC acc;
  GF(set_infinity)(&acc);
  for (unsigned j = W; j-- > 0;) {
    if (!GF(is_infinity)(&acc))
      for (unsigned k = 0; k < c; k++) GF(dbl)(&acc, &acc);
    for (unsigned s = 0; s < S; s++) GF(add)(&acc, &acc, &partials[(size_t)j * S + s]);
  }
  *out = acc;
  free(owned);
  return CZK_OK;
}

/* 0/1-aware front end (Filecoin witnesses are mostly 0 and 1): one parallel pass classifies the scalars, adds the
 * bases of the ones into a per-chunk XYZZ sum and counts the others; when at most half are others, a second pass
 * gathers them (bases and scalars, in order) and Pippenger runs over those alone; zeros cost nothing. Otherwise (and
 * for raw scalars) the plain MSM runs. Same result either way. */
typedef struct {
  const AFF *bases;
  const czk_fr *scalars;
  const uint64_t *density;
  size_t n, chunk;
  XYZZ *ones;     /* per chunk */
  size_t *others; /* per chunk: count (pass 1), then first output slot (pass 2) */
  AFF *ob;
  czk_fr *os;
  int gather;
} MSM_FN(sparse_ctx);

static void MSM_FN(sparse_pass)(void *vctx, size_t cb, size_t ce) {
  MSM_FN(sparse_ctx) *x = vctx;
  for (size_t ci = cb; ci < ce; ci++) {
    size_t b = ci * x->chunk, e = b + x->chunk < x->n ? b + x->chunk : x->n;
    size_t si = x->density ? density_select(x->density, b) : b, out = x->gather ? x->others[ci] : 0, cnt = 0;
    XYZZ acc;
    GF(xyzz_set_infinity)(&acc);
    for (size_t r = b; r < e; r++) {
      const czk_fr *k = &x->scalars[si];
      if (!czk_fr_is_zero(k)) {
        if (czk_fr_eq(k, &czk_fr_one_v)) {
          if (!x->gather) GF(xyzz_add_affine)(&acc, &acc, &x->bases[r]);
        } else if (x->gather) {
          x->ob[out] = x->bases[r];
          x->os[out++] = *k;
        } else {
          cnt++;
        }
      }
      if (r + 1 < e) si = x->density ? density_next(x->density, si) : si + 1;
    }
    if (!x->gather) x->ones[ci] = acc, x->others[ci] = cnt;
  }
}

static czk_status MSM_FN(msm_any)(JAC *out, const AFF *bases, const czk_fr *scalars, size_t n, const uint64_t *density,
                                  unsigned flags, const czk_msm_plan *plan, void *scratch, czk_pool *pool) {
  if (n < 4096 || (flags & CZK_MSM_SCALARS_RAW))
    return MSM_FN(msm)(out, bases, scalars, n, density, flags, plan, scratch, pool);
  MSM_FN(sparse_ctx) x = {bases, scalars, density, n, 0, NULL, NULL, NULL, NULL, 0};
  size_t nch = 4 * (size_t)czk_pool_threads(pool);
  x.chunk = (n + nch - 1) / nch;
  nch = (n + x.chunk - 1) / x.chunk;
  x.ones = malloc(nch * sizeof *x.ones);
  x.others = malloc(nch * sizeof *x.others);
  if (!x.ones || !x.others) {
    free(x.ones), free(x.others);
    return CZK_ERR_NOMEM;
  }
  czk_pool_parallel_for(pool, nch, 1, MSM_FN(sparse_pass), &x);
  size_t n_o = 0;
  for (size_t ci = 0; ci < nch; ci++) {
    size_t c = x.others[ci];
    x.others[ci] = n_o;
    n_o += c;
  }
  czk_status st;
  if (2 * n_o > n) { /* mostly other values: the plain MSM */
    st = MSM_FN(msm)(out, bases, scalars, n, density, flags, plan, scratch, pool);
  } else {
    x.ob = malloc((n_o ? n_o : 1) * sizeof *x.ob);
    x.os = malloc((n_o ? n_o : 1) * sizeof *x.os);
    st = x.ob && x.os ? CZK_OK : CZK_ERR_NOMEM;
    if (st == CZK_OK) {
      x.gather = 1;
      czk_pool_parallel_for(pool, nch, 1, MSM_FN(sparse_pass), &x);
      st = MSM_FN(msm)(out, x.ob, x.os, n_o, NULL, flags, plan, scratch, pool);
    }
    for (size_t ci = 0; ci < nch && st == CZK_OK; ci++) {
      JAC t;
      GF(xyzz_to_jacobian)(&t, &x.ones[ci]);
      GF(add)(out, out, &t);
    }
    free(x.ob), free(x.os);
  }
  free(x.ones), free(x.others);
  return st;
}

#undef MSM_FN
#undef GF
#undef MSM_CAT
#undef MSM_CAT2
