/**
 * `logos-node key list|generate|add|remove`: a node's keys, kept in step in its keystore.yaml (keys by
 * title) and its config's `kms.backend.keys` (keys by id), through the functions the blockchain
 * module's `generate_key`, `add_key` and `remove_key` call (src/config-file/keys.ts; operator.md §2.2).
 * `list` shows titles, kinds and ids (public keys), never a secret; `add` reads the secret from a file
 * or stdin, not from the command line (which other users of the machine may see).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { addKey, generateKey, listKeys, removeKey } from '../../config-file/keys.ts';
import { CliError } from '../errors.ts';
import { keystoreOf } from './config.ts';

interface FilesOptions {
  config: string;
  keystore?: string;
}

const withFiles = (c: Command): Command =>
  c
    .requiredOption('-c, --config <path>', "the node's user_config.yaml")
    .option('--keystore <path>', 'keystore.yaml (default: keystore.yaml next to the config)');

const typeOption = () =>
  new Option('--type <type>', 'the kind of key').choices(['zk', 'ed25519']).makeOptionMandatory();

/** The secret key's hex from a file (`-`: stdin), surrounding white space dropped. */
function readSecret(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8').trim();
  } catch (e) {
    throw new CliError(
      'CLI_BAD_INPUT',
      `cannot read the key file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      { path },
    );
  }
}

export function addKeyCommand(program: Command): void {
  const key = program.command('key').description("a node's keys (keystore.yaml and the config's key store)");

  withFiles(
    key.command('list').description("the keystore's keys: title, kind and id (never the secrets)"),
  ).action((o: FilesOptions) => {
    const keys = listKeys(resolve(keystoreOf(o.config, o.keystore)));
    const w = Math.max(5, ...keys.map((k) => k.title.length)) + 2;
    console.log(`${'TITLE'.padEnd(w)}${'KIND'.padEnd(9)}ID`);
    for (const k of keys) console.log(`${k.title.padEnd(w)}${k.kind.padEnd(9)}${k.id}`);
  });

  withFiles(key.command('generate').description('add a fresh key under a title; prints its id'))
    .addOption(typeOption())
    .requiredOption('--title <title>', 'the title of the key in the keystore')
    .action((o: FilesOptions & { type: string; title: string }) => {
      const id = generateKey(process.cwd(), o.config, keystoreOf(o.config, o.keystore), o.type, o.title);
      console.log(`added ${o.title}: ${id}`);
    });

  withFiles(key.command('add').description('add a key from its secret (64 hex characters); prints its id'))
    .addOption(typeOption())
    .requiredOption('--title <title>', 'the title of the key in the keystore')
    .requiredOption('--secret-file <path>', 'a file holding the secret key as hex (- for stdin)')
    .action((o: FilesOptions & { type: string; title: string; secretFile: string }) => {
      const secret = readSecret(o.secretFile);
      const ks = keystoreOf(o.config, o.keystore);
      const id = addKey(process.cwd(), o.config, ks, o.type, secret, o.title);
      console.log(`added ${o.title}: ${id}`);
    });

  withFiles(key.command('remove').description('remove the key of a title from the keystore and the config'))
    .requiredOption('--title <title>', 'the title of the key')
    .action((o: FilesOptions & { title: string }) => {
      removeKey(process.cwd(), o.config, keystoreOf(o.config, o.keystore), o.title);
      console.log(`removed ${o.title}`);
    });
}
