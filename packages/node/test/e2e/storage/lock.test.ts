import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { StorageError } from '../../../src/storage/errors.ts';
import { LOCK_FILE, lockDataDir } from '../../../src/storage/lock.ts';
import { openStore } from '../../../src/storage/open.ts';
import { tempDir } from '../../utils/storage.ts';

const holder = new URL('./lock-holder.ts', import.meta.url).pathname;

function inUse(dir: string, pid: number) {
  return (e: unknown) => {
    assert.ok(e instanceof StorageError, String(e));
    assert.equal(e.code, 'STORAGE_DATA_DIR_LOCKED');
    assert.equal(e.message, `data directory ${dir} is in use by process ${pid}`);
    return true;
  };
}

/** Starts a lock holder on `dir` and resolves with its first output line. */
async function startHolder(dir: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [...childExecArgv(), holder, dir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  return { child, line };
}

/** A pid that surely belongs to no running process: one of a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  assert.ok(r.pid);
  return r.pid;
}

test('a second lock in the same process fails; release lets it be taken again', (t) => {
  const dir = tempDir(t);
  const lock = lockDataDir(dir);
  assert.match(readFileSync(join(dir, LOCK_FILE), 'utf8'), new RegExp(`^pid ${process.pid}\n`));
  assert.throws(() => lockDataDir(dir), inUse(dir, process.pid));
  lock.release();
  assert.equal(existsSync(join(dir, LOCK_FILE)), false);
  lock.release(); // idempotent
  const again = lockDataDir(dir);
  again.release();
});

test('a lock held by another process is refused, and taken over once that process is killed', async (t) => {
  const dir = tempDir(t);
  const { child, line } = await startHolder(dir);
  t.after(() => child.kill('SIGKILL'));
  assert.equal(line, `locked ${child.pid}`);
  assert.throws(() => lockDataDir(dir), inUse(dir, child.pid!));

  // A third process is refused too.
  const third = await startHolder(dir);
  assert.equal(third.line, `error data directory ${dir} is in use by process ${child.pid}`);

  child.kill('SIGKILL');
  await once(child, 'exit');
  const warnings: string[] = [];
  const lock = lockDataDir(dir, { onWarning: (m) => warnings.push(m) });
  assert.deepEqual(warnings, [
    `data directory ${dir}: took over the stale lock of process ${child.pid}, which is no longer running`,
  ]);
  assert.match(readFileSync(join(dir, LOCK_FILE), 'utf8'), new RegExp(`^pid ${process.pid}\n`));
  lock.release();
});

test('a child process takes over a stale lock left by a dead process', async (t) => {
  const dir = tempDir(t);
  const dead = deadPid();
  writeFileSync(join(dir, LOCK_FILE), `pid ${dead}\n`);
  const { child, line } = await startHolder(dir);
  t.after(() => child.kill('SIGKILL'));
  assert.equal(
    line,
    `warning data directory ${dir}: took over the stale lock of process ${dead}, which is no longer running`,
  );
  const lines = createInterface({ input: child.stdout! });
  const [second] = (await once(lines, 'line')) as [string];
  assert.equal(second, `locked ${child.pid}`);
  // Closing its stdin makes it release the lock.
  child.stdin!.end();
  await once(child, 'exit');
  assert.equal(existsSync(join(dir, LOCK_FILE)), false);
});

test('stale locks: a reused pid with another start time, and an unreadable lock file', {
  skip: !existsSync('/proc/self/stat'),
}, (t) => {
  const dir = tempDir(t);
  const file = join(dir, LOCK_FILE);
  // Our own pid but a different start time: a process of an earlier boot or container run.
  writeFileSync(file, `pid ${process.pid}\nstart 1\n`);
  const warnings: string[] = [];
  let lock = lockDataDir(dir, { onWarning: (m) => warnings.push(m) });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, new RegExp(`stale lock of process ${process.pid}`));
  lock.release();

  writeFileSync(file, 'garbage');
  lock = lockDataDir(dir, { onWarning: (m) => warnings.push(m) });
  assert.match(warnings[1]!, /unreadable stale lock file/);
  lock.release();
});

test('openStore creates the directory (mode 700), locks it, and unlocks on close', async (t) => {
  const dir = join(tempDir(t), 'nested', 'data');
  const store = await openStore(dir);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.ok(existsSync(join(dir, 'chain.mdb')));
  await assert.rejects(openStore(dir), inUse(dir, process.pid));
  await store.close();
  await store.close(); // idempotent
  assert.equal(existsSync(join(dir, LOCK_FILE)), false);
  const again = await openStore(dir);
  await again.close();
});
