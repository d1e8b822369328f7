#!/usr/bin/env bash
# run.sh: the main job for a newcomer on a fresh Debian machine: install dependencies, build czk (with the CUDA
# backend when nvcc is present), then run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release -j"$(nproc)"
CZK=build-release/src/cli/czk
if "$CZK" --help | grep -q '^  demo '; then
  exec "$CZK" demo "$@"
fi
exec "$CZK" bench field "$@"
