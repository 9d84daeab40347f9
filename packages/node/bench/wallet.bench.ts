/**
 * Wallet figures:
 *
 * - `wallet.transfer_latency_s`: one transfer through the wallet service, in this process: build,
 *   fund (largest note first, exact mandatory fee), the ZkSig proof with the real Groth16 backend (its
 *   prover process) and admission (the proof verified, as the mempool's preverification does); the
 *   mean over BENCH_WALLET_TRANSFERS transfers (default 4) after one warm-up transfer. The chain is a
 *   one-block stand-in whose ledger holds the funding key's notes.
 * - `wallet.balance_ratio_vs_info`: requests per second of `GET /wallet/{pk}/balance` for a key owning
 *   1,000 of the ledger's 1,000,000 notes, divided by the rate of `GET /cryptarchia/info` from the same
 *   server (bench/wallet-api-child.ts, its own process), autocannon with 50 connections, alternating
 *   3 × 5 s rounds of each; medians of the rounds. `wallet.balance_req_s` is the balance rate itself;
 *   `wallet.balance_ratio_bare_bound` is the same ratio for two bare `node:http` servers (bench/api-bare.ts)
 *   answering the same bytes and headers, measured in the same rounds: the bound the sizes of the two
 *   responses set (a balance of 1,000 notes is about 77 kB, the info about 200 bytes).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { pino } from 'pino';
import type { IChain } from '../src/chain/index.ts';
import { bytesToHex } from '../src/codec/hex.ts';
import { type Fr, frToBytes } from '../src/crypto/field.ts';
import { KeyStore, zkKeyId } from '../src/kms/index.ts';
import { devnetKeys } from '../src/ledger/devnet-keys.ts';
import type { LedgerState, NoteRecord } from '../src/ledger/state.ts';
import type { ZkSignature } from '../src/mantle/proofs.ts';
import { type SignedMantleTx, txHash, txHashToFr } from '../src/mantle/tx.ts';
import type { IMempool } from '../src/mempool/interface.ts';
import type { KvStore } from '../src/storage/kv.ts';
import { WalletStore } from '../src/storage/wallet-store.ts';
import { bigintKeys, PMap, stringKeys } from '../src/util/pmap.ts';
import { Wallet } from '../src/wallet/index.ts';
import { createProofSystem } from '../src/zk/index.ts';
import { FAST } from '../test/mocks/fast-deployment.ts';
import { type Figure, median } from './harness.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const log = (m: string) => process.stderr.write(`${m}\n`);

interface CannonResult {
  readonly duration: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly '2xx': number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (o: {
  url: string;
  connections: number;
  pipelining: number;
  duration: number;
}) => Promise<CannonResult>;

async function reqPerS(url: string, seconds: number): Promise<number> {
  const r = await autocannon({ url, connections: 50, pipelining: 1, duration: seconds });
  if (r.errors > 0 || r.non2xx > 0) log(`${url}: ${r.errors} errors, ${r.non2xx} non-2xx`);
  return r['2xx'] / r.duration;
}

interface BalanceRun {
  readonly info: number;
  readonly balance: number;
  /** The same two responses (bytes and headers) from bare `node:http` servers. */
  readonly bareInfo: number;
  readonly bareBalance: number;
}

let balanceRun: Promise<BalanceRun> | undefined;

