/**
 * `logos-node config …`: the node's config-file calls as commands, through the same functions the
 * blockchain module calls (src/config-file/; operator.md §2.2-§2.3; F: `nodes/node/binary/src/cli/
 * config/{init,update,migrate}.rs`, `migrate_0_1_2/`, `participate.rs`):
 *
 * - `config generate`: a new user_config.yaml and keystore.yaml with fresh keys (never over a file);
 * - `config update`: puts a keystore's keys into an existing config, every other value kept;
 * - `config migrate`: a new config for the keys of an existing keystore;
 * - `config migrate-0.1.2`: a keystore from the keys of a 0.1.2 config, and a new config for it;
 * - `config participate`: participation_data.yaml (stakeholder identities, Blend declaration);
 * - `config peer-id`: the libp2p peer id of the config's swarm key.
 *
 * The keystore is `keystore.yaml` next to the config unless `--keystore` names one. Paths are relative
 * to the working directory. No command prints a secret key.
 */
import { join, resolve } from 'node:path';
import type { Json } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import {
  migrateUserConfig,
  migrateUserConfig012,
  PARTICIPATION_FILE,
  participate,
  updateUserConfig,
} from '../../config-file/config-calls.ts';
import { peerIdOfConfig } from '../../config-file/keys.ts';
import { generateUserConfig, keystoreBeside } from '../../config-file/user-config.ts';
import { portOption, repeatable } from '../options.ts';

/** The keystore of a config: `--keystore`, else keystore.yaml in the config's folder. */
export function keystoreOf(config: string, keystore: string | undefined): string {
  return keystore ?? keystoreBeside(config);
}

const KEYSTORE_HELP = 'keystore.yaml (default: keystore.yaml next to the config)';

interface GenerateOptions {
  config: string;
  keystore?: string;
  initialPeer?: string[];
  netPort?: number;
  blendPort?: number;
  httpAddr?: string;
  externalAddress?: string;
  statePath?: string;
  storagePath?: string;
  logsPath?: string;
  skipIbd?: boolean;
}

/** The `generate_user_config` JSON arguments of `config generate`'s options. */
function generateArgs(o: GenerateOptions): { [k: string]: Json } {
  const a: { [k: string]: Json } = { output: o.config };
  if (o.keystore !== undefined) a.kms_file = o.keystore;
  if (o.initialPeer !== undefined) a.initial_peers = o.initialPeer;
  if (o.netPort !== undefined) a.net_port = o.netPort;
  if (o.blendPort !== undefined) a.blend_port = o.blendPort;
  if (o.httpAddr !== undefined) a.http_addr = o.httpAddr;
  if (o.externalAddress !== undefined) a.external_address = o.externalAddress;
  if (o.statePath !== undefined) a.state_path = o.statePath;
  if (o.storagePath !== undefined) a.storage_path = o.storagePath;
  if (o.logsPath !== undefined) a.logs_path = o.logsPath;
  if (o.skipIbd === true) a.skip_ibd = true;
  return a;
}

export function addConfigCommand(program: Command): void {
  const config = program
    .command('config')
    .description("a node's config files: generate, update, migrate, participation data, peer id");

  config
    .command('generate')
    .description('write a user_config.yaml and keystore.yaml with fresh keys (mode 600, never overwrites)')
    .option('-c, --config <path>', 'where to write the config', 'user_config.yaml')
    .option('--keystore <path>', KEYSTORE_HELP)
    .option('--initial-peer <multiaddr>', 'an initial peer, with /p2p/<peer id> (repeatable)', repeatable)
    .option('--net-port <port>', 'the peer-to-peer (QUIC, UDP) port (default 3000)', portOption)
    .option('--blend-port <port>', 'the Blend port (default 3400)', portOption)
    .option('--http-addr <host:port>', "the API's listen address (default 127.0.0.1:8080)")
    .option('--external-address <multiaddr>', 'the address announced to peers, instead of NAT traversal')
    .option('--state-path <dir>', 'state.base_folder (default ./state)')
    .option('--storage-path <dir>', 'storage.backend.folder_name (default ./db)')
    .option('--logs-path <dir>', 'where the node writes its log files')
    .option('--skip-ibd', 'start without initial block download')
    .action((o: GenerateOptions) => {
      const cwd = process.cwd();
      generateUserConfig(generateArgs(o), cwd, cwd);
      console.log(`wrote ${o.config} and ${keystoreOf(o.config, o.keystore)}`);
    });

  config
    .command('update')
    .description("put a keystore's keys into an existing config (every other value is kept)")
    .requiredOption('-c, --config <path>', 'the user_config.yaml to update')
    .option('--keystore <path>', KEYSTORE_HELP)
    .action((o: { config: string; keystore?: string }) => {
      const ks = keystoreOf(o.config, o.keystore);
      updateUserConfig(process.cwd(), o.config, ks);
      console.log(`updated ${o.config} from ${ks}`);
    });

  config
    .command('migrate')
    .description('write a new config for the keys of an existing keystore (never overwrites)')
    .requiredOption('-c, --config <path>', 'where to write the new user_config.yaml')
    .option('--keystore <path>', KEYSTORE_HELP)
    .action((o: { config: string; keystore?: string }) => {
      migrateUserConfig(process.cwd(), o.config, keystoreOf(o.config, o.keystore));
      console.log(`wrote ${o.config}`);
    });

  config
    .command('migrate-0.1.2')
    .description(
      'make a keystore from the keys of a 0.1.2 config, and a new config for it (never overwrites)',
    )
    .requiredOption('--old <path>', 'the 0.1.2 config')
    .requiredOption('-c, --config <path>', 'where to write the new user_config.yaml')
    .option('--keystore <path>', 'where to write the keystore (default: keystore.yaml next to the config)')
    .action((o: { old: string; config: string; keystore?: string }) => {
      const ks = keystoreOf(o.config, o.keystore);
      migrateUserConfig012(process.cwd(), o.config, o.old, ks);
      console.log(`wrote ${o.config} and ${ks}`);
    });

  config
    .command('participate')
    .description(`write ${PARTICIPATION_FILE}: the node's stakeholder identities and Blend declaration`)
    .requiredOption('-c, --config <path>', "the node's user_config.yaml")
    .option('--keystore <path>', KEYSTORE_HELP)
    .option('--out-dir <dir>', 'the folder to write it in (created when absent)', '.')
    .option('--external-ip <ipv4>', "the node's public IPv4 address, for an unspecified Blend listening host")
    .action((o: { config: string; keystore?: string; outDir: string; externalIp?: string }) => {
      participate(process.cwd(), o.config, keystoreOf(o.config, o.keystore), o.outDir, o.externalIp ?? '');
      console.log(`wrote ${join(o.outDir, PARTICIPATION_FILE)}`);
    });

  config
    .command('peer-id')
    .description("print the libp2p peer id of the config's swarm key")
    .requiredOption('-c, --config <path>', "the node's user_config.yaml")
    .action(async (o: { config: string }) => {
      console.log(await peerIdOfConfig(resolve(o.config)));
    });
}
