/**
 * Checkpoints: the file format (chain/checkpoint.ts) round-trips and refuses what is damaged or
 * inconsistent; the checkpoint protocol (sync/checkpoint-protocol.ts) needs two peers agreeing on the
 * content, refuses peers that disagree, skips a peer whose bytes do not match the hash it announced
 * (and penalises it), and bounds what it allocates.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { encodeBlock } from '../../../src/block/block.ts';
import { headerId } from '../../../src/block/header.ts';
import { checkpointSummary, decodeCheckpoint, encodeCheckpoint } from '../../../src/chain/checkpoint.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { encodeLedgerState } from '../../../src/ledger/snapshot.ts';
import {
  CHECKPOINT_PROTOCOL,
  encodeOffer,
  fetchCheckpoint,
  offerOf,
  serveCheckpoints,
} from '../../../src/sync/checkpoint-protocol.ts';
import { FakeNetworkBus } from '../../mocks/network.ts';
import { chainService } from '../chain/helpers.ts';
import { grow } from './helpers.ts';

const logger = pino({ level: 'silent' });

/** A checkpoint of a real chain's block 3 (a service on the test deployment). */
async function sample() {
  const t = await chainService();
  await grow(t.chain, 3);
  const tip = t.chain.tip();
  const block = t.chain.block(tip.id)!;
  const c = {
    genesis: t.chain.genesis.id,
    id: tip.id,
    slot: tip.slot,
    height: BigInt(tip.height),
    block: encodeBlock(block),
    state: encodeLedgerState(tip.state),
  };
  t.close();
  return c;
}

test('a checkpoint round-trips, and its summary reads without decoding the state', async () => {
  const c = await sample();
  const bytes = encodeCheckpoint(c);
  const d = decodeCheckpoint(bytes);
  assert.equal(bytesToHex(d.id), bytesToHex(c.id));
  assert.equal(d.height, c.height);
  assert.equal(d.slot, c.slot);
  assert.equal(bytesToHex(headerId(d.decodedBlock.header)), bytesToHex(c.id));
  assert.deepEqual(d.state, c.state);
  const s = checkpointSummary(bytes);
  assert.equal(s.bytes, bytes.length);
  assert.equal(bytesToHex(s.genesis), bytesToHex(c.genesis));
});

test('a damaged or inconsistent checkpoint is refused with what is wrong', async () => {
  const c = await sample();
  const bytes = encodeCheckpoint(c);
  const flipped = bytes.slice();
  flipped[200]! ^= 1;
  assert.throws(() => decodeCheckpoint(flipped), /damaged/);
  assert.throws(() => decodeCheckpoint(bytes.subarray(0, 50)), /not a checkpoint/);
  // Consistent hashes, wrong content: another id, another slot.
  assert.throws(() => decodeCheckpoint(encodeCheckpoint({ ...c, id: new Uint8Array(32) })), /hashes to/);
  assert.throws(() => decodeCheckpoint(encodeCheckpoint({ ...c, slot: c.slot + 1n })), /slot/);
  const version = bytes.slice();
  version[16] = 9;
  assert.throws(() => decodeCheckpoint(version), /version 9/);
});

test('fetching needs two peers agreeing; disagreement and a single peer are refused', async () => {
  const c = await sample();
  const good = encodeCheckpoint(c);
  const other = encodeCheckpoint({ ...c, state: encodeLedgerState({ ...(await stateOf()), slot: c.slot }) });
  const bus = new FakeNetworkBus();
  const [me, p1, p2, p3] = bus.mesh(4);
  serveCheckpoints(p1!, { checkpoint: () => good }, logger);
  serveCheckpoints(p2!, { checkpoint: () => good }, logger);
  serveCheckpoints(p3!, { checkpoint: () => other }, logger);
  const o = { id: c.id, genesis: c.genesis };
  assert.deepEqual(await fetchCheckpoint(me!, [p1!.peerId, p2!.peerId], o, logger), good);
  await assert.rejects(fetchCheckpoint(me!, [p1!.peerId], o, logger), /1 of 1 peers have it; 2 must agree/);
  await assert.rejects(
    fetchCheckpoint(me!, [p1!.peerId, p2!.peerId, p3!.peerId], o, logger),
    /peers disagree.*2 different contents/,
  );
  // A peer that has nothing for that block does not count.
  const [q1] = bus.mesh(1);
  serveCheckpoints(q1!, { checkpoint: () => undefined }, logger);
  bus.connect(me!, q1!);
  await assert.rejects(fetchCheckpoint(me!, [p1!.peerId, q1!.peerId], o, logger), /1 of 2 peers/);
  bus.close();
});

async function stateOf() {
  const t = await chainService();
  const s = t.chain.tip().state;
  t.close();
  return s;
}

test('a peer whose bytes do not match the announced hash is penalised and the next peer is used', async () => {
  const c = await sample();
  const good = encodeCheckpoint(c);
  const bus = new FakeNetworkBus();
  const [me, liar, honest] = bus.mesh(3);
  // The liar announces the right summary, then sends other bytes of the same length.
  liar!.handle(
    CHECKPOINT_PROTOCOL,
    async function* (req) {
      yield encodeOffer(offerOf(good));
      if (req[0] === 0) return;
      const bad = good.slice();
      bad[300]! ^= 1;
      yield bad;
    },
    { maxRequestBytes: 64, maxInbound: 8 },
  );
  serveCheckpoints(honest!, { checkpoint: () => good }, logger);
  const got = await fetchCheckpoint(
    me!,
    [liar!.peerId, honest!.peerId],
    { id: c.id, genesis: c.genesis },
    logger,
  );
  assert.deepEqual(got, good);
  assert.ok(bus.penalties().some((p) => p.peer === liar!.peerId && p.offence === 'major'));
  bus.close();
});

test('an announced length beyond the largest checkpoint is refused before anything is allocated', async () => {
  const c = await sample();
  const bus = new FakeNetworkBus();
  const [me, big] = bus.mesh(2);
  big!.handle(
    CHECKPOINT_PROTOCOL,
    async function* () {
      yield encodeOffer({ ...offerOf(encodeCheckpoint(c)), length: 2 ** 40 });
    },
    { maxRequestBytes: 64, maxInbound: 8 },
  );
  await assert.rejects(
    fetchCheckpoint(me!, [big!.peerId], { id: c.id, genesis: c.genesis, quorum: 1 }, logger),
    /0 of 1 peers have it/,
  );
  bus.close();
});
