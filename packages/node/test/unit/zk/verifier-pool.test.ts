/**
 * The proof-verification worker pool with real Groth16 proofs (the devnet keys): a batch mixing good and
 * bad ZkSig proofs gets one answer per proof, in order; the pool stands behind a ProofSystem; a closed
 * pool refuses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import type { ProofSystem } from '../../../src/ledger/proof-system.ts';
import type { ZkSignature } from '../../../src/mantle/proofs.ts';
import { SHIPPED_CIRCUITS_DIR } from '../../../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../../../src/zk/groth16-system.ts';
import { VerifierPool, withVerifierPool } from '../../../src/zk/verifier-pool.ts';

describe('VerifierPool', () => {
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
  let pool: VerifierPool;
  let pooled: ProofSystem;
  const sks = [11n, 22n];
  const pks = sks.map(zkPublicKey);
  let sig1: ZkSignature;
  let sig2: ZkSignature;

  before(async () => {
    pool = await VerifierPool.start({ verificationKeys: zk.verificationKeys(), size: 2 });
    pooled = withVerifierPool(zk, pool);
    [sig1, sig2] = await Promise.all([zk.proveZkSign(1n, sks), zk.proveZkSign(2n, sks)]);
  });
  after(async () => {
    await pool.close();
    await zk.close();
  });

  test('a bad proof among good ones is refused, the good ones verify, answers in order', async () => {
    const jobs: [bigint, ZkSignature, boolean][] = [
      [1n, sig1, true],
      [2n, sig1, false], // the signature of another message
      [2n, sig2, true],
      [1n, sig2, false],
      [1n, sig1, true],
    ];
    const got = await Promise.all(
      jobs.map(([msg, sig]) => pooled.verifyZkSign({ msg, publicKeys: pks }, sig)),
    );
    assert.deepEqual(
      got,
      jobs.map((j) => j[2]),
    );
  });

  test('a malformed proof is false, not an error', async () => {
    const bad = { pi_a: new Uint8Array(32).fill(0xff), pi_b: sig1.pi_b, pi_c: sig1.pi_c };
    assert.equal(await pooled.verifyZkSign({ msg: 1n, publicKeys: pks }, bad), false);
  });

  test('requests arriving while the worker is busy wait until 8 go together as its second message', async () => {
    const p = await VerifierPool.start({ verificationKeys: zk.verificationKeys(), size: 1 });
    const one = withVerifierPool(zk, p);
    const check = () => one.verifyZkSign({ msg: 1n, publicKeys: pks }, sig1);
    const pause = () => new Promise((r) => setTimeout(r, 3));
    try {
      const answers: Promise<boolean>[] = [];
      for (let i = 0; i < 30; i++) answers.push(check()); // message 1: a batch of 30, being verified
      let firstAnswered = false;
      void Promise.all(answers.slice()).then(() => {
        firstAnswered = true;
      });
      await pause();
      assert.equal(p.messagesSent, 1);
      for (let i = 0; i < 7; i++) {
        answers.push(check()); // each in its own collection window: held in the pool
        await pause();
      }
      const held = p.messagesSent;
      const stillBusy = !firstAnswered;
      answers.push(check()); // the eighth waiting: they go as the worker's second message
      await pause();
      assert.deepEqual(
        await Promise.all(answers),
        answers.map(() => true),
      );
      // Sent one by one, they would have made 9 messages; held, the 8 go as one (the worker may have
      // answered the first batch while they came: then they went when it did, as one or two).
      if (stillBusy) assert.equal(held, 1, 'the seven waited in the pool');
      else assert.ok(held <= 2, `${held} messages before the eighth`);
      assert.ok(p.messagesSent <= 3, `${p.messagesSent} messages`);
    } finally {
      await p.close();
    }
  });

  test('requests after close are refused', async () => {
    const p = await VerifierPool.start({ verificationKeys: zk.verificationKeys(), size: 1 });
    await p.close();
    await assert.rejects(p.verify('zksig', [], new Uint8Array(128)), /closed/);
  });
});
