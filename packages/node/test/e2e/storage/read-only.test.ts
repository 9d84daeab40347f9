/**
 * `storage.backend.read_only: true` is refused with a message naming the key (the node has no read-only
 * mode), never accepted and ignored; a node started with it writes nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, parseUserConfig } from '../../../src/node/config.ts';
import { fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { spawnCli } from '../../utils/cli-process.ts';
import { tempDir } from '../../utils/storage.ts';
import { exited } from './child.ts';

const storage = (readOnly: string) =>
  `storage:\n  backend:\n    folder_name: ./db\n    read_only: ${readOnly}\n`;

test('read_only: true is refused with the key named; false is accepted', () => {
  assert.throws(
    () => parseUserConfig(storage('true')),
    (e: unknown) =>
      e instanceof ConfigError &&
      /^storage\.backend\.read_only: true is not supported: this node has no read-only mode/.test(e.message),
  );
  assert.equal(parseUserConfig(storage('false')).storage.backend.read_only, false);
  assert.equal(parseUserConfig('').storage.backend.read_only, false);
});

test('a node configured read-only does not start and writes nothing', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'fast.yaml'), fastDeploymentYaml(100, 3));
  const init = await exited(spawnCli(['init', '--config', 'node.yaml'], dir));
  assert.equal(init.code, 0, init.stderr);
  // init writes a storage section of its own (`folder_name: ./db`): replaced by the read-only one.
  const generated = readFileSync(join(dir, 'node.yaml'), 'utf8').replace(/^storage:\n(?: .*\n)*/m, '');
  writeFileSync(join(dir, 'node.yaml'), generated + storage('true'));
  const r = await exited(
    spawnCli(
      ['start', '--config', 'node.yaml', '--deployment', join(dir, 'fast.yaml'), '--insecure-test-proofs'],
      dir,
    ),
  );
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /storage\.backend\.read_only: true is not supported/);
  assert.equal(existsSync(join(dir, 'state')), false, 'no state folder was created');
});
