/** Handlers of the Blend namespace (routes/blend.ts): joining the Blend network as a core node. */
import type { blendRoutes } from '../routes/blend.ts';
import type { ApiContext, Handlers } from '../types.ts';
import { submissionReply } from './sdp.ts';

export const blendHandlers: Handlers<typeof blendRoutes, Pick<ApiContext, 'ops'>> = {
  async blendJoin(ctx, { body }) {
    return submissionReply(await ctx.ops.joinBlend(body.locator, body.service_note_id));
  },
};
