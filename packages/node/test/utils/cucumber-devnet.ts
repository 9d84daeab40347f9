/**
 * The reference's cucumber steps (F tests/src/cucumber/steps/manual_nodes/*.rs) on the `devnet`
 * command: one devnet folder per scenario, on the fast test deployment with the insecure test proofs,
 * each "I start node" one `devnet --only <i>` run of the same folder (in this process, through
 * `runDevnet`, which the command line calls), with the node's peers given by `--peers`. Scenario node
 * names (`NODE_1`, `NODE_A1_BUDDY`, …) are given devnet nodes in the order they start.
 *
 * The waits follow F's steps: "I start node" waits until the node answers and listens for peers, and
 * a node without peers (a bootstrap node) until it follows the chain (F `ensure_node_ready`); the
 * convergence, height and LIB checks poll `/cryptarchia/info` and the nodes' chains as F's do.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type IbdPeersMode, runDevnet } from '../../src/devnet/index.ts';
import { parseGenesisAccounts } from '../../src/devnet/plan.ts';
import { tcpFree, udpFree } from '../../src/devnet/ports.ts';
import { fastDeploymentYaml } from '../mocks/fast-deployment.ts';
import { type ChainInfo, SimNode, until } from './sim-cluster.ts';

export interface CucumberDevnetOptions {
  /** "I have a cluster with capacity of N nodes". */
  readonly capacity: number;
  /** "the first N nodes are declared as blend providers"; default 0 ("no nodes are declared"). */
  readonly coreNodes?: number;
  /** "the chain starts N seconds from now". */
  readonly genesisDelayS?: number;
  /** "we use IBD peers" (`peers`); default `none`, as F's nodes without that step. */
  readonly ibdPeers?: IbdPeersMode;
  /** "prolonged bootstrap period of N seconds"; default the devnet's. */
  readonly bootstrapS?: number;
  /**
   * Security parameter k; default 20, F's test deployment's (tests/testing_framework/src/node/configs/
   * deployment.rs `DEFAULT_SECURITY_PARAM`): separate groups of nodes merge only while their fork is
   * less than k blocks deep, and with 10 here a group started late under load could pass it.
   */
  readonly k?: number;
  /** Default 500 ms. */
  readonly slotMs?: number;
  /** Deployment overrides ("I have deployment config override …"). */
  readonly editDeployment?: (yaml: string) => string;
  /** F "all peers must be mode online after startup in N seconds": every started node waits to follow. */
  readonly onlineMs?: number;
  /**
   * F "the genesis block has the following wallet resources" with "I start nodes with wallet
   * resources": `--genesis-account` values, `<devnet node>:<count>x<amount>` (the first node started is
   * devnet node 0).
   */
  readonly accounts?: readonly string[];
}

interface Started {
  readonly node: SimNode;
  readonly stop: AbortController;
  readonly done: Promise<number>;
  readonly out: { text: string };
}

/** A sink that keeps the last 200 kB of a run's output, for failure messages. */
function sink(): { stream: Writable; out: { text: string } } {
  const out = { text: '' };
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.text = (out.text + chunk.toString()).slice(-200_000);
      cb();
    },
  });
  return { stream, out };
}

// Each devnet run listens for SIGINT, SIGTERM and exit on this process (to stop its nodes), and a
// file's scenarios hold up to a few dozen runs at once.
process.setMaxListeners(Math.max(process.getMaxListeners(), 100));

/** Port ranges this process gave out (each scenario's API, P2P and Blend ports must not meet). */
const taken: [number, number][] = [];

/**
 * A base of `count` free ports (TCP and UDP, and UDP at +400 for Blend), below Linux's ephemeral range
 * (32768 and up, where outgoing connections take ports at any time), away from the ranges already
 * given out by this process (scenarios of a file run at the same time).
 */
async function portBase(count: number): Promise<number> {
  for (;;) {
    const base = 10_000 + Math.floor(Math.random() * 22_000);
    const ranges: [number, number][] = [
      [base, base + count],
      [base + 400, base + 400 + count],
    ];
    if (ranges.some(([a, b]) => taken.some(([c, d]) => a < d && c < b))) continue;
    let ok = true;
    for (let i = 0; i < count && ok; i++)
      ok =
        (await tcpFree(base + i)) === undefined &&
        (await udpFree(base + i)) === undefined &&
        (await udpFree(base + 400 + i)) === undefined;
    if (!ok) continue;
    taken.push(...ranges);
    return base;
  }
}

export class CucumberDevnet {
  /** Scenario node name → devnet node index. */
  readonly index = new Map<string, number>();
  private readonly started = new Map<string, Started>();
  private created = false;

  private constructor(
    readonly tmp: string,
    readonly dir: string,
    private readonly deploymentFile: string,
    private readonly apiBase: number,
    private readonly p2pBase: number,
    readonly o: CucumberDevnetOptions,
  ) {}

