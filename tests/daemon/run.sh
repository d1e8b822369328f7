#!/usr/bin/env bash
# Black-box daemon test driver for CTest: skips (77) when the npm test oracles are not installed.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ ! -d "$root/node_modules/@grpc/grpc-js" ] || ! command -v node >/dev/null 2>&1; then
  echo "skipped: node or node_modules (npm ci) missing"
  exit 77
fi
CZK_BIN="$1" node --test "$root/tests/daemon/lifecycle.test.mjs" || exit 1
CZK_BIN="$1" exec node --test "$root/tests/daemon/daemon.test.mjs"
