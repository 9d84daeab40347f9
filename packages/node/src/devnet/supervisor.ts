/**
 * Runs the devnet's nodes as child processes of the node's own entry point (`src/main.ts start
 * --config node-<i>/user_config.yaml --deployment deployment.yaml`, as `npm start` runs it), streams
 * their log lines prefixed `[node-<i>]` (readable text on a terminal, as `npm start` prints, JSON lines
 * otherwise) and stops them all on SIGINT or SIGTERM: SIGTERM to each, SIGKILL to those still running
 * 10 s later (or at a second signal).
 *
 * It runs the nodes the run starts (`--only`, default all): the first of them starts first and the
 * others once it follows the chain (its API reports the `Following` phase): by default they name node 0
 * as their IBD peer, and a node answers chain-sync requests only when it follows (F: chain-service
 * `reject_chain_sync_event`). A node that exits is reported with its exit code; the others keep running
 * unless `stopOnExit` is set. Aborting `signal` stops the nodes as SIGINT does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { childExecArgv, siblingModule } from '@logos-ts/shared/runtime';
import { prettyLine } from '../node/logger.ts';
import type { PreparedDevnet } from './folder.ts';
import type { NodePlan } from './plan.ts';

/** How long a node has to stop after SIGTERM before it is killed. */
export const STOP_GRACE_MS = 10_000;
/** A second signal within this time is the same Ctrl-C delivered twice, not a request to kill. */
const REPEAT_SIGNAL_MS = 1000;
/** How long the other nodes wait for node 0 to follow the chain before they start anyway. */
export const FIRST_NODE_WAIT_MS = 120_000;

export interface SupervisorOptions {
  readonly devnet: PreparedDevnet;
  /** Readable log lines (else the nodes' JSON lines, prefixed). */
  readonly pretty: boolean;
  readonly color: boolean;
  /** Stop the whole devnet (exit 1) when a node exits on its own. */
  readonly stopOnExit: boolean;
  /** `start --circuits`. */
  readonly keysDir?: string;
  /** Passed to every node as `--log-level`. */
  readonly logLevel?: string;
  /** `start --insecure-test-proofs` (the deployment must be a test one). */
  readonly insecureTestProofs?: boolean;
  /** Stops every node when aborted (as a signal does). */
  readonly signal?: AbortSignal;
  readonly out?: NodeJS.WritableStream;
}

interface Child {
  readonly plan: NodePlan;
  readonly proc: ChildProcess;
  exited: boolean;
}

const MAIN = fileURLToPath(siblingModule(import.meta.url, '../main'));

/** The node program: the same entry point as `logos-node` (through tsx when running from source). */
function nodeArgv(): string[] {
  return [...childExecArgv(), MAIN];
}

const NODE_COLORS = ['36', '35', '33', '32', '34', '91', '92', '93', '94', '95', '96'];

