#!/usr/bin/env bash
# gpu-bench.sh: the one GPU run -- build (or reuse) the CUDA kernels, run the GPU correctness test, then
# `czk bench gpu` (checks every result against the host reference and prints the timing table).
#
# It builds only what the GPU run needs (src/cuda, src/core's logger/status, tests/cuda/test_cuda.c and
# src/cli/bench_gpu.c with a two-line driver), straight with nvcc/gcc, because the GPU machine lacks the daemon's
# dependencies (gRPC, libmicrohttpd) that configuring the whole project requires. The normal CMake build
# (-DCZK_CUDA=ON) builds the same sources into czk_cuda, test_cuda and `czk bench gpu`.
#
# usage: scripts/gpu-bench.sh [--prebuilt DIR] [--skip-test] [czk bench gpu options...]
#   --prebuilt DIR   use DIR/test_cuda and DIR/czk-bench-gpu if they run here (built by `--build-only DIR`)
#   --build-only DIR build both binaries into DIR and stop
# env: ARCH (default sm_90), NVCC (default nvcc on PATH or /usr/local/cuda/bin/nvcc), OUT (logs, if set)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
LOG=${OUT:-/tmp}
prebuilt= build_only= skip_test=
while [ $# -gt 0 ]; do
  case "$1" in
    --prebuilt) prebuilt=$2; shift 2 ;;
    --build-only) build_only=$2; shift 2 ;;
    --skip-test) skip_test=1; shift ;;
    *) break ;;
  esac
done

build() { # build DIR
  local d=$1 j
  j=$(nproc 2>/dev/null || echo 2)
  mkdir -p "$d/obj"
  local defs="-DCZK_HAVE_CUDA=1 -DCZK_BUILDING=1 -D_GNU_SOURCE -DCZK_VERSION=\"gpu-bench\""
  local inc="-I$ROOT/include -I$ROOT/src -I$ROOT/tests"
  local pids=()
  for f in src/cuda/*.cu; do
    "$NVCC" -O3 -std=c++17 -arch="$ARCH" -lineinfo $defs $inc -Xcompiler=-Wall,-Wextra -Werror=all-warnings \
      -c "$f" -o "$d/obj/$(basename "$f").o" &
    pids+=($!)
  done
  for f in src/cuda/cuda_ref.c src/core/log.c src/core/status.c src/cli/bench_gpu.c tests/cuda/test_cuda.c; do
    gcc -std=gnu11 -O2 -Wall -Wextra -Werror $defs $inc -c "$f" -o "$d/obj/$(basename "$f").o" &
    pids+=($!)
  done
  printf '#include <string.h>\n#include "cli/cli.h"\nbool czk_cli_wants_help(int c, char **v) {\n'\
'  for (int i = 1; i < c; i++) if (!strcmp(v[i], "-h") || !strcmp(v[i], "--help")) return true;\n  return false;\n}\n'\
'int main(int c, char **v) { return czk_bench_gpu(c, v); }\n' > "$d/obj/driver.c"
  gcc -std=gnu11 -O2 -Wall -Wextra -Werror $defs $inc -c "$d/obj/driver.c" -o "$d/obj/driver.o"
  for p in "${pids[@]}"; do wait "$p"; done
  local cu="$d/obj/device.cu.o $d/obj/msm.cu.o $d/obj/ntt.cu.o $d/obj/cuda_ref.c.o $d/obj/log.c.o $d/obj/status.c.o"
  "$NVCC" -arch="$ARCH" -o "$d/test_cuda" "$d/obj/test_cuda.c.o" $cu -lpthread -lm
  "$NVCC" -arch="$ARCH" -o "$d/czk-bench-gpu" "$d/obj/bench_gpu.c.o" "$d/obj/driver.o" $cu -lpthread -lm
}

if [ -n "$build_only" ]; then
  build "$build_only"
  exit 0
fi
BIN=
if [ -n "$prebuilt" ] && "$prebuilt/czk-bench-gpu" --help > /dev/null 2>&1; then
  BIN=$prebuilt
  echo "# using prebuilt binaries in $BIN"
else
  BIN=/tmp/czk-gpu-build
  echo "# building in $BIN"
  t0=$(date +%s)
  build "$BIN"
  echo "# build took $(( $(date +%s) - t0 )) s"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv 2>/dev/null | tee "$LOG/nvidia-smi.txt" || true
rc=0
if [ -z "$skip_test" ]; then
  "$BIN/test_cuda" 2>&1 | tee "$LOG/test_cuda.log" || rc=1
fi
"$BIN/czk-bench-gpu" "$@" 2>&1 | tee "$LOG/bench.log" || rc=1
exit $rc
