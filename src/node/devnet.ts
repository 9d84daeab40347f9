/**
 * The configuration of the local devnet node (`start` without `--config`): state in `./.devnet`, a
 * 2 s prolonged bootstrap period, and a wallet holding the four funded devnet keys and the devnet
 * voucher master key. These keys are public test keys (src/ledger/devnet-keys.ts).
 */
import { bytesToHex } from '../codec/hex.ts';
import { frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import { devnetKeys, devnetSecretKey } from '../ledger/devnet-keys.ts';
import { DEFAULT_CONFIG, type UserConfig } from './config.ts';

/** How many devnet keys the devnet wallet holds (the funded ones of deployments/devnet.yaml). */
export const DEVNET_FUNDED_KEYS = 4;

const hex = (x: bigint) => bytesToHex(frToBytes(x));

/** The funded devnet keys, as hex: index, public key, secret key. */
export function fundedDevnetKeys(): { index: number; publicKey: string; secretKey: string }[] {
  return devnetKeys(DEVNET_FUNDED_KEYS).map((k, index) => ({
    index,
    publicKey: hex(k.publicKey),
    secretKey: hex(k.secretKey),
  }));
}

/** The configuration of the local devnet node: its wallet holds the published devnet keys. */
export function devnetConfig(): UserConfig {
  const keys = devnetKeys(DEVNET_FUNDED_KEYS);
  const master = devnetSecretKey(1000);
  const kms: Record<string, { kind: 'Zk'; secret: string }> = {};
  const known: Record<string, string> = {};
  for (const k of keys) {
    kms[hex(k.publicKey)] = { kind: 'Zk', secret: hex(k.secretKey) };
    known[hex(k.publicKey)] = hex(k.publicKey);
  }
  kms[hex(zkPublicKey(master))] = { kind: 'Zk', secret: hex(master) };
  return {
    ...DEFAULT_CONFIG,
    state: { base_folder: '.devnet' },
    cryptarchia: {
      ...DEFAULT_CONFIG.cryptarchia,
      service: {
        bootstrap: { ...DEFAULT_CONFIG.cryptarchia.service.bootstrap, prolonged_bootstrap_period: 2 },
      },
    },
    wallet: { ...DEFAULT_CONFIG.wallet, known_keys: known, voucher_master_key_id: hex(zkPublicKey(master)) },
    kms: { backend: { keys: kms } },
  };
}
