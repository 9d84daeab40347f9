/**
 * The scenarios of the reference's `tests/cucumber_tests/features/transactions.feature` (steps in
 * `tests/src/cucumber/steps/manual_transactions/`) that run on one or two nodes, one test each, named
 * after the scenario; the ones with forks, restarts or ten nodes are in transactions-forks.test.ts.
 *
 * Shared pair: NODE_1 (leads with devnet keys 0 to 2; its funding wallet is key 0) and NODE_2 (leads
 * with key 3, its funding wallet), in this process on the fast test deployment (100 ms slots, f = 1/2,
 * the insecure test proofs), joined by the in-memory network (test/mocks/network.ts). Their
 * genesis holds every scenario's wallet resources and sponsored fee accounts, each scenario under its
 * own names, so each scenario starts on a chain at height ≥ 2 with its wallets holding exactly their
 * genesis notes, as F's fresh cluster does; a wallet sends through the node F starts it on (both nodes
 * hold every scenario key). The one-node scenarios (preverification, large inscriptions, whose second
 * node only follows) run on the pair too. "Node wallets funds can be drained…" drains NODE_1's funding
 * wallet and runs last.
 *
 * F's timeouts (60 to 3000 seconds) are upper bounds met in seconds here; F's "not included in 30
 * seconds" waits 5 blocks (about 1 s). The `@local_transactions` scenarios (ten nodes, thousands of
 * outputs, 3000-second timeouts; F runs them by hand only) are scaled down to this pair and tens of
 * outputs, to fit the suite's time on a two-core machine.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ed25519Signer } from '../../../src/crypto/ed25519.ts';
import { FakeNetworkBus } from '../../mocks/network.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';
import {
  balanceOf,
  cucumberDeployment,
  drain,
  fundingPk,
  inscribeOp,
  invalidTransfer,
  isIncluded,
  nodeConfig,
  notIncludedFor,
  pkOf,
  prepare,
  ScenarioWallets,
  signInscription,
  submit,
  submitOk,
  transfer,
  type WalletResource,
  waitConverged,
  waitHeight,
  waitIncluded,
  waitOutputs,
} from '../../utils/cucumber-world.ts';

/** Each scenario's resources: [wallet suffix, node (1 or 2), notes, value]; `sponsor`: F's sponsored fee account. */
const SCENARIOS: Record<string, { wallets: [string, 1 | 2, number, number][]; sponsor?: [number, number] }> =
  {
    managed: {
      wallets: [
        ['WALLET_1A', 1, 0, 0],
        ['WALLET_2A', 2, 0, 0],
      ],
      sponsor: [30, 500],
    },
    drain: {
      wallets: [
        ['WALLET_1A', 1, 0, 0],
        ['WALLET_2A', 2, 0, 0],
      ],
    },
    inscriptions: { wallets: [['WALLET_1A', 1, 1, 2_000_000]] },
    multiple: {
      wallets: [
        ['WALLET_1A', 1, 2, 1000],
        ['WALLET_2A', 2, 0, 0],
      ],
      sponsor: [2, 20000],
    },
    fees: {
      wallets: [
        ['WALLET_1A', 1, 1, 10000],
        ['WALLET_2A', 2, 0, 0],
      ],
    },
    outputs: {
      wallets: [
        ['WALLET_1A', 1, 2, 1000],
        ['WALLET_2A', 2, 0, 0],
      ],
      sponsor: [2, 20000],
    },
    split: {
      wallets: [
        ['WALLET_1A', 1, 3, 100000],
        ['WALLET_2A', 2, 0, 0],
      ],
    },
    robin: {
      wallets: [
        ['WALLET_1A', 1, 1, 100000],
        ['WALLET_2A', 2, 1, 100000],
      ],
    },
    'local robin': {
      wallets: [
        ['WALLET_01A', 1, 1, 100000],
        ['WALLET_02A', 2, 1, 100000],
      ],
    },
    next: {
      wallets: [
        ['WALLET_1A', 1, 2, 50000],
        ['WALLET_2A', 2, 2, 50000],
      ],
    },
    'local next': {
      wallets: [
        ['WALLET_01A', 1, 4, 1100000],
        ['WALLET_02A', 2, 4, 1100000],
      ],
    },
    many: {
      wallets: [
        ['WALLET_1A', 1, 4, 30000],
        ['WALLET_2A', 2, 0, 0],
      ],
    },
    join: {
      wallets: [
        ['WALLET_1A', 1, 10, 25000],
        ['WALLET_2A', 2, 0, 0],
      ],
      sponsor: [4, 20000],
    },
    'in out': {
      wallets: [
        ['WALLET_1A', 1, 3, 100000],
        ['WALLET_2A', 2, 0, 0],
      ],
      sponsor: [2, 20000],
    },
    preverify: { wallets: [['WALLET_1A', 1, 2, 1000]] },
    invalid: {
      wallets: [
        ['WALLET_1A', 1, 2, 1000],
        ['WALLET_2A', 2, 0, 0],
      ],
    },
  };

