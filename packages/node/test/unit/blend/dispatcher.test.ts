/**
 * The exit node's payload dispatcher with a real mempool and gossip service on the in-memory network:
 * a transaction that leaves Blend here is added to the mempool and gossiped, as every `MempoolMsg::Add`
 * of F is (`services/blend/src/core/dispatcher/libp2p.rs`, `services/tx-service/src/tx/service.rs`),
 * and gossiped again when it was already pending.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PayloadDispatcher } from '../../../src/blend/dispatcher.ts';
import { PayloadType } from '../../../src/blend/message/index.ts';
import { txHash } from '../../../src/mantle/tx.ts';
import { Mempool } from '../../../src/mempool/index.ts';
import { GossipService, gossipConfig } from '../../../src/network/gossip/index.ts';
import { decodeTxGossip, encodeTxGossip } from '../../../src/network/wire/tx-gossip.ts';
import { MemoryKv } from '../../../src/storage/kv.ts';
import { MempoolStore } from '../../../src/storage/mempool-store.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FakeChain } from '../../mocks/chain.ts';
import { genesisNotes, KEYS, transfer } from '../../mocks/ledger.ts';
import { FakeNetworkBus } from '../../mocks/network.ts';
import { waitUntil } from '../../utils/api-node.ts';

const quiet = pino({ level: 'silent' });
const TXS = '/t/mempool/1.0.0';

test('a transaction leaving Blend at this node is added to the mempool and gossiped, again when already pending', async () => {
  const chain = new FakeChain();
  const mempool = await Mempool.init(
    { maxPendingTxs: 100, maxPendingBytes: 1 << 24, maxUnappliedTxs: 100, txTtlMs: 60_000 },
    {
      chain,
      proofs: INSECURE_TEST_PROOFS,
      store: new MempoolStore(new MemoryKv()),
      logger: quiet,
    },
  );
  const [net] = new FakeNetworkBus().mesh(2) as [ReturnType<FakeNetworkBus['node']>];
  const gossip = GossipService.init(gossipConfig({ blockTopic: '/t/cryptarchia/1.0.0', txTopic: TXS }), {
    network: net,
    chain,
    mempool,
    orphans: { enqueue: () => true, markRejected: () => {} },
    ibd: Promise.resolve(),
    logger: quiet,
  });
  const relayed: Uint8Array[] = [];
  const dispatcher = new PayloadDispatcher({
    mempool,
    gossip: { relayProposal: (b) => void relayed.push(b) },
    logger: quiet,
  });
  const tx = transfer(
    chain.tip().state,
    [genesisNotes(chain.genesis)[0]!],
    [{ value: 5n, pk: KEYS[1]!.publicKey }],
  ).tx;
  const published = () => net.published.filter((p) => p.topic === TXS).map((p) => decodeTxGossip(p.data));

  dispatcher.dispatch(PayloadType.Transaction, encodeTxGossip(tx));
  await waitUntil(() => published().length === 1, 2_000, 'the unwrapped transaction gossiped');
  assert.equal(mempool.has(txHash(tx.mantle_tx)), true);
  assert.deepEqual(published(), [tx]);

  // The same transaction leaving Blend again: already pending, gossiped again (F re-gossips an `Add`).
  dispatcher.dispatch(PayloadType.Transaction, encodeTxGossip(tx));
  await waitUntil(() => published().length === 2, 2_000, 'the duplicate gossiped again');
  assert.equal(mempool.metrics().pending_items, 1);
  assert.equal(dispatcher.delivered.transactions, 2);
  assert.equal(relayed.length, 0);
  await gossip.close();
  mempool.close();
});
