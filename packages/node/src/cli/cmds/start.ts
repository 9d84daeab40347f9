/**
 * `logos-node start` (the default command): a node from a user config, or without one the local devnet
 * node (state in ./.devnet); every input is checked before the node touches its storage, among them
 * the key files (a config holding secret keys, the keystore.yaml beside it: private to their owner).
 * The node reads its keys from that config again on `POST /x/admin/keys/reload` (node/keys.ts).
 */

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { bytesToHex, hexToBytes } from '../../codec/hex.ts';
import type { Deployment } from '../../ledger/deployment.ts';
import type { CheckpointStart } from '../../node/checkpoint.ts';
import { devnetConfig, fundedDevnetKeys } from '../../node/devnet.ts';
import { checkKeyFiles } from '../../node/keys.ts';
import { loadDeployment, readConfigFile } from '../../node/load.ts';
import { createRootLogger, defaultLogFormat, type LogFormat } from '../../node/logger.ts';
import { LogosNode } from '../../node/node.ts';
import { runSelfCheck } from '../../selfcheck.ts';
import { API_VERSION, IMPLEMENTATION } from '../../version.ts';
import { createProofSystem } from '../../zk/index.ts';
import { CliError } from '../errors.ts';
import { logFormatOption, logLevelOption } from '../options.ts';
import { showIbdProgress } from '../progress.ts';

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

/** `--checkpoint`: 64 hex digits are a block id (fetched from peers), anything else a file. */
function checkpointOption(v: string): CheckpointStart {
  if (/^[0-9a-fA-F]{64}$/.test(v)) return { blockId: hexToBytes(v) };
  if (!existsSync(v))
    throw new CliError(
      'CLI_BAD_INPUT',
      `--checkpoint: ${v} is neither a file nor a block id (64 hex digits)`,
      {
        path: v,
      },
    );
  return { file: resolve(v) };
}

export function addStartCommand(program: Command): void {
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
    .option(
      '--checkpoint <file|block id>',
      'a new node starts from this checkpoint instead of genesis: a file (snapshot export), or the id of a block whose checkpoint two peers confirm',
    )
    .option(
      '--insecure-api-binding',
      'serve the API without authentication on an address other machines can reach (refused otherwise; see api.backend.auth)',
    )
    .action(
      async (o: {
        config?: string;
        deployment: string;
        circuits?: string;
        insecureTestProofs?: boolean;
        logFormat?: LogFormat;
        logLevel?: string;
        newChain?: boolean;
        insecureApiBinding?: boolean;
        checkpoint?: string;
      }) => {
        // Everything is checked before the node touches its storage.
        const checkpoint = o.checkpoint === undefined ? undefined : checkpointOption(o.checkpoint);
        const config = o.config ? readConfigFile(o.config) : devnetConfig();
        if (o.config) checkKeyFiles(o.config, config);
        const deployment = loadDeployment(o.deployment);
        const format = o.logFormat ?? defaultLogFormat();
        const logger = createRootLogger({ level: o.logLevel ?? config.tracing.level.toLowerCase(), format });
        const failed = runSelfCheck().filter((r) => !r.ok);
        if (failed.length > 0)
          throw new CliError(
            'CLI_SELF_CHECK_FAILED',
            `cryptographic self-check failed: ${failed.map((r) => r.name).join(', ')}`,
          );
        logger.info(
          { version: API_VERSION, implementation: IMPLEMENTATION, deployment: deployment.name },
          'starting',
        );
        // A fatal error (e.g. a full disk) may come while the node is still starting: it stops once started.
        let node: LogosNode | undefined;
        let fatal = false;
        let stopping = false;
        let hideProgress = () => {};
        const shutdown = (reason: string, code = 0) => {
          if (stopping || node === undefined) return;
          stopping = true;
          hideProgress();
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
          ...(o.config ? { configFile: resolve(o.config) } : {}),
          logger,
          ...(o.circuits ? { circuitsDir: resolve(o.circuits) } : {}),
          ...(o.newChain ? { newChain: true } : {}),
          ...(checkpoint ? { checkpoint } : {}),
          ...(o.insecureApiBinding ? { insecureApiBinding: true } : {}),
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
        // On a terminal, a progress bar while initial block download runs (its log lines say the same).
        if (format === 'pretty') hideProgress = showIbdProgress(() => node?.sync.ibdProgress() ?? null);
        process.on('SIGINT', () => shutdown('SIGINT'));
        process.on('SIGTERM', () => shutdown('SIGTERM'));
      },
    );
}
