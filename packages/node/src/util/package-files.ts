/**
 * Files the node ships beside its code (deployments/, zk/keys/), found from the package's folder: two
 * levels above a module of src/<folder>/ when running from source, three when running a build
 * (dist/src/<folder>/), so both read the same files.
 */
import { FROM_SOURCE } from '@logos-ts/shared/runtime';

/** The node package's folder (packages/node/ in the repository). */
export const PACKAGE_ROOT = new URL(FROM_SOURCE ? '../../' : '../../../', import.meta.url);

/** The URL of `path` (relative, `/`-separated) in the node package's folder. */
export function packageFile(path: string): URL {
  return new URL(path, PACKAGE_ROOT);
}
