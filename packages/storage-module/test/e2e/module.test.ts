/**
 * The storage module end to end through `logosctl` (operator.md §3.2, §5.2 step 6, §6.5 check 4): two
 * daemons in temporary sessions, each loading `storage_module` and starting a node on loopback with
 * free non-default ports. On A: `init @config.json` and `start` print `"result":true`, `uploadUrl`
 * then `manifests` gives a `zDvZ…` CID, `downloadToUrl <cid> <abs> true 65536` round-trips the file
 * byte for byte, `space` counts the blocks. B `connect`s to A and downloads with `local=false`: the
 * same bytes. A block A serves corrupted is refused by B (its download fails, nothing of it is
 * kept, A is disconnected). Watchers collect the events; daemons are always stopped.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ctl, type WatchedEvent, type Watcher, watch } from '@logos-ts/test-utils/logosctl';
import { freeTcpPort, freeUdpPort } from '@logos-ts/test-utils/ports';

const STORAGE_MODULE = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A daemon in its own session with `storage_module` installed, and a watcher of its events. */
class Session {
  readonly dir = mkdtempSync(join(tmpdir(), 'logos-storage-e2e-'));
  private watcher: Watcher | undefined;
  tcpPort = 0;
  udpPort = 0;

  get events(): readonly WatchedEvent[] {
    return this.watcher?.events ?? [];
  }

  async start(): Promise<void> {
    mkdirSync(join(this.dir, 'modules', 'storage_module'), { recursive: true });
    writeFileSync(
      join(this.dir, 'modules', 'storage_module', 'manifest.json'),
      JSON.stringify({ name: 'storage_module', version: '2.1.2', main: STORAGE_MODULE, dependencies: [] }),
    );
    const r = await ctl(this.dir, ['daemon', 'start', '--detach']);
    assert.equal(r.code, 0, r.stderr);
    const load = await ctl(this.dir, ['module', 'load', 'storage_module']);
    assert.equal(load.code, 0, load.stdout + load.stderr);
    this.watcher = watch(this.dir, 'storage_module');
    this.tcpPort = await freeTcpPort();
    this.udpPort = await freeUdpPort();
  }

  /** `logosctl call storage_module …` in the session folder; the parsed envelope. */
  async call(method: string, ...args: string[]): Promise<{ raw: string; env: Record<string, unknown> }> {
    const r = await ctl(this.dir, ['call', 'storage_module', method, ...args]);
    assert.ok(r.stdout.trim() !== '', `${method}: no output (${r.stderr})`);
    return { raw: r.stdout, env: JSON.parse(r.stdout) as Record<string, unknown> };
  }

  /** The `value` of a successful StdLogosResult call. */
  async value(method: string, ...args: string[]): Promise<unknown> {
    const { env } = await this.call(method, ...args);
    const result = env.result as { success: boolean; value: unknown; error: string | null };
    assert.equal(result.error, null, `${method}: ${result.error}`);
    assert.equal(result.success, true);
    return result.value;
  }

