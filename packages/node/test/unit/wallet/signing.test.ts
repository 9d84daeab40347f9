/**
 * Signing a funded builder op by op (F `SignTx`), with the insecure test proofs so that each ZK
 * signature can be compared with the one its keys must make: Transfer and ChannelDeposit by their
 * inputs' keys, SDPDeclare by [service note key, zk_id] plus the provider's Ed25519 key, SDPWithdraw by
 * the declaration's keys, SDPActive by its zk_id, Inscribe by its signer, ClaimPowReward none; a
 * channel withdraw without its proof, or an input the ledger lacks, is refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { ed25519PublicKey, ed25519Verify } from '../../../src/crypto/ed25519.ts';
import { frToBytes } from '../../../src/crypto/field.ts';
import { KeyStore, zkKeyId } from '../../../src/kms/index.ts';
import type { Declaration, LedgerState } from '../../../src/ledger/state.ts';
import { locatorFromString } from '../../../src/mantle/locator.ts';
import { type Op, Opcode } from '../../../src/mantle/ops.ts';
import { txHash, txHashToFr } from '../../../src/mantle/tx.ts';
import { PMap, stringKeys } from '../../../src/util/pmap.ts';
import { buildTx, newBuilder } from '../../../src/wallet/builder.ts';
import { signTx } from '../../../src/wallet/signing.ts';
import { INSECURE_TEST_PROOFS, insecureTestZkSign } from '../../../src/zk/insecure-test-proofs.ts';
import { alice, bob, ledger, notes, rec } from '../../mocks/wallet-chain.ts';

const edSecret = new Uint8Array(32).fill(5);
const edPk = ed25519PublicKey(edSecret);
const kms = KeyStore.init(
  {
    backend: {
      keys: {
        [zkKeyId(alice.publicKey)]: { kind: 'Zk', secret: bytesToHex(frToBytes(alice.secretKey)) },
        [zkKeyId(bob.publicKey)]: { kind: 'Zk', secret: bytesToHex(frToBytes(bob.secretKey)) },
        [bytesToHex(edPk)]: { kind: 'Ed25519', secret: bytesToHex(edSecret) },
      },
    },
  },
  { proofs: INSECURE_TEST_PROOFS },
);

const declId = new Uint8Array(32).fill(3);
const owned = ledger(
  notes([
    [1n, rec(10, alice.publicKey)],
    [2n, rec(20, bob.publicKey)],
    [3n, rec(30, alice.publicKey, { locked_by: bytesToHex(declId) })],
  ]),
);
const declaration: Declaration = {
  service_type: 'BN',
  provider_id: edPk,
  service_note_id: 3n,
  locators: [],
  zk_id: bob.publicKey,
  created: 0,
  active: 0,
  withdraw_at: null,
  nonce: 0n,
};
const state: LedgerState = {
  ...owned,
  sdp: { ...owned.sdp, declarations: PMap.from(stringKeys, [[bytesToHex(declId), declaration]]) },
};

test('each op gets the proof its keys make over the transaction hash', async () => {
  const ops: Op[] = [
    { opcode: Opcode.Transfer, payload: { inputs: [1n, 2n], outputs: [] } },
    {
      opcode: Opcode.ChannelInscribe,
      payload: {
        channel_id: new Uint8Array(32),
        inscription: new Uint8Array([1]),
        parent: new Uint8Array(32),
        signer: edPk,
      },
    },
    {
      opcode: Opcode.ChannelDeposit,
      payload: { channel_id: new Uint8Array(32), inputs: [2n], metadata: new Uint8Array() },
    },
    {
      opcode: Opcode.SDPDeclare,
      payload: {
        service_type: 'BN',
        locators: [locatorFromString('/ip4/127.0.0.1/udp/3000/quic-v1')],
        provider_id: edPk,
        zk_id: bob.publicKey,
        service_note_id: 1n,
      },
    },
    { opcode: Opcode.SDPWithdraw, payload: { declaration_id: declId, nonce: 1n, service_note_id: 3n } },
    {
      opcode: Opcode.ClaimPowReward,
      payload: { epoch_nonce: 1n, block_hash: new Uint8Array(32), public_key: alice.publicKey },
    },
  ];
  const b = newBuilder(ops);
  const signed = await signTx(b, state, kms, null);
  const hash = txHash(buildTx(b));
  const msg = txHashToFr(hash);
  const zkOf = (...keys: { secretKey: bigint }[]) =>
    insecureTestZkSign(
      msg,
      keys.map((k) => k.secretKey),
    );
  assert.deepEqual(signed.ops_proofs[0], { type: 'ZkSig', signature: zkOf(alice, bob) });
  const ed = signed.ops_proofs[1]!;
  assert.ok(ed.type === 'Ed25519Sig' && ed25519Verify(edPk, hash, ed.signature));
  assert.deepEqual(signed.ops_proofs[2], { type: 'ZkSig', signature: zkOf(bob) });
  const decl = signed.ops_proofs[3]!;
  assert.ok(decl.type === 'ZkAndEd25519Sigs');
  assert.deepEqual(decl.zk_sig, zkOf(alice, bob));
  assert.ok(ed25519Verify(edPk, hash, decl.ed25519_sig));
  assert.deepEqual(signed.ops_proofs[4], { type: 'ZkSig', signature: zkOf(alice, bob) });
  assert.deepEqual(signed.ops_proofs[5], { type: 'None' });
});

test('a missing channel proof, an input the ledger lacks or a key the store lacks is refused', async () => {
  await assert.rejects(
    signTx(
      newBuilder([
        { opcode: Opcode.ChannelWithdraw, payload: { channel_id: new Uint8Array(32), inputs: [1n] } },
      ]),
      state,
      kms,
      null,
    ),
    /Failed to fetch Channel Withdraw proof for op index 0 from the TxBuilder/,
  );
  await assert.rejects(
    signTx(
      newBuilder([{ opcode: Opcode.Transfer, payload: { inputs: [99n], outputs: [] } }]),
      state,
      kms,
      null,
    ),
    /Input note [0-9a-f]{64} is missing in ledger/,
  );
  await assert.rejects(
    signTx(
      newBuilder([
        {
          opcode: Opcode.ChannelInscribe,
          payload: {
            channel_id: new Uint8Array(32),
            inscription: new Uint8Array([1]),
            parent: new Uint8Array(32),
            signer: ed25519PublicKey(new Uint8Array(32).fill(6)),
          },
        },
      ]),
      state,
      kms,
      null,
    ),
    /KMS API error: Failed to get signature\./,
  );
});
