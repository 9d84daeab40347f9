/**
 * Waiting in tests for the condition a test means, not for a fixed time: `waitUntil` polls a predicate
 * and fails, naming what it waited for, only once a bound far above the expected time has passed, so
 * a loaded machine makes a test slower, not red.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `pred` every `everyMs` until it holds; fails after `ms` naming `what`. */
export async function waitUntil(
  pred: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
  everyMs = 5,
): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await pred()) return;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
