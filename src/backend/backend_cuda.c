/* backend_cuda.c: the CUDA backend: one instance per GPU, the vtable of backend_impl.h over the kernel layer
 * (include/czk/cuda.h: MSM handles, NTT plans, streams, memory) and backend_kernels.cu (events, H pointwise step,
 * gathers, CSR mat-vec), plus the device key cache and the Groth16 pipeline.
 *
 * Key cache: entries keyed by czk_backend_pk.id, each with a reference count (proofs in flight) and a use tick; a key
 * is resident (its five queries and the a/b density index lists in device memory) when its bytes fit the capacity
 * after evicting least recently used unreferenced entries, else streamed. Loading happens once, outside the lock;
 * concurrent users of a loading entry wait on a condition variable. Eviction frees device memory outside the lock.
 * Lanes: the per-proof resources (two compute streams + a copy stream, events, a/b/c/w device buffers, pinned
 * staging, MSM handles bound to the entry's bases or, when streamed, to two ring slots per group) are owned by one job
 * at a time and kept per entry for reuse: in steady state a proof allocates nothing and never synchronizes the device.
 *
 * Pipeline of one proof (resident key), m = constraints, n = 2^k, w = witness:
 *   s_h: [stage a,b,c rows into pinned memory and check a_j b_j = c_j on the pool, chunk by chunk, each chunk's DMA
 *        issued at once] -> iNTT a,b,c -> coset NTT a,b,c -> a = (ab - c)/(g^n - 1) -> coset iNTT a -> MSM h (n-1)
 *   s_w: [stage w, DMA] -> MSM l (aux) -> gather, MSM a -> gather, MSM b_g1 -> MSM b_g2 (G2)
 * A failing row stops everything before any MSM (CZK_ERR_UNSATISFIED). prove_finish syncs the two last events.
 * Streamed key: the same, but the MSMs are driven by a helper thread that copies base chunks into two device slots on
 * the copy stream while the previous chunk's MSM runs (events order slot reuse), and sums the partial results.
 *
 * Errors: every call's status is checked; a CZK_ERR_DEVICE whose device context turns out unusable (sticky error
 * probe) quarantines the backend. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend_impl.h"

#ifndef CZK_HAVE_CUDA
czk_status czk__backend_cuda_new(czk_backend **out, int device) {
  (void)device;
  *out = NULL;
  return CZK_ERR_UNSUPPORTED;
}
czk_status czk__backend_cuda_count(int *count) {
  *count = 0;
  return CZK_OK;
}
#else
#include "backend/cuda_kernels.h"
#include "czk/cuda.h"
#include "czk/log.h"
#include "groth16/groth16_internal.h"

enum { Q_H = 0, Q_L, Q_A, Q_B1, Q_B2, NQ };
enum { EV_START = 0, EV_ABC, EV_H, EV_MH, EV_W0, EV_WUP, EV_ML, EV_MA, EV_MB1, EV_MB2, EV_SLOT0, EV_COUNT = EV_SLOT0 + 8 };
#define STAGE_ROWS ((size_t)1 << 20)

typedef struct kentry kentry;
typedef struct lane lane;

struct lane {
  lane *next;
  kentry *e;
  void *s_h, *s_w, *s_c;
  void *ev[EV_COUNT];
  size_t n, nw;
  czk_fr *d_abc, *d_w, *d_sa, *d_sb;
  czk_fr *h_stage; /* pinned: 3n + nw */
  czk_cuda_msm *m[NQ]; /* resident: one per query; streamed: [0,1] G1 slots, [2,3] G2 slots */
  void *d_slot[4];
  size_t chunk1, chunk2;
  czk_g1 r1[4];
  czk_g2 r2;
  czk_g1 *part1;
  czk_g2 *part2;
  size_t cap1, cap2;
  /* streamed driver */
  pthread_t driver;
  bool driver_on;
  czk_status driver_st;
  const czk_backend_pk *key;
  size_t ni, na;
  czk_backend *be;
  double t_stage;
};

struct kentry {
  kentry *next;
  const void *id;
  uint64_t bytes;
  int refs;
  uint64_t tick;
  int state; /* 0 loading, 1 ready */
  czk_status load_st;
  bool streamed;
  void *d_q[NQ];
  size_t nq[NQ];
  const void *h_q[NQ];
  bool registered[NQ];
  uint32_t *d_idx_a, *d_idx_b;
  size_t n_idx_a, n_idx_b;
  lane *lanes;
};

typedef struct cu_ctx {
  int dev;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  czk_cuda_ntt *plan[2][29];
  kentry *keys;
  uint64_t cap, used, tick;
  czk_backend_cache_stats stats;
  char desc[160];
  uint64_t mem_total;
  unsigned sms;
} cu_ctx;

struct czk_backend_stream {
  void *s;
};
struct czk_backend_event {
  void *e;
};
struct czk_backend_csr {
  uint64_t *d_row_ptr;
  uint32_t *d_col;
  czk_fr *d_val;
  size_t rows;
};

static cu_ctx *CTX(czk_backend *be) { return (cu_ctx *)be->ctx; }
static void *SP(czk_backend_stream *s) { return s ? s->s : NULL; }

/* Quarantine on a sticky error (the probe runs only on the error path). */
static czk_status chk(czk_backend *be, czk_status st) {
  if (st == CZK_ERR_DEVICE && czk__bkc_sticky()) czk__backend_quarantine(be, "sticky CUDA error");
  return st;
}
#define RET(be, expr) return chk((be), (expr))
#define TRYD(be, expr)                                                                                                \
  do {                                                                                                                \
    czk_status s__ = chk((be), (expr));                                                                               \
    if (s__ != CZK_OK) return s__;                                                                                    \
  } while (0)

