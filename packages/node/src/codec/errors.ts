import { LogosError } from '@logos-ts/shared/errors';

/**
 * Malformed input while decoding (binary or JSON). `path` names the field, e.g.
 * `mantle_tx.ops[0].payload.outputs[1].value`; `reason` says what is wrong with it.
 * Codecs throw with an empty path; each enclosing struct or list prefixes its field name
 * as the error travels up, so the happy path never builds path strings.
 */
export class DecodeError extends LogosError {
  path: string;
  readonly reason: string;

  constructor(reason: string, path = '') {
    super('DECODE_ERROR', path ? `${path}: ${reason}` : reason);
    this.path = path;
    this.reason = reason;
  }

  /** Prepends a field name or list index to the path. Returns this error for rethrowing. */
  under(segment: string | number): this {
    const seg = typeof segment === 'number' ? `[${segment}]` : segment;
    if (this.path === '') this.path = seg;
    else if (this.path.startsWith('[')) this.path = seg + this.path;
    else this.path = `${seg}.${this.path}`;
    this.message = `${this.path}: ${this.reason}`;
    return this;
  }
}

/** Runs `fn`, prefixing `segment` to the path of any DecodeError it throws. */
export function within<T>(segment: string | number, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof DecodeError) throw e.under(segment);
    throw e;
  }
}

/** A value that cannot be encoded (out of range, wrong length): a caller's mistake, never peer input. */
export class EncodeError extends LogosError {
  constructor(message: string) {
    super('ENCODE_ERROR', message);
  }
}
