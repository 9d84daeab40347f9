/**
 * Failures of the `devnet` command: a bad option, a folder that holds another devnet (or something
 * else), a port in use, a deployment that cannot be written. Codes are `DEVNET_` + what went wrong.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type DevnetErrorCode =
  /** An option is out of range (`--nodes`, a port base). */
  | 'DEVNET_OPTION'
  /** The devnet folder holds a devnet of another size, or files that are not a devnet's. */
  | 'DEVNET_FOLDER'
  /** A port a node needs is taken; nothing was started. */
  | 'DEVNET_PORT_IN_USE'
  /** deployments/devnet.yaml could not be turned into the devnet's deployment. */
  | 'DEVNET_DEPLOYMENT';

export class DevnetError extends LogosError {
  declare readonly code: DevnetErrorCode;

  constructor(code: DevnetErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
LogosError.register(DevnetError);
