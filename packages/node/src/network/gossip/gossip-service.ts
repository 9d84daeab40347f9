/**
 * The gossip service: block proposals and transactions over gossipsub (F
 * `services/chain/chain-network/src/lib.rs` `handle_incoming_proposal`, `services/tx-service` network
 * adapter).
 *
 * Proposals received once initial block download is over are processed one at a time: skipped when at or before the LIB (recorded as
 * rejected) or already applied; the header is checked on its own before the mempool is touched (a bad
 * one is recorded as rejected and its sender penalised); the block is rebuilt from the mempool's
 * transactions (a missing one drops the proposal without blame: the block comes later through sync);
 * the chain applies it, a block from a future slot being tried again 3 times 500 ms apart; a block whose
 * parent is unknown goes to chain sync's orphan downloader; a block the chain refuses as invalid is
 * recorded as rejected and its sender penalised.
 * Transactions received are decoded (size-checked) and added to the mempool as `network` ones (never
 * published again: gossipsub forwards them). Transactions added locally (API, wallet, reorg) and local
 * resubmissions are published; so are the proposals of the blocks the leader made (`publishBlock`).
 * Peers are penalised (beyond the reference, which has no peer scoring) as `relayed` (see `penalize`):
 * a forwarded message alone never gets a peer banned; only a peer that keeps delivering failing
 * transactions first is penalised as their source (`txFailed`). The node never penalises itself.
 */

import type { Logger } from 'pino';
import type { Block } from '../../block/block.ts';
import { headerId } from '../../block/header.ts';
import { BlockRejected, type IChain, type SlotClock } from '../../chain/index.ts';
import { bytesToHex } from '../../codec/hex.ts';
import { LedgerError } from '../../ledger/errors.ts';
import type { SignedMantleTx } from '../../mantle/tx.ts';
import { type IMempool, MempoolError, type MempoolEvents } from '../../mempool/index.ts';
import type { Meter } from '../../util/meter.ts';
import type { GossipVerdict, INetwork } from '../interface.ts';
import { WireError } from '../wire/errors.ts';
import {
  decodeProposal,
  encodeProposal,
  type Proposal,
  reconstruct,
  toProposal,
  verifyHeaderAlone,
} from '../wire/proposal.ts';
import { ProposalError } from '../wire/proposal-errors.ts';
import { decodeTxGossip, encodeTxGossip } from '../wire/tx-gossip.ts';
import type { GossipConfig } from './config.ts';
import { FailingSources } from './failing-sources.ts';
import type { GossipCounters, IGossip, OrphanSink } from './interface.ts';
import { ProposalGate, proposalGateSettings } from './proposal-gate.ts';
import { applyWithFutureBlockRetry } from './retry.ts';

export interface GossipDeps {
  readonly network: INetwork;
  readonly chain: Pick<IChain, 'submit' | 'lib' | 'has'>;
  readonly mempool: Pick<IMempool, 'add' | 'byPrefix' | 'on' | 'off'>;
  /** Chain sync's orphan downloader and rejected-blocks cache. */
  readonly orphans: OrphanSink;
  /**
   * Settles when initial block download is over: proposals received before are dropped, as F subscribes
   * to them only then (transactions are taken from the start).
   */
  readonly ibd: Promise<unknown>;
  readonly logger: Logger;
  /** Aborting stops the service (as `close` does). */
  readonly signal?: AbortSignal;
  /** The clock (ms since the epoch); tests move it. */
  readonly now?: () => number;
  /** The current slot (the proposal window); without it every slot is in the window. */
  readonly clock?: Pick<SlotClock, 'currentSlot'>;
  /** Counts the proposals ignored (absent: not counted). */
  readonly meter?: Meter;
}

type Added = MempoolEvents['added'][0];

