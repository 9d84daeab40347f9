/**
 * Winning tickets survive a restart: a fast node (100 ms slots, the insecure test proofs, reward target
 * p / 2^8) mines real tickets with `PUT /pow/mining/start`, claims some of them (pending at the stop)
 * and keeps others ready; after a stop and a start on the same folder both are still there, the
 * pending claim settles once included and pays its address, and the ready tickets are still claimable.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hexToBytes } from '../../../src/codec/hex.ts';
import type { UserConfig } from '../../../src/node/config.ts';
import { devnetConfig, fundedDevnetKeys } from '../../../src/node/devnet.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

const TO = fundedDevnetKeys()[1]!.publicKey;

/** The devnet configuration without auto-claim targets: only the claims of this test are made. */
function noTargets(): UserConfig {
  const c = devnetConfig();
  return { ...c, pow: { ...c.pow, auto_claim: { ...c.pow.auto_claim, targets: [] } } };
}

async function put(tn: TestNode, path: string): Promise<void> {
  const r = await fetch(`${tn.base}${path}`, { method: 'PUT' });
  assert.equal(r.status, 200, path);
}

async function balance(tn: TestNode): Promise<bigint> {
  const r = await fetch(`${tn.base}/wallet/${TO}/balance`);
  return r.status === 404 ? 0n : BigInt(/"balance":(\d+)/.exec(await r.text())![1]!);
}

async function online(tn: TestNode): Promise<void> {
  await waitUntil(() => tn.node.chain.consensusState === 'Online', 10_000, 'Online');
}

test('mined tickets, ready and pending, survive a restart; the pending claim settles after it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-pow-restart-'));
  let tn: TestNode | undefined;
  try {
    tn = await startFastNode({ dir, config: noTargets() });
    await online(tn);
    await waitUntil(() => tn!.node.chain.tip().height >= 2, 10_000, 'two blocks');
    const before = await balance(tn);

    // Mine, claim what was found (pending), mine again (ready), stop mining.
    await put(tn, '/pow/mining/start');
    await waitUntil(() => tn!.node.powWinners.ready().length >= 2, 30_000, 'tickets mined');
    // No block while the claim is made and read: with 100 ms slots a block could include and settle it
    // before its tickets are read as pending.
    tn.node.leader.pause();
    const claim = await fetch(`${tn.base}/pow/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ claim_address: TO }),
    });
    const { tx_hash } = (await claim.json()) as { tx_hash: string | null };
    assert.match(String(tx_hash), /^[0-9a-f]{64}$/);
    const claimed = new Set(tn.node.powWinners.pending().map((w) => w.ticket));
    // A manual claim takes as many tickets as the tip's reward pool pays (one or more, by the blocks so far).
    assert.ok(claimed.size >= 1, 'tickets claimed');
    tn.node.leader.resume();
    await waitUntil(() => tn!.node.powWinners.ready().length >= 1, 30_000, 'more tickets mined');
    await put(tn, '/pow/mining/stop');
    // No block from here to the stop: what is read now is what the store holds at the stop.
    tn.node.leader.pause();
    const ready = new Set(tn.node.powWinners.ready().map((w) => w.ticket));
    const hash = hexToBytes(tx_hash!);
    // With 100 ms slots the claim can be included and settle while more tickets are mined; then its
    // tickets are gone before the stop, rightly, and the restart has only ready tickets to keep.
    const settledBeforeStop = tn.node.chain.transactionLocation(hash) !== undefined;
    const heldAtStop = new Set(
      [...tn.node.powWinners.pending(), ...tn.node.powWinners.ready()].map((w) => w.ticket),
    );
    if (!settledBeforeStop)
      for (const t of claimed) assert.ok(heldAtStop.has(t), 'a claimed ticket held at the stop');
    await tn.stop();

    // The same folder: the tickets are where they were.
    tn = await startFastNode({ dir, config: noTargets() });
    const pendingAfter = tn.node.powWinners.pending().map((w) => w.ticket);
    const readyAfter = tn.node.powWinners.ready().map((w) => w.ticket);
    for (const t of claimed) {
      if (settledBeforeStop)
        assert.ok(!pendingAfter.includes(t) && !readyAfter.includes(t), 'a settled ticket stays settled');
      else assert.ok(pendingAfter.includes(t) || readyAfter.includes(t), 'a claimed ticket kept');
    }
    for (const t of ready) assert.ok(readyAfter.includes(t), 'a ready ticket kept');
    const status = await (await fetch(`${tn.base}/pow/status`)).json();
    assert.equal((status as { is_mining: boolean }).is_mining, false, 'mining is not persisted');

    // The claim (kept in the mempool) is included, settles and pays; the ready tickets stay claimable.
    await online(tn);
    await waitUntil(
      () => tn!.node.chain.transactionLocation(hash) !== undefined,
      20_000,
      'the claim included',
    );
    await waitUntil(
      () => tn!.node.powWinners.pending().every((w) => !claimed.has(w.ticket)),
      10_000,
      'the claim settled',
    );
    assert.ok((await balance(tn)) > before, 'the claim paid its address');
    const claimable = (await (await fetch(`${tn.base}/pow/rewards/claimable`)).json()) as {
      claimable_tickets: number;
    };
    assert.ok(claimable.claimable_tickets >= ready.size, 'the ready tickets are still claimable');
  } finally {
    await tn?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
