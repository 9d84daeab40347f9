/**
 * Mantle operations: the ten opcodes of 0.3.x, their payloads, binary and JSON forms, and op ids.
 *
 * Binary: `opcode u8 ‖ payload`, payload fields in declaration order. JSON: `{"opcode":n,"payload":{...}}`
 * with the payload members in the same order.
 */

import { isJsonObject, type Json } from '@logos-ts/shared/json';
import type { Writer } from '../codec/binary.ts';
import { DecodeError, EncodeError, within } from '../codec/errors.ts';
import { ed25519PublicKey, hashArray, id32 } from '../codec/primitives.ts';
import {
  boundedBytes,
  type Codec,
  constant,
  encode,
  expected,
  fixedBytes,
  fr,
  struct,
  u8,
  u16,
  u32,
  u64,
  vec,
} from '../codec/schema.ts';
import { blake2b256, tag } from '../crypto/blake2b.ts';
import type { Fr } from '../crypto/field.ts';
import { type Locator, locator } from './locator.ts';
import { type Note, note } from './note.ts';

export const Opcode = {
  Transfer: 0,
  ChannelConfig: 16,
  ChannelInscribe: 17,
  ChannelDeposit: 18,
  ChannelWithdraw: 19,
  ChannelTransfer: 20,
  SDPDeclare: 32,
  SDPWithdraw: 33,
  SDPActive: 34,
  LeaderClaim: 48,
  ClaimPowReward: 64,
} as const;
export type Opcode = (typeof Opcode)[keyof typeof Opcode];

// ---------- limits (lb_codec bounds) ----------

export const MAX_INPUTS = 255;
export const MAX_OUTPUTS = 255;
export const MAX_CHANNEL_KEYS = 65535;
export const MAX_INSCRIPTION_BYTES = 1_835_008;
/** Deposit metadata: at most u32::MAX bytes (F: core/src/mantle/ops/channel/deposit.rs MAX_METADATA_SIZE); the block size limit bounds it in practice. */
export const MAX_DEPOSIT_METADATA_BYTES = 0xffffffff;
export const MAX_LOCATORS = 8;

// ---------- payloads ----------

const noteIds = vec(fr, 0, MAX_INPUTS);
const outputs = vec(note, 0, MAX_OUTPUTS);

export interface TransferOp {
  inputs: Fr[];
  outputs: Note[];
}
export const transferOp = struct<TransferOp>('a Transfer payload', { inputs: noteIds, outputs });

export interface ChannelConfigOp {
  channel: Uint8Array;
  parent: Uint8Array;
  keys: Uint8Array[];
  posting_timeframe: number;
  posting_timeout: number;
  configuration_threshold: number;
  transfer_threshold: number;
}
export const channelConfigOp = struct<ChannelConfigOp>('a ChannelConfig payload', {
  channel: id32,
  // inferred: 0.3.1 field (formats.md); F's ChannelConfigOp has no parent: unverified against F (docs/design/fidelity.md)
  parent: id32,
  keys: vec(ed25519PublicKey, 1, MAX_CHANNEL_KEYS),
  posting_timeframe: u32,
  posting_timeout: u32,
  configuration_threshold: u16,
  transfer_threshold: u16,
});

const inscriptionBytes = boundedBytes(0, MAX_INSCRIPTION_BYTES, 'hex-or-0x', 'an inscription (hex)');

/**
 * Inscription bytes: JSON hex with an optional `0x` (`const_hex::decode`); a string longer than
 * twice the maximum (the prefix counts) is refused before decoding.
 * F: core/src/mantle/ops/channel/inscribe.rs `serde_inscription`, utils/src/lib.rs `deserialize_bounded`
 */
const inscription: Codec<Uint8Array> = {
  ...inscriptionBytes,
  fromJson(j) {
    if (typeof j === 'string' && j.length > 2 * MAX_INSCRIPTION_BYTES) {
      throw new DecodeError(
        `encoded byte string exceeds maximum length of ${2 * MAX_INSCRIPTION_BYTES} characters`,
      );
    }
    return inscriptionBytes.fromJson(j);
  },
};

