/**
 * Gas, fees and the gas markets, ported from the reference: ledger/src/cryptarchia/mod.rs (market
 * formulas), ledger/src/lib.rs (fee checks, tips, storage gas), core/src/mantle/transactions/
 * signed_mantle_tx.rs (execution gas of signed transactions) and the `OperationGas` constants of
 * core/src/mantle/ops/**.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { executionGas, updateExecutionMarket, updateStorageMarket } from '../../src/ledger/gas.ts';
import {
  epochSchedule,
  GENESIS_STORAGE_GAS_PRICE,
  MAX_BLOCK_EXECUTION_GAS,
} from '../../src/ledger/parameters.ts';
import { noteId } from '../../src/mantle/note.ts';
import { type Op, Opcode, opId } from '../../src/mantle/ops.ts';
import { encodeSignedTx } from '../../src/mantle/tx.ts';
import { DEVNET, genesisNotes, placeholderProof, TestChain } from '../mocks/ledger.ts';
import { applyTx, bytes32, edKey, multiSig, rejects, signed, withPrices, ZERO32 } from './ledger-helpers.ts';

const CM = 'ledger/src/cryptarchia/mod.rs';
const LIB = 'ledger/src/lib.rs';

/** `update_storage_market(price, consumed, ema) -> (price, ema)` with the reference's argument order. */
function storage(price: bigint, consumed: bigint, ema: bigint): [bigint, bigint] {
  const r = updateStorageMarket(price, ema, consumed);
  return [r.price, r.ema];
}

test(`test_storage_market_update (${CM})`, () => {
  assert.deepEqual(storage(500n, 0n, 681n), [438n, 340n]);
  assert.deepEqual(storage(113n, 600n, 300n), [128n, 450n]);
  assert.deepEqual(storage(113n, 200n, 800n), [99n, 500n]);
  assert.deepEqual(storage(221n, 900n, 200n), [249n, 550n]);
  assert.deepEqual(storage(221n, 100n, 900n), [194n, 500n]);
  assert.deepEqual(storage(345n, 250n, 80n), [389n, 165n]);
  assert.deepEqual(storage(345n, 50n, 750n), [302n, 400n]);
  assert.deepEqual(storage(517n, 220n, 100n), [582n, 160n]);
  assert.deepEqual(storage(517n, 120n, 850n), [453n, 485n]);
  assert.deepEqual(storage(999n, 1000n, 300n), [1124n, 650n]);
  assert.deepEqual(storage(999n, 300n, 1000n), [875n, 650n]);
});

test(`storage_price_held_when_effective_target_is_zero (${CM})`, () => {
  assert.deepEqual(storage(1000n, 0n, 0n), [1000n, 0n]);
  assert.equal(storage(1000n, 0n, 800n)[0], 875n);
});

test(`storage_price_rises_under_sustained_heavy_usage (${CM})`, () => {
  let [price, ema] = [GENESIS_STORAGE_GAS_PRICE, 0n];
  for (let i = 0; i < 1000; i++) [price, ema] = storage(price, 1_000_000n, ema);
  assert.ok(price > GENESIS_STORAGE_GAS_PRICE);
});

test(`storage_price_recovers_when_usage_returns_after_quiet_epochs (${CM})`, () => {
  let [price, ema] = [GENESIS_STORAGE_GAS_PRICE, 0n];
  for (let i = 0; i < 4; i++) [price, ema] = storage(price, 1_000_000n, ema);
  for (let i = 0; i < 4; i++) [price, ema] = storage(price, 0n, ema);
  const quiet = price;
  for (let i = 0; i < 1000; i++) [price, ema] = storage(price, 1_000_000n, ema);
  assert.ok(price > quiet);
});

test(`test_execution_market_update (${CM})`, () => {
  const cases: [bigint, bigint, bigint, bigint, bigint][] = [
    // price, average, block gas → price', average'
    [10_000n, 1_596_730n, 1_700_000n, 10_009n, 1_607_057n],
    [10_000n, 1_596_730n, 1_400_000n, 9_985n, 1_577_057n],
    [20_000n, 1_000_000n, 2_500_000n, 19_301n, 1_150_000n],
    [15_000n, 2_000_000n, 500_000n, 15_298n, 1_850_000n],
    [30_000n, 1_800_000n, 1_000_000n, 30_290n, 1_720_000n],
  ];
  for (const [price, average, gas, p, a] of cases) {
    assert.deepEqual(updateExecutionMarket(price, average, gas), { price: p, average: a });
  }
});

