/**
 * The Blend service's own dispersed transactions (F `services/blend/src/lib.rs`, the PoW quota of
 * `blend/proofs/src/quota/pow.rs`): each waits (`/blend/transactions/pending`) until a solution of the
 * epoch's Blend puzzle (puzzle-solver.ts) backs its proofs of PoW quota, then is wrapped and sent, the
 * oldest first. In an epoch without mixing the waiting transactions go to this node's mempool instead;
 * an epoch whose difficulty admits no solution keeps them waiting for the next epoch.
 */
import type { Logger } from 'pino';
import { bytesToHex } from '../codec/hex.ts';
import type { Fr } from '../crypto/field.ts';
import type { IMempool } from '../mempool/index.ts';
import { decodeTxGossip } from '../network/index.ts';
import { BlendError } from './errors.ts';
import { PayloadType } from './message/index.ts';
import type { EpochProcessor, LayerProof } from './processor.ts';
import { PuzzleSolver } from './puzzle-solver.ts';

/** A dispersed transaction waiting for its proofs. */
interface PendingTx {
  readonly hash: Uint8Array;
  /** Its gossip encoding: the payload body. */
  readonly body: Uint8Array;
}

export interface OwnTransactionsDeps {
  readonly mempool: IMempool;
  readonly logger: Logger;
  /** The layers of a message (`num_blend_layers`). */
  readonly layers: number;
  /** Whether the service sends now: the first epoch's mode is known and it is not closed. */
  readonly sending: () => boolean;
  /** Whether the service is closed. */
  readonly closed: () => boolean;
  /** The current epoch's processor (null in an epoch without mixing). */
  readonly processor: () => EpochProcessor | null;
  /** Whether the current epoch is a broadcast one. */
  readonly broadcast: () => boolean;
  /** Why this node cannot make proofs of quota, if it cannot: the transactions then wait. */
  readonly noPoq: string | undefined;
  /** Sends a message this node wrapped (in its epoch's role). */
  readonly sendOwn: (processor: EpochProcessor, bytes: Uint8Array) => Promise<void>;
}

export class OwnTransactions {
  private readonly pending: PendingTx[] = [];
  private busy = false;
  private readonly puzzle = new PuzzleSolver();

  constructor(private readonly deps: OwnTransactionsDeps) {}

  /** The waiting transactions' hashes, oldest first. */
  hashes(): Uint8Array[] {
    return this.pending.map((p) => p.hash);
  }

  get size(): number {
    return this.pending.length;
  }

  /** A transaction to send through Blend once its proofs are made. */
  add(hash: Uint8Array, body: Uint8Array): void {
    this.pending.push({ hash, body });
    this.deps.logger.debug({ tx: bytesToHex(hash) }, 'transaction waits for a Blend PoW solution');
    void this.solve();
  }

  /** Stops the puzzle search under way. */
  async close(): Promise<void> {
    await this.puzzle.close();
  }

  /**
   * Solves the epoch's Blend puzzle for the oldest pending transaction, proves its layers on the PoW
   * branch, wraps and sends it; then the next one. In a broadcast epoch the waiting transactions go to
   * the mempool instead.
   */
  async solve(): Promise<void> {
    const d = this.deps;
    if (this.busy || !d.sending()) return;
    this.busy = true;
    try {
      while (this.pending.length > 0 && !d.closed()) {
        const processor = d.processor();
        if (processor === null || d.broadcast()) {
          await this.flushToMempool();
          return;
        }
        // No proofs of quota here: they wait (listed as pending) for an epoch without mixing.
        if (d.noPoq !== undefined) return;
        const nonce = await this.solvePuzzle(processor);
        if (processor !== d.processor()) continue;
        if (nonce === undefined) return;
        processor.quota.renew('pow');
        const tx = this.pending[0]!;
        const proofs: LayerProof[] = [];
        for (let l = 0; l < d.layers; l++) {
          const p = await processor.proveLayer('pow', { powNonce: nonce });
          if (p === null)
            throw new BlendError('BLEND_UNAVAILABLE', 'the PoW quota is smaller than the layers');
          proofs.push(p);
        }
        if (processor !== d.processor()) continue;
        this.pending.shift();
        await d.sendOwn(processor, processor.wrap(PayloadType.Transaction, tx.body, proofs));
        d.logger.debug({ tx: bytesToHex(tx.hash) }, 'transaction sent through Blend');
      }
    } catch (e) {
      d.logger.warn({ err: (e as Error).message }, 'blending a transaction failed; it stays pending');
    } finally {
      this.busy = false;
    }
  }

  /** The waiting transactions, into this node's mempool (an epoch without mixing). */
  private async flushToMempool(): Promise<void> {
    while (this.pending.length > 0) {
      const tx = this.pending.shift()!;
      try {
        await this.deps.mempool.add(decodeTxGossip(tx.body), 'api');
        this.deps.logger.info(
          { tx: bytesToHex(tx.hash) },
          'waiting transaction added to the mempool (broadcast mode)',
        );
      } catch (e) {
        this.deps.logger.warn(
          { tx: bytesToHex(tx.hash), err: (e as Error).message },
          'a waiting transaction was refused by the mempool',
        );
      }
    }
  }

  /** A nonce whose Blend PoW ticket is below the epoch's difficulty; undefined if the epoch changed. */
  private async solvePuzzle(processor: EpochProcessor): Promise<Fr | undefined> {
    const { nonce: epochNonce, powDifficulty } = processor.state;
    const t0 = performance.now();
    const s = await this.puzzle.solve(epochNonce, powDifficulty);
    if (s === undefined || processor !== this.deps.processor()) return undefined;
    this.deps.logger.debug(
      { epoch: processor.epoch, attempts: s.attempts, ms: Math.round(performance.now() - t0) },
      'Blend puzzle solved',
    );
    return s.nonce;
  }
}
