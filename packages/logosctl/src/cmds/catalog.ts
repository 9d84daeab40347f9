/**
 * `logosctl catalog ls|add URL|remove URL|enable URL|disable URL|refresh`: package catalogs
 * (package_downloader).
 */
import type { Json } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import { type CtlContext, line, pad, str } from './context.ts';
import { listing, mutation } from './module-call.ts';

export function addCatalogCommands(program: Command, c: CtlContext): void {
  const catalog = program.command('catalog').description('package catalogs');
  listing(
    c,
    catalog.command('ls').alias('list').description('configured catalogs'),
    'package_downloader',
    'listRepositories',
    (repos) => {
      if (repos.length === 0) return line('No catalogs configured.');
      for (const r of repos) {
        line(
          `${r.enabled ? '[on ]' : '[off]'} ${pad(str(r.name) || '<unresolved>', 26)} ${str(r.url)}${r.isDefault ? '  (default)' : ''}`,
        );
        if (str(r.resolveError) !== '') line(`      error: ${str(r.resolveError)}`);
      }
    },
  );
  const catalogMutation = (sub: string, method: string, args: (url: string) => Json[]): void =>
    mutation(
      c,
      catalog.command(`${sub} <url>`).description(`${sub} a catalog (the URL of its logos-repo.json)`),
      'package_downloader',
      method,
      'CATALOG_FAILED',
      args,
      (url: string) => `Catalog ${sub}d: ${url}`,
    );
  catalogMutation('add', 'addRepository', (u) => [u]);
  catalogMutation('remove', 'removeRepository', (u) => [u]);
  catalogMutation('enable', 'setRepositoryEnabled', (u) => [u, true]);
  catalogMutation('disable', 'setRepositoryEnabled', (u) => [u, false]);
  mutation(
    c,
    catalog.command('refresh').description('fetch every enabled catalog again'),
    'package_downloader',
    'refreshCatalog',
    'CATALOG_FAILED',
    () => [],
    () => 'Catalogs refreshed.',
  );
}
