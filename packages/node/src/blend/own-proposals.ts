/**
 * The Blend service's own block proposals (F `services/blend/src/lib.rs`, the leadership quota of
 * `blend/proofs/src/quota/`): a proposal is wrapped with proofs of leadership quota from its slot's
 * win, `data_replication_factor + 1` copies of `num_blend_layers` layers each. The proofs of a won slot
 * are made ahead in the background when the leader finds the win; at the slot, those not ready yet are
 * withdrawn from the background queue and made at once, before anything else waiting.
 */
import type { Logger } from 'pino';
import type { SlotClock } from '../chain/index.ts';
import { type EpochSchedule, epochOf } from '../ledger/parameters.ts';
import type { ProveOptions } from '../ledger/proof-system.ts';
import { BlendError } from './errors.ts';
import type { LeadershipWin } from './interface.ts';
import { PayloadType } from './message/index.ts';
import type { EpochProcessor, LayerProof } from './processor.ts';

export interface OwnProposalsDeps {
  readonly clock: SlotClock;
  readonly epochs: EpochSchedule;
  readonly logger: Logger;
  /** The layers of a message (`num_blend_layers`). */
  readonly layers: number;
  /** `data_replication_factor`: the copies of a proposal beyond the first. */
  readonly replicationFactor: number;
  /** Sends a message this node wrapped (in its epoch's role). */
  readonly sendOwn: (processor: EpochProcessor, bytes: Uint8Array) => Promise<void>;
}

/** The leadership proofs of a won slot being made ahead. */
interface Ahead {
  readonly processor: EpochProcessor;
  readonly layers: Map<number, Promise<LayerProof>>;
  readonly done: Map<number, LayerProof>;
  readonly cancel: AbortController;
}

export class OwnProposals {
  /** Leadership proofs of won slots made ahead, by slot. */
  private readonly ahead = new Map<bigint, Ahead>();

  constructor(private readonly deps: OwnProposalsDeps) {}

  /**
   * The leadership proofs of a won slot's proposal: `data_replication_factor + 1` copies of
   * `num_blend_layers` layers, key indices 0.. of the slot's quota (the key nullifier binds the slot
   * and the index, so a proof made ahead and one made again are proofs of the same layer, never both
   * sent). One promise per layer, copy after copy.
   */
  private prove(
    processor: EpochProcessor,
    win: LeadershipWin,
    opts: ProveOptions,
    indices: readonly number[] = this.indices(),
  ): Map<number, Promise<LayerProof>> {
    return new Map(
      indices.map((i) => [
        i,
        processor.proveLayer('leadership', { win }, opts, i).then((p) => {
          if (p === null)
            throw new BlendError('BLEND_UNAVAILABLE', 'the leadership quota of a slot is used up');
          return p;
        }),
      ]),
    );
  }

  private indices(): number[] {
    return Array.from({ length: (this.deps.replicationFactor + 1) * this.deps.layers }, (_, i) => i);
  }

  /**
   * Proves a won slot's proposal ahead, in the background, with the current epoch's `processor` (a
   * win of another epoch, or one already being proved, is left); proofs of past slots are withdrawn.
   */
  // inferred: proved when the leader finds the win (docs/design/fidelity.md "Proofs of leadership quota made ahead")
  prepare(processor: EpochProcessor, win: LeadershipWin): void {
    const epoch = epochOf(win.slot, this.deps.epochs);
    if (epoch !== processor.epoch || this.ahead.has(win.slot)) return;
    const now = this.deps.clock.currentSlot();
    for (const [slot, p] of this.ahead) {
      if (slot >= now) continue;
      p.cancel.abort();
      this.ahead.delete(slot);
    }
    const cancel = new AbortController();
    const layers = this.prove(processor, win, { background: true, signal: cancel.signal });
    const done = new Map<number, LayerProof>();
    for (const [i, p] of layers)
      p.then(
        (proof) => done.set(i, proof),
        () => {}, // withdrawn or failed: made again when the slot comes
      );
    this.ahead.set(win.slot, { processor, layers, done, cancel });
  }

  /**
   * Sends the proposal of a won slot: with the layer proofs made ahead that are ready; the others are
   * withdrawn from the background queue and made now, before anything else waiting (a proof already
   * being made ahead still counts, whichever is ready first).
   */
  async send(processor: EpochProcessor, proposal: Uint8Array, win: LeadershipWin): Promise<void> {
    const { layers } = this.deps;
    const ahead = this.ahead.get(win.slot);
    this.ahead.delete(win.slot);
    const usable = ahead !== undefined && ahead.processor === processor ? ahead : undefined;
    const indices = this.indices();
    const missing = indices.filter((i) => usable?.done.get(i) === undefined);
    if (missing.length > 0) usable?.cancel.abort();
    const now = this.prove(processor, win, { urgent: true }, missing);
    const proofs = await Promise.all(
      indices.map((i) => {
        const ready = usable?.done.get(i);
        if (ready !== undefined) return ready;
        const made = usable?.layers.get(i);
        return made === undefined ? now.get(i)! : Promise.any([made, now.get(i)!]);
      }),
    );
    for (let c = 0; c < proofs.length; c += layers)
      await this.deps.sendOwn(
        processor,
        processor.wrap(PayloadType.BlockProposal, proposal, proofs.slice(c, c + layers)),
      );
    this.deps.logger.debug(
      {
        slot: Number(win.slot),
        copies: proofs.length / layers,
        proved_ahead: missing.length === 0,
        layers_made_now: missing.length,
      },
      'proposal sent through Blend',
    );
  }
}
