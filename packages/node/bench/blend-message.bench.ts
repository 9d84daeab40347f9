/**
 * Blend message figures:
 * - `blend.encapsulate_ms`: one message of three layers (β_max = 3) with a 1,000-byte body, the proofs
 *   of quota and selection given (as a sender has them ready): key exchanges, fillers, signatures and
 *   encryption;
 * - `blend.decapsulate_ms`: removing one layer of such a message, public header verification included,
 *   with a proof verifier that accepts at once: it measures the cryptography of the layer (signatures,
 *   key exchange, decryption, the rebuilt filler), not the Groth16 proof of quota verification, which
 *   has its own figures.
 * Median of many runs, in milliseconds.
 */
import { randomBytes } from 'node:crypto';
import {
  decapsulate,
  type EncapsulationInput,
  encapsulate,
  type LayerProofVerifier,
  PayloadType,
} from '../src/blend/message/index.ts';
import { x25519SecretFromEd25519 } from '../src/crypto/blend/x25519.ts';
import { ed25519GenerateSecretKey, ed25519PublicKey } from '../src/crypto/ed25519.ts';
import { type Figure, median } from './harness.ts';

const LAYERS = 3;
const RUNS = 200;

function setup() {
  const nodeSecrets = Array.from({ length: LAYERS }, () => ed25519GenerateSecretKey());
  const inputs: EncapsulationInput[] = nodeSecrets.map((secret, i) => ({
    ephemeralSigningKey: ed25519GenerateSecretKey(),
    recipientSigningKey: ed25519PublicKey(secret),
    proofOfQuota: {
      key_nullifier: BigInt(i + 1),
      proof: { pi_a: new Uint8Array(32), pi_b: new Uint8Array(64), pi_c: new Uint8Array(32) },
    },
    proofOfSelection: { selection_randomness: BigInt(i + 7) },
  }));
  const payload = { type: PayloadType.Transaction, body: new Uint8Array(randomBytes(1000)) };
  return { nodeSecrets, inputs, payload };
}

export const figures: Figure[] = [
  {
    name: 'blend.encapsulate_ms',
    unit: 'ms',
    measure() {
      const { inputs, payload } = setup();
      for (let i = 0; i < 20; i++) encapsulate(inputs, payload, LAYERS);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        encapsulate(inputs, payload, LAYERS);
        times.push(performance.now() - t);
      }
      return median(times);
    },
  },
  {
    name: 'blend.decapsulate_ms',
    unit: 'ms',
    async measure() {
      const { nodeSecrets, inputs, payload } = setup();
      const accept: LayerProofVerifier = { proofOfQuota: async () => true, proofOfSelection: () => true };
      const message = encapsulate(inputs, payload, LAYERS);
      // The outermost layer is the last input's, addressed to the last node.
      const secret = x25519SecretFromEd25519(nodeSecrets[LAYERS - 1]!);
      for (let i = 0; i < 20; i++) await decapsulate(message, secret, accept);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        const out = await decapsulate(message, secret, accept);
        times.push(performance.now() - t);
        if (out.kind !== 'incomplete') throw new Error('expected the next layer');
      }
      return median(times);
    },
  },
];
