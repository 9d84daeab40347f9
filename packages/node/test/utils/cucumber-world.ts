/**
 * The steps of the reference's cucumber scenarios (`tests/cucumber_tests/features/*.feature`, step code
 * in `tests/src/cucumber/`) on in-process test nodes, driven through the HTTP API: wallet resources at
 * genesis (named wallets, each a ZK key whose genesis notes are added to the fast test deployment's and
 * whose secret is in the nodes' key store), transfers, coin splits and drains through the wallet
 * endpoints (`/wallet/transactions/transfer-funds`, `/wallet/fund`, `/wallet/sign/zk`) and
 * `/mempool/add/tx`, balances, mempool views and inclusion checks.
 *
 * The reference's harness signs its user wallets itself; here the node's wallet holds their keys and
 * signs through its endpoints (the transactions are the same kind: one Transfer, inputs of the sender,
 * outputs to the recipients and the change).
 */
import assert from 'node:assert/strict';
import { type Json, parseJson, stringifyJson } from '@logos-ts/shared/json';
import { bytesToHex, hexToBytes } from '../../src/codec/hex.ts';
import { fr } from '../../src/codec/schema.ts';
import { blake2b256 } from '../../src/crypto/blake2b.ts';
import type { Ed25519Signer } from '../../src/crypto/ed25519.ts';
import { frFromBytesModOrder, frToBytes } from '../../src/crypto/field.ts';
import { zkPublicKey } from '../../src/crypto/zk-keys.ts';
import type { Deployment } from '../../src/ledger/deployment.ts';
import { utxo } from '../../src/mantle/note.ts';
import { mantleTx, type SignedMantleTx, signedMantleTx, txHash, txHashToFr } from '../../src/mantle/tx.ts';
import type { UserConfig } from '../../src/node/config.ts';
import { devnetConfig, fundedDevnetKeys } from '../../src/node/devnet.ts';
import { insecureTestZkSign } from '../../src/zk/insecure-test-proofs.ts';
import { followerConfig } from '../mocks/chain-feed.ts';
import { fastDeployment } from '../mocks/fast-deployment.ts';
import { sleep, type TestNode, waitUntil } from './api-node.ts';

/** One row of "the genesis block has the following wallet resources": `count` notes of `amount`. */
export interface WalletResource {
  readonly wallet: string;
  readonly count: number;
  readonly amount: number;
}

const hex = (x: bigint) => bytesToHex(frToBytes(x));

/** The key of a scenario wallet (a public test key derived from its name). */
export function walletKey(name: string): { secretKey: bigint; publicKey: bigint; pk: string } {
  const secretKey = frFromBytesModOrder(blake2b256(new TextEncoder().encode(`cucumber wallet ${name}`)));
  const publicKey = zkPublicKey(secretKey);
  return { secretKey, publicKey, pk: hex(publicKey) };
}

/** The public key (hex) of a scenario wallet. */
export const pkOf = (name: string): string => walletKey(name).pk;

/**
 * The funding wallet of a node (F's `<NODE>_WALLET_FUNDING`: a key the node owns and serves through its
 * wallet API, funded at genesis): here a devnet key (index 0 to 3, each five notes of 1e8).
 */
export const fundingPk = (index: number): string => fundedDevnetKeys()[index]!.publicKey;

/**
 * The fast test deployment (default 100 ms slots, k = 2, f = 1/2) whose genesis also holds the wallet
 * resources' notes, after the devnet notes the nodes lead with.
 */
export function cucumberDeployment(
  resources: readonly WalletResource[],
  o: { slotMs?: number; k?: number; genesisTimeS?: number } = {},
): Deployment {
  const base = fastDeployment(o.slotMs ?? 100, o.k ?? 2, o.genesisTimeS);
  const extra = resources.flatMap((r) =>
    Array.from({ length: r.count }, () => ({ value: BigInt(r.amount), pk: walletKey(r.wallet).publicKey })),
  );
  return { ...base, genesis: { ...base.genesis, notes: [...base.genesis.notes, ...extra] } };
}

