/**
 * How the operator tooling writes files a reader must never see half-written (configs, keystores,
 * node keys, session and token files: mode 600; packages and catalogs: the mode they ask for), through
 * a synced temporary file in the same folder. A failure is a `FileWriteError` (`FILE_EXISTS`,
 * `FILE_WRITE_FAILED`).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LogosError } from './errors.ts';

/** A file that could not be written: it exists (an exclusive write), or the system refused the write. */
export class FileWriteError extends LogosError<{ readonly path: string; readonly errno?: string }> {
  declare readonly code: 'FILE_EXISTS' | 'FILE_WRITE_FAILED';

  constructor(code: 'FILE_EXISTS' | 'FILE_WRITE_FAILED', message: string, path: string, errno?: string) {
    super(code, message, { meta: errno === undefined ? { path } : { path, errno } });
  }
}
LogosError.register(FileWriteError);

/**
 * Writes `path` with mode 600 through a temporary file in the same folder: a rename replaces an
 * existing file in one step; with `exclusive`, a hard link creates it only if it does not exist. A
 * failed write (a full disk, say) leaves neither a partial file nor the temporary one. A file meant
 * for others to read (a package, a catalog) passes its `mode` (the umask applies to it).
 */
export function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  exclusive: boolean,
  mode = 0o600,
): void {
  if (path === '')
    throw new FileWriteError('FILE_WRITE_FAILED', 'No such file or directory (empty path)', path);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    try {
      const data = Buffer.from(content);
      let at = 0;
      while (at < data.length) at += writeSync(fd, data, at, data.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (exclusive) linkSync(tmp, path);
    else renameSync(tmp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw code === 'EEXIST'
      ? new FileWriteError('FILE_EXISTS', `${path} exists`, path, code)
      : new FileWriteError('FILE_WRITE_FAILED', `cannot write ${path}: ${code ?? 'error'}`, path, code);
  } finally {
    if (existsSync(tmp)) unlinkSync(tmp);
  }
}
