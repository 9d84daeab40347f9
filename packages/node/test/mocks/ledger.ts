/** A small chain driver for ledger tests: the devnet deployment with the insecure test proof backend. */
import { readFileSync } from 'node:fs';
import { type Block, bodyRoot } from '../../src/block/block.ts';
import { encodeHeader, type Header } from '../../src/block/header.ts';
import { blake2b256 } from '../../src/crypto/blake2b.ts';
import { Ed25519Signer } from '../../src/crypto/ed25519.ts';
import { type Fr, frFromBytesModOrder } from '../../src/crypto/field.ts';
import { zkPublicKey } from '../../src/crypto/zk-keys.ts';
import { applyBlock, type BlockResult, epochStateAt, polPublicInputs } from '../../src/ledger/apply.ts';
import { type Deployment, parseDeployment } from '../../src/ledger/deployment.ts';
import { devnetKeys } from '../../src/ledger/devnet-keys.ts';
import type { LedgerContext } from '../../src/ledger/draft.ts';
import { executionGas } from '../../src/ledger/gas.ts';
import { buildGenesis, type Genesis } from '../../src/ledger/genesis.ts';
import type { LedgerState } from '../../src/ledger/state.ts';
import { locatorFromString } from '../../src/mantle/locator.ts';
import { type Note, noteId } from '../../src/mantle/note.ts';
import { type Op, Opcode, opId } from '../../src/mantle/ops.ts';
import { type OpProof, PROOF_TYPE_OF } from '../../src/mantle/proofs.ts';
import { encodeSignedTx, type SignedMantleTx, txHash, txHashToFr } from '../../src/mantle/tx.ts';
import {
  INSECURE_TEST_CHECKS,
  insecureTestPolProof,
  insecureTestZkSign,
} from '../../src/zk/insecure-test-proofs.ts';

/**
 * The ledger tests' chain: the devnet deployment with f = 1/2 (k = 10: 200-slot epochs, 20-slot
 * periods), the lottery the tests' slot numbers are chosen for, and a PoW reward target of p / 2^8
 * (a winning ticket every 256 attempts); as YAML text and parsed.
 */
export const DEVNET_YAML = readFileSync(new URL('../../deployments/devnet.yaml', import.meta.url), 'utf8')
  .replace(/active_slot_coeff: \S+/, 'active_slot_coeff: 1/2')
  .replace(/initial_difficulty: \d+/, 'initial_difficulty: 8');

export const DEVNET: Deployment = parseDeployment(DEVNET_YAML, 'devnet.yaml');

export const KEYS = devnetKeys(4);

export function ctxOf(d: Deployment = DEVNET): LedgerContext {
  return { config: d.ledger, proofs: INSECURE_TEST_CHECKS };
}

export const CTX = ctxOf();

/** The one-time leader key TestChain signs its headers with. */
export const TEST_LEADER = new Ed25519Signer(new Uint8Array(32).fill(42));
const leader = TEST_LEADER;

/** Placeholder proofs of the right sizes, replaced after the tx hash is known. */
export function placeholderProof(op: Op): OpProof {
  switch (PROOF_TYPE_OF[op.opcode]) {
    case 'ZkSig':
      return {
        type: 'ZkSig',
        signature: { pi_a: new Uint8Array(32), pi_b: new Uint8Array(64), pi_c: new Uint8Array(32) },
      };
    case 'Ed25519Sig':
      return { type: 'Ed25519Sig', signature: new Uint8Array(64) };
    case 'ZkAndEd25519Sigs':
      return {
        type: 'ZkAndEd25519Sigs',
        zk_sig: { pi_a: new Uint8Array(32), pi_b: new Uint8Array(64), pi_c: new Uint8Array(32) },
        ed25519_sig: new Uint8Array(64),
      };
    case 'PoC':
      return { type: 'PoC', proof: new Uint8Array(128) };
    case 'ChannelMultiSigProof':
      return { type: 'ChannelMultiSigProof', signatures: [] };
    case 'None':
      return { type: 'None' };
  }
}

/** Mandatory fee of a transaction at the state's prices (proof bytes have fixed sizes, so placeholders do). */
export function mandatoryFee(state: LedgerState, tx: SignedMantleTx): bigint {
  const gas = tx.mantle_tx.ops.reduce((a, op, i) => a + executionGas(op, tx.ops_proofs[i]!), 0n);
  return (
    gas * state.gas.execution_base_gas_price + BigInt(encodeSignedTx(tx).length) * state.gas.storage_gas_price
  );
}

export interface Owned {
  id: Fr;
  note: Note;
  sk: Fr;
}

