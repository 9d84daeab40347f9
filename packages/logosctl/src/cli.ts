/**
 * `logosctl`, the control tool's command line (operator.md §1.3-§1.6): daemon start/stop/status, module
 * ls/show/load/unload, call and watch, packages, catalogs, keys and tokens (cli-packages.ts), with the global
 * flags `-j/--json`, `--human`, `-q`, `--config-dir` and `--version` (before any command: the tool's
 * version; after `package install` and the like it pins a package version). Output is JSON when stdout is not a TTY (or with `--json`), human otherwise. Exit
 * codes: 0 success, 1 general error (and `status` without a daemon), 2 no daemon, 3 module error,
 * 4 method error.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Json, JsonFloat } from '@logos-ts/shared/json';
import { siblingModule } from '@logos-ts/shared/runtime';
import { Command } from 'commander';
import { InvalidArgs, typeArgs } from './args.ts';
import { addPackageCommands } from './cli-packages.ts';
import { Client, CtlError, callTimeoutMs } from './client.ts';
import { AlreadyRunning, Daemon } from './daemon.ts';
import { checkDaemonConfig, dumpConfig, InvalidConfig, readDocument } from './daemon-config.ts';
import { HOST_EXEC_ARGV } from './module-process.ts';
import { dumpPretty, dumpSorted, formatUptime, formatVersion, Output } from './output.ts';
import { readLines } from './rpc.ts';
import { Session, sessionDir, writePrivate } from './session.ts';
import { versionText } from './version.ts';

const MAIN = fileURLToPath(siblingModule(import.meta.url, 'main'));
const DETACH_TIMEOUT_MS = 60_000;

interface Globals {
  json?: boolean;
  human?: boolean;
  quiet?: boolean;
  configDir?: string;
}

type Reply = { [k: string]: Json };

/** Exit code of an error reply, by its code (call_command.cpp, load_module_command.cpp @1a4f56fe). */
function exitCodeOf(code: string, forCall: boolean): number {
  if (code === 'NO_DAEMON') return 2;
  if (code.startsWith('MODULE_')) return 3;
  if (code === 'METHOD_FAILED' || forCall) return 4;
  return 1;
}

/** Global flags that come before a command (the second group takes a value). */
const GLOBAL_FLAGS = new Set(['-j', '--json', '--no-json', '--human', '-q', '--quiet', '-v', '--verbose']);
const GLOBAL_WITH_VALUE = new Set(['--config-dir']);

/** Whether `--version` comes before any command (the tool's version, not a package pin). */
function asksToolVersion(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--version') return true;
    if (GLOBAL_FLAGS.has(a) || a.startsWith('--config-dir=')) continue;
    if (GLOBAL_WITH_VALUE.has(a)) {
      i++;
      continue;
    }
    return false;
  }
  return false;
}

