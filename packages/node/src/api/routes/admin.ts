/** Route definitions of the administration namespace: the log filter. */

import { nullValue, object, record, type Schema, SchemaError, string } from '../json-schema.ts';
import { def, type RouteDef } from '../route-def.ts';

/** Log levels as the reference accepts them: names in any case, or 1 (error) to 5 (trace). */
const LEVELS: Readonly<Record<string, string>> = {
  error: 'error',
  warn: 'warn',
  info: 'info',
  debug: 'debug',
  trace: 'trace',
  '1': 'error',
  '2': 'warn',
  '3': 'info',
  '4': 'debug',
  '5': 'trace',
};

/** A log level, decoded to its lower-case name (documented as a string, as the reference does). */
const logLevel: Schema<string> = {
  jsonSchema: string.jsonSchema,
  decode(v, path = '') {
    const level =
      typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint'
        ? LEVELS[String(v).toLowerCase()]
        : undefined;
    if (level === undefined)
      throw new SchemaError(path, 'a log level (error, warn, info, debug, trace or 1..5)', v);
    return level;
  },
};

export const TracingFilter = object({
  filters: record(
    logLevel,
    'target (module) → level: error, warn, info, debug, trace or 1..5; `*` is the default',
  ),
});

export const adminRoutes = {
  adminTracingFilter: def({
    method: 'PUT',
    path: '/admin/tracing/filter',
    tag: 'Administration',
    summary: 'Replaces the log filter while running',
    body: TracingFilter,
    response: { json: nullValue },
  }),
} as const satisfies Record<string, RouteDef>;
