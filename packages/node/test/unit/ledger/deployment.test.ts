import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { FR_MODULUS, frToBytes } from '../../../src/crypto/field.ts';
import {
  assertProofSystemAllowed,
  DeploymentError,
  parseDeployment,
} from '../../../src/ledger/deployment.ts';
import { devnetKeys } from '../../../src/ledger/devnet-keys.ts';
import { buildGenesis } from '../../../src/ledger/genesis.ts';
import { epochSchedule } from '../../../src/ledger/parameters.ts';
import { INSECURE_TEST_CHECKS, INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';

const read = (name: string) => readFileSync(new URL(`../../../deployments/${name}`, import.meta.url), 'utf8');

describe('deployment files', () => {
  test('devnet: fast parameters, funded notes owned by the published devnet keys', () => {
    const d = parseDeployment(read('devnet.yaml'));
    assert.equal(d.name, 'devnet');
    assert.equal(d.slot_duration_ms, 1000);
    assert.deepEqual(d.ledger.consensus.active_slot_coeff, { num: 1n, den: 5n });
    assert.equal(d.ledger.consensus.security_param, 10);
    assert.equal(d.genesis.genesis_time, null);
    const keys = new Set(devnetKeys(4).map((k) => bytesToHex(frToBytes(k.publicKey))));
    for (const n of d.genesis.notes)
      assert.ok(keys.has(bytesToHex(frToBytes(n.pk))), 'every devnet note belongs to a devnet key');
    assert.equal(d.genesis.notes.length, 20);
  });

  test('reference: the reference testnet template parameters on a local genesis', () => {
    const d = parseDeployment(read('reference.yaml'));
    assert.equal(d.name, 'reference');
    assert.equal(d.slot_duration_ms, 1000);
    assert.deepEqual(d.ledger.consensus.stake_inference_learning_rate, { num: 1n, den: 1n });
    assert.equal(d.ledger.consensus.uncle_reference_window_in_blocks, 12);
    assert.equal(d.ledger.sdp.inactivity_period, 2);
    const s = epochSchedule(d.ledger.consensus);
    assert.equal(d.ledger.consensus.security_param, 120);
    assert.deepEqual(d.ledger.consensus.active_slot_coeff, { num: 1n, den: 30n });
    assert.equal(s.epoch_length, 36_000n);
    assert.equal(d.ledger.sdp.min_stake, 1_000_000_000n);
    const g = buildGenesis(d, { config: d.ledger, proofs: INSECURE_TEST_CHECKS }, 1_800_000_000);
    assert.equal(g.parameter.chain_id, 'logos-reference-local');
    assert.equal(g.parameter.genesis_time, 1_800_000_000);
    // Its own genesis: the time is fixed at first start, never the public network's.
    assert.equal(d.genesis.genesis_time, null);
  });

  test('bad files are refused with the key named', () => {
    const good = read('devnet.yaml');
    const cases: [string, RegExp][] = [
      [
        good.replace('active_slot_coeff: 1/5', 'active_slot_coeff: 3/2'),
        /cryptarchia\.active_slot_coeff: must be between 0 and 1/,
      ],
      [
        good.replace('security_param: 10', 'security_param: -1'),
        /cryptarchia\.security_param: -1 is outside/,
      ],
      [
        good.replace('slot_duration_ms: 1000', 'slot_duration_ms: fast'),
        /time\.slot_duration_ms: expected an integer/,
      ],
      [
        good.replace('active_slot_coeff: 1/5', 'active_slot_coeff: 1/1001'),
        /cryptarchia\.active_slot_coeff: must be at least 1\/1000/,
      ],
      [
        good.replace('active_slot_coeff: 1/5', 'active_slot_coeff: 1/4294967296'),
        /cryptarchia\.active_slot_coeff: numerator and denominator must fit in 32 bits/,
      ],
      [
        good.replace('epoch_period_nonce_buffer: 3', 'epoch_period_nonce_buffer: 256'),
        /cryptarchia\.epoch_period_nonce_buffer: 256 is outside 1\.\.255/,
      ],
      [good.replace('chain_id: logos-devnet', 'chain_id: ""'), /genesis\.chain_id: must be 1\.\.255 bytes/],
      [good.replace(/pk: 9f44[0-9a-f]+/, 'pk: 00'), /genesis\.notes\[0\]\.pk: expected a field element/],
      [good.replace('  min_stake: 1000\n', ''), /sdp\.min_stake: missing/],
      ['a: [1, 2', /not valid YAML/],
      ['- 1\n- 2\n', /expected a mapping/],
    ];
    for (const [text, re] of cases)
      assert.throws(
        () => parseDeployment(text),
        (e: unknown) => e instanceof DeploymentError && re.test(e.message),
        String(re),
      );
  });

  test('circuits: own by default, reference for the public testnet, anything else refused', () => {
    const good = read('devnet.yaml');
    assert.equal(parseDeployment(good).circuits, 'own');
    assert.equal(parseDeployment(read('reference.yaml')).circuits, 'own');
    assert.equal(parseDeployment(read('testnet.yaml')).circuits, 'reference');
    assert.equal(parseDeployment(good.replace('test: false', 'test: false\ncircuits: own')).circuits, 'own');
    assert.equal(
      parseDeployment(good.replace('test: false', 'test: false\ncircuits: reference')).circuits,
      'reference',
    );
    for (const bad of ['theirs', '1', '[own]'])
      assert.throws(
        () => parseDeployment(good.replace('test: false', `test: false\ncircuits: ${bad}`)),
        (e: unknown) =>
          e instanceof DeploymentError &&
          /deployment\.circuits: expected "reference" or "own"/.test(e.message),
        bad,
      );
  });

  test('a genesis block given whole: a bad one is refused, naming the field', () => {
    const good = read('testnet.yaml');
    const cases: [string, RegExp][] = [
      // The root no longer matches the transaction (one note value changed).
      [
        good.replace('value: 100000000000000\n', 'value: 100000000000001\n'),
        /genesis\.block: Body root mismatch/,
      ],
      [good.replace('      slot: 0\n', '      slot: 1\n'), /genesis\.block: expected genesis slot/],
      [
        good.replace(/pk: '?376ee6dc[0-9a-f]+'?/, "pk: 'zz'"),
        /genesis\.block: transactions\[0\]\.mantle_tx\.ops\[0\]\.payload\.outputs\[0\]\.pk/,
      ],
      [good.replace('- !Ed25519Sig', '- !ZkSig'), /genesis\.block: .*ops_proofs/],
      [
        good.replace('genesis:\n  block:\n', 'genesis:\n  chain_id: x\n  block:\n'),
        /genesis: chain_id cannot be given beside block/,
      ],
      [good.replace('    header:\n', '    headers:\n'), /genesis\.block: .*header/],
    ];
    for (const [text, re] of cases)
      assert.throws(
        () => parseDeployment(text),
        (e: unknown) => e instanceof DeploymentError && re.test(e.message),
        String(re),
      );
  });

  test('the stake inference learning rate is any non-negative ratio, as in the reference', () => {
    const good = read('devnet.yaml');
    for (const lr of ['0/1', '1/10', '3/2', '2']) {
      const d = parseDeployment(
        good.replace('stake_inference_learning_rate: 1/1', `stake_inference_learning_rate: ${lr}`),
      );
      assert.ok(d.ledger.consensus.stake_inference_learning_rate.num >= 0n);
    }
    assert.equal(
      parseDeployment(good.replace('active_slot_coeff: 1/5', 'active_slot_coeff: 1/1000')).ledger.consensus
        .active_slot_coeff.den,
      1000n,
    );
  });

  test('the genesis reward target: an exponent or an exact value below p, not both', () => {
    const good = read('devnet.yaml');
    const exact = good.replace(/initial_difficulty: \d+/, 'initial_target: 526315');
    assert.equal(parseDeployment(exact).ledger.pow.initial_target, 526_315n);
    assert.equal(parseDeployment(good).ledger.pow.initial_target, undefined);
    assert.throws(
      () => parseDeployment(good.replace(/(initial_difficulty: \d+)/, '$1\n    initial_target: 5')),
      /pow\.reward: give initial_difficulty or initial_target, not both/,
    );
    assert.throws(
      () => parseDeployment(exact.replace('initial_target: 526315', `initial_target: ${FR_MODULUS}`)),
      /pow\.reward\.initial_target: .* is outside 0\.\./,
    );
  });

  test('u64 values beyond 2^53 are read exactly', () => {
    const text = read('devnet.yaml').replace(
      'reward_pool_genesis: 300000000000',
      'reward_pool_genesis: 18446744073709551615',
    );
    assert.equal(parseDeployment(text).ledger.pow.reward_pool_genesis, 18446744073709551615n);
  });

  test('the insecure proof backend is refused outside test deployments', () => {
    const d = parseDeployment(read('devnet.yaml'));
    assert.throws(() => assertProofSystemAllowed(d, INSECURE_TEST_PROOFS), /not a test deployment/);
    assertProofSystemAllowed({ ...d, test: true }, INSECURE_TEST_PROOFS);
    assertProofSystemAllowed(d, { name: 'groth16', secure: true });
  });
});
