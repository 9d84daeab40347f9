/**
 * The wallet service against a fake chain (ledger states with notes only) and a fake mempool: note
 * tracking per block across a fork and a restart from the persisted LIB notes, balances (channel notes
 * out, locked notes in), reservations (never funded twice, released on failure, expiring with LIB
 * progress), the 32-input limit and the fee cap refused with nothing reserved.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import pino from 'pino';
import type { BlockRef, ChainEvents, IChain } from '../../../src/chain/index.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { type Fr, frToBytes } from '../../../src/crypto/field.ts';
import { KeyStore, zkKeyId } from '../../../src/kms/index.ts';
import { devnetKeys } from '../../../src/ledger/devnet-keys.ts';
import type { LedgerState, NoteRecord } from '../../../src/ledger/state.ts';
import type { SignedMantleTx } from '../../../src/mantle/tx.ts';
import type { IMempool } from '../../../src/mempool/interface.ts';
import { Bucket } from '../../../src/storage/buckets.ts';
import type { KvStore } from '../../../src/storage/kv.ts';
import { WalletStore } from '../../../src/storage/wallet-store.ts';
import { bigintKeys, PMap, stringKeys } from '../../../src/util/pmap.ts';
import { addLedgerOutputs, newBuilder, Wallet, WalletError } from '../../../src/wallet/index.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';

const [alice, bob] = devnetKeys(2) as [{ secretKey: Fr; publicKey: Fr }, { secretKey: Fr; publicKey: Fr }];
const A = alice.publicKey;
const B = bob.publicKey;

function rec(value: number, pk: Fr, extra: Partial<NoteRecord> = {}): NoteRecord {
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

function ledger(notes: PMap<Fr, NoteRecord>): LedgerState {
  return {
    notes,
    gas: { execution_base_gas_price: 1n, storage_gas_price: 1n },
    channels: PMap.empty(stringKeys),
    sdp: { declarations: PMap.empty(stringKeys) },
  } as unknown as LedgerState;
}

const bid = (n: number) => new Uint8Array(32).fill(n);

/** A block tree of ledger states; `add` emits `block`, `setLib` emits `lib` and prunes below it. */
class FakeChain extends EventEmitter<ChainEvents> {
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

class MemKv implements KvStore {
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

class FakeMempool {
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

async function start(chain: FakeChain, kv = new MemKv(), mempool = new FakeMempool(), expiry = 4) {
  const wallet = await Wallet.init(
    {
      known_keys: { a: bytesToHex(frToBytes(A)), b: bytesToHex(frToBytes(B)) },
      voucher_master_key_id: null,
      pending_note_expiry_blocks: expiry,
    },
    {
      chain: chain as unknown as IChain,
      mempool: mempool as unknown as IMempool,
      kms,
      store: new WalletStore(kv),
      logger: pino({ level: 'silent' }),
      signal: new AbortController().signal,
    },
  );
  return { wallet, kv, mempool };
}

const notes = (entries: [bigint, NoteRecord][]) => PMap.from<Fr, NoteRecord>(bigintKeys, entries);

test('balances follow each fork; channel notes are not counted, SDP-locked notes are', async () => {
  const g = notes([
    [1n, rec(5000, A)],
    [2n, rec(300, A, { channel: 'aa'.repeat(32) })],
    [3n, rec(200, A, { locked_by: 'bb'.repeat(32) })],
    [9n, rec(1, 99n)],
  ]);
  const chain = new FakeChain(ledger(g));
  const { wallet } = await start(chain);
  assert.equal(wallet.balance(A)!.balance, 5200n);
  assert.deepEqual(
    wallet
      .balance(A)!
      .notes.map((n) => n.id)
      .sort(),
    [1n, 3n],
  );
  assert.equal(wallet.balance(B), undefined, 'a key without notes answers none (404)');
  // Fork 1 (blocks 1): A's 5000 note goes to B. Fork 2 (block 2): a new note for A.
  chain.add(1, 0, g.delete(1n).set(10n, rec(4000, B)).set(11n, rec(900, A)));
  chain.add(2, 0, g.set(12n, rec(7, A)));
  assert.equal(wallet.balance(A, bid(1))!.balance, 1100n);
  assert.equal(wallet.balance(B, bid(1))!.balance, 4000n);
  assert.equal(wallet.balance(A, bid(2))!.balance, 5207n);
  assert.equal(wallet.balance(B, bid(2)), undefined);
  assert.throws(() => wallet.balance(A, bid(77)), /Requested wallet state for unknown block: 4d4d/);
  await wallet.close();
});

test('a block the wallet did not see is derived on demand; a restart starts from the persisted LIB notes', async () => {
  const g = notes([[1n, rec(5000, A)]]);
  const chain = new FakeChain(ledger(g));
  const first = await start(chain);
  chain.add(1, 0, g.set(2n, rec(10, B)));
  chain.setLib(1);
  await first.wallet.close();
  // Blocks processed while the wallet is not running.
  chain.add(2, 1, chain.notesOf(1).set(3n, rec(20, B)));
  chain.add(3, 2, chain.notesOf(2).delete(1n));
  // The persisted notes are at block 1: the restart must not scan the ledger. Make a scan visible by
  // corrupting the ledger's view of block 1 (a scan would see no notes at all).
  const persisted = first.kv;
  const lib1 = chain.nodes.get(bytesToHex(bid(1)))!;
  const scanned = lib1.state;
  lib1.state = ledger(notes([]));
  const second = await start(chain, persisted);
  lib1.state = scanned;
  // Block 2 and 3 derive from the persisted block-1 notes and the ledger diffs.
  assert.equal(second.wallet.balance(B, bid(3))!.balance, 30n);
  assert.equal(second.wallet.balance(A, bid(3)), undefined);
  assert.equal(second.wallet.balance(A, bid(2))!.balance, 5000n);
  await second.wallet.close();
  assert.ok(persisted.get(Bucket.Wallet, new TextEncoder().encode('lib_notes')));
});

test('transfers: fee from the largest note, change to the change key, reserved notes never funded twice', async () => {
  const g = notes([
    [1n, rec(5000, A)],
    [2n, rec(3000, A)],
  ]);
  const chain = new FakeChain(ledger(g));
  const { wallet, mempool } = await start(chain);
  const t1 = wallet.transfer({ changePk: A, fundingPks: [A], recipientPk: B, amount: 100n });
  const t2 = wallet.transfer({ changePk: A, fundingPks: [A], recipientPk: B, amount: 100n });
  await Promise.all([t1, t2]);
  const inputs = mempool.added.map((tx) => (tx.mantle_tx.ops.at(-1)!.payload as { inputs: Fr[] }).inputs);
  assert.deepEqual(inputs, [[1n], [2n]], 'the second transfer funds with the next note');
  const out = mempool.added[0]!.mantle_tx.ops.at(-1)!.payload as { outputs: { value: bigint; pk: Fr }[] };
  assert.equal(out.outputs[0]!.value, 100n);
  assert.equal(out.outputs[0]!.pk, B);
  assert.equal(out.outputs[1]!.pk, A, 'change last, to the change key');
  assert.ok(out.outputs[1]!.value < 4900n && out.outputs[1]!.value > 4000n);
  assert.equal(mempool.added[0]!.ops_proofs[0]!.type, 'ZkSig');
  // Both notes are reserved: a third transfer has nothing left.
  await assert.rejects(
    wallet.transfer({ changePk: A, fundingPks: [A], recipientPk: B, amount: 1n }),
    /Wallet does not have enough funds, available=0/,
  );
  await wallet.close();
});

test('pending_note_expires_after_enough_lib_progress (services/wallet/src/states.rs)', async () => {
  const g = notes([[1n, rec(5000, A)]]);
  const chain = new FakeChain(ledger(g));
  const { wallet } = await start(chain, undefined, undefined, 4);
  await wallet.fund({ builder: newBuilder(), changePk: A, fundingPks: [A], priorityFeePercent: 0n });
  assert.ok(wallet.isReserved(1n));
  let parent = 0;
  for (let n = 1; n <= 3; n++) {
    chain.add(n, parent, g);
    parent = n;
  }
  chain.setLib(3);
  assert.ok(wallet.isReserved(1n), 'EXPIRY_BLOCKS - 1 of LIB progress keeps it');
  chain.add(4, 3, g);
  chain.setLib(4);
  assert.ok(!wallet.isReserved(1n), 'the fourth immutable block releases it');
  await wallet.close();
});

test('failed submission releases the reservation; fee cap and 32-input limit reserve nothing', async () => {
  const many = notes(
    Array.from({ length: 40 }, (_, i) => [BigInt(i + 1), rec(100, A)] as [bigint, NoteRecord]),
  );
  const chain = new FakeChain(ledger(many.set(100n, rec(5000, B))));
  const { wallet, mempool } = await start(chain);
  mempool.fail = true;
  await assert.rejects(
    wallet.transfer({ changePk: B, fundingPks: [B], recipientPk: A, amount: 1n }),
    /pool full/,
  );
  assert.ok(!wallet.isReserved(100n));
  mempool.fail = false;
  await assert.rejects(
    wallet.fund({
      builder: newBuilder(),
      changePk: B,
      fundingPks: [B],
      priorityFeePercent: 0n,
      maxTxFee: 10n,
    }),
    (e) => e instanceof WalletError && /^tx_fee\(\d+\) exceeds max_tx_fee\(10\)$/.test(e.message),
  );
  assert.ok(!wallet.isReserved(100n));
  // 40 notes of 100 pay 1,500 and its fee with about 35 inputs: more than one transfer can spend.
  const builder = addLedgerOutputs(newBuilder(), [{ value: 1500n, pk: B }]);
  await assert.rejects(
    wallet.fund({ builder, changePk: A, fundingPks: [A], priorityFeePercent: 0n }),
    (e) => e instanceof WalletError && e.code === 'WALLET_TOO_MANY_INPUTS',
  );
  for (let i = 1; i <= 40; i++) assert.ok(!wallet.isReserved(BigInt(i)));
  await wallet.close();
});

test('a claim funded, its PoC added over the funded hash, then signed and submitted; without it, released', async () => {
  const chain = new FakeChain(ledger(notes([[1n, rec(5000, A)]])));
  const { wallet, mempool } = await start(chain);
  const claim = newBuilder([{ opcode: 48, payload: { rewards_root: 1n, voucher_nullifier: 2n, pk: A } }]);
  const funded = await wallet.fund({ builder: claim, changePk: A, fundingPks: [A], priorityFeePercent: 0n });
  await assert.rejects(
    wallet.submitFunded(funded),
    (e) => e instanceof WalletError && e.code === 'WALLET_MISSING_PROOF' && /op index 0/.test(e.message),
  );
  assert.ok(!wallet.isReserved(1n), 'a failed signature releases the notes');
  const again = await wallet.fund({ builder: claim, changePk: A, fundingPks: [A], priorityFeePercent: 0n });
  const poc = { type: 'PoC' as const, proof: new Uint8Array(128).fill(9) };
  await wallet.submitFunded({ ...again, builder: { ...again.builder, opProofs: new Map([[0, poc]]) } });
  const tx = mempool.added[0]!;
  assert.deepEqual(tx.ops_proofs[0], poc);
  assert.equal(tx.ops_proofs[1]!.type, 'ZkSig');
  assert.deepEqual(tx.ops_proofs[1], { type: 'ZkSig', signature: again.transferProof });
  await wallet.close();
});
