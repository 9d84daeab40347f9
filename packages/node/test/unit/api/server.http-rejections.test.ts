/**
 * Rejections below the routes, over raw sockets (fastify.inject would bypass the HTTP parser and its
 * limits): every one has the reference's form, never a framework's JSON. A path parameter too long
 * or not percent-decodable is the route's plain-text 400; an unknown path with a bad escape is an
 * empty 404; an over-long header is an empty 431 and a request that is not HTTP an empty 400.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { ApiServer } from '../../../src/api/server.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { apiContext } from '../../mocks/api-context.ts';

let server: ApiServer;
let port: number;

before(async () => {
  const backend = { ...devnetConfig().api.backend, listen_address: '127.0.0.1:0' };
  // No request here reaches a handler: the chain is never read.
  server = await ApiServer.init({ backend }, pino({ level: 'silent' }));
  port = Number((await server.serve(apiContext())).split(':').pop());
});
after(() => server.close());

interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Sends `request` as written and reads the response until the server closes the connection. */
function raw(request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine?.split(' ')[1]), headers, body: text.slice(end + 4) });
    });
  });
}

const get = (path: string, extra = '') =>
  raw(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${extra}Connection: close\r\n\r\n`);

function assertPlainText(r: RawResponse, status: number, body: string | RegExp): void {
  assert.equal(r.status, status);
  assert.match(r.headers['content-type'] ?? '', /^text\/plain/);
  if (typeof body === 'string') assert.equal(r.body, body);
  else assert.match(r.body, body);
}

function assertEmpty(r: RawResponse, status: number): void {
  assert.equal(r.status, status);
  assert.equal(r.body, '');
  assert.equal(r.headers['content-length'], '0');
}

describe('path parameters the router cannot take', () => {
  test("an id of 64 bytes (128 hex digits) is the route's plain-text 400, not a 414", async () => {
    const id = 'ab'.repeat(64);
    assertPlainText(
      await get(`/cryptarchia/blocks/${id}`),
      400,
      `Invalid URL: Cannot parse \`id\` with value \`${id}\`: expected 32 bytes, got 64`,
    );
    assertPlainText(await get(`/channel/${'0'.repeat(4000)}`), 400, /expected 32 bytes, got 2000$/);
  });

  test("a bad %-escape is the route's plain-text 400 (the escape kept as written), not FST_ERR_BAD_URL", async () => {
    for (const path of [
      '/cryptarchia/blocks/%zz',
      '/cryptarchia/blocks/%zz/events',
      '/cryptarchia/transaction/%',
    ]) {
      const r = await get(path);
      assertPlainText(r, 400, /^Invalid URL: Cannot parse `id` with value `%z?z?`: invalid hex string$/);
      assert.equal(r.headers['access-control-allow-origin'], '*');
    }
    assertPlainText(await get('/cryptarchia/blocks/%ff'), 400, 'Invalid URL: Invalid UTF-8 in `id`');
    assertPlainText(await get('/cryptarchia/headers?from=%zz'), 400, /^Invalid URL: Cannot parse `from`/);
  });

  test('an unknown path with a bad %-escape is an empty 404', async () => {
    assertEmpty(await get('/no/such/%zz'), 404);
    assertEmpty(await get('/cryptarchia/blocks/%zz/nothing'), 404);
  });
});

describe('requests the HTTP parser refuses', () => {
  test('an over-long header: an empty 431', async () => {
    const r = await get('/api-docs/openapi.json', `X-Long: ${'a'.repeat(20_000)}\r\n`);
    assertEmpty(r, 431);
    assert.equal(r.headers['content-type'], undefined);
  });

  test('a request line that is not HTTP: an empty 400', async () => {
    const r = await raw('NOT HTTP AT ALL\r\n\r\n');
    assertEmpty(r, 400);
    assert.equal(r.headers['content-type'], undefined);
  });

  test('the server still serves afterwards', async () => {
    const r = await get('/api-docs/openapi.json');
    assert.equal(r.status, 200);
  });
});