static czk_status setdev(czk_backend *be) { return czk_cuda_set_device(CTX(be)->dev); }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------------------------------ basics */
static czk_status cu_props(czk_backend *be, czk_backend_props *out) {
  cu_ctx *c = CTX(be);
  TRYD(be, setdev(be));
  out->kind = CZK_BACKEND_CUDA;
  out->device = c->dev;
  snprintf(out->name, sizeof out->name, "%s", be->name);
  snprintf(out->description, sizeof out->description, "%s", c->desc);
  uint64_t f = 0, t = 0;
  unsigned sms = 0;
  TRYD(be, czk__bkc_mem_info(&f, &t, &sms));
  out->mem_total = t, out->mem_free = f, out->units = sms;
  return CZK_OK;
}
static czk_status cu_alloc(czk_backend *be, void **p, size_t bytes) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_malloc(p, bytes));
}
static void cu_mem_free(czk_backend *be, void *p) {
  if (setdev(be) == CZK_OK) chk(be, czk_cuda_free(p));
}
static czk_status cu_host_alloc(czk_backend *be, void **p, size_t bytes) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_host_alloc(p, bytes));
}
static void cu_host_free(czk_backend *be, void *p) { chk(be, czk_cuda_host_free(p)); }
static czk_status cu_stream_new(czk_backend *be, czk_backend_stream **out) {
  TRYD(be, setdev(be));
  czk_backend_stream *s = calloc(1, sizeof *s);
  if (!s) return CZK_ERR_NOMEM;
  czk_status st = chk(be, czk_cuda_stream_create(&s->s));
  if (st != CZK_OK) {
    free(s);
    return st;
  }
  *out = s;
  return CZK_OK;
}
static void cu_stream_free(czk_backend *be, czk_backend_stream *s) {
  if (setdev(be) == CZK_OK) chk(be, czk_cuda_stream_destroy(s->s));
  free(s);
}
static czk_status cu_stream_sync(czk_backend *be, czk_backend_stream *s) { RET(be, czk_cuda_stream_sync(SP(s))); }
static czk_status cu_event_new(czk_backend *be, czk_backend_event **out) {
  TRYD(be, setdev(be));
  czk_backend_event *e = calloc(1, sizeof *e);
  if (!e) return CZK_ERR_NOMEM;
  czk_status st = chk(be, czk__bkc_event_new(&e->e, 1));
  if (st != CZK_OK) {
    free(e);
    return st;
  }
  *out = e;
  return CZK_OK;
}
static void cu_event_free(czk_backend *be, czk_backend_event *e) {
  (void)be;
  czk__bkc_event_free(e->e);
  free(e);
}
static czk_status cu_event_record(czk_backend *be, czk_backend_event *e, czk_backend_stream *s) {
  RET(be, czk__bkc_event_record(e->e, SP(s)));
}
static czk_status cu_stream_wait(czk_backend *be, czk_backend_stream *s, czk_backend_event *e) {
  RET(be, czk__bkc_stream_wait(SP(s), e->e));
}
static czk_status cu_event_sync(czk_backend *be, czk_backend_event *e) { RET(be, czk__bkc_event_sync(e->e)); }
static czk_status cu_event_elapsed(czk_backend *be, float *ms, czk_backend_event *a, czk_backend_event *b) {
  RET(be, czk__bkc_event_elapsed(ms, a->e, b->e));
}
static czk_status cu_htod(czk_backend *be, void *d, const void *h, size_t bytes, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_memcpy_htod(d, h, bytes, SP(s)));
}
static czk_status cu_dtoh(czk_backend *be, void *h, const void *d, size_t bytes, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk_cuda_memcpy_dtoh(h, d, bytes, SP(s)));
}

/* ------------------------------------------------------------------------------------------------ operations */
/* Generic MSM: a handle per call over the caller's device bases; the call waits for its stream before freeing the
 * handle's scratch (the prover path uses long-lived handles instead). */
static czk_status cu_msm(czk_backend *be, int g, void *out, const void *b, const czk_fr *k, size_t n,
                         czk_backend_stream *s) {
  TRYD(be, setdev(be));
  czk_cuda_msm *m = NULL;
  czk_status st = g == 1 ? czk_cuda_msm_g1_new_device(&m, b, n) : czk_cuda_msm_g2_new_device(&m, b, n);
  if (st == CZK_OK)
    st = g == 1 ? czk_cuda_msm_g1_run(m, out, (const uint64_t *)k, n, CZK_CUDA_SCALARS_DEVICE | CZK_CUDA_SCALARS_MONT,
                                      SP(s))
                : czk_cuda_msm_g2_run(m, out, (const uint64_t *)k, n, CZK_CUDA_SCALARS_DEVICE | CZK_CUDA_SCALARS_MONT,
                                      SP(s));
  if (st == CZK_OK) st = czk_cuda_stream_sync(SP(s));
  czk_cuda_msm_free(m);
  return chk(be, st);
}
static czk_status cu_msm_g1(czk_backend *be, czk_g1 *out, const czk_g1_affine *b, const czk_fr *k, size_t n,
                            czk_backend_stream *s) {
  return cu_msm(be, 1, out, b, k, n, s);
}
static czk_status cu_msm_g2(czk_backend *be, czk_g2 *out, const czk_g2_affine *b, const czk_fr *k, size_t n,
                            czk_backend_stream *s) {
  return cu_msm(be, 2, out, b, k, n, s);
}

/* NTT plan of exactly 2^log_n (created once, outside the lock; a racing duplicate is freed). */
static czk_status plan_get(czk_backend *be, czk_fr_roots roots, unsigned log_n, czk_cuda_ntt **out) {
  cu_ctx *c = CTX(be);
  pthread_mutex_lock(&c->mu);
  *out = c->plan[roots][log_n];
  pthread_mutex_unlock(&c->mu);
  if (*out) return CZK_OK;
  czk_cuda_ntt *p = NULL;
  void *st = NULL;
  czk_status s = czk_cuda_stream_create(&st);
  if (s == CZK_OK) s = czk_cuda_ntt_new(&p, log_n ? log_n : 1, roots, NULL, st);
  if (st) czk_cuda_stream_destroy(st);
  if (s != CZK_OK) return s;
  pthread_mutex_lock(&c->mu);
  if (!c->plan[roots][log_n]) c->plan[roots][log_n] = p, p = NULL;
  *out = c->plan[roots][log_n];
  pthread_mutex_unlock(&c->mu);
  if (p) czk_cuda_ntt_free(p);
  return CZK_OK;
}

