/**
 * JSON for chain data. u64 values (amounts, slots, thresholds) may exceed 2^53, where `JSON.parse`
 * silently rounds. `parseJson` returns such integers as bigint; `stringifyJson` writes bigints as
 * bare digits. Output is compact, keys in insertion order, as serde_json writes it.
 *
 * A number written with a fraction or an exponent (`1.0`, `1e2`) parses to a `JsonFloat`, never to
 * an integer: serde_json reads such a literal as a float, which no integer field accepts.
 */

/** A number literal written with a fraction or exponent. */
export class JsonFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

export type Json = null | boolean | number | bigint | string | JsonFloat | Json[] | { [key: string]: Json };

/** A JSON object (not null, an array or a float). */
export function isJsonObject(j: Json | undefined): j is { [key: string]: Json } {
  return j !== null && typeof j === 'object' && !Array.isArray(j) && !(j instanceof JsonFloat);
}

/** Integer literals of this many digits or more may not be safe doubles (2^53 has 16 digits). */
const LONG_DIGIT_RUN = /\d{16}/;
/**
 * A number token with a fraction or exponent where a value starts (the text's start, after `:`, `,`
 * or `[`): the text may hold a float literal. Hex digits inside strings (`"…1e…"`) do not match.
 */
const MAYBE_FLOAT = /(?:^|[:,[])\s*-?\d+[.eE]/;

export class JsonSyntaxError extends SyntaxError {
  readonly position: number;
  constructor(message: string, position: number) {
    super(`${message} at position ${position}`);
    this.position = position;
  }
}

/** Parses JSON text. Integers outside the safe range become bigint; all other numbers are doubles. */
export function parseJson(text: string): Json {
  if (!LONG_DIGIT_RUN.test(text) && !MAYBE_FLOAT.test(text)) {
    try {
      return JSON.parse(text) as Json;
    } catch (e) {
      // Re-parse with our parser for a uniform error type and position.
      new Parser(text).parseDocument();
      throw e;
    }
  }
  return new Parser(text).parseDocument();
}

class Parser {
  private pos = 0;
  constructor(private readonly s: string) {}

  parseDocument(): Json {
    this.ws();
    const v = this.value(0);
    this.ws();
    if (this.pos !== this.s.length) this.fail('unexpected trailing characters');
    return v;
  }

  private fail(msg: string): never {
    throw new JsonSyntaxError(msg, this.pos);
  }

  private ws(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  private value(depth: number): Json {
    if (depth > 512) this.fail('nesting too deep');
    const c = this.s[this.pos];
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
        return this.fail(c === undefined ? 'unexpected end of input' : `unexpected character '${c}'`);
    }
  }

  private literal<T extends Json>(word: string, v: T): T {
    if (this.s.startsWith(word, this.pos)) {
      this.pos += word.length;
      return v;
    }
    return this.fail('invalid literal');
  }

  private object(depth: number): { [key: string]: Json } {
    const out: { [key: string]: Json } = {};
    this.pos++;
    this.ws();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      if (this.s[this.pos] !== '"') this.fail('expected a string key');
      const key = this.string();
      this.ws();
      if (this.s[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      this.ws();
      const v = this.value(depth + 1);
      if (key === '__proto__') {
        Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      } else {
        out[key] = v;
      }
      this.ws();
      const c = this.s[this.pos];
      if (c === ',') {
        this.pos++;
        this.ws();
      } else if (c === '}') {
        this.pos++;
        return out;
      } else this.fail("expected ',' or '}'");
    }
  }

  private array(depth: number): Json[] {
    const out: Json[] = [];
    this.pos++;
    this.ws();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.pos];
      if (c === ',') {
        this.pos++;
        this.ws();
      } else if (c === ']') {
        this.pos++;
        return out;
      } else this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    const s = this.s;
    const start = ++this.pos;
    // Fast scan for the common case: no escapes.
    for (;;) {
      const c = s.charCodeAt(this.pos);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 0x22) {
        const out = s.slice(start, this.pos);
        this.pos++;
        return out;
      }
      if (c === 0x5c) break;
      if (c < 0x20) this.fail('control character in string');
      this.pos++;
    }
    // Slow path with escapes: delegate the exact decoding to JSON.parse on the isolated literal.
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c === 0x5c) this.pos += 2;
      else if (c === 0x22) break;
      else if (c < 0x20) this.fail('control character in string');
      else this.pos++;
    }
    if (this.pos >= s.length) this.fail('unterminated string');
    const literal = s.slice(start - 1, this.pos + 1);
    try {
      const out = JSON.parse(literal) as string;
      this.pos++;
      return out;
    } catch {
      return this.fail('invalid escape in string');
    }
  }

  private number(): number | bigint | JsonFloat {
    const s = this.s;
    const start = this.pos;
    if (s[this.pos] === '-') this.pos++;
    if (s[this.pos] === '0') this.pos++;
    else if (s[this.pos]! >= '1' && s[this.pos]! <= '9') while (isDigit(s[this.pos])) this.pos++;
    else this.fail('invalid number');
    let integer = true;
    if (s[this.pos] === '.') {
      integer = false;
      this.pos++;
      if (!isDigit(s[this.pos])) this.fail('invalid number');
      while (isDigit(s[this.pos])) this.pos++;
    }
    if (s[this.pos] === 'e' || s[this.pos] === 'E') {
      integer = false;
      this.pos++;
      if (s[this.pos] === '+' || s[this.pos] === '-') this.pos++;
      if (!isDigit(s[this.pos])) this.fail('invalid number');
      while (isDigit(s[this.pos])) this.pos++;
    }
    const text = s.slice(start, this.pos);
    if (integer) {
      const n = Number(text);
      if (Number.isSafeInteger(n)) return n;
      return BigInt(text);
    }
    return new JsonFloat(Number(text));
  }
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Compact JSON text. bigint is written as an integer literal. Like JSON.stringify, object members
 * whose value is undefined are skipped and undefined array items become null.
 */
export function stringifyJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(v: unknown, out: string[]): void {
  switch (typeof v) {
    case 'string':
      out.push(JSON.stringify(v));
      return;
    case 'number':
      out.push(Number.isFinite(v) ? String(v) : 'null');
      return;
    case 'bigint':
      out.push(v.toString());
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'undefined':
    case 'function':
    case 'symbol':
      out.push('null');
      return;
    default:
      break;
  }
  if (v === null) {
    out.push('null');
    return;
  }
  if (v instanceof JsonFloat) {
    write(v.value, out);
    return;
  }
  if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(',');
      write(v[i], out);
    }
    out.push(']');
    return;
  }
  if (v instanceof Uint8Array)
    throw new TypeError('stringifyJson: convert byte arrays to their JSON form first');
  out.push('{');
  let first = true;
  for (const key of Object.keys(v as object)) {
    const item = (v as Record<string, unknown>)[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    write(item, out);
  }
  out.push('}');
}
