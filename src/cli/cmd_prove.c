/* cmd_prove.c: `czk prove`: a Groth16 proof for one of our synthetic circuits with a bellperson .params key
 * (192-byte compressed proof + public inputs as a JSON array of decimal strings, the snarkjs public.json form).
 * A first argument ending in .zkey selects the snarkjs/rapidsnark form (cli_circom.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "circuits/synthetic.h"
#include "cli/cli.h"
#include "cli/cli_circom.h"
#include "czk/groth16.h"

int czk__cmd_prove_remote(int argc, char **argv); /* cmd_client.c: czk prove --kind ... through a daemon */

static void usage(FILE *out) {
  fprintf(out, "usage: czk prove <circuit.params> <k> <seed> <proof.bin> <public.json> [--shape <circuit.r1cs>] "
               "[--no-verify]\n"
               "       czk prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>   (snarkjs form)\n"
               "       czk prove --kind KIND [options]   (through a running daemon; czk prove --kind x --help)\n"
               "       czk prove --request DIR/request.json --out proof.bin   (a Filecoin request, through the daemon)\n"
               "  Proves the synthetic circuit of 2^k constraints with the witness generated from <seed>; the\n"
               "  shape is recompiled unless --shape gives the file written by `czk setup --shape`. The new proof\n"
               "  is verified against the key before anything is written (a corrupted key gives an error, not an\n"
               "  invalid proof); --no-verify skips that.\n");
}

static bool ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

static int write_outputs(const char *proof_path, const char *public_path, const czk_groth16_proof *p,
                         const czk_witness *w) {
  uint8_t enc[CZK_GROTH16_PROOF_BYTES];
  czk_groth16_proof_encode(enc, p);
  if (czk__write_file_atomic(proof_path, enc, sizeof enc) != CZK_OK) {
    fprintf(stderr, "czk prove: cannot write %s\n", proof_path);
    return 1;
  }
  czk__afile af; /* temp + fsync + rename */
  if (czk__afile_open(&af, public_path, "w") != CZK_OK) {
    fprintf(stderr, "czk prove: cannot write %s\n", public_path);
    return 1;
  }
  FILE *f = af.f;
  size_t n;
  const czk_fr *x = czk_groth16_public_inputs(w, &n);
  fputs("[", f);
  for (size_t i = 0; i < n; i++) {
    char dec[80];
    czk_fr_to_dec(dec, &x[i]);
    fprintf(f, "%s\n \"%s\"", i ? "," : "", dec);
  }
  fputs("\n]\n", f);
  if (czk__afile_commit(&af) != CZK_OK) {
    fprintf(stderr, "czk prove: cannot write %s\n", public_path);
    return 1;
  }
  return 0;
}

int czk_cmd_prove(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--kind") == 0 || strncmp(argv[i], "--kind=", 7) == 0 || strcmp(argv[i], "--request") == 0 ||
        strncmp(argv[i], "--request=", 10) == 0) {
#if CZK_HAVE_API
      return czk__cmd_prove_remote(argc, argv);
#else
      fprintf(stderr, "czk prove: this czk was built without the daemon client (gRPC); see scripts/deps.sh\n");
      return 1;
#endif
    }
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  if (argc >= 2 && ends_with(argv[1], ".zkey")) return czk__cmd_prove_zkey(argc, argv);
  const char *shape_path = NULL;
  bool self_verify = true; /* the new proof is verified against the key's vk before anything is written */
  char *pos[5];
  int np = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
      shape_path = argv[++i];
    else if (strcmp(argv[i], "--no-verify") == 0)
      self_verify = false;
    else if (strcmp(argv[i], "--verify") == 0)
      self_verify = true;
    else if (argv[i][0] == '-' || np == 5) {
      usage(stderr);
      return 2;
    } else
      pos[np++] = argv[i];
  }
  if (np != 5) {
    usage(stderr);
    return 2;
  }
  char *e1, *e2;
  unsigned long k = strtoul(pos[1], &e1, 10);
  unsigned long long seed = strtoull(pos[2], &e2, 0);
  if (*e1 || *e2 || k < CZK_SYNTHETIC_MIN_LOG || k > CZK_SYNTHETIC_MAX_LOG) {
    fprintf(stderr, "czk prove: bad <k> or <seed>\n");
    return 2;
  }
  czk_groth16_pk *pk = NULL;
  czk_r1cs *shape = NULL;
  czk_witness w = {0};
  czk_groth16_proof proof;
  int rc = 1;
  czk_status st = czk_groth16_pk_open(&pk, pos[0]);
  if (st != CZK_OK) {
    fprintf(stderr, "czk prove: %s: %s\n", pos[0], czk_status_str(st));
    goto out;
  }
  st = shape_path ? czk_r1cs_load(&shape, shape_path) : czk_synthetic_shape(&shape, (unsigned)k);
  if (st == CZK_OK && shape->log_domain != k) st = CZK_ERR_SIZE_MISMATCH;
  if (st != CZK_OK) {
    fprintf(stderr, "czk prove: circuit shape%s%s: %s\n", shape_path ? " " : "", shape_path ? shape_path : "",
            czk_status_str(st));
    goto out;
  }
  st = czk_synthetic_witness(&w, (unsigned)k, seed);
  czk_witness inputs_copy = w; /* the prover consumes w; keep the public inputs */
  czk_fr *pub = NULL;
  if (st == CZK_OK) {
    pub = malloc(w.n_inputs * sizeof *pub);
    if (!pub) st = CZK_ERR_NOMEM;
    else memcpy(pub, w.w, w.n_inputs * sizeof *pub);
  }
  czk_groth16_key *key = NULL;
  if (st == CZK_OK) st = czk_groth16_key_from_pk(&key, pk, shape, NULL);
  if (st == CZK_OK) st = czk_groth16_prove(&proof, NULL, key, shape, &w, NULL);
  else czk_witness_free(&w);
  czk_groth16_key_free(key);
  if (st != CZK_OK) {
    fprintf(stderr, "czk prove: %s\n", czk_status_str(st));
    free(pub);
    goto out;
  }
  if (self_verify) {
    st = czk_groth16_verify(czk_groth16_pk_vk(pk), &proof, pub + 1, inputs_copy.n_inputs - 1);
    if (st != CZK_OK) {
      fprintf(stderr, "czk prove: the new proof does not verify against %s (a corrupted key?): %s; nothing written\n",
              pos[0], czk_status_str(st));
      free(pub);
      goto out;
    }
  }
  inputs_copy.w = pub;
  inputs_copy.n_aux = 0;
  rc = write_outputs(pos[3], pos[4], &proof, &inputs_copy);
  free(pub);
out:
  czk_witness_free(&w);
  czk_r1cs_free(shape);
  czk_groth16_pk_close(pk);
  return rc;
}
