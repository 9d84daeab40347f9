/**
 * The cryptographic processor of one epoch (F `blend/scheduling/src/message_blend/crypto/**`,
 * `blend/network/src/core/poq_verification.rs`, `services/blend/src/core/processor.rs`): it checks
 * the public header of received messages against the epoch's proof-of-quota inputs, removes the
 * layers addressed to this node (collecting a blending token for each), and wraps this node's own
 * payloads in `num_blend_layers` layers, each with a fresh ephemeral key, a proof of quota bound to
 * it and the proof of selection that designates the node the layer is for.
 */
import { bytesToHex } from '../codec/hex.ts';
import { CoreTree } from '../crypto/blend/core-tree.ts';
import {
  type PoqPublicInputs,
  PoqSelector,
  type PoqWitness,
  selectionRandomness,
} from '../crypto/blend/poq.ts';
import { selectionIndex } from '../crypto/blend/selection.ts';
import { x25519SecretFromEd25519 } from '../crypto/blend/x25519.ts';
import { ed25519GenerateSecretKey, ed25519PublicKey } from '../crypto/ed25519.ts';
import { type Fr, frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import type { ProofSystem, ProveOptions } from '../ledger/proof-system.ts';
import type { LeadershipWin } from './interface.ts';
import { type BlendEpochState, type EpochPoqInputs, epochPoqInputs } from './membership.ts';
import {
  assumePublicHeaderVerified,
  type BlendingToken,
  BlendMessageError,
  type DecapsulationOutput,
  decapsulateVerified,
  decodeEncapsulatedMessage,
  type EncapsulatedMessage,
  type EncapsulationInput,
  encapsulate,
  encodeEncapsulatedMessage,
  type LayerProofVerifier,
  messageId,
  type PayloadType,
  verifyPublicHeaderSignature,
} from './message/index.ts';
import type { VerifyOutcome } from './network/index.ts';
import type { EpochQuotaCounter, QuotaBranch } from './quota.ts';

/** This node's Blend keys. */
export interface BlendKeys {
  /** The Ed25519 seed of the non-ephemeral signing key. */
  readonly signingSeed: Uint8Array;
  readonly signingPublic: Uint8Array;
  /** The Zk secret key declared as the SDP zk id (proves the core quota); null without one. */
  readonly zkSecret: Fr | null;
}

/** One layer's proof made ahead: its ephemeral key, its proof of quota and the node it designates. */
export interface LayerProof {
  readonly ephemeralSigningKey: Uint8Array;
  readonly input: EncapsulationInput;
}

/** What a received message left after this node removed the layers addressed to it. */
export type Unwrapped =
  | { readonly kind: 'not-for-us' }
  | { readonly kind: 'forward'; readonly message: Uint8Array; readonly tokens: readonly BlendingToken[] }
  | {
      readonly kind: 'payload';
      readonly payloadType: PayloadType;
      readonly body: Uint8Array;
      readonly tokens: readonly BlendingToken[];
    };

/** The id the swarm de-duplicates by: the hex of the public header's key nullifier. */
export function messageIdHex(message: EncapsulatedMessage): string {
  return bytesToHex(frToBytes(messageId(message)));
}

export class EpochProcessor {
  readonly poqInputs: EpochPoqInputs;
  readonly coreTree: CoreTree | null;
  readonly #x25519Secret: Uint8Array;

  constructor(
    readonly state: BlendEpochState,
    readonly layers: number,
    readonly quota: EpochQuotaCounter,
    private readonly keys: BlendKeys,
    private readonly proofs: { prover: ProofSystem; verifier: ProofSystem },
  ) {
    const zkIds = state.membership.zkIds;
    this.coreTree = zkIds.length > 0 ? new CoreTree(zkIds) : null;
    this.poqInputs = epochPoqInputs(state, quota.quotas, this.coreTree?.root ?? 0n);
    this.#x25519Secret = x25519SecretFromEd25519(keys.signingSeed);
  }

  get epoch(): number {
    return this.state.epoch;
  }

  /** The public inputs of a proof of quota bound to `signingKey`. */
  publicInputs(signingKey: Uint8Array): PoqPublicInputs {
    return { signing_key: signingKey, ...this.poqInputs };
  }

  /** The message's id, or null when the bytes are not a message of this deployment. */
  messageId(bytes: Uint8Array): string | null {
    try {
      return messageIdHex(decodeEncapsulatedMessage(bytes, this.layers));
    } catch (e) {
      if (e instanceof BlendMessageError) return null;
      throw e;
    }
  }

  /** The public header: its signature, then its proof of quota against this epoch's inputs. */
  async verify(bytes: Uint8Array): Promise<VerifyOutcome> {
    let m: EncapsulatedMessage;
    try {
      m = decodeEncapsulatedMessage(bytes, this.layers);
    } catch (e) {
      if (e instanceof BlendMessageError) return 'invalid_header_signature';
      throw e;
    }
    if (!verifyPublicHeaderSignature(m)) return 'invalid_header_signature';
    const h = m.publicHeader;
    const ok = await this.verifyPoq(h.proofOfQuota, h.signingKey);
    return ok ? 'valid' : 'invalid_proof_of_quota';
  }

  private verifyPoq(
    poq: { key_nullifier: Fr; proof: import('../mantle/ops.ts').Groth16ProofParts },
    signingKey: Uint8Array,
  ): Promise<boolean> {
    return this.proofs.verifier.verifyPoq(this.publicInputs(signingKey), poq.key_nullifier, poq.proof);
  }

  /** The checks of the layers under the first one: their PoQ, and a PoSel designating this node. */
  private layerVerifier(): LayerProofVerifier {
    const local = this.state.membership.localIndex;
    const size = BigInt(this.state.membership.size);
    return {
      proofOfQuota: (poq, signingKey) => this.verifyPoq(poq, signingKey),
      proofOfSelection: (poSel) =>
        local !== null && size > 0n && selectionIndex(poSel.selection_randomness, size) === BigInt(local),
    };
  }

  /**
   * Removes every layer of a message (its public header verified) addressed to this node: the
   * message for the next node, or the payload when the last layer was this node's, with a blending
   * token per layer removed; `not-for-us` when its outer layer is another node's.
   */
  async unwrap(bytes: Uint8Array): Promise<Unwrapped> {
    let message = assumePublicHeaderVerified(decodeEncapsulatedMessage(bytes, this.layers));
    const tokens: BlendingToken[] = [];
    const verifier = this.layerVerifier();
    for (;;) {
      let out: DecapsulationOutput;
      try {
        out = await decapsulateVerified(message, this.#x25519Secret, verifier);
      } catch (e) {
        if (!(e instanceof BlendMessageError)) throw e;
        if (tokens.length === 0) return { kind: 'not-for-us' };
        return { kind: 'forward', message: encodeEncapsulatedMessage(message), tokens };
      }
      tokens.push(out.blendingToken);
      if (out.kind === 'complete')
        return { kind: 'payload', payloadType: out.payloadType, body: out.body, tokens };
      message = out.message;
    }
  }

  /**
   * One layer's proof of quota on `branch` (a fresh ephemeral key bound to it) and the member its
   * proof of selection designates; null when the branch's quota is used up.
   */
  async proveLayer(
    branch: QuotaBranch,
    credential: { win?: LeadershipWin; powNonce?: Fr },
    opts: ProveOptions = {},
    /** The key index to prove (a leadership proof's, per won slot); default the branch's next one. */
    index?: number,
  ): Promise<LayerProof | null> {
    const keyIndex = index ?? this.quota.nextKeyIndex(branch);
    if (keyIndex === null || BigInt(keyIndex) >= this.quota.quotas[branch]) return null;
    const witness = this.witness(branch, BigInt(keyIndex), credential);
    const ephemeralSigningKey = ed25519GenerateSecretKey();
    const signingKey = ed25519PublicKey(ephemeralSigningKey);
    const { proof, keyNullifier } = await this.proofs.prover.provePoq(
      this.publicInputs(signingKey),
      witness,
      opts,
    );
    const r = selectionRandomness(this.state.nonce, witness);
    const recipient = this.state.membership.getNodeAt(
      Number(selectionIndex(r, BigInt(this.state.membership.size))),
    )!;
    return {
      ephemeralSigningKey,
      input: {
        ephemeralSigningKey,
        recipientSigningKey: recipient.publicKey,
        proofOfQuota: { key_nullifier: keyNullifier, proof },
        proofOfSelection: { selection_randomness: r },
      },
    };
  }

  private witness(
    branch: QuotaBranch,
    key_index: bigint,
    credential: { win?: LeadershipWin; powNonce?: Fr },
  ): PoqWitness {
    switch (branch) {
      case 'core': {
        const sk = this.keys.zkSecret;
        const path = sk === null ? undefined : this.coreTree?.pathOf(zkPublicKey(sk));
        if (sk === null || path === undefined)
          throw new BlendMessageError('BLEND_MESSAGE_EMPTY', 'this node is not a core node of the epoch', {
            variant: 'EmptyEncapsulationInputs',
          });
        return { selector: PoqSelector.Core, key_index, core_sk: sk, core_path: path };
      }
      case 'leadership': {
        const w = credential.win!;
        return {
          selector: PoqSelector.Leader,
          key_index,
          slot: w.slot,
          note_value: w.note_value,
          transaction_hash: w.note_tx_hash,
          output_number: BigInt(w.note_output_index),
          aged_path: w.aged_path,
          aged_index: w.aged_index,
          secret_key: w.secret_key,
        };
      }
      case 'pow':
        return { selector: PoqSelector.Pow, key_index, pow_nonce: credential.powNonce! };
    }
  }

  /** Wraps a payload in layers made from `proofs`, one per layer (the last one is the first hop). */
  wrap(payloadType: PayloadType, body: Uint8Array, proofs: readonly LayerProof[]): Uint8Array {
    const m = encapsulate(
      proofs.map((p) => p.input),
      { type: payloadType, body },
      this.layers,
    );
    return encodeEncapsulatedMessage(m);
  }
}
