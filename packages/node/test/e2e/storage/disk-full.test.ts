/**
 * A full disk: a commit that runs out of space rejects with a STORAGE_DISK_FULL error naming the file, the
 * free space and what the write needs, with no unhandled rejection; the node stops cleanly (its "stopped"
 * line, exit code 1, the lock released) and, once space is freed, a restart continues the same chain.
 * The disk is a small tmpfs mounted for the test (root only; skipped where mounting is not permitted).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { StorageError } from '../../../src/storage/errors.ts';
import { LmdbKv } from '../../../src/storage/kv.ts';
import { openStore } from '../../../src/storage/open.ts';
import { fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { spawnCli } from '../../utils/cli-process.ts';
import { checkInvariants } from '../../utils/storage.ts';
import { exited, waitForLine } from './child.ts';

/** A temp folder with a tmpfs of `size` mounted at `<folder>/disk`, or undefined if mounting is refused. */
function smallDisk(
  t: { after(fn: () => void): void },
  size: string,
): { root: string; disk: string } | undefined {
  const root = mkdtempSync(join(tmpdir(), 'logos-diskfull-'));
  const disk = join(root, 'disk');
  mkdirSync(disk);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=700`, 'tmpfs', disk], { stdio: 'ignore' });
  } catch {
    rmSync(root, { recursive: true, force: true });
    return undefined;
  }
  t.after(() => {
    // Lazy: a store the test left open must not keep the disk mounted.
    execFileSync('umount', ['-l', disk], { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  });
  return { root, disk };
}

function remount(disk: string, size: string): void {
  execFileSync('mount', ['-o', `remount,size=${size}`, disk], { stdio: 'ignore' });
}

test('a commit on a full disk rejects with STORAGE_DISK_FULL and no unhandled rejection', async (t) => {
  const mounted = smallDisk(t, '512k');
  if (mounted === undefined) return t.skip('mounting a tmpfs is not permitted here');
  const file = join(mounted.disk, 'chain.mdb');
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  t.after(() => process.off('unhandledRejection', onUnhandled));
  const reported: StorageError[] = [];
  const kv = LmdbKv.open(file, { onDiskFull: (e) => reported.push(e) });

  let failure: unknown;
  let written = 0;
  for (let i = 0; i < 400 && failure === undefined; i++) {
    try {
      await kv.transaction((tx) => tx.put(1, Uint8Array.of(i >> 8, i & 0xff), new Uint8Array(3000).fill(i)));
      written++;
    } catch (e) {
      failure = e;
    }
  }
  assert.ok(failure instanceof StorageError, `a StorageError, got ${String(failure)}`);
  assert.equal(failure.code, 'STORAGE_DISK_FULL');
  assert.ok(failure.message.startsWith(`no space left to write ${file} (`), failure.message);
  assert.match(
    failure.message,
    /\d+ bytes are free on the file system of .*disk, and this write alone needs at least \d+ bytes/,
  );
  assert.match(failure.message, /Nothing of this write was stored/);
  assert.deepEqual(reported, [failure], 'onDiskFull saw the same error once');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(unhandled, [], 'no unhandled rejection');

  // What was committed is intact; the failed write left nothing.
  assert.ok(written > 10);
  assert.deepEqual(kv.get(1, Uint8Array.of(0, 5)), new Uint8Array(3000).fill(5));
  assert.equal(kv.get(1, Uint8Array.of(written >> 8, written & 0xff)), undefined);

  // Space freed: writes go on.
  remount(mounted.disk, '4m');
  await kv.transaction((tx) => tx.put(1, Uint8Array.of(9, 9), Uint8Array.of(1)));
  assert.deepEqual(kv.get(1, Uint8Array.of(9, 9)), Uint8Array.of(1));
  await kv.close();
});

test('the node stops cleanly on a full disk and continues after space is freed', async (t) => {
  const mounted = smallDisk(t, '4m');
  if (mounted === undefined) return t.skip('mounting a tmpfs is not permitted here');
  const { root, disk } = mounted;
  writeFileSync(join(root, 'fast.yaml'), fastDeploymentYaml(50, 3));
  // The node runs in `disk`: its data folder is disk/.devnet/db.
  const args = ['start', '--deployment', join(root, 'fast.yaml'), '--insecure-test-proofs'];
  const db = join(disk, '.devnet', 'db');

  const first = spawnCli(args, disk);
  const firstExit = exited(first);
  await waitForLine(first, /"block produced"/, 60_000);
  // Leave the node a few pages: it fills them and runs out of space.
  const free = statfsSync(disk);
  const filler = join(disk, 'filler');
  writeFileSync(filler, new Uint8Array(free.bavail * free.bsize - 48 * 1024));
  const r1 = await Promise.race([
    firstExit,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the node did not stop')), 90_000).unref(),
    ),
  ]);
  assert.equal(r1.signal, null, r1.stderr);
  assert.equal(r1.code, 1, `exit code: ${r1.stdout.slice(-2000)}${r1.stderr}`);
  assert.match(r1.stdout, /"msg":"storage is out of space; the node stops"/);
  assert.ok(r1.stdout.includes(`no space left to write ${join(db, 'chain.mdb')}`), r1.stdout.slice(-3000));
  assert.match(r1.stdout, /"msg":"stopped"/);
  assert.doesNotMatch(r1.stderr, /Unhandled|triggerUncaughtException|ERR_UNHANDLED_REJECTION/);
  assert.equal(existsSync(join(db, 'LOCK')), false, 'the lock is released');
  const heights = [...r1.stdout.matchAll(/"height":(\d+)[^\n]*"block produced"/g)].map((m) => Number(m[1]));
  const lastHeight = Math.max(...heights);

  // Space freed: the node restarts on the same chain and goes on producing.
  rmSync(filler);
  const second = spawnCli(args, disk);
  const secondExit = exited(second);
  await waitForLine(second, /"chain restored from storage"/, 60_000);
  await waitForLine(
    second,
    new RegExp(`"height":(${lastHeight + 1}|[1-9]\\d{${String(lastHeight).length}})[,}]`),
    60_000,
  );
  second.kill('SIGTERM');
  const r2 = await secondExit;
  assert.equal(r2.code, 0, r2.stderr);
  const store = await openStore(db);
  try {
    const s = checkInvariants(store.kv, store.chain);
    assert.ok(s.top > BigInt(lastHeight), `the chain went on from height ${lastHeight} to ${s.top}`);
  } finally {
    await store.close();
  }
});
