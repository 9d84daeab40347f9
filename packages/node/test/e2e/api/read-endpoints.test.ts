/**
 * Route-level tests of the read endpoints against a running fast test node (insecure test proofs,
 * API on an ephemeral port): shapes, content types, statuses and the reference's error quirks.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '@logos-ts/shared/json';
import { streamClients } from '../../../src/api/streams.ts';
import type { ProcessedBlock } from '../../../src/chain/chain-service.ts';
import type { LogosNode } from '../../../src/node/node.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

let tn: TestNode;
let node: LogosNode;
let base: string;

before(async () => {
  tn = await startFastNode();
  node = tn.node;
  base = tn.base;
  await waitUntil(() => node.chain.lib().height >= 2, 10_000, 'two immutable blocks');
});
after(() => tn.stop());

async function get(path: string) {
  const res = await fetch(base + path);
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    text: await res.text(),
    headers: res.headers,
  };
}

describe('read endpoints', () => {
  test('GET /cryptarchia/info follows the head: each new block shows in the next answer', async () => {
    for (let i = 0; i < 3; i++) {
      const [processed] = (await once(node.chain, 'block')) as [ProcessedBlock];
      const r = await get('/cryptarchia/info');
      const info = (parseJson(r.text) as { cryptarchia_info: { slot: number } }).cryptarchia_info;
      // Not older than the block just processed (a later one may have come meanwhile).
      assert.ok(
        BigInt(info.slot) >= processed.tip.slot,
        `stale info: slot ${info.slot} < ${processed.tip.slot}`,
      );
    }
  });

  test('GET /cryptarchia/info: compact JSON in the reference order', async () => {
    const r = await get('/cryptarchia/info');
    assert.equal(r.status, 200);
    assert.equal(r.type, 'application/json');
    assert.match(
      r.text,
      /^\{"cryptarchia_info":\{"lib":"[0-9a-f]{64}","lib_slot":\d+,"tip":"[0-9a-f]{64}","slot":\d+,"height":\d+,"state":"(Online|Bootstrapping)"\},"phase":"\w+"\}$/,
    );
  });

  test('GET /version, /chain/id, /time/info', async () => {
    const v = parseJson((await get('/version')).text) as Record<string, unknown>;
    assert.equal(v.version, '0.3.1');
    assert.deepEqual(Object.keys(v), ['version', 'commit', 'tag', 'target', 'profile', 'rustc']);
    // Run from this repository's checkout: the abbreviated commit of HEAD.
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    assert.equal(v.commit, head);
    assert.equal((await get('/chain/id')).text, '{"chain_id":"logos-devnet"}');
    const t = parseJson((await get('/time/info')).text) as Record<string, number>;
    assert.equal(t.slot_duration_ms, 100);
    assert.equal(t.slots_per_epoch, 40);
  });

  test('blocks: by id, events, headers, slot range; errors as the reference', async () => {
    const info = parseJson((await get('/cryptarchia/info')).text) as {
      cryptarchia_info: { tip: string; lib: string; height: number };
    };
    const tip = info.cryptarchia_info.tip;
    const block = parseJson((await get(`/cryptarchia/blocks/${tip}`)).text) as { header: { id: string } };
    assert.equal(block.header.id, tip);
    assert.equal((await get(`/cryptarchia/blocks/0x${tip}`)).status, 200);
    const missing = await get(`/cryptarchia/blocks/${'ee'.repeat(32)}`);
    assert.equal(missing.status, 404);
    assert.equal(missing.text, '{"code":404,"message":"Not found"}');
    const bad = await get('/cryptarchia/blocks/xyz');
    assert.equal(bad.status, 400);
    assert.match(bad.type ?? '', /^text\/plain/);
    assert.equal((await get(`/cryptarchia/blocks/${tip}/events`)).text, '[]');
    const lib = info.cryptarchia_info.lib;
    const headers = parseJson((await get(`/cryptarchia/headers?from=${tip}&to=${lib}`)).text) as string[];
    assert.equal(headers[0], tip);
    assert.equal(headers[headers.length - 1], lib);
    assert.ok(headers.length <= 512);
    const noSlot = await get('/cryptarchia/blocks?slot_to=5');
    assert.equal(noSlot.status, 400);
    assert.equal(noSlot.text, 'Failed to deserialize query string: missing field `slot_from`');
    const imm = parseJson(
      (await get('/cryptarchia/blocks?slot_from=0&slot_to=100000&extra=1')).text,
    ) as unknown[];
    assert.ok(imm.length >= 1, 'at least the genesis block is immutable');
  });

  test('mantle reads: gas prices, channel, declarations', async () => {
    const g = parseJson((await get('/mantle/gas-prices')).text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(g), ['tip', 'execution_base_gas_price', 'storage_gas_price']);
    const noState = await get(`/mantle/gas-prices?tip=${'ee'.repeat(32)}`);
    assert.equal(noState.status, 404);
    // F `get_gas_prices`: `ApiError::NotFound("Ledger state not found for block")`.
    assert.deepEqual(JSON.parse(noState.text), { code: 404, message: 'Ledger state not found for block' });
    const ch = await get(`/channel/${'00'.repeat(32)}`);
    assert.equal(ch.status, 200);
    assert.equal(
      (await get(`/channel/${'ab'.repeat(32)}`)).text,
      '{"code":404,"message":"Channel not found"}',
    );
    assert.equal((await get('/mantle/sdp/declarations')).text, '{}');
  });

  test('unknown paths are an empty 404; CORS allows any origin', async () => {
    const r = await get('/no/such/path');
    assert.equal(r.status, 404);
    assert.equal(r.text, '');
    assert.equal((await get('/cryptarchia/info')).headers.get('access-control-allow-origin'), '*');
    const pre = await fetch(`${base}/cryptarchia/info`, {
      method: 'OPTIONS',
      headers: { origin: 'http://x', 'access-control-request-method': 'GET' },
    });
    assert.equal(pre.status, 200);
    assert.equal(pre.headers.get('access-control-allow-headers'), 'content-type,user-agent');
  });

  test('the OpenAPI document lists every route', async () => {
    const doc = parseJson((await get('/api-docs/openapi.json')).text) as { paths: Record<string, unknown> };
    for (const p of [
      '/cryptarchia/info',
      '/cryptarchia/blocks/{id}',
      '/channel/{id}',
      '/mantle/sdp/snapshot',
    ])
      assert.ok(doc.paths[p], p);
  });
});

describe('NDJSON streams', () => {
  async function lines(
    path: string,
    max: number,
    ms = 5000,
  ): Promise<{ type: string | null; lines: string[] }> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), ms);
    const res = await fetch(base + path, { signal: ctl.signal });
    const out: string[] = [];
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += Buffer.from(chunk).toString();
        let i = buf.indexOf('\n');
        while (i >= 0) {
          out.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
          i = buf.indexOf('\n');
        }
        if (out.length >= max) break;
      }
    } catch {
      // aborted
    } finally {
      clearTimeout(timer);
      ctl.abort();
    }
    return { type: res.headers.get('content-type'), lines: out };
  }

  test('blocks_range: ascending and descending, limits, line shape, errors', async () => {
    const asc = await lines(
      '/cryptarchia/blocks_range?order=ascending&slot_from=0&blocks_limit=3&unknown=1',
      10,
    );
    assert.equal(asc.type, 'application/x-ndjson');
    assert.equal(asc.lines.length, 3);
    const first = parseJson(asc.lines[0]!) as {
      block: { header: { slot: number } };
      tip: string;
      lib_slot: number;
    };
    assert.equal(first.block.header.slot, 0);
    assert.deepEqual(Object.keys(first), ['block', 'tip', 'tip_slot', 'lib', 'lib_slot']);
    const desc = await lines('/cryptarchia/blocks_range?blocks_limit=2&server_batch_size=1', 10);
    const slots = desc.lines.map(
      (l) => (parseJson(l) as { block: { header: { slot: number } } }).block.header.slot,
    );
    assert.equal(slots.length, 2);
    assert.ok(slots[0]! > slots[1]!);
    for (const q of ['slot_from=5&slot_to=1', 'blocks_limit=0', 'server_batch_size=1001', 'order=sideways']) {
      const r = await get(`/cryptarchia/blocks_range?${q}`);
      assert.equal(r.status, 400, q);
      assert.match(r.text, /^\{"code":400,"message":/);
    }
    assert.equal((await get('/cryptarchia/blocks_range?slot_from=x')).status, 400);
  });

  test('the events stream delivers newly processed blocks; the LIB stream immutable ones', async () => {
    const ev = await lines('/cryptarchia/events/blocks/stream', 1);
    assert.equal(ev.type, 'application/x-ndjson');
    assert.equal(ev.lines.length, 1);
    assert.match(ev.lines[0]!, /^\{"block":\{"header":\{"id":"[0-9a-f]{64}"/);
    const lib = await lines('/cryptarchia/lib-stream', 1);
    assert.match(lib.lines[0]!, /^\{"height":\d+,"header_id":"[0-9a-f]{64}"\}$/);
  });

  test('clients that leave release their subscriptions', async () => {
    const before = streamClients(node.chain, 'block');
    await lines('/cryptarchia/events/blocks/stream', 1);
    await waitUntil(
      () => streamClients(node.chain, 'block') === before,
      10_000,
      'the block subscription released',
    );
  });
});

describe('administration', () => {
  test('PUT /admin/tracing/filter replaces module levels; bad bodies are plain-text rejections', async () => {
    const put = (body: string, type = 'application/json') =>
      fetch(`${base}/admin/tracing/filter`, { method: 'PUT', headers: { 'content-type': type }, body });
    const ok = await put('{"filters":{"chain":"DEBUG","*":"warn"}}');
    assert.equal(ok.status, 200);
    assert.equal(await ok.text(), 'null');
    const bad = await put('{"filters":{"chain":"loud"}}');
    assert.equal(bad.status, 422);
    assert.match(bad.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal((await put('{"nofilters":1}')).status, 422);
    assert.equal((await put('{')).status, 400);
    assert.equal((await put('{"filters":{}}', 'text/plain')).status, 415);
    assert.equal((await put('{"filters":{"*":3}}')).status, 200);
  });
});

describe('Swagger UI', () => {
  test('is served at /swagger-ui/ with its assets from the node itself', async () => {
    const page = await get('/swagger-ui/');
    assert.equal(page.status, 200);
    assert.match(page.type ?? '', /^text\/html/);
    assert.ok(!page.text.includes('cdn.'), 'no CDN');
    const bundle = await fetch(`${base}/swagger-ui/static/swagger-ui-bundle.js`);
    assert.equal(bundle.status, 200);
    assert.ok((await bundle.arrayBuffer()).byteLength > 100_000);
    // The reference serves /swagger-ui too.
    const bare = await fetch(`${base}/swagger-ui`);
    assert.equal(bare.status, 200);
    assert.match(bare.headers.get('content-type') ?? '', /^text\/html/);
  });
});
