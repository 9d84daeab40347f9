/**
 * The Blend service (F `services/blend/src/{lib.rs,instance.rs,modes/**,core/mod.rs,edge/mod.rs}`).
 *
 * Once the chain is Online it follows the slots and Blend's rounds (a round is one slot, or a
 * `rounds_per_slot`-th of one where a deployment splits it: quota.ts). At each epoch it reads
 * the epoch's Blend membership (the SDP snapshot frozen with the epoch state) and plays one role:
 * - Broadcast while the membership is below `minimum_network_size`: proposals go straight to gossip,
 *   dispersed transactions straight to the mempool.
 * - Core when this node is a member: its Blend swarm peers with the other core nodes; received
 *   messages are checked (signature, proof of quota), flooded, and the layers addressed to this node
 *   removed; what remains is released after a random delay, the payloads that leave at this node
 *   delivered (dispatcher.ts); cover messages fill the rounds at the deployment's frequency.
 * - Edge otherwise: its messages are sent to `replication_factor` core nodes.
 * A node that leaves the core role keeps its old epoch's swarm connections and scheduler for the
 * transition period (one average block), to release what it still holds, whatever its new role
 * (modes.ts `coreEpochServes`; an edge node's swarm runs beside the old core swarm meanwhile).
 * Before the first epoch's mode is known (consensus not Online yet), what this node sends waits.
 *
 * Its own messages: a proposal is wrapped with proofs of leadership quota from the slot's win, one
 * copy per `data_replication_factor + 1` (own-proposals.ts); a dispersed transaction waits
 * (`/blend/transactions/pending`) until a solution of the epoch's Blend puzzle backs its proofs of PoW
 * quota (own-transactions.ts); cover messages use the core quota. Each layer removed here yields a
 * blending token (the activity rewards' input). A core epoch's scheduler, tokens and activity proof:
 * core-epoch.ts.
 *
 * inferred: the service keeps no state across a restart (docs/design/fidelity.md "Blend service state across
 * restarts").
 */

import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import type { Logger } from 'pino';
import type { Block } from '../block/block.ts';
import type { IChain, SlotClock } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import { BlakeRng } from '../crypto/blend/blake-rng.ts';
import { ed25519PublicKey } from '../crypto/ed25519.ts';
import type { Fr } from '../crypto/field.ts';
import type { KmsSection } from '../kms/index.ts';
import { epochViewAt } from '../ledger/apply.ts';
import type { BlendDeployment } from '../ledger/deployment.ts';
import { type EpochSchedule, epochOf, epochSchedule } from '../ledger/parameters.ts';
import { preverifyTx } from '../ledger/preverify.ts';
import { PROOFS_ALREADY_VERIFIED, type ProofSystem, ProvingUnavailable } from '../ledger/proof-system.ts';
import type { BlendActivityProof } from '../mantle/ops.ts';
import { type SignedMantleTx, txHash } from '../mantle/tx.ts';
import { type IMempool, MempoolError } from '../mempool/index.ts';
import {
  type BlockPublisher,
  encodeProposal,
  encodeTxGossip,
  type ProposalRelay,
  toProposal,
} from '../network/index.ts';
import type { Meter } from '../util/meter.ts';
import type { BlendSection } from './config.ts';
import {
  activityProof,
  type CoreEpoch,
  CoverProofs,
  nextCoreEpoch,
  scheduleUnwrapped,
} from './core-epoch.ts';
import { PayloadDispatcher } from './dispatcher.ts';
import { BlendError, transactionTooLarge } from './errors.ts';
import type { BlendMode, BlendNetworkInfo, IBlend, LeadershipWin, ProposalPublisher } from './interface.ts';
import { type BlendKeys, blendKeys } from './keys.ts';
import { type BlendEpochState, blendEpochState } from './membership.ts';
import { encapsulatedMessageSize, MAX_PAYLOAD_BODY_SIZE, PayloadType } from './message/index.ts';
import { chooseMode, coreEpochServes, initialMode, type ModeState, next as nextMode } from './modes.ts';
import { BlendSwarm } from './network/index.ts';
import { OwnProposals } from './own-proposals.ts';
import { OwnTransactions } from './own-transactions.ts';
import { EpochProcessor } from './processor.ts';
import {
  type BlendTiming,
  blendTiming,
  EpochQuotaCounter,
  epochCoreQuota,
  epochLeadershipQuota,
  epochPowQuota,
  expectedMessageRange,
} from './quota.ts';
import { EpochEventTracker } from './scheduling/epoch-events.ts';
import {
  EpochMessageScheduler,
  roundComponents,
  type SchedulerSettings,
} from './scheduling/message-scheduler.ts';