test(`execution_price_rises_under_sustained_maximum_load (${CM})`, () => {
  let m = { price: 1n, average: 0n };
  for (let i = 0; i < 10_000; i++) m = updateExecutionMarket(m.price, m.average, MAX_BLOCK_EXECUTION_GAS);
  assert.ok(m.price > 1n);
});

test(`execution_price_recovers_when_demand_returns_after_quiet_blocks (${CM})`, () => {
  let m = { price: 1n, average: 0n };
  for (let i = 0; i < 100; i++) m = updateExecutionMarket(m.price, m.average, 0n);
  const quiet = m.price;
  for (let i = 0; i < 10_000; i++) m = updateExecutionMarket(m.price, m.average, MAX_BLOCK_EXECUTION_GAS);
  assert.ok(m.price > quiet);
});

test(`test_accumulated_storage_gas_drives_next_epoch_price (${CM})`, () => {
  const c = new TestChain();
  c.state = {
    ...c.state,
    gas: {
      ...c.state.gas,
      storage_gas_price: 113n,
      storage_gas_ema: 300n,
      storage_gas_consumed_in_epoch: 600n,
    },
  };
  c.apply([], epochSchedule(DEVNET.ledger.consensus).epoch_length + 1n);
  assert.equal(c.state.epoch_state.epoch, 1);
  assert.equal(c.state.gas.storage_gas_price, 128n);
  assert.equal(c.state.gas.storage_gas_ema, 450n);
  assert.equal(c.state.gas.storage_gas_consumed_in_epoch, 0n);
});

// ---------- execution gas per op (core/src/mantle/ops/**, OperationGas) ----------

test('OperationGas of every op (core/src/mantle/ops/**)', () => {
  const gasOf = (op: Op, proof = placeholderProof(op)) => executionGas(op, proof);
  const sigs = (n: number) => ({
    type: 'ChannelMultiSigProof' as const,
    signatures: Array.from({ length: n }, (_, i) => ({
      channel_key_index: i,
      signature: new Uint8Array(64),
    })),
  });
  const transfer: Op = { opcode: Opcode.Transfer, payload: { inputs: [1n], outputs: [] } };
  const dep: Op = {
    opcode: Opcode.ChannelDeposit,
    payload: { channel_id: ZERO32, inputs: [1n], metadata: new Uint8Array() },
  };
  const wd: Op = { opcode: Opcode.ChannelWithdraw, payload: { channel_id: ZERO32, inputs: [1n] } };
  const ct: Op = {
    opcode: Opcode.ChannelTransfer,
    payload: { channel_id: ZERO32, inputs: [1n], outputs: [] },
  };
  const cfg: Op = {
    opcode: Opcode.ChannelConfig,
    payload: {
      channel: ZERO32,
      parent: ZERO32,
      keys: [ZERO32],
      posting_timeframe: 0,
      posting_timeout: 0,
      configuration_threshold: 1,
      transfer_threshold: 1,
    },
  };
  const ins: Op = {
    opcode: Opcode.ChannelInscribe,
    payload: { channel_id: ZERO32, inscription: new Uint8Array(), parent: ZERO32, signer: ZERO32 },
  };
  assert.equal(gasOf(transfer), 590n);
  assert.equal(gasOf(dep), 590n);
  assert.equal(gasOf(ins), 56n);
  for (const op of [cfg, wd, ct]) {
    assert.equal(gasOf(op, sigs(0)), 0n);
    assert.equal(gasOf(op, sigs(3)), 168n);
  }
  assert.equal(
    gasOf({
      opcode: Opcode.ClaimPowReward,
      payload: { epoch_nonce: 0n, block_hash: ZERO32, public_key: 0n },
    }),
    1n,
  );
  assert.equal(
    gasOf({ opcode: Opcode.LeaderClaim, payload: { rewards_root: 0n, voucher_nullifier: 0n, pk: 0n } }),
    580n,
  );
});

