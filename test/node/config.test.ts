import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SlotClock } from '../../src/chain/clock.ts';
import { ConfigError, DEFAULT_CONFIG, parseUserConfig } from '../../src/node/config.ts';

describe('user_config.yaml', () => {
  test('an empty file gives the reference defaults', () => {
    assert.deepEqual(parseUserConfig(''), DEFAULT_CONFIG);
    assert.equal(DEFAULT_CONFIG.api.backend.listen_address, '127.0.0.1:8080');
    assert.equal(DEFAULT_CONFIG.api.backend.max_body_size, 10_485_760);
    assert.equal(DEFAULT_CONFIG.cryptarchia.service.bootstrap.prolonged_bootstrap_period, 3600);
  });

  test('the reference layout: nested keys, duration strings, u64 fees, key tags', () => {
    const c = parseUserConfig(`
api:
  backend:
    listen_address: 0.0.0.0:18080
    timeout: 60
state:
  base_folder: /var/lib/logos
cryptarchia:
  service:
    bootstrap:
      prolonged_bootstrap_period: '3600.000000000'
      force_bootstrap: true
      offline_grace_period: { grace_period: '1200.0', state_recording_interval: '60.0' }
  leader:
    wallet: { max_tx_fee: 18446744073709551615, funding_pk: ${'ab'.repeat(32)} }
kms:
  backend:
    keys:
      ${'11'.repeat(32)}: !Zk ${'22'.repeat(32)}
      ${'33'.repeat(32)}: !Ed25519 ${'44'.repeat(32)}
wallet:
  known_keys:
    ${'11'.repeat(32)}: ${'55'.repeat(32)}
network:
  backend: { initial_peers: [] }
tracing:
  level: debug
`);
    assert.equal(c.api.backend.listen_address, '0.0.0.0:18080');
    assert.equal(c.api.backend.timeout, 60);
    assert.equal(c.cryptarchia.service.bootstrap.prolonged_bootstrap_period, 3600);
    assert.equal(c.cryptarchia.service.bootstrap.force_bootstrap, true);
    assert.equal(c.cryptarchia.leader.wallet.max_tx_fee, 18446744073709551615n);
    assert.deepEqual(c.kms.backend.keys['11'.repeat(32)], { kind: 'Zk', secret: '22'.repeat(32) });
    assert.deepEqual(c.kms.backend.keys['33'.repeat(32)], { kind: 'Ed25519', secret: '44'.repeat(32) });
    assert.equal(c.wallet.known_keys['11'.repeat(32)], '55'.repeat(32));
    assert.equal(c.tracing.level, 'DEBUG');
  });

  test('unknown keys and bad values are errors naming the key', () => {
    const cases: [string, RegExp][] = [
      ['apii: {}', /^apii: unknown key/],
      ['api: { backend: { listen: x } }', /^api\.backend\.listen: unknown key/],
      ['api: { backend: { listen_address: nope } }', /^api\.backend\.listen_address: expected host:port/],
      ['api: { backend: { timeout: -1 } }', /^api\.backend\.timeout: expected a duration/],
      [
        'cryptarchia: { service: { bootstrap: { force_bootstrap: maybe } } }',
        /force_bootstrap: expected true or false/,
      ],
      ['wallet: { known_keys: { abc: def } }', /^wallet\.known_keys\.abc: expected 64 hex characters/],
      [`kms: { backend: { keys: { ${'11'.repeat(32)}: plain } } }`, /expected !Zk <hex> or !Ed25519 <hex>/],
      ['tracing: { level: LOUD }', /^tracing\.level/],
      ['network: 5', /^network: expected a mapping/],
      ['network: { backend: { swarm: { prot: 3000 } } }', /^network\.backend\.swarm\.prot: unknown key/],
      ['pow: { mining: { max_threads: 2 }, autoclaim: {} }', /^pow\.autoclaim: unknown key/],
      ['[1, 2]', /expected a mapping/],
      ['a: [', /not valid YAML/],
    ];
    for (const [text, re] of cases) {
      assert.throws(
        () => parseUserConfig(text),
        (e: unknown) => e instanceof ConfigError && re.test(e.message),
        String(re),
      );
    }
  });
});

describe('slot clock', () => {
  test('slots from the genesis time and the slot duration', () => {
    let now = 10_000;
    const c = new SlotClock(10_000, 2000, () => now);
    assert.equal(c.currentSlot(), 0n);
    now = 13_999;
    assert.equal(c.currentSlot(), 1n);
    assert.equal(c.slotStartMs(5n), 20_000);
    assert.equal(c.msUntil(5n), 6001);
    now = 9000;
    assert.equal(c.currentSlot(), 0n);
    assert.equal(c.beforeGenesis(), true);
  });
});
