/**
 * The devnet folder (`./.devnet-multi` by default): `devnet.json` (what the devnet is: node count,
 * genesis time, port bases), `deployment.yaml` (the shared genesis, written once) and one folder per
 * node, `node-<i>/`, with its `user_config.yaml` (mode 600, rewritten on each run from the plan) and its
 * state in `node-<i>/state/`.
 *
 * A folder that holds a devnet of another size is refused unless `reset` is asked; a folder that is not
 * empty and holds no `devnet.json` is never used nor deleted.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { DevnetError } from './errors.ts';
import {
  checkPortBase,
  devnetDeploymentYaml,
  genesisDeclarations,
  HOST,
  IBD_PEERS_MODES,
  type IbdPeersMode,
  type NodePlan,
  nodeConfigYaml,
  parseGenesisAccounts,
  parseNodeList,
  parsePeerLists,
  planDevnet,
} from './plan.ts';

export const META_FILE = 'devnet.json';
export const DEPLOYMENT_FILE = 'deployment.yaml';

export interface DevnetMeta {
  readonly nodes: number;
  /** Unix seconds, as in the deployment. */
  readonly genesis_time: number;
  readonly api_port_base: number;
  readonly p2p_port_base: number;
  /** Absent in a folder written before the option existed: 127.0.0.1. */
  readonly p2p_host?: string;
  /** Node index → the indices of its initial peers, for the nodes `--peers` named (the others: every other node). */
  readonly peers?: Readonly<Record<string, readonly number[]>>;
  /** Absent: `first`. */
  readonly ibd_peers?: IbdPeersMode;
  /** Seconds; absent: the devnet default (plan.ts). */
  readonly prolonged_bootstrap_period?: number;
  /** The genesis accounts, as `--genesis-account` values (`<node>:<count>x<amount>`), in order. */
  readonly genesis_accounts?: readonly string[];
}

export interface DevnetFolderOptions {
  readonly dir: string;
  /** Undefined: the existing devnet's count, or `defaultNodes` for a new one. */
  readonly nodes?: number;
  readonly defaultNodes: number;
  readonly apiPortBase?: number;
  readonly p2pPortBase?: number;
  readonly defaultApiPortBase: number;
  readonly defaultP2pPortBase: number;
  readonly p2pHost?: string;
  /** For a new devnet: how many nodes (the first ones) the genesis declares as Blend core nodes; default all. */
  readonly coreNodes?: number;
  /** For a new devnet: its genesis this many seconds after `nowMs` (default 0: at once). */
  readonly genesisDelayS?: number;
  /** For a new devnet: `--genesis-account` values, `<node>:<count>x<amount>`. */
  readonly genesisAccounts?: readonly string[];
  /** `--peers` values (`<node>=<nodes>`); merged into the folder's lists and kept. */
  readonly peers?: readonly string[];
  /** Kept for the next runs. */
  readonly ibdPeers?: IbdPeersMode;
  /** Every node's prolonged bootstrap period in seconds; kept for the next runs. */
  readonly prolongedBootstrapS?: number;
  /** `--only`: the nodes this run starts (`0,2`); default all. */
  readonly only?: string;
  /** `--copy-state` values (`<from>:<to>`): node `to`'s state replaced by a copy of stopped node `from`'s. */
  readonly copyState?: readonly string[];
  /** Whether a node of the plan is running now (its API port is taken); the state copy refuses running nodes. */
  readonly isRunning?: (plan: NodePlan) => Promise<boolean>;
  readonly reset: boolean;
  /** The text of deployments/devnet.yaml. */
  readonly baseDeployment: string;
  readonly nowMs: number;
  /** Run on the nodes this run starts before anything is deleted or written (the port check). */
  readonly check?: (plans: readonly NodePlan[]) => Promise<void>;
  /** `--metrics`: node i serves its metrics on 127.0.0.1:(base + i); absent: no metrics listener. */
  readonly metricsPortBase?: number;
}

export interface PreparedDevnet {
  readonly dir: string;
  readonly meta: DevnetMeta;
  readonly plans: readonly NodePlan[];
  readonly deploymentPath: string;
  readonly configPaths: readonly string[];
  /** True when this run created the devnet (a new genesis). */
  readonly created: boolean;
  /** The indices of the nodes this run starts, in order. */
  readonly start: readonly number[];
  /** Node i's metrics are on 127.0.0.1:(base + i); absent: no metrics listener. */
  readonly metricsPortBase?: number;
}

