/**
 * Block verification, the checks a block passes before the chain takes it, each failure a typed
 * {@link BlockRejected}: its time (not from a future slot), its structure (slot, size, body root, the
 * leader's signature over the header), its uncles (uncles.ts) and the ledger (transactions, leader
 * proof, limits; proofs verified through the proof backend).
 */
import { type Block, BlockError, checkBlockStructure } from '../../block/block.ts';
import { bytesToHex } from '../../codec/hex.ts';
import type { BlockResult } from '../../ledger/apply.ts';
import type { LedgerState } from '../../ledger/state.ts';
import { applyBlockDeferred } from '../../ledger/verified.ts';
import { BlockRejected } from '../errors.ts';
import { InvalidUncle, type UncleContext, verifyUncles } from '../uncles.ts';

/** Refuses a block from a slot after `currentSlot` (F chain-service `try_apply_block`). */
export function checkBlockTime(block: Block, currentSlot: bigint): void {
  if (block.header.slot > currentSlot) {
    throw new BlockRejected(
      'BLOCK_FUTURE',
      `block slot ${block.header.slot} is after the current slot ${currentSlot}`,
      {
        meta: { slot: block.header.slot, boundSlot: currentSlot },
      },
    );
  }
}

/** The structural rules (block.ts `checkBlockStructure`); a bad signature has its own code. */
function checkStructure(block: Block): void {
  try {
    checkBlockStructure(block);
  } catch (e) {
    const code =
      e instanceof BlockError && e.code === 'BLOCK_BAD_SIGNATURE'
        ? 'BLOCK_INVALID_SIGNATURE'
        : 'BLOCK_INVALID';
    throw new BlockRejected(code, (e as Error).message, { cause: e, meta: { slot: block.header.slot } });
  }
}

/** The uncle rules against the block tree and its ledger states. */
async function checkUncles(block: Block, ctx: UncleContext): Promise<void> {
  try {
    await verifyUncles(block.uncle_headers, bytesToHex(block.header.parent_block), block.header.slot, ctx);
  } catch (e) {
    if (e instanceof InvalidUncle) {
      throw new BlockRejected('BLOCK_INVALID_UNCLE', e.message, {
        cause: e,
        meta: { slot: block.header.slot },
      });
    }
    throw e;
  }
}

/**
 * Verifies a block on the ledger state of its parent: structure, uncles, then the ledger with every
 * proof checked (the leader's proof is skipped for a block this node made itself). Returns the
 * block's ledger result; throws {@link BlockRejected}.
 */
export async function verifyBlock(
  block: Block,
  parent: LedgerState,
  ctx: UncleContext,
  opts: { own: boolean },
): Promise<BlockResult> {
  const p = await prepareBlock(block, parent, ctx, opts);
  const failure = await p.proofsChecked;
  if (failure) throw failure;
  return p.result;
}

/** A block whose checks passed except its ledger proofs, which are being verified. */
export interface PreparedBlock {
  /** The block's ledger result: valid only if `proofsChecked` resolves to undefined. */
  readonly result: BlockResult;
  /** Resolves once the proofs are checked: to the rejection if one fails (never rejects). */
  readonly proofsChecked: Promise<BlockRejected | undefined>;
}

/**
 * The checks of {@link verifyBlock} up to the ledger's proofs, which are sent to the proof backend at
 * once and checked meanwhile: a caller can go on with the next block (whose ledger state is `result`'s)
 * and learn later whether this one holds. Throws {@link BlockRejected} for a failure found before.
 */
export async function prepareBlock(
  block: Block,
  parent: LedgerState,
  ctx: UncleContext,
  opts: { own: boolean },
): Promise<PreparedBlock> {
  checkStructure(block);
  await checkUncles(block, ctx);
  const rejected = (e: unknown) =>
    new BlockRejected('BLOCK_LEDGER', (e as Error).message, {
      cause: e,
      meta: { slot: block.header.slot },
    });
  try {
    const { result, verified } = applyBlockDeferred(parent, block, ctx.config, ctx.proofs, {
      skipProofOfLeadership: opts.own,
    });
    return { result, proofsChecked: verified.then(() => undefined, rejected) };
  } catch (e) {
    throw rejected(e);
  }
}
