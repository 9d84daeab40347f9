/**
 * Blend's proof of quota with real Groth16 proofs (the devnet keys in zk/keys/poq): the reference's
 * fixtures of the three branches prove and verify (F: blend/proofs/src/quota/tests.rs
 * valid_proof_of_*_quota, zk/proofs/poq/src/lib.rs test_core_node_full_flow), a proof is bound to
 * every public input, and the circuit refuses an index at the quota, a wrong root and an unknown
 * branch even when the TypeScript checks are bypassed (the witness calculator's assertions).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  PoqInputError,
  type PoqPublicInputs,
  type PoqWitness,
  poqCircuitInput,
  selectionRandomness,
} from '../../../../src/crypto/blend/poq.ts';
import { powTicket, powTicketSatisfies } from '../../../../src/crypto/blend/pow.ts';
import { keyNullifierOf } from '../../../../src/crypto/blend/selection.ts';
import type { PoqProof } from '../../../../src/ledger/proof-system.ts';
import { SHIPPED_CIRCUITS_DIR } from '../../../../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../../../../src/zk/groth16-system.ts';
import { VerifierPool, withVerifierPool } from '../../../../src/zk/verifier-pool.ts';
import {
  coreNodeFullFlow,
  leaderFullFlow,
  validCoreQuotaInputs,
  validLeadershipQuotaInputs,
  validWorkQuotaInputs,
} from '../../../spec/blend/poq-fixtures.ts';

interface Snarkjs {
  wtns: { calculate(input: Record<string, unknown>, wasm: Uint8Array, out: { type: 'mem' }): Promise<void> };
}
const SNARKJS: string = 'snarkjs';
const snarkjs = (await import(SNARKJS)) as Snarkjs;
const WASM = new Uint8Array(readFileSync(join(SHIPPED_CIRCUITS_DIR, 'poq', 'witness_generator.wasm')));

/**
 * Whether the circuit's witness calculator accepts an input (its assertions are the constraints). Only a
 * failed assertion counts as a refusal: any other error (an input name the circuit does not have, a value
 * that is not a number) is a broken test input and is thrown.
 */
async function witnessExists(input: Record<string, string | string[]>): Promise<boolean> {
  try {
    await snarkjs.wtns.calculate(input, WASM, { type: 'mem' });
    return true;
  } catch (e) {
    if (e instanceof Error && /Assert Failed/.test(e.message)) return false;
    throw e;
  }
}

const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
after(() => zk.close());

const KEY = new Uint8Array(32).fill(200);
const core = validCoreQuotaInputs(KEY, 1n);
const coreWitness: PoqWitness = { ...core.witness, key_index: 0n };

