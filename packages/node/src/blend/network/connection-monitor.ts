/**
 * The message count of one core connection per observation window (F
 * `blend/network/src/core/with_core/behaviour/handler/conn_maintenance.rs`): at the end of each window
 * the peer is `spammy` when it sent more than the expected maximum, `unhealthy` when it sent fewer
 * than the expected minimum, `healthy` otherwise, and the count starts again with the range of the
 * next window. Pure: the caller ends the windows (a timer) and passes the next range.
 */

export interface ExpectedMessageRange {
  /** Fewer messages than this in a window: unhealthy. */
  readonly min: number;
  /** More messages than this in a window: spammy. */
  readonly max: number;
}

export type MonitorOutcome = 'spammy' | 'unhealthy' | 'healthy';

export class ConnectionMonitor {
  private count = 0;

  constructor(private range: ExpectedMessageRange) {}

  /** One message received from the peer. */
  record(): void {
    this.count++;
  }

  /** Messages counted in the current window. */
  get received(): number {
    return this.count;
  }

  /** Ends the window: the peer's state over it, then a new window with `next` (default: the same range). */
  endWindow(next: ExpectedMessageRange = this.range): MonitorOutcome {
    const outcome: MonitorOutcome =
      this.count > this.range.max ? 'spammy' : this.count < this.range.min ? 'unhealthy' : 'healthy';
    this.count = 0;
    this.range = next;
    return outcome;
  }
}
