/**
 * The route table: every endpoint once, with its method, path, parameters and handler. It drives the
 * server and the OpenAPI document (and later the typed client), so they cannot drift apart.
 */
import { blockToApiJson } from '../block/block.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { SlotClock } from '../chain/clock.ts';
import { bytesToHex } from '../codec/hex.ts';
import { type Json, stringifyJson } from '../codec/json.ts';
import { fr, u64 } from '../codec/schema.ts';
import { epochSchedule } from '../ledger/config.ts';
import type { Deployment } from '../ledger/deployment.ts';
import type { ChannelState, Declaration } from '../ledger/state.ts';
import { locatorToString } from '../mantle/locator.ts';
import { signedTxToApiJson } from '../mantle/tx.ts';
import type { Phase } from '../node/node.ts';
import { API_VERSION } from '../version.ts';
import { notFound, Rejection } from './errors.ts';
import { id32, type Query, queryId, queryU64 } from './params.ts';
import { STREAM_ROUTES } from './streams.ts';

export interface ApiContext {
  /** Replaces the log filter: target (module) → level; `*` is the default level. */
  setLogFilter(filters: Readonly<Record<string, string>>): void;
  readonly chain: ChainService;
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
  /** The body text (JSON already serialised). */
  readonly body: string;
  readonly contentType?: string;
}

/** An NDJSON stream: `run` writes lines until it is done or `signal` aborts (client gone). */
export interface ApiStream {
  readonly ndjson: true;
  run(write: (line: string) => Promise<void>, signal: AbortSignal): Promise<void>;
}