  static async create(o: CucumberDevnetOptions): Promise<CucumberDevnet> {
    const tmp = mkdtempSync(join(tmpdir(), 'logos-cucumber-'));
    const deploymentFile = join(tmp, 'base-deployment.yaml');
    const yaml = fastDeploymentYaml(o.slotMs ?? 500, o.k ?? 20);
    writeFileSync(deploymentFile, (o.editDeployment ?? ((y: string) => y))(yaml));
    const apiBase = await portBase(o.capacity);
    const p2pBase = await portBase(o.capacity);
    return new CucumberDevnet(tmp, join(tmp, 'net'), deploymentFile, apiBase, p2pBase, o);
  }

  /** The running node of a scenario name. */
  node(name: string): SimNode {
    const s = this.started.get(name);
    if (s === undefined) throw new Error(`${name} was not started`);
    return s.node;
  }

  get names(): string[] {
    return [...this.started.keys()];
  }

  get nodes(): SimNode[] {
    return [...this.started.values()].map((s) => s.node);
  }

  /** The public key of the k-th genesis account (`accounts[k]`). */
  accountKey(k: number): string {
    return parseGenesisAccounts(this.o.accounts ?? [], this.o.capacity)[k]!.key.publicKey;
  }

  /** The devnet folder of a started node (`node-<i>`). */
  nodeDir(name: string): string {
    return join(this.dir, `node-${this.index.get(name)}`);
  }

  /**
   * "I start node X" (no peers) / "I start peer node X connected to node Y [and node Z]": one `devnet
   * --only <i> --peers <i>=<peers>` run. `immediate`: F's "I immediate start", no wait at all.
   * `copyStateFrom`: the node starts from a copy of that stopped node's state (`--copy-state`).
   */
  async start(
    name: string,
    peers: readonly string[] = [],
    immediate = false,
    copyStateFrom?: string,
  ): Promise<SimNode> {
    if (this.started.has(name)) throw new Error(`${name} is already started`);
    if (!this.index.has(name)) this.index.set(name, this.index.size);
    const i = this.index.get(name)!;
    if (i >= this.o.capacity) throw new Error(`the cluster's capacity is ${this.o.capacity} nodes`);
    const peerIdx = peers.map((p) => {
      const j = this.index.get(p);
      if (j === undefined) throw new Error(`${p} is not a node of this scenario`);
      return j;
    });
    const first = !this.created;
    this.created = true;
    const stop = new AbortController();
    const { stream, out } = sink();
    const done = runDevnet({
      dir: this.dir,
      nodes: this.o.capacity,
      ...(first
        ? {
            apiPortBase: this.apiBase,
            p2pPortBase: this.p2pBase,
            coreNodes: this.o.coreNodes ?? 0,
            deploymentFile: this.deploymentFile,
            ibdPeers: this.o.ibdPeers ?? 'none',
            ...(this.o.genesisDelayS !== undefined ? { genesisDelayS: this.o.genesisDelayS } : {}),
            ...(this.o.bootstrapS !== undefined ? { prolongedBootstrapS: this.o.bootstrapS } : {}),
            ...(this.o.accounts !== undefined ? { genesisAccounts: this.o.accounts } : {}),
          }
        : {}),
      only: String(i),
      ...(copyStateFrom !== undefined ? { copyState: [`${this.index.get(copyStateFrom)}:${i}`] } : {}),
      peers: [`${i}=${peerIdx.join(',')}`],
      insecureTestProofs: true,
      reset: false,
      pretty: false,
      color: false,
      stopOnExit: false,
      signal: stop.signal,
      out: stream,
    });
    const api = `http://127.0.0.1:${this.apiBase + i}`;
    const node = new SimNode(i, api, '', '', [], this.tmp);
    const s: Started = { node, stop, done, out };
    this.started.set(name, s);
    const tail = () => `${name} (node-${i}) output:\n${out.text.slice(-4000)}`;
    done.catch(() => {});
    // A run that fails before its node starts (an option refused, a port taken) fails the step.
    const failed = done.then(
      (code) => new Error(`devnet run of ${name} ended with code ${code}: ${tail()}`),
      (e: Error) => e,
    );
    // The next run reads the folder this one writes: wait until it is prepared (the table is printed).
    await Promise.race([
      until('the devnet folder prepared', () => out.text.includes('Logos devnet:'), 30_000, tail),
      failed.then((e) => Promise.reject(e)),
    ]);
    if (!immediate) await this.ready(name, peers.length === 0);
    return node;
  }

  /** Starts several peer nodes of the same peers at once (as F's scenario runner deploys a topology). */
  async startTogether(names: readonly string[], peers: readonly string[]): Promise<void> {
    for (const n of names) await this.start(n, peers, true);
    await Promise.all(names.map((n) => this.ready(n, peers.length === 0)));
  }

