/**
 * The handlers of the route table (definitions.ts): one per operation, checked by the compiler, so
 * that no endpoint is documented without being served or served without being documented.
 */
import { blockToApiJson } from '../block/block.ts';
import type { IChain, SlotClock } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import { type Json, stringifyJson } from '../codec/json.ts';
import { fr, u64 } from '../codec/schema.ts';
import { epochSchedule } from '../ledger/config.ts';
import type { Deployment } from '../ledger/deployment.ts';
import type { ChannelState, Declaration } from '../ledger/state.ts';
import { locatorToString } from '../mantle/locator.ts';
import { signedTxToApiJson } from '../mantle/tx.ts';
import type { Phase } from '../sync/phases.ts';
import { API_VERSION } from '../version.ts';
import { API, type OperationId, type RouteDef } from './definitions.ts';
import { notFound, Rejection } from './errors.ts';
import { id32, type Query, queryId, queryU64 } from './params.ts';
import { STREAM_HANDLERS } from './streams.ts';

export interface ApiContext {
  /** The commit and tag of the code the node runs (null when unknown). */
  readonly build: { readonly commit: string | null; readonly tag: string | null };
  /** Replaces the log filter: target (module) → level; `*` is the default level. */
  setLogFilter(filters: Readonly<Record<string, string>>): void;
  readonly chain: IChain;
  readonly clock: SlotClock;
  readonly deployment: Deployment;
  phase(): Phase;
}

export interface ApiRequest {
  readonly params: Record<string, string>;
  readonly query: Query;
  /** The parsed JSON body (fastify's parser), if any. */
  readonly body?: unknown;
}

export interface ApiReply {
  readonly status?: number;
  /** The body (JSON already serialised), as text or bytes. */
  readonly body: string | Uint8Array;
  readonly contentType?: string;
}

/** An NDJSON stream: `run` writes lines until it is done or `signal` aborts (client gone). */
export interface ApiStream {
  readonly ndjson: true;
  run(write: (line: string) => Promise<void>, signal: AbortSignal): Promise<void>;
}

export type Handler = (
  ctx: ApiContext,
  req: ApiRequest,
) => ApiReply | ApiStream | Promise<ApiReply | ApiStream>;

export interface ServerRoute {
  readonly operationId: string;
  readonly def: RouteDef;
  readonly handle: Handler;
}

const json = (v: unknown): ApiReply => ({ body: stringifyJson(v) });

function versionInfo(build: ApiContext['build']): Json {
  const arch = process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch;
  const os = process.platform === 'linux' ? 'unknown-linux-gnu' : process.platform;
  return {
    version: API_VERSION,
    commit: build.commit,
    tag: build.tag,
    target: `${arch}-${os}`,
    profile: 'release',
    rustc: `node ${process.version}`,
  };
}

function channelJson(c: ChannelState): Json {
  return {
    accredited_keys: c.accredited_keys.map(bytesToHex),
    configuration_threshold: c.configuration_threshold,
    tip_message: bytesToHex(c.tip_message),
    config_tip_hash: bytesToHex(c.config_tip_hash),
    tip_slot: u64.toJson(c.tip_slot),
    tip_sequencer: c.tip_sequencer,
    tip_sequencer_starting_slot: u64.toJson(c.tip_sequencer_starting_slot),
    posting_timeframe: c.posting_timeframe,
    posting_timeout: c.posting_timeout,
    transfer_threshold: c.transfer_threshold,
  };
}

function declarationJson(d: Declaration): Json {
  return {
    service_type: d.service_type,
    provider_id: bytesToHex(d.provider_id),
    service_note_id: fr.toJson(d.service_note_id),
    locators: d.locators.map(locatorToString),
    zk_id: fr.toJson(d.zk_id),
    created: d.created,
    active: d.active,
    withdraw_at: d.withdraw_at,
    nonce: u64.toJson(d.nonce),
  };
}

