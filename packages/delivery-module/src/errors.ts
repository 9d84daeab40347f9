/**
 * The delivery module's failures, as `LogosError`s (codes `DELIVERY_` + what went wrong). Their messages
 * are the texts the module reports (liblogosdelivery's wording where the reference has one,
 * operator.md §4); a bad call argument is the shared `ArgumentError`, a bad configuration the shared
 * `ConfigError`.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type DeliveryErrorCode =
  /** An address that cannot be used where it is given (a dial target, an ENR's multiaddrs). */
  | 'DELIVERY_BAD_ADDRESS'
  /** A length-prefixed answer with a bad or oversized prefix, or a stream closed before the answer. */
  | 'DELIVERY_BAD_FRAME'
  /** A relayed WakuMessage that is too large or malformed. */
  | 'DELIVERY_BAD_MESSAGE'
  /** A peer's metadata answer without the fields it must carry. */
  | 'DELIVERY_BAD_METADATA'
  /** A node key that is not a secp256k1 secret. */
  | 'DELIVERY_NODE_KEY'
  /** A request to a peer that did not answer in time. */
  | 'DELIVERY_TIMEOUT'
  /** A store query that is malformed, or that the store peer failed or did not answer in time. */
  | 'DELIVERY_STORE_QUERY';

export class DeliveryError extends LogosError {
  declare readonly code: DeliveryErrorCode;

  constructor(code: DeliveryErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
LogosError.register(DeliveryError);

/** A store query refused or failed; its message is what `storeQuery` reports. */
export class StoreQueryError extends DeliveryError {
  constructor(message: string) {
    super('DELIVERY_STORE_QUERY', message);
  }
}
LogosError.register(StoreQueryError);
