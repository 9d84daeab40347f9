/**
 * The 16-byte tx-hash prefix index a block proposal names its transactions by (F: the pool's
 * `by_prefix`): hash keys (hex) grouped by their prefix. Pure.
 */
import { bytesToHex } from '../codec/hex.ts';

/** Length of the tx-hash prefix a block proposal names its transactions by. */
export const PREFIX_BYTES = 16;

export class PrefixIndex {
  private readonly byPrefix = new Map<string, Set<string>>();

  /** Indexes a transaction by its hash hex. */
  add(key: string): void {
    const prefix = key.slice(0, PREFIX_BYTES * 2);
    let set = this.byPrefix.get(prefix);
    if (set === undefined) {
      set = new Set();
      this.byPrefix.set(prefix, set);
    }
    set.add(key);
  }

  delete(key: string): void {
    const prefix = key.slice(0, PREFIX_BYTES * 2);
    const set = this.byPrefix.get(prefix);
    set?.delete(key);
    if (set?.size === 0) this.byPrefix.delete(prefix);
  }

  /** The hash keys starting with `prefix` (its bytes). */
  keys(prefix: Uint8Array): string[] {
    return [...(this.byPrefix.get(bytesToHex(prefix)) ?? [])];
  }
}
