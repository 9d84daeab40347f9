/**
 * What the API and the other services see of the Blend service: `IBlend` (F `services/blend/src/
 * message.rs` `ServiceMessage`, `NetworkInfo`, `CoreInfo`; `services/api/src/http/blend.rs`).
 */
import type { Block } from '../block/block.ts';
import type { PolPublicInputs, PolWitness } from '../ledger/proof-system.ts';
import type { SignedMantleTx } from '../mantle/tx.ts';

/** The role this node plays in the current epoch (F `services/blend/src/instance.rs` `Mode`). */
export type BlendMode = 'broadcast' | 'core' | 'edge';

/** `GET /blend/info` (F `NetworkInfo<PeerId>`); tuples serialise as 2-element arrays. */
export interface BlendNetworkInfo {
  /** This node's peer id in the Blend network (of its Blend signing key). */
  readonly node_id: string;
  /** Null when the node is an edge or broadcast node. */
  readonly core_info: {
    /** The core peers of the current epoch and whether each is healthy. */
    readonly current_epoch_peers: readonly (readonly [string, boolean])[];
    /** The previous epoch's peers during an epoch transition; null otherwise. */
    readonly old_epoch_peers: readonly string[] | null;
  } | null;
}

export interface IBlend {
  /** Null while the service has nothing to report (F: the reply of a service not yet running). */
  info(): BlendNetworkInfo | null;
  /**
   * Sends a signed transaction through the mix network instead of this node's mempool (in broadcast
   * mode, straight to the mempool; before the first epoch's mode is known, it waits for it). Resolves
   * with its hash once accepted for blending, not sent.
   * Throws `BlendError` (`BLEND_TRANSACTION_TOO_LARGE`, `BLEND_MEMPOOL`).
   */
  disperseTransaction(tx: SignedMantleTx): Promise<Uint8Array>;
  /** Hashes of the transactions waiting for a PoW solution before blending, oldest first. */
  pendingTransactions(): Uint8Array[];
  /** The current mode. */
  mode(): BlendMode;
}

/**
 * What a leader knows of the slot it won, as the leadership branch of a proof of quota needs it (F
 * `PolInfoProvider`'s secret PoL info: the winning note, its path in the epoch's aged tree and the
 * epoch's lottery values).
 */
export interface LeadershipWin
  extends Omit<PolWitness, 'latest_path' | 'latest_index'>,
    Pick<PolPublicInputs, 'slot' | 'epoch_nonce' | 'lottery_0' | 'lottery_1' | 'aged_root'> {}

/** Where the leader hands the blocks it made and applied, to be proposed to the network. */
export interface ProposalPublisher {
  publishProposal(block: Block, win: LeadershipWin): void;
  /** A slot this node will lead, known ahead: what its proposal needs can be made ahead. */
  prepareProposal?(win: LeadershipWin): void;
}
