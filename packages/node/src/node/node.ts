/**
 * The node: the one place where services are built, in order, each with its settings and its
 * dependencies (a child logger and the node's abort signal among them), and closed in reverse.
 * API socket (bound, not serving yet) → key store (keys checked) → storage (locked data directory) →
 * network (listening, dialling its initial peers) → proof backend and its verifier threads → chain
 * (genesis or replay) → chain sync and bootstrap phases (IBD) → mempool (the stored pending transactions)
 * → gossip → wallet → transaction-building operations → proof of work (miner, claims) → API (serving)
 * → leader → status line.
 * Binding first means a taken port stops the node before it creates a data folder or a genesis.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { ApiServer } from '../api/server.ts';
import { BlendService } from '../blend/index.ts';
import { ChainService, chooseInitState, SlotClock } from '../chain/index.ts';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { type Fr, frFromBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import { KeyStore } from '../kms/index.ts';
import { LeaderService, VoucherGenerator } from '../leader/index.ts';
import type { Deployment } from '../ledger/deployment.ts';
import type { Circuit, ProofSystem } from '../ledger/proof-system.ts';
import { Mempool, mempoolConfig, verifierThreads } from '../mempool/index.ts';
import { GossipService, gossipConfig, type INetwork, NetworkService } from '../network/index.ts';
import { OpsService } from '../ops/index.ts';
import { Miner, miningThreads, openWinnerStore, PowService, type WinnerStore } from '../pow/index.ts';
import { openStore } from '../storage/open.ts';
import { BootstrapPhases, type Phase, SyncService } from '../sync/index.ts';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { deferred } from '../util/deferred.ts';
import { leaderKeys, Wallet } from '../wallet/index.ts';
import {
  CIRCUITS,
  CIRCUITS_ENV,
  type CircuitFolder,
  type CircuitsSource,
  chooseCircuitsDir,
  createProofSystem,
  loadCircuitFolder,
  pooledVerifier,
} from '../zk/index.ts';
import { buildInfo } from './build-info.ts';
import type { UserConfig } from './config.ts';
import { LOG_MODULES, type LogModule, ModuleLoggers } from './logger.ts';
import { Notifier } from './notifier.ts';

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

/** Why a listen address cannot be bound, in words. */
function listenFailure(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'EADDRINUSE':
      return 'the address is already in use';
    case 'EADDRNOTAVAIL':
      return 'the address is not one of this machine';
    case 'EACCES':
      return 'permission denied';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    default:
      return e.message;
  }
}

/**
 * The Ed25519 seed of `blend.non_ephemeral_signing_key_id` in the key store (the Blend swarm's identity);
 * null when the node names none. A key id that is missing or not an Ed25519 key stops the node.
 */
function blendSigningSeed(config: UserConfig): Uint8Array | null {
  const id = config.blend.non_ephemeral_signing_key_id;
  if (id === null) return null;
  const key = config.kms.backend.keys[id];
  if (key?.kind !== 'Ed25519')
    throw new ConfigError(
      `blend.non_ephemeral_signing_key_id: ${key === undefined ? 'no such key in kms.backend.keys' : 'not an Ed25519 key'}`,
    );
  return hexToBytes(key.secret);
}

/**
 * The Zk secret key of `blend.core.zk.secret_key_kms_id` (it proves the core quota); null when the
 * node names none. A key id that is missing or not a Zk key stops the node.
 */
function blendZkSecret(config: UserConfig): Fr | null {
  const id = config.blend.core_zk_secret_key_kms_id;
  if (id === null) return null;
  const key = config.kms.backend.keys[id];
  if (key?.kind !== 'Zk')
    throw new ConfigError(
      `blend.core.zk.secret_key_kms_id: ${key === undefined ? 'no such key in kms.backend.keys' : 'not a Zk key'}`,
    );
  return frFromBytes(hexToBytes(key.secret));
}

/** What a started node is made of: its services, and what it needs to stop them. */
interface NodeParts {
  readonly chain: ChainService;
  readonly mempool: Mempool;
  readonly network: INetwork;
  readonly leader: LeaderService;
  readonly gossip: GossipService;
  readonly sync: SyncService;
  readonly pow: PowService;
  readonly powWinners: WinnerStore;
  readonly api: ApiServer;
  readonly clock: SlotClock;
  readonly dataDir: string;
  readonly phases: BootstrapPhases;
  readonly loggers: ModuleLoggers;
  readonly controller: AbortController;
  /** Stop functions, in start order (run in reverse). */
  readonly stops: Stop[];
}

export class LogosNode {
  readonly chain: ChainService;
  readonly mempool: Mempool;
  readonly network: INetwork;
  readonly leader: LeaderService;
  readonly gossip: GossipService;
  readonly sync: SyncService;
  readonly pow: PowService;
  /** The winning PoW tickets (mined, or claimed and waiting to settle). */
  readonly powWinners: WinnerStore;
  readonly api: ApiServer;
  readonly clock: SlotClock;
  readonly dataDir: string;
  private readonly phases: BootstrapPhases;
  private readonly loggers: ModuleLoggers;
  private readonly controller: AbortController;
  private readonly stops: Stop[];

