/**
 * The API handlers' context (`ApiContext`, src/api/types.ts) for tests of handlers and of the server:
 * the doubles of the chain, mempool, wallet and network unless a test gives its own, the devnet
 * deployment and a clock at its genesis, and ports no double exists for (operations, PoW, Blend) that
 * throw when used, naming the port, so a test that needs one must give it.
 */
import type { ApiContext } from '../../src/api/types.ts';
import { SlotClock } from '../../src/chain/clock.ts';
import { FakeChain } from './chain.ts';
import { DEVNET } from './ledger.ts';
import { FakeMempool } from './mempool.ts';
import { FakeNetworkBus } from './network.ts';
import { FakeWallet } from './wallet.ts';

/** A port the test does not give: reading anything of it throws. */
function absent<T extends object>(port: string): T {
  return new Proxy(
    {},
    {
      get: (_target, key) => {
        throw new Error(`the test gives the API no ${port} (it read ${String(key)})`);
      },
    },
  ) as T;
}

export function apiContext(ports: Partial<ApiContext> = {}): ApiContext {
  const mempool = ports.mempool ?? new FakeMempool();
  return {
    build: { commit: null, tag: null },
    setLogFilter: () => {},
    chain: new FakeChain(),
    clock: new SlotClock(Date.now(), DEVNET.slot_duration_ms),
    deployment: DEVNET,
    mempool,
    wallet: new FakeWallet(mempool),
    ops: absent('operations service'),
    pow: absent('PoW service'),
    network: new FakeNetworkBus().node(),
    blend: absent('Blend service'),
    phase: () => 'Following',
    ...ports,
  };
}
