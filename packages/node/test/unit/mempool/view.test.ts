/**
 * The mempool's view on a new tip (src/mempool/view.ts): moved onto a block that extends its tip
 * (`rebase`), it equals the view computed again in full on the new tip: the same transactions apply,
 * the same ones are apart (waiting for the same notes), and any transaction applies on its state
 * exactly when it applies on the full one. It refuses, changing nothing, where it cannot tell.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { selectTransactions } from '../../../src/leader/block-builder.ts';
import { executeTx } from '../../../src/ledger/apply.ts';
import { Draft, type LedgerContext } from '../../../src/ledger/draft.ts';
import { advanceEpoch } from '../../../src/ledger/epoch.ts';
import { PROOFS_ALREADY_VERIFIED } from '../../../src/ledger/proof-system.ts';
import { encodeSignedTx, type SignedMantleTx, txHash } from '../../../src/mantle/tx.ts';
import type { PendingTx } from '../../../src/mempool/pool.ts';
import { PendingView } from '../../../src/mempool/view.ts';
import { genesisNotes, KEYS, TestChain, transfer } from '../../mocks/ledger.ts';
import { prng } from '../../utils/prng.ts';
import { randomPool } from '../../utils/random-pool.ts';

const pending = (tx: SignedMantleTx): PendingTx => ({
  hash: txHash(tx.mantle_tx),
  tx,
  size: encodeSignedTx(tx).length,
  insertedAtMs: 0,
});
const key = (tx: SignedMantleTx) => bytesToHex(txHash(tx.mantle_tx));

/** The view of `items` on the chain's tip, for the next slot. */
function viewOn(c: TestChain, items: PendingTx[], ctx: LedgerContext, head: number): PendingView {
  const slot = c.state.slot + 1n;
  const start = new Draft(c.state);
  advanceEpoch(start, ctx.config, slot);
  return PendingView.compute(head, c.tip, start, slot, items, ctx, () => true).view;
}

/** Whether `tx` applies on the view's state. */
function appliesOn(v: PendingView, ctx: LedgerContext, tx: SignedMantleTx): boolean {
  try {
    executeTx(new Draft(v.state()), ctx, tx, v.slot, { size: BigInt(encodeSignedTx(tx).length) });
    return true;
  } catch {
    return false;
  }
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

/** The pool without the transactions that spend a note an earlier one spends. */
function withoutDoubleSpends(txs: SignedMantleTx[]): SignedMantleTx[] {
  const spent = new Set<bigint>();
  return txs.filter((tx) => {
    const inputs = tx.mantle_tx.ops.flatMap((op) => (op.opcode === 0 ? op.payload.inputs : []));
    if (inputs.some((n) => spent.has(n))) return false;
    for (const n of inputs) spent.add(n);
    return true;
  });
}

test('moved onto a block of its transactions, the view equals the one computed again (40 random pools, half without double spends)', () => {
  let moved = 0;
  let refused = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const r = prng(seed * 7919);
    const c = new TestChain();
    const ctx: LedgerContext = { config: c.ctx.config, proofs: PROOFS_ALREADY_VERIFIED };
    // Odd seeds: the pool as generated (double spends too); even ones: without double spends.
    const conflictFree = seed % 2 === 0;
    const txs = conflictFree ? withoutDoubleSpends(randomPool(c, seed)) : randomPool(c, seed);
    const items = txs.map(pending);
    const v = viewOn(c, items, ctx, 0);
    // A block as a leader builds it from the pool (a prefix of the applied order), now and then
    // with a transaction the view does not hold.
    const chosen = selectTransactions(c.state, ctx, c.state.slot + 1n, txs).txs;
    const block = chosen.slice(0, Math.floor(r() * (chosen.length + 1)));
    const foreign = r() < 0.2;
    if (foreign) {
      const spare = genesisNotes(c.genesis)[12]!;
      block.push(transfer(c.state, [spare], [{ value: 5n, pk: KEYS[2]!.publicKey }]).tx);
    }
    c.apply(block, c.state.slot + 1n + BigInt(Math.floor(r() * 3)));
    const included = block.map(key);
    const rest = items.filter((i) => !included.includes(bytesToHex(i.hash)));
    const full = viewOn(c, rest, ctx, 1);
    const start = new Draft(c.state);
    advanceEpoch(start, ctx.config, full.slot);
    const before = sorted(v.applied);
    const ok = v.rebase(1, c.tip, start, full.slot, block.map(pending));
    if (foreign) {
      assert.equal(ok, false, `seed ${seed}: a block with a transaction the view lacks is refused`);
      assert.deepEqual(sorted(v.applied), before, `seed ${seed}: refused, nothing changed`);
      refused++;
      continue;
    }
    if (conflictFree) assert.ok(ok, `seed ${seed}: no transaction competes for a note: the view moves`);
    if (!ok) continue;
    moved++;
    assert.deepEqual(sorted(v.applied), sorted(full.applied), `seed ${seed}: the same transactions apply`);
    assert.deepEqual(
      sorted([...v.unappliedItems()].map((i) => bytesToHex(i.hash))),
      sorted([...full.unappliedItems()].map((i) => bytesToHex(i.hash))),
      `seed ${seed}: the same ones apart`,
    );
    assert.equal(v.slot, full.slot);
    // Probes: a transfer of each genesis note (spent or not), and every pending transaction.
    for (const n of genesisNotes(c.genesis)) {
      const probe = transfer(c.state, [n], [{ value: 1n, pk: KEYS[3]!.publicKey }]).tx;
      assert.equal(
        appliesOn(v, ctx, probe),
        appliesOn(full, ctx, probe),
        `seed ${seed}: a probe applies alike`,
      );
    }
    for (const tx of txs)
      assert.equal(appliesOn(v, ctx, tx), appliesOn(full, ctx, tx), `seed ${seed}: ${key(tx)} applies alike`);
  }
  assert.ok(moved >= 14, `${moved} views moved`);
  assert.ok(refused >= 3, `${refused} refused`);
});

test('where the gas prices moved, each fee is checked again: a fee short refuses, lower prices move', () => {
  const c = new TestChain();
  const ctx: LedgerContext = { config: c.ctx.config, proofs: PROOFS_ALREADY_VERIFIED };
  const txs = withoutDoubleSpends(randomPool(c, 4));
  const items = txs.map(pending);
  const block = selectTransactions(c.state, ctx, c.state.slot + 1n, txs).txs.slice(0, 3);
  const v = viewOn(c, items, ctx, 0);
  c.apply(block);
  const slot = c.state.slot + 1n;
  const startWith = (execution_base_gas_price: bigint) => {
    const d = new Draft(c.state);
    advanceEpoch(d, ctx.config, slot);
    d.gas = { ...d.gas, execution_base_gas_price };
    return d;
  };
  const before = sorted(v.applied);
  assert.equal(v.rebase(1, c.tip, startWith(1_000_000_000n), slot, block.map(pending)), false, 'a fee short');
  assert.deepEqual(sorted(v.applied), before, 'refused, nothing changed');
  // Free execution: every fee still paid; the view moves and equals the full one on the same prices.
  assert.equal(v.rebase(1, c.tip, startWith(0n), slot, block.map(pending)), true);
  const rest = items.filter((i) => !block.some((b) => key(b) === bytesToHex(i.hash)));
  const full = PendingView.compute(1, c.tip, startWith(0n), slot, rest, ctx, () => true).view;
  assert.deepEqual(sorted(v.applied), sorted(full.applied));
  for (const tx of txs) assert.equal(appliesOn(v, ctx, tx), appliesOn(full, ctx, tx));
});
