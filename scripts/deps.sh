#!/usr/bin/env bash
# deps.sh: install what czk needs to build and test on a fresh Debian machine (idempotent).
#   Debian packages: compiler, CMake, Python 3 (tree checks), GMP (tests), gRPC C core + protobuf-c (daemon), libmicrohttpd (HTTP), json-c (request files), yajl (streaming JSON: PoRep C1 outputs), libsodium (BLAKE2b), clang + libclang-rt-14-dev (libFuzzer: scripts/fuzz.sh).
#   npm packages (test oracles: snarkjs, circom2, @grpc/grpc-js ...): pinned by package-lock.json, installed with npm ci.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS="build-essential cmake pkg-config python3 libgmp-dev libgrpc-dev libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev libjson-c-dev libyajl-dev libsodium-dev clang libclang-rt-14-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing="$missing nodejs npm"
fi
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "deps: installing$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
if [ -f package-lock.json ] && command -v npm >/dev/null 2>&1; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
    echo "deps: npm ci (test oracles)"
    npm ci --no-audit --no-fund --loglevel=error
    touch node_modules
  fi
fi
