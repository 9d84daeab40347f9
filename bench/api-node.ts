/**
 * Child process of the API benchmarks (bench/api.bench.ts): a real LogosNode on a fresh data directory
 * (given by the parent; both remove it at the end), with a fast test deployment and the insecure test
 * proofs, its API on 127.0.0.1 and an ephemeral port. It talks to the parent over IPC and stops when
 * told to, on SIGTERM/SIGINT, or when the parent goes away (the IPC channel closes).
 *
 *   api-node.ts live  <dir> <slotMs>   a node that produces blocks (devnet keys lead)
 *   api-node.ts range <dir> <blocks>   a node without leader keys, fed <blocks> pre-built valid blocks
 *                                      (one per slot from slot 1, some with transfers) via its chain
 *                                      service, then serving them
 *
 * Messages: child → parent `{type:'ready', url, tipSlot, height, buildMs?}`, `{type:'error', message}`;
 * parent → child `{type:'mem'}` (answered `{type:'mem', rss, heapUsed, external, rssAnon, rssFile, height}`),
 * `{type:'baseline', slotTo, batch, rounds}` (answered `{type:'baseline', rates}`: canonical blocks read and
 * serialised as NDJSON lines per second, without HTTP), `{type:'stop'}`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { pino } from 'pino';
import { blockStreamLine } from '../src/api/streams.ts';
import { type Block, bodyRoot } from '../src/block/block.ts';
import { encodeHeader, type Header } from '../src/block/header.ts';
import { devnetConfig } from '../src/cli.ts';
import { Ed25519Signer } from '../src/crypto/ed25519.ts';
import { epochStateAt, polPublicInputs } from '../src/ledger/apply.ts';
import { parseDeployment } from '../src/ledger/deployment.ts';
import { INSECURE_TEST_PROOFS, insecureTestPolProof } from '../src/ledger/insecure-test-proofs.ts';
import { PROOFS_ALREADY_VERIFIED } from '../src/ledger/proof-system.ts';
import type { SignedMantleTx } from '../src/mantle/tx.ts';
import { txHash } from '../src/mantle/tx.ts';
import type { UserConfig } from '../src/node/config.ts';
import { LogosNode } from '../src/node/node.ts';
import { genesisNotes, type Owned, transfer } from '../test/ledger/helpers.ts';

type Msg = { type: string; [k: string]: unknown };

const send = (m: Msg) => process.send?.(m);

const DEVNET_YAML = readFileSync(new URL('../deployments/devnet.yaml', import.meta.url), 'utf8');

/** The devnet deployment as a test deployment (insecure proofs allowed) with short slots and k = 2. */
function fastDeployment(slotMs: number, genesisTimeS: number | null) {
  let yaml = DEVNET_YAML.replace('name: devnet', 'name: bench-fast')
    .replace('test: false', 'test: true')
    .replace('slot_duration_ms: 2000', `slot_duration_ms: ${slotMs}`)
    .replace('security_param: 10', 'security_param: 2');
  if (genesisTimeS !== null) yaml = yaml.replace('genesis_time: null', `genesis_time: ${genesisTimeS}`);
  return parseDeployment(yaml, 'bench-fast');
}

function nodeConfig(dir: string, leaderKeys: boolean): UserConfig {
  const cfg = devnetConfig();
  return {
    ...cfg,
    api: { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
    state: { base_folder: dir },
    ...(leaderKeys
      ? {}
      : {
          kms: { backend: { keys: {} } },
          wallet: { ...cfg.wallet, known_keys: {}, voucher_master_key_id: null },
        }),
  };
}

let node: LogosNode | undefined;
let stopping = false;
const dataDir = process.argv[3];

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    const timer = setTimeout(() => process.exit(code), 10_000);
    timer.unref();
    try {
      await node?.stop();
    } catch {
      // exiting anyway
    }
    // The parent removes the directory too; this covers a parent that was killed.
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(code);
}

process.on('disconnect', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));

const LEADER = new Ed25519Signer(new Uint8Array(32).fill(42));
/** Every TX_EVERY-th block carries TX_PER_BLOCK transfers. */
const TX_EVERY = 4;
const TX_PER_BLOCK = 4;

