/**
 * `logos-node config …`: each command does what the blockchain module's config call does (through the
 * same functions), and refuses a bad input with the call's message and without changing a file.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { parse } from 'yaml';
import { parseUserConfig } from '../../../../src/node/config.ts';
import { runCli } from './run-cli.ts';

let dir: string;
let cfg: string;
let ks: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'logos-cli-config-'));
  cfg = join(dir, 'user_config.yaml');
  ks = join(dir, 'keystore.yaml');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The keystore's public keys by title. */
const publicKeys = (path: string): Record<string, string> =>
  (parse(readFileSync(path, 'utf8'), { logLevel: 'silent' }) as { public_keys: Record<string, string> })
    .public_keys;

test('config generate writes a private config and keystore with the same keys, never over a file', async () => {
  const out = await runCli(['config', 'generate', '-c', cfg, '--net-port', '3100', '--skip-ibd']);
  assert.deepEqual(out, [`wrote ${cfg} and ${ks}`]);
  assert.equal(statSync(cfg).mode & 0o777, 0o600);
  assert.equal(statSync(ks).mode & 0o777, 0o600);
  const c = parseUserConfig(readFileSync(cfg, 'utf8'));
  assert.deepEqual(Object.keys(c.kms.backend.keys).sort(), Object.values(publicKeys(ks)).sort());
  assert.match(readFileSync(cfg, 'utf8'), /3100/);
  const before = readFileSync(cfg, 'utf8');
  await assert.rejects(runCli(['config', 'generate', '-c', cfg]), /User configuration file exists/);
  assert.equal(readFileSync(cfg, 'utf8'), before);
  await assert.rejects(runCli(['config', 'generate', '--net-port', '70000']), /port number/);
});

test('config update puts the keystore keys into the config; a missing config is refused', async () => {
  await runCli(['config', 'generate', '-c', cfg]);
  const other = join(dir, 'other');
  await runCli(['config', 'generate', '-c', join(other, 'user_config.yaml')]);
  // The config takes the other keystore's keys.
  const out = await runCli(['config', 'update', '-c', cfg, '--keystore', join(other, 'keystore.yaml')]);
  assert.deepEqual(out, [`updated ${cfg} from ${join(other, 'keystore.yaml')}`]);
  const c = parseUserConfig(readFileSync(cfg, 'utf8'));
  assert.deepEqual(
    Object.keys(c.kms.backend.keys).sort(),
    Object.values(publicKeys(join(other, 'keystore.yaml'))).sort(),
  );
  await assert.rejects(runCli(['config', 'update', '-c', join(dir, 'missing.yaml')]), {
    code: 'CONFIG_FILE_MISSING',
    message: 'Error updating config: User configuration file does not exist. Use `init` command.',
  });
  await assert.rejects(runCli(['config', 'update']), /required option '-c, --config <path>'/);
});

test('config migrate writes a config for an existing keystore, never over a config', async () => {
  await runCli(['config', 'generate', '-c', cfg]);
  const next = join(dir, 'next.yaml');
  assert.deepEqual(await runCli(['config', 'migrate', '-c', next, '--keystore', ks]), [`wrote ${next}`]);
  const c = parseUserConfig(readFileSync(next, 'utf8'));
  assert.deepEqual(Object.keys(c.kms.backend.keys).sort(), Object.values(publicKeys(ks)).sort());
  const before = readFileSync(cfg, 'utf8');
  await assert.rejects(
    runCli(['config', 'migrate', '-c', cfg]),
    /Error migrating config: User configuration exists\. Use `update` command\./,
  );
  assert.equal(readFileSync(cfg, 'utf8'), before);
});

test('config migrate-0.1.2 makes a keystore of the old config keys and a new config', async () => {
  await runCli(['config', 'generate', '-c', cfg]);
  const next = join(dir, 'new', 'user_config.yaml');
  const nextKs = join(dir, 'new', 'keystore.yaml');
  await assert.rejects(
    runCli(['config', 'migrate-0.1.2', '--old', join(dir, 'nope.yaml'), '-c', next]),
    /Old configuration file does not exist at the specified path\./,
  );
  assert.equal(existsSync(nextKs), false);
  const out = await runCli(['config', 'migrate-0.1.2', '--old', cfg, '-c', next]);
  assert.deepEqual(out, [`wrote ${next} and ${nextKs}`]);
  // The keys the old config names are kept under their titles; the Stake key it lacks is fresh.
  const { Stake: newStake, ...kept } = publicKeys(nextKs);
  const { Stake: oldStake, ...old } = publicKeys(ks);
  assert.deepEqual(kept, old);
  assert.notEqual(newStake, oldStake);
  parseUserConfig(readFileSync(next, 'utf8'));
});

test('config participate writes participation_data.yaml; a bad external IP is refused', async () => {
  await runCli(['config', 'generate', '-c', cfg]);
  const outDir = join(dir, 'out');
  await assert.rejects(
    runCli(['config', 'participate', '-c', cfg, '--out-dir', outDir, '--external-ip', '1.2.3']),
    /Invalid external address '1\.2\.3'/,
  );
  assert.equal(existsSync(outDir), false);
  const out = await runCli([
    'config',
    'participate',
    '-c',
    cfg,
    '--out-dir',
    outDir,
    '--external-ip',
    '1.2.3.4',
  ]);
  assert.deepEqual(out, [`wrote ${join(outDir, 'participation_data.yaml')}`]);
  const data = parse(readFileSync(join(outDir, 'participation_data.yaml'), 'utf8')) as {
    stakeholder_identities: string[];
    blend: { zk_id: string; locators: string[] };
  };
  const keys = publicKeys(ks);
  assert.deepEqual(data.stakeholder_identities.slice(0, 3), [
    keys.Stake,
    keys.LeaderFunding,
    keys.SdpFunding,
  ]);
  assert.equal(data.blend.zk_id, keys.BlendZk);
  assert.match(data.blend.locators[0]!, /^\/ip4\/1\.2\.3\.4\//);
});

test('config peer-id prints the peer id of the swarm key; a config without one is refused', async () => {
  await runCli(['config', 'generate', '-c', cfg]);
  const [id] = await runCli(['config', 'peer-id', '-c', cfg]);
  assert.match(id!, /^12D3KooW[1-9A-HJ-NP-Za-km-z]{44}$/);
  // The same key gives the same id.
  assert.deepEqual(await runCli(['config', 'peer-id', '-c', cfg]), [id]);
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'network: [\n');
  await assert.rejects(runCli(['config', 'peer-id', '-c', bad]), /bad\.yaml/);
});
