/**
 * The control tool's error classes (LogosError subclasses, `@logos-ts/shared/errors`). Their codes are
 * internal, except those of `CtlError` and `TokenError` (client.ts, tokens.ts), which are the reply
 * codes the CLI prints (operator.md §1.3: `{"code","message","status":"error"}`). A second daemon for
 * a session is refused, exit 1 (§1.3).
 */
import { LogosError } from '@logos-ts/shared/errors';

/** A daemon already runs (or is starting) for the session. */
export class AlreadyRunning extends LogosError {
  constructor(message: string) {
    super('DAEMON_ALREADY_RUNNING', message);
  }
}

/** A bad argument of `call`: the CLI reports `INVALID_ARGS` and exits 1. */
export class InvalidArgs extends LogosError {
  constructor(message: string) {
    super('ARGS_INVALID', message);
  }
}

/** A line longer than the reader's limit. */
export class LineTooLong extends LogosError {
  constructor(message: string) {
    super('RPC_LINE_TOO_LONG', message);
  }
}

/** Could not reach the daemon (no socket, refused). */
export class NoDaemon extends LogosError {
  constructor(message: string) {
    super('RPC_NO_DAEMON', message);
  }
}

/** No reply within the deadline. */
export class RpcTimeout extends LogosError {
  constructor(message: string) {
    super('RPC_TIMEOUT', message);
  }
}

/** The daemon closed a connection without a reply. */
export class RpcClosed extends LogosError {
  constructor(message: string) {
    super('RPC_CLOSED', message);
  }
}

/** A module did not answer a call in time. */
export class CallTimeout extends LogosError {
  constructor(message: string) {
    super('MODULE_CALL_TIMEOUT', message);
  }
}

/** A module host process did not start (timed out, ended, or its module failed to initialise). */
export class ModuleStartError extends LogosError<{ readonly module: string }> {
  constructor(module: string, message: string) {
    super('MODULE_START_FAILED', message, { meta: { module } });
  }
}

/** A module file that is not a module (no factory as its default export). */
export class ModuleFileError extends LogosError<{ readonly file: string }> {
  constructor(file: string, message: string) {
    super('MODULE_FILE_INVALID', message, { meta: { file } });
  }
}

/** A module's manifest.json that cannot be used. */
export class ManifestError extends LogosError<{ readonly path: string }> {
  constructor(path: string, message: string) {
    super('MODULE_MANIFEST_INVALID', message, { meta: { path } });
  }
}

/** A mistyped option of a package request. */
export class PackageOptionsError extends LogosError {
  constructor(message: string) {
    super('PACKAGE_OPTIONS_INVALID', message);
  }
}

/** A daemon configuration (`daemon/config.yaml`, its `logging:`) that cannot be used. */
export class DaemonConfigError extends LogosError<{ readonly path?: string }> {
  constructor(message: string, meta: { readonly path?: string } = {}) {
    super('DAEMON_CONFIG_INVALID', message, { meta });
  }
}

for (const cls of [
  AlreadyRunning,
  InvalidArgs,
  LineTooLong,
  NoDaemon,
  RpcTimeout,
  RpcClosed,
  CallTimeout,
  ModuleStartError,
  ModuleFileError,
  ManifestError,
  PackageOptionsError,
  DaemonConfigError,
])
  LogosError.register(cls);
