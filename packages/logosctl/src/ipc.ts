/**
 * Messages between the daemon and a module host process (over the `child_process.fork` IPC channel).
 * JSON values travel as text written by `dumpSorted` and read by `parseJson`, so u64 integers stay exact
 * and doubles stay doubles (`2.0`), as the reference's JSON values do between its processes.
 */

/** Daemon → host. */
export type ToHost =
  | { readonly type: 'call'; readonly id: number; readonly method: string; readonly args: string }
  | { readonly type: 'close' }
  | { readonly type: 'stats'; readonly id: number };

/** Host → daemon. */
export type FromHost =
  | {
      readonly type: 'ready';
      readonly name: string;
      readonly version: string;
      readonly dependencies: readonly string[];
      readonly methods: readonly string[];
      readonly events: readonly string[];
    }
  | { readonly type: 'init_failed'; readonly message: string }
  /** `value` is JSON text, or null when the method returned nothing (the reference's null result). */
  | { readonly type: 'result'; readonly id: number; readonly value: string | null; readonly error?: string }
  | { readonly type: 'event'; readonly event: string; readonly payload: string }
  | { readonly type: 'closed' }
  /** The host's own CPU time (µs, user + system) and resident memory (bytes) since it started. */
  | {
      readonly type: 'stats';
      readonly id: number;
      readonly cpuMicros: number;
      readonly uptimeMicros: number;
      readonly rssBytes: number;
    };
