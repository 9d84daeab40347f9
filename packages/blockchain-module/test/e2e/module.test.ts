/**
 * The control tool's blockchain module, called in-process through its factory on a temporary working
 * directory (operator.md §2.2, §2.3): `generate_user_config` writes both files with mode 600 and keys
 * derived as the reference's init, refuses to overwrite them with its exact messages; the keystore
 * fixture of §2.3 checks the key derivation; key calls keep keystore and config in step; node-backed
 * calls answer "The node is not running." before `start` and after `stop`; a devnet node started from
 * a generated config answers `get_cryptarchia_info`, `wallet_get_notes`, `blend_join_as_core_node` in
 * the reference's shapes and emits `newBlock`; bad arguments get the reference's messages.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { NOT_RUNNING } from '@logos-ts/blockchain-module';
import { hexToBytes } from '@logos-ts/node/codec/hex';
import { keyFromSecret } from '@logos-ts/node/config-file/keys';
import { parseUserConfig } from '@logos-ts/node/node/config';
import { fundedDevnetKeys } from '@logos-ts/node/node/devnet';
import type { Json } from '@logos-ts/shared/json';
import type { LogosModule } from '@logos-ts/shared/module-api';
import { FIXTURE } from '@logos-ts/test-utils/keystore-fixture';
import { useLoopbackAndFundedKey } from '@logos-ts/test-utils/node-config';
import { parseDocument, parse as parseYaml } from 'yaml';
import { call, moduleIn, value } from '../utils/module.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-bcmod-'));
/** The genesis header id of packages/node/deployments/testnet.yaml (its test/spec/testnet-deployment.test.ts). */
const TESTNET_GENESIS_ID = '5ce0d8e56d092c31bd9bceebed47050cecc38a37f498bbc421faf368ad25b460';
after(() => rmSync(dir, { recursive: true, force: true }));

async function peerId(seedHex: string): Promise<string> {
  return peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', hexToBytes(seedHex))).toString();
}