/** Runs the command line; resolves with the exit code. */
export async function runCtl(argv: readonly string[]): Promise<number> {
  if (asksToolVersion(argv)) {
    process.stdout.write(`${versionText()}\n`);
    return 0;
  }
  let exitCode = 0;
  const program = new Command('logosctl');
  program
    .description('Control tool for a Logos node: a daemon, its modules, and calls to them')
    .option('-j, --json', 'JSON output')
    .option('--no-json', 'human-readable output (as --human)')
    .option('--human', 'human-readable output')
    .option('-q, --quiet', 'print nothing on success')
    .option('--config-dir <dir>', 'session directory (env LOGOSCTL_CONFIG_DIR, default ~/.logosctl)')
    .addHelpText('after', '\n  --version           print the version (before any command)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });

  const ctx = (): { g: Globals; out: Output; session: Session; client: Client } => {
    const g = program.opts<Globals>();
    const session = new Session(sessionDir(g.configDir));
    return { g, out: Output.choose(g), session, client: new Client(session) };
  };
  const fail = (out: Output, code: string, message: string, extra: Reply = {}, forCall = false): void => {
    out.error(code, message, extra);
    exitCode = exitCodeOf(code, forCall);
  };
  /** Sends a request; an error reply is printed and null returned. */
  const ask = async (
    cmd: string,
    params: Reply = {},
    forCall = false,
    deadline?: { ms: number; message: string },
  ): Promise<Reply | null> => {
    const { out, client } = ctx();
    const r = await client.send(cmd, params, deadline);
    if (r.status === 'error') {
      const { status: _s, code, message, ...extra } = r;
      fail(out, String(code), String(message), extra, forCall);
      return null;
    }
    return r;
  };
  const say = (text: string): void => {
    const { g } = ctx();
    if (!g.quiet) process.stdout.write(`${text}\n`);
  };

  const daemon = program.command('daemon').description('start, stop and inspect the daemon');
  daemon
    .command('start')
    .description('start the daemon (foreground unless --detach)')
    .option('-D, --detach', 'run in the background; return once it is up')
    .action(async (o: { detach?: boolean }) => {
      const { out, session, g } = ctx();
      exitCode = o.detach ? await startDetached(session, out, g) : await startForeground(session, out, g);
    });
  const config = daemon.command('config').description('install or print the daemon configuration');
  config
    .command('set <file>')
    .description('install/replace daemon/config.yaml from FILE, @FILE or - (stdin); checked before writing')
    .action((file: string) => {
      const { out, session } = ctx();
      let doc: Record<string, unknown>;
      try {
        doc = checkDaemonConfig(readDocument(file, process.cwd()));
      } catch (e) {
        fail(out, e instanceof InvalidConfig ? 'INVALID_CONFIG' : 'IO_ERROR', (e as Error).message);
        return;
      }
      session.ensureLayout();
      writePrivate(session.configPath, dumpConfig(doc));
      if (out.json) out.data({ status: 'ok', path: session.configPath });
      else say(`Wrote ${session.configPath}\nRestart the daemon for it to take effect.`);
    });
  config
    .command('show')
    .description('print daemon/config.yaml')
    .action(() => {
      const { out, session } = ctx();
      let doc: Record<string, unknown>;
      try {
        doc = session.readConfig();
      } catch (e) {
        fail(out, 'INVALID_CONFIG', (e as Error).message);
        return;
      }
      if (out.json) out.data(JSON.parse(JSON.stringify(doc)) as Json);
      else process.stdout.write(dumpConfig(doc));
    });
  const stopCmd = async (): Promise<void> => {
    const { out } = ctx();
    const r = await ask('stop');
    if (r === null) return;
    const { session } = ctx();
    // wait for the daemon to finish its shutdown (modules unloaded, state.json removed)
    for (let i = 0; i < 300 && session.readState() !== undefined; i++) await sleep(100);
    if (out.json) out.data(r);
    else say(`Daemon shutdown initiated: ${r.message}`);
  };
  const statusCmd = async (): Promise<void> => {
    const { out, client } = ctx();
    let r: Reply;
    try {
      r = await client.send('status');
    } catch (e) {
      if (!(e instanceof CtlError) || e.code !== 'NO_DAEMON') throw e;
      r = { daemon: { status: 'not_running', reason: e.message } };
      exitCode = 1;
    }
    if (out.json) out.data(r);
    else printStatus(r);
  };
  daemon.command('stop').description('graceful shutdown').action(stopCmd);
  daemon.command('status').description('health, uptime, module summary').action(statusCmd);
  program.command('stop').description('shorthand for daemon stop').action(stopCmd);
  program.command('status').description('shorthand for daemon status').action(statusCmd);

  const mod = program.command('module').description('list, inspect, load and unload modules');
  mod
    .command('ls')
    .alias('list')
    .description('known modules (or loaded ones)')
    .option('--loaded', 'only loaded modules')
    .action(async (o: { loaded?: boolean }) => {
      const { out } = ctx();
      const r = await ask('ls', { loaded: o.loaded === true });
      if (r === null) return;
      const list = r.modules as Reply[];
      if (out.json) out.data(list);
      else if (!ctx().g.quiet) printModuleList(list);
    });
  mod
    .command('show <name>')
    .alias('info')
    .description('methods, events, dependencies, crash detail')
    .action(async (name: string) => {
      const { out } = ctx();
      const r = await ask('show', { name });
      if (r === null) return;
      if (out.json) out.data(r);
      else say(dumpPretty(r));
    });
  mod
    .command('load <name>')
    .description('load a module and its dependencies')
    .action(async (name: string) => {
      const { out } = ctx();
      const r = await ask('load', { name });
      if (r === null) return;
      if (out.json) out.data(r);
      else {
        say(`Loaded module: ${name} (${formatVersion(r.version as string)})`);
        const deps = r.dependencies_loaded as string[];
        if (deps.length > 0) say(`  Dependencies loaded: ${deps.join(', ')}`);
      }
    });
  mod
    .command('unload <name>')
    .description('unload a module and the modules depending on it')
    .option('--no-dependents', 'refuse when loaded modules depend on it')
    .action(async (name: string, o: { dependents: boolean }) => {
      const { out } = ctx();
      const r = await ask('unload', { name, dependents: o.dependents });
      if (r === null) return;
      if (out.json) out.data(r);
      else {
        say(`Unloaded module: ${name}`);
        const deps = r.dependents_unloaded as string[];
        if (deps.length > 0) say(`  Dependents unloaded: ${deps.join(', ')}`);
      }
    });

  mod
    .command('reload <name>')
    .description('unload and load again a module (and the modules depending on it)')
    .action(async (name: string) => {
      const { out } = ctx();
      const r = await ask('reload', { name });
      if (r === null) return;
      if (out.json) out.data(r);
      else say(`Reloaded module: ${name} (${formatVersion(r.version as string)})`);
    });

  const statsCmd = async (): Promise<void> => {
    const { out } = ctx();
    const r = await ask('stats');
    if (r === null) return;
    const list = r.stats as Reply[];
    if (out.json) out.data(list);
    else if (!ctx().g.quiet) printStats(list);
  };
  mod.command('stats').description('per-module CPU and memory').action(statsCmd);
  program.command('stats').description('shorthand for module stats').action(statsCmd);

  program
    .command('call')
    .description(
      'call MODULE METHOD [args...]: json:<v>, json:@file, str:<text>, @file, true/false, numbers, text',
    )
    .argument('<module>')
    .argument('<method>')
    .argument('[args...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (module: string, method: string, raw: string[]) => {
      const { out } = ctx();
      let args: Json[];
      try {
        args = typeArgs(raw, process.cwd());
      } catch (e) {
        if (!(e instanceof InvalidArgs)) throw e;
        fail(out, 'INVALID_ARGS', e.message);
        return;
      }
      const r = await ask('call', { module, method, args }, true, {
        ms: callTimeoutMs(),
        message: `callModuleMethod('${module}','${method}') RPC call failed.`,
      });
      if (r === null) return;
      if (out.json) out.data(r);
      else printHumanResult(r.result ?? null);
    });

  program
    .command('watch <module>')
    .description('print module events as they come, one JSON line each')
    .option('--event <name>', 'only this event')
    .action(async (module: string, o: { event?: string }) => {
      const { out, client } = ctx();
      const s = await client.openWatch(o.event === undefined ? { module } : { module, event: o.event });
      await new Promise<void>((resolve) => {
        let first = true;
        readLines(
          s,
          (j) => {
            const r = j as Reply;
            if (first) {
              first = false;
              if (r.status === 'error') {
                fail(out, String(r.code), String(r.message));
                s.end();
              } else if (!out.json)
                process.stderr.write(`Watching events from '${module}'... (Ctrl+C to stop)\n`);
              return;
            }
            printEvent(out, r);
          },
          () => s.destroy(),
        );
        s.on('close', () => resolve());
        s.on('error', () => resolve());
        const end = (): void => {
          s.end();
        };
        process.once('SIGINT', end);
        process.once('SIGTERM', end);
      });
    });

  addPackageCommands(program, {
    ctx: () => {
      const { out, session, g } = ctx();
      return { out, session, quiet: g.quiet === true };
    },
    ask: (cmd, params = {}) => ask(cmd, params),
    fail: (out, code, message, extra = {}) => fail(out, code, message, extra),
  });

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    const out = Output.choose(program.opts<Globals>());
    if (e instanceof CtlError) {
      out.error(e.code, e.message);
      return e.exitCode;
    }
    const ce = e as { code?: string; exitCode?: number };
    if (typeof ce.code === 'string' && ce.code.startsWith('commander.')) {
      // help and version exit 0; usage errors were printed by commander
      return ce.code === 'commander.helpDisplayed' || ce.code === 'commander.version'
        ? 0
        : (ce.exitCode ?? 1);
    }
    out.error('INTERNAL_ERROR', (e as Error).message);
    return 1;
  }
  return exitCode;
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

