/**
 * What the Blend sims share: the `/blend/info` answer, a node's own values from its user configuration,
 * and the wait until every node follows the chain.
 */
import { readFileSync } from 'node:fs';
import { type SimCluster, type SimNode, until } from './sim-cluster.ts';

/** `GET /blend/info`. */
export interface BlendInfo {
  node_id: string;
  core_info: { current_epoch_peers: [string, boolean][]; old_epoch_peers: string[] | null } | null;
}

export function blendInfo(n: SimNode): Promise<BlendInfo> {
  return n.get<BlendInfo>('/blend/info');
}

/** The 32-byte hex value of `key` in the node's user_config.yaml (its funding key, its declaration). */
export function userConfigHex(net: SimCluster, n: SimNode, key: string): string {
  const cfg = readFileSync(`${net.dir}/net/${n.name}/user_config.yaml`, 'utf8');
  return new RegExp(`${key}: '([0-9a-f]{64})'`).exec(cfg)![1]!;
}

export async function everyNodeOnline(net: SimCluster, ms: number): Promise<void> {
  await until(
    'every node Online',
    async () => (await Promise.all(net.nodes.map((n) => n.info()))).every((i) => i.mode === 'Online'),
    ms,
  );
}
