/**
 * kill -9 at random moments: a node process on a fast test deployment is killed with SIGKILL again and
 * again; after each kill the stored chain must be consistent, nothing committed may be lost, and the
 * node must restart on the same chain and keep producing.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from '../../../src/storage/open.ts';
import { fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { devnetConfigYaml, spawnCli } from '../../utils/cli-process.ts';
import { checkInvariants, prng, randInt } from '../../utils/storage.ts';

function startNode(dir: string): ChildProcess {
  return spawnCli(
    ['start', '--config', 'devnet.yaml', '--deployment', join(dir, 'fast.yaml'), '--insecure-test-proofs'],
    dir,
  );
}

async function waitForLine(p: ChildProcess, re: RegExp, ms: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${re} within ${ms} ms: ${buf.slice(-500)}`)),
      ms,
    );
    p.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (re.test(buf)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

test('the node survives SIGKILL at random points and restarts on the same chain', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-crash-'));
  try {
    writeFileSync(join(dir, 'fast.yaml'), fastDeploymentYaml(50, 3));
    // Online at once: the leader proposes only when Online, and the node is killed within 1.5 s.
    writeFileSync(join(dir, 'devnet.yaml'), devnetConfigYaml({ prolongedBootstrapPeriod: 0 }), {
      mode: 0o600,
    });
    const rand = prng(20261126);
    let lastTop = -1n;
    let genesis: string | undefined;
    const kills = 8;
    for (let i = 0; i < kills; i++) {
      const p = startNode(dir);
      const exited = new Promise<void>((r) => p.once('exit', () => r()));
      await waitForLine(p, /"chain ready"/, 20_000);
      await new Promise((r) => setTimeout(r, randInt(rand, 100, 1500)));
      p.kill('SIGKILL');
      await exited;
      const store = await openStore(join(dir, '.devnet', 'db'));
      try {
        const s = checkInvariants(store.kv, store.chain);
        assert.ok(s.top >= lastTop, `kill ${i}: the chain went back from height ${lastTop} to ${s.top}`);
        genesis ??= s.canonical[0];
        assert.equal(s.canonical[0], genesis, 'same genesis after every restart');
        lastTop = s.top;
      } finally {
        store.close();
      }
    }
    assert.ok(lastTop > 0n, 'blocks were produced across the restarts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
