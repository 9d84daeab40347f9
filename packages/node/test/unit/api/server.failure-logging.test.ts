/**
 * The level a failed request is logged at says whose fault it is: a request the API refuses as
 * malformed (path, query, JSON body) at debug; a known error a handler reports (a `LogosError`,
 * answered with its status) at info with its code; only an unexpected exception, the node's own fault,
 * at error. A node serving well-behaved and misbehaving clients alike logs no error line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LogosError } from '@logos-ts/shared/errors';
import { pino } from 'pino';
import { ApiError } from '../../../src/api/errors.ts';
import { object, string } from '../../../src/api/json-schema.ts';
import { ApiServer } from '../../../src/api/server.ts';
import type { ServerRoute } from '../../../src/api/types.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { apiContext } from '../../mocks/api-context.ts';

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly route?: string;
  readonly code?: string;
}

const ERROR = 50;
const INFO = 30;
const DEBUG = 20;

const lines: LogLine[] = [];
let server: ApiServer;
let base: string;

const route = (operationId: string, method: 'GET' | 'POST', handle: ServerRoute['handle']): ServerRoute => ({
  operationId,
  def: {
    method,
    path: `/test/${operationId}`,
    tag: 'Test',
    summary: operationId,
    ...(method === 'POST' ? { body: object({ name: string }) } : {}),
    response: { json: object({ ok: string }) },
  },
  handle,
});

class ServiceRefused extends LogosError {}

const ROUTES: readonly ServerRoute[] = [
  route('echo', 'POST', () => ({ body: '{"ok":"yes"}' })),
  route('refused', 'GET', () => {
    throw new ServiceRefused('TEST_REFUSED', 'the service says no');
  }),
  route('missing', 'GET', async () => {
    throw new ApiError(404, 'no such thing');
  }),
  route('broken', 'GET', () => {
    throw new TypeError('cannot read properties of undefined');
  }),
];

before(async () => {
  const backend = { ...devnetConfig().api.backend, listen_address: '127.0.0.1:0' };
  const logger = pino(
    { level: 'debug' },
    { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) },
  );
  server = await ApiServer.init({ backend }, logger, ROUTES);
  base = `http://${await server.serve(apiContext())}`;
});
after(() => server.close());

/** The log lines written while `f` runs. */
async function logged(f: () => Promise<Response>): Promise<{ status: number; lines: LogLine[] }> {
  const from = lines.length;
  const r = await f();
  await r.arrayBuffer();
  return { status: r.status, lines: lines.slice(from) };
}

const post = (path: string, body: string, contentType = 'application/json') =>
  fetch(`${base}${path}`, { method: 'POST', body, headers: { 'content-type': contentType } });

describe('failed requests are logged at the level of whose fault they are', () => {
  test('a malformed request (bad JSON, wrong shape, wrong content type) logs at debug, never error', async () => {
    for (const [send, status] of [
      [() => post('/test/echo', '{not json'), 400],
      [() => post('/test/echo', '{"name":1}'), 422],
      [() => post('/test/echo', '{"name":"a"}', 'text/plain'), 415],
    ] as const) {
      const r = await logged(send);
      assert.equal(r.status, status);
      assert.deepEqual(
        r.lines.map((l) => l.level),
        [DEBUG],
      );
      assert.equal(r.lines[0]!.msg, 'API request refused');
    }
  });

  test('a well-formed request logs nothing', async () => {
    const r = await logged(() => post('/test/echo', '{"name":"a"}'));
    assert.equal(r.status, 200);
    assert.deepEqual(r.lines, []);
  });

  test('a known error from a handler logs at info with its code', async () => {
    const refused = await logged(() => fetch(`${base}/test/refused`));
    assert.equal(refused.status, 500);
    assert.equal(refused.lines.length, 1);
    assert.equal(refused.lines[0]!.level, INFO);
    assert.equal(refused.lines[0]!.code, 'TEST_REFUSED');
    assert.equal(refused.lines[0]!.route, 'refused');

    const missing = await logged(() => fetch(`${base}/test/missing`));
    assert.equal(missing.status, 404);
    assert.deepEqual(
      missing.lines.map((l) => [l.level, l.code]),
      [[INFO, 'API_NOT_FOUND']],
    );
  });

  test('an unexpected exception in a handler logs at error', async () => {
    const r = await logged(() => fetch(`${base}/test/broken`));
    assert.equal(r.status, 500);
    assert.equal(r.lines.length, 1);
    assert.equal(r.lines[0]!.level, ERROR);
    assert.equal(r.lines[0]!.msg, 'API handler failed');
    assert.equal(r.lines[0]!.route, 'broken');
  });
});
