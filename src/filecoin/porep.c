/* porep.c: the registered seal proofs and their v28 parameter names (filecoin-porep.md section 1). */
#include <stdio.h>
#include <string.h>

#include "czk/porep.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

#define ROW(w, nm, sz, szn, api, feat, L, parts, C, b, s, t) {w, nm, sz, szn, api, feat, L, parts, C, b, s, t}
#define SIZES(g, suffix, api, feat, small_parts, big_parts)                                                          \
  ROW(5 * g + 0, "StackedDrg2KiB" suffix, 2 * KIB, "2KiB", api, feat, 2, small_parts, 2, 8, 0, 0),                    \
  ROW(5 * g + 1, "StackedDrg8MiB" suffix, 8 * MIB, "8MiB", api, feat, 2, small_parts, 2, 8, 0, 0),                    \
  ROW(5 * g + 2, "StackedDrg512MiB" suffix, 512 * MIB, "512MiB", api, feat, 2, small_parts, 2, 8, 0, 0),              \
  ROW(5 * g + 3, "StackedDrg32GiB" suffix, 32 * GIB, "32GiB", api, feat, 11, big_parts, 18, 8, 8, 0),                 \
  ROW(5 * g + 4, "StackedDrg64GiB" suffix, 64 * GIB, "64GiB", api, feat, 11, big_parts, 18, 8, 8, 2)

static const czk_porep_info k_proofs[CZK_POREP_N_PROOFS] = {
    SIZES(0, "V1", 0, 0, 1, 10),
    SIZES(1, "V1_1", 1, 0, 1, 10),
    SIZES(2, "V1_1_Feat_SyntheticPoRep", 2, 1, 1, 10),
    SIZES(3, "V1_2_Feat_NonInteractivePoRep", 2, 2, 13, 126),
};

const czk_porep_info *czk_porep_info_by_wire(uint64_t wire) {
  return wire < CZK_POREP_N_PROOFS ? &k_proofs[wire] : NULL;
}

const czk_porep_info *czk_porep_info_for_size(uint64_t sector_size) {
  for (size_t i = 5; i < 10; i++)
    if (k_proofs[i].sector_size == sector_size) return &k_proofs[i];
  return NULL;
}

void czk_porep_param_stem(const czk_porep_info *info, char *out, size_t out_len) {
  char id[400];
  /* the identifier has neither porep_id nor API version nor feature: every variant of a size shares one key; the
   * challenge count in it is the interactive one (max_count), as the published names show */
  unsigned C = info->challenges;
  int n = snprintf(id, sizeof id,
                   "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 "
                   "base_graph: drgraph::BucketGraph{size: %llu; degree: 6; hasher: poseidon_hasher} }, challenges: "
                   "LayerChallenges { layers: %u, max_count: %u }, tree: merkletree-poseidon_hasher-%u-%u-%u }",
                   (unsigned long long)(info->sector_size / 32), info->layers, C, info->base, info->sub, info->top);
  uint8_t h[32];
  czk_sha256(h, id, (size_t)n);
  char hex[65];
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", h[i]);
  snprintf(out, out_len, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-%u-%u-%u-sha256_hasher-%s",
           info->base, info->sub, info->top, hex);
}

const char *czk_porep_circuit_id(const czk_porep_info *info) {
  static const char *ids[5] = {"porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g"};
  return ids[info->wire % 5];
}

void czk_porep_circuit_of(const czk_porep_info *info, czk_porep_circuit *out) {
  out->nodes = info->sector_size / 32;
  out->layers = info->layers;
  out->challenges = info->challenges;
  out->base = info->base;
  out->sub = info->sub;
  out->top = info->top;
}
