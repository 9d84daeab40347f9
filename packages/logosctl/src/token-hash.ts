/** The hashes of client tokens (operator.md §1.2: tokens are kept as SHA-256 hashes at rest). */
import { createHash, timingSafeEqual } from 'node:crypto';

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Whether `token` hashes to `hash` (constant time). */
export function tokenMatches(token: string, hash: string): boolean {
  const a = Buffer.from(sha256Hex(token), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
