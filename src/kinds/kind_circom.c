/* kind_circom.c: the descriptor of circom circuits "circom:<name>" over a snarkjs Groth16 key <keys_dir>/<name>.zkey
 * (czk/kinds.h). The request's vanilla_proof is the .wtns, parsed and validated once (version, prime, n = the key's
 * n_vars); one partition. Key flavour: snarkjs -- the adapter synthesizes a = A w, b = B w (c = a b) from the zkey's
 * matrices on a synthesis worker and proves with the one prover on the device (H on the odd coset, five MSMs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kinds/kinds_internal.h"

#define MAX_WTNS ((size_t)16 << 30)

typedef struct circ_cfg {
  czk_zkey_info info;
} circ_cfg;

static czk_status circ_parse(void *cfg, const czk_kind_request *r, void **parsed, uint32_t *nparts) {
  circ_cfg *c = cfg;
  czk_circom_wtns *w = calloc(1, sizeof *w);
  if (!w) return CZK_ERR_NOMEM;
  czk_status st = czk_circom_wtns_parse(w, r->vanilla_proof.data, r->vanilla_proof.len);
  if (st == CZK_OK && w->n != c->info.n_vars) {
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

static void circ_parsed_free(void *parsed) {
  if (!parsed) return;
  czk_circom_wtns_free(parsed);
  free(parsed);
}

static const czk_circom_wtns *circ_wtns(const void *parsed) { return parsed; }

static const czk__kind_desc circ_desc = {
    .family = "circom",
    .flavour = CZK__KEY_SNARKJS,
    .max_partitions = 1,
    .max_input = MAX_WTNS,
    .parse = circ_parse,
    .parsed_free = circ_parsed_free,
    .wtns = circ_wtns,
    .destroy = free,
};

czk_status czk_kind_circom_new(czk_engine_kind *out, const char *name, const char *zkey_path, czk_pool *pool) {
  memset(out, 0, sizeof *out);
  if (!name || !zkey_path || strlen(name) > 80) return CZK_ERR_INVALID_ARG;
  czk_zkey *z;
  CZK_TRY(czk_zkey_open(&z, zkey_path)); /* header and sizes validated here: a bad key is refused at registration */
  circ_cfg *c = calloc(1, sizeof *c);
  if (!c) {
    czk_zkey_close(z);
    return CZK_ERR_NOMEM;
  }
  czk_zkey_get_info(z, &c->info);
  czk_zkey_close(z);
  char kname[96];
  snprintf(kname, sizeof kname, "circom:%s", name);
  struct stat sb;
  uint64_t file_bytes = stat(zkey_path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
  uint64_t n = c->info.domain_size, v = c->info.n_vars;
  czk__kind_spec sp = {.desc = &circ_desc, .cfg = c, .name = kname, .key_path = zkey_path, .pool = pool};
  sp.shape.abc_bytes = 3 * n * sizeof(czk_fr);
  sp.shape.witness_bytes = 2 * v * sizeof(czk_fr); /* the parsed .wtns and the assignment's copy */
  sp.shape.scratch_bytes = 3 * n * sizeof(czk_fr) + (n + v) * sizeof(czk_g1_xyzz) / 2 + (8u << 20);
  /* + 512 KiB fixed: `czk bench memory --circom` measured the 2^10-domain mix key at 1.18 MiB resident against 0.73
   * MiB from file + coefficients (vk, structs, domain, page rounding); one small data point, not a fitted formula. */
  sp.key_bytes = file_bytes + (uint64_t)c->info.n_coefs * 48 + (512u << 10);
  sp.device_bytes = (n + 3 * v) * sizeof(czk_g1_affine) + v * sizeof(czk_g2_affine);
  return czk__kind_make(out, &sp);
}
