#!/usr/bin/env bash
# deps.sh: install what czk needs to build and test on a fresh Debian machine (idempotent).
#   Debian packages: compiler, CMake, Python 3 (tree checks), GMP (tests), gRPC C core + protobuf-c (daemon), libmicrohttpd (HTTP), json-c (request files), yajl (streaming JSON: PoRep C1 outputs), libsodium (BLAKE2b), clang + libclang-rt-14-dev (libFuzzer: scripts/fuzz.sh).
#   promtool (metrics lint test): from the Debian package prometheus, extracted into .cache/promtool (below).
#   npm packages (test oracles: snarkjs, circom2, @grpc/grpc-js ...): pinned by package-lock.json, installed with npm ci.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: headless, for test_timeline_daemon (renders the timeline page, fails on any script error)
PKGS="build-essential cmake pkg-config python3 libgmp-dev libgrpc-dev libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev libjson-c-dev libyajl-dev libsodium-dev chromium clang libclang-rt-14-dev"
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
# promtool, for test_metrics_promtool (`promtool check metrics` on /metrics): taken from the Debian package prometheus
# into .cache/promtool without installing the package (that would add ~96 MB and start a Prometheus server); a 19 MB
# download, once. CZK_NO_PROMTOOL=1 skips it (the test then skips).
if [ "${CZK_NO_PROMTOOL:-0}" != 1 ] && ! command -v promtool >/dev/null 2>&1 && [ ! -x .cache/promtool/promtool ]; then
  tmp="$(mktemp -d)"
  if (cd "$tmp" && apt-get download -qq prometheus >/dev/null 2>&1) && dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x" &&
    mkdir -p .cache/promtool && cp "$tmp/x/usr/bin/promtool" .cache/promtool/promtool; then
    echo "deps: promtool from the Debian package prometheus (.cache/promtool)"
  else
    echo "deps: promtool unavailable (apt-get download prometheus failed): test_metrics_promtool will skip"
  fi
  rm -rf "$tmp"
fi
