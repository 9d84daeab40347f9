/**
 * `logos-node keys list|generate|add|remove` (also `key`): a node's keys, kept in step in its
 * keystore.yaml (keys by title), its config's `kms.backend.keys` (keys by id) and, for ZK keys, its
 * `wallet.known_keys` (the keys the wallet tracks), through the functions of src/config-file/keys.ts
 * (the blockchain module's `generate_key`, `add_key` and `remove_key`, which leave `known_keys` alone).
 *
 * Safety: the keystore, the config and a secret file given to `add` must be private to their owner
 * (mode 600; any other mode is refused, naming the file and the fix); both files are rewritten with
 * mode 600 through a temporary file and a rename, and only after the edited config was checked as
 * the node checks it at start. `list` shows titles, kinds and ids (public keys), never a secret; `add`
 * reads the secret from a file or stdin, not from the command line (which other users may see).
 *
 * A running node: after a change, `POST /x/admin/keys/reload` on the node's API (the config's
 * `api.backend.listen_address` unless `--node-address` says otherwise, a few seconds at most) makes it
 * read its keys again; when nothing answers there, the change applies at its next start.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkPrivateFile } from '@logos-ts/shared/private-file';
import { type Command, Option } from 'commander';
import { addKey, generateKey, type KeyFileOptions, listKeys, removeKey } from '../../config-file/keys.ts';
import { readConfigFile } from '../../node/load.ts';
import { CliError } from '../errors.ts';
import { keystoreOf } from './config.ts';

interface FilesOptions {
  config: string;
  keystore?: string;
}

interface ReloadOptions {
  reload: boolean;
  nodeAddress?: string;
  tokenFile?: string;
}

/** The node's command edits `wallet.known_keys` too, and writes only a config the node accepts. */
const EDIT: KeyFileOptions = { trackZk: true, checkConfig: true };

/** How long the running node is waited for. */
const RELOAD_TIMEOUT_MS = 5000;

const withFiles = (c: Command): Command =>
  c
    .requiredOption('-c, --config <path>', "the node's user_config.yaml")
    .option('--keystore <path>', 'keystore.yaml (default: keystore.yaml next to the config)');

const withReload = (c: Command): Command =>
  c
    .option(
      '--node-address <url>',
      "the running node's API (default: the config's api.backend.listen_address, on the loopback)",
    )
    .option('--token-file <path>', "a file holding a bearer token, when the node's API asks for one")
    .option('--no-reload', 'do not ask a running node to read its keys again');

const typeOption = () =>
  new Option('--type <type>', 'the kind of key').choices(['zk', 'ed25519']).makeOptionMandatory();

/** The files an edit reads and writes: both must be private. */
function checkedFiles(o: FilesOptions): { config: string; keystore: string } {
  const keystore = keystoreOf(o.config, o.keystore);
  checkPrivateFile(keystore);
  checkPrivateFile(o.config);
  return { config: o.config, keystore };
}