static czk_status cu_ntt(czk_backend *be, czk_fr *d, unsigned log_n, czk_fr_roots roots, czk_backend_ntt_dir dir,
                         czk_backend_stream *s) {
  TRYD(be, setdev(be));
  czk_cuda_ntt *p;
  TRYD(be, plan_get(be, roots, log_n, &p));
  RET(be, czk_cuda_ntt_run(p, d, log_n, (czk_cuda_ntt_dir)dir, SP(s)));
}

/* z^-1 for z = g^n - 1 (the vanishing polynomial X^n - 1 at any point of the coset g*H). */
static void zinv_of(czk_fr *zinv, unsigned log_n) {
  czk_fr g, z;
  czk_fr_coset_generator(&g);
  z = g;
  for (unsigned i = 0; i < log_n; i++) czk_fr_mul(&z, &z, &z);
  czk_fr_sub(&z, &z, &czk_fr_one_v);
  czk_fr_inv(zinv, &z);
}

static czk_status h_chain(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n, void *s) {
  czk_cuda_ntt *p;
  CZK_TRY(plan_get(be, CZK_ROOTS_BELLMAN, log_n, &p));
  czk_fr *v[3] = {a, b, c};
  for (int i = 0; i < 3; i++) CZK_TRY(czk_cuda_ntt_run(p, v[i], log_n, CZK_CUDA_NTT_INVERSE, s));
  for (int i = 0; i < 3; i++) CZK_TRY(czk_cuda_ntt_run(p, v[i], log_n, CZK_CUDA_NTT_COSET_FORWARD, s));
  czk_fr zinv;
  zinv_of(&zinv, log_n);
  CZK_TRY(czk__bkc_h_pointwise(a, b, c, (size_t)1 << log_n, &zinv, s));
  return czk_cuda_ntt_run(p, a, log_n, CZK_CUDA_NTT_COSET_INVERSE, s);
}
static czk_status cu_h(czk_backend *be, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n, czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, h_chain(be, a, b, c, log_n, SP(s)));
}

static void cu_csr_free(czk_backend *be, czk_backend_csr *m) {
  if (setdev(be) == CZK_OK) {
    czk_cuda_free(m->d_row_ptr);
    czk_cuda_free(m->d_col);
    czk_cuda_free(m->d_val);
  }
  free(m);
}
static czk_status cu_csr_upload(czk_backend *be, czk_backend_csr **out, const czk_csr *m, size_t rows,
                                czk_backend_stream *s) {
  TRYD(be, setdev(be));
  czk_backend_csr *r = calloc(1, sizeof *r);
  if (!r) return CZK_ERR_NOMEM;
  r->rows = rows;
  size_t nnz = m->nnz ? m->nnz : 1;
  czk_status st = czk_cuda_malloc((void **)&r->d_row_ptr, (rows + 1) * 8);
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&r->d_col, nnz * 4);
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&r->d_val, nnz * sizeof(czk_fr));
  if (st == CZK_OK) st = czk_cuda_memcpy_htod(r->d_row_ptr, m->row_ptr, (rows + 1) * 8, SP(s));
  if (st == CZK_OK && m->nnz) st = czk_cuda_memcpy_htod(r->d_col, m->col, m->nnz * 4, SP(s));
  if (st == CZK_OK && m->nnz) st = czk_cuda_memcpy_htod(r->d_val, m->val, m->nnz * sizeof(czk_fr), SP(s));
  if (st == CZK_OK) st = czk_cuda_stream_sync(SP(s)); /* the host arrays may go away after we return */
  if (st != CZK_OK) {
    cu_csr_free(be, r);
    return chk(be, st);
  }
  *out = r;
  return CZK_OK;
}
static czk_status cu_matvec(czk_backend *be, czk_fr *out, const czk_backend_csr *m, const czk_fr *w,
                            czk_backend_stream *s) {
  TRYD(be, setdev(be));
  RET(be, czk__bkc_csr_matvec(out, m->d_row_ptr, m->d_col, m->d_val, m->rows, w, SP(s)));
}

/* ------------------------------------------------------------------------------------------------ key cache */
static const size_t QSZ[NQ] = {sizeof(czk_g1_affine), sizeof(czk_g1_affine), sizeof(czk_g1_affine),
                               sizeof(czk_g1_affine), sizeof(czk_g2_affine)};

static void lane_free(lane *l) {
  if (!l) return;
  if (l->s_h) czk_cuda_stream_sync(l->s_h);
  if (l->s_w) czk_cuda_stream_sync(l->s_w);
  if (l->s_c) czk_cuda_stream_sync(l->s_c);
  for (int i = 0; i < NQ; i++) czk_cuda_msm_free(l->m[i]);
  for (int i = 0; i < 4; i++) czk_cuda_free(l->d_slot[i]);
  czk_cuda_free(l->d_abc);
  czk_cuda_free(l->d_w);
  czk_cuda_free(l->d_sa);
  czk_cuda_free(l->d_sb);
  if (l->h_stage) czk_cuda_host_free(l->h_stage);
  for (int i = 0; i < EV_COUNT; i++) czk__bkc_event_free(l->ev[i]);
  if (l->s_h) czk_cuda_stream_destroy(l->s_h);
  if (l->s_w) czk_cuda_stream_destroy(l->s_w);
  if (l->s_c) czk_cuda_stream_destroy(l->s_c);
  free(l->part1);
  free(l->part2);
  free(l);
}

static void entry_free(kentry *e) {
  while (e->lanes) {
    lane *l = e->lanes;
    e->lanes = l->next;
    lane_free(l);
  }
  for (int i = 0; i < NQ; i++) {
    czk_cuda_free(e->d_q[i]);
    if (e->registered[i]) czk__bkc_host_unregister(e->h_q[i]);
  }
  czk_cuda_free(e->d_idx_a);
  czk_cuda_free(e->d_idx_b);
  free(e);
}

