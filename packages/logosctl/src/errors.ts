/** Errors of the control tool's daemon (operator.md §1.3: a second daemon for a session is refused, exit 1). */

/** A daemon already runs (or is starting) for the session. */
export class AlreadyRunning extends Error {}
