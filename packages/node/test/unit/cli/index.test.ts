import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseUserConfig } from '../../../src/node/config.ts';
import { loadDeployment } from '../../../src/node/load.ts';
import { runCli as run } from './cmds/run-cli.ts';

test('init writes a private config with fresh keys that loads, and never overwrites', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-cli-'));
  try {
    const path = join(dir, 'user_config.yaml');
    await run(['init', '--config', path]);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const c = parseUserConfig(readFileSync(path, 'utf8'));
    assert.equal(Object.keys(c.kms.backend.keys).length, 7);
    assert.equal(Object.keys(c.wallet.known_keys).length, 5);
    assert.ok(c.wallet.voucher_master_key_id && c.kms.backend.keys[c.wallet.voucher_master_key_id]);
    const before = readFileSync(path, 'utf8');
    await assert.rejects(run(['init', '--config', path]), /already exists/);
    assert.equal(readFileSync(path, 'utf8'), before);
    // A second init elsewhere makes other keys.
    await run(['init', '--config', join(dir, 'other.yaml')]);
    assert.notEqual(readFileSync(join(dir, 'other.yaml'), 'utf8'), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('unknown commands and options are refused', async () => {
  await assert.rejects(run(['frobnicate']), /unknown command|too many arguments/);
  await assert.rejects(run(['init']), /required option/);
});

test('an unknown command is named as such, with the list of commands', async () => {
  await assert.rejects(
    run(['frobnicate']),
    /unknown command 'frobnicate' \(commands: start, devnet, sdp, init, version/,
  );
  await assert.rejects(run(['frobnicate', '--config', 'x.yaml']), /unknown command 'frobnicate'/);
});

test('--config names the path it cannot read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-cli-'));
  try {
    await assert.rejects(run(['start', '--config', dir]), (e: Error) =>
      e.message.includes(`cannot read the config file ${dir}: it is a directory`),
    );
    const missing = join(dir, 'missing.yaml');
    await assert.rejects(run(['start', '--config', missing]), (e: Error) =>
      e.message.includes(`cannot read the config file ${missing}: no such file`),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('deployments by name: devnet, reference and testnet load; mainnet is refused, not faked', () => {
  assert.equal(loadDeployment('devnet').name, 'devnet');
  assert.equal(loadDeployment('reference').genesis.genesis_time, null);
  assert.equal(loadDeployment('testnet').circuits, 'reference');
  assert.throws(() => loadDeployment('mainnet'), /there is no mainnet deployment/);
});
