/** Shared by the PoW unit tests: winning tickets found by search, and in-memory fakes of the miner side. */
import { randomBytes } from 'node:crypto';
import { frFromBytesModOrder } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { powTicket } from '../../../src/ledger/pow-claims.ts';
import type { LedgerState } from '../../../src/ledger/state.ts';
import { type MinerControl, openWinnerStore, type PowWinner } from '../../../src/pow/index.ts';
import { MemoryKv } from '../../../src/storage/kv.ts';

/** Winning tickets on a block of `state`'s chain: `n` fresh keys whose ticket is below the target. */
export function findWinners(
  state: LedgerState,
  blockId: Uint8Array,
  blockSlot: bigint,
  n: number,
  nonce: bigint = state.epoch_state.nonce,
): PowWinner[] {
  const out: PowWinner[] = [];
  while (out.length < n) {
    const secretKey = frFromBytesModOrder(randomBytes(32));
    const publicKey = zkPublicKey(secretKey);
    const ticket = powTicket(nonce, blockId, publicKey);
    if (ticket < state.pow.target)
      out.push({ ticket, blockId, blockSlot, epochNonce: nonce, secretKey, publicKey });
  }
  return out;
}

/** A miner that only records its toggles. */
export class FakeMiner implements MinerControl {
  isMining = false;
  starts = 0;
  closed = false;
  start(): void {
    this.isMining = true;
    this.starts++;
  }
  stop(): void {
    this.isMining = false;
  }
  async close(): Promise<void> {
    this.closed = true;
    this.isMining = false;
  }
}

// ---- a PoW service over fakes of the chain, the wallet and the mempool, on a TestChain's ledger

import { EventEmitter } from 'node:events';
import pino from 'pino';
import type { ProcessedBlock } from '../../../src/chain/index.ts';
import type { SignedMantleTx } from '../../../src/mantle/tx.ts';
import { txHash } from '../../../src/mantle/tx.ts';
import { type ClaimTarget, DEFAULT_POW, type PowSection, PowService } from '../../../src/pow/index.ts';
import { insecureTestZkSign } from '../../../src/zk/insecure-test-proofs.ts';
import { TestChain } from '../../mocks/ledger.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export class PowHarness {
  readonly c = new TestChain();
  readonly events = new EventEmitter();
  consensusState: 'Bootstrapping' | 'Online';
  rateNum = 1n;
  /** The claim transactions published through Blend and not included yet. */
  readonly pool = new Map<string, SignedMantleTx>();
  /** When set, Blend refuses what it is given with this error. */
  blendFails: Error | undefined;
  readonly included = new Set<string>();
  readonly balances = new Map<bigint, bigint>();
  balanceFails = false;
  slot = 0n;
  /** How many times the service read the current slot (its auto-claim ticker checks it on a timer). */
  slotReads = 0;
  /** The service's log lines (JSON). */
  readonly logs: string[] = [];
  /** The real ticket store, on the in-memory key-value store. */
  readonly store = openWinnerStore(new MemoryKv());
  readonly miner = new FakeMiner();
  readonly service: PowService;

  constructor(
    opts: {
      online?: boolean;
      targets?: ClaimTarget[];
      tick?: PowSection['auto_claim']['tick'];
      rateNum?: bigint;
    } = {},
  ) {
    this.consensusState = opts.online === false ? 'Bootstrapping' : 'Online';
    if (opts.rateNum !== undefined) this.rateNum = opts.rateNum;
    this.c.apply([], 5n);
    const h = this;
    const targets = opts.targets ?? [];
    this.service = PowService.init(
      {
        pow: { ...DEFAULT_POW, auto_claim: { targets, tick: opts.tick ?? { unit: 'slots', value: 1n } } },
        knownKeys: targets.map((t) => t.public_key),
      },
      {
        chain: {
          on: (e: string, f: (...a: unknown[]) => void) => h.events.on(e, f),
          off: (e: string, f: (...a: unknown[]) => void) => h.events.off(e, f),
          once: (e: string, f: (...a: unknown[]) => void) => h.events.once(e, f),
          tip: () => ({ id: h.c.tip, slot: h.c.state.slot, height: 1, state: h.c.state }),
          get consensusState() {
            return h.consensusState;
          },
          get config() {
            return { ...h.c.ctx.config, pow: { ...h.c.ctx.config.pow, rate_num: h.rateNum } };
          },
          transactionLocation: (hash: Uint8Array) =>
            h.included.has(hex(hash)) ? { block: h.c.tip, position: 0 } : undefined,
        } as never,
        wallet: {
          balance: (pk: bigint) => {
            if (h.balanceFails) throw new Error('wallet unavailable');
            const b = h.balances.get(pk);
            return b === undefined ? undefined : { tip: h.c.tip, balance: b, notes: [], address: pk };
          },
        },
        // Blend: what it is given lands in `pool`, the transactions a leader includes next.
        blend: {
          disperseTransaction: async (tx: SignedMantleTx) => {
            if (h.blendFails) throw h.blendFails;
            const hash = txHash(tx.mantle_tx);
            h.pool.set(hex(hash), tx);
            return hash;
          },
        },
        signZk: async (msg, sks) => insecureTestZkSign(msg, [...sks]),
        store: this.store,
        miner: this.miner,
        clock: {
          currentSlot: () => {
            h.slotReads++;
            return h.slot;
          },
          slotDurationMs: 20,
        },
        logger: pino({ level: 'debug' }, { write: (l: string) => void h.logs.push(l) }),
      },
    );
  }

  goOnline(): void {
    this.consensusState = 'Online';
    this.events.emit('online');
  }

  /** Applies the pending claim transactions in a block (as a leader would) and tells the service. */
  async includePending(): Promise<void> {
    const txs = [...this.pool.values()];
    const r = this.c.apply(txs);
    for (const t of txs) this.included.add(hex(txHash(t.mantle_tx)));
    this.pool.clear();
    await this.processed(r.events);
  }

  /** Emits a processed block with these events and waits for the service to handle it. */
  async processed(events: ProcessedBlock['events'] = []): Promise<void> {
    const pb = {
      events,
      tip: { id: this.c.tip, slot: this.c.state.slot, height: 1 },
    } as unknown as ProcessedBlock;
    this.events.emit('block', pb);
    // Settlement runs under the service's lock: a claim taken after it waits for it.
    await this.service.claimable();
  }

  async addWinners(n: number): Promise<PowWinner[]> {
    const ws = findWinners(this.c.state, this.c.tip, this.c.state.slot, n);
    for (const w of ws) await this.store.add(w);
    return ws;
  }

  balanceOnChain(pk: bigint): bigint {
    let sum = 0n;
    for (const r of this.c.state.notes.values()) if (r.note.pk === pk) sum += r.note.value;
    return sum;
  }
}
