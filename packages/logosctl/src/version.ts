/**
 * The control tool's version: the logosctl release whose commands, outputs and exit codes it follows
 * (operator.md §0: logosctl 0.2.3), and the commit of its build or checkout for `--version`.
 */
import { buildInfo } from '@logos-ts/shared/build-info';

export const LOGOSCTL_VERSION = '0.2.3';

/** `logosctl --version`: `logosctl version <v>\ncommit: <sha>` (`src/version_info.h` @1a4f56fe). */
export function versionText(): string {
  // `../` is the package folder from source (src/version.ts), `dist/` in a build (dist/src/version.js)
  return `logosctl version ${LOGOSCTL_VERSION}\ncommit: ${buildInfo(new URL('../', import.meta.url)).commit ?? 'unknown'}`;
}
