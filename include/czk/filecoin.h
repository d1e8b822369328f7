/* czk/filecoin.h: Filecoin data layout and trees, natively, bit-compatible with rust-fil-proofs / neptune (on the
 * hashes of czk/hash.h, included):
 *   - fr32 padding (every 254 data bits become a 32-byte element whose two top bits are zero);
 *   - the binary truncated-SHA-256 Merkle tree over 32-byte nodes (tree D, comm_d);
 *   - Poseidon Merkle trees (base arity with optional sub and top arities, as the sector shapes), inclusion proofs.
 *
 * Nodes are 32-byte domains as in hash.h; functions taking Poseidon nodes reject non-canonical encodings (>= r) with
 * CZK_ERR_NOT_CANONICAL where the reference would panic.
 *
 * Threading: everything here is reentrant. */
#ifndef CZK_FILECOIN_H
#define CZK_FILECOIN_H

#include "czk/hash.h"

/* ------------------------------------------------------------------------------------------------ fr32 */
/* Lengths: an unpadded byte stream of n bytes (8n bits) pads to 32*floor(8n/254) + ceil((8n mod 254)/8) bytes;
 * 127 bytes <-> 128 bytes exactly. unpadded_len(padded_len(n)) == n for every n. */
CZK_API uint64_t czk_fr32_padded_len(uint64_t unpadded);
CZK_API uint64_t czk_fr32_unpadded_len(uint64_t padded);
/* out: czk_fr32_padded_len(in_len) bytes (every bit written). Bits are taken least-significant first within a byte
 * (rust-fil-proofs BitVecLEu8); each 254-bit data unit is followed by two zero bits. No aliasing. */
CZK_API void czk_fr32_pad(uint8_t *out, const uint8_t *in, size_t in_len);
/* out: czk_fr32_unpadded_len(padded_len) bytes. The two top bits of each full 32-byte element are dropped (ignored,
 * whatever their value). No aliasing. */
CZK_API void czk_fr32_unpad(uint8_t *out, const uint8_t *in, size_t padded_len);

/* ------------------------------------------------------------------------------------------------ Merkle trees */
/* Streaming tree builder for a uniform-arity tree whose leaf count is a power of the arity: push leaves in order,
 * then take the root. Memory: (arity-1) pending nodes per level. For SHA-256 binary trees, zero-filled tails are
 * added without hashing zeros (cached all-zero subtree roots). */
typedef struct czk_fc_stream {
  czk_fc_hasher hasher;
  unsigned arity;
  unsigned height; /* levels in use */
  uint64_t leaves; /* pushed so far */
  uint8_t pending[64][CZK_FC_MAX_ARITY][32];
  unsigned npending[64];
  czk_status err;
} czk_fc_stream;

CZK_API czk_status czk_fc_stream_init(czk_fc_stream *s, czk_fc_hasher h, unsigned arity);
CZK_API czk_status czk_fc_stream_push(czk_fc_stream *s, const uint8_t leaf[32]);
/* Pushes zero leaves until the leaf count is `total` (a power of the arity >= the current count). */
CZK_API czk_status czk_fc_stream_fill_zero(czk_fc_stream *s, uint64_t total);
/* Root; CZK_ERR_STATE unless the leaf count is a power of the arity (>= 1). */
CZK_API czk_status czk_fc_stream_root(const czk_fc_stream *s, uint8_t root[32]);

/* Root of a binary SHA tree over 2^height all-zero leaves (height <= 63). */
CZK_API void czk_fc_sha256_zero_root(uint8_t out[32], unsigned height);

/* comm_d (piece commitment of one piece at offset 0 of a sector): fr32-pad `len` unpadded bytes, zero-fill to
 * `padded_size` bytes (0 = the smallest power of two >= max(128, padded length)), binary truncated-SHA-256 tree over
 * the 32-byte chunks. padded_size must be a power of two >= 128 and >= the padded length (CZK_ERR_INVALID_ARG). */
CZK_API czk_status czk_fc_comm_d(uint8_t out[32], const uint8_t *unpadded, size_t len, uint64_t padded_size);

/* A whole tree kept in memory (for proofs): base arity over the leaves, then optionally one level of sub_arity and
 * one of top_arity above `sub_arity * top_arity` equal base trees (the sector shapes <base, sub, top>: 0 = absent).
 * n_leaves = base^k * max(sub,1) * max(top,1), k >= 1 (a top without a sub is rejected, as in merkletree). */
typedef struct czk_fc_tree czk_fc_tree;

CZK_API czk_status czk_fc_tree_build(czk_fc_tree **out, czk_fc_hasher h, const uint8_t *leaves, uint64_t n_leaves,
                                     unsigned base_arity, unsigned sub_arity, unsigned top_arity);
CZK_API void czk_fc_tree_free(czk_fc_tree *t);
CZK_API void czk_fc_tree_root(const czk_fc_tree *t, uint8_t root[32]);
CZK_API uint64_t czk_fc_tree_leaves(const czk_fc_tree *t);
/* Path from leaf `index` to the root: writes *n_levels (<= CZK_FC_MAX_PATH) levels, leaf level first. */
CZK_API czk_status czk_fc_tree_prove(const czk_fc_tree *t, uint64_t index, czk_fc_path_level *path, size_t *n_levels);

/* A sparse tree of the same shapes at any size (n_leaves = base^k * max(sub,1) * max(top,1) up to 2^62): only the n
 * listed leaves (index[i], leaves + 32 i; any order, an index listed twice must have one value) are stored; every
 * other node is the default of its height (leaf: default_leaf, or zero when NULL; above: the hash of `arity`
 * defaults). Time and memory grow with n and the height only, so a test can make valid openings of a 32 GiB tree. */
typedef struct czk_fc_sparse czk_fc_sparse;

CZK_API czk_status czk_fc_sparse_build(czk_fc_sparse **out, czk_fc_hasher h, uint64_t n_leaves, unsigned base_arity,
                                       unsigned sub_arity, unsigned top_arity, const uint64_t *index,
                                       const uint8_t *leaves, size_t n, const uint8_t default_leaf[32]);
CZK_API void czk_fc_sparse_free(czk_fc_sparse *t);
CZK_API void czk_fc_sparse_root(const czk_fc_sparse *t, uint8_t root[32]);
/* The leaf value at index (listed or default). */
CZK_API void czk_fc_sparse_leaf(const czk_fc_sparse *t, uint64_t index, uint8_t leaf[32]);
/* As czk_fc_tree_prove. */
CZK_API czk_status czk_fc_sparse_prove(const czk_fc_sparse *t, uint64_t index, czk_fc_path_level *path,
                                       size_t *n_levels);

#endif
