/**
 * The blockchain module's config calls (operator.md §2.2), as the reference module passes them to the
 * node's C bindings and these to the node's CLI commands (F: `c-bindings/src/api/config.rs`,
 * `nodes/node/binary/src/cli/{config/update.rs, config/migrate.rs, config/migrate_0_1_2/, participate.rs}`
 * at 9316763ae6fc4c2e16ef1ae668c195593dfab106):
 *
 * - `update_user_config(cfg, keystore)` (`update-config --yes`): puts the keystore's keys into an
 *   existing config: the swarm key, the Blend, leader and SDP key ids, the KMS keys and the wallet's
 *   known keys; every other value is kept.
 * - `migrate_user_config(out, keystore)` (`migrate-config`): a new config with default values for the
 *   keys of an existing keystore; never over an existing config.
 * - `migrate_user_config_0_1_2(new, old, keystore)` (`migrate-from-0.1.2`): a keystore made from the
 *   keys a 0.1.2 config holds (a fresh key for each it lacks), then a new config for it; never over an
 *   existing config or keystore.
 * - `participate(cfg, keystore, out_dir, external_ip)` (`participate`): `<out_dir>/participation_data.yaml`
 *   with the node's stakeholder identities and, when the config has a Blend signing key, its Blend
 *   declaration (provider id, zk id, locator, service type, declaration id).
 *
 * Each answers null on success, else the bindings' message ("Error updating config: …"). Files are
 * written with mode 600 through a temporary file and a rename, so none is ever half-written, and a
 * refused call changes nothing. Paths resolve against the module host's working directory; a
 * `file://` or `file:` prefix is dropped, as the reference module does. Errors never quote a file's
 * text (it holds secret keys).
 */

import { existsSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import type { Json } from '@logos-ts/shared/json';
import { ArgumentError, text } from '@logos-ts/shared/module-args';
import { multiaddr } from '@multiformats/multiaddr';
import { type Document, isMap, isScalar, parseDocument, stringify, YAMLMap } from 'yaml';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { ed25519PublicKey } from '../crypto/ed25519.ts';
import { leBytesToBigint } from '../crypto/field.ts';
import { locatorFromString } from '../mantle/locator.ts';
import { declarationId } from '../mantle/sdp.ts';
import { keyTags, parseUserConfig } from '../node/config.ts';
import { generateNodeKeys, keystoreYaml, type NewKey, nodeConfigYaml } from '../node/new-config.ts';
import { ConfigFileError } from './errors.ts';
import { keyFromSecret, mapAt, quoted, readKeystore, readText, tagged } from './keys.ts';
import { writePrivate } from './user-config.ts';

// F: cli/config/update.rs UpdateError, cli/config/migrate.rs and migrate_0_1_2/mod.rs MigrateError
export const UPDATE_NO_USER_CONFIG = 'User configuration file does not exist. Use `init` command.';
export const NO_KEYSTORE = 'Keystore file does not exist. Use `init` command.';
export const MIGRATE_USER_CONFIG_EXISTS = 'User configuration exists. Use `update` command.';
export const MIGRATE_KEYSTORE_EXISTS = 'Keystore file already exists. Cannot overwrite during migration.';
export const MIGRATE_NO_OLD_CONFIG = 'Old configuration file does not exist at the specified path.';

const configExists = () => new ConfigFileError('CONFIG_FILE_EXISTS', MIGRATE_USER_CONFIG_EXISTS);
const keystoreExists = () => new ConfigFileError('CONFIG_FILE_EXISTS', MIGRATE_KEYSTORE_EXISTS);

/** The file a `participate` call writes in its output folder. */
export const PARTICIPATION_FILE = 'participation_data.yaml';

/** The keystore titles of the reference (F: cli/config/keystore.rs `KeyTitle`). */
const T = {
  blendSigning: 'BlendSigning',
  blendZk: 'BlendZk',
  leaderFunding: 'LeaderFunding',
  networkSwarm: 'NetworkSwarm',
  sdpFunding: 'SdpFunding',
  voucherMaster: 'VaucherMaster',
  stake: 'Stake',
} as const;

/**
 * An error of a call, with the bindings' prefix of that call (`format!("Error updating config: {error:?}")`).
 * inferred: the eyre report's `Location:` lines (a Rust source position) are left out (docs/design/fidelity.md).
 */
function prefixed<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    const code = e instanceof ConfigFileError ? e.code : 'CONFIG_FILE_INVALID';
    throw new ConfigFileError(code, `${prefix}${(e as Error).message}`);
  }
}

