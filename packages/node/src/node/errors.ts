/** Errors of the node's own operations on a running node (its key reload). */
import { LogosError } from '@logos-ts/shared/errors';

export type NodeErrorCode = 'NODE_NO_CONFIG_FILE';

export class NodeError extends LogosError {
  declare readonly code: NodeErrorCode;

  constructor(code: NodeErrorCode, message: string) {
    super(code, message);
  }
}
LogosError.register(NodeError);
