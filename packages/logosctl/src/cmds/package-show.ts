/**
 * `logosctl package show NAME|FILE.lgx`: an installed package, a catalog entry, or an .lgx file
 * (`inspectPackage`: name, version, root hash, signature status…).
 */
import { resolve } from 'node:path';
import { isJsonObject, type Json } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import { type CtlContext, line, pad, type Reply, str } from './context.ts';

export function addPackageShowCommand(pkg: Command, c: CtlContext): void {
  pkg
    .command('show <target>')
    .alias('info')
    .description('an installed or catalog package, or an .lgx file')
    .action(async (target: string) => {
      const { out } = c.ctx();
      if (target.endsWith('.lgx')) {
        const r = await c.callModule('package_manager', 'inspectPackage', [resolve(process.cwd(), target)]);
        if (r === undefined) return;
        const i = (isJsonObject(r) ? r : {}) as Reply;
        if (str(i.error) !== '') {
          c.fail(out, 'INSPECT_FAILED', str(i.error));
          return;
        }
        return c.print(out, i, () => {
          for (const k of [
            'name',
            'version',
            'type',
            'category',
            'description',
            'rootHash',
            'signatureStatus',
            'isAlreadyInstalled',
            'installedVersion',
          ])
            if (i[k] !== undefined && i[k] !== null)
              line(`${pad(`${k}:`, 20)} ${typeof i[k] === 'string' ? i[k] : JSON.stringify(i[k])}`);
        });
      }
      const inst = await c.callModule('package_manager', 'getInstalledPackages');
      if (inst === undefined) return;
      const installed = ((Array.isArray(inst) ? inst : []) as Reply[]).find((p) => p.name === target);
      if (out.json && installed) return out.data(installed);
      const cat = await c.callModule('package_downloader', 'getCatalog');
      if (cat === undefined) return;
      const entry = ((Array.isArray(cat) ? cat : []) as Reply[]).find((p) => p.name === target);
      if (!installed && !entry) {
        c.fail(out, 'PACKAGE_NOT_FOUND', `No package named '${target}' is installed or in any catalog.`);
        return;
      }
      const info = (installed ?? entry)!;
      c.print(out, entry ?? {}, () => {
        for (const k of [
          'name',
          'version',
          'type',
          'category',
          'author',
          'description',
          'installType',
          'installDir',
        ])
          if (str(info[k]) !== '') line(`${pad(`${k}:`, 14)} ${str(info[k])}`);
        const deps = ((info.dependencies ?? []) as Json[]).map((d) =>
          typeof d === 'string' ? d : str((d as Reply).name),
        );
        if (deps.length > 0) line(`${pad('dependencies:', 14)} ${deps.join(', ')}`);
        const versions = [...new Set(((entry?.versions ?? []) as Reply[]).map((v) => str(v.version)))];
        if (versions.length > 0) line(`${pad('available:', 14)} ${versions.join(', ')}`);
        if (!installed) line(`${pad('installed:', 14)} no`);
      });
    });
}
