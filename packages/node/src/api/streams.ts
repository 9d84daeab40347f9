/**
 * The NDJSON streams: `blocks_range` (stored canonical blocks in a slot range, read and written in
 * batches), `events/blocks/stream` (every block processed from now on) and `lib-stream` (every
 * block becoming immutable). Writes wait for the socket to drain, and a live stream whose client
 * falls too far behind is closed rather than buffered without bound. All clients of a live stream
 * share one subscription to the chain, and each event is serialised once for all of them.
 */

import { stringifyJson } from '@logos-ts/shared/json';
import { blockToApiJson } from '../block/block.ts';
import type { ChainEvents, ProcessedBlock } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import { ApiError } from './errors.ts';
import type { cryptarchiaRoutes } from './routes/cryptarchia.ts';
import type { ApiContext, ApiStream, HandlerArgs } from './types.ts';

const MAX_BLOCKS_LIMIT = 630_720_000n;
const MAX_BATCH = 1000n;
/** Lines a live stream may hold for a slow client before it is closed. */
const MAX_PENDING_LINES = 256;

/** A line of the block streams: the block, and the tip and LIB when it was read or processed. */
export function blockStreamLine(
  block: ProcessedBlock['block'],
  id: Uint8Array,
  tip: { id: Uint8Array; slot: bigint },
  lib: { id: Uint8Array; slot: bigint },
): string {
  return stringifyJson({
    block: blockToApiJson(block, id),
    tip: bytesToHex(tip.id),
    tip_slot: tip.slot,
    lib: bytesToHex(lib.id),
    lib_slot: lib.slot,
  });
}

type LiveEvent = 'block' | 'lib';

/**
 * One subscription to a chain event for all the stream clients of that event: each event is made
 * into its line once, then handed to every client (a hundred clients cost one serialisation).
 */
class Fanout<K extends LiveEvent> {
  private readonly clients = new Set<(line: string) => void>();
  private readonly listener: (...e: ChainEvents[K]) => void;

  constructor(
    private readonly chain: ApiContext['chain'],
    private readonly event: K,
    toLine: (...e: ChainEvents[K]) => string,
  ) {
    this.listener = (...e) => {
      const text = toLine(...e);
      for (const c of [...this.clients]) c(text);
    };
  }

  get size(): number {
    return this.clients.size;
  }

  subscribe(client: (line: string) => void): () => void {
    if (this.clients.size === 0) this.chain.on<K>(this.event, this.listener as never);
    this.clients.add(client);
    return () => {
      if (this.clients.delete(client) && this.clients.size === 0)
        this.chain.off<K>(this.event, this.listener as never);
    };
  }
}

const blockLine = (p: ProcessedBlock) => blockStreamLine(p.block, p.id, p.tip, p.lib);
const libLine = (l: { id: Uint8Array; height: number }) =>
  stringifyJson({ height: l.height, header_id: bytesToHex(l.id) });

const fanouts = new WeakMap<object, { block: Fanout<'block'>; lib: Fanout<'lib'> }>();

function fanout(chain: ApiContext['chain'], event: LiveEvent): Pick<Fanout<LiveEvent>, 'size' | 'subscribe'> {
  let f = fanouts.get(chain);
  if (!f) {
    f = { block: new Fanout(chain, 'block', blockLine), lib: new Fanout(chain, 'lib', libLine) };
    fanouts.set(chain, f);
  }
  return f[event];
}

/** Stream clients currently subscribed to a chain event (for tests and metrics). */
export function streamClients(chain: ApiContext['chain'], event: LiveEvent): number {
  return fanouts.get(chain)?.[event].size ?? 0;
}

/** A live stream: one line per event from now on, with a bounded queue per client. */
export function liveStream(ctx: Pick<ApiContext, 'chain'>, event: LiveEvent): ApiStream {
  return {
    ndjson: true,
    run(write, signal) {
      if (signal.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const queue: string[] = [];
        let writing = false;
        let unsubscribe = () => {};
        const done = () => {
          unsubscribe();
          queue.length = 0;
          resolve();
        };
        const pump = async () => {
          if (writing) return;
          writing = true;
          try {
            while (queue.length > 0 && !signal.aborted) await write(queue.shift()!);
          } catch {
            done();
          }
          writing = false;
        };
        unsubscribe = fanout(ctx.chain, event).subscribe((text) => {
          if (queue.length >= MAX_PENDING_LINES) {
            done();
            return;
          }
          queue.push(text);
          void pump();
        });
        signal.addEventListener('abort', done, { once: true });
      });
    },
  };
}

/** `blocks_range`: stored canonical blocks in a slot range, read and written in batches. */
export function blocksRangeStream(
  ctx: Pick<ApiContext, 'chain' | 'deployment'>,
  q: HandlerArgs<(typeof cryptarchiaRoutes)['cryptarchiaBlocksRange']>['query'],
): ApiStream {
  const order = q.order ?? 'descending';
  const filter = q.block_filter ?? 'mutable_and_immutable';
  const fromQ = q.slot_from;
  const toQ = q.slot_to;
  const limit = q.blocks_limit ?? (fromQ !== undefined && toQ !== undefined ? MAX_BLOCKS_LIMIT : 100n);
  const batch = q.server_batch_size ?? 100n;
  if (limit < 1n || limit > MAX_BLOCKS_LIMIT)
    throw new ApiError(400, `blocks_limit must be between 1 and ${MAX_BLOCKS_LIMIT}`);
  if (batch < 1n || batch > MAX_BATCH)
    throw new ApiError(400, `server_batch_size must be between 1 and ${MAX_BATCH}`);
  const tip = ctx.chain.tip();
  const lib = ctx.chain.lib();
  const top = filter === 'immutable_only' ? lib.slot : tip.slot;
  const to = toQ === undefined || toQ > top ? top : toQ;
  const f = ctx.deployment.ledger.consensus.active_slot_coeff;
  const estimate = to - (limit * f.den) / f.num;
  const from = fromQ ?? (order === 'ascending' ? (estimate > 0n ? estimate : 0n) : 0n);
  if (fromQ !== undefined && toQ !== undefined && fromQ > toQ)
    throw new ApiError(400, 'slot_from must not be greater than slot_to');
  return {
    ndjson: true,
    async run(write, signal) {
      let sent = 0n;
      let lo = from;
      let hi = to;
      while (sent < limit && lo <= hi && !signal.aborted) {
        const n = Number(limit - sent < batch ? limit - sent : batch);
        const page =
          order === 'ascending'
            ? ctx.chain.canonicalBySlot(lo, hi, n)
            : ctx.chain.canonicalBySlotDesc(lo, hi, n);
        if (page.length === 0) break;
        for (const { id } of page) {
          const b = ctx.chain.block(id);
          if (!b) return; // pruned meanwhile: the stream ends early
          await write(blockStreamLine(b, id, tip, lib));
          sent++;
        }
        const last = page[page.length - 1]!.slot;
        if (order === 'ascending') lo = last + 1n;
        else if (last === 0n) break;
        else hi = last - 1n;
      }
    },
  };
}
