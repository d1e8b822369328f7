/* prover.c: THE Groth16 prover: one two-phase schedule over the primitives of any compute backend (czk/backend.h),
 * for both key flavours (bellperson and snarkjs differ only in their key adapter and H mode, key.c).
 *
 * Equations (groth16.h): with the five partial sums h_acc, l_acc, a_acc, b1_acc (G1) and b2_acc (G2),
 *   A = alpha + a_acc + r delta;  B = beta_g2 + b2_acc + s delta_g2;  B1 = beta_g1 + b1_acc + s delta_g1;
 *   C = h_acc + l_acc + s A + r B1 - (r s) delta_g1;   r, s from the OS CSPRNG, wiped after use.
 *
 * prove_start (n = 2^k domain, m = rows to check, w = witness, streams s_h and s_w owned by the job's lane):
 *   s_h: [a, b, c: row check a_j b_j = c_j (j < m) and, on a device, staging into pinned memory chunk by chunk with
 *        each chunk's copy issued at once] -> H (backend op, the key's H mode) -> MSM h
 *   s_w: [w staged and copied] -> gather the a / b scalars by the key's index lists -> MSM l, a, b_g1, b_g2 (G2)
 *   A failing row stops everything before any transform or MSM (CZK_ERR_UNSATISFIED).
 *   Bases: the device copy (dkey) when given; on a host-memory backend (the CPU) the host queries in place; else the
 *   host queries are streamed: chunks copied on a third stream s_c into two device slots per group, each MSM waiting
 *   for its chunk's copy and each copy waiting for the slot's previous MSM (events only: no host thread, no device
 *   synchronization), the partial sums added in finish.
 * prove_finish: waits for the two streams' last events, sums, combines with r and s.
 *
 * Lanes: a lane is one proof's resources (streams, events, device buffers for a/b/c and w, pinned staging, gather
 * buffers, MSM handles bound to a base set). Lanes are cached per base owner (a dkey, or the host key for streamed /
 * host-memory proofs) and per size, and reused: in steady state a device proof allocates nothing and never
 * synchronizes the device. A lane belongs to one job at a time; its owner frees the cache (dkey_free, key_free).
 * On a host-memory backend (the CPU) a lane is freed when its proof ends, never cached: there it holds only the
 * gather buffers (32 B per a / b density entry: ~100 MiB for a 2 KiB PoRep key), made again in milliseconds beside a
 * proof of seconds, and a cached one stayed resident outside the memory budget for as long as its key, one per proof
 * that ever ran beside another of the same key (the soak's idle growth, docs/reliability.md "Soak"). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/fault.h"
#include "czk/log.h"
#include "groth16/groth16_internal.h"

static _Atomic unsigned long g_msm_launches;
unsigned long czk_groth16_msm_launches(void) { return atomic_load(&g_msm_launches); }

enum {
  EV_START = 0,
  EV_ABC,
  EV_H,
  EV_MH,
  EV_W0,
  EV_WUP,
  EV_ML,
  EV_MA,
  EV_MB1,
  EV_MB2,
  EV_WO, /* witness-only: s_h's first kernel may start (after the chain's wait) */
  EV_IDX, /* a compact lane's index lists are on the device (a host key's: copied; else with the key) */
  EV_SLOT0,
  EV_SLOT1 = EV_SLOT0 + 8, /* a compact lane's second pipeline (s_w) */
  EV_COUNT = EV_SLOT1 + 8
};
/* a/b/c are staged and their copies issued in chunks of max(2^16, n/16) rows: small domains start their copies early
 * (2^18-2^19 pipeline: device busy 93-94% -> 96%), large ones keep few, large chunks (2^24: 16 chunks of 2^20) */
#define STAGE_ROWS_MIN ((size_t)1 << 16)
/* Domains up to this size prove on streams of the device's greatest priority (a 32 GiB WinningPoSt is 2^22; PoRep,
 * WindowPoSt and SnapDeals partitions are 2^27 at 32 GiB) */
#define URGENT_DOMAIN_MAX ((size_t)1 << 23)
#define STREAM_CHUNK_G1 ((size_t)1 << 22)
#define STREAM_CHUNK_G2 ((size_t)1 << 21)

static const size_t QSZ[CZK__NQ] = {sizeof(czk_g1_affine), sizeof(czk_g1_affine), sizeof(czk_g1_affine),
                                    sizeof(czk_g1_affine), sizeof(czk_g2_affine)};

struct czk__lane {
  czk__lane *next;
  czk_backend *be;
  bool host;     /* host-memory backend: no staging, operations complete in place */
  bool streamed; /* bases streamed from host through slots */
  bool wo;       /* witness-only proofs: the pinned stage holds w alone (packed or not), not a, b, c too */
  bool compact;  /* a compact lane (groth16.h czk_groth16_lane_opts): w, x, y; one compute stream s_h */
  size_t n, nw;
  czk_backend_stream *s_h, *s_w, *s_c;
  czk_backend_event *ev[EV_COUNT];
  czk_fr *d_abc, *d_w, *d_sa, *d_sb; /* device buffers (not on a host backend, except the gathers) */
  czk_fr *h_stage;                   /* pinned: 3n + nw (wo: nw) */
  uint32_t *d_flag;                  /* witness-only mode: the device row check's result */
  uint32_t *d_idx[2];                /* streamed: this lane's device copies of the index lists */
  czk_backend_msm *m[CZK__NQ];       /* resident / host: one per query; streamed: [0,1] G1 slots, [2,3] G2 slots */
  void *d_slot[4];
  size_t chunk1, chunk2, cap1, cap2;
  czk_g1 r1[4];
  czk_g2 r2;
  czk_g1 *part1;
  czk_g2 *part2;
  /* compact lanes */
  bool lean;                         /* one pipeline on s_h (else h on s_h, the witness MSMs on s_w beside H) */
  czk_fr *d_x, *d_y;                 /* the two domain vectors (y also holds pipeline 0's slots, gathers, index
                                        copies once H is done) */
  void *d_p1;                        /* pipeline 1's own buffer (slots, gathers, index copies: it runs beside H) */
  czk_backend_stream *s_c2;          /* pipeline 1's copy stream */
  czk_backend_msm *mq[CZK__NQ];      /* resident queries' handles (bases in place, runs over chunks) */
  czk_backend_msm *ms[2][4];         /* per pipeline, streamed chunks' slot handles: [0,1] G1, [2,3] G2 */
  void *slot[2][4];
  czk_fr *d_gather[2];               /* a chunk's gathered a / b scalars */
  /* packed streaming (czk_backend_pack_nonzero, CZK_STREAM_PACK=1): per pipeline and slot, the packed scalars of a
   * streamed witness chunk (NULL where no witness query of that group streams there); the packer's temporary
   * storage per pipeline and its byte counters (device u64 x 2) */
  czk_fr *psc[2][4];
  void *d_ptmp[2];
  uint64_t *d_pbytes, *h_pzero;     /* the counters; 16 zero bytes of pinned host memory that reset them */
  bool pack_lane;                    /* made for packing (CZK_STREAM_PACK=1): psc, d_ptmp, d_pbytes where needed */
  bool pack;                         /* this proof packs its streamed witness chunks (until a refusal) */
  bool packed_any;                   /* some chunk of this proof was packed: its bytes are counted on the device */
  uint32_t *d_idxc[2];               /* index lists copied to the device (a host key's) */
  uint64_t up_bytes;                 /* bytes copied from host memory by this proof */
  /* the device's wait for streamed chunks (czk_groth16_timings.upload_wait): two timing events per chunk k of the lane
   * (k = the chunk's own index among the G1 chunks of all queries in order, cap1 + its index among the G2 ones), [2k]
   * recorded on the compute stream just before it waits for the chunk's copy, [2k + 1] on the copy stream after the
   * copy (before the event the compute stream waits for); made with the lane where some query
   * streams (not on a host-memory backend), NULL otherwise */
  czk_backend_event **ev_up;
  uint8_t *up_pipe;                  /* per chunk, this proof: 0 not streamed, else 1 + the compute stream (0 s_h, 1 s_w) */
  size_t n_up;                       /* chunks covered: cap1 + cap2 */
  /* per proof */
  const czk__bases *bases;
  double t_check, t_h, t_msm[CZK__NQ];
};

/* ------------------------------------------------------------------------------------------------ lanes */
static void lane_free(czk__lane *l) {
  if (!l) return;
  czk_backend *be = l->be;
  czk_backend_stream *ss[3] = {l->s_h, l->s_w, l->s_c};
  for (int i = 0; i < 3; i++)
    if (ss[i]) (void)czk_backend_stream_sync(be, ss[i]);
  for (int i = 0; i < CZK__NQ; i++) czk_backend_msm_free(be, l->m[i]);
  for (int i = 0; i < CZK__NQ; i++) czk_backend_msm_free(be, l->mq[i]);
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < 4; i++) czk_backend_msm_free(be, l->ms[p][i]);
  if (l->s_c2) (void)czk_backend_stream_sync(be, l->s_c2);
  czk_backend_stream_free(be, l->s_c2);
  czk_backend_mem_free(be, l->d_x);
  czk_backend_mem_free(be, l->d_y);
  czk_backend_mem_free(be, l->d_p1);
  for (int i = 0; i < 4; i++) czk_backend_mem_free(be, l->d_slot[i]);
  for (int i = 0; i < 2; i++) czk_backend_mem_free(be, l->d_idx[i]);
  czk_backend_mem_free(be, l->d_abc);
  czk_backend_mem_free(be, l->d_flag);
  for (int p = 0; p < 2; p++) czk_backend_mem_free(be, l->d_ptmp[p]);
  czk_backend_mem_free(be, l->d_pbytes);
  czk_backend_host_free(be, l->h_pzero);
  czk_backend_mem_free(be, l->d_w);
  czk_backend_mem_free(be, l->d_sa);
  czk_backend_mem_free(be, l->d_sb);
  czk_backend_host_free(be, l->h_stage);
  for (int i = 0; i < EV_COUNT; i++) czk_backend_event_free(be, l->ev[i]);
  for (size_t i = 0; l->ev_up && i < 2 * l->n_up; i++) czk_backend_event_free(be, l->ev_up[i]);
  free(l->ev_up);
  free(l->up_pipe);
  for (int i = 0; i < 3; i++) czk_backend_stream_free(be, ss[i]);
  free(l->part1);
  free(l->part2);
  free(l);
}

void czk__lanes_init(czk__lanes *c) {
  pthread_mutex_init(&c->mu, NULL);
  pthread_mutex_init(&c->chain_mu, NULL);
  c->head = NULL;
  c->chain_be = NULL;
  c->chain_ev = NULL;
  c->chain_set = false;
}
static void chain_drop(czk__lanes *c, czk_backend *be) {
  pthread_mutex_lock(&c->chain_mu);
  if (c->chain_ev && (!be || c->chain_be == be)) {
    czk_backend_event_free(c->chain_be, c->chain_ev);
    c->chain_ev = NULL, c->chain_be = NULL, c->chain_set = false;
  }
  pthread_mutex_unlock(&c->chain_mu);
}
void czk__lanes_destroy(czk__lanes *c) {
  while (c->head) {
    czk__lane *l = c->head;
    c->head = l->next;
    lane_free(l);
  }
  chain_drop(c, NULL);
  pthread_mutex_destroy(&c->chain_mu);
  pthread_mutex_destroy(&c->mu);
}

/* Frees the lanes of be not in use (a lane in use is not on the list). */
static void lanes_drop_idle(czk__lanes *c, czk_backend *be) {
  czk__lane *drop = NULL;
  pthread_mutex_lock(&c->mu);
  for (czk__lane **pp = &c->head; *pp;) {
    czk__lane *l = *pp;
    if (l->be == be) {
      *pp = l->next;
      l->next = drop;
      drop = l;
    } else {
      pp = &l->next;
    }
  }
  pthread_mutex_unlock(&c->mu);
  while (drop) {
    czk__lane *l = drop;
    drop = l->next;
    lane_free(l);
  }
}

void czk__lanes_drop_backend(czk__lanes *c, czk_backend *be) {
  chain_drop(c, be);
  lanes_drop_idle(c, be);
}

size_t czk__lanes_count(czk__lanes *c) {
  size_t n = 0;
  pthread_mutex_lock(&c->mu);
  for (const czk__lane *l = c->head; l; l = l->next) n++;
  pthread_mutex_unlock(&c->mu);
  return n;
}

/* The streamed chunks' timing events (ev_up), once per lane: 2 (cap1 + cap2) events, none on a host-memory backend
 * (its copies are memcpy calls and its events trivially complete). */
static czk_status lane_up_events(czk_backend *be, czk__lane *l) {
  const size_t n = l->cap1 + l->cap2;
  if (!n || czk_backend_host_memory(be)) return CZK_OK;
  l->ev_up = calloc(2 * n, sizeof *l->ev_up);
  l->up_pipe = calloc(n, 1);
  l->n_up = n;
  if (!l->ev_up || !l->up_pipe) return CZK_ERR_NOMEM;
  for (size_t i = 0; i < 2 * n; i++) CZK_TRY(czk_backend_event_new(be, &l->ev_up[i]));
  return CZK_OK;
}
/* Chunk k's timing event `which` (0: the compute stream is ready for it, marking it streamed by pipeline pipe in this
 * proof; 1: its copy is done) recorded on s. */
