/**
 * Transactions on the mempool topic: the bincode form of `SignedMantleTx`, whose serde form is its
 * binary encoding as a byte sequence, i.e. `u64 LE length ‖ BinaryCodec(SignedMantleTx)`, trailing
 * bytes refused (F `services/tx-service/src/network/adapters/libp2p.rs`,
 * `core/src/mantle/transactions/signed_mantle_tx.rs`, `core/src/codec/bincode`). The length is checked
 * against the bytes received and a cap before anything is read. Pure: no I/O.
 */
import { MAX_BLOCK_TRANSACTIONS_SIZE } from '../../block/block.ts';
import { Writer } from '../../codec/binary.ts';
import { DecodeError } from '../../codec/errors.ts';
import { decodeSignedTx, encodeSignedTx, type SignedMantleTx } from '../../mantle/tx.ts';
import { WireError } from './errors.ts';

/**
 * The largest transaction taken from gossip: a block's transaction bytes (2 MiB). F decodes larger ones
 * and its mempool then refuses them (`Item is too large`); refusing them before decoding ends the same.
 */
export const MAX_GOSSIP_TX_BYTES = MAX_BLOCK_TRANSACTIONS_SIZE;
const LENGTH_BYTES = 8;
/** The message type named in errors. */
const MESSAGE = 'SignedMantleTx';

export function encodeTxGossip(tx: SignedMantleTx): Uint8Array {
  const bytes = encodeSignedTx(tx);
  const w = new Writer(LENGTH_BYTES + bytes.length);
  w.u64(BigInt(bytes.length));
  w.bytes(bytes);
  return w.finish();
}

/** Decodes a gossiped transaction; throws {@link WireError}. Proofs and signatures are not checked here. */
export function decodeTxGossip(data: Uint8Array, maxBytes = MAX_GOSSIP_TX_BYTES): SignedMantleTx {
  if (data.length < LENGTH_BYTES) {
    throw new WireError('WIRE_MALFORMED', `${data.length} bytes cannot hold a length prefix`, {
      message: MESSAGE,
      size: data.length,
    });
  }
  const declared = new DataView(data.buffer, data.byteOffset, LENGTH_BYTES).getBigUint64(0, true);
  if (declared > BigInt(maxBytes)) {
    throw new WireError('WIRE_TOO_LARGE', `length ${declared} exceeds the maximum of ${maxBytes}`, {
      message: MESSAGE,
      size: declared,
      limit: maxBytes,
    });
  }
  const rest = data.length - LENGTH_BYTES;
  if (declared !== BigInt(rest)) {
    throw new WireError(
      'WIRE_MALFORMED',
      declared > BigInt(rest)
        ? `length ${declared} exceeds the ${rest} bytes received`
        : `${rest - Number(declared)} trailing bytes after the transaction`,
      { message: MESSAGE, size: declared },
    );
  }
  try {
    return decodeSignedTx(data.subarray(LENGTH_BYTES));
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    throw new WireError('WIRE_MALFORMED', e.message, { message: MESSAGE }, e);
  }
}
