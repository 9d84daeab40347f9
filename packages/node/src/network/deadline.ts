/** A wait bounded in time, whatever it waits for. Pure. */

/** The error of a wait past its deadline (named as the platform's timeouts are). */
export class DeadlineExceeded extends Error {
  override readonly name = 'TimeoutError';
  constructor(readonly ms: number) {
    super(`did not complete within ${ms} ms`);
  }
}

/** `p`, or a {@link DeadlineExceeded} once `ms` have passed (p's outcome is then ignored). */
export function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(ms)), ms);
  });
  p.catch(() => {}); // settled after the deadline: nobody waits for it
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