const sponsorOf = (s: string) => `${s} SPONSOR`;
const RESOURCES: WalletResource[] = Object.entries(SCENARIOS).flatMap(([s, d]) => [
  ...d.wallets.map(([w, , count, amount]) => ({ wallet: `${s} ${w}`, count, amount })),
  ...(d.sponsor ? [{ wallet: sponsorOf(s), count: d.sponsor[0], amount: d.sponsor[1] }] : []),
]);
const ALL_KEYS = RESOURCES.map((r) => r.wallet);

const bus = new FakeNetworkBus();
const [net1, net2] = [bus.node('NODE_1'), bus.node('NODE_2')];
// k = 50: 1000-slot (100 s) epochs, so that the whole run is in the first epoch, where the storage gas
// price is still its genesis value as on F's fresh clusters (usage in an epoch raises it from 1 to 2 at
// its end: ceil(9/8), and ceil(7/8 · 2) keeps it there), which the scenarios' amounts assume; and a fork
// of the two leaders is always resolved (never deeper than k).
const deployment = cucumberDeployment(RESOURCES, { genesisTimeS: Math.floor(Date.now() / 1000), k: 50 });
let n1: TestNode;
let n2: TestNode;
const extra: TestNode[] = [];

before(async () => {
  n1 = await startFastNode({
    deployment,
    config: nodeConfig({ leaderKeys: [0, 1, 2], wallets: ALL_KEYS }),
    network: net1,
  });
  n2 = await startFastNode({
    deployment,
    config: nodeConfig({ leaderKeys: [3], wallets: ALL_KEYS }),
    network: net2,
  });
  // Both start on genesis, then connect: their first blocks may fork, and the longest chain wins.
  bus.connect(net1, net2);
  // F: "all peers must be mode online after startup in 30 seconds".
  for (const n of [n1, n2])
    await waitUntil(() => n.node.chain.consensusState === 'Online', 30_000, 'mode Online');
});
after(async () => {
  for (const n of [...extra, n2, n1]) await n?.stop();
  bus.close();
});

/**
 * The scenario's wallets (full names), each sending through its node, with its sponsor if any;
 * `sponsorFunder`: the one node whose wallet funds every sponsored transaction.
 */
function scenario(
  s: string,
  sponsorFunder?: TestNode,
): {
  w: (name: string) => string;
  wallets: ScenarioWallets;
  sponsorValue: bigint;
} {
  const d = SCENARIOS[s]!;
  const nodeOf = new Map(d.wallets.map(([w, n]) => [`${s} ${w}`, n]));
  return {
    w: (name) => `${s} ${name}`,
    wallets: new ScenarioWallets(
      (wallet) => (nodeOf.get(wallet) === 2 ? n2 : n1),
      d.sponsor ? sponsorOf(s) : undefined,
      sponsorFunder,
    ),
    sponsorValue: d.sponsor ? BigInt(d.sponsor[0] * d.sponsor[1]) : 0n,
  };
}

