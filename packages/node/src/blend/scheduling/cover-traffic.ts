/**
 * The cover traffic of one epoch (F: blend/scheduling/src/cover_traffic.rs `EpochCoverTraffic`).
 *
 * An epoch has `rounds_per_epoch` rounds and a budget of cover messages (capped at one per round).
 * Each round is a release round with probability `remaining messages / remaining rounds` (every
 * round consumes one remaining round, a release round one remaining message). A data message the
 * node queued cancels one future cover message: on a release round while such messages are
 * unaccounted for, a draw in [0, 1] at most `unaccounted / remaining messages (before this one)`
 * skips the cover message and accounts for one data message.
 *
 * Pure: the caller reports each round; the generator's draws are `rand`'s (`rng.ts`).
 */
import { genBool, genRangeF64Inclusive, type RngCore } from './rng.ts';

export interface CoverTrafficSettings {
  /** Rounds in the epoch (> 0). */
  readonly roundsPerEpoch: bigint;
  /** Cover messages to emit in the epoch before accounting for data messages. */
  readonly messageCount: bigint;
}

/** The counters of a cover traffic generator. */
export interface CoverTrafficState {
  readonly remainingMessages: bigint;
  /** Rounds left in the epoch, the current one included. */
  readonly remainingRounds: bigint;
  /** Data messages queued by the node that have not yet cancelled a cover message. */
  readonly unprocessedDataMessages: number;
}

export class EpochCoverTraffic {
  #remainingMessages: bigint;
  #remainingRounds: bigint;
  #unprocessedDataMessages: number;
  readonly #rng: RngCore;

  private constructor(state: CoverTrafficState, rng: RngCore) {
    this.#remainingMessages = state.remainingMessages;
    this.#remainingRounds = state.remainingRounds;
    this.#unprocessedDataMessages = state.unprocessedDataMessages;
    this.#rng = rng;
  }

  /** A generator at the start of an epoch; a budget above the rounds is capped to the rounds. */
  static create(settings: CoverTrafficSettings, rng: RngCore): EpochCoverTraffic {
    if (settings.roundsPerEpoch <= 0n) throw new RangeError('an epoch has at least one round');
    if (settings.messageCount < 0n) throw new RangeError('the cover message count is negative');
    const messages =
      settings.messageCount <= settings.roundsPerEpoch ? settings.messageCount : settings.roundsPerEpoch;
    return new EpochCoverTraffic(
      { remainingMessages: messages, remainingRounds: settings.roundsPerEpoch, unprocessedDataMessages: 0 },
      rng,
    );
  }

  /** A generator with the given counters (a restored one, or one in the middle of an epoch). */
  static fromState(state: CoverTrafficState, rng: RngCore): EpochCoverTraffic {
    if (state.remainingMessages < 0n || state.remainingRounds < 0n || state.unprocessedDataMessages < 0) {
      throw new RangeError('cover traffic counters are negative');
    }
    if (state.remainingMessages > state.remainingRounds) {
      throw new RangeError('more cover messages remain than rounds');
    }
    return new EpochCoverTraffic(state, rng);
  }

  get state(): CoverTrafficState {
    return {
      remainingMessages: this.#remainingMessages,
      remainingRounds: this.#remainingRounds,
      unprocessedDataMessages: this.#unprocessedDataMessages,
    };
  }

  /** A data message was queued for the next round: one future cover message will be skipped. */
  notifyNewDataMessage(): void {
    this.#unprocessedDataMessages++;
  }

  /** Consumes one round; true when a cover message is to be emitted in it (F: `consume_round`). */
  onRound(): boolean {
    const rounds = this.#remainingRounds;
    if (rounds === 0n) return false; // the epoch is over (no message can remain then)
    this.#remainingRounds = rounds - 1n;
    const messages = this.#remainingMessages;
    if (!genBool(this.#rng, Number(messages) / Number(rounds))) return false;
    this.#remainingMessages = messages - 1n;
    if (this.#unprocessedDataMessages === 0) return true;
    const threshold = this.#unprocessedDataMessages / Number(messages);
    const skip = genRangeF64Inclusive(this.#rng, 0, 1) <= threshold;
    if (skip) this.#unprocessedDataMessages--;
    return !skip;
  }
}
