/**
 * A wallet over a stand-in chain, for the wallet tests: ledger states holding notes only (one block
 * tree, `add` emits `block`, `setLib` emits `lib` and prunes below it), an in-memory KvStore, a
 * mempool that records what it is given (or fails), and two devnet keys in the key store.
 */
import { EventEmitter } from 'node:events';
import pino from 'pino';
import type { BlockRef, ChainEvents, IChain } from '../../src/chain/index.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { type Fr, frToBytes } from '../../src/crypto/field.ts';
import { KeyStore, zkKeyId } from '../../src/kms/index.ts';
import { devnetKeys } from '../../src/ledger/devnet-keys.ts';
import type { LedgerState, NoteRecord } from '../../src/ledger/state.ts';
import type { SignedMantleTx } from '../../src/mantle/tx.ts';
import type { IMempool } from '../../src/mempool/interface.ts';
import type { KvStore } from '../../src/storage/kv.ts';
import { WalletStore } from '../../src/storage/wallet-store.ts';
import { bigintKeys, PMap, stringKeys } from '../../src/util/pmap.ts';
import { Wallet } from '../../src/wallet/index.ts';
import { INSECURE_TEST_PROOFS } from '../../src/zk/insecure-test-proofs.ts';

export const [alice, bob] = devnetKeys(2) as [
  { secretKey: Fr; publicKey: Fr },
  { secretKey: Fr; publicKey: Fr },
];
export const A = alice.publicKey;
export const B = bob.publicKey;

export function rec(value: number, pk: Fr, extra: Partial<NoteRecord> = {}): NoteRecord {
  return {
    note: { value: BigInt(value), pk },
    index: 0,
    origin: 7n,
    output_index: 0,
    channel: null,
    locked_by: null,
    ...extra,
  };
}

export function ledger(notes: PMap<Fr, NoteRecord>): LedgerState {
  return {
    notes,
    gas: { execution_base_gas_price: 1n, storage_gas_price: 1n },
    channels: PMap.empty(stringKeys),
    sdp: { declarations: PMap.empty(stringKeys) },
  } as unknown as LedgerState;
}

export const bid = (n: number) => new Uint8Array(32).fill(n);

/** A block tree of ledger states; `add` emits `block`, `setLib` emits `lib` and prunes below it. */
export class FakeChain extends EventEmitter<ChainEvents> {
  readonly nodes = new Map<
    string,
    { parent: Uint8Array; state: LedgerState; height: number; id: Uint8Array }
  >();
  tipId: Uint8Array;
  libRef: BlockRef;

  constructor(genesis: LedgerState) {
    super();
    this.nodes.set(bytesToHex(bid(0)), { parent: bid(255), state: genesis, height: 0, id: bid(0) });
    this.tipId = bid(0);
    this.libRef = { id: bid(0), slot: 0n, height: 0 };
  }
  add(n: number, parent: number, notes: PMap<Fr, NoteRecord>): void {
    const p = this.nodes.get(bytesToHex(bid(parent)))!;
    this.nodes.set(bytesToHex(bid(n)), {
      parent: bid(parent),
      state: ledger(notes),
      height: p.height + 1,
      id: bid(n),
    });
    this.tipId = bid(n);
    this.emit('block', { id: bid(n) } as never);
  }
  setLib(n: number): void {
    const b = this.nodes.get(bytesToHex(bid(n)))!;
    this.libRef = { id: bid(n), slot: 0n, height: b.height };
    for (const [k, v] of this.nodes) if (v.height < b.height) this.nodes.delete(k);
    this.emit('lib', this.libRef);
  }
  notesOf(n: number): PMap<Fr, NoteRecord> {
    return this.nodes.get(bytesToHex(bid(n)))!.state.notes;
  }
  tip() {
    const t = this.nodes.get(bytesToHex(this.tipId))!;
    return { id: t.id, slot: 0n, height: t.height, state: t.state };
  }
  lib() {
    return this.libRef;
  }
  stateOf(id: Uint8Array) {
    return this.nodes.get(bytesToHex(id))?.state;
  }
  block(id: Uint8Array) {
    const n = this.nodes.get(bytesToHex(id));
    return n ? ({ header: { parent_block: n.parent } } as never) : undefined;
  }
  has(id: Uint8Array) {
    return this.nodes.has(bytesToHex(id));
  }
}

export class MemKv implements KvStore {
  readonly m = new Map<string, Uint8Array>();
  get(b: number, k: Uint8Array) {
    return this.m.get(`${b}:${bytesToHex(k)}`);
  }
  has(b: number, k: Uint8Array) {
    return this.m.has(`${b}:${bytesToHex(k)}`);
  }
  range(): Iterable<[Uint8Array, Uint8Array]> {
    return [];
  }
  async transaction(
    fn: (tx: { put: (b: number, k: Uint8Array, v: Uint8Array) => void; del: () => void }) => void,
  ) {
    const puts: [string, Uint8Array][] = [];
    fn({ put: (b, k, v) => puts.push([`${b}:${bytesToHex(k)}`, v.slice()]), del: () => {} });
    for (const [k, v] of puts) this.m.set(k, v);
  }
  async close() {}
}

export class FakeMempool {
  readonly added: SignedMantleTx[] = [];
  fail = false;
  async add(tx: SignedMantleTx) {
    if (this.fail) throw new Error('pool full');
    this.added.push(tx);
    return { hash: new Uint8Array(32), outcome: 'added' as const };
  }
}

const kms = KeyStore.init(
  {
    backend: {
      keys: Object.fromEntries(
        [alice, bob].map((k) => [
          zkKeyId(k.publicKey),
          { kind: 'Zk' as const, secret: bytesToHex(frToBytes(k.secretKey)) },
        ]),
      ),
    },
  },
  { proofs: INSECURE_TEST_PROOFS },
);

export async function startWallet(
  chain: FakeChain,
  kv = new MemKv(),
  mempool = new FakeMempool(),
  expiry = 4,
  keyStore: KeyStore = kms,
) {
  const wallet = await Wallet.init(
    {
      known_keys: { a: bytesToHex(frToBytes(A)), b: bytesToHex(frToBytes(B)) },
      voucher_master_key_id: null,
      pending_note_expiry_blocks: expiry,
    },
    {
      chain: chain as unknown as IChain,
      mempool: mempool as unknown as IMempool,
      kms: keyStore,
      store: new WalletStore(kv),
      logger: pino({ level: 'silent' }),
      signal: new AbortController().signal,
    },
  );
  return { wallet, kv, mempool };
}

export const notes = (entries: [bigint, NoteRecord][]) => PMap.from<Fr, NoteRecord>(bigintKeys, entries);
