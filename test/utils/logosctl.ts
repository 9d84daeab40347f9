/** Runs the `logosctl` bin in a child process against a session folder, as an operator would. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const LOGOSCTL_BIN = fileURLToPath(new URL('../../bin/logosctl.mjs', import.meta.url));
/** The test module of `test/fixtures/operator/`. */
export const ECHO_MODULE = fileURLToPath(new URL('../fixtures/operator/echo-module.ts', import.meta.url));
/** The environment of a run: no session or token from the caller's environment. */
export const CTL_ENV = { ...process.env, LOGOSCTL_CONFIG_DIR: '', LOGOSCTL_TOKEN: '' };

export interface CtlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `logosctl --config-dir <dir> <args>` in `cwd` (default the session folder), with `env` added; stdout
 * is not a TTY.
 */
export function ctl(
  dir: string,
  args: readonly string[],
  cwd = dir,
  env: NodeJS.ProcessEnv = {},
): Promise<CtlRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [LOGOSCTL_BIN, '--config-dir', dir, ...args],
      { cwd, timeout: 30_000, env: { ...CTL_ENV, ...env } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `scripts/pack-modules.mjs`: packs the shipped modules and their catalog into a folder. */
export const PACK_MODULES_SCRIPT = fileURLToPath(new URL('../../scripts/pack-modules.mjs', import.meta.url));
