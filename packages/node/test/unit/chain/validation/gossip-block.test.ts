/**
 * The gossip pre-check: decode, seen, slot window, known parent; each failure typed with the action
 * gossip takes (ignore the message, or penalise its sender).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeBlock } from '../../../../src/block/block.ts';
import { headerId } from '../../../../src/block/header.ts';
import {
  type BlockAction,
  BlockRejected,
  type BlockRejectedCode,
  SeenBlocks,
  validateGossipBlock,
} from '../../../../src/chain/index.ts';
import { bytesToHex } from '../../../../src/codec/hex.ts';
import { TestChain } from '../../../mocks/ledger.ts';
import { chainService } from '../helpers.ts';

function rejected(code: BlockRejectedCode, action: BlockAction) {
  return (e: unknown) => e instanceof BlockRejected && e.code === code && e.action === action;
}

/** A chain view that knows some ids, with its LIB at `libSlot`. */
function view(known: Uint8Array[], libSlot = 0n) {
  const ids = new Set(known.map(bytesToHex));
  return {
    has: (id: Uint8Array) => ids.has(bytesToHex(id)),
    lib: () => ({ id: new Uint8Array(32), slot: libSlot, height: 0 }),
  };
}

test('a block on a known parent in the slot window passes, once', () => {
  const t = new TestChain();
  const b1 = t.block([], 1n);
  const ctx = { chain: view([t.genesis.id]), currentSlot: 10n, seen: new SeenBlocks() };
  const { block, id } = validateGossipBlock(encodeBlock(b1), ctx);
  assert.equal(bytesToHex(id), bytesToHex(headerId(b1.header)));
  assert.equal(block.header.slot, 1n);
  assert.throws(() => validateGossipBlock(encodeBlock(b1), ctx), rejected('BLOCK_ALREADY_SEEN', 'ignore'));
});

test('undecodable bytes are rejected (the sender is penalised)', () => {
  const ctx = { chain: view([]), currentSlot: 10n, seen: new SeenBlocks() };
  assert.throws(
    () => validateGossipBlock(new Uint8Array([1, 2, 3]), ctx),
    rejected('BLOCK_UNDECODABLE', 'reject'),
  );
  const t = new TestChain();
  const bytes = encodeBlock(t.block([], 1n));
  const trailing = new Uint8Array(bytes.length + 1);
  trailing.set(bytes);
  assert.throws(() => validateGossipBlock(trailing, ctx), rejected('BLOCK_UNDECODABLE', 'reject'));
});

test('future, too old, parent unknown and already applied blocks are ignored', () => {
  const t = new TestChain();
  const b1 = t.block([], 1n);
  const b5 = t.block([], 5n);
  const seen = new SeenBlocks();
  const at = (currentSlot: bigint, known: Uint8Array[], libSlot = 0n) => ({
    chain: view(known, libSlot),
    currentSlot,
    seen,
  });
  assert.throws(
    () => validateGossipBlock(encodeBlock(b5), at(4n, [t.genesis.id])),
    rejected('BLOCK_FUTURE', 'ignore'),
  );
  assert.throws(
    () => validateGossipBlock(encodeBlock(b5), at(10n, [t.genesis.id], 5n)),
    rejected('BLOCK_TOO_OLD', 'ignore'),
  );
  assert.throws(
    () => validateGossipBlock(encodeBlock(b5), at(10n, [])),
    (e: unknown) => rejected('BLOCK_PARENT_MISSING', 'ignore')(e) && (e as BlockRejected).syncNeeded,
  );
  assert.throws(
    () => validateGossipBlock(encodeBlock(b1), at(10n, [t.genesis.id, headerId(b1.header)])),
    rejected('BLOCK_ALREADY_APPLIED', 'ignore'),
  );
  // None of the refused blocks was recorded as seen: a later copy is checked again.
  assert.doesNotThrow(() => validateGossipBlock(encodeBlock(b5), at(10n, [t.genesis.id])));
});

test('the chain service is a view the pre-check accepts', async () => {
  const s = await chainService();
  try {
    const t = new TestChain();
    const b1 = t.block([], 1n);
    const ctx = { chain: s.chain, currentSlot: 10n, seen: new SeenBlocks() };
    const { block } = validateGossipBlock(encodeBlock(b1), ctx);
    await s.chain.submit(block);
    assert.throws(
      () => validateGossipBlock(encodeBlock(b1), { ...ctx, seen: new SeenBlocks() }),
      rejected('BLOCK_ALREADY_APPLIED', 'ignore'),
    );
  } finally {
    s.close();
  }
});

test('the seen set is bounded and forgets the oldest first', () => {
  const seen = new SeenBlocks(2);
  seen.add('a');
  seen.add('b');
  seen.add('c');
  assert.equal(seen.has('a'), false);
  assert.equal(seen.has('b'), true);
  assert.equal(seen.has('c'), true);
});
