/**
 * The reference's binary codec fixtures (`codec_fixtures!`: the value encodes to exactly these bytes
 * and the bytes decode back to the value), ported value for value.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { header, proofOfLeadership } from '../../src/block/header.ts';
import { Reader, Writer } from '../../src/codec/binary.ts';
import { bytesToHex, hexToBytes } from '../../src/codec/hex.ts';
import { ed25519PublicKey, groth16ProofHex, id32 } from '../../src/codec/primitives.ts';
import { type Codec, decode, encode, fr, vec } from '../../src/codec/schema.ts';
import {
  decodeCryptarchiaParameter,
  encodeCryptarchiaParameter,
} from '../../src/mantle/genesis-parameter.ts';
import { locator, locatorFromString } from '../../src/mantle/locator.ts';
import { note } from '../../src/mantle/note.ts';
import {
  activityMetadata,
  blendActivityProof,
  channelDepositOp,
  channelInscribeOp,
  channelTransferOp,
  channelWithdrawOp,
  claimPowRewardOp,
  leaderClaimOp,
  op,
  sdpActiveOp,
  sdpDeclareOp,
  sdpWithdrawOp,
  serviceType,
  transferOp,
} from '../../src/mantle/ops.ts';
import { readProof, writeProof } from '../../src/mantle/proofs.ts';
import { mantleTx } from '../../src/mantle/tx.ts';

const F = (file: string) => `(core/src/${file})`;
const zeros = (n: number) => new Uint8Array(n);
const filled = (n: number, v: number) => new Uint8Array(n).fill(v);

function fixture<T>(codec: Codec<T>, value: T, hex: string): void {
  assert.equal(bytesToHex(encode(codec, value)), hex, 'encoding');
  assert.deepEqual(decode(codec, hexToBytes(hex)), value, 'decoding');
}

/** The Blend activity proof of the reference's SDP fixtures: epoch 10, key [0;32], PoQ zeros, PoS [1;32]. */
const ACTIVITY = {
  epoch: 10,
  signing_key: zeros(32),
  proof_of_quota: { key_nullifier: 0n, proof: { pi_a: zeros(32), pi_b: zeros(64), pi_c: zeros(32) } },
  proof_of_selection: {
    selection_randomness: 0x0101010101010101010101010101010101010101010101010101010101010101n,
  },
};
const ACTIVITY_HEX = `010a000000${'00'.repeat(32)}${'00'.repeat(160)}${'01'.repeat(32)}`;

describe('codec fixtures: channel ops (core/src/mantle/fixtures/ops/channel.rs)', () => {
  test(`codec_fixtures ChannelId, MsgId ${F('mantle/fixtures/ops/channel.rs')}`, () => {
    fixture(id32, zeros(32), '00'.repeat(32));
  });
  test(`codec_fixtures DepositOp ${F('mantle/fixtures/ops/channel.rs')}`, () => {
    fixture(
      channelDepositOp,
      { channel_id: zeros(32), inputs: [], metadata: new Uint8Array() },
      `${'00'.repeat(32)}0000000000`,
    );
  });
  test(`codec_fixtures InscriptionOp ${F('mantle/fixtures/ops/channel.rs')}`, () => {
    fixture(
      channelInscribeOp,
      {
        channel_id: zeros(32),
        inscription: new TextEncoder().encode('genesis'),
        parent: zeros(32),
        signer: zeros(32),
      },
      `${'00'.repeat(32)}0700000067656e65736973${'00'.repeat(64)}`,
    );
  });
  test(`codec_fixtures ChannelWithdrawOp ${F('mantle/fixtures/ops/channel.rs')}`, () => {
    fixture(channelWithdrawOp, { channel_id: zeros(32), inputs: [] }, `${'00'.repeat(32)}00`);
  });
  test(`codec_fixtures ChannelTransferOp ${F('mantle/fixtures/ops/channel.rs')}`, () => {
    fixture(channelTransferOp, { channel_id: zeros(32), inputs: [], outputs: [] }, `${'00'.repeat(32)}0000`);
  });
  test(`codec_fixtures Op (the ChannelInscribe tag) ${F('mantle/fixtures/ops/channel.rs')}`, () => {
    fixture(
      op,
      {
        opcode: 17,
        payload: {
          channel_id: zeros(32),
          inscription: new TextEncoder().encode('genesis'),
          parent: zeros(32),
          signer: zeros(32),
        },
      },
      `11${'00'.repeat(32)}0700000067656e65736973${'00'.repeat(64)}`,
    );
  });
  test(`codec_fixtures IndexedSignature, ChannelMultiSigProof ${F('mantle/fixtures/ops/channel.rs')}`, () => {
    const w = new Writer(200);
    writeProof(w, { type: 'ChannelMultiSigProof', signatures: [] });
    assert.equal(bytesToHex(w.finish()), '0000');
    const one = {
      type: 'ChannelMultiSigProof' as const,
      signatures: [{ signature: zeros(64), channel_key_index: 0 }],
    };
    const w2 = new Writer(200);
    writeProof(w2, one);
    const hex = `0100${'00'.repeat(64)}0000`;
    assert.equal(bytesToHex(w2.finish()), hex);
    const r = new Reader(hexToBytes(hex));
    assert.deepEqual(readProof(r, 'ChannelMultiSigProof'), one);
    r.end();
    // IndexedSignature alone: signature then u16 index (1 -> 0100).
    const w3 = new Writer(80);
    writeProof(w3, {
      type: 'ChannelMultiSigProof',
      signatures: [{ signature: zeros(64), channel_key_index: 1 }],
    });
    assert.equal(bytesToHex(w3.finish()).slice(4), `${'00'.repeat(64)}0100`);
  });
});

