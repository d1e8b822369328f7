/* kinds.c: the one map from proof kinds to engine kind names (czk_kind_name_for). */
#include <stdio.h>
#include <string.h>

#include "czk/kinds.h"
#include "czk/porep.h"
#include "czk/snap.h"

static bool valid_circuit_id(const uint8_t *p, size_t n) {
  if (n < 1 || n > 64 || p[0] == '.') return false;
  for (size_t i = 0; i < n; i++)
    if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') ||
          p[i] == '_' || p[i] == '-' || p[i] == '.'))
      return false;
  return true;
}

czk_status czk_kind_name_for(const czk_kind_request *r, unsigned default_synthetic_k, char *name, size_t name_len,
                             char *err, size_t err_len) {
  char scratch[8];
  if (!err) err = scratch, err_len = sizeof scratch;
  err[0] = 0;
  if (!r || !name || !name_len) return CZK_ERR_INVALID_ARG;
  name[0] = 0;
  switch (r->proof_kind) {
  case CZK_PROOF_KIND_POREP_SEAL_COMMIT: {
    const czk_porep_info *info = czk_porep_info_by_wire(r->registered_proof);
    if (!info) {
      snprintf(err, err_len, "registered_proof %llu is not a seal proof (0-19)", (unsigned long long)r->registered_proof);
      return CZK_ERR_INVALID_ARG;
    }
    if (r->sector_size && r->sector_size != info->sector_size) {
      snprintf(err, err_len, "sector_size %llu disagrees with registered_proof %llu (%s)",
               (unsigned long long)r->sector_size, (unsigned long long)r->registered_proof, info->name);
      return CZK_ERR_INVALID_ARG;
    }
    snprintf(name, name_len, "porep-c2-%s", info->size_name);
    return CZK_OK;
  }
  case CZK_PROOF_KIND_SNAP_DEALS_UPDATE: {
    const czk_snap_info *info = czk_snap_info_by_wire(r->registered_proof);
    if (!info) {
      snprintf(err, err_len, "registered_proof %llu is not an update proof (0-4)", (unsigned long long)r->registered_proof);
      return CZK_ERR_INVALID_ARG;
    }
    if (r->sector_size && r->sector_size != info->sector_size) {
      snprintf(err, err_len, "sector_size %llu disagrees with registered_proof %llu (%s)",
               (unsigned long long)r->sector_size, (unsigned long long)r->registered_proof, info->name);
      return CZK_ERR_INVALID_ARG;
    }
    snprintf(name, name_len, "snap-update-%s", info->size_name);
    return CZK_OK;
  }
  case CZK_PROOF_KIND_WINDOW_POST_PARTITION:
  case CZK_PROOF_KIND_WINNING_POST: {
    bool win = r->proof_kind == CZK_PROOF_KIND_WINNING_POST;
    const czk_post_info *info = czk_post_info_by_wire(r->registered_proof);
    if (!info || info->type != (win ? CZK_POST_WINNING : CZK_POST_WINDOW)) {
      snprintf(err, err_len, "registered_proof %llu is not a %s proof (%s)", (unsigned long long)r->registered_proof,
               win ? "WinningPoSt" : "WindowPoSt", win ? "0-4" : "5-14");
      return CZK_ERR_INVALID_ARG;
    }
    if (r->sector_size && r->sector_size != info->sector_size) {
      snprintf(err, err_len, "sector_size %llu disagrees with registered_proof %llu (%s)",
               (unsigned long long)r->sector_size, (unsigned long long)r->registered_proof, info->name);
      return CZK_ERR_INVALID_ARG;
    }
    snprintf(name, name_len, "%s-%s", win ? "winning-post" : "window-post", info->size_name);
    return CZK_OK;
  }
  case CZK_PROOF_KIND_SYNTHETIC: {
    unsigned k = default_synthetic_k;
    if (r->sector_size) {
      if (r->sector_size & (r->sector_size - 1)) {
        snprintf(err, err_len, "synthetic: sector_size %llu is not a power of two (it gives the circuit size 2^k)",
                 (unsigned long long)r->sector_size);
        return CZK_ERR_INVALID_ARG;
      }
      k = (unsigned)__builtin_ctzll(r->sector_size);
    }
    snprintf(name, name_len, "synthetic-k%u", k);
    return CZK_OK;
  }
  case CZK_PROOF_KIND_CIRCOM:
    if (r->n_vanilla_proofs < 1 || !r->vanilla_proofs ||
        !valid_circuit_id(r->vanilla_proofs[0].data, r->vanilla_proofs[0].len)) {
      snprintf(err, err_len, "circom: vanilla_proofs[0] must name the circuit (1-64 characters of [A-Za-z0-9._-])");
      return CZK_ERR_INVALID_ARG;
    }
    snprintf(name, name_len, "circom:%.*s", (int)r->vanilla_proofs[0].len, (const char *)r->vanilla_proofs[0].data);
    return CZK_OK;
  default: /* the wire value is an int32 enum: -1 reads as -1 */
    snprintf(err, err_len, "unknown proof_kind %d", (int)(int32_t)r->proof_kind);
    return CZK_ERR_INVALID_ARG;
  }
}