export interface ChannelInscribeOp {
  channel_id: Uint8Array;
  inscription: Uint8Array;
  parent: Uint8Array;
  signer: Uint8Array;
}
export const channelInscribeOp = struct<ChannelInscribeOp>('a ChannelInscribe payload', {
  channel_id: id32,
  inscription,
  parent: id32,
  signer: ed25519PublicKey,
});

export interface ChannelDepositOp {
  channel_id: Uint8Array;
  inputs: Fr[];
  metadata: Uint8Array;
}
export const channelDepositOp = struct<ChannelDepositOp>('a ChannelDeposit payload', {
  channel_id: id32,
  inputs: noteIds,
  metadata: boundedBytes(0, MAX_DEPOSIT_METADATA_BYTES, 'array', 'metadata (array of bytes)'),
});

export interface ChannelWithdrawOp {
  channel_id: Uint8Array;
  inputs: Fr[];
}
export const channelWithdrawOp = struct<ChannelWithdrawOp>('a ChannelWithdraw payload', {
  channel_id: id32,
  inputs: noteIds,
});

export interface ChannelTransferOp {
  channel_id: Uint8Array;
  inputs: Fr[];
  outputs: Note[];
}
export const channelTransferOp = struct<ChannelTransferOp>('a ChannelTransfer payload', {
  channel_id: id32,
  inputs: noteIds,
  outputs,
});

/** `ServiceType::BlendNetwork`: one byte 0 in binary, "BN" in JSON. */
export type ServiceType = 'BN';
export const serviceType: Codec<ServiceType> = constant(0, 'BN', 'service type');

export interface SDPDeclareOp {
  service_type: ServiceType;
  locators: Locator[];
  provider_id: Uint8Array;
  zk_id: Fr;
  service_note_id: Fr;
}
export const locators = vec(locator, 1, MAX_LOCATORS);
export const sdpDeclareOp = struct<SDPDeclareOp>('an SDPDeclare payload', {
  service_type: serviceType,
  locators,
  provider_id: ed25519PublicKey,
  zk_id: fr,
  // inferred: 0.3.1 name (formats.md); F calls it `locked_note_id`: unverified against F (docs/design/fidelity.md)
  service_note_id: fr,
});

export interface SDPWithdrawOp {
  declaration_id: Uint8Array;
  nonce: bigint;
  service_note_id: Fr;
}
export const sdpWithdrawOp = struct<SDPWithdrawOp>('an SDPWithdraw payload', {
  declaration_id: id32,
  nonce: u64,
  // inferred: 0.3.1 name (formats.md); F calls it `locked_note_id`: unverified against F (docs/design/fidelity.md)
  service_note_id: fr,
});

/** A compressed Groth16 proof split in its points, as the Blend proof of quota carries it (JSON byte arrays). */
export interface Groth16ProofParts {
  pi_a: Uint8Array;
  pi_b: Uint8Array;
  pi_c: Uint8Array;
}

export const groth16ProofArrays = struct<Groth16ProofParts>('a proof {pi_a, pi_b, pi_c}', {
  pi_a: fixedBytes(32, 'array', 'pi_a (array of 32 bytes)'),
  pi_b: fixedBytes(64, 'array', 'pi_b (array of 64 bytes)'),
  pi_c: fixedBytes(32, 'array', 'pi_c (array of 32 bytes)'),
});

export interface ProofOfQuota {
  key_nullifier: Fr;
  proof: Groth16ProofParts;
}
export interface ProofOfSelection {
  selection_randomness: Fr;
}
export interface BlendActivityProof {
  epoch: number;
  signing_key: Uint8Array;
  proof_of_quota: ProofOfQuota;
  proof_of_selection: ProofOfSelection;
}

const ACTIVITY_PROOF_VERSION = 1;
const blendActivityFields = struct<BlendActivityProof>('a Blend activity proof', {
  epoch: u32,
  // F: core/src/sdp/blend.rs, an `Ed25519PublicKey` (validated when decoded)
  signing_key: ed25519PublicKey,
  proof_of_quota: struct<ProofOfQuota>('a proof of quota', { key_nullifier: fr, proof: groth16ProofArrays }),
  proof_of_selection: struct<ProofOfSelection>('a proof of selection', { selection_randomness: fr }),
});

