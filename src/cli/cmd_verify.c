/* cmd_verify.c: `czk verify <circuit.vk> <public.json> <proof.bin>` (snarkjs argument order): checks a 192-byte
 * compressed proof against a bellperson .vk and a JSON array of decimal public inputs. A first argument ending in
 * .json selects the snarkjs form (verification_key.json / proof.json, cli_circom.h). Exit 0 = valid, 1 = invalid or
 * error. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_circom.h"
#include "core/mapfile.h"
#include "czk/groth16.h"

static void usage(FILE *out) {
  fprintf(out, "usage: czk verify <circuit.vk> <public.json> <proof.bin>\n"
               "       czk verify <verification_key.json> <public.json> <proof.json>   (snarkjs form)\n"
               "       czk verify --request DIR/request.json --proof proof.bin --params DIR   (Filecoin PoSt)\n");
}

static bool ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

/* ["123", "456"] -> inputs; strict: strings of digits only, commas between, nothing else. */
static czk_status parse_public(const char *s, czk_fr **out, size_t *n) {
  size_t cap = 0;
  *out = NULL;
  *n = 0;
  while (isspace((unsigned char)*s)) s++;
  if (*s++ != '[') return CZK_ERR_FORMAT;
  for (;;) {
    while (isspace((unsigned char)*s)) s++;
    if (*s == ']' && *n == 0) break;
    if (*s++ != '"') return CZK_ERR_FORMAT;
    const char *q = strchr(s, '"');
    if (!q || q == s || q - s > 79) return CZK_ERR_FORMAT;
    char dec[80];
    memcpy(dec, s, (size_t)(q - s));
    dec[q - s] = 0;
    for (const char *d = dec; *d; d++)
      if (!isdigit((unsigned char)*d)) return CZK_ERR_FORMAT;
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      czk_fr *t = realloc(*out, cap * sizeof *t);
      if (!t) return CZK_ERR_NOMEM;
      *out = t;
    }
    CZK_TRY(czk_fr_from_str(&(*out)[*n], dec));
    (*n)++;
    s = q + 1;
    while (isspace((unsigned char)*s)) s++;
    if (*s == ',') {
      s++;
      continue;
    }
    if (*s == ']') break;
    return CZK_ERR_FORMAT;
  }
  s++;
  while (isspace((unsigned char)*s)) s++;
  return *s ? CZK_ERR_FORMAT : CZK_OK;
}

int czk_cmd_verify(int argc, char **argv) {
  if (czk__has_opt(argc, argv, "--request")) return czk__cmd_verify_request(argc, argv);
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  if (argc >= 2 && ends_with(argv[1], ".json")) return czk__cmd_verify_snarkjs(argc, argv);
  if (argc != 4) {
    usage(stderr);
    return 2;
  }
  czk_groth16_vk vk;
  czk_status st = czk_groth16_vk_read(&vk, argv[1], false);
  if (st != CZK_OK) {
    fprintf(stderr, "czk verify: %s: %s\n", argv[1], czk_status_str(st));
    return 1;
  }
  int rc = 1;
  size_t len = 0, n = 0;
  czk_fr *inputs = NULL;
  uint8_t *pubb, *pb;
  czk__read_file(argv[2], 1 << 24, &pubb, &len); /* on failure pubb is NULL */
  char *pub = (char *)pubb;                        /* NUL-terminated */
  czk__read_file(argv[3], CZK_GROTH16_PROOF_BYTES, &pb, &len);
  czk_groth16_proof proof;
  if (!pub) {
    fprintf(stderr, "czk verify: cannot read %s\n", argv[2]);
  } else if ((st = parse_public(pub, &inputs, &n)) != CZK_OK) {
    fprintf(stderr, "czk verify: %s: %s\n", argv[2], czk_status_str(st));
  } else if (!pb || len != CZK_GROTH16_PROOF_BYTES) {
    fprintf(stderr, "czk verify: %s: expected a %d-byte proof\n", argv[3], CZK_GROTH16_PROOF_BYTES);
  } else if ((st = czk_groth16_proof_decode(&proof, pb)) != CZK_OK) {
    fprintf(stderr, "czk verify: %s: %s\n", argv[3], czk_status_str(st));
  } else if ((st = czk_groth16_verify(&vk, &proof, inputs, n)) != CZK_OK) {
    fprintf(stderr, "czk verify: %s\n", czk_status_str(st));
  } else {
    printf("OK\n");
    rc = 0;
  }
  free(inputs);
  free(pub);
  free(pb);
  czk_groth16_vk_free(&vk);
  return rc;
}
