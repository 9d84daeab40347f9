/** Runs the `logosctl` bin in a child process against a session folder, as an operator would. */
import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';

/** `logosctl` from source: node's arguments before the tool's own (`[...LOGOSCTL, ...args]`). */
export const LOGOSCTL = [...childExecArgv(), fileURLToPath(import.meta.resolve('@logos-ts/logosctl/main'))];
/** The environment of a run: no session or token from the caller's environment. */
export const CTL_ENV = { ...process.env, LOGOSCTL_CONFIG_DIR: '', LOGOSCTL_TOKEN: '' };

export interface CtlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `logosctl --config-dir <dir> <args>` in `cwd` (default the session folder), with `env` added; stdout
 * is not a TTY. `input`, when given, is written to its stdin, which is then closed.
 */
export function ctl(
  dir: string,
  args: readonly string[],
  cwd = dir,
  env: NodeJS.ProcessEnv = {},
  input?: string,
): Promise<CtlRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...LOGOSCTL, '--config-dir', dir, ...args],
      { cwd, timeout: 30_000, env: { ...CTL_ENV, ...env } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** A module event as `logosctl watch` prints it: the payload is the event's first argument. */
export interface WatchedEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** A running `logosctl watch MODULE [--event NAME]`: the events seen so far, and a way to wait for one. */
export interface Watcher {
  readonly events: WatchedEvent[];
  /** The lines as printed, one per event. */
  readonly lines: string[];
  /** The first event named `event` (seen already or to come) for which `match` holds. */
  next(
    event: string,
    match?: (data: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<WatchedEvent>;
  /** Ends the watcher with SIGTERM; its exit code. */
  stop(): Promise<number | null>;
}

/** Starts `logosctl --config-dir <dir> watch <module> [--event <event>]` in a child process. */
export function watch(dir: string, module: string, event?: string): Watcher {
  const child = spawn(
    process.execPath,
    [...LOGOSCTL, '--config-dir', dir, 'watch', module, ...(event === undefined ? [] : ['--event', event])],
    { env: CTL_ENV, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const events: WatchedEvent[] = [];
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.trim() === '') return;
    lines.push(line);
    // `{"data":{"arg0":<payload>},"event":…,…}`
    const e = JSON.parse(line) as { event: string; data: { arg0: Record<string, unknown> } };
    events.push({ event: e.event, data: e.data.arg0 });
    for (const w of waiters) w();
  });
  return {
    events,
    lines,
    next(name, match = () => true, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find((e) => e.event === name && match(e.data));
          if (found === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no ${module} event ${name} within ${timeoutMs} ms (seen: ${events.map((e) => e.event).join(', ')})`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
