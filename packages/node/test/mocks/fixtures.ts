/** Deterministic sample values of every chain type, for round-trip and id tests. */

import type { Block } from '../../src/block/block.ts';
import type { Header, SignedHeader } from '../../src/block/header.ts';
import { ed25519PublicKey as edPk } from '../../src/crypto/ed25519.ts';
import { FR_MODULUS } from '../../src/crypto/field.ts';
import { locatorFromString } from '../../src/mantle/locator.ts';
import { type Op, Opcode } from '../../src/mantle/ops.ts';
import { type OpProof, PROOF_TYPE_OF, type ZkSignature } from '../../src/mantle/proofs.ts';
import type { SignedMantleTx } from '../../src/mantle/tx.ts';

/** n bytes b, b+1, b+2, ... (mod 256). */
export function seq(n: number, start = 0): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (start + i) & 0xff);
}

export function filled(n: number, v: number): Uint8Array {
  return new Uint8Array(n).fill(v);
}

/** A valid (non small-order) Ed25519 public key: that of the secret [24; 32], as the reference's conformance sample. */
export const PROVIDER_PK = edPk(filled(32, 24));

export const zkSig = (b: number): ZkSignature => ({
  pi_a: filled(32, b),
  pi_b: filled(64, b + 1),
  pi_c: filled(32, b + 2),
});

export const U64_MAX = 0xffffffffffffffffn;

export const SAMPLE_OPS: Op[] = [
  {
    opcode: Opcode.Transfer,
    payload: {
      inputs: [1n, FR_MODULUS - 1n],
      outputs: [
        { value: 100n, pk: 456n },
        { value: U64_MAX, pk: 2n ** 200n },
      ],
    },
  },
  {
    opcode: Opcode.ChannelConfig,
    payload: {
      channel: seq(32, 1),
      parent: seq(32, 2),
      keys: [seq(32, 3), seq(32, 4)],
      posting_timeframe: 10,
      posting_timeout: 0xffffffff,
      configuration_threshold: 1,
      transfer_threshold: 2,
    },
  },
  {
    opcode: Opcode.ChannelInscribe,
    payload: {
      channel_id: filled(32, 0),
      inscription: Uint8Array.from([104, 101, 108, 108, 111]),
      parent: filled(32, 0),
      signer: seq(32, 9),
    },
  },
  {
    opcode: Opcode.ChannelDeposit,
    payload: { channel_id: seq(32, 5), inputs: [7n], metadata: Uint8Array.from([1, 2, 3]) },
  },
  { opcode: Opcode.ChannelWithdraw, payload: { channel_id: seq(32, 6), inputs: [8n, 9n] } },
  {
    opcode: Opcode.ChannelTransfer,
    payload: { channel_id: seq(32, 7), inputs: [10n], outputs: [{ value: 5n, pk: 11n }] },
  },
  {
    opcode: Opcode.SDPDeclare,
    payload: {
      service_type: 'BN',
      locators: [locatorFromString('/ip4/127.0.0.1/udp/3000/quic-v1')],
      provider_id: PROVIDER_PK,
      zk_id: 25n,
      service_note_id: 26n,
    },
  },
  { opcode: Opcode.SDPWithdraw, payload: { declaration_id: seq(32, 8), nonce: 3n, service_note_id: 26n } },
  {
    opcode: Opcode.SDPActive,
    payload: {
      declaration_id: seq(32, 8),
      nonce: 4n,
      metadata: {
        Blend: {
          epoch: 7,
          signing_key: edPk(filled(32, 12)),
          proof_of_quota: {
            key_nullifier: 13n,
            proof: { pi_a: filled(32, 1), pi_b: filled(64, 2), pi_c: filled(32, 3) },
          },
          proof_of_selection: { selection_randomness: 14n },
        },
      },
    },
  },
  { opcode: Opcode.LeaderClaim, payload: { rewards_root: 15n, voucher_nullifier: 16n, pk: 17n } },
  { opcode: Opcode.ClaimPowReward, payload: { epoch_nonce: 18n, block_hash: seq(32, 200), public_key: 19n } },
];

export function sampleProof(op: Op, b = 0x40): OpProof {
  switch (PROOF_TYPE_OF[op.opcode]) {
    case 'Ed25519Sig':
      return { type: 'Ed25519Sig', signature: filled(64, b) };
    case 'ZkSig':
      return { type: 'ZkSig', signature: zkSig(b) };
    case 'ZkAndEd25519Sigs':
      return { type: 'ZkAndEd25519Sigs', zk_sig: zkSig(b), ed25519_sig: filled(64, b + 3) };
    case 'PoC':
      return { type: 'PoC', proof: filled(128, b) };
    case 'ChannelMultiSigProof':
      return {
        type: 'ChannelMultiSigProof',
        signatures: [
          { signature: filled(64, b), channel_key_index: 0 },
          { signature: filled(64, b + 1), channel_key_index: 1 },
        ],
      };
    case 'None':
      return { type: 'None' };
  }
}

export function sampleSignedTx(ops: Op[] = SAMPLE_OPS): SignedMantleTx {
  return { mantle_tx: { ops }, ops_proofs: ops.map((o) => sampleProof(o)) };
}

export const SAMPLE_HEADER: Header = {
  parent_block: seq(32, 100),
  slot: 689412n,
  body_root: seq(32, 150),
  proof_of_leadership: {
    proof: seq(128, 7),
    entropy_contribution: 12345n,
    leader_key: seq(32, 50),
    voucher_cm: FR_MODULUS - 2n,
  },
};

export const SAMPLE_UNCLE: SignedHeader = {
  header: { ...SAMPLE_HEADER, slot: 689411n },
  signature: filled(64, 9),
};

export const SAMPLE_BLOCK: Block = {
  header: SAMPLE_HEADER,
  signature: filled(64, 0xaa),
  uncle_headers: [SAMPLE_UNCLE],
  transactions: [sampleSignedTx(), sampleSignedTx(SAMPLE_OPS.slice(0, 1))],
};

/** The smallest interesting transfer: one input Fr(1), one output of 100 to pk Fr(456). */
export const SIMPLE_TRANSFER: Op = {
  opcode: Opcode.Transfer,
  payload: { inputs: [1n], outputs: [{ value: 100n, pk: 456n }] },
};

/** A u64 as 8 little-endian bytes. */
export function le64(v: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, true);
  return b;
}
