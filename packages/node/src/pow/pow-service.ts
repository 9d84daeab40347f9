/**
 * The PoW service (F `services/pow/src/service.rs`): owns the miner and the winning-ticket store,
 * the mining toggle (off at start, not persisted), auto-claim, manual claims and their settlement.
 * It starts once the chain is Online (the reference waits for it before it answers anything); commands
 * received before are applied then.
 *
 * Claims: a transaction of the ready tickets whose block is on the tip's branch (claims.ts), published
 * through Blend in one payload (F `publish_reward_claim`), so that a claim does not show which node
 * mined the tickets; it reaches a mempool at the Blend exit node, not necessarily this one. Its tickets
 * are then pending until a block's `PoWRewardClaimed` events carry their nullifiers (retired) or their
 * window closes (pruned); F cannot see a claim dropped on the way, and neither does this service. A
 * manual claim may spend the tip's reward pool; an auto-claim tick spends a pool it draws down itself,
 * claim after claim, since the tip does not show the claims just published (F `drain_ready_rewards`).
 */
import type { Logger } from 'pino';
import { BlendError, type IBlend } from '../blend/index.ts';
import type { IChain, ProcessedBlock, SlotClock } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import { type Fr, frToBytes } from '../crypto/field.ts';
import { gasContextOf } from '../ledger/gas.ts';
import type { ZkSignature } from '../mantle/proofs.ts';
import { Semaphore } from '../util/semaphore.ts';
import type { IWallet } from '../wallet/index.ts';
import { AutoClaimTicker, neediestTarget, type TargetBalance } from './auto-claim.ts';
import { buildClaimBatch, claimableOn } from './claims.ts';
import { checkTargetsTracked, type PowSection, targetKey } from './config.ts';
import { noClaimTarget, PowError } from './errors.ts';
import type { ClaimableRewards, ClaimTargetStatus, IPow, PowStatus } from './interface.ts';
import type { WinnerStore } from './winners.ts';

export interface PowConfig {
  readonly pow: PowSection;
  /** The ZK public keys the wallet tracks (hex of `wallet.known_keys`): every target must be one. */
  readonly knownKeys: readonly string[];
}

/** What the service needs of the miner (miner.ts). */
export interface MinerControl {
  start(): void;
  stop(): void;
  readonly isMining: boolean;
  close(): Promise<void>;
}

export interface PowDeps {
  readonly chain: Pick<IChain, 'on' | 'off' | 'once' | 'tip' | 'consensusState' | 'config'>;
  readonly wallet: Pick<IWallet, 'balance'>;
  /** Publishes the claim transactions (F `BlendServiceApi::publish` of a transaction payload). */
  readonly blend: Pick<IBlend, 'disperseTransaction'>;
  /** A ZkSig by secret keys (the proof system's `proveZkSign`): the tickets' keys are not in the key store. */
  readonly signZk: (msg: Fr, secretKeys: readonly Fr[]) => Promise<ZkSignature>;
  readonly store: WinnerStore;
  readonly miner: MinerControl;
  readonly clock: Pick<SlotClock, 'currentSlot' | 'slotDurationMs'>;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
}

const hexOf = (x: Fr) => bytesToHex(frToBytes(x));
const key = (b: Uint8Array) => bytesToHex(b);

export class PowService implements IPow {
  readonly #targets: readonly { publicKey: Fr; threshold: bigint }[];
  readonly #ticker: AutoClaimTicker;
  /** Claims, auto-claim ticks and settlement one at a time (they all move tickets). */
  readonly #serial = new Semaphore(1);
  #online = false;
  #closed = false;
  #wantMining = false;
  #armed: boolean;
  readonly #onBlock = (pb: ProcessedBlock) => void this.#settle(pb);
  readonly #onOnline = () => this.#start();

