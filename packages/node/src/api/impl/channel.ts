/** Handlers of the channel namespace (routes/channel.ts): a deposit funded by the node's wallet. */
import { bytesToHex } from '../../codec/hex.ts';
import type { channelRoutes } from '../routes/channel.ts';
import type { ApiContext, Handlers } from '../types.ts';
import { json } from './reply.ts';

export const channelHandlers: Handlers<typeof channelRoutes, Pick<ApiContext, 'ops'>> = {
  async channelDeposit(ctx, { body }) {
    const hash = await ctx.ops.channelDeposit({
      deposit: body.deposit,
      changePk: body.change_public_key,
      fundingPks: body.funding_public_keys,
      maxTxFee: body.max_tx_fee,
    });
    return json({ hash: bytesToHex(hash) });
  },
};
