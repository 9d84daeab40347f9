/**
 * The PoW miner (src/pow/miner.ts) on all cores (`os.availableParallelism()` worker threads):
 *
 * - `pow.tickets_per_s`: ticket attempts per second of all workers together, mining one block whose
 *   reward target is 0 (no ticket can win, so the workers never stop), median of seven 1 s rounds.
 * - `pow.poseidon2_limit_per_s`: the attempts per second the same workers could make if an attempt cost
 *   nothing but its Poseidon2 permutations: their chained-permutation rate (all workers at once, same
 *   JS-to-WebAssembly boundary as an attempt, median of seven 1 s rounds, each right after a mining
 *   round) divided by 3, the permutations of one attempt counted exactly: pk = compress(KDF, sk) is one
 *   permutation, and the ticket digest([nonce, block hash, pk]) costs two more per attempt (absorb pk,
 *   absorb the padding 1); the two permutations absorbing the nonce and the block hash are the same for
 *   every attempt on a block and are made once per block (src/pow/ticket-search.ts).
 * - `pow.ratio_vs_limit`: attempts over the limit, the median of the seven rounds' ratios (each mining
 *   round against the permutation round after it, so that load from other processes on the machine
 *   weighs on both alike); what the key draw, the bigint boundary and the chunk messages cost.
 * - `pow.api_p99_ms_while_mining`: p99 latency of GET /cryptarchia/info (one client, a request every
 *   20 ms for 30 s) on a devnet node (bench/devnet-node.ts: real proofs, its own prover) while a Miner
 *   with one worker per core (more than the node's default of one) searches the node's chain, with an
 *   in-memory winner store. The same p99 without the miner (10 s), and the node's own blocks applied in
 *   their slot among the slots it won while mining, are printed on stderr.
 */
import { EventEmitter } from 'node:events';
import { availableParallelism } from 'node:os';
import { pino } from 'pino';
import type { ChainEvents } from '../src/chain/interface.ts';
import type { LedgerState } from '../src/ledger/state.ts';
import { Miner, type MinerChain } from '../src/pow/miner.ts';
import { PERMUTATIONS_PER_ATTEMPT } from '../src/pow/ticket-search.ts';
import { openWinnerStore } from '../src/pow/winners.ts';
import { MemoryKv } from '../src/storage/kv.ts';
import { withDevnetNode } from './devnet-node.ts';
import { type Figure, median } from './harness.ts';

const THREADS = availableParallelism();
const ROUND_MS = 1000;
const ROUNDS = 7;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One canonical block at slot 1 whose ledger state has reward target 0: nothing wins. */
function impossibleChain(): MinerChain {
  const id = new Uint8Array(32).fill(7);
  const state = {
    slot: 1n,
    epoch_state: { nonce: 0x1234567890abcdefn },
    pow: { target: 0n, pool: 10n ** 12n, epoch_reward: 1n },
  } as unknown as LedgerState;
  const chain = Object.assign(new EventEmitter<ChainEvents>(), {
    config: { pow: { slot_window: 300 } } as MinerChain['config'],
    tip: () => ({ id, slot: 1n, height: 1, state }),
    stateOf: (x: Uint8Array) => (x.every((b, i) => b === id[i]) ? state : undefined),
    canonicalBySlot: (from: bigint, to: bigint) => (from <= 1n && 1n <= to ? [{ slot: 1n, id }] : []),
  });
  return chain as unknown as MinerChain;
}

let rates: Promise<{ tickets: number; limit: number; ratio: number }> | undefined;

function measureRates(): Promise<{ tickets: number; limit: number; ratio: number }> {
  rates ??= (async () => {
    const miner = new Miner(
      { threads: THREADS, concurrencyPerBlock: THREADS },
      { chain: impossibleChain(), store: openWinnerStore(new MemoryKv()), logger: pino({ level: 'warn' }) },
    );
    try {
      const tickets: number[] = [];
      const perms: number[] = [];
      await miner.permutationRate(300); // starts the workers and warms them up
      for (let r = 0; r < ROUNDS; r++) {
        miner.start();
        await sleep(200);
        const a0 = miner.stats.attempts;
        const t0 = performance.now();
        await sleep(ROUND_MS);
        const a1 = miner.stats.attempts;
        const t1 = performance.now();
        miner.stop();
        tickets.push((Number(a1 - a0) * 1000) / (t1 - t0));
        await sleep(20);
        perms.push(await miner.permutationRate(ROUND_MS));
      }
      process.stderr.write(
        `pow: ${THREADS} workers; tickets/s per round ${tickets.map(Math.round).join(', ')}; ` +
          `permutations/s per round ${perms.map(Math.round).join(', ')}\n`,
      );
      const ratios = tickets.map((t, i) => (t * PERMUTATIONS_PER_ATTEMPT) / perms[i]!);
      return {
        tickets: median(tickets),
        limit: median(perms) / PERMUTATIONS_PER_ATTEMPT,
        ratio: median(ratios),
      };
    } finally {
      await miner.close();
    }
  })();
  return rates;
}

/** p99 (ms) of GET /cryptarchia/info at `url`, one request every 20 ms for `ms`. */
async function infoP99(url: string, ms: number): Promise<number> {
  const lat: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t = performance.now();
    const res = await fetch(`${url}/cryptarchia/info`);
    await res.text();
    if (!res.ok) throw new Error(`GET /cryptarchia/info answered ${res.status}`);
    lat.push(performance.now() - t);
    await sleep(20);
  }
  lat.sort((a, b) => a - b);
  return lat[Math.min(lat.length - 1, Math.ceil(lat.length * 0.99) - 1)]!;
}

export const figures: Figure[] = [
  {
    name: 'pow.tickets_per_s',
    unit: 'tickets/s',
    measure: async () => (await measureRates()).tickets,
  },
  {
    name: 'pow.poseidon2_limit_per_s',
    unit: 'tickets/s',
    measure: async () => (await measureRates()).limit,
  },
  {
    name: 'pow.ratio_vs_limit',
    unit: 'ratio',
    measure: async () => (await measureRates()).ratio,
  },
  {
    name: 'pow.api_p99_ms_while_mining',
    unit: 'ms',
    measure: () =>
      withDevnetNode(async (node) => {
        const url = `http://${node.api.listening}`;
        await infoP99(url, 2000); // warm-up
        const idle = await infoP99(url, 10_000);
        const miner = new Miner(
          { threads: THREADS, concurrencyPerBlock: THREADS },
          { chain: node.chain, store: openWinnerStore(new MemoryKv()), logger: pino({ level: 'warn' }) },
        );
        try {
          miner.start();
          await sleep(500);
          const won = node.leader.wonSlots;
          const inSlot = node.leader.producedInSlot;
          const busy = await infoP99(url, 30_000);
          process.stderr.write(
            `pow: GET /cryptarchia/info p99 ${idle.toFixed(1)} ms without the miner, ${busy.toFixed(1)} ms with ` +
              `${THREADS} workers (${miner.stats.attempts} attempts, ${miner.searching().length} blocks searched); ` +
              `own blocks while mining: ${node.leader.producedInSlot - inSlot} of ${node.leader.wonSlots - won} won slots applied in their slot\n`,
          );
          return busy;
        } finally {
          await miner.close();
        }
      }),
  },
];
