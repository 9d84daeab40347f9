/**
 * Blend messages: the wire format, the sender's layered encryption and the node's decryption of its
 * layer (F: blend/message/src/**). Pure: no I/O; randomness from node:crypto unless given.
 */
export {
  BLENDING_HEADER_SIZE,
  type BlendingHeader,
  encodeBlendingHeader,
  pseudoRandomBlendingHeader,
  readBlendingHeader,
} from './blending-header.ts';
export {
  type BlendingToken,
  type DecapsulationOutput,
  decapsulate,
  decapsulateVerified,
  type LayerProofVerifier,
  verifyPublicHeader,
  verifyPublicHeaderSignature,
} from './decapsulate.ts';
export {
  type EncapsulateOptions,
  type EncapsulationInput,
  encapsulate,
  initializePrivateHeader,
  layerSharedKey,
} from './encapsulate.ts';
export {
  assumePublicHeaderVerified,
  checkLayerCount,
  decodeEncapsulatedMessage,
  decodeEncapsulatedPart,
  type EncapsulatedMessage,
  type EncapsulatedPart,
  encapsulatedMessageSize,
  encapsulatedPartSize,
  encodeEncapsulatedMessage,
  encodeEncapsulatedPart,
  layerCount,
  messageId,
  type VerifiedEncapsulatedMessage,
} from './encapsulated.ts';
export { BlendMessageError, type BlendMessageErrorCode, type BlendMessageErrorMeta } from './errors.ts';
export {
  decodePaddedPayloadBody,
  decodePayload,
  encodePaddedPayloadBody,
  encodePayload,
  isDataMessage,
  MAX_PAYLOAD_BODY_SIZE,
  PADDED_PAYLOAD_BODY_SIZE,
  PAYLOAD_SIZE,
  type Payload,
  PayloadType,
  type RandomFill,
  secureRandomFill,
} from './payload.ts';
export {
  encodeProofOfQuota,
  PROOF_OF_QUOTA_SIZE,
  PROOF_OF_SELECTION_SIZE,
  proofOfQuotaUnchecked,
  proofOfSelectionUnchecked,
} from './proofs.ts';
export {
  BLEND_MESSAGE_VERSION,
  decodePublicHeader,
  encodePublicHeader,
  PUBLIC_HEADER_SIZE,
  type PublicHeader,
} from './public-header.ts';
