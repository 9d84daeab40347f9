/**
 * A small schema language for the API's JSON: each schema is at once a JSON Schema (for the OpenAPI
 * document), a TypeScript type (for the typed client) and a decoder that checks a parsed response
 * and turns u64 fields into bigint (u64 values may exceed 2^53, see `@logos-ts/shared/json`).
 */
import type { Json } from '@logos-ts/shared/json';

export type JsonSchema = { [key: string]: unknown };

export interface Schema<T> {
  readonly jsonSchema: JsonSchema;
  /** Checks `value` (as `parseJson` returns it) and converts it; throws `SchemaError` with the path. */
  decode(value: Json, path?: string): T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

export class SchemaError extends Error {
  /** What the value was described as. */
  readonly got: string;

  constructor(
    readonly path: string,
    readonly expected: string,
    value: unknown,
  ) {
    const got = describe(value);
    super(`${path || 'response'}: expected ${expected}, got ${got}`);
    this.got = got;
  }
}

/**
 * A value of the expected type that breaks a rule of its type (serde's `Error::custom` while
 * deserialising, e.g. a bounded vector's length); `text` is the rule's message.
 */
export class SchemaRuleError extends SchemaError {
  constructor(
    path: string,
    readonly text: string,
    value: unknown,
  ) {
    super(path, text, value);
    this.message = `${path || 'response'}: ${text}`;
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return typeof v === 'object' ? 'an object' : String(v);
}

const isObject = (v: Json): v is { [k: string]: Json } =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function schema<T>(jsonSchema: JsonSchema, decode: (v: Json, path: string) => T): Schema<T> {
  return { jsonSchema, decode: (v, path = '') => decode(v, path) };
}

const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** An unsigned 64-bit integer: bigint in the client, exact on the wire. */
export const u64: Schema<bigint> = schema({ type: 'integer', format: 'uint64', minimum: 0 }, (v, path) => {
  const b = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : undefined;
  if (b === undefined || b < 0n || b > U64_MAX) throw new SchemaError(path, 'a u64', v);
  return b;
});

/** A small unsigned integer (u8..u32, heights, counts): a plain number. */
export function uint(format: 'uint8' | 'uint16' | 'uint32' = 'uint32'): Schema<number> {
  return schema({ type: 'integer', format, minimum: 0 }, (v, path) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw new SchemaError(path, `a ${format}`, v);
    return v;
  });
}

export const string: Schema<string> = schema({ type: 'string' }, (v, path) => {
  if (typeof v !== 'string') throw new SchemaError(path, 'a string', v);
  return v;
});

export const boolean: Schema<boolean> = schema({ type: 'boolean' }, (v, path) => {
  if (typeof v !== 'boolean') throw new SchemaError(path, 'a boolean', v);
  return v;
});

export const nullValue: Schema<null> = schema({ type: 'null' }, (v, path) => {
  if (v !== null) throw new SchemaError(path, 'null', v);
  return null;
});

/** Lower-case hex of exactly `bytes` bytes, no 0x (ids, keys, hashes). */
export function hex(bytes: number, description?: string): Schema<string> {
  const re = new RegExp(`^[0-9a-f]{${bytes * 2}}$`);
  return schema(
    { type: 'string', pattern: re.source, ...(description ? { description } : {}) },
    (v, path) => {
      if (typeof v !== 'string' || !re.test(v)) throw new SchemaError(path, `${bytes} bytes of hex`, v);
      return v;
    },
  );
}

export function literal<const T extends readonly string[]>(...values: T): Schema<T[number]> {
  return schema({ type: 'string', enum: values }, (v, path) => {
    if (typeof v !== 'string' || !values.includes(v))
      throw new SchemaError(path, `one of ${values.join(', ')}`, v);
    return v as T[number];
  });
}

export function array<T>(items: Schema<T>): Schema<T[]> {
  return schema({ type: 'array', items: items.jsonSchema }, (v, path) => {
    if (!Array.isArray(v)) throw new SchemaError(path, 'an array', v);
    return v.map((x, i) => items.decode(x, `${path}[${i}]`));
  });
}

/**
 * An array of at most `max` items (F `UpperBoundedVec<T, MAX>`, `utils/src/bounded`): the items are
 * decoded first, then the length is checked, with F's `BoundedError::TooManyItems` text.
 */
export function boundedArray<T>(items: Schema<T>, max: number): Schema<T[]> {
  const inner = array(items);
  return schema({ ...inner.jsonSchema, maxItems: max }, (v, path) => {
    const out = inner.decode(v, path);
    if (out.length > max)
      throw new SchemaRuleError(path, `Item count ${out.length} exceeds static maximum of ${max}`, v);
    return out;
  });
}

/** A two-element array (a serialised Rust tuple), e.g. `["12D3KooW…", true]`. */
export function pair<A, B>(first: Schema<A>, second: Schema<B>): Schema<[A, B]> {
  return schema(
    { type: 'array', items: { anyOf: [first.jsonSchema, second.jsonSchema] }, minItems: 2, maxItems: 2 },
    (v, path) => {
      if (!Array.isArray(v) || v.length !== 2) throw new SchemaError(path, 'a two-element array', v);
      return [first.decode(v[0]!, `${path}[0]`), second.decode(v[1]!, `${path}[1]`)];
    },
  );
}

export function nullable<T>(inner: Schema<T>): Schema<T | null> {
  return schema({ anyOf: [inner.jsonSchema, { type: 'null' }] }, (v, path) =>
    v === null ? null : inner.decode(v, path),
  );
}

/** An object with exactly these fields, in this order (extra fields are kept out of the result). */
export function object<P extends Record<string, Schema<unknown>>>(
  props: P,
  description?: string,
): Schema<{ [K in keyof P]: Infer<P[K]> }> {
  const keys = Object.keys(props);
  return schema(
    {
      type: 'object',
      properties: Object.fromEntries(keys.map((k) => [k, props[k]!.jsonSchema])),
      required: keys,
      ...(description ? { description } : {}),
    },
    (v, path) => {
      if (!isObject(v)) throw new SchemaError(path, 'an object', v);
      const out: Record<string, unknown> = {};
      for (const k of keys) {
        if (!Object.hasOwn(v, k)) throw new SchemaError(path, `a field \`${k}\``, v);
        out[k] = props[k]!.decode(v[k]!, path ? `${path}.${k}` : k);
      }
      return out as { [K in keyof P]: Infer<P[K]> };
    },
  );
}

/** A map from string keys (ids) to values of one schema. */
export function record<T>(values: Schema<T>, description?: string): Schema<Record<string, T>> {
  return schema(
    { type: 'object', additionalProperties: values.jsonSchema, ...(description ? { description } : {}) },
    (v, path) => {
      if (!isObject(v)) throw new SchemaError(path, 'an object', v);
      const out: Record<string, T> = {};
      for (const [k, x] of Object.entries(v)) out[k] = values.decode(x, `${path}[${JSON.stringify(k)}]`);
      return out;
    },
  );
}

/**
 * Any JSON value, left as parsed (integers beyond 2^53 as bigint). For deep, many-shaped chain data
 * (operations, proofs, events) whose layout the description names.
 */
export function anyJson(description: string): Schema<Json> {
  return schema({ description }, (v) => v);
}
