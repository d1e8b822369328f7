/* test_fc_groth16.c: a full Groth16 round trip (setup, prove, verify) of the Filecoin PoR circuit over a random
 * Poseidon octree (arity 8, 512 leaves, 3 levels; the root public): the shape comes from the shape recorder, keys
 * from a real setup, the witness from the witness builder, and the proof must verify with the circuit's public inputs
 * (whose root input must equal the native tree root). A wrong root, a tampered proof and a witness for a leaf that is
 * not in the tree are rejected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "czk/filecoin.h"
#include "czk/gadgets.h"
#include "czk/groth16.h"
#include "czk_test.h"

#define ARITY 8
#define LEVELS 3
#define LEAVES 512

static czk_status build(czk_cs *cs, const czk_fc_por *por) { return czk_fc_por_circuit(cs, por); }

int main(void) {
  czk_test_rng rng;
  czk_test_rng_seed(&rng, 0x9e57);
  uint8_t *leaves = malloc(32 * LEAVES);
  for (int i = 0; i < LEAVES; i++) {
    uint8_t wide[64];
    czk_test_rng_bytes(&rng, wide, sizeof wide);
    czk_fr x;
    czk_fr_from_bytes_wide_le(&x, wide, sizeof wide);
    czk_fr_to_bytes_le(leaves + 32 * i, &x);
  }
  czk_fc_tree *tree;
  CHECK(czk_fc_tree_build(&tree, CZK_FC_POSEIDON, leaves, LEAVES, ARITY, 0, 0) == CZK_OK);
  uint8_t root[32];
  czk_fc_tree_root(tree, root);
  uint64_t idx = czk_test_rng_next(&rng) % LEAVES;
  czk_fc_path_level path[CZK_FC_MAX_PATH];
  size_t nl = 0;
  CHECK(czk_fc_tree_prove(tree, idx, path, &nl) == CZK_OK && nl == LEVELS);
  CHECK(czk_fc_merkle_verify(CZK_FC_POSEIDON, root, leaves + 32 * idx, path, nl) == CZK_OK);

  /* shape (blank circuit) and keys */
  czk_fc_por blank = {ARITY, 0, 0, LEVELS, NULL, {0}, {0}, false, CZK_FC_POSEIDON, NULL, NULL};
  czk_cs *cs;
  CHECK(czk_cs_shape_new(&cs) == CZK_OK);
  CHECK(build(cs, &blank) == CZK_OK);
  czk_r1cs *shape = NULL;
  CHECK(czk_cs_shape_finish(cs, &shape) == CZK_OK);
  if (!shape) return czk_test_done("test_fc_groth16");
  fprintf(stderr, "PoR octree circuit: %u constraints (incl. inputs), %u inputs, %u aux, domain 2^%u\n",
          shape->n_constraints, shape->n_inputs, shape->n_aux, shape->log_domain);
  char params[128], vkp[128];
  snprintf(params, sizeof params, "/tmp/czk-test-por-%d.params", (int)getpid());
  snprintf(vkp, sizeof vkp, "/tmp/czk-test-por-%d.vk", (int)getpid());
  CHECK(czk_groth16_setup(shape, params, vkp, NULL) == CZK_OK);
  czk_groth16_pk *pk = NULL;
  CHECK(czk_groth16_pk_open(&pk, params) == CZK_OK);
  czk_groth16_vk vk;
  CHECK(czk_groth16_vk_read(&vk, vkp, false) == CZK_OK);

  /* witness for the real leaf */
  czk_fc_por por = {ARITY, 0, 0, nl, path, {0}, {0}, false, CZK_FC_POSEIDON, NULL, NULL};
  memcpy(por.leaf, leaves + 32 * idx, 32);
  memcpy(por.root, root, 32);
  czk_witness w;
  CHECK(czk_cs_witness_new(&cs, 0, 0) == CZK_OK);
  CHECK(build(cs, &por) == CZK_OK);
  CHECK(czk_cs_witness_finish(cs, &w) == CZK_OK);
  size_t row;
  CHECK(czk_r1cs_check(shape, &w, &row, NULL) == CZK_OK);
  size_t n_pub;
  const czk_fr *pub = czk_groth16_public_inputs(&w, &n_pub);
  CHECK_EQ_INT(n_pub, 2); /* packed path bits, root */
  czk_fr root_fr;
  CHECK(czk_fr_from_bytes_le(&root_fr, root) == CZK_OK);
  CHECK(n_pub == 2 && czk_fr_eq(&pub[1], &root_fr));
  czk_fr idx_fr;
  czk_fr_from_u64(&idx_fr, idx);
  CHECK(n_pub == 2 && czk_fr_eq(&pub[0], &idx_fr)); /* 9 path bits little-endian = the leaf index */
  czk_fr *inputs = malloc(n_pub * sizeof *inputs);
  memcpy(inputs, pub, n_pub * sizeof *inputs);

  czk_groth16_key *key = NULL;
  CHECK(czk_groth16_key_from_pk(&key, pk, shape, NULL) == CZK_OK);
  czk_groth16_proof proof;
  CHECK(czk_groth16_prove(&proof, NULL, key, shape, &w, NULL) == CZK_OK);
  CHECK(czk_groth16_verify(&vk, &proof, inputs, n_pub) == CZK_OK);
  uint8_t enc[CZK_GROTH16_PROOF_BYTES];
  czk_groth16_proof_encode(enc, &proof);
  czk_groth16_proof back;
  CHECK(czk_groth16_proof_decode(&back, enc) == CZK_OK && czk_groth16_verify(&vk, &back, inputs, n_pub) == CZK_OK);

  /* wrong root / wrong index / tampered proof */
  czk_fr saved = inputs[1];
  czk_fr one;
  czk_fr_set_one(&one);
  czk_fr_add(&inputs[1], &inputs[1], &one);
  CHECK(czk_groth16_verify(&vk, &proof, inputs, n_pub) == CZK_ERR_VERIFY_FAILED);
  inputs[1] = saved;
  czk_fr_add(&inputs[0], &inputs[0], &one);
  CHECK(czk_groth16_verify(&vk, &proof, inputs, n_pub) == CZK_ERR_VERIFY_FAILED);
  inputs[0] = idx_fr;
  czk_groth16_proof bad = proof;
  czk_g1 t;
  czk_g1_from_affine(&t, &bad.c);
  czk_g1 g;
  czk_g1_generator(&g);
  czk_g1_add(&t, &t, &g);
  czk_g1_to_affine(&bad.c, &t);
  CHECK(czk_groth16_verify(&vk, &bad, inputs, n_pub) == CZK_ERR_VERIFY_FAILED);

  /* a leaf that is not in the tree: the witness does not satisfy the circuit and the prover refuses it */
  por.leaf[0] ^= 1;
  CHECK(czk_cs_witness_new(&cs, 0, 0) == CZK_OK);
  CHECK(build(cs, &por) == CZK_OK);
  czk_witness w2;
  CHECK(czk_cs_witness_finish(cs, &w2) == CZK_OK);
  CHECK(czk_r1cs_check(shape, &w2, &row, NULL) == CZK_ERR_UNSATISFIED);
  czk_groth16_proof p2;
  CHECK(czk_groth16_prove(&p2, NULL, key, shape, &w2, NULL) == CZK_ERR_UNSATISFIED);
  czk_groth16_key_free(key);

  free(inputs);
  czk_groth16_vk_free(&vk);
  czk_groth16_pk_close(pk);
  czk_r1cs_free(shape);
  czk_fc_tree_free(tree);
  free(leaves);
  unlink(params);
  unlink(vkp);
  return czk_test_done("test_fc_groth16");
}
