/**
 * The `/pow/*` endpoints on a fast leading node (100 ms slots, the insecure test proofs): status and
 * toggles, the claimable tickets, a claim with no ticket (`tx_hash: null`), a claim of tickets found
 * here on the node's own chain (put in the node's winner store as the miner would) that is included
 * and pays the address, the optional and lenient claim body, the 500 without a target, and the
 * Bootstrapping gating (408 for status, claimable and claim, and for the leader claim; the toggles answer
 * at once).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hexToBytes } from '../../../src/codec/hex.ts';
import { frFromBytes } from '../../../src/crypto/field.ts';
import { Opcode } from '../../../src/mantle/ops.ts';
import type { SignedMantleTx } from '../../../src/mantle/tx.ts';
import type { UserConfig } from '../../../src/node/config.ts';
import { devnetConfig, fundedDevnetKeys } from '../../../src/node/devnet.ts';
import { findWinners } from '../../unit/pow/helpers.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

const KEYS = fundedDevnetKeys().map((k) => k.publicKey);

interface Reply {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies checked field by field
  json: any;
}

async function call(
  tn: TestNode,
  method: string,
  path: string,
  body?: { text: string; type?: string },
): Promise<Reply> {
  const res = await fetch(`${tn.base}${path}`, {
    method,
    ...(body ? { body: body.text, headers: { 'content-type': body.type ?? 'application/json' } } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** A key's balance through the API (0 when it holds no notes). */
async function balance(tn: TestNode, pk: string): Promise<bigint> {
  const r = await fetch(`${tn.base}/wallet/${pk}/balance`);
  if (r.status === 404) return 0n;
  const m = /"balance":(\d+)/.exec(await r.text());
  return BigInt(m![1]!);
}

/** A transaction pending in the mempool or already included in a block. */
function findTx(tn: TestNode, hash: Uint8Array): SignedMantleTx {
  const pending = tn.node.mempool.get(hash);
  if (pending) return pending;
  const at = tn.node.chain.transactionLocation(hash);
  assert.ok(at, 'the claim is neither pending nor included');
  return tn.node.chain.block(at.block)!.transactions[at.position]!;
}

/** Tickets won on the node's tip block, added to its winner store. */
async function addWinners(tn: TestNode, n: number): Promise<void> {
  const tip = tn.node.chain.tip();
  for (const w of findWinners(tip.state, tip.id, tip.slot, n)) await tn.node.powWinners.add(w);
}

function withTargets(targets: { public_key: string; threshold: bigint }[]): UserConfig {
  const c = devnetConfig();
  return { ...c, pow: { ...c.pow, auto_claim: { targets, tick: { unit: 'seconds', value: 3600n } } } };
}