/** The genesis notes with their owners' secret keys. */
export function genesisNotes(g: Genesis): Owned[] {
  const out: Owned[] = [];
  for (const [id, rec] of g.state.notes.entries()) {
    const key = KEYS.find((k) => k.publicKey === rec.note.pk);
    if (key) out.push({ id, note: rec.note, sk: key.secretKey });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** Returns the proof of an op, or undefined to sign it with the ZK keys given for it. */
export type ProofSigner = (hash: Uint8Array, msg: Fr, op: Op, index: number) => OpProof | undefined;

/** Signs every op: ZkSig ops by `zkKeys[i]` (secret keys in the order the ledger expects), others by `custom`. */
export function signTx(ops: Op[], zkKeys: (Fr[] | undefined)[], custom?: ProofSigner): SignedMantleTx {
  const hash = txHash({ ops });
  const msg = txHashToFr(hash);
  const proofs = ops.map((op, i): OpProof => {
    const p = custom?.(hash, msg, op, i);
    if (p) return p;
    const keys = zkKeys[i] ?? [];
    const sig = insecureTestZkSign(msg, keys);
    if (PROOF_TYPE_OF[op.opcode] === 'ZkSig') return { type: 'ZkSig', signature: sig };
    return placeholderProof(op);
  });
  return { mantle_tx: { ops }, ops_proofs: proofs };
}

/**
 * A transfer spending `inputs`, paying `payments`, with the change (inputs − payments − fee − tip)
 * back to the first input's owner. Returns the tx and the ids of the notes it creates.
 */
export function transfer(
  state: LedgerState,
  inputs: Owned[],
  payments: Note[],
  opts: { tip?: bigint; feeOverride?: bigint } = {},
): { tx: SignedMantleTx; outputs: Owned[] } {
  const owner = inputs[0]!;
  const inSum = inputs.reduce((a, n) => a + n.note.value, 0n);
  const paid = payments.reduce((a, n) => a + n.value, 0n);
  const build = (change: bigint): Op => ({
    opcode: Opcode.Transfer,
    payload: {
      inputs: inputs.map((n) => n.id),
      outputs: [...payments, { value: change, pk: owner.note.pk }],
    },
  });
  const draftOps = [build(1n)];
  const fee =
    opts.feeOverride ??
    mandatoryFee(state, { mantle_tx: { ops: draftOps }, ops_proofs: draftOps.map(placeholderProof) });
  const change = inSum - paid - fee - (opts.tip ?? 0n);
  const op = build(change);
  const tx = signTx([op], [inputs.map((n) => n.sk)]);
  const id = opId(op);
  const outs = [...payments, { value: change, pk: owner.note.pk }].map((note, i) => {
    const sk = [...KEYS, ...extraKeys].find((k) => k.publicKey === note.pk)?.secretKey ?? 0n;
    return { id: noteId(id, i, note), note, sk };
  });
  return { tx, outputs: outs };
}

/** A transfer of `fund` back to its owner less `fee`: the fee-paying first op of a transaction. */
export function feeOp(fund: Owned, fee = 200_000n): { op: Op; change: Owned } {
  const note = { value: fund.note.value - fee, pk: fund.note.pk };
  const op: Op = { opcode: Opcode.Transfer, payload: { inputs: [fund.id], outputs: [note] } };
  return { op, change: { id: noteId(opId(op), 0, note), note, sk: fund.sk } };
}

/** An SDP declaration of a Blend node locking `serviceNote`, at one locator. */
export function declareOp(
  serviceNote: Fr,
  providerId: Uint8Array,
  zkId: Fr,
  locator = '/ip4/127.0.0.1/udp/3000/quic-v1',
): Op {
  return {
    opcode: Opcode.SDPDeclare,
    payload: {
      service_type: 'BN',
      locators: [locatorFromString(locator)],
      provider_id: providerId,
      zk_id: zkId,
      service_note_id: serviceNote,
    },
  };
}

export const extraKeys: { secretKey: Fr; publicKey: Fr }[] = [];

/** A fresh ZK key pair, remembered so that transfers to it can be spent in tests. */
export function newKey(label: string): { secretKey: Fr; publicKey: Fr } {
  const secretKey = frFromBytesModOrder(blake2b256(new TextEncoder().encode(label)));
  const k = { secretKey, publicKey: zkPublicKey(secretKey) };
  extraKeys.push(k);
  return k;
}

/** Drives a chain of blocks on top of a genesis, producing valid headers with the test proof backend. */
export class TestChain {
  state: LedgerState;
  tip: Uint8Array;
  readonly ctx: LedgerContext;
  readonly genesis: Genesis;

  constructor(d: Deployment = DEVNET) {
    this.ctx = ctxOf(d);
    this.genesis = buildGenesis(d, this.ctx, 1_700_000_000);
    this.state = this.genesis.state;
    this.tip = this.genesis.id;
  }

  /** Builds a valid block at `slot` (default: the next slot) with these transactions. */
  block(txs: SignedMantleTx[], slot: bigint = this.state.slot + 1n, voucherCm = 7n, entropy = 11n): Block {
    const proof_of_leadership: Header['proof_of_leadership'] = {
      proof: new Uint8Array(128),
      entropy_contribution: entropy,
      leader_key: leader.publicKey,
      voucher_cm: voucherCm,
    };
    const header: Header = {
      parent_block: this.tip,
      slot,
      body_root: bodyRoot(
        [],
        txs.map((t) => txHash(t.mantle_tx)),
      ),
      proof_of_leadership,
    };
    const es = epochStateAt(this.state, this.ctx, slot);
    proof_of_leadership.proof = insecureTestPolProof(polPublicInputs(es, this.state.utxos.root(), header));
    return { header, signature: leader.sign(encodeHeader(header)), uncle_headers: [], transactions: txs };
  }

  /** Applies a block of these transactions and moves the tip. */
  apply(txs: SignedMantleTx[], slot?: bigint, voucherCm?: bigint): BlockResult {
    const b = this.block(txs, slot, voucherCm);
    const r = applyBlock(this.state, b, this.ctx);
    this.state = r.state;
    this.tip = r.id;
    return r;
  }

  /** Applies empty blocks until the chain reaches `slot` (one block per `step` slots). */
  advanceTo(slot: bigint, step = 1n): void {
    while (this.state.slot + step <= slot) this.apply([], this.state.slot + step);
    if (this.state.slot < slot) this.apply([], slot);
  }
}

let baseState: LedgerState | undefined;

/**
 * The devnet genesis ledger state with some fields replaced: a whole `LedgerState` for tests whose
 * code reads only a few fields (notes, vouchers, declarations) and sets just those.
 */
export function stateWith(over: Partial<LedgerState>): LedgerState {
  baseState ??= buildGenesis(DEVNET, CTX, 1_700_000_000).state;
  return { ...baseState, ...over };
}
