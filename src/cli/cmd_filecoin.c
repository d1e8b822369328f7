/* cmd_filecoin.c: the Filecoin commands of `czk`:
 *   czk circuit-info KIND --sector-size S [--json]     counts of the real circuit, by counting synthesis
 *   czk gen-vanilla KIND --sector-size S ... --out DIR  valid vanilla proofs + request.json (czk/post.h generator)
 *   czk setup --kind KIND --sector-size S --out DIR    a key pair of our own under the v28 names
 *   czk verify --request R --proof P --params DIR      standalone verification with recomputed public inputs
 * KIND: winning-post, window-post (and porep for circuit-info, setup and verify; snap: cmd_snap.c). Sector sizes: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB (or bytes). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/atomicfile.h"
#include "cli/cli.h"
#include "filecoin/request.h"
#include "core/clock.h"
#include "czk/groth16.h"
#include "czk/kinds.h"
#include "czk/porep.h"
#include "czk/post.h"

static int kind_type(const char *kind, czk_post_type *t) {
  if (strcmp(kind, "winning-post") == 0) *t = CZK_POST_WINNING;
  else if (strcmp(kind, "window-post") == 0) *t = CZK_POST_WINDOW;
  else return -1;
  return 0;
}

static const czk_post_info *lookup(const char *cmd, const char *kind, const char *size, unsigned api_minor) {
  czk_post_type t;
  uint64_t bytes;
  if (!kind || kind_type(kind, &t) != 0) {
    fprintf(stderr, "czk %s: unknown kind '%s' (winning-post, window-post)\n", cmd, kind ? kind : "");
    return NULL;
  }
  if (!size || !czk__parse_size(size, &bytes)) {
    fprintf(stderr, "czk %s: --sector-size must be a size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)\n", cmd);
    return NULL;
  }
  const czk_post_info *info = czk_post_info_find(t, bytes, api_minor);
  if (!info) fprintf(stderr, "czk %s: %s has no registered proof for sector size %s\n", cmd, kind, size);
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

/* ------------------------------------------------------------------------------------------------ circuit-info */
void czk__group(char *out, size_t len, uint64_t v) {
  char d[32];
  int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v), k = 0;
  for (int i = 0; i < n && (size_t)k + 2 < len; i++) {
    if (i && (n - i) % 3 == 0) out[k++] = ',';
    out[k++] = d[i];
  }
  out[k] = 0;
}

/* circuit-info's lines from the aux count on (every kind prints them alike). */
void czk__print_counts_tail(const czk_cs_counts *c, double secs) {
  char a[40];
  const struct {
    const char *label;
    uint64_t v;
  } rows[] = {{"aux variables     ", c->n_aux},       {"non-zeros A       ", c->nnz_a},
              {"non-zeros B       ", c->nnz_b},       {"non-zeros C       ", c->nnz_c},
              {"density A aux     ", c->a_aux_count}, {"density B input   ", c->b_input_count},
              {"density B aux     ", c->b_aux_count}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    czk__group(a, sizeof a, rows[i].v);
    printf("  %s   %s\n", rows[i].label, a);
  }
  printf("  FFT domain           2^%u\n", c->log_domain);
  printf("  counted in           %.2f s\n", secs);
}

/* circuit-info --witness: the zero / one / other fractions of one partition's witness w (n values), from a generated
 * input, in words or as JSON fields (json: the caller's object is still open). */
void czk__print_witness_fractions(const czk_fr *w, size_t n, double secs, bool json) {
  double f[3];
  czk_witness_fractions(w, n, f);
  if (json) {
    printf(",\"witness_zero\":%.6f,\"witness_one\":%.6f,\"witness_other\":%.6f,\"witness_seconds\":%.3f", f[0], f[1],
           f[2], secs);
    return;
  }
  printf("  witness (generated)  %.1f%% zero, %.1f%% one, %.1f%% other (partition 0, %.2f s)\n", 100 * f[0], 100 * f[1],
         100 * f[2], secs);
}

/* One partition's witness of a generated (sparse) input: PoRep (pinfo) or PoSt (info); *w malloc'd. */
static czk_status generated_witness(const czk_porep_info *pinfo, const czk_post_info *info, const czk_cs_counts *n,
                                    czk_fr **w) {
  *w = czk_alloc_big((size_t)(n->n_inputs + n->n_aux) * sizeof(czk_fr));
  if (!*w) return CZK_ERR_NOMEM;
  czk_status st = CZK_OK;
  if (pinfo) {
    czk_porep_c1 c1;
    st = czk_porep_generate(pinfo, pinfo->sector_size <= (8ull << 20) ? CZK_POREP_GEN_DENSE : CZK_POREP_GEN_SPARSE, 1,
                            1000, 1, &c1);
    if (st != CZK_OK) return st;
    czk_porep_circuit pc;
    czk_porep_circuit_of(pinfo, &pc);
    czk_porep_partition vals;
    czk_porep_c1_partition(&c1, 0, &vals);
    st = czk_porep_witness(&pc, &vals, NULL, *w, n->n_inputs, n->n_aux);
    czk_porep_c1_free(&c1);
    return st;
  }
  czk_post_sector *sec = calloc(info->sector_count, sizeof *sec);
  if (!sec) return CZK_ERR_NOMEM;
  uint8_t rnd[32];
  for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)(i * 7 + 1);
  rnd[31] &= 0x3f;
  uint32_t made = 0;
  for (; made < info->sector_count && st == CZK_OK; made++)
    st = czk_post_generate(info, CZK_POST_GEN_SPARSE, 1, 1000 + made, made, rnd, NULL, NULL, &sec[made]);
  if (st != CZK_OK) made--; /* the failed one holds nothing */
  czk_post_instance inst = {.info = info, .sectors = sec, .n_sectors = info->sector_count};
  if (st == CZK_OK) st = czk_post_witness(&inst, NULL, *w);
  for (uint32_t i = 0; i < made; i++) czk_post_sector_free(&sec[i]);
  free(sec);
  return st;
}

