/**
 * The key store (F: the KMS preload backend, `services/key-management-system/src/backend/preload.rs`):
 * the keys of the `kms.backend.keys` section under their ids (any string), loaded once, signing with
 * them. As F's wallet, the signing calls name a key by public key and look it up under the hex of that
 * public key (Ed25519 the 32-byte key, ZK `fr_to_bytes(pk)`; F `services/wallet/src/lib.rs`
 * `sign_ed25519`, `sign_zksig`): a key stored under another id signs only where the node names it by
 * id (the leader's keys through `wallet.known_keys`, the voucher master key, the Blend keys). Ed25519
 * signs in-process (node:crypto); a ZK signature is a Groth16 proof made by the proof system's prover
 * process. Secrets are never logged nor put in an error message; the store serialises as a placeholder.
 * A running node replaces its keys with those of a store loaded from its edited config (`adopt`).
 */

import { ConfigError } from '@logos-ts/shared/config-fields';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { Ed25519Signer } from '../crypto/ed25519.ts';
import { type Fr, frFromBytes, frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import type { ProofSystem } from '../ledger/proof-system.ts';
import type { ZkSignature } from '../mantle/proofs.ts';
import type { Meter } from '../util/meter.ts';
import type { KmsSection } from './config.ts';
import { KmsError } from './errors.ts';
import { type IKms, MAX_ZK_SIGNING_KEYS } from './interface.ts';

export interface KeyStoreDeps {
  /** Makes the ZK signatures (`proveZkSign`). */
  readonly proofs: Pick<ProofSystem, 'proveZkSign'>;
  /** Counts the signatures asked, made and failed (absent: not counted). */
  readonly meter?: Meter;
}

/** The key id of a ZK public key: hex of its 32-byte little-endian form. */
export const zkKeyId = (pk: Fr): string => bytesToHex(frToBytes(pk));

/** The key ids a change of the key store added, removed, or kept with another secret key. */
export interface KeyChanges {
  readonly added: string[];
  readonly removed: string[];
  readonly changed: string[];
}

export class KeyStore implements IKms {
  /** Key id → signer. */
  readonly #ed25519 = new Map<string, Ed25519Signer>();
  /** Key id → secret key. */
  readonly #zk = new Map<string, Fr>();
  /** Secret key → its public key, computed when a key is first looked up by public key. */
  readonly #zkPks = new Map<Fr, Fr>();
  readonly #proofs: KeyStoreDeps['proofs'];

  readonly #meter: Meter | undefined;

  private constructor(proofs: KeyStoreDeps['proofs'], meter?: Meter) {
    this.#proofs = proofs;
    this.#meter = meter;
  }

  /** Loads the configured keys; throws `ConfigError` naming the key id of a key whose secret is malformed. */
  static init(config: KmsSection, deps: KeyStoreDeps): KeyStore {
    const store = new KeyStore(deps.proofs, deps.meter);
    for (const [id, key] of Object.entries(config.backend.keys)) {
      const path = `kms.backend.keys.${id}`;
      let bytes: Uint8Array;
      try {
        bytes = hexToBytes(key.secret);
      } catch {
        throw new ConfigError(`${path}: the secret key is not hex`);
      }
      if (key.kind === 'Ed25519') {
        store.#ed25519.set(id, new Ed25519Signer(bytes));
      } else {
        try {
          store.#zk.set(id, frFromBytes(bytes));
        } catch {
          throw new ConfigError(`${path}: the ZK secret key is not a canonical field element`);
        }
      }
    }
    return store;
  }

  /**
   * Takes the keys of `next` (a store loaded from the edited config) in place of its own; returns the
   * ids that changed. Signing calls made from then on use the new keys; `next` is left empty.
   */
  adopt(next: KeyStore): KeyChanges {
    const before = this.#secretsById();
    const after = next.#secretsById();
    this.#ed25519.clear();
    this.#zk.clear();
    this.#zkPks.clear();
    for (const [id, s] of next.#ed25519) this.#ed25519.set(id, s);
    for (const [id, sk] of next.#zk) this.#zk.set(id, sk);
    next.close();
    const added: string[] = [];
    const changed: string[] = [];
    for (const [id, secret] of after) {
      const was = before.get(id);
      if (was === undefined) added.push(id);
      else if (was !== secret) changed.push(id);
    }
    const removed = [...before.keys()].filter((id) => !after.has(id));
    return { added, removed, changed };
  }

  /** Key id → what tells its key from another (the Ed25519 public key, the ZK secret); never leaves the class. */
  #secretsById(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [id, s] of this.#ed25519) out.set(id, `e:${bytesToHex(s.publicKey)}`);
    for (const [id, sk] of this.#zk) out.set(id, `z:${sk.toString(16)}`);
    return out;
  }

  close(): void {
    this.#ed25519.clear();
    this.#zk.clear();
    this.#zkPks.clear();
  }

  hasEd25519(pk: Uint8Array): boolean {
    return this.#ed25519Of(pk) !== undefined;
  }

  hasZk(pk: Fr): boolean {
    return this.#zkOf(pk) !== undefined;
  }

  /** The Ed25519 key stored under the hex of `pk`, if it is the key of `pk`. */
  #ed25519Of(pk: Uint8Array): Ed25519Signer | undefined {
    const signer = this.#ed25519.get(bytesToHex(pk));
    // inferred: a key stored under another key's public key does not sign for it; F signs with
    // whatever key the id names (a signature that does not verify) (docs/design/fidelity.md)
    return signer && bytesToHex(signer.publicKey) === bytesToHex(pk) ? signer : undefined;
  }

  /** The ZK secret key stored under the hex of `pk`, if it is the key of `pk`. */
  #zkOf(pk: Fr): Fr | undefined {
    const sk = this.#zk.get(zkKeyId(pk));
    return sk !== undefined && this.#zkPk(sk) === pk ? sk : undefined;
  }

  /** The public key of a stored ZK secret (computed once per key). */
  #zkPk(sk: Fr): Fr {
    let pk = this.#zkPks.get(sk);
    if (pk === undefined) {
      pk = zkPublicKey(sk);
      this.#zkPks.set(sk, pk);
    }
    return pk;
  }

  // The refusals read as F's wallet reports a KMS failure (`WalletServiceError::KmsApi` around
  // `KmsServiceApi::sign` / `sign_multiple`, `services/key-management-system/src/api.rs`).
  signEd25519(msg: Uint8Array, pk: Uint8Array): Uint8Array {
    return this.#counted('single', () => this.#signEd25519(msg, pk));
  }

  async signZk(msg: Fr, pks: readonly Fr[]): Promise<ZkSignature> {
    return this.#counted('multi', () => this.#signZk(msg, pks));
  }

  /** Counts a signature asked of the store, and whether it was made (F's KMS metrics, by strategy). */
  #counted<T>(strategy: 'single' | 'multi', sign: () => T): T {
    const m = this.#meter;
    m?.count('kms_sign_requests_total', 1, { strategy });
    const done = (ok: boolean) =>
      m?.count(ok ? 'kms_sign_success_total' : 'kms_sign_failures_total', 1, { strategy });
    let r: T;
    try {
      r = sign();
    } catch (e) {
      done(false);
      throw e;
    }
    if (r instanceof Promise)
      r.then(
        () => done(true),
        () => done(false),
      );
    else done(true);
    return r;
  }

  #signEd25519(msg: Uint8Array, pk: Uint8Array): Uint8Array {
    const signer = this.#ed25519Of(pk);
    if (!signer)
      throw new KmsError('KMS_KEY_NOT_FOUND', 'KMS API error: Failed to get signature.', {
        keyId: bytesToHex(pk),
      });
    return signer.sign(msg);
  }

  async #signZk(msg: Fr, pks: readonly Fr[]): Promise<ZkSignature> {
    // F `sign_zksig` bounds the keys first (`ZkPublicKeys::try_from_iter`, whose error counts one past
    // the bound whatever the length); the HTTP endpoint refuses more while decoding its body.
    if (pks.length > MAX_ZK_SIGNING_KEYS)
      throw new KmsError(
        'KMS_KEY_COUNT',
        `Item count ${MAX_ZK_SIGNING_KEYS + 1} exceeds static maximum of ${MAX_ZK_SIGNING_KEYS}`,
        { count: pks.length },
      );
    // F: the KMS key enum's `sign_multiple` refuses an empty key list (`kms/macros/src/lib.rs`).
    if (pks.length === 0)
      throw new KmsError(
        'KMS_KEY_COUNT',
        'KMS API error: Failed to get multiple signature: KeyError(UnsupportedKey("Multi-key signature requires at least two keys."))',
        { count: 0 },
      );
    const secrets = pks.map((pk) => {
      const sk = this.#zkOf(pk);
      if (sk === undefined) {
        const id = zkKeyId(pk);
        throw new KmsError(
          'KMS_KEY_NOT_FOUND',
          `KMS API error: Failed to get multiple signature: NotRegisteredKeyId(${JSON.stringify(id)})`,
          { keyId: id },
        );
      }
      return sk;
    });
    return this.#proofs.proveZkSign(msg, secrets);
  }

  zkSecretById(keyId: string): Fr | undefined {
    return this.#zk.get(keyId);
  }

  toJSON(): string {
    return '[KeyStore]';
  }
}
