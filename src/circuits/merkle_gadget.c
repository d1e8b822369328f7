/* merkle_gadget.c: storage-proofs-core PoRCircuit (gadgets/por.rs) with the Poseidon or SHA-256 hasher, and
 * filecoin-hashers' SHA-256 node circuit, constraint for constraint. Allocation order: the leaf; then per path level
 * (base levels, sub, top): log2(arity) index bits, arity - 1 path elements, the insertion picks, the hash of the
 * arity children (Poseidon with the MerkleTree tag, or hash_multi_leaf_circuit); then the path bits packed into
 * inputs (254 per input); the root (aux), `computed * 1 = root`, and, when the root is public, its inputization
 * (with an existing root variable, Root::Var: only `computed * 1 = root`; with an existing leaf variable nothing is
 * allocated for the leaf).
 * Per binary Poseidon level: 1 + 2 + 311 constraints; 64 leaves: 6 * 314 + 3 = 1,887.
 * SHA-256 node of n children: n * 256 (to_bits_le) + SHA-256 of 256 n bits (the constant top bit of each child
 * saves some xors) + 1 (pack). */
#include "circuits/gadget_internal.h"

static unsigned log2_pow2(unsigned a) {
  unsigned k = 0;
  while ((1u << k) < a) k++;
  return (1u << k) == a ? k : 0;
}

czk_status czk_fc_sha256_node_gadget(czk_cs *cs, czk_num *out, const czk_num *children, size_t n) {
  if (!cs || !out || !children || n < 1 || n > CZK_FC_MAX_ARITY) return CZK_ERR_INVALID_ARG;
  czk_bool *msg = malloc(256 * n * sizeof *msg), digest[256], le[256], bits[255];
  if (!msg) return CZK_ERR_NOMEM;
  czk_status st = CZK_OK;
  for (size_t k = 0; k < n && st == CZK_OK; k++) {
    czk_num child = children[k];
    st = czk_num_to_bits_le(cs, bits, &child);
    /* 256 little-endian bits (the last a constant zero); each byte's bits most significant first */
    for (int byte = 0; byte < 32 && st == CZK_OK; byte++)
      for (int j = 0; j < 8; j++) {
        int bit = 8 * byte + 7 - j;
        msg[256 * k + 8 * (size_t)byte + (size_t)j] = bit < 255 ? bits[bit] : czk_bool_const(false);
      }
  }
  if (st == CZK_OK) st = czk_sha256_gadget(cs, digest, msg, 256 * n);
  free(msg);
  CZK_TRY(st);
  for (int byte = 0; byte < 32; byte++)
    for (int j = 0; j < 8; j++) le[8 * byte + j] = digest[8 * byte + 7 - j];
  return czk_pack_bits(cs, out, le, 254);
}

czk_status czk_fc_por_circuit(czk_cs *cs, const czk_fc_por *por) {
  if (!cs || !por || por->n_levels == 0 || por->n_levels > CZK_FC_MAX_PATH ||
      (por->hasher != CZK_FC_POSEIDON && por->hasher != CZK_FC_SHA256))
    return CZK_ERR_INVALID_ARG;
  unsigned base = por->base_arity, sub = por->sub_arity, top = por->top_arity;
  if (!log2_pow2(base) || (sub && !log2_pow2(sub)) || (top && !log2_pow2(top)) || (top && !sub) ||
      base > CZK_FC_MAX_ARITY || sub > CZK_FC_MAX_ARITY || top > CZK_FC_MAX_ARITY)
    return CZK_ERR_INVALID_ARG;
  size_t extra = (sub ? 1u : 0u) + (top ? 1u : 0u);
  if (por->n_levels <= extra) return CZK_ERR_INVALID_ARG;
  bool values = czk_cs_has_values(cs) && por->path;
  czk_fr leaf, root;
  czk_fr_set_zero(&leaf);
  czk_fr_set_zero(&root);
  if (values) {
    CZK_TRY(czk_fr_from_bytes_le(&leaf, por->leaf));
    CZK_TRY(czk_fr_from_bytes_le(&root, por->root));
  }
  czk_bool bits[CZK_FC_MAX_PATH * 4];
  size_t nbits = 0;
  czk_num cur;
  if (por->leaf_var) cur = *por->leaf_var;
  else CZK_TRY(czk_num_alloc(cs, &cur, &leaf));
  for (size_t l = 0; l < por->n_levels; l++) {
    size_t nbase = por->n_levels - extra;
    unsigned a = l < nbase ? base : l == nbase ? sub : top;
    const czk_fc_path_level *lv = values ? &por->path[l] : NULL;
    if (lv && (lv->arity != a || lv->index >= a)) return CZK_ERR_INVALID_ARG;
    unsigned kbits = log2_pow2(a);
    czk_bool *ib = &bits[nbits];
    for (unsigned i = 0; i < kbits; i++) CZK_TRY(czk_bit_alloc(cs, &ib[i], lv ? (lv->index >> i) & 1 : false));
    nbits += kbits;
    czk_num sibs[CZK_FC_MAX_ARITY - 1], kids[CZK_FC_MAX_ARITY], h;
    for (unsigned i = 0; i + 1 < a; i++) {
      czk_fr v;
      czk_fr_set_zero(&v);
      if (lv) CZK_TRY(czk_fr_from_bytes_le(&v, lv->siblings[i]));
      CZK_TRY(czk_num_alloc(cs, &sibs[i], &v));
    }
    CZK_TRY(czk_fc_insert(cs, kids, &cur, ib, kbits, sibs));
    if (por->hasher == CZK_FC_SHA256) {
      CZK_TRY(czk_fc_sha256_node_gadget(cs, &h, kids, a));
    } else {
      const czk_poseidon *p;
      CZK_TRY(czk_poseidon_get(&p, a, CZK_POSEIDON_STANDARD));
      CZK_TRY(czk_poseidon_gadget(cs, &h, p, CZK_POSEIDON_MERKLE_TREE, 0, kids, a));
    }
    cur = h;
  }
  CZK_TRY(czk_pack_into_inputs(cs, bits, nbits));
  if (por->root_var) return czk_num_enforce_equal(cs, &cur, por->root_var);
  czk_num rt;
  CZK_TRY(czk_num_alloc(cs, &rt, &root));
  CZK_TRY(czk_num_enforce_equal(cs, &cur, &rt));
  if (!por->private_root) CZK_TRY(czk_num_inputize(cs, &rt));
  return czk_cs_status(cs);
}