test('Funding wallets funds are managed', async () => {
  // F's harness reserves the sponsored account's notes itself, for every wallet of the scenario
  // (world.fee_state), so that the two wallets' transactions, sent back to back, never pick the same
  // note. Here a node's wallet picks them and reserves them in that node only: WALLET_2A's transaction
  // funded on NODE_2 right after WALLET_1A's on NODE_1 spent the same notes, and was evicted as
  // inapplicable once WALLET_1A's was included. So NODE_1's wallet funds (and NODE_1 admits) all of
  // them, once it holds WALLET_2A's notes too.
  const { w, wallets } = scenario('managed', n1);
  const [f1, f2] = [fundingPk(0), fundingPk(3)];
  await waitOutputs(n1, f1, { minValue: 10000n }, 10_000);
  await waitOutputs(n2, f2, { minValue: 10000n }, 10_000);
  // Funding wallets are node wallets: the node funds and signs their transfers.
  const t1 = await transfer(n1, f1, pkOf(w('WALLET_1A')), 1000);
  const t2 = await transfer(n2, f2, pkOf(w('WALLET_2A')), 1000);
  await waitOutputs(n1, w('WALLET_1A'), { minValue: 1000n }, 120_000);
  await waitOutputs(n2, w('WALLET_2A'), { minValue: 1000n }, 120_000);
  assert.ok(isIncluded(n1, t1) && isIncluded(n2, t2));
  await waitOutputs(n1, w('WALLET_2A'), { minValue: 1000n }, 120_000);
  await wallets.split(w('WALLET_1A'), 7, 100);
  await wallets.split(w('WALLET_2A'), 7, 100);
  await waitOutputs(n1, w('WALLET_1A'), { minOutputs: 8 }, 120_000);
  await waitOutputs(n2, w('WALLET_2A'), { minOutputs: 8 }, 120_000);
  await waitOutputs(n1, w('WALLET_2A'), { minOutputs: 8 }, 120_000);
  const [c1, c2] = [(await balanceOf(n1, f1)).notes.size, (await balanceOf(n2, f2)).notes.size];
  await wallets.sendEach(w('WALLET_1A'), f1, 5, 100);
  await wallets.sendEach(w('WALLET_2A'), f2, 5, 100);
  await waitOutputs(n1, f1, { minOutputs: Math.max(6, c1 + 5) }, 120_000);
  await waitOutputs(n2, f2, { minOutputs: Math.max(6, c2 + 5) }, 120_000);
});

test('Large inscriptions are included', async () => {
  const { w } = scenario('inscriptions');
  await waitConverged([n1, n2], 2, 1, 180_000);
  // F: the signer is the Ed25519 key of 32 zero bytes; each payload (0xAB bytes) in the channel whose
  // id starts with its size (u64 LE), so that each inscription opens its own channel.
  const signer = new Ed25519Signer(new Uint8Array(32));
  for (const kib of [32, 128, 512, 896]) {
    const size = kib * 1024;
    const channel = new Uint8Array(32);
    new DataView(channel.buffer).setBigUint64(0, BigInt(size), true);
    const op = inscribeOp(signer, channel, new Uint8Array(size).fill(0xab));
    const p = await prepare(n1, { outputs: [], funding: [pkOf(w('WALLET_1A'))], ops: [{ op, proof: null }] });
    signInscription(p, signer);
    await submitOk(n1, p);
    await waitIncluded(n1, p.hash, kib === 896 ? 120_000 : 90_000);
  }
});

test('Two nodes two wallets multiple transactions', async () => {
  const { w, wallets, sponsorValue } = scenario('multiple');
  await waitHeight(n1, 2, 240_000);
  await wallets.sendEach(w('WALLET_1A'), w('WALLET_2A'), 2, 500);
  await waitOutputs(n2, w('WALLET_2A'), { minOutputs: 2 }, 120_000);
  await wallets.sendEach(w('WALLET_2A'), w('WALLET_1A'), 2, 250);
  await wallets.settled(w('WALLET_2A'), 120_000);
  await wallets.feesMatchSponsor(n1, sponsorValue);
  await waitOutputs(n1, w('WALLET_1A'), { exactValue: 1500n }, 120_000);
});

