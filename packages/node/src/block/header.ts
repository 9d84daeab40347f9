/**
 * Block headers. Binary (297 bytes, what the leader signs):
 * `version 1 ‖ parent 32 ‖ slot u64 ‖ body_root 32 ‖ proof 128 ‖ entropy 32 ‖ leader_key 32 ‖ voucher_cm 32`.
 * The header id hashes the same fields in another order (see `headerId`).
 */

import { isJsonObject, type Json } from '@logos-ts/shared/json';
import { Writer } from '../codec/binary.ts';
import { DecodeError, within } from '../codec/errors.ts';
import { bytesToHex } from '../codec/hex.ts';
import { ed25519PublicKey, ed25519Signature, groth16ProofHex, id32 } from '../codec/primitives.ts';
import { type Codec, decode, encode, expected, fr, struct, u64 } from '../codec/schema.ts';
import { blake2b256, tag } from '../crypto/blake2b.ts';
import { type Fr, frToBytes } from '../crypto/field.ts';

export const HEADER_VERSION_BEDROCK = 1;
export const HEADER_BYTES = 297;
export const SIGNED_HEADER_BYTES = HEADER_BYTES + 64;

export interface ProofOfLeadership {
  proof: Uint8Array;
  entropy_contribution: Fr;
  leader_key: Uint8Array;
  voucher_cm: Fr;
}

export const proofOfLeadership = struct<ProofOfLeadership>('a proof of leadership', {
  proof: groth16ProofHex,
  entropy_contribution: fr,
  leader_key: ed25519PublicKey,
  voucher_cm: fr,
});

export interface Header {
  parent_block: Uint8Array;
  slot: bigint;
  body_root: Uint8Array;
  proof_of_leadership: ProofOfLeadership;
}

const headerFields = struct<Header>('a header', {
  parent_block: id32,
  slot: u64,
  body_root: id32,
  proof_of_leadership: proofOfLeadership,
});

/**
 * The version: byte 1 in binary, "Bedrock" in the core JSON form. On input the name is matched
 * without regard to case. F: core/src/header/mod.rs `TryFrom<&str> for Version`
 */
const version: Codec<'Bedrock'> = {
  kind: 'the header version "Bedrock"',
  write: (w) => w.u8(HEADER_VERSION_BEDROCK),
  read(r) {
    const v = r.u8();
    if (v !== HEADER_VERSION_BEDROCK) throw new DecodeError(`unknown header version ${v}`);
    return 'Bedrock';
  },
  toJson: () => 'Bedrock',
  fromJson(j) {
    if (typeof j !== 'string' || j.toLowerCase() !== 'bedrock')
      throw new DecodeError(`unknown header version ${JSON.stringify(j)}, expected "Bedrock"`);
    return 'Bedrock';
  },
};

/**
 * Core form: binary 297 bytes; JSON `{version:"Bedrock", parent_block, slot, body_root, proof_of_leadership}`
 * (storage, genesis files).
 */
export const header: Codec<Header> = {
  kind: 'a header',
  write(w, v) {
    version.write(w, 'Bedrock');
    headerFields.write(w, v);
  },
  read(r) {
    within('version', () => version.read(r));
    return headerFields.read(r);
  },
  toJson: (v) => ({ version: 'Bedrock', ...(headerFields.toJson(v) as { [k: string]: Json }) }),
  fromJson(j) {
    if (!isJsonObject(j)) throw expected('a header', j);
    if (!Object.hasOwn(j, 'version')) throw new DecodeError('missing field `version`');
    within('version', () => version.fromJson(j.version));
    return headerFields.fromJson(j);
  },
};

export function encodeHeader(h: Header): Uint8Array {
  return encode(header, h, HEADER_BYTES);
}

export function decodeHeader(bytes: Uint8Array): Header {
  return decode(header, bytes);
}

const BLOCK_ID_V1 = tag('BLOCK_ID_V1');

/**
 * Header id = Blake2b256("BLOCK_ID_V1" ‖ version ‖ parent ‖ slot LE ‖ body_root ‖ voucher_cm ‖ entropy
 * ‖ proof ‖ leader_key). Note the order differs from the binary encoding.
 */
export function headerId(h: Header): Uint8Array {
  const w = new Writer(HEADER_BYTES);
  w.u8(HEADER_VERSION_BEDROCK);
  w.bytes(h.parent_block);
  w.u64(h.slot);
  w.bytes(h.body_root);
  w.bytes(frToBytes(h.proof_of_leadership.voucher_cm));
  w.bytes(frToBytes(h.proof_of_leadership.entropy_contribution));
  w.bytes(h.proof_of_leadership.proof);
  w.bytes(h.proof_of_leadership.leader_key);
  return blake2b256(BLOCK_ID_V1, w.finish());
}

/** API form (no version, id first): `{"id","parent_block","slot","body_root","proof_of_leadership"}`. */
export function headerToApiJson(h: Header, id: Uint8Array = headerId(h)): Json {
  return { id: bytesToHex(id), ...(headerFields.toJson(h) as { [k: string]: Json }) };
}

export interface SignedHeader {
  header: Header;
  signature: Uint8Array;
}

/** `SignedHeader` (uncles): 297-byte header ‖ 64-byte signature; core JSON `{header, signature}`. */
export const signedHeader = struct<SignedHeader>('a signed header {header, signature}', {
  header,
  signature: ed25519Signature,
});

export function signedHeaderToApiJson(s: SignedHeader): Json {
  return { header: headerToApiJson(s.header), signature: bytesToHex(s.signature) };
}
