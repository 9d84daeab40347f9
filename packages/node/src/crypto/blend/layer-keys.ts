/**
 * Ed25519 for Blend's layer keys, which are made and used once each: the public key of a 32-byte seed
 * and a signature, through libsodium (`crypto_sign_seed_keypair`, `crypto_sign_detached`). Importing a
 * key into node:crypto for a single use costs about 0.7 ms; this costs about 0.05 ms. Ed25519 keys
 * and signatures are deterministic (RFC 8032), so these are the bytes ed25519-dalek gives
 * (F: kms/keys/src/keys/ed25519/private.rs `public_key`, `sign_payload`). Verification stays with
 * `ed25519Verify` (src/crypto/ed25519.ts), which has dalek's acceptance rules.
 */
import sodium from 'sodium-native';
import { ED25519_PUBLIC_KEY_BYTES, ED25519_SECRET_KEY_BYTES, ED25519_SIGNATURE_BYTES } from '../ed25519.ts';

function keypair(seed: Uint8Array): { pk: Buffer; sk: Buffer } {
  if (seed.length !== ED25519_SECRET_KEY_BYTES) {
    throw new RangeError(`an Ed25519 secret key is ${ED25519_SECRET_KEY_BYTES} bytes`);
  }
  const pk = Buffer.alloc(ED25519_PUBLIC_KEY_BYTES);
  const sk = Buffer.alloc(64);
  sodium.crypto_sign_seed_keypair(pk, sk, seed as Buffer);
  return { pk, sk };
}

/** The Ed25519 public key of a 32-byte secret seed. */
export function layerPublicKey(seed: Uint8Array): Uint8Array {
  const { pk } = keypair(seed);
  return new Uint8Array(pk.buffer, pk.byteOffset, ED25519_PUBLIC_KEY_BYTES);
}

/** The Ed25519 signature of `message` by the key of a 32-byte secret seed. */
export function layerSign(seed: Uint8Array, message: Uint8Array): Uint8Array {
  const { sk } = keypair(seed);
  const sig = Buffer.alloc(ED25519_SIGNATURE_BYTES);
  sodium.crypto_sign_detached(sig, message as Buffer, sk);
  sk.fill(0);
  return new Uint8Array(sig.buffer, sig.byteOffset, ED25519_SIGNATURE_BYTES);
}
