/**
 * Who may talk to the API (src/api/guard.ts): a `Host` the API does not answer for is refused with
 * 421 (DNS rebinding); a state-changing route (any method but GET/HEAD, or `mutates: true`) refuses a
 * browser `Origin` that `cors_origins` does not list, and so does its preflight; reads stay open to
 * any origin, as in the reference. Requests go through node:http, which lets a test set `Host`.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { ROUTES } from '../../../src/api/impl/index.ts';
import { object, string } from '../../../src/api/json-schema.ts';
import { ApiServer } from '../../../src/api/server.ts';
import type { ServerRoute } from '../../../src/api/types.ts';
import { ConfigError, parseUserConfig } from '../../../src/node/config.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { apiContext } from '../../mocks/api-context.ts';

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

function request(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A route the node does not have: a POST with no `mutates` (it must be derived from the method). */
const writeRoute: ServerRoute = {
  operationId: 'testWrite',
  def: { method: 'POST', path: '/test/write', tag: 'Test', summary: 'write', response: { json: object({}) } },
  handle: () => ({ body: '{}' }),
};
/** A GET that says it changes state. */
const mutatingGet: ServerRoute = {
  operationId: 'testMutatingGet',
  def: {
    method: 'GET',
    path: '/test/mutating-get',
    tag: 'Test',
    summary: 'mutating get',
    response: { json: object({ ok: string }) },
    mutates: true,
  },
  handle: () => ({ body: '{"ok":"yes"}' }),
};

const filters: Readonly<Record<string, string>>[] = [];
const ctx = apiContext({ setLogFilter: (f) => void filters.push(f) });

async function serve(backend: { cors_origins?: string[]; allowed_hosts?: string[] } = {}) {
  const cfg = devnetConfig().api.backend;
  const server = await ApiServer.init(
    { backend: { ...cfg, listen_address: '127.0.0.1:0', ...backend } },
    pino({ level: 'silent' }),
    [...ROUTES, writeRoute, mutatingGet],
  );
  const port = Number((await server.serve(ctx)).split(':').pop());
  return { server, port };
}

