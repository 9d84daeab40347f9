/**
 * What an exit node does with a payload it unwrapped (F `services/blend/src/core/dispatcher/libp2p.rs`):
 * a block proposal is published on the block topic (and handled here), a transaction — encoded as
 * the mempool gossips it — goes to this node's mempool with the origin `blend`, a `MempoolMsg::Add` in
 * F's terms: gossiped when added, and gossiped again when already pending. A payload that does not
 * decode is logged and dropped: its sender is hidden by design, so nobody is blamed.
 */
import type { Logger } from 'pino';
import { bytesToHex } from '../codec/hex.ts';
import { txHash } from '../mantle/tx.ts';
import type { IMempool } from '../mempool/index.ts';
import { decodeTxGossip, type ProposalRelay } from '../network/index.ts';
import { PayloadType } from './message/index.ts';

export interface DispatcherDeps {
  readonly mempool: IMempool;
  readonly gossip: ProposalRelay;
  readonly logger: Logger;
}

export class PayloadDispatcher {
  /** Payloads delivered, by kind, since the node started. */
  readonly delivered = { proposals: 0, transactions: 0 };

  constructor(private readonly deps: DispatcherDeps) {}

  dispatch(type: PayloadType, body: Uint8Array): void {
    if (type === PayloadType.BlockProposal) {
      this.delivered.proposals++;
      this.deps.gossip.relayProposal(body);
      return;
    }
    if (type !== PayloadType.Transaction) return;
    let tx: ReturnType<typeof decodeTxGossip>;
    try {
      tx = decodeTxGossip(body);
    } catch (e) {
      this.deps.logger.error(
        { err: (e as Error).message },
        'discarding an unwrapped payload that does not decode as a transaction',
      );
      return;
    }
    this.delivered.transactions++;
    const hash = bytesToHex(txHash(tx.mantle_tx));
    this.deps.mempool.add(tx, 'blend').then(
      (r) =>
        this.deps.logger.debug({ tx: hash, outcome: r.outcome }, 'blended transaction added to the mempool'),
      (e: Error) =>
        this.deps.logger.debug(
          { tx: hash, err: e.message },
          'blended transaction was not added to the mempool',
        ),
    );
  }
}
