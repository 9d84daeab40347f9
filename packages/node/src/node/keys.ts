/**
 * The node's key files, beyond the reference (which reads its keys once and checks no file mode).
 *
 * At start (`checkKeyFiles`): a config that holds secret keys (`kms.backend.keys`, the swarm's
 * `node_key`) and the keystore.yaml beside it must be private to their owner (mode 600), else the
 * node refuses to start, saying which file and how to fix it.
 *
 * While running (`reloadKeys`, through `POST /x/admin/keys/reload`): the config the node was started
 * from is checked the same way and read again, whole, and every key is checked before anything
 * changes; then the key store takes the keys of `kms.backend.keys` (signing with them at once), the
 * wallet tracks the keys of `wallet.known_keys` (a new key's notes from the next block on), and the
 * leader plays with the key store's ZK keys the wallet knows from the next slot on. The rest of the
 * config (the voucher master key, the Blend, SDP and PoW settings, every other section) applies at
 * the next start. What changed is logged and answered by key id, never with a secret.
 * inferred: this node's own (docs/design/fidelity.md "Key commands and live key reload")
 */
import { dirname, join } from 'node:path';
import { checkPrivateFile } from '@logos-ts/shared/private-file';
import type { Logger } from 'pino';
import { bytesToHex } from '../codec/hex.ts';
import { frToBytes } from '../crypto/field.ts';
import { type KeyChanges, KeyStore, type KeyStoreDeps } from '../kms/index.ts';
import type { LeaderService } from '../leader/index.ts';
import { leaderKeys, Wallet } from '../wallet/index.ts';
import type { UserConfig } from './config.ts';
import { NodeError } from './errors.ts';
import { readConfigFile } from './load.ts';

/** The keystore's name beside a config (`config generate`, `keys`). */
export const KEYSTORE_FILE = 'keystore.yaml';

/** Whether a config holds secret keys. */
const holdsSecrets = (c: UserConfig): boolean =>
  Object.keys(c.kms.backend.keys).length > 0 || c.network.backend.swarm.node_key !== null;

/**
 * Throws a `PrivateFileError` when the config (if it holds secret keys) or the keystore.yaml beside
 * it (if there is one) grants any permission to other users.
 */
export function checkKeyFiles(configPath: string, config: UserConfig): void {
  if (holdsSecrets(config)) checkPrivateFile(configPath);
  checkPrivateFile(join(dirname(configPath), KEYSTORE_FILE));
}

/** What a reload changed: key ids of the key store, public keys (hex) the wallet tracks, the leader's key count. */
export interface KeysReloaded {
  readonly kms: KeyChanges;
  readonly wallet: { readonly added: string[]; readonly removed: string[] };
  readonly leader_keys: number;
}

export interface ReloadTargets {
  readonly kms: KeyStore;
  readonly wallet: Pick<Wallet, 'track'>;
  /** Absent until the leader runs (it then starts with the keys of the store). */
  readonly leader: Pick<LeaderService, 'setKeys'> | undefined;
  readonly proofs: KeyStoreDeps['proofs'];
  readonly logger: Logger;
}

/**
 * Reads the keys of `configFile` again and applies them (see the file's header). A file that is not
 * private, a config the node would refuse at start or a malformed key throws, and nothing changes.
 */
export function reloadKeys(configFile: string | undefined, t: ReloadTargets): KeysReloaded {
  if (configFile === undefined)
    throw new NodeError(
      'NODE_NO_CONFIG_FILE',
      'the node was not started from a config file: there are no keys to read again',
    );
  const config = readConfigFile(configFile);
  // The same check as at start: the config and keystore.yaml private when they hold keys.
  checkKeyFiles(configFile, config);
  const next = KeyStore.init(config.kms, { proofs: t.proofs });
  let known: ReadonlySet<bigint>;
  try {
    known = Wallet.knownKeysOf(config.wallet);
  } catch (e) {
    next.close();
    throw e;
  }
  // Everything is checked: from here on nothing throws.
  const kms = t.kms.adopt(next);
  const tracked = t.wallet.track(known);
  const keys = leaderKeys(t.kms, config.wallet).secretKeys;
  t.leader?.setKeys(keys);
  const hex = (pks: readonly bigint[]) => pks.map((pk) => bytesToHex(frToBytes(pk)));
  const out: KeysReloaded = {
    kms,
    wallet: { added: hex(tracked.added), removed: hex(tracked.removed) },
    leader_keys: keys.length,
  };
  t.logger.info(
    {
      kms_added: kms.added,
      kms_removed: kms.removed,
      kms_changed: kms.changed,
      wallet_added: out.wallet.added,
      wallet_removed: out.wallet.removed,
      leader_keys: out.leader_keys,
    },
    'keys reloaded from the config',
  );
  return out;
}
