/**
 * Helpers for the ledger tests ported from the reference: a genesis state with the devnet deployment,
 * single transactions applied the way the reference's `try_apply_tx` does (op by op, no block), and
 * Ed25519 keys built like the reference's `Ed25519Key::from_bytes(&[seed; 32])`.
 */
import assert from 'node:assert/strict';
import { Ed25519Signer } from '../../src/crypto/ed25519.ts';
import { executeTx, type TxOutcome } from '../../src/ledger/apply.ts';
import { Draft } from '../../src/ledger/draft.ts';
import { LedgerError } from '../../src/ledger/errors.ts';
import type { LedgerEvent } from '../../src/ledger/events.ts';
import type { ChannelState, LedgerState } from '../../src/ledger/state.ts';
import type { Op } from '../../src/mantle/ops.ts';
import type { IndexedSignature, OpProof } from '../../src/mantle/proofs.ts';
import type { SignedMantleTx } from '../../src/mantle/tx.ts';
import { CTX, genesisNotes, type Owned, signTx, TestChain } from '../mocks/ledger.ts';

export const ZERO32 = new Uint8Array(32);

export function edKey(seed: number): Ed25519Signer {
  return new Ed25519Signer(new Uint8Array(32).fill(seed));
}

export function bytes32(b: number): Uint8Array {
  return new Uint8Array(32).fill(b);
}

/** The genesis state with both gas prices at 0, so a transaction's fee check always passes. */
export function freshState(): { state: LedgerState; notes: Owned[] } {
  const c = new TestChain();
  return { state: withPrices(c.genesis.state, 0n, 0n), notes: genesisNotes(c.genesis) };
}

export function withPrices(state: LedgerState, execution: bigint, storage: bigint): LedgerState {
  return { ...state, gas: { ...state.gas, execution_base_gas_price: execution, storage_gas_price: storage } };
}

export interface Applied {
  state: LedgerState;
  outcome: TxOutcome;
  events: LedgerEvent[];
}

/** Verifies and executes one transaction against `state` (at `slot`), returning the state after it. */
export function applyTx(state: LedgerState, tx: SignedMantleTx, slot = state.slot): Applied {
  const draft = new Draft(state);
  const outcome = executeTx(draft, CTX, tx, slot);
  return { state: draft.state(), outcome, events: draft.events };
}

export function rejects(fn: () => unknown, code: string): void {
  assert.throws(fn, (e: unknown) => {
    if (!(e instanceof LedgerError)) return false;
    assert.equal(e.ledgerCode, code, e.message);
    return true;
  });
}

/** A multi-signature over `hash` by `signers`, at their given key indices. */
export function multiSig(hash: Uint8Array, signers: [number, Ed25519Signer][]): OpProof {
  const signatures: IndexedSignature[] = signers.map(([i, s]) => ({
    channel_key_index: i,
    signature: s.sign(hash),
  }));
  return { type: 'ChannelMultiSigProof', signatures };
}

/** Signs `ops`: ZK ops with `zkKeys[i]`, others through `custom` (by op index). */
export function signed(
  ops: Op[],
  zkKeys: (bigint[] | undefined)[],
  custom: (hash: Uint8Array, index: number) => OpProof | undefined = () => undefined,
): SignedMantleTx {
  return signTx(ops, zkKeys, (hash, _msg, _op, i) => custom(hash, i));
}

/** `make_channel_state` of the reference's test utilities. */
export function makeChannelState(transferThreshold: number, keys?: Uint8Array[]): ChannelState {
  return {
    accredited_keys: keys ?? [edKey(0).publicKey],
    configuration_threshold: 0,
    tip_message: ZERO32,
    config_tip_hash: ZERO32,
    tip_slot: 0n,
    tip_sequencer: 0,
    tip_sequencer_starting_slot: 0n,
    posting_timeframe: 0,
    posting_timeout: 0,
    transfer_threshold: transferThreshold,
  };
}
