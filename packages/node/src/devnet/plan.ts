/**
 * The plan of a local multi-node devnet, computed from the number of nodes and the port bases alone
 * (pure, no I/O): each node's keys, ports and libp2p identity, the shared genesis (the stake of
 * deployments/devnet.yaml split over the nodes' keys) and the text of each node's user_config.yaml.
 *
 * Everything is deterministic, so re-running with the same folder and node count gives the same keys
 * and peer ids. The keys are public test keys (src/ledger/devnet-keys.ts): node i holds the funded
 * devnet keys 4i..4i+3, its voucher master key is devnet key 1000+3i, its Blend keys devnet keys 1001+3i
 * (Zk) and 1002+3i (Ed25519 seed), so node 0 holds the keys of the single-node devnet (`npm start`); its
 * libp2p key is the Ed25519 seed of devnet key 2000+i.
 */
import { isIPv4 } from 'node:net';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { isScalar, parseDocument, type YAMLMap } from 'yaml';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { ed25519PublicKey } from '../crypto/ed25519.ts';
import { type Fr, frFromBytes, frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import { devnetSecretKey } from '../ledger/devnet-keys.ts';
import { locatorFromString } from '../mantle/locator.ts';
import { declarationId } from '../mantle/sdp.ts';
import { DEVNET_CLAIM_THRESHOLD } from '../node/devnet.ts';
import { DevnetError } from './errors.ts';

export const MIN_NODES = 1;
export const MAX_NODES = 16;
/** Funded devnet keys per node. */
export const KEYS_PER_NODE = 4;
/** The devnet's total genesis stake (deployments/devnet.yaml: 20 notes of 1e8), kept whatever the node count. */
export const TOTAL_STAKE = 2_000_000_000n;
/** Notes per funded key, as deployments/devnet.yaml; fewer when the genesis would exceed 255 notes. */
const NOTES_PER_KEY = 5;
const MAX_GENESIS_NOTES = 255;
/** The reference's defaults: API on 127.0.0.1:8080, libp2p QUIC on UDP 3000 (F: `init`'s `net_port`). */
export const DEFAULT_API_PORT_BASE = 8080;
export const DEFAULT_P2P_PORT_BASE = 3000;
/** A node's Blend swarm listens on its P2P port plus this (UDP, QUIC): 3400 for node 0, F's default. */
export const BLEND_PORT_OFFSET = 400;
export const HOST = '127.0.0.1';

export interface DevnetKey {
  /** Devnet key index (src/ledger/devnet-keys.ts). */
  readonly index: number;
  readonly publicKey: string;
  readonly secretKey: string;
}

export interface NodePlan {
  readonly index: number;
  readonly name: string;
  readonly apiPort: number;
  /** `network.backend.swarm.host`: where the node listens for peers. */
  readonly p2pHost: string;
  readonly p2pPort: number;
  /** Hex of the 32-byte Ed25519 seed written as `network.backend.swarm.node_key`. */
  readonly nodeKey: string;
  /** The `12D3KooW…` peer id of `nodeKey`. */
  readonly peerId: string;
  /** `/ip4/<host>/udp/<port>/quic-v1/p2p/<peer id>` (127.0.0.1 when the host is 0.0.0.0). */
  readonly p2pAddress: string;
  readonly fundedKeys: readonly DevnetKey[];
  readonly voucherMaster: DevnetKey;
  readonly blendZk: DevnetKey;
  /** Ed25519: `publicKey` is the key id, `secretKey` the seed. */
  readonly blendSigning: DevnetKey;
  /** `blend.core.backend.listening_address`'s port (UDP, QUIC, on the P2P host). */
  readonly blendPort: number;
  /** `/ip4/<host>/udp/<blend port>/quic-v1`: the locator of its Blend declaration. */
  readonly blendLocator: string;
}

export interface DevnetPlanOptions {
  readonly nodes: number;
  readonly apiPortBase: number;
  readonly p2pPortBase: number;
  /** An IPv4 address; default 127.0.0.1 (0.0.0.0: every interface, for peers on other machines). */
  readonly p2pHost?: string;
}

const hexFr = (x: Fr) => bytesToHex(frToBytes(x));

function zkKey(index: number): DevnetKey {
  const sk = devnetSecretKey(index);
  return { index, publicKey: hexFr(zkPublicKey(sk)), secretKey: hexFr(sk) };
}

function ed25519Key(index: number): DevnetKey {
  const seed = frToBytes(devnetSecretKey(index));
  return { index, publicKey: bytesToHex(ed25519PublicKey(seed)), secretKey: bytesToHex(seed) };
}

/** The `12D3KooW…` peer id of a libp2p Ed25519 key given as its 32-byte seed (F: `node_key`). */
export async function peerIdOfNodeKey(seed: Uint8Array): Promise<string> {
  const key = await generateKeyPairFromSeed('Ed25519', seed);
  return peerIdFromPrivateKey(key).toString();
}

export function checkNodeCount(n: number): number {
  if (!Number.isInteger(n) || n < MIN_NODES || n > MAX_NODES)
    throw new DevnetError(
      'DEVNET_OPTION',
      `--nodes: expected a whole number from ${MIN_NODES} to ${MAX_NODES}, got ${n}`,
    );
  return n;
}

/** Port bases leave room for every node's port (each base + i must be a port from 1 to 65535). */
export function checkPortBase(base: number, nodes: number, option: string): number {
  if (!Number.isInteger(base) || base < 1 || base + nodes - 1 > 65535)
    throw new DevnetError(
      'DEVNET_OPTION',
      `${option}: expected a port from 1 to ${65536 - nodes} (${nodes} consecutive ports), got ${base}`,
    );
  return base;
}

export async function planDevnet(o: DevnetPlanOptions): Promise<NodePlan[]> {
  checkNodeCount(o.nodes);
  const p2pHost = o.p2pHost ?? HOST;
  if (!isIPv4(p2pHost))
    throw new DevnetError(
      'DEVNET_OPTION',
      `--p2p-host: expected an IPv4 address, got ${JSON.stringify(p2pHost)}`,
    );
  const dialHost = p2pHost === '0.0.0.0' ? HOST : p2pHost;
  checkPortBase(o.apiPortBase, o.nodes, '--api-port-base');
  checkPortBase(o.p2pPortBase, o.nodes, '--p2p-port-base');
  if (o.p2pPortBase + BLEND_PORT_OFFSET + o.nodes - 1 > 65535)
    throw new DevnetError(
      'DEVNET_OPTION',
      `--p2p-port-base: the Blend ports (P2P port + ${BLEND_PORT_OFFSET}) must stay below 65536, got base ${o.p2pPortBase}`,
    );
  const apiPorts = new Set(Array.from({ length: o.nodes }, (_, i) => o.apiPortBase + i));
  for (let i = 0; i < o.nodes; i++) {
    for (const [port, what] of [
      [o.p2pPortBase + i, 'a P2P port'],
      [o.p2pPortBase + BLEND_PORT_OFFSET + i, 'a Blend port'],
    ] as const) {
      if (apiPorts.has(port))
        throw new DevnetError(
          'DEVNET_OPTION',
          `port ${port} would be both an API port and ${what}: choose bases further apart`,
        );
    }
  }
  const plans: NodePlan[] = [];
  for (let i = 0; i < o.nodes; i++) {
    // inferred: devnet key indices per node (docs/design/fidelity.md "Multi-node devnet keys and genesis")
    const network = ed25519Key(2000 + i);
    const peerId = await peerIdOfNodeKey(frToBytes(devnetSecretKey(2000 + i)));
    const p2pPort = o.p2pPortBase + i;
    const blendPort = p2pPort + BLEND_PORT_OFFSET;
    plans.push({
      index: i,
      name: `node-${i}`,
      apiPort: o.apiPortBase + i,
      p2pHost,
      p2pPort,
      nodeKey: network.secretKey,
      peerId,
      p2pAddress: `/ip4/${dialHost}/udp/${p2pPort}/quic-v1/p2p/${peerId}`,
      fundedKeys: Array.from({ length: KEYS_PER_NODE }, (_, k) => zkKey(KEYS_PER_NODE * i + k)),
      voucherMaster: zkKey(1000 + 3 * i),
      blendZk: zkKey(1001 + 3 * i),
      blendSigning: ed25519Key(1002 + 3 * i),
      blendPort,
      blendLocator: `/ip4/${dialHost}/udp/${blendPort}/quic-v1`,
    });
  }
  return plans;
}

/**
 * The genesis notes: `TOTAL_STAKE` split evenly over every funded key of every node, each key's share in
 * `NOTES_PER_KEY` notes (fewer for large devnets, to stay within 255 genesis notes); the remainder of
 * the integer division goes one unit at a time to the first notes, so the total is exact.
 */
export function genesisNotes(plans: readonly NodePlan[]): { value: bigint; pk: string; key: number }[] {
  // inferred: the split of the devnet stake (docs/design/fidelity.md "Multi-node devnet keys and genesis")
  const keys = plans.flatMap((p) => p.fundedKeys);
  const perKey = Math.min(NOTES_PER_KEY, Math.floor(MAX_GENESIS_NOTES / keys.length));
  const count = BigInt(keys.length * perKey);
  const base = TOTAL_STAKE / count;
  let rest = TOTAL_STAKE % count;
  const notes: { value: bigint; pk: string; key: number }[] = [];
  for (const k of keys) {
    for (let j = 0; j < perKey; j++) {
      const extra = rest > 0n ? 1n : 0n;
      rest -= extra;
      notes.push({ value: base + extra, pk: k.publicKey, key: k.index });
    }
  }
  return notes;
}

/**
 * The shared deployment: deployments/devnet.yaml's text with `genesis.genesis_time` fixed and the
 * genesis notes replaced by `genesisNotes`; every other setting (and any section the file gains) is kept.
 */
export function devnetDeploymentYaml(
  baseYaml: string,
  plans: readonly NodePlan[],
  genesisTime: number,
  coreNodes = plans.length,
  accounts: readonly GenesisAccount[] = [],
): string {
  const doc = parseDocument(baseYaml, { intAsBigInt: true });
  if (doc.errors.length > 0)
    throw new DevnetError('DEVNET_DEPLOYMENT', `deployments/devnet.yaml: ${doc.errors[0]!.message}`);
  // The header of deployments/devnet.yaml describes its single-node genesis: replaced.
  const contents = doc.contents as YAMLMap | null;
  if (contents !== null) {
    contents.commentBefore = null;
    const first = contents.items[0]?.key;
    if (isScalar(first)) first.commentBefore = null;
  }
  doc.commentBefore =
    ` The shared deployment of a local ${plans.length}-node devnet, written once by \`devnet\` from\n` +
    ' deployments/devnet.yaml: the same parameters (1 s slots, f = 1/5, k = 10, 500-slot epochs), the\n' +
    ' genesis time fixed when the devnet was created, and the genesis stake of deployments/devnet.yaml\n' +
    ` (${TOTAL_STAKE} in total, below the reward curve's stake target, so blocks mint rewards) split\n` +
    ` evenly over the nodes' funded devnet keys: node i holds keys ${KEYS_PER_NODE}i..${KEYS_PER_NODE}i+${KEYS_PER_NODE - 1}. These keys are public\n` +
    ' test keys (src/ledger/devnet-keys.ts). Never use them anywhere else.';
  doc.setIn(['genesis', 'genesis_time'], genesisTime);
  const stakeNotes = genesisNotes(plans);
  if (stakeNotes.length + accounts.reduce((a, x) => a + x.count, 0) > MAX_GENESIS_NOTES)
    throw new DevnetError(
      'DEVNET_OPTION',
      `--genesis-account: the genesis would hold more than ${MAX_GENESIS_NOTES} notes`,
    );
  const accountNotes = accounts.flatMap((a) =>
    Array.from({ length: a.count }, () => ({ value: a.amount, pk: a.key.publicKey, key: a.key.index })),
  );
  const notes = [...stakeNotes, ...accountNotes].map((n) => {
    const node = doc.createNode({ value: n.value, pk: n.pk });
    node.flow = true;
    node.comment = ` devnet key ${n.key}`;
    return node;
  });
  doc.setIn(['genesis', 'notes'], doc.createNode(notes));
  const declarations = genesisDeclarations(plans, coreNodes).map((d) => {
    const node = doc.createNode(d);
    node.flow = true;
    return node;
  });
  if (declarations.length > 0) doc.setIn(['genesis', 'declarations'], doc.createNode(declarations));
  const genesis = doc.get('genesis', true) as YAMLMap;
  const gt = genesis.items.find((p) => isScalar(p.key) && p.key.value === 'genesis_time');
  if (gt !== undefined && isScalar(gt.key))
    gt.key.commentBefore = ' Fixed when this devnet was created: every node shares it.';
  return doc.toString({ lineWidth: 0 });
}

/**
 * The Blend declarations of the genesis: nodes 0..coreNodes-1 declare themselves as Blend core nodes
 * (provider id = their Blend Ed25519 key, zk id = their Blend Zk key, locator = their Blend port), each
 * locking its first genesis note. With two or more, the devnet mixes from its first epoch.
 * inferred: a devnet choice, no reference devnet exists (docs/design/fidelity.md "Devnet Blend settings and declarations")
 */
export function genesisDeclarations(
  plans: readonly NodePlan[],
  coreNodes: number,
): { locators: string[]; provider_id: string; zk_id: string; note_index: number }[] {
  if (!Number.isInteger(coreNodes) || coreNodes < 0 || coreNodes > plans.length)
    throw new DevnetError(
      'DEVNET_OPTION',
      `--core-nodes: expected a whole number from 0 to ${plans.length}, got ${coreNodes}`,
    );
  const notes = genesisNotes(plans);
  return plans.slice(0, coreNodes).map((p) => ({
    locators: [p.blendLocator],
    provider_id: p.blendSigning.publicKey,
    zk_id: p.blendZk.publicKey,
    note_index: notes.findIndex((n) => n.key === p.fundedKeys[0]!.index),
  }));
}

const q = (s: string) => `'${s}'`;

/**
 * A genesis account (F's cucumber step "the genesis block has the following wallet resources"):
 * `count` genesis notes of `amount` on a devnet key of its own (devnet key 3000 + its position in the
 * list), held by node `node`'s wallet. Its notes come after the stake notes, so they take part in the
 * leader lottery too.
 */
export interface GenesisAccount {
  readonly node: number;
  readonly count: number;
  readonly amount: bigint;
  readonly key: DevnetKey;
}

/**
 * Devnet key of the first genesis account.
 * inferred: account keys and note order are devnet choices (docs/design/fidelity.md "Devnet scenario options")
 */
export const ACCOUNT_KEY_BASE = 3000;

/** Parses `--genesis-account` values, each `<node>:<count>x<amount>` (`0:1x2000`; `0:0x0`: a key without notes). */
export function parseGenesisAccounts(specs: readonly string[], nodes: number): GenesisAccount[] {
  return specs.map((spec, k) => {
    const m = /^\s*(\d+)\s*:\s*(\d+)\s*x\s*(\d+)\s*$/.exec(spec);
    const node = Number(m?.[1]);
    const count = Number(m?.[2]);
    if (m === null || node >= nodes || count > MAX_GENESIS_NOTES || (count > 0 && BigInt(m[3]!) === 0n))
      throw new DevnetError(
        'DEVNET_OPTION',
        `--genesis-account ${JSON.stringify(spec)}: expected <node>:<count>x<amount> (a node from 0 to ${nodes - 1}, ` +
          `at most ${MAX_GENESIS_NOTES} notes, each of a positive amount), e.g. 0:1x2000`,
      );
    return { node, count, amount: BigInt(m[3]!), key: zkKey(ACCOUNT_KEY_BASE + k) };
  });
}

/**
 * Where a node's IBD peers come from: `first` node 0 (none for node 0 itself), `peers` its initial
 * peers (F's cucumber step "we use IBD peers": the peer ids of the nodes it is connected to), `none`
 * no IBD peer (the node catches up from the blocks it is sent, fetching their missing parents).
 */
export type IbdPeersMode = 'first' | 'peers' | 'none';
export const IBD_PEERS_MODES: readonly IbdPeersMode[] = ['first', 'peers', 'none'];

/** How a node's network settings are chosen; the defaults give every node every other as its peer. */
export interface NodeConfigOptions {
  /** The indices of its initial peers (absent: every other node). */
  readonly peers?: readonly number[];
  /** Default `first`. */
  readonly ibd?: IbdPeersMode;
  /** `cryptarchia.service.bootstrap.prolonged_bootstrap_period` in seconds; default 2. */
  readonly prolongedBootstrapS?: number;
  /** The genesis accounts this node's wallet holds (their keys in its key store and wallet). */
  readonly accounts?: readonly GenesisAccount[];
  /** Its metrics port on 127.0.0.1 (absent: no metrics listener). */
  readonly metricsPort?: number;
}

/** The default prolonged bootstrap period of a devnet node, in seconds. */
export const DEVNET_PROLONGED_BOOTSTRAP_S = 2;

/**
 * A node's user_config.yaml (reference layout). `initial_peers`: every other node unless `o.peers`
 * names them; IBD peers as `o.ibd` says (see `ibdPeers`).
 */
export function nodeConfigYaml(plan: NodePlan, all: readonly NodePlan[], o: NodeConfigOptions = {}): string {
  const others =
    o.peers === undefined
      ? all.filter((p) => p.index !== plan.index)
      : o.peers.map((i) => all[i]!).filter((p) => p !== undefined && p.index !== plan.index);
  const ibd = ibdPeers(plan, all, o.ibd ?? 'first', others);
  const list = (items: readonly string[], indent: string) =>
    items.length === 0 ? ' []' : `\n${items.map((x) => `${indent}- ${q(x)}`).join('\n')}`;
  const zk = [...plan.fundedKeys, plan.voucherMaster, plan.blendZk, ...(o.accounts ?? []).map((a) => a.key)];
  const funding = plan.fundedKeys[0]!.publicKey;
  return [
    `# ${plan.name} of a local devnet of ${all.length} nodes, written by \`devnet\` (rewritten on each run).`,
    '# Keep this file private: it holds secret keys (public devnet test keys here).',
    'api:',
    '  backend:',
    `    listen_address: ${q(`${HOST}:${plan.apiPort}`)}`,
    'metrics:',
    `  listen_address: ${o.metricsPort === undefined ? 'null' : q(`${HOST}:${o.metricsPort}`)}`,
    'state:',
    "  base_folder: './state'",
    'network:',
    '  backend:',
    '    swarm:',
    `      host: ${q(plan.p2pHost)}`,
    `      port: ${plan.p2pPort}`,
    `      node_key: ${q(plan.nodeKey)}  # peer id ${plan.peerId}`,
    `    initial_peers:${list(
      others.map((p) => p.p2pAddress),
      '      ',
    )}`,
    'cryptarchia:',
    '  service:',
    '    bootstrap:',
    `      prolonged_bootstrap_period: ${o.prolongedBootstrapS ?? DEVNET_PROLONGED_BOOTSTRAP_S}`,
    '  network:',
    '    bootstrap:',
    '      ibd:',
    `        peers:${list(ibd, '          ')}`,
    '  leader:',
    '    wallet:',
    `      funding_pk: ${q(funding)}`,
    'sdp:',
    '  # the declaration of its Blend keys, if the genesis made it (its Blend activity proofs name it)',
    `  declaration_id: ${q(bytesToHex(declarationId({ provider_id: hexToBytes(plan.blendSigning.publicKey), zk_id: frFromBytes(hexToBytes(plan.blendZk.publicKey)), locators: [locatorFromString(plan.blendLocator)] })))}`,
    '  wallet:',
    `    funding_pk: ${q(funding)}`,
    'blend:',
    `  non_ephemeral_signing_key_id: ${q(plan.blendSigning.publicKey)}`,
    '  core:',
    '    zk:',
    `      secret_key_kms_id: ${q(plan.blendZk.publicKey)}`,
    '    backend:',
    `      listening_address: ${q(`/ip4/${plan.p2pHost}/udp/${plan.blendPort}/quic-v1`)}`,
    'kms:',
    '  backend:',
    '    keys:',
    ...zk.map((k) => `      ${q(k.publicKey)}: !Zk ${q(k.secretKey)}  # devnet key ${k.index}`),
    `      ${q(plan.blendSigning.publicKey)}: !Ed25519 ${q(plan.blendSigning.secretKey)}  # devnet key ${plan.blendSigning.index} (seed)`,
    'pow:',
    '  auto_claim:',
    '    # armed at start (mining is off until PUT /pow/mining/start); the threshold is out of reach',
    '    targets:',
    `      - { public_key: ${q(plan.fundedKeys[plan.fundedKeys.length - 1]!.publicKey)}, threshold: ${DEVNET_CLAIM_THRESHOLD} }`,
    'wallet:',
    '  known_keys:',
    ...zk.map((k) => `    ${q(k.publicKey)}: ${q(k.publicKey)}`),
    `  voucher_master_key_id: ${q(plan.voucherMaster.publicKey)}`,
    '',
  ].join('\n');
}

/**
 * IBD peers (F `init`: the peer ids of the initial peers). `first` (the default): node 0 starts first
 * with none (it is the devnet's bootstrap node) and every other node downloads from node 0. `peers`: the
 * peer ids of its initial peers, as F `init` and F's cucumber step "we use IBD peers" (F
 * tests/src/cucumber/steps/manual_nodes/utils.rs `get_startup_settings`). `none`: no IBD peer, as F's
 * cucumber nodes without that step.
 * inferred: `first` is a devnet choice (docs/design/fidelity.md "Multi-node devnet IBD peers and start order")
 */
export function ibdPeers(
  plan: NodePlan,
  all: readonly NodePlan[],
  mode: IbdPeersMode = 'first',
  initialPeers: readonly NodePlan[] = all.filter((p) => p.index !== plan.index),
): string[] {
  if (mode === 'none') return [];
  if (mode === 'peers') return initialPeers.map((p) => p.peerId);
  return plan.index === 0 ? [] : [all[0]!.peerId];
}

/**
 * Parses `--peers` values, each `<node>=<nodes>` (`3=1,2`: node 3's initial peers are nodes 1 and 2;
 * `3=`: none), into node → peer indices; every index must name a node of the devnet, and a node is not
 * its own peer.
 */
export function parsePeerLists(specs: readonly string[], nodes: number): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const index = (s: string, spec: string) => {
    const i = Number(s.trim());
    if (s.trim() === '' || !Number.isInteger(i) || i < 0 || i >= nodes)
      throw new DevnetError(
        'DEVNET_OPTION',
        `--peers ${JSON.stringify(spec)}: ${JSON.stringify(s)} is not a node of this devnet (0 to ${nodes - 1})`,
      );
    return i;
  };
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq < 0)
      throw new DevnetError(
        'DEVNET_OPTION',
        `--peers ${JSON.stringify(spec)}: expected <node>=<nodes>, e.g. 3=1,2 (or 3= for none)`,
      );
    const node = index(spec.slice(0, eq), spec);
    const rest = spec.slice(eq + 1).trim();
    const peers = rest === '' ? [] : rest.split(',').map((x) => index(x, spec));
    if (peers.includes(node))
      throw new DevnetError('DEVNET_OPTION', `--peers ${JSON.stringify(spec)}: a node is not its own peer`);
    out.set(node, [...new Set(peers)]);
  }
  return out;
}

/** Parses a list of node indices (`--only 0,2`): each a node of the devnet, no repeats. */
export function parseNodeList(text: string, nodes: number, option: string): number[] {
  const list = text.split(',').map((x) => x.trim());
  const out: number[] = [];
  for (const x of list) {
    const i = Number(x);
    if (x === '' || !Number.isInteger(i) || i < 0 || i >= nodes)
      throw new DevnetError(
        'DEVNET_OPTION',
        `${option}: ${JSON.stringify(x)} is not a node of this devnet (0 to ${nodes - 1})`,
      );
    if (!out.includes(i)) out.push(i);
  }
  return out;
}
