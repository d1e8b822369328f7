/* cmd_circom.c: the snarkjs-compatible forms of `czk prove` and `czk verify` (cli_circom.h), dispatched here by
 * cmd_prove.c / cmd_verify.c on the file extension:
 *   czk prove  <circuit.zkey> <witness.wtns> <proof.json> <public.json> [--r1cs <circuit.r1cs>] [--no-verify]
 *   czk verify <verification_key.json> <public.json> <proof.json>
 * prove checks the witness against the key (length = nVars; prime = r is checked by the reader) and, given the
 * circuit's .r1cs, every constraint; the new proof is checked against the zkey's own verifying key before anything is
 * written (a corrupted key or witness gives no invalid proof.json), unless --no-verify.
 * verify exits 0 for a valid proof, 1 for an invalid one or unreadable input (as snarkjs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_circom.h"
#include "czk/snarkjs.h"

static void prove_usage(FILE *out) {
  fprintf(out,
          "usage: czk prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [--r1cs <circuit.r1cs>] "
          "[--no-verify]\n\n"
          "Proves a circom circuit with its snarkjs Groth16 key (BLS12-381), like `snarkjs groth16 prove` and\n"
          "rapidsnark; writes proof.json and public.json as snarkjs does.\n"
          "  --r1cs FILE  check that the witness satisfies every constraint of the circuit first\n"
          "  --no-verify  skip the check of the new proof against the key's verifying key (done by default before\n"
          "               anything is written; --verify is accepted and is the default)\n");
}

int czk__cmd_prove_zkey(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    prove_usage(stdout);
    return 0;
  }
  const char *pos[4] = {0}, *r1cs_path = NULL;
  int npos = 0;
  bool self_verify = true; /* off only by --no-verify */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--r1cs") == 0 && i + 1 < argc) {
      r1cs_path = argv[++i];
    } else if (strcmp(argv[i], "--verify") == 0) {
      self_verify = true;
    } else if (strcmp(argv[i], "--no-verify") == 0) {
      self_verify = false;
    } else if (argv[i][0] == '-' && argv[i][1] == '-') {
      fprintf(stderr, "czk prove: unknown option '%s'\n", argv[i]);
      prove_usage(stderr);
      return 2;
    } else if (npos < 4) {
      pos[npos++] = argv[i];
    } else {
      npos++;
    }
  }
  if (npos != 4) {
    prove_usage(stderr);
    return 2;
  }
  int rc = 1;
  czk_zkey *z = NULL;
  czk_circom_wtns w = {0};
  czk_circom_r1cs *r = NULL;
  czk_fr *pub = NULL;
  czk_groth16_vk vk = {0};
  czk_status st;
  if ((st = czk_zkey_open(&z, pos[0])) != CZK_OK) {
    fprintf(stderr, "czk prove: %s: %s\n", pos[0], czk_status_str(st));
    goto out;
  }
  if ((st = czk_circom_wtns_read(&w, pos[1])) != CZK_OK) {
    fprintf(stderr, "czk prove: %s: %s\n", pos[1], czk_status_str(st));
    goto out;
  }
  czk_zkey_info info;
  czk_zkey_get_info(z, &info);
  if (w.n != info.n_vars) {
    fprintf(stderr, "czk prove: the witness has %u values, the key expects %u\n", w.n, info.n_vars);
    goto out;
  }
  if (r1cs_path) {
    size_t row;
    if ((st = czk_circom_r1cs_read(&r, r1cs_path)) != CZK_OK) {
      fprintf(stderr, "czk prove: %s: %s\n", r1cs_path, czk_status_str(st));
      goto out;
    }
    if (czk_circom_r1cs_n_public(r) != info.n_public || r->n_wires != info.n_vars) {
      fprintf(stderr, "czk prove: %s does not match the key (%u public, %u wires vs %u, %u)\n", r1cs_path,
              czk_circom_r1cs_n_public(r), r->n_wires, info.n_public, info.n_vars);
      goto out;
    }
    if ((st = czk_circom_check(r, &w, &row, NULL)) != CZK_OK) {
      if (st == CZK_ERR_UNSATISFIED)
        fprintf(stderr, "czk prove: the witness does not satisfy constraint %zu of %s\n", row, r1cs_path);
      else
        fprintf(stderr, "czk prove: checking the witness: %s\n", czk_status_str(st));
      goto out;
    }
  }
  czk_groth16_proof proof;
  if ((st = czk_snarkjs_prove(&proof, z, &w, NULL, NULL)) != CZK_OK) {
    fprintf(stderr, "czk prove: %s\n", czk_status_str(st));
    goto out;
  }
  if ((st = czk_snarkjs_public_from_wtns(&pub, info.n_public, &w)) != CZK_OK) {
    fprintf(stderr, "czk prove: public signals: %s\n", czk_status_str(st));
    goto out;
  }
  if (self_verify) {
    if ((st = czk_zkey_vk(z, &vk)) == CZK_OK) st = czk_groth16_verify(&vk, &proof, pub, info.n_public);
    if (st != CZK_OK) {
      fprintf(stderr, "czk prove: the new proof does not verify against %s (a corrupted key or witness?): %s; nothing "
              "written\n", pos[0], czk_status_str(st));
      goto out;
    }
  }
  if ((st = czk_snarkjs_proof_write(pos[2], &proof)) != CZK_OK) {
    fprintf(stderr, "czk prove: writing %s: %s\n", pos[2], czk_status_str(st));
    goto out;
  }
  if ((st = czk_snarkjs_public_write(pos[3], pub, info.n_public)) != CZK_OK) {
    fprintf(stderr, "czk prove: writing %s: %s\n", pos[3], czk_status_str(st));
    goto out;
  }
  rc = 0;