/** `cfg` (default the devnet configuration) whose wallet also holds the named scenario wallets' keys. */
export function withWallets(wallets: readonly string[], cfg: UserConfig = devnetConfig()): UserConfig {
  const keys = { ...cfg.kms.backend.keys };
  const known = { ...cfg.wallet.known_keys };
  for (const w of wallets) {
    const k = walletKey(w);
    keys[k.pk] = { kind: 'Zk', secret: hex(k.secretKey) };
    known[k.pk] = k.pk;
  }
  return { ...cfg, kms: { backend: { keys } }, wallet: { ...cfg.wallet, known_keys: known } };
}

/**
 * The configuration of one node of a several-node scenario: it leads with the devnet keys `leaderKeys`
 * (their notes are its stake; the first pays its fees and the last receives its PoW claims), or follows
 * when there are none; its wallet also holds the scenario wallets `wallets`; `ibdPeers` are the peers
 * its initial block download asks (F's "we use IBD peers").
 */
export function nodeConfig(o: {
  leaderKeys: readonly number[];
  wallets?: readonly string[];
  ibdPeers?: readonly string[];
}): UserConfig {
  const base = devnetConfig();
  const devnet = fundedDevnetKeys();
  const dropped = new Set(devnet.filter((k) => !o.leaderKeys.includes(k.index)).map((k) => k.publicKey));
  const keys = Object.fromEntries(Object.entries(base.kms.backend.keys).filter(([id]) => !dropped.has(id)));
  const known = Object.fromEntries(Object.entries(base.wallet.known_keys).filter(([id]) => !dropped.has(id)));
  const first = o.leaderKeys[0];
  const last = o.leaderKeys.at(-1);
  let cfg: UserConfig =
    first === undefined
      ? followerConfig()
      : {
          ...base,
          kms: { backend: { keys } },
          wallet: { ...base.wallet, known_keys: known },
          cryptarchia: {
            ...base.cryptarchia,
            leader: {
              wallet: { ...base.cryptarchia.leader.wallet, funding_pk: devnet[first]!.publicKey },
            },
          },
          sdp: { ...base.sdp, wallet: { ...base.sdp.wallet, funding_pk: devnet[first]!.publicKey } },
          pow: {
            ...base.pow,
            auto_claim: {
              ...base.pow.auto_claim,
              targets: base.pow.auto_claim.targets.map((t) => ({
                ...t,
                public_key: devnet[last!]!.publicKey,
              })),
            },
          },
        };
  if (o.ibdPeers)
    cfg = {
      ...cfg,
      sync: { ...cfg.sync, ibd: { ...cfg.sync.ibd, peers: [...o.ibdPeers], round_delay: 20 } },
    };
  return withWallets(o.wallets ?? [], cfg);
}

/** A JSON HTTP call; bigints are sent as JSON numbers. */
export async function call(
  tn: TestNode,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${tn.base}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: stringifyJson(body as Json) }),
  });
  return { status: res.status, text: await res.text() };
}

export interface Balance {
  readonly balance: bigint;
  /** Note id (hex) to value. */
  readonly notes: ReadonlyMap<string, bigint>;
}

/** A key's balance at the node's tip (no notes: 0, as the reference's 404). */
export async function balanceOf(tn: TestNode, pk: string): Promise<Balance> {
  const r = await call(tn, 'GET', `/wallet/${pk}/balance`);
  if (r.status === 404) return { balance: 0n, notes: new Map() };
  assert.equal(r.status, 200, `balance of ${pk}: ${r.status} ${r.text}`);
  const j = parseJson(r.text) as unknown as {
    balance: bigint | number;
    notes: Record<string, bigint | number>;
  };
  return {
    balance: BigInt(j.balance),
    notes: new Map(Object.entries(j.notes).map(([id, v]) => [id, BigInt(v)])),
  };
}

