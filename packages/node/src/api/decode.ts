/**
 * Request decoding, in one place for every route: path parameters, query and body are decoded
 * through the route's definition, in the reference's order (path, query, then the body) and with its
 * plain-text rejections: 400 for a malformed path or query, 415 for a body that is not
 * `application/json`, 400 for JSON that does not parse, 422 for JSON of the wrong shape.
 */
import { type Json, parseJson } from '@logos-ts/shared/json';
import { Rejection } from './errors.ts';
import { SchemaError, SchemaRuleError } from './json-schema.ts';
import { missingQueryField } from './params.ts';
import { ID_PATH_PARAM, pathParamNames, type RouteDef } from './route-def.ts';
import type { RouteArgs } from './types.ts';

export interface RawRequest {
  /** Path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** Query parameters (of a repeated one, the first is read). */
  readonly query: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly contentType: string | undefined;
  /** The body as `parseJsonBody` parsed it, if any. */
  readonly body: unknown;
}

const JSON_CONTENT_TYPE = /^application\/json\b/i;

/** Decodes a request for `def`; throws a `Rejection` (or the `ApiError` of a query parameter). */
export function decodeRequest(def: RouteDef, raw: RawRequest): RouteArgs {
  const params: Record<string, unknown> = {};
  for (const name of pathParamNames(def.path)) {
    params[name] = (def.params?.[name] ?? ID_PATH_PARAM).parse(raw.params[name] ?? '', name);
  }
  const query: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(def.query ?? {})) {
    const v = raw.query[name];
    const value = typeof v === 'string' ? v : v?.[0];
    if (value === undefined) {
      if (p.required) throw missingQueryField(name);
      query[name] = undefined;
    } else query[name] = p.parse(value, name);
  }
  if (!def.body) return { params, query };
  if (def.optionalBody) {
    try {
      return { params, query, body: raw.body === undefined ? undefined : def.body.decode(raw.body as Json) };
    } catch (e) {
      if (!(e instanceof SchemaError)) throw e;
      return { params, query, body: undefined };
    }
  }
  if (!JSON_CONTENT_TYPE.test(raw.contentType ?? '')) throw unsupportedMediaType();
  try {
    return { params, query, body: def.body.decode(raw.body as Json) };
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    throw new Rejection(422, `Failed to deserialize the JSON body into the target type: ${bodyError(e)}`);
  }
}

export const unsupportedMediaType = () =>
  new Rejection(415, 'Expected request with `Content-Type: application/json`');

/** Parses a JSON body with u64 values kept exact (the schemas decode what `parseJson` returns). */
export function parseJsonBody(text: string): Json {
  try {
    return parseJson(text);
  } catch (e) {
    throw new Rejection(400, `Failed to parse the request body as JSON: ${(e as Error).message}`);
  }
}

/**
 * A schema error in serde's words: `missing field \`x\``, a broken rule's own text, else where and what
 * was expected.
 */
function bodyError(e: SchemaError): string {
  const where = e.path ? `${e.path}: ` : '';
  if (e instanceof SchemaRuleError) return `${where}${e.text}`;
  const missing = /^a field `([^`]+)`$/.exec(e.expected);
  return missing ? `${where}missing field \`${missing[1]}\`` : `${where}expected ${e.expected}, got ${e.got}`;
}
