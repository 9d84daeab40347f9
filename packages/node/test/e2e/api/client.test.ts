/**
 * The typed client against a running fast test node: every endpoint of the table called through
 * its method, each response decoded against the table's schema (so a server answer that drifts
 * from the documented shape fails here), u64 values as bigint, errors as ApiResponseError, NDJSON
 * streams as async iterables; and the OpenAPI document made from the same table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API, ApiResponseError, createClient, type LogosClient } from '../../../client/index.ts';
import type { RouteDef } from '../../../src/api/definitions.ts';
import { streamClients } from '../../../src/api/streams.ts';
import type { LogosNode } from '../../../src/node/node.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

let tn: TestNode;
let node: LogosNode;
let client: LogosClient;
let base: string;

before(async () => {
  tn = await startFastNode();
  node = tn.node;
  base = tn.base;
  client = createClient({ baseUrl: base });
  await waitUntil(() => node.chain.lib().height >= 3, 15_000, 'three immutable blocks');
});
after(() => tn.stop());

async function rejection(p: Promise<unknown>): Promise<ApiResponseError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiResponseError, String(e));
    return e;
  }
  assert.fail('expected the call to fail');
}

describe('typed client', () => {
  test('node and consensus reads decode against their schemas, u64 as bigint', async () => {
    const v = await client.version();
    assert.equal(v.version, '0.3.1');
    const { chain_id } = await client.chainId();
    assert.equal(chain_id, node.chain.genesis.parameter.chain_id);
    const info = await client.cryptarchiaInfo();
    assert.equal(typeof info.cryptarchia_info.slot, 'bigint');
    assert.ok(info.cryptarchia_info.height >= 3n);
    assert.equal(info.phase, 'Following');
    const time = await client.timeInfo();
    assert.equal(time.slot_duration_ms, 100n);
    assert.equal(time.slots_per_epoch, 40n);

    const ids = await client.cryptarchiaHeaders({ query: { from: info.cryptarchia_info.tip } });
    assert.equal(ids[0], info.cryptarchia_info.tip);
    const block = await client.cryptarchiaBlock({ params: { id: ids[0]! } });
    assert.equal(block.header.id, ids[0]);
    if (ids.length > 1) assert.equal(block.header.parent_block, ids[1]);
    const events = await client.cryptarchiaBlockEvents({ params: { id: ids[0]! } });
    assert.ok(Array.isArray(events));

    const lib = info.cryptarchia_info.lib_slot;
    const blocks = await client.cryptarchiaBlocks({ query: { slot_from: 0, slot_to: lib } });
    assert.ok(blocks.length >= 1);
    assert.ok(blocks.every((b) => b.header.slot <= lib));
  });

  test('mantle and SDP reads; admin filter with a body', async () => {
    const gas = await client.mantleGasPrices();
    assert.equal(typeof gas.execution_base_gas_price, 'bigint');
    const at = await client.mantleGasPrices({ query: { tip: gas.tip } });
    assert.equal(at.tip, gas.tip);
    assert.deepEqual(await client.sdpDeclarations(), {});
    assert.deepEqual(await client.sdpSnapshot(), {});
    assert.equal(await client.adminTracingFilter({ body: { filters: { '*': 'info' } } }), null);
  });

  test('failures: {code, message} as ApiResponseError with the code; plain-text rejections keep the text', async () => {
    const missing = await rejection(client.cryptarchiaBlock({ params: { id: '00'.repeat(32) } }));
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 404);
    const tx = await rejection(client.cryptarchiaTransaction({ params: { id: '11'.repeat(32) } }));
    assert.equal(tx.status, 404);
    const channel = await rejection(client.channel({ params: { id: '22'.repeat(32) } }));
    assert.equal(channel.status, 404);
    const bad = await rejection(client.cryptarchiaBlock({ params: { id: 'xyz' } }));
    assert.equal(bad.status, 400);
    assert.equal(bad.code, undefined);
    assert.match(bad.body, /Invalid URL/);
    const range = await rejection(client.cryptarchiaBlocksRange({ query: { slot_from: 5, slot_to: 1 } }));
    assert.equal(range.status, 400);
    assert.equal(range.code, 400);
    const level = await rejection(client.adminTracingFilter({ body: { filters: { '*': 'loud' } } }));
    assert.equal(level.status, 422);
  });

  test('blocks_range as an async iterable: ascending, consecutive, as the blocks endpoint has them', async () => {
    const tip = (await client.cryptarchiaInfo()).cryptarchia_info;
    const lines = [];
    for await (const l of await client.cryptarchiaBlocksRange({
      query: { slot_from: 0, slot_to: tip.slot, order: 'ascending', server_batch_size: 2 },
    })) {
      lines.push(l);
    }
    assert.ok(lines.length >= 3);
    for (let i = 1; i < lines.length; i++) {
      assert.equal(lines[i]!.block.header.parent_block, lines[i - 1]!.block.header.id);
      assert.ok(lines[i]!.block.header.slot > lines[i - 1]!.block.header.slot);
    }
    const one = await client.cryptarchiaBlock({ params: { id: lines[1]!.block.header.id } });
    assert.deepEqual(one, lines[1]!.block);
  });

  test('live streams: lines arrive, close() ends the subscription', async () => {
    const before = streamClients(node.chain, 'block');
    const stream = await client.cryptarchiaBlocksStream();
    const got = [];
    for await (const l of stream) {
      got.push(l);
      if (got.length === 2) break;
    }
    assert.equal(got[1]!.block.header.parent_block, got[0]!.block.header.id);
    const libs = await client.cryptarchiaLibStream();
    for await (const l of libs) {
      assert.equal(typeof l.height, 'bigint');
      libs.close();
    }
    const end = Date.now() + 5000;
    while (streamClients(node.chain, 'block') > before && Date.now() < end)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(streamClients(node.chain, 'block'), before);
  });
});

describe('OpenAPI document', () => {
  test('lists every route of the table with its parameters and response schema', async () => {
    const res = await fetch(`${base}/api-docs/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            parameters: { name: string }[];
            responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
          }
        >
      >;
    };
    assert.equal(doc.openapi, '3.1.0');
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
    assert.deepEqual(ops.map((o) => o.operationId).sort(), Object.keys(API).sort());
    for (const [op, def] of Object.entries(API)) {
      const entry = doc.paths[def.path]?.[def.method.toLowerCase()];
      assert.ok(entry, op);
      const ok = entry.responses[String((def as RouteDef).status ?? 200)]?.content;
      assert.ok(ok && Object.values(ok)[0]?.schema, `${op} has a response schema`);
      for (const name of Object.keys('query' in def ? def.query : {})) {
        assert.ok(
          entry.parameters.some((p) => p.name === name),
          `${op} documents ${name}`,
        );
      }
    }
    const info = doc.paths['/cryptarchia/info']!.get!.responses['200']!.content!['application/json']!
      .schema as {
      properties: Record<string, unknown>;
    };
    assert.deepEqual(Object.keys(info.properties), ['cryptarchia_info', 'phase']);
  });
});
