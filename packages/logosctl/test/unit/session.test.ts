/** The session folder's choice and the local token (operator.md §1.2). */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { Session, sessionDir } from '../../src/session.ts';
import { sha256Hex, tokenMatches } from '../../src/token-hash.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctl-session-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('--config-dir, then LOGOSCTL_CONFIG_DIR, then ~/.logosctl (an empty value counts as unset)', () => {
  assert.equal(sessionDir('/a', { LOGOSCTL_CONFIG_DIR: '/b' }), '/a');
  assert.equal(sessionDir(undefined, { LOGOSCTL_CONFIG_DIR: '/b' }), '/b');
  assert.equal(sessionDir(undefined, { LOGOSCTL_CONFIG_DIR: 'rel' }), resolve('rel'));
  assert.equal(sessionDir(undefined, {}), join(homedir(), '.logosctl'));
  assert.equal(sessionDir(undefined, { LOGOSCTL_CONFIG_DIR: '' }), join(homedir(), '.logosctl'));
});

test('the auto token: raw for the client, only its hash for the daemon, both mode 600', () => {
  const s = new Session(join(dir, 's'));
  s.ensureLayout();
  const hash = s.issueAutoToken();
  const token = s.readAutoToken();
  assert.ok(token !== undefined && /^[0-9a-f]{64}$/.test(token));
  assert.equal(hash, sha256Hex(token));
  assert.ok(tokenMatches(token, hash));
  assert.ok(!tokenMatches(`${token}0`, hash));
  const stored = readFileSync(s.tokensPath, 'utf8');
  assert.ok(stored.includes(hash) && !stored.includes(token), 'tokens.json holds the hash only');
  for (const f of [s.autoTokenPath, s.tokensPath]) assert.equal(statSync(f).mode & 0o777, 0o600);
  assert.notEqual(s.issueAutoToken(), hash, 'a new boot issues a new token');
});
