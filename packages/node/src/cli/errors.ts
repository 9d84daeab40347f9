/** Errors of the node's command line (refusals before any work; printed as `error: <message>`, exit 1). */
import { LogosError } from '@logos-ts/shared/errors';

export type CliErrorCode =
  | 'CLI_FILE_EXISTS'
  | 'CLI_SELF_CHECK_FAILED'
  | 'CLI_BAD_INPUT'
  /** The files were changed, but the running node refused to read its keys again. */
  | 'CLI_RELOAD_REFUSED'
  /** No node answers at the API address a command talks to. */
  | 'CLI_NODE_UNREACHABLE'
  /** The running node refused what a command asked of it. */
  | 'CLI_NODE_REFUSED';

export class CliError extends LogosError<{ readonly path?: string }> {
  constructor(code: CliErrorCode, message: string, meta: { readonly path?: string } = {}) {
    super(code, message, { meta });
  }
}
LogosError.register(CliError);
