/**
 * Blend timing and quotas with the reference deployment's values (F: nodes/node/binary/src/config/
 * deployment/settings.yaml `blend:`; formulas of core/src/blend/mod.rs, services/blend/src/core/
 * settings.rs, nodes/node/binary/src/config/blend/deployment.rs, tokio_provider.rs), and the per-epoch
 * quota counter.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  BlendQuotaError,
  blendRewardParams,
  blendTiming,
  dataMessageCopies,
  EpochQuotaCounter,
  epochCoreQuota,
  epochLeadershipQuota,
  epochPowQuota,
  expectedMessageRange,
} from '../../../src/blend/quota.ts';
import { MAX_QUOTA } from '../../../src/crypto/blend/poq.ts';
import { type BlendDeployment, DeploymentError, parseDeployment } from '../../../src/ledger/deployment.ts';
import { DEFAULT_CONSENSUS, epochSchedule } from '../../../src/ledger/parameters.ts';

/** F's deployment `blend:` section. */
const F_DEPLOYMENT: BlendDeployment = {
  num_blend_layers: 1,
  minimum_network_size: 2,
  protocol_name: '/logos-blockchain-testnet-0.2.1/blend/1.0.0',
  data_replication_factor: 1,
  message_frequency_per_round: 1.0,
  maximum_release_delay_in_rounds: 1,
  minimum_messages_coefficient: 1,
  normalization_constant: 1.03,
  activity_threshold_sensitivity: 1,
};
/** F's section with `edit` applied. */
const edited = (edit: Partial<BlendDeployment>): BlendDeployment => ({ ...F_DEPLOYMENT, ...edit });

test('timing of the reference deployment: a round per slot, a window of 10 rounds, a transition of one block', () => {
  // F's consensus: k = 120, f = 1/30: 36,000 slots per epoch, an average block every 30 slots.
  const s = epochSchedule(DEFAULT_CONSENSUS);
  const t = blendTiming(F_DEPLOYMENT, {
    epochLength: s.epoch_length,
    slotDurationMs: 1000,
    activeSlotCoeff: DEFAULT_CONSENSUS.active_slot_coeff,
  });
  assert.deepEqual(t, {
    roundsPerEpoch: 36_000n,
    roundsPerSlot: 1,
    roundDurationMs: 1000,
    roundsPerObservationWindow: 10n,
    observationWindowMs: 10_000,
    epochTransitionSlots: 30n,
    epochTransitionMs: 30_000,
  });
  const p = edited({ maximum_release_delay_in_rounds: 3 });
  const t2 = blendTiming(p, { epochLength: 10n, slotDurationMs: 500, activeSlotCoeff: { num: 1n, den: 5n } });
  assert.equal(t2.roundsPerObservationWindow, 30n);
  assert.equal(t2.observationWindowMs, 15_000);
  assert.equal(t2.epochTransitionSlots, 5n);
});

test("timing with the slot split into rounds (this project's devnet): shorter rounds and windows, same slots", () => {
  const clock = { epochLength: 500n, slotDurationMs: 1000, activeSlotCoeff: { num: 1n, den: 5n } };
  const t = blendTiming(edited({ rounds_per_slot: 4 }), clock);
  assert.equal(t.roundsPerEpoch, 2000n);
  assert.equal(t.roundDurationMs, 250);
  assert.equal(t.observationWindowMs, 2500, 'ten rounds');
  assert.equal(t.epochTransitionSlots, 5n, 'the transition still lasts one average block');
  // The devnet's cover frequency is scaled with the rounds: the same core quota as one round a slot.
  const oneRound = edited({ message_frequency_per_round: 0.1 });
  const fourRounds = edited({ message_frequency_per_round: 0.025, rounds_per_slot: 4 });
  for (const n of [2, 3, 5, 7])
    assert.equal(epochCoreQuota(fourRounds, 2000n, n), epochCoreQuota(oneRound, 500n, n), `${n} core nodes`);
  assert.throws(() => blendTiming(edited({ rounds_per_slot: 3 }), clock), /whole number of rounds/);
});

test('quotas: Q_c = ceil(S · F_c · β_c / N), leadership β_c · (1 + R_c), PoW β_c', () => {
  assert.equal(epochCoreQuota(F_DEPLOYMENT, 36_000n, 4), 9000n);
  assert.equal(epochCoreQuota(F_DEPLOYMENT, 36_000n, 7), 5143n); // 5142.86 rounded up
  assert.equal(epochLeadershipQuota(F_DEPLOYMENT), 2n);
  assert.equal(epochPowQuota(F_DEPLOYMENT), 1n);
  assert.equal(dataMessageCopies(F_DEPLOYMENT), 2n);
  const p = edited({ num_blend_layers: 3, data_replication_factor: 2 });
  assert.equal(epochLeadershipQuota(p), 9n);
  assert.equal(epochPowQuota(p), 3n);
  assert.equal(epochCoreQuota(p, 36_000n, 4), 27_000n);
});

