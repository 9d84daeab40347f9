/**
 * Why a PoW claim failed, with the reference's texts (F `services/pow/src/service.rs` `PoWError`);
 * the HTTP layer answers them as 500 `Failed to claim PoW rewards: <text>`.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type PowErrorCode =
  /** The epoch reward is zero: no claim can succeed. */
  | 'POW_REWARDS_DISABLED'
  /** The reward pool cannot pay one more claim (net of the claims still pending). */
  | 'POW_REWARD_POOL_EXHAUSTED'
  /** The claims' rewards do not cover the transaction's fee. */
  | 'POW_REWARD_BELOW_FEE'
  /** No claim address given and no auto-claim target is below its threshold. */
  | 'POW_NO_CLAIM_TARGET'
  /** The ledger state of the tip is not available. */
  | 'POW_NO_LEDGER_STATE'
  /** The transaction could not be built, signed or added to the mempool. */
  | 'POW_SUBMIT';

export class PowError extends LogosError<Readonly<Record<string, unknown>>> {
  declare readonly code: PowErrorCode;

  constructor(code: PowErrorCode, message: string, meta: Readonly<Record<string, unknown>> = {}) {
    super(code, message, { meta });
  }
}

LogosError.register(PowError);

export const rewardsDisabled = () =>
  new PowError('POW_REWARDS_DISABLED', 'PoW rewards are disabled (epoch reward is zero)');
export const rewardPoolExhausted = () =>
  new PowError('POW_REWARD_POOL_EXHAUSTED', 'no claims fit within the reward pool');
export const rewardBelowFee = () =>
  new PowError('POW_REWARD_BELOW_FEE', 'PoW reward does not cover the transaction fee');
export const noClaimTarget = () =>
  new PowError(
    'POW_NO_CLAIM_TARGET',
    'no claim address given and no auto-claim target is below its threshold',
  );
