/**
 * `logosctl token issue --name N [--expires D] [--replace] [--local-only]|ls|revoke NAME`: the daemon's
 * client tokens (issue_token, list_tokens, revoke_token_command.cpp). No daemon is needed; the raw token
 * is printed once and kept in `daemon/tokens/<name>.json`, mode 600.
 */
import type { Json } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import type { Output } from '../output.ts';
import { TokenError } from '../tokens.ts';
import { type CtlContext, line, pad, type Reply } from './context.ts';

export function addTokenCommands(program: Command, c: CtlContext): void {
  const token = program.command('token').description('client tokens of the daemon');
  const tokenErr = (out: Output, e: unknown): void => {
    if (!(e instanceof TokenError)) throw e;
    c.fail(out, e.code, e.message);
  };
  token
    .command('issue')
    .description('issue a named token (printed once; also in daemon/tokens/<name>.json)')
    .requiredOption('--name <name>', 'the token name')
    .option('--expires <when>', 'Ns|Nm|Nh|Nd from now, or an ISO 8601 UTC date/time')
    .option('--replace', 'replace a token of that name')
    .option('--local-only', 'accept it on the local socket only')
    .action((o: { name: string; expires?: string; replace?: boolean; localOnly?: boolean }) => {
      const { out, session } = c.ctx();
      session.ensureLayout();
      const store = session.tokens;
      try {
        const t = store.issue(o.name, o.expires ?? '', o.localOnly === true, o.replace === true);
        const res: Reply = {
          status: 'ok',
          name: o.name,
          token: t.token,
          file: store.rawPath(o.name),
          local_only: o.localOnly === true,
        };
        if (t.expiresAt !== '') res.expires_at = t.expiresAt;
        c.print(out, res, () => {
          line(`Issued token for '${o.name}'`);
          line(`  file:  ${store.rawPath(o.name)}`);
          line(`  token: ${t.token}`);
          if (t.expiresAt !== '') line(`  expires_at: ${t.expiresAt}`);
          if (o.localOnly) line('  local_only: true');
        });
      } catch (e) {
        tokenErr(out, e);
      }
    });
  token
    .command('ls')
    .alias('list')
    .description('issued tokens (names and dates, never the tokens)')
    .action(() => {
      const { out, session } = c.ctx();
      try {
        const list = session.tokens.list();
        c.print(out, list as unknown as Json, () => {
          line(`${pad('NAME', 20)} ${pad('ISSUED', 26)} ${pad('EXPIRES', 22)} LOCAL_ONLY`);
          for (const t of list)
            line(
              `${pad(t.name, 20)} ${pad(t.issued_at, 26)} ${pad(t.expires_at ?? '-', 22)} ${t.local_only}`,
            );
        });
      } catch (e) {
        tokenErr(out, e);
      }
    });
  token
    .command('revoke <name>')
    .description('revoke a token (the daemon refuses it from now on)')
    .action((name: string) => {
      const { out, session } = c.ctx();
      try {
        session.tokens.revoke(name);
        c.print(out, { status: 'ok', name }, () => line(`Revoked token '${name}'`));
      } catch (e) {
        tokenErr(out, e);
      }
    });
}
