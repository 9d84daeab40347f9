/**
 * The served routes: every definition of the table (definitions.ts) with its handler, one handler
 * file per namespace. The compiler checks that each operation has exactly one handler, so that no
 * endpoint is documented without being served or served without being documented.
 */
import { API, type Api, type OperationId } from '../definitions.ts';
import type { Handlers, ServerRoute } from '../types.ts';
import { adminHandlers } from './admin.ts';
import { blendHandlers } from './blend.ts';
import { channelHandlers } from './channel.ts';
import { cryptarchiaHandlers } from './cryptarchia.ts';
import { leaderHandlers } from './leader.ts';
import { mantleHandlers } from './mantle.ts';
import { networkHandlers } from './network.ts';
import { nodeHandlers } from './node.ts';
import { powHandlers } from './pow.ts';
import { sdpHandlers } from './sdp.ts';
import { walletHandlers } from './wallet.ts';

const HANDLERS: Handlers<Api> = {
  ...nodeHandlers,
  ...cryptarchiaHandlers,
  ...mantleHandlers,
  ...channelHandlers,
  ...sdpHandlers,
  ...networkHandlers,
  ...blendHandlers,
  ...leaderHandlers,
  ...powHandlers,
  ...adminHandlers,
  ...walletHandlers,
};

export const ROUTES: readonly ServerRoute[] = (Object.keys(API) as OperationId[]).map((operationId) => ({
  operationId,
  def: API[operationId],
  handle: HANDLERS[operationId] as ServerRoute['handle'],
}));
