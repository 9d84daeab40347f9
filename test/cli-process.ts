/** Runs the node's command line (`src/main.ts`) in a child process, as `npm start` does. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TSX = import.meta.resolve('tsx');

export function spawnCli(args: readonly string[], cwd: string): ChildProcess {
  return spawn(
    process.execPath,
    ['--import', TSX, '--import', join(ROOT, 'src/polyfills.mjs'), join(ROOT, 'src/main.ts'), ...args],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}
