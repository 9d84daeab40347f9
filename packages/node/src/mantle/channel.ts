/** Channel message ids: the chain of inscriptions and configurations of a channel links by these. */

import { encode } from '../codec/schema.ts';
import { blake2b256 } from '../crypto/blake2b.ts';
import { type ChannelConfigOp, type ChannelInscribeOp, channelConfigOp, channelInscribeOp } from './ops.ts';

/** Message id of an inscription = Blake2b256(encode(payload)), no domain tag. */
export function inscriptionMessageId(op: ChannelInscribeOp): Uint8Array {
  return blake2b256(encode(channelInscribeOp, op, 128 + op.inscription.length));
}

/** Message id of a channel configuration = Blake2b256(encode(payload)), no domain tag. */
export function configMessageId(op: ChannelConfigOp): Uint8Array {
  return blake2b256(encode(channelConfigOp, op, 96 + 32 * op.keys.length));
}
