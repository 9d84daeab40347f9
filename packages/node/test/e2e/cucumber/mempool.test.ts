/**
 * The one-node scenarios of the reference's `tests/cucumber_tests/features/mempool.feature`, one test
 * each, named after the scenario (the three-node one is in test/sim/cucumber/mempool.test.ts). They run
 * on the fast test deployment (100 ms slots, f = 1/2, the insecure test proofs), where F's timeouts of
 * 30 to 360 seconds are upper bounds met in about a second.
 *
 * Shared node: "Included transaction is removed…", "Included transaction stays absent…" (which
 * restarts it) and "Invalid transaction is not retained…" run in order on one node (NODE_1) whose
 * genesis holds every scenario's wallet resources, each scenario under its own wallet names; each
 * starts on a chain at height ≥ 2 with its wallets holding exactly their genesis notes, as F's fresh
 * cluster does. "Submitted transaction becomes visible…" and "Pending transaction survives restart…"
 * each have their own node, which does not lead (see `startQuietNode`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { openStore } from '../../../src/storage/open.ts';
import { blockOn, followerConfig } from '../../mocks/chain-feed.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';
import {
  balanceOf,
  call,
  cucumberDeployment,
  height,
  invalidTransfer,
  isIncluded,
  isPending,
  notIncludedFor,
  pkOf,
  prepare,
  remainsNotPending,
  submit,
  submitOk,
  transfer,
  type WalletResource,
  waitHeight,
  waitIncluded,
  waitNotPending,
  withWallets,
} from '../../utils/cucumber-world.ts';

/** F's resources of every scenario here: account 1 two notes of 1000 (WALLET_A), account 2 none (WALLET_B). */
const resources = (scenario: string): WalletResource[] => [
  { wallet: `${scenario} WALLET_A`, count: 2, amount: 1000 },
  { wallet: `${scenario} WALLET_B`, count: 0, amount: 0 },
];
const SHARED = ['removed', 'restart'];
const wallets = (s: string) => [`${s} WALLET_A`, `${s} WALLET_B`];

