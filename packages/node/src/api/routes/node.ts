/** Route definitions of the node namespace: version and chain id. */

import { nullable, object, string } from '../json-schema.ts';
import { def, type RouteDef } from '../route-def.ts';

export const VersionInfo = object({
  version: string,
  commit: nullable(string),
  tag: nullable(string),
  target: string,
  profile: string,
  rustc: string,
});

export const nodeRoutes = {
  version: def({
    method: 'GET',
    path: '/version',
    tag: 'Node',
    summary: 'Version of the node',
    response: { json: VersionInfo },
  }),
  chainId: def({
    method: 'GET',
    path: '/chain/id',
    tag: 'Node',
    summary: 'Chain id, fixed by the deployment',
    response: { json: object({ chain_id: string }) },
  }),
} as const satisfies Record<string, RouteDef>;
