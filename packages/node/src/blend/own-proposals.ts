/**
 * The Blend service's own block proposals (F `services/blend/src/lib.rs`, the leadership quota of
 * `blend/proofs/src/quota/`): a proposal is wrapped with proofs of leadership quota from its slot's
 * win, `data_replication_factor + 1` copies of `num_blend_layers` layers each. The proofs of a won slot
 * are made ahead in the background when the leader finds the win; at the slot, those a prover has not
 * taken yet are withdrawn from the background queue and made at once, before anything else waiting,
 * and those being made are awaited (never made twice).
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

/** One layer's leadership proof being made ahead. */
interface AheadLayer {
  proof: Promise<LayerProof>;
  readonly cancel: AbortController;
  /** A prover took it: at the slot it is awaited rather than made again. */
  started: boolean;
  done?: LayerProof;
}

/** The leadership proofs of a won slot being made ahead. */
interface Ahead {
  readonly processor: EpochProcessor;
  readonly layers: Map<number, AheadLayer>;
}

export class OwnProposals {
  /** Leadership proofs of won slots made ahead, by slot. */
  private readonly ahead = new Map<bigint, Ahead>();

  constructor(private readonly deps: OwnProposalsDeps) {}

  /** One layer's leadership proof of a slot's proposal, key index `i`. */
  private proveLayer(
    processor: EpochProcessor,
    win: LeadershipWin,
    opts: ProveOptions,
    i: number,
  ): Promise<LayerProof> {
    return processor.proveLayer('leadership', { win }, opts, i).then((p) => {
      if (p === null) throw new BlendError('BLEND_UNAVAILABLE', 'the leadership quota of a slot is used up');
      return p;
    });
  }

  /**
   * The key indices of a won slot's proposal: `data_replication_factor + 1` copies of
   * `num_blend_layers` layers, indices 0.. of the slot's quota (the key nullifier binds the slot and
   * the index, so a proof made ahead and one made at the slot are proofs of the same layer, never
   * both sent).
   */
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
    for (const [slot, a] of this.ahead) {
      if (slot >= now) continue;
      for (const l of a.layers.values()) l.cancel.abort(`the proposal of slot ${slot} was not sent`);
      this.ahead.delete(slot);
    }
    const layers = new Map<number, AheadLayer>();
    for (const i of this.indices()) {
      const cancel = new AbortController();
      // The layer exists before its request: a free prover may start it at once.
      const layer: AheadLayer = { cancel, started: false, proof: Promise.resolve() as never };
      layer.proof = this.proveLayer(
        processor,
        win,
        {
          background: true,
          signal: cancel.signal,
          what: `proposal of slot ${win.slot}, ahead`,
          onStart: () => {
            layer.started = true;
          },
        },
        i,
      );
      layer.proof.then(
        (p) => {
          layer.done = p;
        },
        () => {}, // withdrawn or failed: made at the slot
      );
      layers.set(i, layer);
    }
    this.ahead.set(win.slot, { processor, layers });
  }

  /**
   * Sends the proposal of a won slot: with the layer proofs made ahead that are ready or being made;
   * the others are withdrawn from the background queue and made at once, before anything else
   * waiting (so no layer is proved twice).
   */
  async send(processor: EpochProcessor, proposal: Uint8Array, win: LeadershipWin): Promise<void> {
    const { layers } = this.deps;
    const ahead = this.ahead.get(win.slot);
    this.ahead.delete(win.slot);
    const usable = ahead !== undefined && ahead.processor === processor ? ahead : undefined;
    if (ahead !== undefined && usable === undefined)
      for (const l of ahead.layers.values()) l.cancel.abort(`slot ${win.slot}: another epoch's processor`);
    const now = (i: number) =>
      this.proveLayer(processor, win, { urgent: true, what: `proposal of slot ${win.slot}` }, i);
    let madeNow = 0;
    const proofs = await Promise.all(
      this.indices().map((i) => {
        const l = usable?.layers.get(i);
        if (l?.done !== undefined) return l.done;
        // Being made: awaited (made now only if it fails).
        if (l?.started) return l.proof.catch(() => now(i));
        l?.cancel.abort(`slot ${win.slot}: made now instead`);
        madeNow++;
        return now(i);
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
        proved_ahead: madeNow === 0,
        layers_made_now: madeNow,
      },
      'proposal sent through Blend',
    );
  }
}
