/**
 * The command line: `start` (a node from a config; without one, the local devnet), `devnet` (a local
 * network of several nodes), `init` (a new node's config with fresh keys), `version`.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { bytesToHex } from './codec/hex.ts';
import { DEFAULT_DEVNET_DIR, type IbdPeersMode, MAX_NODES, MIN_NODES, runDevnet } from './devnet/index.ts';
import type { Deployment } from './ledger/deployment.ts';
import { postBlendDeclaration } from './node/blend-declaration.ts';
import { devnetConfig, fundedDevnetKeys } from './node/devnet.ts';
import { loadDeployment, readConfigFile } from './node/load.ts';
import { createRootLogger, defaultLogFormat, type LogFormat } from './node/logger.ts';
import { generateNodeKeys, nodeConfigYaml } from './node/new-config.ts';
import { LogosNode } from './node/node.ts';
import { runSelfCheck } from './selfcheck.ts';
import { API_VERSION, IMPLEMENTATION } from './version.ts';
import { createProofSystem } from './zk/index.ts';

export { loadDeployment, readConfigFile };

const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

function intOption(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError('expected a whole number');
  return Number(v);
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;

function logLevelOption(v: string): string {
  const l = v.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(l))
    throw new InvalidArgumentError(`expected one of ${LOG_LEVELS.join(', ')}`);
  return l;
}

function logFormatOption(v: string): LogFormat {
  if (!(LOG_FORMATS as readonly string[]).includes(v))
    throw new InvalidArgumentError(`expected ${LOG_FORMATS.join(' or ')}`);
  return v as LogFormat;
}

/** The start-up banner for a person at a terminal: where the API is, which chain, the devnet keys. */
export function banner(node: LogosNode, deployment: Deployment, devnet: boolean): string {
  const g = node.chain.genesis;
  const lines = [
    '',
    `  Logos node ${API_VERSION} (${IMPLEMENTATION})`,
    `  API      http://${node.api.listening}   (Swagger UI: /swagger-ui/)`,
    `  chain    ${deployment.name}, chain id ${g.parameter.chain_id}, genesis ${bytesToHex(g.id).slice(0, 16)}…` +
      ` at ${new Date(node.clock.slotStartMs(0n)).toISOString()}, ${deployment.slot_duration_ms / 1000} s slots`,
    `  data     ${node.dataDir}`,
  ];
  if (devnet) {
    lines.push('', '  Funded devnet keys (public test keys, for this local chain only):');
    lines.push(`  ${'#'.padEnd(3)}${'public key'.padEnd(66)}secret key`);
    for (const k of fundedDevnetKeys())
      lines.push(`  ${String(k.index).padEnd(3)}${k.publicKey}  ${k.secretKey}`);
  }
  return `${lines.join('\n')}\n\n`;
}

