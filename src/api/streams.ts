/**
 * The NDJSON streams: `blocks_range` (stored canonical blocks in a slot range, read and written in
 * batches), `events/blocks/stream` (every block processed from now on) and `lib-stream` (every
 * block becoming immutable). Writes wait for the socket to drain, and a live stream whose client
 * falls too far behind is closed rather than buffered without bound.
 */
import { blockToApiJson } from '../block/block.ts';
import type { ProcessedBlock } from '../chain/chain-service.ts';
import { bytesToHex } from '../codec/hex.ts';
import { stringifyJson } from '../codec/json.ts';
import { ApiError } from './errors.ts';
import { queryU64 } from './params.ts';
import type { ApiContext, ApiStream, Handler } from './routes.ts';

const MAX_BLOCKS_LIMIT = 630_720_000n;
const MAX_BATCH = 1000n;
/** Lines a live stream may hold for a slow client before it is closed. */
const MAX_PENDING_LINES = 256;

function line(
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

/** Subscribes to a chain event and writes one line per event, with a bounded queue per client. */
function live<E>(ctx: ApiContext, event: 'block' | 'lib', toLine: (e: E) => string): ApiStream {
  const emitter = ctx.chain as unknown as NodeJS.EventEmitter;
  return {
    ndjson: true,
    run(write, signal) {
      return new Promise<void>((resolve) => {
        const queue: string[] = [];
        let writing = false;
        const done = () => {
          emitter.off(event, listener);
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
        const listener = (e: E) => {
          if (queue.length >= MAX_PENDING_LINES) {
            done();
            return;
          }
          queue.push(toLine(e));
          void pump();
        };
        emitter.on(event, listener);
        signal.addEventListener('abort', done, { once: true });
      });
    },
  };
}

type StreamOperation = 'cryptarchiaBlocksRange' | 'cryptarchiaBlocksStream' | 'cryptarchiaLibStream';

export const STREAM_HANDLERS: { readonly [K in StreamOperation]: Handler } = {
  cryptarchiaBlocksRange(ctx, req): ApiStream {
    const q = req.query;
    const order = q.order ?? 'descending';
    if (order !== 'descending' && order !== 'ascending') throw new ApiError(400, `invalid order ${order}`);
    const filter = q.block_filter ?? 'mutable_and_immutable';
    if (filter !== 'immutable_only' && filter !== 'mutable_and_immutable')
      throw new ApiError(400, `invalid block_filter ${filter}`);
    const fromQ = queryU64(q, 'slot_from', false);
    const toQ = queryU64(q, 'slot_to', false);
    const limit =
      queryU64(q, 'blocks_limit', false) ??
      (fromQ !== undefined && toQ !== undefined ? MAX_BLOCKS_LIMIT : 100n);
    const batch = queryU64(q, 'server_batch_size', false) ?? 100n;
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
            await write(line(b, id, tip, lib));
            sent++;
          }
          const last = page[page.length - 1]!.slot;
          if (order === 'ascending') lo = last + 1n;
          else if (last === 0n) break;
          else hi = last - 1n;
        }
      },
    };
  },
  cryptarchiaBlocksStream: (ctx) =>
    live(ctx, 'block', (p: ProcessedBlock) => line(p.block, p.id, p.tip, p.lib)),
  cryptarchiaLibStream: (ctx) =>
    live(ctx, 'lib', (l: { id: Uint8Array; height: number }) =>
      stringifyJson({ height: l.height, header_id: bytesToHex(l.id) }),
    ),
};
