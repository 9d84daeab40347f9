/**
 * `logosctl call` argument typing, done by the client (operator.md §1.4; `call_command.cpp` of
 * logos-logoscore-cli @1a4f56fe). The first matching rule wins:
 * - `json:<text>` / `json:@<file>`: parsed JSON;
 * - `str:<text>`: the literal text;
 * - `@<file>`: the file's raw contents (relative to the client's cwd), then typed by the rules below;
 * - `true` / `false`: booleans;
 * - a whole number after trimming: an integer, signed 64-bit or else unsigned 64-bit, kept exact
 *   (the pinned source uses `stoll`/`stoull`; the 32-bit `stoi` of earlier releases rounded larger values);
 * - a decimal after trimming (what `strtod` reads whole, hex and `inf`/`nan` included): a double;
 * - anything else, `""` included: the string as given.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Json, JsonFloat, parseJson } from '@logos-ts/shared/json';
import { InvalidArgs } from './errors.ts';

export { InvalidArgs };

const INT = /^[+-]?\d+$/;
const DEC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX = /^[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?$/;
const SPECIAL = /^[+-]?(?:inf|infinity|nan(?:\([0-9A-Za-z_]*\))?)$/i;
const I64_MIN = -(2n ** 63n);
const U64_MAX = 2n ** 64n - 1n;

function readArgFile(path: string, cwd: string): string {
  try {
    return readFileSync(resolve(cwd, path), 'utf8');
  } catch {
    throw new InvalidArgs(`Failed to read file: ${path}`);
  }
}

/** Types one argument as the reference client does; `cwd` is where `@file` paths resolve. */
export function typeArg(arg: string, cwd: string): Json {
  if (arg.startsWith('json:')) {
    const body = arg.slice(5);
    const text = body.startsWith('@') ? readArgFile(body.slice(1), cwd) : body;
    try {
      return parseJson(text);
    } catch (e) {
      throw new InvalidArgs(`Invalid JSON in argument '${arg}': ${(e as Error).message}`);
    }
  }
  if (arg.startsWith('str:')) return arg.slice(4);
  const resolved = arg.startsWith('@') ? readArgFile(arg.slice(1), cwd) : arg;
  if (resolved === 'true') return true;
  if (resolved === 'false') return false;
  const num = resolved.trim();
  if (INT.test(num)) {
    const n = BigInt(num);
    if (n >= I64_MIN && n <= U64_MAX) return Number.isSafeInteger(Number(n)) ? Number(n) : n;
    return new JsonFloat(Number(num));
  }
  if (DEC.test(num)) return new JsonFloat(Number(num));
  if (HEX.test(num)) return new JsonFloat(parseHexFloat(num));
  if (SPECIAL.test(num)) {
    const neg = num.startsWith('-');
    return new JsonFloat(/nan/i.test(num) ? Number.NaN : neg ? -Infinity : Infinity);
  }
  return resolved;
}

export function typeArgs(args: readonly string[], cwd: string): Json[] {
  return args.map((a) => typeArg(a, cwd));
}

/** `strtod`'s hexadecimal form: `0x1.8p3` = 12. */
function parseHexFloat(s: string): number {
  const neg = s.startsWith('-');
  const body = s.replace(/^[+-]?0[xX]/, '');
  const [mant = '', exp] = body.split(/[pP]/);
  const [int = '', frac = ''] = mant.split('.');
  let v = int === '' ? 0 : Number.parseInt(int, 16);
  for (let i = 0; i < frac.length; i++) v += Number.parseInt(frac[i]!, 16) / 16 ** (i + 1);
  v *= 2 ** (exp === undefined ? 0 : Number(exp));
  return neg ? -v : v;
}