/** Feeds `count` valid blocks (slots 1..count) to the node's chain service, one at a time. */
async function feedBlocks(n: LogosNode, count: number): Promise<void> {
  const chain = n.chain;
  const ctx = { config: chain.config, proofs: PROOFS_ALREADY_VERIFIED };
  // Spendable notes: the funded devnet notes, then the change of each transfer (kept in a FIFO).
  const notes: Owned[] = genesisNotes(chain.genesis);
  for (let slot = 1n; slot <= BigInt(count); slot++) {
    const tip = chain.tip();
    const state = tip.state;
    const txs: SignedMantleTx[] = [];
    if (slot % BigInt(TX_EVERY) === 0n) {
      for (let i = 0; i < TX_PER_BLOCK && notes.length > 0; i++) {
        const input = notes.shift()!;
        const { tx, outputs } = transfer(state, [input], [{ value: 1000n, pk: input.note.pk }], {
          tip: 5000n,
        });
        txs.push(tx);
        notes.push(outputs[outputs.length - 1]!); // the change
      }
    }
    const header: Header = {
      parent_block: tip.id,
      slot,
      body_root: bodyRoot(
        [],
        txs.map((t) => txHash(t.mantle_tx)),
      ),
      proof_of_leadership: {
        proof: new Uint8Array(128),
        entropy_contribution: slot,
        leader_key: LEADER.publicKey,
        voucher_cm: slot,
      },
    };
    const es = epochStateAt(state, ctx, slot);
    header.proof_of_leadership.proof = insecureTestPolProof(polPublicInputs(es, state.utxos.root(), header));
    const block: Block = {
      header,
      signature: LEADER.sign(encodeHeader(header)),
      uncle_headers: [],
      transactions: txs,
    };
    await chain.submit(block);
  }
}

/**
 * Canonical blocks of slots [0, slotTo], read by pages of `batch` as the blocks_range stream does, each
 * block read from the store and made into its NDJSON line; returns lines per second.
 */
function baselineRate(n: LogosNode, slotTo: bigint, batch: number): number {
  const chain = n.chain;
  const tip = chain.tip();
  const lib = chain.lib();
  const t0 = performance.now();
  let lines = 0;
  let bytes = 0;
  let lo = 0n;
  for (;;) {
    const page = chain.canonicalBySlot(lo, slotTo, batch);
    if (page.length === 0) break;
    for (const { id } of page) {
      const b = chain.block(id);
      if (!b) throw new Error('a canonical block is missing');
      const s = `${blockStreamLine(b, id, tip, lib)}\n`;
      bytes += s.length;
      lines++;
    }
    lo = page[page.length - 1]!.slot + 1n;
  }
  const ms = performance.now() - t0;
  if (bytes === 0) throw new Error('no block read');
  return (lines * 1000) / ms;
}

/** Anonymous and file-backed (lmdb's memory map among them) resident memory, in bytes, where /proc exists. */
function procRss(): { rssAnon?: number; rssFile?: number } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (k: string) =>
      Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile') };
  } catch {
    return {};
  }
}

async function main(): Promise<void> {
  const [mode, dir, arg] = process.argv.slice(2);
  if (!dir || (mode !== 'live' && mode !== 'range'))
    throw new Error('usage: api-node.ts live|range <dir> <n>');
  const logger = pino({ level: 'warn' }, pino.destination(2));
  if (mode === 'live') {
    const slotMs = Number(arg ?? 200);
    node = await LogosNode.start({
      deployment: fastDeployment(slotMs, null),
      config: nodeConfig(dir, true),
      baseDir: dir,
      logger,
      proofs: INSECURE_TEST_PROOFS,
    });
    // Wait for the first blocks so that the chain moves and the LIB is past genesis.
    const end = Date.now() + 30_000;
    while (node.chain.tip().height < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    const tip = node.chain.tip();
    send({
      type: 'ready',
      url: `http://${node.api.listening}`,
      tipSlot: String(tip.slot),
      height: tip.height,
    });
  } else {
    const count = Number(arg ?? 10_000);
    const slotMs = 100;
    // Genesis far enough back that every slot 1..count is in the past.
    const genesisS = Math.floor(Date.now() / 1000) - Math.ceil(((count + 20) * slotMs) / 1000);
    node = await LogosNode.start({
      deployment: fastDeployment(slotMs, genesisS),
      config: nodeConfig(dir, false),
      baseDir: dir,
      logger,
      proofs: INSECURE_TEST_PROOFS,
    });
    const t0 = performance.now();
    await feedBlocks(node, count);
    const buildMs = performance.now() - t0;
    const tip = node.chain.tip();
    send({
      type: 'ready',
      url: `http://${node.api.listening}`,
      tipSlot: String(tip.slot),
      height: tip.height,
      buildMs,
    });
  }
  process.on('message', (m: Msg) => {
    if (!node) return;
    if (m.type === 'stop') void shutdown(0);
    else if (m.type === 'mem') {
      const u = process.memoryUsage();
      send({
        type: 'mem',
        rss: u.rss,
        heapUsed: u.heapUsed,
        external: u.external,
        ...procRss(),
        height: node.chain.tip().height,
      });
    } else if (m.type === 'baseline') {
      const slotTo = BigInt(m.slotTo as string);
      const rates: number[] = [];
      for (let r = 0; r < Number(m.rounds ?? 1); r++) rates.push(baselineRate(node, slotTo, Number(m.batch)));
      send({ type: 'baseline', rates });
    }
  });
}

main().catch((e: Error) => {
  send({ type: 'error', message: e.stack ?? e.message });
  void shutdown(1);
});
