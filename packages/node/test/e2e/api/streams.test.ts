/**
 * The NDJSON streams under load, against a running fast test node (100 ms slots, insecure test
 * proofs, API on an ephemeral port): many concurrent clients of `blocks_range`, of the block events
 * stream and of the LIB stream get the same, complete, well-formed data; a client that stops reading
 * does not hold up the others and its live stream is closed instead of buffered without bound; a
 * client that leaves mid-stream releases its subscription at once.
 *
 * Backpressure: a stalled reader only holds up the server once the kernel's socket buffers are full
 * (several MB on loopback, thousands of ~1 kB lines), far more blocks than the chain makes during a
 * test. The slow-reader test therefore replays a real processed block on the chain service's `block`
 * event many times (only the API's streams listen to it), as a chain making blocks very fast would.
 * Timeouts are generous and assertions wait for events, not wall-clock times.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { getDefaultHighWaterMark } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { streamClients } from '../../../src/api/streams.ts';
import type { ProcessedBlock } from '../../../src/chain/chain-service.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import {
  type BlockLine,
  fetchNdjson,
  NdjsonClient,
  parseBlockLine,
  RawClient,
  serverSideOf,
  sleep,
  startFastNode,
  type TestNode,
  waitUntil,
} from '../../utils/api-node.ts';

const NDJSON = 'application/x-ndjson';
const HEX64 = /^[0-9a-f]{64}$/;

let tn: TestNode;
const open = new Set<{ close(): void }>();
function track<C extends { close(): void }>(c: C): C {
  open.add(c);
  return c;
}
function closeAll(): void {
  for (const c of open) c.close();
  open.clear();
}

/** Stream clients subscribed to a chain event (all share one listener on the chain service). */
const listeners = (event: 'block' | 'lib') => streamClients(tn.node.chain, event);

interface Info {
  lib: string;
  lib_slot: number;
  tip: string;
  slot: number;
  height: number;
}

async function getText(path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(tn.base + path, { signal: AbortSignal.timeout(15_000) });
  return { status: res.status, text: await res.text() };
}

async function info(): Promise<Info> {
  const r = await getText('/cryptarchia/info');
  assert.equal(r.status, 200);
  return (JSON.parse(r.text) as { cryptarchia_info: Info }).cryptarchia_info;
}

/** Checks that `lines` form a chain: each block's parent is the block before it. */
function assertLinked(lines: readonly BlockLine[], what: string): void {
  for (let i = 1; i < lines.length; i++) {
    assert.equal(lines[i]!.parent, lines[i - 1]!.id, `${what}: line ${i} does not extend line ${i - 1}`);
    assert.ok(lines[i]!.slot > lines[i - 1]!.slot, `${what}: slots must increase`);
  }
}

const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);

before(async () => {
  process.on('warning', onWarning);
  tn = await startFastNode();
  // Enough immutable blocks for ranges that span several server batches.
  await waitUntil(() => tn.node.chain.lib().height >= 12, 40_000, 'an LIB at height 12', 50);
});

after(async () => {
  process.off('warning', onWarning);
  closeAll();
  await tn?.stop();
});

