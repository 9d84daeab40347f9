/**
 * The command line: `start` (a node from a config; without one, the local devnet), `init` (a new
 * node's config with fresh keys), `version`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { bytesToHex } from './codec/hex.ts';
import { ed25519GenerateSecretKey, ed25519PublicKey } from './crypto/ed25519.ts';
import { frToBytes } from './crypto/field.ts';
import { zkGenerateSecretKey, zkPublicKey } from './crypto/zk-keys.ts';
import { type Deployment, parseDeployment } from './ledger/deployment.ts';
import { devnetKeys, devnetSecretKey } from './ledger/devnet-keys.ts';
import { DEFAULT_CONFIG, parseUserConfig, type UserConfig } from './node/config.ts';
import { LogosNode } from './node/node.ts';
import { runSelfCheck } from './selfcheck.ts';
import { API_VERSION, IMPLEMENTATION } from './version.ts';
import { createProofSystem } from './zk/index.ts';

const DEPLOYMENTS = new URL('../deployments/', import.meta.url);

export function loadDeployment(nameOrPath: string): Deployment {
  if (nameOrPath === 'testnet' || nameOrPath === 'mainnet') {
    throw new InvalidArgumentError(
      `there is no ${nameOrPath} deployment: this node cannot join the public network (its genesis ` +
        `and Groth16 keys are its own); 'reference' runs a local chain with the reference's parameters`,
    );
  }
  const path = ['devnet', 'reference'].includes(nameOrPath)
    ? new URL(`${nameOrPath}.yaml`, DEPLOYMENTS)
    : resolve(nameOrPath);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InvalidArgumentError(`cannot read deployment ${nameOrPath}: ${(e as Error).message}`);
  }
  return parseDeployment(text, String(nameOrPath));
}

/** The configuration of the local devnet node: its wallet holds the published devnet keys. */
export function devnetConfig(): UserConfig {
  const keys = devnetKeys(4);
  const hex = (x: bigint) => bytesToHex(frToBytes(x));
  const master = devnetSecretKey(1000);
  const kms: Record<string, { kind: 'Zk'; secret: string }> = {};
  const known: Record<string, string> = {};
  for (const k of keys) {
    kms[hex(k.publicKey)] = { kind: 'Zk', secret: hex(k.secretKey) };
    known[hex(k.publicKey)] = hex(k.publicKey);
  }
  kms[hex(zkPublicKey(master))] = { kind: 'Zk', secret: hex(master) };
  return {
    ...DEFAULT_CONFIG,
    state: { base_folder: '.devnet' },
    cryptarchia: {
      ...DEFAULT_CONFIG.cryptarchia,
      service: {
        bootstrap: { ...DEFAULT_CONFIG.cryptarchia.service.bootstrap, prolonged_bootstrap_period: 2 },
      },
    },
    wallet: { ...DEFAULT_CONFIG.wallet, known_keys: known, voucher_master_key_id: hex(zkPublicKey(master)) },
    kms: { backend: { keys: kms } },
  };
}

function newNodeConfigYaml(): string {
  const hex = (x: bigint) => bytesToHex(frToBytes(x));
  const zk = ['BlendZk', 'LeaderFunding', 'SdpFunding', 'VaucherMaster', 'Stake'].map((title) => {
    const sk = zkGenerateSecretKey();
    return { title, id: hex(zkPublicKey(sk)), sk: hex(sk) };
  });
  const ed = ['BlendSigning', 'NetworkSwarm'].map((title) => {
    const sk = ed25519GenerateSecretKey();
    return { title, id: bytesToHex(ed25519PublicKey(sk)), sk: bytesToHex(sk) };
  });
  const lines = [
    '# Logos node configuration (reference layout). Keep this file private: it holds secret keys.',
    'api:',
    '  backend:',
    '    listen_address: 127.0.0.1:8080',
    'state:',
    '  base_folder: ./state',
    'kms:',
    '  backend:',
    '    keys:',
    ...zk.map((k) => `      ${k.id}: !Zk ${k.sk}  # ${k.title}`),
    ...ed.map((k) => `      ${k.id}: !Ed25519 ${k.sk}  # ${k.title}`),
    'wallet:',
    '  known_keys:',
    ...zk.map((k) => `    ${k.id}: ${k.id}  # ${k.title}`),
    `  voucher_master_key_id: ${zk.find((k) => k.title === 'VaucherMaster')!.id}`,
    '',
  ];
  return lines.join('\n');
}

export function buildCli(): Command {
  const program = new Command();
  program.name('logos-node').description('A Logos blockchain node').showHelpAfterError();

  program
    .command('start', { isDefault: true })
    .description('run a node (without --config: the local devnet, state in ./.devnet)')
    .option('-c, --config <path>', 'user_config.yaml')
    .option('-d, --deployment <name|path>', 'devnet, reference or a deployment file', 'devnet')
    .option('--keys <dir>', 'folder of the Groth16 circuit keys (default: the shipped devnet keys)')
    .option('--insecure-test-proofs', 'use the insecure test proof backend (only test deployments accept it)')
    .option('--new-chain', 'start a new chain in a data folder that was used before but lost its chain file')
    .action(
      async (o: {
        config?: string;
        deployment: string;
        keys?: string;
        insecureTestProofs?: boolean;
        newChain?: boolean;
      }) => {
        const config = o.config ? parseUserConfig(readFileSync(o.config, 'utf8'), o.config) : devnetConfig();
        const deployment = loadDeployment(o.deployment);
        const logger = pino({ level: config.tracing.level.toLowerCase(), base: { svc: 'logos-node' } });
        const failed = runSelfCheck().filter((r) => !r.ok);
        if (failed.length > 0)
          throw new Error(`cryptographic self-check failed: ${failed.map((r) => r.name).join(', ')}`);
        logger.info(
          { version: API_VERSION, implementation: IMPLEMENTATION, deployment: deployment.name },
          'starting',
        );
        const node = await LogosNode.start({
          deployment,
          config,
          baseDir: o.config ? dirname(resolve(o.config)) : process.cwd(),
          logger,
          ...(o.keys ? { keysDir: resolve(o.keys) } : {}),
          ...(o.newChain ? { newChain: true } : {}),
          ...(o.insecureTestProofs
            ? { proofs: createProofSystem(deployment, { insecureTestProofs: true }) }
            : {}),
          onFatal: () => shutdown('fatal error', 1),
        });
        if (!o.config) {
          for (const [i, k] of devnetKeys(4).entries()) {
            logger.info(
              {
                key: i,
                public_key: bytesToHex(frToBytes(k.publicKey)),
                secret_key: bytesToHex(frToBytes(k.secretKey)),
              },
              'funded devnet key (public test key)',
            );
          }
        }
        let stopping = false;
        const shutdown = (reason: string, code = 0) => {
          if (stopping) return;
          stopping = true;
          logger.info({ reason }, 'stopping');
          void node.stop().then(() => {
            logger.info('stopped');
            process.exit(code);
          });
        };
        process.on('SIGINT', () => shutdown('SIGINT'));
        process.on('SIGTERM', () => shutdown('SIGTERM'));
      },
    );

  program
    .command('init')
    .description('write a user_config.yaml with fresh keys for a new node (mode 600, never overwrites)')
    .requiredOption('-c, --config <path>', 'where to write user_config.yaml')
    .action((o: { config: string }) => {
      if (existsSync(o.config)) throw new Error(`${o.config} already exists; refusing to overwrite it`);
      writeFileSync(o.config, newNodeConfigYaml(), { mode: 0o600, flag: 'wx' });
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
