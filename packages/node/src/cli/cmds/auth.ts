/**
 * `logos-node auth token|password`: credentials for the API's optional authentication
 * (`api.backend.auth`). `token` makes a new random bearer token and prints it once with the line for
 * the config (its SHA-256 only); `password <name>` reads a password from stdin (a file, a pipe, or the
 * terminal: never the command line, which other users of the machine may see) and prints the
 * `basic_users` entry with its scrypt hash. Nothing is written to any file.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { hashPassword, hashToken, newToken } from '../../api/auth.ts';
import { CliError } from '../errors.ts';

/** The password: stdin up to its first line break. */
function readPassword(): string {
  let text: string;
  try {
    text = readFileSync(0, 'utf8');
  } catch (e) {
    throw new CliError('CLI_BAD_INPUT', `cannot read the password from stdin: ${(e as Error).message}`);
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password.length < 8)
    throw new CliError(
      'CLI_BAD_INPUT',
      'the password (the first line of stdin) must be at least 8 characters',
    );
  return password;
}

export function addAuthCommand(program: Command): void {
  const auth = program
    .command('auth')
    .description('credentials for the API authentication (api.backend.auth)');
  auth
    .command('token')
    .description('make a bearer token: the token (for clients), and its hash (for the config)')
    .action(() => {
      const token = newToken();
      process.stdout.write(
        `token (give it to the API's clients; it is not stored anywhere): ${token}\n` +
          `config (api.backend.auth.bearer_token_hashes): - ${hashToken(token)}\n`,
      );
    });
  auth
    .command('password <name>')
    .description('hash a password read from stdin, for a basic_users entry of the config')
    .action(async (name: string) => {
      if (name === '' || name.includes(':'))
        throw new CliError('CLI_BAD_INPUT', 'the user name must be non-empty and without ":"');
      const hash = await hashPassword(readPassword());
      process.stdout.write(
        `config (api.backend.auth.basic_users): - { name: ${JSON.stringify(name)}, password_hash: "${hash}" }\n`,
      );
    });
}
