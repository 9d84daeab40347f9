/**
 * `CryptarchiaParameter`, the payload of the genesis inscription: it fixes the chain id, the genesis
 * time and the first epoch nonce.
 *
 * Binary: `chain_id (u8 length ‖ UTF-8, 1..255 bytes) ‖ genesis_time u32 LE (unix seconds) ‖ epoch_nonce (Fr)`.
 * A legacy form with u64 lengths and a u64 time is also accepted when decoding; its epoch nonce is
 * taken mod p, as published testnet deployments carry non-canonical nonce bytes.
 * F: core/src/mantle/transactions/genesis_tx.rs `decode_legacy_cryptarchia_parameter`
 */

import { Reader, Writer } from '../codec/binary.ts';
import { DecodeError, EncodeError, within } from '../codec/errors.ts';
import { utf8 } from '../codec/hex.ts';
import { fr } from '../codec/schema.ts';
import { type Fr, frFromBytesModOrder } from '../crypto/field.ts';

export interface CryptarchiaParameter {
  chain_id: string;
  /** Genesis time in unix seconds. */
  genesis_time: number;
  epoch_nonce: Fr;
}

export const MAX_CHAIN_ID_BYTES = 255;

export function encodeCryptarchiaParameter(p: CryptarchiaParameter): Uint8Array {
  const id = utf8.encode(p.chain_id);
  if (id.length < 1 || id.length > MAX_CHAIN_ID_BYTES) {
    throw new EncodeError(`chain id must be 1..${MAX_CHAIN_ID_BYTES} bytes of UTF-8`);
  }
  if (!Number.isInteger(p.genesis_time) || p.genesis_time < 0 || p.genesis_time > 0xffffffff) {
    throw new EncodeError('genesis time must fit in a u32 (unix seconds)');
  }
  const w = new Writer(1 + id.length + 4 + 32);
  w.u8(id.length);
  w.bytes(id);
  w.u32(p.genesis_time);
  fr.write(w, p.epoch_nonce);
  return w.finish();
}

function decodeChainId(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new DecodeError('chain id is not valid UTF-8').under('chain_id');
  }
}

function decodeCurrent(bytes: Uint8Array): CryptarchiaParameter {
  const r = new Reader(bytes);
  const n = within('chain_id', () => r.prefix(1, 1, MAX_CHAIN_ID_BYTES));
  const chain_id = decodeChainId(within('chain_id', () => r.bytes(n)));
  const genesis_time = within('genesis_time', () => r.u32());
  const epoch_nonce = within('epoch_nonce', () => fr.read(r));
  r.end();
  return { chain_id, genesis_time, epoch_nonce };
}

function decodeLegacy(bytes: Uint8Array): CryptarchiaParameter {
  const r = new Reader(bytes);
  const n = within('chain_id', () => r.prefix(8, 1, MAX_CHAIN_ID_BYTES));
  const chain_id = decodeChainId(within('chain_id', () => r.bytes(n)));
  const time = within('genesis_time', () => r.u64());
  if (time > 0xffffffffn) throw new DecodeError('genesis time out of range').under('genesis_time');
  const epoch_nonce = frFromBytesModOrder(within('epoch_nonce', () => r.bytes(32)));
  r.end();
  return { chain_id, genesis_time: Number(time), epoch_nonce };
}

export function decodeCryptarchiaParameter(bytes: Uint8Array): CryptarchiaParameter {
  try {
    return decodeCurrent(bytes);
  } catch (current) {
    try {
      return decodeLegacy(bytes);
    } catch {
      throw current;
    }
  }
}
