/**
 * The chain-sync wire messages (F `consensus/cryptarchia-sync/src/{messages.rs,libp2p/messages.rs}`), each
 * the bincode form carried in one u32-LE-framed message (the framing is the network adapter's job):
 * - `RequestMessage`: `0 DownloadBlocksRequest { target_block [32], known_blocks { local_tip [32],
 *   latest_immutable_block [32], additional_blocks: u64 count ‖ [32]×n (≤ 5, unique) } }` | `1 GetTip`;
 * - `GetTipResponse`: `0 Tip { tip [32], slot u64, height u64 }` | `1 Failure(String)`;
 * - `DownloadBlocksResponse`: `0 Block(u64 len ‖ block bytes)` | `1 NoMoreBlocks` |
 *   `2 Failure(0 BlockNotFound([32]) | 1 StartBlockNotFound | 2 Unknown(String))`.
 * Enum tags are u32 LE, sequences and strings u64 LE length first. Every length is checked against the
 * bytes left and its cap before anything is allocated; trailing bytes are refused. Block bytes are the
 * bincode form of a block (`block/block.ts`), decoded by the receiver.
 */
import { Reader, Writer } from '../../codec/binary.ts';
import { DecodeError } from '../../codec/errors.ts';
import { WireError } from './errors.ts';

const ID = 32;

/** F `MAX_ADDITIONAL_BLOCKS` (libp2p/provider.rs). */
export const MAX_ADDITIONAL_BLOCKS = 5;
/** Largest chain-sync frame, either way (F `libp2p/packing.rs`: 16 MiB). */
export const MAX_SYNC_FRAME_BYTES = 16 * 1024 * 1024;
/** Largest valid request: a download request with 5 additional blocks (268 bytes). */
export const MAX_REQUEST_BYTES = 4 + 3 * ID + 8 + MAX_ADDITIONAL_BLOCKS * ID;
/** Largest failure text accepted from a peer (inferred: F bounds it only by the frame). */
export const MAX_FAILURE_TEXT_BYTES = 64 * 1024;

export interface KnownBlocks {
  readonly local_tip: Uint8Array;
  readonly latest_immutable_block: Uint8Array;
  /** At most 5, unique. */
  readonly additional_blocks: readonly Uint8Array[];
}

export type RequestMessage =
  | {
      readonly kind: 'DownloadBlocksRequest';
      readonly target_block: Uint8Array;
      readonly known_blocks: KnownBlocks;
    }
  | { readonly kind: 'GetTip' };

export type GetTipResponse =
  | { readonly kind: 'Tip'; readonly tip: Uint8Array; readonly slot: bigint; readonly height: bigint }
  | { readonly kind: 'Failure'; readonly reason: string };

export type BlocksUnavailableReason =
  | { readonly kind: 'BlockNotFound'; readonly id: Uint8Array }
  | { readonly kind: 'StartBlockNotFound' }
  | { readonly kind: 'Unknown'; readonly text: string };

export type DownloadBlocksResponse =
  | { readonly kind: 'Block'; readonly bytes: Uint8Array }
  | { readonly kind: 'NoMoreBlocks' }
  | { readonly kind: 'Failure'; readonly reason: BlocksUnavailableReason };

// ---------------------------------------------------------------- encoding

function writeString(w: Writer, s: string): void {
  const b = new TextEncoder().encode(s);
  w.u64(BigInt(b.length));
  w.bytes(b);
}

function writeId(w: Writer, id: Uint8Array): void {
  if (id.length !== ID)
    throw new WireError('WIRE_MALFORMED', `an id of ${id.length} bytes`, { message: 'id' });
  w.bytes(id);
}

export function encodeRequest(m: RequestMessage): Uint8Array {
  const w = new Writer(64);
  if (m.kind === 'GetTip') {
    w.u32(1);
    return w.finish();
  }
  const kb = m.known_blocks;
  if (kb.additional_blocks.length > MAX_ADDITIONAL_BLOCKS)
    throw new WireError('WIRE_TOO_LARGE', `${kb.additional_blocks.length} additional blocks`, {
      message: 'RequestMessage',
    });
  w.u32(0);
  writeId(w, m.target_block);
  writeId(w, kb.local_tip);
  writeId(w, kb.latest_immutable_block);
  w.u64(BigInt(kb.additional_blocks.length));
  for (const id of kb.additional_blocks) writeId(w, id);
  return w.finish();
}

export function encodeTipResponse(m: GetTipResponse): Uint8Array {
  const w = new Writer(64);
  if (m.kind === 'Tip') {
    w.u32(0);
    writeId(w, m.tip);
    w.u64(m.slot);
    w.u64(m.height);
  } else {
    w.u32(1);
    writeString(w, m.reason);
  }
  return w.finish();
}

