/**
 * A data folder that held a chain but lost its chain file (missing, or emptied) is refused: opening it
 * would silently begin a new chain with a new genesis time. A new or empty folder opens; so does a used one
 * when the operator asks for a new chain (`allowNewChain`, the CLI's `--new-chain`).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { StorageError } from '../../../src/storage/errors.ts';
import { type OpenStoreOptions, openStore } from '../../../src/storage/open.ts';
import { fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { spawnCli } from '../../utils/cli-process.ts';
import { tempDir } from '../../utils/storage.ts';
import { exited, waitForLine } from './child.ts';
import { CrashModel } from './crash-model.ts';

async function opens(dir: string, options: OpenStoreOptions = {}): Promise<bigint | undefined> {
  const store = await openStore(dir, { onWarning: () => {}, ...options });
  try {
    return store.chain.tipHeight();
  } finally {
    await store.close();
  }
}

/** A data folder that held a chain of a few commits. */
async function usedFolder(dir: string): Promise<void> {
  const store = await openStore(dir);
  const model = CrashModel.load(store.chain, 3);
  for (let i = 0; i < 5; i++) await store.chain.commit(model.step());
  await store.close();
}

function refusedNoChain(dir: string, state: 'missing' | 'empty') {
  return (e: unknown) => {
    assert.ok(e instanceof StorageError);
    assert.equal(e.code, 'STORAGE_NO_CHAIN');
    assert.ok(e.message.includes(join(dir, 'chain.mdb')), e.message);
    assert.match(e.message, new RegExp(`is ${state}: starting would begin a new chain`));
    assert.match(e.message, /--new-chain/);
    return true;
  };
}

describe('a data folder without its chain file', () => {
  test('a missing folder, an empty one and one with only a stale lock open as new', async (t) => {
    const root = tempDir(t);
    assert.equal(await opens(join(root, 'absent')), undefined);
    mkdirSync(join(root, 'empty'));
    assert.equal(await opens(join(root, 'empty')), undefined);
    mkdirSync(join(root, 'stale'));
    writeFileSync(join(root, 'stale', 'LOCK'), 'pid 999999999\n');
    assert.equal(await opens(join(root, 'stale')), undefined);
  });

  test('a used folder whose chain.mdb was removed is refused and left as it was', async (t) => {
    const dir = join(tempDir(t), 'db');
    await usedFolder(dir);
    rmSync(join(dir, 'chain.mdb'));
    const files = readdirSync(dir).sort();
    await assert.rejects(opens(dir), refusedNoChain(dir, 'missing'));
    assert.deepEqual(readdirSync(dir).sort(), files, 'nothing created, the lock released');
    // The operator's explicit choice starts a new chain there.
    assert.equal(await opens(dir, { allowNewChain: true }), undefined);
    assert.ok(existsSync(join(dir, 'chain.mdb')));
  });

  test('a used folder whose chain.mdb was emptied is refused', async (t) => {
    const dir = join(tempDir(t), 'db');
    await usedFolder(dir);
    truncateSync(join(dir, 'chain.mdb'), 0);
    await assert.rejects(opens(dir), refusedNoChain(dir, 'empty'));
    assert.equal(await opens(dir, { allowNewChain: true }), undefined);
  });

  test('the node refuses to start on it; --new-chain starts a new chain', async (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'fast.yaml'), fastDeploymentYaml(100, 3));
    const args = ['start', '--deployment', join(dir, 'fast.yaml'), '--insecure-test-proofs'];
    const db = join(dir, '.devnet', 'db');
    await usedFolder(db);
    rmSync(join(db, 'chain.mdb'));

    const refused = await exited(spawnCli(args, dir));
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /chain file .*chain\.mdb is missing: starting would begin a new chain/);
    assert.equal(existsSync(join(db, 'chain.mdb')), false);
    assert.equal(existsSync(join(db, 'LOCK')), false);

    const p = spawnCli([...args, '--new-chain'], dir);
    const done = exited(p);
    await waitForLine(p, /"new chain: genesis block stored"/, 30_000);
    p.kill('SIGTERM');
    const r = await done;
    assert.equal(r.code, 0, r.stderr);
  });
});
