/**
 * A node given a circuits folder in the reference's layout (`--circuits`) verifies with that folder's keys
 * and runs as a validating follower for the circuits it cannot prove. Two nodes on one devnet, real Groth16
 * proofs: node 0 with this node's own circuits leads; node 1's folder holds the reference's PoL
 * verification key (test/fixtures/reference-circuits) and the reference's form of the ZkSig circuit (a
 * native witness generator only). Node 1 says at start which roles are off, does not lead, refuses node 0's
 * blocks (their proofs are not under the reference's key) with a clear rejection, serves its read
 * endpoints as usual, and answers a ZK signature request with a 500 that says why.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bytesToHex } from '../../src/codec/hex.ts';
import { frToBytes } from '../../src/crypto/field.ts';
import { zkPublicKey } from '../../src/crypto/zk-keys.ts';
import { KEYS_PER_NODE } from '../../src/devnet/plan.ts';
import { devnetSecretKey } from '../../src/ledger/devnet-keys.ts';
import { testCircuitFolder } from '../utils/circuit-folders.ts';
import { SimCluster, until } from '../utils/sim-cluster.ts';

const folder = testCircuitFolder({ referencePol: true, verifyOnly: ['zksig'] });
let cluster: SimCluster;

before(async () => {
  cluster = await SimCluster.create({
    nodes: 2,
    slotMs: 1000,
    insecureTestProofs: false,
    extraArgs: (i) => (i === 1 ? ['--circuits', folder.dir] : []),
  });
  await cluster.start();
});

after(async () => {
  await cluster?.close();
  folder.remove();
});

describe('a follower with the reference PoL key', () => {
  test('the start log says which roles are off and why', () => {
    const n1 = cluster.nodes[1]!;
    const off = n1.lines(/^role off: /);
    assert.deepEqual(off.map((l) => l.circuit).sort(), ['pol', 'zksig']);
    assert.match(String(off.find((l) => l.circuit === 'pol')?.reason), /native witness generator/);
    assert.equal(n1.lines('circuits folder loaded')[0]?.from, 'option');
    assert.equal(cluster.nodes[0]!.lines(/^role off: /).length, 0);
  });

  test("it refuses the blocks of the node's own circuits, does not lead, and serves reads", async () => {
    const [n0, n1] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    await until(
      'node 0 makes blocks and node 1 refuses one',
      async () =>
        (await n0.info()).height >= 1 &&
        n1.logs.some((l) => /proof of leadership does not verify/.test(JSON.stringify(l))),
      150_000,
      () => `node 0: ${n0.tail(5)}\nnode 1: ${n1.tail(10)}`,
    );
    const info = await n1.info();
    assert.equal(info.height, 0, 'node 1 applied none of them and made none');
    assert.equal(n1.lines('block produced').length, 0);
    assert.ok((await n1.get<unknown[]>('/network/info')) !== undefined);
  });

  test('a ZK signature it cannot make answers 500 saying why', async () => {
    const n1 = cluster.nodes[1]!;
    // Node 1's first funded key, which its key store holds.
    const pk = bytesToHex(frToBytes(zkPublicKey(devnetSecretKey(KEYS_PER_NODE))));
    const r = await n1.post<{ code: number; message: string }>('/wallet/sign/zk', {
      tx_hash: '00'.repeat(32),
      pks: [pk],
    });
    assert.equal(r.status, 500);
    assert.match(r.body.message, /cannot make zksig proofs: .*native witness generator/);
  });
});
