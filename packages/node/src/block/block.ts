/**
 * Blocks: a signed header, up to four uncle headers and up to 1024 transactions.
 *
 * Binary (storage and chain sync) is the reference's bincode form of `Block` (little-endian,
 * fixed-width integers, no trailing bytes; F: core/src/codec/bincode/mod.rs):
 * `header 297 ‖ signature 64 ‖ u64 uncle count ‖ signed uncle headers (361 each)
 * ‖ u64 tx count ‖ each tx as u64 length ‖ its binary encoding`. An empty block is 377 bytes.
 */

import { LogosError } from '@logos-ts/shared/errors';
import type { Json } from '@logos-ts/shared/json';
import { type Reader, Writer } from '../codec/binary.ts';
import { DecodeError, EncodeError, within } from '../codec/errors.ts';
import { bytesEqual } from '../codec/hex.ts';
import { ed25519Signature } from '../codec/primitives.ts';
import { type Codec, decode, encode, struct, vec } from '../codec/schema.ts';
import { blake2b256, tag } from '../crypto/blake2b.ts';
import { ed25519Verify } from '../crypto/ed25519.ts';
import {
  decodeSignedTx,
  encodeSignedTx,
  type SignedMantleTx,
  signedMantleTx,
  signedTxToApiJson,
  txHash,
} from '../mantle/tx.ts';
import {
  encodeHeader,
  HEADER_BYTES,
  type Header,
  header,
  headerId,
  headerToApiJson,
  SIGNED_HEADER_BYTES,
  type SignedHeader,
  signedHeader,
  signedHeaderToApiJson,
} from './header.ts';
import { txMerkleRoot } from './merkle.ts';

export const MAX_BLOCK_TRANSACTIONS = 1024;
export const MAX_BLOCK_TRANSACTIONS_SIZE = 2 * 1024 * 1024;
export const MAX_UNCLES = 4;
/**
 * An upper bound of a valid block's encoding: the header and its signature, the most uncle headers,
 * the most transactions' length prefixes and their bytes, and 64 bytes for the counts. Nothing longer
 * can be a valid block, so nothing longer is read from a peer as one.
 */
export const MAX_BLOCK_BYTES =
  SIGNED_HEADER_BYTES +
  MAX_UNCLES * SIGNED_HEADER_BYTES +
  MAX_BLOCK_TRANSACTIONS * 8 +
  MAX_BLOCK_TRANSACTIONS_SIZE +
  64;

export interface Block {
  header: Header;
  signature: Uint8Array;
  uncle_headers: SignedHeader[];
  transactions: SignedMantleTx[];
}

/** Uncle headers in the wire codec (u8 count): the form `body_root` commits to. */
export const uncleHeaders = vec(signedHeader, 0, MAX_UNCLES);

/** The core JSON form `{header, signature, uncle_headers, transactions}`. */
const blockJson = struct<Block>('a block', {
  header,
  signature: ed25519Signature,
  uncle_headers: uncleHeaders,
  transactions: vec(signedMantleTx, 0, MAX_BLOCK_TRANSACTIONS),
});

const SIGNATURE_BYTES = 64;
const U64_BYTES = 8;

/** A bincode sequence length (u64), checked against the static maximum and the bytes left. */
function readCount(r: Reader, max: number, minItemBytes: number): number {
  const n = r.u64();
  if (n > BigInt(max)) throw new DecodeError(`length ${n} exceeds static maximum ${max}`);
  const count = Number(n);
  if (count * minItemBytes > r.remaining) {
    throw new DecodeError(
      `length ${count} needs at least ${count * minItemBytes} bytes, ${r.remaining} left`,
    );
  }
  return count;
}

/** bincode `Block<SignedMantleTx>`; JSON as `blockJson`. F: core/src/block/mod.rs (serde derive). */
export const block: Codec<Block> = {
  kind: blockJson.kind,
  write(w, b) {
    if (b.uncle_headers.length > MAX_UNCLES) throw new EncodeError(`${b.uncle_headers.length} uncle headers`);
    if (b.transactions.length > MAX_BLOCK_TRANSACTIONS)
      throw new EncodeError(`${b.transactions.length} transactions`);
    header.write(w, b.header);
    ed25519Signature.write(w, b.signature);
    w.u64(BigInt(b.uncle_headers.length));
    for (const u of b.uncle_headers) signedHeader.write(w, u);
    w.u64(BigInt(b.transactions.length));
    for (const t of b.transactions) {
      // A transaction is serialized as its binary encoding in a byte sequence (u64 length first).
      const bytes = encodeSignedTx(t);
      w.u64(BigInt(bytes.length));
      w.bytes(bytes);
    }
  },
  read(r) {
    const h = within('header', () => header.read(r));
    const signature = within('signature', () => ed25519Signature.read(r));
    const uncles = within('uncle_headers', () => {
      const n = readCount(r, MAX_UNCLES, SIGNED_HEADER_BYTES);
      const out: SignedHeader[] = [];
      for (let i = 0; i < n; i++) out.push(within(i, () => signedHeader.read(r)));
      return out;
    });
    const transactions = within('transactions', () => {
      const n = readCount(r, MAX_BLOCK_TRANSACTIONS, U64_BYTES);
      const out: SignedMantleTx[] = [];
      for (let i = 0; i < n; i++) {
        out.push(
          within(i, () => {
            const len = r.u64();
            if (len > BigInt(r.remaining))
              throw new DecodeError(`transaction length ${len} exceeds the ${r.remaining} bytes left`);
            // Every byte of the sequence must belong to the transaction.
            return decodeSignedTx(r.bytes(Number(len)));
          }),
        );
      }
      return out;
    });
    return { header: h, signature, uncle_headers: uncles, transactions };
  },
  toJson: (b) => blockJson.toJson(b),
  fromJson: (j) => blockJson.fromJson(j),
};

/** Size of the bincode form of an empty block: header, signature and the two u64 counts. */
export const EMPTY_BLOCK_BYTES = HEADER_BYTES + SIGNATURE_BYTES + 2 * U64_BYTES;

export function encodeBlock(b: Block): Uint8Array {
  return encode(block, b, 1024);
}

/** Decodes the bincode form; trailing bytes are an error. */
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

/**
 * The checks a genesis block passes when read (`GenesisBlock`'s deserializer): slot 0, no uncles,
 * exactly one transaction, and a body root matching it. Its signature is all zeros and not checked.
 * F: core/src/block/genesis.rs
 */
export function checkGenesisBlock(b: Block): void {
  if (b.header.slot !== 0n) throw new BlockError('BLOCK_GENESIS_SLOT', 'expected genesis slot');
  if (b.uncle_headers.length !== 0)
    throw new BlockError('BLOCK_GENESIS_UNCLES', 'genesis block must not reference uncles');
  if (b.transactions.length !== 1)
    throw new BlockError('BLOCK_GENESIS_TX_COUNT', 'genesis block must contain exactly one transaction');
  if (!bytesEqual(blockBodyRoot(b), b.header.body_root)) {
    throw new BlockError('BLOCK_BAD_BODY_ROOT', 'Body root mismatch: calculated body does not match header');
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
