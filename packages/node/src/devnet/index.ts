/**
 * The `devnet` command: a local network of N nodes on this machine with one command. It prepares the
 * devnet folder (shared genesis, one configuration per node; folder.ts), checks that every port is free
 * (ports.ts), prints what it runs (the table below) and runs the nodes until a signal stops them
 * (supervisor.ts). This file is the only way into the folder.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { packageFile } from '../util/package-files.ts';
import { DevnetError } from './errors.ts';
import { type PreparedDevnet, prepareDevnetFolder, readMeta } from './folder.ts';
import { DEFAULT_API_PORT_BASE, DEFAULT_P2P_PORT_BASE, type IbdPeersMode, type NodePlan } from './plan.ts';
import { checkPortsFree, tcpFree } from './ports.ts';
import { superviseDevnet } from './supervisor.ts';

export { DevnetError } from './errors.ts';
export {
  DEFAULT_API_PORT_BASE,
  DEFAULT_P2P_PORT_BASE,
  genesisNotes,
  IBD_PEERS_MODES,
  type IbdPeersMode,
  MAX_NODES,
  MIN_NODES,
  type NodePlan,
  peerIdOfNodeKey,
  planDevnet,
  TOTAL_STAKE,
} from './plan.ts';

export const DEFAULT_DEVNET_DIR = './.devnet-multi';
export const DEFAULT_DEVNET_NODES = 4;

const BASE_DEPLOYMENT = packageFile('deployments/devnet.yaml');

export interface DevnetOptions {
  readonly dir: string;
  readonly nodes?: number;
  readonly apiPortBase?: number;
  readonly p2pPortBase?: number;
  readonly p2pHost?: string;
  /** For a new devnet: how many nodes the genesis declares as Blend core nodes (default all). */
  readonly coreNodes?: number;
  /** For a new devnet: the genesis this many seconds from now (default now). */
  readonly genesisDelayS?: number;
  /** For a new devnet: `--genesis-account` values, `<node>:<count>x<amount>`. */
  readonly genesisAccounts?: readonly string[];
  /** For a new devnet: the deployment file it is made from (default deployments/devnet.yaml). */
  readonly deploymentFile?: string;
  /** `--peers` values, `<node>=<nodes>` (kept in the folder). */
  readonly peers?: readonly string[];
  /** Kept in the folder. */
  readonly ibdPeers?: IbdPeersMode;
  /** Every node's prolonged bootstrap period, seconds (kept in the folder). */
  readonly prolongedBootstrapS?: number;
  /** `--only`: the nodes this run starts (e.g. `0,2`); default all. */
  readonly only?: string;
  /** `--copy-state` values, `<from>:<to>`. */
  readonly copyState?: readonly string[];
  /** Every node runs with `--insecure-test-proofs` (a test deployment only). */
  readonly insecureTestProofs?: boolean;
  /** Aborting it stops the nodes (as Ctrl-C). */
  readonly signal?: AbortSignal;
  readonly reset: boolean;
  readonly pretty: boolean;
  readonly color: boolean;
  readonly stopOnExit: boolean;
  readonly keysDir?: string;
  /** Every node's `--log-level`. */
  readonly logLevel?: string;
  readonly out?: NodeJS.WritableStream;
  /** `--metrics`: node i serves /metrics on 127.0.0.1:(base + i). */
  readonly metricsPortBase?: number;
}