describe('codec fixtures: transactions, ledger, genesis', () => {
  test(`codec_fixtures RawMantleTx ${F('mantle/fixtures/tx.rs')}`, () => {
    fixture(mantleTx, { ops: [] }, '00');
    fixture(
      mantleTx,
      { ops: [{ opcode: 0, payload: { inputs: [0n], outputs: [] } }] },
      `010001${'00'.repeat(32)}00`,
    );
  });
  test(`codec_fixtures TxHash ${F('mantle/fixtures/tx.rs')}`, () => {
    fixture(id32, zeros(32), '00'.repeat(32));
    fixture(id32, filled(32, 1), '01'.repeat(32));
  });
  test(`codec_fixtures NoteId, Note, Inputs, Outputs ${F('mantle/fixtures/ledger.rs')}`, () => {
    fixture(fr, 123n, `7b${'00'.repeat(31)}`);
    fixture(note, { value: 1000n, pk: 42n }, `e803000000000000${'2a'}${'00'.repeat(31)}`);
    fixture(vec(fr, 0, 255), [123n], `017b${'00'.repeat(31)}`);
    fixture(vec(note, 0, 255), [{ value: 1000n, pk: 42n }], `01e8030000000000002a${'00'.repeat(31)}`);
  });
  test(`codec_fixtures ChainId, GenesisTime, CryptarchiaParameter ${F('mantle/fixtures/genesis.rs')}`, () => {
    const hex = `0d6c6f676f732d636861696e2d31e8030000${'00'.repeat(32)}`;
    const p = { chain_id: 'logos-chain-1', genesis_time: 1000, epoch_nonce: 0n };
    assert.equal(bytesToHex(encodeCryptarchiaParameter(p)), hex);
    assert.deepEqual(decodeCryptarchiaParameter(hexToBytes(hex)), p);
    assert.equal(
      bytesToHex(encodeCryptarchiaParameter({ ...p, genesis_time: 0xffffffff })).slice(28, 36),
      'ffffffff',
    );
  });
});

