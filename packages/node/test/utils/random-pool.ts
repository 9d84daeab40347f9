/**
 * Random pending pools for the mempool's tests: chains of transfers from genesis notes (one or two
 * inputs), double spends, and junk spending notes that never exist, shuffled so that children often
 * come before their parents. Seeded: every run and every failure reproduces.
 */
import type { SignedMantleTx } from '../../src/mantle/tx.ts';
import { genesisNotes, KEYS, type Owned, type TestChain, transfer } from '../mocks/ledger.ts';
import { prng } from './prng.ts';

/** Chains of transfers from genesis notes, double spends, and junk spending notes that never exist. */
export function randomPool(c: TestChain, seed: number): SignedMantleTx[] {
  const r = prng(seed);
  const pk = KEYS[1]!.publicKey;
  const txs: SignedMantleTx[] = [];
  let spendable: Owned[] = genesisNotes(c.genesis).slice(0, 8);
  for (let step = 0; step < 40 && spendable.length > 0; step++) {
    const at = Math.floor(r() * spendable.length);
    const input = spendable[at]!;
    const value = 1n + BigInt(Math.floor(r() * 1000));
    // Now and then two inputs (of the same owner: the devnet key of the first).
    const second = spendable.find((o, k) => k !== at && o.sk === input.sk && r() < 0.3);
    const t = transfer(c.state, second ? [input, second] : [input], [{ value, pk }]);
    txs.push(t.tx);
    if (second) spendable.splice(spendable.indexOf(second), 1);
    if (r() < 0.2) {
      // a double spend of the same input
      txs.push(transfer(c.state, [input], [{ value: value + 1n, pk }]).tx);
    }
    if (r() < 0.3) {
      // junk: spends an output of a transaction that is never in the pool
      const ghost = transfer(c.state, [input], [{ value: value + 7n, pk }]);
      txs.push(transfer(c.state, [ghost.outputs[1]!], [{ value: 1n, pk }]).tx);
    }
    spendable.splice(spendable.indexOf(input), 1);
    spendable = [...spendable, t.outputs[1]!];
  }
  // shuffled: children often come before their parents
  for (let i = txs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [txs[i], txs[j]] = [txs[j]!, txs[i]!];
  }
  return txs;
}
