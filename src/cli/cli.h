/* cli.h: the `czk` command's subcommand registry and small helpers shared by subcommand files.
 *
 * Each subcommand is `int czk_cmd_<name>(int argc, char **argv)` (argv[0] is the subcommand name), registered by one
 * line in commands.def; each benchmark (bench/) is `int czk_bench_<name>(int argc, char **argv)` in bench/bench.def. Return the
 * process exit code: 0 success, 1 failure (errors on stderr), 2 usage error. Every subcommand answers --help. */
#ifndef CZK_CLI_H
#define CZK_CLI_H

#include <stdbool.h>

#define CZK_CMD(name, summary) int czk_cmd_##name(int argc, char **argv);
#include "cli/commands.def"
#undef CZK_CMD
#include "bench/bench.h"
#include "core/units.h"

#endif
