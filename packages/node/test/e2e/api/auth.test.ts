/**
 * The API with authentication (`api.backend.auth`), served over HTTP: in `all` mode a request without
 * credentials, or with wrong ones, is a 401 with its challenge, and one with a bearer token or a user
 * and password goes through, from fetch, curl and the typed client; the OpenAPI document and the
 * Swagger UI stay open and declare the schemes (the UI's "Authorize"); in `writes` mode reads are open
 * and state-changing routes are not; a CORS preflight needs none. An address other machines can reach
 * is refused without authentication unless the operator insists (`--insecure-api-binding`).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { createClient } from '../../../client/index.ts';
import { type ApiAuthConfig, hashPassword, hashToken } from '../../../src/api/auth.ts';
import { ApiServer } from '../../../src/api/server.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { apiContext } from '../../mocks/api-context.ts';

const TOKEN = 'test-token-4b1d2c9e7f0a33a1c0ffee00d15ea5e5';
const PASSWORD = 'correct horse battery';

async function serve(auth: ApiAuthConfig | null, listen = '127.0.0.1:0', insecureBinding = false) {
  const backend = { ...devnetConfig().api.backend, listen_address: listen, auth };
  const lines: { msg: string; level: number }[] = [];
  const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const server = await ApiServer.init({ backend, ...(insecureBinding ? { insecureBinding } : {}) }, logger);
  const address = await server.serve(apiContext());
  const port = Number(address.split(':').pop());
  return { server, base: `http://127.0.0.1:${port}`, lines };
}

/** The status of a response, its body read (an unread body keeps its connection busy). */
async function statusOf(p: Promise<Response>): Promise<number> {
  const r = await p;
  await r.arrayBuffer();
  return r.status;
}

/** The parts of the OpenAPI document these tests read. */
interface OpenApiDoc {
  components: { securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, { security?: unknown }>>;
}
const opOf = (doc: OpenApiDoc, path: string, method: string) => doc.paths[path]?.[method]?.security;

const basicHeader = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;

describe('mode all', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    s = await serve({
      mode: 'all',
      bearer_token_hashes: [hashToken(TOKEN)],
      basic_users: [{ name: 'ops', password_hash: await hashPassword(PASSWORD) }],
    });
  });
  after(() => s.server.close());

  test('no credentials or wrong ones: 401 with the challenge, JSON {code, message}, nothing secret', async () => {
    for (const authorization of [
      undefined,
      'Bearer nope',
      basicHeader('ops', 'nope'),
      basicHeader('x', PASSWORD),
    ]) {
      const r = await fetch(`${s.base}/mantle/metrics`, {
        headers: authorization ? { authorization } : {},
      });
      assert.equal(r.status, 401, String(authorization));
      assert.equal(
        r.headers.get('www-authenticate'),
        'Bearer realm="logos-node", Basic realm="logos-node", charset="UTF-8"',
      );
      const body = (await r.json()) as { code: number; message: string };
      assert.deepEqual(Object.keys(body), ['code', 'message']);
      assert.equal(body.code, 401);
    }
    const unknown = await fetch(`${s.base}/no/such/path`);
    assert.equal(unknown.status, 401, 'unknown paths too: nothing is told without credentials');
    await unknown.text();
    assert.ok(!JSON.stringify(s.lines).includes(TOKEN) && !JSON.stringify(s.lines).includes('nope'));
  });

  test('a bearer token or a user and password: answered', async () => {
    for (const authorization of [`Bearer ${TOKEN}`, basicHeader('ops', PASSWORD)]) {
      const r = await fetch(`${s.base}/mantle/metrics`, { headers: { authorization } });
      assert.equal(r.status, 200);
      assert.deepEqual(await r.json(), { pending_items: 0, last_item_timestamp: 0 });
    }
  });

  test('curl: --oauth2-bearer and --user work, nothing without', async () => {
    // curl runs beside this process's server (a synchronous call would stop the server answering).
    const curl = async (...args: string[]) =>
      (
        await promisify(execFile)('curl', [
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          ...args,
          `${s.base}/mantle/metrics`,
        ])
      ).stdout;
    assert.equal(await curl(), '401');
    assert.equal(await curl('--oauth2-bearer', TOKEN), '200');
    assert.equal(await curl('--user', `ops:${PASSWORD}`), '200');
    assert.equal(await curl('--user', 'ops:wrong'), '401');
  });

  test('the typed client sends its credentials', async () => {
    assert.deepEqual(await createClient({ baseUrl: s.base, auth: { bearer: TOKEN } }).mantleMetrics(), {
      pending_items: 0,
      last_item_timestamp: 0n,
    });
    assert.equal(
      (await createClient({ baseUrl: s.base, auth: { username: 'ops', password: PASSWORD } }).mantleMetrics())
        .pending_items,
      0,
    );
    await assert.rejects(createClient({ baseUrl: s.base }).mantleMetrics(), { status: 401 });
  });

  test('the OpenAPI document and the Swagger UI are open, and declare the schemes for "Authorize"', async () => {
    const doc = (await (await fetch(`${s.base}/api-docs/openapi.json`)).json()) as OpenApiDoc;
    assert.deepEqual(doc.components.securitySchemes, {
      bearerAuth: { type: 'http', scheme: 'bearer' },
      basicAuth: { type: 'http', scheme: 'basic' },
    });
    assert.deepEqual(opOf(doc, '/mantle/metrics', 'get'), [{ bearerAuth: [] }, { basicAuth: [] }]);
    const ui = await fetch(`${s.base}/swagger-ui/`);
    assert.equal(ui.status, 200);
    assert.match(await ui.text(), /swagger/i);
  });

  test('a CORS preflight needs no credentials, and allows the Authorization header', async () => {
    const r = await fetch(`${s.base}/mantle/metrics`, {
      method: 'OPTIONS',
      headers: { origin: 'http://example.org', 'access-control-request-method': 'GET' },
    });
    await r.arrayBuffer();
    assert.equal(r.status, 200);
    assert.match(r.headers.get('access-control-allow-headers') ?? '', /authorization/);
  });
});

