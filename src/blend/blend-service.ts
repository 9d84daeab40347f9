/**
 * The Blend service (F `services/blend/src/{lib.rs,instance.rs,modes/**}`): per epoch it reads the
 * Blend membership frozen in the chain's epoch state and plays one of three roles — Broadcast while
 * the membership is below `minimum_network_size` (proposals straight to gossip, transactions straight
 * to the mempool), Core when this node is a member, Edge otherwise — and answers `/blend/*`.
 */

import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import type { Logger } from 'pino';
import type { Block } from '../block/block.ts';
import type { IChain, SlotClock } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import type { BlendDeployment } from '../ledger/deployment.ts';
import { type SignedMantleTx, txHash } from '../mantle/tx.ts';
import { type IMempool, MempoolError } from '../mempool/index.ts';
import type { BlockPublisher, ProposalRelay } from '../network/gossip/index.ts';
import { encodeTxGossip } from '../network/index.ts';
import type { BlendSection } from './config.ts';
import { BlendError, transactionTooLarge } from './errors.ts';
import type { BlendMode, BlendNetworkInfo, IBlend, LeadershipWin, ProposalPublisher } from './interface.ts';

/** F `blend/message/src/message/payload.rs` `MAX_PAYLOAD_BODY_SIZE`: the largest body a message carries. */
export const MAX_PAYLOAD_BODY_SIZE = 18_192;

export interface BlendServiceConfig {
  readonly blend: BlendSection;
  readonly deployment: BlendDeployment;
  /** The 32-byte Ed25519 seed of `blend.non_ephemeral_signing_key_id`; null when the node has none. */
  readonly signingSeed: Uint8Array | null;
}

export interface BlendDeps {
  readonly chain: IChain;
  readonly clock: SlotClock;
  readonly mempool: IMempool;
  /** Gossip: proposals of a broadcast epoch, and those this node unwraps as an exit node. */
  readonly gossip: BlockPublisher & ProposalRelay;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export class BlendService implements IBlend, ProposalPublisher {
  private closed = false;
  private current: BlendMode = 'broadcast';

  private constructor(
    readonly config: BlendServiceConfig,
    private readonly deps: BlendDeps,
    /** The node's Blend peer id (of its signing key); null without a key. */
    readonly nodeId: string | null,
  ) {}

  static async init(config: BlendServiceConfig, deps: BlendDeps): Promise<BlendService> {
    const nodeId =
      config.signingSeed === null
        ? null
        : peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', config.signingSeed)).toString();
    const s = new BlendService(config, deps, nodeId);
    deps.logger.info({ node_id: nodeId, mode: s.current }, 'Blend service ready');
    return s;
  }

  mode(): BlendMode {
    return this.current;
  }

  info(): BlendNetworkInfo | null {
    if (this.nodeId === null) return null;
    return { node_id: this.nodeId, core_info: null };
  }

  async disperseTransaction(tx: SignedMantleTx): Promise<Uint8Array> {
    if (this.closed) throw new BlendError('BLEND_UNAVAILABLE', 'the Blend service is stopping');
    const hash = txHash(tx.mantle_tx);
    // F `BlendPayload::transaction`: the encoding the mempool gossips must fit one payload body,
    // whatever the mode (the API builds the payload before the service sees it).
    const size = encodeTxGossip(tx).length;
    if (size > MAX_PAYLOAD_BODY_SIZE) throw transactionTooLarge(size, MAX_PAYLOAD_BODY_SIZE);
    // Broadcast mode: no mixing, the transaction goes to this node's mempool (which gossips it).
    try {
      await this.deps.mempool.add(tx, 'api');
    } catch (e) {
      if (e instanceof MempoolError) throw new BlendError('BLEND_MEMPOOL', e.message);
      throw e;
    }
    this.deps.logger.debug({ tx: bytesToHex(hash), mode: this.current }, 'transaction dispersed');
    return hash;
  }

  pendingTransactions(): Uint8Array[] {
    return [];
  }

  publishProposal(block: Block, _win: LeadershipWin): void {
    if (this.closed) return;
    this.deps.gossip.publishBlock(block);
  }

  close(): void {
    this.closed = true;
  }
}
