/**
 * The operator guide end to end (operator.md §5.2, acceptance checks §6.5), on loopback with free
 * non-default ports, from this repository alone:
 *  1. `daemon config set -`, `daemon start --detach`, `daemon status --json` running;
 *  2. the shipped modules packed into a local catalog, `catalog add`/`refresh`, `package install … --version
 *     --root-hash --yes` of the three modules, `package ls --type core` lists them;
 *  3. `generate_user_config @peers.json` (both files mode 600, five known keys), `start <config> ""`,
 *     `get_cryptarchia_info` in `Bootstrapping`, `wallet_get_notes` of a funded key, and the guide's
 *     optional Blend step: `blend_join_as_core_node` gives a declaration id;
 *  4. storage `init`/`start` print `"result":true`, `uploadUrl` then `manifests` gives a `zDvZ…` CID, a
 *     local `downloadToUrl` and one from a second storage node round-trip the file;
 *  5. delivery `createNode @config.json` (kernel layer), `start`, node info (`/tcp/<port>` among the
 *     addresses), `send` refused on a kernel node, and a message relayed between two delivery nodes;
 *  6. health: the six expected modules loaded, every configured port bound, the API on 127.0.0.1 only,
 *     and the node's API lists the Blend declaration.
 * A second daemon in its own session stands for the other machines (the storage and delivery peers).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { fundedDevnetKeys } from '@logos-ts/node/node/devnet';
import { type CtlRun, ctl, type Watcher, watch } from '@logos-ts/test-utils/logosctl';
import { useLoopbackAndFundedKey } from '@logos-ts/test-utils/node-config';
import { freeTcpPort, freeUdpPort, portInUse } from '@logos-ts/test-utils/ports';
import { parseDocument } from 'yaml';
import { packModules } from '../utils/fixtures.ts';

const home = mkdtempSync(join(tmpdir(), 'logos-guide-'));
/** The operator's node (`/var/lib/logos-node`) and its session. */
const node = join(home, 'logos-node');
const session = join(node, '.logosctl');
/** Another machine: the storage and delivery peers. */
const peer = join(home, 'peer');
const peerSession = join(peer, '.logosctl');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `result` of a successful `logosctl call`; the envelope's status must be ok. */
async function call(dir: string, cwd: string, module: string, ...args: string[]): Promise<unknown> {
  const r = await ctl(dir, ['call', module, ...args], cwd);
  assert.equal(r.code, 0, `${module} ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  const env = JSON.parse(r.stdout) as { status: string; result: unknown };
  assert.equal(env.status, 'ok', r.stdout);
  return env.result;
}

/** The `value` of a call answering a successful StdLogosResult. */
async function value(dir: string, cwd: string, module: string, ...args: string[]): Promise<unknown> {
  const result = (await call(dir, cwd, module, ...args)) as {
    success: boolean;
    value: unknown;
    error: string | null;
  };
  assert.equal(result.error, null, `${module} ${args[0]}: ${result.error}`);
  assert.equal(result.success, true);
  return result.value;
}

function ok(r: CtlRun, what: string): string {
  assert.equal(r.code, 0, `${what}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(500);
  }
}

