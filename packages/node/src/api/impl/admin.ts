/** Handlers of the administration namespace (routes/admin.ts): the log filter, the key reload, the checkpoint. */
import { LogosError } from '@logos-ts/shared/errors';
import { stringifyJson } from '@logos-ts/shared/json';
import { ApiError } from '../errors.ts';
import type { adminRoutes } from '../routes/admin.ts';
import type { ApiContext, Handlers } from '../types.ts';

export const adminHandlers: Handlers<
  typeof adminRoutes,
  Pick<ApiContext, 'setLogFilter' | 'reloadKeys' | 'checkpoint'>
> = {
  adminTracingFilter(ctx, { body }) {
    // The levels are checked and named by the body's schema (routes/admin.ts).
    ctx.setLogFilter(body.filters);
    return { body: 'null' };
  },
  // The loopback-only rule is the server's (route-def.ts `loopbackOnly`).
  adminKeysReload(ctx) {
    if (ctx.reloadKeys === undefined) throw new ApiError(400, 'this node cannot reload its keys');
    try {
      return { body: stringifyJson(ctx.reloadKeys()) };
    } catch (e) {
      // A refused file, config or key: nothing changed; the message names the file or key id, never a secret.
      if (e instanceof LogosError) throw new ApiError(400, e.message);
      throw e;
    }
  },
  adminCheckpoint(ctx) {
    const bytes = ctx.checkpoint?.();
    if (bytes === undefined)
      throw new ApiError(503, 'the node holds no state of its LIB to make a checkpoint of; try again');
    return { body: bytes, contentType: 'application/octet-stream' };
  },
};
