/**
 * A new node's keys and configuration, as the reference's `init` makes them
 * (`nodes/node/binary/src/cli/config/{init,keystore}.rs`, operator.md §2.3): fresh Ed25519 keys
 * `BlendSigning` and `NetworkSwarm`, fresh Zk keys `BlendZk`, `LeaderFunding`, `SdpFunding`,
 * `VaucherMaster` (sic) and `Stake`, each under the hex of its public key; the `user_config.yaml` that
 * uses them (all Zk keys known to the wallet, the swarm key as `node_key`) and the `keystore.yaml`
 * that lists them by title. Used by the `init` command and the operator's blockchain module.
 */
import { bytesToHex } from '../codec/hex.ts';
import { ed25519GenerateSecretKey, ed25519PublicKey } from '../crypto/ed25519.ts';
import { frToBytes } from '../crypto/field.ts';
import { zkGenerateSecretKey, zkPublicKey } from '../crypto/zk-keys.ts';

export const ZK_KEY_TITLES = ['BlendZk', 'LeaderFunding', 'SdpFunding', 'VaucherMaster', 'Stake'] as const;
export const ED25519_KEY_TITLES = ['BlendSigning', 'NetworkSwarm'] as const;
export type KeyTitle = (typeof ZK_KEY_TITLES)[number] | (typeof ED25519_KEY_TITLES)[number];

/** One key: its id is the hex of its public key (Ed25519 bytes, or `fr_to_bytes(pk)`). */
export interface NewKey {
  readonly title: string;
  readonly kind: 'Zk' | 'Ed25519';
  readonly id: string;
  readonly secret: string;
}

/** A fresh Zk key: a field element from 32 random bytes, secret and public key little-endian hex. */
export function newZkKey(title: string): NewKey {
  const sk = zkGenerateSecretKey();
  return { title, kind: 'Zk', id: bytesToHex(frToBytes(zkPublicKey(sk))), secret: bytesToHex(frToBytes(sk)) };
}

/** A fresh Ed25519 key: a 32-byte seed and its public key. */
export function newEd25519Key(title: string): NewKey {
  const sk = ed25519GenerateSecretKey();
  return { title, kind: 'Ed25519', id: bytesToHex(ed25519PublicKey(sk)), secret: bytesToHex(sk) };
}

/** The seven keys of a new node, Zk ones first. */
export function generateNodeKeys(): NewKey[] {
  return [...ZK_KEY_TITLES.map(newZkKey), ...ED25519_KEY_TITLES.map(newEd25519Key)];
}

/** What the reference's `init` arguments set in the new configuration (all optional). */
export interface NewConfigOptions {
  /** Multiaddrs of the initial peers (with `/p2p/<PeerId>`). */
  readonly initialPeers?: readonly string[];
  /** The peer-to-peer (QUIC, UDP) port; 3000. */
  readonly netPort?: number;
  /** Where the swarm listens; 0.0.0.0. */
  readonly netHost?: string;
  /** The Blend port; 3400. */
  readonly blendPort?: number;
  /** The API's listen address; 127.0.0.1:8080. */
  readonly httpAddr?: string;
  /** The address announced to peers (`/ip4/<pub>/udp/<port>/quic-v1`), instead of NAT traversal. */
  readonly externalAddress?: string;
  /** `state.base_folder`; ./state. */
  readonly statePath?: string;
  /** `storage.backend.folder_name`; ./db. */
  readonly storagePath?: string;
  /** `tracing.logger.file.directory`. */
  readonly logsPath?: string;
  /** No IBD peers (the reference's `skip_ibd`). */
  readonly skipIbd?: boolean;
}

const q = (s: string) => JSON.stringify(s);

/** The `/p2p/<PeerId>` part of a multiaddr, or undefined. */
function peerIdOf(addr: string): string | undefined {
  const parts = addr.split('/');
  const i = parts.lastIndexOf('p2p');
  return i >= 0 && parts[i + 1] ? parts[i + 1] : undefined;
}

