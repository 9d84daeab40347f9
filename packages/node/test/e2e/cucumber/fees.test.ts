/**
 * The scenarios of the reference's `tests/cucumber_tests/features/fees.feature` (steps in
 * `tests/src/cucumber/steps/fees/` and `steps/wallet_fund.rs`, the spec reference in
 * `tests/src/common/fee_spec.rs`), one test each, named after the scenario, on the fast test deployment
 * (100 ms slots, f = 1/2, the insecure test proofs), where F's timeouts of 60 to 300 seconds are upper
 * bounds met in about a second.
 *
 * Shared node: every scenario but the gas market one runs in order on one node (NODE_1) whose genesis
 * holds every scenario's wallet resources, each scenario under its own wallet names; each starts on a
 * chain at the scenario's height with its wallets holding exactly their genesis notes, as F's fresh
 * cluster does (the node's funding wallet, devnet key 0, pays the node-funded transactions of several
 * scenarios; F's checks never read its balance). "Execution and storage gas prices respond…" needs its
 * own chain from genesis (k = 3, every block's prices recorded) and has its own node.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, parseJson } from '@logos-ts/shared/json';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import { Ed25519Signer } from '../../../src/crypto/ed25519.ts';
import { gasContextOf, minimumTotalGasCost } from '../../../src/ledger/gas.ts';
import { GENESIS_EXECUTION_GAS_PRICE, GENESIS_STORAGE_GAS_PRICE } from '../../../src/ledger/parameters.ts';
import { mantleTx } from '../../../src/mantle/tx.ts';
import {
  NdjsonClient,
  parseBlockLine,
  startFastNode,
  type TestNode,
  waitUntil,
} from '../../utils/api-node.ts';
import {
  balanceOf,
  call,
  cucumberDeployment,
  fundingPk,
  inscribeOp,
  notIncludedFor,
  type Prepared,
  pkOf,
  prepare,
  resigned,
  send,
  signInscription,
  submit,
  submitOk,
  type WalletResource,
  waitBalance,
  waitHeight,
  waitIncluded,
  waitNotPending,
  withWallets,
} from '../../utils/cucumber-world.ts';

const RESOURCES: WalletResource[] = [
  { wallet: 'gas WALLET_1A', count: 1, amount: 1000 },
  { wallet: 'payment WALLET_1A', count: 1, amount: 1000 },
  { wallet: 'inscription WALLET_1A', count: 1, amount: 10000 },
  { wallet: 'exact WALLET_1A', count: 1, amount: 10000 },
  { wallet: 'exact WALLET_2A', count: 1, amount: 10000 },
  { wallet: 'exact WALLET_3A', count: 1, amount: 10000 },
  { wallet: 'concurrent FUNDER_A', count: 1, amount: 10000 },
  { wallet: 'concurrent FUNDER_B', count: 1, amount: 10000 },
  { wallet: 'concurrent RECIPIENT_A', count: 1, amount: 1 },
  { wallet: 'concurrent RECIPIENT_B', count: 1, amount: 2 },
];

let n1: TestNode;

before(async () => {
  n1 = await startFastNode({
    deployment: cucumberDeployment(RESOURCES),
    config: withWallets(RESOURCES.map((r) => r.wallet)),
  });
});
after(() => n1?.stop());

const NODE_FUNDING = fundingPk(0);

/** The only note of a wallet that holds one (its genesis note). */
async function onlyNote(tn: TestNode, pk: string): Promise<string> {
  const notes = [...(await balanceOf(tn, pk)).notes.keys()];
  assert.equal(notes.length, 1, `one note of ${pk}`);
  return notes[0]!;
}

/** F's exactly funded self-transfer: the wallet's genesis note to itself, less the mandatory fee. */
async function exactSelfTransfer(tn: TestNode, wallet: string, priorityFeePercent = 0): Promise<Prepared> {
  const pk = pkOf(wallet);
  return prepare(tn, {
    outputs: [],
    funding: [pk],
    inputs: [await onlyNote(tn, pk)],
    priorityFeePercent,
  });
}

test('Gas prices endpoint returns the genesis prices', async () => {
  await waitHeight(n1, 1, 180_000);
  const genesis = bytesToHex(n1.node.chain.genesis.id);
  const r = await call(n1, 'GET', `/mantle/gas-prices?tip=${genesis}`);
  assert.equal(r.status, 200, r.text);
  const p = parseJson(r.text) as unknown as {
    tip: string;
    execution_base_gas_price: bigint | number;
    storage_gas_price: bigint | number;
  };
  assert.equal(p.tip, genesis);
  assert.equal(BigInt(p.execution_base_gas_price), GENESIS_EXECUTION_GAS_PRICE);
  assert.equal(BigInt(p.storage_gas_price), GENESIS_STORAGE_GAS_PRICE);
});

