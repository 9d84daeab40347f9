/**
 * The devnet's funded wallet keys. They are derived from a public seed so that tests, scripts and
 * users can rely on them, as local development chains of other ecosystems do: key i has the secret
 * `Blake2b256("LOGOS_DEVNET_KEY_V1" ‖ i as u32 LE) mod p`. Never use them on a real network.
 */
import { blake2b256, tag } from '../crypto/blake2b.ts';
import { type Fr, frFromBytesModOrder } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';

const SEED = tag('LOGOS_DEVNET_KEY_V1');

export function devnetSecretKey(i: number): Fr {
  const idx = new Uint8Array(4);
  new DataView(idx.buffer).setUint32(0, i, true);
  return frFromBytesModOrder(blake2b256(SEED, idx));
}

export function devnetKeys(count: number): { secretKey: Fr; publicKey: Fr }[] {
  return Array.from({ length: count }, (_, i) => {
    const secretKey = devnetSecretKey(i);
    return { secretKey, publicKey: zkPublicKey(secretKey) };
  });
}
