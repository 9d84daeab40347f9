/**
 * A checkpoint: the ledger state after an immutable block, with that block, so that a node can start
 * from it instead of replaying the chain from genesis (this node's own format; the reference has
 * none). Pure: encoding, decoding and the checks, no I/O.
 *
 * What a checkpoint trusts: whoever made it, for the state (the notes, channels, declarations and
 * epoch data at the block). What the node still checks: the content hash (the file or the transfer
 * is whole), the genesis (the same chain), the block's id (its header hashes to it), and, with the
 * first block applied on it, the state itself: that block's proof of leadership commits to the UTXO
 * roots of the state it extends (`aged_root`, `latest_root`), so a state whose notes differ is refused
 * there. Every block after the checkpoint is verified in full.
 *
 * Format (integers little-endian):
 *
 *   16 B magic `LOGOS-CHECKPOINT`, u32 version (= 1)
 *   32 B genesis block id, 32 B block id, u64 slot, u64 height
 *   u32 n, n B the block (its bincode form, as chain sync sends it)
 *   u32 n, n B the ledger state after it (ledger/snapshot.ts)
 *   32 B content hash: Blake2b-256 of every byte before it
 */
import { type Block, decodeBlock } from '../block/block.ts';
import { headerId } from '../block/header.ts';
import { Reader, Writer } from '../codec/binary.ts';
import { DecodeError } from '../codec/errors.ts';
import { bytesEqual, bytesToHex } from '../codec/hex.ts';
import { blake2b256 } from '../crypto/blake2b.ts';
import { decodeLedgerState } from '../ledger/snapshot.ts';
import type { LedgerState } from '../ledger/state.ts';

const MAGIC = new TextEncoder().encode('LOGOS-CHECKPOINT');
const VERSION = 1;
/** The largest block a checkpoint carries (a block's bincode form is far smaller). */
const MAX_BLOCK_BYTES = 4 << 20;
/**
 * The largest state a checkpoint carries, checked before anything is allocated (with its block, within
 * the 512 MiB a node fetches from peers, sync/checkpoint-protocol.ts).
 */
export const MAX_CHECKPOINT_STATE_BYTES = (512 - 8) << 20;

export interface Checkpoint {
  readonly genesis: Uint8Array;
  readonly id: Uint8Array;
  readonly slot: bigint;
  readonly height: bigint;
  /** The block's bincode bytes. */
  readonly block: Uint8Array;
  /** The encoded ledger state after the block. */
  readonly state: Uint8Array;
}

/** What a checkpoint says of itself, readable without decoding its state. */
export interface CheckpointSummary {
  readonly genesis: Uint8Array;
  readonly id: Uint8Array;
  readonly slot: bigint;
  readonly height: bigint;
  /** Blake2b-256 of the content (the file's last 32 bytes). */
  readonly hash: Uint8Array;
  /** The whole file's length. */
  readonly bytes: number;
}

// inferred: this node's own format; the reference has none (docs/design/fidelity.md "Checkpoints")
export function encodeCheckpoint(c: Checkpoint): Uint8Array {
  const w = new Writer(c.state.length + c.block.length + 256);
  w.bytes(MAGIC);
  w.u32(VERSION);
  w.bytes(c.genesis);
  w.bytes(c.id);
  w.u64(c.slot);
  w.u64(c.height);
  w.u32(c.block.length);
  w.bytes(c.block);
  w.u32(c.state.length);
  w.bytes(c.state);
  const content = w.finish();
  const out = new Uint8Array(content.length + 32);
  out.set(content);
  out.set(blake2b256(content), content.length);
  return out;
}

function header(r: Reader): { genesis: Uint8Array; id: Uint8Array; slot: bigint; height: bigint } {
  if (!bytesEqual(r.bytes(MAGIC.length), MAGIC))
    throw new DecodeError('not a checkpoint (no LOGOS-CHECKPOINT magic)');
  const version = r.u32();
  if (version !== VERSION)
    throw new DecodeError(`unsupported checkpoint version ${version} (this node reads ${VERSION})`);
  return { genesis: r.bytes(32), id: r.bytes(32), slot: r.u64(), height: r.u64() };
}

/** The summary of a checkpoint's bytes (its header and hash), without checking the hash. */
export function checkpointSummary(bytes: Uint8Array): CheckpointSummary {
  if (bytes.length < MAGIC.length + 4 + 80 + 32) throw new DecodeError('not a checkpoint (too short)');
  const h = header(new Reader(bytes.subarray(0, MAGIC.length + 4 + 80)));
  return { ...h, hash: bytes.slice(bytes.length - 32), bytes: bytes.length };
}

/**
 * Decodes and checks a checkpoint: its content hash, its block (which must hash to its id and sit at
 * its slot), its state (decodable, at the block's slot). Throws `DecodeError` saying what is wrong.
 */
export function decodeCheckpoint(
  bytes: Uint8Array,
): Checkpoint & { readonly decodedBlock: Block; readonly decodedState: LedgerState } {
  const summary = checkpointSummary(bytes);
  const content = bytes.subarray(0, bytes.length - 32);
  if (!bytesEqual(blake2b256(content), summary.hash))
    throw new DecodeError('the checkpoint is damaged: its content does not hash to the hash it ends with');
  const r = new Reader(content);
  const h = header(r);
  const blockLen = r.u32();
  if (blockLen > MAX_BLOCK_BYTES) throw new DecodeError(`checkpoint block of ${blockLen} bytes is too large`);
  const block = r.bytes(blockLen);
  const stateLen = r.u32();
  if (stateLen > MAX_CHECKPOINT_STATE_BYTES)
    throw new DecodeError(`checkpoint state of ${stateLen} bytes is too large`);
  const state = r.bytes(stateLen);
  r.end();
  const decodedBlock = decodeBlock(block);
  const id = headerId(decodedBlock.header);
  if (!bytesEqual(id, h.id))
    throw new DecodeError(
      `the checkpoint's block hashes to ${bytesToHex(id)}, not to its id ${bytesToHex(h.id)}`,
    );
  if (decodedBlock.header.slot !== h.slot)
    throw new DecodeError(`the checkpoint's block is at slot ${decodedBlock.header.slot}, not ${h.slot}`);
  const decodedState = decodeLedgerState(state);
  if (decodedState.slot !== h.slot)
    throw new DecodeError(
      `the checkpoint's state is at slot ${decodedState.slot}, not at its block's ${h.slot}`,
    );
  return { ...h, block, state, decodedBlock, decodedState };
}
