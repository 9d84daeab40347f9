/**
 * Block production: a produced block carries the uncles the chain selects for it, and commits to the
 * wallet's next voucher (digest([master key, index]) with an index that is stored and never reused).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { headerId } from '../../../src/block/header.ts';
import { ChainService } from '../../../src/chain/chain-service.ts';
import { SlotClock } from '../../../src/chain/clock.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { LeaderService, NO_TRANSACTIONS } from '../../../src/leader/index.ts';
import { AHEAD_WINS, LOOKAHEAD_SLOTS, MIN_AHEAD_SLOTS } from '../../../src/leader/leader-service.ts';
import { VoucherGenerator, voucherCommitment, voucherSecret } from '../../../src/leader/vouchers.ts';
import { devnetKeys, devnetSecretKey } from '../../../src/ledger/devnet-keys.ts';
import type { ProveOptions } from '../../../src/ledger/proof-system.ts';
import { openStore } from '../../../src/storage/open.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FAST } from '../../mocks/fast-deployment.ts';
import { genesisNotes, TestChain, transfer } from '../../mocks/ledger.ts';
import { waitUntil } from '../../utils/api-node.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-leader-'));

/**
 * The insecure proofs, recording the slot and the options of every proof of leadership asked for;
 * each proof starts at once (`onStart`) and takes `delayMs`.
 */
function spyingProofs(delayMs = 0) {
  const proved: bigint[] = [];
  const requests: ProveOptions[] = [];
  const results: Promise<unknown>[] = [];
  const proofs = {
    ...INSECURE_TEST_PROOFS,
    provePol: (
      inputs: Parameters<typeof INSECURE_TEST_PROOFS.provePol>[0],
      w: Parameters<typeof INSECURE_TEST_PROOFS.provePol>[1],
      opts: ProveOptions = {},
    ) => {
      proved.push(inputs.slot);
      requests.push(opts);
      opts.onStart?.();
      const proof = new Promise<void>((r) => setTimeout(r, delayMs)).then(() =>
        INSECURE_TEST_PROOFS.provePol(inputs, w),
      );
      results.push(proof);
      return proof;
    },
  };
  return { proved, requests, results, proofs };
}
after(() => rmSync(dir, { recursive: true, force: true }));

test('a produced block carries its uncles and the next voucher of the wallet', async () => {
  const store = await openStore(dir);
  try {
    const logger = pino({ level: 'silent' });
    const genesisMs = 1_700_000_000_000;
    const clock = new SlotClock(genesisMs, FAST.slot_duration_ms, () => genesisMs + 10 ** 9);
    const chain = await ChainService.init(
      { deployment: FAST, genesisTimeMs: genesisMs, online: false },
      { store: store.chain, proofs: INSECURE_TEST_PROOFS, clock, logger },
    );
    // Two blocks on genesis: a1 is the tip, b1 a fork block (an uncle candidate).
    const t = new TestChain(FAST);
    const a1 = t.block([], 1n);
    const b1 = t.block([], 2n, 8n);
    await chain.submit(a1);
    await chain.submit(b1);
    assert.equal(bytesToHex(chain.tip().id), bytesToHex(headerId(a1.header)));

    const master = devnetSecretKey(1000);
    const leader = new LeaderService(
      {
        secretKeys: devnetKeys(4).map((k) => k.secretKey),
        vouchers: new VoucherGenerator(master, store.wallet),
      },
      { chain, clock, proofs: INSECURE_TEST_PROOFS, txs: NO_TRANSACTIONS, logger },
    );
    let slot = 3n;
    for (; leader.produced === 0 && slot < 20n; slot++) await leader.onSlot(slot);
    assert.equal(leader.produced, 1);
    const first = chain.block(chain.tip().id)!;
    assert.deepEqual(
      first.uncle_headers.map((u) => bytesToHex(headerId(u.header))),
      [bytesToHex(headerId(b1.header))],
    );
    assert.equal(first.header.proof_of_leadership.voucher_cm, voucherCommitment(voucherSecret(master, 0n)));
    assert.equal(store.wallet.nextVoucherIndex(), 1n);

    for (; leader.produced === 1 && slot < 40n; slot++) await leader.onSlot(slot);
    assert.equal(leader.produced, 2);
    const second = chain.block(chain.tip().id)!;
    assert.deepEqual(second.uncle_headers, [], 'the uncle is referenced once');
    assert.equal(second.header.proof_of_leadership.voucher_cm, voucherCommitment(voucherSecret(master, 1n)));
    assert.equal(store.wallet.nextVoucherIndex(), 2n);

    // After a restart the wallet goes on from the stored index.
    const again = new VoucherGenerator(master, store.wallet);
    assert.equal((await again.next()).index, 2n);
    assert.equal(store.wallet.nextVoucherIndex(), 3n);
    await chain.drain();
  } finally {
    await store.close();
  }
});