export { MAX_PAYLOAD_BODY_SIZE };

export interface BlendServiceConfig {
  readonly blend: BlendSection;
  readonly deployment: BlendDeployment;
  /** The key store's configured keys, where the node's Blend keys are looked up (keys.ts). */
  readonly kmsKeys: KmsSection['backend']['keys'];
}

export interface BlendDeps {
  /** Counts the messages sent and received (absent: not counted). */
  readonly meter?: Meter;
  readonly chain: IChain;
  readonly clock: SlotClock;
  readonly mempool: IMempool;
  /** Gossip: proposals of a broadcast epoch, and those this node unwraps as an exit node. */
  readonly gossip: BlockPublisher & ProposalRelay;
  /** Makes proofs of quota (the prover pool). */
  readonly prover: ProofSystem;
  /** Verifies them (the verifier pool). */
  readonly verifier: ProofSystem;
  /**
   * Posts an activity proof for this node's declaration (an SDP Active message); without it, the
   * node earns no Blend reward.
   */
  readonly submitActivity?: (proof: BlendActivityProof) => Promise<void>;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

/** What the node's Blend traffic was over an epoch (logged when the epoch ends and on close). */
interface TrafficCounts {
  /** Messages this node wrapped with its own proofs: proposals, transactions and cover messages. */
  wrapped: number;
  /** Of them, cover messages. */
  cover: number;
  /** Messages handed to at least one peer (flooded as a core node, or sent as an edge node). */
  sent: number;
  /** Messages received from peers that passed the swarm's checks. */
  received: number;
  /** Received messages with a layer addressed to this node, removed. */
  unwrapped: number;
}

const noTraffic = (): TrafficCounts => ({ wrapped: 0, cover: 0, sent: 0, received: 0, unwrapped: 0 });

export class BlendService implements IBlend, ProposalPublisher {
  private closed = false;
  private started = false;
  /**
   * Whether the first epoch's mode is known. Before (consensus not Online yet), what this node sends
   * waits for it, as F's requests wait in the queue of a Blend service that starts only once the chain
   * is Online (`services/blend/src/lib.rs` `run`): nothing leaves this node in the clear before Blend
   * knows whether the epoch mixes.
   */
  private ready = false;
  /** Proposals made before the first epoch's mode was known, published once it is. */
  private readonly heldProposals: { block: Block; win: LeadershipWin }[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The rounds run one after the other (tick). */
  private ticking: Promise<void> = Promise.resolve();
  private lastRound: bigint | null = null;
  private lastSlot: bigint | null = null;
  private modeState: ModeState = 'Broadcast';
  /** The chain's epochs, and Blend's rounds, windows and transition period derived from them. */
  private readonly epochs: EpochSchedule;
  private readonly timing: BlendTiming;
  private readonly schedulerSettings: SchedulerSettings;
  private readonly tracker: EpochEventTracker;
  private readonly dispatcher: PayloadDispatcher;
  private readonly layers: number;
  private processor: EpochProcessor | null = null;
  private core: CoreEpoch | null = null;
  private oldCore: CoreEpoch | null = null;
  private swarm: BlendSwarm | null = null;
  /** The role the swarm was started for: an edge node's listens on the loopback only. */
  private swarmRole: BlendMode | null = null;
  /**
   * The previous epoch's core swarm of a node that left the core role for the edge role: it goes on
   * releasing what the old core epoch holds until the transition period ends (F `Instance::EdgeAfterCore`
   * keeps the previous `CoreMode` running), while the edge swarm serves the new epoch.
   */
  private oldSwarm: BlendSwarm | null = null;
  /** Why this node cannot make proofs of quota (a verify-only circuit), if it cannot: it sends nothing of its own through Blend. */
  private readonly noPoq: string | undefined;
  private readonly rng = BlakeRng.fromEntropy();
  private readonly proposals: OwnProposals;
  private readonly transactions: OwnTransactions;
  private readonly cover: CoverProofs;
  /** The current epoch's nonce: the randomness the old epoch's blending tokens are judged by. */
  private epochNonce: Fr | null = null;
  /** The traffic of the epoch `trafficEpoch` so far (null before the first epoch). */
  private traffic = noTraffic();
  private trafficEpoch: number | null = null;

  private constructor(
    readonly config: BlendServiceConfig & BlendKeys,
    private readonly deps: BlendDeps,
    /** The node's Blend peer id (of its signing key); null without a key. */
    readonly nodeId: string | null,
  ) {
    const consensus = deps.chain.config.consensus;
    this.noPoq = deps.prover.cannotProve?.('poq');
    this.layers = config.deployment.num_blend_layers;
    this.epochs = epochSchedule(consensus);
    this.timing = blendTiming(config.deployment, {
      epochLength: this.epochs.epoch_length,
      slotDurationMs: deps.clock.slotStartMs(1n) - deps.clock.slotStartMs(0n),
      activeSlotCoeff: consensus.active_slot_coeff,
    });
    this.schedulerSettings = {
      maximumReleaseDelayInRounds: BigInt(config.deployment.maximum_release_delay_in_rounds),
      roundsPerEpoch: this.timing.roundsPerEpoch,
      numBlendLayers: BigInt(this.layers),
    };
    this.tracker = new EpochEventTracker(this.timing.epochTransitionSlots);
    this.dispatcher = new PayloadDispatcher({
      mempool: deps.mempool,
      gossip: deps.gossip,
      logger: deps.logger,
    });
    const sendOwn = (processor: EpochProcessor, bytes: Uint8Array) => this.sendOwn(processor, bytes);
    const { clock, logger, mempool } = deps;
    const layers = this.layers;
    this.proposals = new OwnProposals({
      clock,
      epochs: this.epochs,
      logger,
      layers,
      replicationFactor: config.deployment.data_replication_factor,
      sendOwn,
    });
    this.transactions = new OwnTransactions({
      mempool,
      logger,
      layers,
      sending: () => this.ready && !this.closed,
      closed: () => this.closed,
      processor: () => this.processor,
      broadcast: () => this.mode() === 'broadcast',
      noPoq: this.noPoq,
      sendOwn,
    });
    this.cover = new CoverProofs(
      layers,
      () => (this.closed || this.noPoq !== undefined ? null : this.core),
      logger,
    );
  }

  static async init(config: BlendServiceConfig, deps: BlendDeps): Promise<BlendService> {
    const keys = blendKeys(config.blend, config.kmsKeys);
    const nodeId =
      keys.signingSeed === null
        ? null
        : peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', keys.signingSeed)).toString();
    const s = new BlendService({ ...config, ...keys }, deps, nodeId);
    if (deps.chain.consensusState === 'Online') s.start();
    else deps.chain.once('online', () => s.start());
    deps.logger.info(
      { node_id: nodeId },
      'Blend service ready; it follows the epochs once the chain is online',
    );
    return s;
  }

  // ---------- IBlend ----------

  mode(): BlendMode {
    return this.modeState === 'Core' ? 'core' : this.modeState.startsWith('Edge') ? 'edge' : 'broadcast';
  }

  info(): BlendNetworkInfo | null {
    if (this.nodeId === null) return null;
    if (this.mode() !== 'core' || this.swarm === null) return { node_id: this.nodeId, core_info: null };
    return {
      node_id: this.nodeId,
      core_info: {
        current_epoch_peers: this.swarm.corePeers().map((p) => [p.peerId, p.healthy] as const),
        old_epoch_peers: this.swarm.oldEpochPeers(),
      },
    };
  }

  async disperseTransaction(tx: SignedMantleTx): Promise<Uint8Array> {
    if (this.closed) throw new BlendError('BLEND_UNAVAILABLE', 'the Blend service is stopping');
    const hash = txHash(tx.mantle_tx);
    // F `BlendPayload::transaction`: the encoding the mempool gossips must fit one payload body,
    // whatever the mode (the API builds the payload before the service sees it).
    const body = encodeTxGossip(tx);
    if (body.length > MAX_PAYLOAD_BODY_SIZE) throw transactionTooLarge(body.length, MAX_PAYLOAD_BODY_SIZE);
    if (this.ready && this.mode() === 'broadcast') {
      // No mixing: the transaction goes to this node's mempool (which gossips it).
      try {
        await this.deps.mempool.add(tx, 'api');
      } catch (e) {
        if (e instanceof MempoolError) throw new BlendError('BLEND_MEMPOOL', e.message);
        throw e;
      }
      this.deps.logger.debug(
        { tx: bytesToHex(hash) },
        'transaction dispersed to the mempool (broadcast mode)',
      );
      return hash;
    }
    // A node that cannot make proofs of quota cannot blend (its circuits folder has no witness
    // generator it can run for them): it says so rather than holding the transaction for nothing.
    if (this.noPoq !== undefined && this.ready) throw new ProvingUnavailable('poq', this.noPoq);
    // Preverified as any transaction this node accepts, before it waits for its proofs.
    preverifyTx(tx, PROOFS_ALREADY_VERIFIED);
    this.transactions.add(hash, body);
    return hash;
  }

  pendingTransactions(): Uint8Array[] {
    return this.transactions.hashes();
  }

  publishProposal(block: Block, win: LeadershipWin): void {
    if (this.closed) return;
    if (!this.ready) {
      this.heldProposals.push({ block, win });
      this.deps.logger.debug(
        { slot: Number(block.header.slot) },
        'proposal waits for Blend to know the epoch',
      );
      return;
    }
    if (this.mode() === 'broadcast' || this.processor === null) {
      this.deps.gossip.publishBlock(block);
      return;
    }
    void this.proposals.send(this.processor, encodeProposal(toProposal(block)), win).catch((e: Error) => {
      // A proposal must not be lost: without Blend proofs it is published directly (which shows who made it).
      // inferred: F logs the failure and the proposal is not sent (docs/design/fidelity.md "A proposal Blend could not wrap")
      this.deps.logger.warn(
        { err: e.message, slot: Number(block.header.slot) },
        'blending a proposal failed; it is published on gossip',
      );
      this.deps.gossip.publishBlock(block);
    });
  }

  async close(): Promise<void> {
    if (!this.closed) this.logTraffic();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.transactions.close();
    const swarm = this.swarm;
    const old = this.oldSwarm;
    this.swarm = null;
    this.oldSwarm = null;
    if (swarm !== null) await swarm.close();
    if (old !== null) await old.close();
  }

  // ---------- slots, epochs and modes ----------

  private start(): void {
    if (this.closed || this.started) return;
    this.started = true;
    this.schedule();
    this.tick();
  }

  /** The round under way: slot · rounds_per_slot + the rounds of the slot gone by. */
  private currentRound(): { slot: bigint; round: bigint } {
    const clock = this.deps.clock;
    const slot = clock.currentSlot();
    const per = this.timing.roundsPerSlot;
    const into = clock.nowMs() - clock.slotStartMs(slot);
    const j = Math.min(per - 1, Math.max(0, Math.floor(into / this.timing.roundDurationMs)));
    return { slot, round: slot * BigInt(per) + BigInt(j) };
  }

  /** When round `round` starts, in ms since the Unix epoch. */
  private roundStartMs(round: bigint): number {
    const per = BigInt(this.timing.roundsPerSlot);
    return this.deps.clock.slotStartMs(round / per) + Number(round % per) * this.timing.roundDurationMs;
  }

  /** A timer at the start of the next round (5 ms after it, so that the clock reads the new round). */
  private schedule(): void {
    if (this.closed) return;
    const next = this.currentRound().round + 1n;
    const wait = Math.max(0, this.roundStartMs(next) - this.deps.clock.nowMs()) + 5;
    this.timer = setTimeout(() => {
      this.schedule();
      this.tick();
    }, wait);
  }

  /** One round after the other: a round still running when the next begins delays it (never skips it). */
  private tick(): void {
    this.ticking = this.ticking
      .then(() => this.onTick())
      .catch((e: Error) => this.deps.logger.error({ err: e.message }, 'Blend round failed'));
  }

  private async onTick(): Promise<void> {
    if (this.closed) return;
    const { slot, round } = this.currentRound();
    if (this.lastRound !== null && round <= this.lastRound) return;
    this.lastRound = round;
    if (this.lastSlot === null || slot > this.lastSlot) {
      this.lastSlot = slot;
      const epoch = epochOf(slot, this.epochs);
      const event = this.tracker.onSlot(slot, epoch);
      if (event?.kind === 'NewEpoch') {
        await this.onNewEpoch(slot, epoch, event.first);
        if (!this.ready) this.becomeReady();
      } else if (event?.kind === 'TransitionPeriodExpired') this.onTransitionEnd();
    }
    await this.onRound(round);
  }

  /** The Blend state of the epoch `slot` is in, from the tip (advanced to that epoch if it is behind). */
  private epochStateAt(slot: bigint): BlendEpochState {
    const tip = this.deps.chain.tip();
    const ctx = { config: this.deps.chain.config, proofs: PROOFS_ALREADY_VERIFIED };
    const view = slot > tip.state.slot ? epochViewAt(tip.state, ctx, slot) : tip.state;
    const local = this.config.signingSeed === null ? null : ed25519PublicKey(this.config.signingSeed);
    return blendEpochState(view.epoch_state, view.sdp.snapshot.values(), local);
  }

  private async onNewEpoch(slot: bigint, epoch: number, first: boolean): Promise<void> {
    const state = this.epochStateAt(slot);
    const size = state.membership.size;
    const min = this.config.deployment.minimum_network_size;
    const isMember = state.membership.containsLocal && this.config.zkSecret !== null;
    const t = first
      ? initialMode(chooseMode(size, min, isMember))
      : nextMode(this.modeState, {
          kind: 'EpochChanged',
          membershipSize: size,
          minimumNetworkSize: min,
          isMember,
        });
    const before = this.modeState;
    this.modeState = t.state;
    this.logTraffic();
    this.traffic = noTraffic();
    this.trafficEpoch = epoch;
    this.epochNonce = state.nonce;
    for (const d of state.dropped)
      this.deps.logger.warn(
        { provider: d.providerId, reason: d.reason },
        'a Blend declaration is left out of the membership',
      );
    this.deps.logger.info(
      { epoch, members: size, mode: this.mode(), state: t.state, previous: first ? null : before },
      'Blend epoch',
    );
    const mode = this.mode();
    if (mode === 'broadcast' || this.config.signingSeed === null) {
      this.processor = null;
      this.rotateCore(null, slot);
      await this.updateSwarm(state, mode);
      void this.transactions.solve();
      return;
    }
    const d = this.config.deployment;
    // The core quota is a public input of every proof of quota of the epoch, whoever makes it.
    const quotas = {
      core: epochCoreQuota(d, this.timing.roundsPerEpoch, size),
      leadership: epochLeadershipQuota(d),
      pow: epochPowQuota(d),
    };
    this.processor = new EpochProcessor(
      state,
      this.layers,
      new EpochQuotaCounter(epoch, quotas),
      {
        signingSeed: this.config.signingSeed,
        signingPublic: ed25519PublicKey(this.config.signingSeed),
        zkSecret: this.config.zkSecret,
      },
      { prover: this.deps.prover, verifier: this.deps.verifier },
    );
    this.cover.reset();
    this.rotateCore(mode === 'core' ? this.processor : null, slot);
    await this.updateSwarm(state, mode);
    this.cover.refill();
    void this.transactions.solve();
  }

  /** The first epoch's mode is known: what waited for it is sent as that mode sends it. */
  private becomeReady(): void {
    this.ready = true;
    const held = this.heldProposals.splice(0);
    for (const p of held) this.publishProposal(p.block, p.win);
    if (held.length > 0 || this.transactions.size > 0)
      this.deps.logger.info(
        { proposals: held.length, transactions: this.transactions.size, mode: this.mode() },
        'Blend is ready: what waited for it is sent',
      );
    void this.transactions.solve();
  }

  /** The traffic of the epoch that ends (or of the part of it before the node stops), at info level. */
  private logTraffic(): void {
    if (this.trafficEpoch === null) return;
    this.deps.logger.info({ epoch: this.trafficEpoch, ...this.traffic }, 'Blend traffic of the epoch');
  }

  /** The core role's epochs: the new one (if core) and the old one kept for the transition. */
  private rotateCore(processor: EpochProcessor | null, slot: bigint): void {
    const previous = this.core;
    const round = slot * BigInt(this.timing.roundsPerSlot);
    this.core = nextCoreEpoch(previous, processor, this.schedulerSettings, this.rng, round);
    this.oldCore = previous;
  }

  private onTransitionEnd(): void {
    const t = nextMode(this.modeState, { kind: 'TransitionEnded' });
    this.modeState = t.state;
    if (this.oldCore !== null) this.submitActivity(this.oldCore);
    this.oldCore = null;
    this.swarm?.finishTransition();
    if (this.oldSwarm !== null) {
      const s = this.oldSwarm;
      this.oldSwarm = null;
      s.close().catch((e: Error) =>
        this.deps.logger.warn({ err: e.message }, 'stopping the old epoch Blend swarm failed'),
      );
      this.deps.logger.info('the old epoch Blend swarm stopped (transition period over)');
    }
    if (this.mode() === 'broadcast' && this.swarm !== null && this.core === null) {
      const s = this.swarm;
      this.swarm = null;
      s.close().catch((e: Error) =>
        this.deps.logger.warn({ err: e.message }, 'stopping the Blend swarm failed'),
      );
      this.deps.logger.info('Blend swarm stopped (broadcast mode)');
    }
  }

  /**
   * The activity proof of a core epoch once its transition is over: of its blending tokens, the one
   * whose hash is nearest (Hamming distance) to the next epoch's randomness, if within the activity
   * threshold (F `OldEpochBlendingTokenCollector::compute_activity_proof`), posted as an SDP Active
   * message.
   */
  private submitActivity(ce: CoreEpoch): void {
    const epoch = ce.processor.epoch;
    const nonce = this.epochNonce;
    if (nonce === null || ce.processor.state.membership.size === 0) return;
    const sensitivity = BigInt(this.config.deployment.activity_threshold_sensitivity);
    const best = activityProof(ce, nonce, sensitivity);
    const log = this.deps.logger;
    if (best === null || this.deps.submitActivity === undefined) {
      log.info(
        { epoch, tokens: ce.tokens.length, proof: false },
        'Blend epoch transition over; no activity proof',
      );
      return;
    }
    const distance = Number(best.distance);
    this.deps.submitActivity(best.proof).then(
      () => log.info({ epoch, tokens: ce.tokens.length, distance }, 'Blend activity proof submitted'),
      (e: Error) => log.warn({ epoch, err: e.message }, 'submitting the Blend activity proof failed'),
    );
  }

  private async updateSwarm(state: BlendEpochState, mode: BlendMode): Promise<void> {
    const members = state.membership.members.map((m) => ({
      peerId: m.peerId,
      addresses: m.locators.map((l) => multiaddr(l)),
    }));
    const timing = this.timing;
    const expected =
      state.membership.size > 0
        ? expectedMessageRange(this.config.deployment, timing, state.membership.size)
        : undefined;
    if (this.swarm !== null && (this.swarmRole === mode || mode === 'broadcast')) {
      this.swarm.updateMembership(members, {
        transition: this.oldCore !== null,
        epoch: state.epoch,
        ...(expected !== undefined ? { expected } : {}),
      });
      return;
    }
    if (this.swarm !== null) {
      const s = this.swarm;
      this.swarm = null;
      if (this.swarmRole === 'core' && this.oldCore !== null) {
        // From core to edge: the old core swarm serves the old epoch until the transition ends.
        this.oldSwarm?.close().catch(() => {});
        this.oldSwarm = s;
      } else {
        // From edge to core: the swarm listens on the configured address from now on.
        await s.close();
      }
    }
    if (mode === 'broadcast' || this.config.signingSeed === null) return;
    const b = this.config.blend;
    const swarm = await BlendSwarm.init(
      {
        signingKeySeed: this.config.signingSeed,
        // An edge node only dials: it listens on any free port of the loopback.
        listenAddress: multiaddr(mode === 'core' ? b.core.listening_address : '/ip4/127.0.0.1/udp/0/quic-v1'),
        protocolName: this.config.deployment.protocol_name,
        messageBytes: encapsulatedMessageSize(this.layers),
        validator: {
          messageId: (bytes) => this.processorOf(null)?.messageId(bytes) ?? null,
          verify: async (bytes, ctx) =>
            (await this.processorOf(ctx.epoch)?.verify(bytes)) ?? 'invalid_proof_of_quota',
        },
        membership: members,
        epoch: state.epoch,
        minimumNetworkSize: this.config.deployment.minimum_network_size,
        corePeeringDegree: b.core.core_peering_degree,
        maxDialAttemptsPerPeer: b.core.max_dial_attempts_per_peer,
        peeringDegreeCheckIntervalMs: b.core.peering_degree_check_interval_ms,
        maxEdgeNodeIncomingConnections: b.core.max_edge_node_incoming_connections,
        edgeNodeConnectionTimeoutMs: b.core.edge_node_connection_timeout_ms,
        edgeMaxDialAttemptsPerPeer: b.edge.max_dial_attempts_per_peer_per_message,
        connectionMonitor: expected !== undefined ? { windowMs: timing.observationWindowMs, expected } : null,
      },
      {
        log: this.deps.logger,
        signal: this.deps.signal,
        listeners: {
          message: (bytes, from, ctx) => {
            this.onMessage(bytes, from, ctx.epoch).catch((e: Error) =>
              this.deps.logger.warn(
                { from, epoch: ctx.epoch, err: e.message },
                'a received Blend message could not be processed',
              ),
            );
          },
          'peer-blocked': (peer, reason) => this.deps.logger.info({ peer, reason }, 'Blend peer blocked'),
        },
      },
    );
    this.swarm = swarm;
    this.swarmRole = mode;
    this.deps.logger.info(
      { listen: swarm.listenAddresses().map(String), members: members.length, mode },
      'Blend swarm started',
    );
  }

  /** The processor of `epoch` (the current one when null): current, or the old core epoch's. */
  private processorOf(epoch: number | null): EpochProcessor | null {
    if (epoch === null || this.processor?.epoch === epoch) return this.processor;
    if (this.oldCore?.processor.epoch === epoch) return this.oldCore.processor;
    return null;
  }

  // ---------- received messages ----------

  private async onMessage(bytes: Uint8Array, from: string, epoch: number): Promise<void> {
    this.traffic.received++;
    this.deps.meter?.count('blend_messages_received_total');
    const ce =
      this.core?.processor.epoch === epoch
        ? this.core
        : this.oldCore?.processor.epoch === epoch
          ? this.oldCore
          : null;
    if (ce === null) return;
    const out = await ce.processor.unwrap(bytes);
    if (out.kind === 'not-for-us') return;
    this.traffic.unwrapped++;
    scheduleUnwrapped(ce, out);
    this.deps.logger.debug({ from, epoch, kind: out.kind, layers: out.tokens.length }, 'Blend layer removed');
  }

  // ---------- rounds ----------

  private async onRound(round: bigint): Promise<void> {
    for (const ce of [this.core, this.oldCore]) {
      if (ce === null) continue;
      const info = ce.scheduler.onRound(round);
      if (info === null) continue;
      for (const d of info.dataMessages) this.send(d, ce, 'publish');
      const { processed, cover } = roundComponents(info.releaseType);
      for (const p of processed) {
        if (p.kind === 'message') this.send(p.bytes, ce, 'forward');
        else this.dispatcher.dispatch(p.type, p.body);
      }
      if (cover && ce === this.core) await this.sendCover(ce);
    }
  }

  /** Floods a message of a core epoch to that epoch's core peers (`publish`: own; `forward`: relayed). */
  private send(bytes: Uint8Array, ce: CoreEpoch, action: 'publish' | 'forward'): void {
    const swarm = this.swarmOf(ce);
    if (swarm !== null && swarm.publish(bytes) > 0) {
      this.traffic.sent++;
      this.deps.meter?.count('blend_messages_sent_total', 1, { action });
    }
  }

  /**
   * The swarm a core epoch's messages go out through: the core swarm for the current epoch while this
   * node is core; for the previous epoch through the transition period, whatever the new role, so that
   * no message it holds is dropped (F: the previous `CoreMode` runs on in `…AfterCore` states).
   */
  private swarmOf(ce: CoreEpoch): BlendSwarm | null {
    const previous = ce === this.oldCore;
    if (!coreEpochServes(this.modeState, previous ? 'previous' : 'current')) return null;
    if (previous && this.oldSwarm !== null) return this.oldSwarm;
    return this.swarmRole === 'core' ? this.swarm : null;
  }

  /**
   * A cover message from ready core proofs (skipped when none are ready).
   * inferred: docs/design/fidelity.md "A cover round with no core proof ready"
   */
  private async sendCover(ce: CoreEpoch): Promise<void> {
    const proofs = this.cover.take();
    if (proofs === null) return;
    const bytes = ce.processor.wrap(PayloadType.Cover, new Uint8Array(0), proofs);
    this.traffic.wrapped++;
    this.traffic.cover++;
    this.deps.logger.debug({ epoch: ce.processor.epoch, sent: this.traffic.cover }, 'cover message sent');
    await this.scheduleOwn(ce, bytes, false);
  }

  /**
   * A message this node wrapped: the outer layers addressed to itself are removed at once (their
   * tokens kept) and the rest released at the next release round; otherwise it leaves as a data
   * message in the next round (F `schedule_local_encapsulated_message`).
   */
  private async scheduleOwn(ce: CoreEpoch, bytes: Uint8Array, data: boolean): Promise<void> {
    const out = await ce.processor.unwrap(bytes);
    if (out.kind === 'not-for-us') {
      if (data && ce.scheduler instanceof EpochMessageScheduler) ce.scheduler.queueDataMessage(bytes);
      else this.send(bytes, ce, 'publish');
      return;
    }
    scheduleUnwrapped(ce, out);
  }

  // ---------- own data messages (own-proposals.ts, own-transactions.ts) ----------

  prepareProposal(win: LeadershipWin): void {
    const processor = this.processor;
    if (this.closed || processor === null || this.mode() === 'broadcast') return;
    this.proposals.prepare(processor, win);
  }

  private async sendOwn(processor: EpochProcessor, bytes: Uint8Array): Promise<void> {
    this.traffic.wrapped++;
    if (this.mode() === 'core' && this.core?.processor === processor) {
      await this.scheduleOwn(this.core, bytes, true);
      return;
    }
    if (this.swarm === null) return;
    const state = processor.state;
    const peers = state.membership
      .chooseRemoteNodes(this.config.blend.edge.replication_factor, new Set(), this.rng)
      .map((m) => ({ peerId: m.peerId, addresses: m.locators.map((l) => multiaddr(l)) }));
    if ((await this.swarm.sendAsEdge(bytes, peers)) > 0) {
      this.traffic.sent++;
      this.deps.meter?.count('blend_messages_sent_total', 1, { action: 'publish' });
    }
  }
}
