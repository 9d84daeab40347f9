/**
 * The blockchain module's config calls (operator.md §2.2), in-process on temporary folders:
 * `update_user_config`, `migrate_user_config`, `migrate_user_config_0_1_2` and `participate` after
 * `generate_user_config`, with the rules and texts of the reference (F @9316763a: c-bindings
 * `api/config.rs`, node `cli/config/{update,migrate}.rs`, `cli/config/migrate_0_1_2/`,
 * `cli/participate.rs`). The c-bindings round trip `test_config_and_key_commands_roundtrip` is ported
 * with its values; the reference's keystore fixture checks which keys land where. Refusals and bad
 * input leave every file as it was; written files have mode 600.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { bytesToHex, hexToBytes } from '@logos-ts/node/codec/hex';
import {
  MIGRATE_KEYSTORE_EXISTS,
  MIGRATE_NO_OLD_CONFIG,
  MIGRATE_USER_CONFIG_EXISTS,
  NO_KEYSTORE,
  UPDATE_NO_USER_CONFIG,
} from '@logos-ts/node/config-file/config-calls';
import { leBytesToBigint } from '@logos-ts/node/crypto/field';
import { locatorFromString } from '@logos-ts/node/mantle/locator';
import { declarationId } from '@logos-ts/node/mantle/sdp';
import { parseUserConfig } from '@logos-ts/node/node/config';
import { keystoreYaml, type NewKey } from '@logos-ts/node/node/new-config';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import type { Json } from '@logos-ts/shared/json';
import type { LogosModule } from '@logos-ts/shared/module-api';
import { FIXTURE } from '@logos-ts/test-utils/keystore-fixture';
import { parseDocument } from 'yaml';
import { call, moduleIn, value } from '../utils/module.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-bc-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const FIXTURE_KEYS: NewKey[] = FIXTURE.map(([title, kind, secret, id]) => ({ title, kind, secret, id }));
const fx = (title: string) => {
  const k = FIXTURE_KEYS.find((x) => x.title === title);
  assert.ok(k, title);
  return k;
};

async function failCall(m: LogosModule, method: string, ...args: Json[]): Promise<string> {
  const r = await call(m, method, ...args);
  assert.equal(r.success, false, `${method} should fail`);
  assert.equal(r.value, null);
  assert.equal(typeof r.error, 'string');
  return r.error as string;
}

/** Every file below `d` with its content, to check that a refused call changed nothing. */
function snapshot(d: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(d, { recursive: true, withFileTypes: true }))
    if (e.isFile()) out[join(e.parentPath, e.name)] = readFileSync(join(e.parentPath, e.name), 'utf8');
  return out;
}

const mode = (p: string) => statSync(p).mode & 0o777;
const yamlOf = (p: string) => parseDocument(readFileSync(p, 'utf8'), { logLevel: 'silent' }).toJS();

async function peerIdOf(seedHex: string): Promise<string> {
  return peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', hexToBytes(seedHex))).toString();
}

/** A folder with a generated `user_config.yaml` and `keystore.yaml`. */
async function generated(name: string, args: Record<string, Json> = {}): Promise<[string, LogosModule]> {
  const cwd = mkdtempSync(join(dir, `${name}-`));
  const m = await moduleIn(cwd);
  await value(m, 'generate_user_config', JSON.stringify({ output: 'user_config.yaml', ...args }));
  return [cwd, m];
}

/** The key entries the config's KMS and wallet hold (ids → secret, ids → id). */
function keysOfConfig(path: string): { kms: Record<string, string>; known: Record<string, string> } {
  const c = parseUserConfig(readFileSync(path, 'utf8'), path);
  const kms: Record<string, string> = {};
  for (const [id, k] of Object.entries(c.kms.backend.keys)) kms[id] = `${k.kind}:${k.secret}`;
  const known: Record<string, string> = {};
  for (const [id, pk] of Object.entries(c.wallet.known_keys)) known[id] = String(pk);
  return { kms, known };
}

