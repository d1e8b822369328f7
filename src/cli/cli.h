/* cli.h: the `czk` command's subcommand registry and small helpers shared by subcommand files.
 *
 * Each subcommand is `int czk_cmd_<name>(int argc, char **argv)` (argv[0] is the subcommand name), registered by one
 * line in commands.def; each benchmark (bench/) is `int czk_bench_<name>(int argc, char **argv)` in bench/bench.def. Return the
 * process exit code: 0 success, 1 failure (errors on stderr), 2 usage error. Every subcommand answers --help. */
#ifndef CZK_CLI_H
#define CZK_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CZK_CMD(name, summary) int czk_cmd_##name(int argc, char **argv);
#include "czk/field.h"
#include "cli/commands.def"
#undef CZK_CMD
/* Filecoin forms of setup / verify (cmd_filecoin.c), chosen by --kind / --request. */
int czk__cmd_setup_kind(int argc, char **argv);
int czk__cmd_verify_request(int argc, char **argv);
/* circuit-info's count lines from "aux variables" to "counted in" (cmd_filecoin.c). */
typedef struct czk_cs_counts czk_cs_counts;
void czk__print_counts_tail(const czk_cs_counts *c, double secs);
/* v in decimal with thousands separators ("130,278,541"). */
void czk__group(char *out, size_t len, uint64_t v);
/* SnapDeals forms of circuit-info, gen-vanilla and verify --request (cmd_snap.c). */
struct czk__fc_request;
int czk__cmd_circuit_info_snap(const char *size, bool json, bool witness);
/* circuit-info --witness's line (json: fields of the caller's open object). */
void czk__print_witness_fractions(const czk_fr *w, size_t n, double secs, bool json);
int czk__cmd_gen_vanilla_snap(int argc, char **argv);
/* What a standalone verification of a Filecoin request's proof found: the proof kind's partitions and how many of
 * them verified against public inputs recomputed from the request. */
typedef struct czk__verify_result {
  unsigned partitions, verified;
} czk__verify_result;
/* `czk verify --request REQ --proof PROOF --params DIR` as a function: 0 when every partition verifies. The "OK: ..." /
 * "INVALID: ..." lines go to out (NULL: nowhere); reasons for refusing the request go to stderr. */
int czk__verify_request(const char *req, const char *proof, const char *params, FILE *out, czk__verify_result *res);
int czk__verify_snap(const struct czk__fc_request *r, const char *req, const char *proof, const char *params, FILE *out,
                     czk__verify_result *res);
/* The writers behind `czk gen-vanilla` (cmd_filecoin.c, cmd_snap.c): a valid request of one kind in out/ (its vanilla
 * proof files and request.json, exactly what the command writes); mode -1 is not accepted here (the caller picks
 * dense or sparse: the family's czk_*_gen_mode value). quiet: no summary line on stdout. 0 on success, 1 on failure
 * (reason on stderr). randomness NULL: derived from the seed as the command does. */
struct czk_porep_info;
struct czk_post_info;
struct czk_snap_info;
int czk__gen_vanilla_porep_to(const struct czk_porep_info *info, int mode, uint64_t seed, uint64_t miner,
                              uint64_t sector, const char *out, bool quiet);
int czk__gen_vanilla_post_to(const struct czk_post_info *info, int mode, uint64_t seed, uint64_t first, uint64_t miner,
                             uint64_t partition, uint64_t sectors, const uint8_t randomness[32], const char *out,
                             bool quiet);
int czk__gen_vanilla_snap_to(const struct czk_snap_info *info, int mode, uint64_t seed, uint64_t miner,
                             uint64_t sector, const char *out, bool quiet);
/* The writer behind `czk setup --kind`: a key pair for fc made on be (NULL: the CPU; bname names it in the summary)
 * and written as out/<v28 stem>.params and .vk (temporary names, then renamed: a key is there whole or not at all).
 * toxic NULL: fresh OS randomness. quiet: no summary lines on stdout. */
/* A request.json's fields into the SubmitProofRequest Curio sends (proof kind, registered proof, sector size, miner,
 * sector number, randomness, partition, vanilla proofs; SnapDeals: the three commitments). r points into q and into
 * *vps (the vanilla_proofs array, malloc'd: the caller frees it after the call). 0 on success, 1 out of memory. */
struct Cuzk__V1__SubmitProofRequest;
struct ProtobufCBinaryData;
int czk__submit_from_fc_request(struct Cuzk__V1__SubmitProofRequest *r, struct czk__fc_request *q,
                                struct ProtobufCBinaryData **vps);
struct czk_fc_circuit;
struct czk_backend;
int czk__setup_kind_to(const struct czk_fc_circuit *fc, struct czk_backend *be, const char *bname, const czk_fr *toxic,
                       int walk, const char *out, bool quiet);
/* True when the first positional argument (past options and their values) is `word`. */
bool czk__first_positional_is(int argc, char **argv, const char *word);
/* True when argv holds the option `opt` (as "--x" or "--x=..."). */
static inline bool czk__has_opt(int argc, char **argv, const char *opt) {
  size_t n = strlen(opt);
  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], opt, n) == 0 && (argv[i][n] == 0 || argv[i][n] == '=')) return true;
  return false;
}
#include "bench/bench.h"
#include "core/units.h"

#endif
