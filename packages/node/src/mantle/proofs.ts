/**
 * Operation proofs. In JSON a proof is an externally tagged enum (`{"ZkSig":{...}}`, `{"None":null}`);
 * in binary it has no tag: its variant is implied by the opcode of the op it belongs to.
 */

import { isJsonObject, type Json } from '@logos-ts/shared/json';
import type { Reader, Writer } from '../codec/binary.ts';
import { DecodeError, EncodeError, within } from '../codec/errors.ts';
import { bytesToHex } from '../codec/hex.ts';
import { ed25519Signature, groth16ProofHex } from '../codec/primitives.ts';
import { type Codec, expected, fixedBytes, struct, u16 } from '../codec/schema.ts';
import { Opcode } from './ops.ts';

/** A compressed Groth16 ZkSign proof: pi_a (G1, 32 B) ‖ pi_b (G2, 64 B) ‖ pi_c (G1, 32 B). */
export interface ZkSignature {
  pi_a: Uint8Array;
  pi_b: Uint8Array;
  pi_c: Uint8Array;
}

const zkSignatureFields = struct<ZkSignature>('a ZK signature {pi_a, pi_b, pi_c}', {
  pi_a: fixedBytes(32, 'hex-or-array', 'pi_a (64 hex characters)'),
  pi_b: fixedBytes(64, 'hex-or-array', 'pi_b (128 hex characters)'),
  pi_c: fixedBytes(32, 'hex-or-array', 'pi_c (64 hex characters)'),
});

/** JSON `{"pi_a":hex,"pi_b":hex,"pi_c":hex}` (byte arrays accepted on input); binary the 128 bytes. */
export const zkSignature: Codec<ZkSignature> = {
  ...zkSignatureFields,
  toJson: (v) => ({ pi_a: bytesToHex(v.pi_a), pi_b: bytesToHex(v.pi_b), pi_c: bytesToHex(v.pi_c) }),
};

export interface IndexedSignature {
  signature: Uint8Array;
  channel_key_index: number;
}

const indexedSignature = struct<IndexedSignature>('an indexed signature {signature, channel_key_index}', {
  signature: ed25519Signature,
  channel_key_index: u16,
});

export const MAX_CHANNEL_SIGNATURES = 0xffff;

function checkIncreasing(sigs: readonly IndexedSignature[]): void {
  for (let i = 1; i < sigs.length; i++) {
    if (sigs[i]!.channel_key_index <= sigs[i - 1]!.channel_key_index) {
      throw new DecodeError('channel key indices must be strictly increasing').under(i).under('signatures');
    }
  }
}

export type OpProof =
  | { type: 'Ed25519Sig'; signature: Uint8Array }
  | { type: 'ZkSig'; signature: ZkSignature }
  | { type: 'ZkAndEd25519Sigs'; zk_sig: ZkSignature; ed25519_sig: Uint8Array }
  | { type: 'PoC'; proof: Uint8Array }
  | { type: 'ChannelMultiSigProof'; signatures: IndexedSignature[] }
  | { type: 'None' };

export type ProofType = OpProof['type'];

/** The proof variant each opcode requires (`proof_matches`). */
export const PROOF_TYPE_OF: { readonly [K in Opcode]: ProofType } = {
  [Opcode.Transfer]: 'ZkSig',
  [Opcode.ChannelConfig]: 'ChannelMultiSigProof',
  [Opcode.ChannelInscribe]: 'Ed25519Sig',
  [Opcode.ChannelDeposit]: 'ZkSig',
  [Opcode.ChannelWithdraw]: 'ChannelMultiSigProof',
  [Opcode.ChannelTransfer]: 'ChannelMultiSigProof',
  [Opcode.SDPDeclare]: 'ZkAndEd25519Sigs',
  [Opcode.SDPWithdraw]: 'ZkSig',
  [Opcode.SDPActive]: 'ZkSig',
  [Opcode.LeaderClaim]: 'PoC',
  [Opcode.ClaimPowReward]: 'None',
};

const ZK_SIG_BYTES = 128;

// ---------- binary (untagged, by variant) ----------

export function writeProof(w: Writer, p: OpProof): void {
  switch (p.type) {
    case 'Ed25519Sig':
      ed25519Signature.write(w, p.signature);
      return;
    case 'ZkSig':
      zkSignature.write(w, p.signature);
      return;
    case 'ZkAndEd25519Sigs':
      zkSignature.write(w, p.zk_sig);
      ed25519Signature.write(w, p.ed25519_sig);
      return;
    case 'PoC':
      groth16ProofHex.write(w, p.proof);
      return;
    case 'ChannelMultiSigProof':
      if (p.signatures.length > MAX_CHANNEL_SIGNATURES) throw new EncodeError('too many channel signatures');
      w.u16(p.signatures.length);
      for (const s of p.signatures) indexedSignature.write(w, s);
      return;
    case 'None':
      return;
  }
}