describe('mode writes', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    s = await serve({ mode: 'writes', bearer_token_hashes: [hashToken(TOKEN)], basic_users: [] });
  });
  after(() => s.server.close());

  test('reads are open; a state-changing route needs credentials before its body is read', async () => {
    assert.equal(await statusOf(fetch(`${s.base}/mantle/metrics`)), 200);
    const post = (headers: Record<string, string>) =>
      fetch(`${s.base}/mempool/add/tx`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    const refused = await post({});
    await refused.arrayBuffer();
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="logos-node"');
    const through = await post({ authorization: `Bearer ${TOKEN}` });
    await through.arrayBuffer();
    assert.equal(through.status, 422, 'past authentication, the body is judged');
    const doc = (await (await fetch(`${s.base}/api-docs/openapi.json`)).json()) as OpenApiDoc;
    assert.equal(opOf(doc, '/mantle/metrics', 'get'), undefined);
    assert.deepEqual(opOf(doc, '/mempool/add/tx', 'post'), [{ bearerAuth: [] }]);
  });
});

describe('binding', () => {
  test('an address other machines can reach, without authentication: refused, naming the way out', async () => {
    await assert.rejects(serve(null, '0.0.0.0:0'), (e: Error) => {
      assert.match(
        e.message,
        /api\.backend\.listen_address: 0\.0\.0\.0:0 can be reached from other machines/,
      );
      assert.match(e.message, /api\.backend\.auth.*--insecure-api-binding/);
      return true;
    });
  });

  test('with --insecure-api-binding it serves, and says so at start; with authentication it serves', async () => {
    const s = await serve(null, '0.0.0.0:0', true);
    try {
      const warn = s.lines.find((l) => l.level === 40 && /WITHOUT authentication/.test(l.msg));
      assert.ok(warn, 'a warning at start');
      assert.equal(await statusOf(fetch(`${s.base}/mantle/metrics`)), 200);
    } finally {
      await s.server.close();
    }
    const a = await serve(
      { mode: 'all', bearer_token_hashes: [hashToken(TOKEN)], basic_users: [] },
      '0.0.0.0:0',
    );
    try {
      assert.ok(a.lines.some((l) => l.msg === 'HTTP API listening, with authentication'));
      assert.equal(await statusOf(fetch(`${a.base}/mantle/metrics`)), 401);
    } finally {
      await a.server.close();
    }
  });
});