test('quotas must fit in the 20 bits of the PoQ circuit; an empty membership has no core quota', () => {
  assert.equal(MAX_QUOTA, 1_048_575n);
  assert.throws(() => epochCoreQuota(F_DEPLOYMENT, 36_000n, 0), BlendQuotaError);
  // N = 1 over 2^20 rounds: Q_c = 2^20, one too many.
  assert.throws(() => epochCoreQuota(F_DEPLOYMENT, 1n << 20n, 1), BlendQuotaError);
  assert.equal(epochCoreQuota(F_DEPLOYMENT, (1n << 20n) - 1n, 1), MAX_QUOTA);
});

test("the reward parameters of the deployment give the ledger's core quota", () => {
  const r = blendRewardParams(F_DEPLOYMENT, 36_000n);
  assert.deepEqual(r, {
    rounds_per_epoch: 36_000n,
    message_frequency_per_round: 1,
    num_blend_layers: 1n,
    data_replication_factor: 1n,
    minimum_network_size: 2n,
    activity_threshold_sensitivity: 1n,
  });
});

test('expected messages per observation window: μ = ceil(Δmax · β_c · c / N), [μ · coefficient, μ · window]', () => {
  const window = { roundsPerObservationWindow: 10n };
  // 1 · 1 · 1.03 / 4 = 0.2575 → μ = 1.
  assert.deepEqual(expectedMessageRange(F_DEPLOYMENT, window, 4), { min: 1, max: 10 });
  // 1.03 / 1 → μ = 2.
  assert.deepEqual(expectedMessageRange(F_DEPLOYMENT, window, 1), { min: 2, max: 20 });
  const p = edited({
    minimum_messages_coefficient: 3,
    normalization_constant: 2.5,
    maximum_release_delay_in_rounds: 4,
    num_blend_layers: 3,
  });
  // 4 · 3 · 2.5 / 7 = 4.29 → μ = 5: [15, 200] over a 40-round window.
  assert.deepEqual(expectedMessageRange(p, { roundsPerObservationWindow: 40n }, 7), { min: 15, max: 200 });
  assert.throws(() => expectedMessageRange(F_DEPLOYMENT, window, 0), BlendQuotaError);
});

test('deployment parameters the reference refuses are refused', () => {
  // The deployment parser owns these rules: the devnet's `blend:` section with one value broken.
  const devnet = readFileSync(new URL('../../../deployments/devnet.yaml', import.meta.url), 'utf8');
  const bad = (from: string, to: string, key = to.split(':')[0]!): void => {
    assert.equal(devnet.split(from).length, 2, `${from} occurs once in devnet.yaml`);
    assert.throws(
      () => parseDeployment(devnet.replace(from, to)),
      (e) => e instanceof DeploymentError && e.message.includes(`.${key}:`),
      to,
    );
  };
  assert.equal(parseDeployment(devnet).blend.minimum_network_size, 2);
  bad('minimum_network_size: 2', 'minimum_network_size: 1');
  bad('num_blend_layers: 1', 'num_blend_layers: 0');
  bad('maximum_release_delay_in_rounds: 1 }', 'maximum_release_delay_in_rounds: 0 }');
  bad('minimum_messages_coefficient: 1', 'minimum_messages_coefficient: 0');
  bad('message_frequency_per_round: 0.025', 'message_frequency_per_round: -1');
  bad('      rounds_per_slot: 4', '      rounds_per_slot: 0', 'rounds_per_slot');
  bad('normalization_constant: 8', 'normalization_constant: .nan');
  bad('num_blend_layers: 1', 'num_blend_layers: 1\n    protocol_name: blend', 'protocol_name');
});

test('quota counter: core indices 0..Q_c once per epoch', () => {
  const c = new EpochQuotaCounter(3, { core: 3n, leadership: 2n, pow: 1n });
  assert.deepEqual(
    [0, 1, 2, 3].map(() => c.nextKeyIndex('core')),
    [0, 1, 2, null],
  );
  assert.equal(c.remaining('core'), 0n);
});

test('quota counter: leadership and PoW indices restart with each won slot or solution', () => {
  const c = new EpochQuotaCounter(3, { core: 0n, leadership: 2n, pow: 1n });
  assert.equal(c.nextKeyIndex('core'), null);
  assert.equal(c.nextKeyIndex('leadership'), null); // no won slot yet
  c.renew('leadership');
  assert.deepEqual(
    [0, 1, 2].map(() => c.nextKeyIndex('leadership')),
    [0, 1, null],
  );
  c.renew('leadership');
  assert.equal(c.remaining('leadership'), 2n);
  assert.equal(c.nextKeyIndex('leadership'), 0);
  assert.equal(c.nextKeyIndex('pow'), null);
  c.renew('pow');
  assert.deepEqual([c.nextKeyIndex('pow'), c.nextKeyIndex('pow')], [0, null]);
  assert.throws(
    () => new EpochQuotaCounter(0, { core: MAX_QUOTA + 1n, leadership: 1n, pow: 1n }),
    BlendQuotaError,
  );
});

test('quota counter: a key nullifier seen twice in an epoch is a reuse', () => {
  const c = new EpochQuotaCounter(3, { core: 1n, leadership: 1n, pow: 1n });
  assert.equal(c.seen(42n), false);
  assert.equal(c.seen(43n), false);
  assert.equal(c.seen(42n), true);
  assert.equal(c.seenCount, 2);
});
