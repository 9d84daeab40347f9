#!/usr/bin/env bash
# Makes the Groth16 keys the node ships for its own networks (the devnet): a powers-of-tau ceremony
# of size 2^15 (its phase-2 preparation takes about ten minutes on two cores), then a circuit-specific
# setup and one contribution for each circuit. Outputs go to zk/keys/, a circuits folder in the
# reference's layout (one sub-folder per circuit: signature, pol, poc, poq, each with proving_key.zkey,
# verification_key.json and this node's witness generator, witness_generator.wasm), with their sha256 in
# zk/keys/manifest.json. Run it once, by hand, and commit zk/keys; never in CI or at start-up.
#
#   scripts/zk-ceremony.sh              # every circuit: zksig pol poc poq
#   scripts/zk-ceremony.sh poq          # only the named ones; the manifest keeps the others' entries
#
# Keys in use are pinned: making them again changes every proof's verification key, so name only the
# circuits that are new or changed.
# A network with its own ceremony's keys gives the node their folder (--circuits, proofs.circuits or
# LBC_ROOT_DIR), as the reference's own circuits release is given.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=zk/build
KEYS=zk/keys
# the workspace installs its tools where node resolves them (the root node_modules)
SNARKJS="node "$(node -p "require('node:path').join(require('node:path').dirname(require.resolve('snarkjs')), 'cli.cjs')")""
mkdir -p "$BUILD" "$KEYS"

CIRCUITS=("$@")
if [ ${#CIRCUITS[@]} -eq 0 ]; then CIRCUITS=(zksig pol poc poq); fi

bash scripts/zk-compile.sh "${CIRCUITS[@]}"

entropy() { head -c 64 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

if [ ! -f "$BUILD/pot15_final.ptau" ]; then
  $SNARKJS powersoftau new bn128 15 "$BUILD/pot15_0.ptau"
  $SNARKJS powersoftau contribute "$BUILD/pot15_0.ptau" "$BUILD/pot15_1.ptau" --name="logos devnet" -e="$(entropy)"
  $SNARKJS powersoftau prepare phase2 "$BUILD/pot15_1.ptau" "$BUILD/pot15_final.ptau"
fi

# The reference's folder name of each circuit (the ZkSig circuit is "signature").
folder() { if [ "$1" = zksig ]; then echo signature; else echo "$1"; fi; }

for c in "${CIRCUITS[@]}"; do
  d="$KEYS/$(folder "$c")"
  mkdir -p "$d"
  $SNARKJS r1cs info "$BUILD/$c/$c.r1cs" | sed -n 's/.*# of Constraints: *\([0-9]*\).*/\1/p' > "$d/constraints.txt"
  $SNARKJS groth16 setup "$BUILD/$c/$c.r1cs" "$BUILD/pot15_final.ptau" "$BUILD/${c}_0.zkey"
  $SNARKJS zkey contribute "$BUILD/${c}_0.zkey" "$d/proving_key.zkey" --name="logos devnet $c" -e="$(entropy)"
  $SNARKJS zkey export verificationkey "$d/proving_key.zkey" "$d/verification_key.json"
  cp "$BUILD/$c/${c}_js/$c.wasm" "$d/witness_generator.wasm"
  rm -f "$BUILD/${c}_0.zkey"
done

node --import tsx scripts/zk-manifest.ts "${CIRCUITS[@]}"
echo "keys written to $KEYS"