/** A path argument as the reference module reads it (`localPathFromFileUrl`), resolved against `cwd`. */
export function localPath(cwd: string, v: Json | undefined): string {
  let p = text(v);
  if (p.startsWith('file://')) p = p.slice(7);
  else if (p.startsWith('file:')) p = p.slice(5);
  // An empty path names no file (Rust's `Path::new("").exists()` is false).
  return p === '' ? '' : resolve(cwd, p);
}

const exists = (p: string) => p !== '' && existsSync(p);

/** Checks that a config text is one the node starts from; the error names the key, never the text. */
function checkConfig(yaml: string, path: string): void {
  parseUserConfig(yaml, path);
}

/** F: keystore.rs `KeystoreError` texts (`{0:?}` of a `KeyTitle`). */
function keyOf(keys: readonly NewKey[], title: string, kind?: 'Zk' | 'Ed25519'): NewKey {
  const k = keys.find((x) => x.title === title);
  const debugTitle = `KeyTitle(${JSON.stringify(title)})`;
  if (k === undefined)
    throw new ConfigFileError(
      'CONFIG_FILE_KEY_MISSING',
      `Key for title '${debugTitle}' not found in keystore`,
    );
  if (kind !== undefined && k.kind !== kind)
    throw new ConfigFileError('CONFIG_FILE_KEY_MISSING', `${kind} key expected for '${debugTitle}'`);
  return k;
}

/**
 * The keys a config is built from (F: update.rs and init.rs `build_*_config`, which `expect` them).
 * inferred: the reference panics when one is missing; here the call fails with the keystore's
 * "not found" text (docs/design/fidelity.md).
 */
function requiredKeys(keys: readonly NewKey[]): void {
  keyOf(keys, T.networkSwarm, 'Ed25519');
  keyOf(keys, T.blendSigning);
  keyOf(keys, T.blendZk);
  keyOf(keys, T.leaderFunding, 'Zk');
  keyOf(keys, T.sdpFunding, 'Zk');
  keyOf(keys, T.voucherMaster);
}

// ---- update_user_config ----

/**
 * The config rewritten with the keystore's keys (F: update.rs `update_user_config` with default args).
 * inferred: the document is edited in place, its other values, comments and layout kept; the reference
 * writes the whole parsed config back, every default spelled out (docs/design/fidelity.md).
 */
function updatedConfig(doc: Document, keys: readonly NewKey[]): void {
  /** Sets a value, keeping the comment of the one it replaces. */
  const set = (path: string[], value: string) => {
    const before = doc.getIn(path, true);
    const node = quoted(value);
    if (isScalar(before) && before.comment) node.comment = before.comment;
    doc.setIn(path, node);
  };
  set(['network', 'backend', 'swarm', 'node_key'], keyOf(keys, T.networkSwarm).secret);
  set(['blend', 'non_ephemeral_signing_key_id'], keyOf(keys, T.blendSigning).id);
  set(['blend', 'core', 'zk', 'secret_key_kms_id'], keyOf(keys, T.blendZk).id);
  set(['cryptarchia', 'leader', 'wallet', 'funding_pk'], keyOf(keys, T.leaderFunding).id);
  set(['sdp', 'wallet', 'funding_pk'], keyOf(keys, T.sdpFunding).id);
  // The KMS keys and the wallet's known keys are replaced whole by the keystore's.
  const kms = new YAMLMap();
  for (const k of keys) {
    const v = tagged(k);
    v.comment = ` ${k.title}`;
    kms.set(quoted(k.id), v);
  }
  mapAt(doc, ['kms', 'backend']).set('keys', kms);
  set(['wallet', 'voucher_master_key_id'], keyOf(keys, T.voucherMaster).id);
  const known = new YAMLMap();
  for (const k of keys.filter((x) => x.kind === 'Zk')) {
    const v = quoted(k.id);
    v.comment = ` ${k.title}`;
    known.set(quoted(k.id), v);
  }
  mapAt(doc, ['wallet']).set('known_keys', known);
}