describe('blockchain module: configuration and keys', () => {
  test('the keystore fixture pairs of the reference derive as the module derives keys', () => {
    for (const [title, kind, secret, pk] of FIXTURE)
      assert.equal(keyFromSecret(kind, title, secret).id, pk, title);
  });

  test('generate_user_config writes both files (mode 600, 7 keys, 5 known), then refuses with the exact texts', async () => {
    const cwd = mkdtempSync(join(dir, 'gen-'));
    const m = await moduleIn(cwd);
    const peer = await peerId(FIXTURE[1]![2]);
    const args = JSON.stringify({ initial_peers: [`/ip4/10.0.0.1/udp/3000/quic-v1/p2p/${peer}`] });
    assert.equal(await value(m, 'generate_user_config', args), '');
    const cfgPath = join(cwd, 'user_config.yaml');
    const ksPath = join(cwd, 'keystore.yaml');
    assert.equal(statSync(cfgPath).mode & 0o777, 0o600);
    assert.equal(statSync(ksPath).mode & 0o777, 0o600);

    const cfg = parseUserConfig(readFileSync(cfgPath, 'utf8'));
    const ks = parseDocument(readFileSync(ksPath, 'utf8'), { logLevel: 'silent' }).toJS() as {
      public_keys: Record<string, string>;
      secret_keys: Record<string, string>;
      WARNING: string;
    };
    assert.equal(ks.WARNING, 'Do not share your secret keys');
    const titles = [
      'BlendZk',
      'LeaderFunding',
      'SdpFunding',
      'VaucherMaster',
      'Stake',
      'BlendSigning',
      'NetworkSwarm',
    ];
    assert.deepEqual(Object.keys(ks.public_keys).sort(), [...titles].sort());
    // Every id is the public key of its secret, and the config's key store holds the same pairs.
    const raw = readFileSync(ksPath, 'utf8');
    for (const t of titles) {
      const kind = new RegExp(`^  ${t}: !Zk`, 'm').test(raw) ? 'Zk' : 'Ed25519';
      assert.equal(kind, t === 'BlendSigning' || t === 'NetworkSwarm' ? 'Ed25519' : 'Zk', t);
      const secret = ks.secret_keys[t]!;
      assert.equal(keyFromSecret(kind, t, secret).id, ks.public_keys[t], t);
      assert.deepEqual(cfg.kms.backend.keys[ks.public_keys[t]!], { kind, secret });
    }
    const zkIds = titles.slice(0, 5).map((t) => ks.public_keys[t]!);
    assert.deepEqual(Object.keys(cfg.wallet.known_keys).sort(), [...zkIds].sort());
    for (const [id, pk] of Object.entries(cfg.wallet.known_keys)) assert.equal(id, pk);
    assert.equal(cfg.wallet.voucher_master_key_id, ks.public_keys.VaucherMaster);
    assert.equal(cfg.cryptarchia.leader.wallet.funding_pk, ks.public_keys.LeaderFunding);
    assert.equal(cfg.sdp.wallet.funding_pk, ks.public_keys.SdpFunding);
    assert.equal(cfg.blend.non_ephemeral_signing_key_id, ks.public_keys.BlendSigning);
    assert.equal(cfg.network.backend.initial_peers.length, 1);
    const y = parseYaml(readFileSync(cfgPath, 'utf8'), { logLevel: 'silent' }) as {
      cryptarchia: { network: { bootstrap: { ibd: { peers: string[] } } } };
    };
    assert.deepEqual(y.cryptarchia.network.bootstrap.ibd.peers, [peer]);
    // get_peer_id: the swarm key's libp2p id.
    assert.equal(
      await value(m, 'get_peer_id', 'user_config.yaml'),
      await peerId(ks.secret_keys.NetworkSwarm!),
    );

    const before = readFileSync(cfgPath, 'utf8');
    assert.deepEqual(await call(m, 'generate_user_config', args), {
      success: false,
      value: null,
      error: 'User configuration file exists. Use `update` command.',
    });
    unlinkSync(cfgPath);
    assert.deepEqual(await call(m, 'generate_user_config', '{}'), {
      success: false,
      value: null,
      error: 'Keystore file exists. Use `update` command.',
    });
    // An explicit output path is returned, its keystore written beside it.
    assert.equal(await value(m, 'generate_user_config', '{"output":"sub/node.yaml"}'), 'sub/node.yaml');
    assert.equal(statSync(join(cwd, 'sub', 'keystore.yaml')).mode & 0o777, 0o600);
    assert.notEqual(readFileSync(join(cwd, 'sub', 'node.yaml'), 'utf8'), before);
    await m.close();
  });

  test('use_persistence_paths puts the config, state, db and logs under the module data folder', async () => {
    const cwd = mkdtempSync(join(dir, 'persist-'));
    const m = await moduleIn(cwd);
    const out = (await value(m, 'generate_user_config', '{"use_persistence_paths":true}')) as string;
    assert.equal(out, join(cwd, 'data', 'user_config.yaml'));
    const cfg = parseUserConfig(readFileSync(out, 'utf8'));
    assert.equal(cfg.state.base_folder, join(cwd, 'data', 'state'));
    assert.equal(statSync(join(cwd, 'data', 'keystore.yaml')).mode & 0o777, 0o600);
  });

  test('bad generate_user_config arguments get the reference message', async () => {
    const cwd = mkdtempSync(join(dir, 'bad-'));
    const m = await moduleIn(cwd);
    const r = await call(m, 'generate_user_config', '{"initial_peers": [');
    assert.equal(r.success, false);
    assert.match(r.error!, /^Failed to parse JSON args: /);
    assert.match(
      (await call(m, 'generate_user_config', '{"net_port":"x"}')).error!,
      /^Failed to parse JSON args: net_port/,
    );
    assert.match(
      (await call(m, 'generate_user_config', '{"initial_peers":["nonsense"]}')).error!,
      /initial_peers\[0\]/,
    );
  });

  test('add_key, generate_key and remove_key keep keystore and config in step', async () => {
    const cwd = mkdtempSync(join(dir, 'keys-'));
    const m = await moduleIn(cwd);
    await value(m, 'generate_user_config', '{}');
    const [, , secret, pk] = FIXTURE[2]!;
    assert.equal(await value(m, 'add_key', 'user_config.yaml', 'keystore.yaml', 'zk', secret, 'Extra'), pk);
    const id = (await value(
      m,
      'generate_key',
      'user_config.yaml',
      'keystore.yaml',
      'ed25519',
      'Other',
    )) as string;
    assert.match(id, /^[0-9a-f]{64}$/);
    let cfg = parseUserConfig(readFileSync(join(cwd, 'user_config.yaml'), 'utf8'));
    assert.deepEqual(cfg.kms.backend.keys[pk], { kind: 'Zk', secret });
    assert.equal(cfg.kms.backend.keys[id]?.kind, 'Ed25519');
    assert.equal(statSync(join(cwd, 'keystore.yaml')).mode & 0o777, 0o600);
    await value(m, 'remove_key', 'user_config.yaml', 'keystore.yaml', 'Extra');
    cfg = parseUserConfig(readFileSync(join(cwd, 'user_config.yaml'), 'utf8'));
    assert.equal(cfg.kms.backend.keys[pk], undefined);
    assert.ok(!readFileSync(join(cwd, 'keystore.yaml'), 'utf8').includes('Extra'));
    assert.equal(
      (await call(m, 'generate_key', 'user_config.yaml', 'keystore.yaml', 'rsa', 'X')).error,
      'Invalid key_type (expected "ed25519" or "zk").',
    );
  });
});

