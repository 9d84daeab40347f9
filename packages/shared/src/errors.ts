/**
 * Root of the node's error classes and their one convention:
 * - `code` is `DOMAIN_SNAKE_CASE` (`STORAGE_SCHEMA`, `LEDGER_INPUT_NOT_FOUND`, `BLOCK_PARENT_MISSING`):
 *   the domain first, so a code alone says which part of the node refused, and one spelling for all;
 * - `meta` is the typed, structured detail of the failure (indices, ids, the reference's variant name),
 *   what logs and callers read; the `message` is rendered from it once, for people, and never parsed;
 * - `toObject()` gives a plain, structured-clone-safe object (name, code, message, meta, cause) that
 *   crosses a worker or process boundary, and `LogosError.fromObject` rebuilds the error on the other
 *   side, as an instance of its own class when that class is registered with `LogosError.register`.
 */

/** The metadata of an error: plain data (structured-clone safe: numbers, bigints, strings, bytes...). */
export type ErrorMeta = Readonly<Record<string, unknown>>;

/** An error as plain data. */
export interface ErrorObject {
  readonly name: string;
  readonly code: string;
  readonly message: string;
  readonly meta: ErrorMeta;
  readonly cause?: ErrorObject | { readonly name: string; readonly message: string };
}

// biome-ignore lint/suspicious/noExplicitAny: constructors of any LogosError subclass
type ErrorClass = abstract new (...args: any[]) => LogosError;

const CLASSES = new Map<string, ErrorClass>();

export class LogosError<M extends ErrorMeta = ErrorMeta> extends Error {
  readonly code: string;
  readonly meta: M;

  constructor(code: string, message: string, options?: { cause?: unknown; meta?: M }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.code = code;
    this.meta = options?.meta ?? ({} as M);
    this.name = new.target.name;
  }

  /** Makes `fromObject` rebuild errors named like `cls` as instances of `cls`. */
  static register(cls: ErrorClass): void {
    CLASSES.set(cls.name, cls);
  }

  /** The error as plain data (its cause too, as far as it is an Error). */
  toObject(): ErrorObject {
    const c = this.cause;
    const cause =
      c instanceof LogosError
        ? c.toObject()
        : c instanceof Error
          ? { name: c.name, message: c.message }
          : undefined;
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      meta: { ...this.meta },
      ...(cause ? { cause } : {}),
    };
  }

  /**
   * Rebuilds an error from `toObject()`'s data: an instance of the registered class of that name (its
   * constructor is not run: the fields are restored as they were), else a plain `LogosError`.
   */
  static fromObject(o: ErrorObject): LogosError {
    const cls = CLASSES.get(o.name) ?? LogosError;
    const e = Object.create(cls.prototype) as LogosError;
    const cause =
      o.cause === undefined
        ? undefined
        : 'code' in o.cause
          ? LogosError.fromObject(o.cause)
          : Object.assign(new Error(o.cause.message), { name: o.cause.name });
    Object.defineProperties(e, {
      name: { value: o.name, writable: true, configurable: true },
      message: { value: o.message, writable: true, configurable: true },
      code: { value: o.code, enumerable: true },
      meta: { value: Object.freeze({ ...o.meta }), enumerable: true },
      stack: { value: `${o.name}: ${o.message}`, writable: true, configurable: true },
      ...(cause ? { cause: { value: cause, writable: true, configurable: true } } : {}),
    });
    return e;
  }
}
