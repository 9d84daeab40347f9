/**
 * The node: the one place where services are created, in order, and stopped in reverse.
 * storage (locked data directory) → proof backend → chain (replay) → bootstrap phases → leader.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { ApiServer } from '../api/server.ts';
import { chooseEngineState, type LastEngineState } from '../chain/bootstrap-state.ts';
import { ChainService } from '../chain/chain-service.ts';
import { SlotClock } from '../chain/clock.ts';
import { LeaderService, NO_TRANSACTIONS } from '../chain/leader.ts';
import { VoucherGenerator } from '../chain/vouchers.ts';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { frFromBytes, frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import type { Deployment } from '../ledger/deployment.ts';
import type { ProofSystem } from '../ledger/proof-system.ts';
import { openStore } from '../storage/open.ts';
import { createProofSystem } from '../zk/index.ts';
import { buildInfo } from './build-info.ts';
import type { UserConfig } from './config.ts';

export type Phase = 'AwaitingGenesisTime' | 'InitialBlockDownload' | 'ProlongedBootstrapPeriod' | 'Following';

export interface NodeOptions {
  readonly deployment: Deployment;
  readonly config: UserConfig;
  /** Directory the relative paths of the config are resolved against. */
  readonly baseDir: string;
  readonly logger: Logger;
  /** Overrides the proof backend (tests). */
  readonly proofs?: ProofSystem;
  readonly keysDir?: string;
  /** Blocks between ledger snapshots (default 1000). */
  readonly snapshotInterval?: number;
  /** Start a new chain even if the data folder was used before and lost its chain file. */
  readonly newChain?: boolean;
  /** Called when the node cannot go on (e.g. its storage failed); the CLI exits. */
  readonly onFatal?: (e: Error) => void;
}

export class LogosNode {
  phase: Phase = 'AwaitingGenesisTime';
  private readonly stops: (() => Promise<void> | void)[] = [];
  private readonly loggers = new Map<string, Logger>();
  private bootstrapTimer: NodeJS.Timeout | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private stateTimer: NodeJS.Timeout | undefined;
  chain!: ChainService;
  leader!: LeaderService;
  api!: ApiServer;
  clock!: SlotClock;
  dataDir!: string;

  private constructor(private readonly opts: NodeOptions) {}

  static async start(opts: NodeOptions): Promise<LogosNode> {
    const node = new LogosNode(opts);
    try {
      await node.init();
    } catch (e) {
      await node.stop();
      throw e;
    }
    return node;
  }