/** `update_user_config(cfg, keystore)`. */
export function updateUserConfig(cwd: string, cfg: Json, keystore: Json): void {
  const cfgPath = localPath(cwd, cfg);
  const ksPath = localPath(cwd, keystore);
  prefixed('Error updating config: ', () => {
    if (!exists(cfgPath)) throw new ConfigFileError('CONFIG_FILE_MISSING', UPDATE_NO_USER_CONFIG);
    if (!exists(ksPath)) throw new ConfigFileError('CONFIG_FILE_MISSING', NO_KEYSTORE);
    const before = readText(cfgPath, 'user configuration file');
    checkConfig(before, cfgPath);
    const keys = readKeystore(ksPath);
    requiredKeys(keys);
    // The text checked above is edited (a file that parses as a config is valid YAML).
    const doc = parseDocument(before, { logLevel: 'silent' });
    updatedConfig(doc, keys);
    const after = doc.toString();
    checkConfig(after, cfgPath);
    writeFileAtomic(cfgPath, after, false);
  });
}

// ---- migrate_user_config ----

/** `migrate_user_config(out, keystore)`. */
export function migrateUserConfig(cwd: string, out: Json, keystore: Json): void {
  const outPath = localPath(cwd, out);
  const ksPath = localPath(cwd, keystore);
  prefixed('Error migrating config: ', () => {
    if (exists(outPath)) throw configExists();
    if (!exists(ksPath)) throw new ConfigFileError('CONFIG_FILE_MISSING', NO_KEYSTORE);
    // inferred: an empty output path is refused here; the reference fails writing it (docs/design/fidelity.md)
    if (outPath === '') throw new ConfigFileError('CONFIG_FILE_INVALID', 'the output path is empty');
    const keys = readKeystore(ksPath);
    requiredKeys(keys);
    const config = nodeConfigYaml(keys);
    checkConfig(config, outPath);
    writePrivate(outPath, config, configExists);
  });
}

// ---- migrate_user_config_0_1_2 ----

/**
 * A string at `path` of a 0.1.2 config.
 * inferred: serde's "missing field" text, with the path of the mapping instead of a line (docs/design/fidelity.md).
 */
function oldField(doc: Document, path: string[]): string {
  const node = doc.getIn(path, true);
  if (node === undefined || node === null)
    throw new ConfigFileError(
      'CONFIG_FILE_INVALID',
      `${path.slice(0, -1).join('.') || 'config'}: missing field \`${path.at(-1)}\``,
    );
  if (!isScalar(node) || node.value === null || typeof node.value === 'object')
    throw new ConfigFileError('CONFIG_FILE_INVALID', `${path.join('.')}: expected a string`);
  return (node.source ?? String(node.value)).toString();
}

/**
 * The keystore of a 0.1.2 config (F: migrate_0_1_2/config.rs `OldConfig::into_keystore`): fresh keys,
 * then the swarm key from `node_key` and each key the config names (Blend signing and zk, leader and
 * SDP funding, voucher master) taken from its KMS keys; a key named twice is taken once.
 */
export function keystoreOf012(doc: Document): NewKey[] {
  const nodeKey = oldField(doc, ['network', 'backend', 'swarm', 'node_key']);
  const named: [string, string][] = [
    [T.blendSigning, oldField(doc, ['blend', 'non_ephemeral_signing_key_id'])],
    [T.blendZk, oldField(doc, ['blend', 'core', 'zk', 'secret_key_kms_id'])],
    [T.leaderFunding, oldField(doc, ['cryptarchia', 'leader', 'wallet', 'funding_pk'])],
    [T.sdpFunding, oldField(doc, ['sdp', 'wallet', 'funding_pk'])],
    [T.voucherMaster, oldField(doc, ['wallet', 'voucher_master_key_id'])],
  ];
  const kmsNode = doc.getIn(['kms', 'backend', 'keys'], true);
  if (!isMap(kmsNode)) throw new ConfigFileError('CONFIG_FILE_INVALID', 'kms.backend: missing field `keys`');
  const oldKms = new Map<string, { kind: 'Zk' | 'Ed25519'; secret: string }>();
  for (const pair of (kmsNode as YAMLMap).items) {
    const id = isScalar(pair.key) ? String(pair.key.source ?? pair.key.value) : '';
    const v = isScalar(pair.value) ? (pair.value.value as { __key?: string; secret?: unknown }) : undefined;
    if (v?.__key !== 'Zk' && v?.__key !== 'Ed25519')
      throw new ConfigFileError(
        'CONFIG_FILE_INVALID',
        `kms.backend.keys.${id}: expected !Zk <hex> or !Ed25519 <hex>`,
      );
    oldKms.set(id, { kind: v.__key, secret: String(v.secret) });
  }
  // F: config/mod.rs parse_hex_ed25519_key
  if (!/^([0-9a-fA-F]{2})*$/.test(nodeKey))
    throw new ConfigFileError(
      'CONFIG_FILE_INVALID',
      'network.backend.swarm.node_key: Failed to parse hex string: Invalid string length',
    );
  if (nodeKey.length !== 64)
    throw new ConfigFileError(
      'CONFIG_FILE_INVALID',
      'network.backend.swarm.node_key: Failed to deserialize ed25519 key from bytes: invalid length',
    );
  const keys = new Map(generateNodeKeys().map((k) => [k.title, k] as const));
  keys.set(T.networkSwarm, keyFromSecret('Ed25519', T.networkSwarm, nodeKey.toLowerCase()));
  for (const [title, id] of named) {
    const old = oldKms.get(id);
    if (old === undefined) continue;
    oldKms.delete(id);
    try {
      keys.set(title, keyFromSecret(old.kind, title, old.secret.toLowerCase()));
    } catch (e) {
      throw new ConfigFileError('CONFIG_FILE_INVALID', `kms.backend.keys.${id}: ${(e as Error).message}`);
    }
  }
  return [...keys.values()];
}

