/**
 * The checkpoint protocol, this node's own (`/logos-ts/checkpoint/1.0.0`; the reference has none): a
 * peer serves the checkpoint of its LIB (chain/checkpoint.ts) so that a new node can start from it.
 *
 * Request (one frame): u8 kind (0: the summary, 1: the whole checkpoint), u8 has id, [32 B block id]
 * (none: the peer's LIB). Response: kind 0, one frame: u8 status (0: here, 1: not here), then 32 B
 * genesis, 32 B block id, u64 slot, u64 height, 32 B content hash, u64 length; kind 1: status 0 with
 * the same summary, then the checkpoint's bytes in frames of at most 1 MiB, or status 1 alone.
 *
 * Fetching (`fetchCheckpoint`): the summary of the block asked for from every peer at once; at least
 * two must agree on its content hash (and none may name another one), then the bytes come from one
 * of them, checked against that hash, and from the next on any failure. Every frame has a deadline and
 * a size bound, and the length is checked against the largest checkpoint before anything is allocated.
 */
import type { Logger } from 'pino';
import { Reader, Writer } from '../codec/binary.ts';
import { bytesEqual, bytesToHex } from '../codec/hex.ts';
import { blake2b256 } from '../crypto/blake2b.ts';
import type { INetwork } from '../network/index.ts';
import { SyncError } from './errors.ts';

// inferred: a protocol of this node's own; the reference has no checkpoints (docs/design/fidelity.md "Checkpoints")
export const CHECKPOINT_PROTOCOL = '/logos-ts/checkpoint/1.0.0';
const CHUNK = 1 << 20;
/** The largest checkpoint fetched: a block and a ledger state of up to 512 MiB. */
export const MAX_CHECKPOINT_BYTES = 512 << 20;
const SUMMARY_BYTES = 1 + 32 + 32 + 8 + 8 + 32 + 8;
/** The smallest checkpoint: its header (magic, version, ids, slot, height), two lengths, its hash. */
const MIN_CHECKPOINT_BYTES = 16 + 4 + 80 + 4 + 4 + 32;

export interface CheckpointOffer {
  readonly genesis: Uint8Array;
  readonly id: Uint8Array;
  readonly slot: bigint;
  readonly height: bigint;
  readonly hash: Uint8Array;
  readonly length: number;
}

/**
 * What serves checkpoints: the chain's encoded checkpoint of its LIB (or of `id`, a recent LIB), and
 * whether one is encoded already (the last one asked for is kept).
 */
export interface CheckpointSource {
  checkpoint(id?: Uint8Array): Uint8Array | undefined;
  checkpointEncoded(id?: Uint8Array): boolean;
}

/** Encoding a checkpoint costs a pass over the whole state: peers get a new one at most this often. */
const ENCODE_EVERY_MS = 10_000;

function encodeRequest(kind: 0 | 1, id: Uint8Array | undefined): Uint8Array {
  const w = new Writer(34);
  w.u8(kind);
  w.u8(id ? 1 : 0);
  if (id) w.bytes(id);
  return w.finish();
}

/** The summary frame of a checkpoint (status 0, then its fields). */
export function encodeOffer(o: CheckpointOffer): Uint8Array {
  const w = new Writer(SUMMARY_BYTES);
  w.u8(0);
  w.bytes(o.genesis);
  w.bytes(o.id);
  w.u64(o.slot);
  w.u64(o.height);
  w.bytes(o.hash);
  w.u64(BigInt(o.length));
  return w.finish();
}

function decodeOffer(frame: Uint8Array): CheckpointOffer | undefined {
  const r = new Reader(frame);
  if (r.u8() !== 0) {
    r.end();
    return undefined;
  }
  const o = { genesis: r.bytes(32), id: r.bytes(32), slot: r.u64(), height: r.u64(), hash: r.bytes(32) };
  const length = r.u64();
  r.end();
  if (length > BigInt(MAX_CHECKPOINT_BYTES) || length < BigInt(MIN_CHECKPOINT_BYTES))
    throw new SyncError('SYNC_PEER', `a checkpoint of ${length} bytes is out of bounds`);
  return { ...o, length: Number(length) };
}