/** Waits until the key's balance satisfies `pred` (F's "wallet X has ... in N seconds"). */
export async function waitBalance(
  tn: TestNode,
  pk: string,
  pred: (b: Balance) => boolean,
  ms: number,
  what: string,
): Promise<Balance> {
  let last: Balance | undefined;
  try {
    await waitUntil(
      async () => {
        last = await balanceOf(tn, pk);
        return pred(last);
      },
      ms,
      what,
      50,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message} (last: balance ${last?.balance}, ${last?.notes.size} outputs)`);
  }
  return last!;
}

export const height = (tn: TestNode): number => tn.node.chain.tip().height;

/** F's "node X is at height H in N seconds". */
export function waitHeight(tn: TestNode, h: number, ms: number): Promise<void> {
  return waitUntil(() => height(tn) >= h, ms, `height ${h}`, 20);
}

/** Waits for a new block, so that a transaction submitted now is not included before the next slot. */
export async function afterNewBlock(tn: TestNode): Promise<void> {
  const h = height(tn);
  await waitUntil(() => height(tn) > h, 10_000, 'a new block', 2);
}

/** Whether a block of the node's canonical chain holds the transaction. */
export const isIncluded = (tn: TestNode, hash: string): boolean =>
  tn.node.chain.transactionLocation(hexToBytes(hash)) !== undefined;

/** F's "transaction X is included on node N in S seconds". */
export function waitIncluded(tn: TestNode, hash: string, ms: number): Promise<void> {
  return waitUntil(() => isIncluded(tn, hash), ms, `transaction ${hash} to be included`, 20);
}

/** Whether the transaction is in the node's mempool view (`GET /mempool/view`). */
export async function isPending(tn: TestNode, hash: string): Promise<boolean> {
  const r = await call(tn, 'GET', '/mempool/view');
  assert.equal(r.status, 200, r.text);
  return (JSON.parse(r.text) as string[]).includes(hash);
}

/** F's "transaction X is not pending in mempool of all nodes in S seconds". */
export async function waitNotPending(nodes: readonly TestNode[], hash: string, ms: number): Promise<void> {
  await waitUntil(
    async () => (await Promise.all(nodes.map((n) => isPending(n, hash)))).every((p) => !p),
    ms,
    `transaction ${hash} to leave every mempool`,
    50,
  );
}

/**
 * F's "transaction X remains not pending in mempool of all nodes for B blocks": checked after every new
 * block of the first node until `blocks` more blocks.
 */
export async function remainsNotPending(
  nodes: readonly TestNode[],
  hash: string,
  blocks: number,
  ms: number,
): Promise<void> {
  const target = height(nodes[0]!) + blocks;
  const end = Date.now() + ms;
  while (height(nodes[0]!) < target) {
    for (const n of nodes) assert.equal(await isPending(n, hash), false, `${hash} pending again`);
    assert.ok(Date.now() < end, `timed out waiting for ${blocks} blocks`);
    await sleep(20);
  }
}

/** F's "transaction X is not included in S seconds", scaled to `blocks` new blocks of the node. */
export async function notIncludedFor(tn: TestNode, hash: string, blocks: number, ms: number): Promise<void> {
  const target = height(tn) + blocks;
  await waitUntil(
    () => {
      assert.equal(isIncluded(tn, hash), false, `${hash} was included`);
      return height(tn) >= target;
    },
    ms,
    `${blocks} blocks`,
    20,
  );
  assert.equal(isIncluded(tn, hash), false, `${hash} was included`);
}

/** `POST /wallet/transactions/transfer-funds` from `from` (change to `from`); the hash. */
export async function transfer(
  tn: TestNode,
  from: string,
  to: string,
  amount: number | bigint,
): Promise<string> {
  const r = await call(tn, 'POST', '/wallet/transactions/transfer-funds', {
    recipient_public_key: to,
    amount: BigInt(amount),
    change_public_key: from,
    funding_public_keys: [from],
  });
  assert.equal(r.status, 201, `transfer ${amount} from ${from}: ${r.text}`);
  return (JSON.parse(r.text) as { hash: string }).hash;
}

/** A funded and signed transaction, not yet submitted. */
export interface Prepared {
  readonly hash: string;
  /** The signed transaction's JSON (`/mempool/add/tx` body). */
  readonly signed: Json;
  /** Inputs minus outputs. */
  readonly fee: bigint;
  /** The tip it was funded against (hex). */
  readonly tip: string;
  /** The funding Transfer's inputs (note id hex) and outputs. */
  readonly inputs: readonly string[];
  readonly outputs: readonly { value: bigint; pk: string }[];
}

export interface FundRequest {
  /** The recipients' outputs of the Transfer. */
  readonly outputs: readonly { pk: string; value: number | bigint }[];
  /** Keys whose notes fund the Transfer and its fee. */
  readonly funding: readonly string[];
  /** Default: the first funding key. */
  readonly change?: string;
  /** Notes (id hex) spent whatever the funding (e.g. a sender's notes with the fee paid by a sponsor). */
  readonly inputs?: readonly string[];
  readonly priorityFeePercent?: number;
  /** Other ops before the Transfer, with their proofs (JSON). */
  readonly ops?: readonly { op: Json; proof: Json }[];
}

/** The unspent note (id hex) of the node's tip state as `/wallet/fund`'s `ledger_inputs` take it. */
function ledgerInput(tn: TestNode, id: string): Json {
  const rec = tn.node.chain.tip().state.notes.get(fr.fromJson(id));
  assert.ok(rec, `note ${id} is unspent at the tip`);
  return utxo.toJson({ op_id: frToBytes(rec.origin), output_index: rec.output_index, note: rec.note });
}

/**
 * Funds a Transfer through `POST /wallet/fund` (the node adds inputs of the funding keys and the
 * change), signed by the returned transfer proof (and `/wallet/sign/zk` is not needed: the proof signs
 * for every input's key); not submitted.
 */
export async function prepare(tn: TestNode, req: FundRequest): Promise<Prepared> {
  const inputs = req.inputs ?? [];
  const r = await call(tn, 'POST', '/wallet/fund', {
    tx_builder: {
      mantle_tx: { ops: (req.ops ?? []).map((o) => o.op) },
      ledger_inputs: inputs.map((id) => ledgerInput(tn, id)),
      pending_transfer: {
        inputs,
        outputs: req.outputs.map((o) => ({ value: BigInt(o.value), pk: o.pk })),
      },
      channel_multi_sig_proofs: {},
    },
    change_public_key: req.change ?? req.funding[0],
    funding_public_keys: req.funding,
    max_tx_fee: 10n ** 15n,
    priority_fee_percent: req.priorityFeePercent ?? 0,
  });
  assert.equal(r.status, 200, `fund: ${r.text}`);
  const j = parseJson(r.text) as unknown as {
    tip: string;
    funded_tx: { ops: { opcode: number; payload: Json }[] };
    transfer_proof: Json;
  };
  const t = j.funded_tx.ops.at(-1)!.payload as unknown as {
    inputs: string[];
    outputs: { value: bigint | number; pk: string }[];
  };
  const state = tn.node.chain.stateOf(hexToBytes(j.tip));
  assert.ok(state, 'the funding tip has a state');
  const inValue = t.inputs.reduce((s, id) => s + state.notes.get(fr.fromJson(id))!.note.value, 0n);
  const outputs = t.outputs.map((o) => ({ value: BigInt(o.value), pk: o.pk }));
  const fee = inValue - outputs.reduce((s, o) => s + o.value, 0n);
  const raw = mantleTx.fromJson(j.funded_tx as unknown as Json);
  return {
    hash: bytesToHex(txHash(raw)),
    signed: {
      mantle_tx: j.funded_tx as unknown as Json,
      ops_proofs: [...(req.ops ?? []).map((o) => o.proof), j.transfer_proof],
    } as unknown as Json,
    fee,
    tip: j.tip,
    inputs: t.inputs,
    outputs,
  };
}

/** `POST /mempool/add/tx`: the status and body. */
export function submit(tn: TestNode, signed: Json): Promise<{ status: number; text: string }> {
  return call(tn, 'POST', '/mempool/add/tx', signed);
}

/** Submits and expects the reference's acceptance (200, `null`). */
export async function submitOk(tn: TestNode, p: Prepared): Promise<string> {
  const r = await submit(tn, p.signed);
  assert.deepEqual([r.status, r.text], [200, 'null'], `submit ${p.hash}`);
  return p.hash;
}

/** Funds, signs and submits; the prepared transaction. */
export async function send(tn: TestNode, req: FundRequest): Promise<Prepared> {
  const p = await prepare(tn, req);
  await submitOk(tn, p);
  return p;
}

/**
 * A transaction with its signature re-made by the node over a changed body: `edit` changes the
 * funding Transfer's payload (inputs/outputs) of `p`, `/wallet/sign/zk` signs the new hash with `pks`.
 */
export async function resigned(
  tn: TestNode,
  p: Prepared,
  pks: readonly string[],
  edit: (t: { inputs: string[]; outputs: { value: bigint; pk: string }[] }) => void,
): Promise<{ hash: string; signed: Json }> {
  const s = p.signed as unknown as { mantle_tx: { ops: { payload: Json }[] }; ops_proofs: Json[] };
  const copy = parseJson(stringifyJson(s.mantle_tx as unknown as Json)) as unknown as {
    ops: { payload: { inputs: string[]; outputs: { value: bigint; pk: string }[] } }[];
  };
  const t = copy.ops.at(-1)!.payload;
  t.outputs = t.outputs.map((o) => ({ value: BigInt(o.value), pk: o.pk }));
  edit(t);
  const raw = mantleTx.fromJson(copy as unknown as Json);
  const hash = bytesToHex(txHash(raw));
  const sig = await call(tn, 'POST', '/wallet/sign/zk', { tx_hash: hash, pks });
  assert.equal(sig.status, 200, sig.text);
  return {
    hash,
    signed: {
      mantle_tx: mantleTx.toJson(raw),
      ops_proofs: [...s.ops_proofs.slice(0, -1), { ZkSig: (JSON.parse(sig.text) as { sig: Json }).sig }],
    } as unknown as Json,
  };
}

/** F's coin split: one transaction from `wallet` with `count` outputs of `value` to itself. */
export function coinSplit(tn: TestNode, wallet: string, count: number, value: number): Promise<Prepared> {
  return send(tn, {
    outputs: Array.from({ length: count }, () => ({ pk: wallet, value })),
    funding: [wallet],
  });
}

/**
 * F's drain: every note of `from` (at most `max` of them, the largest first) spent to `to`, the
 * fee taken from them.
 */
export async function drain(tn: TestNode, from: string, to: string, max = 32): Promise<Prepared | undefined> {
  const b = await balanceOf(tn, from);
  const ids = [...b.notes.entries()]
    .sort((x, y) => (y[1] > x[1] ? 1 : y[1] < x[1] ? -1 : 0))
    .slice(0, max)
    .map(([id]) => id);
  if (ids.length === 0) return undefined;
  return send(tn, { outputs: [], funding: [from], change: to, inputs: ids });
}

/**
 * F's invalid transfers (`tests/src/cucumber/steps/manual_transactions/tracked_transactions.rs`), one
 * Transfer of an output of 1000 to the public key 1, signed by no key: `stateless` has no inputs (fails
 * preverification, "Inputs cannot be empty"); `stateful` spends the note id 0xDEADBEEF, which no
 * ledger holds (passes preverification, invalid against the ledger).
 */
export function invalidTransfer(kind: 'stateless' | 'stateful'): { hash: string; signed: Json } {
  const tx: SignedMantleTx = {
    mantle_tx: {
      ops: [
        {
          opcode: 0,
          payload: { inputs: kind === 'stateless' ? [] : [0xdeadbeefn], outputs: [{ value: 1000n, pk: 1n }] },
        },
      ],
    },
    ops_proofs: [],
  };
  const hash = txHash(tx.mantle_tx);
  tx.ops_proofs.push({ type: 'ZkSig', signature: insecureTestZkSign(txHashToFr(hash), []) });
  return { hash: bytesToHex(hash), signed: signedMantleTx.toJson(tx) };
}

/** The node's tip height and its canonical chain's last blocks, newest first (`GET /cryptarchia/headers`, ≤ 512). */
export async function recentChain(tn: TestNode): Promise<{ height: number; ids: string[] }> {
  const h = height(tn);
  const genesis = bytesToHex(tn.node.chain.genesis.id);
  const r = await call(tn, 'GET', `/cryptarchia/headers?to=${genesis}`);
  assert.equal(r.status, 200, r.text);
  return { height: h, ids: JSON.parse(r.text) as string[] };
}

/**
 * F's "all nodes have at least H blocks and converged to within S blocks in T seconds": the nodes'
 * canonical chains share a block at height ≥ `minHeight` and no tip is more than `slack` blocks past
 * the highest shared block.
 */
export async function waitConverged(
  nodes: readonly TestNode[],
  minHeight: number,
  slack: number,
  ms: number,
): Promise<void> {
  let last = '';
  try {
    await waitUntil(
      async () => {
        const chains = await Promise.all(nodes.map(recentChain));
        const sets = chains.map((c) => new Set(c.ids));
        const c0 = chains[0]!;
        const i = c0.ids.findIndex((id) => sets.every((s) => s.has(id)));
        const common = i < 0 ? -1 : c0.height - i;
        last = `heights ${chains.map((c) => c.height).join(', ')}, common ${common}`;
        return common >= minHeight && chains.every((c) => c.height - common <= slack);
      },
      ms,
      `convergence at height ${minHeight}`,
      50,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}: ${last}`);
  }
}