export function encodeBlocksResponse(m: DownloadBlocksResponse): Uint8Array {
  const w = new Writer(m.kind === 'Block' ? m.bytes.length + 12 : 64);
  if (m.kind === 'Block') {
    w.u32(0);
    w.u64(BigInt(m.bytes.length));
    w.bytes(m.bytes);
  } else if (m.kind === 'NoMoreBlocks') {
    w.u32(1);
  } else {
    w.u32(2);
    const r = m.reason;
    if (r.kind === 'BlockNotFound') {
      w.u32(0);
      writeId(w, r.id);
    } else if (r.kind === 'StartBlockNotFound') {
      w.u32(1);
    } else {
      w.u32(2);
      writeString(w, r.text);
    }
  }
  return w.finish();
}

// ---------------------------------------------------------------- decoding

/** Runs a decoder over the whole input, turning every decode failure into a typed `WireError`. */
function decodeAll<T>(bytes: Uint8Array, message: string, fn: (r: Reader) => T): T {
  if (bytes.length > MAX_SYNC_FRAME_BYTES)
    throw new WireError('WIRE_TOO_LARGE', `${bytes.length} bytes`, { message });
  const r = new Reader(bytes);
  try {
    const v = fn(r);
    r.end();
    return v;
  } catch (e) {
    if (e instanceof WireError) throw e;
    if (e instanceof DecodeError) throw new WireError('WIRE_MALFORMED', e.message, { message }, e);
    throw e;
  }
}

function tag(r: Reader, max: number, message: string): number {
  const t = r.u32();
  if (t > max) throw new WireError('WIRE_MALFORMED', `unknown variant ${t}`, { message });
  return t;
}

/** A u64 length checked against the bytes left and a cap (before anything is allocated). */
function length(r: Reader, cap: number, message: string, itemBytes = 1): number {
  const n = r.u64();
  if (n > BigInt(cap)) throw new WireError('WIRE_TOO_LARGE', `length ${n} above ${cap}`, { message });
  const len = Number(n);
  if (len * itemBytes > r.remaining)
    throw new WireError('WIRE_MALFORMED', `length ${len} exceeds the ${r.remaining} bytes left`, { message });
  return len;
}

function readString(r: Reader, message: string): string {
  const n = length(r, MAX_FAILURE_TEXT_BYTES, message);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(r.bytes(n));
  } catch {
    throw new WireError('WIRE_MALFORMED', 'a string that is not UTF-8', { message });
  }
}

const copyId = (r: Reader): Uint8Array => r.bytes(ID).slice();

export function decodeRequest(bytes: Uint8Array): RequestMessage {
  const M = 'RequestMessage';
  return decodeAll(bytes, M, (r) => {
    if (tag(r, 1, M) === 1) return { kind: 'GetTip' };
    const target_block = copyId(r);
    const local_tip = copyId(r);
    const latest_immutable_block = copyId(r);
    const n = length(r, MAX_ADDITIONAL_BLOCKS, M, ID);
    const additional_blocks: Uint8Array[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const id = copyId(r);
      const key = Buffer.from(id).toString('hex');
      if (seen.has(key))
        throw new WireError('WIRE_MALFORMED', 'additional_blocks contains duplicate block identifiers', {
          message: M,
        });
      seen.add(key);
      additional_blocks.push(id);
    }
    return {
      kind: 'DownloadBlocksRequest',
      target_block,
      known_blocks: { local_tip, latest_immutable_block, additional_blocks },
    };
  });
}

export function decodeTipResponse(bytes: Uint8Array): GetTipResponse {
  const M = 'GetTipResponse';
  return decodeAll(bytes, M, (r) => {
    if (tag(r, 1, M) === 1) return { kind: 'Failure', reason: readString(r, M) };
    const tip = copyId(r);
    const slot = r.u64();
    const height = r.u64();
    return { kind: 'Tip', tip, slot, height };
  });
}

/** `maxBlockBytes` caps the block bytes of a `Block` response (below the frame size). */
export function decodeBlocksResponse(
  bytes: Uint8Array,
  maxBlockBytes = MAX_SYNC_FRAME_BYTES,
): DownloadBlocksResponse {
  const M = 'DownloadBlocksResponse';
  return decodeAll(bytes, M, (r) => {
    const t = tag(r, 2, M);
    if (t === 0) {
      const n = length(r, maxBlockBytes, M);
      return { kind: 'Block', bytes: r.bytes(n) };
    }
    if (t === 1) return { kind: 'NoMoreBlocks' };
    const rt = tag(r, 2, `${M}.Failure`);
    if (rt === 0) return { kind: 'Failure', reason: { kind: 'BlockNotFound', id: copyId(r) } };
    if (rt === 1) return { kind: 'Failure', reason: { kind: 'StartBlockNotFound' } };
    return { kind: 'Failure', reason: { kind: 'Unknown', text: readString(r, M) } };
  });
}

/** F's text of a reason (`BlocksUnavailableReason`'s Display), for logs. */
export function reasonText(r: BlocksUnavailableReason): string {
  if (r.kind === 'BlockNotFound') return `Block not found: ${Buffer.from(r.id).toString('hex')}`;
  if (r.kind === 'StartBlockNotFound') return 'Start block not found';
  return `Unknown: ${r.text}`;
}