test('signed_execution_gas_uses_multi_signature_proof_lengths (core/src/mantle/transactions/signed_mantle_tx.rs)', () => {
  const configKeys = [1, 2, 3].map(edKey);
  const withdrawKeys = [4, 5].map(edKey);
  const ops: Op[] = [
    {
      opcode: Opcode.ChannelConfig,
      payload: {
        channel: bytes32(6),
        parent: ZERO32,
        keys: [configKeys[0]!.publicKey],
        posting_timeframe: 0,
        posting_timeout: 0,
        configuration_threshold: 1,
        transfer_threshold: 1,
      },
    },
    {
      opcode: Opcode.ChannelDeposit,
      payload: { channel_id: bytes32(7), inputs: [0n], metadata: new Uint8Array() },
    },
    { opcode: Opcode.ChannelWithdraw, payload: { channel_id: bytes32(8), inputs: [0n] } },
  ];
  const tx = signed(ops, [undefined, []], (h, i) =>
    i === 0
      ? multiSig(
          h,
          configKeys.map((k, j) => [j, k] as [number, typeof k]),
        )
      : i === 2
        ? multiSig(
            h,
            withdrawKeys.map((k, j) => [j, k] as [number, typeof k]),
          )
        : undefined,
  );
  const gas = tx.mantle_tx.ops.reduce((a, op, i) => a + executionGas(op, tx.ops_proofs[i]!), 0n);
  assert.equal(gas, 3n * 56n + 590n + 2n * 56n);
});

// ---------- fees (ledger/src/lib.rs) ----------

/** `create_tx`: a transfer of `input` to one output of `value`, signed by the input's key. */
function transferTx(input: { id: bigint; sk: bigint }, outputs: { value: bigint; pk: bigint }[]) {
  return signed([{ opcode: Opcode.Transfer, payload: { inputs: [input.id], outputs } }], [[input.sk]]);
}

function feeOf(tx: ReturnType<typeof transferTx>, exec: bigint, storagePrice: bigint): bigint {
  const gas = tx.mantle_tx.ops.reduce((a, op, i) => a + executionGas(op, tx.ops_proofs[i]!), 0n);
  return gas * exec + BigInt(encodeSignedTx(tx).length) * storagePrice;
}

test(`test_fee_rejection (${LIB})`, () => {
  const c = new TestChain();
  const utxo = genesisNotes(c.genesis)[0]!;
  const state = withPrices(c.state, 1n, 1n);
  const probe = transferTx(utxo, [{ value: 1n, pk: 0n }]);
  const fees = feeOf(probe, 1n, 1n);
  const tx = transferTx(utxo, [{ value: utxo.note.value - fees, pk: 0n }]);
  assert.equal(applyTx(state, tx).outcome.mandatoryFee, fees);
  rejects(() => applyTx(withPrices(state, 10n, 1n), tx), 'InsufficientBalance');
});

test(`test_priority_fees_go_to_leader (${LIB})`, () => {
  const base = new TestChain();
  const utxo = genesisNotes(base.genesis)[0]!;
  const probe = transferTx(utxo, [{ value: 1n, pk: 0n }]);
  // 590 execution gas + 204 bytes at prices 1 and 1.
  assert.equal(encodeSignedTx(probe).length, 204);
  const fees = feeOf(probe, 1n, 1n);
  assert.equal(fees, 794n);
  const pending = (tip: bigint) => {
    const c = new TestChain();
    const r = c.apply([transferTx(utxo, [{ value: utxo.note.value - fees - tip, pk: 0n }])]);
    assert.equal(r.events.length, 0);
    return r.state.leader.pending_rewards;
  };
  assert.equal(pending(0n) + 1000n, pending(1000n));
});

test(`test_apply_contents_accumulates_storage_gas (${LIB})`, () => {
  const c = new TestChain();
  const utxo = genesisNotes(c.genesis)[0]!;
  // No outputs: the whole input pays the fee, the rest is a tip.
  const tx = transferTx(utxo, []);
  const size = BigInt(encodeSignedTx(tx).length);
  assert.ok(size > 0n);
  c.apply([tx]);
  assert.equal(c.state.gas.storage_gas_consumed_in_epoch, size);
});

test(`test_ledger_try_update_with_transaction (${LIB})`, () => {
  const c = new TestChain();
  const utxo = genesisNotes(c.genesis)[0]!;
  const out = { value: 1n, pk: 1n };
  const fees = feeOf(transferTx(utxo, [out]), 1n, 1n);
  const tx = transferTx(utxo, [{ ...out, value: utxo.note.value - fees }]);
  const r = c.apply([tx], 1n);
  assert.equal(r.events.length, 0);
  assert.equal(r.state.notes.has(utxo.id), false);
  const op = tx.mantle_tx.ops[0]!;
  assert.ok(r.state.notes.has(noteId(opId(op), 0, { ...out, value: utxo.note.value - fees })));
});

test(`test_ledger_creation (${LIB})`, () => {
  const c = new TestChain();
  const utxo = genesisNotes(c.genesis)[0]!;
  assert.ok(c.state.notes.has(utxo.id));
  assert.equal(c.state.slot, 0n);
});
