/**
 * The refusal of a module call's bad argument (`ArgumentError`, every module's), and the checks of the
 * blockchain module's arguments, which arrive typed as the control tool's client typed them
 * (operator.md §1.4: digits become numbers, `json:` values arrays or objects): each check either
 * returns the value in the form the node wants or throws `ArgumentError` with the reference module's
 * message (operator.md §2.2).
 */
import { LogosError } from './errors.ts';
import type { Json } from './json.ts';

/** A bad argument of a module call; its message is the module's error text. */
export class ArgumentError extends LogosError {
  declare readonly code: 'MODULE_ARGUMENT';

  constructor(message: string) {
    super('MODULE_ARGUMENT', message);
  }
}
LogosError.register(ArgumentError);

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** 32 bytes as 64 hex characters (lower case), else `message`. */
export function hex64(v: Json | undefined, message: string): string {
  if (typeof v !== 'string' || !HEX64.test(v)) throw new ArgumentError(message);
  return v.toLowerCase();
}

/** A text argument: a string, or a number or bool the client typed from the same text. */
export function text(v: Json | undefined): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  throw new ArgumentError('Expected a string argument.');
}

/** An optional block id: `""` for none, else 64 hex characters. */
export function optionalTip(v: Json | undefined): string | undefined {
  const t = text(v);
  return t === '' ? undefined : hex64(t, 'Invalid tip (64 hex characters required).');
}

/** A positive u64 given as a decimal string (or a number the client typed from one). */
export function positiveAmount(v: Json | undefined, what = 'amount'): bigint {
  const t = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : text(v).trim();
  if (!/^\d+$/.test(t) || BigInt(t) === 0n || BigInt(t) >= 2n ** 64n)
    throw new ArgumentError(`Invalid ${what} (a positive integer string is required).`);
  return BigInt(t);
}

/** A slot: a non-negative integer (number or decimal string). */
export function slot(v: Json | undefined, name: string): bigint {
  const t = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : text(v).trim();
  if (!/^\d+$/.test(t) || BigInt(t) >= 2n ** 64n)
    throw new ArgumentError(`Invalid ${name} (a non-negative integer is required).`);
  return BigInt(t);
}

/**
 * A list of 64-hex keys: a JSON array (`json:[...]`), the JSON text of one (`@file`), or one key, or
 * several separated by commas.
 */
export function keyList(v: Json | undefined, message: string): string[] {
  let items: Json[];
  if (Array.isArray(v)) items = v;
  else {
    const t = text(v).trim();
    if (t.startsWith('[')) {
      try {
        const parsed = JSON.parse(t) as Json;
        if (!Array.isArray(parsed)) throw new ArgumentError(message);
        items = parsed;
      } catch {
        throw new ArgumentError(message);
      }
    } else items = t === '' ? [] : t.split(',').map((s) => s.trim());
  }
  if (items.length === 0) throw new ArgumentError(message);
  return items.map((i) => hex64(i, message));
}
