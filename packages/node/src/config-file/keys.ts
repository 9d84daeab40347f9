/**
 * The blockchain module's key calls on a node's files (operator.md §2.2), also the node's `keys` and
 * `config peer-id` commands: `get_peer_id(cfg)` (the libp2p Ed25519 peer id `12D3Koo…` of
 * `network.backend.swarm.node_key`), and `generate_key`, `add_key`, `remove_key`, which keep
 * `keystore.yaml` (keys by title, §2.3) and the config's `kms.backend.keys` (keys by id = hex of the
 * public key) in step; `readKeystore` and `listKeys` read a keystore (the list without secrets).
 * Files are rewritten with mode 600 through a temporary file, their comments and layout kept (the
 * keystore first, put back when the config cannot be written); errors never quote a file (it holds
 * secret keys). The node's own `keys` command also keeps `wallet.known_keys` in step for ZK keys and
 * checks the config it writes (`KeyFileOptions`); the module's calls do neither.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import type { Json } from '@logos-ts/shared/json';
import { ArgumentError, text } from '@logos-ts/shared/module-args';
import { type Document, isMap, isScalar, parseDocument, Scalar, YAMLMap } from 'yaml';
import { bytesToHex, hexToBytesOrUndefined } from '../codec/hex.ts';
import { ed25519PublicKey } from '../crypto/ed25519.ts';
import { FR_MODULUS, frToBytes, leBytesToBigint } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import { keyTags, parseUserConfig } from '../node/config.ts';
import { readConfigFile } from '../node/load.ts';
import { type NewKey, newEd25519Key, newZkKey } from '../node/new-config.ts';
import { ConfigFileError } from './errors.ts';

export const INVALID_KEY_TYPE = 'Invalid key_type (expected "ed25519" or "zk").';

/** The peer id of a config's swarm key. */
export async function peerIdOfConfig(configPath: string): Promise<string> {
  const c = readConfigFile(configPath);
  const seed = c.network.backend.swarm.node_key;
  if (seed === null) throw new ArgumentError(`${configPath}: network.backend.swarm.node_key is not set`);
  return peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', seed)).toString();
}

function keyType(v: Json | undefined): 'Zk' | 'Ed25519' {
  const t = text(v);
  if (t === 'zk') return 'Zk';
  if (t === 'ed25519') return 'Ed25519';
  throw new ArgumentError(INVALID_KEY_TYPE);
}

function title(v: Json | undefined): string {
  // inferred: the title's characters and the texts of a bad one (docs/design/fidelity.md)
  const t = text(v).trim();
  if (t === '' || !/^[A-Za-z0-9_.-]+$/.test(t))
    throw new ArgumentError('Invalid title (letters, digits, "_", "-" or "." required).');
  return t;
}

// inferred: the text of a file that cannot be read (the reference shows Rust's io error) (docs/design/fidelity.md)
export function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigFileError(
      'CONFIG_FILE_UNREADABLE',
      `cannot read the ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}

/** A keystore's keys by title, in file order; each id is computed from its secret, as the reference does. */
export function readKeystore(path: string): NewKey[] {
  const doc = parseDocument(readText(path, 'keystore'), { customTags: keyTags, logLevel: 'silent' });
  if (doc.errors.length > 0)
    throw new ConfigFileError('CONFIG_FILE_INVALID', `the keystore ${path} is not valid YAML`);
  const secrets = doc.get('secret_keys', true);
  if (!isMap(secrets))
    throw new ConfigFileError('CONFIG_FILE_INVALID', `${path}: secret_keys: expected a mapping`);
  const keys: NewKey[] = [];
  for (const pair of (secrets as YAMLMap).items) {
    const title = isScalar(pair.key) ? String(pair.key.value) : '';
    const v = isScalar(pair.value) ? (pair.value.value as { __key?: string; secret?: unknown }) : undefined;
    if (v?.__key !== 'Zk' && v?.__key !== 'Ed25519')
      throw new ConfigFileError(
        'CONFIG_FILE_INVALID',
        `${path}: secret_keys.${title}: expected !Zk <hex> or !Ed25519 <hex>`,
      );
    try {
      keys.push(keyFromSecret(v.__key, title, String(v.secret)));
    } catch (e) {
      throw new ConfigFileError(
        'CONFIG_FILE_INVALID',
        `${path}: secret_keys.${title}: ${(e as Error).message}`,
      );
    }
  }
  return keys;
}

/** A key of a keystore as `key list` shows it: never its secret. */
export interface PublicKeyEntry {
  readonly title: string;
  readonly kind: 'Zk' | 'Ed25519';
  readonly id: string;
}

/** The keys of a keystore (title, kind, id), in file order; the secrets are read to check the ids, never returned. */
export function listKeys(keystorePath: string): PublicKeyEntry[] {
  return readKeystore(keystorePath).map(({ title: t, kind, id }) => ({ title: t, kind, id }));
}

/** A key from its secret's hex: the Zk public key (`fr_to_bytes`) or the Ed25519 one. */
export function keyFromSecret(kind: 'Zk' | 'Ed25519', name: string, secretHex: string): NewKey {
  const bytes = /^[0-9a-fA-F]{64}$/.test(secretHex) ? hexToBytesOrUndefined(secretHex) : undefined;
  if (bytes === undefined) throw new ArgumentError('Invalid key_hex (64 hex characters required).');
  if (kind === 'Ed25519')
    return { title: name, kind, id: bytesToHex(ed25519PublicKey(bytes)), secret: bytesToHex(bytes) };
  const sk = leBytesToBigint(bytes);
  if (sk >= FR_MODULUS) throw new ArgumentError('Invalid key_hex (not a field element).');
  return { title: name, kind, id: bytesToHex(frToBytes(zkPublicKey(sk))), secret: bytesToHex(bytes) };
}

export function load(path: string, what: string): Document {
  let textIn: string;
  try {
    textIn = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ArgumentError(
      `Cannot read the ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  const doc = parseDocument(textIn, { logLevel: 'silent' });
  if (doc.errors.length > 0) throw new ArgumentError(`The ${what} ${path} is not valid YAML.`);
  return doc;
}

