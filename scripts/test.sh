#!/usr/bin/env bash
# test.sh: build czk and run every CTest test (quick, full, oracle; gpu tests skip where no GPU is present),
# then the same quick tests under AddressSanitizer + UndefinedBehaviorSanitizer, then the engine tests under
# ThreadSanitizer. Installs missing dependencies first (scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
J=$(nproc)
# CUDA (when nvcc is present) is compiled for one architecture here to keep the test build short; the fat binary is
# built by scripts/run.sh and release builds.
ARCHS="${CZK_TEST_CUDA_ARCHS:-90-real}"

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA_ARCHS="$ARCHS" >/dev/null
cmake --build build -j"$J"
(cd build && ctest --output-on-failure -j"$J")

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=ON -DCZK_CUDA=OFF >/dev/null
cmake --build build-asan -j"$J"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$J" -L quick)

if [ -d tests/engine ]; then
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_TSAN=ON -DCZK_CUDA=OFF >/dev/null
  cmake --build build-tsan -j"$J"
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j"$J" -R 'engine|pool')
fi
echo "test.sh: all tests passed"
