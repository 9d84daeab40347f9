/**
 * Stopping a node while the leader proves a block: the proof cut short by the stop (the prover process
 * ending, as on a SIGTERM to the process group) is not reported as a production failure, while the
 * same failure outside a stop still is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { ChainService } from '../../../src/chain/chain-service.ts';
import { SlotClock } from '../../../src/chain/clock.ts';
import { LeaderService, NO_TRANSACTIONS, VoucherGenerator } from '../../../src/leader/index.ts';
import { devnetKeys, devnetSecretKey } from '../../../src/ledger/devnet-keys.ts';
import type { ProofSystem } from '../../../src/ledger/proof-system.ts';
import { openStore } from '../../../src/storage/open.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { ProverError } from '../../../src/zk/prover-pool.ts';
import { FAST } from '../../mocks/fast-deployment.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-leader-stop-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Test proofs whose leadership proofs wait until the test ends them with the prover's exit error. */
function stallingProofs(): { proofs: ProofSystem; proving: Promise<void>; kill(): void } {
  let kill!: () => void;
  let started!: () => void;
  const proving = new Promise<void>((r) => {
    started = r;
  });
  const proofs: ProofSystem = {
    ...INSECURE_TEST_PROOFS,
    provePol: () =>
      new Promise((_resolve, reject) => {
        started();
        kill = () => reject(new ProverError('the prover process exited (SIGTERM)'));
      }),
  };
  return { proofs, proving, kill: () => kill() };
}

async function produceUntilProving(stopFirst: boolean): Promise<string[]> {
  const d = mkdtempSync(join(dir, 'n-'));
  const store = await openStore(d);
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
  try {
    const genesisMs = 1_700_000_000_000;
    const clock = new SlotClock(genesisMs, FAST.slot_duration_ms, () => genesisMs + 10 ** 9);
    const chain = await ChainService.init(
      { deployment: FAST, genesisTimeMs: genesisMs, online: false },
      { store: store.chain, proofs: INSECURE_TEST_PROOFS, clock, logger },
    );
    const stall = stallingProofs();
    const leader = new LeaderService(
      {
        secretKeys: devnetKeys(4).map((k) => k.secretKey),
        vouchers: new VoucherGenerator(devnetSecretKey(1000), store.wallet),
      },
      { chain, clock, proofs: stall.proofs, txs: NO_TRANSACTIONS, logger },
    );
    // Play slots until one is won and its proof is under way.
    let slot = 1n;
    let running: Promise<void> | undefined;
    let won = false;
    void stall.proving.then(() => {
      won = true;
    });
    while (!won && slot < 200n) {
      running = leader.onSlot(slot++);
      await Promise.race([running, stall.proving]);
    }
    assert.ok(won, 'a slot was won');
    if (stopFirst) leader.close();
    stall.kill();
    await running;
    await chain.close();
  } finally {
    await store.close();
  }
  return lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
}

test('a proof ended by a stop in progress is not logged as a failed block production', async () => {
  const msgs = await produceUntilProving(true);
  assert.equal(
    msgs.some((m) => /block production failed/.test(m)),
    false,
    msgs.join('\n'),
  );
});

test('the same prover failure outside a stop is still reported', async () => {
  const msgs = await produceUntilProving(false);
  assert.ok(msgs.includes('block production failed'), msgs.join('\n'));
});
