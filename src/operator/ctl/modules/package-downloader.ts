/**
 * Bundled `package_downloader` (operator.md §1.7; logos-package-downloader-module): package catalogs.
 * For now it lists the configured catalogs, `catalogs:` of the session's `daemon/config.yaml` (each a URL
 * or `{url, enabled}`): `listCatalogs()` gives `[{"enabled","url"}]`; fetching and downloading come later.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Json } from '../../../codec/json.ts';
import { fail, type ModuleFactory, ok } from '../../module-api.ts';

function catalogs(configPath: string): Json[] {
  if (!existsSync(configPath)) return [];
  const doc = parseYaml(readFileSync(configPath, 'utf8')) as { catalogs?: unknown } | null;
  const list = doc?.catalogs ?? [];
  if (!Array.isArray(list)) throw new Error('catalogs: expected a list');
  return list.map((c, i) => {
    if (typeof c === 'string') return { url: c, enabled: true };
    if (c && typeof c === 'object' && typeof (c as { url?: unknown }).url === 'string') {
      const e = (c as { enabled?: unknown }).enabled;
      return { url: (c as { url: string }).url, enabled: e === undefined ? true : e === true };
    }
    throw new Error(`catalogs[${i}]: expected a URL or {url, enabled}`);
  });
}

const factory: ModuleFactory = (ctx) => {
  const configPath = resolve(ctx.dataDir, '..', '..', 'daemon', 'config.yaml');
  return {
    name: 'package_downloader',
    version: '0.1.0',
    dependencies: [],
    events: [],
    methods: {
      listCatalogs: () => {
        try {
          return ok(catalogs(configPath));
        } catch (e) {
          return fail((e as Error).message);
        }
      },
    },
    close: async () => {},
  };
};
export default factory;
