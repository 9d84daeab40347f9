/**
 * `logosctl package download NAME [--version V] [--root-hash H] [--catalog C] [-o DIR]`: a verified
 * .lgx, into the session cache/downloads or DIR (the daemon's `package_download`).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type CtlContext, line, type Reply, str } from './context.ts';

export function addPackageDownloadCommand(pkg: Command, c: CtlContext): void {
  pkg
    .command('download <name>')
    .description('download a verified .lgx (into the session cache/downloads, or -o DIR)')
    .option('--version <version>', 'pin an exact version')
    .option('--root-hash <hash>', 'pin a release by its root hash')
    .option('--catalog <catalog>', 'restrict to one catalog (URL or name)')
    .option('-o, --output <dir>', 'folder to write the .lgx into')
    .action(
      async (name: string, o: { version?: string; rootHash?: string; catalog?: string; output?: string }) => {
        const { out } = c.ctx();
        const r = await c.ask('package_download', {
          name,
          output: o.output ? resolve(process.cwd(), o.output) : '',
          opts: { version: o.version ?? '', rootHash: o.rootHash ?? '', catalog: o.catalog ?? '' },
        });
        if (r === null) return;
        const res = (r.result ?? {}) as Reply;
        c.print(out, { status: 'ok', ...res }, () => line(`Downloaded ${name} -> ${str(res.path)}`));
      },
    );
}
