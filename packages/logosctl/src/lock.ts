/**
 * The daemon's start lock (operator.md §1.3: one daemon per session; `daemon start --detach` must not race
 * another start): `daemon/daemon.lock`, holding the owner's pid, made by hard-linking a written temporary
 * file into place (fails when it exists; never seen empty).
 * A lock whose pid is no longer alive (a daemon killed without its stop) is taken over: removed when it
 * still names that pid, then created again exclusively, so of two simultaneous starts exactly one holds it.
 * inferred: the file name and takeover rule (the reference checks `state.json` only).
 */
import { readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { FileWriteError, writeFileAtomic } from '@logos-ts/shared/atomic-file';
import { AlreadyRunning } from './errors.ts';
import { processAlive } from './session.ts';

/** How long a lock without a readable pid counts as held (a start still writing it). */
const UNREADABLE_LOCK_MS = 5000;

export class DaemonLock {
  private held = true;

  private constructor(readonly path: string) {}

  /** Takes the lock of the session whose `daemon/` folder is `daemonDir`; throws `AlreadyRunning`. */
  static acquire(daemonDir: string, sessionDir: string): DaemonLock {
    const path = join(daemonDir, 'daemon.lock');
    for (let attempt = 0; attempt < 2; attempt++) {
      if (linkPidFile(path)) return new DaemonLock(path);
      const text = readText(path);
      const pid = Number.parseInt(text, 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid))
        throw new AlreadyRunning(`A daemon is already running (or starting) for ${sessionDir} (pid ${pid}).`);
      // no pid in it: a start that is writing it (another implementation's) holds it unless it is old
      if (!(Number.isInteger(pid) && pid > 0) && Date.now() - mtimeMs(path) < UNREADABLE_LOCK_MS)
        throw new AlreadyRunning(`Another daemon start for ${sessionDir} holds ${path}.`);
      // stale: remove it only if it still holds what was read, then try once more
      if (readText(path) === text) {
        try {
          unlinkSync(path);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
      }
    }
    throw new AlreadyRunning(`Another daemon start for ${sessionDir} holds ${path}.`);
  }

  /** Removes the lock if this process still holds it. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    if (readText(this.path).trim() === String(process.pid)) {
      try {
        unlinkSync(this.path);
      } catch {
        // already gone
      }
    }
  }
}

/**
 * Creates `path` holding this pid, or returns false when it exists. The pid is written to a temporary file
 * first and hard-linked into place, so the lock never exists empty (a reader never sees a half-made lock).
 */
function linkPidFile(path: string): boolean {
  try {
    writeFileAtomic(path, `${process.pid}\n`, true);
    return true;
  } catch (e) {
    if (e instanceof FileWriteError && e.code === 'FILE_EXISTS') return false;
    throw e;
  }
}

function mtimeMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
