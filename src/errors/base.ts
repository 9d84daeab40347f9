/**
 * Root of the node's error classes. Every domain error subclasses it, so callers can test
 * `err instanceof LogosError` and read a stable `code`.
 */
export class LogosError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
