/**
 * Deadlines for waits that must end. Node 20's `AbortSignal.any` holds its sources weakly: a source
 * made by `AbortSignal.timeout` that nothing else references is collected, and the combined signal then
 * never aborts (a network request would wait forever once the garbage collector ran). Here a timer
 * holds the controller until it fires or `clear` is called.
 */

export interface Deadline {
  readonly signal: AbortSignal;
  /** Stops the timer and detaches from the parent signal. */
  clear(): void;
}

/** A signal that aborts after `ms` (a `TimeoutError`) or when `parent` aborts (with its reason). */
export function deadline(ms: number, parent?: AbortSignal): Deadline {
  const ac = new AbortController();
  const onAbort = () => ac.abort(parent?.reason);
  const timer = setTimeout(() => ac.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')), ms);
  timer.unref();
  if (parent?.aborted) ac.abort(parent.reason);
  else parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ac.signal,
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}

/** `p`, or a `TimeoutError` after `ms` if it has not settled by then (`p` itself goes on). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DOMException(`${what}: timed out after ${ms} ms`, 'TimeoutError')),
      ms,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
