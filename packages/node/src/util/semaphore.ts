/** A counting semaphore with a FIFO queue; a waiter whose signal aborts leaves the queue. */
export class Semaphore {
  private readonly waiters: (() => void)[] = [];
  private free: number;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`semaphore size must be >= 1, got ${size}`);
    this.free = size;
  }

  /** Permits in use. */
  get used(): number {
    return this.size - this.free;
  }

  /** Waiters in the queue. */
  get queued(): number {
    return this.waiters.length;
  }

  /** A release function if a permit is free now, else undefined (never queues). */
  tryAcquire(): (() => void) | undefined {
    if (this.free === 0) return undefined;
    this.free--;
    return this.releaser();
  }

  /** Resolves with a release function (idempotent) once a permit is free; rejects with the signal's reason. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.releaser());
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
      };
      this.waiters.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiters.shift();
      // The permit passes straight to the next waiter, or back to the pool.
      if (next) next();
      else this.free++;
    };
  }
}
