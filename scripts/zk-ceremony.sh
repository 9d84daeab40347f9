#!/usr/bin/env bash
# Makes the Groth16 keys the node ships for its own networks (the devnet): a powers-of-tau ceremony
# of size 2^15 (its phase-2 preparation takes about ten minutes on two cores), then a circuit-specific
# setup and one contribution for each circuit. Outputs go to zk/keys/ with their sha256 in
# zk/keys/manifest.json. Run it once, by hand, and commit zk/keys; never in CI or at start-up.
# A real network replaces zk/keys with its own ceremony's keys (the node takes the folder by option).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=zk/build
KEYS=zk/keys
SNARKJS="node node_modules/snarkjs/build/cli.cjs"
mkdir -p "$BUILD" "$KEYS"

bash scripts/zk-compile.sh

entropy() { head -c 64 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

if [ ! -f "$BUILD/pot15_final.ptau" ]; then
  $SNARKJS powersoftau new bn128 15 "$BUILD/pot15_0.ptau"
  $SNARKJS powersoftau contribute "$BUILD/pot15_0.ptau" "$BUILD/pot15_1.ptau" --name="logos devnet" -e="$(entropy)"
  $SNARKJS powersoftau prepare phase2 "$BUILD/pot15_1.ptau" "$BUILD/pot15_final.ptau"
fi

for c in zksig pol poc; do
  mkdir -p "$KEYS/$c"
  $SNARKJS r1cs info "$BUILD/$c/$c.r1cs" | sed -n 's/.*# of Constraints: *\([0-9]*\).*/\1/p' > "$KEYS/$c/constraints.txt"
  $SNARKJS groth16 setup "$BUILD/$c/$c.r1cs" "$BUILD/pot15_final.ptau" "$BUILD/${c}_0.zkey"
  $SNARKJS zkey contribute "$BUILD/${c}_0.zkey" "$KEYS/$c/$c.zkey" --name="logos devnet $c" -e="$(entropy)"
  $SNARKJS zkey export verificationkey "$KEYS/$c/$c.zkey" "$KEYS/$c/verification_key.json"
  cp "$BUILD/$c/${c}_js/$c.wasm" "$KEYS/$c/$c.wasm"
  rm -f "$BUILD/${c}_0.zkey"
done

node --input-type=module -e '
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
const sha = (p) => createHash("sha256").update(readFileSync(p)).digest("hex");
const circuits = {};
for (const c of ["zksig", "pol", "poc"]) {
  const d = `zk/keys/${c}`;
  const constraints = Number(readFileSync(`${d}/constraints.txt`, "utf8").trim());
  circuits[c] = { constraints, wasm: sha(`${d}/${c}.wasm`), zkey: sha(`${d}/${c}.zkey`), vkey: sha(`${d}/verification_key.json`) };
}
writeFileSync("zk/keys/manifest.json", JSON.stringify({ ceremony: "logos devnet, powers of tau 2^15, one contribution per circuit", circuits }, null, 2) + "\n");
'
echo "keys written to $KEYS"