test('the next won slots are proved ahead of time and their blocks built around those proofs; a new UTXO root proves again and withdraws the stale requests', async () => {
  const dir2 = mkdtempSync(join(tmpdir(), 'logos-leader-ahead-'));
  const store = await openStore(dir2);
  try {
    const logger = pino({ level: 'silent' });
    const genesisMs = 1_700_000_000_000;
    let now = genesisMs;
    const clock = new SlotClock(genesisMs, FAST.slot_duration_ms, () => now);
    const at = (slot: bigint) => {
      now = genesisMs + Number(slot) * FAST.slot_duration_ms + 1;
    };
    const chain = await ChainService.init(
      { deployment: FAST, genesisTimeMs: genesisMs, online: false },
      { store: store.chain, proofs: INSECURE_TEST_PROOFS, clock, logger },
    );
    const { proved, requests, proofs } = spyingProofs();
    const master = devnetSecretKey(1000);
    const leader = new LeaderService(
      {
        secretKeys: devnetKeys(4).map((k) => k.secretKey),
        vouchers: new VoucherGenerator(master, store.wallet),
        proveAheadSlots: LOOKAHEAD_SLOTS,
      },
      { chain, clock, proofs, txs: NO_TRANSACTIONS, logger },
    );
    at(1n);
    await leader.prepareAhead();
    assert.equal(proved.length, AHEAD_WINS, 'the next wins proved ahead');
    assert.deepEqual(
      proved,
      [...proved].sort((a, b) => (a < b ? -1 : 1)),
      'nearest first',
    );
    assert.ok(requests.every((r) => r.urgent !== true && r.background === true && r.signal !== undefined));
    const [won, next] = proved as [bigint, bigint];
    assert.ok(won > 1n && next > won);
    // Called again with nothing changed: the proofs in progress are kept.
    await leader.prepareAhead();
    assert.equal(proved.length, AHEAD_WINS);
    at(won);
    await leader.onSlot(won);
    assert.equal(leader.produced, 1);
    assert.equal(leader.producedAhead, 1, 'the block used the proof made ahead');
    assert.deepEqual([leader.wonSlots, leader.producedInSlot], [1, 1], 'won, and applied within the slot');
    assert.equal(proved.length, AHEAD_WINS, 'no proof at the slot');
    assert.equal(chain.tip().slot, won);
    assert.ok(
      requests.every((r) => !r.signal!.aborted),
      'nothing withdrawn',
    );

    // An empty block of our own leaves the UTXO root as it was: the other proofs are kept, and the
    // win after them is proved.
    await leader.prepareAhead();
    assert.equal(proved.length, AHEAD_WINS + 1);
    assert.ok(proved[AHEAD_WINS]! > proved[AHEAD_WINS - 1]!);
    const ahead = proved.slice(1);
    // A block of someone else with a transaction changes the UTXO root before the next win: the
    // leader proves the same wins again, with the same vouchers, and withdraws the stale requests.
    const vouchersUsed = store.wallet.nextVoucherIndex();
    const stale = requests.slice(1);
    const t = new TestChain(FAST);
    t.state = chain.tip().state;
    t.tip = chain.tip().id;
    const [fund] = genesisNotes(t.genesis);
    const tx = transfer(t.state, [fund!], [{ value: 5n, pk: fund!.note.pk }]).tx;
    const other = t.block([tx], won + 1n, 9n);
    assert.ok(next > won + 1n, `the next win ${next} leaves a slot for the other block`);
    at(won + 1n);
    await chain.submit(other);
    await leader.prepareAhead();
    assert.deepEqual(proved.slice(AHEAD_WINS + 1), ahead, 'proved again for the new root');
    assert.equal(store.wallet.nextVoucherIndex(), vouchersUsed, 'the same vouchers');
    assert.ok(
      stale.every((r) => r.signal!.aborted),
      'the stale requests are withdrawn',
    );
    assert.ok(requests.slice(AHEAD_WINS + 1).every((r) => !r.signal!.aborted));
    at(next);
    await leader.onSlot(next);
    assert.equal(leader.producedAhead, 2);
    assert.equal(chain.tip().slot, next);

    // A won slot with no proof made ahead (a leader that never looked ahead): proved at once, before
    // the requests made ahead.
    const fresh = new LeaderService(
      {
        secretKeys: devnetKeys(4).map((k) => k.secretKey),
        vouchers: new VoucherGenerator(master, store.wallet),
        proveAheadSlots: LOOKAHEAD_SLOTS,
      },
      { chain, clock, proofs, txs: NO_TRANSACTIONS, logger },
    );
    const third = ahead[1]!;
    at(third);
    const before = requests.length;
    await fresh.onSlot(third);
    assert.equal(chain.tip().slot, third);
    assert.equal(requests.length, before + 1);
    assert.equal(requests[before]!.urgent, true);
    assert.equal(fresh.producedAhead, 0);
    await chain.drain();
  } finally {
    await store.close();
    rmSync(dir2, { recursive: true, force: true });
  }
});