function save(path: string, doc: Document): void {
  writeFileAtomic(path, doc.toString(), false);
}

/**
 * Writes the keystore, then the config; when the config cannot be written, the keystore's previous
 * text is put back, so that the two files never disagree.
 */
function saveBoth(
  keystorePath: string,
  ks: Document,
  before: string,
  configPath: string,
  cfg: Document,
): void {
  save(keystorePath, ks);
  try {
    save(configPath, cfg);
  } catch (e) {
    writeFileAtomic(keystorePath, before, false);
    throw e;
  }
}

/** How the node's `keys` command edits the files, beyond what the module's calls do. */
export interface KeyFileOptions {
  /** A ZK key is also added to (and removed from) `wallet.known_keys`, under its id: the wallet tracks it. */
  readonly trackZk?: boolean;
  /** The config is parsed as the node parses it before anything is written; a config it would refuse is not. */
  readonly checkConfig?: boolean;
}

function checkConfig(configPath: string, cfg: Document, opts: KeyFileOptions): void {
  if (opts.checkConfig === true) parseUserConfig(cfg.toString(), configPath);
}

export const quoted = (s: string) => {
  const n = new Scalar(s);
  n.type = 'QUOTE_SINGLE';
  return n;
};
export const tagged = (k: Pick<NewKey, 'kind' | 'secret'>) => {
  const n = quoted(k.secret);
  n.tag = `!${k.kind}`;
  return n;
};

/** The mapping at `path`, created when absent. */
export function mapAt(doc: Document, path: string[]): YAMLMap {
  const m = doc.getIn(path, true);
  if (isMap(m)) return m as YAMLMap;
  if (m !== undefined && m !== null) throw new ArgumentError(`${path.join('.')} is not a mapping.`);
  const created = new YAMLMap();
  doc.setIn(path, created);
  return created;
}

/** Adds a key under `title` to the keystore and the config's key store; returns its id. */
export function addKeyToFiles(
  configPath: string,
  keystorePath: string,
  key: NewKey,
  opts: KeyFileOptions = {},
): string {
  const ks = load(keystorePath, 'keystore');
  const before = ks.toString();
  const cfg = load(configPath, 'user configuration file');
  const pub = mapAt(ks, ['public_keys']);
  if (pub.has(key.title)) throw new ArgumentError(`A key titled ${key.title} exists in the keystore.`);
  pub.set(key.title, quoted(key.id));
  mapAt(ks, ['secret_keys']).set(key.title, tagged(key));
  const kms = mapAt(cfg, ['kms', 'backend', 'keys']);
  if (!kms.has(key.id)) kms.set(quoted(key.id), tagged(key));
  if (opts.trackZk === true && key.kind === 'Zk') {
    const known = mapAt(cfg, ['wallet', 'known_keys']);
    if (!known.has(key.id)) known.set(quoted(key.id), quoted(key.id));
  }
  checkConfig(configPath, cfg, opts);
  saveBoth(keystorePath, ks, before, configPath, cfg);
  return key.id;
}

/**
 * Removes the key titled `title` from the keystore and the config's key store (and, with `trackZk`,
 * from `wallet.known_keys`); returns its id.
 */
export function removeKeyFromFiles(
  configPath: string,
  keystorePath: string,
  name: string,
  opts: KeyFileOptions = {},
): string {
  const ks = load(keystorePath, 'keystore');
  const before = ks.toString();
  const cfg = load(configPath, 'user configuration file');
  const id = ks.getIn(['public_keys', name]);
  if (typeof id !== 'string') throw new ArgumentError(`No key titled ${name} in the keystore.`);
  ks.deleteIn(['public_keys', name]);
  ks.deleteIn(['secret_keys', name]);
  cfg.deleteIn(['kms', 'backend', 'keys', id]);
  if (opts.trackZk === true && isMap(cfg.getIn(['wallet', 'known_keys'])))
    cfg.deleteIn(['wallet', 'known_keys', id]);
  checkConfig(configPath, cfg, opts);
  saveBoth(keystorePath, ks, before, configPath, cfg);
  return id;
}

/** `generate_key(cfg, keystore, type, title)`. */
export function generateKey(
  cwd: string,
  cfg: Json,
  keystore: Json,
  type: Json,
  name: Json,
  opts: KeyFileOptions = {},
): string {
  const kind = keyType(type);
  const t = title(name);
  const key = kind === 'Zk' ? newZkKey(t) : newEd25519Key(t);
  return addKeyToFiles(resolve(cwd, text(cfg)), resolve(cwd, text(keystore)), key, opts);
}

/** `add_key(cfg, keystore, type, key_hex, title)`. */
export function addKey(
  cwd: string,
  cfg: Json,
  keystore: Json,
  type: Json,
  keyHex: Json,
  name: Json,
  opts: KeyFileOptions = {},
): string {
  const key = keyFromSecret(keyType(type), title(name), text(keyHex));
  return addKeyToFiles(resolve(cwd, text(cfg)), resolve(cwd, text(keystore)), key, opts);
}

/** `remove_key(cfg, keystore, title)`; returns the id of the removed key. */
export function removeKey(
  cwd: string,
  cfg: Json,
  keystore: Json,
  name: Json,
  opts: KeyFileOptions = {},
): string {
  return removeKeyFromFiles(resolve(cwd, text(cfg)), resolve(cwd, text(keystore)), title(name), opts);
}
