/** The OpenAPI document, generated from the route table (served at /api-docs/openapi.json). */
import { API_VERSION } from '../version.ts';
import { ID_PATH_PARAM, pathParamNames, type RouteDef, routeMutates } from './route-def.ts';

const ERROR_BODY = {
  type: 'object',
  properties: { code: { type: 'integer' }, message: { type: 'string' } },
  required: ['code', 'message'],
};

const ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'invalid parameters: {code, message}',
  404: 'not found: {code, message}',
};

/**
 * The OpenAPI document of a route table. With `auth` (the node asks for credentials), the schemes it
 * takes are declared (bearer, basic) and required of every operation (`all`) or of the state-changing
 * ones (`writes`), so that the Swagger UI offers "Authorize" and sends them.
 */
export function openApiDocument(
  routes: readonly { operationId: string; def: RouteDef }[],
  auth?: { readonly mode: 'all' | 'writes'; readonly bearer: boolean; readonly basic: boolean },
): object {
  const schemes: Record<string, object> = {};
  if (auth?.bearer) schemes.bearerAuth = { type: 'http', scheme: 'bearer' };
  if (auth?.basic) schemes.basicAuth = { type: 'http', scheme: 'basic' };
  const security = Object.keys(schemes).map((k) => ({ [k]: [] }));
  const paths: Record<string, Record<string, object>> = {};
  for (const { operationId, def } of routes) {
    const params: object[] = pathParamNames(def.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: (def.params?.[name] ?? ID_PATH_PARAM).jsonSchema,
    }));
    for (const [name, p] of Object.entries(def.query ?? {})) {
      params.push({
        name,
        in: 'query',
        required: p.required,
        description: p.description,
        schema: p.jsonSchema,
      });
    }
    const r = def.response;
    const success =
      'json' in r
        ? { 'application/json': { schema: r.json.jsonSchema } }
        : 'ndjson' in r
          ? { 'application/x-ndjson': { schema: r.ndjson.jsonSchema } }
          : { [r.bytes]: { schema: { type: 'string', format: 'binary' } } };
    const responses: Record<string, object> = {
      [String(def.status ?? 200)]: {
        description: 'ndjson' in r ? 'one JSON value per line' : 'bytes' in r ? 'the bytes' : 'success',
        content: success,
      },
    };
    for (const status of def.errors ?? []) {
      responses[String(status)] = {
        description: ERROR_TEXT[status] ?? 'failure: {code, message}',
        content: { 'application/json': { schema: ERROR_BODY } },
      };
    }
    responses['400'] ??= { description: 'malformed path or query (plain text)' };
    if (def.body) {
      responses['415'] = { description: 'body is not application/json (plain text)' };
      responses['422'] = { description: 'body does not match the schema (plain text)' };
    }
    if (def.gatedWhileBootstrapping) {
      responses['408'] = { description: 'still Bootstrapping when the API timeout ran out (empty)' };
    }
    responses['500'] = {
      description: 'failure: {code, message}',
      content: { 'application/json': { schema: ERROR_BODY } },
    };
    paths[def.path] ??= {};
    paths[def.path]![def.method.toLowerCase()] = {
      operationId,
      tags: [def.tag],
      summary: def.summary,
      parameters: params,
      ...(def.body
        ? {
            requestBody: {
              required: def.optionalBody !== true,
              content: { 'application/json': { schema: def.body.jsonSchema } },
            },
          }
        : {}),
      responses,
      ...(auth && (auth.mode === 'all' || routeMutates(def))
        ? { security, responses: { ...responses, '401': { description: 'credentials missing or wrong' } } }
        : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Logos blockchain node API',
      version: API_VERSION,
      description:
        'u64 values (format uint64) are JSON integers that may exceed 2^53: parse them exactly. ' +
        'Unknown paths answer 404 with an empty body; requests running past the API timeout answer 408.',
    },
    paths,
    ...(auth ? { components: { securitySchemes: schemes } } : {}),
  };
}