  async waitEvent(pred: (e: WatchedEvent) => boolean, what: string, ms = 20_000): Promise<WatchedEvent> {
    const end = Date.now() + ms;
    for (;;) {
      const e = this.events.find(pred);
      if (e) return e;
      if (Date.now() > end) throw new Error(`no ${what} event; got ${JSON.stringify(this.events.slice(-5))}`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    await this.watcher?.stop();
    await ctl(this.dir, ['daemon', 'stop']);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('storage_module through logosctl', () => {
  const a = new Session();
  const b = new Session();
  const file = join(a.dir, 'westphalia.pdf');
  const data = randomBytes(5 * 65536 + 12345);
  let cid = '';
  let peerA = '';
  let addrsA: string[] = [];

  before(async () => {
    await Promise.all([a.start(), b.start()]);
    writeFileSync(file, data);
  });
  after(async () => {
    await Promise.all([a.stop(), b.stop()]);
  });

  test('calls before init fail clearly; init @config.json and start print "result":true; a second init fails', async () => {
    const early = (await a.call('space')).env.result as { error: string };
    assert.equal(early.error, 'Storage context not initialized.');
    for (const [s, name] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      writeFileSync(
        join(s.dir, 'config.json'),
        JSON.stringify({
          'data-dir': `./storage-${name}`,
          'log-level': 'INFO',
          'listen-ip': '127.0.0.1',
          'listen-port': s.tcpPort,
          'disc-port': s.udpPort,
          network: 'logos.test',
          'no-bootstrap-node': true,
        }),
      );
      const bad = (await s.call('init', '{"listen-port":"x"}')).env.result as { error: string };
      assert.match(bad.error, /"listen-port" must be an integer/);
      const init = await s.call('init', `@${join(s.dir, 'config.json')}`);
      assert.equal(init.raw, '{"method":"init","module":"storage_module","result":true,"status":"ok"}\n');
      const notStarted = (await s.call('manifests')).env.result as { error: string };
      assert.equal(notStarted.error, 'The storage node is not started.');
      const start = await s.call('start');
      assert.equal(start.raw, '{"method":"start","module":"storage_module","result":true,"status":"ok"}\n');
      const started = await s.waitEvent((e) => e.event === 'storageStart', 'storageStart');
      assert.deepEqual(started.data, { message: '', success: true });
    }
    const again = (await a.call('init', '{}')).env.result as { error: string };
    assert.match(again.error, /already initialized/);
    const key = join(a.dir, 'storage-a', 'key');
    assert.equal(statSync(key).mode & 0o777, 0o600);
    assert.equal(await a.value('dataDir'), join(a.dir, 'storage-a'));
  });

  test('identity: a secp256k1 peer id, an SPR, debug as an object with the listening address', async () => {
    peerA = (await a.value('peerId')) as string;
    assert.match(peerA, /^16Uiu2/);
    assert.match((await a.value('spr')) as string, /^spr:CiUIAhIh/);
    const debug = (await a.value('debug')) as {
      id: string;
      addrs: string[];
      table: { localNode: { peerId: string; address: string } };
    };
    assert.equal(debug.id, peerA);
    addrsA = debug.addrs;
    assert.deepEqual(addrsA, [`/ip4/127.0.0.1/tcp/${a.tcpPort}`]);
    assert.equal(debug.table.localNode.peerId, peerA);
    assert.equal(debug.table.localNode.address, `127.0.0.1:${a.udpPort}`);
  });

  test('uploadUrl, then manifests gives a zDvZ CID; a local download round-trips byte for byte; space counts', async () => {
    const session = await a.value('uploadUrl', file, '65536');
    assert.equal(session, '0');
    const done = await a.waitEvent((e) => e.event === 'storageUploadDone', 'storageUploadDone');
    assert.equal(done.data.success, true, JSON.stringify(done.data));
    cid = done.data.cid as string;
    assert.match(cid, /^zDvZ/);
    const progress = a.events.filter((e) => e.event === 'storageUploadProgress');
    assert.ok(progress.length >= 1 && progress.length <= 101);
    assert.equal(
      progress.reduce((s, e) => s + (e.data.bytes as number), 0),
      data.length,
    );
    const manifests = (await a.value('manifests')) as Record<string, unknown>[];
    assert.equal(manifests.length, 1);
    assert.equal(manifests[0]!.cid, cid);
    assert.equal(manifests[0]!.datasetSize, data.length);
    assert.equal(manifests[0]!.blockSize, 65536);
    assert.equal(manifests[0]!.filename, 'westphalia.pdf');
    assert.equal(manifests[0]!.mimetype, 'application/pdf');

    const out = join(a.dir, 'out-local.pdf');
    assert.equal(await a.value('downloadToUrl', cid, out, 'true', '65536'), cid);
    const dl = await a.waitEvent((e) => e.event === 'storageDownloadDone', 'storageDownloadDone');
    assert.deepEqual(dl.data, { sessionId: cid, success: true });
    assert.ok(readFileSync(out).equals(data));

    const space = (await a.value('space')) as Record<string, number>;
    assert.equal(space.totalBlocks, 7); // six data blocks and the manifest
    assert.ok(space.quotaUsedBytes! >= 6 * 65536 && space.quotaUsedBytes! < 6 * 65536 + 1024);
    assert.equal(space.quotaMaxBytes, 21474836480);
    assert.equal(space.quotaReservedBytes, 0);
    assert.equal(await a.value('exists', cid), true);
  });

  test('B connects to A and downloads with local=false: identical bytes, kept locally', async () => {
    const missing = (await b.call('downloadToUrl', cid, join(b.dir, 'x'), 'true', '65536')).env.result as {
      error: string;
    };
    assert.match(missing.error, /^Failed to start download/);
    await b.value('connect', peerA, `json:${JSON.stringify(addrsA)}`);
    const conn = await b.waitEvent((e) => e.event === 'storageConnect', 'storageConnect');
    assert.equal(conn.data.success, true, JSON.stringify(conn.data));
    const out = join(b.dir, 'out-remote.pdf');
    assert.equal(await b.value('downloadToUrl', cid, out, 'false', '65536'), cid);
    const dl = await b.waitEvent((e) => e.event === 'storageDownloadDone', 'storageDownloadDone');
    assert.deepEqual(dl.data, { sessionId: cid, success: true });
    assert.ok(readFileSync(out).equals(data));
    assert.equal(await b.value('exists', cid), true);
    assert.equal(((await b.value('space')) as { totalBlocks: number }).totalBlocks, 7);
  });

  test('a corrupted block from A is refused by B: the download fails, nothing wrong is kept', async () => {
    const other = join(a.dir, 'other.bin');
    writeFileSync(other, randomBytes(3 * 65536));
    const before = new Set(readdirSync(join(a.dir, 'storage-a', 'repo', 'blocks')));
    await a.value('uploadUrl', other, '65536');
    const done = await a.waitEvent(
      (e) => e.event === 'storageUploadDone' && e.data.sessionId === '1',
      'second storageUploadDone',
    );
    const cid2 = done.data.cid as string;
    // A's new data blocks are overwritten with other bytes of the same length
    const blocksDir = join(a.dir, 'storage-a', 'repo', 'blocks');
    const fresh = readdirSync(blocksDir).filter((n) => !before.has(n) && n !== cid2);
    assert.equal(fresh.length, 3);
    for (const n of fresh) writeFileSync(join(blocksDir, n), randomBytes(65536));

    await b.value('connect', peerA, `json:${JSON.stringify(addrsA)}`);
    await sleep(200);
    const out = join(b.dir, 'other.bin');
    assert.equal(await b.value('downloadToUrl', cid2, out, 'false', '65536'), cid2);
    const dl = await b.waitEvent(
      (e) => e.event === 'storageDownloadDone' && e.data.sessionId === cid2,
      'storageDownloadDone of the corrupted dataset',
    );
    assert.equal(dl.data.success, false);
    assert.match(dl.data.error as string, /Failed to stream file/);
    assert.equal(existsSync(out), false, 'no partial file');
    for (const n of fresh) assert.equal(await b.value('exists', n), false, `B kept ${n}`);
    // B dropped A and refuses it now
    const count = b.events.filter((e) => e.event === 'storageConnect').length;
    await b.value('connect', peerA, `json:${JSON.stringify(addrsA)}`);
    await b.waitEvent(
      () => b.events.filter((e) => e.event === 'storageConnect').length > count,
      'storageConnect',
    );
    const refused = b.events.filter((e) => e.event === 'storageConnect').at(-1)!;
    assert.equal(refused.data.success, false);
    assert.match(refused.data.message as string, /refused: it sent bad data/);
  });
});
