/**
 * `logosctl key ls|add NAME --did DID [--display-name N] [--url U]|remove NAME`: trusted package-signing
 * keys (package_manager's keyring).
 */
import type { Command } from 'commander';
import { type CtlContext, line, pad, str } from './context.ts';
import { listing, mutation } from './module-call.ts';

export function addKeyCommands(program: Command, c: CtlContext): void {
  const key = program.command('key').description('trusted package-signing keys');
  listing(
    c,
    key.command('ls').alias('list').description('trusted keys'),
    'package_manager',
    'listTrustedKeys',
    (keys) => {
      if (keys.length === 0)
        return line(
          "No trusted keys. Packages from unknown signers are accepted or rejected per this session's signature policy.",
        );
      for (const k of keys) line(`${pad(str(k.name), 20)} ${str(k.did)}`);
    },
  );
  mutation(
    c,
    key
      .command('add <name>')
      .description('trust a signing key')
      .requiredOption('--did <did>', 'the signer, did:jwk:…')
      .option('--display-name <name>', 'who it is')
      .option('--url <url>', 'where they are'),
    'package_manager',
    'addTrustedKey',
    'KEY_ADD_FAILED',
    (name: string, o: { did: string; displayName?: string; url?: string }) => [
      name,
      o.did,
      o.displayName ?? '',
      o.url ?? '',
    ],
    (name: string) => `Trusted key added: ${name}`,
  );
  mutation(
    c,
    key.command('remove <name>').description('stop trusting a key'),
    'package_manager',
    'removeTrustedKey',
    'KEY_REMOVE_FAILED',
    (name: string) => [name],
    (name: string) => `Trusted key removed: ${name}`,
  );
}
