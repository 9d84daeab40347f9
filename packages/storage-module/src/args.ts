/**
 * Checks of the storage module's call arguments, which arrive typed as the control tool's client typed
 * them (operator.md §1.4: `true`/`false` become bools, digits numbers, `json:` values arrays): each
 * check returns the value or throws `ArgumentError` with a message naming the argument.
 */

import type { Json } from '@logos-ts/shared/json';
import { ArgumentError } from '@logos-ts/shared/module-args';
import type { CID } from 'multiformats/cid';
import { MAX_BLOCK_BYTES } from './blockexc.ts';
import { parseCid } from './cid.ts';

/** A required string argument. */
export function textArg(v: Json | undefined, name: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new ArgumentError(`Missing or invalid argument "${name}" (a string is required).`);
}

/** A non-empty string argument. */
export function nonEmptyArg(v: Json | undefined, name: string): string {
  const t = textArg(v, name);
  if (t === '') throw new ArgumentError(`Argument "${name}" must not be empty.`);
  return t;
}

/** A bool argument (`true`/`false`, as the client types them, or their text). */
export function boolArg(v: Json | undefined, name: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new ArgumentError(`Missing or invalid argument "${name}" (true or false is required).`);
}

/** A chunk size: 1 to the largest block size; absent gives `dflt`, 0 gives `zero` when allowed. */
export function chunkSizeArg(v: Json | undefined, dflt: number, zero?: number): number {
  if (v === undefined || v === null) return dflt;
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
  if (n === 0 && zero !== undefined) return zero;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > MAX_BLOCK_BYTES)
    throw new ArgumentError(
      `Invalid argument "chunkSize" (an integer from 1 to ${MAX_BLOCK_BYTES} is required).`,
    );
  return n;
}

/** A list of strings: a JSON array (`json:[…]`), the JSON text of one, one string, or none. */
export function stringListArg(v: Json | undefined, name: string): string[] {
  if (v === undefined || v === null || v === '') return [];
  let items: Json = v;
  if (typeof v === 'string') {
    const t = v.trim();
    if (!t.startsWith('[')) return [t];
    try {
      items = JSON.parse(t) as Json;
    } catch {
      throw new ArgumentError(`Invalid argument "${name}" (a JSON array of strings is required).`);
    }
  }
  if (!Array.isArray(items) || !items.every((i) => typeof i === 'string'))
    throw new ArgumentError(`Invalid argument "${name}" (a JSON array of strings is required).`);
  return items as string[];
}

/** The refusal of a call with more arguments than the method's `count`. */
export function tooManyArguments(method: string, count: number, got: number): string {
  return `${method} takes at most ${count} argument${count === 1 ? '' : 's'}, got ${got}.`;
}

/** A storage CID argument; a bad one fails as `<context>: cannot parse cid: <text>` (libstorage's text). */
export function cidArg(v: Json | undefined, context: string): CID {
  const text = nonEmptyArg(v, 'cid');
  try {
    return parseCid(text);
  } catch {
    throw new ArgumentError(`${context}: cannot parse cid: ${text}`);
  }
}