export class GossipService implements IGossip {
  readonly counters: GossipCounters = {
    proposalsReceived: 0,
    proposalsApplied: 0,
    proposalsMissingTxs: 0,
    proposalsRejected: 0,
    orphansReceived: 0,
    orphansEnqueued: 0,
    proposalsIgnored: 0,
    proposalsLimited: 0,
    txsAdded: 0,
    txsRejected: 0,
    dropped: 0,
    proposalsPublished: 0,
    txsPublished: 0,
  };
  private closed = false;
  /** Whether proposals are taken (initial block download is over). */
  private afterIbd = false;
  /** Proposals waiting, processed one at a time in arrival order. */
  private readonly proposals: { proposal: Proposal; from: string; verdict: (v: GossipVerdict) => void }[] =
    [];
  private processing = false;
  /** The run of the proposal queue in progress (awaited by `close`). */
  private drained: Promise<void> = Promise.resolve();
  /** The cheap checks and per-peer budgets of proposals. */
  private readonly gate: ProposalGate;
  /** Peers whose gossiped transactions keep failing. */
  private readonly failing = new FailingSources();
  private txsInFlight = 0;
  private txBytesInFlight = 0;
  /** Aborted by `close` (and by the node's signal): ends the waits between retries. */
  private readonly stop = new AbortController();
  private readonly signal: AbortSignal;
  private readonly onLocalTx = (e: Added) => {
    if (e.origin !== 'network') this.publishTx(e.tx);
  };

  /**
   * Proposals and transactions on one topic: each message is tried as both, so a message that does not
   * decode as one kind is no fault of its sender (it may be of the other kind).
   */
  private readonly sharedTopic: boolean;
  /** The clock (ms since the epoch); tests move it. */
  private readonly now: () => number;

  private constructor(
    private readonly config: GossipConfig,
    private readonly deps: GossipDeps,
  ) {
    this.sharedTopic = config.blockTopic === config.txTopic;
    this.now = deps.now ?? Date.now;
    this.gate = new ProposalGate(
      proposalGateSettings(config.slotMs, config.futureBlockRetries * config.futureBlockRetryDelayMs),
    );
    this.signal = deps.signal ? AbortSignal.any([deps.signal, this.stop.signal]) : this.stop.signal;
  }

  static init(config: GossipConfig, deps: GossipDeps): GossipService {
    // F takes any string as a topic (`gossipsub_protocol`, `pubsub_topic`: `String`), one topic for both
    // kinds of message included.
    const { blockTopic, txTopic } = config;
    const s = new GossipService(config, deps);
    // Each message is forwarded once judged: accepted when valid, rejected when invalid, ignored when
    // it could not be judged or is of no use (network/interface.ts `GossipHandler`).
    deps.network.subscribe(blockTopic, async (data, from) => {
      try {
        return await s.onProposalMessage(data, from);
      } catch (e) {
        deps.logger.error({ err: (e as Error).message, peer: from }, 'handling a proposal failed');
        return 'ignore';
      }
    });
    deps.network.subscribe(txTopic, (data, from) =>
      s.onTxMessage(data, from).catch((e: Error): GossipVerdict => {
        deps.logger.error({ err: e.message, peer: from }, 'handling a transaction failed');
        return 'ignore';
      }),
    );
    deps.mempool.on('added', s.onLocalTx);
    deps.mempool.on('resubmitted', s.onLocalTx);
    deps.ibd.then(
      () => {
        s.afterIbd = true;
      },
      // The node stops when initial block download fails; no proposal is taken meanwhile.
      () => {},
    );
    deps.signal?.addEventListener('abort', () => void s.close(), { once: true });
    deps.logger.info({ block_topic: blockTopic, tx_topic: txTopic }, 'gossip subscribed');
    return s;
  }

  /** Stops handling and publishing messages; waits for the proposal being processed. */
  async close(): Promise<void> {
    if (this.closed) return this.drained;
    this.closed = true;
    this.stop.abort();
    for (const p of this.proposals.splice(0)) p.verdict('ignore');
    this.deps.mempool.off('added', this.onLocalTx);
    this.deps.mempool.off('resubmitted', this.onLocalTx);
    await this.drained;
  }

  // ---------- outgoing ----------

