/**
 * A node's proof of work: the winning tickets kept in the node's key-value store, the miner that
 * searches the blocks of the reward window for them (off until `PUT /pow/mining/start`), and the
 * service that claims them; both start once the chain is Online.
 */
import type { KvStore } from '../storage/kv.ts';
import { miningThreads } from './config.ts';
import { Miner, type MinerChain } from './miner.ts';
import { type PowConfig, type PowDeps, PowService } from './pow-service.ts';
import { openWinnerStore, type WinnerStore } from './winners.ts';

export interface NodePowDeps extends Omit<PowDeps, 'chain' | 'store' | 'miner'> {
  readonly chain: PowDeps['chain'] & MinerChain;
  /** Where the winning tickets are kept. */
  readonly kv: KvStore;
}

/** The service and the store of winning tickets it claims from. */
export function openPow(config: PowConfig, deps: NodePowDeps): { pow: PowService; winners: WinnerStore } {
  const { kv, chain, logger, signal } = deps;
  const winners = openWinnerStore(kv, {
    onCorrupt: (key, reason) =>
      logger.error({ ticket: key, reason }, 'a stored PoW ticket is unreadable and is skipped'),
  });
  const miner = new Miner(
    { threads: miningThreads(config.pow), concurrencyPerBlock: config.pow.mining.max_tickets_per_block },
    { chain, store: winners, logger, ...(signal ? { signal } : {}) },
  );
  return { pow: PowService.init(config, { ...deps, store: winners, miner }), winners };
}
