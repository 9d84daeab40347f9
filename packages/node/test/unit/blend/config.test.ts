/**
 * The Blend settings: the user's `blend` section (F: nodes/node/binary/src/config/blend/serde/**) and
 * the deployment's `blend:` section (F: config/blend/deployment.rs), with their defaults and errors.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { DEFAULT_BLEND, parseBlendSection } from '../../../src/blend/index.ts';
import { parseDeployment } from '../../../src/ledger/deployment.ts';
import { parseUserConfig } from '../../../src/node/config.ts';
import { fastDeployment } from '../../mocks/fast-deployment.ts';

const DEVNET = readFileSync(new URL('../../../deployments/devnet.yaml', import.meta.url), 'utf8');

describe('user_config.yaml blend', () => {
  test("absent: F's defaults (QUIC on 3400, peering degree 3..5, 300 edge connections)", () => {
    assert.deepEqual(parseBlendSection(undefined), DEFAULT_BLEND);
    assert.equal(DEFAULT_BLEND.core.listening_address, '/ip4/0.0.0.0/udp/3400/quic-v1');
    assert.deepEqual(DEFAULT_BLEND.core.core_peering_degree, { start: 3, end: 5 });
    assert.equal(DEFAULT_BLEND.edge.replication_factor, 1);
  });

  test('every key is read, durations in seconds', () => {
    const c = parseUserConfig(
      [
        'blend:',
        '  non_ephemeral_signing_key_id: signing',
        '  core:',
        '    zk: { secret_key_kms_id: zk }',
        '    backend:',
        "      listening_address: '/ip4/127.0.0.1/udp/4400/quic-v1'",
        '      core_peering_degree: { start: 1, end: 2 }',
        "      edge_node_connection_timeout: '2.500000000'",
        '      max_edge_node_incoming_connections: 7',
        '      max_dial_attempts_per_peer: 2',
        '      peering_degree_check_interval: null',
        '  edge:',
        '    backend: { max_dial_attempts_per_peer_per_message: 2, replication_factor: 3 }',
      ].join('\n'),
    ).blend;
    assert.deepEqual(c, {
      non_ephemeral_signing_key_id: 'signing',
      core_zk_secret_key_kms_id: 'zk',
      core: {
        listening_address: '/ip4/127.0.0.1/udp/4400/quic-v1',
        core_peering_degree: { start: 1, end: 2 },
        edge_node_connection_timeout_ms: 2500,
        max_edge_node_incoming_connections: 7,
        max_dial_attempts_per_peer: 2,
        peering_degree_check_interval_ms: null,
      },
      edge: { max_dial_attempts_per_peer_per_message: 2, replication_factor: 3 },
    });
  });

  test('bad values are errors naming the key', () => {
    const bad: [string, RegExp][] = [
      [
        'blend: { core: { backend: { core_peering_degree: { start: 4, end: 2 } } } }',
        /core_peering_degree: end 2 is below start 4/,
      ],
      [
        'blend: { core: { backend: { edge_node_connection_timeout: 0.5 } } }',
        /edge_node_connection_timeout: must be at least 1 s/,
      ],
      ['blend: { core: { backend: { max_dial_attempts_per_peer: 0 } } }', /max_dial_attempts_per_peer/],
      ['blend: { edge: { backend: { replication_factor: 0 } } }', /replication_factor/],
      ["blend: { core: { backend: { listening_address: 'udp/1' } } }", /listening_address/],
      ['blend: { core: { backend: { peering: 1 } } }', /blend\.core\.backend\.peering/],
    ];
    for (const [yaml, msg] of bad) assert.throws(() => parseUserConfig(yaml), msg, yaml);
  });
});

describe('deployment blend', () => {
  const withBlend = (section: string) => `${DEVNET}\n${section}\n`;

  test("absent: F's deployment settings; the protocol name follows the deployment's name", () => {
    const d = parseDeployment(DEVNET.replace(/^blend:[\s\S]*?(?=^\S)/m, ''), 'devnet.yaml');
    assert.equal(d.blend.protocol_name, `/logos-blockchain-${d.name}/blend/1.0.0`);
  });

  test("F's layout is read and feeds the ledger's Blend reward parameters", () => {
    const d = parseDeployment(
      withBlend(
        [
          'blend:',
          '  common: { num_blend_layers: 3, minimum_network_size: 4, protocol_name: /x/blend/1.0.0, data_replication_factor: 2 }',
          '  core:',
          '    scheduler: { cover: { message_frequency_per_round: 0.25 }, delayer: { maximum_release_delay_in_rounds: 3 } }',
          '    minimum_messages_coefficient: 2',
          '    normalization_constant: 1.5',
          '    activity_threshold_sensitivity: 5',
        ].join('\n'),
      ).replace(/^blend:[\s\S]*?(?=^\S)/m, ''),
      'x.yaml',
    );
    assert.deepEqual(d.blend, {
      num_blend_layers: 3,
      minimum_network_size: 4,
      protocol_name: '/x/blend/1.0.0',
      data_replication_factor: 2,
      message_frequency_per_round: 0.25,
      maximum_release_delay_in_rounds: 3,
      rounds_per_slot: 1,
      minimum_messages_coefficient: 2,
      normalization_constant: 1.5,
      activity_threshold_sensitivity: 5,
    });
    const r = d.ledger.sdp.blend_rewards;
    assert.equal(r.num_blend_layers, 3n);
    assert.equal(r.minimum_network_size, 4n);
    assert.equal(r.data_replication_factor, 2n);
    assert.equal(r.message_frequency_per_round, 0.25);
    assert.equal(r.activity_threshold_sensitivity, 5n);
  });

  test('rounds_per_slot splits the slot: the rewards count its rounds, unless they say otherwise', () => {
    const strip = (t: string) => t.replace(/^blend:[\s\S]*?(?=^\S)/m, '');
    const d = parseDeployment(
      strip(withBlend('blend: { core: { scheduler: { rounds_per_slot: 4 } } }')),
      'x.yaml',
    );
    assert.equal(d.blend.rounds_per_slot, 4);
    // The devnet's epoch: 3 + 3 + 4 periods of k / f = 50 slots, 500 slots, 2000 rounds.
    assert.equal(d.ledger.sdp.blend_rewards.rounds_per_epoch, 2000n);
    const given = parseDeployment(
      `${strip(withBlend('blend: { core: { scheduler: { rounds_per_slot: 4 } } }'))}`.replace(
        /^sdp:\n/m,
        'sdp:\n  blend_rewards: { rounds_per_epoch: 700 }\n',
      ),
      'x.yaml',
    );
    assert.equal(given.ledger.sdp.blend_rewards.rounds_per_epoch, 700n);
    const reference = parseDeployment(strip(withBlend('')), 'x.yaml');
    assert.equal(reference.blend.rounds_per_slot, 1);
    assert.equal(
      reference.ledger.sdp.blend_rewards.rounds_per_epoch,
      null,
      'one round a slot: the epoch length',
    );
  });

  test('the fast test deployments keep one round a slot, whatever their slot', () => {
    for (const ms of [20, 50, 100, 250, 500]) {
      const d = fastDeployment(ms, 3);
      assert.equal(d.blend.rounds_per_slot, 1, `${ms} ms slots`);
      assert.equal(d.blend.message_frequency_per_round, 0.1);
    }
  });

  test('bad values are errors naming the key', () => {
    const strip = (t: string) => t.replace(/^blend:[\s\S]*?(?=^\S)/m, '');
    const bad: [string, RegExp][] = [
      ['blend: { common: { minimum_network_size: 1 } }', /blend\.common\.minimum_network_size/],
      ['blend: { common: { protocol_name: blend } }', /protocol_name: a protocol name starts with/],
      ['blend: { common: { num_blend_layers: 0 } }', /num_blend_layers/],
      [
        'blend: { core: { normalization_constant: -1 } }',
        /normalization_constant: must be a non-negative number/,
      ],
      [
        'blend: { core: { scheduler: { delayer: { maximum_release_delay_in_rounds: 0 } } } }',
        /maximum_release_delay_in_rounds/,
      ],
      ['blend: { core: { scheduler: { rounds_per_slot: 0 } } }', /blend\.core\.scheduler\.rounds_per_slot/],
      // The devnet's slot is 1000 ms: 3 rounds would not last whole milliseconds.
      [
        'blend: { core: { scheduler: { rounds_per_slot: 3 } } }',
        /rounds_per_slot: 3 rounds do not split a slot of 1000 ms/,
      ],
    ];
    for (const [yaml, msg] of bad)
      assert.throws(() => parseDeployment(strip(withBlend(yaml)), 'x.yaml'), msg, yaml);
  });
});