export interface Route {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PUT';
  /** Whether the route takes a JSON body. */
  readonly body?: boolean;
  /** OpenAPI-style path, e.g. `/cryptarchia/blocks/{id}`. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly query?: readonly { name: string; required: boolean; description: string }[];
  handle(ctx: ApiContext, req: ApiRequest): ApiReply | ApiStream | Promise<ApiReply | ApiStream>;
}

const json = (v: Json | unknown, status?: number): ApiReply => ({
  body: stringifyJson(v),
  ...(status ? { status } : {}),
});

function versionInfo(): Json {
  const arch = process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch;
  const os = process.platform === 'linux' ? 'unknown-linux-gnu' : process.platform;
  return {
    version: API_VERSION,
    commit: null,
    tag: null,
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

export const ROUTES: readonly Route[] = [
  ...STREAM_ROUTES,
  {
    operationId: 'version',
    method: 'GET',
    path: '/version',
    tag: 'Node',
    summary: 'Version of the node',
    handle: () => json(versionInfo()),
  },
  {
    operationId: 'chain_id',
    method: 'GET',
    path: '/chain/id',
    tag: 'Node',
    summary: 'Chain id, fixed by the deployment',
    handle: (ctx) => json({ chain_id: ctx.chain.genesis.parameter.chain_id }),
  },
  {
    operationId: 'cryptarchia_info',
    method: 'GET',
    path: '/cryptarchia/info',
    tag: 'Consensus',
    summary: "The node's view of the chain",
    handle(ctx) {
      const tip = ctx.chain.tip();
      const lib = ctx.chain.lib();
      return json({
        cryptarchia_info: {
          lib: bytesToHex(lib.id),
          lib_slot: u64.toJson(lib.slot),
          tip: bytesToHex(tip.id),
          slot: u64.toJson(tip.slot),
          height: tip.height,
          state: ctx.chain.consensusState,
        },
        phase: ctx.phase(),
      });
    },
  },
  {
    operationId: 'time_info',
    method: 'GET',
    path: '/time/info',
    tag: 'Consensus',
    summary: 'Slot clock',
    handle(ctx) {
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
  },
  {
    operationId: 'cryptarchia_headers',
    method: 'GET',
    path: '/cryptarchia/headers',
    tag: 'Consensus',
    summary: 'Block ids from `from` (default tip) back to `to` (default LIB), newest first, at most 512',
    query: [
      { name: 'from', required: false, description: 'newest block id (default: the tip)' },
      { name: 'to', required: false, description: 'oldest block id (default: the latest immutable block)' },
    ],
    handle(ctx, req) {
      const from = queryId(req.query, 'from');
      const to = queryId(req.query, 'to');
      if (from && !ctx.chain.block(from)) throw notFound('Block not found');
      return json(ctx.chain.headerIds(from, to, HEADERS_LIMIT).map(bytesToHex));
    },
  },
  {
    operationId: 'cryptarchia_block',
    method: 'GET',
    path: '/cryptarchia/blocks/{id}',
    tag: 'Consensus',
    summary: 'A stored block',
    handle(ctx, req) {
      const id = id32(req.params.id, 'id');
      const b = ctx.chain.block(id);
      if (!b) throw notFound();
      return json(blockToApiJson(b, id));
    },
  },
  {
    operationId: 'cryptarchia_block_events',
    method: 'GET',
    path: '/cryptarchia/blocks/{id}/events',
    tag: 'Consensus',
    summary: 'Ledger events of a block',
    handle(ctx, req) {
      const events = ctx.chain.eventsJson(id32(req.params.id, 'id'));
      if (events === undefined) throw notFound();
      return { body: events };
    },
  },
  {
    operationId: 'cryptarchia_blocks',
    method: 'GET',
    path: '/cryptarchia/blocks',
    tag: 'Consensus',
    summary: 'Immutable blocks with slot_from <= slot <= slot_to',
    query: [
      { name: 'slot_from', required: true, description: 'first slot' },
      { name: 'slot_to', required: true, description: 'last slot, inclusive' },
    ],
    handle(ctx, req) {
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
  },
  {
    operationId: 'cryptarchia_transaction',
    method: 'GET',
    path: '/cryptarchia/transaction/{id}',
    tag: 'Consensus',
    summary: 'A transaction included in the canonical chain',
    handle(ctx, req) {
      const hash = id32(req.params.id, 'id');
      const loc = ctx.chain.transactionLocation(hash);
      const tx = loc ? ctx.chain.block(loc.block)?.transactions[loc.position] : undefined;
      if (!tx) throw notFound();
      return json(signedTxToApiJson(tx, hash));
    },
  },
  {
    operationId: 'mantle_gas_prices',
    method: 'GET',
    path: '/mantle/gas-prices',
    tag: 'Mantle',
    summary: 'Gas prices at a block (default: the tip)',
    query: [{ name: 'tip', required: false, description: 'block id' }],
    handle(ctx, req) {
      const at = queryId(req.query, 'tip') ?? ctx.chain.tip().id;
      const state = ctx.chain.stateOf(at);
      if (!state) throw notFound('No ledger state at this block');
      return json({
        tip: bytesToHex(at),
        execution_base_gas_price: u64.toJson(state.gas.execution_base_gas_price),
        storage_gas_price: u64.toJson(state.gas.storage_gas_price),
      });
    },
  },
  {
    operationId: 'channel',
    method: 'GET',
    path: '/channel/{id}',
    tag: 'Mantle',
    summary: 'State of a channel at the tip',
    handle(ctx, req) {
      const id = id32(req.params.id, 'id');
      const c = ctx.chain.tip().state.channels.get(bytesToHex(id));
      if (!c) throw notFound('Channel not found');
      return json(channelJson(c));
    },
  },
  {
    operationId: 'sdp_declarations',
    method: 'GET',
    path: '/mantle/sdp/declarations',
    tag: 'SDP',
    summary: 'Service declarations at the tip, by declaration id',
    handle: (ctx) => json(declarationsJson(ctx.chain.tip().state.sdp.declarations.entries())),
  },
  {
    operationId: 'admin_tracing_filter',
    method: 'PUT',
    path: '/admin/tracing/filter',
    tag: 'Administration',
    summary: 'Replaces the log filter while running: {"filters":{"<target>":"<level>","*":"<level>"}}',
    body: true,
    handle(ctx, req) {
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
  },
  {
    operationId: 'sdp_snapshot',
    method: 'GET',
    path: '/mantle/sdp/snapshot',
    tag: 'SDP',
    summary: 'Service declarations as frozen for the current epoch',
    handle: (ctx) => json(declarationsJson(ctx.chain.tip().state.sdp.snapshot.entries())),
  },
];
