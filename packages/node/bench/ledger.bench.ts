/**
 * Ledger figures: applying a full block of transfers to a large ledger, and the memory of a large
 * ledger with many forked states. Proof verification is excluded (a backend that accepts every
 * proof), as the figures measure the state transition itself.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { applyBlock } from '../src/ledger/apply.ts';
import { context, header, transfers, withNotes } from './fixtures.ts';
import { type Figure, median } from './harness.ts';

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
    // In a fresh process, so that nothing else the benchmark run loaded counts.
    measure() {
      const out = execFileSync(
        process.execPath,
        ['--expose-gc', ...childExecArgv(), 'bench/ledger-rss-child.ts'],
        { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8', maxBuffer: 1 << 20 },
      );
      const mb = Number(/rss_mb (\d+(\.\d+)?)/.exec(out)?.[1]);
      if (!Number.isFinite(mb)) throw new Error(`unexpected output of the memory benchmark: ${out}`);
      return mb;
    },
  },
];
