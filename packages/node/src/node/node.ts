/**
 * The node: the one place where services are built, in order, each with its settings and its
 * dependencies (a child logger and the node's abort signal among them), and closed in reverse.
 * Metrics listener (bound, read once the services exist) → API socket (bound, not serving yet) → proof
 * backend (circuits folder checked) → key store (keys checked) → storage (locked data directory) →
 * network (listening, dialling its initial peers) → verifier threads → the checkpoint a new node starts
 * from (read, or fetched from peers) → chain (genesis, checkpoint or replay) → chain sync and bootstrap phases (IBD) → mempool (the
 * stored pending transactions) → gossip → wallet → transaction-building operations → Blend → proof of
 * work (miner, claims) → API (serving) → leader → the metrics' readings → status line.
 * Binding first means a taken port stops the node before it creates a data folder or a genesis.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { ApiServer } from '../api/server.ts';
import { BlendService } from '../blend/index.ts';
import { ChainService, chooseInitState, SlotClock } from '../chain/index.ts';
import { bytesEqual } from '../codec/hex.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import { KeyStore } from '../kms/index.ts';
import { LeaderService, leaderOptions } from '../leader/index.ts';
import { buildGenesis } from '../ledger/genesis.ts';
import { PROOFS_ALREADY_VERIFIED } from '../ledger/proof-system.ts';
import { Mempool, mempoolConfig, verifierThreads } from '../mempool/index.ts';
import { MetricsService } from '../metrics/index.ts';
import {
  deploymentProtocols,
  GossipService,
  gossipConfig,
  type INetwork,
  NetworkService,
} from '../network/index.ts';
import { OpsService } from '../ops/index.ts';
import { openPow, type PowService, type WinnerStore } from '../pow/index.ts';
import { openStore } from '../storage/open.ts';
import { BootstrapPhases, type Phase, SyncService } from '../sync/index.ts';
import { leaderKeys, Wallet } from '../wallet/index.ts';
import { buildInfo } from './build-info.ts';
import {
  checkpointFromFile,
  checkpointFromPeers,
  type LoadedCheckpoint,
  watchCheckpoint,
} from './checkpoint.ts';
import { reloadKeys as reloadKeyFiles } from './keys.ts';
import { type LogModule, ModuleLoggers } from './logger.ts';
import { metricsSources } from './metrics-sources.ts';
import { Notifier } from './notifier.ts';
import type { NodeOptions } from './options.ts';
import { openProofSystem, openVerifier } from './proofs.ts';
import { Stops } from './stops.ts';

export type { Phase } from '../sync/index.ts';
export type { NodeOptions } from './options.ts';

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
    /** The Prometheus endpoint (`listening` is undefined when the node has none). */
    readonly metrics: MetricsService,
    readonly clock: SlotClock,
    readonly dataDir: string,
    private readonly phases: BootstrapPhases,
    private readonly loggers: ModuleLoggers,
    private readonly controller: AbortController,
    private readonly stops: Stops,
  ) {}

  get phase(): Phase {
    return this.phases.phase;
  }

  static async start(opts: NodeOptions): Promise<LogosNode> {
    const stops = new Stops();
    const controller = new AbortController();
    const loggers = new ModuleLoggers(opts.logger);
    try {
      return await LogosNode.build(opts, loggers, controller, stops);
    } catch (e) {
      controller.abort();
      await stops.unwind(loggers.get('node'));
      throw e;
    }
  }

  private static async build(
    opts: NodeOptions,
    loggers: ModuleLoggers,
    controller: AbortController,
    stops: Stops,
  ): Promise<LogosNode> {
    const { config, deployment } = opts;
    const signal = controller.signal;
    const log = (m: LogModule) => loggers.get(m);
    const own = <T extends { close(): Promise<void> | void }>(x: T): T => stops.own(x);
    // A failure the node cannot go on after: logged, then the caller (the CLI) stops the node.
    const fatal = (m: LogModule, msg: string) => (e: Error) => {
      log(m).error({ err: e.message }, msg);
      opts.onFatal?.(e);
    };

    // Bound first, served last: requests that come in meanwhile wait for the services.
    const metrics = own(await MetricsService.init(config.metrics, { logger: log('node') }));
    const meter = metrics.meter;
    const api = own(
      await ApiServer.init(
        {
          backend: config.api.backend,
          ...(opts.insecureApiBinding === true ? { insecureBinding: true } : {}),
          onAnswered: (m, e, s, t) => metrics.httpAnswered(m, e, s, t),
        },
        log('api'),
      ),
    );
    const proofs = own(openProofSystem(opts, log('proofs'), meter));
    const kms = own(KeyStore.init(config.kms, { proofs, meter }));
    const dataDir = resolve(opts.baseDir, config.state.base_folder, config.storage.backend.folder_name);
    const store = own(
      await openStore(dataDir, {
        onWarning: (m) => log('storage').warn(m),
        allowNewChain: opts.newChain === true,
        onDiskFull: fatal('storage', 'storage is out of space; the node stops'),
      }),
    );
    const network =
      opts.network ??
      own(
        await NetworkService.init(
          { network: config.network, protocols: deploymentProtocols(deployment.network) },
          { logger: log('network'), signal, meter },
        ),
      );

    const boot = config.cryptarchia.service.bootstrap;
    const init = chooseInitState(store.chain, deployment, {
      forceBootstrap: boot.force_bootstrap,
      gracePeriod: boot.offline_grace_period.grace_period,
    });
    const clock = new SlotClock(init.genesisTimeMs, deployment.slot_duration_ms);
    const checkpoint = await startingCheckpoint(
      opts,
      init.genesisTimeMs,
      store.chain,
      network,
      log('chain'),
      signal,
    );
    // Blocks and transactions are verified off the event loop, on worker threads (Groth16).
    const verifier = own(await openVerifier(proofs, verifierThreads(config.mempool), log('proofs')));
    const chain = own(
      await ChainService.init(
        {
          deployment,
          genesisTimeMs: init.genesisTimeMs,
          online: init.online,
          stateRecordingIntervalMs: boot.offline_grace_period.state_recording_interval * 1000,
          ...(checkpoint ? { checkpoint } : {}),
          ...(opts.snapshotInterval ? { snapshotInterval: opts.snapshotInterval } : {}),
        },
        { store: store.chain, proofs: verifier, clock, logger: log('chain'), signal, meter },
      ),
    );
    chain.on('fatal', fatal('node', 'fatal chain error; the node stops'));
    watchStartingCheckpoint(
      chain,
      log('chain'),
      fatal('node', 'the checkpoint is refused; the node stops'),
      () => phases.phase === 'InitialBlockDownload',
    );
    // What most services take: the chain, the clock, their logger and the node's abort signal.
    const on = (m: LogModule) => ({ chain, clock, logger: log(m), signal, meter });
    log('node').info({ ...chain.summary(), data_dir: dataDir, api: api.listening }, 'chain ready');

    const sync: SyncService = own(
      SyncService.init(
        { protocol: deployment.network.chain_sync_protocol_name, config: config.sync },
        { ...on('sync'), network, phases: () => phases, checkpoints: chain },
      ),
    );
    const phases: BootstrapPhases = own(
      BootstrapPhases.init(
        { online: init.online, prolongedBootstrapPeriod: boot.prolonged_bootstrap_period },
        {
          ...on('sync'),
          ibd: () => sync.initialBlockDownload(),
          onIbdFailed: (e: Error) => opts.onFatal?.(e),
        },
      ),
    );
    const mempool = own(
      await Mempool.init(mempoolConfig(config.mempool, deployment.mempool.tx_ttl_ms), {
        ...on('mempool'),
        proofs: verifier,
        store: store.mempool,
      }),
    );
    // Block proposals and transactions over gossipsub, taken once initial block download is over.
    const gossip = own(
      GossipService.init(
        gossipConfig({
          blockTopic: deployment.network.block_topic,
          txTopic: deployment.network.tx_topic,
          slotMs: deployment.slot_duration_ms,
        }),
        { ...on('network'), network, mempool, orphans: sync, ibd: sync.ibdDone },
      ),
    );
    const wallet = own(
      await Wallet.init(config.wallet, { ...on('wallet'), mempool, kms, store: store.wallet }),
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
        {
          chain,
          proofs,
          wallet,
          vouchers: store.wallet,
          declarations: store.sdp,
          logger: log('ops'),
          meter,
        },
      ),
    );
    // The mix network: proposals and dispersed transactions go through it when the epoch's Blend
    // membership is large enough, else straight to gossip and the mempool.
    const blend = own(
      await BlendService.init(
        { blend: config.blend, deployment: deployment.blend, kmsKeys: config.kms.backend.keys },
        {
          ...on('blend'),
          mempool,
          gossip,
          prover: proofs,
          verifier,
          // Through the node's SDP messages: its current declaration.
          submitActivity: async (proof) => {
            await ops.activity({ Blend: proof });
          },
        },
      ),
    );

    const { pow, winners } = openPow(
      { pow: config.pow, knownKeys: Object.values(config.wallet.known_keys) },
      {
        ...on('pow'),
        kv: store.kv,
        wallet,
        // F publishes the claims through Blend (in a broadcast epoch it adds them to this mempool).
        blend,
        signZk: (m, sks) => proofs.proveZkSign(m, sks),
      },
    );
    own(pow);

    const services = { chain, clock, deployment, mempool, wallet, ops, pow, network, blend };
    const setLogFilter = (f: Readonly<Record<string, string>>) => loggers.replaceFilter(f);
    // The keys read again from the config while running (keys.ts); the leader gets them once it runs.
    const running: { leader?: LeaderService } = {};
    const reloadKeys = () =>
      reloadKeyFiles(opts.configFile, { kms, wallet, proofs, leader: running.leader, logger: log('node') });
    await api.serve({
      ...services,
      build: buildInfo(),
      phase: () => phases.phase,
      setLogFilter,
      reloadKeys,
      checkpoint: () => chain.checkpoint(),
    });
    // Serving stops before the services it reads close (the first close, of the bound socket, is then a no-op).
    stops.push(() => api.close());
    const leader = own(
      LeaderService.init(leaderOptions(keys, store.wallet, log('leader')), {
        ...on('leader'),
        proofs,
        txs: mempool,
        publisher: blend,
      }),
    );
    running.leader = leader;
    metrics.watch(
      metricsSources({
        chain,
        clock,
        deployment,
        network,
        sync,
        mempool,
        blend,
        proofs,
        leader,
        gossip,
        phases,
      }),
      {
        onBlock: (f) => chain.on('block', (b) => f(b.block.transactions.length)),
        onTxAdded: (f) => mempool.on('added', () => f()),
      },
    );
    own(Notifier.init({ ...on('node'), phases }));

    const parts = [
      chain,
      mempool,
      network,
      leader,
      gossip,
      sync,
      pow,
      winners,
      api,
      metrics,
      clock,
      dataDir,
    ] as const;
    return new LogosNode(...parts, phases, loggers, controller, stops);
  }

  /** Log levels per module (`chain`, `leader`, `api`, ...); `*` sets the node's default level. */
  setLogFilter(filters: Readonly<Record<string, string>>): void {
    this.loggers.replaceFilter(filters);
  }

  /** Stops the services in reverse order of their start. Safe to call more than once. */
  async stop(): Promise<void> {
    this.controller.abort();
    await this.stops.unwind(this.loggers.get('node'));
  }
}

