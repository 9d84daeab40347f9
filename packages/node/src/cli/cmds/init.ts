/** `logos-node init`: a new node's user_config.yaml with fresh keys (mode 600, never over a file). */
import { existsSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { generateNodeKeys, nodeConfigYaml } from '../../node/new-config.ts';
import { CliError } from '../errors.ts';

export function addInitCommand(program: Command): void {
  program
    .command('init')
    .description('write a user_config.yaml with fresh keys for a new node (mode 600, never overwrites)')
    .requiredOption('-c, --config <path>', 'where to write user_config.yaml')
    .action((o: { config: string }) => {
      if (existsSync(o.config))
        throw new CliError('CLI_FILE_EXISTS', `${o.config} already exists; refusing to overwrite it`, {
          path: o.config,
        });
      writeFileSync(o.config, nodeConfigYaml(generateNodeKeys()), { mode: 0o600, flag: 'wx' });
      console.log(`wrote ${o.config}`);
    });
}