/** `migrate_user_config_0_1_2(new, old, keystore)`. */
export function migrateUserConfig012(cwd: string, next: Json, old: Json, keystore: Json): void {
  const newPath = localPath(cwd, next);
  const oldPath = localPath(cwd, old);
  const ksPath = localPath(cwd, keystore);
  prefixed('Error migrating config: ', () => {
    if (exists(newPath)) throw configExists();
    if (!exists(oldPath)) throw new ConfigFileError('CONFIG_FILE_MISSING', MIGRATE_NO_OLD_CONFIG);
    if (exists(ksPath)) throw keystoreExists();
    // inferred: empty output paths are refused here; the reference fails writing them (docs/design/fidelity.md)
    if (newPath === '' || ksPath === '')
      throw new ConfigFileError('CONFIG_FILE_INVALID', 'the output path is empty');
    if (newPath === ksPath)
      throw new ConfigFileError(
        'CONFIG_FILE_INVALID',
        'the new config and the keystore must be different files',
      );
    const doc = parseDocument(readText(oldPath, 'old configuration file'), {
      customTags: keyTags,
      logLevel: 'silent',
    });
    if (doc.errors.length > 0)
      throw new ConfigFileError(
        'CONFIG_FILE_INVALID',
        `the old configuration file ${oldPath} is not valid YAML`,
      );
    const keys = keystoreOf012(doc);
    requiredKeys(keys);
    const config = nodeConfigYaml(keys);
    checkConfig(config, newPath);
    // As the reference: the keystore first, then the config; a failed config takes the keystore back.
    writePrivate(ksPath, keystoreYaml(keys), keystoreExists);
    try {
      writePrivate(newPath, config, configExists);
    } catch (e) {
      unlinkSync(ksPath);
      throw e;
    }
  });
}

// ---- participate ----

/** The parsed `external_ip` argument: `""` for none (F: c-bindings config.rs `participate`). */
function externalIp(v: Json | undefined): string | undefined {
  const t = text(v);
  if (t === '') return undefined;
  // Rust's `Ipv4Addr` parser: four decimal octets, no leading zeros, nothing else.
  const octets = t.split('.');
  const ok = octets.length === 4 && octets.every((o) => /^(0|[1-9]\d{0,2})$/.test(o) && Number(o) <= 255);
  if (!ok) throw new ArgumentError(`Invalid external address '${t}': invalid IPv4 address syntax`);
  return t;
}

/** A multiaddr's text with its first (host) component replaced. */
function replaceHost(addr: string, host: string): string {
  const rest = multiaddr(addr)
    .getComponents()
    .slice(1)
    .map((c) => `/${c.name}${c.value !== undefined ? `/${c.value}` : ''}`)
    .join('');
  return `${host}${rest}`;
}

/** The first component of a multiaddr as text (`/ip4/1.2.3.4`), or undefined. */
function hostOf(addr: string): string | undefined {
  const c = multiaddr(addr).getComponents()[0];
  return c === undefined ? undefined : `/${c.name}${c.value !== undefined ? `/${c.value}` : ''}`;
}

