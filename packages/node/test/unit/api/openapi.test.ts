/**
 * The OpenAPI document served at /api-docs/openapi.json, pinned by its SHA-256: the route table may be
 * reorganised, but the document (and so the typed client made from the same table) must not change
 * without this pin being updated on purpose.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { pino } from 'pino';
import { ROUTES } from '../../../src/api/impl/index.ts';
import { ApiServer } from '../../../src/api/server.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { apiContext } from '../../mocks/api-context.ts';

const PINNED = {
  bytes: 65673,
  sha256: 'd2bb3c5e9ff296b462cc34ac553fd3d5db3aaf203406fc84fbc1f424f5633d86',
};

test('the served OpenAPI document is byte for byte the pinned one', async () => {
  const backend = { ...devnetConfig().api.backend, listen_address: '127.0.0.1:0' };
  const server = await ApiServer.init({ backend }, pino({ level: 'silent' }), ROUTES);
  const address = await server.serve(apiContext());
  try {
    const r = await fetch(`http://${address}/api-docs/openapi.json`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    const body = Buffer.from(await r.arrayBuffer());
    assert.deepEqual({ bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') }, PINNED);
  } finally {
    await server.close();
  }
});
