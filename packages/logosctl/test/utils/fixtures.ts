/** The control tool's own test fixtures and scripts, run from source. */
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';

/** The test module of `test/fixtures/operator/`. */
export const ECHO_MODULE = fileURLToPath(new URL('../fixtures/echo-module.ts', import.meta.url));

/** `scripts/pack-modules.ts` from source: packs the shipped modules and their catalog into a folder. */
export const PACK_MODULES = [
  ...childExecArgv(),
  fileURLToPath(new URL('../../scripts/pack-modules.ts', import.meta.url)),
];
