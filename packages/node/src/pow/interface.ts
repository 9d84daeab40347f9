/**
 * What the API sees of the PoW service: `IPow` (F `services/pow/src/api.rs` and the service's
 * messages). The mining and auto-claim toggles only record the command, as the reference's
 * fire-and-forget messages; `status()` shows the state they led to.
 */
import type { Fr } from '../crypto/field.ts';
import type { AutoClaimTick } from './config.ts';

export interface ClaimTargetStatus {
  readonly public_key: Fr;
  readonly threshold: bigint;
  /** null when the wallet could not be read. */
  readonly balance: bigint | null;
}

export interface PowStatus {
  readonly is_mining: boolean;
  readonly are_rewards_enabled: boolean;
  readonly auto_claim: {
    readonly is_armed: boolean;
    readonly tick: AutoClaimTick;
    readonly targets: readonly ClaimTargetStatus[];
  };
}

export interface ClaimableRewards {
  readonly claimable_tickets: number;
  /** One per ready ticket: `block_slot + window − tip_slot`. */
  readonly slots_until_expiry: readonly bigint[];
}

export interface IPow {
  status(): PowStatus;
  claimable(): Promise<ClaimableRewards>;
  /**
   * Claims the ready tickets to `claimAddress` (else to the neediest auto-claim target): the hash of the
   * claim transaction published through Blend, null when no ticket is ready. Throws `PowError`.
   */
  claim(claimAddress?: Fr): Promise<Uint8Array | null>;
  startMining(): void;
  stopMining(): void;
  startAutoClaim(): void;
  stopAutoClaim(): void;
}