  private async init(): Promise<void> {
    const { config, deployment, logger } = this.opts;
    const stateDir = resolve(this.opts.baseDir, config.state.base_folder);
    this.dataDir = resolve(stateDir, config.storage.backend.folder_name);
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const store = await openStore(this.dataDir, {
      allowNewChain: this.opts.newChain === true,
      onDiskFull: (e) => {
        logger.error({ err: e.message }, 'storage is out of space; the node stops');
        this.opts.onFatal?.(e);
      },
    });
    this.stops.push(() => store.close());

    const meta = store.chain.meta();
    const genesisTimeMs =
      meta.genesisTimeMs !== undefined
        ? Number(meta.genesisTimeMs)
        : deployment.genesis.genesis_time !== null
          ? deployment.genesis.genesis_time * 1000
          : Math.floor(Date.now() / 1000) * 1000;
    this.clock = new SlotClock(genesisTimeMs, deployment.slot_duration_ms);

    const proofs =
      this.opts.proofs ??
      createProofSystem(deployment, this.opts.keysDir ? { keysDir: this.opts.keysDir } : {});
    this.stops.push(() => proofs.close());
    logger.info({ backend: proofs.name }, 'proof backend ready');

    const boot = config.cryptarchia.service.bootstrap;
    const stored = meta.state;
    const lastState: LastEngineState | undefined =
      stored === 'Online' || stored === 'Bootstrapping'
        ? // inferred: a state stored without its time counts as recorded long ago (docs/fidelity.md)
          { state: stored, timestampMs: Number(meta.lastOnlineMs ?? 0n) }
        : undefined;
    const libIsGenesis = meta.lib === undefined || store.chain.info(meta.lib)?.height === 0n;
    const online =
      chooseEngineState(
        libIsGenesis,
        {
          forceBootstrap: boot.force_bootstrap,
          gracePeriodMs: boot.offline_grace_period.grace_period * 1000,
        },
        lastState,
        Date.now(),
      ) === 'Online';

    this.chain = new ChainService(
      {
        deployment,
        genesisTimeMs,
        online,
        ...(this.opts.snapshotInterval ? { snapshotInterval: this.opts.snapshotInterval } : {}),
      },
      { store: store.chain, proofs, clock: this.clock, logger: this.logger('chain') },
    );
    await this.chain.start();
    this.stops.push(() => this.chain.drain());
    // The consensus state is recorded at once and then periodically (F: the chain service's
    // state_recording_timer, a tokio interval, ticks first right away).
    void this.chain.recordState();
    const recordEveryMs = boot.offline_grace_period.state_recording_interval * 1000;
    // inferred: a zero interval records with the blocks only (F cannot start with it) (docs/fidelity.md)
    if (recordEveryMs > 0) {
      this.stateTimer = setInterval(() => void this.chain.recordState(), recordEveryMs);
      this.stops.push(() => clearInterval(this.stateTimer));
    }
    this.chain.on('fatal', (e) => {
      logger.error({ err: e.message }, 'fatal chain error; the node stops');
      this.opts.onFatal?.(e);
    });

    logger.info(
      {
        chain_id: this.chain.genesis.parameter.chain_id,
        genesis_time: new Date(genesisTimeMs).toISOString(),
        genesis: bytesToHex(this.chain.genesis.id),
        slot_ms: deployment.slot_duration_ms,
        state: this.chain.consensusState,
        data_dir: this.dataDir,
        api: config.api.backend.listen_address,
      },
      'chain ready',
    );

    const secretKeys = Object.values(config.kms.backend.keys)
      .filter((k) => k.kind === 'Zk')
      .map((k) => frFromBytes(hexToBytes(k.secret)));
    const known = new Set(Object.values(config.wallet.known_keys));
    const leaderKeys = secretKeys.filter((sk) => known.has(bytesToHex(frToBytes(zkPublicKey(sk)))));
    // The voucher master key is the KMS Zk key named by wallet.voucher_master_key_id (F: the wallet
    // derives vouchers through the KMS with that key id); there is no other source.
    const masterId = config.wallet.voucher_master_key_id;
    const master = masterId !== null ? config.kms.backend.keys[masterId] : undefined;
    // inferred: without the key the node runs and passes over won slots; F requires the key id (docs/fidelity.md)
    if (master?.kind !== 'Zk' && leaderKeys.length > 0) {
      logger.error(
        { voucher_master_key_id: masterId },
        'no Zk voucher master key in the KMS: won slots cannot make blocks',
      );
    }
    const vouchers =
      master?.kind === 'Zk'
        ? new VoucherGenerator(frFromBytes(hexToBytes(master.secret)), store.wallet)
        : undefined;
    this.leader = new LeaderService(
      { secretKeys: leaderKeys, vouchers },
      {
        chain: this.chain,
        clock: this.clock,
        proofs,
        txs: NO_TRANSACTIONS,
        logger: this.logger('leader'),
      },
    );
    logger.info({ leader_keys: leaderKeys.length }, 'leader keys loaded');

    this.api = new ApiServer(
      { backend: config.api.backend },
      {
        build: buildInfo(),
        chain: this.chain,
        clock: this.clock,
        deployment,
        phase: () => this.phase,
        setLogFilter: (filters) => this.setLogFilter(filters),
      },
      this.logger('api'),
    );
    await this.api.start();
    this.stops.push(() => this.api.stop());

    this.runPhases(online);
    this.leader.start();
    this.stops.push(() => this.leader.stop());
    this.statusTimer = setInterval(() => this.logStatus(), 10_000);
    this.stops.push(() => clearInterval(this.statusTimer));
  }

  private runPhases(online: boolean): void {
    const boot = this.opts.config.cryptarchia.service.bootstrap;
    const log = this.opts.logger;
    const afterGenesis = () => {
      this.phase = 'InitialBlockDownload';
      log.info('Skipping IBD as no peers are configured');
      if (online) {
        this.phase = 'Following';
        return;
      }
      this.phase = 'ProlongedBootstrapPeriod';
      this.bootstrapTimer = setTimeout(() => {
        this.chain.setOnline();
        this.phase = 'Following';
      }, boot.prolonged_bootstrap_period * 1000);
    };
    if (this.clock.beforeGenesis()) {
      this.phase = 'AwaitingGenesisTime';
      this.bootstrapTimer = setTimeout(afterGenesis, this.clock.msUntil(0n));
    } else {
      log.info('genesis time is already in the past: finishing AwaitingGenesisTime phase with no-op');
      afterGenesis();
    }
    this.stops.push(() => clearTimeout(this.bootstrapTimer));
  }

  /** Log levels per module (`chain`, `leader`, `api`, ...); `*` sets the node's default level. */
  setLogFilter(filters: Readonly<Record<string, string>>): void {
    const root = this.opts.logger;
    if (filters['*']) root.level = filters['*'];
    for (const [name, child] of this.loggers) child.level = filters[name] ?? filters['*'] ?? child.level;
  }

  private logger(module: string): Logger {
    let l = this.loggers.get(module);
    if (!l) {
      l = this.opts.logger.child({ module });
      this.loggers.set(module, l);
    }
    return l;
  }

  private logStatus(): void {
    const tip = this.chain.tip();
    const lib = this.chain.lib();
    this.opts.logger.info(
      {
        state: this.chain.consensusState,
        phase: this.phase,
        height: tip.height,
        slot: Number(tip.slot),
        lib_height: lib.height,
        current_slot: Number(this.clock.currentSlot()),
      },
      'status',
    );
  }

  /** Stops the services in reverse order of their start. Safe to call more than once. */
  async stop(): Promise<void> {
    while (this.stops.length > 0) {
      const stop = this.stops.pop()!;
      try {
        await stop();
      } catch (e) {
        this.opts.logger.warn({ err: (e as Error).message }, 'error while stopping');
      }
    }
  }
}