  /**
   * F `ensure_node_ready`: the node answers and listens for peers; a bootstrap node (no peers), or
   * every node under F's "all peers must be mode online after startup in N seconds", follows the chain.
   */
  private async ready(name: string, bootstrap: boolean): Promise<void> {
    const s = this.started.get(name)!;
    const tail = () => `${name} output:\n${s.out.text.slice(-4000)}`;
    const failed = s.done.then(
      (code) => new Error(`devnet run of ${name} ended with code ${code}: ${tail()}`),
      (e: Error) => e,
    );
    const ready = (async () => {
      await until(
        `${name} answers and listens for peers`,
        async () => {
          const info = await s.node
            .get<{ listen_addresses: string[] }>('/network/info')
            .catch(() => undefined);
          return info !== undefined && info.listen_addresses.length > 0;
        },
        60_000,
        tail,
      );
      if (bootstrap || this.o.onlineMs !== undefined)
        await until(
          `${name} follows the chain`,
          async () => (await s.node.info().catch(() => undefined))?.phase === 'Following',
          this.o.onlineMs ?? 60_000,
          tail,
        );
    })();
    await Promise.race([ready, failed.then((e) => Promise.reject(e))]);
  }

  /** F "node X is at height H in T seconds". */
  async atHeight(name: string, height: number, ms: number): Promise<void> {
    const n = this.node(name);
    await until(
      `${name} at height ${height}`,
      async () => {
        await this.poll();
        return ((await n.info().catch(() => undefined))?.height ?? 0) >= height;
      },
      ms,
      () => this.status(),
    );
  }

  /**
   * F `nodes_converged`: every started node's height is at least `minHeight`, the highest and lowest
   * differ by at most `maxDiff`, and all nodes hold the same block at the lowest height.
   */
  async converged(minHeight: number, maxDiff: number, ms: number): Promise<void> {
    const nodes = this.nodes;
    await until(
      `all nodes have at least ${minHeight} blocks and converged to within ${maxDiff} blocks`,
      async () => {
        const infos = await this.poll();
        if (infos.some((i) => i === undefined)) return false;
        const heights = infos.map((i) => i!.height);
        const min = Math.min(...heights);
        if (min < minHeight || Math.max(...heights) - min > maxDiff) return false;
        const atMin = await Promise.all(nodes.map((n) => blockAtHeight(n, min)));
        return atMin[0] !== undefined && atMin.every((id) => id === atMin[0]);
      },
      ms,
      () => this.status(),
    );
  }

  /** F `ensure_all_nodes_agree_on_lib`: every node reports the same LIB. */
  async agreeOnLib(ms: number): Promise<void> {
    await until(
      'all nodes agree on LIB',
      async () => {
        const infos = await this.poll();
        return infos.every((i) => i !== undefined && i.lib === infos[0]!.lib);
      },
      ms,
      () => this.status(),
    );
  }

  /** F lib_assertions.rs: every node reports the same LIB, and its height is at least `minHeight`. */
  async shareLibAtOrAbove(minHeight: number, ms: number): Promise<number> {
    let libHeight = -1;
    await until(
      `all nodes share the same LIB at or above height ${minHeight}`,
      async () => {
        const infos = await this.poll();
        if (!infos.every((i) => i !== undefined && i.lib === infos[0]!.lib)) return false;
        libHeight = await heightOf(this.nodes[0]!, infos[0]!);
        return libHeight >= minHeight;
      },
      ms,
      () => `${this.status()}; LIB height ${libHeight}`,
    );
    return libHeight;
  }

  /** The last poll of every node, for failure messages. */
  private last = '';

  /** Polls every started node's `/cryptarchia/info` (undefined for a node that does not answer). */
  private async poll(): Promise<(ChainInfo | undefined)[]> {
    const entries = [...this.started];
    const infos = await Promise.all(entries.map(([, s]) => s.node.info().catch(() => undefined)));
    this.last = entries
      .map(([name, s], k) => {
        const i = infos[k];
        return i === undefined
          ? `${name}: no answer, its output:\n${s.out.text.slice(-1500)}\n`
          : `${name}: height ${i.height} tip ${i.tip.slice(0, 8)} lib ${i.lib.slice(0, 8)} ${i.phase}`;
      })
      .join('; ');
    return infos;
  }

  private status(): string {
    return this.last;
  }

  /** Stops one node's run (SIGINT to its process, as Ctrl-C), waiting for it to end. */
  async stop(name: string): Promise<void> {
    const s = this.started.get(name);
    if (s === undefined) return;
    s.stop.abort();
    await s.done.catch(() => {});
    this.started.delete(name);
  }

