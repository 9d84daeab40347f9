/**
 * Checkpoint sync: a node gives the checkpoint of its LIB (`GET /x/admin/checkpoint`), which
 * `logos-node snapshot export` writes to a new file; another node starts from that file and syncs the
 * blocks after it from its peer, verifying each, without ever holding the blocks before it; a third
 * fetches the checkpoint by block id from peers that agree on it, and none having it is refused; a
 * checkpoint whose state was changed is refused once the blocks after it do not verify on it; a
 * damaged file is refused before anything is written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { decodeCheckpoint, encodeCheckpoint } from '../../../src/chain/index.ts';
import { buildCli } from '../../../src/cli/index.ts';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import { decodeLedgerState, encodeLedgerState } from '../../../src/ledger/snapshot.ts';
import type { UserConfig } from '../../../src/node/config.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { fastDeployment } from '../../mocks/fast-deployment.ts';
import { type FastNodeOptions, startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

/** One chain for every node: 100 ms slots, k = 2, its genesis now. */
const D = fastDeployment(100, 2, Math.floor(Date.now() / 1000));
const start = (o: FastNodeOptions = {}) => startFastNode({ deployment: D, ...o });

const dir = mkdtempSync(join(tmpdir(), 'logos-checkpoint-'));
let a: TestNode;
const nodes: TestNode[] = [];

/** A devnet config whose node dials `peers` and downloads from them at start (IBD). */
function withPeers(peers: readonly TestNode[]): UserConfig {
  const cfg = devnetConfig();
  const addrs = peers.map(
    (p) => `${p.node.network.info().listen_addresses[0]}/p2p/${p.node.network.info().peer_id}`,
  );
  return {
    ...cfg,
    network: { backend: { ...cfg.network.backend, initial_peers: addrs } },
    sync: { ...cfg.sync, ibd: { ...cfg.sync.ibd, peers: peers.map((p) => p.node.network.info().peer_id) } },
  };
}

/** Runs `logos-node snapshot export` against node `t`; resolves with what it printed. */
async function exportCli(t: TestNode, out: string): Promise<string> {
  const printed: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => printed.push(a.join(' '));
  try {
    await buildCli()
      .exitOverride()
      .parseAsync(['snapshot', 'export', '--out', out, '--node-address', t.base], { from: 'user' });
  } finally {
    console.log = log;
  }
  return printed.join('\n');
}

