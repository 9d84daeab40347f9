/**
 * `logos-node keys list|generate|add|remove` (and its old name `key`): the keystore, the config's key
 * store and (ZK keys) `wallet.known_keys` stay in step; both files are rewritten private (mode 600)
 * by a rename, leaving no temporary file; bad input and a config the node would refuse change
 * neither file; no secret key is ever printed; a key file other users may read (keystore, config,
 * secret file) is refused with the fix, by the commands and by `start`; and a running node is asked
 * to reload (answers, refusal, nobody listening).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { PrivateFileError } from '@logos-ts/shared/private-file';
import { parse } from 'yaml';
import { parseUserConfig } from '../../../../src/node/config.ts';
import { runCli } from './run-cli.ts';

let dir: string;
let cfg: string;
let ks: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logos-cli-keys-'));
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
const config = () => parseUserConfig(readFileSync(cfg, 'utf8'));
const configKeys = () => Object.keys(config().kms.backend.keys);
const knownKeys = () => config().wallet.known_keys;
/** Every secret of the keystore, as hex. */
const secrets = () =>
  [...readFileSync(ks, 'utf8').matchAll(/!(?:Zk|Ed25519) '?([0-9a-f]{64})/g)].map((m) => m[1]!);
const mode = (p: string) => statSync(p).mode & 0o777;
const files = () => [readFileSync(cfg, 'utf8'), readFileSync(ks, 'utf8')];
const notSecret = (out: string[]) => {
  for (const s of secrets()) assert.ok(!out.join('\n').includes(s), 'a secret key was printed');
};
const notPrivate = (path: string, m: string) =>
  new RegExp(
    `^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is readable by other users \\(mode ${m}\\); chmod 600 it$`,
  );

test('keys list shows titles, kinds and ids, never a secret; `key` still names it; a missing keystore is refused', async () => {
  const out = await runCli(['keys', 'list', '-c', cfg]);
  assert.match(out[0]!, /^TITLE\s+KIND\s+ID$/);
  const rows = out.slice(1).map((l) => l.split(/\s+/));
  assert.deepEqual(Object.fromEntries(rows.map(([t, , id]) => [t, id])), keystore().public_keys);
  assert.deepEqual(rows.find(([t]) => t === 'NetworkSwarm')?.[1], 'Ed25519');
  assert.equal(secrets().length, 7);
  notSecret(out);
  assert.deepEqual(await runCli(['key', 'list', '-c', cfg]), out);
  await assert.rejects(
    runCli(['keys', 'list', '-c', cfg, '--keystore', join(dir, 'none.yaml')]),
    /cannot read the keystore .*none\.yaml: ENOENT/,
  );
});

test('keys generate: a ZK key in the keystore, the key store and known_keys, an Ed25519 one not tracked; files private, renamed, no temporary left', async () => {
  const inodes = [statSync(cfg).ino, statSync(ks).ino];
  const out = await runCli([
    'keys',
    'generate',
    '-c',
    cfg,
    '--type',
    'zk',
    '--title',
    'Extra',
    '--no-reload',
  ]);
  const id = /^added Extra: ([0-9a-f]{64})$/.exec(out[0]!)?.[1];
  assert.ok(id);
  assert.equal(out[1], 'not asking a running node to reload: the change applies when the node starts');
  notSecret(out);
  assert.equal(keystore().public_keys.Extra, id);
  assert.ok(configKeys().includes(id));
  assert.equal(knownKeys()[id], id);
  assert.deepEqual([mode(cfg), mode(ks)], [0o600, 0o600]);
  // Replaced by a rename (new files), never rewritten in place; no temporary file left beside them.
  assert.notDeepEqual([statSync(cfg).ino, statSync(ks).ino], inodes);
  assert.deepEqual(readdirSync(dir).sort(), ['keystore.yaml', 'user_config.yaml']);

  const [line] = await runCli([
    'key',
    'generate',
    '-c',
    cfg,
    '--type',
    'ed25519',
    '--title',
    'Sig',
    '--no-reload',
  ]);
  const edId = /^added Sig: ([0-9a-f]{64})$/.exec(line ?? '')?.[1] ?? '';
  assert.notEqual(edId, '');
  assert.ok(configKeys().includes(edId));
  assert.equal(knownKeys()[edId], undefined);

  const before = files();
  await assert.rejects(
    runCli(['keys', 'generate', '-c', cfg, '--type', 'zk', '--title', 'Extra', '--no-reload']),
    /A key titled Extra exists in the keystore\./,
  );
  await assert.rejects(
    runCli(['keys', 'generate', '-c', cfg, '--type', 'zk', '--title', 'a b', '--no-reload']),
    /Invalid title/,
  );
  await assert.rejects(
    runCli(['keys', 'generate', '-c', cfg, '--type', 'rsa', '--title', 'X', '--no-reload']),
    /argument 'rsa' is invalid\. Allowed choices are zk, ed25519/,
  );
  assert.deepEqual(files(), before);
});

test('keys remove refuses to write a config the node would refuse (an untracked PoW target): neither file changes', async () => {
  const stake = keystore().public_keys.Stake!;
  writeFileSync(
    cfg,
    `${readFileSync(cfg, 'utf8')}pow: { auto_claim: { targets: [{ public_key: '${stake}', threshold: 1 }] } }\n`,
  );
  const before = files();
  await assert.rejects(
    runCli(['keys', 'remove', '-c', cfg, '--title', 'Stake', '--no-reload']),
    /PoW auto-claim targets are not tracked by the wallet/,
  );
  assert.deepEqual(files(), before);
});

test('keys add takes the secret from a private file and prints only the id; bad hex and a readable secret file are refused', async () => {
  const secret = '11'.repeat(32);
  const file = join(dir, 'secret.hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  const out = await runCli([
    'keys',
    'add',
    '-c',
    cfg,
    '--type',
    'zk',
    '--title',
    'Mine',
    '--secret-file',
    file,
    '--no-reload',
  ]);
  assert.ok(!out.join('\n').includes(secret));
  notSecret(out);
  const id = keystore().public_keys.Mine!;
  assert.equal(out[0], `added Mine: ${id}`);
  assert.ok(configKeys().includes(id));
  assert.equal(knownKeys()[id], id);
  assert.deepEqual([mode(cfg), mode(ks)], [0o600, 0o600]);

  const before = files();
  chmodSync(file, 0o644);
  await assert.rejects(
    runCli([
      'keys',
      'add',
      '-c',
      cfg,
      '--type',
      'zk',
      '--title',
      'Other',
      '--secret-file',
      file,
      '--no-reload',
    ]),
    (e: Error) =>
      e instanceof PrivateFileError && notPrivate(file, '644').test(e.message) && !e.message.includes(secret),
  );
  chmodSync(file, 0o600);
  writeFileSync(file, 'zz');
  await assert.rejects(
    runCli([
      'keys',
      'add',
      '-c',
      cfg,
      '--type',
      'zk',
      '--title',
      'Bad',
      '--secret-file',
      file,
      '--no-reload',
    ]),
    /Invalid key_hex \(64 hex characters required\)\./,
  );
  await assert.rejects(
    runCli([
      'keys',
      'add',
      '-c',
      cfg,
      '--type',
      'zk',
      '--title',
      'Bad',
      '--secret-file',
      join(dir, 'no'),
      '--no-reload',
    ]),
    /cannot read the key file .*no: ENOENT/,
  );
  assert.deepEqual(files(), before);
});

test('keys remove takes the key out of the keystore, the key store and known_keys; an unknown title is refused', async () => {
  const id = keystore().public_keys.Stake!;
  assert.equal(knownKeys()[id], id);
  assert.deepEqual(await runCli(['keys', 'remove', '-c', cfg, '--title', 'Stake', '--no-reload']), [
    'removed Stake',
    'not asking a running node to reload: the change applies when the node starts',
  ]);
  assert.equal(keystore().public_keys.Stake, undefined);
  assert.equal(keystore().secret_keys.Stake, undefined);
  assert.ok(!configKeys().includes(id));
  assert.equal(knownKeys()[id], undefined);
  assert.deepEqual([mode(cfg), mode(ks)], [0o600, 0o600]);
  await assert.rejects(
    runCli(['keys', 'remove', '-c', cfg, '--title', 'Stake', '--no-reload']),
    /No key titled Stake in the keystore\./,
  );
});

test('a keystore or config that other users may read is refused, naming the file and the fix, and left as it is', async () => {
  chmodSync(ks, 0o644);
  const before = files();
  await assert.rejects(runCli(['keys', 'list', '-c', cfg]), (e: Error) =>
    notPrivate(ks, '644').test(e.message),
  );
  await assert.rejects(
    runCli(['keys', 'generate', '-c', cfg, '--type', 'zk', '--title', 'X', '--no-reload']),
    (e: Error) => e instanceof PrivateFileError && notPrivate(ks, '644').test(e.message),
  );
  chmodSync(ks, 0o600);
  chmodSync(cfg, 0o640);
  await assert.rejects(runCli(['keys', 'remove', '-c', cfg, '--title', 'Stake', '--no-reload']), (e: Error) =>
    notPrivate(cfg, '640').test(e.message),
  );
  chmodSync(cfg, 0o620);
  await assert.rejects(
    runCli(['keys', 'remove', '-c', cfg, '--title', 'Stake', '--no-reload']),
    /is writable by other users \(mode 620\); chmod 600 it$/,
  );
  assert.deepEqual(files(), before);
});

test('start refuses a config holding keys, or a keystore beside it, that other users may read', async () => {
  chmodSync(cfg, 0o644);
  await assert.rejects(runCli(['start', '-c', cfg]), (e: Error) => notPrivate(cfg, '644').test(e.message));
  chmodSync(cfg, 0o600);
  chmodSync(ks, 0o604);
  await assert.rejects(runCli(['start', '-c', cfg]), (e: Error) => notPrivate(ks, '604').test(e.message));
});

/** A stand-in for a running node's API: answers the reload with `status` and `body`, records the requests. */
async function fakeNode(
  status: number,
  body: string,
): Promise<{ url: string; seen: IncomingMessage[]; server: Server }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

test('a change asks the running node to reload: its answer is printed, a refusal is an error, nobody listening is not', async () => {
  const reloaded = {
    kms: { added: ['ab'], removed: [], changed: [] },
    wallet: { added: ['ab'], removed: [] },
    leader_keys: 6,
  };
  const ok = await fakeNode(200, JSON.stringify(reloaded));
  const token = join(dir, 'token');
  writeFileSync(token, 'tok-123\n', { mode: 0o600 });
  try {
    const out = await runCli([
      'keys',
      'generate',
      '-c',
      cfg,
      '--type',
      'zk',
      '--title',
      'A',
      '--node-address',
      ok.url,
      '--token-file',
      token,
    ]);
    assert.equal(out[1], 'the running node reloaded its keys: key store +1 -0, wallet +1 -0, leader keys 6');
    assert.equal(ok.seen.length, 1);
    assert.equal(ok.seen[0]!.method, 'POST');
    assert.equal(ok.seen[0]!.url, '/x/admin/keys/reload');
    assert.equal(ok.seen[0]!.headers.authorization, 'Bearer tok-123');
  } finally {
    ok.server.close();
  }

  const refused = await fakeNode(400, JSON.stringify({ code: 400, message: 'kms.backend.keys.x: bad' }));
  try {
    await assert.rejects(
      runCli(['keys', 'remove', '-c', cfg, '--title', 'A', '--node-address', refused.url]),
      (e: Error) =>
        /^the files are changed, but the node at http:\/\/127\.0\.0\.1:\d+ refused to reload them and keeps its keys \(400\): kms\.backend\.keys\.x: bad$/.test(
          e.message,
        ),
    );
    assert.equal(keystore().public_keys.A, undefined);
  } finally {
    refused.server.close();
  }

  // The config's own address: nothing listens on a port just freed.
  const free = await fakeNode(200, '{}');
  const port = (free.server.address() as AddressInfo).port;
  await new Promise((r) => free.server.close(r));
  writeFileSync(
    cfg,
    readFileSync(cfg, 'utf8').replace(/listen_address: .*/, `listen_address: "0.0.0.0:${port}"`),
  );
  const out = await runCli(['keys', 'generate', '-c', cfg, '--type', 'ed25519', '--title', 'B']);
  assert.equal(
    out[1],
    `no node answers at http://127.0.0.1:${port}: the change applies when the node starts`,
  );
});
