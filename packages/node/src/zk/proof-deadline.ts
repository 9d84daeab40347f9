/**
 * The deadline of the proofs a piece of work requests without a signal of its own: the API runs each
 * request's handler under the request's deadline (its timeout, or its client leaving), so that a ZK
 * signature or a claim proof made for a request nobody waits for any more is dropped or stopped,
 * whichever service asks for it on the request's behalf (wallet, key store, leader claims).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const deadlines = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` with `signal` as the deadline of the proofs it requests. */
export function withProofDeadline<T>(signal: AbortSignal, fn: () => T): T {
  return deadlines.run(signal, fn);
}

/** The deadline of the work under way, if it has one. */
export function proofDeadline(): AbortSignal | undefined {
  return deadlines.getStore();
}