test('wins are proved within the proving horizon: two slots before any proof, then twice the time a proof took', async () => {
  const dir4 = mkdtempSync(join(tmpdir(), 'logos-leader-horizon-'));
  const store = await openStore(dir4);
  try {
    const logger = pino({ level: 'silent' });
    const genesisMs = 1_700_000_000_000;
    const now = genesisMs + FAST.slot_duration_ms + 1; // slot 1
    const clock = new SlotClock(genesisMs, FAST.slot_duration_ms, () => now);
    const chain = await ChainService.init(
      { deployment: FAST, genesisTimeMs: genesisMs, online: false },
      { store: store.chain, proofs: INSECURE_TEST_PROOFS, clock, logger },
    );
    const secretKeys = devnetKeys(4).map((k) => k.secretKey);
    const master = devnetSecretKey(1000);
    // The wins ahead, as a leader proving as far as it looks sees them.
    const all = spyingProofs();
    const seer = new LeaderService(
      { secretKeys, vouchers: new VoucherGenerator(master, store.wallet), proveAheadSlots: LOOKAHEAD_SLOTS },
      { chain, clock, proofs: all.proofs, txs: NO_TRANSACTIONS, logger },
    );
    await seer.prepareAhead();
    const wins = [...all.proved];
    seer.close();

    // Proofs of 300 ms (three of these 100 ms slots).
    const slow = spyingProofs(300);
    const leader = new LeaderService(
      { secretKeys, vouchers: new VoucherGenerator(master, store.wallet) },
      { chain, clock, proofs: slow.proofs, txs: NO_TRANSACTIONS, logger },
    );
    await leader.prepareAhead();
    const near = wins.filter((s) => s <= 1n + MIN_AHEAD_SLOTS);
    assert.ok(near.length > 0 && near.length < wins.length, `wins near and far: ${wins.join(' ')}`);
    assert.deepEqual(slow.proved, near, 'before any proof: the wins of the next two slots');
    await Promise.all(slow.results);
    // Twice 300 ms or more: six slots or more ahead.
    await leader.prepareAhead();
    const within = wins.filter((s) => s > 1n + MIN_AHEAD_SLOTS && s <= 7n);
    assert.ok(within.length > 0, `wins in slots 4..7: ${wins.join(' ')}`);
    const added = slow.proved.slice(near.length);
    for (const s of within) assert.ok(added.includes(s), `win ${s} proved once a proof took 300 ms`);
    for (const s of added) assert.ok(wins.includes(s) && !near.includes(s), `${s}: a win not proved before`);
    leader.close();
  } finally {
    await store.close();
    rmSync(dir4, { recursive: true, force: true });
  }
});