export function readMeta(dir: string): DevnetMeta | undefined {
  const path = join(dir, META_FILE);
  if (!existsSync(path)) return undefined;
  let m: Partial<DevnetMeta>;
  try {
    m = JSON.parse(readFileSync(path, 'utf8')) as Partial<DevnetMeta>;
  } catch (e) {
    throw new DevnetError('DEVNET_FOLDER', `${path}: not valid JSON (${(e as Error).message})`);
  }
  const ok = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  const peersOk =
    m.peers === undefined ||
    (typeof m.peers === 'object' &&
      m.peers !== null &&
      Object.values(m.peers).every((l) => Array.isArray(l) && l.every(ok)));
  if (
    !ok(m.nodes) ||
    !ok(m.genesis_time) ||
    !ok(m.api_port_base) ||
    !ok(m.p2p_port_base) ||
    (m.p2p_host !== undefined && typeof m.p2p_host !== 'string') ||
    !peersOk ||
    (m.ibd_peers !== undefined && !IBD_PEERS_MODES.includes(m.ibd_peers)) ||
    (m.prolonged_bootstrap_period !== undefined && !ok(m.prolonged_bootstrap_period)) ||
    (m.genesis_accounts !== undefined &&
      !(Array.isArray(m.genesis_accounts) && m.genesis_accounts.every((a) => typeof a === 'string')))
  )
    throw new DevnetError(
      'DEVNET_FOLDER',
      `${path}: expected nodes, genesis_time, api_port_base, p2p_port_base`,
    );
  return m as DevnetMeta;
}

/** Creates or reopens the devnet folder and writes every node's configuration. Starts nothing. */
export async function prepareDevnetFolder(o: DevnetFolderOptions): Promise<PreparedDevnet> {
  let meta = existsSync(o.dir) ? readMeta(o.dir) : undefined;
  if (meta === undefined && existsSync(o.dir) && readdirSync(o.dir).length > 0)
    throw new DevnetError(
      'DEVNET_FOLDER',
      `${o.dir} is not empty and holds no ${META_FILE}: it is not a devnet folder (choose another --dir)`,
    );
  if (meta !== undefined && o.nodes !== undefined && o.nodes !== meta.nodes) {
    if (!o.reset)
      throw new DevnetError(
        'DEVNET_FOLDER',
        `${o.dir} holds a devnet of ${meta.nodes} node(s), not ${o.nodes}: run with --nodes ${meta.nodes} to ` +
          `restart it, --reset to delete it and start a new one of ${o.nodes}, or another --dir`,
      );
  }
  const previous = meta;
  const nodes = o.nodes ?? previous?.nodes ?? o.defaultNodes;
  const apiPortBase = o.apiPortBase ?? previous?.api_port_base ?? o.defaultApiPortBase;
  const p2pPortBase = o.p2pPortBase ?? previous?.p2p_port_base ?? o.defaultP2pPortBase;
  const p2pHost = o.p2pHost ?? previous?.p2p_host ?? HOST;
  // Checked before anything is deleted or written.
  const plans = await planDevnet({ nodes, apiPortBase, p2pPortBase, p2pHost });
  if (o.metricsPortBase !== undefined) checkPortBase(o.metricsPortBase, plans.length, '--metrics');
  // Checked before anything is written (the declarations are only written with a new genesis).
  genesisDeclarations(plans, o.coreNodes ?? nodes);
  const kept = o.reset ? undefined : previous;
  if (kept !== undefined && o.genesisDelayS !== undefined)
    throw new DevnetError(
      'DEVNET_OPTION',
      `--genesis-delay: ${o.dir} holds a chain whose genesis is fixed (use --reset for a new chain)`,
    );
  if (kept !== undefined && o.genesisAccounts !== undefined)
    throw new DevnetError(
      'DEVNET_OPTION',
      `--genesis-account: ${o.dir} holds a chain whose genesis is fixed (use --reset for a new chain)`,
    );
  const accountSpecs = o.genesisAccounts ?? kept?.genesis_accounts ?? [];
  const accounts = parseGenesisAccounts(accountSpecs, nodes);
  const delay = o.genesisDelayS ?? 0;
  if (!Number.isInteger(delay) || delay < 0 || delay > 86_400)
    throw new DevnetError(
      'DEVNET_OPTION',
      `--genesis-delay: expected whole seconds from 0 to 86400, got ${delay}`,
    );
  // inferred: the scenario options (docs/design/fidelity.md "Devnet scenario options")
  const peers: Record<string, readonly number[]> = { ...(kept?.peers ?? {}) };
  for (const [node, list] of parsePeerLists(o.peers ?? [], nodes)) peers[String(node)] = list;
  const ibd = o.ibdPeers ?? kept?.ibd_peers ?? 'first';
  if (!IBD_PEERS_MODES.includes(ibd))
    throw new DevnetError(
      'DEVNET_OPTION',
      `--ibd-peers: expected one of ${IBD_PEERS_MODES.join(', ')}, got ${JSON.stringify(ibd)}`,
    );
  const bootstrapS = o.prolongedBootstrapS ?? kept?.prolonged_bootstrap_period;
  if (bootstrapS !== undefined && (!Number.isInteger(bootstrapS) || bootstrapS < 0))
    throw new DevnetError('DEVNET_OPTION', `--bootstrap-period: expected whole seconds, got ${bootstrapS}`);
  const start = o.only === undefined ? plans.map((p) => p.index) : parseNodeList(o.only, nodes, '--only');
  const copies = (o.copyState ?? []).map((spec) => parseCopy(spec, nodes));
  await o.check?.(start.map((i) => plans[i]!));
  if (meta !== undefined && o.reset) {
    rmSync(o.dir, { recursive: true, force: true });
    meta = undefined;
  }
  const created = meta === undefined;
  if (created && copies.length > 0)
    throw new DevnetError('DEVNET_OPTION', '--copy-state: a new chain has no node state to copy');
  for (const c of copies) await copyNodeState(o.dir, plans[c.from]!, plans[c.to]!, o.isRunning);
  const genesisTime = meta?.genesis_time ?? Math.floor(o.nowMs / 1000) + delay;
  const deploymentPath = join(o.dir, DEPLOYMENT_FILE);
  mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  if (created || !existsSync(deploymentPath)) {
    if (!created)
      throw new DevnetError(
        'DEVNET_FOLDER',
        `${deploymentPath} is missing: the devnet's genesis is lost (use --reset)`,
      );
    writeFileSync(
      deploymentPath,
      devnetDeploymentYaml(o.baseDeployment, plans, genesisTime, o.coreNodes ?? nodes, accounts),
      { flag: 'wx' },
    );
  }
  const newMeta: DevnetMeta = {
    nodes,
    genesis_time: genesisTime,
    api_port_base: apiPortBase,
    p2p_port_base: p2pPortBase,
    p2p_host: p2pHost,
    ...(Object.keys(peers).length > 0 ? { peers } : {}),
    ...(ibd !== 'first' ? { ibd_peers: ibd } : {}),
    ...(bootstrapS !== undefined ? { prolonged_bootstrap_period: bootstrapS } : {}),
    ...(accountSpecs.length > 0 ? { genesis_accounts: accountSpecs } : {}),
  };
  writeFileSync(join(o.dir, META_FILE), `${JSON.stringify(newMeta, null, 2)}\n`);
  const configPaths = plans.map((p) => {
    const nodeDir = join(o.dir, p.name);
    mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
    const path = join(nodeDir, 'user_config.yaml');
    const own = peers[String(p.index)];
    writeFileSync(
      path,
      nodeConfigYaml(p, plans, {
        ...(own !== undefined ? { peers: own } : {}),
        ibd,
        ...(bootstrapS !== undefined ? { prolongedBootstrapS: bootstrapS } : {}),
        accounts: accounts.filter((a) => a.node === p.index),
        ...(o.metricsPortBase !== undefined ? { metricsPort: o.metricsPortBase + p.index } : {}),
      }),
      { mode: 0o600 },
    );
    chmodSync(path, 0o600);
    return path;
  });
  return {
    dir: o.dir,
    meta: newMeta,
    plans,
    deploymentPath,
    configPaths,
    created,
    start,
    ...(o.metricsPortBase !== undefined ? { metricsPortBase: o.metricsPortBase } : {}),
  };
}