  /** Publishes the proposal of a block this node made, after the chain applied it. */
  publishBlock(block: Block): void {
    if (this.closed) return;
    const bytes = encodeProposal(toProposal(block));
    const id = bytesToHex(headerId(block.header));
    this.deps.network.publish(this.config.blockTopic, bytes).then(
      () => {
        this.counters.proposalsPublished++;
        this.deps.logger.debug({ block: id, bytes: bytes.length }, 'proposal handed to gossip');
      },
      (e: Error) => this.deps.logger.warn({ block: id, err: e.message }, 'publishing a proposal failed'),
    );
  }

  /**
   * A proposal that left the mix network at this node (a Blend exit): published on the block topic as
   * received (F `services/blend/src/core/dispatcher/libp2p.rs`), and handled here as if a peer had sent
   * it, since gossipsub never delivers a node's own message back to it. Nobody is blamed if it is bad:
   * its author is hidden by design.
   * inferred: F's exit node only publishes it (docs/design/fidelity.md "A Blend proposal of an exit node")
   */
  relayProposal(bytes: Uint8Array): void {
    if (this.closed) return;
    let proposal: Proposal;
    try {
      proposal = decodeProposal(bytes);
    } catch (e) {
      if (!(e instanceof WireError)) throw e;
      this.deps.logger.debug({ err: e.message }, 'undecodable proposal from the mix network dropped');
      return;
    }
    const id = bytesToHex(headerId(proposal.header));
    this.deps.network.publish(this.config.blockTopic, bytes).then(
      () => this.deps.logger.debug({ block: id, bytes: bytes.length }, 'blended proposal handed to gossip'),
      (e: Error) =>
        this.deps.logger.warn({ block: id, err: e.message }, 'publishing a blended proposal failed'),
    );
    if (!this.afterIbd) return;
    void this.enqueue(proposal, this.deps.network.peerId);
  }

  /**
   * Queues a proposal for processing; when the queue is full the oldest waiting one goes, so that a
   * flood cannot keep the newest (an honest leader's next block) out.
   * inferred: F's stream is unbounded (docs/design/fidelity.md "Bounds of gossip work")
   */
  private enqueue(proposal: Proposal, from: string): Promise<GossipVerdict> {
    if (this.proposals.length >= this.config.maxPendingProposals) {
      const dropped = this.proposals.shift()!;
      this.counters.dropped++;
      this.deps.logger.debug(
        { peer: dropped.from, slot: Number(dropped.proposal.header.slot) },
        'proposal dropped: the oldest of too many waiting',
      );
      dropped.verdict('ignore');
    }
    const verdict = new Promise<GossipVerdict>((resolve) => {
      this.proposals.push({ proposal, from, verdict: resolve });
    });
    if (!this.processing) this.drained = this.drain();
    return verdict;
  }

  private publishTx(tx: SignedMantleTx): void {
    if (this.closed) return;
    const bytes = encodeTxGossip(tx);
    this.deps.network.publish(this.config.txTopic, bytes).then(
      () => {
        this.counters.txsPublished++;
      },
      (e: Error) => this.deps.logger.warn({ err: e.message }, 'publishing a transaction failed'),
    );
  }

  // ---------- penalties ----------

  /**
   * The peer named is the one that forwarded the message, not necessarily its author: gossipsub forwards
   * a message before this node has judged it (as the reference, which validates nothing before
   * forwarding), so an honest neighbour may relay a forged proposal. Every gossip offence therefore
   * counts as `relayed`: it raises the peer's score, but never to the ban by itself (an attacker could
   * otherwise inject garbage elsewhere until honest neighbours ban each other); a peer is banned only
   * when it also misbehaves in exchanges it alone answers for (chain sync).
   * inferred: which offence each failure is; F has no peer scoring (docs/design/fidelity.md)
   */
  private penalize(
    peer: string,
    what: 'proposal' | 'transaction',
    e: { code: string; message: string },
  ): void {
    if (peer === this.deps.network.peerId) return;
    // The reason says what was wrong (topic, code, the check's message), so a ban is explained in the log.
    this.deps.network.penalize(peer, 'relayed', `gossip ${what} ${e.code}: ${e.message}`);
  }

