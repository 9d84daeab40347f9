/** Block size limits, ported from the reference (core/src/block/mod.rs). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BlockError,
  checkBlockStructure,
  encodeBlock,
  MAX_BLOCK_TRANSACTIONS,
  MAX_BLOCK_TRANSACTIONS_SIZE,
} from '../../src/block/block.ts';
import { MAX_INSCRIPTION_BYTES, Opcode } from '../../src/mantle/ops.ts';
import { encodeSignedTx, type SignedMantleTx } from '../../src/mantle/tx.ts';
import { TestChain } from '../ledger/helpers.ts';
import { rejects, ZERO32 } from './ledger-helpers.ts';

const F = 'core/src/block/mod.rs';

/** A transaction of one inscription of `n` bytes (its signature is not checked here). */
function inscriptionTx(n: number): SignedMantleTx {
  return {
    mantle_tx: {
      ops: [
        {
          opcode: Opcode.ChannelInscribe,
          payload: { channel_id: ZERO32, inscription: new Uint8Array(n), parent: ZERO32, signer: ZERO32 },
        },
      ],
    },
    ops_proofs: [{ type: 'Ed25519Sig', signature: new Uint8Array(64) }],
  };
}

/** An inscription transaction of exactly `size` encoded bytes. */
function txOfSize(size: number): SignedMantleTx {
  const overhead = encodeSignedTx(inscriptionTx(0)).length;
  const tx = inscriptionTx(size - overhead);
  assert.equal(encodeSignedTx(tx).length, size);
  return tx;
}

test(`test_block_transaction_size_validation (${F})`, () => {
  const c = new TestChain();
  checkBlockStructure(c.block([]));
  // The largest inscription is 7/8 of the limit, so the limit is reached with two transactions.
  const first = inscriptionTx(MAX_INSCRIPTION_BYTES);
  const rest = MAX_BLOCK_TRANSACTIONS_SIZE - encodeSignedTx(first).length;
  checkBlockStructure(c.block([first, txOfSize(rest)]));
  assert.throws(
    () => checkBlockStructure(c.block([first, txOfSize(rest + 1)])),
    (e: unknown) => e instanceof BlockError && e.code === 'BLOCK_TOO_LARGE',
  );
  rejects(() => c.apply([first, txOfSize(rest + 1)]), 'BlockTooLarge');
});

test(`test_block_transaction_count_validation (${F})`, () => {
  assert.equal(MAX_BLOCK_TRANSACTIONS, 1024);
  const c = new TestChain();
  const empty = (): SignedMantleTx => ({ mantle_tx: { ops: [] }, ops_proofs: [] });
  // 1024 transactions pass the count limit (these then fail their fee check); 1025 do not.
  rejects(() => c.apply(Array.from({ length: 1024 }, empty)), 'InsufficientBalance');
  rejects(() => c.apply(Array.from({ length: 1025 }, empty)), 'TooManyTransactions');
  // The block codec bounds the list as the reference's `BlockTransactions` does.
  assert.throws(() => encodeBlock(c.block(Array.from({ length: 1025 }, empty))));
  encodeBlock(c.block(Array.from({ length: 1024 }, empty)));
});