/** A transaction a scenario sent: its hash, the fee it paid, the node it went to. */
export interface Sent {
  readonly hash: string;
  readonly fee: bigint;
  readonly node: TestNode;
}

/**
 * The user wallets of a scenario (F's `WalletType::User`), tracking what each sent. With a sponsored
 * fee account (F's "we have a sponsored genesis fee account"), a wallet's transfers spend notes the
 * scenario picks from the wallet (the largest first, none already in flight) and the account pays
 * the fee and takes its change; without one, the node's wallet funds the transfer and its fee from the
 * sender's notes.
 */
export class ScenarioWallets {
  readonly sent = new Map<string, Sent[]>();
  private readonly inFlight = new Set<string>();

  constructor(
    /** The node each wallet sends through. */
    private readonly nodeOf: (wallet: string) => TestNode,
    /** The sponsored fee account's wallet name. */
    readonly sponsor?: string,
    /** The node whose wallet funds every sponsored transaction (default: the sender's node). */
    private readonly sponsorFunder?: TestNode,
  ) {}

  private record(wallet: string, s: Sent): void {
    const list = this.sent.get(wallet) ?? [];
    list.push(s);
    this.sent.set(wallet, list);
  }

  /** Free notes of `pk` (none in flight), the largest first, worth at least `need`; marked in flight. */
  private async pick(tn: TestNode, pk: string, need: bigint): Promise<{ ids: string[]; value: bigint }> {
    const notes = [...(await balanceOf(tn, pk)).notes.entries()]
      .filter(([id]) => !this.inFlight.has(id))
      .sort((x, y) => (y[1] > x[1] ? 1 : y[1] < x[1] ? -1 : 0));
    const ids: string[] = [];
    let value = 0n;
    for (const [id, v] of notes) {
      if (value >= need) break;
      ids.push(id);
      value += v;
    }
    assert.ok(value >= need, `${pk} holds ${value} free, needs ${need}`);
    for (const id of ids) this.inFlight.add(id);
    return { ids, value };
  }