test('Two nodes two wallets verify fees multiple transactions', async () => {
  const { w } = scenario('fees');
  const [a, b] = [pkOf(w('WALLET_1A')), pkOf(w('WALLET_2A'))];
  await waitHeight(n1, 1, 240_000);
  for (const [i, amount] of [1n, 10n, 100n].entries()) {
    const [a0, b0] = [await balanceOf(n1, a), await balanceOf(n2, b)];
    const p = await prepare(n1, { outputs: [{ pk: b, value: amount }], funding: [a] });
    // One input (the largest note covers the amount and the fee), the recipient's output first, then
    // the change to the sender; the fee is what the inputs leave.
    assert.equal(p.inputs.length, 1);
    assert.deepEqual(p.outputs[0], { value: amount, pk: b });
    assert.equal(p.outputs.length, 2);
    assert.equal(p.outputs[1]!.pk, a);
    assert.ok(p.fee > 0n, `the fee is positive: ${p.fee}`);
    await submitOk(n1, p);
    await waitOutputs(n2, w('WALLET_2A'), { minOutputs: i + 1, exactValue: b0.balance + amount }, 120_000);
    const a1 = await waitOutputs(n1, w('WALLET_1A'), { exactValue: a0.balance - amount - p.fee }, 10_000);
    assert.ok([...a1.notes.values()].includes(p.outputs[1]!.value), 'the change note is the sender’s');
  }
});

test('Two nodes two wallets multiple outputs one transaction', async () => {
  const { w, wallets } = scenario('outputs');
  await waitHeight(n1, 2, 240_000);
  await wallets.send(w('WALLET_1A'), [
    { to: w('WALLET_2A'), value: 500 },
    { to: w('WALLET_2A'), value: 500 },
  ]);
  await waitOutputs(n2, w('WALLET_2A'), { minOutputs: 2 }, 120_000);
  await wallets.sendEach(w('WALLET_2A'), w('WALLET_1A'), 2, 250);
  await wallets.settled(w('WALLET_2A'), 120_000);
  await waitOutputs(n1, w('WALLET_1A'), { exactValue: 1500n }, 120_000);
});

test('Coin split with multiple transactions', async () => {
  const { w, wallets } = scenario('split');
  await waitHeight(n1, 2, 300_000);
  await wallets.split(w('WALLET_1A'), 10, 5000);
  await waitOutputs(n1, w('WALLET_1A'), { minOutputs: 12 }, 240_000);
  await wallets.sendEach(w('WALLET_1A'), w('WALLET_2A'), 5, 2000);
  await wallets.send(w('WALLET_1A'), [
    { to: w('WALLET_2A'), value: 2000 },
    { to: w('WALLET_2A'), value: 2000 },
  ]);
  await waitOutputs(n2, w('WALLET_2A'), { minOutputs: 7, minValue: 14000n }, 120_000);
});

/**
 * F's continuous round robin (`execute_continuous_round_robin_user_wallets`): each cycle, every wallet
 * splits off `outputs` notes of `splitValue`, then sends `count` transactions of `value` to the next
 * wallet; a cycle ends when all are included.
 */
async function roundRobin(
  wallets: ScenarioWallets,
  names: readonly string[],
  o: { outputs: number; splitValue: number; count: number; value: number; cycles: number },
): Promise<void> {
  for (let c = 0; c < o.cycles; c++) {
    const splits = await Promise.all(names.map((n) => wallets.split(n, o.outputs, o.splitValue)));
    for (const s of splits) await waitIncluded(s.node, s.hash, 120_000);
    for (const [i, n] of names.entries())
      await wallets.sendEach(n, names[(i + 1) % names.length]!, o.count, o.value);
    for (const n of names) await wallets.settled(n, 120_000);
  }
}

test('Continuous coin split transactions round robin', async () => {
  const { w, wallets } = scenario('robin');
  await waitHeight(n1, 2, 300_000);
  const names = [w('WALLET_1A'), w('WALLET_2A')];
  await roundRobin(wallets, names, { outputs: 5, splitValue: 2500, count: 5, value: 900, cycles: 3 });
});

test('Local continuous coin split transactions round robin', async () => {
  // F: ten nodes and wallets, 50 outputs of 1000 and 50 transactions of 900 per cycle; here the shared
  // pair, two wallets, 10 outputs and 5 transactions (900 and a fee of about 850 take two notes of 1000:
  // the split's ten notes fund five).
  const { w, wallets } = scenario('local robin');
  await waitHeight(n1, 2, 300_000);
  const names = [w('WALLET_01A'), w('WALLET_02A')];
  await roundRobin(wallets, names, { outputs: 10, splitValue: 1000, count: 5, value: 900, cycles: 3 });
});