int czk_cmd_circuit_info(int argc, char **argv) {
  static const char *usage = "usage: czk circuit-info KIND --sector-size S [--json] [--witness]\n"
                             "  KIND: winning-post, window-post, porep, snap (one partition). Runs the circuit's real synthesis in a counting mode\n"
                             "  (no matrices kept): constraints, inputs, aux, non-zeros of A/B/C, densities, domain.\n"
                             "  --witness: also one partition's witness from a generated input (sparse above 8MiB), and its zero / one /\n"
                             "  other fractions (what the witness MSMs skip, add without bucket work, and run Pippenger on).\n";
  const char *size = NULL, *kind = NULL;
  bool json = false, wit = false;
  static const struct option lo[] = {
      {"sector-size", 1, 0, 's'}, {"json", 0, 0, 'j'}, {"witness", 0, 0, 'w'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    if (c == 's') size = optarg;
    else if (c == 'j') json = true;
    else if (c == 'w') wit = true;
    else if (c == 'h') return printf("%s", usage), 0;
    else return fprintf(stderr, "%s", usage), 2;
  }
  if (optind != argc - 1) return fprintf(stderr, "%s", usage), 2;
  kind = argv[optind];
  if (strcmp(kind, "snap") == 0) return czk__cmd_circuit_info_snap(size, json, wit);
  const czk_post_info *info = NULL;
  const czk_porep_info *pinfo = NULL;
  if (strcmp(kind, "porep") == 0) {
    uint64_t bytes;
    if (!size || !czk__parse_size(size, &bytes) || !(pinfo = czk_porep_info_for_size(bytes))) {
      fprintf(stderr, "czk circuit-info: porep has no registered proof for sector size %s\n", size ? size : "(none)");
      return 2;
    }
  } else if (!(info = lookup("circuit-info", kind, size, 0))) {
    return 2;
  }
  double t0 = czk__now_s();
  czk_cs *cs;
  czk_cs_counts n;
  czk_status st = czk_cs_counter_new(&cs);
  if (st == CZK_OK && pinfo) {
    czk_porep_circuit pc;
    czk_porep_circuit_of(pinfo, &pc);
    st = czk_porep_synthesize(cs, &pc, NULL);
  } else if (st == CZK_OK) {
    czk_post_instance inst = {.info = info, .sectors = NULL, .n_sectors = 0};
    st = czk_post_synthesize(cs, &inst);
  }
  if (st == CZK_OK) st = czk_cs_counter_result(cs, &n);
  czk_cs_free(cs);
  double secs = czk__now_s() - t0;
  czk_fr *w = NULL;
  double wsecs = 0;
  if (st == CZK_OK && wit) {
    double tw = czk__now_s();
    st = generated_witness(pinfo, info, &n, &w);
    wsecs = czk__now_s() - tw;
  }
  if (st != CZK_OK) {
    fprintf(stderr, "czk circuit-info: %s%s\n", wit ? "the generated witness: " : "", czk_status_str(st));
    free(w);
    return 1;
  }
  char stem[240];
  if (pinfo) czk_porep_param_stem(pinfo, stem, sizeof stem);
  else czk_post_param_stem(info, stem, sizeof stem);
  uint64_t sector_size = pinfo ? pinfo->sector_size : info->sector_size;
  const char *cid = pinfo ? czk_porep_circuit_id(pinfo) : czk_post_circuit_id(info);
  const char *size_name = pinfo ? pinfo->size_name : info->size_name;
  if (json) {
    printf("{\"kind\":\"%s\",\"sector_size\":%llu,\"circuit_id\":\"%s\",\"params\":\"%s\",\"constraints\":%llu,"
           "\"constraints_with_inputs\":%llu,\"public_inputs\":%llu,\"aux\":%llu,\"nnz_a\":%llu,\"nnz_b\":%llu,"
           "\"nnz_c\":%llu,\"a_aux_density\":%llu,\"b_input_density\":%llu,\"b_aux_density\":%llu,\"log_domain\":%u,"
           "\"seconds\":%.3f",
           kind, (unsigned long long)sector_size, cid, stem,
           (unsigned long long)n.n_user_constraints, (unsigned long long)n.n_constraints,
           (unsigned long long)n.n_inputs, (unsigned long long)n.n_aux, (unsigned long long)n.nnz_a,
           (unsigned long long)n.nnz_b, (unsigned long long)n.nnz_c, (unsigned long long)n.a_aux_count,
           (unsigned long long)n.b_input_count, (unsigned long long)n.b_aux_count, n.log_domain, secs);
    if (w) czk__print_witness_fractions(w, (size_t)(n.n_inputs + n.n_aux), wsecs, true);
    printf("}\n");
    free(w);
    return 0;
  }
  char a[40], b[40];
  printf("%s %s (%s; circuit id %s)\n", kind, size_name,
         pinfo ? "one partition, every registered variant of the size"
         : info->type == CZK_POST_WINNING ? info->name
                                          : "registered proofs V1 and V1_2",
         cid);
  printf("  parameters           %s.params\n", stem);
  czk__group(a, sizeof a, n.n_user_constraints), czk__group(b, sizeof b, n.n_constraints);
  printf("  constraints          %s (with the %llu input constraints: %s)\n", a, (unsigned long long)n.n_inputs, b);
  czk__group(a, sizeof a, n.n_inputs);
  printf("  public inputs        %s (ONE included)\n", a);
  czk__print_counts_tail(&n, secs);
  if (w) czk__print_witness_fractions(w, (size_t)(n.n_inputs + n.n_aux), wsecs, false);
  free(w);
  return 0;
}

/* ------------------------------------------------------------------------------------------------ gen-vanilla porep */
static int gen_vanilla_porep(int argc, char **argv) {
  static const char *usage =
      "usage: czk gen-vanilla porep --sector-size S --out DIR [options]\n"
      "  A PoRep C1 output (SealCommitPhase1Output, serde_json as filecoin-ffi writes it) that passes every native\n"
      "  check: DIR/c1.json, DIR/c1-envelope.json (cuzk's {SectorNum, Phase1Out, SectorSize}, what Curio sends) and\n"
      "  DIR/request.json (`czk prove --request`, `czk verify --request`).\n"
      "  --dense              seal random data: tree D, SDR labels of every layer, tree C, encoding, tree R_last\n"
      "                       (2KiB, 8MiB; every mode; default up to 8MiB)\n"
      "  --sparse             any size: a committed-capacity sector's openings built from the challenged nodes and\n"
      "                       their parents only (interactive proofs; default above 8MiB)\n"
      "  --mode M             v1 (API 1.0, wire 0-4), v1.1 (default, wire 5-9), synthetic (10-14), ni (15-19)\n"
      "  --seed X             data, labels, ticket and seed derive from X (default 1)\n"
      "  --miner M            actor id (default 1000)    --sector N   sector number (default 1)\n";
  const char *size = NULL, *out = NULL, *modename = "v1.1";
  uint64_t seed = 1, miner = 1000, sector = 1;
  int mode = -1;
  static const struct option lo[] = {{"sector-size", 1, 0, 's'}, {"out", 1, 0, 'o'},    {"seed", 1, 0, 'x'},
                                     {"sparse", 0, 0, 'S'},      {"dense", 0, 0, 'D'},  {"mode", 1, 0, 'M'},
                                     {"miner", 1, 0, 'm'},       {"sector", 1, 0, 'n'}, {"help", 0, 0, 'h'},
                                     {0, 0, 0, 0}};
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
    case 'S': mode = CZK_POREP_GEN_SPARSE; break;
    case 'D': mode = CZK_POREP_GEN_DENSE; break;
    case 'M': modename = optarg; break;
    case 'h': return printf("%s", usage), 0;
    default: return fprintf(stderr, "%s", usage), 2;
    }
    if (errno || (strchr("xmn", c) && *end)) return fprintf(stderr, "czk gen-vanilla: bad number '%s'\n", optarg), 2;
  }
  if (optind != argc - 1 || !out) return fprintf(stderr, "%s", usage), 2;
  static const char *modes[4] = {"v1", "v1.1", "synthetic", "ni"};
  int g = -1;
  for (int i = 0; i < 4; i++)
    if (strcmp(modename, modes[i]) == 0) g = i;
  uint64_t bytes;
  if (g < 0) return fprintf(stderr, "czk gen-vanilla: --mode takes v1, v1.1, synthetic or ni\n"), 2;
  if (!size || !czk__parse_size(size, &bytes) || !czk_porep_info_for_size(bytes))
    return fprintf(stderr, "czk gen-vanilla: --sector-size must be 2KiB, 8MiB, 512MiB, 32GiB or 64GiB\n"), 2;
  const czk_porep_info *info = czk_porep_info_by_wire(5 * (uint64_t)g + czk_porep_info_for_size(bytes)->wire % 5);
  if (mode < 0) mode = bytes <= (8ull << 20) ? CZK_POREP_GEN_DENSE : CZK_POREP_GEN_SPARSE;
  if (mode == CZK_POREP_GEN_SPARSE && info->feature != 0)
    return fprintf(stderr, "czk gen-vanilla: --sparse makes interactive proofs only (synthetic and non-interactive "
                           "challenges depend on comm_r: use --dense at 2KiB or 8MiB)\n"), 2;
  if (mode == CZK_POREP_GEN_DENSE && bytes > (8ull << 20))
    return fprintf(stderr, "czk gen-vanilla: --dense is for 2KiB and 8MiB sectors (use --sparse)\n"), 2;
  return czk__gen_vanilla_porep_to(info, mode, seed, miner, sector, out, false);
}