/** The summary of a checkpoint's bytes, as the summary frame carries it. */
export function offerOf(bytes: Uint8Array): CheckpointOffer {
  const r = new Reader(bytes.subarray(20, 20 + 80));
  const genesis = r.bytes(32);
  const id = r.bytes(32);
  return {
    genesis,
    id,
    slot: r.u64(),
    height: r.u64(),
    hash: bytes.slice(bytes.length - 32),
    length: bytes.length,
  };
}

/** Serves the checkpoint protocol from `source`. */
export function serveCheckpoints(
  network: Pick<INetwork, 'handle' | 'penalize'>,
  source: CheckpointSource,
  logger: Logger,
  now: () => number = Date.now,
): void {
  let lastEncodeAt = Number.NEGATIVE_INFINITY;
  network.handle(
    CHECKPOINT_PROTOCOL,
    async function* serve(request, peer) {
      let kind: number;
      let id: Uint8Array | undefined;
      try {
        const r = new Reader(request);
        kind = r.u8();
        const has = r.u8();
        id = has === 1 ? r.bytes(32) : undefined;
        r.end();
        if (kind > 1 || has > 1) throw new Error('unknown request');
      } catch (e) {
        network.penalize(peer, 'minor', `checkpoint request: ${(e as Error).message}`);
        return;
      }
      // One already encoded is served at once; another only when the last encoding is old enough.
      if (!source.checkpointEncoded(id)) {
        if (now() - lastEncodeAt < ENCODE_EVERY_MS) {
          yield Uint8Array.of(1);
          return;
        }
        lastEncodeAt = now();
      }
      const bytes = source.checkpoint(id);
      if (bytes === undefined) {
        yield Uint8Array.of(1);
        return;
      }
      yield encodeOffer(offerOf(bytes));
      if (kind === 0) return;
      logger.debug({ peer, bytes: bytes.length }, 'serving a checkpoint');
      for (let at = 0; at < bytes.length; at += CHUNK) yield bytes.subarray(at, at + CHUNK);
    },
    { maxRequestBytes: 64, maxInbound: 8 },
  );
}

