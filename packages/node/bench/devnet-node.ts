/** A devnet node with real Groth16 proofs in a fresh directory, for the benchmarks of block production. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { devnetConfig } from '../src/node/devnet.ts';
import { loadDeployment } from '../src/node/load.ts';
import { LogosNode } from '../src/node/node.ts';

/** Runs `use` on a fresh devnet node (API on a free port), then stops it and deletes its folder. */
export async function withDevnetNode<T>(use: (node: LogosNode) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'logos-bench-'));
  const config = {
    ...devnetConfig(),
    api: { backend: { ...devnetConfig().api.backend, listen_address: '127.0.0.1:0' } },
    state: { base_folder: dir },
  };
  const node = await LogosNode.start({
    deployment: loadDeployment('devnet'),
    config,
    baseDir: dir,
    logger: pino({ level: 'warn' }),
  });
  try {
    return await use(node);
  } finally {
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