  private constructor(parts: NodeParts) {
    this.chain = parts.chain;
    this.mempool = parts.mempool;
    this.network = parts.network;
    this.leader = parts.leader;
    this.gossip = parts.gossip;
    this.sync = parts.sync;
    this.pow = parts.pow;
    this.powWinners = parts.powWinners;
    this.api = parts.api;
    this.clock = parts.clock;
    this.dataDir = parts.dataDir;
    this.phases = parts.phases;
    this.loggers = parts.loggers;
    this.controller = parts.controller;
    this.stops = parts.stops;
  }

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
    const api = own(
      await ApiServer.init({ backend: config.api.backend }, log('api')).catch((e: NodeJS.ErrnoException) => {
        throw new ConfigError(
          `api.backend.listen_address: cannot listen on ${config.api.backend.listen_address}: ${listenFailure(e)}`,
        );
      }),
    );

    // The key store loads (and checks) its keys before anything is created; its ZK signatures are made
    // by the proof backend built below.
    let proofs: ProofSystem | undefined;
    const kms = own(
      KeyStore.init(config.kms, { proofs: { proveZkSign: (m, sks) => proofs!.proveZkSign(m, sks) } }),
    );

    // The circuits folder is checked whole before the storage opens: a missing or wrong file stops here.
    const circuits = opts.proofs === undefined ? loadCircuits(opts, log('proofs')) : undefined;

    const stateDir = resolve(opts.baseDir, config.state.base_folder);
    const dataDir = resolve(stateDir, config.storage.backend.folder_name);
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

    proofs = own(opts.proofs ?? createProofSystem(deployment, circuits ? { circuits } : {}));
    log('proofs').info({ backend: proofs.name }, 'proof backend ready');
    const rolesOff = logRolesOff(proofs, log('node'));
    // Blocks and transactions are verified off the event loop, on worker threads (Groth16).
    const verifier = own(await pooledVerifier(proofs, verifierThreads(config.mempool)));
    log('proofs').info({ verifier: verifier.name }, 'proof verification ready');

    const chain = own(
      await ChainService.init(
        {
          deployment,
          genesisTimeMs: init.genesisTimeMs,
          online: init.online,
          ...(opts.snapshotInterval ? { snapshotInterval: opts.snapshotInterval } : {}),
        },
        { store: store.chain, proofs: verifier, clock, logger: log('chain'), signal },
      ),
    );
    // The consensus state is recorded at once and then periodically (F: the chain service's
    // state_recording_timer, a tokio interval, ticks first right away).
    void chain.recordState();
    const recordEveryMs = boot.offline_grace_period.state_recording_interval * 1000;
    // inferred: a zero interval records with the blocks only (F cannot start with it) (docs/design/fidelity.md)
    if (recordEveryMs > 0) {
      const timer = setInterval(() => void chain.recordState(), recordEveryMs);
      stops.push(() => clearInterval(timer));
    }
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

    const ibdDone = deferred<void>();
    // Gossip waits for it; a failed IBD stops the node, so the rejection needs no other handler.
    ibdDone.promise.catch(() => {});
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
          ibd: () =>
            sync.initialBlockDownload().then(
              (ran) => {
                ibdDone.resolve();
                return ran;
              },
              (e: unknown) => {
                ibdDone.reject(e);
                throw e;
              },
            ),
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
        {
          network,
          chain,
          mempool,
          orphans: sync,
          ibd: ibdDone.promise,
          logger: log('network'),
          signal,
        },
      ),
    );

    // The mix network: proposals and dispersed transactions go through it when the epoch's Blend
    // membership is large enough, else straight to gossip and the mempool.
    const blend = own(
      await BlendService.init(
        {
          blend: config.blend,
          deployment: deployment.blend,
          signingSeed: blendSigningSeed(config),
          zkSecret: blendZkSecret(config),
        },
        {
          chain,
          clock,
          mempool,
          gossip,
          prover: proofs,
          verifier,
          // Through the node's SDP messages (built after this service): its current declaration.
          submitActivity: async (proof) => {
            await ops!.activity({ Blend: proof });
          },
          logger: log('blend'),
          signal,
        },
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
    const { secretKeys, voucherMaster, voucherMasterKeyId } = leaderKeys(kms, config.wallet);
    // inferred: without the key the node runs and passes over won slots; F requires the key id (docs/design/fidelity.md)
    if (voucherMaster === undefined && secretKeys.length > 0) {
      log('node').error(
        { voucher_master_key_id: voucherMasterKeyId },
        'no Zk voucher master key in the KMS: won slots cannot make blocks',
      );
    }
    const vouchers =
      voucherMaster !== undefined ? new VoucherGenerator(voucherMaster, store.wallet) : undefined;
    log('node').info({ leader_keys: secretKeys.length }, 'leader keys loaded');

    const ops = own(
      OpsService.init(
        {
          voucherMaster,
          leaderPks: secretKeys.map(zkPublicKey),
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
          signZk: (m, sks) => proofs!.proveZkSign(m, sks),
          store: winners,
          miner,
          clock,
          logger: powLog,
          signal,
        },
      ),
    );

    await api.serve({
      build: buildInfo(),
      chain,
      clock,
      deployment,
      mempool,
      wallet,
      ops,
      pow,
      network,
      blend,
      phase: () => phases.phase,
      setLogFilter: (filters) => applyLogFilter(loggers, filters),
    });
    // Serving stops before the services it reads close (the first close, of the bound socket, is then a no-op).
    stops.push(() => api.close());
    const leader = own(
      LeaderService.init(
        // A node that cannot prove leadership does not play the lottery (it follows the chain).
        { secretKeys: rolesOff.has('pol') ? [] : secretKeys, vouchers },
        {
          chain,
          clock,
          proofs,
          txs: mempool,
          logger: log('leader'),
          publisher: blend,
          signal,
        },
      ),
    );
    own(Notifier.init({ chain, clock, phases, logger: log('node'), signal }));

    return new LogosNode({
      chain,
      mempool,
      network,
      leader,
      gossip,
      sync,
      pow: pow,
      powWinners: winners,
      api,
      clock,
      dataDir,
      phases,
      loggers,
      controller,
      stops,
    });
  }

  /** Log levels per module (`chain`, `leader`, `api`, ...); `*` sets the node's default level. */
  setLogFilter(filters: Readonly<Record<string, string>>): void {
    applyLogFilter(this.loggers, filters);
  }

  /** Stops the services in reverse order of their start. Safe to call more than once. */
  async stop(): Promise<void> {
    this.controller.abort();
    await unwind(this.stops, this.loggers.get('node'));
  }
}

