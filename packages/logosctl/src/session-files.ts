/**
 * Small file and hash helpers of the control tool's session (operator.md §1.2: credentials mode 600, tokens
 * kept as SHA-256 hashes at rest).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Whether `token` hashes to `hash` (constant time). */
export function tokenMatches(token: string, hash: string): boolean {
  const a = Buffer.from(sha256Hex(token), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Writes a file readable by its owner only (mode 600), atomically through a temporary file. */
export function writePrivate(path: string, text: string): void {
  writeFileAtomic(path, text, false);
}