describe('Host', () => {
  let server: ApiServer;
  let port: number;
  before(async () => {
    ({ server, port } = await serve({ allowed_hosts: ['node.example.org', 'proxy.example.org:8443'] }));
  });
  after(() => server.close());

  test('the listen address, localhost, 127.0.0.1, [::1] on the port, and the configured names are served', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      'node.example.org',
      'node.example.org:443',
      'proxy.example.org:8443',
    ]) {
      const r = await request(port, 'GET', '/version', { host });
      assert.equal(r.status, 200, host);
    }
  });

  test('any other Host is a plain-text 421, on every path, before any work', async () => {
    for (const host of [
      `evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      `localhost:${port + 1}`,
      'localhost',
      'proxy.example.org:9443',
      'proxy.example.org',
    ]) {
      for (const [method, path] of [
        ['GET', '/version'],
        ['GET', '/no/such/path'],
        ['GET', '/cryptarchia/blocks/%zz'],
        ['GET', '/api-docs/openapi.json'],
        ['GET', '/swagger-ui/'],
        ['OPTIONS', '/version'],
      ] as const) {
        const r = await request(port, method, path, { host });
        assert.equal(r.status, 421, `${host} ${method} ${path}`);
        assert.match(r.headers['content-type'] ?? '', /^text\/plain/);
        assert.match(r.body, /Host/);
      }
    }
    const put = await request(
      port,
      'PUT',
      '/admin/tracing/filter',
      { host: `evil.example:${port}`, 'content-type': 'application/json' },
      '{"filters":{"*":"debug"}}',
    );
    assert.equal(put.status, 421);
    assert.equal(filters.length, 0, 'the filter was not changed');
  });
});

describe('Origin on state-changing routes', () => {
  const put = (port: number, headers: Record<string, string>) =>
    request(
      port,
      'PUT',
      '/admin/tracing/filter',
      { host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...headers },
      '{"filters":{"*":"debug"}}',
    );
  const preflight = (port: number, path: string, method: string, origin: string) =>
    request(port, 'OPTIONS', path, {
      host: `127.0.0.1:${port}`,
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type',
    });

  test("with no cors_origins: a foreign Origin is refused (403, nothing changed); no Origin or the API's own is served", async () => {
    const { server, port } = await serve();
    try {
      filters.length = 0;
      const evil = await put(port, { origin: 'http://evil.example' });
      assert.equal(evil.status, 403);
      assert.match(evil.headers['content-type'] ?? '', /^text\/plain/);
      assert.equal(evil.headers['access-control-allow-origin'], undefined, 'refused before any CORS header');
      const nul = await put(port, { origin: 'null' });
      assert.equal(nul.status, 403);
      assert.equal(filters.length, 0);

      assert.equal((await put(port, {})).status, 200);
      assert.equal((await put(port, { origin: `http://127.0.0.1:${port}` })).status, 200, 'same origin');
      assert.equal(filters.length, 2);
      assert.deepEqual(filters[0], { '*': 'debug' }, 'the handler got the decoded body');

      // New routes get it from their method; a GET marked `mutates` too.
      const post = await request(port, 'POST', '/test/write', {
        host: `127.0.0.1:${port}`,
        origin: 'http://evil.example',
      });
      assert.equal(post.status, 403);
      // Refused before the body is read: a malformed body changes nothing either.
      const early = await request(
        port,
        'PUT',
        '/admin/tracing/filter',
        { host: `127.0.0.1:${port}`, origin: 'http://evil.example', 'content-type': 'application/json' },
        '{"filters":',
      );
      assert.equal(early.status, 403);
      const get = await request(port, 'GET', '/test/mutating-get', {
        host: `127.0.0.1:${port}`,
        origin: 'http://evil.example',
      });
      assert.equal(get.status, 403);

      // Reads: any origin, as the reference.
      const read = await request(port, 'GET', '/version', {
        host: `127.0.0.1:${port}`,
        origin: 'http://evil.example',
      });
      assert.equal(read.status, 200);
      assert.equal(read.headers['access-control-allow-origin'], '*');
    } finally {
      await server.close();
    }
  });

  test('preflights: refused for a state-changing route and a foreign origin; as the reference elsewhere', async () => {
    const { server, port } = await serve();
    try {
      for (const [path, method] of [
        ['/admin/tracing/filter', 'PUT'],
        ['/test/write', 'POST'],
        ['/wallet/transactions/transfer-funds', 'POST'],
      ] as const) {
        const r = await preflight(port, path, method, 'http://evil.example');
        assert.equal(r.status, 403, path);
        assert.equal(r.headers['access-control-allow-origin'], undefined, path);
        assert.equal(r.headers['access-control-allow-methods'], undefined, path);
      }
      // A read, and a path no route serves: 200 with `*`.
      for (const [path, method] of [
        ['/cryptarchia/info', 'GET'],
        ['/no/such/route', 'POST'],
      ] as const) {
        const r = await preflight(port, path, method, 'http://evil.example');
        assert.equal(r.status, 200, path);
        assert.equal(r.headers['access-control-allow-origin'], '*', path);
        assert.equal(r.headers['access-control-allow-methods'], '*', path);
        assert.equal(r.headers['access-control-allow-headers'], 'content-type,user-agent', path);
      }
    } finally {
      await server.close();
    }
  });

  test('an origin listed in cors_origins may call them, preflight included; others may not', async () => {
    const { server, port } = await serve({ cors_origins: ['http://ui.example'] });
    try {
      filters.length = 0;
      const ok = await put(port, { origin: 'http://ui.example' });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['access-control-allow-origin'], 'http://ui.example');
      const pre = await preflight(port, '/admin/tracing/filter', 'PUT', 'http://ui.example');
      assert.equal(pre.status, 200);
      assert.equal(pre.headers['access-control-allow-origin'], 'http://ui.example');
      assert.equal((await put(port, { origin: 'http://evil.example' })).status, 403);
      assert.equal(filters.length, 1);
    } finally {
      await server.close();
    }
  });
});

describe('api.backend.allowed_hosts in user_config.yaml', () => {
  test('a list of names or name:port (IPv6 in brackets); anything else names the key', () => {
    const c = parseUserConfig(
      "api: { backend: { allowed_hosts: ['node.example.org', 'proxy.example.org:8443', '[fd00::1]:8080'] } }",
    );
    assert.deepEqual(c.api.backend.allowed_hosts, [
      'node.example.org',
      'proxy.example.org:8443',
      '[fd00::1]:8080',
    ]);
    assert.deepEqual(parseUserConfig('').api.backend.allowed_hosts, []);
    for (const bad of [
      "'node.example.org'",
      "['http://node.example.org']",
      "['a b']",
      '[1]',
      "['fd00::1']",
    ]) {
      assert.throws(
        () => parseUserConfig(`api: { backend: { allowed_hosts: ${bad} } }`),
        (e: unknown) => e instanceof ConfigError && /^api\.backend\.allowed_hosts: /.test(e.message),
        bad,
      );
    }
  });
});
