/**
 * Several node processes on one machine, for the sim tier: a devnet folder (shared genesis, one
 * configuration per node, as `devnet` writes it) on a fast test deployment with the insecure test
 * proofs (or a given deployment, and real proofs, for benchmarks), each node run with `start` in its own process that a test may start late, kill with
 * SIGKILL and restart. Optionally each node runs in its own Linux network namespace (root only),
 * joined by a bridge, so that a test can cut the links between groups of nodes (see netns.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { prepareDevnetFolder } from '../../src/devnet/folder.ts';
import { tcpFree, udpFree } from '../../src/devnet/ports.ts';
import { fastDeploymentYaml } from '../mocks/fast-deployment.ts';
import { waitUntil } from './wait-until.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface SimClusterOptions {
  readonly nodes: number;
  /** Default 500 ms. */
  readonly slotMs?: number;
  /** Security parameter k; default 10. */
  readonly k?: number;
  /** Node log level; default `info`. */
  readonly logLevel?: string;
  /** Per node, the address it listens on (API and P2P) and others reach it at; default 127.0.0.1 for all. */
  readonly hosts?: readonly string[];
  /** Per node, a command prefix (e.g. `ip netns exec <ns>`). */
  readonly prefix?: (index: number) => string[];
  /** How many nodes (the first ones) the genesis declares as Blend core nodes; default none. */
  readonly coreNodes?: number;
  /** Changes the base deployment's text before the devnet is written. */
  readonly editDeployment?: (yaml: string) => string;
  /** The base deployment's text (a `deployments/*.yaml`); default the fast test deployment (`slotMs`, `k`). */
  readonly baseDeployment?: string;
  /** Whether the nodes run with the insecure test proofs; default true (false: real Groth16 proofs). */
  readonly insecureTestProofs?: boolean;
  /** Per node, more arguments of `start` (e.g. `--circuits <dir>`). */
  readonly extraArgs?: (index: number) => string[];
}

export interface LogLine {
  readonly level: number;
  readonly time: number;
  readonly module?: string;
  readonly msg: string;
  readonly [k: string]: unknown;
}

export interface ChainInfo {
  readonly tip: string;
  readonly height: number;
  readonly slot: number;
  readonly lib: string;
  readonly mode: string;
  readonly phase: string;
}

export class SimNode {
  proc: ChildProcess | undefined;
  readonly logs: LogLine[] = [];
  /** Output that is not a JSON log line (stack traces, warnings). */
  other = '';
  private exitWaiters: (() => void)[] = [];

  constructor(
    readonly index: number,
    readonly api: string,
    readonly p2pAddress: string,
    readonly peerId: string,
    private readonly argv: string[],
    private readonly cwd: string,
  ) {}

