/** How a node is started: its deployment and configuration, and what tests replace. */
import type { Logger } from 'pino';
import type { Deployment } from '../ledger/deployment.ts';
import type { ProofSystem } from '../ledger/proof-system.ts';
import type { INetwork } from '../network/index.ts';
import type { CheckpointStart } from './checkpoint.ts';
import type { UserConfig } from './config.ts';

export interface NodeOptions {
  readonly deployment: Deployment;
  readonly config: UserConfig;
  /** Directory the relative paths of the config are resolved against. */
  readonly baseDir: string;
  /** The config file `config` was read from: a running node reads its keys from it again (node/keys.ts). */
  readonly configFile?: string;
  readonly logger: Logger;
  /** Overrides the proof backend (tests). */
  readonly proofs?: ProofSystem;
  /** `--circuits`: the circuits folder, ahead of the config's `proofs.circuits` and `LBC_ROOT_DIR`. */
  readonly circuitsDir?: string;
  /** Blocks between ledger snapshots (default 1000). */
  readonly snapshotInterval?: number;
  /** Start a new chain even if the data folder was used before and lost its chain file. */
  readonly newChain?: boolean;
  /** `--insecure-api-binding`: serve the API on a non-loopback address without authentication. */
  readonly insecureApiBinding?: boolean;
  /** Called when the node cannot go on (e.g. its storage failed); the CLI exits. */
  readonly onFatal?: (e: Error) => void;
  /** Overrides the peer-to-peer network (tests: an in-memory one). */
  readonly network?: INetwork;
  /** `--checkpoint`: a new node starts from this checkpoint (a file, or a block's from peers). */
  readonly checkpoint?: CheckpointStart;
}