/* Load an entry (outside the lock): index lists always; bases when resident; host registration when streamed. */
static czk_status entry_load(kentry *e, const czk_backend_pk *k, const czk_r1cs *shape) {
  uint32_t *ia = NULL, *ib = NULL;
  czk_status st = czk__groth16_density_index(shape, &ia, &e->n_idx_a, &ib, &e->n_idx_b);
  void *s = NULL;
  if (st == CZK_OK) st = czk_cuda_stream_create(&s);
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&e->d_idx_a, (e->n_idx_a + 1) * 4);
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&e->d_idx_b, (e->n_idx_b + 1) * 4);
  if (st == CZK_OK && e->n_idx_a) st = czk_cuda_memcpy_htod(e->d_idx_a, ia, e->n_idx_a * 4, s);
  if (st == CZK_OK && e->n_idx_b) st = czk_cuda_memcpy_htod(e->d_idx_b, ib, e->n_idx_b * 4, s);
  const void *hq[NQ] = {k->q.h, k->q.l, k->q.a, k->q.b_g1, k->q.b_g2};
  const size_t nq[NQ] = {k->s.n_h, k->s.n_l, k->s.n_a, k->s.n_b_g1, k->s.n_b_g2};
  for (int i = 0; i < NQ; i++) e->nq[i] = nq[i], e->h_q[i] = hq[i];
  for (int i = 0; i < NQ && st == CZK_OK; i++) {
    if (!nq[i]) continue;
    if (e->streamed) {
      e->registered[i] = czk__bkc_host_register(hq[i], nq[i] * QSZ[i]) == CZK_OK;
      continue;
    }
    st = czk_cuda_malloc(&e->d_q[i], nq[i] * QSZ[i]);
    if (st == CZK_OK) st = czk_cuda_memcpy_htod(e->d_q[i], hq[i], nq[i] * QSZ[i], s);
  }
  if (s) {
    czk_status s2 = czk_cuda_stream_sync(s);
    if (st == CZK_OK) st = s2;
    czk_cuda_stream_destroy(s);
  }
  free(ia);
  free(ib);
  return st;
}

static uint64_t key_bytes(const czk_backend_pk *k) {
  return (uint64_t)(k->s.n_h + k->s.n_l + k->s.n_a + k->s.n_b_g1) * sizeof(czk_g1_affine) +
         (uint64_t)k->s.n_b_g2 * sizeof(czk_g2_affine);
}

/* Find or create the entry of key k, referenced (refs + 1). Evicted entries are freed after the lock is dropped. */
static czk_status key_acquire(czk_backend *be, const czk_backend_pk *k, const czk_r1cs *shape, kentry **out) {
  cu_ctx *c = CTX(be);
  kentry *victims = NULL, *e;
  bool load = false;
  pthread_mutex_lock(&c->mu);
  for (e = c->keys; e && e->id != k->id; e = e->next) {
  }
  if (e) {
    e->refs++;
    c->stats.hits++;
  } else {
    c->stats.misses++;
    uint64_t need = key_bytes(k);
    /* evict LRU unreferenced entries until the key fits, if it can fit at all */
    while (need <= c->cap && c->used + need > c->cap) {
      kentry **pv = NULL, **pp;
      for (pp = &c->keys; *pp; pp = &(*pp)->next)
        if ((*pp)->refs == 0 && (*pp)->state == 1 && (!pv || (*pp)->tick < (*pv)->tick)) pv = pp;
      if (!pv) break;
      kentry *v = *pv;
      *pv = v->next;
      c->used -= v->bytes;
      v->next = victims;
      victims = v;
      c->stats.evictions++;
    }
    e = calloc(1, sizeof *e);
    if (e) {
      e->id = k->id;
      e->refs = 1;
      e->streamed = !(need <= c->cap && c->used + need <= c->cap);
      e->bytes = e->streamed ? 0 : need;
      c->used += e->bytes;
      if (e->streamed) c->stats.streamed++;
      e->next = c->keys;
      c->keys = e;
      load = true;
    }
  }
  if (e) e->tick = ++c->tick;
  pthread_mutex_unlock(&c->mu);
  while (victims) {
    kentry *v = victims;
    victims = v->next;
    entry_free(v);
  }
  if (!e) return CZK_ERR_NOMEM;
  if (load) {
    czk_status st = entry_load(e, k, shape);
    pthread_mutex_lock(&c->mu);
    e->load_st = st;
    e->state = 1;
    if (st != CZK_OK) { /* unlink; waiters see load_st */
      for (kentry **pp = &c->keys; *pp; pp = &(*pp)->next)
        if (*pp == e) {
          *pp = e->next;
          break;
        }
      c->used -= e->bytes;
      e->bytes = 0;
      e->refs--;
    }
    pthread_cond_broadcast(&c->cv);
    bool free_now = st != CZK_OK && e->refs == 0;
    pthread_mutex_unlock(&c->mu);
    if (st != CZK_OK) {
      if (free_now) entry_free(e);
      return st;
    }
  } else {
    pthread_mutex_lock(&c->mu);
    while (e->state == 0) pthread_cond_wait(&c->cv, &c->mu);
    czk_status st = e->load_st;
    if (st != CZK_OK) e->refs--;
    bool free_now = st != CZK_OK && e->refs == 0;
    pthread_mutex_unlock(&c->mu);
    if (st != CZK_OK) {
      if (free_now) entry_free(e);
      return st;
    }
  }
  *out = e;
  return CZK_OK;
}

static void key_release(czk_backend *be, kentry *e, lane *l) {
  cu_ctx *c = CTX(be);
  pthread_mutex_lock(&c->mu);
  if (l) {
    l->next = e->lanes;
    e->lanes = l;
  }
  e->refs--;
  pthread_mutex_unlock(&c->mu);
}

