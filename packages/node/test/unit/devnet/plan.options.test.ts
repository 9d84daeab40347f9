/**
 * The devnet command's options for scenarios (the reference's cucumber steps): a delayed genesis, chosen
 * peer lists, IBD peer modes, the prolonged bootstrap period, runs that start only some nodes, copies
 * of a stopped node's state folder, and genesis accounts. Pure folder and plan functions; nothing is started.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { frToBytes } from '../../../src/crypto/field.ts';
import { parseCopy, prepareDevnetFolder } from '../../../src/devnet/folder.ts';
import { devnetTable, runDevnet } from '../../../src/devnet/index.ts';
import {
  genesisNotes,
  nodeConfigYaml,
  parseGenesisAccounts,
  parseNodeList,
  parsePeerLists,
  planDevnet,
} from '../../../src/devnet/plan.ts';
import { parseDeployment } from '../../../src/ledger/deployment.ts';
import { parseUserConfig } from '../../../src/node/config.ts';

const BASE = readFileSync(new URL('../../../deployments/devnet.yaml', import.meta.url), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'devnet-options-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const base = (dir: string) => ({
  dir,
  defaultNodes: 4,
  defaultApiPortBase: 8080,
  defaultP2pPortBase: 3000,
  reset: false,
  baseDeployment: BASE,
  nowMs: 1_800_000_000_500,
});

interface Cfg {
  network: { backend: { initial_peers: string[] } };
  cryptarchia: {
    network: { bootstrap: { ibd: { peers: string[] } } };
    service: { bootstrap: { prolonged_bootstrap_period: number } };
  };
}
const cfg = (path: string) => parse(readFileSync(path, 'utf8')) as Cfg;

test('--peers and --only values: nodes of the devnet, no self-peer, clear refusals', () => {
  assert.deepEqual(
    [...parsePeerLists(['3=1,2', '1=', '2=0,0'], 4)],
    [
      [3, [1, 2]],
      [1, []],
      [2, [0]],
    ],
  );
  assert.throws(() => parsePeerLists(['3'], 4), /--peers "3": expected <node>=<nodes>/);
  assert.throws(() => parsePeerLists(['4=1'], 4), /"4" is not a node of this devnet \(0 to 3\)/);
  assert.throws(() => parsePeerLists(['1=1'], 4), /a node is not its own peer/);
  assert.throws(() => parsePeerLists(['1=x'], 4), /"x" is not a node/);
  assert.deepEqual(parseNodeList('2, 0,2', 4, '--only'), [2, 0]);
  assert.throws(() => parseNodeList('', 4, '--only'), /--only: "" is not a node/);
  assert.throws(() => parseNodeList('7', 4, '--only'), /--only: "7" is not a node of this devnet/);
  assert.deepEqual(parseCopy('1:3', 4), { from: 1, to: 3 });
  for (const bad of ['1:1', '1-3', '1:9', ':2'])
    assert.throws(() => parseCopy(bad, 4), /--copy-state .*expected <from>:<to>/);
});

test('a node config with chosen peers and each IBD peer mode is accepted by the node', async () => {
  const plans = await planDevnet({ nodes: 4, apiPortBase: 8080, p2pPortBase: 3000 });
  const y = nodeConfigYaml(plans[3]!, plans, { peers: [1, 2], ibd: 'peers', prolongedBootstrapS: 0 });
  const c = parse(y) as Cfg;
  assert.deepEqual(c.network.backend.initial_peers, [plans[1]!.p2pAddress, plans[2]!.p2pAddress]);
  assert.deepEqual(c.cryptarchia.network.bootstrap.ibd.peers, [plans[1]!.peerId, plans[2]!.peerId]);
  assert.equal(c.cryptarchia.service.bootstrap.prolonged_bootstrap_period, 0);
  parseUserConfig(y);
  const none = parse(nodeConfigYaml(plans[3]!, plans, { peers: [], ibd: 'none' })) as Cfg;
  assert.deepEqual(none.network.backend.initial_peers, []);
  assert.deepEqual(none.cryptarchia.network.bootstrap.ibd.peers, []);
  parseUserConfig(nodeConfigYaml(plans[3]!, plans, { peers: [], ibd: 'none' }));
  const first = parse(nodeConfigYaml(plans[3]!, plans, { peers: [2] })) as Cfg;
  assert.deepEqual(first.cryptarchia.network.bootstrap.ibd.peers, [plans[0]!.peerId], 'default: node 0');
});

test('--genesis-delay sets a new chain in the future and is refused for an existing one', async () => {
  const dir = join(tmp, 'delay');
  const d = await prepareDevnetFolder({ ...base(dir), nodes: 2, genesisDelayS: 60 });
  assert.equal(d.meta.genesis_time, 1_800_000_060);
  assert.match(readFileSync(d.deploymentPath, 'utf8'), /genesis_time: 1800000060/);
  await assert.rejects(
    prepareDevnetFolder({ ...base(dir), genesisDelayS: 5 }),
    /--genesis-delay: .* holds a chain whose genesis is fixed \(use --reset/,
  );
  await assert.rejects(
    prepareDevnetFolder({ ...base(join(tmp, 'neg')), genesisDelayS: -1 }),
    /expected whole seconds/,
  );
  assert.equal(existsSync(join(tmp, 'neg')), false, 'nothing written');
});

test('--peers, --ibd-peers and --bootstrap-period are kept in devnet.json; --only checks and starts only its nodes', async () => {
  const dir = join(tmp, 'peers');
  const checked: number[][] = [];
  const check = async (ps: readonly { index: number }[]) => {
    checked.push(ps.map((p) => p.index));
  };
  const a = await prepareDevnetFolder({
    ...base(dir),
    nodes: 4,
    peers: ['1=0'],
    ibdPeers: 'peers',
    prolongedBootstrapS: 0,
    only: '0',
    check,
  });
  assert.deepEqual(a.start, [0]);
  assert.deepEqual(checked, [[0]]);
  // A later run starting node 3 into the running devnet: node 1's list is kept, node 3's added.
  const b = await prepareDevnetFolder({ ...base(dir), peers: ['3=1,2'], only: '3', check });
  assert.deepEqual(b.start, [3]);
  assert.deepEqual(checked[1], [3]);
  assert.deepEqual(b.meta.peers, { '1': [0], '3': [1, 2] });
  assert.equal(b.meta.ibd_peers, 'peers');
  assert.equal(b.meta.prolonged_bootstrap_period, 0);
  const n1 = cfg(b.configPaths[1]!);
  assert.deepEqual(n1.network.backend.initial_peers, [b.plans[0]!.p2pAddress]);
  assert.deepEqual(n1.cryptarchia.network.bootstrap.ibd.peers, [b.plans[0]!.peerId]);
  assert.equal(n1.cryptarchia.service.bootstrap.prolonged_bootstrap_period, 0);
  const n3 = cfg(b.configPaths[3]!);
  assert.deepEqual(n3.cryptarchia.network.bootstrap.ibd.peers, [b.plans[1]!.peerId, b.plans[2]!.peerId]);
  // A node no list names keeps every other node as its peer.
  assert.equal(cfg(b.configPaths[2]!).network.backend.initial_peers.length, 3);
  await assert.rejects(
    prepareDevnetFolder({ ...base(dir), ibdPeers: 'all' as never }),
    /--ibd-peers: expected one of first, peers, none/,
  );
});

test("--copy-state: a stopped node's state folder replaces another's; refused for a running node or a new chain", async () => {
  const dir = join(tmp, 'copy');
  await assert.rejects(
    prepareDevnetFolder({ ...base(dir), nodes: 3, copyState: ['0:2'] }),
    /a new chain has no node state to copy/,
  );
  await prepareDevnetFolder({ ...base(dir), nodes: 3 });
  mkdirSync(join(dir, 'node-0', 'state', 'db'), { recursive: true });
  writeFileSync(join(dir, 'node-0', 'state', 'db', 'blocks'), 'chain of node 0');
  mkdirSync(join(dir, 'node-2', 'state'), { recursive: true });
  writeFileSync(join(dir, 'node-2', 'state', 'old'), 'replaced');
  await assert.rejects(
    prepareDevnetFolder({ ...base(dir), copyState: ['1:2'] }),
    /node-1 has no state to copy/,
  );
  await assert.rejects(
    prepareDevnetFolder({ ...base(dir), copyState: ['0:2'], isRunning: async (p) => p.index === 0 }),
    /node-0 is running \(its API port 8080 is in use\): stop it first/,
  );
  assert.equal(readFileSync(join(dir, 'node-2', 'state', 'old'), 'utf8'), 'replaced', 'nothing copied');
  await prepareDevnetFolder({ ...base(dir), copyState: ['0:2'], isRunning: async () => false });
  assert.equal(readFileSync(join(dir, 'node-2', 'state', 'db', 'blocks'), 'utf8'), 'chain of node 0');
  assert.equal(existsSync(join(dir, 'node-2', 'state', 'old')), false);
  assert.match(readFileSync(join(dir, 'node-2', 'user_config.yaml'), 'utf8'), /node-2 of a local devnet/);
});

test('--deployment is refused for an existing chain; an unreadable one is a clear error', async () => {
  const dir = join(tmp, 'dep');
  await prepareDevnetFolder({ ...base(dir), nodes: 1 });
  const common = { dir, reset: false, pretty: false, color: false, stopOnExit: false };
  await assert.rejects(
    runDevnet({ ...common, deploymentFile: join(tmp, 'x.yaml') }),
    /--deployment: .* holds a chain whose deployment is fixed/,
  );
  await assert.rejects(
    runDevnet({ ...common, dir: join(tmp, 'dep2'), deploymentFile: join(tmp, 'missing.yaml') }),
    /--deployment: ENOENT/,
  );
});

test('a devnet stopped while its folder is prepared starts no node and ends at once', async () => {
  const stop = new AbortController();
  const out: string[] = [];
  const running = runDevnet({
    dir: join(tmp, 'stopped-early'),
    nodes: 2,
    apiPortBase: 28_600,
    p2pPortBase: 28_700,
    reset: true,
    pretty: false,
    color: false,
    stopOnExit: false,
    signal: stop.signal,
    out: {
      write: (s: string) => {
        out.push(s);
        return true;
      },
      on: () => {},
      off: () => {},
    } as unknown as NodeJS.WritableStream,
  });
  stop.abort();
  assert.equal(await running, 0);
  assert.ok(
    out.some((l) => l.includes('stopped before the nodes started')),
    out.join(''),
  );
});

test('--genesis-account: notes of their own keys after the stake notes, in the wallet of their node, kept', async () => {
  assert.throws(
    () => parseGenesisAccounts(['0:1'], 2),
    /--genesis-account "0:1": expected <node>:<count>x<amount>/,
  );
  assert.throws(() => parseGenesisAccounts(['2:1x5'], 2), /a node from 0 to 1/);
  assert.throws(() => parseGenesisAccounts(['0:1x0'], 2), /each of a positive amount/);
  const [a, b, c] = parseGenesisAccounts(['1:1x2000', '0:2x1000', '0:0x0'], 2);
  assert.deepEqual([a!.node, a!.count, a!.amount, a!.key.index], [1, 1, 2000n, 3000]);
  assert.deepEqual([c!.count, c!.key.index], [0, 3002]);
  const dir = join(tmp, 'accounts');
  const d = await prepareDevnetFolder({
    ...base(dir),
    nodes: 2,
    genesisAccounts: ['1:1x2000', '0:2x1000', '0:0x0'],
  });
  const dep = parseDeployment(readFileSync(d.deploymentPath, 'utf8'), 'accounts');
  const notes = dep.genesis.notes!.map((n) => [bytesToHex(frToBytes(n.pk)), n.value] as const);
  const stake = genesisNotes(d.plans).length;
  assert.deepEqual(notes.slice(stake), [
    [a!.key.publicKey, 2000n],
    [b!.key.publicKey, 1000n],
    [b!.key.publicKey, 1000n],
  ]);
  const own = (i: number) => readFileSync(d.configPaths[i]!, 'utf8');
  assert.match(own(1), new RegExp(`'${a!.key.publicKey}': !Zk '${a!.key.secretKey}'`));
  assert.match(own(0), new RegExp(`'${c!.key.publicKey}': '${c!.key.publicKey}'`));
  assert.doesNotMatch(own(0), new RegExp(a!.key.publicKey));
  parseUserConfig(own(0));
  // Kept for the next runs; a new list only with a new chain.
  const again = await prepareDevnetFolder({ ...base(dir) });
  assert.deepEqual(again.meta.genesis_accounts, ['1:1x2000', '0:2x1000', '0:0x0']);
  assert.match(readFileSync(again.configPaths[1]!, 'utf8'), new RegExp(a!.key.secretKey));
  await assert.rejects(
    prepareDevnetFolder({ ...base(dir), genesisAccounts: ['0:1x5'] }),
    /--genesis-account: .* holds a chain whose genesis is fixed/,
  );
});

test('--metrics: node i serves its metrics on base + i, the table says where to scrape; without it none', async () => {
  const plans = await planDevnet({ nodes: 3, apiPortBase: 8080, p2pPortBase: 3000 });
  const on = parseUserConfig(nodeConfigYaml(plans[2]!, plans, { metricsPort: 9402 }));
  assert.deepEqual(on.metrics, { listen_address: '127.0.0.1:9402', configured: true });
  const off = parseUserConfig(nodeConfigYaml(plans[2]!, plans));
  assert.deepEqual(off.metrics, { listen_address: null, configured: true });

  const dir = join(tmp, 'metrics');
  const d = await prepareDevnetFolder({ ...base(dir), nodes: 3, metricsPortBase: 9500 });
  const cfg = parseUserConfig(readFileSync(d.configPaths[1]!, 'utf8'));
  assert.equal(cfg.metrics.listen_address, '127.0.0.1:9501');
  const table = devnetTable(d);
  assert.match(table, /node-2 {2}http:\/\/127\.0\.0\.1:9502\/metrics/);
  assert.match(table, /targets: \['127\.0\.0\.1:9500', '127\.0\.0\.1:9501', '127\.0\.0\.1:9502'\]/);
  await assert.rejects(
    prepareDevnetFolder({ ...base(join(tmp, 'metrics-bad')), nodes: 3, metricsPortBase: 65534 }),
    /--metrics: expected a port from 1 to 65533/,
  );
});
