/**
 * The chain-sync client (F `consensus/cryptarchia-sync/src/libp2p/downloader.rs`,
 * `services/chain/chain-network/src/network/adapters/libp2p.rs`): asks a peer for its tip, downloads
 * blocks from one peer (one request per stream, each response frame within `peer_response_timeout`),
 * and races several peers for a download (the first whose first answer is a block or a clean end wins,
 * the others are dropped). A peer whose frames do not decode, or whose block bytes are not a block, is
 * penalized.
 *
 * Bounds of a download (beyond F, which reads frames of up to 16 MiB with a timeout per frame only):
 * a block frame is read only up to the largest valid block (`MAX_BLOCK_BYTES`), and the download must
 * keep a pace (`DEFAULT_DOWNLOAD_PACE`): after a grace of 5 s, each block may take 100 ms more plus
 * its bytes at 1 MiB/s. A peer that drips its answer (a frame just within the frame timeout, again
 * and again) is cut off, penalized (minor), and the download moves on to another peer.
 * One request at a time per peer: a peer with a request under way is left out of races and samples
 * (a request to it fails at once), so that a slow peer holds at most one of this node's waits.
 * inferred: these bounds are this node's own (docs/design/fidelity.md "Chain-sync download bounds")
 */

import type { Logger } from 'pino';
import { type Block, decodeBlock, MAX_BLOCK_BYTES } from '../block/block.ts';
import { headerId } from '../block/header.ts';
import { DecodeError } from '../codec/errors.ts';
import type { INetwork } from '../network/index.ts';
import {
  decodeBlocksResponse,
  decodeTipResponse,
  encodeRequest,
  type GetTipResponse,
  type KnownBlocks,
  MAX_SYNC_FRAME_BYTES,
  reasonText,
  WireError,
} from '../network/index.ts';
import { type Meter, NO_METER, secondsSince } from '../util/meter.ts';
import { SyncError } from './errors.ts';

/** A block response frame: the largest valid block, its u32 tag and u64 length. */
export const MAX_BLOCK_FRAME_BYTES = MAX_BLOCK_BYTES + 12;
/** The pace a download must keep. */
export interface DownloadPace {
  /** The first answer may take this long (as one frame's timeout), ms. */
  readonly graceMs: number;
  /** Each block may take this much more, ms, */
  readonly perBlockMs: number;
  /** plus its bytes at this rate. */
  readonly minBytesPerS: number;
}

export const DEFAULT_DOWNLOAD_PACE: DownloadPace = {
  graceMs: 5_000,
  perBlockMs: 100,
  minBytesPerS: 1024 * 1024,
};

/** The time a download of `blocks` blocks of `bytes` bytes in all may have taken. */
export function downloadAllowanceMs(blocks: number, bytes: number, pace = DEFAULT_DOWNLOAD_PACE): number {
  return pace.graceMs + blocks * pace.perBlockMs + (bytes * 1000) / pace.minBytesPerS;
}

export interface SyncClientOptions {
  readonly protocol: string;
  /** Per response frame, ms. */
  readonly frameTimeoutMs: number;
  readonly maxConnectedPeers: number;
  readonly maxDiscoveredPeers: number;
  /** Default `DEFAULT_DOWNLOAD_PACE`. */
  readonly pace?: DownloadPace;
}

/** A block received from a peer. */
export interface PeerBlock {
  readonly block: Block;
  /** Its header id. */
  readonly id: Uint8Array;
  readonly peer: string;
}

export class SyncClient {
  /** Peers with a request under way. */
  private readonly busy = new Set<string>();

  constructor(
    private readonly network: Pick<INetwork, 'request' | 'penalize' | 'connectedPeers' | 'discoveredPeers'>,
    private readonly opts: SyncClientOptions,
    private readonly logger: Logger,
    private readonly meter: Meter = NO_METER,
  ) {}

  /** Whether a request to the peer is under way. */
  isBusy(peer: string): boolean {
    return this.busy.has(peer);
  }

  /** Marks the peer busy, or throws when a request to it is under way already. */
  private claim(peer: string): void {
    if (this.busy.has(peer))
      throw new SyncError('SYNC_PEER', `a request to peer ${peer} is under way already`, {
        meta: { peer, busy: true },
      });
    this.busy.add(peer);
  }

