/**
 * Blocks: a signed header, up to four uncle headers and up to 1024 transactions.
 *
 * Binary (storage and gossip): `header 297 ‖ signature 64 ‖ u8 uncle count ‖ signed uncle headers
 * ‖ u16 tx count ‖ signed transactions`, fields in the reference's declaration order.
 */

import { Writer } from '../codec/binary.ts';
import { bytesEqual } from '../codec/hex.ts';
import type { Json } from '../codec/json.ts';
import { ed25519Signature } from '../codec/primitives.ts';
import { type Codec, decode, encode, struct, vec } from '../codec/schema.ts';
import { blake2b256, tag } from '../crypto/blake2b.ts';
import { ed25519Verify } from '../crypto/ed25519.ts';
import { LogosError } from '../errors/base.ts';
import {
  encodeSignedTx,
  type SignedMantleTx,
  signedMantleTx,
  signedTxToApiJson,
  txHash,
} from '../mantle/tx.ts';
import {
  encodeHeader,
  type Header,
  header,
  headerId,
  headerToApiJson,
  type SignedHeader,
  signedHeader,
  signedHeaderToApiJson,
} from './header.ts';
import { txMerkleRoot } from './merkle.ts';

export const MAX_BLOCK_TRANSACTIONS = 1024;
export const MAX_BLOCK_TRANSACTIONS_SIZE = 2 * 1024 * 1024;
export const MAX_UNCLES = 4;

export interface Block {
  header: Header;
  signature: Uint8Array;
  uncle_headers: SignedHeader[];
  transactions: SignedMantleTx[];
}

export const uncleHeaders = vec(signedHeader, 0, MAX_UNCLES);

export const block: Codec<Block> = struct<Block>('a block', {
  header,
  signature: ed25519Signature,
  uncle_headers: uncleHeaders,
  transactions: vec(signedMantleTx, 0, MAX_BLOCK_TRANSACTIONS),
});

export function encodeBlock(b: Block): Uint8Array {
  return encode(block, b, 1024);
}

export function decodeBlock(bytes: Uint8Array): Block {
  return decode(block, bytes);
}

const BODY_ROOT_V1 = tag('BODY_ROOT_V1');

/** body_root = Blake2b256("BODY_ROOT_V1" ‖ encode(uncle headers) ‖ tx Merkle root). */
export function bodyRoot(uncles: readonly SignedHeader[], txHashes: readonly Uint8Array[]): Uint8Array {
  const w = new Writer(1 + uncles.length * 361);
  uncleHeaders.write(w, [...uncles]);
  return blake2b256(BODY_ROOT_V1, w.finish(), txMerkleRoot(txHashes));
}

export function blockBodyRoot(b: Pick<Block, 'uncle_headers' | 'transactions'>): Uint8Array {
  return bodyRoot(
    b.uncle_headers,
    b.transactions.map((t) => txHash(t.mantle_tx)),
  );
}

export class BlockError extends LogosError {}

/**
 * The structural checks a block passes before the ledger sees it (`Block::reconstruct`):
 * slot is not 0, the leader's signature over the header bytes verifies, the summed transaction
 * size is within the limit, and body_root matches the body.
 */
export function checkBlockStructure(b: Block): void {
  if (b.header.slot === 0n) throw new BlockError('BLOCK_SLOT_ZERO', 'only the genesis block may have slot 0');
  if (!ed25519Verify(b.header.proof_of_leadership.leader_key, encodeHeader(b.header), b.signature)) {
    throw new BlockError('BLOCK_BAD_SIGNATURE', 'the leader signature over the header is invalid');
  }
  let size = 0;
  for (const t of b.transactions) size += encodeSignedTx(t).length;
  if (size > MAX_BLOCK_TRANSACTIONS_SIZE) {
    throw new BlockError(
      'BLOCK_TOO_LARGE',
      `transactions take ${size} bytes, the limit is ${MAX_BLOCK_TRANSACTIONS_SIZE}`,
    );
  }
  if (!bytesEqual(blockBodyRoot(b), b.header.body_root)) {
    throw new BlockError('BLOCK_BAD_BODY_ROOT', 'body_root does not match the uncles and transactions');
  }
}

/** API form: `{"header":{id,...},"uncle_headers":[{header,signature}],"transactions":[...]}` (no block signature). */
export function blockToApiJson(b: Block, id: Uint8Array = headerId(b.header)): Json {
  return {
    header: headerToApiJson(b.header, id),
    uncle_headers: b.uncle_headers.map(signedHeaderToApiJson),
    transactions: b.transactions.map((t) => signedTxToApiJson(t)),
  };
}