describe('many concurrent clients', () => {
  test('20 concurrent blocks_range clients get the same complete, well-formed NDJSON', async () => {
    const i0 = await info();
    const to = i0.lib_slot;
    // The reference: the immutable blocks of [0, to], ascending, and each block as served by id.
    const imm = await getText(`/cryptarchia/blocks?slot_from=0&slot_to=${to}`);
    assert.equal(imm.status, 200);
    const refIds = (JSON.parse(imm.text) as { header: { id: string } }[]).map((b) => b.header.id);
    assert.ok(refIds.length >= 10, `${refIds.length} immutable blocks`);
    assert.equal(refIds[refIds.length - 1], i0.lib, 'the range ends at the LIB');
    const refText = new Map<string, string>();
    for (const id of refIds) {
      const r = await getText(`/cryptarchia/blocks/${id}`);
      assert.equal(r.status, 200);
      refText.set(id, r.text);
    }

    const batches = [1, 2, 3, 7, 100, 1000];
    const variants = Array.from({ length: 20 }, (_, i) => {
      const ascending = i % 2 === 0;
      const limit = i % 5 === 4 ? 5 : undefined;
      const q = [
        'slot_from=0',
        `slot_to=${to}`,
        // the default order is descending: leave it out for some clients
        ascending ? 'order=ascending' : i % 4 === 1 ? '' : 'order=descending',
        `server_batch_size=${batches[i % batches.length]}`,
        limit ? `blocks_limit=${limit}` : '',
      ]
        .filter((x) => x)
        .join('&');
      const all = ascending ? refIds : [...refIds].reverse();
      return { q, ascending, expected: limit ? all.slice(0, limit) : all };
    });
    const results = await Promise.all(
      variants.map((v) => fetchNdjson(`${tn.base}/cryptarchia/blocks_range?${v.q}`, 30_000)),
    );

    for (const [i, r] of results.entries()) {
      const v = variants[i]!;
      assert.equal(r.status, 200, v.q);
      assert.equal(r.contentType, NDJSON, v.q);
      assert.equal(r.rest, '', `${v.q}: the stream must end with a complete line`);
      const lines = r.lines.map((l) => parseBlockLine(l));
      assert.deepEqual(
        lines.map((l) => l.id),
        v.expected,
        `${v.q}: the blocks of the range, in ${v.ascending ? 'ascending' : 'descending'} slot order`,
      );
      for (const [j, l] of lines.entries()) {
        assert.equal(
          l.blockText,
          refText.get(l.id),
          `${v.q}: line ${j} differs from GET /cryptarchia/blocks/{id}`,
        );
        assert.match(l.tip, HEX64);
        assert.match(l.lib, HEX64);
        assert.ok(l.tipSlot >= l.libSlot && l.libSlot >= to, `${v.q}: tip and LIB slots`);
        // tip and LIB are read once, when the request is handled
        assert.equal(l.tip, lines[0]!.tip, `${v.q}: one tip for the whole response`);
        assert.equal(l.lib, lines[0]!.lib, `${v.q}: one LIB for the whole response`);
      }
      assertLinked(v.ascending ? lines : [...lines].reverse(), v.q);
    }
  });

  test('20 events-stream clients receive the same new blocks; LIB-stream clients increasing heights', async (tc) => {
    const b0 = listeners('block');
    const l0 = listeners('lib');
    const evs = Array.from({ length: 20 }, () =>
      track(new NdjsonClient(`${tn.base}/cryptarchia/events/blocks/stream`)),
    );
    const libs = Array.from({ length: 2 }, () =>
      track(new NdjsonClient(`${tn.base}/cryptarchia/lib-stream`)),
    );
    // Once every client is subscribed, every block processed reaches all of them: record those blocks.
    const truth: string[] = [];
    const record = (p: ProcessedBlock) => truth.push(bytesToHex(p.id));
    await waitUntil(
      () => {
        if (listeners('block') < b0 + 20 || listeners('lib') < l0 + 2) return false;
        tn.node.chain.on('block', record);
        return true;
      },
      20_000,
      '22 subscriptions',
      1,
    );
    const N = 6;
    try {
      await waitUntil(() => truth.length >= N, 30_000, `${N} new blocks`, 20);
      for (const c of evs) {
        await waitUntil(
          () => c.lines.some((l) => l.includes(truth[N - 1]!)),
          15_000,
          'the blocks on every client',
        );
      }
    } finally {
      tn.node.chain.off('block', record);
    }
    const want = truth.slice(0, N);
    const seqs = evs.map((c) => {
      assert.equal(c.status, 200);
      assert.equal(c.contentType, NDJSON);
      return c.lines.map((l) => parseBlockLine(l));
    });
    // Clients subscribed at slightly different times: all sequences are suffixes of the longest one.
    const starts = seqs.map((s) => s.findIndex((l) => l.id === want[0]));
    for (const [i, s] of starts.entries()) assert.ok(s >= 0, `client ${i} missed block ${want[0]}`);
    const first = Math.max(...starts);
    const longest = seqs[starts.indexOf(first)]!;
    tc.diagnostic(`clients got 0 to ${first} blocks before the last one subscribed`);
    for (const [i, s] of seqs.entries()) {
      const ids = s.slice(0, starts[i]! + N).map((l) => l.id);
      const same = longest.slice(first - starts[i]!, first + N).map((l) => l.id);
      assert.deepEqual(ids, same, `client ${i}: the same blocks as the others, in the same order`);
      assert.deepEqual(ids.slice(starts[i]!), want, `client ${i}: the blocks processed, in order`);
    }
    assertLinked(longest, 'events stream');
    for (const l of longest) {
      assert.equal(l.tip, l.id, 'each new block is the tip when it is processed');
      assert.equal(l.tipSlot, l.slot);
    }

    for (const c of libs) await c.waitForCount(3, 15_000, '3 LIB lines');
    const libSeqs = libs.map((c) => {
      assert.equal(c.status, 200);
      assert.equal(c.contentType, NDJSON);
      return c.lines.map((l) => {
        assert.match(l, /^\{"height":\d+,"header_id":"[0-9a-f]{64}"\}$/);
        return JSON.parse(l) as { height: number; header_id: string };
      });
    });
    const byHeight = new Map<number, string>();
    for (const s of libSeqs) {
      for (let i = 1; i < s.length; i++) assert.ok(s[i]!.height > s[i - 1]!.height, 'LIB heights increase');
      for (const { height, header_id } of s) {
        const seen = byHeight.get(height);
        if (seen) assert.equal(header_id, seen, `the LIB at height ${height} is the same for every client`);
        byHeight.set(height, header_id);
      }
    }
    for (const id of byHeight.values())
      assert.equal((await getText(`/cryptarchia/blocks/${id}`)).status, 200);

    closeAll();
    await waitUntil(
      () => listeners('block') === b0 && listeners('lib') === l0,
      10_000,
      'released subscriptions',
    );
  });

  test('no EventEmitter leak warning for the chain service with 20+ stream clients', () => {
    const leaks = warnings.filter((w) => w.name === 'MaxListenersExceededWarning');
    assert.deepEqual(
      leaks.map((w) => w.message),
      [],
      'each stream client subscribes its own listener: the chain service must allow that many',
    );
  });
});

