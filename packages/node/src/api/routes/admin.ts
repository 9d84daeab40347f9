/**
 * Route definitions of the administration namespace: the log filter, and (this node's own, under
 * `/x/`) the reload of the node's keys from its config and the export of a checkpoint, answered to the
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

/** Where the node writes a checkpoint: an absolute path of a file that does not exist yet. */
export const CheckpointExport = object({ path: string });

/** The checkpoint written: its file, block, slot, height, content hash and size. */
export const CheckpointWritten = object({
  path: string,
  block: string,
  slot: uint(),
  height: uint(),
  hash: string,
  bytes: uint(),
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
  adminCheckpointExport: def({
    method: 'POST',
    path: '/x/admin/checkpoint',
    tag: 'Administration',
    summary:
      'Writes the checkpoint of the LIB (its block and the ledger state after it) to a new file on this machine; only from the loopback interface (403 otherwise), 400 when the path is not absolute or the file exists',
    body: CheckpointExport,
    response: { json: CheckpointWritten },
    errors: [400, 403, 500, 503],
    loopbackOnly: true,
  }),
} as const satisfies Record<string, RouteDef>;