static czk_status up_event(czk_backend *be, czk__lane *l, size_t k, int which, czk_backend_stream *s, int pipe) {
  if (!l->ev_up) return CZK_OK;
  if (k >= l->n_up) return CZK_ERR_INTERNAL; /* a chunk the lane did not count */
  if (which == 0) l->up_pipe[k] = (uint8_t)(1 + pipe);
  return czk_backend_event_record(be, l->ev_up[2 * k + which], s);
}

/* The witness stream s_w of a lane that is not urgent runs at a raised priority (czk_backend_stream_new_raised): its
 * MSMs are chains of small kernels, each run of a chunk waiting for its 0/1 split's counts, beside MSM h's large
 * kernels on s_h, which otherwise take every SM that frees; raised, the chain's blocks go first and h fills the rest.
 * CZK_WITNESS_PRIO=0 makes it a plain stream (for A/B on a device). */
static czk_status witness_stream_new(czk_backend *be, czk_backend_stream **out, bool urgent) {
  if (urgent) return czk_backend_stream_new_urgent(be, out);
  const char *e = getenv("CZK_WITNESS_PRIO");
  return e && !strcmp(e, "0") ? czk_backend_stream_new(be, out) : czk_backend_stream_new_raised(be, out);
}

static czk_status lane_new(czk_backend *be, bool host, bool wo, const czk__bases *b, size_t n, size_t nw,
                           czk__lane **out) {
  czk__lane *l = calloc(1, sizeof *l);
  if (!l) return CZK_ERR_NOMEM;
  l->be = be, l->host = host, l->streamed = !host && b->streamed, l->n = n, l->nw = nw, l->wo = wo && !host;
  /* small proofs are the latency-bound ones (WinningPoSt beside a PoRep backlog): their kernels go first */
  czk_status (*mk)(czk_backend *, czk_backend_stream **) =
      n <= URGENT_DOMAIN_MAX ? czk_backend_stream_new_urgent : czk_backend_stream_new;
  czk_status st = mk(be, &l->s_h);
  if (st == CZK_OK) st = witness_stream_new(be, &l->s_w, n <= URGENT_DOMAIN_MAX);
  if (st == CZK_OK) st = mk(be, &l->s_c);
  for (int i = 0; i < EV_COUNT && st == CZK_OK; i++) st = czk_backend_event_new(be, &l->ev[i]);
  if (st == CZK_OK && !host) st = czk_backend_alloc(be, (void **)&l->d_abc, 3 * n * sizeof(czk_fr));
  if (st == CZK_OK && !host) st = czk_backend_alloc(be, (void **)&l->d_w, nw * sizeof(czk_fr));
  if (st == CZK_OK && !host) st = czk_backend_alloc(be, (void **)&l->d_flag, 256);
  if (st == CZK_OK && !host)
    st = czk_backend_host_alloc(be, (void **)&l->h_stage, ((l->wo ? 0 : 3 * n) + nw) * sizeof(czk_fr));
  if (st == CZK_OK && b->n_idx[0]) st = czk_backend_alloc(be, (void **)&l->d_sa, b->n_idx[0] * sizeof(czk_fr));
  if (st == CZK_OK && b->n_idx[1]) st = czk_backend_alloc(be, (void **)&l->d_sb, b->n_idx[1] * sizeof(czk_fr));
  if (st == CZK_OK && !l->streamed) {
    for (int i = 0; i < CZK__NQ && st == CZK_OK; i++)
      if (b->nq[i])
        st = czk_backend_msm_new(be, &l->m[i], i == CZK__Q_B2 ? CZK_BACKEND_G2 : CZK_BACKEND_G1, b->q[i], b->nq[i]);
    /* the four witness MSMs run one after another on s_w: one scratch for them (h's, on s_h, stays its own) */
    czk_backend_msm *first = NULL;
    for (int i = CZK__Q_L; i < CZK__NQ && st == CZK_OK; i++) {
      if (!l->m[i]) continue;
      if (first) st = czk_backend_msm_share(be, l->m[i], first);
      else first = l->m[i];
    }
    /* the memory plan (czk_groth16_plan_prove): every scratch at its full size now, none grown by a run. H values are
     * dense: h's runs skip the 0/1 split (and its host synchronization) */
    if (st == CZK_OK && l->m[CZK__Q_H]) czk_backend_msm_set_dense(be, l->m[CZK__Q_H], true);
    for (int i = 0; i < CZK__NQ && st == CZK_OK; i++)
      if (l->m[i]) st = czk_backend_msm_reserve(be, l->m[i], b->nq[i]);
  } else if (st == CZK_OK) {
    /* index lists live with the lane (a streamed key has no device copy) */
    for (int i = 0; i < 2 && st == CZK_OK; i++) {
      if (!b->n_idx[i]) continue;
      st = czk_backend_alloc(be, (void **)&l->d_idx[i], b->n_idx[i] * sizeof(uint32_t));
      if (st == CZK_OK) st = czk_backend_copy_htod(be, l->d_idx[i], b->idx[i], b->n_idx[i] * sizeof(uint32_t), l->s_c);
    }
    if (st == CZK_OK) st = czk_backend_stream_sync(be, l->s_c);
    size_t m1 = 1, m2 = b->nq[CZK__Q_B2] > 1 ? b->nq[CZK__Q_B2] : 1;
    for (int i = 0; i < CZK__Q_B2; i++) m1 = b->nq[i] > m1 ? b->nq[i] : m1;
    l->chunk1 = m1 < STREAM_CHUNK_G1 ? m1 : STREAM_CHUNK_G1;
    l->chunk2 = m2 < STREAM_CHUNK_G2 ? m2 : STREAM_CHUNK_G2;
    for (int i = 0; i < 4 && st == CZK_OK; i++) {
      bool g2 = i >= 2;
      size_t cnt = g2 ? l->chunk2 : l->chunk1;
      st = czk_backend_alloc(be, &l->d_slot[i], cnt * (g2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine)));
      if (st == CZK_OK)
        st = czk_backend_msm_new(be, &l->m[i], g2 ? CZK_BACKEND_G2 : CZK_BACKEND_G1, l->d_slot[i], cnt);
      if (st == CZK_OK && i > 0) st = czk_backend_msm_share(be, l->m[i], l->m[0]); /* all four run on s_w */
    }
    for (int i = 0; i < 4 && st == CZK_OK; i++) st = czk_backend_msm_reserve(be, l->m[i], i >= 2 ? l->chunk2 : l->chunk1);
    for (int i = 0; i < CZK__Q_B2; i++) l->cap1 += (b->nq[i] + l->chunk1 - 1) / l->chunk1;
    l->cap2 = (b->nq[CZK__Q_B2] + l->chunk2 - 1) / l->chunk2;
    l->part1 = calloc(l->cap1 + 1, sizeof *l->part1);
    l->part2 = calloc(l->cap2 + 1, sizeof *l->part2);
    if (st == CZK_OK && (!l->part1 || !l->part2)) st = CZK_ERR_NOMEM;
    if (st == CZK_OK) st = lane_up_events(be, l);
  }
  if (st != CZK_OK) {
    lane_free(l);
    return st;
  }
  *out = l;
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ compact lanes */
/* CZK_STREAM_PACK=1: a compact lane's streamed witness chunks carry only their points with non-zero scalars
 * (czk_backend_pack_nonzero, the device reading the pinned host copy in place) instead of being copied whole. Read
 * where lanes are planned and made: a lane made without it has no packed-scalar buffers (their memory is planned only
 * when packing is on) and never packs. Off by default until measured against the copies on a device. */
static bool pack_on(void) {
  const char *e = getenv("CZK_STREAM_PACK");
  return e && !strcmp(e, "1");
}

#define LANE_SLACK_C ((uint64_t)64 << 20) /* allocator rounding and the handles' small buffers */
static size_t al32(size_t x) { return (x + 31) & ~(size_t)31; }
/* Which pipeline runs query q: lean lanes run all five on pipeline 0; else h on 0 (after H, on s_h), the witness
 * MSMs on 1 (s_w, beside H). */
static int q_pipe(bool lean, int q) { return lean || q == CZK__Q_H ? 0 : 1; }
/* A compact lane's geometry: chunk sizes, each pipeline's buffer layout (pipeline 0's lies in y once H is done;
 * pipeline 1's is a buffer of its own, d_p1), chunks per proof. */
typedef struct compact_geom {
  size_t c1, c2;                /* points per G1 / G2 chunk */
  bool sl[2][2];                /* [pipe][G1, G2]: some query of that group streamed there */
  bool gath[2];                 /* the pipeline gathers a / b scalars */
  bool wsl[2][2];               /* [pipe][G1, G2]: some witness query of that group streamed there (packed scalars) */
  bool idx_copy;                /* the index lists are host memory: copied to the device */
  int idx_pipe;                 /* which pipeline's buffer holds the index copies */
  size_t off_slot[2][4], off_psc[2][4], off_gather[2], off_idx[2], bytes[2];
  size_t y_bytes;
  size_t cap1, cap2;            /* chunks (partial sums) per proof */
} compact_geom;
static void compact_geom_of(const czk__bases *b, size_t n, unsigned chunk_log, bool lean, bool pack,
                            compact_geom *g) {
  memset(g, 0, sizeof *g);
  if (!chunk_log) chunk_log = CZK_GROTH16_COMPACT_CHUNK_LOG;
  if (chunk_log > 30) chunk_log = 30;
  size_t m1 = 1, m2 = 1;
  for (int i = 0; i < CZK__Q_B2; i++) m1 = b->nq[i] > m1 ? b->nq[i] : m1;
  m2 = b->nq[CZK__Q_B2] > 1 ? b->nq[CZK__Q_B2] : 1;
  const size_t c = (size_t)1 << chunk_log;
  g->c1 = m1 < c ? m1 : c;
  g->c2 = m2 < c / 2 ? m2 : (c / 2 ? c / 2 : 1);
  for (int q = 0; q < CZK__NQ; q++) {
    if (!b->nq[q]) continue;
    const int p = q_pipe(lean, q);
    if (czk__q_host(b, q)) g->sl[p][q == CZK__Q_B2] = true;
    if (pack && czk__q_host(b, q) && q != CZK__Q_H) g->wsl[p][q == CZK__Q_B2] = true;
    if ((q == CZK__Q_A && b->n_idx[0]) || ((q == CZK__Q_B1 || q == CZK__Q_B2) && b->n_idx[1])) g->gath[p] = true;
  }
  g->idx_copy = b->streamed && (b->n_idx[0] || b->n_idx[1]);
  g->idx_pipe = lean ? 0 : 1;
  for (int p = 0; p < 2; p++) {
    size_t off = 0;
    for (int i = 0; i < 4; i++)
      if (g->sl[p][i >= 2]) g->off_slot[p][i] = off, off += al32(i < 2 ? g->c1 * sizeof(czk_g1_affine)
                                                                         : g->c2 * sizeof(czk_g2_affine));
    for (int i = 0; i < 4; i++)
      if (g->wsl[p][i >= 2]) g->off_psc[p][i] = off, off += al32((i < 2 ? g->c1 : g->c2) * sizeof(czk_fr));
    if (g->gath[p]) g->off_gather[p] = off, off += al32(g->c1 * sizeof(czk_fr));
    for (int i = 0; i < 2 && p == g->idx_pipe; i++)
      if (g->idx_copy && b->n_idx[i]) g->off_idx[i] = off, off += al32(b->n_idx[i] * sizeof(uint32_t));
    g->bytes[p] = off;
  }
  g->y_bytes = n * sizeof(czk_fr) > g->bytes[0] ? n * sizeof(czk_fr) : g->bytes[0];
  for (int i = 0; i < CZK__Q_B2; i++) g->cap1 += (b->nq[i] + g->c1 - 1) / g->c1;
  g->cap2 = (b->nq[CZK__Q_B2] + g->c2 - 1) / g->c2;
}

/* The packer's temporary storage for a pipeline's largest chunk (at least 32 bytes: an allocation of its own). */
static size_t pack_tmp_bytes(czk_backend *be, const compact_geom *g) {
  const size_t t = czk_backend_pack_nonzero_tmp(be, g->c1 > g->c2 ? g->c1 : g->c2);
  return al32(t > 32 ? t : 32);
}

/* The MSM scratch needs of each pipeline (one scratch per pipeline, shared by its handles): its groups at a chunk;
 * h (pipeline 0 of a lane that is not lean) is dense. */
static size_t pipe_needs(const czk__bases *b, const compact_geom *g, bool lean, int p, czk_backend_msm_need *w) {
  bool g1 = false, g2 = false, sparse1 = false;
  for (int q = 0; q < CZK__NQ; q++) {
    if (!b->nq[q] || q_pipe(lean, q) != p) continue;
    if (q == CZK__Q_B2) g2 = true;
    else g1 = true, sparse1 |= q != CZK__Q_H;
  }
  size_t k = 0;
  if (g1) w[k++] = (czk_backend_msm_need){CZK_BACKEND_G1, g->c1, !sparse1};
  if (g2) w[k++] = (czk_backend_msm_need){CZK_BACKEND_G2, g->c2, false};
  return k;
}