int czk__gen_vanilla_porep_to(const czk_porep_info *info, int mode, uint64_t seed, uint64_t miner, uint64_t sector,
                              const char *out, bool quiet) {
  const uint64_t bytes = info->sector_size;
  if (mkdir_p(out) != 0) return fprintf(stderr, "czk gen-vanilla: cannot create %s\n", out), 1;
  double t0 = czk__now_s();
  czk_porep_c1 c1;
  czk_status st = czk_porep_generate(info, (czk_porep_gen_mode)mode, seed, miner, sector, &c1);
  if (st != CZK_OK) return fprintf(stderr, "czk gen-vanilla: %s: %s\n", info->name, czk_status_str(st)), 1;
  char err[512];
  st = czk_porep_c1_check(&c1, miner, sector, err, sizeof err);
  if (st != CZK_OK) {
    czk_porep_c1_free(&c1);
    return fprintf(stderr, "czk gen-vanilla: the generated C1 output fails its check: %s\n", err), 1;
  }
  char *json = NULL;
  size_t len = 0;
  FILE *mf = open_memstream(&json, &len);
  st = mf ? czk_porep_c1_write(&c1, mf) : CZK_ERR_NOMEM;
  if (mf) fclose(mf);
  czk_porep_c1_free(&c1);
  int rc = st == CZK_OK ? 0 : 1;
  char path[4200];
  snprintf(path, sizeof path, "%s/c1.json", out);
  if (!rc && czk__write_file_atomic(path, json, len) != CZK_OK) rc = 1;
  snprintf(path, sizeof path, "%s/c1-envelope.json", out);
  czk__afile af; /* temp + fsync + rename */
  if (!rc && czk__afile_open(&af, path, "wb") != CZK_OK) rc = 1;
  else if (!rc && czk_porep_envelope_write(af.f, (const uint8_t *)json, len, sector, bytes) != CZK_OK) {
    czk__afile_abort(&af);
    rc = 1;
  } else if (!rc && czk__afile_commit(&af) != CZK_OK) {
    rc = 1;
  }
  if (rc) fprintf(stderr, "czk gen-vanilla: cannot write %s\n", path);
  free(json);
  czk__fc_request r;
  memset(&r, 0, sizeof r);
  snprintf(r.kind, sizeof r.kind, "porep");
  r.proof_kind = 1;
  r.registered_proof = info->wire;
  r.sector_size = bytes;
  r.miner_id = miner;
  r.sector_number = sector;
  r.vanilla_one_name = "c1-envelope.json";
  if (rc == 0 && czk__fc_request_write(out, &r, NULL) != 0) {
    fprintf(stderr, "czk gen-vanilla: cannot write %s/request.json\n", out);
    rc = 1;
  }
  if (rc == 0 && !quiet)
    printf("%s: %s C1 output (%s, %u x %u challenges, %zu bytes of JSON), c1-envelope.json, request.json; %.2f s\n",
           out, info->name, mode == CZK_POREP_GEN_DENSE ? "dense" : "sparse", info->partitions, info->challenges, len,
           czk__now_s() - t0);
  return rc;
}