export interface FetchCheckpointOptions {
  /** The block whose checkpoint is wanted. */
  readonly id: Uint8Array;
  readonly genesis: Uint8Array;
  /** Peers that must agree on the checkpoint's content hash (default 2). */
  readonly quorum?: number;
  readonly frameTimeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * The checkpoint of block `id` from `peers`: confirmed by `quorum` of them (same content hash, none
 * naming another), downloaded from one of those and checked against the hash. Throws `SyncError`
 * saying how many peers answered what.
 */
export async function fetchCheckpoint(
  network: Pick<INetwork, 'request' | 'penalize'>,
  peers: readonly string[],
  o: FetchCheckpointOptions,
  logger: Logger,
): Promise<Uint8Array> {
  const quorum = o.quorum ?? 2;
  const frameTimeoutMs = o.frameTimeoutMs ?? 10_000;
  const opts = { frameTimeoutMs, ...(o.signal ? { signal: o.signal } : {}) };
  const offers = await Promise.all(
    peers.map(async (peer) => {
      try {
        for await (const frame of network.request(peer, CHECKPOINT_PROTOCOL, encodeRequest(0, o.id), {
          ...opts,
          maxFrameBytes: SUMMARY_BYTES,
        })) {
          const offer = decodeOffer(frame);
          if (offer && (!bytesEqual(offer.id, o.id) || !bytesEqual(offer.genesis, o.genesis))) {
            network.penalize(peer, 'minor', 'checkpoint: a summary of another block than the one asked for');
            return undefined;
          }
          return offer ? { peer, offer } : undefined;
        }
      } catch (e) {
        logger.debug({ peer, err: (e as Error).message }, 'checkpoint summary not received');
      }
      return undefined;
    }),
  );
  const answered = offers.filter((x): x is { peer: string; offer: CheckpointOffer } => x !== undefined);
  const hashes = new Set(answered.map((a) => bytesToHex(a.offer.hash)));
  const what = `block ${bytesToHex(o.id)}: ${answered.length} of ${peers.length} peers have it`;
  if (hashes.size > 1)
    throw new SyncError(
      'SYNC_CHECKPOINT',
      `peers disagree on the checkpoint of ${what}, with ${hashes.size} different contents`,
    );
  if (answered.length < quorum)
    throw new SyncError('SYNC_CHECKPOINT', `the checkpoint of ${what}; ${quorum} must agree`);
  for (const { peer, offer } of answered) {
    try {
      const bytes = await download(network, peer, offer, o.id, opts);
      logger.info(
        { peer, block: bytesToHex(o.id), bytes: bytes.length, confirmed_by: answered.length },
        'checkpoint downloaded',
      );
      return bytes;
    } catch (e) {
      logger.warn({ peer, err: (e as Error).message }, 'checkpoint download failed; trying the next peer');
    }
  }
  throw new SyncError('SYNC_CHECKPOINT', `no peer delivered the checkpoint of ${what}`);
}

async function download(
  network: Pick<INetwork, 'request' | 'penalize'>,
  peer: string,
  offer: CheckpointOffer,
  id: Uint8Array,
  opts: { frameTimeoutMs: number; signal?: AbortSignal },
): Promise<Uint8Array> {
  let out: Uint8Array | undefined;
  let at = 0;
  // The whole transfer within 30 s plus 256 KiB/s of its length; every frame but the last a full chunk.
  const deadline = AbortSignal.timeout(30_000 + Math.ceil((offer.length / (256 * 1024)) * 1000));
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  for await (const frame of network.request(peer, CHECKPOINT_PROTOCOL, encodeRequest(1, id), {
    frameTimeoutMs: opts.frameTimeoutMs,
    signal,
    maxFrameBytes: Math.max(SUMMARY_BYTES, CHUNK),
  })) {
    if (out === undefined) {
      const o = decodeOffer(frame);
      if (!o || !bytesEqual(o.hash, offer.hash) || o.length !== offer.length)
        throw new SyncError('SYNC_PEER', 'the checkpoint changed since its summary');
      out = new Uint8Array(offer.length);
      continue;
    }
    if (at + frame.length > out.length) {
      network.penalize(peer, 'minor', 'checkpoint: more bytes than announced');
      throw new SyncError('SYNC_PEER', 'more checkpoint bytes than announced');
    }
    if (frame.length !== CHUNK && at + frame.length !== out.length) {
      network.penalize(peer, 'minor', 'checkpoint: a frame shorter than a chunk before the last');
      throw new SyncError('SYNC_PEER', `a checkpoint frame of ${frame.length} bytes before the last`);
    }
    out.set(frame, at);
    at += frame.length;
  }
  if (out === undefined || at !== out.length)
    throw new SyncError('SYNC_PEER', `the checkpoint stream ended at ${at} bytes`);
  if (!bytesEqual(blake2b256(out.subarray(0, out.length - 32)), offer.hash)) {
    network.penalize(peer, 'major', 'checkpoint: content does not match its hash');
    throw new SyncError('SYNC_PEER', 'the checkpoint does not match its content hash');
  }
  const inside = offerOf(out);
  if (!bytesEqual(inside.id, id) || !bytesEqual(inside.genesis, offer.genesis)) {
    network.penalize(peer, 'major', 'checkpoint: of another block than announced');
    throw new SyncError(
      'SYNC_PEER',
      `the checkpoint is of block ${bytesToHex(inside.id)}, not the one asked for`,
    );
  }
  return out;
}
