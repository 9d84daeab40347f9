/**
 * Bundled `package_manager` (operator.md §1.7; logos-package-manager-module): local package operations.
 * For now it lists what is installed in the session's `modules/` folder (each `<name>/manifest.json`):
 * `listInstalledPackages()` gives the manifests with `name`, `version` and `source: "user"`; installing
 * `.lgx` packages comes later. The session folder is the module's data folder's grandparent
 * (`<session>/data/package_manager`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Json } from '../../../codec/json.ts';
import { type ModuleFactory, ok } from '../../module-api.ts';

const factory: ModuleFactory = (ctx) => {
  const modulesDir = resolve(ctx.dataDir, '..', '..', 'modules');
  const list = (): Json[] => {
    if (!existsSync(modulesDir)) return [];
    const out: Json[] = [];
    for (const e of readdirSync(modulesDir, { withFileTypes: true })) {
      const manifest = join(modulesDir, e.name, 'manifest.json');
      if (!e.isDirectory() || !existsSync(manifest)) continue;
      try {
        const m = JSON.parse(readFileSync(manifest, 'utf8')) as { [k: string]: Json };
        out.push({ ...m, name: m.name ?? e.name, version: m.version ?? '', source: 'user' });
      } catch (err) {
        ctx.logger.warn({ manifest, reason: (err as Error).message }, 'unreadable manifest skipped');
      }
    }
    return out.sort((a, b) =>
      String((a as { name: Json }).name).localeCompare(String((b as { name: Json }).name)),
    );
  };
  return {
    name: 'package_manager',
    version: '0.1.0',
    dependencies: [],
    events: [],
    methods: { listInstalledPackages: () => ok(list()) },
    close: async () => {},
  };
};
export default factory;
