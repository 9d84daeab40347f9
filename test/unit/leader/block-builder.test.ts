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

test('at most 1,024 transactions are selected', () => {
  const c = new TestChain();
  const pk = KEYS[0]!.publicKey;
  // Split five genesis notes into 5 × 254 small notes, then offer 1,100 one-input transfers.
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
  const small = splits.flatMap((s) => s.outputs.slice(0, 254));
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