/**
 * The checkpoint a new node starts from (`--checkpoint`): read from its file, or fetched from peers;
 * none when the data folder holds a chain already (a restart of a node started from one).
 */
async function startingCheckpoint(
  opts: NodeOptions,
  genesisTimeMs: number,
  store: { tipHeight(): bigint | undefined },
  network: INetwork,
  log: Logger,
  signal: AbortSignal,
): Promise<LoadedCheckpoint | undefined> {
  const from = opts.checkpoint;
  if (from === undefined) return undefined;
  if ((store.tipHeight() ?? 0n) > 0n) {
    log.info('the data folder holds a chain: it continues, the checkpoint is not used');
    return undefined;
  }
  if ('file' in from) return checkpointFromFile(from.file);
  const d = opts.deployment;
  const ctx = { config: d.ledger, proofs: PROOFS_ALREADY_VERIFIED };
  const genesis = buildGenesis(d, ctx, Math.floor(genesisTimeMs / 1000)).id;
  return checkpointFromPeers(network, from.blockId, genesis, log, signal);
}

/** A chain whose LIB is a checkpoint nothing was applied on yet: the blocks on it confirm or refuse it. */
function watchStartingCheckpoint(
  chain: ChainService,
  log: Logger,
  refuse: (e: Error) => void,
  duringIbd: () => boolean,
): void {
  const lib = chain.lib();
  const ref = chain.blockRef(lib.id);
  if (lib.height === 0 || ref === undefined || chain.blockRef(ref.parent) !== undefined) return;
  if (!bytesEqual(chain.tip().id, lib.id)) return;
  watchCheckpoint(chain, lib, log, refuse, duringIbd);
}