  /** One transaction from `wallet` with these outputs (wallet names or public keys as `to`). */
  async send(wallet: string, outputs: readonly { to: string; value: number | bigint }[]): Promise<Sent> {
    const tn = this.nodeOf(wallet);
    const pk = pkOf(wallet);
    const outs = outputs.map((o) => ({
      pk: /^[0-9a-f]{64}$/.test(o.to) ? o.to : pkOf(o.to),
      value: BigInt(o.value),
    }));
    let p: Prepared;
    let via = tn;
    if (this.sponsor === undefined) p = await prepare(tn, { outputs: outs, funding: [pk] });
    else {
      // The account's notes are picked by one node's wallet (`sponsorFunder`), which keeps them reserved
      // while in flight: wallets on several nodes would each pick the same free note.
      const funder = this.sponsorFunder ?? tn;
      const need = outs.reduce((s, o) => s + o.value, 0n);
      const { ids: inputs, value: have } = await this.pick(funder, pk, need);
      const change = have > need ? [{ pk, value: have - need }] : [];
      p = await prepare(funder, { outputs: [...outs, ...change], funding: [pkOf(this.sponsor)], inputs });
      // Submitted where it was funded: its inputs are unspent at that node's tip. Another node may not
      // have the block that made them yet, and it evicts, as F's block builder does, a pending
      // transaction that does not apply when it builds a block.
      via = funder;
    }
    await submitOk(via, p);
    const s = { hash: p.hash, fee: p.fee, node: via };
    this.record(wallet, s);
    return s;
  }