/** What the devnet runs: folder, genesis, and per node its API, P2P address and funded keys. */
export function devnetTable(d: PreparedDevnet): string {
  const genesis = new Date(d.meta.genesis_time * 1000).toISOString();
  const rows = d.plans.map((p: NodePlan) => ({
    node: p.name,
    api: `http://127.0.0.1:${p.apiPort}`,
    p2p: p.p2pAddress,
    keys: p.fundedKeys.map((k) => k.index).join(','),
  }));
  const w = (k: 'node' | 'api' | 'p2p') => Math.max(k.length, ...rows.map((r) => r[k].length)) + 2;
  const [wn, wa, wp] = [w('node'), w('api'), w('p2p')];
  const starting =
    d.start.length === d.plans.length
      ? ''
      : `, this run starts ${d.start.map((i) => `node-${i}`).join(', ')}`;
  const lines = [
    '',
    `  Logos devnet: ${d.plans.length} node(s), ${d.created ? 'a new chain' : 'restarting its chain'}, genesis at ${genesis}${starting}`,
    `  folder   ${resolve(d.dir)}`,
    `           deployment.yaml (shared genesis), node-<i>/user_config.yaml, node-<i>/state/`,
    '',
    `  ${'node'.padEnd(wn)}${'API'.padEnd(wa)}${'P2P address'.padEnd(wp)}funded devnet keys`,
    ...rows.map((r) => `  ${r.node.padEnd(wn)}${r.api.padEnd(wa)}${r.p2p.padEnd(wp)}${r.keys}`),
    '',
    '  Funded devnet keys (public test keys, for this local chain only):',
    `  ${'#'.padEnd(4)}${'node'.padEnd(wn)}${'public key'.padEnd(66)}secret key`,
    ...d.plans.flatMap((p) =>
      p.fundedKeys.map(
        (k) => `  ${String(k.index).padEnd(4)}${p.name.padEnd(wn)}${k.publicKey}  ${k.secretKey}`,
      ),
    ),
    ...metricsLines(d),
    '',
    '  Ctrl-C stops every node.',
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** Where to scrape each node, and a Prometheus scrape job for all of them (with `--metrics`). */
function metricsLines(d: PreparedDevnet): string[] {
  const base = d.metricsPortBase;
  if (base === undefined) return [];
  const targets = d.plans.map((p) => `127.0.0.1:${base + p.index}`);
  return [
    '',
    '  Metrics (Prometheus text format):',
    ...d.plans.map((p) => `  ${p.name}  http://${targets[p.index]}/metrics`),
    '  A Prometheus scrape job for them (the Grafana dashboard: deployments/grafana/):',
    "    - job_name: 'logos-devnet'",
    `      static_configs: [{ targets: [${targets.map((t) => `'${t}'`).join(', ')}] }]`,
  ];
}

/** Prepares the folder, checks the ports, prints the table and runs the nodes; resolves with the exit code. */
export async function runDevnet(o: DevnetOptions): Promise<number> {
  const out = o.out ?? process.stdout;
  if (o.deploymentFile !== undefined && !o.reset && readMeta(o.dir) !== undefined)
    throw new DevnetError(
      'DEVNET_OPTION',
      `--deployment: ${o.dir} holds a chain whose deployment is fixed (use --reset for a new chain)`,
    );
  let baseDeployment: string;
  try {
    baseDeployment = readFileSync(o.deploymentFile ?? BASE_DEPLOYMENT, 'utf8');
  } catch (e) {
    throw new DevnetError('DEVNET_DEPLOYMENT', `--deployment: ${(e as Error).message}`);
  }
  const devnet = await prepareDevnetFolder({
    dir: o.dir,
    ...(o.nodes !== undefined ? { nodes: o.nodes } : {}),
    defaultNodes: DEFAULT_DEVNET_NODES,
    ...(o.apiPortBase !== undefined ? { apiPortBase: o.apiPortBase } : {}),
    ...(o.p2pPortBase !== undefined ? { p2pPortBase: o.p2pPortBase } : {}),
    defaultApiPortBase: DEFAULT_API_PORT_BASE,
    defaultP2pPortBase: DEFAULT_P2P_PORT_BASE,
    ...(o.p2pHost !== undefined ? { p2pHost: o.p2pHost } : {}),
    ...(o.coreNodes !== undefined ? { coreNodes: o.coreNodes } : {}),
    ...(o.genesisDelayS !== undefined ? { genesisDelayS: o.genesisDelayS } : {}),
    ...(o.genesisAccounts !== undefined ? { genesisAccounts: o.genesisAccounts } : {}),
    ...(o.peers !== undefined ? { peers: o.peers } : {}),
    ...(o.ibdPeers !== undefined ? { ibdPeers: o.ibdPeers } : {}),
    ...(o.prolongedBootstrapS !== undefined ? { prolongedBootstrapS: o.prolongedBootstrapS } : {}),
    ...(o.only !== undefined ? { only: o.only } : {}),
    ...(o.copyState !== undefined ? { copyState: o.copyState } : {}),
    isRunning: async (p) => (await tcpFree(p.apiPort)) !== undefined,
    reset: o.reset,
    baseDeployment,
    nowMs: Date.now(),
    check: checkPortsFree,
    ...(o.metricsPortBase !== undefined ? { metricsPortBase: o.metricsPortBase } : {}),
  });
  out.write(devnetTable(devnet));
  return superviseDevnet({
    devnet,
    pretty: o.pretty,
    color: o.color,
    stopOnExit: o.stopOnExit,
    ...(o.keysDir !== undefined ? { keysDir: o.keysDir } : {}),
    ...(o.logLevel !== undefined ? { logLevel: o.logLevel } : {}),
    ...(o.insecureTestProofs === true ? { insecureTestProofs: true } : {}),
    ...(o.signal !== undefined ? { signal: o.signal } : {}),
    out,
  });
}