test('Wallet fund endpoint funds a payment and returns a transfer proof', async () => {
  await waitHeight(n1, 2, 240_000);
  const p = await prepare(n1, {
    outputs: [{ pk: pkOf('payment WALLET_1A'), value: 10 }],
    funding: [NODE_FUNDING],
  });
  const ops = (p.signed as unknown as { mantle_tx: { ops: { opcode: number }[] }; ops_proofs: Json[] })
    .mantle_tx.ops;
  assert.ok(
    ops.some((o) => o.opcode === 0),
    'the funded payment holds a Transfer',
  );
  assert.ok((p.signed as unknown as { ops_proofs: Json[] }).ops_proofs.at(-1) !== null, 'a transfer proof');
  await submitOk(n1, p);
  await waitIncluded(n1, p.hash, 120_000);
});

test('Wallet fund endpoint funds an inscription with a split-signed fee transfer', async () => {
  await waitHeight(n1, 2, 240_000);
  // F: a deterministic sequencer key (32 bytes of 7) claiming a fresh channel (its id is the key).
  const signer = new Ed25519Signer(new Uint8Array(32).fill(7));
  const inscribe = inscribeOp(signer, signer.publicKey, Buffer.from('wallet fund endpoint'));
  // F funds it from the node's funding wallet (the wallet named in the step is only logged).
  const p = await prepare(n1, { outputs: [], funding: [NODE_FUNDING], ops: [{ op: inscribe, proof: null }] });
  const signed = p.signed as unknown as { mantle_tx: { ops: { opcode: number }[] }; ops_proofs: Json[] };
  assert.deepEqual(
    signed.mantle_tx.ops.map((o) => o.opcode),
    [17, 0],
    'the funded inscription is [inscribe, fee transfer]',
  );
  assert.ok(signed.ops_proofs[1] !== null, 'the fee transfer is signed by the node');
  // The caller signs the inscription over the funded transaction's hash.
  signInscription(p, signer);
  await submitOk(n1, p);
  await waitIncluded(n1, p.hash, 120_000);
});

test('Mandatory fee is charged exactly and an underfunded transaction is never included', async () => {
  const [w1, w2, w3] = ['exact WALLET_1A', 'exact WALLET_2A', 'exact WALLET_3A'];
  await waitHeight(n1, 2, 240_000);
  const exact = await exactSelfTransfer(n1, w1);
  // The mandatory fee of the transaction at the funding block (F `minimum_total_gas_cost`).
  const ctx = gasContextOf(n1.node.chain.stateOf(hexToBytes(exact.tip))!);
  const mandatory = minimumTotalGasCost(
    mantleTx.fromJson((exact.signed as unknown as { mantle_tx: Json }).mantle_tx),
    ctx,
  );
  assert.equal(exact.fee, mandatory, 'funded with exactly the mandatory fee');
  await submitOk(n1, exact);
  // One more token to the change: the fee falls 1 below the mandatory minimum.
  const under = await resigned(n1, await exactSelfTransfer(n1, w2), [pkOf(w2)], (t) => {
    t.outputs[0]!.value += 1n;
  });
  const r = await submit(n1, under.signed);
  assert.deepEqual([r.status, r.text], [200, 'null'], 'no ledger check on admission, as the reference');
  const control = await exactSelfTransfer(n1, w3);
  await submitOk(n1, control);
  await waitIncluded(n1, exact.hash, 120_000);
  await waitIncluded(n1, control.hash, 120_000);
  await notIncludedFor(n1, under.hash, 5, 30_000);
  await waitNotPending([n1], under.hash, 60_000);
  await waitBalance(
    n1,
    pkOf(w1),
    (b) => b.balance === 10000n - exact.fee,
    120_000,
    'WALLET_1A debited the fee',
  );
  await waitBalance(
    n1,
    pkOf(w3),
    (b) => b.balance === 10000n - control.fee,
    120_000,
    'WALLET_3A debited the fee',
  );
  await waitBalance(n1, pkOf(w2), (b) => b.balance === 10000n, 60_000, 'WALLET_2A untouched');
  // A transfer above the available funds fails with the reference's text and reserves nothing.
  const big = await call(n1, 'POST', '/wallet/transactions/transfer-funds', {
    recipient_public_key: pkOf(w1),
    amount: 100000,
    change_public_key: pkOf(w2),
    funding_public_keys: [pkOf(w2)],
  });
  assert.equal(big.status, 500, big.text);
  assert.match(big.text, /Wallet does not have enough funds, available=\d+/);
  assert.equal((await balanceOf(n1, pkOf(w2))).balance, 10000n);
});

