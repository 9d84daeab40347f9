/**
 * A typed client of the node's HTTP API, made from the same route table as the server
 * (src/api/definitions.ts): one method per endpoint, typed parameters and results, u64 values as
 * bigint, NDJSON streams as async iterables.
 *
 *   const node = createClient({ baseUrl: 'http://127.0.0.1:8080' });   // auth: { bearer } if asked
 *   const { cryptarchia_info } = await node.cryptarchiaInfo();
 *   for await (const line of await node.cryptarchiaBlocksRange({ query: { order: 'ascending' } })) ...
 */

import { type Json, parseJson, stringifyJson } from '@logos-ts/shared/json';
import { API, type Api, type OperationId, type QueryParam, type RouteDef } from '../src/api/definitions.ts';
import { type Infer, type Schema, SchemaError } from '../src/api/json-schema.ts';

export type * from './types.ts';
export type { Api, OperationId };
export { API, SchemaError };

// ---- argument and result types, derived from the table

type PathParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | PathParamNames<Rest>
  : never;

type QueryIn<Q> = {
  [K in keyof Q as Q[K] extends { required: true } ? K : never]: Q[K] extends QueryParam<infer In>
    ? In
    : never;
} & {
  [K in keyof Q as Q[K] extends { required: true } ? never : K]?: Q[K] extends QueryParam<infer In>
    ? In
    : never;
};

/** No arguments. */
type Nothing = Record<never, never>;

type HasRequired<T> = Nothing extends T ? false : true;

type PathArgs<D extends RouteDef> = [PathParamNames<D['path']>] extends [never]
  ? Nothing
  : { params: { [K in PathParamNames<D['path']>]: string } };
type QueryArgs<D extends RouteDef> = D['query'] extends object
  ? HasRequired<QueryIn<D['query']>> extends true
    ? { query: QueryIn<D['query']> }
    : { query?: QueryIn<D['query']> }
  : Nothing;
type BodyArgs<D extends RouteDef> =
  D['body'] extends Schema<infer B> ? (D['optionalBody'] extends true ? { body?: B } : { body: B }) : Nothing;

/** What a method takes: path params, query, body, and an optional abort signal. */
export type Args<D extends RouteDef> = PathArgs<D> & QueryArgs<D> & BodyArgs<D> & { signal?: AbortSignal };

/** What a method resolves to: the decoded JSON body, an async iterable of decoded NDJSON lines, or bytes. */
export type Result<D extends RouteDef> = D['response'] extends { json: Schema<infer R> }
  ? R
  : D['response'] extends { ndjson: Schema<infer L> }
    ? NdjsonStream<L>
    : D['response'] extends { bytes: string }
      ? Uint8Array
      : never;

type Method<D extends RouteDef> =
  HasRequired<Args<D>> extends true
    ? (args: Args<D>) => Promise<Result<D>>
    : (args?: Args<D>) => Promise<Result<D>>;

export type LogosClient = { readonly [K in OperationId]: Method<Api[K]> };

/** A stream of lines; breaking out of `for await` (or the signal) closes the connection. */
export interface NdjsonStream<L> extends AsyncIterable<L> {
  /** Closes the connection. */
  close(): void;
}

// ---- errors

/** The node answered with a failure status. `code`/`message` are set for `{code, message}` bodies. */
export class ApiResponseError extends Error {
  override readonly name = 'ApiResponseError';
  constructor(
    readonly operationId: string,
    readonly status: number,
    /** The body as sent (plain text, JSON text, or empty). */
    readonly body: string,
    readonly code?: number,
  ) {
    super(`${operationId}: HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
  }
}

// ---- the client

/** Credentials for a node whose API asks for them (`api.backend.auth`): a bearer token, or a name and password. */
export type ClientAuth =
  | { readonly bearer: string }
  | { readonly username: string; readonly password: string };

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8080` */
  readonly baseUrl: string;
  /** Credentials, sent with every request as its `Authorization` header. */
  readonly auth?: ClientAuth;
  /** Headers sent with every request (e.g. an authorisation header for a proxy). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A fetch implementation (default: the global one). */
  readonly fetch?: typeof fetch;
}

export function createClient(options: ClientOptions): LogosClient {
  const client: Record<string, unknown> = {};
  for (const op of Object.keys(API) as OperationId[]) {
    client[op] = (args?: CallArgs) => call(options, op, API[op], args ?? {});
  }
  return client as LogosClient;
}

interface CallArgs {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  signal?: AbortSignal;
}

/** The `Authorization` header of the credentials. */
function authHeader(auth: ClientAuth | undefined): Record<string, string> {
  if (auth === undefined) return {};
  if ('bearer' in auth) return { authorization: `Bearer ${auth.bearer}` };
  const pair = new TextEncoder().encode(`${auth.username}:${auth.password}`);
  let bin = '';
  for (const b of pair) bin += String.fromCharCode(b);
  return { authorization: `Basic ${btoa(bin)}` };
}

function urlOf(base: string, def: RouteDef, args: CallArgs): string {
  const path = def.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = args.params?.[name];
    if (v === undefined) throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(v);
  });
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(args.query ?? {})) {
    if (v !== undefined) search.set(k, String(v));
  }
  const qs = search.toString();
  return `${base.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;
}

async function call(
  options: ClientOptions,
  op: OperationId,
  def: RouteDef,
  args: CallArgs,
): Promise<unknown> {
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { ...authHeader(options.auth), ...options.headers };
  let body: string | undefined;
  if (def.body && !(def.optionalBody && args.body === undefined)) {
    headers['content-type'] = 'application/json';
    body = stringifyJson(args.body as Json);
  }
  const res = await doFetch(urlOf(options.baseUrl, def, args), {
    method: def.method,
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(args.signal ? { signal: args.signal } : {}),
  });
  if (!res.ok) {
    const text = await res.text();
    let code: number | undefined;
    if (res.headers.get('content-type')?.startsWith('application/json')) {
      try {
        const j = JSON.parse(text) as { code?: unknown };
        if (typeof j.code === 'number') code = j.code;
      } catch {
        // not JSON after all: keep the text
      }
    }
    throw new ApiResponseError(op, res.status, text, code);
  }
  if ('json' in def.response) return def.response.json.decode(parseJson(await res.text()));
  if ('bytes' in def.response) return new Uint8Array(await res.arrayBuffer());
  return ndjson(res, def.response.ndjson);
}

function ndjson<L>(res: Response, line: Schema<L>): NdjsonStream<L> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const close = () => {
    reader.cancel().catch(() => {});
  };
  async function* lines(): AsyncGenerator<L> {
    let buf = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let nl = buf.indexOf('\n');
        while (nl >= 0) {
          const text = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (text.trim() !== '') yield line.decode(parseJson(text));
          nl = buf.indexOf('\n');
        }
      }
      if (buf.trim() !== '') yield line.decode(parseJson(buf));
    } finally {
      close();
    }
  }
  return { [Symbol.asyncIterator]: lines, close };
}

/** Decodes a value against one of the table's schemas (e.g. a line read some other way). */
export function decode<S extends Schema<unknown>>(schema: S, value: Json): Infer<S> {
  return schema.decode(value) as Infer<S>;
}