/**
 * The Blend locator (F: participate.rs `resolve_locator_addr`): the listening address, its unspecified
 * host (0.0.0.0 or ::) replaced by the external IPv4 address, else by the host of a static NAT address.
 */
function resolveLocator(listen: string, natDoc: unknown, external: string | undefined): string {
  const first = multiaddr(listen).getComponents()[0];
  const unspecified =
    first !== undefined &&
    ((first.name === 'ip4' && first.value === '0.0.0.0') ||
      (first.name === 'ip6' && first.value !== undefined && /^[0:.]*$/.test(first.value)));
  if (!unspecified) return listen;
  if (external !== undefined) return replaceHost(listen, `/ip4/${external}`);
  const nat = natDoc as { type?: unknown; external_address?: unknown } | undefined;
  if (nat?.type === 'static' && typeof nat.external_address === 'string') {
    const host = hostOf(nat.external_address);
    if (host !== undefined) return replaceHost(listen, host);
  }
  throw new ConfigFileError(
    'CONFIG_FILE_INVALID',
    `Blend listening address is ${listen} (unspecified host). Set a static external address in the ` +
      "network NAT config or provide --external-address with the node's public IPv4 address.",
  );
}

/**
 * The content of `participation_data.yaml` (F: participate.rs `ParticipationData`).
 * inferred: keys and ids as lower-case hex and the locator as multiaddr text, the human-readable forms
 * of the reference's serde (docs/design/fidelity.md).
 */
export function participationData(configPath: string, keystorePath: string, external?: string): string {
  const cfgText = readText(configPath, 'config file');
  const config = parseUserConfig(cfgText, configPath);
  const keys = readKeystore(keystorePath);
  const stakeholders = [T.stake, T.leaderFunding, T.sdpFunding].map((t) => keyOf(keys, t, 'Zk').id);
  // The provider id is the public key of the config's Blend signing key; without one, no Blend data.
  const signingId = config.blend.non_ephemeral_signing_key_id;
  const signing = signingId === null ? undefined : config.kms.backend.keys[signingId];
  let blend: Record<string, Json> | undefined;
  if (signing !== undefined && signing.kind === 'Ed25519') {
    const providerId = ed25519PublicKey(hexToBytes(signing.secret));
    const raw = parseDocument(cfgText, { customTags: keyTags, logLevel: 'silent' }).toJS() as {
      network?: { backend?: { swarm?: { nat?: unknown } } };
    };
    const locatorText = resolveLocator(
      config.blend.core.listening_address,
      raw?.network?.backend?.swarm?.nat,
      external,
    );
    const locator = locatorFromString(locatorText);
    const zk = keyOf(keys, T.blendZk, 'Zk');
    const id = declarationId({
      provider_id: providerId,
      zk_id: leBytesToBigint(hexToBytes(zk.id)),
      locators: [locator],
    });
    stakeholders.push(zk.id);
    blend = {
      provider_id: bytesToHex(providerId),
      zk_id: zk.id,
      locators: [locatorText],
      service_type: 'BN',
      declaration_id: bytesToHex(id),
    };
  }
  return stringify({ stakeholder_identities: stakeholders, ...(blend !== undefined ? { blend } : {}) });
}

/** `participate(cfg, keystore, out_dir, external_ip)`; `out_dir` is created when absent. */
export function participate(cwd: string, cfg: Json, keystore: Json, outDir: Json, external: Json): void {
  const ip = externalIp(external);
  const cfgPath = localPath(cwd, cfg);
  const ksPath = localPath(cwd, keystore);
  // An empty output folder is the working directory (Rust's `Path::new("").join(...)`).
  const out = localPath(cwd, outDir) || cwd;
  prefixed('Error generating participation data: ', () => {
    if (!exists(cfgPath))
      throw new ConfigFileError(
        'CONFIG_FILE_MISSING',
        `cannot read the config file ${cfgPath || '""'}: ENOENT`,
      );
    if (!exists(ksPath))
      throw new ConfigFileError('CONFIG_FILE_MISSING', `cannot read the keystore ${ksPath || '""'}: ENOENT`);
    const data = participationData(cfgPath, ksPath, ip);
    // The reference overwrites an earlier participation_data.yaml.
    writeFileAtomic(join(out, PARTICIPATION_FILE), data, false);
  });
}