/**
 * `daemon start --detach`: spawns the foreground daemon in its own session, its early output in
 * `daemon/startup.err`, and returns once `state.json` names it (or prints why it ended).
 */
async function startDetached(session: Session, out: Output, g: Globals): Promise<number> {
  session.ensureLayout();
  const existing = session.readState();
  if (existing !== undefined) {
    const { processAlive } = await import('./session.ts');
    if (processAlive(existing.pid)) {
      out.error(
        'ALREADY_RUNNING',
        `A daemon is already running for ${session.dir} (pid ${existing.pid}, instance ${existing.instance_id}).`,
      );
      return 1;
    }
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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `call` in human mode (call_command.cpp): strings raw, numbers and booleans plain, null nothing. */
function printHumanResult(v: Json): void {
  if (v === null) return;
  let text: string;
  if (typeof v === 'string') text = v;
  else if (v instanceof JsonFloat)
    text = Number.isInteger(v.value) ? BigInt(v.value).toString() : String(v.value);
  else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') text = String(v);
  else text = dumpPretty(v);
  process.stdout.write(`${text}\n`);
}

/** The module table of `module ls` and `daemon status` (output.cpp @1a4f56fe): columns sized to content. */
function moduleRows(list: readonly Reply[], indent: string, header: boolean): string[] {
  const nameW = Math.max(header ? 4 : 0, ...list.map((m) => String(m.name).length)) + 2;
  const verW = Math.max(header ? 7 : 0, ...list.map((m) => formatVersion(m.version as string).length)) + 2;
  const row = (n: string, v: string, st: string, up: string): string =>
    `${indent}${n.padEnd(nameW)}${v.padEnd(verW)}${st.padEnd(12)}${up}`;
  const rows = list.map((m) =>
    row(
      String(m.name),
      formatVersion(m.version as string),
      String(m.status),
      typeof m.uptime_seconds === 'number' ? formatUptime(m.uptime_seconds) : '-',
    ),
  );
  return header ? [row('NAME', 'VERSION', 'STATUS', 'UPTIME'), ...rows] : rows;
}

function printModuleList(list: Reply[]): void {
  process.stdout.write(`${moduleRows(list, '', true).join('\n')}\n`);
}

/**
 * One module event (client.cpp watchModuleEvents, output.cpp printEvent @1a4f56fe): JSON
 * `{"data":{"arg0":<payload>},"event","module","timestamp":"<UTC, seconds>Z"}`; human
 * `[HH:MM:SS] module :: event` then `  arg0: <value>` and a blank line.
 */
function printEvent(out: Output, e: Reply): void {
  const timestamp = `${new Date().toISOString().slice(0, 19)}Z`;
  const data: Reply = { arg0: e.data ?? null };
  if (out.json) {
    out.data({ timestamp, module: e.module ?? null, event: e.event ?? null, data });
    return;
  }
  const value = typeof data.arg0 === 'string' ? data.arg0 : dumpSorted(data.arg0 ?? null);
  process.stdout.write(`[${timestamp.slice(11, 19)}] ${e.module} :: ${e.event}\n  arg0: ${value}\n\n`);
}

/** `module stats` in human mode (output.cpp printStats @1a4f56fe). */
function printStats(list: readonly Reply[]): void {
  const w = Math.max(6, ...list.map((s) => String(s.name).length)) + 2;
  const num = (v: Json | undefined): number => (v instanceof JsonFloat ? v.value : Number(v));
  const lines = [`${'MODULE'.padEnd(w)}${'PID'.padEnd(8)}${'CPU%'.padEnd(8)}MEMORY`];
  for (const s of list)
    lines.push(
      `${String(s.name).padEnd(w)}${String(s.pid).padEnd(8)}${`${num(s.cpu_percent).toFixed(1)}%`.padEnd(8)}${num(s.memory_mb).toFixed(1)} MB`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `daemon status` in human mode (output.cpp printStatus @1a4f56fe). */
function printStatus(r: Reply): void {
  const d = (r.daemon ?? {}) as Reply;
  const lines = ['Logosctl Daemon', `  Status:       ${d.status}`];
  if (d.status === 'not_running') {
    lines.push('', 'No daemon found.', 'Run "logosctl daemon start --detach" to start the daemon.');
    process.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  lines.push(
    `  PID:          ${d.pid}`,
    `  Uptime:       ${formatUptime(Number(d.uptime_seconds))}`,
    `  Version:      v${d.version}`,
  );
  if (d.instance_id) lines.push(`  Instance ID:  ${d.instance_id}`);
  if (d.socket) lines.push(`  Socket:       ${d.socket}`);
  const s = (r.modules_summary ?? {}) as Reply;
  lines.push('', `Modules: ${s.loaded} loaded, ${s.crashed} crashed, ${s.not_loaded} not loaded`);
  lines.push(...moduleRows((r.modules ?? []) as Reply[], '  ', false));
  process.stdout.write(`${lines.join('\n')}\n`);
}