/** Parses a `--copy-state` value, `<from>:<to>` (two distinct nodes of the devnet). */
export function parseCopy(spec: string, nodes: number): { from: number; to: number } {
  const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(spec);
  const from = Number(m?.[1]);
  const to = Number(m?.[2]);
  if (m === null || from >= nodes || to >= nodes || from === to)
    throw new DevnetError(
      'DEVNET_OPTION',
      `--copy-state ${JSON.stringify(spec)}: expected <from>:<to>, two different nodes from 0 to ${nodes - 1}`,
    );
  return { from, to };
}

/**
 * A folder snapshot: node `to`'s state folder replaced by a copy of node `from`'s (its chain, wallet
 * and mempool), so that `to` starts where `from` stopped, with its own keys and peer id. Both must be
 * stopped (a running node's store may be half written), and `from` must have a state. F's harness
 * saves and restores a node's state the same way (tests/src/cucumber/steps/manual_nodes/snapshots.rs).
 * inferred: only `state/` is copied, keys and peer id stay the node's own (docs/design/fidelity.md "Devnet scenario options")
 */
export async function copyNodeState(
  dir: string,
  from: NodePlan,
  to: NodePlan,
  isRunning?: (plan: NodePlan) => Promise<boolean>,
): Promise<void> {
  const src = join(dir, from.name, 'state');
  if (!existsSync(src))
    throw new DevnetError('DEVNET_FOLDER', `--copy-state: ${from.name} has no state to copy (${src})`);
  for (const p of [from, to])
    if ((await isRunning?.(p)) === true)
      throw new DevnetError(
        'DEVNET_FOLDER',
        `--copy-state: ${p.name} is running (its API port ${p.apiPort} is in use): stop it first`,
      );
  const dst = join(dir, to.name, 'state');
  rmSync(dst, { recursive: true, force: true });
  mkdirSync(join(dir, to.name), { recursive: true, mode: 0o700 });
  cpSync(src, dst, { recursive: true, preserveTimestamps: true });
}
