/**
 * The blockchain module's failures, as `LogosError`s (codes `BLOCKCHAIN_MODULE_` + what went wrong);
 * a bad call argument is the shared `ArgumentError`. A failed node call carries the node's message, as
 * the reference module passes the node's error text on (operator.md §2.2).
 */
import { LogosError } from '@logos-ts/shared/errors';

export type BlockchainModuleErrorCode =
  /** The node answered a call with a status other than 2xx. */
  | 'BLOCKCHAIN_MODULE_NODE_CALL'
  /** The node answered in a shape the module does not read. */
  | 'BLOCKCHAIN_MODULE_UNEXPECTED_ANSWER';

export class BlockchainModuleError extends LogosError {
  declare readonly code: BlockchainModuleErrorCode;

  constructor(
    code: BlockchainModuleErrorCode,
    message: string,
    options?: { meta?: Readonly<Record<string, unknown>> },
  ) {
    super(code, message, options);
  }
}
LogosError.register(BlockchainModuleError);

/** A failed call: the node's message, and the HTTP status it answered. */
export class NodeCallError extends BlockchainModuleError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super('BLOCKCHAIN_MODULE_NODE_CALL', message, { meta: { status } });
  }
}
LogosError.register(NodeCallError);
