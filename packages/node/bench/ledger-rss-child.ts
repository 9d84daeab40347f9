/**
 * The memory figure of the ledger, run in its own process by bench/ledger.bench.ts: a ledger with
 * 1,000,000 notes and 200 states above the immutable one (16 transfers each), every state kept.
 * Prints `rss_mb <n>`.
 */
import { applyBlock } from '../src/ledger/apply.ts';
import type { LedgerState } from '../src/ledger/state.ts';
import { context, header, transfers, withNotes } from './fixtures.ts';

const { ctx, state: genesis } = context();
let { state, ids } = withNotes(genesis, 1_000_000);
const states: LedgerState[] = [state];
let parent: Uint8Array = new Uint8Array(32);
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
(globalThis as { gc?: () => void }).gc?.();
if (states.length !== 201) throw new Error('states lost');
console.log(`rss_mb ${Math.round(process.memoryUsage().rss / 2 ** 20)}`);
