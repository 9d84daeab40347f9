/**
 * The Blend layer cipher (F: blend/crypto/src/cipher.rs) and the domains it is keyed with
 * (F: blend/message/src/crypto/domains.rs): XOR with the BlakeRng stream seeded with
 * `Blake2b-512(domain ‖ key)`. Encryption and decryption are the same operation; one cipher consumes
 * its stream across calls, so data encrypted in pieces is decrypted in the same pieces, in order.
 */
import { BlakeRng } from './blake-rng.ts';

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Seeds the pseudo-random filler of a blending header (`BlendingHeader::pseudo_random`). */
export const DOMAIN_INITIALIZATION = ascii('BlendInitialization');
/** Encrypts blending headers. */
export const DOMAIN_HEADER = ascii('BlendHeader');
/** Encrypts the payload. */
export const DOMAIN_PAYLOAD = ascii('BlendPayload');
/** Seeds the random filler headers of unused layers. */
export const DOMAIN_RANDOM_FILLER_HEADER = ascii('BlendRandom');

export class Cipher {
  private readonly rng: BlakeRng;

  constructor(domain: Uint8Array, key: Uint8Array) {
    this.rng = BlakeRng.fromDomain(domain, key);
  }

  /** Encrypts (or decrypts) `data` in place with the next `data.length` bytes of the stream. */
  apply(data: Uint8Array): void {
    this.rng.xorInto(data);
  }
}
