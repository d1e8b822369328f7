/* groth16_internal.h: helpers shared by the files of src/groth16 (not public). */
#ifndef CZK_GROTH16_INTERNAL_H
#define CZK_GROTH16_INTERNAL_H

#include <pthread.h>

#include "core/mapfile.h"
#include "czk/groth16.h"

#define CZK__VK_FIXED 864u /* 3 G1 + 3 G2 uncompressed points before the ic count */

uint32_t czk__be32(const uint8_t *p);
void czk__put_be32(uint8_t *p, uint32_t v);

/* The NTT domain of the pk (size n_h + 1), created by czk_groth16_pk_prepare; NULL before. */
struct czk_ntt_domain;
const struct czk_ntt_domain *czk__groth16_pk_domain(const czk_groth16_pk *pk);

/* ---- the prover's view of a key (key.c) and its per-device resources (prover.c) */
enum { CZK__Q_H = 0, CZK__Q_L, CZK__Q_A, CZK__Q_B1, CZK__Q_B2, CZK__NQ };

/* A base set: the five queries and the index lists, in host memory (a key) or in one backend's memory (a dkey).
 * idx[0]: witness indices of the a query's points, idx[1]: of b_g1 / b_g2 (n_idx 0: every witness entry in order). */
typedef struct czk__bases {
  const void *q[CZK__NQ];
  size_t nq[CZK__NQ];
  const uint32_t *idx[2];
  size_t n_idx[2];
  bool streamed; /* host bases: a device backend streams them in chunks */
  bool host_q[CZK__NQ]; /* a partial device copy: these queries stay in (pinned) host memory and are streamed */
} czk__bases;
/* Whether query q's bases are read from host memory (a streamed key, or a query a partial copy left out). */
static inline bool czk__q_host(const czk__bases *b, int q) { return b->streamed || b->host_q[q]; }

typedef struct czk__lane czk__lane;
typedef struct czk__lanes {
  pthread_mutex_t mu;
  czk__lane *head;
  /* Large witness-only proves of one device copy run their kernels one after another (prover.c, "chain"): each
   * waits on chain_ev, recorded at the end of the previous one's work, so that a prove finishes early and its worker
   * stages the next partition while the device runs the other's. chain_mu serializes the launches' enqueue phase. */
  pthread_mutex_t chain_mu;
  czk_backend *chain_be;
  czk_backend_event *chain_ev;
  bool chain_set;
} czk__lanes;
void czk__lanes_init(czk__lanes *c);
void czk__lanes_destroy(czk__lanes *c);            /* frees every cached lane (none may be in use) */
void czk__lanes_drop_backend(czk__lanes *c, czk_backend *be); /* frees the cached lanes of one backend */
size_t czk__lanes_count(czk__lanes *c);                   /* lanes cached now (tests) */

struct czk_groth16_key {
  czk_groth16_vk vk; /* a copy (the adapters' sources may own theirs) */
  czk_h_kind h_mode;
  unsigned log_n;
  size_t n_inputs, n_aux; /* witness layout the key expects */
  czk__bases host;
  uint32_t *idx_own[2];
  czk_backend *pinned_on; /* host queries registered with this backend (NULL: not pinned) */
  unsigned idx_pinned;    /* bit j: index list j registered too */
  unsigned q_pinned;      /* bit i: query i owns a registration (queries sharing a buffer: the first) */
  czk__lanes lanes;       /* lanes over the host bases, any backend */
};

const czk__bases *czk__key_bases(const czk_groth16_key *k);
czk__lanes *czk__key_lanes(const czk_groth16_key *k);
const czk__bases *czk__dkey_bases(const czk_groth16_dkey *dk);
czk__lanes *czk__dkey_lanes(const czk_groth16_dkey *dk);
czk_backend *czk__dkey_backend(const czk_groth16_dkey *dk);
/* A key over explicit parts (the adapters): copies vk, takes ownership of idx_a / idx_b (malloc'd, may be NULL). */
czk_status czk__key_new(czk_groth16_key **out, const czk_groth16_vk *vk, czk_h_kind h, unsigned log_n, size_t n_inputs,
                        size_t n_aux, const void *const q[CZK__NQ], const size_t nq[CZK__NQ], uint32_t *idx_a,
                        size_t n_idx_a, uint32_t *idx_b, size_t n_idx_b);

/* Tests only: the next proofs use these r, s instead of fresh randomness (NULL: random again), so that proofs of one
 * witness by different lanes can be compared byte for byte. Never called by the library or the daemon. */
void czk__groth16_test_fix_rs(const czk_fr *r, const czk_fr *s);
/* The device's idle time in waits (czk_groth16_timings.upload_wait), over two streams: waits [w[2i], w[2i+1]] of stream
 * ws[i] (0 or 1; an empty or reversed interval is no wait), stream i busy over span[i] = [from, to] (to <= from: none)
 * except while it waits; returns the measure of the times at which some stream waits and no stream is busy (a wait
 * beside the other stream's work does not count). Same unit as the inputs. */
double czk__groth16_wait_idle(const double *w, const int *ws, size_t nw, const double span[2][2]);

/* czk_groth16_params_write encoding the points on the pool (NULL = default). */
czk_status czk__groth16_params_write(const char *path, const czk_groth16_vk *vk, const czk_groth16_pk_queries *q,
                                     const czk_groth16_pk_sizes *s, czk_pool *pool);
/* czk_groth16_setup with the toxic waste given: tw = {tau, alpha, beta, gamma, delta} (tests: reproducible keys whose
 * every point can be recomputed). The caller owns and wipes tw. */
czk_status czk__groth16_setup_seeded(const czk_r1cs *shape, const char *params_path, const char *vk_path,
                                     czk_pool *pool, const czk_fr tw[5]);

#endif