  /** A peer's tip answer; throws `SyncError` when the peer fails to give one. */
  async requestTip(peer: string, signal?: AbortSignal): Promise<GetTipResponse> {
    let answer: GetTipResponse | undefined;
    this.claim(peer);
    try {
      for await (const frame of this.network.request(
        peer,
        this.opts.protocol,
        encodeRequest({ kind: 'GetTip' }),
        {
          maxFrameBytes: MAX_SYNC_FRAME_BYTES,
          frameTimeoutMs: this.opts.frameTimeoutMs,
          ...(signal ? { signal } : {}),
        },
      )) {
        // inferred: one frame is the whole answer; the stream's end is not waited for (docs/design/fidelity.md)
        answer = decodeTipResponse(frame);
        break;
      }
    } catch (e) {
      this.meter.count('chainsync_requests_total', 1, { kind: 'tip', result: 'err' });
      throw this.peerFailure(peer, 'tip request', e);
    } finally {
      this.busy.delete(peer);
    }
    const ok = answer?.kind === 'Tip';
    this.meter.count('chainsync_requests_total', 1, { kind: 'tip', result: ok ? 'ok' : 'err' });
    if (!answer)
      throw new SyncError('SYNC_PEER', `peer ${peer} closed the tip stream without an answer`, {
        meta: { peer },
      });
    return answer;
  }

  /** Up to `max` connected peers' tips (failures and refusals dropped), asked at once. */
  async sampleTips(
    max: number,
    signal?: AbortSignal,
  ): Promise<{ peer: string; tip: GetTipResponse & { kind: 'Tip' } }[]> {
    const peers = shuffle(this.network.connectedPeers().filter((p) => !this.busy.has(p))).slice(
      0,
      Math.max(1, max),
    );
    const answers = await Promise.all(
      peers.map(async (peer) => {
        try {
          const tip = await this.requestTip(peer, signal);
          if (tip.kind === 'Tip') return { peer, tip };
          this.logger.debug({ peer, reason: tip.reason }, 'connected peer rejected tip request');
        } catch (e) {
          this.logger.debug({ peer, err: (e as Error).message }, 'tip request failed');
        }
        return undefined;
      }),
    );
    return answers.filter((a) => a !== undefined);
  }

  /**
   * Downloads blocks up to `target` from one peer: the blocks as they arrive, until `NoMoreBlocks`.
   * Throws `SyncError` (`SYNC_UNAVAILABLE` when the peer answered a failure, `SYNC_PEER` otherwise,
   * including a stream closed before `NoMoreBlocks`); blocks received before the error were yielded.
   */
  async *downloadBlocks(
    peer: string,
    target: Uint8Array,
    known: KnownBlocks,
    signal?: AbortSignal,
  ): AsyncGenerator<PeerBlock> {
    const req = encodeRequest({ kind: 'DownloadBlocksRequest', target_block: target, known_blocks: known });
    let ended = false;
    const started = performance.now();
    let blocks = 0;
    let bytes = 0;
    this.claim(peer);
    try {
      for await (const frame of this.network.request(peer, this.opts.protocol, req, {
        maxFrameBytes: MAX_BLOCK_FRAME_BYTES,
        frameTimeoutMs: this.opts.frameTimeoutMs,
        ...(signal ? { signal } : {}),
      })) {
        blocks++;
        bytes += frame.length;
        const took = performance.now() - started;
        if (took > downloadAllowanceMs(blocks, bytes, this.opts.pace)) {
          this.network.penalize(
            peer,
            'minor',
            `chain sync block download: ${blocks} frames in ${Math.round(took)} ms, too slow`,
          );
          throw new SyncError(
            'SYNC_PEER',
            `peer ${peer} is too slow: ${blocks} frames (${bytes} bytes) in ${Math.round(took)} ms`,
            { meta: { peer, slow: true } },
          );
        }
        const msg = decodeBlocksResponse(frame, MAX_BLOCK_BYTES);
        if (msg.kind === 'NoMoreBlocks') {
          // inferred: the end of the answer; the stream's own end is not waited for (docs/design/fidelity.md)
          ended = true;
          break;
        }
        if (msg.kind === 'Failure')
          throw new SyncError('SYNC_UNAVAILABLE', `Block provider unavailable: ${reasonText(msg.reason)}`, {
            meta: { peer, reason: msg.reason.kind },
          });
        const block = decodeBlock(msg.bytes);
        yield { block, id: headerId(block.header), peer };
      }
    } catch (e) {
      throw this.peerFailure(peer, 'block download', e);
    } finally {
      this.busy.delete(peer);
      this.meter.observe('chainsync_download_blocks_seconds', secondsSince(started));
    }
    // F's downloader reads a frame after each block: a stream that ends before `NoMoreBlocks` is an error.
    if (!ended)
      throw new SyncError('SYNC_PEER', `peer ${peer} closed the block stream before NoMoreBlocks`, {
        meta: { peer },
      });
  }