export function buildCli(): Command {
  const program = new Command();
  program.name('logos-node').description('A Logos blockchain node').showHelpAfterError();
  // Without a command, `start` runs; a word that names no command is an error, not an argument of start.
  program.hook('preSubcommand', (cmd, sub) => {
    const first = cmd.args[0];
    if (first !== undefined && !first.startsWith('-') && first !== sub.name()) {
      const names = cmd.commands.map((c) => c.name());
      cmd.error(`error: unknown command '${first}' (commands: ${names.join(', ')}, help)`, {
        code: 'commander.unknownCommand',
      });
    }
  });

  program
    .command('start', { isDefault: true })
    .description('run a node (without --config: the local devnet, state in ./.devnet)')
    .option('-c, --config <path>', 'user_config.yaml')
    .option(
      '-d, --deployment <name|path>',
      'devnet, reference, testnet (the public testnet) or a deployment file',
      'devnet',
    )
    .option(
      '--circuits <dir>',
      "circuits folder in the reference layout (before proofs.circuits and LBC_ROOT_DIR; default: this node's own circuits)",
    )
    .option('--insecure-test-proofs', 'use the insecure test proof backend (only test deployments accept it)')
    .option(
      '--log-format <json|pretty>',
      'log lines as JSON or as readable text (default: pretty on a terminal, JSON otherwise)',
      logFormatOption,
    )
    .option(
      '--log-level <level>',
      "trace, debug, info, warn or error (default: the config's tracing.level)",
      logLevelOption,
    )
    .option('--new-chain', 'start a new chain in a data folder that was used before but lost its chain file')
    .action(
      async (o: {
        config?: string;
        deployment: string;
        circuits?: string;
        insecureTestProofs?: boolean;
        logFormat?: LogFormat;
        logLevel?: string;
        newChain?: boolean;
      }) => {
        // Everything is checked before the node touches its storage.
        const config = o.config ? readConfigFile(o.config) : devnetConfig();
        const deployment = loadDeployment(o.deployment);
        const format = o.logFormat ?? defaultLogFormat();
        const logger = createRootLogger({ level: o.logLevel ?? config.tracing.level.toLowerCase(), format });
        const failed = runSelfCheck().filter((r) => !r.ok);
        if (failed.length > 0)
          throw new Error(`cryptographic self-check failed: ${failed.map((r) => r.name).join(', ')}`);
        logger.info(
          { version: API_VERSION, implementation: IMPLEMENTATION, deployment: deployment.name },
          'starting',
        );
        // A fatal error (e.g. a full disk) may come while the node is still starting: it stops once started.
        let node: LogosNode | undefined;
        let fatal = false;
        let stopping = false;
        const shutdown = (reason: string, code = 0) => {
          if (stopping || node === undefined) return;
          stopping = true;
          logger.info({ reason }, 'stopping');
          void node.stop().then(() => {
            logger.info('stopped');
            process.exit(code);
          });
        };
        node = await LogosNode.start({
          deployment,
          config,
          baseDir: o.config ? dirname(resolve(o.config)) : process.cwd(),
          logger,
          ...(o.circuits ? { circuitsDir: resolve(o.circuits) } : {}),
          ...(o.newChain ? { newChain: true } : {}),
          ...(o.insecureTestProofs
            ? { proofs: createProofSystem(deployment, { insecureTestProofs: true }) }
            : {}),
          onFatal: () => {
            fatal = true;
            shutdown('fatal error', 1);
          },
        });
        if (fatal) return shutdown('fatal error', 1);
        if (format === 'pretty') process.stdout.write(banner(node, deployment, !o.config));
        else if (!o.config) {
          for (const k of fundedDevnetKeys()) {
            logger.info(
              { key: k.index, public_key: k.publicKey, secret_key: k.secretKey },
              'funded devnet key (public test key)',
            );
          }
        }
        process.on('SIGINT', () => shutdown('SIGINT'));
        process.on('SIGTERM', () => shutdown('SIGTERM'));
      },
    );

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
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--deployment <path>',
      'for a new chain: the deployment file it is made from (default deployments/devnet.yaml)',
    )
    .option(
      '--peers <node=nodes>',
      "a node's initial peers, e.g. 3=1,2 (3= for none; repeatable; kept for the next runs; default every other node)",
      (v: string, prev: string[] = []) => [...prev, v],
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
      (v: string, prev: string[] = []) => [...prev, v],
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
      }) => {
        const pretty = (o.logFormat ?? defaultLogFormat()) === 'pretty';
        const code = await runDevnet({
          dir: resolve(o.dir),
          ...(o.nodes !== undefined ? { nodes: o.nodes } : {}),
          ...(o.apiPortBase !== undefined ? { apiPortBase: o.apiPortBase } : {}),
          ...(o.p2pPortBase !== undefined ? { p2pPortBase: o.p2pPortBase } : {}),
          ...(o.p2pHost !== undefined ? { p2pHost: o.p2pHost } : {}),
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

  const sdp = program
    .command('sdp')
    .description('Service Declaration Protocol (SDP) operations on a running node');
  sdp
    .command('post-blend-declaration')
    .description(
      'declare a node as a Blend core node: checks its funding key and the note through its API, then POST /blend/join',
    )
    .requiredOption('--user-config-path <path>', "the node's user_config.yaml")
    .requiredOption(
      '--blend-addr <multiaddr>',
      'the Blend address to declare (e.g. /ip4/1.2.3.4/udp/3400/quic-v1)',
    )
    .requiredOption('--locked-note-id <hex>', 'the note of the Blend Zk key to lock')
    .option('--node-address <url>', "the node's API", 'http://localhost:8080')
    .option('--username <name>', 'basic auth user for the API')
    .option('--password <password>', 'basic auth password for the API')
    .action(
      async (o: {
        userConfigPath: string;
        blendAddr: string;
        lockedNoteId: string;
        nodeAddress: string;
        username?: string;
        password?: string;
      }) => {
        const id = await postBlendDeclaration({
          userConfigPath: o.userConfigPath,
          blendAddr: o.blendAddr,
          lockedNoteId: o.lockedNoteId,
          nodeAddress: o.nodeAddress,
          ...(o.username !== undefined ? { username: o.username } : {}),
          ...(o.password !== undefined ? { password: o.password } : {}),
        });
        console.log(`Declaration posted successfully: ${id}`);
      },
    );

  program
    .command('init')
    .description('write a user_config.yaml with fresh keys for a new node (mode 600, never overwrites)')
    .requiredOption('-c, --config <path>', 'where to write user_config.yaml')
    .action((o: { config: string }) => {
      if (existsSync(o.config)) throw new Error(`${o.config} already exists; refusing to overwrite it`);
      writeFileSync(o.config, nodeConfigYaml(generateNodeKeys()), { mode: 0o600, flag: 'wx' });
      console.log(`wrote ${o.config}`);
    });

  program
    .command('version')
    .description('print the version')
    .action(() => {
      console.log(JSON.stringify({ version: API_VERSION, implementation: IMPLEMENTATION }));
    });
  return program;
}
