/* cmd_snap.c: the SnapDeals (EmptySectorUpdate) forms of the Filecoin commands (cmd_filecoin.c dispatches here):
 *   czk circuit-info snap --sector-size S [--json]              counts of one partition by counting synthesis
 *   czk gen-vanilla snap --sector-size S [--seed X] [--sparse|--dense] --out DIR
 *                                                               a valid update: partition-<k>.bin + request.json
 *   czk setup --kind snap --sector-size S --out DIR             a key pair of our own under the v28 name
 *   czk verify --request R --proof P --params DIR               every partition's proof against recomputed inputs */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/atomicfile.h"
#include "cli/cli.h"
#include "core/clock.h"
#include "czk/groth16.h"
#include "czk/snap.h"
#include "filecoin/request.h"

static const czk_snap_info *snap_lookup(const char *cmd, const char *size) {
  uint64_t bytes;
  if (!size || !czk__parse_size(size, &bytes)) {
    fprintf(stderr, "czk %s: --sector-size must be a size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)\n", cmd);
    return NULL;
  }
  const czk_snap_info *info = czk_snap_info_for_size(bytes);
  if (!info) fprintf(stderr, "czk %s: snap has no registered update proof for sector size %s\n", cmd, size);
  return info;
}

static int mkdir_p(const char *dir) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

bool czk__first_positional_is(int argc, char **argv, const char *word) {
  /* options of the Filecoin commands that take no value; every other "--x" takes the next argument */
  static const char *flags[] = {"--sparse", "--dense", "--json", "--help", "-h"};
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-') {
      bool flag = strchr(argv[i], '=') != NULL;
      for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) flag = flag || strcmp(argv[i], flags[f]) == 0;
      if (!flag) i++; /* its value */
      continue;
    }
    return strcmp(argv[i], word) == 0;
  }
  return false;
}

/* ------------------------------------------------------------------------------------------------ circuit-info */

int czk__cmd_circuit_info_snap(const char *size, bool json, bool witness) {
  const czk_snap_info *info = snap_lookup("circuit-info", size);
  if (!info) return 2;
  double t0 = czk__now_s();
  czk_cs *cs;
  czk_cs_counts n;
  czk_snap_instance inst = {.info = info};
  czk_status st = czk_cs_counter_new(&cs);
  if (st == CZK_OK) {
    st = czk_snap_synthesize(cs, &inst);
    if (st == CZK_OK) st = czk_cs_counter_result(cs, &n);
    czk_cs_free(cs);
  }
  double secs = czk__now_s() - t0;
  czk_fr *w = NULL;
  const size_t nw = st == CZK_OK ? (size_t)(n.n_inputs + n.n_aux) : 0;
  double wsecs = 0;
  if (st == CZK_OK && witness) { /* partition 0 of a generated update (sparse above 8MiB) */
    double tw = czk__now_s();
    czk_snap_gen_input gin = {.mode = info->sector_size <= (8ull << 20) ? CZK_SNAP_GEN_DENSE : CZK_SNAP_GEN_SPARSE,
                              .seed = 1};
    czk_snap_update u;
    memset(&u, 0, sizeof u);
    w = czk_alloc_big(nw * sizeof(czk_fr));
    st = w ? czk_snap_generate(info, &gin, &u) : CZK_ERR_NOMEM;
    if (st == CZK_OK) {
      czk_snap_instance wi = {.info = info, .k = 0, .comms = &u.comms, .part = &u.parts[0]};
      st = czk_snap_witness(&wi, NULL, w);
      czk_snap_update_free(&u);
    }
    wsecs = czk__now_s() - tw;
  }
  if (st != CZK_OK) {
    fprintf(stderr, "czk circuit-info: %s%s\n", witness ? "the generated witness: " : "", czk_status_str(st));
    free(w);
    return 1;
  }
  char stem[200];
  czk_snap_param_stem(info, stem, sizeof stem);
  if (json) {
    printf("{\"kind\":\"snap\",\"sector_size\":%llu,\"registered_proof\":%llu,\"circuit_id\":\"%s\",\"params\":\"%s\","
           "\"partitions\":%u,\"challenges\":%u,\"constraints\":%llu,\"constraints_with_inputs\":%llu,"
           "\"public_inputs\":%llu,\"aux\":%llu,\"nnz_a\":%llu,\"nnz_b\":%llu,\"nnz_c\":%llu,\"a_aux_density\":%llu,"
           "\"b_input_density\":%llu,\"b_aux_density\":%llu,\"log_domain\":%u,\"seconds\":%.3f",
           (unsigned long long)info->sector_size, (unsigned long long)info->wire, czk_snap_circuit_id(info), stem,
           info->partitions, info->challenges, (unsigned long long)n.n_user_constraints,
           (unsigned long long)n.n_constraints, (unsigned long long)n.n_inputs, (unsigned long long)n.n_aux,
           (unsigned long long)n.nnz_a, (unsigned long long)n.nnz_b, (unsigned long long)n.nnz_c,
           (unsigned long long)n.a_aux_count, (unsigned long long)n.b_input_count, (unsigned long long)n.b_aux_count,
           n.log_domain, secs);
    if (w) czk__print_witness_fractions(w, nw, wsecs, true);
    printf("}\n");
    free(w);
    return 0;
  }
  char a[40], b[40];
  printf("snap %s (%s, one of %u partitions, %u challenges each; circuit id %s)\n", info->size_name, info->name,
         info->partitions, info->challenges, czk_snap_circuit_id(info));
  printf("  parameters           %s.params\n", stem);
  czk__group(a, sizeof a, n.n_user_constraints), czk__group(b, sizeof b, n.n_constraints);
  printf("  constraints          %s (with the %llu input constraints: %s)\n", a, (unsigned long long)n.n_inputs, b);
  printf("  public inputs        %llu (ONE, k_and_h_select, comm_r_old, comm_d_new, comm_r_new)\n",
         (unsigned long long)n.n_inputs);
  czk__print_counts_tail(&n, secs);
  if (w) czk__print_witness_fractions(w, nw, wsecs, false);
  free(w);
  return 0;
}