describe('proof of quota (Groth16)', () => {
  let coreProof: PoqProof;
  before(async () => {
    coreProof = await zk.provePoq(core.public, coreWitness);
  });

  // F: blend/proofs/src/quota/tests.rs::valid_proof_of_core_quota
  test('valid_proof_of_core_quota: the proof verifies, its nullifier is the selection randomness one', async () => {
    assert.equal(await zk.verifyPoq(core.public, coreProof.keyNullifier, coreProof.proof), true);
    assert.equal(coreProof.keyNullifier, keyNullifierOf(selectionRandomness(1n, coreWitness)));
    assert.deepEqual(
      [coreProof.proof.pi_a.length, coreProof.proof.pi_b.length, coreProof.proof.pi_c.length],
      [32, 64, 32],
    );
  });

  // F: blend/proofs/src/quota/tests.rs::valid_proof_of_leadership_quota, valid_proof_of_work_quota
  for (const [name, f] of [
    ['leadership', validLeadershipQuotaInputs(KEY, 1n)],
    ['work', validWorkQuotaInputs(KEY, 20n)],
  ] as const) {
    test(`valid_proof_of_${name}_quota`, async () => {
      const w: PoqWitness = { ...f.witness, key_index: 0n };
      const p = await zk.provePoq(f.public, w);
      assert.equal(await zk.verifyPoq(f.public, p.keyNullifier, p.proof), true);
      assert.equal(p.keyNullifier, keyNullifierOf(selectionRandomness(f.public.leader.pol_epoch_nonce, w)));
    });
  }

  test('a proof fails with a wrong quota, root, signing key, nullifier or any other input', async () => {
    const pub = core.public;
    const wrong: [string, PoqPublicInputs][] = [
      ['core quota', { ...pub, core: { ...pub.core, quota: 2n } }],
      ['core root', { ...pub, core: { ...pub.core, zk_root: pub.core.zk_root + 1n } }],
      ['signing key', { ...pub, signing_key: new Uint8Array(32).fill(201) }],
      ['leader quota', { ...pub, leader: { ...pub.leader, message_quota: 2n } }],
      ['epoch nonce', { ...pub, leader: { ...pub.leader, pol_epoch_nonce: 2n } }],
      ['aged root', { ...pub, leader: { ...pub.leader, pol_ledger_aged: 2n } }],
      ['lottery', { ...pub, leader: { ...pub.leader, lottery_1: 5n } }],
      ['pow difficulty', { ...pub, pow: { ...pub.pow, pow_blend_difficulty: 2n } }],
      ['pow quota', { ...pub, pow: { ...pub.pow, pow_quota: 2n } }],
    ];
    for (const [what, inputs] of wrong)
      assert.equal(await zk.verifyPoq(inputs, coreProof.keyNullifier, coreProof.proof), false, what);
    assert.equal(await zk.verifyPoq(pub, coreProof.keyNullifier + 1n, coreProof.proof), false, 'nullifier');
    const short = { ...coreProof.proof, pi_b: coreProof.proof.pi_b.subarray(1) };
    assert.equal(await zk.verifyPoq(pub, coreProof.keyNullifier, short), false, 'a short pi_b');
    assert.equal(
      await zk.verifyPoq(
        { ...pub, signing_key: new Uint8Array(31) },
        coreProof.keyNullifier,
        coreProof.proof,
      ),
      false,
    );
  });

  test('the verifier pool verifies a proof of quota and refuses it for another key', async () => {
    const pool = await VerifierPool.start({ verificationKeys: zk.verificationKeys(), size: 1 });
    try {
      const pooled = withVerifierPool(zk, pool);
      assert.equal(await pooled.verifyPoq(core.public, coreProof.keyNullifier, coreProof.proof), true);
      const other = { ...core.public, signing_key: new Uint8Array(32).fill(3) };
      assert.equal(await pooled.verifyPoq(other, coreProof.keyNullifier, coreProof.proof), false);
    } finally {
      await pool.close();
    }
  });

  test('an index at the quota is refused before proving and by the circuit itself', async () => {
    await assert.rejects(zk.provePoq(core.public, { ...coreWitness, key_index: 1n }), PoqInputError);
    const input = poqCircuitInput(core.public, coreWitness);
    assert.equal(await witnessExists(input), true);
    assert.equal(await witnessExists({ ...input, index: '1' }), false, 'index = quota');
    assert.equal(
      await witnessExists({ ...input, core_quota: '2', index: '1' }),
      true,
      'index below a larger quota',
    );
    assert.equal(await witnessExists({ ...input, core_root: '5' }), false, 'wrong root');
    assert.equal(await witnessExists({ ...input, selector: '3' }), false, 'no such branch');
    assert.equal(await witnessExists({ ...input, selector: '1' }), false, 'the leader branch does not hold');
    assert.equal(
      await witnessExists({ ...input, core_quota: String(1 << 20), index: '0' }),
      false,
      'a 21-bit quota',
    );
    // The branches not taken play no part.
    assert.equal(await witnessExists({ ...input, pow_nonce: '123', pol_secret_key: '9' }), true);
  });

  // F: zk/proofs/poq/src/lib.rs::test_core_node_full_flow, test_leader_full_flow (the circuit's side)
  test('test_core_node_full_flow / test_leader_full_flow: the circuit takes both witnesses', async () => {
    for (const f of [coreNodeFullFlow(), leaderFullFlow()]) {
      const input = poqCircuitInput(f.public, f.witness);
      assert.equal(await witnessExists(input), true);
      assert.equal(
        await witnessExists({ ...input, k_part_one: '1' }),
        true,
        'the key halves are free inputs',
      );
      assert.equal(await witnessExists({ ...input, index: String(f.public.core.quota) }), false);
    }
  });

  test('a wrong proof-of-work nonce or a lost lottery is refused by the circuit', async () => {
    const pow = validWorkQuotaInputs(KEY, 20n);
    const powInput = poqCircuitInput(pow.public, { ...pow.witness, key_index: 0n });
    assert.equal(await witnessExists(powInput), true);
    // The fixture's difficulty admits about a third of all tickets: take a nonce whose ticket it does not.
    let loser = 1n;
    while (
      powTicketSatisfies(
        powTicket(pow.public.leader.pol_epoch_nonce, loser),
        pow.public.pow.pow_blend_difficulty,
      )
    )
      loser++;
    assert.equal(await witnessExists({ ...powInput, pow_nonce: loser.toString() }), false);
    const lead = validLeadershipQuotaInputs(KEY, 1n);
    const leadInput = poqCircuitInput(lead.public, { ...lead.witness, key_index: 0n });
    assert.equal(await witnessExists(leadInput), true);
    assert.equal(await witnessExists({ ...leadInput, pol_t0: '0', pol_t1: '0' }), false);
  });
});
