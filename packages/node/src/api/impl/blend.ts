/**
 * Handlers of the Blend namespace (routes/blend.ts): the Blend network info, joining as a core node,
 * dispersing a transaction through the mix network and the transactions waiting for a PoW solution.
 */

import { BlendError } from '../../blend/index.ts';
import { bytesToHex } from '../../codec/hex.ts';
import { LedgerError } from '../../ledger/errors.ts';
import { ApiError, Rejection } from '../errors.ts';
import type { blendRoutes } from '../routes/blend.ts';
import type { ApiContext, Handlers } from '../types.ts';
import { BODY_REJECTED, decodeTx, preverifyText } from './mantle.ts';
import { json } from './reply.ts';
import { submissionReply } from './sdp.ts';

export const blendHandlers: Handlers<typeof blendRoutes, Pick<ApiContext, 'ops' | 'blend'>> = {
  blendInfo(ctx) {
    const i = ctx.blend.info();
    return json(
      i === null
        ? null
        : {
            node_id: i.node_id,
            core_info:
              i.core_info === null
                ? null
                : {
                    current_epoch_peers: i.core_info.current_epoch_peers.map(([p, h]) => [p, h]),
                    old_epoch_peers:
                      i.core_info.old_epoch_peers === null ? null : [...i.core_info.old_epoch_peers],
                  },
          },
    );
  },
  async blendJoin(ctx, { body }) {
    return submissionReply(await ctx.ops.joinBlend(body.locator, body.service_note_id));
  },
  async blendDisperse(ctx, { body }) {
    const tx = decodeTx(body);
    try {
      return json(bytesToHex(await ctx.blend.disperseTransaction(tx)));
    } catch (e) {
      // As `/mempool/add/tx`: preverification refusals are the reference's 422 body texts.
      if (e instanceof LedgerError) throw new Rejection(422, BODY_REJECTED + preverifyText(e, tx));
      if (e instanceof BlendError) throw new ApiError(500, e.message);
      throw e;
    }
  },
  blendPending(ctx) {
    return json(ctx.blend.pendingTransactions().map(bytesToHex));
  },
};
