/**
 * ZK keys: a secret key is a field element; its public key is Poseidon2.compress([KDF, sk]).
 * These keys own notes and sign transactions with ZkSign proofs.
 */
import { randomBytes } from 'node:crypto';
import { type Fr, frFromAscii, frFromBytesModOrder } from './field.ts';
import { compress } from './poseidon2/index.ts';

/** Fr of the ASCII tag "KDF" read little-endian (= 4605003). */
export const KDF: Fr = frFromAscii('KDF');

export function zkPublicKey(secretKey: Fr): Fr {
  return compress(KDF, secretKey);
}

/** A fresh secret key: 32 random bytes read little-endian, reduced into the field. */
export function zkGenerateSecretKey(): Fr {
  return frFromBytesModOrder(randomBytes(32));
}
