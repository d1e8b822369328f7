/* cli.h: the `czk` command's subcommand registry and small helpers shared by subcommand files.
 *
 * Each subcommand is `int czk_cmd_<name>(int argc, char **argv)` (argv[0] is the subcommand name), registered by one
 * line in commands.def; each benchmark (bench/) is `int czk_bench_<name>(int argc, char **argv)` in bench/bench.def. Return the
 * process exit code: 0 success, 1 failure (errors on stderr), 2 usage error. Every subcommand answers --help. */
#ifndef CZK_CLI_H
#define CZK_CLI_H

#include <stdbool.h>
#include <stdint.h>
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
int czk__verify_snap(const struct czk__fc_request *r, const char *req, const char *proof, const char *params);
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
