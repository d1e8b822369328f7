#!/usr/bin/env bash
# device-pack.sh: build czk and its GPU tests here (Release, for the device's card), strip them and pack them with the
# shared libraries they need into build-device/pack.tar.xz, for scripts/device-run.sh on a GPU machine that builds
# nothing itself (the device tool carries ignored paths: carry ["build-device"]).
#
#   scripts/device-pack.sh [--archs LIST] [--build-dir DIR]     (default: 90-real, the H100 / H200; build-sm)
#
# The binaries: czk, test_cuda, test_backend_gpu, test_prover_gpu, test_compiled. Libraries from ldd, except the C
# library's own (libc, libm, ld-linux, libpthread, libdl, librt), which the device machine has.
set -euo pipefail
cd "$(dirname "$0")/.."
archs=90-real dir=build-sm
while [ $# -gt 0 ]; do
  case "$1" in
    --archs) archs=$2; shift 2 ;;
    --build-dir) dir=$2; shift 2 ;;
    -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "device-pack: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "device-pack: no nvcc here" >&2; exit 1; }
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=ON -DCZK_CUDA_ARCHS="$archs" >/dev/null
cmake --build "$dir" -j"$(nproc)" --target czk test_cuda test_backend_gpu test_prover_gpu test_compiled
stage=build-device/stage
rm -rf "$stage" && mkdir -p "$stage/lib"
cp "$dir/src/cli/czk" "$dir/tests/cuda/test_cuda" "$dir/tests/backend/test_backend_gpu" \
  "$dir/tests/groth16/test_prover_gpu" "$dir/tests/cs/test_compiled" "$stage/"
for f in "$stage"/czk "$stage"/test_*; do strip "$f"; done
if ldd "$stage"/czk "$stage"/test_* | grep -q "not found"; then
  ldd "$stage"/czk "$stage"/test_* | grep "not found" >&2
  echo "device-pack: a library the binaries need is not found here" >&2
  exit 1
fi
for f in "$stage"/czk "$stage"/test_*; do ldd "$f" | awk '/=> \//{print $3}'; done | sort -u |
  grep -v -E 'libc\.so|libm\.so|ld-linux|libpthread|libdl\.so|librt\.so' | while read -r l; do cp -L "$l" "$stage/lib/"; done
git rev-parse --short HEAD >"$stage/COMMIT"
tar cJf build-device/pack.tar.xz -C "$stage" .
rm -rf "$stage"
ls -la build-device/pack.tar.xz
echo "commit $(git rev-parse --short HEAD); on the device: bash scripts/device-run.sh STEP... (carry [\"build-device\"])"
