/* cli.h: the `czk` command's subcommand registry and small helpers shared by subcommand files.
 *
 * Each subcommand is `int czk_cmd_<name>(int argc, char **argv)` (argv[0] is the subcommand name), registered by one
 * line in commands.def; each benchmark is `int czk_bench_<name>(int argc, char **argv)` in bench.def. Return the
 * process exit code: 0 success, 1 failure (errors on stderr), 2 usage error. Every subcommand answers --help. */
#ifndef CZK_CLI_H
#define CZK_CLI_H

#include <stdbool.h>

#define CZK_CMD(name, summary) int czk_cmd_##name(int argc, char **argv);
#include "cli/commands.def"
#undef CZK_CMD
#define CZK_BENCH(name, summary) int czk_bench_##name(int argc, char **argv);
#include "cli/bench.def"
#undef CZK_BENCH

/* True when argv holds -h or --help. */
bool czk_cli_wants_help(int argc, char **argv);

#endif