/** Runs the devnet until a signal stops it; resolves with the exit code for the command. */
export function superviseDevnet(o: SupervisorOptions): Promise<number> {
  const out = o.out ?? process.stdout;
  const { configPaths, deploymentPath } = o.devnet;
  const plans = o.devnet.start.map((i) => o.devnet.plans[i]!);
  const children: Child[] = [];
  let stopping = false;
  let killTimer: NodeJS.Timeout | undefined;
  let done: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    done = resolve;
  });
  let exitCode = 0;

  const say = (msg: string) => out.write(`[devnet] ${msg}\n`);
  // Aborted before the nodes start (the folder was still being prepared): none is started.
  if (o.signal?.aborted) {
    say('stopped before the nodes started');
    return Promise.resolve(0);
  }
  const prefix = (p: NodePlan) => {
    const tag = `[${p.name}]`;
    return o.color ? `\x1b[${NODE_COLORS[p.index % NODE_COLORS.length]}m${tag}\x1b[0m` : tag;
  };

  const pipe = (p: NodePlan, stream: NodeJS.ReadableStream | null) => {
    if (stream === null) return;
    const head = prefix(p);
    createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      const text = o.pretty && line.startsWith('{') ? prettyLine(line, o.color).replace(/\n$/, '') : line;
      out.write(`${head} ${text}\n`);
    });
  };

  /** Finishes once every started node has exited and no other is still to start. */
  const maybeFinish = () => {
    if (!children.every((c) => c.exited)) return;
    if (children.length < plans.length && !stopping) return;
    if (killTimer !== undefined) clearTimeout(killTimer);
    removeSignals();
    if (stopping) say('all nodes stopped');
    else {
      say('every node has exited');
      exitCode = 1;
    }
    done(exitCode);
  };

  const start = (p: NodePlan): Child => {
    const args = [
      ...nodeArgv(),
      'start',
      '--config',
      configPaths[p.index]!,
      '--deployment',
      deploymentPath,
      '--log-format',
      'json',
      ...(o.keysDir ? ['--circuits', o.keysDir] : []),
      ...(o.logLevel ? ['--log-level', o.logLevel] : []),
      ...(o.insecureTestProofs ? ['--insecure-test-proofs'] : []),
    ];
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const child: Child = { plan: p, proc, exited: false };
    children.push(child);
    pipe(p, proc.stdout);
    pipe(p, proc.stderr);
    proc.on('error', (e) => {
      say(`${p.name} could not be started: ${e.message}`);
    });
    // Reported once its output is read to the end ('close'), or a second after it exits if a process it
    // started still holds its output open.
    proc.on('exit', (code, signal) => {
      let reported = false;
      const report = () => {
        if (reported) return;
        reported = true;
        child.exited = true;
        const how = signal !== null ? `by signal ${signal}` : `with code ${code}`;
        if (stopping) say(`${p.name} stopped (${how})`);
        else {
          say(`${p.name} exited ${how}`);
          if (o.stopOnExit) {
            exitCode = 1;
            stop(`${p.name} exited`);
          }
        }
        maybeFinish();
      };
      proc.once('close', report);
      setTimeout(report, 1000).unref();
    });
    return child;
  };

  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    say(`stopping every node (${reason})`);
    for (const c of children) if (!c.exited) c.proc.kill('SIGTERM');
    killTimer = setTimeout(
      () => kill(`still running ${STOP_GRACE_MS / 1000} s after SIGTERM`),
      STOP_GRACE_MS,
    );
    killTimer.unref();
    maybeFinish();
  };

  const kill = (why: string) => {
    for (const c of children) {
      if (!c.exited) {
        say(`${c.plan.name} ${why}: SIGKILL`);
        c.proc.kill('SIGKILL');
      }
    }
  };

  // One Ctrl-C can arrive twice (from the terminal to the process group, and relayed by a wrapper such
  // as npx or tsx): only a signal at least a second after the first kills the nodes.
  let stopAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) {
      stopAt = Date.now();
      stop(signal);
    } else if (Date.now() - stopAt >= REPEAT_SIGNAL_MS) kill(`${signal} again`);
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  // If this process ends any other way (an uncaught error), its nodes do not outlive it.
  const onExit = () => {
    for (const c of children) if (!c.exited) c.proc.kill('SIGKILL');
  };
  // A reader that goes away (`| head`) loses the remaining lines; the nodes keep running until a signal.
  const onOutError = () => {};
  const onAbort = () => onSignal('SIGINT');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  process.on('exit', onExit);
  out.on('error', onOutError);
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const removeSignals = () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    process.off('exit', onExit);
    out.off('error', onOutError);
    o.signal?.removeEventListener('abort', onAbort);
  };

  // inferred: node 0 first, the others once it follows (docs/design/fidelity.md "Multi-node devnet IBD peers and start order")
  void (async () => {
    if (plans.length === 0) return;
    const first = start(plans[0]!);
    if (plans.length > 1) {
      const ok = await waitFollowing(first, () => stopping);
      if (stopping) return;
      if (ok === 'following') say(`${first.plan.name} follows the chain; starting the other nodes`);
      else say(`${first.plan.name} ${ok}; starting the other nodes anyway`);
      for (const p of plans.slice(1)) start(p);
    }
  })();
  return finished;
}

/** Polls node 0's `/cryptarchia/info` until its phase is `Following`, it exits, or the wait ends. */
async function waitFollowing(c: Child, stopped: () => boolean): Promise<string> {
  const deadline = Date.now() + FIRST_NODE_WAIT_MS;
  const url = `http://127.0.0.1:${c.plan.apiPort}/cryptarchia/info`;
  while (Date.now() < deadline) {
    if (stopped()) return 'stopped';
    if (c.exited) return 'has exited';
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.ok && ((await r.json()) as { phase?: string }).phase === 'Following') return 'following';
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return `does not follow the chain after ${FIRST_NODE_WAIT_MS / 1000} s`;
}
