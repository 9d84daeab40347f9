/**
 * Child process of the wallet benchmark (bench/wallet.bench.ts): the node's API server and wallet
 * service over a chain whose ledger state holds `<notes>` notes, `<owned>` of them owned by one known
 * key (a block tree of one block: the chain here is a stand-in that answers the reads the two measured
 * endpoints make). It sends `{type:'ready', url, pk}` over IPC and stops on `{type:'stop'}` or when the
 * parent goes away.
 *
 *   wallet-api-child.ts <notes> <owned>
 */
import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import { ApiServer } from '../src/api/server.ts';
import type { IChain } from '../src/chain/index.ts';
import { bytesToHex } from '../src/codec/hex.ts';
import { type Fr, frToBytes } from '../src/crypto/field.ts';
import { KeyStore } from '../src/kms/index.ts';
import { devnetKeys } from '../src/ledger/devnet-keys.ts';
import type { LedgerState, NoteRecord } from '../src/ledger/state.ts';
import type { IMempool } from '../src/mempool/interface.ts';
import { devnetConfig } from '../src/node/devnet.ts';
import type { KvStore } from '../src/storage/kv.ts';
import { WalletStore } from '../src/storage/wallet-store.ts';
import { bigintKeys, PMap } from '../src/util/pmap.ts';
import { Wallet } from '../src/wallet/index.ts';
import { INSECURE_TEST_PROOFS } from '../src/zk/insecure-test-proofs.ts';
import { FAST } from '../test/mocks/fast-deployment.ts';

const total = Number(process.argv[2] ?? 1_000_000);
const owned = Number(process.argv[3] ?? 1000);
const pk = devnetKeys(1)[0]!.publicKey;

const t0 = performance.now();
const notes = PMap.empty<Fr, NoteRecord>(bigintKeys).withMutations((m) => {
  for (let i = 0; i < total; i++) {
    // Distinct ids spread over the field; every `total/owned`-th note belongs to the wallet's key.
    const id =
      (BigInt(i + 1) * 0x9e3779b97f4a7c15n) %
      0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;
    const owner = i % Math.floor(total / owned) === 0 ? pk : BigInt(i + 7);
    m.set(id, {
      note: { value: BigInt(1000 + i), pk: owner },
      index: i,
      origin: BigInt(i),
      output_index: 0,
      channel: null,
      locked_by: null,
    });
  }
});
const state = {
  notes,
  gas: { execution_base_gas_price: 1n, storage_gas_price: 1n },
} as unknown as LedgerState;
const tipId = new Uint8Array(32).fill(1);
const ref = { id: tipId, slot: 100n, height: 1 };
const chain = Object.assign(new EventEmitter(), {
  consensusState: 'Online',
  headVersion: 1,
  tip: () => ({ ...ref, state }),
  lib: () => ref,
  stateOf: (id: Uint8Array) => (bytesToHex(id) === bytesToHex(tipId) ? state : undefined),
  block: () => undefined,
  has: (id: Uint8Array) => bytesToHex(id) === bytesToHex(tipId),
}) as unknown as IChain;

const mem = new Map<string, Uint8Array>();
const kv = {
  get: (_b: number, k: Uint8Array) => mem.get(bytesToHex(k)),
  has: (_b: number, k: Uint8Array) => mem.has(bytesToHex(k)),
  range: () => [],
  async transaction(fn: (tx: { put(b: number, k: Uint8Array, v: Uint8Array): void; del(): void }) => void) {
    fn({ put: (_b, k, v) => mem.set(bytesToHex(k), v), del: () => {} });
  },
  async close() {},
} as unknown as KvStore;

const cfg = devnetConfig();
const wallet = await Wallet.init(
  { ...cfg.wallet, known_keys: { k: bytesToHex(frToBytes(pk)) } },
  {
    chain,
    mempool: {} as IMempool,
    kms: KeyStore.init({ backend: { keys: {} } }, { proofs: INSECURE_TEST_PROOFS }),
    store: new WalletStore(kv),
    logger: pino({ level: 'silent' }),
    signal: new AbortController().signal,
  },
);
const server = await ApiServer.init(
  { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
  pino({ level: 'silent' }),
);
const address = await server.serve({
  build: { commit: null, tag: null },
  setLogFilter: () => {},
  chain,
  get clock(): never {
    throw new Error('not read by the measured endpoints');
  },
  deployment: FAST,
  phase: () => 'Following',
  get mempool(): never {
    throw new Error('not read by the measured endpoints');
  },
  get pow(): never {
    throw new Error('not read by the measured endpoints');
  },
  get ops(): never {
    throw new Error('not read by the measured endpoints');
  },
  get network(): never {
    throw new Error('not read by the measured endpoints');
  },
  get blend(): never {
    throw new Error('not read by the measured endpoints');
  },
  wallet,
});
process.stderr.write(
  `wallet bench child: ${total} notes (${wallet.balance(pk)?.notes.length} owned) ready in ${Math.round(performance.now() - t0)} ms\n`,
);
process.send?.({ type: 'ready', url: `http://${address}`, pk: bytesToHex(frToBytes(pk)) });
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('message', (m: { type: string }) => {
  if (m.type === 'stop') void stop();
});
process.on('disconnect', () => void stop());