test('the leader proposes nothing while consensus is Bootstrapping and starts once it is Online (F chain-leader waits for Online)', async () => {
  const dir3 = mkdtempSync(join(tmpdir(), 'logos-leader-online-'));
  const store = await openStore(dir3);
  const stop = new AbortController();
  try {
    const logger = pino({ level: 'silent' });
    const genesisMs = Date.now();
    const clock = new SlotClock(genesisMs, FAST.slot_duration_ms, Date.now);
    const chain = await ChainService.init(
      { deployment: FAST, genesisTimeMs: genesisMs, online: false },
      { store: store.chain, proofs: INSECURE_TEST_PROOFS, clock, logger },
    );
    const { proved, proofs } = spyingProofs();
    const leader = LeaderService.init(
      {
        secretKeys: devnetKeys(4).map((k) => k.secretKey),
        vouchers: new VoucherGenerator(devnetSecretKey(1000), store.wallet),
      },
      { chain, clock, proofs, txs: NO_TRANSACTIONS, logger, signal: stop.signal },
    );
    // Eight slots (f = 1/2, four keys): the wallet wins some of them, but nothing is proved or proposed.
    const from = clock.currentSlot();
    await waitUntil(() => clock.currentSlot() >= from + 8n, 10_000, 'eight slots');
    assert.equal(chain.consensusState, 'Bootstrapping');
    assert.deepEqual([leader.produced, leader.wonSlots, proved.length], [0, 0, 0]);
    assert.equal(chain.tip().height, 0);
    chain.setOnline();
    await waitUntil(() => leader.produced > 0, 10_000, 'a block proposed once Online');
    assert.ok(chain.tip().height > 0);
    stop.abort();
    await chain.drain();
  } finally {
    stop.abort();
    await store.close();
    rmSync(dir3, { recursive: true, force: true });
  }
});

test('a won slot whose parent leaves the tip while its proof is made is given up, its proof request aborted with the reason', async () => {
  const store = await openStore(mkdtempSync(join(dir, 'giveup-')));
  try {
    const logger = pino({ level: 'silent' });
    const genesisMs = 1_700_000_000_000;
    const clock = new SlotClock(genesisMs, FAST.slot_duration_ms, () => genesisMs + 10 ** 9);
    const chain = await ChainService.init(
      { deployment: FAST, genesisTimeMs: genesisMs, online: false },
      { store: store.chain, proofs: INSECURE_TEST_PROOFS, clock, logger },
    );
    const requests: ProveOptions[] = [];
    // A proof that is never done: it ends only when its requester gives it up.
    const proofs = {
      ...INSECURE_TEST_PROOFS,
      provePol: (_i: unknown, _w: unknown, opts: ProveOptions = {}) => {
        requests.push(opts);
        return new Promise<Uint8Array>((_, reject) =>
          opts.signal?.addEventListener('abort', () => reject(new Error('no longer needed')), { once: true }),
        );
      },
    };
    const leader = new LeaderService(
      {
        secretKeys: devnetKeys(4).map((k) => k.secretKey),
        vouchers: new VoucherGenerator(devnetSecretKey(1001), store.wallet),
      },
      { chain, clock, proofs, txs: NO_TRANSACTIONS, logger },
    );
    let playing: Promise<void> | undefined;
    for (let slot = 3n; requests.length === 0 && slot < 40n; slot++) {
      playing = leader.onSlot(slot);
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(requests.length, 1, 'a won slot asked for its proof');
    const signal = requests[0]!.signal!;
    assert.equal(signal.aborted, false);
    assert.match(requests[0]!.what!, /^slot \d+$/);
    // Another block on the same parent becomes the tip.
    await chain.submit(new TestChain(FAST).block([], 1n));
    await playing;
    assert.equal(signal.aborted, true);
    assert.match(String(signal.reason), /the parent is no longer the tip/);
    assert.equal(leader.givenUp, 1);
    assert.equal(leader.produced, 0);
  } finally {
    await store.close();
  }
});
