/**
 * Handlers of the consensus namespace (routes/cryptarchia.ts): chain info, the slot clock, headers,
 * blocks, block events, transactions and the NDJSON block streams (streams.ts).
 */

import { type Json, stringifyJson } from '@logos-ts/shared/json';
import { blockToApiJson } from '../../block/block.ts';
import { bytesToHex } from '../../codec/hex.ts';
import { u64 } from '../../codec/schema.ts';
import { epochSchedule } from '../../ledger/parameters.ts';
import { signedTxToApiJson } from '../../mantle/tx.ts';
import { notFound } from '../errors.ts';
import type { cryptarchiaRoutes } from '../routes/cryptarchia.ts';
import { blocksRangeStream, liveStream } from '../streams.ts';
import type { ApiContext, ApiReply, Handlers, Phase } from '../types.ts';
import { json } from './reply.ts';

const HEADERS_LIMIT = 512;

const infoCache = new WeakMap<object, { version: number; phase: Phase; reply: ApiReply }>();

export const cryptarchiaHandlers: Handlers<
  typeof cryptarchiaRoutes,
  Pick<ApiContext, 'chain' | 'clock' | 'deployment' | 'phase' | 'mempool'>
> = {
  cryptarchiaInfo(ctx) {
    // Asked often (dashboards, health checks): the body is made once per change of the head.
    const phase = ctx.phase();
    const cached = infoCache.get(ctx);
    if (cached && cached.version === ctx.chain.headVersion && cached.phase === phase) return cached.reply;
    const tip = ctx.chain.tip();
    const lib = ctx.chain.lib();
    const reply: ApiReply = {
      body: Buffer.from(
        stringifyJson({
          cryptarchia_info: {
            lib: bytesToHex(lib.id),
            lib_slot: u64.toJson(lib.slot),
            tip: bytesToHex(tip.id),
            slot: u64.toJson(tip.slot),
            height: tip.height,
            state: ctx.chain.consensusState,
          },
          phase,
        }),
      ),
    };
    infoCache.set(ctx, { version: ctx.chain.headVersion, phase, reply });
    return reply;
  },
  timeInfo(ctx) {
    const s = epochSchedule(ctx.deployment.ledger.consensus);
    const slot = ctx.clock.currentSlot();
    return json({
      slot_duration_ms: ctx.clock.slotDurationMs,
      genesis_time_unix_ms: ctx.clock.genesisTimeMs,
      current_slot: u64.toJson(slot),
      current_epoch: Number(slot / s.epoch_length),
      slots_per_epoch: u64.toJson(s.epoch_length),
    });
  },
  cryptarchiaHeaders(ctx, { query: { from, to } }) {
    if (from && !ctx.chain.block(from)) throw notFound('Block not found');
    return json(ctx.chain.headerIds(from, to, HEADERS_LIMIT).map(bytesToHex));
  },
  cryptarchiaBlock(ctx, { params: { id } }) {
    const b = ctx.chain.block(id);
    if (!b) throw notFound();
    return json(blockToApiJson(b, id));
  },
  cryptarchiaBlockEvents(ctx, { params: { id } }) {
    const events = ctx.chain.eventsJson(id);
    if (events === undefined) throw notFound();
    return { body: events };
  },
  cryptarchiaBlocks(ctx, { query: { slot_from, slot_to } }) {
    const lib = ctx.chain.lib();
    const upper = slot_to < lib.slot ? slot_to : lib.slot;
    const blocks: Json[] = [];
    for (const { id } of ctx.chain.canonicalBySlot(slot_from, upper)) {
      const b = ctx.chain.block(id);
      if (b) blocks.push(blockToApiJson(b, id));
    }
    return json(blocks);
  },
  cryptarchiaBlocksRange: (ctx, { query }) => blocksRangeStream(ctx, query),
  cryptarchiaBlocksStream: (ctx) => liveStream(ctx, 'block'),
  cryptarchiaLibStream: (ctx) => liveStream(ctx, 'lib'),
  cryptarchiaTransaction(ctx, { params: { id } }) {
    const loc = ctx.chain.transactionLocation(id);
    // F: the transactions store holds the mempool's pending bodies too (tx-service's storage adapter
    // writes them under the tx hash), so a pending transaction is found as well.
    const tx = loc ? ctx.chain.block(loc.block)?.transactions[loc.position] : ctx.mempool.get(id);
    if (!tx) throw notFound();
    return json(signedTxToApiJson(tx, id));
  },
};
