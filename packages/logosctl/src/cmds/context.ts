/**
 * What every `logosctl` command gets from the command line around it: the global flags, the session,
 * the output mode, a daemon client, and the exit code it sets (operator.md §1.3: 0 success, 1 general
 * error, 2 no daemon, 3 module error, 4 method error).
 */
import type { Json } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import { Client } from '../client.ts';
import { Output } from '../output.ts';
import { Session, sessionDir } from '../session.ts';

export interface Globals {
  json?: boolean;
  human?: boolean;
  quiet?: boolean;
  configDir?: string;
}

export type Reply = { [k: string]: Json };

/** Exit code of an error reply, by its code (call_command.cpp, load_module_command.cpp @1a4f56fe). */
export function exitCodeOf(code: string, forCall: boolean): number {
  if (code === 'NO_DAEMON') return 2;
  if (code.startsWith('MODULE_')) return 3;
  if (code === 'METHOD_FAILED' || forCall) return 4;
  return 1;
}

export class CtlContext {
  /** The exit code of the command; errors set it. */
  exitCode = 0;

  constructor(readonly program: Command) {}

  /** The global flags, the output, the session and a client, as the flags say at this moment. */
  ctx(): { g: Globals; out: Output; session: Session; client: Client; quiet: boolean } {
    const g = this.program.opts<Globals>();
    const session = new Session(sessionDir(g.configDir));
    return { g, out: Output.choose(g), session, client: new Client(session), quiet: g.quiet === true };
  }

  /** Prints an error (JSON or `Error: …`) and sets the exit code of its code. */
  fail(out: Output, code: string, message: string, extra: Reply = {}, forCall = false): void {
    out.error(code, message, extra);
    this.exitCode = exitCodeOf(code, forCall);
  }

  /** Sends a request; an error reply is printed and null returned. */
  async ask(
    cmd: string,
    params: Reply = {},
    forCall = false,
    deadline?: { ms: number; message: string },
  ): Promise<Reply | null> {
    const { out, client } = this.ctx();
    const r = await client.send(cmd, params, deadline);
    if (r.status === 'error') {
      const { status: _s, code, message, ...extra } = r;
      this.fail(out, String(code), String(message), extra, forCall);
      return null;
    }
    return r;
  }

  /** A line on stdout, unless `-q`. */
  say(text: string): void {
    if (!this.ctx().quiet) process.stdout.write(`${text}\n`);
  }

  /** A JSON value, or (unless `-q`) the human form. */
  print(out: Output, v: Json, human: () => void): void {
    if (out.json) out.data(v);
    else if (!this.ctx().quiet) human();
  }

  /** Calls a module method through the daemon; undefined after a printed error. */
  async callModule(module: string, method: string, args: Json[] = []): Promise<Json | undefined> {
    const r = await this.ask('call', { module, method, args });
    return r === null ? undefined : (r.result ?? null);
  }
}

/** One line on stdout. */
export const line = (t: string): void => {
  process.stdout.write(`${t}\n`);
};
/** A string field, or `""`. */
export const str = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
export const pad = (t: string, w: number): string => t.padEnd(w);
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
