/**
 * Why the chain did not take a block, and what the sender of the block deserves for it:
 * - `ignore`: nothing wrong with the block as such (already applied or seen, from a future slot, older than the
 *   immutable part of the chain, or its parent is unknown: then `syncNeeded` says the chain is missing
 *   blocks the peer has; or its parent was found invalid while this block waited behind it: the block
 *   can never join the chain, but nothing says its sender knew);
 * - `reject`: the block is invalid (undecodable, bad structure or signature, invalid uncle, a ledger
 *   rule broken): a peer that sent it is penalised;
 * - `internal`: the node failed (storage), the block may be fine.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type BlockRejectedCode =
  /** The block is already in the block tree. */
  | 'BLOCK_ALREADY_APPLIED'
  /** The block was received before (it may still be on its way through the chain). */
  | 'BLOCK_ALREADY_SEEN'
  /** The block's slot is after the current slot. */
  | 'BLOCK_FUTURE'
  /** The block's slot is not after the latest immutable block's: it can never join the chain. */
  | 'BLOCK_TOO_OLD'
  /** The block's parent is not in the block tree (kept as an orphan; sync may fetch the parent). */
  | 'BLOCK_PARENT_MISSING'
  /**
   * The block's parent was rejected as invalid after this block was prepared on it (blocks are
   * prepared while the proofs of the blocks before them are checked).
   */
  | 'BLOCK_PARENT_REJECTED'
  /** The bytes are not a block. */
  | 'BLOCK_UNDECODABLE'
  /** The block breaks a structural rule (slot 0, size, body root). */
  | 'BLOCK_INVALID'
  /** The leader's signature over the header is invalid. */
  | 'BLOCK_INVALID_SIGNATURE'
  /** An uncle the block carries breaks an uncle rule. */
  | 'BLOCK_INVALID_UNCLE'
  /** The ledger refused the block (a transaction, the leader proof, a limit). */
  | 'BLOCK_LEDGER'
  /** The chain could not store the block, or stopped after such a failure. */
  | 'BLOCK_STORAGE'
  /** The stored chain starts at another genesis block than the deployment's. */
  | 'BLOCK_GENESIS_MISMATCH'
  /** A checkpoint was given for a data folder that holds a chain already. */
  | 'BLOCK_CHECKPOINT_ON_CHAIN'
  /** The chain service is stopping and takes no more blocks. */
  | 'BLOCK_CHAIN_CLOSED';

export type BlockAction = 'ignore' | 'reject' | 'internal';

const ACTIONS: Record<BlockRejectedCode, BlockAction> = {
  BLOCK_ALREADY_APPLIED: 'ignore',
  BLOCK_ALREADY_SEEN: 'ignore',
  BLOCK_FUTURE: 'ignore',
  BLOCK_TOO_OLD: 'ignore',
  BLOCK_PARENT_MISSING: 'ignore',
  BLOCK_PARENT_REJECTED: 'ignore',
  BLOCK_UNDECODABLE: 'reject',
  BLOCK_INVALID: 'reject',
  BLOCK_INVALID_SIGNATURE: 'reject',
  BLOCK_INVALID_UNCLE: 'reject',
  BLOCK_LEDGER: 'reject',
  BLOCK_STORAGE: 'internal',
  BLOCK_GENESIS_MISMATCH: 'internal',
  BLOCK_CHECKPOINT_ON_CHAIN: 'internal',
  BLOCK_CHAIN_CLOSED: 'internal',
};

/** What a rejection carries. */
export interface BlockRejectedMeta {
  readonly action: BlockAction;
  /** The block's header id (hex), when known. */
  readonly block?: string;
  /** The slot of the block, when known. */
  readonly slot?: bigint;
  /** The missing parent (hex), for `BLOCK_PARENT_MISSING`. */
  readonly parent?: string;
  /** The current slot, for `BLOCK_FUTURE`; the immutable block's slot, for `BLOCK_TOO_OLD`. */
  readonly boundSlot?: bigint;
  /** For `BLOCK_PARENT_REJECTED`: the invalid ancestor (hex) and why it was refused. */
  readonly invalidBlock?: string;
  readonly invalidReason?: string;
  /** The code of the error below (a ledger, uncle, block or storage code). */
  readonly causeCode?: string;
  readonly [key: string]: unknown;
}

export class BlockRejected extends LogosError<BlockRejectedMeta> {
  declare readonly code: BlockRejectedCode;

  constructor(
    code: BlockRejectedCode,
    message: string,
    options: { cause?: unknown; meta?: Omit<BlockRejectedMeta, 'action'> } = {},
  ) {
    const causeCode = options.cause instanceof LogosError ? options.cause.code : undefined;
    super(code, message, {
      cause: options.cause,
      meta: { ...options.meta, action: ACTIONS[code], ...(causeCode ? { causeCode } : {}) },
    });
  }

  get action(): BlockAction {
    return this.meta.action;
  }

  /** The chain lacks the block's ancestors: worth asking the sender for them. */
  get syncNeeded(): boolean {
    return this.code === 'BLOCK_PARENT_MISSING';
  }
}
LogosError.register(BlockRejected);

/**
 * A block id as the reference's texts print it: the `Display` of its `HeaderId`, `0x` then lower-case
 * hex (F `core/src/utils/mod.rs` `display_hex_bytes_newtype`). JSON bodies and metadata keep plain hex.
 */
export function headerIdText(id: Uint8Array | string): string {
  return `0x${typeof id === 'string' ? id : Buffer.from(id).toString('hex')}`;
}

/** F chain-service `ApiError::AlreadyApplied` (`services/chain/chain-service/src/api.rs`). */
export function alreadyApplied(hex: string, slot: bigint): BlockRejected {
  return new BlockRejected('BLOCK_ALREADY_APPLIED', `Block ${headerIdText(hex)} has already been applied`, {
    meta: { block: hex, slot },
  });
}

/**
 * F chain-service `ApiError::ParentMissing`: `Missing parent while applying block <parent>`; F then
 * prints the `Debug` of its chain info, which this node leaves to the log's fields.
 */
export function parentMissing(hex: string, slot: bigint, parentHex: string): BlockRejected {
  return new BlockRejected(
    'BLOCK_PARENT_MISSING',
    `Missing parent while applying block ${headerIdText(parentHex)}`,
    { meta: { block: hex, slot, parent: parentHex } },
  );
}

/**
 * The rejection of a block prepared on a parent that was then refused as invalid, or that descends
 * from an invalid block (`parentError`, the parent's failure); undefined when the parent failed for
 * another reason or did not fail.
 */
export function parentRejected(
  parentError: unknown,
  hex: string,
  slot: bigint,
  parentHex: string,
): BlockRejected | undefined {
  if (!(parentError instanceof BlockRejected)) return undefined;
  // The parent was invalid, or descends from an invalid block: so does this block.
  const invalid =
    parentError.action === 'reject'
      ? { block: parentHex, why: parentError.message }
      : parentError.code === 'BLOCK_PARENT_REJECTED'
        ? { block: String(parentError.meta.invalidBlock), why: String(parentError.meta.invalidReason) }
        : undefined;
  if (!invalid) return undefined;
  const why =
    invalid.block === parentHex
      ? invalid.why
      : `it descends from the invalid block ${headerIdText(invalid.block)}`;
  return new BlockRejected(
    'BLOCK_PARENT_REJECTED',
    `the parent ${headerIdText(parentHex)} of block ${headerIdText(hex)} was rejected: ${why}`,
    {
      meta: { block: hex, slot, parent: parentHex, invalidBlock: invalid.block, invalidReason: invalid.why },
    },
  );
}