  /** F "I stop all nodes". */
  async stopAll(): Promise<void> {
    await Promise.all(this.names.map((n) => this.stop(n)));
  }

  async close(): Promise<void> {
    await this.stopAll();
    rmSync(this.tmp, { recursive: true, force: true });
  }
}

/** A node's canonical chain, genesis first (ids from `/cryptarchia/headers` down to genesis, ≤ 512). */
async function chainOf(n: SimNode): Promise<string[] | undefined> {
  const genesis = await n
    .get<{ header: { id: string } }[]>('/cryptarchia/blocks?slot_from=0&slot_to=0')
    .catch(() => undefined);
  if (genesis?.[0] === undefined) return undefined;
  const ids = await n.get<string[]>(`/cryptarchia/headers?to=${genesis[0].header.id}`).catch(() => undefined);
  return ids?.reverse();
}

/** The id of the block at `height` on a node's canonical chain (undefined if it has none there). */
async function blockAtHeight(n: SimNode, height: number): Promise<string | undefined> {
  return (await chainOf(n))?.[height];
}

/** The height of a node's LIB on its canonical chain (-1 if not found). */
async function heightOf(n: SimNode, info: ChainInfo): Promise<number> {
  return (await chainOf(n))?.indexOf(info.lib) ?? -1;
}

/** A 64-hex value of a node's user_config.yaml (`funding_pk`, `secret_key_kms_id`, …). */
export function userConfigValue(c: CucumberDevnet, name: string, key: string): string {
  const cfg = readFileSync(join(c.nodeDir(name), 'user_config.yaml'), 'utf8');
  const m = new RegExp(`${key}: '([^']+)'`).exec(cfg);
  if (m === null) throw new Error(`${name}'s user_config.yaml has no ${key}`);
  return m[1]!;
}

/** The Blend core Zk public key and locator of a node (F utils.rs `blend_core_*_from_node_yaml`). */
export function blendKeys(c: CucumberDevnet, name: string): { zk: string; locator: string } {
  return {
    zk: userConfigValue(c, name, 'secret_key_kms_id'),
    locator: userConfigValue(c, name, 'listening_address'),
  };
}

/** Whether a transaction is stored in a block of the node. */
export async function included(n: SimNode, hash: string): Promise<boolean> {
  const r = await fetch(`${n.api}/cryptarchia/transaction/${hash}`, {
    signal: AbortSignal.timeout(5000),
  }).catch(() => undefined);
  return r?.status === 200;
}

/**
 * F "I send N transactions of V LGO each from wallet W to blend core zk key of node X": transfers from
 * the key `funding` of node `from`'s wallet, each waited for until included (F: two minutes).
 */
export async function sendToBlendZk(
  c: CucumberDevnet,
  from: string,
  funding: string,
  to: string,
  count: number,
  value: number,
) {
  const n = c.node(from);
  for (let k = 0; k < count; k++) {
    const sent = await n.post<{ hash: string }>('/wallet/transactions/transfer-funds', {
      recipient_public_key: blendKeys(c, to).zk,
      amount: value,
      change_public_key: funding,
      funding_public_keys: [funding],
    });
    if (sent.status !== 201) throw new Error(`transfer refused: ${sent.status} ${JSON.stringify(sent.body)}`);
    await until('the transfer to the Blend key included', () => included(n, sent.body.hash), 120_000);
  }
}

/** F `wait_for_blend_funded_note`: a note of the node's Blend Zk key, as its wallet reports it (30 s). */
export async function blendFundedNote(c: CucumberDevnet, name: string): Promise<string> {
  const { zk } = blendKeys(c, name);
  let note: string | undefined;
  await until(
    `a funded note on ${name}'s Blend Zk key`,
    async () => {
      const b = await c
        .node(name)
        .get<{ notes: Record<string, number> }>(`/wallet/${zk}/balance`)
        .catch(() => undefined);
      note = Object.keys(b?.notes ?? {})[0];
      return note !== undefined;
    },
    30_000,
  );
  return note!;
}

/** F "blend core SDP declaration for node X is included on node Y" (30 s): a declaration locking the note. */
export async function blendDeclarationIncluded(
  c: CucumberDevnet,
  declarer: string,
  on: string,
): Promise<void> {
  const { zk } = blendKeys(c, declarer);
  const note = await blendFundedNote(c, declarer);
  await until(
    `the Blend declaration of ${declarer} on ${on}`,
    async () => {
      const ds = await c
        .node(on)
        .get<Record<string, { service_note_id: string; zk_id: string }>>('/mantle/sdp/declarations')
        .catch(() => ({}));
      // F compares the declaration's locked note (`service_note_id` in this API) and Zk id.
      return Object.values(ds).some((d) => d.service_note_id === note && d.zk_id === zk);
    },
    30_000,
  );
}