  /**
   * Races a download of `target` from up to `maxConnectedPeers` connected and `maxDiscoveredPeers`
   * discovered-not-connected peers: the first whose first answer is a block or a clean end wins.
   * Throws `SyncError` when every peer failed (or there is none).
   */
  async *requestBlocksFromPeers(
    target: Uint8Array,
    known: KnownBlocks,
    signal?: AbortSignal,
  ): AsyncGenerator<PeerBlock> {
    const connected = this.network.connectedPeers();
    const connectedSet = new Set(connected);
    const free = (p: string) => !this.busy.has(p);
    const peers = [
      ...shuffle(connected.filter(free)).slice(0, this.opts.maxConnectedPeers),
      ...shuffle(this.network.discoveredPeers().filter((p) => !connectedSet.has(p) && free(p))).slice(
        0,
        this.opts.maxDiscoveredPeers,
      ),
    ];
    if (peers.length === 0)
      throw new SyncError(
        'SYNC_PEER',
        connected.length > 0 ? 'no peer free to download from' : 'no peers to download from',
      );
    const runs = peers.map((peer) => {
      const ac = new AbortController();
      const onAbort = () => ac.abort(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const it = this.downloadBlocks(peer, target, known, ac.signal);
      return { peer, ac, it, first: it.next(), onAbort };
    });
    let winner: (typeof runs)[number];
    let first: IteratorResult<PeerBlock>;
    try {
      ({ winner, first } = await Promise.any(
        runs.map((r) => r.first.then((first) => ({ winner: r, first }))),
      ));
    } catch (e) {
      for (const r of runs) signal?.removeEventListener('abort', r.onAbort);
      const errs = e instanceof AggregateError ? e.errors : [e];
      throw new SyncError(
        'SYNC_PEER',
        `no peer could serve the download: ${errs.map((x) => (x as Error).message).join('; ')}`,
      );
    }
    for (const r of runs) {
      if (r === winner) continue;
      r.ac.abort();
      signal?.removeEventListener('abort', r.onAbort);
      r.first.then(
        () => void r.it.return(undefined).catch(() => {}),
        () => {},
      );
    }
    try {
      if (first.done) return;
      yield first.value;
      yield* winner.it;
    } finally {
      signal?.removeEventListener('abort', winner.onAbort);
      winner.ac.abort();
    }
  }

  /**
   * The error of a failed request, after penalizing the peer for bytes that are not what it should send.
   * inferred: F penalizes no chain-sync peer; this node reports them to the network's scoring (docs/design/fidelity.md)
   */
  private peerFailure(peer: string, what: string, e: unknown): SyncError {
    if (e instanceof SyncError) return e;
    if (e instanceof WireError || e instanceof DecodeError) {
      this.network.penalize(peer, 'minor', `chain sync ${what}: ${e.message}`);
      return new SyncError('SYNC_PEER', `peer ${peer} sent an invalid ${what} answer: ${e.message}`, {
        cause: e,
        meta: { peer, invalid: true },
      });
    }
    return new SyncError(
      'SYNC_PEER',
      `peer ${peer} failed the ${what}: ${(e as Error)?.message ?? String(e)}`,
      {
        cause: e,
        meta: { peer },
      },
    );
  }
}

function shuffle<T>(xs: readonly T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}
