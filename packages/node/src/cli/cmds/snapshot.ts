/**
 * `logos-node snapshot export`: has the running node write the checkpoint of its LIB (its block and
 * the ledger state after it, chain/checkpoint.ts) to a new file, through the loopback-only
 * `POST /x/admin/checkpoint` of its API; `start --checkpoint <file>` starts another node from it.
 */
import { resolve } from 'node:path';
import { checkPrivateFile } from '@logos-ts/shared/private-file';
import type { Command } from 'commander';
import { readConfigFile } from '../../node/load.ts';
import { CliError } from '../errors.ts';
import { loopbackUrl, readSecret } from './keys.ts';

/** A checkpoint of a large chain takes a while to encode and write. */
const EXPORT_TIMEOUT_MS = 120_000;

interface ExportOptions {
  config?: string;
  out: string;
  nodeAddress?: string;
  tokenFile?: string;
}

export function addSnapshotCommand(program: Command): void {
  const snapshot = program.command('snapshot').description("a running node's checkpoints");
  snapshot
    .command('export')
    .description('write the checkpoint of the LIB (block and ledger state) of a running node to a new file')
    .requiredOption('-o, --out <file>', 'the file to write (must not exist)')
    .option('-c, --config <path>', "the node's user_config.yaml (its API address; default: the devnet's)")
    .option('--node-address <url>', "the node's API (default: from the config's api.backend.listen_address)")
    .option('--token-file <path>', 'a private file holding the bearer token, when the API asks for one')
    .action(async (o: ExportOptions) => {
      const listen = o.config ? readConfigFile(o.config).api.backend.listen_address : '127.0.0.1:8080';
      const base = o.nodeAddress ?? loopbackUrl(listen);
      if (base === undefined)
        throw new CliError('CLI_BAD_INPUT', `the config's API listens on ${listen}: give --node-address`);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (o.tokenFile !== undefined) {
        checkPrivateFile(o.tokenFile);
        headers.authorization = `Bearer ${readSecret(o.tokenFile)}`;
      }
      const path = resolve(o.out);
      let res: Response;
      try {
        res = await fetch(`${base.replace(/\/+$/, '')}/x/admin/checkpoint`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ path }),
          signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
        });
      } catch (e) {
        throw new CliError('CLI_NODE_UNREACHABLE', `no node answers at ${base}: ${(e as Error).message}`);
      }
      const text = await res.text();
      if (res.status !== 200) {
        let message = text;
        try {
          message = (JSON.parse(text) as { message?: string }).message ?? text;
        } catch {
          // plain text
        }
        throw new CliError(
          'CLI_NODE_REFUSED',
          `the node at ${base} did not write the checkpoint (${res.status}): ${message}`,
        );
      }
      const w = JSON.parse(text) as {
        path: string;
        block: string;
        slot: number;
        height: number;
        hash: string;
        bytes: number;
      };
      console.log(
        `wrote ${w.path}: block ${w.block} (slot ${w.slot}, height ${w.height}), ${w.bytes} bytes, content hash ${w.hash}`,
      );
    });
}
