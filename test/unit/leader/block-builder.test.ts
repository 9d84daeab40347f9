import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectTransactions } from '../../../src/leader/block-builder.ts';
import { applyBlock } from '../../../src/ledger/apply.ts';
import { genesisNotes, KEYS, TestChain, transfer } from '../../mocks/ledger.ts';

test('transactions are selected in order; invalid and conflicting ones are left out; the block applies', () => {
  const c = new TestChain();
  const [a, b] = genesisNotes(c.genesis);
  const pk = KEYS[3]!.publicKey;
  const t1 = transfer(c.state, [a!], [{ value: 1n, pk }]).tx;
  const conflicting = transfer(c.state, [a!], [{ value: 2n, pk }]).tx; // spends a again
  const t2 = transfer(c.state, [b!], [{ value: 3n, pk }]).tx;
  const forged = transfer(c.state, [{ ...b!, sk: 5n }], [{ value: 4n, pk }]).tx;
  const sel = selectTransactions(c.state, c.ctx, 1n, [t1, conflicting, forged, t2]);
  assert.deepEqual(sel.txs, [t1, t2]);
  assert.equal(sel.skipped.length, 2);
  assert.match(sel.skipped[0]!.reason, /InputNotFound/);
  assert.match(sel.skipped[1]!.reason, /InvalidZkSignature/);
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