describe('codec fixtures: operations (core/src/mantle/fixtures/ops/*.rs)', () => {
  test(`codec_fixtures TransferOp ${F('mantle/fixtures/ops/transfer.rs')}`, () => {
    fixture(transferOp, { inputs: [], outputs: [] }, '0000');
    fixture(transferOp, { inputs: [1n], outputs: [] }, `0101${'00'.repeat(31)}00`);
    fixture(
      transferOp,
      { inputs: [], outputs: [{ value: 0n, pk: 0n }] },
      `0001${'00'.repeat(8)}${'00'.repeat(32)}`,
    );
    fixture(
      transferOp,
      { inputs: [0n], outputs: [{ value: 0n, pk: 1n }] },
      `01${'00'.repeat(32)}01${'00'.repeat(8)}01${'00'.repeat(31)}`,
    );
  });
  test(`codec_fixtures RewardsRoot, VoucherNullifier, VoucherCm, LeaderClaimOp ${F('mantle/fixtures/ops/leader_claim.rs')}`, () => {
    fixture(fr, 0n, '00'.repeat(32));
    fixture(fr, 1n, `01${'00'.repeat(31)}`);
    fixture(
      leaderClaimOp,
      { rewards_root: 0n, voucher_nullifier: 1n, pk: 0n },
      `${'00'.repeat(32)}01${'00'.repeat(31)}${'00'.repeat(32)}`,
    );
  });
  test(`codec_fixtures Groth16LeaderClaimProof ${F('mantle/fixtures/ops/leader_claim.rs')}`, () => {
    fixture(groth16ProofHex, filled(128, 1), '01'.repeat(128));
  });
  test(`codec_fixtures NoOpProof, PowNullifier, ClaimPowRewardOp ${F('mantle/fixtures/ops/pow.rs')}`, () => {
    const w = new Writer(8);
    writeProof(w, { type: 'None' });
    assert.equal(w.finish().length, 0);
    fixture(fr, 1n, `01${'00'.repeat(31)}`);
    fixture(claimPowRewardOp, { epoch_nonce: 0n, block_hash: zeros(32), public_key: 0n }, '00'.repeat(96));
    fixture(
      claimPowRewardOp,
      { epoch_nonce: 0n, block_hash: filled(32, 1), public_key: 2n },
      `${'00'.repeat(32)}${'01'.repeat(32)}02${'00'.repeat(31)}`,
    );
  });
  test(`codec_fixtures Locator, ServiceType, ProviderId, DeclarationId ${F('mantle/fixtures/ops/sdp.rs')}`, () => {
    fixture(locator, locatorFromString('/ip4/127.0.0.1/udp/3000/quic-v1'), '0b00047f00000191020bb8cd03');
    fixture(serviceType, 'BN', '00');
    // The all-zero key decompresses (y = 0, a point of order 4), so it is a valid provider id.
    fixture(ed25519PublicKey, zeros(32), '00'.repeat(32));
    fixture(id32, zeros(32), '00'.repeat(32));
  });
  test(`codec_fixtures DeclarationMessage ${F('mantle/fixtures/ops/sdp.rs')}`, () => {
    fixture(
      sdpDeclareOp,
      {
        service_type: 'BN',
        locators: [locatorFromString('/ip4/127.0.0.1/udp/3000/quic-v1')],
        provider_id: zeros(32),
        zk_id: 1n,
        service_note_id: 0n,
      },
      `00010b00047f00000191020bb8cd03${'00'.repeat(32)}01${'00'.repeat(31)}${'00'.repeat(32)}`,
    );
  });
  test(`codec_fixtures WithdrawMessage ${F('mantle/fixtures/ops/sdp.rs')}`, () => {
    fixture(
      sdpWithdrawOp,
      { declaration_id: zeros(32), nonce: 2n, service_note_id: 1n },
      `${'00'.repeat(32)}0200000000000000${'01'}${'00'.repeat(31)}`,
    );
  });
  test(`codec_fixtures ActivityProof, ActivityMetadata, ActiveMessage ${F('mantle/fixtures/ops/sdp.rs')}`, () => {
    fixture(blendActivityProof, ACTIVITY, ACTIVITY_HEX);
    fixture(activityMetadata, { Blend: ACTIVITY }, `01${ACTIVITY_HEX}`);
    fixture(
      sdpActiveOp,
      { declaration_id: zeros(32), nonce: 0n, metadata: { Blend: ACTIVITY } },
      `${'00'.repeat(32)}${'00'.repeat(8)}01${ACTIVITY_HEX}`,
    );
  });
});

describe('codec fixtures: header and leader proof', () => {
  const pol = {
    proof: filled(128, 0x22),
    entropy_contribution: 0x5555n,
    leader_key: filled(32, 0x33),
    voucher_cm: 0x4444n,
  };
  const polHex = `${'22'.repeat(128)}5555${'00'.repeat(30)}${'33'.repeat(32)}4444${'00'.repeat(30)}`;
  test(`codec_fixtures Groth16LeaderProof ${F('proofs/fixtures.rs')}`, () => {
    fixture(proofOfLeadership, pol, polHex);
  });
  test(`codec_fixtures Version, HeaderId, ContentId, Header ${F('header/fixtures.rs')}`, () => {
    fixture(id32, filled(32, 0x11), '11'.repeat(32));
    fixture(id32, filled(32, 0x22), '22'.repeat(32));
    fixture(
      header,
      { parent_block: filled(32, 0x11), slot: 42n, body_root: filled(32, 0x22), proof_of_leadership: pol },
      `01${'11'.repeat(32)}2a00000000000000${'22'.repeat(32)}${polHex}`,
    );
  });
});
