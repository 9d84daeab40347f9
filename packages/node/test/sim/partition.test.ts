/**
 * A network partition: five node processes, each in its own Linux network namespace (root only; the
 * test says it is skipped otherwise), split 3/2 by blackhole routes for a while, then healed. Both sides
 * go on producing on their own; once healed every node converges on one chain, the minority's blocks
 * leave the chain (the minority reorgs onto the longer majority chain), and a transfer the minority had
 * included goes back to its mempool and is included again on the common chain.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { NetnsLab } from '../utils/netns.ts';
import { commonPrefix, SimCluster, type SimNode, until } from '../utils/sim-cluster.ts';

const N = 5;
const MAJORITY = [0, 1, 2];
const MINORITY = [3, 4];
const canRun = NetnsLab.available();
let lab: NetnsLab | undefined;
let net: SimCluster | undefined;

before(async () => {
  if (!canRun) return;
  lab = NetnsLab.create(N);
  // k = 20: the minority's own blocks during the cut stay well within the depth a node may reorg.
  net = await SimCluster.create({ nodes: N, k: 20, hosts: lab.hosts, prefix: (i) => lab!.prefix(i) });
});
after(async () => {
  await net?.close();
  lab?.close();
});

function fundingKey(n: SimNode): string {
  const cfg = readFileSync(`${net!.dir}/net/${n.name}/user_config.yaml`, 'utf8');
  return /funding_pk: '([0-9a-f]{64})'/.exec(cfg)![1]!;
}

async function included(n: SimNode, hash: string): Promise<boolean> {
  const [status] = (await n.post<string[]>('/mantle/status', [hash])).body;
  if (status === 'Pending') return false;
  return (await fetch(`${n.api}/cryptarchia/transaction/${hash}`, { signal: AbortSignal.timeout(5000) })).ok;
}

test('partition 3/2 in network namespaces, heal: one chain, the minority reorgs, its transfer returns', {
  skip: canRun ? false : 'needs root to create Linux network namespaces',
}, async () => {
  const c = net!;
  const nodes = c.nodes;
  await c.start();
  await c.converged({ minHeight: 3 });
  const genesis = await c.genesis();

  lab!.partition(MAJORITY, MINORITY);
  const atCut = (await nodes[0]!.info()).height;
  // A transfer on the minority side, included there.
  const from = fundingKey(nodes[3]!);
  const sent = await nodes[3]!.post<{ hash: string }>('/wallet/transactions/transfer-funds', {
    recipient_public_key: fundingKey(nodes[0]!),
    amount: 777,
    change_public_key: from,
    funding_public_keys: [from],
  });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  const { hash } = sent.body;
  await until('the transfer included on the minority side', () => included(nodes[3]!, hash), 30_000);
  // Both sides grow apart, the majority faster.
  await until(
    'both sides past the cut, the majority ahead',
    async () => {
      const [maj, min] = await Promise.all([nodes[0]!.info(), nodes[3]!.info()]);
      return maj.height >= atCut + 6 && min.height >= atCut + 2 && maj.height > min.height + 1;
    },
    60_000,
  );
  const minorityChain = await nodes[3]!.chain(genesis);
  const majorityChain = await nodes[0]!.chain(genesis);
  const split = commonPrefix([minorityChain, majorityChain]).length;
  assert.ok(split < minorityChain.length, 'the minority has blocks of its own');
  assert.ok(!majorityChain.includes(minorityChain[minorityChain.length - 1]!));

  lab!.heal();
  const common = await c.converged({ minHeight: majorityChain.length, ms: 90_000 });
  // The minority's own blocks are gone from the common chain.
  for (const id of minorityChain.slice(split)) assert.ok(!common.includes(id), `${id} left the chain`);
  // The transfer, reverted with them, is included again on the common chain, on every node.
  await until(
    'the transfer included on every node',
    async () => (await Promise.all(nodes.map((n) => included(n, hash)))).every(Boolean),
    60_000,
  );
});
