/** Shared by the PoW unit tests: winning tickets found by search, and a PoW service over the doubles. */
import { randomBytes } from 'node:crypto';
import { frFromBytesModOrder } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { powTicket } from '../../../src/ledger/pow-claims.ts';
import type { LedgerState } from '../../../src/ledger/state.ts';
import { openWinnerStore, type PowWinner } from '../../../src/pow/index.ts';
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

// ---- a PoW service over the chain and wallet doubles, on a TestChain's ledger

import pino from 'pino';
import type { ChainTip, ProcessedBlock } from '../../../src/chain/index.ts';
import type { LedgerConfig } from '../../../src/ledger/parameters.ts';
import type { SignedMantleTx } from '../../../src/mantle/tx.ts';
import { txHash } from '../../../src/mantle/tx.ts';
import { type ClaimTarget, DEFAULT_POW, type PowSection, PowService } from '../../../src/pow/index.ts';
import { insecureTestZkSign } from '../../../src/zk/insecure-test-proofs.ts';
import { FakeChain, stubBlock } from '../../mocks/chain.ts';
import { TestChain } from '../../mocks/ledger.ts';
import { FakeMiner } from '../../mocks/miner.ts';
import { FakeWallet } from '../../mocks/wallet.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** The chain double whose tip is the harness ledger's, read live, and whose PoW rate is the harness's. */
class HarnessChain extends FakeChain {
  constructor(private readonly h: PowHarness) {
    super({ ledger: h.c, consensusState: h.online ? 'Online' : 'Bootstrapping' });
  }

  override tip(): ChainTip {
    const c = this.h.c;
    return { id: c.tip, slot: c.state.slot, height: 1, state: c.state };
  }

  override get config(): LedgerConfig {
    const config = this.h.c.ctx.config;
    return { ...config, pow: { ...config.pow, rate_num: this.h.rateNum } };
  }
}

export class PowHarness {
  readonly c = new TestChain();
  readonly online: boolean;
  readonly chain: HarnessChain;
  rateNum = 1n;
  /** The claim transactions published through Blend and not included yet. */
  readonly pool = new Map<string, SignedMantleTx>();
  /** When set, Blend refuses what it is given with this error. */
  blendFails: Error | undefined;
  /** Answers `balance` from its `balances`. */
  readonly wallet = new FakeWallet(undefined, () => this.c.tip);
  readonly balances = this.wallet.balances;
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
    this.online = opts.online !== false;
    this.chain = new HarnessChain(this);
    if (opts.rateNum !== undefined) this.rateNum = opts.rateNum;
    this.c.apply([], 5n);
    const targets = opts.targets ?? [];
    this.service = PowService.init(
      {
        pow: { ...DEFAULT_POW, auto_claim: { targets, tick: opts.tick ?? { unit: 'slots', value: 1n } } },
        knownKeys: targets.map((t) => t.public_key),
      },
      {
        chain: this.chain,
        wallet: this.wallet,
        // Blend: what it is given lands in `pool`, the transactions a leader includes next.
        blend: {
          disperseTransaction: async (tx: SignedMantleTx) => {
            if (this.blendFails) throw this.blendFails;
            const hash = txHash(tx.mantle_tx);
            this.pool.set(hex(hash), tx);
            return hash;
          },
        },
        signZk: async (msg, sks) => insecureTestZkSign(msg, [...sks]),
        store: this.store,
        miner: this.miner,
        clock: {
          currentSlot: () => {
            this.slotReads++;
            return this.slot;
          },
          slotDurationMs: 20,
        },
        logger: pino({ level: 'debug' }, { write: (l: string) => void this.logs.push(l) }),
      },
    );
  }

  goOnline(): void {
    this.chain.goOnline();
  }

  /** Applies the pending claim transactions in a block (as a leader would) and tells the service. */
  async includePending(): Promise<void> {
    const txs = [...this.pool.values()];
    const r = this.c.apply(txs);
    this.pool.clear();
    await this.processed(r.events);
  }

  /** Emits a processed block with these events and waits for the service to handle it. */
  async processed(events: ProcessedBlock['events'] = []): Promise<void> {
    const tip = { id: this.c.tip, slot: this.c.state.slot, height: 1 };
    const pb: ProcessedBlock = {
      block: stubBlock(new Uint8Array(32), tip.slot),
      id: tip.id,
      height: tip.height,
      events,
      applied: [],
      reverted: [],
      tip,
      lib: this.chain.lib(),
    };
    this.chain.emit('block', pb);
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
