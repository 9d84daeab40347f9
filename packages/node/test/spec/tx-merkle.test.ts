/**
 * The unit tests of core/src/utils/merkle.rs (`calculate_transactions_root`, the block body's
 * transaction Merkle root), ported to `txMerkleRoot` (src/block/merkle.ts).
 *
 * merkle/blake2btree is a different tree (a fixed-height dynamic tree of 2^32 leaves, unused by the
 * reference's block code); the transaction root is this padded power-of-two tree.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { txMerkleRoot } from '../../src/block/merkle.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { blake2b256 } from '../../src/crypto/blake2b.ts';
import { Opcode } from '../../src/mantle/ops.ts';
import { type MantleTx, txHash } from '../../src/mantle/tx.ts';

const F = 'core/src/utils/merkle.rs';

/** F's `create_random_tx(seed)`: one Transfer with no inputs and one note {value: seed, pk: 0}. */
function createRandomTx(seed: number): MantleTx {
  return {
    ops: [
      {
        opcode: Opcode.Transfer,
        payload: { inputs: [], outputs: [{ value: BigInt(seed), pk: 0n }] },
      },
    ],
  };
}

/** F's `node(left, right)`: Blake2b-256 of the concatenation. */
const node = (l: Uint8Array, r: Uint8Array) => blake2b256(l, r);

test(`test_root_two_elements (${F})`, () => {
  const txs = [createRandomTx(0), createRandomTx(1)];
  const result = txMerkleRoot(txs.map(txHash));
  const expected = node(txHash(txs[0]!), txHash(txs[1]!));
  assert.equal(bytesToHex(result), bytesToHex(expected));
});

test(`test_root_single_element (${F})`, () => {
  const txs = [createRandomTx(42)];
  assert.equal(bytesToHex(txMerkleRoot(txs.map(txHash))), bytesToHex(txHash(txs[0]!)));
});

test(`test_root_empty_elements (${F})`, () => {
  assert.equal(bytesToHex(txMerkleRoot([])), '00'.repeat(32));
});
