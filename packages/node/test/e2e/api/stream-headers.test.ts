/**
 * Live streams send their status line and headers as soon as the client subscribes, not with the
 * first line: on a chain that makes no block, a client (our typed client included), a proxy or a
 * health check gets its 200 at once instead of hanging until the next block.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { createClient } from '../../../client/index.ts';
import { ApiServer } from '../../../src/api/server.ts';
import { streamClients } from '../../../src/api/streams.ts';
import type { ChainService } from '../../../src/chain/chain-service.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { waitUntil } from '../../utils/api-node.ts';

/** A chain that never processes a block: the live streams have no line to send. */
const chain = new EventEmitter() as unknown as ChainService;
let server: ApiServer;
let base: string;

before(async () => {
  const backend = { ...devnetConfig().api.backend, listen_address: '127.0.0.1:0' };
  server = await ApiServer.init({ backend }, pino({ level: 'silent' }));
  base = `http://${await server.serve({ chain } as never)}`;
});
after(() => server.close());

for (const path of ['/cryptarchia/events/blocks/stream', '/cryptarchia/lib-stream']) {
  test(`${path}: 200 and the headers at once, with no line yet`, async () => {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(new Error('no headers within 3 s')), 3000);
    try {
      const r = await fetch(`${base}${path}`, { signal: ac.signal });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/x-ndjson');
      const event = path.includes('lib') ? 'lib' : 'block';
      await waitUntil(() => streamClients(chain, event) === 1, 3000, 'the subscription');
    } finally {
      clearTimeout(timer);
      ac.abort();
    }
  });
}

test('the typed client: `await cryptarchiaBlocksStream()` resolves before any block', async () => {
  const node = createClient({ baseUrl: base });
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error('no headers within 3 s')), 3000);
  try {
    const live = await node.cryptarchiaBlocksStream({ signal: ac.signal });
    live.close();
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  await waitUntil(() => streamClients(chain, 'block') === 0, 3000, 'the subscription to end');
});
