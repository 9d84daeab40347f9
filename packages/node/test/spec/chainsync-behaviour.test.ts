/**
 * The reference's chain-sync protocol tests between two peers
 * (consensus/cryptarchia-sync/src/libp2p/behaviour.rs), over the in-memory network: the requester is this
 * node's client, the provider a handler answering as F's test providers do (standard, rejecting, failing
 * mid-stream, silent) or this node's own server. F's providers send 32 zero bytes as a block; here each
 * block is a real (empty) block's bytes, since this client decodes what it receives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { type Block, encodeBlock } from '../../src/block/block.ts';
import { encodeHeader } from '../../src/block/header.ts';
import type { RequestHandler } from '../../src/network/interface.ts';
import {
  encodeBlocksResponse,
  encodeTipResponse,
  type KnownBlocks,
  MAX_REQUEST_BYTES,
} from '../../src/network/wire/sync-messages.ts';
import { SyncClient } from '../../src/sync/client.ts';
import { SyncError } from '../../src/sync/errors.ts';
import { serveChainSync } from '../../src/sync/provider.ts';
import { FakeNetworkBus } from '../mocks/network.ts';

const PROTOCOL = '/chainsync-test/1.0.0';
const ZERO = new Uint8Array(32);
const NOT_ONLINE = 'Node is not in online mode';
const logger = pino({ level: 'silent' });

function emptyBlock(slot: bigint): Uint8Array {
  const header = {
    parent_block: ZERO,
    slot,
    body_root: ZERO,
    proof_of_leadership: {
      proof: new Uint8Array(128),
      entropy_contribution: 0n,
      leader_key: ZERO,
      voucher_cm: 0n,
    },
  };
  encodeHeader(header);
  return encodeBlock({ header, signature: new Uint8Array(64), uncle_headers: [], transactions: [] } as Block);
}

/** F's `Config { peer_response_timeout: 1 s, max_inbound_requests: 4 }` on both sides. */
function setup(handler: RequestHandler | 'server', maxInbound = 4) {
  const bus = new FakeNetworkBus();
  const [downloader, provider] = bus.mesh(2);
  if (handler === 'server')
    serveChainSync(
      { protocol: PROTOCOL, batchSize: 1000, maxInbound, maxRequestBytes: MAX_REQUEST_BYTES },
      {
        chain: {} as never,
        network: provider!,
        following: () => true,
        logger,
      },
    );
  else provider!.handle(PROTOCOL, handler, { maxRequestBytes: MAX_REQUEST_BYTES, maxInbound });
  const newClient = () =>
    new SyncClient(
      downloader!,
      { protocol: PROTOCOL, frameTimeoutMs: 1000, maxConnectedPeers: 16, maxDiscoveredPeers: 16 },
      logger,
    );
  return { client: newClient(), newClient, peer: provider!.peerId, bus };
}

const known = (additional: Uint8Array[] = []): KnownBlocks => ({
  local_tip: ZERO,
  latest_immutable_block: ZERO,
  additional_blocks: additional,
});

/**
 * F's `wait_block_messages`: blocks received and errors, over several downloads at once. A client makes
 * one request to a peer at a time, so each of several downloads has a client of its own (F's test
 * requester has no such limit: the provider's is what the test is about).
 */
async function download(client: SyncClient | (() => SyncClient), peer: string, n: number, kb = known()) {
  let blocks = 0;
  const errors: unknown[] = [];
  await Promise.all(
    Array.from({ length: n }, async () => {
      const c = typeof client === 'function' ? client() : client;
      try {
        for await (const _ of c.downloadBlocks(peer, ZERO, kb)) blocks++;
      } catch (e) {
        errors.push(e);
      }
    }),
  );
  return { blocks, errors };
}

/** F's `StandardProvider { blocks_count }`. */
const standard = (count: number, delayMs = 0): RequestHandler =>
  async function* (req) {
    if (req[0] === 1) {
      yield encodeTipResponse({ kind: 'Tip', tip: ZERO, slot: 0n, height: 0n });
      return;
    }
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    for (let i = 0; i < count; i++)
      yield encodeBlocksResponse({ kind: 'Block', bytes: emptyBlock(BigInt(i + 1)) });
    yield encodeBlocksResponse({ kind: 'NoMoreBlocks' });
  };

