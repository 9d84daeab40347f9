/**
 * The texts of the chain's refusals print block ids as the reference's `HeaderId` `Display` does (`0x`
 * and lower-case hex), with F chain-service's wording where it has the same refusal
 * (`ApiError::AlreadyApplied`, `ApiError::ParentMissing`); the metadata keeps plain hex. The chain
 * service's own refusals are checked in chain-service.block-rejected.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeBlock } from '../../../src/block/block.ts';
import { headerId } from '../../../src/block/header.ts';
import { headerIdText, SeenBlocks, validateGossipBlock } from '../../../src/chain/index.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { TestChain } from '../../mocks/ledger.ts';

const view = (known: Uint8Array[]) => {
  const ids = new Set(known.map(bytesToHex));
  return {
    has: (id: Uint8Array) => ids.has(bytesToHex(id)),
    lib: () => ({ id: new Uint8Array(32), slot: 0n, height: 0 }),
  };
};

test('a block id prints as F HeaderId Display: 0x and lower-case hex', () => {
  assert.equal(headerIdText(new Uint8Array(32).fill(0xab)), `0x${'ab'.repeat(32)}`);
  assert.equal(headerIdText('cd'.repeat(32)), `0x${'cd'.repeat(32)}`);
});

test('gossip pre-check: already applied, parent missing and seen name their blocks with 0x', () => {
  const t = new TestChain();
  const b1 = t.block([], 1n);
  const id = bytesToHex(headerId(b1.header));
  const parent = bytesToHex(t.genesis.id);
  const at = (known: Uint8Array[]) => ({ chain: view(known), currentSlot: 10n, seen: new SeenBlocks() });
  assert.throws(() => validateGossipBlock(encodeBlock(b1), at([t.genesis.id, headerId(b1.header)])), {
    message: `Block 0x${id} has already been applied`,
    meta: { action: 'ignore', block: id, slot: 1n },
  });
  assert.throws(() => validateGossipBlock(encodeBlock(b1), at([])), {
    message: `Missing parent while applying block 0x${parent}`,
    meta: { action: 'ignore', block: id, slot: 1n, parent },
  });
  const ctx = at([t.genesis.id]);
  validateGossipBlock(encodeBlock(b1), ctx);
  assert.throws(() => validateGossipBlock(encodeBlock(b1), ctx), {
    message: `block 0x${id} was received before`,
  });
});
