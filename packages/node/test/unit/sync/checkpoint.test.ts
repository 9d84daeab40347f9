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

const logger = pino({ level: process.env.LOGOS_TEST_LOG ?? 'silent' });

/** A source that has `bytes` encoded already. */
const served = (bytes: Uint8Array | undefined) => ({
  checkpoint: () => bytes,
  checkpointEncoded: () => true,
});

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
  serveCheckpoints(p1!, served(good), logger);
  serveCheckpoints(p2!, served(good), logger);
  serveCheckpoints(p3!, served(other), logger);
  const o = { id: c.id, genesis: c.genesis };
  assert.deepEqual(await fetchCheckpoint(me!, [p1!.peerId, p2!.peerId], o, logger), good);
  await assert.rejects(fetchCheckpoint(me!, [p1!.peerId], o, logger), /1 of 1 peers have it; 2 must agree/);
  await assert.rejects(
    fetchCheckpoint(me!, [p1!.peerId, p2!.peerId, p3!.peerId], o, logger),
    /peers disagree.*2 different contents/,
  );
  // A peer that has nothing for that block does not count.
  const [q1] = bus.mesh(1);
  serveCheckpoints(q1!, served(undefined), logger);
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
  serveCheckpoints(honest!, served(good), logger);
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

test('a new encoding is given to peers at most every 10 s; one already encoded at once', async () => {
  const c = await sample();
  const good = encodeCheckpoint(c);
  const bus = new FakeNetworkBus();
  const [me, p1, p2] = bus.mesh(3);
  let now = 0;
  let encodings = 0;
  // Nothing stays encoded: each request would encode again.
  const source = {
    checkpoint: () => {
      encodings++;
      return good;
    },
    checkpointEncoded: () => false,
  };
  serveCheckpoints(p1!, source, logger, () => now);
  serveCheckpoints(p2!, served(good), logger);
  const o = { id: c.id, genesis: c.genesis };
  assert.deepEqual(await fetchCheckpoint(me!, [p1!.peerId, p2!.peerId], o, logger), good);
  const before = encodings;
  now += 5_000;
  await assert.rejects(fetchCheckpoint(me!, [p1!.peerId, p2!.peerId], o, logger), /1 of 2 peers have it/);
  assert.equal(encodings, before, 'no encoding within 10 s of the last');
  now += 10_000;
  assert.deepEqual(await fetchCheckpoint(me!, [p1!.peerId, p2!.peerId], o, logger), good);
  bus.close();
});

test('short frames before the last, and a checkpoint of another block, are refused and penalised', async () => {
  const c = await sample();
  const good = encodeCheckpoint(c);
  const bus = new FakeNetworkBus();
  const [me, dribbler, swapper, honest] = bus.mesh(4);
  const o = { id: c.id, genesis: c.genesis };
  // Announces the right summary, then sends its bytes 1,000 at a time.
  dribbler!.handle(
    CHECKPOINT_PROTOCOL,
    async function* (req) {
      yield encodeOffer(offerOf(good));
      if (req[0] === 0) return;
      for (let at = 0; at < good.length; at += 1000) yield good.subarray(at, at + 1000);
    },
    { maxRequestBytes: 64, maxInbound: 8 },
  );
  // Announces the asked-for block with the hash and length of a checkpoint of another block.
  const another = encodeCheckpoint({ ...c, id: new Uint8Array(32).fill(7) });
  swapper!.handle(
    CHECKPOINT_PROTOCOL,
    async function* (req) {
      yield encodeOffer({ ...offerOf(another), id: c.id });
      if (req[0] === 0) return;
      yield another;
    },
    { maxRequestBytes: 64, maxInbound: 8 },
  );
  serveCheckpoints(honest!, served(good), logger);
  // The swapper's summary differs from the others' (another hash): that is a disagreement.
  await assert.rejects(fetchCheckpoint(me!, [swapper!.peerId, honest!.peerId], o, logger), /peers disagree/);
  // With a quorum of one, the swapper's bytes are refused once downloaded.
  await assert.rejects(
    fetchCheckpoint(me!, [swapper!.peerId], { ...o, quorum: 1 }, logger),
    /no peer delivered/,
  );
  assert.ok(bus.penalties().some((p) => p.peer === swapper!.peerId && /another block/.test(p.reason)));
  const got = await fetchCheckpoint(me!, [dribbler!.peerId, honest!.peerId], o, logger);
  assert.deepEqual(got, good);
  if (good.length > 1000)
    assert.ok(
      bus.penalties().some((p) => p.peer === dribbler!.peerId && /shorter than a chunk/.test(p.reason)),
    );
  bus.close();
});
