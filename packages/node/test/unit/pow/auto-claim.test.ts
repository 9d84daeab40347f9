import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { frToBytes } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { neediestTarget, parsePowSection, slotPeriodElapsed } from '../../../src/pow/index.ts';
import { PowHarness } from './helpers.ts';

const A = zkPublicKey(2001n);
const B = zkPublicKey(2002n);
const C = zkPublicKey(2003n);
const hexOf = (x: bigint) => bytesToHex(frToBytes(x));

/** Waits until `pred` holds (polling), at most `ms`. */
async function until(pred: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the neediest target', () => {
  const t = (publicKey: bigint, balance: bigint, threshold = 1000n) => ({ publicKey, balance, threshold });
  test('the lowest balance below its threshold', () => {
    assert.equal(neediestTarget([t(A, 900n), t(B, 100n), t(C, 500n)]), B);
  });
  test('satisfied targets are passed over, however poor', () => {
    assert.equal(neediestTarget([t(A, 100n, 100n), t(B, 500n, 10_000n)]), B);
  });
  test('ties go to the first configured', () => {
    assert.equal(neediestTarget([t(A, 400n), t(B, 400n)]), A);
  });
  test('none once every target is at or above its threshold', () => {
    assert.equal(neediestTarget([t(A, 1000n), t(B, 5000n)]), undefined);
    assert.equal(neediestTarget([]), undefined);
  });
});

test('slot pacing waits a whole period and never fires backwards', () => {
  assert.equal(slotPeriodElapsed(100n, 109n, 10n), false);
  assert.equal(slotPeriodElapsed(100n, 110n, 10n), true);
  assert.equal(slotPeriodElapsed(100n, 90n, 10n), false);
});

describe('pow configuration', () => {
  test('defaults of the reference (later revision)', () => {
    const s = parsePowSection(undefined);
    assert.deepEqual(s, {
      mining: { max_threads: 1, max_tickets_per_block: 1 },
      auto_claim: { targets: [], tick: { unit: 'seconds', value: 10n } },
    });
  });
  test('null threads, slot ticks and targets are read', () => {
    const s = parsePowSection({
      mining: { max_threads: null, max_tickets_per_block: 4 },
      auto_claim: {
        targets: [{ public_key: hexOf(A).toUpperCase(), threshold: 50n }],
        tick: { unit: 'slots', value: 3 },
      },
    });
    assert.equal(s.mining.max_threads, null);
    assert.equal(s.mining.max_tickets_per_block, 4);
    assert.deepEqual(s.auto_claim.targets, [{ public_key: hexOf(A), threshold: 50n }]);
    assert.deepEqual(s.auto_claim.tick, { unit: 'slots', value: 3n });
  });
  test('bad values are refused naming the key', () => {
    const bad: [unknown, RegExp][] = [
      [{ auto_claim: { tick: { unit: 'minutes', value: 1 } } }, /pow\.auto_claim\.tick\.unit/],
      [
        { auto_claim: { tick: { unit: 'seconds', value: 0 } } },
        /pow\.auto_claim\.tick\.value: must be greater than 0/,
      ],
      [{ auto_claim: { tick: { unit: 'seconds' } } }, /pow\.auto_claim\.tick\.value: missing/],
      [{ auto_claim: { targets: [{ public_key: 'zz', threshold: 1 }] } }, /targets\[0\]\.public_key/],
      [{ auto_claim: { targets: [{ public_key: 'ff'.repeat(32), threshold: 1 }] } }, /not a ZK public key/],
      [{ auto_claim: { targets: [{ public_key: hexOf(A) }] } }, /targets\[0\]\.threshold: missing/],
      [{ mining: { max_threads: 0 } }, /pow\.mining\.max_threads/],
      [{ mining: { max_tickets_per_block: 0 } }, /pow\.mining\.max_tickets_per_block/],
      [{ mining: { speed: 1 } }, /speed/],
    ];
    for (const [raw, re] of bad)
      assert.throws(
        () => parsePowSection(raw),
        (e: unknown) => e instanceof ConfigError && re.test(e.message),
        String(re),
      );
  });
});

describe('auto-claim in the service', () => {
  test('successive_claims_draw_the_pool_down_to_exhaustion: a tick spends a pool it draws down itself', async () => {
    // F drain_ready_rewards: the tip still shows the pool the tick's claims spend, so the tick tracks
    // it: a claim of what the pool pays, then RewardPoolExhausted ends the drain with tickets ready.
    const h = new PowHarness({
      targets: [{ public_key: hexOf(A), threshold: 1n << 60n }],
      tick: { unit: 'slots', value: 1000n },
    });
    const reward = h.c.state.pow.epoch_reward;
    h.c.state = { ...h.c.state, pow: { ...h.c.state.pow, pool: 3n * reward } };
    h.service.stopAutoClaim();
    await h.addWinners(5);
    h.service.startAutoClaim(); // the first slot seen fires at once
    // The tick ends its drain on the exhausted pool (logged after any claim it publishes).
    await until(() => h.logs.some((l) => l.includes('PoW reward pool spent; tickets still ready')));
    assert.equal(h.pool.size, 1, 'one claim: the drawn-down pool pays no second one');
    assert.deepEqual([h.store.pending().length, h.store.ready().length], [3, 2]);
    await h.service.close();
  });

  test('each tick drains the ready tickets into the neediest target; once all are satisfied it disarms and mining stops', async () => {
    const h = new PowHarness({
      targets: [
        { public_key: hexOf(A), threshold: 1n << 60n },
        { public_key: hexOf(B), threshold: 1n << 60n },
      ],
      tick: { unit: 'slots', value: 2n },
    });
    h.service.startMining();
    h.balances.set(A, 10n);
    h.balances.set(B, 3n);
    await h.addWinners(3);
    // The first slot seen fires at once.
    await until(() => h.pool.size === 1);
    assert.equal(h.store.ready().length, 0);
    await h.includePending();
    assert.ok(h.balanceOnChain(B) > 0n);
    assert.equal(h.balanceOnChain(A), 0n);
    // B is now the richer one: the next tick (two slots on) pays A.
    h.balances.set(B, 1n << 50n);
    await h.addWinners(1);
    h.slot += 1n;
    // The ticker checks the slot on a timer; a tick it fired would publish its claim in the same turn
    // (the harness answers at once), so two checks of the new slot are enough to see none.
    const reads = h.slotReads;
    await until(() => h.slotReads >= reads + 2);
    assert.equal(h.pool.size, 0, 'one slot is not a period of two');
    h.slot += 1n;
    await until(() => h.pool.size === 1);
    await h.includePending();
    assert.ok(h.balanceOnChain(A) > 0n);
    // Every target reached its threshold: disarmed, mining off.
    h.balances.set(A, 1n << 60n);
    h.balances.set(B, 1n << 61n);
    h.slot += 2n;
    await until(() => !h.service.status().auto_claim.is_armed);
    assert.equal(h.service.status().is_mining, false);
    assert.equal(h.miner.isMining, false);
    // A manual claim still works while disarmed.
    await h.addWinners(1);
    assert.ok(await h.service.claim(C));
    await h.service.close();
  });
});
