/**
 * The node: the one place where services are built, in order, each with its settings and its
 * dependencies (a child logger and the node's abort signal among them), and closed in reverse.
 * API socket (bound, not serving yet) → proof backend (circuits folder checked) → key store (keys
 * checked) → storage (locked data directory) → network (listening, dialling its initial peers) →
 * verifier threads → chain (genesis or replay) → chain sync and bootstrap phases (IBD) → mempool (the
 * stored pending transactions) → gossip → wallet → transaction-building operations → Blend → proof of
 * work (miner, claims) → API (serving) → leader → status line.
 * Binding first means a taken port stops the node before it creates a data folder or a genesis.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { ApiServer } from '../api/server.ts';
import { BlendService } from '../blend/index.ts';
import { ChainService, chooseInitState, SlotClock } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import { KeyStore } from '../kms/index.ts';
import { LeaderService, leaderOptions } from '../leader/index.ts';
import type { Deployment } from '../ledger/deployment.ts';
import type { ProofSystem } from '../ledger/proof-system.ts';
import { Mempool, mempoolConfig, verifierThreads } from '../mempool/index.ts';
import { GossipService, gossipConfig, type INetwork, NetworkService } from '../network/index.ts';
import { OpsService } from '../ops/index.ts';
import { Miner, miningThreads, openWinnerStore, PowService, type WinnerStore } from '../pow/index.ts';
import { openStore } from '../storage/open.ts';
import { BootstrapPhases, type Phase, SyncService } from '../sync/index.ts';
import { leaderKeys, Wallet } from '../wallet/index.ts';
import { buildInfo } from './build-info.ts';
import type { UserConfig } from './config.ts';
import { type LogModule, ModuleLoggers } from './logger.ts';
import { Notifier } from './notifier.ts';
import { logRolesOff, openProofSystem, openVerifier } from './proofs.ts';

export type { Phase } from '../sync/index.ts';

export interface NodeOptions {
  readonly deployment: Deployment;
  readonly config: UserConfig;
  /** Directory the relative paths of the config are resolved against. */
  readonly baseDir: string;
  readonly logger: Logger;
  /** Overrides the proof backend (tests). */
  readonly proofs?: ProofSystem;
  /** `--circuits`: the circuits folder, ahead of the config's `proofs.circuits` and `LBC_ROOT_DIR`. */
  readonly circuitsDir?: string;
  /** Blocks between ledger snapshots (default 1000). */
  readonly snapshotInterval?: number;
  /** Start a new chain even if the data folder was used before and lost its chain file. */
  readonly newChain?: boolean;
  /** Called when the node cannot go on (e.g. its storage failed); the CLI exits. */
  readonly onFatal?: (e: Error) => void;
  /** Overrides the peer-to-peer network (tests: an in-memory one). */
  readonly network?: INetwork;
}

type Stop = () => Promise<void> | void;

/** Runs the stops last-in first-out; a failing stop is logged and the others still run. */
async function unwind(stops: Stop[], logger: Logger): Promise<void> {
  while (stops.length > 0) {
    const stop = stops.pop()!;
    try {
      await stop();
    } catch (e) {
      logger.warn({ err: (e as Error).message }, 'error while stopping');
    }
  }
}

export class LogosNode {
  private constructor(
    readonly chain: ChainService,
    readonly mempool: Mempool,
    readonly network: INetwork,
    readonly leader: LeaderService,
    readonly gossip: GossipService,
    readonly sync: SyncService,
    readonly pow: PowService,
    /** The winning PoW tickets (mined, or claimed and waiting to settle). */
    readonly powWinners: WinnerStore,
    readonly api: ApiServer,
    readonly clock: SlotClock,
    readonly dataDir: string,
    private readonly phases: BootstrapPhases,
    private readonly loggers: ModuleLoggers,
    private readonly controller: AbortController,
    /** Stop functions, in start order (run in reverse). */
    private readonly stops: Stop[],
  ) {}

  get phase(): Phase {
    return this.phases.phase;
  }

  static async start(opts: NodeOptions): Promise<LogosNode> {
    const stops: Stop[] = [];
    const controller = new AbortController();
    const loggers = new ModuleLoggers(opts.logger);
    try {
      return await LogosNode.build(opts, loggers, controller, stops);
    } catch (e) {
      controller.abort();
      await unwind(stops, loggers.get('node'));
      throw e;
    }
  }