/* ------------------------------------------------------------------------------------------------ gen-vanilla */
int czk_cmd_gen_vanilla(int argc, char **argv) {
  if (czk__first_positional_is(argc, argv, "snap")) return czk__cmd_gen_vanilla_snap(argc, argv);
  static const char *usage =
      "usage: czk gen-vanilla KIND --sector-size S --out DIR [options]\n"
      "  KIND: winning-post, window-post (below), porep (czk gen-vanilla porep --help), snap (czk gen-vanilla snap --help).\n"
      "  Writes DIR/vanilla-<i>.bin (bincode FallbackPoStSectorProof, as Curio sends\n"
      "  them) and DIR/request.json (the SubmitProof fields; `czk prove --request`, `czk verify --request`).\n"
      "  --sectors N          window-post: sectors in the partition (default 1, at most the proof's sector count)\n"
      "  --seed X             replica data, comm_c and randomness derive from X (default 1)\n"
      "  --sparse / --dense   build only the opened paths (any size) / the whole tree R_last (2KiB, 8MiB)\n"
      "                       (default: dense up to 8MiB, sparse above)\n"
      "  --api 1.0|1.2        window-post: registered proof V1 (wire 5-9) or V1_1/V1_2 (wire 10-14; default)\n"
      "  --partition K        window-post partition index (default 0)\n"
      "  --first-sector ID    sector ids ID, ID+1, ... (default 1)\n"
      "  --miner M            actor id (default 1000)\n"
      "  --randomness HEX     32 bytes, byte 31 masked & 0x3f (default: from the seed)\n";
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "porep") == 0) return gen_vanilla_porep(argc, argv);
  const char *size = NULL, *out = NULL, *rhex = NULL;
  uint64_t sectors = 1, seed = 1, partition = 0, first = 1, miner = 1000;
  int mode = -1;
  unsigned api = 2;
  static const struct option lo[] = {
      {"sector-size", 1, 0, 's'}, {"out", 1, 0, 'o'},     {"sectors", 1, 0, 'n'},      {"seed", 1, 0, 'x'},
      {"sparse", 0, 0, 'S'},      {"dense", 0, 0, 'D'},   {"api", 1, 0, 'a'},          {"partition", 1, 0, 'p'},
      {"first-sector", 1, 0, 'f'}, {"miner", 1, 0, 'm'},  {"randomness", 1, 0, 'r'},   {"help", 0, 0, 'h'},
      {0, 0, 0, 0}};
  optind = 1;
  int c;
  char *end;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    errno = 0;
    switch (c) {
    case 's': size = optarg; break;
    case 'o': out = optarg; break;
    case 'n': sectors = strtoull(optarg, &end, 10); break;
    case 'x': seed = strtoull(optarg, &end, 10); break;
    case 'p': partition = strtoull(optarg, &end, 10); break;
    case 'f': first = strtoull(optarg, &end, 10); break;
    case 'm': miner = strtoull(optarg, &end, 10); break;
    case 'S': mode = CZK_POST_GEN_SPARSE; break;
    case 'D': mode = CZK_POST_GEN_DENSE; break;
    case 'r': rhex = optarg; break;
    case 'a':
      if (strcmp(optarg, "1.0") == 0) api = 0;
      else if (strcmp(optarg, "1.2") == 0) api = 2;
      else return fprintf(stderr, "czk gen-vanilla: --api takes 1.0 or 1.2\n"), 2;
      break;
    case 'h': return printf("%s", usage), 0;
    default: return fprintf(stderr, "%s", usage), 2;
    }
    if (errno || (strchr("nxpfm", c) && *end)) return fprintf(stderr, "czk gen-vanilla: bad number '%s'\n", optarg), 2;
  }
  if (optind != argc - 1 || !out) return fprintf(stderr, "%s", usage), 2;
  const char *kind = argv[optind];
  const czk_post_info *info = lookup("gen-vanilla", kind, size, api);
  if (!info) return 2;
  if (info->type == CZK_POST_WINNING) sectors = 1;
  if (sectors < 1 || sectors > info->sector_count || partition > UINT32_MAX)
    return fprintf(stderr, "czk gen-vanilla: --sectors must be 1..%u for %s\n", info->sector_count, info->name), 2;
  if (mode < 0) mode = info->sector_size <= (8ull << 20) ? CZK_POST_GEN_DENSE : CZK_POST_GEN_SPARSE;
  uint8_t rnd[32];
  if (rhex) {
    czk_fr f;
    if (czk__unhex32(rnd, rhex) != 0 || czk_fr_from_bytes_le(&f, rnd) != CZK_OK)
      return fprintf(stderr, "czk gen-vanilla: --randomness must be 64 hex digits of a canonical field element\n"), 2;
  }
  return czk__gen_vanilla_post_to(info, mode, seed, first, miner, partition, sectors, rhex ? rnd : NULL, out, false);
}

