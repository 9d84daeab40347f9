/**
 * Chain sync test fixtures: in-process chains (the devnet, k = 10, insecure test proofs) fed with empty
 * blocks, and sync services joined by the in-memory network.
 */

import { pino } from 'pino';
import type { ChainService } from '../../../src/chain/index.ts';
import { SlotClock } from '../../../src/chain/index.ts';
import type { SyncServiceOptions } from '../../../src/sync/index.ts';
import { DEFAULT_SYNC, type SyncConfig, SyncService } from '../../../src/sync/index.ts';
import { blockOn } from '../../mocks/chain-feed.ts';
import { DEVNET } from '../../mocks/ledger.ts';
import type { FakeNetwork } from '../../mocks/network.ts';
import { GENESIS_MS } from '../chain/helpers.ts';

export const PROTOCOL = '/logos-blockchain-test/chainsync/1.0.0';
export const logger = pino({ level: process.env.LOGOS_TEST_LOG ?? 'silent' });

/** Applies `n` empty blocks on the tip, one slot apart; returns their ids. */
export async function grow(chain: ChainService, n: number, from?: { id: Uint8Array; slot: bigint }) {
  const ids: Uint8Array[] = [];
  let parent = from ?? chain.tip();
  for (let i = 0; i < n; i++) {
    const block = blockOn(chain, parent.id, parent.slot + 1n, []);
    const p = await chain.submit(block);
    ids.push(p.id);
    parent = { id: p.id, slot: block.header.slot };
  }
  return ids;
}

export function syncConfig(over: Partial<SyncConfig> = {}, ibd: Partial<SyncConfig['ibd']> = {}): SyncConfig {
  return { ...DEFAULT_SYNC, ...over, ibd: { ...DEFAULT_SYNC.ibd, ...over.ibd, ...ibd } };
}

export function syncService(
  chain: ChainService,
  network: FakeNetwork,
  config: SyncConfig,
  phase: { phase: 'Following' | 'InitialBlockDownload' } = { phase: 'Following' },
  signal: AbortSignal = new AbortController().signal,
  opts: Pick<SyncServiceOptions, 'ibdRetryMs' | 'progressEveryMs'> = {},
): SyncService {
  return SyncService.init(
    { protocol: PROTOCOL, config, ...opts },
    {
      chain,
      network,
      clock: new SlotClock(GENESIS_MS, DEVNET.slot_duration_ms, () => GENESIS_MS + 10 ** 9),
      phases: () => phase,
      logger,
      signal,
    },
  );
}
