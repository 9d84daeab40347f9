/**
 * The contract between the control tool's module host and a module (operator.md §1.4, §1.5, §1.7): a
 * module file's default export is a `ModuleFactory`; the host gives it a `ModuleContext` and serves its
 * `methods` to `logosctl call`. Results follow the reference's "universal" SDK shape.
 */
import type { Json } from './json.ts';

/** The reference's "universal" module result: `{"error":null|"<msg>","success":bool,"value":<json>}`. */
export interface StdLogosResult {
  readonly success: boolean;
  readonly value: Json;
  readonly error: string | null;
}
export const ok = (value: Json = null): StdLogosResult => ({ success: true, value, error: null });
export const fail = (error: string): StdLogosResult => ({ success: false, value: null, error });
/** What a module host gives a module. */
export interface ModuleContext {
  /** The daemon's working directory: files a module writes resolve here (operator.md §1.4). */
  readonly cwd: string;
  /** The module's persistence folder (`<session>/data/<module>`). */
  readonly dataDir: string;
  readonly logger: import('pino').Logger;
  /** Emits a module event (`logosctl watch`). */
  emit(event: string, payload: Json): void;
}
export interface LogosModule {
  readonly name: string;
  readonly version: string;
  readonly dependencies: readonly string[];
  /** Methods by name; arguments arrive typed as the client typed them (operator.md §1.4). */
  readonly methods: Readonly<
    Record<
      string,
      (...args: Json[]) => Promise<StdLogosResult | boolean | Json> | StdLogosResult | boolean | Json
    >
  >;
  readonly events: readonly string[];
  close(): Promise<void>;
}
/** A module file's default export. */
export type ModuleFactory = (ctx: ModuleContext) => LogosModule | Promise<LogosModule>;

/** A module method: its arguments as the client typed them, its answer. */
export type ModuleMethod = LogosModule['methods'][string];

/**
 * A method that never ends its module's process: called with more than `maxArgs` arguments it answers
 * `fail(tooMany(maxArgs, got))` without running, and any error it throws becomes `fail(message)`.
 */
export function guarded(
  f: ModuleMethod,
  maxArgs = Number.POSITIVE_INFINITY,
  tooMany: (max: number, got: number) => string = (max, got) =>
    `expected at most ${max} argument(s), got ${got}`,
): ModuleMethod {
  return async (...args) => {
    if (args.length > maxArgs) return fail(tooMany(maxArgs, args.length));
    try {
      return await f(...args);
    } catch (e) {
      return fail((e as Error).message);
    }
  };
}
