import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { frToBytes } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { PowError, PowService } from '../../../src/pow/index.ts';
import { PowHarness } from './helpers.ts';

const A = zkPublicKey(1001n);
const B = zkPublicKey(1002n);
const hexOf = (x: bigint) => bytesToHex(frToBytes(x));

describe('PoW service', () => {
  test('mining is off at start, starts once the chain is Online, and follows the toggles', async () => {
    const h = new PowHarness({ online: false });
    assert.equal(h.service.status().is_mining, false);
    h.service.startMining();
    assert.equal(h.service.status().is_mining, true);
    assert.equal(h.miner.isMining, false, 'the miner waits for Online');
    h.goOnline();
    assert.equal(h.miner.isMining, true);
    h.service.stopMining();
    assert.equal(h.service.status().is_mining, false);
    assert.equal(h.miner.isMining, false);
    h.service.startMining();
    assert.equal(h.miner.isMining, true);
    await h.service.close();
    assert.equal(h.miner.closed, true);
  });

  test('auto-claim: armed at start with targets and rewards; start is ignored without either', async () => {
    const targets = [{ public_key: hexOf(A), threshold: 10n }];
    const armed = new PowHarness({ targets, tick: { unit: 'seconds', value: 3600n } });
    assert.equal(armed.service.status().auto_claim.is_armed, true);
    armed.service.stopAutoClaim();
    assert.equal(armed.service.status().auto_claim.is_armed, false);
    armed.service.startAutoClaim();
    assert.equal(armed.service.status().auto_claim.is_armed, true);
    await armed.service.close();

    const none = new PowHarness();
    assert.equal(none.service.status().auto_claim.is_armed, false);
    none.service.startAutoClaim();
    assert.equal(none.service.status().auto_claim.is_armed, false);
    await none.service.close();

    const disabled = new PowHarness({ targets, rateNum: 0n });
    assert.equal(disabled.service.status().are_rewards_enabled, false);
    assert.equal(disabled.service.status().auto_claim.is_armed, false);
    disabled.service.startAutoClaim();
    assert.equal(disabled.service.status().auto_claim.is_armed, false);
    await disabled.service.close();
  });

  test('status shows the tick, the targets and their balances (0 for a key without notes, null when unreadable)', async () => {
    const h = new PowHarness({
      targets: [
        { public_key: hexOf(A), threshold: 10n },
        { public_key: hexOf(B), threshold: 20n },
      ],
      tick: { unit: 'seconds', value: 3600n },
    });
    h.balances.set(A, 7n);
    const s = h.service.status();
    assert.deepEqual(s.auto_claim.tick, { unit: 'seconds', value: 3600n });
    assert.deepEqual(
      s.auto_claim.targets.map((t) => [t.public_key, t.threshold, t.balance]),
      [
        [A, 10n, 7n],
        [B, 20n, 0n],
      ],
    );
    h.wallet.balanceFailWith = new Error('wallet unavailable');
    assert.deepEqual(
      h.service.status().auto_claim.targets.map((t) => t.balance),
      [null, null],
    );
    await h.service.close();
  });

  test('targets the wallet does not track stop the start with the reference text', () => {
    assert.throws(
      () =>
        PowService.init(
          {
            pow: {
              mining: { max_threads: 1, max_tickets_per_block: 1 },
              auto_claim: {
                targets: [{ public_key: hexOf(A), threshold: 1n }],
                tick: { unit: 'seconds', value: 10n },
              },
            },
            knownKeys: [hexOf(B)],
          },
          {} as never,
        ),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message ===
          `PoW auto-claim targets are not tracked by the wallet (add them to \`wallet.known_keys\`): [${hexOf(A)}]`,
    );
  });

  test('claim: null without tickets; with tickets, a transaction to the address published through Blend, pending until settled', async () => {
    const h = new PowHarness();
    assert.equal(await h.service.claim(A), null);
    const ws = await h.addWinners(2);
    assert.equal((await h.service.claimable()).claimable_tickets, 2);
    const hash = await h.service.claim(A);
    assert.ok(hash);
    assert.equal(h.pool.size, 1);
    assert.equal((await h.service.claimable()).claimable_tickets, 0);
    assert.deepEqual(
      h.store
        .pending()
        .map((w) => w.ticket)
        .sort(),
      ws.map((w) => w.ticket).sort(),
    );
    // Nothing more to claim while they are pending.
    assert.equal(await h.service.claim(A), null);
    const reward = h.c.state.pow.epoch_reward;
    await h.includePending();
    assert.equal(h.store.pending().length, 0, 'retired once their nullifiers appear in a block');
    assert.equal(h.store.size(), 0);
    assert.ok(h.balanceOnChain(A) > 0n && h.balanceOnChain(A) < 2n * reward);
    await h.service.close();
  });

  test('claim without an address pays the neediest target; none below threshold fails with NoClaimTarget', async () => {
    const h = new PowHarness({
      targets: [
        { public_key: hexOf(A), threshold: 1000n },
        { public_key: hexOf(B), threshold: 1000n },
      ],
      tick: { unit: 'seconds', value: 3600n },
    });
    h.service.stopAutoClaim();
    h.balances.set(A, 500n);
    h.balances.set(B, 100n);
    await h.addWinners(1);
    await h.service.claim();
    await h.includePending();
    assert.ok(h.balanceOnChain(B) > 0n);
    assert.equal(h.balanceOnChain(A), 0n);
    h.balances.set(A, 1000n);
    h.balances.set(B, 5000n);
    await h.addWinners(1);
    await assert.rejects(h.service.claim(), (e: unknown) => {
      assert.ok(e instanceof PowError);
      assert.equal(e.message, 'no claim address given and no auto-claim target is below its threshold');
      return true;
    });
    assert.equal(h.store.ready().length, 1, 'the ticket stays ready');
    await h.service.close();
  });

  test('a manual claim spends the tip pool as it stands (F manual_claim reads current_reward_pool)', async () => {
    // F a_pool_that_never_falls_would_authorise_claims_forever: the tip's pool does not fall until a
    // claim settles, so each manual claim may spend it again.
    const h = new PowHarness();
    const reward = h.c.state.pow.epoch_reward;
    h.c.state = { ...h.c.state, pow: { ...h.c.state.pow, pool: 3n * reward } };
    await h.addWinners(5);
    assert.ok(await h.service.claim(A));
    assert.equal(h.store.pending().length, 3, 'the pool paid three');
    assert.ok(await h.service.claim(A));
    assert.equal(h.store.pending().length, 5);
    assert.equal(h.pool.size, 2, 'two claims published through Blend');
    h.c.state = { ...h.c.state, pow: { ...h.c.state.pow, pool: reward - 1n } };
    await h.addWinners(1);
    await assert.rejects(h.service.claim(A), /no claims fit within the reward pool/);
    assert.equal(h.store.ready().length, 1);
    await h.service.close();
  });

  test("a claim that is not in this node's mempool stays pending: it went through Blend (F keeps it until its window closes)", async () => {
    const h = new PowHarness();
    await h.addWinners(2);
    await h.service.claim(A);
    assert.equal(h.store.pending().length, 2);
    h.pool.clear(); // it reached a mempool elsewhere, or was lost on the way: this node cannot tell
    await h.processed();
    assert.equal(h.store.pending().length, 2, 'still pending');
    assert.equal(h.store.ready().length, 0);
    await h.service.close();
  });

  test('a claim Blend refuses fails with the reference text; the tickets stay ready', async () => {
    const h = new PowHarness();
    await h.addWinners(1);
    h.blendFails = new Error('the Blend service is stopping');
    await assert.rejects(h.service.claim(A), (e: unknown) => {
      assert.ok(e instanceof PowError);
      assert.equal(e.message, 'failed to publish to the blend network: the Blend service is stopping');
      return true;
    });
    assert.equal(h.store.ready().length, 1);
    await h.service.close();
  });

  test('manual claim with only expired tickets: without an address and no target below its threshold, NoClaimTarget; with an address, null (F manual_claim)', async () => {
    // F checks the ready set before it prunes: expired tickets still make it non-empty, so the address
    // is resolved first; the claim then prunes them and finds nothing to claim.
    const h = new PowHarness();
    const window = BigInt(h.c.ctx.config.pow.slot_window);
    await h.addWinners(2);
    h.c.apply([], 5n + window + 1n); // the tip leaves their window; no block was processed yet
    await assert.rejects(h.service.claim(), (e: unknown) => {
      assert.ok(e instanceof PowError);
      assert.equal(e.code, 'POW_NO_CLAIM_TARGET');
      assert.equal(e.message, 'no claim address given and no auto-claim target is below its threshold');
      return true;
    });
    assert.equal(h.store.size(), 2, 'nothing pruned before the address is known');
    assert.equal(await h.service.claim(A), null);
    assert.equal(h.store.size(), 0, 'pruned by the claim');
    assert.equal(h.pool.size, 0);
    await h.service.close();
  });

  test('claimable: slots until expiry are block_slot + window − tip_slot; tickets past the window are pruned', async () => {
    const h = new PowHarness();
    const window = BigInt(h.c.ctx.config.pow.slot_window);
    await h.addWinners(1);
    h.c.apply([], 50n);
    const r = await h.service.claimable();
    assert.deepEqual(r.slots_until_expiry, [5n + window - 50n]);
    h.c.advanceTo(5n + window, 100n);
    assert.deepEqual((await h.service.claimable()).slots_until_expiry, [0n]);
    h.c.apply([], 5n + window + 1n);
    assert.deepEqual(await h.service.claimable(), { claimable_tickets: 0, slots_until_expiry: [] });
    assert.equal(h.store.size(), 0);
    await h.service.close();
  });
});