test('Concurrent wallet funded transfers are all included', async () => {
  const [fa, fb, ra, rb] = ['FUNDER_A', 'FUNDER_B', 'RECIPIENT_A', 'RECIPIENT_B'].map((w) =>
    pkOf(`concurrent ${w}`),
  );
  await waitHeight(n1, 2, 240_000);
  const post = (to: string) =>
    call(n1, 'POST', '/wallet/transactions/transfer-funds', {
      recipient_public_key: to,
      amount: 500,
      change_public_key: fa,
      funding_public_keys: [fa, fb],
    });
  const rs = await Promise.all([post(ra!), post(rb!)]);
  for (const r of rs) assert.equal(r.status, 201, r.text);
  const [a, b] = rs.map((r) => (JSON.parse(r.text) as { hash: string }).hash);
  assert.notEqual(a, b, 'two transactions');
  await waitIncluded(n1, a!, 120_000);
  await waitIncluded(n1, b!, 120_000);
  // No note funds both (a reused pending note would make one of them conflict).
  const inputs: string[] = [];
  for (const h of [a!, b!]) {
    const r = await call(n1, 'GET', `/cryptarchia/transaction/${h}`);
    assert.equal(r.status, 200, r.text);
    const tx = JSON.parse(r.text) as {
      mantle_tx: { ops: { opcode: number; payload: { inputs: string[] } }[] };
    };
    inputs.push(...tx.mantle_tx.ops.filter((o) => o.opcode === 0).flatMap((o) => o.payload.inputs));
  }
  assert.equal(new Set(inputs).size, inputs.length, 'no note funds both');
  await waitBalance(n1, ra!, (x) => x.balance === 501n, 120_000, 'RECIPIENT_A has 501');
  await waitBalance(n1, rb!, (x) => x.balance === 502n, 120_000, 'RECIPIENT_B has 502');
});

// ---- the gas market

/** F `fee_spec.rs` (Execution Market v1.1.0, Gas Cost Determination v1.5.1), written out again. */
const SPEC = { emaPrev: 9n, emaDen: 10n, num: 11_177_110n, den: 12_773_840n, transferGas: 590n };

interface PriceRecord {
  readonly slot: number;
  readonly execution: bigint;
  readonly storage: bigint;
  /** The block's execution gas from the spec's table (F `spec_block_execution_gas`). */
  readonly gas: bigint;
}

/** F `record_per_block_gas_prices`: every canonical block from genesis, its prices read as it arrives. */
class PriceRecorder {
  readonly records: PriceRecord[] = [];
  error: Error | undefined;
  private readonly stream: NdjsonClient;
  private last: string;
  private queue = Promise.resolve();

  constructor(private readonly tn: TestNode) {
    this.last = bytesToHex(tn.node.chain.genesis.id);
    this.stream = new NdjsonClient(`${tn.base}/cryptarchia/events/blocks/stream`);
    const seen = () => this.stream.count;
    let handled = 0;
    const tick = setInterval(() => {
      while (handled < seen()) {
        const line = this.stream.lines[handled++]!;
        this.queue = this.queue
          .then(() => this.onBlock(parseBlockLine(line).id))
          .catch((e: Error) => {
            this.error ??= e;
          });
      }
    }, 10);
    this.close = () => {
      clearInterval(tick);
      this.stream.close();
    };
  }

  close: () => void;

  /** Records the block and the ancestors since the last recorded one, oldest first. */
  private async onBlock(id: string): Promise<void> {
    const blocks: { id: string; slot: number; gas: bigint }[] = [];
    let at = id;
    while (at !== this.last) {
      const r = await call(this.tn, 'GET', `/cryptarchia/blocks/${at}`);
      assert.equal(r.status, 200, r.text);
      const block = JSON.parse(r.text) as {
        header: { slot: number; parent_block: string };
        transactions: { mantle_tx: { ops: { opcode: number }[] } }[];
      };
      let gas = 0n;
      for (const t of block.transactions)
        for (const o of t.mantle_tx.ops) {
          assert.equal(
            o.opcode,
            0,
            `only Transfers in the fee scenario's blocks (slot ${block.header.slot})`,
          );
          gas += SPEC.transferGas;
        }
      blocks.unshift({ id: at, slot: block.header.slot, gas });
      at = block.header.parent_block;
    }
    for (const b of blocks) {
      const r = await call(this.tn, 'GET', `/mantle/gas-prices?tip=${b.id}`);
      assert.equal(r.status, 200, `gas prices at ${b.id}: ${r.text}`);
      const p = parseJson(r.text) as unknown as {
        execution_base_gas_price: bigint | number;
        storage_gas_price: bigint | number;
      };
      this.records.push({
        slot: b.slot,
        execution: BigInt(p.execution_base_gas_price),
        storage: BigInt(p.storage_gas_price),
        gas: b.gas,
      });
      this.last = b.id;
    }
  }
}

