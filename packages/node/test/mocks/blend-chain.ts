/**
 * A Blend service on a test chain without a network, for unit tests of what the service sends and
 * where: the chain is a `TestChain` on the fast deployment whose consensus state a test sets (and
 * announces with `online`), the mempool and gossip are the caller's fakes.
 */
import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import { BlendService, DEFAULT_BLEND } from '../../src/blend/index.ts';
import { SlotClock } from '../../src/chain/clock.ts';
import type { IChain } from '../../src/chain/index.ts';
import type { ProofSystem } from '../../src/ledger/proof-system.ts';
import type { IMempool } from '../../src/mempool/index.ts';
import type { BlockPublisher, ProposalRelay } from '../../src/network/gossip/index.ts';
import { INSECURE_TEST_PROOFS } from '../../src/zk/insecure-test-proofs.ts';
import { FAST } from './fast-deployment.ts';
import { TestChain } from './ledger.ts';

export class BlendTestChain extends EventEmitter {
  readonly t = new TestChain(FAST);
  constructor(public consensusState: 'Bootstrapping' | 'Online') {
    super();
  }
  get config() {
    return this.t.ctx.config;
  }
  tip() {
    return { id: this.t.tip, slot: this.t.state.slot, height: 0, state: this.t.state };
  }
}

export async function startTestBlend(deps: {
  readonly chain: BlendTestChain;
  readonly mempool: IMempool;
  readonly gossip?: BlockPublisher & ProposalRelay;
  readonly prover?: ProofSystem;
  readonly signal: AbortSignal;
}): Promise<BlendService> {
  return BlendService.init(
    { blend: DEFAULT_BLEND, deployment: FAST.blend, kmsKeys: {} },
    {
      chain: deps.chain as unknown as IChain,
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