/* ------------------------------------------------------------------------------------------------ gen-vanilla */
int czk__cmd_gen_vanilla_snap(int argc, char **argv) {
  static const char *usage =
      "usage: czk gen-vanilla snap --sector-size S --out DIR [options]\n"
      "  A valid SnapDeals update (new data encoded into an old replica: TreeR_old, TreeD_new, TreeR_new) and its\n"
      "  partition proofs: DIR/partition-<k>.bin (bincode PartitionProof, as Curio sends them, k = 0 .. P-1) and\n"
      "  DIR/request.json (registered proof, comm_r_old, comm_d_new, comm_r_new; `czk prove --request`,\n"
      "  `czk verify --request`).\n"
      "  --seed X             old replica, new data and comm_c derive from X (default 1)\n"
      "  --sparse / --dense   replica and data uniform on the 2^(d-h)-node blocks rho is constant on, only the\n"
      "                       opened paths and apex rows built (any size) / every node (2KiB, 8MiB)\n"
      "                       (default: dense up to 8MiB, sparse above)\n"
      "  --miner M            actor id (default 1000)\n"
      "  --sector-number N    sector number (informational; default 1)\n";
  const char *size = NULL, *out = NULL;
  uint64_t seed = 1, miner = 1000, sector = 1;
  int mode = -1;
  static const struct option lo[] = {{"sector-size", 1, 0, 's'}, {"out", 1, 0, 'o'},   {"seed", 1, 0, 'x'},
                                     {"sparse", 0, 0, 'S'},      {"dense", 0, 0, 'D'}, {"miner", 1, 0, 'm'},
                                     {"sector-number", 1, 0, 'n'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  optind = 1;
  int c;
  char *end = NULL;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    errno = 0;
    switch (c) {
    case 's': size = optarg; break;
    case 'o': out = optarg; break;
    case 'x': seed = strtoull(optarg, &end, 10); break;
    case 'm': miner = strtoull(optarg, &end, 10); break;
    case 'n': sector = strtoull(optarg, &end, 10); break;
    case 'S': mode = CZK_SNAP_GEN_SPARSE; break;
    case 'D': mode = CZK_SNAP_GEN_DENSE; break;
    case 'h': return printf("%s", usage), 0;
    default: return fprintf(stderr, "%s", usage), 2;
    }
    if (errno || (strchr("xmn", c) && (*end || !*optarg)))
      return fprintf(stderr, "czk gen-vanilla: bad number '%s'\n", optarg), 2;
  }
  if (optind != argc - 1 || strcmp(argv[optind], "snap") != 0 || !out) return fprintf(stderr, "%s", usage), 2;
  const czk_snap_info *info = snap_lookup("gen-vanilla", size);
  if (!info) return 2;
  if (mode < 0) mode = info->sector_size <= (8ull << 20) ? CZK_SNAP_GEN_DENSE : CZK_SNAP_GEN_SPARSE;
  if (mode == CZK_SNAP_GEN_DENSE && info->sector_size > (8ull << 20))
    return fprintf(stderr, "czk gen-vanilla: --dense builds sectors up to 8MiB; use --sparse for %s\n", info->size_name),
           2;
  return czk__gen_vanilla_snap_to(info, mode, seed, miner, sector, out, false);
}

int czk__gen_vanilla_snap_to(const czk_snap_info *info, int mode, uint64_t seed, uint64_t miner, uint64_t sector,
                             const char *out, bool quiet) {
  if (mkdir_p(out) != 0) return fprintf(stderr, "czk gen-vanilla: cannot create %s\n", out), 1;
  double t0 = czk__now_s();
  czk_snap_gen_input in = {.mode = (czk_snap_gen_mode)mode, .seed = seed};
  czk_snap_update u;
  czk_status st = czk_snap_generate(info, &in, &u);
  if (st != CZK_OK) return fprintf(stderr, "czk gen-vanilla: %s: %s\n", info->name, czk_status_str(st)), 1;
  size_t vsize = czk_snap_partition_size(info);
  uint8_t *buf = malloc(vsize);
  char **names = calloc(u.n_parts, sizeof *names);
  int rc = buf && names ? 0 : 1;
  czk__fc_request r;
  memset(&r, 0, sizeof r);
  for (uint32_t k = 0; k < u.n_parts && rc == 0; k++) {
    names[k] = malloc(32);
    if (!names[k] || czk_snap_partition_write(info, &u.parts[k], buf, vsize) != CZK_OK) {
      rc = 1;
      break;
    }
    char path[4200];
    snprintf(names[k], 32, "partition-%u.bin", k);
    snprintf(path, sizeof path, "%s/%s", out, names[k]);
    if (czk__write_file_atomic(path, buf, vsize) != CZK_OK) rc = 1;
    if (rc) fprintf(stderr, "czk gen-vanilla: cannot write %s\n", path);
  }
  if (rc == 0) {
    snprintf(r.kind, sizeof r.kind, "snap");
    r.proof_kind = 2;
    r.registered_proof = info->wire;
    r.sector_size = info->sector_size;
    r.miner_id = miner;
    r.sector_number = sector;
    r.n_vanilla = u.n_parts;
    r.has_comms = true;
    memcpy(r.comm_r_old, u.comms.comm_r_old, 32);
    memcpy(r.comm_d_new, u.comms.comm_d_new, 32);
    memcpy(r.comm_r_new, u.comms.comm_r_new, 32);
    if (czk__fc_request_write(out, &r, (const char *const *)names) != 0) {
      fprintf(stderr, "czk gen-vanilla: cannot write %s/request.json\n", out);
      rc = 1;
    }
  }
  if (rc == 0 && !quiet)
    printf("%s: %u %s partition proof(s) of %zu bytes (%s, %s), request.json; %.2f s\n", out, u.n_parts, info->name,
           vsize, mode == CZK_SNAP_GEN_DENSE ? "dense" : "sparse", info->size_name, czk__now_s() - t0);
  for (uint32_t k = 0; names && k < u.n_parts; k++) free(names[k]);
  free(names);
  free(buf);
  czk_snap_update_free(&u);
  return rc;
}

/* ------------------------------------------------------------------------------------------------ setup */
/* ------------------------------------------------------------------------------------------------ verify */
/* Every partition proof of the request parsed and natively checked, its public inputs recomputed from the
 * request's commitments, and partition k's 192-byte proof (at offset 192 k of the proof file) verified against the
 * .vk found by its v28 name. */
int czk__verify_snap(const czk__fc_request *r, const char *req, const char *proof, const char *params, FILE *out,
                     czk__verify_result *res) {
  const czk_snap_info *info = czk_snap_info_by_wire(r->registered_proof);
  if (info) res->partitions = info->partitions;
  if (!info || !r->has_comms) {
    fprintf(stderr, "czk verify: %s: a SnapDeals request needs an update registered_proof (0-4) and the commitments\n",
            req);
    return 1;
  }
  if (r->n_vanilla != info->partitions) {
    fprintf(stderr, "czk verify: %s: %zu partition proofs; %s has %u partitions\n", req, r->n_vanilla, info->name,
            info->partitions);
    return 1;
  }
  czk_snap_comms comms;
  memcpy(comms.comm_r_old, r->comm_r_old, 32);
  memcpy(comms.comm_d_new, r->comm_d_new, 32);
  memcpy(comms.comm_r_new, r->comm_r_new, 32);
  char err[512], which[32], stem[200], path[4400];
  for (uint32_t k = 0; k < info->partitions; k++) {
    czk_snap_partition p;
    snprintf(which, sizeof which, "partition %u", k);
    czk_status st = czk_snap_partition_parse(info, r->vanilla[k], r->vanilla_len[k], &p, which, err, sizeof err);
    if (st == CZK_OK) st = czk_snap_check(info, &comms, &p, k, which, err, sizeof err);
    czk_snap_partition_free(&p);
    if (st != CZK_OK) return fprintf(stderr, "czk verify: %s: %s\n", req, err), 1;
  }
  czk_snap_param_stem(info, stem, sizeof stem);
  snprintf(path, sizeof path, "%s/%s.vk", params, stem);
  czk_groth16_vk vk;
  czk_status st = czk_groth16_vk_read(&vk, path, false);
  if (st != CZK_OK) return fprintf(stderr, "czk verify: %s: %s\n", path, czk_status_str(st)), 1;
  size_t want = (size_t)info->partitions * CZK_GROTH16_PROOF_BYTES, got = 0;
  uint8_t *pb = malloc(want + 1);
  FILE *f = pb ? fopen(proof, "rb") : NULL;
  if (f) got = fread(pb, 1, want + 1, f), fclose(f);
  int rc = 1;
  if (got != want) {
    fprintf(stderr, "czk verify: %s: not %u partition proofs of %d bytes\n", proof, info->partitions,
            CZK_GROTH16_PROOF_BYTES);
  } else {
    rc = 0;
    for (uint32_t k = 0; k < info->partitions; k++) {
      czk_fr pub[CZK_SNAP_PUBLIC_INPUTS];
      czk_groth16_proof p;
      st = czk_snap_public_inputs(info, &comms, k, pub);
      if (st == CZK_OK) st = czk_groth16_proof_decode(&p, pb + (size_t)k * CZK_GROTH16_PROOF_BYTES);
      if (st == CZK_OK) st = czk_groth16_verify(&vk, &p, pub, CZK_SNAP_PUBLIC_INPUTS);
      if (st == CZK_OK) {
        res->verified++;
      } else {
        if (out) fprintf(out, "INVALID: partition %u: %s\n", k, czk_status_str(st));
        rc = 1;
      }
    }
    if (rc == 0 && out)
      fprintf(out, "OK: %s proof verifies (%u partitions, %d public inputs each)\n", info->name, info->partitions,
              CZK_SNAP_PUBLIC_INPUTS);
  }
  czk_groth16_vk_free(&vk);
  free(pb);
  return rc;
}
