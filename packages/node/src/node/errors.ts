/** Errors of the node's own operations: its key reload, its start from a checkpoint. */
import { LogosError } from '@logos-ts/shared/errors';

export type NodeErrorCode =
  | 'NODE_NO_CONFIG_FILE'
  /** A checkpoint that cannot be read, fetched, verified or written. */
  | 'NODE_CHECKPOINT'
  /** The chain has no checkpoint to give now (its LIB's state is not held). */
  | 'NODE_CHECKPOINT_UNAVAILABLE';

export class NodeError extends LogosError {
  declare readonly code: NodeErrorCode;

  constructor(code: NodeErrorCode, message: string) {
    super(code, message);
  }
}
LogosError.register(NodeError);