  /**
   * A gossiped transaction failed: refused by preverification (`invalid`), or admitted apart as not
   * applicable. Its first deliverer is counted as its source (failing-sources.ts): past the tolerated
   * count each failure is a `minor` offence, which bans a steady source of junk; below it an invalid
   * transaction counts as `relayed` (see `penalize`) and one that does not apply as nothing (an honest
   * peer on another tip sends such).
   */
  private txFailed(peer: string, e: { code: string; message: string }, invalid: boolean): void {
    if (peer === this.deps.network.peerId) return;
    if (this.failing.failed(peer, this.now())) {
      this.deps.network.penalize(peer, 'minor', `gossip transactions keep failing: ${e.code}: ${e.message}`);
    } else if (invalid) this.penalize(peer, 'transaction', e);
  }

  // ---------- incoming proposals ----------

  /**
   * Decodes at once (a proposal is at most 18,192 bytes, so only decoded ones wait), then queues; the
   * verdict comes once it is processed.
   */
  private onProposalMessage(data: Uint8Array, from: string): Promise<GossipVerdict | undefined> {
    if (this.closed || !this.afterIbd) return Promise.resolve('ignore');
    this.counters.proposalsReceived++;
    let proposal: Proposal;
    try {
      proposal = decodeProposal(data);
    } catch (e) {
      if (!(e instanceof WireError)) throw e;
      this.deps.logger.debug({ peer: from, err: e.message }, 'undecodable proposal');
      // On a topic shared with transactions it may be a transaction: not this handler's to judge.
      if (this.sharedTopic) return Promise.resolve(undefined);
      this.counters.proposalsRejected++;
      this.penalize(from, 'proposal', e);
      return Promise.resolve('reject');
    }
    return this.enqueue(proposal, from);
  }

  private async drain(): Promise<void> {
    this.processing = true;
    try {
      for (let next = this.proposals.shift(); next && !this.closed; next = this.proposals.shift()) {
        let verdict: GossipVerdict = 'ignore';
        try {
          verdict = await this.handleProposal(next.proposal, next.from);
        } catch (e) {
          this.deps.logger.error(
            { err: (e as Error).message, peer: next.from },
            'handling a proposal failed',
          );
        } finally {
          if (verdict === 'ignore') this.counters.proposalsIgnored++;
          next.verdict(verdict);
        }
      }
    } finally {
      this.processing = false;
    }
  }