static czk_status lane_new_compact(czk_backend *be, bool wo, const czk__bases *b, size_t n, size_t nw,
                                   unsigned chunk_log, bool lean, bool pack, czk__lane **out) {
  czk__lane *l = calloc(1, sizeof *l);
  if (!l) return CZK_ERR_NOMEM;
  compact_geom g;
  compact_geom_of(b, n, chunk_log, lean, pack, &g);
  l->pack_lane = pack;
  l->be = be, l->compact = true, l->lean = lean, l->n = n, l->nw = nw, l->wo = wo, l->bases = b;
  l->chunk1 = g.c1, l->chunk2 = g.c2, l->cap1 = g.cap1, l->cap2 = g.cap2;
  czk_status (*mk)(czk_backend *, czk_backend_stream **) =
      n <= URGENT_DOMAIN_MAX ? czk_backend_stream_new_urgent : czk_backend_stream_new;
  czk_status st = mk(be, &l->s_h);
  if (st == CZK_OK) st = witness_stream_new(be, &l->s_w, n <= URGENT_DOMAIN_MAX);
  if (st == CZK_OK) st = mk(be, &l->s_c);
  if (st == CZK_OK && !lean) st = mk(be, &l->s_c2);
  for (int i = 0; i < EV_COUNT && st == CZK_OK; i++) st = czk_backend_event_new(be, &l->ev[i]);
  if (st == CZK_OK) st = czk_backend_alloc(be, (void **)&l->d_w, nw * sizeof(czk_fr));
  if (st == CZK_OK) st = czk_backend_alloc(be, (void **)&l->d_x, n * sizeof(czk_fr));
  if (st == CZK_OK) st = czk_backend_alloc(be, (void **)&l->d_y, g.y_bytes);
  if (st == CZK_OK && !lean && g.bytes[1]) st = czk_backend_alloc(be, &l->d_p1, g.bytes[1]);
  if (st == CZK_OK) st = czk_backend_alloc(be, (void **)&l->d_flag, 256);
  for (int p = 0; p < 2 && st == CZK_OK; p++)
    if (g.wsl[p][0] || g.wsl[p][1]) {
      st = czk_backend_alloc(be, &l->d_ptmp[p], pack_tmp_bytes(be, &g));
      if (st == CZK_OK && !l->d_pbytes) st = czk_backend_alloc(be, (void **)&l->d_pbytes, 2 * sizeof(uint64_t));
      if (st == CZK_OK && !l->h_pzero) st = czk_backend_host_alloc(be, (void **)&l->h_pzero, 2 * sizeof(uint64_t));
    }
  if (st == CZK_OK && l->h_pzero) memset(l->h_pzero, 0, 2 * sizeof(uint64_t));
  if (st == CZK_OK)
    st = czk_backend_host_alloc(be, (void **)&l->h_stage, ((wo ? 0 : 3 * n) + nw) * sizeof(czk_fr));
  if (st == CZK_OK) {
    for (int p = 0; p < 2; p++) {
      uint8_t *base = p == 0 ? (uint8_t *)l->d_y : (uint8_t *)l->d_p1;
      if (!base) continue;
      for (int i = 0; i < 4; i++)
        if (g.sl[p][i >= 2]) l->slot[p][i] = base + g.off_slot[p][i];
      for (int i = 0; i < 4; i++)
        if (g.wsl[p][i >= 2]) l->psc[p][i] = (czk_fr *)(base + g.off_psc[p][i]);
      if (g.gath[p]) l->d_gather[p] = (czk_fr *)(base + g.off_gather[p]);
      for (int i = 0; i < 2 && p == g.idx_pipe; i++)
        if (g.idx_copy && b->n_idx[i]) l->d_idxc[i] = (uint32_t *)(base + g.off_idx[i]);
    }
  }
  /* handles: resident queries over their bases in place, streamed ones over their pipeline's slots; one scratch per
   * pipeline (its runs are on one stream), reserved for a chunk of each group */
  czk_backend_msm *first[2] = {NULL, NULL};
  for (int q = 0; q < CZK__NQ && st == CZK_OK; q++) {
    if (!b->nq[q] || czk__q_host(b, q)) continue;
    const int p = q_pipe(lean, q);
    st = czk_backend_msm_new(be, &l->mq[q], q == CZK__Q_B2 ? CZK_BACKEND_G2 : CZK_BACKEND_G1, b->q[q], b->nq[q]);
    if (st == CZK_OK && first[p]) st = czk_backend_msm_share(be, l->mq[q], first[p]);
    else if (st == CZK_OK) first[p] = l->mq[q];
  }
  for (int p = 0; p < 2 && st == CZK_OK; p++)
    for (int i = 0; i < 4 && st == CZK_OK; i++) {
      if (!l->slot[p][i]) continue;
      const bool g2 = i >= 2;
      st = czk_backend_msm_new(be, &l->ms[p][i], g2 ? CZK_BACKEND_G2 : CZK_BACKEND_G1, l->slot[p][i],
                               g2 ? g.c2 : g.c1);
      if (st == CZK_OK && first[p]) st = czk_backend_msm_share(be, l->ms[p][i], first[p]);
      else if (st == CZK_OK) first[p] = l->ms[p][i];
    }
  if (st == CZK_OK && !lean && l->mq[CZK__Q_H]) czk_backend_msm_set_dense(be, l->mq[CZK__Q_H], true);
  for (int q = 0; q < CZK__NQ && st == CZK_OK; q++)
    if (l->mq[q]) st = czk_backend_msm_reserve(be, l->mq[q], q == CZK__Q_B2 ? g.c2 : g.c1);
  for (int p = 0; p < 2 && st == CZK_OK; p++)
    for (int i = 0; i < 4 && st == CZK_OK; i++)
      if (l->ms[p][i]) {
        if (!lean && p == 0) czk_backend_msm_set_dense(be, l->ms[p][i], true); /* h alone */
        st = czk_backend_msm_reserve(be, l->ms[p][i], i >= 2 ? g.c2 : g.c1);
      }
  l->part1 = calloc(g.cap1 + 1, sizeof *l->part1);
  l->part2 = calloc(g.cap2 + 1, sizeof *l->part2);
  if (st == CZK_OK && (!l->part1 || !l->part2)) st = CZK_ERR_NOMEM;
  if (st == CZK_OK && (g.sl[0][0] || g.sl[0][1] || g.sl[1][0] || g.sl[1][1])) st = lane_up_events(be, l);
  if (st != CZK_OK) {
    lane_free(l);
    return st;
  }
  *out = l;
  return CZK_OK;
}

/* The device bytes lane_new_compact allocates. */
static czk_status compact_bytes(czk_backend *be, const czk__bases *b, size_t n, size_t nw, unsigned chunk_log,
                                bool lean, uint64_t *out) {
  compact_geom g;
  compact_geom_of(b, n, chunk_log, lean, pack_on(), &g);
  uint64_t sum = LANE_SLACK_C + (uint64_t)nw * sizeof(czk_fr) + (uint64_t)n * sizeof(czk_fr) + g.y_bytes + 256;
  if (!lean) sum += g.bytes[1];
  for (int p = 0; p < 2; p++)
    if (g.wsl[p][0] || g.wsl[p][1]) sum += pack_tmp_bytes(be, &g) + 2 * sizeof(uint64_t);
  for (int p = 0; p < (lean ? 1 : 2); p++) {
    czk_backend_msm_need w[2];
    const size_t k = pipe_needs(b, &g, lean, p, w);
    uint64_t sh = 0;
    if (k) CZK_TRY(czk_backend_msm_plan_bytes(be, w, k, &sh));
    sum += sh;
  }
  *out = sum;
  return CZK_OK;
}

static czk_status lane_get(czk__lanes *c, czk_backend *be, bool host, bool wo, const czk__bases *b, size_t n,
                           size_t nw, const czk_groth16_lane_opts *o, czk__lane **out) {
  const bool compact = o && o->compact, lean = compact && o->lean;
  wo = wo && (!host || compact);
  size_t c1 = 0;
  const bool pack = compact && pack_on();
  if (compact) {
    compact_geom g;
    compact_geom_of(b, n, o->chunk_log, lean, pack, &g);
    c1 = g.c1;
  }
  pthread_mutex_lock(&c->mu);
  czk__lane **pp = &c->head;
  while (*pp && ((*pp)->be != be || (*pp)->n != n || (*pp)->nw != nw || (*pp)->wo != wo ||
                 (*pp)->compact != compact ||
                 (compact && ((*pp)->chunk1 != c1 || (*pp)->lean != lean || (*pp)->pack_lane != pack))))
    pp = &(*pp)->next;
  czk__lane *l = *pp;
  if (l) *pp = l->next;
  pthread_mutex_unlock(&c->mu);
  if (l) {
    l->next = NULL;
    *out = l;
    return CZK_OK;
  }
  if (compact) return lane_new_compact(be, wo, b, n, nw, o->chunk_log, lean, pack, out);
  return lane_new(be, host, wo, b, n, nw, out);
}

static void lane_put(czk__lanes *c, czk__lane *l) {
  pthread_mutex_lock(&c->mu);
  l->next = c->head;
  c->head = l;
  pthread_mutex_unlock(&c->mu);
}

/* ------------------------------------------------------------------------------------------------ memory plan */
/* Slack per lane for the allocator's rounding (CUDA rounds each allocation up to 2 MiB pages; a lane makes ~30) and the
 * MSM handles' small buffers (window sums, counts). */
#define LANE_SLACK ((uint64_t)96 << 20)

static size_t streamed_chunk(const czk__bases *b, bool g2) {
  size_t m = 1;
  if (g2) m = b->nq[CZK__Q_B2] > 1 ? b->nq[CZK__Q_B2] : 1;
  else
    for (int i = 0; i < CZK__Q_B2; i++) m = b->nq[i] > m ? b->nq[i] : m;
  size_t cap = g2 ? STREAM_CHUNK_G2 : STREAM_CHUNK_G1;
  return m < cap ? m : cap;
}

/* The device bytes lane_new allocates for (b, n, nw) on a device backend. */
static czk_status lane_bytes(czk_backend *be, const czk__bases *b, bool streamed, size_t n, size_t nw, uint64_t *out) {
  uint64_t sum = LANE_SLACK + 3ull * n * sizeof(czk_fr) + (uint64_t)nw * sizeof(czk_fr) + 256;
  sum += ((uint64_t)b->n_idx[0] + b->n_idx[1]) * sizeof(czk_fr);
  uint64_t sh = 0;
  if (!streamed) {
    czk_backend_msm_need h = {CZK_BACKEND_G1, b->nq[CZK__Q_H], true}, w[4];
    size_t k = 0;
    for (int i = CZK__Q_L; i < CZK__NQ; i++)
      if (b->nq[i]) w[k++] = (czk_backend_msm_need){i == CZK__Q_B2 ? CZK_BACKEND_G2 : CZK_BACKEND_G1, b->nq[i], false};
    if (b->nq[CZK__Q_H]) CZK_TRY(czk_backend_msm_plan_bytes(be, &h, 1, &sh));
    sum += sh;
    CZK_TRY(czk_backend_msm_plan_bytes(be, w, k, &sh));
    sum += sh;
  } else {
    const size_t c1 = streamed_chunk(b, false), c2 = streamed_chunk(b, true);
    sum += ((uint64_t)b->n_idx[0] + b->n_idx[1]) * sizeof(uint32_t);
    sum += 2ull * c1 * sizeof(czk_g1_affine) + 2ull * c2 * sizeof(czk_g2_affine);
    czk_backend_msm_need w[2] = {{CZK_BACKEND_G1, c1, false}, {CZK_BACKEND_G2, c2, false}};
    CZK_TRY(czk_backend_msm_plan_bytes(be, w, 2, &sh));
    sum += sh;
  }
  *out = sum;
  return CZK_OK;
}

czk_status czk_groth16_plan_prove_ex(czk_groth16_prove_plan *out, czk_backend *be, const czk_groth16_key *key,
                                     unsigned dev_mask, bool witness_only, const czk_groth16_lane_opts *o) {
  if (!out || !be || !key || (dev_mask & ~CZK_GROTH16_Q_ALL)) return CZK_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  const bool compact = (o && o->compact) || (dev_mask && dev_mask != CZK_GROTH16_Q_ALL);
  if (czk_backend_host_memory(be)) return CZK_OK; /* no device memory (its lanes are host memory, freed per proof) */
  const size_t n = (size_t)1 << key->log_n, nw = key->n_inputs + key->n_aux;
  czk__bases b = *czk__key_bases(key); /* a device copy holds the same queries (sizes) and index lists */
  b.streamed = dev_mask == 0;
  for (int q = 0; q < CZK__NQ; q++) b.host_q[q] = !(dev_mask & (1u << q));
  if (compact) CZK_TRY(compact_bytes(be, &b, n, nw, o ? o->chunk_log : 0, o && o->lean, &out->lane));
  else CZK_TRY(lane_bytes(be, &b, dev_mask == 0, n, nw, &out->lane));
  out->tables = czk_backend_h_plan_bytes(be, key->log_n, key->h_mode);
  out->pinned = ((witness_only ? 0 : 3ull * n) + nw) * sizeof(czk_fr);
  return CZK_OK;
}
czk_status czk_groth16_plan_prove(czk_groth16_prove_plan *out, czk_backend *be, const czk_groth16_key *key,
                                  bool resident, bool witness_only) {
  return czk_groth16_plan_prove_ex(out, be, key, resident ? CZK_GROTH16_Q_ALL : 0, witness_only, NULL);
}

