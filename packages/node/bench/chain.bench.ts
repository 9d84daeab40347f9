/**
 * Chain figures: replaying stored blocks on restart (decode + ledger, proofs trusted since they were
 * verified when the blocks were first accepted), and the latency of producing a block with a real
 * proof of leadership (slot start to block applied).
 */
import { type Block, decodeBlock, encodeBlock } from '../src/block/block.ts';
import { applyBlock } from '../src/ledger/apply.ts';
import type { LedgerState } from '../src/ledger/state.ts';
import { withDevnetNode } from './devnet-node.ts';
import { ACCEPT_ALL, context, header, transfers, withNotes } from './fixtures.ts';
import { type Figure, median } from './harness.ts';

/** Builds `count` blocks on `state` (each with `txsPerBlock` transfers) and returns them encoded. */
function chainOf(
  count: number,
  txsPerBlock: number,
  notes: number,
): { start: LedgerState; blocks: Uint8Array[] } {
  const { ctx, state: genesis } = context();
  let { state, ids } = withNotes(genesis, notes);
  const start = state;
  const blocks: Uint8Array[] = [];
  let parent: Uint8Array = new Uint8Array(32);
  for (let i = 0; i < count; i++) {
    const { txs, created } = transfers(ids, txsPerBlock, 5000n);
    const block: Block = {
      header: header(state, txs, parent),
      signature: new Uint8Array(64),
      uncle_headers: [],
      transactions: txs,
    };
    const r = applyBlock(state, block, ctx, { skipProofOfLeadership: true });
    ids = ids.concat(created);
    state = r.state;
    parent = r.id;
    blocks.push(encodeBlock(block));
  }
  return { start, blocks };
}

function replayRate(start: LedgerState, blocks: Uint8Array[]): number {
  const { ctx } = context();
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    let state = start;
    const t = performance.now();
    for (const bytes of blocks) {
      state = applyBlock(state, decodeBlock(bytes), { config: ctx.config, proofs: ACCEPT_ALL }).state;
      state.utxos.root();
    }
    runs.push((blocks.length * 1000) / (performance.now() - t));
  }
  return median(runs);
}

export const figures: Figure[] = [
  {
    name: 'chain.replay_empty_blocks_per_s',
    unit: 'blocks/s',
    measure() {
      const { start, blocks } = chainOf(1000, 0, 1000);
      return replayRate(start, blocks);
    },
  },
  {
    name: 'chain.replay_full_blocks_per_s',
    unit: 'blocks/s',
    measure() {
      const { start, blocks } = chainOf(40, 100, 20_000);
      return replayRate(start, blocks);
    },
  },
  {
    name: 'chain.block_latency_s',
    unit: 's',
    async measure() {
      // A devnet node with real Groth16 proofs in a fresh directory; the leader's own measure.
      return withDevnetNode(async (node) => {
        const end = Date.now() + 120_000;
        while (node.leader.latenciesMs.length < 5 && Date.now() < end)
          await new Promise((r) => setTimeout(r, 200));
        if (node.leader.latenciesMs.length === 0) throw new Error('no block produced within two minutes');
        return median(node.leader.latenciesMs) / 1000;
      });
    },
  },
];