  private async handleProposal(proposal: Proposal, from: string): Promise<GossipVerdict> {
    const log = this.deps.logger;
    const id = headerId(proposal.header);
    const hex = bytesToHex(id);
    const slot = proposal.header.slot;
    // 1. Nothing to do for a block at or before the LIB (it can never join the chain) or one applied already.
    if (slot <= this.deps.chain.lib().slot) {
      this.deps.orphans.markRejected(id);
      log.trace({ block: hex, slot: Number(slot) }, 'proposal at or before the LIB ignored');
      this.deps.meter?.count('consensus_proposals_ignored_total', 1, {
        reason: 'older_than_lib',
        origin: 'network',
      });
      return 'ignore';
    }
    if (this.deps.chain.has(id)) {
      this.deps.meter?.count('consensus_proposals_ignored_total', 1, {
        reason: 'already_processed',
        origin: 'network',
      });
      return 'ignore';
    }
    // The cheapest check first: the slot window.
    const current = this.deps.clock?.currentSlot();
    if (current !== undefined && !this.gate.inWindow(slot, current)) {
      return this.limited(
        hex,
        from,
        `slot ${slot} is more than ${this.gate.settings.aheadSlots} slots ahead`,
      );
    }
    // 2. The header on its own, before the mempool is searched for the unauthenticated references.
    try {
      verifyHeaderAlone(proposal.header, proposal.signature);
    } catch (e) {
      if (!(e instanceof ProposalError)) throw e;
      log.warn({ block: hex, peer: from, err: e.message }, 'proposal header refused');
      this.counters.proposalsRejected++;
      this.deps.orphans.markRejected(id);
      this.penalize(from, 'proposal', e);
      return 'reject';
    }
    // One proposal per leader key and slot (an honest leader signs one block per slot and key).
    const leaderKey = proposal.header.proof_of_leadership.leader_key;
    if (this.gate.leaderSeen(slot, leaderKey)) {
      return this.limited(hex, from, 'a proposal of this leader key and slot was verified already');
    }
    // 3-5. The block from the mempool's transactions.
    let block: Block;
    try {
      block = reconstruct(proposal, (prefix) => this.deps.mempool.byPrefix(prefix));
    } catch (e) {
      if (!(e instanceof ProposalError)) throw e;
      // Not recorded as rejected: a transaction missing here says nothing of the block, which may still
      // arrive in full through chain sync and is judged then.
      if (e.code === 'PROPOSAL_UNRESOLVED_REFERENCE' || e.code === 'PROPOSAL_COLLIDING_REFERENCE') {
        this.counters.proposalsMissingTxs++;
        log.debug(
          { block: hex, slot: Number(slot), err: e.message },
          'proposal dropped: transaction not here',
        );
        return 'ignore';
      }
      // inferred: references that contradict the signed header are useless data from the sender (docs/design/fidelity.md)
      this.counters.proposalsRejected++;
      log.debug({ block: hex, peer: from, err: e.message }, 'proposal does not rebuild its block');
      this.penalize(from, 'proposal', e);
      return 'reject';
    }
    // 6. Applied by the chain, a block from a future slot being tried again. A block whose parent is
    // here has its proof of leadership verified: that takes from the sender's budget.
    const now = this.now();
    if (this.deps.chain.has(block.header.parent_block)) {
      if (!this.gate.takePol(from, now)) {
        return this.limited(hex, from, 'the sender is out of its budget of proofs of leadership');
      }
      this.gate.noteLeader(slot, leaderKey, current ?? slot);
    }
    try {
      await applyWithFutureBlockRetry(
        () => this.deps.chain.submit(block),
        this.config.futureBlockRetries,
        this.config.futureBlockRetryDelayMs,
        this.signal,
      );
      this.counters.proposalsApplied++;
      log.debug({ block: hex, slot: Number(slot), txs: block.transactions.length }, 'proposal applied');
      return 'accept';
    } catch (e) {
      if (!(e instanceof BlockRejected)) throw e;
      return this.onRejected(e, id, block, from);
    }
  }

  /** A proposal dropped by a cheap check or a budget: counted and logged, nothing verified. */
  private limited(block: string, peer: string, why: string): GossipVerdict {
    this.counters.proposalsLimited++;
    this.deps.logger.debug({ block, peer, why }, 'proposal dropped unverified');
    return 'ignore';
  }