static czk_status cu_key_capacity(czk_backend *be, uint64_t bytes) {
  cu_ctx *c = CTX(be);
  pthread_mutex_lock(&c->mu);
  c->cap = bytes;
  pthread_mutex_unlock(&c->mu);
  return CZK_OK;
}
static czk_status cu_key_evict(czk_backend *be, const void *id) {
  cu_ctx *c = CTX(be);
  kentry *v = NULL;
  czk_status st = CZK_ERR_NOT_FOUND;
  pthread_mutex_lock(&c->mu);
  for (kentry **pp = &c->keys; *pp; pp = &(*pp)->next)
    if ((*pp)->id == id) {
      if ((*pp)->refs > 0 || (*pp)->state == 0) {
        st = CZK_ERR_STATE;
      } else {
        v = *pp;
        *pp = v->next;
        c->used -= v->bytes;
        c->stats.evictions++;
        st = CZK_OK;
      }
      break;
    }
  pthread_mutex_unlock(&c->mu);
  if (v) {
    setdev(be);
    entry_free(v);
  }
  return st;
}
static czk_status cu_cache_stats(czk_backend *be, czk_backend_cache_stats *out) {
  cu_ctx *c = CTX(be);
  pthread_mutex_lock(&c->mu);
  *out = c->stats;
  out->capacity = c->cap;
  out->used = c->used;
  out->keys = out->in_use = 0;
  for (kentry *e = c->keys; e; e = e->next) {
    out->keys++;
    if (e->refs) out->in_use++;
  }
  pthread_mutex_unlock(&c->mu);
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ lanes */
#define STREAM_CHUNK_G1 ((size_t)1 << 22)
#define STREAM_CHUNK_G2 ((size_t)1 << 21)

static czk_status lane_new(kentry *e, size_t n, size_t nw, lane **out) {
  lane *l = calloc(1, sizeof *l);
  if (!l) return CZK_ERR_NOMEM;
  l->e = e;
  l->n = n;
  l->nw = nw;
  czk_status st = czk_cuda_stream_create(&l->s_h);
  if (st == CZK_OK) st = czk_cuda_stream_create(&l->s_w);
  if (st == CZK_OK) st = czk_cuda_stream_create(&l->s_c);
  for (int i = 0; i < EV_COUNT && st == CZK_OK; i++) st = czk__bkc_event_new(&l->ev[i], i < EV_SLOT0);
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&l->d_abc, 3 * n * sizeof(czk_fr));
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&l->d_w, nw * sizeof(czk_fr));
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&l->d_sa, (e->n_idx_a + 1) * sizeof(czk_fr));
  if (st == CZK_OK) st = czk_cuda_malloc((void **)&l->d_sb, (e->n_idx_b + 1) * sizeof(czk_fr));
  if (st == CZK_OK) st = czk_cuda_host_alloc((void **)&l->h_stage, (3 * n + nw) * sizeof(czk_fr));
  if (st == CZK_OK && !e->streamed) {
    for (int i = 0; i < NQ && st == CZK_OK; i++) {
      if (!e->nq[i]) continue;
      st = i == Q_B2 ? czk_cuda_msm_g2_new_device(&l->m[i], e->d_q[i], e->nq[i])
                     : czk_cuda_msm_g1_new_device(&l->m[i], e->d_q[i], e->nq[i]);
    }
  } else if (st == CZK_OK) {
    size_t m1 = 1, m2 = 1;
    for (int i = 0; i < Q_B2; i++) m1 = e->nq[i] > m1 ? e->nq[i] : m1;
    m2 = e->nq[Q_B2] > m2 ? e->nq[Q_B2] : m2;
    l->chunk1 = m1 < STREAM_CHUNK_G1 ? m1 : STREAM_CHUNK_G1;
    l->chunk2 = m2 < STREAM_CHUNK_G2 ? m2 : STREAM_CHUNK_G2;
    for (int i = 0; i < 4 && st == CZK_OK; i++) {
      bool g2 = i >= 2;
      size_t cnt = g2 ? l->chunk2 : l->chunk1;
      st = czk_cuda_malloc(&l->d_slot[i], cnt * (g2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine)));
      if (st == CZK_OK)
        st = g2 ? czk_cuda_msm_g2_new_device(&l->m[i], l->d_slot[i], cnt)
                : czk_cuda_msm_g1_new_device(&l->m[i], l->d_slot[i], cnt);
    }
    for (int i = 0; i < Q_B2; i++) l->cap1 += (e->nq[i] + l->chunk1 - 1) / l->chunk1;
    l->cap2 = (e->nq[Q_B2] + l->chunk2 - 1) / l->chunk2;
    l->part1 = calloc(l->cap1 + 1, sizeof *l->part1);
    l->part2 = calloc(l->cap2 + 1, sizeof *l->part2);
    if (st == CZK_OK && (!l->part1 || !l->part2)) st = CZK_ERR_NOMEM;
  }
  if (st != CZK_OK) {
    lane_free(l);
    return st;
  }
  *out = l;
  return CZK_OK;
}

static czk_status lane_get(czk_backend *be, kentry *e, size_t n, size_t nw, lane **out) {
  cu_ctx *c = CTX(be);
  pthread_mutex_lock(&c->mu);
  lane **pp = &e->lanes;
  while (*pp && ((*pp)->n != n || (*pp)->nw != nw)) pp = &(*pp)->next;
  lane *l = *pp;
  if (l) *pp = l->next;
  pthread_mutex_unlock(&c->mu);
  if (l) {
    l->next = NULL;
    *out = l;
    return CZK_OK;
  }
  return lane_new(e, n, nw, out);
}