int czk__gen_vanilla_post_to(const czk_post_info *info, int mode, uint64_t seed, uint64_t first, uint64_t miner,
                             uint64_t partition, uint64_t sectors, const uint8_t randomness[32], const char *out,
                             bool quiet) {
  czk__fc_request r;
  memset(&r, 0, sizeof r);
  if (randomness) {
    memcpy(r.randomness, randomness, 32);
  } else { /* from the seed */
    uint8_t msg[24] = "czk-randomness";
    for (int i = 0; i < 8; i++) msg[16 + i] = (uint8_t)(seed >> (8 * i));
    czk_sha256(r.randomness, msg, sizeof msg);
    r.randomness[31] &= 0x3f;
  }
  if (mkdir_p(out) != 0) return fprintf(stderr, "czk gen-vanilla: cannot create %s\n", out), 1;
  snprintf(r.kind, sizeof r.kind, "%s", info->type == CZK_POST_WINNING ? "winning-post" : "window-post");
  r.proof_kind = info->type == CZK_POST_WINNING ? 4 : 3;
  r.registered_proof = info->wire;
  r.sector_size = info->sector_size;
  r.miner_id = miner;
  r.partition_index = (uint32_t)partition;
  r.n_sectors = r.n_vanilla = (size_t)sectors;
  r.sector_ids = calloc(sectors, sizeof *r.sector_ids);
  r.comm_r = calloc(sectors, 32);
  char **names = calloc(sectors, sizeof *names);
  size_t vsize = czk_post_vanilla_size(info);
  uint8_t *buf = malloc(vsize);
  int rc = r.sector_ids && r.comm_r && names && buf ? 0 : 1;
  double t0 = czk__now_s();
  for (uint64_t i = 0; i < sectors && rc == 0; i++) {
    czk_post_sector s;
    uint64_t sector_index = info->type == CZK_POST_WINNING ? 0 : partition * info->sector_count + i;
    czk_status st = czk_post_generate(info, (czk_post_gen_mode)mode, seed, first + i, sector_index, r.randomness, NULL,
                                      NULL, &s);
    if (st == CZK_OK) st = czk_post_vanilla_write(info, &s, buf, vsize);
    if (st != CZK_OK) {
      fprintf(stderr, "czk gen-vanilla: sector %llu: %s\n", (unsigned long long)(first + i), czk_status_str(st));
      rc = 1;
    } else {
      r.sector_ids[i] = s.sector_id;
      memcpy(r.comm_r[i], s.comm_r, 32);
      names[i] = malloc(40);
      char path[4200];
      snprintf(names[i], 40, "vanilla-%llu.bin", (unsigned long long)i);
      snprintf(path, sizeof path, "%s/%s", out, names[i]);
      if (czk__write_file_atomic(path, buf, vsize) != CZK_OK) rc = 1;
      if (rc) fprintf(stderr, "czk gen-vanilla: cannot write %s\n", path);
    }
    czk_post_sector_free(&s);
  }
  if (rc == 0 && czk__fc_request_write(out, &r, (const char *const *)names) != 0) {
    fprintf(stderr, "czk gen-vanilla: cannot write %s/request.json\n", out);
    rc = 1;
  }
  if (rc == 0 && !quiet)
    printf("%s: %llu %s vanilla proof(s) of %zu bytes (%s, %s), request.json; %.2f s\n", out,
           (unsigned long long)sectors, info->name, vsize, mode == CZK_POST_GEN_DENSE ? "dense" : "sparse",
           info->size_name, czk__now_s() - t0);
  for (uint64_t i = 0; names && i < sectors; i++) free(names[i]);
  free(names);
  free(buf);
  czk__fc_request_free(&r);
  return rc;
}