/** How an error names where the circuits folder came from. */
const CIRCUITS_SOURCE_LABEL: Readonly<Record<CircuitsSource, string>> = {
  option: '--circuits',
  config: 'proofs.circuits',
  LBC_ROOT_DIR: 'LBC_ROOT_DIR',
  shipped: 'the shipped circuits folder',
};

/** Chooses and checks the circuits folder (`--circuits`, `proofs.circuits`, `LBC_ROOT_DIR`, the shipped one). */
function loadCircuits(opts: NodeOptions, log: Logger): CircuitFolder {
  const { dir, from } = chooseCircuitsDir({
    option: opts.circuitsDir,
    config: opts.config.proofs.circuits ?? undefined,
    configBaseDir: opts.baseDir,
  });
  // inferred: a network proved with the reference's keys cannot be followed with this node's own (docs/design/fidelity.md)
  if (from === 'shipped' && opts.deployment.circuits === 'reference')
    throw new ConfigError(
      `deployment ${opts.deployment.name}: this node cannot verify this network's proofs with its own circuits: they are made with the reference's circuit keys. Give the reference's circuits release folder (logos-blockchain-circuits, unpacked) with --circuits, proofs.circuits or ${CIRCUITS_ENV}`,
    );
  let folder: CircuitFolder;
  try {
    folder = loadCircuitFolder(dir);
  } catch (e) {
    throw new ConfigError(`${CIRCUITS_SOURCE_LABEL[from]}: ${(e as Error).message}`);
  }
  const provers = CIRCUITS.filter((c) => folder.circuits[c].prover !== undefined);
  log.info({ folder: dir, from, pinned: folder.pinned, provers }, 'circuits folder loaded');
  return folder;
}

/** What a node that cannot prove a circuit does not do. */
const ROLES_OF: Readonly<Record<Circuit, string>> = {
  pol: 'block production (the leader does not play the lottery)',
  poq: 'Blend messages of its own (cover traffic, proposals and transactions sent through Blend)',
  zksig:
    'wallet transactions and ZK signatures (transfers, /wallet/sign/zk, SDP, channel deposits, PoW claims)',
  poc: 'leader reward claims (/leader/claim)',
};

/**
 * Says, once at start, which roles are off because the backend cannot prove their circuit.
 * inferred: the reference always has its native witness generators and has no such follower mode (docs/design/fidelity.md)
 */
function logRolesOff(proofs: ProofSystem, log: Logger): ReadonlySet<Circuit> {
  const off = new Set<Circuit>();
  for (const c of CIRCUITS) {
    const reason = proofs.cannotProve?.(c);
    if (reason === undefined) continue;
    off.add(c);
    log.warn({ circuit: c, off: ROLES_OF[c], reason }, `role off: ${ROLES_OF[c]}`);
  }
  if (off.size > 0)
    log.warn(
      { circuits: [...off] },
      'this node follows the chain as a validating follower for these circuits: it verifies their proofs and cannot make them',
    );
  return off;
}

/** Replaces the log filter and says which targets name no module of this node. */
function applyLogFilter(loggers: ModuleLoggers, filters: Readonly<Record<string, string>>): void {
  const unknown = loggers.setFilter(filters);
  const log = loggers.get('node');
  if (unknown.length > 0)
    log.warn(
      { unknown, modules: LOG_MODULES },
      'log filter: these targets name no module and change nothing',
    );
  log.info({ filters }, 'log filter replaced');
}
