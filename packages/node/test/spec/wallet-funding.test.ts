/**
 * The reference's funding and builder tests, with their values: `wallet/src/lib.rs` (`fund_tx`) and
 * `core/src/mantle/transactions/builder.rs` (fees, change, consumed notes). Keys are `pk(v) = Fr(v)`,
 * tx hashes `[v; 32]`, gas prices (execution, storage).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ed25519PublicKey } from '../../src/crypto/ed25519.ts';
import type { Fr } from '../../src/crypto/field.ts';
import type { GasContext } from '../../src/ledger/gas.ts';
import type { NoteRecord } from '../../src/ledger/state.ts';
import { type Note, type Utxo, utxoId } from '../../src/mantle/note.ts';
import { type Op, Opcode } from '../../src/mantle/ops.ts';
import {
  addLedgerInputs,
  addLedgerOutputs,
  buildTx,
  consumedOrLockedNotes,
  fundingDelta,
  minimumGasCost,
  netBalance,
  newBuilder,
  priorityFeeAmount,
  requiredFee,
  returnChange,
} from '../../src/wallet/builder.ts';
import { WalletError } from '../../src/wallet/errors.ts';
import { fundBuilder } from '../../src/wallet/funding.ts';
import type { TxBuilder } from '../../src/wallet/interface.ts';
import { OwnedNotes } from '../../src/wallet/owned-notes.ts';

const pk = (v: number): Fr => BigInt(v);
const txHash = (v: number) => new Uint8Array(32).fill(v);
const utxo = (h: number, i: number, value: number, owner: Fr): Utxo => ({
  op_id: txHash(h),
  output_index: i,
  note: { value: BigInt(value), pk: owner },
});
const input = (u: Utxo) => ({ id: utxoId(u), utxo: u });

/** The wallet's notes of these utxos (F `WalletState::from_ledger`); `locked` ones are SDP-locked. */
function walletOf(utxos: readonly Utxo[], locked: readonly Utxo[] = []): OwnedNotes {
  return OwnedNotes.of(
    utxos.map((u): [Fr, NoteRecord] => [
      utxoId(u),
      {
        note: u.note,
        index: 0,
        origin: BigInt(`0x${Buffer.from(u.op_id).reverse().toString('hex')}`),
        output_index: u.output_index,
        channel: null,
        locked_by: locked.includes(u) ? 'cc'.repeat(32) : null,
      },
    ]),
  );
}

function gas(exec: number, storage: number, transferThresholds: Record<string, number> = {}): GasContext {
  return {
    execution_base_gas_price: BigInt(exec),
    storage_gas_price: BigInt(storage),
    transferThreshold: (id) => transferThresholds[id],
    configurationThreshold: () => undefined,
  };
}

function lastTransfer(b: TxBuilder): { inputs: Fr[]; outputs: Note[] } {
  const ops = buildTx(b).ops;
  const last = ops[ops.length - 1]!;
  assert.equal(last.opcode, Opcode.Transfer, 'last op must be a transfer');
  return last.payload as { inputs: Fr[]; outputs: Note[] };
}

const inscription = (bytes: number): Op => ({
  opcode: Opcode.ChannelInscribe,
  payload: {
    channel_id: new Uint8Array(32).fill(0xaa),
    inscription: new Uint8Array(bytes).fill(0xab),
    parent: new Uint8Array(32).fill(0xbb),
    signer: ed25519PublicKey(new Uint8Array(32).fill(1)),
  },
});

const insufficient = (available: bigint) => (e: unknown) =>
  e instanceof WalletError &&
  e.code === 'WALLET_INSUFFICIENT_FUNDS' &&
  e.message === `Wallet does not have enough funds, available=${available}`;