/** A child process of this benchmark, with IPC; killed when this process exits. */
function child(script: string, args: string[]): ChildProcess {
  const p = spawn(process.execPath, [...childExecArgv(), `bench/${script}`, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const kill = () => p.kill('SIGKILL');
  process.once('exit', kill);
  p.once('exit', () => process.off('exit', kill));
  return p;
}

function ready(p: ChildProcess, send?: object): Promise<{ url: string; pk: string }> {
  return new Promise((resolve, reject) => {
    p.once('message', (m: { type: string; url: string; pk: string }) => resolve(m));
    p.once('exit', (code) => reject(new Error(`benchmark child exited (${code})`)));
    if (send) p.send(send);
  });
}

function measureBalance(): Promise<BalanceRun> {
  balanceRun ??= (async () => {
    const node = child('wallet-api-child.ts', ['1000000', '1000']);
    const bares: ChildProcess[] = [];
    try {
      const r = await ready(node);
      const urls = { info: `${r.url}/cryptarchia/info`, balance: `${r.url}/wallet/${r.pk}/balance` };
      const bareUrls: Record<string, string> = {};
      for (const [name, url] of Object.entries(urls)) {
        const res = await fetch(url);
        const body = Buffer.from(await res.arrayBuffer());
        const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
        const headers: Record<string, string> = {};
        res.headers.forEach((v, k) => {
          if (!skip.has(k)) headers[k] = v;
        });
        const bare = child('api-bare.ts', []);
        bares.push(bare);
        bareUrls[name] = (await ready(bare, { type: 'serve', headers, body: body.toString('base64') })).url;
      }
      const runs: Record<string, number[]> = { info: [], balance: [], bareInfo: [], bareBalance: [] };
      for (let round = 0; round < 3; round++) {
        runs.info!.push(await reqPerS(urls.info, 5));
        runs.balance!.push(await reqPerS(urls.balance, 5));
        runs.bareInfo!.push(await reqPerS(bareUrls.info!, 5));
        runs.bareBalance!.push(await reqPerS(bareUrls.balance!, 5));
      }
      return {
        info: median(runs.info!),
        balance: median(runs.balance!),
        bareInfo: median(runs.bareInfo!),
        bareBalance: median(runs.bareBalance!),
      };
    } finally {
      for (const p of [node, ...bares]) {
        p.send?.({ type: 'stop' });
        setTimeout(() => p.kill('SIGKILL'), 5_000).unref();
      }
    }
  })();
  return balanceRun;
}

/** Transfers through a wallet over a one-block chain, with the real Groth16 backend; seconds each. */
async function transferLatencies(count: number): Promise<number[]> {
  const [key] = devnetKeys(1) as [{ secretKey: Fr; publicKey: Fr }];
  const proofs = createProofSystem(FAST);
  try {
    const notes = PMap.from<Fr, NoteRecord>(
      bigintKeys,
      Array.from({ length: count + 1 }, (_, i) => [
        BigInt(i + 1),
        {
          note: { value: 1_000_000n, pk: key.publicKey },
          index: i,
          origin: 1n,
          output_index: i,
          channel: null,
          locked_by: null,
        },
      ]),
    );
    const state = {
      notes,
      gas: { execution_base_gas_price: 1n, storage_gas_price: 1n },
      channels: PMap.empty(stringKeys),
    } as unknown as LedgerState;
    const ref = { id: new Uint8Array(32), slot: 0n, height: 0 };
    const chain = Object.assign(new EventEmitter(), {
      tip: () => ({ ...ref, state }),
      lib: () => ref,
      stateOf: () => state,
      block: () => undefined,
      has: () => true,
    }) as unknown as IChain;
    const mem = new Map<string, Uint8Array>();
    const kv = {
      get: (_b: number, k: Uint8Array) => mem.get(bytesToHex(k)),
      async transaction(fn: (tx: { put(b: number, k: Uint8Array, v: Uint8Array): void }) => void) {
        fn({ put: (_b, k, v) => mem.set(bytesToHex(k), v) });
      },
    } as unknown as KvStore;
    // Admission: the transfer's proof verified, as the mempool's preverification does.
    const mempool = {
      async add(tx: SignedMantleTx) {
        const hash = txHash(tx.mantle_tx);
        const transfer = tx.mantle_tx.ops.at(-1)!.payload as { inputs: Fr[] };
        const sig = (tx.ops_proofs.at(-1) as { signature: ZkSignature }).signature;
        const ok = await proofs.verifyZkSign(
          { msg: txHashToFr(hash), publicKeys: transfer.inputs.map((id) => notes.get(id)!.note.pk) },
          sig,
        );
        if (!ok) throw new Error('the transfer proof does not verify');
        return { hash, outcome: 'added' as const };
      },
    } as unknown as IMempool;
    const kms = KeyStore.init(
      {
        backend: {
          keys: { [zkKeyId(key.publicKey)]: { kind: 'Zk', secret: bytesToHex(frToBytes(key.secretKey)) } },
        },
      },
      { proofs },
    );
    const wallet = await Wallet.init(
      {
        known_keys: { k: zkKeyId(key.publicKey) },
        voucher_master_key_id: null,
        pending_note_expiry_blocks: 10,
      },
      {
        chain,
        mempool,
        kms,
        store: new WalletStore(kv),
        logger: pino({ level: 'silent' }),
        signal: new AbortController().signal,
      },
    );
    const out: number[] = [];
    for (let i = 0; i <= count; i++) {
      const t0 = performance.now();
      await wallet.transfer({
        changePk: key.publicKey,
        fundingPks: [key.publicKey],
        recipientPk: 5n,
        amount: 10n,
      });
      if (i > 0) out.push((performance.now() - t0) / 1000);
    }
    await wallet.close();
    return out;
  } finally {
    await proofs.close();
  }
}

export const figures: Figure[] = [
  {
    name: 'wallet.transfer_latency_s',
    unit: 's',
    async measure() {
      const n = Number(process.env.BENCH_WALLET_TRANSFERS ?? 4);
      const each = await transferLatencies(n);
      return each.reduce((a, b) => a + b, 0) / each.length;
    },
  },
  {
    name: 'wallet.balance_req_s',
    unit: 'req/s',
    measure: async () => (await measureBalance()).balance,
  },
  {
    name: 'wallet.balance_ratio_vs_info',
    unit: 'ratio',
    async measure() {
      const r = await measureBalance();
      log(`wallet: balance ${Math.round(r.balance)} req/s, info ${Math.round(r.info)} req/s`);
      return r.balance / r.info;
    },
  },
  {
    // The same ratio for bare servers sending the same bytes: what the response sizes alone allow.
    name: 'wallet.balance_ratio_bare_bound',
    unit: 'ratio',
    async measure() {
      const r = await measureBalance();
      log(`bare copies: balance ${Math.round(r.bareBalance)} req/s, info ${Math.round(r.bareInfo)} req/s`);
      return r.bareBalance / r.bareInfo;
    },
  },
];
