/* bench.h: the benchmarks and load generators of `czk bench` (one static library, czk_bench, linked into the czk
 * command): one `int czk_bench_<name>(int argc, char **argv)` per line of bench.def. Each prints a table and never
 * asserts on time; --help on every one. */
#ifndef CZK_BENCH_H
#define CZK_BENCH_H

#define CZK_BENCH(name, summary) int czk_bench_##name(int argc, char **argv);
#include "bench/bench.def"
#undef CZK_BENCH

#endif