function declarationsJson(m: Iterable<[string, Declaration]>): Json {
  const out: { [k: string]: Json } = {};
  for (const [id, d] of [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[id] = declarationJson(d);
  return out;
}

const HEADERS_LIMIT = 512;

const infoCache = new WeakMap<ApiContext, { version: number; phase: Phase; reply: ApiReply }>();

/** Log levels as the reference accepts them: names in any case, or 1 (error) to 5 (trace). */
const LEVELS: Readonly<Record<string, string>> = {
  error: 'error',
  warn: 'warn',
  info: 'info',
  debug: 'debug',
  trace: 'trace',
  '1': 'error',
  '2': 'warn',
  '3': 'info',
  '4': 'debug',
  '5': 'trace',
};

const HANDLERS: { readonly [K in OperationId]: Handler } = {
  ...STREAM_HANDLERS,
  version: (ctx) => json(versionInfo(ctx.build)),
  chainId: (ctx) => json({ chain_id: ctx.chain.genesis.parameter.chain_id }),
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
  cryptarchiaHeaders(ctx, req) {
    const from = queryId(req.query, 'from');
    const to = queryId(req.query, 'to');
    if (from && !ctx.chain.block(from)) throw notFound('Block not found');
    return json(ctx.chain.headerIds(from, to, HEADERS_LIMIT).map(bytesToHex));
  },
  cryptarchiaBlock(ctx, req) {
    const id = id32(req.params.id, 'id');
    const b = ctx.chain.block(id);
    if (!b) throw notFound();
    return json(blockToApiJson(b, id));
  },
  cryptarchiaBlockEvents(ctx, req) {
    const events = ctx.chain.eventsJson(id32(req.params.id, 'id'));
    if (events === undefined) throw notFound();
    return { body: events };
  },
  cryptarchiaBlocks(ctx, req) {
    const from = queryU64(req.query, 'slot_from', true);
    const to = queryU64(req.query, 'slot_to', true);
    const lib = ctx.chain.lib();
    const upper = to < lib.slot ? to : lib.slot;
    const blocks: Json[] = [];
    for (const { id } of ctx.chain.canonicalBySlot(from, upper)) {
      const b = ctx.chain.block(id);
      if (b) blocks.push(blockToApiJson(b, id));
    }
    return json(blocks);
  },
  cryptarchiaTransaction(ctx, req) {
    const hash = id32(req.params.id, 'id');
    const loc = ctx.chain.transactionLocation(hash);
    const tx = loc ? ctx.chain.block(loc.block)?.transactions[loc.position] : undefined;
    if (!tx) throw notFound();
    return json(signedTxToApiJson(tx, hash));
  },
  mantleGasPrices(ctx, req) {
    const at = queryId(req.query, 'tip') ?? ctx.chain.tip().id;
    const state = ctx.chain.stateOf(at);
    if (!state) throw notFound('No ledger state at this block');
    return json({
      tip: bytesToHex(at),
      execution_base_gas_price: u64.toJson(state.gas.execution_base_gas_price),
      storage_gas_price: u64.toJson(state.gas.storage_gas_price),
    });
  },
  channel(ctx, req) {
    const id = id32(req.params.id, 'id');
    const c = ctx.chain.tip().state.channels.get(bytesToHex(id));
    if (!c) throw notFound('Channel not found');
    return json(channelJson(c));
  },
  sdpDeclarations: (ctx) => json(declarationsJson(ctx.chain.tip().state.sdp.declarations.entries())),
  adminTracingFilter(ctx, req) {
    const b = req.body as { filters?: unknown } | null | undefined;
    if (
      b === null ||
      typeof b !== 'object' ||
      b.filters === null ||
      typeof b.filters !== 'object' ||
      Array.isArray(b.filters)
    ) {
      throw new Rejection(
        422,
        'Failed to deserialize the JSON body into the target type: missing field `filters`',
      );
    }
    const filters: Record<string, string> = {};
    for (const [target, raw] of Object.entries(b.filters as Record<string, unknown>)) {
      const level = LEVELS[String(raw).toLowerCase()];
      if (level === undefined) {
        throw new Rejection(
          422,
          `Failed to deserialize the JSON body into the target type: filters.${target}: unknown level ${JSON.stringify(raw)}`,
        );
      }
      filters[target] = level;
    }
    ctx.setLogFilter(filters);
    return { body: 'null' };
  },
  sdpSnapshot: (ctx) => json(declarationsJson(ctx.chain.tip().state.sdp.snapshot.entries())),
};

/** The served routes: every definition of the table with its handler. */
export const ROUTES: readonly ServerRoute[] = (Object.keys(API) as OperationId[]).map((operationId) => ({
  operationId,
  def: API[operationId],
  handle: HANDLERS[operationId],
}));