out:
  czk_groth16_vk_free(&vk);
  free(pub);
  czk_circom_r1cs_free(r);
  czk_circom_wtns_free(&w);
  czk_zkey_close(z);
  return rc;
}

int czk__cmd_verify_snarkjs(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    printf("usage: czk verify <verification_key.json> <public.json> <proof.json>\n\n"
           "Verifies a snarkjs Groth16 proof (BLS12-381) like `snarkjs groth16 verify`: exit 0 when valid,\n"
           "1 when invalid (or unreadable: public values >= r, points off the curve or outside the subgroup).\n");
    return 0;
  }
  if (argc != 4) {
    fprintf(stderr, "usage: czk verify <verification_key.json> <public.json> <proof.json>\n");
    return 2;
  }
  czk_groth16_vk vk = {0};
  czk_groth16_proof proof;
  czk_fr *pub = NULL;
  size_t n = 0;
  int rc = 1;
  czk_status st;
  if ((st = czk_snarkjs_vk_read(&vk, argv[1])) != CZK_OK) {
    fprintf(stderr, "czk verify: %s: %s\n", argv[1], czk_status_str(st));
    goto out;
  }
  if ((st = czk_snarkjs_public_read(&pub, &n, argv[2])) != CZK_OK) {
    fprintf(stderr, "czk verify: %s: %s\n", argv[2], czk_status_str(st));
    goto out;
  }
  if ((st = czk_snarkjs_proof_read(&proof, argv[3])) != CZK_OK) {
    fprintf(stderr, "czk verify: %s: %s\n", argv[3], czk_status_str(st));
    goto out;
  }
  if (n + 1 != vk.n_ic) {
    fprintf(stderr, "czk verify: %zu public signals, the key expects %zu\n", n, vk.n_ic - 1);
    goto out;
  }
  st = czk_groth16_verify(&vk, &proof, pub, n);
  if (st == CZK_OK) {
    printf("OK: valid proof\n");
    rc = 0;
  } else {
    fprintf(stderr, "czk verify: invalid proof (%s)\n", czk_status_str(st));
  }
out:
  free(pub);
  czk_groth16_vk_free(&vk);
  return rc;
}