before(async () => {
  a = await start();
  await waitUntil(() => a.node.chain.lib().height >= 6, 30_000, 'a LIB at height 6');
});
after(async () => {
  for (const n of nodes) await n.stop().catch(() => {});
  await a?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let file: string;
let cp: { block: string; height: number; slot: number };

test('snapshot export writes the checkpoint of the LIB to a new file, never over one', async () => {
  file = join(dir, 'lib.checkpoint');
  const printed = await exportCli(a, file);
  const bytes = readFileSync(file);
  const decoded = decodeCheckpoint(bytes);
  cp = { block: bytesToHex(decoded.id), height: Number(decoded.height), slot: Number(decoded.slot) };
  assert.match(
    printed,
    new RegExp(
      `wrote .*lib\\.checkpoint: block ${cp.block} \\(slot ${cp.slot}, height ${cp.height}\\), ${bytes.length} bytes`,
    ),
  );
  assert.ok(a.node.chain.blockRef(decoded.id), 'the block is the node’s');
  assert.equal(bytesToHex(decoded.genesis), bytesToHex(a.node.chain.genesis.id));
  // Not over an existing file: the file is left as it was.
  await assert.rejects(exportCli(a, file), /exists: a checkpoint is written to a new file only/);
  assert.deepEqual(readFileSync(file), bytes);
  // The route gives bytes, not JSON.
  const r = await fetch(`${a.base}/x/admin/checkpoint`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/octet-stream');
});

test('a node started from the file syncs the blocks after it and holds none before it', async () => {
  const b = await start({ config: withPeers([a]), checkpoint: { file } });
  nodes.push(b);
  const cpId = hexToBytes(cp.block);
  // It starts at the checkpoint: its LIB and tip, with nothing below.
  assert.ok(b.node.chain.lib().height >= cp.height);
  await waitUntil(() => b.node.chain.tip().height >= cp.height + 4, 30_000, 'blocks after the checkpoint');
  // The blocks after it are A's, applied one by one; the ones before it were never fetched.
  const aNext = a.node.chain.canonicalBySlot(BigInt(cp.slot) + 1n, BigInt(cp.slot) + 1_000n, 1)[0]!;
  assert.ok(b.node.chain.has(aNext.id), 'the block after the checkpoint is synced');
  const firstBlock = a.node.chain.canonicalBySlot(1n, BigInt(cp.slot) - 1n, 1)[0]!;
  assert.equal(b.node.chain.blockRef(firstBlock.id), undefined, 'no block before the checkpoint');
  assert.ok(b.node.chain.blockRef(cpId));
  // Its API answers the checkpoint's block and the chain after it.
  const info = (await (await fetch(`${b.base}/cryptarchia/info`)).json()) as {
    cryptarchia_info: { height: number };
  };
  assert.ok(info.cryptarchia_info.height >= cp.height + 4);

  // It cannot serve a node syncing from genesis: it holds nothing between genesis and its checkpoint,
  // and never sends its checkpoint's block as the child of genesis.
  const e = await start({ config: withPeers([b]) });
  nodes.push(e);
  await new Promise((r) => setTimeout(r, 3000));
  assert.equal(e.node.chain.blockRef(cpId), undefined);
});

test('a node fetches a checkpoint by block id from peers that agree on it; none having it is refused', async () => {
  const b = nodes[0]!;
  // A second node started from the same file: the checkpoint's block is the LIB of both (or, once
  // they move on, one of their recent LIBs).
  const b2 = await start({ config: withPeers([a]), checkpoint: { file } });
  nodes.push(b2);
  const id = hexToBytes(cp.block);
  // A too, to download the blocks after it (B and B2 serve chain sync once they follow).
  const c = await start({ config: withPeers([a, b, b2]), checkpoint: { blockId: id } });
  nodes.push(c);
  assert.equal(bytesToHex(c.node.chain.lib().id), bytesToHex(id));
  await waitUntil(() => c.node.chain.tip().height >= cp.height + 2, 30_000, 'C syncing after its checkpoint');

  // A block they do not have (a quorum of one is refused in test/unit/sync/checkpoint.test.ts).
  await assert.rejects(
    start({ config: withPeers([b, b2]), checkpoint: { blockId: new Uint8Array(32).fill(9) } }),
    /0 of 2 peers have it; 2 must agree/,
  );
});

test('a checkpoint whose state was changed is refused once the blocks after it do not verify on it', async () => {
  const good = decodeCheckpoint(readFileSync(file));
  const state = decodeLedgerState(good.state);
  // One note more in the UTXO tree: the roots the next blocks' proofs of leadership commit to differ.
  const tampered = { ...state, utxos: state.utxos.insert(123_456_789n).tree };
  const bad = join(dir, 'tampered.checkpoint');
  writeFileSync(bad, encodeCheckpoint({ ...good, state: encodeLedgerState(tampered) }));
  let fatal: Error | undefined;
  const d = await start({
    config: withPeers([a]),
    checkpoint: { file: bad },
    onFatal: (e) => {
      fatal = e;
    },
  });
  nodes.push(d);
  await waitUntil(() => fatal !== undefined, 30_000, 'the checkpoint refused');
  assert.match(fatal!.message, /checkpoint refused: the blocks after block [0-9a-f]{64}/);
  assert.equal(d.node.chain.tip().height, Number(good.height), 'nothing applied on it');
});

test('a damaged checkpoint file is refused before the node writes anything', async () => {
  const bytes = readFileSync(file);
  bytes[bytes.length - 100]! ^= 1;
  const damaged = join(dir, 'damaged.checkpoint');
  writeFileSync(damaged, bytes);
  await assert.rejects(start({ checkpoint: { file: damaged } }), /damaged: its content does not hash/);
  writeFileSync(damaged, 'not a checkpoint');
  await assert.rejects(start({ checkpoint: { file: damaged } }), /not a checkpoint/);
});
