/**
 * The module host survives a module's values JSON has no form for: members that are undefined are left
 * out (as JSON.stringify does), a result that cannot be written is a failed call, an event that cannot be
 * written is dropped, and a stray rejected promise is logged; the module keeps answering after each.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CallTimeout, ModuleProcess } from '../../src/module-process.ts';
import { dumpSorted } from '../../src/output.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctl-host-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('dumpSorted: undefined members left out, undefined items null, as JSON.stringify', () => {
  const v = { a: undefined, b: [1, undefined], c: { d: undefined } } as never;
  assert.equal(dumpSorted(v), '{"b":[1,null],"c":{}}');
  assert.equal(dumpSorted(undefined as never), 'null');
});

test('a result or event that is not JSON, or a stray rejection, does not end the module host', async () => {
  const file = join(dir, 'odd.mjs');
  writeFileSync(
    file,
    `export default async (ctx) => {
  const cyclic = {};
  cyclic.self = cyclic;
  return {
    name: 'odd', version: '1.0.0', dependencies: [], events: ['e'],
    methods: {
      holes: () => ({ a: undefined, b: 1 }),
      cyclic: () => cyclic,
      emitCyclic: () => { ctx.emit('e', cyclic); ctx.emit('e', { ok: true }); return true; },
      stray: () => { Promise.reject(new Error('nobody listens')); return true; },
      ping: () => 'pong',
    },
    close: async () => {},
  };
};
`,
  );
  const logs: string[] = [];
  const p = await ModuleProcess.start('odd', file, {
    cwd: dir,
    dataDir: join(dir, 'data'),
    onLog: (l) => logs.push(l),
  });
  let exited = false;
  p.on('exit', () => {
    exited = true;
  });
  const events: unknown[] = [];
  p.on('event', (_e: string, payload: unknown) => events.push(payload));
  try {
    assert.deepEqual(await p.call('holes', []), { b: 1 });
    assert.equal(await p.call('cyclic', []), null);
    assert.equal(await p.call('emitCyclic', []), true);
    assert.equal(await p.call('stray', []), true);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await p.call('ping', []), 'pong');
    assert.deepEqual(events, [{ ok: true }]);
    assert.equal(exited, false);
    assert.ok(logs.some((l) => l.includes('unhandled rejection')));
  } finally {
    await p.close();
  }
});

test('a call or a stats request the module does not answer in time gives up and drops its entry', async () => {
  const file = join(dir, 'stuck.mjs');
  writeFileSync(
    file,
    `export default async () => ({
  name: 'stuck', version: '1.0.0', dependencies: [], events: [],
  methods: {
    hang: () => new Promise(() => {}),
    block: () => { const end = Date.now() + 600; while (Date.now() < end); return true; },
    ping: () => 'pong',
  },
  close: async () => {},
});
`,
  );
  const p = await ModuleProcess.start('stuck', file, {
    cwd: dir,
    dataDir: join(dir, 'data2'),
    onLog: () => {},
    callTimeoutMs: 150,
    statsTimeoutMs: 150,
  });
  try {
    await assert.rejects(p.call('hang', []), (e) => e instanceof CallTimeout);
    const blocked = p.call('block', []).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await p.stats(), null, 'the busy host does not report in time');
    assert.ok((await blocked) instanceof CallTimeout);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(await p.call('ping', []), 'pong');
    assert.ok((await p.stats()) !== null);
  } finally {
    await p.close();
  }
});
