/* main.c: the `czk` command-line entry point: dispatches to subcommands registered in commands.def. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct {
  const char *name;
  const char *summary;
  int (*fn)(int, char **);
} cmd_entry;

static const cmd_entry k_cmds[] = {
#define CZK_CMD(name, summary) {#name, summary, czk_cmd_##name},
#include "cli/commands.def"
#undef CZK_CMD
};

static const cmd_entry k_benches[] = {
#define CZK_BENCH(name, summary) {#name, summary, czk_bench_##name},
#include "bench/bench.def"
#undef CZK_BENCH
    {NULL, NULL, NULL}};

/* Command names are C identifiers in commands.def; on the command line '_' is written '-' (circuit-info). */
static bool same_name(const char *arg, const char *name) {
  for (; *arg && *name; arg++, name++)
    if (*arg != *name && !(*arg == '-' && *name == '_')) return false;
  return *arg == *name;
}

static void usage(FILE *out) {
  fprintf(out, "usage: czk <command> [options]   (czk <command> --help for details)\n\ncommands:\n");
  for (size_t i = 0; i < sizeof k_cmds / sizeof k_cmds[0]; i++) {
    char name[32];
    snprintf(name, sizeof name, "%s", k_cmds[i].name);
    for (char *p = name; *p; p++)
      if (*p == '_') *p = '-';
    fprintf(out, "  %-13s %s\n", name, k_cmds[i].summary);
  }
}

int czk_cmd_version(int argc, char **argv) {
  if (czk__wants_help(argc, argv)) {
    printf("usage: czk version\n");
    return 0;
  }
  printf("czk %s\n", CZK_VERSION);
  return 0;
}

int czk_cmd_bench(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    FILE *out = argc < 2 ? stderr : stdout;
    fprintf(out, "usage: czk bench <benchmark> [options]   (czk bench <benchmark> --help)\n\nbenchmarks:\n");
    for (const cmd_entry *b = k_benches; b->name; b++) fprintf(out, "  %-10s %s\n", b->name, b->summary);
    return argc < 2 ? 2 : 0;
  }
  for (const cmd_entry *b = k_benches; b->name; b++)
    if (strcmp(argv[1], b->name) == 0) return b->fn(argc - 1, argv + 1);
  fprintf(stderr, "czk bench: unknown benchmark '%s' (czk bench --help lists them)\n", argv[1]);
  return 2;
}

int main(int argc, char **argv) {
  /* line by line into files and pipes too: a benchmark stopped by a timeout (or a crash) keeps every line it printed
   * (session 18 lost whole runs' output to a full buffer) */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) return czk_cmd_version(1, argv + 1);
  for (size_t i = 0; i < sizeof k_cmds / sizeof k_cmds[0]; i++)
    if (same_name(argv[1], k_cmds[i].name)) return k_cmds[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "czk: unknown command '%s' (czk --help lists them)\n", argv[1]);
  return 2;
}
