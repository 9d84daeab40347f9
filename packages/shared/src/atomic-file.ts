/**
 * How the operator tooling writes files a reader must never see half-written (configs, keystores,
 * node keys, session and token files): mode 600, through a synced temporary file in the same folder.
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

/**
 * Writes `path` with mode 600 through a temporary file in the same folder: a rename replaces an
 * existing file in one step; with `exclusive`, a hard link creates it only if it does not exist. A
 * failed write (a full disk, say) leaves neither a partial file nor the temporary one.
 */
export function writeFileAtomic(path: string, content: string, exclusive: boolean): void {
  if (path === '') throw new Error('No such file or directory (empty path)');
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
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
    throw new Error(code === 'EEXIST' ? `${path} exists` : `cannot write ${path}: ${code ?? 'error'}`);
  } finally {
    if (existsSync(tmp)) unlinkSync(tmp);
  }
}
