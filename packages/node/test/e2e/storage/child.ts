/** Child processes of the storage tests: run one to its end, or wait for a line of its output. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript file of the project (path relative to the root) with tsx in a child process. */
export function spawnTs(file: string, args: readonly string[], cwd = ROOT): ChildProcess {
  return spawn(process.execPath, [...childExecArgv(), join(ROOT, file), ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Collects a child's output until it exits. */
export function exited(p: ChildProcess): Promise<Exit> {
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  p.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) =>
    p.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

/** Resolves once the child's stdout has a line matching `re`. */
export function waitForLine(p: ChildProcess, re: RegExp, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${re} within ${ms} ms: ${buf.slice(-800)}`)),
      ms,
    );
    const onData = (d: Buffer) => {
      buf += d.toString();
      if (re.test(buf)) {
        clearTimeout(timer);
        p.stdout!.off('data', onData);
        resolve();
      }
    };
    p.stdout!.on('data', onData);
  });
}