  /** F's "I send N transactions of V LGO each from wallet A to wallet B" (one after the other). */
  async sendEach(wallet: string, to: string, count: number, value: number): Promise<Sent[]> {
    const out: Sent[] = [];
    for (let i = 0; i < count; i++) out.push(await this.send(wallet, [{ to, value }]));
    return out;
  }

  /** F's coin split: one transaction with `count` outputs of `value` to the wallet itself. */
  split(wallet: string, count: number, value: number): Promise<Sent> {
    return this.send(
      wallet,
      Array.from({ length: count }, () => ({ to: wallet, value })),
    );
  }

  /**
   * F's "wallet X has all submitted transactions settled" (and "0 or less encumbered outputs": no
   * note of the wallet is held by a transaction in flight): every transaction it sent is included.
   */
  async settled(wallet: string, ms: number): Promise<void> {
    for (const s of this.sent.get(wallet) ?? []) await waitIncluded(s.node, s.hash, ms);
  }

  /** F's "tracked wallet fees equal sponsored fee account spent fees". */
  async feesMatchSponsor(tn: TestNode, sponsorGenesis: bigint): Promise<void> {
    assert.ok(this.sponsor, 'a sponsored fee account');
    const fees = [...this.sent.values()].flat().reduce((s, x) => s + x.fee, 0n);
    const spent = sponsorGenesis - (await balanceOf(tn, pkOf(this.sponsor))).balance;
    assert.equal(fees, spent, 'the fees paid equal what the sponsored account spent');
  }
}

