/**
 * The API's route table: each endpoint once, with its method, path, parameters, body and response
 * schemas. It has no handlers and no I/O, so that the server (routes.ts adds the handlers), the
 * OpenAPI document (openapi.ts) and the typed client (client/) all read the same table.
 */
import {
  anyJson,
  array,
  hex,
  type JsonSchema,
  literal,
  nullable,
  nullValue,
  object,
  record,
  type Schema,
  string,
  u64,
  uint,
} from './schema.ts';

// ---- query parameters

/** A query parameter; `In` is what a client passes. */
export interface QueryParam<In, Required extends boolean = boolean> {
  readonly required: Required;
  readonly description: string;
  readonly jsonSchema: JsonSchema;
  /** Phantom: the client's input type. */
  readonly _in?: In;
}

const param =
  <In>(jsonSchema: JsonSchema) =>
  <const R extends boolean = false>(description: string, required?: R): QueryParam<In, R> => ({
    required: (required ?? false) as R,
    description,
    jsonSchema,
  });

/** A 32-byte id as a path or query parameter (lower or upper case hex, 0x allowed). */
export const ID_PARAM_PATTERN = '^(0x)?[0-9a-fA-F]{64}$';

const q = {
  u64: param<bigint | number>(u64.jsonSchema),
  id: param<string>({ type: 'string', pattern: ID_PARAM_PATTERN }),
  oneOf: <const T extends readonly string[]>(values: T, description: string) =>
    param<T[number]>({ type: 'string', enum: values })(description),
};

// ---- response schemas (formats of the specification's "Data formats")

const id = hex(32);

export const VersionInfo = object({
  version: string,
  commit: nullable(string),
  tag: nullable(string),
  target: string,
  profile: string,
  rustc: string,
});

export const ConsensusState = literal('Bootstrapping', 'Online');
export const ChainPhase = literal(
  'AwaitingGenesisTime',
  'InitialBlockDownload',
  'ProlongedBootstrapPeriod',
  'Following',
);

export const CryptarchiaInfo = object({
  cryptarchia_info: object({
    lib: id,
    lib_slot: u64,
    tip: id,
    slot: u64,
    height: u64,
    state: ConsensusState,
  }),
  phase: ChainPhase,
});

export const TimeInfo = object({
  slot_duration_ms: u64,
  genesis_time_unix_ms: u64,
  current_slot: u64,
  current_epoch: u64,
  slots_per_epoch: u64,
});

export const Header = object({
  id,
  parent_block: id,
  slot: u64,
  body_root: id,
  proof_of_leadership: object({
    proof: hex(128, 'Groth16 proof, compressed points'),
    entropy_contribution: id,
    leader_key: hex(32, 'Ed25519 public key'),
    voucher_cm: id,
  }),
});

export const SignedTransaction = object({
  mantle_tx: object({
    hash: id,
    ops: array(
      object({
        opcode: uint('uint8'),
        payload: anyJson('operation payload; its fields depend on the opcode'),
      }),
    ),
  }),
  ops_proofs: array(anyJson('one key naming the proof type (e.g. `ZkSig`), or `{"None": null}`')),
});

export const Block = object({
  header: Header,
  uncle_headers: array(object({ header: Header, signature: hex(64, 'Ed25519 signature') })),
  transactions: array(SignedTransaction),
});

export const BlockLine = object({
  block: Block,
  tip: id,
  tip_slot: u64,
  lib: id,
  lib_slot: u64,
});

export const LibLine = object({ height: u64, header_id: id });

export const LedgerEvents = array(
  anyJson('one key naming the event kind: `{"Header": {...}}` or `{"Tx": {tx_hash, op_id, payload}}`'),
);

export const GasPrices = object({
  tip: id,
  execution_base_gas_price: u64,
  storage_gas_price: u64,
});

export const Channel = object({
  accredited_keys: array(hex(32, 'Ed25519 public key')),
  configuration_threshold: uint('uint16'),
  tip_message: id,
  config_tip_hash: id,
  tip_slot: u64,
  tip_sequencer: uint('uint16'),
  tip_sequencer_starting_slot: u64,
  posting_timeframe: uint(),
  posting_timeout: uint(),
  transfer_threshold: uint('uint16'),
});

export const Declaration = object({
  service_type: literal('BN'),
  provider_id: hex(32, 'provider public key'),
  service_note_id: id,
  locators: array(string),
  zk_id: id,
  created: u64,
  active: u64,
  withdraw_at: nullable(u64),
  nonce: u64,
});

export const Declarations = record(Declaration, 'declaration id → declaration');

export const TracingFilter = object({
  filters: record(
    string,
    'target (module) → level: error, warn, info, debug, trace or 1..5; `*` is the default',
  ),
});

// ---- routes

export interface RouteDef {
  readonly method: 'GET' | 'POST' | 'PUT';
  /** OpenAPI-style path, e.g. `/cryptarchia/blocks/{id}`. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly query?: Readonly<Record<string, QueryParam<unknown>>>;
  readonly body?: Schema<unknown>;
  /** A JSON body, or an NDJSON stream of lines of this schema. */
  readonly response: { readonly json: Schema<unknown> } | { readonly ndjson: Schema<unknown> };
  /** Status of a success (200 unless given). */
  readonly status?: number;
  /** Handled failures (`{code, message}` JSON) the endpoint can answer. */
  readonly errors?: readonly number[];
  /** Waits while consensus is Bootstrapping (408 after the API timeout). */
  readonly gatedWhileBootstrapping?: boolean;
}

