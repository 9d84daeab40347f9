import { randomBytes } from 'node:crypto';
import { blake2b256 } from '../src/crypto/blake2b.ts';
import {
  ed25519GenerateSecretKey,
  ed25519PublicKey,
  ed25519Sign,
  ed25519Verify,
} from '../src/crypto/ed25519.ts';
import { type Figure, rate } from './harness.ts';

export const figures: Figure[] = [
  {
    name: 'blake2b.hashes_per_s',
    unit: 'hashes/s',
    measure() {
      const inputs = Array.from({ length: 64 }, () => new Uint8Array(randomBytes(256)));
      return rate(() => {
        for (const m of inputs) blake2b256(m);
      }, inputs.length);
    },
  },
  {
    name: 'ed25519.verify_per_s',
    unit: 'verifies/s',
    measure() {
      // Distinct keys, each imported from its raw 32 bytes on every verify, as a block's signers would be.
      const cases = Array.from({ length: 64 }, () => {
        const sk = ed25519GenerateSecretKey();
        const msg = new Uint8Array(randomBytes(32));
        return { pk: ed25519PublicKey(sk), msg, sig: ed25519Sign(sk, msg) };
      });
      return rate(() => {
        for (const c of cases) if (!ed25519Verify(c.pk, c.msg, c.sig)) throw new Error('verify failed');
      }, cases.length);
    },
  },
];
