/** Runs the node's command line (`src/main.ts`) in a child process, as `npm start` does. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { devnetConfig } from '../../src/node/devnet.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function spawnCli(args: readonly string[], cwd: string): ChildProcess {
  return spawn(process.execPath, [...childExecArgv(), join(ROOT, 'src/main.ts'), ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The devnet configuration (its public test keys) as a user_config.yaml, with the API on an ephemeral
 * port (the node binds it before anything else, so a fixed port in use elsewhere would stop it) and
 * the state in `./.devnet` as without `--config` unless `baseFolder` says otherwise.
 */
export function devnetConfigYaml(
  opts: { baseFolder?: string; apiTimeout?: number; prolongedBootstrapPeriod?: number } = {},
): string {
  const c = devnetConfig();
  const bootstrap =
    opts.prolongedBootstrapPeriod ?? c.cryptarchia.service.bootstrap.prolonged_bootstrap_period;
  const timeout = opts.apiTimeout === undefined ? '' : `, timeout: ${opts.apiTimeout}`;
  return [
    `api: { backend: { listen_address: '127.0.0.1:0'${timeout} } }`,
    `state: { base_folder: '${opts.baseFolder ?? './.devnet'}' }`,
    // the peer-to-peer port: any free one of the loopback, as the API's
    "network: { backend: { swarm: { host: '127.0.0.1', port: 0 } } }",
    `cryptarchia: { service: { bootstrap: { prolonged_bootstrap_period: ${bootstrap} } }, leader: { wallet: { funding_pk: '${c.cryptarchia.leader.wallet.funding_pk}' } } }`,
    `sdp: { wallet: { funding_pk: '${c.sdp.wallet.funding_pk}' } }`,
    `blend: { non_ephemeral_signing_key_id: '${c.blend.non_ephemeral_signing_key_id}', core: { zk: { secret_key_kms_id: '${c.blend.core_zk_secret_key_kms_id}' } } }`,
    'kms:',
    '  backend:',
    '    keys:',
    ...Object.entries(c.kms.backend.keys).map(([id, k]) => `      '${id}': !${k.kind} '${k.secret}'`),
    'wallet:',
    '  known_keys:',
    ...Object.entries(c.wallet.known_keys).map(([id, pk]) => `    '${id}': '${pk}'`),
    `  voucher_master_key_id: '${c.wallet.voucher_master_key_id}'`,
    '',
  ].join('\n');
}