describe('a slow reader', () => {
  test('does not hold up other clients, and its lagging live stream is closed', async (tc) => {
    const b0 = listeners('block');
    // A real processed block, to replay on the chain's event as a chain making blocks very fast would.
    const [sample] = (await once(tn.node.chain, 'block', { signal: AbortSignal.timeout(15_000) })) as [
      ProcessedBlock,
    ];
    const sampleId = bytesToHex(sample.id);
    const tip = await info();

    // Two clients that read nothing: a blocks_range over the whole chain and an events stream.
    const rangeQuery = `order=ascending&slot_from=0&slot_to=${tip.slot}&server_batch_size=1`;
    const slowRange = track(new RawClient(tn.port, `/cryptarchia/blocks_range?${rangeQuery}`));
    const slow = track(new RawClient(tn.port, '/cryptarchia/events/blocks/stream'));
    await Promise.all([slowRange.connected, slow.connected]);
    // A normal client of the same stream, reading as it comes (it keeps only its last lines).
    const normal = track(new NdjsonClient(`${tn.base}/cryptarchia/events/blocks/stream`, 8));
    await waitUntil(() => listeners('block') === b0 + 2, 10_000, 'both event subscriptions');
    const rss0 = process.memoryUsage().rss;

    // Replay the block in bursts, yielding to the event loop between them, until the server drops the
    // stalled subscription. The kernel buffers a few MB of it; the server then holds a bounded queue.
    const LIMIT = 100_000;
    let emitted = 0;
    let during: Promise<{ status: number; text: string }> | undefined;
    while (listeners('block') > b0 + 1 && emitted < LIMIT) {
      for (let i = 0; i < 32; i++) tn.node.chain.emit('block', sample);
      emitted += 32;
      // Meanwhile another client asks for the chain info.
      if (emitted === 32 * 64) during = getText('/cryptarchia/info');
      await new Promise((r) => setImmediate(r));
    }
    tc.diagnostic(`the stalled events stream was dropped after ${emitted} lines`);
    assert.equal(
      listeners('block'),
      b0 + 1,
      `the stalled stream was still subscribed after ${emitted} lines`,
    );
    const held = serverSideOf(slow.socket);
    tc.diagnostic(
      held && !held.destroyed
        ? `the server keeps the dropped client's connection open (${held.writableLength} bytes unsent) until the client reads or leaves`
        : 'the server closed the dropped connection',
    );
    assert.ok(!normal.closed, 'the reading client keeps its stream');
    if (during) assert.equal((await during).status, 200, 'GET /cryptarchia/info during the burst');

    // More lines: the dropped subscription stays dropped, memory stays bounded.
    for (let k = 0; k < 64; k++) {
      for (let i = 0; i < 32; i++) tn.node.chain.emit('block', sample);
      emitted += 32;
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(listeners('block'), b0 + 1);
    const grown = (process.memoryUsage().rss - rss0) / 2 ** 20;
    tc.diagnostic(`rss grew by ${grown.toFixed(1)} MiB`);
    assert.ok(grown < 256, `rss grew by ${grown.toFixed(0)} MiB`);

    // While both slow clients are still connected and unread, others are served.
    assert.equal((await getText('/cryptarchia/info')).status, 200);
    await normal.waitForCount(emitted, 30_000, `all ${emitted} replayed lines on the reading client`);
    // ... and the reading client keeps receiving the chain's new blocks.
    await waitUntil(
      () => normal.lines.length > 0 && parseBlockLine(normal.lines[normal.lines.length - 1]!).id !== sampleId,
      15_000,
      'a new block on the reading client',
    );
    assert.ok(!normal.closed);

    // The stalled events client, reading again, gets whole lines and then the end of its stream.
    slow.resume();
    await waitUntil(() => slow.closed || slow.response().complete, 30_000, 'the end of the dropped stream');
    const res = slow.response();
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], NDJSON);
    const parts = res.body.split('\n');
    // Ended normally: every line is whole. Cut off: the last one may be partial.
    const whole = parts.slice(0, -1);
    if (res.complete) {
      assert.equal(parts[parts.length - 1], '', 'the dropped stream ends with a whole line');
      assert.equal(res.trailing, 0, 'nothing is written after the end of the response');
    }
    assert.ok(whole.length > 0 && whole.length < emitted, `${whole.length} lines of ${emitted}`);
    for (const l of whole) assert.equal(parseBlockLine(l).id.length, 64);
    tc.diagnostic(
      `the stalled client got ${whole.length} lines, ${res.complete ? 'then the end' : 'then a close'}`,
    );

    // The stalled blocks_range reader gets the whole range once it reads.
    slowRange.resume();
    await waitUntil(() => slowRange.response().complete, 30_000, 'the end of the stalled blocks_range');
    const range = slowRange.response();
    assert.equal(range.status, 200);
    const rangeLines = range.body
      .split('\n')
      .filter((l) => l)
      .map((l) => parseBlockLine(l));
    assert.equal(rangeLines[0]!.slot, 0, 'from genesis');
    assert.equal(rangeLines[rangeLines.length - 1]!.id, tip.tip, 'up to the tip');
    assertLinked(rangeLines, 'stalled blocks_range');

    closeAll();
    await waitUntil(() => listeners('block') === b0, 10_000, 'released subscriptions');
    assert.equal((await getText('/cryptarchia/info')).status, 200, 'the node is healthy');
  });
});

