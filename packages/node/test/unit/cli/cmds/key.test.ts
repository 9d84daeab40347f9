/**
 * `logos-node key list|generate|add|remove`: the keystore and the config's key store stay in step,
 * bad input is refused without changing either file, and no secret key is ever printed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { parse } from 'yaml';
import { parseUserConfig } from '../../../../src/node/config.ts';
import { runCli } from './run-cli.ts';

let dir: string;
let cfg: string;
let ks: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-cli-key-'));
  cfg = join(dir, 'user_config.yaml');
  ks = join(dir, 'keystore.yaml');
  await runCli(['config', 'generate', '-c', cfg]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const keystore = () =>
  parse(readFileSync(ks, 'utf8'), { logLevel: 'silent' }) as {
    public_keys: Record<string, string>;
    secret_keys: Record<string, unknown>;
  };
const configKeys = () => Object.keys(parseUserConfig(readFileSync(cfg, 'utf8')).kms.backend.keys);
/** Every secret of the keystore, as hex. */
const secrets = () =>
  [...readFileSync(ks, 'utf8').matchAll(/!(?:Zk|Ed25519) '?([0-9a-f]{64})/g)].map((m) => m[1]!);

test('key list shows titles, kinds and ids, never a secret; a missing keystore is refused', async () => {
  const out = await runCli(['key', 'list', '-c', cfg]);
  assert.match(out[0]!, /^TITLE\s+KIND\s+ID$/);
  const rows = out.slice(1).map((l) => l.split(/\s+/));
  assert.deepEqual(Object.fromEntries(rows.map(([t, , id]) => [t, id])), keystore().public_keys);
  assert.deepEqual(rows.find(([t]) => t === 'NetworkSwarm')?.[1], 'Ed25519');
  const s = secrets();
  assert.equal(s.length, 7);
  for (const secret of s) assert.ok(!out.join('\n').includes(secret));
  await assert.rejects(
    runCli(['key', 'list', '-c', cfg, '--keystore', join(dir, 'none.yaml')]),
    /cannot read the keystore .*none\.yaml: ENOENT/,
  );
});

test('key generate adds a fresh key to both files; a bad title or type is refused', async () => {
  const [line] = await runCli(['key', 'generate', '-c', cfg, '--type', 'zk', '--title', 'Extra']);
  const id = /^added Extra: ([0-9a-f]{64})$/.exec(line!)?.[1];
  assert.ok(id);
  assert.equal(keystore().public_keys.Extra, id);
  assert.ok(configKeys().includes(id));
  const before = [readFileSync(cfg, 'utf8'), readFileSync(ks, 'utf8')];
  await assert.rejects(
    runCli(['key', 'generate', '-c', cfg, '--type', 'zk', '--title', 'Extra']),
    /A key titled Extra exists in the keystore\./,
  );
  await assert.rejects(
    runCli(['key', 'generate', '-c', cfg, '--type', 'zk', '--title', 'a b']),
    /Invalid title/,
  );
  await assert.rejects(
    runCli(['key', 'generate', '-c', cfg, '--type', 'rsa', '--title', 'X']),
    /argument 'rsa' is invalid\. Allowed choices are zk, ed25519/,
  );
  assert.deepEqual([readFileSync(cfg, 'utf8'), readFileSync(ks, 'utf8')], before);
});

test('key add takes the secret from a file and prints only the id; bad hex is refused', async () => {
  const secret = '11'.repeat(32);
  const file = join(dir, 'secret.hex');
  writeFileSync(file, `${secret}\n`);
  const out = await runCli([
    'key',
    'add',
    '-c',
    cfg,
    '--type',
    'ed25519',
    '--title',
    'Mine',
    '--secret-file',
    file,
  ]);
  assert.equal(out.length, 1);
  assert.ok(!out[0]!.includes(secret));
  const id = keystore().public_keys.Mine;
  assert.deepEqual(out, [`added Mine: ${id}`]);
  assert.ok(configKeys().includes(id!));
  writeFileSync(file, 'zz');
  await assert.rejects(
    runCli(['key', 'add', '-c', cfg, '--type', 'zk', '--title', 'Bad', '--secret-file', file]),
    /Invalid key_hex \(64 hex characters required\)\./,
  );
  await assert.rejects(
    runCli(['key', 'add', '-c', cfg, '--type', 'zk', '--title', 'Bad', '--secret-file', join(dir, 'no')]),
    /cannot read the key file .*no: ENOENT/,
  );
  assert.equal(keystore().public_keys.Bad, undefined);
});

test('key remove takes the key out of both files; an unknown title is refused', async () => {
  const id = keystore().public_keys.Stake!;
  assert.deepEqual(await runCli(['key', 'remove', '-c', cfg, '--title', 'Stake']), ['removed Stake']);
  assert.equal(keystore().public_keys.Stake, undefined);
  assert.equal(keystore().secret_keys.Stake, undefined);
  assert.ok(!configKeys().includes(id));
  await assert.rejects(
    runCli(['key', 'remove', '-c', cfg, '--title', 'Stake']),
    /No key titled Stake in the keystore\./,
  );
});
