/**
 * Reading what a node starts from: a deployment by name (`devnet`, `reference`, `testnet`) or path, and a
 * `user_config.yaml` file, with errors that name the file and never quote it (it holds secret keys).
 * Used by the `start` command and the operator's blockchain module.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Deployment, parseDeployment } from '../ledger/deployment.ts';
import { packageFile } from '../util/package-files.ts';
import { ConfigError, parseUserConfig, type UserConfig } from './config.ts';

const DEPLOYMENTS = packageFile('deployments/');

export function loadDeployment(nameOrPath: string): Deployment {
  if (nameOrPath === 'mainnet') {
    throw new ConfigError(
      "there is no mainnet deployment: the reference ships none; 'testnet' follows its public testnet",
    );
  }
  const path = ['devnet', 'reference', 'testnet'].includes(nameOrPath)
    ? new URL(`${nameOrPath}.yaml`, DEPLOYMENTS)
    : resolve(nameOrPath);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read deployment ${nameOrPath}: ${(e as Error).message}`);
  }
  return parseDeployment(text, String(nameOrPath));
}

/** Reads `--config`, with errors that name the file. */
export function readConfigFile(path: string): UserConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory (give the path of the user_config.yaml file)'
          : code === 'EACCES'
            ? 'permission denied'
            : (e as Error).message;
    throw new ConfigError(`cannot read the config file ${resolve(path)}: ${why}`);
  }
  return parseUserConfig(text, path);
}
