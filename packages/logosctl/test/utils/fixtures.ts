/** The control tool's own test fixtures and scripts, run from source. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { CTL_ENV } from '@logos-ts/test-utils/logosctl';

/** The test module `test/fixtures/echo-module.ts` (echo, fail, events, …). */
export const ECHO_MODULE = fileURLToPath(new URL('../fixtures/echo-module.ts', import.meta.url));

/** `scripts/pack-modules.ts` from source: packs the shipped modules and their catalog into a folder. */
const PACK_MODULES = [
  ...childExecArgv(),
  fileURLToPath(new URL('../../scripts/pack-modules.ts', import.meta.url)),
];

/** A package `scripts/pack-modules.ts` built, as it prints it. */
export interface PackedModule {
  readonly name: string;
  readonly version: string;
  readonly rootHash: string;
}

/** Runs `scripts/pack-modules.ts` into `dir`; the packages it built, in the order it printed them. */
export function packModules(dir: string): Promise<PackedModule[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...PACK_MODULES, dir], { env: CTL_ENV, timeout: 30_000 }, (err, stdout) => {
      if (err) return reject(err);
      const lines = stdout.matchAll(/^(\S+) (\S+) ([0-9a-f]{64})$/gm);
      resolve([...lines].map((m) => ({ name: m[1]!, version: m[2]!, rootHash: m[3]! })));
    });
  });
}
