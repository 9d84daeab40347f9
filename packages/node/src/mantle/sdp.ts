/** Service Declaration Protocol ids. */

import { Writer } from '../codec/binary.ts';
import { blake2b256, tag } from '../crypto/blake2b.ts';
import { frToBytes } from '../crypto/field.ts';
import { locators, type SDPDeclareOp } from './ops.ts';

const SERVICE_TYPE_BN = tag('BN');

/**
 * Declaration id = Blake2b256("BN" ‖ provider_id ‖ zk_id (32 LE bytes) ‖ encode(locators)),
 * where encode(locators) is the u8 count then each `u16 length ‖ multiaddr bytes`.
 */
export function declarationId(d: Pick<SDPDeclareOp, 'provider_id' | 'zk_id' | 'locators'>): Uint8Array {
  const w = new Writer(64);
  locators.write(w, d.locators);
  return blake2b256(SERVICE_TYPE_BN, d.provider_id, frToBytes(d.zk_id), w.finish());
}
