/**
 * The deployment argument of the blockchain module's `start`: `""` is the reference's built-in
 * deployment, its public testnet (F: c-bindings/src/api/lifecycle.rs `get_deployment_config` takes
 * `DeploymentSettings::default()`, nodes/node/binary/src/config/deployment/settings.yaml); names this
 * node ships load by name, anything else is a file relative to the daemon's working directory.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDeployment } from '@logos-ts/node/node/load';
import { DEFAULT_DEPLOYMENT, deploymentArgument } from '../../src/blockchain-module.ts';

test('start with an empty deployment runs the testnet, as the reference module does', () => {
  assert.equal(DEFAULT_DEPLOYMENT, 'testnet');
  assert.equal(deploymentArgument('', '/srv/node'), 'testnet');
  const d = loadDeployment(deploymentArgument('', '/srv/node'));
  assert.equal(d.name, 'testnet');
  assert.equal(d.circuits, 'reference');
  assert.equal(d.genesis.chain_id, '0.2.1');
});

test('names load by name; anything else is a file relative to the working directory', () => {
  for (const name of ['devnet', 'reference', 'testnet']) {
    assert.equal(deploymentArgument(name, '/srv/node'), name);
    assert.equal(loadDeployment(name).name, name);
  }
  assert.equal(deploymentArgument('my.yaml', '/srv/node'), '/srv/node/my.yaml');
  assert.equal(deploymentArgument('/etc/d.yaml', '/srv/node'), '/etc/d.yaml');
  assert.throws(
    () => loadDeployment(deploymentArgument('missing.yaml', '/nonexistent')),
    /cannot read deployment/,
  );
});
