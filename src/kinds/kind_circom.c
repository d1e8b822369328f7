/* kind_circom.c: the engine kind "circom:<name>" over a snarkjs Groth16 zkey (see czk/kinds.h).
 *
 * Job input: the .wtns bytes, parsed and validated once (version, prime, n = the key's n_vars). One partition. The
 * prover is snarkjs's algorithm (czk_snarkjs_prove: evaluations from zkey section 4, odd-coset H, five MSMs) run in
 * prove_start on the CPU; prove_finish encodes the 192-byte compressed proof. verify checks it against the zkey's vk
 * with the witness's public signals. The key is the memory-mapped zkey, prepared (points checked, matrices compiled)
 * when loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "czk/circom.h"
#include "czk/kinds.h"
#include "kinds/kinds_internal.h"

typedef struct circ_user {
  char name[96];
  char path[1024];
  czk_zkey_info info;
  czk_pool *pool;
} circ_user;

typedef struct circ_key {
  czk_zkey *z;
  czk_groth16_vk vk;
} circ_key;

typedef struct circ_pending {
  czk_groth16_proof proof;
} circ_pending;

static czk_status circ_parse(void *user, const uint8_t *input, size_t len, void **parsed, uint32_t *nparts) {
  circ_user *u = user;
  czk_circom_wtns *w = calloc(1, sizeof *w);
  if (!w) return CZK_ERR_NOMEM;
  czk_status st = czk_circom_wtns_parse(w, input, len);
  if (st == CZK_OK && w->n != u->info.n_vars) {
    czk_circom_wtns_free(w);
    st = CZK_ERR_SIZE_MISMATCH;
  }
  if (st != CZK_OK) {
    free(w);
    return st;
  }
  *parsed = w;
  *nparts = 1;
  return CZK_OK;
}

static void circ_parsed_free(void *user, void *parsed) {
  (void)user;
  if (!parsed) return;
  czk_circom_wtns_free(parsed);
  free(parsed);
}

/* The witness is the input: synthesis has nothing left to do (the evaluations happen inside the snarkjs prover). */
static czk_status circ_synthesize(void *user, const void *parsed, uint32_t part, czk_pool *pool, void **synth) {
  (void)user;
  (void)part;
  (void)pool;
  *synth = (void *)parsed;
  return CZK_OK;
}

static void circ_synth_free(void *user, void *synth) {
  (void)user;
  (void)synth;
}

static czk_status circ_prove_start(void *user, const czk_engine_device_ctx *dev, void *key, void *synth, void **pending,
                                   czk_engine_prove_report *rep) {
  (void)dev;
  circ_user *u = user;
  circ_key *k = key;
  circ_pending *p = calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  czk_snarkjs_timings t;
  memset(&t, 0, sizeof t);
  czk_status st = czk_snarkjs_prove(&p->proof, k->z, (const czk_circom_wtns *)synth, u->pool, &t);
  if (st != CZK_OK) {
    free(p);
    return st;
  }
  rep->ntt_ns = (uint64_t)(t.h * 1e9);
  rep->msm_ns = (uint64_t)((t.msm_a + t.msm_b1 + t.msm_b2 + t.msm_c) * 1e9);
  *pending = p;
  return CZK_OK;
}

static czk_status circ_prove_finish(void *user, const czk_engine_device_ctx *dev, void *pending, uint8_t *proof,
                                    czk_engine_prove_report *rep) {
  (void)user;
  (void)dev;
  (void)rep;
  circ_pending *p = pending;
  czk_groth16_proof_encode(proof, &p->proof);
  free(p);
  return CZK_OK;
}

static czk_status circ_verify(void *user, void *key, const void *parsed, uint32_t part, const uint8_t *proof) {
  (void)part;
  circ_user *u = user;
  circ_key *k = key;
  const czk_circom_wtns *w = parsed;
  return czk__kinds_verify_encoded(&k->vk, proof, w->w + 1, u->info.n_public);
}

static czk_status circ_key_load(void *user, const char *key_id, czk_key_tier want, void **key, czk_key_tier *tier,
                                uint64_t *bytes) {
  (void)want;
  circ_user *u = user;
  if (strcmp(key_id, u->name) != 0) return CZK_ERR_NOT_FOUND;
  circ_key *k = calloc(1, sizeof *k);
  if (!k) return CZK_ERR_NOMEM;
  czk_status st = czk_zkey_open(&k->z, u->path);
  if (st == CZK_OK) st = czk_zkey_prepare(k->z, u->pool);
  if (st == CZK_OK) st = czk_zkey_vk(k->z, &k->vk);
  if (st != CZK_OK) {
    if (k->z) czk_zkey_close(k->z);
    free(k);
    return st;
  }
  struct stat sb;
  *bytes = stat(u->path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
  *tier = CZK_KEY_TIER_MAPPED;
  *key = k;
  return CZK_OK;
}

static void circ_key_free(void *user, void *key) {
  (void)user;
  circ_key *k = key;
  if (!k) return;
  czk_zkey_close(k->z);
  czk_groth16_vk_free(&k->vk);
  free(k);
}

czk_status czk_kind_circom_new(czk_engine_kind *out, const char *name, const char *zkey_path, czk_pool *pool) {
  memset(out, 0, sizeof *out);
  if (!name || !zkey_path || strlen(name) > 80) return CZK_ERR_INVALID_ARG;
  czk_zkey *z;
  CZK_TRY(czk_zkey_open(&z, zkey_path)); /* header and sizes validated here: a bad key is refused at registration */
  circ_user *u = calloc(1, sizeof *u);
  if (!u) {
    czk_zkey_close(z);
    return CZK_ERR_NOMEM;
  }
  czk_zkey_get_info(z, &u->info);
  czk_zkey_close(z);
  snprintf(u->name, sizeof u->name, "circom:%s", name);
  snprintf(u->path, sizeof u->path, "%s", zkey_path);
  u->pool = pool;
  struct stat sb;
  uint64_t file_bytes = stat(zkey_path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
  uint64_t n = u->info.domain_size, v = u->info.n_vars;
  out->name = u->name;
  out->key_id = u->name;
  out->proof_bytes = CZK_GROTH16_PROOF_BYTES;
  out->max_partitions = 1;
  out->shape.abc_bytes = 3 * n * sizeof(czk_fr);
  out->shape.witness_bytes = v * sizeof(czk_fr);
  out->shape.scratch_bytes = 3 * n * sizeof(czk_fr) + (n + v) * sizeof(czk_g1_xyzz) / 2 + (8u << 20);
  /* + 512 KiB fixed: `czk bench memory --circom` measured the 2^10-domain mix key at 1.18 MiB resident against 0.73
   * MiB from file + coefficients (vk, structs, domain, page rounding); one small data point, not a fitted formula. */
  out->key_bytes = file_bytes + (uint64_t)u->info.n_coefs * 48 + (512u << 10);
  out->verify_mode = CZK_VERIFY_AUTO;
  out->user = u;
  out->parse = circ_parse;
  out->parsed_free = circ_parsed_free;
  out->synthesize = circ_synthesize;
  out->synth_free = circ_synth_free;
  out->prove_start = circ_prove_start;
  out->prove_finish = circ_prove_finish;
  out->verify = circ_verify;
  out->key_load = circ_key_load;
  out->key_free = circ_key_free;
  return CZK_OK;
}

void czk__kind_circom_free(void *user) { free(user); }
