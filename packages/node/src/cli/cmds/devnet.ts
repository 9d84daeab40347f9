/** `logos-node devnet`: a local network of several nodes on this machine (src/devnet/). */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  DEFAULT_DEVNET_DIR,
  type IbdPeersMode,
  MAX_NODES,
  MIN_NODES,
  runDevnet,
} from '../../devnet/index.ts';
import { defaultLogFormat, type LogFormat } from '../../node/logger.ts';
import { intOption, logFormatOption, logLevelOption, repeatable } from '../options.ts';

export function addDevnetCommand(program: Command): void {
  program
    .command('devnet')
    .description(
      `run a local devnet of ${MIN_NODES} to ${MAX_NODES} nodes on this machine (state in ${DEFAULT_DEVNET_DIR})`,
    )
    .option('-n, --nodes <n>', "how many nodes (default: the folder's devnet, else 4)", intOption)
    .option('--dir <path>', 'the devnet folder', DEFAULT_DEVNET_DIR)
    .option(
      '--api-port-base <port>',
      'API port of node 0; node i listens on base + i (default 8080)',
      intOption,
    )
    .option(
      '--p2p-port-base <port>',
      'P2P (UDP, QUIC) port of node 0; node i on base + i (default 3000)',
      intOption,
    )
    .option(
      '--p2p-host <ipv4>',
      'where the nodes listen for peers (default 127.0.0.1; 0.0.0.0 for other machines)',
    )
    .option(
      '--core-nodes <n>',
      'for a new chain: how many nodes (the first ones) its genesis declares as Blend core nodes (default all)',
      intOption,
    )
    .option('--genesis-delay <seconds>', 'for a new chain: its genesis this many seconds from now', intOption)
    .option(
      '--genesis-account <node:countxamount>',
      "for a new chain: genesis notes on a key of that node's wallet, e.g. 0:1x2000 (repeatable)",
      repeatable,
    )
    .option(
      '--deployment <path>',
      'for a new chain: the deployment file it is made from (default deployments/devnet.yaml)',
    )
    .option(
      '--peers <node=nodes>',
      "a node's initial peers, e.g. 3=1,2 (3= for none; repeatable; kept for the next runs; default every other node)",
      repeatable,
    )
    .option(
      '--ibd-peers <first|peers|none>',
      "each node's IBD peers: node 0 (default), its initial peers, or none (kept)",
    )
    .option(
      '--bootstrap-period <seconds>',
      "every node's prolonged bootstrap period (default 2; kept)",
      intOption,
    )
    .option(
      '--only <nodes>',
      'start only these nodes, e.g. 3 or 0,2 (others may run from another devnet command)',
    )
    .option(
      '--copy-state <from:to>',
      "start node <to> from a copy of stopped node <from>'s state folder (repeatable)",
      repeatable,
    )
    .option(
      '--metrics [port]',
      "serve each node's Prometheus metrics: node i on 127.0.0.1:(port + i) (default 9400); prints where to scrape",
      intOption,
    )
    .option('--insecure-test-proofs', 'run every node with the insecure test proofs (test deployments only)')
    .option('--reset', 'delete the devnet folder first and start a new chain')
    .option('--stop-on-exit', 'stop every node when one exits (default: the others keep running)')
    .option(
      '--circuits <dir>',
      "circuits folder in the reference layout (before proofs.circuits and LBC_ROOT_DIR; default: this node's own circuits)",
    )
    .option(
      '--log-format <json|pretty>',
      'log lines as JSON or as readable text (default: pretty on a terminal, JSON otherwise)',
      logFormatOption,
    )
    .option(
      '--log-level <level>',
      "every node's log level: trace, debug, info, warn or error (default info)",
      logLevelOption,
    )
    .action(
      async (o: {
        logLevel?: string;
        nodes?: number;
        dir: string;
        apiPortBase?: number;
        p2pPortBase?: number;
        p2pHost?: string;
        coreNodes?: number;
        genesisDelay?: number;
        genesisAccount?: string[];
        deployment?: string;
        peers?: string[];
        ibdPeers?: string;
        bootstrapPeriod?: number;
        only?: string;
        copyState?: string[];
        insecureTestProofs?: boolean;
        reset?: boolean;
        stopOnExit?: boolean;
        circuits?: string;
        logFormat?: LogFormat;
        metrics?: number | true;
      }) => {
        const pretty = (o.logFormat ?? defaultLogFormat()) === 'pretty';
        const code = await runDevnet({
          dir: resolve(o.dir),
          ...(o.nodes !== undefined ? { nodes: o.nodes } : {}),
          ...(o.apiPortBase !== undefined ? { apiPortBase: o.apiPortBase } : {}),
          ...(o.p2pPortBase !== undefined ? { p2pPortBase: o.p2pPortBase } : {}),
          ...(o.p2pHost !== undefined ? { p2pHost: o.p2pHost } : {}),
          ...(o.metrics !== undefined ? { metricsPortBase: o.metrics === true ? 9400 : o.metrics } : {}),
          ...(o.coreNodes !== undefined ? { coreNodes: o.coreNodes } : {}),
          ...(o.genesisDelay !== undefined ? { genesisDelayS: o.genesisDelay } : {}),
          ...(o.genesisAccount !== undefined ? { genesisAccounts: o.genesisAccount } : {}),
          ...(o.deployment !== undefined ? { deploymentFile: resolve(o.deployment) } : {}),
          ...(o.peers !== undefined ? { peers: o.peers } : {}),
          ...(o.ibdPeers !== undefined ? { ibdPeers: o.ibdPeers as IbdPeersMode } : {}),
          ...(o.bootstrapPeriod !== undefined ? { prolongedBootstrapS: o.bootstrapPeriod } : {}),
          ...(o.only !== undefined ? { only: o.only } : {}),
          ...(o.copyState !== undefined ? { copyState: o.copyState } : {}),
          ...(o.insecureTestProofs === true ? { insecureTestProofs: true } : {}),
          reset: o.reset === true,
          stopOnExit: o.stopOnExit === true,
          pretty,
          color: pretty && process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
          ...(o.circuits !== undefined ? { keysDir: resolve(o.circuits) } : {}),
          ...(o.logLevel !== undefined ? { logLevel: o.logLevel } : {}),
        });
        process.exit(code);
      },
    );
}
