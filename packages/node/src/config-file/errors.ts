/**
 * Errors of the node's config-file rules (operator.md §2.2-§2.3): a file that is missing, unreadable,
 * already there or not what it must be. Messages follow the reference's texts; they never quote a
 * file's content (it holds secret keys).
 */
import { LogosError } from '@logos-ts/shared/errors';

export type ConfigFileErrorCode =
  | 'CONFIG_FILE_MISSING'
  | 'CONFIG_FILE_UNREADABLE'
  | 'CONFIG_FILE_EXISTS'
  | 'CONFIG_FILE_INVALID'
  | 'CONFIG_FILE_KEY_MISSING';

export class ConfigFileError extends LogosError {
  declare readonly code: ConfigFileErrorCode;

  constructor(code: ConfigFileErrorCode, message: string) {
    super(code, message);
  }
}
LogosError.register(ConfigFileError);
