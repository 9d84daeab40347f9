/**
 * Where this node's code comes from, for `GET /version` (shared/build-info.ts: the build's record, or
 * git when running from a checkout).
 */
import { type BuildInfo, buildInfo as infoUnder } from '@logos-ts/shared/build-info';

export type { BuildInfo };

/** This package's build information (`../../` is the package folder from source, `dist/` in a build). */
export function buildInfo(): BuildInfo {
  return infoUnder(new URL('../../', import.meta.url));
}