const deployment = cucumberDeployment(
  SHARED.flatMap(resources),
  // A fixed genesis time: the node is restarted on the same chain.
  { genesisTimeS: Math.floor(Date.now() / 1000) },
);
const config = withWallets(SHARED.flatMap(wallets));
const dirs: string[] = [];
let n1: TestNode;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-cucumber-'));
  dirs.push(dir);
  n1 = await startFastNode({ deployment, config, dir });
});
after(async () => {
  await n1?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A node on its own chain that does not lead (F slows block production down where a transaction must
 * stay pending; here no block is made unless the test makes one: with 100 ms slots a block may
 * otherwise include the transaction before the view is read): genesis 20 s ago, so that the blocks
 * made here (slots 1, 2) are not from the future; it holds only the scenario's wallets (stake 2000 of
 * more than 2e9), so it does not win slots in practice. At height 2.
 */
async function startQuietNode(scenario: string, dir: string) {
  const deployment = cucumberDeployment(resources(scenario), {
    genesisTimeS: Math.floor(Date.now() / 1000) - 20,
  });
  const config = withWallets(wallets(scenario), followerConfig());
  const tn = await startFastNode({ deployment, config, dir });
  const chain = tn.node.chain;
  for (const slot of [1n, 2n]) await chain.submit(blockOn(chain, chain.tip().id, slot, []));
  return { tn, deployment, config };
}

test('Submitted transaction becomes visible in current-tip mempool view', async () => {
  const s = 'visible';
  const dir = mkdtempSync(join(tmpdir(), 'logos-cucumber-'));
  dirs.push(dir);
  const { tn } = await startQuietNode(s, dir);
  try {
    await waitHeight(tn, 2, 240_000);
    const [a, b] = wallets(s).map(pkOf);
    const tx = await prepare(tn, { outputs: [{ pk: b!, value: 100 }], funding: [a!] });
    await submitOk(tn, tx);
    await waitUntil(() => isPending(tn, tx.hash), 30_000, 'pending');
    // Submitted twice (as to several nodes): the second answers the same and the view holds it once.
    await submitOk(tn, tx);
    const view = JSON.parse((await call(tn, 'GET', '/mempool/view')).text) as string[];
    assert.equal(view.filter((h) => h === tx.hash).length, 1, 'pending once in the current-tip view');
  } finally {
    await tn.stop();
  }
});

test('Included transaction is removed from mempool view', async () => {
  const [a, b] = wallets('removed').map(pkOf);
  await waitHeight(n1, 2, 240_000);
  const tx = await prepare(n1, { outputs: [{ pk: b!, value: 100 }], funding: [a!] });
  await submitOk(n1, tx);
  await waitIncluded(n1, tx.hash, 240_000);
  await waitNotPending([n1], tx.hash, 30_000);
  const credited = (await balanceOf(n1, b!)).balance;
  // Submitted again after its inclusion: admitted (no ledger check on admission, as the reference),
  // then dropped (its inputs are spent); it never applies a second time.
  await submitOk(n1, tx);
  await remainsNotPending([n1], tx.hash, 2, 180_000);
  await waitNotPending([n1], tx.hash, 30_000);
  assert.equal((await balanceOf(n1, b!)).balance, credited, 'the recipient is not credited twice');
});

test('Pending transaction survives restart before inclusion', async () => {
  const s = 'pending restart';
  const dir = mkdtempSync(join(tmpdir(), 'logos-cucumber-'));
  dirs.push(dir);
  const quiet = await startQuietNode(s, dir);
  let tn = quiet.tn;
  try {
    await waitHeight(tn, 2, 360_000);
    const [a, b] = wallets(s).map(pkOf);
    const tx = await prepare(tn, { outputs: [{ pk: b!, value: 100 }], funding: [a!] });
    await submitOk(tn, tx);
    await waitUntil(() => isPending(tn, tx.hash), 30_000, 'pending');
    await tn.stop();
    // F reads the node's mempool recovery data; here the stopped node's store.
    const store = await openStore(resolve(dir, quiet.config.storage.backend.folder_name));
    try {
      const stored = store.mempool.load().txs.map((t) => bytesToHex(t.hash));
      assert.ok(stored.includes(tx.hash), 'the mempool recovery data holds the transaction');
    } finally {
      await store.close();
    }
    tn = await startFastNode({ deployment: quiet.deployment, config: quiet.config, dir });
    await waitUntil(() => isPending(tn, tx.hash), 30_000, 'pending after the restart');
  } finally {
    await tn.stop();
  }
});

test('Included transaction stays absent from mempool after restart', async () => {
  const [a, b] = wallets('restart').map(pkOf);
  await waitHeight(n1, 2, 240_000);
  const hash = await transfer(n1, a!, b!, 100);
  await waitIncluded(n1, hash, 240_000);
  await n1.stop();
  n1 = await startFastNode({ deployment, config, dir: dirs[0]! });
  const h = height(n1);
  await waitHeight(n1, Math.max(3, h + 1), 240_000);
  await waitNotPending([n1], hash, 30_000);
  assert.ok(!(await isPending(n1, hash)));
});

test('Invalid transaction is not retained in mempool', async () => {
  await waitHeight(n1, 2, 240_000);
  const bad = invalidTransfer('stateful');
  // "I try to submit": the node may refuse it or admit it; either way it is never included.
  const r = await submit(n1, bad.signed);
  assert.ok([200, 422, 400].includes(r.status), `${r.status} ${r.text}`);
  // And a transaction whose proof is broken: refused with a plain-text 422, never pending.
  const a = pkOf('removed WALLET_A');
  const good = await prepare(n1, { outputs: [{ pk: a, value: 13 }], funding: [a] });
  const signed = good.signed as unknown as { mantle_tx: unknown; ops_proofs: { ZkSig: { pi_a: string } }[] };
  const zk = signed.ops_proofs[0]!.ZkSig;
  const broken = { ZkSig: { ...zk, pi_a: (zk.pi_a[0] === '0' ? '1' : '0') + zk.pi_a.slice(1) } };
  const refused = await submit(n1, { mantle_tx: signed.mantle_tx, ops_proofs: [broken] } as never);
  assert.equal(refused.status, 422, refused.text);
  assert.ok(!refused.text.startsWith('{'), `a plain-text body: ${refused.text}`);
  await notIncludedFor(n1, bad.hash, 5, 30_000);
  await waitNotPending([n1], bad.hash, 30_000);
  assert.equal(await isPending(n1, good.hash), false);
  assert.equal(isIncluded(n1, good.hash), false);
});
