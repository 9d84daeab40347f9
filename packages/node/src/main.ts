/** Entry point: `npm start` runs the CLI's default command, a local devnet node. */
import './polyfills.mjs';
import { buildCli } from './cli.ts';

buildCli()
  .parseAsync(process.argv)
  .catch((e: unknown) => {
    console.error(`error: ${(e as Error).message}`);
    process.exit(1);
  });