test('Execution and storage gas prices respond according to the fee market rules', async () => {
  // F: k = 3, f = 1/2 (60-slot epochs), 1 s slots, 125 slots recorded; here 100 ms slots: the same
  // 125 slots and two epoch boundaries pass in 12.5 s.
  const wallets = ['market WALLET_1A', 'market WALLET_2A', 'market WALLET_3A'];
  const resources = wallets.map((wallet) => ({ wallet, count: 1, amount: 10000 }));
  const tn = await startFastNode({
    deployment: cucumberDeployment(resources, { k: 3 }),
    config: withWallets(wallets),
  });
  let recorder: PriceRecorder | undefined;
  try {
    // F records every block's prices as it arrives (the node keeps the ledger states of recent blocks
    // only), the blocks before the first streamed one from the chain.
    const rec = new PriceRecorder(tn);
    recorder = rec;
    await waitHeight(tn, 1, 180_000);
    const buffered = await exactSelfTransfer(tn, wallets[2]!, 50);
    const at = (tip: string) => gasContextOf(tn.node.chain.stateOf(hexToBytes(tip))!);
    const txOf = (p: Prepared) => mantleTx.fromJson((p.signed as unknown as { mantle_tx: Json }).mantle_tx);
    const initialMandatory = minimumTotalGasCost(txOf(buffered), at(buffered.tip));
    const initialReserve = (initialMandatory * 50n + 99n) / 100n;
    assert.equal(buffered.fee, initialMandatory + initialReserve, 'the reserve is ceil(fee × 50 / 100)');
    const trafficA = await send(tn, {
      outputs: [],
      funding: [pkOf(wallets[0]!)],
      inputs: [await onlyNote(tn, pkOf(wallets[0]!))],
    });
    const trafficB = await send(tn, {
      outputs: [],
      funding: [pkOf(wallets[1]!)],
      inputs: [await onlyNote(tn, pkOf(wallets[1]!))],
    });
    await waitUntil(() => (rec.records.at(-1)?.slot ?? 0) >= 125, 300_000, '125 slots recorded', 50);
    assert.equal(rec.error, undefined);
    await waitIncluded(tn, trafficA.hash, 60_000);
    await waitIncluded(tn, trafficB.hash, 60_000);
    rec.close();
    const records = rec.records;
    // Recorded gas prices cross a 60-slot epoch boundary.
    assert.ok(Math.floor(records[0]!.slot / 60) < Math.floor(records.at(-1)!.slot / 60), 'an epoch boundary');
    // The execution price follows the spec: EMA first, then the base fee from the new EMA.
    let base = GENESIS_EXECUTION_GAS_PRICE;
    let ema = 0n;
    for (const r of records) {
      ema = (r.gas + SPEC.emaPrev * ema) / SPEC.emaDen;
      base = (base * (SPEC.num + ema) + SPEC.den - 1n) / SPEC.den;
      assert.equal(r.execution, base, `execution price at slot ${r.slot} (block gas ${r.gas})`);
    }
    // Storage usage moves the storage price at an epoch boundary.
    assert.ok(
      records.some((r) => r.storage > records[0]!.storage),
      `the storage price rose above ${records[0]!.storage}`,
    );
    // The prepared transaction stays funded, its reserve partly absorbed by the higher price.
    const current = minimumTotalGasCost(txOf(buffered), gasContextOf(tn.node.chain.tip().state));
    assert.ok(buffered.fee >= current, `still funded: fee ${buffered.fee}, mandatory now ${current}`);
    assert.ok(buffered.fee - current < initialReserve, 'the reserve shrank');
    await submitOk(tn, buffered);
    await waitIncluded(tn, buffered.hash, 60_000);
  } finally {
    recorder?.close();
    await tn.stop();
  }
});