/* ------------------------------------------------------------------------------------------------ Groth16 */
typedef struct stage_ctx {
  const czk_fr *a, *b, *c;
  czk_fr *sa, *sb, *sc;
  size_t m; /* rows to check */
  _Atomic int bad;
} stage_ctx;
static void stage_rows(void *vctx, size_t beg, size_t end) {
  stage_ctx *x = vctx;
  memcpy(x->sa + beg, x->a + beg, (end - beg) * sizeof(czk_fr));
  memcpy(x->sb + beg, x->b + beg, (end - beg) * sizeof(czk_fr));
  memcpy(x->sc + beg, x->c + beg, (end - beg) * sizeof(czk_fr));
  size_t top = end < x->m ? end : x->m;
  for (size_t j = beg; j < top; j++) {
    czk_fr t;
    czk_fr_mul(&t, &x->a[j], &x->b[j]);
    if (!czk_fr_eq(&t, &x->c[j])) {
      atomic_store(&x->bad, 1);
      return;
    }
  }
}
typedef struct copy_ctx {
  czk_fr *dst;
  const czk_fr *src;
} copy_ctx;
static void copy_rows(void *vctx, size_t beg, size_t end) {
  copy_ctx *x = vctx;
  memcpy(x->dst + beg, x->src + beg, (end - beg) * sizeof(czk_fr));
}

/* Driver of a streamed key's MSMs (helper thread): chunks of each query through two device slots per group. */
static czk_status stream_msms(lane *l) {
  kentry *e = l->e;
  const unsigned fl = CZK_CUDA_SCALARS_DEVICE | CZK_CUDA_SCALARS_MONT;
  CZK_TRY(czk_cuda_set_device(CTX(l->be)->dev));
  const czk_fr *sc[NQ] = {l->d_abc, l->d_w + l->ni, l->d_sa, l->d_sb, l->d_sb};
  /* the witness-side scalars need the gathers (issued on s_w by launch); h needs H: s_w waits for EV_H at Q_H */
  const int order[NQ] = {Q_L, Q_A, Q_B1, Q_H, Q_B2};
  size_t k1 = 0, k2 = 0;
  bool used[4] = {false, false, false, false};
  for (int oi = 0; oi < NQ; oi++) {
    int q = order[oi];
    bool g2 = q == Q_B2;
    size_t C = g2 ? l->chunk2 : l->chunk1, n = e->nq[q];
    if (q == Q_H) CZK_TRY(czk__bkc_stream_wait(l->s_w, l->ev[EV_H]));
    for (size_t off = 0; off < n; off += C) {
      size_t len = n - off < C ? n - off : C;
      size_t k = g2 ? k2++ : k1++;
      int slot = (g2 ? 2 : 0) + (int)(k & 1);
      void *ev_copied = l->ev[EV_SLOT0 + 2 * slot], *ev_done = l->ev[EV_SLOT0 + 2 * slot + 1];
      /* the slot's previous MSM (and its result callback) must be complete before reuse */
      if (used[slot]) CZK_TRY(czk__bkc_event_sync(ev_done));
      CZK_TRY(czk_cuda_memcpy_htod(l->d_slot[slot], (const uint8_t *)e->h_q[q] + off * QSZ[q], len * QSZ[q], l->s_c));
      CZK_TRY(czk__bkc_event_record(ev_copied, l->s_c));
      CZK_TRY(czk__bkc_stream_wait(l->s_w, ev_copied));
      if (g2)
        CZK_TRY(czk_cuda_msm_g2_run(l->m[slot], &l->part2[k], (const uint64_t *)(sc[q] + off), len, fl, l->s_w));
      else
        CZK_TRY(czk_cuda_msm_g1_run(l->m[slot], &l->part1[k], (const uint64_t *)(sc[q] + off), len, fl, l->s_w));
      CZK_TRY(czk__bkc_event_record(ev_done, l->s_w));
      used[slot] = true;
    }
  }
  CZK_TRY(czk__bkc_event_record(l->ev[EV_MB2], l->s_w));
  CZK_TRY(czk__bkc_event_record(l->ev[EV_MH], l->s_h));
  return czk_cuda_stream_sync(l->s_w);
}
static void *driver_main(void *arg) {
  lane *l = arg;
  l->driver_st = stream_msms(l);
  return NULL;
}

