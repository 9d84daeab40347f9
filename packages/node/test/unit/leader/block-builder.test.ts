import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectTransactions } from '../../../src/leader/block-builder.ts';
import { applyBlock } from '../../../src/ledger/apply.ts';
import { genesisNotes, KEYS, TestChain, transfer } from '../../mocks/ledger.ts';

test('transactions are selected in order; those that never apply are returned for eviction; the block applies', () => {
  const c = new TestChain();
  const [a, b] = genesisNotes(c.genesis);
  const pk = KEYS[3]!.publicKey;
  const t1 = transfer(c.state, [a!], [{ value: 1n, pk }]).tx;
  const conflicting = transfer(c.state, [a!], [{ value: 2n, pk }]).tx; // spends a again
  const t2 = transfer(c.state, [b!], [{ value: 3n, pk }]).tx;
  const forged = transfer(c.state, [{ ...b!, sk: 5n }], [{ value: 4n, pk }]).tx;
  const sel = selectTransactions(c.state, c.ctx, 1n, [t1, conflicting, forged, t2]);
  assert.deepEqual(sel.txs, [t1, t2]);
  assert.deepEqual(
    sel.invalid.map((i) => i.tx),
    [conflicting, forged],
  );
  const r = applyBlock(c.state, c.block(sel.txs, 1n), c.ctx);
  assert.equal(r.state.block_number, 1n);
});

/** A chain where five genesis notes were split into 5 × 254 small notes of one key. */
function manySmallNotes() {
  const c = new TestChain();
  const pk = KEYS[0]!.publicKey;
  const owned = genesisNotes(c.genesis)
    .filter((n) => n.note.pk === pk)
    .slice(0, 5);
  const splits = owned.map((n) =>
    transfer(
      c.state,
      [n],
      Array.from({ length: 254 }, () => ({ value: 100_000n, pk })),
    ),
  );
  c.apply(splits.map((s) => s.tx));
  return { c, pk, small: splits.flatMap((s) => s.outputs.slice(0, 254)) };
}

test('at most 1,024 transactions are selected', () => {
  // 1,100 one-input transfers of small notes are offered.
  const { c, pk, small } = manySmallNotes();
  const candidates = small.slice(0, 1100).map((n) => transfer(c.state, [n], [{ value: 1n, pk }]).tx);
  const sel = selectTransactions(c.state, c.ctx, c.state.slot + 1n, candidates);
  assert.equal(sel.txs.length, 1024);
  assert.deepEqual(sel.txs, candidates.slice(0, 1024));
});

test('a transaction that spends the output of a later candidate is taken in a further round', () => {
  const c = new TestChain();
  const [a] = genesisNotes(c.genesis);
  const pk = KEYS[0]!.publicKey;
  const parent = transfer(c.state, [a!], [{ value: 1_000_000n, pk }]);
  const child = transfer(c.state, [parent.outputs[0]!], [{ value: 1n, pk }]).tx;
  const sel = selectTransactions(c.state, c.ctx, 1n, [child, parent.tx]);
  assert.deepEqual(sel.txs, [parent.tx, child]);
  assert.equal(sel.invalid.length, 0);
  const r = applyBlock(c.state, c.block(sel.txs, 1n), c.ctx);
  assert.equal(r.state.block_number, 1n);
});

test('propose_block: the never-applicable candidates are evicted also when the block is full', () => {
  // F `propose_block` runs the rounds over every candidate, evicts those that never became
  // applicable, then cuts the block (`txs_for_block`): a full block does not keep them pending.
  const { c, pk, small } = manySmallNotes();
  const candidates = small.slice(0, 1025).map((n) => transfer(c.state, [n], [{ value: 1n, pk }]).tx);
  // The last candidate spends the first one's input again: it never applies.
  const doubleSpend = transfer(c.state, [small[0]!], [{ value: 2n, pk }]).tx;
  const sel = selectTransactions(c.state, c.ctx, c.state.slot + 1n, [...candidates, doubleSpend]);
  assert.equal(sel.txs.length, 1024);
  assert.deepEqual(sel.txs, candidates.slice(0, 1024));
  assert.deepEqual(
    sel.invalid.map((i) => i.tx),
    [doubleSpend],
  );
});
