/**
 * What the metrics read of the node's services at each scrape (src/metrics/interface.ts): heights,
 * slots, peers, queues, and the counters the services keep themselves.
 */
import type { BlendService } from '../blend/index.ts';
import type { ChainService, SlotClock } from '../chain/index.ts';
import type { LeaderService } from '../leader/index.ts';
import type { Deployment } from '../ledger/deployment.ts';
import { epochOf, epochSchedule } from '../ledger/parameters.ts';
import type { ProofSystem } from '../ledger/proof-system.ts';
import type { Mempool } from '../mempool/index.ts';
import type { KeptCount, MetricsSources } from '../metrics/index.ts';
import type { GossipService, INetwork } from '../network/index.ts';
import type { BootstrapPhases, SyncService } from '../sync/index.ts';
import { Groth16ProofSystem } from '../zk/index.ts';

export interface NodeParts {
  readonly chain: ChainService;
  readonly clock: SlotClock;
  readonly deployment: Deployment;
  readonly network: INetwork;
  readonly sync: SyncService;
  readonly mempool: Mempool;
  readonly blend: BlendService;
  readonly proofs: ProofSystem;
  readonly leader: LeaderService;
  readonly gossip: GossipService;
  readonly phases: BootstrapPhases;
}

export function metricsSources(n: NodeParts): MetricsSources {
  const schedule = epochSchedule(n.deployment.ledger.consensus);
  const prover = n.proofs instanceof Groth16ProofSystem ? n.proofs : undefined;
  return {
    tipHeight: () => n.chain.tip().height,
    // inferred: the tip's slot, as F's chain service records it (docs/design/fidelity.md "Metrics")
    tipSlot: () => n.chain.tip().slot,
    libHeight: () => n.chain.lib().height,
    online: () => n.chain.consensusState === 'Online',
    currentSlot: () => n.clock.currentSlot(),
    epochOf: (slot) => epochOf(slot, schedule),
    forks: () => n.chain.forkCount(),
    peersConnected: () => n.network.connectedPeers().length,
    connections: () => n.network.info().n_connections,
    peerScores: () => n.network.peerScores?.() ?? { banned: 0, penalized: 0 },
    orphansPending: () => n.sync.pendingOrphans,
    mempoolPending: () => n.mempool.metrics().pending_items,
    blendPeersConnected: () =>
      n.blend.info()?.core_info?.current_epoch_peers.filter(([, healthy]) => healthy).length ?? 0,
    proverQueue: () => prover?.proverQueue ?? 0,
    phase: () => n.phases.phase,
    ibd: () => n.sync.ibdProgress(),
    kept: (): KeptCount[] => [
      { name: 'consensus_proposals_created_total', value: n.leader.produced, labels: { origin: 'local' } },
      {
        name: 'consensus_proposals_received_total',
        value: n.gossip.counters.proposalsReceived,
        labels: { origin: 'network' },
      },
      { name: 'orphan_blocks_received_total', value: n.gossip.counters.orphansReceived },
      { name: 'orphan_blocks_enqueued_total', value: n.sync.orphanCounts.enqueued },
      { name: 'orphan_blocks_removed_total', value: n.sync.orphanCounts.removed },
      { name: 'logos_proofs_dropped_total', value: prover?.proverStats.dropped ?? 0 },
      { name: 'logos_ibd_blocks_applied_total', value: n.sync.ibdBlocksApplied },
    ],
  };
}
