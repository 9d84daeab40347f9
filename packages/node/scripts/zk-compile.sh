#!/usr/bin/env bash
# Regenerates zk/circuits/poseidon2_constants.circom from the TypeScript round constants, then compiles
# the node's circuits with circom2 (--r1cs --wasm --O2) into zk/build/<name>/:
#   zk/build/<name>/<name>.r1cs, zk/build/<name>/<name>_js/<name>.wasm, zk/build/<name>/sources.sha256
#
#   scripts/zk-compile.sh                 # zksig, poc, pol, poq
#   scripts/zk-compile.sh pol             # only some (a name is zk/circuits/<name>.circom or
#   scripts/zk-compile.sh poseidon2_test  #   zk/circuits/test/<name>.circom)
#   ZK_NO_GEN=1 scripts/zk-compile.sh     # skip the constants regeneration
#
# Idempotent: each circuit is compiled into a temporary directory that replaces zk/build/<name> only on
# success. sources.sha256 is the hash of every zk/circuits/**/*.circom at compile time (the tests
# recompile when it no longer matches). Fails on any error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# the workspace installs its tools where node resolves them (the root node_modules)
circom=(node "$(node -p "require.resolve('circom2/cli.js')")")
names=("$@")
if [ ${#names[@]} -eq 0 ]; then names=(zksig poc pol poq); fi

if [ "${ZK_NO_GEN:-}" != "1" ]; then
  node --import tsx scripts/gen-poseidon2-circom.ts
fi

# Same definition as sourcesStamp() in test/unit/zk/circuits.test.ts.
stamp="$(find zk/circuits -name '*.circom' -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"

mkdir -p zk/build
tmp=""
cleanup() { if [ -n "$tmp" ]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT

for name in "${names[@]}"; do
  if [ -f "zk/circuits/$name.circom" ]; then
    src="zk/circuits/$name.circom"
  elif [ -f "zk/circuits/test/$name.circom" ]; then
    src="zk/circuits/test/$name.circom"
  else
    echo "zk-compile: no circuit named $name" >&2
    exit 1
  fi
  tmp="zk/build/.tmp-$name-$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  start=$(date +%s%N)
  "${circom[@]}" "$src" --r1cs --wasm --O2 -o "$tmp" >"$tmp/circom.log" 2>&1 || {
    cat "$tmp/circom.log" >&2
    echo "zk-compile: circom failed on $src" >&2
    exit 1
  }
  if [ ! -f "$tmp/$name.r1cs" ] || [ ! -f "$tmp/${name}_js/$name.wasm" ]; then
    cat "$tmp/circom.log" >&2
    echo "zk-compile: circom produced no $name.r1cs / ${name}_js/$name.wasm" >&2
    exit 1
  fi
  echo "$stamp" >"$tmp/sources.sha256"
  rm -rf "zk/build/$name"
  mv "$tmp" "zk/build/$name"
  tmp=""
  constraints=$(grep -o 'non-linear constraints: [0-9]*' "zk/build/$name/circom.log" | grep -o '[0-9]*$' || true)
  ms=$((($(date +%s%N) - start) / 1000000))
  printf 'zk-compile: %-16s %6s constraints  %d.%03d s\n' "$name" "$constraints" $((ms / 1000)) $((ms % 1000))
done
