/**
 * Errors of Blend messages: bytes from the network that are not a message this node can open, and inputs
 * an encapsulation refuses. One code per reason, named after the reference's `Error` variant it stands
 * for (F: blend/message/src/error.rs), which `meta.variant` carries.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type BlendMessageErrorCode =
  /** The bytes are not exactly one message of the expected layer count (`MessageDeserializationFailed`). */
  | 'BLEND_MESSAGE_SIZE'
  /** The public header's version is not 1. */
  | 'BLEND_MESSAGE_VERSION'
  /** A public header field does not decode: a signing key off the curve, a non-canonical key nullifier. */
  | 'BLEND_MESSAGE_MALFORMED'
  /** A signature over the private header and payload does not verify (`SignatureVerificationFailed`). */
  | 'BLEND_MESSAGE_SIGNATURE'
  /** The proof of quota is refused (`ProofOfQuotaVerificationFailed`). */
  | 'BLEND_MESSAGE_PROOF_OF_QUOTA'
  /** The proof of selection is refused (`ProofOfSelectionVerificationFailed`). */
  | 'BLEND_MESSAGE_PROOF_OF_SELECTION'
  /** The decrypted first blending header does not decode: the layer is not for this node (`PrivateHeaderDeserializationFailed`). */
  | 'BLEND_MESSAGE_PRIVATE_HEADER'
  /** The revealed payload does not decode: unknown type, `actual_len` above the body size (`PayloadDeserializationFailed`). */
  | 'BLEND_MESSAGE_PAYLOAD'
  /** A payload body above `MAX_PAYLOAD_BODY_SIZE` (`PayloadTooLarge`). */
  | 'BLEND_MESSAGE_PAYLOAD_TOO_LARGE'
  /** The key exchange is non-contributory or a key is off the curve (`InvalidSharedSecret`). */
  | 'BLEND_MESSAGE_SHARED_SECRET'
  /** No encapsulation input, or a message without blending headers (`EmptyEncapsulationInputs`). */
  | 'BLEND_MESSAGE_EMPTY'
  /** More encapsulation inputs than layers (`EncapsulationCountExceeded`). */
  | 'BLEND_MESSAGE_TOO_MANY_LAYERS';

export interface BlendMessageErrorMeta {
  /** The reference's error variant. */
  readonly variant: string;
  readonly [key: string]: unknown;
}

export class BlendMessageError extends LogosError<BlendMessageErrorMeta> {
  declare readonly code: BlendMessageErrorCode;

  constructor(code: BlendMessageErrorCode, message: string, meta: BlendMessageErrorMeta, cause?: unknown) {
    super(code, message, { meta, ...(cause !== undefined ? { cause } : {}) });
  }
}
LogosError.register(BlendMessageError);
