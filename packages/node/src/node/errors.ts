/** Errors of the node's own operations: its key reload, its start from a checkpoint. */
import { LogosError } from '@logos-ts/shared/errors';

export type NodeErrorCode =
  | 'NODE_NO_CONFIG_FILE'
  /** A checkpoint that cannot be read, fetched or verified. */
  | 'NODE_CHECKPOINT';

export class NodeError extends LogosError {
  declare readonly code: NodeErrorCode;

  constructor(code: NodeErrorCode, message: string) {
    super(code, message);
  }
}
LogosError.register(NodeError);
