/**
 * The chain-sync client's download bounds (src/sync/client.ts): block frames are read only up to the
 * largest valid block, and a peer that drips its answer is cut off, penalized, and the race moves on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { encodeBlock, MAX_BLOCK_BYTES } from '../../../src/block/block.ts';
import { encodeBlocksResponse, MAX_SYNC_FRAME_BYTES } from '../../../src/network/index.ts';
import { MAX_BLOCK_FRAME_BYTES, SyncClient } from '../../../src/sync/client.ts';
import { SyncError } from '../../../src/sync/errors.ts';
import { SAMPLE_BLOCK } from '../../mocks/fixtures.ts';

const BLOCK = encodeBlocksResponse({ kind: 'Block', bytes: encodeBlock(SAMPLE_BLOCK) });
const END = encodeBlocksResponse({ kind: 'NoMoreBlocks' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Peers that answer `blocks` blocks and the end, `gapMs` between frames; what was asked is kept. */
function network(peers: Record<string, { blocks: number; gapMs: number }>) {
  const penalties: { peer: string; reason: string }[] = [];
  const maxFrames: number[] = [];
  return {
    penalties,
    maxFrames,
    connectedPeers: () => Object.keys(peers),
    discoveredPeers: () => [],
    penalize: (peer: string, _o: string, reason: string) => void penalties.push({ peer, reason }),
    async *request(
      peer: string,
      _p: string,
      _r: Uint8Array,
      o: { maxFrameBytes: number; signal?: AbortSignal },
    ) {
      maxFrames.push(o.maxFrameBytes);
      const { blocks, gapMs } = peers[peer]!;
      for (let i = 0; i < blocks; i++) {
        await sleep(gapMs);
        if (o.signal?.aborted) throw o.signal.reason;
        yield BLOCK;
      }
      yield END;
    },
  };
}

/** What the downloads here say they know: nothing. */
const KNOWN = {
  local_tip: new Uint8Array(32),
  latest_immutable_block: new Uint8Array(32),
  additional_blocks: [],
} as never;

const client = (net: ReturnType<typeof network>) =>
  new SyncClient(
    net as never,
    {
      protocol: '/p',
      frameTimeoutMs: 5000,
      maxConnectedPeers: 4,
      maxDiscoveredPeers: 0,
      pace: { graceMs: 60, perBlockMs: 10, minBytesPerS: 1024 * 1024 * 1024 },
    },
    pino({ level: 'silent' }),
  );

test('a block frame is read up to the largest valid block, not the 16 MiB chain-sync frame', async () => {
  assert.ok(MAX_BLOCK_FRAME_BYTES < 2.3 * 1024 * 1024 && MAX_BLOCK_FRAME_BYTES > 2 * 1024 * 1024);
  assert.equal(MAX_BLOCK_FRAME_BYTES, MAX_BLOCK_BYTES + 12);
  const net = network({ a: { blocks: 2, gapMs: 0 } });
  const got = [];
  for await (const b of client(net).downloadBlocks('a', new Uint8Array(32), {
    local_tip: new Uint8Array(32),
    latest_immutable_block: new Uint8Array(32),
    additional_blocks: [],
  } as never))
    got.push(b);
  assert.equal(got.length, 2);
  assert.deepEqual(net.maxFrames, [MAX_BLOCK_FRAME_BYTES]);
  assert.ok(MAX_BLOCK_FRAME_BYTES < MAX_SYNC_FRAME_BYTES);
});

test('a peer dripping its blocks is cut off and penalized; a peer keeping the pace is not', async () => {
  // 40 ms a frame against 60 ms + 10 ms a block: too slow from the third block on.
  const net = network({ slow: { blocks: 5, gapMs: 40 }, fast: { blocks: 5, gapMs: 1 } });
  const c = client(net);
  let n = 0;
  await assert.rejects(
    (async () => {
      for await (const _ of c.downloadBlocks('slow', new Uint8Array(32), KNOWN)) n++;
    })(),
    (e: unknown) => e instanceof SyncError && /too slow/.test(e.message),
  );
  assert.ok(n >= 1 && n < 5, `${n} blocks before the cut`);
  assert.equal(net.penalties.length, 1);
  assert.match(net.penalties[0]!.reason, /too slow/);
  let m = 0;
  for await (const _ of c.downloadBlocks('fast', new Uint8Array(32), KNOWN)) m++;
  assert.equal(m, 5);
  assert.equal(net.penalties.length, 1, 'no penalty for the peer keeping the pace');
});

test('one request at a time per peer: a second one fails at once, and races leave a busy peer out', async () => {
  const net = network({ a: { blocks: 3, gapMs: 20 }, b: { blocks: 1, gapMs: 0 } });
  const c = client(net);
  const first = c.downloadBlocks('a', new Uint8Array(32), KNOWN);
  const firstBlock = first.next();
  assert.equal(c.isBusy('a'), true);
  await assert.rejects(c.downloadBlocks('a', new Uint8Array(32), KNOWN).next(), (e: unknown) => {
    assert.ok(e instanceof SyncError);
    assert.match(e.message, /under way already/);
    return true;
  });
  await assert.rejects(c.requestTip('a'), /under way already/);
  // A race while `a` is busy asks `b` only.
  const asked = net.maxFrames.length;
  const raced = [];
  for await (const b of c.requestBlocksFromPeers(new Uint8Array(32), KNOWN)) raced.push(b.peer);
  assert.deepEqual(raced, ['b']);
  assert.equal(net.maxFrames.length, asked + 1, 'one request: to b');
  await firstBlock;
  for await (const _ of first);
  assert.equal(c.isBusy('a'), false, 'free again once its download ended');
  assert.deepEqual(net.penalties, [], 'being asked twice is no fault of the peer');
});
