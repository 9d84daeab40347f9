/** Handlers of the administration namespace (routes/admin.ts): the log filter. */
import type { adminRoutes } from '../routes/admin.ts';
import type { ApiContext, Handlers } from '../types.ts';

export const adminHandlers: Handlers<typeof adminRoutes, Pick<ApiContext, 'setLogFilter'>> = {
  adminTracingFilter(ctx, { body }) {
    // The levels are checked and named by the body's schema (routes/admin.ts).
    ctx.setLogFilter(body.filters);
    return { body: 'null' };
  },
};
