#!/usr/bin/env bash
# gpu-bench.sh: the one GPU run -- build the CUDA backend, check it against the CPU, then time it -- in a single call
# on a GPU machine (the H200 runs in docs/benchmarks.md used these steps).
#
#   scripts/gpu-bench.sh [--build-dir DIR] [--archs LIST] [--prebuilt DIR] [--quick]
#
# 1. build (CMake, -DCZK_CUDA=ON, -DCZK_API=OFF: a GPU box needs no gRPC/HTTP libraries for this) the targets czk,
#    test_cuda, test_backend_gpu, test_prover_gpu into DIR (default build-gpu), for LIST (default 90-real, the H200); --prebuilt DIR uses
#    DIR/czk, DIR/test_cuda, DIR/test_backend_gpu and DIR/test_prover_gpu instead (binaries built elsewhere and copied over);
# 2. check: test_cuda (device field arithmetic, MSM G1/G2, NTT vs the CPU layers), test_backend_gpu (every backend
#    primitive vs the CPU backend) and test_prover_gpu (the one prover: proofs from device and streamed keys verify);
#    (every backend operation vs the CPU backend on sizes 2^0..2^20, GPU Groth16 proofs that verify, quarantine);
# 3. time: czk bench gpu (MSM G1 to 2^26, G2 to 2^24, NTT to 2^27, each result checked) and czk bench gpuprove
#    (2^20, 2^22, 2^24 stage by stage). --quick: smaller sizes (G1 2^22, G2 2^20, NTT 2^24, prove 2^20).
# Logs go to $OUT (if set) or /tmp. Exit status: non-zero if any check failed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-gpu archs=90-real prebuilt= quick=
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) dir=$2; shift 2 ;;
    --archs) archs=$2; shift 2 ;;
    --prebuilt) prebuilt=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
log=${OUT:-/tmp}
if [ -n "$prebuilt" ]; then
  czk=$prebuilt/czk test_cuda=$prebuilt/test_cuda test_backend=$prebuilt/test_backend_gpu test_prover=$prebuilt/test_prover_gpu
else
  t0=$(date +%s)
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=ON -DCZK_API=OFF -DCZK_CUDA_ARCHS="$archs" >/dev/null
  cmake --build "$dir" -j"$(nproc)" --target czk test_cuda test_backend_gpu test_prover_gpu >"$log/gpu-build.log" 2>&1 ||
    { tail -30 "$log/gpu-build.log"; exit 1; }
  echo "# build took $(($(date +%s) - t0)) s"
  czk=$dir/src/cli/czk test_cuda=$dir/tests/cuda/test_cuda test_backend=$dir/tests/backend/test_backend_gpu
  test_prover=$dir/tests/groth16/test_prover_gpu
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv || true
rc=0
step() { # step NAME CMD...: run, keep the log, print its tail
  local name=$1; shift
  echo "=== $name: $*"
  "$@" >"$log/$name.log" 2>&1 || rc=1
  tail -n 25 "$log/$name.log"
}
step test_cuda "$test_cuda"
step test_backend "$test_backend" gpu
step test_prover "$test_prover" gpu
if [ -n "$quick" ]; then
  step bench_gpu "$czk" bench gpu --msm-max 22 --g2-max 20 --ntt-max 24 --reps 3
  step gpuprove "$czk" bench gpuprove --backend cuda:0 --logs 20 --reps 3
else
  step bench_gpu "$czk" bench gpu --msm-max 26 --g2-max 24 --ntt-max 27 --reps 5
  step gpuprove "$czk" bench gpuprove --backend cuda:0 --logs 20,22,24 --reps 3
fi
exit $rc
