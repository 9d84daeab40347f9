/**
 * The explorer's files (/explorer/), served by the API server: the page, its script and its styles
 * with their content types and the Content-Security-Policy, HEAD as GET without the body, /explorer
 * redirected to /explorer/, any other name under the prefix (traversals included) an empty 404; the
 * files need no credentials when the API asks for them, the API's own routes still do; and the
 * explorer stays out of the OpenAPI document. The page's JSON parsing keeps u64 values beyond 2^53 exact.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { hashToken } from '../../../src/api/auth.ts';
import { EXPLORER_CSP } from '../../../src/api/explorer.ts';
import { ApiServer } from '../../../src/api/server.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { apiContext } from '../../mocks/api-context.ts';

const TOKEN = 'explorer-test-token-0f3c5a7e9b1d2c4e6a8b';
const FILES = new URL('../../../explorer/', import.meta.url);

async function serve(withAuth: boolean) {
  const backend = {
    ...devnetConfig().api.backend,
    listen_address: '127.0.0.1:0',
    auth: withAuth
      ? { mode: 'all' as const, bearer_token_hashes: [hashToken(TOKEN)], basic_users: [] }
      : null,
  };
  const server = await ApiServer.init({ backend }, pino({ level: 'silent' }));
  const address = await server.serve(apiContext());
  return { server, base: `http://${address}`, port: Number(address.split(':').pop()) };
}

/** A GET of a raw path, sent as written (no URL normalisation, unlike fetch). */
function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

describe('the explorer files', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    s = await serve(false);
  });
  after(() => s.server.close());

  test('the page, its script and its styles, with their types and the CSP', async () => {
    const cases: [string, string, string][] = [
      ['/explorer/', 'index.html', 'text/html; charset=utf-8'],
      ['/explorer/index.html', 'index.html', 'text/html; charset=utf-8'],
      ['/explorer/explorer.js', 'explorer.js', 'text/javascript; charset=utf-8'],
      ['/explorer/explorer.css', 'explorer.css', 'text/css; charset=utf-8'],
    ];
    for (const [path, file, type] of cases) {
      const res = await fetch(`${s.base}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), type, path);
      assert.equal(res.headers.get('content-security-policy'), EXPLORER_CSP, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(await res.text(), readFileSync(new URL(file, FILES), 'utf8'), path);
    }
    assert.match(EXPLORER_CSP, /default-src 'self'/);
    assert.match(EXPLORER_CSP, /connect-src 'self'/);
  });

  test('the page loads nothing from elsewhere', () => {
    for (const file of ['index.html', 'explorer.js', 'explorer.css']) {
      const text = readFileSync(new URL(file, FILES), 'utf8');
      assert.doesNotMatch(text, /(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i, file);
      assert.doesNotMatch(text, /url\(\s*["']?(?:https?:)?\/\//i, file);
      assert.doesNotMatch(text, /(?:fetch|import)\(\s*["'`](?:https?:)?\/\//i, file);
    }
  });

  test('HEAD: the headers without the body', async () => {
    const res = await fetch(`${s.base}/explorer/`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('content-security-policy'), EXPLORER_CSP);
    assert.equal(await res.text(), '');
  });

  test('/explorer redirects to /explorer/', async () => {
    const res = await fetch(`${s.base}/explorer`, { redirect: 'manual' });
    assert.equal(res.status, 308);
    assert.equal(res.headers.get('location'), '/explorer/');
  });

  test('any other name under /explorer/ is an empty 404, traversals included', async () => {
    for (const path of [
      '/explorer/nope.js',
      '/explorer/Index.html',
      '/explorer/index.html.bak',
      '/explorer/..%2Fpackage.json',
      '/explorer/..%2F..%2Fpackage.json',
      '/explorer/%2e%2e%2fpackage.json',
      '/explorer/../package.json',
      '/explorer/./index.html/',
      '/explorer/index.html%00',
      '/explorer/index.html/x',
      '/explorer/hasOwnProperty',
      '/explorer/__proto__',
    ]) {
      const res = await rawGet(s.port, path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body, '', path);
    }
  });

  test('not in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${s.base}/api-docs/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    assert.ok(Object.keys(doc.paths).length > 0);
    assert.ok(Object.keys(doc.paths).every((p) => !p.startsWith('/explorer')));
  });
});

describe('the explorer files with authentication', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    s = await serve(true);
  });
  after(() => s.server.close());

  test('the files need no credentials; the API the page reads still does', async () => {
    for (const path of ['/explorer/', '/explorer/explorer.js', '/explorer/explorer.css']) {
      const res = await fetch(`${s.base}${path}`);
      await res.arrayBuffer();
      assert.equal(res.status, 200, path);
    }
    const refused = await fetch(`${s.base}/cryptarchia/info`);
    await refused.arrayBuffer();
    assert.equal(refused.status, 401);
    const allowed = await fetch(`${s.base}/cryptarchia/info`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    await allowed.arrayBuffer();
    assert.equal(allowed.status, 200);
  });
});

test("the page's JSON parsing keeps integers beyond 2^53 as their exact text", async () => {
  const { parseJson } = (await import(new URL('explorer.js', FILES).href)) as {
    parseJson: (text: string) => unknown;
  };
  const text =
    '{"max":18446744073709551615,"safe":9007199254740991,"list":[1,-9007199254740993,2.5e300],' +
    '"quoted":"x\\"18446744073709551615","nested":{"v":12345678901234567890}}';
  assert.deepEqual(parseJson(text), {
    max: '18446744073709551615',
    safe: 9007199254740991,
    list: [1, '-9007199254740993', 2.5e300],
    quoted: 'x"18446744073709551615',
    nested: { v: '12345678901234567890' },
  });
  assert.deepEqual(parseJson('[1,2,"3"]'), [1, 2, '3']);
});
