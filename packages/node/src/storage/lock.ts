/**
 * An exclusive lock on a data directory: the file `LOCK`, created atomically (`O_CREAT | O_EXCL`), holding
 * the owner's pid and (on Linux) its start time. A second node on the same directory fails with
 * "data directory X is in use by process N". A lock left by a dead process is taken over, with a warning.
 *
 * The start time tells a live owner from an unrelated process that got the same pid later (containers
 * restart with the same small pids); without /proc only the pid is checked.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StorageError } from './errors.ts';

export const LOCK_FILE = 'LOCK';

export interface DataDirLock {
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

export interface LockOptions {
  /** Called when a stale lock of a dead process is taken over. Defaults to `console.warn`. */
  onWarning?: (message: string) => void;
}

interface Owner {
  pid: number;
  /** Process start time in clock ticks since boot (field 22 of /proc/PID/stat), if known. */
  start?: string;
}

/** Start time of a running process; undefined if it does not exist, is a zombie, or /proc is missing. */
function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // A zombie (killed, not yet reaped) holds nothing any more.
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    return fields[19]; // field 22 overall
  } catch {
    return undefined;
  }
}

const hasProc = (() => {
  try {
    return fs.statSync('/proc/self/stat').isFile();
  } catch {
    return false;
  }
})();

function parseOwner(text: string): Owner | undefined {
  const m = /^pid (\d+)\n(?:start (\d+)\n)?/.exec(text);
  if (m === null) return undefined;
  const owner: Owner = { pid: Number(m[1]) };
  if (m[2] !== undefined) owner.start = m[2];
  return owner;
}

function formatOwner(owner: Owner): string {
  return `pid ${owner.pid}\n${owner.start !== undefined ? `start ${owner.start}\n` : ''}`;
}

function isAlive(owner: Owner): boolean {
  if (hasProc) {
    const start = processStart(owner.pid);
    if (start === undefined) return false;
    return owner.start === undefined || owner.start === start;
  }
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readOwner(file: string): { owner: Owner | undefined; ino: number } | undefined {
  // A lock file is written right after its atomic creation: give a just-created empty file a moment.
  for (let attempt = 0; ; attempt++) {
    let text: string;
    let ino: number;
    try {
      const fd = fs.openSync(file, 'r');
      try {
        ino = fs.fstatSync(fd).ino;
        text = fs.readFileSync(fd, 'utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    const owner = parseOwner(text);
    if (owner !== undefined || attempt >= 10) return { owner, ino };
    sleepMs(20);
  }
}

export function lockDataDir(dir: string, options: LockOptions = {}): DataDirLock {
  const warn = options.onWarning ?? ((m: string) => console.warn(m));
  const file = path.join(dir, LOCK_FILE);
  const me: Owner = { pid: process.pid };
  const myStart = processStart(process.pid);
  if (myStart !== undefined) me.start = myStart;
  const content = formatOwner(me);

  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const found = readOwner(file);
      if (found === undefined) continue; // released meanwhile: try again
      const { owner, ino } = found;
      if (owner !== undefined && isAlive(owner))
        throw new StorageError(
          'STORAGE_DATA_DIR_LOCKED',
          `data directory ${dir} is in use by process ${owner.pid}`,
        );
      takeOver(file, ino);
      warn(
        owner !== undefined
          ? `data directory ${dir}: took over the stale lock of process ${owner.pid}, which is no longer running`
          : `data directory ${dir}: took over an unreadable stale lock file`,
      );
      continue;
    }
    try {
      fs.writeSync(fd, content);
      fs.fsyncSync(fd);
    } catch (e) {
      // An empty lock left behind would be taken for a stale one at the next start: remove it.
      fs.closeSync(fd);
      fs.rmSync(file, { force: true });
      if ((e as NodeJS.ErrnoException).code === 'ENOSPC')
        throw new StorageError(
          'STORAGE_DISK_FULL',
          `no space left to write the lock file ${file}: free space on that disk and start the node again`,
          { cause: e },
        );
      throw e;
    }
    fs.closeSync(fd);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(file, 'utf8') === content) fs.unlinkSync(file);
        } catch {
          // already gone
        }
      },
    };
  }
  throw new StorageError('STORAGE_DATA_DIR_LOCKED', `data directory ${dir}: could not take the lock ${file}`);
}

/**
 * Removes the stale lock file with inode `ino`. It is first renamed to a name of our own, which is atomic:
 * if another process replaced the stale file meanwhile, the file we moved is not the stale one and is
 * linked back (link fails rather than overwrite, should yet another lock have appeared).
 */
function takeOver(file: string, ino: number): void {
  const aside = `${file}.stale.${process.pid}`;
  try {
    fs.renameSync(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (fs.statSync(aside).ino !== ino) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // a newer lock is in place; ours to retry against
    }
  }
  fs.unlinkSync(aside);
}
