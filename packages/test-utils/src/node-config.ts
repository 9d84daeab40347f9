/** Edits of a generated node `user_config.yaml` that tests share. */
import { readFileSync, writeFileSync } from 'node:fs';
import { type Document, parseDocument } from 'yaml';

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
