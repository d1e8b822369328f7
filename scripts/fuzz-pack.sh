#!/usr/bin/env bash
# fuzz-pack.sh: build the libFuzzer harnesses (as scripts/fuzz.sh does, in build-fuzz/) and pack them, with the shared
# libraries they were linked with, the committed seeds and dictionaries, the corpus grown so far (build-fuzz/corpus)
# and scripts/fuzz.sh, into one tarball that runs on a machine without clang (same CPU family; a glibc at least as new
# as this one's):
#
#   scripts/fuzz-pack.sh [--no-build] [OUT.tar.gz]          (default OUT: build-fuzz/czk-fuzz.tar.gz)
#
# There:  tar xzf czk-fuzz.tar.gz && cd czk-fuzz && scripts/fuzz.sh --no-build --execs 10000000 --minutes 20 --jobs 16
# (each target stops at 10^7 executions or after 20 minutes, whichever comes first; the table at the end says which).
# Findings land in build-fuzz/artifacts/<target>/, the grown corpus in build-fuzz/corpus/<target>/: bring both back.
# The tarball must stay under 60 MiB (the script fails otherwise); the grown corpus is packed only when it fits.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=1
out=""
while [ $# -gt 0 ]; do
  case "$1" in
  --no-build) build=0; shift ;;
  -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "fuzz-pack.sh: unknown option $1" >&2; exit 2 ;;
  *) out=$1; shift ;;
  esac
done
bdir=${CZK_FUZZ_BUILD:-$root/build-fuzz}
out=${out:-$bdir/czk-fuzz.tar.gz}
limit=$((60 << 20))
targets="zkey wtns r1cs params vk snarkjs_json porep_c1 post_vanilla snap_vanilla proto config request"

if [ $build = 1 ]; then
  cc=$(command -v clang || true)
  [ -n "$cc" ] || { echo "fuzz-pack.sh: clang not found (scripts/deps.sh installs it)" >&2; exit 2; }
  cmake -S . -B "$bdir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_CUDA=OFF -DCZK_FUZZ=ON \
    >/dev/null
  cmake --build "$bdir" -j"$(nproc)" --target fuzz_all >/dev/null
fi
for t in $targets; do
  [ -x "$bdir/tests/fuzz/fuzz_$t" ] || { echo "fuzz-pack.sh: $bdir/tests/fuzz/fuzz_$t missing" >&2; exit 2; }
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/czk-fuzz-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
p=$stage/czk-fuzz
mkdir -p "$p/scripts" "$p/tests/fuzz" "$p/build-fuzz/tests/fuzz" "$p/build-fuzz/lib"
cp scripts/fuzz.sh "$p/scripts/"
cp -r tests/fuzz/corpus tests/fuzz/dict "$p/tests/fuzz/"
for t in $targets; do cp "$bdir/tests/fuzz/fuzz_$t" "$p/build-fuzz/tests/fuzz/"; done
# every shared library but glibc's own (the loader, libc, libm, libpthread, libdl, librt, libresolv)
for t in $targets; do ldd "$bdir/tests/fuzz/fuzz_$t"; done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
  while read -r lib; do
    case $(basename "$lib") in
    ld-linux* | libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | libresolv.so*) ;;
    *) cp -L "$lib" "$p/build-fuzz/lib/" ;;
    esac
  done
{
  clang --version 2>/dev/null | head -1 || echo "clang (version unknown)"
  echo "packed $(date -u +%Y-%m-%dT%H:%MZ) from $(git rev-parse --short HEAD 2>/dev/null || echo '?') on $(uname -m)," \
    "glibc $(ldd --version | head -1 | awk '{print $NF}')"
} >"$p/build-fuzz/fuzz-build-info.txt"

# the packed binaries start with only the packed libraries (no clang, no build tree): one run of each on its seeds
for t in $targets; do
  if ! env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$p/build-fuzz/lib" ASAN_OPTIONS=detect_leaks=0 \
    "$p/build-fuzz/tests/fuzz/fuzz_$t" -runs=0 "$p/tests/fuzz/corpus/$t" >"$stage/check.log" 2>&1; then
    echo "fuzz-pack.sh: packed fuzz_$t does not run:" >&2
    tail -5 "$stage/check.log" >&2
    exit 1
  fi
done

mkdir -p "$(dirname "$out")"
tar -C "$stage" -czf "$out.tmp" czk-fuzz
if [ -d "$bdir/corpus" ]; then # with the grown corpus when it still fits
  mkdir -p "$p/build-fuzz/corpus"
  cp -r "$bdir/corpus/." "$p/build-fuzz/corpus/"
  tar -C "$stage" -czf "$out.corpus" czk-fuzz
  if [ "$(stat -c %s "$out.corpus")" -lt $limit ]; then
    mv "$out.corpus" "$out.tmp"
  else
    rm -f "$out.corpus"
    echo "fuzz-pack.sh: the grown corpus does not fit in 60 MiB; packed the committed seeds only" >&2
  fi
fi
size=$(stat -c %s "$out.tmp")
if [ "$size" -ge $limit ]; then
  rm -f "$out.tmp"
  echo "fuzz-pack.sh: the tarball is $((size >> 20)) MiB, over 60 MiB" >&2
  exit 1
fi
mv "$out.tmp" "$out"
echo "$out: $((size / 1024)) KiB; run there:"
echo "  tar xzf $(basename "$out") && cd czk-fuzz && scripts/fuzz.sh --no-build --execs 10000000 --minutes 20 --jobs 16"
