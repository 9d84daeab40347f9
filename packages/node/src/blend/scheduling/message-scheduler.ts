/**
 * The message scheduler of one epoch (F: blend/scheduling/src/message_scheduler/{mod,round_info,
 * epoch_info}.rs): each round it combines the cover traffic (`cover-traffic.ts`), the release
 * delayer of processed messages (`release-delayer.ts`) and the data messages the node queued since
 * the last round, and says what the node sends in that round.
 *
 * At an epoch change the scheduler rotates: a new one starts for the new epoch (its generator a copy
 * of the old delayer's) and the old one becomes an `OldEpochMessageScheduler` for the transition
 * period, which keeps releasing the old epoch's processed messages and the data messages that were
 * queued but not yet released (they carry the old epoch's proofs of quota), and never emits cover
 * messages. Whatever it still holds when the transition period ends is dropped with it.
 *
 * Pure: the caller reports each round with its number. A scheduler counts rounds from the round it
 * was created at (`startRound`, its round 0), as the reference's per-scheduler round clock does.
 */
import { EpochCoverTraffic } from './cover-traffic.ts';
import { EpochReleaseDelayer } from './release-delayer.ts';
import type { CloneableRng } from './rng.ts';

/** What else a round releases besides the queued data messages (F: `RoundReleaseType`). */
export type RoundReleaseType<P> =
  | { readonly kind: 'OnlyProcessedMessages'; readonly processed: readonly P[] }
  | { readonly kind: 'OnlyCoverMessage' }
  | { readonly kind: 'ProcessedAndCoverMessages'; readonly processed: readonly P[] };

/** What the node sends in a round (F: `RoundInfo`). */
export interface RoundInfo<P, D> {
  /** Data messages queued since the last round: sent in any round. */
  readonly dataMessages: readonly D[];
  readonly releaseType: RoundReleaseType<P> | null;
}

/** A round's processed messages and whether it emits a cover message (F: `into_components`). */
export function roundComponents<P>(releaseType: RoundReleaseType<P> | null): {
  processed: readonly P[];
  cover: boolean;
} {
  if (releaseType === null) return { processed: [], cover: false };
  switch (releaseType.kind) {
    case 'OnlyCoverMessage':
      return { processed: [], cover: true };
    case 'OnlyProcessedMessages':
      return { processed: releaseType.processed, cover: false };
    case 'ProcessedAndCoverMessages':
      return { processed: releaseType.processed, cover: true };
  }
}

/** F: message_scheduler/epoch_info.rs `EpochInfo`. */
export interface SchedulerEpochInfo {
  /** Q_c: the core quota of the epoch. */
  readonly coreQuota: bigint;
  readonly epoch: number;
}

/** F: message_scheduler `Settings` (the round duration is the caller's clock). */
export interface SchedulerSettings {
  readonly maximumReleaseDelayInRounds: bigint;
  readonly roundsPerEpoch: bigint;
  /** β_c (> 0). */
  readonly numBlendLayers: bigint;
}

/** Cover messages of an epoch: `⌊Q_c / β_c⌋`, since each takes one proof of quota per layer. */
export function coverMessageCount(coreQuota: bigint, numBlendLayers: bigint): bigint {
  if (numBlendLayers <= 0n) throw new RangeError('a message has at least one blend layer');
  return coreQuota / numBlendLayers;
}

/** A round's outcome: null when nothing is due (F: `Poll::Pending`). */
function roundInfo<P, D>(dataMessages: D[], releaseType: RoundReleaseType<P> | null): RoundInfo<P, D> | null {
  if (releaseType === null && dataMessages.length === 0) return null;
  return { dataMessages, releaseType };
}

function relativeRound(round: bigint, startRound: bigint): bigint {
  if (round < startRound)
    throw new RangeError(`round ${round} is before the scheduler's start ${startRound}`);
  return round - startRound;
}

export class EpochMessageScheduler<P, D> {
  readonly #cover: EpochCoverTraffic;
  readonly #delayer: EpochReleaseDelayer<P>;
  /** The delayer's generator, copied to seed the next epoch's scheduler. */
  readonly #rng: CloneableRng;
  #dataMessages: D[];
  readonly #startRound: bigint;
  readonly epoch: number;

  private constructor(
    cover: EpochCoverTraffic,
    delayer: EpochReleaseDelayer<P>,
    rng: CloneableRng,
    dataMessages: D[],
    startRound: bigint,
    epoch: number,
  ) {
    this.#cover = cover;
    this.#delayer = delayer;
    this.#rng = rng;
    this.#dataMessages = dataMessages;
    this.#startRound = startRound;
    this.epoch = epoch;
  }

