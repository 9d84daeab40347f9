/**
 * The configuration of the local devnet node (`start` without `--config`): state in `./.devnet`, a
 * 2 s prolonged bootstrap period, and a wallet holding the four funded devnet keys and the devnet
 * voucher master key. These keys are public test keys (src/ledger/devnet-keys.ts). The first funded key
 * pays the fees of leader claims and SDP messages (and receives the rewards); the node's Blend keys
 * (a ZK key and an Ed25519 key) are devnet keys too.
 */
import { bytesToHex } from '../codec/hex.ts';
import { ed25519PublicKey } from '../crypto/ed25519.ts';
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
/** The balance at which devnet auto-claim would stop paying its target: more than the devnet holds. */
export const DEVNET_CLAIM_THRESHOLD = 10n ** 15n;

export function devnetConfig(): UserConfig {
  const keys = devnetKeys(DEVNET_FUNDED_KEYS);
  const master = devnetSecretKey(1000);
  const kms: Record<string, { kind: 'Zk' | 'Ed25519'; secret: string }> = {};
  const known: Record<string, string> = {};
  for (const k of keys) {
    kms[hex(k.publicKey)] = { kind: 'Zk', secret: hex(k.secretKey) };
    known[hex(k.publicKey)] = hex(k.publicKey);
  }
  kms[hex(zkPublicKey(master))] = { kind: 'Zk', secret: hex(master) };
  // inferred: devnet choices, no reference devnet exists (docs/design/fidelity.md)
  const blendZk = devnetSecretKey(1001);
  kms[hex(zkPublicKey(blendZk))] = { kind: 'Zk', secret: hex(blendZk) };
  const blendSigning = frToBytes(devnetSecretKey(1002));
  const blendSigningId = bytesToHex(ed25519PublicKey(blendSigning));
  kms[blendSigningId] = { kind: 'Ed25519', secret: bytesToHex(blendSigning) };
  const funding = hex(keys[0]!.publicKey);
  return {
    ...DEFAULT_CONFIG,
    state: { base_folder: '.devnet' },
    cryptarchia: {
      ...DEFAULT_CONFIG.cryptarchia,
      service: {
        bootstrap: { ...DEFAULT_CONFIG.cryptarchia.service.bootstrap, prolonged_bootstrap_period: 2 },
      },
      leader: { wallet: { ...DEFAULT_CONFIG.cryptarchia.leader.wallet, funding_pk: funding } },
    },
    sdp: { ...DEFAULT_CONFIG.sdp, wallet: { ...DEFAULT_CONFIG.sdp.wallet, funding_pk: funding } },
    // Its Blend swarm, once it is a core node, listens on any free port of the loopback.
    blend: {
      ...DEFAULT_CONFIG.blend,
      non_ephemeral_signing_key_id: blendSigningId,
      core_zk_secret_key_kms_id: hex(zkPublicKey(blendZk)),
      core: { ...DEFAULT_CONFIG.blend.core, listening_address: '/ip4/127.0.0.1/udp/0/quic-v1' },
    },
    wallet: { ...DEFAULT_CONFIG.wallet, known_keys: known, voucher_master_key_id: hex(zkPublicKey(master)) },
    kms: { backend: { keys: kms } },
    // PoW auto-claim armed at start, paying the last funded key (mining itself is off until
    // `PUT /pow/mining/start`); its threshold is out of reach, so it never disarms.
    pow: {
      ...DEFAULT_CONFIG.pow,
      auto_claim: {
        ...DEFAULT_CONFIG.pow.auto_claim,
        targets: [{ public_key: hex(keys[keys.length - 1]!.publicKey), threshold: DEVNET_CLAIM_THRESHOLD }],
      },
    },
    // A lone local node: its peer-to-peer port is any free one of the loopback (nodes of a local
    // network of several set theirs).
    network: {
      backend: {
        ...DEFAULT_CONFIG.network.backend,
        swarm: { ...DEFAULT_CONFIG.network.backend.swarm, host: '127.0.0.1', port: 0 },
      },
    },
  };
}
