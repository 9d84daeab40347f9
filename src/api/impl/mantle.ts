/** Handlers of the Mantle namespace (routes/mantle.ts): gas prices and channels. */
import { bytesToHex } from '../../codec/hex.ts';
import type { Json } from '../../codec/json.ts';
import { u64 } from '../../codec/schema.ts';
import type { ChannelState } from '../../ledger/state.ts';
import { notFound } from '../errors.ts';
import type { mantleRoutes } from '../routes/mantle.ts';
import type { ApiContext, Handlers } from '../types.ts';
import { json } from './reply.ts';

function channelJson(c: ChannelState): Json {
  return {
    accredited_keys: c.accredited_keys.map(bytesToHex),
    configuration_threshold: c.configuration_threshold,
    tip_message: bytesToHex(c.tip_message),
    config_tip_hash: bytesToHex(c.config_tip_hash),
    tip_slot: u64.toJson(c.tip_slot),
    tip_sequencer: c.tip_sequencer,
    tip_sequencer_starting_slot: u64.toJson(c.tip_sequencer_starting_slot),
    posting_timeframe: c.posting_timeframe,
    posting_timeout: c.posting_timeout,
    transfer_threshold: c.transfer_threshold,
  };
}

export const mantleHandlers: Handlers<typeof mantleRoutes, Pick<ApiContext, 'chain'>> = {
  mantleGasPrices(ctx, { query }) {
    const at = query.tip ?? ctx.chain.tip().id;
    const state = ctx.chain.stateOf(at);
    if (!state) throw notFound('No ledger state at this block');
    return json({
      tip: bytesToHex(at),
      execution_base_gas_price: u64.toJson(state.gas.execution_base_gas_price),
      storage_gas_price: u64.toJson(state.gas.storage_gas_price),
    });
  },
  channel(ctx, { params: { id } }) {
    const c = ctx.chain.tip().state.channels.get(bytesToHex(id));
    if (!c) throw notFound('Channel not found');
    return json(channelJson(c));
  },
};
