/**
 * `logosctl daemon start [--detach]` (operator.md §1.3): in the foreground the daemon runs in this
 * process until it stops (SIGINT, SIGTERM or `daemon stop`); with `--detach` the foreground daemon is
 * spawned in its own session, its early output in `daemon/startup.err`, and the command returns once
 * `state.json` names it (or prints why it ended).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { siblingModule } from '@logos-ts/shared/runtime';
import type { Command } from 'commander';
import { AlreadyRunning, Daemon } from '../daemon.ts';
import { HOST_EXEC_ARGV } from '../module-process.ts';
import type { Output } from '../output.ts';
import { processAlive, type Session } from '../session.ts';
import { type CtlContext, type Globals, sleep } from './context.ts';

const MAIN = fileURLToPath(siblingModule(import.meta.url, '../main'));
const DETACH_TIMEOUT_MS = 60_000;

export function addDaemonStartCommand(daemon: Command, c: CtlContext): void {
  daemon
    .command('start')
    .description('start the daemon (foreground unless --detach)')
    .option('-D, --detach', 'run in the background; return once it is up')
    .action(async (o: { detach?: boolean }) => {
      const { out, session, g } = c.ctx();
      c.exitCode = o.detach ? await startDetached(session, out, g) : await startForeground(session, out, g);
    });
}

async function startForeground(session: Session, out: Output, g: Globals): Promise<number> {
  let stopped!: () => void;
  const done = new Promise<void>((r) => {
    stopped = r;
  });
  let d: Daemon;
  try {
    d = await Daemon.start(session, () => stopped());
  } catch (e) {
    out.error(e instanceof AlreadyRunning ? 'ALREADY_RUNNING' : 'DAEMON_START_FAILED', (e as Error).message);
    return 1;
  }
  const stop = (): void => {
    void d.stop();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (!g.quiet && !out.json) process.stdout.write(`Daemon started (pid ${process.pid})\n`);
  await done;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  return 0;
}

async function startDetached(session: Session, out: Output, g: Globals): Promise<number> {
  session.ensureLayout();
  const existing = session.readState();
  if (existing !== undefined && processAlive(existing.pid)) {
    out.error(
      'ALREADY_RUNNING',
      `A daemon is already running for ${session.dir} (pid ${existing.pid}, instance ${existing.instance_id}).`,
    );
    return 1;
  }
  // each start writes its own early output, so two simultaneous starts do not mix theirs
  const errPath = `${session.startupErrPath}.${process.pid}`;
  const errFd = openSync(errPath, 'w', 0o600);
  const child = spawn(
    process.execPath,
    [...HOST_EXEC_ARGV, MAIN, '--config-dir', session.dir, '--human', 'daemon', 'start'],
    { cwd: process.cwd(), detached: true, stdio: ['ignore', errFd, errFd] },
  );
  closeSync(errFd);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + DETACH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const st = session.readState();
    if (st !== undefined && st.pid === child.pid) {
      child.unref();
      rmSync(errPath, { force: true });
      if (out.json) out.data({ status: 'ok', pid: st.pid, instance_id: st.instance_id, socket: st.socket });
      else if (!g.quiet)
        process.stdout.write(`Daemon started (pid ${st.pid})\nLogs: ${session.logsDir}/daemon.log\n`);
      return 0;
    }
    if (exited) {
      const early = readFileSync(errPath, 'utf8').trim();
      renameSync(errPath, session.startupErrPath);
      process.stderr.write(`${early || 'The daemon exited during start; see its log.'}\n`);
      return 1;
    }
    await sleep(50);
  }
  child.kill('SIGTERM');
  out.error(
    'DAEMON_START_FAILED',
    `The daemon did not publish its state within ${DETACH_TIMEOUT_MS / 1000} s.`,
  );
  return 1;
}
