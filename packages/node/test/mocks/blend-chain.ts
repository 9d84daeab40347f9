/**
 * A Blend service on the chain double without a network, for unit tests of what the service sends and
 * where: the chain's ledger is a `TestChain` on the fast deployment, in the consensus state a test
 * gives (`goOnline` announces Online); the mempool and gossip are the caller's doubles.
 */
import { pino } from 'pino';
import { BlendService, DEFAULT_BLEND } from '../../src/blend/index.ts';
import { SlotClock } from '../../src/chain/clock.ts';
import type { ConsensusState } from '../../src/consensus/engine.ts';
import type { ProofSystem } from '../../src/ledger/proof-system.ts';
import type { IMempool } from '../../src/mempool/index.ts';
import type { BlockPublisher, ProposalRelay } from '../../src/network/gossip/index.ts';
import { INSECURE_TEST_PROOFS } from '../../src/zk/insecure-test-proofs.ts';
import { FakeChain } from './chain.ts';
import { FAST } from './fast-deployment.ts';
import { TestChain } from './ledger.ts';

/** The chain double on the fast deployment, in this consensus state. */
export function blendTestChain(consensusState: ConsensusState): FakeChain {
  return new FakeChain({ ledger: new TestChain(FAST), consensusState });
}

export async function startTestBlend(deps: {
  readonly chain: FakeChain;
  readonly mempool: IMempool;
  readonly gossip?: BlockPublisher & ProposalRelay;
  readonly prover?: ProofSystem;
  readonly signal: AbortSignal;
}): Promise<BlendService> {
  return BlendService.init(
    { blend: DEFAULT_BLEND, deployment: FAST.blend, kmsKeys: {} },
    {
      chain: deps.chain,
      clock: new SlotClock(Date.now(), FAST.slot_duration_ms),
      mempool: deps.mempool,
      gossip: deps.gossip ?? { publishBlock: () => {}, relayProposal: () => {} },
      prover: deps.prover ?? INSECURE_TEST_PROOFS,
      verifier: INSECURE_TEST_PROOFS,
      logger: pino({ level: 'silent' }),
      signal: deps.signal,
    },
  );
}
