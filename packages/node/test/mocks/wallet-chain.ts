/**
 * A wallet over the chain double, for the wallet tests: blocks named by number whose ledger states
 * differ only in their notes (`add` emits `block`, `setLib` emits `lib` and prunes below it), the
 * in-memory key-value store, the mempool double, and two devnet keys in the key store.
 */
import pino from 'pino';
import { bytesToHex } from '../../src/codec/hex.ts';
import { type Fr, frToBytes } from '../../src/crypto/field.ts';
import { KeyStore, zkKeyId } from '../../src/kms/index.ts';
import { devnetKeys } from '../../src/ledger/devnet-keys.ts';
import type { LedgerState, NoteRecord } from '../../src/ledger/state.ts';
import { type KvStore, MemoryKv } from '../../src/storage/kv.ts';
import { WalletStore } from '../../src/storage/wallet-store.ts';
import { bigintKeys, PMap, stringKeys } from '../../src/util/pmap.ts';
import { Wallet } from '../../src/wallet/index.ts';
import { INSECURE_TEST_PROOFS } from '../../src/zk/insecure-test-proofs.ts';
import { FakeChain } from './chain.ts';
import { stateWith } from './ledger.ts';
import { FakeMempool } from './mempool.ts';

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
  const base = stateWith({});
  return stateWith({
    notes,
    gas: { ...base.gas, execution_base_gas_price: 1n, storage_gas_price: 1n },
    channels: PMap.empty(stringKeys),
    sdp: { ...base.sdp, declarations: PMap.empty(stringKeys) },
  });
}

export const bid = (n: number) => new Uint8Array(32).fill(n);

/** The chain double with blocks named by number (`bid`) holding the ledger states a test gives. */
export class WalletChain extends FakeChain {
  constructor(genesis: LedgerState) {
    super({ genesisState: genesis, genesisId: bid(0) });
  }
  /** Block `n` on block `parent` with these notes; it becomes the tip. */
  add(n: number, parent: number, notes: PMap<Fr, NoteRecord>): void {
    this.put(bid(n), { parent: bid(parent), state: ledger(notes) });
  }
  /** Block `n` becomes the LIB; the blocks below it are pruned. */
  setLib(n: number): void {
    this.finalize(bid(n), { prune: true });
  }
  notesOf(n: number): PMap<Fr, NoteRecord> {
    return this.stateOf(bid(n))!.notes;
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
  chain: WalletChain,
  kv: KvStore = new MemoryKv(),
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
      chain,
      mempool,
      kms: keyStore,
      store: new WalletStore(kv),
      logger: pino({ level: 'silent' }),
      signal: new AbortController().signal,
    },
  );
  return { wallet, kv, mempool };
}

export const notes = (entries: [bigint, NoteRecord][]) => PMap.from<Fr, NoteRecord>(bigintKeys, entries);