test('test_fund_tx_with_change (wallet/src/lib.rs)', () => {
  const alice = pk(1);
  const utxo1 = utxo(0, 0, 5000, alice);
  const utxo2 = utxo(0, 1, 5000, alice);
  // utxo1 is locked deliberately: funding leaves locked notes out.
  const ctx = gas(1, 1);
  const candidates = walletOf([utxo1, utxo2], [utxo1]).spendable([alice], new Set());
  const funded = fundBuilder(newBuilder(), candidates, alice, ctx, 0n);
  assert.equal(minimumGasCost(funded, ctx), 794n);
  assert.equal(netBalance(funded), 794n);
  assert.equal(fundingDelta(funded, ctx, 0n), 0n);
  const t = lastTransfer(funded);
  assert.deepEqual(t.inputs, [utxoId(utxo2)]);
  assert.deepEqual(t.outputs, [{ value: 4206n, pk: alice }]);
});

test('test_fund_tx_with_priority_fee_percentage (wallet/src/lib.rs)', () => {
  const alice = pk(1);
  const u = utxo(0, 0, 5000, alice);
  const ctx = gas(1, 1);
  const pct = 12n;
  const withoutChange = minimumGasCost(addLedgerInputs(newBuilder(), [input(utxo(1, 0, 0, alice))]), ctx);
  const funded = fundBuilder(newBuilder(), [input(u)], alice, ctx, pct);
  const mandatory = minimumGasCost(funded, ctx);
  assert.equal(withoutChange, 754n);
  assert.equal(mandatory, 794n);
  const prio = (mandatory * pct + 99n) / 100n;
  assert.equal(netBalance(funded), mandatory + prio);
  assert.equal(fundingDelta(funded, ctx, pct), 0n);
  assert.deepEqual(lastTransfer(funded).outputs, [{ value: 5000n - mandatory - prio, pk: alice }]);
});

test('test_fund_tx_no_fee_adds_no_input (wallet/src/lib.rs)', () => {
  const alice = pk(1);
  const ctx = gas(0, 0);
  const b = newBuilder([inscription(8)]);
  assert.equal(fundingDelta(b, ctx, 0n), 0n);
  const funded = fundBuilder(b, [input(utxo(0, 0, 5000, alice))], alice, ctx, 0n);
  assert.equal(netBalance(funded), 0n);
  assert.ok(!buildTx(funded).ops.some((op) => op.opcode === Opcode.Transfer));
});

test('test_fund_tx_insufficient_funds (wallet/src/lib.rs)', () => {
  const alice = pk(1);
  const notes = [0, 1, 2, 3].map((i) => input(utxo(0, i, 100, alice)));
  assert.throws(
    () => fundBuilder(newBuilder([inscription(1000)]), notes, alice, gas(1, 1), 0n),
    insufficient(400n),
  );
});

test('test_fund_tx_zero_funds (wallet/src/lib.rs)', () => {
  assert.throws(() => fundBuilder(newBuilder(), [], pk(1), gas(1, 1), 0n), insufficient(0n));
});

test('test_fund_tx_all_locked_notes (wallet/src/lib.rs)', () => {
  const alice = pk(1);
  const u = utxo(0, 0, 5000, alice);
  const candidates = walletOf([u], [u]).spendable([alice], new Set());
  assert.throws(() => fundBuilder(newBuilder(), candidates, alice, gas(1, 1), 0n), insufficient(0n));
});

test('test_fund_tx_respects_pk_list (wallet/src/lib.rs)', () => {
  const alice = pk(1);
  const bob = pk(2);
  const wallet = walletOf([utxo(0, 0, 1_000_000, bob)]);
  assert.throws(
    () => fundBuilder(newBuilder(), wallet.spendable([alice], new Set()), alice, gas(1, 1), 0n),
    insufficient(0n),
  );
  fundBuilder(newBuilder(), wallet.spendable([bob], new Set()), bob, gas(1, 1), 0n);
});

test('test_fund_tx_unfundable_region (wallet/src/lib.rs)', () => {
  const alice = pk(1);
  const ctx = gas(1, 1);
  const one = addLedgerInputs(newBuilder(), [input(utxo(0, 0, 0, pk(0)))]);
  assert.equal(minimumGasCost(one, ctx), 754n);
  const exact = fundBuilder(newBuilder(), [input(utxo(0, 0, 754, alice))], alice, ctx, 0n);
  assert.deepEqual(lastTransfer(exact).outputs, []);
  assert.equal(minimumGasCost(addLedgerOutputs(one, [{ value: 0n, pk: 0n }]), ctx), 794n);
  for (let value = 755; value <= 794; value++) {
    assert.throws(
      () => fundBuilder(newBuilder(), [input(utxo(0, 0, value, alice))], alice, ctx, 0n),
      insufficient(BigInt(value)),
    );
  }
  const change = fundBuilder(newBuilder(), [input(utxo(0, 0, 795, alice))], alice, ctx, 0n);
  assert.deepEqual(lastTransfer(change).outputs, [{ value: 1n, pk: alice }]);
});

