/**
 * Three node processes on loopback (fast test deployment, insecure test proofs): nodes 0 and 1 converge
 * on one chain and keep producing; a transfer submitted to node 0 is included and readable on both;
 * node 2, started late, catches up by IBD and reads the same transfer; node 1, killed with SIGKILL and
 * restarted, catches up.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SimCluster, type SimNode, until } from '../utils/sim-cluster.ts';

let net: SimCluster;
before(async () => {
  net = await SimCluster.create({ nodes: 3 });
});
after(async () => {
  await net?.close();
});

/** Node i's first funded devnet key (the devnet gives node i keys 4i..4i+3). */
async function fundedKey(n: SimNode): Promise<string> {
  const cfg = await import('node:fs').then((fs) =>
    fs.readFileSync(`${net.dir}/net/${n.name}/user_config.yaml`, 'utf8'),
  );
  return /funding_pk: '([0-9a-f]{64})'/.exec(cfg)![1]!;
}

async function txIncludedOn(n: SimNode, hash: string): Promise<boolean> {
  const [status] = (await n.post<string[]>('/mantle/status', [hash])).body;
  if (status === 'Pending') return false;
  const r = await fetch(`${n.api}/cryptarchia/transaction/${hash}`, { signal: AbortSignal.timeout(5000) });
  return r.status === 200;
}

test('three nodes: one chain, a transfer on all, a late node by IBD, a SIGKILL restart', async () => {
  const [n0, n1, n2] = net.nodes as [SimNode, SimNode, SimNode];
  await net.start([0, 1]);
  const first = await net.converged({ minHeight: 3, indices: [0, 1] });

  // A transfer from node 0's wallet to node 2's key: included, and readable on node 1.
  const from = await fundedKey(n0);
  const to = await fundedKey(n2);
  const sent = await n0.post<{ hash: string }>('/wallet/transactions/transfer-funds', {
    recipient_public_key: to,
    amount: 1234,
    change_public_key: from,
    funding_public_keys: [from],
  });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  const { hash } = sent.body;
  await until(
    'the transfer included on nodes 0 and 1',
    async () => (await Promise.all([n0, n1].map((n) => txIncludedOn(n, hash)))).every(Boolean),
    60_000,
  );

  // The chain keeps growing.
  const grown = await net.converged({ minHeight: first.length + 2, indices: [0, 1] });
  assert.deepEqual(grown.slice(0, first.length), first, 'the common chain only grows');

  // Node 2 starts late: IBD from node 0, then it follows; it holds the transfer and the coins it got.
  const before = await n2.get<{ balance: number }>(`/wallet/${to}/balance`).catch(() => undefined);
  assert.equal(before, undefined, 'node 2 is not running yet');
  await net.start([2]);
  await until(
    'node 2 follows',
    async () => (await n2.info()).phase === 'Following',
    60_000,
    () => n2.tail(),
  );
  assert.ok(n2.lines(/Initial Block Download completed/).length === 1, 'node 2 ran IBD');
  await net.converged({ minHeight: grown.length + 1 });
  await until('the transfer readable on node 2', () => txIncludedOn(n2, hash), 30_000);
  const balance = await n2.get<{ balance: number; notes: Record<string, number> }>(`/wallet/${to}/balance`);
  assert.ok(
    Object.values(balance.notes).includes(1234),
    `node 2 owns the 1234 note: ${JSON.stringify(balance)}`,
  );

  // Node 1 crashes; the others go on; restarted, it catches up.
  await n1.kill();
  const atKill = (await n0.info()).height;
  await until('the chain grows without node 1', async () => (await n0.info()).height >= atKill + 2, 60_000);
  await net.start([1]);
  await net.converged({ minHeight: atKill + 3 });
  assert.ok(n0.running && n1.running && n2.running);
});
