/**
 * The storage module's calls in process (operator.md §3.2): clear failures before `init` and before
 * `start`, for missing, extra and mistyped arguments; `togglePrivateQueries` preconditions and its
 * previous-state value; chunked uploads (`uploadInit`/`uploadChunk`/`uploadFinalize`/`uploadCancel`);
 * `downloadChunks` as base64 events; `downloadManifest`, `fetch` of a local dataset, `remove`,
 * `importFiles`; `stop` then `start` again keeps the data; `destroy` allows a new `init`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Json } from '@logos-ts/shared/json';
import type { LogosModule, StdLogosResult } from '@logos-ts/shared/module-api';
import pino from 'pino';
import { cidOfDigest, cidText, ROOT_CODEC } from '../../src/cid.ts';
import factory from '../../src/index.ts';
import { PRESET_BOOTSTRAP } from '../../src/presets.ts';

const dir = mkdtempSync(join(tmpdir(), 'storage-module-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('storage module calls', () => {
  const events: { event: string; payload: Record<string, Json> }[] = [];
  let m: LogosModule;
  const call = async (method: string, ...args: Json[]) =>
    (await m.methods[method]!(...args)) as StdLogosResult;
  const value = async (method: string, ...args: Json[]) => {
    const r = await call(method, ...args);
    assert.equal(r.error, null, `${method}: ${r.error}`);
    return r.value;
  };
  const waitEvent = async (pred: (e: (typeof events)[number]) => boolean) => {
    for (let i = 0; i < 200; i++) {
      const e = events.find(pred);
      if (e) return e;
      await sleep(25);
    }
    throw new Error(`no event; got ${JSON.stringify(events.slice(-3))}`);
  };
  const config = JSON.stringify({
    'data-dir': 'data',
    'listen-ip': '127.0.0.1',
    'disc-port': 0,
    'no-bootstrap-node': true,
    'mix-enabled': true,
  });

  before(async () => {
    m = await factory({
      cwd: dir,
      dataDir: join(dir, 'module'),
      logger: pino({ level: 'silent' }),
      emit: (event, payload) => void events.push({ event, payload: payload as Record<string, Json> }),
    });
  });
  after(async () => {
    await m.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('before init every call fails with the reference text; a bad config changes nothing', async () => {
    for (const method of ['version', 'peerId', 'space', 'start', 'stop', 'togglePrivateQueries'])
      assert.equal((await call(method)).error, 'Storage context not initialized.', method);
    assert.match((await call('init', '{"data-dir":')).error!, /Invalid configuration: not valid JSON/);
    assert.match((await call('init', 42)).error!, /Invalid configuration: expected a JSON object/);
    assert.match((await call('init', '{}', 'extra')).error!, /init takes at most 1 argument, got 2/);
    assert.equal((await call('version')).error, 'Storage context not initialized.');
  });

  test('after init, before start: identity works, node calls fail clearly', async () => {
    assert.equal(await m.methods.init!(config), true);
    assert.match((await value('peerId')) as string, /^16Uiu2/);
    assert.equal(await value('dataDir'), join(dir, 'data'));
    assert.equal(typeof (await value('version')), 'string');
    for (const method of ['spr', 'debug', 'space', 'manifests', 'uploadInit'])
      assert.equal((await call(method)).error, 'The storage node is not started.', method);
  });

  test('togglePrivateQueries: needs a dht-mix-proxy to enable, returns the previous state', async () => {
    assert.match((await call('togglePrivateQueries', true)).error!, /dht-mix-proxy/);
    assert.equal(await value('togglePrivateQueries', false), false);
    assert.match((await call('togglePrivateQueries', 'yes')).error!, /true or false/);
    assert.match((await call('togglePrivateQueries')).error!, /true or false/);
  });

  test('start, then chunked upload, finalize, and the chunk download as base64 events', async () => {
    assert.equal(await m.methods.start!(), true);
    await waitEvent((e) => e.event === 'storageStart');
    assert.match((await call('start')).error!, /already started/);
    assert.match((await call('updateLogLevel', 'LOUD')).error!, /invalid value for log level/);
    assert.equal((await call('updateLogLevel', 'debug')).success, true);

    const session = (await value('uploadInit', 'notes.txt', 4)) as string;
    await value('uploadChunk', session, 'hello ');
    await value('uploadChunk', session, 'storage');
    const cid = (await value('uploadFinalize', session)) as string;
    assert.match(cid, /^zDvZ/);
    assert.match((await call('uploadFinalize', session)).error!, /session not found/);
    const progress = events.filter(
      (e) => e.event === 'storageUploadProgress' && e.payload.sessionId === session,
    );
    assert.deepEqual(
      progress.map((e) => e.payload.bytes),
      [6, 7],
    );
    const manifest = (await value('downloadManifest', cid)) as Record<string, Json>;
    assert.deepEqual(
      { ...manifest, treeCid: null },
      {
        manifestVersion: 1,
        treeCid: null,
        datasetSize: 13,
        blockSize: 4,
        filename: 'notes.txt',
        mimetype: 'text/plain',
      },
    );

    assert.equal(await value('downloadChunks', cid, true, 5), cid);
    await waitEvent((e) => e.event === 'storageDownloadDone' && e.payload.sessionId === cid);
    const chunks = events
      .filter((e) => e.event === 'storageDownloadProgress' && e.payload.sessionId === cid)
      .map((e) => Buffer.from(e.payload.chunk as string, 'base64').toString());
    assert.equal(chunks.join(''), 'hello storage');
    assert.ok(chunks.every((c) => c.length <= 5));

    const cancelled = (await value('uploadInit', '', 0)) as string;
    await value('uploadChunk', cancelled, 'x');
    await value('uploadCancel', cancelled);
    assert.match((await call('uploadChunk', cancelled, 'y')).error!, /session is not found/);
    const empty = (await value('uploadInit', 'e.bin', 0)) as string;
    assert.equal(
      (await call('uploadFinalize', empty)).error,
      'Failed to finalize the upload session: Empty leaves',
    );
  });

  test('bad arguments fail and change nothing', async () => {
    const space = await value('space');
    const bad: [string, Json[], RegExp][] = [
      ['uploadUrl', [], /filePath/],
      ['uploadUrl', [join(dir, 'missing.bin')], /^File not found: /],
      ['uploadUrl', [dir], /^File not found: /],
      ['uploadUrl', ['x', 0], /chunkSize/],
      ['uploadUrl', ['x', 65536, 'extra'], /at most 2 arguments/],
      ['downloadToUrl', ['zDvZnope', 'x', true, 65536], /cannot parse cid/],
      [
        'downloadToUrl',
        ['zDvZRwzkzrrYB6sS1rRpRLt4gBhc1pWoyTSjkfszfmj1seaYYLCZ', 'x', 'maybe', 65536],
        /true or false/,
      ],
      [
        'downloadToUrl',
        ['zDvZRwzkzrrYB6sS1rRpRLt4gBhc1pWoyTSjkfszfmj1seaYYLCZ', 'x', true, 65536],
        /Failed to start download/,
      ],
      ['exists', ['nope'], /Failed to check the data existence: cannot parse cid: nope/],
      ['remove', ['nope'], /Failed to delete the data: cannot parse cid: nope/],
      [
        'remove',
        [cidText(cidOfDigest(ROOT_CODEC, new Uint8Array(32)))],
        /Failed to delete the data: CID .* is a dataset tree CID/,
      ],
      [
        'downloadChunks',
        [cidText(cidOfDigest(ROOT_CODEC, new Uint8Array(32))), false, 65536],
        /dataset tree CID/,
      ],
      ['fetch', ['nope'], /Failed to fetch the data: cannot parse cid: nope/],
      ['connect', ['not-a-peer'], /Invalid peer id/],
      ['connect', ['16Uiu2HAm3xPbYz2zsq5XVGDCMqKhhNXZWyYV6WLVv3yzzUiRJWnW', 42], /peerAddresses/],
      ['importFiles', [join(dir, 'nowhere')], /Not a directory/],
    ];
    for (const [method, args, re] of bad) {
      const r = await call(method, ...args);
      assert.equal(r.success, false, method);
      assert.match(r.error!, re, `${method} ${JSON.stringify(args)}`);
    }
    assert.deepEqual(await value('space'), space);
  });

  test('importFiles uploads every file of a folder; remove deletes a dataset; exists follows', async () => {
    const folder = join(dir, 'imports');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.json'), '{"a":1}');
    writeFileSync(join(folder, 'b.txt'), 'b'.repeat(70_000));
    const sessions = (await value('importFiles', folder)) as string[];
    assert.equal(sessions.length, 2);
    for (const s of sessions)
      await waitEvent((e) => e.event === 'storageUploadDone' && e.payload.sessionId === s);
    const done = events.filter(
      (e) => e.event === 'storageUploadDone' && sessions.includes(e.payload.sessionId as string),
    );
    assert.ok(done.every((e) => e.payload.success === true));
    const names = ((await value('manifests')) as { filename: string }[]).map((x) => x.filename).sort();
    assert.deepEqual(names, ['a.json', 'b.txt', 'notes.txt']);
    const cid = done[0]!.payload.cid as string;
    assert.equal(await value('exists', cid), true);
    assert.equal((await value('fetch', cid)) ?? null, null);
    const before = (await value('space')) as { totalBlocks: number };
    await value('remove', cid);
    assert.equal(await value('exists', cid), false);
    assert.ok(((await value('space')) as { totalBlocks: number }).totalBlocks < before.totalBlocks);
  });

  test('stop emits storageStop and node calls fail; start again keeps the data; destroy allows a new init', async () => {
    const count = ((await value('manifests')) as unknown[]).length;
    await value('stop');
    await waitEvent((e) => e.event === 'storageStop');
    assert.equal((await call('manifests')).error, 'The storage node is not started.');
    const starts = events.filter((e) => e.event === 'storageStart').length;
    assert.equal(await m.methods.start!(), true);
    await waitEvent(() => events.filter((e) => e.event === 'storageStart').length > starts);
    assert.equal(((await value('manifests')) as unknown[]).length, count);
    await value('destroy');
    assert.equal((await call('peerId')).error, 'Storage context not initialized.');
    const withProxy = JSON.stringify({
      'data-dir': 'data',
      'listen-ip': '127.0.0.1',
      'disc-port': 0,
      'no-bootstrap-node': true,
      'mix-enabled': true,
      'dht-mix-proxy': [PRESET_BOOTSTRAP['logos.test']![0]],
    });
    assert.equal(await m.methods.init!(withProxy), true);
    assert.equal(await value('togglePrivateQueries', true), false);
    assert.equal(await value('togglePrivateQueries', true), true);
    assert.equal(await value('togglePrivateQueries', false), true);
  });
});

describe('storage module start failure', () => {
  test('a listen port in use: start answers true, then storageStart reports the failure; a later start works', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const { port } = busy.address() as { port: number };
    const events: { event: string; payload: Record<string, Json> }[] = [];
    const cwd = mkdtempSync(join(tmpdir(), 'storage-busy-'));
    const m = await factory({
      cwd,
      dataDir: join(cwd, 'module'),
      logger: pino({ level: 'silent' }),
      emit: (event, payload) => void events.push({ event, payload: payload as Record<string, Json> }),
    });
    try {
      const cfg = {
        'data-dir': 'd',
        'listen-ip': '127.0.0.1',
        'listen-port': port,
        'disc-port': 0,
        'no-bootstrap-node': true,
      };
      assert.equal(await m.methods.init!(JSON.stringify(cfg)), true);
      assert.equal(await m.methods.start!(), true);
      for (let i = 0; i < 100 && events.length === 0; i++) await sleep(20);
      assert.equal(events[0]?.event, 'storageStart');
      assert.equal(events[0]?.payload.success, false);
      assert.match(events[0]?.payload.message as string, /EADDRINUSE|address already in use/i);
      await new Promise((r) => busy.close(r));
      assert.equal(await m.methods.start!(), true);
      for (let i = 0; i < 100 && events.length < 2; i++) await sleep(20);
      assert.deepEqual(events[1], { event: 'storageStart', payload: { success: true, message: '' } });
    } finally {
      busy.close();
      await m.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