size_t czk_groth16_lanes_trim(const czk_groth16_key *key, const czk_groth16_dkey *dkey, czk_backend *be) {
  if (!key || !be) return 0;
  czk__lanes *c = dkey ? czk__dkey_lanes(dkey) : czk__key_lanes(key);
  size_t before = czk__lanes_count(c);
  lanes_drop_idle(c, be);
  size_t after = czk__lanes_count(c);
  return before > after ? before - after : 0;
}

czk_status czk_groth16_lane_warm_ex(const czk_groth16_key *key, const czk_groth16_dkey *dkey, czk_backend *be,
                                    bool witness_only, const czk_groth16_lane_opts *o) {
  if (!key || !be || (dkey && czk__dkey_backend(dkey) != be)) return CZK_ERR_INVALID_ARG;
  if (czk_backend_host_memory(be)) return CZK_ERR_UNSUPPORTED;
  CZK_TRY(czk_backend_h_prepare(be, key->log_n, key->h_mode));
  const czk__bases *b = dkey ? czk__dkey_bases(dkey) : czk__key_bases(key);
  const bool partial = dkey && czk_groth16_dkey_mask(dkey) != CZK_GROTH16_Q_ALL;
  const czk_groth16_lane_opts oc = {true, o ? o->chunk_log : 0, o && o->lean, NULL, NULL};
  czk__lane *l = NULL;
  const size_t n = (size_t)1 << key->log_n, nw = key->n_inputs + key->n_aux;
  if ((o && o->compact) || partial)
    CZK_TRY(lane_new_compact(be, witness_only, b, n, nw, oc.chunk_log, oc.lean, pack_on(), &l));
  else CZK_TRY(lane_new(be, false, witness_only, b, n, nw, &l));
  lane_put(dkey ? czk__dkey_lanes(dkey) : czk__key_lanes(key), l);
  return CZK_OK;
}
czk_status czk_groth16_lane_warm(const czk_groth16_key *key, const czk_groth16_dkey *dkey, czk_backend *be,
                                 bool witness_only) {
  return czk_groth16_lane_warm_ex(key, dkey, be, witness_only, NULL);
}

