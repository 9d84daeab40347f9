/**
 * Applying a received block that the chain finds to be from a future slot is tried again a few times,
 * a delay apart (F `retry_future_block_apply_with_delay`, `FUTURE_BLOCK_MAX_RETRIES` = 3,
 * `FUTURE_BLOCK_RETRY_DELAY` = 500 ms): a block a little ahead of the local clock is applied once the
 * clock catches up instead of being dropped. Any other failure is returned at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BlockRejected } from '../../chain/index.ts';

/**
 * Runs `apply`, again up to `maxRetries` times while it fails with `BLOCK_FUTURE`; the last error is thrown
 * (at once when `signal` aborts).
 */
export async function applyWithFutureBlockRetry<T>(
  apply: () => Promise<T>,
  maxRetries: number,
  delayMs: number,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let future: unknown;
    try {
      return await apply();
    } catch (e) {
      const isFuture = e instanceof BlockRejected && e.code === 'BLOCK_FUTURE';
      if (!isFuture || attempt >= maxRetries || signal?.aborted) throw e;
      future = e;
    }
    if (delayMs > 0) await sleep(delayMs, undefined, signal ? { signal } : undefined).catch(() => {});
    // Stopped while waiting: the block stays a future one.
    if (signal?.aborted) throw future;
  }
}
