/**
 * The daemon's start lock (operator.md §1.3: one daemon per session; `daemon start --detach` must not race
 * another start): `daemon/daemon.lock`, created with `wx` (fails when it exists) holding the owner's pid.
 * A lock whose pid is no longer alive (a daemon killed without its stop) is taken over: removed when it
 * still names that pid, then created again exclusively, so of two simultaneous starts exactly one holds it.
 * inferred: the file name and takeover rule (the reference checks `state.json` only).
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { AlreadyRunning } from './errors.ts';
import { processAlive } from './session.ts';

export class DaemonLock {
  private held = true;

  private constructor(readonly path: string) {}

  /** Takes the lock of the session whose `daemon/` folder is `daemonDir`; throws `AlreadyRunning`. */
  static acquire(daemonDir: string, sessionDir: string): DaemonLock {
    const path = join(daemonDir, 'daemon.lock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        try {
          writeSync(fd, `${process.pid}\n`);
        } finally {
          closeSync(fd);
        }
        return new DaemonLock(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const text = readText(path);
      const pid = Number.parseInt(text, 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid))
        throw new AlreadyRunning(`A daemon is already running (or starting) for ${sessionDir} (pid ${pid}).`);
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

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
