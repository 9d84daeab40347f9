/**
 * Route definitions of the consensus namespace: chain info, the slot clock, headers, blocks, block
 * events, transactions and the NDJSON block streams, with the data formats they answer.
 */

import { anyJson, array, hex, literal, object, u64, uint } from '../json-schema.ts';
import { def, q, type RouteDef } from '../route-def.ts';

const id = hex(32);

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

export const cryptarchiaRoutes = {
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
} as const satisfies Record<string, RouteDef>;
