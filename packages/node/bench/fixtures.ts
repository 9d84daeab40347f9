/** Shared set-up of the ledger and chain benchmarks: a devnet ledger, many notes, transfer blocks. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Block, bodyRoot } from '../src/block/block.ts';
import { encodeHeader, type Header } from '../src/block/header.ts';
import type { Ed25519Signer } from '../src/crypto/ed25519.ts';
import { frFromBytesModOrder } from '../src/crypto/field.ts';
import { applyBlock } from '../src/ledger/apply.ts';
import { parseDeployment } from '../src/ledger/deployment.ts';
import { Draft, type LedgerContext } from '../src/ledger/draft.ts';
import { buildGenesis } from '../src/ledger/genesis.ts';
import type { LedgerConfig } from '../src/ledger/parameters.ts';
import { PROOFS_ALREADY_VERIFIED } from '../src/ledger/proof-system.ts';
import type { LedgerState, NoteRecord } from '../src/ledger/state.ts';
import { noteId } from '../src/mantle/note.ts';
import { type Op, Opcode, opId } from '../src/mantle/ops.ts';
import { type SignedMantleTx, txHash } from '../src/mantle/tx.ts';

export const ACCEPT_ALL = PROOFS_ALREADY_VERIFIED;

export function context(): { ctx: LedgerContext; state: LedgerState } {
  const d = parseDeployment(readFileSync(new URL('../deployments/devnet.yaml', import.meta.url), 'utf8'));
  const ctx = { config: d.ledger, proofs: ACCEPT_ALL };
  return { ctx, state: buildGenesis(d, ctx, 1_700_000_000).state };
}

const PK = 123456789n;
const VALUE = 1_000_000n;

/** Adds `n` notes of owner PK with random ids; returns the state and their ids. */
export function withNotes(state: LedgerState, n: number): { state: LedgerState; ids: bigint[] } {
  const ids: bigint[] = [];
  const draft = new Draft(state);
  const recs: [bigint, number][] = [];
  draft.utxos = draft.utxos.withMutations((m) => {
    for (let i = 0; i < n; i++) {
      const id = frFromBytesModOrder(randomBytes(32));
      ids.push(id);
      recs.push([id, m.insert(id)]);
    }
  });
  draft.notes = draft.notes.withMutations((m) => {
    for (const [id, index] of recs) {
      m.set(id, {
        note: { value: VALUE, pk: PK },
        index,
        origin: 1n,
        output_index: 0,
        channel: null,
        locked_by: null,
      } satisfies NoteRecord);
    }
  });
  draft.utxos.root();
  // Spend notes from random positions of the tree, as real blocks do.
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return { state: draft.state(), ids };
}

const ZK = { pi_a: new Uint8Array(32), pi_b: new Uint8Array(64), pi_c: new Uint8Array(32) };

/** `count` transfers, each spending 2 of `ids` (consumed from the front) into 2 outputs. */
export function transfers(
  ids: bigint[],
  count: number,
  fee: bigint,
): { txs: SignedMantleTx[]; created: bigint[] } {
  const txs: SignedMantleTx[] = [];
  const created: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const inputs = ids.splice(0, 2);
    const outputs = [
      { value: VALUE, pk: PK },
      { value: VALUE - fee, pk: PK },
    ];
    const op: Op = { opcode: Opcode.Transfer, payload: { inputs, outputs } };
    const id = opId(op);
    outputs.forEach((n, j) => {
      created.push(noteId(id, j, n));
    });
    txs.push({ mantle_tx: { ops: [op] }, ops_proofs: [{ type: 'ZkSig', signature: ZK }] });
  }
  return { txs, created };
}

export function header(state: LedgerState, txs: SignedMantleTx[], parent: Uint8Array): Header {
  return {
    parent_block: parent,
    slot: state.slot + 1n,
    body_root: bodyRoot(
      [],
      txs.map((t) => txHash(t.mantle_tx)),
    ),
    proof_of_leadership: {
      proof: new Uint8Array(128),
      entropy_contribution: 1n,
      leader_key: new Uint8Array(32),
      voucher_cm: 1n,
    },
  };
}

/**
 * Consecutive blocks on `parent` (whose ledger state is `state`) of `perBlock` of `txs` each, one slot
 * apart, with no proof of leadership; signed by `leader` (its key in the header) or left unsigned.
 */
export function blocksOf(
  state: LedgerState,
  parent: Uint8Array,
  txs: readonly SignedMantleTx[],
  perBlock: number,
  config: LedgerConfig,
  leader?: Ed25519Signer,
): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < txs.length; i += perBlock) {
    const batch = txs.slice(i, i + perBlock);
    const h = header(state, batch, parent);
    const signed = leader
      ? { ...h, proof_of_leadership: { ...h.proof_of_leadership, leader_key: leader.publicKey } }
      : h;
    const block: Block = {
      header: signed,
      signature: leader ? leader.sign(encodeHeader(signed)) : new Uint8Array(64),
      uncle_headers: [],
      transactions: batch,
    };
    const r = applyBlock(state, block, { config, proofs: ACCEPT_ALL }, { skipProofOfLeadership: true });
    state = r.state;
    parent = r.id;
    blocks.push(block);
  }
  return blocks;
}