/* ------------------------------------------------------------------------------------------------ setup */
int czk__cmd_setup_kind(int argc, char **argv) {
  static const char *usage =
      "usage: czk setup --kind winning-post|window-post|porep|snap --sector-size S --out DIR\n"
      "                 [--backend cpu|cuda:N] [--walk|--record] [--seed N]\n"
      "  A Groth16 key pair of our own (fresh OS randomness) for a Filecoin circuit, written as\n"
      "  DIR/<v28 name>.params and .vk (the names the published parameters have).\n"
      "  --backend cuda:N  the query points' fixed-base multiplications on that GPU (default: the CPU cores)\n"
      "  --walk            set up from the circuit's outline, walking the circuit once (bounded memory: the\n"
      "                    default above 2^22 constraints); --record: from its recorded matrices\n"
      "  --seed N          TEST MODE: toxic waste derived from N (anyone can forge proofs for such a key);\n"
      "                    the same seed gives the same key on every backend\n";
  const char *kind = NULL, *size = NULL, *out = NULL, *bname = NULL, *seed = NULL;
  int walk = -1;
  static const struct option lo[] = {{"kind", 1, 0, 'k'},    {"sector-size", 1, 0, 's'}, {"out", 1, 0, 'o'},
                                     {"backend", 1, 0, 'b'}, {"seed", 1, 0, 'S'},        {"walk", 0, 0, 'w'},
                                     {"record", 0, 0, 'r'},  {"help", 0, 0, 'h'},        {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    if (c == 'k') kind = optarg;
    else if (c == 's') size = optarg;
    else if (c == 'o') out = optarg;
    else if (c == 'b') bname = optarg;
    else if (c == 'S') seed = optarg;
    else if (c == 'w') walk = 1;
    else if (c == 'r') walk = 0;
    else if (c == 'h') return printf("%s", usage), 0;
    else return fprintf(stderr, "%s", usage), 2;
  }
  if (optind != argc || !out || !kind) return fprintf(stderr, "%s", usage), 2;
  uint64_t bytes = 0, seed_v = 0;
  czk_fc_circuit fc;
  if (!size || !czk__parse_size(size, &bytes))
    return fprintf(stderr, "czk setup: --sector-size must be a size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)\n"), 2;
  if (czk_fc_circuit_find(&fc, kind, bytes) != CZK_OK)
    return fprintf(stderr, "czk setup: %s has no registered proof for sector size %s (kinds: winning-post, "
                           "window-post, porep, snap)\n", kind, size), 2;
  if (seed) {
    char *end = NULL;
    errno = 0;
    seed_v = strtoull(seed, &end, 0);
    if (errno || !end || *end || !*seed) return fprintf(stderr, "czk setup: --seed must be an integer\n"), 2;
  }
  czk_backend *be = NULL;
  if (bname && strcmp(bname, "cpu") != 0) {
    czk_status bs = czk_backend_open(&be, bname, NULL);
    if (bs != CZK_OK) return fprintf(stderr, "czk setup: backend %s: %s\n", bname, czk_status_str(bs)), 1;
  }
  czk_fr tw[5];
  if (seed) {
    czk_fc_seed_toxic(tw, seed_v);
    fprintf(stderr, "czk setup: TEST MODE (--seed): this key's toxic waste is public; never use it for real proofs\n");
  }
  int rc = czk__setup_kind_to(&fc, be, bname, seed ? tw : NULL, walk, out, false);
  explicit_bzero(tw, sizeof tw);
  czk_backend_free(be);
  return rc;
}

int czk__setup_kind_to(const czk_fc_circuit *fcp, czk_backend *be, const char *bname, const czk_fr *toxic, int walk,
                       const char *out, bool quiet) {
  const czk_fc_circuit fc = *fcp;
  if (mkdir_p(out) != 0) return fprintf(stderr, "czk setup: cannot create %s\n", out), 1;
  char params[4400], vk[4400], tp[4500], tv[4500];
  snprintf(params, sizeof params, "%s/%s.params", out, fc.stem);
  snprintf(vk, sizeof vk, "%s/%s.vk", out, fc.stem);
  snprintf(tp, sizeof tp, "%s.tmp", params);
  snprintf(tv, sizeof tv, "%s.tmp", vk);
  double t0 = czk__now_s();
  czk_groth16_key_mem key;
  czk_r1cs *shape = NULL;
  czk_status st = czk_fc_setup_mem(&fc, be, NULL, toxic, walk, &key, &shape);
  double t1 = czk__now_s();
  if (st == CZK_OK) {
    czk_groth16_pk_queries q;
    czk_groth16_key_mem_queries(&key, &q);
    st = czk_groth16_params_write(tp, &key.vk, &q, &key.s);
    if (st == CZK_OK) st = czk_groth16_vk_write(&key.vk, tv);
    czk_groth16_key_mem_free(&key);
  }
  if (st == CZK_OK && (rename(tp, params) != 0 || rename(tv, vk) != 0)) st = CZK_ERR_IO;
  if (st != CZK_OK) {
    remove(tp);
    remove(tv);
    fprintf(stderr, "czk setup: %s: %s\n", fc.id, czk_status_str(st));
    czk_r1cs_free(shape);
    return 1;
  }
  struct stat sp, sv;
  stat(params, &sp);
  stat(vk, &sv);
  if (!quiet)
    printf("%s (%u constraints, %u inputs): setup %.2f s (%s, %s), write %.2f s\n  %s (%lld bytes)\n  %s (%lld bytes)\n",
         fc.id, shape->n_user_constraints, shape->n_inputs, t1 - t0, shape->outline ? "walked outline" : "recorded shape",
         bname ? bname : "cpu", czk__now_s() - t1, params, (long long)sp.st_size, vk, (long long)sv.st_size);
  czk_r1cs_free(shape);
  return 0;
}

/* ------------------------------------------------------------------------------------------------ verify */
/* PoRep: the C1 output (envelope or bare) of the request, its native checks, every partition's inputs recomputed,
 * each 192-byte partition proof verified against the .vk found by its v28 name. */
static int verify_porep(const czk__fc_request *r, const char *req, const char *proof, const char *params, FILE *out,
                        czk__verify_result *res) {
  const czk_porep_info *info = czk_porep_info_by_wire(r->registered_proof);
  if (info) res->partitions = info->partitions;
  if (!info || !r->vanilla_one) {
    fprintf(stderr, "czk verify: %s: a PoRep request needs a seal registered_proof (0-19) and \"vanilla_proof\"\n", req);
    return 1;
  }
  char err[512], stem[240], path[4400];
  uint64_t num = 0, ssz = 0;
  czk_porep_c1 c1;
  memset(&c1, 0, sizeof c1);
  czk_groth16_vk vk;
  bool have_vk = false;
  uint8_t *pb = NULL;
  int rc = 1;
  czk_status st = czk_porep_c1_read(&c1, r->vanilla_one, r->vanilla_one_len, &num, &ssz, err, sizeof err);
  uint64_t sector = r->sector_number ? r->sector_number : num;
  if (st == CZK_OK && c1.info != info) st = CZK_ERR_INVALID_ARG, snprintf(err, sizeof err, "the C1 output is %s", c1.info->name);
  if (st == CZK_OK) st = czk_porep_c1_check(&c1, r->miner_id, sector, err, sizeof err);
  if (st != CZK_OK) {
    fprintf(stderr, "czk verify: %s: %s\n", req, err);
    goto out;
  }
  czk_porep_param_stem(info, stem, sizeof stem);
  snprintf(path, sizeof path, "%s/%s.vk", params, stem);
  if ((st = czk_groth16_vk_read(&vk, path, false)) != CZK_OK) {
    fprintf(stderr, "czk verify: %s: %s\n", path, czk_status_str(st));
    goto out;
  }
  have_vk = true;
  size_t want = (size_t)info->partitions * CZK_GROTH16_PROOF_BYTES, got = 0;
  pb = malloc(want + 1);
  FILE *f = pb ? fopen(proof, "rb") : NULL;
  if (f) got = fread(pb, 1, want + 1, f), fclose(f);
  if (got != want) {
    fprintf(stderr, "czk verify: %s: not %u partition proofs of %d bytes\n", proof, info->partitions,
            CZK_GROTH16_PROOF_BYTES);
    goto out;
  }
  size_t np = 3 + 18 * (size_t)info->challenges;
  czk_fr pub[3 + 18 * 18];
  for (uint32_t k = 0; k < info->partitions; k++) {
    czk_groth16_proof p;
    st = czk_porep_public_inputs(info, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, k, pub, np);
    if (st == CZK_OK) st = czk_groth16_proof_decode(&p, pb + (size_t)k * CZK_GROTH16_PROOF_BYTES);
    if (st == CZK_OK) st = czk_groth16_verify(&vk, &p, pub, np);
    if (st == CZK_OK) res->verified++;
    else if (out) fprintf(out, "INVALID: partition %u: %s\n", k, czk_status_str(st));
  }
  if (res->verified != info->partitions) goto out;
  if (out) fprintf(out, "OK: %s proof verifies (%u partitions, %zu public inputs each)\n", info->name, info->partitions, np);
  rc = 0;
out:
  if (have_vk) czk_groth16_vk_free(&vk);
  czk_porep_c1_free(&c1);
  free(pb);
  return rc;
}

int czk__cmd_verify_request(int argc, char **argv) {
  static const char *usage =
      "usage: czk verify --request DIR/request.json --proof proof.bin --params DIR\n"
      "  Verifies a PoSt, PoRep or SnapDeals proof standalone with public inputs recomputed from the request (PoSt:\n"
      "  randomness, sector ids and comm_r of its \"sectors\", partition, registered proof; PoRep: the C1 output after\n"
      "  its native checks, miner and sector; SnapDeals: every partition proof after its native checks, the three\n"
      "  commitments); the .vk is found by its v28 name in --params.\n";
  const char *req = NULL, *proof = NULL, *params = NULL;
  static const struct option lo[] = {{"request", 1, 0, 'r'}, {"proof", 1, 0, 'p'}, {"params", 1, 0, 'd'},
                                     {"help", 0, 0, 'h'},    {0, 0, 0, 0}};
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    if (c == 'r') req = optarg;
    else if (c == 'p') proof = optarg;
    else if (c == 'd') params = optarg;
    else if (c == 'h') return printf("%s", usage), 0;
    else return fprintf(stderr, "%s", usage), 2;
  }
  if (optind != argc || !req || !proof || !params) return fprintf(stderr, "%s", usage), 2;
  czk__verify_result res;
  return czk__verify_request(req, proof, params, stdout, &res);
}