/* ------------------------------------------------------------------------------------------------ host work */
typedef struct stage_ctx {
  const czk_fr *a, *b, *c;
  czk_fr *sa, *sb, *sc; /* NULL: check only */
  size_t m;             /* rows to check */
  _Atomic int bad;
} stage_ctx;
static void stage_rows(void *vctx, size_t beg, size_t end) {
  stage_ctx *x = vctx;
  if (x->sa) {
    memcpy(x->sa + beg, x->a + beg, (end - beg) * sizeof(czk_fr));
    memcpy(x->sb + beg, x->b + beg, (end - beg) * sizeof(czk_fr));
    memcpy(x->sc + beg, x->c + beg, (end - beg) * sizeof(czk_fr));
  }
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

/* ------------------------------------------------------------------------------------------------ the job */
struct czk_groth16_job {
  czk_backend *be;
  const czk_groth16_key *key;
  czk__lanes *owner;
  czk__lane *l;
  czk_groth16_timings t;
  bool check_on_device;           /* witness-only mode on a device: the row check's flag is read at finish */
  czk__lanes *chain;              /* this prove runs after the previous one of its device copy (chain_mu held) */
  bool chain_locked;
  double t_chain;     /* seconds waited for the chain's mutex (not counted in the check stage) */
  czk_backend_compiled *dcc_own;  /* witness-only mode without a resident copy: this proof's copy */
  void (*yield)(void *user);      /* czk_groth16_lane_opts.yield (lean lanes) */
  void *yield_user;
  double t_yield;                 /* seconds spent in it (not device time: the device ran one chunk, then idled) */
};

static void release(czk_groth16_job *job) {
  czk__lane *l = job->l;
  if (!l) return;
  if (job->dcc_own) { /* after this proof's kernels (the lane's streams) are done with it */
    (void)czk_backend_stream_sync(job->be, l->s_h);
    czk_backend_compiled_free(job->be, job->dcc_own);
    job->dcc_own = NULL;
  }
  job->l = NULL;
  bool bad = czk_backend_quarantined(job->be);
  if (!bad)
    bad = czk_backend_stream_sync(job->be, l->s_h) != CZK_OK || czk_backend_stream_sync(job->be, l->s_w) != CZK_OK ||
          czk_backend_stream_sync(job->be, l->s_c) != CZK_OK;
  if (bad || l->host || czk_backend_host_memory(job->be)) lane_free(l); /* host lanes are not cached (above) */
  else lane_put(job->owner, l);
}

void czk_groth16_job_abort(czk_groth16_job *job) {
  if (!job) return;
  release(job);
  free(job);
}

static czk_status check_sizes(const czk_groth16_key *k, const czk_groth16_assignment *as) {
  size_t n = (size_t)1 << k->log_n;
  bool wo = !as->a && !as->b && !as->c && as->cc; /* witness-only mode */
  if ((!wo && (!as->a || !as->b || !as->c)) || !as->w.w || as->n_rows > as->n_domain) return CZK_ERR_INVALID_ARG;
  if (as->n_domain != n || as->w.n_inputs != k->n_inputs || as->w.n_aux != k->n_aux) return CZK_ERR_SIZE_MISMATCH;
  if (wo && (as->cc->n_inputs != k->n_inputs || as->cc->n_aux != k->n_aux ||
             (uint64_t)as->cc->n_user_constraints + k->n_inputs > n))
    return CZK_ERR_SIZE_MISMATCH;
  return CZK_OK;
}

/* Witness-only mode on a host-memory backend: a, b, c from w over the compiled circuit, the input rows, zeros. */
static czk_status abc_on_host(czk_groth16_assignment *as, czk_pool *pool) {
  const size_t n = as->n_domain, m = as->cc->n_user_constraints, ni = as->w.n_inputs;
  as->a = czk_alloc_big(n * sizeof(czk_fr));
  as->b = czk_alloc_big(n * sizeof(czk_fr));
  as->c = czk_alloc_big(n * sizeof(czk_fr));
  if (!as->a || !as->b || !as->c) return CZK_ERR_NOMEM;
  CZK_TRY(czk_cc_matvec(as->cc, as->w.w, as->a, as->b, as->c, pool));
  for (size_t i = 0; i < ni; i++) {
    as->a[m + i] = as->w.w[i];
    czk_fr_set_zero(&as->b[m + i]);
    czk_fr_set_zero(&as->c[m + i]);
  }
  size_t tail = (n - m - ni) * sizeof(czk_fr);
  memset(as->a + m + ni, 0, tail);
  memset(as->b + m + ni, 0, tail);
  memset(as->c + m + ni, 0, tail);
  return CZK_OK;
}

/* Streamed bases: each query's chunks through two slots per group (copies on s_c, MSMs on s_w). */
static czk_status launch_streamed(czk_backend *be, czk__lane *l, const czk__bases *b, const czk_fr *sc[CZK__NQ]) {
  const int order[CZK__NQ] = {CZK__Q_L, CZK__Q_A, CZK__Q_B1, CZK__Q_H, CZK__Q_B2};
  size_t k1 = 0, k2 = 0;
  for (int oi = 0; oi < CZK__NQ; oi++) {
    int q = order[oi];
    bool g2 = q == CZK__Q_B2;
    size_t C = g2 ? l->chunk2 : l->chunk1, n = b->nq[q];
    if (q == CZK__Q_H) CZK_TRY(czk_backend_stream_wait(be, l->s_w, l->ev[EV_H]));
    for (size_t off = 0; off < n; off += C) {
      size_t len = n - off < C ? n - off : C;
      size_t k = g2 ? k2++ : k1++;
      int slot = (g2 ? 2 : 0) + (int)(k & 1);
      czk_backend_event *ev_copied = l->ev[EV_SLOT0 + 2 * slot], *ev_done = l->ev[EV_SLOT0 + 2 * slot + 1];
      /* the slot's previous MSM must have read its bases before the copy overwrites them */
      if (k >= 2) CZK_TRY(czk_backend_stream_wait(be, l->s_c, ev_done));
      CZK_TRY(czk_backend_copy_htod(be, l->d_slot[slot], (const uint8_t *)b->q[q] + off * QSZ[q], len * QSZ[q],
                                    l->s_c));
      l->up_bytes += len * QSZ[q];
      const size_t ku = g2 ? l->cap1 + k : k; /* the chunk's timing events (done: before ev_copied, which the compute
                                                  stream waits for, so it has completed when the proof has) */
      CZK_TRY(up_event(be, l, ku, 1, l->s_c, 1));
      CZK_TRY(czk_backend_event_record(be, ev_copied, l->s_c));
      CZK_TRY(up_event(be, l, ku, 0, l->s_w, 1));
      CZK_TRY(czk_backend_stream_wait(be, l->s_w, ev_copied));
      void *out = g2 ? (void *)&l->part2[k] : (void *)&l->part1[k];
      CZK_TRY(czk_backend_msm_run(be, l->m[slot], out, sc[q] + off, len, l->s_w));
      CZK_TRY(czk_backend_event_record(be, ev_done, l->s_w));
    }
  }
  CZK_TRY(czk_backend_event_record(be, l->ev[EV_MB2], l->s_w));
  return czk_backend_event_record(be, l->ev[EV_MH], l->s_h);
}

/* Witness-only mode: w to the device on s_h. A witness of mostly 0/1 values travels packed (czk_backend_wpack: 2 bits
 * a value plus the others; a 32 GiB PoRep partition's 4.2 GB becomes ~0.1 GB) through the pinned stage into the a/b/c
 * buffer, and *n_other >= 0 says so: the caller then unpacks it into w (unpack_witness), before the mat-vec
 * overwrites that buffer. A dense one is copied as it is (*packed false). CZK_NO_WITNESS_PACK=1 always copies it as it
 * is (for comparisons). */
static czk_status plain_upload(czk_backend *be, czk__lane *l, const czk_fr *w, czk_pool *pool) {
  czk_fr *stage = l->h_stage + (l->wo ? 0 : 3 * l->n);
  copy_ctx cw = {stage, w};
  czk_pool_parallel_for(pool, l->nw, 16384, copy_rows, &cw);
  return czk_backend_copy_htod(be, l->d_w, stage, l->nw * sizeof(czk_fr), l->s_h);
}
static bool pack_off(void) {
  static _Atomic int g_off = -1;
  int off = atomic_load(&g_off);
  if (off < 0) {
    const char *e = getenv("CZK_NO_WITNESS_PACK");
    off = e && *e && strcmp(e, "0") != 0;
    atomic_store(&g_off, off);
  }
  return off;
}
typedef struct bytes_ctx {
  uint8_t *dst;
  const uint8_t *src;
  size_t bytes;
} bytes_ctx;
#define BYTES_BLOCK ((size_t)1 << 20)
static void copy_blocks(void *vctx, size_t beg, size_t end) {
  bytes_ctx *x = vctx;
  size_t b0 = beg * BYTES_BLOCK, b1 = end * BYTES_BLOCK < x->bytes ? end * BYTES_BLOCK : x->bytes;
  memcpy(x->dst + b0, x->src + b0, b1 - b0);
}
static void say_packed(size_t nw, size_t n_other, size_t bytes) {
  static atomic_bool said;
  if (nw >= ((size_t)1 << 20) && !atomic_exchange(&said, true))
    CZK_INFO("groth16", "witness upload packed: %zu values (%.1f %% neither 0 nor 1) in %.1f MiB instead of %.1f MiB",
             nw, 100.0 * (double)n_other / (double)nw, (double)bytes / 1048576.0,
             (double)(nw * sizeof(czk_fr)) / 1048576.0);
}
static czk_status upload_witness(czk_backend *be, czk__lane *l, const czk_groth16_assignment *as, czk_pool *pool,
                                 bool *packed, size_t *n_other) {
  const size_t n = l->n, nw = l->nw;
  const czk_fr *w = as->w.w;
  *packed = false;
  const size_t stage = ((l->wo ? 0 : 3 * n) + nw) * sizeof(czk_fr), dev = (l->compact ? 1 : 3) * n * sizeof(czk_fr);
  const size_t cap = stage < dev ? stage : dev;
  czk_fr *dpack = l->compact ? l->d_x : l->d_abc; /* packed bytes land here, then unpack into w */
  if (as->wpack && as->wpack_bytes <= cap && as->wpack_bytes == czk_backend_wpack_bytes(nw, as->wpack_other)) {
    /* packed by the synthesis stage: into the pinned stage (a few ms), then to the device */
    bytes_ctx x = {(uint8_t *)l->h_stage, as->wpack, as->wpack_bytes};
    czk_pool_parallel_for(pool, (as->wpack_bytes + BYTES_BLOCK - 1) / BYTES_BLOCK, 4, copy_blocks, &x);
    *packed = true;
    *n_other = as->wpack_other;
    return czk_backend_copy_htod(be, dpack, l->h_stage, as->wpack_bytes, l->s_h);
  }
  if (!pack_off() && !as->wpack_dense) {
    if (czk_backend_wpack(l->h_stage, cap, w, nw, nw - nw / 4, pool, n_other) == CZK_OK) {
      const size_t bytes = czk_backend_wpack_bytes(nw, *n_other);
      say_packed(nw, *n_other, bytes);
      *packed = true;
      return czk_backend_copy_htod(be, dpack, l->h_stage, bytes, l->s_h);
    }
  }
  return plain_upload(be, l, w, pool);
}
static czk_status unpack_witness(czk_backend *be, czk__lane *l, const czk_fr *w, czk_pool *pool, size_t n_other) {
  czk_status st = czk_backend_wunpack(be, l->d_w, l->compact ? l->d_x : l->d_abc, l->nw, n_other, l->s_h);
  if (st != CZK_ERR_UNSUPPORTED) return st;
  CZK_TRY(czk_backend_stream_sync(be, l->s_h)); /* the stage is read by the copy in flight */
  return plain_upload(be, l, w, pool);
}

/* The chain (czk__lanes): a large witness-only prove waits, before its first kernel, for the end of the previous
 * one of its device copy; both hold the device's memory bandwidth and SMs fully, so running them one after the other
 * costs the device nothing, and each prove's own host staging (pack, copy) then overlaps the other's kernels. */
#define CHAIN_DOMAIN_MIN ((size_t)1 << 24)
/* CZK_CHAIN=off: no chain (for comparisons). */
static bool chain_off(void) {
  static _Atomic int g_off = -1;
  int off = atomic_load(&g_off);
  if (off < 0) {
    const char *e = getenv("CZK_CHAIN");
    off = e && !strcmp(e, "off");
    atomic_store(&g_off, off);
  }
  return off;
}
static czk_status chain_enter(czk_groth16_job *job, czk__lane *l) {
  czk__lanes *c = job->chain;
  double t0 = czk__now_s();
  pthread_mutex_lock(&c->chain_mu); /* the previous prove's launch (its MSMs read counts back, so it takes a while) */
  job->t_chain = czk__now_s() - t0;
  job->chain_locked = true;
  if (c->chain_ev && c->chain_be != job->be) return CZK_OK; /* another backend's: no chain */
  if (!c->chain_ev) {
    CZK_TRY(czk_backend_event_new(job->be, &c->chain_ev));
    c->chain_be = job->be;
    c->chain_set = false;
  }
  return c->chain_set ? czk_backend_stream_wait(job->be, l->s_h, c->chain_ev) : CZK_OK;
}
static czk_status chain_leave(czk_groth16_job *job, czk__lane *l, czk_status st) {
  czk__lanes *c = job->chain;
  if (!job->chain_locked) return st;
  if (st == CZK_OK && c->chain_ev && c->chain_be == job->be) {
    /* the end of this prove: s_h's work, and s_w's (its last MSM's event) */
    st = czk_backend_stream_wait(job->be, l->s_h, l->ev[EV_MB2]);
    if (st == CZK_OK) st = czk_backend_event_record(job->be, c->chain_ev, l->s_h);
    c->chain_set = st == CZK_OK;
  }
  job->chain_locked = false;
  pthread_mutex_unlock(&c->chain_mu);
  return st;
}

/* ------------------------------------------------------------------------------------------------ compact launch */
/* One MSM chunk of a compact lane: query q, points [off, off + len), its slot when streamed (-1: resident). */
typedef struct cchunk {
  int q, slot;
  size_t off, len, part; /* part: index into part1 (G1) / part2 (G2) of the query's first chunk, where the series
                            of its chunks puts their sum (czk_backend_msm_run_series) */
  size_t ord;            /* the chunk's own index in the same numbering (its timing events, ev_up) */
  bool packed;           /* its slot holds only its points with non-zero scalars, their scalars in psc */
} cchunk;

/* One pipeline's MSMs: its queries' chunks in order on compute stream s, streamed chunks' bases copied on copy
 * stream sc into the pipeline's slots (events ev0 .. ev0 + 7: per slot, copied and done), each copy issued as soon
 * as its slot's previous MSM is enqueued (one or two chunks ahead), and each query's end event recorded. */
typedef struct cpipe {
  int p;
  czk_backend_stream *s, *sc;
  int ev0;
  const uint32_t *idx[2]; /* device index lists for the gathers */
} cpipe;
static czk_status run_pipe(czk_groth16_job *job, czk__lane *l, const czk__bases *b, const czk_groth16_assignment *as,
                           const cpipe *pp) {
  czk_backend *be = job->be;
  const size_t ni = job->key->n_inputs;
  const size_t nch = l->cap1 + l->cap2;
  cchunk *ch = calloc(nch ? nch : 1, sizeof *ch);
  if (!ch) return CZK_ERR_NOMEM;
  /* the chunk list; partial sums are numbered over all queries in order h, l, a, b1 (G1) and b2 (G2) */
  size_t nc = 0, p1 = 0, p2 = 0, k1 = 0, k2 = 0;
  for (int q = 0; q < CZK__NQ; q++) {
    const bool g2 = q == CZK__Q_B2, host = czk__q_host(b, q);
    const size_t C = g2 ? l->chunk2 : l->chunk1, part0 = g2 ? p2 : p1;
    for (size_t off = 0; off < b->nq[q]; off += C) {
      cchunk c = {q, -1, off, b->nq[q] - off < C ? b->nq[q] - off : C, part0, g2 ? p2 : p1, false};
      if (g2) p2++;
      else p1++;
      if (q_pipe(l->lean, q) != pp->p) continue;
      if (host) c.slot = g2 ? 2 + (int)(k2++ & 1) : (int)(k1++ & 1);
      ch[nc++] = c;
    }
  }
  czk_status st = CZK_OK;
  /* the caller's yield (lean lanes: one stream, every chunk in order): before chunk i (i >= 2) the host waits for
   * chunk i-2's MSM (events in turn), so one chunk at most is queued while the caller holds the prove */
  czk_backend_event *evy[2] = {NULL, NULL};
  bool gate = job->yield && l->lean && !job->chain_locked; /* (never while holding the chain: another prove of
                                                              the copy, perhaps the urgent one, may wait for it) */
  if (gate && (czk_backend_event_new(be, &evy[0]) != CZK_OK || czk_backend_event_new(be, &evy[1]) != CZK_OK))
    gate = false; /* (no events: the prove runs ungated) */
  unsigned uses[4] = {0, 0, 0, 0};
  size_t next = 0;                           /* the next chunk whose copy (if streamed) is not issued */
  bool pend[4] = {false, false, false, false}; /* a slot holds a copy whose MSM is not enqueued yet */
  const int evq[CZK__NQ] = {EV_MH, EV_ML, EV_MA, EV_MB1, EV_MB2};
  int done = -1; /* the last query whose end event is recorded */
  for (size_t i = 0; i < nc && st == CZK_OK; i++) {
    const cchunk *c = &ch[i];
    if (gate && i >= 2) {
      st = czk_backend_event_sync(be, evy[i & 1]);
      if (st != CZK_OK) break;
      const double ty = czk__now_s();
      job->yield(job->yield_user);
      job->t_yield += czk__now_s() - ty;
    }
    for (int q = done + 1; q < c->q && st == CZK_OK; q++, done++)
      if (q_pipe(l->lean, q) == pp->p) st = czk_backend_event_record(be, l->ev[evq[q]], pp->s);
    while (st == CZK_OK && next < nc && (ch[next].slot < 0 || !pend[ch[next].slot])) {
      const cchunk *cn = &ch[next];
      if (cn->slot >= 0) {
        czk_backend_event *ev_copied = l->ev[pp->ev0 + 2 * cn->slot], *ev_done = l->ev[pp->ev0 + 2 * cn->slot + 1];
        if (uses[cn->slot]++ > 0) st = czk_backend_stream_wait(be, pp->sc, ev_done);
        const size_t bytes = cn->len * QSZ[cn->q];
        const void *src = (const uint8_t *)b->q[cn->q] + cn->off * QSZ[cn->q];
        if (st == CZK_OK && l->pack && cn->q != CZK__Q_H && l->psc[pp->p][cn->slot]) {
          /* only the points whose scalars are not zero cross the bus (counted on the device) */
          const czk_fr *w = l->d_w + (cn->q == CZK__Q_L ? ni : 0);
          const uint32_t *ix = NULL;
          if (cn->q != CZK__Q_L && b->n_idx[cn->q == CZK__Q_A ? 0 : 1]) ix = pp->idx[cn->q == CZK__Q_A ? 0 : 1];
          if (ix) ix += cn->off;
          else w += cn->off;
          st = czk_backend_pack_nonzero(be, l->slot[pp->p][cn->slot], l->psc[pp->p][cn->slot], src, QSZ[cn->q], w,
                                        ix, cn->len, l->d_ptmp[pp->p], l->d_pbytes + pp->p, pp->sc);
          if (st == CZK_OK) ch[next].packed = true, l->packed_any = true;
          else if (st == CZK_ERR_UNSUPPORTED) st = CZK_OK, l->pack = false; /* not readable in place: copies */
        }
        if (st == CZK_OK && !ch[next].packed) {
          st = czk_backend_copy_htod(be, l->slot[pp->p][cn->slot], src, bytes, pp->sc);
          l->up_bytes += bytes;
        }
        /* its done event before ev_copied, which the compute stream waits for (so it has completed with the proof) */
        if (st == CZK_OK) st = up_event(be, l, (cn->q == CZK__Q_B2 ? l->cap1 : 0) + cn->ord, 1, pp->sc, pp->p);
        if (st == CZK_OK) st = czk_backend_event_record(be, ev_copied, pp->sc);
        pend[cn->slot] = true;
      }
      next++;
    }
    if (st == CZK_OK && c->slot >= 0 && next <= i) st = CZK_ERR_INTERNAL; /* its copy must be out */
    if (st != CZK_OK) break;
    const czk_fr *sc;
    if (c->packed) sc = l->psc[pp->p][c->slot];
    else if (c->q == CZK__Q_H) sc = l->d_x + c->off;
    else if (c->q == CZK__Q_L) sc = l->d_w + ni + c->off;
    else {
      const int ii = c->q == CZK__Q_A ? 0 : 1;
      if (b->n_idx[ii]) {
        st = czk_backend_gather(be, l->d_gather[pp->p], l->d_w, pp->idx[ii] + c->off, c->len, pp->s);
        sc = l->d_gather[pp->p];
      } else {
        sc = l->d_w + c->off;
      }
    }
    void *out = c->q == CZK__Q_B2 ? (void *)&l->part2[c->part] : (void *)&l->part1[c->part];
    const bool dense = c->q == CZK__Q_H || as->wpack_dense;
    /* a query's chunks are one series: one window for all its points, its buckets reduced once */
    const size_t nq = b->nq[c->q];
    const unsigned ser = (c->off == 0 ? CZK_BACKEND_MSM_FIRST : 0u) | (c->off + c->len == nq ? CZK_BACKEND_MSM_LAST : 0u);
    if (st == CZK_OK && c->slot >= 0) {
      czk_backend_msm *m = l->ms[pp->p][c->slot];
      st = up_event(be, l, (c->q == CZK__Q_B2 ? l->cap1 : 0) + c->ord, 0, pp->s, pp->p); /* the device is ready */
      if (st == CZK_OK) st = czk_backend_stream_wait(be, pp->s, l->ev[pp->ev0 + 2 * c->slot]);
      czk_backend_msm_set_dense(be, m, dense);
      if (st == CZK_OK) st = czk_backend_msm_run_series(be, m, out, 0, sc, c->len, ser, nq, pp->s);
      if (st == CZK_OK) st = czk_backend_event_record(be, l->ev[pp->ev0 + 2 * c->slot + 1], pp->s);
      pend[c->slot] = false;
    } else if (st == CZK_OK) {
      czk_backend_msm_set_dense(be, l->mq[c->q], dense);
      st = czk_backend_msm_run_series(be, l->mq[c->q], out, c->off, sc, c->len, ser, nq, pp->s);
    }
    if (gate && st == CZK_OK) st = czk_backend_event_record(be, evy[i & 1], pp->s);
  }
  free(ch);
  for (int k = 0; k < 2; k++)
    if (evy[k]) czk_backend_event_free(be, evy[k]);
  for (int q = done + 1; q < CZK__NQ && st == CZK_OK; q++)
    if (q_pipe(l->lean, q) == pp->p) st = czk_backend_event_record(be, l->ev[evq[q]], pp->s);
  return st;
}

/* H over x and y (one vector at a time) on s_h, then the MSMs: a lean lane runs all five after H on s_h; else h after
 * H on s_h and the witness MSMs on s_w from the moment w is on the device. Witness-only: the row check's pass also
 * computes a into y and b into x (czk_backend_compiled_check_store); c is computed after a and b are transformed and
 * multiplied (two passes over the circuit instead of four). */
static czk_status launch_compact(czk_groth16_job *job, czk__lane *l, const czk__bases *b, czk_groth16_assignment *as,
                                 czk_pool *pool) {
  czk_backend *be = job->be;
  const czk_groth16_key *k = job->key;
  const size_t n = as->n_domain, ni = k->n_inputs;
  const unsigned L = k->log_n;
  const czk_h_kind hk = k->h_mode;
  czk_fr *X = l->d_x, *Y = l->d_y, *W = l->d_w;
  double t0 = czk__now_s();
  l->up_bytes = 0;
  /* each query's sum lands in its first chunk's part; the others stay infinity */
  memset(l->part1, 0, (l->cap1 + 1) * sizeof *l->part1);
  memset(l->part2, 0, (l->cap2 + 1) * sizeof *l->part2);
  if (l->up_pipe) memset(l->up_pipe, 0, l->n_up);
  CZK_TRY(czk_backend_event_record(be, l->ev[EV_START], l->s_h));
  const bool wo = !as->a;
  const czk_backend_compiled *dcc = as->dcc;
  czk_fr *sa = NULL, *sb = NULL, *scc = NULL;
  if (wo) {
    if (!dcc) {
      CZK_TRY(czk_groth16_compiled_upload(&job->dcc_own, be, as->cc));
      dcc = job->dcc_own;
    }
    bool packed;
    size_t n_other = 0;
    CZK_TRY(upload_witness(be, l, as, pool, &packed, &n_other));
    if (job->chain) CZK_TRY(chain_enter(job, l));
    CZK_TRY(czk_backend_event_record(be, l->ev[EV_WO], l->s_h));
    if (packed) CZK_TRY(unpack_witness(be, l, as->w.w, pool, n_other));
    const uint64_t m = as->cc->n_user_constraints, chk = as->n_rows < m ? as->n_rows : m;
    /* the check's pass also stores a (into y) and b (into x): H then needs one pass more, for c */
    CZK_TRY(czk_backend_compiled_check_store(be, dcc, W, chk, l->d_flag, Y, X, NULL, l->s_h));
    job->check_on_device = true;
  } else {
    /* a, b, c staged and checked on the host (the whole stage first: the copies below interleave with H) */
    sa = l->h_stage, sb = sa + n, scc = sb + n;
    stage_ctx x = {as->a, as->b, as->c, sa, sb, scc, as->n_rows, 0};
    czk_pool_parallel_for(pool, n, 8192, stage_rows, &x);
    if (atomic_load(&x.bad)) return CZK_ERR_UNSATISFIED;
    copy_ctx cw = {l->h_stage + 3 * n, as->w.w};
    czk_pool_parallel_for(pool, l->nw, 16384, copy_rows, &cw);
    CZK_TRY(czk_backend_copy_htod(be, W, l->h_stage + 3 * n, l->nw * sizeof(czk_fr), l->s_h));
  }
  CZK_TRY(czk_backend_event_record(be, l->ev[EV_WUP], l->s_h)); /* w is on the device */
  l->t_check = czk__now_s() - t0 - job->t_chain;
  CZK_TRY(czk_backend_event_record(be, l->ev[EV_ABC], l->s_h));
  /* y = A w -> A^; x = B w -> B^; x = A^ B^; y = C w -> C^; x = (x - y) / Z -> h */
  const size_t vb = n * sizeof(czk_fr);
  czk_fr *const staged[3] = {sa, sb, scc};
  for (int v = 0; v < 3; v++) { /* v = 0, 1, 2: a into y, b into x, c into y */
    czk_fr *dst = v == 1 ? X : Y;
    if (wo) {
      czk_fr *o[3] = {NULL, NULL, NULL};
      o[v] = dst;
      if (v == 2) CZK_TRY(czk_backend_compiled_matvec(be, o[0], o[1], o[2], dcc, W, l->s_h)); /* a, b: the check's */
      CZK_TRY(czk_backend_abc_finish(be, o[0], o[1], o[2], W, as->cc->n_user_constraints, ni, n, 0, l->d_flag,
                                     l->s_h));
    } else {
      CZK_TRY(czk_backend_copy_htod(be, dst, staged[v], vb, l->s_h));
    }
    CZK_TRY(czk_backend_h_step(be, CZK_H_STEP_PREP, dst, NULL, L, hk, l->s_h));
    if (v == 1) CZK_TRY(czk_backend_h_step(be, CZK_H_STEP_MUL, X, Y, L, hk, l->s_h));
  }
  CZK_TRY(czk_backend_h_step(be, CZK_H_STEP_FINISH, X, Y, L, hk, l->s_h));
  CZK_TRY(czk_backend_event_record(be, l->ev[EV_H], l->s_h));
  double t1 = czk__now_s();
  l->t_h = t1 - t0 - l->t_check;
  /* the index lists of a host key, where its gathers run */
  const uint32_t *idx[2] = {b->idx[0], b->idx[1]};
  czk_backend_stream *sidx = l->lean ? l->s_h : l->s_w;
  if (!l->lean) CZK_TRY(czk_backend_stream_wait(be, l->s_w, l->ev[EV_WUP]));
  for (int i = 0; i < 2; i++) {
    if (!l->d_idxc[i]) continue;
    CZK_TRY(czk_backend_copy_htod(be, l->d_idxc[i], b->idx[i], b->n_idx[i] * sizeof(uint32_t), sidx));
    l->up_bytes += b->n_idx[i] * sizeof(uint32_t);
    idx[i] = l->d_idxc[i];
  }
  /* packed streaming: the packers (on the copy streams) read w and the index lists, and count into d_pbytes */
  l->pack = l->pack_lane && l->d_pbytes && !as->wpack_dense;
  l->packed_any = false;
  if (l->pack) { /* the packing pipeline's copy stream: s_c (lean, one pipeline) or s_c2 (pipeline 1) */
    CZK_TRY(czk_backend_copy_htod(be, l->d_pbytes, l->h_pzero, 2 * sizeof(uint64_t), sidx));
    CZK_TRY(czk_backend_event_record(be, l->ev[EV_IDX], sidx));
    CZK_TRY(czk_backend_stream_wait(be, l->lean ? l->s_c : l->s_c2, l->ev[EV_IDX]));
  }
  /* pipeline 0's slots are in y: its copies wait for H */
  CZK_TRY(czk_backend_stream_wait(be, l->s_c, l->ev[EV_H]));
  const cpipe p0 = {0, l->s_h, l->s_c, EV_SLOT0, {idx[0], idx[1]}};
  CZK_TRY(run_pipe(job, l, b, as, &p0));
  if (!l->lean) {
    const cpipe p1 = {1, l->s_w, l->s_c2, EV_SLOT1, {idx[0], idx[1]}};
    CZK_TRY(run_pipe(job, l, b, as, &p1));
    /* the lane's end on s_w (collect waits for EV_MB2, recorded there last) */
  }
  atomic_fetch_add(&g_msm_launches, 1);
  l->t_msm[CZK__Q_H] = czk__now_s() - t1;
  return CZK_OK;
}

static czk_status launch(czk_groth16_job *job, czk__lane *l, const czk__bases *b, czk_groth16_assignment *as,
                         czk_pool *pool) {
  if (l->compact) return launch_compact(job, l, b, as, pool);
  czk_backend *be = job->be;
  const czk_groth16_key *k = job->key;
  const size_t n = as->n_domain, nw = l->nw, ni = k->n_inputs;
  double t0 = czk__now_s();
  czk_fr *da, *db, *dc, *dw;
  l->up_bytes = 0;
  if (l->up_pipe) memset(l->up_pipe, 0, l->n_up);
  CZK_TRY(czk_backend_event_record(be, l->ev[EV_START], l->s_h));
  CZK_TRY(czk_backend_event_record(be, l->ev[EV_W0], l->s_w));
  stage_ctx x = {as->a, as->b, as->c, NULL, NULL, NULL, as->n_rows, 0};
  const bool wo = !as->a; /* witness-only mode on a device (a host backend expanded it in prove_start) */
  if (wo) {
    /* the witness first (the mat-vec needs it), then a, b, c on the device; the row check's flag is read at finish */
    const czk_backend_compiled *dcc = as->dcc;
    if (!dcc) {
      CZK_TRY(czk_groth16_compiled_upload(&job->dcc_own, be, as->cc));
      dcc = job->dcc_own;
    }
    da = l->d_abc, db = da + n, dc = db + n, dw = l->d_w;
    bool packed;
    size_t n_other = 0;
    CZK_TRY(upload_witness(be, l, as, pool, &packed, &n_other));
    if (job->chain) CZK_TRY(chain_enter(job, l));
    CZK_TRY(czk_backend_event_record(be, l->ev[EV_WO], l->s_h));
    if (packed) CZK_TRY(unpack_witness(be, l, as->w.w, pool, n_other));
    CZK_TRY(czk_backend_compiled_matvec(be, da, db, dc, dcc, dw, l->s_h));
    const uint64_t m = as->cc->n_user_constraints;
    CZK_TRY(czk_backend_abc_finish(be, da, db, dc, dw, m, ni, n, as->n_rows < m ? as->n_rows : m, l->d_flag,
                                   l->s_h));
    CZK_TRY(czk_backend_event_record(be, l->ev[EV_WUP], l->s_h));
    CZK_TRY(czk_backend_stream_wait(be, l->s_w, l->ev[EV_WUP])); /* the witness MSMs read dw */
    job->check_on_device = true;
  } else if (l->host) {
    /* host memory: check in place, operate on the caller's arrays */
    czk_pool_parallel_for(pool, as->n_rows, 8192, stage_rows, &x);
    da = as->a, db = as->b, dc = as->c, dw = as->w.w;
  } else {
    /* a, b, c: stage + check chunk by chunk; each chunk's copy is issued as soon as it is staged */
    czk_fr *sa = l->h_stage, *sb = sa + n, *scc = sb + n;
    da = l->d_abc, db = da + n, dc = db + n, dw = l->d_w;
    const size_t chunk = n / 16 > STAGE_ROWS_MIN ? n / 16 : STAGE_ROWS_MIN;
    for (size_t r0 = 0; r0 < n && !atomic_load(&x.bad); r0 += chunk) {
      size_t r1 = n - r0 < chunk ? n : r0 + chunk;
      stage_ctx y = {as->a + r0, as->b + r0, as->c + r0, sa + r0, sb + r0, scc + r0, x.m > r0 ? x.m - r0 : 0, 0};
      czk_pool_parallel_for(pool, r1 - r0, 8192, stage_rows, &y);
      if (atomic_load(&y.bad)) {
        atomic_store(&x.bad, 1);
        break;
      }
      size_t bytes = (r1 - r0) * sizeof(czk_fr);
      CZK_TRY(czk_backend_copy_htod(be, da + r0, sa + r0, bytes, l->s_h));
      CZK_TRY(czk_backend_copy_htod(be, db + r0, sb + r0, bytes, l->s_h));
      CZK_TRY(czk_backend_copy_htod(be, dc + r0, scc + r0, bytes, l->s_h));
    }
  }
  double t1 = czk__now_s();
  l->t_check = t1 - t0 - job->t_chain;
  if (atomic_load(&x.bad)) {
    (void)czk_backend_stream_sync(be, l->s_h); /* the staging buffer is read by copies in flight */
    return CZK_ERR_UNSATISFIED;
  }
  /* The rows hold: H and (bases at hand) the h MSM go on s_h now -- they need only a, b, c -- so that the device works
   * on them while the host stages the witness below. */
  CZK_TRY(czk_backend_event_record(be, l->ev[EV_ABC], l->s_h));
  CZK_TRY(czk_backend_h(be, da, db, dc, k->log_n, k->h_mode, l->s_h));
  CZK_TRY(czk_backend_event_record(be, l->ev[EV_H], l->s_h));
  l->t_h = czk__now_s() - t1;
  atomic_fetch_add(&g_msm_launches, 1);
  double tq = czk__now_s();
  if (!l->streamed) {
    czk_g1_set_infinity(&l->r1[0]);
    if (l->m[CZK__Q_H]) CZK_TRY(czk_backend_msm_run(be, l->m[CZK__Q_H], &l->r1[0], da, b->nq[CZK__Q_H], l->s_h));
    CZK_TRY(czk_backend_event_record(be, l->ev[EV_MH], l->s_h));
    l->t_msm[CZK__Q_H] = czk__now_s() - tq;
  }
  if (!l->host && !wo) {
    copy_ctx cw = {l->h_stage + 3 * n, as->w.w};
    czk_pool_parallel_for(pool, nw, 16384, copy_rows, &cw);
    CZK_TRY(czk_backend_copy_htod(be, dw, l->h_stage + 3 * n, nw * sizeof(czk_fr), l->s_w));
  }
  if (!wo) CZK_TRY(czk_backend_event_record(be, l->ev[EV_WUP], l->s_w));
  /* scalars of each query: H's values, the aux part of w, and the gathered (or whole) witness for a and b */
  const uint32_t *idx_a = l->streamed ? l->d_idx[0] : b->idx[0], *idx_b = l->streamed ? l->d_idx[1] : b->idx[1];
  const czk_fr *sa = dw, *sb = dw;
  if (b->n_idx[0]) {
    CZK_TRY(czk_backend_gather(be, l->d_sa, dw, idx_a, b->n_idx[0], l->s_w));
    sa = l->d_sa;
  }
  if (b->n_idx[1]) {
    CZK_TRY(czk_backend_gather(be, l->d_sb, dw, idx_b, b->n_idx[1], l->s_w));
    sb = l->d_sb;
  }
  const czk_fr *sc[CZK__NQ] = {da, dw + ni, sa, sb, sb};
  if (l->streamed) return launch_streamed(be, l, b, sc);
  czk_g1_set_infinity(&l->r1[1]);
  czk_g1_set_infinity(&l->r1[2]);
  czk_g1_set_infinity(&l->r1[3]);
  czk_g2_set_infinity(&l->r2);
  void *outs[CZK__NQ] = {NULL, &l->r1[1], &l->r1[2], &l->r1[3], &l->r2};
  /* a dense witness (mostly Poseidon values: PoSt) gains nothing from the 0/1 split, which costs a host sync */
  for (int q = CZK__Q_L; q < CZK__NQ; q++)
    if (l->m[q]) czk_backend_msm_set_dense(be, l->m[q], as->wpack_dense);
  const int evs[CZK__NQ] = {0, EV_ML, EV_MA, EV_MB1, EV_MB2};
  for (int q = CZK__Q_L; q < CZK__NQ; q++) {
    tq = czk__now_s();
    if (l->m[q]) CZK_TRY(czk_backend_msm_run(be, l->m[q], outs[q], sc[q], b->nq[q], l->s_w));
    CZK_TRY(czk_backend_event_record(be, l->ev[evs[q]], l->s_w));
    l->t_msm[q] = czk__now_s() - tq;
  }
  return CZK_OK;
}

czk_status czk_groth16_prove_start(czk_groth16_job **out, czk_backend *be, const czk_groth16_key *key,
                                   const czk_groth16_dkey *dkey, czk_groth16_assignment *as, czk_pool *pool) {
  return czk_groth16_prove_start_ex(out, be, key, dkey, as, pool, NULL);
}
czk_status czk_groth16_prove_start_ex(czk_groth16_job **out, czk_backend *be, const czk_groth16_key *key,
                                      const czk_groth16_dkey *dkey, czk_groth16_assignment *as, czk_pool *pool,
                                      const czk_groth16_lane_opts *o) {
  czk_groth16_lane_opts oc = {false, 0, false, NULL, NULL};
  if (o) oc = *o;
  if (dkey && czk_groth16_dkey_mask(dkey) != CZK_GROTH16_Q_ALL) oc.compact = true; /* a partial copy */
  if (out) *out = NULL;
  czk_status st = (!out || !be || !key || !as) ? CZK_ERR_INVALID_ARG : CZK_OK;
  if (st == CZK_OK && dkey && czk__dkey_backend(dkey) != be) st = CZK_ERR_INVALID_ARG;
  if (st == CZK_OK && czk_backend_quarantined(be)) st = CZK_ERR_DEVICE;
  if (st == CZK_OK) st = check_sizes(key, as);
  if (st == CZK_OK && !as->a && czk_backend_host_memory(be)) st = abc_on_host(as, pool);
  czk_groth16_job *job = NULL;
  if (st == CZK_OK && !(job = calloc(1, sizeof *job))) st = CZK_ERR_NOMEM;
  if (st != CZK_OK) {
    if (as) czk_groth16_assignment_free(as);
    return st;
  }
  job->be = be;
  job->key = key;
  job->yield = oc.yield, job->yield_user = oc.yield_user;
  /* the bases: the device copy, else the host queries (in place on a host backend, streamed on a device) */
  const czk__bases *b = dkey ? czk__dkey_bases(dkey) : czk__key_bases(key);
  job->owner = dkey ? czk__dkey_lanes(dkey) : czk__key_lanes(key);
  const size_t nw = (size_t)as->w.n_inputs + as->w.n_aux;
  /* H's tables before the lane (the memory plan counts them apart: they stay with the backend) */
  if (!czk_backend_host_memory(be)) st = czk_backend_h_prepare(be, key->log_n, key->h_mode);
  if (st == CZK_OK)
    st = lane_get(job->owner, be, czk_backend_host_memory(be), !as->a, b, as->n_domain, nw, &oc, &job->l);
  if (st == CZK_OK) {
    job->l->bases = b;
    job->chain = dkey && !as->a && !czk_backend_host_memory(be) && as->n_domain >= CHAIN_DOMAIN_MIN &&
                         !chain_off()
                     ? job->owner
                     : NULL;
    st = launch(job, job->l, b, as, pool);
    if (job->chain) st = chain_leave(job, job->l, st);
  }
  /* everything the device needs was staged (a device) or consumed (the CPU): the caller's buffers go now, after the
   * kernels are launched, so that returning their pages does not delay the device */
  czk_groth16_assignment_free(as);
  if (st != CZK_OK) {
    czk__lanes *owner = job->owner;
    czk_groth16_job_abort(job);
    /* out of device memory: this key's idle lanes (this one's too) give theirs back, so that a retry while fewer
     * proves share the device finds it (the engine proves the partition again alone on its device) */
    if (st == CZK_ERR_NOMEM && owner && !czk_backend_host_memory(be)) lanes_drop_idle(owner, be);
    return st;
  }
  *out = job;
  return CZK_OK;
}

static double ms_between(czk_backend *be, czk_backend_event *a, czk_backend_event *b) {
  float ms = 0;
  return czk_backend_event_elapsed(be, &ms, a, b) == CZK_OK ? ms * 1e-3 : 0;
}

/* Length of the union of [a0, a1] and [b0, b1]. */
static double union_len(double a0, double a1, double b0, double b1) {
  if (a1 < b0 || b1 < a0) return (a1 - a0) + (b1 - b0);
  return (a1 > b1 ? a1 : b1) - (a0 < b0 ? a0 : b0);
}

/* The time in which some stream waited while no stream was busy (groth16_internal.h). The elementary intervals between
 * all the waits' and spans' ends are classified one by one: O(n^2) for n waits (a few hundred at most, once per
 * proof). */
/* An end of a wait (kind 0, 1: of stream kind) or of a stream's busy span (2, 3: of stream kind - 2): +1 opens, -1
 * closes. */
typedef struct wi_end {
  double x;
  int kind, d;
} wi_end;
static int cmp_end(const void *a, const void *b) {
  const double x = ((const wi_end *)a)->x, y = ((const wi_end *)b)->x;
  return x < y ? -1 : x > y;
}
/* One sweep over the sorted ends (O(n log n) in the chunks: a 2^27 query in chunks of 2^10 is ~10^6 waits). */
double czk__groth16_wait_idle(const double *w, const int *ws, size_t nw, const double span[2][2]) {
  wi_end *e = malloc((2 * nw + 4) * sizeof *e);
  double total = 0;
  if (!e) return 0;
  size_t ne = 0;
  for (size_t i = 0; i < nw; i++)
    if (w[2 * i + 1] > w[2 * i] && ws[i] >= 0 && ws[i] < 2)
      e[ne++] = (wi_end){w[2 * i], ws[i], 1}, e[ne++] = (wi_end){w[2 * i + 1], ws[i], -1};
  for (int i = 0; i < 2; i++)
    if (span[i][1] > span[i][0]) e[ne++] = (wi_end){span[i][0], 2 + i, 1}, e[ne++] = (wi_end){span[i][1], 2 + i, -1};
  qsort(e, ne, sizeof *e, cmp_end);
  long open[4] = {0, 0, 0, 0}; /* waits open per stream, spans open per stream */
  for (size_t j = 0; j < ne;) {
    const double x = e[j].x;
    for (; j < ne && e[j].x == x; j++) open[e[j].kind] += e[j].d;
    if (j == ne) break;
    const bool waiting[2] = {open[0] > 0, open[1] > 0};
    bool busy = false;
    for (int i = 0; i < 2; i++) busy |= !waiting[i] && open[2 + i] > 0;
    if ((waiting[0] || waiting[1]) && !busy) total += e[j].x - x;
  }
  free(e);
  return total;
}

/* The device's wait for this proof's streamed chunks, in seconds: per chunk, from its compute stream's ready event to
 * its copy's done event (ev_up), where no stream of the proof was busy (czk__groth16_wait_idle). Stream i (0: s_h,
 * 1: s_w) is busy over span[i] = [from, to] (seconds from EV_START, which precedes every event of the proof on every
 * stream, so that no elapsed time is negative; to <= from: none) except while it waits. */
static double upload_wait(czk_backend *be, const czk__lane *l, const double span[2][2]) {
  size_t nc = 0;
  for (size_t k = 0; l->up_pipe && k < l->n_up; k++) nc += l->up_pipe[k] != 0;
  if (!nc) return 0;
  double *w = malloc(2 * nc * sizeof *w), total = 0;
  int *ws = malloc(nc * sizeof *ws);
  if (w && ws) {
    size_t nw = 0;
    czk_backend_event *t0 = l->ev[EV_START];
    for (size_t k = 0; k < l->n_up; k++) {
      if (!l->up_pipe[k]) continue;
      w[2 * nw] = ms_between(be, t0, l->ev_up[2 * k]), w[2 * nw + 1] = ms_between(be, t0, l->ev_up[2 * k + 1]);
      ws[nw++] = l->up_pipe[k] - 1; /* a copy done before its stream was ready is no wait (an empty interval) */
    }
    total = czk__groth16_wait_idle(w, ws, nw, span);
  }
  free(w), free(ws);
  return total;
}

/* Wait for the device and take the five sums and the stage times. */
static czk_status collect(czk_groth16_job *job, czk_g1 *h, czk_g1 *l1, czk_g1 *a, czk_g1 *b1, czk_g2 *b2) {
  czk_backend *be = job->be;
  czk__lane *l = job->l;
  CZK_TRY(czk_backend_event_sync(be, l->ev[EV_MH]));
  CZK_TRY(czk_backend_event_sync(be, l->ev[EV_MB2]));
  job->t.check = l->t_check;
  if (job->check_on_device) { /* witness-only mode: the rows checked on the device */
    uint32_t bad = 0;
    CZK_TRY(czk_backend_copy_dtoh(be, &bad, l->d_flag, sizeof bad, l->s_h));
    CZK_TRY(czk_backend_stream_sync(be, l->s_h));
    if (bad) return CZK_ERR_UNSATISFIED;
  }
  if (l->compact) {
    /* partial sums in chunk order h, l, a, b1 (G1) and b2 (G2) */
    czk_g1 *dst[4] = {h, l1, a, b1};
    size_t k = 0;
    for (int q = 0; q < CZK__Q_B2; q++) {
      czk_g1_set_infinity(dst[q]);
      for (size_t off = 0; off < l->bases->nq[q]; off += l->chunk1) czk_g1_add(dst[q], dst[q], &l->part1[k++]);
    }
    czk_g2_set_infinity(b2);
    for (size_t i = 0; i < l->cap2; i++) czk_g2_add(b2, b2, &l->part2[i]);
    job->t.compact = true;
    if (l->packed_any) { /* the packers' bytes (their copy streams are done: every MSM waited for them) */
      uint64_t pb[2] = {0, 0};
      CZK_TRY(czk_backend_copy_dtoh(be, pb, l->d_pbytes, sizeof pb, l->s_h));
      CZK_TRY(czk_backend_stream_sync(be, l->s_h));
      l->up_bytes += pb[0] + pb[1];
    }
    job->t.upload_bytes = l->up_bytes;
    if (l->host || czk_backend_host_memory(be)) {
      job->t.h = l->t_h, job->t.msm_h = l->t_msm[CZK__Q_H];
      return CZK_OK;
    }
    job->t.h = ms_between(be, l->ev[EV_ABC], l->ev[EV_H]);
    job->t.msm_h = ms_between(be, l->ev[EV_H], l->ev[EV_MH]);
    /* lean: the witness MSMs follow h on s_h; else they run on s_w from EV_WUP (w on the device) */
    job->t.msm_l = ms_between(be, l->ev[l->lean ? EV_MH : EV_WUP], l->ev[EV_ML]);
    job->t.msm_a = ms_between(be, l->ev[EV_ML], l->ev[EV_MA]);
    job->t.msm_b_g1 = ms_between(be, l->ev[EV_MA], l->ev[EV_MB1]);
    job->t.msm_b_g2 = ms_between(be, l->ev[EV_MB1], l->ev[EV_MB2]);
    job->t.abc = job->check_on_device ? ms_between(be, l->ev[EV_WO], l->ev[EV_ABC]) : 0;
    czk_backend_event *abc = l->ev[EV_ABC];
    if (l->lean) job->t.device = ms_between(be, abc, l->ev[EV_MB2]);
    else /* s_h over [ABC, MH], s_w over [WUP, MB2] (WUP precedes ABC) */
      job->t.device = union_len(0, ms_between(be, abc, l->ev[EV_MH]), -ms_between(be, l->ev[EV_WUP], abc),
                                ms_between(be, abc, l->ev[EV_MB2]));
    /* the streamed chunks' waits within those spans: the device was not busy then */
    czk_backend_event *t0 = l->ev[EV_START];
    const double sp[2][2] = {{ms_between(be, t0, abc), ms_between(be, t0, l->ev[l->lean ? EV_MB2 : EV_MH])},
                             {l->lean ? 0 : ms_between(be, t0, l->ev[EV_WUP]),
                              l->lean ? 0 : ms_between(be, t0, l->ev[EV_MB2])}};
    job->t.upload_wait = upload_wait(be, l, sp);
    job->t.device = job->t.device > job->t.upload_wait ? job->t.device - job->t.upload_wait : 0;
    /* held for an urgent prove (lean lanes): the device was this prove's only while its one queued chunk ran */
    job->t.device = job->t.device > job->t_yield ? job->t.device - job->t_yield : 0;
    job->t.device += job->t.abc;
    return CZK_OK;
  }
  if (l->streamed) {
    /* partial sums in launch order l, a, b1, h (G1) and b2 (G2) */
    const int order[4] = {CZK__Q_L, CZK__Q_A, CZK__Q_B1, CZK__Q_H};
    czk_g1 *dst[CZK__NQ] = {h, l1, a, b1, NULL};
    size_t k = 0;
    for (int oi = 0; oi < 4; oi++) {
      int q = order[oi];
      czk_g1_set_infinity(dst[q]);
      for (size_t off = 0; off < l->bases->nq[q]; off += l->chunk1) czk_g1_add(dst[q], dst[q], &l->part1[k++]);
    }
    czk_g2_set_infinity(b2);
    for (size_t i = 0; i < l->cap2; i++) czk_g2_add(b2, b2, &l->part2[i]);
    job->t.upload_bytes = l->up_bytes;
    job->t.h = ms_between(be, l->ev[EV_ABC], l->ev[EV_H]);
    job->t.msm_h = ms_between(be, l->ev[EV_WUP], l->ev[EV_MB2]); /* streamed: all MSMs in one span */
    job->t.device = job->t.h > job->t.msm_h ? job->t.h : job->t.msm_h;
    /* the copies' waits on s_w (over [WUP, MB2]) while s_h (H, over [ABC, H]) was not busy either */
    czk_backend_event *t0 = l->ev[EV_START];
    const double sp[2][2] = {{ms_between(be, t0, l->ev[EV_ABC]), ms_between(be, t0, l->ev[EV_H])},
                             {ms_between(be, t0, l->ev[EV_WUP]), ms_between(be, t0, l->ev[EV_MB2])}};
    job->t.upload_wait = upload_wait(be, l, sp);
    job->t.device = job->t.device > job->t.upload_wait ? job->t.device - job->t.upload_wait : 0;
    return CZK_OK;
  }
  *h = l->r1[0], *l1 = l->r1[1], *a = l->r1[2], *b1 = l->r1[3], *b2 = l->r2;
  if (l->host) {
    job->t.h = l->t_h;
    job->t.msm_h = l->t_msm[CZK__Q_H], job->t.msm_l = l->t_msm[CZK__Q_L], job->t.msm_a = l->t_msm[CZK__Q_A];
    job->t.msm_b_g1 = l->t_msm[CZK__Q_B1], job->t.msm_b_g2 = l->t_msm[CZK__Q_B2];
  } else {
    job->t.h = ms_between(be, l->ev[EV_ABC], l->ev[EV_H]);
    job->t.msm_h = ms_between(be, l->ev[EV_H], l->ev[EV_MH]);
    job->t.msm_l = ms_between(be, l->ev[EV_WUP], l->ev[EV_ML]);
    job->t.msm_a = ms_between(be, l->ev[EV_ML], l->ev[EV_MA]);
    job->t.msm_b_g1 = ms_between(be, l->ev[EV_MA], l->ev[EV_MB1]);
    job->t.msm_b_g2 = ms_between(be, l->ev[EV_MB1], l->ev[EV_MB2]);
    /* s_h is busy over [ABC, MH] (H, then the h MSM), s_w over [WUP, MB2] (gathers, then four MSMs); offsets from ABC.
     * Witness-only, s_h is busy from WO on: unpacking w and the mat-vec come first (before ABC) */
    czk_backend_event *abc = l->ev[EV_ABC];
    job->t.device = union_len(0, ms_between(be, abc, l->ev[EV_MH]), ms_between(be, abc, l->ev[EV_WUP]),
                              ms_between(be, abc, l->ev[EV_MB2]));
    if (job->check_on_device) {
      job->t.abc = ms_between(be, l->ev[EV_WO], abc);
      job->t.device += job->t.abc;
    }
  }
  return CZK_OK;
}

static pthread_mutex_t g_fix_mu = PTHREAD_MUTEX_INITIALIZER;
static bool g_fix_set;
static czk_fr g_fix_r, g_fix_s;
void czk__groth16_test_fix_rs(const czk_fr *r, const czk_fr *s) {
  pthread_mutex_lock(&g_fix_mu);
  g_fix_set = r && s;
  if (g_fix_set) g_fix_r = *r, g_fix_s = *s;
  pthread_mutex_unlock(&g_fix_mu);
}
static czk_status draw_rs(czk_fr *r, czk_fr *s) {
  pthread_mutex_lock(&g_fix_mu);
  const bool fixed = g_fix_set;
  if (fixed) *r = g_fix_r, *s = g_fix_s;
  pthread_mutex_unlock(&g_fix_mu);
  if (fixed) return CZK_OK;
  CZK_TRY(czk_fr_random(r));
  return czk_fr_random(s);
}

czk_status czk_groth16_prove_finish(czk_groth16_job *job, czk_groth16_proof *proof, czk_groth16_timings *timings) {
  if (!job || !proof) {
    czk_groth16_job_abort(job);
    return CZK_ERR_INVALID_ARG;
  }
  const czk_groth16_vk *vk = czk_groth16_key_vk(job->key);
  czk_g1 h_acc, l_acc, a_acc, b1_acc;
  czk_g2 b2_acc;
  czk_status st = czk_backend_quarantined(job->be) ? CZK_ERR_DEVICE
                                                    : collect(job, &h_acc, &l_acc, &a_acc, &b1_acc, &b2_acc);
  release(job);
  double t0 = czk__now_s();
  czk_fr r, s, rs;
  if (st == CZK_OK) st = draw_rs(&r, &s);
  if (st == CZK_OK) {
    czk_g1 d1, A, B1, C, t1;
    czk_g2 d2, B, t2;
    czk_fr_mul(&rs, &r, &s);
    czk_g1_from_affine(&d1, &vk->delta_g1);
    czk_g2_from_affine(&d2, &vk->delta_g2);
    /* A = alpha + a_acc + r delta */
    czk_g1_mul(&t1, &d1, &r);
    czk_g1_add_affine(&A, &a_acc, &vk->alpha_g1);
    czk_g1_add(&A, &A, &t1);
    /* B = beta + b2_acc + s delta (G2); B1 likewise in G1 */
    czk_g2_mul(&t2, &d2, &s);
    czk_g2_add_affine(&B, &b2_acc, &vk->beta_g2);
    czk_g2_add(&B, &B, &t2);
    czk_g1_mul(&t1, &d1, &s);
    czk_g1_add_affine(&B1, &b1_acc, &vk->beta_g1);
    czk_g1_add(&B1, &B1, &t1);
    /* C = h + l + s A + r B1 - r s delta */
    czk_g1_add(&C, &h_acc, &l_acc);
    czk_g1_mul(&t1, &A, &s);
    czk_g1_add(&C, &C, &t1);
    czk_g1_mul(&t1, &B1, &r);
    czk_g1_add(&C, &C, &t1);
    czk_g1_mul(&t1, &d1, &rs);
    czk_g1_neg(&t1, &t1);
    czk_g1_add(&C, &C, &t1);
    czk_g1_to_affine(&proof->a, &A);
    czk_g2_to_affine(&proof->b, &B);
    czk_g1_to_affine(&proof->c, &C);
    explicit_bzero(&t1, sizeof t1);
    explicit_bzero(&t2, sizeof t2);
  }
  explicit_bzero(&r, sizeof r);
  explicit_bzero(&s, sizeof s);
  explicit_bzero(&rs, sizeof rs);
  job->t.finish = czk__now_s() - t0;
  if (timings) *timings = job->t;
  free(job);
  return st;
}

/* ------------------------------------------------------------------------------------------------ assignments */
void czk_groth16_assignment_free(czk_groth16_assignment *as) {
  if (!as) return;
  czk_witness_free(&as->w);
  free(as->wpack);
  free(as->a);
  free(as->b);
  free(as->c);
  memset(as, 0, sizeof *as);
}

czk_status czk_groth16_assignment_pack(czk_groth16_assignment *as, czk_pool *pool) {
  if (!as || as->a || !as->w.w) return CZK_ERR_INVALID_ARG;
  free(as->wpack);
  as->wpack = NULL, as->wpack_bytes = 0, as->wpack_other = 0, as->wpack_dense = false;
  const size_t nw = (size_t)as->w.n_inputs + as->w.n_aux;
  if (nw == 0 || pack_off()) return CZK_OK;
  const size_t max_other = nw - nw / 4, cap = czk_backend_wpack_bytes(nw, max_other);
  /* the worst case's size, of which only the bit maps and the others found are touched; trimmed below */
  void *buf = malloc(cap);
  if (!buf) return CZK_ERR_NOMEM;
  size_t n_other = 0;
  czk_status st = czk_backend_wpack(buf, cap, as->w.w, nw, max_other, pool, &n_other);
  if (st != CZK_OK) {
    free(buf);
    as->wpack_dense = st == CZK_ERR_LIMIT;
    return st == CZK_ERR_LIMIT ? CZK_OK : st; /* dense: the prove sends w as it is */
  }
  const size_t bytes = czk_backend_wpack_bytes(nw, n_other);
  void *trimmed = realloc(buf, bytes);
  as->wpack = trimmed ? trimmed : buf;
  as->wpack_bytes = bytes, as->wpack_other = n_other;
  say_packed(nw, n_other, bytes);
  return CZK_OK;
}

czk_status czk_groth16_synthesize(czk_groth16_assignment *out, const czk_r1cs *shape, czk_witness *w,
                                  czk_pool *pool) {
  memset(out, 0, sizeof *out);
  out->w = *w;
  memset(w, 0, sizeof *w);
  if (out->w.n_inputs != shape->n_inputs || out->w.n_aux != shape->n_aux) {
    czk_groth16_assignment_free(out);
    return CZK_ERR_SIZE_MISMATCH;
  }
  size_t n = (size_t)1 << shape->log_domain, m = shape->n_constraints;
  out->n_domain = n;
  out->n_rows = m;
  bool fail = czk_fault("alloc.synth") != CZK_FAULT_NONE; /* tests: the a/b/c allocation fails */
  out->a = fail ? NULL : malloc(n * sizeof(czk_fr));
  out->b = fail ? NULL : malloc(n * sizeof(czk_fr));
  out->c = fail ? NULL : malloc(n * sizeof(czk_fr));
  if (!out->a || !out->b || !out->c) {
    czk_groth16_assignment_free(out);
    return CZK_ERR_NOMEM;
  }
  memset(out->a + m, 0, (n - m) * sizeof(czk_fr));
  memset(out->b + m, 0, (n - m) * sizeof(czk_fr));
  memset(out->c + m, 0, (n - m) * sizeof(czk_fr));
  czk_status st = czk_r1cs_eval(shape, out->w.w, out->a, out->b, out->c, pool);
  if (st != CZK_OK) czk_groth16_assignment_free(out);
  return st;
}

czk_status czk_groth16_prove(czk_groth16_proof *proof, czk_backend *be, const czk_groth16_key *key,
                             const czk_r1cs *shape, czk_witness *w, czk_pool *pool) {
  czk_backend *own = NULL;
  if (!be) {
    czk_status st = czk_backend_open(&own, "cpu", pool);
    if (st != CZK_OK) {
      czk_witness_free(w);
      return st;
    }
    be = own;
  }
  czk_groth16_assignment as;
  czk_groth16_job *job = NULL;
  czk_status st = czk_groth16_synthesize(&as, shape, w, pool);
  if (st == CZK_OK) st = czk_groth16_prove_start(&job, be, key, NULL, &as, pool);
  if (st == CZK_OK) st = czk_groth16_prove_finish(job, proof, NULL);
  if (own) {
    czk__lanes_drop_backend(czk__key_lanes(key), own);
    czk_backend_free(own);
  }
  return st;
}

czk_status czk_groth16_compiled_upload(czk_backend_compiled **out, czk_backend *be, const czk_compiled *cc) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (!be || !cc) return CZK_ERR_INVALID_ARG;
  czk_backend_tseg *seg = calloc(cc->n_segments ? cc->n_segments : 1, sizeof *seg);
  if (!seg) return CZK_ERR_NOMEM;
  uint64_t rows = 0;
  for (uint32_t i = 0; i < cc->n_segments; i++) {
    const czk_cc_segment *g = &cc->seg[i];
    seg[i] = (czk_backend_tseg){g->row0, g->tmpl_row0, g->n_rows, g->reps, g->in_stride, g->aux_stride,
                                g->table_width, g->table_off};
    rows += (uint64_t)g->n_rows * g->reps;
  }
  czk_backend_compiled_desc d = {cc->n_segments, seg, cc->n_tmpl_rows, {NULL}, {NULL}, {NULL}, {0}, cc->n_coef,
                                 cc->coef, cc->one_index, cc->minus_one_index, cc->table_len, cc->table, rows};
  for (int k = 0; k < 3; k++)
    d.row_ptr[k] = cc->m[k].row_ptr, d.col[k] = cc->m[k].col, d.ref[k] = cc->m[k].ref, d.nnz[k] = cc->m[k].nnz;
  czk_backend_stream *s = NULL;
  czk_status st = czk_backend_stream_new(be, &s);
  if (st == CZK_OK) st = czk_backend_compiled_upload(be, out, &d, s);
  if (s) czk_backend_stream_free(be, s);
  free(seg);
  return st;
}
