/** `logos-node version`: the API version and the implementation, as one JSON line. */
import type { Command } from 'commander';
import { API_VERSION, IMPLEMENTATION } from '../../version.ts';

export function addVersionCommand(program: Command): void {
  program
    .command('version')
    .description('print the version')
    .action(() => {
      console.log(JSON.stringify({ version: API_VERSION, implementation: IMPLEMENTATION }));
    });
}