describe('PoW endpoints on an Online node', () => {
  let tn: TestNode;
  const target = KEYS[0]!;
  before(async () => {
    tn = await startFastNode({ config: withTargets([{ public_key: target, threshold: 1n << 62n }]) });
    await waitUntil(() => tn.node.chain.consensusState === 'Online', 10_000, 'Online');
    await waitUntil(() => tn.node.chain.tip().height >= 2, 10_000, 'two blocks');
  });
  after(() => tn.stop());

  test('status: mining off at start, auto-claim armed with its target and balance; the toggles change it', async () => {
    const s = await call(tn, 'GET', '/pow/status');
    assert.equal(s.status, 200);
    assert.equal(s.json.is_mining, false);
    assert.equal(s.json.are_rewards_enabled, true);
    assert.equal(s.json.auto_claim.is_armed, true);
    assert.deepEqual(s.json.auto_claim.tick, { unit: 'seconds', value: 3600 });
    assert.equal(s.json.auto_claim.targets.length, 1);
    assert.equal(s.json.auto_claim.targets[0].public_key, target);
    assert.match(s.text, /"threshold":4611686018427387904,/, 'u64 values exact');
    assert.ok(s.json.auto_claim.targets[0].balance > 0, 'the funded key has a balance');
    for (const [path, field, want] of [
      ['/pow/mining/start', 'is_mining', true],
      ['/pow/mining/stop', 'is_mining', false],
      ['/pow/auto-claim/stop', 'is_armed', false],
      ['/pow/auto-claim/start', 'is_armed', true],
    ] as const) {
      const r = await call(tn, 'PUT', path);
      assert.equal(r.status, 200, path);
      assert.equal(r.text, 'null', path);
      const st = (await call(tn, 'GET', '/pow/status')).json;
      assert.equal(field === 'is_mining' ? st.is_mining : st.auto_claim.is_armed, want, path);
    }
  });

  test('claim with no ticket: tx_hash null; claimable is empty', async () => {
    assert.deepEqual((await call(tn, 'GET', '/pow/rewards/claimable')).json, {
      claimable_tickets: 0,
      slots_until_expiry: [],
    });
    const r = await call(tn, 'POST', '/pow/claim');
    assert.equal(r.status, 200);
    assert.equal(r.text, '{"tx_hash":null}');
  });

  test('claim of ready tickets to an address: added to the mempool, included, paid; the tickets settle', async () => {
    const to = KEYS[2]!;
    const before = await balance(tn, to);
    await addWinners(tn, 2);
    const c = await call(tn, 'GET', '/pow/rewards/claimable');
    assert.equal(c.json.claimable_tickets, 2);
    for (const s of c.json.slots_until_expiry) assert.ok(s > 0 && s <= tn.node.chain.config.pow.slot_window);
    const r = await call(tn, 'POST', '/pow/claim', { text: JSON.stringify({ claim_address: to }) });
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.tx_hash, /^[0-9a-f]{64}$/);
    const hash = hexToBytes(r.json.tx_hash);
    assert.equal((await call(tn, 'GET', '/pow/rewards/claimable')).json.claimable_tickets, 0);
    await waitUntil(
      () => tn.node.chain.transactionLocation(hash) !== undefined,
      15_000,
      'the claim included',
    );
    await waitUntil(() => tn.node.powWinners.pending().length === 0, 5_000, 'the claim settled');
    const reward = tn.node.chain.tip().state.pow.epoch_reward;
    const gained = (await balance(tn, to)) - before;
    assert.ok(gained > 0n && gained < 2n * reward, `gained ${gained}`);
  });

  test('the body is optional and lenient: invalid JSON or key counts as none (the target is paid)', async () => {
    for (const body of [
      undefined,
      { text: '{not json' },
      { text: JSON.stringify({ claim_address: 'zz' }) },
      { text: 'hello', type: 'text/plain' },
    ]) {
      await addWinners(tn, 1);
      const r = await call(tn, 'POST', '/pow/claim', body);
      assert.equal(r.status, 200, `${body?.text}: ${r.text}`);
      assert.match(r.json.tx_hash, /^[0-9a-f]{64}$/);
      const tx = findTx(tn, hexToBytes(r.json.tx_hash));
      const transfer = tx.mantle_tx.ops.at(-1)!;
      assert.equal(transfer.opcode, Opcode.Transfer);
      const out = transfer.opcode === Opcode.Transfer ? transfer.payload.outputs[0]! : undefined;
      assert.equal(out?.pk, frFromBytes(hexToBytes(target)), 'paid to the auto-claim target');
    }
  });
});

describe('PoW claim without a target', () => {
  let tn: TestNode;
  before(async () => {
    tn = await startFastNode({ config: withTargets([]) });
    await waitUntil(() => tn.node.chain.consensusState === 'Online', 10_000, 'Online');
    await waitUntil(() => tn.node.chain.tip().height >= 1, 10_000, 'a block');
  });
  after(() => tn.stop());

  test('no claim_address and no target: 500 with the reference text; auto-claim cannot be armed', async () => {
    await addWinners(tn, 1);
    const r = await call(tn, 'POST', '/pow/claim');
    assert.equal(r.status, 500);
    assert.deepEqual(r.json, {
      code: 500,
      message:
        'Failed to claim PoW rewards: no claim address given and no auto-claim target is below its threshold',
    });
    await call(tn, 'PUT', '/pow/auto-claim/start');
    assert.equal((await call(tn, 'GET', '/pow/status')).json.auto_claim.is_armed, false);
  });
});

describe('PoW endpoints while Bootstrapping', () => {
  let tn: TestNode;
  before(async () => {
    const c = devnetConfig();
    tn = await startFastNode({
      config: { ...c, api: { backend: { ...c.api.backend, timeout: 1 } } },
      bootstrap: { prolonged_bootstrap_period: 3600 },
    });
  });
  after(() => tn.stop());

  test('status, claimable and claim wait for Online (408 after the API timeout); the toggles answer at once', async () => {
    assert.equal(tn.node.chain.consensusState, 'Bootstrapping');
    for (const [method, path] of [
      ['GET', '/pow/status'],
      ['GET', '/pow/rewards/claimable'],
      ['POST', '/pow/claim'],
    ] as const) {
      const t0 = Date.now();
      const r = await call(tn, method, path);
      assert.equal(r.status, 408, path);
      assert.equal(r.text, '');
      assert.ok(Date.now() - t0 >= 900, `${path} answered before the timeout`);
    }
    const r = await call(tn, 'PUT', '/pow/mining/start');
    assert.deepEqual([r.status, r.text], [200, 'null']);
  });

  test('POST /leader/claim waits for Online too (F chain-leader serves its messages once Online)', async () => {
    const t0 = Date.now();
    const r = await call(tn, 'POST', '/leader/claim');
    assert.deepEqual([r.status, r.text], [408, '']);
    assert.ok(Date.now() - t0 >= 900, 'answered before the timeout');
  });
});
