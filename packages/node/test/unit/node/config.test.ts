import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SlotClock } from '../../../src/chain/clock.ts';
import { ConfigError, DEFAULT_CONFIG, parseUserConfig } from '../../../src/node/config.ts';

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
      [
        'pow: { auto_claim: { tick: { unit: slots, value: 0 } } }',
        /^pow\.auto_claim\.tick\.value: must be greater than 0/,
      ],
      [
        `pow: { auto_claim: { targets: [{ public_key: '${'22'.repeat(31)}00', threshold: 5 }] } }`,
        /^PoW auto-claim targets are not tracked by the wallet \(add them to `wallet\.known_keys`\): \[2{62}00\]$/,
      ],
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

describe('user_config.yaml: addresses and the sections read later', () => {
  const refused = (text: string, re: RegExp) =>
    assert.throws(
      () => parseUserConfig(text),
      (e: unknown) => e instanceof ConfigError && re.test(e.message),
      `${text} → ${re}`,
    );

  test('a bad port or host of a listen address is an error naming the key', () => {
    refused('api: { backend: { listen_address: 127.0.0.1:70000 } }', /^api\.backend\.listen_address: .*port/);
    refused('api: { backend: { listen_address: "bad host:80" } }', /^api\.backend\.listen_address/);
    refused('api: { backend: { listen_address: 999.1.1.1:80 } }', /^api\.backend\.listen_address/);
    refused('api: { backend: { listen_address: "[::zz]:80" } }', /^api\.backend\.listen_address/);
    for (const ok of ['0.0.0.0:18080', 'localhost:8080', '[::1]:8080', 'node-1.example.org:0']) {
      assert.equal(
        parseUserConfig(`api: { backend: { listen_address: "${ok}" } }`).api.backend.listen_address,
        ok,
      );
    }
  });

  test('network, Blend and time addresses are checked although their services do not run yet', () => {
    refused('network: { backend: { swarm: { port: 99999 } } }', /^network\.backend\.swarm\.port: /);
    refused('network: { backend: { swarm: { host: "not a host" } } }', /^network\.backend\.swarm\.host: /);
    refused(
      'network: { backend: { initial_peers: [/ip4/1.2.3.4/tcp/x] } }',
      /^network\.backend\.initial_peers\[0\]: .*multiaddr/,
    );
    refused('network: { backend: { initial_peers: "x" } }', /^network\.backend\.initial_peers: /);
    refused(
      'blend: { core: { backend: { listening_address: 0.0.0.0:3400 } } }',
      /^blend\.core\.backend\.listening_address: /,
    );
    refused(
      'cryptarchia: { network: { bootstrap: { ibd: { peers: [/ip9/1] } } } }',
      /^cryptarchia\.network\.bootstrap\.ibd\.peers\[0\]/,
    );
    refused('time: { backend: { server: "pool.ntp.org" } }', /^time\.backend\.server: /);
    refused(
      'time: { backend: { client: { listening_interface: "x y" } } }',
      /^time\.backend\.client\.listening_interface: /,
    );
    const c = parseUserConfig(`
network:
  backend:
    swarm: { host: 0.0.0.0, port: 3000 }
    initial_peers: [/ip4/65.109.51.37/udp/3000/quic-v1/p2p/12D3KooWL7a8LBbLRYnabptHPFBCmAs49Y7cVMqvzuSdd43tAJk8, /dns4/node.example.org/tcp/3000]
blend: { core: { backend: { listening_address: /ip4/0.0.0.0/udp/3400/quic-v1 } } }
time: { backend: { server: pool.ntp.org:123, client: { timeout: '5.0', listening_interface: 0.0.0.0 } } }
`);
    // The network section is read (src/network/config.ts); the others are only checked.
    assert.equal(c.network.backend.initial_peers.length, 2);
    assert.deepEqual({ ...c, network: DEFAULT_CONFIG.network }, DEFAULT_CONFIG);
  });

  test('unknown keys under cryptarchia.network, cryptarchia.service.sync and tracing are refused', () => {
    refused('cryptarchia: { network: { bootstrp: {} } }', /^cryptarchia\.network\.bootstrp: unknown key/);
    refused(
      'cryptarchia: { network: { sync: { tip_pol: {} } } }',
      /^cryptarchia\.network\.sync\.tip_pol: unknown key/,
    );
    refused(
      'cryptarchia: { service: { sync: { block_provder: {} } } }',
      /^cryptarchia\.service\.sync\.block_provder: unknown key/,
    );
    refused(
      'cryptarchia: { service: { sync: { block_provider: { batch: 1 } } } }',
      /^cryptarchia\.service\.sync\.block_provider\.batch: unknown key/,
    );
    refused('tracing: { logger: { stdot: true } }', /^tracing\.logger\.stdot: unknown key/);
    refused('tracing: { levle: INFO }', /^tracing\.levle: unknown key/);
    // The reference's full layout of these sections loads.
    const c = parseUserConfig(`
cryptarchia:
  service:
    sync: { block_provider: { batch_size: 1000 } }
  network:
    bootstrap: { ibd: { peers: [], delay_before_new_download: { secs: 10, nanos: 0 }, tips_fetch_max_attempts: 3 } }
    sync: { orphan: { max_orphan_cache_size: 1000 }, tip_poll: { enabled: true, lag_threshold_blocks: 3, max_peers_to_sample: 5 } }
tracing:
  logger: { file: null, loki: null, gelf: null, otlp: null, stdout: true, stderr: false }
  tracing: None
  filter: !Env { filters: { '*': WARN } }
  metrics: None
  console: None
  level: INFO
`);
    assert.equal(c.tracing.level, 'INFO');
  });

  test('a YAML syntax error names the line and column and never quotes the text (it may hold secrets)', () => {
    const id = '11'.repeat(32);
    const secret = 'a5'.repeat(32);
    const cases = [
      `kms:\n  backend:\n    keys:\n      ${id}: !Zk "${secret}\n`,
      `kms:\n  backend:\n    keys:\n      ${id}: !Zk ${secret}\n     bad: [${secret}\n`,
      `kms: { backend: { keys: { ${id}: !Zk ${secret} } }\n`,
      `kms:\n  backend:\n    keys:\n      ${id}: !Zkk ${secret}\n      ${id}: !Zk ${secret}\n`,
    ];
    for (const text of cases) {
      assert.throws(
        () => parseUserConfig(text, 'node.yaml'),
        (e: unknown) =>
          e instanceof ConfigError &&
          /^node\.yaml: not valid YAML at line \d+, column \d+: /.test(e.message) &&
          !e.message.includes(secret.slice(0, 16)) &&
          !e.message.includes('\n'),
        text,
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
