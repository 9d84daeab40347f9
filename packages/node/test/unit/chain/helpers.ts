/** A chain service on a fresh data folder, for the chain's tests (clock at slot 500,000). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { ChainService, SlotClock } from '../../../src/chain/index.ts';
import type { ProofSystem } from '../../../src/ledger/proof-system.ts';
import { openStore } from '../../../src/storage/open.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { DEVNET } from '../../mocks/ledger.ts';

export const GENESIS_MS = 1_700_000_000_000;

export interface TestService {
  readonly chain: ChainService;
  readonly store: Awaited<ReturnType<typeof openStore>>;
  close(): void;
}

/** `proofs` replaces the insecure test proofs; `now` the clock (default: slot 500,000). */
export async function chainService(
  opts: { proofs?: ProofSystem; now?: () => number } = {},
): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), 'logos-chain-'));
  const store = await openStore(dir);
  const clock = new SlotClock(
    GENESIS_MS,
    DEVNET.slot_duration_ms,
    opts.now ?? (() => GENESIS_MS + 500_000 * DEVNET.slot_duration_ms),
  );
  const chain = await ChainService.init(
    { deployment: DEVNET, genesisTimeMs: GENESIS_MS, online: false },
    {
      store: store.chain,
      proofs: opts.proofs ?? INSECURE_TEST_PROOFS,
      clock,
      logger: pino({ level: process.env.LOGOS_TEST_LOG ?? 'silent' }),
    },
  );
  return {
    chain,
    store,
    close: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