/**
 * F's stress cycles to the next wallet (`execute_continuous_next_wallet_user_wallet`): each cycle, every
 * wallet sends `count` transactions of `value` to the next wallet; a cycle ends when all are included.
 */
async function nextWalletCycles(
  wallets: ScenarioWallets,
  names: readonly string[],
  o: { cycles: number; count: number; value: number },
): Promise<void> {
  for (let c = 0; c < o.cycles; c++) {
    await Promise.all(
      names.map((n, i) => wallets.sendEach(n, names[(i + 1) % names.length]!, o.count, o.value)),
    );
    for (const n of names) await wallets.settled(n, 300_000);
  }
}

/** F's "I perform S coin split transactions for each user wallet with N outputs of V LGO each". */
async function splitEach(
  wallets: ScenarioWallets,
  names: readonly string[],
  splits: number,
  outputs: number,
  value: number,
) {
  for (const n of names) for (let i = 0; i < splits; i++) await wallets.split(n, outputs, value);
}

test('Continuous transactions next wallet with coin split', async () => {
  const { w, wallets } = scenario('next');
  await waitConverged([n1, n2], 2, 1, 300_000);
  const names = [w('WALLET_1A'), w('WALLET_2A')];
  await splitEach(wallets, names, 2, 10, 4000);
  for (const [i, n] of names.entries()) await waitOutputs(i === 0 ? n1 : n2, n, { minOutputs: 20 }, 300_000);
  await nextWalletCycles(wallets, names, { cycles: 3, count: 20, value: 1000 });
});

test('Local continuous transactions next wallet with coin split', async () => {
  // F: ten nodes and wallets, 4 splits of 250 outputs each (1000 outputs a wallet), one cycle of 250
  // transactions, then an eleventh node joins; here the shared pair, two wallets, 4 splits of 25
  // outputs, one cycle of 25 transactions, then NODE_LATE joins NODE_1.
  const { w, wallets } = scenario('local next');
  await waitConverged([n1, n2], 2, 0, 300_000);
  const names = [w('WALLET_01A'), w('WALLET_02A')];
  await splitEach(wallets, names, 4, 25, 4000);
  for (const [i, n] of names.entries()) await waitOutputs(i === 0 ? n1 : n2, n, { minOutputs: 100 }, 300_000);
  await nextWalletCycles(wallets, names, { cycles: 1, count: 25, value: 1 });
  const netLate = bus.node('NODE_LATE');
  bus.connect(netLate, net1);
  const late = await startFastNode({
    deployment,
    config: nodeConfig({ leaderKeys: [], ibdPeers: ['NODE_1'] }),
    network: netLate,
  });
  extra.push(late);
  await waitConverged([n1, n2, late], 2, 0, 300_000);
});

test('Coin split with many transfers to other', async () => {
  const { w, wallets } = scenario('many');
  await waitHeight(n1, 2, 300_000);
  for (let i = 0; i < 4; i++) await wallets.split(w('WALLET_1A'), 25, 1000);
  await waitOutputs(n1, w('WALLET_1A'), { minOutputs: 100 }, 240_000);
  await wallets.sendEach(w('WALLET_1A'), w('WALLET_2A'), 50, 1000);
  await waitOutputs(n2, w('WALLET_2A'), { minOutputs: 50 }, 240_000);
  await waitOutputs(n1, w('WALLET_1A'), { maxValue: 70000n }, 180_000);
  await wallets.settled(w('WALLET_1A'), 60_000);
});

