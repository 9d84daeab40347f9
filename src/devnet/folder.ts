/**
 * The devnet folder (`./.devnet-multi` by default): `devnet.json` (what the devnet is: node count,
 * genesis time, port bases), `deployment.yaml` (the shared genesis, written once) and one folder per
 * node, `node-<i>/`, with its `user_config.yaml` (mode 600, rewritten on each run from the plan) and its
 * state in `node-<i>/state/`.
 *
 * A folder that holds a devnet of another size is refused unless `reset` is asked; a folder that is not
 * empty and holds no `devnet.json` is never used nor deleted.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DevnetError } from './errors.ts';
import {
  devnetDeploymentYaml,
  genesisDeclarations,
  HOST,
  type NodePlan,
  nodeConfigYaml,
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
  readonly reset: boolean;
  /** The text of deployments/devnet.yaml. */
  readonly baseDeployment: string;
  readonly nowMs: number;
  /** Run on the plan before anything is deleted or written (the port check). */
  readonly check?: (plans: readonly NodePlan[]) => Promise<void>;
}

export interface PreparedDevnet {
  readonly dir: string;
  readonly meta: DevnetMeta;
  readonly plans: readonly NodePlan[];
  readonly deploymentPath: string;
  readonly configPaths: readonly string[];
  /** True when this run created the devnet (a new genesis). */
  readonly created: boolean;
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
  if (
    !ok(m.nodes) ||
    !ok(m.genesis_time) ||
    !ok(m.api_port_base) ||
    !ok(m.p2p_port_base) ||
    (m.p2p_host !== undefined && typeof m.p2p_host !== 'string')
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
  // Checked before anything is written (the declarations are only written with a new genesis).
  genesisDeclarations(plans, o.coreNodes ?? nodes);
  await o.check?.(plans);
  if (meta !== undefined && o.reset) {
    rmSync(o.dir, { recursive: true, force: true });
    meta = undefined;
  }
  const created = meta === undefined;
  const genesisTime = meta?.genesis_time ?? Math.floor(o.nowMs / 1000);
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
      devnetDeploymentYaml(o.baseDeployment, plans, genesisTime, o.coreNodes ?? nodes),
      { flag: 'wx' },
    );
  }
  const newMeta: DevnetMeta = {
    nodes,
    genesis_time: genesisTime,
    api_port_base: apiPortBase,
    p2p_port_base: p2pPortBase,
    p2p_host: p2pHost,
  };
  writeFileSync(join(o.dir, META_FILE), `${JSON.stringify(newMeta, null, 2)}\n`);
  const configPaths = plans.map((p) => {
    const nodeDir = join(o.dir, p.name);
    mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
    const path = join(nodeDir, 'user_config.yaml');
    writeFileSync(path, nodeConfigYaml(p, plans), { mode: 0o600 });
    chmodSync(path, 0o600);
    return path;
  });
  return { dir: o.dir, meta: newMeta, plans, deploymentPath, configPaths, created };
}