/** The secret key's hex from a private file (`-`: stdin), surrounding white space dropped. */
export function readSecret(path: string): string {
  if (path !== '-') checkPrivateFile(path);
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

/** `http://<loopback>:<port>` of a listen address (an unspecified host is reached on the loopback). */
export function loopbackUrl(listen: string): string | undefined {
  const i = listen.lastIndexOf(':');
  const host = listen.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(listen.slice(i + 1));
  if (!Number.isInteger(port) || port <= 0) return undefined;
  const h = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

interface Reloaded {
  kms: { added: string[]; removed: string[]; changed: string[] };
  wallet: { added: string[]; removed: string[] };
  leader_keys: number;
}

/**
 * Asks the running node to read its keys again; returns the line to print. A node that refuses the
 * reload is an error (the files are changed, the node keeps its keys); no node answering is not.
 */
export async function tellRunningNode(configPath: string, o: ReloadOptions): Promise<string> {
  const later = 'the change applies when the node starts';
  if (!o.reload) return `not asking a running node to reload: ${later}`;
  let base = o.nodeAddress;
  if (base === undefined) {
    const listen = readConfigFile(configPath).api.backend.listen_address;
    base = loopbackUrl(listen);
    if (base === undefined)
      return `the config's API listens on ${listen} (no fixed port): ${later}, or give --node-address`;
  }
  const url = `${base.replace(/\/+$/, '')}/x/admin/keys/reload`;
  const headers: Record<string, string> = {};
  if (o.tokenFile !== undefined) {
    checkPrivateFile(o.tokenFile);
    headers.authorization = `Bearer ${readSecret(o.tokenFile)}`;
  }
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, signal: AbortSignal.timeout(RELOAD_TIMEOUT_MS) });
  } catch {
    return `no node answers at ${base}: ${later}`;
  }
  const text = await res.text();
  if (res.status === 200) {
    const r = JSON.parse(text) as Reloaded;
    return (
      `the running node reloaded its keys: key store +${r.kms.added.length} -${r.kms.removed.length}` +
      `, wallet +${r.wallet.added.length} -${r.wallet.removed.length}, leader keys ${r.leader_keys}`
    );
  }
  if (res.status === 401)
    return `the node at ${base} asks for credentials (--token-file): ${later}, or call POST /x/admin/keys/reload`;
  if (res.status === 404) return `the node at ${base} cannot reload its keys: ${later}`;
  let message = text;
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {}
  // A node started without a config file (the devnet) has no file to read its keys from.
  if (res.status === 400 && /not started from a config file/.test(message))
    return `the node at ${base} was not started from this config: ${later}`;
  throw new CliError(
    'CLI_RELOAD_REFUSED',
    `the files are changed, but the node at ${base} refused to reload them and keeps its keys (${res.status}): ${message}`,
  );
}

export function addKeysCommand(program: Command): void {
  const keys = program
    .command('keys')
    .alias('key')
    .description(
      "a node's keys (keystore.yaml, the config's key store and the wallet's known keys); also `key`",
    );

  withFiles(
    keys.command('list').description("the keystore's keys: title, kind and id (never the secrets)"),
  ).action((o: FilesOptions) => {
    const path = resolve(keystoreOf(o.config, o.keystore));
    checkPrivateFile(path);
    const list = listKeys(path);
    const w = Math.max(5, ...list.map((k) => k.title.length)) + 2;
    console.log(`${'TITLE'.padEnd(w)}${'KIND'.padEnd(9)}ID`);
    for (const k of list) console.log(`${k.title.padEnd(w)}${k.kind.padEnd(9)}${k.id}`);
  });

  withReload(
    withFiles(
      keys
        .command('generate')
        .description('add a fresh key under a title (a ZK key is tracked by the wallet); prints its id'),
    ),
  )
    .addOption(typeOption())
    .requiredOption('--title <title>', 'the title of the key in the keystore')
    .action(async (o: FilesOptions & ReloadOptions & { type: string; title: string }) => {
      const f = checkedFiles(o);
      const id = generateKey(process.cwd(), f.config, f.keystore, o.type, o.title, EDIT);
      console.log(`added ${o.title}: ${id}`);
      console.log(await tellRunningNode(f.config, o));
    });

  withReload(
    withFiles(
      keys
        .command('add')
        .description(
          'add a key from its secret (64 hex characters; a ZK key is tracked by the wallet); prints its id',
        ),
    ),
  )
    .addOption(typeOption())
    .requiredOption('--title <title>', 'the title of the key in the keystore')
    .requiredOption('--secret-file <path>', 'a private file holding the secret key as hex (- for stdin)')
    .action(async (o: FilesOptions & ReloadOptions & { type: string; title: string; secretFile: string }) => {
      const f = checkedFiles(o);
      const secret = readSecret(o.secretFile);
      const id = addKey(process.cwd(), f.config, f.keystore, o.type, secret, o.title, EDIT);
      console.log(`added ${o.title}: ${id}`);
      console.log(await tellRunningNode(f.config, o));
    });

  withReload(
    withFiles(
      keys
        .command('remove')
        .description("remove the key of a title from the keystore, the config and the wallet's known keys"),
    ),
  )
    .requiredOption('--title <title>', 'the title of the key')
    .action(async (o: FilesOptions & ReloadOptions & { title: string }) => {
      const f = checkedFiles(o);
      removeKey(process.cwd(), f.config, f.keystore, o.title, EDIT);
      console.log(`removed ${o.title}`);
      console.log(await tellRunningNode(f.config, o));
    });
}
