/**
 * The control tool's version: the logosctl release whose commands, outputs and exit codes it follows
 * (operator.md §0: logosctl 0.2.3), and the commit of this checkout for `--version`.
 */
import { buildInfo } from '../../node/build-info.ts';

export const LOGOSCTL_VERSION = '0.2.3';

/** `logosctl --version`: `logosctl version <v>\ncommit: <sha>` (`src/version_info.h` @1a4f56fe). */
export function versionText(): string {
  return `logosctl version ${LOGOSCTL_VERSION}\ncommit: ${buildInfo().commit ?? 'unknown'}`;
}
