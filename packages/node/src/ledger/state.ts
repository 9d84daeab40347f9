/**
 * The ledger state after a block. Immutable and structurally shared: the chain keeps one state per
 * block above the latest immutable block, and a new state shares everything its block did not touch
 * with its parent (persistent maps and trees), so forks cost only what they change.
 */
import type { Fr } from '../crypto/field.ts';
import type { Locator } from '../mantle/locator.ts';
import type { Note } from '../mantle/note.ts';
import type { ServiceType } from '../mantle/ops.ts';
import type { PMap } from '../util/pmap.ts';
import type { TxDensity } from './blend-difficulty.ts';
import type { BlendRewards } from './sdp-rewards.ts';
import type { UtxoTree } from './trees/utxo-tree.ts';
import type { VoucherTree } from './trees/voucher-tree.ts';

/** An unspent note: where it sits in the UTXO tree and what holds it. */
export interface NoteRecord {
  readonly note: Note;
  /** Leaf index in the UTXO tree. */
  readonly index: number;
  /** Where the note was created: its op id as a field element and its output index (a PoL witness needs them). */
  readonly origin: Fr;
  readonly output_index: number;
  /** Hex id of the channel that holds this note (deposited), or null. */
  readonly channel: string | null;
  /** Hex id of the SDP declaration this note is the service note of, or null. */
  readonly locked_by: string | null;
}

export interface LotteryValues {
  readonly t0: Fr;
  readonly t1: Fr;
}

/** What the leader lottery of one epoch is drawn against. */
export interface EpochState {
  readonly epoch: number;
  readonly nonce: Fr;
  /** The aged UTXO set: its root is the PoL `aged_root`. */
  readonly utxos: UtxoTree;
  readonly notes: PMap<Fr, NoteRecord>;
  readonly total_stake: bigint;
  readonly lottery: LotteryValues;
  /** d_blend: the Blend PoW threshold of this epoch, fixed with its nonce. */
  readonly blend_pow_difficulty: bigint;
}

export interface GasState {
  /** Burned fees of the last 120 blocks, indexed by block_number % 120. */
  readonly fee_window: readonly bigint[];
  readonly average_execution_gas: bigint;
  readonly execution_base_gas_price: bigint;
  readonly storage_gas_ema: bigint;
  readonly storage_gas_price: bigint;
  readonly storage_gas_consumed_in_epoch: bigint;
}

export interface ChannelState {
  readonly accredited_keys: readonly Uint8Array[];
  readonly configuration_threshold: number;
  readonly tip_message: Uint8Array;
  readonly config_tip_hash: Uint8Array;
  readonly tip_slot: bigint;
  readonly tip_sequencer: number;
  readonly tip_sequencer_starting_slot: bigint;
  readonly posting_timeframe: number;
  readonly posting_timeout: number;
  readonly transfer_threshold: number;
}

export interface Declaration {
  readonly service_type: ServiceType;
  readonly provider_id: Uint8Array;
  readonly service_note_id: Fr;
  readonly locators: readonly Locator[];
  readonly zk_id: Fr;
  readonly created: number;
  readonly active: number;
  readonly withdraw_at: number | null;
  readonly nonce: bigint;
}

export interface SdpState {
  /** By hex declaration id. */
  readonly declarations: PMap<string, Declaration>;
  /**
   * The active set of `epoch_state.epoch` (`/mantle/sdp/snapshot`) and of `next_epoch_state.epoch`,
   * frozen with the stake distribution (F: EpochState `active_declarations`).
   */
  readonly snapshot: PMap<string, Declaration>;
  readonly next_snapshot: PMap<string, Declaration>;
  /** Blend income and activity proofs (F: ledger/src/mantle/sdp/rewards/blend). */
  readonly rewards: BlendRewards;
}

export interface LeaderState {
  /** Every applied header's voucher commitment. */
  readonly vouchers: VoucherTree;
  /** The voucher tree as of the first block of the current epoch. */
  readonly snapshot: { readonly root: Fr; readonly count: number };
  /** Nullifiers of claimed vouchers. */
  readonly nullifiers: PMap<Fr, true>;
  /** Leader rewards of the current epoch, claimable from the next. */
  readonly pending_rewards: bigint;
  readonly claimable_rewards: bigint;
}

export interface RecentBlock {
  readonly id: Uint8Array;
  readonly slot: bigint;
}

export interface PowState {
  readonly pool: bigint;
  readonly epoch_reward: bigint;
  /** A ticket wins when it is below this target. */
  readonly target: bigint;
  /** Fee share collected in the current epoch, added to the pool at the next epoch. */
  readonly refill: bigint;
  /** Blocks of this branch within the claim window, oldest first. */
  readonly recent_blocks: readonly RecentBlock[];
  /** Used ticket nullifiers with the slot of their anchor block, oldest first (pruned past the window). */
  readonly nullifiers: readonly { readonly nullifier: Fr; readonly slot: bigint }[];
  /** Block and transaction counts per epoch, read by the Blend difficulty retarget. */
  readonly tx_density: TxDensity;
}

export interface LedgerState {
  /** Number of blocks applied after genesis (the genesis state has 0). */
  readonly block_number: bigint;
  readonly slot: bigint;
  /** The running epoch nonce, updated by every block's entropy contribution. */
  readonly nonce: Fr;
  /** The nonce of the epoch before the current one (PoW claims may name either). */
  readonly prev_epoch_nonce: Fr;
  readonly epoch_state: EpochState;
  readonly next_epoch_state: EpochState;
  /**
   * Distinct slots occupied by this chain's blocks and the uncles they reference, inside the current
   * epoch's stake inference period (`block-density.ts`); their count drives the total stake inference.
   */
  readonly occupied_slots: PMap<bigint, true>;
  readonly notes: PMap<Fr, NoteRecord>;
  readonly utxos: UtxoTree;
  readonly gas: GasState;
  readonly channels: PMap<string, ChannelState>;
  readonly sdp: SdpState;
  readonly leader: LeaderState;
  readonly pow: PowState;
}
