/**
 * Ledger figures: applying a full block of transfers to a large ledger, and the memory of a large
 * ledger with many forked states. Proof verification is excluded (a backend that accepts every
 * proof), as the figures measure the state transition itself.
 */
import { applyBlock } from '../src/ledger/apply.ts';
import type { LedgerState } from '../src/ledger/state.ts';
import { context, header, transfers, withNotes } from './fixtures.ts';
import { type Figure, median } from './harness.ts';

function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 2 ** 20;
}

export const figures: Figure[] = [
  {
    name: 'ledger.block1024_apply_s',
    unit: 's',
    measure() {
      const { ctx, state: genesis } = context();
      const runs: number[] = [];
      for (let r = 0; r < 3; r++) {
        const { state, ids } = withNotes(genesis, 100_000);
        const { txs } = transfers(ids, 1024, 2000n);
        const block = {
          header: header(state, txs, new Uint8Array(32)),
          signature: new Uint8Array(64),
          uncle_headers: [],
          transactions: txs,
        };
        const t0 = performance.now();
        const res = applyBlock(state, block, ctx, { skipProofOfLeadership: true });
        const t1 = performance.now();
        res.state.utxos.root();
        const t2 = performance.now();
        runs.push((t2 - t0) / 1000);
        if (r === 2) {
          console.error(
            `ledger.block1024_apply_s: transactions ${((t1 - t0) / 1000).toFixed(3)} s, UTXO root ${((t2 - t1) / 1000).toFixed(3)} s`,
          );
        }
      }
      return median(runs);
    },
  },
  {
    name: 'ledger.rss_1m_notes_200_forks_mb',
    unit: 'MB',
    measure() {
      const { ctx, state: genesis } = context();
      let { state, ids } = withNotes(genesis, 1_000_000);
      const states: LedgerState[] = [state];
      let parent: Uint8Array = new Uint8Array(32);
      // 200 blocks above the immutable one, 16 transfers each, every state kept.
      for (let b = 0; b < 200; b++) {
        const { txs, created } = transfers(ids, 16, 2000n);
        const block = {
          header: header(state, txs, parent),
          signature: new Uint8Array(64),
          uncle_headers: [],
          transactions: txs,
        };
        const res = applyBlock(state, block, ctx, { skipProofOfLeadership: true });
        res.state.utxos.root();
        ids = ids.concat(created);
        state = res.state;
        parent = res.id;
        states.push(state);
      }
      const mb = rssMb();
      if (states.length !== 201) throw new Error('states lost');
      return mb;
    },
  },
];
