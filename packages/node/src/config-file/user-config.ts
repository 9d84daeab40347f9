/**
 * `generate_user_config(json_args)`: a new node's `user_config.yaml` and `keystore.yaml`, as the
 * reference module's call of the node's `init` (operator.md §2.3; `c-bindings/src/api/config.rs`,
 * `cli/config/init.rs`). The JSON arguments are all optional; both files are written with mode 600,
 * never over an existing file; relative paths resolve against the module host's working directory.
 * The keys and the config text are made by the node's own `init` code (`node/new-config.ts`).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import { isJsonObject, type Json } from '@logos-ts/shared/json';
import { ArgumentError } from '@logos-ts/shared/module-args';
import { parseUserConfig } from '../node/config.ts';
import { generateNodeKeys, keystoreYaml, type NewConfigOptions, nodeConfigYaml } from '../node/new-config.ts';

export const USER_CONFIG_EXISTS = 'User configuration file exists. Use `update` command.';
export const KEYSTORE_EXISTS = 'Keystore file exists. Use `update` command.';

/** The keystore of a config when none is named: `keystore.yaml` in the config's folder. */
export const keystoreBeside = (config: string): string => join(dirname(config), 'keystore.yaml');

/** The parsed arguments (the reference's `GenerateConfigArgs`). */
interface GenerateArgs {
  readonly output?: string;
  readonly kmsFile?: string;
  readonly usePersistencePaths: boolean;
  readonly options: NewConfigOptions;
}

function field<T>(
  o: Record<string, Json>,
  key: string,
  check: (v: Json) => v is Json & T,
  what: string,
): T | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!check(v)) throw new ArgumentError(`Failed to parse JSON args: ${key}: expected ${what}`);
  return v as T;
}
const isString = (v: Json): v is string => typeof v === 'string';
const isBool = (v: Json): v is boolean => typeof v === 'boolean';
const isPort = (v: Json): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 65535;
const isStrings = (v: Json): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Reads the JSON arguments: the JSON text (as `@peers.json` sends it) or an already parsed object. */
export function parseGenerateArgs(raw: Json | undefined): GenerateArgs {
  let j: Json;
  if (typeof raw === 'string') {
    try {
      j = JSON.parse(raw) as Json;
    } catch (e) {
      throw new ArgumentError(`Failed to parse JSON args: ${(e as Error).message}`);
    }
  } else j = raw ?? null;
  if (!isJsonObject(j)) throw new ArgumentError('Failed to parse JSON args: expected a JSON object');
  const o = j;
  const initialPeers = field<string[]>(o, 'initial_peers', isStrings, 'an array of multiaddr strings');
  const netPort = field<number>(o, 'net_port', isPort, 'a port number');
  const blendPort = field<number>(o, 'blend_port', isPort, 'a port number');
  const httpAddr = field<string>(o, 'http_addr', isString, 'a string');
  const externalAddress = field<string>(o, 'external_address', isString, 'a string');
  const statePath = field<string>(o, 'state_path', isString, 'a string');
  const storagePath = field<string>(o, 'storage_path', isString, 'a string');
  const logsPath = field<string>(o, 'logs_path', isString, 'a string');
  const skipIbd = field<boolean>(o, 'skip_ibd', isBool, 'a boolean');
  const output = field<string>(o, 'output', isString, 'a string');
  const kmsFile = field<string>(o, 'kms_file', isString, 'a string');
  field<string>(o, 'log_filter', isString, 'a string');
  const usePersistencePaths = field<boolean>(o, 'use_persistence_paths', isBool, 'a boolean') ?? false;
  return {
    ...(output !== undefined ? { output } : {}),
    ...(kmsFile !== undefined ? { kmsFile } : {}),
    usePersistencePaths,
    options: {
      ...(initialPeers !== undefined ? { initialPeers } : {}),
      ...(netPort !== undefined ? { netPort } : {}),
      ...(blendPort !== undefined ? { blendPort } : {}),
      ...(httpAddr !== undefined ? { httpAddr } : {}),
      ...(externalAddress !== undefined ? { externalAddress } : {}),
      ...(statePath !== undefined ? { statePath } : {}),
      ...(storagePath !== undefined ? { storagePath } : {}),
      ...(logsPath !== undefined ? { logsPath } : {}),
      ...(skipIbd !== undefined ? { skipIbd } : {}),
    },
  };
}

/**
 * Writes both files and returns the output path as given (`""` without `output`, the file then being
 * `user_config.yaml` in `cwd`). With `use_persistence_paths`, the config, `state`, `db` and `logs`
 * go under the module's persistence folder `dataDir`.
 */
export function generateUserConfig(raw: Json | undefined, cwd: string, dataDir: string): string {
  const a = parseGenerateArgs(raw);
  const base = a.usePersistencePaths ? dataDir : cwd;
  const options: NewConfigOptions = a.usePersistencePaths
    ? {
        ...a.options,
        statePath: a.options.statePath ?? join(dataDir, 'state'),
        storagePath: a.options.storagePath ?? join(dataDir, 'db'),
        logsPath: a.options.logsPath ?? join(dataDir, 'logs'),
      }
    : a.options;
  const output = resolve(base, a.output ?? 'user_config.yaml');
  const keystore = a.kmsFile !== undefined ? resolve(base, a.kmsFile) : keystoreBeside(output);
  if (existsSync(output)) throw new ArgumentError(USER_CONFIG_EXISTS);
  if (existsSync(keystore)) throw new ArgumentError(KEYSTORE_EXISTS);
  const keys = generateNodeKeys();
  const config = nodeConfigYaml(keys, options);
  // The node must be able to start from it: a bad peer address or listen address is told now.
  try {
    parseUserConfig(config, output);
  } catch (e) {
    throw new ArgumentError(`Failed to generate user config: ${(e as Error).message}`);
  }
  mkdirSync(dirname(output), { recursive: true });
  mkdirSync(dirname(keystore), { recursive: true });
  writePrivate(keystore, keystoreYaml(keys), () => new ArgumentError(KEYSTORE_EXISTS));
  writePrivate(output, config, () => new ArgumentError(USER_CONFIG_EXISTS));
  if (a.usePersistencePaths) return output;
  return a.output ?? '';
}

/**
 * A new file only its owner reads (mode 600 whatever the umask), never over an existing one: when
 * one is there, the error `exists` makes is thrown.
 */
export function writePrivate(path: string, text: string, exists: () => Error): void {
  try {
    writeFileAtomic(path, text, true);
  } catch (e) {
    if (existsSync(path)) throw exists();
    throw e;
  }
}
