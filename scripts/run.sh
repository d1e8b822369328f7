#!/usr/bin/env bash
# run.sh: the main job for a newcomer on a fresh Debian machine: install dependencies, build czk, then run
# `czk demo`: a daemon on its embedded default configuration proving, through its gRPC API (on the GPU when one is
# present, else on the CPU), a 2 KiB WinningPoSt, WindowPoSt partition, PoRep C2 and SnapDeals update as Curio sends
# them (keys set up on the first run in ~/.cache/czk-demo-keys) beside synthetic jobs, every proof verified, device
# busy % printed, the timeline written to czk-timeline.html; plus a circom/snarkjs job when Node is present, whose
# proof `snarkjs groth16 verify` checks at the end. Extra arguments go to `czk demo` (--sector-size 8MiB,
# --no-filecoin, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# CUDA: build for this machine's GPU when there is one (the fat binary for every supported card is the default of a
# plain CMake configure: -DCZK_CUDA_ARCHS=...); without a GPU the CUDA backend is left out of this build.
cuda_args=(-DCZK_CUDA=OFF)
if command -v nvidia-smi >/dev/null 2>&1 && cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1) \
   && [ -n "$cc" ]; then
  cuda_args=(-DCZK_CUDA=AUTO "-DCZK_CUDA_ARCHS=${cc/./}-real")
fi
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" >/dev/null
cmake --build build-release -j"$(nproc)" --target czk # the command only: the tests are scripts/test.sh's
# A circom job too when Node is present: the oracle's `mix` circuit (circom2 + a snarkjs setup on a small local
# powers-of-tau, cached; a few minutes the first time).
circom=()
cache="${XDG_CACHE_HOME:-$HOME/.cache}/czk-demo-circom"
if command -v node >/dev/null 2>&1 && bash scripts/oracle-prepare.sh "$cache" mix; then
  circom=(--circom "$cache/mix/mix.zkey" "$cache/mix/witness.wtns")
fi
build-release/src/cli/czk demo "${circom[@]}" "$@"
if [ ${#circom[@]} -gt 0 ]; then
  # the circom proof the daemon made, checked by a verifier we did not write
  node node_modules/snarkjs/cli.js groth16 verify "$cache/mix/verification_key.json" czk-circom-public.json \
    czk-circom-proof.json
fi