describe('clients that leave mid-stream', () => {
  for (const [path, event] of [
    ['/cryptarchia/events/blocks/stream', 'block'],
    ['/cryptarchia/lib-stream', 'lib'],
  ] as const) {
    test(`${path} releases its subscription at once`, async () => {
      const before = listeners(event);
      const c = track(new NdjsonClient(tn.base + path));
      await c.waitForCount(2, 15_000, 'two lines');
      assert.equal(listeners(event), before + 1, 'subscribed while reading');
      c.close();
      await waitUntil(() => listeners(event) === before, 5_000, 'the subscription to be released');
      // and it stays released while the chain goes on
      await once(tn.node.chain, event, { signal: AbortSignal.timeout(15_000) });
      assert.equal(listeners(event), before);
      assert.equal(c.count, c.lines.length);
    });
  }

  test('blocks_range: a client leaving mid-range stops the server writing it, holding no subscription', async (tc) => {
    const b0 = listeners('block');
    const l0 = listeners('lib');
    // A range several times the socket's high-water mark, so that the server blocks in its middle.
    const need = 4 * getDefaultHighWaterMark(false);
    let q = '';
    let full: Awaited<ReturnType<typeof fetchNdjson>> | undefined;
    let fullBytes = 0;
    await waitUntil(
      async () => {
        const top = await info();
        q = `/cryptarchia/blocks_range?order=ascending&slot_from=0&slot_to=${top.slot}&server_batch_size=1`;
        full = await fetchNdjson(tn.base + q);
        fullBytes = full.lines.reduce((n, l) => n + l.length + 1, 0);
        return fullBytes >= need;
      },
      60_000,
      `a chain of more than ${need} bytes of blocks`,
      500,
    );
    const blocks = full!.lines.length;

    // The client's connection is held up server-side (its socket corked, as a congested link), so the
    // server blocks mid-range waiting for the socket to drain.
    const c = track(new RawClient(tn.port, q, { paused: true, send: false }));
    await c.connected;
    await waitUntil(() => serverSideOf(c.socket) !== undefined, 5_000, 'the server side of the socket');
    const srv = serverSideOf(c.socket)!;
    srv.cork();
    // Count the reads of the range's older blocks (the chain's own work reads only recent ones).
    const old = new Set(full!.lines.slice(0, blocks - 10).map((l) => parseBlockLine(l).id));
    const chain = tn.node.chain as unknown as { block: (id: Uint8Array) => unknown };
    const read = chain.block.bind(chain);
    let reads = 0;
    chain.block = (id) => {
      if (old.has(bytesToHex(id))) reads++;
      return read(id);
    };
    try {
      c.send();
      await waitUntil(() => srv.writableLength > 0, 10_000, 'the server to start writing');
      let last = -1;
      await waitUntil(
        () => {
          const same = srv.writableLength === last;
          last = srv.writableLength;
          return same;
        },
        10_000,
        'the server to stop writing',
        100,
      );
      assert.ok(srv.writableLength < fullBytes, `mid-range: ${srv.writableLength} of ${fullBytes} bytes`);
      assert.equal(listeners('block'), b0, 'a blocks_range holds no block subscription');
      assert.equal(listeners('lib'), l0, 'a blocks_range holds no LIB subscription');
      let readsAtClose = -1;
      srv.once('close', () => {
        readsAtClose = reads;
      });
      c.close();
      await waitUntil(() => readsAtClose >= 0, 5_000, 'the server to close its side');
      await sleep(300);
      tc.diagnostic(`${readsAtClose} of ${blocks} blocks read when the client left, ${reads} after`);
      if (reads === 0) tc.diagnostic('the range is not read through chain.block(): read counts not checked');
      else {
        assert.ok(readsAtClose < old.size, `mid-range: ${readsAtClose} of ${blocks} blocks read`);
        // (the loop may read the next block before its write finds the client gone)
        assert.ok(reads - readsAtClose <= 1, `${reads - readsAtClose} blocks read after the client left`);
      }
    } finally {
      delete (chain as { block?: unknown }).block;
    }
    assert.equal(listeners('block'), b0);
    assert.equal(listeners('lib'), l0);
    assert.equal((await getText('/cryptarchia/info')).status, 200, 'the node is healthy');
  });
});
