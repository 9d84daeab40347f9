/**
 * The key store (F: the KMS preload backend): the keys of the `kms.backend.keys` section, loaded once
 * and checked (each key id must be the hex of its key's public key: Ed25519 the 32-byte key, ZK
 * `fr_to_bytes(pk)`), signing with them. Ed25519 signs in-process (node:crypto); a ZK signature is a
 * Groth16 proof made by the proof system's prover process. Secrets are never logged nor put in an
 * error message; the store serialises as a placeholder.
 */
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { Ed25519Signer } from '../crypto/ed25519.ts';
import { type Fr, frFromBytes, frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import type { ProofSystem } from '../ledger/proof-system.ts';
import type { ZkSignature } from '../mantle/proofs.ts';
import { ConfigError } from '../util/config-fields.ts';
import type { KmsSection } from './config.ts';
import { KmsError } from './errors.ts';
import { type IKms, MAX_ZK_SIGNING_KEYS } from './interface.ts';

export interface KeyStoreDeps {
  /** Makes the ZK signatures (`proveZkSign`). */
  readonly proofs: Pick<ProofSystem, 'proveZkSign'>;
}

/** The key id of a ZK public key: hex of its 32-byte little-endian form. */
export const zkKeyId = (pk: Fr): string => bytesToHex(frToBytes(pk));

export class KeyStore implements IKms {
  /** Key id → signer. */
  readonly #ed25519 = new Map<string, Ed25519Signer>();
  /** Key id → secret key. */
  readonly #zk = new Map<string, Fr>();
  readonly #proofs: KeyStoreDeps['proofs'];

  private constructor(proofs: KeyStoreDeps['proofs']) {
    this.#proofs = proofs;
  }

  /** Loads the configured keys; throws `ConfigError` naming the key id of a key that does not match it. */
  static init(config: KmsSection, deps: KeyStoreDeps): KeyStore {
    const store = new KeyStore(deps.proofs);
    for (const [id, key] of Object.entries(config.backend.keys)) {
      const path = `kms.backend.keys.${id}`;
      let bytes: Uint8Array;
      try {
        bytes = hexToBytes(key.secret);
      } catch {
        throw new ConfigError(`${path}: the secret key is not hex`);
      }
      if (key.kind === 'Ed25519') {
        const signer = new Ed25519Signer(bytes);
        if (bytesToHex(signer.publicKey) !== id)
          throw new ConfigError(`${path}: the key id must be the hex of the key's Ed25519 public key`);
        store.#ed25519.set(id, signer);
      } else {
        let sk: Fr;
        try {
          sk = frFromBytes(bytes);
        } catch {
          throw new ConfigError(`${path}: the ZK secret key is not a canonical field element`);
        }
        if (zkKeyId(zkPublicKey(sk)) !== id)
          throw new ConfigError(
            `${path}: the key id must be the hex of the key's ZK public key (little-endian)`,
          );
        store.#zk.set(id, sk);
      }
    }
    return store;
  }

  close(): void {
    this.#ed25519.clear();
    this.#zk.clear();
  }

  hasEd25519(pk: Uint8Array): boolean {
    return this.#ed25519.has(bytesToHex(pk));
  }

  hasZk(pk: Fr): boolean {
    return this.#zk.has(zkKeyId(pk));
  }

  // inferred: the texts of the key store's refusals (F's KMS errors are not recorded) (docs/fidelity.md)
  signEd25519(msg: Uint8Array, pk: Uint8Array): Uint8Array {
    const id = bytesToHex(pk);
    const signer = this.#ed25519.get(id);
    if (!signer)
      throw new KmsError('KMS_KEY_NOT_FOUND', `no Ed25519 key ${id} in the key store`, { keyId: id });
    return signer.sign(msg);
  }

  async signZk(msg: Fr, pks: readonly Fr[]): Promise<ZkSignature> {
    if (pks.length === 0 || pks.length > MAX_ZK_SIGNING_KEYS)
      throw new KmsError(
        'KMS_KEY_COUNT',
        `a ZK signature takes 1 to ${MAX_ZK_SIGNING_KEYS} keys, got ${pks.length}`,
        { count: pks.length },
      );
    const secrets = pks.map((pk) => {
      const id = zkKeyId(pk);
      const sk = this.#zk.get(id);
      if (sk === undefined)
        throw new KmsError('KMS_KEY_NOT_FOUND', `no ZK key ${id} in the key store`, { keyId: id });
      return sk;
    });
    return this.#proofs.proveZkSign(msg, secrets);
  }

  zkSecretKeys(pks: Iterable<Fr>): Fr[] {
    const out: Fr[] = [];
    for (const pk of pks) {
      const sk = this.#zk.get(zkKeyId(pk));
      if (sk !== undefined) out.push(sk);
    }
    return out;
  }

  zkSecretById(keyId: string): Fr | undefined {
    return this.#zk.get(keyId);
  }

  toJSON(): string {
    return '[KeyStore]';
  }
}
