/**
 * The predicted size of a transaction once signed (F `minimum_signed_mantle_tx_size`,
 * `core/src/mantle/transactions/codec.rs` tests): equal to the encoded size of the signed transaction,
 * op by op, with the proof each op takes (channel multi-signatures at the channel's threshold).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ed25519PublicKey } from '../../src/crypto/ed25519.ts';
import { type GasContext, minimumSignedTxSize } from '../../src/ledger/gas.ts';
import { locatorFromString } from '../../src/mantle/locator.ts';
import { type Op, Opcode } from '../../src/mantle/ops.ts';
import type { OpProof } from '../../src/mantle/proofs.ts';
import { encodeSignedTx, type MantleTx } from '../../src/mantle/tx.ts';

const ctx = (configurationThreshold?: number): GasContext => ({
  execution_base_gas_price: 0n,
  storage_gas_price: 0n,
  transferThreshold: () => undefined,
  configurationThreshold: () => configurationThreshold,
});
const zk = { pi_a: new Uint8Array(32), pi_b: new Uint8Array(64), pi_c: new Uint8Array(32) };
const edKey = (b: number) => ed25519PublicKey(new Uint8Array(32).fill(b));

function assertPredicted(ops: Op[], proofs: OpProof[], c: GasContext = ctx()): void {
  const tx: MantleTx = { ops };
  assert.equal(
    minimumSignedTxSize(tx, c),
    BigInt(encodeSignedTx({ mantle_tx: tx, ops_proofs: proofs }).length),
  );
}

test('test_minimum_signed_mantle_tx_size_empty_tx (core/src/mantle/transactions/codec.rs)', () => {
  assertPredicted([], []);
});

test('test_minimum_signed_mantle_tx_size_with_inscribe (core/src/mantle/transactions/codec.rs)', () => {
  assertPredicted(
    [
      {
        opcode: Opcode.ChannelInscribe,
        payload: {
          channel_id: new Uint8Array(32).fill(0xaa),
          inscription: new TextEncoder().encode('hello world'),
          parent: new Uint8Array(32).fill(0xbb),
          signer: edKey(1),
        },
      },
    ],
    [{ type: 'Ed25519Sig', signature: new Uint8Array(64) }],
  );
});

test('test_minimum_signed_mantle_tx_size_with_set_keys (core/src/mantle/transactions/codec.rs)', () => {
  const op: Op = {
    opcode: Opcode.ChannelConfig,
    payload: {
      channel: new Uint8Array(32).fill(0xff),
      parent: new Uint8Array(32),
      keys: [edKey(1), edKey(2), edKey(3)],
      posting_timeframe: 0,
      posting_timeout: 0,
      configuration_threshold: 0,
      transfer_threshold: 0,
    },
  };
  // A new channel: no signature predicted. An existing one with threshold 2: two.
  assertPredicted([op], [{ type: 'ChannelMultiSigProof', signatures: [] }]);
  const sig = (i: number) => ({ signature: new Uint8Array(64), channel_key_index: i });
  assertPredicted([op], [{ type: 'ChannelMultiSigProof', signatures: [sig(0), sig(1)] }], ctx(2));
});

test('test_minimum_signed_mantle_tx_size_with_sdp_withdraw, _sdp_active, _leader_claim, _ledger_inputs_outputs (core/src/mantle/transactions/codec.rs)', () => {
  assertPredicted(
    [
      {
        opcode: Opcode.SDPWithdraw,
        payload: { declaration_id: new Uint8Array(32), nonce: 1n, service_note_id: 5n },
      },
      { opcode: Opcode.LeaderClaim, payload: { rewards_root: 1n, voucher_nullifier: 2n, pk: 3n } },
      { opcode: Opcode.Transfer, payload: { inputs: [1n, 2n], outputs: [{ value: 10n, pk: 4n }] } },
      {
        opcode: Opcode.ClaimPowReward,
        payload: { epoch_nonce: 1n, block_hash: new Uint8Array(32), public_key: 2n },
      },
    ],
    [
      { type: 'ZkSig', signature: zk },
      { type: 'PoC', proof: new Uint8Array(128) },
      { type: 'ZkSig', signature: zk },
      { type: 'None' },
    ],
  );
});

test('test_minimum_signed_mantle_tx_size_with_sdp_declare (core/src/mantle/transactions/codec.rs)', () => {
  assertPredicted(
    [
      {
        opcode: Opcode.SDPDeclare,
        payload: {
          service_type: 'BN',
          locators: [locatorFromString('/ip4/127.0.0.1/udp/3000/quic-v1')],
          provider_id: edKey(24),
          zk_id: 25n,
          service_note_id: 26n,
        },
      },
    ],
    [{ type: 'ZkAndEd25519Sigs', zk_sig: zk, ed25519_sig: new Uint8Array(64) }],
  );
});
