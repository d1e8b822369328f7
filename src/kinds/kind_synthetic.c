/* kind_synthetic.c: the descriptor of the synthetic circuit family "synthetic-k<k>" (czk/kinds.h): the request's
 * vanilla_proof is a text spec "partitions=N seed=S" (both optional, separated by blanks or commas); partition p
 * proves the witness of seed S + p of the 2^k circuit (src/circuits/synthetic.c). Key flavour: bellperson (shape
 * recorded once and cached, key set up on first use) -- everything else is the adapter's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/synthetic.h"
#include "czk/msm.h"
#include "kinds/kinds_internal.h"

#define MAX_PARTITIONS 64
#define MAX_SPEC 4096

typedef struct syn_cfg {
  unsigned k;
} syn_cfg;

typedef struct syn_parsed {
  uint64_t seed;
} syn_parsed;

static czk_status syn_parse(void *cfg, const czk_kind_request *r, void **parsed, uint32_t *nparts) {
  (void)cfg;
  char spec[MAX_SPEC + 1];
  size_t len = r->vanilla_proof.len;
  if (len > MAX_SPEC) return CZK_ERR_LIMIT;
  if (len && memchr(r->vanilla_proof.data, 0, len)) return CZK_ERR_FORMAT; /* not text: never cut at the NUL */
  if (len) memcpy(spec, r->vanilla_proof.data, len);
  spec[len] = 0;
  uint64_t parts = 1, seed = 1;
  char *save = NULL;
  for (char *tok = strtok_r(spec, " \t\n,", &save); tok; tok = strtok_r(NULL, " \t\n,", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) return CZK_ERR_FORMAT;
    *eq = 0;
    char *end;
    errno = 0;
    if (eq[1] < '0' || eq[1] > '9') return CZK_ERR_FORMAT;
    unsigned long long v = strtoull(eq + 1, &end, 10);
    if (errno || *end) return CZK_ERR_FORMAT;
    if (strcmp(tok, "partitions") == 0) parts = v;
    else if (strcmp(tok, "seed") == 0) seed = v;
    else return CZK_ERR_FORMAT;
  }
  if (parts < 1 || parts > MAX_PARTITIONS) return CZK_ERR_LIMIT;
  syn_parsed *p = calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  p->seed = seed;
  *parsed = p;
  *nparts = (uint32_t)parts;
  return CZK_OK;
}

static void syn_parsed_free(void *parsed) { free(parsed); }

static czk_status syn_shape(void *cfg, czk_r1cs **out) { return czk_synthetic_shape(out, ((syn_cfg *)cfg)->k); }

static czk_status syn_witness(void *cfg, const void *parsed, uint32_t part, czk_witness *out) {
  return czk_synthetic_witness(out, ((syn_cfg *)cfg)->k, ((const syn_parsed *)parsed)->seed + part);
}

static const czk__kind_desc syn_desc = {
    .family = "synthetic",
    .flavour = CZK__KEY_BELLPERSON,
    .max_partitions = MAX_PARTITIONS,
    .max_input = MAX_SPEC,
    .parse = syn_parse,
    .parsed_free = syn_parsed_free,
    .shape_new = syn_shape,
    .witness = syn_witness,
    .destroy = free,
};

/* Largest scratch any MSM of a proof asks for (the five run one after another, each mallocs and frees its own plan's
 * scratch). Their point counts are n - 1 (h), n_aux (l), n_inputs and the A/B densities, all <= n; a plan's scratch is
 * not monotone in the point count (the window size changes), so the maximum is taken over n, 3n/4, n/2 and n/4. */
static uint64_t msm_scratch_bound(uint64_t n, unsigned threads) {
  uint64_t best = 0;
  const uint64_t m[4] = {n, n * 3 / 4, n / 2, n / 4};
  for (int g = 0; g < 2; g++) {
    for (int i = 0; i < 4; i++) {
      czk_msm_plan p;
      if (czk_msm_plan_init(&p, g ? CZK_MSM_G2 : CZK_MSM_G1, m[i] ? m[i] : 1, threads) == CZK_OK &&
          p.scratch_bytes > best)
        best = p.scratch_bytes;
    }
  }
  return best;
}

/* Reservation of one partition, measured with `czk bench memory` (docs/benchmarks.md, "Reservations vs measured peak
 * memory"): the peak RSS of synthesize + prove_start + prove_finish is abc + witness (synthesis) and then, during the
 * MSMs, one MSM scratch on top plus the gathered a / b scalars. With n = 2^k (= the domain; constraints and variables
 * are <= n):
 *   abc     = 3 n 32 B (a, b, c; released after prove_start)
 *   witness = n 32 B (n_inputs + n_aux <= n)
 *   scratch = max MSM plan scratch for the pool's thread count T (msm_scratch_bound) + 2 n 32 B (the gathered scalars
 *             of the a and b queries) + 256 KiB (malloc headers, page rounding, small buffers) + T * 256 KiB (the stack
 *             pages and malloc arena each pool thread touches in the MSM tasks)
 * Key (resident after czk_groth16_pk_prepare): the h, l, a, b_g1 queries (at most n - 1, n, n, n G1 affine points) +
 * b_g2 (at most n G2 affine) + the NTT domain's n/2 twiddles + the two index lists (2 n 4 B) + 128 KiB (vk, structs,
 * page rounding). The synthetic circuit's densities (a 0.93, b 0.63) make this an upper bound, never short. */
void czk_kind_synthetic_shape(unsigned k, unsigned threads, czk_engine_shape *out, uint64_t *key_bytes) {
  uint64_t n = 1ull << k;
  out->abc_bytes = 3 * n * sizeof(czk_fr);
  out->witness_bytes = n * sizeof(czk_fr);
  if (threads == 0) threads = czk_pool_threads(NULL);
  out->scratch_bytes = msm_scratch_bound(n, threads) + 2 * n * sizeof(czk_fr) + (256u << 10) +
                       (uint64_t)threads * (256u << 10);
  *key_bytes = 4 * n * sizeof(czk_g1_affine) + n * sizeof(czk_g2_affine) + (n / 2) * sizeof(czk_fr) +
               2 * n * sizeof(uint32_t) + (128u << 10);
}

czk_status czk_kind_synthetic_new(czk_engine_kind *out, unsigned k, const char *keys_dir, czk_pool *pool) {
  memset(out, 0, sizeof *out);
  if (k < CZK_SYNTHETIC_MIN_LOG || k > CZK_SYNTHETIC_MAX_LOG || !keys_dir) return CZK_ERR_INVALID_ARG;
  syn_cfg *c = calloc(1, sizeof *c);
  if (!c) return CZK_ERR_NOMEM;
  c->k = k;
  char name[32];
  snprintf(name, sizeof name, "synthetic-k%u", k);
  czk__kind_spec sp = {.desc = &syn_desc, .cfg = c, .name = name, .keys_dir = keys_dir, .pool = pool};
  czk_kind_synthetic_shape(k, czk_pool_threads(pool), &sp.shape, &sp.key_bytes);
  uint64_t n = 1ull << k;
  sp.device_bytes = 4 * n * sizeof(czk_g1_affine) + n * sizeof(czk_g2_affine) + 2 * n * sizeof(uint32_t);
  return czk__kind_make(out, &sp);
}