test('Large coin split followed by large coin join transaction succeed', async () => {
  const { w, wallets, sponsorValue } = scenario('join');
  const a = w('WALLET_1A');
  await waitHeight(n1, 2, 240_000);
  // 250 outputs: the transaction spends the wallet's ten notes (the sponsor pays the fee).
  await wallets.split(a, 250, 1000);
  await waitOutputs(n1, a, { minOutputs: 250 }, 180_000);
  await wallets.send(a, [{ to: w('WALLET_2A'), value: 1000 }]);
  await waitOutputs(n2, w('WALLET_2A'), { minOutputs: 1 }, 180_000);
  await waitOutputs(n1, a, { minOutputs: 1, minValue: 1000n }, 10_000);
  await wallets.settled(a, 60_000);
  // The coin join of 249 notes: a Transfer is signed by one ZkSig of at most 32 keys, one per input
  // (F kms MAX_ZK_SIGNING_KEYS, checked by `verify_multi`), the sponsor's fee note among them, so it
  // joins in rounds: groups of 31 notes, then the groups' outputs.
  for (;;) {
    const notes = [...(await balanceOf(n1, pkOf(a))).notes.entries()];
    if (notes.length === 1) break;
    const groups: [string, bigint][][] = [];
    for (let i = 0; i < notes.length; i += 31) groups.push(notes.slice(i, i + 31));
    // One group at a time: the account's four notes (and their change, once included) pay the fees.
    for (const g of groups) {
      const p = await prepare(n1, {
        outputs: [{ pk: pkOf(a), value: g.reduce((s, [, v]) => s + v, 0n) }],
        funding: [pkOf(sponsorOf('join'))],
        inputs: g.map(([id]) => id),
      });
      await submitOk(n1, p);
      wallets.sent.get(a)!.push({ hash: p.hash, fee: p.fee, node: n1 });
      await waitIncluded(n1, p.hash, 60_000);
    }
  }
  await wallets.settled(a, 60_000);
  await waitOutputs(n1, a, { exactOutputs: 1, exactValue: 249000n }, 20_000);
  await wallets.feesMatchSponsor(n1, sponsorValue);
});

test('Transaction with multiple inputs and multiple outputs', async () => {
  const { w, wallets, sponsorValue } = scenario('in out');
  await waitHeight(n1, 2, 240_000);
  // The wallet's 3 notes of 100000 fund 250 outputs of 1000 and 50000 of change.
  const s = await wallets.send(
    w('WALLET_1A'),
    Array.from({ length: 250 }, () => ({ to: w('WALLET_2A'), value: 1000 })),
  );
  await waitOutputs(n2, w('WALLET_2A'), { minOutputs: 250 }, 60_000);
  await waitOutputs(n1, w('WALLET_1A'), { exactValue: 50000n }, 20_000);
  assert.ok(isIncluded(n1, s.hash));
  await wallets.feesMatchSponsor(n1, sponsorValue);
});

test('Preverification rejects a structurally invalid transaction', async () => {
  await waitHeight(n1, 2, 240_000);
  const bad = invalidTransfer('stateless');
  const r = await submit(n1, bad.signed);
  assert.notEqual(r.status, 200, 'rejected');
  assert.match(r.text, /Inputs cannot be empty/);
});

test('Invalid transactions do not block valid transactions', async () => {
  const { w, wallets } = scenario('invalid');
  await waitHeight(n1, 2, 240_000);
  const bad = invalidTransfer('stateful');
  assert.equal(
    (await submit(n1, bad.signed)).status,
    200,
    'admitted (valid until checked against the ledger)',
  );
  const good = await wallets.send(w('WALLET_1A'), [{ to: w('WALLET_2A'), value: 1 }]);
  await waitIncluded(n1, good.hash, 120_000);
  await notIncludedFor(n1, bad.hash, 5, 30_000);
});

test('Node wallets funds can be drained to user wallets and vice versa', async () => {
  const { w } = scenario('drain');
  const [a, f1] = [pkOf(w('WALLET_1A')), fundingPk(0)];
  // F drains every key of the node's wallet; here its funding wallet (key 0; keys 1 and 2 stay its
  // stake, so that it keeps leading).
  const d1 = await drain(n1, f1, a);
  assert.ok(d1);
  await waitOutputs(n1, a, { minValue: 20000n }, 10_000);
  const s = new ScenarioWallets(() => n1);
  await s.split(w('WALLET_1A'), 250, 1);
  await waitOutputs(n1, a, { minOutputs: 250 }, 120_000);
  await s.split(w('WALLET_1A'), 250, 1);
  await waitOutputs(n1, a, { minOutputs: 500 }, 120_000);
  const d2 = await drain(n1, a, f1);
  assert.ok(d2);
  await waitOutputs(n1, f1, { minValue: 20000n }, 120_000);
  // Draining again: what is left are notes of 1, fewer than the fee of a transfer spending them.
  const left = await balanceOf(n1, a);
  assert.ok(left.notes.size >= 500 - 32);
});
