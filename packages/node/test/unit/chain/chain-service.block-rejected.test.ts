/**
 * Every way the chain refuses a block has its own code and action: `ignore` (already applied, future,
 * parent missing: then sync is needed), `reject` (invalid structure, signature, uncle, ledger rule) and
 * `internal` (storage).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogosError } from '@logos-ts/shared/errors';
import { type Block, bodyRoot } from '../../../src/block/block.ts';
import { encodeHeader, headerId, type SignedHeader } from '../../../src/block/header.ts';
import { type BlockAction, BlockRejected, type BlockRejectedCode } from '../../../src/chain/index.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { TEST_LEADER, TestChain } from '../../mocks/ledger.ts';
import { chainService } from './helpers.ts';

function rejected(code: BlockRejectedCode, action: BlockAction, causeCode?: string) {
  return (e: unknown) => {
    assert.ok(e instanceof BlockRejected, `expected BlockRejected, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.equal(e.action, action);
    assert.equal(e.meta.action, action);
    assert.equal(e.syncNeeded, code === 'BLOCK_PARENT_MISSING');
    if (causeCode !== undefined) assert.equal(e.meta.causeCode, causeCode);
    return true;
  };
}

/** The block with its header changed and signed again. */
function resigned(b: Block, change: Partial<Block['header']>, uncles = b.uncle_headers): Block {
  const header = { ...b.header, ...change };
  return { ...b, header, uncle_headers: uncles, signature: TEST_LEADER.sign(encodeHeader(header)) };
}

const withUncles = (b: Block, uncles: SignedHeader[]) =>
  resigned(b, { body_root: bodyRoot(uncles, []) }, uncles);

test('ignore: already applied, from a future slot, parent missing (sync needed)', async () => {
  const s = await chainService();
  try {
    const t = new TestChain();
    const b1 = t.block([], 1n);
    t.apply([], 1n);
    const b2 = t.block([], 2n);
    // F chain-service texts, block ids as `HeaderId` `Display` (0x).
    const b1Id = `0x${bytesToHex(headerId(b1.header))}`;
    await assert.rejects(
      s.chain.submit(b2),
      (e) =>
        rejected('BLOCK_PARENT_MISSING', 'ignore')(e) &&
        (e as Error).message === `Missing parent while applying block ${b1Id}`,
    );
    await assert.rejects(s.chain.submit(t.block([], 501_000n)), rejected('BLOCK_FUTURE', 'ignore'));
    await s.chain.submit(b1);
    await assert.rejects(
      s.chain.submit(b1),
      (e) =>
        rejected('BLOCK_ALREADY_APPLIED', 'ignore')(e) &&
        (e as Error).message === `Block ${b1Id} has already been applied`,
    );
  } finally {
    s.close();
  }
});

test('reject: bad structure, bad signature, invalid uncle, ledger rule broken', async () => {
  const s = await chainService();
  try {
    const t = new TestChain();
    const b1 = t.block([], 1n);
    await assert.rejects(
      s.chain.submit(resigned(b1, { body_root: new Uint8Array(32).fill(9) })),
      rejected('BLOCK_INVALID', 'reject', 'BLOCK_BAD_BODY_ROOT'),
    );
    const badSig = { ...b1, signature: b1.signature.map((x, i) => (i === 0 ? x ^ 1 : x)) };
    await assert.rejects(
      s.chain.submit(badSig),
      rejected('BLOCK_INVALID_SIGNATURE', 'reject', 'BLOCK_BAD_SIGNATURE'),
    );
    const badProof = resigned(b1, {
      proof_of_leadership: { ...b1.header.proof_of_leadership, proof: new Uint8Array(128) },
    });
    await assert.rejects(
      s.chain.submit(badProof),
      rejected('BLOCK_LEDGER', 'reject', 'LEDGER_INVALID_LEADER_PROOF'),
    );
    await s.chain.submit(b1);
    t.apply([], 1n);
    const self = { header: b1.header, signature: b1.signature };
    await assert.rejects(
      s.chain.submit(withUncles(t.block([], 2n), [self])),
      rejected('BLOCK_INVALID_UNCLE', 'reject', 'UNCLE_ON_CHAIN'),
    );
    assert.equal(s.chain.tip().height, 1, 'no refused block was applied');
  } finally {
    s.close();
  }
});

test('internal: a storage failure, and every block after it', async () => {
  const s = await chainService();
  try {
    const fatal: Error[] = [];
    s.chain.on('fatal', (e) => fatal.push(e));
    // The chain store the service was given.
    const store = s.store.chain;
    store.commit = () => Promise.reject(new Error('disk full'));
    const t = new TestChain();
    const b1 = t.block([], 1n);
    await assert.rejects(s.chain.submit(b1), rejected('BLOCK_STORAGE', 'internal'));
    assert.equal(fatal.length, 1);
    t.apply([], 1n);
    await assert.rejects(s.chain.submit(t.block([], 2n)), rejected('BLOCK_STORAGE', 'internal'));
  } finally {
    s.close();
  }
});

test('a rejection crosses a worker boundary with its code, action and metadata', async () => {
  const s = await chainService();
  try {
    const t = new TestChain();
    t.apply([], 1n);
    const e = await s.chain.submit(t.block([], 2n)).then(
      () => assert.fail('accepted'),
      (err: unknown) => err as BlockRejected,
    );
    const back = LogosError.fromObject(structuredClone(e.toObject()));
    assert.ok(back instanceof BlockRejected);
    assert.equal(back.code, 'BLOCK_PARENT_MISSING');
    assert.equal(back.action, 'ignore');
    assert.equal(back.syncNeeded, true);
    assert.deepEqual(back.meta, e.meta);
    assert.equal(typeof back.meta.parent, 'string');
  } finally {
    s.close();
  }
});
