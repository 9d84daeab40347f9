/**
 * The gossip topics a deployment names (`cryptarchia.gossipsub_protocol`, `mempool.pubsub_topic`), their
 * default when it names none, and any string taken as a topic (as F).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeploymentError, parseDeployment } from '../../../../src/ledger/deployment.ts';
import { fastDeploymentYaml } from '../../../mocks/fast-deployment.ts';

const YAML = fastDeploymentYaml(100, 2);

test('the devnet files name their topics', () => {
  const n = parseDeployment(YAML).network;
  assert.equal(n.block_topic, '/logos-blockchain-devnet/cryptarchia/1.0.0');
  assert.equal(n.tx_topic, '/logos-blockchain-devnet/mempool/1.0.0');
});

test('a deployment naming no topic gets names made of its own name', () => {
  const bare = YAML.split('\n')
    .filter((l) => !/gossipsub_protocol|pubsub_topic/.test(l))
    .join('\n');
  const n = parseDeployment(bare).network;
  assert.equal(n.block_topic, '/logos-blockchain-fast-test/cryptarchia/1.0.0');
  assert.equal(n.tx_topic, '/logos-blockchain-fast-test/mempool/1.0.0');
});

// F: `gossipsub_protocol` and `pubsub_topic` are `String`s; its config-override test sets
// `mempool.pubsub_topic` to "my-custom-topic".
test('any string is a topic, as in F ("my-custom-topic", empty); a value that is not a string is refused with its key', () => {
  const custom = parseDeployment(YAML.replace(/pubsub_topic: .*/, 'pubsub_topic: my-custom-topic'), 'd');
  assert.equal(custom.network.tx_topic, 'my-custom-topic');
  const empty = parseDeployment(YAML.replace(/gossipsub_protocol: .*/, "gossipsub_protocol: ''"), 'd');
  assert.equal(empty.network.block_topic, '');
  assert.throws(
    () => parseDeployment(YAML.replace(/pubsub_topic: .*/, 'pubsub_topic: 5'), 'd'),
    (e) => e instanceof DeploymentError && e.message.includes('d.mempool.pubsub_topic'),
  );
  assert.throws(
    () => parseDeployment(YAML.replace(/gossipsub_protocol: .*/, 'gossipsub_protocol: [a]'), 'd'),
    (e) => e instanceof DeploymentError && e.message.includes('d.cryptarchia.gossipsub_protocol'),
  );
});
