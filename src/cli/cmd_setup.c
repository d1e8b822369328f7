/* cmd_setup.c: `czk setup`: Groth16 keys (bellperson .params + .vk) for a synthetic circuit of 2^k constraints,
 * from fresh OS randomness; optionally also the compiled circuit shape (.r1cs file, memory-mapped by later runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuits/synthetic.h"
#include "cli/cli.h"
#include "core/clock.h"
#include "czk/groth16.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: czk setup <k> <out.params> <out.vk> [--shape <out.r1cs>]\n"
          "  Keys for the synthetic circuit with 2^k constraints (%u <= k <= %u), bellperson layout.\n"
          "  Prove with: czk prove <out.params> <k> <seed> <proof.bin> <public.json>\n"
          "       czk setup --kind KIND --sector-size S --out DIR   (Filecoin: czk setup --kind x --help)\n",
          CZK_SYNTHETIC_MIN_LOG, CZK_SYNTHETIC_MAX_LOG);
}

int czk_cmd_setup(int argc, char **argv) {
  if (czk__has_opt(argc, argv, "--kind")) return czk__cmd_setup_kind(argc, argv);
  if (czk__wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  const char *shape_path = NULL;
  char *pos[3];
  int np = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
      shape_path = argv[++i];
    else if (argv[i][0] == '-' || np == 3) {
      usage(stderr);
      return 2;
    } else
      pos[np++] = argv[i];
  }
  if (np != 3) {
    usage(stderr);
    return 2;
  }
  char *end;
  unsigned long k = strtoul(pos[0], &end, 10);
  if (*end || k < CZK_SYNTHETIC_MIN_LOG || k > CZK_SYNTHETIC_MAX_LOG) {
    fprintf(stderr, "czk setup: k must be an integer in [%u, %u]\n", CZK_SYNTHETIC_MIN_LOG, CZK_SYNTHETIC_MAX_LOG);
    return 2;
  }
  double t0 = czk__now_s();
  czk_r1cs *shape;
  czk_status st = czk_synthetic_shape(&shape, (unsigned)k);
  if (st != CZK_OK) {
    fprintf(stderr, "czk setup: circuit: %s\n", czk_status_str(st));
    return 1;
  }
  if (shape_path && (st = czk_r1cs_save(shape, shape_path)) != CZK_OK) {
    fprintf(stderr, "czk setup: %s: %s\n", shape_path, czk_status_str(st));
    czk_r1cs_free(shape);
    return 1;
  }
  double t1 = czk__now_s();
  st = czk_groth16_setup(shape, pos[1], pos[2], NULL);
  double t2 = czk__now_s();
  if (st != CZK_OK) {
    fprintf(stderr, "czk setup: %s\n", czk_status_str(st));
    czk_r1cs_free(shape);
    return 1;
  }
  printf("synthetic 2^%lu: %u constraints, %u inputs, %u aux; shape %.3f s, setup %.3f s -> %s, %s\n", k,
         shape->n_constraints, shape->n_inputs, shape->n_aux, t1 - t0, t2 - t1, pos[1], pos[2]);
  czk_r1cs_free(shape);
  return 0;
}
