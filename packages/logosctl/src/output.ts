/**
 * How the control tool prints (operator.md §1.3, §1.5, §1.6; `output.cpp` and `call_command.cpp` of
 * logos-logoscore-cli @1a4f56fe): JSON mode when stdout is not a TTY or with `--json`, human mode on a
 * TTY or with `--human`. JSON is written as nlohmann::json with std::map objects dumps it: keys sorted at
 * every depth, compact, one line and `\n`; a double with an integral value keeps its `.0`.
 * Errors: `{"code","message","status":"error"}` on stdout in JSON mode, `Error: <message>` on stderr in
 * human mode.
 */
import { type Json, JsonFloat } from '@logos-ts/shared/json';

/** Whether JSON.stringify leaves the value out (an object member) or writes null (an array item). */
const absent = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * Compact JSON with sorted keys at every depth, as the reference's nlohmann::json dump. Values JSON has no
 * form for are treated as JSON.stringify does: an `undefined` (function, symbol) member is left out, an
 * array item or the whole value becomes null.
 */
export function dumpSorted(v: Json): string {
  if (v === null || absent(v)) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : formatDouble(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof JsonFloat) return formatDouble(v.value);
  if (Array.isArray(v)) return `[${v.map(dumpSorted).join(',')}]`;
  const keys = Object.keys(v)
    .filter((k) => !absent(v[k]))
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${dumpSorted(v[k]!)}`).join(',')}}`;
}

/**
 * A double as nlohmann::json writes it (`to_chars`): the shortest round-trip digits; plain decimal
 * when the point falls within -4..15 digits (an integral value ends in `.0`), else `d.ddde+XX`;
 * `null` when not finite.
 */
export function formatDouble(d: number): string {
  if (!Number.isFinite(d)) return 'null';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const sign = d < 0 ? '-' : '';
  const [mant = '', expText = '0'] = Math.abs(d).toExponential().split('e');
  const digits = mant.replace('.', '');
  const k = digits.length;
  const n = Number(expText) + 1;
  if (k <= n && n <= 15) return `${sign}${digits}${'0'.repeat(n - k)}.0`;
  if (0 < n && n <= 15) return `${sign}${digits.slice(0, n)}.${digits.slice(n)}`;
  if (-4 < n && n <= 0) return `${sign}0.${'0'.repeat(-n)}${digits}`;
  const e = n - 1;
  const ex = `${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return `${sign}${k === 1 ? digits : `${digits[0]}.${digits.slice(1)}`}e${ex}`;
}

/** Two-space indented JSON with sorted keys (`dump(2)`). */
export function dumpPretty(v: Json): string {
  return JSON.stringify(JSON.parse(dumpSorted(v)), null, 2);
}

export class Output {
  constructor(readonly json: boolean) {}

  /** The mode: forced by `--json`/`--human`, else JSON unless stdout is a TTY. */
  static choose(opts: { json?: boolean; human?: boolean }): Output {
    if (opts.human || opts.json === false) return new Output(false);
    if (opts.json) return new Output(true);
    return new Output(!process.stdout.isTTY);
  }

  line(text: string): void {
    process.stdout.write(`${text}\n`);
  }

  /** A JSON document in JSON mode. */
  data(v: Json): void {
    this.line(dumpSorted(v));
  }

  error(code: string, message: string, extra: Record<string, Json> = {}): void {
    if (this.json) this.data({ ...extra, status: 'error', code, message });
    else process.stderr.write(`Error: ${message}\n`);
  }
}

export function formatUptime(seconds: number): string {
  if (seconds < 0) return '-';
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
}

export const formatVersion = (v: string | undefined): string => (v ? `v${v}` : '-');