  /**
   * F `handle_proposal_processing_error`; the verdict: rejected when invalid, else ignored (a block
   * this node could not judge is not forwarded by it).
   */
  private onRejected(e: BlockRejected, id: Uint8Array, block: Block, from: string): GossipVerdict {
    const log = this.deps.logger;
    const hex = bytesToHex(id);
    switch (e.code) {
      case 'BLOCK_PARENT_MISSING': {
        this.counters.orphansReceived++;
        if (!this.gate.takeOrphan(from, this.now())) {
          return this.limited(hex, from, 'the sender is out of its budget of orphans');
        }
        const queued = this.deps.orphans.enqueue(id, block.header.parent_block);
        if (queued) this.counters.orphansEnqueued++;
        log.debug({ block: hex, parent: e.meta.parent, queued }, 'proposal parent missing: handed to sync');
        return 'ignore';
      }
      case 'BLOCK_FUTURE':
        log.warn(
          { block: hex, slot: Number(block.header.slot), current: Number(e.meta.boundSlot) },
          'proposal still from a future slot after retries',
        );
        return 'ignore';
      case 'BLOCK_ALREADY_APPLIED':
      case 'BLOCK_ALREADY_SEEN':
        return 'ignore';
      case 'BLOCK_TOO_OLD':
        // F checks this before applying and records the block as rejected.
        this.deps.orphans.markRejected(id);
        return 'ignore';
      case 'BLOCK_PARENT_REJECTED':
        // It can never join the chain; its sender may not have known that its parent was invalid.
        this.deps.orphans.markRejected(id);
        log.debug({ block: hex, parent: e.meta.parent }, 'proposal refused: its parent was rejected');
        return 'reject';
      default:
        break;
    }
    if (e.action === 'reject') {
      this.counters.proposalsRejected++;
      this.deps.orphans.markRejected(id);
      log.warn({ block: hex, peer: from, code: e.code, err: e.message }, 'proposal block refused');
      if (e.meta.causeCode === 'LEDGER_INVALID_LEADER_PROOF' && from !== this.deps.network.peerId) {
        // Its first deliverer is taken for its author (failing-sources.ts says why): a proof of
        // leadership that does not verify is made up, and costs the most to find out.
        this.deps.network.penalize(from, 'major', `gossip proposal ${e.code}: ${e.message}`);
        return 'reject';
      }
      this.penalize(from, 'proposal', e);
      return 'reject';
    }
    // The node failed (storage, stopping): the block may be fine, nobody is blamed.
    log.error({ block: hex, code: e.code, err: e.message }, 'proposal block not applied');
    return 'ignore';
  }

  // ---------- incoming transactions ----------

  /** The verdict: accepted once it applies on the mempool view; rejected when invalid; else ignored. */
  private async onTxMessage(data: Uint8Array, from: string): Promise<GossipVerdict | undefined> {
    if (this.closed) return 'ignore';
    let tx: SignedMantleTx;
    try {
      tx = decodeTxGossip(data);
    } catch (e) {
      if (!(e instanceof WireError)) throw e;
      this.counters.txsRejected++;
      this.deps.logger.debug({ peer: from, err: e.message }, 'undecodable transaction');
      // On a topic shared with proposals it may be a proposal: not this handler's to judge.
      if (this.sharedTopic) return undefined;
      this.txFailed(from, e, true);
      return 'reject';
    }
    if (
      this.txsInFlight >= this.config.maxPendingTxs ||
      this.txBytesInFlight + data.length > this.config.maxPendingTxBytes
    ) {
      this.counters.dropped++;
      this.deps.logger.debug({ peer: from }, 'transaction dropped: too many being admitted');
      return 'ignore';
    }
    this.txsInFlight++;
    this.txBytesInFlight += data.length;
    try {
      const r = await this.deps.mempool.add(tx, 'network');
      if (r.outcome === 'added') {
        this.counters.txsAdded++;
        this.deps.logger.debug(
          { tx: bytesToHex(r.hash), peer: from, applies: r.applies },
          'gossiped transaction added',
        );
        if (r.applies === false) {
          const what = 'it does not apply on the pending view (it spends what is not there)';
          this.txFailed(from, { code: 'TX_NOT_APPLICABLE', message: what }, false);
          return 'ignore';
        }
        return 'accept';
      }
      return 'ignore';
    } catch (e) {
      if (e instanceof LedgerError) {
        this.counters.txsRejected++;
        this.deps.logger.debug({ peer: from, err: e.message }, 'gossiped transaction fails preverification');
        this.txFailed(from, e, true);
        return 'reject';
      }
      if (e instanceof MempoolError) {
        this.deps.logger.debug({ peer: from, err: e.message }, 'gossiped transaction not admitted');
        // A full pool is not the sender's doing; a transaction too large for any block is useless data.
        if (e.code !== 'MEMPOOL_ITEM_TOO_LARGE') return 'ignore';
        this.txFailed(from, e, true);
        return 'reject';
      }
      if (!this.closed)
        this.deps.logger.warn(
          { peer: from, err: (e as Error).message },
          'admitting a gossiped transaction failed',
        );
      return 'ignore';
    } finally {
      this.txsInFlight--;
      this.txBytesInFlight -= data.length;
    }
  }
}