const NODE_METHODS: [string, Json[]][] = [
  ['stop', []],
  ['get_cryptarchia_info', []],
  ['wallet_get_balance', ['00'.repeat(32)]],
  ['wallet_get_known_addresses', []],
  ['wallet_get_notes', ['00'.repeat(32), '']],
  ['wallet_transfer_funds', ['00'.repeat(32), ['00'.repeat(32)], '00'.repeat(32), '1', '']],
  ['leader_claim', []],
  ['wallet_get_claimable_vouchers', []],
  ['blend_join_as_core_node', ['/ip4/127.0.0.1/udp/1/quic-v1', '00'.repeat(32)]],
  ['get_block', ['00'.repeat(32)]],
  ['get_blocks', [0, 10]],
  ['get_transaction', ['00'.repeat(32)]],
];

async function assertNotRunning(m: LogosModule): Promise<void> {
  for (const [method, args] of NODE_METHODS)
    assert.deepEqual(
      await call(m, method, ...args),
      { success: false, value: null, error: NOT_RUNNING },
      method,
    );
}

describe('blockchain module: a devnet node', () => {
  test('not running before start; start, chain info, notes, Blend join, newBlock; not running after stop', async () => {
    const cwd = mkdtempSync(join(dir, 'node-'));
    const events: { event: string; payload: Json }[] = [];
    const m = await moduleIn(cwd, events);
    await assertNotRunning(m);
    assert.equal(
      (await call(m, 'start', '', '')).error,
      'Config path was not specified and LB_CONFIG_PATH is not set.',
    );

    await value(
      m,
      'generate_user_config',
      JSON.stringify({ net_port: 0, blend_port: 0, http_addr: '127.0.0.1:0', skip_ibd: true }),
    );
    // The test node: on the loopback, a short bootstrap period, and a funded devnet key in its wallet
    // (it pays the SDP fee and its note is the one Blend locks).
    const funded = fundedDevnetKeys()[0]!;
    const path = join(cwd, 'user_config.yaml');
    useLoopbackAndFundedKey(path, funded, '/ip4/127.0.0.1/udp/0/quic-v1', (doc) =>
      doc.setIn(['cryptarchia', 'service', 'bootstrap', 'prolonged_bootstrap_period'], 1),
    );

    // LB_CONFIG_PATH stands in for an empty path; an unknown deployment is refused before the node starts.
    process.env.LB_CONFIG_PATH = join(cwd, 'missing.yaml');
    try {
      assert.match(
        (await call(m, 'start', '', '')).error!,
        /cannot read the config file .*missing\.yaml: no such file/,
      );
    } finally {
      delete process.env.LB_CONFIG_PATH;
    }
    assert.match(
      (await call(m, 'start', 'user_config.yaml', 'mainnet')).error!,
      /there is no mainnet deployment/,
    );
    await assertNotRunning(m);

    // The devnet by name: an empty deployment is the public testnet (see below).
    assert.equal(await value(m, 'start', 'user_config.yaml', 'devnet'), null);
    try {
      assert.equal(
        (await call(m, 'start', 'user_config.yaml', 'devnet')).error,
        'The node is already running.',
      );
      assert.equal(
        (await call(m, 'purge_state')).error,
        'The node is running. Stop it before purging its state.',
      );
      assert.equal(await m.methods.does_state_exist!(), true);
      const info = JSON.parse((await value(m, 'get_cryptarchia_info')) as string) as Record<string, Json>;
      assert.deepEqual(Object.keys(info), ['height', 'lib', 'mode', 'slot', 'tip']);
      assert.match(info.tip as string, /^[0-9a-f]{64}$/);
      assert.match(info.lib as string, /^[0-9a-f]{64}$/);
      assert.ok(info.mode === 'Bootstrapping' || info.mode === 'Online');
      assert.equal(typeof info.height, 'number');
      assert.equal(typeof info.slot, 'number');

      const known = (await value(m, 'wallet_get_known_addresses')) as string[];
      assert.equal(known.length, 6);
      assert.ok(known.includes(funded.publicKey));

      const notes = JSON.parse((await value(m, 'wallet_get_notes', funded.publicKey, '')) as string) as {
        notes: { id: string; value: string }[];
        tip: string;
      };
      assert.deepEqual(Object.keys(notes), ['notes', 'tip']);
      assert.ok(notes.notes.length > 0);
      for (const n of notes.notes) {
        assert.deepEqual(Object.keys(n), ['id', 'value']);
        assert.match(n.id, /^[0-9a-f]{64}$/);
        assert.match(n.value, /^[1-9]\d*$/);
      }
      const balance = (await value(m, 'wallet_get_balance', funded.publicKey)) as string;
      assert.equal(
        BigInt(balance),
        notes.notes.reduce((s, n) => s + BigInt(n.value), 0n),
      );

      // Bad arguments: the reference's texts.
      assert.equal(
        (await call(m, 'wallet_get_notes', funded.publicKey, 'ab'.repeat(32))).error,
        `Unknown block ${'ab'.repeat(32)}.`,
      );
      assert.equal(
        JSON.parse((await value(m, 'wallet_get_notes', funded.publicKey, notes.tip)) as string).tip,
        notes.tip,
      );
      assert.equal(
        (await call(m, 'wallet_get_notes', 'xyz', '')).error,
        'Invalid wallet address (64 hex characters required).',
      );
      assert.equal(
        (await call(m, 'wallet_get_balance', 12345)).error,
        'Address must be 64 hex characters (32 bytes).',
      );
      assert.equal(
        (await call(m, 'blend_join_as_core_node', '', notes.notes[0]!.id)).error,
        'Invalid locator (must not be empty).',
      );
      assert.equal(
        (await call(m, 'blend_join_as_core_node', '/ip4/127.0.0.1/udp/3400/quic-v1', 'abc')).error,
        'Invalid locked_note_id_hex (64 hex characters required).',
      );

      const declaration = await value(
        m,
        'blend_join_as_core_node',
        '/ip4/127.0.0.1/udp/3400/quic-v1',
        notes.notes[0]!.id,
      );
      assert.match(declaration as string, /^[0-9a-f]{64}$/);

      // A channel deposit of another of its notes into channel 0, the fee paid by the same key.
      const other = notes.notes[1];
      assert.ok(other, 'the funded devnet key holds two notes');
      const deposit = await value(
        m,
        'channel_deposit_with_notes',
        '00'.repeat(32),
        [other.id],
        'cafe',
        funded.publicKey,
        [funded.publicKey],
        '1000000',
        '',
      );
      assert.match(deposit as string, /^[0-9a-f]{64}$/);
      assert.equal(
        (
          await call(
            m,
            'wallet_transfer_funds',
            funded.publicKey,
            [funded.publicKey],
            funded.publicKey,
            '0',
            '',
          )
        ).error,
        'Invalid amount (a positive integer string is required).',
      );
      assert.equal(
        (await call(m, 'get_transaction', 'zz')).error,
        'Invalid transaction hash (64 hex characters required).',
      );
      assert.equal((await call(m, 'get_transaction', '00'.repeat(32))).success, false);
      assert.ok(Array.isArray(JSON.parse((await value(m, 'get_blocks', 0, 1_000_000)) as string)));

      // A transfer to another of its keys, with the amount as the client sends digits (str: or a number).
      const to = known.find((k) => k !== funded.publicKey)!;
      const tx = await value(m, 'wallet_transfer_funds', funded.publicKey, [funded.publicKey], to, 1000, '');
      assert.match(tx as string, /^[0-9a-f]{64}$/);
      const vouchers = JSON.parse((await value(m, 'wallet_get_claimable_vouchers')) as string) as Record<
        string,
        Json
      >;
      assert.deepEqual(Object.keys(vouchers), ['tip', 'vouchers']);
      assert.ok(Array.isArray(vouchers.vouchers));
      // No voucher is claimable this early: the node's message, not a value.
      const claim = await call(m, 'leader_claim');
      assert.equal(claim.success, false);
      assert.ok(claim.error !== null && claim.error.length > 0);

      // The chain's blocks come as newBlock events with the block's JSON text.
      const end = Date.now() + 90_000;
      while (!events.some((e) => e.event === 'newBlock') && Date.now() < end)
        await new Promise((r) => setTimeout(r, 200));
      const ev = events.find((e) => e.event === 'newBlock');
      assert.ok(ev, 'a newBlock event');
      const block = JSON.parse((ev.payload as { block: string }).block) as { header: { id: string } };
      assert.match(block.header.id, /^[0-9a-f]{64}$/);
      const got = JSON.parse((await value(m, 'get_block', block.header.id)) as string) as {
        header: { id: string };
      };
      assert.equal(got.header.id, block.header.id);
    } finally {
      assert.equal(await value(m, 'stop'), null);
    }
    await assertNotRunning(m);
    assert.equal(await m.methods.does_state_exist!(), true);
    assert.equal(await value(m, 'purge_state'), null);
    assert.equal(await m.methods.does_state_exist!(), false);
    await m.close();
  });
});

