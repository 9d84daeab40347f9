/**
 * The API's optional authentication (src/api/auth.ts): the `api.backend.auth` section, the hashes of
 * tokens and passwords, the check of an Authorization header, loopback addresses.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ApiAuth,
  hashPassword,
  hashToken,
  isLoopbackHost,
  newToken,
  parseAuth,
} from '../../../src/api/auth.ts';
import { parseApiSection } from '../../../src/api/config.ts';

const TOKEN = 'a-long-random-token-for-tests-0123456789';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('api.backend.auth', () => {
  test('absent: none; a section: its mode (all by default), token hashes and users', async () => {
    assert.equal(parseAuth(undefined), null);
    assert.equal(parseApiSection({ backend: {} }).backend.auth, null);
    const hash = await hashPassword('correct horse');
    const a = parseAuth({
      bearer_token_hashes: [hashToken(TOKEN)],
      basic_users: [{ name: 'ops', password_hash: hash }],
    });
    assert.deepEqual(a, {
      mode: 'all',
      bearer_token_hashes: [hashToken(TOKEN)],
      basic_users: [{ name: 'ops', password_hash: hash }],
    });
    assert.equal(parseAuth({ mode: 'writes', bearer_token_hashes: [hashToken(TOKEN)] })?.mode, 'writes');
  });

  test('bad sections are refused with the key named; no secret is echoed', () => {
    const cases: [unknown, RegExp][] = [
      [{}, /api\.backend\.auth: no credentials/],
      [{ mode: 'some', bearer_token_hashes: [hashToken(TOKEN)] }, /auth\.mode: expected one of all, writes/],
      [{ bearer_token_hashes: [TOKEN] }, /bearer_token_hashes\[0\]: expected sha256:/],
      [{ bearer_token_hashes: 'sha256:00' }, /bearer_token_hashes: expected a list/],
      [{ basic_users: [{ name: 'a:b', password_hash: 'x' }] }, /basic_users\[0\]\.name/],
      [
        { basic_users: [{ name: 'ops', password_hash: 'hunter2' }] },
        /basic_users\[0\]\.password_hash: expected scrypt/,
      ],
      [{ basic_users: [{ name: 'ops', password: 'hunter2' }] }, /basic_users\[0\]/],
      [{ tokens: [] }, /tokens/],
    ];
    for (const [raw, re] of cases) {
      assert.throws(
        () => parseAuth(raw),
        (e: Error) => {
          assert.match(e.message, re);
          assert.ok(!e.message.includes('hunter2') && !e.message.includes(TOKEN), 'no secret in the message');
          return true;
        },
      );
    }
  });

  test('a token is its SHA-256; new tokens are 256-bit and differ', () => {
    assert.equal(hashToken('abc'), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const t = newToken();
    assert.equal(Buffer.from(t, 'base64url').length, 32);
    assert.notEqual(t, newToken());
  });
});

describe('ApiAuth', () => {
  test('a bearer token or a user and password pass; anything else does not', async () => {
    const auth = new ApiAuth({
      mode: 'all',
      bearer_token_hashes: [hashToken(TOKEN)],
      basic_users: [{ name: 'ops', password_hash: await hashPassword('correct horse') }],
    });
    assert.equal(await auth.check(`Bearer ${TOKEN}`), true);
    assert.equal(await auth.check(`bearer ${TOKEN}`), true, 'the scheme is case-insensitive');
    assert.equal(await auth.check(basic('ops', 'correct horse')), true);
    for (const bad of [
      undefined,
      '',
      'Bearer',
      `Bearer ${TOKEN}x`,
      `Token ${TOKEN}`,
      basic('ops', 'wrong'),
      basic('other', 'correct horse'),
      'Basic !!!',
      `Bearer ${'x'.repeat(5000)}`,
    ])
      assert.equal(await auth.check(bad), false, String(bad).slice(0, 40));
    assert.equal(auth.challenge(), 'Bearer realm="logos-node", Basic realm="logos-node", charset="UTF-8"');
  });

  test('all: every request needs credentials; writes: the state-changing ones', () => {
    const cfg = { bearer_token_hashes: [hashToken(TOKEN)], basic_users: [] };
    assert.deepEqual(
      [true, false].map((m) => new ApiAuth({ ...cfg, mode: 'all' }).required(m)),
      [true, true],
    );
    assert.deepEqual(
      [true, false].map((m) => new ApiAuth({ ...cfg, mode: 'writes' }).required(m)),
      [true, false],
    );
    assert.equal(new ApiAuth({ ...cfg, mode: 'all' }).challenge(), 'Bearer realm="logos-node"');
  });

  test('a verdict on one header is kept a minute: a password is hashed once, not per request', async () => {
    let now = 0;
    const auth = new ApiAuth(
      {
        mode: 'all',
        bearer_token_hashes: [],
        basic_users: [{ name: 'ops', password_hash: await hashPassword('pw-12345678') }],
      },
      () => now,
    );
    const h = basic('ops', 'pw-12345678');
    for (let i = 0; i < 20; i++) assert.equal(await auth.check(h), true);
    assert.equal(auth.fullChecks, 1, 'one hash for twenty requests');
    assert.equal(await auth.check(basic('ops', 'wrong-pass')), false);
    assert.equal(await auth.check(basic('ops', 'wrong-pass')), false);
    assert.equal(auth.fullChecks, 2, 'a refusal is remembered too');
    now += 61_000;
    assert.equal(await auth.check(h), true);
    assert.equal(auth.fullChecks, 3, 'checked again after a minute');
  });
});

test('loopback hosts', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
    assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['0.0.0.0', '::', '192.168.1.2', 'node.example.org', '128.0.0.1'])
    assert.equal(isLoopbackHost(h), false, h);
});
