/**
 * The reference's own circuit artifacts through this node's loading path: the PoL test data of the
 * reference's source (`zk/circuits/resources/tests/pol/`, copied in test/fixtures/reference-circuits) in
 * a circuits folder of the reference's layout. Ports the reference's `zk/circuits/verifier` tests
 * (`test_verify`, `test_verify_invalid`) onto the node's verifier, with every public input binding, and
 * reads the public signals out of the reference's witness file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { compressProof } from '../../src/crypto/groth16/index.ts';
import {
  type PolPublicInputs,
  ProvingUnavailable,
  polPublicInputList,
} from '../../src/ledger/proof-system.ts';
import { bytesSource } from '../../src/zk/binfile.ts';
import { loadCircuitFolder } from '../../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../../src/zk/groth16-system.ts';
import { pooledVerifier } from '../../src/zk/index.ts';
import { publicSignals, readWitness } from '../../src/zk/witness-file.ts';
import { REFERENCE_POL_DIR, testCircuitFolder } from '../utils/circuit-folders.ts';

const json = (f: string): unknown => JSON.parse(readFileSync(join(REFERENCE_POL_DIR, f), 'utf8'));
const PUBLIC = (json('public.json') as string[]).map(BigInt);
const PROOF = compressProof(json('proof.json'));

/** The circuit's public inputs, in its order, as the node names them (polPublicInputList's order). */
const POL_INPUTS = [
  'entropy_contribution',
  'slot',
  'epoch_nonce',
  'lottery_0',
  'lottery_1',
  'aged_root',
  'latest_root',
  'leader_pk1',
  'leader_pk2',
] as const;

/** The reference's public inputs, by name. */
function inputs(v: readonly bigint[]): PolPublicInputs {
  return Object.fromEntries(POL_INPUTS.map((k, i) => [k, v[i]!])) as unknown as PolPublicInputs;
}

test("the names follow the order of the node's PoL statement", () => {
  const named = inputs(PUBLIC);
  assert.deepEqual(polPublicInputList(named), PUBLIC);
});

const folder = testCircuitFolder({ referencePol: true });
const zk = new Groth16ProofSystem({ circuits: loadCircuitFolder(folder.dir) });
after(async () => {
  await zk.close();
  folder.remove();
});

describe('the reference PoL artifacts in a reference-layout folder', () => {
  test('test_verify: the reference proof verifies with the folder key', async () => {
    assert.equal(await zk.verifyPol(inputs(PUBLIC), PROOF), true);
  });

  test('the same on the verifier threads the node verifies blocks with', async () => {
    const pooled = await pooledVerifier(zk, 1);
    try {
      assert.equal(await pooled.verifyPol(inputs(PUBLIC), PROOF), true);
      const changed = [...PUBLIC];
      changed[1]! += 1n;
      assert.equal(await pooled.verifyPol(inputs(changed), PROOF), false);
    } finally {
      await pooled.close();
    }
  });

  test('every public input is bound: changing any one fails', async () => {
    for (let i = 0; i < PUBLIC.length; i++) {
      const changed = [...PUBLIC];
      changed[i]! += 1n;
      assert.equal(await zk.verifyPol(inputs(changed), PROOF), false, `public input ${i}`);
    }
  });

  test('test_verify_invalid: another proof fails', async () => {
    const other = new Uint8Array(PROOF);
    other.set(PROOF.subarray(32, 64), 0); // pi_a replaced by a different valid point encoding
    assert.equal(await zk.verifyPol(inputs(PUBLIC), other), false);
    assert.equal(await zk.verifyPol(inputs(PUBLIC), new Uint8Array(128)), false);
  });

  test('the public signals inside the reference witness are its public.json', () => {
    const w = readWitness(bytesSource(readFileSync(join(REFERENCE_POL_DIR, 'witness.wtns'))));
    assert.deepEqual(publicSignals(w, 9), PUBLIC);
  });

  test('the folder verifies PoL but cannot prove it, and says why', async () => {
    assert.match(zk.cannotProve('pol') ?? '', /native witness generator \(witness_generator\.dat\)/);
    assert.equal(zk.cannotProve('zksig'), undefined);
    await assert.rejects(
      () => zk.provePol(inputs(PUBLIC), {} as never),
      (e: unknown) => e instanceof ProvingUnavailable && /cannot make pol proofs/.test(e.message),
    );
  });
});
