/**
 * The client side of every command that needs the daemon (operator.md §1.3): it finds the daemon from the
 * session's `state.json`, authenticates with the local token (`client/auto.json`, or `LOGOSCTL_TOKEN`),
 * sends one request and returns the reply. No reachable daemon is `NO_DAEMON`, exit 2. A `call` waits
 * 20 s for its reply (the reference transport's deadline; `LOGOSCTL_CALL_TIMEOUT_MS` changes it).
 */
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { LogosError } from '@logos-ts/shared/errors';
import type { Json } from '@logos-ts/shared/json';
import { dial, NoDaemon, RpcTimeout, request, writeLine } from './rpc.ts';
import type { Session } from './session.ts';

/** A failure of a command before or around its daemon request; `code` is the reply code the CLI prints. */
export class CtlError extends LogosError<{ readonly exitCode: number }> {
  constructor(
    code: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(code, message, { meta: { exitCode } });
  }
}
LogosError.register(CtlError);

/** How long `call` waits for the daemon's reply: 20 s as the reference, or `LOGOSCTL_CALL_TIMEOUT_MS`. */
export function callTimeoutMs(env = process.env): number {
  const v = env.LOGOSCTL_CALL_TIMEOUT_MS;
  if (v === undefined || v === '') return 20_000;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new CtlError('INVALID_ARGS', 'LOGOSCTL_CALL_TIMEOUT_MS: expected a positive whole number of ms', 1);
  return n;
}

export class Client {
  constructor(private readonly session: Session) {}

  private target(): { socket: string; token: string } {
    const state = this.session.readState();
    const socket = state?.socket ?? this.session.socketPath;
    if (state === undefined || !existsSync(socket))
      throw new CtlError(
        'NO_DAEMON',
        `No daemon running for ${this.session.dir}. Start one with: logosctl daemon start --detach`,
        2,
      );
    const token = process.env.LOGOSCTL_TOKEN || this.session.readAutoToken();
    if (token === undefined)
      throw new CtlError(
        'NO_DAEMON',
        `No authentication token. Expected at ${this.session.autoTokenPath} or in $LOGOSCTL_TOKEN.`,
        2,
      );
    return { socket, token };
  }

  /**
   * Sends a request. With a `deadline`, no reply in time answers `RPC_FAILED` with its message (the
   * daemon carries on with the request), as the reference client's transport deadline does.
   */
  async send(
    cmd: string,
    params: { [k: string]: Json } = {},
    deadline?: { readonly ms: number; readonly message: string },
  ): Promise<{ [k: string]: Json }> {
    const { socket, token } = this.target();
    try {
      return (await request(socket, { token, cmd, params }, deadline?.ms)) as { [k: string]: Json };
    } catch (e) {
      if (e instanceof RpcTimeout && deadline)
        return { status: 'error', code: 'RPC_FAILED', message: deadline.message };
      if (e instanceof NoDaemon)
        throw new CtlError('NO_DAEMON', `No daemon answers on ${socket} (${e.message}).`, 2);
      throw new CtlError('INTERNAL_ERROR', (e as Error).message, 1);
    }
  }

  /** Opens a `watch` stream: the socket, after the request line has been sent. */
  async openWatch(params: { [k: string]: Json }): Promise<Socket> {
    const { socket, token } = this.target();
    let s: Socket;
    try {
      s = await dial(socket);
    } catch (e) {
      throw new CtlError('NO_DAEMON', `No daemon answers on ${socket} (${(e as Error).message}).`, 2);
    }
    writeLine(s, { token, cmd: 'watch', params });
    return s;
  }
}
