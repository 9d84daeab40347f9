/**
 * The reference's signed-transaction JSON tests (core/src/mantle/transactions/signed_mantle_tx.rs).
 * The reference deserializes into `Unverified` (no checks) or `Preverified` (proof count, proof
 * types, signatures). Our JSON decoding checks the proof count and types; signatures are checked by
 * `ed25519Verify` over the tx hash, as preverification does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJson, stringifyJson } from '@logos-ts/shared/json';
import { ed25519PublicKey, ed25519Sign, ed25519Verify } from '../../src/crypto/ed25519.ts';
import { type Op, Opcode } from '../../src/mantle/ops.ts';
import { type SignedMantleTx, signedMantleTx, txHash } from '../../src/mantle/tx.ts';

const F = '(core/src/mantle/transactions/signed_mantle_tx.rs)';
const seed = (b: number) => new Uint8Array(32).fill(b);
const inscribeOp = (signerSeed: number): Op => ({
  opcode: Opcode.ChannelInscribe,
  payload: {
    channel_id: new Uint8Array(32),
    inscription: Uint8Array.of(1, 2, 3),
    parent: new Uint8Array(32),
    signer: ed25519PublicKey(seed(signerSeed)),
  },
});

function preverifyInscription(tx: SignedMantleTx): void {
  const proof = tx.ops_proofs[0]!;
  const o = tx.mantle_tx.ops[0]!;
  if (proof.type !== 'Ed25519Sig' || o.opcode !== Opcode.ChannelInscribe) throw new Error('wrong proof');
  if (!ed25519Verify(o.payload.signer, txHash(tx.mantle_tx), proof.signature))
    throw new Error('invalid signature');
}

test(`test_signed_mantle_tx_deserialize_with_valid_proof ${F}`, () => {
  const ops = [inscribeOp(1)];
  const tx: SignedMantleTx = {
    mantle_tx: { ops },
    ops_proofs: [{ type: 'Ed25519Sig', signature: ed25519Sign(seed(1), txHash({ ops })) }],
  };
  preverifyInscription(tx);
  const back = signedMantleTx.fromJson(parseJson(stringifyJson(signedMantleTx.toJson(tx))));
  preverifyInscription(back);
  assert.deepEqual(back, tx);
});

test(`test_signed_mantle_tx_deserialize_preverified_with_missing_proof ${F}`, () => {
  const json = {
    mantle_tx: {
      ops: [
        {
          opcode: 17,
          payload: {
            channel_id: '00'.repeat(32),
            inscription: '010203',
            parent: '00'.repeat(32),
            signer: Buffer.from(ed25519PublicKey(seed(1))).toString('hex'),
          },
        },
      ],
    },
    ops_proofs: [],
  };
  assert.throws(() => signedMantleTx.fromJson(json), /0 proofs for 1 operations/);
});

test(`test_signed_mantle_tx_deserialize_preverified_with_invalid_signature ${F}`, () => {
  const ops = [inscribeOp(1)];
  const tx: SignedMantleTx = {
    mantle_tx: { ops },
    ops_proofs: [{ type: 'Ed25519Sig', signature: ed25519Sign(seed(2), txHash({ ops })) }],
  };
  const back = signedMantleTx.fromJson(parseJson(stringifyJson(signedMantleTx.toJson(tx))));
  assert.throws(() => preverifyInscription(back), /invalid signature/);
});