static czk_status launch(czk_backend *be, czk_backend_g16 *j, lane *l) {
  czk_groth16_assignment *as = j->as;
  const czk_r1cs *sh = j->shape;
  kentry *e = l->e;
  czk_pool *pool = j->pool;
  const size_t n = as->n_domain, nw = l->nw, ni = sh->n_inputs, na = sh->n_aux;
  czk_fr *sa = l->h_stage, *sb = sa + n, *scc = sb + n, *sw = scc + n;
  czk_fr *da = l->d_abc, *db = da + n, *dc = db + n;
  double t0 = now_s();
  CZK_TRY(czk__bkc_event_record(l->ev[EV_START], l->s_h));
  CZK_TRY(czk__bkc_event_record(l->ev[EV_W0], l->s_w));
  /* a, b, c: stage + check chunk by chunk; each chunk's DMA is issued as soon as it is staged */
  stage_ctx x = {as->a, as->b, as->c, sa, sb, scc, sh->n_constraints, 0};
  for (size_t r0 = 0; r0 < n && !atomic_load(&x.bad); r0 += STAGE_ROWS) {
    size_t r1 = n - r0 < STAGE_ROWS ? n : r0 + STAGE_ROWS;
    stage_ctx y = x;
    y.a += r0, y.b += r0, y.c += r0, y.sa += r0, y.sb += r0, y.sc += r0;
    y.m = x.m > r0 ? x.m - r0 : 0;
    atomic_store(&y.bad, 0);
    czk_pool_parallel_for(pool, r1 - r0, 8192, stage_rows, &y);
    if (atomic_load(&y.bad)) {
      atomic_store(&x.bad, 1);
      break;
    }
    size_t bytes = (r1 - r0) * sizeof(czk_fr);
    CZK_TRY(czk_cuda_memcpy_htod(da + r0, sa + r0, bytes, l->s_h));
    CZK_TRY(czk_cuda_memcpy_htod(db + r0, sb + r0, bytes, l->s_h));
    CZK_TRY(czk_cuda_memcpy_htod(dc + r0, scc + r0, bytes, l->s_h));
  }
  double t1 = now_s();
  j->t.check = t1 - t0;
  if (atomic_load(&x.bad)) {
    czk_cuda_stream_sync(l->s_h); /* the staging buffer is read by DMAs in flight */
    return CZK_ERR_UNSATISFIED;
  }
  /* The row check passed: H, and (key resident) the h MSM, go on s_h now -- they need only a, b, c -- so that the GPU
   * works on them while the host stages the witness below. */
  const unsigned fl = CZK_CUDA_SCALARS_DEVICE | CZK_CUDA_SCALARS_MONT;
  CZK_TRY(czk__bkc_event_record(l->ev[EV_ABC], l->s_h));
  CZK_TRY(h_chain(be, da, db, dc, sh->log_domain, l->s_h));
  CZK_TRY(czk__bkc_event_record(l->ev[EV_H], l->s_h));
  czk__groth16_msm_launches++;
  if (!e->streamed) {
    czk_g1_set_infinity(&l->r1[0]);
    if (l->m[Q_H]) CZK_TRY(czk_cuda_msm_g1_run(l->m[Q_H], &l->r1[0], (const uint64_t *)da, n - 1, fl, l->s_h));
    CZK_TRY(czk__bkc_event_record(l->ev[EV_MH], l->s_h));
  }
  copy_ctx cw = {sw, as->w.w};
  czk_pool_parallel_for(pool, nw, 16384, copy_rows, &cw);
  CZK_TRY(czk_cuda_memcpy_htod(l->d_w, sw, nw * sizeof(czk_fr), l->s_w));
  l->t_stage = now_s() - t0;
  /* Everything the device needs is in pinned staging now; the caller's buffers (a, b, c and the witness: ~2 GiB at
   * 2^24) are freed only after the kernels are launched, so that returning their pages does not delay the GPU. */
  CZK_TRY(czk__bkc_event_record(l->ev[EV_WUP], l->s_w));
  /* gathers for the density-filtered queries on s_w */
  CZK_TRY(czk__bkc_gather(l->d_sa, l->d_w, e->d_idx_a, e->n_idx_a, l->s_w));
  CZK_TRY(czk__bkc_gather(l->d_sb, l->d_w, e->d_idx_b, e->n_idx_b, l->s_w));
  if (e->streamed) {
    l->ni = ni;
    l->na = na;
    l->be = be;
    l->driver_st = CZK_OK;
    if (pthread_create(&l->driver, NULL, driver_main, l) != 0) return CZK_ERR_INTERNAL;
    l->driver_on = true;
    czk_groth16_assignment_free(as);
    return CZK_OK;
  }
  czk_g1_set_infinity(&l->r1[1]);
  czk_g1_set_infinity(&l->r1[2]);
  czk_g1_set_infinity(&l->r1[3]);
  czk_g2_set_infinity(&l->r2);
  if (l->m[Q_L]) CZK_TRY(czk_cuda_msm_g1_run(l->m[Q_L], &l->r1[1], (const uint64_t *)(l->d_w + ni), na, fl, l->s_w));
  CZK_TRY(czk__bkc_event_record(l->ev[EV_ML], l->s_w));
  if (l->m[Q_A])
    CZK_TRY(czk_cuda_msm_g1_run(l->m[Q_A], &l->r1[2], (const uint64_t *)l->d_sa, e->n_idx_a, fl, l->s_w));
  CZK_TRY(czk__bkc_event_record(l->ev[EV_MA], l->s_w));
  if (l->m[Q_B1])
    CZK_TRY(czk_cuda_msm_g1_run(l->m[Q_B1], &l->r1[3], (const uint64_t *)l->d_sb, e->n_idx_b, fl, l->s_w));
  CZK_TRY(czk__bkc_event_record(l->ev[EV_MB1], l->s_w));
  if (l->m[Q_B2])
    CZK_TRY(czk_cuda_msm_g2_run(l->m[Q_B2], &l->r2, (const uint64_t *)l->d_sb, e->n_idx_b, fl, l->s_w));
  CZK_TRY(czk__bkc_event_record(l->ev[EV_MB2], l->s_w));
  czk_groth16_assignment_free(as);
  return CZK_OK;
}

static czk_status cu_g16_launch(czk_backend *be, czk_backend_g16 *j, void **pending) {
  czk_groth16_assignment *as = j->as;
  czk_status st = chk(be, setdev(be));
  kentry *e = NULL;
  lane *l = NULL;
  if (st == CZK_OK) st = chk(be, key_acquire(be, j->key, j->shape, &e));
  if (st == CZK_OK) st = chk(be, lane_get(be, e, as->n_domain, (size_t)as->w.n_inputs + as->w.n_aux, &l));
  if (st == CZK_OK) st = chk(be, launch(be, j, l));
  if (st != CZK_OK) {
    czk_groth16_assignment_free(as); /* no-op when launch already freed it */
    if (l && l->driver_on) {
      pthread_join(l->driver, NULL);
      l->driver_on = false;
    }
    if (l) {
      czk_cuda_stream_sync(l->s_h);
      czk_cuda_stream_sync(l->s_w);
      czk_cuda_stream_sync(l->s_c);
    }
    if (e) key_release(be, e, st == CZK_ERR_DEVICE ? NULL : l);
    if (l && st == CZK_ERR_DEVICE) lane_free(l);
    return st;
  }
  *pending = l;
  return CZK_OK;
}

static double ms_between(void *a, void *b) {
  float ms = 0;
  return czk__bkc_event_elapsed(&ms, a, b) == CZK_OK ? ms * 1e-3 : 0;
}