/** `ActivityProof`: binary `0x01 (version) ‖ epoch ‖ signing_key ‖ PoQ ‖ PoS`; JSON without the version. */
export const blendActivityProof: Codec<BlendActivityProof> = {
  kind: blendActivityFields.kind,
  write(w, v) {
    w.u8(ACTIVITY_PROOF_VERSION);
    blendActivityFields.write(w, v);
  },
  read(r) {
    const version = r.u8();
    if (version !== ACTIVITY_PROOF_VERSION)
      throw new DecodeError(`unknown activity proof version ${version}`);
    return blendActivityFields.read(r);
  },
  toJson: (v) => blendActivityFields.toJson(v),
  fromJson: (j) => blendActivityFields.fromJson(j),
};

/** `ActivityMetadata`: only the Blend variant exists (tag byte 1; JSON `{"Blend":{...}}`). */
export interface ActivityMetadata {
  Blend: BlendActivityProof;
}
const ACTIVITY_METADATA_BLEND = 1;
export const activityMetadata: Codec<ActivityMetadata> = {
  kind: 'activity metadata {"Blend":{...}}',
  write(w, v) {
    w.u8(ACTIVITY_METADATA_BLEND);
    blendActivityProof.write(w, v.Blend);
  },
  read(r) {
    const t = r.u8();
    if (t !== ACTIVITY_METADATA_BLEND) throw new DecodeError(`unknown activity metadata variant ${t}`);
    return { Blend: within('Blend', () => blendActivityProof.read(r)) };
  },
  toJson: (v) => ({ Blend: blendActivityProof.toJson(v.Blend) }),
  fromJson(j) {
    if (!isJsonObject(j)) throw expected('{"Blend":{...}}', j);
    const keys = Object.keys(j);
    if (keys.length !== 1 || keys[0] !== 'Blend') {
      throw new DecodeError(`unknown activity metadata variant, expected "Blend"`);
    }
    return { Blend: within('Blend', () => blendActivityProof.fromJson(j.Blend)) };
  },
};

export interface SDPActiveOp {
  declaration_id: Uint8Array;
  nonce: bigint;
  metadata: ActivityMetadata;
}
export const sdpActiveOp = struct<SDPActiveOp>('an SDPActive payload', {
  declaration_id: id32,
  nonce: u64,
  metadata: activityMetadata,
});

export interface LeaderClaimOp {
  rewards_root: Fr;
  voucher_nullifier: Fr;
  pk: Fr;
}
export const leaderClaimOp = struct<LeaderClaimOp>('a LeaderClaim payload', {
  rewards_root: fr,
  voucher_nullifier: fr,
  pk: fr,
});

export interface ClaimPowRewardOp {
  epoch_nonce: Fr;
  block_hash: Uint8Array;
  public_key: Fr;
}
export const claimPowRewardOp = struct<ClaimPowRewardOp>('a ClaimPowReward payload', {
  epoch_nonce: fr,
  block_hash: hashArray,
  public_key: fr,
});

// ---------- the Op union ----------

export interface PayloadOf {
  0: TransferOp;
  16: ChannelConfigOp;
  17: ChannelInscribeOp;
  18: ChannelDepositOp;
  19: ChannelWithdrawOp;
  20: ChannelTransferOp;
  32: SDPDeclareOp;
  33: SDPWithdrawOp;
  34: SDPActiveOp;
  48: LeaderClaimOp;
  64: ClaimPowRewardOp;
}

export type Op = { [K in Opcode]: { opcode: K; payload: PayloadOf[K] } }[Opcode];
export type OpOf<K extends Opcode> = { opcode: K; payload: PayloadOf[K] };

