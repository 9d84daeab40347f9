/**
 * Mantle transactions. `MantleTx` is the list of ops (what is hashed and signed); `SignedMantleTx`
 * adds one proof per op.
 *
 * Binary: `MantleTx = u8 op count ‖ op*`; `SignedMantleTx = MantleTx ‖ proof*` with no count and no
 * tags (each proof's variant is implied by its op). JSON input: `{"mantle_tx":{"ops":[...]},"ops_proofs":[...]}`;
 * the API output adds `"hash"` as the first member of `mantle_tx`.
 */

import { isJsonObject, type Json } from '@logos-ts/shared/json';
import { type Reader, Writer } from '../codec/binary.ts';
import { DecodeError, EncodeError, within } from '../codec/errors.ts';
import { bytesToHex } from '../codec/hex.ts';
import { type Codec, decode, expected, vec } from '../codec/schema.ts';
import { blake2b256, tag } from '../crypto/blake2b.ts';
import { type Fr, hashFr } from '../crypto/field.ts';
import { OPCODE_NAMES, type Op, op } from './ops.ts';
import { type OpProof, PROOF_TYPE_OF, proofFromJson, proofToJson, readProof, writeProof } from './proofs.ts';

export const MAX_OPS = 255;

export interface MantleTx {
  ops: Op[];
}

export interface SignedMantleTx {
  mantle_tx: MantleTx;
  ops_proofs: OpProof[];
}

const ops = vec(op, 0, MAX_OPS);

export const mantleTx: Codec<MantleTx> = {
  kind: 'a mantle transaction {"ops":[...]}',
  write: (w, v) => ops.write(w, v.ops),
  read: (r) => ({ ops: within('ops', () => ops.read(r)) }),
  toJson: (v) => ({ ops: ops.toJson(v.ops) }),
  fromJson(j) {
    if (!isJsonObject(j)) throw expected(this.kind, j);
    if (!Object.hasOwn(j, 'ops')) throw new DecodeError('missing field `ops`');
    return { ops: within('ops', () => ops.fromJson(j.ops)) };
  },
};

/** Checks the proof list against the ops (`ops_proofs.length == ops.length`, matching variants). */
export function checkProofsMatch(ops_: readonly Op[], proofs: readonly OpProof[]): void {
  if (proofs.length !== ops_.length) {
    throw new DecodeError(
      `${proofs.length} proofs for ${ops_.length} operations: there must be one proof per operation`,
    ).under('ops_proofs');
  }
  for (let i = 0; i < ops_.length; i++) {
    const want = PROOF_TYPE_OF[ops_[i]!.opcode];
    if (proofs[i]!.type !== want) {
      throw new DecodeError(
        `incorrect proof type ${proofs[i]!.type} for a ${OPCODE_NAMES[ops_[i]!.opcode]} operation (expected ${want})`,
      )
        .under(i)
        .under('ops_proofs');
    }
  }
}

export const signedMantleTx: Codec<SignedMantleTx> = {
  kind: 'a signed transaction {"mantle_tx":{...},"ops_proofs":[...]}',
  write(w, v) {
    if (v.ops_proofs.length !== v.mantle_tx.ops.length)
      throw new EncodeError('one proof per operation is required');
    mantleTx.write(w, v.mantle_tx);
    for (let i = 0; i < v.ops_proofs.length; i++) {
      const p = v.ops_proofs[i]!;
      if (p.type !== PROOF_TYPE_OF[v.mantle_tx.ops[i]!.opcode])
        throw new EncodeError(`proof ${i} has the wrong type`);
      writeProof(w, p);
    }
  },
  read(r: Reader) {
    const tx = within('mantle_tx', () => mantleTx.read(r));
    const proofs: OpProof[] = [];
    for (let i = 0; i < tx.ops.length; i++) {
      proofs.push(
        within('ops_proofs', () => within(i, () => readProof(r, PROOF_TYPE_OF[tx.ops[i]!.opcode]))),
      );
    }
    return { mantle_tx: tx, ops_proofs: proofs };
  },
  toJson: (v) => ({ mantle_tx: mantleTx.toJson(v.mantle_tx), ops_proofs: v.ops_proofs.map(proofToJson) }),
  fromJson(j) {
    if (!isJsonObject(j)) throw expected(this.kind, j);
    if (!Object.hasOwn(j, 'mantle_tx')) throw new DecodeError('missing field `mantle_tx`');
    if (!Object.hasOwn(j, 'ops_proofs')) throw new DecodeError('missing field `ops_proofs`');
    const tx = within('mantle_tx', () => mantleTx.fromJson(j.mantle_tx));
    const rawProofs = j.ops_proofs;
    if (!Array.isArray(rawProofs)) throw expected('a list of proofs', rawProofs).under('ops_proofs');
    if (rawProofs.length > MAX_OPS)
      throw new DecodeError(`list length ${rawProofs.length} is above ${MAX_OPS}`).under('ops_proofs');
    const proofs = rawProofs.map((p, i) => within('ops_proofs', () => within(i, () => proofFromJson(p))));
    checkProofsMatch(tx.ops, proofs);
    return { mantle_tx: tx, ops_proofs: proofs };
  },
};

// ---------- hashing ----------

const MANTLE_TXHASH_V1 = tag('MANTLE_TXHASH_V1');

export function encodeMantleTx(tx: MantleTx): Uint8Array {
  const w = new Writer(256);
  mantleTx.write(w, tx);
  return w.finish();
}

/** Tx hash = Blake2b256("MANTLE_TXHASH_V1" ‖ encode(MantleTx)). Proofs are not hashed. */
export function txHash(tx: MantleTx): Uint8Array {
  return blake2b256(MANTLE_TXHASH_V1, encodeMantleTx(tx));
}

/** The tx hash as the public input of ZK proofs: `Fr::from_le_bytes_mod_order(hash)`. */
export function txHashToFr(hash: Uint8Array): Fr {
  return hashFr(hash);
}

export function encodeSignedTx(tx: SignedMantleTx): Uint8Array {
  const w = new Writer(512);
  signedMantleTx.write(w, tx);
  return w.finish();
}

export function decodeSignedTx(bytes: Uint8Array): SignedMantleTx {
  return decode(signedMantleTx, bytes);
}

/** API output form: `{"mantle_tx":{"hash":..,"ops":[..]},"ops_proofs":[..]}`. */
export function signedTxToApiJson(tx: SignedMantleTx, hash: Uint8Array = txHash(tx.mantle_tx)): Json {
  return {
    mantle_tx: { hash: bytesToHex(hash), ops: ops.toJson(tx.mantle_tx.ops) },
    ops_proofs: tx.ops_proofs.map(proofToJson),
  };
}