  private static async build(
    opts: NodeOptions,
    loggers: ModuleLoggers,
    controller: AbortController,
    stops: Stop[],
  ): Promise<LogosNode> {
    const { config, deployment } = opts;
    const signal = controller.signal;
    const log = (m: LogModule) => loggers.get(m);
    const own = <T extends { close(): Promise<void> | void }>(x: T): T => {
      stops.push(() => x.close());
      return x;
    };

    // Bound first, served last: requests that come in meanwhile wait for the services.
    const api = own(await ApiServer.init({ backend: config.api.backend }, log('api')));
    const proofs = own(
      openProofSystem(
        {
          deployment,
          circuitsDir: opts.circuitsDir,
          configCircuits: config.proofs.circuits,
          baseDir: opts.baseDir,
          proofs: opts.proofs,
        },
        log('proofs'),
      ),
    );
    const kms = own(KeyStore.init(config.kms, { proofs }));
    const dataDir = resolve(opts.baseDir, config.state.base_folder, config.storage.backend.folder_name);
    const store = own(
      await openStore(dataDir, {
        onWarning: (m) => log('storage').warn(m),
        allowNewChain: opts.newChain === true,
        onDiskFull: (e) => {
          log('storage').error({ err: e.message }, 'storage is out of space; the node stops');
          opts.onFatal?.(e);
        },
      }),
    );
    const network =
      opts.network ??
      own(
        await NetworkService.init(
          {
            network: config.network,
            protocols: {
              kademlia: deployment.network.kademlia_protocol_name,
              identify: deployment.network.identify_protocol_name,
            },
          },
          { logger: log('network'), signal },
        ),
      );

    const boot = config.cryptarchia.service.bootstrap;
    const init = chooseInitState(store.chain, deployment, {
      forceBootstrap: boot.force_bootstrap,
      gracePeriod: boot.offline_grace_period.grace_period,
    });
    const clock = new SlotClock(init.genesisTimeMs, deployment.slot_duration_ms);
    logRolesOff(proofs, log('node'));
    // Blocks and transactions are verified off the event loop, on worker threads (Groth16).
    const verifier = own(await openVerifier(proofs, verifierThreads(config.mempool), log('proofs')));
    const chain = own(
      await ChainService.init(
        {
          deployment,
          genesisTimeMs: init.genesisTimeMs,
          online: init.online,
          stateRecordingIntervalMs: boot.offline_grace_period.state_recording_interval * 1000,
          ...(opts.snapshotInterval ? { snapshotInterval: opts.snapshotInterval } : {}),
        },
        { store: store.chain, proofs: verifier, clock, logger: log('chain'), signal },
      ),
    );
    chain.on('fatal', (e) => {
      log('node').error({ err: e.message }, 'fatal chain error; the node stops');
      opts.onFatal?.(e);
    });
    log('node').info(
      {
        chain_id: chain.genesis.parameter.chain_id,
        genesis_time: new Date(init.genesisTimeMs).toISOString(),
        genesis: bytesToHex(chain.genesis.id),
        slot_ms: deployment.slot_duration_ms,
        state: chain.consensusState,
        data_dir: dataDir,
        api: api.listening,
      },
      'chain ready',
    );

    const sync: SyncService = own(
      SyncService.init(
        { protocol: deployment.network.chain_sync_protocol_name, config: config.sync },
        { chain, network, clock, phases: () => phases, logger: log('sync'), signal },
      ),
    );
    const phases: BootstrapPhases = own(
      BootstrapPhases.init(
        { online: init.online, prolongedBootstrapPeriod: boot.prolonged_bootstrap_period },
        {
          chain,
          clock,
          logger: log('sync'),
          signal,
          ibd: () => sync.initialBlockDownload(),
          onIbdFailed: (e: Error) => opts.onFatal?.(e),
        },
      ),
    );
    const mempool = own(
      await Mempool.init(mempoolConfig(config.mempool, deployment.mempool.tx_ttl_ms), {
        chain,
        proofs: verifier,
        store: store.mempool,
        logger: log('mempool'),
        signal,
      }),
    );
    // Block proposals and transactions over gossipsub, taken once initial block download is over.
    const gossip = own(
      GossipService.init(
        gossipConfig({ blockTopic: deployment.network.block_topic, txTopic: deployment.network.tx_topic }),
        { network, chain, mempool, orphans: sync, ibd: sync.ibdDone, logger: log('network'), signal },
      ),
    );
    const wallet = own(
      await Wallet.init(config.wallet, {
        chain,
        mempool,
        kms,
        store: store.wallet,
        logger: log('wallet'),
        signal,
      }),
    );
    // The leader plays with the key store's ZK keys the wallet knows, and derives vouchers from the master key.
    const keys = leaderKeys(kms, config.wallet);
    const ops = own(
      OpsService.init(
        {
          voucherMaster: keys.voucherMaster,
          leaderPks: keys.secretKeys.map(zkPublicKey),
          leaderWallet: config.cryptarchia.leader.wallet,
          sdp: config.sdp,
          blend: config.blend,
          kmsKeys: config.kms.backend.keys,
        },
        { chain, proofs, wallet, vouchers: store.wallet, declarations: store.sdp, logger: log('ops') },
      ),
    );
    // The mix network: proposals and dispersed transactions go through it when the epoch's Blend
    // membership is large enough, else straight to gossip and the mempool.
    const blend = own(
      await BlendService.init(
        { blend: config.blend, deployment: deployment.blend, kmsKeys: config.kms.backend.keys },
        {
          chain,
          clock,
          mempool,
          gossip,
          prover: proofs,
          verifier,
          // Through the node's SDP messages: its current declaration.
          submitActivity: async (proof) => {
            await ops.activity({ Blend: proof });
          },
          logger: log('blend'),
          signal,
        },
      ),
    );

    // Proof-of-work: the miner searches the blocks of the reward window for winning tickets (off until
    // `PUT /pow/mining/start`), the service claims them; both start once the chain is Online.
    const powLog = log('pow');
    const winners = openWinnerStore(store.kv, {
      onCorrupt: (key, reason) =>
        powLog.error({ ticket: key, reason }, 'a stored PoW ticket is unreadable and is skipped'),
    });
    const miner = new Miner(
      { threads: miningThreads(config.pow), concurrencyPerBlock: config.pow.mining.max_tickets_per_block },
      { chain, store: winners, logger: powLog, signal },
    );
    const pow = own(
      PowService.init(
        { pow: config.pow, knownKeys: Object.values(config.wallet.known_keys) },
        {
          chain,
          wallet,
          // F publishes the claims through Blend (in a broadcast epoch it adds them to this mempool).
          blend,
          signZk: (m, sks) => proofs.proveZkSign(m, sks),
          store: winners,
          miner,
          clock,
          logger: powLog,
          signal,
        },
      ),
    );

    const setLogFilter = (filters: Readonly<Record<string, string>>) => loggers.replaceFilter(filters);
    const services = { chain, clock, deployment, mempool, wallet, ops, pow, network, blend };
    await api.serve({ ...services, build: buildInfo(), phase: () => phases.phase, setLogFilter });
    // Serving stops before the services it reads close (the first close, of the bound socket, is then a no-op).
    stops.push(() => api.close());
    const leader = own(
      LeaderService.init(leaderOptions(keys, store.wallet, log('leader')), {
        chain,
        clock,
        proofs,
        txs: mempool,
        logger: log('leader'),
        publisher: blend,
        signal,
      }),
    );
    own(Notifier.init({ chain, clock, phases, logger: log('node'), signal }));

    return new LogosNode(
      chain,
      mempool,
      network,
      leader,
      gossip,
      sync,
      pow,
      winners,
      api,
      clock,
      dataDir,
      phases,
      loggers,
      controller,
      stops,
    );
  }

  /** Log levels per module (`chain`, `leader`, `api`, ...); `*` sets the node's default level. */
  setLogFilter(filters: Readonly<Record<string, string>>): void {
    this.loggers.replaceFilter(filters);
  }

  /** Stops the services in reverse order of their start. Safe to call more than once. */
  async stop(): Promise<void> {
    this.controller.abort();
    await unwind(this.stops, this.loggers.get('node'));
  }
}
