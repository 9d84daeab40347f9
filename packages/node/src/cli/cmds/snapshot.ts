/**
 * `logos-node snapshot export`: reads the checkpoint of a running node's LIB (its block and the ledger
 * state after it, chain/checkpoint.ts) from the loopback-only `GET /x/admin/checkpoint` of its API,
 * checks it, and writes it to a new file (whole or not at all, never over an existing file);
 * `start --checkpoint <file>` starts another node from it. The file is written by this command, as its
 * user: the node never writes a path a client names.
 */
import { resolve } from 'node:path';
import { FileWriteError, writeFileAtomic } from '@logos-ts/shared/atomic-file';
import { checkPrivateFile } from '@logos-ts/shared/private-file';
import type { Command } from 'commander';
import { decodeCheckpoint } from '../../chain/index.ts';
import { DecodeError } from '../../codec/errors.ts';
import { bytesToHex } from '../../codec/hex.ts';
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
      const headers: Record<string, string> = {};
      if (o.tokenFile !== undefined) {
        checkPrivateFile(o.tokenFile);
        headers.authorization = `Bearer ${readSecret(o.tokenFile)}`;
      }
      const path = resolve(o.out);
      let res: Response;
      try {
        res = await fetch(`${base.replace(/\/+$/, '')}/x/admin/checkpoint`, {
          headers,
          signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
        });
      } catch (e) {
        throw new CliError('CLI_NODE_UNREACHABLE', `no node answers at ${base}: ${(e as Error).message}`);
      }
      if (res.status !== 200) {
        const text = await res.text();
        let message = text;
        try {
          message = (JSON.parse(text) as { message?: string }).message ?? text;
        } catch {
          // plain text
        }
        throw new CliError(
          'CLI_NODE_REFUSED',
          `the node at ${base} gave no checkpoint (${res.status}): ${message}`,
        );
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      let c: ReturnType<typeof decodeCheckpoint>;
      try {
        c = decodeCheckpoint(bytes);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        throw new CliError(
          'CLI_NODE_REFUSED',
          `the node at ${base} sent a checkpoint that does not check: ${e.message}`,
        );
      }
      try {
        writeFileAtomic(path, bytes, true, 0o644);
      } catch (e) {
        if (e instanceof FileWriteError)
          throw new CliError(
            'CLI_FILE_EXISTS',
            e.code === 'FILE_EXISTS'
              ? `${path} exists: a checkpoint is written to a new file only`
              : e.message,
            { path },
          );
        throw e;
      }
      const hash = bytesToHex(bytes.subarray(bytes.length - 32));
      console.log(
        `wrote ${path}: block ${bytesToHex(c.id)} (slot ${c.slot}, height ${c.height}), ${bytes.length} bytes, content hash ${hash}`,
      );
    });
}