int czk__verify_request(const char *req, const char *proof, const char *params, FILE *out, czk__verify_result *res) {
  memset(res, 0, sizeof *res);
  char err[512];
  czk__fc_request r;
  if (czk__fc_request_load(req, &r, err, sizeof err) != 0) return fprintf(stderr, "czk verify: %s\n", err), 1;
  if (r.proof_kind == 1) {
    int prc = verify_porep(&r, req, proof, params, out, res);
    czk__fc_request_free(&r);
    return prc;
  }
  if (r.proof_kind == 2) {
    int prc = czk__verify_snap(&r, req, proof, params, out, res);
    czk__fc_request_free(&r);
    return prc;
  }
  int rc = 1;
  const czk_post_info *info = czk_post_info_by_wire(r.registered_proof);
  czk_fr *pub = NULL;
  czk_groth16_vk vk;
  bool have_vk = false;
  uint8_t pb[CZK_GROTH16_PROOF_BYTES + 1];
  res->partitions = 1;
  if (!info || (r.proof_kind != (info->type == CZK_POST_WINNING ? 4 : 3))) {
    fprintf(stderr, "czk verify: %s: registered_proof %llu / proof_kind %d is not a PoSt request\n", req,
            (unsigned long long)r.registered_proof, r.proof_kind);
    goto out;
  }
  if (r.n_sectors == 0) {
    fprintf(stderr, "czk verify: %s: no \"sectors\" (sector ids and comm_r) to verify against\n", req);
    goto out;
  }
  size_t np = czk_post_num_public_inputs(info);
  pub = malloc(np * sizeof *pub);
  czk_status st = pub ? czk_post_public_inputs(info, r.sector_ids, (const uint8_t(*)[32])r.comm_r, r.n_sectors,
                                               r.randomness, r.partition_index, pub, np)
                      : CZK_ERR_NOMEM;
  if (st != CZK_OK) {
    fprintf(stderr, "czk verify: public inputs: %s\n", czk_status_str(st));
    goto out;
  }
  char stem[200], path[4400];
  czk_post_param_stem(info, stem, sizeof stem);
  snprintf(path, sizeof path, "%s/%s.vk", params, stem);
  if ((st = czk_groth16_vk_read(&vk, path, false)) != CZK_OK) {
    fprintf(stderr, "czk verify: %s: %s\n", path, czk_status_str(st));
    goto out;
  }
  have_vk = true;
  FILE *f = fopen(proof, "rb");
  size_t got = f ? fread(pb, 1, sizeof pb, f) : 0;
  if (f) fclose(f);
  if (got != CZK_GROTH16_PROOF_BYTES) {
    fprintf(stderr, "czk verify: %s: not a %d-byte proof\n", proof, CZK_GROTH16_PROOF_BYTES);
    goto out;
  }
  czk_groth16_proof p;
  if ((st = czk_groth16_proof_decode(&p, pb)) == CZK_OK) st = czk_groth16_verify(&vk, &p, pub, np);
  if (st == CZK_OK) {
    if (out) fprintf(out, "OK: %s proof verifies (%zu public inputs, partition %u)\n", info->name, np, r.partition_index);
    res->verified = 1;
    rc = 0;
  } else if (out) {
    fprintf(out, "INVALID: %s\n", czk_status_str(st));
  }
out:
  if (have_vk) czk_groth16_vk_free(&vk);
  free(pub);
  czk__fc_request_free(&r);
  return rc;
}
