/**
 * Route definitions of the administration namespace: the log filter, and (this node's own, under
 * `/x/`) the reload of the node's keys from its config and the checkpoint of the LIB, answered to the
 * loopback interface only.
 */

import { array, nullValue, object, record, type Schema, SchemaError, string, uint } from '../json-schema.ts';
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

/** What a key reload changed: key ids of the key store, ZK public keys (hex) of the wallet, the leader's key count. */
export const KeysReloaded = object(
  {
    kms: object({ added: array(string), removed: array(string), changed: array(string) }),
    wallet: object({ added: array(string), removed: array(string) }),
    leader_keys: uint(),
  },
  'kms: key ids the key store gained, lost, or holds with another key; wallet: the ZK public keys it tracks from the next block on, or no longer; leader_keys: how many keys the leader plays with',
);

export const adminRoutes = {
  adminTracingFilter: def({
    method: 'PUT',
    path: '/admin/tracing/filter',
    tag: 'Administration',
    summary: 'Replaces the log filter while running',
    body: TracingFilter,
    response: { json: nullValue },
  }),
  adminKeysReload: def({
    method: 'POST',
    path: '/x/admin/keys/reload',
    tag: 'Administration',
    summary:
      "Reads the node's keys from its config again (kms.backend.keys, wallet.known_keys) and applies them without a restart; only from the loopback interface (403 otherwise), 400 and nothing changed when the config or a key is refused",
    response: { json: KeysReloaded },
    errors: [400, 403, 500],
    loopbackOnly: true,
  }),
  // inferred: this node's own route (docs/design/fidelity.md "Checkpoints")
  adminCheckpoint: def({
    method: 'GET',
    path: '/x/admin/checkpoint',
    tag: 'Administration',
    summary:
      'The checkpoint of the LIB (its block and the ledger state after it, docs/running/checkpoints.md) as bytes; only from the loopback interface (403 otherwise), 503 while the node holds no state of its LIB',
    response: { bytes: 'application/octet-stream' },
    errors: [403, 503],
    loopbackOnly: true,
  }),
} as const satisfies Record<string, RouteDef>;