export function readProof(r: Reader, type: ProofType): OpProof {
  switch (type) {
    case 'Ed25519Sig':
      return { type, signature: within(type, () => ed25519Signature.read(r)) };
    case 'ZkSig':
      return { type, signature: within(type, () => zkSignature.read(r)) };
    case 'ZkAndEd25519Sigs':
      return within(type, () => ({
        type,
        zk_sig: within('zk_sig', () => zkSignature.read(r)),
        ed25519_sig: within('ed25519_sig', () => ed25519Signature.read(r)),
      }));
    case 'PoC':
      return { type, proof: within(type, () => within('proof', () => groth16ProofHex.read(r))) };
    case 'ChannelMultiSigProof':
      return within(type, () => {
        const n = r.u16();
        const signatures: IndexedSignature[] = [];
        for (let i = 0; i < n; i++) {
          signatures.push(within('signatures', () => within(i, () => indexedSignature.read(r))));
        }
        checkIncreasing(signatures);
        return { type, signatures };
      });
    case 'None':
      return { type };
  }
}

/** Size in bytes of a proof's binary form. */
export function proofSize(p: OpProof): number {
  switch (p.type) {
    case 'Ed25519Sig':
      return 64;
    case 'ZkSig':
    case 'PoC':
      return ZK_SIG_BYTES;
    case 'ZkAndEd25519Sigs':
      return ZK_SIG_BYTES + 64;
    case 'ChannelMultiSigProof':
      return 2 + 66 * p.signatures.length;
    case 'None':
      return 0;
  }
}

// ---------- JSON (externally tagged) ----------

const PROOF_TYPES: readonly ProofType[] = [
  'Ed25519Sig',
  'ZkSig',
  'ZkAndEd25519Sigs',
  'PoC',
  'ChannelMultiSigProof',
  'None',
];

const zkAndEd = struct<{ zk_sig: ZkSignature; ed25519_sig: Uint8Array }>('{zk_sig, ed25519_sig}', {
  zk_sig: zkSignature,
  ed25519_sig: ed25519Signature,
});
const pocBody = struct<{ proof: Uint8Array }>('{proof}', { proof: groth16ProofHex });
const multiSigBody = struct<{ signatures: IndexedSignature[] }>('{signatures}', {
  signatures: {
    kind: 'a list of indexed signatures',
    write() {
      throw new EncodeError('unreachable');
    },
    read() {
      throw new DecodeError('unreachable');
    },
    toJson: (v) => v.map((s) => indexedSignature.toJson(s)),
    fromJson(j) {
      if (!Array.isArray(j)) throw expected('a list of indexed signatures', j);
      if (j.length > MAX_CHANNEL_SIGNATURES) throw new DecodeError('too many channel signatures');
      return j.map((x, i) => within(i, () => indexedSignature.fromJson(x)));
    },
  },
});

export function proofToJson(p: OpProof): Json {
  switch (p.type) {
    case 'Ed25519Sig':
      return { Ed25519Sig: ed25519Signature.toJson(p.signature) };
    case 'ZkSig':
      return { ZkSig: zkSignature.toJson(p.signature) };
    case 'ZkAndEd25519Sigs':
      return { ZkAndEd25519Sigs: zkAndEd.toJson(p) };
    case 'PoC':
      return { PoC: pocBody.toJson(p) };
    case 'ChannelMultiSigProof':
      return { ChannelMultiSigProof: multiSigBody.toJson(p) };
    case 'None':
      return { None: null };
  }
}

export function proofFromJson(j: Json | undefined): OpProof {
  // `None` is a newtype variant (`None(NoOpProof)`): only `{"None":null}`, never the bare string.
  // F: core/src/mantle/ops/mod.rs `OpProof`
  if (!isJsonObject(j)) throw expected('a proof {"<Variant>":...}', j);
  const keys = Object.keys(j);
  if (keys.length !== 1) throw new DecodeError('a proof must be an object with exactly one variant key');
  const type = keys[0] as ProofType;
  if (!PROOF_TYPES.includes(type)) {
    throw new DecodeError(`unknown proof variant \`${keys[0]}\`, expected one of ${PROOF_TYPES.join(', ')}`);
  }
  const body = j[type];
  return within(type, (): OpProof => {
    switch (type) {
      case 'Ed25519Sig':
        return { type, signature: ed25519Signature.fromJson(body) };
      case 'ZkSig':
        return { type, signature: zkSignature.fromJson(body) };
      case 'ZkAndEd25519Sigs':
        return { type, ...zkAndEd.fromJson(body) };
      case 'PoC':
        return { type, ...pocBody.fromJson(body) };
      case 'ChannelMultiSigProof': {
        const { signatures } = multiSigBody.fromJson(body);
        checkIncreasing(signatures);
        return { type, signatures };
      }
      case 'None':
        if (body !== null) throw new DecodeError('the None proof takes null');
        return { type };
    }
  });
}
