/**
 * What a route definition is: method, path, parameters, body and response schemas, and the helpers
 * the namespace files (routes/*.ts) write their definitions with. Each parameter carries its JSON
 * Schema (for the OpenAPI document), its client input type and its server-side parser, so the server
 * decodes every request from the definition alone (decode.ts).
 */

import { ApiError } from './errors.ts';
import { type JsonSchema, type Schema, u64 } from './json-schema.ts';
import { id32, parseU64 } from './params.ts';

/** A query parameter; `In` is what a client passes, `Out` what a handler receives. */
export interface QueryParam<In, Required extends boolean = boolean, Out = unknown> {
  readonly required: Required;
  readonly description: string;
  readonly jsonSchema: JsonSchema;
  /** Parses the raw value; throws a `Rejection` (plain text) or an `ApiError` (`{code, message}`). */
  readonly parse: (raw: string, name: string) => Out;
  /** Phantom: the client's input type. */
  readonly _in?: In;
}

/** A path parameter (`{name}` in the path); every path parameter is a 32-byte id unless a route says otherwise. */
export interface PathParam<Out> {
  readonly jsonSchema: JsonSchema;
  readonly parse: (raw: string, name: string) => Out;
}

/** A 32-byte id as a path or query parameter (lower or upper case hex, 0x allowed). */
export const ID_PARAM_PATTERN = '^(0x)?[0-9a-fA-F]{64}$';

export const ID_PATH_PARAM: PathParam<Uint8Array> = {
  jsonSchema: { type: 'string', pattern: ID_PARAM_PATTERN },
  parse: id32,
};

export interface RouteDef {
  readonly method: 'GET' | 'POST' | 'PUT';
  /** OpenAPI-style path, e.g. `/cryptarchia/blocks/{id}`. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  /** Path parameters that are not 32-byte ids (by name). */
  readonly params?: Readonly<Record<string, PathParam<unknown>>>;
  readonly query?: Readonly<Record<string, QueryParam<unknown>>>;
  readonly body?: Schema<unknown>;
  /**
   * The body may be left out, and a body that is not valid JSON or does not fit the schema counts as
   * none (whatever its content type): the handler then receives `undefined`.
   */
  readonly optionalBody?: boolean;
  /** A JSON body, an NDJSON stream of lines of this schema, or bytes of this media type. */
  readonly response:
    | { readonly json: Schema<unknown> }
    | { readonly ndjson: Schema<unknown> }
    | { readonly bytes: string };
  /** Status of a success (200 unless given). */
  readonly status?: number;
  /** Handled failures (`{code, message}` JSON) the endpoint can answer. */
  readonly errors?: readonly number[];
  /** Waits while consensus is Bootstrapping (408 after the API timeout). */
  readonly gatedWhileBootstrapping?: boolean;
  /**
   * Changes the node's state (default: every method but GET and HEAD). A browser may call such a
   * route only from an origin listed in `cors_origins` (see guard.ts).
   */
  readonly mutates?: boolean;
  /** Answered only to a client on the loopback interface (this host); others get 403. */
  readonly loopbackOnly?: boolean;
}

/** The names of the `{name}` parameters of a path, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/** Whether a route changes the node's state: its `mutates`, else derived from its method. */
export function routeMutates(def: Pick<RouteDef, 'method' | 'mutates'>): boolean {
  return def.mutates ?? (def.method !== 'GET' && (def.method as string) !== 'HEAD');
}

/** Checks a definition against `RouteDef` while keeping its literal type. */
export const def = <const D extends RouteDef>(d: D): D => d;

const param =
  <In, Out>(jsonSchema: JsonSchema, parse: (raw: string, name: string) => Out) =>
  <const R extends boolean = false>(description: string, required?: R): QueryParam<In, R, Out> => ({
    required: (required ?? false) as R,
    description,
    jsonSchema,
    parse,
  });

/** Query parameter kinds. */
export const q = {
  u64: param<bigint | number, bigint>(u64.jsonSchema, parseU64),
  id: param<string, Uint8Array>(ID_PATH_PARAM.jsonSchema, id32),
  /** One of `values`; another value is a handled failure (`{code, message}` 400, as `blocks_range` answers). */
  oneOf: <const T extends readonly string[]>(values: T, description: string) =>
    param<T[number], T[number]>({ type: 'string', enum: values }, (raw, name) => {
      if (!(values as readonly string[]).includes(raw)) throw new ApiError(400, `invalid ${name} ${raw}`);
      return raw as T[number];
    })(description),
};