  get name(): string {
    return `node-${this.index}`;
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  start(): void {
    if (this.running) throw new Error(`${this.name} is running`);
    const proc = spawn(this.argv[0]!, this.argv.slice(1), {
      cwd: this.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    let rest = '';
    const onData = (b: Buffer) => {
      rest += b.toString();
      const lines = rest.split('\n');
      rest = lines.pop()!;
      for (const l of lines) {
        if (l.startsWith('{')) {
          try {
            this.logs.push(JSON.parse(l) as LogLine);
            continue;
          } catch {
            // not JSON after all
          }
        }
        this.other += `${l}\n`;
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', () => {
      for (const w of this.exitWaiters.splice(0)) w();
    });
  }

  /** Resolves when the process has exited (at once if it is not running). */
  exited(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((r) => this.exitWaiters.push(r));
  }

  /** SIGKILL, as a crash. */
  async kill(): Promise<void> {
    if (!this.running) return;
    const done = this.exited();
    this.proc!.kill('SIGKILL');
    await done;
  }

  /** SIGINT, a clean stop; SIGKILL after `ms`. */
  async stop(ms = 15_000): Promise<void> {
    if (!this.running) return;
    const done = this.exited();
    this.proc!.kill('SIGINT');
    const t = setTimeout(() => this.proc?.kill('SIGKILL'), ms);
    await done;
    clearTimeout(t);
  }

  async get<T = unknown>(path: string): Promise<T> {
    const r = await fetch(`${this.api}${path}`, { signal: AbortSignal.timeout(5000) });
    const text = await r.text();
    if (!r.ok) throw new Error(`${this.name} GET ${path}: ${r.status} ${text}`);
    return JSON.parse(text) as T;
  }

  async post<T = unknown>(path: string, body: unknown): Promise<{ status: number; body: T }> {
    const r = await fetch(`${this.api}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await r.text();
    return { status: r.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
  }

  async info(): Promise<ChainInfo> {
    const r = await this.get<{
      cryptarchia_info: { tip: string; height: number; slot: number; lib: string; state: string };
      phase: string;
    }>('/cryptarchia/info');
    const c = r.cryptarchia_info;
    return { tip: c.tip, height: c.height, slot: c.slot, lib: c.lib, mode: c.state, phase: r.phase };
  }

  /** The canonical chain's block ids, oldest first, from `to` (default genesis) to the tip (≤ 512). */
  async chain(genesis: string): Promise<string[]> {
    const ids = await this.get<string[]>(`/cryptarchia/headers?to=${genesis}`);
    return ids.reverse();
  }

  /** Whether the API answers. */
  async up(): Promise<boolean> {
    try {
      await this.get('/cryptarchia/info');
      return true;
    } catch {
      return false;
    }
  }

  /** The log lines whose message matches. */
  lines(msg: RegExp | string): LogLine[] {
    return this.logs.filter((l) => (typeof msg === 'string' ? l.msg === msg : msg.test(l.msg)));
  }

  /** The last output, for failure messages. */
  tail(n = 30): string {
    return [...this.logs.slice(-n).map((l) => JSON.stringify(l).slice(0, 400)), this.other.slice(-2000)].join(
      '\n',
    );
  }
}

export class SimCluster {
  private constructor(
    readonly dir: string,
    readonly nodes: SimNode[],
    readonly genesisTimeS: number,
  ) {}

  static async create(o: SimClusterOptions): Promise<SimCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'logos-sim-'));
    const devnetDir = join(dir, 'net');
    const apiBase = await freeBase(o.nodes);
    const p2pBase = await freeBase(o.nodes, [apiBase]);
    const prepared = await prepareDevnetFolder({
      dir: devnetDir,
      nodes: o.nodes,
      defaultNodes: o.nodes,
      apiPortBase: apiBase,
      p2pPortBase: p2pBase,
      defaultApiPortBase: apiBase,
      defaultP2pPortBase: p2pBase,
      coreNodes: o.coreNodes ?? 0,
      reset: false,
      baseDeployment: (o.editDeployment ?? ((y: string) => y))(
        o.baseDeployment ?? fastDeploymentYaml(o.slotMs ?? 500, o.k ?? 10),
      ),
      nowMs: Date.now(),
    });
    const hostOf = (i: number) => o.hosts?.[i] ?? '127.0.0.1';
    const nodes = prepared.plans.map((p, i) => {
      const configPath = prepared.configPaths[i]!;
      if (o.hosts) {
        // Each node on its own address: its API and P2P listener, and the others' addresses of it.
        let text = readFileSync(configPath, 'utf8');
        text = text.replace(/listen_address: '127\.0\.0\.1:/, `listen_address: '${hostOf(i)}:`);
        text = text.replace(/host: '127\.0\.0\.1'/, `host: '${hostOf(i)}'`);
        text = text.replace(
          /\/ip4\/127\.0\.0\.1\/udp\/(\d+)\//g,
          (_, port: string) => `/ip4/${hostOf(Number(port) - p2pBase)}/udp/${port}/`,
        );
        writeFileSync(configPath, text, { mode: 0o600 });
      }
      const argv = [
        ...(o.prefix?.(i) ?? []),
        process.execPath,
        ...childExecArgv(),
        join(ROOT, 'src/main.ts'),
        'start',
        '--config',
        configPath,
        '--deployment',
        prepared.deploymentPath,
        ...(o.insecureTestProofs === false ? [] : ['--insecure-test-proofs']),
        // A node on its own (namespace) address serves its API there, reached by the test alone.
        ...(hostOf(i) === '127.0.0.1' ? [] : ['--insecure-api-binding']),
        ...(o.extraArgs?.(i) ?? []),
        '--log-format',
        'json',
        '--log-level',
        o.logLevel ?? 'info',
      ];
      const host = hostOf(i);
      return new SimNode(
        i,
        `http://${host}:${p.apiPort}`,
        p.p2pAddress.replace('/ip4/127.0.0.1/', `/ip4/${host}/`),
        p.peerId,
        argv,
        dir,
      );
    });
    return new SimCluster(dir, nodes, prepared.meta.genesis_time);
  }

  /** Starts the given nodes (default all), node 0 first, and waits until their APIs answer. */
  async start(indices: readonly number[] = this.nodes.map((n) => n.index), ms = 60_000): Promise<void> {
    for (const i of indices) this.nodes[i]!.start();
    await Promise.all(indices.map((i) => this.waitUp(this.nodes[i]!, ms)));
  }

  async waitUp(n: SimNode, ms = 60_000): Promise<void> {
    await until(
      `${n.name} API up`,
      () => n.up(),
      ms,
      () => n.tail(),
    );
  }

  /** The genesis block id (every node serves the same one). */
  async genesis(): Promise<string> {
    const blocks = await this.nodes[0]!.get<{ header: { id: string } }[]>(
      '/cryptarchia/blocks?slot_from=0&slot_to=0',
    );
    return blocks[0]!.header.id;
  }

  /**
   * Waits until the running nodes (or `indices`) are on one chain: every node's chain holds the common
   * prefix and at most `slack` blocks more, and the common prefix reaches `minHeight`. Returns the
   * common prefix (block ids, genesis first).
   */
  async converged(
    opts: { minHeight?: number; slack?: number; indices?: readonly number[]; ms?: number } = {},
  ): Promise<string[]> {
    const genesis = await this.genesis();
    const nodes = (opts.indices ?? this.nodes.filter((n) => n.running).map((n) => n.index)).map(
      (i) => this.nodes[i]!,
    );
    let last = '';
    let prefix: string[] = [];
    await until(
      'one chain',
      async () => {
        const chains = await Promise.all(nodes.map((n) => n.chain(genesis).catch(() => [] as string[])));
        prefix = commonPrefix(chains);
        last = chains
          .map((c, i) =>
            c.length > 0
              ? `${nodes[i]!.name}: height ${c.length - 1}`
              : `${nodes[i]!.name}: no answer (${nodes[i]!.running ? 'running' : 'exited'}); its last output:\n${nodes[i]!.tail(15)}\n`,
          )
          .join(', ');
        const slack = opts.slack ?? 2;
        return (
          prefix.length - 1 >= (opts.minHeight ?? 1) && chains.every((c) => c.length - prefix.length <= slack)
        );
      },
      opts.ms ?? 60_000,
      () => `${last}; common height ${prefix.length - 1}`,
    );
    return prefix;
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The longest common prefix of the chains. */
export function commonPrefix(chains: readonly (readonly string[])[]): string[] {
  if (chains.length === 0) return [];
  const out: string[] = [];
  for (let h = 0; ; h++) {
    const id = chains[0]![h];
    if (id === undefined || !chains.every((c) => c[h] === id)) return out;
    out.push(id);
  }
}

/** `waitUntil` every 200 ms, its failure followed by `detail()` (the nodes' state, their last output). */
export async function until(
  what: string,
  f: () => boolean | Promise<boolean>,
  ms: number,
  detail?: () => string,
): Promise<void> {
  try {
    await waitUntil(f, ms, what, 200);
  } catch (e) {
    throw detail ? new Error(`${(e as Error).message}: ${detail()}`) : e;
  }
}

/** A base with `count` consecutive ports free for TCP and UDP, away from `avoid`'s ranges. */
export async function freeBase(count: number, avoid: number[] = []): Promise<number> {
  for (;;) {
    const base = 20000 + Math.floor(Math.random() * 20000);
    let ok = true;
    for (let i = 0; i < count && ok; i++) {
      const p = base + i;
      ok =
        !avoid.some((a) => Math.abs(a - p) < count) &&
        (await tcpFree(p)) === undefined &&
        (await udpFree(p)) === undefined;
    }
    if (ok) return base;
  }
}
