#!/usr/bin/env bash
# Builds the Groth16 test fixture in test/spec/vectors/groth16/ ONCE (the outputs are committed; tests never run
# this): compiles toy.circom with circom2 (WASI), runs a throwaway powers of tau (2^6) and phase 2 with
# snarkjs, exports the verification key and proves three statements.
#
#   scripts/make-groth16-fixture.sh
#
# Outputs: verification_key.json, proof_{1,2,3}.json, public_{1,2,3}.json. The .ptau/.zkey/.wasm files stay in
# a temporary directory that is deleted on exit. The ceremony uses fresh randomness, so every run gives a
# different key and different proofs (the tests only need them to be consistent with each other).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/test/spec/vectors/groth16"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

SNARKJS=(node "$(node -p "require('node:path').join(require('node:path').dirname(require.resolve('snarkjs')), 'cli.cjs')")")
CIRCOM=(node "$(node -p "require.resolve('circom2/cli.js')")")

cd "$ROOT"
"${CIRCOM[@]}" "$OUT/toy.circom" --r1cs --wasm -o "$WORK"

"${SNARKJS[@]}" powersoftau new bn128 6 "$WORK/pot_0.ptau"
"${SNARKJS[@]}" powersoftau contribute "$WORK/pot_0.ptau" "$WORK/pot_1.ptau" --name=fixture -e="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
"${SNARKJS[@]}" powersoftau prepare phase2 "$WORK/pot_1.ptau" "$WORK/pot_final.ptau"
"${SNARKJS[@]}" groth16 setup "$WORK/toy.r1cs" "$WORK/pot_final.ptau" "$WORK/toy_0.zkey"
"${SNARKJS[@]}" zkey contribute "$WORK/toy_0.zkey" "$WORK/toy.zkey" --name=fixture -e="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
"${SNARKJS[@]}" zkey export verificationkey "$WORK/toy.zkey" "$OUT/verification_key.json"

# Statements: (x, y, w). The third uses p - 1 and other full-size field elements.
INPUTS=(
  '{"x": "3", "y": "5", "w": "7"}'
  '{"x": "11", "y": "13", "w": "17"}'
  '{"x": "21888242871839275222246405745257275088548364400416034343698204186575808495616", "y": "123456789012345678901234567890123456789012345678901234567890", "w": "9876543210987654321098765432109876543210987654321098765432109876"}'
)
for i in 1 2 3; do
  echo "${INPUTS[$((i - 1))]}" >"$WORK/input_$i.json"
  "${SNARKJS[@]}" wtns calculate "$WORK/toy_js/toy.wasm" "$WORK/input_$i.json" "$WORK/witness_$i.wtns"
  "${SNARKJS[@]}" groth16 prove "$WORK/toy.zkey" "$WORK/witness_$i.wtns" "$OUT/proof_$i.json" "$OUT/public_$i.json"
  "${SNARKJS[@]}" groth16 verify "$OUT/verification_key.json" "$OUT/public_$i.json" "$OUT/proof_$i.json"
done
# Keep the JSON in the repository's format (biome check runs on test/).
node "$(node -p "require.resolve('@biomejs/biome/bin/biome')")" format --write "$OUT" >/dev/null
ls -l "$OUT"
