#!/usr/bin/env node
/** Entry point of `logosctl`: runs the command line. */
import '@logos-ts/shared/polyfills';
import { runCtl } from './cli.ts';

process.exitCode = await runCtl(process.argv.slice(2));
