/**
 * Issued tokens and the start lock (operator.md §1.2, §1.3): `--expires` forms, a token accepted until it is
 * revoked or expires, names that could leave `daemon/tokens/` refused, files mode 600, the `auto` token
 * replaced at boot without dropping issued ones; one holder of `daemon.lock`, a dead holder's lock taken over.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AlreadyRunning } from '../../src/errors.ts';
import { DaemonLock } from '../../src/lock.ts';
import { resolveExpires, TokenError, TokenStore } from '../../src/tokens.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctl-tokens-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('--expires: relative, date, timestamp; garbage refused', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(resolveExpires('90s', now), '2026-01-01T00:01:30Z');
  assert.equal(resolveExpires('2d', now), '2026-01-03T00:00:00Z');
  assert.equal(resolveExpires('2026-12-31'), '2026-12-31T00:00:00Z');
  assert.equal(resolveExpires('2026-12-31T23:59:59Z'), '2026-12-31T23:59:59Z');
  assert.equal(resolveExpires(''), '');
  for (const bad of ['1w', 'tomorrow', '2026-13-45', '-1d'])
    assert.equal(resolveExpires(bad), undefined, bad);
});

test('issue, accept, revoke, expire; unsafe names refused; auto replaced, issued kept', () => {
  const d = join(dir, 'daemon');
  mkdirSync(d, { recursive: true });
  const store = new TokenStore(d);
  const auto1 = store.issueAuto();
  const { token } = store.issue('ops', '', false, false);
  assert.equal(store.accepts(token), 'ops');
  assert.equal(store.accepts(auto1), 'auto');
  assert.equal(statSync(store.tokensPath).mode & 0o777, 0o600);
  assert.equal(statSync(store.rawPath('ops')).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(store.rawPath('ops'), 'utf8')).token, token);
  assert.ok(!readFileSync(store.tokensPath, 'utf8').includes(token));
  assert.throws(() => store.issue('ops', '', false, false), /already exists/);
  const auto2 = store.issueAuto();
  assert.equal(store.accepts(auto1), undefined, 'the previous boot token is gone');
  assert.equal(store.accepts(auto2), 'auto');
  assert.equal(store.accepts(token), 'ops', 'issued tokens survive a boot');
  store.revoke('ops');
  assert.equal(store.accepts(token), undefined);
  const late = store.issue('late', '1s', true, false);
  assert.equal(store.accepts(late.token, Date.now() + 5_000), undefined, 'expired');
  for (const bad of ['../x', '.hidden', 'a/b', 'auto', '', 'x'.repeat(65)])
    assert.throws(() => store.issue(bad, '', false, false), /Invalid token name/, bad);
  assert.throws(() => store.revoke('nobody'), /No token named/);
});

test('the start lock: one holder; a live holder refuses; a dead holder is taken over; release removes it', () => {
  const d = join(dir, 'lock');
  mkdirSync(d);
  const a = DaemonLock.acquire(d, dir);
  writeFileSync(join(d, 'daemon.lock'), `${process.ppid}\n`);
  assert.throws(
    () => DaemonLock.acquire(d, dir),
    (e) => e instanceof AlreadyRunning && /already running/.test(e.message),
  );
  writeFileSync(join(d, 'daemon.lock'), '2147483646\n');
  const b = DaemonLock.acquire(d, dir);
  assert.equal(readFileSync(join(d, 'daemon.lock'), 'utf8'), `${process.pid}\n`);
  b.release();
  a.release();
  assert.throws(() => statSync(join(d, 'daemon.lock')), /ENOENT/);
});

test('the start lock: a fresh lock without a pid (a start still writing it) is held; an old one is taken over', () => {
  const d = join(dir, 'lock-empty');
  mkdirSync(d);
  const path = join(d, 'daemon.lock');
  writeFileSync(path, '');
  assert.throws(
    () => DaemonLock.acquire(d, dir),
    (e) => e instanceof AlreadyRunning && /holds/.test(e.message),
  );
  assert.equal(readFileSync(path, 'utf8'), '', 'the other start keeps its lock');
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  const l = DaemonLock.acquire(d, dir);
  assert.equal(readFileSync(path, 'utf8'), `${process.pid}\n`);
  assert.deepEqual(readdirSync(d), ['daemon.lock'], 'no temporary file left');
  l.release();
});

test('a corrupt tokens.json is an error, never rewritten as empty; __proto__ refused; edits take a lock', () => {
  const d = join(dir, 'daemon-corrupt');
  mkdirSync(d, { recursive: true });
  const store = new TokenStore(d, 100);
  const { token } = store.issue('ops', '', false, false);
  const good = readFileSync(store.tokensPath, 'utf8');
  writeFileSync(store.tokensPath, '{"ops": {"sha256": "ab');
  assert.throws(
    () => store.issueAuto(),
    (e) => e instanceof TokenError && e.code === 'TOKENS_CORRUPT',
  );
  assert.throws(() => store.issue('b', '', false, false), /not a JSON object/);
  assert.throws(() => store.revoke('ops'), /not a JSON object/);
  assert.equal(store.accepts(token), undefined);
  assert.equal(readFileSync(store.tokensPath, 'utf8'), '{"ops": {"sha256": "ab', 'left as it was');
  writeFileSync(store.tokensPath, good);
  assert.equal(store.accepts(token), 'ops');

  assert.throws(() => store.issue('__proto__', '', false, false), /Invalid token name/);
  assert.equal(existsSync(store.rawPath('__proto__')), false);
  const { token: c } = store.issue('constructor', '', false, false);
  assert.equal(store.accepts(c), 'constructor');

  // another edit holds the lock: this one waits, then gives up without writing; an abandoned lock is taken
  const lock = `${store.tokensPath}.lock`;
  writeFileSync(lock, '');
  const before = readFileSync(store.tokensPath, 'utf8');
  assert.throws(
    () => store.revoke('ops'),
    (e) => e instanceof TokenError && e.code === 'TOKENS_BUSY',
  );
  assert.equal(readFileSync(store.tokensPath, 'utf8'), before);
  const old = new Date(Date.now() - 60_000);
  utimesSync(lock, old, old);
  store.revoke('ops');
  assert.equal(existsSync(lock), false);
  assert.equal(store.accepts(token), undefined);
});