/** The `user_config.yaml` text of a new node with these keys (reference layout, operator.md §2.4). */
export function nodeConfigYaml(keys: readonly NewKey[], o: NewConfigOptions = {}): string {
  const byTitle = (title: string) => {
    const k = keys.find((x) => x.title === title);
    if (k === undefined) throw new Error(`no ${title} key`);
    return k;
  };
  const zk = keys.filter((k) => k.kind === 'Zk');
  const peers = o.initialPeers ?? [];
  const ibdPeers = o.skipIbd ? [] : peers.map(peerIdOf).filter((p): p is string => p !== undefined);
  const list = (xs: readonly string[], indent: string) =>
    xs.length === 0 ? ' []' : `\n${xs.map((x) => `${indent}- ${q(x)}`).join('\n')}`;
  const lines = [
    '# Logos node configuration (reference layout). Keep this file private: it holds secret keys.',
    'api:',
    '  backend:',
    `    listen_address: ${q(o.httpAddr ?? '127.0.0.1:8080')}`,
    'state:',
    `  base_folder: ${q(o.statePath ?? './state')}`,
    'storage:',
    '  backend:',
    `    folder_name: ${q(o.storagePath ?? './db')}`,
    'kms:',
    '  backend:',
    '    keys:',
    ...keys.map((k) => `      '${k.id}': !${k.kind} '${k.secret}'  # ${k.title}`),
    'wallet:',
    '  known_keys:',
    ...zk.map((k) => `    '${k.id}': '${k.id}'  # ${k.title}`),
    `  voucher_master_key_id: '${byTitle('VaucherMaster').id}'`,
    'cryptarchia:',
    '  service:',
    '    bootstrap:',
    "      prolonged_bootstrap_period: '3600.000000000'",
    '  network:',
    '    bootstrap:',
    '      ibd:',
    `        peers:${list(ibdPeers, '          ')}`,
    '  leader:',
    '    wallet:',
    `      funding_pk: '${byTitle('LeaderFunding').id}'`,
    'sdp:',
    '  wallet:',
    `    funding_pk: '${byTitle('SdpFunding').id}'`,
    'blend:',
    `  non_ephemeral_signing_key_id: '${byTitle('BlendSigning').id}'`,
    '  core:',
    '    backend:',
    `      listening_address: /ip4/0.0.0.0/udp/${o.blendPort ?? 3400}/quic-v1`,
    '    zk:',
    `      secret_key_kms_id: '${byTitle('BlendZk').id}'`,
    // As the reference's init: the peer id comes from the NetworkSwarm key.
    'network:',
    '  backend:',
    '    swarm:',
    `      host: ${o.netHost ?? '0.0.0.0'}`,
    `      port: ${o.netPort ?? 3000}`,
    `      node_key: '${byTitle('NetworkSwarm').secret}'  # NetworkSwarm`,
    // The reference's static NAT setting for an external address, which `participate` reads
    // (F: nodes/node/binary/src/config/network/serde/nat.rs, `#[serde(tag = "type")]`).
    ...(o.externalAddress !== undefined
      ? ['      nat:', '        type: static', `        external_address: ${q(o.externalAddress)}`]
      : []),
    `    initial_peers:${list(peers, '      ')}`,
    'tracing:',
    ...(o.logsPath !== undefined ? ['  logger:', '    file:', `      directory: ${q(o.logsPath)}`] : []),
    '  level: INFO',
    '',
  ];
  return lines.join('\n');
}

/**
 * The `keystore.yaml` text: `public_keys` and `secret_keys` by title and the reference's warning
 * (`keystore.rs`, operator.md §2.3).
 */
export function keystoreYaml(keys: readonly NewKey[]): string {
  return [
    'public_keys:',
    ...keys.map((k) => `  ${k.title}: '${k.id}'`),
    'secret_keys:',
    ...keys.map((k) => `  ${k.title}: !${k.kind} '${k.secret}'`),
    'WARNING: Do not share your secret keys',
    '',
  ].join('\n');
}