test('largest notes first: the fewest inputs that cover the fee', () => {
  const alice = pk(1);
  const ctx = gas(1, 1);
  const small = [10, 20, 30].map((v, i) => input(utxo(2, i, v, alice)));
  const big = input(utxo(2, 9, 2000, alice));
  const funded = fundBuilder(newBuilder(), [...small, big], alice, ctx, 0n);
  assert.deepEqual(lastTransfer(funded).inputs, [big.id]);
});

test('priority_fee_percentage_rounds_up_without_a_cap (core/src/mantle/transactions/builder.rs)', () => {
  assert.equal(priorityFeeAmount(0n, 12n), 0n);
  assert.equal(priorityFeeAmount(1n, 12n), 1n);
  assert.equal(priorityFeeAmount(8n, 12n), 1n);
  assert.equal(priorityFeeAmount(9n, 12n), 2n);
  assert.equal(priorityFeeAmount(100n, 101n), 101n);
});

test('priority_fee_percentage_handles_u64_boundaries (core/src/mantle/transactions/builder.rs)', () => {
  const max = 0xffff_ffff_ffff_ffffn;
  assert.equal(priorityFeeAmount(max, 100n), max);
  assert.throws(() => priorityFeeAmount(max, 101n), /Gas computation overflow/);
  assert.throws(() => requiredFee(max, 100n), /Gas computation overflow/);
});

test('transfer_op (core/src/mantle/transactions/builder.rs)', () => {
  const ctx = gas(0, 0);
  let b = addLedgerOutputs(newBuilder(), [{ value: 40n, pk: 0n }]);
  b = addLedgerInputs(b, [input(utxo(0, 0, 50, 0n))]);
  assert.equal(netBalance(b), 10n);
  assert.equal(fundingDelta(b, ctx, 0n), 10n);
  const withChange = returnChange(b, ctx, 0n, 0n)!;
  assert.equal(netBalance(withChange), 0n);
  assert.equal(fundingDelta(withChange, ctx, 0n), 0n);
});

test('withdraw_gas_cost_without_threshold_returns_error (core/src/mantle/transactions/builder.rs)', () => {
  const channel = new Uint8Array(32).fill(9);
  const b = newBuilder([{ opcode: Opcode.ChannelWithdraw, payload: { channel_id: channel, inputs: [0n] } }]);
  assert.throws(() => minimumGasCost(b, gas(1, 0)), /Missing transfer threshold for channel 0909/);
  // With the channel's threshold known and zero prices the op is already balanced (withdraw_op).
  assert.equal(fundingDelta(b, gas(0, 0, { ['09'.repeat(32)]: 1 }), 0n), 0n);
});

test('consumed_or_locked_notes (core/src/mantle/transactions/builder.rs)', () => {
  const transferInput = utxo(0, 0, 50, 0n);
  const b = addLedgerInputs(
    newBuilder([
      {
        opcode: Opcode.ChannelDeposit,
        payload: { channel_id: new Uint8Array(32), inputs: [1n], metadata: new Uint8Array() },
      },
      {
        opcode: Opcode.SDPDeclare,
        payload: {
          service_type: 'BN',
          locators: [],
          provider_id: ed25519PublicKey(new Uint8Array(32)),
          zk_id: 0n,
          service_note_id: 2n,
        },
      },
      {
        opcode: Opcode.SDPWithdraw,
        payload: { declaration_id: new Uint8Array(32), nonce: 1n, service_note_id: 3n },
      },
    ]),
    [input(transferInput)],
  );
  assert.deepEqual(consumedOrLockedNotes(b), [1n, 2n, 3n, utxoId(transferInput)]);
});
