/**
 * The shared key of a layer and the encryption of the layer with it (F: blend/message/src/input.rs,
 * encap/validated.rs, encap/encapsulated.rs). The shared key is X25519 between one side's secret and
 * the other side's Ed25519 signing key converted to X25519; a non-contributory exchange is refused. Every
 * blending header is XORed with a fresh `Cipher("BlendHeader", key)`, i.e. all with the same first 289
 * bytes of that stream, and the payload with `Cipher("BlendPayload", key)`. XOR is its own inverse, so
 * these both add and remove a layer.
 */
import { BlakeRng } from '../../crypto/blend/blake-rng.ts';
import { Cipher, DOMAIN_HEADER, DOMAIN_PAYLOAD } from '../../crypto/blend/cipher.ts';
import { sharedKeyWithEd25519 } from '../../crypto/blend/x25519.ts';
import { BLENDING_HEADER_SIZE } from './blending-header.ts';
import { BlendMessageError } from './errors.ts';

/** The shared key of an X25519 secret and an Ed25519 signing key, or a `BLEND_MESSAGE_SHARED_SECRET` error. */
export function layerKey(x25519Secret: Uint8Array, signingKey: Uint8Array): Uint8Array {
  let key: Uint8Array | undefined;
  let cause: unknown;
  try {
    key = sharedKeyWithEd25519(x25519Secret, signingKey);
  } catch (e) {
    cause = e;
  }
  if (key === undefined) {
    throw new BlendMessageError(
      'BLEND_MESSAGE_SHARED_SECRET',
      cause === undefined ? 'the key exchange is non-contributory' : 'invalid layer keys',
      { variant: 'InvalidSharedSecret' },
      cause,
    );
  }
  return key;
}

/** The 289 keystream bytes every blending header of a layer is XORed with. */
export function headerKeystream(sharedKey: Uint8Array): Uint8Array {
  return BlakeRng.fromDomain(DOMAIN_HEADER, sharedKey).nextBytes(BLENDING_HEADER_SIZE);
}

/** XORs every 289-byte header of `headers` (in place) with `keystream`. */
export function xorHeaders(headers: Uint8Array, keystream: Uint8Array): void {
  for (let off = 0; off < headers.length; off += BLENDING_HEADER_SIZE) {
    for (let i = 0; i < BLENDING_HEADER_SIZE; i++) headers[off + i]! ^= keystream[i]!;
  }
}

/** Encrypts or decrypts the payload in place. */
export function cipherPayload(payload: Uint8Array, sharedKey: Uint8Array): void {
  new Cipher(DOMAIN_PAYLOAD, sharedKey).apply(payload);
}
