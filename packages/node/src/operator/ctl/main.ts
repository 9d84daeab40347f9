/** Entry point of `logosctl` (loaded after tsx and the node's polyfills): runs the command line. */
import { runCtl } from './cli.ts';

process.exitCode = await runCtl(process.argv.slice(2));