const rejecting: RequestHandler = async function* (req) {
  if (req[0] === 1) yield encodeTipResponse({ kind: 'Failure', reason: NOT_ONLINE });
  else yield encodeBlocksResponse({ kind: 'Failure', reason: { kind: 'Unknown', text: NOT_ONLINE } });
};

const F = '(consensus/cryptarchia-sync/src/libp2p/behaviour.rs)';

test(`test_block_sync_between_two_swarms ${F}`, async () => {
  const { client, peer, bus } = setup(standard(200));
  const { blocks, errors } = await download(client, peer, 1);
  assert.equal(blocks, 200);
  assert.equal(errors.length, 0);
  bus.close();
});

test(`test_reject_excess_download_requests ${F}`, async () => {
  // The provider holds each stream a moment, so all five are open at once.
  const { newClient, peer, bus } = setup(standard(1, 50));
  const { blocks, errors } = await download(newClient, peer, 4 + 1);
  assert.equal(blocks, 4);
  assert.equal(errors.length, 1);
  bus.close();
});

test(`test_reject_protocol_violation_too_many_additional_blocks ${F}`, async () => {
  const { peer, bus } = setup('server');
  // Six additional blocks, [0;32]..[5;32]: this encoder refuses them, so they are written by hand.
  const raw = new Uint8Array(4 + 96 + 8 + 6 * 32);
  new DataView(raw.buffer).setBigUint64(100, 6n, true);
  for (let i = 0; i <= 5; i++) raw.fill(i, 108 + i * 32, 140 + i * 32);
  const frames: Uint8Array[] = [];
  let error: unknown;
  try {
    for await (const f of bus.nodes.get(bus.nodes.keys().next().value!)!.request(peer, PROTOCOL, raw, {
      maxFrameBytes: 1 << 24,
      frameTimeoutMs: 1000,
    }))
      frames.push(f);
  } catch (e) {
    error = e;
  }
  assert.equal(frames.length, 0, 'no answer');
  assert.equal(error, undefined, 'the stream is closed');
  // F's requester sees an error for the closed stream. The request is above the largest valid one,
  // so here the stream is closed before the server reads it.
  bus.close();
});

test(`test_get_tip ${F}`, async () => {
  const { client, peer, bus } = setup(standard(0));
  assert.deepEqual(await client.requestTip(peer), { kind: 'Tip', tip: ZERO, slot: 0n, height: 0n });
  bus.close();
});

test(`test_timeout ${F}`, async () => {
  const { client, peer, bus } = setup(async function* () {
    await new Promise((r) => setTimeout(r, 100_000).unref());
  });
  const started = Date.now();
  const { errors } = await download(client, peer, 1);
  assert.equal(errors.length, 1);
  assert.match((errors[0] as Error).message, /no frame within 1000 ms/);
  assert.ok(Date.now() - started < 5000);
  bus.close();
});

test(`test_tip_request_rejection ${F}`, async () => {
  const { client, peer, bus } = setup(rejecting);
  assert.deepEqual(await client.requestTip(peer), { kind: 'Failure', reason: NOT_ONLINE });
  bus.close();
});

test(`test_block_request_rejection ${F}`, async () => {
  const { client, peer, bus } = setup(rejecting);
  const { blocks, errors } = await download(client, peer, 1);
  assert.equal(blocks, 0);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof SyncError && errors[0].code === 'SYNC_UNAVAILABLE');
  bus.close();
});

test(`test_block_stream_error_during_transmission ${F}`, async () => {
  // F's ErrorStreamProvider { success_count: 1 }: one block, then the provider's Failure.
  const { client, peer, bus } = setup(async function* () {
    yield encodeBlocksResponse({ kind: 'Block', bytes: emptyBlock(1n) });
    yield encodeBlocksResponse({
      kind: 'Failure',
      reason: { kind: 'Unknown', text: 'Failed to receive block from stream: Simulated storage failure' },
    });
  });
  const { blocks, errors } = await download(client, peer, 1);
  assert.equal(blocks, 1);
  assert.equal(errors.length, 1);
  bus.close();
});
