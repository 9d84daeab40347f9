/**
 * A damaged chain file (cut short, or its meta pages zeroed) is refused with a message naming the file and
 * what to do, instead of lmdb faulting (SIGBUS/SIGSEGV) on it; the file is left as it was. The stores are
 * real lmdb files written through the chain store, opened in a child process (a crash kills only it).
 */
import assert from 'node:assert/strict';
import {
  closeSync,
  cpSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkLmdbFile } from '../../../src/storage/lmdb-file.ts';
import { openStore } from '../../../src/storage/open.ts';
import { exited, spawnTs } from './child.ts';
import { CrashModel } from './crash-model.ts';

function openInChild(dir: string) {
  return exited(spawnTs('test/e2e/storage/store-opener.ts', [dir]));
}

describe('a damaged chain.mdb', () => {
  let root: string;
  let source: string;

  after(() => rmSync(root, { recursive: true, force: true }));

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'logos-damaged-'));
    source = join(root, 'source');
    const store = await openStore(source);
    const model = CrashModel.load(store.chain, 7);
    for (let i = 0; i < 150; i++) await store.chain.commit(model.step());
    await store.close();
  });

  function copy(name: string): { dir: string; file: string } {
    const dir = join(root, name);
    cpSync(source, dir, { recursive: true });
    return { dir, file: join(dir, 'chain.mdb') };
  }

  test('the stopped node’s own file opens and passes the check', async () => {
    const state = checkLmdbFile(join(source, 'chain.mdb'));
    assert.equal(state.kind, 'valid');
    const r = await openInChild(copy('intact').dir);
    assert.equal(r.signal, null, r.stderr);
    assert.match(r.stdout, /^opened \d+/);
  });

  const cases: { name: string; damage(file: string): void; fault: RegExp }[] = [
    {
      name: 'truncated to half its size',
      damage: (file) => truncateSync(file, Math.floor(statSync(file).size / 2)),
      fault: /bytes long but its last committed transaction \(\d+\) uses \d+ bytes .*cut short/,
    },
    {
      name: 'its first 8 KiB zeroed',
      damage: (file) => {
        const fd = openSync(file, 'r+');
        writeSync(fd, new Uint8Array(8192), 0, 8192, 0);
        closeSync(fd);
      },
      fault: /meta page 0 is not an lmdb meta page/,
    },
    {
      name: 'its second meta page zeroed',
      damage: (file) => {
        const fd = openSync(file, 'r+');
        writeSync(fd, new Uint8Array(4096), 0, 4096, 4096);
        closeSync(fd);
      },
      fault: /meta page 1 is not an lmdb meta page/,
    },
    {
      name: 'cut to 100 bytes',
      damage: (file) => truncateSync(file, 100),
      fault: /100 bytes long, shorter than one lmdb meta page/,
    },
  ];

  for (const c of cases) {
    test(`${c.name}: refused with the file and what to do, the process does not crash`, async () => {
      const { dir, file } = copy(c.name.replace(/\W+/g, '-'));
      c.damage(file);
      const before = readFileSync(file);
      const r = await openInChild(dir);
      assert.equal(r.signal, null, `the store opener died of ${r.signal}: ${r.stderr}`);
      assert.equal(r.code, 3, r.stdout + r.stderr);
      assert.ok(r.stdout.startsWith('error STORAGE_DAMAGED '), r.stdout);
      assert.ok(r.stdout.includes(file), 'the message names the file');
      assert.match(r.stdout, c.fault);
      assert.match(r.stdout, /Restore the data folder .* from a backup, or remove the folder/);
      assert.deepEqual(readFileSync(file), before, 'the damaged file is left as it was');
      assert.throws(() => readFileSync(join(dir, 'LOCK')), /ENOENT/, 'the lock is released');
    });
  }
});
