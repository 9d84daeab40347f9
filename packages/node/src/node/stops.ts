/**
 * What a node must undo when it stops or fails to start: the stops of the services it started, run
 * last-in first-out; a failing stop is logged and the others still run.
 */
import type { Logger } from 'pino';

type Stop = () => Promise<void> | void;

export class Stops {
  private readonly stops: Stop[] = [];

  /** Adds a stop. */
  push(stop: Stop): void {
    this.stops.push(stop);
  }

  /** `x`, whose `close` is now a stop. */
  own<T extends { close(): Promise<void> | void }>(x: T): T {
    this.stops.push(() => x.close());
    return x;
  }

  /** Runs the stops, last first; safe to call again (each runs once). */
  async unwind(logger: Logger): Promise<void> {
    while (this.stops.length > 0) {
      const stop = this.stops.pop()!;
      try {
        await stop();
      } catch (e) {
        logger.warn({ err: (e as Error).message }, 'error while stopping');
      }
    }
  }
}
