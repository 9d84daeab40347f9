/**
 * Why bytes received from the network are not a valid gossip message: a `WireError` with a code per
 * reason (F: `services/chain/chain-network/src/lib.rs` `Error` for the proposal's reconstruction) and
 * typed metadata (the reference's index and prefix for an unresolved one).
 */
import { LogosError } from '../../errors/base.ts';

export type WireErrorCode =
  /** The bytes are not a proposal (bad encoding, bounds, trailing bytes). */
  | 'WIRE_PROPOSAL_UNDECODABLE'
  /** The proposal is larger than the largest valid proposal (18,192 bytes). */
  | 'WIRE_PROPOSAL_TOO_LARGE'
  /** The header fails the checks that need the header alone (slot 0, leader signature). */
  | 'WIRE_PROPOSAL_INVALID_HEADER'
  /** No local transaction has the reference's prefix (F `UnresolvedReference`). */
  | 'WIRE_UNRESOLVED_REFERENCE'
  /** Two or more local transactions have the reference's prefix (F `CollidingReference`). */
  | 'WIRE_COLLIDING_REFERENCE'
  /** The resolved transactions do not make the block the header commits to (F `NoMatchingReconstruction`). */
  | 'WIRE_NO_MATCHING_RECONSTRUCTION'
  /** The bytes are not a gossiped transaction (length prefix, encoding, trailing bytes). */
  | 'WIRE_TX_UNDECODABLE'
  /** The transaction's length prefix is above the largest message the network carries. */
  | 'WIRE_TX_TOO_LARGE';

export interface WireErrorMeta {
  /** Size of the message or of its declared content, in bytes. */
  readonly size?: number | bigint;
  readonly limit?: number;
  /** Position of the reference in the proposal. */
  readonly index?: number;
  /** The reference (hex of the 16-byte tx-hash prefix). */
  readonly prefix?: string;
  readonly [key: string]: unknown;
}

export class WireError extends LogosError<WireErrorMeta> {
  declare readonly code: WireErrorCode;

  constructor(code: WireErrorCode, message: string, options: { cause?: unknown; meta?: WireErrorMeta } = {}) {
    super(code, message, { cause: options.cause, meta: options.meta ?? {} });
  }
}
LogosError.register(WireError);