  /**
   * The scheduler of an epoch starting at round `startRound`. The cover traffic draws from a copy
   * of `rng` and the delayer from `rng` itself, as the reference does.
   */
  static create<P, D>(
    epochInfo: SchedulerEpochInfo,
    rng: CloneableRng,
    settings: SchedulerSettings,
    startRound = 0n,
  ): EpochMessageScheduler<P, D> {
    const cover = EpochCoverTraffic.create(
      {
        roundsPerEpoch: settings.roundsPerEpoch,
        messageCount: coverMessageCount(epochInfo.coreQuota, settings.numBlendLayers),
      },
      rng.clone(),
    );
    const delayer = EpochReleaseDelayer.create<P>(
      { maximumReleaseDelayInRounds: settings.maximumReleaseDelayInRounds },
      rng,
    );
    return new EpochMessageScheduler<P, D>(cover, delayer, rng, [], startRound, epochInfo.epoch);
  }

  /** A scheduler made of the given parts (restored state, or tests). */
  static fromParts<P, D>(parts: {
    cover: EpochCoverTraffic;
    delayer: EpochReleaseDelayer<P>;
    rng: CloneableRng;
    dataMessages: readonly D[];
    startRound?: bigint;
    epoch: number;
  }): EpochMessageScheduler<P, D> {
    return new EpochMessageScheduler<P, D>(
      parts.cover,
      parts.delayer,
      parts.rng,
      [...parts.dataMessages],
      parts.startRound ?? 0n,
      parts.epoch,
    );
  }

  get dataMessages(): readonly D[] {
    return this.#dataMessages;
  }

  get coverTraffic(): EpochCoverTraffic {
    return this.#cover;
  }

  get releaseDelayer(): EpochReleaseDelayer<P> {
    return this.#delayer;
  }

  /** Queues a data message for the next round; it cancels one future cover message. */
  queueDataMessage(message: D): void {
    this.#dataMessages.push(message);
    this.#cover.notifyNewDataMessage();
  }

  /** Queues a processed message for the next release round. */
  scheduleProcessedMessage(message: P): void {
    this.#delayer.schedule(message);
  }

  /** Round `round` began: what to send in it, or null when nothing is due. */
  onRound(round: bigint): RoundInfo<P, D> | null {
    const r = relativeRound(round, this.#startRound);
    const cover = this.#cover.onRound();
    const processed = this.#delayer.onRound(r);
    let releaseType: RoundReleaseType<P> | null = null;
    if (cover && processed !== null) releaseType = { kind: 'ProcessedAndCoverMessages', processed };
    else if (cover) releaseType = { kind: 'OnlyCoverMessage' };
    else if (processed !== null) releaseType = { kind: 'OnlyProcessedMessages', processed };
    const info = roundInfo<P, D>(this.#dataMessages, releaseType);
    if (info !== null) this.#dataMessages = [];
    return info;
  }

  /**
   * The epoch ended at round `round` (the new scheduler's round 0): the new epoch's scheduler, and
   * this one as the old epoch's, keeping its unreleased processed and data messages.
   */
  rotateEpoch(
    newEpochInfo: SchedulerEpochInfo,
    settings: SchedulerSettings,
    round = 0n,
  ): { current: EpochMessageScheduler<P, D>; old: OldEpochMessageScheduler<P, D> } {
    const current = EpochMessageScheduler.create<P, D>(newEpochInfo, this.#rng.clone(), settings, round);
    const old = new OldEpochMessageScheduler<P, D>(
      this.#delayer,
      this.#dataMessages,
      this.#startRound,
      this.epoch,
    );
    this.#dataMessages = [];
    return { current, old };
  }
}

/** The old epoch's scheduler during the transition period (F: `OldEpochMessageScheduler`). */
export class OldEpochMessageScheduler<P, D> {
  readonly #delayer: EpochReleaseDelayer<P>;
  #dataMessages: D[];
  readonly #startRound: bigint;
  readonly epoch: number;

  constructor(
    delayer: EpochReleaseDelayer<P>,
    dataMessages: readonly D[],
    startRound: bigint,
    epoch: number,
  ) {
    this.#delayer = delayer;
    this.#dataMessages = [...dataMessages];
    this.#startRound = startRound;
    this.epoch = epoch;
  }

  get dataMessages(): readonly D[] {
    return this.#dataMessages;
  }

  get releaseDelayer(): EpochReleaseDelayer<P> {
    return this.#delayer;
  }

  scheduleProcessedMessage(message: P): void {
    this.#delayer.schedule(message);
  }

  /** Round `round` began (counted as the old epoch's scheduler counted it). Never a cover message. */
  onRound(round: bigint): RoundInfo<P, D> | null {
    const processed = this.#delayer.onRound(relativeRound(round, this.#startRound));
    const info = roundInfo<P, D>(
      this.#dataMessages,
      processed === null ? null : { kind: 'OnlyProcessedMessages', processed },
    );
    if (info !== null) this.#dataMessages = [];
    return info;
  }
}