const def = <const D extends RouteDef>(d: D): D => d;

export const API = {
  version: def({
    method: 'GET',
    path: '/version',
    tag: 'Node',
    summary: 'Version of the node',
    response: { json: VersionInfo },
  }),
  chainId: def({
    method: 'GET',
    path: '/chain/id',
    tag: 'Node',
    summary: 'Chain id, fixed by the deployment',
    response: { json: object({ chain_id: string }) },
  }),
  cryptarchiaInfo: def({
    method: 'GET',
    path: '/cryptarchia/info',
    tag: 'Consensus',
    summary: "The node's view of the chain",
    response: { json: CryptarchiaInfo },
  }),
  timeInfo: def({
    method: 'GET',
    path: '/time/info',
    tag: 'Consensus',
    summary: 'Slot clock',
    response: { json: TimeInfo },
  }),
  cryptarchiaHeaders: def({
    method: 'GET',
    path: '/cryptarchia/headers',
    tag: 'Consensus',
    summary:
      'Block ids from `from` (default tip) back to `to` (default LIB), newest first, both included, at most 512',
    query: {
      from: q.id('newest block id (default: the tip)'),
      to: q.id('oldest block id (default: the latest immutable block)'),
    },
    response: { json: array(id) },
    errors: [404],
  }),
  cryptarchiaBlock: def({
    method: 'GET',
    path: '/cryptarchia/blocks/{id}',
    tag: 'Consensus',
    summary: 'A stored block',
    response: { json: Block },
    errors: [404],
  }),
  cryptarchiaBlockEvents: def({
    method: 'GET',
    path: '/cryptarchia/blocks/{id}/events',
    tag: 'Consensus',
    summary: 'Ledger events of a block',
    response: { json: LedgerEvents },
    errors: [404],
  }),
  cryptarchiaBlocks: def({
    method: 'GET',
    path: '/cryptarchia/blocks',
    tag: 'Consensus',
    summary: 'Immutable blocks with slot_from <= slot <= slot_to',
    query: {
      slot_from: q.u64('first slot', true),
      slot_to: q.u64('last slot, inclusive', true),
    },
    response: { json: array(Block) },
  }),
  cryptarchiaBlocksRange: def({
    method: 'GET',
    path: '/cryptarchia/blocks_range',
    tag: 'Consensus',
    summary: 'NDJSON stream of canonical blocks in a slot range',
    query: {
      slot_from: q.u64(
        'first slot; descending default 0; ascending default an estimated lower bound ending near slot_to',
      ),
      slot_to: q.u64('last slot, inclusive (default: the tip, or the LIB with immutable_only)'),
      order: q.oneOf(['descending', 'ascending'], 'descending (newest first, default) or ascending'),
      blocks_limit: q.u64('1..630720000; default 630720000 if both slots are set, otherwise 100'),
      server_batch_size: q.u64('1..1000, default 100'),
      block_filter: q.oneOf(
        ['immutable_only', 'mutable_and_immutable'],
        'immutable_only or mutable_and_immutable (default)',
      ),
    },
    response: { ndjson: BlockLine },
    errors: [400],
  }),
  cryptarchiaBlocksStream: def({
    method: 'GET',
    path: '/cryptarchia/events/blocks/stream',
    tag: 'Consensus',
    summary: 'NDJSON stream of each block processed from now on',
    response: { ndjson: BlockLine },
  }),
  cryptarchiaLibStream: def({
    method: 'GET',
    path: '/cryptarchia/lib-stream',
    tag: 'Consensus',
    summary: 'NDJSON stream of each block becoming immutable from now on',
    response: { ndjson: LibLine },
  }),
  cryptarchiaTransaction: def({
    method: 'GET',
    path: '/cryptarchia/transaction/{id}',
    tag: 'Consensus',
    summary: 'A transaction included in the canonical chain',
    response: { json: SignedTransaction },
    errors: [404],
  }),
  mantleGasPrices: def({
    method: 'GET',
    path: '/mantle/gas-prices',
    tag: 'Mantle',
    summary: 'Gas prices at a block (default: the tip)',
    query: { tip: q.id('block id') },
    response: { json: GasPrices },
    errors: [404],
  }),
  channel: def({
    method: 'GET',
    path: '/channel/{id}',
    tag: 'Mantle',
    summary: 'State of a channel at the tip',
    response: { json: Channel },
    errors: [404],
  }),
  sdpDeclarations: def({
    method: 'GET',
    path: '/mantle/sdp/declarations',
    tag: 'SDP',
    summary: 'Service declarations at the tip, by declaration id',
    response: { json: Declarations },
  }),
  sdpSnapshot: def({
    method: 'GET',
    path: '/mantle/sdp/snapshot',
    tag: 'SDP',
    summary: 'Service declarations as frozen for the current epoch',
    response: { json: Declarations },
  }),
  adminTracingFilter: def({
    method: 'PUT',
    path: '/admin/tracing/filter',
    tag: 'Administration',
    summary: 'Replaces the log filter while running',
    body: TracingFilter,
    response: { json: nullValue },
  }),
} as const satisfies Record<string, RouteDef>;

export type Api = typeof API;
export type OperationId = keyof Api;