export const payloadCodecs: { readonly [K in Opcode]: Codec<PayloadOf[K]> } = {
  0: transferOp,
  16: channelConfigOp,
  17: channelInscribeOp,
  18: channelDepositOp,
  19: channelWithdrawOp,
  20: channelTransferOp,
  32: sdpDeclareOp,
  33: sdpWithdrawOp,
  34: sdpActiveOp,
  48: leaderClaimOp,
  64: claimPowRewardOp,
};

export const OPCODE_NAMES: { readonly [K in Opcode]: string } = {
  0: 'Transfer',
  16: 'ChannelConfig',
  17: 'ChannelInscribe',
  18: 'ChannelDeposit',
  19: 'ChannelWithdraw',
  20: 'ChannelTransfer',
  32: 'SDPDeclare',
  33: 'SDPWithdraw',
  34: 'SDPActive',
  48: 'LeaderClaim',
  64: 'ClaimPowReward',
};

export function isOpcode(n: number): n is Opcode {
  return Object.hasOwn(payloadCodecs, n);
}

function payloadCodec(opcode: Opcode): Codec<PayloadOf[Opcode]> {
  return payloadCodecs[opcode] as Codec<PayloadOf[Opcode]>;
}

export function writePayload(w: Writer, op: Op): void {
  payloadCodec(op.opcode).write(w, op.payload);
}

export const op: Codec<Op> = {
  kind: 'an operation {"opcode":n,"payload":{...}}',
  write(w, v) {
    if (!isOpcode(v.opcode)) throw new EncodeError(`unknown opcode ${v.opcode}`);
    w.u8(v.opcode);
    writePayload(w, v);
  },
  read(r) {
    const opcode = r.u8();
    if (!isOpcode(opcode)) throw new DecodeError(`unknown opcode ${opcode}`).under('opcode');
    const payload = within('payload', () => payloadCodec(opcode).read(r));
    return { opcode, payload } as Op;
  },
  toJson: (v) => ({ opcode: v.opcode, payload: payloadCodec(v.opcode).toJson(v.payload) }) as Json,
  fromJson(j) {
    if (!isJsonObject(j)) throw expected(this.kind, j);
    if (!Object.hasOwn(j, 'opcode')) throw new DecodeError('missing field `opcode`');
    const opcode = within('opcode', () => u8.fromJson(j.opcode));
    if (!isOpcode(opcode)) throw new DecodeError(`unknown opcode ${opcode}`).under('opcode');
    if (!Object.hasOwn(j, 'payload')) throw new DecodeError('missing field `payload`');
    const payload = within('payload', () => payloadCodec(opcode).fromJson(j.payload));
    return { opcode, payload } as Op;
  },
};

/** Binary of the payload alone (no opcode byte), as op ids and message ids hash it. */
export function encodePayload(v: Op): Uint8Array {
  return encode(payloadCodec(v.opcode), v.payload);
}

const OPERATION_ID_V1 = tag('OPERATION_ID_V1');

/**
 * Ids of transfer payloads computed lately, by payload object, each with the content it came from: a
 * pending transfer is executed again and again (the mempool's view on each new tip, block building)
 * and its id costs an encoding and a digest. A hit counts only if the content is still the same, so a
 * payload changed since gets its id computed again.
 */
const transferIds = new WeakMap<TransferOp, { readonly content: bigint[]; readonly id: Uint8Array }>();

function transferContent(op: TransferOp): bigint[] {
  const c: bigint[] = [BigInt(op.inputs.length), ...op.inputs];
  for (const n of op.outputs) c.push(n.value, n.pk);
  return c;
}

/** Op id = Blake2b256("OPERATION_ID_V1" ‖ payload bytes). The bytes returned must not be changed. */
export function opId(v: Op): Uint8Array {
  if (v.opcode !== 0) return blake2b256(OPERATION_ID_V1, encodePayload(v));
  const op = v.payload as TransferOp;
  const content = transferContent(op);
  const known = transferIds.get(op);
  if (known && known.content.length === content.length && known.content.every((x, i) => x === content[i]))
    return known.id;
  const id = blake2b256(OPERATION_ID_V1, encodePayload(v));
  transferIds.set(op, { content, id });
  return id;
}
