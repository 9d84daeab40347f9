#!/usr/bin/env node
/** Entry point of `logos-node` (and `npm start`): runs the CLI; its default command is a local devnet node. */
import '@logos-ts/shared/polyfills';
import { buildCli } from './cli/index.ts';

buildCli()
  .parseAsync(process.argv)
  .catch((e: unknown) => {
    console.error(`error: ${(e as Error).message}`);
    process.exit(1);
  });
