/**
 * The control tool's blockchain module in-process on a working folder, and calls that check the
 * `StdLogosResult` they answer.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { type Document, parseDocument } from 'yaml';
import type { Json } from '../../src/codec/json.ts';
import type { LogosModule, StdLogosResult } from '../../src/operator/module-api.ts';
import factory from '../../src/operator/modules/blockchain/index.ts';

/** The module with `cwd` as the daemon's working directory; its events are pushed to `events`. */
export function moduleIn(
  cwd: string,
  events: { event: string; payload: Json }[] = [],
): Promise<LogosModule> | LogosModule {
  return factory({
    cwd,
    dataDir: join(cwd, 'data'),
    logger: pino({ level: 'silent' }),
    emit: (event, payload) => void events.push({ event, payload }),
  });
}

/** A method's raw result. */
export async function call(m: LogosModule, method: string, ...args: Json[]): Promise<StdLogosResult> {
  const f = m.methods[method];
  assert.ok(f, `method ${method}`);
  return (await f(...args)) as StdLogosResult;
}

/** A call's value, after checking that it succeeded. */
export async function value(m: LogosModule, method: string, ...args: Json[]): Promise<Json> {
  const r = await call(m, method, ...args);
  assert.equal(r.error, null, `${method}: ${r.error}`);
  assert.equal(r.success, true);
  return r.value;
}

/**
 * Readies a generated `user_config.yaml` for a test node: the swarm and the Blend listener on the
 * loopback, and a funded devnet key in the key store and the wallet that also pays the SDP fee (the
 * stand-in for the guide's faucet). `edit` sets further values before the file is written back.
 */
export function useLoopbackAndFundedKey(
  path: string,
  funded: { readonly publicKey: string; readonly secretKey: string },
  blendListeningAddress: string,
  edit: (doc: Document) => void = () => {},
): void {
  const doc = parseDocument(readFileSync(path, 'utf8'), { logLevel: 'silent' });
  doc.setIn(['network', 'backend', 'swarm', 'host'], '127.0.0.1');
  doc.setIn(['blend', 'core', 'backend', 'listening_address'], blendListeningAddress);
  doc.setIn(['sdp', 'wallet', 'funding_pk'], funded.publicKey);
  edit(doc);
  writeFileSync(
    path,
    doc
      .toString()
      .replace('    keys:\n', `    keys:\n      '${funded.publicKey}': !Zk '${funded.secretKey}'\n`)
      .replace('  known_keys:\n', `  known_keys:\n    '${funded.publicKey}': '${funded.publicKey}'\n`),
    { mode: 0o600 },
  );
}
