/**
 * The multi-node devnet's plan and folder: keys, ports and peer ids per node, the shared genesis (the
 * devnet's stake split exactly), the configurations the node accepts, and the folder rules (same size
 * to restart, --reset, never a folder that is not a devnet's).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { peerIdFromString } from '@libp2p/peer-id';
import { bytesToHex, hexToBytesOrUndefined } from '../../../src/codec/hex.ts';
import { ed25519PublicKey } from '../../../src/crypto/ed25519.ts';
import { prepareDevnetFolder } from '../../../src/devnet/folder.ts';
import { genesisNotes, peerIdOfNodeKey, planDevnet, TOTAL_STAKE } from '../../../src/devnet/index.ts';
import { devnetDeploymentYaml, nodeConfigYaml } from '../../../src/devnet/plan.ts';
import { parseDeployment } from '../../../src/ledger/deployment.ts';
import { parseUserConfig } from '../../../src/node/config.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';

const BASE = readFileSync(new URL('../../../deployments/devnet.yaml', import.meta.url), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'devnet-plan-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test("a node key is a libp2p Ed25519 seed: its peer id holds the seed's public key (F keystore fixture)", async () => {
  // F: nodes/node/binary/src/cli/upgrade/fixtures/legacy_keystore.yaml, NetworkSwarm.
  const seed = hexToBytesOrUndefined('717730f45552486b7fd730b0e7493b2b36211f919e61cf99014c3c33735c7361')!;
  assert.equal(
    bytesToHex(ed25519PublicKey(seed)),
    'd52cf8d990a9d5d50f08fcddf033c19b7076f8947368c617228984c2daea70fc',
  );
  const id = await peerIdOfNodeKey(seed);
  assert.match(id, /^12D3KooW/);
  const pk = peerIdFromString(id).publicKey;
  assert.equal(bytesToHex(pk!.raw), 'd52cf8d990a9d5d50f08fcddf033c19b7076f8947368c617228984c2daea70fc');
});

test('nodes hold distinct keys, ports and peer ids; node 0 holds the single-node devnet keys', async () => {
  const plans = await planDevnet({ nodes: 4, apiPortBase: 8080, p2pPortBase: 3000 });
  assert.deepEqual(
    plans.map((p) => [p.apiPort, p.p2pPort]),
    [
      [8080, 3000],
      [8081, 3001],
      [8082, 3002],
      [8083, 3003],
    ],
  );
  assert.deepEqual(
    plans.map((p) => p.fundedKeys.map((k) => k.index)),
    [
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9, 10, 11],
      [12, 13, 14, 15],
    ],
  );
  assert.equal(new Set(plans.map((p) => p.peerId)).size, 4);
  assert.equal(new Set(plans.map((p) => p.nodeKey)).size, 4);
  assert.equal(plans[1]!.p2pAddress, `/ip4/127.0.0.1/udp/3001/quic-v1/p2p/${plans[1]!.peerId}`);
  const single = devnetConfig();
  assert.equal(plans[0]!.voucherMaster.publicKey, single.wallet.voucher_master_key_id);
  assert.equal(plans[0]!.blendSigning.publicKey, single.blend.non_ephemeral_signing_key_id);
  assert.equal(plans[0]!.blendZk.publicKey, single.blend.core_zk_secret_key_kms_id);
  // Deterministic: the same plan again.
  const again = await planDevnet({ nodes: 4, apiPortBase: 8080, p2pPortBase: 3000 });
  assert.deepEqual(again, plans);
});

test('--nodes and port bases are checked', async () => {
  await assert.rejects(
    planDevnet({ nodes: 0, apiPortBase: 8080, p2pPortBase: 3000 }),
    /--nodes: expected a whole number from 1 to 16/,
  );
  await assert.rejects(planDevnet({ nodes: 17, apiPortBase: 8080, p2pPortBase: 3000 }), /--nodes/);
  await assert.rejects(planDevnet({ nodes: 4, apiPortBase: 65534, p2pPortBase: 3000 }), /--api-port-base/);
  await assert.rejects(
    planDevnet({ nodes: 4, apiPortBase: 8080, p2pPortBase: 8082 }),
    /both an API port and a P2P port/,
  );
});

test('the genesis keeps the devnet stake exactly, at most 255 notes, and equals devnet.yaml for one node', async () => {
  for (let n = 1; n <= 16; n++) {
    const notes = genesisNotes(await planDevnet({ nodes: n, apiPortBase: 8080, p2pPortBase: 3000 }));
    assert.equal(
      notes.reduce((a, x) => a + x.value, 0n),
      TOTAL_STAKE,
      `${n} nodes`,
    );
    assert.ok(notes.length <= 255 && notes.length >= 4 * n * 3, `${n} nodes: ${notes.length} notes`);
    const values = notes.map((x) => x.value);
    assert.ok(
      values.every((v) => v - values.at(-1)! <= 1n),
      'an even split',
    );
  }
  const plans = await planDevnet({ nodes: 1, apiPortBase: 8080, p2pPortBase: 3000 });
  const d = parseDeployment(devnetDeploymentYaml(BASE, plans, 1_800_000_000), 'multi');
  const base = parseDeployment(BASE, 'devnet');
  assert.deepEqual(d.genesis.notes, base.genesis.notes);
  assert.equal(d.genesis.genesis_time, 1_800_000_000);
  assert.deepEqual(d.ledger, base.ledger);
  assert.equal(d.slot_duration_ms, base.slot_duration_ms);
});

test('each node configuration is accepted by the node, with its ports, keys, peers and IBD peers', async () => {
  const plans = await planDevnet({ nodes: 3, apiPortBase: 18080, p2pPortBase: 13000 });
  for (const p of plans) {
    const yaml = nodeConfigYaml(p, plans);
    const c = parseUserConfig(yaml, `${p.name}.yaml`);
    assert.equal(c.api.backend.listen_address, `127.0.0.1:${18080 + p.index}`);
    assert.equal(c.state.base_folder, './state');
    assert.equal(c.wallet.voucher_master_key_id, p.voucherMaster.publicKey);
    assert.equal(Object.keys(c.wallet.known_keys).length, 6);
    assert.equal(c.cryptarchia.leader.wallet.funding_pk, p.fundedKeys[0]!.publicKey);
    assert.match(yaml, new RegExp(`port: ${13000 + p.index}\\n`));
    assert.match(yaml, new RegExp(`node_key: '${p.nodeKey}'`));
    for (const o of plans) {
      if (o.index !== p.index)
        assert.ok(yaml.includes(`- '${o.p2pAddress}'`), `${p.name} peers with ${o.name}`);
    }
    const ibd = /ibd:\n\s+peers:(.*(?:\n\s+- .*)*)/.exec(yaml)![1]!;
    if (p.index === 0) assert.equal(ibd.trim(), '[]');
    else assert.equal(ibd.trim(), `- '${plans[0]!.peerId}'`);
  }
});

test('the folder: written once, restarted with the same size, another size refused unless --reset', async () => {
  const dir = join(tmp, 'net');
  const opts = {
    dir,
    defaultNodes: 4,
    defaultApiPortBase: 8080,
    defaultP2pPortBase: 3000,
    reset: false,
    baseDeployment: BASE,
    nowMs: 1_800_000_000_500,
  };
  const first = await prepareDevnetFolder({ ...opts, nodes: 2 });
  assert.equal(first.created, true);
  assert.equal(first.meta.genesis_time, 1_800_000_000);
  for (const path of first.configPaths) assert.equal(statSync(path).mode & 0o777, 0o600);
  const deployment = readFileSync(first.deploymentPath, 'utf8');
  // Later: same genesis, ports kept unless given.
  const second = await prepareDevnetFolder({ ...opts, nowMs: 1_900_000_000_000, apiPortBase: 9000 });
  assert.equal(second.created, false);
  assert.equal(second.meta.nodes, 2);
  assert.equal(second.meta.genesis_time, 1_800_000_000);
  assert.equal(second.plans[1]!.apiPort, 9001);
  assert.equal(second.plans[1]!.p2pPort, 3001);
  assert.equal(readFileSync(first.deploymentPath, 'utf8'), deployment);
  await assert.rejects(
    prepareDevnetFolder({ ...opts, nodes: 3 }),
    /holds a devnet of 2 node\(s\), not 3: run with --nodes 2 to restart it, --reset/,
  );
  const reset = await prepareDevnetFolder({ ...opts, nodes: 3, reset: true, nowMs: 1_900_000_000_000 });
  assert.equal(reset.created, true);
  assert.equal(reset.meta.genesis_time, 1_900_000_000);
  assert.equal(existsSync(join(dir, 'node-2', 'user_config.yaml')), true);
});

test('a folder that is not a devnet folder is neither used nor deleted; a check runs before any write', async () => {
  const dir = join(tmp, 'other');
  await prepareDevnetFolder({
    dir: join(tmp, 'unused'),
    nodes: 1,
    defaultNodes: 4,
    defaultApiPortBase: 8080,
    defaultP2pPortBase: 3000,
    reset: false,
    baseDeployment: BASE,
    nowMs: 0,
    check: async () => {
      throw new Error('port taken');
    },
  }).then(
    () => assert.fail('expected a rejection'),
    (e: Error) => assert.equal(e.message, 'port taken'),
  );
  assert.equal(existsSync(join(tmp, 'unused')), false);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(join(dir, 'notes.txt'), 'mine');
  for (const reset of [false, true]) {
    await assert.rejects(
      prepareDevnetFolder({
        dir,
        nodes: 1,
        defaultNodes: 4,
        defaultApiPortBase: 8080,
        defaultP2pPortBase: 3000,
        reset,
        baseDeployment: BASE,
        nowMs: 0,
      }),
      /is not empty and holds no devnet.json/,
    );
  }
  assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'mine');
});

test('--p2p-host: the nodes listen there and dial each other on 127.0.0.1 when it is 0.0.0.0', async () => {
  const plans = await planDevnet({ nodes: 2, apiPortBase: 8080, p2pPortBase: 3000, p2pHost: '0.0.0.0' });
  const yaml = nodeConfigYaml(plans[0]!, plans);
  assert.match(yaml, /host: '0\.0\.0\.0'/);
  assert.ok(yaml.includes(`- '/ip4/127.0.0.1/udp/3001/quic-v1/p2p/${plans[1]!.peerId}'`));
  const lan = await planDevnet({ nodes: 2, apiPortBase: 8080, p2pPortBase: 3000, p2pHost: '10.1.2.3' });
  assert.equal(lan[1]!.p2pAddress, `/ip4/10.1.2.3/udp/3001/quic-v1/p2p/${lan[1]!.peerId}`);
  await assert.rejects(
    planDevnet({ nodes: 2, apiPortBase: 8080, p2pPortBase: 3000, p2pHost: 'example.org' }),
    /--p2p-host: expected an IPv4 address/,
  );
});

test('the node reads IBD peers as peer ids, as the reference writes them (a multiaddr only with its /p2p/ part)', () => {
  const id = '12D3KooWELgSMgfiQJnwL1Uh9Qi8Jpi4ou9qtTGCprcZ1ZhrsuEB';
  parseUserConfig(`cryptarchia: { network: { bootstrap: { ibd: { peers: ['${id}'] } } } }`);
  assert.throws(
    () =>
      parseUserConfig(
        "cryptarchia: { network: { bootstrap: { ibd: { peers: ['/ip4/1.2.3.4/udp/3000/quic-v1'] } } } }",
      ),
    /^ConfigError: cryptarchia\.network\.bootstrap\.ibd\.peers\[0\]: a multiaddr without \/p2p\/<peer id>/,
  );
});
