/** Handlers of the node namespace (routes/node.ts): version and chain id. */
import type { Json } from '@logos-ts/shared/json';
import { API_VERSION } from '../../version.ts';
import type { nodeRoutes } from '../routes/node.ts';
import type { ApiContext, Handlers } from '../types.ts';
import { json } from './reply.ts';

function versionInfo(build: ApiContext['build']): Json {
  const arch = process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch;
  const os = process.platform === 'linux' ? 'unknown-linux-gnu' : process.platform;
  return {
    version: API_VERSION,
    commit: build.commit,
    tag: build.tag,
    target: `${arch}-${os}`,
    profile: 'release',
    rustc: `node ${process.version}`,
  };
}

export const nodeHandlers: Handlers<typeof nodeRoutes, Pick<ApiContext, 'build' | 'chain'>> = {
  version: (ctx) => json(versionInfo(ctx.build)),
  chainId: (ctx) => json({ chain_id: ctx.chain.genesis.parameter.chain_id }),
};
