/**
 * The daemon's local RPC (operator.md §6.1): newline-delimited JSON over the Unix socket
 * `<session>/daemon/daemon.sock`. A client opens a connection per command and sends one request line
 * `{"token","cmd","params"}`; the daemon answers one reply line (a JSON map; `"status":"error"` with
 * `code` and `message` on failure) and closes, except for `watch`, whose connection carries one event
 * line after another until either side closes it.
 */
import { connect, type Socket } from 'node:net';
import { type Json, parseJson } from '@logos-ts/shared/json';
import { LineTooLong, NoDaemon, RpcClosed, RpcTimeout } from './errors.ts';
import { dumpSorted } from './output.ts';

export { LineTooLong, NoDaemon, RpcTimeout };

export interface RpcRequest {
  readonly token: string;
  readonly cmd: string;
  readonly params: { readonly [k: string]: Json };
}

export interface ReadLinesOptions {
  /** The most characters held without a newline; past it `onBad` gets a `LineTooLong` and reading stops. */
  readonly maxLine?: number;
  /** Read only the first line: after it (or a bad line) later data is dropped, never buffered or parsed. */
  readonly once?: boolean;
}

/**
 * Splits a socket's data into lines and hands each parsed line to `onLine`. After a bad line (not JSON, or
 * too long) nothing more is parsed or buffered.
 */
export function readLines(
  socket: Socket,
  onLine: (j: Json) => void,
  onBad: (e: Error) => void,
  opts: ReadLinesOptions = {},
): void {
  let buf = '';
  let stopped = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    if (stopped) return;
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0 && !stopped; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim() === '') continue;
      let j: Json;
      try {
        j = parseJson(line);
      } catch (e) {
        stopped = true;
        buf = '';
        onBad(e as Error);
        return;
      }
      if (opts.once) {
        stopped = true;
        buf = '';
      }
      onLine(j);
    }
    if (!stopped && opts.maxLine !== undefined && buf.length > opts.maxLine) {
      stopped = true;
      buf = '';
      onBad(new LineTooLong(`a line longer than ${opts.maxLine} characters`));
    }
  });
}

export const writeLine = (socket: Socket, j: Json): boolean => socket.write(`${dumpSorted(j)}\n`);

/** Opens a connection to the daemon's socket. */
export function dial(socketPath: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    s.once('connect', () => {
      s.removeAllListeners('error');
      resolve(s);
    });
    s.once('error', (e) => reject(new NoDaemon(e.message)));
  });
}

/** Sends one request and returns the daemon's one reply (within `timeoutMs` when given). */
export async function request(socketPath: string, req: RpcRequest, timeoutMs?: number): Promise<Json> {
  const s = await dial(socketPath);
  return new Promise((resolve, reject) => {
    let done = false;
    if (timeoutMs !== undefined) {
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        s.destroy();
        reject(new RpcTimeout(`no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      s.on('close', () => clearTimeout(timer));
    }
    readLines(
      s,
      (j) => {
        if (done) return;
        done = true;
        resolve(j);
        s.end();
      },
      (e) => reject(e),
    );
    s.on('error', (e) => {
      if (!done) reject(e);
    });
    s.on('close', () => {
      if (!done) reject(new RpcClosed('the daemon closed the connection without a reply'));
    });
    writeLine(s, req as unknown as Json);
  });
}
