/**
 * Initial block download through a real `ChainService` (temporary LMDB store), shared by the IBD
 * figures: the blocks handed to the chain by the sync's orphan downloader (`src/sync/orphans.ts`,
 * several submitted before the first is through), or submitted one at a time, each awaited; their
 * proofs verified by the node's verifier pool (one worker per core) or by the proof system itself on
 * this thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Block } from '../src/block/block.ts';
import { headerId } from '../src/block/header.ts';
import { ChainService } from '../src/chain/chain-service.ts';
import { SlotClock } from '../src/chain/clock.ts';
import type { Deployment } from '../src/ledger/deployment.ts';
import type { ProofSystem } from '../src/ledger/proof-system.ts';
import { openStore } from '../src/storage/open.ts';
import { OrphanDownloader, RejectedBlocks } from '../src/sync/orphans.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';
import { VerifierPool, withVerifierPool } from '../src/zk/verifier-pool.ts';
import { median } from './harness.ts';

const logger = pino({ level: 'silent' });

export interface IbdBlocks {
  readonly deployment: Deployment;
  /** The deployment's genesis time, in milliseconds. */
  readonly genesisMs: number;
  /** Consecutive blocks on the deployment's genesis. */
  readonly blocks: readonly Block[];
  /**
   * Submitted as the node's own blocks (their proof of leadership is not checked), for blocks that
   * carry none.
   */
  readonly own: boolean;
}

/** `pipelined`: through the sync's downloader; `serial`: one at a time, each awaited. */
export type IbdMode = 'pipelined' | 'serial';
/** `pool`: the node's verifier pool, one worker per core; `this-thread`: the proof system alone. */
export type IbdVerifier = 'pool' | 'this-thread';

/** One download of the whole set into a fresh chain; blocks per second. */
export async function ibdRound(set: IbdBlocks, proofs: ProofSystem, mode: IbdMode): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'logos-bench-ibd-'));
  const store = await openStore(dir);
  const chain = await ChainService.init(
    { deployment: set.deployment, genesisTimeMs: set.genesisMs, online: false },
    {
      store: store.chain,
      proofs,
      // Long after the last block: no block is from a future slot.
      clock: new SlotClock(set.genesisMs, set.deployment.slot_duration_ms, () => set.genesisMs + 10 ** 9),
      logger,
    },
  );
  try {
    const { blocks, own } = set;
    const t = performance.now();
    if (mode === 'serial') {
      for (const b of blocks) await chain.submit(b, { own });
    } else {
      // The sync's downloader, fed by a peer that has the blocks at hand.
      const downloader = new OrphanDownloader(
        { maxPending: 10, retryRecoverable: true },
        {
          chain: {
            submit: (b) => chain.submit(b, { own }),
            tip: () => chain.tip(),
            lib: () => chain.lib(),
            has: (id) => chain.has(id),
          },
          source: async function* () {
            for (const block of blocks) yield { block, id: headerId(block.header), peer: 'bench-peer' };
          },
          rejected: new RejectedBlocks(0),
          logger,
          signal: new AbortController().signal,
        },
      );
      downloader.enqueue(headerId(blocks[blocks.length - 1]!.header));
      await downloader.whenIdle();
    }
    const ms = performance.now() - t;
    if (chain.tip().height !== blocks.length)
      throw new Error(`${mode}: the chain reached height ${chain.tip().height}, not ${blocks.length}`);
    return (blocks.length * 1000) / ms;
  } finally {
    await chain.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Blocks per second of `set` in `mode`, verified by `verifier`: the median of `rounds` rounds after a
 * warm one, each on a fresh store. Prints the rounds on stderr, labelled `label`.
 */
export async function ibdRate(
  set: IbdBlocks,
  mode: IbdMode,
  verifier: IbdVerifier,
  label: string,
  rounds = 5,
): Promise<number> {
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
  const pool =
    verifier === 'pool'
      ? await VerifierPool.start({ verificationKeys: zk.verificationKeys(), size: availableParallelism() })
      : undefined;
  const proofs = pool ? withVerifierPool(zk, pool) : zk;
  try {
    await ibdRound(set, proofs, mode);
    const rates: number[] = [];
    for (let i = 0; i < rounds; i++) rates.push(await ibdRound(set, proofs, mode));
    const threads = pool ? `${pool.size} verifier threads` : 'verified on this thread';
    const messages = pool ? `, ${pool.messagesSent} pool messages` : '';
    process.stderr.write(
      `${label} ${mode}: ${set.blocks.length} blocks, ${threads}, ` +
        `rounds ${rates.map((r) => r.toFixed(1)).join(' ')} blocks/s${messages}\n`,
    );
    return median(rates);
  } finally {
    await pool?.close();
    await zk.close();
  }
}
