/**
 * `logosctl` packages end to end (operator.md §1.3, §1.6, §1.7, §5.2 step 3): `scripts/pack-modules.ts`
 * packs the shipped modules into a temporary folder; a daemon on a temporary session adds that `file:`
 * catalog and refreshes it; installs are refused for a wrong root hash, a wrong version and a missing `-y`;
 * `--dry-run` plans; the right pin installs; `package ls --type core` lists it; the installed module loads
 * and answers a call; reinstalling it from its `.lgx` restarts it; remove; a loopback HTTP catalog serves a
 * download and a catalog whose root hash lies is refused; issued tokens work until revoked; keys; and two
 * daemon starts at the same instant leave exactly one daemon. Daemons are always stopped, folders removed.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ctl } from '@logos-ts/test-utils/logosctl';
import { packModules } from '../utils/fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: replies of the command line, read field by field
type Reply = { [k: string]: any };
const json = (s: string): Reply => JSON.parse(s) as Reply;

/** The root hash of blockchain_module 0.2.4 as packed into `dir`. */
const blockchainRootHash = async (dir: string): Promise<string | undefined> =>
  (await packModules(dir)).find((p) => p.name === 'blockchain_module' && p.version === '0.2.4')?.rootHash;

describe('logosctl packages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'logosctl-pkg-'));
  const session = join(dir, 'session');
  const packs = join(dir, 'packs');
  const catalogUrl = pathToFileURL(join(packs, 'logos-repo.json')).href;
  let hash = '';
  let server: Server | undefined;

  before(async () => {
    hash = (await blockchainRootHash(packs)) ?? '';
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(await blockchainRootHash(join(dir, 'again')), hash, 'packing is deterministic');
    const r = await ctl(session, ['daemon', 'start', '--detach'], dir);
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    await ctl(session, ['daemon', 'stop'], dir);
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    rmSync(dir, { recursive: true, force: true });
  });

  test('catalog add, duplicate and logos: refused, ls, refresh, search', async () => {
    const add = await ctl(session, ['catalog', 'add', catalogUrl], dir);
    assert.equal(add.code, 0, add.stdout);
    const again = await ctl(session, ['catalog', 'add', catalogUrl], dir);
    assert.equal(again.code, 1);
    assert.match(json(again.stdout).message as string, /already registered/);
    const logos = await ctl(
      session,
      ['catalog', 'add', 'logos:testnet:zDvZRwzkzrrYB6sS1rRpRLt4gBhc1pWoyTSjkfszfmj1seaYYLCZ'],
      dir,
    );
    assert.equal(logos.code, 1);
    assert.match(json(logos.stdout).message as string, /logos: URLs are served over Logos Storage/);
    const ls = JSON.parse((await ctl(session, ['catalog', 'ls'], dir)).stdout) as {
      url: string;
      name: string;
      isDefault: boolean;
      enabled: boolean;
    }[];
    const mine = ls.find((c) => c.url === catalogUrl);
    assert.equal(mine?.name, 'logos-node-ts-modules');
    assert.ok(
      ls.some((c) => c.isDefault && c.enabled),
      'the default catalog is listed',
    );
    const refresh = await ctl(session, ['catalog', 'refresh'], dir);
    assert.equal(refresh.code, 0, refresh.stdout);
    assert.deepEqual(json(refresh.stdout).errors, []);
    const search = JSON.parse((await ctl(session, ['search', 'blockchain'], dir)).stdout) as {
      name: string;
    }[];
    assert.ok(search.length >= 1 && search.every((p) => p.name === 'blockchain_module'));
  });

  test('install: wrong root hash, wrong version and no -y refused (exit 1); --dry-run plans; the pin installs', async () => {
    const base = ['package', 'install', 'blockchain_module', '--catalog', catalogUrl];
    const badHash = await ctl(
      session,
      [...base, '--version', '0.2.4', '--root-hash', '0'.repeat(64), '--yes'],
      dir,
    );
    assert.equal(badHash.code, 1);
    assert.equal(json(badHash.stdout).code, 'RESOLVE_FAILED');
    assert.match(
      json(badHash.stdout).message as string,
      /has root hash 0{64} \(available: 0\.2\.4 [0-9a-f]{64}\)/,
    );
    const badVersion = await ctl(session, [...base, '--version', '9.9.9', '--yes'], dir);
    assert.equal(badVersion.code, 1);
    assert.match(
      json(badVersion.stdout).message as string,
      /No version of 'blockchain_module' matches '9\.9\.9' \(available: 0\.2\.4\)/,
    );
    const noYes = await ctl(session, [...base, '--version', '0.2.4', '--root-hash', hash], dir);
    assert.equal(noYes.code, 1);
    assert.equal(json(noYes.stdout).code, 'CANCELLED');
    const dry = await ctl(session, [...base, '--version', '0.2.4', '--dry-run'], dir);
    assert.equal(dry.code, 0);
    assert.match(dry.stdout, /"action":"install"/);
    assert.deepEqual(
      JSON.parse((await ctl(session, ['package', 'ls'], dir)).stdout),
      [],
      'nothing installed yet',
    );

    const ok = await ctl(
      session,
      ['package', 'install', 'blockchain_module', '--version', '0.2.4', '--root-hash', hash, '--yes'],
      dir,
    );
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(ok.stdout, /"installed":\["blockchain_module"\]/);
    assert.ok(existsSync(join(session, 'cache', 'downloads', 'blockchain_module-0.2.4.lgx')));
    const ls = JSON.parse((await ctl(session, ['package', 'ls', '--type', 'core'], dir)).stdout) as {
      name: string;
      version: string;
      type: string;
      installType: string;
      hashes: { root: string };
    }[];
    assert.deepEqual(
      ls.map((p) => [p.name, p.version, p.type, p.installType, p.hashes.root]),
      [['blockchain_module', '0.2.4', 'core', 'user', hash]],
    );
    assert.deepEqual(JSON.parse((await ctl(session, ['package', 'ls', '--type', 'ui'], dir)).stdout), []);
    const human = await ctl(session, ['--human', 'package', 'ls', '--type', 'core'], dir);
    assert.match(human.stdout, /^NAME +VERSION +TYPE +SOURCE\nblockchain_module +0\.2\.4 +core +user\n$/);
    const same = await ctl(
      session,
      ['install', 'blockchain_module', '--version', '0.2.4', '--root-hash', hash, '-y'],
      dir,
    );
    assert.equal(same.code, 0);
    assert.deepEqual(
      (json(same.stdout).changes as { action: string }[]).map((c) => c.action),
      ['installed'],
    );
  });

  test('the installed module loads from the session and answers; reinstalling its .lgx restarts it; remove', async () => {
    const show = json((await ctl(session, ['module', 'show', 'blockchain_module'], dir)).stdout);
    assert.equal(show.source, 'user');
    assert.equal(show.path, join(session, 'modules', 'blockchain_module', 'module.mjs'));
    const load = await ctl(session, ['module', 'load', 'blockchain_module'], dir);
    assert.equal(load.code, 0, load.stdout);
    const call = json(
      (await ctl(session, ['call', 'blockchain_module', 'get_cryptarchia_info'], dir)).stdout,
    );
    assert.deepEqual(call.result, { error: 'The node is not running.', success: false, value: null });
    const pid = json((await ctl(session, ['module', 'show', 'blockchain_module'], dir)).stdout).pid;

    const re = await ctl(
      session,
      ['package', 'install', join(packs, 'blockchain_module-0.2.4.lgx'), '--root-hash', hash, '-y'],
      dir,
    );
    assert.equal(re.code, 0, re.stdout);
    assert.deepEqual(json(re.stdout).reloaded, ['blockchain_module']);
    assert.deepEqual(
      (json(re.stdout).changes as { action: string }[]).map((c) => c.action),
      ['reinstall'],
    );
    const after = json((await ctl(session, ['module', 'show', 'blockchain_module'], dir)).stdout);
    assert.equal(after.status, 'loaded');
    assert.notEqual(after.pid, pid, 'a running module that is reinstalled is restarted');
    const wrongFileHash = await ctl(
      session,
      ['package', 'install', join(packs, 'blockchain_module-0.2.4.lgx'), '--root-hash', 'f'.repeat(64), '-y'],
      dir,
    );
    assert.equal(wrongFileHash.code, 1);
    assert.equal(json(wrongFileHash.stdout).code, 'ROOT_HASH_MISMATCH');

    const notInstalled = await ctl(session, ['package', 'remove', 'storage_thing', '-y'], dir);
    assert.equal(notInstalled.code, 1);
    assert.equal(json(notInstalled.stdout).code, 'PACKAGE_NOT_INSTALLED');
    const dry = await ctl(session, ['package', 'remove', 'blockchain_module', '--dry-run'], dir);
    assert.match(dry.stdout, /"action":"remove"/);
    assert.deepEqual(json(dry.stdout).affected_loaded, ['blockchain_module']);
    const rm = await ctl(session, ['package', 'uninstall', 'blockchain_module', '-y'], dir);
    assert.equal(rm.code, 0, rm.stdout);
    assert.deepEqual(json(rm.stdout).removed, ['blockchain_module']);
    assert.deepEqual(JSON.parse((await ctl(session, ['package', 'ls'], dir)).stdout), []);
    assert.equal(existsSync(join(session, 'modules', 'blockchain_module')), false);
    const st = json((await ctl(session, ['module', 'show', 'blockchain_module'], dir)).stdout);
    assert.equal(st.status, 'not_loaded', 'a removed module is stopped');
  });

  test('a loopback HTTP catalog: download; a catalog whose root hash lies is refused', async () => {
    const files = (p: string): Buffer | undefined => {
      if (p === '/good/logos-repo.json' || p === '/bad/logos-repo.json')
        return readFileSync(join(packs, 'logos-repo.json'));
      if (p === '/good/index.json') return readFileSync(join(packs, 'index.json'));
      if (p === '/bad/index.json')
        return Buffer.from(readFileSync(join(packs, 'index.json'), 'utf8').replaceAll(hash, 'a'.repeat(64)));
      if (p === '/good/blockchain_module-0.2.4.lgx' || p === '/bad/blockchain_module-0.2.4.lgx')
        return readFileSync(join(packs, 'blockchain_module-0.2.4.lgx'));
      return undefined;
    };
    server = createServer((req, res) => {
      const body = files(req.url ?? '');
      res.writeHead(body ? 200 : 404).end(body);
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const c of ['good', 'bad'])
      assert.equal((await ctl(session, ['catalog', 'add', `${base}/${c}/logos-repo.json`], dir)).code, 0);
    const out = join(dir, 'out');
    const dl = await ctl(
      session,
      ['package', 'download', 'blockchain_module', '--catalog', `${base}/good/logos-repo.json`, '-o', out],
      dir,
    );
    assert.equal(dl.code, 0, dl.stdout);
    assert.equal(json(dl.stdout).path, join(out, 'blockchain_module-0.2.4.lgx'));
    assert.deepEqual(
      readFileSync(join(out, 'blockchain_module-0.2.4.lgx')),
      readFileSync(join(packs, 'blockchain_module-0.2.4.lgx')),
    );
    const bad = await ctl(
      session,
      ['package', 'download', 'blockchain_module', '--catalog', `${base}/bad/logos-repo.json`],
      dir,
    );
    assert.equal(bad.code, 1);
    assert.match(
      json(bad.stdout).message as string,
      /root hash [0-9a-f]{64} differs from the catalog's a{64}/,
    );
    const disable = await ctl(session, ['catalog', 'disable', `${base}/bad/logos-repo.json`], dir);
    assert.equal(disable.code, 0);
    const ls = JSON.parse((await ctl(session, ['catalog', 'ls'], dir)).stdout) as {
      url: string;
      enabled: boolean;
    }[];
    assert.equal(ls.find((c) => c.url === `${base}/bad/logos-repo.json`)?.enabled, false);
    assert.equal((await ctl(session, ['catalog', 'remove', `${base}/bad/logos-repo.json`], dir)).code, 0);
  });

  test('tokens: an issued token works until revoked; keys: add, list, a bad DID refused', async () => {
    const issued = await ctl(session, ['token', 'issue', '--name', 'ops', '--expires', '1d'], dir);
    assert.equal(issued.code, 0, issued.stdout);
    const t = json(issued.stdout);
    assert.match(t.token as string, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(!readFileSync(join(session, 'daemon', 'tokens.json'), 'utf8').includes(t.token as string));
    const dup = await ctl(session, ['token', 'issue', '--name', 'ops'], dir);
    assert.equal(json(dup.stdout).code, 'TOKEN_EXISTS');
    const withToken = await ctl(session, ['status'], dir, { LOGOSCTL_TOKEN: t.token as string });
    assert.equal(withToken.code, 0, withToken.stdout);
    assert.ok(
      (JSON.parse((await ctl(session, ['token', 'ls'], dir)).stdout) as { name: string }[]).some(
        (x) => x.name === 'ops',
      ),
    );
    assert.equal((await ctl(session, ['token', 'revoke', 'ops'], dir)).code, 0);
    const refused = await ctl(session, ['status'], dir, { LOGOSCTL_TOKEN: t.token as string });
    assert.match(refused.stdout, /UNAUTHORIZED/);

    const did = `did:jwk:${Buffer.from(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x: Buffer.alloc(32, 7).toString('base64url') })).toString('base64url')}`;
    assert.equal(
      (await ctl(session, ['key', 'add', 'release', '--did', did, '--display-name', 'Release'], dir)).code,
      0,
    );
    const keys = JSON.parse((await ctl(session, ['key', 'ls'], dir)).stdout) as {
      name: string;
      did: string;
    }[];
    assert.deepEqual(
      keys.map((k) => [k.name, k.did]),
      [['release', did]],
    );
    const bad = await ctl(session, ['key', 'add', 'other', '--did', 'did:web:example.org'], dir);
    assert.equal(bad.code, 1);
    assert.match(json(bad.stdout).message as string, /Not a did:jwk identifier/);
    assert.equal((await ctl(session, ['key', 'remove', 'release'], dir)).code, 0);
  });

  test('two daemon starts on one session at the same instant: exactly one wins', async () => {
    const other = join(dir, 'race');
    try {
      const [a, b] = await Promise.all([
        ctl(other, ['daemon', 'start', '--detach'], dir),
        ctl(other, ['daemon', 'start', '--detach'], dir),
      ]);
      assert.deepEqual([a.code, b.code].sort(), [0, 1], `${a.stdout}${a.stderr} / ${b.stdout}${b.stderr}`);
      assert.match(`${a.stderr}${a.stdout}${b.stderr}${b.stdout}`, /already running/);
      assert.equal(json((await ctl(other, ['status'], dir)).stdout).daemon.status, 'running');
    } finally {
      await ctl(other, ['daemon', 'stop'], dir);
    }
    assert.equal(existsSync(join(other, 'daemon', 'daemon.lock')), false, 'the lock goes with the daemon');
  });
});
