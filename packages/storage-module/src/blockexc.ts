/**
 * The block exchange between storage nodes (operator.md §3.1 "block-exchange protocol over libp2p
 * TCP", §6.2 "network fetch between two TS nodes"). The reference speaks Codex's protobuf
 * block-exchange (want lists, presence, blocks with Merkle proofs); this node speaks a small
 * request/response protocol of its own on libp2p streams, shaped so that those messages could
 * replace it:
 * inferred: protocol id `/logos-storage/blockexc/1.0.0` and its frames, none of them the reference's.
 *
 * Frames are a u32 little-endian length and the bytes (as the node's request/response framing, through
 * the shared framing). A requester opens a stream, sends up to 64 want frames (`u8 kind ‖ CID
 * bytes`: kind 1 a block by its CID, manifests included; kind 2 the leaves of a dataset tree, by tree
 * CID), closes its side and reads one answer frame per want, in order: `0x00 ‖ bytes` (have) or
 * `0x01` (don't have). Every length is checked before anything is allocated; a peer sending a
 * malformed frame is disconnected.
 * What an answer holds is verified by the caller (a block against its CID's hash, leaves against the
 * tree root) before anything is stored.
 */
import type { Connection, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { type FrameFormat, FrameReader as Frames, encodeFrame as frame } from '@logos-ts/shared/framing';
import type { Libp2p } from 'libp2p';
import { CID } from 'multiformats/cid';
import type { Logger } from 'pino';
import type { BlockStore } from './blockstore.ts';
import { BLOCK_CODEC, MANIFEST_CODEC, ROOT_CODEC } from './cid.ts';
import { BadPeer, StorageModuleError } from './errors.ts';

export const BLOCKEXC_PROTOCOL = '/logos-storage/blockexc/1.0.0';
export const KIND_BLOCK = 1;
export const KIND_LEAVES = 2;
const HAVE = 0;
const DONT_HAVE = 1;
/** Wants per stream. */
export const MAX_WANTS = 64;
/** A want: kind byte and a CIDv1 (at most 2 + 3 + 2 + 32 bytes for ours). */
const MAX_WANT_BYTES = 128;
/** The largest block this node stores or accepts (its largest chunk size). */
export const MAX_BLOCK_BYTES = 8 * 1024 * 1024;
/** The largest leaves answer: 2^19 blocks (32 GiB of 64 KiB blocks). */
export const MAX_LEAVES_BYTES = 16 * 1024 * 1024 - 1;
const FRAME_TIMEOUT_MS = 30_000;
/** The frames' own limit: the largest answer (a leaves answer and its kind byte). */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const badFrame = (message: string): StorageModuleError =>
  new StorageModuleError('STORAGE_MODULE_BAD_FRAME', message);

/** The block exchange's frames: a u32 little-endian length, then the bytes. */
const BLOCKEXC_FRAMES: FrameFormat = {
  prefix: 'u32le',
  maxBytes: MAX_FRAME_BYTES,
  tooLarge: (length, limit) => badFrame(`frame of ${length} bytes exceeds the limit of ${limit} bytes`),
  truncated: (what) => badFrame(`stream ended inside a frame's ${what}`),
};

const encodeFrame = (data: Uint8Array): Uint8Array => frame(BLOCKEXC_FRAMES, data);

/** Reads block exchange frames of at most `maxBytes`, each within the frame timeout. */
class FrameReader extends Frames {
  constructor(source: AsyncIterable<Uint8Array | { subarray(): Uint8Array }>, maxBytes: number) {
    super(source, BLOCKEXC_FRAMES, {
      maxBytes,
      timeout: {
        ms: FRAME_TIMEOUT_MS,
        error: (ms) => new StorageModuleError('STORAGE_MODULE_FRAME_TIMEOUT', `no frame within ${ms} ms`),
      },
    });
  }
}

export interface Want {
  readonly kind: typeof KIND_BLOCK | typeof KIND_LEAVES;
  readonly cid: CID;
}

function encodeWant(w: Want): Uint8Array {
  const out = new Uint8Array(1 + w.cid.bytes.length);
  out[0] = w.kind;
  out.set(w.cid.bytes, 1);
  return out;
}

/** Decodes a want; throws on anything but a storage CID of the kind's codec. */
export function decodeWant(frame: Uint8Array): Want {
  const kind = frame[0];
  if (kind !== KIND_BLOCK && kind !== KIND_LEAVES)
    throw new StorageModuleError('STORAGE_MODULE_BAD_WANT', `unknown want kind ${kind}`);
  const cid = CID.decode(frame.subarray(1));
  const ok =
    kind === KIND_LEAVES ? cid.code === ROOT_CODEC : cid.code === BLOCK_CODEC || cid.code === MANIFEST_CODEC;
  if (!ok || cid.version !== 1)
    throw new StorageModuleError('STORAGE_MODULE_BAD_WANT', 'want of a CID of the wrong codec');
  return { kind, cid };
}

function answer(found: Uint8Array | undefined): Uint8Array {
  if (found === undefined) return Uint8Array.of(DONT_HAVE);
  const out = new Uint8Array(1 + found.length);
  out[0] = HAVE;
  out.set(found, 1);
  return out;
}

async function sendFrame(stream: Stream, data: Uint8Array): Promise<void> {
  if (!stream.send(encodeFrame(data)))
    await stream.onDrain({ signal: AbortSignal.timeout(FRAME_TIMEOUT_MS) });
}

/**
 * Serves the protocol from `store`. A peer sending a malformed, excess or late want is
 * disconnected; a failure on this side (a read error, an answer too large to send) is answered
 * "don't have" and never blamed on the peer; a send that fails ends only that stream.
 */
export async function serveBlockExchange(node: Libp2p, store: () => BlockStore | undefined, log: Logger) {
  await node.handle(
    BLOCKEXC_PROTOCOL,
    async (stream: Stream, connection: Connection) => {
      const peer = connection.remotePeer.toString();
      const reader = new FrameReader(stream, MAX_WANT_BYTES);
      try {
        for (let n = 0; ; n++) {
          let want: Want;
          try {
            const frame = await reader.next();
            if (frame === undefined) break;
            if (n >= MAX_WANTS)
              throw new StorageModuleError(
                'STORAGE_MODULE_BAD_WANT',
                `more than ${MAX_WANTS} wants on one stream`,
              );
            want = decodeWant(frame);
          } catch (e) {
            throw new BadPeer(peer, (e as Error).message);
          }
          await sendFrame(stream, answer(await lookup(store(), want, log)));
        }
        await stream.close({ signal: AbortSignal.timeout(FRAME_TIMEOUT_MS) });
      } catch (e) {
        stream.abort(e as Error);
        if (e instanceof BadPeer) {
          log.debug({ peer, err: e.message }, 'block exchange request refused; peer disconnected');
          await node.hangUp(connection.remotePeer).catch(() => {});
        } else log.debug({ peer, err: (e as Error).message }, 'block exchange stream ended');
      } finally {
        reader.close();
      }
    },
    { maxInboundStreams: 32 },
  );
}

/** What this node has for `want`, if it can be sent: a local failure is "don't have". */
async function lookup(s: BlockStore | undefined, want: Want, log: Logger): Promise<Uint8Array | undefined> {
  if (s === undefined) return undefined;
  try {
    if (want.kind === KIND_BLOCK) {
      const block = await s.get(want.cid);
      return block !== undefined && block.length <= MAX_BLOCK_BYTES ? block : undefined;
    }
    const leaves = await s.getLeaves(want.cid);
    if (leaves === undefined) return undefined;
    if (leaves.length * 32 > MAX_LEAVES_BYTES) {
      log.debug({ count: leaves.length }, 'block exchange: a leaves list too large to send');
      return undefined;
    }
    return joinLeaves(leaves);
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'block exchange: reading the repository failed');
    return undefined;
  }
}

