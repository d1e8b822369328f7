/* merkle_node.c: the node hashes of Filecoin Merkle trees over 32-byte nodes (merkletree crate semantics as used by
 * rust-fil-proofs): SHA-256 (truncated digest of the concatenated children) and Poseidon (MerkleTree tag, Standard),
 * and inclusion-path checks (a path is a mixed-radix decomposition of the leaf index, leaf level least significant).
 * The trees themselves (streaming builder, comm_d, in-memory trees) are in filecoin/tree.c. */
#include <string.h>

#include "czk/hash.h"

/* ------------------------------------------------------------------------------------------------ node hash */
static czk_status poseidon_node(uint8_t out[32], const uint8_t *children, unsigned arity) {
  const czk_poseidon *p;
  CZK_TRY(czk_poseidon_get(&p, arity, CZK_POSEIDON_STANDARD));
  czk_fr in[CZK_FC_MAX_ARITY], h;
  for (unsigned i = 0; i < arity; i++) CZK_TRY(czk_fr_from_bytes_le(&in[i], children + 32 * (size_t)i));
  CZK_TRY(czk_poseidon_hash(&h, p, CZK_POSEIDON_MERKLE_TREE, 0, in, arity));
  czk_fr_to_bytes_le(out, &h);
  return CZK_OK;
}

czk_status czk_fc_node_hash(czk_fc_hasher h, uint8_t out[32], const uint8_t *children, unsigned arity) {
  if (!out || !children || arity < 2 || arity > CZK_FC_MAX_ARITY) return CZK_ERR_INVALID_ARG;
  switch (h) {
  case CZK_FC_SHA256:
    if (arity == 2)
      czk_fc_sha256_node(out, children, children + 32);
    else
      czk_fc_sha256(out, children, 32 * (size_t)arity);
    return CZK_OK;
  case CZK_FC_POSEIDON: return poseidon_node(out, children, arity);
  }
  return CZK_ERR_INVALID_ARG;
}

czk_status czk_fc_merkle_verify(czk_fc_hasher h, const uint8_t root[32], const uint8_t leaf[32],
                                const czk_fc_path_level *path, size_t n_levels) {
  if (!root || !leaf || (n_levels && !path) || n_levels > CZK_FC_MAX_PATH) return CZK_ERR_INVALID_ARG;
  uint8_t cur[32], kids[CZK_FC_MAX_ARITY][32];
  memcpy(cur, leaf, 32);
  for (size_t l = 0; l < n_levels; l++) {
    unsigned a = path[l].arity;
    if (a < 2 || a > CZK_FC_MAX_ARITY || path[l].index >= a) return CZK_ERR_INVALID_ARG;
    for (unsigned i = 0, k = 0; i < a; i++) memcpy(kids[i], i == path[l].index ? cur : path[l].siblings[k++], 32);
    czk_status st = czk_fc_node_hash(h, cur, &kids[0][0], a);
    if (st == CZK_ERR_NOT_CANONICAL) return CZK_ERR_VERIFY_FAILED; /* a forged sibling is a failed proof */
    CZK_TRY(st);
  }
  return memcmp(cur, root, 32) == 0 ? CZK_OK : CZK_ERR_VERIFY_FAILED;
}

uint64_t czk_fc_path_leaf_index(const czk_fc_path_level *path, size_t n_levels) {
  uint64_t idx = 0, mul = 1;
  for (size_t l = 0; l < n_levels; l++) {
    idx += (uint64_t)path[l].index * mul;
    mul *= path[l].arity;
  }
  return idx;
}
