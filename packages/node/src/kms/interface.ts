/**
 * What the rest of the node sees of the key store: `IKms`. Signing addresses a key by public key (it
 * is looked up under the hex of that key, as F's wallet does); the node's own provers name keys by id
 * and get their secrets (the leader's lottery keys, the voucher master key).
 */
import type { Fr } from '../crypto/field.ts';
import type { ZkSignature } from '../mantle/proofs.ts';

/** At most this many keys sign one ZK signature (F `MAX_ZK_SIGNING_KEYS`, the ZkSig circuit's width). */
export const MAX_ZK_SIGNING_KEYS = 32;

export interface IKms {
  /** Whether the store holds the Ed25519 key with this public key. */
  hasEd25519(pk: Uint8Array): boolean;
  /** Whether the store holds the ZK key with this public key. */
  hasZk(pk: Fr): boolean;
  /** Ed25519 signature of `msg` by the key whose public key is `pk`. Throws `KmsError`. */
  signEd25519(msg: Uint8Array, pk: Uint8Array): Uint8Array;
  /** ZkSig over `msg` by the keys of `pks` (1 to 32, in order), proved off the event loop. Throws `KmsError`. */
  signZk(msg: Fr, pks: readonly Fr[]): Promise<ZkSignature>;
  /** The secret of the ZK key with this key id (a leader key, the voucher master key), if the store holds one. */
  zkSecretById(keyId: string): Fr | undefined;
}
