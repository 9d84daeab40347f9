/**
 * Applying transactions in rounds (F `propose_block`): the indexed rounds give what plain rounds give
 * (every failure retried in each further round while a round applies something) on random pools of
 * chains, double spends and junk in shuffled order; and a transaction lacking a note is not tried again
 * until that note exists, so junk costs one try however many rounds a pool takes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { executeTx } from '../../../src/ledger/apply.ts';
import { Draft, type LedgerContext } from '../../../src/ledger/draft.ts';
import { PROOFS_ALREADY_VERIFIED } from '../../../src/ledger/proof-system.ts';
import type { LedgerState } from '../../../src/ledger/state.ts';
import { encodeSignedTx, type SignedMantleTx, txHash } from '../../../src/mantle/tx.ts';
import { applyInRounds, type RoundItem } from '../../../src/mempool/index.ts';
import { genesisNotes, KEYS, TestChain, transfer } from '../../mocks/ledger.ts';
import { randomPool } from '../../utils/random-pool.ts';

const item = (tx: SignedMantleTx): RoundItem => ({
  hash: txHash(tx.mantle_tx),
  tx,
  size: encodeSignedTx(tx).length,
});

/** Plain rounds, as F writes them: the oracle. */
function plainRounds(state: LedgerState, slot: bigint, items: RoundItem[], ctx: LedgerContext) {
  let draft = new Draft(state);
  const applied: RoundItem[] = [];
  let pending = [...items];
  let progress = true;
  while (progress && pending.length > 0) {
    progress = false;
    const failed: RoundItem[] = [];
    for (const it of pending) {
      const before = draft.state();
      try {
        executeTx(draft, ctx, it.tx, slot, { preverified: it.hash, size: BigInt(it.size) });
        applied.push(it);
        progress = true;
      } catch {
        draft = new Draft(before);
        failed.push(it);
      }
    }
    pending = failed;
  }
  return { applied, never: pending, draft };
}

const hexes = (xs: RoundItem[]) => xs.map((x) => bytesToHex(x.hash));

describe('applyInRounds', () => {
  test('gives what plain rounds give: the applied order, the never applicable, the state (60 random pools, one or two inputs)', () => {
    const c = new TestChain();
    const ctx: LedgerContext = { config: c.ctx.config, proofs: PROOFS_ALREADY_VERIFIED };
    const slot = c.state.slot + 1n;
    let worth = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const pool = randomPool(c, seed).map(item);
      const want = plainRounds(c.state, slot, pool, ctx);
      const got = applyInRounds(new Draft(c.state), slot, pool, () => ctx);
      assert.deepEqual(hexes(got.applied), hexes(want.applied), `seed ${seed}: applied`);
      assert.deepEqual(hexes(got.never), hexes(want.never), `seed ${seed}: never`);
      assert.equal(got.draft.utxos.root(), want.draft.utxos.root(), `seed ${seed}: the state`);
      if (want.never.length > 0 && want.applied.length > 10) worth++;
    }
    assert.ok(worth >= 50, `${worth} of 60 pools with both applied and never applicable transactions`);
  });

  test('a transaction lacking a note is tried once until the note exists; others in every round', () => {
    const c = new TestChain();
    const ctx: LedgerContext = { config: c.ctx.config, proofs: PROOFS_ALREADY_VERIFIED };
    const pk = KEYS[1]!.publicKey;
    const [n0, n1] = genesisNotes(c.genesis);
    // A chain of 6 in reverse order: 6 rounds that apply one each, and a 7th that applies nothing.
    const chain: SignedMantleTx[] = [];
    let note = n0!;
    for (let i = 0; i < 6; i++) {
      const t = transfer(c.state, [note], [{ value: 1n, pk }]);
      chain.push(t.tx);
      note = t.outputs[1]!;
    }
    const junk = Array.from({ length: 50 }, (_, i) => {
      const ghost = transfer(c.state, [n1!], [{ value: BigInt(i + 1), pk }]);
      return transfer(c.state, [ghost.outputs[1]!], [{ value: 1n, pk }]).tx;
    });
    // A failure of another kind: a transfer spending one note twice.
    const overdraft = transfer(c.state, [n1!, n1!], [{ value: 1n, pk }]).tx;
    const items = [...junk, overdraft, ...[...chain].reverse()].map(item);
    const tries = new Map<string, number>();
    const out = applyInRounds(new Draft(c.state), c.state.slot + 1n, items, (it) => {
      const k = bytesToHex(it.hash);
      tries.set(k, (tries.get(k) ?? 0) + 1);
      return ctx;
    });
    assert.equal(out.applied.length, 6, 'the chain applies');
    for (const j of junk) assert.equal(tries.get(bytesToHex(txHash(j.mantle_tx))), 1, 'junk tried once');
    assert.equal(out.waitsFor.size, 50, 'each junk transaction waits for its note');
    assert.equal(
      tries.get(bytesToHex(txHash(overdraft.mantle_tx))),
      7,
      'a failure of another kind: every round',
    );
    assert.equal(out.never.length, 51);
  });
});