describe('blockchain module: an empty deployment', () => {
  test('start with "" runs the reference\'s public testnet (refused on own circuits; else its genesis is the LIB)', async () => {
    const cwd = mkdtempSync(join(dir, 'testnet-'));
    const m = await moduleIn(cwd);
    await value(
      m,
      'generate_user_config',
      JSON.stringify({ net_port: 0, blend_port: 0, http_addr: '127.0.0.1:0', skip_ibd: true }),
    );
    useLoopbackAndFundedKey(
      join(cwd, 'user_config.yaml'),
      fundedDevnetKeys()[0]!,
      '/ip4/127.0.0.1/udp/0/quic-v1',
    );
    const r = await call(m, 'start', 'user_config.yaml', '');
    if (r.success) {
      try {
        const info = JSON.parse((await value(m, 'get_cryptarchia_info')) as string) as {
          lib: string;
          height: number;
        };
        assert.equal(info.lib, TESTNET_GENESIS_ID);
        assert.equal(info.height, 0);
      } finally {
        assert.equal(await value(m, 'stop'), null);
      }
    } else {
      // Without the reference's circuits (none given here) the node cannot verify the testnet's proofs
      // and refuses to start, naming the deployment it was given.
      assert.match(r.error!, /^deployment testnet: this node cannot verify this network's proofs/);
      await assertNotRunning(m);
    }
    await m.close();
  });
});
