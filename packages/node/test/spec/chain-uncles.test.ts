/**
 * The uncle validity tests of the reference chain service (`services/chain/chain-service/src/uncle.rs` at
 * F), ported on the same tree: `G --- B1` with a fork block `U1` also on G, at B1's slot, that the chain
 * has never received. Proofs come from the insecure test backend (a PoL verifies only for the public
 * inputs it was made for, like a real one).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { type Block, bodyRoot } from '../../src/block/block.ts';
import { encodeHeader, type Header, headerId, type SignedHeader } from '../../src/block/header.ts';
import { ChainService } from '../../src/chain/chain-service.ts';
import { SlotClock } from '../../src/chain/clock.ts';
import { Ed25519Signer, ed25519GenerateSecretKey } from '../../src/crypto/ed25519.ts';
import { epochSchedule } from '../../src/ledger/parameters.ts';
import { openStore } from '../../src/storage/open.ts';
import { INSECURE_TEST_PROOFS } from '../../src/zk/insecure-test-proofs.ts';
import { DEVNET, TEST_LEADER, TestChain } from '../mocks/ledger.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `chain_with_fork()`: the service holding G --- B1, the fork block U1 (not received), the test chain at B1. */
async function chainWithFork() {
  const dir = mkdtempSync(join(tmpdir(), 'logos-uncles-'));
  dirs.push(dir);
  const store = await openStore(dir);
  const clock = new SlotClock(1_700_000_000_000, DEVNET.slot_duration_ms, () => 1_700_000_000_000 + 10 ** 9);
  const chain = await ChainService.init(
    { deployment: DEVNET, genesisTimeMs: 1_700_000_000_000, online: false },
    { store: store.chain, proofs: INSECURE_TEST_PROOFS, clock, logger: pino({ level: 'silent' }) },
  );
  const t = new TestChain();
  // Both extend the genesis at slot 1 and differ only in their voucher.
  const u1 = t.block([], 1n, 8n);
  const b1 = t.block([], 1n);
  t.apply([], 1n);
  await chain.submit(b1);
  return { chain, t, b1, u1, close: () => store.close() };
}

const signed = (b: Block): SignedHeader => ({ header: b.header, signature: b.signature });

/** A block on `parent` at `slot` carrying `uncles`, with `proof`'s leadership fields (`craft_block_with_uncles`). */
function craft(parent: Uint8Array, slot: bigint, uncles: SignedHeader[], like: Header): Block {
  const header: Header = {
    parent_block: parent,
    slot,
    body_root: bodyRoot(uncles, []),
    proof_of_leadership: like.proof_of_leadership,
  };
  return {
    header,
    signature: TEST_LEADER.sign(encodeHeader(header)),
    uncle_headers: uncles,
    transactions: [],
  };
}

/** The same valid block with uncles referenced (body root and signature redone). */
function withUncles(b: Block, uncles: SignedHeader[]): Block {
  const header = { ...b.header, body_root: bodyRoot(uncles, []) };
  return { ...b, header, uncle_headers: uncles, signature: TEST_LEADER.sign(encodeHeader(header)) };
}

test('test_accept_valid_uncle (services/chain/chain-service/src/uncle.rs)', async () => {
  const { chain, t, u1, close } = await chainWithFork();
  try {
    const b2 = withUncles(t.block([], u1.header.slot + 1n), [signed(u1)]);
    const done = await chain.submit(b2);
    assert.equal(done.height, 2);
    assert.deepEqual(
      chain.block(done.id)?.uncle_headers.map((u) => u.header.slot),
      [u1.header.slot],
    );
  } finally {
    close();
  }
});

test('test_reject_uncle_not_strictly_older (services/chain/chain-service/src/uncle.rs)', async () => {
  const { chain, u1, close } = await chainWithFork();
  try {
    const block = craft(chain.tip().id, u1.header.slot, [signed(u1)], u1.header);
    await assert.rejects(chain.submit(block), (e: Error) => e.message.includes('not strictly older'));
  } finally {
    close();
  }
});

test('test_reject_uncle_whose_parent_is_outside_window (services/chain/chain-service/src/uncle.rs)', async () => {
  const { chain, u1, close } = await chainWithFork();
  try {
    const window = epochSchedule(DEVNET.ledger.consensus).uncle_window_slots;
    const block = craft(chain.tip().id, u1.header.slot + window + 1n, [signed(u1)], u1.header);
    await assert.rejects(chain.submit(block), (e: Error) => e.message.includes('parent not on the chain'));
    // At slot `window`, the uncle's parent (genesis, slot 0) is just inside the window.
    const t = new TestChain();
    t.apply([], 1n);
    const ok = withUncles(t.block([], window), [signed(u1)]);
    assert.equal((await chain.submit(ok)).height, 2);
  } finally {
    close();
  }
});

test('test_reject_uncle_on_the_chain (services/chain/chain-service/src/uncle.rs)', async () => {
  const { chain, b1, u1, close } = await chainWithFork();
  try {
    // The block references its own parent B1 as an uncle.
    const block = craft(chain.tip().id, b1.header.slot + 1n, [signed(b1)], u1.header);
    await assert.rejects(chain.submit(block), (e: Error) =>
      e.message.includes('on the chain that the block is extending'),
    );
  } finally {
    close();
  }
});

test('reject_uncle_whose_parent_is_not_on_the_chain (services/chain/chain-service/src/uncle.rs)', async () => {
  const { chain, u1, close } = await chainWithFork();
  try {
    const header: Header = {
      parent_block: new Uint8Array(32).fill(9),
      body_root: new Uint8Array(32),
      slot: u1.header.slot,
      proof_of_leadership: u1.header.proof_of_leadership,
    };
    const uncle = { header, signature: TEST_LEADER.sign(encodeHeader(header)) };
    const block = craft(chain.tip().id, u1.header.slot + 1n, [uncle], u1.header);
    await assert.rejects(chain.submit(block), (e: Error) => e.message.includes('parent not on the chain'));
  } finally {
    close();
  }
});

test('reject_uncle_with_invalid_signature (services/chain/chain-service/src/uncle.rs)', async () => {
  const { chain, u1, close } = await chainWithFork();
  try {
    // The uncle's header is intact, but signed by a key that is not its leader.
    const other = new Ed25519Signer(ed25519GenerateSecretKey());
    const uncle = { header: u1.header, signature: other.sign(encodeHeader(u1.header)) };
    const block = craft(chain.tip().id, u1.header.slot + 1n, [uncle], u1.header);
    await assert.rejects(chain.submit(block), (e: Error) => e.message.includes('invalid header signature'));
  } finally {
    close();
  }
});

test('reject_uncle_with_invalid_pol (services/chain/chain-service/src/uncle.rs)', async () => {
  const { chain, t, u1, close } = await chainWithFork();
  try {
    // U1's proof at another slot, against which it was not proven; the signature itself is valid.
    const header: Header = {
      parent_block: t.genesis.id,
      body_root: new Uint8Array(32),
      slot: u1.header.slot + 1n,
      proof_of_leadership: u1.header.proof_of_leadership,
    };
    const uncle = { header, signature: TEST_LEADER.sign(encodeHeader(header)) };
    assert.notEqual(headerId(header).toString(), headerId(u1.header).toString());
    const block = craft(chain.tip().id, u1.header.slot + 2n, [uncle], u1.header);
    await assert.rejects(chain.submit(block), (e: Error) =>
      e.message.includes('invalid proof of leadership'),
    );
  } finally {
    close();
  }
});