static czk_status cu_g16_wait(czk_backend *be, czk_backend_g16 *j, void *pending) {
  lane *l = pending;
  czk_status st = chk(be, setdev(be));
  if (l->driver_on) {
    pthread_join(l->driver, NULL);
    l->driver_on = false;
    if (st == CZK_OK) st = chk(be, l->driver_st);
  }
  if (st == CZK_OK) st = chk(be, czk__bkc_event_sync(l->ev[EV_MH]));
  if (st == CZK_OK) st = chk(be, czk__bkc_event_sync(l->ev[EV_MB2]));
  if (st != CZK_OK) return st;
  if (l->e->streamed) {
    /* partial sums in query order l, a, b1, h (G1) and b2 (G2) */
    kentry *e = l->e;
    const int order[4] = {Q_L, Q_A, Q_B1, Q_H};
    czk_g1 *dst[NQ] = {&j->h, &j->l, &j->a, &j->b1, NULL};
    size_t k = 0;
    for (int oi = 0; oi < 4; oi++) {
      int q = order[oi];
      czk_g1_set_infinity(dst[q]);
      for (size_t off = 0; off < e->nq[q]; off += l->chunk1) czk_g1_add(dst[q], dst[q], &l->part1[k++]);
    }
    czk_g2_set_infinity(&j->b2);
    for (size_t i = 0; i < l->cap2; i++) czk_g2_add(&j->b2, &j->b2, &l->part2[i]);
    j->t.h = ms_between(l->ev[EV_ABC], l->ev[EV_H]);
    j->t.msm_h = ms_between(l->ev[EV_WUP], l->ev[EV_MB2]); /* streamed: all MSMs in one span */
  } else {
    j->h = l->r1[0], j->l = l->r1[1], j->a = l->r1[2], j->b1 = l->r1[3], j->b2 = l->r2;
    j->t.h = ms_between(l->ev[EV_ABC], l->ev[EV_H]);
    j->t.msm_h = ms_between(l->ev[EV_H], l->ev[EV_MH]);
    j->t.msm_l = ms_between(l->ev[EV_WUP], l->ev[EV_ML]);
    j->t.msm_a = ms_between(l->ev[EV_ML], l->ev[EV_MA]);
    j->t.msm_b_g1 = ms_between(l->ev[EV_MA], l->ev[EV_MB1]);
    j->t.msm_b_g2 = ms_between(l->ev[EV_MB1], l->ev[EV_MB2]);
  }
  return CZK_OK;
}

static void cu_g16_release(czk_backend *be, void *pending) {
  lane *l = pending;
  if (!l) return;
  setdev(be);
  if (l->driver_on) {
    pthread_join(l->driver, NULL);
    l->driver_on = false;
  }
  bool bad = atomic_load(&be->quarantined);
  if (!bad) {
    /* a job aborted before finish may still be in flight: wait on the lane's own streams (not the device) */
    bad = czk_cuda_stream_sync(l->s_h) != CZK_OK || czk_cuda_stream_sync(l->s_w) != CZK_OK ||
          czk_cuda_stream_sync(l->s_c) != CZK_OK;
    if (bad) chk(be, CZK_ERR_DEVICE);
  }
  key_release(be, l->e, bad ? NULL : l);
  if (bad) lane_free(l);
}

/* ------------------------------------------------------------------------------------------------ lifecycle */
static void cu_destroy(czk_backend *be) {
  cu_ctx *c = CTX(be);
  setdev(be);
  while (c->keys) {
    kentry *e = c->keys;
    c->keys = e->next;
    entry_free(e);
  }
  for (int r = 0; r < 2; r++)
    for (int k = 0; k < 29; k++) czk_cuda_ntt_free(c->plan[r][k]);
  pthread_mutex_destroy(&c->mu);
  pthread_cond_destroy(&c->cv);
  free(c);
  free(be);
}

static const czk_backend_iface cu_iface = {
    .kind = CZK_BACKEND_CUDA,
    .destroy = cu_destroy,
    .props = cu_props,
    .alloc = cu_alloc,
    .mem_free = cu_mem_free,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .stream_new = cu_stream_new,
    .stream_free = cu_stream_free,
    .stream_sync = cu_stream_sync,
    .event_new = cu_event_new,
    .event_free = cu_event_free,
    .event_record = cu_event_record,
    .stream_wait = cu_stream_wait,
    .event_sync = cu_event_sync,
    .event_elapsed = cu_event_elapsed,
    .copy_htod = cu_htod,
    .copy_dtoh = cu_dtoh,
    .msm_g1 = cu_msm_g1,
    .msm_g2 = cu_msm_g2,
    .ntt = cu_ntt,
    .h = cu_h,
    .csr_upload = cu_csr_upload,
    .csr_free = cu_csr_free,
    .matvec = cu_matvec,
    .g16_launch = cu_g16_launch,
    .g16_wait = cu_g16_wait,
    .g16_release = cu_g16_release,
    .key_capacity = cu_key_capacity,
    .key_evict = cu_key_evict,
    .cache_stats = cu_cache_stats,
};

czk_status czk__backend_cuda_count(int *count) {
  *count = 0;
  if (!czk_cuda_available()) return CZK_OK;
  if (czk_cuda_device_count(count) != CZK_OK) *count = 0;
  return CZK_OK;
}

czk_status czk__backend_cuda_new(czk_backend **out, int device) {
  *out = NULL;
  CZK_TRY(czk_cuda_set_device(device));
  czk_backend *be = calloc(1, sizeof *be);
  cu_ctx *c = calloc(1, sizeof *c);
  if (!be || !c) {
    free(be);
    free(c);
    return CZK_ERR_NOMEM;
  }
  c->dev = device;
  czk_status st = czk_cuda_device_describe(device, c->desc, sizeof c->desc);
  uint64_t f = 0;
  if (st == CZK_OK) st = czk__bkc_mem_info(&f, &c->mem_total, &c->sms);
  if (st != CZK_OK) {
    free(be);
    free(c);
    return st;
  }
  c->cap = c->mem_total / 2;
  const char *env = getenv("CZK_BACKEND_KEY_CACHE");
  if (env && *env) c->cap = strtoull(env, NULL, 10);
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  be->iface = &cu_iface;
  be->ctx = c;
  be->device = device;
  snprintf(be->name, sizeof be->name, "cuda:%d", device);
  *out = be;
  return CZK_OK;
}
#endif
