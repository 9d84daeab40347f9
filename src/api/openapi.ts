/** The OpenAPI document, generated from the route table (served at /api-docs/openapi.json). */
import { API_VERSION } from '../version.ts';
import type { Route } from './routes.ts';

export function openApiDocument(routes: readonly Route[]): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const r of routes) {
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^(0x)?[0-9a-fA-F]{64}$' },
    }));
    for (const q of r.query ?? []) {
      params.push({
        name: q.name,
        in: 'query',
        required: q.required,
        schema: { type: 'string', pattern: '' },
      });
    }
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = {
      operationId: r.operationId,
      tags: [r.tag],
      summary: r.summary,
      parameters: params,
      responses: {
        '200': { description: 'success', content: { 'application/json': {} } },
        '400': { description: 'malformed parameters (plain text)' },
        '404': { description: 'not found: {code, message}' },
        '500': { description: 'failure: {code, message}' },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Logos blockchain node API', version: API_VERSION },
    paths,
  };
}
