/**
 * The check of a file holding secret keys (a keystore, a node's configuration, a key given on the
 * command line): it must be private to its owner, no permission for the group nor for others, as
 * `writeFileAtomic` (atomic-file.ts) writes such files. A file that is not is refused with a
 * `PrivateFileError` (`FILE_NOT_PRIVATE`) whose message says how to fix it; a file that does not exist
 * is left to its reader to report. Systems without POSIX modes (Windows) are not checked.
 */
import { statSync } from 'node:fs';
import { LogosError } from './errors.ts';

/** A key file that other users may read or write. */
export class PrivateFileError extends LogosError<{ readonly path: string; readonly mode: string }> {
  declare readonly code: 'FILE_NOT_PRIVATE';

  constructor(path: string, mode: number) {
    const octal = (mode & 0o777).toString(8).padStart(3, '0');
    const what = mode & 0o044 ? 'readable' : 'writable';
    super('FILE_NOT_PRIVATE', `${path} is ${what} by other users (mode ${octal}); chmod 600 it`, {
      meta: { path, mode: octal },
    });
  }
}
LogosError.register(PrivateFileError);

/** Throws `PrivateFileError` when `path` exists and grants any permission to its group or to others. */
export function checkPrivateFile(path: string): void {
  if (process.platform === 'win32') return;
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return;
  }
  if ((mode & 0o077) !== 0) throw new PrivateFileError(path, mode);
}