describe('the operator guide, end to end', { timeout: 240_000 }, () => {
  const ports = { net: 0, blend: 0, http: 0, storageTcp: 0, storageUdp: 0, deliveryTcp: 0, deliveryUdp: 0 };
  const watchers: Watcher[] = [];

  before(async () => {
    for (const d of ['blockchain-module-testnet', 'storage-module/storage-data', 'delivery-module'])
      mkdirSync(join(node, d), { recursive: true });
    mkdirSync(peer, { recursive: true });
    ports.net = await freeUdpPort();
    ports.blend = await freeUdpPort();
    ports.http = await freeTcpPort();
    ports.storageTcp = await freeTcpPort();
    ports.storageUdp = await freeUdpPort();
    ports.deliveryTcp = await freeTcpPort();
    ports.deliveryUdp = await freeUdpPort();
  });

  after(async () => {
    for (const w of watchers) await w.stop();
    await ctl(session, ['daemon', 'stop'], node);
    await ctl(peerSession, ['daemon', 'stop'], peer);
    rmSync(home, { recursive: true, force: true });
  });

  test('install: daemon up, packages from the local catalog, three core modules listed', async () => {
    const set = await ctl(session, ['daemon', 'config', 'set', '-'], node, {}, '{}\n');
    ok(set, 'daemon config set -');
    ok(await ctl(session, ['daemon', 'start', '--detach'], node), 'daemon start --detach');
    const status = JSON.parse(ok(await ctl(session, ['daemon', 'status', '--json'], node), 'status'));
    assert.equal(status.daemon.status, 'running');

    // The catalog: the packages of this repository, served from a folder.
    const packs = join(home, 'packages');
    const packed = await packModules(packs);
    assert.deepEqual(packed.map((p) => p.name).sort(), [
      'blockchain_module',
      'delivery_module',
      'storage_module',
    ]);
    ok(
      await ctl(session, ['catalog', 'add', pathToFileURL(join(packs, 'logos-repo.json')).href], node),
      'catalog add',
    );
    ok(await ctl(session, ['catalog', 'refresh'], node), 'catalog refresh');
    for (const { name, version, rootHash } of packed) {
      const out = ok(
        await ctl(
          session,
          ['package', 'install', name, '--version', version, '--root-hash', rootHash, '--yes'],
          node,
        ),
        `install ${name}`,
      );
      assert.deepEqual(JSON.parse(out).installed, [name]);
    }
    const ls = JSON.parse(
      ok(await ctl(session, ['package', 'ls', '--type', 'core'], node), 'package ls'),
    ) as {
      name: string;
      version: string;
    }[];
    assert.deepEqual(ls.map((p) => `${p.name} ${p.version}`).sort(), [
      'blockchain_module 0.2.4',
      'delivery_module 0.2.1',
      'storage_module 2.1.2',
    ]);
    // The guide stops the daemon after installing, then starts the node's daemon for good.
    ok(await ctl(session, ['daemon', 'stop'], node), 'daemon stop');
    ok(await ctl(session, ['daemon', 'start', '--detach'], node), 'daemon start --detach');
    ok(await ctl(peerSession, ['daemon', 'start', '--detach'], peer), 'peer daemon start');
  });

  const funded = fundedDevnetKeys()[0]!;
  let declaration = '';

  test('blockchain: generate_user_config, start, chain info in Bootstrapping, notes of a funded key, Blend join', async () => {
    const dir = join(node, 'blockchain-module-testnet');
    ok(await ctl(session, ['module', 'load', 'blockchain_module'], dir), 'load blockchain_module');
    writeFileSync(
      join(dir, 'peers.json'),
      JSON.stringify({
        initial_peers: [],
        net_port: ports.net,
        blend_port: ports.blend,
        http_addr: `127.0.0.1:${ports.http}`,
      }),
    );
    await value(session, dir, 'blockchain_module', 'generate_user_config', '@peers.json');
    // The files land in the daemon's working directory, as the guide's chmod shows.
    const config = join(node, 'user_config.yaml');
    for (const f of [config, join(node, 'keystore.yaml')]) assert.equal(statSync(f).mode & 0o777, 0o600, f);
    const doc = parseDocument(readFileSync(config, 'utf8'), { logLevel: 'silent' });
    const known = doc.getIn(['wallet', 'known_keys']) as { toJSON(): Record<string, string> };
    const knownKeys = Object.values(known.toJSON());
    assert.equal(knownKeys.length, 5);
    for (const k of knownKeys) assert.match(k, /^[0-9a-f]{64}$/);

    // Loopback only, and the faucet's part: a funded devnet key in the wallet pays the SDP fee.
    // A short prolonged bootstrap (the reference's default is an hour): the node is Bootstrapping when
    // asked below, and Online, so leading, in time for the health check to find the declaration on chain
    // (a leader proposes only when Online, as the reference's).
    useLoopbackAndFundedKey(config, funded, `/ip4/127.0.0.1/udp/${ports.blend}/quic-v1`, (doc) =>
      doc.setIn(['cryptarchia', 'service', 'bootstrap', 'prolonged_bootstrap_period'], 8),
    );

    // The guide passes "" (the public testnet); this local check runs the devnet by name.
    assert.equal(await value(session, dir, 'blockchain_module', 'start', config, 'devnet'), null);
    const info = JSON.parse(
      (await value(session, dir, 'blockchain_module', 'get_cryptarchia_info')) as string,
    ) as { mode: string };
    assert.equal(info.mode, 'Bootstrapping');
    const notes = JSON.parse(
      (await value(session, dir, 'blockchain_module', 'wallet_get_notes', funded.publicKey, '')) as string,
    ) as { notes: { id: string; value: string }[] };
    assert.ok(notes.notes.length > 0, 'the funded key has notes');

    // Blend (the guide's optional step): the declaration id comes back at once; the health check
    // below finds it on chain.
    declaration = (await value(
      session,
      dir,
      'blockchain_module',
      'blend_join_as_core_node',
      `/ip4/127.0.0.1/udp/${ports.blend}/quic-v1`,
      notes.notes[0]!.id,
    )) as string;
    assert.match(declaration, /^[0-9a-f]{64}$/);
  });

  test('storage: init and start print true; upload, manifests, download locally and from a second node', async () => {
    const dir = join(node, 'storage-module');
    ok(await ctl(session, ['module', 'load', 'storage_module'], dir), 'load storage_module');
    const events = watch(session, 'storage_module');
    watchers.push(events);
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        'data-dir': './storage-data',
        'log-level': 'INFO',
        'listen-ip': '127.0.0.1',
        'listen-port': ports.storageTcp,
        'disc-port': ports.storageUdp,
        network: 'logos.test',
        'no-bootstrap-node': true,
      }),
    );
    for (const args of [['init', '@config.json'], ['start']]) {
      const r = await ctl(session, ['call', 'storage_module', ...args], dir);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.ok(r.stdout.includes('"result":true'), r.stdout);
    }
    assert.equal((await events.next('storageStart')).data.success, true);

    const content = randomBytes(200_000);
    const file = join(home, 'farewell.bin');
    writeFileSync(file, content);
    const upload = (await value(session, dir, 'storage_module', 'uploadUrl', file, '65536')) as string;
    const done = await events.next('storageUploadDone', (d) => d.sessionId === upload);
    assert.equal(done.data.success, true, JSON.stringify(done.data));
    const manifests = (await value(session, dir, 'storage_module', 'manifests')) as { cid: string }[];
    const cid = manifests[0]!.cid;
    assert.match(cid, /^zDvZ/);
    assert.equal(cid, done.data.cid);

    const local = join(home, 'local-copy.bin');
    await value(session, dir, 'storage_module', 'downloadToUrl', cid, local, 'true', '65536');
    const localDone = await events.next('storageDownloadDone', (d) => d.sessionId === cid);
    assert.equal(localDone.data.success, true, JSON.stringify(localDone.data));
    assert.deepEqual(readFileSync(local), content);
    const space = (await value(session, dir, 'storage_module', 'space')) as { totalBlocks: number };
    assert.ok(space.totalBlocks >= 4, JSON.stringify(space));

    // The second storage node fetches the file from the first over the network.
    ok(await ctl(peerSession, ['module', 'load', 'storage_module'], peer), 'peer load storage_module');
    const peerEvents = watch(peerSession, 'storage_module');
    watchers.push(peerEvents);
    writeFileSync(
      join(peer, 'storage.json'),
      JSON.stringify({
        'data-dir': './storage-data',
        'listen-ip': '127.0.0.1',
        'listen-port': await freeTcpPort(),
        'disc-port': await freeUdpPort(),
        'no-bootstrap-node': true,
      }),
    );
    await call(peerSession, peer, 'storage_module', 'init', '@storage.json');
    await call(peerSession, peer, 'storage_module', 'start');
    assert.equal((await peerEvents.next('storageStart')).data.success, true);
    const peerId = (await value(session, dir, 'storage_module', 'peerId')) as string;
    await value(
      peerSession,
      peer,
      'storage_module',
      'connect',
      peerId,
      `json:["/ip4/127.0.0.1/tcp/${ports.storageTcp}"]`,
    );
    await peerEvents.next('storageConnect');
    const remote = join(home, 'remote-copy.bin');
    await value(peerSession, peer, 'storage_module', 'downloadToUrl', cid, remote, 'false', '65536');
    const remoteDone = await peerEvents.next('storageDownloadDone', (d) => d.sessionId === cid);
    assert.equal(remoteDone.data.success, true, JSON.stringify(remoteDone.data));
    assert.deepEqual(readFileSync(remote), content);
  });

  test('delivery: a kernel node, its info, send refused; a message relayed between two delivery nodes', async () => {
    const dir = join(node, 'delivery-module');
    ok(await ctl(session, ['module', 'load', 'delivery_module'], dir), 'load delivery_module');
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        entryLayer: 'kernel',
        kernelConf: {
          preset: 'logos.test',
          relay: true,
          logLevel: 'INFO',
          listenAddress: '127.0.0.1',
          tcpPort: ports.deliveryTcp,
          discv5UdpPort: ports.deliveryUdp,
          discv5Discovery: true,
          nat: 'extip:127.0.0.1',
        },
      }),
    );
    await value(session, dir, 'delivery_module', 'createNode', '@config.json');
    await value(session, dir, 'delivery_module', 'start');
    assert.equal(
      await value(session, dir, 'delivery_module', 'getAvailableNodeInfoIDs'),
      '@[Version, Metrics, MyMultiaddresses, MyENR, MyPeerId]',
    );
    assert.equal(typeof (await value(session, dir, 'delivery_module', 'getNodeInfo', 'Version')), 'string');
    const addrs = (await value(session, dir, 'delivery_module', 'getNodeInfo', 'MyMultiaddresses')) as string;
    assert.ok(addrs.includes(`/tcp/${ports.deliveryTcp}`), addrs);
    const sent = (await call(session, dir, 'delivery_module', 'send', '/guide/1/chat/proto', 'hi')) as {
      success: boolean;
      error: string;
    };
    assert.equal(sent.success, false);
    assert.match(sent.error, /node has no messaging client/);

    // The peer machine runs a messaging node that enters the network through the operator's node and
    // sends; the operator's relay receives the message.
    const enr = (await value(session, dir, 'delivery_module', 'getNodeInfo', 'MyENR')) as string;
    ok(await ctl(peerSession, ['module', 'load', 'delivery_module'], peer), 'peer load delivery_module');
    writeFileSync(
      join(peer, 'delivery.json'),
      JSON.stringify({
        entryLayer: 'messaging',
        kernelConf: {
          preset: 'logos.test',
          relay: true,
          listenAddress: '127.0.0.1',
          tcpPort: await freeTcpPort(),
          discv5UdpPort: await freeUdpPort(),
          discv5Discovery: true,
          entryNodes: [enr],
        },
      }),
    );
    await value(peerSession, peer, 'delivery_module', 'createNode', '@delivery.json');
    await value(peerSession, peer, 'delivery_module', 'start');
    const metrics = async () =>
      (await value(session, dir, 'delivery_module', 'getNodeInfo', 'Metrics')) as string;
    await until(
      'the operator relay received the peer message',
      async () => {
        const r = (await call(
          peerSession,
          peer,
          'delivery_module',
          'send',
          '/guide/1/chat/proto',
          'hello',
        )) as {
          success: boolean;
          error: string | null;
        };
        assert.equal(r.success, true, r.error ?? '');
        await sleep(300);
        return /^waku_relay_messages_received_total(\{[^}]*\})? [1-9]/m.test(await metrics())
          ? true
          : undefined;
      },
      30_000,
    );
  });

  test('health: the six modules loaded, every port bound, the API on loopback, the Blend declaration on chain', async () => {
    const status = JSON.parse(ok(await ctl(session, ['daemon', 'status', '--json'], node), 'status'));
    assert.equal(status.daemon.status, 'running');
    const loaded = JSON.parse(ok(await ctl(session, ['module', 'ls', '--loaded'], node), 'module ls')) as {
      name: string;
    }[];
    assert.deepEqual(loaded.map((m) => m.name).sort(), [
      'blockchain_module',
      'capability_module',
      'delivery_module',
      'package_downloader',
      'package_manager',
      'storage_module',
    ]);
    const bound: [string, 'tcp' | 'udp', number][] = [
      ['blockchain P2P (QUIC)', 'udp', ports.net],
      ['storage discovery', 'udp', ports.storageUdp],
      ['storage libp2p', 'tcp', ports.storageTcp],
      ['delivery discv5', 'udp', ports.deliveryUdp],
      ['delivery libp2p', 'tcp', ports.deliveryTcp],
      ['node HTTP API', 'tcp', ports.http],
    ];
    for (const [what, kind, port] of bound)
      assert.ok(await portInUse(kind, port), `${what}: ${kind} ${port}`);
    const info = await fetch(`http://127.0.0.1:${ports.http}/cryptarchia/info`);
    assert.equal(info.status, 200);
    await until(
      'the Blend declaration is on chain',
      async () => {
        const r = await fetch(`http://127.0.0.1:${ports.http}/mantle/sdp/declarations`);
        const body = (await r.json()) as Record<string, unknown>;
        return declaration in body ? true : undefined;
      },
      90_000,
    );
  });
});