/** F's "wallet X has N or more outputs (and V or more LGO) in S seconds". */
export function waitOutputs(
  tn: TestNode,
  wallet: string,
  o: {
    minOutputs?: number;
    exactOutputs?: number;
    minValue?: bigint;
    maxValue?: bigint;
    exactValue?: bigint;
  },
  ms: number,
): Promise<Balance> {
  const pk = /^[0-9a-f]{64}$/.test(wallet) ? wallet : pkOf(wallet);
  return waitBalance(
    tn,
    pk,
    (b) =>
      (o.minOutputs === undefined || b.notes.size >= o.minOutputs) &&
      (o.exactOutputs === undefined || b.notes.size === o.exactOutputs) &&
      (o.minValue === undefined || b.balance >= o.minValue) &&
      (o.maxValue === undefined || b.balance <= o.maxValue) &&
      (o.exactValue === undefined || b.balance === o.exactValue),
    ms,
    `${wallet}: ${JSON.stringify(o, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
  );
}

/**
 * A ChannelInscribe op (F `InscriptionOp`: the channel, the payload, the root as parent, the signer's
 * Ed25519 key), to fund with `prepare({ ops: [{ op, proof: null }] })` and sign with `signInscription`.
 */
export function inscribeOp(signer: Ed25519Signer, channelId: Uint8Array, payload: Uint8Array): Json {
  return {
    opcode: 17,
    payload: {
      channel_id: bytesToHex(channelId),
      inscription: Buffer.from(payload).toString('hex'),
      parent: '00'.repeat(32),
      signer: bytesToHex(signer.publicKey),
    },
  } as unknown as Json;
}

/** Puts the signer's Ed25519 signature over the funded transaction's hash as the first op's proof. */
export function signInscription(p: Prepared, signer: Ed25519Signer): void {
  const s = p.signed as unknown as { ops_proofs: Json[] };
  s.ops_proofs[0] = { Ed25519Sig: bytesToHex(signer.sign(hexToBytes(p.hash))) } as unknown as Json;
}