  private constructor(
    private readonly config: PowConfig,
    private readonly deps: PowDeps,
  ) {
    const t = config.pow.auto_claim;
    this.#targets = t.targets.map((x) => ({ publicKey: targetKey(x), threshold: x.threshold }));
    // F: armed at start when the deployment pays rewards and targets are configured.
    this.#armed = this.rewardsEnabled && this.#targets.length > 0;
    this.#ticker = new AutoClaimTicker(t.tick, {
      currentSlot: () => deps.clock.currentSlot(),
      slotMs: deps.clock.slotDurationMs,
      onTick: () => this.#autoClaimTick(),
    });
  }

  /**
   * Checks the auto-claim targets against the wallet's keys (a target it does not track would never
   * show its balance and absorb every claim): throws `ConfigError` with the reference's text.
   */
  static init(config: PowConfig, deps: PowDeps): PowService {
    // inferred: checked at once, before Online (the configuration parser checks it first) (docs/design/fidelity.md)
    checkTargetsTracked(config.pow, config.knownKeys);
    const s = new PowService(config, deps);
    if (deps.chain.consensusState === 'Online') s.#start();
    else {
      deps.chain.once('online', s.#onOnline);
      deps.logger.info('waiting for the chain to become online');
    }
    return s;
  }

  /** `rate_num > 0` in the deployment (F `EraSettings::rewards_enabled`). */
  // inferred: the deployment's, without eras (docs/design/fidelity.md)
  get rewardsEnabled(): boolean {
    return this.deps.chain.config.pow.rate_num > 0n;
  }

  #window(): bigint {
    return BigInt(this.deps.chain.config.pow.slot_window);
  }

  #start(): void {
    if (this.#closed || this.#online) return;
    this.#online = true;
    this.deps.chain.on('block', this.#onBlock);
    if (this.#wantMining) this.deps.miner.start();
    if (this.#armed) this.#ticker.start();
    this.deps.logger.info(
      { mining: this.#wantMining, auto_claim: this.#armed },
      'chain is online; PoW service started',
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#ticker.stop();
    this.deps.chain.off('online', this.#onOnline);
    this.deps.chain.off('block', this.#onBlock);
    await this.deps.miner.close();
  }

  // ---- toggles

  // inferred: a command before Online is recorded and applied when the chain goes Online (docs/design/fidelity.md)
  startMining(): void {
    if (!this.#wantMining) this.deps.logger.info('PoW mining started');
    this.#wantMining = true;
    if (this.#online) this.deps.miner.start();
  }

  stopMining(): void {
    if (this.#wantMining) this.deps.logger.info('PoW mining stopped');
    this.#wantMining = false;
    this.deps.miner.stop();
  }

  startAutoClaim(): void {
    if (!this.rewardsEnabled) {
      this.deps.logger.warn('PoW auto-claim not started: rewards disabled');
      return;
    }
    if (this.#targets.length === 0) {
      this.deps.logger.warn('PoW auto-claim not started: no claim targets configured');
      return;
    }
    if (!this.#armed) this.deps.logger.info('PoW auto-claim started');
    this.#armed = true;
    if (this.#online) this.#ticker.start();
  }

  stopAutoClaim(): void {
    if (this.#armed) this.deps.logger.info('PoW auto-claim stopped');
    this.#armed = false;
    this.#ticker.stop();
  }

  // ---- reads

  #balance(pk: Fr): bigint {
    // A key the wallet tracks that holds nothing has no balance entry: 0.
    return this.deps.wallet.balance(pk)?.balance ?? 0n;
  }

  status(): PowStatus {
    const targets: ClaimTargetStatus[] = this.config.pow.auto_claim.targets.map((t, i) => {
      let balance: bigint | null = null;
      try {
        balance = this.#balance(this.#targets[i]!.publicKey);
      } catch (e) {
        this.deps.logger.warn(
          { err: (e as Error).message },
          'failed to read a PoW auto-claim target balance',
        );
      }
      return { public_key: this.#targets[i]!.publicKey, threshold: t.threshold, balance };
    });
    return {
      is_mining: this.#wantMining,
      are_rewards_enabled: this.rewardsEnabled,
      auto_claim: { is_armed: this.#armed, tick: this.config.pow.auto_claim.tick, targets },
    };
  }

  async claimable(): Promise<ClaimableRewards> {
    const tipSlot = this.deps.chain.tip().slot;
    await this.#prune(tipSlot);
    const window = this.#window();
    const ready = this.deps.store.ready();
    return {
      claimable_tickets: ready.length,
      slots_until_expiry: ready.map((w) => w.blockSlot + window - tipSlot),
    };
  }

  /** Drops the tickets whose window passed at `slot` (ready and pending). */
  async #prune(slot: bigint): Promise<void> {
    const pruned = await this.deps.store.prune(slot, this.#window());
    if (pruned.length > 0) this.deps.logger.info({ pruned: pruned.length }, 'pruned expired PoW tickets');
  }

  /** The target auto-claim pays now; undefined when every target reached its threshold. */
  #neediest(): Fr | undefined {
    const balances: TargetBalance[] = this.#targets.map((t) => ({
      ...t,
      balance: this.#balance(t.publicKey),
    }));
    return neediestTarget(balances);
  }

  // ---- claims

  /**
   * F `manual_claim`: null when no ticket is ready (expired ones still count: they are pruned by the
   * claim itself); then the address (given, else the neediest target, else `NoClaimTarget`); then one
   * claim spending the tip's pool, null when no ready ticket is left within the window on this branch.
   */
  claim(claimAddress?: Fr): Promise<Uint8Array | null> {
    return this.#serially(async () => {
      const tip = this.deps.chain.tip();
      if (this.deps.store.ready().length === 0) {
        this.deps.logger.info('no PoW rewards to claim');
        return null;
      }
      let address = claimAddress;
      if (address === undefined) {
        try {
          address = this.#neediest();
        } catch (e) {
          throw new PowError('POW_SUBMIT', `failed to query the wallet service: ${(e as Error).message}`);
        }
        if (address === undefined) throw noClaimTarget();
      }
      try {
        await this.#prune(tip.slot);
        const r = await this.#claimOnce(address, tip.state.pow.pool);
        return r?.hash ?? null;
      } catch (e) {
        // A stop in progress (the prover or Blend closed under the claim) is no failure.
        if (!this.#closed)
          this.deps.logger.error({ err: (e as Error).message }, 'failed to claim PoW rewards');
        throw e;
      }
    });
  }

  async #serially<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.#serial.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /**
   * One claim transaction of the ready tickets on the tip's branch, paid to `address`, spending at most
   * `pool`: its hash and the pool left, or undefined when no ready ticket can be claimed on this branch.
   */
  async #claimOnce(address: Fr, pool: bigint): Promise<{ hash: Uint8Array; pool: bigint } | undefined> {
    const tip = this.deps.chain.tip();
    const winners = claimableOn(tip.state, this.deps.store.ready());
    if (winners.length === 0) return undefined;
    const reward = tip.state.pow.epoch_reward;
    const batch = await buildClaimBatch({
      claimAddress: address,
      reward,
      pool,
      gas: gasContextOf(tip.state),
      winners,
      signZk: this.deps.signZk,
    });
    try {
      await this.deps.blend.disperseTransaction(batch.tx);
    } catch (e) {
      const tooLarge = e instanceof BlendError && e.code === 'BLEND_TRANSACTION_TOO_LARGE';
      throw new PowError(
        'POW_SUBMIT',
        `${tooLarge ? 'transaction too large for a blend payload' : 'failed to publish to the blend network'}: ${(e as Error).message}`,
      );
    }
    await this.deps.store.markPending(
      batch.claimed.map((w) => w.ticket),
      batch.hash,
    );
    this.deps.logger.info(
      {
        tx_hash: key(batch.hash),
        claimed: batch.claimed.length,
        ready: this.deps.store.ready().length,
        address: hexOf(address),
        fee: batch.fee,
      },
      'PoW reward claim published through Blend',
    );
    return { hash: batch.hash, pool: pool - BigInt(batch.claimed.length) * reward };
  }

  /** One auto-claim tick: disarm (and stop mining) when every target is satisfied, else drain the ready tickets into the neediest. */
  #autoClaimTick(): Promise<void> {
    return this.#serially(async () => {
      if (!this.#armed || this.#closed) return;
      let address: Fr | undefined;
      try {
        address = this.#neediest();
      } catch (e) {
        this.deps.logger.error({ err: (e as Error).message }, 'failed to pick a PoW auto-claim target');
        return;
      }
      if (address === undefined) {
        this.deps.logger.info('every PoW auto-claim target reached its threshold; stopping auto-claim');
        this.#armed = false;
        this.#ticker.stop();
        if (this.#wantMining) {
          this.deps.logger.info('every PoW auto-claim target reached its threshold; stopping mining');
          this.#wantMining = false;
          this.deps.miner.stop();
        }
        return;
      }
      const tip = this.deps.chain.tip();
      await this.#prune(tip.slot);
      if (this.deps.store.ready().length === 0) return;
      let pool = tip.state.pow.pool;
      for (;;) {
        try {
          const r = await this.#claimOnce(address, pool);
          if (r === undefined) break;
          pool = r.pool;
        } catch (e) {
          if (e instanceof PowError && e.code === 'POW_REWARD_POOL_EXHAUSTED')
            this.deps.logger.info(
              { ready: this.deps.store.ready().length },
              'PoW reward pool spent; tickets still ready',
            );
          else if (!this.#closed)
            this.deps.logger.error({ err: (e as Error).message }, 'PoW auto-claim failed');
          break;
        }
      }
    });
  }

  // ---- settlement

  #settle(pb: ProcessedBlock): Promise<void> {
    return this.#serially(async () => {
      if (this.#closed) return;
      try {
        // F (the later service.rs, @01976c8 `retire_settled_claims`): expired tickets are pruned at each
        // processed block, so that they do not hold the miner's room once mining waits on the pool.
        await this.#prune(pb.tip.slot);
        const pending = this.deps.store.pending();
        if (pending.length === 0) return;
        const settled = new Set<bigint>();
        for (const e of pb.events)
          if (e.kind === 'Tx' && e.event.payload.type === 'PoWRewardClaimed')
            settled.add(e.event.payload.pow_nullifier);
        const retired = pending.filter((w) => settled.has(w.ticket)).map((w) => w.ticket);
        if (retired.length > 0) {
          await this.deps.store.retire(retired);
          this.deps.logger.info(
            { retired: retired.length, pending: pending.length - retired.length },
            'retired settled PoW claims',
          );
        }
      } catch (e) {
        this.deps.logger.error({ err: (e as Error).message }, 'failed to settle PoW claims');
      }
    });
  }
}