function joinLeaves(leaves: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(leaves.length * 32);
  for (const [i, l] of leaves.entries()) out.set(l, i * 32);
  return out;
}

/**
 * Asks `peer` for `wants` (at most `MAX_WANTS`); answers in order, `undefined` for "don't have".
 * Throws `BadPeer` (after disconnecting the peer) on a malformed answer; other errors (dial, timeout)
 * pass through.
 */
export async function requestWants(
  node: Libp2p,
  peer: string,
  wants: readonly Want[],
  signal?: AbortSignal,
): Promise<(Uint8Array | undefined)[]> {
  if (wants.length > MAX_WANTS)
    throw new StorageModuleError('STORAGE_MODULE_BAD_WANT', `at most ${MAX_WANTS} wants per request`);
  const stream = await node.dialProtocol(peerIdFromString(peer), BLOCKEXC_PROTOCOL, {
    signal: signal ?? AbortSignal.timeout(FRAME_TIMEOUT_MS),
  });
  const limit =
    Math.max(...wants.map((w) => (w.kind === KIND_BLOCK ? MAX_BLOCK_BYTES : MAX_LEAVES_BYTES))) + 1;
  const reader = new FrameReader(stream, limit);
  const out: (Uint8Array | undefined)[] = [];
  try {
    for (const w of wants) await sendFrame(stream, encodeWant(w));
    await stream.close({ signal: AbortSignal.timeout(FRAME_TIMEOUT_MS) });
    for (const w of wants) {
      signal?.throwIfAborted();
      let frame: Uint8Array | undefined;
      try {
        frame = await reader.next();
      } catch (e) {
        if (e instanceof StorageModuleError && e.code === 'STORAGE_MODULE_BAD_FRAME')
          throw new BadPeer(peer, e.message);
        throw e;
      }
      if (frame === undefined || frame.length === 0) throw new BadPeer(peer, 'missing answer');
      const max = w.kind === KIND_BLOCK ? MAX_BLOCK_BYTES : MAX_LEAVES_BYTES;
      if (frame[0] === DONT_HAVE && frame.length === 1) out.push(undefined);
      else if (frame[0] === HAVE && frame.length > 1 && frame.length - 1 <= max) out.push(frame.subarray(1));
      else throw new BadPeer(peer, 'malformed answer');
    }
    return out;
  } catch (e) {
    stream.abort(e as Error);
    if (e instanceof BadPeer) await node.hangUp(peerIdFromString(peer)).catch(() => {});
    throw e;
  } finally {
    reader.close();
  }
}
