/**
 * Block proposals, what the block topic carries instead of whole blocks (F `core/src/block/mod.rs`
 * `Proposal`): `header 297 ‖ uncle headers (u8 count ‖ 361-byte signed headers, at most 4)
 * ‖ references (u16 LE count ‖ 16-byte tx-hash prefixes, at most 1024, in block order) ‖ signature 64`,
 * at most 18,192 bytes, trailing bytes refused. A receiver checks the header on its own first, then
 * resolves each reference against its mempool and rebuilds the block, whose body root must match.
 * Pure: no I/O.
 */
import {
  type Block,
  BlockError,
  checkBlockStructure,
  MAX_BLOCK_TRANSACTIONS,
  MAX_UNCLES,
  uncleHeaders,
} from '../../block/block.ts';
import {
  encodeHeader,
  HEADER_BYTES,
  type Header,
  header,
  SIGNED_HEADER_BYTES,
  type SignedHeader,
} from '../../block/header.ts';
import { DecodeError } from '../../codec/errors.ts';
import { bytesToHex } from '../../codec/hex.ts';
import { ed25519Signature } from '../../codec/primitives.ts';
import { decode, encode, fixedBytes, struct, vec } from '../../codec/schema.ts';
import { ed25519Verify } from '../../crypto/ed25519.ts';
import { type SignedMantleTx, txHash } from '../../mantle/tx.ts';
import { WireError } from './errors.ts';
import { ProposalError } from './proposal-errors.ts';

/** Bytes of a tx hash a reference keeps (F `REFERENCE_PREFIX_BYTES`). */
export const REFERENCE_PREFIX_BYTES = 16;
const SIGNATURE_BYTES = 64;

/**
 * The largest proposal: 297 + (1 + 4 × 361) + (2 + 1024 × 16) + 64 = 18,192 bytes (F test
 * `maximum_proposal_matches_the_specified_size`).
 */
export const MAX_PROPOSAL_BYTES =
  HEADER_BYTES +
  1 +
  MAX_UNCLES * SIGNED_HEADER_BYTES +
  2 +
  MAX_BLOCK_TRANSACTIONS * REFERENCE_PREFIX_BYTES +
  SIGNATURE_BYTES;

export interface Proposal {
  header: Header;
  uncle_headers: SignedHeader[];
  /** `references.mempool_transactions`: the first 16 bytes of each transaction's hash, in block order. */
  references: Uint8Array[];
  signature: Uint8Array;
}

const txHashPrefix = fixedBytes(REFERENCE_PREFIX_BYTES, 'hex', 'a 16-byte transaction hash prefix');

/** BinaryCodec of `Proposal` (the `References` struct has one field, so it encodes as its list). */
export const proposal = struct<Proposal>('a block proposal', {
  header,
  uncle_headers: uncleHeaders,
  references: vec(txHashPrefix, 0, MAX_BLOCK_TRANSACTIONS),
  signature: ed25519Signature,
});

export function encodeProposal(p: Proposal): Uint8Array {
  return encode(
    proposal,
    p,
    HEADER_BYTES + SIGNATURE_BYTES + 3 + p.references.length * REFERENCE_PREFIX_BYTES,
  );
}

/** Decodes a proposal received from a peer (F `Proposal::decode_all`); throws {@link WireError}. */
export function decodeProposal(bytes: Uint8Array): Proposal {
  if (bytes.length > MAX_PROPOSAL_BYTES) {
    throw new WireError(
      'WIRE_TOO_LARGE',
      `${bytes.length} bytes exceed the maximum of ${MAX_PROPOSAL_BYTES}`,
      {
        message: 'Proposal',
        size: bytes.length,
        limit: MAX_PROPOSAL_BYTES,
      },
    );
  }
  try {
    return decode(proposal, bytes);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    throw new WireError('WIRE_MALFORMED', e.message, { message: 'Proposal' }, e);
  }
}

/** The first 16 bytes of a transaction hash (F `TxHash::prefix`). */
export function txHashPrefixOf(hash: Uint8Array): Uint8Array {
  return hash.slice(0, REFERENCE_PREFIX_BYTES);
}

/** The proposal of a block (F `Block::to_proposal`). */
export function toProposal(b: Block): Proposal {
  return {
    header: b.header,
    uncle_headers: b.uncle_headers,
    references: b.transactions.map((t) => txHashPrefixOf(txHash(t.mantle_tx))),
    signature: b.signature,
  };
}

/**
 * The checks the header and its signature settle on their own (F `verify_header_alone`): the slot is
 * not the genesis slot and the leader key signed the header. Throws {@link ProposalError}.
 */
export function verifyHeaderAlone(h: Header, signature: Uint8Array): void {
  if (h.slot === 0n) {
    throw new ProposalError('PROPOSAL_INVALID_HEADER', 'Expected a non-genesis slot', {
      meta: { reason: 'GenesisSlot' },
    });
  }
  if (!ed25519Verify(h.proof_of_leadership.leader_key, encodeHeader(h), signature)) {
    throw new ProposalError('PROPOSAL_INVALID_HEADER', 'the leader signature over the header is invalid', {
      meta: { reason: 'Signature' },
    });
  }
}

/** Pending transactions whose hash starts with a 16-byte prefix (the mempool's prefix index). */
export type PrefixLookup = (prefix: Uint8Array) => readonly SignedMantleTx[];

/**
 * Rebuilds the block of a proposal from local transactions (F `reconstruct_block_from_proposal`): each
 * reference must match exactly one transaction (none: `PROPOSAL_UNRESOLVED_REFERENCE`, several:
 * `PROPOSAL_COLLIDING_REFERENCE`, never searched further), then the block must pass `Block::reconstruct`'s
 * checks (slot, signature, transaction bytes, and the body root over the full hashes), else
 * `PROPOSAL_NO_MATCHING_RECONSTRUCTION`. Throws {@link ProposalError}.
 */
export function reconstruct(p: Proposal, lookup: PrefixLookup): Block {
  const transactions: SignedMantleTx[] = [];
  for (let index = 0; index < p.references.length; index++) {
    const prefix = p.references[index]!;
    const found = lookup(prefix);
    if (found.length === 0) {
      throw new ProposalError(
        'PROPOSAL_UNRESOLVED_REFERENCE',
        `reference ${index} matches no local transaction`,
        {
          meta: { index, prefix: bytesToHex(prefix) },
        },
      );
    }
    if (found.length > 1) {
      throw new ProposalError(
        'PROPOSAL_COLLIDING_REFERENCE',
        `reference ${index} matches ${found.length} local transactions`,
        { meta: { index, prefix: bytesToHex(prefix) } },
      );
    }
    transactions.push(found[0]!);
  }
  const block: Block = {
    header: p.header,
    signature: p.signature,
    uncle_headers: p.uncle_headers,
    transactions,
  };
  try {
    checkBlockStructure(block);
  } catch (e) {
    if (!(e instanceof BlockError)) throw e;
    throw new ProposalError(
      'PROPOSAL_NO_MATCHING_RECONSTRUCTION',
      `the referenced transactions do not make the block: ${e.message}`,
      { cause: e, meta: { blockCode: e.code } },
    );
  }
  return block;
}
