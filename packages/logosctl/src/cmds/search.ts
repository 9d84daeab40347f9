/**
 * `logosctl package search [QUERY] [--category C] [--catalog C]` and the shorthand `search`: the
 * catalogs' packages whose name, description or display name holds QUERY (package_command.cpp).
 */
import { isJsonObject } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import { type CtlContext, line, pad, type Reply, str } from './context.ts';

/** Adds `search [query]` under `parent` (`package`, or the program for the shorthand). */
export function addSearchCommand(parent: Command, description: string, c: CtlContext): void {
  parent
    .command('search [query]')
    .description(description)
    .option('--category <category>', 'only this category')
    .option('--catalog <catalog>', 'only this catalog (URL or name)')
    .action((query: string | undefined, o: { category?: string; catalog?: string }) => search(c, query, o));
}

async function search(
  c: CtlContext,
  query: string | undefined,
  o: { category?: string; catalog?: string },
): Promise<void> {
  const { out } = c.ctx();
  const r = o.catalog
    ? await c.callModule('package_downloader', 'getCatalogForRepo', [o.catalog])
    : await c.callModule('package_downloader', 'getCatalog');
  if (r === undefined) return;
  if (!Array.isArray(r)) {
    c.fail(out, 'CATALOG_FAILED', str(isJsonObject(r) ? r.error : '') || 'the catalog could not be read');
    return;
  }
  const q = (query ?? '').toLowerCase();
  const cat = (o.category ?? '').toLowerCase();
  const hits = r.filter((p0) => {
    const p = p0 as Reply;
    if (cat !== '' && str(p.category).toLowerCase() !== cat) return false;
    return q === '' || `${str(p.name)} ${str(p.description)} ${str(p.displayName)}`.toLowerCase().includes(q);
  });
  c.print(out, hits, () => {
    if (hits.length === 0) return line('No packages found.');
    line(`${pad('NAME', 24)} ${pad('VERSION', 16)} ${pad('CATEGORY', 12)} DESCRIPTION`);
    for (const p0 of hits) {
      const p = p0 as Reply;
      const versions = [...new Set(((p.versions ?? []) as Reply[]).map((v) => str(v.version)))];
      const ver =
        versions.length === 0
          ? '-'
          : `${versions[0]}${versions.length > 1 ? ` (+${versions.length - 1})` : ''}`;
      let desc = str(p.description);
      if (desc.length > 44) desc = `${desc.slice(0, 41)}...`;
      line(`${pad(str(p.name), 24)} ${pad(ver, 16)} ${pad(str(p.category) || '-', 12)} ${desc}`);
    }
  });
}