describe('blockchain module: config calls', () => {
  test('test_config_and_key_commands_roundtrip (c-bindings config.rs)', async () => {
    const cwd = mkdtempSync(join(dir, 'roundtrip-'));
    const m = await moduleIn(cwd);
    const args = JSON.stringify({
      output: join(cwd, 'user_config.yaml'),
      kms_file: join(cwd, 'keystore.yaml'),
    });
    await value(m, 'generate_user_config', args);
    assert.ok(existsSync(join(cwd, 'user_config.yaml')));
    assert.ok(existsSync(join(cwd, 'keystore.yaml')));
    const cfg = join(cwd, 'user_config.yaml');
    const ks = join(cwd, 'keystore.yaml');

    assert.equal(await value(m, 'update_user_config', cfg, ks), null);
    const keyId = await value(m, 'generate_key', cfg, ks, 'zk', 'GeneratedKey');
    assert.notEqual(keyId, '');
    await value(m, 'add_key', cfg, ks, 'ed25519', '11'.repeat(32), 'AddedKey');
    await value(m, 'remove_key', cfg, ks, 'AddedKey');
    assert.notEqual(await value(m, 'get_peer_id', cfg), '');

    const outDir = join(cwd, 'participation');
    assert.equal(await value(m, 'participate', cfg, ks, outDir, '203.0.113.7'), null);
    assert.ok(existsSync(join(outDir, 'participation_data.yaml')));

    const migrated = join(cwd, 'migrated_config.yaml');
    assert.equal(await value(m, 'migrate_user_config', migrated, ks), null);
    assert.ok(existsSync(migrated));
  });

  test('update_user_config puts the keystore keys in the config and keeps every other value', async () => {
    const peer = await peerIdOf(fx('NetworkSwarm').secret);
    const [cwd, m] = await generated('update', {
      net_port: 3456,
      initial_peers: [`/ip4/10.0.0.1/udp/3000/quic-v1/p2p/${peer}`],
    });
    const cfg = join(cwd, 'user_config.yaml');
    writeFileSync(cfg, `${readFileSync(cfg, 'utf8')}# kept comment\n`);
    writeFileSync(join(cwd, 'keystore.yaml'), keystoreYaml(FIXTURE_KEYS), { mode: 0o600 });
    const keystoreBefore = readFileSync(join(cwd, 'keystore.yaml'), 'utf8');

    await value(m, 'update_user_config', 'user_config.yaml', 'keystore.yaml');
    assert.equal(mode(cfg), 0o600);
    assert.equal(readFileSync(join(cwd, 'keystore.yaml'), 'utf8'), keystoreBefore, 'keystore untouched');
    const text = readFileSync(cfg, 'utf8');
    assert.match(text, /# kept comment/);
    const c = parseUserConfig(text, cfg);
    assert.equal(bytesToHex(c.network.backend.swarm.node_key!), fx('NetworkSwarm').secret);
    assert.equal(await value(m, 'get_peer_id', 'user_config.yaml'), peer);
    assert.equal(c.blend.non_ephemeral_signing_key_id, fx('BlendSigning').id);
    assert.equal(c.blend.core_zk_secret_key_kms_id, fx('BlendZk').id);
    assert.equal(c.wallet.voucher_master_key_id, fx('VaucherMaster').id);
    const raw = yamlOf(cfg) as {
      cryptarchia: {
        leader: { wallet: { funding_pk: string } };
        network: { bootstrap: { ibd: { peers: string[] } } };
      };
      sdp: { wallet: { funding_pk: string } };
    };
    assert.equal(raw.cryptarchia.leader.wallet.funding_pk, fx('LeaderFunding').id);
    assert.equal(raw.sdp.wallet.funding_pk, fx('SdpFunding').id);
    // The old keys are gone: the key store and the known keys are the keystore's, whole.
    const { kms, known } = keysOfConfig(cfg);
    assert.deepEqual(kms, Object.fromEntries(FIXTURE_KEYS.map((k) => [k.id, `${k.kind}:${k.secret}`])));
    assert.deepEqual(
      Object.keys(known).sort(),
      FIXTURE_KEYS.filter((k) => k.kind === 'Zk')
        .map((k) => k.id)
        .sort(),
    );
    // Kept: port, initial peers, IBD peers.
    assert.equal(c.network.backend.swarm.port, 3456);
    assert.deepEqual(c.network.backend.initial_peers, [`/ip4/10.0.0.1/udp/3000/quic-v1/p2p/${peer}`]);
    assert.deepEqual(raw.cryptarchia.network.bootstrap.ibd.peers, [peer]);
  });

  test('update_user_config refuses missing files, an incomplete keystore and a bad config, changing nothing', async () => {
    const [cwd, m] = await generated('update-bad');
    const before = snapshot(cwd);
    assert.equal(
      await failCall(m, 'update_user_config', 'missing.yaml', 'keystore.yaml'),
      `Error updating config: ${UPDATE_NO_USER_CONFIG}`,
    );
    assert.equal(
      await failCall(m, 'update_user_config', 'user_config.yaml', 'missing.yaml'),
      `Error updating config: ${NO_KEYSTORE}`,
    );
    assert.equal(
      await failCall(m, 'update_user_config', '', 'keystore.yaml'),
      `Error updating config: ${UPDATE_NO_USER_CONFIG}`,
    );
    assert.deepEqual(snapshot(cwd), before);

    const partial = FIXTURE_KEYS.filter((k) => k.title !== 'LeaderFunding');
    writeFileSync(join(cwd, 'partial.yaml'), keystoreYaml(partial));
    assert.equal(
      await failCall(m, 'update_user_config', 'user_config.yaml', 'partial.yaml'),
      `Error updating config: Key for title 'KeyTitle("LeaderFunding")' not found in keystore`,
    );
    const swapped = FIXTURE_KEYS.map((k) =>
      k.title === 'NetworkSwarm' ? { ...fx('BlendZk'), title: 'NetworkSwarm' } : k,
    );
    writeFileSync(join(cwd, 'swapped.yaml'), keystoreYaml(swapped));
    assert.equal(
      await failCall(m, 'update_user_config', 'user_config.yaml', 'swapped.yaml'),
      `Error updating config: Ed25519 key expected for 'KeyTitle("NetworkSwarm")'`,
    );
    writeFileSync(join(cwd, 'garbage.yaml'), 'secret_keys: [unclosed\n');
    assert.match(
      await failCall(m, 'update_user_config', 'user_config.yaml', 'garbage.yaml'),
      /^Error updating config: the keystore .* is not valid YAML$/,
    );
    writeFileSync(join(cwd, 'bad_config.yaml'), 'network:\n  backend:\n    swarm:\n      port: nope\n');
    const err = await failCall(m, 'update_user_config', 'bad_config.yaml', 'keystore.yaml');
    assert.match(err, /^Error updating config: .*network\.backend\.swarm\.port/);
    const after = snapshot(cwd);
    assert.equal(after[join(cwd, 'user_config.yaml')], before[join(cwd, 'user_config.yaml')]);
    assert.equal(after[join(cwd, 'bad_config.yaml')], 'network:\n  backend:\n    swarm:\n      port: nope\n');
  });

  test('migrate_user_config writes a default config for an existing keystore, never over a config', async () => {
    const cwd = mkdtempSync(join(dir, 'migrate-'));
    const m = await moduleIn(cwd);
    writeFileSync(join(cwd, 'keystore.yaml'), keystoreYaml(FIXTURE_KEYS), { mode: 0o600 });
    const ksBefore = readFileSync(join(cwd, 'keystore.yaml'), 'utf8');
    assert.equal(
      await value(m, 'migrate_user_config', `file://${join(cwd, 'user_config.yaml')}`, 'keystore.yaml'),
      null,
    );
    const cfg = join(cwd, 'user_config.yaml');
    assert.equal(mode(cfg), 0o600);
    assert.equal(readFileSync(join(cwd, 'keystore.yaml'), 'utf8'), ksBefore);
    const c = parseUserConfig(readFileSync(cfg, 'utf8'), cfg);
    assert.equal(bytesToHex(c.network.backend.swarm.node_key!), fx('NetworkSwarm').secret);
    assert.equal(c.network.backend.swarm.port, 3000);
    assert.equal(c.api.backend.listen_address, '127.0.0.1:8080');
    assert.equal(c.blend.non_ephemeral_signing_key_id, fx('BlendSigning').id);
    assert.equal(Object.keys(keysOfConfig(cfg).kms).length, 7);
    assert.equal(Object.keys(keysOfConfig(cfg).known).length, 5);

    const before = snapshot(cwd);
    assert.equal(
      await failCall(m, 'migrate_user_config', 'user_config.yaml', 'keystore.yaml'),
      `Error migrating config: ${MIGRATE_USER_CONFIG_EXISTS}`,
    );
    assert.equal(
      await failCall(m, 'migrate_user_config', 'other.yaml', 'missing.yaml'),
      `Error migrating config: ${NO_KEYSTORE}`,
    );
    assert.equal(
      await failCall(m, 'migrate_user_config', '', 'keystore.yaml'),
      'Error migrating config: the output path is empty',
    );
    writeFileSync(
      join(cwd, 'partial.yaml'),
      keystoreYaml(FIXTURE_KEYS.filter((k) => k.title !== 'VaucherMaster')),
    );
    assert.equal(
      await failCall(m, 'migrate_user_config', 'other.yaml', 'partial.yaml'),
      `Error migrating config: Key for title 'KeyTitle("VaucherMaster")' not found in keystore`,
    );
    const after = snapshot(cwd);
    delete after[join(cwd, 'partial.yaml')];
    assert.deepEqual(after, before);
  });

  test('migrate_user_config_0_1_2 makes a keystore from the 0.1.2 config keys and a new config', async () => {
    const cwd = mkdtempSync(join(dir, 'migrate012-'));
    const m = await moduleIn(cwd);
    const extra = '2222222222222222222222222222222222222222222222222222222222222222';
    const kmsLines = FIXTURE_KEYS.filter((k) => k.title !== 'NetworkSwarm' && k.title !== 'Stake').map(
      (k) => `      '${k.id}': !${k.kind} ${k.secret}`,
    );
    const old = [
      'network:',
      '  backend:',
      '    swarm:',
      `      node_key: ${fx('NetworkSwarm').secret}`,
      'blend:',
      `  non_ephemeral_signing_key_id: ${fx('BlendSigning').id}`,
      '  core:',
      '    zk:',
      `      secret_key_kms_id: ${fx('BlendZk').id}`,
      'cryptarchia:',
      '  leader:',
      '    wallet:',
      `      funding_pk: ${fx('LeaderFunding').id}`,
      'sdp:',
      '  wallet:',
      `    funding_pk: ${fx('SdpFunding').id}`,
      'kms:',
      '  backend:',
      '    keys:',
      ...kmsLines,
      `      '${extra}': !Zk ${'01'.repeat(32)}`,
      'wallet:',
      `  voucher_master_key_id: ${fx('VaucherMaster').id}`,
      '',
    ].join('\n');
    writeFileSync(join(cwd, 'user_config.yaml'), old);

    assert.equal(
      await value(
        m,
        'migrate_user_config_0_1_2',
        'user_config_new.yaml',
        'user_config.yaml',
        'keystore.yaml',
      ),
      null,
    );
    const ksPath = join(cwd, 'keystore.yaml');
    const cfgPath = join(cwd, 'user_config_new.yaml');
    assert.equal(mode(ksPath), 0o600);
    assert.equal(mode(cfgPath), 0o600);
    assert.equal(readFileSync(join(cwd, 'user_config.yaml'), 'utf8'), old, 'old config untouched');
    const ks = yamlOf(ksPath) as { public_keys: Record<string, string>; WARNING: string };
    assert.equal(ks.WARNING, 'Do not share your secret keys');
    for (const t of [
      'NetworkSwarm',
      'BlendSigning',
      'BlendZk',
      'LeaderFunding',
      'SdpFunding',
      'VaucherMaster',
    ])
      assert.equal(ks.public_keys[t], fx(t).id, t);
    // Stake is not in a 0.1.2 config: a fresh key; the unnamed extra KMS key is not carried over.
    assert.ok(/^[0-9a-f]{64}$/.test(ks.public_keys.Stake!));
    assert.notEqual(ks.public_keys.Stake, fx('Stake').id);
    assert.equal(Object.keys(ks.public_keys).length, 7);
    const { kms } = keysOfConfig(cfgPath);
    assert.equal(kms[extra], undefined);
    assert.equal(kms[fx('BlendZk').id], `Zk:${fx('BlendZk').secret}`);
    assert.equal(
      await value(m, 'get_peer_id', 'user_config_new.yaml'),
      await peerIdOf(fx('NetworkSwarm').secret),
    );

    const before = snapshot(cwd);
    assert.equal(
      await failCall(m, 'migrate_user_config_0_1_2', 'user_config_new.yaml', 'user_config.yaml', 'k2.yaml'),
      `Error migrating config: ${MIGRATE_USER_CONFIG_EXISTS}`,
    );
    assert.equal(
      await failCall(m, 'migrate_user_config_0_1_2', 'n2.yaml', 'missing.yaml', 'k2.yaml'),
      `Error migrating config: ${MIGRATE_NO_OLD_CONFIG}`,
    );
    assert.equal(
      await failCall(m, 'migrate_user_config_0_1_2', 'n2.yaml', 'user_config.yaml', 'keystore.yaml'),
      `Error migrating config: ${MIGRATE_KEYSTORE_EXISTS}`,
    );
    writeFileSync(join(cwd, 'no_key.yaml'), old.replace(/ {6}node_key: .*\n/, ''));
    writeFileSync(join(cwd, 'bad_key.yaml'), old.replace(/node_key: .*\n/, 'node_key: abc\n'));
    assert.equal(
      await failCall(m, 'migrate_user_config_0_1_2', 'n2.yaml', 'no_key.yaml', 'k2.yaml'),
      'Error migrating config: network.backend.swarm: missing field `node_key`',
    );
    assert.match(
      await failCall(m, 'migrate_user_config_0_1_2', 'n2.yaml', 'bad_key.yaml', 'k2.yaml'),
      /^Error migrating config: network\.backend\.swarm\.node_key: Failed to parse hex string/,
    );
    const after = snapshot(cwd);
    delete after[join(cwd, 'no_key.yaml')];
    delete after[join(cwd, 'bad_key.yaml')];
    assert.deepEqual(after, before);
  });

  test('participate writes the stakeholder identities and the Blend declaration of the node', async () => {
    const cwd = mkdtempSync(join(dir, 'participate-'));
    const m = await moduleIn(cwd);
    writeFileSync(join(cwd, 'keystore.yaml'), keystoreYaml(FIXTURE_KEYS));
    await value(m, 'migrate_user_config', 'user_config.yaml', 'keystore.yaml');
    await value(m, 'participate', 'user_config.yaml', 'keystore.yaml', 'out', '203.0.113.7');
    const file = join(cwd, 'out', 'participation_data.yaml');
    assert.equal(mode(file), 0o600);
    const locator = '/ip4/203.0.113.7/udp/3400/quic-v1';
    const id = declarationId({
      provider_id: hexToBytes(fx('BlendSigning').id),
      zk_id: leBytesToBigint(hexToBytes(fx('BlendZk').id)),
      locators: [locatorFromString(locator)],
    });
    assert.deepEqual(yamlOf(file), {
      stakeholder_identities: [fx('Stake').id, fx('LeaderFunding').id, fx('SdpFunding').id, fx('BlendZk').id],
      blend: {
        provider_id: fx('BlendSigning').id,
        zk_id: fx('BlendZk').id,
        locators: [locator],
        service_type: 'BN',
        declaration_id: bytesToHex(id),
      },
    });
    // Overwritten by a later call (the reference does not refuse it); "" = the working directory.
    await value(m, 'participate', 'user_config.yaml', 'keystore.yaml', 'out', '198.51.100.1');
    assert.deepEqual((yamlOf(file) as { blend: { locators: string[] } }).blend.locators, [
      '/ip4/198.51.100.1/udp/3400/quic-v1',
    ]);
    await value(m, 'participate', 'user_config.yaml', 'keystore.yaml', '', '198.51.100.1');
    assert.ok(existsSync(join(cwd, 'participation_data.yaml')));
  });

  test('participate: locator from a static NAT address, no Blend key, and refusals', async () => {
    const [cwd, m] = await generated('participate-nat', {
      external_address: '/ip4/192.0.2.9/udp/3000/quic-v1',
    });
    await value(m, 'participate', 'user_config.yaml', 'keystore.yaml', 'out', '');
    const data = yamlOf(join(cwd, 'out', 'participation_data.yaml')) as { blend: { locators: string[] } };
    assert.deepEqual(data.blend.locators, ['/ip4/192.0.2.9/udp/3400/quic-v1']);

    const [cwd2, m2] = await generated('participate-bad');
    const before = snapshot(cwd2);
    assert.equal(
      await failCall(m2, 'participate', 'user_config.yaml', 'keystore.yaml', 'out', ''),
      'Error generating participation data: Blend listening address is /ip4/0.0.0.0/udp/3400/quic-v1 ' +
        '(unspecified host). Set a static external address in the network NAT config or provide ' +
        "--external-address with the node's public IPv4 address.",
    );
    for (const bad of ['1.2.3', '256.1.1.1', '01.2.3.4', 'example.org', '::1'])
      assert.equal(
        await failCall(m2, 'participate', 'user_config.yaml', 'keystore.yaml', 'out', bad),
        `Invalid external address '${bad}': invalid IPv4 address syntax`,
      );
    assert.match(
      await failCall(m2, 'participate', 'missing.yaml', 'keystore.yaml', 'out', '203.0.113.7'),
      /^Error generating participation data: cannot read the config file .*missing\.yaml/,
    );
    writeFileSync(join(cwd2, 'partial.yaml'), keystoreYaml(FIXTURE_KEYS.filter((k) => k.title !== 'Stake')));
    assert.equal(
      await failCall(m2, 'participate', 'user_config.yaml', 'partial.yaml', 'out', '203.0.113.7'),
      `Error generating participation data: Key for title 'KeyTitle("Stake")' not found in keystore`,
    );
    const after = snapshot(cwd2);
    delete after[join(cwd2, 'partial.yaml')];
    assert.deepEqual(after, before);

    // A config whose Blend signing key is not in its key store: identities only, no Blend data.
    const cfg = join(cwd2, 'user_config.yaml');
    const text = readFileSync(cfg, 'utf8').replace(
      /non_ephemeral_signing_key_id: '[0-9a-f]+'/,
      `non_ephemeral_signing_key_id: '${'ab'.repeat(32)}'`,
    );
    writeFileSync(join(cwd2, 'no_blend.yaml'), text);
    await value(m2, 'participate', 'no_blend.yaml', 'keystore.yaml', 'out', '');
    const only = yamlOf(join(cwd2, 'out', 'participation_data.yaml')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(only), ['stakeholder_identities']);
    assert.equal((only.stakeholder_identities as string[]).length, 3);
  });
  test('files are written mode 600 through a temporary file: replaced whole, or never over one with exclusive', () => {
    const d = mkdtempSync(join(dir, 'files-'));
    const p = join(d, 'sub', 'f.yaml');
    writeFileAtomic(p, 'one\n', true);
    assert.equal(mode(p), 0o600);
    assert.throws(() => writeFileAtomic(p, 'two\n', true), /exists/);
    assert.equal(readFileSync(p, 'utf8'), 'one\n');
    writeFileSync(p, 'old\n');
    chmodSync(p, 0o644);
    writeFileAtomic(p, 'three\n', false);
    assert.equal(readFileSync(p, 'utf8'), 'three\n');
    assert.equal(mode(p), 0o600);
    assert.deepEqual(readdirSync(join(d, 'sub')), ['f.yaml'], 'no temporary file left');
  });
});
