#!/usr/bin/env bash
# test.sh: build czk and run every CTest test (quick, full, oracle; gpu tests skip where no GPU is present; the
# `long` full-size Filecoin tests only with CZK_TEST_LONG=1),
# then the same quick tests and the black-box daemon tests under AddressSanitizer + UndefinedBehaviorSanitizer, then the engine, pool and gRPC
# transport tests under ThreadSanitizer, then every libFuzzer harness for a few seconds (scripts/fuzz.sh). Installs missing dependencies first (scripts/deps.sh). Prints the seconds
# each phase took.
set -euo pipefail
cd "$(dirname "$0")/.."
t_phase=$SECONDS
phase() { # phase <name>: print the seconds since the previous phase ended
  echo "test.sh: phase '$1' took $((SECONDS - t_phase)) s"
  t_phase=$SECONDS
}
bash scripts/deps.sh
phase deps
J=$(nproc)
# CUDA (when nvcc is present) is compiled for one architecture here to keep the test build short; the fat binary is
# built by scripts/run.sh and release builds.
ARCHS="${CZK_TEST_CUDA_ARCHS:-90-real}"

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA_ARCHS="$ARCHS" >/dev/null
cmake --build build -j"$J"
# label `long`: the full-size Filecoin checks (32/64 GiB counts and checker runs, minutes each on one core); they are
# also labelled `full`. Left out here unless CZK_TEST_LONG=1 (run them with `ctest -L long` in build/).
if [ "${CZK_TEST_LONG:-0}" = 1 ]; then
  (cd build && ctest --output-on-failure -j"$J")
else
  (cd build && ctest --output-on-failure -j"$J" -LE long)
fi
phase "build + all tests"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=ON -DCZK_CUDA=OFF >/dev/null
# only what runs here: the quick test binaries and czk (target czk_quick_tests), not the full-only test binaries
cmake --build build-asan -j"$J" --target czk_quick_tests
# the quick tests, and the daemon driven over gRPC (SIGTERM with work in flight must exit clean: no leak reports)
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$J" -L quick &&
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -R test_daemon_blackbox)
phase "asan+ubsan quick"

if [ -d tests/engine ]; then
  # only the threaded tests' targets (engine, budget, pool, gRPC transport): the rest is not run under TSan
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_TSAN=ON -DCZK_CUDA=OFF >/dev/null
  tsan_targets="test_engine test_engine_budget test_pool"
  grep -q "test_rpc" build-tsan/CTestTestfile.cmake build-tsan/tests/api/CTestTestfile.cmake 2>/dev/null &&
    tsan_targets="$tsan_targets test_rpc"
  # fault injection through the engine: retries, quarantine and requeues across threads (tests/kinds/test_faults.c)
  grep -q "test_faults" build-tsan/tests/kinds/CTestTestfile.cmake 2>/dev/null && tsan_targets="$tsan_targets test_faults"
  cmake --build build-tsan -j"$J" --target $tsan_targets
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j"$J" -R 'engine|pool|rpc|test_faults$')
fi
phase "tsan (engine, pool, rpc, faults)"
# libFuzzer harnesses (tests/fuzz, docs/reliability.md): every parser fuzzed for a few seconds from the committed seeds
# under ASan + UBSan; any crash, leak, UB, hang or OOM fails (CZK_FUZZ_SECONDS per target, default 6; 0 skips).
fuzz_s=${CZK_FUZZ_SECONDS:-6}
if [ "$fuzz_s" != 0 ] && command -v clang >/dev/null 2>&1 &&
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  bash scripts/fuzz.sh --seconds "$fuzz_s"
else
  echo "test.sh: fuzzing skipped (clang with libFuzzer not found, or CZK_FUZZ_SECONDS=0)"
fi
phase "fuzz (every parser, ${fuzz_s} s each)"
echo "test.sh: all tests passed"
